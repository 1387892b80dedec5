
/*
 * The decoded-object cache (see gcp_objcache.h): an open hash table of
 * entries on a doubly linked LRU list.
 */

#include <stdlib.h>

#include "gcp_objcache.h"


typedef struct gcp_oc_entry_s  gcp_oc_entry_t;

struct gcp_oc_entry_s {
    gcp_oc_entry_t  *hnext;         /* hash chain */
    gcp_oc_entry_t  *prev;          /* LRU: prev is more recent */
    gcp_oc_entry_t  *next;
    uint64_t         hash;
    int64_t          rev;
    json_t          *obj;
    size_t           cost;
    size_t           key_len;
    char             key[1];
};


struct gcp_objcache_s {
    gcp_oc_entry_t  **buckets;
    size_t            nbuckets;     /* a power of two */
    size_t            entries;
    size_t            bytes;
    size_t            max_bytes;
    gcp_oc_entry_t   *head;         /* most recently used */
    gcp_oc_entry_t   *tail;
    uint64_t          hits;
    uint64_t          misses;
};


static uint64_t
gcp_oc_hash(gcp_str_t key)
{
    size_t    i;
    uint64_t  h = 1469598103934665603ULL;

    for (i = 0; i < key.len; i++) {
        h ^= (unsigned char) key.data[i];
        h *= 1099511628211ULL;
    }

    return h;
}


gcp_objcache_t *
gcp_objcache_create(size_t max_bytes)
{
    gcp_objcache_t  *c;

    c = calloc(1, sizeof(gcp_objcache_t));
    if (c == NULL) {
        return NULL;
    }

    c->nbuckets = 1024;
    c->buckets = calloc(c->nbuckets, sizeof(gcp_oc_entry_t *));

    if (c->buckets == NULL) {
        free(c);
        return NULL;
    }

    c->max_bytes = max_bytes;

    return c;
}


static void
gcp_oc_unlink_lru(gcp_objcache_t *c, gcp_oc_entry_t *e)
{
    if (e->prev) {
        e->prev->next = e->next;
    } else {
        c->head = e->next;
    }

    if (e->next) {
        e->next->prev = e->prev;
    } else {
        c->tail = e->prev;
    }

    e->prev = NULL;
    e->next = NULL;
}


static void
gcp_oc_push_front(gcp_objcache_t *c, gcp_oc_entry_t *e)
{
    e->prev = NULL;
    e->next = c->head;

    if (c->head) {
        c->head->prev = e;
    }

    c->head = e;

    if (c->tail == NULL) {
        c->tail = e;
    }
}


static gcp_oc_entry_t **
gcp_oc_slot(gcp_objcache_t *c, gcp_str_t key, uint64_t hash)
{
    gcp_oc_entry_t  **p;

    for (p = &c->buckets[hash & (c->nbuckets - 1)]; *p; p = &(*p)->hnext) {
        if ((*p)->hash == hash && (*p)->key_len == key.len
            && memcmp((*p)->key, key.data, key.len) == 0)
        {
            break;
        }
    }

    return p;
}


static void
gcp_oc_remove(gcp_objcache_t *c, gcp_oc_entry_t **slot)
{
    gcp_oc_entry_t  *e = *slot;

    *slot = e->hnext;
    gcp_oc_unlink_lru(c, e);

    c->entries--;
    c->bytes -= e->cost;

    json_decref(e->obj);
    free(e);
}


static void
gcp_oc_grow(gcp_objcache_t *c)
{
    size_t            i, n;
    gcp_oc_entry_t  **b, *e, *next;

    n = c->nbuckets * 2;

    b = calloc(n, sizeof(gcp_oc_entry_t *));
    if (b == NULL) {
        return;
    }

    for (i = 0; i < c->nbuckets; i++) {
        for (e = c->buckets[i]; e; e = next) {
            next = e->hnext;
            e->hnext = b[e->hash & (n - 1)];
            b[e->hash & (n - 1)] = e;
        }
    }

    free(c->buckets);
    c->buckets = b;
    c->nbuckets = n;
}


void
gcp_objcache_free(gcp_objcache_t *c)
{
    gcp_oc_entry_t  *e, *next;

    if (c == NULL) {
        return;
    }

    for (e = c->head; e; e = next) {
        next = e->next;
        json_decref(e->obj);
        free(e);
    }

    free(c->buckets);
    free(c);
}


json_t *
gcp_objcache_get(gcp_objcache_t *c, gcp_str_t key, int64_t rev)
{
    gcp_oc_entry_t  *e;

    e = *gcp_oc_slot(c, key, gcp_oc_hash(key));

    if (e == NULL || e->rev != rev) {
        c->misses++;
        return NULL;
    }

    c->hits++;

    gcp_oc_unlink_lru(c, e);
    gcp_oc_push_front(c, e);

    return json_incref(e->obj);
}


void
gcp_objcache_put(gcp_objcache_t *c, gcp_str_t key, int64_t rev, json_t *obj,
    size_t cost)
{
    uint64_t          hash;
    gcp_oc_entry_t  **slot, *e;

    if (cost > c->max_bytes / 4) {
        return;
    }

    hash = gcp_oc_hash(key);
    slot = gcp_oc_slot(c, key, hash);

    if (*slot) {
        if ((*slot)->rev >= rev) {
            return;
        }

        gcp_oc_remove(c, slot);
        slot = gcp_oc_slot(c, key, hash);
    }

    e = malloc(sizeof(gcp_oc_entry_t) + key.len);
    if (e == NULL) {
        return;
    }

    memcpy(e->key, key.data, key.len);
    e->key_len = key.len;
    e->hash = hash;
    e->rev = rev;
    e->obj = json_incref(obj);
    e->cost = cost + sizeof(gcp_oc_entry_t) + key.len;
    e->hnext = NULL;

    *slot = e;
    gcp_oc_push_front(c, e);

    c->entries++;
    c->bytes += e->cost;

    while (c->bytes > c->max_bytes && c->tail && c->tail != e) {
        gcp_oc_remove(c, gcp_oc_slot(c, (gcp_str_t) { c->tail->key,
                                                      c->tail->key_len },
                                     c->tail->hash));
    }

    if (c->entries > c->nbuckets * 2) {
        gcp_oc_grow(c);
    }
}


void
gcp_objcache_forget(gcp_objcache_t *c, gcp_str_t key)
{
    gcp_oc_entry_t  **slot;

    slot = gcp_oc_slot(c, key, gcp_oc_hash(key));

    if (*slot) {
        gcp_oc_remove(c, slot);
    }
}


void
gcp_objcache_stats(const gcp_objcache_t *c, size_t *entries, size_t *bytes,
    uint64_t *hits, uint64_t *misses)
{
    *entries = c->entries;
    *bytes = c->bytes;
    *hits = c->hits;
    *misses = c->misses;
}
