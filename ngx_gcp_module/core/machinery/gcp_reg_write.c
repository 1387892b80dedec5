
/*
 * Writes: create, update (PUT), patch, and the status and finalize
 * subresources.  Update and patch share one read-modify-write pipeline:
 * read the stored object, build the new one, validate, then write it
 * conditionally on the revision read; a lost race without a client
 * precondition reads again.
 */

#include "gcp_admission.h"
#include "gcp_reg.h"
#include "gcp_json.h"
#include "gcp_patch.h"
#include "gcp_rand.h"
#include "gcp_validation.h"


typedef enum {
    GCP_W_CREATE = 0,
    GCP_W_UPDATE,
    GCP_W_PATCH
} gcp_write_kind_t;


typedef struct gcp_write_s {
    gcp_op_t                *op;
    gcp_write_kind_t         kind;
    int                      dry_run;
    gcp_field_validation_t   fv;

    json_t                  *body;          /* create, update */
    const char              *patch_type;    /* patch */
    json_t                  *config;        /* apply: the configuration */
    json_t                  *sent_mf;       /* managedFields sent */
    json_t                  *applied_mf;    /* apply: the new ones */
    unsigned                 apply:1;
    unsigned                 force:1;
    unsigned                 creating:1;    /* a PUT that creates */

    /* the write in the other apiVersions of managedFields entries */
    gcp_managed_view_t      *views;
    size_t                   nviews;
    unsigned                 viewed:1;      /* views converted */
    unsigned                 pruned:1;      /* self_lost converted */
    json_t                  *self_lost;     /* see gcp_managed_t */
    unsigned                 mf_lost:1;     /* a conversion failed */

    gcp_str_t                key;
    const char              *name;
    int                      attempts;
    unsigned                 generated:1;

    json_t                  *obj;           /* the new object */
    json_t                  *old;           /* the stored one */

    /* conversion webhooks (the strategy's convert) */
    json_t                  *stored;        /* obj in storage version */
    json_t                  *resp;          /* the answer's object */
    int                      status;        /* the answer's status */
    void                   (*next)(struct gcp_write_s *w);

    gcp_kv_t                 cur;
    gcp_str_t                value;

    gcp_admit_t              ad;
} gcp_write_t;


static void gcp_write_read(gcp_write_t *w);
static void gcp_write_store(gcp_write_t *w);
static void gcp_write_put(gcp_write_t *w);
static void gcp_create_mutated(gcp_admit_t *ad, int rc);
static void gcp_write_mutated(gcp_admit_t *ad, int rc);
static void gcp_write_admitted(gcp_admit_t *ad, int rc);
static void gcp_write_prepared(gcp_write_t *w);
static void gcp_write_viewed_update(gcp_op_t *op, void *arg, int rc,
    const char *msg);
static void gcp_create_start(gcp_write_t *w);
static void gcp_create_done(void *arg, gcp_store_result_t *res);
static void gcp_create_write(gcp_write_t *w);
static void gcp_create_views(gcp_write_t *w);
static void gcp_create_viewed(gcp_op_t *op, void *arg, int rc,
    const char *msg);
static void gcp_create_prepared(gcp_write_t *w);
static void gcp_write_update_create(gcp_write_t *w);


/* The managedFields of obj, or NULL. */

static const json_t *
gcp_write_mf(const json_t *obj)
{
    return json_object_get(json_object_get(obj, "metadata"),
                           "managedFields");
}


static gcp_write_t *
gcp_write_new(gcp_op_t *op, gcp_write_kind_t kind, const char *options)
{
    gcp_write_t  *w;

    w = gcp_calloc(op->a, sizeof(gcp_write_t));
    if (w == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return NULL;
    }

    w->op = op;
    w->kind = kind;

    if (gcp_reg_write_opts(op, options, &w->dry_run, &w->fv) != GCP_OK) {
        return NULL;
    }

    return w;
}


/*
 * 422 Invalid for the object named name.  As kube-apiserver's
 * NewInvalid(GroupKind, ...): the message names the group-qualified kind
 * ("Lease.coordination.k8s.io \"x\" is invalid: ..."), the details the
 * kind and the group apart.
 */

static void
gcp_write_invalid(gcp_op_t *op, const json_t *obj, const char *name,
    const gcp_ferrs_t *errs)
{
    const char            *kind, *k;
    gcp_status_details_t   d;

    /* a custom resource's errors name the kind its object claims */

    k = op->res->kind;

    if (op->res->unstructured && obj) {
        k = json_string_value(json_object_get(obj, "kind"));
        k = (k && k[0]) ? k : op->res->kind;
    }

    kind = op->res->group[0]
           ? gcp_sprintf(op->a, "%s.%s", k, op->res->group)
           : k;

    memset(&d, 0, sizeof(d));

    d.name = name;
    d.group = op->res->group;
    d.kind = k;
    d.causes = errs;

    gcp_op_error(op, GCP_EINVALID,
                 kind ? gcp_ferrs_message(errs, kind, name) : NULL, &d);
}


