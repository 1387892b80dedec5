
/*
 * The APIService registration controller (apiservice-registration-
 * controller): a local APIService (spec.service null) for every
 * group-version this server serves, as kube-apiserver's autoregistration
 * (built-in group-versions, label kube-aggregator.kubernetes.io/automanaged
 * "onstart": made right once per term, then left to the user until the
 * next one) and its CRD registration (custom resources' group-versions,
 * "true": kept exactly so, and deleted with the group-version).  The
 * aggregator's own group has no APIService.
 */

#include <stdlib.h>

#include "gcp_aggregator.h"
#include "gcp_ctl_int.h"
#include "gcp_object.h"


#define GCP_CTL_APISVC_ONSTART  "onstart"
#define GCP_CTL_APISVC_TRUE     "true"

/*
 * The queue's key (no APIService's name) whose sync looks at the
 * registry's generation every GCP_CTL_APISVC_POLL_MS: the custom
 * resources served change when this process's registry does, which may
 * be after the CustomResourceDefinition event.
 */
#define GCP_CTL_APISVC_SERVED   ""
#define GCP_CTL_APISVC_POLL_MS  1000


typedef struct {
    gcp_ctl_base_t      base;
    gcp_ctl_map_t      *seen;           /* name -> its label value */
    gcp_ctl_map_t      *done;           /* onstart ones made right */
    uint64_t            generation;     /* the registry's, last seen */
} gcp_ctl_apisvc_t;


/* What the APIService named name should be, when this server serves it. */
typedef struct {
    const char  *group;
    const char  *version;
    const char  *label;
    int          group_prio;
    int          version_prio;
} gcp_ctl_apisvc_want_t;


static int
gcp_ctl_apisvc_wanted(gcp_ctl_t *ctl, const char *name,
    gcp_ctl_apisvc_want_t *w)
{
    size_t                 i, len;
    const char            *dot;
    gcp_registry_t        *reg = ctl->api->registry;
    const gcp_resource_t  *r;

    dot = strchr(name, '.');
    if (dot == NULL) {
        return 0;
    }

    len = (size_t) (dot - name);

    for (i = 0; i < reg->n; i++) {
        r = reg->resources[i];

        if (strlen(r->version) != len || strncmp(r->version, name, len) != 0
            || strcmp(r->group, dot + 1) != 0
            || strcmp(r->group, GCP_APISVC_GROUP) == 0)
        {
            continue;
        }

        w->group = r->group;
        w->version = r->version;

        if (gcp_agg_builtin_priority(r->group, r->version, &w->group_prio,
                                     &w->version_prio))
        {
            w->label = GCP_CTL_APISVC_ONSTART;

        } else {
            w->label = GCP_CTL_APISVC_TRUE;
            w->group_prio = GCP_AGG_CRD_GROUP_PRIORITY;
            w->version_prio = GCP_AGG_CRD_VERSION_PRIORITY;
        }

        return 1;
    }

    return 0;
}


/* Adds the name of every group-version served. */
static void
gcp_ctl_apisvc_add_served(gcp_ctl_apisvc_t *as)
{
    size_t                 i;
    const char            *name;
    gcp_ctl_t             *ctl = as->base.ctl;
    gcp_registry_t        *reg = ctl->api->registry;
    const gcp_resource_t  *r;
    char                   buf[320];

    for (i = 0; i < reg->n; i++) {
        r = reg->resources[i];

        if (strcmp(r->group, GCP_APISVC_GROUP) == 0) {
            continue;
        }

        if ((size_t) snprintf(buf, sizeof(buf), "%s.%s", r->version,
                              r->group) < sizeof(buf))
        {
            name = buf;
            gcp_ctl_queue_add(as->base.queue, name);
        }
    }
}


static void
gcp_ctl_apisvc_written(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    static const int  ok[] = { 200, 201, 404, 0 };

    gcp_ctl_apisvc_t  *as = item->ctx;

    if (resp->status >= 200 && resp->status < 300) {
        (void) gcp_ctl_map_put(as->done, item->key, as);
    }

    gcp_ctl_call_done(item, resp, ok, GCP_ECONFLICT);
}


