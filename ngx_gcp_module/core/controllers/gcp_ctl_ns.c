
/*
 * The namespace controller (namespace-controller), as upstream's
 * namespaced resources deleter: a namespace with a deletionTimestamp and
 * the "kubernetes" finalizer has every object of every namespaced resource
 * the registry serves deleted (deletecollection, propagationPolicy
 * Background), reports progress in five status conditions, waits for
 * objects that finalizers hold, and finally removes "kubernetes" from
 * spec.finalizers through /finalize.
 */

#include <stdlib.h>

#include "gcp_ctl_int.h"
#include "gcp_object.h"
#include "gcp_json.h"
#include "gcp_time.h"
#include "gcp_types.h"


#define GCP_CTL_NS_WORKERS      10      /* --concurrent-namespace-syncs */
#define GCP_CTL_NS_FINALIZER    "kubernetes"
#define GCP_CTL_NS_ESTIMATE_MS  15000   /* finalizerEstimateSeconds */
#define GCP_CTL_NS_CONTENT_MS   100     /* re-check after content changed */
#define GCP_CTL_NS_NCONDITIONS  5


typedef enum {
    GCP_NS_COUNT = 0,               /* anything there? */
    GCP_NS_DELETE,                  /* deletecollection or one by one */
    GCP_NS_EACH,
    GCP_NS_LIST                     /* what remains, and its finalizers */
} gcp_ctl_ns_step_t;


typedef struct {
    gcp_ctl_item_t          *item;
    json_t                  *ns;            /* as read (arena) */

    const gcp_resource_t   **res;
    size_t                   nres;
    gcp_ctl_steps_t          steps;         /* a resource each */
    gcp_ctl_ns_step_t        step;

    gcp_kv_t                *items;         /* GCP_NS_EACH */
    size_t                   nitems;
    size_t                   item_next;

    int64_t                 *remaining;     /* per resource */
    json_t                  *finalizers;    /* name -> count */
    json_t                  *errors;        /* messages */
} gcp_ctl_nsync_t;


static const struct {
    const char  *type;
    const char  *reason;
    const char  *message;
} gcp_ctl_ns_ok[GCP_CTL_NS_NCONDITIONS] = {
    { "NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered",
      "All resources successfully discovered" },
    { "NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions",
      "All legacy kube types successfully parsed" },
    { "NamespaceDeletionContentFailure", "ContentDeleted",
      "All content successfully deleted, may be waiting on finalization" },
    { "NamespaceContentRemaining", "ContentRemoved",
      "All content successfully removed" },
    { "NamespaceFinalizersRemaining", "ContentHasNoFinalizers",
      "All content-preserving finalizers finished" },
};


static int
gcp_ctl_ns_strcmp(const void *a, const void *b)
{
    return strcmp(*(const char * const *) a, *(const char * const *) b);
}


/* The strings of arr sorted and joined with ", ", arena-owned. */
static const char *
gcp_ctl_ns_join(gcp_arena_t *a, const json_t *arr)
{
    size_t        i, n;
    gcp_buf_t     b;
    const char  **s;

    n = json_array_size(arr);
    s = gcp_alloc(a, (n + 1) * sizeof(const char *));

    if (s == NULL) {
        return "";
    }

    for (i = 0; i < n; i++) {
        s[i] = json_string_value(json_array_get(arr, i));
    }

    qsort(s, n, sizeof(const char *), gcp_ctl_ns_strcmp);

    gcp_buf_init(&b, a);

    for (i = 0; i < n; i++) {
        gcp_buf_printf(&b, "%s%s", i ? ", " : "", s[i]);
    }

    return gcp_buf_cstr(&b);
}


