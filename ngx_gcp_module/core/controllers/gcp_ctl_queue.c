
/*
 * Controller work queues (see gcp_ctl_queue.h).
 */

#include <stdlib.h>

#include "gcp_ctl_int.h"
#include "gcp_metrics.h"
#include "gcp_time.h"


#define GCP_CTL_QUEUE_BATCH     128     /* syncs started per loop turn */
#define GCP_CTL_BACKOFF_BASE    5
#define GCP_CTL_BACKOFF_MAX     60000


typedef struct gcp_ctl_qnode_s  gcp_ctl_qnode_t;

struct gcp_ctl_qnode_s {
    gcp_ctl_qnode_t   *next;
    int64_t            added_ns;        /* queued (monotonic) */
    char               key[];
};


typedef struct {
    gcp_ctl_queue_t   *q;
    gcp_loop_timer_t  *timer;
    uint64_t           at;
    char               key[];
} gcp_ctl_delay_t;


struct gcp_ctl_queue_s {
    gcp_ctl_t          *ctl;
    const char         *name;
    unsigned            workers;
    gcp_ctl_sync_pt     sync;
    void               *ctx;

    gcp_ctl_qnode_t    *head;
    gcp_ctl_qnode_t   **tail;

    gcp_ctl_map_t      *dirty;          /* waiting to be synced */
    gcp_ctl_map_t      *processing;     /* syncing */
    gcp_ctl_map_t      *failures;       /* key -> count */
    gcp_ctl_map_t      *delayed;        /* key -> gcp_ctl_delay_t */

    gcp_loop_timer_t   *kick;
    size_t              inflight;

    unsigned            started:1;
    unsigned            stopped:1;
};


static void gcp_ctl_queue_kick(void *arg);



/* client-go's workqueue metrics, by the queue's name */

static void
gcp_ctl_queue_count(gcp_ctl_queue_t *q, gcp_metric_id_t id, int64_t n)
{
    const char  *v[2];

    v[0] = q->name;
    v[1] = NULL;

    gcp_metric_add(id, v, n);
}


static void
gcp_ctl_queue_time(gcp_ctl_queue_t *q, gcp_metric_id_t id, int64_t since)
{
    const char  *v[2];

    v[0] = q->name;
    v[1] = NULL;

    gcp_metric_observe(id, v, (double) (gcp_time_mono_ns() - since) / 1e9);
}


gcp_ctl_queue_t *
gcp_ctl_queue_create(gcp_ctl_t *ctl, const char *name, unsigned workers,
    gcp_ctl_sync_pt sync, void *ctx)
{
    gcp_ctl_queue_t  *q;

    q = calloc(1, sizeof(gcp_ctl_queue_t));
    if (q == NULL) {
        return NULL;
    }

    q->ctl = ctl;
    q->name = name;
    q->workers = workers ? workers : 1;
    q->sync = sync;
    q->ctx = ctx;
    q->tail = &q->head;

    q->dirty = gcp_ctl_map_create();
    q->processing = gcp_ctl_map_create();
    q->failures = gcp_ctl_map_create();
    q->delayed = gcp_ctl_map_create();

    if (q->dirty == NULL || q->processing == NULL || q->failures == NULL
        || q->delayed == NULL)
    {
        q->stopped = 1;
        gcp_ctl_queue_free(q);
        return NULL;
    }

    return q;
}


static void
gcp_ctl_queue_schedule(gcp_ctl_queue_t *q)
{
    if (q->kick || !q->started || q->stopped || q->head == NULL
        || q->inflight >= q->workers)
    {
        return;
    }

    q->kick = q->ctl->loop->timer_add(q->ctl->loop, 0, gcp_ctl_queue_kick,
                                      q);
}


