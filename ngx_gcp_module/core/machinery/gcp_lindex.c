
/*
 * The label index (see gcp_lindex.h): two hash tables, of entries (one
 * per key: its labels and its place in each posting) and of postings
 * (unsorted arrays of entries, removal by moving the last one in).
 *
 * Posting names: a type byte, the scope (a namespace, or "" for all),
 * NUL, then the label key, and for values NUL and the value:
 *   'A' scope          every key of the scope
 *   'K' scope \0 k     keys with label k
 *   'V' scope \0 k \0 v   keys with k=v
 */

#include <stdlib.h>

#include "gcp_lindex.h"


typedef struct gcp_lix_node_s  gcp_lix_node_t;
typedef struct gcp_lix_post_s  gcp_lix_post_t;
typedef struct gcp_lix_entry_s gcp_lix_entry_t;

struct gcp_lix_node_s {
    gcp_lix_node_t   *hnext;
    uint64_t          hash;
    char             *name;
    size_t            len;
};


typedef struct {
    gcp_lix_node_t  **b;
    size_t            nb;           /* a power of two */
    size_t            n;
} gcp_lix_table_t;


struct gcp_lix_post_s {
    gcp_lix_node_t    node;
    gcp_lix_entry_t **items;
    size_t            n;
    size_t            cap;
};


typedef struct {
    const char       *k;
    size_t            klen;
    const char       *v;
    size_t            vlen;
} gcp_lix_label_t;


typedef struct {
    gcp_lix_post_t   *post;
    size_t            pos;
} gcp_lix_slot_t;


struct gcp_lix_entry_s {
    gcp_lix_node_t    node;         /* name: the storage key */
    char             *value;        /* the stored bytes */
    size_t            value_len;
    int64_t           rev;
    size_t            ns_len;       /* the namespace follows the prefix */
    gcp_lix_label_t  *labels;
    size_t            nlabels;
    gcp_lix_slot_t   *slots;
    size_t            nslots;
    size_t            cost;
};


struct gcp_lindex_s {
    gcp_lix_table_t   entries;
    gcp_lix_table_t   posts;
    size_t            prefix_len;
    size_t            bytes;
    unsigned          namespaced:1;
};


#define GCP_LIX_NODE_COST  48       /* malloc overhead and hash slot */


static uint64_t
gcp_lix_hash(const char *p, size_t len)
{
    size_t    i;
    uint64_t  h = 1469598103934665603ULL;

    for (i = 0; i < len; i++) {
        h ^= (unsigned char) p[i];
        h *= 1099511628211ULL;
    }

    return h;
}


static int
gcp_lix_table_init(gcp_lix_table_t *t)
{
    t->nb = 256;
    t->n = 0;
    t->b = calloc(t->nb, sizeof(gcp_lix_node_t *));

    return t->b ? GCP_OK : GCP_ENOMEM;
}


static gcp_lix_node_t **
gcp_lix_find(gcp_lix_table_t *t, const char *name, size_t len, uint64_t hash)
{
    gcp_lix_node_t  **p;

    for (p = &t->b[hash & (t->nb - 1)]; *p; p = &(*p)->hnext) {
        if ((*p)->hash == hash && (*p)->len == len
            && memcmp((*p)->name, name, len) == 0)
        {
            break;
        }
    }

    return p;
}


static void
gcp_lix_insert(gcp_lix_table_t *t, gcp_lix_node_t *node)
{
    size_t            i, nb;
    gcp_lix_node_t  **b, *e, *next;

    node->hnext = t->b[node->hash & (t->nb - 1)];
    t->b[node->hash & (t->nb - 1)] = node;
    t->n++;

    if (t->n <= t->nb * 2) {
        return;
    }

    nb = t->nb * 2;

    b = calloc(nb, sizeof(gcp_lix_node_t *));
    if (b == NULL) {
        return;     /* longer chains, still correct */
    }

    for (i = 0; i < t->nb; i++) {
        for (e = t->b[i]; e; e = next) {
            next = e->hnext;
            e->hnext = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
        }
    }

    free(t->b);
    t->b = b;
    t->nb = nb;
}


