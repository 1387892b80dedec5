
/*
 * The etcd backend's reads.
 *
 * A read at the current revision (revision 0) is answered from the
 * in-memory copy once the copy is known to be current enough:
 *
 * - quorum (GCP_ETCD_READS_QUORUM): a "current revision" probe (a
 *   linearizable count-only range, which etcd answers after confirming its
 *   leadership with a quorum) gives a revision P at least as new as every
 *   write acknowledged anywhere before the probe was sent; the read is
 *   answered when the copy has applied P.  One probe is in flight at a
 *   time; reads arriving while it is out wait for the next one, sent when
 *   it returns: under load one round trip serves every read that arrived
 *   during the previous one.  Reads are linearizable, as kube-apiserver's
 *   consistent reads.
 *
 * - instance (GCP_ETCD_READS_INSTANCE, the default): no probe per read.
 *   The processes of an nginx instance share a write watermark, raised
 *   before any of them delivers a write's answer; a read is answered when
 *   the copy has applied the watermark (at once, nearly always: the
 *   events are on their way in the watch stream).  So a read sees every
 *   write of the instance acknowledged before it arrived.  Writes of other
 *   instances come by the watch stream too; to bound how late, the copy
 *   counts as current only while its watch stream is up and a probe sent
 *   less than the freshness window ago has been reached (a probe confirms
 *   the copy at the time it was sent).  A probe goes out in the background
 *   when half the window has passed and reads arrive; when the window has
 *   run out, or the stream is down, reads wait for a probe as in quorum
 *   mode.  So a read also sees every write acknowledged anywhere more than
 *   the window before it arrived.
 *
 * A read at an exact revision is answered from the copy when the copy is
 * at that very revision, and by etcd otherwise (gcp_etcd_kv.c).
 */

#include <stdlib.h>

#include "gcp_etcd.h"


typedef struct {
    size_t              n;
    gcp_etcd_item_t   **items;
} gcp_etcd_pins_t;


static void gcp_etcd_probe_start(gcp_etcd_t *e);
static void gcp_etcd_sweep_arm(gcp_etcd_t *e);


gcp_store_result_t *
gcp_etcd_result(gcp_etcd_t *e, gcp_arena_t *a, int rc, const char *message)
{
    gcp_store_result_t  *res;

    res = gcp_calloc(a, sizeof(gcp_store_result_t));
    if (res == NULL) {
        return NULL;
    }

    res->rc = rc;
    res->revision = e->rev;
    res->compact_revision = e->compact;

    if (message) {
        res->message = gcp_strdup(a, message);
    }

    return res;
}


void
gcp_etcd_fail(gcp_etcd_t *e, gcp_arena_t *a, int rc, const char *message,
    gcp_store_done_pt done, void *arg)
{
    gcp_store_result_t         *res;
    static gcp_store_result_t   oom;

    res = gcp_etcd_result(e, a, rc, message);

    if (res == NULL) {
        memset(&oom, 0, sizeof(gcp_store_result_t));
        oom.rc = GCP_ENOMEM;
        res = &oom;
    }

    done(arg, res);
}


/* ------------------------------------------------------------ the copy */


static void
gcp_etcd_unpin(void *data)
{
    size_t            i;
    gcp_etcd_pins_t  *p = data;

    for (i = 0; i < p->n; i++) {
        gcp_etcd_item_unref(p->items[i]);
    }
}


/*
 * Answers a read from the copy: the result points into the items, which
 * stay referenced until the arena goes.
 */
