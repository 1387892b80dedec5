
/*
 * The proxy's configuration (ngx_http_gcp_proxy.c): the client certificate
 * it proves itself with, timeouts, buffers, the gcp_service directive
 * (an upstream block in one line), the services the core may call (the
 * upstream blocks named NAME.NAMESPACE.svc[:PORT]), and, in each worker,
 * one TLS context per CA bundle the core verifies servers with.
 */

#include <openssl/pem.h>

#include "ngx_http_gcp_module.h"


#define NGX_HTTP_GCP_PROXY_MAX_TLS  64      /* TLS contexts kept */


/*
 * A TLS context and what it was made for: the CA bundle's bytes (a copy)
 * and the flags.  Found by comparing them with a request's (a few hundred
 * bytes of memcmp): a digest of the bundle on every request cost more
 * than the rest of the proxy's own work.
 */
typedef struct {
    ngx_uint_t    flags;            /* insecure 1, front 2; */
                                    /* NGX_HTTP_GCP_TLS_NONE: never found */
    ngx_str_t     ca;
    ngx_ssl_t     ssl;
} ngx_http_gcp_tls_t;


#define NGX_HTTP_GCP_TLS_NONE  ((ngx_uint_t) -1)


static ngx_str_t  ngx_http_gcp_proxy_hide[] = {
    ngx_string("Date"),
    ngx_string("Server"),
    ngx_null_string
};


void
ngx_http_gcp_proxy_create_conf(ngx_http_gcp_proxy_conf_t *pcf)
{
    pcf->connect_timeout = NGX_CONF_UNSET_MSEC;
    pcf->timeout = NGX_CONF_UNSET_MSEC;
    pcf->buffer_size = NGX_CONF_UNSET_SIZE;
}


/*
 * The keep-alive connections of the blocks gcp_service and gcp_front make:
 * "keepalive 128; keepalive_requests 10000;".  A connection that finds the
 * idle ones full on its return is closed, and the next request opens one
 * with a full TLS handshake (a client certificate, about 1 ms of CPU on
 * both sides): with 16, a worker proxying 64 requests at once opened a
 * connection for 40% of them (10 times the CPU per request).
 */
static ngx_str_t  ngx_http_gcp_service_keepalive_args[][2] = {
    { ngx_string("keepalive"), ngx_string("128") },
    { ngx_string("keepalive_requests"), ngx_string("10000") },
};


extern ngx_module_t  ngx_http_upstream_keepalive_module;


/*
 * Applies the keepalive directives above to the block uscf, as written in
 * "upstream NAME { ... }": the keepalive module's own directives, with the
 * block's context, so that the module keeps its own configuration.
 */
static char *
ngx_http_gcp_service_keepalive(ngx_conf_t *cf,
    ngx_http_upstream_srv_conf_t *uscf)
{
    char                 *rv;
    void                 *kcf, *saved_ctx;
    ngx_str_t            *arg;
    ngx_uint_t            i;
    ngx_array_t          *args, *saved_args;
    ngx_command_t        *cmd;
    ngx_http_module_t    *module;
    ngx_http_conf_ctx_t   ctx;

    module = ngx_http_upstream_keepalive_module.ctx;

    if (module->create_srv_conf == NULL) {
        return NGX_CONF_ERROR;
    }

    kcf = module->create_srv_conf(cf);
    args = ngx_array_create(cf->pool, 2, sizeof(ngx_str_t));

    if (kcf == NULL || args == NULL) {
        return NGX_CONF_ERROR;
    }

    arg = ngx_array_push_n(args, 2);
    if (arg == NULL) {
        return NGX_CONF_ERROR;
    }

    uscf->srv_conf[ngx_http_upstream_keepalive_module.ctx_index] = kcf;
    uscf->srv_conf[ngx_http_upstream_module.ctx_index] = uscf;

    ctx = *(ngx_http_conf_ctx_t *) cf->ctx;
    ctx.srv_conf = uscf->srv_conf;

    saved_ctx = cf->ctx;
    saved_args = cf->args;

    rv = NGX_CONF_OK;

    for (i = 0; rv == NGX_CONF_OK
                && i < sizeof(ngx_http_gcp_service_keepalive_args)
                       / sizeof(ngx_http_gcp_service_keepalive_args[0]);
         i++)
    {
        arg[0] = ngx_http_gcp_service_keepalive_args[i][0];
        arg[1] = ngx_http_gcp_service_keepalive_args[i][1];

        for (cmd = ngx_http_upstream_keepalive_module.commands;
             cmd->name.len; cmd++)
        {
            if (cmd->name.len == arg[0].len
                && ngx_strcmp(cmd->name.data, arg[0].data) == 0)
            {
                break;
            }
        }

        if (cmd->name.len == 0) {
            rv = NGX_CONF_ERROR;
            break;
        }

        cf->ctx = &ctx;
        cf->args = args;

        rv = cmd->set(cf, cmd, kcf);

        cf->ctx = saved_ctx;
        cf->args = saved_args;
    }

    return rv;
}


