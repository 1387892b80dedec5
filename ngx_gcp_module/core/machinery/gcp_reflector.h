
/*
 * A reflector keeps a process's copy of the objects under a store prefix
 * current, as client-go's reflector does for an informer: one list of the
 * prefix, then one watch from the list's revision; a watch that ends
 * (compaction, storage error) or a change that cannot be applied (out of
 * memory) lists again a second later.  Every worker runs its own, so a
 * write made through any worker or instance reaches every copy within the
 * store's watch delay (milliseconds).
 *
 * The owner of the copy gives three callbacks: reset (a list begins: what
 * follows is the whole prefix), apply (one key's new value, or its
 * deletion), synced (a batch of changes was applied: a list, or the events
 * of one watch delivery).
 */

#ifndef _GCP_REFLECTOR_H_INCLUDED_
#define _GCP_REFLECTOR_H_INCLUDED_


#include "gcp_core.h"
#include "gcp_loop.h"
#include "gcp_store.h"


typedef struct gcp_reflector_s  gcp_reflector_t;


typedef struct {
    void   (*reset)(void *arg);

    /*
     * key now holds value (value.data NULL: the key was deleted), as of
     * revision rev; both are borrowed for the call.  Returns GCP_OK, or
     * GCP_ENOMEM (everything is listed again later).
     */
    int    (*apply)(void *arg, gcp_str_t key, gcp_str_t value, int64_t rev);

    void   (*synced)(void *arg);
} gcp_reflector_ops_t;


/*
 * Starts reflecting the keys under prefix (copied) into ops.  Returns the
 * reflector, owned by the caller (gcp_reflector_stop), or NULL when out
 * of memory.  The first list starts at once (the LMDB store answers
 * before this returns).
 */
gcp_reflector_t *gcp_reflector_start(gcp_store_t *store, gcp_loop_t *loop,
    gcp_str_t prefix, const gcp_reflector_ops_t *ops, void *arg);

/* Stops and frees the reflector; no callback runs afterwards. */
void gcp_reflector_stop(gcp_reflector_t *r);

/* Returns 1 once a list completed. */
int gcp_reflector_synced(const gcp_reflector_t *r);

/* Returns the store revision the copy reflects (0 before a list). */
int64_t gcp_reflector_revision(const gcp_reflector_t *r);


#endif /* _GCP_REFLECTOR_H_INCLUDED_ */
