
/*
 * LMDB backend: group commit and the wake-up of every worker.
 *
 * Writes are committed with MDB_NOSYNC and queued in revision order.  One
 * sync thread per process runs mdb_env_sync(env, 1) (fdatasync) for every
 * write committed before the sync started, then publishes the revision in
 * the shared memory (atomic max) and writes to every slot's eventfd.  Each
 * process, woken by its eventfd, delivers the new events to its watches and
 * acknowledges its own writes that the sync covered and its watches had
 * (never before them).  The event loop never waits for the disk.
 */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "gcp_lmdb.h"
#include "gcp_metrics.h"
#include "gcp_time.h"


static const char * const  gcp_lmdb_no_labels[] = { NULL };



void
gcp_lmdb_notify(gcp_lmdb_shared_t *sh, int64_t rev)
{
    int       i;
    int64_t   cur;
    uint64_t  one;
    ssize_t   n;

    cur = __atomic_load_n(&sh->shm->durable, __ATOMIC_SEQ_CST);

    while (cur < rev
           && !__atomic_compare_exchange_n(&sh->shm->durable, &cur, rev, 0,
                                           __ATOMIC_SEQ_CST,
                                           __ATOMIC_SEQ_CST))
    {
        /* cur was reloaded: retry */
    }

    one = 1;

    __atomic_store_n(&sh->shm->notified_ns, gcp_time_mono_ns(),
                     __ATOMIC_RELAXED);

    for (i = 0; i < sh->nslots; i++) {
        /* a full counter (EAGAIN) already means "wake up" */
        n = write(sh->efd[i], &one, sizeof(uint64_t));
        (void) n;
    }
}


static void *
gcp_lmdb_sync_thread(void *data)
{
    gcp_lmdb_store_t  *s = data;
    int                mrc;
    int64_t            target, prev, start;

    pthread_mutex_lock(&s->mu);

    for ( ;; ) {

        while (!s->stop && s->sync_req <= s->sync_done) {
            pthread_cond_wait(&s->cond, &s->mu);
        }

        if (s->stop) {
            break;
        }

        /* every write up to target was committed before this point */

        target = s->sync_req;
        prev = s->sync_done;
        pthread_mutex_unlock(&s->mu);

        start = gcp_time_mono_ns();
        mrc = mdb_env_sync(s->env, 1);

        if (mrc == MDB_SUCCESS) {
            __atomic_add_fetch(&s->sh->shm->syncs, 1, __ATOMIC_RELAXED);

            /* the writes (of every process) this fdatasync made durable */
            gcp_metric_observe(GCP_M_LMDB_FSYNC_DURATION, gcp_lmdb_no_labels,
                               (double) (gcp_time_mono_ns() - start) / 1e9);
            gcp_metric_observe(GCP_M_LMDB_COMMIT_BATCH, gcp_lmdb_no_labels,
                               (double) (target - prev));
        }

        pthread_mutex_lock(&s->mu);
        s->sync_done = target;

        if (mrc != MDB_SUCCESS && s->sync_err == 0) {
            s->sync_err = mrc;
        }

        pthread_mutex_unlock(&s->mu);

        if (mrc == MDB_SUCCESS) {
            gcp_lmdb_notify(s->sh, target);

        } else {
            gcp_lmdb_notify(s->sh, 0);
        }

        pthread_mutex_lock(&s->mu);
    }

    pthread_mutex_unlock(&s->mu);

    return NULL;
}


void
gcp_lmdb_sync_ack(gcp_lmdb_store_t *s)
{
    int             err;
    int64_t         done;
    gcp_lmdb_op_t  *op;

    if (s->pending == NULL) {
        return;
    }

    pthread_mutex_lock(&s->mu);
    done = s->sync_done;
    err = s->sync_err;
    pthread_mutex_unlock(&s->mu);

    if (err != 0) {
        /* after a failed fsync nothing written since is known durable */
        s->failed = 1;
    }

    /*
     * a write is acknowledged once this process's watches had it: the
     * sync may be ahead of the dispatch (durable is raised after
     * sync_done, and the notification that follows dispatches it)
     */
    if (done > s->dispatched) {
        done = s->dispatched;
    }

    while (s->pending != NULL
           && (s->failed || s->pending->revision <= done))
    {
        op = s->pending;
        s->pending = op->next;

        if (s->pending == NULL) {
            s->pending_last = &s->pending;
        }

        if (s->failed) {
            /* committed and visible, durability unknown: in doubt */
            op->res->rc = GCP_EINDOUBT;
            op->res->message = "storage: a sync to disk failed after the "
                               "write was made: its outcome is unknown";

        } else {
            __atomic_add_fetch(&s->sh->shm->synced_writes, 1,
                               __ATOMIC_RELAXED);
        }

        op->done(op->arg, op->res);
    }
}


