
/*
 * LMDB backend: compaction.
 *
 * compact(rev) first records rev as the compacted revision (one small
 * txn: from then on reads below rev fail), then removes history in bounded
 * batches, one write txn each, run from 0 ms timers so that the write lock
 * is never held long and the event loop keeps serving:
 *   - hist: an entry with mod_revision <= rev goes when the next entry of
 *     the same key also has mod_revision <= rev (it is no longer the
 *     version of any readable revision), or when it is a tombstone;
 *   - log: every entry <= rev (watches cannot start below rev).
 * Several processes may compact at once: deletions are idempotent.
 */

#include <errno.h>
#include <stdlib.h>

#include "gcp_lmdb.h"


typedef struct gcp_lmdb_cwait_s  gcp_lmdb_cwait_t;

struct gcp_lmdb_cwait_s {
    gcp_lmdb_cwait_t    *next;
    gcp_store_result_t  *res;
    gcp_store_done_pt    done;
    void                *arg;
};


struct gcp_lmdb_compact_s {
    int64_t              revision;
    char                *resume;        /* hist key to go on from */
    size_t               resume_len;
    unsigned             started:1;
    unsigned             hist_done:1;
    gcp_lmdb_cwait_t    *waiters;
    gcp_loop_timer_t    *timer;
};


static void gcp_lmdb_compact_handler(void *data);


static void
gcp_lmdb_compact_free(gcp_lmdb_store_t *s)
{
    gcp_lmdb_compact_t  *job = s->compact;

    if (job == NULL) {
        return;
    }

    if (job->timer) {
        s->store.loop->timer_del(s->store.loop, job->timer);
    }

    free(job->resume);
    free(job);
    s->compact = NULL;
}


/* Ends the job and runs its callbacks with rc. */
static void
gcp_lmdb_compact_finish(gcp_lmdb_store_t *s, int rc, const char *msg)
{
    gcp_lmdb_cwait_t  *cw, *next;

    cw = s->compact->waiters;
    s->compact->waiters = NULL;

    gcp_lmdb_compact_free(s);

    for ( /* void */ ; cw; cw = next) {
        next = cw->next;
        cw->res->rc = rc;

        if (rc != GCP_OK) {
            cw->res->message = msg;
        }

        cw->done(cw->arg, cw->res);
    }
}


static int
gcp_lmdb_compact_resume(gcp_lmdb_compact_t *job, const MDB_val *k)
{
    char  *p;

    p = realloc(job->resume, k->mv_size ? k->mv_size : 1);
    if (p == NULL) {
        return GCP_ENOMEM;
    }

    memcpy(p, k->mv_data, k->mv_size);
    job->resume = p;
    job->resume_len = k->mv_size;

    return GCP_OK;
}


/*
 * One batch over hist: decides up to GCP_LMDB_BATCH entries (each with its
 * successor known) and deletes those no longer needed.  Returns an LMDB
 * code.
 */
