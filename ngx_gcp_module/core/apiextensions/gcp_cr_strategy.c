
/*
 * The strategy of custom resources (see gcp_crd_int.h), as
 * apiextensions-apiserver's customresource strategy: bodies pruned and
 * defaulted by the version's structural schema, objects validated by it
 * (on update only the fields that changed, as CRD validation ratcheting
 * does), status kept apart when the status subresource is on, the
 * generation bumped by any change outside metadata, Table rows from the
 * printer columns, field selectors from the selectable fields.  Objects
 * are stored in the storage version's form; with conversion strategy None
 * only apiVersion changes between versions.  Keys are sorted, as
 * upstream's unstructured JSON writes them.
 */

#include <stdlib.h>

#include "gcp_cr.h"
#include "gcp_json.h"
#include "gcp_reg.h"
#include "gcp_table.h"


static gcp_cr_res_t *
gcp_cr_of(gcp_op_t *op)
{
    return gcp_cr_res(op->res);
}


static int
gcp_cr_prune(gcp_op_t *op, json_t *obj, const char ***unknown, size_t *n,
    const char **err)
{
    gcp_cr_res_t  *cr = gcp_cr_of(op);

    *unknown = NULL;
    *n = 0;

    if (cr->def->preserve_unknown || cr->version->schema == NULL) {
        return GCP_OK;
    }

    return gcp_crd_schema_prune(cr->version->schema, obj,
                                GCP_CRD_PRUNE_PATHS, op->a, unknown, n, err);
}


static int
gcp_cr_defaults(gcp_op_t *op, json_t *obj)
{
    gcp_cr_res_t  *cr = gcp_cr_of(op);

    if (cr->version->schema
        && gcp_crd_schema_default(cr->version->schema, obj) != GCP_OK)
    {
        return GCP_ENOMEM;
    }

    return gcp_json_sort_keys(obj, 1);
}


static int
gcp_cr_prepare_create(gcp_op_t *op, json_t *obj)
{
    if (gcp_cr_of(op)->version->status) {
        json_object_del(obj, "status");
    }

    if (gcp_json_sort_keys(obj, 1) != GCP_OK) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    return GCP_OK;
}


static int
gcp_cr_prepare_update(gcp_op_t *op, json_t *obj, const json_t *old)
{
    json_t       *st, *meta;
    json_int_t    gen;

    st = json_object_get(old, "status");

    if (gcp_cr_of(op)->version->status) {
        if (st) {
            json_object_set_new(obj, "status", gcp_json_deep_copy(st));

        } else {
            json_object_del(obj, "status");
        }

    } else if (!gcp_json_equal(st, json_object_get(obj, "status"))
               && (st || json_object_get(obj, "status")))
    {
        /*
         * Without the status subresource, status is like the rest: a
         * change bumps the generation (the registry bumps it for the
         * others).
         */

        meta = gcp_meta(obj);
        gen = json_integer_value(json_object_get(json_object_get(old,
                                                                 "metadata"),
                                                 "generation"));
        json_object_set_new(meta, "generation", json_integer(gen + 1));
    }

    if (gcp_json_sort_keys(obj, 1) != GCP_OK) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    return GCP_OK;
}


/* validation */


/*
 * upstream's unstructured.NestedInt64/NestedString on a simple path:
 * returns 1 and the value when found with the right type, 0 when absent,
 * -1 with *why (Go's error) when something on the way has another type.
 */

static int
gcp_cr_nested(gcp_arena_t *a, const json_t *obj, const char *path,
    int integer, const json_t **out, const char **why)
{
    char          *seg;
    size_t         n;
    const char    *p;
    const json_t  *v;

    v = obj;
    p = path[0] == '.' ? path + 1 : path;

    while (*p) {
        n = strcspn(p, ".");
        seg = gcp_strndup(a, p, n);

        if (!json_is_object(v)) {
            *why = gcp_sprintf(a, "%s accessor error: %s is of the type %s, "
                               "expected map[string]interface{}", path,
                               gcp_json_dump(a, v, 0).data,
                               gcp_json_go_kind(v));
            return -1;
        }

        v = json_object_get(v, seg);

        if (v == NULL) {
            return 0;
        }

        p += n;
        p += *p == '.';
    }

    if (integer ? !json_is_integer(v) : !json_is_string(v)) {
        *why = gcp_sprintf(a, "%s accessor error: %s is of the type %s, "
                           "expected %s", path,
                           json_is_string(v) ? json_string_value(v)
                                             : gcp_json_dump(a, v, 0).data,
                           json_is_string(v) ? "string"
                           : json_is_real(v) ? "float64"
                           : json_is_boolean(v) ? "bool"
                           : json_is_integer(v) ? "int64"
                           : json_is_array(v) ? "[]interface {}"
                           : json_is_object(v) ? "map[string]interface {}"
                           : "<nil>",
                           integer ? "int64" : "string");
        return -1;
    }

    *out = v;

    return 1;
}


