
/*
 * Admission in the adapter: the directives that choose and configure the
 * admission plugins (kube-apiserver's --enable-admission-plugins,
 * --disable-admission-plugins, and each plugin's arguments), checked when
 * the configuration is read; and the services webhooks are called
 * through: every nginx upstream block named NAME.NAMESPACE.svc (or
 * NAME.NAMESPACE.svc:PORT) with its servers' addresses, as aggregated APIs
 * are proxied to the same blocks.
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


/* Is name a service's: "NAME.NAMESPACE.svc" or "...svc:PORT"? */
static ngx_int_t
ngx_http_gcp_is_service(ngx_str_t *name)
{
    u_char  *p, *end;

    end = name->data + name->len;
    p = ngx_strlchr(name->data, end, ':');

    if (p) {
        if (ngx_atoi(p + 1, end - p - 1) == NGX_ERROR) {
            return 0;
        }

        end = p;
    }

    return end - name->data > 4 && ngx_strncmp(end - 4, ".svc", 4) == 0;
}


/* The services: upstream blocks named as services, with their servers. */
static char *
ngx_http_gcp_admission_services(ngx_conf_t *cf,
    ngx_http_gcp_admission_conf_t *acf)
{
    u_char                          buf[NGX_SOCKADDR_STRLEN], *name;
    size_t                          len;
    char                          **eps;
    ngx_uint_t                      i, j, k, n;
    gcp_service_t                  *svc;
    ngx_http_upstream_server_t     *server;
    ngx_http_upstream_srv_conf_t  **uscfp;
    ngx_http_upstream_main_conf_t  *umcf;

    umcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_upstream_module);
    if (umcf == NULL) {
        return NGX_CONF_OK;
    }

    uscfp = umcf->upstreams.elts;

    acf->services = ngx_pcalloc(cf->pool,
                                (umcf->upstreams.nelts + 1)
                                * sizeof(gcp_service_t));
    if (acf->services == NULL) {
        return NGX_CONF_ERROR;
    }

    for (i = 0; i < umcf->upstreams.nelts; i++) {
        if (uscfp[i]->servers == NULL
            || !ngx_http_gcp_is_service(&uscfp[i]->host))
        {
            continue;
        }

        server = uscfp[i]->servers->elts;
        n = 0;

        for (j = 0; j < uscfp[i]->servers->nelts; j++) {
            n += server[j].down ? 0 : server[j].naddrs;
        }

        eps = ngx_pcalloc(cf->pool, (n + 1) * sizeof(char *));
        if (eps == NULL) {
            return NGX_CONF_ERROR;
        }

        name = ngx_pnalloc(cf->pool, uscfp[i]->host.len + 1);
        if (name == NULL) {
            return NGX_CONF_ERROR;
        }

        ngx_memcpy(name, uscfp[i]->host.data, uscfp[i]->host.len);
        name[uscfp[i]->host.len] = '\0';

        svc = &acf->services[acf->nservices++];
        svc->name = (char *) name;
        svc->endpoints = (const char * const *) eps;

        for (j = 0; j < uscfp[i]->servers->nelts; j++) {
            if (server[j].down) {
                continue;
            }

            for (k = 0; k < server[j].naddrs; k++) {
                len = ngx_sock_ntop(server[j].addrs[k].sockaddr,
                                    server[j].addrs[k].socklen, buf,
                                    NGX_SOCKADDR_STRLEN, 1);

                eps[svc->nendpoints] = ngx_pnalloc(cf->pool, len + 1);
                if (eps[svc->nendpoints] == NULL) {
                    return NGX_CONF_ERROR;
                }

                ngx_memcpy(eps[svc->nendpoints], buf, len);
                eps[svc->nendpoints][len] = '\0';
                svc->nendpoints++;
            }
        }
    }

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

    return ngx_http_gcp_admission_services(cf, acf);
}
