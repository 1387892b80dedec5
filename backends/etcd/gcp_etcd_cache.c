
/*
 * The etcd backend's in-memory copy of the keyspace: reference-counted
 * items (one version of one key), an ordered map of the current items (a
 * skip list: lookups, ordered walks and updates in O(log n)), and the
 * history of the latest changes, for watches that start in the past.
 *
 * Items are immutable and shared: the map holds the current one of each
 * key, history events hold the new and the previous version, and read
 * results pin the items they point into until their arena goes.
 */

#include <stdlib.h>

#include "gcp_etcd.h"


#define GCP_ETCD_MAXLEVEL  24


struct gcp_etcd_node_s {
    gcp_etcd_item_t   *item;
    int                level;
    gcp_etcd_node_t   *next[];
};


/* ------------------------------------------------------------ items */


gcp_etcd_item_t *
gcp_etcd_item_new(gcp_str_t key, gcp_str_t value, int64_t create,
    int64_t mod, int64_t version)
{
    gcp_etcd_item_t  *it;

    it = malloc(sizeof(gcp_etcd_item_t) + key.len + value.len + 2);
    if (it == NULL) {
        return NULL;
    }

    it->refs = 1;
    it->create_revision = create;
    it->mod_revision = mod;
    it->version = version;
    it->klen = key.len;
    it->vlen = value.len;

    if (key.len) {
        memcpy(it->data, key.data, key.len);
    }

    it->data[key.len] = '\0';

    if (value.len) {
        memcpy(it->data + key.len + 1, value.data, value.len);
    }

    it->data[key.len + 1 + value.len] = '\0';

    return it;
}


void
gcp_etcd_item_ref(gcp_etcd_item_t *it)
{
    it->refs++;
}


void
gcp_etcd_item_unref(gcp_etcd_item_t *it)
{
    if (it && --it->refs == 0) {
        free(it);
    }
}


void
gcp_etcd_item_kv(gcp_etcd_item_t *it, gcp_kv_t *kv)
{
    kv->key.data = it->data;
    kv->key.len = it->klen;
    kv->value.data = it->data + it->klen + 1;
    kv->value.len = it->vlen;
    kv->create_revision = it->create_revision;
    kv->mod_revision = it->mod_revision;
    kv->version = it->version;
    kv->stale = 0;
}


static int
gcp_etcd_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int     c;
    size_t  n;

    n = gcp_min(alen, blen);
    c = n ? memcmp(a, b, n) : 0;

    if (c) {
        return c;
    }

    return alen < blen ? -1 : alen > blen;
}


int
gcp_etcd_in_range(const char *key, size_t klen, gcp_str_t start,
    gcp_str_t end)
{
    if (end.len == 0) {
        return gcp_etcd_cmp(key, klen, start.data, start.len) == 0;
    }

    if (gcp_etcd_cmp(key, klen, start.data, start.len) < 0) {
        return 0;
    }

    if (end.len == 1 && end.data[0] == '\0') {
        return 1;
    }

    return gcp_etcd_cmp(key, klen, end.data, end.len) < 0;
}


/* ------------------------------------------------------------ map */


static gcp_etcd_node_t *
gcp_etcd_node_new(gcp_etcd_item_t *it, int level)
{
    gcp_etcd_node_t  *n;

    n = calloc(1, sizeof(gcp_etcd_node_t)
                  + (size_t) level * sizeof(gcp_etcd_node_t *));
    if (n == NULL) {
        return NULL;
    }

    n->item = it;
    n->level = level;

    return n;
}


int
gcp_etcd_map_init(gcp_etcd_map_t *m)
{
    memset(m, 0, sizeof(gcp_etcd_map_t));

    m->head = gcp_etcd_node_new(NULL, GCP_ETCD_MAXLEVEL);
    if (m->head == NULL) {
        return GCP_ENOMEM;
    }

    m->level = 1;
    m->rnd = 0x9e3779b97f4a7c15ULL ^ (uint64_t) (uintptr_t) m;

    return GCP_OK;
}


