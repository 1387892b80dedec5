
/*
 * Internals of the protobuf encoding: gcp_protobuf.c (message descriptors
 * built from the schemas), gcp_protobuf_encode.c, gcp_protobuf_wire.c
 * (reading the wire), gcp_protobuf_decode.c (messages),
 * gcp_protobuf_body.c (the envelope, decoding entry points) and
 * gcp_protobuf_json.c (Go's JSON of decoded messages).
 */

#ifndef _GCP_PROTOBUF_INT_H_INCLUDED_
#define _GCP_PROTOBUF_INT_H_INCLUDED_


#include "gcp_protobuf.h"


/* wire types */
#define GCP_PB_VARINT     0
#define GCP_PB_FIXED64    1
#define GCP_PB_LEN        2
#define GCP_PB_SGROUP     3
#define GCP_PB_EGROUP     4
#define GCP_PB_FIXED32    5

#define GCP_PB_MAX_FIELD  536870911         /* 2^29 - 1 */

/* Go's zero time.Time, 0001-01-01T00:00:00Z, in Unix seconds. */
#define GCP_PB_ZERO_TIME  (-62135596800LL)

#define GCP_PB_DEF_WATCH  "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"


/* What a value is on the wire and in JSON. */
typedef enum {
    GCP_PB_NONE = 0,            /* not encodable: the field is skipped */
    GCP_PB_STRING,
    GCP_PB_BYTES,               /* JSON: base64 */
    GCP_PB_INT32,
    GCP_PB_INT64,
    GCP_PB_BOOL,
    GCP_PB_MESSAGE,
    GCP_PB_TIME,                /* metav1.Time: seconds */
    GCP_PB_MICROTIME,           /* metav1.MicroTime: seconds, nanos */
    GCP_PB_FIELDSV1,            /* raw JSON in field 1 */
    GCP_PB_RAWEXT,              /* raw JSON or protobuf body in field 1 */
    GCP_PB_INTORSTR,            /* type 1, intVal 2, strVal 3 */
    GCP_PB_QUANTITY,            /* string 1 */
    GCP_PB_STRINGS,             /* repeated string 1 (ExtraValue), JSON */
                                /* an array of strings */
    GCP_PB_DOUBLE,              /* fixed64; JSON: a number */
    GCP_PB_JSON,                /* raw JSON in field 1, keys sorted */
    GCP_PB_ORARRAY,             /* the unions: an x-gcp-proto-message */
    GCP_PB_ORBOOL,              /* whose JSON is one of its fields */
    GCP_PB_ORSTRINGS            /* (gcp_protobuf_union.c) */
} gcp_pb_kind_t;

#define gcp_pb_is_union(kind)                                               \
    ((kind) == GCP_PB_ORARRAY || (kind) == GCP_PB_ORBOOL                    \
     || (kind) == GCP_PB_ORSTRINGS)


typedef enum {
    GCP_PB_SINGLE = 0,
    GCP_PB_REPEATED,
    GCP_PB_MAP,                 /* entries: key 1 (string), value 2 */
    GCP_PB_VERBS                /* a message holding repeated string 1 */
} gcp_pb_card_t;


typedef struct gcp_pb_msg_s  gcp_pb_msg_t;

typedef struct {
    uint32_t        num;
    const char     *name;       /* JSON name (borrowed from the schema) */
    size_t          name_len;
    gcp_pb_kind_t   kind;       /* of the value, element or map value */
    gcp_pb_card_t   card;
    unsigned        ptr:1;
    unsigned        noomit:1;
    unsigned        inlined:1;  /* an embedded Go struct: its fields are */
                                /* the message's own in JSON (no name) */
    const json_t   *schema;     /* resolved message schema (MESSAGE), */
                                /* x-gcp-proto-message (unions) */
    const char     *type_name;  /* its definition's name, or NULL */
} gcp_pb_field_t;


struct gcp_pb_msg_s {
    const json_t     *schema;   /* resolved */
    const char       *go_name;  /* "ConfigMap", for error messages */
    gcp_pb_field_t   *fields;   /* ascending field number */
    size_t            nfields;
    gcp_pb_field_t  **order;    /* JSON (Go struct) order */
    gcp_pb_msg_t     *next;     /* cache chain */
};


