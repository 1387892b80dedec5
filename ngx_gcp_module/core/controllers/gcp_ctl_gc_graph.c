
/*
 * The garbage collector's dependency graph (see gcp_ctl_gc.h), kept in
 * step with the store's events as upstream's GraphBuilder does.
 */

#define _GNU_SOURCE                 /* memmem */

#include <stdlib.h>
#include <string.h>

#include "gcp_ctl_gc.h"
#include "gcp_json.h"
#include "gcp_object.h"


static char *
gcp_gc_strdup(const char *s)
{
    return strdup(s ? s : "");
}


void
gcp_gc_refs_free(gcp_gc_ref_t *refs, size_t n)
{
    size_t  i;

    for (i = 0; i < n; i++) {
        free(refs[i].uid);
        free(refs[i].api_version);
        free(refs[i].kind);
        free(refs[i].name);
    }

    free(refs);
}


int
gcp_gc_refs(const json_t *obj, gcp_gc_ref_t **refs, size_t *n)
{
    size_t         i, k;
    json_t        *r;
    gcp_gc_ref_t  *out;
    const json_t  *list;

    *refs = NULL;
    *n = 0;

    list = json_object_get(json_object_get(obj, "metadata"),
                           "ownerReferences");

    if (json_array_size(list) == 0) {
        return GCP_OK;
    }

    out = calloc(json_array_size(list), sizeof(gcp_gc_ref_t));
    if (out == NULL) {
        return GCP_ENOMEM;
    }

    k = 0;

    json_array_foreach(list, i, r) {
        if (!json_is_string(json_object_get(r, "uid"))) {
            continue;
        }

        out[k].uid = gcp_gc_strdup(json_string_value(json_object_get(r,
                                                                     "uid")));
        out[k].api_version = gcp_gc_strdup(json_string_value(
                                 json_object_get(r, "apiVersion")));
        out[k].kind = gcp_gc_strdup(json_string_value(json_object_get(r,
                                                                  "kind")));
        out[k].name = gcp_gc_strdup(json_string_value(json_object_get(r,
                                                                  "name")));
        out[k].block = json_is_true(json_object_get(r, "blockOwnerDeletion"));
        k++;

        if (out[k - 1].uid == NULL || out[k - 1].api_version == NULL
            || out[k - 1].kind == NULL || out[k - 1].name == NULL)
        {
            gcp_gc_refs_free(out, k);
            return GCP_ENOMEM;
        }
    }

    *refs = out;
    *n = k;

    return GCP_OK;
}


const gcp_gc_ref_t *
gcp_gc_ref_to(const gcp_gc_node_t *dep, const char *uid)
{
    size_t  i;

    for (i = 0; i < dep->nowners; i++) {
        if (strcmp(dep->owners[i].uid, uid) == 0) {
            return &dep->owners[i];
        }
    }

    return NULL;
}


/*
 * The resource of a node, held: a custom resource's descriptor outlives
 * its CRD while the graph knows objects of it.
 */

static void
gcp_gc_node_set_res(gcp_gc_node_t *node, const gcp_resource_t *res)
{
    if (res) {
        gcp_resource_ref(res);
    }

    if (node->res) {
        gcp_resource_unref(node->res);
    }

    node->res = res;
}


static void
gcp_gc_node_free(gcp_gc_node_t *node)
{
    free(node->uid);
    free(node->api_version);
    free(node->kind);
    free(node->ns);
    free(node->name);
    free(node->key);
    gcp_gc_refs_free(node->owners, node->nowners);
    free(node->deps);
    gcp_gc_node_set_res(node, NULL);
    free(node);
}


int
gcp_gc_resolve(gcp_gc_t *gc, gcp_gc_node_t *node)
{
    gcp_arena_t  *a;
    gcp_str_t     key;

    if (node->key) {
        return GCP_OK;
    }

    gcp_gc_node_set_res(node, gcp_ctl_resource_of_kind(gc->ctl,
                                                       node->api_version,
                                                       node->kind));
    if (node->res == NULL) {
        return GCP_ENOTFOUND;
    }

    a = gcp_arena_create(0);
    if (a == NULL) {
        return GCP_ENOMEM;
    }

    key = gcp_object_key(a, node->res,
                         node->res->namespaced ? node->ns : "", node->name);
    node->key = key.data ? strndup(key.data, key.len) : NULL;
    gcp_arena_destroy(a);

    if (node->key == NULL) {
        return GCP_ENOMEM;
    }

    if (gcp_ctl_map_get(gc->keys, node->key) == NULL) {
        gcp_ctl_map_put(gc->keys, node->key, node);
    }

    return GCP_OK;
}


