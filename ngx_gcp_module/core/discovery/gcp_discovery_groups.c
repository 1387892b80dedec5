
/*
 * The groups and versions discovery lists (see gcp_discovery_int.h), as
 * kube-aggregator orders its APIServices (SortedByGroupAndVersion).
 */

#include <stdlib.h>

#include "gcp_discovery_int.h"
#include "gcp_front.h"
#include "gcp_reg.h"
#include "gcp_version.h"


/* One group-version, before grouping. */
typedef struct {
    const char          *group;
    const char          *name;          /* its APIService's, VERSION.GROUP */
    gcp_disc_version_t   v;
} gcp_disc_gv_t;


static int
gcp_disc_gv_cmp(const void *a, const void *b)
{
    const gcp_disc_gv_t  *x = a;
    const gcp_disc_gv_t  *y = b;

    /* ByGroupPriorityMinimum: higher first, then by name */

    if (x->v.group_priority != y->v.group_priority) {
        return x->v.group_priority > y->v.group_priority ? -1 : 1;
    }

    return strcmp(x->name, y->name);
}


static int
gcp_disc_version_cmp(const void *a, const void *b)
{
    const gcp_disc_version_t  *x = a;
    const gcp_disc_version_t  *y = b;

    /* ByVersionPriority: higher first, then Kubernetes version order */

    if (x->version_priority != y->version_priority) {
        return x->version_priority > y->version_priority ? -1 : 1;
    }

    return -gcp_version_compare(x->version, y->version);
}


/* The group-version's priorities when served here. */
static void
gcp_disc_local_priority(gcp_agg_t *agg, const char *group,
    const char *version, gcp_disc_version_t *v)
{
    const gcp_apisvc_t  *svc;

    svc = agg ? gcp_agg_find(agg, group, version) : NULL;

    if (svc) {
        v->group_priority = svc->group_priority;
        v->version_priority = svc->version_priority;
        return;
    }

    if (!gcp_agg_builtin_priority(group, version, &v->group_priority,
                                  &v->version_priority))
    {
        v->group_priority = GCP_AGG_CRD_GROUP_PRIORITY;
        v->version_priority = GCP_AGG_CRD_VERSION_PRIORITY;
    }
}


/* A remote group-version (delegated or fronted). */
static void
gcp_disc_remote_gv(gcp_disc_gv_t *gv, const gcp_apisvc_t *svc)
{
    gv->group = svc->group;
    gv->name = svc->name;
    gv->v.version = svc->version;
    gv->v.remote = svc;
    gv->v.group_priority = svc->group_priority;
    gv->v.version_priority = svc->version_priority;
}


/* Collects every group-version, each once; returns their number. */
static size_t
gcp_disc_collect(gcp_op_t *op, gcp_agg_t *agg, gcp_disc_gv_t *gvs)
{
    int                        only;
    size_t                     i, j, n, nsvc;
    gcp_registry_t            *reg = op->api->registry;
    gcp_disc_gv_t             *gv;
    const gcp_apisvc_t        *svc;
    const gcp_resource_t      *r;
    const gcp_apisvc_t * const  *list;

    n = 0;
    only = op->api->conf.front && op->api->conf.front->only;

    for (i = 0; i < reg->n; i++) {
        r = reg->resources[i];

        for (j = 0; j < n; j++) {
            if (strcmp(gvs[j].group, r->group) == 0
                && strcmp(gvs[j].v.version, r->version) == 0)
            {
                break;
            }
        }

        if (j < n) {
            continue;
        }

        svc = agg ? gcp_agg_find(agg, r->group, r->version) : NULL;

        if ((svc && svc->remote) || only
            || gcp_front_doc(op->api, r->group, r->version))
        {
            continue;                   /* delegated or fronted: below */
        }

        gv = &gvs[n++];
        gv->group = r->group;
        gv->name = gcp_sprintf(op->a, "%s.%s", r->version, r->group);
        gv->v.version = r->version;
        gv->v.remote = NULL;
        gcp_disc_local_priority(agg, r->group, r->version, &gv->v);
    }

    nsvc = agg && !only ? gcp_agg_list(agg, &list) : 0;

    for (i = 0; i < nsvc; i++) {
        if (list[i]->remote
            && gcp_front_doc(op->api, list[i]->group, list[i]->version)
               == NULL)
        {
            gcp_disc_remote_gv(&gvs[n++], list[i]);
        }
    }

    nsvc = gcp_front_list(op->api, &list);

    for (i = 0; i < nsvc; i++) {
        gcp_disc_remote_gv(&gvs[n++], list[i]);
    }

    return n;
}


size_t
gcp_disc_model(gcp_op_t *op, gcp_disc_group_t **out)
{
    size_t             i, j, n, ngroups, nsvc;
    gcp_agg_t         *agg;
    gcp_disc_gv_t     *gvs;
    gcp_disc_group_t  *groups, *g;
    const gcp_apisvc_t * const  *list;

    *out = NULL;

    agg = gcp_agg(op->api);
    nsvc = agg ? gcp_agg_list(agg, &list) : 0;
    n = op->api->registry->n + nsvc + gcp_front_list(op->api, &list);

    gvs = gcp_alloc(op->a, (n + 1) * sizeof(gcp_disc_gv_t));
    groups = gcp_calloc(op->a, (n + 1) * sizeof(gcp_disc_group_t));

    if (gvs == NULL || groups == NULL) {
        return 0;
    }

    n = gcp_disc_collect(op, agg, gvs);

    for (i = 0; i < n; i++) {
        if (gvs[i].name == NULL) {
            return 0;
        }
    }

    qsort(gvs, n, sizeof(gcp_disc_gv_t), gcp_disc_gv_cmp);

    /* the aggregator's own group first, then in order of appearance */

    ngroups = 0;

    for (i = 0; i < n; i++) {
        if (strcmp(gvs[i].group, GCP_APISVC_GROUP) == 0) {
            groups[ngroups++].name = GCP_APISVC_GROUP;
            break;
        }
    }

    for (i = 0; i < n; i++) {
        for (j = 0; j < ngroups; j++) {
            if (strcmp(groups[j].name, gvs[i].group) == 0) {
                break;
            }
        }

        if (j == ngroups) {
            groups[ngroups++].name = gvs[i].group;
        }
    }

    for (j = 0; j < ngroups; j++) {
        g = &groups[j];

        g->versions = gcp_alloc(op->a, n * sizeof(gcp_disc_version_t));
        if (g->versions == NULL) {
            return 0;
        }

        for (i = 0; i < n; i++) {
            if (strcmp(gvs[i].group, g->name) == 0) {
                g->versions[g->nversions++] = gvs[i].v;
            }
        }

        qsort(g->versions, g->nversions, sizeof(gcp_disc_version_t),
              gcp_disc_version_cmp);
    }

    *out = groups;

    return ngroups;
}


const gcp_disc_group_t *
gcp_disc_model_group(const gcp_disc_group_t *groups, size_t n,
    const char *name)
{
    size_t  i;

    for (i = 0; i < n; i++) {
        if (strcmp(groups[i].name, name) == 0) {
            return &groups[i];
        }
    }

    return NULL;
}
