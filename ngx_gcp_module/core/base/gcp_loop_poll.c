
/*
 * A small poll(2) event loop implementing gcp_loop_t, for unit tests and
 * command-line tools.  Not used inside nginx.
 */

#include <poll.h>
#include <stdlib.h>
#include <time.h>

#include "gcp_core.h"
#include "gcp_loop.h"


struct gcp_loop_fd_s {
    gcp_loop_fd_t     *next;
    int                fd;
    unsigned           events;
    unsigned           deleted:1;
    gcp_loop_fd_pt     handler;
    void              *arg;
};


struct gcp_loop_timer_s {
    gcp_loop_timer_t  *next;
    uint64_t           when;
    unsigned           deleted:1;
    gcp_loop_timer_pt  handler;
    void              *arg;
};


typedef struct {
    gcp_loop_t         loop;
    gcp_loop_fd_t     *fds;
    gcp_loop_timer_t  *timers;
    unsigned           running;
} gcp_loop_poll_t;


static uint64_t
gcp_loop_poll_now(gcp_loop_t *loop)
{
    struct timespec  ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);

    return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}


static gcp_loop_fd_t *
gcp_loop_poll_fd_add(gcp_loop_t *loop, int fd, unsigned events,
    gcp_loop_fd_pt handler, void *arg)
{
    gcp_loop_poll_t  *lp = (gcp_loop_poll_t *) loop;
    gcp_loop_fd_t    *h;

    h = calloc(1, sizeof(gcp_loop_fd_t));
    if (h == NULL) {
        return NULL;
    }

    h->fd = fd;
    h->events = events;
    h->handler = handler;
    h->arg = arg;
    h->next = lp->fds;
    lp->fds = h;

    return h;
}


static int
gcp_loop_poll_fd_mod(gcp_loop_t *loop, gcp_loop_fd_t *h, unsigned events)
{
    h->events = events;
    return GCP_OK;
}


static void
gcp_loop_poll_fd_del(gcp_loop_t *loop, gcp_loop_fd_t *h)
{
    h->deleted = 1;
}


static gcp_loop_timer_t *
gcp_loop_poll_timer_add(gcp_loop_t *loop, uint64_t ms,
    gcp_loop_timer_pt handler, void *arg)
{
    gcp_loop_poll_t   *lp = (gcp_loop_poll_t *) loop;
    gcp_loop_timer_t  *t;

    t = calloc(1, sizeof(gcp_loop_timer_t));
    if (t == NULL) {
        return NULL;
    }

    t->when = gcp_loop_poll_now(loop) + ms;
    t->handler = handler;
    t->arg = arg;
    t->next = lp->timers;
    lp->timers = t;

    return t;
}


static void
gcp_loop_poll_timer_del(gcp_loop_t *loop, gcp_loop_timer_t *t)
{
    t->deleted = 1;
}


static void
gcp_loop_poll_sweep(gcp_loop_poll_t *lp)
{
    gcp_loop_fd_t     **fp, *f;
    gcp_loop_timer_t  **tp, *t;

    for (fp = &lp->fds; *fp; ) {
        f = *fp;
        if (f->deleted) {
            *fp = f->next;
            free(f);
        } else {
            fp = &f->next;
        }
    }

    for (tp = &lp->timers; *tp; ) {
        t = *tp;
        if (t->deleted) {
            *tp = t->next;
            free(t);
        } else {
            tp = &t->next;
        }
    }
}


gcp_loop_t *
gcp_loop_poll_create(void)
{
    gcp_loop_poll_t  *lp;

    lp = calloc(1, sizeof(gcp_loop_poll_t));
    if (lp == NULL) {
        return NULL;
    }

    lp->loop.fd_add = gcp_loop_poll_fd_add;
    lp->loop.fd_mod = gcp_loop_poll_fd_mod;
    lp->loop.fd_del = gcp_loop_poll_fd_del;
    lp->loop.timer_add = gcp_loop_poll_timer_add;
    lp->loop.timer_del = gcp_loop_poll_timer_del;
    lp->loop.now_ms = gcp_loop_poll_now;
    lp->loop.data = lp;

    return &lp->loop;
}


void
gcp_loop_poll_destroy(gcp_loop_t *loop)
{
    gcp_loop_poll_t   *lp = (gcp_loop_poll_t *) loop;
    gcp_loop_fd_t     *f;
    gcp_loop_timer_t  *t;

    if (lp == NULL) {
        return;
    }

    for (f = lp->fds; f; f = f->next) {
        f->deleted = 1;
    }

    for (t = lp->timers; t; t = t->next) {
        t->deleted = 1;
    }

    gcp_loop_poll_sweep(lp);
    free(lp);
}


int
gcp_loop_poll_run(gcp_loop_t *loop, int timeout_ms)
{
    int                n, i, rc, calls;
    nfds_t             nfds;
    uint64_t           now, wait;
    unsigned           ev;
    gcp_loop_fd_t     *f, **map;
    gcp_loop_timer_t  *t;
    gcp_loop_poll_t   *lp = (gcp_loop_poll_t *) loop;
    struct pollfd     *pfds;

    calls = 0;

    gcp_loop_poll_sweep(lp);

    now = gcp_loop_poll_now(loop);

    for (t = lp->timers; t; t = t->next) {
        wait = t->when > now ? t->when - now : 0;
        if (timeout_ms < 0 || wait < (uint64_t) timeout_ms) {
            timeout_ms = (int) wait;
        }
    }

    n = 0;
    for (f = lp->fds; f; f = f->next) {
        n++;
    }

    pfds = calloc(n ? n : 1, sizeof(struct pollfd));
    map = calloc(n ? n : 1, sizeof(gcp_loop_fd_t *));

    if (pfds == NULL || map == NULL) {
        free(pfds);
        free(map);
        return -1;
    }

    nfds = 0;
    for (f = lp->fds; f; f = f->next) {
        pfds[nfds].fd = f->fd;
        pfds[nfds].events = ((f->events & GCP_LOOP_READ) ? POLLIN : 0)
                            | ((f->events & GCP_LOOP_WRITE) ? POLLOUT : 0);
        map[nfds++] = f;
    }

    rc = poll(pfds, nfds, timeout_ms);

    for (i = 0; rc > 0 && i < (int) nfds; i++) {
        if (pfds[i].revents == 0 || map[i]->deleted) {
            continue;
        }

        ev = 0;
        if (pfds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
            ev |= GCP_LOOP_READ;
        }
        if (pfds[i].revents & (POLLOUT | POLLERR)) {
            ev |= GCP_LOOP_WRITE;
        }

        ev &= map[i]->events ? map[i]->events : ev;

        if (ev) {
            map[i]->handler(map[i]->arg, map[i]->fd, ev);
            calls++;
        }
    }

    free(pfds);
    free(map);

    now = gcp_loop_poll_now(loop);

    for (t = lp->timers; t; t = t->next) {
        if (!t->deleted && t->when <= now) {
            t->deleted = 1;
            t->handler(t->arg);
            calls++;
        }
    }

    gcp_loop_poll_sweep(lp);

    return calls;
}