/* gcp_service NAME.NAMESPACE.svc[:PORT] ADDRESS ... */
char *
ngx_http_gcp_service(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_str_t  *value;

    value = cf->args->elts;

    return ngx_http_gcp_proxy_block(cf, &value[1], &value[2],
                                    cf->args->nelts - 2);
}


char *
ngx_http_gcp_proxy_block(ngx_conf_t *cf, ngx_str_t *name, ngx_str_t *addrs,
    ngx_uint_t naddrs)
{
    ngx_url_t                      u;
    ngx_uint_t                     i;
    ngx_http_upstream_server_t    *us;
    ngx_http_upstream_srv_conf_t  *uscf;

    ngx_memzero(&u, sizeof(ngx_url_t));
    u.host = *name;
    u.no_resolve = 1;
    u.no_port = 1;

    uscf = ngx_http_upstream_add(cf, &u, NGX_HTTP_UPSTREAM_CREATE);
    if (uscf == NULL) {
        return NGX_CONF_ERROR;
    }

    if (uscf->servers) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "service \"%V\" is already defined", name);
        return NGX_CONF_ERROR;
    }

    uscf->servers = ngx_array_create(cf->pool, naddrs,
                                     sizeof(ngx_http_upstream_server_t));
    if (uscf->servers == NULL) {
        return NGX_CONF_ERROR;
    }

    /* an explicit block, as "upstream NAME { server ADDRESS; ... }" */

    uscf->srv_conf = ngx_pcalloc(cf->pool,
                                 sizeof(void *) * ngx_http_max_module);
    if (uscf->srv_conf == NULL) {
        return NGX_CONF_ERROR;
    }

    for (i = 0; i < naddrs; i++) {
        ngx_memzero(&u, sizeof(ngx_url_t));
        u.url = addrs[i];
        u.default_port = 443;

        if (ngx_parse_url(cf->pool, &u) != NGX_OK) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "%s in \"%V\"",
                               u.err ? u.err : "invalid address", &u.url);
            return NGX_CONF_ERROR;
        }

        us = ngx_array_push(uscf->servers);
        if (us == NULL) {
            return NGX_CONF_ERROR;
        }

        ngx_memzero(us, sizeof(ngx_http_upstream_server_t));
        us->name = u.url;
        us->addrs = u.addrs;
        us->naddrs = u.naddrs;
        us->weight = 1;
        us->max_fails = 1;
        us->fail_timeout = 10;
    }

    return ngx_http_gcp_service_keepalive(cf, uscf);
}


/* Returns 1 when name is NAME.NAMESPACE.svc, with :PORT or not. */
static ngx_uint_t
ngx_http_gcp_is_service(ngx_str_t *name)
{
    u_char  *end, *colon;

    end = name->data + name->len;
    colon = ngx_strlchr(name->data, end, ':');

    if (colon) {
        if (ngx_atoi(colon + 1, end - colon - 1) == NGX_ERROR) {
            return 0;
        }

        end = colon;
    }

    return end - name->data > 4 && ngx_strncmp(end - 4, ".svc", 4) == 0;
}


