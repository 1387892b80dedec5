
/*
 * Admission in the adapter: the directives that choose and configure the
 * admission plugins (kube-apiserver's --enable-admission-plugins,
 * --disable-admission-plugins, and each plugin's arguments), checked when
 * the configuration is read.  Webhooks are called through the services
 * the proxy collects (ngx_http_gcp_proxy_conf.c: nginx upstream blocks
 * named NAME.NAMESPACE.svc[:PORT], and gcp_service), as aggregated APIs
 * are proxied to them.
 */

#include "ngx_http_gcp_module.h"

#include "gcp_admission_plugins.h"


#define NGX_HTTP_GCP_ADMISSION_ERR  256


static char *
ngx_http_gcp_admission_names(ngx_conf_t *cf, ngx_array_t **list)
{
    char        **p;
    ngx_str_t    *value;
    ngx_uint_t    i;

    if (*list == NULL) {
        *list = ngx_array_create(cf->pool, 4, sizeof(char *));
        if (*list == NULL) {
            return NGX_CONF_ERROR;
        }
    }

    value = cf->args->elts;

    for (i = 1; i < cf->args->nelts; i++) {
        p = ngx_array_push(*list);
        if (p == NULL) {
            return NGX_CONF_ERROR;
        }

        /* configuration strings are NUL-terminated */
        *p = (char *) value[i].data;
    }

    return NGX_CONF_OK;
}


/*
 * gcp_enable_admission_plugins NAME ...;
 * gcp_disable_admission_plugins NAME ...;
 */

char *
ngx_http_gcp_admission_plugins(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf)
{
    ngx_http_gcp_main_conf_t *mcf = conf;

    if (ngx_strncmp(cmd->name.data, "gcp_enable", 10) == 0) {
        return ngx_http_gcp_admission_names(cf, &mcf->admission.enable);
    }

    return ngx_http_gcp_admission_names(cf, &mcf->admission.disable);
}


/* gcp_admission_plugin_config NAME [ARG ...]; */

char *
ngx_http_gcp_admission_plugin_config(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf)
{
    ngx_http_gcp_main_conf_t *mcf = conf;

    char                  **args;
    ngx_str_t              *value;
    ngx_uint_t              i;
    gcp_admission_args_t   *a;

    if (mcf->admission.args == NULL) {
        mcf->admission.args = ngx_array_create(cf->pool, 2,
                                               sizeof(gcp_admission_args_t));
        if (mcf->admission.args == NULL) {
            return NGX_CONF_ERROR;
        }
    }

    value = cf->args->elts;
    a = mcf->admission.args->elts;

    for (i = 0; i < mcf->admission.args->nelts; i++) {
        if (ngx_strcmp(a[i].name, value[1].data) == 0) {
            return "is duplicate";
        }
    }

    a = ngx_array_push(mcf->admission.args);
    args = ngx_pcalloc(cf->pool, cf->args->nelts * sizeof(char *));

    if (a == NULL || args == NULL) {
        return NGX_CONF_ERROR;
    }

    for (i = 2; i < cf->args->nelts; i++) {
        args[i - 2] = (char *) value[i].data;
    }

    a->name = (char *) value[1].data;
    a->args = (const char * const *) args;
    a->nargs = cf->args->nelts - 2;

    return NGX_CONF_OK;
}


char *
ngx_http_gcp_admission_init_conf(ngx_conf_t *cf,
    ngx_http_gcp_admission_conf_t *acf)
{
    char                   err[NGX_HTTP_GCP_ADMISSION_ERR];
    gcp_admission_conf_t  *c = &acf->conf;

    if (acf->enable) {
        c->enable = acf->enable->elts;
        c->nenable = acf->enable->nelts;
    }

    if (acf->disable) {
        c->disable = acf->disable->elts;
        c->ndisable = acf->disable->nelts;
    }

    if (acf->args) {
        c->args = acf->args->elts;
        c->nargs = acf->args->nelts;
    }

    if (gcp_admission_plugins_check(c, err, sizeof(err)) != GCP_OK) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "%s", err);
        return NGX_CONF_ERROR;
    }

    return NGX_CONF_OK;
}
