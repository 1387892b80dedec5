
/*
 * The ResourceQuota validating admission plugin, as upstream's: a create
 * in a namespace whose quotas count its resource (status.hard holds one of
 * its names) is refused with 403 when one more object would exceed a
 * limit, or when the controller has not computed the usage yet; otherwise
 * each such quota is charged (status.used + 1) with a write conditional
 * on the revision read, before the object is stored, and a lost race reads
 * the quota again and starts over.  So concurrent creates in any number of
 * workers never admit more than the limit.
 */

#include <stdlib.h>

#include "gcp_plugins.h"
#include "gcp_quota.h"
#include "gcp_object.h"
#include "gcp_quantity.h"
#include "gcp_types.h"


#define GCP_QADM_RETRIES  64


typedef struct {
    gcp_kv_t            kv;
    json_t             *quota;          /* decoded (arena), then charged */
    unsigned            charged:1;
} gcp_qadm_quota_t;


typedef struct {
    gcp_admit_t        *ad;
    gcp_admit_done_pt   done;
    const char         *names[2];
    size_t              nnames;
    gcp_qadm_quota_t   *quotas;
    size_t              n;
    size_t              next;
    int                 attempts;
} gcp_qadm_t;


static int
gcp_qadm_strcmp(const void *a, const void *b)
{
    return strcmp(*(const char * const *) a, *(const char * const *) b);
}


/* "a=1,b=2" for names (sorted) and the values of map (or v for all). */
static const char *
gcp_qadm_pretty(gcp_arena_t *a, const char **names, size_t n,
    const json_t *map, const char *v)
{
    size_t      i;
    gcp_buf_t   b;
    const char *value;

    qsort(names, n, sizeof(const char *), gcp_qadm_strcmp);

    gcp_buf_init(&b, a);

    for (i = 0; i < n; i++) {
        value = v ? v : json_string_value(json_object_get(map, names[i]));
        gcp_buf_printf(&b, "%s%s", i ? "," : "", names[i]);

        if (map || v) {
            gcp_buf_printf(&b, "=%s", value ? value : "0");
        }
    }

    return gcp_buf_cstr(&b);
}


static int
gcp_qadm_refuse(gcp_qadm_t *st, const char *why)
{
    gcp_op_t  *op = st->ad->op;

    gcp_op_error_obj(op, GCP_EFORBIDDEN,
                     gcp_sprintf(op->a, "%s \"%s\" is forbidden: %s",
                                 gcp_op_qualified_resource(op, op->res),
                                 st->ad->name ? st->ad->name : "", why),
                     st->ad->name);

    return GCP_EFORBIDDEN;
}


/*
 * Checks one more object against q and charges it.  Returns GCP_OK
 * (q->charged tells whether it counts this resource), or the error it
 * responded with.
 */
static int
gcp_qadm_evaluate(gcp_qadm_t *st, gcp_qadm_quota_t *q)
{
    size_t           i, n, nexceeded;
    json_t          *status, *hard, *used, *v;
    gcp_arena_t     *a = st->ad->op->a;
    const char      *restricted[2], *exceeded[2], *err, *name;
    gcp_quantity_t   qused, qhard, one, sum;

    q->charged = 0;

    if (gcp_quota_scoped(q->quota)) {
        return GCP_OK;
    }

    status = json_object_get(q->quota, "status");
    hard = json_object_get(status, "hard");
    used = json_object_get(status, "used");

    n = 0;

    for (i = 0; i < st->nnames; i++) {
        if (json_object_get(hard, st->names[i])) {
            restricted[n++] = st->names[i];
        }
    }

    if (n == 0) {
        return GCP_OK;
    }

    name = gcp_meta_str(q->quota, "name");

    for (i = 0; i < n; i++) {
        if (json_object_get(used, restricted[i]) == NULL) {
            return gcp_qadm_refuse(st,
                       gcp_sprintf(a, "status unknown for quota: %s, "
                                   "resources: %s", name,
                                   gcp_qadm_pretty(a, restricted, n, NULL,
                                                   NULL)));
        }
    }

    gcp_quantity_set_int(&one, 1);
    nexceeded = 0;

    for (i = 0; i < n; i++) {
        if (gcp_quantity_parse_json(json_object_get(used, restricted[i]),
                                    &qused, &err) != GCP_OK
            || gcp_quantity_parse_json(json_object_get(hard, restricted[i]),
                                       &qhard, &err) != GCP_OK)
        {
            continue;
        }

        gcp_quantity_add(&sum, &qused, &one);

        if (gcp_quantity_cmp(&sum, &qhard) > 0) {
            exceeded[nexceeded++] = restricted[i];
        }
    }

    if (nexceeded) {
        return gcp_qadm_refuse(st,
                   gcp_sprintf(a, "exceeded quota: %s, requested: %s, "
                               "used: %s, limited: %s", name,
                               gcp_qadm_pretty(a, exceeded, nexceeded, NULL,
                                               "1"),
                               gcp_qadm_pretty(a, exceeded, nexceeded, used,
                                               NULL),
                               gcp_qadm_pretty(a, exceeded, nexceeded, hard,
                                               NULL)));
    }

    for (i = 0; i < n; i++) {
        v = json_object_get(used, restricted[i]);

        if (gcp_quantity_parse_json(v, &qused, &err) == GCP_OK) {
            gcp_quantity_add(&sum, &qused, &one);
            json_object_set_new(used, restricted[i], gcp_quantity_json(&sum));
        }
    }

    q->charged = 1;

    return GCP_OK;
}


static void gcp_qadm_apply(gcp_qadm_t *st);


/*
 * The answer to a failed read or write of the quotas: the store's own
 * status when etcd is unreachable or without quorum (503, 504: nothing
 * of the request was written), as the namespace lifecycle answers; an
 * internal error otherwise.
 */
