
/*
 * The feeder of an instance's mirror (docs/storage.md, "One copy per
 * instance"): one process of the instance, the one holding an exclusive
 * flock() on a file, keeps the mirror (a gcp_store_mirror_ops_t store
 * shared by the instance's processes) current with one etcd watch stream:
 *
 * 1. On taking the lock, it reads the mirror's state: a mirror never
 *    loaded, or whose load was interrupted, is loaded (the prefix, page
 *    after page, all at the revision of the first page); otherwise the
 *    stream resumes from the mirror's revision + 1: a feeder killed or
 *    reloaded loses nothing, and its successor loads nothing.
 * 2. The stream covers the whole keyspace, as the per-process feed's
 *    (gcp_etcd_feed.c says why): each message's changes of the prefix are
 *    applied in one mirror transaction, and its newest revision, ours or
 *    not, becomes the mirror's.
 * 3. When the stream ends it is opened again from the mirror's revision,
 *    on the next endpoint after a failure, with a backoff; when etcd
 *    compacted past it, the mirror is loaded again (the readers' watches
 *    learn it from the mirror: its reads below the load fail as
 *    compacted).
 *
 * The lock dies with its process (the kernel drops it), so the other
 * processes, trying every GCP_ETCD_LEAD_MS, take over within that.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include "gcp_etcd.h"
#include "gcp_log.h"
#include "gcp_metrics.h"


#define GCP_ETCD_MIRROR_BACKOFF_MIN  50
#define GCP_ETCD_MIRROR_BACKOFF_MAX  1000


static const char * const  gcp_etcd_feeder_no_labels[] = { NULL };


struct gcp_etcd_feeder_s {
    gcp_etcd_t                     keys;    /* the key mapping and http */
    gcp_etcd_http_t               *http;
    gcp_loop_t                    *loop;
    gcp_store_t                   *mirror;
    const gcp_store_mirror_ops_t  *ops;
    char                          *lock_path;
    int                            lock_fd;     /* -1: not the feeder */
    gcp_loop_timer_t              *timer;
    gcp_etcd_call_t               *call;
    uint64_t                       backoff;
    int64_t                        rev;         /* the mirror is at */
    int64_t                        load_rev;    /* 0: no load under way */
    gcp_str_t                      load_next;   /* etcd key, malloc'd */
    unsigned                       need_load:1;
    unsigned                       replaced:1;  /* another etcd: stopped */
    char                           cluster[64]; /* "": not known yet */
    void                         (*on_replaced)(void *arg, const char *why);
    void                          *replaced_arg;
    gcp_etcd_feeder_stats_t        st;
};


static void gcp_etcd_feeder_tick(void *arg);
static void gcp_etcd_feeder_load(gcp_etcd_feeder_t *f);
static void gcp_etcd_feeder_watch(gcp_etcd_feeder_t *f);


/* The stream is up or not: in the mirror too, for every process. */
static void
gcp_etcd_feeder_live(gcp_etcd_feeder_t *f, int up)
{
    f->st.live = up ? 1 : 0;
    f->ops->set_live(f->mirror, up);
}


/* Returns 1 when this process holds (or just took) the lock. */
static int
gcp_etcd_feeder_lock(gcp_etcd_feeder_t *f)
{
    int  fd;

    if (f->lock_fd != -1) {
        return 1;
    }

    fd = open(f->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd == -1) {
        return 0;
    }

    if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
        close(fd);
        return 0;
    }

    f->lock_fd = fd;
    f->st.takeovers++;
    f->st.feeding = 1;
    gcp_metric_inc(GCP_M_MIRROR_TAKEOVERS, gcp_etcd_feeder_no_labels);

    /* a predecessor killed with its stream up left the flag set */
    gcp_etcd_feeder_live(f, 0);

    return 1;
}


