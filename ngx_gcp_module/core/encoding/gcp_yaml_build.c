
/*
 * The Go values of a YAML document being built (gcp_yaml_parse_int.h): maps
 * with typed keys (Go's map[interface{}]interface{}: setMapIndex() and
 * merge() of go-yaml's decode.go), anchors, and go-yaml's count of decoded
 * nodes against aliases.
 */

#include <stdlib.h>
#include <sys/types.h>

#include "gcp_yaml_parse_int.h"
#include "gcp_yaml_parse.h"


/* decode.go: the share of aliased nodes falls from 99% to 10% between */
#define GCP_YAML_ALIAS_LOW    400000
#define GCP_YAML_ALIAS_HIGH   4000000

/* maps of more pairs than this get a hash index of their keys */
#define GCP_YAML_INDEX_MIN    8


void
gcp_yparse_nomem(gcp_yparser_t *p)
{
    p->nomem = 1;

    if (p->syntax == NULL) {
        p->syntax = "out of memory";
    }
}


/* A decoding error: the first is kept, parsing goes on. */

void
gcp_yparse_fail(gcp_yparser_t *p, const char *msg)
{
    if (p->error == NULL) {
        p->error = msg ? msg : "";

        if (msg == NULL) {
            gcp_yparse_nomem(p);
        }
    }
}


/* counting decoded nodes (decode.go, allowedAliasRatio()) */


static double
gcp_yparse_alias_ratio(size_t count)
{
    if (count <= GCP_YAML_ALIAS_LOW) {
        return 0.99;
    }

    if (count >= GCP_YAML_ALIAS_HIGH) {
        return 0.10;
    }

    return 0.99 - 0.89 * ((double) (count - GCP_YAML_ALIAS_LOW)
                          / (double) (GCP_YAML_ALIAS_HIGH
                                      - GCP_YAML_ALIAS_LOW));
}


void
gcp_yparse_count(gcp_yparser_t *p, size_t nodes, size_t aliased)
{
    if (gcp_yparse_failed(p)) {
        return;
    }

    p->count += nodes;
    p->alias_count += aliased;

    if ((p->alias_count > 100 && p->count > 1000
         && (double) p->alias_count / (double) p->count
            > gcp_yparse_alias_ratio(p->count))
        || p->alias_count > GCP_YAML_MAX_ALIAS_NODES)
    {
        gcp_yparse_fail(p, "yaml: document contains excessive aliasing");
    }
}


/* duplicate keys (strict) */


void
gcp_yparse_dup(gcp_yparser_t *p, const char *msg)
{
    const char  **d;

    if (msg == NULL) {
        gcp_yparse_nomem(p);
        return;
    }

    if (p->ndups == GCP_YAML_MAX_DUPLICATES) {
        return;
    }

    if (p->ndups == p->dcap) {
        p->dcap = p->dcap ? p->dcap * 2 : 8;
        d = gcp_alloc(p->tmp, p->dcap * sizeof(const char *));
        if (d == NULL) {
            gcp_yparse_nomem(p);
            return;
        }

        if (p->ndups) {
            memcpy(d, p->dups, p->ndups * sizeof(const char *));
        }

        p->dups = d;
    }

    p->dups[p->ndups++] = msg;
}


static void
gcp_yparse_dup_key(gcp_yparser_t *p, const gcp_gv_t *key, uint32_t line)
{
    gcp_buf_t  b;

    if (!p->strict || p->ndups == GCP_YAML_MAX_DUPLICATES) {
        return;
    }

    gcp_buf_init(&b, p->a);
    gcp_buf_printf(&b, "line %u: key ", line + 1);
    gcp_gv_format(&b, key, 1);
    gcp_buf_addstr(&b, " already set in map");

    gcp_yparse_dup(p, gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b));
}


/* anchors: name -> the latest definition */


static uint32_t
gcp_yparse_hash(const char *s, size_t n)
{
    size_t    i;
    uint32_t  h;

    h = 2166136261u;

    for (i = 0; i < n; i++) {
        h = (h ^ (unsigned char) s[i]) * 16777619u;
    }

    return h;
}