static gcp_gc_node_t *
gcp_gc_node_new(gcp_gc_t *gc, const char *uid, const char *api_version,
    const char *kind, const char *ns, const char *name, int is_virtual)
{
    gcp_gc_node_t  *node;

    node = calloc(1, sizeof(gcp_gc_node_t));
    if (node == NULL) {
        return NULL;
    }

    node->uid = gcp_gc_strdup(uid);
    node->api_version = gcp_gc_strdup(api_version);
    node->kind = gcp_gc_strdup(kind);
    node->ns = gcp_gc_strdup(ns);
    node->name = gcp_gc_strdup(name);
    node->virtual = is_virtual;

    if (node->uid == NULL || node->api_version == NULL || node->kind == NULL
        || node->ns == NULL || node->name == NULL
        || gcp_ctl_map_put(gc->uids, node->uid, node) != GCP_OK)
    {
        gcp_gc_node_free(node);
        return NULL;
    }

    /* a kind not served yet keeps no key until a worker resolves it */
    (void) gcp_gc_resolve(gc, node);

    return node;
}


static void
gcp_gc_link(gcp_gc_node_t *owner, gcp_gc_node_t *dep)
{
    size_t           i;
    gcp_gc_node_t  **d;

    for (i = 0; i < owner->ndeps; i++) {
        if (owner->deps[i] == dep) {
            return;
        }
    }

    if (owner->ndeps == owner->cap) {
        d = realloc(owner->deps,
                    (owner->cap ? owner->cap * 2 : 4) * sizeof(*d));
        if (d == NULL) {
            return;
        }

        owner->deps = d;
        owner->cap = owner->cap ? owner->cap * 2 : 4;
    }

    owner->deps[owner->ndeps++] = dep;
}


static void
gcp_gc_unlink(gcp_gc_node_t *owner, gcp_gc_node_t *dep)
{
    size_t  i;

    for (i = 0; i < owner->ndeps; i++) {
        if (owner->deps[i] == dep) {
            owner->deps[i] = owner->deps[--owner->ndeps];
            return;
        }
    }
}


/* Removes a node from the maps and frees it (no other changes). */
static void
gcp_gc_drop(gcp_gc_t *gc, gcp_gc_node_t *node)
{
    if (gcp_ctl_map_get(gc->uids, node->uid) == node) {
        gcp_ctl_map_del(gc->uids, node->uid);
    }

    if (node->key && gcp_ctl_map_get(gc->keys, node->key) == node) {
        gcp_ctl_map_del(gc->keys, node->key);
    }

    gcp_gc_node_free(node);
}


/* A dependent stops naming owner uid (its reference went, or it did). */
static void
gcp_gc_release_owner(gcp_gc_t *gc, gcp_gc_node_t *dep, const char *uid)
{
    gcp_gc_node_t  *owner;

    owner = gcp_ctl_map_get(gc->uids, uid);
    if (owner == NULL) {
        return;
    }

    gcp_gc_unlink(owner, dep);

    if (owner->deleting_deps) {
        gcp_ctl_queue_add(gc->attempt_delete, owner->uid);
    }

    if (owner->virtual && owner->ndeps == 0) {
        gcp_gc_drop(gc, owner);
    }
}


void
gcp_gc_forget(gcp_gc_t *gc, gcp_gc_node_t *node)
{
    size_t  i;

    for (i = 0; i < node->ndeps; i++) {
        gcp_ctl_queue_add(gc->attempt_delete, node->deps[i]->uid);
    }

    node->ndeps = 0;

    for (i = 0; i < node->nowners; i++) {
        gcp_gc_release_owner(gc, node, node->owners[i].uid);
    }

    gcp_gc_drop(gc, node);
}


/* Links dep to the owner of ref, creating a virtual owner if unseen. */
static void
gcp_gc_add_owner(gcp_gc_t *gc, gcp_gc_node_t *dep, const gcp_gc_ref_t *ref)
{
    gcp_gc_node_t  *owner;

    owner = gcp_ctl_map_get(gc->uids, ref->uid);

    if (owner == NULL) {
        owner = gcp_gc_node_new(gc, ref->uid, ref->api_version, ref->kind,
                                dep->ns, ref->name, 1);
        if (owner == NULL) {
            return;
        }

        /* does it exist?  a worker checks, by uid */
        gcp_ctl_queue_add(gc->attempt_delete, owner->uid);
    }

    gcp_gc_link(owner, dep);

    if (owner->deleting_deps) {
        gcp_ctl_queue_add(gc->attempt_delete, owner->uid);
    }
}


/* Replaces the node's owners with refs (taken over). */
static void
gcp_gc_set_owners(gcp_gc_t *gc, gcp_gc_node_t *node, gcp_gc_ref_t *refs,
    size_t n)
{
    size_t               i, j;
    gcp_gc_node_t       *owner;
    const gcp_gc_ref_t  *old;

    for (i = 0; i < node->nowners; i++) {
        for (j = 0; j < n; j++) {
            if (strcmp(node->owners[i].uid, refs[j].uid) == 0) {
                break;
            }
        }

        if (j == n) {
            gcp_gc_release_owner(gc, node, node->owners[i].uid);
        }
    }

    for (j = 0; j < n; j++) {
        old = gcp_gc_ref_to(node, refs[j].uid);

        if (old == NULL) {
            gcp_gc_add_owner(gc, node, &refs[j]);
            continue;
        }

        if (old->block && !refs[j].block) {
            /* it stops blocking an owner waiting for its dependents */
            owner = gcp_ctl_map_get(gc->uids, refs[j].uid);

            if (owner && owner->deleting_deps) {
                gcp_ctl_queue_add(gc->attempt_delete, owner->uid);
            }
        }
    }

    gcp_gc_refs_free(node->owners, node->nowners);
    node->owners = refs;
    node->nowners = n;
}


