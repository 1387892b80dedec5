
/*
 * meta.k8s.io Tables (see gcp_table.h).
 */

#include <stdlib.h>

#include "gcp_reg.h"
#include "gcp_json.h"
#include "gcp_objcache.h"
#include "gcp_table.h"
#include "gcp_time.h"


#define GCP_NS  1000000000LL


/*
 * Until when (ns since the epoch) the row being written shows the same
 * cells: lowered by every age written into it.  Workers run one request
 * at a time, and a row is written without returning to the loop.
 */
static int64_t  gcp_table_until;

static uint64_t  gcp_table_rows_cached;     /* rows served from the cache */
static uint64_t  gcp_table_rows_made;       /* rows computed */


static const gcp_column_t  gcp_default_columns[] = {
    GCP_COLUMN_NAME,
    { "Created At", "date", "", GCP_DESC_CREATED, 0 },
};


void
gcp_table_cell_name(json_t *cells, const json_t *obj)
{
    json_array_append_new(cells, json_string(gcp_meta_str(obj, "name")));
}


/*
 * Lowers gcp_table_until to when the age of ts, seen at now, may show
 * otherwise: the next second of the age under 10 minutes (to the
 * nanosecond), else the next minute (counted in whole seconds, early
 * rather than late).  gcp_time_age() reads the clock after now: its text
 * is the same or newer, never older than this bound assumes.
 */
static void
gcp_table_age_until(const struct timespec *ts, const struct timespec *now)
{
    int64_t  ds, d, r, until;

    ds = (int64_t) now->tv_sec - (int64_t) ts->tv_sec;
    until = (int64_t) now->tv_sec * GCP_NS + now->tv_nsec;

    if (ds > -600 && ds < 600) {
        d = ds * GCP_NS + (now->tv_nsec - ts->tv_nsec);
        r = (d % GCP_NS + GCP_NS) % GCP_NS;
        until += GCP_NS - r;

    } else {
        r = (ds % 60 + 60) % 60;
        until += (59 - r) * GCP_NS;
    }

    if (until < gcp_table_until) {
        gcp_table_until = until;
    }
}


void
gcp_table_cell_since(json_t *cells, const char *rfc3339)
{
    char             buf[GCP_DURATION_BUFSIZE];
    struct timespec  ts, now;

    if (rfc3339 == NULL || rfc3339[0] == '\0'
        || gcp_time_parse(NULL, rfc3339, strlen(rfc3339), &ts, NULL)
           != GCP_OK)
    {
        json_array_append_new(cells, json_string("<unknown>"));
        return;
    }

    now = gcp_time_now();
    gcp_table_age_until(&ts, &now);

    gcp_time_age(buf, &ts);
    json_array_append_new(cells, json_string(buf));
}


void
gcp_table_cell_age(json_t *cells, const json_t *obj)
{
    gcp_table_cell_since(cells, gcp_meta_str(obj, "creationTimestamp"));
}


static void
gcp_table_columns(gcp_buf_t *b, const gcp_column_t *cols, size_t n)
{
    size_t  i;

    gcp_buf_addstr(b, "\"columnDefinitions\":[");

    for (i = 0; i < n; i++) {
        gcp_buf_addstr(b, i ? ",{\"name\":" : "{\"name\":");
        gcp_json_add_string(b, cols[i].name, strlen(cols[i].name));
        gcp_buf_addstr(b, ",\"type\":");
        gcp_json_add_string(b, cols[i].type, strlen(cols[i].type));
        gcp_buf_addstr(b, ",\"format\":");
        gcp_json_add_string(b, cols[i].format, strlen(cols[i].format));
        gcp_buf_addstr(b, ",\"description\":");
        gcp_json_add_string(b, cols[i].description,
                                strlen(cols[i].description));
        gcp_buf_printf(b, ",\"priority\":%d}", cols[i].priority);
    }

    gcp_buf_addc(b, ']');
}


static int
gcp_table_cells(gcp_op_t *op, const json_t *obj, json_t *cells)
{
    const gcp_strategy_t  *st = op->res->strategy;

    if (st && st->table_cells && op->res->columns) {
        return st->table_cells(op, obj, cells);
    }

    gcp_table_cell_name(cells, obj);
    json_array_append(cells, json_object_get(json_object_get(obj, "metadata"),
                                             "creationTimestamp"));

    return GCP_OK;
}


/* Items in the order the resource's printer shows them (objs decoded). */

