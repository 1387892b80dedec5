
/*
 * The per-worker view of the APIServices and of the documents fetched from
 * remote servers (see gcp_aggregator.h), mirrored from the store: the
 * APIServices under GCP_APISVC_OBJECTS, the documents under
 * GCP_APISVC_DOCUMENTS (one key per APIService: {"discovery": the
 * APIResourceList of its group-version, "openapiV3": its OpenAPI v3
 * document, "openapiV3Hash", "openapiV2": the server's OpenAPI v2
 * document, "fetched": milliseconds since the epoch}).  Both are kept in
 * arrays sorted by name; each APIService points to its documents.
 */

#include <stdlib.h>

#include "gcp_aggregator.h"
#include "gcp_base64.h"
#include "gcp_json.h"
#include "gcp_mirror.h"
#include "gcp_object.h"


/* Both kinds of element start with their arena and store revision. */
typedef struct {
    gcp_arena_t     *arena;
    int64_t          rev;
} gcp_agg_elt_t;


typedef struct {
    gcp_arena_t     *arena;
    int64_t          rev;
    gcp_apisvc_t     svc;
} gcp_agg_entry_t;


typedef struct {
    gcp_arena_t     *arena;
    int64_t          rev;
    const char      *name;
    json_t          *doc;
} gcp_agg_doc_t;


/* Entries of one kind, sorted by name. */
typedef struct {
    void           **v;
    size_t           n;
    size_t           cap;
} gcp_agg_set_t;


struct gcp_agg_s {
    gcp_mirror_t          *mirror;
    gcp_agg_set_t          services;    /* gcp_agg_entry_t */
    gcp_agg_set_t          docs;        /* gcp_agg_doc_t */
    const gcp_apisvc_t   **list;        /* the services' svc, by name */
    size_t                 nlist;       /* 0 until changed() rebuilt it */
    uint64_t               generation;
};


/* The name of an element of either set. */
static const char *
gcp_agg_name(const gcp_agg_set_t *s, size_t i, int docs)
{
    return docs ? ((gcp_agg_doc_t *) s->v[i])->name
                : ((gcp_agg_entry_t *) s->v[i])->svc.name;
}


static int
gcp_agg_entry_cmp(const void *name, const void *e)
{
    return strcmp(name, (*(gcp_agg_entry_t * const *) e)->svc.name);
}


static int
gcp_agg_doc_cmp(const void *name, const void *d)
{
    return strcmp(name, (*(gcp_agg_doc_t * const *) d)->name);
}


/* Returns the element of s named name, or NULL. */
static void *
gcp_agg_set_get(const gcp_agg_set_t *s, int docs, const char *name)
{
    void  **e;

    if (s->n == 0) {
        return NULL;
    }

    e = bsearch(name, s->v, s->n, sizeof(void *),
                docs ? gcp_agg_doc_cmp : gcp_agg_entry_cmp);

    return e ? *e : NULL;
}


/* Appends e (its name after the last one's) to s. */
static int
gcp_agg_set_append(gcp_agg_set_t *s, void *e)
{
    size_t   cap;
    void   **v;

    if (s->n == s->cap) {
        cap = s->cap ? s->cap * 2 : 32;

        v = realloc(s->v, cap * sizeof(void *));
        if (v == NULL) {
            return GCP_ENOMEM;
        }

        s->v = v;
        s->cap = cap;
    }

    s->v[s->n++] = e;

    return GCP_OK;
}


static void
gcp_agg_set_clear(gcp_agg_set_t *s)
{
    size_t  i;

    for (i = 0; i < s->n; i++) {
        gcp_arena_destroy(*(gcp_arena_t **) s->v[i]);
    }

    s->n = 0;
}


/* parsing */


static const char *
gcp_agg_str(const json_t *obj, const char *key)
{
    const char  *s;

    s = json_string_value(json_object_get(obj, key));

    return s ? s : "";
}


static void
gcp_agg_parse_remote(gcp_apisvc_t *svc, gcp_arena_t *a, const json_t *obj)
{
    gcp_str_t      ca;
    const char    *msg, *status, *b64;
    const json_t  *spec, *ref, *c;

    spec = json_object_get(obj, "spec");
    ref = json_object_get(spec, "service");

    svc->remote = 1;
    svc->svc_namespace = gcp_agg_str(ref, "namespace");
    svc->svc_name = gcp_agg_str(ref, "name");
    svc->svc_port = json_is_integer(json_object_get(ref, "port"))
                    ? (int) json_integer_value(json_object_get(ref, "port"))
                    : 443;
    svc->insecure = json_is_true(json_object_get(spec,
                                                 "insecureSkipTLSVerify"));

    b64 = json_string_value(json_object_get(spec, "caBundle"));

    if (b64 && gcp_base64_decode(a, b64, strlen(b64), &ca, &msg) == GCP_OK) {
        svc->ca = ca;
    }

    c = gcp_apiservice_available(obj);
    status = gcp_agg_str(c, "status");

    svc->available = strcmp(status, "True") == 0;
    svc->reason = gcp_agg_str(c, "reason");
    svc->message = gcp_agg_str(c, "message");
}


