
/*
 * The etcd store over the instance's mirror (docs/storage.md, "One copy
 * per instance"): with conf.mirror set, the store keeps no copy of its
 * own.  The copy's revision is the mirror's as dispatched in this process
 * (followed through the mirror's moved callback, which also serves the
 * waiting reads), "stream up" is the feeder's flag in the mirror's shared
 * page, reads at the current revision are the mirror's once the waiting
 * logic of gcp_etcd_read.c allowed them, reads at old revisions are the
 * mirror's from its load on and etcd's below, and watches are the
 * mirror's.
 */

#include "gcp_etcd.h"
#include "gcp_metrics.h"


static const char * const  gcp_etcd_mirrored_no_labels[] = { NULL };


/* A read handed to the mirror, kept to be sent elsewhere on refusal. */
typedef struct {
    gcp_etcd_t          *e;
    gcp_str_t            key;
    gcp_str_t            end;
    int64_t              revision;
    int64_t              limit;
    unsigned             count_only:1;
    unsigned             single:1;
    gcp_arena_t         *a;
    gcp_store_done_pt    done;
    void                *arg;
} gcp_etcd_mread_t;


/* Takes the mirror's revision and whether it is loaded. */
static void
gcp_etcd_mirrored_sync(gcp_etcd_t *e)
{
    int64_t  rev, loading;

    if (e->mops->state(e->mirror, &rev, &loading) == GCP_OK) {
        e->ready = (loading == 0);
    }

    e->rev = gcp_store_revision(e->mirror);

    gcp_metric_set(GCP_M_MIRROR_REVISION, gcp_etcd_mirrored_no_labels,
                   (double) e->rev);
    (void) gcp_etcd_mirrored_lag(e);
}


int64_t
gcp_etcd_mirrored_lag(gcp_etcd_t *e)
{
    int64_t  known, lag;

    known = gcp_max(gcp_etcd_watermark(e), e->mops->seen(e->mirror, 0));
    lag = (e->ready && known > e->rev) ? known - e->rev : 0;

    if (lag == 0) {
        e->behind_since = 0;

    } else if (e->behind_since == 0 || e->rev >= e->behind_target) {
        /* how long it takes to reach what is known now */
        e->behind_since = gcp_etcd_now(e);
        e->behind_target = known;
    }

    gcp_metric_set(GCP_M_MIRROR_LAG, gcp_etcd_mirrored_no_labels,
                   (double) lag);

    return lag;
}


int
gcp_etcd_mirror_ready(gcp_store_t *s, const char **why)
{
    gcp_etcd_t  *e = (gcp_etcd_t *) s;

    if (e->mirror == NULL) {
        *why = NULL;
        return 1;
    }

    gcp_etcd_mirrored_sync(e);

    if (!e->ready) {
        *why = "the mirror is not loaded";
        return 0;
    }

    if (!e->mops->live(e->mirror)) {
        *why = "no process feeds the mirror from a watch stream";
        return 0;
    }

    if (e->behind_since != 0
        && gcp_etcd_now(e) - e->behind_since > e->fresh)
    {
        *why = "the mirror lags behind etcd";
        return 0;
    }

    *why = NULL;
    return 1;
}


static void
gcp_etcd_mirrored_moved(void *arg)
{
    gcp_etcd_t  *e = arg;

    gcp_etcd_mirrored_sync(e);
    gcp_etcd_reads_kick(e);
}


void
gcp_etcd_mirrored_poll(gcp_etcd_t *e)
{
    if (!e->ready) {
        gcp_etcd_mirrored_moved(e);
        return;
    }

    (void) gcp_etcd_mirrored_lag(e);
}


int
gcp_etcd_mirrored_attach(gcp_etcd_t *e)
{
    e->mops->follow(e->mirror, gcp_etcd_mirrored_moved, e);
    gcp_etcd_mirrored_sync(e);

    return GCP_OK;
}


void
gcp_etcd_mirrored_detach(gcp_etcd_t *e)
{
    e->mops->follow(e->mirror, NULL, NULL);
}


int
gcp_etcd_mirrored_live(gcp_etcd_t *e)
{
    return e->mops->live(e->mirror);
}


int
gcp_etcd_mirrored_too_long(gcp_etcd_t *e, gcp_str_t key)
{
    return key.len > e->mops->max_key(e->mirror);
}


static void
gcp_etcd_mirrored_done(void *arg, gcp_store_result_t *res)
{
    gcp_etcd_mread_t  *r = arg;
    gcp_etcd_t        *e = r->e;

    if (res->rc == GCP_EUNAVAILABLE && r->revision == 0) {
        /* a load began in the feeder: wait for it as for the first */
        e->ready = 0;
        r->single ? gcp_etcd_get(&e->store, r->key, 0, r->a, r->done, r->arg)
                  : gcp_etcd_range(&e->store, r->key, r->end, 0, r->limit,
                                   r->count_only, r->a, r->done, r->arg);
        return;
    }

    if (r->revision > 0
        && (res->rc == GCP_ECOMPACTED || res->rc == GCP_EFUTURE
            || res->rc == GCP_EUNAVAILABLE))
    {
        /* below the mirror's load, or not in it yet: etcd has it */
        gcp_etcd_remote_range(e, r->key, r->end, r->revision, r->limit,
                              r->count_only, r->single, r->a, r->done,
                              r->arg);
        return;
    }

    if (res->rc == GCP_OK) {
        e->st.mirror_reads++;
    }

    r->done(r->arg, res);
}


void
gcp_etcd_mirrored_read(gcp_etcd_t *e, gcp_str_t key, gcp_str_t end,
    int64_t revision, int64_t limit, int count_only, int single,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_etcd_mread_t  *r;

    if (gcp_etcd_mirrored_too_long(e, key)) {
        /* never in the mirror: etcd's current value (linearizable) */
        gcp_etcd_remote_range(e, key, end, revision, limit, count_only,
                              single, a, done, arg);
        return;
    }

    r = gcp_calloc(a, sizeof(gcp_etcd_mread_t));
    if (r == NULL) {
        gcp_etcd_fail(e, a, GCP_ENOMEM, NULL, done, arg);
        return;
    }

    r->e = e;
    r->key = key;
    r->end = end;
    r->revision = revision;
    r->limit = limit;
    r->count_only = count_only ? 1 : 0;
    r->single = single ? 1 : 0;
    r->a = a;
    r->done = done;
    r->arg = arg;

    if (single) {
        gcp_store_get(e->mirror, key, revision, a, gcp_etcd_mirrored_done, r);

    } else {
        gcp_store_range(e->mirror, key, end, revision, limit, count_only, a,
                        gcp_etcd_mirrored_done, r);
    }
}


gcp_store_watch_t *
gcp_etcd_mirrored_watch(gcp_etcd_t *e, gcp_str_t key, gcp_str_t range_end,
    int64_t start_revision, gcp_store_event_pt handler, void *arg)
{
    int64_t  mark;

    if (start_revision == 0) {
        /*
         * "Now" includes every write of the instance acknowledged before
         * the watch, though the mirror may not have it yet (as the
         * per-process copy's watches start at the watermark).
         */
        mark = gcp_etcd_watermark(e);

        if (mark > gcp_store_revision(e->mirror)) {
            start_revision = mark;
        }
    }

    return gcp_store_watch(e->mirror, key, range_end, start_revision,
                           handler, arg);
}
