
/*
 * ResourceQuota object counts, shared by the quota controller
 * (controllers/gcp_ctl_quota.c) and the quota admission plugin
 * (gcp_quota_admission.c, see gcp_plugins.h): which quota resource names
 * count the objects of which resource, as upstream's generic object count
 * evaluators ("count/<resource>[.<group>]", and the legacy names of core
 * resources: "configmaps", "secrets", "resourcequotas", ...).  A quota
 * with scopes never matches object counts (they match no scope).
 */

#ifndef _GCP_QUOTA_H_INCLUDED_
#define _GCP_QUOTA_H_INCLUDED_


#include <jansson.h>

#include "gcp_registry.h"


/*
 * Sets names[0] to "count/RESOURCE[.GROUP]" and, for core resources with
 * one, names[1] to the legacy name.  Returns how many (1 or 2); strings
 * are arena-owned or static.
 */
size_t gcp_quota_names(gcp_arena_t *a, const gcp_resource_t *res,
    const char *names[2]);

/* The served resource whose objects the quota resource name counts. */
const gcp_resource_t *gcp_quota_counted(const gcp_registry_t *reg,
    const char *name);

/* Returns 1 when the quota has scopes or a scope selector. */
int gcp_quota_scoped(const json_t *quota);


#endif /* _GCP_QUOTA_H_INCLUDED_ */