static void
gcp_etcd_feeder_later(gcp_etcd_feeder_t *f, uint64_t ms)
{
    if (f->timer == NULL) {
        f->timer = f->loop->timer_add(f->loop, ms, gcp_etcd_feeder_tick, f);
    }
}


static void
gcp_etcd_feeder_backoff(gcp_etcd_feeder_t *f)
{
    gcp_etcd_feeder_live(f, 0);
    f->backoff = gcp_min(gcp_max(f->backoff * 2,
                                 GCP_ETCD_MIRROR_BACKOFF_MIN),
                         GCP_ETCD_MIRROR_BACKOFF_MAX);

    gcp_etcd_feeder_later(f, f->backoff);
}


static void
gcp_etcd_feeder_load_reset(gcp_etcd_feeder_t *f)
{
    free((char *) f->load_next.data);
    f->load_next.data = NULL;
    f->load_next.len = 0;
    f->load_rev = 0;
}


/* Starts (or resumes after a backoff) what the mirror needs. */
static void
gcp_etcd_feeder_tick(void *arg)
{
    int64_t             loading;
    gcp_etcd_feeder_t  *f = arg;

    f->timer = NULL;

    if (f->replaced) {
        /* the lock stays: nobody feeds the old copy until the restart */
        return;
    }

    if (!gcp_etcd_feeder_lock(f)) {
        gcp_etcd_feeder_later(f, GCP_ETCD_LEAD_MS);
        return;
    }

    if (f->need_load) {
        gcp_etcd_feeder_load(f);
        return;
    }

    if (f->ops->state(f->mirror, &f->rev, &loading) != GCP_OK) {
        gcp_etcd_feeder_backoff(f);
        return;
    }

    f->st.revision = f->rev;

    if (loading != 0) {
        f->need_load = 1;
        gcp_etcd_feeder_load(f);
        return;
    }

    gcp_etcd_feeder_watch(f);
}


/*
 * Another etcd under the same endpoints (a reply's cluster id is not the
 * mirror's, or its revision is behind the mirror's: etcd was replaced or
 * restored from an older backup): nothing of the old copy may be served
 * and every revision the instance derived is wrong.  The mirror is
 * emptied at once (a load begun: reads wait, /readyz fails), the feeder
 * stops, holding the lock so that no other process feeds the old copy,
 * and the caller starts the instance again.  Returns 1 when replaced.
 */
static int
gcp_etcd_feeder_check(gcp_etcd_feeder_t *f, json_t *header)
{
    int64_t      rev;
    const char  *id, *why, *msg;

    id = json_string_value(json_object_get(header, "cluster_id"));
    rev = gcp_etcd_int(header, "revision");
    why = NULL;

    if (id != NULL && f->cluster[0] == '\0' && strlen(id) < sizeof(f->cluster))
    {
        strcpy(f->cluster, id);

    } else if (id != NULL && strcmp(id, f->cluster) != 0) {
        why = "etcd answers with another cluster id";

    } else if (rev > 0 && rev < f->rev) {
        why = "etcd's revision is behind the mirror's";
    }

    if (why == NULL) {
        return 0;
    }

    gcp_log(GCP_LOG_WARN, "etcd mirror at revision %lld: %s (cluster %s, "
            "revision %lld): emptied, the instance starts again",
            (long long) f->rev, why, id ? id : "?", (long long) rev);

    f->replaced = 1;
    f->need_load = 0;
    gcp_etcd_feeder_live(f, 0);
    gcp_etcd_feeder_load_reset(f);

    (void) f->ops->load(f->mirror, NULL, 0, gcp_max(f->rev, 1),
                        GCP_STORE_LOAD_FIRST, &msg);

    if (f->on_replaced) {
        f->on_replaced(f->replaced_arg, why);
    }

    return 1;
}


/* ------------------------------------------------------------ load */


