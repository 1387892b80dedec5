
/*
 * The gcp_api content handler: turns an HTTP request into a gcp_request_t,
 * hands it to the core, and sends the core's response.
 *
 * A request handed to the core is held by an ngx_http_gcp_call_t (see
 * ngx_http_gcp_module.h), allocated outside r->pool: the core may answer
 * after the client went away.  The call is freed once the core is done with
 * it (done for a plain response, stream end, or gcp_api_cancel() for a
 * watch, unless the core still holds the call then: at its stream end) and
 * nginx is done with the request (its cleanup ran).  Nothing
 * called from inside a core callback finalizes the request: finalization is
 * posted to ngx_posted_events, so the core never finds its request freed
 * under its feet.
 */

#include "ngx_http_gcp_module.h"


static void ngx_http_gcp_body_read(ngx_http_request_t *r);
static ngx_int_t ngx_http_gcp_dispatch(ngx_http_request_t *r);
static ngx_http_gcp_call_t *ngx_http_gcp_call_create(ngx_http_request_t *r,
    ngx_http_gcp_ctx_t *ctx, ngx_int_t *rc);
static ngx_int_t ngx_http_gcp_request_init(ngx_http_request_t *r,
    gcp_request_t *req);
static const char *ngx_http_gcp_header_in(ngx_http_request_t *r,
    gcp_arena_t *a, const char *name);
static ngx_int_t ngx_http_gcp_body(ngx_http_request_t *r, gcp_arena_t *a,
    gcp_str_t *body);
static void ngx_http_gcp_proxy_end(ngx_http_gcp_call_t *call,
    ngx_http_request_t *r);
static void ngx_http_gcp_cleanup(void *data);
static void ngx_http_gcp_call_free(ngx_http_gcp_call_t *call);
static void ngx_http_gcp_call_posted(ngx_event_t *ev);
static void ngx_http_gcp_done(gcp_request_t *req, gcp_response_t *resp);
static ngx_int_t ngx_http_gcp_send_response(ngx_http_request_t *r,
    gcp_response_t *resp);
static ngx_int_t ngx_http_gcp_request_body_filter(ngx_http_request_t *r,
    ngx_chain_t *in);


static ngx_http_request_body_filter_pt   ngx_http_next_request_body_filter;


ngx_int_t
ngx_http_gcp_handler(ngx_http_request_t *r)
{
    ngx_int_t                  rc;
    ngx_http_gcp_ctx_t        *ctx;
    ngx_http_gcp_loc_conf_t   *lcf;
    ngx_http_gcp_main_conf_t  *mcf;

    mcf = ngx_http_get_module_main_conf(r, ngx_http_gcp_module);
    lcf = ngx_http_get_module_loc_conf(r, ngx_http_gcp_module);

    if (mcf->api == NULL) {
        return NGX_HTTP_SERVICE_UNAVAILABLE;
    }

    ctx = ngx_http_gcp_get_ctx(r);
    if (ctx == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    /* a request for another server: its body goes there, not read here */

    if (gcp_api_proxied(mcf->api, (char *) r->uri.data, r->uri.len)) {
        return ngx_http_gcp_dispatch(r);
    }

    ctx->body_limit = (off_t) lcf->max_body_size;

    if (r->headers_in.content_length_n > ctx->body_limit) {
        ngx_log_error(NGX_LOG_INFO, r->connection->log, 0,
                      "gcp: request body of %O bytes over the limit of %O",
                      r->headers_in.content_length_n, ctx->body_limit);

        /* no "100 Continue": the body is not wanted */
        r->expect_tested = 1;

        if (ngx_http_discard_request_body(r) != NGX_OK) {
            r->keepalive = 0;
        }

        return NGX_HTTP_REQUEST_ENTITY_TOO_LARGE;
    }

    rc = ngx_http_read_client_request_body(r, ngx_http_gcp_body_read);

    if (rc >= NGX_HTTP_SPECIAL_RESPONSE) {
        return rc;
    }

    return NGX_DONE;
}


ngx_http_gcp_ctx_t *
ngx_http_gcp_get_ctx(ngx_http_request_t *r)
{
    ngx_http_gcp_ctx_t  *ctx;

    ctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);
    if (ctx) {
        return ctx;
    }

    ctx = ngx_pcalloc(r->pool, sizeof(ngx_http_gcp_ctx_t));
    if (ctx == NULL) {
        return NULL;
    }

    ctx->busy_last = &ctx->busy;

    ngx_http_set_ctx(r, ctx, ngx_http_gcp_module);

    return ctx;
}


