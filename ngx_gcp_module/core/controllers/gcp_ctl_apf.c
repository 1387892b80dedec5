
/*
 * The priority and fairness configuration controller: what
 * kube-apiserver's own API Priority and Fairness controllers keep.
 *
 *   - every FlowSchema has the condition Dangling: True (reason NotFound)
 *     when its PriorityLevelConfiguration does not exist, else False
 *     (Found), written through /status when it changes;
 *   - the bootstrap configuration is ensured at start and every minute
 *     (gcp_fc_bootstrap.h): missing objects are created, specs put back
 *     where upstream's ensurer would, and objects annotated for
 *     auto-update that are no longer part of it deleted.
 *
 * Queue keys: "fs/NAME" (a FlowSchema's condition), "ensure", and
 * "drop/KIND/NAME" (an unwanted object, KIND flowschemas or
 * prioritylevelconfigurations).
 */

#include <stdio.h>
#include <stdlib.h>

#include "gcp_ctl_int.h"
#include "gcp_fc_bootstrap.h"
#include "gcp_fc_types.h"
#include "gcp_json.h"
#include "gcp_object.h"
#include "gcp_time.h"


#define GCP_CTL_APF_WORKERS   1
#define GCP_CTL_APF_ENSURE_MS 60000
#define GCP_CTL_APF_API       "/apis/" GCP_FC_GROUP "/v1/"
#define GCP_CTL_APF_FS        "flowschemas"
#define GCP_CTL_APF_PL        "prioritylevelconfigurations"


typedef struct {
    gcp_ctl_base_t   base;
    gcp_ctl_map_t   *levels;        /* FlowSchema name -> its level's */
} gcp_ctl_apf_t;


typedef struct {
    gcp_ctl_item_t   *item;
    gcp_ctl_steps_t   steps;
    json_t           *fs;
    json_t           *boot;
    int               pl;
} gcp_ctl_apf_sync_t;


static gcp_str_t
gcp_ctl_apf_key(gcp_arena_t *a, const char *kind, const char *name)
{
    gcp_str_t  key;

    key.data = gcp_sprintf(a, "/registry/%s/%s/%s", GCP_FC_GROUP, kind,
                           name);
    key.len = key.data ? strlen(key.data) : 0;

    return key;
}


static const char *
gcp_ctl_apf_path(gcp_arena_t *a, const char *kind, const char *name,
    const char *sub)
{
    return gcp_sprintf(a, GCP_CTL_APF_API "%s%s%s%s%s", kind,
                       name ? "/" : "", name ? name : "",
                       sub ? "/" : "", sub ? sub : "");
}


/* Sends body (NULL: out of memory; a reference taken) as JSON. */

static void
gcp_ctl_apf_send(gcp_ctl_item_t *item, const char *method, const char *path,
    const char *content_type, json_t *body, gcp_ctl_call_pt done)
{
    char  *text;

    text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);

    if (text == NULL || path == NULL) {
        free(text);
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_call(item, method, path, content_type,
                 gcp_strdup(item->arena, text), done);
    free(text);
}


/* a FlowSchema's Dangling condition */


static void
gcp_ctl_apf_written(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    /* 404: the schema is gone; 409: changed meanwhile, again */
    static const int  ok[] = { 200, 404, 0 };

    gcp_ctl_call_done(item, resp, ok, GCP_ECONFLICT);
}


static json_t *
gcp_ctl_apf_condition(gcp_arena_t *a, const char *pl, int found)
{
    const char  *now;

    now = gcp_time_str(a, gcp_time_now().tv_sec);

    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", "Dangling",
                     "status", found ? "False" : "True",
                     "lastTransitionTime", now ? now : "",
                     "reason", found ? "Found" : "NotFound",
                     "message",
                     gcp_sprintf(a, found
                                 ? "This FlowSchema references the "
                                   "PriorityLevelConfiguration object named "
                                   "%s and it exists"
                                 : "This FlowSchema references the "
                                   "PriorityLevelConfiguration object named "
                                   "%s but there is no such object",
                                 gcp_go_quote(a, pl, strlen(pl))));
}


static int
gcp_ctl_apf_same(const json_t *cur, const json_t *want)
{
    static const char * const  keys[] = { "status", "reason", "message" };
    size_t  i;

    for (i = 0; i < gcp_nelems(keys); i++) {
        if (!json_equal(json_object_get(cur, keys[i]),
                        json_object_get(want, keys[i])))
        {
            return 0;
        }
    }

    return 1;
}


