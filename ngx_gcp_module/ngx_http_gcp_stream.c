
/*
 * Watch streams: the core's gcp_stream_ops_t on an nginx request.
 *
 * Every write is copied into a buffer of its own (malloc'd, freed as soon
 * as nginx sent it) and passed down the output filters with flush set, so
 * that it leaves as a chunk (HTTP/1.1) or DATA frame (HTTP/2) at once.
 *
 * Backpressure: the bytes nginx still holds for the client count against
 * gcp_watch_buffer, except those written during the current event loop
 * iteration (the client had no chance to read them yet) and the initial
 * events (those written before the stream first returned to the event
 * loop: their size is the data's, not the client's fault).  Above the
 * limit a write fails with GCP_ETOOMANY and the core ends the watch, which
 * then closes the connection.
 *
 * While streaming, a client that goes away is noticed by
 * ngx_http_test_reading(), whose termination of the request runs the
 * request's cleanup, which cancels the watch (ngx_http_gcp_handler.c).
 */

#include "ngx_http_gcp_module.h"


static ngx_int_t ngx_http_gcp_stream_identity(ngx_http_request_t *r);
static int ngx_http_gcp_stream_write(void *arg, const char *data, size_t len,
    int flush);
static void ngx_http_gcp_stream_end(void *arg);
static void ngx_http_gcp_stream_writer(ngx_http_request_t *r);
static void ngx_http_gcp_stream_collect(ngx_http_gcp_ctx_t *ctx);
static ngx_int_t ngx_http_gcp_stream_wait(ngx_http_request_t *r,
    ngx_uint_t progress);
static void ngx_http_gcp_stream_iteration(ngx_event_t *ev);
static void ngx_http_gcp_stream_cleanup(void *data);


const gcp_stream_ops_t  ngx_http_gcp_stream_ops = {
    ngx_http_gcp_stream_write,
    ngx_http_gcp_stream_end
};


ngx_int_t
ngx_http_gcp_stream_start(ngx_http_gcp_call_t *call, gcp_response_t *resp)
{
    ngx_int_t                  rc;
    ngx_connection_t          *c;
    ngx_pool_cleanup_t        *cln;
    ngx_http_request_t        *r;
    ngx_http_gcp_ctx_t        *ctx;
    ngx_http_gcp_loc_conf_t   *lcf;
    ngx_http_core_loc_conf_t  *clcf;

    r = call->r;
    c = r->connection;

    ctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);
    lcf = ngx_http_get_module_loc_conf(r, ngx_http_gcp_module);
    clcf = ngx_http_get_module_loc_conf(r, ngx_http_core_module);

    ctx->watch_buffer = lcf->watch_buffer;
    ctx->initial = 1;

    ctx->iteration.handler = ngx_http_gcp_stream_iteration;
    ctx->iteration.data = ctx;
    ctx->iteration.log = c->log;

    cln = ngx_pool_cleanup_add(r->pool, 0);
    if (cln == NULL) {
        return NGX_ERROR;
    }

    cln->handler = ngx_http_gcp_stream_cleanup;
    cln->data = ctx;

    if (ngx_http_gcp_stream_identity(r) != NGX_OK) {
        return NGX_ERROR;
    }

    rc = ngx_http_gcp_send_header(r, resp);

    if (rc == NGX_ERROR || rc > NGX_OK || r->header_only) {
        return rc;
    }

    /* the client sees the response headers before the first event */

    rc = ngx_http_send_special(r, NGX_HTTP_FLUSH);
    if (rc == NGX_ERROR) {
        return rc;
    }

    if (ngx_http_gcp_flush_tls(r) != NGX_OK) {
        return NGX_ERROR;
    }

#if (NGX_HTTP_V2)
    if (r->stream == NULL)
#endif
    {
        if (clcf->tcp_nodelay && ngx_tcp_nodelay(c) != NGX_OK) {
            return NGX_ERROR;
        }
    }

    r->read_event_handler = ngx_http_test_reading;
    r->write_event_handler = ngx_http_gcp_stream_writer;

    if (ngx_http_gcp_stream_wait(r, 1) != NGX_OK) {
        return NGX_ERROR;
    }

    /* the client may have gone already: look from the event loop */

    if (c->read->ready || c->read->pending_eof || c->error) {
        ngx_post_event(c->read, &ngx_posted_events);
    }

    return rc;
}


/*
 * HTTP/2 over TLS: the HEADERS frame goes into the connection's TLS buffer
 * (ssl_buffer_size) without a flush, and nginx 1.22 drops a flush that
 * carries no data before it reaches the stream, so the headers would wait
 * for the first event.  client-go's Watch() returns only with them.
 * Sending the output queue with nothing queued flushes that buffer, the
 * way nginx's own HTTP/2 write handler does.
 */