static gcp_store_result_t *
gcp_etcd_serve(gcp_etcd_t *e, gcp_arena_t *a, gcp_str_t key, gcp_str_t end,
    int64_t limit, int count_only, int single)
{
    size_t               i, n;
    int64_t              count;
    gcp_buf_t            found;
    gcp_etcd_item_t     *it, **items;
    gcp_etcd_node_t     *node;
    gcp_etcd_pins_t     *pins;
    gcp_store_result_t  *res;

    e->st.cached_reads++;

    res = gcp_etcd_result(e, a, GCP_OK, NULL);
    if (res == NULL) {
        return NULL;
    }

    gcp_buf_init(&found, a);
    count = 0;

    if (single) {
        it = gcp_etcd_map_get(&e->map, key.data, key.len);

        if (it) {
            count = 1;
            gcp_buf_add(&found, &it, sizeof(gcp_etcd_item_t *));
        }

    } else {
        for (node = gcp_etcd_map_seek(&e->map, key.data, key.len);
             node;
             node = gcp_etcd_map_next(node))
        {
            it = gcp_etcd_node_item(node);

            if (!gcp_etcd_in_range(it->data, it->klen, key, end)) {
                break;
            }

            count++;

            if (!count_only && (limit == 0 || count <= limit)) {
                gcp_buf_add(&found, &it, sizeof(gcp_etcd_item_t *));
            }
        }
    }

    if (gcp_buf_failed(&found)) {
        return NULL;
    }

    res->count = count;

    if (count_only) {
        return res;
    }

    n = found.len / sizeof(gcp_etcd_item_t *);
    res->more = limit > 0 && count > limit;

    if (n == 0) {
        return res;
    }

    items = (gcp_etcd_item_t **) found.data;

    res->kvs = gcp_alloc(a, n * sizeof(gcp_kv_t));
    pins = gcp_alloc(a, sizeof(gcp_etcd_pins_t));

    if (res->kvs == NULL || pins == NULL) {
        return NULL;
    }

    for (i = 0; i < n; i++) {
        gcp_etcd_item_ref(items[i]);
        gcp_etcd_item_kv(items[i], &res->kvs[i]);
    }

    pins->n = n;
    pins->items = items;

    if (gcp_arena_cleanup(a, gcp_etcd_unpin, pins) != GCP_OK) {
        return NULL;
    }

    res->nkvs = n;

    return res;
}


/* Answers a read at the copy's revision: the copy's, or the mirror's. */
static void
gcp_etcd_serve_now(gcp_etcd_t *e, gcp_arena_t *a, gcp_str_t key,
    gcp_str_t end, int64_t limit, int count_only, int single,
    gcp_store_done_pt done, void *arg)
{
    gcp_store_result_t  *res;

    if (e->mirror) {
        gcp_etcd_mirrored_read(e, key, end, 0, limit, count_only, single, a,
                               done, arg);
        return;
    }

    res = gcp_etcd_serve(e, a, key, end, limit, count_only, single);

    if (res == NULL) {
        gcp_etcd_fail(e, a, GCP_ENOMEM, NULL, done, arg);
        return;
    }

    done(arg, res);
}


static void
gcp_etcd_answer(gcp_etcd_t *e, gcp_etcd_read_t *r)
{
    if (r->then) {
        r->then(r->data);
        return;
    }

    gcp_etcd_serve_now(e, r->a, r->key, r->end, r->limit, r->count_only,
                       r->single, r->done, r->arg);
}


/* ------------------------------------------------------------ currency */


int64_t
gcp_etcd_watermark(gcp_etcd_t *e)
{
    return __atomic_load_n(e->watermark, __ATOMIC_ACQUIRE);
}


void
gcp_etcd_watermark_raise(gcp_etcd_t *e, int64_t rev)
{
    int64_t  cur;

    cur = __atomic_load_n(e->watermark, __ATOMIC_ACQUIRE);

    while (cur < rev
           && !__atomic_compare_exchange_n(e->watermark, &cur, rev, 1,
                                           __ATOMIC_ACQ_REL,
                                           __ATOMIC_ACQUIRE))
    {
        /* cur now holds the value another process stored: compare again */
    }
}


void
gcp_etcd_reads_live(gcp_etcd_t *e, int up)
{
    if (!up && e->live) {
        /* the stream went down: confirmed again by a probe once back */
        e->confirmed = 0;
        e->pending_rev = 0;
    }

    e->live = up ? 1 : 0;
}


/* A probe's revision reached by the copy confirms it at the probe's time. */

static void
gcp_etcd_confirm(gcp_etcd_t *e)
{
    if (e->pending_rev && e->rev >= e->pending_rev) {
        e->confirmed = gcp_max(e->confirmed, e->pending_at);
        e->pending_rev = 0;
    }
}


/*
 * Returns 1 when a read at the current revision arriving at now may be
 * answered once the copy reaches the watermark, without a probe.
 */
