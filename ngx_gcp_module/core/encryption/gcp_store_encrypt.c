
/*
 * The encrypting store (see gcp_store_encrypt.h).
 */

#include <stdlib.h>

#include <openssl/crypto.h>

#include "gcp_conf_file.h"
#include "gcp_enc_int.h"
#include "gcp_log.h"
#include "gcp_store_encrypt.h"


#define GCP_ENC_INTERNAL  "Internal error occurred: "


typedef struct {
    gcp_store_t          base;
    gcp_store_t         *inner;
    gcp_encryption_t    *enc;

    char                *path;
    uint64_t             reload_ms;
    gcp_loop_t          *loop;
    gcp_loop_timer_t    *timer;
    unsigned char        bad[GCP_SHA256_LEN];   /* the last file refused */
    unsigned             has_bad:1;
} gcp_store_enc_t;


/* One operation in flight. */
typedef struct {
    gcp_store_enc_t     *s;
    gcp_store_done_pt    done;
    void                *arg;
    gcp_arena_t         *a;
    gcp_str_t            plain;     /* create, update: the value written */
    unsigned             range:1;
    unsigned             write:1;
} gcp_store_enc_call_t;


/* One watch. */
typedef struct {
    gcp_store_enc_t     *s;
    gcp_store_watch_t   *inner;
    gcp_store_event_pt   handler;
    void                *arg;
    unsigned             dispatching:1;
    unsigned             cancelled:1;
} gcp_store_enc_watch_t;


static const gcp_store_ops_t  gcp_store_enc_ops;


#define gcp_enc_store(st)  ((gcp_store_enc_t *) (st))


/*
 * Reads kvs[0..n) through the configuration into a copy of the array
 * when any value changes.  Returns GCP_OK with *out set (kvs itself when
 * nothing changed), GCP_ENOMEM, or GCP_EINTERNAL with *msg set and *bad
 * the key that failed.
 */

static int
gcp_store_enc_read_kvs(gcp_store_enc_t *s, gcp_arena_t *a, gcp_kv_t *kvs,
    size_t n, gcp_kv_t **out, const char **msg, gcp_str_t *bad)
{
    int         rc, stale;
    size_t      i;
    gcp_str_t   v;
    gcp_kv_t   *copy;

    *out = kvs;
    copy = NULL;

    for (i = 0; i < n; i++) {
        rc = gcp_encryption_read(s->enc, kvs[i].key, kvs[i].value, a, &v,
                                 &stale, msg);

        if (rc != GCP_OK) {
            *bad = kvs[i].key;
            return rc;
        }

        if (v.data == kvs[i].value.data && v.len == kvs[i].value.len
            && !stale)
        {
            continue;
        }

        if (copy == NULL) {
            copy = gcp_alloc(a, n * sizeof(gcp_kv_t));
            if (copy == NULL) {
                return GCP_ENOMEM;
            }

            memcpy(copy, kvs, n * sizeof(gcp_kv_t));
            *out = copy;
        }

        copy[i].value = v;
        copy[i].stale = stale;
    }

    return GCP_OK;
}


static void
gcp_store_enc_done(void *arg, gcp_store_result_t *res)
{
    int                    rc;
    gcp_kv_t              *kvs;
    gcp_str_t              bad;
    const char            *msg;
    gcp_store_result_t     r;
    gcp_store_enc_call_t  *c = arg;

    r = *res;

    if (r.nkvs == 0) {
        c->done(c->arg, &r);
        return;
    }

    if (c->write && r.rc == GCP_OK && c->plain.data) {
        /* the key as written holds what the caller wrote */

        kvs = gcp_alloc(c->a, sizeof(gcp_kv_t));
        if (kvs == NULL) {
            r.rc = GCP_ENOMEM;
            r.nkvs = 0;
            c->done(c->arg, &r);
            return;
        }

        kvs[0] = r.kvs[0];
        kvs[0].value = c->plain;
        r.kvs = kvs;
        r.nkvs = 1;

        c->done(c->arg, &r);
        return;
    }

    rc = gcp_store_enc_read_kvs(c->s, c->a, r.kvs, r.nkvs, &kvs, &msg, &bad);

    if (rc == GCP_OK) {
        r.kvs = kvs;
        c->done(c->arg, &r);
        return;
    }

    r.rc = rc;
    r.kvs = NULL;
    r.nkvs = 0;
    r.more = 0;

    if (rc == GCP_EINTERNAL) {
        r.message = c->range
                    ? gcp_sprintf(c->a, GCP_ENC_INTERNAL "unable to "
                                  "transform key \"%.*s\": %s",
                                  (int) bad.len, bad.data, msg)
                    : gcp_sprintf(c->a, GCP_ENC_INTERNAL "%s", msg);
    }

    c->done(c->arg, &r);
}


