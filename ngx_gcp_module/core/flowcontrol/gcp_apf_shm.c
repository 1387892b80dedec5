
/*
 * The APF region (see gcp_apf_shm.h): layout, lock, records, the
 * configuration of the levels and their concurrency limits, requests
 * starting and ending, the wakeups of other workers, Retry-After, and the
 * inflight limits of the filter without APF.
 */

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "gcp_apf_int.h"
#include "gcp_time.h"


#define GCP_APF_SPINS      1000
#define GCP_APF_MAX_RETRY  32       /* dropped requests tracker */
#define GCP_APF_ALIGN(n)   (((n) + 63) & ~(size_t) 63)


/* layout */


static int32_t
gcp_apf_nhash(int nrecords)
{
    int32_t  n;

    for (n = 64; n < 2 * nrecords; n <<= 1) { /* void */ }

    return n;
}


size_t
gcp_apf_shm_size(int nslots, int nrecords)
{
    return GCP_APF_ALIGN(sizeof(gcp_apf_shm_t))
           + GCP_APF_ALIGN(nslots * sizeof(gcp_apf_slot_t))
           + GCP_APF_ALIGN(nrecords * sizeof(gcp_apf_queue_t))
           + GCP_APF_ALIGN(gcp_apf_nhash(nrecords) * sizeof(int32_t))
           + GCP_APF_ALIGN(nrecords * sizeof(gcp_apf_rec_t));
}


gcp_apf_shm_t *
gcp_apf_shm_init(void *mem, size_t size, int nslots, int nrecords,
    int server_cl, int readonly, int mutating, const char **err)
{
    int32_t           i;
    size_t            off;
    gcp_apf_shm_t    *sh = mem;
    gcp_apf_slot_t   *slots;
    gcp_apf_queue_t  *queues;
    gcp_apf_rec_t    *recs;

    if (nslots < 1 || nrecords < 1
        || size < gcp_apf_shm_size(nslots, nrecords))
    {
        *err = "the shared memory zone is too small";
        return NULL;
    }

    memset(sh, 0, sizeof(gcp_apf_shm_t));

    sh->magic = GCP_APF_MAGIC;
    sh->nslots = nslots;
    sh->nrecords = nrecords;
    sh->nhash = gcp_apf_nhash(nrecords);
    sh->server_cl = server_cl;
    sh->limit_readonly = readonly;
    sh->limit_mutating = mutating;

    off = GCP_APF_ALIGN(sizeof(gcp_apf_shm_t));
    sh->slots_off = off;
    off += GCP_APF_ALIGN(nslots * sizeof(gcp_apf_slot_t));
    sh->queues_off = off;
    off += GCP_APF_ALIGN(nrecords * sizeof(gcp_apf_queue_t));
    sh->hash_off = off;
    off += GCP_APF_ALIGN(sh->nhash * sizeof(int32_t));
    sh->recs_off = off;

    slots = gcp_apf_slots(sh);
    queues = gcp_apf_queues(sh);
    recs = gcp_apf_recs(sh);

    for (i = 0; i < nslots; i++) {
        slots[i].efd = -1;
        slots[i].dispatched = GCP_APF_NONE;
        slots[i].dispatched_tail = GCP_APF_NONE;
    }

    memset(queues, 0, nrecords * sizeof(gcp_apf_queue_t));
    memset(recs, 0, nrecords * sizeof(gcp_apf_rec_t));

    for (i = 0; i < nrecords; i++) {
        queues[i].level = GCP_APF_NONE;
        queues[i].next = i + 1 < nrecords ? i + 1 : GCP_APF_NONE;
        recs[i].next = i + 1 < nrecords ? i + 1 : GCP_APF_NONE;
    }

    for (i = 0; i < sh->nhash; i++) {
        gcp_apf_hash(sh)[i] = GCP_APF_NONE;
    }

    sh->free_rec = 0;
    sh->free_queue = 0;

    for (i = 0; i < nslots; i++) {
        slots[i].efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

        if (slots[i].efd == -1) {
            *err = "eventfd() failed";
            gcp_apf_shm_close(sh);
            return NULL;
        }
    }

    return sh;
}