void
gcp_etcd_map_free(gcp_etcd_map_t *m)
{
    gcp_etcd_node_t  *n, *next;

    if (m->head == NULL) {
        return;
    }

    for (n = m->head->next[0]; n; n = next) {
        next = n->next[0];
        gcp_etcd_item_unref(n->item);
        free(n);
    }

    free(m->head);
    m->head = NULL;
    m->n = 0;
}


static int
gcp_etcd_map_level(gcp_etcd_map_t *m)
{
    int       level;
    uint64_t  x;

    /* xorshift64: one in four nodes goes one level up */

    x = m->rnd;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    m->rnd = x;

    level = 1;

    while ((x & 3) == 0 && level < GCP_ETCD_MAXLEVEL) {
        level++;
        x >>= 2;
    }

    return level;
}


/* Fills pred[] with the last node before key at each level. */

static gcp_etcd_node_t *
gcp_etcd_map_find(gcp_etcd_map_t *m, const char *key, size_t klen,
    gcp_etcd_node_t **pred)
{
    int               i;
    gcp_etcd_node_t  *x, *y;

    x = m->head;

    for (i = m->level - 1; i >= 0; i--) {
        for ( ;; ) {
            y = x->next[i];

            if (y == NULL
                || gcp_etcd_cmp(y->item->data, y->item->klen, key, klen) >= 0)
            {
                break;
            }

            x = y;
        }

        if (pred) {
            pred[i] = x;
        }
    }

    return x->next[0];
}


gcp_etcd_node_t *
gcp_etcd_map_seek(gcp_etcd_map_t *m, const char *key, size_t klen)
{
    return gcp_etcd_map_find(m, key, klen, NULL);
}


gcp_etcd_node_t *
gcp_etcd_map_next(gcp_etcd_node_t *n)
{
    return n->next[0];
}


gcp_etcd_item_t *
gcp_etcd_node_item(gcp_etcd_node_t *n)
{
    return n->item;
}


gcp_etcd_item_t *
gcp_etcd_map_get(gcp_etcd_map_t *m, const char *key, size_t klen)
{
    gcp_etcd_node_t  *n;

    n = gcp_etcd_map_find(m, key, klen, NULL);

    if (n && gcp_etcd_cmp(n->item->data, n->item->klen, key, klen) == 0) {
        return n->item;
    }

    return NULL;
}


int
gcp_etcd_map_put(gcp_etcd_map_t *m, gcp_etcd_item_t *it,
    gcp_etcd_item_t **prev)
{
    int               i, level;
    gcp_etcd_node_t  *pred[GCP_ETCD_MAXLEVEL], *n;

    n = gcp_etcd_map_find(m, it->data, it->klen, pred);

    if (n && gcp_etcd_cmp(n->item->data, n->item->klen, it->data, it->klen)
             == 0)
    {
        *prev = n->item;
        n->item = it;
        return GCP_OK;
    }

    level = gcp_etcd_map_level(m);

    n = gcp_etcd_node_new(it, level);
    if (n == NULL) {
        return GCP_ENOMEM;
    }

    for (i = m->level; i < level; i++) {
        pred[i] = m->head;
    }

    if (level > m->level) {
        m->level = level;
    }

    for (i = 0; i < level; i++) {
        n->next[i] = pred[i]->next[i];
        pred[i]->next[i] = n;
    }

    m->n++;
    *prev = NULL;

    return GCP_OK;
}


gcp_etcd_item_t *
gcp_etcd_map_del(gcp_etcd_map_t *m, const char *key, size_t klen)
{
    int               i;
    gcp_etcd_item_t  *it;
    gcp_etcd_node_t  *pred[GCP_ETCD_MAXLEVEL], *n;

    n = gcp_etcd_map_find(m, key, klen, pred);

    if (n == NULL
        || gcp_etcd_cmp(n->item->data, n->item->klen, key, klen) != 0)
    {
        return NULL;
    }

    for (i = 0; i < n->level; i++) {
        if (pred[i]->next[i] == n) {
            pred[i]->next[i] = n->next[i];
        }
    }

    while (m->level > 1 && m->head->next[m->level - 1] == NULL) {
        m->level--;
    }

    it = n->item;
    free(n);
    m->n--;

    return it;
}


