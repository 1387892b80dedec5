
/*
 * A mirror of the keys under a prefix of the store, in process memory,
 * kept current by a store watch: a list, then the watch from the list's
 * revision; a new list (after a second) when the watch ends or a copy
 * fails.  For the caches each worker keeps of a few objects (the
 * flowcontrol configuration): changed() is called after the list and
 * after every change, and the consumer reads the whole mirror again.
 */

#ifndef _GCP_MIRROR_H_INCLUDED_
#define _GCP_MIRROR_H_INCLUDED_


#include "gcp_core.h"
#include "gcp_loop.h"
#include "gcp_store.h"


typedef struct gcp_mirror_s  gcp_mirror_t;

typedef void (*gcp_mirror_changed_pt)(gcp_mirror_t *m, void *arg);


/*
 * Returns a new mirror of the keys starting with prefix (copied), owned
 * by the caller (gcp_mirror_free()), which starts loading at once (the
 * LMDB store answers before this returns: changed may run before), or
 * NULL when out of memory.
 */
gcp_mirror_t *gcp_mirror_create(gcp_store_t *store, gcp_loop_t *loop,
    const char *prefix, gcp_mirror_changed_pt changed, void *arg);

void gcp_mirror_free(gcp_mirror_t *m);

/* Returns 1 once the first list was loaded. */
int gcp_mirror_ready(const gcp_mirror_t *m);

/*
 * Returns how many mirrors of this process have not loaded their first
 * list yet (the worker's caches still loading, server/gcp_warm.c).
 */
size_t gcp_mirrors_loading(void);

/* Returns the store revision the mirror reflects (0 before loading). */
int64_t gcp_mirror_revision(const gcp_mirror_t *m);

/*
 * Returns the number of keys, and with kvs their key-sorted entries
 * (key, value, mod_revision), borrowed until the loop runs again.
 */
size_t gcp_mirror_entries(const gcp_mirror_t *m, const gcp_kv_t **kvs);


#endif /* _GCP_MIRROR_H_INCLUDED_ */