void
gcp_apf_shm_close(gcp_apf_shm_t *sh)
{
    int              i;
    gcp_apf_slot_t  *slots;

    if (sh == NULL || sh->magic != GCP_APF_MAGIC) {
        return;
    }

    slots = gcp_apf_slots(sh);

    for (i = 0; i < sh->nslots; i++) {
        if (slots[i].efd != -1) {
            close(slots[i].efd);
            slots[i].efd = -1;
        }
    }
}


int
gcp_apf_shm_efd(gcp_apf_shm_t *sh, int slot)
{
    return slot >= 0 && slot < sh->nslots ? gcp_apf_slots(sh)[slot].efd : -1;
}


int
gcp_apf_shm_slots(gcp_apf_shm_t *sh)
{
    return sh->nslots;
}


int
gcp_apf_shm_records(gcp_apf_shm_t *sh)
{
    return sh->nrecords;
}


int
gcp_apf_shm_server_cl(gcp_apf_shm_t *sh)
{
    return sh->server_cl;
}


/* lock */


/*
 * A spinlock holding the owner's pid: a waiter that spun long finds out
 * whether the owner still lives, and takes the lock of a dead one (a
 * worker killed inside the few instructions it holds the lock for).
 *
 * The pid is kept (getpid() is a system call on every call), and
 * forgotten in a child after fork().
 */

static int  gcp_apf_pid;


static void
gcp_apf_forked(void)
{
    gcp_apf_pid = 0;
}


