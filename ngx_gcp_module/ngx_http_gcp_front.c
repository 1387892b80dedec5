
/*
 * Fronting an upstream API server (the core's gcp_front.h): the gcp_front*
 * directives, checked and their files loaded when the configuration is
 * read.  The upstream is an https:// URL (an upstream block named
 * HOST:PORT is made for it, with keep-alive connections) or the name of
 * an nginx upstream block; requests go there through the proxy
 * (ngx_http_gcp_proxy.c) with the fronting credential.
 */

#include "ngx_http_gcp_module.h"
#include "gcp_front.h"


#define NGX_HTTP_GCP_FRONT_IMPERSONATE   0
#define NGX_HTTP_GCP_FRONT_PROXY         1

#define NGX_HTTP_GCP_FRONT_MAX_FILE      (1024 * 1024)


ngx_conf_enum_t  ngx_http_gcp_front_identities[] = {
    { ngx_string("impersonate"), NGX_HTTP_GCP_FRONT_IMPERSONATE },
    { ngx_string("front-proxy"), NGX_HTTP_GCP_FRONT_PROXY },
    { ngx_null_string, 0 }
};


void
ngx_http_gcp_front_create_conf(ngx_http_gcp_front_conf_t *fcf)
{
    fcf->authorize = NGX_CONF_UNSET;
    fcf->only = NGX_CONF_UNSET;
    fcf->identity = NGX_CONF_UNSET_UINT;
}


/* A NUL-terminated copy from the configuration's pool, or NULL. */
static char *
ngx_http_gcp_front_cstr(ngx_conf_t *cf, u_char *p, size_t len)
{
    u_char  *s;

    s = ngx_pnalloc(cf->pool, len + 1);
    if (s == NULL) {
        return NULL;
    }

    ngx_memcpy(s, p, len);
    s[len] = '\0';

    return (char *) s;
}


char *
ngx_http_gcp_front(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_gcp_main_conf_t *mcf = conf;

    u_char                     *host;
    ngx_str_t                  *value, name, addr;
    ngx_url_t                   u;
    ngx_http_gcp_front_conf_t  *fcf;

    fcf = &mcf->front;
    value = cf->args->elts;

    if (fcf->url.len) {
        return "is duplicate";
    }

    fcf->url = value[1];

    if (value[1].len < 8
        || ngx_strncasecmp(value[1].data, (u_char *) "https://", 8) != 0)
    {
        if (ngx_strlchr(value[1].data, value[1].data + value[1].len, ':')
            || ngx_strlchr(value[1].data, value[1].data + value[1].len, '/'))
        {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "\"gcp_front\" takes an https:// URL or the "
                               "name of an upstream block, not \"%V\"",
                               &value[1]);
            return NGX_CONF_ERROR;
        }

        /* an upstream block, checked once all are read */

        fcf->conf.upstream = ngx_http_gcp_front_cstr(cf, value[1].data,
                                                     value[1].len);
        fcf->conf.port = 443;

        return fcf->conf.upstream ? NGX_CONF_OK : NGX_CONF_ERROR;
    }

    addr.data = value[1].data + 8;
    addr.len = value[1].len - 8;

    if (addr.len && addr.data[addr.len - 1] == '/') {
        addr.len--;
    }

    ngx_memzero(&u, sizeof(ngx_url_t));
    u.url = addr;
    u.default_port = 443;
    u.no_resolve = 1;

    if (ngx_parse_url(cf->pool, &u) != NGX_OK || u.uri.len) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "\"gcp_front\": %s in "
                           "\"%V\"", u.err ? u.err : "no path allowed",
                           &value[1]);
        return NGX_CONF_ERROR;
    }

    host = u.host.data;

    fcf->conf.upstream = ngx_http_gcp_front_cstr(cf, host, u.host.len);
    fcf->conf.port = u.port;

    name.data = ngx_pnalloc(cf->pool, u.host.len + NGX_INT_T_LEN + 1);
    if (fcf->conf.upstream == NULL || name.data == NULL) {
        return NGX_CONF_ERROR;
    }

    name.len = ngx_sprintf(name.data, "%V:%d", &u.host, (int) u.port)
               - name.data;

    /* the block is the address; the host (and port) as clients wrote it */

    addr.data = name.data;
    addr.len = name.len;

    fcf->conf.address = ngx_http_gcp_front_cstr(cf, name.data, name.len);
    if (fcf->conf.address == NULL) {
        return NGX_CONF_ERROR;
    }

    return ngx_http_gcp_proxy_block(cf, &name, &addr, 1);
}


