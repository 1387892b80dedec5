
/*
 * Each worker's label indexes (see gcp_reg_index.h): loading, the store
 * watch that keeps them current, the memory bound, and the revisions they
 * answer for.
 */

#include <stdlib.h>

#include "gcp_reg_index.h"
#include "gcp_object.h"
#include "gcp_reg.h"
#include "gcp_continue.h"


#define GCP_RIX_RETRY_MS     1000
#define GCP_RIX_TOOBIG_MS    60000

/* an index of a descriptor built at run time, unused that long, goes */
#define GCP_RIX_IDLE_MS      600000


typedef struct gcp_rix_s  gcp_rix_t;

struct gcp_rix_s {
    gcp_rix_t           *next;
    gcp_reg_indexes_t   *set;
    char                *prefix;
    size_t               prefix_len;
    gcp_lindex_t        *ix;            /* NULL: not built */
    gcp_store_watch_t   *watch;
    gcp_arena_t         *list_arena;
    const gcp_resource_t *res;          /* its declared fields, or NULL; */
                                        /* held (gcp_resource_ref) */
    const char * const  *declared;      /* res's fields, or NULL */
    int64_t              epoch;         /* res's (gcp_reg_epoch) */
    int64_t              last_change;   /* no change after it */
    uint64_t             retry_at;
    uint64_t             used_at;
    unsigned             namespaced:1;
    unsigned             loading:1;
    unsigned             freed:1;       /* free when the load completes */
};


struct gcp_reg_indexes_s {
    gcp_store_t         *store;
    gcp_loop_t          *loop;
    size_t               max_bytes;
    gcp_rix_t           *list;
    uint64_t             answered;      /* lists the indexes answered */
};


gcp_reg_indexes_t *
gcp_reg_indexes_create(gcp_store_t *store, gcp_loop_t *loop,
    size_t max_bytes)
{
    gcp_reg_indexes_t  *set;

    set = calloc(1, sizeof(gcp_reg_indexes_t));
    if (set == NULL) {
        return NULL;
    }

    set->store = store;
    set->loop = loop;
    set->max_bytes = max_bytes;

    return set;
}


/* Drops rix's index and watch; built again from retry_at on. */
static void
gcp_rix_drop(gcp_rix_t *rix, uint64_t delay_ms)
{
    if (rix->watch) {
        gcp_store_watch_cancel(rix->set->store, rix->watch);
        rix->watch = NULL;
    }

    gcp_lindex_free(rix->ix);
    rix->ix = NULL;
    rix->retry_at = rix->set->loop->now_ms(rix->set->loop) + delay_ms;
}


static size_t
gcp_rix_total(gcp_reg_indexes_t *set)
{
    size_t      bytes;
    gcp_rix_t  *rix;

    bytes = 0;

    for (rix = set->list; rix; rix = rix->next) {
        if (rix->ix) {
            bytes += gcp_lindex_bytes(rix->ix);
        }
    }

    return bytes;
}


/*
 * The field selector labels of op's resource whose values the index
 * records: those of a resource that declares fields beyond metadata.*
 * (built-in kinds', custom resources' selectableFields), read from the
 * form to_external makes of the stored object, when that form depends on
 * nothing but the object and the resource's epoch (no conversion
 * webhook).  Returns them (NULL-terminated, borrowed from op->res) or
 * NULL: metadata.name and metadata.namespace only.
 */
static const char * const *
gcp_rix_declared(gcp_op_t *op)
{
    size_t                 i;
    const gcp_resource_t  *res = op->res;
    const gcp_strategy_t  *st = res->strategy;

    if (st == NULL || st->field_value == NULL || res->field_labels == NULL
        || gcp_reg_epoch(op) < 0)
    {
        return NULL;
    }

    for (i = 0; res->field_labels[i]; i++) {
        if (strncmp(res->field_labels[i], "metadata.", 9) != 0) {
            return res->field_labels;
        }
    }

    return NULL;
}


/* Forgets rix (unlinked by the caller); a load in flight frees it. */
static void
gcp_rix_destroy(gcp_rix_t *rix)
{
    if (rix->watch) {
        gcp_store_watch_cancel(rix->set->store, rix->watch);
        rix->watch = NULL;
    }

    gcp_lindex_free(rix->ix);
    rix->ix = NULL;

    if (rix->res) {
        gcp_resource_unref(rix->res);
        rix->res = NULL;
    }

    if (rix->loading) {
        rix->freed = 1;     /* the load in flight writes its arena */
        return;
    }

    free(rix->prefix);
    free(rix);
}


