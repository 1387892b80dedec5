
/*
 * Deletes: DeleteOptions (body or query), preconditions, finalizers and
 * propagation policies, graceful deletion of objects that something still
 * holds (finalizers, namespaces' spec.finalizers), and deletecollection.
 */

#include <stdlib.h>

#include "gcp_admission.h"
#include "gcp_reg.h"
#include "gcp_json.h"
#include "gcp_schema_check.h"


#define GCP_DELETE_OPTIONS  "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"


typedef struct {
    int          dry_run;
    const char  *uid;               /* preconditions */
    const char  *rv;
    const char  *finalizer;         /* "orphan", "foregroundDeletion" */
} gcp_del_opts_t;


typedef struct gcp_del_s  gcp_del_t;

typedef void (*gcp_del_done_pt)(gcp_del_t *d, int rc);

struct gcp_del_s {
    gcp_op_t         *op;
    gcp_del_opts_t    opts;
    gcp_str_t         key;
    const char       *name;
    int               attempts;
    gcp_kv_t          cur;
    json_t           *obj;          /* what the response shows */
    json_t           *read;         /* as read in the request's version */
    int64_t           rev;
    unsigned          kept:1;       /* object stays, marked */

    gcp_del_done_pt   done;         /* deletecollection; NULL: respond */
    void             *coll;

    gcp_admit_t       ad;
};


typedef struct {
    gcp_op_t         *op;
    gcp_list_opts_t   lo;
    gcp_del_opts_t    opts;
    gcp_admit_t       ad;           /* once for the collection */
    gcp_kv_t         *kvs;
    size_t            n;
    size_t            next;
    json_t          **objs;
    gcp_kv_t        **out_kvs;
    size_t            nout;
    int64_t           rev;
    unsigned          running:1;
    unsigned          again:1;
} gcp_delcoll_t;


static void gcp_del_read(gcp_del_t *d);
static void gcp_del_validate(gcp_op_t *op, void *arg);
static void gcp_del_admitted(gcp_admit_t *ad, int rc);


/*
 * 409 for a failed precondition.  kube-apiserver's BeforeDelete names the
 * kind, not the resource: NewConflict(GroupResource{gvk.Group, gvk.Kind})
 * ("Operation cannot be fulfilled on ConfigMap \"x\": ...", details kind
 * "ConfigMap").
 */

static void
gcp_del_precondition_failed(gcp_del_t *d, const char *why)
{
    gcp_op_t              *op = d->op;
    gcp_status_details_t   sd;

    memset(&sd, 0, sizeof(sd));

    sd.name = d->name;
    sd.group = op->res->group;
    sd.kind = op->res->kind;

    gcp_op_error(op, GCP_ECONFLICT,
                 gcp_sprintf(op->a, "Operation cannot be fulfilled on %s%s%s "
                             "\"%s\": %s", op->res->kind,
                             op->res->group[0] ? "." : "", op->res->group,
                             d->name, why),
                 &sd);
}


