
/*
 * Encryption at rest: the directive
 *
 *     gcp_encryption_provider_config FILE [reload=off|on|TIME];
 *
 * names an EncryptionConfiguration file as kube-apiserver's
 * --encryption-provider-config; it is loaded and validated with the
 * configuration (nginx -t shows upstream's messages).  reload=on (every
 * minute, as --encryption-provider-config-automatic-reload) or reload=TIME
 * makes every worker read the file again at that interval (the core's
 * encrypting store, gcp_store_encrypt.h).
 */

#include "ngx_http_gcp_module.h"


#define NGX_HTTP_GCP_ENC_RELOAD  60000      /* upstream's poll: a minute */


static void
ngx_http_gcp_encryption_cleanup(void *data)
{
    gcp_encryption_unref(data);
}


char *
ngx_http_gcp_encryption(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_gcp_main_conf_t *mcf = conf;

    char                 err[4096];
    ngx_int_t            ms;
    ngx_str_t           *value, file, s;
    ngx_uint_t           i;
    ngx_pool_cleanup_t  *cln;

    if (mcf->encryption.enc) {
        return "is duplicate";
    }

    value = cf->args->elts;
    file = value[1];

    if (ngx_conf_full_name(cf->cycle, &file, 1) != NGX_OK) {
        return NGX_CONF_ERROR;
    }

    mcf->encryption.reload_ms = 0;

    for (i = 2; i < cf->args->nelts; i++) {
        if (ngx_strncmp(value[i].data, "reload=", 7) != 0) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "invalid parameter \"%V\"", &value[i]);
            return NGX_CONF_ERROR;
        }

        s.data = value[i].data + 7;
        s.len = value[i].len - 7;

        if (s.len == 3 && ngx_strncmp(s.data, "off", 3) == 0) {
            mcf->encryption.reload_ms = 0;
            continue;
        }

        if (s.len == 2 && ngx_strncmp(s.data, "on", 2) == 0) {
            mcf->encryption.reload_ms = NGX_HTTP_GCP_ENC_RELOAD;
            continue;
        }

        ms = ngx_parse_time(&s, 0);

        if (ms == NGX_ERROR || ms == 0) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "invalid reload interval \"%V\"", &s);
            return NGX_CONF_ERROR;
        }

        mcf->encryption.reload_ms = (uint64_t) ms;
    }

    cln = ngx_pool_cleanup_add(cf->pool, 0);
    if (cln == NULL) {
        return NGX_CONF_ERROR;
    }

    mcf->encryption.path = (const char *) file.data;
    mcf->encryption.enc = gcp_encryption_load(mcf->encryption.path, err,
                                              sizeof(err));

    if (mcf->encryption.enc == NULL) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "gcp_encryption_provider_config: %s", err);
        return NGX_CONF_ERROR;
    }

    cln->handler = ngx_http_gcp_encryption_cleanup;
    cln->data = mcf->encryption.enc;

    return NGX_CONF_OK;
}
