
/*
 * Authentication in the adapter: the directives' configuration, loaded
 * into a gcp_auth_t when the configuration is read (so that "nginx -t"
 * and a reload report a bad file, and the workers inherit it), and what a
 * request hands to the core for it: every header, and the client
 * certificate chain of the TLS connection as PEM.  nginx does not verify
 * client certificates (ssl_verify_client optional_no_ca): the core does,
 * against its own CAs.
 */

#include "ngx_http_gcp_module.h"


static void ngx_http_gcp_auth_cleanup(void *data);


char *
ngx_http_gcp_conf_set_list(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    char  *p = conf;

    ngx_str_t     *value, *s;
    ngx_uint_t     i;
    ngx_array_t  **a;

    a = (ngx_array_t **) (p + cmd->offset);

    if (*a == NGX_CONF_UNSET_PTR || *a == NULL) {
        *a = ngx_array_create(cf->pool, 4, sizeof(ngx_str_t));
        if (*a == NULL) {
            return NGX_CONF_ERROR;
        }
    }

    value = cf->args->elts;

    for (i = 1; i < cf->args->nelts; i++) {
        s = ngx_array_push(*a);
        if (s == NULL) {
            return NGX_CONF_ERROR;
        }

        *s = value[i];
    }

    return NGX_CONF_OK;
}


void
ngx_http_gcp_auth_create_conf(ngx_http_gcp_auth_conf_t *acf)
{
    /*
     * set by ngx_pcalloc():
     *
     *     acf->client_ca_file = { 0, NULL };
     *     acf->token_auth_file = { 0, NULL };
     *     acf->sa_signing_key_file = { 0, NULL };
     *     acf->requestheader_ca_file = { 0, NULL };
     *     acf->authentication_config = { 0, NULL };
     *     acf->auth = NULL;
     */

    acf->sa_key_files = NGX_CONF_UNSET_PTR;
    acf->sa_issuers = NGX_CONF_UNSET_PTR;
    acf->api_audiences = NGX_CONF_UNSET_PTR;
    acf->requestheader_allowed_names = NGX_CONF_UNSET_PTR;
    acf->requestheader_username_headers = NGX_CONF_UNSET_PTR;
    acf->requestheader_group_headers = NGX_CONF_UNSET_PTR;
    acf->requestheader_extra_prefixes = NGX_CONF_UNSET_PTR;
    acf->sa_max_expiration = NGX_CONF_UNSET;
    acf->anonymous = NGX_CONF_UNSET;
    acf->mode = NGX_CONF_UNSET_UINT;
}


/* A file name resolved against the configuration prefix (NUL-ended). */

static const char *
ngx_http_gcp_auth_file(ngx_conf_t *cf, ngx_str_t *name)
{
    if (name->len == 0) {
        return NULL;
    }

    if (ngx_conf_full_name(cf->cycle, name, 1) != NGX_OK) {
        return "";
    }

    return (const char *) name->data;
}


/*
 * A NULL-terminated array of the list's strings (file names resolved),
 * from cf->pool; NULL for an unset list, and *failed on errors.
 */

static const char **
ngx_http_gcp_auth_list(ngx_conf_t *cf, ngx_array_t *a, ngx_uint_t files,
    ngx_uint_t *failed)
{
    ngx_str_t    *s;
    ngx_uint_t    i;
    const char  **v;

    if (a == NGX_CONF_UNSET_PTR || a == NULL || a->nelts == 0) {
        return NULL;
    }

    v = ngx_pcalloc(cf->pool, (a->nelts + 1) * sizeof(const char *));
    if (v == NULL) {
        *failed = 1;
        return NULL;
    }

    s = a->elts;

    for (i = 0; i < a->nelts; i++) {
        if (files && ngx_conf_full_name(cf->cycle, &s[i], 1) != NGX_OK) {
            *failed = 1;
            return NULL;
        }

        /* directive arguments and full names are NUL-terminated */
        v[i] = (const char *) s[i].data;
    }

    return v;
}


