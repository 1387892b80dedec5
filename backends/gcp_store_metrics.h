
/*
 * A store in front of another that measures every storage operation as
 * kube-apiserver measures its etcd requests (etcd_request_duration_seconds,
 * etcd_requests_total, etcd_request_errors_total by operation and object
 * type: "configmaps", "leases.coordination.k8s.io"), for either backend,
 * and writes storage failures to the error log (at most one message a
 * second, with the number of failures since the last one).
 */

#ifndef _GCP_STORE_METRICS_H_INCLUDED_
#define _GCP_STORE_METRICS_H_INCLUDED_


#include "gcp_store.h"


/*
 * Returns a store that forwards every operation to inner (borrowed, still
 * closed by its owner), released by gcp_store_metrics_unwrap(); inner
 * itself when out of memory.
 */
gcp_store_t *gcp_store_metrics_wrap(gcp_store_t *inner);

/* Releases what gcp_store_metrics_wrap() made (not the inner store). */
void gcp_store_metrics_unwrap(gcp_store_t *s);


#endif /* _GCP_STORE_METRICS_H_INCLUDED_ */
