
/*
 * Operating ngx_gcp in the adapter: the shared zone of the metrics (laid
 * out by the master, kept over reloads, attached by every worker), the
 * audit directives (the policy loaded when the configuration is read),
 * the core's error log, and the variables log_format may use ($gcp_user,
 * $gcp_verb, ...), taken from the core's view of the request when it
 * answers.
 */

#include "ngx_http_gcp_module.h"

#include "gcp_log.h"
#include "gcp_metrics.h"
#include "gcp_observe.h"


#define NGX_HTTP_GCP_AUDIT_BUFFER  (4 * 1024 * 1024)


/* What the log variables show of a request (r->pool). */
typedef struct {
    ngx_str_t                   v[NGX_HTTP_GCP_VAR_LAST];
} ngx_http_gcp_summary_t;


static ngx_int_t ngx_http_gcp_metrics_zone_init(ngx_shm_zone_t *zone,
    void *data);
static void ngx_http_gcp_audit_cleanup(void *data);
static void ngx_http_gcp_log(void *data, int level, const char *msg);
static ngx_int_t ngx_http_gcp_variable(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data);


static ngx_http_variable_t  ngx_http_gcp_vars[] = {

    { ngx_string("gcp_user"), NULL, ngx_http_gcp_variable,
      NGX_HTTP_GCP_VAR_USER, NGX_HTTP_VAR_NOCACHEABLE, 0 },

    { ngx_string("gcp_groups"), NULL, ngx_http_gcp_variable,
      NGX_HTTP_GCP_VAR_GROUPS, NGX_HTTP_VAR_NOCACHEABLE, 0 },

    { ngx_string("gcp_impersonated_user"), NULL, ngx_http_gcp_variable,
      NGX_HTTP_GCP_VAR_IMPERSONATED, NGX_HTTP_VAR_NOCACHEABLE, 0 },

    { ngx_string("gcp_verb"), NULL, ngx_http_gcp_variable,
      NGX_HTTP_GCP_VAR_VERB, NGX_HTTP_VAR_NOCACHEABLE, 0 },

    { ngx_string("gcp_api_group"), NULL, ngx_http_gcp_variable,
      NGX_HTTP_GCP_VAR_GROUP, NGX_HTTP_VAR_NOCACHEABLE, 0 },

    { ngx_string("gcp_resource"), NULL, ngx_http_gcp_variable,
      NGX_HTTP_GCP_VAR_RESOURCE, NGX_HTTP_VAR_NOCACHEABLE, 0 },

    { ngx_string("gcp_subresource"), NULL, ngx_http_gcp_variable,
      NGX_HTTP_GCP_VAR_SUBRESOURCE, NGX_HTTP_VAR_NOCACHEABLE, 0 },

    { ngx_string("gcp_namespace"), NULL, ngx_http_gcp_variable,
      NGX_HTTP_GCP_VAR_NAMESPACE, NGX_HTTP_VAR_NOCACHEABLE, 0 },

    { ngx_string("gcp_name"), NULL, ngx_http_gcp_variable,
      NGX_HTTP_GCP_VAR_NAME, NGX_HTTP_VAR_NOCACHEABLE, 0 },

    { ngx_string("gcp_audit_id"), NULL, ngx_http_gcp_variable,
      NGX_HTTP_GCP_VAR_AUDIT_ID, NGX_HTTP_VAR_NOCACHEABLE, 0 },

    { ngx_string("gcp_revision"), NULL, ngx_http_gcp_variable,
      NGX_HTTP_GCP_VAR_REVISION, NGX_HTTP_VAR_NOCACHEABLE, 0 },

      ngx_http_null_variable
};


void
ngx_http_gcp_observe_create_conf(ngx_http_gcp_observe_conf_t *ocf)
{
    /*
     * set by ngx_pcalloc():
     *
     *     ocf->zone = NULL;
     *     ocf->audit_policy = { 0, NULL };
     *     ocf->audit_log = { 0, NULL };
     *     ocf->audit = NULL;
     *     ocf->log_vars = 0;
     */

    ocf->metrics = NGX_CONF_UNSET;
}


/* metrics */


