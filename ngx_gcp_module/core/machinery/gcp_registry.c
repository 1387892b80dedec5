
/*
 * The registry table, request dispatch by verb, and request options.
 */

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>

#include "gcp_media.h"
#include "gcp_objcache.h"
#include "gcp_reg.h"
#include "gcp_selector.h"
#include "gcp_time.h"


gcp_registry_t *
gcp_registry_create(void)
{
    return calloc(1, sizeof(gcp_registry_t));
}


void
gcp_registry_free(gcp_registry_t *reg)
{
    size_t  i;

    if (reg) {
        for (i = 0; i < reg->n; i++) {
            gcp_resource_unref(reg->resources[i]);
        }

        free(reg->resources);
        free(reg);
    }
}


static int
gcp_registry_reserve(gcp_registry_t *reg, size_t n)
{
    size_t                  cap;
    const gcp_resource_t  **r;

    if (n <= reg->cap) {
        return GCP_OK;
    }

    cap = reg->cap ? reg->cap : 16;

    while (cap < n) {
        cap *= 2;
    }

    r = realloc(reg->resources, cap * sizeof(gcp_resource_t *));
    if (r == NULL) {
        return GCP_ENOMEM;
    }

    reg->resources = r;
    reg->cap = cap;

    return GCP_OK;
}


int
gcp_registry_add(gcp_registry_t *reg, const gcp_resource_t *res)
{
    if (gcp_registry_reserve(reg, reg->n + 1) != GCP_OK) {
        return GCP_ENOMEM;
    }

    /* static resources go before those built at run time */

    memmove(&reg->resources[reg->nstatic + 1],
            &reg->resources[reg->nstatic],
            (reg->n - reg->nstatic) * sizeof(gcp_resource_t *));

    reg->resources[reg->nstatic++] = res;
    reg->n++;
    reg->generation++;

    gcp_resource_ref(res);

    return GCP_OK;
}


int
gcp_registry_set_dynamic(gcp_registry_t *reg,
    const gcp_resource_t * const *res, size_t n)
{
    size_t  i;

    if (gcp_registry_reserve(reg, reg->nstatic + n) != GCP_OK) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < n; i++) {
        gcp_resource_ref(res[i]);
    }

    for (i = reg->nstatic; i < reg->n; i++) {
        gcp_resource_unref(reg->resources[i]);
    }

    if (n) {
        memcpy(&reg->resources[reg->nstatic], res,
               n * sizeof(gcp_resource_t *));
    }

    reg->n = reg->nstatic + n;
    reg->generation++;

    return GCP_OK;
}


void
gcp_resource_ref(const gcp_resource_t *res)
{
    if (res->owner) {
        res->owner->refs++;
    }
}


void
gcp_resource_unref(const gcp_resource_t *res)
{
    if (res->owner && --res->owner->refs == 0) {
        res->owner->release(res->owner);
    }
}


static void
gcp_resource_hold_cleanup(void *data)
{
    gcp_resource_unref(data);
}


int
gcp_resource_hold(gcp_arena_t *a, const gcp_resource_t *res)
{
    if (res->owner == NULL) {
        return GCP_OK;
    }

    /* a cleanup that cannot be registered runs at once: ref first */

    gcp_resource_ref(res);

    return gcp_arena_cleanup(a, gcp_resource_hold_cleanup, (void *) res);
}


const gcp_resource_t *
gcp_registry_find(const gcp_registry_t *reg, const char *group,
    const char *version, const char *resource)
{
    size_t                 i;
    const gcp_resource_t  *r;

    for (i = 0; i < reg->n; i++) {
        r = reg->resources[i];

        if (strcmp(r->name, resource) == 0 && strcmp(r->group, group) == 0
            && strcmp(r->version, version) == 0)
        {
            return r;
        }
    }

    return NULL;
}


int
gcp_registry_has_gv(const gcp_registry_t *reg, const char *group,
    const char *version)
{
    size_t  i;

    for (i = 0; i < reg->n; i++) {
        if (strcmp(reg->resources[i]->group, group) == 0
            && strcmp(reg->resources[i]->version, version) == 0)
        {
            return 1;
        }
    }

    return 0;
}


int
gcp_registry_has_group(const gcp_registry_t *reg, const char *group)
{
    size_t  i;

    for (i = 0; i < reg->n; i++) {
        if (strcmp(reg->resources[i]->group, group) == 0) {
            return 1;
        }
    }

    return 0;
}


