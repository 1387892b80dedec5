
/*
 * nginx's own error responses as metav1.Status.
 *
 * Where the Kubernetes API is served (a gcp_api location, or anywhere in
 * its server before a location was chosen, e.g. a malformed request line),
 * an error page that nginx produces itself (400, 413, 414, 494, 500, 503...)
 * is replaced by a Status JSON body.  Responses made by the core pass
 * untouched.
 */

#include "ngx_http_gcp_module.h"

#include "gcp_status.h"


typedef struct {
    ngx_uint_t   status;
    int          rc;            /* gcp_rc_t giving the reason */
    const char  *message;       /* NULL: gcp_error_info()'s message */
} ngx_http_gcp_status_t;


static ngx_int_t ngx_http_gcp_status_enabled(ngx_http_request_t *r);
static ngx_chain_t *ngx_http_gcp_status_page(ngx_http_request_t *r,
    ngx_http_gcp_ctx_t *ctx);
static ngx_int_t ngx_http_gcp_status_header_filter(ngx_http_request_t *r);
static ngx_int_t ngx_http_gcp_status_body_filter(ngx_http_request_t *r,
    ngx_chain_t *in);


/*
 * The reason and message of the errors nginx may answer by itself; the HTTP
 * status stays nginx's.  Other statuses get BadRequest or InternalError.
 */
static ngx_http_gcp_status_t  ngx_http_gcp_statuses[] = {
    { NGX_HTTP_BAD_REQUEST, GCP_EBADREQUEST, "Bad Request" },
    { NGX_HTTP_NOT_FOUND, GCP_ENOTFOUND, NULL },
    { NGX_HTTP_NOT_ALLOWED, GCP_EMETHOD, NULL },
    { NGX_HTTP_REQUEST_TIME_OUT, GCP_ETIMEOUT, "Request Timeout" },
    { NGX_HTTP_REQUEST_ENTITY_TOO_LARGE, GCP_ETOOLARGE, NULL },
    { NGX_HTTP_REQUEST_URI_TOO_LARGE, GCP_EBADREQUEST,
      "Request-URI Too Large" },
    { NGX_HTTP_TOO_MANY_REQUESTS, GCP_ETOOMANY, NULL },
    { NGX_HTTP_INTERNAL_SERVER_ERROR, GCP_EINTERNAL, NULL },
    { NGX_HTTP_NOT_IMPLEMENTED, GCP_EINTERNAL, "Not Implemented" },
    { NGX_HTTP_SERVICE_UNAVAILABLE, GCP_EUNAVAILABLE, NULL },
    { NGX_HTTP_GATEWAY_TIME_OUT, GCP_ETIMEOUT, NULL },
    { 0, 0, NULL }
};


static ngx_http_output_header_filter_pt  ngx_http_next_header_filter;
static ngx_http_output_body_filter_pt    ngx_http_next_body_filter;


ngx_int_t
ngx_http_gcp_status_filter_init(ngx_conf_t *cf)
{
    ngx_http_next_header_filter = ngx_http_top_header_filter;
    ngx_http_top_header_filter = ngx_http_gcp_status_header_filter;

    ngx_http_next_body_filter = ngx_http_top_body_filter;
    ngx_http_top_body_filter = ngx_http_gcp_status_body_filter;

    return NGX_OK;
}


static ngx_int_t
ngx_http_gcp_status_enabled(ngx_http_request_t *r)
{
    ngx_http_gcp_srv_conf_t   *scf;
    ngx_http_gcp_loc_conf_t   *lcf;
    ngx_http_core_srv_conf_t  *cscf;

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_gcp_module);

    if (lcf->api) {
        return 1;
    }

    /* no location chosen yet: the server's */

    cscf = ngx_http_get_module_srv_conf(r, ngx_http_core_module);
    scf = ngx_http_get_module_srv_conf(r, ngx_http_gcp_module);

    return r->loc_conf == cscf->ctx->loc_conf && scf->api;
}


