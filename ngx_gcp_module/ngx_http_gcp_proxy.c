
/*
 * Proxying a request the core handed on (gcp_proxy_t, gcp_request.h) to
 * another server through nginx's upstream machinery: nginx upstream blocks
 * give load balancing, keep-alive connections and failover; the request
 * body streams to the server when its length is known (a chunked one is
 * read first), the answer streams back as it arrives (never buffered
 * whole: a slow client slows the reading), upgrades (WebSocket, SPDY)
 * become tunnels.  HTTP/1.1 over TLS, verified per request with the CA the
 * core gives (ngx_http_gcp_proxy_conf.c keeps a TLS context per CA).
 *
 * A server that cannot be reached makes nginx answer 502 or 504; the
 * Status filter turns that into a 503 Status naming the server
 * (ngx_http_gcp_proxy_failure()).
 */

#include "ngx_http_gcp_module.h"


typedef struct {
    const gcp_proxy_t          *proxy;
    ngx_http_status_t           status;
    ngx_http_chunked_t          chunked;
    ngx_http_complex_value_t    ssl_name;
    unsigned                    head:1;
} ngx_http_gcp_proxy_ctx_t;


static ngx_int_t ngx_http_gcp_proxy_create_request(ngx_http_request_t *r);
static ngx_int_t ngx_http_gcp_proxy_reinit_request(ngx_http_request_t *r);
static ngx_int_t ngx_http_gcp_proxy_status_line(ngx_http_request_t *r);
static ngx_int_t ngx_http_gcp_proxy_header(ngx_http_request_t *r);
static ngx_int_t ngx_http_gcp_proxy_filter_init(void *data);
static ngx_int_t ngx_http_gcp_proxy_copy_filter(void *data, ssize_t bytes);
static ngx_int_t ngx_http_gcp_proxy_chunked_filter(void *data,
    ssize_t bytes);
static void ngx_http_gcp_proxy_abort_request(ngx_http_request_t *r);
static void ngx_http_gcp_proxy_finalize_request(ngx_http_request_t *r,
    ngx_int_t rc);


/* Request headers never passed on as they are (hop-by-hop, or rewritten). */
static ngx_str_t  ngx_http_gcp_proxy_hop[] = {
    ngx_string("Host"),
    ngx_string("Connection"),
    ngx_string("Keep-Alive"),
    ngx_string("Proxy-Connection"),
    ngx_string("Proxy-Authorization"),
    ngx_string("TE"),
    ngx_string("Trailer"),
    ngx_string("Transfer-Encoding"),
    ngx_string("Upgrade"),
    ngx_string("Content-Length"),
    ngx_string("Expect"),
    ngx_null_string
};


/* Finds the upstream block named name[:port] (explicit blocks only). */
static ngx_http_upstream_srv_conf_t *
ngx_http_gcp_proxy_upstream(ngx_http_request_t *r, const char *name,
    int port)
{
    u_char                          buf[NGX_MAXHOSTNAMELEN + 8];
    size_t                          len, plen;
    ngx_uint_t                      i;
    ngx_http_upstream_srv_conf_t  **uscfp;
    ngx_http_upstream_main_conf_t  *umcf;

    umcf = ngx_http_get_module_main_conf(r, ngx_http_upstream_module);
    uscfp = umcf->upstreams.elts;

    len = ngx_strlen(name);
    plen = ngx_snprintf(buf, sizeof(buf), "%s:%d", name, port) - buf;

    /* NAME.NAMESPACE.svc:PORT first, then NAME.NAMESPACE.svc */

    for (i = 0; i < umcf->upstreams.nelts; i++) {
        if (uscfp[i]->srv_conf && uscfp[i]->host.len == plen
            && ngx_strncasecmp(uscfp[i]->host.data, buf, plen) == 0)
        {
            return uscfp[i];
        }
    }

    for (i = 0; i < umcf->upstreams.nelts; i++) {
        if (uscfp[i]->srv_conf && uscfp[i]->host.len == len
            && ngx_strncasecmp(uscfp[i]->host.data, (u_char *) name, len)
               == 0)
        {
            return uscfp[i];
        }
    }

    return NULL;
}


