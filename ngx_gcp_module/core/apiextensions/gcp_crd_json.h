
/*
 * Reading a JSONSchemaProps object as Go decodes it into
 * apiextensions.JSONSchemaProps: a JSON null is an absent field, a field
 * of the wrong JSON type (refused by the decoder before validation) reads
 * as its zero value.  Internal to the CRD schema library.
 */

#ifndef _GCP_CRD_JSON_H_INCLUDED_
#define _GCP_CRD_JSON_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"


/* a string field: "" when absent */
static inline const char *
gcp_crd_js_str(const json_t *s, const char *key)
{
    json_t  *v = json_object_get(s, key);

    return json_is_string(v) ? json_string_value(v) : "";
}


/* an object field (a schema, a map), or NULL */
static inline json_t *
gcp_crd_js_obj(const json_t *s, const char *key)
{
    json_t  *v = json_object_get(s, key);

    return json_is_object(v) ? v : NULL;
}


/* a pointer, slice or map field that is set (not null) */
static inline int
gcp_crd_js_has(const json_t *s, const char *key)
{
    json_t  *v = json_object_get(s, key);

    return v != NULL && !json_is_null(v);
}


static inline int
gcp_crd_js_true(const json_t *s, const char *key)
{
    return json_is_true(json_object_get(s, key));
}


/*
 * Whether field key with JSON value v is the zero value of its Go field
 * in the internal JSONSchemaProps (strings "", booleans false, pointers,
 * slices and maps nil: an empty array or object is not zero).  Unknown
 * keys are dropped by the decoder: zero.
 */
int gcp_crd_js_zero(const char *key, const json_t *v);

/*
 * The Go field name of a JSONSchemaProps key ("XListType"), in the
 * struct's order through *order; NULL for an unknown key.
 */
const char *gcp_crd_js_go_name(const char *key, int *order);


#endif /* _GCP_CRD_JSON_H_INCLUDED_ */