static void
ngx_http_gcp_body_read(ngx_http_request_t *r)
{
    ngx_http_finalize_request(r, ngx_http_gcp_dispatch(r));
}


static ngx_int_t
ngx_http_gcp_dispatch(ngx_http_request_t *r)
{
    ngx_int_t                  rc;
    ngx_http_gcp_ctx_t        *ctx;
    ngx_http_gcp_call_t       *call;
    ngx_http_gcp_main_conf_t  *mcf;

    mcf = ngx_http_get_module_main_conf(r, ngx_http_gcp_module);
    ctx = ngx_http_gcp_get_ctx(r);

    if (ctx == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    call = ngx_http_gcp_call_create(r, ctx, &rc);
    if (call == NULL) {
        return rc;
    }

    call->in_handle = 1;
    gcp_api_handle(mcf->api, &call->req);
    call->in_handle = 0;

    if (((call->done && !call->streaming) || call->ended)
        && call->proxy == NULL)
    {
        /* answered and completed before gcp_api_handle() returned */

        call->finalize = 0;

        if (call->post.posted) {
            ngx_delete_posted_event(&call->post);
        }

        return call->rc;
    }

    /* the core holds the request until it answers or ends the stream */

    r->main->count++;

    /* a client going away meanwhile is noticed (a queued request leaves) */

    if (!call->done) {
        r->read_event_handler = ngx_http_test_reading;
    }

    if (ngx_exiting) {
        ngx_http_gcp_drain_later(mcf);
    }

    return NGX_DONE;
}


/*
 * Returns a new call for r, linked to ctx and to the worker's calls, or
 * NULL with *rc set to the HTTP status to answer.
 */

static ngx_http_gcp_call_t *
ngx_http_gcp_call_create(ngx_http_request_t *r, ngx_http_gcp_ctx_t *ctx,
    ngx_int_t *rc)
{
    gcp_arena_t               *a;
    ngx_http_cleanup_t        *cln;
    ngx_http_gcp_call_t       *call;
    ngx_http_gcp_main_conf_t  *mcf;

    mcf = ngx_http_get_module_main_conf(r, ngx_http_gcp_module);

    *rc = NGX_HTTP_INTERNAL_SERVER_ERROR;

    cln = ngx_http_cleanup_add(r, 0);
    if (cln == NULL) {
        return NULL;
    }

    a = gcp_arena_create(0);
    if (a == NULL) {
        return NULL;
    }

    call = ngx_calloc(sizeof(ngx_http_gcp_call_t), r->connection->log);
    if (call == NULL) {
        gcp_arena_destroy(a);
        return NULL;
    }

    call->r = r;
    call->rc = NGX_ERROR;
    call->req.arena = a;

    call->post.handler = ngx_http_gcp_call_posted;
    call->post.data = call;
    call->post.log = ngx_cycle->log;

    ngx_queue_insert_tail(&mcf->calls, &call->queue);

    if (ngx_http_gcp_request_init(r, &call->req) != NGX_OK
        || ngx_http_gcp_body(r, a, &call->req.body) != NGX_OK)
    {
        ngx_http_gcp_call_free(call);
        return NULL;
    }

    if ((off_t) call->req.body.len > ctx->body_limit) {
        ngx_http_gcp_call_free(call);
        *rc = NGX_HTTP_REQUEST_ENTITY_TOO_LARGE;
        return NULL;
    }

    ctx->call = call;
    cln->handler = ngx_http_gcp_cleanup;
    cln->data = ctx;

    return call;
}


static ngx_int_t
ngx_http_gcp_request_init(ngx_http_request_t *r, gcp_request_t *req)
{
    gcp_arena_t  *a;

    a = req->arena;

    req->method = gcp_strndup(a, (char *) r->method_name.data,
                              r->method_name.len);

    /* r->uri: percent-decoded, without the query */
    req->path.data = gcp_strndup(a, (char *) r->uri.data, r->uri.len);
    req->path.len = r->uri.len;

    req->query.data = gcp_strndup(a, (char *) r->args.data, r->args.len);
    req->query.len = r->args.len;

    if (req->method == NULL || req->path.data == NULL
        || req->query.data == NULL)
    {
        return NGX_ERROR;
    }

    req->remote_addr = gcp_strndup(a, (char *) r->connection->addr_text.data,
                                   r->connection->addr_text.len);

    req->content_type = ngx_http_gcp_header_in(r, a, "Content-Type");
    req->accept = ngx_http_gcp_header_in(r, a, "Accept");
    req->user_agent = ngx_http_gcp_header_in(r, a, "User-Agent");
    req->if_none_match = ngx_http_gcp_header_in(r, a, "If-None-Match");

    /* every header and the client certificates, for authentication */

    if (ngx_http_gcp_auth_request(r, req) != NGX_OK) {
        return NGX_ERROR;
    }

    req->user = NULL;

    /*
     * The request is the first member of its call: the stream operations
     * get the call whether the core passes them req or req->ctx.
     */

    req->done = ngx_http_gcp_done;
    req->stream = &ngx_http_gcp_stream_ops;
    req->ctx = req;

    return NGX_OK;
}


/*
 * Returns a NUL-terminated copy (in a) of the first request header called
 * name, or NULL when absent or out of memory.
 */

static const char *
ngx_http_gcp_header_in(ngx_http_request_t *r, gcp_arena_t *a,
    const char *name)
{
    size_t            len;
    ngx_uint_t        i;
    ngx_list_part_t  *part;
    ngx_table_elt_t  *h;

    len = ngx_strlen(name);

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

        if (h[i].key.len == len
            && ngx_strncasecmp(h[i].key.data, (u_char *) name, len) == 0)
        {
            return gcp_strndup(a, (char *) h[i].value.data, h[i].value.len);
        }
    }

    return NULL;
}