static void
gcp_ctl_apf_level_got(gcp_ctl_item_t *item, int rc, const gcp_kv_t *kv)
{
    size_t               i;
    json_t              *conds, *want, *c, *patch;
    const char          *pl, *name;
    gcp_ctl_apf_sync_t  *st = item->data;

    if (rc != GCP_OK) {
        gcp_ctl_queue_done(item, rc, 0);
        return;
    }

    pl = json_string_value(gcp_json_get(st->fs, "spec",
                                        "priorityLevelConfiguration", "name",
                                        NULL));
    want = gcp_json_arena(item->arena,
                          gcp_ctl_apf_condition(item->arena, pl ? pl : "",
                                                kv != NULL));

    conds = gcp_json_arena(item->arena, json_array());

    if (want == NULL || conds == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    json_array_foreach(gcp_json_get(st->fs, "status", "conditions", NULL),
                       i, c)
    {
        if (json_is_string(json_object_get(c, "type"))
            && strcmp(json_string_value(json_object_get(c, "type")),
                      "Dangling") == 0)
        {
            if (gcp_ctl_apf_same(c, want)) {
                gcp_ctl_queue_done(item, GCP_OK, 0);
                return;
            }

            continue;
        }

        json_array_append(conds, c);
    }

    json_array_append(conds, want);

    name = gcp_meta_str(st->fs, "name");
    patch = json_pack("{s:{s:s}, s:{s:O}}", "metadata", "resourceVersion",
                      gcp_meta_str(st->fs, "resourceVersion"),
                      "status", "conditions", conds);

    gcp_ctl_apf_send(item, "PATCH",
                     gcp_ctl_apf_path(item->arena, GCP_CTL_APF_FS, name,
                                      "status"),
                     "application/merge-patch+json", patch,
                     gcp_ctl_apf_written);
}


static void
gcp_ctl_apf_fs_got(gcp_ctl_item_t *item, json_t *fs)
{
    const char          *pl;
    gcp_ctl_apf_sync_t  *st = item->data;

    if (fs == NULL) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    st->fs = fs;

    pl = json_string_value(gcp_json_get(fs, "spec",
                                        "priorityLevelConfiguration", "name",
                                        NULL));

    gcp_ctl_get(item, gcp_ctl_apf_key(item->arena, GCP_CTL_APF_PL,
                                      pl ? pl : ""),
                gcp_ctl_apf_level_got);
}


/* the ensurer */


static void
gcp_ctl_apf_ensured(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    gcp_ctl_apf_sync_t  *st = item->data;

    /* 409: someone else wrote it first; the next round looks again */
    if (resp->status == 0 || resp->status >= 500) {
        gcp_ctl_queue_done(item, GCP_EUNAVAILABLE, 0);
        return;
    }

    st->steps.next++;
    gcp_ctl_steps_run(&st->steps);
}


static void
gcp_ctl_apf_write(gcp_ctl_apf_sync_t *st, const char *method,
    const char *name, json_t *obj)
{
    gcp_ctl_item_t  *item = st->item;

    gcp_ctl_apf_send(item, method,
                     gcp_ctl_apf_path(item->arena,
                                      st->pl ? GCP_CTL_APF_PL
                                             : GCP_CTL_APF_FS,
                                      name, NULL),
                     NULL, obj, gcp_ctl_apf_ensured);
}


static void
gcp_ctl_apf_current(gcp_ctl_item_t *item, int rc, const gcp_kv_t *kv)
{
    json_t              *cur, *revised;
    const char          *name;
    gcp_ctl_apf_sync_t  *st = item->data;

    if (rc != GCP_OK) {
        gcp_ctl_queue_done(item, rc, 0);
        return;
    }

    name = gcp_meta_str(st->boot, "name");

    if (kv == NULL) {
        gcp_ctl_apf_write(st, "POST", NULL, json_incref(st->boot));
        return;
    }

    cur = gcp_object_decode(item->arena, kv->value, kv->mod_revision);

    if (cur == NULL) {
        gcp_ctl_queue_done(item, GCP_EINTERNAL, 0);
        return;
    }

    if (gcp_fc_ensure(st->pl, cur, &revised) == GCP_FC_UPDATE) {
        gcp_ctl_apf_write(st, "PUT", name, revised);
        return;
    }

    st->steps.next++;
    gcp_ctl_steps_run(&st->steps);
}


static void
gcp_ctl_apf_ensure_step(void *data)
{
    int                  mandatory;
    gcp_ctl_apf_sync_t  *st = data;

    st->boot = gcp_json_arena(st->item->arena,
                              gcp_fc_bootstrap_object(st->steps.next, &st->pl,
                                                      &mandatory));
    if (st->boot == NULL) {
        gcp_ctl_queue_done(st->item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_get(st->item,
                gcp_ctl_apf_key(st->item->arena,
                                st->pl ? GCP_CTL_APF_PL : GCP_CTL_APF_FS,
                                gcp_meta_str(st->boot, "name")),
                gcp_ctl_apf_current);
}


/* Objects annotated for auto-update that are not bootstrap ones go. */
static void
gcp_ctl_apf_listed(gcp_ctl_item_t *item, gcp_store_result_t *res)
{
    int                  pl;
    size_t               i, plen;
    json_t              *obj, *revised;
    const char          *kind, *rest;
    gcp_ctl_apf_t       *apf = item->ctx;

    if (res->rc != GCP_OK) {
        gcp_ctl_queue_done(item, res->rc, 0);
        return;
    }

    plen = sizeof("/registry/" GCP_FC_GROUP "/") - 1;

    for (i = 0; i < res->nkvs; i++) {
        rest = res->kvs[i].key.data + plen;
        pl = strncmp(rest, GCP_CTL_APF_PL "/", sizeof(GCP_CTL_APF_PL)) == 0;
        kind = pl ? GCP_CTL_APF_PL : GCP_CTL_APF_FS;

        obj = gcp_object_decode(item->arena, res->kvs[i].value,
                                res->kvs[i].mod_revision);

        if (obj && gcp_fc_ensure(pl, obj, &revised) == GCP_FC_DELETE) {
            gcp_ctl_queue_add(apf->base.queue,
                              gcp_sprintf(item->arena, "drop/%s/%s", kind,
                                          gcp_meta_str(obj, "name")));
        }
    }

    gcp_ctl_queue_done(item, GCP_OK, GCP_CTL_APF_ENSURE_MS);
}


static void
gcp_ctl_apf_ensure_last(void *data)
{
    gcp_str_t            prefix;
    gcp_ctl_apf_sync_t  *st = data;

    prefix.data = "/registry/" GCP_FC_GROUP "/";
    prefix.len = strlen(prefix.data);

    gcp_ctl_range(st->item, prefix, 0, gcp_ctl_apf_listed);
}


static void
gcp_ctl_apf_dropped(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    /* 404: gone already; 409: changed meanwhile, the next round decides */
    static const int  ok[] = { 200, 404, 409, 0 };

    gcp_ctl_call_done(item, resp, ok, GCP_EUNAVAILABLE);
}


static void
gcp_ctl_apf_drop_got(gcp_ctl_item_t *item, json_t *obj)
{
    json_t              *opts, *revised;
    const char          *kind;
    gcp_ctl_apf_sync_t  *st = item->data;

    if (obj == NULL || gcp_fc_ensure(st->pl, obj, &revised) != GCP_FC_DELETE)
    {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    kind = st->pl ? GCP_CTL_APF_PL : GCP_CTL_APF_FS;
    opts = json_pack("{s:{s:s, s:s}}", "preconditions",
                     "uid", gcp_meta_str(obj, "uid"),
                     "resourceVersion", gcp_meta_str(obj, "resourceVersion"));

    gcp_ctl_apf_send(item, "DELETE",
                     gcp_ctl_apf_path(item->arena, kind,
                                      gcp_meta_str(obj, "name"), NULL),
                     NULL, opts, gcp_ctl_apf_dropped);
}


static void
gcp_ctl_apf_sync(gcp_ctl_item_t *item)
{
    const char          *key = item->key, *name;
    gcp_ctl_apf_sync_t  *st;

    st = gcp_calloc(item->arena, sizeof(gcp_ctl_apf_sync_t));
    if (st == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    st->item = item;
    item->data = st;

    if (strncmp(key, "fs/", 3) == 0) {
        gcp_ctl_get_object(item, gcp_ctl_apf_key(item->arena, GCP_CTL_APF_FS,
                                                 key + 3),
                           gcp_ctl_apf_fs_got);
        return;
    }

    if (strncmp(key, "drop/", 5) == 0) {
        name = strchr(key + 5, '/');

        if (name == NULL) {
            gcp_ctl_queue_done(item, GCP_OK, 0);
            return;
        }

        st->pl = strncmp(key + 5, GCP_CTL_APF_PL "/",
                         sizeof(GCP_CTL_APF_PL)) == 0;

        gcp_ctl_get_object(item, gcp_ctl_apf_key(item->arena,
                                                 st->pl ? GCP_CTL_APF_PL
                                                        : GCP_CTL_APF_FS,
                                                 name + 1),
                           gcp_ctl_apf_drop_got);
        return;
    }

    gcp_ctl_steps_start(&st->steps, item, gcp_fc_bootstrap_count(),
                        gcp_ctl_apf_ensure_step, gcp_ctl_apf_ensure_last, st);
}


/* events */


static void *
gcp_ctl_apf_create(gcp_ctl_t *ctl)
{
    gcp_ctl_apf_t  *apf;

    apf = gcp_ctl_base_create(ctl, sizeof(gcp_ctl_apf_t),
                              "priority-and-fairness", GCP_CTL_APF_WORKERS,
                              gcp_ctl_apf_sync);
    if (apf == NULL) {
        return NULL;
    }

    apf->levels = gcp_ctl_map_create();
    if (apf->levels == NULL) {
        gcp_ctl_base_free(apf);
        return NULL;
    }

    return apf;
}


static void
gcp_ctl_apf_free(void *c)
{
    void                *v;
    const char          *key;
    gcp_ctl_apf_t       *apf = c;
    gcp_ctl_map_iter_t   it;

    memset(&it, 0, sizeof(it));

    while (gcp_ctl_map_next(apf->levels, &it, &key, &v)) {
        free(v);
    }

    gcp_ctl_map_free(apf->levels);
    gcp_ctl_base_free(apf);
}


/* Every FlowSchema of level pl (NULL: every one) to look at again. */
static void
gcp_ctl_apf_schemas_of(gcp_ctl_apf_t *apf, const char *pl)
{
    char                 key[300];
    void                *v;
    const char          *name;
    gcp_ctl_map_iter_t   it;

    memset(&it, 0, sizeof(it));

    while (gcp_ctl_map_next(apf->levels, &it, &name, &v)) {
        if ((pl == NULL || strcmp(v, pl) == 0)
            && snprintf(key, sizeof(key), "fs/%s", name)
               < (int) sizeof(key))
        {
            gcp_ctl_queue_add(apf->base.queue, key);
        }
    }
}


static void
gcp_ctl_apf_event(void *c, gcp_ctl_event_t *ev)
{
    char            *pl, key[300];
    json_t          *obj;
    const char      *ref;
    gcp_ctl_apf_t   *apf = c;

    if (ev->res == &gcp_type_prioritylevels) {
        /* created or deleted: its schemas' conditions change */
        if (ev->type != GCP_CTL_EV_PUT || ev->prev.len == 0) {
            gcp_ctl_apf_schemas_of(apf, ev->name);
        }

        return;
    }

    if (ev->res != &gcp_type_flowschemas) {
        return;
    }

    free(gcp_ctl_map_del(apf->levels, ev->name));

    if (ev->type != GCP_CTL_EV_DELETE) {
        obj = gcp_ctl_event_obj(ev);
        ref = json_string_value(gcp_json_get(obj, "spec",
                                             "priorityLevelConfiguration",
                                             "name", NULL));
        pl = strdup(ref ? ref : "");

        if (pl && gcp_ctl_map_put(apf->levels, ev->name, pl) != GCP_OK) {
            free(pl);
        }

        if (snprintf(key, sizeof(key), "fs/%s", ev->name)
            < (int) sizeof(key))
        {
            gcp_ctl_queue_add(apf->base.queue, key);
        }
    }
}


static void
gcp_ctl_apf_synced(void *c)
{
    gcp_ctl_apf_t  *apf = c;

    gcp_ctl_queue_add(apf->base.queue, "ensure");
    gcp_ctl_base_synced(c);
}


static void
gcp_ctl_apf_resync(void *c)
{
    gcp_ctl_apf_schemas_of(c, NULL);
}


const gcp_ctl_controller_t  gcp_ctl_apf_controller = {
    "priority-and-fairness-config",
    GCP_CTL_APF,
    gcp_ctl_apf_create,
    gcp_ctl_apf_event,
    NULL,
    gcp_ctl_apf_synced,
    gcp_ctl_apf_resync,
    gcp_ctl_base_stop,
    gcp_ctl_apf_free,
};
