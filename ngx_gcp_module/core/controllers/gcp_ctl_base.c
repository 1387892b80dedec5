
/*
 * A controller with one work queue (gcp_ctl_int.h): the state, queue and
 * controller functions the namespace, service account, root CA and quota
 * controllers share, and the read that starts a sync of a namespace.
 */

#include <stdlib.h>

#include "gcp_ctl_int.h"
#include "gcp_object.h"


void *
gcp_ctl_base_create(gcp_ctl_t *ctl, size_t size, const char *name,
    unsigned workers, gcp_ctl_sync_pt sync)
{
    gcp_ctl_base_t  *b;

    b = calloc(1, size);
    if (b == NULL) {
        return NULL;
    }

    b->ctl = ctl;
    b->queue = gcp_ctl_queue_create(ctl, name, workers, sync, b);
    if (b->queue == NULL) {
        free(b);
        return NULL;
    }

    return b;
}


void
gcp_ctl_base_synced(void *c)
{
    gcp_ctl_base_t  *b = c;

    gcp_ctl_queue_start(b->queue);
}


void
gcp_ctl_base_resync(void *c)
{
    gcp_ctl_base_add_namespaces(c, 0);
}


void
gcp_ctl_base_add_namespaces(gcp_ctl_base_t *b, int terminating_only)
{
    void                *v;
    const char          *name;
    gcp_ctl_map_iter_t   it;

    memset(&it, 0, sizeof(it));

    while (gcp_ctl_map_next(b->ctl->namespaces, &it, &name, &v)) {
        if (!terminating_only || ((gcp_ctl_ns_t *) v)->terminating) {
            gcp_ctl_queue_add(b->queue, name);
        }
    }
}


void
gcp_ctl_base_get_active(gcp_ctl_item_t *item, const gcp_resource_t *res,
    const char *name, gcp_ctl_get_pt done)
{
    gcp_ctl_base_t      *b = item->ctx;
    const gcp_ctl_ns_t  *ns;

    ns = gcp_ctl_namespace(b->ctl, item->key);

    if (ns == NULL || ns->terminating) {
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    gcp_ctl_get(item, gcp_object_key(item->arena, res, item->key, name),
                done);
}


void
gcp_ctl_base_stop(void *c)
{
    gcp_ctl_base_t  *b = c;

    gcp_ctl_queue_stop(b->queue);
}


void
gcp_ctl_base_free(void *c)
{
    gcp_ctl_base_t  *b = c;

    gcp_ctl_queue_free(b->queue);
    free(b);
}