char *
ngx_http_gcp_observe_init_conf(ngx_conf_t *cf,
    ngx_http_gcp_observe_conf_t *ocf)
{
    char                 err[512];
    size_t               size;
    gcp_audit_conf_t     conf;
    ngx_pool_cleanup_t  *cln;

    static ngx_str_t  zone_name = ngx_string("gcp_metrics");

    ngx_conf_init_value(ocf->metrics, 1);

    if (ocf->metrics) {
        /* the metrics, the slab allocator's pages and headers */

        size = gcp_metrics_size();
        size += size / 64 + 16 * ngx_pagesize;
        size = ngx_align(size, ngx_pagesize);

        ocf->zone = ngx_shared_memory_add(cf, &zone_name, size,
                                          &ngx_http_gcp_module);
        if (ocf->zone == NULL) {
            return NGX_CONF_ERROR;
        }

        ocf->zone->init = ngx_http_gcp_metrics_zone_init;
    }

    /* audit */

    if (ocf->audit_policy.len == 0 && ocf->audit_log.len == 0) {
        return NGX_CONF_OK;
    }

    if (ocf->audit_policy.len == 0 || ocf->audit_log.len == 0) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"gcp_audit_policy_file\" and \"gcp_audit_log\" "
                           "go together");
        return NGX_CONF_ERROR;
    }

    ngx_memzero(&conf, sizeof(gcp_audit_conf_t));

    conf.policy_file = (const char *) ocf->audit_policy.data;
    conf.log_path = (const char *) ocf->audit_log.data;
    conf.max_size = ocf->audit_max_size;
    conf.max_backups = (unsigned) ocf->audit_max_backups;
    conf.buffer = ocf->audit_buffer;

    cln = ngx_pool_cleanup_add(cf->pool, 0);
    if (cln == NULL) {
        return NGX_CONF_ERROR;
    }

    ocf->audit = gcp_audit_create(&conf, err, sizeof(err));

    if (ocf->audit == NULL) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "gcp audit: %s", err);
        return NGX_CONF_ERROR;
    }

    cln->handler = ngx_http_gcp_audit_cleanup;
    cln->data = ocf->audit;

    return NGX_CONF_OK;
}


static void
ngx_http_gcp_audit_cleanup(void *data)
{
    gcp_audit_destroy(data);
}


/*
 * The zone is laid out once; a reload finds it (same name and size) with
 * the values of the previous workers, which the next ones go on adding to.
 */

static ngx_int_t
ngx_http_gcp_metrics_zone_init(ngx_shm_zone_t *zone, void *data)
{
    zone->data = ngx_http_gcp_zone_data(zone, data, gcp_metrics_size());
    if (zone->data == NULL) {
        return NGX_ERROR;
    }

    /* keeps what the same definitions laid out */
    gcp_metrics_init(zone->data, gcp_metrics_size());

    return NGX_OK;
}


/* gcp_audit_log PATH [max_size=SIZE] [max_backups=N] [buffer=SIZE]; */

char *
ngx_http_gcp_audit_log(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_gcp_main_conf_t *mcf = conf;

    off_t                         size;
    ngx_int_t                     n;
    ngx_str_t                    *value, s;
    ngx_uint_t                    i;
    ngx_http_gcp_observe_conf_t  *ocf = &mcf->observe;

    if (ocf->audit_log.len) {
        return "is duplicate";
    }

    value = cf->args->elts;

    ocf->audit_log = value[1];
    ocf->audit_buffer = NGX_HTTP_GCP_AUDIT_BUFFER;

    if (ngx_conf_full_name(cf->cycle, &ocf->audit_log, 0) != NGX_OK) {
        return NGX_CONF_ERROR;
    }

    for (i = 2; i < cf->args->nelts; i++) {

        if (ngx_strncmp(value[i].data, "max_size=", 9) == 0) {
            s.data = value[i].data + 9;
            s.len = value[i].len - 9;

            size = ngx_parse_offset(&s);
            if (size < 0) {
                goto invalid;
            }

            ocf->audit_max_size = (uint64_t) size;
            continue;
        }

        if (ngx_strncmp(value[i].data, "max_backups=", 12) == 0) {
            n = ngx_atoi(value[i].data + 12, value[i].len - 12);
            if (n == NGX_ERROR) {
                goto invalid;
            }

            ocf->audit_max_backups = (ngx_uint_t) n;
            continue;
        }

        if (ngx_strncmp(value[i].data, "buffer=", 7) == 0) {
            s.data = value[i].data + 7;
            s.len = value[i].len - 7;

            ocf->audit_buffer = ngx_parse_size(&s);
            if (ocf->audit_buffer == (size_t) NGX_ERROR
                || ocf->audit_buffer < 4096)
            {
                goto invalid;
            }

            continue;
        }

        goto invalid;
    }

    return NGX_CONF_OK;

invalid:

    ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                       "invalid parameter \"%V\"", &value[i]);

    return NGX_CONF_ERROR;
}


/* the worker process */


static void
ngx_http_gcp_log(void *data, int level, const char *msg)
{
    ngx_log_error((ngx_uint_t) level, ngx_cycle->log, 0, "gcp: %s", msg);
}


ngx_int_t
ngx_http_gcp_observe_start(ngx_cycle_t *cycle,
    ngx_http_gcp_observe_conf_t *ocf)
{
    const char  *err;

    /* the core's messages go to the cycle's error log */

    gcp_log_set(ngx_http_gcp_log, NULL, (int) cycle->log->log_level);

    if (ocf->zone == NULL) {
        return NGX_OK;
    }

    if (gcp_metrics_attach(ocf->zone->data, gcp_metrics_size(), &err)
        != GCP_OK)
    {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0, "gcp_metrics: %s", err);
        return NGX_ERROR;
    }

    return NGX_OK;
}


