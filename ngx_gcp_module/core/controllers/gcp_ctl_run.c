
/*
 * One leadership term of the controllers (see gcp_ctl_int.h): the
 * informer feeding every controller, the namespaces seen, the periodic
 * resync, and the helpers syncs use to read the store and call the API.
 */

#include <stdlib.h>

#include "gcp_ctl_informer.h"
#include "gcp_json.h"
#include "gcp_object.h"


static const char * const  gcp_ctl_groups[] = {
    "system:masters", "system:authenticated", NULL
};

/* kube-controller-manager's identity; all-powerful, as the core's own */
const gcp_user_t  gcp_ctl_user = {
    "system:kube-controller-manager", "", gcp_ctl_groups, 2, NULL, 0
};


static const gcp_ctl_controller_t * const  gcp_ctl_all[] = {
    &gcp_ctl_namespace_controller,
    &gcp_ctl_gc_controller,
    &gcp_ctl_sa_controller,
    &gcp_ctl_root_ca_controller,
    &gcp_ctl_quota_controller,
    &gcp_ctl_cragg_controller,
    &gcp_ctl_apf_controller,
    &gcp_ctl_apisvc_controller,
    &gcp_ctl_apisvc_avail_controller,
    &gcp_ctl_authtrust_controller,
    &gcp_ctl_csr_signing_controller,
    &gcp_ctl_csr_cleaner_controller,
};


/* the API server's own (gcp_ctl_conf_t apiserver) */
static const gcp_ctl_controller_t * const  gcp_ctl_apiserver_all[] = {
    &gcp_ctl_crd_controller,
};


static void gcp_ctl_resync(void *arg);


static void
gcp_ctl_resync_schedule(gcp_ctl_t *ctl)
{
    uint64_t  ms;

    ms = ctl->conf->resync_ms ? ctl->conf->resync_ms : GCP_CTL_RESYNC_MS;

    ctl->resync = ctl->loop->timer_add(ctl->loop, ms, gcp_ctl_resync, ctl);
}


static void
gcp_ctl_resync(void *arg)
{
    size_t      i;
    gcp_ctl_t  *ctl = arg;

    ctl->resync = NULL;
    gcp_ctl_resync_schedule(ctl);

    if (!ctl->synced) {
        return;
    }

    for (i = 0; i < ctl->n; i++) {
        if (ctl->controllers[i]->resync) {
            ctl->controllers[i]->resync(ctl->state[i]);
        }
    }
}


static void
gcp_ctl_free(gcp_ctl_t *ctl)
{
    size_t    i;
    void     *v;
    const char          *key;
    gcp_ctl_map_iter_t   it;

    for (i = 0; i < ctl->n; i++) {
        ctl->controllers[i]->free(ctl->state[i]);
    }

    gcp_ctl_informer_free(ctl->informer);

    if (ctl->namespaces) {
        memset(&it, 0, sizeof(it));

        while (gcp_ctl_map_next(ctl->namespaces, &it, &key, &v)) {
            free(v);
        }

        gcp_ctl_map_free(ctl->namespaces);
    }

    if (ctl->released) {
        ctl->released(ctl->released_arg);
    }

    free(ctl);
}


gcp_ctl_t *
gcp_ctl_run_start(gcp_api_t *api, const gcp_ctl_conf_t *conf)
{
    size_t                               i, nall;
    void                                *st;
    gcp_ctl_t                           *ctl;
    const gcp_ctl_controller_t * const  *all;

    ctl = calloc(1, sizeof(gcp_ctl_t));
    if (ctl == NULL) {
        return NULL;
    }

    ctl->api = api;
    ctl->store = api->store;
    ctl->loop = api->conf.loop;
    ctl->conf = conf;
    ctl->refs = 1;

    ctl->namespaces = gcp_ctl_map_create();
    if (ctl->namespaces == NULL) {
        gcp_ctl_free(ctl);
        return NULL;
    }

    all = conf->apiserver ? gcp_ctl_apiserver_all : gcp_ctl_all;
    nall = conf->apiserver ? gcp_nelems(gcp_ctl_apiserver_all)
                           : gcp_nelems(gcp_ctl_all);

    for (i = 0; i < nall; i++) {
        if (!conf->apiserver && (conf->off & all[i]->bit)) {
            continue;
        }

        if (all[i]->bit == GCP_CTL_ROOT_CA && conf->root_ca == NULL) {
            continue;
        }

        st = all[i]->create(ctl);
        if (st == NULL) {
            gcp_ctl_free(ctl);
            return NULL;
        }

        ctl->controllers[ctl->n] = all[i];
        ctl->state[ctl->n] = st;
        ctl->n++;
    }

    ctl->informer = gcp_ctl_informer_start(ctl);
    gcp_ctl_resync_schedule(ctl);

    if (ctl->informer == NULL || ctl->resync == NULL) {
        gcp_ctl_run_stop(ctl, NULL, NULL);
        return NULL;
    }

    return ctl;
}


