
/*
 * The etcd backend's watches.  They do not open etcd watches of their
 * own: the process's one stream (gcp_etcd_feed.c) applies each change to
 * the in-memory copy, records it in the history and hands it to the live
 * watches whose range holds the key.
 *
 * A new watch first catches up, from a 0 ms timer (never inside watch()):
 * from the history when it holds every change after the start revision
 * (at most GCP_ETCD_CATCHUP_BATCH events per loop turn), else from etcd
 * itself with a replay stream of its own (whole keyspace, prev_kv), until
 * the replay reaches what the history holds; then it goes live.  A start
 * revision in the past always begins with such a replay, for etcd's
 * verdict: a start revision below a compaction this process knows of, or
 * one etcd refuses as compacted (by any worker or instance), gives the one
 * ERROR event (GCP_ECOMPACTED).
 *
 * Each watch keeps the revision it has delivered everything up to (pos);
 * events are delivered once, in revision order, whatever path they take.
 * Handlers may cancel and start watches: cancelled watches are freed after
 * the delivery round.
 */

#include <stdlib.h>

#include "gcp_etcd.h"


#define GCP_ETCD_REPLAY_RETRY_MS  100
#define GCP_ETCD_PROGRESS_ROUND   250


typedef enum {
    GCP_ETCD_W_CATCHUP = 0,
    GCP_ETCD_W_LIVE,
    GCP_ETCD_W_REPLAY
} gcp_etcd_wstate_t;


struct gcp_store_watch_s {
    gcp_store_watch_t   *next;          /* e->watches */
    gcp_store_watch_t   *prev;
    gcp_etcd_t          *e;
    gcp_str_t            key;           /* malloc'd */
    gcp_str_t            end;
    int64_t              pos;           /* delivered up to */
    gcp_etcd_wstate_t    state;
    gcp_store_event_pt   handler;
    void                *arg;
    gcp_loop_timer_t    *timer;
    gcp_etcd_call_t     *replay;
    uint64_t             last_ms;       /* last event delivered at */
    int                  err;           /* ERROR to deliver */
    int64_t              err_compact;
    unsigned             from_now:1;    /* start revision 0, not yet known */
    unsigned             checked:1;     /* etcd saw the start revision */
    unsigned             cancelled:1;
};


static void gcp_etcd_watch_timer(void *arg);
static void gcp_etcd_replay_start(gcp_store_watch_t *w);


static void
gcp_etcd_watch_free(gcp_store_watch_t *w)
{
    gcp_etcd_t  *e = w->e;

    if (w->prev) {
        w->prev->next = w->next;
    } else {
        e->watches = w->next;
    }

    if (w->next) {
        w->next->prev = w->prev;
    }

    if (w->timer) {
        e->store.loop->timer_del(e->store.loop, w->timer);
    }

    gcp_etcd_http_cancel(e->http, w->replay);

    free((char *) w->key.data);
    free((char *) w->end.data);
    free(w);
}


/* Ends w; freed now, or after the delivery round under way. */

static void
gcp_etcd_watch_release(gcp_store_watch_t *w)
{
    gcp_etcd_t  *e = w->e;

    if (w->cancelled) {
        return;
    }

    w->cancelled = 1;
    e->st.watches--;

    if (w->timer) {
        e->store.loop->timer_del(e->store.loop, w->timer);
        w->timer = NULL;
    }

    gcp_etcd_http_cancel(e->http, w->replay);
    w->replay = NULL;

    if (e->dispatching == 0) {
        gcp_etcd_watch_free(w);
    } else {
        e->swept = 1;
    }
}


static void
gcp_etcd_watch_sweep(gcp_etcd_t *e)
{
    gcp_store_watch_t  *w, *next;

    if (e->dispatching || !e->swept) {
        return;
    }

    e->swept = 0;

    for (w = e->watches; w; w = next) {
        next = w->next;

        if (w->cancelled) {
            gcp_etcd_watch_free(w);
        }
    }
}


static void
gcp_etcd_watch_arm(gcp_store_watch_t *w, uint64_t ms)
{
    gcp_loop_t  *loop = w->e->store.loop;

    if (w->timer == NULL && !w->cancelled) {
        w->timer = loop->timer_add(loop, ms, gcp_etcd_watch_timer, w);
    }
}


/* Hands ev to w's handler; a refusal ends the watch. */

static void
gcp_etcd_deliver(gcp_store_watch_t *w, const gcp_store_event_t *ev)
{
    int          rc;
    gcp_etcd_t  *e = w->e;

    e->dispatching++;
    rc = w->handler(w->arg, ev);
    e->dispatching--;

    w->last_ms = gcp_etcd_now(e);

    if (rc != GCP_OK || ev->type == GCP_STORE_EVENT_ERROR) {
        gcp_etcd_watch_release(w);
    }
}