ngx_int_t
ngx_http_gcp_flush_tls(ngx_http_request_t *r)
{
#if (NGX_HTTP_V2 && NGX_HTTP_SSL)
    ngx_int_t              rc;
    ngx_http_v2_stream_t  *stream;

    stream = r->stream;

    if (stream == NULL
        || !(stream->connection->connection->buffered & NGX_SSL_BUFFERED))
    {
        return NGX_OK;
    }

    /* as ngx_http_v2_filter_send(): no wake-up of this stream meanwhile */

    stream->blocked = 1;
    rc = ngx_http_v2_send_output_queue(stream->connection);
    stream->blocked = 0;

    return rc == NGX_ERROR ? NGX_ERROR : NGX_OK;
#else
    return NGX_OK;
#endif
}


/*
 * Events must not wait in a compressor: a Content-Encoding that is not sent
 * (hash 0) keeps the gzip filter away, and so its "Vary: Accept-Encoding",
 * which kube-apiserver does not send on watches either.
 */

static ngx_int_t
ngx_http_gcp_stream_identity(ngx_http_request_t *r)
{
    ngx_table_elt_t  *h;

    h = ngx_list_push(&r->headers_out.headers);
    if (h == NULL) {
        return NGX_ERROR;
    }

    h->hash = 0;
    ngx_str_set(&h->key, "Content-Encoding");
    ngx_str_set(&h->value, "identity");

    r->headers_out.content_encoding = h;

    return NGX_OK;
}


ngx_int_t
ngx_http_gcp_stream_finish(ngx_http_request_t *r)
{
    return ngx_http_send_special(r, NGX_HTTP_LAST);
}


/* gcp_stream_ops_t.write; arg is the call */

static int
ngx_http_gcp_stream_write(void *arg, const char *data, size_t len, int flush)
{
    off_t                 old;
    ngx_int_t             rc;
    ngx_buf_t            *b;
    ngx_chain_t          *cl, out;
    ngx_connection_t     *c;
    ngx_http_request_t   *r;
    ngx_http_gcp_ctx_t   *ctx;
    ngx_http_gcp_call_t  *call = arg;

    r = call->r;

    if (r == NULL || call->cancelled || call->finalize) {
        return GCP_EUNAVAILABLE;
    }

    c = r->connection;
    ctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);

    if (c->error || ctx->overflow) {
        return GCP_EUNAVAILABLE;
    }

    ngx_http_gcp_stream_collect(ctx);

    if (!ctx->iteration.posted) {
        /* the first write of this event loop iteration */
        ctx->iteration_start = ctx->written;
        ngx_post_event(&ctx->iteration, &ngx_posted_events);
    }

    /* unsent bytes of earlier iterations, initial events excepted */

    old = ctx->iteration_start - ngx_max(ctx->sent, ctx->initial_end);

    if (!ctx->initial && old > (off_t) ctx->watch_buffer) {
        ngx_log_error(NGX_LOG_INFO, c->log, 0,
                      "gcp: watch client too slow: %O bytes not sent",
                      ctx->written - ctx->sent);
        ctx->overflow = 1;
        return GCP_ETOOMANY;
    }

    if (len == 0 && !flush) {
        return GCP_OK;
    }

    if (ctx->free) {
        cl = ctx->free;
        ctx->free = cl->next;

    } else {
        cl = ngx_alloc_chain_link(r->pool);
        if (cl == NULL) {
            return GCP_ENOMEM;
        }

        cl->buf = ngx_calloc_buf(r->pool);
        if (cl->buf == NULL) {
            return GCP_ENOMEM;
        }
    }

    b = cl->buf;

    if (len) {
        b->start = ngx_alloc(len, c->log);
        if (b->start == NULL) {
            cl->next = ctx->free;
            ctx->free = cl;
            return GCP_ENOMEM;
        }

        ngx_memcpy(b->start, data, len);
    }

    b->pos = b->start;
    b->last = b->start + len;
    b->end = b->last;
    b->temporary = 1;
    b->flush = flush ? 1 : 0;
    b->tag = (ngx_buf_tag_t) &ngx_http_gcp_module;

    cl->next = NULL;
    *ctx->busy_last = cl;
    ctx->busy_last = &cl->next;
    ctx->written += len;

    /* the filters keep our buffer, not our chain link */

    out.buf = b;
    out.next = NULL;

    rc = ngx_http_output_filter(r, &out);

    if (rc == NGX_ERROR) {
        return GCP_EUNAVAILABLE;
    }

    ngx_http_gcp_stream_collect(ctx);

    if (ngx_http_gcp_stream_wait(r, 0) != NGX_OK) {
        return GCP_EUNAVAILABLE;
    }

    return GCP_OK;
}


/* gcp_stream_ops_t.end; arg is the call */

