
/*
 * The resource quota controller (resourcequota-controller): keeps every
 * ResourceQuota's status current, status.hard = spec.hard and status.used
 * the objects counted in the namespace for each resource name of hard
 * (gcp_ctl_quota.h).  A quota is recomputed when its spec changes, when
 * objects of its namespace are deleted (the admission plugin charges
 * creates itself), and periodically.  The status is written with the
 * resourceVersion read, so that a charge by the admission plugin in
 * between makes it start over.
 */

#include <stdlib.h>

#include "gcp_ctl_int.h"
#include "gcp_quota.h"
#include "gcp_object.h"
#include "gcp_quantity.h"
#include "gcp_types.h"


#define GCP_CTL_QUOTA_WORKERS  5        /* --concurrent-resource-quota- */
                                        /* syncs */


typedef struct {
    gcp_ctl_base_t    base;             /* first: the controller's */
    gcp_ctl_map_t    *namespaces;       /* ns -> map of quota names */
} gcp_ctl_quota_t;


typedef struct {
    gcp_ctl_item_t   *item;
    const char       *ns;
    json_t           *quota;            /* as read (arena) */
    json_t           *hard;
    json_t           *used;             /* the new status.used */
    const char      **keys;
    gcp_ctl_steps_t   steps;            /* a key of hard each */
    unsigned          scoped:1;
} gcp_ctl_qsync_t;


/* When a quota in sync is counted again. */
static uint64_t
gcp_ctl_quota_period(const gcp_ctl_item_t *item)
{
    const gcp_ctl_quota_t  *qc = item->ctx;

    return qc->base.ctl->conf->quota_resync_ms
           ? qc->base.ctl->conf->quota_resync_ms : GCP_CTL_QUOTA_SYNC_MS;
}


static void
gcp_ctl_quota_written(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    if (resp->status == 200) {
        gcp_ctl_queue_done(item, GCP_OK, gcp_ctl_quota_period(item));
        return;
    }

    if (resp->status == 404) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    /* 409: charged or changed meanwhile: count again */
    gcp_ctl_queue_done(item, GCP_ECONFLICT, 0);
}