const gcp_subresource_t *
gcp_resource_sub(const gcp_resource_t *res, const char *name)
{
    size_t  i;

    for (i = 0; i < res->nsubresources; i++) {
        if (strcmp(res->subresources[i].name, name) == 0) {
            return &res->subresources[i];
        }
    }

    return NULL;
}


static void
gcp_reg_method_not_allowed(gcp_op_t *op)
{
    gcp_status_details_t  d;

    memset(&d, 0, sizeof(d));

    gcp_op_error(op, GCP_EMETHOD, NULL, &d);
}


/*
 * A GET or LIST of a client's request: its answer's values may point into
 * the store's read snapshot until the request's arena goes.  Not for the
 * in-process client's requests, whose arenas may live long (a lease held
 * by the leader election): they would pin the store's old pages.
 */
static void
gcp_reg_brief(gcp_op_t *op)
{
    if (!op->req->internal) {
        gcp_arena_set_brief(op->a);
    }
}


void
gcp_registry_handle(gcp_op_t *op)
{
    unsigned              verbs;
    const char           *verb, *method;
    const gcp_reqinfo_t  *ri = &op->ri;

    verb = ri->verb;
    method = op->req->method;
    verbs = op->sub ? op->sub->verbs : op->res->verbs;

    if (op->res->strategy && op->res->strategy->serve
        && op->res->strategy->serve(op))
    {
        return;
    }

    if (strcmp(method, "HEAD") == 0 || strcmp(method, "OPTIONS") == 0) {
        gcp_reg_method_not_allowed(op);
        return;
    }

    if (ri->name[0] == '\0') {

        /* collections */

        if (op->res->namespaced && ri->ns[0] == '\0'
            && (strcmp(verb, "create") == 0
                || strcmp(verb, "deletecollection") == 0))
        {
            gcp_reg_method_not_allowed(op);
            return;
        }

        if (strcmp(verb, "list") == 0 && (verbs & GCP_VERB_LIST)) {
            gcp_reg_brief(op);
            gcp_reg_list(op);

        } else if (strcmp(verb, "watch") == 0 && (verbs & GCP_VERB_WATCH)) {
            gcp_reg_list(op);

        } else if (strcmp(verb, "create") == 0
                   && (verbs & GCP_VERB_CREATE))
        {
            gcp_reg_create(op);

        } else if (strcmp(verb, "deletecollection") == 0
                   && (verbs & GCP_VERB_DELETECOLLECTION))
        {
            gcp_reg_deletecollection(op);

        } else {
            gcp_reg_method_not_allowed(op);
        }

        return;
    }

    /* one object, or its subresource */

    if (strcmp(verb, "watch") == 0 && ri->legacy_watch && op->sub == NULL
        && (verbs & GCP_VERB_WATCH))
    {
        gcp_reg_list(op);

    } else if (strcmp(verb, "get") == 0 && (verbs & GCP_VERB_GET)) {
        if (op->sub && gcp_query_bool(&op->q, "watch") == 1
            && !(verbs & GCP_VERB_WATCH))
        {
            gcp_reg_method_not_allowed(op);
            return;
        }

        if (gcp_query_bool(&op->q, "watch") != 1) {
            gcp_reg_brief(op);
        }

        gcp_reg_get(op);

    } else if (strcmp(verb, "update") == 0 && (verbs & GCP_VERB_UPDATE)) {
        gcp_reg_update(op);

    } else if (strcmp(verb, "patch") == 0 && (verbs & GCP_VERB_PATCH)) {
        gcp_reg_patch(op);

    } else if (strcmp(verb, "delete") == 0 && (verbs & GCP_VERB_DELETE)) {
        gcp_reg_delete(op);

    } else {
        gcp_reg_method_not_allowed(op);
    }
}


/* options */


static void
gcp_reg_options_invalid(gcp_op_t *op, const char *options_kind,
    gcp_ferrs_t *errs)
{
    gcp_status_details_t  d;

    memset(&d, 0, sizeof(d));

    d.group = "meta.k8s.io";
    d.kind = options_kind;
    d.causes = errs;

    gcp_op_error(op, GCP_EINVALID,
                 gcp_ferrs_message(errs,
                                   gcp_sprintf(op->a, "%s.meta.k8s.io",
                                               options_kind), ""),
                 &d);
}