/*
 * Copies the request body into one NUL-terminated buffer of a, reading back
 * what nginx spooled to a temporary file.  body->data stays NULL when the
 * request has no body.
 */

static ngx_int_t
ngx_http_gcp_body(ngx_http_request_t *r, gcp_arena_t *a, gcp_str_t *body)
{
    off_t         len, size;
    u_char       *p, *last;
    ssize_t       n;
    ngx_buf_t    *b;
    ngx_chain_t  *cl;

    body->data = NULL;
    body->len = 0;

    if (r->request_body == NULL) {
        return NGX_OK;
    }

    len = 0;

    for (cl = r->request_body->bufs; cl; cl = cl->next) {
        len += ngx_buf_size(cl->buf);
    }

    if (len == 0) {
        return NGX_OK;
    }

    p = gcp_alloc(a, (size_t) len + 1);
    if (p == NULL) {
        return NGX_ERROR;
    }

    last = p;

    for (cl = r->request_body->bufs; cl; cl = cl->next) {
        b = cl->buf;

        if (ngx_buf_in_memory(b)) {
            last = ngx_cpymem(last, b->pos, b->last - b->pos);
            continue;
        }

        size = b->file_last - b->file_pos;

        if (size == 0) {
            continue;
        }

        n = ngx_read_file(b->file, last, (size_t) size, b->file_pos);

        if (n != (ssize_t) size) {
            ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                          "gcp: read %z of %O bytes of the request body "
                          "from \"%V\"", n, size, &b->file->name);
            return NGX_ERROR;
        }

        last += n;
    }

    *last = '\0';

    body->data = (char *) p;
    body->len = last - p;

    return NGX_OK;
}


/*
 * A proxied request is over: the core observes what its client got, as
 * $status and $body_bytes_sent log it (499 when it went away first).
 */

static void
ngx_http_gcp_proxy_end(ngx_http_gcp_call_t *call, ngx_http_request_t *r)
{
    off_t       sent;
    ngx_uint_t  status;

    status = r->headers_out.status ? r->headers_out.status
                                   : NGX_HTTP_CLIENT_CLOSED_REQUEST;
    sent = r->connection->sent - r->header_size;

    gcp_api_proxy_end(&call->req, (int) status,
                      sent > 0 ? (size_t) sent : 0);
}


/* nginx is done with the request (r->cleanup): detach or free its call */

