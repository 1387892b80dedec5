
/*
 * Between the parts of the RBAC index: gcp_rbac_index.c (keeping it:
 * objects, subject keys, load, watch events) and gcp_rbac_index_query.c
 * (the queries); the rest of the core uses gcp_rbac_index.h.
 */

#ifndef _GCP_RBAC_INDEX_INT_H_INCLUDED_
#define _GCP_RBAC_INDEX_INT_H_INCLUDED_


#include "gcp_rbac_index.h"


#define GCP_RBAC_SA_PREFIX    "system:serviceaccount:"
#define GCP_RBAC_MAX_SUBS     4
#define GCP_RBAC_KEY_BUF      512


/* Objects of one kind, sorted by id. */
typedef struct {
    gcp_rbac_obj_t  **v;
    size_t            n;
    size_t            cap;
} gcp_rbac_objs_t;


typedef struct {
    char            *key;           /* malloc'd */
    gcp_rbac_obj_t  *binding;
} gcp_rbac_skey_t;


/*
 * Bindings by subject key ("c/u/USER", "n/NS/g/GROUP"...; see
 * gcp_rbac_index.c), sorted by key.
 */
typedef struct {
    gcp_rbac_skey_t  *v;
    size_t            n;
    size_t            cap;
} gcp_rbac_skeys_t;


typedef struct {
    gcp_rbac_changed_pt   changed;
    void                 *arg;
} gcp_rbac_sub_t;


struct gcp_rbac_index_s {
    gcp_store_t         *store;
    gcp_loop_t          *loop;

    gcp_rbac_objs_t      objs[GCP_RBAC_NKINDS];
    gcp_rbac_skeys_t     skeys;

    gcp_store_watch_t   *watch;
    gcp_loop_timer_t    *retry;
    gcp_arena_t         *load_arena;    /* of the list in flight */
    int64_t              revision;

    gcp_rbac_sub_t       subs[GCP_RBAC_MAX_SUBS];

    unsigned             ready:1;
    unsigned             loading:1;
    unsigned             freed:1;       /* free once the list completes */
};


/* Returns the object whose id is id ("NS/NAME" or "NAME") in s, or NULL. */
gcp_rbac_obj_t *gcp_rbac_objs_get(const gcp_rbac_objs_t *s, const char *id);

/* Returns the index of the first entry of s whose key is >= key. */
size_t gcp_rbac_skeys_lower(const gcp_rbac_skeys_t *s, const char *key);


#endif /* _GCP_RBAC_INDEX_INT_H_INCLUDED_ */
