
/*
 * A store prefix mirrored in memory (see gcp_mirror.h): entries sorted by
 * key, each key and value malloc'd.
 */

#include <stdlib.h>

#include "gcp_mirror.h"


#define GCP_MIRROR_RETRY_MS  1000


struct gcp_mirror_s {
    gcp_store_t            *store;
    gcp_loop_t             *loop;
    char                   *prefix;
    size_t                  prefix_len;
    gcp_mirror_changed_pt   changed;
    void                   *arg;

    gcp_kv_t               *kvs;
    size_t                  n;
    size_t                  cap;
    int64_t                 revision;

    gcp_store_watch_t      *watch;
    gcp_loop_timer_t       *retry;
    gcp_arena_t            *list_arena;

    unsigned                ready:1;
    unsigned                listing:1;
    unsigned                freed:1;    /* free when the list completes */
};


static void gcp_mirror_load(gcp_mirror_t *m);


/* the process's mirrors never loaded yet (gcp_mirrors_loading()) */
static size_t  gcp_mirrors_cold;


static void
gcp_mirror_kv_free(gcp_kv_t *kv)
{
    free((char *) kv->key.data);
    free((char *) kv->value.data);
}


static void
gcp_mirror_clear(gcp_mirror_t *m)
{
    size_t  i;

    for (i = 0; i < m->n; i++) {
        gcp_mirror_kv_free(&m->kvs[i]);
    }

    m->n = 0;
}


static char *
gcp_mirror_dup(gcp_str_t s)
{
    char  *p;

    p = malloc(s.len + 1);

    if (p) {
        memcpy(p, s.data, s.len);
        p[s.len] = '\0';
    }

    return p;
}


/* The index of key, or where it goes (*found 0). */
static size_t
gcp_mirror_find(const gcp_mirror_t *m, gcp_str_t key, int *found)
{
    int     c;
    size_t  lo, hi, mid, len;

    lo = 0;
    hi = m->n;
    *found = 0;

    while (lo < hi) {
        mid = lo + (hi - lo) / 2;
        len = gcp_min(m->kvs[mid].key.len, key.len);
        c = memcmp(m->kvs[mid].key.data, key.data, len);

        if (c == 0) {
            c = m->kvs[mid].key.len < key.len ? -1
                : m->kvs[mid].key.len > key.len;
        }

        if (c == 0) {
            *found = 1;
            return mid;
        }

        if (c < 0) {
            lo = mid + 1;

        } else {
            hi = mid;
        }
    }

    return lo;
}


/* Puts (value.data set) or deletes key.  Returns GCP_OK or GCP_ENOMEM. */
static int
gcp_mirror_apply(gcp_mirror_t *m, gcp_str_t key, gcp_str_t value,
    int64_t rev)
{
    int        found;
    size_t     i, cap;
    gcp_kv_t   kv, *kvs;

    i = gcp_mirror_find(m, key, &found);

    if (value.data == NULL) {
        if (found) {
            gcp_mirror_kv_free(&m->kvs[i]);
            memmove(&m->kvs[i], &m->kvs[i + 1],
                    (m->n - i - 1) * sizeof(gcp_kv_t));
            m->n--;
        }

        return GCP_OK;
    }

    memset(&kv, 0, sizeof(kv));
    kv.key.data = gcp_mirror_dup(key);
    kv.key.len = key.len;
    kv.value.data = gcp_mirror_dup(value);
    kv.value.len = value.len;
    kv.mod_revision = rev;

    if (kv.key.data == NULL || kv.value.data == NULL) {
        gcp_mirror_kv_free(&kv);
        return GCP_ENOMEM;
    }

    if (found) {
        gcp_mirror_kv_free(&m->kvs[i]);
        m->kvs[i] = kv;
        return GCP_OK;
    }

    if (m->n == m->cap) {
        cap = m->cap ? m->cap * 2 : 32;

        kvs = realloc(m->kvs, cap * sizeof(gcp_kv_t));
        if (kvs == NULL) {
            gcp_mirror_kv_free(&kv);
            return GCP_ENOMEM;
        }

        m->kvs = kvs;
        m->cap = cap;
    }

    memmove(&m->kvs[i + 1], &m->kvs[i], (m->n - i) * sizeof(gcp_kv_t));
    m->kvs[i] = kv;
    m->n++;

    return GCP_OK;
}


static void
gcp_mirror_retry(void *arg)
{
    gcp_mirror_t  *m = arg;

    m->retry = NULL;
    gcp_mirror_load(m);
}


static void
gcp_mirror_later(gcp_mirror_t *m)
{
    if (m->retry == NULL) {
        m->retry = m->loop->timer_add(m->loop, GCP_MIRROR_RETRY_MS,
                                      gcp_mirror_retry, m);
    }
}