static int
gcp_etcd_current(gcp_etcd_t *e, uint64_t now)
{
    if (e->mirror) {
        /* the feeder's stream, in whichever process feeds */
        gcp_etcd_reads_live(e, gcp_etcd_mirrored_live(e));
    }

    if (e->quorum || !e->ready || !e->live || e->confirmed == 0
        || now >= e->confirmed + e->fresh)
    {
        return 0;
    }

    if (now >= e->confirmed + e->fresh / 2 && e->probe == NULL
        && e->probe_timer == NULL)
    {
        /* in the background: confirmed again before the window runs out */
        gcp_etcd_probe_start(e);
    }

    return 1;
}


/* ------------------------------------------------------------ the queue */


static void
gcp_etcd_reads_unlink(gcp_etcd_t *e, gcp_etcd_read_t *r)
{
    if (r->prev) {
        r->prev->next = r->next;
    } else {
        e->reads = r->next;
    }

    if (r->next) {
        r->next->prev = r->prev;
    } else {
        e->reads_last = r->prev;
    }

    r->next = NULL;
    r->prev = NULL;
}


/* Moves the reads that satisfy stage (and need <= rev) to a list. */

static gcp_etcd_read_t *
gcp_etcd_reads_take(gcp_etcd_t *e, int stage, int64_t rev)
{
    gcp_etcd_read_t  *r, *next, *head, **tail;

    head = NULL;
    tail = &head;

    for (r = e->reads; r; r = next) {
        next = r->next;

        if (r->stage != stage || r->need > rev) {
            continue;
        }

        gcp_etcd_reads_unlink(e, r);
        *tail = r;
        tail = &r->next;
    }

    return head;
}


void
gcp_etcd_reads_kick(gcp_etcd_t *e)
{
    gcp_etcd_read_t  *r, *next;

    gcp_etcd_confirm(e);

    if (!e->ready || e->reads == NULL) {
        return;
    }

    for (r = gcp_etcd_reads_take(e, GCP_ETCD_READ_WAIT, e->rev);
         r;
         r = next)
    {
        next = r->next;
        gcp_etcd_answer(e, r);
    }
}


static void
gcp_etcd_probe_done(void *arg, gcp_etcd_reply_t *reply)
{
    int64_t           rev;
    uint64_t          now;
    gcp_etcd_t       *e = arg;
    gcp_etcd_read_t  *r, *next;

    e->probe = NULL;

    if (reply->rc != GCP_OK) {
        for (r = gcp_etcd_reads_take(e, GCP_ETCD_READ_PROBE, INT64_MAX);
             r;
             r = next)
        {
            next = r->next;
            gcp_etcd_fail(e, r->a, reply->rc, reply->message, r->done,
                          r->arg);
        }

    } else {
        rev = gcp_etcd_int(json_object_get(reply->json, "header"),
                           "revision");
        now = gcp_etcd_now(e);

        if (rev > 0) {
            e->pending_rev = rev;
            e->pending_at = e->probe_sent;
        }

        for (r = e->reads; r; r = r->next) {
            if (r->stage == GCP_ETCD_READ_PROBE) {
                r->stage = GCP_ETCD_READ_WAIT;
                r->need = rev;
                r->since = now;
            }
        }

        gcp_etcd_reads_kick(e);
    }

    if (e->probe) {
        return;
    }

    for (r = e->reads; r; r = r->next) {
        if (r->stage == GCP_ETCD_READ_NEXT) {
            gcp_etcd_probe_start(e);
            break;
        }
    }
}


static void
gcp_etcd_probe_start(gcp_etcd_t *e)
{
    gcp_etcd_read_t  *r, *next;

    static const gcp_str_t  body = gcp_string("{\"key\":\"AA==\","
                                              "\"count_only\":true}");

    for (r = e->reads; r; r = r->next) {
        if (r->stage == GCP_ETCD_READ_NEXT) {
            r->stage = GCP_ETCD_READ_PROBE;
        }
    }

    e->st.probes++;
    e->probe_sent = gcp_etcd_now(e);

    e->probe = gcp_etcd_http_unary(e->http, "/v3/kv/range", body,
                                   GCP_ETCD_SAFE, gcp_etcd_probe_done, e);

    if (e->probe == NULL) {
        for (r = gcp_etcd_reads_take(e, GCP_ETCD_READ_PROBE, INT64_MAX);
             r;
             r = next)
        {
            next = r->next;
            gcp_etcd_fail(e, r->a, GCP_ENOMEM, NULL, r->done, r->arg);
        }
    }
}


