
/*
 * Between the parts of the strategic merge patch: gcp_patch_strategic.c
 * (the merge), gcp_patch_strategic_fmt.c (Go's formatting, type names,
 * error messages and equality) and gcp_patch_strategic_sort.c (Go's
 * sort.SliceStable); the rest of the core uses gcp_patch.h.
 */

#ifndef _GCP_PATCH_STRATEGIC_INT_H_INCLUDED_
#define _GCP_PATCH_STRATEGIC_INT_H_INCLUDED_


#include "gcp_json.h"
#include "gcp_patch.h"


/* Go's dynamic types of decoded JSON values */
typedef enum {
    GCP_SMP_NIL = 0,
    GCP_SMP_MAP,
    GCP_SMP_SLICE,
    GCP_SMP_STRING,
    GCP_SMP_INT,
    GCP_SMP_FLOAT,
    GCP_SMP_BOOL
} gcp_smp_type_t;


/* A Go []interface{}: headers copied by value share the backing array. */
typedef struct {
    json_t          **v;
    size_t            len;
    size_t            cap;
} gcp_smp_slice_t;


/* one element being sorted, with its cached index in the order list */
typedef struct {
    json_t           *v;
    long              idx;
} gcp_smp_item_t;


/* One patch: its arena and schemas, parked values, the error. */
typedef struct {
    gcp_arena_t             *arena;
    const gcp_schema_set_t  *set;
    json_t                  *keep;      /* parked values, released at end */
    int                      rc;
    const char              *msg;
} gcp_smp_t;


/*
 * Errors (gcp_patch_strategic_fmt.c).  Each records its code and message
 * in smp->rc and smp->msg (the message in smp->arena) and returns the
 * code.
 */

/* An error rc with a printf-style message (GCP_ENOMEM if out of memory). */
int gcp_smp_fail(gcp_smp_t *smp, int rc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* GCP_ENOMEM, "out of memory". */
int gcp_smp_nomem(gcp_smp_t *smp);

/* mergepatch.ErrBadArgType(expected, actual): GCP_EINTERNAL. */
int gcp_smp_bad_arg(gcp_smp_t *smp, gcp_smp_type_t expected,
    const json_t *v);

/* mergepatch.ErrNoMergeKey(m, key): GCP_EINTERNAL. */
int gcp_smp_no_merge_key(gcp_smp_t *smp, const json_t *m, const char *key);

/* mergepatch.ErrBadPatchType(t, m): GCP_EINTERNAL. */
int gcp_smp_bad_patch_type(gcp_smp_t *smp, const json_t *t,
    const json_t *m);


/*
 * Go values (gcp_patch_strategic_fmt.c).
 */

/* Returns the Go dynamic type of a decoded value (NULL: nil). */
gcp_smp_type_t gcp_smp_type(const json_t *v);

/*
 * Appends slice s to b as Go's fmt %v prints it; b's failed flag is set
 * when out of memory.
 */
void gcp_smp_fmt_slice(gcp_buf_t *b, const gcp_smp_slice_t *s);

/* Returns 1 when x == y as Go compares interface{} values, else 0. */
int gcp_smp_eq(const json_t *x, const json_t *y);


/*
 * Sorts the n items at d in place as Go's sort.SliceStable does with the
 * less() of upstream normalizeSliceOrder(), which is not a strict order:
 * of two items one of which has idx -1, each is "less" than the other
 * (gcp_patch_strategic_sort.c).
 */
void gcp_smp_stable(gcp_smp_item_t *d, long n);


#endif /* _GCP_PATCH_STRATEGIC_INT_H_INCLUDED_ */
