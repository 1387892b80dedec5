
/*
 * Structured merge of objects by their schema, as structured-merge-diff's
 * typed values do it for server-side apply: the merge of an applied
 * configuration into a live object, the comparison of two objects as
 * field sets (what was added or changed, what was removed), and the
 * removal of a field set's members from an object.  Lists and maps follow
 * the schema as gcp_fieldset.h describes; without a schema maps are
 * granular and lists atomic.
 */

#ifndef _GCP_APPLY_H_INCLUDED_
#define _GCP_APPLY_H_INCLUDED_


#include <jansson.h>

#include "gcp_schema.h"


/*
 * Returns live with config merged in (a new reference owned by the
 * caller, NULL when out of memory): granular maps are merged key by key,
 * set and map lists item by item in structured-merge-diff's order (the
 * config's items where both have them, live's others kept in place),
 * everything else (scalars, atomic lists and maps) is config's.
 */
json_t *gcp_apply_merge(const gcp_schema_set_t *set, const json_t *node,
    const json_t *live, const json_t *config);

/*
 * Compares old and new (either may be NULL) as structured-merge-diff's
 * Compare does and sets *changed to the set of what was added or modified
 * and *removed to the set of what was removed (new references, FieldsV1
 * form).  A granular map, set or map list that appears (was absent) or
 * disappears is a member itself, as are list items; a null value counts
 * as none; metadata.managedFields are left aside.  Returns 0, or -1 when
 * out of memory.
 */
int gcp_apply_compare(const gcp_schema_set_t *set, const json_t *node,
    const json_t *old, const json_t *new, json_t **changed,
    json_t **removed);

/*
 * Removes from obj, in place, every member of the set s (a field, a list
 * item, or a whole subtree).
 */
void gcp_apply_remove(const gcp_schema_set_t *set, const json_t *node,
    json_t *obj, const json_t *s);

/*
 * Returns s with every field that has members below it made a member too
 * (structured-merge-diff's EnsureNamedFieldsAreMembers, for "f:" elements):
 * a new reference, or NULL when out of memory.
 */
json_t *gcp_apply_with_parents(const json_t *s);


#endif /* _GCP_APPLY_H_INCLUDED_ */