int
gcp_reg_write_opts(gcp_op_t *op, const char *options_kind, int *dry_run,
    gcp_field_validation_t *fv)
{
    size_t        i;
    gcp_buf_t     b;
    gcp_ferrs_t   errs;
    const char   *v;

    gcp_ferrs_init(&errs, op->a);

    *dry_run = 0;
    *fv = GCP_FV_WARN;

    if (strcmp(options_kind, "PatchOptions") == 0) {
        v = gcp_query_get(&op->q, "fieldManager");

        if (!gcp_reg_is_apply(op)) {
            if (gcp_query_get(&op->q, "force")) {
                gcp_ferrs_add(&errs, GCP_FERR_FORBIDDEN, "force", NULL,
                              "may not be specified for non-apply patch");
            }

        } else if (v == NULL || v[0] == '\0') {
            gcp_ferrs_add(&errs, GCP_FERR_REQUIRED, "fieldManager", NULL,
                          "is required for apply patch");
        }
    }

    /* dryRun may repeat; every value must be "All" */

    gcp_buf_init(&b, op->a);

    for (i = 0; i < op->q.n; i++) {
        if (strcmp(op->q.params[i].name, "dryRun") != 0) {
            continue;
        }

        if (strcmp(op->q.params[i].value, "All") == 0) {
            *dry_run = 1;
            continue;
        }

        *dry_run = -1;
    }

    if (*dry_run < 0) {
        gcp_buf_addstr(&b, "[]string{");

        for (i = 0; i < op->q.n; i++) {
            if (strcmp(op->q.params[i].name, "dryRun") == 0) {
                if (b.len > 9) {
                    gcp_buf_addstr(&b, ", ");
                }

                gcp_buf_addstr(&b, gcp_ferr_quote(op->a,
                                                  op->q.params[i].value));
            }
        }

        gcp_buf_addc(&b, '}');

        gcp_ferrs_add(&errs, GCP_FERR_NOT_SUPPORTED, "dryRun",
                      gcp_buf_cstr(&b), "supported values: \"All\"");
    }

    v = gcp_query_get(&op->q, "fieldValidation");

    if (v && v[0]) {
        if (strcmp(v, "Ignore") == 0) {
            *fv = GCP_FV_IGNORE;

        } else if (strcmp(v, "Warn") == 0) {
            *fv = GCP_FV_WARN;

        } else if (strcmp(v, "Strict") == 0) {
            *fv = GCP_FV_STRICT;

        } else {
            gcp_ferrs_add(&errs, GCP_FERR_NOT_SUPPORTED, "fieldValidation",
                          gcp_ferr_quote(op->a, v),
                          "supported values: \"\", \"Ignore\", "
                          "\"Strict\", \"Warn\"");
        }
    }

    v = gcp_query_get(&op->q, "fieldManager");

    if (v && strlen(v) > 128) {
        gcp_ferrs_add(&errs, GCP_FERR_TOO_LONG, "fieldManager", NULL,
                      "may not be more than 128 bytes");
    }

    if (errs.n) {
        gcp_reg_options_invalid(op, options_kind, &errs);
        return GCP_EINVALID;
    }

    return GCP_OK;
}


int
gcp_reg_query_rv(gcp_op_t *op, int64_t *rv)
{
    size_t       i, n;
    const char  *v, *why;

    *rv = -1;

    v = gcp_query_get(&op->q, "resourceVersion");
    if (v == NULL || v[0] == '\0') {
        return GCP_OK;
    }

    *rv = gcp_parse_rv(v);

    if (*rv >= 0) {
        return GCP_OK;
    }

    /*
     * kube-apiserver's watch cache parses it with strconv.ParseUint and
     * answers the field error as a plain error: 500, no reason
     */

    n = strlen(v);

    for (i = 0; i < n && v[i] >= '0' && v[i] <= '9'; i++) {
        /* void */
    }

    why = i == n ? "value out of range" : "invalid syntax";

    gcp_reg_error_plain(op, 500,
                        gcp_sprintf(op->a, "resourceVersion: Invalid value: "
                                    "%s: strconv.ParseUint: parsing %s: %s",
                                    gcp_ferr_quote(op->a, v),
                                    gcp_ferr_quote(op->a, v), why));

    return GCP_EINTERNAL;
}