static void
ngx_http_gcp_stream_end(void *arg)
{
    ngx_int_t             rc;
    ngx_http_request_t   *r;
    ngx_http_gcp_ctx_t   *ctx;
    ngx_http_gcp_call_t  *call = arg;

    call->ended = 1;
    r = call->r;

    if (r == NULL) {
        /* the client went away: only the call is left to free */
        ngx_http_gcp_call_post(call);
        return;
    }

    if (call->cancelled) {
        /* owed after gcp_api_cancel(): the adapter ends the request */
        return;
    }

    ctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);

    if (call->finalize) {
        /* broken already: call->rc says how */
        return;
    }

    if (ctx->overflow || r->connection->error) {
        /* a client that does not read is not owed a clean end */
        rc = NGX_ERROR;

    } else {
        rc = ngx_http_gcp_stream_finish(r);
    }

    call->rc = rc;

    if (!call->in_handle) {
        call->finalize = 1;
        ngx_http_gcp_call_post(call);
    }
}


/* r->write_event_handler while streaming */

static void
ngx_http_gcp_stream_writer(ngx_http_request_t *r)
{
    ngx_int_t            rc;
    ngx_event_t         *wev;
    ngx_connection_t    *c;
    ngx_http_gcp_ctx_t  *ctx;

    c = r->connection;
    wev = c->write;
    ctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);

    if (wev->timedout) {
        ngx_log_error(NGX_LOG_INFO, c->log, NGX_ETIMEDOUT,
                      "gcp: watch client timed out");
        c->timedout = 1;
        ngx_http_finalize_request(r, NGX_HTTP_REQUEST_TIME_OUT);
        return;
    }

    if (wev->delayed || !(r->buffered || c->buffered)) {
        /* nothing to send: an output chain must not be empty */
        if (ngx_http_gcp_stream_wait(r, 0) != NGX_OK) {
            ngx_http_finalize_request(r, NGX_ERROR);
        }

        return;
    }

    rc = ngx_http_output_filter(r, NULL);

    if (rc == NGX_ERROR) {
        ngx_http_finalize_request(r, NGX_ERROR);
        return;
    }

    ngx_http_gcp_stream_collect(ctx);

    if (ngx_http_gcp_stream_wait(r, 1) != NGX_OK) {
        ngx_http_finalize_request(r, NGX_ERROR);
    }
}


/* frees the buffers nginx has sent, in order */

static void
ngx_http_gcp_stream_collect(ngx_http_gcp_ctx_t *ctx)
{
    ngx_buf_t    *b;
    ngx_chain_t  *cl;

    while (ctx->busy && ngx_buf_size(ctx->busy->buf) == 0) {
        cl = ctx->busy;
        ctx->busy = cl->next;

        b = cl->buf;
        ctx->sent += b->end - b->start;

        if (b->start) {
            ngx_free(b->start);
        }

        ngx_memzero(b, sizeof(ngx_buf_t));

        cl->next = ctx->free;
        ctx->free = cl;
    }

    if (ctx->busy == NULL) {
        ctx->busy_last = &ctx->busy;
    }
}


/*
 * Arms the write event while nginx holds output for the client, with
 * send_timeout for a client that stops reading (restarted when progress was
 * made), as ngx_http_writer() does.
 */

static ngx_int_t
ngx_http_gcp_stream_wait(ngx_http_request_t *r, ngx_uint_t progress)
{
    ngx_event_t               *wev;
    ngx_connection_t          *c;
    ngx_http_core_loc_conf_t  *clcf;

    c = r->connection;
    wev = c->write;

    clcf = ngx_http_get_module_loc_conf(r, ngx_http_core_module);

    if (!(r->buffered || c->buffered)) {
        if (wev->timer_set && !wev->delayed) {
            ngx_del_timer(wev);
        }

        return NGX_OK;
    }

    if (!wev->delayed && (progress || !wev->timer_set)) {
        ngx_add_timer(wev, clcf->send_timeout);
    }

    return ngx_handle_write_event(wev, clcf->send_lowat);
}


/* posted by the first write of an event loop iteration, run at its end */

static void
ngx_http_gcp_stream_iteration(ngx_event_t *ev)
{
    ngx_http_gcp_ctx_t *ctx = ev->data;

    if (ctx->initial) {
        ctx->initial = 0;
        ctx->initial_end = ctx->written;
    }
}


/* r->pool cleanup: buffers still held when the request goes */

static void
ngx_http_gcp_stream_cleanup(void *data)
{
    ngx_http_gcp_ctx_t *ctx = data;

    ngx_chain_t  *cl;

    if (ctx->iteration.posted) {
        ngx_delete_posted_event(&ctx->iteration);
    }

    for (cl = ctx->busy; cl; cl = cl->next) {
        if (cl->buf->start) {
            ngx_free(cl->buf->start);
            cl->buf->start = NULL;
        }
    }

    ctx->busy = NULL;
    ctx->busy_last = &ctx->busy;
}