/* The services the core may call: the blocks named as services. */
static char *
ngx_http_gcp_proxy_services(ngx_conf_t *cf, ngx_http_gcp_proxy_conf_t *pcf)
{
    u_char                         *p;
    const char                    **eps;
    ngx_uint_t                      i, j, k, n;
    gcp_service_t                  *svc;
    ngx_http_upstream_server_t     *server;
    ngx_http_upstream_srv_conf_t  **uscfp;
    ngx_http_upstream_main_conf_t  *umcf;

    umcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_upstream_module);
    uscfp = umcf->upstreams.elts;

    pcf->services = ngx_pcalloc(cf->pool, (umcf->upstreams.nelts + 1)
                                          * sizeof(gcp_service_t));
    if (pcf->services == NULL) {
        return NGX_CONF_ERROR;
    }

    for (i = 0; i < umcf->upstreams.nelts; i++) {
        if (uscfp[i]->srv_conf == NULL || uscfp[i]->servers == NULL
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
        p = ngx_pnalloc(cf->pool, uscfp[i]->host.len + 1);

        if (eps == NULL || p == NULL) {
            return NGX_CONF_ERROR;
        }

        svc = &pcf->services[pcf->nservices++];
        svc->name = (char *) p;
        svc->endpoints = eps;
        ngx_cpystrn(p, uscfp[i]->host.data, uscfp[i]->host.len + 1);

        n = 0;

        for (j = 0; j < uscfp[i]->servers->nelts; j++) {
            for (k = 0; !server[j].down && k < server[j].naddrs; k++) {
                p = ngx_pnalloc(cf->pool, server[j].addrs[k].name.len + 1);
                if (p == NULL) {
                    return NGX_CONF_ERROR;
                }

                ngx_cpystrn(p, server[j].addrs[k].name.data,
                            server[j].addrs[k].name.len + 1);
                eps[n++] = (char *) p;
            }
        }

        svc->nendpoints = n;
    }

    return NGX_CONF_OK;
}


char *
ngx_http_gcp_load_cert(ngx_conf_t *cf, ngx_str_t *cert, ngx_str_t *key,
    const char *directive, ngx_http_gcp_cred_t *cred)
{
    BIO   *bio;
    X509  *x;

    if (ngx_conf_full_name(cf->cycle, cert, 1) != NGX_OK
        || ngx_conf_full_name(cf->cycle, key, 1) != NGX_OK)
    {
        return NGX_CONF_ERROR;
    }

    bio = BIO_new_file((char *) cert->data, "r");
    if (bio == NULL) {
        ngx_ssl_error(NGX_LOG_EMERG, cf->log, 0, "%s \"%V\"", directive,
                      cert);
        return NGX_CONF_ERROR;
    }

    cred->chain = sk_X509_new_null();
    cred->leaf = PEM_read_bio_X509(bio, NULL, NULL, NULL);

    while (cred->leaf && cred->chain
           && (x = PEM_read_bio_X509(bio, NULL, NULL, NULL)))
    {
        sk_X509_push(cred->chain, x);
    }

    ERR_clear_error();
    BIO_free(bio);

    bio = BIO_new_file((char *) key->data, "r");
    cred->pkey = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);

    if (cred->leaf == NULL || cred->chain == NULL || cred->pkey == NULL
        || X509_check_private_key(cred->leaf, cred->pkey) != 1)
    {
        ngx_ssl_error(NGX_LOG_EMERG, cf->log, 0,
                      "%s \"%V\" with key \"%V\": no certificate and "
                      "matching key", directive, cert, key);
        return NGX_CONF_ERROR;
    }

    return NGX_CONF_OK;
}


/* The proxy client certificate and key, loaded now (nginx -t checks). */
static char *
ngx_http_gcp_proxy_cert(ngx_conf_t *cf, ngx_http_gcp_proxy_conf_t *pcf)
{
    if (pcf->cert.len == 0 && pcf->key.len == 0) {
        return NGX_CONF_OK;
    }

    if (pcf->cert.len == 0 || pcf->key.len == 0) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"gcp_proxy_client_certificate\" and "
                           "\"gcp_proxy_client_certificate_key\" go "
                           "together");
        return NGX_CONF_ERROR;
    }

    return ngx_http_gcp_load_cert(cf, &pcf->cert, &pcf->key,
                                  "gcp_proxy_client_certificate",
                                  &pcf->cred);
}