/* The namespaced resources that can be deleted, one per storage. */
static int
gcp_ctl_ns_resources(gcp_ctl_nsync_t *st)
{
    size_t                  i, j;
    const gcp_resource_t   *res;
    const gcp_registry_t   *reg = gcp_ctl_queue_run(st->item->queue)
                                  ->api->registry;

    st->res = gcp_alloc(st->item->arena,
                        (reg->n + 1) * sizeof(gcp_resource_t *));
    st->remaining = gcp_calloc(st->item->arena,
                               (reg->n + 1) * sizeof(int64_t));

    if (st->res == NULL || st->remaining == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < reg->n; i++) {
        res = reg->resources[i];

        if (!res->namespaced || !(res->verbs & GCP_VERB_DELETE)) {
            continue;
        }

        for (j = 0; j < st->nres; j++) {
            if (strcmp(st->res[j]->storage, res->storage) == 0) {
                break;
            }
        }

        if (j == st->nres) {
            /* held: a custom resource may go while the sync runs */

            if (gcp_resource_hold(st->item->arena, res) != GCP_OK) {
                return GCP_ENOMEM;
            }

            st->res[st->nres++] = res;
        }
    }

    return GCP_OK;
}


/* conditions */


/* The five conditions this sync found, in upstream's order. */
static void
gcp_ctl_ns_found(gcp_ctl_nsync_t *st, const char *status[],
    const char *reason[], const char *message[])
{
    size_t        i;
    json_t       *list, *v;
    gcp_arena_t  *a = st->item->arena;
    const char   *key;

    for (i = 0; i < GCP_CTL_NS_NCONDITIONS; i++) {
        status[i] = "False";
        reason[i] = gcp_ctl_ns_ok[i].reason;
        message[i] = gcp_ctl_ns_ok[i].message;
    }

    if (json_array_size(st->errors)) {
        status[2] = "True";
        reason[2] = "ContentDeletionFailed";
        message[2] = gcp_sprintf(a, "Failed to delete all resource types, "
                                 "%zu remaining: %s",
                                 json_array_size(st->errors),
                                 gcp_ctl_ns_join(a, st->errors));
    }

    list = gcp_json_arena(a, json_array());

    for (i = 0; list && i < st->nres; i++) {
        if (st->remaining[i] > 0) {
            json_array_append_new(list, json_string(
                gcp_sprintf(a, "%s.%s has %lld resource instances",
                            st->res[i]->name, st->res[i]->group,
                            (long long) st->remaining[i])));
        }
    }

    if (json_array_size(list)) {
        status[3] = "True";
        reason[3] = "SomeResourcesRemain";
        message[3] = gcp_sprintf(a, "Some resources are remaining: %s",
                                 gcp_ctl_ns_join(a, list));
    }

    list = gcp_json_arena(a, json_array());

    json_object_foreach(st->finalizers, key, v) {
        if (list) {
            json_array_append_new(list, json_string(
                gcp_sprintf(a, "%s in %lld resource instances", key,
                            (long long) json_integer_value(v))));
        }
    }

    if (json_array_size(list)) {
        status[4] = "True";
        reason[4] = "SomeFinalizersRemain";
        message[4] = gcp_sprintf(a, "Some content in the namespace has "
                                 "finalizers remaining: %s",
                                 gcp_ctl_ns_join(a, list));
    }
}


/*
 * Merges the conditions found into status.conditions as upstream's
 * updateConditions: new types are appended; a changed one keeps its
 * lastTransitionTime unless its status changed.  Returns 1 if anything
 * changed.
 */
static int
gcp_ctl_ns_conditions(gcp_ctl_nsync_t *st)
{
    int           changed;
    size_t        i, j;
    json_t       *status, *list, *c, *old;
    const char   *now, *type;
    const char   *cstatus[GCP_CTL_NS_NCONDITIONS];
    const char   *reason[GCP_CTL_NS_NCONDITIONS];
    const char   *message[GCP_CTL_NS_NCONDITIONS];

    gcp_ctl_ns_found(st, cstatus, reason, message);

    status = gcp_json_object_child(st->ns, "status");
    list = json_object_get(status, "conditions");

    if (!json_is_array(list)) {
        list = json_array();
        json_object_set_new(status, "conditions", list);
    }

    now = gcp_time_str(st->item->arena, gcp_time_now().tv_sec);
    changed = 0;

    for (i = 0; i < GCP_CTL_NS_NCONDITIONS; i++) {
        type = gcp_ctl_ns_ok[i].type;
        old = NULL;

        json_array_foreach(list, j, c) {
            if (json_is_string(json_object_get(c, "type"))
                && strcmp(json_string_value(json_object_get(c, "type")),
                          type) == 0)
            {
                old = c;
                break;
            }
        }

        if (old == NULL) {
            c = json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", type,
                          "status", cstatus[i], "lastTransitionTime", now,
                          "reason", reason[i], "message", message[i]);
            json_array_append_new(list, c);
            changed = 1;
            continue;
        }

        if (strcmp(json_string_value(json_object_get(old, "status")) ?: "",
                   cstatus[i]) != 0)
        {
            json_object_set_new(old, "lastTransitionTime",
                                json_string(now));

        } else if (strcmp(json_string_value(json_object_get(old, "reason"))
                          ?: "", reason[i]) == 0
                   && strcmp(json_string_value(json_object_get(old,
                                                               "message"))
                             ?: "", message[i]) == 0)
        {
            continue;
        }

        json_object_set_new(old, "status", json_string(cstatus[i]));
        json_object_set_new(old, "reason", json_string(reason[i]));
        json_object_set_new(old, "message", json_string(message[i]));
        changed = 1;
    }

    return changed;
}