/* Where the request goes: an upstream block, or a name for DNS. */
static ngx_int_t
ngx_http_gcp_proxy_target(ngx_http_request_t *r, ngx_http_upstream_t *u,
    const gcp_proxy_t *p)
{
    ngx_http_upstream_srv_conf_t  *uscf;

    uscf = ngx_http_gcp_proxy_upstream(r, p->upstream, p->port);

    if (uscf) {
        u->conf->upstream = uscf;
        return NGX_OK;
    }

    u->resolved = ngx_pcalloc(r->pool, sizeof(ngx_http_upstream_resolved_t));
    if (u->resolved == NULL) {
        return NGX_ERROR;
    }

    u->resolved->host.data = (u_char *) p->upstream;
    u->resolved->host.len = ngx_strlen(p->upstream);
    u->resolved->port = (in_port_t) p->port;
    u->resolved->no_port = 0;

    return NGX_OK;
}


ngx_int_t
ngx_http_gcp_proxy(ngx_http_request_t *r, const gcp_proxy_t *p)
{
    ngx_int_t                   rc;
    ngx_http_upstream_t        *u;
    ngx_http_gcp_ctx_t         *gctx;
    ngx_http_gcp_proxy_ctx_t   *ctx;
    ngx_http_upstream_conf_t   *conf;
    ngx_http_gcp_main_conf_t   *mcf;

    mcf = ngx_http_get_module_main_conf(r, ngx_http_gcp_module);
    gctx = ngx_http_gcp_get_ctx(r);

    ctx = ngx_pcalloc(r->pool, sizeof(ngx_http_gcp_proxy_ctx_t));
    conf = ngx_palloc(r->pool, sizeof(ngx_http_upstream_conf_t));

    if (gctx == NULL || ctx == NULL || conf == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ctx->proxy = p;
    ctx->head = r->method == NGX_HTTP_HEAD;
    gctx->proxy = ctx;

    /* the body goes to the other server, whatever its size */
    gctx->body_limit = 0;

#if (NGX_HTTP_GZIP)
    /* the answer passes as the server made it: streams are not delayed */
    r->gzip_tested = 1;
    r->gzip_ok = 0;
#endif

    if (ngx_http_upstream_create(r) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    u = r->upstream;

    /* this request's copy of the template, with its TLS and target */

    *conf = mcf->proxy.upstream;

    conf->ssl = ngx_http_gcp_proxy_tls(r, p);
    if (conf->ssl == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ctx->ssl_name.value.data = (u_char *) p->server_name;
    ctx->ssl_name.value.len = ngx_strlen(p->server_name);
    conf->ssl_name = &ctx->ssl_name;
    conf->ssl_server_name = 1;
    conf->ssl_verify = p->insecure ? 0 : 1;

    if (p->long_running) {
        conf->read_timeout = mcf->proxy.long_timeout;
        conf->send_timeout = mcf->proxy.long_timeout;
    }

    u->conf = conf;

    if (ngx_http_gcp_proxy_target(r, u, p) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ngx_str_set(&u->schema, "https://");
    u->ssl = 1;
    u->output.tag = (ngx_buf_tag_t) &ngx_http_gcp_module;

    u->create_request = ngx_http_gcp_proxy_create_request;
    u->reinit_request = ngx_http_gcp_proxy_reinit_request;
    u->process_header = ngx_http_gcp_proxy_status_line;
    u->abort_request = ngx_http_gcp_proxy_abort_request;
    u->finalize_request = ngx_http_gcp_proxy_finalize_request;

    u->buffering = 0;
    u->input_filter_init = ngx_http_gcp_proxy_filter_init;
    u->input_filter = ngx_http_gcp_proxy_copy_filter;
    u->input_filter_ctx = r;

    /* a body of known length streams; a chunked one is read first */

    if (!r->headers_in.chunked) {
        r->request_body_no_buffering = 1;
    }

    rc = ngx_http_read_client_request_body(r, ngx_http_upstream_init);

    if (rc >= NGX_HTTP_SPECIAL_RESPONSE) {
        return rc;
    }

    return NGX_DONE;
}


/* Returns 1 when the request header h is not passed on as it is. */
static ngx_uint_t
ngx_http_gcp_proxy_dropped(ngx_table_elt_t *h, const gcp_proxy_t *p)
{
    size_t               len;
    ngx_str_t           *s;
    const char * const  *name;

    for (s = ngx_http_gcp_proxy_hop; s->len; s++) {
        if (h->key.len == s->len
            && ngx_strncasecmp(h->key.data, s->data, s->len) == 0)
        {
            return 1;
        }
    }

    for (name = p->remove; name && *name; name++) {

        /* most names differ from the header at once: no length taken */

        if ((*name)[0] != '*'
            && ngx_tolower(h->key.data[0]) != ngx_tolower((*name)[0]))
        {
            continue;
        }

        len = ngx_strlen(*name);

        if (len && (*name)[len - 1] == '*') {
            if (h->key.len >= len - 1
                && ngx_strncasecmp(h->key.data, (u_char *) *name, len - 1)
                   == 0)
            {
                return 1;
            }

            continue;
        }

        if (h->key.len == len
            && ngx_strncasecmp(h->key.data, (u_char *) *name, len) == 0)
        {
            return 1;
        }
    }

    return 0;
}


/* Counts a header line into *n, and writes it at *d unless d is NULL. */
static void
ngx_http_gcp_proxy_line(u_char **d, size_t *n, u_char *key, size_t klen,
    u_char *value, size_t vlen)
{
    *n += klen + 2 + vlen + 2;

    if (*d == NULL) {
        return;
    }

    *d = ngx_cpymem(*d, key, klen);
    *(*d)++ = ':';
    *(*d)++ = ' ';
    *d = ngx_cpymem(*d, value, vlen);
    *(*d)++ = CR;
    *(*d)++ = LF;
}


/*
 * The header lines sent on: the client's (but dropped ones), those the
 * core sets, X-Forwarded-For, the upgrade, Content-Length (length >= 0).
 * Their size goes to *len; they are written at *pos (advanced) unless pos
 * is NULL.
 */
static void
ngx_http_gcp_proxy_headers(ngx_http_request_t *r, const gcp_proxy_t *p,
    ngx_uint_t upgrade, off_t length, u_char **pos, size_t *len)
{
    size_t            nlen;
    u_char           *d, num[NGX_OFF_T_LEN];
    ngx_uint_t        i;
    ngx_list_part_t  *part;
    ngx_table_elt_t  *h;

    d = pos ? *pos : NULL;
    *len = 0;

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

        if (h[i].key.len == 0 || ngx_http_gcp_proxy_dropped(&h[i], p)) {
            continue;
        }

        ngx_http_gcp_proxy_line(&d, len, h[i].key.data, h[i].key.len,
                                h[i].value.data, h[i].value.len);
    }

    for (i = 0; i < p->nset; i++) {
        ngx_http_gcp_proxy_line(&d, len, (u_char *) p->set[i].name,
                                ngx_strlen(p->set[i].name),
                                (u_char *) p->set[i].value,
                                ngx_strlen(p->set[i].value));
    }

    ngx_http_gcp_proxy_line(&d, len, (u_char *) "X-Forwarded-For",
                            sizeof("X-Forwarded-For") - 1,
                            r->connection->addr_text.data,
                            r->connection->addr_text.len);

    if (upgrade) {
        ngx_http_gcp_proxy_line(&d, len, (u_char *) "Connection",
                                sizeof("Connection") - 1,
                                (u_char *) "Upgrade", sizeof("Upgrade") - 1);
        ngx_http_gcp_proxy_line(&d, len, (u_char *) "Upgrade",
                                sizeof("Upgrade") - 1,
                                r->headers_in.upgrade->value.data,
                                r->headers_in.upgrade->value.len);
    }

    if (length >= 0) {
        nlen = ngx_sprintf(num, "%O", length) - num;
        ngx_http_gcp_proxy_line(&d, len, (u_char *) "Content-Length",
                                sizeof("Content-Length") - 1, num, nlen);
    }

    if (pos) {
        *pos = d;
    }
}


static ngx_int_t
ngx_http_gcp_proxy_create_request(ngx_http_request_t *r)
{
    off_t                      length;
    size_t                     len, hlen;
    u_char                    *p;
    ngx_buf_t                 *b;
    ngx_uint_t                 upgrade;
    ngx_chain_t               *cl, *body;
    ngx_http_upstream_t       *u;
    ngx_http_gcp_ctx_t        *gctx;
    const gcp_proxy_t         *pr;

    u = r->upstream;
    gctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);
    pr = ((ngx_http_gcp_proxy_ctx_t *) gctx->proxy)->proxy;

    /* an upgrade only from HTTP/1.1 clients (not HTTP/2) */

    upgrade = r->headers_in.upgrade != NULL;

#if (NGX_HTTP_V2)
    if (r->stream) {
        upgrade = 0;
    }
#endif

    /* a chunked body was read whole: its length is known by now */

    length = r->headers_in.content_length_n;

    ngx_http_gcp_proxy_headers(r, pr, upgrade, length, NULL, &hlen);

    len = r->method_name.len + 1 + r->unparsed_uri.len
          + sizeof(" HTTP/1.1" CRLF "Host: :" CRLF) - 1
          + ngx_strlen(pr->upstream) + NGX_INT_T_LEN
          + hlen + sizeof(CRLF) - 1;

    b = ngx_create_temp_buf(r->pool, len);
    if (b == NULL) {
        return NGX_ERROR;
    }

    p = b->last;

    p = ngx_cpymem(p, r->method_name.data, r->method_name.len);
    *p++ = ' ';
    p = ngx_cpymem(p, r->unparsed_uri.data, r->unparsed_uri.len);
    p = ngx_sprintf(p, " HTTP/1.1" CRLF "Host: %s:%d" CRLF, pr->upstream,
                    pr->port);

    ngx_http_gcp_proxy_headers(r, pr, upgrade, length, &p, &hlen);

    *p++ = CR; *p++ = LF;

    b->last = p;
    b->flush = 1;

    cl = ngx_alloc_chain_link(r->pool);
    if (cl == NULL) {
        return NGX_ERROR;
    }

    cl->buf = b;
    cl->next = NULL;

    /* the body read so far (all of it, unless it streams) */

    body = u->request_bufs;
    u->request_bufs = cl;

    if (r->request_body_no_buffering) {
        return NGX_OK;
    }

    for ( /* void */ ; body; body = body->next) {
        b = ngx_alloc_buf(r->pool);
        cl->next = ngx_alloc_chain_link(r->pool);

        if (b == NULL || cl->next == NULL) {
            return NGX_ERROR;
        }

        ngx_memcpy(b, body->buf, sizeof(ngx_buf_t));

        cl = cl->next;
        cl->buf = b;
        cl->next = NULL;
    }

    return NGX_OK;
}


static ngx_int_t
ngx_http_gcp_proxy_reinit_request(ngx_http_request_t *r)
{
    ngx_http_gcp_ctx_t        *gctx;
    ngx_http_gcp_proxy_ctx_t  *ctx;

    gctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);
    ctx = gctx->proxy;

    ngx_memzero(&ctx->status, sizeof(ngx_http_status_t));
    ngx_memzero(&ctx->chunked, sizeof(ngx_http_chunked_t));

    r->upstream->process_header = ngx_http_gcp_proxy_status_line;
    r->upstream->input_filter = ngx_http_gcp_proxy_copy_filter;
    r->state = 0;

    return NGX_OK;
}


static ngx_int_t
ngx_http_gcp_proxy_status_line(ngx_http_request_t *r)
{
    size_t                     len;
    ngx_int_t                  rc;
    ngx_http_upstream_t       *u;
    ngx_http_gcp_ctx_t        *gctx;
    ngx_http_gcp_proxy_ctx_t  *ctx;

    u = r->upstream;
    gctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);
    ctx = gctx->proxy;

    rc = ngx_http_parse_status_line(r, &u->buffer, &ctx->status);

    if (rc == NGX_AGAIN) {
        return rc;
    }

    if (rc == NGX_ERROR) {
        ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                      "gcp: upstream sent no valid HTTP/1.x status line");
        return NGX_HTTP_UPSTREAM_INVALID_HEADER;
    }

    if (u->state && u->state->status == 0) {
        u->state->status = ctx->status.code;
    }

    u->headers_in.status_n = ctx->status.code;

    len = ctx->status.end - ctx->status.start;
    u->headers_in.status_line.len = len;
    u->headers_in.status_line.data = ngx_pnalloc(r->pool, len);

    if (u->headers_in.status_line.data == NULL) {
        return NGX_ERROR;
    }

    ngx_memcpy(u->headers_in.status_line.data, ctx->status.start, len);

    if (ctx->status.http_version < NGX_HTTP_VERSION_11) {
        u->headers_in.connection_close = 1;
    }

    u->process_header = ngx_http_gcp_proxy_header;

    return ngx_http_gcp_proxy_header(r);
}


