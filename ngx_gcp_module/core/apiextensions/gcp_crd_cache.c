
/*
 * The custom resources a worker serves (see gcp_crd.h): a list of the
 * CRDs in the store, then a watch of them; every change rebuilds what the
 * changed CRD serves and gives the registry its new set of custom
 * resources, in discovery's order (groups by name after the built-in
 * ones, versions by Kubernetes priority).  As kube-apiserver's crdHandler,
 * a CRD serves once Established; a change of its spec, accepted names or
 * uid ends the watches of its old resources (their clients watch again).
 * A broken watch lists again.
 *
 * The watch of each worker brings a CRD at its own pace, while a client
 * that saw the CRD Established (written by the worker running the
 * controllers) expects every worker to serve it, as kube-apiserver's
 * process that serves the API is the one that establishes it.  So a
 * request about to be answered 404 under a group reads the CRD that would
 * serve it (gcp_crds_refresh()) and applies it when it is newer than this
 * worker's copy; the watch's event for that revision then changes
 * nothing.  One read of one key, only on that 404 path.  Discovery and
 * OpenAPI requests count the CRDs first (gcp_crds_catch_up()): only when
 * the store is ahead of this worker's watch are the CRDs read and the
 * newer ones applied.
 */

#include <stdlib.h>

#include "gcp_cr.h"
#include "gcp_object.h"
#include "gcp_version.h"


#define GCP_CRDS_RETRY_MS  1000


#define GCP_CRDS_WEBHOOK_CONNS  64     /* conversion webhooks' connections */


typedef struct {
    char            *name;
    int64_t          revision;
    gcp_cr_def_t    *def;
    gcp_cr_res_t   **res;           /* one reference each */
    size_t           nres;
} gcp_crds_entry_t;


typedef struct {
    gcp_api_t           *api;
    gcp_store_watch_t   *watch;
    gcp_loop_timer_t    *retry;
    gcp_arena_t         *load_arena;
    gcp_crds_entry_t    *entries;
    size_t               n;
    size_t               cap;
    json_t              *schemas;       /* names put into api->schemas */
    gcp_http_t          *http;          /* conversion webhooks, or NULL */
    unsigned             loading:1;
    unsigned             synced:1;
    unsigned             freed:1;
} gcp_crds_t;


static void gcp_crds_load(gcp_crds_t *c);


static gcp_str_t
gcp_crds_prefix(void)
{
    gcp_str_t  p = gcp_string(GCP_CRD_PREFIX);

    return p;
}


static void
gcp_crds_drop_res(gcp_crds_entry_t *e, int end_watches)
{
    size_t  i;

    for (i = 0; i < e->nres; i++) {
        if (end_watches) {
            gcp_resource_end_watches(&e->res[i]->res);
        }

        gcp_resource_unref(&e->res[i]->res);
    }

    free(e->res);
    e->res = NULL;
    e->nres = 0;

    gcp_cr_def_unref(e->def);
    e->def = NULL;
}


/* Builds the descriptors of the served versions of an Established CRD. */

static int
gcp_crds_build(gcp_crds_t *c, gcp_crds_entry_t *e, const json_t *crd,
    int64_t rev)
{
    size_t         i;
    gcp_cr_def_t  *def;
    gcp_cr_res_t  *cr;

    def = gcp_cr_def_create(crd, rev, c->api->schemas);
    if (def == NULL) {
        return GCP_ENOMEM;
    }

    e->def = def;

    if (!def->established || def->storage == NULL) {
        return GCP_OK;
    }

    e->res = calloc(def->nversions + 1, sizeof(gcp_cr_res_t *));
    if (e->res == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < def->nversions; i++) {
        if (!def->versions[i].served) {
            continue;
        }

        cr = gcp_cr_res_create(def, &def->versions[i]);
        if (cr == NULL) {
            return GCP_ENOMEM;
        }

        gcp_resource_ref(&cr->res);
        e->res[e->nres++] = cr;
    }

    return GCP_OK;
}


/* Whether a change of the CRD changes what its resources are. */

