
/*
 * The garbage collector (garbage-collector-controller), as upstream's
 * attemptToDelete and attemptToOrphan workers:
 *
 * - an object whose owners are all gone (checked by uid) is deleted, with
 *   the propagation its own finalizers ask for; owners that are absent or
 *   wait for their dependents are removed from the ownerReferences of an
 *   object that still has another owner;
 * - an owner deleted in the foreground (foregroundDeletion finalizer)
 *   keeps its finalizer until no dependent blocks it
 *   (blockOwnerDeletion); its dependents are deleted, in the foreground
 *   too when they have dependents of their own, and dependents in a cycle
 *   stop blocking so that the cycle does not hold;
 * - an owner deleted with the orphan finalizer has its dependents'
 *   references to it removed, then the finalizer.
 */

#include <stdlib.h>

#include "gcp_ctl_gc.h"
#include "gcp_json.h"
#include "gcp_object.h"


#define GCP_GC_DELETE_WORKERS  20   /* --concurrent-gc-syncs */
#define GCP_GC_ORPHAN_WORKERS  5

#define GCP_GC_SOLID     0
#define GCP_GC_DANGLING  1
#define GCP_GC_WAITING   2


typedef struct {
    gcp_ctl_item_t   *item;
    gcp_gc_t         *gc;
    const char       *path;         /* the object's URL */
    const char       *ns;
    json_t           *latest;       /* as read (arena) */
    json_t           *refs;         /* latest's ownerReferences */
    int              *klass;        /* per reference */
    const char      **deps;         /* orphaning: the dependents' uids */
    size_t            ndeps;
    const char       *policy;       /* the delete after a patch */
    gcp_ctl_steps_t   steps;        /* a reference, or a dependent, each */
} gcp_gc_sync_t;


/* API calls */


static const char *
gcp_gc_path(gcp_arena_t *a, const gcp_resource_t *res, const char *ns,
    const char *name)
{
    const char  *coll;

    coll = gcp_ctl_path(a, res, ns);

    return coll ? gcp_sprintf(a, "%s/%s", coll, name) : NULL;
}


/* A copy of the node's key that lives as long as the sync. */
static gcp_str_t
gcp_gc_key(gcp_arena_t *a, const gcp_gc_node_t *node)
{
    gcp_str_t  key;

    key.data = gcp_strdup(a, node->key);
    key.len = key.data ? strlen(key.data) : 0;

    return key;
}


/* PATCH path with {"metadata": meta} as a JSON merge patch (meta taken). */
static void
gcp_gc_patch(gcp_ctl_item_t *item, const char *path, json_t *meta,
    gcp_ctl_call_pt done)
{
    char    *body;
    json_t  *patch;

    patch = json_pack("{s:o}", "metadata", meta);
    body = patch ? json_dumps(patch, JSON_COMPACT) : NULL;
    json_decref(patch);

    if (body == NULL) {
        gcp_client_resp_t  r;

        memset(&r, 0, sizeof(r));
        done(item, &r);
        return;
    }

    gcp_ctl_call(item, "PATCH", path, "application/merge-patch+json",
                 gcp_strdup(item->arena, body), done);
    free(body);
}


static void
gcp_gc_deleted_cb(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    /* 404: gone; 409: the uid precondition failed, it is gone too */
    static const int  ok[] = { 200, 202, 404, 409, 0 };

    gcp_ctl_call_done(item, resp, ok, GCP_EUNAVAILABLE);
}