static void
gcp_lix_unlink(gcp_lix_table_t *t, gcp_lix_node_t *node)
{
    gcp_lix_node_t  **p;

    p = gcp_lix_find(t, node->name, node->len, node->hash);

    if (*p == node) {
        *p = node->hnext;
        t->n--;
    }
}


gcp_lindex_t *
gcp_lindex_create(size_t prefix_len, int namespaced)
{
    gcp_lindex_t  *ix;

    ix = calloc(1, sizeof(gcp_lindex_t));
    if (ix == NULL) {
        return NULL;
    }

    if (gcp_lix_table_init(&ix->entries) != GCP_OK
        || gcp_lix_table_init(&ix->posts) != GCP_OK)
    {
        free(ix->entries.b);
        free(ix);
        return NULL;
    }

    ix->prefix_len = prefix_len;
    ix->namespaced = namespaced ? 1 : 0;
    ix->bytes = sizeof(gcp_lindex_t) + 2 * 256 * sizeof(void *);

    return ix;
}


/* postings */


/* Writes a posting's name into buf (at least 3 + the parts' lengths). */
static size_t
gcp_lix_name(char *buf, char type, const char *scope, size_t scope_len,
    const char *k, size_t klen, const char *v, size_t vlen)
{
    size_t  n;

    n = 0;
    buf[n++] = type;
    memcpy(buf + n, scope, scope_len);
    n += scope_len;

    if (type == 'A') {
        return n;
    }

    buf[n++] = '\0';
    memcpy(buf + n, k, klen);
    n += klen;

    if (type == 'K') {
        return n;
    }

    buf[n++] = '\0';
    memcpy(buf + n, v, vlen);

    return n + vlen;
}


static gcp_lix_post_t *
gcp_lix_post_get(gcp_lindex_t *ix, const char *name, size_t len)
{
    return (gcp_lix_post_t *) *gcp_lix_find(&ix->posts, name, len,
                                            gcp_lix_hash(name, len));
}


/* Adds e to the posting name, created if absent: its slot is *slot. */
static int
gcp_lix_post_add(gcp_lindex_t *ix, const char *name, size_t len,
    gcp_lix_entry_t *e, gcp_lix_slot_t *slot)
{
    size_t             cap;
    uint64_t           hash;
    gcp_lix_post_t    *p;
    gcp_lix_entry_t  **items;

    hash = gcp_lix_hash(name, len);
    p = (gcp_lix_post_t *) *gcp_lix_find(&ix->posts, name, len, hash);

    if (p == NULL) {
        p = calloc(1, sizeof(gcp_lix_post_t) + len);
        if (p == NULL) {
            return GCP_ENOMEM;
        }

        p->node.name = (char *) (p + 1);
        memcpy(p->node.name, name, len);
        p->node.len = len;
        p->node.hash = hash;

        gcp_lix_insert(&ix->posts, &p->node);
        ix->bytes += sizeof(gcp_lix_post_t) + len + GCP_LIX_NODE_COST;
    }

    if (p->n == p->cap) {
        cap = p->cap ? p->cap * 2 : 4;

        items = realloc(p->items, cap * sizeof(gcp_lix_entry_t *));
        if (items == NULL) {
            return GCP_ENOMEM;
        }

        ix->bytes += (cap - p->cap) * sizeof(gcp_lix_entry_t *);
        p->items = items;
        p->cap = cap;
    }

    slot->post = p;
    slot->pos = p->n;
    p->items[p->n++] = e;

    return GCP_OK;
}


static void
gcp_lix_post_remove(gcp_lindex_t *ix, gcp_lix_slot_t *slot)
{
    size_t            i;
    gcp_lix_post_t   *p = slot->post;
    gcp_lix_entry_t  *moved;

    p->n--;

    if (slot->pos != p->n) {
        moved = p->items[p->n];
        p->items[slot->pos] = moved;

        for (i = 0; i < moved->nslots; i++) {
            if (moved->slots[i].post == p) {
                moved->slots[i].pos = slot->pos;
                break;
            }
        }
    }

    if (p->n == 0) {
        gcp_lix_unlink(&ix->posts, &p->node);
        ix->bytes -= sizeof(gcp_lix_post_t) + p->node.len + GCP_LIX_NODE_COST
                     + p->cap * sizeof(gcp_lix_entry_t *);
        free(p->items);
        free(p);
    }
}


