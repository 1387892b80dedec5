
/*
 * The service account controller (serviceaccount-controller): every active
 * namespace has a ServiceAccount named "default", created when a namespace
 * appears and again when it is deleted.
 */

#include <stdlib.h>

#include "gcp_ctl_int.h"
#include "gcp_object.h"
#include "gcp_types.h"


#define GCP_CTL_SA_WORKERS  5       /* --concurrent-serviceaccount-syncs */


typedef struct {
    gcp_ctl_t        *ctl;
    gcp_ctl_queue_t  *queue;
} gcp_ctl_sa_t;


static void
gcp_ctl_sa_created(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    /*
     * 409: it exists already; 403: the namespace is terminating; 404: it
     * is gone.  None is worth a retry.
     */

    switch (resp->status) {

    case 201:
    case 403:
    case 404:
    case 409:
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;

    default:
        gcp_ctl_queue_done(item, GCP_EUNAVAILABLE, 0);
    }
}


static void
gcp_ctl_sa_got(gcp_ctl_item_t *item, int rc, const gcp_kv_t *kv)
{
    if (rc != GCP_OK) {
        gcp_ctl_queue_done(item, rc, 0);
        return;
    }

    if (kv) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    gcp_ctl_call(item, "POST",
                 gcp_ctl_path(item->arena, &gcp_type_serviceaccounts,
                              item->key),
                 NULL, "{\"metadata\":{\"name\":\"default\"}}",
                 gcp_ctl_sa_created);
}


static void
gcp_ctl_sa_sync(gcp_ctl_item_t *item)
{
    gcp_ctl_sa_t        *sa = item->ctx;
    const gcp_ctl_ns_t  *ns;

    ns = gcp_ctl_namespace(sa->ctl, item->key);

    if (ns == NULL || ns->terminating) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    gcp_ctl_get(item, gcp_object_key(item->arena, &gcp_type_serviceaccounts,
                                     item->key, "default"),
                gcp_ctl_sa_got);
}


static void *
gcp_ctl_sa_create(gcp_ctl_t *ctl)
{
    gcp_ctl_sa_t  *sa;

    sa = calloc(1, sizeof(gcp_ctl_sa_t));
    if (sa == NULL) {
        return NULL;
    }

    sa->ctl = ctl;
    sa->queue = gcp_ctl_queue_create(ctl, "serviceaccount",
                                     GCP_CTL_SA_WORKERS, gcp_ctl_sa_sync,
                                     sa);
    if (sa->queue == NULL) {
        free(sa);
        return NULL;
    }

    return sa;
}


static void
gcp_ctl_sa_event(void *c, gcp_ctl_event_t *ev)
{
    gcp_ctl_sa_t  *sa = c;

    if (ev->res == &gcp_type_namespaces) {
        if (ev->type != GCP_CTL_EV_DELETE) {
            gcp_ctl_queue_add(sa->queue, ev->name);
        }

        return;
    }

    if (ev->res == &gcp_type_serviceaccounts && ev->type == GCP_CTL_EV_DELETE
        && strcmp(ev->name, "default") == 0)
    {
        gcp_ctl_queue_add(sa->queue, ev->ns);
    }
}


static void
gcp_ctl_sa_synced(void *c)
{
    gcp_ctl_sa_t  *sa = c;

    gcp_ctl_queue_start(sa->queue);
}


static void
gcp_ctl_sa_resync(void *c)
{
    void                *v;
    const char          *name;
    gcp_ctl_sa_t        *sa = c;
    gcp_ctl_map_iter_t   it;

    memset(&it, 0, sizeof(it));

    while (gcp_ctl_map_next(sa->ctl->namespaces, &it, &name, &v)) {
        gcp_ctl_queue_add(sa->queue, name);
    }
}


static void
gcp_ctl_sa_stop(void *c)
{
    gcp_ctl_sa_t  *sa = c;

    gcp_ctl_queue_stop(sa->queue);
}


static void
gcp_ctl_sa_free(void *c)
{
    gcp_ctl_sa_t  *sa = c;

    gcp_ctl_queue_free(sa->queue);
    free(sa);
}


const gcp_ctl_controller_t  gcp_ctl_sa_controller = {
    "serviceaccount-controller",
    GCP_CTL_SERVICEACCOUNT,
    gcp_ctl_sa_create,
    gcp_ctl_sa_event,
    NULL,
    gcp_ctl_sa_synced,
    gcp_ctl_sa_resync,
    gcp_ctl_sa_stop,
    gcp_ctl_sa_free,
};
