
/*
 * The controller manager (see gcp_ctl.h): leader election, and a run of
 * the controllers (gcp_ctl_run.c) for each term this process leads.
 */

#include <stdlib.h>

#include "gcp_crd.h"
#include "gcp_ctl_int.h"
#include "gcp_ctl_leader.h"


struct gcp_ctl_manager_s {
    gcp_api_t           *api;
    gcp_ctl_conf_t       conf;
    char                *root_ca;
    char                *identity;

    gcp_ctl_leader_t    *leader;
    gcp_ctl_t           *run;
    unsigned             pending;       /* leader and runs not released */

    void               (*done)(void *arg);
    void                *done_arg;
    unsigned             stopped:1;
};


static const struct {
    const char  *name;
    const char  *alias;
    unsigned     bit;
} gcp_ctl_names[] = {
    { "namespace-controller", "namespace", GCP_CTL_NAMESPACE },
    { "garbage-collector-controller", "garbagecollector", GCP_CTL_GC },
    { "serviceaccount-controller", "serviceaccount",
      GCP_CTL_SERVICEACCOUNT },
    { "root-ca-certificate-publisher-controller", "root-ca-cert-publisher",
      GCP_CTL_ROOT_CA },
    { "resourcequota-controller", "resourcequota", GCP_CTL_QUOTA },
    { "clusterrole-aggregation-controller", "clusterrole-aggregation",
      GCP_CTL_CLUSTERROLE_AGG },
    { "priority-and-fairness-config", "priority-and-fairness",
      GCP_CTL_APF },
    { "apiservice-registration-controller", "apiservice-registration",
      GCP_CTL_APISERVICE_REGISTRATION },
    { "apiservice-status-available-controller", "apiservice-availability",
      GCP_CTL_APISERVICE_AVAILABLE },
    { "cluster-authentication-trust-controller",
      "cluster-authentication-trust", GCP_CTL_AUTH_TRUST },
    { "certificatesigningrequest-signing-controller", "csrsigning",
      GCP_CTL_CSR_SIGNING },
    { "certificatesigningrequest-cleaner-controller", "csrcleaner",
      GCP_CTL_CSR_CLEANER },
};


unsigned
gcp_ctl_bit(const char *name, size_t len)
{
    size_t  i;

    for (i = 0; i < gcp_nelems(gcp_ctl_names); i++) {
        if ((strlen(gcp_ctl_names[i].name) == len
             && memcmp(gcp_ctl_names[i].name, name, len) == 0)
            || (strlen(gcp_ctl_names[i].alias) == len
                && memcmp(gcp_ctl_names[i].alias, name, len) == 0))
        {
            return gcp_ctl_names[i].bit;
        }
    }

    return 0;
}


static void
gcp_ctl_manager_release(void *arg)
{
    gcp_ctl_manager_t  *m = arg;

    if (--m->pending) {
        return;
    }

    if (m->done) {
        m->done(m->done_arg);
    }

    free(m->root_ca);
    free(m->identity);
    free(m);
}


static void
gcp_ctl_manager_started(void *arg)
{
    gcp_ctl_manager_t  *m = arg;

    if (m->run == NULL) {
        m->run = gcp_ctl_run_start(m->api, &m->conf);

        if (m->run) {
            m->pending++;
        }
    }
}


static void
gcp_ctl_manager_stopped(void *arg)
{
    gcp_ctl_t          *run;
    gcp_ctl_manager_t  *m = arg;

    run = m->run;
    m->run = NULL;

    if (run) {
        gcp_ctl_run_stop(run, gcp_ctl_manager_release, m);
    }
}


gcp_ctl_manager_t *
gcp_ctl_start(gcp_api_t *api, const gcp_ctl_conf_t *conf)
{
    gcp_ctl_manager_t      *m;
    gcp_ctl_leader_conf_t   lc;

    m = calloc(1, sizeof(gcp_ctl_manager_t));
    if (m == NULL) {
        return NULL;
    }

    m->api = api;
    m->conf = *conf;

    m->identity = strdup(conf->identity ? conf->identity : "ngx-gcp");
    m->root_ca = conf->root_ca ? strdup(conf->root_ca) : NULL;

    if (m->identity == NULL || (conf->root_ca && m->root_ca == NULL)) {
        free(m->identity);
        free(m->root_ca);
        free(m);
        return NULL;
    }

    m->conf.identity = m->identity;
    m->conf.root_ca = m->root_ca;

    if (m->conf.lease_ms == 0) {
        m->conf.lease_ms = GCP_CTL_LEASE_MS;
    }

    if (m->conf.renew_ms == 0) {
        m->conf.renew_ms = GCP_CTL_RENEW_MS;
    }

    if (m->conf.retry_ms == 0) {
        m->conf.retry_ms = GCP_CTL_RETRY_MS;
    }

    memset(&lc, 0, sizeof(lc));
    lc.ns = "kube-system";
    lc.name = "kube-controller-manager";
    lc.identity = m->identity;
    lc.lease_ms = m->conf.lease_ms;
    lc.renew_ms = m->conf.renew_ms;
    lc.retry_ms = m->conf.retry_ms;
    lc.started = gcp_ctl_manager_started;
    lc.stopped = gcp_ctl_manager_stopped;
    lc.arg = m;

    m->leader = gcp_ctl_leader_start(api, &lc);

    if (m->leader == NULL) {
        free(m->identity);
        free(m->root_ca);
        free(m);
        return NULL;
    }

    m->pending = 1;

    return m;
}


gcp_ctl_manager_t *
gcp_ctl_start_apiserver(gcp_api_t *api)
{
    gcp_ctl_manager_t  *m;

    m = calloc(1, sizeof(gcp_ctl_manager_t));
    if (m == NULL) {
        return NULL;
    }

    m->api = api;
    m->conf.apiserver = 1;
    m->conf.prefix = GCP_CRD_PREFIX;

    m->run = gcp_ctl_run_start(api, &m->conf);

    if (m->run == NULL) {
        free(m);
        return NULL;
    }

    m->pending = 1;

    return m;
}


void
gcp_ctl_stop(gcp_ctl_manager_t *m, void (*done)(void *arg), void *arg)
{
    if (m == NULL) {
        if (done) {
            done(arg);
        }

        return;
    }

    m->stopped = 1;
    m->done = done;
    m->done_arg = arg;

    /* pending counts the leader and the run; one more while we stop */

    m->pending++;

    gcp_ctl_manager_stopped(m);

    if (m->leader) {
        gcp_ctl_leader_stop(m->leader, gcp_ctl_manager_release, m);
    }

    gcp_ctl_manager_release(m);
}


int
gcp_ctl_leading(const gcp_ctl_manager_t *m)
{
    return m->run != NULL;
}