/* ------------------------------------------------------------ history */


void
gcp_etcd_hist_init(gcp_etcd_hist_t *h, size_t max_bytes, size_t max_events)
{
    memset(h, 0, sizeof(gcp_etcd_hist_t));

    h->max_bytes = max_bytes;
    h->max_events = max_events ? max_events : 1;
}


static size_t
gcp_etcd_hev_bytes(const gcp_etcd_hev_t *ev)
{
    size_t  n;

    n = sizeof(gcp_etcd_hev_t);

    if (ev->kv) {
        n += sizeof(gcp_etcd_item_t) + ev->kv->klen + ev->kv->vlen + 2;
    }

    return n;
}


static void
gcp_etcd_hist_drop(gcp_etcd_hist_t *h)
{
    gcp_etcd_hev_t  *ev;

    ev = &h->ev[h->head];

    h->base = ev->revision;
    h->bytes -= gcp_etcd_hev_bytes(ev);

    gcp_etcd_item_unref(ev->kv);
    gcp_etcd_item_unref(ev->prev);

    h->head = (h->head + 1) % h->cap;
    h->n--;
}


void
gcp_etcd_hist_reset(gcp_etcd_hist_t *h, int64_t base)
{
    while (h->n) {
        gcp_etcd_hist_drop(h);
    }

    free(h->ev);
    h->ev = NULL;
    h->cap = 0;
    h->head = 0;
    h->bytes = 0;
    h->base = base;
}


static int
gcp_etcd_hist_grow(gcp_etcd_hist_t *h)
{
    size_t           cap, i;
    gcp_etcd_hev_t  *ev;

    cap = h->cap ? h->cap * 2 : 256;

    if (cap > h->max_events) {
        cap = h->max_events;
    }

    ev = malloc(cap * sizeof(gcp_etcd_hev_t));
    if (ev == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < h->n; i++) {
        ev[i] = h->ev[(h->head + i) % h->cap];
    }

    free(h->ev);
    h->ev = ev;
    h->cap = cap;
    h->head = 0;

    return GCP_OK;
}


int
gcp_etcd_hist_push(gcp_etcd_hist_t *h, int type, int64_t revision,
    gcp_etcd_item_t *kv, gcp_etcd_item_t *prev)
{
    gcp_etcd_hev_t  *ev;

    if (h->n == h->cap && h->cap < h->max_events
        && gcp_etcd_hist_grow(h) != GCP_OK)
    {
        gcp_etcd_hist_reset(h, revision);
        return GCP_ENOMEM;
    }

    if (h->n == h->cap) {
        gcp_etcd_hist_drop(h);
    }

    ev = &h->ev[(h->head + h->n) % h->cap];
    ev->type = type;
    ev->revision = revision;
    ev->kv = kv;
    ev->prev = prev;

    if (kv) {
        gcp_etcd_item_ref(kv);
    }

    if (prev) {
        gcp_etcd_item_ref(prev);
    }

    h->n++;
    h->bytes += gcp_etcd_hev_bytes(ev);

    while (h->bytes > h->max_bytes && h->n > 1) {
        gcp_etcd_hist_drop(h);
    }

    return GCP_OK;
}


gcp_etcd_hev_t *
gcp_etcd_hist_at(gcp_etcd_hist_t *h, size_t i)
{
    return &h->ev[(h->head + i) % h->cap];
}


size_t
gcp_etcd_hist_after(gcp_etcd_hist_t *h, int64_t revision)
{
    size_t  lo, hi, mid;

    lo = 0;
    hi = h->n;

    while (lo < hi) {
        mid = lo + (hi - lo) / 2;

        if (gcp_etcd_hist_at(h, mid)->revision <= revision) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }

    return lo;
}
