
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


static void
gcp_ctl_sa_created(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    /*
     * 409: it exists already; 403: the namespace is terminating; 404: it
     * is gone.  None is worth a retry.
     */
    static const int  ok[] = { 201, 403, 404, 409, 0 };

    gcp_ctl_call_done(item, resp, ok, GCP_EUNAVAILABLE);
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
    gcp_ctl_base_get_active(item, &gcp_type_serviceaccounts, "default",
                            gcp_ctl_sa_got);
}


static void *
gcp_ctl_sa_create(gcp_ctl_t *ctl)
{
    return gcp_ctl_base_create(ctl, sizeof(gcp_ctl_base_t), "serviceaccount",
                               GCP_CTL_SA_WORKERS, gcp_ctl_sa_sync);
}


static void
gcp_ctl_sa_event(void *c, gcp_ctl_event_t *ev)
{
    gcp_ctl_base_t  *sa = c;

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


const gcp_ctl_controller_t  gcp_ctl_sa_controller = {
    "serviceaccount-controller",
    GCP_CTL_SERVICEACCOUNT,
    gcp_ctl_sa_create,
    gcp_ctl_sa_event,
    NULL,
    gcp_ctl_base_synced,
    gcp_ctl_base_resync,
    gcp_ctl_base_stop,
    gcp_ctl_base_free,
};
