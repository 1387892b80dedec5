
/*
 * JSONPath as kubectl's (k8s.io/client-go/util/jsonpath) in the subset
 * custom resource definitions use: additionalPrinterColumns,
 * selectableFields and the scale subresource's paths.  A path is what
 * goes between "{" and "}": fields (".spec.size", escaped dots
 * "\.", bracketed names ['a.b']), array indexes ([0], [-1]), every
 * element ([*]) and filters on a field ([?(@.type=="Ready")], with == and
 * !=, against a string, number or boolean).
 */

#ifndef _GCP_JSONPATH_H_INCLUDED_
#define _GCP_JSONPATH_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"


typedef struct gcp_jsonpath_s  gcp_jsonpath_t;


/*
 * Compiles path.  Returns it (owned by the caller, released with
 * gcp_jsonpath_free()), or NULL with *err set to a static message
 * (out of memory, or what is wrong with the path).
 */
gcp_jsonpath_t *gcp_jsonpath_compile(const char *path, const char **err);

/* NULL is allowed. */
void gcp_jsonpath_free(gcp_jsonpath_t *jp);

/* Returns 1 when the path is made of field names only (".a.b.c"). */
int gcp_jsonpath_simple(const gcp_jsonpath_t *jp);

/*
 * Returns the first value the path finds in v, in document order
 * (borrowed from v), or NULL when it finds none.
 */
json_t *gcp_jsonpath_first(const gcp_jsonpath_t *jp, const json_t *v);

/*
 * Appends v as kubectl's JSONPath printer writes a result: strings as
 * they are, other values as JSON.
 */
void gcp_jsonpath_print(gcp_buf_t *b, const json_t *v);


#endif /* _GCP_JSONPATH_H_INCLUDED_ */
