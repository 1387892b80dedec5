
/*
 * meta.k8s.io Tables (see gcp_table.h).
 */

#include <stdlib.h>

#include "gcp_reg.h"
#include "gcp_json.h"
#include "gcp_table.h"
#include "gcp_time.h"


static const gcp_column_t  gcp_default_columns[] = {
    GCP_COLUMN_NAME,
    { "Created At", "date", "", GCP_DESC_CREATED, 0 },
};


void
gcp_table_cell_name(json_t *cells, const json_t *obj)
{
    json_array_append_new(cells, json_string(gcp_meta_str(obj, "name")));
}


void
gcp_table_cell_since(json_t *cells, const char *rfc3339)
{
    char             buf[GCP_DURATION_BUFSIZE];
    struct timespec  ts;

    if (rfc3339 == NULL || rfc3339[0] == '\0'
        || gcp_time_parse(NULL, rfc3339, strlen(rfc3339), &ts, NULL)
           != GCP_OK)
    {
        json_array_append_new(cells, json_string("<unknown>"));
        return;
    }

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


/* A copy of objs in the order the resource's printer shows them. */

static json_t **
gcp_table_sorted(gcp_op_t *op, json_t **objs, size_t n)
{
    json_t  **sorted;

    sorted = gcp_alloc(op->a, n * sizeof(json_t *));
    if (sorted == NULL) {
        return NULL;
    }

    memcpy(sorted, objs, n * sizeof(json_t *));
    qsort(sorted, n, sizeof(json_t *), op->res->strategy->table_cmp);

    return sorted;
}


int
gcp_table_write(gcp_op_t *op, gcp_buf_t *b, json_t **objs, size_t n,
    int64_t rev, const char *cont, int64_t remaining, int with_columns)
{
    int                  rc;
    size_t               i, ncols;
    json_t              *cells;
    const char          *include, *meta_av;
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

    if (n > 1 && op->res->strategy && op->res->strategy->table_cmp) {
        objs = gcp_table_sorted(op, objs, n);
        if (objs == NULL) {
            return GCP_ENOMEM;
        }
    }

    for (i = 0; i < n; i++) {
        cells = json_array();
        if (cells == NULL) {
            return GCP_ENOMEM;
        }

        rc = gcp_table_cells(op, objs[i], cells);
        if (rc != GCP_OK) {
            json_decref(cells);
            return rc;
        }

        gcp_buf_addstr(b, i ? ",{\"cells\":" : "{\"cells\":");
        gcp_json_dump_buf(b, cells, 0);
        json_decref(cells);

        gcp_buf_addstr(b, ",\"object\":");

        if (strcmp(include, "None") == 0) {
            gcp_buf_addstr(b, "null");

        } else if (strcmp(include, "Object") == 0) {
            gcp_json_dump_buf(b, objs[i], 0);

        } else {
            gcp_buf_printf(b, "{\"kind\":\"PartialObjectMetadata\","
                              "\"apiVersion\":\"%s\",\"metadata\":", meta_av);
            gcp_output_metadata(op, b, objs[i]);
            gcp_buf_addc(b, '}');
        }

        gcp_buf_addc(b, '}');
    }

    gcp_buf_addstr(b, "]}");

    return gcp_buf_failed(b) ? GCP_ENOMEM : GCP_OK;
}
