
/*
 * Between gcp_managed.c and gcp_managed_scale.c: managedFields entries
 * decoded and encoded as upstream's field manager does.
 */

#ifndef _GCP_MANAGED_INT_H_INCLUDED_
#define _GCP_MANAGED_INT_H_INCLUDED_


#include <jansson.h>


/* Returns the string key of entry e, or "" (borrowed from e). */
const char *gcp_mf_str(const json_t *e, const char *key);

/*
 * Returns a valid copy of managedFields entries (every entry with a
 * fieldsV1, in upstream's form), as upstream decodes them: a new
 * reference, or NULL when mf is absent or invalid, or out of memory.
 * The entries are copies; their field sets are shared with mf (a set is
 * never changed in place: a new one replaces it).
 */
json_t *gcp_mf_decode(const json_t *mf);

/*
 * Returns the entries of mf in upstream's order, each with its keys in
 * upstream's order: a new reference, or NULL when out of memory.
 * Consumes mf.
 */
json_t *gcp_mf_encode(json_t *mf);


#endif /* _GCP_MANAGED_INT_H_INCLUDED_ */