/* Splits "a,b,c" into a NULL-terminated list from the pool, or NULL. */
static const char * const *
ngx_http_gcp_front_list(ngx_conf_t *cf, u_char *p, size_t len)
{
    u_char       *end, *comma;
    ngx_uint_t    n, i;
    const char  **list;

    end = p + len;
    n = 1;

    for (comma = p; comma < end; comma++) {
        n += *comma == ',';
    }

    list = ngx_pcalloc(cf->pool, (n + 1) * sizeof(char *));
    if (list == NULL) {
        return NULL;
    }

    for (i = 0; i < n; i++) {
        comma = ngx_strlchr(p, end, ',');
        comma = comma ? comma : end;

        if (comma == p) {
            return NULL;
        }

        list[i] = ngx_http_gcp_front_cstr(cf, p, comma - p);
        if (list[i] == NULL) {
            return NULL;
        }

        p = comma + 1;
    }

    return list;
}


/* GROUP/VERSION/RESOURCE or VERSION/RESOURCE (the core group) into e. */
static char *
ngx_http_gcp_front_gvr(ngx_conf_t *cf, ngx_str_t *arg, gcp_front_expose_t *e)
{
    u_char      *p, *end, *s1, *s2;
    ngx_uint_t   n;

    p = arg->data;
    end = p + arg->len;

    s1 = ngx_strlchr(p, end, '/');
    s2 = s1 ? ngx_strlchr(s1 + 1, end, '/') : NULL;

    n = s2 && ngx_strlchr(s2 + 1, end, '/') ? 0 : (s2 ? 3 : (s1 ? 2 : 0));

    if (n == 0 || s1 == p || s1 + 1 == end || (s2 && s2 + 1 == end)
        || (s2 && s2 == s1 + 1))
    {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"gcp_front_expose\": \"%V\" is not "
                           "GROUP/VERSION/RESOURCE or VERSION/RESOURCE "
                           "(the core group)", arg);
        return NGX_CONF_ERROR;
    }

    if (n == 2) {
        e->group = "";
        e->version = ngx_http_gcp_front_cstr(cf, p, s1 - p);
        e->resource = ngx_http_gcp_front_cstr(cf, s1 + 1, end - s1 - 1);

    } else {
        e->group = ngx_http_gcp_front_cstr(cf, p, s1 - p);
        e->version = ngx_http_gcp_front_cstr(cf, s1 + 1, s2 - s1 - 1);
        e->resource = ngx_http_gcp_front_cstr(cf, s2 + 1, end - s2 - 1);
    }

    if (e->group == NULL || e->version == NULL || e->resource == NULL) {
        return NGX_CONF_ERROR;
    }

    if (ngx_strchr(e->resource, '*')) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"gcp_front_expose\": resources are named one "
                           "by one, not \"%s\"", e->resource);
        return NGX_CONF_ERROR;
    }

    return NGX_CONF_OK;
}


char *
ngx_http_gcp_front_expose(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_gcp_main_conf_t *mcf = conf;

    size_t                      blen;
    ngx_str_t                  *value, *v;
    ngx_uint_t                  i, j;
    const char                 *bad, *verbs;
    gcp_front_expose_t         *e, *prev;
    const char * const        **list;
    ngx_http_gcp_front_conf_t  *fcf;

    fcf = &mcf->front;
    value = cf->args->elts;

    if (fcf->expose == NULL) {
        fcf->expose = ngx_array_create(cf->pool, 4,
                                       sizeof(gcp_front_expose_t));
        if (fcf->expose == NULL) {
            return NGX_CONF_ERROR;
        }
    }

    e = ngx_array_push(fcf->expose);
    if (e == NULL) {
        return NGX_CONF_ERROR;
    }

    ngx_memzero(e, sizeof(gcp_front_expose_t));

    if (ngx_http_gcp_front_gvr(cf, &value[1], e) != NGX_CONF_OK) {
        return NGX_CONF_ERROR;
    }

    prev = fcf->expose->elts;

    for (i = 0; i + 1 < fcf->expose->nelts; i++) {
        if (ngx_strcmp(prev[i].group, e->group) == 0
            && ngx_strcmp(prev[i].version, e->version) == 0
            && ngx_strcmp(prev[i].resource, e->resource) == 0)
        {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "\"gcp_front_expose\": \"%V\" is already "
                               "exposed", &value[1]);
            return NGX_CONF_ERROR;
        }
    }

    verbs = ngx_http_gcp_front_cstr(cf, value[2].data, value[2].len);
    if (verbs == NULL) {
        return NGX_CONF_ERROR;
    }

    if (gcp_front_verbs(verbs, &e->verbs, &bad, &blen) != GCP_OK) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"gcp_front_expose\": unknown verb \"%*s\" in "
                           "\"%V\"", blen, bad, &value[2]);
        return NGX_CONF_ERROR;
    }

    for (i = 3; i < cf->args->nelts; i++) {
        v = &value[i];

        if (v->len > 11 && ngx_strncmp(v->data, "namespaces=", 11) == 0) {
            list = &e->namespaces;
            j = 11;

        } else if (v->len > 13
                   && ngx_strncmp(v->data, "subresources=", 13) == 0)
        {
            list = &e->subresources;
            j = 13;

        } else {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "\"gcp_front_expose\": invalid parameter "
                               "\"%V\"", v);
            return NGX_CONF_ERROR;
        }

        if (*list) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "\"gcp_front_expose\": duplicate \"%V\"", v);
            return NGX_CONF_ERROR;
        }

        *list = ngx_http_gcp_front_list(cf, v->data + j, v->len - j);

        if (*list == NULL) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "\"gcp_front_expose\": empty name in \"%V\"",
                               v);
            return NGX_CONF_ERROR;
        }
    }

    return NGX_CONF_OK;
}


