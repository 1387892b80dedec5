
/*
 * The queue set of a level (upstream's fairqueuing/queueset): shuffle
 * sharding, fair queuing in virtual time by work (seats times the
 * estimated service time, 3 ms), the anti-windup bound, and the seat
 * demand the borrowing follows.  Everything runs under the region's lock.
 *
 * Queues exist only while they hold a request (waiting or executing):
 * they live in a pool, found by (level, index) in an open-addressing
 * table.  An empty queue needs no state: a request arriving at an empty
 * queue sets its nextDispatchR to the level's virtual time, as upstream
 * does.
 */

#include "gcp_apf_int.h"
#include "gcp_time.h"


#define GCP_APF_SERVICE_S  ((double) GCP_APF_SERVICE_NS / 1e9)
#define GCP_APF_MAX_HAND   15           /* shufflesharding's largest */


/* the queue table */


static uint32_t
gcp_apf_qhash(gcp_apf_shm_t *sh, int32_t level, int32_t index)
{
    uint64_t  h;

    h = ((uint64_t) (uint32_t) level << 32 | (uint32_t) index)
        * 0x9e3779b97f4a7c15ull;

    return (uint32_t) (h >> 32) & (uint32_t) (sh->nhash - 1);
}


static int32_t
gcp_apf_queue_find(gcp_apf_shm_t *sh, int32_t level, int32_t index)
{
    int32_t           q;
    uint32_t          i;
    int32_t          *tab = gcp_apf_hash(sh);
    gcp_apf_queue_t  *queues = gcp_apf_queues(sh);

    for (i = gcp_apf_qhash(sh, level, index); /* void */;
         i = (i + 1) & (sh->nhash - 1))
    {
        q = tab[i];

        if (q == GCP_APF_NONE) {
            return GCP_APF_NONE;
        }

        if (queues[q].level == level && queues[q].index == index) {
            return q;
        }
    }
}


static int32_t
gcp_apf_queue_new(gcp_apf_shm_t *sh, gcp_apf_level_t *l, int32_t index)
{
    int32_t           q, level;
    uint32_t          i;
    int32_t          *tab = gcp_apf_hash(sh);
    gcp_apf_queue_t  *queue;

    q = sh->free_queue;
    if (q == GCP_APF_NONE) {
        return GCP_APF_NONE;
    }

    level = (int32_t) (l - sh->levels);
    queue = &gcp_apf_queues(sh)[q];
    sh->free_queue = queue->next;

    memset(queue, 0, sizeof(gcp_apf_queue_t));
    queue->level = level;
    queue->index = index;
    queue->head = GCP_APF_NONE;
    queue->tail = GCP_APF_NONE;
    queue->wnext = GCP_APF_NONE;
    queue->wprev = GCP_APF_NONE;
    queue->next_r = l->current_r;

    for (i = gcp_apf_qhash(sh, level, index); tab[i] != GCP_APF_NONE;
         i = (i + 1) & (sh->nhash - 1))
    { /* void */ }

    tab[i] = q;
    l->active_queues++;

    return q;
}


/* Drops an empty queue (linear probing: later entries move back). */
static void
gcp_apf_queue_drop(gcp_apf_shm_t *sh, int32_t q)
{
    uint32_t          i, j, k, mask;
    int32_t          *tab = gcp_apf_hash(sh);
    gcp_apf_queue_t  *queues = gcp_apf_queues(sh);

    mask = (uint32_t) (sh->nhash - 1);

    for (i = gcp_apf_qhash(sh, queues[q].level, queues[q].index);
         tab[i] != q;
         i = (i + 1) & mask)
    { /* void */ }

    j = i;

    for ( ;; ) {
        tab[i] = GCP_APF_NONE;

        for ( ;; ) {
            j = (j + 1) & mask;

            if (tab[j] == GCP_APF_NONE) {
                goto dropped;
            }

            k = gcp_apf_qhash(sh, queues[tab[j]].level, queues[tab[j]].index);

            /* stays when k lies cyclically in (i, j] */
            if (i <= j ? (i < k && k <= j) : (i < k || k <= j)) {
                continue;
            }

            break;
        }

        tab[i] = tab[j];
        i = j;
    }

dropped:

    sh->levels[queues[q].level].active_queues--;
    queues[q].level = GCP_APF_NONE;
    queues[q].next = sh->free_queue;
    sh->free_queue = q;
}