/* Decodes a page of etcd kvs into kvs (from a); returns how many. */
static int
gcp_etcd_feeder_page(gcp_etcd_feeder_t *f, json_t *arr, gcp_arena_t *a,
    gcp_kv_t **kvs, size_t *n)
{
    int     rc;
    size_t  i, m;

    m = json_array_size(arr);
    *n = 0;
    *kvs = gcp_calloc(a, (m ? m : 1) * sizeof(gcp_kv_t));

    if (*kvs == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < m; i++) {
        rc = gcp_etcd_kv(&f->keys, json_array_get(arr, i), &(*kvs)[*n], a);

        if (rc == GCP_ENOTFOUND) {
            continue;
        }

        if (rc != GCP_OK) {
            return rc;
        }

        (*n)++;
    }

    return GCP_OK;
}


static void
gcp_etcd_feeder_load_done(void *arg, gcp_etcd_reply_t *reply)
{
    int                 rc, more;
    char               *next;
    size_t              n, m, next_len;
    json_t             *arr;
    unsigned            flags;
    gcp_kv_t           *kvs;
    gcp_str_t           k;
    const char         *msg;
    gcp_arena_t        *a;
    gcp_etcd_feeder_t  *f = arg;

    f->call = NULL;

    if (reply->rc == GCP_OK
        && gcp_etcd_feeder_check(f, json_object_get(reply->json, "header")))
    {
        return;
    }

    if (reply->rc != GCP_OK) {
        /* a compacted load revision too: start over */
        gcp_etcd_feeder_load_reset(f);
        gcp_etcd_feeder_backoff(f);
        return;
    }

    flags = 0;

    if (f->load_rev == 0) {
        f->load_rev = gcp_etcd_int(json_object_get(reply->json, "header"),
                                   "revision");
        flags |= GCP_STORE_LOAD_FIRST;
    }

    arr = json_object_get(reply->json, "kvs");
    m = json_array_size(arr);
    more = json_is_true(json_object_get(reply->json, "more")) && m > 0;

    if (!more) {
        flags |= GCP_STORE_LOAD_LAST;
    }

    a = gcp_arena_create(0);
    rc = (a == NULL) ? GCP_ENOMEM : gcp_etcd_feeder_page(f, arr, a, &kvs, &n);

    if (rc == GCP_OK) {
        rc = f->ops->load(f->mirror, kvs, n, f->load_rev, flags, &msg);
    }

    next = NULL;
    next_len = 0;

    if (rc == GCP_OK && more) {
        /* the next page starts right after the last etcd key */
        k = gcp_etcd_bytes(json_array_get(arr, m - 1), "key", a);
        next = k.data ? malloc(k.len + 1) : NULL;

        if (next == NULL) {
            rc = GCP_ENOMEM;

        } else {
            memcpy(next, k.data, k.len);
            next[k.len] = '\0';
            next_len = k.len + 1;
        }
    }

    gcp_arena_destroy(a);

    if (rc != GCP_OK) {
        gcp_etcd_feeder_load_reset(f);
        gcp_etcd_feeder_backoff(f);
        return;
    }

    if (more) {
        free((char *) f->load_next.data);
        f->load_next.data = next;
        f->load_next.len = next_len;
        gcp_etcd_feeder_load(f);
        return;
    }

    f->rev = f->load_rev;
    f->st.revision = f->rev;
    f->st.loads++;
    gcp_metric_inc(GCP_M_MIRROR_LOADS, gcp_etcd_feeder_no_labels);
    f->need_load = 0;
    gcp_etcd_feeder_load_reset(f);

    gcp_etcd_feeder_watch(f);
}


static void
gcp_etcd_feeder_load(gcp_etcd_feeder_t *f)
{
    gcp_etcd_feeder_live(f, 0);

    f->call = gcp_etcd_load_page(&f->keys, f->load_next, f->load_rev,
                                 gcp_etcd_feeder_load_done, f);

    if (f->call == NULL) {
        gcp_etcd_feeder_backoff(f);
    }
}


/* ------------------------------------------------------------ stream */