/* The upstream block gcp_front names exists (explicit, with servers). */
static char *
ngx_http_gcp_front_block(ngx_conf_t *cf, ngx_http_gcp_front_conf_t *fcf)
{
    size_t                          len;
    ngx_uint_t                      i;
    ngx_addr_t                     *a;
    ngx_http_upstream_server_t     *server;
    ngx_http_upstream_srv_conf_t  **uscfp;
    ngx_http_upstream_main_conf_t  *umcf;

    umcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_upstream_module);
    uscfp = umcf->upstreams.elts;
    len = ngx_strlen(fcf->conf.upstream);

    for (i = 0; i < umcf->upstreams.nelts; i++) {
        if (uscfp[i]->srv_conf && uscfp[i]->servers
            && uscfp[i]->host.len == len
            && ngx_strncasecmp(uscfp[i]->host.data,
                               (u_char *) fcf->conf.upstream, len) == 0
            && uscfp[i]->servers->nelts)
        {
            /* the documents come from its first address */

            server = uscfp[i]->servers->elts;

            if (server[0].naddrs == 0) {
                break;
            }

            a = &server[0].addrs[0];
            fcf->conf.address = ngx_http_gcp_front_cstr(cf, a->name.data,
                                                        a->name.len);

            return fcf->conf.address ? NGX_CONF_OK : NGX_CONF_ERROR;
        }
    }

    ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                       "\"gcp_front\": no upstream block \"%V\"", &fcf->url);

    return NGX_CONF_ERROR;
}


/* The credential: a client certificate, or a bearer token file. */
static char *
ngx_http_gcp_front_credential(ngx_conf_t *cf, ngx_http_gcp_front_conf_t *fcf,
    ngx_http_gcp_proxy_conf_t *pcf)
{
    int         rc;
    size_t      len;
    ngx_str_t   token;

    if ((fcf->cert.len == 0) != (fcf->key.len == 0)) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"gcp_front_client_certificate\" and "
                           "\"gcp_front_client_certificate_key\" go "
                           "together");
        return NGX_CONF_ERROR;
    }

    if (fcf->cert.len == 0 && fcf->token.len == 0) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"gcp_front\" needs a credential: "
                           "\"gcp_front_client_certificate\" or "
                           "\"gcp_front_token_file\"");
        return NGX_CONF_ERROR;
    }

    if (fcf->cert.len
        && ngx_http_gcp_load_cert(cf, &fcf->cert, &fcf->key,
                                  "gcp_front_client_certificate",
                                  &pcf->front)
           != NGX_CONF_OK)
    {
        return NGX_CONF_ERROR;
    }

    if (fcf->identity == NGX_HTTP_GCP_FRONT_PROXY && fcf->cert.len == 0) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"gcp_front_identity front-proxy\" needs "
                           "\"gcp_front_client_certificate\": the upstream "
                           "trusts the headers over it only");
        return NGX_CONF_ERROR;
    }

    if (fcf->cert.len) {
        fcf->conf.cert_file = (char *) fcf->cert.data;
        fcf->conf.key_file = (char *) fcf->key.data;
    }

    if (fcf->token.len == 0) {
        return NGX_CONF_OK;
    }

    if (ngx_http_gcp_read_conf_file(cf, &fcf->token,
                                    NGX_HTTP_GCP_FRONT_MAX_FILE, &token)
        != NGX_CONF_OK)
    {
        return NGX_CONF_ERROR;
    }

    /* the first line, as kubectl's tokenFile */

    rc = gcp_front_token_line((char *) token.data, token.len, &len);

    if (rc == GCP_FRONT_TOKEN_BAD_BYTE) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"gcp_front_token_file\" \"%V\": the token "
                           "holds a byte a header cannot carry",
                           &fcf->token);
        return NGX_CONF_ERROR;
    }

    if (rc != GCP_OK) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"gcp_front_token_file\" \"%V\" is empty",
                           &fcf->token);
        return NGX_CONF_ERROR;
    }

    /* read again by each process when it changes (gcp_front_token.c) */

    fcf->conf.token_file = (char *) fcf->token.data;
    fcf->conf.token = ngx_http_gcp_front_cstr(cf, token.data, len);

    return fcf->conf.token ? NGX_CONF_OK : NGX_CONF_ERROR;
}