char *
ngx_http_gcp_auth_init_conf(ngx_conf_t *cf, ngx_http_gcp_auth_conf_t *acf)
{
    char                 err[512];
    ngx_uint_t           failed;
    gcp_auth_conf_t      conf;
    ngx_pool_cleanup_t  *cln;

    ngx_conf_init_value(acf->anonymous, 1);
    ngx_conf_init_value(acf->sa_max_expiration, 0);
    ngx_conf_init_uint_value(acf->mode, NGX_HTTP_GCP_AUTHZ_ALWAYS_ALLOW);

    ngx_memzero(&conf, sizeof(gcp_auth_conf_t));
    failed = 0;

    conf.client_ca_file = ngx_http_gcp_auth_file(cf, &acf->client_ca_file);
    conf.token_auth_file = ngx_http_gcp_auth_file(cf, &acf->token_auth_file);
    conf.sa_signing_key_file = ngx_http_gcp_auth_file(cf,
                                                 &acf->sa_signing_key_file);
    conf.requestheader_ca_file = ngx_http_gcp_auth_file(cf,
                                               &acf->requestheader_ca_file);
    conf.authentication_config_file = ngx_http_gcp_auth_file(cf,
                                               &acf->authentication_config);
    conf.authentication_config_name = "gcp_authentication_config";

    conf.sa_key_files = ngx_http_gcp_auth_list(cf, acf->sa_key_files, 1,
                                               &failed);
    conf.sa_issuers = ngx_http_gcp_auth_list(cf, acf->sa_issuers, 0,
                                             &failed);
    conf.api_audiences = ngx_http_gcp_auth_list(cf, acf->api_audiences, 0,
                                                &failed);
    conf.requestheader_allowed_names = ngx_http_gcp_auth_list(cf,
                                  acf->requestheader_allowed_names, 0,
                                  &failed);
    conf.requestheader_username_headers = ngx_http_gcp_auth_list(cf,
                                  acf->requestheader_username_headers, 0,
                                  &failed);
    conf.requestheader_group_headers = ngx_http_gcp_auth_list(cf,
                                  acf->requestheader_group_headers, 0,
                                  &failed);
    conf.requestheader_extra_prefixes = ngx_http_gcp_auth_list(cf,
                                  acf->requestheader_extra_prefixes, 0,
                                  &failed);

    if (failed
        || (conf.client_ca_file && conf.client_ca_file[0] == '\0')
        || (conf.token_auth_file && conf.token_auth_file[0] == '\0')
        || (conf.sa_signing_key_file && conf.sa_signing_key_file[0] == '\0')
        || (conf.requestheader_ca_file
            && conf.requestheader_ca_file[0] == '\0')
        || (conf.authentication_config_file
            && conf.authentication_config_file[0] == '\0'))
    {
        return NGX_CONF_ERROR;
    }

    /* a directive argument, NUL-terminated */
    conf.sa_jwks_uri = acf->sa_jwks_uri.len
                       ? (const char *) acf->sa_jwks_uri.data : NULL;

    conf.sa_max_expiration = (int64_t) acf->sa_max_expiration;
    conf.anonymous = acf->anonymous ? 1 : 0;

    cln = ngx_pool_cleanup_add(cf->pool, 0);
    if (cln == NULL) {
        return NGX_CONF_ERROR;
    }

    acf->auth = gcp_auth_create(&conf, err, sizeof(err));

    if (acf->auth == NULL) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "gcp authentication: %s",
                           err);
        return NGX_CONF_ERROR;
    }

    cln->handler = ngx_http_gcp_auth_cleanup;
    cln->data = acf->auth;

    return NGX_CONF_OK;
}


/* Every process that has the cycle frees its own copy. */

static void
ngx_http_gcp_auth_cleanup(void *data)
{
    gcp_auth_destroy(data);
}


const char *
ngx_http_gcp_authorization_mode(ngx_http_gcp_auth_conf_t *acf)
{
    return acf->mode == NGX_HTTP_GCP_AUTHZ_RBAC ? "RBAC" : "AlwaysAllow";
}


/* request */