static void
gcp_etcd_hev_event(const gcp_etcd_hev_t *hev, gcp_store_event_t *ev)
{
    memset(ev, 0, sizeof(gcp_store_event_t));

    ev->type = hev->type;
    ev->revision = hev->revision;

    if (hev->prev) {
        gcp_etcd_item_kv(hev->prev, &ev->prev_kv);
        ev->has_prev = 1;
    }

    if (hev->kv) {
        gcp_etcd_item_kv(hev->kv, &ev->kv);
        return;
    }

    /* a DELETE: the key, at the delete's revision */
    ev->kv.key = ev->prev_kv.key;
    ev->kv.value.data = "";
    ev->kv.mod_revision = hev->revision;
}


static int
gcp_etcd_hev_matches(gcp_store_watch_t *w, const gcp_etcd_hev_t *hev)
{
    gcp_etcd_item_t  *it;

    it = hev->kv ? hev->kv : hev->prev;

    return gcp_etcd_in_range(it->data, it->klen, w->key, w->end);
}


/* ------------------------------------------------------------ catch-up */


static void
gcp_etcd_watch_error(gcp_store_watch_t *w)
{
    gcp_store_event_t  ev;

    memset(&ev, 0, sizeof(gcp_store_event_t));
    ev.type = GCP_STORE_EVENT_ERROR;
    ev.rc = w->err;
    ev.compact_revision = w->err_compact;

    gcp_etcd_deliver(w, &ev);
}


static void
gcp_etcd_watch_catchup(gcp_store_watch_t *w)
{
    size_t              i, n;
    gcp_etcd_t         *e = w->e;
    gcp_etcd_hev_t     *hev;
    gcp_store_event_t   ev;

    if (!e->ready) {
        /* gcp_etcd_watch_loaded() arms the timer again */
        return;
    }

    if (w->pos < e->hist.base || (!w->checked && w->pos < e->rev)) {
        /*
         * a start in the past goes to etcd once even when the history
         * holds it: etcd refuses it if another worker or instance
         * compacted it (the history does not know)
         */
        gcp_etcd_replay_start(w);
        return;
    }

    /* every event of a revision in the same turn */

    for (i = gcp_etcd_hist_after(&e->hist, w->pos), n = 0;
         i < e->hist.n && !w->cancelled;
         i++, n++)
    {
        hev = gcp_etcd_hist_at(&e->hist, i);

        if (n >= GCP_ETCD_CATCHUP_BATCH && hev->revision != w->pos) {
            gcp_etcd_watch_arm(w, 0);
            return;
        }

        if (gcp_etcd_hev_matches(w, hev)) {
            gcp_etcd_hev_event(hev, &ev);
            gcp_etcd_deliver(w, &ev);
        }

        w->pos = hev->revision;
    }

    if (w->cancelled) {
        return;
    }

    if (w->pos < e->rev) {
        w->pos = e->rev;
    }

    w->state = GCP_ETCD_W_LIVE;
}


static void
gcp_etcd_watch_timer(void *arg)
{
    gcp_store_watch_t  *w = arg;
    gcp_etcd_t         *e = w->e;

    w->timer = NULL;

    e->dispatching++;

    if (w->err) {
        gcp_etcd_watch_error(w);

    } else if (w->state == GCP_ETCD_W_REPLAY) {
        gcp_etcd_replay_start(w);

    } else {
        gcp_etcd_watch_catchup(w);
    }

    e->dispatching--;

    gcp_etcd_watch_sweep(e);
}


/* ------------------------------------------------------------ replay */


/* Decodes and delivers one event of a replay stream. */

static void
gcp_etcd_replay_event(gcp_store_watch_t *w, json_t *event, int64_t rev,
    gcp_arena_t *a)
{
    json_t             *kv, *prev;
    gcp_str_t           key;
    const char         *type;
    gcp_etcd_t         *e = w->e;
    gcp_store_event_t   ev;

    kv = json_object_get(event, "kv");
    prev = json_object_get(event, "prev_kv");
    type = json_string_value(json_object_get(event, "type"));

    key = gcp_etcd_bytes(kv, "key", a);
    if (key.data == NULL) {
        return;
    }

    key = gcp_etcd_key_in(e, key.data, key.len, a);

    if (key.data == NULL
        || !gcp_etcd_in_range(key.data, key.len, w->key, w->end))
    {
        return;
    }

    memset(&ev, 0, sizeof(gcp_store_event_t));
    ev.revision = rev;

    if (type && strcmp(type, "DELETE") == 0) {
        ev.type = GCP_STORE_EVENT_DELETE;
        ev.kv.key = key;
        ev.kv.value.data = "";
        ev.kv.mod_revision = rev;

    } else {
        ev.type = GCP_STORE_EVENT_PUT;

        if (gcp_etcd_kv(e, kv, &ev.kv, a) != GCP_OK) {
            return;
        }
    }

    if (prev && gcp_etcd_kv(e, prev, &ev.prev_kv, a) == GCP_OK) {
        ev.has_prev = 1;
    }

    gcp_etcd_deliver(w, &ev);
}