/* Returns 1 when obj is the APIService w describes. */
static int
gcp_ctl_apisvc_current(const json_t *obj, const gcp_ctl_apisvc_want_t *w)
{
    const char    *label;
    const json_t  *spec;

    spec = json_object_get(obj, "spec");
    label = json_string_value(json_object_get(
                json_object_get(json_object_get(obj, "metadata"), "labels"),
                GCP_APISVC_AUTOMANAGED));

    return label && strcmp(label, w->label) == 0
           && json_object_get(spec, "service") == NULL
           && json_object_get(spec, "caBundle") == NULL
           && !json_is_true(json_object_get(spec, "insecureSkipTLSVerify"))
           && strcmp(json_string_value(json_object_get(spec, "group"))
                     ?: "", w->group) == 0
           && strcmp(json_string_value(json_object_get(spec, "version"))
                     ?: "", w->version) == 0
           && json_integer_value(json_object_get(spec,
                                     "groupPriorityMinimum")) == w->group_prio
           && json_integer_value(json_object_get(spec, "versionPriority"))
              == w->version_prio;
}


/* The desired object; old (may be NULL) gives metadata to keep. */
static char *
gcp_ctl_apisvc_body(const json_t *old, const char *name,
    const gcp_ctl_apisvc_want_t *w)
{
    char    *s;
    json_t  *obj, *meta, *labels, *spec;

    obj = old ? json_deep_copy(old) : json_object();
    spec = json_object();

    if (obj == NULL || spec == NULL) {
        json_decref(obj);
        json_decref(spec);
        return NULL;
    }

    meta = gcp_json_object_child(obj, "metadata");
    labels = meta ? gcp_json_object_child(meta, "labels") : NULL;

    if (labels == NULL) {
        json_decref(obj);
        json_decref(spec);
        return NULL;
    }

    json_object_set_new(meta, "name", json_string(name));
    json_object_set_new(labels, GCP_APISVC_AUTOMANAGED, json_string(w->label));

    if (w->group[0]) {
        json_object_set_new(spec, "group", json_string(w->group));
    }

    json_object_set_new(spec, "version", json_string(w->version));
    json_object_set_new(spec, "groupPriorityMinimum",
                        json_integer(w->group_prio));
    json_object_set_new(spec, "versionPriority",
                        json_integer(w->version_prio));
    json_object_set_new(obj, "spec", spec);

    s = json_dumps(obj, JSON_COMPACT);
    json_decref(obj);

    return s;
}