static ngx_int_t
ngx_http_gcp_auth_headers(ngx_http_request_t *r, gcp_request_t *req)
{
    size_t            n;
    ngx_uint_t        i;
    gcp_header_t     *headers;
    ngx_list_part_t  *part;
    ngx_table_elt_t  *h;

    n = 0;

    for (part = &r->headers_in.headers.part; part; part = part->next) {
        n += part->nelts;
    }

    if (n == 0) {
        return NGX_OK;
    }

    headers = gcp_alloc(req->arena, n * sizeof(gcp_header_t));
    if (headers == NULL) {
        return NGX_ERROR;
    }

    n = 0;
    part = &r->headers_in.headers.part;
    h = part->elts;

    for (i = 0; /* void */; i++) {

        if (i >= part->nelts) {
            if (part->next == NULL) {
                break;
            }

            part = part->next;
            h = part->elts;
            i = 0;
        }

        headers[n].name = gcp_strndup(req->arena, (char *) h[i].key.data,
                                      h[i].key.len);
        headers[n].value = gcp_strndup(req->arena, (char *) h[i].value.data,
                                       h[i].value.len);

        if (headers[n].name == NULL || headers[n].value == NULL) {
            return NGX_ERROR;
        }

        n++;
    }

    req->headers = headers;
    req->nheaders = n;

    return NGX_OK;
}


#if (NGX_HTTP_SSL)

/*
 * A connection's certificates as PEM, made on its first request and kept
 * in its pool, found through its SSL object (ex_data): a client presents
 * the same ones on every request of a connection (nginx allows no
 * renegotiation), and their encoding cost more than the rest of a
 * request's authentication (about 2.4 us for one certificate).
 */
typedef struct {
    X509    *leaf;          /* the certificate they were made from (a */
                            /* reference) */
    size_t   len;
    u_char   data[1];
} ngx_http_gcp_pem_t;


static int  ngx_http_gcp_pem_index = -1;


/*
 * With ssl_verify_client optional_no_ca nginx still refuses (400) a
 * client certificate whose verification fails for a reason other than
 * an unknown issuer: one of the cluster's CA that has expired or lacks
 * the clientAuth usage.  kube-apiserver ignores such a certificate and
 * authenticates the rest of the request (a bearer token), or answers
 * 401.  The core verifies certificates itself, against its own CAs: for
 * nginx, every certificate the client sends is accepted, and the errors
 * of its failed checks are not left queued.
 */

static int
ngx_http_gcp_ssl_verify(int ok, X509_STORE_CTX *x509_store)
{
    X509_STORE_CTX_set_error(x509_store, X509_V_OK);

    /*
     * a failed check (a signature by a key other than the named CA's)
     * leaves OpenSSL errors queued: nginx's next read of the connection
     * would log "ignoring stale global SSL error" for each
     */
    ERR_clear_error();

    return 1;
}


ngx_int_t
ngx_http_gcp_auth_ssl_init(ngx_conf_t *cf)
{
    ngx_uint_t                   s;
    ngx_http_ssl_srv_conf_t     *sscf;
    ngx_http_gcp_srv_conf_t     *scf;
    ngx_http_core_srv_conf_t   **cscfp;
    ngx_http_core_main_conf_t   *cmcf;

    if (ngx_http_gcp_pem_index < 0) {
        ngx_http_gcp_pem_index = SSL_get_ex_new_index(0, NULL, NULL, NULL,
                                                      NULL);
    }

    cmcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_core_module);
    cscfp = cmcf->servers.elts;

    for (s = 0; s < cmcf->servers.nelts; s++) {
        scf = cscfp[s]->ctx->srv_conf[ngx_http_gcp_module.ctx_index];
        sscf = cscfp[s]->ctx->srv_conf[ngx_http_ssl_module.ctx_index];

        /* ssl_verify_client optional_no_ca (3) in a server of gcp_api */

        if (!scf->api || sscf->ssl.ctx == NULL || sscf->verify != 3) {
            continue;
        }

        SSL_CTX_set_verify(sscf->ssl.ctx,
                           SSL_CTX_get_verify_mode(sscf->ssl.ctx),
                           ngx_http_gcp_ssl_verify);
    }

    return NGX_OK;
}


static void
ngx_http_gcp_pem_cleanup(void *data)
{
    ngx_http_gcp_pem_t  *pem = data;

    X509_free(pem->leaf);
}