void
gcp_ctl_run_stop(gcp_ctl_t *ctl, void (*released)(void *arg), void *arg)
{
    size_t  i;

    ctl->stopped = 1;
    ctl->released = released;
    ctl->released_arg = arg;

    if (ctl->resync) {
        ctl->loop->timer_del(ctl->loop, ctl->resync);
        ctl->resync = NULL;
    }

    gcp_ctl_informer_stop(ctl->informer);

    for (i = 0; i < ctl->n; i++) {
        if (ctl->controllers[i]->stop) {
            ctl->controllers[i]->stop(ctl->state[i]);
        }
    }

    gcp_ctl_unref(ctl);
}


void
gcp_ctl_ref(gcp_ctl_t *ctl)
{
    ctl->refs++;
}


void
gcp_ctl_unref(gcp_ctl_t *ctl)
{
    if (--ctl->refs == 0) {
        gcp_ctl_free(ctl);
    }
}


/* events */


/* Keeps the namespaces map in step with namespace events. */
static void
gcp_ctl_track_namespace(gcp_ctl_t *ctl, gcp_ctl_event_t *ev)
{
    json_t        *obj;
    gcp_ctl_ns_t  *ns;

    if (ev->type == GCP_CTL_EV_DELETE) {
        free(gcp_ctl_map_del(ctl->namespaces, ev->name));
        return;
    }

    ns = gcp_ctl_map_get(ctl->namespaces, ev->name);

    if (ns == NULL) {
        ns = calloc(1, sizeof(gcp_ctl_ns_t));

        if (ns == NULL
            || gcp_ctl_map_put(ctl->namespaces, ev->name, ns) != GCP_OK)
        {
            free(ns);
            return;
        }
    }

    obj = gcp_ctl_event_obj(ev);
    ns->terminating = obj && gcp_meta_str(obj, "deletionTimestamp")[0];
}


void
gcp_ctl_dispatch(gcp_ctl_t *ctl, gcp_ctl_event_t *ev)
{
    size_t  i;

    if (ctl->stopped) {
        return;
    }

    if (ev->res->namespaced == 0
        && strcmp(ev->res->storage, "namespaces") == 0)
    {
        gcp_ctl_track_namespace(ctl, ev);
    }

    for (i = 0; i < ctl->n; i++) {
        if (ctl->controllers[i]->event) {
            ctl->controllers[i]->event(ctl->state[i], ev);
        }
    }
}


void
gcp_ctl_dispatch_relist(gcp_ctl_t *ctl)
{
    size_t  i;

    if (ctl->stopped) {
        return;
    }

    ctl->synced = 0;

    for (i = 0; i < ctl->n; i++) {
        if (ctl->controllers[i]->relist) {
            ctl->controllers[i]->relist(ctl->state[i]);
        }
    }
}


void
gcp_ctl_dispatch_synced(gcp_ctl_t *ctl)
{
    size_t  i;

    if (ctl->stopped) {
        return;
    }

    ctl->synced = 1;

    for (i = 0; i < ctl->n; i++) {
        if (ctl->controllers[i]->synced) {
            ctl->controllers[i]->synced(ctl->state[i]);
        }
    }
}


json_t *
gcp_ctl_event_obj(gcp_ctl_event_t *ev)
{
    if (!ev->decoded) {
        ev->decoded = 1;

        if (ev->value.len) {
            ev->obj = gcp_object_decode(ev->arena, ev->value, 0);
        }
    }

    return ev->obj;
}


json_t *
gcp_ctl_event_prev(gcp_ctl_event_t *ev)
{
    if (!ev->prev_decoded) {
        ev->prev_decoded = 1;

        if (ev->prev.len) {
            ev->prev_obj = gcp_object_decode(ev->arena, ev->prev, 0);
        }
    }

    return ev->prev_obj;
}


const gcp_ctl_ns_t *
gcp_ctl_namespace(gcp_ctl_t *ctl, const char *name)
{
    return gcp_ctl_map_get(ctl->namespaces, name);
}


const gcp_resource_t *
gcp_ctl_resource_of_kind(gcp_ctl_t *ctl, const char *api_version,
    const char *kind)
{
    size_t                  i, glen;
    const char             *slash, *group, *version;
    const gcp_resource_t   *res;
    const gcp_registry_t   *reg = ctl->api->registry;

    slash = strchr(api_version, '/');
    group = slash ? api_version : "";
    glen = slash ? (size_t) (slash - api_version) : 0;
    version = slash ? slash + 1 : api_version;

    for (i = 0; i < reg->n; i++) {
        res = reg->resources[i];

        if (strcmp(res->kind, kind) == 0
            && strlen(res->group) == glen
            && strncmp(res->group, group, glen) == 0
            && strcmp(res->version, version) == 0)
        {
            return res;
        }
    }

    return NULL;
}


