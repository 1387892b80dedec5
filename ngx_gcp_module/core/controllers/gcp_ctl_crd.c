
/*
 * The API server's CustomResourceDefinition controllers, as
 * apiextensions-apiserver runs them (every instance, no election): in one
 * sync per CRD,
 *
 *   - naming: status.acceptedNames takes the names the spec asks for that
 *     no other CRD of the group (and no built-in resource of it) has taken,
 *     with the NamesAccepted condition saying which conflict when one does;
 *   - establishing: once its names are accepted, Established;
 *   - API approval: for the protected groups (*.k8s.io, *.kubernetes.io),
 *     KubernetesAPIApprovalPolicyConformant from the
 *     api-approved.kubernetes.io annotation;
 *   - cleanup: a CRD being deleted loses every custom resource (deleted
 *     through the API, a namespace at a time, so that finalizers and the
 *     garbage collector act), then its customresourcecleanup finalizer,
 *     with the Terminating condition telling how far it got.
 *
 * Status is written through the in-process client (PUT .../status with the
 * resourceVersion read: a lost race is retried).  A change of names
 * requeues the group's other CRDs, whose conflicts may be gone.
 */

#include <stdlib.h>

#include "gcp_crd.h"
#include "gcp_ctl_int.h"
#include "gcp_json.h"
#include "gcp_object.h"
#include "gcp_time.h"


#define GCP_CTL_CRD_WORKERS      4
#define GCP_CTL_CRD_RECHECK_MS   500


typedef struct {
    gcp_ctl_base_t   base;
    gcp_ctl_map_t   *crds;          /* name -> json_t (a reference) */
} gcp_ctl_crd_t;


typedef struct {
    gcp_ctl_item_t   *item;
    json_t           *crd;          /* as read (arena), changed */
    const char       *group;
    const char       *plural;
    const char       *version;      /* served, for the instances' URLs */
    gcp_str_t         prefix;       /* the instances' keys */
    const char      **namespaces;   /* with instances ("": cluster) */
    size_t            nns;
    gcp_ctl_steps_t   steps;
} gcp_ctl_crd_sync_t;


static const char *
gcp_ctl_crd_str(const json_t *obj, const char *key)
{
    const char  *s;

    s = json_string_value(json_object_get(obj, key));

    return s ? s : "";
}


static const char *
gcp_ctl_crd_now(gcp_arena_t *a)
{
    return gcp_time_str(a, gcp_time_now().tv_sec);
}


/* Requeues every other CRD of group: names may have been released. */

static void
gcp_ctl_crd_requeue_group(gcp_ctl_crd_t *c, const char *group,
    const char *except)
{
    void                *v;
    const char          *name;
    gcp_ctl_map_iter_t   it;

    memset(&it, 0, sizeof(it));

    while (gcp_ctl_map_next(c->crds, &it, &name, &v)) {
        if (strcmp(name, except) != 0
            && strcmp(gcp_ctl_crd_str(json_object_get(v, "spec"), "group"),
                      group) == 0)
        {
            gcp_ctl_queue_add(c->base.queue, name);
        }
    }
}


/* naming */


static void
gcp_ctl_crd_take(json_t *set, const char *s)
{
    if (s && s[0]) {
        json_object_set_new(set, s, json_true());
    }
}


static void
gcp_ctl_crd_take_names(json_t *resources, json_t *kinds, const json_t *names)
{
    size_t   i;
    json_t  *e;

    gcp_ctl_crd_take(resources, gcp_ctl_crd_str(names, "plural"));
    gcp_ctl_crd_take(resources, gcp_ctl_crd_str(names, "singular"));

    json_array_foreach(json_object_get(names, "shortNames"), i, e) {
        gcp_ctl_crd_take(resources, json_string_value(e));
    }

    gcp_ctl_crd_take(kinds, gcp_ctl_crd_str(names, "kind"));
    gcp_ctl_crd_take(kinds, gcp_ctl_crd_str(names, "listKind"));
}


