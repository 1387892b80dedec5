
/*
 * The scale subresource of custom resources (autoscaling/v1 Scale), as
 * apiextensions-apiserver's ScaleREST: a Scale made of the object's name,
 * namespace, uid, resourceVersion and creationTimestamp, spec.replicas at
 * specReplicasPath, status.replicas and status.selector at the status
 * paths; a write (PUT of a Scale, or a JSON, merge or strategic merge
 * patch of it) sets spec.replicas in the object, which is validated and
 * admitted as an update of the custom resource and written conditionally
 * on the revision read (lost races without a precondition are retried),
 * its managedFields kept as upstream's ScaleHandler keeps them (the
 * writer owns the replicas field, with subresource scale).  A patch that
 * leaves an object's unset replicas unset is refused.  With a conversion
 * webhook, the object is read and written in the request's version as
 * upstream's storage codec does: the stored one converted before the
 * Scale is made of it, the changed one converted to the storage version
 * before it is stored (a dry run too), and what was stored converted back
 * for the answer.
 */

#include <stdlib.h>

#include "gcp_admission.h"
#include "gcp_cr.h"
#include "gcp_json.h"
#include "gcp_media.h"
#include "gcp_patch.h"
#include "gcp_reg.h"


#define GCP_SCALE_RETRIES  16

/* spec.replicas of a Scale whose object has none, for a write (upstream) */
#define GCP_SCALE_UNSET    (-2147483647LL - 1)

#define GCP_SCALE_SCHEMA   "io.k8s.api.autoscaling.v1.Scale"


typedef struct {
    gcp_op_t       *op;
    gcp_cr_res_t   *cr;
    gcp_kv_t        kv;             /* as read */
    json_t         *old;            /* decoded, the request's version */
    json_t         *obj;            /* with the new replicas */
    json_t         *stored;         /* obj in the storage version */
    gcp_str_t       value;          /* stored's bytes */
    int64_t         rev;            /* written at */
    json_int_t      replicas;
    json_t         *applied_mf;     /* an apply's Scale entries, or NULL */
    const char     *precondition;   /* the Scale's resourceVersion */
    gcp_admit_t     ad;
    unsigned        retries;
    unsigned        dry_run:1;
} gcp_scale_t;


static void gcp_scale_read(gcp_scale_t *s);


/* upstream's NestedInt64 without the error: 0 when absent or not one */

static json_int_t
gcp_scale_int(const gcp_jsonpath_t *jp, const json_t *obj)
{
    json_t  *v;

    v = jp ? gcp_jsonpath_first(jp, obj) : NULL;

    return json_is_integer(v) ? json_integer_value(v) : 0;
}


/*
 * The Scale of obj (stored at revision rv), compact JSON.  For a write
 * (the Scale a patch applies to), spec.replicas the object lacks is
 * GCP_SCALE_UNSET, as upstream's ScaleREST marks it.
 */

