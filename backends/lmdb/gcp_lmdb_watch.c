
/*
 * LMDB backend: watches.
 *
 * A process delivers events in rounds: woken by its eventfd (or by the
 * safety timer), it reads the log once from the revision it dispatched last
 * up to the durable revision in the shared memory, and hands each entry to
 * every caught-up watch whose range holds the key.  A new watch starts
 * "catching up" and reads the log on its own (from a 0 ms timer, a bounded
 * number of entries per turn) until it reaches the dispatched revision.
 *
 * Handlers may cancel any watch and start new ones: cancelled watches stay
 * in the list (marked) until the round ends, and new ones start catching up,
 * so the lists being walked never lose a node.
 */

#include <stdlib.h>

#include "gcp_lmdb.h"


static void gcp_lmdb_catchup_handler(void *data);
static int gcp_lmdb_from_load(gcp_store_watch_t *w, int64_t compacted);


static int
gcp_lmdb_match(const gcp_store_watch_t *w, const char *k, size_t len)
{
    if (w->end == NULL && !w->unbounded) {
        return len == w->key_len
               && (len == 0 || memcmp(k, w->key, len) == 0);
    }

    if (gcp_lmdb_keycmp(k, len, w->key, w->key_len) < 0) {
        return 0;
    }

    return w->unbounded
           || gcp_lmdb_keycmp(k, len, w->end, w->end_len) < 0;
}


static void
gcp_lmdb_watch_end(gcp_lmdb_store_t *s, gcp_store_watch_t *w)
{
    w->cancelled = 1;
    s->nwatches--;
    s->swept = 1;
}


/* Hands ev to w; the watch ends after an ERROR or when the handler asks. */
static void
gcp_lmdb_deliver(gcp_lmdb_store_t *s, gcp_store_watch_t *w,
    const gcp_store_event_t *ev)
{
    int  rc;

    w->progress_ms = s->store.loop->now_ms(s->store.loop);

    rc = w->handler(w->arg, ev);

    /* the handler may have cancelled w itself */

    if (!w->cancelled && (rc != GCP_OK || ev->type == GCP_STORE_EVENT_ERROR))
    {
        gcp_lmdb_watch_end(s, w);
    }
}


static void
gcp_lmdb_deliver_error(gcp_lmdb_store_t *s, gcp_store_watch_t *w, int rc,
    int64_t compacted)
{
    gcp_store_event_t  ev;

    memset(&ev, 0, sizeof(gcp_store_event_t));
    ev.type = GCP_STORE_EVENT_ERROR;
    ev.rc = rc;
    ev.revision = s->dispatched;
    ev.compact_revision = compacted;

    gcp_lmdb_deliver(s, w, &ev);
}


/* Frees the cancelled watches (outside of any round). */
static void
gcp_lmdb_sweep(gcp_lmdb_store_t *s)
{
    gcp_store_watch_t  *w, *next;

    if (s->dispatching || !s->swept) {
        return;
    }

    s->swept = 0;

    for (w = s->watches; w; w = next) {
        next = w->next;

        if (!w->cancelled) {
            continue;
        }

        if (w->prev) {
            w->prev->next = w->next;
        } else {
            s->watches = w->next;
        }

        if (w->next) {
            w->next->prev = w->prev;
        } else {
            s->watches_last = w->prev;
        }

        free(w->key);
        free(w);
    }
}


/*
 * Builds the event of log entry (rev, key): the hist entry at rev and the
 * live entry before it.  The event points into the txn's snapshot.
 */