static int
gcp_qadm_store_rc(int rc)
{
    return (rc == GCP_EUNAVAILABLE || rc == GCP_ETIMEOUT) ? rc
                                                          : GCP_EINTERNAL;
}


static void
gcp_qadm_written(void *arg, gcp_store_result_t *res)
{
    int                rc;
    gcp_qadm_t        *st = arg;
    gcp_op_t          *op = st->ad->op;
    gcp_qadm_quota_t  *q = &st->quotas[st->next];
    gcp_status_details_t  d;

    if (res->rc == GCP_OK || res->rc == GCP_ENOTFOUND) {
        st->next++;
        gcp_qadm_apply(st);
        return;
    }

    if (res->rc != GCP_ECONFLICT || res->nkvs == 0) {
        rc = gcp_qadm_store_rc(res->rc);
        gcp_op_error(op, rc, res->message, NULL);
        st->done(st->ad, rc);
        return;
    }

    if (++st->attempts >= GCP_QADM_RETRIES) {
        memset(&d, 0, sizeof(d));
        d.name = gcp_meta_str(q->quota, "name");
        d.kind = "resourcequotas";

        gcp_op_error(op, GCP_ECONFLICT,
                     gcp_sprintf(op->a, "Operation cannot be fulfilled on "
                                 "resourcequotas \"%s\": the object has "
                                 "been modified; please apply your changes "
                                 "to the latest version and try again",
                                 d.name), &d);
        st->done(st->ad, GCP_ECONFLICT);
        return;
    }

    /* someone charged it meanwhile: evaluate the current one again */

    q->kv = res->kvs[0];
    q->quota = gcp_object_decode(op->a, q->kv.value, 0);

    if (q->quota == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        st->done(st->ad, GCP_ENOMEM);
        return;
    }

    if (gcp_qadm_evaluate(st, q) != GCP_OK) {
        st->done(st->ad, GCP_EFORBIDDEN);
        return;
    }

    gcp_qadm_apply(st);
}


/* Writes the charged quotas one after the other. */
static void
gcp_qadm_apply(gcp_qadm_t *st)
{
    gcp_op_t          *op = st->ad->op;
    gcp_str_t          value;
    gcp_qadm_quota_t  *q;

    while (st->next < st->n && !st->quotas[st->next].charged) {
        st->next++;
    }

    if (st->next == st->n) {
        st->done(st->ad, GCP_OK);
        return;
    }

    q = &st->quotas[st->next];

    value = gcp_object_encode(op->a, q->quota,
                              gcp_type_resourcequotas.strategy->field_order);
    if (value.data == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        st->done(st->ad, GCP_ENOMEM);
        return;
    }

    gcp_store_update(op->api->store, q->kv.key, value, q->kv.mod_revision,
                     op->a, gcp_qadm_written, st);
}


static void
gcp_qadm_listed(void *arg, gcp_store_result_t *res)
{
    int          rc;
    size_t       i;
    gcp_qadm_t  *st = arg;
    gcp_op_t    *op = st->ad->op;

    if (res->rc != GCP_OK) {
        rc = gcp_qadm_store_rc(res->rc);
        gcp_op_error(op, rc, res->message, NULL);
        st->done(st->ad, rc);
        return;
    }

    if (res->nkvs == 0) {
        st->done(st->ad, GCP_OK);
        return;
    }

    st->quotas = gcp_calloc(op->a, res->nkvs * sizeof(gcp_qadm_quota_t));
    if (st->quotas == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        st->done(st->ad, GCP_ENOMEM);
        return;
    }

    st->n = res->nkvs;

    for (i = 0; i < res->nkvs; i++) {
        st->quotas[i].kv = res->kvs[i];
        st->quotas[i].quota = gcp_object_decode(op->a, res->kvs[i].value, 0);

        if (st->quotas[i].quota == NULL) {
            continue;
        }

        if (gcp_qadm_evaluate(st, &st->quotas[i]) != GCP_OK) {
            st->done(st->ad, GCP_EFORBIDDEN);
            return;
        }
    }

    if (st->ad->dry_run) {
        st->done(st->ad, GCP_OK);
        return;
    }

    gcp_qadm_apply(st);
}


static void
gcp_qadm_admit(void *data, gcp_admit_t *ad, gcp_admit_done_pt done)
{
    gcp_op_t    *op = ad->op;
    gcp_str_t    prefix;
    gcp_qadm_t  *st;

    /* object counts change on create only */

    if (ad->operation != GCP_ADMIT_CREATE || op->res == NULL
        || !op->res->namespaced || op->sub || op->ri.ns[0] == '\0')
    {
        done(ad, GCP_OK);
        return;
    }

    st = gcp_calloc(op->a, sizeof(gcp_qadm_t));
    if (st == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        done(ad, GCP_ENOMEM);
        return;
    }

    st->ad = ad;
    st->done = done;
    st->nnames = gcp_quota_names(op->a, op->res, st->names);

    prefix = gcp_object_prefix(op->a, &gcp_type_resourcequotas, op->ri.ns);

    gcp_store_range(op->api->store, prefix,
                    gcp_store_prefix_end(op->a, prefix), 0, 0, 0, op->a,
                    gcp_qadm_listed, st);
}


int
gcp_quota_plugin(gcp_api_t *api, const gcp_admission_args_t *args,
    gcp_admission_plugin_t *plugin, char *err, size_t errlen)
{
    if (gcp_admission_no_args(args, err, errlen) != GCP_OK) {
        return GCP_EBADREQUEST;
    }

    if (plugin) {
        plugin->validate = gcp_qadm_admit;
    }

    return GCP_OK;
}
