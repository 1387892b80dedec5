
/*
 * A controller work queue, as client-go's rate-limited delaying queue: a
 * key added several times is synced once; a key added while its sync runs
 * is synced again afterwards; at most `workers` syncs run at once; a
 * failed sync is retried after a delay that doubles with each failure
 * (5 ms up to 60 s), and a key may be added after a delay.
 *
 * Syncs never start from inside gcp_ctl_queue_add(): they are dispatched
 * from a zero-delay timer, so that callers (store watch handlers) are not
 * re-entered.  Each sync gets an arena, released when it is done.
 */

#ifndef _GCP_CTL_QUEUE_H_INCLUDED_
#define _GCP_CTL_QUEUE_H_INCLUDED_


#include "gcp_core.h"


typedef struct gcp_ctl_s        gcp_ctl_t;
typedef struct gcp_ctl_queue_s  gcp_ctl_queue_t;
typedef struct gcp_ctl_item_s   gcp_ctl_item_t;


struct gcp_ctl_item_s {
    const char       *key;          /* owned by the item */
    gcp_arena_t      *arena;        /* the sync's, released by done */
    gcp_ctl_queue_t  *queue;
    void             *ctx;          /* the queue's ctx */
    void             *data;         /* the sync's own */
    int64_t           started_ns;   /* when the sync began (monotonic) */
};


/* Syncs item->key; ends with gcp_ctl_queue_done(item, ...). */
typedef void (*gcp_ctl_sync_pt)(gcp_ctl_item_t *item);


/*
 * Returns a new queue of the run ctl, owned by the run (released with
 * gcp_ctl_queue_free()), or NULL.  It dispatches once started.
 */
gcp_ctl_queue_t *gcp_ctl_queue_create(gcp_ctl_t *ctl, const char *name,
    unsigned workers, gcp_ctl_sync_pt sync, void *ctx);

/* Starts dispatching (controllers start once their state is built). */
void gcp_ctl_queue_start(gcp_ctl_queue_t *q);

void gcp_ctl_queue_add(gcp_ctl_queue_t *q, const char *key);

/* Adds key after ms milliseconds (the earliest of several wins). */
void gcp_ctl_queue_add_after(gcp_ctl_queue_t *q, const char *key,
    uint64_t ms);

/*
 * Ends a sync: rc GCP_OK forgets the key's failures (and, with again_ms,
 * adds it again after that delay); another rc retries it after its
 * backoff delay.  The item and its arena are released.
 */
void gcp_ctl_queue_done(gcp_ctl_item_t *item, int rc, uint64_t again_ms);

/* The run the queue belongs to. */
gcp_ctl_t *gcp_ctl_queue_run(const gcp_ctl_queue_t *q);

/* Keys waiting or syncing (for tests and idleness checks). */
size_t gcp_ctl_queue_len(const gcp_ctl_queue_t *q);

/* No more syncs start; delayed adds are dropped. */
void gcp_ctl_queue_stop(gcp_ctl_queue_t *q);

/* Frees a stopped queue with nothing in flight.  NULL is allowed. */
void gcp_ctl_queue_free(gcp_ctl_queue_t *q);


#endif /* _GCP_CTL_QUEUE_H_INCLUDED_ */
