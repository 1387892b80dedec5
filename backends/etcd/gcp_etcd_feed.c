
/*
 * The etcd backend's feed: what keeps the in-memory copy current.
 *
 * 1. Load: the keys under the prefix, page after page, all at the
 *    revision of the first page (R).
 * 2. Watch: one stream per process from R + 1 over the whole keyspace.
 *    Every write to etcd bumps its revision by one and shows in the
 *    stream, so the revisions the stream delivers have no gap and the
 *    copy is exactly at the last one: the copy's revision is etcd's
 *    revision as far as the stream got, which is what consistent reads
 *    compare with.  Changes outside the prefix only move the revision.
 *    No prev_kv is asked for: the copy holds the previous version.
 *    Reads at the current revision need no probe only while the stream
 *    is up (etcd said "created"; gcp_etcd_read.c).
 * 3. When the stream ends (member down, leader lost: the stream asks etcd
 *    to end it when the member has no leader), it is opened again, on the
 *    next endpoint after a failure, from the last revision applied, with
 *    a backoff of 50 ms doubling to 1 s.  If that revision was compacted
 *    meanwhile, changes were lost: the watches following the copy end
 *    with an ERROR (410 for clients, who list again) and the copy is
 *    loaded again.
 */

#include <stdlib.h>

#include "gcp_etcd.h"


#define GCP_ETCD_BACKOFF_MIN  50
#define GCP_ETCD_BACKOFF_MAX  1000


static void gcp_etcd_feed_load(gcp_etcd_t *e);
static void gcp_etcd_feed_watch(gcp_etcd_t *e);


static void
gcp_etcd_feed_timer(void *arg)
{
    gcp_etcd_t  *e = arg;

    e->feed_timer = NULL;

    if (e->need_load) {
        gcp_etcd_feed_load(e);
    } else {
        gcp_etcd_feed_watch(e);
    }
}


/* Tries again later: the load (when one is under way) or the stream. */

static void
gcp_etcd_feed_backoff(gcp_etcd_t *e)
{
    gcp_loop_t  *loop = e->store.loop;

    gcp_etcd_reads_live(e, 0);
    e->feed = GCP_ETCD_FEED_BACKOFF;
    e->backoff = gcp_min(gcp_max(e->backoff * 2, GCP_ETCD_BACKOFF_MIN),
                         GCP_ETCD_BACKOFF_MAX);

    if (e->feed_timer == NULL) {
        e->feed_timer = loop->timer_add(loop, e->backoff,
                                        gcp_etcd_feed_timer, e);
    }
}


/* ------------------------------------------------------------ load */


static void
gcp_etcd_load_reset(gcp_etcd_t *e)
{
    gcp_etcd_map_free(&e->load_map);
    free((char *) e->load_next.data);
    e->load_next.data = NULL;
    e->load_next.len = 0;
    e->load_rev = 0;
}


static void
gcp_etcd_feed_loaded(gcp_etcd_t *e)
{
    gcp_etcd_map_free(&e->map);
    e->map = e->load_map;
    memset(&e->load_map, 0, sizeof(gcp_etcd_map_t));

    e->rev = e->load_rev;

    gcp_etcd_hist_reset(&e->hist, e->load_rev);
    gcp_etcd_load_reset(e);

    e->need_load = 0;
    e->st.loads++;

    if (!e->ready) {
        e->ready = 1;
        gcp_etcd_watch_loaded(e);
    }

    gcp_etcd_feed_watch(e);
    gcp_etcd_reads_kick(e);
}


static void
gcp_etcd_load_done(void *arg, gcp_etcd_reply_t *reply)
{
    int               rc;
    char             *next;
    size_t            i, n;
    json_t           *kvs, *last;
    gcp_str_t         k;
    gcp_arena_t      *a;
    gcp_etcd_t       *e = arg;
    gcp_etcd_item_t  *it, *prev;

    e->feed_call = NULL;

    if (reply->rc != GCP_OK) {
        /* a compacted load revision: start over; else try again later */
        gcp_etcd_load_reset(e);
        gcp_etcd_feed_backoff(e);
        return;
    }

    if (e->load_rev == 0) {
        e->load_rev = gcp_etcd_int(json_object_get(reply->json, "header"),
                                   "revision");
    }

    kvs = json_object_get(reply->json, "kvs");
    n = json_array_size(kvs);

    for (i = 0; i < n; i++) {
        rc = gcp_etcd_item_json(e, json_array_get(kvs, i), &it);

        if (rc == GCP_ENOTFOUND) {
            continue;
        }

        if (rc != GCP_OK
            || gcp_etcd_map_put(&e->load_map, it, &prev) != GCP_OK)
        {
            gcp_etcd_item_unref(it);
            gcp_etcd_load_reset(e);
            gcp_etcd_feed_backoff(e);
            return;
        }

        gcp_etcd_item_unref(prev);
    }

    if (!json_is_true(json_object_get(reply->json, "more")) || n == 0) {
        gcp_etcd_feed_loaded(e);
        return;
    }

    /* the next page starts right after the last etcd key */

    last = json_array_get(kvs, n - 1);
    a = gcp_arena_create(0);
    k = a ? gcp_etcd_bytes(last, "key", a) : (gcp_str_t) gcp_null_string;
    next = k.data ? malloc(k.len + 1) : NULL;

    if (next == NULL) {
        gcp_arena_destroy(a);
        gcp_etcd_load_reset(e);
        gcp_etcd_feed_backoff(e);
        return;
    }

    memcpy(next, k.data, k.len);
    next[k.len] = '\0';
    gcp_arena_destroy(a);

    free((char *) e->load_next.data);
    e->load_next.data = next;
    e->load_next.len = k.len + 1;

    gcp_etcd_feed_load(e);
}