static int
gcp_del_opts(gcp_op_t *op, gcp_del_opts_t *o)
{
    int           dry, policy_set, orphan;
    json_t       *body, *pre, *v;
    int64_t       grace;
    const char   *policy, *msg, *v_grace;
    gcp_ferrs_t   errs;
    gcp_status_details_t  sd;

    memset(o, 0, sizeof(gcp_del_opts_t));

    gcp_ferrs_init(&errs, op->a);

    policy = gcp_query_get(&op->q, "propagationPolicy");
    orphan = gcp_query_bool(&op->q, "orphanDependents") == 1;
    dry = gcp_query_count(&op->q, "dryRun") > 0;

    if (dry) {
        const char  *dv = gcp_query_get(&op->q, "dryRun");

        if (strcmp(dv, "All") != 0) {
            gcp_ferrs_add(&errs, GCP_FERR_NOT_SUPPORTED, "dryRun",
                          gcp_sprintf(op->a, "[]string{%s}",
                                      gcp_ferr_quote(op->a, dv)),
                          "supported values: \"All\"");
        }

        o->dry_run = 1;
    }

    v_grace = gcp_query_get(&op->q, "gracePeriodSeconds");

    if (v_grace && v_grace[0]
        && gcp_reg_query_int(op, v_grace, &grace) != GCP_OK)
    {
        return GCP_EBADREQUEST;
    }

    if (op->req->body.data && op->req->body.len) {
        body = gcp_reg_decode_options(op, "DeleteOptions");
        if (body == NULL) {
            return GCP_EBADREQUEST;
        }

        /* decoding into DeleteOptions: wrongly typed fields are refused */

        if (gcp_schema_check_types(op->a, op->api->schemas,
                                   gcp_schema_get(op->api->schemas,
                                                  GCP_DELETE_OPTIONS),
                                   body, &msg)
            != GCP_OK)
        {
            gcp_op_error(op, GCP_EBADREQUEST, msg, NULL);
            return GCP_EBADREQUEST;
        }

        v = json_object_get(body, "propagationPolicy");
        if (json_is_string(v)) {
            policy = json_string_value(v);
        }

        v = json_object_get(body, "orphanDependents");
        if (json_is_true(v)) {
            orphan = 1;
        }

        v = json_object_get(body, "dryRun");
        if (json_is_array(v) && json_array_size(v)) {
            o->dry_run = 1;
        }

        pre = json_object_get(body, "preconditions");
        o->uid = json_string_value(json_object_get(pre, "uid"));
        o->rv = json_string_value(json_object_get(pre, "resourceVersion"));
    }

    policy_set = policy && policy[0];

    if (policy_set) {
        if (strcmp(policy, "Orphan") == 0) {
            o->finalizer = "orphan";

        } else if (strcmp(policy, "Foreground") == 0) {
            o->finalizer = "foregroundDeletion";

        } else if (strcmp(policy, "Background") != 0) {
            gcp_ferrs_add(&errs, GCP_FERR_NOT_SUPPORTED, "propagationPolicy",
                          gcp_ferr_quote(op->a, policy),
                          "supported values: \"Foreground\", "
                          "\"Background\", \"Orphan\", \"nil\"");
        }
    }

    if (orphan) {
        if (policy_set) {
            gcp_ferrs_add(&errs, GCP_FERR_INVALID, "propagationPolicy",
                          gcp_ferr_quote(op->a, policy),
                          "orphanDependents and deletionPropagation cannot "
                          "be both set");
        }

        o->finalizer = "orphan";
    }

    if (errs.n) {
        memset(&sd, 0, sizeof(sd));
        sd.group = "meta.k8s.io";
        sd.kind = "DeleteOptions";
        sd.causes = &errs;

        gcp_op_error(op, GCP_EINVALID,
                     gcp_ferrs_message(&errs, "DeleteOptions.meta.k8s.io",
                                       ""), &sd);
        return GCP_EINVALID;
    }

    return GCP_OK;
}


static void
gcp_del_respond_converted(gcp_op_t *op, void *arg)
{
    gcp_del_t  *d = arg;

    gcp_output_object(op, 200, NULL, d->obj);
}


static void
gcp_del_finish(gcp_del_t *d, int rc)
{
    gcp_op_t              *op = d->op;
    gcp_kv_t               kv;
    gcp_status_details_t   sd;
    gcp_buf_t              b;

    if (d->done) {
        d->done(d, rc);
        return;
    }

    if (d->kept || op->res->delete_returns_object) {
        memset(&kv, 0, sizeof(kv));
        gcp_meta_set_str(d->obj, "resourceVersion",
                         gcp_sprintf(op->a, "%lld", (long long) d->rev));

        if (gcp_reg_converts(op)) {
            /* decoded into the request's version, as upstream's codec */
            gcp_reg_convert(op, &d->obj, 1, 0, gcp_del_respond_converted, d);
            return;
        }

        if (op->res->strategy && op->res->strategy->to_external) {
            gcp_output_object(op, 200, NULL, d->obj);
            return;
        }

        kv.value = gcp_reg_encode(op, d->obj);
        kv.mod_revision = d->rev;

        gcp_output_object(op, 200, &kv, NULL);
        return;
    }

    memset(&sd, 0, sizeof(sd));
    sd.name = d->name;
    sd.group = op->res->group;
    sd.kind = op->res->name;
    sd.uid = gcp_meta_str(d->obj, "uid");

    gcp_buf_init(&b, op->a);
    gcp_status_success(&b, &sd);
    gcp_output_send(op, 200, &b);
}


