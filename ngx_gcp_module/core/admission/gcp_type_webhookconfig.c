
/*
 * admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and
 * ValidatingWebhookConfiguration (see gcp_admissionreg.h): the v1
 * defaults, each webhook rewritten as kube-apiserver prints it (Go field
 * order, omitted empty fields: a round trip through its protobuf message),
 * generation kept, kubectl's Table.
 */

#include "gcp_admissionreg.h"
#include "gcp_json.h"
#include "gcp_protobuf.h"
#include "gcp_table.h"


#define GCP_WHC_DEF  "io.k8s.api.admissionregistration.v1."


static const char * const  gcp_whc_order[] = { "webhooks", NULL };


static int
gcp_whc_default(json_t *obj, const char *field, json_t *value)
{
    json_t  *v;

    v = json_object_get(obj, field);

    if (v && !json_is_null(v)) {
        json_decref(value);
        return GCP_OK;
    }

    return json_object_set_new(obj, field, value) == 0 ? GCP_OK : GCP_ENOMEM;
}


/* SetDefaults_{Mutating,Validating}Webhook, _Rule, _ServiceReference */
static int
gcp_whc_defaults(json_t *hook, int mutating)
{
    int      rc;
    size_t   i;
    json_t  *rule, *svc;

    rc = gcp_whc_default(hook, "failurePolicy", json_string("Fail"));
    rc |= gcp_whc_default(hook, "matchPolicy", json_string("Equivalent"));
    rc |= gcp_whc_default(hook, "namespaceSelector", json_object());
    rc |= gcp_whc_default(hook, "objectSelector", json_object());
    rc |= gcp_whc_default(hook, "timeoutSeconds", json_integer(10));

    if (mutating) {
        rc |= gcp_whc_default(hook, "reinvocationPolicy",
                              json_string("Never"));
    }

    json_array_foreach(json_object_get(hook, "rules"), i, rule) {
        if (json_is_object(rule)) {
            rc |= gcp_whc_default(rule, "scope", json_string("*"));
        }
    }

    svc = json_object_get(json_object_get(hook, "clientConfig"), "service");

    if (json_is_object(svc)) {
        rc |= gcp_whc_default(svc, "port", json_integer(443));
    }

    return rc == GCP_OK ? GCP_OK : GCP_ENOMEM;
}


/*
 * The webhook as kube-apiserver prints it: encoded to its protobuf message
 * and decoded back.  Returns a new reference, or NULL (left as it is).
 */
static json_t *
gcp_whc_canonical(gcp_op_t *op, const json_t *hook, const char *def)
{
    json_t     *out;
    gcp_buf_t   b;
    const char *msg;

    gcp_buf_init(&b, op->a);

    if (gcp_protobuf_encode_message(&b, op->api->schemas, def, hook)
        != GCP_OK || gcp_buf_failed(&b))
    {
        return NULL;
    }

    if (gcp_protobuf_decode_message(op->a, op->api->schemas, def, b.data,
                                    b.len, &out, &msg)
        != GCP_OK)
    {
        return NULL;
    }

    return json_incref(out);
}


static int
gcp_whc_prepare(gcp_op_t *op, json_t *obj, int mutating)
{
    size_t       i;
    json_t      *hooks, *hook, *c;
    const char  *def;

    def = mutating ? GCP_WHC_DEF "MutatingWebhook"
                   : GCP_WHC_DEF "ValidatingWebhook";

    hooks = json_object_get(obj, "webhooks");

    json_array_foreach(hooks, i, hook) {
        if (!json_is_object(hook)) {
            continue;
        }

        if (gcp_whc_defaults(hook, mutating) != GCP_OK) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return GCP_ENOMEM;
        }

        c = gcp_whc_canonical(op, hook, def);

        if (c && json_array_set_new(hooks, i, c) != 0) {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


static int
gcp_whc_prepare_mutating(gcp_op_t *op, json_t *obj)
{
    return gcp_whc_prepare(op, obj, 1);
}


static int
gcp_whc_prepare_mutating_update(gcp_op_t *op, json_t *obj,
    const json_t *old)
{
    return gcp_whc_prepare(op, obj, 1);
}


static int
gcp_whc_prepare_validating(gcp_op_t *op, json_t *obj)
{
    return gcp_whc_prepare(op, obj, 0);
}


static int
gcp_whc_prepare_validating_update(gcp_op_t *op, json_t *obj,
    const json_t *old)
{
    return gcp_whc_prepare(op, obj, 0);
}


static void
gcp_whc_validate_mutating(gcp_ferrs_t *errs, const json_t *obj)
{
    gcp_webhookcfg_validate(errs, obj, NULL, 1);
}


static void
gcp_whc_validate_mutating_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    gcp_webhookcfg_validate(errs, obj, old, 1);
}


static void
gcp_whc_validate_validating(gcp_ferrs_t *errs, const json_t *obj)
{
    gcp_webhookcfg_validate(errs, obj, NULL, 0);
}


static void
gcp_whc_validate_validating_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    gcp_webhookcfg_validate(errs, obj, old, 0);
}