/* Sets the label for field (GCP_LINDEX_FIELD and its name) in labels. */
static void
gcp_rix_set_field(json_t *labels, const char *field, const char *v)
{
    char  buf[256];

    if (strlen(field) + 2 > sizeof(buf)) {
        return;
    }

    buf[0] = GCP_LINDEX_FIELD;
    memcpy(buf + 1, field, strlen(field) + 1);

    json_object_set_new(labels, buf, json_string(v ? v : ""));
}


/* Sets the labels of obj and its metadata.* fields in labels. */
static void
gcp_rix_set_meta(json_t *labels, const json_t *obj)
{
    json_object_update(labels, json_object_get(json_object_get(obj,
                                                                "metadata"),
                                               "labels"));

    gcp_rix_set_field(labels, "metadata.name", gcp_meta_str(obj, "name"));
    gcp_rix_set_field(labels, "metadata.namespace",
                      gcp_meta_str(obj, "namespace"));
}


/*
 * The labels the index records for the stored obj: its labels,
 * metadata.name, metadata.namespace and the declared fields of rix's
 * resource, of the form the resource's lists read (to_external's), as
 * gcp_reg_matches() reads them.  Returns a new reference, or NULL when
 * out of memory or when to_external fails.
 */
static json_t *
gcp_rix_labels(gcp_rix_t *rix, json_t *obj)
{
    size_t                i;
    json_t               *labels, *ext;
    gcp_op_t              op;
    const char           *field;
    const gcp_strategy_t *st;

    labels = json_object();
    if (labels == NULL) {
        return NULL;
    }

    if (rix->declared == NULL || obj == NULL) {
        gcp_rix_set_meta(labels, obj);
        return labels;
    }

    /* to_external and field_value allocate from op's arena */

    st = rix->res->strategy;

    memset(&op, 0, sizeof(gcp_op_t));
    op.res = rix->res;
    op.a = gcp_arena_create(0);

    if (op.a == NULL) {
        json_decref(labels);
        return NULL;
    }

    ext = st->to_external ? st->to_external(&op, obj) : json_incref(obj);

    if (ext == NULL) {
        gcp_arena_destroy(op.a);
        json_decref(labels);
        return NULL;
    }

    gcp_rix_set_meta(labels, ext);

    for (i = 0; rix->declared[i]; i++) {
        field = rix->declared[i];

        if (strncmp(field, "metadata.", 9) != 0) {
            gcp_rix_set_field(labels, field,
                              st->field_value(&op, ext, field));
        }
    }

    json_decref(ext);
    gcp_arena_destroy(op.a);

    return labels;
}


/* Records one stored object; returns GCP_OK, or GCP_ENOSPACE past the
 * bound, or GCP_ENOMEM (then the index was dropped). */
static int
gcp_rix_put(gcp_rix_t *rix, gcp_str_t key, gcp_str_t value, int64_t rev)
{
    int      rc;
    json_t  *obj, *labels;

    obj = json_loadb(value.data, value.len, 0, NULL);
    labels = gcp_rix_labels(rix, obj);
    json_decref(obj);

    if (labels == NULL) {
        return GCP_ENOMEM;
    }

    rc = gcp_lindex_put(rix->ix, key, value, labels, rev);
    json_decref(labels);

    if (rc != GCP_OK) {
        return rc;
    }

    if (gcp_rix_total(rix->set) > rix->set->max_bytes) {
        return GCP_ENOSPACE;
    }

    return GCP_OK;
}


static int
gcp_rix_event(void *arg, const gcp_store_event_t *ev)
{
    gcp_rix_t  *rix = arg;

    switch (ev->type) {

    case GCP_STORE_EVENT_PUT:
        rix->last_change = ev->revision;

        if (gcp_rix_put(rix, ev->kv.key, ev->kv.value, ev->revision)
            != GCP_OK)
        {
            rix->watch = NULL;      /* ended by returning an error */
            gcp_rix_drop(rix, GCP_RIX_TOOBIG_MS);
            return GCP_ENOSPACE;
        }

        return GCP_OK;

    case GCP_STORE_EVENT_DELETE:
        rix->last_change = ev->revision;
        gcp_lindex_delete(rix->ix, ev->kv.key);
        return GCP_OK;

    case GCP_STORE_EVENT_PROGRESS:
        return GCP_OK;

    default:
        /* compacted under the watch, backend gone: build it again */
        rix->watch = NULL;
        gcp_rix_drop(rix, GCP_RIX_RETRY_MS);
        return GCP_OK;
    }
}