typedef struct {
    json_t          *obj;           /* first: what table_cmp compares */
    const gcp_kv_t  *kv;
} gcp_table_item_t;


static int
gcp_table_sorted(gcp_op_t *op, gcp_table_item_t *items, size_t n)
{
    size_t  i;

    for (i = 0; i < n; i++) {
        if (items[i].obj == NULL) {
            items[i].obj = gcp_reg_decode_kv(op, items[i].kv);
            if (items[i].obj == NULL) {
                return GCP_EINTERNAL;
            }
        }
    }

    qsort(items, n, sizeof(gcp_table_item_t), op->res->strategy->table_cmp);

    return GCP_OK;
}


/*
 * The row cache: "cells" and "object" of a row, by resource, its
 * strategy's epoch (custom resources' columns change with their CRD
 * under the same objects: the CRD's revision), Table version,
 * includeObject and storage key, at the key's mod_revision, with the time
 * its ages change ([until, bytes]).
 */
typedef struct {
    const char       *meta_av;
    const char       *include;
    gcp_buf_t         key;          /* the variant, then a storage key */
    size_t            variant;      /* its length; 0: rows not cached */
    int64_t           now;          /* ns since the epoch */
} gcp_table_ctx_t;


static void
gcp_table_ctx_init(gcp_op_t *op, gcp_table_ctx_t *ctx)
{
    int64_t          epoch;
    struct timespec  ts;

    ts = gcp_time_now();
    ctx->now = (int64_t) ts.tv_sec * GCP_NS + ts.tv_nsec;
    ctx->variant = 0;

    gcp_buf_init(&ctx->key, op->a);

    if (op->api->tablecache == NULL) {
        return;
    }

    epoch = gcp_reg_epoch(op);

    if (epoch < 0) {
        return;
    }

    gcp_buf_printf(&ctx->key, "%s/%s/%s %lld %s %s ", op->res->group,
                   op->res->version, op->res->name, (long long) epoch,
                   ctx->meta_av, ctx->include);

    if (!gcp_buf_failed(&ctx->key)) {
        ctx->variant = ctx->key.len;
    }
}


static gcp_str_t
gcp_table_cache_key(gcp_table_ctx_t *ctx, const gcp_kv_t *kv)
{
    gcp_str_t  k;

    k.len = 0;
    k.data = NULL;

    if (ctx->variant == 0 || kv == NULL || kv->mod_revision <= 0) {
        return k;
    }

    ctx->key.len = ctx->variant;
    gcp_buf_add(&ctx->key, kv->key.data, kv->key.len);

    if (!gcp_buf_failed(&ctx->key)) {
        k.data = ctx->key.data;
        k.len = ctx->key.len;
    }

    return k;
}


/*
 * Writes kv's row into b, from the row cache or computed (and cached);
 * lowers *until to when the row may show otherwise.
 */
static int
gcp_table_row(gcp_op_t *op, gcp_buf_t *b, gcp_table_ctx_t *ctx,
    const gcp_kv_t *kv, json_t *obj, int64_t *until)
{
    int               rc;
    size_t            start;
    json_t           *cells, *cached;
    int64_t           now;
    gcp_str_t         ck;
    const char       *meta_av = ctx->meta_av, *include = ctx->include;

    ck = gcp_table_cache_key(ctx, kv);
    now = ctx->now;

    if (ck.len) {
        cached = gcp_objcache_get(op->api->tablecache, ck, kv->mod_revision);

        if (cached) {
            if (now < json_integer_value(json_array_get(cached, 0))) {
                gcp_buf_add(b, json_string_value(json_array_get(cached, 1)),
                            json_string_length(json_array_get(cached, 1)));
                *until = gcp_min(*until,
                                 json_integer_value(json_array_get(cached,
                                                                   0)));
                json_decref(cached);
                gcp_table_rows_cached++;
                return GCP_OK;
            }

            /* its ages moved on: computed again below, and replaced */
            json_decref(cached);
            gcp_objcache_forget(op->api->tablecache, ck);
        }
    }

    if (obj == NULL) {
        obj = gcp_reg_decode_kv(op, kv);
        if (obj == NULL) {
            return GCP_EINTERNAL;
        }
    }

    cells = json_array();
    if (cells == NULL) {
        return GCP_ENOMEM;
    }

    gcp_table_until = INT64_MAX;
    gcp_table_rows_made++;
    start = b->len;

    rc = gcp_table_cells(op, obj, cells);
    if (rc != GCP_OK) {
        json_decref(cells);
        return rc;
    }

    gcp_buf_addstr(b, "{\"cells\":");
    gcp_json_dump_buf(b, cells, 0);
    json_decref(cells);

    gcp_buf_addstr(b, ",\"object\":");

    if (strcmp(include, "None") == 0) {
        gcp_buf_addstr(b, "null");

    } else if (strcmp(include, "Object") == 0) {
        gcp_json_dump_buf(b, obj, 0);

    } else {
        gcp_buf_printf(b, "{\"kind\":\"PartialObjectMetadata\","
                          "\"apiVersion\":\"%s\",\"metadata\":", meta_av);
        gcp_output_metadata(op, b, obj);
        gcp_buf_addc(b, '}');
    }

    gcp_buf_addc(b, '}');

    *until = gcp_min(*until, ck.len ? gcp_table_until : now);

    if (ck.len && !gcp_buf_failed(b) && gcp_table_until > now) {
        cached = json_pack("[Is#]", (json_int_t) gcp_table_until,
                           b->data + start, (int) (b->len - start));
        if (cached) {
            gcp_objcache_put(op->api->tablecache, ck, kv->mod_revision,
                             cached, 2 * (b->len - start) + 128);
            json_decref(cached);
        }
    }

    return GCP_OK;
}


