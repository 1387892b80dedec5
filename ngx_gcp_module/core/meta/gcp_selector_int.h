
/*
 * Between the parts of the label selectors: gcp_selector.c
 * (requirements, metav1.LabelSelector, matching, string form) and
 * gcp_selector_parse.c (the lexer and parser); the rest of the core uses
 * gcp_selector.h.
 */

#ifndef _GCP_SELECTOR_INT_H_INCLUDED_
#define _GCP_SELECTOR_INT_H_INCLUDED_


#include "gcp_selector.h"


/*
 * Returns old, or a copy of its n elements of size bytes in a larger
 * arena array (its capacity in *cap), so that it holds one more; NULL
 * when out of memory.
 */
void *gcp_sel_grow(gcp_arena_t *a, void *old, size_t n, size_t *cap,
    size_t size);

/* Sorts the n strings at v by bytes (Go's < on strings), in n log n. */
void gcp_sel_sort_strings(const char **v, size_t n);

/*
 * Drops the repeats from the n sorted strings at v; returns how many
 * are left.
 */
size_t gcp_sel_unique_strings(const char **v, size_t n);

/* Sorts the n requirements at r by key, stably (labels.ByKey). */
void gcp_sel_sort_reqs(gcp_label_req_t *r, size_t n);

/*
 * The messages of IsQualifiedName(s), "; "-joined, appended to b; returns
 * their number (0: s is a valid label key).
 */
int gcp_sel_key_errors(gcp_buf_t *b, const char *s, size_t len);

/*
 * Returns the messages check() gives for s (len bytes) as an arena string
 * ("" when none), or NULL when out of memory; *n gets their number.
 */
const char *gcp_sel_errors_text(gcp_arena_t *a,
    int (*check)(gcp_buf_t *b, const char *s, size_t len),
    const char *s, size_t len, int *n);

/*
 * labels.NewRequirement(key, op, values) with a nil field path.  values
 * (nvalues; lens: their byte lengths, which may count NULs from JSON, or
 * NULL for strlen) are validated in the order given, then copied into r
 * (arena) and sorted.  Returns GCP_OK, GCP_EBADREQUEST with *msg (an
 * arena string), or GCP_ENOMEM.
 */
int gcp_sel_new_req(gcp_arena_t *a, const char *key, size_t key_len,
    gcp_sel_op_t op, const char **values, const size_t *lens, size_t nvalues,
    gcp_label_req_t *r, const char **msg);


#endif /* _GCP_SELECTOR_INT_H_INCLUDED_ */
