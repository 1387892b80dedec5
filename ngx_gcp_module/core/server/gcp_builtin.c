
/*
 * The built-in resource table (see gcp_builtin.h).
 */

#include "gcp_admissionreg.h"
#include "gcp_aggregator.h"
#include "gcp_authn_types.h"
#include "gcp_authz_types.h"
#include "gcp_builtin.h"
#include "gcp_crd.h"
#include "gcp_csr.h"
#include "gcp_fc_types.h"
#include "gcp_types.h"


/* Discovery lists groups in this order, as kube-apiserver's priorities. */

static const gcp_resource_t * const  gcp_builtin[] = {
    &gcp_type_namespaces,
    &gcp_type_configmaps,
    &gcp_type_secrets,
    &gcp_type_serviceaccounts,
    &gcp_type_resourcequotas,
    &gcp_type_events,
    &gcp_type_events_k8s_io,
    &gcp_type_selfsubjectreviews,
    &gcp_type_tokenreviews,
    &gcp_type_localsubjectaccessreviews,
    &gcp_type_selfsubjectaccessreviews,
    &gcp_type_selfsubjectrulesreviews,
    &gcp_type_subjectaccessreviews,
    &gcp_type_certificatesigningrequests,
    &gcp_type_clusterrolebindings,
    &gcp_type_clusterroles,
    &gcp_type_rolebindings,
    &gcp_type_roles,
    &gcp_type_mutatingwebhookconfigurations,
    &gcp_type_validatingwebhookconfigurations,
    &gcp_type_customresourcedefinitions,
    &gcp_type_leases,
    &gcp_type_flowschemas,
    &gcp_type_prioritylevels,
    &gcp_type_flowschemas_v1beta3,
    &gcp_type_prioritylevels_v1beta3,
    &gcp_type_apiservices,
};


int
gcp_builtin_register(gcp_registry_t *reg)
{
    size_t  i;

    for (i = 0; i < gcp_nelems(gcp_builtin); i++) {
        if (gcp_registry_add(reg, gcp_builtin[i]) != GCP_OK) {
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}
