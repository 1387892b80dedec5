
/*
 * API Priority and Fairness in the adapter: the directives, and the
 * shared zone holding the instance's dispatcher (core/flowcontrol/
 * gcp_apf_shm.h).  The zone is made anew at every reload (the workers of
 * the old cycle keep theirs until they exit), its region laid out by the
 * master before the workers fork, with one eventfd per worker.
 */

#include "ngx_http_gcp_module.h"

#include "gcp_apf_shm.h"


#define NGX_HTTP_GCP_MAX_INFLIGHT   400     /* --max-requests-inflight */
#define NGX_HTTP_GCP_MAX_MUTATING   200     /* --max-mutating-requests- */
                                            /* inflight */
#define NGX_HTTP_GCP_APF_SLOTS      NGX_MAX_PROCESSES
#define NGX_HTTP_GCP_APF_MIN_RECS   2048
#define NGX_HTTP_GCP_APF_MAX_RECS   (1 << 20)


static ngx_int_t ngx_http_gcp_apf_zone_init(ngx_shm_zone_t *zone,
    void *data);
static void ngx_http_gcp_apf_cleanup(void *data);


void
ngx_http_gcp_apf_create_conf(ngx_http_gcp_apf_conf_t *acf)
{
    acf->enable = NGX_CONF_UNSET;
    acf->max_inflight = NGX_CONF_UNSET;
    acf->max_mutating = NGX_CONF_UNSET;
}


char *
ngx_http_gcp_apf_init_conf(ngx_conf_t *cf, ngx_http_gcp_apf_conf_t *acf)
{
    ngx_int_t         limit;

    static ngx_str_t  name = ngx_string("gcp_apf");

    ngx_conf_init_value(acf->enable, 1);
    ngx_conf_init_value(acf->max_inflight, NGX_HTTP_GCP_MAX_INFLIGHT);
    ngx_conf_init_value(acf->max_mutating, NGX_HTTP_GCP_MAX_MUTATING);

    if (acf->max_inflight < 0 || acf->max_mutating < 0) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"gcp_max_requests_inflight\" and "
                           "\"gcp_max_mutating_requests_inflight\" must not "
                           "be negative");
        return NGX_CONF_ERROR;
    }

    limit = acf->max_inflight + acf->max_mutating;

    if (acf->enable && limit <= 0) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"gcp_max_requests_inflight\" and "
                           "\"gcp_max_mutating_requests_inflight\" must add "
                           "up to something positive when priority and "
                           "fairness is enabled");
        return NGX_CONF_ERROR;
    }

    /* room for every request executing and a good many waiting */

    acf->records = ngx_max(NGX_HTTP_GCP_APF_MIN_RECS, 8 * limit);
    acf->records = ngx_min(acf->records, NGX_HTTP_GCP_APF_MAX_RECS);
    acf->size = gcp_apf_shm_size(NGX_HTTP_GCP_APF_SLOTS, (int) acf->records);

    /* and the slab allocator's own pages and their descriptors */

    acf->zone = ngx_shared_memory_add(cf, &name,
                                      acf->size + acf->size / 64
                                      + 16 * ngx_pagesize,
                                      &ngx_http_gcp_module);
    if (acf->zone == NULL) {
        return NGX_CONF_ERROR;
    }

    acf->zone->init = ngx_http_gcp_apf_zone_init;
    acf->zone->data = acf;
    acf->zone->noreuse = 1;

    return NGX_CONF_OK;
}


static ngx_int_t
ngx_http_gcp_apf_zone_init(ngx_shm_zone_t *zone, void *data)
{
    ngx_slab_pool_t          *shpool;
    ngx_http_gcp_apf_conf_t  *acf;

    acf = zone->data;
    shpool = (ngx_slab_pool_t *) zone->shm.addr;

    acf->shm = ngx_slab_alloc(shpool, acf->size);
    if (acf->shm == NULL) {
        return NGX_ERROR;
    }

    return NGX_OK;
}


typedef struct {
    int                  n;
    int                  fd[1];
} ngx_http_gcp_apf_fds_t;


ngx_int_t
ngx_http_gcp_apf_init_module(ngx_cycle_t *cycle, ngx_http_gcp_apf_conf_t *acf)
{
    int                      i, nslots;
    const char              *err;
    gcp_apf_shm_t           *sh;
    ngx_core_conf_t         *ccf;
    ngx_pool_cleanup_t      *cln;
    ngx_http_gcp_apf_fds_t  *fds;

    if (acf->shm == NULL) {
        return NGX_OK;
    }

    ccf = (ngx_core_conf_t *) ngx_get_conf(cycle->conf_ctx, ngx_core_module);

    nslots = ccf->master ? (int) ccf->worker_processes : 1;

    /*
     * The cleanup keeps its own copy of the descriptors: at a reload the
     * master unmaps the old zone before it destroys the old cycle's pool.
     */

    cln = ngx_pool_cleanup_add(cycle->pool, sizeof(ngx_http_gcp_apf_fds_t)
                                            + nslots * sizeof(int));
    if (cln == NULL) {
        return NGX_ERROR;
    }

    fds = cln->data;
    fds->n = 0;

    sh = gcp_apf_shm_init(acf->shm, acf->size, nslots, (int) acf->records,
                          (int) (acf->max_inflight + acf->max_mutating),
                          (int) acf->max_inflight, (int) acf->max_mutating,
                          &err);
    if (sh == NULL) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, ngx_errno,
                      "gcp priority and fairness: %s", err);
        return NGX_ERROR;
    }

    for (i = 0; i < nslots; i++) {
        fds->fd[i] = gcp_apf_shm_efd(sh, i);
    }

    fds->n = nslots;

    cln->handler = ngx_http_gcp_apf_cleanup;

    return NGX_OK;
}


/* The master closes the cycle's eventfds (the workers keep their copies). */

static void
ngx_http_gcp_apf_cleanup(void *data)
{
    int                      i;
    ngx_http_gcp_apf_fds_t  *fds;

    fds = data;

    if (ngx_process != NGX_PROCESS_MASTER
        && ngx_process != NGX_PROCESS_SINGLE)
    {
        return;
    }

    for (i = 0; i < fds->n; i++) {
        if (fds->fd[i] != -1) {
            (void) close(fds->fd[i]);
        }
    }
}


void
ngx_http_gcp_apf_api_conf(ngx_http_gcp_apf_conf_t *acf, gcp_api_conf_t *conf)
{
    conf->flowcontrol = acf->shm;
    conf->flowcontrol_slot = (int) ngx_worker;
    conf->flowcontrol_off = acf->enable ? 0 : 1;
}
