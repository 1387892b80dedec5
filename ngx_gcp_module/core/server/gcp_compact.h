
/*
 * Scheduled compaction, as kube-apiserver does it: every interval, compact
 * the store to the revision it had one interval ago, so that about one to
 * two intervals of history stay readable (list at a revision, watch from a
 * revision, continue tokens) and the store stays bounded.
 */

#ifndef _GCP_COMPACT_H_INCLUDED_
#define _GCP_COMPACT_H_INCLUDED_


#include "gcp_loop.h"
#include "gcp_store.h"


typedef struct gcp_compactor_s  gcp_compactor_t;


/*
 * Starts compacting store every interval_ms.  Returns the compactor, owned
 * by the caller and released with gcp_compactor_stop(), or NULL when out
 * of memory.
 */
gcp_compactor_t *gcp_compactor_start(gcp_store_t *store, gcp_loop_t *loop,
    uint64_t interval_ms);

/* Stops the timer; a compaction in progress completes unobserved. */
void gcp_compactor_stop(gcp_compactor_t *c);

/* The revision of the last compaction asked for (0: none yet). */
int64_t gcp_compactor_last(const gcp_compactor_t *c);


#endif /* _GCP_COMPACT_H_INCLUDED_ */
