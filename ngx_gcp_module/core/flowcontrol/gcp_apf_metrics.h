
/*
 * kube-apiserver's apiserver_flowcontrol_* metrics of one request through
 * API Priority and Fairness (gcp_apf.c): dispatched and rejected requests,
 * the requests and seats in queues and executing, the length of the queue
 * joined, the time waited and the time executing (the initial stage of a
 * watch), by FlowSchema and priority level.  Every call is a no-op when
 * the metrics are off or gcp_apf_metrics_arrive() was not called.
 *
 * And the priority levels' own (limits, seat demand, virtual time): the
 * instance's values in the dispatcher's region, given to each scrape by
 * gcp_apf_metrics_collect().
 */

#ifndef _GCP_APF_METRICS_H_INCLUDED_
#define _GCP_APF_METRICS_H_INCLUDED_


#include "gcp_core.h"
#include "gcp_apf_shm.h"
#include "gcp_fc_config.h"
#include "gcp_metrics.h"


/* upstream's reasons of apiserver_flowcontrol_rejected_requests_total */
#define GCP_APF_REJECT_QUEUE_FULL   "queue-full"
#define GCP_APF_REJECT_TIME_OUT     "time-out"
#define GCP_APF_REJECT_CANCELLED    "cancelled"


typedef struct {
    const char  *labels[3];     /* flow_schema, priority_level, NULL: */
                                /* copies, the configuration may go */
    int64_t      arrived_ns;
    int64_t      started_ns;
    int          seats;
    unsigned     on:1;
    unsigned     watch:1;
    unsigned     queued:1;
    unsigned     executing:1;
} gcp_apf_metrics_t;


/*
 * The request of verb was classified as m says and will take seats
 * seats; the names are copied into a.  am must be zeroed before.
 */
void gcp_apf_metrics_arrive(gcp_apf_metrics_t *am, gcp_arena_t *a,
    const gcp_fc_match_t *m, int seats, const char *verb);

/* It joined a queue, which then held queue_length requests. */
void gcp_apf_metrics_enqueued(gcp_apf_metrics_t *am, int queue_length);

/* It waits in a queue. */
void gcp_apf_metrics_queued(gcp_apf_metrics_t *am);

/* It executes (at once or from its queue). */
void gcp_apf_metrics_dispatched(gcp_apf_metrics_t *am);

/* It was rejected (at once or from its queue), reason a GCP_APF_REJECT_*. */
void gcp_apf_metrics_rejected(gcp_apf_metrics_t *am, const char *reason);

/* It gave its seats back. */
void gcp_apf_metrics_finished(gcp_apf_metrics_t *am);

/*
 * A collector (gcp_metrics_collector_add(), data the region): the limits
 * of every level of the region (nominal, lower, upper, current), its
 * seat demand at the last adjustment and its virtual time.
 */
void gcp_apf_metrics_collect(gcp_metrics_scrape_t *s, void *data);


#endif /* _GCP_APF_METRICS_H_INCLUDED_ */