static void
gcp_etcd_probe_timer(void *arg)
{
    gcp_etcd_t  *e = arg;

    e->probe_timer = NULL;

    if (e->probe == NULL) {
        gcp_etcd_probe_start(e);
    }
}


static void
gcp_etcd_sweep_handler(void *arg)
{
    int               stalled;
    uint64_t          now, stall;
    const char       *msg;
    gcp_etcd_t       *e = arg;
    gcp_etcd_read_t  *r, *next, *head, **tail;

    e->sweep = NULL;
    now = gcp_etcd_now(e);
    stall = gcp_min(e->timeout / 2, 2000);

    if (e->mirror) {
        gcp_etcd_mirrored_poll(e);
    }

    head = NULL;
    tail = &head;
    stalled = 0;

    for (r = e->reads; r; r = next) {
        next = r->next;

        if (r->deadline <= now) {
            gcp_etcd_reads_unlink(e, r);
            *tail = r;
            tail = &r->next;
            continue;
        }

        if (r->stage == GCP_ETCD_READ_WAIT && now - r->since >= stall) {
            stalled = 1;
        }
    }

    if (stalled && e->feed == GCP_ETCD_FEED_WATCHING
        && now - e->feed_since >= stall)
    {
        /* the watch stream fell silent: another member may do better */
        gcp_etcd_feed_restart(e);
    }

    for (r = head; r; r = next) {
        next = r->next;

        if (!e->ready) {
            msg = "etcd: no answer from etcd within the timeout (the "
                  "objects are not loaded yet)";

        } else if (r->stage != GCP_ETCD_READ_WAIT) {
            msg = "etcd: no answer from etcd within the timeout (current "
                  "revision unknown)";

        } else {
            msg = gcp_sprintf(r->a, "etcd: timed out waiting for the "
                              "storage to reach revision %lld (at %lld)",
                              (long long) r->need, (long long) e->rev);
        }

        gcp_etcd_fail(e, r->a, GCP_ETIMEOUT, msg, r->done, r->arg);
    }

    gcp_etcd_sweep_arm(e);
}


static void
gcp_etcd_sweep_arm(gcp_etcd_t *e)
{
    gcp_loop_t  *loop = e->store.loop;

    if (e->sweep == NULL && e->reads) {
        e->sweep = loop->timer_add(loop, GCP_ETCD_SWEEP_MS,
                                   gcp_etcd_sweep_handler, e);
    }
}


void
gcp_etcd_reads_stop(gcp_etcd_t *e)
{
    gcp_loop_t  *loop = e->store.loop;

    gcp_etcd_http_cancel(e->http, e->probe);
    e->probe = NULL;

    if (e->probe_timer) {
        loop->timer_del(loop, e->probe_timer);
        e->probe_timer = NULL;
    }

    if (e->sweep) {
        loop->timer_del(loop, e->sweep);
        e->sweep = NULL;
    }

    e->reads = NULL;
    e->reads_last = NULL;
}


/* ------------------------------------------------------------ entry */


/* Queues r at its stage (NEXT: for a probe, sent soon). */

static void
gcp_etcd_read_queue(gcp_etcd_t *e, gcp_etcd_read_t *r, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg)
{
    r->deadline = gcp_etcd_now(e) + e->timeout;
    r->a = a;
    r->done = done;
    r->arg = arg;

    r->prev = e->reads_last;

    if (e->reads_last) {
        e->reads_last->next = r;
    } else {
        e->reads = r;
    }

    e->reads_last = r;

    if (e->probe == NULL && e->probe_timer == NULL
        && r->stage == GCP_ETCD_READ_NEXT)
    {
        /* from the loop: the reads of this loop turn share the probe */
        e->probe_timer = e->store.loop->timer_add(e->store.loop, 0,
                                                  gcp_etcd_probe_timer, e);
        if (e->probe_timer == NULL) {
            gcp_etcd_probe_start(e);
        }
    }

    gcp_etcd_sweep_arm(e);
}