static int
gcp_whc_cells(gcp_op_t *op, const json_t *obj, json_t *cells)
{
    gcp_table_cell_name(cells, obj);
    json_array_append_new(cells, json_integer((json_int_t)
        json_array_size(json_object_get(obj, "webhooks"))));
    gcp_table_cell_age(cells, obj);

    return GCP_OK;
}


static const gcp_strategy_t  gcp_mutatingwebhookconfiguration_strategy = {
    .field_order = gcp_whc_order,
    .prepare_create = gcp_whc_prepare_mutating,
    .prepare_update = gcp_whc_prepare_mutating_update,
    .validate = gcp_whc_validate_mutating,
    .validate_update = gcp_whc_validate_mutating_update,
    .table_cells = gcp_whc_cells,
    .generation = 1,
};


static const gcp_strategy_t  gcp_validatingwebhookconfiguration_strategy = {
    .field_order = gcp_whc_order,
    .prepare_create = gcp_whc_prepare_validating,
    .prepare_update = gcp_whc_prepare_validating_update,
    .validate = gcp_whc_validate_validating,
    .validate_update = gcp_whc_validate_validating_update,
    .table_cells = gcp_whc_cells,
    .generation = 1,
};


static const gcp_column_t  gcp_whc_columns[] = {
    GCP_COLUMN_NAME,
    { "Webhooks", "integer", "", "Webhooks indicates the number of webhooks "
      "registered in this configuration", 0 },
    GCP_COLUMN_AGE,
};


const gcp_resource_t  gcp_type_mutatingwebhookconfigurations = {
    .protobuf = 1,
    .group = GCP_ADMISSIONREG_GROUP,
    .version = "v1",
    .name = "mutatingwebhookconfigurations",
    .singular = "mutatingwebhookconfiguration",
    .kind = "MutatingWebhookConfiguration",
    .list_kind = "MutatingWebhookConfigurationList",
    .categories = (const char * const []) { "api-extensions", NULL },
    .verbs = GCP_VERBS_CRUD,
    .schema = GCP_WHC_DEF "MutatingWebhookConfiguration",
    .list_schema = GCP_WHC_DEF "MutatingWebhookConfigurationList",
    .storage = GCP_ADMISSIONREG_GROUP "/mutatingwebhookconfigurations",
    .storage_version_hash = "Sqi0GUgDaX0=",
    .columns = gcp_whc_columns,
    .ncolumns = gcp_nelems(gcp_whc_columns),
    .strategy = &gcp_mutatingwebhookconfiguration_strategy,
};


const gcp_resource_t  gcp_type_validatingwebhookconfigurations = {
    .protobuf = 1,
    .group = GCP_ADMISSIONREG_GROUP,
    .version = "v1",
    .name = "validatingwebhookconfigurations",
    .singular = "validatingwebhookconfiguration",
    .kind = "ValidatingWebhookConfiguration",
    .list_kind = "ValidatingWebhookConfigurationList",
    .categories = (const char * const []) { "api-extensions", NULL },
    .verbs = GCP_VERBS_CRUD,
    .schema = GCP_WHC_DEF "ValidatingWebhookConfiguration",
    .list_schema = GCP_WHC_DEF "ValidatingWebhookConfigurationList",
    .storage = GCP_ADMISSIONREG_GROUP "/validatingwebhookconfigurations",
    .storage_version_hash = "B0wHjQmsGNk=",
    .columns = gcp_whc_columns,
    .ncolumns = gcp_nelems(gcp_whc_columns),
    .strategy = &gcp_validatingwebhookconfiguration_strategy,
};