void
gcp_reg_error_plain(gcp_op_t *op, int status, const char *message)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, op->a);
    gcp_status_failure(&b, status, NULL, message, NULL);
    gcp_op_respond_status(op, status, &b);
}


int
gcp_reg_query_int(gcp_op_t *op, const char *s, int64_t *out)
{
    char        *end;
    long long    v;
    const char  *why;

    errno = 0;
    v = 0;
    end = NULL;

    if ((s[0] >= '0' && s[0] <= '9')
        || ((s[0] == '-' || s[0] == '+') && s[1] >= '0' && s[1] <= '9'))
    {
        v = strtoll(s, &end, 10);
    }

    if (end && *end == '\0' && errno == 0) {
        *out = v;
        return GCP_OK;
    }

    why = end && *end == '\0' ? "value out of range" : "invalid syntax";

    gcp_op_error(op, GCP_EBADREQUEST,
                 gcp_sprintf(op->a, "strconv.ParseInt: parsing %s: %s",
                             gcp_ferr_quote(op->a, s), why),
                 NULL);

    return GCP_EBADREQUEST;
}


int
gcp_reg_is_apply(gcp_op_t *op)
{
    const char  *ct;

    ct = gcp_media_content_type(op->a, op->req->content_type);

    return strcmp(ct, "application/apply-patch+yaml") == 0;
}


/* ValidateListOptions of a watch (match: resourceVersionMatch or NULL) */

static void
gcp_reg_watch_opts_check(gcp_op_t *op, gcp_list_opts_t *lo,
    const char *match, gcp_ferrs_t *errs)
{
    if (lo->send_initial_set
        && lo->rv_match != GCP_RV_MATCH_NOT_OLDER)
    {
        gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "resourceVersionMatch",
                      NULL, "sendInitialEvents requires setting "
                      "resourceVersionMatch to NotOlderThan");
    }

    if (match == NULL || match[0] == '\0') {
        return;
    }

    if (!lo->send_initial_set) {
        gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "resourceVersionMatch",
                      NULL, "resourceVersionMatch is forbidden for watch "
                      "unless sendInitialEvents is provided");
    }

    if (lo->rv_match != GCP_RV_MATCH_NOT_OLDER) {
        gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED, "resourceVersionMatch",
                      gcp_ferr_quote(op->a, match),
                      "supported values: \"NotOlderThan\"");
    }
}


/* ValidateListOptions of a list */

static void
gcp_reg_list_opts_check(gcp_op_t *op, gcp_list_opts_t *lo,
    const char *match, gcp_ferrs_t *errs)
{
    if (match && match[0]) {
        if (lo->rv < 0) {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "resourceVersionMatch",
                          NULL, "resourceVersionMatch is forbidden unless "
                          "resourceVersion is provided");
        }

        if (gcp_query_get(&op->q, "continue")
            && gcp_query_get(&op->q, "continue")[0])
        {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "resourceVersionMatch",
                          NULL, "resourceVersionMatch is forbidden when "
                          "continue is provided");
        }

        if (lo->rv_match < 0) {
            gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED,
                          "resourceVersionMatch",
                          gcp_ferr_quote(op->a, match),
                          "supported values: \"Exact\", \"NotOlderThan\", "
                          "\"\"");
        }

        if (lo->rv_match == GCP_RV_MATCH_EXACT && lo->rv == 0) {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "resourceVersionMatch",
                          NULL, "resourceVersionMatch \"exact\" is "
                          "forbidden for resourceVersion \"0\"");
        }
    }

    if (lo->send_initial_set) {
        gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, "sendInitialEvents", NULL,
                      "sendInitialEvents is forbidden for list");
    }
}