static void
gcp_cr_validate_replicas(gcp_ferrs_t *errs, const json_t *obj,
    const char *path)
{
    int            rc;
    json_int_t     r;
    const char    *why;
    const json_t  *v;

    v = NULL;
    rc = gcp_cr_nested(errs->arena, obj, path, 1, &v, &why);

    if (rc < 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, path, "0", "%s", why);
        return;
    }

    if (rc == 0) {
        return;
    }

    r = json_integer_value(v);

    if (r < 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, path,
                      gcp_sprintf(errs->arena, "%lld", (long long) r),
                      "should be a non-negative integer");

    } else if (r > 2147483647) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, path,
                      gcp_sprintf(errs->arena, "%lld", (long long) r),
                      "should be less than or equal to 2147483647");
    }
}


static void
gcp_cr_validate_scale(gcp_ferrs_t *errs, const gcp_cr_version_t *v,
    const json_t *obj)
{
    const char    *why;
    const json_t  *sel;

    if (!v->scale) {
        return;
    }

    gcp_cr_validate_replicas(errs, obj, v->spec_replicas_path);
    gcp_cr_validate_replicas(errs, obj, v->status_replicas_path);

    if (v->label_selector_path
        && gcp_cr_nested(errs->arena, obj, v->label_selector_path, 0, &sel,
                         &why) < 0)
    {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, v->label_selector_path, "\"\"",
                      "%s", why);
    }
}


void
gcp_cr_validate(gcp_op_t *op, gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    const char    *kind;
    gcp_cr_res_t  *cr = gcp_cr_of(op);

    kind = json_string_value(json_object_get(obj, "kind"));

    if (kind == NULL || strcmp(kind, op->res->kind) != 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "kind",
                      gcp_ferr_quote(errs->arena, kind ? kind : ""),
                      "must be %s", op->res->kind);
    }

    if (cr->version->schema
        && gcp_crd_schema_validate(cr->version->schema, obj, old, errs)
           != GCP_OK)
    {
        errs->nomem = 1;
        return;
    }

    gcp_cr_validate_scale(errs, cr->version, obj);
}


/* Table rows: the printer columns, as upstream's tableconvertor. */

static void
gcp_cr_cell(json_t *cells, const gcp_cr_column_t *col, const json_t *v)
{
    gcp_buf_t     b;
    gcp_arena_t  *a;

    if (v == NULL || json_is_null(v)) {
        json_array_append_new(cells, json_null());
        return;
    }

    if (strcmp(col->type, "string") == 0) {
        a = gcp_arena_create(0);
        if (a == NULL) {
            json_array_append_new(cells, json_null());
            return;
        }

        gcp_buf_init(&b, a);
        gcp_jsonpath_print(&b, v);
        json_array_append_new(cells, json_stringn(b.data ? b.data : "",
                                                  b.len));
        gcp_arena_destroy(a);
        return;
    }

    if (strcmp(col->type, "integer") == 0 && json_is_number(v)) {
        json_array_append_new(cells, json_integer(json_is_integer(v)
                              ? json_integer_value(v)
                              : (json_int_t) json_real_value(v)));
        return;
    }

    if (strcmp(col->type, "number") == 0 && json_is_number(v)) {
        json_array_append_new(cells, json_is_integer(v) ? json_integer(
                                         json_integer_value(v))
                                     : json_real(json_real_value(v)));
        return;
    }

    if (strcmp(col->type, "boolean") == 0 && json_is_boolean(v)) {
        json_array_append_new(cells, json_boolean(json_is_true(v)));
        return;
    }

    if (strcmp(col->type, "date") == 0 && json_is_string(v)) {
        gcp_table_cell_since(cells, json_string_value(v));
        return;
    }

    json_array_append_new(cells, json_null());
}