/*
 * The rows of a whole list, cached as one piece: under the row cache's
 * variant, the list's length and first and last keys, with the
 * mod_revisions of its items in the order read (each revision is one
 * write of one key: equal sequences are equal lists) and the time the
 * first of its ages changes.  A list of the same objects is then one copy
 * of prepared bytes, without a lookup per row.
 */

typedef struct {
    gcp_str_t         key;          /* len 0: not cached */
    char             *revs;         /* n mod_revisions, native order */
    size_t            revs_len;
} gcp_table_list_t;


static void
gcp_table_list_init(gcp_op_t *op, gcp_table_ctx_t *ctx,
    gcp_kv_t *const *kvs, size_t n, gcp_table_list_t *tl)
{
    size_t     i;
    int64_t    r;
    gcp_buf_t  k;

    tl->key.len = 0;
    tl->key.data = NULL;
    tl->revs = NULL;
    tl->revs_len = 0;

    if (ctx->variant == 0 || kvs == NULL || n < 2) {
        return;
    }

    tl->revs_len = n * sizeof(int64_t);
    tl->revs = gcp_alloc(op->a, tl->revs_len);

    if (tl->revs == NULL) {
        return;
    }

    for (i = 0; i < n; i++) {
        if (kvs[i] == NULL || kvs[i]->mod_revision <= 0) {
            return;
        }

        r = kvs[i]->mod_revision;
        memcpy(tl->revs + i * sizeof(int64_t), &r, sizeof(int64_t));
    }

    gcp_buf_init(&k, op->a);
    gcp_buf_add(&k, ctx->key.data, ctx->variant);
    gcp_buf_printf(&k, "list %zu ", n);
    gcp_buf_add(&k, kvs[0]->key.data, kvs[0]->key.len);
    gcp_buf_addc(&k, '\0');
    gcp_buf_add(&k, kvs[n - 1]->key.data, kvs[n - 1]->key.len);

    if (!gcp_buf_failed(&k)) {
        tl->key.data = k.data;
        tl->key.len = k.len;
    }
}


/* Writes the cached rows of the list into b; returns 1, or 0: none. */
static int
gcp_table_list_get(gcp_op_t *op, gcp_table_ctx_t *ctx, gcp_table_list_t *tl,
    gcp_buf_t *b)
{
    json_t  *cached, *revs, *rows;

    if (tl->key.len == 0) {
        return 0;
    }

    cached = gcp_objcache_get(op->api->tablecache, tl->key, 1);
    if (cached == NULL) {
        return 0;
    }

    revs = json_array_get(cached, 1);
    rows = json_array_get(cached, 2);

    if (ctx->now >= json_integer_value(json_array_get(cached, 0))
        || json_string_length(revs) != tl->revs_len
        || memcmp(json_string_value(revs), tl->revs, tl->revs_len) != 0)
    {
        json_decref(cached);
        return 0;
    }

    gcp_buf_add(b, json_string_value(rows), json_string_length(rows));
    json_decref(cached);
    gcp_table_rows_cached += tl->revs_len / sizeof(int64_t);

    return 1;
}