static void
gcp_ctl_queue_push(gcp_ctl_queue_t *q, const char *key)
{
    size_t            len;
    gcp_ctl_qnode_t  *n;

    len = strlen(key);

    n = malloc(sizeof(gcp_ctl_qnode_t) + len + 1);
    if (n == NULL) {
        gcp_ctl_map_del(q->dirty, key);
        return;
    }

    n->next = NULL;
    n->added_ns = gcp_time_mono_ns();
    memcpy(n->key, key, len + 1);

    *q->tail = n;
    q->tail = &n->next;

    gcp_ctl_queue_count(q, GCP_M_WORKQUEUE_DEPTH, 1);

    gcp_ctl_queue_schedule(q);
}


void
gcp_ctl_queue_start(gcp_ctl_queue_t *q)
{
    q->started = 1;
    gcp_ctl_queue_schedule(q);
}


void
gcp_ctl_queue_add(gcp_ctl_queue_t *q, const char *key)
{
    if (q->stopped || gcp_ctl_map_get(q->dirty, key)) {
        return;
    }

    if (gcp_ctl_map_put(q->dirty, key, q) != GCP_OK) {
        return;
    }

    gcp_ctl_queue_count(q, GCP_M_WORKQUEUE_ADDS, 1);

    if (gcp_ctl_map_get(q->processing, key) == NULL) {
        gcp_ctl_queue_push(q, key);
    }
}


static void
gcp_ctl_queue_delayed(void *arg)
{
    gcp_ctl_delay_t  *d = arg;
    gcp_ctl_queue_t  *q = d->q;

    gcp_ctl_map_del(q->delayed, d->key);
    gcp_ctl_queue_add(q, d->key);
    free(d);
}


void
gcp_ctl_queue_add_after(gcp_ctl_queue_t *q, const char *key, uint64_t ms)
{
    size_t            len;
    uint64_t          at;
    gcp_loop_t       *loop = q->ctl->loop;
    gcp_ctl_delay_t  *d;

    if (q->stopped) {
        return;
    }

    if (ms == 0) {
        gcp_ctl_queue_add(q, key);
        return;
    }

    at = loop->now_ms(loop) + ms;
    d = gcp_ctl_map_get(q->delayed, key);

    if (d) {
        if (d->at <= at) {
            return;
        }

        loop->timer_del(loop, d->timer);
        gcp_ctl_map_del(q->delayed, key);
        free(d);
    }

    len = strlen(key);

    d = malloc(sizeof(gcp_ctl_delay_t) + len + 1);
    if (d == NULL) {
        return;
    }

    d->q = q;
    d->at = at;
    memcpy(d->key, key, len + 1);

    d->timer = loop->timer_add(loop, ms, gcp_ctl_queue_delayed, d);

    if (d->timer == NULL || gcp_ctl_map_put(q->delayed, d->key, d) != GCP_OK)
    {
        if (d->timer) {
            loop->timer_del(loop, d->timer);
        }

        free(d);
    }
}


static void
gcp_ctl_queue_kick(void *arg)
{
    size_t            n, len;
    gcp_ctl_queue_t  *q = arg;
    gcp_ctl_qnode_t  *node;
    gcp_ctl_item_t   *item;
    gcp_arena_t      *a;
    char             *key;

    q->kick = NULL;

    for (n = 0; n < GCP_CTL_QUEUE_BATCH; n++) {
        if (q->stopped || q->head == NULL || q->inflight >= q->workers) {
            return;
        }

        node = q->head;
        q->head = node->next;

        if (q->head == NULL) {
            q->tail = &q->head;
        }

        gcp_ctl_map_del(q->dirty, node->key);

        gcp_ctl_queue_count(q, GCP_M_WORKQUEUE_DEPTH, -1);
        gcp_ctl_queue_time(q, GCP_M_WORKQUEUE_QUEUE_DURATION,
                           node->added_ns);

        a = gcp_arena_create(0);
        item = a ? gcp_calloc(a, sizeof(gcp_ctl_item_t)) : NULL;
        len = strlen(node->key);
        key = item ? gcp_strndup(a, node->key, len) : NULL;

        if (key == NULL || gcp_ctl_map_put(q->processing, key, q) != GCP_OK)
        {
            /* out of memory: try again later */
            gcp_arena_destroy(a);
            gcp_ctl_queue_add_after(q, node->key, 1000);
            free(node);
            continue;
        }

        free(node);

        item->key = key;
        item->arena = a;
        item->queue = q;
        item->ctx = q->ctx;
        item->started_ns = gcp_time_mono_ns();

        q->inflight++;
        gcp_ctl_ref(q->ctl);

        q->sync(item);
    }

    gcp_ctl_queue_schedule(q);
}