/*
 * The names taken in group by the other CRDs (their accepted names) and
 * by the built-in resources of the group.
 */

static void
gcp_ctl_crd_taken(gcp_ctl_crd_t *c, const char *name, const char *group,
    json_t *resources, json_t *kinds)
{
    void                  *v;
    size_t                 i, j;
    const char            *n;
    gcp_ctl_map_iter_t     it;
    const gcp_registry_t  *reg = c->base.ctl->api->registry;
    const gcp_resource_t  *r;

    memset(&it, 0, sizeof(it));

    while (gcp_ctl_map_next(c->crds, &it, &n, &v)) {
        if (strcmp(n, name) == 0
            || strcmp(gcp_ctl_crd_str(json_object_get(v, "spec"), "group"),
                      group) != 0)
        {
            continue;
        }

        gcp_ctl_crd_take_names(resources, kinds,
                               json_object_get(json_object_get(v, "status"),
                                               "acceptedNames"));
    }

    for (i = 0; i < reg->nstatic; i++) {
        r = reg->resources[i];

        if (strcmp(r->group, group) != 0) {
            continue;
        }

        gcp_ctl_crd_take(resources, r->name);
        gcp_ctl_crd_take(resources, r->singular);

        for (j = 0; r->short_names && r->short_names[j]; j++) {
            gcp_ctl_crd_take(resources, r->short_names[j]);
        }

        gcp_ctl_crd_take(kinds, r->kind);
        gcp_ctl_crd_take(kinds, r->list_kind);
    }
}


/* upstream's equalToAcceptedOrFresh(): NULL when the name may be taken */

static const char *
gcp_ctl_crd_fresh(gcp_arena_t *a, const char *requested, const char *accepted,
    const json_t *used)
{
    if (strcmp(requested, accepted) == 0
        || json_object_get(used, requested) == NULL)
    {
        return NULL;
    }

    return gcp_sprintf(a, "\"%s\" is already in use", requested);
}


/*
 * Sets status.acceptedNames and the NamesAccepted and Established
 * conditions as upstream's naming and establishing controllers together
 * do.  Returns 1 when the accepted names changed, 0 when not, -1 when out
 * of memory.
 */