/*
 * Decodes the events of a message newer than the mirror into ev (from a):
 * those of the prefix, in order.  Sets *rev to the newest revision of the
 * message (of any key).  Returns GCP_OK or an error code.
 */
static int
gcp_etcd_feeder_events(gcp_etcd_feeder_t *f, json_t *events, gcp_arena_t *a,
    gcp_store_event_t **ev, size_t *n, int64_t *rev)
{
    int          rc;
    size_t       i, m;
    json_t      *e, *kv;
    int64_t      r;
    gcp_str_t    key;
    const char  *type;

    m = json_array_size(events);
    *n = 0;
    *ev = gcp_calloc(a, (m ? m : 1) * sizeof(gcp_store_event_t));

    if (*ev == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < m; i++) {
        e = json_array_get(events, i);
        kv = json_object_get(e, "kv");
        r = gcp_etcd_int(kv, "mod_revision");

        if (r <= 0) {
            return GCP_EINTERNAL;
        }

        if (r <= f->rev) {
            continue;
        }

        if (r < *rev) {
            return GCP_EINTERNAL;
        }

        *rev = r;
        type = json_string_value(json_object_get(e, "type"));

        if (type && strcmp(type, "DELETE") == 0) {
            key = gcp_etcd_bytes(kv, "key", a);
            if (key.data == NULL) {
                return GCP_EINTERNAL;
            }

            key = gcp_etcd_key_in(&f->keys, key.data, key.len, a);
            if (key.data == NULL) {
                continue;           /* not ours */
            }

            (*ev)[*n].type = GCP_STORE_EVENT_DELETE;
            (*ev)[*n].kv.key = key;
            (*ev)[*n].kv.mod_revision = r;

        } else {
            rc = gcp_etcd_kv(&f->keys, kv, &(*ev)[*n].kv, a);

            if (rc == GCP_ENOTFOUND) {
                continue;
            }

            if (rc != GCP_OK) {
                return rc;
            }

            (*ev)[*n].type = GCP_STORE_EVENT_PUT;
        }

        (*ev)[*n].revision = r;
        (*n)++;
    }

    return GCP_OK;
}


static int
gcp_etcd_feeder_msg(void *arg, json_t *result)
{
    int                  rc;
    size_t               n;
    int64_t              rev;
    const char          *msg;
    gcp_arena_t         *a;
    gcp_store_event_t   *ev;
    gcp_etcd_feeder_t   *f = arg;

    if (json_is_true(json_object_get(result, "canceled"))) {
        f->call = NULL;

        if (gcp_etcd_int(result, "compact_revision") > 0) {
            /* the changes after the mirror's revision are gone */
            f->need_load = 1;
            gcp_etcd_feeder_load(f);
            return GCP_EGONE;
        }

        gcp_etcd_http_failover(f->http);
        gcp_etcd_feeder_backoff(f);
        return GCP_EGONE;
    }

    if (gcp_etcd_feeder_check(f, json_object_get(result, "header"))) {
        f->call = NULL;
        return GCP_EGONE;
    }

    /* etcd's revision when the message was sent: the mirror's lag */
    (void) f->ops->seen(f->mirror,
                        gcp_etcd_int(json_object_get(result, "header"),
                                     "revision"));

    if (json_is_true(json_object_get(result, "created"))) {
        f->backoff = 0;
        gcp_etcd_feeder_live(f, 1);
        return GCP_OK;
    }

    a = gcp_arena_create(0);
    rev = f->rev;
    rc = (a == NULL) ? GCP_ENOMEM
         : gcp_etcd_feeder_events(f, json_object_get(result, "events"), a,
                                  &ev, &n, &rev);

    if (rc == GCP_OK && rev > f->rev) {
        rc = f->ops->apply(f->mirror, ev, n, rev, &msg);
    }

    gcp_arena_destroy(a);

    if (rc != GCP_OK) {
        /* resume from what the mirror holds */
        f->call = NULL;
        gcp_etcd_feeder_backoff(f);
        return GCP_EGONE;
    }

    f->st.changes += n;
    f->rev = rev;
    f->st.revision = rev;
    gcp_metric_add(GCP_M_MIRROR_EVENTS, gcp_etcd_feeder_no_labels,
                   (int64_t) n);

    return GCP_OK;
}