static int
gcp_cr_table_cells(gcp_op_t *op, const json_t *obj, json_t *cells)
{
    size_t              i;
    gcp_cr_version_t   *v = gcp_cr_of(op)->version;

    gcp_table_cell_name(cells, obj);

    for (i = 0; i < v->ncolumns; i++) {
        gcp_cr_cell(cells, &v->columns[i],
                    v->columns[i].path
                    ? gcp_jsonpath_first(v->columns[i].path, obj) : NULL);
    }

    return GCP_OK;
}


/* Field selectors on the selectable fields. */

static const char *
gcp_cr_field_value(gcp_op_t *op, const json_t *obj, const char *field)
{
    size_t              i;
    json_t             *val;
    gcp_cr_version_t   *v = gcp_cr_of(op)->version;

    for (i = 0; i < v->nfields; i++) {
        if (strcmp(v->field_labels[i + 2], field) != 0
            || v->field_paths[i] == NULL)
        {
            continue;
        }

        val = gcp_jsonpath_first(v->field_paths[i], obj);

        if (json_is_string(val)) {
            return json_string_value(val);
        }

        if (json_is_boolean(val)) {
            return json_is_true(val) ? "true" : "false";
        }

        if (json_is_integer(val)) {
            return gcp_sprintf(op->a, "%lld",
                               (long long) json_integer_value(val));
        }

        return "";
    }

    return NULL;
}


/* Conversion between versions (strategy None) and defaulting on read. */

static json_t *
gcp_cr_to_version(gcp_op_t *op, const json_t *src, const char *version,
    const gcp_crd_schema_t *schema)
{
    json_t        *obj;
    const char    *err;
    gcp_cr_res_t  *cr = gcp_cr_of(op);

    obj = gcp_json_deep_copy(src);
    if (obj == NULL) {
        return NULL;
    }

    json_object_set_new(obj, "apiVersion",
                        json_string(gcp_sprintf(op->a, "%s/%s",
                                                cr->def->group, version)));

    if (schema
        && (gcp_crd_schema_prune(schema, obj, GCP_CRD_PRUNE_DROP_INVALID,
                                 op->a, NULL, NULL, &err) == GCP_ENOMEM
            || gcp_crd_schema_default(schema, obj) != GCP_OK))
    {
        json_decref(obj);
        return NULL;
    }

    if (gcp_json_sort_keys(obj, 1) != GCP_OK) {
        json_decref(obj);
        return NULL;
    }

    return obj;
}


static json_t *
gcp_cr_to_external(gcp_op_t *op, const json_t *stored)
{
    json_t        *obj, *ext;
    gcp_cr_res_t  *cr = gcp_cr_of(op);

    /* defaults of the storage version when read, then of the request's */

    obj = gcp_cr_to_version(op, stored, cr->def->storage
                                        ? cr->def->storage->name
                                        : cr->version->name,
                            cr->def->storage ? cr->def->storage->schema
                                             : NULL);
    if (obj == NULL || cr->version == cr->def->storage
        || cr->def->conversion.webhook)
    {
        /* a webhook converts it later (convert) */
        return obj;
    }

    ext = gcp_cr_to_version(op, obj, cr->version->name,
                            cr->version->schema);
    json_decref(obj);

    return ext;
}


/*
 * An object of the storage version is its own storage form: the writes
 * only validate and encode it (the encoding sorts its keys).
 */

static json_t *
gcp_cr_to_internal(gcp_op_t *op, const json_t *obj, const char **msg)
{
    size_t         n;
    const char    *av;
    gcp_cr_res_t  *cr = gcp_cr_of(op);

    if (cr->def->storage == NULL) {
        *msg = "the custom resource definition has no storage version";
        return NULL;
    }

    av = json_string_value(json_object_get(obj, "apiVersion"));
    n = strlen(cr->def->group);

    if (av && strncmp(av, cr->def->group, n) == 0 && av[n] == '/'
        && strcmp(av + n + 1, cr->def->storage->name) == 0)
    {
        return json_incref((json_t *) obj);
    }

    return gcp_cr_to_version(op, obj, cr->def->storage->name, NULL);
}


/*
 * Stored bytes are served as they are to requests of the storage version
 * for objects written since the definition last changed: they were pruned
 * and defaulted by the schema in force.
 */