void
ngx_http_gcp_observe_stop(ngx_cycle_t *cycle)
{
    gcp_metrics_detach();
    gcp_log_set(NULL, NULL, 0);
}


/* variables */


ngx_int_t
ngx_http_gcp_variables_add(ngx_conf_t *cf)
{
    ngx_http_variable_t  *var, *v;

    for (v = ngx_http_gcp_vars; v->name.len; v++) {
        var = ngx_http_add_variable(cf, &v->name, v->flags);
        if (var == NULL) {
            return NGX_ERROR;
        }

        var->get_handler = v->get_handler;
        var->data = v->data;
    }

    return NGX_OK;
}


/*
 * Whether the configuration uses one of the variables (indexed by
 * log_format and the like): only then is a request's summary kept.
 */

void
ngx_http_gcp_variables_used(ngx_conf_t *cf, ngx_http_gcp_observe_conf_t *ocf)
{
    ngx_uint_t                  i;
    ngx_http_variable_t        *v;
    ngx_http_core_main_conf_t  *cmcf;

    cmcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_core_module);

    v = cmcf->variables.elts;

    for (i = 0; i < cmcf->variables.nelts; i++) {
        if (v[i].name.len > 4
            && ngx_strncmp(v[i].name.data, "gcp_", 4) == 0)
        {
            ocf->log_vars = 1;
            return;
        }
    }
}


static ngx_int_t
ngx_http_gcp_summary_str(ngx_pool_t *pool, ngx_str_t *to, const char *s)
{
    size_t  n;

    if (s == NULL || s[0] == '\0') {
        return NGX_OK;
    }

    n = ngx_strlen(s);

    to->data = ngx_pnalloc(pool, n);
    if (to->data == NULL) {
        return NGX_ERROR;
    }

    ngx_memcpy(to->data, s, n);
    to->len = n;

    return NGX_OK;
}


void
ngx_http_gcp_summary_save(ngx_http_request_t *r, gcp_request_t *req)
{
    u_char                       *p;
    ngx_uint_t                    i;
    const char                   *s[NGX_HTTP_GCP_VAR_LAST];
    ngx_http_gcp_ctx_t           *ctx;
    gcp_observe_summary_t         sum;
    ngx_http_gcp_summary_t       *out;
    ngx_http_gcp_main_conf_t     *mcf;

    mcf = ngx_http_get_module_main_conf(r, ngx_http_gcp_module);
    ctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);

    if (!mcf->observe.log_vars || ctx == NULL || ctx->summary
        || gcp_observe_summary(req, &sum) != GCP_OK)
    {
        return;
    }

    out = ngx_pcalloc(r->pool, sizeof(ngx_http_gcp_summary_t));
    if (out == NULL) {
        return;
    }

    s[NGX_HTTP_GCP_VAR_USER] = sum.user;
    s[NGX_HTTP_GCP_VAR_GROUPS] = sum.groups;
    s[NGX_HTTP_GCP_VAR_IMPERSONATED] = sum.impersonated;
    s[NGX_HTTP_GCP_VAR_VERB] = sum.verb;
    s[NGX_HTTP_GCP_VAR_GROUP] = sum.group;
    s[NGX_HTTP_GCP_VAR_RESOURCE] = sum.resource;
    s[NGX_HTTP_GCP_VAR_SUBRESOURCE] = sum.subresource;
    s[NGX_HTTP_GCP_VAR_NAMESPACE] = sum.ns;
    s[NGX_HTTP_GCP_VAR_NAME] = sum.name;
    s[NGX_HTTP_GCP_VAR_AUDIT_ID] = sum.audit_id;
    s[NGX_HTTP_GCP_VAR_REVISION] = NULL;

    for (i = 0; i < NGX_HTTP_GCP_VAR_LAST; i++) {
        if (ngx_http_gcp_summary_str(r->pool, &out->v[i], s[i]) != NGX_OK) {
            return;
        }
    }

    if (sum.revision > 0) {
        p = ngx_pnalloc(r->pool, NGX_INT64_LEN);
        if (p == NULL) {
            return;
        }

        out->v[NGX_HTTP_GCP_VAR_REVISION].data = p;
        out->v[NGX_HTTP_GCP_VAR_REVISION].len =
                                    ngx_sprintf(p, "%L", sum.revision) - p;
    }

    ctx->summary = out;
}


static ngx_int_t
ngx_http_gcp_variable(ngx_http_request_t *r, ngx_http_variable_value_t *v,
    uintptr_t data)
{
    ngx_str_t               *s;
    ngx_http_gcp_ctx_t      *ctx;
    ngx_http_gcp_summary_t  *sum;

    ctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);
    sum = ctx ? ctx->summary : NULL;

    if (sum == NULL || sum->v[data].len == 0) {
        v->not_found = 1;
        return NGX_OK;
    }

    s = &sum->v[data];

    v->data = s->data;
    v->len = s->len;
    v->valid = 1;
    v->no_cacheable = 0;
    v->not_found = 0;

    return NGX_OK;
}