/* Keeps the PEM data (len bytes) of leaf's certificates with r's TLS. */
static void
ngx_http_gcp_pem_keep(ngx_http_request_t *r, SSL *ssl, X509 *leaf,
    char *data, size_t len)
{
    ngx_connection_t    *c;
    ngx_pool_cleanup_t  *cln;
    ngx_http_gcp_pem_t  *pem;

    c = r->connection;

#if (NGX_HTTP_V2)
    /* a stream's connection is its own: the TLS one lives longer */
    if (r->stream) {
        c = r->stream->connection->connection;
    }
#endif

    if (ngx_http_gcp_pem_index < 0) {
        return;
    }

    cln = ngx_pool_cleanup_add(c->pool,
                               offsetof(ngx_http_gcp_pem_t, data) + len);
    if (cln == NULL) {
        return;
    }

    pem = cln->data;
    pem->leaf = leaf;
    pem->len = len;
    ngx_memcpy(pem->data, data, len);

    X509_up_ref(leaf);
    cln->handler = ngx_http_gcp_pem_cleanup;

    (void) SSL_set_ex_data(ssl, ngx_http_gcp_pem_index, pem);
}


/* The client's certificate, then the chain it sent, as PEM. */

static ngx_int_t
ngx_http_gcp_auth_peer_certs(ngx_http_request_t *r, gcp_request_t *req)
{
    int                  i, n;
    BIO                 *bio;
    SSL                 *ssl;
    X509                *leaf;
    long                 len;
    char                *data;
    ngx_int_t            rc;
    STACK_OF(X509)      *chain;
    ngx_http_gcp_pem_t  *pem;

    if (r->connection->ssl == NULL) {
        return NGX_OK;
    }

    ssl = r->connection->ssl->connection;

    leaf = SSL_get_peer_certificate(ssl);
    if (leaf == NULL) {
        return NGX_OK;
    }

    pem = ngx_http_gcp_pem_index < 0
          ? NULL : SSL_get_ex_data(ssl, ngx_http_gcp_pem_index);

    if (pem && pem->leaf == leaf) {
        X509_free(leaf);

        req->peer_certs.data = gcp_strndup(req->arena, (char *) pem->data,
                                           pem->len);
        req->peer_certs.len = pem->len;

        return req->peer_certs.data ? NGX_OK : NGX_ERROR;
    }

    bio = BIO_new(BIO_s_mem());
    if (bio == NULL) {
        X509_free(leaf);
        return NGX_ERROR;
    }

    rc = NGX_ERROR;

    if (PEM_write_bio_X509(bio, leaf) != 1) {
        goto done;
    }

    /* on the server side the chain does not hold the client's own */

    chain = SSL_get_peer_cert_chain(ssl);
    n = chain ? sk_X509_num(chain) : 0;

    for (i = 0; i < n; i++) {
        if (X509_cmp(sk_X509_value(chain, i), leaf) != 0
            && PEM_write_bio_X509(bio, sk_X509_value(chain, i)) != 1)
        {
            goto done;
        }
    }

    len = BIO_get_mem_data(bio, &data);

    req->peer_certs.data = gcp_strndup(req->arena, data, (size_t) len);
    req->peer_certs.len = (size_t) len;

    if (req->peer_certs.data) {
        ngx_http_gcp_pem_keep(r, ssl, leaf, data, (size_t) len);
        rc = NGX_OK;
    }

done:

    if (rc != NGX_OK) {
        ngx_ssl_error(NGX_LOG_ERR, r->connection->log, 0,
                      "gcp: client certificate to PEM failed");
    }

    X509_free(leaf);
    BIO_free(bio);

    return rc;
}

#endif


ngx_int_t
ngx_http_gcp_auth_request(ngx_http_request_t *r, gcp_request_t *req)
{
    if (ngx_http_gcp_auth_headers(r, req) != NGX_OK) {
        return NGX_ERROR;
    }

#if (NGX_HTTP_SSL)
    if (ngx_http_gcp_auth_peer_certs(r, req) != NGX_OK) {
        return NGX_ERROR;
    }
#endif

    return NGX_OK;
}
