
/*
 * The controllers in the adapter: the gcp_controllers, gcp_root_ca_file,
 * gcp_csr_signer and gcp_cluster_signing_duration directives, and their
 * start in the worker that runs them, with which are off, the root CA,
 * the CertificateSigningRequest signers, and the instance's leader
 * election identity.  They sit above the API core and act through its
 * in-process client.
 */

#include "ngx_http_gcp_module.h"
#include "gcp_csr.h"


#define NGX_HTTP_GCP_ROOT_CA_MAX  (1024 * 1024)
#define NGX_HTTP_GCP_SIGNER_MAX   (1024 * 1024)


/*
 * gcp_controllers * | off | [*] [NAME] [-NAME] ...;
 *
 * As kube-controller-manager's --controllers: "*" turns on every
 * controller, NAME one, -NAME turns one off (explicit names win over
 * "*"); without "*", only the named ones run.
 */

char *
ngx_http_gcp_controllers(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_gcp_main_conf_t *mcf = conf;

    unsigned     on, off, bit, all;
    ngx_str_t   *value, name;
    ngx_uint_t   i;

    if (mcf->controllers_off != NGX_CONF_UNSET_UINT) {
        return "is duplicate";
    }

    value = cf->args->elts;

    if (cf->args->nelts == 2 && ngx_strcmp(value[1].data, "off") == 0) {
        mcf->controllers_off = GCP_CTL_ALL;
        return NGX_CONF_OK;
    }

    all = 0;
    on = 0;
    off = 0;

    for (i = 1; i < cf->args->nelts; i++) {
        name = value[i];

        if (name.len == 1 && name.data[0] == '*') {
            all = 1;
            continue;
        }

        if (name.len > 1 && name.data[0] == '-') {
            bit = gcp_ctl_bit((char *) name.data + 1, name.len - 1);
            off |= bit;

        } else {
            bit = gcp_ctl_bit((char *) name.data, name.len);
            on |= bit;
        }

        if (bit == 0) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "unknown controller \"%V\"", &value[i]);
            return NGX_CONF_ERROR;
        }
    }

    on = (all ? GCP_CTL_ALL : on) & ~off;

    mcf->controllers_off = GCP_CTL_ALL & ~on;

    return NGX_CONF_OK;
}


/* gcp_root_ca_file FILE;  the PEM is read now, and on every reload. */

char *
ngx_http_gcp_root_ca_file(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_gcp_main_conf_t *mcf = conf;

    ngx_str_t  *value, file, pem;

    if (mcf->root_ca.data) {
        return "is duplicate";
    }

    value = cf->args->elts;
    file = value[1];

    if (ngx_http_gcp_read_conf_file(cf, &file, NGX_HTTP_GCP_ROOT_CA_MAX, &pem)
        != NGX_CONF_OK)
    {
        return NGX_CONF_ERROR;
    }

    if (ngx_strstr(pem.data, "-----BEGIN CERTIFICATE-----") == NULL) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"%V\" holds no PEM certificate", &file);
        return NGX_CONF_ERROR;
    }

    mcf->root_ca = pem;

    return NGX_CONF_OK;
}


/*
 * gcp_csr_signer NAME CERT_FILE KEY_FILE;  the CA that signs the
 * CertificateSigningRequests of signerName NAME (as kube-controller-
 * manager's --cluster-signing-*-file flags), read and checked now.
 */

char *
ngx_http_gcp_csr_signer(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_gcp_main_conf_t *mcf = conf;

    char               err[256];
    ngx_str_t         *value, cert, key;
    ngx_uint_t         i;
    gcp_csr_ca_t      *ca;
    gcp_ctl_signer_t  *s;

    value = cf->args->elts;

    if (mcf->signers == NULL) {
        mcf->signers = ngx_array_create(cf->pool, 2,
                                        sizeof(gcp_ctl_signer_t));
        if (mcf->signers == NULL) {
            return NGX_CONF_ERROR;
        }
    }

    s = mcf->signers->elts;

    for (i = 0; i < mcf->signers->nelts; i++) {
        if (ngx_strcmp(s[i].name, value[1].data) == 0) {
            return "is duplicate";
        }
    }

    if (ngx_strlchr(value[1].data, value[1].data + value[1].len, '/')
        == NULL)
    {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "invalid signer name "
                           "\"%V\": DOMAIN/NAME expected", &value[1]);
        return NGX_CONF_ERROR;
    }

    if (ngx_http_gcp_read_conf_file(cf, &value[2], NGX_HTTP_GCP_SIGNER_MAX,
                                    &cert)
        != NGX_CONF_OK
        || ngx_http_gcp_read_conf_file(cf, &value[3],
                                       NGX_HTTP_GCP_SIGNER_MAX, &key)
           != NGX_CONF_OK)
    {
        return NGX_CONF_ERROR;
    }

    ca = gcp_csr_ca_load((char *) cert.data, cert.len, (char *) key.data,
                         key.len, err, sizeof(err));

    if (ca == NULL) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "signer \"%V\" (\"%V\", "
                           "\"%V\"): %s", &value[1], &value[2], &value[3],
                           err);
        return NGX_CONF_ERROR;
    }

    gcp_csr_ca_free(ca);

    s = ngx_array_push(mcf->signers);
    if (s == NULL) {
        return NGX_CONF_ERROR;
    }

    s->name = (const char *) value[1].data;
    s->cert = (const char *) cert.data;
    s->cert_len = cert.len;
    s->key = (const char *) key.data;
    s->key_len = key.len;

    return NGX_CONF_OK;
}