static int
gcp_lmdb_event(MDB_cursor *c, gcp_str_t key, int64_t rev,
    gcp_store_event_t *ev)
{
    int               rc;
    gcp_lmdb_entry_t  e, p;

    memset(ev, 0, sizeof(gcp_store_event_t));
    ev->revision = rev;

    rc = gcp_lmdb_find(c, key, rev, &e);

    if (rc == GCP_OK && e.mod_revision != rev) {
        rc = GCP_EINTERNAL;
    }

    if (rc != GCP_OK) {
        ev->type = GCP_STORE_EVENT_ERROR;
        ev->rc = (rc == GCP_ENOTFOUND) ? GCP_EINTERNAL : rc;
        return ev->rc;
    }

    ev->kv.key = key;
    ev->kv.mod_revision = rev;

    if (e.tombstone) {
        ev->type = GCP_STORE_EVENT_DELETE;

    } else {
        ev->type = GCP_STORE_EVENT_PUT;
        ev->kv.key = e.key;
        ev->kv.value = e.value;
        ev->kv.create_revision = e.create_revision;
        ev->kv.version = e.version;
    }

    rc = gcp_lmdb_find_prev(c, &e, &p);

    if (rc == GCP_OK) {
        ev->has_prev = 1;
        ev->prev_kv.key = p.key;
        ev->prev_kv.value = p.value;
        ev->prev_kv.create_revision = p.create_revision;
        ev->prev_kv.mod_revision = p.mod_revision;
        ev->prev_kv.version = p.version;

    } else if (rc != GCP_ENOTFOUND) {
        ev->type = GCP_STORE_EVENT_ERROR;
        ev->rc = rc;
        return rc;
    }

    return GCP_OK;
}


/*
 * Walks the log entries in (from, to], calling visit for each; when budget
 * is not NULL, at most *budget of them (decremented).  Sets *end when no
 * entry <= to is left.
 */
typedef void (*gcp_lmdb_visit_pt)(gcp_lmdb_store_t *s, MDB_cursor *hist,
    gcp_str_t key, int64_t rev, unsigned sub, void *data);

static void
gcp_lmdb_walk(gcp_lmdb_store_t *s, MDB_txn *txn, int64_t from, int64_t to,
    uint64_t *budget, gcp_lmdb_visit_pt visit, void *data, int *end)
{
    int          mrc;
    char         buf[8];
    int64_t      rev;
    unsigned     sub;
    MDB_val      k, v;
    gcp_str_t    key;
    MDB_cursor  *lc, *hc;

    *end = 1;

    if (mdb_cursor_open(txn, s->log, &lc) != MDB_SUCCESS) {
        return;
    }

    if (mdb_cursor_open(txn, s->hist, &hc) != MDB_SUCCESS) {
        mdb_cursor_close(lc);
        return;
    }

    gcp_lmdb_rev_key(buf, from + 1, &k);
    mrc = mdb_cursor_get(lc, &k, &v, MDB_SET_RANGE);

    while (mrc == MDB_SUCCESS) {

        rev = gcp_lmdb_rev_decode(&k);
        if (rev < 0 || rev > to) {
            break;
        }

        /* a budget ends a walk between revisions, never inside one */
        sub = gcp_lmdb_log_sub(&k);

        if (budget != NULL && sub == 0) {
            if (*budget == 0) {
                *end = 0;
                break;
            }

            (*budget)--;
        }

        key.data = v.mv_data;
        key.len = v.mv_size;

        visit(s, hc, key, rev, sub, data);

        mrc = mdb_cursor_get(lc, &k, &v, MDB_NEXT);
    }

    mdb_cursor_close(hc);
    mdb_cursor_close(lc);
}


/*
 * Returns 1 when w has not been handed the change (rev, sub): w->rev is
 * the revision of the last change it was handed, and a walk hands every
 * change of a revision (sub 0, 1, ...) before any later one, so a change
 * of w->rev with sub > 0 is the next one of the same revision.
 */
static int
gcp_lmdb_unseen(const gcp_store_watch_t *w, int64_t rev, unsigned sub)
{
    return rev > w->rev || (rev == w->rev && sub > 0);
}


