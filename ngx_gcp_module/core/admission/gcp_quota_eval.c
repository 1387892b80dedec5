
/*
 * Quota object counts (see gcp_quota.h).
 */

#include "gcp_quota.h"


/* core resources counted under their plain name too */
static const char * const  gcp_ctl_quota_legacy[] = {
    "configmaps", "secrets", "resourcequotas", "services",
    "persistentvolumeclaims", "pods", "replicationcontrollers", NULL
};


static const char *
gcp_quota_legacy_name(const gcp_resource_t *res)
{
    size_t  i;

    if (res->group[0]) {
        return NULL;
    }

    for (i = 0; gcp_ctl_quota_legacy[i]; i++) {
        if (strcmp(res->name, gcp_ctl_quota_legacy[i]) == 0) {
            return gcp_ctl_quota_legacy[i];
        }
    }

    return NULL;
}


size_t
gcp_quota_names(gcp_arena_t *a, const gcp_resource_t *res,
    const char *names[2])
{
    names[0] = res->group[0]
               ? gcp_sprintf(a, "count/%s.%s", res->name, res->group)
               : gcp_sprintf(a, "count/%s", res->name);
    names[1] = gcp_quota_legacy_name(res);

    if (names[0] == NULL) {
        names[0] = "";
    }

    return names[1] ? 2 : 1;
}


const gcp_resource_t *
gcp_quota_counted(const gcp_registry_t *reg, const char *name)
{
    size_t                  i, len;
    const char             *gr;
    const gcp_resource_t   *res;

    gr = strncmp(name, "count/", 6) == 0 ? name + 6 : NULL;

    for (i = 0; i < reg->n; i++) {
        res = reg->resources[i];

        if (!res->namespaced) {
            continue;
        }

        if (gr == NULL) {
            if (gcp_quota_legacy_name(res)
                && strcmp(res->name, name) == 0)
            {
                return res;
            }

            continue;
        }

        len = strlen(res->name);

        if (strncmp(gr, res->name, len) != 0) {
            continue;
        }

        if (res->group[0] ? gr[len] == '.' && strcmp(gr + len + 1,
                                                     res->group) == 0
                          : gr[len] == '\0')
        {
            return res;
        }
    }

    return NULL;
}


int
gcp_quota_scoped(const json_t *quota)
{
    json_t  *spec;

    spec = json_object_get(quota, "spec");

    return json_array_size(json_object_get(spec, "scopes")) > 0
           || json_is_object(json_object_get(spec, "scopeSelector"));
}