static void
gcp_lmdb_efd_handler(void *arg, int fd, unsigned events)
{
    gcp_lmdb_store_t  *s = arg;
    uint64_t           n;
    ssize_t            rc;

    rc = read(fd, &n, sizeof(uint64_t));
    (void) rc;

    if (gcp_metrics_on()) {
        gcp_metric_observe(GCP_M_NOTIFY_LATENCY, gcp_lmdb_no_labels,
                           (double) (gcp_time_mono_ns()
                                     - __atomic_load_n(
                                           &s->sh->shm->notified_ns,
                                           __ATOMIC_RELAXED)) / 1e9);
    }

    gcp_lmdb_dispatch(s, 0);
    gcp_lmdb_sync_ack(s);
}


int
gcp_lmdb_sync_start(gcp_lmdb_store_t *s)
{
    int               rc;
    sigset_t          all, old;
    gcp_loop_t       *loop;

    loop = s->store.loop;

    s->pending = NULL;
    s->pending_last = &s->pending;

    if (pthread_mutex_init(&s->mu, NULL) != 0) {
        return GCP_EINTERNAL;
    }

    if (pthread_cond_init(&s->cond, NULL) != 0) {
        pthread_mutex_destroy(&s->mu);
        return GCP_EINTERNAL;
    }

    s->sync_init = 1;

    s->efd_ev = loop->fd_add(loop, s->sh->efd[s->slot], GCP_LOOP_READ,
                             gcp_lmdb_efd_handler, s);
    if (s->efd_ev == NULL) {
        return GCP_ENOMEM;
    }

    if (!s->sh->conf.sync) {
        return GCP_OK;
    }

    /* signals are for the event loop's thread (nginx relies on them) */

    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);

    rc = pthread_create(&s->thread, NULL, gcp_lmdb_sync_thread, s);

    pthread_sigmask(SIG_SETMASK, &old, NULL);

    if (rc != 0) {
        return GCP_EINTERNAL;
    }

    s->thread_up = 1;

    return GCP_OK;
}


void
gcp_lmdb_sync_stop(gcp_lmdb_store_t *s)
{
    gcp_loop_t  *loop;

    loop = s->store.loop;

    if (s->thread_up) {
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        pthread_cond_signal(&s->cond);
        pthread_mutex_unlock(&s->mu);

        pthread_join(s->thread, NULL);
        s->thread_up = 0;
    }

    if (s->efd_ev != NULL) {
        loop->fd_del(loop, s->efd_ev);
        s->efd_ev = NULL;
    }

    if (s->sync_init) {
        pthread_cond_destroy(&s->cond);
        pthread_mutex_destroy(&s->mu);
        s->sync_init = 0;
    }

    /* the arenas of pending writes belong to their callers */

    s->pending = NULL;
    s->pending_last = &s->pending;
}


void
gcp_lmdb_sync_request(gcp_lmdb_store_t *s, int64_t rev)
{
    if (!s->thread_up) {
        gcp_lmdb_notify(s->sh, rev);
        return;
    }

    pthread_mutex_lock(&s->mu);

    if (rev > s->sync_req) {
        s->sync_req = rev;
        pthread_cond_signal(&s->cond);
    }

    pthread_mutex_unlock(&s->mu);
}


void
gcp_lmdb_sync_commit(gcp_lmdb_store_t *s, gcp_lmdb_op_t *op)
{
    if (!s->thread_up) {
        gcp_lmdb_notify(s->sh, op->revision);
        op->done(op->arg, op->res);
        return;
    }

    op->next = NULL;
    *s->pending_last = op;
    s->pending_last = &op->next;

    gcp_lmdb_sync_request(s, op->revision);
}