static void
gcp_etcd_feeder_end(void *arg, int rc, const char *message)
{
    gcp_etcd_feeder_t  *f = arg;

    f->call = NULL;
    gcp_etcd_feeder_backoff(f);
}


static void
gcp_etcd_feeder_watch(gcp_etcd_feeder_t *f)
{
    gcp_etcd_feeder_live(f, 0);
    f->st.streams++;

    f->call = gcp_etcd_stream_all(f->http, f->rev + 1, gcp_etcd_feeder_msg,
                                  gcp_etcd_feeder_end, f);

    if (f->call == NULL) {
        gcp_etcd_feeder_backoff(f);
    }
}


/* ------------------------------------------------------------ control */


gcp_etcd_feeder_t *
gcp_etcd_feeder_create(const gcp_etcd_conf_t *conf, const char *lock_path,
    gcp_store_t *mirror, const gcp_store_mirror_ops_t *ops, gcp_loop_t *loop,
    const char **err)
{
    size_t              n;
    gcp_etcd_feeder_t  *f;

    if (gcp_etcd_check_conf(conf, err) != GCP_OK) {
        return NULL;
    }

    f = calloc(1, sizeof(gcp_etcd_feeder_t));
    if (f == NULL) {
        *err = "out of memory";
        return NULL;
    }

    f->loop = loop;
    f->mirror = mirror;
    f->ops = ops;
    f->lock_fd = -1;
    f->on_replaced = conf->replaced;
    f->replaced_arg = conf->replaced_arg;

    if (conf->mirror_source != NULL
        && strncmp(conf->mirror_source, "etcd cluster ", 13) == 0)
    {
        /* "etcd cluster ID prefix P" */
        n = strcspn(conf->mirror_source + 13, " ");

        if (n < sizeof(f->cluster)) {
            memcpy(f->cluster, conf->mirror_source + 13, n);
            f->cluster[n] = '\0';
        }
    }
    f->lock_path = strdup(lock_path);

    if (f->lock_path == NULL || gcp_etcd_keys_init(&f->keys, conf) != GCP_OK)
    {
        *err = "out of memory";
        gcp_etcd_feeder_destroy(f);
        return NULL;
    }

    f->http = gcp_etcd_http_create(conf, loop, err);
    if (f->http == NULL) {
        gcp_etcd_feeder_destroy(f);
        return NULL;
    }

    f->keys.http = f->http;         /* for gcp_etcd_load_page() */

    gcp_etcd_feeder_later(f, 0);

    if (f->timer == NULL) {
        *err = "out of memory";
        gcp_etcd_feeder_destroy(f);
        return NULL;
    }

    return f;
}


void
gcp_etcd_feeder_destroy(gcp_etcd_feeder_t *f)
{
    if (f == NULL) {
        return;
    }

    if (f->http) {
        gcp_etcd_http_cancel(f->http, f->call);
        gcp_etcd_http_destroy(f->http);
    }

    if (f->timer) {
        f->loop->timer_del(f->loop, f->timer);
    }

    if (f->lock_fd != -1) {
        gcp_etcd_feeder_live(f, 0);
        close(f->lock_fd);          /* releases the lock */
    }

    gcp_etcd_feeder_load_reset(f);
    gcp_etcd_keys_free(&f->keys);
    free(f->lock_path);
    free(f);
}


int
gcp_etcd_feeder_stats(gcp_etcd_feeder_t *f, gcp_etcd_feeder_stats_t *st)
{
    *st = f->st;

    return GCP_OK;
}