static gcp_agg_entry_t *
gcp_agg_entry_new(gcp_str_t value, int64_t rev)
{
    json_t           *obj;
    gcp_arena_t      *a;
    const json_t     *spec;
    gcp_agg_entry_t  *e;

    a = gcp_arena_create(1024);
    if (a == NULL) {
        return NULL;
    }

    e = gcp_calloc(a, sizeof(gcp_agg_entry_t));
    obj = gcp_object_decode(a, value, rev);

    if (e == NULL || !json_is_object(obj)) {
        gcp_arena_destroy(a);
        return NULL;
    }

    e->arena = a;
    e->rev = rev;
    spec = json_object_get(obj, "spec");

    e->svc.name = gcp_meta_str(obj, "name");
    e->svc.group = gcp_agg_str(spec, "group");
    e->svc.version = gcp_agg_str(spec, "version");
    e->svc.group_priority = (int) json_integer_value(
                                json_object_get(spec, "groupPriorityMinimum"));
    e->svc.version_priority = (int) json_integer_value(
                                json_object_get(spec, "versionPriority"));

    if (e->svc.name == NULL) {
        gcp_arena_destroy(a);
        return NULL;
    }

    if (json_is_object(json_object_get(spec, "service"))) {
        gcp_agg_parse_remote(&e->svc, a, obj);

    } else {
        e->svc.available = 1;
    }

    return e;
}


static gcp_agg_doc_t *
gcp_agg_doc_new(const char *name, size_t len, gcp_str_t value, int64_t rev)
{
    const char     *msg;
    gcp_arena_t    *a;
    gcp_agg_doc_t  *d;

    a = gcp_arena_create(1024);
    if (a == NULL) {
        return NULL;
    }

    d = gcp_calloc(a, sizeof(gcp_agg_doc_t));
    if (d == NULL) {
        gcp_arena_destroy(a);
        return NULL;
    }

    d->arena = a;
    d->rev = rev;
    d->name = gcp_strndup(a, name, len);
    d->doc = gcp_json_parse(a, value.data, value.len, &msg);

    if (d->name == NULL || !json_is_object(d->doc)) {
        gcp_arena_destroy(a);
        return NULL;
    }

    return d;
}


/* Points the APIService of e at its documents (if any). */
static void
gcp_agg_link(gcp_agg_t *agg, gcp_agg_entry_t *e)
{
    json_t         *doc;
    gcp_agg_doc_t  *d;

    d = gcp_agg_set_get(&agg->docs, 1, e->svc.name);
    doc = d ? d->doc : NULL;

    e->svc.discovery = json_object_get(doc, "discovery");
    e->svc.openapi_v3 = json_object_get(doc, "openapiV3");
    e->svc.openapi_v2 = json_object_get(doc, "openapiV2");
    e->svc.openapi_v3_hash = json_string_value(json_object_get(doc,
                                                  "openapiV3Hash"));
    e->svc.fetched = json_integer_value(json_object_get(doc, "fetched"));
}


/* Rebuilds the list of the APIServices. */
static int
gcp_agg_relist(gcp_agg_t *agg)
{
    size_t                i;
    const gcp_apisvc_t  **list;

    list = realloc(agg->list, (agg->services.n + 1) * sizeof(void *));
    if (list == NULL) {
        return GCP_ENOMEM;
    }

    agg->list = list;

    for (i = 0; i < agg->services.n; i++) {
        list[i] = &((gcp_agg_entry_t *) agg->services.v[i])->svc;
    }

    agg->nlist = agg->services.n;

    return GCP_OK;
}


/* mirroring */


/* Compares the name s with the name p of len bytes, as strcmp(). */
static int
gcp_agg_cmp(const char *s, const char *p, size_t len)
{
    int  c;

    c = strncmp(s, p, len);

    if (c == 0 && s[len] != '\0') {
        return 1;
    }

    return c;
}


/*
 * Moves what the store has under one of the two prefixes into to: from
 * the old set (name-sorted, as the mirror's keys) the elements of an
 * unchanged revision, parsed anew the others; what the store no longer
 * has is released.  Sets *oom when out of memory.
 */
