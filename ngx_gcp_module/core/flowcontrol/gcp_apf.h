
/*
 * API Priority and Fairness in a worker: the request step between
 * impersonation and authorization (kube-apiserver's
 * WithPriorityAndFairness), as the handler chain orders them.
 *
 * A request is classified by the FlowSchemas (gcp_fc_config.h, kept
 * current from a store watch), answered with the headers
 * X-Kubernetes-PF-FlowSchema-UID and X-Kubernetes-PF-PriorityLevel-UID,
 * its work estimated (seats: one, or a list's object count / 100), and
 * then goes through the instance's dispatcher (gcp_apf_shm.h): it executes
 * at once, waits in a queue without blocking the worker (woken by the
 * worker that frees seats, or rejected when its wait exceeds the limit:
 * a quarter of the request's ?timeout, at most a minute; 15 seconds by
 * default), or is rejected: 429 "Too many requests, please try again
 * later." with Retry-After.  The seats are released when the response
 * starts (a watch then streams without a seat) or ends.
 *
 * Long-running requests but watches (proxy, exec, attach, log,
 * portforward) are neither classified nor limited.  With APF off
 * (api->conf.flowcontrol_off), no classification: readonly and mutating
 * requests count against the instance's two inflight limits, and
 * system:masters pass when they are reached (upstream's
 * WithMaxInFlightLimit).  Without a region (api->conf.flowcontrol NULL),
 * requests are classified but not limited.
 */

#ifndef _GCP_APF_H_INCLUDED_
#define _GCP_APF_H_INCLUDED_


#include "gcp_op.h"


#define GCP_APF_HEADER_FS   "X-Kubernetes-Pf-Flowschema-Uid"
#define GCP_APF_HEADER_PL   "X-Kubernetes-Pf-Prioritylevel-Uid"
#define GCP_APF_WAIT_MS     15000       /* --request-timeout / 4 */
#define GCP_APF_MAX_WAIT_MS 60000


typedef struct gcp_apf_s         gcp_apf_t;
typedef struct gcp_apf_counts_s  gcp_apf_counts_t;

typedef void (*gcp_apf_next_pt)(gcp_op_t *op);


/*
 * Sets up api->apf for this process (the classification, its slot in the
 * region of api->conf).  Returns GCP_OK or GCP_ENOMEM.  gcp_apf_fini()
 * releases it and what this process holds in the region.
 */
int gcp_apf_init(gcp_api_t *api);
void gcp_apf_fini(gcp_api_t *api);

/*
 * The step: calls next(op) now or later, or answers the request itself
 * (429).  op->req->user is the impersonated user.
 */
void gcp_apf_admit(gcp_op_t *op, gcp_apf_next_pt next);

/*
 * The client of op went away before the answer: a request waiting in a
 * queue leaves it.  Returns 1 when op was waiting (then it is dropped:
 * next is never called and nothing answers it), else 0.
 */
int gcp_apf_abandon(gcp_op_t *op);

/*
 * Serves /debug/api_priority_and_fairness/dump_priority_levels,
 * dump_queues and dump_requests.  Returns 1 when op was one of them.
 */
int gcp_apf_debug(gcp_op_t *op);


/* The object counts of the work estimate (gcp_apf_count.c). */

/* Returns counts refreshed every minute from api's store, or NULL. */
gcp_apf_counts_t *gcp_apf_counts_create(gcp_api_t *api);
void gcp_apf_counts_free(gcp_apf_counts_t *c);

/* Returns the number of stored objects of res, or -1 when unknown. */
int64_t gcp_apf_counts_get(gcp_apf_counts_t *c, const gcp_resource_t *res);


#endif /* _GCP_APF_H_INCLUDED_ */
