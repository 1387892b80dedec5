
/*
 * The ClusterRole aggregation controller (upstream's
 * clusterrole-aggregation-controller), started and stopped by the
 * controller of the same name in the leader's run of the controllers
 * (gcp_ctl_cragg.c): the rules of every ClusterRole with an
 * aggregationRule are the rules of the ClusterRoles its selectors match
 * (itself excluded), in selector order and then by name, without
 * duplicates.  It follows the
 * RBAC index: any ClusterRole change schedules a pass; a pass writes at
 * most one role (a merge patch of its rules through the in-process
 * client, as the system identity) and the resulting change schedules the
 * next, until nothing differs.
 */

#include <stdlib.h>

#include "gcp_ctl_int.h"
#include "gcp_object.h"
#include "gcp_rbac_int.h"
#include "gcp_selector.h"


#define GCP_RBAC_AGG_DELAY_MS   5
#define GCP_RBAC_AGG_RETRY_MS   1000


typedef struct {
    gcp_api_t          *api;
    gcp_rbac_index_t   *index;
    gcp_loop_timer_t   *timer;
    gcp_arena_t        *arena;          /* of the update in flight */
    char               *written;        /* the role last updated, */
    int64_t             written_rev;    /* at this revision */
    unsigned            busy:1;
    unsigned            stopped:1;
    void              (*released)(void *arg);
    void               *released_arg;
} gcp_rbac_agg_t;


static void gcp_rbac_agg_pass(void *arg);


static void
gcp_rbac_agg_free(gcp_rbac_agg_t *ag)
{
    void   (*released)(void *arg);
    void    *arg;

    released = ag->released;
    arg = ag->released_arg;

    free(ag->written);
    free(ag);

    if (released) {
        released(arg);
    }
}


static void
gcp_rbac_agg_schedule(gcp_rbac_agg_t *ag, uint64_t ms)
{
    gcp_loop_t  *loop = ag->api->conf.loop;

    if (ag->timer == NULL) {
        ag->timer = loop->timer_add(loop, ms, gcp_rbac_agg_pass, ag);
    }
}


static void
gcp_rbac_agg_changed(void *arg, gcp_rbac_kind_t kind)
{
    gcp_rbac_agg_t  *ag = arg;

    if (kind == GCP_RBAC_CLUSTERROLE && !ag->busy) {
        gcp_rbac_agg_schedule(ag, GCP_RBAC_AGG_DELAY_MS);
    }
}


static int
gcp_rbac_agg_has(const json_t *rules, const json_t *rule)
{
    size_t   i;
    json_t  *r;

    json_array_foreach(rules, i, r) {
        if (json_equal(r, rule)) {
            return 1;
        }
    }

    return 0;
}


/*
 * The rules role should have: a new array (a reference owned by the
 * caller), or NULL when out of memory.
 */
static json_t *
gcp_rbac_agg_rules(gcp_rbac_agg_t *ag, gcp_arena_t *a,
    const gcp_rbac_obj_t *role)
{
    size_t                   i, j, k, n;
    json_t                  *out, *selectors, *rule;
    const char              *msg;
    gcp_rbac_obj_t * const  *roles;
    gcp_label_selector_t    *sel;

    out = json_array();
    if (out == NULL) {
        return NULL;
    }

    selectors = json_object_get(json_object_get(role->obj,
                                                "aggregationRule"),
                                "clusterRoleSelectors");

    n = gcp_rbac_index_list(ag->index, GCP_RBAC_CLUSTERROLE, &roles);

    for (i = 0; i < json_array_size(selectors); i++) {
        sel = NULL;

        if (gcp_label_selector_from_json(a, json_array_get(selectors, i),
                                         &sel, &msg)
            != GCP_OK)
        {
            continue;
        }

        for (j = 0; j < n; j++) {
            if (roles[j] == role
                || !gcp_label_selector_matches(sel,
                        json_object_get(json_object_get(roles[j]->obj,
                                                        "metadata"),
                                        "labels")))
            {
                continue;
            }

            json_array_foreach(json_object_get(roles[j]->obj, "rules"), k,
                               rule)
            {
                if (!gcp_rbac_agg_has(out, rule)
                    && json_array_append(out, rule) != 0)
                {
                    json_decref(out);
                    return NULL;
                }
            }
        }
    }

    return out;
}