/* entries */


static void
gcp_lix_entry_free(gcp_lindex_t *ix, gcp_lix_entry_t *e)
{
    size_t  i;

    for (i = e->nslots; i > 0; i--) {
        gcp_lix_post_remove(ix, &e->slots[i - 1]);
    }

    ix->bytes -= e->cost;
    free(e);
}


/* The labels of obj's "labels" object that have string values. */
static size_t
gcp_lix_count_labels(const json_t *labels, size_t *bytes)
{
    size_t       n;
    const char  *k;
    json_t      *v;

    n = 0;
    *bytes = 0;

    if (labels == NULL || !json_is_object(labels)) {
        return 0;
    }

    json_object_foreach((json_t *) labels, k, v) {
        if (json_is_string(v)) {
            n++;
            *bytes += strlen(k) + json_string_length(v) + 2;
        }
    }

    return n;
}


/* Builds an entry: the key, its value, labels, room for its slots. */
static gcp_lix_entry_t *
gcp_lix_entry_new(gcp_lindex_t *ix, gcp_str_t key, gcp_str_t value,
    const json_t *labels, int64_t rev)
{
    char             *p, *slash;
    size_t            nlabels, lbytes, nslots, size;
    const char       *k;
    json_t           *v;
    gcp_lix_label_t  *l;
    gcp_lix_entry_t  *e;

    nlabels = gcp_lix_count_labels(labels, &lbytes);

    /* each label in K and V of its namespace and of all, and A twice */
    nslots = (2 * nlabels + 1) * (ix->namespaced ? 2 : 1);

    size = sizeof(gcp_lix_entry_t) + nlabels * sizeof(gcp_lix_label_t)
           + nslots * sizeof(gcp_lix_slot_t) + key.len + 1 + lbytes
           + value.len;

    e = calloc(1, size);
    if (e == NULL) {
        return NULL;
    }

    e->labels = (gcp_lix_label_t *) (e + 1);
    e->slots = (gcp_lix_slot_t *) (e->labels + nlabels);
    p = (char *) (e->slots + nslots);

    e->node.name = p;
    e->node.len = key.len;
    e->node.hash = gcp_lix_hash(key.data, key.len);
    memcpy(p, key.data, key.len);
    p[key.len] = '\0';
    p += key.len + 1;

    e->value = p;
    e->value_len = value.len;

    if (value.len) {
        memcpy(p, value.data, value.len);
        p += value.len;
    }

    e->rev = rev;
    e->cost = size + GCP_LIX_NODE_COST;

    if (ix->namespaced && key.len > ix->prefix_len) {
        slash = memchr(e->node.name + ix->prefix_len, '/',
                       key.len - ix->prefix_len);
        e->ns_len = slash ? (size_t) (slash - e->node.name - ix->prefix_len)
                          : 0;
    }

    if (nlabels == 0) {
        return e;
    }

    l = e->labels;

    json_object_foreach((json_t *) labels, k, v) {
        if (!json_is_string(v)) {
            continue;
        }

        l->klen = strlen(k);
        l->k = p;
        memcpy(p, k, l->klen + 1);
        p += l->klen + 1;

        l->vlen = json_string_length(v);
        l->v = p;
        memcpy(p, json_string_value(v), l->vlen);
        p[l->vlen] = '\0';
        p += l->vlen + 1;

        l++;
    }

    e->nlabels = nlabels;

    return e;
}