static void
gcp_ctl_apisvc_got(gcp_ctl_item_t *item, int rc, const gcp_kv_t *kv)
{
    int                     want;
    char                   *body;
    json_t                 *obj;
    const char             *label, *path;
    gcp_ctl_apisvc_t       *as = item->ctx;
    gcp_ctl_apisvc_want_t   w;

    if (rc != GCP_OK) {
        gcp_ctl_queue_done(item, rc, 0);
        return;
    }

    want = gcp_ctl_apisvc_wanted(as->base.ctl, item->key, &w);
    obj = kv ? gcp_object_decode(item->arena, kv->value, kv->mod_revision)
             : NULL;
    path = gcp_ctl_path(item->arena, &gcp_type_apiservices, "");

    label = json_string_value(json_object_get(
                json_object_get(json_object_get(obj, "metadata"), "labels"),
                GCP_APISVC_AUTOMANAGED));

    if (!want) {
        /* ours, no longer served: deleted ("onstart": at the term start) */

        if (label && (strcmp(label, GCP_CTL_APISVC_TRUE) == 0
                      || (strcmp(label, GCP_CTL_APISVC_ONSTART) == 0
                          && gcp_ctl_map_get(as->done, item->key) == NULL)))
        {
            gcp_ctl_call(item, "DELETE",
                         gcp_sprintf(item->arena, "%s/%s", path, item->key),
                         NULL, NULL, gcp_ctl_apisvc_written);
            return;
        }

        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    if (obj && (gcp_ctl_apisvc_current(obj, &w)
                || (strcmp(w.label, GCP_CTL_APISVC_ONSTART) == 0
                    && gcp_ctl_map_get(as->done, item->key) != NULL)))
    {
        (void) gcp_ctl_map_put(as->done, item->key, as);
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    if (obj == NULL && kv) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    body = gcp_ctl_apisvc_body(obj, item->key, &w);
    if (body == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    if (obj) {
        gcp_ctl_call(item, "PUT",
                     gcp_sprintf(item->arena, "%s/%s", path, item->key),
                     NULL, gcp_strdup(item->arena, body),
                     gcp_ctl_apisvc_written);

    } else {
        gcp_ctl_call(item, "POST", path, NULL, gcp_strdup(item->arena, body),
                     gcp_ctl_apisvc_written);
    }

    free(body);
}


static void gcp_ctl_apisvc_resync(void *c);


static void
gcp_ctl_apisvc_sync(gcp_ctl_item_t *item)
{
    gcp_ctl_apisvc_t  *as = item->ctx;

    if (strcmp(item->key, GCP_CTL_APISVC_SERVED) == 0) {
        if (as->generation != as->base.ctl->api->registry->generation) {
            gcp_ctl_apisvc_resync(as);
        }

        gcp_ctl_queue_done(item, GCP_OK, GCP_CTL_APISVC_POLL_MS);
        return;
    }

    gcp_ctl_get(item, gcp_object_key(item->arena, &gcp_type_apiservices, "",
                                     item->key),
                gcp_ctl_apisvc_got);
}


static void *
gcp_ctl_apisvc_create(gcp_ctl_t *ctl)
{
    gcp_ctl_apisvc_t  *as;

    as = gcp_ctl_base_create(ctl, sizeof(gcp_ctl_apisvc_t),
                             "apiservice_registration", 1,
                             gcp_ctl_apisvc_sync);
    if (as == NULL) {
        return NULL;
    }

    as->seen = gcp_ctl_map_create();
    as->done = gcp_ctl_map_create();

    if (as->seen == NULL || as->done == NULL) {
        gcp_ctl_map_free(as->seen);
        gcp_ctl_map_free(as->done);
        gcp_ctl_base_free(as);
        return NULL;
    }

    return as;
}


static void
gcp_ctl_apisvc_event(void *c, gcp_ctl_event_t *ev)
{
    json_t            *obj;
    const char        *label;
    gcp_ctl_apisvc_t  *as = c;

    if (ev->res != &gcp_type_apiservices) {
        return;
    }

    obj = gcp_ctl_event_obj(ev);
    label = json_string_value(json_object_get(
                json_object_get(json_object_get(obj, "metadata"), "labels"),
                GCP_APISVC_AUTOMANAGED));

    if (ev->type == GCP_CTL_EV_DELETE || label == NULL) {
        (void) gcp_ctl_map_del(as->seen, ev->name);

    } else {
        (void) gcp_ctl_map_put(as->seen, ev->name, as);
    }

    if (ev->type != GCP_CTL_EV_SYNC) {
        gcp_ctl_queue_add(as->base.queue, ev->name);
    }
}


/* Every group-version served, and every automanaged APIService seen. */
static void
gcp_ctl_apisvc_resync(void *c)
{
    void                *v;
    const char          *name;
    gcp_ctl_apisvc_t    *as = c;
    gcp_ctl_map_iter_t   it;

    as->generation = as->base.ctl->api->registry->generation;
    gcp_ctl_apisvc_add_served(as);

    memset(&it, 0, sizeof(it));

    while (gcp_ctl_map_next(as->seen, &it, &name, &v)) {
        gcp_ctl_queue_add(as->base.queue, name);
    }
}


static void
gcp_ctl_apisvc_synced(void *c)
{
    gcp_ctl_apisvc_t  *as = c;

    gcp_ctl_apisvc_resync(as);
    gcp_ctl_queue_add(as->base.queue, GCP_CTL_APISVC_SERVED);
    gcp_ctl_base_synced(as);
}


static void
gcp_ctl_apisvc_free(void *c)
{
    gcp_ctl_apisvc_t  *as = c;

    gcp_ctl_map_free(as->seen);
    gcp_ctl_map_free(as->done);
    gcp_ctl_base_free(as);
}


const gcp_ctl_controller_t  gcp_ctl_apisvc_controller = {
    "apiservice-registration-controller",
    GCP_CTL_APISERVICE_REGISTRATION,
    gcp_ctl_apisvc_create,
    gcp_ctl_apisvc_event,
    NULL,
    gcp_ctl_apisvc_synced,
    gcp_ctl_apisvc_resync,
    gcp_ctl_base_stop,
    gcp_ctl_apisvc_free,
};