void
gcp_ctl_queue_done(gcp_ctl_item_t *item, int rc, uint64_t again_ms)
{
    uint64_t          delay;
    uintptr_t         failures;
    gcp_ctl_t        *ctl;
    gcp_ctl_queue_t  *q = item->queue;

    ctl = q->ctl;

    gcp_ctl_map_del(q->processing, item->key);
    q->inflight--;

    gcp_ctl_queue_time(q, GCP_M_WORKQUEUE_WORK_DURATION, item->started_ns);

    if (rc != GCP_OK && !q->stopped) {
        gcp_ctl_queue_count(q, GCP_M_WORKQUEUE_RETRIES, 1);
    }

    if (!q->stopped) {
        if (rc == GCP_OK) {
            gcp_ctl_map_del(q->failures, item->key);

            if (again_ms) {
                gcp_ctl_queue_add_after(q, item->key, again_ms);
            }

        } else {
            failures = (uintptr_t) gcp_ctl_map_get(q->failures, item->key);
            delay = (uint64_t) GCP_CTL_BACKOFF_BASE << gcp_min(failures, 14);
            delay = gcp_min(delay, GCP_CTL_BACKOFF_MAX);

            gcp_ctl_map_put(q->failures, item->key, (void *) (failures + 1));
            gcp_ctl_queue_add_after(q, item->key, delay);
        }

        if (gcp_ctl_map_get(q->dirty, item->key)) {
            gcp_ctl_queue_push(q, item->key);

        } else {
            gcp_ctl_queue_schedule(q);
        }
    }

    gcp_arena_destroy(item->arena);
    gcp_ctl_unref(ctl);
}


gcp_ctl_t *
gcp_ctl_queue_run(const gcp_ctl_queue_t *q)
{
    return q->ctl;
}


size_t
gcp_ctl_queue_len(const gcp_ctl_queue_t *q)
{
    return gcp_ctl_map_size(q->dirty) + q->inflight;
}


void
gcp_ctl_queue_stop(gcp_ctl_queue_t *q)
{
    void                *v;
    const char          *key;
    gcp_loop_t          *loop;
    gcp_ctl_delay_t     *d;
    gcp_ctl_map_iter_t   it;

    if (q == NULL || q->stopped) {
        return;
    }

    q->stopped = 1;
    loop = q->ctl->loop;

    if (q->kick) {
        loop->timer_del(loop, q->kick);
        q->kick = NULL;
    }

    memset(&it, 0, sizeof(it));

    while (gcp_ctl_map_next(q->delayed, &it, &key, &v)) {
        d = v;
        loop->timer_del(loop, d->timer);
        gcp_ctl_map_del(q->delayed, key);
        free(d);
    }
}


void
gcp_ctl_queue_free(gcp_ctl_queue_t *q)
{
    gcp_ctl_qnode_t  *n, *next;

    if (q == NULL) {
        return;
    }

    if (q->delayed) {
        gcp_ctl_queue_stop(q);
    }

    for (n = q->head; n; n = next) {
        next = n->next;
        free(n);

        gcp_ctl_queue_count(q, GCP_M_WORKQUEUE_DEPTH, -1);
    }

    gcp_ctl_map_free(q->dirty);
    gcp_ctl_map_free(q->processing);
    gcp_ctl_map_free(q->failures);
    gcp_ctl_map_free(q->delayed);
    free(q);
}