static int
gcp_write_validate(gcp_write_t *w, json_t *obj, const json_t *old)
{
    json_t                *tobj, *told;
    gcp_ferrs_t            errs;
    gcp_op_t              *op = w->op;
    gcp_meta_opts_t        mo;
    const gcp_strategy_t  *st = op->res->strategy;

    gcp_ferrs_init(&errs, op->a);

    memset(&mo, 0, sizeof(mo));
    mo.namespaced = op->res->namespaced;
    mo.name_mode = op->res->name_mode;

    /* core types (stored without a group) add the standard finalizers */
    mo.core = strchr(op->res->storage, '/') == NULL;

    if (old) {
        gcp_validate_object_meta_update(&errs,
                                        json_object_get(obj, "metadata"),
                                        json_object_get(old, "metadata"),
                                        &mo);

    } else {
        gcp_validate_object_meta(&errs, json_object_get(obj, "metadata"),
                                 &mo);
    }

    /* types are validated in their storage form (events.k8s.io) */

    tobj = obj;
    told = (json_t *) old;

    if (st && st->to_internal) {
        tobj = gcp_reg_to_storage(op, obj);
        told = old ? gcp_reg_to_storage(op, (json_t *) old) : NULL;

        if (tobj == NULL || (old && told == NULL)) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return GCP_ENOMEM;
        }
    }

    if (st && op->sub && op->sub->type == GCP_SUB_STATUS) {
        if (st->validate_status) {
            st->validate_status(&errs, tobj);
        }

    } else if (st && op->sub && op->sub->type == GCP_SUB_FINALIZE) {
        if (st->validate_finalize) {
            st->validate_finalize(&errs, tobj);
        }

    } else if (st && old && st->validate_update) {
        /* the update rules include the create rules */
        st->validate_update(&errs, tobj, told);

    } else if (st && st->validate) {
        st->validate(&errs, tobj);
    }

    if (st && st->validate_request
        && (op->sub == NULL || op->sub->type == GCP_SUB_STATUS))
    {
        st->validate_request(op, &errs, tobj, told);
    }

    if (errs.nomem) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    if (errs.n) {
        gcp_write_invalid(op, obj, gcp_meta_str(obj, "name"), &errs);
        return GCP_EINVALID;
    }

    return GCP_OK;
}


/* Checks metadata.namespace against the URL; fills it in when empty. */