static void
gcp_apf_queue_unlink_waiting(gcp_apf_shm_t *sh, gcp_apf_level_t *l,
    int32_t q)
{
    gcp_apf_queue_t  *queues = gcp_apf_queues(sh);

    if (queues[q].wprev != GCP_APF_NONE) {
        queues[queues[q].wprev].wnext = queues[q].wnext;

    } else {
        l->waiting_queues = queues[q].wnext;
    }

    if (queues[q].wnext != GCP_APF_NONE) {
        queues[queues[q].wnext].wprev = queues[q].wprev;
    }

    queues[q].wnext = GCP_APF_NONE;
    queues[q].wprev = GCP_APF_NONE;
}


/* Drops the queue when it holds nothing any more. */
static void
gcp_apf_queue_idle(gcp_apf_shm_t *sh, int32_t q)
{
    gcp_apf_queue_t  *queue = &gcp_apf_queues(sh)[q];

    if (queue->waiting == 0 && queue->executing == 0) {
        gcp_apf_queue_drop(sh, q);
    }
}


/* virtual time */


void
gcp_apf_qs_sync(gcp_apf_shm_t *sh, gcp_apf_level_t *l, uint64_t now)
{
    double  dt, seats;

    if (now <= l->last_ns) {
        return;
    }

    dt = (double) (now - l->last_ns) / 1e9;
    l->last_ns = now;

    if (l->queues == 0 || l->active_queues == 0) {
        return;
    }

    /* min(seats requested, the limit) shared by the active queues */

    seats = gcp_min((double) (l->seats_in_use + l->seats_waiting),
                    (double) l->current_cl);

    l->current_r += dt * seats / l->active_queues;
}


/* boundNextDispatchLocked: dispatch in virtual time never precedes arrival */
static void
gcp_apf_bound(gcp_apf_shm_t *sh, gcp_apf_queue_t *queue)
{
    gcp_apf_rec_t  *head;

    if (queue->head == GCP_APF_NONE) {
        return;
    }

    head = &gcp_apf_recs(sh)[queue->head];

    if (queue->next_r < head->arrival_r) {
        queue->next_r = head->arrival_r;
    }
}


void
gcp_apf_demand(gcp_apf_level_t *l, uint64_t now)
{
    double  dt;

    if (now > l->demand_last) {
        dt = (double) (now - l->demand_last);
        l->demand_sum += l->demand * dt;
        l->demand_sum2 += l->demand * l->demand * dt;
        l->demand_last = now;
    }

    l->demand = (double) (l->seats_in_use + l->seats_waiting);

    if (l->demand > l->demand_max) {
        l->demand_max = l->demand;
    }
}


/* shuffle sharding */


/*
 * shufflesharding.Dealer.Deal: the hand of hand_size distinct cards out
 * of a deck of size cards, from the hash's mixed-radix digits.
 */
int
gcp_apf_deal(uint64_t hash, int deck, int hand, int32_t *cards)
{
    int       i, j;
    int32_t   card, rem[GCP_APF_MAX_HAND];
    uint64_t  next;

    hand = gcp_min(hand, GCP_APF_MAX_HAND);

    for (i = 0; i < hand; i++) {
        next = hash / (uint64_t) (deck - i);
        rem[i] = (int32_t) (hash - (uint64_t) (deck - i) * next);
        hash = next;
    }

    for (i = 0; i < hand; i++) {
        card = rem[i];

        for (j = i; j > 0; j--) {
            if (card >= rem[j - 1]) {
                card++;
            }
        }

        cards[i] = card;
    }

    return hand;
}


/*
 * The queue a flow's request joins: of its hand, the one with the least
 * work waiting, looked at from a rotating offset (as upstream, so that
 * ties do not always favor the same card).  Returns the queue index.
 */
static int32_t
gcp_apf_shuffle_shard(gcp_apf_shm_t *sh, gcp_apf_level_t *l, uint64_t hash)
{
    int              i, n, offset, level;
    int32_t          cards[GCP_APF_MAX_HAND], best, qi, q;
    double           work, min;

    level = (int) (l - sh->levels);
    n = gcp_apf_deal(hash, l->queues, gcp_min(l->hand_size, l->queues),
                     cards);

    offset = (int) (l->enqueues % (uint64_t) n);
    l->enqueues++;

    best = 0;
    min = -1;

    for (i = 0; i < n; i++) {
        qi = cards[(offset + i) % n];
        q = gcp_apf_queue_find(sh, level, qi);
        work = q == GCP_APF_NONE ? 0 : gcp_apf_queues(sh)[q].work_waiting;

        if (min < 0 || work < min) {
            min = work;
            best = qi;
        }
    }

    return best;
}


/* starting and dispatching */


