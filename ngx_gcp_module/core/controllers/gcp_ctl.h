
/*
 * The built-in controllers, as kube-controller-manager runs them for a
 * generic control plane: namespace deletion, garbage collection, the
 * default service account and the root CA config map of every namespace,
 * resource quota status, ClusterRole aggregation, and the signing and
 * cleaning of CertificateSigningRequests.
 *
 * They run inside one worker process of an instance (gcp_api_conf_t
 * .controllers), driven by store watches and timers, never blocking.
 * Instances sharing a store elect one leader with a coordination.k8s.io/v1
 * Lease (kube-system/kube-controller-manager, client-go's leader election);
 * only the leader runs the controllers.  They act through the API as
 * upstream's do (gcp_client.h) and keep no state that a restart loses:
 * everything is rebuilt from the store.
 */

#ifndef _GCP_CTL_H_INCLUDED_
#define _GCP_CTL_H_INCLUDED_


#include "gcp_api.h"


/* The controllers, by their kube-controller-manager names. */
#define GCP_CTL_NAMESPACE       0x01    /* namespace-controller */
#define GCP_CTL_GC              0x02    /* garbage-collector-controller */
#define GCP_CTL_SERVICEACCOUNT  0x04    /* serviceaccount-controller */
#define GCP_CTL_ROOT_CA         0x08    /* root-ca-certificate-publisher- */
                                        /* controller */
#define GCP_CTL_QUOTA           0x10    /* resourcequota-controller */
#define GCP_CTL_CLUSTERROLE_AGG 0x20    /* clusterrole-aggregation- */
                                        /* controller */
#define GCP_CTL_APF             0x40    /* priority-and-fairness-config: */
                                        /* kube-apiserver's own */
#define GCP_CTL_APISERVICE_REGISTRATION 0x80    /* apiservice-registration- */
                                                /* controller */
#define GCP_CTL_APISERVICE_AVAILABLE    0x100   /* apiservice-status- */
                                                /* available-controller */
#define GCP_CTL_AUTH_TRUST              0x200   /* cluster-authentication- */
                                                /* trust-controller */
#define GCP_CTL_CSR_SIGNING             0x400   /* csrsigning-controller */
#define GCP_CTL_CSR_CLEANER             0x800   /* csrcleaner-controller */
#define GCP_CTL_ALL             0xfff


/* A signer of CertificateSigningRequests: its name and its CA (PEM). */
typedef struct {
    const char   *name;             /* "kubernetes.io/kube-apiserver-client" */
    const char   *cert;
    size_t        cert_len;
    const char   *key;
    size_t        key_len;
} gcp_ctl_signer_t;


typedef struct {
    unsigned      off;              /* GCP_CTL_* bits switched off */
    const char   *root_ca;          /* PEM of kube-root-ca.crt; NULL: the */
                                    /* root CA publisher has nothing to */
                                    /* publish and does not run */
    const char   *identity;         /* leader election identity */

    /*
     * The signers the csrsigning controller runs (borrowed: they outlive
     * the manager) and the longest validity it gives (seconds; 0: a
     * year, --cluster-signing-duration's default).
     */
    const gcp_ctl_signer_t  *signers;
    size_t                   nsigners;
    long                     signing_duration;

    /* 0: upstream's defaults (15 s, 10 s, 2 s, 5 min, 5 min) */
    uint64_t      lease_ms;         /* leaseDurationSeconds */
    uint64_t      renew_ms;         /* renew deadline */
    uint64_t      retry_ms;         /* retry period */
    uint64_t      resync_ms;        /* namespaces looked at again */
    uint64_t      quota_resync_ms;  /* quota usage recomputed */

    /*
     * With apiserver: the API server's own controllers instead (the
     * CustomResourceDefinition ones), which every instance runs, without
     * election, watching only prefix; off, root_ca and the election
     * settings do not apply.
     */
    unsigned      apiserver:1;
    const char   *prefix;           /* set by gcp_ctl_start() */
} gcp_ctl_conf_t;


typedef struct gcp_ctl_manager_s  gcp_ctl_manager_t;


/*
 * Starts leader election, and the controllers whenever this process
 * leads.  The conf is copied (its strings too).  Returns the manager, owned
 * by the caller and released with gcp_ctl_stop(), or NULL when out of
 * memory.
 */
gcp_ctl_manager_t *gcp_ctl_start(gcp_api_t *api, const gcp_ctl_conf_t *conf);

/*
 * Starts the API server's own controllers (the CustomResourceDefinition
 * controllers: names, establishing, API approval, cleanup) at once, with
 * no election: every instance runs them.  Returns the manager (released
 * with gcp_ctl_stop()), or NULL when out of memory.
 */
gcp_ctl_manager_t *gcp_ctl_start_apiserver(gcp_api_t *api);

/*
 * Stops the controllers and the election (the lease is not released: it
 * expires, or this identity takes it back at once when it starts again).
 * Work in flight completes unobserved; done(arg), when not NULL, is
 * called once everything is released (at once, or later from the loop).
 * NULL is allowed.
 */
void gcp_ctl_stop(gcp_ctl_manager_t *m, void (*done)(void *arg), void *arg);

/* Returns 1 while this process holds the lease and runs controllers. */
int gcp_ctl_leading(const gcp_ctl_manager_t *m);

/*
 * Returns the GCP_CTL_* bit of a controller name as kube-controller-manager
 * spells it ("namespace-controller", or the short alias "namespace";
 * "garbage-collector-controller" / "garbagecollector";
 * "serviceaccount-controller" / "serviceaccount";
 * "root-ca-certificate-publisher-controller" / "root-ca-cert-publisher";
 * "resourcequota-controller" / "resourcequota";
 * "clusterrole-aggregation-controller" / "clusterrole-aggregation";
 * "priority-and-fairness-config" / "priority-and-fairness";
 * "certificatesigningrequest-signing-controller" / "csrsigning";
 * "certificatesigningrequest-cleaner-controller" / "csrcleaner"), or 0.
 */
unsigned gcp_ctl_bit(const char *name, size_t len);


#endif /* _GCP_CTL_H_INCLUDED_ */
