
/*
 * Holding a worker's first requests until its caches are loaded (see
 * gcp_warm.h).  The caches load from store lists: at once on LMDB, after
 * the copy is current on etcd (a new worker of a reload reads the mirror
 * once a probe or the feeder's stream confirms it).  Waiting requests
 * look again every GCP_WARM_POLL_MS; once every cache has loaded the
 * worker never waits again.
 */

#include <string.h>

#include "gcp_warm.h"
#include "gcp_crd.h"
#include "gcp_mirror.h"
#include "gcp_rbac.h"
#include "gcp_rbac_index.h"


#define GCP_WARM_POLL_MS  20
#define GCP_WARM_MAX_MS   5000     /* unless conf.warm_ms says */


typedef struct {
    gcp_op_t    *op;
    void       (*next)(gcp_op_t *op);
    uint64_t     until;
} gcp_warm_t;


static int
gcp_warm_loaded(gcp_api_t *api)
{
    const char        *mode;
    gcp_rbac_index_t  *ix;

    if (api->warm) {
        return 1;
    }

    if (gcp_mirrors_loading() != 0) {
        return 0;
    }

    if (api->crds != NULL && !gcp_crds_synced(api)) {
        return 0;
    }

    mode = api->conf.authorization_mode;

    if (mode != NULL && strcmp(mode, "RBAC") == 0) {
        ix = gcp_rbac_index(api);

        if (ix == NULL || !gcp_rbac_index_ready(ix)) {
            return 0;
        }
    }

    api->warm = 1;

    return 1;
}


/* Health, metrics and the version read no cache. */
static int
gcp_warm_exempt(const char *path)
{
    static const char * const  paths[] = {
        "/healthz", "/livez", "/readyz", "/metrics", "/version"
    };

    size_t  i, len;

    for (i = 0; i < gcp_nelems(paths); i++) {
        len = strlen(paths[i]);

        if (strncmp(path, paths[i], len) == 0
            && (path[len] == '\0' || path[len] == '/'))
        {
            return 1;
        }
    }

    return 0;
}


static void
gcp_warm_poll(void *arg)
{
    gcp_warm_t  *w = arg;
    gcp_op_t    *op = w->op;
    gcp_loop_t  *loop = op->api->conf.loop;

    if (gcp_warm_loaded(op->api)) {
        w->next(op);
        return;
    }

    if (loop->now_ms(loop) >= w->until) {
        gcp_op_header(op, "Retry-After", "1");
        gcp_op_error(op, GCP_EUNAVAILABLE,
                     "the server is loading its caches, try again later",
                     NULL);
        return;
    }

    if (loop->timer_add(loop, GCP_WARM_POLL_MS, gcp_warm_poll, w) == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
    }
}


int
gcp_warm_wait(gcp_op_t *op, void (*next)(gcp_op_t *op))
{
    gcp_warm_t  *w;
    gcp_loop_t  *loop = op->api->conf.loop;

    if (gcp_warm_loaded(op->api) || gcp_warm_exempt(op->ri.path)) {
        return 0;
    }

    w = gcp_calloc(op->a, sizeof(gcp_warm_t));
    if (w == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return 1;
    }

    w->op = op;
    w->next = next;
    w->until = loop->now_ms(loop) + (op->api->conf.warm_ms
                                 ? op->api->conf.warm_ms : GCP_WARM_MAX_MS);

    gcp_warm_poll(w);

    return 1;
}