static void
gcp_etcd_read(gcp_etcd_t *e, gcp_str_t key, gcp_str_t end, int64_t revision,
    int64_t limit, int count_only, int single, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg)
{
    int64_t              mark;
    uint64_t             now;
    gcp_etcd_read_t     *r;
    gcp_store_result_t  *res;

    if (revision < 0 || limit < 0 || (single && !gcp_etcd_key_valid(key))) {
        gcp_etcd_fail(e, a, GCP_EBADREQUEST, "etcd: invalid read", done,
                      arg);
        return;
    }

    if (revision > 0) {
        if (revision < e->compact) {
            gcp_etcd_fail(e, a, GCP_ECOMPACTED,
                          "etcd: required revision has been compacted",
                          done, arg);
            return;
        }

        if (e->mirror) {
            /* the mirror from its load on, etcd below it */
            gcp_etcd_mirrored_read(e, key, end, revision, limit, count_only,
                                   single, a, done, arg);
            return;
        }

        if (e->ready && revision == e->rev) {
            res = gcp_etcd_serve(e, a, key, end, limit, count_only, single);

            if (res == NULL) {
                gcp_etcd_fail(e, a, GCP_ENOMEM, NULL, done, arg);
                return;
            }

            done(arg, res);
            return;
        }

        gcp_etcd_remote_range(e, key, end, revision, limit, count_only,
                              single, a, done, arg);
        return;
    }

    now = gcp_etcd_now(e);
    mark = 0;

    if (gcp_etcd_current(e, now)) {
        e->st.unprobed_reads++;
        mark = gcp_etcd_watermark(e);

        if (e->rev >= mark) {
            gcp_etcd_serve_now(e, a, key, end, limit, count_only, single,
                               done, arg);
            return;
        }
    }

    r = gcp_calloc(a, sizeof(gcp_etcd_read_t));
    if (r == NULL) {
        gcp_etcd_fail(e, a, GCP_ENOMEM, NULL, done, arg);
        return;
    }

    /* the caller's key may not outlive the call: copies in the arena */

    r->key.data = gcp_strndup(a, key.data ? key.data : "", key.len);
    r->key.len = key.len;
    r->end.data = gcp_strndup(a, end.data ? end.data : "", end.len);
    r->end.len = end.len;

    if (r->key.data == NULL || r->end.data == NULL) {
        gcp_etcd_fail(e, a, GCP_ENOMEM, NULL, done, arg);
        return;
    }

    r->limit = limit;
    r->single = single;
    r->count_only = count_only;

    if (mark) {
        /* the instance wrote past the copy: the stream brings it */
        r->stage = GCP_ETCD_READ_WAIT;
        r->need = mark;
        r->since = now;
    }

    gcp_etcd_read_queue(e, r, a, done, arg);
}


void
gcp_etcd_when_ready(gcp_etcd_t *e, int64_t rev, gcp_arena_t *a,
    void (*then)(void *data), void *data, gcp_store_done_pt done, void *arg)
{
    gcp_etcd_read_t  *r;

    if (e->ready && e->rev >= rev) {
        then(data);
        return;
    }

    r = gcp_calloc(a, sizeof(gcp_etcd_read_t));
    if (r == NULL) {
        gcp_etcd_fail(e, a, GCP_ENOMEM, NULL, done, arg);
        return;
    }

    r->then = then;
    r->data = data;

    /* no probe: the wait ends with the load, or the stream's progress */

    r->stage = GCP_ETCD_READ_WAIT;
    r->need = rev;
    r->since = gcp_etcd_now(e);

    gcp_etcd_read_queue(e, r, a, done, arg);
}


void
gcp_etcd_get(gcp_store_t *s, gcp_str_t key, int64_t revision,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_str_t  none = gcp_null_string;

    gcp_etcd_read((gcp_etcd_t *) s, key, none, revision, 0, 0, 1, a, done,
                  arg);
}


void
gcp_etcd_range(gcp_store_t *s, gcp_str_t key, gcp_str_t range_end,
    int64_t revision, int64_t limit, int count_only, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg)
{
    gcp_etcd_read((gcp_etcd_t *) s, key, range_end, revision, limit,
                  count_only, range_end.len == 0, a, done, arg);
}