/* Adds the upstream header being parsed to u->headers_in. */
static ngx_int_t
ngx_http_gcp_proxy_header_line(ngx_http_request_t *r)
{
    ngx_table_elt_t                *h;
    ngx_http_upstream_header_t     *hh;
    ngx_http_upstream_main_conf_t  *umcf;

    umcf = ngx_http_get_module_main_conf(r, ngx_http_upstream_module);

    h = ngx_list_push(&r->upstream->headers_in.headers);
    if (h == NULL) {
        return NGX_ERROR;
    }

    h->hash = r->header_hash;
    h->key.len = r->header_name_end - r->header_name_start;
    h->value.len = r->header_end - r->header_start;

    /* key, value and the lower-case key, each NUL-terminated */

    h->key.data = ngx_pnalloc(r->pool, 2 * h->key.len + h->value.len + 3);
    if (h->key.data == NULL) {
        h->hash = 0;
        return NGX_ERROR;
    }

    h->value.data = h->key.data + h->key.len + 1;
    h->lowcase_key = h->value.data + h->value.len + 1;

    ngx_memcpy(h->key.data, r->header_name_start, h->key.len);
    h->key.data[h->key.len] = '\0';
    ngx_memcpy(h->value.data, r->header_start, h->value.len);
    h->value.data[h->value.len] = '\0';

    if (h->key.len == r->lowcase_index) {
        ngx_memcpy(h->lowcase_key, r->lowcase_header, h->key.len);

    } else {
        ngx_strlow(h->lowcase_key, h->key.data, h->key.len);
    }

    h->lowcase_key[h->key.len] = '\0';

    hh = ngx_hash_find(&umcf->headers_in_hash, h->hash, h->lowcase_key,
                       h->key.len);

    if (hh && hh->handler(r, h, hh->offset) != NGX_OK) {
        return NGX_ERROR;
    }

    return NGX_OK;
}


