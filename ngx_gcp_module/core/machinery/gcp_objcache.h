
/*
 * A per-process cache of decoded objects, keyed by storage key and
 * mod_revision: what kube-apiserver's watch cache saves it, parsing the
 * same stored bytes again for every Table row, selector match and watch
 * event.  One entry per key (the newest revision seen), least recently
 * used entries evicted beyond a byte budget.
 *
 * Cached objects are shared: callers must treat them as read-only and copy
 * before changing anything (gcp_object_cow() does that for metadata).
 */

#ifndef _GCP_OBJCACHE_H_INCLUDED_
#define _GCP_OBJCACHE_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"


typedef struct gcp_objcache_s  gcp_objcache_t;


/* Returns an empty cache holding at most about max_bytes, owned by the
 * caller (gcp_objcache_free), or NULL when out of memory. */
gcp_objcache_t *gcp_objcache_create(size_t max_bytes);

void gcp_objcache_free(gcp_objcache_t *c);

/*
 * Returns the object cached for key at exactly revision rev as a new
 * reference (the caller decrefs it), or NULL.
 */
json_t *gcp_objcache_get(gcp_objcache_t *c, gcp_str_t key, int64_t rev);

/*
 * Caches obj (the cache takes its own reference) for key at rev, replacing
 * an older revision; cost is the estimated memory it holds.  A newer
 * cached revision is kept.  Failures (no memory) are silent: the cache is
 * only an optimisation.
 */
void gcp_objcache_put(gcp_objcache_t *c, gcp_str_t key, int64_t rev,
    json_t *obj, size_t cost);

/* Drops key's entry (it was deleted). */
void gcp_objcache_forget(gcp_objcache_t *c, gcp_str_t key);

/* Entries, bytes accounted, hits and misses (benchmarks, tests). */
void gcp_objcache_stats(const gcp_objcache_t *c, size_t *entries,
    size_t *bytes, uint64_t *hits, uint64_t *misses);


#endif /* _GCP_OBJCACHE_H_INCLUDED_ */