int
gcp_reg_list_opts(gcp_op_t *op, gcp_list_opts_t *lo)
{
    int                  rc, b;
    const char          *v, *msg;
    gcp_ferrs_t          errs;

    memset(lo, 0, sizeof(gcp_list_opts_t));

    lo->rv = -1;
    gcp_ferrs_init(&errs, op->a);

    lo->watch = strcmp(op->ri.verb, "watch") == 0;
    lo->bookmarks = gcp_query_bool(&op->q, "allowWatchBookmarks") == 1;

    b = gcp_query_bool(&op->q, "sendInitialEvents");
    if (b != -1) {
        lo->send_initial_set = 1;
        lo->send_initial = b;
    }

    if (gcp_reg_query_rv(op, &lo->rv) != GCP_OK) {
        return GCP_EINTERNAL;
    }

    v = gcp_query_get(&op->q, "resourceVersionMatch");
    if (v && v[0]) {
        if (strcmp(v, "Exact") == 0) {
            lo->rv_match = GCP_RV_MATCH_EXACT;

        } else if (strcmp(v, "NotOlderThan") == 0) {
            lo->rv_match = GCP_RV_MATCH_NOT_OLDER;

        } else {
            lo->rv_match = -1;
        }
    }

    if (lo->watch) {
        gcp_reg_watch_opts_check(op, lo, v, &errs);

    } else {
        gcp_reg_list_opts_check(op, lo, v, &errs);
    }

    v = gcp_query_get(&op->q, "limit");
    if (v && v[0] && gcp_reg_query_int(op, v, &lo->limit) != GCP_OK) {
        return GCP_EBADREQUEST;
    }

    if (lo->limit < 0) {
        lo->limit = 0;
    }

    v = gcp_query_get(&op->q, "timeoutSeconds");
    if (v && v[0] && gcp_reg_query_int(op, v, &lo->timeout) != GCP_OK) {
        return GCP_EBADREQUEST;
    }

    lo->cont = gcp_query_get(&op->q, "continue");
    if (lo->cont && lo->cont[0] == '\0') {
        lo->cont = NULL;
    }

    if (errs.n) {
        gcp_reg_options_invalid(op, "ListOptions", &errs);
        return GCP_EINVALID;
    }

    if (lo->cont && lo->rv > 0) {
        gcp_op_error(op, GCP_EBADREQUEST,
                     "specifying resource version is not allowed when "
                     "using continue", NULL);
        return GCP_EBADREQUEST;
    }

    lo->include_object = gcp_query_get(&op->q, "includeObject");

    /* TableOptions: only read when a Table was asked for */

    if (op->media.kind == GCP_MEDIA_TABLE
        && lo->include_object && lo->include_object[0]
        && strcmp(lo->include_object, "None") != 0
        && strcmp(lo->include_object, "Metadata") != 0
        && strcmp(lo->include_object, "Object") != 0)
    {
        gcp_op_error(op, GCP_EBADREQUEST,
                     gcp_sprintf(op->a, "Unable to convert to Table as "
                                 "requested: includeObject: Invalid value: "
                                 "%s: must be 'Metadata', 'Object', 'None', "
                                 "or empty",
                                 gcp_ferr_quote(op->a, lo->include_object)),
                     NULL);
        return GCP_EBADREQUEST;
    }

    /* selectors */

    v = gcp_query_get(&op->q, "labelSelector");
    if (v && v[0]) {
        lo->label_selector = v;

        rc = gcp_label_selector_parse(op->a, v, strlen(v),
                                      (gcp_label_selector_t **) &lo->labels,
                                      &msg);
        if (rc != GCP_OK) {
            gcp_op_error(op, GCP_EBADREQUEST, msg, NULL);
            return GCP_EBADREQUEST;
        }
    }

    v = gcp_query_get(&op->q, "fieldSelector");
    if (v && v[0]) {
        lo->field_selector = v;

        rc = gcp_field_selector_parse(op->a, v, strlen(v),
                                      op->res->field_labels,
                                      (gcp_field_selector_t **) &lo->fields,
                                      &msg);
        if (rc != GCP_OK) {
            gcp_op_error(op, GCP_EBADREQUEST, msg, NULL);
            return GCP_EBADREQUEST;
        }

        lo->name = gcp_field_selector_requires(lo->fields, "metadata.name");
    }

    if (op->ri.name[0]) {
        /* legacy /watch/.../NAME */
        lo->name = op->ri.name;
    }

    return GCP_OK;
}


typedef struct {
    gcp_op_t      *op;
    const json_t  *obj;
} gcp_reg_field_ctx_t;


static const char *
gcp_reg_field_get(void *ctx, const char *field)
{
    const char           *v;
    gcp_reg_field_ctx_t  *fc = ctx;

    if (strcmp(field, "metadata.name") == 0) {
        return gcp_meta_str(fc->obj, "name");
    }

    if (strcmp(field, "metadata.namespace") == 0) {
        return gcp_meta_str(fc->obj, "namespace");
    }

    if (fc->op->res->strategy && fc->op->res->strategy->field_value) {
        v = fc->op->res->strategy->field_value(fc->op, fc->obj, field);
        return v ? v : "";
    }

    return "";
}