static ngx_int_t
ngx_http_gcp_proxy_header(ngx_http_request_t *r)
{
    ngx_int_t                  rc;
    ngx_http_upstream_t       *u;
    ngx_http_gcp_ctx_t        *gctx;
    ngx_http_gcp_proxy_ctx_t  *ctx;

    u = r->upstream;

    for ( ;; ) {

        rc = ngx_http_parse_header_line(r, &u->buffer, 1);

        if (rc == NGX_OK) {
            if (ngx_http_gcp_proxy_header_line(r) != NGX_OK) {
                return NGX_ERROR;
            }

            continue;
        }

        if (rc == NGX_AGAIN) {
            return NGX_AGAIN;
        }

        if (rc != NGX_HTTP_PARSE_HEADER_DONE) {
            ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                          "gcp: upstream sent an invalid header");
            return NGX_HTTP_UPSTREAM_INVALID_HEADER;
        }

        break;
    }

    /* the answer is the other server's: the Status filter leaves it */

    gctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);
    ctx = gctx->proxy;
    gctx->core_response = 1;

    if (ngx_http_gcp_hide_server(r) != NGX_OK) {
        return NGX_ERROR;
    }

    if (u->headers_in.chunked) {
        u->headers_in.content_length_n = -1;
    }

    /* without a body the connection is reusable at once */

    if (u->headers_in.status_n == NGX_HTTP_NO_CONTENT
        || u->headers_in.status_n == NGX_HTTP_NOT_MODIFIED
        || ctx->head
        || (!u->headers_in.chunked && u->headers_in.content_length_n == 0))
    {
        u->keepalive = !u->headers_in.connection_close;
    }

    if (u->headers_in.status_n == NGX_HTTP_SWITCHING_PROTOCOLS) {
        u->keepalive = 0;

        if (r->headers_in.upgrade) {
            u->upgrade = 1;
        }
    }

    return NGX_OK;
}