static int
gcp_cr_served_as_stored(gcp_op_t *op, const gcp_kv_t *kv)
{
    gcp_cr_res_t  *cr = gcp_cr_of(op);

    return cr->version == cr->def->storage
           && kv->mod_revision > cr->def->revision;
}


static int
gcp_cr_serve(gcp_op_t *op)
{
    gcp_status_details_t  d;
    gcp_cr_res_t         *cr = gcp_cr_of(op);

    if (cr->def->terminating && strcmp(op->ri.verb, "create") == 0
        && op->sub == NULL)
    {
        memset(&d, 0, sizeof(d));
        d.group = op->res->group;
        d.kind = op->res->name;
        gcp_op_error(op, GCP_EMETHOD, "create not allowed while custom "
                     "resource definition is terminating", &d);
        return 1;
    }

    if (op->sub && strcmp(op->sub->name, "scale") == 0) {
        return gcp_cr_scale_serve(op);
    }

    return 0;
}


/*
 * Conversion webhooks (strategy Webhook): stored objects to the request's
 * version on reads and watches, the request's objects to the storage
 * version on writes.  Nothing of op is used once the call went out.
 */

typedef struct {
    gcp_arena_t     *a;
    json_t         **objs;
    gcp_convert_pt   done;
    void            *arg;
} gcp_cr_conv_t;


static int
gcp_cr_converts(gcp_op_t *op)
{
    gcp_cr_res_t  *cr = gcp_cr_of(op);

    return cr->def->conversion.webhook && cr->version != cr->def->storage;
}


/*
 * Rows are cached, and selectable fields indexed, under the CRD's
 * revision (its columns, selectable fields, schema and defaults), but
 * not through a conversion webhook (its answers are its own).
 */
static int64_t
gcp_cr_epoch(gcp_op_t *op)
{
    return gcp_cr_converts(op) ? -1 : gcp_cr_of(op)->def->revision;
}


static void
gcp_cr_converted(void *arg, int rc, json_t * const *objs, size_t n,
    const char *message)
{
    size_t          i;
    json_t         *obj;
    gcp_cr_conv_t  *cv = arg;

    if (rc != GCP_OK) {
        cv->done(cv->arg, rc, message);
        return;
    }

    for (i = 0; i < n; i++) {
        obj = json_incref(objs[i]);

        if (gcp_json_sort_keys(obj, 1) != GCP_OK) {
            json_decref(obj);
            cv->done(cv->arg, GCP_ENOMEM, NULL);
            return;
        }

        cv->objs[i] = gcp_json_arena(cv->a, obj);
    }

    cv->done(cv->arg, GCP_OK, NULL);
}


/*
 * Converts objs[0..n) of version from (list: the items of a list) to
 * version to of the CRD's group by its webhook.
 */
static void
gcp_cr_convert_between(gcp_op_t *op, gcp_arena_t *a, json_t **objs,
    size_t n, int list, const char *from, const char *to,
    gcp_convert_pt done, void *arg)
{
    gcp_http_t      *http;
    const char      *in;
    gcp_cr_conv_t   *cv;
    gcp_cr_res_t    *cr = gcp_cr_of(op);

    cv = gcp_calloc(a, sizeof(gcp_cr_conv_t));
    http = gcp_crds_http(op->api);

    if (cv == NULL || http == NULL) {
        done(arg, GCP_ENOMEM, NULL);
        return;
    }

    cv->a = a;
    cv->objs = objs;
    cv->done = done;
    cv->arg = arg;

    /* upstream names the kind of what it converts, in its version */

    in = gcp_sprintf(a, "%s/%s, Kind=%s", cr->def->group, from,
                     list ? op->res->list_kind : op->res->kind);
    to = gcp_sprintf(a, "%s/%s", cr->def->group, to);

    if (to == NULL || in == NULL
        || gcp_cr_convert(http, &op->api->conf, a, &cr->def->conversion,
                          in, to, objs, n, list, gcp_cr_converted, cv)
           != GCP_OK)
    {
        done(arg, GCP_ENOMEM, NULL);
    }
}