static int
gcp_gc_interesting(gcp_str_t value)
{
    return memmem(value.data, value.len, "\"ownerReferences\"", 17)
           || memmem(value.data, value.len, "\"deletionTimestamp\"", 19);
}


void
gcp_gc_observe(gcp_gc_t *gc, gcp_ctl_event_t *ev)
{
    int             deleting, orphan, fg;
    size_t          i, n;
    json_t         *obj, *fin;
    const char     *uid, *api_version;
    gcp_gc_ref_t   *refs;
    gcp_gc_node_t  *node;

    node = gcp_ctl_map_get(gc->keys, ev->key);

    if (node == NULL && !gcp_gc_interesting(ev->value)) {
        return;
    }

    obj = gcp_ctl_event_obj(ev);
    uid = gcp_meta_str(obj, "uid");

    if (obj == NULL || uid[0] == '\0') {
        return;
    }

    if (node && strcmp(node->uid, uid) != 0) {
        /* another object than the one known at this key */

        gcp_ctl_map_del(gc->keys, ev->key);

        if (node->virtual) {
            gcp_ctl_queue_add(gc->attempt_delete, node->uid);

        } else {
            gcp_gc_forget(gc, node);
        }

        node = NULL;
    }

    if (node == NULL) {
        node = gcp_ctl_map_get(gc->uids, uid);
    }

    if (gcp_gc_refs(obj, &refs, &n) != GCP_OK) {
        return;
    }

    fin = json_object_get(json_object_get(obj, "metadata"), "finalizers");
    deleting = gcp_meta_str(obj, "deletionTimestamp")[0] != '\0';
    orphan = deleting && gcp_json_has_string(fin, GCP_GC_ORPHAN);
    fg = deleting && gcp_json_has_string(fin, GCP_GC_FOREGROUND);

    if (node == NULL) {
        if (n == 0 && !orphan && !fg) {
            return;
        }

        api_version = json_string_value(json_object_get(obj, "apiVersion"));

        node = gcp_gc_node_new(gc, uid, api_version ? api_version
                                   : gcp_resource_api_version(ev->arena,
                                                              ev->res),
                               ev->res->kind, ev->ns, ev->name, 0);
        if (node == NULL) {
            gcp_gc_refs_free(refs, n);
            return;
        }
    }

    if (node->key == NULL || strcmp(node->key, ev->key) != 0) {
        /* a virtual node named otherwise: the object knows better */
        if (node->key && gcp_ctl_map_get(gc->keys, node->key) == node) {
            gcp_ctl_map_del(gc->keys, node->key);
        }

        free(node->key);
        node->key = strdup(ev->key);
        gcp_gc_node_set_res(node, ev->res);

        if (node->key) {
            gcp_ctl_map_put(gc->keys, node->key, node);
        }
    }

    node->virtual = 0;

    gcp_gc_set_owners(gc, node, refs, n);

    node->being_deleted = deleting;

    if (orphan && !node->orphaning) {
        gcp_ctl_queue_add(gc->attempt_orphan, node->uid);
    }

    node->orphaning = orphan;

    if (fg && !node->deleting_deps) {
        node->deleting_deps = 1;

        for (i = 0; i < node->ndeps; i++) {
            gcp_ctl_queue_add(gc->attempt_delete, node->deps[i]->uid);
        }

        gcp_ctl_queue_add(gc->attempt_delete, node->uid);
    }

    node->deleting_deps = fg;
}


void
gcp_gc_deleted(gcp_gc_t *gc, gcp_ctl_event_t *ev)
{
    json_t         *obj;
    gcp_gc_node_t  *node;

    node = gcp_ctl_map_get(gc->keys, ev->key);
    if (node == NULL) {
        return;
    }

    obj = gcp_ctl_event_obj(ev);

    if (obj && strcmp(gcp_meta_str(obj, "uid"), node->uid) != 0) {
        /* not the object the node stands for: check that one */
        gcp_ctl_queue_add(gc->attempt_delete, node->uid);
        return;
    }

    gcp_gc_forget(gc, node);
}


void
gcp_gc_clear(gcp_gc_t *gc)
{
    void                *v;
    const char          *key;
    gcp_ctl_map_iter_t   it;

    memset(&it, 0, sizeof(it));

    while (gcp_ctl_map_next(gc->keys, &it, &key, &v)) {
        gcp_ctl_map_del(gc->keys, key);
    }

    memset(&it, 0, sizeof(it));

    while (gcp_ctl_map_next(gc->uids, &it, &key, &v)) {
        gcp_ctl_map_del(gc->uids, key);
        gcp_gc_node_free(v);
    }
}