static void
ngx_http_gcp_cleanup(void *data)
{
    ngx_http_gcp_ctx_t *ctx = data;

    ngx_http_gcp_call_t  *call;

    call = ctx->call;
    if (call == NULL) {
        return;
    }

    if (call->proxy && call->r) {
        ngx_http_gcp_proxy_end(call, call->r);
    }

    ctx->call = NULL;
    call->r = NULL;
    call->finalize = 0;

    if (call->done && call->streaming && !call->ended && !call->cancelled) {
        /* the client went away during a watch */
        ngx_http_gcp_call_cancel(call);

    } else if (!call->done && !call->cancelled
               && gcp_api_abandon(&call->req))
    {
        /* the client went away while its request waited in a queue */
        call->cancelled = 1;
    }

    if (ngx_http_gcp_call_core_done(call)) {
        ngx_http_gcp_call_free(call);
    }

    /* otherwise freed once the core answers */
}


static void
ngx_http_gcp_call_free(ngx_http_gcp_call_t *call)
{
    if (call->post.posted) {
        ngx_delete_posted_event(&call->post);
    }

    ngx_queue_remove(&call->queue);

    gcp_arena_destroy(call->req.arena);
    ngx_free(call);
}


void
ngx_http_gcp_call_cancel(ngx_http_gcp_call_t *call)
{
    call->cancelled = 1;
    call->lingering = !gcp_api_cancel(&call->req);
}


void
ngx_http_gcp_call_post(ngx_http_gcp_call_t *call)
{
    ngx_post_event(&call->post, &ngx_posted_events);
}


/* posted after a core callback: finalize the request or free the call */

static void
ngx_http_gcp_call_posted(ngx_event_t *ev)
{
    ngx_int_t             rc;
    ngx_connection_t     *c;
    ngx_http_request_t   *r;
    ngx_http_gcp_call_t  *call;

    call = ev->data;
    r = call->r;

    if (call->done && call->streaming && !call->ended && !call->cancelled
        && (r == NULL || call->finalize))
    {
        /* the stream cannot go on: its request is gone or broken */
        ngx_http_gcp_call_cancel(call);
    }

    if (r == NULL) {
        if (ngx_http_gcp_call_core_done(call)) {
            ngx_http_gcp_call_free(call);
        }

        return;
    }

    if (!call->finalize) {
        return;
    }

    call->finalize = 0;

    /* the request's cleanup frees the call: do not touch it afterwards */

    c = r->connection;

    /* a request handed to another server: proxy it now */

    rc = call->proxy ? ngx_http_gcp_proxy(r, call->proxy) : call->rc;

    ngx_http_finalize_request(r, rc);
    ngx_http_run_posted_requests(c);
}


/* Adds resp's headers to r's response, copied into r's pool. */
static ngx_int_t
ngx_http_gcp_copy_headers(ngx_http_request_t *r, gcp_response_t *resp)
{
    size_t            i;
    ngx_table_elt_t  *h;

    for (i = 0; i < resp->nheaders; i++) {
        h = ngx_list_push(&r->headers_out.headers);
        if (h == NULL) {
            return NGX_ERROR;
        }

        h->hash = 1;
        h->key.len = ngx_strlen(resp->headers[i].name);
        h->key.data = (u_char *) resp->headers[i].name;
        h->key.data = ngx_pstrdup(r->pool, &h->key);
        h->value.len = ngx_strlen(resp->headers[i].value);
        h->value.data = (u_char *) resp->headers[i].value;
        h->value.data = ngx_pstrdup(r->pool, &h->value);

        if (h->key.data == NULL || h->value.data == NULL) {
            return NGX_ERROR;
        }
    }

    return NGX_OK;
}


/* gcp_request_t.done */