int64_t
gcp_reg_epoch(gcp_op_t *op)
{
    if (op->res->strategy && op->res->strategy->epoch) {
        return op->res->strategy->epoch(op);
    }

    return op->res->owner ? -1 : 0;
}


int
gcp_reg_matches(gcp_op_t *op, const gcp_list_opts_t *lo, const json_t *obj)
{
    gcp_reg_field_ctx_t  fc;

    if (lo->labels
        && !gcp_label_selector_matches(lo->labels,
                                       json_object_get(
                                           json_object_get(obj, "metadata"),
                                           "labels")))
    {
        return 0;
    }

    if (lo->fields) {
        fc.op = op;
        fc.obj = obj;

        if (!gcp_field_selector_matches(lo->fields, gcp_reg_field_get, &fc)) {
            return 0;
        }
    }

    if (lo->name && strcmp(gcp_meta_str(obj, "name"), lo->name) != 0) {
        return 0;
    }

    return 1;
}


/* shared helpers */


const char *
gcp_reg_api_version(gcp_op_t *op)
{
    return gcp_resource_api_version(op->a, op->res);
}


gcp_str_t
gcp_reg_key(gcp_op_t *op)
{
    return gcp_object_key(op->a, op->res, op->ri.ns, op->ri.name);
}


const char *
gcp_reg_internal_kind(gcp_op_t *op)
{
    const char  *g, *dot;

    g = op->res->group;

    if (g[0] == '\0') {
        return gcp_sprintf(op->a, "core.%s", op->res->kind);
    }

    dot = strchr(g, '.');

    return gcp_sprintf(op->a, "%.*s.%s",
                       (int) (dot ? (size_t) (dot - g) : strlen(g)), g,
                       op->res->kind);
}


/*
 * The stored form of kv, decoded: from the process's object cache when it
 * holds this revision (*shared set: read-only), else parsed, and cached
 * when keep is set.
 */

static json_t *
gcp_reg_decode_stored(gcp_op_t *op, const gcp_kv_t *kv, int keep,
    int *shared)
{
    json_t  *obj;

    *shared = 0;

    if (op->api->objcache && kv->mod_revision > 0) {
        obj = gcp_objcache_get(op->api->objcache, kv->key, kv->mod_revision);

        if (obj) {
            *shared = 1;
            return gcp_json_arena(op->a, obj);
        }
    }

    obj = gcp_object_decode_flags(op->a, kv->value, kv->mod_revision,
                                  gcp_reg_splice_flags(op, 0));

    if (keep && obj && op->api->objcache && kv->mod_revision > 0
        && kv->key.len)
    {
        gcp_objcache_put(op->api->objcache, kv->key, kv->mod_revision, obj,
                         kv->value.len * GCP_OBJCACHE_COST);
        *shared = 1;
    }

    return obj;
}


/* kv decoded into the resource's form (see gcp_reg_decode_stored()). */

static json_t *
gcp_reg_decode_ext(gcp_op_t *op, const gcp_kv_t *kv, int keep, int *shared)
{
    json_t                *obj;
    const gcp_strategy_t  *st = op->res->strategy;

    obj = gcp_reg_decode_stored(op, kv, keep, shared);

    if (obj && st && st->to_external) {
        /* (its result may share parts of what it converts) */
        obj = gcp_json_arena(op->a, st->to_external(op, obj));
    }

    return obj;
}


json_t *
gcp_reg_decode_kv(gcp_op_t *op, const gcp_kv_t *kv)
{
    int  shared;

    return gcp_reg_decode_ext(op, kv, 1, &shared);
}


int
gcp_reg_served_as_stored(gcp_op_t *op, const gcp_kv_t *kv)
{
    const gcp_strategy_t  *st = op->res->strategy;

    if (st == NULL || st->to_external == NULL) {
        return 1;
    }

    return st->served_as_stored && kv && st->served_as_stored(op, kv);
}


unsigned
gcp_reg_splice_flags(const gcp_op_t *op, int list_item)
{
    if (op->res->unstructured) {
        return GCP_SPLICE_SORTED;
    }

    return list_item ? GCP_SPLICE_STRIP_TYPEMETA : 0;
}