static void
gcp_cr_convert_objs(gcp_op_t *op, gcp_arena_t *a, json_t **objs, size_t n,
    unsigned flags, gcp_convert_pt done, void *arg)
{
    const char    *to, *from;
    gcp_cr_res_t  *cr = gcp_cr_of(op);

    if (cr->def->storage == NULL) {
        done(arg, GCP_ENOMEM, NULL);
        return;
    }

    from = cr->def->storage->name;
    to = cr->version->name;

    if (flags & GCP_CONVERT_TO_STORAGE) {
        from = cr->version->name;
        to = cr->def->storage->name;
    }

    gcp_cr_convert_between(op, a, objs, n, flags & GCP_CONVERT_LIST, from,
                           to, done, arg);
}


/* The version of the CRD's group api_version names, or NULL. */
static const char *
gcp_cr_version_of(gcp_op_t *op, const char *api_version)
{
    size_t         n;
    gcp_cr_res_t  *cr = gcp_cr_of(op);

    n = strlen(cr->def->group);

    if (strncmp(api_version, cr->def->group, n) != 0
        || api_version[n] != '/')
    {
        return NULL;
    }

    return api_version + n + 1;
}


/* Returns 1 when v names one of the CRD's versions (served or not). */

static int
gcp_cr_has_version(gcp_cr_res_t *cr, const char *v)
{
    size_t  i;

    for (i = 0; v && i < cr->def->nversions; i++) {
        if (strcmp(cr->def->versions[i].name, v) == 0) {
            return 1;
        }
    }

    return 0;
}


/*
 * A version the CRD no longer has is one upstream's converter refuses
 * ("request to convert CR to an invalid group/version"): its entries make
 * an update clear managedFields (UpdateNoErrors) and an apply fail, as
 * kube-apiserver 1.28.4 does; the versions it has read differently only
 * through a webhook.
 */

static int
gcp_cr_converts_to(gcp_op_t *op, const char *api_version)
{
    const char    *v;
    gcp_cr_res_t  *cr = gcp_cr_of(op);

    v = gcp_cr_version_of(op, api_version);

    if (!gcp_cr_has_version(cr, v)) {
        return 1;
    }

    return cr->def->conversion.webhook && strcmp(v, cr->version->name) != 0;
}


/* Between the request's version and api_version's, back when back. */

static void
gcp_cr_convert_other(gcp_op_t *op, gcp_arena_t *a, json_t **objs, size_t n,
    const char *api_version, int back, gcp_convert_pt done, void *arg)
{
    const char    *v;
    gcp_cr_res_t  *cr = gcp_cr_of(op);

    v = gcp_cr_version_of(op, api_version);

    if (!gcp_cr_has_version(cr, v)) {
        done(arg, GCP_EUNKNOWN,
             gcp_sprintf(op->a, "request to convert CR to an invalid "
                         "group/version: %s", api_version));
        return;
    }

    gcp_cr_convert_between(op, a, objs, n, 0,
                           back ? v : cr->version->name,
                           back ? cr->version->name : v, done, arg);
}


static void
gcp_cr_convert_to(gcp_op_t *op, gcp_arena_t *a, json_t **objs, size_t n,
    const char *api_version, gcp_convert_pt done, void *arg)
{
    gcp_cr_convert_other(op, a, objs, n, api_version, 0, done, arg);
}


static void
gcp_cr_convert_from(gcp_op_t *op, gcp_arena_t *a, json_t **objs, size_t n,
    const char *api_version, gcp_convert_pt done, void *arg)
{
    gcp_cr_convert_other(op, a, objs, n, api_version, 1, done, arg);
}


const gcp_strategy_t  gcp_cr_strategy = {
    .prune = gcp_cr_prune,
    .defaults = gcp_cr_defaults,
    .validate_request = gcp_cr_validate,
    .prepare_create = gcp_cr_prepare_create,
    .prepare_update = gcp_cr_prepare_update,
    .table_cells = gcp_cr_table_cells,
    .epoch = gcp_cr_epoch,
    .field_value = gcp_cr_field_value,
    .to_external = gcp_cr_to_external,
    .to_internal = gcp_cr_to_internal,
    .served_as_stored = gcp_cr_served_as_stored,
    .converts = gcp_cr_converts,
    .convert = gcp_cr_convert_objs,
    .converts_to = gcp_cr_converts_to,
    .convert_to = gcp_cr_convert_to,
    .convert_from = gcp_cr_convert_from,
    .serve = gcp_cr_serve,
    .generation = 1,
    .no_unconditional_update = 1,
};