gcp_yanchor_t *
gcp_yparse_anchor_find(gcp_yparser_t *p, const char *name, size_t len,
    size_t *slot)
{
    size_t          i;
    uint32_t        k;
    gcp_yanchor_t  *an;

    if (p->aicap == 0) {
        return NULL;
    }

    i = gcp_yparse_hash(name, len) & (p->aicap - 1);

    for ( ;; ) {
        k = p->aindex[i];

        if (k == 0) {
            if (slot) {
                *slot = i;
            }

            return NULL;
        }

        an = &p->anchors[k - 1];

        if (an->len == len && memcmp(an->name, name, len) == 0) {
            if (slot) {
                *slot = i;
            }

            return an;
        }

        i = (i + 1) & (p->aicap - 1);
    }
}


static int
gcp_yparse_anchor_grow(gcp_yparser_t *p)
{
    size_t          i, j, cap;
    uint32_t       *index;
    gcp_yanchor_t  *an;

    if (p->nanchors == p->acap) {
        cap = p->acap ? p->acap * 2 : 16;
        an = gcp_alloc(p->tmp, cap * sizeof(gcp_yanchor_t));
        if (an == NULL) {
            return GCP_ENOMEM;
        }

        if (p->nanchors) {
            memcpy(an, p->anchors, p->nanchors * sizeof(gcp_yanchor_t));
        }

        p->anchors = an;
        p->acap = cap;
    }

    if ((p->nanchors + 1) * 2 <= p->aicap) {
        return GCP_OK;
    }

    cap = p->aicap ? p->aicap * 2 : 32;
    index = gcp_calloc(p->tmp, cap * sizeof(uint32_t));
    if (index == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < p->aicap; i++) {
        if (p->aindex[i] == 0) {
            continue;
        }

        an = &p->anchors[p->aindex[i] - 1];
        j = gcp_yparse_hash(an->name, an->len) & (cap - 1);

        while (index[j]) {
            j = (j + 1) & (cap - 1);
        }

        index[j] = p->aindex[i];
    }

    p->aindex = index;
    p->aicap = cap;

    return GCP_OK;
}


/* Registers an anchor, open until its node is decoded; returns it or -1. */

int
gcp_yparse_anchor(gcp_yparser_t *p, const char *name)
{
    size_t          len, slot;
    gcp_yanchor_t  *an;

    if (name == NULL) {
        return -1;
    }

    len = strlen(name);

    if (gcp_yparse_anchor_grow(p) != GCP_OK) {
        gcp_yparse_nomem(p);
        return -1;
    }

    an = &p->anchors[p->nanchors];
    memset(an, 0, sizeof(gcp_yanchor_t));

    an->name = gcp_strndup(p->tmp, name, len);
    if (an->name == NULL) {
        gcp_yparse_nomem(p);
        return -1;
    }

    an->len = len;
    an->open = 1;
    an->dups0 = p->ndups;

    /* a redefinition takes the slot: later aliases refer to it */

    (void) gcp_yparse_anchor_find(p, an->name, len, &slot);
    p->aindex[slot] = (uint32_t) ++p->nanchors;

    return (int) (p->nanchors - 1);
}


void
gcp_yparse_anchor_close(gcp_yparser_t *p, int anchor, const gcp_gv_t *v,
    size_t size)
{
    gcp_yanchor_t  *an;

    if (anchor < 0) {
        return;
    }

    an = &p->anchors[anchor];
    an->value = *v;
    an->size = size;
    an->dups1 = p->ndups;
    an->open = 0;
}


/* typed keys of maps (Go's map[interface{}]interface{} equality) */