static void
gcp_rbac_agg_done(void *arg, gcp_client_resp_t *resp)
{
    const char      *rv;
    gcp_rbac_agg_t  *ag = arg;

    /* until the index shows this revision, the role is not looked at */

    rv = json_string_value(json_object_get(json_object_get(resp->json,
                                                           "metadata"),
                                           "resourceVersion"));
    ag->written_rev = rv && resp->status < 300 ? gcp_parse_rv(rv) : 0;

    gcp_arena_destroy(ag->arena);
    ag->arena = NULL;
    ag->busy = 0;

    if (ag->stopped) {
        gcp_rbac_agg_free(ag);
        return;
    }

    gcp_rbac_agg_schedule(ag, resp->status < 300 ? GCP_RBAC_AGG_DELAY_MS
                                                 : GCP_RBAC_AGG_RETRY_MS);
}


/* Starts the update of role's rules; returns GCP_OK or an error. */
static int
gcp_rbac_agg_update(gcp_rbac_agg_t *ag, const gcp_rbac_obj_t *role,
    json_t *rules)
{
    char    *body;
    json_t  *patch;
    char    *path;

    patch = json_pack("{s:O}", "rules", rules);
    body = patch ? json_dumps(patch, JSON_COMPACT) : NULL;
    json_decref(patch);

    path = gcp_sprintf(ag->arena, "/apis/rbac.authorization.k8s.io/v1/"
                       "clusterroles/%s", role->name);

    free(ag->written);
    ag->written = strdup(role->name);
    ag->written_rev = 0;

    if (body == NULL || path == NULL || ag->written == NULL) {
        free(body);
        return GCP_ENOMEM;
    }

    ag->busy = 1;

    gcp_client_call(ag->api, ag->arena, "PATCH", path,
                    "application/merge-patch+json",
                    gcp_strdup(ag->arena, body), NULL, gcp_rbac_agg_done,
                    ag);
    free(body);

    return GCP_OK;
}


static void
gcp_rbac_agg_pass(void *arg)
{
    size_t                   i, n;
    json_t                  *rules;
    gcp_arena_t             *a;
    gcp_rbac_agg_t          *ag = arg;
    gcp_rbac_obj_t * const  *roles;

    ag->timer = NULL;

    if (ag->busy || !gcp_rbac_index_ready(ag->index)) {
        return;
    }

    a = gcp_arena_create(0);
    if (a == NULL) {
        gcp_rbac_agg_schedule(ag, GCP_RBAC_AGG_RETRY_MS);
        return;
    }

    n = gcp_rbac_index_list(ag->index, GCP_RBAC_CLUSTERROLE, &roles);

    for (i = 0; i < n; i++) {
        if (json_object_get(roles[i]->obj, "aggregationRule") == NULL
            || (ag->written && strcmp(ag->written, roles[i]->name) == 0
                && roles[i]->revision < ag->written_rev))
        {
            continue;
        }

        rules = gcp_rbac_agg_rules(ag, a, roles[i]);

        if (rules == NULL) {
            gcp_rbac_agg_schedule(ag, GCP_RBAC_AGG_RETRY_MS);
            break;
        }

        if (json_equal(rules, json_object_get(roles[i]->obj, "rules"))) {
            json_decref(rules);
            continue;
        }

        ag->arena = gcp_arena_create(0);

        if (ag->arena == NULL
            || gcp_rbac_agg_update(ag, roles[i], rules) != GCP_OK)
        {
            gcp_arena_destroy(ag->arena);
            ag->arena = NULL;
            gcp_rbac_agg_schedule(ag, GCP_RBAC_AGG_RETRY_MS);
        }

        json_decref(rules);
        break;
    }

    gcp_arena_destroy(a);
}


void *
gcp_rbac_aggregator_start(gcp_api_t *api)
{
    gcp_rbac_agg_t  *ag;

    ag = calloc(1, sizeof(gcp_rbac_agg_t));
    if (ag == NULL) {
        return NULL;
    }

    ag->api = api;
    ag->index = gcp_rbac_index(api);

    if (ag->index == NULL
        || gcp_rbac_index_subscribe(ag->index, gcp_rbac_agg_changed, ag)
           != GCP_OK)
    {
        free(ag);
        return NULL;
    }

    gcp_rbac_agg_schedule(ag, GCP_RBAC_AGG_DELAY_MS);

    return ag;
}


void
gcp_rbac_aggregator_stop(void *aggregator, void (*released)(void *arg),
    void *arg)
{
    gcp_rbac_agg_t  *ag = aggregator;
    gcp_loop_t      *loop;

    if (ag == NULL) {
        if (released) {
            released(arg);
        }

        return;
    }

    ag->released = released;
    ag->released_arg = arg;

    loop = ag->api->conf.loop;

    gcp_rbac_index_unsubscribe(ag->index, gcp_rbac_agg_changed, ag);

    if (ag->timer) {
        loop->timer_del(loop, ag->timer);
        ag->timer = NULL;
    }

    if (ag->busy) {
        /* the update in flight still uses ag */
        ag->stopped = 1;
        return;
    }

    gcp_rbac_agg_free(ag);
}