static int
gcp_crds_same(const json_t *a, const json_t *b)
{
    json_t  *sa, *sb;

    if (a == NULL || b == NULL) {
        return 0;
    }

    sa = json_object_get(a, "status");
    sb = json_object_get(b, "status");

    return json_equal(json_object_get(a, "spec"), json_object_get(b, "spec"))
           && json_equal(json_object_get(sa, "acceptedNames"),
                         json_object_get(sb, "acceptedNames"))
           && strcmp(gcp_meta_str(a, "uid"), gcp_meta_str(b, "uid")) == 0;
}


static gcp_crds_entry_t *
gcp_crds_find(gcp_crds_t *c, const char *name)
{
    size_t  i;

    for (i = 0; i < c->n; i++) {
        if (strcmp(c->entries[i].name, name) == 0) {
            return &c->entries[i];
        }
    }

    return NULL;
}


static int
gcp_crds_res_cmp(const void *x, const void *y)
{
    int                    c;
    const gcp_resource_t  *a = *(const gcp_resource_t * const *) x;
    const gcp_resource_t  *b = *(const gcp_resource_t * const *) y;

    c = strcmp(a->group, b->group);
    if (c) {
        return c;
    }

    c = gcp_version_compare(b->version, a->version);
    if (c) {
        return c;
    }

    return strcmp(a->name, b->name);
}


/* The OpenAPI definitions of the served custom resources, and only those. */