static int
gcp_apf_fits(gcp_apf_level_t *l, int seats)
{
    if (l->exempt) {
        return 1;
    }

    if (seats > l->current_cl) {
        /* wider than the limit: alone */
        return l->executing == 0;
    }

    return l->seats_in_use + seats <= l->current_cl;
}


static void
gcp_apf_execute(gcp_apf_shm_t *sh, gcp_apf_level_t *l, int32_t r,
    uint64_t now)
{
    gcp_apf_rec_t    *rec = &gcp_apf_recs(sh)[r];
    gcp_apf_queue_t  *queue;
    struct timespec   ts;

    ts = gcp_time_now();

    rec->state = GCP_APF_REC_EXECUTING;
    rec->start_ns = now;
    rec->start_wall = (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;

    l->executing++;
    l->seats_in_use += rec->seats;
    l->dispatched++;

    if (rec->queue != GCP_APF_NONE) {
        queue = &gcp_apf_queues(sh)[rec->queue];
        queue->executing++;
        queue->seats_in_use += rec->seats;
    }

    gcp_apf_demand(l, now);
}


/* Takes waiting record r out of its queue's FIFO and counts. */
static void
gcp_apf_take_out(gcp_apf_shm_t *sh, gcp_apf_level_t *l, int32_t r)
{
    int32_t           q;
    gcp_apf_rec_t    *rec = &gcp_apf_recs(sh)[r];
    gcp_apf_queue_t  *queue;

    q = rec->queue;
    queue = &gcp_apf_queues(sh)[q];

    if (rec->prev != GCP_APF_NONE) {
        gcp_apf_recs(sh)[rec->prev].next = rec->next;

    } else {
        queue->head = rec->next;
    }

    if (rec->next != GCP_APF_NONE) {
        gcp_apf_recs(sh)[rec->next].prev = rec->prev;

    } else {
        queue->tail = rec->prev;
    }

    rec->next = GCP_APF_NONE;
    rec->prev = GCP_APF_NONE;

    queue->waiting--;
    queue->seats_waiting -= rec->seats;
    queue->work_waiting -= rec->work;
    l->waiting--;
    l->seats_waiting -= rec->seats;

    if (queue->waiting == 0) {
        gcp_apf_queue_unlink_waiting(sh, l, q);
    }
}


/*
 * dispatchLocked: of the queues with requests waiting, the one whose head
 * finishes first in virtual time (ties: the first after the round-robin
 * index) executes its head when its seats fit.  A record of another
 * request than self goes to its owner.  Returns 1 when one was
 * dispatched.
 */
static int
gcp_apf_dispatch_one(gcp_apf_shm_t *sh, gcp_apf_level_t *l, uint64_t now,
    int32_t self)
{
    int32_t           q, best, r;
    int64_t           nq, dist, best_dist;
    double            finish, best_finish;
    gcp_apf_rec_t    *head;
    gcp_apf_queue_t  *queues = gcp_apf_queues(sh);

    nq = gcp_max(l->queues, 1);
    best = GCP_APF_NONE;
    best_finish = 0;
    best_dist = 0;

    for (q = l->waiting_queues; q != GCP_APF_NONE; q = queues[q].wnext) {
        head = &gcp_apf_recs(sh)[queues[q].head];
        finish = queues[q].next_r + head->work;
        dist = ((int64_t) queues[q].index - l->robin - 1) % nq;
        dist = dist < 0 ? dist + nq : dist;

        if (best == GCP_APF_NONE || finish < best_finish
            || (finish == best_finish && dist < best_dist))
        {
            best = q;
            best_finish = finish;
            best_dist = dist;
        }
    }

    if (best == GCP_APF_NONE) {
        return 0;
    }

    head = &gcp_apf_recs(sh)[queues[best].head];

    if (!gcp_apf_fits(l, head->seats)) {
        return 0;
    }

    r = queues[best].head;
    gcp_apf_take_out(sh, l, r);

    gcp_apf_execute(sh, l, r, now);

    queues[best].next_r += gcp_apf_recs(sh)[r].work;
    l->robin = queues[best].index;
    gcp_apf_bound(sh, &queues[best]);

    if (r != self) {
        gcp_apf_rec_dispatched(sh, r);
    }

    return 1;
}


static void
gcp_apf_dispatch_from(gcp_apf_shm_t *sh, gcp_apf_level_t *l, uint64_t now,
    int32_t self)
{
    while (l->waiting > 0 && l->seats_in_use < l->current_cl
           && gcp_apf_dispatch_one(sh, l, now, self))
    { /* void */ }
}


void
gcp_apf_qs_dispatch(gcp_apf_shm_t *sh, gcp_apf_level_t *l, uint64_t now)
{
    gcp_apf_qs_sync(sh, l, now);
    gcp_apf_dispatch_from(sh, l, now, GCP_APF_NONE);
}


gcp_apf_decision_t
gcp_apf_qs_start(gcp_apf_shm_t *sh, gcp_apf_level_t *l, int32_t r,
    uint64_t hash, uint64_t now, int32_t *queue_length)
{
    int32_t           qi, q;
    gcp_apf_rec_t    *rec = &gcp_apf_recs(sh)[r];
    gcp_apf_queue_t  *queue;

    if (l->queues == 0) {
        /* exempt, or Reject: no queue */

        if (!gcp_apf_fits(l, rec->seats)) {
            l->rejected++;
            gcp_apf_rec_free(sh, r);
            return GCP_APF_REJECT;
        }

        gcp_apf_execute(sh, l, r, now);
        return GCP_APF_EXECUTE;
    }

    gcp_apf_qs_sync(sh, l, now);

    qi = gcp_apf_shuffle_shard(sh, l, hash);
    q = gcp_apf_queue_find(sh, (int32_t) (l - sh->levels), qi);

    if (l->seats_in_use >= l->current_cl && q != GCP_APF_NONE
        && gcp_apf_queues(sh)[q].waiting >= l->queue_length)
    {
        l->rejected++;
        gcp_apf_rec_free(sh, r);
        return GCP_APF_REJECT;
    }

    if (q == GCP_APF_NONE) {
        q = gcp_apf_queue_new(sh, l, qi);

        if (q == GCP_APF_NONE) {
            l->rejected++;
            gcp_apf_rec_free(sh, r);
            return GCP_APF_REJECT;
        }
    }

    queue = &gcp_apf_queues(sh)[q];

    rec->queue = q;
    rec->arrival_r = l->current_r;
    rec->work = rec->seats * GCP_APF_SERVICE_S;
    rec->next = GCP_APF_NONE;
    rec->prev = queue->tail;

    if (queue->tail == GCP_APF_NONE) {
        queue->head = r;

    } else {
        gcp_apf_recs(sh)[queue->tail].next = r;
    }

    queue->tail = r;

    if (queue->waiting++ == 0) {
        queue->wnext = l->waiting_queues;
        queue->wprev = GCP_APF_NONE;

        if (l->waiting_queues != GCP_APF_NONE) {
            gcp_apf_queues(sh)[l->waiting_queues].wprev = q;
        }

        l->waiting_queues = q;
    }

    *queue_length = queue->waiting;

    queue->seats_waiting += rec->seats;
    queue->work_waiting += rec->work;
    l->waiting++;
    l->seats_waiting += rec->seats;

    gcp_apf_demand(l, now);
    gcp_apf_bound(sh, queue);

    gcp_apf_dispatch_from(sh, l, now, r);

    return rec->state == GCP_APF_REC_EXECUTING ? GCP_APF_EXECUTE
                                               : GCP_APF_QUEUED;
}


void
gcp_apf_qs_unqueue(gcp_apf_shm_t *sh, int32_t r)
{
    int32_t           q;
    gcp_apf_rec_t    *rec = &gcp_apf_recs(sh)[r];
    gcp_apf_level_t  *l = &sh->levels[rec->level];

    q = rec->queue;

    gcp_apf_take_out(sh, l, r);
    gcp_apf_demand(l, l->last_ns);
    gcp_apf_bound(sh, &gcp_apf_queues(sh)[q]);
    gcp_apf_queue_idle(sh, q);
}


void
gcp_apf_qs_release(gcp_apf_shm_t *sh, int32_t r, uint64_t now)
{
    double            actual;
    gcp_apf_rec_t    *rec = &gcp_apf_recs(sh)[r];
    gcp_apf_level_t  *l = &sh->levels[rec->level];
    gcp_apf_queue_t  *queue;

    gcp_apf_qs_sync(sh, l, now);

    l->executing--;
    l->seats_in_use -= rec->seats;

    if (rec->queue != GCP_APF_NONE) {
        queue = &gcp_apf_queues(sh)[rec->queue];
        queue->executing--;
        queue->seats_in_use -= rec->seats;

        /* the estimate was G, the service took S: (G - S) * seats back */
        actual = now > rec->start_ns ? (double) (now - rec->start_ns) / 1e9
                                     : 0;
        queue->next_r -= rec->seats * (GCP_APF_SERVICE_S - actual);

        gcp_apf_bound(sh, queue);
        gcp_apf_queue_idle(sh, rec->queue);
    }

    gcp_apf_demand(l, now);
}