gcp_etcd_call_t *
gcp_etcd_load_page(gcp_etcd_t *e, gcp_str_t from, int64_t revision,
    gcp_etcd_reply_pt done, void *arg)
{
    gcp_buf_t         b;
    gcp_str_t         body;
    gcp_arena_t      *a;
    gcp_etcd_call_t  *call;

    a = gcp_arena_create(0);
    if (a == NULL) {
        return NULL;
    }

    if (from.len == 0) {
        from = e->prefix;
    }

    gcp_buf_init(&b, a);
    gcp_buf_addstr(&b, "{\"key\":\"");

    if (from.len) {
        gcp_base64_encode_buf(&b, from.data, from.len, GCP_BASE64_STD);
    } else {
        gcp_buf_addstr(&b, "AA==");
    }

    gcp_buf_addstr(&b, "\",\"range_end\":\"");
    gcp_base64_encode_buf(&b, e->prefix_end.data,
                          e->prefix_end.len, GCP_BASE64_STD);
    gcp_buf_printf(&b, "\",\"limit\":\"%d\"", GCP_ETCD_PAGE);

    if (revision) {
        gcp_buf_printf(&b, ",\"revision\":\"%lld\"", (long long) revision);
    }

    gcp_buf_addc(&b, '}');

    body.data = b.data;
    body.len = b.len;

    call = gcp_buf_failed(&b) ? NULL
           : gcp_etcd_http_unary(e->http, "/v3/kv/range", body,
                                 GCP_ETCD_SAFE, done, arg);
    gcp_arena_destroy(a);

    return call;
}


static void
gcp_etcd_feed_load(gcp_etcd_t *e)
{
    gcp_etcd_reads_live(e, 0);
    e->feed = GCP_ETCD_FEED_LOADING;
    e->need_load = 1;

    if (e->load_map.head == NULL
        && gcp_etcd_map_init(&e->load_map) != GCP_OK)
    {
        gcp_etcd_feed_backoff(e);
        return;
    }

    e->feed_call = gcp_etcd_load_page(e, e->load_next, e->load_rev,
                                      gcp_etcd_load_done, e);

    if (e->feed_call == NULL) {
        gcp_etcd_feed_backoff(e);
    }
}


/* ------------------------------------------------------------ stream */


static int
gcp_etcd_feed_apply(gcp_etcd_t *e, json_t *event)
{
    int               rc;
    json_t           *kv;
    int64_t           rev;
    gcp_str_t         key;
    const char       *type;
    gcp_arena_t      *a;
    gcp_etcd_hev_t    hev;
    gcp_etcd_item_t  *it, *prev;

    kv = json_object_get(event, "kv");
    type = json_string_value(json_object_get(event, "type"));
    rev = gcp_etcd_int(kv, "mod_revision");

    if (rev <= 0) {
        return GCP_EINTERNAL;
    }

    memset(&hev, 0, sizeof(gcp_etcd_hev_t));
    hev.revision = rev;

    if (type && strcmp(type, "DELETE") == 0) {
        a = gcp_arena_create(0);
        if (a == NULL) {
            return GCP_ENOMEM;
        }

        key = gcp_etcd_bytes(kv, "key", a);

        if (key.data == NULL) {
            gcp_arena_destroy(a);
            return GCP_EINTERNAL;
        }

        prev = NULL;
        key = gcp_etcd_key_in(e, key.data, key.len, a);

        if (key.data) {
            prev = gcp_etcd_map_del(&e->map, key.data, key.len);
        }

        gcp_arena_destroy(a);

        if (prev == NULL) {
            /* outside the prefix */
            e->rev = rev;
            return GCP_OK;
        }

        hev.type = GCP_STORE_EVENT_DELETE;
        hev.prev = prev;

    } else {
        rc = gcp_etcd_item_json(e, kv, &it);

        if (rc == GCP_ENOTFOUND) {
            e->rev = rev;
            return GCP_OK;
        }

        if (rc != GCP_OK) {
            return rc;
        }

        if (gcp_etcd_map_put(&e->map, it, &prev) != GCP_OK) {
            gcp_etcd_item_unref(it);
            return GCP_ENOMEM;
        }

        hev.type = GCP_STORE_EVENT_PUT;
        hev.kv = it;
        hev.prev = prev;
    }

    e->rev = rev;

    /* out of memory empties the history (watches from before then go */
    /* to etcd): the copy itself is whole */
    (void) gcp_etcd_hist_push(&e->hist, hev.type, rev, hev.kv, hev.prev);

    gcp_etcd_watch_dispatch(e, &hev);

    /* the map holds kv; the history holds its own references */
    gcp_etcd_item_unref(hev.prev);

    return GCP_OK;
}