static int
gcp_ctl_crd_names(gcp_ctl_crd_t *c, gcp_arena_t *a, json_t *crd,
    const char *now)
{
    size_t       i, k;
    json_t      *spec, *req, *acc, *st, *resources, *kinds, *accepted_short;
    json_t      *e, *newn, *before;
    const char  *name, *group, *err, *reason, *message, *keys[5];
    gcp_buf_t    b;
    int          changed;

    static const char * const  reasons[] = {
        "PluralConflict", "SingularConflict", NULL, "KindConflict",
        "ListKindConflict"
    };

    name = gcp_meta_str(crd, "name");
    spec = json_object_get(crd, "spec");
    group = gcp_ctl_crd_str(spec, "group");
    req = json_object_get(spec, "names");

    st = gcp_json_object_child(crd, "status");
    acc = st ? gcp_json_object_child(st, "acceptedNames") : NULL;
    resources = json_object();
    kinds = json_object();

    if (acc == NULL || resources == NULL || kinds == NULL) {
        json_decref(resources);
        json_decref(kinds);
        return -1;
    }

    gcp_ctl_crd_taken(c, name, group, resources, kinds);

    before = json_deep_copy(acc);
    newn = json_deep_copy(acc);

    if (before == NULL || newn == NULL) {
        json_decref(resources);
        json_decref(kinds);
        json_decref(before);
        json_decref(newn);
        return -1;
    }

    reason = NULL;
    message = NULL;

    keys[0] = "plural";
    keys[1] = "singular";
    keys[2] = NULL;
    keys[3] = "kind";
    keys[4] = "listKind";

    for (k = 0; k < 5; k++) {
        if (keys[k] == NULL) {
            /* short names: all or none */

            accepted_short = json_object_get(acc, "shortNames");

            if (json_equal(json_object_get(req, "shortNames"),
                           accepted_short)
                || (json_array_size(json_object_get(req, "shortNames")) == 0
                    && json_array_size(accepted_short) == 0))
            {
                continue;
            }

            gcp_buf_init(&b, a);

            json_array_foreach(json_object_get(req, "shortNames"), i, e) {
                const char  *sn = json_string_value(e) ? json_string_value(e)
                                                       : "";
                size_t       j;
                json_t      *o;
                int          ours = 0;

                json_array_foreach(accepted_short, j, o) {
                    ours |= json_string_value(o)
                            && strcmp(json_string_value(o), sn) == 0;
                }

                if (ours) {
                    continue;
                }

                err = gcp_ctl_crd_fresh(a, sn, "", resources);

                if (err) {
                    gcp_buf_printf(&b, "%s%s", b.len ? ", " : "", err);
                }
            }

            if (b.len) {
                reason = "ShortNamesConflict";
                message = b.len > 0 && strchr(gcp_buf_cstr(&b), ',')
                          ? gcp_sprintf(a, "[%s]", gcp_buf_cstr(&b))
                          : gcp_buf_cstr(&b);

            } else {
                e = json_object_get(req, "shortNames");
                json_object_set_new(newn, "shortNames",
                                    e ? json_deep_copy(e) : json_array());
            }

            continue;
        }

        err = gcp_ctl_crd_fresh(a, gcp_ctl_crd_str(req, keys[k]),
                                gcp_ctl_crd_str(acc, keys[k]),
                                k < 3 ? resources : kinds);

        if (err) {
            reason = reasons[k];
            message = err;
            continue;
        }

        json_object_set_new(newn, keys[k],
                            json_string(gcp_ctl_crd_str(req, keys[k])));
    }

    e = json_object_get(req, "categories");

    if (e) {
        json_object_set_new(newn, "categories", json_deep_copy(e));

    } else {
        json_object_del(newn, "categories");
    }

    if (json_array_size(json_object_get(newn, "shortNames")) == 0) {
        json_object_del(newn, "shortNames");
    }

    json_decref(resources);
    json_decref(kinds);

    json_object_update(acc, newn);

    json_object_foreach(before, name, e) {
        if (json_object_get(newn, name) == NULL) {
            json_object_del(acc, name);
        }
    }

    json_decref(newn);

    changed = !json_equal(before, acc);
    json_decref(before);

    if (reason) {
        if (gcp_crd_set_condition(crd, "NamesAccepted", "False", reason,
                                  message, now) < 0)
        {
            return -1;
        }

    } else {
        if (gcp_crd_set_condition(crd, "NamesAccepted", "True", "NoConflicts",
                                  "no conflicts found", now) < 0)
        {
            return -1;
        }

        if (!gcp_crd_condition_true(crd, "Established")
            && gcp_crd_set_condition(crd, "Established", "True",
                                     "InitialNamesAccepted",
                                     "the initial names have been accepted",
                                     now) < 0)
        {
            return -1;
        }
    }

    if (reason && gcp_crd_condition(crd, "Established") == NULL
        && gcp_crd_set_condition(crd, "Established", "False", "NotAccepted",
                                 "not all names are accepted", now) < 0)
    {
        return -1;
    }

    return changed;
}


static int
gcp_ctl_crd_approval(gcp_arena_t *a, json_t *crd, const char *now)
{
    int          state;
    const char  *reason;

    static const char * const  reasons[] = {
        "MissingAnnotation", "InvalidAnnotation", "UnapprovedAnnotation",
        "ApprovedAnnotation"
    };

    if (!gcp_crd_protected_group(gcp_ctl_crd_str(json_object_get(crd, "spec"),
                                                 "group")))
    {
        return 0;
    }

    state = gcp_crd_approval(a, crd, &reason);

    return gcp_crd_set_condition(crd, "KubernetesAPIApprovalPolicyConformant",
                                 state == 3 ? "True" : "False",
                                 reasons[state], reason, now);
}


/* writing status */