static int
gcp_crds_publish_schemas(gcp_crds_t *c, const gcp_resource_t **all,
    size_t n)
{
    size_t         i;
    json_t        *e;
    gcp_cr_res_t  *cr;

    json_array_foreach(c->schemas, i, e) {
        gcp_schema_set_del(c->api->schemas, json_string_value(e));
    }

    json_array_clear(c->schemas);

    for (i = 0; i < n; i++) {
        cr = gcp_cr_res(all[i]);

        if (gcp_cr_res_schemas(cr, c->api->schemas) != GCP_OK
            || json_array_append_new(c->schemas,
                                     json_string(all[i]->schema)) != 0
            || json_array_append_new(c->schemas,
                                     json_string(all[i]->list_schema)) != 0)
        {
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


/* The registry gets every served custom resource, in discovery's order. */

static int
gcp_crds_publish(gcp_crds_t *c)
{
    int                     rc;
    size_t                  i, j, n;
    const gcp_resource_t  **all;

    for (i = 0, n = 0; i < c->n; i++) {
        n += c->entries[i].nres;
    }

    all = malloc((n + 1) * sizeof(gcp_resource_t *));
    if (all == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0, n = 0; i < c->n; i++) {
        for (j = 0; j < c->entries[i].nres; j++) {
            all[n++] = &c->entries[i].res[j]->res;
        }
    }

    qsort(all, n, sizeof(gcp_resource_t *), gcp_crds_res_cmp);

    rc = gcp_crds_publish_schemas(c, all, n);

    if (rc == GCP_OK) {
        rc = gcp_registry_set_dynamic(c->api->registry, all, n);
    }

    free(all);

    return rc;
}


static void
gcp_crds_remove(gcp_crds_t *c, gcp_crds_entry_t *e)
{
    gcp_crds_drop_res(e, 1);
    free(e->name);

    *e = c->entries[--c->n];
}


/*
 * Applies the CRD stored at key at revision rev (value.data NULL:
 * deleted), unless the entry already holds that revision or a newer one
 * (a refresh read it before the watch brought it).  Sets *changed when
 * the entry changed.  Returns GCP_OK, or GCP_ENOMEM (the entry is then
 * gone; a relist repairs it).
 */

static int
gcp_crds_apply(gcp_crds_t *c, gcp_str_t key, gcp_str_t value, int64_t rev,
    gcp_arena_t *a, unsigned *changed)
{
    int                 end;
    char               *name;
    json_t             *crd;
    gcp_crds_entry_t   *e, tmp;

    *changed = 0;

    name = gcp_strndup(a, key.data + sizeof(GCP_CRD_PREFIX) - 1,
                       key.len - (sizeof(GCP_CRD_PREFIX) - 1));
    if (name == NULL) {
        return GCP_ENOMEM;
    }

    e = gcp_crds_find(c, name);

    if (e && rev <= e->revision) {
        return GCP_OK;
    }

    *changed = 1;

    if (value.data == NULL) {
        if (e) {
            gcp_crds_remove(c, e);
        }

        return GCP_OK;
    }

    crd = gcp_object_decode(a, value, rev);
    if (crd == NULL) {
        /* not a CRD: nothing to serve */
        if (e) {
            gcp_crds_remove(c, e);
        }

        return GCP_OK;
    }

    memset(&tmp, 0, sizeof(tmp));

    if (gcp_crds_build(c, &tmp, crd, rev) != GCP_OK) {
        gcp_crds_drop_res(&tmp, 0);

        if (e) {
            gcp_crds_remove(c, e);
        }

        return GCP_ENOMEM;
    }

    if (e == NULL) {
        if (c->n == c->cap) {
            size_t             cap = c->cap ? c->cap * 2 : 16;
            gcp_crds_entry_t  *p;

            p = realloc(c->entries, cap * sizeof(gcp_crds_entry_t));
            if (p == NULL) {
                gcp_crds_drop_res(&tmp, 0);
                return GCP_ENOMEM;
            }

            c->entries = p;
            c->cap = cap;
        }

        e = &c->entries[c->n];
        memset(e, 0, sizeof(gcp_crds_entry_t));

        e->name = strdup(name);
        if (e->name == NULL) {
            gcp_crds_drop_res(&tmp, 0);
            return GCP_ENOMEM;
        }

        c->n++;
        end = 0;

    } else {
        end = !gcp_crds_same(e->def ? e->def->crd : NULL, crd);
        gcp_crds_drop_res(e, end);
    }

    e->revision = rev;
    e->def = tmp.def;
    e->res = tmp.res;
    e->nres = tmp.nres;

    return GCP_OK;
}


static void
gcp_crds_clear(gcp_crds_t *c)
{
    while (c->n) {
        gcp_crds_remove(c, &c->entries[c->n - 1]);
    }
}


static void
gcp_crds_retry(void *arg)
{
    gcp_crds_t  *c = arg;

    c->retry = NULL;
    gcp_crds_load(c);
}


static void
gcp_crds_schedule_load(gcp_crds_t *c)
{
    gcp_loop_t  *loop = c->api->conf.loop;

    if (c->retry == NULL) {
        c->retry = loop->timer_add(loop, GCP_CRDS_RETRY_MS, gcp_crds_retry,
                                   c);
    }
}


static int
gcp_crds_event(void *arg, const gcp_store_event_t *ev)
{
    int           rc;
    unsigned      changed;
    gcp_str_t     none = gcp_null_string;
    gcp_arena_t  *a;
    gcp_crds_t   *c = arg;

    switch (ev->type) {

    case GCP_STORE_EVENT_PUT:
    case GCP_STORE_EVENT_DELETE:
        a = gcp_arena_create(0);
        if (a == NULL) {
            c->watch = NULL;
            gcp_crds_schedule_load(c);
            return GCP_ENOMEM;
        }

        rc = gcp_crds_apply(c, ev->kv.key,
                            ev->type == GCP_STORE_EVENT_PUT ? ev->kv.value
                                                            : none,
                            ev->revision, a, &changed);
        gcp_arena_destroy(a);

        if (rc == GCP_OK && !changed) {
            return GCP_OK;
        }

        if (rc != GCP_OK || gcp_crds_publish(c) != GCP_OK) {
            c->watch = NULL;
            gcp_crds_schedule_load(c);
            return GCP_ENOMEM;
        }

        return GCP_OK;

    case GCP_STORE_EVENT_PROGRESS:
        return GCP_OK;

    default:
        /* the watch is over (compacted, backend gone): list again */
        c->watch = NULL;
        gcp_crds_schedule_load(c);
        return GCP_OK;
    }
}


static void
gcp_crds_listed(void *arg, gcp_store_result_t *res)
{
    size_t       i;
    unsigned     changed;
    gcp_crds_t  *c = arg;

    c->loading = 0;

    if (c->freed) {
        gcp_arena_destroy(c->load_arena);
        free(c);
        return;
    }

    if (res->rc != GCP_OK) {
        gcp_arena_destroy(c->load_arena);
        c->load_arena = NULL;
        gcp_crds_schedule_load(c);
        return;
    }

    gcp_crds_clear(c);

    for (i = 0; i < res->nkvs; i++) {
        if (gcp_crds_apply(c, res->kvs[i].key, res->kvs[i].value,
                           res->kvs[i].mod_revision, c->load_arena,
                           &changed)
            != GCP_OK)
        {
            break;
        }
    }

    if (i < res->nkvs || gcp_crds_publish(c) != GCP_OK) {
        gcp_arena_destroy(c->load_arena);
        c->load_arena = NULL;
        gcp_crds_schedule_load(c);
        return;
    }

    c->synced = 1;

    c->watch = gcp_store_watch(c->api->store, gcp_crds_prefix(),
                               gcp_store_prefix_end(c->load_arena,
                                                    gcp_crds_prefix()),
                               res->revision, gcp_crds_event, c);

    gcp_arena_destroy(c->load_arena);
    c->load_arena = NULL;

    if (c->watch == NULL) {
        gcp_crds_schedule_load(c);
    }
}


static void
gcp_crds_load(gcp_crds_t *c)
{
    if (c->loading) {
        return;
    }

    if (c->watch) {
        gcp_store_watch_cancel(c->api->store, c->watch);
        c->watch = NULL;
    }

    c->load_arena = gcp_arena_create(0);
    if (c->load_arena == NULL) {
        gcp_crds_schedule_load(c);
        return;
    }

    c->loading = 1;

    gcp_store_range(c->api->store, gcp_crds_prefix(),
                    gcp_store_prefix_end(c->load_arena, gcp_crds_prefix()),
                    0, 0, 0, c->load_arena, gcp_crds_listed, c);
}


int
gcp_crds_init(gcp_api_t *api)
{
    gcp_crds_t  *c;

    c = calloc(1, sizeof(gcp_crds_t));
    if (c == NULL) {
        return GCP_ENOMEM;
    }

    c->api = api;
    c->schemas = json_array();

    if (c->schemas == NULL) {
        free(c);
        return GCP_ENOMEM;
    }

    api->crds = c;

    gcp_crds_load(c);

    return GCP_OK;
}


void
gcp_crds_free(gcp_api_t *api)
{
    gcp_crds_t  *c = api->crds;

    if (c == NULL) {
        return;
    }

    api->crds = NULL;

    if (c->watch) {
        gcp_store_watch_cancel(api->store, c->watch);
    }

    if (c->retry) {
        api->conf.loop->timer_del(api->conf.loop, c->retry);
    }

    if (c->http) {
        gcp_http_destroy(c->http);
        c->http = NULL;
    }

    (void) gcp_registry_set_dynamic(api->registry, NULL, 0);
    (void) gcp_crds_publish_schemas(c, NULL, 0);
    json_decref(c->schemas);
    gcp_crds_clear(c);
    free(c->entries);

    if (c->loading) {
        /* the list in flight still writes into load_arena */
        c->freed = 1;
        return;
    }

    free(c);
}


/* A refresh in flight (gcp_crds_refresh(), gcp_crds_catch_up()). */

typedef struct {
    gcp_api_t        *api;
    gcp_arena_t      *a;
    gcp_crds_done_pt  done;
    void             *arg;
} gcp_crds_refresh_t;


/* Returns a refresh allocated in a, or NULL (out of memory). */

static gcp_crds_refresh_t *
gcp_crds_refresh_new(gcp_api_t *api, gcp_arena_t *a, gcp_crds_done_pt done,
    void *arg)
{
    gcp_crds_refresh_t  *r;

    r = gcp_calloc(a, sizeof(gcp_crds_refresh_t));
    if (r == NULL) {
        return NULL;
    }

    r->api = api;
    r->a = a;
    r->done = done;
    r->arg = arg;

    return r;
}


static void
gcp_crds_refreshed(void *arg, gcp_store_result_t *res)
{
    size_t               i;
    unsigned             changed, any;
    gcp_kv_t            *kv;
    gcp_crds_t          *c;
    gcp_crds_refresh_t  *r = arg;

    c = r->api->crds;

    /* a list under way brings them, or something newer */

    if (c != NULL && c->synced && !c->loading && res->rc == GCP_OK) {
        any = 0;

        for (i = 0; i < res->nkvs; i++) {
            kv = &res->kvs[i];

            if (gcp_crds_apply(c, kv->key, kv->value, kv->mod_revision,
                               r->a, &changed)
                != GCP_OK)
            {
                gcp_crds_schedule_load(c);
                r->done(r->arg);
                return;
            }

            any |= changed;
        }

        if (any && gcp_crds_publish(c) != GCP_OK) {
            gcp_crds_schedule_load(c);
        }
    }

    r->done(r->arg);
}


/*
 * The store's revision is known (a count of the CRDs): when this worker's
 * watch has not delivered up to it, the CRDs are read and the newer ones
 * applied.
 */

static void
gcp_crds_probed(void *arg, gcp_store_result_t *res)
{
    gcp_crds_t          *c;
    gcp_crds_refresh_t  *r = arg;

    c = r->api->crds;

    if (c == NULL || c->watch == NULL || res->rc != GCP_OK
        || gcp_store_watch_revision(r->api->store, c->watch)
           >= res->revision)
    {
        r->done(r->arg);
        return;
    }

    gcp_store_range(r->api->store, gcp_crds_prefix(),
                    gcp_store_prefix_end(r->a, gcp_crds_prefix()), 0, 0, 0,
                    r->a, gcp_crds_refreshed, r);
}


int
gcp_crds_refresh(gcp_api_t *api, const char *group, const char *resource,
    gcp_arena_t *a, gcp_crds_done_pt done, void *arg)
{
    gcp_str_t            key;
    gcp_crds_t          *c = api->crds;
    gcp_crds_refresh_t  *r;

    if (c == NULL || !c->synced || group[0] == '\0'
        || resource[0] == '\0')
    {
        return 0;
    }

    key.data = gcp_sprintf(a, GCP_CRD_PREFIX "%s.%s", resource, group);
    r = gcp_crds_refresh_new(api, a, done, arg);

    if (key.data == NULL || r == NULL) {
        return 0;
    }

    key.len = strlen(key.data);

    gcp_store_get(api->store, key, 0, a, gcp_crds_refreshed, r);

    return 1;
}


int
gcp_crds_catch_up(gcp_api_t *api, gcp_arena_t *a, gcp_crds_done_pt done,
    void *arg)
{
    gcp_crds_t          *c = api->crds;
    gcp_crds_refresh_t  *r;

    if (c == NULL || !c->synced || c->loading || c->watch == NULL) {
        return 0;
    }

    r = gcp_crds_refresh_new(api, a, done, arg);
    if (r == NULL) {
        return 0;
    }

    gcp_store_range(api->store, gcp_crds_prefix(),
                    gcp_store_prefix_end(a, gcp_crds_prefix()), 0, 0, 1, a,
                    gcp_crds_probed, r);

    return 1;
}


gcp_http_t *
gcp_crds_http(gcp_api_t *api)
{
    gcp_crds_t  *c = api->crds;

    if (c == NULL) {
        return NULL;
    }

    if (c->http == NULL) {
        c->http = gcp_http_create(api->conf.loop, GCP_CRDS_WEBHOOK_CONNS);
    }

    return c->http;
}


int
gcp_crds_synced(gcp_api_t *api)
{
    gcp_crds_t  *c = api->crds;

    return c && c->synced;
}