/* The shared pass: one log entry, every caught-up watch. */
static void
gcp_lmdb_visit_all(gcp_lmdb_store_t *s, MDB_cursor *hist, gcp_str_t key,
    int64_t rev, unsigned sub, void *data)
{
    int                 decoded;
    gcp_store_event_t   ev;
    gcp_store_watch_t  *w;

    decoded = 0;

    for (w = s->watches; w; w = w->next) {

        if (w->cancelled || !w->caught_up || !gcp_lmdb_unseen(w, rev, sub)
            || !gcp_lmdb_match(w, key.data, key.len))
        {
            continue;
        }

        if (!decoded) {
            (void) gcp_lmdb_event(hist, key, rev, &ev);
            decoded = 1;
        }

        w->rev = rev;
        gcp_lmdb_deliver(s, w, &ev);
    }
}


/* The catch-up of one watch. */
static void
gcp_lmdb_visit_one(gcp_lmdb_store_t *s, MDB_cursor *hist, gcp_str_t key,
    int64_t rev, unsigned sub, void *data)
{
    gcp_store_event_t   ev;
    gcp_store_watch_t  *w = data;

    if (w->cancelled || !gcp_lmdb_unseen(w, rev, sub)) {
        return;
    }

    w->rev = rev;

    if (!gcp_lmdb_match(w, key.data, key.len)) {
        return;
    }

    (void) gcp_lmdb_event(hist, key, rev, &ev);
    gcp_lmdb_deliver(s, w, &ev);
}


static void
gcp_lmdb_progress(gcp_lmdb_store_t *s, int64_t rev)
{
    uint64_t            now;
    gcp_store_event_t   ev;
    gcp_store_watch_t  *w;

    now = s->store.loop->now_ms(s->store.loop);

    memset(&ev, 0, sizeof(gcp_store_event_t));
    ev.type = GCP_STORE_EVENT_PROGRESS;
    ev.revision = rev;

    for (w = s->watches; w; w = w->next) {

        if (w->cancelled || !w->caught_up || w->rev >= rev) {
            continue;
        }

        w->rev = rev;

        if (now - w->progress_ms >= GCP_LMDB_PROGRESS_MS) {
            gcp_lmdb_deliver(s, w, &ev);
        }
    }
}


static void
gcp_lmdb_catchup_schedule(gcp_lmdb_store_t *s)
{
    gcp_loop_t  *loop = s->store.loop;

    if (s->catchup == NULL) {
        s->catchup = loop->timer_add(loop, 0, gcp_lmdb_catchup_handler, s);
    }
}


int
gcp_lmdb_dispatch(gcp_lmdb_store_t *s, int from_timer)
{
    int                 end;
    int64_t             target, compacted, from;
    MDB_txn            *txn;
    gcp_store_watch_t  *w;

    if (s->dispatching) {
        return 0;
    }

    target = __atomic_load_n(&s->sh->shm->durable, __ATOMIC_SEQ_CST);

    if (target <= s->dispatched) {
        return 0;
    }

    if (gcp_lmdb_rbegin(s, &txn) != GCP_OK) {
        return 0;
    }

    if (gcp_lmdb_meta_get(s, txn, "compact", 0, &compacted) != GCP_OK) {
        gcp_lmdb_rend(s, txn);
        return 0;
    }

    s->dispatching++;

    from = s->dispatched;

    if (from < compacted) {
        /* this process fell behind a compaction (rare) */

        for (w = s->watches; w; w = w->next) {
            if (gcp_lmdb_from_load(w, compacted)) {
                continue;
            }

            if (!w->cancelled && w->caught_up && w->rev < compacted) {
                gcp_lmdb_deliver_error(s, w, GCP_ECOMPACTED, compacted);
            }
        }

        from = compacted;
    }

    if (from < target) {
        gcp_lmdb_walk(s, txn, from, target, NULL, gcp_lmdb_visit_all, NULL,
                      &end);
    }

    s->dispatched = target;

    gcp_lmdb_progress(s, target);

    s->dispatching--;
    gcp_lmdb_rend(s, txn);

    if (s->moved) {
        s->moved(s->moved_arg);
    }

    if (from_timer) {
        s->timer_rounds++;
    } else {
        s->notify_rounds++;
    }

    gcp_lmdb_sweep(s);

    return 1;
}


