
/*
 * Priorities of APIServices: kube-apiserver's table for its built-in
 * group-versions (pkg/controlplane/apiserver, apiVersionPriorities, v1.32).
 */

#include "gcp_aggregator.h"


typedef struct {
    const char  *group;
    const char  *version;
    int          group_prio;
    int          version_prio;
} gcp_agg_prio_t;


static const gcp_agg_prio_t  gcp_agg_prios[] = {
    { "", "v1", 18000, 1 },
    { "events.k8s.io", "v1", 17750, 15 },
    { "events.k8s.io", "v1beta1", 17750, 5 },
    { "authentication.k8s.io", "v1", 17700, 15 },
    { "authentication.k8s.io", "v1beta1", 17700, 9 },
    { "authentication.k8s.io", "v1alpha1", 17700, 1 },
    { "authorization.k8s.io", "v1", 17600, 15 },
    { "certificates.k8s.io", "v1", 17300, 15 },
    { "certificates.k8s.io", "v1beta1", 17300, 9 },
    { "certificates.k8s.io", "v1alpha1", 17300, 1 },
    { "rbac.authorization.k8s.io", "v1", 17000, 15 },
    { "apiextensions.k8s.io", "v1", 16700, 15 },
    { "admissionregistration.k8s.io", "v1", 16700, 15 },
    { "admissionregistration.k8s.io", "v1beta1", 16700, 12 },
    { "admissionregistration.k8s.io", "v1alpha1", 16700, 9 },
    { "coordination.k8s.io", "v1", 16500, 15 },
    { "coordination.k8s.io", "v1beta1", 16500, 13 },
    { "coordination.k8s.io", "v1alpha2", 16500, 12 },
    { "discovery.k8s.io", "v1", 16200, 15 },
    { "flowcontrol.apiserver.k8s.io", "v1", 16100, 21 },
    { "flowcontrol.apiserver.k8s.io", "v1beta3", 16100, 18 },
    { "flowcontrol.apiserver.k8s.io", "v1beta2", 16100, 15 },
    { "flowcontrol.apiserver.k8s.io", "v1beta1", 16100, 12 },
    { "internal.apiserver.k8s.io", "v1alpha1", 16000, 9 },
    { "storagemigration.k8s.io", "v1alpha1", 15000, 9 },
};


int
gcp_agg_builtin_priority(const char *group, const char *version,
    int *group_prio, int *version_prio)
{
    size_t  i;

    for (i = 0; i < gcp_nelems(gcp_agg_prios); i++) {
        if (strcmp(gcp_agg_prios[i].group, group) == 0
            && strcmp(gcp_agg_prios[i].version, version) == 0)
        {
            *group_prio = gcp_agg_prios[i].group_prio;
            *version_prio = gcp_agg_prios[i].version_prio;
            return 1;
        }
    }

    return 0;
}
