
/*
 * The root CA publisher (root-ca-certificate-publisher-controller): every
 * namespace has the ConfigMap kube-root-ca.crt holding, under "ca.crt",
 * the CA clients should trust to reach the API server, with upstream's
 * description annotation; edits and deletions are undone.
 */

#include <stdlib.h>

#include "gcp_ctl_int.h"
#include "gcp_object.h"
#include "gcp_json.h"
#include "gcp_types.h"


#define GCP_CTL_ROOT_CA_NAME     "kube-root-ca.crt"
#define GCP_CTL_ROOT_CA_ANNOT    "kubernetes.io/description"
#define GCP_CTL_ROOT_CA_DESC                                                  \
    "Contains a CA bundle that can be used to verify the kube-apiserver "    \
    "when using internal endpoints such as the internal service IP or "      \
    "kubernetes.default.svc. No other usage is guaranteed across "           \
    "distributions of Kubernetes clusters."


static void
gcp_ctl_rootca_written(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    /* 403: the namespace is terminating; 409 fails: changed meanwhile */
    static const int  ok[] = { 200, 201, 403, 404, 0 };

    gcp_ctl_call_done(item, resp, ok, GCP_ECONFLICT);
}


/* Returns 1 when cm holds exactly our data and the annotation is set. */
static int
gcp_ctl_rootca_current(gcp_ctl_t *ctl, const json_t *cm)
{
    json_t      *data;
    const char  *desc;

    data = json_object_get(cm, "data");
    desc = json_string_value(json_object_get(
               json_object_get(json_object_get(cm, "metadata"),
                               "annotations"), GCP_CTL_ROOT_CA_ANNOT));

    return json_object_size(data) == 1
           && json_is_string(json_object_get(data, "ca.crt"))
           && strcmp(json_string_value(json_object_get(data, "ca.crt")),
                     ctl->conf->root_ca) == 0
           && desc && desc[0];
}


static void
gcp_ctl_rootca_got(gcp_ctl_item_t *item, int rc, const gcp_kv_t *kv)
{
    char            *body;
    json_t          *cm, *annotations;
    gcp_ctl_base_t  *pub = item->ctx;
    gcp_ctl_t       *ctl = pub->ctl;
    const char      *path;

    if (rc != GCP_OK) {
        gcp_ctl_queue_done(item, rc, 0);
        return;
    }

    path = gcp_ctl_path(item->arena, &gcp_type_configmaps, item->key);

    if (kv == NULL) {
        cm = json_pack("{s:{s:s, s:{s:s}}, s:{s:s}}",
                       "metadata", "name", GCP_CTL_ROOT_CA_NAME,
                       "annotations", GCP_CTL_ROOT_CA_ANNOT,
                       GCP_CTL_ROOT_CA_DESC,
                       "data", "ca.crt", ctl->conf->root_ca);

    } else {
        cm = gcp_object_decode(item->arena, kv->value, kv->mod_revision);

        if (cm == NULL || gcp_ctl_rootca_current(ctl, cm)) {
            gcp_ctl_queue_done(item, GCP_OK, 0);
            return;
        }

        json_incref(cm);

        annotations = gcp_json_object_child(gcp_meta(cm), "annotations");
        json_object_set_new(annotations, GCP_CTL_ROOT_CA_ANNOT,
                            json_string(GCP_CTL_ROOT_CA_DESC));
        json_object_set_new(cm, "data",
                            json_pack("{s:s}", "ca.crt",
                                      ctl->conf->root_ca));

        path = gcp_sprintf(item->arena, "%s/%s", path, GCP_CTL_ROOT_CA_NAME);
    }

    body = cm ? json_dumps(cm, JSON_COMPACT) : NULL;
    json_decref(cm);

    if (body == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_call(item, kv ? "PUT" : "POST", path, NULL,
                 gcp_strdup(item->arena, body), gcp_ctl_rootca_written);
    free(body);
}


static void
gcp_ctl_rootca_sync(gcp_ctl_item_t *item)
{
    gcp_ctl_base_get_active(item, &gcp_type_configmaps, GCP_CTL_ROOT_CA_NAME,
                            gcp_ctl_rootca_got);
}


static void *
gcp_ctl_rootca_create(gcp_ctl_t *ctl)
{
    return gcp_ctl_base_create(ctl, sizeof(gcp_ctl_base_t),
                               "root_ca_cert_publisher", 1,
                               gcp_ctl_rootca_sync);
}


static void
gcp_ctl_rootca_event(void *c, gcp_ctl_event_t *ev)
{
    gcp_ctl_base_t  *rc = c;

    if (ev->res == &gcp_type_namespaces) {
        if (ev->type != GCP_CTL_EV_DELETE) {
            gcp_ctl_queue_add(rc->queue, ev->name);
        }

        return;
    }

    if (ev->res == &gcp_type_configmaps && ev->type != GCP_CTL_EV_SYNC
        && strcmp(ev->name, GCP_CTL_ROOT_CA_NAME) == 0)
    {
        gcp_ctl_queue_add(rc->queue, ev->ns);
    }
}


const gcp_ctl_controller_t  gcp_ctl_root_ca_controller = {
    "root-ca-certificate-publisher-controller",
    GCP_CTL_ROOT_CA,
    gcp_ctl_rootca_create,
    gcp_ctl_rootca_event,
    NULL,
    gcp_ctl_base_synced,
    gcp_ctl_base_resync,
    gcp_ctl_base_stop,
    gcp_ctl_base_free,
};