static void
gcp_scale_json(gcp_scale_t *s, gcp_buf_t *b, const json_t *obj, int64_t rv,
    int write)
{
    json_t            *meta, *v;
    long long          replicas;
    const char        *sel;
    gcp_cr_version_t  *ver = s->cr->version;

    meta = json_object_get(obj, "metadata");

    gcp_buf_addstr(b, "{\"kind\":\"Scale\",\"apiVersion\":\"autoscaling/v1\","
                      "\"metadata\":{\"name\":");
    v = json_object_get(meta, "name");
    gcp_json_add_string(b, json_string_value(v) ? json_string_value(v) : "",
                        json_string_length(v));

    v = json_object_get(meta, "namespace");
    if (json_string_length(v)) {
        gcp_buf_addstr(b, ",\"namespace\":");
        gcp_json_add_string(b, json_string_value(v), json_string_length(v));
    }

    v = json_object_get(meta, "uid");
    if (json_string_length(v)) {
        gcp_buf_addstr(b, ",\"uid\":");
        gcp_json_add_string(b, json_string_value(v), json_string_length(v));
    }

    if (rv > 0) {
        gcp_buf_printf(b, ",\"resourceVersion\":\"%lld\"", (long long) rv);
    }

    v = json_object_get(meta, "creationTimestamp");
    gcp_buf_addstr(b, ",\"creationTimestamp\":");

    if (json_string_length(v)) {
        gcp_json_add_string(b, json_string_value(v), json_string_length(v));

    } else {
        gcp_buf_addstr(b, "null");
    }

    replicas = (int32_t) gcp_scale_int(ver->spec_replicas, obj);

    if (write && (ver->spec_replicas == NULL
                  || gcp_jsonpath_first(ver->spec_replicas, obj) == NULL))
    {
        replicas = GCP_SCALE_UNSET;
    }

    /* ScaleSpec's replicas is omitempty, ScaleStatus's is not */

    gcp_buf_addstr(b, "},\"spec\":{");

    if (replicas != 0) {
        gcp_buf_printf(b, "\"replicas\":%lld", replicas);
    }

    gcp_buf_printf(b, "},\"status\":{\"replicas\":%lld",
                   (long long) (int32_t) gcp_scale_int(ver->status_replicas,
                                                        obj));

    v = ver->label_selector ? gcp_jsonpath_first(ver->label_selector, obj)
                            : NULL;
    sel = json_string_value(v);

    if (sel && sel[0]) {
        gcp_buf_addstr(b, ",\"selector\":");
        gcp_json_add_string(b, sel, strlen(sel));
    }

    gcp_buf_addstr(b, "}}");
}


static void
gcp_scale_respond(gcp_scale_t *s, const json_t *obj, int64_t rv)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, s->op->a);
    gcp_scale_json(s, &b, obj, rv, 0);
    gcp_output_send(s->op, 200, &b);
}


/* Sets obj's value at a simple path (".spec.replicas"), making parents. */

static int
gcp_scale_set(gcp_arena_t *a, json_t *obj, const char *path, json_t *v)
{
    char        *seg;
    size_t       n;
    json_t      *next;
    const char  *p;

    p = path[0] == '.' ? path + 1 : path;

    for ( ;; ) {
        n = strcspn(p, ".");
        seg = gcp_strndup(a, p, n);

        if (seg == NULL || !json_is_object(obj)) {
            json_decref(v);
            return GCP_EINVALID;
        }

        if (p[n] == '\0') {
            return json_object_set_new(obj, seg, v) == 0 ? GCP_OK
                                                          : GCP_ENOMEM;
        }

        next = json_object_get(obj, seg);

        if (next == NULL || json_is_null(next)) {
            next = json_object();
            json_object_set_new(obj, seg, next);
        }

        obj = next;
        p += n + 1;
    }
}


static void
gcp_scale_respond_converted(gcp_op_t *op, void *arg)
{
    gcp_scale_t  *s = arg;

    gcp_scale_respond(s, s->obj, s->rev);
}


/*
 * The answer to a write stored at s->rev as s->value (a dry run: what
 * would be stored, at the revision read).
 */