static int
gcp_etcd_replay_msg(void *arg, json_t *result)
{
    size_t              i, n;
    json_t             *events, *ev;
    int64_t             c, rev, last;
    gcp_arena_t        *a;
    gcp_store_watch_t  *w = arg;
    gcp_etcd_t         *e = w->e;

    if (json_is_true(json_object_get(result, "canceled"))) {
        w->replay = NULL;
        c = gcp_etcd_int(result, "compact_revision");

        if (c > 0) {
            if (c > e->compact) {
                e->compact = c;
            }

            w->err = GCP_ECOMPACTED;
            w->err_compact = c;
            w->state = GCP_ETCD_W_CATCHUP;
            gcp_etcd_watch_arm(w, 0);
            return GCP_EGONE;
        }

        gcp_etcd_watch_arm(w, GCP_ETCD_REPLAY_RETRY_MS);
        return GCP_EGONE;
    }

    events = json_object_get(result, "events");
    n = json_array_size(events);

    if (n == 0) {
        return GCP_OK;
    }

    a = gcp_arena_create(0);
    if (a == NULL) {
        return GCP_ENOMEM;
    }

    last = w->pos;

    e->dispatching++;

    for (i = 0; i < n && !w->cancelled; i++) {
        ev = json_array_get(events, i);
        rev = gcp_etcd_int(json_object_get(ev, "kv"), "mod_revision");

        if (rev <= w->pos) {
            continue;
        }

        gcp_etcd_replay_event(w, ev, rev, a);
        last = rev;
    }

    e->dispatching--;

    gcp_arena_destroy(a);

    if (w->cancelled) {
        gcp_etcd_watch_sweep(e);
        return GCP_EGONE;
    }

    w->pos = last;

    if (e->ready && w->pos >= e->hist.base) {
        /* the history holds the rest */
        w->replay = NULL;
        w->state = GCP_ETCD_W_CATCHUP;
        gcp_etcd_watch_arm(w, 0);
        return GCP_EGONE;
    }

    return GCP_OK;
}


static void
gcp_etcd_replay_end(void *arg, int rc, const char *message)
{
    gcp_store_watch_t  *w = arg;

    w->replay = NULL;
    gcp_etcd_watch_arm(w, GCP_ETCD_REPLAY_RETRY_MS);
}


static void
gcp_etcd_replay_start(gcp_store_watch_t *w)
{
    char         body[192];
    gcp_str_t    b;
    gcp_etcd_t  *e = w->e;

    /* from pos itself: etcd refuses it exactly when pos is compacted */

    b.data = body;
    b.len = (size_t) snprintf(body, sizeof(body),
                              "{\"create_request\":{\"key\":\"AA==\","
                              "\"range_end\":\"AA==\","
                              "\"start_revision\":\"%lld\","
                              "\"prev_kv\":true}}", (long long) w->pos);

    w->state = GCP_ETCD_W_REPLAY;
    w->checked = 1;
    e->st.replays++;

    w->replay = gcp_etcd_http_stream(e->http, "/v3/watch", b, 0,
                                     gcp_etcd_replay_msg,
                                     gcp_etcd_replay_end, w);

    if (w->replay == NULL) {
        gcp_etcd_watch_arm(w, GCP_ETCD_REPLAY_RETRY_MS);
    }
}


/* ------------------------------------------------------------ the feed */


void
gcp_etcd_watch_dispatch(gcp_etcd_t *e, const gcp_etcd_hev_t *hev)
{
    gcp_store_watch_t  *w;
    gcp_store_event_t   ev;

    e->dispatching++;

    for (w = e->watches; w; w = w->next) {
        if (w->state != GCP_ETCD_W_LIVE || w->cancelled
            || hev->revision <= w->pos || !gcp_etcd_hev_matches(w, hev))
        {
            continue;
        }

        gcp_etcd_hev_event(hev, &ev);
        gcp_etcd_deliver(w, &ev);
    }

    e->dispatching--;

    gcp_etcd_watch_sweep(e);
}


void
gcp_etcd_watch_advance(gcp_etcd_t *e)
{
    int                 progress;
    uint64_t            now;
    gcp_store_watch_t  *w;
    gcp_store_event_t   ev;

    now = gcp_etcd_now(e);
    progress = now - e->progress_at >= GCP_ETCD_PROGRESS_ROUND;

    if (progress) {
        e->progress_at = now;
    }

    memset(&ev, 0, sizeof(gcp_store_event_t));
    ev.type = GCP_STORE_EVENT_PROGRESS;
    ev.revision = e->rev;

    e->dispatching++;

    for (w = e->watches; w; w = w->next) {
        if (w->state != GCP_ETCD_W_LIVE || w->cancelled) {
            continue;
        }

        if (w->pos < e->rev) {
            w->pos = e->rev;
        }

        if (progress && now - w->last_ms >= GCP_ETCD_PROGRESS_MS) {
            gcp_etcd_deliver(w, &ev);
        }
    }

    e->dispatching--;

    gcp_etcd_watch_sweep(e);
}