char *
ngx_http_gcp_front_init_conf(ngx_conf_t *cf, ngx_http_gcp_front_conf_t *fcf,
    ngx_http_gcp_proxy_conf_t *pcf)
{
    ngx_str_t  ca, host;

    ngx_conf_init_value(fcf->authorize, 0);
    ngx_conf_init_value(fcf->only, 0);
    ngx_conf_init_uint_value(fcf->identity, NGX_HTTP_GCP_FRONT_IMPERSONATE);

    if (fcf->url.len == 0) {
        if (fcf->expose || fcf->ca.len || fcf->cert.len || fcf->token.len
            || fcf->server_name.len || fcf->only)
        {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "\"gcp_front_*\" directives need "
                               "\"gcp_front\"");
            return NGX_CONF_ERROR;
        }

        return NGX_CONF_OK;
    }

    if (fcf->expose == NULL) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"gcp_front\" exposes nothing: add "
                           "\"gcp_front_expose\"");
        return NGX_CONF_ERROR;
    }

    if (ngx_strncasecmp(fcf->url.data, (u_char *) "https://", 8) != 0
        && ngx_http_gcp_front_block(cf, fcf) != NGX_CONF_OK)
    {
        return NGX_CONF_ERROR;
    }

    /* the certificate is verified by name: an address needs one */

    host.data = (u_char *) fcf->conf.upstream;
    host.len = ngx_strlen(fcf->conf.upstream);

    if (fcf->server_name.len == 0
        && (host.data[0] == '[' || ngx_inet_addr(host.data, host.len)
                                   != INADDR_NONE))
    {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"gcp_front\" \"%V\" is an address: name the "
                           "server's certificate with "
                           "\"gcp_front_server_name\"", &fcf->url);
        return NGX_CONF_ERROR;
    }

    fcf->conf.server_name = fcf->server_name.len
                            ? ngx_http_gcp_front_cstr(cf,
                                  fcf->server_name.data,
                                  fcf->server_name.len)
                            : fcf->conf.upstream;

    if (fcf->conf.server_name == NULL) {
        return NGX_CONF_ERROR;
    }

    if (fcf->ca.len) {
        if (ngx_http_gcp_read_conf_file(cf, &fcf->ca,
                                        NGX_HTTP_GCP_FRONT_MAX_FILE, &ca)
            != NGX_CONF_OK)
        {
            return NGX_CONF_ERROR;
        }

        if (ngx_strstr(ca.data, "-----BEGIN CERTIFICATE-----") == NULL) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "\"gcp_front_ca_file\" \"%V\" holds no "
                               "certificate", &fcf->ca);
            return NGX_CONF_ERROR;
        }

        fcf->conf.ca.data = (char *) ca.data;
        fcf->conf.ca.len = ca.len;
    }

    if (ngx_http_gcp_front_credential(cf, fcf, pcf) != NGX_CONF_OK) {
        return NGX_CONF_ERROR;
    }

    fcf->conf.authorize = fcf->authorize ? 1 : 0;
    fcf->conf.only = fcf->only ? 1 : 0;
    fcf->conf.front_proxy = fcf->identity == NGX_HTTP_GCP_FRONT_PROXY;
    fcf->conf.expose = fcf->expose->elts;
    fcf->conf.nexpose = fcf->expose->nelts;

    return NGX_CONF_OK;
}