/*
 * A watch from "now" made before its mirror was loaded starts at the
 * load (compacted: its revision, 0 while loading).  Returns 1 when w was
 * one and now is a watch from there.
 */
static int
gcp_lmdb_from_load(gcp_store_watch_t *w, int64_t compacted)
{
    if (!w->from_load || compacted == 0) {
        return 0;
    }

    w->from_load = 0;
    w->rev = gcp_max(w->rev, compacted);

    return 1;
}


static void
gcp_lmdb_catchup_handler(void *data)
{
    int                 end, more;
    int64_t             compacted;
    uint64_t            budget;
    MDB_txn            *txn;
    gcp_lmdb_store_t   *s = data;
    gcp_store_watch_t  *w;

    s->catchup = NULL;

    if (gcp_lmdb_rbegin(s, &txn) != GCP_OK) {
        gcp_lmdb_catchup_schedule(s);
        return;
    }

    if (gcp_lmdb_meta_get(s, txn, "compact", 0, &compacted) != GCP_OK) {
        compacted = 0;
    }

    s->dispatching++;

    more = 0;
    budget = GCP_LMDB_CATCHUP;

    for (w = s->watches; w; w = w->next) {

        if (w->cancelled || w->caught_up) {
            continue;
        }

        if (w->error != GCP_OK) {
            gcp_lmdb_deliver_error(s, w, w->error, compacted);
            continue;
        }

        (void) gcp_lmdb_from_load(w, compacted);

        if (w->rev < compacted) {
            gcp_lmdb_deliver_error(s, w, GCP_ECOMPACTED, compacted);
            continue;
        }

        if (w->rev < s->dispatched) {

            if (budget == 0) {
                more = 1;
                continue;
            }

            gcp_lmdb_walk(s, txn, w->rev, s->dispatched, &budget,
                          gcp_lmdb_visit_one, w, &end);

            if (!end) {
                more = 1;
                continue;
            }
        }

        if (!w->cancelled) {
            w->rev = gcp_max(w->rev, s->dispatched);
            w->caught_up = 1;
        }
    }

    s->dispatching--;
    gcp_lmdb_rend(s, txn);

    gcp_lmdb_sweep(s);

    if (more) {
        gcp_lmdb_catchup_schedule(s);
    }
}


gcp_store_watch_t *
gcp_lmdb_watch(gcp_store_t *st, gcp_str_t key, gcp_str_t range_end,
    int64_t start_revision, gcp_store_event_pt handler, void *arg)
{
    int                  rc;
    int64_t              cur, compacted;
    MDB_txn             *txn;
    const char          *msg;
    gcp_store_watch_t   *w;
    gcp_lmdb_store_t    *s = (gcp_lmdb_store_t *) st;

    w = calloc(1, sizeof(gcp_store_watch_t));
    if (w == NULL) {
        return NULL;
    }

    w->key = malloc(key.len + range_end.len + 1);
    if (w->key == NULL) {
        free(w);
        return NULL;
    }

    if (key.len) {
        memcpy(w->key, key.data, key.len);
    }

    w->key_len = key.len;

    if (range_end.len == 1 && range_end.data[0] == '\0') {
        w->unbounded = 1;

    } else if (range_end.len) {
        w->end = w->key + key.len;
        w->end_len = range_end.len;
        memcpy(w->end, range_end.data, range_end.len);
    }

    w->handler = handler;
    w->arg = arg;
    w->progress_ms = st->loop->now_ms(st->loop);
    w->rev = start_revision;

    w->error = gcp_lmdb_check_key(s, key, range_end.len > 0, &msg);

    if (w->error == GCP_EKEYTOOLONG) {
        w->error = GCP_OK;              /* matched in memory: no limit */
    }

    if (w->error == GCP_OK && start_revision < 0) {
        w->error = GCP_EBADREQUEST;
    }

    if (w->error == GCP_OK && start_revision == 0) {
        rc = gcp_lmdb_rbegin(s, &txn);

        if (rc == GCP_OK) {
            rc = gcp_lmdb_meta_get(s, txn, "revision", GCP_LMDB_FIRST_REV,
                                   &cur);

            if (rc == GCP_OK && s->mirror) {
                rc = gcp_lmdb_meta_get(s, txn, "compact", 0, &compacted);
                w->from_load = (rc == GCP_OK && compacted == 0);
            }

            gcp_lmdb_rend(s, txn);
        }

        w->error = rc;
        w->rev = (rc == GCP_OK) ? cur : 0;
    }

    w->prev = s->watches_last;

    if (s->watches_last) {
        s->watches_last->next = w;
    } else {
        s->watches = w;
    }

    s->watches_last = w;
    s->nwatches++;

    gcp_lmdb_catchup_schedule(s);

    return w;
}