static ngx_int_t
ngx_http_gcp_proxy_filter_init(void *data)
{
    ngx_http_request_t  *r = data;

    ngx_http_upstream_t       *u;
    ngx_http_gcp_ctx_t        *gctx;
    ngx_http_gcp_proxy_ctx_t  *ctx;

    u = r->upstream;
    gctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);
    ctx = gctx->proxy;

    /* the headers are out: HTTP/2 clients get them before any data */

    if (ngx_http_gcp_flush_tls(r) != NGX_OK) {
        return NGX_ERROR;
    }

    /* a watch's: its audit event ResponseStarted */

    if (ctx->proxy->long_running && gctx->call) {
        gcp_api_proxy_started(&gctx->call->req, (int) r->headers_out.status);
    }

    if (u->headers_in.status_n == NGX_HTTP_NO_CONTENT
        || u->headers_in.status_n == NGX_HTTP_NOT_MODIFIED
        || ctx->head
        || (!u->headers_in.chunked && u->headers_in.content_length_n == 0))
    {
        u->length = 0;
        u->keepalive = !u->headers_in.connection_close;

    } else if (u->headers_in.chunked) {
        u->input_filter = ngx_http_gcp_proxy_chunked_filter;
        u->length = 1;

    } else {
        /* Content-Length, or until the server closes (-1) */
        u->length = u->headers_in.content_length_n;
    }

    return NGX_OK;
}