static int
gcp_mirror_event(void *arg, const gcp_store_event_t *ev)
{
    gcp_str_t      none = gcp_null_string;
    gcp_mirror_t  *m = arg;

    switch (ev->type) {

    case GCP_STORE_EVENT_PUT:
    case GCP_STORE_EVENT_DELETE:
        m->revision = ev->revision;

        if (gcp_mirror_apply(m, ev->kv.key,
                             ev->type == GCP_STORE_EVENT_PUT ? ev->kv.value
                                                             : none,
                             ev->revision)
            != GCP_OK)
        {
            /* out of memory: start over from a new list */
            m->watch = NULL;
            gcp_mirror_later(m);
            return GCP_ENOMEM;
        }

        m->changed(m, m->arg);
        return GCP_OK;

    case GCP_STORE_EVENT_PROGRESS:
        m->revision = gcp_max(m->revision, ev->revision);
        return GCP_OK;

    default:
        /* the watch is over (compacted, backend gone): list again */
        m->watch = NULL;
        gcp_mirror_later(m);
        return GCP_OK;
    }
}


static void
gcp_mirror_listed(void *arg, gcp_store_result_t *res)
{
    size_t         i;
    gcp_str_t      prefix;
    gcp_mirror_t  *m = arg;

    m->listing = 0;

    if (m->freed) {
        gcp_arena_destroy(m->list_arena);
        free(m);
        return;
    }

    if (res->rc == GCP_OK) {
        gcp_mirror_clear(m);

        for (i = 0; i < res->nkvs; i++) {
            if (gcp_mirror_apply(m, res->kvs[i].key, res->kvs[i].value,
                                 res->kvs[i].mod_revision)
                != GCP_OK)
            {
                res->rc = GCP_ENOMEM;
                break;
            }
        }
    }

    if (res->rc != GCP_OK) {
        gcp_arena_destroy(m->list_arena);
        m->list_arena = NULL;
        gcp_mirror_later(m);
        return;
    }

    m->revision = res->revision;

    if (!m->ready) {
        m->ready = 1;
        gcp_mirrors_cold--;
    }

    prefix.data = m->prefix;
    prefix.len = m->prefix_len;

    m->watch = gcp_store_watch(m->store, prefix,
                               gcp_store_prefix_end(m->list_arena, prefix),
                               res->revision, gcp_mirror_event, m);

    gcp_arena_destroy(m->list_arena);
    m->list_arena = NULL;

    if (m->watch == NULL) {
        gcp_mirror_later(m);
    }

    m->changed(m, m->arg);
}


static void
gcp_mirror_load(gcp_mirror_t *m)
{
    gcp_str_t  prefix;

    if (m->listing) {
        return;
    }

    if (m->watch) {
        gcp_store_watch_cancel(m->store, m->watch);
        m->watch = NULL;
    }

    m->list_arena = gcp_arena_create(0);
    if (m->list_arena == NULL) {
        gcp_mirror_later(m);
        return;
    }

    prefix.data = m->prefix;
    prefix.len = m->prefix_len;

    m->listing = 1;

    gcp_store_range(m->store, prefix,
                    gcp_store_prefix_end(m->list_arena, prefix), 0, 0, 0,
                    m->list_arena, gcp_mirror_listed, m);
}


gcp_mirror_t *
gcp_mirror_create(gcp_store_t *store, gcp_loop_t *loop, const char *prefix,
    gcp_mirror_changed_pt changed, void *arg)
{
    gcp_mirror_t  *m;

    m = calloc(1, sizeof(gcp_mirror_t));
    if (m == NULL) {
        return NULL;
    }

    m->prefix = strdup(prefix);
    if (m->prefix == NULL) {
        free(m);
        return NULL;
    }

    m->store = store;
    m->loop = loop;
    m->prefix_len = strlen(prefix);
    m->changed = changed;
    m->arg = arg;

    gcp_mirrors_cold++;

    gcp_mirror_load(m);

    return m;
}


void
gcp_mirror_free(gcp_mirror_t *m)
{
    if (m == NULL) {
        return;
    }

    if (m->watch) {
        gcp_store_watch_cancel(m->store, m->watch);
    }

    if (m->retry) {
        m->loop->timer_del(m->loop, m->retry);
    }

    if (!m->ready) {
        gcp_mirrors_cold--;
    }

    gcp_mirror_clear(m);
    free(m->kvs);
    free(m->prefix);

    if (m->listing) {
        /* the list in flight still writes into list_arena */
        m->freed = 1;
        return;
    }

    free(m);
}


int
gcp_mirror_ready(const gcp_mirror_t *m)
{
    return m->ready;
}


size_t
gcp_mirrors_loading(void)
{
    return gcp_mirrors_cold;
}


int64_t
gcp_mirror_revision(const gcp_mirror_t *m)
{
    return m->revision;
}


size_t
gcp_mirror_entries(const gcp_mirror_t *m, const gcp_kv_t **kvs)
{
    *kvs = m->kvs;

    return m->n;
}