void
gcp_lmdb_watch_cancel(gcp_store_t *st, gcp_store_watch_t *w)
{
    gcp_lmdb_store_t  *s = (gcp_lmdb_store_t *) st;

    if (w == NULL || w->cancelled) {
        return;
    }

    gcp_lmdb_watch_end(s, w);
    gcp_lmdb_sweep(s);
}


static void
gcp_lmdb_tick_handler(void *data)
{
    int                mrc;
    int64_t            cur, durable;
    MDB_txn           *txn;
    gcp_loop_t        *loop;
    gcp_lmdb_store_t  *s = data;

    loop = s->store.loop;
    s->tick = NULL;
    s->ticks++;

    (void) gcp_lmdb_dispatch(s, 1);
    gcp_lmdb_sync_ack(s);

    /*
     * A writer killed between its commit and its sync, or one with other
     * shared state (another generation of workers), leaves revisions that
     * nobody here is told about: when the revision committed at the last
     * tick is still not durable, sync up to the current one here.
     */

    if (gcp_lmdb_rbegin(s, &txn) == GCP_OK) {
        if (gcp_lmdb_meta_get(s, txn, "revision", GCP_LMDB_FIRST_REV, &cur)
            == GCP_OK)
        {
            durable = __atomic_load_n(&s->sh->shm->durable,
                                      __ATOMIC_SEQ_CST);

            if (s->tick_rev > durable) {
                gcp_lmdb_sync_request(s, cur);
            }

            s->tick_rev = cur;
        }

        gcp_lmdb_rend(s, txn);
    }

    if (s->ticks % 10 == 0) {
        (void) mdb_reader_check(s->env, &mrc);
    }

    s->tick = loop->timer_add(loop, GCP_LMDB_TICK_MS, gcp_lmdb_tick_handler,
                              s);
}


int
gcp_lmdb_tick_start(gcp_lmdb_store_t *s)
{
    gcp_loop_t  *loop = s->store.loop;

    s->tick = loop->timer_add(loop, GCP_LMDB_TICK_MS, gcp_lmdb_tick_handler,
                              s);

    return s->tick ? GCP_OK : GCP_ENOMEM;
}


void
gcp_lmdb_watch_close(gcp_lmdb_store_t *s)
{
    gcp_loop_t         *loop = s->store.loop;
    gcp_store_watch_t  *w, *next;

    if (s->tick) {
        loop->timer_del(loop, s->tick);
        s->tick = NULL;
    }

    if (s->catchup) {
        loop->timer_del(loop, s->catchup);
        s->catchup = NULL;
    }

    for (w = s->watches; w; w = next) {
        next = w->next;
        free(w->key);
        free(w);
    }

    s->watches = NULL;
    s->watches_last = NULL;
    s->nwatches = 0;
}


int64_t
gcp_lmdb_watch_revision(gcp_store_t *st, gcp_store_watch_t *w)
{
    return w->error == GCP_OK ? w->rev : 0;
}