/*
 * Appends a buffer for [pos, last) of u->buffer to u->out_bufs.  A
 * long-running answer (a watch, logs) is flushed as it comes: each piece
 * is an event its client waits for.  Any other streams too, but in whole
 * TLS records: a flush on every piece read would send, after each full
 * record, a small one with the rest of the piece and the chunk framing (a
 * write and a wake-up of the client for a few bytes: half of the writes
 * of a large list); the rest goes with the next piece or the end of the
 * answer (nginx's upstream sends the end, a flush, as soon as the last
 * piece is handed on: the rest, the last chunk and a chunked answer's
 * terminating one go in one record).  A piece smaller than
 * postpone_output is flushed all the same: the write filter would keep
 * it for more, and more may not be read before it is sent (u->buffer is
 * reused once its pieces are out).
 */
static ngx_int_t
ngx_http_gcp_proxy_out(ngx_http_request_t *r, u_char *pos, u_char *last)
{
    ngx_chain_t               *cl, **ll;
    ngx_http_upstream_t       *u;
    ngx_http_gcp_ctx_t        *gctx;
    ngx_http_core_loc_conf_t  *clcf;
    ngx_http_gcp_proxy_ctx_t  *ctx;

    u = r->upstream;
    gctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);
    ctx = gctx->proxy;
    clcf = ngx_http_get_module_loc_conf(r, ngx_http_core_module);

    for (ll = &u->out_bufs; *ll; ll = &(*ll)->next) {
        /* void */
    }

    cl = ngx_chain_get_free_buf(r->pool, &u->free_bufs);
    if (cl == NULL) {
        return NGX_ERROR;
    }

    *ll = cl;

    cl->buf->pos = pos;
    cl->buf->last = last;
    cl->buf->flush = ctx->proxy->long_running
                     || (size_t) (last - pos) < clcf->postpone_output;
    cl->buf->memory = 1;
    cl->buf->tag = u->output.tag;

    return NGX_OK;
}