char *
ngx_http_gcp_proxy_init_conf(ngx_conf_t *cf, ngx_http_gcp_proxy_conf_t *pcf)
{
    ngx_hash_init_t            hash;
    ngx_http_upstream_conf_t  *u, prev;
    ngx_http_core_loc_conf_t  *clcf;

    ngx_conf_init_msec_value(pcf->connect_timeout, 5000);
    ngx_conf_init_msec_value(pcf->timeout, 60000);
    ngx_conf_init_size_value(pcf->buffer_size, 16384);

    pcf->long_timeout = 86400000;

    if (ngx_http_gcp_proxy_cert(cf, pcf) != NGX_CONF_OK
        || ngx_http_gcp_proxy_services(cf, pcf) != NGX_CONF_OK)
    {
        return NGX_CONF_ERROR;
    }

    /* names the blocks do not define: DNS, when nginx has a resolver */

    clcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module);
    pcf->dns = clcf->resolver != NULL && clcf->resolver->connections.nelts;

    /* the template every proxied request copies */

    u = &pcf->upstream;
    ngx_memzero(u, sizeof(ngx_http_upstream_conf_t));

    u->connect_timeout = pcf->connect_timeout;
    u->send_timeout = pcf->timeout;
    u->read_timeout = pcf->timeout;
    u->next_upstream_timeout = 0;
    u->buffer_size = pcf->buffer_size;
    u->limit_rate = 0;
    u->next_upstream = NGX_CONF_BITMASK_SET | NGX_HTTP_UPSTREAM_FT_ERROR
                       | NGX_HTTP_UPSTREAM_FT_TIMEOUT;
    u->next_upstream_tries = 0;
    u->buffering = 0;
    u->request_buffering = 0;
    u->pass_request_headers = 1;
    u->pass_request_body = 1;
    u->ignore_client_abort = 0;
    u->intercept_errors = 0;
    u->local = NULL;
    u->socket_keepalive = 0;

    /*
     * no TLS session kept per server: a session carries the outcome of
     * its first handshake's verification, made with the TLS context (the
     * caBundle) of the APIService of that time, and must not pass for
     * another's
     */
    u->ssl_session_reuse = 0;
    u->hide_headers = NGX_CONF_UNSET_PTR;
    u->pass_headers = NGX_CONF_UNSET_PTR;
    ngx_str_set(&u->module, "gcp");

    ngx_memzero(&prev, sizeof(ngx_http_upstream_conf_t));
    prev.hide_headers = NGX_CONF_UNSET_PTR;
    prev.pass_headers = NGX_CONF_UNSET_PTR;

    hash.max_size = 512;
    hash.bucket_size = ngx_align(64, ngx_cacheline_size);
    hash.name = "gcp_proxy_headers_hash";

    if (ngx_http_upstream_hide_headers_hash(cf, u, &prev,
                                            ngx_http_gcp_proxy_hide, &hash)
        != NGX_OK)
    {
        return NGX_CONF_ERROR;
    }

    return NGX_CONF_OK;
}


void
ngx_http_gcp_proxy_api_conf(ngx_http_gcp_proxy_conf_t *pcf,
    gcp_api_conf_t *conf)
{
    conf->services = pcf->services;
    conf->nservices = pcf->nservices;
    conf->service_dns = pcf->dns ? 1 : 0;
    conf->proxy_cert = pcf->cert.len ? (char *) pcf->cert.data : NULL;
    conf->proxy_key = pcf->key.len ? (char *) pcf->key.data : NULL;
}


