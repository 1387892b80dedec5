
/*
 * What an operator sees of every request: kube-apiserver's request
 * metrics (apiserver_request_total, _duration_seconds, response sizes,
 * in-flight and long-running gauges), the Audit-ID of the request (taken
 * from the client as upstream does, or new) on every response, the audit
 * events of its stages, and the /metrics and /metrics/slis endpoints.
 *
 * gcp_observe_start() wraps the request's done callback and stream
 * operations, so that the end of every request is seen once, whichever
 * path answers it: a response, the end of a watch, the client going away
 * or the end of a proxied request (gcp_observe_cancel()).
 */

#ifndef _GCP_OBSERVE_H_INCLUDED_
#define _GCP_OBSERVE_H_INCLUDED_


#include "gcp_op.h"


/* The summary of a request for the adapter's log variables. */
typedef struct {
    const char  *user;              /* authenticated user, NULL: none */
    const char  *groups;            /* comma-separated, NULL: none */
    const char  *impersonated;      /* impersonated user, NULL: none */
    const char  *verb;              /* kube-apiserver's verb, "get" ... */
    const char  *group;             /* API group, "" for core */
    const char  *resource;
    const char  *subresource;
    const char  *ns;
    const char  *name;
    const char  *audit_id;
    int64_t      revision;          /* of the object a write answered */
                                    /* with, 0: none */
} gcp_observe_summary_t;


/* Starts observing op's request (gcp_api_handle(), first thing). */
void gcp_observe_start(gcp_op_t *op);

/*
 * op's request is over outside the core: the client went away during a
 * watch (gcp_api_cancel(), status 200), or while its request waited in an
 * APF queue (gcp_api_abandon(), 429, as upstream answers a request whose
 * context ends there), or the adapter finished proxying it
 * (gcp_api_proxy_end(): the status its client got, size the bytes of the
 * body).  Its metrics and last audit event are written once.
 */
void gcp_observe_cancel(gcp_op_t *op, int status, size_t size);

/*
 * Serves /metrics (Prometheus text, or OpenMetrics when the Accept header
 * asks for application/openmetrics-text) and /metrics/slis.  Returns 1
 * when op was one of them (answered), else 0.
 */
int gcp_metrics_serve(gcp_op_t *op);

/* Sets the series of kubernetes_build_info (gcp_api_create()). */
void gcp_observe_build_info(const char *git_version, const char *build_date);

/*
 * Fills *s for req (strings owned by req's arena), or returns GCP_EGONE
 * when the core never saw the request.
 */
int gcp_observe_summary(const gcp_request_t *req, gcp_observe_summary_t *s);


#endif /* _GCP_OBSERVE_H_INCLUDED_ */