static int
gcp_lmdb_compact_hist(gcp_lmdb_store_t *s, MDB_txn *txn,
    gcp_lmdb_compact_t *job)
{
    int               mrc, same, rc;
    size_t            i, off;
    uint32_t          len;
    MDB_val           k, v, dk;
    gcp_buf_t         dead;
    MDB_cursor       *c;
    gcp_arena_t      *tmp;
    gcp_lmdb_entry_t  e, n;

    tmp = gcp_arena_create(0);
    if (tmp == NULL) {
        return ENOMEM;
    }

    gcp_buf_init(&dead, tmp);

    mrc = mdb_cursor_open(txn, s->hist, &c);
    if (mrc != MDB_SUCCESS) {
        gcp_arena_destroy(tmp);
        return mrc;
    }

    if (job->started) {
        k.mv_data = job->resume;
        k.mv_size = job->resume_len;
        mrc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);

    } else {
        mrc = mdb_cursor_get(c, &k, &v, MDB_FIRST);
        job->started = 1;
    }

    if (mrc == MDB_SUCCESS && gcp_lmdb_decode(&k, &v, &e) != GCP_OK) {
        mrc = MDB_CORRUPTED;
    }

    for (i = 0; mrc == MDB_SUCCESS; i++) {

        dk = k;

        mrc = mdb_cursor_get(c, &k, &v, MDB_NEXT);

        if (mrc == MDB_SUCCESS && gcp_lmdb_decode(&k, &v, &n) != GCP_OK) {
            mrc = MDB_CORRUPTED;
            break;
        }

        same = (mrc == MDB_SUCCESS
                && n.key.len == e.key.len
                && memcmp(n.key.data, e.key.data, e.key.len) == 0);

        if (e.mod_revision <= job->revision
            && (e.tombstone || (same && n.mod_revision <= job->revision)))
        {
            len = (uint32_t) dk.mv_size;
            gcp_buf_add(&dead, &len, sizeof(uint32_t));
            gcp_buf_add(&dead, dk.mv_data, dk.mv_size);
        }

        if (mrc != MDB_SUCCESS) {
            break;
        }

        e = n;

        if (i + 1 == GCP_LMDB_BATCH) {
            if (gcp_lmdb_compact_resume(job, &k) != GCP_OK) {
                mrc = ENOMEM;
            }

            break;
        }
    }

    mdb_cursor_close(c);

    if (mrc == MDB_NOTFOUND) {
        job->hist_done = 1;
        mrc = MDB_SUCCESS;
    }

    if (gcp_buf_failed(&dead)) {
        mrc = ENOMEM;
    }

    for (off = 0; mrc == MDB_SUCCESS && off < dead.len; off += len) {
        memcpy(&len, dead.data + off, sizeof(uint32_t));
        off += sizeof(uint32_t);

        dk.mv_data = dead.data + off;
        dk.mv_size = len;

        rc = mdb_del(txn, s->hist, &dk, NULL);
        if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) {
            mrc = rc;
        }
    }

    gcp_arena_destroy(tmp);

    return mrc;
}


/*
 * One batch over log: deletes up to GCP_LMDB_BATCH entries <= revision.
 * Sets *done when none is left.  Returns an LMDB code.
 */
static int
gcp_lmdb_compact_log(gcp_lmdb_store_t *s, MDB_txn *txn,
    gcp_lmdb_compact_t *job, int *done)
{
    int          mrc, i;
    MDB_val      k, v;
    MDB_cursor  *c;

    *done = 0;

    mrc = mdb_cursor_open(txn, s->log, &c);
    if (mrc != MDB_SUCCESS) {
        return mrc;
    }

    for (i = 0; i < GCP_LMDB_BATCH; i++) {
        mrc = mdb_cursor_get(c, &k, &v, MDB_FIRST);

        if (mrc == MDB_NOTFOUND || gcp_lmdb_rev_decode(&k) > job->revision) {
            *done = 1;
            mrc = MDB_SUCCESS;
            break;
        }

        if (mrc != MDB_SUCCESS) {
            break;
        }

        mrc = mdb_cursor_del(c, 0);
        if (mrc != MDB_SUCCESS) {
            break;
        }
    }

    mdb_cursor_close(c);

    return mrc;
}


static void
gcp_lmdb_compact_handler(void *data)
{
    int                  mrc, done;
    MDB_txn             *txn;
    const char          *msg;
    gcp_loop_t          *loop;
    gcp_lmdb_store_t    *s = data;
    gcp_lmdb_compact_t  *job;

    loop = s->store.loop;
    job = s->compact;
    job->timer = NULL;
    done = 0;

    mrc = mdb_txn_begin(s->env, NULL, 0, &txn);

    if (mrc == MDB_SUCCESS) {
        if (!job->hist_done) {
            mrc = gcp_lmdb_compact_hist(s, txn, job);

        } else {
            mrc = gcp_lmdb_compact_log(s, txn, job, &done);
        }

        if (mrc == MDB_SUCCESS) {
            mrc = mdb_txn_commit(txn);

        } else {
            mdb_txn_abort(txn);
        }
    }

    if (mrc != MDB_SUCCESS) {
        gcp_lmdb_compact_finish(s, gcp_lmdb_rc(mrc, &msg), msg);
        return;
    }

    s->compact_batches++;

    if (done) {
        gcp_lmdb_compact_finish(s, GCP_OK, NULL);
        return;
    }

    job->timer = loop->timer_add(loop, 0, gcp_lmdb_compact_handler, s);

    if (job->timer == NULL) {
        gcp_lmdb_compact_finish(s, GCP_ENOMEM, "out of memory");
    }
}