/* One encoding or decoding run. */
typedef struct {
    gcp_arena_t             *arena;
    const gcp_schema_set_t  *set;
    gcp_pb_msg_t            *cache;
    int                      depth;
    const char              *msg;       /* decoding error */
} gcp_pb_ctx_t;


/* A reader over wire data. */
typedef struct {
    const unsigned char  *p;
    const unsigned char  *end;
} gcp_pb_rd_t;


/* One field of a small fixed message (Timestamp, IntOrString...). */
typedef struct {
    int                   seen;
    uint64_t              v;            /* varint fields */
    const unsigned char  *p;            /* length-delimited fields */
    size_t                n;
} gcp_pb_slot_t;


/* A map entry, for sorting. */
typedef struct {
    const char  *key;
    size_t       len;
    json_t      *value;
} gcp_pb_kv_t;


/* Starts a run over set with descriptors (and messages) in arena a. */
void gcp_pb_ctx_init(gcp_pb_ctx_t *ctx, gcp_arena_t *a,
    const gcp_schema_set_t *set);

/*
 * Returns the descriptor of the message whose resolved schema is schema
 * (name: its definition name or NULL), built once per run and owned by the
 * arena; NULL when out of memory.
 */
gcp_pb_msg_t *gcp_pb_msg(gcp_pb_ctx_t *ctx, const json_t *schema,
    const char *name);

/* Returns the descriptor of definition def, or NULL (unknown, ENOMEM). */
gcp_pb_msg_t *gcp_pb_msg_def(gcp_pb_ctx_t *ctx, const char *def);

/* Returns the field numbered num, or NULL. */
const gcp_pb_field_t *gcp_pb_field(const gcp_pb_msg_t *m, uint64_t num);

/* Returns the wire type of a single value of kind. */
int gcp_pb_wire_type(gcp_pb_kind_t kind);

/*
 * Splits apiVersion into *group and *version (arena strings) as
 * schema.ParseGroupVersion; returns GCP_OK, or GCP_EBADREQUEST when it has
 * more than one '/', or GCP_ENOMEM.
 */
int gcp_pb_parse_api_version(gcp_arena_t *a, const char *av,
    const char **group, const char **version);

/*
 * Returns the definition name for apiVersion and kind when it is
 * protobuf-capable, else NULL.
 */
const char *gcp_pb_find_def(gcp_arena_t *a, const gcp_schema_set_t *set,
    const char *api_version, const char *kind);

/*
 * Returns the members of object map sorted by key bytes (Go's
 * sort.Strings), *n of them, in a malloc'd array the caller frees; the
 * keys and values are borrowed from map.  NULL when out of memory.
 */
gcp_pb_kv_t *gcp_pb_sorted(const json_t *map, size_t *n);


/*
 * Reading (gcp_protobuf_wire.c).  Every function returns GCP_OK, or
 * GCP_EBADREQUEST with ctx->msg set to gogo-protobuf's message ("unexpected
 * EOF", "proto: integer overflow"...), or GCP_ENOMEM with ctx->msg NULL.
 */

/* Sets ctx->msg; returns GCP_EBADREQUEST, or GCP_ENOMEM for msg NULL. */
int gcp_pb_fail(gcp_pb_ctx_t *ctx, const char *msg);

int gcp_pb_varint(gcp_pb_ctx_t *ctx, gcp_pb_rd_t *rd, uint64_t *v);

/* A fixed64 value (8 bytes, little-endian). */
int gcp_pb_fixed64(gcp_pb_ctx_t *ctx, gcp_pb_rd_t *rd, uint64_t *v);

/* A length-delimited value: *p and *n point into the data. */
int gcp_pb_bytes(gcp_pb_ctx_t *ctx, gcp_pb_rd_t *rd,
    const unsigned char **p, size_t *n);

/* Skips the value of a field whose tag (of wire type wire) was read. */
int gcp_pb_skip(gcp_pb_ctx_t *ctx, gcp_pb_rd_t *rd, unsigned wire);