const char *
gcp_ctl_path(gcp_arena_t *a, const gcp_resource_t *res, const char *ns)
{
    const char  *base;

    base = res->group[0] ? gcp_sprintf(a, "/apis/%s/%s", res->group,
                                       res->version)
                         : gcp_sprintf(a, "/api/%s", res->version);

    if (base == NULL) {
        return NULL;
    }

    if (res->namespaced && ns && ns[0]) {
        return gcp_sprintf(a, "%s/namespaces/%s/%s", base, ns, res->name);
    }

    return gcp_sprintf(a, "%s/%s", base, res->name);
}


/* sync helpers */


typedef struct {
    gcp_ctl_item_t    *item;
    gcp_ctl_call_pt    call;
    gcp_ctl_get_pt     get;
    gcp_ctl_object_pt  object;
    gcp_ctl_range_pt   range;
} gcp_ctl_op_t;


static void
gcp_ctl_called(void *arg, gcp_client_resp_t *resp)
{
    gcp_ctl_op_t  *o = arg;

    o->call(o->item, resp);
}


void
gcp_ctl_call(gcp_ctl_item_t *item, const char *method, const char *path,
    const char *content_type, const char *body, gcp_ctl_call_pt done)
{
    gcp_ctl_op_t       *o;
    gcp_client_resp_t   r;
    gcp_ctl_queue_t    *q = item->queue;

    o = gcp_calloc(item->arena, sizeof(gcp_ctl_op_t));

    if (o == NULL || path == NULL) {
        memset(&r, 0, sizeof(r));
        done(item, &r);
        return;
    }

    o->item = item;
    o->call = done;

    gcp_client_call(gcp_ctl_queue_run(q)->api, item->arena, method, path,
                    content_type, body, &gcp_ctl_user, gcp_ctl_called, o);
}


void
gcp_ctl_call_done(gcp_ctl_item_t *item, const gcp_client_resp_t *resp,
    const int *ok, int fail)
{
    for ( /* void */ ; *ok; ok++) {
        if (resp->status == *ok) {
            gcp_ctl_queue_done(item, GCP_OK, 0);
            return;
        }
    }

    gcp_ctl_queue_done(item, fail, 0);
}


static void
gcp_ctl_got(void *arg, gcp_store_result_t *res)
{
    int              rc;
    gcp_ctl_op_t    *o = arg;
    const gcp_kv_t  *kv;

    if (res->rc == GCP_ENOTFOUND || (res->rc == GCP_OK && res->nkvs == 0)) {
        rc = GCP_OK;
        kv = NULL;

    } else {
        rc = res->rc;
        kv = rc == GCP_OK ? &res->kvs[0] : NULL;
    }

    if (o->get) {
        o->get(o->item, rc, kv);
        return;
    }

    if (kv == NULL) {
        gcp_ctl_queue_done(o->item, rc, 0);
        return;
    }

    o->object(o->item, gcp_object_decode(o->item->arena, kv->value,
                                         kv->mod_revision));
}


/* gcp_ctl_get() with get, or gcp_ctl_get_object() with object. */
static void
gcp_ctl_get_op(gcp_ctl_item_t *item, gcp_str_t key, gcp_ctl_get_pt get,
    gcp_ctl_object_pt object)
{
    gcp_ctl_op_t  *o;

    o = gcp_calloc(item->arena, sizeof(gcp_ctl_op_t));
    if (o == NULL) {
        if (get) {
            get(item, GCP_ENOMEM, NULL);

        } else {
            gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        }

        return;
    }

    o->item = item;
    o->get = get;
    o->object = object;

    gcp_store_get(gcp_ctl_queue_run(item->queue)->store, key, 0,
                  item->arena, gcp_ctl_got, o);
}


void
gcp_ctl_get(gcp_ctl_item_t *item, gcp_str_t key, gcp_ctl_get_pt done)
{
    gcp_ctl_get_op(item, key, done, NULL);
}


void
gcp_ctl_get_object(gcp_ctl_item_t *item, gcp_str_t key,
    gcp_ctl_object_pt done)
{
    gcp_ctl_get_op(item, key, NULL, done);
}


static void
gcp_ctl_ranged(void *arg, gcp_store_result_t *res)
{
    gcp_ctl_op_t  *o = arg;

    o->range(o->item, res);
}


void
gcp_ctl_range(gcp_ctl_item_t *item, gcp_str_t prefix, int count_only,
    gcp_ctl_range_pt done)
{
    gcp_ctl_op_t        *o;
    gcp_store_result_t   res;
    gcp_str_t            end;

    o = gcp_calloc(item->arena, sizeof(gcp_ctl_op_t));
    end = gcp_store_prefix_end(item->arena, prefix);

    if (o == NULL || end.len == 0) {
        memset(&res, 0, sizeof(res));
        res.rc = GCP_ENOMEM;
        done(item, &res);
        return;
    }

    o->item = item;
    o->range = done;

    gcp_store_range(gcp_ctl_queue_run(item->queue)->store, prefix, end, 0, 0,
                    count_only, item->arena, gcp_ctl_ranged, o);
}


const char *
gcp_ctl_json_str(gcp_arena_t *a, const char *s)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    gcp_json_add_string(&b, s, strlen(s));

    return gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);
}