/* A TLS context verifying servers with ca (or not at all). */
static ngx_int_t
ngx_http_gcp_tls_create(ngx_http_gcp_proxy_conf_t *pcf, ngx_ssl_t *ssl,
    const gcp_proxy_t *p, ngx_log_t *log)
{
    int                   i;
    BIO                  *bio;
    X509                 *x;
    X509_STORE           *store;
    ngx_http_gcp_cred_t  *cred;

    ssl->log = log;

    if (ngx_ssl_create(ssl, NGX_SSL_TLSv1_2 | NGX_SSL_TLSv1_3, NULL)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    (void) ngx_ssl_client_session_cache(NULL, ssl, 1);

    cred = p->front ? &pcf->front : &pcf->cred;

    if (cred->leaf) {
        if (SSL_CTX_use_certificate(ssl->ctx, cred->leaf) != 1
            || SSL_CTX_use_PrivateKey(ssl->ctx, cred->pkey) != 1)
        {
            ngx_ssl_error(NGX_LOG_ALERT, log, 0,
                          "gcp: the proxy client certificate");
            return NGX_ERROR;
        }

        for (i = 0; i < sk_X509_num(cred->chain); i++) {
            SSL_CTX_add1_chain_cert(ssl->ctx,
                                    sk_X509_value(cred->chain, i));
        }
    }

    if (p->insecure) {
        return NGX_OK;
    }

    if (p->ca.len == 0) {
        SSL_CTX_set_default_verify_paths(ssl->ctx);
        return NGX_OK;
    }

    store = SSL_CTX_get_cert_store(ssl->ctx);
    bio = BIO_new_mem_buf(p->ca.data, (int) p->ca.len);

    while (bio && (x = PEM_read_bio_X509(bio, NULL, NULL, NULL))) {
        X509_STORE_add_cert(store, x);
        X509_free(x);
    }

    /* a bundle that does not parse verifies nothing */

    ERR_clear_error();
    BIO_free(bio);

    return NGX_OK;
}


ngx_ssl_t *
ngx_http_gcp_proxy_tls(ngx_http_request_t *r, const gcp_proxy_t *p)
{
    ngx_uint_t                  i, flags;
    ngx_pool_t                 *pool;
    ngx_ssl_t                  *ssl;
    ngx_pool_cleanup_t         *cln;
    ngx_http_gcp_tls_t         *t;
    ngx_http_gcp_main_conf_t   *mcf;
    ngx_http_gcp_proxy_conf_t  *pcf;

    mcf = ngx_http_get_module_main_conf(r, ngx_http_gcp_module);
    pcf = &mcf->proxy;

    flags = (p->insecure ? 1 : 0) | (p->front ? 2 : 0);

    t = pcf->tls ? pcf->tls->elts : NULL;

    for (i = 0; t && i < pcf->tls->nelts; i++) {
        if (t[i].flags == flags && t[i].ca.len == p->ca.len
            && (p->ca.len == 0
                || ngx_memcmp(t[i].ca.data, p->ca.data, p->ca.len) == 0))
        {
            return &t[i].ssl;
        }
    }

    if (pcf->tls == NULL) {
        pcf->tls = ngx_array_create(ngx_cycle->pool,
                                    NGX_HTTP_GCP_PROXY_MAX_TLS,
                                    sizeof(ngx_http_gcp_tls_t));
        if (pcf->tls == NULL) {
            return NULL;
        }
    }

    /* one context per CA, for the worker's life; beyond, per request */

    if (pcf->tls->nelts < NGX_HTTP_GCP_PROXY_MAX_TLS) {
        pool = ngx_cycle->pool;
        t = ngx_array_push(pcf->tls);

    } else {
        pool = r->pool;
        t = ngx_palloc(pool, sizeof(ngx_http_gcp_tls_t));
    }

    if (t == NULL) {
        return NULL;
    }

    ngx_memzero(t, sizeof(ngx_http_gcp_tls_t));

    /* never found until it is made */
    t->flags = NGX_HTTP_GCP_TLS_NONE;

    t->ca.data = p->ca.len ? ngx_pnalloc(pool, p->ca.len) : (u_char *) "";
    cln = ngx_pool_cleanup_add(pool, 0);

    if (t->ca.data == NULL || cln == NULL) {
        return NULL;
    }

    if (p->ca.len) {
        ngx_memcpy(t->ca.data, p->ca.data, p->ca.len);
    }

    t->ca.len = p->ca.len;
    ssl = &t->ssl;

    if (ngx_http_gcp_tls_create(pcf, ssl, p, ngx_cycle->log) != NGX_OK) {
        if (ssl->ctx) {
            SSL_CTX_free(ssl->ctx);
        }

        return NULL;
    }

    t->flags = flags;
    cln->handler = ngx_ssl_cleanup_ctx;
    cln->data = ssl;

    return ssl;
}
