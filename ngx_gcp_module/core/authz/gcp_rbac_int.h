
/*
 * Between the parts of RBAC (gcp_rbac.c and the files it sets up); not
 * for the rest of the core, which uses gcp_rbac.h.
 */

#ifndef _GCP_RBAC_INT_H_INCLUDED_
#define _GCP_RBAC_INT_H_INCLUDED_


#include "gcp_admission.h"
#include "gcp_rbac.h"


/*
 * The escalation checks, a validating admission plugin (data: the
 * gcp_api_t), gcp_rbac_escalation.c.
 */
void gcp_rbac_escalation_admit(void *data, gcp_admit_t *ad,
    gcp_admit_done_pt done);

/*
 * Starts the ClusterRole aggregation of api (gcp_rbac_aggregate.c),
 * following api's RBAC index (created if need be).  Returns its handle,
 * owned by the caller and released with gcp_rbac_aggregator_stop(), or
 * NULL when out of memory.
 */
void *gcp_rbac_aggregator_start(gcp_api_t *api);

/*
 * Stops the aggregation (NULL is fine): no pass runs any more.  An update
 * in flight completes unobserved; released(arg), when not NULL, is called
 * once the handle is freed (at once, or later from the loop).
 */
void gcp_rbac_aggregator_stop(void *aggregator, void (*released)(void *arg),
    void *arg);


#endif /* _GCP_RBAC_INT_H_INCLUDED_ */