static void
gcp_del_error(gcp_del_t *d, gcp_store_result_t *res)
{
    if (d->done) {
        d->done(d, res->rc);
        return;
    }

    gcp_reg_store_error(d->op, res, d->name);
}


static void
gcp_del_written(void *arg, gcp_store_result_t *res)
{
    gcp_del_t  *d = arg;

    if (res->rc == GCP_ECONFLICT && d->opts.rv == NULL
        && ++d->attempts < GCP_REG_MAX_RETRIES)
    {
        gcp_del_read(d);
        return;
    }

    if (res->rc != GCP_OK) {
        gcp_del_error(d, res);
        return;
    }

    d->rev = d->kept ? res->kvs[0].mod_revision : res->revision;

    gcp_del_finish(d, GCP_OK);
}


/* Adds name to metadata.finalizers unless there; returns 1 if added. */

static int
gcp_del_add_finalizer(json_t *obj, const char *name)
{
    size_t   i;
    json_t  *fin, *meta;

    meta = gcp_meta(obj);
    fin = json_object_get(meta, "finalizers");

    if (!json_is_array(fin)) {
        fin = json_array();
        json_object_set_new(meta, "finalizers", fin);
    }

    for (i = 0; i < json_array_size(fin); i++) {
        if (strcmp(json_string_value(json_array_get(fin, i)) ?: "", name)
            == 0)
        {
            return 0;
        }
    }

    json_array_append_new(fin, json_string(name));

    return 1;
}


static void
gcp_del_got(void *arg, gcp_store_result_t *res)
{
    json_t     *obj;
    gcp_del_t  *d = arg;
    gcp_op_t   *op = d->op;

    if (res->rc == GCP_OK && res->nkvs == 0) {
        res->rc = GCP_ENOTFOUND;
    }

    if (res->rc != GCP_OK) {
        gcp_del_error(d, res);
        return;
    }

    d->cur = res->kvs[0];

    obj = gcp_object_decode(op->a, d->cur.value, 0);
    if (obj == NULL) {
        res->rc = GCP_EINTERNAL;
        res->message = "stored object is corrupt";
        gcp_del_error(d, res);
        return;
    }

    d->obj = obj;
    d->rev = d->cur.mod_revision;

    if (d->opts.uid && strcmp(d->opts.uid, gcp_meta_str(obj, "uid")) != 0) {
        if (d->done) {
            d->done(d, GCP_ECONFLICT);
            return;
        }

        gcp_del_precondition_failed(d,
            gcp_sprintf(op->a, "the UID in the precondition (%s) does not "
                        "match the UID in record (%s). The object might "
                        "have been deleted and then recreated",
                        d->opts.uid, gcp_meta_str(obj, "uid")));
        return;
    }

    if (d->opts.rv && gcp_parse_rv(d->opts.rv) != d->cur.mod_revision) {
        if (d->done) {
            d->done(d, GCP_ECONFLICT);
            return;
        }

        gcp_del_precondition_failed(d,
            gcp_sprintf(op->a, "the ResourceVersion in the precondition (%s)"
                        " does not match the ResourceVersion in record "
                        "(%lld). The object might have been modified",
                        d->opts.rv, (long long) d->cur.mod_revision));
        return;
    }

    d->ad.name = d->name ? d->name : gcp_meta_str(obj, "name");

    if (gcp_reg_converts(op)) {
        /*
         * upstream's store reads the object through its codec, in the
         * request's version: the webhook converts it (a failure fails the
         * delete) and the validating admission sees that
         */
        d->read = gcp_reg_decode_kv_copy(op, &d->cur);

        if (d->read == NULL) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return;
        }

        gcp_reg_convert(op, &d->read, 1, 0, gcp_del_validate, d);
        return;
    }

    /* the validating admission sees the stored object */

    d->read = obj;

    gcp_del_validate(op, d);
}


static void
gcp_del_validate(gcp_op_t *op, void *arg)
{
    gcp_del_t  *d = arg;

    d->ad.old = d->read;

    gcp_admission_validate(&d->ad, gcp_del_admitted);
}


/* Admitted: mark (finalizers, namespaces) or remove the object. */