static int
gcp_etcd_feed_msg(void *arg, json_t *result)
{
    int64_t      c, start;
    size_t       i, n;
    json_t      *events, *ev;
    gcp_etcd_t  *e = arg;

    if (json_is_true(json_object_get(result, "canceled"))) {
        e->feed_call = NULL;
        c = gcp_etcd_int(result, "compact_revision");

        if (c > 0) {
            /* the changes after e->rev are gone: load again */
            if (c > e->compact) {
                e->compact = c;
            }

            gcp_etcd_watch_lost(e, c);
            gcp_etcd_feed_load(e);
            return GCP_EGONE;
        }

        gcp_etcd_http_failover(e->http);
        gcp_etcd_feed_backoff(e);
        return GCP_EGONE;
    }

    if (json_is_true(json_object_get(result, "created"))) {
        e->backoff = 0;
        gcp_etcd_reads_live(e, 1);
        return GCP_OK;
    }

    events = json_object_get(result, "events");
    n = json_array_size(events);
    start = e->rev;

    for (i = 0; i < n; i++) {
        ev = json_array_get(events, i);

        if (gcp_etcd_int(json_object_get(ev, "kv"), "mod_revision")
            <= start)
        {
            continue;
        }

        if (gcp_etcd_feed_apply(e, ev) != GCP_OK) {
            /* out of memory or malformed: resume from what was applied */
            e->feed_call = NULL;
            gcp_etcd_feed_backoff(e);
            return GCP_EGONE;
        }
    }

    if (e->rev > start) {
        gcp_etcd_watch_advance(e);
        gcp_etcd_reads_kick(e);
    }

    return GCP_OK;
}


static void
gcp_etcd_feed_end(void *arg, int rc, const char *message)
{
    gcp_etcd_t  *e = arg;

    e->feed_call = NULL;
    gcp_etcd_feed_backoff(e);
}


gcp_etcd_call_t *
gcp_etcd_stream_all(gcp_etcd_http_t *h, int64_t from, gcp_etcd_msg_pt msg,
    gcp_etcd_end_pt end, void *arg)
{
    char       body[160];
    gcp_str_t  b;

    b.data = body;
    b.len = (size_t) snprintf(body, sizeof(body),
                              "{\"create_request\":{\"key\":\"AA==\","
                              "\"range_end\":\"AA==\","
                              "\"start_revision\":\"%lld\"}}",
                              (long long) from);

    return gcp_etcd_http_stream(h, "/v3/watch", b, GCP_ETCD_LEADER, msg, end,
                                arg);
}


static void
gcp_etcd_feed_watch(gcp_etcd_t *e)
{
    gcp_etcd_reads_live(e, 0);
    e->feed = GCP_ETCD_FEED_WATCHING;
    e->feed_since = gcp_etcd_now(e);
    e->st.streams++;

    e->feed_call = gcp_etcd_stream_all(e->http, e->rev + 1,
                                       gcp_etcd_feed_msg, gcp_etcd_feed_end,
                                       e);

    if (e->feed_call == NULL) {
        gcp_etcd_feed_backoff(e);
    }
}


/* ------------------------------------------------------------ control */


void
gcp_etcd_feed_start(gcp_etcd_t *e)
{
    gcp_etcd_feed_load(e);
}


void
gcp_etcd_feed_restart(gcp_etcd_t *e)
{
    if (e->feed != GCP_ETCD_FEED_WATCHING) {
        return;
    }

    gcp_etcd_http_cancel(e->http, e->feed_call);
    e->feed_call = NULL;

    gcp_etcd_http_failover(e->http);
    gcp_etcd_feed_watch(e);
}


void
gcp_etcd_feed_stop(gcp_etcd_t *e)
{
    gcp_etcd_http_cancel(e->http, e->feed_call);
    e->feed_call = NULL;

    if (e->feed_timer) {
        e->store.loop->timer_del(e->store.loop, e->feed_timer);
        e->feed_timer = NULL;
    }

    gcp_etcd_load_reset(e);
    gcp_etcd_reads_live(e, 0);
    e->feed = GCP_ETCD_FEED_IDLE;
}
