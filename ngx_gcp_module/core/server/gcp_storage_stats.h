
/*
 * What the storage holds, sampled as kube-apiserver's object count
 * tracker samples it (--etcd-count-metric-poll-period, one minute):
 * apiserver_storage_objects per served resource, and the size of the
 * database file (apiserver_storage_db_total_size_in_bytes,
 * apiserver_storage_size_bytes) when the data directory holds an LMDB
 * one.  One process of the instance samples.
 */

#ifndef _GCP_STORAGE_STATS_H_INCLUDED_
#define _GCP_STORAGE_STATS_H_INCLUDED_


#include "gcp_op.h"


typedef struct gcp_storage_stats_s  gcp_storage_stats_t;


/*
 * Samples api's store a second from now, then every interval_ms.  Returns
 * the sampler, released by gcp_storage_stats_stop(), or NULL when out of
 * memory.
 */
gcp_storage_stats_t *gcp_storage_stats_start(gcp_api_t *api,
    uint64_t interval_ms);

/* Stops the timer; a sample in progress completes unobserved. */
void gcp_storage_stats_stop(gcp_storage_stats_t *st);


#endif /* _GCP_STORAGE_STATS_H_INCLUDED_ */
