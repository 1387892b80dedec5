
/*
 * Field sets as structured-merge-diff keeps them for managedFields: a trie
 * in FieldsV1's JSON form, each key one path element -- "f:NAME" (a field
 * or map key), "k:{...}" (an associative list item by its key fields),
 * "v:VALUE" (a set item), "i:N" (an index) -- each value {} for a leaf,
 * or the element's children with "." when the element itself is a member.
 * Keys are in upstream's order ("." first, then fields by name, keys,
 * values, indexes), so a dumped set is what kube-apiserver writes.
 *
 * What a value's set is follows the schema: lists by x-kubernetes-list-
 * type (atomic: the list is one leaf; set: "v:" items; map: "k:" items by
 * x-kubernetes-list-map-keys), or for built-in types without it by their
 * patch strategy (merge with a merge key: a map list; merge alone: a set;
 * none: atomic); maps are granular unless x-kubernetes-map-type is atomic;
 * an empty object is a leaf.  Without a schema maps are granular and lists
 * atomic.
 *
 * Every function returns a new jansson reference owned by the caller, or
 * NULL when out of memory.
 */

#ifndef _GCP_FIELDSET_H_INCLUDED_
#define _GCP_FIELDSET_H_INCLUDED_


#include <jansson.h>

#include "gcp_schema.h"


/*
 * The set of fields obj specifies under schema node (NULL: none).  With
 * strip, obj is a whole object and the fields no manager owns are left
 * out, as upstream's field manager strips them: apiVersion, kind and
 * metadata's name, namespace, uid, resourceVersion, generation,
 * creationTimestamp, selfLink and managedFields.
 */
json_t *gcp_fieldset_of(const gcp_schema_set_t *set, const json_t *node,
    const json_t *obj, int strip);

/*
 * Leaves out of s (changed in place, returned) the fields no manager owns
 * (see gcp_fieldset_of()).
 */
json_t *gcp_fieldset_strip(json_t *s);

/* a | b, a - b and a & b, in upstream's order. */
json_t *gcp_fieldset_union(const json_t *a, const json_t *b);
json_t *gcp_fieldset_difference(const json_t *a, const json_t *b);
json_t *gcp_fieldset_intersection(const json_t *a, const json_t *b);

/* Returns 1 when the set has no member. */
int gcp_fieldset_empty(const json_t *s);

/*
 * Without building a set: gcp_fieldset_intersects() returns 1 when a & b
 * has a member (else 0), gcp_fieldset_subset() returns 1 when every
 * member of a is one of b (else 0).
 */
int gcp_fieldset_intersects(const json_t *a, const json_t *b);
int gcp_fieldset_subset(const json_t *a, const json_t *b);

/*
 * Returns 1 when s is in the form the functions here make (objects only,
 * keys in upstream's order), else 0: a set decoded from a client may need
 * gcp_fieldset_normalize(), which returns it in that form.
 */
int gcp_fieldset_normal(const json_t *s);
json_t *gcp_fieldset_normalize(const json_t *s);

/*
 * Returns s (consumed) with the keys of every level in upstream's order,
 * for a set in that form but for the order (as one built from objects'
 * keys is): levels already in order are kept, the others rebuilt; NULL
 * when out of memory.
 */
json_t *gcp_fieldset_order(json_t *s);

/*
 * Returns the leaf paths of s as upstream prints them in conflict
 * messages (".data.shared", ".spec.containers[name=\"c\"].image"), in
 * set order, as a new array of strings.
 */
json_t *gcp_fieldset_paths(const json_t *s);



/* How a list's items are told apart, by its schema node (NULL: atomic). */
typedef enum {
    GCP_FS_LIST_ATOMIC = 0,
    GCP_FS_LIST_SET,
    GCP_FS_LIST_MAP,
    GCP_FS_LIST_ERROR               /* out of memory */
} gcp_fieldset_list_t;

/*
 * Returns the type of the list at node; for a map list *keys is set to a
 * new reference to the array of its key field names (the caller decrefs
 * it), else to NULL.
 */
gcp_fieldset_list_t gcp_fieldset_list_type(const gcp_schema_set_t *set,
    const json_t *node, json_t **keys);

/*
 * Returns the path element of a list item as a malloc'd string the caller
 * frees ("v:VALUE" in a set, "k:{...}" in a map list by keys), or NULL
 * when out of memory.
 */
char *gcp_fieldset_elem(gcp_fieldset_list_t type, const json_t *item,
    const json_t *keys);
char *gcp_fieldset_item_key(const json_t *item, const json_t *keys);
char *gcp_fieldset_value_key(const json_t *item);

/* Returns 1 when the object at node is an atomic map. */
int gcp_fieldset_atomic_map(const gcp_schema_set_t *set, const json_t *node);


#endif /* _GCP_FIELDSET_H_INCLUDED_ */