static void
gcp_del_admitted(gcp_admit_t *ad, int rc)
{
    int                    changed;
    json_t                *obj, *meta, *before;
    gcp_str_t              value;
    gcp_del_t             *d = ad->data;
    gcp_op_t              *op = d->op;
    const gcp_strategy_t  *st = op->res->strategy;

    if (rc != GCP_OK) {
        if (d->done) {
            d->done(d, rc);
        }

        return;
    }

    obj = d->obj;
    meta = gcp_meta(obj);
    changed = 0;

    if (d->opts.finalizer) {
        changed |= gcp_del_add_finalizer(obj, d->opts.finalizer);
    }

    if (st && st->prepare_delete
        && gcp_meta_str(obj, "deletionTimestamp")[0] == '\0')
    {
        changed |= st->prepare_delete(op, obj) != 0;
    }

    d->kept = json_array_size(json_object_get(meta, "finalizers")) > 0;

    if (!d->kept && st && st->before_delete) {
        before = gcp_json_deep_copy(obj);
        d->kept = st->before_delete(op, obj) != 0;

        /* kept as it was (deleting again): nothing to write */
        changed |= d->kept && !gcp_json_equal(before, obj);
        json_decref(before);
    }

    if (d->kept && gcp_meta_str(obj, "deletionTimestamp")[0] == '\0') {
        gcp_meta_set_str(obj, "deletionTimestamp", gcp_reg_now(op));
        json_object_set_new(meta, "deletionGracePeriodSeconds",
                            json_integer(0));
        changed = 1;
    }

    if (st && st->to_external) {
        d->obj = gcp_reg_decode_kv(op, &d->cur);

        if (d->kept && d->obj) {
            json_object_set(d->obj, "metadata", meta);
        }
    }

    if (d->opts.dry_run || (d->kept && !changed)) {
        gcp_del_finish(d, GCP_OK);
        return;
    }

    if (d->kept) {
        value = gcp_reg_encode(op, obj);

        if (value.data == NULL) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return;
        }

        gcp_store_update(op->api->store, d->key, value, d->cur.mod_revision,
                         op->a, gcp_del_written, d);
        return;
    }

    gcp_store_delete(op->api->store, d->key, d->cur.mod_revision, op->a,
                     gcp_del_written, d);
}


static void
gcp_del_read(gcp_del_t *d)
{
    gcp_store_get(d->op->api->store, d->key, 0, d->op->a, gcp_del_got, d);
}


/* After the mutating admission (which sees no object): read, then go on. */

static void
gcp_del_mutated(gcp_admit_t *ad, int rc)
{
    gcp_del_t  *d = ad->data;

    if (rc == GCP_OK) {
        gcp_del_read(d);
    }
}


