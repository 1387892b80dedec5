
/*
 * kube-apiserver's apiserver_flowcontrol_* metrics of one request through
 * API Priority and Fairness (gcp_apf.c): dispatched and rejected requests,
 * the requests and seats in queues and executing, and the time waited,
 * by FlowSchema and priority level.  Every call is a no-op when the
 * metrics are off or gcp_apf_metrics_arrive() was not called.
 */

#ifndef _GCP_APF_METRICS_H_INCLUDED_
#define _GCP_APF_METRICS_H_INCLUDED_


#include "gcp_core.h"
#include "gcp_fc_config.h"


/* upstream's reasons of apiserver_flowcontrol_rejected_requests_total */
#define GCP_APF_REJECT_QUEUE_FULL   "queue-full"
#define GCP_APF_REJECT_TIME_OUT     "time-out"
#define GCP_APF_REJECT_CANCELLED    "cancelled"


typedef struct {
    const char  *labels[3];     /* flow_schema, priority_level, NULL: */
                                /* copies, the configuration may go */
    int64_t      arrived_ns;
    int          seats;
    unsigned     on:1;
    unsigned     queued:1;
    unsigned     executing:1;
} gcp_apf_metrics_t;


/*
 * The request was classified as m says and will take seats seats; the
 * names are copied into a.  am must be zeroed before.
 */
void gcp_apf_metrics_arrive(gcp_apf_metrics_t *am, gcp_arena_t *a,
    const gcp_fc_match_t *m, int seats);

/* It waits in a queue. */
void gcp_apf_metrics_queued(gcp_apf_metrics_t *am);

/* It executes (at once or from its queue). */
void gcp_apf_metrics_dispatched(gcp_apf_metrics_t *am);

/* It was rejected (at once or from its queue), reason a GCP_APF_REJECT_*. */
void gcp_apf_metrics_rejected(gcp_apf_metrics_t *am, const char *reason);

/* It gave its seats back. */
void gcp_apf_metrics_finished(gcp_apf_metrics_t *am);


#endif /* _GCP_APF_METRICS_H_INCLUDED_ */