/* A body of known length, or read until the server closes. */
static ngx_int_t
ngx_http_gcp_proxy_copy_filter(void *data, ssize_t bytes)
{
    ngx_http_request_t  *r = data;

    u_char               *pos;
    ngx_uint_t            extra;
    ngx_http_upstream_t  *u;

    u = r->upstream;

    if (u->length == 0) {
        /* more than Content-Length said: the connection is not reused */
        u->keepalive = 0;
        return NGX_OK;
    }

    pos = u->buffer.last;
    u->buffer.last += bytes;
    extra = 0;

    if (u->length != -1 && bytes > u->length) {
        bytes = (ssize_t) u->length;
        extra = 1;
    }

    if (ngx_http_gcp_proxy_out(r, pos, pos + bytes) != NGX_OK) {
        return NGX_ERROR;
    }

    if (u->length == -1) {
        return NGX_OK;
    }

    u->length -= bytes;

    if (u->length == 0) {
        u->keepalive = !extra && !u->headers_in.connection_close;
    }

    return NGX_OK;
}


/* A chunked body: the chunks' data, without their framing. */
static ngx_int_t
ngx_http_gcp_proxy_chunked_filter(void *data, ssize_t bytes)
{
    ngx_http_request_t  *r = data;

    u_char                    *pos;
    ngx_int_t                  rc;
    ngx_buf_t                 *buf;
    ngx_http_upstream_t       *u;
    ngx_http_gcp_ctx_t        *gctx;
    ngx_http_gcp_proxy_ctx_t  *ctx;

    u = r->upstream;
    gctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);
    ctx = gctx->proxy;
    buf = &u->buffer;

    buf->pos = buf->last;
    buf->last += bytes;

    for ( ;; ) {

        rc = ngx_http_parse_chunked(r, buf, &ctx->chunked);

        if (rc == NGX_OK) {
            pos = buf->pos;

            if (buf->last - buf->pos > ctx->chunked.size) {
                buf->pos += (size_t) ctx->chunked.size;

            } else {
                buf->pos = buf->last;
            }

            ctx->chunked.size -= buf->pos - pos;

            if (ngx_http_gcp_proxy_out(r, pos, buf->pos) != NGX_OK) {
                return NGX_ERROR;
            }

            continue;
        }

        if (rc == NGX_DONE) {
            u->length = 0;
            u->keepalive = !u->headers_in.connection_close
                           && buf->pos == buf->last;
            return NGX_OK;
        }

        if (rc == NGX_AGAIN) {
            return NGX_OK;
        }

        ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                      "gcp: upstream sent an invalid chunked body");

        return NGX_ERROR;
    }
}


static void
ngx_http_gcp_proxy_abort_request(ngx_http_request_t *r)
{
}


static void
ngx_http_gcp_proxy_finalize_request(ngx_http_request_t *r, ngx_int_t rc)
{
}


const char *
ngx_http_gcp_proxy_failure(ngx_http_request_t *r, gcp_arena_t *a)
{
    ngx_str_t                  *peer;
    ngx_http_upstream_t        *u;
    ngx_http_gcp_ctx_t         *gctx;
    ngx_http_gcp_proxy_ctx_t   *ctx;
    ngx_http_upstream_state_t  *st;

    gctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);
    u = r->upstream;

    if (gctx == NULL || gctx->proxy == NULL || gctx->core_response
        || u == NULL)
    {
        return NULL;
    }

    ctx = gctx->proxy;

    if (r->headers_out.status != NGX_HTTP_BAD_GATEWAY
        && r->headers_out.status != NGX_HTTP_GATEWAY_TIME_OUT)
    {
        return NULL;
    }

    peer = NULL;

    if (r->upstream_states && r->upstream_states->nelts) {
        st = r->upstream_states->elts;
        peer = st[r->upstream_states->nelts - 1].peer;
    }

    if (peer == NULL) {
        return gcp_sprintf(a, "no endpoints available for service \"%s\"",
                           ctx->proxy->upstream);
    }

    return gcp_sprintf(a, "Error trying to reach service: '%.*s: %s'",
                       (int) peer->len, peer->data,
                       r->headers_out.status == NGX_HTTP_GATEWAY_TIME_OUT
                       ? "i/o timeout" : "connection failed");
}