static void
gcp_gc_delete(gcp_gc_sync_t *st, const char *policy)
{
    char    *body;
    json_t  *opts;

    opts = json_pack("{s:s, s:{s:s}}", "propagationPolicy", policy,
                     "preconditions", "uid", st->item->key);
    body = opts ? json_dumps(opts, JSON_COMPACT) : NULL;
    json_decref(opts);

    if (body == NULL) {
        gcp_ctl_queue_done(st->item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_call(st->item, "DELETE", st->path, NULL,
                 gcp_strdup(st->item->arena, body), gcp_gc_deleted_cb);
    free(body);
}


static void
gcp_gc_patched_done(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    static const int  ok[] = { 200, 404, 0 };

    gcp_ctl_call_done(item, resp, ok, GCP_ECONFLICT);
}


/* metadata.finalizers without name, and the resourceVersion read. */
static json_t *
gcp_gc_without_finalizer(const json_t *obj, const char *name)
{
    size_t   i;
    json_t  *meta, *fin, *keep, *v;

    meta = json_object_get(obj, "metadata");
    fin = json_object_get(meta, "finalizers");
    keep = json_array();

    json_array_foreach(fin, i, v) {
        if (!json_is_string(v) || strcmp(json_string_value(v), name) != 0) {
            json_array_append(keep, v);
        }
    }

    return json_pack("{s:o, s:O}", "finalizers", keep, "resourceVersion",
                     json_object_get(meta, "resourceVersion"));
}


/* attemptToDelete */


static int
gcp_gc_dependent_deleting(gcp_gc_t *gc, const char *uid)
{
    size_t          i;
    gcp_gc_node_t  *node;

    node = gcp_ctl_map_get(gc->uids, uid);

    for (i = 0; node && i < node->ndeps; i++) {
        if (node->deps[i]->deleting_deps) {
            return 1;
        }
    }

    return 0;
}


static void
gcp_gc_unblocked(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    gcp_gc_sync_t  *st = item->data;

    if (resp->status != 200) {
        gcp_ctl_queue_done(item, resp->status == 404 ? GCP_OK
                                                     : GCP_ECONFLICT, 0);
        return;
    }

    gcp_gc_delete(st, "Foreground");
}


/* Every reference stops blocking its owner (a cycle must not hold). */
static void
gcp_gc_unblock(gcp_gc_sync_t *st)
{
    size_t   i;
    json_t  *refs, *r;

    refs = json_deep_copy(st->refs);

    json_array_foreach(refs, i, r) {
        if (json_is_true(json_object_get(r, "blockOwnerDeletion"))) {
            json_object_set_new(r, "blockOwnerDeletion", json_false());
        }
    }

    gcp_gc_patch(st->item, st->path,
                 json_pack("{s:o, s:O}", "ownerReferences", refs,
                           "resourceVersion",
                           json_object_get(json_object_get(st->latest,
                                                           "metadata"),
                                           "resourceVersion")),
                 gcp_gc_unblocked);
}


/* The last step of attemptToDelete: every reference is classified. */
static void
gcp_gc_decide(void *data)
{
    size_t          i, nsolid, nother, nwaiting;
    json_t         *keep, *fin, *r;
    gcp_gc_sync_t  *st = data;
    gcp_gc_t       *gc = st->gc;
    gcp_gc_node_t  *node;

    nsolid = 0;
    nother = 0;
    nwaiting = 0;

    for (i = 0; i < json_array_size(st->refs); i++) {
        nsolid += st->klass[i] == GCP_GC_SOLID;
        nother += st->klass[i] != GCP_GC_SOLID;
        nwaiting += st->klass[i] == GCP_GC_WAITING;
    }

    if (nsolid) {
        if (nother == 0) {
            gcp_ctl_queue_done(st->item, GCP_OK, 0);
            return;
        }

        /* keep the owners that exist and do not wait */

        keep = json_array();

        json_array_foreach(st->refs, i, r) {
            if (st->klass[i] == GCP_GC_SOLID) {
                json_array_append(keep, r);
            }
        }

        gcp_gc_patch(st->item, st->path,
                     json_pack("{s:o, s:O}", "ownerReferences", keep,
                               "resourceVersion",
                               json_object_get(json_object_get(st->latest,
                                                               "metadata"),
                                               "resourceVersion")),
                     gcp_gc_patched_done);
        return;
    }

    node = gcp_ctl_map_get(gc->uids, st->item->key);

    if (nwaiting && node && node->ndeps) {
        /*
         * An owner waits for its dependents and this one has dependents:
         * delete it in the foreground too, unblocking its owners first if
         * one of its dependents waits as well (a cycle).
         */

        if (gcp_gc_dependent_deleting(gc, st->item->key)) {
            gcp_gc_unblock(st);
            return;
        }

        gcp_gc_delete(st, "Foreground");
        return;
    }

    fin = json_object_get(json_object_get(st->latest, "metadata"),
                          "finalizers");

    gcp_gc_delete(st, gcp_json_has_string(fin, GCP_GC_ORPHAN) ? "Orphan"
                      : gcp_json_has_string(fin, GCP_GC_FOREGROUND)
                        ? "Foreground" : "Background");
}


static void
gcp_gc_owner_got(gcp_ctl_item_t *item, int rc, const gcp_kv_t *kv)
{
    json_t         *owner, *fin, *r;
    gcp_gc_sync_t  *st = item->data;

    if (rc != GCP_OK) {
        gcp_ctl_queue_done(item, rc, 0);
        return;
    }

    r = json_array_get(st->refs, st->steps.next);
    owner = kv ? gcp_object_decode(item->arena, kv->value, 0) : NULL;

    if (owner == NULL
        || strcmp(gcp_meta_str(owner, "uid"),
                  json_string_value(json_object_get(r, "uid")) ?: "") != 0)
    {
        st->klass[st->steps.next] = GCP_GC_DANGLING;

    } else {
        fin = json_object_get(json_object_get(owner, "metadata"),
                              "finalizers");

        st->klass[st->steps.next] =
            gcp_meta_str(owner, "deletionTimestamp")[0]
            && gcp_json_has_string(fin, GCP_GC_FOREGROUND)
            ? GCP_GC_WAITING : GCP_GC_SOLID;
    }

    st->steps.next++;
    gcp_ctl_steps_run(&st->steps);
}


/* A step: classifies reference steps.next: solid, dangling or waiting. */
static void
gcp_gc_classify(void *data)
{
    json_t                *r;
    const char            *av, *kind, *name;
    gcp_gc_sync_t         *st = data;
    const gcp_resource_t  *res;

    r = json_array_get(st->refs, st->steps.next);
    av = json_string_value(json_object_get(r, "apiVersion"));
    kind = json_string_value(json_object_get(r, "kind"));
    name = json_string_value(json_object_get(r, "name"));

    res = av && kind ? gcp_ctl_resource_of_kind(st->gc->ctl, av, kind)
                     : NULL;

    if (res == NULL || name == NULL) {
        /* a kind not served (yet): try again later */
        gcp_ctl_queue_done(st->item, GCP_ENOTFOUND, 0);
        return;
    }

    gcp_ctl_get(st->item,
                gcp_object_key(st->item->arena, res,
                               res->namespaced ? st->ns : "", name),
                gcp_gc_owner_got);
}


/* An owner deleted in the foreground: does a dependent still block it? */
static void
gcp_gc_deleting_dependents(gcp_gc_sync_t *st, gcp_gc_node_t *node)
{
    size_t               i, blocking;
    gcp_gc_node_t       *dep;
    const gcp_gc_ref_t  *ref;

    blocking = 0;

    for (i = 0; i < node->ndeps; i++) {
        dep = node->deps[i];
        ref = gcp_gc_ref_to(dep, node->uid);

        if (ref && ref->block) {
            blocking++;

            if (!dep->deleting_deps) {
                gcp_ctl_queue_add(st->gc->attempt_delete, dep->uid);
            }
        }
    }

    if (blocking) {
        gcp_ctl_queue_done(st->item, GCP_OK, 0);
        return;
    }

    gcp_gc_patch(st->item, st->path,
                 gcp_gc_without_finalizer(st->latest, GCP_GC_FOREGROUND),
                 gcp_gc_patched_done);
}


static void
gcp_gc_latest(gcp_ctl_item_t *item, int rc, const gcp_kv_t *kv)
{
    int             fg;
    json_t         *fin;
    gcp_gc_sync_t  *st = item->data;
    gcp_gc_node_t  *node;

    if (rc != GCP_OK) {
        gcp_ctl_queue_done(item, rc, 0);
        return;
    }

    node = gcp_ctl_map_get(st->gc->uids, item->key);

    if (node == NULL) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    st->latest = kv ? gcp_object_decode(item->arena, kv->value,
                                        kv->mod_revision)
                    : NULL;

    if (st->latest == NULL
        || strcmp(gcp_meta_str(st->latest, "uid"), item->key) != 0)
    {
        /* absent: a virtual delete event */
        gcp_gc_forget(st->gc, node);
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    node->virtual = 0;

    fin = json_object_get(json_object_get(st->latest, "metadata"),
                          "finalizers");
    fg = gcp_meta_str(st->latest, "deletionTimestamp")[0]
         && gcp_json_has_string(fin, GCP_GC_FOREGROUND);

    if (fg) {
        node->deleting_deps = 1;
        gcp_gc_deleting_dependents(st, node);
        return;
    }

    if (gcp_meta_str(st->latest, "deletionTimestamp")[0]) {
        /* on its way: its deletion event will come */
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    st->refs = json_object_get(json_object_get(st->latest, "metadata"),
                               "ownerReferences");

    if (json_array_size(st->refs) == 0) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    st->klass = gcp_calloc(item->arena,
                           json_array_size(st->refs) * sizeof(int));

    if (st->klass == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_steps_start(&st->steps, item, json_array_size(st->refs),
                        gcp_gc_classify, gcp_gc_decide, st);
}


/* Returns the state of a new sync, or NULL when it ended the sync. */
static gcp_gc_sync_t *
gcp_gc_sync_new(gcp_ctl_item_t *item)
{
    gcp_gc_sync_t  *st;

    st = gcp_calloc(item->arena, sizeof(gcp_gc_sync_t));
    if (st == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return NULL;
    }

    st->item = item;
    st->gc = item->ctx;
    item->data = st;

    return st;
}


static void
gcp_gc_attempt_delete(gcp_ctl_item_t *item)
{
    gcp_gc_sync_t  *st;
    gcp_gc_node_t  *node;

    st = gcp_gc_sync_new(item);
    if (st == NULL) {
        return;
    }

    node = gcp_ctl_map_get(st->gc->uids, item->key);

    if (node == NULL || (node->being_deleted && !node->deleting_deps)) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    if (gcp_gc_resolve(st->gc, node) != GCP_OK) {
        /* an owner of a kind not served (yet): look again later */
        gcp_ctl_queue_done(item, GCP_ENOTFOUND, 0);
        return;
    }

    st->ns = gcp_strdup(item->arena, node->ns);
    st->path = gcp_gc_path(item->arena, node->res, node->ns, node->name);

    gcp_ctl_get(item, gcp_gc_key(item->arena, node), gcp_gc_latest);
}


/* attemptToOrphan */


static void
gcp_gc_orphan_patched(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    gcp_gc_sync_t  *st = item->data;

    if (resp->status != 200 && resp->status != 404) {
        gcp_ctl_queue_done(item, GCP_ECONFLICT, 0);
        return;
    }

    st->steps.next++;
    gcp_ctl_steps_run(&st->steps);
}


/* A dependent: its reference to the owner goes. */
static void
gcp_gc_orphan_dep(gcp_ctl_item_t *item, int rc, const gcp_kv_t *kv)
{
    size_t          i;
    json_t         *obj, *refs, *keep, *r;
    gcp_gc_sync_t  *st = item->data;
    gcp_gc_node_t  *dep;

    if (rc != GCP_OK) {
        gcp_ctl_queue_done(item, rc, 0);
        return;
    }

    obj = kv ? gcp_object_decode(item->arena, kv->value, kv->mod_revision)
             : NULL;
    dep = gcp_ctl_map_get(st->gc->uids, st->deps[st->steps.next]);

    if (obj == NULL || dep == NULL
        || strcmp(gcp_meta_str(obj, "uid"), dep->uid) != 0)
    {
        st->steps.next++;
        gcp_ctl_steps_run(&st->steps);
        return;
    }

    refs = json_object_get(json_object_get(obj, "metadata"),
                           "ownerReferences");
    keep = json_array();

    json_array_foreach(refs, i, r) {
        if (strcmp(json_string_value(json_object_get(r, "uid")) ?: "",
                   item->key) != 0)
        {
            json_array_append(keep, r);
        }
    }

    if (json_array_size(keep) == json_array_size(refs)) {
        json_decref(keep);
        st->steps.next++;
        gcp_ctl_steps_run(&st->steps);
        return;
    }

    if (json_array_size(keep) == 0) {
        json_decref(keep);
        keep = json_null();
    }

    gcp_gc_patch(item, gcp_gc_path(item->arena, dep->res, dep->ns,
                                   dep->name),
                 json_pack("{s:o, s:O}", "ownerReferences", keep,
                           "resourceVersion",
                           json_object_get(json_object_get(obj, "metadata"),
                                           "resourceVersion")),
                 gcp_gc_orphan_patched);
}


/* The owner: the orphan finalizer goes. */
static void
gcp_gc_orphan_owner(gcp_ctl_item_t *item, int rc, const gcp_kv_t *kv)
{
    json_t         *obj, *fin;
    gcp_gc_sync_t  *st = item->data;

    if (rc != GCP_OK) {
        gcp_ctl_queue_done(item, rc, 0);
        return;
    }

    obj = kv ? gcp_object_decode(item->arena, kv->value, kv->mod_revision)
             : NULL;
    fin = json_object_get(json_object_get(obj, "metadata"), "finalizers");

    if (obj == NULL || strcmp(gcp_meta_str(obj, "uid"), item->key) != 0
        || !gcp_json_has_string(fin, GCP_GC_ORPHAN))
    {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    gcp_gc_patch(item, st->path, gcp_gc_without_finalizer(obj, GCP_GC_ORPHAN),
                 gcp_gc_patched_done);
}


/* A step: dependent steps.next. */
static void
gcp_gc_orphan_step(void *data)
{
    gcp_gc_sync_t  *st = data;
    gcp_gc_node_t  *node;

    node = gcp_ctl_map_get(st->gc->uids, st->deps[st->steps.next]);

    if (node == NULL || node->key == NULL) {
        st->steps.next++;
        gcp_ctl_steps_run(&st->steps);
        return;
    }

    gcp_ctl_get(st->item, gcp_gc_key(st->item->arena, node),
                gcp_gc_orphan_dep);
}


/* The last step: the owner, once every dependent is done. */
static void
gcp_gc_orphan_last(void *data)
{
    gcp_gc_sync_t  *st = data;
    gcp_gc_node_t  *node;

    node = gcp_ctl_map_get(st->gc->uids, st->item->key);

    if (node == NULL || node->key == NULL) {
        gcp_ctl_queue_done(st->item, GCP_OK, 0);
        return;
    }

    gcp_ctl_get(st->item, gcp_gc_key(st->item->arena, node),
                gcp_gc_orphan_owner);
}


static void
gcp_gc_attempt_orphan(gcp_ctl_item_t *item)
{
    size_t          i;
    gcp_gc_sync_t  *st;
    gcp_gc_node_t  *node;

    st = gcp_gc_sync_new(item);
    if (st == NULL) {
        return;
    }

    node = gcp_ctl_map_get(st->gc->uids, item->key);

    if (node == NULL || gcp_gc_resolve(st->gc, node) != GCP_OK) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    st->path = gcp_gc_path(item->arena, node->res, node->ns, node->name);
    st->deps = gcp_alloc(item->arena, (node->ndeps + 1) * sizeof(char *));

    if (st->deps == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    for (i = 0; i < node->ndeps; i++) {
        st->deps[i] = gcp_strdup(item->arena, node->deps[i]->uid);

        if (st->deps[i] == NULL) {
            gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
            return;
        }
    }

    st->ndeps = node->ndeps;

    gcp_ctl_steps_start(&st->steps, item, st->ndeps, gcp_gc_orphan_step,
                        gcp_gc_orphan_last, st);
}


/* the controller */


static void *
gcp_gc_create(gcp_ctl_t *ctl)
{
    gcp_gc_t  *gc;

    gc = calloc(1, sizeof(gcp_gc_t));
    if (gc == NULL) {
        return NULL;
    }

    gc->ctl = ctl;
    gc->uids = gcp_ctl_map_create();
    gc->keys = gcp_ctl_map_create();
    gc->attempt_delete = gcp_ctl_queue_create(ctl, "garbage_collector_"
                                              "attempt_to_delete",
                                              GCP_GC_DELETE_WORKERS,
                                              gcp_gc_attempt_delete, gc);
    gc->attempt_orphan = gcp_ctl_queue_create(ctl, "garbage_collector_"
                                              "attempt_to_orphan",
                                              GCP_GC_ORPHAN_WORKERS,
                                              gcp_gc_attempt_orphan, gc);

    if (gc->uids == NULL || gc->keys == NULL || gc->attempt_delete == NULL
        || gc->attempt_orphan == NULL)
    {
        gcp_ctl_map_free(gc->uids);
        gcp_ctl_map_free(gc->keys);
        gcp_ctl_queue_free(gc->attempt_delete);
        gcp_ctl_queue_free(gc->attempt_orphan);
        free(gc);
        return NULL;
    }

    return gc;
}


static void
gcp_gc_event(void *c, gcp_ctl_event_t *ev)
{
    if (ev->type == GCP_CTL_EV_DELETE) {
        gcp_gc_deleted(c, ev);
        return;
    }

    gcp_gc_observe(c, ev);
}


static void
gcp_gc_relist(void *c)
{
    gcp_gc_clear(c);
}


static void
gcp_gc_synced(void *c)
{
    gcp_gc_t  *gc = c;

    gcp_ctl_queue_start(gc->attempt_delete);
    gcp_ctl_queue_start(gc->attempt_orphan);
}


static void
gcp_gc_stop(void *c)
{
    gcp_gc_t  *gc = c;

    gcp_ctl_queue_stop(gc->attempt_delete);
    gcp_ctl_queue_stop(gc->attempt_orphan);
}


static void
gcp_gc_free(void *c)
{
    gcp_gc_t  *gc = c;

    gcp_gc_clear(gc);
    gcp_ctl_map_free(gc->uids);
    gcp_ctl_map_free(gc->keys);
    gcp_ctl_queue_free(gc->attempt_delete);
    gcp_ctl_queue_free(gc->attempt_orphan);
    free(gc);
}


const gcp_ctl_controller_t  gcp_ctl_gc_controller = {
    "garbage-collector-controller",
    GCP_CTL_GC,
    gcp_gc_create,
    gcp_gc_event,
    gcp_gc_relist,
    gcp_gc_synced,
    NULL,
    gcp_gc_stop,
    gcp_gc_free,
};