void
ngx_http_gcp_ctl_init_conf(ngx_http_gcp_main_conf_t *mcf)
{
    ngx_conf_init_uint_value(mcf->controllers_off, 0);
    ngx_conf_init_value(mcf->signing_duration, GCP_CSR_DEFAULT_DURATION);
}


/*
 * The leader election identity: the host name and a hash of what tells
 * this instance from others on the host (its prefix, configuration file
 * and storage), so that a restarted instance takes its lease back at once
 * and two instances never share one.
 */

static const char *
ngx_http_gcp_ctl_identity(ngx_cycle_t *cycle, ngx_http_gcp_main_conf_t *mcf)
{
    u_char    *p;
    uint32_t   crc;

    ngx_crc32_init(crc);
    ngx_crc32_update(&crc, cycle->prefix.data, cycle->prefix.len);
    ngx_crc32_update(&crc, cycle->conf_file.data, cycle->conf_file.len);
    ngx_crc32_update(&crc, mcf->storage.path.data, mcf->storage.path.len);
    ngx_crc32_update(&crc, mcf->storage.endpoints.data,
                     mcf->storage.endpoints.len);
    ngx_crc32_final(crc);

    p = ngx_pnalloc(cycle->pool, cycle->hostname.len + sizeof("_ffffffff"));
    if (p == NULL) {
        return NULL;
    }

    *ngx_sprintf(p, "%V_%08xD", &cycle->hostname, crc) = '\0';

    return (const char *) p;
}


/*
 * The first worker (or the single process) runs the controllers, once the
 * API is bootstrapped, through the core's in-process client: the API
 * server's own (the CustomResourceDefinition controllers, in every
 * instance), and those of kube-controller-manager that are not switched
 * off (elected among instances).  With every one of the latter off there
 * is nothing to elect a leader for (no Lease is written).  Out of memory:
 * the instance serves, without controllers.
 */

void
ngx_http_gcp_ctl_start(ngx_cycle_t *cycle, ngx_http_gcp_main_conf_t *mcf)
{
    gcp_ctl_conf_t  conf;

    if (ngx_worker != 0) {
        return;
    }

    if (mcf->apiserver_ctl == NULL) {
        mcf->apiserver_ctl = gcp_ctl_start_apiserver(mcf->api);

        if (mcf->apiserver_ctl == NULL) {
            ngx_log_error(NGX_LOG_ALERT, cycle->log, 0,
                          "gcp: the API server's controllers could not "
                          "start: out of memory");
        }
    }

    ngx_http_gcp_manifests_start(mcf);

    if (mcf->ctl != NULL
        || (mcf->controllers_off & GCP_CTL_ALL) == GCP_CTL_ALL)
    {
        return;
    }

    ngx_memzero(&conf, sizeof(gcp_ctl_conf_t));

    conf.off = (unsigned) mcf->controllers_off;
    conf.root_ca = mcf->root_ca.len ? (const char *) mcf->root_ca.data
                                    : NULL;
    conf.identity = ngx_http_gcp_ctl_identity(cycle, mcf);
    conf.signing_duration = (long) mcf->signing_duration;

    if (mcf->signers) {
        conf.signers = mcf->signers->elts;
        conf.nsigners = mcf->signers->nelts;
    }

    mcf->ctl = gcp_ctl_start(mcf->api, &conf);

    if (mcf->ctl == NULL) {
        ngx_log_error(NGX_LOG_ALERT, cycle->log, 0,
                      "gcp: the controllers could not start: out of memory");
    }
}


void
ngx_http_gcp_ctl_stop(ngx_http_gcp_main_conf_t *mcf)
{
    ngx_http_gcp_manifests_stop(mcf);

    gcp_ctl_stop(mcf->ctl, NULL, NULL);
    mcf->ctl = NULL;

    gcp_ctl_stop(mcf->apiserver_ctl, NULL, NULL);
    mcf->apiserver_ctl = NULL;
}