static void
ngx_http_gcp_done(gcp_request_t *req, gcp_response_t *resp)
{
    ngx_int_t             rc;
    ngx_http_request_t   *r;
    ngx_http_gcp_ctx_t   *ctx;
    ngx_http_gcp_call_t  *call;

    call = (ngx_http_gcp_call_t *) req;
    r = call->r;

    call->done = 1;
    call->streaming = resp->streaming ? 1 : 0;

    if (r) {
        ngx_http_gcp_summary_save(r, req);
    }

    if (resp->proxy && r) {
        /* the core's headers for the client go with the server's */

        if (ngx_http_gcp_copy_headers(r, resp) != NGX_OK) {
            call->rc = NGX_HTTP_INTERNAL_SERVER_ERROR;
            call->finalize = 1;
            ngx_http_gcp_call_post(call);
            return;
        }

        /* proxied from the event loop, outside the core's callback */
        call->proxy = resp->proxy;
        call->finalize = 1;
        ngx_http_gcp_call_post(call);
        return;
    }

    if (r == NULL) {
        /* the client is gone: cancel a watch, free the call */
        ngx_http_gcp_call_post(call);
        return;
    }

    ctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);
    ctx->core_response = 1;

    /* a body left unread (the request was to be proxied): discarded */

    if (r->request_body == NULL && ngx_http_discard_request_body(r) != NGX_OK)
    {
        r->keepalive = 0;
    }

    if (resp->streaming) {
        rc = ngx_http_gcp_stream_start(call, resp);

        if (rc == NGX_ERROR || rc > NGX_OK) {
            call->rc = NGX_ERROR;
            call->finalize = 1;
            ngx_http_gcp_call_post(call);
        }

        return;
    }

    call->rc = ngx_http_gcp_send_response(r, resp);

    if (!call->in_handle) {
        call->finalize = 1;
        ngx_http_gcp_call_post(call);
    }
}


static ngx_int_t
ngx_http_gcp_send_response(ngx_http_request_t *r, gcp_response_t *resp)
{
    ngx_int_t     rc;
    ngx_buf_t    *b;
    ngx_chain_t   out;

    rc = ngx_http_gcp_send_header(r, resp);

    if (rc == NGX_ERROR || rc > NGX_OK || r->header_only) {
        return rc == NGX_ERROR || rc > NGX_OK ? NGX_ERROR : rc;
    }

    b = ngx_calloc_buf(r->pool);
    if (b == NULL) {
        return NGX_ERROR;
    }

    /* the body stays in the call's arena, which outlives the request */

    if (resp->body.len) {
        b->pos = (u_char *) resp->body.data;
        b->last = b->pos + resp->body.len;
        b->memory = 1;
    }

    b->last_buf = (r == r->main) ? 1 : 0;
    b->last_in_chain = 1;

    out.buf = b;
    out.next = NULL;

    return ngx_http_output_filter(r, &out);
}


/*
 * Status lines whose reason phrase nginx spells differently from Go's
 * net/http (clients such as the Python client show the phrase).
 */

static ngx_str_t *
ngx_http_gcp_status_line(ngx_uint_t status)
{
    static ngx_str_t  s414 = ngx_string("414 Request URI Too Long");
    static ngx_str_t  s422 = ngx_string("422 Unprocessable Entity");
    static ngx_str_t  s504 = ngx_string("504 Gateway Timeout");

    switch (status) {
    case 414:
        return &s414;
    case 422:
        return &s422;
    case 504:
        return &s504;
    default:
        return NULL;
    }
}


ngx_int_t
ngx_http_gcp_send_header(ngx_http_request_t *r, gcp_response_t *resp)
{
    size_t            i, n;
    ngx_str_t        *ct, *line;
    ngx_table_elt_t  *h;
    gcp_header_t     *gh;

    r->headers_out.status = resp->status;

    /*
     * the server's own failures (a full disk, an I/O error, the storage
     * gone) reach the error log with their Status; timeouts (504) are
     * the clients' own waits, health checks (text) their own report
     */

    if (resp->status >= 500 && resp->status != 504
        && resp->status_json.len)
    {
        ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                      "gcp: %d for %V %V: %*s", resp->status,
                      &r->method_name, &r->uri,
                      (size_t) ngx_min(resp->status_json.len, 512),
                      resp->status_json.data);
    }

    line = ngx_http_gcp_status_line(resp->status);
    if (line) {
        r->headers_out.status_line = *line;
    }

    if (resp->content_type) {
        ct = &r->headers_out.content_type;
        ct->data = (u_char *) resp->content_type;
        ct->len = ngx_strlen(resp->content_type);

        /* the media type without parameters, for gzip_types */
        for (n = 0; n < ct->len && ct->data[n] != ';' && ct->data[n] != ' ';
             n++)
        {
            /* void */
        }

        r->headers_out.content_type_len = n;
    }

    r->headers_out.content_length_n = resp->streaming
                                      ? -1 : (off_t) resp->body.len;

    for (i = 0; i < resp->nheaders; i++) {
        gh = &resp->headers[i];

        h = ngx_list_push(&r->headers_out.headers);
        if (h == NULL) {
            return NGX_ERROR;
        }

        h->hash = 1;
        h->key.data = (u_char *) gh->name;
        h->key.len = ngx_strlen(gh->name);
        h->value.data = (u_char *) gh->value;
        h->value.len = ngx_strlen(gh->value);
    }

    if (ngx_http_gcp_hide_server(r) != NGX_OK) {
        return NGX_ERROR;
    }

    return ngx_http_send_header(r);
}