/* the end: finalize, or wait */


static void
gcp_ctl_ns_finalized(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    /* 404: gone already (another controller, or nothing else held it) */

    gcp_ctl_queue_done(item, resp->status == 200 || resp->status == 404
                             ? GCP_OK : GCP_ECONFLICT, 0);
}


static void
gcp_ctl_ns_finalize(gcp_ctl_nsync_t *st)
{
    size_t   i;
    char    *body;
    json_t  *spec, *fin, *keep, *v;

    spec = gcp_json_object_child(st->ns, "spec");
    fin = json_object_get(spec, "finalizers");

    /* the others, as a sorted set (finalizeNamespace) */

    keep = json_array();

    json_array_foreach(fin, i, v) {
        if (json_is_string(v)
            && strcmp(json_string_value(v), GCP_CTL_NS_FINALIZER) != 0
            && !gcp_json_has_string(keep, json_string_value(v)))
        {
            json_array_append(keep, v);
        }
    }

    for (i = 1; i < json_array_size(keep); i++) {
        size_t  j;

        for (j = i; j > 0
             && strcmp(json_string_value(json_array_get(keep, j - 1)),
                       json_string_value(json_array_get(keep, j))) > 0;
             j--)
        {
            v = json_incref(json_array_get(keep, j));
            json_array_set(keep, j, json_array_get(keep, j - 1));
            json_array_set_new(keep, j - 1, v);
        }
    }

    json_object_set_new(spec, "finalizers", keep);

    body = json_dumps(st->ns, JSON_COMPACT);
    if (body == NULL) {
        gcp_ctl_queue_done(st->item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_call(st->item, "PUT",
                 gcp_sprintf(st->item->arena, "/api/v1/namespaces/%s/"
                             "finalize", st->item->key),
                 NULL, gcp_strdup(st->item->arena, body),
                 gcp_ctl_ns_finalized);
    free(body);
}


/* After the conditions: wait for what remains, or finalize. */
static void
gcp_ctl_ns_decide(gcp_ctl_nsync_t *st)
{
    size_t   i;
    int64_t  total;

    total = 0;

    for (i = 0; i < st->nres; i++) {
        total += st->remaining[i];
    }

    if (json_array_size(st->errors)) {
        gcp_ctl_queue_done(st->item, GCP_EINTERNAL, 0);
        return;
    }

    if (total) {
        /* finalizers hold them: look again later (and on their events) */
        gcp_ctl_queue_done(st->item, GCP_OK, GCP_CTL_NS_ESTIMATE_MS);
        return;
    }

    gcp_ctl_ns_finalize(st);
}


static void
gcp_ctl_ns_status_written(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    gcp_ctl_nsync_t  *st = item->data;

    if (resp->status == 404) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    if (resp->status != 200 || !json_is_object(resp->json)) {
        gcp_ctl_queue_done(item, GCP_ECONFLICT, 0);
        return;
    }

    st->ns = resp->json;

    gcp_ctl_ns_decide(st);
}


/* The last step: every resource is done. */
static void
gcp_ctl_ns_report(void *data)
{
    char             *body;
    gcp_ctl_nsync_t  *st = data;

    if (!gcp_ctl_ns_conditions(st)) {
        gcp_ctl_ns_decide(st);
        return;
    }

    body = json_dumps(st->ns, JSON_COMPACT);
    if (body == NULL) {
        gcp_ctl_queue_done(st->item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_call(st->item, "PUT",
                 gcp_sprintf(st->item->arena, "/api/v1/namespaces/%s/status",
                             st->item->key),
                 NULL, gcp_strdup(st->item->arena, body),
                 gcp_ctl_ns_status_written);
    free(body);
}


/* deleting the content, one resource after the other */


static void
gcp_ctl_ns_error(gcp_ctl_nsync_t *st, gcp_client_resp_t *resp)
{
    const char  *msg;

    msg = json_string_value(json_object_get(resp->json, "message"));

    json_array_append_new(st->errors,
        json_string(msg ? msg
                        : gcp_sprintf(st->item->arena, "the server answered "
                                      "%d", resp->status)));
}


static void
gcp_ctl_ns_deleted(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    gcp_ctl_nsync_t  *st = item->data;

    if (resp->status != 200 && resp->status != 202 && resp->status != 404) {
        gcp_ctl_ns_error(st, resp);
    }

    if (st->step == GCP_NS_DELETE) {
        st->step = GCP_NS_LIST;
    }

    gcp_ctl_steps_run(&st->steps);
}


static void
gcp_ctl_ns_ranged(gcp_ctl_item_t *item, gcp_store_result_t *res)
{
    size_t            i, k;
    json_t           *obj, *fin, *v;
    gcp_ctl_nsync_t  *st = item->data;

    if (res->rc != GCP_OK) {
        json_array_append_new(st->errors,
            json_string(gcp_sprintf(item->arena, "listing %s: %s",
                                    st->res[st->steps.next]->name,
                                    gcp_error_info(res->rc)->name)));
        st->steps.next++;
        st->step = GCP_NS_COUNT;
        gcp_ctl_steps_run(&st->steps);
        return;
    }

    switch (st->step) {

    case GCP_NS_COUNT:
        if (res->count == 0) {
            st->steps.next++;

        } else {
            st->step = GCP_NS_DELETE;
        }

        break;

    case GCP_NS_DELETE:
        /* no deletecollection: the items to delete one by one */
        st->items = res->kvs;
        st->nitems = res->nkvs;
        st->item_next = 0;
        st->step = GCP_NS_EACH;
        break;

    default: /* GCP_NS_LIST */
        st->remaining[st->steps.next] = (int64_t) res->nkvs;

        for (i = 0; i < res->nkvs; i++) {
            obj = gcp_object_decode(item->arena, res->kvs[i].value, 0);
            fin = json_object_get(json_object_get(obj, "metadata"),
                                  "finalizers");

            json_array_foreach(fin, k, v) {
                if (json_is_string(v)) {
                    json_object_set_new(st->finalizers,
                        json_string_value(v),
                        json_integer(json_integer_value(json_object_get(
                            st->finalizers, json_string_value(v))) + 1));
                }
            }

            if (json_array_size(fin) == 0) {
                json_array_append_new(st->errors, json_string(
                    gcp_sprintf(item->arena, "unexpected items still "
                                "remain in namespace: %s for gvr: %s/%s, "
                                "Resource=%s", item->key,
                                st->res[st->steps.next]->group,
                                st->res[st->steps.next]->version,
                                st->res[st->steps.next]->name)));
                break;
            }
        }

        st->steps.next++;
        st->step = GCP_NS_COUNT;
        break;
    }

    gcp_ctl_steps_run(&st->steps);
}


/* A step: resource steps.next, in the phase st->step. */
static void
gcp_ctl_ns_step(void *data)
{
    gcp_ctl_nsync_t       *st = data;
    gcp_arena_t           *a = st->item->arena;
    const char            *path, *name;
    const gcp_resource_t  *res;

    res = st->res[st->steps.next];
    path = gcp_ctl_path(a, res, st->item->key);

    switch (st->step) {

    case GCP_NS_COUNT:
        gcp_ctl_range(st->item, gcp_object_prefix(a, res, st->item->key), 1,
                      gcp_ctl_ns_ranged);
        return;

    case GCP_NS_DELETE:
        if (res->verbs & GCP_VERB_DELETECOLLECTION) {
            gcp_ctl_call(st->item, "DELETE",
                         gcp_sprintf(a, "%s?propagationPolicy=Background",
                                     path),
                         NULL, NULL, gcp_ctl_ns_deleted);
            return;
        }

        gcp_ctl_range(st->item, gcp_object_prefix(a, res, st->item->key), 0,
                      gcp_ctl_ns_ranged);
        return;

    case GCP_NS_EACH:
        if (st->item_next == st->nitems) {
            st->step = GCP_NS_LIST;
            gcp_ctl_steps_run(&st->steps);
            return;
        }

        name = st->items[st->item_next].key.data;
        name = gcp_strndup(a, name, st->items[st->item_next].key.len);
        name = name ? strrchr(name, '/') + 1 : "";
        st->item_next++;

        gcp_ctl_call(st->item, "DELETE",
                     gcp_sprintf(a, "%s/%s?propagationPolicy=Background",
                                 path, name),
                     NULL, NULL, gcp_ctl_ns_deleted);
        return;

    default: /* GCP_NS_LIST */
        gcp_ctl_range(st->item, gcp_object_prefix(a, res, st->item->key), 0,
                      gcp_ctl_ns_ranged);
        return;
    }
}


static void
gcp_ctl_ns_got(gcp_ctl_item_t *item, json_t *obj)
{
    json_t           *fin;
    gcp_ctl_nsync_t  *st = item->data;

    st->ns = obj;
    fin = json_object_get(json_object_get(st->ns, "spec"), "finalizers");

    if (st->ns == NULL || gcp_meta_str(st->ns, "deletionTimestamp")[0] == 0
        || !gcp_json_has_string(fin, GCP_CTL_NS_FINALIZER))
    {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    st->finalizers = gcp_json_arena(item->arena, json_object());
    st->errors = gcp_json_arena(item->arena, json_array());

    if (st->finalizers == NULL || st->errors == NULL
        || gcp_ctl_ns_resources(st) != GCP_OK)
    {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_steps_start(&st->steps, item, st->nres, gcp_ctl_ns_step,
                        gcp_ctl_ns_report, st);
}


static void
gcp_ctl_ns_sync(gcp_ctl_item_t *item)
{
    gcp_ctl_nsync_t  *st;

    st = gcp_calloc(item->arena, sizeof(gcp_ctl_nsync_t));
    if (st == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    st->item = item;
    item->data = st;

    gcp_ctl_get_object(item, gcp_object_key(item->arena, &gcp_type_namespaces,
                                            "", item->key),
                       gcp_ctl_ns_got);
}


/* the controller */


static void *
gcp_ctl_ns_create(gcp_ctl_t *ctl)
{
    return gcp_ctl_base_create(ctl, sizeof(gcp_ctl_base_t), "namespace",
                               GCP_CTL_NS_WORKERS, gcp_ctl_ns_sync);
}


static void
gcp_ctl_ns_event(void *c, gcp_ctl_event_t *ev)
{
    json_t              *obj;
    gcp_ctl_base_t      *nc = c;
    const gcp_ctl_ns_t  *ns;

    if (ev->res == &gcp_type_namespaces) {
        if (ev->type == GCP_CTL_EV_DELETE) {
            return;
        }

        obj = gcp_ctl_event_obj(ev);

        if (obj && gcp_meta_str(obj, "deletionTimestamp")[0]) {
            gcp_ctl_queue_add(nc->queue, ev->name);
        }

        return;
    }

    /* content of a terminating namespace changed: look again soon */

    if (ev->type != GCP_CTL_EV_SYNC && ev->ns[0]) {
        ns = gcp_ctl_namespace(nc->ctl, ev->ns);

        if (ns && ns->terminating) {
            gcp_ctl_queue_add_after(nc->queue, ev->ns,
                                    GCP_CTL_NS_CONTENT_MS);
        }
    }
}


static void
gcp_ctl_ns_resync(void *c)
{
    gcp_ctl_base_add_namespaces(c, 1);
}


const gcp_ctl_controller_t  gcp_ctl_namespace_controller = {
    "namespace-controller",
    GCP_CTL_NAMESPACE,
    gcp_ctl_ns_create,
    gcp_ctl_ns_event,
    NULL,
    gcp_ctl_base_synced,
    gcp_ctl_ns_resync,
    gcp_ctl_base_stop,
    gcp_ctl_base_free,
};