static void
gcp_scale_answer(gcp_scale_t *s)
{
    gcp_kv_t  kv;

    if (!gcp_reg_converts(s->op)) {
        gcp_scale_respond(s, s->obj, s->rev);
        return;
    }

    /* what was stored, decoded into the request's version */

    memset(&kv, 0, sizeof(kv));
    kv.value = s->value;
    kv.mod_revision = s->rev;

    s->obj = gcp_reg_decode_kv_copy(s->op, &kv);

    if (s->obj == NULL) {
        gcp_op_error(s->op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    gcp_reg_convert(s->op, &s->obj, 1, 0, gcp_scale_respond_converted, s);
}


static void
gcp_scale_written(void *arg, gcp_store_result_t *res)
{
    gcp_scale_t  *s = arg;

    if (res->rc == GCP_ECONFLICT && s->precondition == NULL
        && s->retries++ < GCP_SCALE_RETRIES)
    {
        gcp_scale_read(s);
        return;
    }

    if (res->rc != GCP_OK) {
        gcp_reg_store_error(s->op, res, s->op->ri.name);
        return;
    }

    s->rev = res->kvs[0].mod_revision;

    gcp_scale_answer(s);
}


static void
gcp_scale_store(gcp_op_t *op, void *arg)
{
    json_t       *stored;
    gcp_scale_t  *s = arg;

    stored = gcp_reg_to_storage(op, s->stored);
    s->value = stored ? gcp_reg_encode(op, stored)
                      : (gcp_str_t) gcp_null_string;

    if (s->value.data == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    if (s->dry_run) {
        /* converted both ways as the write, nothing stored */
        s->rev = s->kv.mod_revision;
        gcp_scale_answer(s);
        return;
    }

    gcp_store_update(op->api->store, s->kv.key, s->value, s->kv.mod_revision,
                     op->a, gcp_scale_written, s);
}


static void
gcp_scale_admitted(gcp_admit_t *ad, int rc)
{
    gcp_scale_t  *s = ad->data;
    gcp_op_t     *op = s->op;

    if (rc != GCP_OK) {
        return;
    }

    s->stored = s->obj;

    if (!gcp_reg_converts(op)) {
        gcp_scale_store(op, s);
        return;
    }

    /* encoded in the storage version, as upstream's codec */
    gcp_reg_convert(op, &s->stored, 1, GCP_CONVERT_TO_STORAGE,
                    gcp_scale_store, s);
}


static void
gcp_scale_mutated(gcp_admit_t *ad, int rc)
{
    gcp_ferrs_t   errs;
    gcp_scale_t  *s = ad->data;
    gcp_op_t     *op = s->op;

    if (rc != GCP_OK) {
        return;
    }

    gcp_ferrs_init(&errs, op->a);
    gcp_cr_validate(op, &errs, s->obj, s->old);

    if (errs.nomem) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    if (errs.n) {
        gcp_op_invalid(op, gcp_sprintf(op->a, "%s.%s", op->res->kind,
                                       op->res->group),
                       op->ri.name, &errs);
        return;
    }

    gcp_admission_validate(ad, gcp_scale_admitted);
}


/*
 * The replicas paths of the versions of the resource (upstream's
 * ResourcePathMappings): an array of def->nversions, or NULL when out of
 * memory.
 */

static gcp_managed_scale_path_t *
gcp_scale_paths(gcp_scale_t *s)
{
    size_t                     i;
    gcp_cr_def_t              *def = s->cr->def;
    gcp_managed_scale_path_t  *paths;

    paths = gcp_calloc(s->op->a, (def->nversions + 1)
                                 * sizeof(gcp_managed_scale_path_t));
    if (paths == NULL) {
        return NULL;
    }

    for (i = 0; i < def->nversions; i++) {
        paths[i].api_version = gcp_sprintf(s->op->a, "%s/%s", def->group,
                                           def->versions[i].name);
        paths[i].replicas = def->versions[i].scale
                            ? def->versions[i].spec_replicas_path : NULL;

        if (paths[i].api_version == NULL) {
            return NULL;
        }
    }

    return paths;
}


/* The field manager of the Scale's writes: autoscaling/v1, scale. */

static void
gcp_scale_manager(gcp_scale_t *s, gcp_managed_t *m)
{
    gcp_reg_managed_init(s->op, m);
    m->node = gcp_schema_get(s->op->api->schemas, GCP_SCALE_SCHEMA);
    m->api_version = "autoscaling/v1";
}


/*
 * Server-side apply of the body to the Scale cur (upstream's apply
 * patcher behind its ScaleHandler): cur gets the entries that own the
 * replicas field, seen as the Scale's, and the applied configuration is
 * merged into it with conflicts among them.  Returns the new Scale (its
 * entries in s->applied_mf), or NULL after responding.
 */

static json_t *
gcp_scale_apply(gcp_scale_t *s, json_t *cur)
{
    int                        rc;
    json_t                    *config, *merged, *conflicts, *sub;
    gcp_op_t                  *op = s->op;
    gcp_managed_t              m;
    gcp_managed_scale_path_t  *paths;

    config = gcp_reg_apply_config(op);
    if (config == NULL) {
        return NULL;
    }

    paths = gcp_scale_paths(s);
    sub = paths ? gcp_json_arena(op->a,
                      gcp_managed_scale_entries(
                          json_object_get(json_object_get(s->old, "metadata"),
                                          "managedFields"),
                          paths, s->cr->def->nversions))
                : NULL;

    if (sub == NULL
        || json_object_set(json_object_get(cur, "metadata"),
                           "managedFields", sub) != 0)
    {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return NULL;
    }

    gcp_scale_manager(s, &m);

    merged = NULL;
    conflicts = NULL;

    rc = gcp_managed_apply(&m, cur, config,
                           gcp_query_bool(&op->q, "force") == 1, &merged,
                           &conflicts);
    merged = gcp_json_arena(op->a, merged);
    conflicts = gcp_json_arena(op->a, conflicts);

    if (rc == 1) {
        gcp_reg_apply_conflict(op, conflicts);
        return NULL;
    }

    if (rc != 0 || merged == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return NULL;
    }

    s->applied_mf = json_object_get(json_object_get(merged, "metadata"),
                                    "managedFields");
    if (s->applied_mf == NULL) {
        s->applied_mf = gcp_json_arena(op->a, json_array());
    }

    return s->applied_mf ? merged : NULL;
}


/*
 * A Scale body of an update: JSON, or YAML or protobuf as upstream's
 * serializers of a built-in type decode it.
 */

static json_t *
gcp_scale_body(gcp_scale_t *s)
{
    json_t      *out;
    gcp_op_t    *op = s->op;
    const char  *ct, *msg;

    ct = gcp_media_content_type(op->a, op->req->content_type);

    if (strcmp(ct, "application/yaml") == 0
        || strcmp(ct, "application/vnd.kubernetes.protobuf") == 0)
    {
        return gcp_reg_decode_options(op, "Scale");
    }

    msg = NULL;
    out = gcp_json_parse(op->a, op->req->body.data, op->req->body.len,
                         &msg);

    if (!json_is_object(out)) {
        gcp_op_error(op, GCP_EBADREQUEST,
                     gcp_sprintf(op->a, "the object provided is "
                                 "unrecognized (must be of type Scale): "
                                 "couldn't get version/kind; json parse "
                                 "error: %s", msg ? msg : "not an "
                                 "object"), NULL);
        return NULL;
    }

    return out;
}


/* The Scale the request asks for: the body, or the patch applied. */

static json_t *
gcp_scale_wanted(gcp_scale_t *s)
{
    int          rc;
    json_t      *cur, *out;
    gcp_buf_t    b;
    gcp_op_t    *op = s->op;
    const char  *ct, *msg;

    msg = NULL;
    out = NULL;

    if (strcmp(op->ri.verb, "update") == 0) {
        return gcp_scale_body(s);
    }

    /* a patch of the current Scale */

    gcp_buf_init(&b, op->a);
    gcp_scale_json(s, &b, s->old, s->kv.mod_revision, 1);
    cur = gcp_json_parse(op->a, b.data, b.len, &msg);

    if (cur == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return NULL;
    }

    ct = gcp_media_content_type(op->a, op->req->content_type);

    if (gcp_reg_is_apply(op)) {
        return gcp_scale_apply(s, cur);
    }

    if (strcmp(ct, "application/json-patch+json") == 0) {
        rc = gcp_patch_json(op->a, cur, op->req->body.data,
                            op->req->body.len, &out, &msg);

    } else if (strcmp(ct, "application/merge-patch+json") == 0
               || strcmp(ct, "application/strategic-merge-patch+json") == 0)
    {
        /* a Scale has no list: the strategic merge is the plain merge */
        rc = gcp_patch_merge(op->a, cur, op->req->body.data,
                             op->req->body.len, &out, &msg);

    } else {
        gcp_op_error(op, GCP_EMEDIATYPE,
                     gcp_sprintf(op->a, "the body of the request was in an "
                                 "unknown format - accepted media types "
                                 "include: application/json-patch+json, "
                                 "application/merge-patch+json, "
                                 "application/strategic-merge-patch+json, "
                                 "application/apply-patch+yaml"),
                     NULL);
        return NULL;
    }

    if (rc != GCP_OK) {
        gcp_op_error(op, rc, msg, NULL);
        return NULL;
    }

    return gcp_json_arena(op->a, out);
}


/*
 * The object's managedFields after the write (s->obj), as upstream's
 * ScaleHandler makes them: the Scale gets the entries that own the
 * replicas field, the write updates them as any write through a
 * subresource (manager, Update, autoscaling/v1, subresource scale), and
 * the object gets them back, the replicas field in its version's path.
 * Returns GCP_OK or GCP_ENOMEM.
 */

static int
gcp_scale_managed(gcp_scale_t *s)
{
    json_t                    *parent, *live, *want, *sub, *mf, *meta;
    gcp_buf_t                  b;
    gcp_op_t                  *op = s->op;
    const char                *msg;
    gcp_cr_def_t              *def = s->cr->def;
    gcp_managed_t              m;
    gcp_managed_scale_path_t  *paths;

    paths = gcp_scale_paths(s);
    if (paths == NULL) {
        return GCP_ENOMEM;
    }

    parent = json_object_get(json_object_get(s->old, "metadata"),
                             "managedFields");

    if (s->applied_mf) {
        /* an apply made the Scale's entries */
        sub = s->applied_mf;
        goto parent;
    }

    /*
     * The Scale before the write, with its entries, and after it, as Go
     * encodes them (replicas 0 is no field: its writer owns nothing); the
     * rest of the Scale sent is not the object's.
     */

    gcp_buf_init(&b, op->a);
    gcp_scale_json(s, &b, s->old, s->kv.mod_revision, 1);
    live = gcp_json_parse(op->a, b.data, b.len, &msg);

    gcp_buf_init(&b, op->a);
    gcp_scale_json(s, &b, s->obj, s->kv.mod_revision, 1);
    want = gcp_json_parse(op->a, b.data, b.len, &msg);

    sub = gcp_json_arena(op->a, gcp_managed_scale_entries(parent, paths,
                                                          def->nversions));

    if (live == NULL || want == NULL || sub == NULL
        || json_object_set(json_object_get(live, "metadata"),
                           "managedFields", sub) != 0)
    {
        return GCP_ENOMEM;
    }

    gcp_scale_manager(s, &m);

    sub = gcp_json_arena(op->a, gcp_managed_update(&m, NULL, live, live,
                                                   want));

parent:

    mf = sub ? gcp_json_arena(op->a,
                              gcp_managed_scale_parent(parent, sub, paths,
                                                       def->nversions,
                                                  gcp_reg_api_version(op)))
             : NULL;
    meta = gcp_meta(s->obj);

    if (mf == NULL || meta == NULL) {
        return GCP_ENOMEM;
    }

    if (json_array_size(mf)) {
        return json_object_set(meta, "managedFields", mf) == 0
               ? GCP_OK : GCP_ENOMEM;
    }

    json_object_del(meta, "managedFields");

    return GCP_OK;
}


static void
gcp_scale_write(gcp_scale_t *s)
{
    json_t      *want, *r;
    gcp_op_t    *op = s->op;
    const char  *rv;

    want = gcp_scale_wanted(s);
    if (want == NULL) {
        return;
    }

    r = json_object_get(json_object_get(want, "spec"), "replicas");
    s->replicas = json_is_integer(r) ? json_integer_value(r) : 0;

    if (s->replicas == GCP_SCALE_UNSET) {
        gcp_op_error(op, GCP_EBADREQUEST,
                     gcp_sprintf(op->a, "the spec replicas field %s cannot "
                                 "be empty",
                                 gcp_ferr_quote(op->a,
                                     s->cr->version->spec_replicas_path)),
                     NULL);
        return;
    }

    rv = json_string_value(json_object_get(json_object_get(want, "metadata"),
                                           "resourceVersion"));

    if (rv && rv[0] && gcp_parse_rv(rv) != s->kv.mod_revision) {
        gcp_op_error_obj(op, GCP_ECONFLICT,
                         gcp_sprintf(op->a, "Operation cannot be fulfilled "
                                     "on %s \"%s\": the object has been "
                                     "modified; please apply your changes to "
                                     "the latest version and try again",
                                     gcp_op_qualified_resource(op, op->res),
                                     op->ri.name),
                         op->ri.name);
        return;
    }

    s->precondition = rv && rv[0] ? rv : NULL;

    s->obj = gcp_json_arena(op->a, gcp_json_deep_copy(s->old));

    if (s->obj == NULL
        || gcp_scale_set(op->a, s->obj, s->cr->version->spec_replicas_path,
                         json_integer(s->replicas)) != GCP_OK
        || gcp_scale_managed(s) != GCP_OK)
    {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    memset(&s->ad, 0, sizeof(gcp_admit_t));

    s->ad.op = op;
    s->ad.operation = GCP_ADMIT_UPDATE;
    s->ad.obj = s->obj;
    s->ad.old = s->old;
    s->ad.name = op->ri.name;
    s->ad.dry_run = s->dry_run;
    s->ad.data = s;

    gcp_admission_mutate(&s->ad, gcp_scale_mutated);
}


/* The stored object, in the request's version: the Scale's or written. */

static void
gcp_scale_old(gcp_op_t *op, void *arg)
{
    gcp_scale_t  *s = arg;

    if (strcmp(op->ri.verb, "get") == 0) {
        gcp_scale_respond(s, s->old, s->kv.mod_revision);
        return;
    }

    gcp_scale_write(s);
}


static void
gcp_scale_got(void *arg, gcp_store_result_t *res)
{
    gcp_scale_t  *s = arg;
    gcp_op_t     *op = s->op;

    if (res->rc == GCP_OK && res->nkvs == 0) {
        res->rc = GCP_ENOTFOUND;
    }

    if (res->rc != GCP_OK) {
        gcp_reg_store_error(op, res, op->ri.name);
        return;
    }

    s->kv = res->kvs[0];
    s->old = gcp_reg_decode_kv_copy(op, &s->kv);

    if (s->old == NULL) {
        gcp_op_error(op, GCP_EINTERNAL, "stored object is corrupt", NULL);
        return;
    }

    if (gcp_reg_converts(op)) {
        /* decoded into the request's version, as upstream's codec */
        gcp_reg_convert(op, &s->old, 1, 0, gcp_scale_old, s);
        return;
    }

    gcp_scale_old(op, s);
}


static void
gcp_scale_read(gcp_scale_t *s)
{
    gcp_store_get(s->op->api->store, gcp_reg_key(s->op), 0, s->op->a,
                  gcp_scale_got, s);
}


int
gcp_cr_scale_serve(gcp_op_t *op)
{
    int                     dry_run;
    gcp_scale_t            *s;
    gcp_field_validation_t  fv;

    if (op->ri.name[0] == '\0') {
        return 0;
    }

    s = gcp_calloc(op->a, sizeof(gcp_scale_t));
    if (s == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return 1;
    }

    s->op = op;
    s->cr = gcp_cr_res(op->res);

    if (strcmp(op->ri.verb, "get") != 0) {
        if (strcmp(op->ri.verb, "update") != 0
            && strcmp(op->ri.verb, "patch") != 0)
        {
            return 0;
        }

        if (gcp_reg_write_opts(op, strcmp(op->ri.verb, "update") == 0
                                   ? "UpdateOptions" : "PatchOptions",
                               &dry_run, &fv) != GCP_OK)
        {
            return 1;
        }

        s->dry_run = dry_run ? 1 : 0;
    }

    gcp_scale_read(s);

    return 1;
}