/* The last step: every key is counted; the status is written. */
static void
gcp_ctl_quota_finish(void *data)
{
    char             *body;
    json_t           *status;
    gcp_ctl_qsync_t  *st = data;

    status = gcp_json_arena(st->item->arena, json_object());
    if (status == NULL) {
        gcp_ctl_queue_done(st->item, GCP_ENOMEM, 0);
        return;
    }

    if (json_object_size(st->hard)) {
        json_object_set(status, "hard", st->hard);
    }

    if (json_object_size(st->used)) {
        json_object_set(status, "used", st->used);
    }

    if (json_equal(status, json_object_get(st->quota, "status"))) {
        gcp_ctl_queue_done(st->item, GCP_OK,
                           gcp_ctl_quota_period(st->item));
        return;
    }

    json_object_set(st->quota, "status", status);

    body = json_dumps(st->quota, JSON_COMPACT);
    if (body == NULL) {
        gcp_ctl_queue_done(st->item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_call(st->item, "PUT",
                 gcp_sprintf(st->item->arena, "%s/%s/status",
                             gcp_ctl_path(st->item->arena,
                                          &gcp_type_resourcequotas, st->ns),
                             gcp_meta_str(st->quota, "name")),
                 NULL, gcp_strdup(st->item->arena, body),
                 gcp_ctl_quota_written);
    free(body);
}


static void
gcp_ctl_quota_counted_cb(gcp_ctl_item_t *item, gcp_store_result_t *res)
{
    gcp_quantity_t    q;
    gcp_ctl_qsync_t  *st = item->data;

    if (res->rc == GCP_OK) {
        gcp_quantity_set_int(&q, res->count);
        json_object_set_new(st->used, st->keys[st->steps.next],
                            gcp_quantity_json(&q));
    }

    st->steps.next++;
    gcp_ctl_steps_run(&st->steps);
}


/*
 * A step: one hard resource name, steps.next; count its objects if a
 * served resource has it.
 */
static void
gcp_ctl_quota_step(void *data)
{
    gcp_quantity_t          zero;
    gcp_ctl_qsync_t        *st = data;
    const gcp_resource_t   *res;
    gcp_ctl_t              *ctl = gcp_ctl_queue_run(st->item->queue);

    res = gcp_quota_counted(ctl->api->registry, st->keys[st->steps.next]);

    if (res == NULL) {
        /* no evaluator: the last usage seen, if any, stays */
        st->steps.next++;
        gcp_ctl_steps_run(&st->steps);
        return;
    }

    if (st->scoped) {
        gcp_quantity_set_int(&zero, 0);
        json_object_set_new(st->used, st->keys[st->steps.next],
                            gcp_quantity_json(&zero));
        st->steps.next++;
        gcp_ctl_steps_run(&st->steps);
        return;
    }

    gcp_ctl_range(st->item, gcp_object_prefix(st->item->arena, res, st->ns),
                  1, gcp_ctl_quota_counted_cb);
}


static void
gcp_ctl_quota_got(gcp_ctl_item_t *item, json_t *obj)
{
    size_t            i;
    json_t           *v, *old_used;
    const char       *key;
    gcp_ctl_qsync_t  *st = item->data;

    st->quota = obj;
    st->used = gcp_json_arena(item->arena, json_object());

    if (st->quota == NULL || st->used == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    st->hard = json_object_get(json_object_get(st->quota, "spec"), "hard");

    if (!json_is_object(st->hard)) {
        st->hard = gcp_json_arena(item->arena, json_object());
    }

    st->scoped = gcp_quota_scoped(st->quota);
    st->keys = gcp_alloc(item->arena,
                         (json_object_size(st->hard) + 1) * sizeof(char *));

    if (st->hard == NULL || st->keys == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    /* the usage last observed is kept for names nothing counts */

    old_used = json_object_get(json_object_get(st->quota, "status"), "used");
    i = 0;

    json_object_foreach(st->hard, key, v) {
        st->keys[i++] = key;

        if (json_object_get(old_used, key)) {
            json_object_set(st->used, key, json_object_get(old_used, key));
        }
    }

    gcp_ctl_steps_start(&st->steps, item, i, gcp_ctl_quota_step,
                        gcp_ctl_quota_finish, st);
}


static void
gcp_ctl_quota_sync(gcp_ctl_item_t *item)
{
    char             *slash;
    gcp_ctl_qsync_t  *st;

    st = gcp_calloc(item->arena, sizeof(gcp_ctl_qsync_t));
    slash = strchr(item->key, '/');

    if (st == NULL || slash == NULL) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    st->item = item;
    st->ns = gcp_strndup(item->arena, item->key,
                         (size_t) (slash - item->key));
    item->data = st;

    gcp_ctl_get_object(item, gcp_object_key(item->arena,
                                            &gcp_type_resourcequotas,
                                            st->ns, slash + 1),
                       gcp_ctl_quota_got);
}


/* the quotas of each namespace */


static void
gcp_ctl_quota_track(gcp_ctl_quota_t *qc, const char *ns, const char *name,
    int present)
{
    gcp_ctl_map_t  *set;

    set = gcp_ctl_map_get(qc->namespaces, ns);

    if (!present) {
        if (set) {
            gcp_ctl_map_del(set, name);

            if (gcp_ctl_map_size(set) == 0) {
                gcp_ctl_map_del(qc->namespaces, ns);
                gcp_ctl_map_free(set);
            }
        }

        return;
    }

    if (set == NULL) {
        set = gcp_ctl_map_create();

        if (set == NULL || gcp_ctl_map_put(qc->namespaces, ns, set)) {
            gcp_ctl_map_free(set);
            return;
        }
    }

    gcp_ctl_map_put(set, name, qc);
}


static void
gcp_ctl_quota_add(gcp_ctl_quota_t *qc, const char *ns, const char *name)
{
    char  key[512];

    if (snprintf(key, sizeof(key), "%s/%s", ns, name) < (int) sizeof(key)) {
        gcp_ctl_queue_add(qc->base.queue, key);
    }
}


/* Does the quota's status miss anything its spec asks for? */
static int
gcp_ctl_quota_stale(const json_t *obj, const json_t *prev)
{
    json_t        *v;
    const char    *key;
    const json_t  *hard, *status, *used;

    hard = json_object_get(json_object_get(obj, "spec"), "hard");
    status = json_object_get(obj, "status");
    used = json_object_get(status, "used");

    if (prev && !json_equal((json_t *) hard,
                            json_object_get(json_object_get(prev, "spec"),
                                            "hard")))
    {
        return 1;
    }

    if (json_object_size(hard)
        && !json_equal((json_t *) hard, json_object_get(status, "hard")))
    {
        return 1;
    }

    json_object_foreach((json_t *) hard, key, v) {
        if (json_object_get(used, key) == NULL) {
            return 1;
        }
    }

    return 0;
}


static void
gcp_ctl_quota_event(void *c, gcp_ctl_event_t *ev)
{
    void                *v;
    json_t              *obj;
    const char          *name;
    gcp_ctl_map_t       *set;
    gcp_ctl_quota_t     *qc = c;
    gcp_ctl_map_iter_t   it;

    if (ev->res == &gcp_type_resourcequotas) {
        gcp_ctl_quota_track(qc, ev->ns, ev->name,
                            ev->type != GCP_CTL_EV_DELETE);

        if (ev->type == GCP_CTL_EV_SYNC) {
            gcp_ctl_quota_add(qc, ev->ns, ev->name);
            return;
        }

        if (ev->type == GCP_CTL_EV_PUT) {
            obj = gcp_ctl_event_obj(ev);

            if (obj && gcp_ctl_quota_stale(obj, gcp_ctl_event_prev(ev))) {
                gcp_ctl_quota_add(qc, ev->ns, ev->name);
            }

            return;
        }
    }

    /* a deletion frees quota (replenishment) */

    if (ev->type != GCP_CTL_EV_DELETE || !ev->res->namespaced) {
        return;
    }

    set = gcp_ctl_map_get(qc->namespaces, ev->ns);
    if (set == NULL) {
        return;
    }

    memset(&it, 0, sizeof(it));

    while (gcp_ctl_map_next(set, &it, &name, &v)) {
        gcp_ctl_quota_add(qc, ev->ns, name);
    }
}


static void *
gcp_ctl_quota_create(gcp_ctl_t *ctl)
{
    gcp_ctl_quota_t  *qc;

    qc = gcp_ctl_base_create(ctl, sizeof(gcp_ctl_quota_t), "resourcequota",
                             GCP_CTL_QUOTA_WORKERS, gcp_ctl_quota_sync);
    if (qc == NULL) {
        return NULL;
    }

    qc->namespaces = gcp_ctl_map_create();
    if (qc->namespaces == NULL) {
        gcp_ctl_base_free(qc);
        return NULL;
    }

    return qc;
}


static void
gcp_ctl_quota_forget(gcp_ctl_quota_t *qc)
{
    void                *v;
    const char          *ns;
    gcp_ctl_map_iter_t   it;

    memset(&it, 0, sizeof(it));

    while (gcp_ctl_map_next(qc->namespaces, &it, &ns, &v)) {
        gcp_ctl_map_free(v);
        gcp_ctl_map_del(qc->namespaces, ns);
    }
}


static void
gcp_ctl_quota_relist(void *c)
{
    gcp_ctl_quota_forget(c);
}


static void
gcp_ctl_quota_free(void *c)
{
    gcp_ctl_quota_t  *qc = c;

    gcp_ctl_quota_forget(qc);
    gcp_ctl_map_free(qc->namespaces);
    gcp_ctl_base_free(qc);
}


const gcp_ctl_controller_t  gcp_ctl_quota_controller = {
    "resourcequota-controller",
    GCP_CTL_QUOTA,
    gcp_ctl_quota_create,
    gcp_ctl_quota_event,
    gcp_ctl_quota_relist,
    gcp_ctl_base_synced,
    NULL,
    gcp_ctl_base_stop,
    gcp_ctl_quota_free,
};