static uint32_t
gcp_yparse_key_hash(const gcp_gv_t *k)
{
    double  f;

    switch (k->type) {

    case GCP_GV_STR:
        return gcp_yparse_hash(k->v.s, k->n) ^ GCP_GV_STR;

    case GCP_GV_FLOAT:
        f = (k->v.f == 0) ? 0 : k->v.f;         /* -0 == 0 */
        return gcp_yparse_hash((const char *) &f, sizeof(double))
               ^ GCP_GV_FLOAT;

    case GCP_GV_NIL:
        return GCP_GV_NIL;

    default:
        return gcp_yparse_hash((const char *) &k->v.u, sizeof(uint64_t))
               ^ k->type;
    }
}


static int
gcp_yparse_key_equal(const gcp_gv_t *a, const gcp_gv_t *b)
{
    if (a->type != b->type) {
        return 0;
    }

    switch (a->type) {

    case GCP_GV_NIL:
        return 1;

    case GCP_GV_STR:
        return a->n == b->n && memcmp(a->v.s, b->v.s, a->n) == 0;

    case GCP_GV_FLOAT:
        return a->v.f == b->v.f;                /* NaN: never */

    case GCP_GV_UINT:
        return a->v.u == b->v.u;

    default:
        return a->v.i == b->v.i;
    }
}


static void
gcp_yparse_index_put(gcp_yframe_t *f, size_t pair)
{
    size_t  i;

    i = gcp_yparse_key_hash(&f->items[2 * pair]) & (f->icap - 1);

    while (f->index[i]) {
        i = (i + 1) & (f->icap - 1);
    }

    f->index[i] = (uint32_t) (pair + 1);
}


/* Keeps a map's index at most half full; returns GCP_OK or GCP_ENOMEM. */

static int
gcp_yparse_index_grow(gcp_yframe_t *f)
{
    size_t     pair, pairs, cap;
    uint32_t  *index;

    pairs = f->n / 2;

    if (pairs < GCP_YAML_INDEX_MIN || (pairs + 1) * 2 <= f->icap) {
        return GCP_OK;
    }

    cap = f->icap ? f->icap * 2 : 4 * GCP_YAML_INDEX_MIN;

    while (cap < (pairs + 1) * 2) {
        cap *= 2;
    }

    index = calloc(cap, sizeof(uint32_t));
    if (index == NULL) {
        return GCP_ENOMEM;
    }

    free(f->index);
    f->index = index;
    f->icap = cap;

    for (pair = 0; pair < pairs; pair++) {
        gcp_yparse_index_put(f, pair);
    }

    return GCP_OK;
}


/* Returns the pair of f whose key equals k, or -1. */

static ssize_t
gcp_yparse_key_find(gcp_yframe_t *f, const gcp_gv_t *k)
{
    size_t  i, pair;

    if (f->index == NULL) {
        for (pair = 0; pair < f->n / 2; pair++) {
            if (gcp_yparse_key_equal(&f->items[2 * pair], k)) {
                return (ssize_t) pair;
            }
        }

        return -1;
    }

    i = gcp_yparse_key_hash(k) & (f->icap - 1);

    while (f->index[i]) {
        pair = f->index[i] - 1;

        if (gcp_yparse_key_equal(&f->items[2 * pair], k)) {
            return (ssize_t) pair;
        }

        i = (i + 1) & (f->icap - 1);
    }

    return -1;
}


/* frames */


static int
gcp_yparse_push_item(gcp_yframe_t *f, const gcp_gv_t *v)
{
    size_t     cap;
    gcp_gv_t  *items;

    if (f->n == f->cap) {
        cap = f->cap ? f->cap * 2 : 8;
        items = realloc(f->items, cap * sizeof(gcp_gv_t));
        if (items == NULL) {
            return GCP_ENOMEM;
        }

        f->items = items;
        f->cap = cap;
    }

    f->items[f->n++] = *v;

    return GCP_OK;
}


/*
 * setMapIndex(): the pair k: v into the map of f; a key already there
 * gets the new value (strict: reported as go-yaml's UnmarshalStrict
 * does, at v's line).
 */

