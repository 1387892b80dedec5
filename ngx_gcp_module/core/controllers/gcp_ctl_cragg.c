
/*
 * The ClusterRole aggregation controller
 * (clusterrole-aggregation-controller): the aggregation of
 * gcp_rbac_aggregate.c, which follows the RBAC index rather than the
 * run's events, started with the run and stopped with it.  The run is
 * released only once an update the aggregation has in flight completed.
 */

#include <stdlib.h>

#include "gcp_ctl_int.h"
#include "gcp_rbac_int.h"


typedef struct {
    gcp_ctl_t  *ctl;
    void       *aggregator;
} gcp_ctl_cragg_t;


static void *
gcp_ctl_cragg_create(gcp_ctl_t *ctl)
{
    gcp_ctl_cragg_t  *cr;

    cr = calloc(1, sizeof(gcp_ctl_cragg_t));
    if (cr == NULL) {
        return NULL;
    }

    cr->ctl = ctl;
    cr->aggregator = gcp_rbac_aggregator_start(ctl->api);

    if (cr->aggregator == NULL) {
        free(cr);
        return NULL;
    }

    return cr;
}


static void
gcp_ctl_cragg_released(void *arg)
{
    gcp_ctl_unref(arg);
}


static void
gcp_ctl_cragg_stop(void *c)
{
    void             *ag;
    gcp_ctl_cragg_t  *cr = c;

    ag = cr->aggregator;
    cr->aggregator = NULL;

    /* the run waits for the update in flight */

    gcp_ctl_ref(cr->ctl);
    gcp_rbac_aggregator_stop(ag, gcp_ctl_cragg_released, cr->ctl);
}


static void
gcp_ctl_cragg_free(void *c)
{
    gcp_ctl_cragg_t  *cr = c;

    /* a run that failed to start is freed without being stopped */

    gcp_rbac_aggregator_stop(cr->aggregator, NULL, NULL);
    free(cr);
}


const gcp_ctl_controller_t  gcp_ctl_cragg_controller = {
    "clusterrole-aggregation-controller",
    GCP_CTL_CLUSTERROLE_AGG,
    gcp_ctl_cragg_create,
    NULL,
    NULL,
    NULL,
    NULL,
    gcp_ctl_cragg_stop,
    gcp_ctl_cragg_free,
};
