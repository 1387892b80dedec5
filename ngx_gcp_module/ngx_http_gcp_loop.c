
/*
 * gcp_loop_t (core/base/gcp_loop.h) on nginx's event loop.
 *
 * File descriptors get a connection slot from ngx_get_connection() and are
 * watched level-triggered (NGX_LEVEL_EVENT), as the interface promises:
 * with epoll nginx otherwise uses edge-triggered events.  The loop never
 * closes the descriptors it watches.
 *
 * Timers are ngx_event_t timers marked cancelable: a gracefully exiting
 * worker does not wait for them (requests in flight keep it alive instead,
 * see ngx_http_gcp_module.c).
 */

#include "ngx_http_gcp_module.h"


struct gcp_loop_fd_s {
    ngx_connection_t    *c;
    unsigned             events;
    gcp_loop_fd_pt       handler;
    void                *arg;
};


struct gcp_loop_timer_s {
    ngx_event_t          ev;
    gcp_loop_timer_pt    handler;
    void                *arg;
    unsigned             firing:1;
};


typedef struct {
    gcp_loop_t           loop;
    ngx_log_t           *log;
} ngx_http_gcp_loop_t;


static gcp_loop_fd_t *ngx_http_gcp_loop_fd_add(gcp_loop_t *loop, int fd,
    unsigned events, gcp_loop_fd_pt handler, void *arg);
static int ngx_http_gcp_loop_fd_mod(gcp_loop_t *loop, gcp_loop_fd_t *h,
    unsigned events);
static void ngx_http_gcp_loop_fd_del(gcp_loop_t *loop, gcp_loop_fd_t *h);
static void ngx_http_gcp_loop_fd_handler(ngx_event_t *ev);
static gcp_loop_timer_t *ngx_http_gcp_loop_timer_add(gcp_loop_t *loop,
    uint64_t ms, gcp_loop_timer_pt handler, void *arg);
static void ngx_http_gcp_loop_timer_del(gcp_loop_t *loop,
    gcp_loop_timer_t *t);
static void ngx_http_gcp_loop_timer_handler(ngx_event_t *ev);
static uint64_t ngx_http_gcp_loop_now(gcp_loop_t *loop);


gcp_loop_t *
ngx_http_gcp_loop_create(ngx_log_t *log)
{
    ngx_http_gcp_loop_t  *nl;

    nl = ngx_calloc(sizeof(ngx_http_gcp_loop_t), log);
    if (nl == NULL) {
        return NULL;
    }

    nl->log = log;

    nl->loop.fd_add = ngx_http_gcp_loop_fd_add;
    nl->loop.fd_mod = ngx_http_gcp_loop_fd_mod;
    nl->loop.fd_del = ngx_http_gcp_loop_fd_del;
    nl->loop.timer_add = ngx_http_gcp_loop_timer_add;
    nl->loop.timer_del = ngx_http_gcp_loop_timer_del;
    nl->loop.now_ms = ngx_http_gcp_loop_now;
    nl->loop.data = nl;

    return &nl->loop;
}


void
ngx_http_gcp_loop_destroy(gcp_loop_t *loop)
{
    ngx_free(loop);
}


static ngx_int_t
ngx_http_gcp_loop_set(ngx_event_t *ev, ngx_uint_t event, ngx_uint_t on)
{
    if (on && !ev->active) {
        return ngx_add_event(ev, event, NGX_LEVEL_EVENT);
    }

    if (!on && ev->active) {
        return ngx_del_event(ev, event, NGX_LEVEL_EVENT);
    }

    return NGX_OK;
}


static int
ngx_http_gcp_loop_apply(gcp_loop_fd_t *h, unsigned events)
{
    if (ngx_http_gcp_loop_set(h->c->read, NGX_READ_EVENT,
                              events & GCP_LOOP_READ)
        != NGX_OK
        || ngx_http_gcp_loop_set(h->c->write, NGX_WRITE_EVENT,
                                 events & GCP_LOOP_WRITE)
           != NGX_OK)
    {
        return GCP_EINTERNAL;
    }

    h->events = events;

    return GCP_OK;
}