static ngx_int_t
ngx_http_gcp_status_header_filter(ngx_http_request_t *r)
{
    ngx_table_elt_t     *h;
    ngx_http_gcp_ctx_t  *ctx;

    if (r != r->main
        || r->headers_out.status < NGX_HTTP_BAD_REQUEST
        || !ngx_http_gcp_status_enabled(r))
    {
        return ngx_http_next_header_filter(r);
    }

    ctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);

    if (ctx && ctx->core_response) {
        return ngx_http_next_header_filter(r);
    }

    ctx = ngx_http_gcp_get_ctx(r);
    if (ctx == NULL) {
        return NGX_ERROR;
    }

    ctx->status_body = ngx_http_gcp_status_page(r, ctx);
    if (ctx->status_body == NULL) {
        return NGX_ERROR;
    }

    ngx_str_set(&r->headers_out.content_type, "application/json");
    r->headers_out.content_type_len = r->headers_out.content_type.len;
    r->headers_out.content_type_lowcase = NULL;
    r->headers_out.charset.len = 0;

    ngx_http_clear_content_length(r);
    ngx_http_clear_accept_ranges(r);
    ngx_http_clear_last_modified(r);
    ngx_http_clear_etag(r);

    r->headers_out.content_length_n = ngx_buf_size(ctx->status_body->buf);

    h = ngx_list_push(&r->headers_out.headers);
    if (h == NULL) {
        return NGX_ERROR;
    }

    h->hash = 1;
    ngx_str_set(&h->key, "Cache-Control");
    ngx_str_set(&h->value, "no-cache, private");

    if (ngx_http_gcp_hide_server(r) != NGX_OK) {
        return NGX_ERROR;
    }

    /*
     * The request may not have been read to its end (a URI or header too
     * long, a body refused): close lingering, so that the rest arriving
     * does not reset the connection before the client read the Status.
     */

    r->lingering_close = 1;

    return ngx_http_next_header_filter(r);
}


static ngx_int_t
ngx_http_gcp_status_body_filter(ngx_http_request_t *r, ngx_chain_t *in)
{
    ngx_chain_t         *cl;
    ngx_http_gcp_ctx_t  *ctx;

    ctx = ngx_http_get_module_ctx(r, ngx_http_gcp_module);

    if (ctx == NULL || ctx->status_body == NULL) {
        return ngx_http_next_body_filter(r, in);
    }

    /* nginx's page is dropped */

    for (cl = in; cl; cl = cl->next) {
        cl->buf->pos = cl->buf->last;
        cl->buf->file_pos = cl->buf->file_last;
    }

    if (ctx->status_sent) {
        return NGX_OK;
    }

    ctx->status_sent = 1;

    return ngx_http_next_body_filter(r, ctx->status_body);
}


/* Returns the Status body (in r->pool) for the response's status. */

static ngx_chain_t *
ngx_http_gcp_status_page(ngx_http_request_t *r, ngx_http_gcp_ctx_t *ctx)
{
    int                        rc;
    off_t                      limit;
    ngx_buf_t                 *b;
    ngx_uint_t                 status;
    gcp_buf_t                  out;
    const char                *message, *proxied;
    ngx_chain_t               *cl;
    gcp_arena_t               *a;
    ngx_http_gcp_status_t     *s;
    const gcp_error_info_t    *info;
    ngx_http_gcp_loc_conf_t   *lcf;
    ngx_http_core_loc_conf_t  *clcf;

    status = r->headers_out.status;

    rc = status >= NGX_HTTP_INTERNAL_SERVER_ERROR
         ? GCP_EINTERNAL : GCP_EBADREQUEST;
    message = NULL;

    for (s = ngx_http_gcp_statuses; s->status; s++) {
        if (s->status == status) {
            rc = s->rc;
            message = s->message;
            break;
        }
    }

    a = gcp_arena_create(0);
    if (a == NULL) {
        return NULL;
    }

    if (status == NGX_HTTP_REQUEST_ENTITY_TOO_LARGE) {
        lcf = ngx_http_get_module_loc_conf(r, ngx_http_gcp_module);
        clcf = ngx_http_get_module_loc_conf(r, ngx_http_core_module);

        if (ctx->body_limit) {
            limit = ctx->body_limit;

        } else if (lcf->api) {
            limit = (off_t) lcf->max_body_size;

        } else {
            limit = clcf->client_max_body_size;
        }

        /* kube-apiserver's words */
        message = gcp_sprintf(a, "Request entity too large: limit is %lld",
                              (long long) limit);
    }

    /* a server the request was proxied to could not be reached */

    proxied = ngx_http_gcp_proxy_failure(r, a);

    if (proxied) {
        status = NGX_HTTP_SERVICE_UNAVAILABLE;
        r->headers_out.status = status;
        rc = GCP_EUNAVAILABLE;
        message = proxied;
    }

    info = gcp_error_info(rc);

    gcp_buf_init(&out, a);
    gcp_status_failure(&out, (int) status, info->reason,
                       message ? message : info->message, NULL);

    cl = NULL;

    if (gcp_buf_failed(&out)) {
        goto done;
    }

    b = ngx_create_temp_buf(r->pool, out.len);
    if (b == NULL) {
        goto done;
    }

    b->last = ngx_cpymem(b->pos, out.data, out.len);
    b->last_buf = 1;
    b->last_in_chain = 1;

    cl = ngx_alloc_chain_link(r->pool);
    if (cl == NULL) {
        goto done;
    }

    cl->buf = b;
    cl->next = NULL;

done:

    gcp_arena_destroy(a);

    return cl;
}