/* Adds e to the postings of one scope. */
static int
gcp_lix_entry_post(gcp_lindex_t *ix, gcp_lix_entry_t *e, const char *scope,
    size_t scope_len)
{
    int                     rc;
    char                   *name;
    size_t                  i, len, max;
    const gcp_lix_label_t  *l;

    max = 3 + scope_len;

    for (i = 0; i < e->nlabels; i++) {
        max = gcp_max(max, 3 + scope_len + e->labels[i].klen
                           + e->labels[i].vlen);
    }

    name = malloc(max);
    if (name == NULL) {
        return GCP_ENOMEM;
    }

    len = gcp_lix_name(name, 'A', scope, scope_len, NULL, 0, NULL, 0);
    rc = gcp_lix_post_add(ix, name, len, e, &e->slots[e->nslots]);

    if (rc == GCP_OK) {
        e->nslots++;
    }

    for (i = 0; rc == GCP_OK && i < e->nlabels; i++) {
        l = &e->labels[i];

        len = gcp_lix_name(name, 'K', scope, scope_len, l->k, l->klen,
                           NULL, 0);
        rc = gcp_lix_post_add(ix, name, len, e, &e->slots[e->nslots]);

        if (rc != GCP_OK) {
            break;
        }

        e->nslots++;

        len = gcp_lix_name(name, 'V', scope, scope_len, l->k, l->klen,
                           l->v, l->vlen);
        rc = gcp_lix_post_add(ix, name, len, e, &e->slots[e->nslots]);

        if (rc == GCP_OK) {
            e->nslots++;
        }
    }

    free(name);

    return rc;
}


int
gcp_lindex_put(gcp_lindex_t *ix, gcp_str_t key, gcp_str_t value,
    const json_t *labels, int64_t mod_revision)
{
    int               rc;
    gcp_lix_entry_t  *e;

    gcp_lindex_delete(ix, key);

    e = gcp_lix_entry_new(ix, key, value, labels, mod_revision);
    if (e == NULL) {
        return GCP_ENOMEM;
    }

    gcp_lix_insert(&ix->entries, &e->node);
    ix->bytes += e->cost;

    rc = gcp_lix_entry_post(ix, e, "", 0);

    if (rc == GCP_OK && ix->namespaced && e->ns_len) {
        rc = gcp_lix_entry_post(ix, e, e->node.name + ix->prefix_len,
                                e->ns_len);
    }

    if (rc != GCP_OK) {
        gcp_lix_unlink(&ix->entries, &e->node);
        gcp_lix_entry_free(ix, e);
    }

    return rc;
}


void
gcp_lindex_delete(gcp_lindex_t *ix, gcp_str_t key)
{
    gcp_lix_node_t  **p;
    gcp_lix_entry_t  *e;

    p = gcp_lix_find(&ix->entries, key.data, key.len,
                     gcp_lix_hash(key.data, key.len));

    if (*p == NULL) {
        return;
    }

    e = (gcp_lix_entry_t *) *p;
    *p = e->node.hnext;
    ix->entries.n--;

    gcp_lix_entry_free(ix, e);
}


void
gcp_lindex_free(gcp_lindex_t *ix)
{
    size_t           i;
    gcp_lix_node_t  *n, *next;
    gcp_lix_post_t  *p;

    if (ix == NULL) {
        return;
    }

    for (i = 0; i < ix->entries.nb; i++) {
        for (n = ix->entries.b[i]; n; n = next) {
            next = n->hnext;
            free(n);
        }
    }

    for (i = 0; i < ix->posts.nb; i++) {
        for (n = ix->posts.b[i]; n; n = next) {
            next = n->hnext;
            p = (gcp_lix_post_t *) n;
            free(p->items);
            free(p);
        }
    }

    free(ix->entries.b);
    free(ix->posts.b);
    free(ix);
}


/* queries */


static const gcp_lix_label_t *
gcp_lix_label(const gcp_lix_entry_t *e, const char *k)
{
    size_t  i, klen;

    klen = strlen(k);

    for (i = 0; i < e->nlabels; i++) {
        if (e->labels[i].klen == klen && memcmp(e->labels[i].k, k, klen) == 0)
        {
            return &e->labels[i];
        }
    }

    return NULL;
}


static int
gcp_lix_matches(const gcp_lix_entry_t *e, const gcp_label_selector_t *sel)
{
    size_t                  i;
    const gcp_lix_label_t  *l;

    if (sel == NULL) {
        return 1;
    }

    if (sel->nothing) {
        return 0;
    }

    for (i = 0; i < sel->n; i++) {
        l = gcp_lix_label(e, sel->reqs[i].key);

        if (!gcp_label_req_matches(&sel->reqs[i], l ? l->v : NULL,
                                   l ? l->vlen : 0))
        {
            return 0;
        }
    }

    return 1;
}