/* Records revision as compacted; returns GCP_OK or why not (res set). */
static int
gcp_lmdb_compact_mark(gcp_lmdb_store_t *s, int64_t revision,
    gcp_store_result_t *res)
{
    int       rc, mrc;
    int64_t   cur, compacted;
    MDB_txn  *txn;

    mrc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (mrc != MDB_SUCCESS) {
        return gcp_lmdb_rc(mrc, &res->message);
    }

    rc = gcp_lmdb_meta_get(s, txn, "revision", GCP_LMDB_FIRST_REV, &cur);
    if (rc == GCP_OK) {
        rc = gcp_lmdb_meta_get(s, txn, "compact", 0, &compacted);
    }

    if (rc != GCP_OK) {
        mdb_txn_abort(txn);
        res->message = "storage: cannot read the store revision";
        return rc;
    }

    res->revision = cur;
    res->compact_revision = compacted;

    if (revision > cur) {
        mdb_txn_abort(txn);
        res->message = "mvcc: required revision is a future revision";
        return GCP_EFUTURE;
    }

    if (revision <= compacted) {
        mdb_txn_abort(txn);
        res->message = "mvcc: required revision has been compacted";
        return GCP_ECOMPACTED;
    }

    mrc = gcp_lmdb_meta_put(s, txn, "compact", revision);

    if (mrc == MDB_SUCCESS) {
        mrc = mdb_txn_commit(txn);

    } else {
        mdb_txn_abort(txn);
    }

    if (mrc != MDB_SUCCESS) {
        return gcp_lmdb_rc(mrc, &res->message);
    }

    res->compact_revision = revision;

    return GCP_OK;
}


void
gcp_lmdb_compact(gcp_store_t *st, int64_t revision, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg)
{
    int                  rc;
    gcp_loop_t          *loop;
    gcp_lmdb_cwait_t    *cw;
    gcp_lmdb_store_t    *s = (gcp_lmdb_store_t *) st;
    gcp_store_result_t  *res;
    gcp_lmdb_compact_t  *job;

    loop = st->loop;

    res = gcp_lmdb_result(a);
    if (res->rc != GCP_OK) {
        done(arg, res);
        return;
    }

    cw = gcp_calloc(a, sizeof(gcp_lmdb_cwait_t));
    if (cw == NULL) {
        done(arg, gcp_lmdb_fail(res, GCP_ENOMEM, "out of memory"));
        return;
    }

    rc = gcp_lmdb_compact_mark(s, revision, res);
    if (rc != GCP_OK) {
        res->rc = rc;
        done(arg, res);
        return;
    }

    job = s->compact;

    if (job == NULL) {
        job = calloc(1, sizeof(gcp_lmdb_compact_t));
        if (job == NULL) {
            done(arg, gcp_lmdb_fail(res, GCP_ENOMEM, "out of memory"));
            return;
        }

        s->compact = job;
    }

    /* a newer revision restarts the scan; the older one's work remains */

    job->revision = revision;
    job->started = 0;
    job->hist_done = 0;

    cw->res = res;
    cw->done = done;
    cw->arg = arg;
    cw->next = job->waiters;
    job->waiters = cw;

    if (job->timer == NULL) {
        job->timer = loop->timer_add(loop, 0, gcp_lmdb_compact_handler, s);

        if (job->timer == NULL) {
            gcp_lmdb_compact_finish(s, GCP_ENOMEM, "out of memory");
        }
    }
}


void
gcp_lmdb_compact_close(gcp_lmdb_store_t *s)
{
    gcp_lmdb_compact_free(s);
}
