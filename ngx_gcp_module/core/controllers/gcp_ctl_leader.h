
/*
 * Leader election with a coordination.k8s.io/v1 Lease, as client-go's
 * leaderelection package does it: every retry period, read the lease; if
 * another identity holds it and its record changed less than
 * leaseDurationSeconds ago (by this process's clock, since it observed the
 * record), wait; otherwise write our record (holderIdentity, renewTime,
 * acquireTime and leaseTransitions kept while we hold it) with the
 * resourceVersion read, so that of two candidates only one wins.  A
 * leader that could not renew for the renew deadline stops leading.
 */

#ifndef _GCP_CTL_LEADER_H_INCLUDED_
#define _GCP_CTL_LEADER_H_INCLUDED_


#include "gcp_api.h"


typedef struct gcp_ctl_leader_s  gcp_ctl_leader_t;


typedef struct {
    const char   *ns;               /* "kube-system" */
    const char   *name;             /* "kube-controller-manager" */
    const char   *identity;
    uint64_t      lease_ms;
    uint64_t      renew_ms;
    uint64_t      retry_ms;

    void        (*started)(void *arg);     /* we lead */
    void        (*stopped)(void *arg);     /* we lost the lease */
    void         *arg;
} gcp_ctl_leader_conf_t;


/*
 * Starts campaigning (the conf is copied; its strings must outlive the
 * elector).  Returns the elector, released by gcp_ctl_leader_stop(), or
 * NULL when out of memory.
 */
gcp_ctl_leader_t *gcp_ctl_leader_start(gcp_api_t *api,
    const gcp_ctl_leader_conf_t *conf);

/*
 * Stops campaigning without calling stopped; done(arg) (may be NULL) is
 * called once the elector is released (an API call may be in flight).
 */
void gcp_ctl_leader_stop(gcp_ctl_leader_t *le, void (*done)(void *arg),
    void *arg);

/* Returns 1 while we hold the lease. */
int gcp_ctl_leader_leading(const gcp_ctl_leader_t *le);


#endif /* _GCP_CTL_LEADER_H_INCLUDED_ */