static int
gcp_write_namespace(gcp_write_t *w, json_t *obj)
{
    const char  *ns;
    json_t      *meta;
    gcp_op_t    *op = w->op;

    meta = gcp_meta(obj);
    if (meta == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    if (!op->res->namespaced) {
        json_object_del(meta, "namespace");
        return GCP_OK;
    }

    ns = gcp_meta_str(obj, "namespace");

    if (ns[0] == '\0') {
        gcp_meta_set_str(obj, "namespace", op->ri.ns);
        return GCP_OK;
    }

    if (strcmp(ns, op->ri.ns) != 0) {
        gcp_op_error(op, GCP_EBADREQUEST, "the namespace of the provided "
                     "object does not match the namespace sent on the "
                     "request", NULL);
        return GCP_EBADREQUEST;
    }

    return GCP_OK;
}


static gcp_str_t
gcp_write_encode(gcp_write_t *w, json_t *obj)
{
    json_t  *stored;

    stored = gcp_reg_to_storage(w->op, obj);
    if (stored == NULL) {
        return (gcp_str_t) gcp_null_string;
    }

    return gcp_reg_encode(w->op, stored);
}


/*
 * The request's object in the storage version (w->stored): converted by
 * the strategy's webhook when it converts (upstream's storage codec does
 * on encoding), then next(w).  A failure answers (500, nothing written).
 */

static void
gcp_write_converted(gcp_op_t *op, void *arg)
{
    gcp_write_t  *w = arg;

    w->next(w);
}


static void
gcp_write_to_storage(gcp_write_t *w, void (*next)(gcp_write_t *w))
{
    w->stored = w->obj;

    if (!gcp_reg_converts(w->op)) {
        next(w);
        return;
    }

    w->next = next;
    gcp_reg_convert(w->op, &w->stored, 1, GCP_CONVERT_TO_STORAGE,
                    gcp_write_converted, w);
}


static void
gcp_write_respond_converted(gcp_op_t *op, void *arg)
{
    gcp_write_t  *w = arg;

    gcp_output_object(op, w->status, NULL, w->resp);
}


/*
 * Responds with obj (w->stored; w->obj not stored: dry run) at revision
 * rv, as a later read shows it.
 */

static void
gcp_write_respond_obj(gcp_write_t *w, int status, json_t *obj, int64_t rv)
{
    gcp_kv_t  kv;

    memset(&kv, 0, sizeof(kv));

    kv.value = gcp_write_encode(w, obj);
    kv.mod_revision = rv;

    if (kv.value.data == NULL) {
        gcp_op_error(w->op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    if (w->op->res->strategy && w->op->res->strategy->to_external) {
        /* what was stored, converted back, as a later read shows it */

        obj = gcp_object_decode(w->op->a, kv.value, rv);
        obj = obj ? gcp_json_arena(w->op->a,
                                   w->op->res->strategy->to_external(w->op,
                                                                     obj))
                  : NULL;

        if (obj == NULL) {
            gcp_op_error(w->op, GCP_ENOMEM, NULL, NULL);
            return;
        }

        if (gcp_reg_converts(w->op)) {
            /* decoded into the request's version, as upstream's codec */
            w->resp = obj;
            w->status = status;
            gcp_reg_convert(w->op, &w->resp, 1, 0,
                            gcp_write_respond_converted, w);
            return;
        }

        gcp_output_object(w->op, status, NULL, obj);
        return;
    }

    gcp_output_object(w->op, status, &kv, NULL);
}


/*
 * A dry run, admitted and in the storage version (w->stored): answered as
 * the write would be (status: w->status), nothing stored.  As upstream's
 * dry-run storage, which encodes the object with the storage codec and
 * decodes it back: a conversion webhook converts it both ways.
 */

static void
gcp_write_dry(gcp_write_t *w)
{
    gcp_write_respond_obj(w, w->status, w->stored,
                          w->status == 201 ? 0 : w->cur.mod_revision);
}


/*
 * Responds with what a write stored (kv, the store's answer): its bytes
 * as they are when a later read serves them so, else as
 * gcp_write_respond_obj() makes it from w->stored.
 */

static void
gcp_write_respond_kv(gcp_write_t *w, int status, gcp_kv_t *kv)
{
    const gcp_strategy_t  *st = w->op->res->strategy;

    if (st && st->to_external && !gcp_reg_served_as_stored(w->op, kv)) {
        gcp_write_respond_obj(w, status, w->stored, kv->mod_revision);
        return;
    }

    gcp_output_object(w->op, status, kv, NULL);
}


/*
 * Sets obj's managedFields: those an apply made, else the update of the
 * stored ones (old: the stored object, NULL on create) by this write.
 */

static int
gcp_write_managed(gcp_write_t *w, json_t *obj, const json_t *old)
{
    json_t         *mf, *meta;
    gcp_op_t       *op = w->op;
    gcp_managed_t   m;

    meta = gcp_meta(obj);
    if (meta == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    if (w->apply) {
        mf = w->applied_mf;

    } else if (w->mf_lost) {
        /* upstream's UpdateNoErrors: managedFields cleared on failure */
        mf = NULL;

    } else {
        gcp_reg_managed_init(op, &m);
        gcp_reg_managed_set_views(op, &m, w->views, w->nviews);

        json_object_del(meta, "managedFields");

        mf = gcp_json_arena(op->a,
                            gcp_managed_update(&m, w->sent_mf, old,
                                               old ? old
                                               : gcp_reg_managed_shape(op,
                                                                       &m),
                                               obj));
        if (mf == NULL) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return GCP_ENOMEM;
        }
    }

    if (json_array_size(mf)) {
        json_object_set(meta, "managedFields", mf);

    } else {
        json_object_del(meta, "managedFields");
    }

    return GCP_OK;
}


/* create */


static int
gcp_write_generate_name(gcp_write_t *w)
{
    w->name = gcp_rand_generate_name(w->op->a,
                                     gcp_meta_str(w->obj, "generateName"));
    if (w->name == NULL) {
        return GCP_ENOMEM;
    }

    w->generated = 1;

    return gcp_meta_set_str(w->obj, "name", w->name);
}


static void
gcp_create_done(void *arg, gcp_store_result_t *res)
{
    gcp_write_t  *w = arg;
    gcp_op_t     *op = w->op;

    if (res->rc == GCP_EEXISTS && w->creating
        && ++w->attempts < GCP_REG_MAX_RETRIES)
    {
        /* created by another meanwhile: this PUT updates it */
        w->creating = 0;
        gcp_write_read(w);
        return;
    }

    if (res->rc == GCP_EEXISTS && w->generated
        && ++w->attempts < GCP_REG_GENERATE_TRIES)
    {
        if (gcp_write_generate_name(w) != GCP_OK) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return;
        }

        w->key = gcp_object_key(op->a, op->res, op->ri.ns, w->name);
        gcp_create_write(w);
        return;
    }

    if (res->rc != GCP_OK) {
        gcp_reg_store_error(op, res, w->name);
        return;
    }

    gcp_write_respond_kv(w, 201, &res->kvs[0]);
}


/*
 * A dry-run create: refused when the name is taken, as upstream's dry-run
 * storage reads the key first (AlreadyExists, or for a generated name
 * another try); else converted as a create is, nothing stored.
 */

static void
gcp_create_dry_got(void *arg, gcp_store_result_t *res)
{
    gcp_write_t  *w = arg;

    if (res->rc == GCP_OK && res->nkvs > 0) {
        res->rc = GCP_EEXISTS;
        gcp_create_done(w, res);
        return;
    }

    if (res->rc != GCP_OK && res->rc != GCP_ENOTFOUND) {
        gcp_reg_store_error(w->op, res, w->name);
        return;
    }

    w->status = 201;
    gcp_write_to_storage(w, gcp_write_dry);
}


/* Create, admitted: stored in the storage version, or a dry run. */

static void
gcp_create_write(gcp_write_t *w)
{
    if (w->dry_run) {
        gcp_store_get(w->op->api->store, w->key, 0, w->op->a,
                      gcp_create_dry_got, w);
        return;
    }

    gcp_write_to_storage(w, gcp_write_store);
}


static void
gcp_create_admitted(gcp_admit_t *ad, int rc)
{
    gcp_write_t  *w = ad->data;

    if (rc != GCP_OK) {
        return;
    }

    gcp_create_write(w);
}


static void
gcp_write_admit_init(gcp_write_t *w, gcp_admit_op_t operation)
{
    gcp_admission_init(&w->ad, w->op, operation, w->obj, w->old, w->name,
                       w->dry_run);
    w->ad.data = w;
}


void
gcp_reg_create(gcp_op_t *op)
{
    json_t       *obj;
    gcp_write_t  *w;

    w = gcp_write_new(op, GCP_W_CREATE, "CreateOptions");
    if (w == NULL) {
        return;
    }

    obj = gcp_reg_decode_body(op, w->fv);
    if (obj == NULL) {
        return;
    }

    w->obj = obj;
    w->sent_mf = json_object_get(json_object_get(obj, "metadata"),
                                 "managedFields");
    json_incref(w->sent_mf);
    gcp_json_arena(op->a, w->sent_mf);

    gcp_create_start(w);
}


/* Create, from the object of the request or of an apply. */

static void
gcp_create_start(gcp_write_t *w)
{
    json_t    *meta, *obj = w->obj;
    gcp_op_t  *op = w->op;

    if (gcp_write_namespace(w, obj) != GCP_OK) {
        return;
    }

    meta = gcp_meta(obj);

    if (gcp_meta_str(obj, "resourceVersion")[0]) {
        gcp_op_error(op, GCP_EINTERNAL, "resourceVersion should not be set "
                     "on objects to be created", NULL);
        return;
    }

    json_object_del(meta, "resourceVersion");
    json_object_del(meta, "deletionTimestamp");
    json_object_del(meta, "deletionGracePeriodSeconds");
    json_object_del(meta, "managedFields");
    json_object_del(meta, "selfLink");

    /* mutating admission sees the object as sent: no uid, no */
    /* creationTimestamp, no defaults, no generated name yet */

    w->name = gcp_meta_str(obj, "name");

    gcp_write_admit_init(w, GCP_ADMIT_CREATE);
    gcp_admission_mutate(&w->ad, gcp_create_mutated);
}


/*
 * A write that creates through PATCH (an apply of an absent object) needs
 * the create permission too: upstream's handler asks the authorizer
 * before the validating admission (withAuthorization), and refuses with
 * NewForbidden(resource, name, reason).  Returns GCP_OK, or
 * GCP_EFORBIDDEN once answered.
 */
static int
gcp_write_authorize_create(gcp_write_t *w)
{
    gcp_buf_t              b;
    gcp_op_t              *op = w->op;
    const char            *reason, *q;
    gcp_status_details_t   d;

    reason = NULL;

    if (op->api->authorize_verb == NULL
        || op->api->authorize_verb(op, "create", &reason))
    {
        return GCP_OK;
    }

    gcp_buf_init(&b, op->a);
    gcp_buf_addstr(&b, op->ri.resource);

    if (op->ri.group && op->ri.group[0]) {
        gcp_buf_printf(&b, ".%s", op->ri.group);
    }

    if (op->ri.name[0]) {
        q = gcp_go_quote(op->a, op->ri.name, strlen(op->ri.name));
        gcp_buf_printf(&b, " %s", q ? q : "\"\"");
    }

    gcp_buf_printf(&b, " is forbidden: %s", reason ? reason : "");

    memset(&d, 0, sizeof(d));
    d.name = op->ri.name;
    d.group = op->ri.group;
    d.kind = op->ri.resource;

    gcp_op_error(op, gcp_buf_failed(&b) ? GCP_ENOMEM : GCP_EFORBIDDEN,
                 gcp_buf_cstr(&b), &d);

    return GCP_EFORBIDDEN;
}


/*
 * Create, after the mutating admission: what kube-apiserver's store does
 * before validation (system fields, the generated name, the type's
 * defaults), then validate.
 */
static void
gcp_create_mutated(gcp_admit_t *ad, int rc)
{
    json_t                *obj, *meta;
    char                   uid[GCP_UUID_LEN + 1];
    gcp_write_t           *w = ad->data;
    gcp_op_t              *op = w->op;
    const gcp_strategy_t  *st = op->res->strategy;

    if (rc != GCP_OK) {
        return;
    }

    obj = ad->obj;
    w->obj = obj;
    meta = gcp_meta(obj);

    if (meta == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    if (st && st->generation) {
        json_object_set_new(meta, "generation", json_integer(1));
    }

    /* (the reviews answer here: they are never stored) */

    if (st && st->prepare_create && st->prepare_create(op, obj) != GCP_OK) {
        return;
    }

    gcp_uuid_v4(uid);
    gcp_meta_set_str(obj, "uid", uid);
    gcp_meta_set_str(obj, "creationTimestamp", gcp_reg_now(op));

    w->name = gcp_meta_str(obj, "name");

    if (w->name[0] == '\0' && gcp_meta_str(obj, "generateName")[0]) {
        if (gcp_write_generate_name(w) != GCP_OK) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return;
        }
    }

    ad->name = w->name;

    if (!w->apply && gcp_reg_managed_viewed(op, w->sent_mf, NULL)) {
        /* the entries sent of other apiVersions see the create there */

        gcp_create_views(w);
        return;
    }

    gcp_create_prepared(w);
}


/*
 * A create's views (see gcp_write_managed()): the new object and the
 * empty one it is compared with, converted to the apiVersions of the
 * entries sent; a failure clears managedFields (upstream's
 * UpdateNoErrors).
 */

static void
gcp_create_views(gcp_write_t *w)
{
    json_t         *empty, *meta;
    gcp_op_t       *op = w->op;
    gcp_managed_t   m;

    gcp_reg_managed_init(op, &m);

    empty = gcp_json_arena(op->a,
                           gcp_json_deep_copy(gcp_reg_managed_shape(op,
                                                                    &m)));
    meta = json_object_get(empty, "metadata");

    if (meta == NULL
        || json_object_set_new(meta, "name", json_string(w->name)) != 0
        || (op->ri.ns[0]
            && json_object_set_new(meta, "namespace",
                                   json_string(op->ri.ns)) != 0))
    {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    /* (as the type's new Go object: its apiVersion and kind) */

    json_object_set(empty, "apiVersion",
                    json_object_get(w->obj, "apiVersion"));
    json_object_set(empty, "kind", json_object_get(w->obj, "kind"));

    gcp_reg_managed_views(op, w->sent_mf, NULL, empty, w->obj, &w->views,
                          &w->nviews, gcp_create_viewed, w);
}


static void
gcp_create_viewed(gcp_op_t *op, void *arg, int rc, const char *msg)
{
    gcp_write_t  *w = arg;

    if (rc == GCP_ENOMEM) {
        gcp_op_error(op, rc, NULL, NULL);
        return;
    }

    w->mf_lost = rc != GCP_OK;

    gcp_create_prepared(w);
}


/* Create, the object made: managedFields, validation, admission. */

static void
gcp_create_prepared(gcp_write_t *w)
{
    gcp_op_t  *op = w->op;

    if (gcp_write_managed(w, w->obj, NULL) != GCP_OK) {
        return;
    }

    if (gcp_write_validate(w, w->obj, NULL) != GCP_OK) {
        return;
    }

    if (w->kind != GCP_W_CREATE && gcp_write_authorize_create(w) != GCP_OK) {
        return;
    }

    w->key = gcp_object_key(op->a, op->res, op->ri.ns, w->name);

    gcp_admission_validate(&w->ad, gcp_create_admitted);
}


/* update and patch */


static void
gcp_write_conflict(gcp_write_t *w)
{
    gcp_store_result_t  res;

    memset(&res, 0, sizeof(res));
    res.rc = GCP_ECONFLICT;

    gcp_reg_store_error(w->op, &res, w->name);
}


/*
 * The object an apply makes of the stored one (NULL: create), with its
 * managedFields; NULL after responding (409 with the conflicts).
 */

static json_t *
gcp_write_applied(gcp_write_t *w, const json_t *live)
{
    int             rc;
    json_t         *out, *conflicts;
    gcp_op_t       *op = w->op;
    gcp_managed_t   m;

    gcp_reg_managed_init(op, &m);
    gcp_reg_managed_set_views(op, &m, w->views, w->nviews);
    m.self_lost = w->self_lost;

    rc = gcp_managed_apply(&m, live, w->config, w->force, &out, &conflicts);

    out = gcp_json_arena(op->a, out);
    conflicts = gcp_json_arena(op->a, conflicts);

    if (rc == 1) {
        gcp_reg_apply_conflict(op, conflicts);
        return NULL;
    }

    if (rc != 0 || out == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return NULL;
    }

    w->applied_mf = gcp_json_arena(op->a,
                        json_incref(json_object_get(json_object_get(out,
                                                                "metadata"),
                                                    "managedFields")));

    if (gcp_reg_check_object(op, out, w->fv, NULL, 0) != GCP_OK) {
        return NULL;
    }

    return out;
}


/* Create by apply: the configuration merged into nothing. */

static void
gcp_write_apply_create(gcp_write_t *w)
{
    json_t    *obj;
    gcp_op_t  *op = w->op;

    obj = gcp_write_applied(w, NULL);
    if (obj == NULL) {
        return;
    }

    if (gcp_meta_str(obj, "name")[0] == '\0') {
        gcp_meta_set_str(obj, "name", op->ri.name);
    }

    w->obj = obj;
    gcp_create_start(w);
}


/*
 * Create by PUT, for the types whose strategy allows it (upstream's
 * AllowCreateOnUpdate): the body is created as a POST would create it
 * (201, managedFields of an Update, the create permission checked too),
 * but for its resourceVersion, which upstream's store ignores there.  A
 * create that loses a race with another reads again and updates.
 */

static void
gcp_write_update_create(gcp_write_t *w)
{
    json_t    *obj;
    gcp_op_t  *op = w->op;

    obj = gcp_json_arena(op->a, gcp_json_deep_copy(w->body));
    if (obj == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    json_object_del(gcp_meta(obj), "resourceVersion");

    w->obj = obj;
    w->old = NULL;
    w->sent_mf = gcp_json_arena(op->a,
                     json_incref(json_object_get(json_object_get(obj,
                                                                 "metadata"),
                                                 "managedFields")));
    w->creating = 1;

    gcp_create_start(w);
}


/* The object a PATCH produces from the stored one. */

static json_t *
gcp_write_patched(gcp_write_t *w)
{
    int          rc;
    json_t      *out, *meta, *mf;
    gcp_op_t    *op = w->op;
    const char  *msg;
    gcp_str_t    body = op->req->body;

    msg = NULL;
    out = NULL;

    if (strcmp(w->patch_type, "application/json-patch+json") == 0) {
        rc = gcp_patch_json(op->a, w->old, body.data, body.len, &out, &msg);

    } else if (strcmp(w->patch_type, "application/merge-patch+json") == 0) {
        rc = gcp_patch_merge(op->a, w->old, body.data, body.len, &out, &msg);

    } else {
        rc = gcp_patch_strategic(op->a, op->api->schemas,
                                 gcp_schema_get(op->api->schemas,
                                                op->res->schema),
                                 w->old, body.data, body.len, &out, &msg);
    }

    if (rc != GCP_OK) {
        if (rc == GCP_EINVALID) {
            gcp_status_details_t  d;

            memset(&d, 0, sizeof(d));
            gcp_op_error(op, rc, msg, &d);

        } else if (rc == GCP_EINTERNAL && msg) {
            /* a patch error kube-apiserver does not map: 500, no reason */
            gcp_reg_error_plain(op, 500, msg);

        } else {
            gcp_op_error(op, rc, msg, NULL);
        }

        return NULL;
    }

    out = gcp_json_arena(op->a, out);

    /*
     * managedFields the patch left as they were stored were checked when
     * they were written: set aside while the object is checked.
     */

    meta = json_object_get(out, "metadata");
    mf = json_incref(json_object_get(meta, "managedFields"));

    if (mf && !gcp_json_equal(mf, gcp_write_mf(w->old))) {
        json_decref(mf);
        mf = NULL;
    }

    if (mf) {
        json_object_del(meta, "managedFields");
    }

    rc = gcp_reg_check_object(op, out, w->fv, NULL, 0);

    if (mf) {
        meta = rc == GCP_OK ? gcp_meta(out) : NULL;

        if (rc == GCP_OK
            && (meta == NULL
                || json_object_set(meta, "managedFields", mf) != 0))
        {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            rc = GCP_ENOMEM;
        }

        json_decref(mf);
    }

    return rc == GCP_OK ? out : NULL;
}


/*
 * Builds the new object from the request and the stored object.  Returns
 * it borrowed from the arena, or NULL (after responding, or out of
 * memory).
 */

static json_t *
gcp_write_build(gcp_write_t *w)
{
    json_t    *obj, *src, *v;
    gcp_op_t  *op = w->op;

    src = w->apply ? gcp_write_applied(w, w->old)
          : w->kind == GCP_W_PATCH ? gcp_write_patched(w) : w->body;
    if (src == NULL) {
        return NULL;
    }

    if (op->sub == NULL) {
        return w->kind == GCP_W_PATCH
               ? src : gcp_json_arena(op->a, gcp_json_deep_copy(src));
    }

    if (op->sub->type == GCP_SUB_STATUS && op->res->strategy
        && op->res->strategy->status_build)
    {
        obj = gcp_json_arena(op->a, op->res->strategy->status_build(op, src,
                                                                    w->old));
        if (obj) {
            gcp_meta_set_str(obj, "resourceVersion",
                             gcp_meta_str(src, "resourceVersion"));
        }

        return obj;
    }

    /* subresources take one part of the request's object */

    obj = gcp_json_arena(op->a, gcp_json_deep_copy(w->old));
    if (obj == NULL) {
        return NULL;
    }

    gcp_meta_set_str(obj, "resourceVersion",
                     gcp_meta_str(src, "resourceVersion"));

    if (op->sub->type == GCP_SUB_STATUS) {
        v = json_object_get(src, "status");

        if (v) {
            json_object_set(obj, "status", v);

        } else {
            json_object_del(obj, "status");
        }

    } else if (op->sub->type == GCP_SUB_FINALIZE) {
        v = json_object_get(json_object_get(src, "spec"), "finalizers");

        if (!json_is_object(json_object_get(obj, "spec"))) {
            json_object_set_new(obj, "spec", json_object());
        }

        if (v) {
            json_object_set(json_object_get(obj, "spec"), "finalizers", v);

        } else {
            json_object_del(json_object_get(obj, "spec"), "finalizers");
        }
    }

    return obj;
}


/* Keeps what clients cannot change through an update. */

static void
gcp_write_keep_system(json_t *obj, const json_t *old)
{
    size_t        i;
    json_t       *meta, *ometa, *v;

    static const char * const  keep[] = {
        "uid", "creationTimestamp", "deletionTimestamp",
        "deletionGracePeriodSeconds", "generation", NULL
    };

    meta = gcp_meta(obj);
    ometa = json_object_get(old, "metadata");

    for (i = 0; keep[i]; i++) {
        v = json_object_get(ometa, keep[i]);

        if (v) {
            json_object_set(meta, keep[i], v);

        } else {
            json_object_del(meta, keep[i]);
        }
    }

    json_object_del(meta, "managedFields");
    json_object_del(meta, "selfLink");
}


/* Did anything but metadata and status change? */

static int
gcp_write_spec_changed(const json_t *obj, const json_t *old)
{
    json_t      *v;
    const char  *key;

    json_object_foreach((json_t *) obj, key, v) {
        if (strcmp(key, "metadata") == 0 || strcmp(key, "status") == 0) {
            continue;
        }

        if (!gcp_json_equal(v, json_object_get(old, key))) {
            return 1;
        }
    }

    json_object_foreach((json_t *) old, key, v) {
        if (strcmp(key, "metadata") != 0 && strcmp(key, "status") != 0
            && json_object_get(obj, key) == NULL)
        {
            return 1;
        }
    }

    return 0;
}


/* An object being deleted whose last finalizer went goes away. */

static int
gcp_write_finalized(gcp_write_t *w, const json_t *obj)
{
    json_t  *fin;

    if (gcp_meta_str(obj, "deletionTimestamp")[0] == '\0') {
        return 0;
    }

    fin = json_object_get(json_object_get(obj, "metadata"), "finalizers");

    if (json_array_size(fin) > 0) {
        return 0;
    }

    fin = json_object_get(json_object_get(obj, "spec"), "finalizers");

    return w->op->res->namespaced
           || strcmp(w->op->res->name, "namespaces") != 0
           || json_array_size(fin) == 0;
}


/*
 * The object deleted by an update that removed its last finalizer: as
 * upstream's deleteWithoutFinalizers, the answer is the object of the
 * request at the resourceVersion it was read at (not the deletion's),
 * also when another request deleted it meanwhile.
 */

static void
gcp_write_delete_done(void *arg, gcp_store_result_t *res)
{
    gcp_write_t  *w = arg;

    if (res->rc == GCP_ECONFLICT && ++w->attempts < GCP_REG_MAX_RETRIES) {
        gcp_write_read(w);
        return;
    }

    if (res->rc != GCP_OK && res->rc != GCP_ENOTFOUND) {
        gcp_reg_store_error(w->op, res, w->name);
        return;
    }

    gcp_write_respond_obj(w, 200, w->stored, w->cur.mod_revision);
}


static void
gcp_update_done(void *arg, gcp_store_result_t *res)
{
    gcp_write_t  *w = arg;
    gcp_op_t     *op = w->op;

    if (res->rc == GCP_ECONFLICT) {
        if (gcp_meta_str(w->body ? w->body : w->obj,
                         "resourceVersion")[0]
            && w->kind == GCP_W_UPDATE)
        {
            gcp_write_conflict(w);
            return;
        }

        if (++w->attempts < GCP_REG_MAX_RETRIES) {
            gcp_write_read(w);
            return;
        }
    }

    if (res->rc != GCP_OK) {
        gcp_reg_store_error(op, res, w->name);
        return;
    }

    gcp_write_respond_kv(w, 200, &res->kvs[0]);
}


static void gcp_write_got_old(gcp_op_t *op, void *arg);


/*
 * The uid of a PUT's object is a precondition (upstream's update takes it
 * from the object): the stored object (NULL: none, whose uid is "") must
 * have it, else 409 as upstream's storage words it.  Returns GCP_OK, or
 * GCP_ECONFLICT once answered.
 */

static int
gcp_write_uid_precondition(gcp_write_t *w, const json_t *stored)
{
    gcp_op_t    *op = w->op;
    const char  *uid, *have;

    if (w->kind != GCP_W_UPDATE) {
        return GCP_OK;
    }

    uid = gcp_meta_str(w->body, "uid");
    have = stored ? gcp_meta_str(stored, "uid") : "";

    if (uid[0] == '\0' || strcmp(uid, have) == 0) {
        return GCP_OK;
    }

    gcp_op_error_obj(op, GCP_ECONFLICT,
                     gcp_sprintf(op->a, "Operation cannot be fulfilled on %s "
                                 "\"%s\": StorageError: invalid object, "
                                 "Code: 4, Key: %.*s, ResourceVersion: 0, "
                                 "AdditionalErrorMsg: Precondition failed: "
                                 "UID in precondition: %s, UID in object "
                                 "meta: %s",
                                 gcp_op_qualified_resource(op, op->res),
                                 w->name, (int) w->key.len, w->key.data, uid,
                                 have),
                     w->name);

    return GCP_ECONFLICT;
}


static void
gcp_write_got(void *arg, gcp_store_result_t *res)
{
    gcp_write_t  *w = arg;
    gcp_op_t     *op = w->op;

    if (res->rc == GCP_OK && res->nkvs == 0) {
        res->rc = GCP_ENOTFOUND;
    }

    if (res->rc == GCP_ENOTFOUND
        && gcp_write_uid_precondition(w, NULL) != GCP_OK)
    {
        return;
    }

    if (res->rc == GCP_ENOTFOUND && w->apply && op->sub == NULL) {
        gcp_write_apply_create(w);
        return;
    }

    if (res->rc == GCP_ENOTFOUND && w->kind == GCP_W_UPDATE
        && op->sub == NULL && op->res->strategy
        && op->res->strategy->create_on_update)
    {
        gcp_write_update_create(w);
        return;
    }

    if (res->rc != GCP_OK) {
        gcp_reg_store_error(op, res, w->name);
        return;
    }

    w->viewed = 0;
    w->pruned = 0;
    w->self_lost = NULL;
    w->nviews = 0;
    w->mf_lost = 0;

    w->cur = res->kvs[0];
    /* a private copy: strategies may share its parts with the new object */
    w->old = gcp_reg_decode_kv_copy(op, &w->cur);

    if (w->old == NULL) {
        gcp_op_error(op, GCP_EINTERNAL, "stored object is corrupt", NULL);
        return;
    }

    if (gcp_write_uid_precondition(w, w->old) != GCP_OK) {
        return;
    }

    if (gcp_reg_converts(op)) {
        /* patches apply in the request's version, as upstream's */
        gcp_reg_convert(op, &w->old, 1, 0, gcp_write_got_old, w);
        return;
    }

    gcp_write_got_old(op, w);
}


static void
gcp_write_viewed_apply(gcp_op_t *op, void *arg, int rc, const char *msg)
{
    if (rc != GCP_OK) {
        /* upstream's plain error: a 500 without a reason */
        gcp_op_error(op, rc == GCP_ENOMEM ? GCP_ENOMEM : GCP_EUNKNOWN, msg,
                     NULL);
        return;
    }

    gcp_write_got_old(op, arg);
}


/*
 * An apply over entries of other apiVersions sees its merge in each of
 * them first (conflicts are by their names), after pruning it in the
 * apiVersion of the manager's own Apply entry when that is another one
 * (upstream's prune).  Returns 1 when a conversion went out
 * (gcp_write_got_old() is called again), else 0.
 */

static int
gcp_write_apply_views(gcp_write_t *w)
{
    json_t         *merged;
    gcp_op_t       *op = w->op;
    gcp_managed_t   m;

    if (w->apply && !w->pruned) {
        w->pruned = 1;

        if (gcp_reg_managed_prune_self(op, w->old, w->config, &w->self_lost,
                                       gcp_write_viewed_apply, w))
        {
            return 1;
        }
    }

    if (!w->apply || w->viewed
        || !gcp_reg_managed_viewed(op, gcp_write_mf(w->old), NULL))
    {
        return 0;
    }

    w->viewed = 1;

    gcp_reg_managed_init(op, &m);
    m.self_lost = w->self_lost;
    merged = gcp_json_arena(op->a, gcp_managed_applied(&m, w->old,
                                                       w->config));
    if (merged == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return 1;
    }

    gcp_reg_managed_views(op, gcp_write_mf(w->old), NULL, w->old, merged,
                          &w->views, &w->nviews, gcp_write_viewed_apply, w);

    return 1;
}


/* Update and patch, the stored object read (w->old): build the new one. */

static void
gcp_write_got_old(gcp_op_t *op, void *arg)
{
    int64_t                want;
    json_t                *obj;
    const char            *rv;
    gcp_write_t           *w = arg;
    const gcp_strategy_t  *st = op->res->strategy;

    if (gcp_write_apply_views(w)) {
        return;
    }

    obj = gcp_write_build(w);
    if (obj == NULL) {
        if (!op->responded) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        }

        return;
    }

    w->obj = obj;

    /* precondition: the resourceVersion the client sent */

    rv = gcp_meta_str(obj, "resourceVersion");

    if (rv[0]) {
        want = gcp_parse_rv(rv);

        if (want != w->cur.mod_revision) {
            gcp_write_conflict(w);
            return;
        }

    } else if (w->kind == GCP_W_UPDATE && st && st->no_unconditional_update)
    {
        gcp_ferrs_t  errs;

        gcp_ferrs_init(&errs, op->a);
        gcp_ferrs_add(&errs, GCP_FERR_INVALID, "metadata.resourceVersion",
                      "0x0", "must be specified for an update");
        gcp_write_invalid(op, NULL, w->name, &errs);
        return;

    } else {
        /* an unconditional update: as at the revision read */
        gcp_meta_set_str(obj, "resourceVersion",
                         gcp_sprintf(op->a, "%lld",
                                     (long long) w->cur.mod_revision));
    }

    if (gcp_write_namespace(w, obj) != GCP_OK) {
        return;
    }

    if (op->sub == NULL) {
        w->sent_mf = gcp_json_arena(op->a,
                         json_incref(json_object_get(json_object_get(obj,
                                                                 "metadata"),
                                                     "managedFields")));
    }

    gcp_write_keep_system(obj, w->old);

    gcp_write_admit_init(w, GCP_ADMIT_UPDATE);
    gcp_admission_mutate(&w->ad, gcp_write_mutated);
}


/*
 * Update and patch, after the mutating admission: what an update may not
 * change (again: a webhook's patch may have touched it), the type's
 * preparation, validation, then the validating admission.
 */

static void
gcp_write_mutated(gcp_admit_t *ad, int rc)
{
    json_t                *obj;
    gcp_write_t           *w = ad->data;
    gcp_op_t              *op = w->op;
    const gcp_strategy_t  *st = op->res->strategy;

    if (rc != GCP_OK) {
        return;
    }

    obj = ad->obj;
    w->obj = obj;

    gcp_write_keep_system(obj, w->old);

    if (op->sub && op->sub->type == GCP_SUB_STATUS) {
        if (st && st->prepare_status_update
            && st->prepare_status_update(op, obj, w->old) != GCP_OK)
        {
            return;
        }

    } else if (op->sub == NULL) {
        if (st && st->prepare_update
            && st->prepare_update(op, obj, w->old) != GCP_OK)
        {
            return;
        }
    }

    if (!w->apply && !w->viewed
        && gcp_reg_managed_viewed(op, w->sent_mf, gcp_write_mf(w->old)))
    {
        /* entries of other apiVersions see the write in theirs */

        w->viewed = 1;
        gcp_reg_managed_views(op, w->sent_mf, gcp_write_mf(w->old), w->old,
                              obj, &w->views, &w->nviews,
                              gcp_write_viewed_update, w);
        return;
    }

    gcp_write_prepared(w);
}


static void
gcp_write_viewed_update(gcp_op_t *op, void *arg, int rc, const char *msg)
{
    gcp_write_t  *w = arg;

    if (rc == GCP_ENOMEM) {
        gcp_op_error(op, rc, NULL, NULL);
        return;
    }

    w->mf_lost = rc != GCP_OK;

    gcp_write_prepared(w);
}


/*
 * Update and patch, prepared: managedFields, validation, the generation,
 * then the validating admission.
 */

static void
gcp_write_prepared(gcp_write_t *w)
{
    json_t                *obj, *gen;
    gcp_op_t              *op = w->op;
    const gcp_strategy_t  *st = op->res->strategy;

    obj = w->obj;

    if (gcp_write_managed(w, obj, w->old) != GCP_OK) {
        return;
    }

    if (gcp_write_validate(w, obj, w->old) != GCP_OK) {
        return;
    }

    if (st && st->generation && gcp_write_spec_changed(obj, w->old)) {
        gen = json_object_get(json_object_get(w->old, "metadata"),
                              "generation");
        json_object_set_new(gcp_meta(obj), "generation",
                            json_integer(json_integer_value(gen) + 1));
    }

    gcp_admission_validate(&w->ad, gcp_write_admitted);
}


/* Update and patch, admitted: in the storage version, then written. */

static void
gcp_write_admitted(gcp_admit_t *ad, int rc)
{
    gcp_write_t  *w = ad->data;

    if (rc != GCP_OK) {
        return;
    }

    if (w->dry_run) {
        w->status = 200;
        gcp_write_to_storage(w, gcp_write_dry);
        return;
    }

    gcp_write_to_storage(w, gcp_write_put);
}


/* Update and patch: write (or delete, or nothing). */

static void
gcp_write_put(gcp_write_t *w)
{
    json_t    *obj;
    gcp_op_t  *op = w->op;

    obj = w->stored;

    if (gcp_write_finalized(w, obj)) {
        gcp_store_delete(op->api->store, w->key, w->cur.mod_revision, op->a,
                         gcp_write_delete_done, w);
        return;
    }

    w->value = gcp_write_encode(w, obj);

    if (w->value.data == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    if (w->value.len == w->cur.value.len && !w->cur.stale
        && memcmp(w->value.data, w->cur.value.data, w->value.len) == 0)
    {
        /*
         * nothing changes: kube-apiserver does not write either, unless
         * the stored value is stale (encrypted with another key than the
         * one that writes: rewriting it is how keys are rotated)
         */
        gcp_write_respond_obj(w, 200, obj, w->cur.mod_revision);
        return;
    }

    gcp_store_update(op->api->store, w->key, w->value, w->cur.mod_revision,
                     op->a, gcp_update_done, w);
}


static void
gcp_write_read(gcp_write_t *w)
{
    gcp_store_get(w->op->api->store, w->key, 0, w->op->a, gcp_write_got, w);
}


static void
gcp_write_store(gcp_write_t *w)
{
    w->value = gcp_write_encode(w, w->stored);

    if (w->value.data == NULL) {
        gcp_op_error(w->op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    gcp_store_create(w->op->api->store, w->key, w->value, w->op->a,
                     gcp_create_done, w);
}


void
gcp_reg_update(gcp_op_t *op)
{
    json_t       *body;
    const char   *name;
    gcp_write_t  *w;

    w = gcp_write_new(op, GCP_W_UPDATE, "UpdateOptions");
    if (w == NULL) {
        return;
    }

    body = gcp_reg_decode_body(op, w->fv);
    if (body == NULL) {
        return;
    }

    name = gcp_meta_str(body, "name");

    if (strcmp(name, op->ri.name) != 0) {
        gcp_op_error(op, GCP_EBADREQUEST,
                     gcp_sprintf(op->a, "the name of the object (%s) does "
                                 "not match the name on the URL (%s)", name,
                                 op->ri.name), NULL);
        return;
    }

    if (gcp_meta_str(body, "resourceVersion")[0]
        && gcp_parse_rv(gcp_meta_str(body, "resourceVersion")) < 0)
    {
        gcp_op_error(op, GCP_EBADREQUEST,
                     gcp_sprintf(op->a, "metadata.resourceVersion: Invalid "
                                 "value: %s: must be a valid resource "
                                 "version", gcp_ferr_quote(op->a,
                                     gcp_meta_str(body, "resourceVersion"))),
                     NULL);
        return;
    }

    w->body = body;
    w->name = op->ri.name;
    w->key = gcp_reg_key(op);

    gcp_write_read(w);
}


void
gcp_reg_patch(gcp_op_t *op)
{
    const char   *ct;
    gcp_write_t  *w;

    w = gcp_write_new(op, GCP_W_PATCH, "PatchOptions");
    if (w == NULL) {
        return;
    }

    ct = gcp_media_content_type(op->a, op->req->content_type);

    if (op->res->unstructured
        && strcmp(ct, "application/strategic-merge-patch+json") == 0)
    {
        /* custom resources have no patch strategies */

        gcp_op_error(op, GCP_EMEDIATYPE, "the body of the request was in an "
                     "unknown format - accepted media types include: "
                     "application/json-patch+json, "
                     "application/merge-patch+json, "
                     "application/apply-patch+yaml", NULL);
        return;
    }

    if (gcp_reg_is_apply(op)) {
        w->config = gcp_reg_apply_config(op);
        if (w->config == NULL) {
            return;
        }

        w->apply = 1;
        w->force = gcp_query_bool(&op->q, "force") == 1;

    } else if (strcmp(ct, "application/json-patch+json") != 0
        && strcmp(ct, "application/merge-patch+json") != 0
        && strcmp(ct, "application/strategic-merge-patch+json") != 0)
    {
        gcp_status_details_t  d;

        memset(&d, 0, sizeof(d));
        gcp_op_error(op, GCP_EMEDIATYPE, NULL, &d);
        return;
    }

    if (op->req->body.data == NULL || op->req->body.len == 0) {
        gcp_op_error(op, GCP_EBADREQUEST, "the body of the request must be "
                     "a patch", NULL);
        return;
    }

    w->patch_type = ct;
    w->name = op->ri.name;
    w->key = gcp_reg_key(op);

    gcp_write_read(w);
}