static void
gcp_rix_loaded(void *arg, gcp_store_result_t *res)
{
    int         rc;
    size_t      i;
    gcp_str_t   prefix;
    gcp_rix_t  *rix = arg;

    rix->loading = 0;

    if (rix->freed) {
        gcp_arena_destroy(rix->list_arena);
        free(rix->prefix);
        free(rix);
        return;
    }

    rc = res->rc;

    if (rc == GCP_OK) {
        rix->ix = gcp_lindex_create(rix->prefix_len, rix->namespaced);
        rc = rix->ix ? GCP_OK : GCP_ENOMEM;
    }

    for (i = 0; rc == GCP_OK && i < res->nkvs; i++) {
        rc = gcp_rix_put(rix, res->kvs[i].key, res->kvs[i].value,
                         res->kvs[i].mod_revision);
    }

    if (rc == GCP_OK) {
        prefix.data = rix->prefix;
        prefix.len = rix->prefix_len;

        rix->last_change = res->revision;
        rix->watch = gcp_store_watch(rix->set->store, prefix,
                                     gcp_store_prefix_end(rix->list_arena,
                                                          prefix),
                                     res->revision, gcp_rix_event, rix);
        if (rix->watch == NULL) {
            rc = GCP_ENOMEM;
        }
    }

    gcp_arena_destroy(rix->list_arena);
    rix->list_arena = NULL;

    if (rc != GCP_OK) {
        gcp_rix_drop(rix, rc == GCP_ENOSPACE ? GCP_RIX_TOOBIG_MS
                                             : GCP_RIX_RETRY_MS);
    }
}


static void
gcp_rix_load(gcp_rix_t *rix)
{
    gcp_str_t  prefix;

    rix->list_arena = gcp_arena_create(0);
    if (rix->list_arena == NULL) {
        return;
    }

    prefix.data = rix->prefix;
    prefix.len = rix->prefix_len;

    rix->loading = 1;

    gcp_store_range(rix->set->store, prefix,
                    gcp_store_prefix_end(rix->list_arena, prefix), 0, 0, 0,
                    rix->list_arena, gcp_rix_loaded, rix);
}


/*
 * Returns 1 when rix holds the fields of another revision of the
 * definition of op's resource's version (a descriptor built at run time:
 * a custom resource's, whose CRD changed).
 */
static int
gcp_rix_other_epoch(gcp_rix_t *rix, gcp_op_t *op, gcp_str_t prefix)
{
    return rix->res && rix->res->owner && op->res->owner
           && rix->prefix_len == prefix.len
           && memcmp(rix->prefix, prefix.data, prefix.len) == 0
           && strcmp(rix->res->version, op->res->version) == 0;
}


/*
 * The index of op's resource, created (and its load started) if new, or
 * NULL: out of memory, or op's descriptor is older than the one indexed.
 */
static gcp_rix_t *
gcp_rix_get(gcp_reg_indexes_t *set, gcp_op_t *op)
{
    int64_t              epoch;
    uint64_t             now;
    gcp_str_t            prefix;
    gcp_rix_t           *rix, *found, **p;
    const char * const  *declared;

    prefix = gcp_object_prefix(op->a, op->res, "");
    if (prefix.len == 0) {
        return NULL;
    }

    now = set->loop->now_ms(set->loop);
    declared = gcp_rix_declared(op);
    epoch = declared ? gcp_reg_epoch(op) : 0;
    found = NULL;

    /*
     * One per prefix, declared fields and the strategy that reads them
     * (events of both groups: the same fields of two forms; each version
     * of a custom resource with selectableFields); an index of an
     * older definition of a custom resource's version goes (its fields'
     * paths or its schema changed), as does one of a descriptor built at
     * run time that no list used for GCP_RIX_IDLE_MS (its CRD may be gone).
     */

    for (p = &set->list; (rix = *p) != NULL; /* void */) {

        if (rix->prefix_len == prefix.len && rix->declared == declared
            && (declared == NULL || rix->res->strategy == op->res->strategy)
            && memcmp(rix->prefix, prefix.data, prefix.len) == 0)
        {
            found = rix;
            p = &rix->next;
            continue;
        }

        if (declared && gcp_rix_other_epoch(rix, op, prefix)
            && rix->epoch > epoch)
        {
            return NULL;    /* a request of the older definition: scan */
        }

        if ((declared && gcp_rix_other_epoch(rix, op, prefix))
            || (rix->res && rix->res->owner
                && now - rix->used_at >= GCP_RIX_IDLE_MS))
        {
            *p = rix->next;
            gcp_rix_destroy(rix);
            continue;
        }

        p = &rix->next;
    }

    rix = found;

    if (rix == NULL) {
        rix = calloc(1, sizeof(gcp_rix_t));
        if (rix == NULL) {
            return NULL;
        }

        rix->prefix = malloc(prefix.len);
        if (rix->prefix == NULL) {
            free(rix);
            return NULL;
        }

        memcpy(rix->prefix, prefix.data, prefix.len);
        rix->prefix_len = prefix.len;
        rix->namespaced = op->res->namespaced;

        if (declared) {
            rix->res = op->res;
            rix->declared = declared;
            rix->epoch = epoch;
            gcp_resource_ref(op->res);
        }

        rix->set = set;
        rix->next = set->list;
        set->list = rix;
    }

    rix->used_at = now;

    if (rix->ix == NULL && !rix->loading && now >= rix->retry_at) {
        gcp_rix_load(rix);
    }

    return rix;
}