void
gcp_reg_delete(gcp_op_t *op)
{
    gcp_del_t  *d;

    d = gcp_calloc(op->a, sizeof(gcp_del_t));
    if (d == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    d->op = op;
    d->name = op->ri.name;
    d->key = gcp_reg_key(op);

    if (gcp_del_opts(op, &d->opts) != GCP_OK) {
        return;
    }

    gcp_admission_init(&d->ad, op, GCP_ADMIT_DELETE, NULL, NULL, d->name,
                       d->opts.dry_run);
    d->ad.data = d;

    gcp_admission_mutate(&d->ad, gcp_del_mutated);
}


/* deletecollection */


static void gcp_delcoll_next(gcp_delcoll_t *c);


static void
gcp_delcoll_converted(gcp_op_t *op, void *arg)
{
    gcp_delcoll_t  *c = arg;

    gcp_output_list(op, c->out_kvs, c->objs, c->nout, c->rev, NULL, -1);
}


/* The list of what was deleted, in the request's version. */

static void
gcp_delcoll_respond(gcp_delcoll_t *c)
{
    if (c->nout && gcp_reg_converts(c->op)) {
        gcp_reg_convert(c->op, c->objs, c->nout, GCP_CONVERT_LIST,
                        gcp_delcoll_converted, c);
        return;
    }

    gcp_delcoll_converted(c->op, c);
}


static void
gcp_delcoll_one_done(gcp_del_t *d, int rc)
{
    gcp_delcoll_t  *c = d->coll;
    gcp_kv_t       *kv;

    if (c->op->responded) {
        /* refused (admission): the error is the answer; stop here */
        return;
    }

    if (rc == GCP_OK) {
        kv = gcp_calloc(c->op->a, sizeof(gcp_kv_t));

        if (kv) {
            kv->value = gcp_reg_encode(c->op, d->obj);
            kv->mod_revision = d->rev;
            c->out_kvs[c->nout] = kv;
            c->objs[c->nout] = NULL;

            if (gcp_reg_converts(c->op)) {
                /* converted with the others before the answer */
                gcp_meta_set_str(d->obj, "resourceVersion",
                                 gcp_sprintf(c->op->a, "%lld",
                                             (long long) d->rev));
                c->objs[c->nout] = d->obj;
            }

            c->nout++;
        }
    }

    gcp_delcoll_next(c);
}


static void
gcp_delcoll_next(gcp_delcoll_t *c)
{
    gcp_del_t  *d;
    gcp_op_t   *op = c->op;

    /*
     * One delete at a time.  A delete that completes synchronously calls
     * back into here: it only asks the running loop for another round, so
     * the stack does not grow with the collection.
     */

    if (c->running) {
        c->again = 1;
        return;
    }

    c->running = 1;

    do {
        c->again = 0;

        if (c->next == c->n) {
            c->running = 0;
            gcp_delcoll_respond(c);
            return;
        }

        d = gcp_calloc(op->a, sizeof(gcp_del_t));
        if (d == NULL) {
            c->running = 0;
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return;
        }

        d->op = op;
        d->opts = c->opts;
        d->key = c->kvs[c->next].key;
        d->done = gcp_delcoll_one_done;
        d->coll = c;

        gcp_admission_init(&d->ad, op, GCP_ADMIT_DELETE, NULL, NULL, NULL,
                           d->opts.dry_run);
        d->ad.data = d;

        c->next++;

        gcp_del_read(d);

    } while (c->again);

    c->running = 0;
}


static void
gcp_delcoll_listed(void *arg, gcp_store_result_t *res)
{
    size_t          i;
    json_t         *obj;
    gcp_delcoll_t  *c = arg;
    gcp_op_t       *op = c->op;

    if (res->rc != GCP_OK) {
        gcp_reg_store_error(op, res, "");
        return;
    }

    c->rev = res->revision;
    c->kvs = gcp_calloc(op->a, (res->nkvs + 1) * sizeof(gcp_kv_t));
    c->out_kvs = gcp_calloc(op->a, (res->nkvs + 1) * sizeof(gcp_kv_t *));
    c->objs = gcp_calloc(op->a, (res->nkvs + 1) * sizeof(json_t *));

    if (c->kvs == NULL || c->out_kvs == NULL || c->objs == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    for (i = 0; i < res->nkvs; i++) {
        obj = gcp_reg_decode_kv(op, &res->kvs[i]);

        if (obj && gcp_reg_matches(op, &c->lo, obj)) {
            c->kvs[c->n++] = res->kvs[i];
        }
    }

    gcp_delcoll_next(c);
}


static void
gcp_delcoll_mutated(gcp_admit_t *ad, int rc)
{
    gcp_str_t       prefix;
    gcp_delcoll_t  *c = ad->data;
    gcp_op_t       *op = c->op;

    if (rc != GCP_OK) {
        return;
    }

    prefix = gcp_object_prefix(op->a, op->res, op->ri.ns);

    gcp_store_range(op->api->store, prefix,
                    gcp_store_prefix_end(op->a, prefix), 0, 0, 0, op->a,
                    gcp_delcoll_listed, c);
}


void
gcp_reg_deletecollection(gcp_op_t *op)
{
    gcp_delcoll_t  *c;

    c = gcp_calloc(op->a, sizeof(gcp_delcoll_t));
    if (c == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    c->op = op;

    if (gcp_reg_list_opts(op, &c->lo) != GCP_OK
        || gcp_del_opts(op, &c->opts) != GCP_OK)
    {
        return;
    }

    /* as upstream: the mutating admission once, without a name */

    gcp_admission_init(&c->ad, op, GCP_ADMIT_DELETE, NULL, NULL, "",
                       c->opts.dry_run);
    c->ad.data = c;

    gcp_admission_mutate(&c->ad, gcp_delcoll_mutated);
}