static void
gcp_store_enc_fail(gcp_arena_t *a, int rc, const char *msg,
    gcp_store_done_pt done, void *arg)
{
    gcp_store_result_t  r;

    memset(&r, 0, sizeof(r));

    r.rc = rc;
    r.message = msg ? gcp_sprintf(a, GCP_ENC_INTERNAL "%s", msg) : NULL;

    done(arg, &r);
}


/* Returns an operation's call, or NULL after failing the operation. */

static gcp_store_enc_call_t *
gcp_store_enc_call(gcp_store_t *st, gcp_arena_t *a, gcp_store_done_pt done,
    void *arg)
{
    gcp_store_enc_call_t  *c;

    c = gcp_calloc(a, sizeof(gcp_store_enc_call_t));
    if (c == NULL) {
        gcp_store_enc_fail(a, GCP_ENOMEM, NULL, done, arg);
        return NULL;
    }

    c->s = gcp_enc_store(st);
    c->done = done;
    c->arg = arg;
    c->a = a;

    return c;
}


static void
gcp_store_enc_get(gcp_store_t *st, gcp_str_t key, int64_t revision,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_store_enc_call_t  *c;

    c = gcp_store_enc_call(st, a, done, arg);

    if (c) {
        gcp_store_get(gcp_enc_store(st)->inner, key, revision, a,
                      gcp_store_enc_done, c);
    }
}


static void
gcp_store_enc_range(gcp_store_t *st, gcp_str_t key, gcp_str_t range_end,
    int64_t revision, int64_t limit, int count_only, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg)
{
    gcp_store_enc_call_t  *c;

    c = gcp_store_enc_call(st, a, done, arg);

    if (c) {
        c->range = 1;
        gcp_store_range(gcp_enc_store(st)->inner, key, range_end, revision,
                        limit, count_only, a, gcp_store_enc_done, c);
    }
}


/*
 * A write's call: the value transformed for the inner store.  Returns the
 * call, or NULL after failing the operation.
 */

static gcp_store_enc_call_t *
gcp_store_enc_write(gcp_store_t *st, gcp_str_t key, gcp_str_t value,
    gcp_str_t *stored, gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    int                    rc;
    const char            *msg;
    gcp_store_enc_call_t  *c;

    c = gcp_store_enc_call(st, a, done, arg);
    if (c == NULL) {
        return NULL;
    }

    rc = gcp_encryption_write(gcp_enc_store(st)->enc, key, value, a, stored,
                              &msg);
    if (rc != GCP_OK) {
        gcp_store_enc_fail(a, rc, msg, done, arg);
        return NULL;
    }

    c->write = 1;
    c->plain = value;

    if (c->plain.data == NULL) {
        c->plain.data = "";
    }

    return c;
}


static void
gcp_store_enc_create(gcp_store_t *st, gcp_str_t key, gcp_str_t value,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_str_t              stored;
    gcp_store_enc_call_t  *c;

    c = gcp_store_enc_write(st, key, value, &stored, a, done, arg);

    if (c) {
        gcp_store_create(gcp_enc_store(st)->inner, key, stored, a,
                         gcp_store_enc_done, c);
    }
}


static void
gcp_store_enc_update(gcp_store_t *st, gcp_str_t key, gcp_str_t value,
    int64_t mod_revision, gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_str_t              stored;
    gcp_store_enc_call_t  *c;

    c = gcp_store_enc_write(st, key, value, &stored, a, done, arg);

    if (c) {
        gcp_store_update(gcp_enc_store(st)->inner, key, stored, mod_revision,
                         a, gcp_store_enc_done, c);
    }
}


static void
gcp_store_enc_del(gcp_store_t *st, gcp_str_t key, int64_t mod_revision,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_store_enc_call_t  *c;

    c = gcp_store_enc_call(st, a, done, arg);

    if (c) {
        gcp_store_delete(gcp_enc_store(st)->inner, key, mod_revision, a,
                         gcp_store_enc_done, c);
    }
}


/* watches */


/*
 * The event as the caller sees it: values read into arena memory (made
 * on first need).  Returns GCP_OK, or an error with *msg set.
 */