static void
gcp_ctl_crd_put_done(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    /* 404: deleted since; 409: changed since (it comes back by its event) */
    static const int  ok[] = { 200, 404, 409, 0 };

    gcp_ctl_call_done(item, resp, ok, GCP_EUNAVAILABLE);
}


static void
gcp_ctl_crd_put_status(gcp_ctl_crd_sync_t *s, gcp_ctl_call_pt done)
{
    gcp_str_t  body;

    body = gcp_json_dump(s->item->arena, s->crd, 0);

    if (body.data == NULL) {
        gcp_ctl_queue_done(s->item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_call(s->item, "PUT",
                 gcp_sprintf(s->item->arena, "/apis/apiextensions.k8s.io/v1/"
                             "customresourcedefinitions/%s/status",
                             gcp_meta_str(s->crd, "name")),
                 NULL, body.data, done);
}


/* cleanup of a CRD being deleted */


static int
gcp_ctl_crd_has_finalizer(const json_t *crd)
{
    size_t   i;
    json_t  *e;

    json_array_foreach(json_object_get(json_object_get(crd, "metadata"),
                                       "finalizers"), i, e)
    {
        if (json_string_value(e)
            && strcmp(json_string_value(e), GCP_CRD_FINALIZER) == 0)
        {
            return 1;
        }
    }

    return 0;
}


static void
gcp_ctl_crd_remove_finalizer(json_t *crd)
{
    size_t   i;
    json_t  *fin, *e;

    fin = json_object_get(json_object_get(crd, "metadata"), "finalizers");

    json_array_foreach(fin, i, e) {
        if (json_string_value(e)
            && strcmp(json_string_value(e), GCP_CRD_FINALIZER) == 0)
        {
            json_array_remove(fin, i);
            return;
        }
    }
}


static void gcp_ctl_crd_cleanup(gcp_ctl_crd_sync_t *s);


static void
gcp_ctl_crd_finalized(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    gcp_ctl_crd_put_done(item, resp);
}


static void
gcp_ctl_crd_finish(gcp_ctl_crd_sync_t *s, const char *reason,
    const char *message)
{
    const char  *now = gcp_ctl_crd_now(s->item->arena);

    if (gcp_crd_set_condition(s->crd, "Terminating", "False", reason, message,
                              now) < 0)
    {
        gcp_ctl_queue_done(s->item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_crd_remove_finalizer(s->crd);
    gcp_ctl_crd_put_status(s, gcp_ctl_crd_finalized);
}


static void
gcp_ctl_crd_deleted_one(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    gcp_ctl_crd_sync_t  *s = item->data;

    if (resp->status != 200 && resp->status != 404) {
        gcp_ctl_queue_done(item, GCP_EUNAVAILABLE, 0);
        return;
    }

    s->steps.next++;
    gcp_ctl_steps_run(&s->steps);
}


/* Deletes the instances of one namespace (a collection delete). */

static void
gcp_ctl_crd_delete_step(void *data)
{
    gcp_ctl_crd_sync_t  *s = data;
    const char          *ns, *path;

    ns = s->namespaces[s->steps.next];

    path = ns[0]
           ? gcp_sprintf(s->item->arena, "/apis/%s/%s/namespaces/%s/%s",
                         s->group, s->version, ns, s->plural)
           : gcp_sprintf(s->item->arena, "/apis/%s/%s/%s", s->group,
                         s->version, s->plural);

    gcp_ctl_call(s->item, "DELETE", path, NULL, NULL,
                 gcp_ctl_crd_deleted_one);
}


static void
gcp_ctl_crd_deleted_all(void *data)
{
    gcp_ctl_crd_sync_t  *s = data;

    /* look again: finalizers may keep some for a while */
    gcp_ctl_queue_done(s->item, GCP_OK, GCP_CTL_CRD_RECHECK_MS);
}


/* The namespaces of the instances left (each once, in key order). */

static void
gcp_ctl_crd_ranged(gcp_ctl_item_t *item, gcp_store_result_t *res)
{
    size_t               i;
    gcp_ctl_crd_sync_t  *s = item->data;
    const char          *rest, *slash, *ns, *last;

    if (res->rc != GCP_OK) {
        gcp_ctl_queue_done(item, res->rc, 0);
        return;
    }

    if (res->nkvs == 0) {
        gcp_ctl_crd_finish(s, "InstanceDeletionCompleted",
                           "removed all instances");
        return;
    }

    s->namespaces = gcp_alloc(item->arena, res->nkvs * sizeof(char *));
    if (s->namespaces == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    last = NULL;

    for (i = 0; i < res->nkvs; i++) {
        rest = res->kvs[i].key.data + s->prefix.len;
        slash = memchr(rest, '/',
                       res->kvs[i].key.len - s->prefix.len);

        ns = slash ? gcp_strndup(item->arena, rest, (size_t) (slash - rest))
                   : "";

        if (last == NULL || strcmp(last, ns) != 0) {
            s->namespaces[s->nns++] = ns;
            last = ns;
        }
    }

    gcp_ctl_steps_start(&s->steps, item, s->nns, gcp_ctl_crd_delete_step,
                        gcp_ctl_crd_deleted_all, s);
}


static void
gcp_ctl_crd_terminating_set(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    gcp_ctl_crd_sync_t  *s = item->data;

    if (resp->status != 200) {
        gcp_ctl_crd_put_done(item, resp);
        return;
    }

    /* the status write moved the revision: go on from what it returned */

    if (resp->json) {
        s->crd = resp->json;
    }

    gcp_ctl_crd_cleanup(s);
}


static void
gcp_ctl_crd_cleanup(gcp_ctl_crd_sync_t *s)
{
    size_t   i;
    json_t  *v;

    if (!gcp_crd_condition_true(s->crd, "Established")) {
        gcp_ctl_crd_finish(s, "NeverEstablished",
                           "resource was never established");
        return;
    }

    /* a served version to delete through, the storage one if served */

    s->version = NULL;

    json_array_foreach(json_object_get(json_object_get(s->crd, "spec"),
                                       "versions"), i, v)
    {
        if (!json_is_true(json_object_get(v, "served"))) {
            continue;
        }

        if (s->version == NULL || json_is_true(json_object_get(v, "storage")))
        {
            s->version = gcp_ctl_crd_str(v, "name");
        }
    }

    if (s->version == NULL) {
        gcp_ctl_crd_finish(s, "InstanceDeletionFailed",
                           "could not issue all deletes: no version of the "
                           "custom resource definition is served");
        return;
    }

    s->prefix.data = gcp_sprintf(s->item->arena, "/registry/%s/%s/",
                                 s->group, s->plural);
    s->prefix.len = s->prefix.data ? strlen(s->prefix.data) : 0;

    gcp_ctl_range(s->item, s->prefix, 0, gcp_ctl_crd_ranged);
}


/* the sync */


static void
gcp_ctl_crd_got(gcp_ctl_item_t *item, json_t *crd)
{
    int                  rc, changed;
    json_t              *orig;
    const char          *now;
    gcp_ctl_crd_t       *c = item->ctx;
    gcp_ctl_crd_sync_t  *s;

    if (crd == NULL) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    s = gcp_calloc(item->arena, sizeof(gcp_ctl_crd_sync_t));
    if (s == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    s->item = item;
    s->crd = crd;
    s->group = gcp_ctl_crd_str(json_object_get(crd, "spec"), "group");
    s->plural = gcp_ctl_crd_str(json_object_get(json_object_get(crd, "spec"),
                                                "names"), "plural");
    item->data = s;

    now = gcp_ctl_crd_now(item->arena);

    if (gcp_meta_str(crd, "deletionTimestamp")[0]) {
        if (!gcp_ctl_crd_has_finalizer(crd)) {
            gcp_ctl_queue_done(item, GCP_OK, 0);
            return;
        }

        rc = gcp_crd_set_condition(crd, "Terminating", "True",
                                   "InstanceDeletionInProgress",
                                   "CustomResource deletion is in progress",
                                   now);
        if (rc < 0) {
            gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
            return;
        }

        if (rc) {
            gcp_ctl_crd_put_status(s, gcp_ctl_crd_terminating_set);
            return;
        }

        gcp_ctl_crd_cleanup(s);
        return;
    }

    orig = gcp_json_arena(item->arena, json_deep_copy(crd));
    changed = gcp_ctl_crd_names(c, item->arena, crd, now);
    rc = gcp_ctl_crd_approval(item->arena, crd, now);

    if (orig == NULL || changed < 0 || rc < 0) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    if (changed) {
        gcp_ctl_crd_requeue_group(c, s->group, item->key);
    }

    if (json_equal(orig, crd)) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    gcp_ctl_crd_put_status(s, gcp_ctl_crd_put_done);
}


static void
gcp_ctl_crd_sync(gcp_ctl_item_t *item)
{
    gcp_ctl_get_object(item,
                       gcp_object_key(item->arena,
                                      &gcp_type_customresourcedefinitions,
                                      "", item->key),
                       gcp_ctl_crd_got);
}


static void *
gcp_ctl_crd_create(gcp_ctl_t *ctl)
{
    gcp_ctl_crd_t  *c;

    c = gcp_ctl_base_create(ctl, sizeof(gcp_ctl_crd_t),
                            "customresourcedefinitions", GCP_CTL_CRD_WORKERS,
                            gcp_ctl_crd_sync);
    if (c == NULL) {
        return NULL;
    }

    c->crds = gcp_ctl_map_create();
    if (c->crds == NULL) {
        gcp_ctl_base_free(c);
        return NULL;
    }

    return c;
}


static void
gcp_ctl_crd_event(void *arg, gcp_ctl_event_t *ev)
{
    json_t         *obj, *old;
    gcp_ctl_crd_t  *c = arg;

    if (ev->res != &gcp_type_customresourcedefinitions) {
        return;
    }

    old = gcp_ctl_map_del(c->crds, ev->name);

    if (ev->type == GCP_CTL_EV_DELETE) {
        if (old) {
            gcp_ctl_crd_requeue_group(c, gcp_ctl_crd_str(
                                          json_object_get(old, "spec"),
                                          "group"), ev->name);
        }

        json_decref(old);
        return;
    }

    json_decref(old);

    obj = gcp_ctl_event_obj(ev);

    if (obj && gcp_ctl_map_put(c->crds, ev->name, json_deep_copy(obj))
               != GCP_OK)
    {
        return;
    }

    gcp_ctl_queue_add(c->base.queue, ev->name);
}


static void
gcp_ctl_crd_relist(void *arg)
{
    void                *v;
    const char          *name;
    gcp_ctl_map_iter_t   it;
    gcp_ctl_crd_t       *c = arg;

    memset(&it, 0, sizeof(it));

    while (gcp_ctl_map_next(c->crds, &it, &name, &v)) {
        json_decref(v);
        gcp_ctl_map_del(c->crds, name);
    }
}


static void
gcp_ctl_crd_resync(void *arg)
{
    void                *v;
    const char          *name;
    gcp_ctl_map_iter_t   it;
    gcp_ctl_crd_t       *c = arg;

    memset(&it, 0, sizeof(it));

    while (gcp_ctl_map_next(c->crds, &it, &name, &v)) {
        gcp_ctl_queue_add(c->base.queue, name);
    }
}


static void
gcp_ctl_crd_free(void *arg)
{
    gcp_ctl_crd_t  *c = arg;

    gcp_ctl_crd_relist(c);
    gcp_ctl_map_free(c->crds);
    gcp_ctl_base_free(c);
}


const gcp_ctl_controller_t  gcp_ctl_crd_controller = {
    "customresourcedefinition-controllers",
    0,
    gcp_ctl_crd_create,
    gcp_ctl_crd_event,
    gcp_ctl_crd_relist,
    gcp_ctl_base_synced,
    gcp_ctl_crd_resync,
    gcp_ctl_base_stop,
    gcp_ctl_crd_free,
};
