
/*
 * Kubernetes protobuf encoding (application/vnd.kubernetes.protobuf) of
 * the built-in types, driven by the schemas.
 *
 * A body is the magic "k8s\0" followed by a runtime.Unknown message:
 * typeMeta (1: TypeMeta{apiVersion 1, kind 2}), raw (2: the object's own
 * message), contentEncoding (3) and contentType (4), both empty.  The
 * object's message has the field numbers of upstream's generated.proto,
 * written in the schema files beside each property:
 *
 *   "x-gcp-proto": N           field number; 0 for kind and apiVersion,
 *                              which travel in the envelope's TypeMeta
 *   "x-gcp-proto-ptr": true    a Go pointer: encoded only when the JSON
 *                              has the field; otherwise Go value fields
 *                              are always encoded (zero when absent), as
 *                              gogo-protobuf marshals them
 *   "x-gcp-proto-noomit": true the Go JSON tag has no omitempty: decoding
 *                              outputs the zero value (null for a nil
 *                              pointer, slice or map)
 *   "x-gcp-proto-type": T      on a definition (or property): time,
 *                              microtime (Timestamp{seconds 1, nanos 2}),
 *                              fieldsv1, rawextension (bytes raw = 1),
 *                              json (bytes raw = 1 holding any JSON value,
 *                              written with sorted keys: apiextensions'
 *                              JSON), intorstring, quantity, verbs (a
 *                              []string wrapped in a message, items = 1);
 *                              the unions schemaorarray, schemaorbool and
 *                              schemaorstringarray, whose JSON is one of
 *                              the fields of the message the definition
 *                              describes in "x-gcp-proto-message" (an
 *                              object schema with numbered properties;
 *                              see gcp_protobuf_union.c)
 *   "x-gcp-proto-order": [..]  on a definition whose Go struct order (the
 *                              JSON field order) differs from the field
 *                              number order
 *   "x-gcp-proto-inline": {"N": DEF}  on a definition embedding a Go
 *                              struct (json:",inline"): field N is a
 *                              message of definition DEF whose fields are
 *                              the object's own in JSON (their properties
 *                              here carry "x-gcp-proto": 0)
 *
 * Properties with x-kubernetes-int-or-string (or format int-or-string) are
 * IntOrString; numbers are doubles.  Repeated scalars are written unpacked
 * (proto2) and read packed or not; map entries are written sorted by key;
 * unknown fields are skipped when reading.  A definition is
 * protobuf-capable when every one of its properties carries x-gcp-proto
 * (custom resources are not).
 *
 * Decoding produces what kube-apiserver's JSON of the same object is: kind
 * and apiVersion first, fields in Go order, Go's omitempty rules (value
 * structs always present, a zero metav1.Time is null), Time as RFC 3339
 * seconds, MicroTime with 6 digits, bytes as base64, doubles as Go's
 * float64 (NaN and infinities are errors, as in encoding/json), map keys
 * sorted, invalid UTF-8 as U+FFFD.
 *
 * Caveats: Quantity strings are passed through, not canonicalised; a
 * RawExtension is written as a nested protobuf body when its object has a
 * protobuf-capable kind, else as JSON, and read back from either.
 */

#ifndef _GCP_PROTOBUF_H_INCLUDED_
#define _GCP_PROTOBUF_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"
#include "gcp_schema.h"


#define GCP_PROTOBUF_MAGIC      "k8s\0"
#define GCP_PROTOBUF_MAGIC_LEN  4

/* Nesting of messages (and embedded bodies) beyond this is rejected. */
#define GCP_PROTOBUF_MAX_DEPTH  100


typedef struct {
    /* Go's error text: "unexpected EOF", "proto: integer overflow"... */
    const char  *msg;
    /* the envelope's TypeMeta; NULL when the envelope could not be read */
    const char  *kind;
    const char  *api_version;
    /* upstream's summarizeData(body, 30): hex of at most 30 bytes,
     * " ..." when longer, "<empty>" for no data */
    const char  *summary;
} gcp_protobuf_error_t;