ngx_int_t
ngx_http_gcp_hide_server(ngx_http_request_t *r)
{
    ngx_table_elt_t  *h;

    if (r->headers_out.server) {
        return NGX_OK;
    }

    /* a header with hash 0 is not sent, and keeps nginx's one away */

    h = ngx_list_push(&r->headers_out.headers);
    if (h == NULL) {
        return NGX_ERROR;
    }

    h->hash = 0;
    ngx_str_set(&h->key, "Server");
    ngx_str_null(&h->value);

    r->headers_out.server = h;

    return NGX_OK;
}


ngx_uint_t
ngx_http_gcp_end_streams(ngx_http_gcp_main_conf_t *mcf)
{
    ngx_int_t             rc;
    ngx_uint_t            n;
    ngx_queue_t          *q, *next;
    ngx_connection_t     *c;
    ngx_http_request_t   *r;
    ngx_http_gcp_call_t  *call;

    n = 0;

    for (q = ngx_queue_head(&mcf->calls);
         q != ngx_queue_sentinel(&mcf->calls);
         q = next)
    {
        next = ngx_queue_next(q);
        call = ngx_queue_data(q, ngx_http_gcp_call_t, queue);
        r = call->r;

        if (r == NULL) {
            continue;
        }

        if (!call->done || !call->streaming || call->ended
            || call->cancelled)
        {
            /* an answer in progress, or a stream about to be finalized */
            n++;
            continue;
        }

        ngx_http_gcp_call_cancel(call);

        rc = call->finalize ? call->rc : ngx_http_gcp_stream_finish(r);

        call->finalize = 0;

        if (call->post.posted) {
            ngx_delete_posted_event(&call->post);
        }

        c = r->connection;

        ngx_http_finalize_request(r, rc);
        ngx_http_run_posted_requests(c);
    }

    return n;
}


void
ngx_http_gcp_free_calls(ngx_http_gcp_main_conf_t *mcf)
{
    ngx_queue_t          *q;
    ngx_http_gcp_ctx_t   *ctx;
    ngx_http_gcp_call_t  *call;

    while (!ngx_queue_empty(&mcf->calls)) {
        q = ngx_queue_head(&mcf->calls);
        call = ngx_queue_data(q, ngx_http_gcp_call_t, queue);

        if (call->r) {
            ctx = ngx_http_get_module_ctx(call->r, ngx_http_gcp_module);
            ctx->call = NULL;
        }

        ngx_http_gcp_call_free(call);
    }
}


/*
 * The request body filter: counts the body as nginx reads it and stops a
 * body without Content-Length (chunked) at the gcp_api location's limit.
 */

static ngx_int_t
ngx_http_gcp_request_body_filter(ngx_http_request_t *r, ngx_chain_t *in)
{
    ngx_chain_t         *cl;
    ngx_http_gcp_ctx_t  *ctx;

    ctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);

    if (ctx == NULL || ctx->body_limit == 0) {
        return ngx_http_next_request_body_filter(r, in);
    }

    for (cl = in; cl; cl = cl->next) {
        ctx->body_received += ngx_buf_size(cl->buf);
    }

    if (ctx->body_received > ctx->body_limit) {
        ngx_log_error(NGX_LOG_INFO, r->connection->log, 0,
                      "gcp: request body over the limit of %O bytes",
                      ctx->body_limit);
        return NGX_HTTP_REQUEST_ENTITY_TOO_LARGE;
    }

    return ngx_http_next_request_body_filter(r, in);
}


ngx_int_t
ngx_http_gcp_body_filter_init(ngx_conf_t *cf)
{
    ngx_http_next_request_body_filter = ngx_http_top_request_body_filter;
    ngx_http_top_request_body_filter = ngx_http_gcp_request_body_filter;

    return NGX_OK;
}