static int
gcp_lix_key_from(const gcp_lix_entry_t *e, gcp_str_t from)
{
    int  c;

    if (from.len == 0) {
        return 1;
    }

    c = memcmp(e->node.name, from.data, gcp_min(e->node.len, from.len));

    return c > 0 || (c == 0 && e->node.len >= from.len);
}


static int
gcp_lix_hit_cmp(const void *a, const void *b)
{
    int                      c;
    const gcp_lindex_hit_t  *x = a, *y = b;

    c = memcmp(x->key.data, y->key.data, gcp_min(x->key.len, y->key.len));

    if (c) {
        return c;
    }

    return x->key.len < y->key.len ? -1 : x->key.len > y->key.len;
}


/*
 * The postings to read for requirement r of scope: *nposts of them in
 * posts (room for r's values), and the keys they hold.  Returns 0 when r
 * names none (it only excludes).
 */
static int
gcp_lix_req_posts(gcp_lindex_t *ix, const char *scope,
    const gcp_label_req_t *r, gcp_lix_post_t **posts, size_t *nposts,
    size_t *keys)
{
    char            *name;
    size_t           i, len, slen, klen;
    gcp_lix_post_t  *p;

    *nposts = 0;
    *keys = 0;

    slen = strlen(scope);
    klen = strlen(r->key);

    switch (r->op) {

    case GCP_SEL_EQUALS:
    case GCP_SEL_DOUBLE_EQUALS:
    case GCP_SEL_IN:
        for (i = 0; i < r->nvalues; i++) {
            name = malloc(3 + slen + klen + strlen(r->values[i]));
            if (name == NULL) {
                return 0;
            }

            len = gcp_lix_name(name, 'V', scope, slen, r->key, klen,
                               r->values[i], strlen(r->values[i]));
            p = gcp_lix_post_get(ix, name, len);
            free(name);

            if (p) {
                posts[(*nposts)++] = p;
                *keys += p->n;
            }
        }

        return 1;

    case GCP_SEL_EXISTS:
    case GCP_SEL_GT:
    case GCP_SEL_LT:
        name = malloc(2 + slen + klen);
        if (name == NULL) {
            return 0;
        }

        len = gcp_lix_name(name, 'K', scope, slen, r->key, klen, NULL, 0);
        p = gcp_lix_post_get(ix, name, len);
        free(name);

        if (p) {
            posts[(*nposts)++] = p;
            *keys = p->n;
        }

        return 1;

    default:
        return 0;
    }
}


int
gcp_lindex_query(gcp_lindex_t *ix, gcp_arena_t *a, const char *ns,
    const gcp_label_selector_t *sel, gcp_str_t from, gcp_lindex_hit_t **hits,
    size_t *n)
{
    char               *name;
    size_t              i, j, best, keys, np, nbest, max, len;
    gcp_lix_post_t    **posts, **bposts, *all;
    gcp_lix_entry_t    *e;
    gcp_lindex_hit_t   *out;

    *hits = NULL;
    *n = 0;

    if (sel && sel->nothing) {
        return GCP_OK;
    }

    max = 1;

    for (i = 0; sel && i < sel->n; i++) {
        max = gcp_max(max, sel->reqs[i].nvalues);
    }

    posts = gcp_alloc(a, max * sizeof(gcp_lix_post_t *));
    bposts = gcp_alloc(a, max * sizeof(gcp_lix_post_t *));

    if (posts == NULL || bposts == NULL) {
        return GCP_ENOMEM;
    }

    best = (size_t) -1;
    nbest = 0;

    for (i = 0; sel && i < sel->n; i++) {
        if (gcp_lix_req_posts(ix, ns, &sel->reqs[i], posts, &np, &keys)
            && keys < best)
        {
            best = keys;
            nbest = np;
            memcpy(bposts, posts, np * sizeof(gcp_lix_post_t *));
        }
    }

    if (best == (size_t) -1) {
        name = gcp_alloc(a, 1 + strlen(ns));
        if (name == NULL) {
            return GCP_ENOMEM;
        }

        len = gcp_lix_name(name, 'A', ns, strlen(ns), NULL, 0, NULL, 0);
        all = gcp_lix_post_get(ix, name, len);

        if (all == NULL) {
            return GCP_OK;
        }

        bposts[0] = all;
        nbest = 1;
        best = all->n;
    }

    if (best == 0) {
        return GCP_OK;
    }

    out = gcp_alloc(a, best * sizeof(gcp_lindex_hit_t));
    if (out == NULL) {
        return GCP_ENOMEM;
    }

    *hits = out;

    /* the values of one "in" are distinct: no key is in two postings */

    for (i = 0; i < nbest; i++) {
        for (j = 0; j < bposts[i]->n; j++) {
            e = bposts[i]->items[j];

            if (!gcp_lix_key_from(e, from) || !gcp_lix_matches(e, sel)) {
                continue;
            }

            out[*n].key.data = gcp_alloc(a, e->node.len + 1);
            if (out[*n].key.data == NULL) {
                return GCP_ENOMEM;
            }

            memcpy((char *) out[*n].key.data, e->node.name, e->node.len + 1);
            out[*n].key.len = e->node.len;
            out[*n].value.data = e->value;
            out[*n].value.len = e->value_len;
            out[*n].mod_revision = e->rev;
            (*n)++;
        }
    }

    qsort(out, *n, sizeof(gcp_lindex_hit_t), gcp_lix_hit_cmp);

    return GCP_OK;
}