static gcp_loop_fd_t *
ngx_http_gcp_loop_fd_add(gcp_loop_t *loop, int fd, unsigned events,
    gcp_loop_fd_pt handler, void *arg)
{
    ngx_connection_t     *c;
    gcp_loop_fd_t        *h;
    ngx_http_gcp_loop_t  *nl = loop->data;

    h = ngx_calloc(sizeof(gcp_loop_fd_t), nl->log);
    if (h == NULL) {
        return NULL;
    }

    c = ngx_get_connection(fd, nl->log);
    if (c == NULL) {
        ngx_free(h);
        return NULL;
    }

    c->data = h;
    c->read->handler = ngx_http_gcp_loop_fd_handler;
    c->write->handler = ngx_http_gcp_loop_fd_handler;
    c->read->log = nl->log;
    c->write->log = nl->log;

    h->c = c;
    h->handler = handler;
    h->arg = arg;

    if (ngx_http_gcp_loop_apply(h, events) != GCP_OK) {
        ngx_http_gcp_loop_fd_del(loop, h);
        return NULL;
    }

    return h;
}


static int
ngx_http_gcp_loop_fd_mod(gcp_loop_t *loop, gcp_loop_fd_t *h, unsigned events)
{
    return ngx_http_gcp_loop_apply(h, events);
}


static void
ngx_http_gcp_loop_fd_del(gcp_loop_t *loop, gcp_loop_fd_t *h)
{
    ngx_connection_t  *c;

    c = h->c;

    (void) ngx_http_gcp_loop_apply(h, 0);

    if (c->read->posted) {
        ngx_delete_posted_event(c->read);
    }

    if (c->write->posted) {
        ngx_delete_posted_event(c->write);
    }

    /* the descriptor stays open: it is the caller's */

    ngx_free_connection(c);
    c->fd = (ngx_socket_t) -1;

    ngx_free(h);
}


static void
ngx_http_gcp_loop_fd_handler(ngx_event_t *ev)
{
    unsigned           event;
    ngx_connection_t  *c;
    gcp_loop_fd_t     *h;

    c = ev->data;
    h = c->data;

    event = ev->write ? GCP_LOOP_WRITE : GCP_LOOP_READ;

    if (!(h->events & event)) {
        return;
    }

    /* the handler may delete h: nothing may touch it afterwards */

    h->handler(h->arg, c->fd, event);
}


static gcp_loop_timer_t *
ngx_http_gcp_loop_timer_add(gcp_loop_t *loop, uint64_t ms,
    gcp_loop_timer_pt handler, void *arg)
{
    gcp_loop_timer_t     *t;
    ngx_http_gcp_loop_t  *nl = loop->data;

    t = ngx_calloc(sizeof(gcp_loop_timer_t), nl->log);
    if (t == NULL) {
        return NULL;
    }

    t->handler = handler;
    t->arg = arg;

    t->ev.handler = ngx_http_gcp_loop_timer_handler;
    t->ev.data = t;
    t->ev.log = nl->log;
    t->ev.cancelable = 1;

    if (ms > NGX_MAX_INT32_VALUE) {
        ms = NGX_MAX_INT32_VALUE;
    }

    ngx_add_timer(&t->ev, (ngx_msec_t) ms);

    return t;
}


static void
ngx_http_gcp_loop_timer_del(gcp_loop_t *loop, gcp_loop_timer_t *t)
{
    if (t->firing) {
        /* from its own handler: freed when the handler returns */
        return;
    }

    if (t->ev.timer_set) {
        ngx_del_timer(&t->ev);
    }

    if (t->ev.posted) {
        ngx_delete_posted_event(&t->ev);
    }

    ngx_free(t);
}


static void
ngx_http_gcp_loop_timer_handler(ngx_event_t *ev)
{
    gcp_loop_timer_t  *t;

    t = ev->data;

    /* a timer_del() from the handler itself is harmless */

    t->firing = 1;
    t->handler(t->arg);

    ngx_free(t);
}


static uint64_t
ngx_http_gcp_loop_now(gcp_loop_t *loop)
{
    return (uint64_t) ngx_current_msec;
}