void
gcp_etcd_watch_loaded(gcp_etcd_t *e)
{
    gcp_store_watch_t  *w;

    for (w = e->watches; w; w = w->next) {
        if (w->from_now) {
            w->pos = e->rev;
            w->from_now = 0;
        }

        gcp_etcd_watch_arm(w, 0);
    }
}


void
gcp_etcd_watch_lost(gcp_etcd_t *e, int64_t compact_revision)
{
    gcp_store_watch_t  *w;

    for (w = e->watches; w; w = w->next) {
        if (w->cancelled || w->state == GCP_ETCD_W_REPLAY) {
            continue;
        }

        w->err = GCP_ECOMPACTED;
        w->err_compact = compact_revision;
        w->state = GCP_ETCD_W_CATCHUP;
        gcp_etcd_watch_arm(w, 0);
    }
}


void
gcp_etcd_watch_stop(gcp_etcd_t *e)
{
    e->dispatching = 0;

    while (e->watches) {
        gcp_etcd_watch_free(e->watches);
    }
}


/* ------------------------------------------------------------ operations */


static int
gcp_etcd_strcopy(gcp_str_t *dst, gcp_str_t src)
{
    char  *p;

    p = malloc(src.len + 1);
    if (p == NULL) {
        return GCP_ENOMEM;
    }

    if (src.len) {
        memcpy(p, src.data, src.len);
    }

    p[src.len] = '\0';
    dst->data = p;
    dst->len = src.len;

    return GCP_OK;
}


gcp_store_watch_t *
gcp_etcd_watch(gcp_store_t *s, gcp_str_t key, gcp_str_t range_end,
    int64_t start_revision, gcp_store_event_pt handler, void *arg)
{
    gcp_etcd_t         *e = (gcp_etcd_t *) s;
    gcp_store_watch_t  *w;

    if (e->mirror) {
        /* the mirror's handle: cancel and revision go to the mirror */
        return gcp_etcd_mirrored_watch(e, key, range_end, start_revision,
                                       handler, arg);
    }

    w = calloc(1, sizeof(gcp_store_watch_t));
    if (w == NULL) {
        return NULL;
    }

    if (gcp_etcd_strcopy(&w->key, key) != GCP_OK
        || gcp_etcd_strcopy(&w->end, range_end) != GCP_OK)
    {
        free((char *) w->key.data);
        free(w);
        return NULL;
    }

    w->e = e;
    w->handler = handler;
    w->arg = arg;
    w->last_ms = gcp_etcd_now(e);
    w->pos = start_revision;
    w->from_now = start_revision == 0;
    w->checked = w->from_now;

    w->state = GCP_ETCD_W_CATCHUP;

    if (start_revision < 0
        || (key.len && memchr(key.data, '\0', key.len))
        || (key.len == 0 && range_end.len == 0))
    {
        w->err = GCP_EBADREQUEST;

    } else if (start_revision > 0 && start_revision < e->compact) {
        w->err = GCP_ECOMPACTED;
        w->err_compact = e->compact;
    }

    w->next = e->watches;
    if (e->watches) {
        e->watches->prev = w;
    }
    e->watches = w;

    e->st.watches++;

    if (w->from_now && e->ready) {
        /*
         * "now": after what the copy holds and what the instance wrote
         * (writes made before the first load wait for it)
         */
        w->pos = gcp_max(e->rev, gcp_etcd_watermark(e));
        w->from_now = 0;
    }

    gcp_etcd_watch_arm(w, 0);

    if (w->timer == NULL) {
        w->cancelled = 1;
        e->st.watches--;
        gcp_etcd_watch_free(w);
        return NULL;
    }

    return w;
}


void
gcp_etcd_watch_cancel(gcp_store_t *s, gcp_store_watch_t *w)
{
    gcp_etcd_t  *e = (gcp_etcd_t *) s;

    if (e->mirror) {
        gcp_store_watch_cancel(e->mirror, w);
        return;
    }

    gcp_etcd_watch_release(w);
}


int64_t
gcp_etcd_watch_revision(gcp_store_t *s, gcp_store_watch_t *w)
{
    gcp_etcd_t  *e = (gcp_etcd_t *) s;

    if (e->mirror) {
        return gcp_store_watch_revision(e->mirror, w);
    }

    return w->err == GCP_OK && !w->from_now ? w->pos : 0;
}