int
gcp_lindex_selector(gcp_arena_t *a, const gcp_label_selector_t *labels,
    const gcp_field_selector_t *fields,
    int (*indexed)(void *ctx, const char *field), void *ctx,
    gcp_label_selector_t **out)
{
    char                    *key;
    size_t                   i, nl, nf;
    gcp_label_req_t         *r;
    gcp_label_selector_t    *sel;
    const gcp_field_term_t  *t;

    nl = labels ? labels->n : 0;
    nf = fields ? fields->n : 0;

    sel = gcp_calloc(a, sizeof(gcp_label_selector_t));
    if (sel == NULL) {
        return GCP_ENOMEM;
    }

    sel->nothing = labels ? labels->nothing : 0;
    sel->reqs = gcp_alloc(a, (nl + nf + 1) * sizeof(gcp_label_req_t));

    if (sel->reqs == NULL) {
        return GCP_ENOMEM;
    }

    if (nl) {
        memcpy(sel->reqs, labels->reqs, nl * sizeof(gcp_label_req_t));
    }

    sel->n = nl;

    for (i = 0; i < nf; i++) {
        t = &fields->terms[i];

        if (strlen(t->value) != t->value_len || !indexed(ctx, t->field)) {
            return GCP_EUNAVAILABLE;
        }

        key = gcp_alloc(a, strlen(t->field) + 2);
        r = &sel->reqs[sel->n];
        r->values = gcp_alloc(a, sizeof(const char *));

        if (key == NULL || r->values == NULL) {
            return GCP_ENOMEM;
        }

        key[0] = GCP_LINDEX_FIELD;
        memcpy(key + 1, t->field, strlen(t->field) + 1);

        r->key = key;
        r->op = t->not_equal ? GCP_SEL_NOT_EQUALS : GCP_SEL_EQUALS;
        r->nvalues = 1;
        r->values[0] = t->value;

        sel->n++;
    }

    *out = sel;

    return GCP_OK;
}


int
gcp_lindex_any_from(gcp_lindex_t *ix, const char *ns, gcp_str_t from)
{
    char             buf[256], *name;
    size_t           i, len;
    gcp_lix_post_t  *all;

    name = strlen(ns) + 1 <= sizeof(buf) ? buf : malloc(strlen(ns) + 1);
    if (name == NULL) {
        return 1;   /* say there may be: only a continue token more */
    }

    len = gcp_lix_name(name, 'A', ns, strlen(ns), NULL, 0, NULL, 0);
    all = gcp_lix_post_get(ix, name, len);

    if (name != buf) {
        free(name);
    }

    for (i = 0; all && i < all->n; i++) {
        if (gcp_lix_key_from(all->items[i], from)) {
            return 1;
        }
    }

    return 0;
}


size_t
gcp_lindex_count(const gcp_lindex_t *ix)
{
    return ix->entries.n;
}


size_t
gcp_lindex_bytes(const gcp_lindex_t *ix)
{
    return ix->bytes;
}
