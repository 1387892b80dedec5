
/*
 * The event loop as the core and the storage backends see it.
 *
 * The core never blocks: work that completes later (remote storage, the
 * fsync of a group commit, a notification from another worker process)
 * reaches it through file descriptors and timers registered here.  The nginx
 * adapter implements this interface on nginx's event loop
 * (ngx_http_gcp_loop.c); unit tests use the poll(2) implementation in
 * gcp_loop_poll.c.
 */

#ifndef _GCP_LOOP_H_INCLUDED_
#define _GCP_LOOP_H_INCLUDED_


#include <stdint.h>


#define GCP_LOOP_READ   0x1
#define GCP_LOOP_WRITE  0x2


typedef struct gcp_loop_s        gcp_loop_t;
typedef struct gcp_loop_fd_s     gcp_loop_fd_t;
typedef struct gcp_loop_timer_s  gcp_loop_timer_t;

/* events: the GCP_LOOP_* bits that are ready */
typedef void (*gcp_loop_fd_pt)(void *arg, int fd, unsigned events);
typedef void (*gcp_loop_timer_pt)(void *arg);


struct gcp_loop_s {
    /*
     * Starts watching fd for the given events (level-triggered: the handler
     * is called again while the condition holds).  Returns a handle owned by
     * the loop, released by fd_del(), or NULL on failure.  The loop never
     * closes fd.
     */
    gcp_loop_fd_t     *(*fd_add)(gcp_loop_t *loop, int fd, unsigned events,
                                 gcp_loop_fd_pt handler, void *arg);
    /* Changes the events watched; returns GCP_OK or an error code. */
    int                (*fd_mod)(gcp_loop_t *loop, gcp_loop_fd_t *h,
                                 unsigned events);
    void               (*fd_del)(gcp_loop_t *loop, gcp_loop_fd_t *h);

    /*
     * Calls handler(arg) once, after ms milliseconds.  Returns a handle owned
     * by the loop, valid until the handler has run or timer_del() is called,
     * or NULL on failure.
     */
    gcp_loop_timer_t  *(*timer_add)(gcp_loop_t *loop, uint64_t ms,
                                    gcp_loop_timer_pt handler, void *arg);
    void               (*timer_del)(gcp_loop_t *loop, gcp_loop_timer_t *t);

    /* Monotonic milliseconds. */
    uint64_t           (*now_ms)(gcp_loop_t *loop);

    void               *data;
};


/*
 * The poll(2) loop used by unit tests and tools.  gcp_loop_poll_create()
 * returns a loop owned by the caller (free with gcp_loop_poll_destroy()), or
 * NULL.  gcp_loop_poll_run() runs one iteration, waiting at most timeout_ms
 * (-1: until something happens); returns the number of handlers called.
 */
gcp_loop_t *gcp_loop_poll_create(void);
void gcp_loop_poll_destroy(gcp_loop_t *loop);
int gcp_loop_poll_run(gcp_loop_t *loop, int timeout_ms);


#endif /* _GCP_LOOP_H_INCLUDED_ */