void
gcp_apf_lock(gcp_apf_shm_t *sh)
{
    int         me, owner, spins;

    static int  registered;

    if (gcp_apf_pid == 0) {
        if (!registered) {
            registered = 1;
            (void) pthread_atfork(NULL, NULL, gcp_apf_forked);
        }

        gcp_apf_pid = (int) getpid();
    }

    me = gcp_apf_pid;

    for (spins = 0; /* void */; spins++) {
        owner = 0;

        if (__atomic_compare_exchange_n(&sh->lock, &owner, me, 0,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        {
            return;
        }

        if (spins < GCP_APF_SPINS) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
            continue;
        }

        spins = 0;

        if (owner != 0 && owner != me && kill(owner, 0) == -1
            && errno == ESRCH
            && __atomic_compare_exchange_n(&sh->lock, &owner, me, 0,
                                           __ATOMIC_ACQUIRE,
                                           __ATOMIC_RELAXED))
        {
            return;
        }

        sched_yield();
    }
}


void
gcp_apf_unlock(gcp_apf_shm_t *sh)
{
    __atomic_store_n(&sh->lock, 0, __ATOMIC_RELEASE);
}


/* records */


int32_t
gcp_apf_rec_alloc(gcp_apf_shm_t *sh, int slot)
{
    int32_t         r;
    gcp_apf_rec_t  *rec;

    r = sh->free_rec;
    if (r == GCP_APF_NONE) {
        return GCP_APF_NONE;
    }

    rec = &gcp_apf_recs(sh)[r];
    sh->free_rec = rec->next;

    memset(rec, 0, offsetof(gcp_apf_rec_t, flow_schema));
    rec->flow_schema[0] = '\0';
    rec->distinguisher[0] = '\0';
    rec->user[0] = '\0';
    rec->verb[0] = '\0';
    rec->path[0] = '\0';
    rec->ns[0] = '\0';
    rec->name[0] = '\0';
    rec->api_version[0] = '\0';
    rec->resource[0] = '\0';
    rec->subresource[0] = '\0';

    rec->state = GCP_APF_REC_WAITING;
    rec->slot = (int16_t) slot;
    rec->token = ++sh->tokens;
    rec->queue = GCP_APF_NONE;
    rec->next = GCP_APF_NONE;

    return r;
}


void
gcp_apf_rec_free(gcp_apf_shm_t *sh, int32_t r)
{
    gcp_apf_rec_t  *rec;

    rec = &gcp_apf_recs(sh)[r];
    rec->state = GCP_APF_REC_FREE;
    rec->token = 0;
    rec->next = sh->free_rec;
    sh->free_rec = r;
}


static gcp_apf_rec_t *
gcp_apf_rec_get(gcp_apf_shm_t *sh, const gcp_apf_place_t *place)
{
    gcp_apf_rec_t  *rec;

    if (place->rec < 0 || place->rec >= sh->nrecords) {
        return NULL;
    }

    rec = &gcp_apf_recs(sh)[place->rec];

    return rec->state != GCP_APF_REC_FREE && rec->token == place->token
           ? rec : NULL;
}


void
gcp_apf_rec_dispatched(gcp_apf_shm_t *sh, int32_t r)
{
    uint64_t         one = 1;
    gcp_apf_rec_t   *rec;
    gcp_apf_slot_t  *slot;

    rec = &gcp_apf_recs(sh)[r];
    slot = &gcp_apf_slots(sh)[rec->slot];

    rec->dispatched = 1;
    rec->next = GCP_APF_NONE;

    if (slot->dispatched_tail == GCP_APF_NONE) {
        slot->dispatched = r;

    } else {
        gcp_apf_recs(sh)[slot->dispatched_tail].next = r;
    }

    slot->dispatched_tail = r;

    /* a full counter (2^64 - 2 wakeups unread) is as good as a written one */
    if (write(slot->efd, &one, sizeof(one)) == -1) {
        /* EAGAIN */
    }
}


/* Takes executing record r off its slot's list of dispatched records. */
static void
gcp_apf_rec_undispatch(gcp_apf_shm_t *sh, int32_t r)
{
    int32_t          p;
    gcp_apf_rec_t   *recs = gcp_apf_recs(sh);
    gcp_apf_slot_t  *slot;

    if (!recs[r].dispatched) {
        return;
    }

    slot = &gcp_apf_slots(sh)[recs[r].slot];

    if (slot->dispatched == r) {
        slot->dispatched = recs[r].next;
        p = GCP_APF_NONE;

    } else {
        for (p = slot->dispatched; p != GCP_APF_NONE && recs[p].next != r;
             p = recs[p].next)
        { /* void */ }

        if (p == GCP_APF_NONE) {
            return;
        }

        recs[p].next = recs[r].next;
    }

    if (slot->dispatched_tail == r) {
        slot->dispatched_tail = p;
    }

    recs[r].next = GCP_APF_NONE;
    recs[r].dispatched = 0;
}


static void
gcp_apf_copy(char *dst, size_t size, const char *src)
{
    size_t  n;

    if (src == NULL) {
        dst[0] = '\0';
        return;
    }

    n = strlen(src);
    n = n < size ? n : size - 1;

    memcpy(dst, src, n);
    dst[n] = '\0';
}


static void
gcp_apf_rec_details(gcp_apf_rec_t *rec, const gcp_apf_details_t *d)
{
    if (d == NULL) {
        return;
    }

#define gcp_apf_set(field, v)  gcp_apf_copy(rec->field, sizeof(rec->field), v)

    gcp_apf_set(flow_schema, d->flow_schema);
    gcp_apf_set(distinguisher, d->distinguisher);
    gcp_apf_set(user, d->user);
    gcp_apf_set(verb, d->verb);
    gcp_apf_set(path, d->path);
    gcp_apf_set(ns, d->ns);
    gcp_apf_set(name, d->name);
    gcp_apf_set(api_version, d->api_version);
    gcp_apf_set(resource, d->resource);
    gcp_apf_set(subresource, d->subresource);

#undef gcp_apf_set
}


static int64_t
gcp_apf_wall(void)
{
    struct timespec  ts;

    ts = gcp_time_now();

    return (int64_t) ts.tv_sec * GCP_NSEC_PER_SEC + ts.tv_nsec;
}


/* configuration */


static gcp_apf_level_t *
gcp_apf_find(gcp_apf_shm_t *sh, const char *name)
{
    int  i;

    for (i = 0; i < GCP_APF_MAX_LEVELS; i++) {
        if (sh->levels[i].used && strcmp(sh->levels[i].name, name) == 0) {
            return &sh->levels[i];
        }
    }

    return NULL;
}


/* A level that is gone is dropped once nothing waits or executes in it. */
static void
gcp_apf_level_gc(gcp_apf_level_t *l)
{
    if (l->used && l->quiescing && l->waiting == 0 && l->executing == 0) {
        memset(l, 0, sizeof(gcp_apf_level_t));
    }
}


/*
 * The limits of every level from its shares (upstream's configuration
 * controller): NominalCL, LendableCL and BorrowingCL make MinCL and MaxCL;
 * CurrentCL stays within them.
 */
static void
gcp_apf_limits(gcp_apf_shm_t *sh)
{
    int               i;
    int64_t           sum;
    double            nominal;
    gcp_apf_level_t  *l;

    sum = 0;

    for (i = 0; i < GCP_APF_MAX_LEVELS; i++) {
        if (sh->levels[i].used && !sh->levels[i].quiescing) {
            sum += sh->levels[i].shares;
        }
    }

    for (i = 0; i < GCP_APF_MAX_LEVELS; i++) {
        l = &sh->levels[i];

        if (!l->used || l->quiescing) {
            continue;
        }

        nominal = sum > 0 ? ceil((double) sh->server_cl * l->shares / sum)
                          : 0;

        l->nominal_cl = (int32_t) nominal;
        l->min_cl = l->nominal_cl
                    - (int32_t) round(nominal * l->lendable / 100.0);
        l->max_cl = l->nominal_cl
                    + (l->borrowing >= 0
                       ? (int32_t) round(nominal * l->borrowing / 100.0)
                       : sh->server_cl);

        /* a new level starts at its NominalCL */
        l->current_cl = l->current_cl < 0
                        ? l->nominal_cl
                        : gcp_max(l->min_cl, gcp_min(l->max_cl,
                                                     l->current_cl));

        /* MAX(1, MIN(0.15 * nominalCL, nominalCL / handSize)) */
        l->max_seats = 0;

        if (l->queues > 0) {
            l->max_seats = (int32_t) gcp_max(1.0,
                               gcp_min(ceil(nominal * 0.15),
                                       (double) (l->nominal_cl
                                                 / l->hand_size)));
        }
    }
}


int
gcp_apf_shm_configure(gcp_apf_shm_t *sh, int64_t rev,
    const gcp_apf_level_conf_t *levels, size_t n, uint64_t now)
{
    int               i, fresh;
    size_t            k;
    gcp_apf_level_t  *l;

    gcp_apf_lock(sh);

    if (rev < sh->config_rev) {
        gcp_apf_unlock(sh);
        return 0;
    }

    sh->config_rev = rev;

    for (i = 0; i < GCP_APF_MAX_LEVELS; i++) {
        if (sh->levels[i].used) {
            sh->levels[i].quiescing = 1;
        }
    }

    for (k = 0; k < n; k++) {
        l = gcp_apf_find(sh, levels[k].name);
        fresh = l == NULL;

        for (i = 0; l == NULL && i < GCP_APF_MAX_LEVELS; i++) {
            if (!sh->levels[i].used) {
                l = &sh->levels[i];
            }
        }

        if (l == NULL) {
            break;
        }

        if (fresh) {
            memset(l, 0, sizeof(gcp_apf_level_t));
            l->used = 1;
            l->current_cl = -1;
            l->robin = -1;
            l->waiting_queues = GCP_APF_NONE;
            l->last_ns = now;
            l->demand_start = now;
            l->demand_last = now;
            l->retry_after = 1;
            gcp_apf_copy(l->name, sizeof(l->name), levels[k].name);
        }

        gcp_apf_copy(l->uid, sizeof(l->uid), levels[k].uid);

        if (!fresh) {
            /* the virtual time runs with the old configuration so far */
            gcp_apf_qs_sync(sh, l, now);
        }

        l->quiescing = 0;
        l->exempt = levels[k].exempt;
        l->queues = levels[k].exempt ? 0 : levels[k].queues;
        l->hand_size = levels[k].hand_size;
        l->queue_length = levels[k].queue_length;
        l->shares = levels[k].shares;
        l->lendable = levels[k].lendable;
        l->borrowing = levels[k].borrowing;
    }

    gcp_apf_limits(sh);

    for (i = 0; i < GCP_APF_MAX_LEVELS; i++) {
        l = &sh->levels[i];

        if (l->used && !l->quiescing) {
            gcp_apf_qs_dispatch(sh, l, now);
        }

        gcp_apf_level_gc(l);
    }

    gcp_apf_unlock(sh);

    return 1;
}


int64_t
gcp_apf_shm_revision(gcp_apf_shm_t *sh)
{
    int64_t  rev;

    gcp_apf_lock(sh);
    rev = sh->config_rev;
    gcp_apf_unlock(sh);

    return rev;
}


int
gcp_apf_shm_level(gcp_apf_shm_t *sh, const char *name, int *max_seats)
{
    int               i;
    gcp_apf_level_t  *l;

    i = -1;

    gcp_apf_lock(sh);

    l = gcp_apf_find(sh, name);

    if (l && !l->quiescing) {
        i = (int) (l - sh->levels);

        if (max_seats) {
            *max_seats = l->max_seats;
        }
    }

    gcp_apf_unlock(sh);

    return i;
}


/* requests */


gcp_apf_decision_t
gcp_apf_shm_start(gcp_apf_shm_t *sh, const gcp_apf_ticket_t *t,
    uint64_t now, gcp_apf_place_t *place)
{
    int32_t              r;
    gcp_apf_rec_t       *rec;
    gcp_apf_level_t     *l;
    gcp_apf_decision_t   d;

    place->rec = GCP_APF_NONE;
    place->token = 0;
    place->queue_length = 0;

    if (t->level < 0 || t->level >= GCP_APF_MAX_LEVELS) {
        return GCP_APF_REJECT;
    }

    gcp_apf_lock(sh);

    l = &sh->levels[t->level];

    if (!l->used) {
        gcp_apf_unlock(sh);
        return GCP_APF_REJECT;
    }

    r = gcp_apf_rec_alloc(sh, t->slot);

    if (r == GCP_APF_NONE) {
        /* every record taken: only the exempt go on (untracked) */
        d = GCP_APF_REJECT;

        if (l->exempt) {
            l->dispatched++;
            d = GCP_APF_EXECUTE;

        } else {
            l->rejected++;
        }

        gcp_apf_unlock(sh);
        return d;
    }

    rec = &gcp_apf_recs(sh)[r];
    rec->level = t->level;
    rec->seats = t->seats > 0 ? t->seats : 1;
    rec->arrive_ns = now;
    rec->arrive_wall = gcp_apf_wall();
    gcp_apf_rec_details(rec, t->details);

    d = gcp_apf_qs_start(sh, l, r, t->hash, now, &place->queue_length);

    if (d != GCP_APF_REJECT) {
        place->rec = r;
        place->token = rec->token;
    }

    gcp_apf_unlock(sh);

    return d;
}


int
gcp_apf_shm_leave(gcp_apf_shm_t *sh, const gcp_apf_place_t *place,
    int timed_out, uint64_t now)
{
    gcp_apf_rec_t    *rec;
    gcp_apf_level_t  *l;

    gcp_apf_lock(sh);

    rec = gcp_apf_rec_get(sh, place);

    if (rec == NULL || rec->state != GCP_APF_REC_WAITING) {
        gcp_apf_unlock(sh);
        return rec == NULL;
    }

    l = &sh->levels[rec->level];

    gcp_apf_qs_sync(sh, l, now);
    gcp_apf_qs_unqueue(sh, place->rec);

    l->rejected++;

    if (timed_out) {
        l->timed_out++;

    } else {
        l->cancelled++;
    }

    gcp_apf_rec_free(sh, place->rec);
    gcp_apf_level_gc(l);

    gcp_apf_unlock(sh);

    return 1;
}


void
gcp_apf_shm_finish(gcp_apf_shm_t *sh, const gcp_apf_place_t *place,
    uint64_t now)
{
    gcp_apf_rec_t    *rec;
    gcp_apf_level_t  *l;

    gcp_apf_lock(sh);

    rec = gcp_apf_rec_get(sh, place);

    if (rec == NULL || rec->state != GCP_APF_REC_EXECUTING) {
        gcp_apf_unlock(sh);
        return;
    }

    l = &sh->levels[rec->level];

    gcp_apf_rec_undispatch(sh, place->rec);
    gcp_apf_qs_release(sh, place->rec, now);
    gcp_apf_rec_free(sh, place->rec);
    gcp_apf_qs_dispatch(sh, l, now);
    gcp_apf_level_gc(l);

    gcp_apf_unlock(sh);
}


size_t
gcp_apf_shm_take(gcp_apf_shm_t *sh, int slot, gcp_apf_place_t *out,
    size_t max)
{
    size_t           n;
    int32_t          r;
    gcp_apf_rec_t   *rec;
    gcp_apf_slot_t  *s;

    n = 0;

    gcp_apf_lock(sh);

    s = &gcp_apf_slots(sh)[slot];

    while (n < max && s->dispatched != GCP_APF_NONE) {
        r = s->dispatched;
        rec = &gcp_apf_recs(sh)[r];

        s->dispatched = rec->next;
        rec->next = GCP_APF_NONE;
        rec->dispatched = 0;

        out[n].rec = r;
        out[n].token = rec->token;
        n++;
    }

    if (s->dispatched == GCP_APF_NONE) {
        s->dispatched_tail = GCP_APF_NONE;
    }

    gcp_apf_unlock(sh);

    return n;
}


void
gcp_apf_shm_reclaim(gcp_apf_shm_t *sh, int slot, uint64_t now)
{
    int32_t          r;
    gcp_apf_rec_t   *rec;
    gcp_apf_slot_t  *s;

    gcp_apf_lock(sh);

    s = &gcp_apf_slots(sh)[slot];
    s->dispatched = GCP_APF_NONE;
    s->dispatched_tail = GCP_APF_NONE;

    for (r = 0; r < sh->nrecords; r++) {
        rec = &gcp_apf_recs(sh)[r];

        if (rec->state == GCP_APF_REC_FREE || rec->slot != slot) {
            continue;
        }

        rec->dispatched = 0;
        gcp_apf_qs_sync(sh, &sh->levels[rec->level], now);

        if (rec->state == GCP_APF_REC_WAITING) {
            gcp_apf_qs_unqueue(sh, r);
            sh->levels[rec->level].cancelled++;
            sh->levels[rec->level].rejected++;

        } else {
            gcp_apf_qs_release(sh, r, now);
        }

        gcp_apf_rec_free(sh, r);
        gcp_apf_qs_dispatch(sh, &sh->levels[rec->level], now);
        gcp_apf_level_gc(&sh->levels[rec->level]);
    }

    gcp_apf_unlock(sh);
}


/*
 * Retry-After: upstream's droppedRequestsStats, per level.  retryAfter
 * doubles (up to 32) when the requests dropped in the last retryAfter
 * seconds reach 3 * retryAfter, at most once per retryAfter seconds, and
 * decreases by one when they are fewer than retryAfter.
 */

static void
gcp_apf_drop_history(gcp_apf_level_t *l, int64_t unix_sec, int64_t count)
{
    int32_t  i, start;
    int64_t  keep;

    if (l->ndrops == GCP_APF_DROP_HISTORY) {
        memmove(&l->drops[0], &l->drops[1],
                (GCP_APF_DROP_HISTORY - 1) * sizeof(gcp_apf_drops_t));
        l->ndrops--;
    }

    l->drops[l->ndrops].unix_sec = unix_sec;
    l->drops[l->ndrops].count = count;
    l->ndrops++;

    keep = gcp_min(2 * l->retry_after, GCP_APF_MAX_RETRY);

    for (start = 0;
         start < l->ndrops && unix_sec - l->drops[start].unix_sec > keep;
         start++)
    { /* void */ }

    if (start > 0) {
        for (i = start; i < l->ndrops; i++) {
            l->drops[i - start] = l->drops[i];
        }

        l->ndrops -= start;
    }
}


static void
gcp_apf_drop_update(gcp_apf_level_t *l, int64_t now_sec)
{
    int32_t  i;
    int64_t  dropped, ra;

    ra = l->retry_after;
    dropped = 0;

    for (i = l->ndrops - 1; i >= 0; i--) {
        if (now_sec - l->drops[i].unix_sec > ra) {
            break;
        }

        if (l->drops[i].unix_sec < now_sec) {
            dropped += l->drops[i].count;
        }
    }

    if (now_sec - l->retry_update_unix >= ra && dropped >= 3 * ra) {
        l->retry_after = gcp_min(2 * ra, GCP_APF_MAX_RETRY);
        l->retry_update_unix = now_sec;
        return;
    }

    if (dropped < ra && ra > 1) {
        l->retry_after = ra - 1;
    }
}


int64_t
gcp_apf_shm_drop(gcp_apf_shm_t *sh, int level, int64_t now_sec)
{
    int64_t           ra;
    gcp_apf_level_t  *l;

    if (level < 0 || level >= GCP_APF_MAX_LEVELS) {
        return 1;
    }

    gcp_apf_lock(sh);

    l = &sh->levels[level];

    if (l->drop_unix == now_sec) {
        l->drop_count++;

    } else {
        if (l->drop_count) {
            gcp_apf_drop_history(l, l->drop_unix, l->drop_count);
        }

        l->drop_unix = now_sec;
        l->drop_count = 1;
        gcp_apf_drop_update(l, now_sec);
    }

    ra = l->retry_after > 0 ? l->retry_after : 1;

    gcp_apf_unlock(sh);

    return ra;
}


/* the filter without APF */


int
gcp_apf_shm_inflight(gcp_apf_shm_t *sh, int mutating)
{
    int           limit, n;
    volatile int *counter;

    counter = mutating ? &sh->inflight_mutating : &sh->inflight_readonly;
    limit = mutating ? sh->limit_mutating : sh->limit_readonly;

    if (limit <= 0) {
        return 1;
    }

    n = __atomic_add_fetch(counter, 1, __ATOMIC_ACQ_REL);

    if (n > limit) {
        __atomic_sub_fetch(counter, 1, __ATOMIC_ACQ_REL);
        return 0;
    }

    return 1;
}


void
gcp_apf_shm_inflight_done(gcp_apf_shm_t *sh, int mutating)
{
    int  limit;

    limit = mutating ? sh->limit_mutating : sh->limit_readonly;

    if (limit > 0) {
        __atomic_sub_fetch(mutating ? &sh->inflight_mutating
                                    : &sh->inflight_readonly,
                           1, __ATOMIC_ACQ_REL);
    }
}


int
gcp_apf_shm_level_stat(gcp_apf_shm_t *sh, int i, gcp_apf_level_stat_t *st)
{
    gcp_apf_level_t  *l;

    memset(st, 0, sizeof(gcp_apf_level_stat_t));

    if (i < 0 || i >= GCP_APF_MAX_LEVELS) {
        return 0;
    }

    gcp_apf_lock(sh);

    l = &sh->levels[i];

    if (!l->used) {
        gcp_apf_unlock(sh);
        return 0;
    }

    memcpy(st->name_copy, l->name, GCP_APF_NAME_LEN);
    st->name_copy[GCP_APF_NAME_LEN - 1] = '\0';
    st->name = st->name_copy;
    st->nominal_cl = l->nominal_cl;
    st->min_cl = l->min_cl;
    st->max_cl = l->max_cl;
    st->current_cl = l->current_cl;
    st->seats_in_use = l->seats_in_use;
    st->executing = l->executing;
    st->waiting = l->waiting;
    st->active_queues = l->active_queues;
    st->dispatched = l->dispatched;
    st->rejected = l->rejected;
    st->timed_out = l->timed_out;
    st->cancelled = l->cancelled;
    st->quiescing = l->quiescing;
    st->exempt = l->exempt;
    st->current_r = l->current_r;
    st->adjusted = l->adjusted;
    st->demand_high = l->demand_high;
    st->demand_avg = l->demand_avg;
    st->demand_stdev = l->demand_stdev;
    st->demand_smoothed = l->smoothed;
    st->target = l->target;

    gcp_apf_unlock(sh);

    return 1;
}