static int
gcp_store_enc_event(gcp_store_enc_t *s, const gcp_store_event_t *ev,
    gcp_store_event_t *out, gcp_arena_t **a, const char **msg)
{
    int         rc, stale;
    gcp_str_t   v;

    *out = *ev;
    *msg = NULL;

    if (ev->type != GCP_STORE_EVENT_PUT && ev->type != GCP_STORE_EVENT_DELETE)
    {
        return GCP_OK;
    }

    if (!gcp_encryption_covers(s->enc, ev->kv.key)
        && (ev->type == GCP_STORE_EVENT_DELETE || ev->kv.value.len < 8
            || memcmp(ev->kv.value.data, GCP_ENC_PREFIX, 8) != 0)
        && (!ev->has_prev || ev->prev_kv.value.len < 8
            || memcmp(ev->prev_kv.value.data, GCP_ENC_PREFIX, 8) != 0))
    {
        return GCP_OK;
    }

    if (*a == NULL) {
        *a = gcp_arena_create(0);
        if (*a == NULL) {
            return GCP_ENOMEM;
        }
    }

    if (ev->type == GCP_STORE_EVENT_PUT) {
        rc = gcp_encryption_read(s->enc, ev->kv.key, ev->kv.value, *a, &v,
                                 &stale, msg);
        if (rc != GCP_OK) {
            return rc;
        }

        out->kv.value = v;
    }

    if (ev->has_prev) {
        rc = gcp_encryption_read(s->enc, ev->prev_kv.key, ev->prev_kv.value,
                                 *a, &v, &stale, msg);
        if (rc != GCP_OK) {
            return rc;
        }

        out->prev_kv.value = v;
    }

    return GCP_OK;
}


static int
gcp_store_enc_handler(void *arg, const gcp_store_event_t *ev)
{
    int                     rc, over;
    const char             *msg;
    gcp_arena_t            *a;
    gcp_store_event_t       e;
    gcp_store_enc_watch_t  *w = arg;

    if (w->cancelled) {
        return GCP_EINTERNAL;
    }

    a = NULL;
    over = ev->type == GCP_STORE_EVENT_ERROR;

    rc = gcp_store_enc_event(w->s, ev, &e, &a, &msg);

    if (rc != GCP_OK) {
        /* as the etcd watcher's sendError(): the watch ends with it */

        gcp_log(GCP_LOG_ERR, "watch of \"%.*s\": %s",
                (int) gcp_min(ev->kv.key.len, 512), ev->kv.key.data,
                msg ? msg : "out of memory");

        memset(&e, 0, sizeof(e));
        e.type = GCP_STORE_EVENT_ERROR;
        e.rc = rc;
        e.revision = ev->revision;
        e.message = msg;
        over = 1;
    }

    w->dispatching = 1;
    rc = w->handler(w->arg, &e);
    w->dispatching = 0;

    if (a) {
        gcp_arena_destroy(a);
    }

    if (rc != GCP_OK || over || w->cancelled) {
        /* the inner watch ends (or ended) too: ours is over */
        free(w);
        return GCP_EINTERNAL;
    }

    return GCP_OK;
}


static gcp_store_watch_t *
gcp_store_enc_watch(gcp_store_t *st, gcp_str_t key, gcp_str_t range_end,
    int64_t start_revision, gcp_store_event_pt handler, void *arg)
{
    gcp_store_enc_watch_t  *w;

    w = calloc(1, sizeof(gcp_store_enc_watch_t));
    if (w == NULL) {
        return NULL;
    }

    w->s = gcp_enc_store(st);
    w->handler = handler;
    w->arg = arg;

    w->inner = gcp_store_watch(w->s->inner, key, range_end, start_revision,
                               gcp_store_enc_handler, w);
    if (w->inner == NULL) {
        free(w);
        return NULL;
    }

    return (gcp_store_watch_t *) w;
}


static void
gcp_store_enc_watch_cancel(gcp_store_t *st, gcp_store_watch_t *sw)
{
    gcp_store_enc_watch_t  *w = (gcp_store_enc_watch_t *) sw;

    if (w->cancelled) {
        return;
    }

    gcp_store_watch_cancel(w->s->inner, w->inner);

    if (w->dispatching) {
        /* its own handler: freed when the handler returns */
        w->cancelled = 1;
        return;
    }

    free(w);
}


static int64_t
gcp_store_enc_watch_revision(gcp_store_t *st, gcp_store_watch_t *sw)
{
    gcp_store_enc_watch_t  *w = (gcp_store_enc_watch_t *) sw;

    return gcp_store_watch_revision(w->s->inner, w->inner);
}


static void
gcp_store_enc_compact(gcp_store_t *st, int64_t revision, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg)
{
    gcp_store_compact(gcp_enc_store(st)->inner, revision, a, done, arg);
}


static int64_t
gcp_store_enc_revision(gcp_store_t *st)
{
    return gcp_store_revision(gcp_enc_store(st)->inner);
}


