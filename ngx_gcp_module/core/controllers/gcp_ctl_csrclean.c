
/*
 * The CSR cleaner (certificatesigningrequest-cleaner-controller,
 * pkg/controller/certificates/cleaner): requests are deleted once
 * gcp_csr_clean_due() says so.  Rather than upstream's hourly poll, each
 * request is looked at when it changes and again when it falls due; the
 * run's periodic resync looks at every one as well.
 */

#include <stdlib.h>

#include "gcp_csr.h"
#include "gcp_ctl_int.h"
#include "gcp_object.h"
#include "gcp_time.h"


#define GCP_CTL_CSRCLEAN_WORKERS  1


typedef struct {
    gcp_ctl_base_t   base;
    gcp_ctl_map_t   *names;         /* the requests seen */
} gcp_ctl_csrclean_t;


static void
gcp_ctl_csrclean_deleted(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    static const int  ok[] = { 200, 202, 404, 409, 0 };

    gcp_ctl_call_done(item, resp, ok, GCP_EUNAVAILABLE);
}


static void
gcp_ctl_csrclean_got(gcp_ctl_item_t *item, json_t *obj)
{
    char          *body;
    time_t         now, next;
    const char    *uid;

    if (obj == NULL) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    now = gcp_time_now().tv_sec;

    if (!gcp_csr_clean_due(item->arena, obj, now, &next)) {
        gcp_ctl_queue_done(item, GCP_OK,
                           next ? (uint64_t) (next - now) * 1000 : 0);
        return;
    }

    /* this very object: not one created again under its name */

    uid = gcp_meta_str(obj, "uid");

    body = gcp_sprintf(item->arena, "{\"kind\":\"DeleteOptions\","
                       "\"apiVersion\":\"v1\",\"preconditions\":"
                       "{\"uid\":\"%s\"}}", uid ? uid : "");
    if (body == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_call(item, "DELETE",
                 gcp_sprintf(item->arena, "%s/%s",
                             gcp_ctl_path(item->arena,
                                 &gcp_type_certificatesigningrequests, ""),
                             item->key),
                 NULL, body, gcp_ctl_csrclean_deleted);
}


static void
gcp_ctl_csrclean_sync(gcp_ctl_item_t *item)
{
    gcp_ctl_get_object(item,
                       gcp_object_key(item->arena,
                                      &gcp_type_certificatesigningrequests,
                                      "", item->key),
                       gcp_ctl_csrclean_got);
}


static void *
gcp_ctl_csrclean_create(gcp_ctl_t *ctl)
{
    gcp_ctl_csrclean_t  *c;

    c = gcp_ctl_base_create(ctl, sizeof(gcp_ctl_csrclean_t), "csrcleaner",
                            GCP_CTL_CSRCLEAN_WORKERS, gcp_ctl_csrclean_sync);
    if (c == NULL) {
        return NULL;
    }

    c->names = gcp_ctl_map_create();

    if (c->names == NULL) {
        gcp_ctl_base_free(c);
        return NULL;
    }

    return c;
}


static void
gcp_ctl_csrclean_event(void *c, gcp_ctl_event_t *ev)
{
    gcp_ctl_csrclean_t  *cc = c;

    if (ev->res != &gcp_type_certificatesigningrequests) {
        return;
    }

    if (ev->type == GCP_CTL_EV_DELETE) {
        gcp_ctl_map_del(cc->names, ev->name);
        return;
    }

    if (gcp_ctl_map_get(cc->names, ev->name) == NULL) {
        (void) gcp_ctl_map_put(cc->names, ev->name, (void *) 1);
    }

    gcp_ctl_queue_add(cc->base.queue, ev->name);
}


static void
gcp_ctl_csrclean_resync(void *c)
{
    void                *v;
    const char          *name;
    gcp_ctl_csrclean_t  *cc = c;
    gcp_ctl_map_iter_t   it;

    memset(&it, 0, sizeof(it));

    while (gcp_ctl_map_next(cc->names, &it, &name, &v)) {
        gcp_ctl_queue_add(cc->base.queue, name);
    }
}


static void
gcp_ctl_csrclean_free(void *c)
{
    gcp_ctl_csrclean_t  *cc = c;

    gcp_ctl_map_free(cc->names);
    gcp_ctl_base_free(c);
}


const gcp_ctl_controller_t  gcp_ctl_csr_cleaner_controller = {
    "certificatesigningrequest-cleaner-controller",
    GCP_CTL_CSR_CLEANER,
    gcp_ctl_csrclean_create,
    gcp_ctl_csrclean_event,
    NULL,
    gcp_ctl_base_synced,
    gcp_ctl_csrclean_resync,
    gcp_ctl_base_stop,
    gcp_ctl_csrclean_free,
};