static void
gcp_yparse_set(gcp_yparser_t *p, gcp_yframe_t *f, const gcp_gv_t *k,
    const gcp_gv_t *v)
{
    ssize_t  pair;

    pair = gcp_yparse_key_find(f, k);

    if (pair >= 0) {
        gcp_yparse_dup_key(p, k, v->line);
        f->items[2 * pair + 1] = *v;
        return;
    }

    if (gcp_yparse_push_item(f, k) != GCP_OK
        || gcp_yparse_push_item(f, v) != GCP_OK
        || gcp_yparse_index_grow(f) != GCP_OK)
    {
        gcp_yparse_nomem(p);
        return;
    }

    if (f->index) {
        gcp_yparse_index_put(f, f->n / 2 - 1);
    }
}


/* merge(): the pairs of a map (or of a sequence of maps, last first). */

static void
gcp_yparse_merge(gcp_yparser_t *p, gcp_yframe_t *f, const gcp_gv_t *v,
    int from_alias)
{
    size_t           i, j;
    const gcp_gv_t  *m;

    if (v->type == GCP_GV_SEQ && !from_alias) {
        for (i = v->n; i > 0; i--) {
            m = &v->v.items[i - 1];

            for (j = 0; j < m->n; j++) {
                gcp_yparse_set(p, f, &m->v.items[2 * j],
                               &m->v.items[2 * j + 1]);
            }
        }

        return;
    }

    if (v->type != GCP_GV_MAP) {
        gcp_yparse_fail_want_map(p);
        return;
    }

    for (j = 0; j < v->n; j++) {
        gcp_yparse_set(p, f, &v->v.items[2 * j], &v->v.items[2 * j + 1]);
    }
}


void
gcp_yparse_fail_want_map(gcp_yparser_t *p)
{
    gcp_yparse_fail(p, "yaml: map merge requires map or sequence of maps "
                    "as the value");
}


/* Where the next node goes: after a "<<" key, in a merge sequence... */

gcp_yframe_t *
gcp_yparse_top(gcp_yparser_t *p)
{
    return p->depth ? &p->frames[p->depth - 1] : NULL;
}


int
gcp_yparse_at_merge_value(gcp_yparser_t *p)
{
    gcp_yframe_t  *f = gcp_yparse_top(p);

    return f && f->type == GCP_GV_MAP && (f->n & 1) && f->key_merge;
}


/* Adds a decoded node to the collection being built (or as the root). */

void
gcp_yparse_add(gcp_yparser_t *p, const gcp_gv_t *v, int from_alias)
{
    gcp_gv_t       key;
    gcp_buf_t      b;
    gcp_yframe_t  *f;

    if (gcp_yparse_failed(p)) {
        return;
    }

    f = gcp_yparse_top(p);

    if (f == NULL) {
        p->root = *v;
        p->have_root = 1;
        return;
    }

    if (f->type == GCP_GV_SEQ) {
        if (f->merge_value && v->type != GCP_GV_MAP) {
            gcp_yparse_fail_want_map(p);
            return;
        }

        if (gcp_yparse_push_item(f, v) != GCP_OK) {
            gcp_yparse_nomem(p);
        }

        return;
    }

    if ((f->n & 1) == 0) {

        /* a key */

        if (!f->key_merge
            && (v->type == GCP_GV_MAP || v->type == GCP_GV_SEQ))
        {
            gcp_buf_init(&b, p->a);
            gcp_buf_addstr(&b, "yaml: invalid map key: ");
            gcp_gv_format(&b, v, 1);
            gcp_yparse_fail(p, gcp_buf_failed(&b) ? NULL
                                                   : gcp_buf_cstr(&b));
            return;
        }

        if (gcp_yparse_push_item(f, v) != GCP_OK) {
            gcp_yparse_nomem(p);
        }

        return;
    }

    /* a value: the pending key is taken back */

    key = f->items[--f->n];

    if (f->key_merge) {
        f->key_merge = 0;
        gcp_yparse_merge(p, f, v, from_alias);
        return;
    }

    gcp_yparse_set(p, f, &key, v);
}