/* Caches the rows b holds from start on, the same until. */
static void
gcp_table_list_put(gcp_op_t *op, gcp_table_ctx_t *ctx, gcp_table_list_t *tl,
    gcp_buf_t *b, size_t start, int64_t until)
{
    json_t  *cached;

    if (tl->key.len == 0 || gcp_buf_failed(b) || until <= ctx->now) {
        return;
    }

    /* revisions are raw bytes: the string is never dumped */

    cached = json_pack("[Ioo]", (json_int_t) until,
                       json_stringn_nocheck(tl->revs, tl->revs_len),
                       json_stringn_nocheck(b->data + start,
                                            b->len - start));
    if (cached == NULL) {
        return;
    }

    gcp_objcache_forget(op->api->tablecache, tl->key);
    gcp_objcache_put(op->api->tablecache, tl->key, 1, cached,
                     2 * (b->len - start) + tl->revs_len + 128);
    json_decref(cached);
}


int
gcp_table_write(gcp_op_t *op, gcp_buf_t *b, gcp_kv_t *const *kvs,
    json_t **objs, size_t n, int64_t rev, const char *cont,
    int64_t remaining, int with_columns)
{
    int                  rc;
    size_t               i, ncols, start;
    int64_t              until;
    const char          *include, *meta_av;
    gcp_table_item_t    *items;
    gcp_table_ctx_t      ctx;
    gcp_table_list_t     tl;
    const gcp_column_t  *cols;

    if (op->res->columns) {
        cols = op->res->columns;
        ncols = op->res->ncolumns;

    } else {
        cols = gcp_default_columns;
        ncols = gcp_nelems(gcp_default_columns);
    }

    include = gcp_query_get(&op->q, "includeObject");
    if (include == NULL || include[0] == '\0') {
        include = "Metadata";
    }

    meta_av = strcmp(op->media.version, "v1beta1") == 0
              ? "meta.k8s.io/v1beta1" : "meta.k8s.io/v1";

    items = gcp_alloc(op->a, (n + 1) * sizeof(gcp_table_item_t));
    if (items == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < n; i++) {
        items[i].obj = objs ? objs[i] : NULL;
        items[i].kv = kvs ? kvs[i] : NULL;
    }

    gcp_buf_printf(b, "{\"kind\":\"Table\",\"apiVersion\":\"%s\","
                      "\"metadata\":{", meta_av);

    if (rev > 0) {
        gcp_buf_printf(b, "\"resourceVersion\":\"%lld\"", (long long) rev);
    }

    if (cont) {
        gcp_buf_addstr(b, rev > 0 ? ",\"continue\":" : "\"continue\":");
        gcp_json_add_string(b, cont, strlen(cont));

        if (remaining >= 0) {
            gcp_buf_printf(b, ",\"remainingItemCount\":%lld",
                           (long long) remaining);
        }
    }

    gcp_buf_addstr(b, "},");

    if (with_columns) {
        gcp_table_columns(b, cols, ncols);

    } else {
        gcp_buf_addstr(b, "\"columnDefinitions\":null");
    }

    gcp_buf_addstr(b, ",\"rows\":[");

    ctx.meta_av = meta_av;
    ctx.include = include;
    gcp_table_ctx_init(op, &ctx);
    gcp_table_list_init(op, &ctx, kvs, n, &tl);

    if (gcp_table_list_get(op, &ctx, &tl, b)) {
        gcp_buf_addstr(b, "]}");
        return gcp_buf_failed(b) ? GCP_ENOMEM : GCP_OK;
    }

    if (n > 1 && op->res->strategy && op->res->strategy->table_cmp) {
        rc = gcp_table_sorted(op, items, n);
        if (rc != GCP_OK) {
            return rc;
        }
    }

    start = b->len;
    until = INT64_MAX;

    for (i = 0; i < n; i++) {
        if (i) {
            gcp_buf_addc(b, ',');
        }

        rc = gcp_table_row(op, b, &ctx, items[i].kv, items[i].obj, &until);
        if (rc != GCP_OK) {
            return rc;
        }
    }

    gcp_table_list_put(op, &ctx, &tl, b, start, until);

    gcp_buf_addstr(b, "]}");

    return gcp_buf_failed(b) ? GCP_ENOMEM : GCP_OK;
}


void
gcp_table_stats(uint64_t *cached, uint64_t *made)
{
    *cached = gcp_table_rows_cached;
    *made = gcp_table_rows_made;
}