/* Returns 1 when the index of rix records field. */
static int
gcp_rix_indexed(void *ctx, const char *field)
{
    size_t               i;
    gcp_rix_t           *rix = ctx;
    const char * const  *fields;

    if (strcmp(field, "metadata.name") == 0
        || strcmp(field, "metadata.namespace") == 0)
    {
        return 1;
    }

    fields = rix->declared;

    for (i = 0; fields && fields[i]; i++) {
        if (strcmp(fields[i], field) == 0) {
            return 1;
        }
    }

    return 0;
}


int
gcp_reg_index_query(gcp_op_t *op, int64_t rev,
    const gcp_label_selector_t *labels, const gcp_field_selector_t *fields,
    gcp_str_t from, int64_t limit, gcp_lindex_hit_t **hits, size_t *n,
    int *more)
{
    int                    rc;
    char                  *last;
    size_t                 i, keep;
    gcp_str_t              next;
    gcp_rix_t             *rix;
    gcp_reg_indexes_t     *set = op->api->lindex;
    gcp_label_selector_t  *sel;

    *more = 0;

    if (set == NULL || set->max_bytes == 0) {
        return GCP_EUNAVAILABLE;
    }

    rix = gcp_rix_get(set, op);

    if (rix == NULL || rix->ix == NULL || rix->watch == NULL
        || rix->last_change > rev)
    {
        return GCP_EUNAVAILABLE;
    }

    if (gcp_store_watch_revision(set->store, rix->watch) < rev) {
        /* writes up to rev not yet dispatched here (being made durable) */
        return GCP_EFUTURE;
    }

    rc = gcp_lindex_selector(op->a, labels, fields, gcp_rix_indexed, rix,
                             &sel);
    if (rc != GCP_OK) {
        return rc;
    }

    rc = gcp_lindex_query(rix->ix, op->a, op->ri.ns, sel, from, hits, n);
    if (rc != GCP_OK) {
        return rc;
    }

    set->answered++;

    /* the values of the hits kept, copied before the index changes */

    keep = (limit > 0 && (int64_t) *n > limit) ? (size_t) limit : *n;

    for (i = 0; i < keep; i++) {
        (*hits)[i].value.data = gcp_strndup(op->a, (*hits)[i].value.data,
                                            (*hits)[i].value.len);
        if ((*hits)[i].value.data == NULL) {
            return GCP_ENOMEM;
        }
    }

    if (limit <= 0 || (int64_t) *n < limit) {
        return GCP_OK;
    }

    /* the scan's continue: keys after the page's last, matching or not */

    last = gcp_alloc(op->a, (*hits)[limit - 1].key.len + 1);
    if (last == NULL) {
        return GCP_ENOMEM;
    }

    memcpy(last, (*hits)[limit - 1].key.data, (*hits)[limit - 1].key.len);
    last[(*hits)[limit - 1].key.len] = GCP_CONTINUE_NEXT;

    next.data = last;
    next.len = (*hits)[limit - 1].key.len + 1;

    *more = gcp_lindex_any_from(rix->ix, op->ri.ns, next);

    return GCP_OK;
}


void
gcp_reg_indexes_free(gcp_reg_indexes_t *set)
{
    gcp_rix_t  *rix, *next;

    if (set == NULL) {
        return;
    }

    for (rix = set->list; rix; rix = next) {
        next = rix->next;
        gcp_rix_destroy(rix);
    }

    free(set);
}


void
gcp_reg_indexes_stats(gcp_reg_indexes_t *set, size_t *indexes,
    size_t *keys, size_t *bytes, uint64_t *answered)
{
    gcp_rix_t  *rix;

    *indexes = 0;
    *keys = 0;
    *bytes = 0;
    *answered = set ? set->answered : 0;

    for (rix = set ? set->list : NULL; rix; rix = rix->next) {
        if (rix->ix) {
            (*indexes)++;
            *keys += gcp_lindex_count(rix->ix);
            *bytes += gcp_lindex_bytes(rix->ix);
        }
    }
}
