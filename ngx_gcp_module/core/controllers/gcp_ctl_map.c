
/*
 * String-keyed map (see gcp_ctl_map.h): chained buckets, doubled when the
 * load passes one entry per bucket.
 */

#include <stdlib.h>

#include "gcp_ctl_map.h"


#define GCP_CTL_MAP_MIN  16


typedef struct gcp_ctl_entry_s  gcp_ctl_entry_t;

struct gcp_ctl_entry_s {
    gcp_ctl_entry_t  *next;
    uint32_t          hash;
    void             *value;
    char              key[];
};


struct gcp_ctl_map_s {
    gcp_ctl_entry_t  **buckets;
    size_t             nbuckets;
    size_t             n;
};


/* FNV-1a */
static uint32_t
gcp_ctl_map_hash(const char *key)
{
    uint32_t  h;

    for (h = 2166136261u; *key; key++) {
        h ^= (unsigned char) *key;
        h *= 16777619u;
    }

    return h;
}


gcp_ctl_map_t *
gcp_ctl_map_create(void)
{
    gcp_ctl_map_t  *m;

    m = calloc(1, sizeof(gcp_ctl_map_t));
    if (m == NULL) {
        return NULL;
    }

    m->buckets = calloc(GCP_CTL_MAP_MIN, sizeof(gcp_ctl_entry_t *));
    if (m->buckets == NULL) {
        free(m);
        return NULL;
    }

    m->nbuckets = GCP_CTL_MAP_MIN;

    return m;
}


void
gcp_ctl_map_free(gcp_ctl_map_t *m)
{
    size_t            i;
    gcp_ctl_entry_t  *e, *next;

    if (m == NULL) {
        return;
    }

    for (i = 0; i < m->nbuckets; i++) {
        for (e = m->buckets[i]; e; e = next) {
            next = e->next;
            free(e);
        }
    }

    free(m->buckets);
    free(m);
}


static gcp_ctl_entry_t **
gcp_ctl_map_slot(const gcp_ctl_map_t *m, const char *key, uint32_t hash)
{
    gcp_ctl_entry_t  **p;

    for (p = &m->buckets[hash & (m->nbuckets - 1)]; *p; p = &(*p)->next) {
        if ((*p)->hash == hash && strcmp((*p)->key, key) == 0) {
            break;
        }
    }

    return p;
}


void *
gcp_ctl_map_get(const gcp_ctl_map_t *m, const char *key)
{
    gcp_ctl_entry_t  *e;

    e = *gcp_ctl_map_slot(m, key, gcp_ctl_map_hash(key));

    return e ? e->value : NULL;
}


static void
gcp_ctl_map_grow(gcp_ctl_map_t *m)
{
    size_t             i, n;
    gcp_ctl_entry_t   *e, *next, **b;

    n = m->nbuckets * 2;

    b = calloc(n, sizeof(gcp_ctl_entry_t *));
    if (b == NULL) {
        return;                         /* longer chains, still correct */
    }

    for (i = 0; i < m->nbuckets; i++) {
        for (e = m->buckets[i]; e; e = next) {
            next = e->next;
            e->next = b[e->hash & (n - 1)];
            b[e->hash & (n - 1)] = e;
        }
    }

    free(m->buckets);
    m->buckets = b;
    m->nbuckets = n;
}


int
gcp_ctl_map_put(gcp_ctl_map_t *m, const char *key, void *value)
{
    size_t             len;
    uint32_t           hash;
    gcp_ctl_entry_t   *e, **p;

    hash = gcp_ctl_map_hash(key);
    p = gcp_ctl_map_slot(m, key, hash);

    if (*p) {
        (*p)->value = value;
        return GCP_OK;
    }

    len = strlen(key);

    e = malloc(sizeof(gcp_ctl_entry_t) + len + 1);
    if (e == NULL) {
        return GCP_ENOMEM;
    }

    e->next = NULL;
    e->hash = hash;
    e->value = value;
    memcpy(e->key, key, len + 1);

    *p = e;
    m->n++;

    if (m->n > m->nbuckets) {
        gcp_ctl_map_grow(m);
    }

    return GCP_OK;
}


void *
gcp_ctl_map_del(gcp_ctl_map_t *m, const char *key)
{
    void              *value;
    gcp_ctl_entry_t   *e, **p;

    p = gcp_ctl_map_slot(m, key, gcp_ctl_map_hash(key));
    e = *p;

    if (e == NULL) {
        return NULL;
    }

    *p = e->next;
    value = e->value;
    free(e);
    m->n--;

    return value;
}


size_t
gcp_ctl_map_size(const gcp_ctl_map_t *m)
{
    return m->n;
}


int
gcp_ctl_map_next(const gcp_ctl_map_t *m, gcp_ctl_map_iter_t *it,
    const char **key, void **value)
{
    gcp_ctl_entry_t  *e;

    e = it->next;

    while (e == NULL) {
        if (it->bucket >= m->nbuckets) {
            return 0;
        }

        e = m->buckets[it->bucket++];
    }

    it->next = e->next;
    *key = e->key;
    *value = e->value;

    return 1;
}