static void
gcp_store_enc_close(gcp_store_t *st)
{
    gcp_store_encrypt_unwrap(st);
}


static const gcp_store_ops_t  gcp_store_enc_ops = {
    "encrypt",
    gcp_store_enc_get,
    gcp_store_enc_range,
    gcp_store_enc_create,
    gcp_store_enc_update,
    gcp_store_enc_del,
    gcp_store_enc_watch,
    gcp_store_enc_watch_cancel,
    gcp_store_enc_compact,
    gcp_store_enc_revision,
    gcp_store_enc_close,
    gcp_store_enc_watch_revision,
};


/* reloads */


int
gcp_store_encrypt_reload(gcp_store_t *st)
{
    char               *data, err[2048];
    size_t              len;
    unsigned char       hash[GCP_SHA256_LEN];
    gcp_store_enc_t    *s = gcp_enc_store(st);
    gcp_encryption_t   *e;

    data = gcp_conf_file_read(s->path, GCP_ENC_MAX_FILE, &len, err,
                              sizeof(err));

    if (data == NULL) {
        gcp_log(GCP_LOG_ERR, "encryption provider configuration not "
                "reloaded, the previous one stays: error while loading "
                "file: %s", err);
        return GCP_EINTERNAL;
    }

    if (gcp_sha256(data, len, hash) != GCP_OK) {
        free(data);
        return GCP_EINTERNAL;
    }

    if (memcmp(hash, gcp_encryption_hash(s->enc), GCP_SHA256_LEN) == 0) {
        free(data);
        return GCP_OK;
    }

    if (s->has_bad && memcmp(hash, s->bad, GCP_SHA256_LEN) == 0) {
        /* refused already, and logged */
        free(data);
        return GCP_EINVALID;
    }

    e = gcp_encryption_parse(s->path, data, len, err, sizeof(err));

    OPENSSL_cleanse(data, len);
    free(data);

    if (e == NULL) {
        memcpy(s->bad, hash, GCP_SHA256_LEN);
        s->has_bad = 1;

        gcp_log(GCP_LOG_ERR, "encryption provider configuration \"%s\" not "
                "reloaded, the previous one stays: %s", s->path, err);
        return GCP_EINVALID;
    }

    gcp_encryption_unref(s->enc);
    s->enc = e;
    s->has_bad = 0;

    gcp_log(GCP_LOG_NOTICE, "encryption provider configuration \"%s\" "
            "reloaded", s->path);

    return GCP_OK;
}


static void
gcp_store_enc_tick(void *arg)
{
    gcp_store_enc_t  *s = arg;

    s->timer = NULL;

    (void) gcp_store_encrypt_reload(&s->base);

    s->timer = s->loop->timer_add(s->loop, s->reload_ms,
                                       gcp_store_enc_tick, s);
}


gcp_store_t *
gcp_store_encrypt_wrap(gcp_store_t *inner, gcp_loop_t *loop,
    const gcp_store_encrypt_conf_t *conf)
{
    gcp_store_enc_t  *s;

    if (inner == NULL || conf->enc == NULL) {
        return NULL;
    }

    s = calloc(1, sizeof(gcp_store_enc_t));
    if (s == NULL) {
        return NULL;
    }

    s->base.ops = &gcp_store_enc_ops;
    s->base.loop = inner->loop;
    s->inner = inner;
    s->enc = gcp_encryption_ref(conf->enc);
    s->reload_ms = conf->reload_ms;
    s->loop = loop;

    if (conf->path) {
        s->path = strdup(conf->path);
        if (s->path == NULL) {
            gcp_store_encrypt_unwrap(&s->base);
            return NULL;
        }
    }

    if (loop && s->path && s->reload_ms) {
        s->timer = loop->timer_add(loop, s->reload_ms,
                                        gcp_store_enc_tick, s);
        if (s->timer == NULL) {
            gcp_store_encrypt_unwrap(&s->base);
            return NULL;
        }
    }

    return &s->base;
}


gcp_store_t *
gcp_store_encrypt_unwrap(gcp_store_t *st)
{
    gcp_store_t      *inner;
    gcp_store_enc_t  *s;

    if (st == NULL || st->ops != &gcp_store_enc_ops) {
        return st;
    }

    s = gcp_enc_store(st);
    inner = s->inner;

    if (s->timer) {
        s->loop->timer_del(s->loop, s->timer);
    }

    gcp_encryption_unref(s->enc);
    free(s->path);
    free(s);

    return inner;
}


gcp_encryption_t *
gcp_store_encrypt_config(gcp_store_t *st)
{
    return gcp_enc_store(st)->enc;
}
