
/*
 * Between the discovery files: the groups and versions discovery lists,
 * merged from the registry (served here) and the APIServices (delegated),
 * in kube-aggregator's order (gcp_discovery_groups.c).
 */

#ifndef _GCP_DISCOVERY_INT_H_INCLUDED_
#define _GCP_DISCOVERY_INT_H_INCLUDED_


#include "gcp_aggregator.h"
#include "gcp_discovery.h"


typedef struct {
    const char          *version;
    int                  group_priority;
    int                  version_priority;
    const gcp_apisvc_t  *remote;        /* NULL: served here */
} gcp_disc_version_t;


typedef struct {
    const char          *name;          /* "" for the core group */
    gcp_disc_version_t  *versions;      /* preferred first */
    size_t               nversions;
} gcp_disc_group_t;


/*
 * The groups discovery lists (the core group among them when served), in
 * order: apiregistration.k8s.io first, then by the highest
 * groupPriorityMinimum of their versions (ties: by the name of that
 * APIService); versions by versionPriority, then by Kubernetes version
 * order.  A version delegated to an APIService is listed whether or not
 * it is available.  Priorities come from the APIServices, else from
 * kube-apiserver's table, else those of custom resources.  Returns the
 * number of groups and sets *out (arena), or 0 with *out NULL when out of
 * memory.
 */
size_t gcp_disc_model(gcp_op_t *op, gcp_disc_group_t **out);

/*
 * Appends the resources of a remote server's APIResourceList (NULL: none)
 * in aggregated discovery's form, as upstream converts a legacy document
 * (ConvertGroupVersionIntoToDiscovery): subresources under their parent.
 */
void gcp_disc_agg_remote(gcp_buf_t *b, const json_t *list);

/* Returns the group named name in the model, or NULL. */
const gcp_disc_group_t *gcp_disc_model_group(const gcp_disc_group_t *groups,
    size_t n, const char *name);


#endif /* _GCP_DISCOVERY_INT_H_INCLUDED_ */