static void
gcp_agg_sync_set(gcp_agg_set_t *old, gcp_agg_set_t *to, int docs,
    const gcp_kv_t *kvs, size_t n, int *oom)
{
    int             c;
    void           *e;
    size_t          i, o, plen, len;
    const char     *prefix, *rest;
    gcp_agg_elt_t  *elt;

    prefix = docs ? GCP_APISVC_DOCUMENTS : GCP_APISVC_OBJECTS;
    plen = strlen(prefix);
    o = 0;

    for (i = 0; i < n; i++) {
        if (kvs[i].key.len <= plen
            || memcmp(kvs[i].key.data, prefix, plen) != 0)
        {
            continue;
        }

        rest = kvs[i].key.data + plen;
        len = kvs[i].key.len - plen;
        e = NULL;

        for ( /* void */ ; o < old->n; o++) {
            elt = old->v[o];
            c = gcp_agg_cmp(gcp_agg_name(old, o, docs), rest, len);

            if (c > 0) {
                break;
            }

            if (c == 0 && elt->rev == kvs[i].mod_revision) {
                e = elt;

            } else {
                gcp_arena_destroy(elt->arena);
            }

            old->v[o] = NULL;
        }

        if (e == NULL) {
            /* not an object: nothing to keep */
            e = docs ? (void *) gcp_agg_doc_new(rest, len, kvs[i].value,
                                                kvs[i].mod_revision)
                     : (void *) gcp_agg_entry_new(kvs[i].value,
                                                  kvs[i].mod_revision);
            if (e == NULL) {
                continue;
            }
        }

        if (gcp_agg_set_append(to, e) != GCP_OK) {
            gcp_arena_destroy(((gcp_agg_elt_t *) e)->arena);
            *oom = 1;
        }
    }

    for ( /* void */ ; o < old->n; o++) {
        if (old->v[o]) {
            gcp_arena_destroy(((gcp_agg_elt_t *) old->v[o])->arena);
        }
    }

    old->n = 0;
}


/*
 * gcp_mirror_changed_pt: the sets made again from the whole mirror (a
 * few dozen keys), keeping what did not change.
 */
static void
gcp_agg_changed(gcp_mirror_t *m, void *arg)
{
    int               oom;
    size_t            i, n;
    gcp_agg_t        *agg = arg;
    gcp_agg_set_t     services, docs, old;
    const gcp_kv_t   *kvs;

    n = gcp_mirror_entries(m, &kvs);
    oom = 0;
    memset(&services, 0, sizeof(gcp_agg_set_t));
    memset(&docs, 0, sizeof(gcp_agg_set_t));

    gcp_agg_sync_set(&agg->docs, &docs, 1, kvs, n, &oom);
    gcp_agg_sync_set(&agg->services, &services, 0, kvs, n, &oom);

    old = agg->docs;
    agg->docs = docs;
    free(old.v);

    old = agg->services;
    agg->services = services;
    free(old.v);

    for (i = 0; i < agg->services.n; i++) {
        gcp_agg_link(agg, agg->services.v[i]);
    }

    /* out of memory: the list stays empty until the next change */

    if (oom || gcp_agg_relist(agg) != GCP_OK) {
        agg->nlist = 0;
    }

    agg->generation++;
}


gcp_agg_t *
gcp_agg(gcp_api_t *api)
{
    gcp_agg_t  *agg;

    if (api->aggregator) {
        return api->aggregator;
    }

    agg = calloc(1, sizeof(gcp_agg_t));
    if (agg == NULL) {
        return NULL;
    }

    /* generation 0 is never current: callers start from it */
    agg->generation = 1;
    api->aggregator = agg;

    agg->mirror = gcp_mirror_create(api->store, api->conf.loop,
                                    GCP_APISVC_PREFIX, gcp_agg_changed, agg);
    if (agg->mirror == NULL) {
        api->aggregator = NULL;
        free(agg);
        return NULL;
    }

    return agg;
}


void
gcp_agg_free(gcp_api_t *api)
{
    gcp_agg_t  *agg = api->aggregator;

    if (agg == NULL) {
        return;
    }

    gcp_mirror_free(agg->mirror);
    gcp_agg_set_clear(&agg->services);
    gcp_agg_set_clear(&agg->docs);
    free(agg->services.v);
    free(agg->docs.v);
    free(agg->list);
    free(agg);

    api->aggregator = NULL;
}


int
gcp_agg_ready(const gcp_agg_t *agg)
{
    return gcp_mirror_ready(agg->mirror);
}


uint64_t
gcp_agg_generation(const gcp_agg_t *agg)
{
    return agg->generation;
}


const gcp_apisvc_t *
gcp_agg_find(gcp_agg_t *agg, const char *group, const char *version)
{
    char              buf[320];
    gcp_agg_entry_t  *e;

    /* APIServices are named version.group */

    if ((size_t) snprintf(buf, sizeof(buf), "%s.%s", version, group)
        >= sizeof(buf))
    {
        return NULL;
    }

    e = gcp_agg_set_get(&agg->services, 0, buf);

    if (e == NULL) {
        return NULL;
    }

    /* a name not matching its spec was refused by validation; still: */

    if (strcmp(e->svc.group, group) != 0
        || strcmp(e->svc.version, version) != 0)
    {
        return NULL;
    }

    return &e->svc;
}


size_t
gcp_agg_list(gcp_agg_t *agg, const gcp_apisvc_t * const **list)
{
    *list = agg->list;

    return agg->nlist;
}