/*
 * Reads the next tag of a message named go_name: *num (Go's int32 field
 * number) and *wire; rejects end groups and field numbers below 1.
 */
int gcp_pb_tag(gcp_pb_ctx_t *ctx, gcp_pb_rd_t *rd, const char *go_name,
    int32_t *num, unsigned *wire);

/* "proto: wrong wireType = W for field Name" (name's first letter up). */
int gcp_pb_wrong_wire(gcp_pb_ctx_t *ctx, unsigned wire, const char *name);

/*
 * Reads a small message whose field i + 1 (i < nslots) has wire type
 * wires[i] and Go name names[i] into slots; other fields are skipped, the
 * last occurrence of a field wins.
 */
int gcp_pb_dec_fixed(gcp_pb_ctx_t *ctx, const unsigned char *p, size_t n,
    const char *go_name, const unsigned *wires, const char **names,
    size_t nslots, gcp_pb_slot_t *slots);

/*
 * Returns a new JSON string of the n bytes at p with invalid UTF-8
 * replaced by U+FFFD (as Go's encoding/json writes it), or NULL (ENOMEM).
 */
json_t *gcp_pb_json_string(gcp_pb_ctx_t *ctx, const unsigned char *p,
    size_t n);


/*
 * Decoding (gcp_protobuf_decode.c, gcp_protobuf_body.c); errors as above.
 */

/* Reads the fields of message m present in p (n bytes) into obj. */
int gcp_pb_dec_message(gcp_pb_ctx_t *ctx, const gcp_pb_msg_t *m,
    const unsigned char *p, size_t n, json_t *obj);

/*
 * Decodes a whole body (magic, envelope, object) into *out, a new
 * reference; err (may be NULL) gets the envelope's kind and apiVersion.
 */
int gcp_pb_dec_envelope(gcp_pb_ctx_t *ctx, const unsigned char *p,
    size_t n, json_t **out, gcp_protobuf_error_t *err);


/*
 * Go's JSON (gcp_protobuf_json.c).
 */

/*
 * Adds to out (a new object when NULL) the fields of message m held in the
 * decoded tree raw (NULL: none), in Go struct order with encoding/json's
 * rules, and returns it as a new reference; NULL when out of memory.
 */
json_t *gcp_pb_fin_message(gcp_pb_ctx_t *ctx, const gcp_pb_msg_t *m,
    const json_t *raw, json_t *out);

/* Returns a new reference to the JSON zero value of f's kind. */
json_t *gcp_pb_zero_value(const gcp_pb_field_t *f);


/*
 * The unions (gcp_protobuf_union.c): types whose JSON is a choice between
 * the fields of their message, as apiextensions' JSONSchemaPropsOrArray
 * (a schema or an array of schemas), JSONSchemaPropsOrBool and
 * JSONSchemaPropsOrStringArray.
 */

/*
 * Returns a new object, the message form (x-gcp-proto-message) of the
 * JSON value v of a union kind (v NULL: the zero value); NULL with *rc
 * GCP_EINTERNAL when v has a JSON type the union does not take, or
 * GCP_ENOMEM.
 */
json_t *gcp_pb_union_message(gcp_pb_kind_t kind, const json_t *v, int *rc);

/*
 * Returns a new reference to the JSON form of msg, the union's message
 * as gcp_pb_fin_message() wrote it, as upstream's MarshalJSON chooses it;
 * NULL when out of memory.
 */
json_t *gcp_pb_union_json(gcp_pb_kind_t kind, const json_t *msg);

/*
 * Returns a new reference to the JSON of a double, as encoding/json writes
 * a float64 and parsing that text gives (an integer when it has no
 * fraction nor exponent); NULL with ctx->msg set for NaN and infinities
 * ("json: unsupported value: NaN"), or NULL (ENOMEM) with ctx->msg NULL.
 */
json_t *gcp_pb_json_double(gcp_pb_ctx_t *ctx, double d);


#endif /* _GCP_PROTOBUF_INT_H_INCLUDED_ */