/*
 * Decodes a protobuf body (magic, Unknown envelope, object) into the JSON
 * object kube-apiserver would print for it.  On success returns GCP_OK and
 * sets *out (out must not be NULL), borrowed: released with the arena.
 * Errors:
 *   GCP_EBADREQUEST  malformed body, or a kind the set does not know;
 *   GCP_EMEDIATYPE   a known kind that has no protobuf encoding;
 *   GCP_ENOMEM.
 * err (may be NULL) is filled on error, its strings owned by the arena or
 * static.  kube-apiserver's 400 message is "KIND in version \"V\" cannot be
 * handled as a RESOURCEKIND: MSG" when err->kind is set, and otherwise "the
 * object provided is unrecognized (must be of type RESOURCEKIND): MSG
 * (SUMMARY)".
 */
int gcp_protobuf_decode_ex(gcp_arena_t *a, const gcp_schema_set_t *set,
    const char *data, size_t len, json_t **out, gcp_protobuf_error_t *err);

/* gcp_protobuf_decode_ex() reporting only err->msg in *msg. */
int gcp_protobuf_decode(gcp_arena_t *a, const gcp_schema_set_t *set,
    const char *data, size_t len, json_t **out, const char **msg);

/*
 * Decodes a bare message (no magic, no envelope) of definition def, e.g. a
 * WatchEvent frame.  Returns as gcp_protobuf_decode(); *out (borrowed,
 * released with the arena) has no kind/apiVersion unless def has them as
 * fields; GCP_EBADREQUEST also for an unknown def.
 */
int gcp_protobuf_decode_message(gcp_arena_t *a, const gcp_schema_set_t *set,
    const char *def, const char *data, size_t len, json_t **out,
    const char **msg);


/*
 * Appends obj as a protobuf body (magic, envelope, message), byte-identical
 * to kube-apiserver's.  obj's kind and apiVersion select the definition.
 * Returns GCP_OK; GCP_ENOTACCEPTABLE when the kind is unknown or has no
 * protobuf encoding (upstream answers 406); GCP_EINTERNAL when obj does not
 * match its schema (a wrong JSON type, an unparsable time, bad base64);
 * GCP_ENOMEM.  On error b is restored to its previous length.
 */
int gcp_protobuf_encode(gcp_buf_t *b, const gcp_schema_set_t *set,
    const json_t *obj);

/*
 * Appends obj as a bare message of definition def.  Returns as
 * gcp_protobuf_encode() (GCP_ENOTACCEPTABLE for an unknown def).
 */
int gcp_protobuf_encode_message(gcp_buf_t *b, const gcp_schema_set_t *set,
    const char *def, const json_t *obj);

/*
 * Appends one frame of a protobuf watch stream: a 4-byte big-endian length
 * then the bare WatchEvent{type, object: RawExtension{raw: object as a
 * protobuf body}}, as kube-apiserver streams them.  type ("ADDED", ...)
 * must not be NULL; object NULL encodes an empty raw.  Returns as
 * gcp_protobuf_encode().
 */
int gcp_protobuf_encode_watch_frame(gcp_buf_t *b, const gcp_schema_set_t *set,
    const char *type, const json_t *object);

/*
 * The wire writer, for messages no schema describes (the OpenAPI v2
 * document): a varint field, a double (fixed64) field, a length-delimited
 * field of n bytes; gcp_protobuf_open() starts a nested message field and
 * returns where its length goes, gcp_protobuf_close() writes that length
 * once the message is appended.  Failures are b's (gcp_buf_failed()).
 */
void gcp_protobuf_put_varint(gcp_buf_t *b, uint32_t num, uint64_t v);
void gcp_protobuf_put_double(gcp_buf_t *b, uint32_t num, double d);
void gcp_protobuf_put_bytes(gcp_buf_t *b, uint32_t num, const char *p,
    size_t n);
size_t gcp_protobuf_open(gcp_buf_t *b, uint32_t num);
void gcp_protobuf_close(gcp_buf_t *b, size_t start);

/* Returns 1 if definition def exists and is protobuf-capable, else 0. */
int gcp_protobuf_capable(const gcp_schema_set_t *set, const char *def);


#endif /* _GCP_PROTOBUF_H_INCLUDED_ */
