
/*
 * A label index of one resource's objects (one storage prefix), in process
 * memory: storage key to its stored bytes, labels (and field values, as
 * labels of their own: gcp_lindex_selector()) and mod_revision, so that
 * a list it answers reads nothing else, and postings from
 * (namespace, label key) and (namespace, key=value) to keys, each also for
 * all namespaces.  A query returns the keys of a namespace (or of all)
 * whose labels satisfy a label selector, sorted, reading only the smallest
 * posting a requirement of the selector names (=, ==, in, exists, >, <),
 * or the namespace's keys when none does (!=, notin, !key alone).  The
 * caller keeps it current (gcp_reg_index.c: a store watch).
 *
 * Not thread-safe; every string is copied.
 */

#ifndef _GCP_LINDEX_H_INCLUDED_
#define _GCP_LINDEX_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"
#include "gcp_selector.h"


typedef struct gcp_lindex_s  gcp_lindex_t;


typedef struct {
    gcp_str_t    key;               /* arena copy */
    gcp_str_t    value;             /* the index's: valid until it changes */
    int64_t      mod_revision;
} gcp_lindex_hit_t;


/*
 * Returns an empty index of the keys that start with a prefix of
 * prefix_len bytes; with namespaced, a key's namespace is what follows
 * the prefix up to the next '/'.  Owned by the caller (gcp_lindex_free),
 * NULL when out of memory.
 */
gcp_lindex_t *gcp_lindex_create(size_t prefix_len, int namespaced);

void gcp_lindex_free(gcp_lindex_t *ix);

/*
 * Records key with its stored bytes value (copied) at mod_revision, with
 * labels (a JSON object, borrowed; NULL or another type: no labels;
 * values that are not strings count as absent), replacing what was
 * recorded for key.  Returns GCP_OK, or GCP_ENOMEM (then key is no
 * longer recorded).
 */
int gcp_lindex_put(gcp_lindex_t *ix, gcp_str_t key, gcp_str_t value,
    const json_t *labels, int64_t mod_revision);

/* Forgets key (it was deleted). */
void gcp_lindex_delete(gcp_lindex_t *ix, gcp_str_t key);

/*
 * Returns GCP_OK with *hits (arena-owned, sorted by key; their values
 * point into the index, valid until it changes) and *n: the keys of
 * namespace ns ("": every key) not below from (len 0: all) whose labels
 * satisfy sel; GCP_ENOMEM.
 */
int gcp_lindex_query(gcp_lindex_t *ix, gcp_arena_t *a, const char *ns,
    const gcp_label_selector_t *sel, gcp_str_t from,
    gcp_lindex_hit_t **hits, size_t *n);

/*
 * Field values are recorded as labels named GCP_LINDEX_FIELD and the
 * field label ("$metadata.name"), which no label key can be (a label
 * selector never names them): put records an object's labels and every
 * field the index holds for its resource, "" for an absent one (a field
 * selector compares absent fields as "").
 */
#define GCP_LINDEX_FIELD  '$'

/*
 * Returns GCP_OK with *out (arena-owned): labels (NULL: none) and the
 * terms of fields (NULL: none), "f=v" and "f!=v" as requirements on the
 * labels named for f; GCP_EUNAVAILABLE when a term names a field for
 * which indexed(ctx, field) returns 0 or a value holding a NUL byte;
 * GCP_ENOMEM.
 */
int gcp_lindex_selector(gcp_arena_t *a, const gcp_label_selector_t *labels,
    const gcp_field_selector_t *fields,
    int (*indexed)(void *ctx, const char *field), void *ctx,
    gcp_label_selector_t **out);

/* Returns 1 when namespace ns ("": any) holds a key not below from. */
int gcp_lindex_any_from(gcp_lindex_t *ix, const char *ns, gcp_str_t from);

/* Returns the number of keys recorded. */
size_t gcp_lindex_count(const gcp_lindex_t *ix);

/* Returns the bytes the index holds (allocations, estimated). */
size_t gcp_lindex_bytes(const gcp_lindex_t *ix);


#endif /* _GCP_LINDEX_H_INCLUDED_ */
