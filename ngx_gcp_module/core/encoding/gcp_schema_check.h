
/*
 * Body checks kube-apiserver makes while decoding a JSON body into a typed
 * object (Go's encoding/json as forked by sigs.k8s.io/json: case-sensitive
 * field names, strict mode reporting unknown fields), driven by the schema
 * of the object.
 *
 * Unknown fields: paths as in strict decoding errors ("unknown field
 * \"metadata.unknownMeta\""): dotted field names, "[i]" for array items,
 * map keys as fields ("data.k").  apiVersion and kind are known at the top
 * level.  Under maps (additionalProperties), free-form objects (an object
 * schema without properties or additionalProperties: FieldsV1,
 * RawExtension) and x-kubernetes-preserve-unknown-fields every field is
 * known.  A value of the wrong JSON type is not descended into.
 *
 * Type errors: the first error in document order, worded as Go reports
 * it, e.g. "json: cannot unmarshal number into Go struct field
 * ConfigMap.data of type string": the struct is the innermost struct
 * decoded, the field the dotted path of struct fields from the top (array
 * indexes and map keys are not part of it), the type Go's type name
 * (string, int64, bool, []string, map[string]string, v1.ObjectMeta,
 * []uint8...).  Named Go types the schema cannot tell are written in the
 * schema files as "x-gcp-go-type" (e.g. "types.UID", "v1.NamespacePhase").
 * JSON null is accepted everywhere.  Also: integers out of range and
 * non-integral numbers in integer fields ("number 1e+30"), base64 of
 * format "byte" strings ("illegal base64 data at input byte 4"), and the
 * fields with their own decoders: metav1.Time / MicroTime (a string in RFC
 * 3339 form, Go's time.Parse messages) and int-or-string.
 *
 * kube-apiserver reports a type error before (and instead of) unknown
 * fields; callers check types first.  The messages are the decoder's part
 * of the Status message, which kube-apiserver prefixes with "KIND in
 * version \"V\" cannot be handled as a KIND: ".
 */

#ifndef _GCP_SCHEMA_CHECK_H_INCLUDED_
#define _GCP_SCHEMA_CHECK_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"
#include "gcp_schema.h"


/* strict decoding reports at most this many unknown fields */
#define GCP_SCHEMA_MAX_UNKNOWN  100


/*
 * Finds the fields of obj that schema does not know, in document order,
 * without duplicates, at most GCP_SCHEMA_MAX_UNKNOWN.  Sets *paths to an
 * array of *n paths; array and strings are owned by the arena.  Returns
 * GCP_OK or GCP_ENOMEM.
 */
int gcp_schema_unknown_fields(gcp_arena_t *a, const gcp_schema_set_t *set,
    const json_t *schema, const json_t *obj, const char ***paths, size_t *n);

/*
 * Removes from obj every field gcp_schema_unknown_fields() reports (the
 * fields a typed decode drops).  Returns the number removed.
 */
size_t gcp_schema_prune_unknown(const gcp_schema_set_t *set,
    const json_t *schema, json_t *obj);

/*
 * Checks the JSON types of obj against schema.  Returns GCP_OK, or
 * GCP_EBADREQUEST with *msg set to the decoder's message (owned by the
 * arena), or GCP_ENOMEM.
 */
int gcp_schema_check_types(gcp_arena_t *a, const gcp_schema_set_t *set,
    const json_t *schema, const json_t *obj, const char **msg);

/*
 * As gcp_schema_check_types(), the nbig values of big (strings that
 * gcp_json_parse_ex() made of numbers beyond float64) read as those
 * numbers: where a known field reads one, Go's error ("json: cannot
 * unmarshal number 1e400 into Go struct field ... of type int32").
 */
int gcp_schema_check_types_big(gcp_arena_t *a, const gcp_schema_set_t *set,
    const json_t *schema, const json_t *obj, json_t * const *big,
    size_t nbig, const char **msg);


#endif /* _GCP_SCHEMA_CHECK_H_INCLUDED_ */