json_t *
gcp_reg_own_meta(gcp_op_t *op, const json_t *obj)
{
    json_t  *copy, *meta;

    copy = gcp_json_arena(op->a, gcp_json_copy(obj));
    if (copy == NULL) {
        return NULL;
    }

    meta = json_object_get(obj, "metadata");

    if (meta && json_object_set_new(copy, "metadata", gcp_json_copy(meta)) != 0)
    {
        return NULL;
    }

    return copy;
}


json_t *
gcp_reg_decode_kv_copy(gcp_op_t *op, const gcp_kv_t *kv)
{
    int      shared;
    json_t  *obj;

    /*
     * Not cached: a write reads the revision it replaces, which no one
     * reads again; parsed for this request alone, it needs no copy.
     */

    obj = gcp_reg_decode_ext(op, kv, 0, &shared);

    return obj && shared ? gcp_json_arena(op->a, gcp_json_deep_copy(obj))
                         : obj;
}


int
gcp_reg_converts(gcp_op_t *op)
{
    const gcp_strategy_t  *st = op->res->strategy;

    return st && st->convert && st->converts && st->converts(op);
}


typedef struct {
    gcp_op_t   *op;
    void      (*done)(gcp_op_t *op, void *arg);
    void       *arg;
} gcp_reg_conv_t;


static void
gcp_reg_converted(void *arg, int rc, const char *message)
{
    gcp_reg_conv_t  *cv = arg;

    if (rc != GCP_OK) {
        /* upstream's plain error: a 500 without a reason */
        gcp_op_error(cv->op, rc == GCP_ENOMEM ? GCP_ENOMEM : GCP_EUNKNOWN,
                     message, NULL);
        return;
    }

    cv->done(cv->op, cv->arg);
}


void
gcp_reg_convert(gcp_op_t *op, json_t **objs, size_t n, unsigned flags,
    void (*done)(gcp_op_t *op, void *arg), void *arg)
{
    gcp_reg_conv_t  *cv;

    cv = gcp_calloc(op->a, sizeof(gcp_reg_conv_t));
    if (cv == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    cv->op = op;
    cv->done = done;
    cv->arg = arg;

    op->res->strategy->convert(op, op->a, objs, n, flags, gcp_reg_converted,
                               cv);
}


json_t *
gcp_reg_to_storage(gcp_op_t *op, json_t *obj)
{
    const char            *msg;
    json_t                *in;
    const gcp_strategy_t  *st = op->res->strategy;

    if (st == NULL || st->to_internal == NULL) {
        return obj;
    }

    in = st->to_internal(op, obj, &msg);

    return gcp_json_arena(op->a, in);
}


gcp_str_t
gcp_reg_encode(gcp_op_t *op, const json_t *obj)
{
    const gcp_strategy_t  *st = op->res->strategy;

    if (op->res->unstructured) {
        return gcp_object_encode_sorted(op->a, obj);
    }

    if (st && st->storage_order) {
        return gcp_object_encode(op->a, obj, st->storage_order);
    }

    return gcp_object_encode(op->a, obj, st ? st->field_order : NULL);
}


const char *
gcp_reg_now(gcp_op_t *op)
{
    return gcp_time_str(op->a, gcp_time_now().tv_sec);
}


void
gcp_reg_store_error(gcp_op_t *op, gcp_store_result_t *res, const char *name)
{
    switch (res->rc) {

    case GCP_ENOTFOUND:
        gcp_op_not_found(op, op->res, name);
        return;

    case GCP_EEXISTS:
        gcp_op_error_obj(op, GCP_EEXISTS,
                         gcp_sprintf(op->a, "%s \"%s\" already exists",
                                     gcp_op_qualified_resource(op, op->res),
                                     name),
                         name);
        return;

    case GCP_ECONFLICT:
        gcp_op_error_obj(op, GCP_ECONFLICT,
                         gcp_sprintf(op->a, "Operation cannot be fulfilled "
                                     "on %s \"%s\": the object has been "
                                     "modified; please apply your changes "
                                     "to the latest version and try again",
                                     gcp_op_qualified_resource(op, op->res),
                                     name),
                         name);
        return;

    default:
        gcp_op_error(op, res->rc, res->message, NULL);
    }
}
