
/*
 * core/v1 Namespace: cluster-scoped, named by a DNS label, Active until
 * deleted, then Terminating until spec.finalizers (emptied through
 * /finalize) and metadata.finalizers are gone.  (That default,
 * kube-system and kube-public may not be deleted is the NamespaceLifecycle
 * admission plugin's rule: admission/gcp_namespace_lifecycle.c.)
 */

#include "gcp_reg.h"
#include "gcp_types.h"
#include "gcp_table.h"
#include "gcp_validation_types.h"


static const char * const  gcp_namespace_order[] = {
    "spec", "status", NULL
};

static const char * const  gcp_namespace_fields[] = {
    "metadata.name", "status.phase", NULL
};


static json_t *
gcp_namespace_child(json_t *obj, const char *field)
{
    json_t  *v;

    v = json_object_get(obj, field);

    if (!json_is_object(v)) {
        v = json_object();
        json_object_set_new(obj, field, v);
    }

    return v;
}


static void
gcp_namespace_label(json_t *obj)
{
    json_t  *meta, *labels;

    meta = gcp_meta(obj);
    labels = gcp_namespace_child(meta, "labels");

    json_object_set_new(labels, "kubernetes.io/metadata.name",
                        json_string(gcp_meta_str(obj, "name")));
}


static int
gcp_namespace_prepare_create(gcp_op_t *op, json_t *obj)
{
    size_t       i;
    json_t      *spec, *status, *fin;
    const char  *v;

    /* "kubernetes" is appended to the finalizers asked for, if absent */

    spec = gcp_namespace_child(obj, "spec");
    fin = json_object_get(spec, "finalizers");

    if (!json_is_array(fin)) {
        fin = json_array();
        json_object_set_new(spec, "finalizers", fin);
    }

    for (i = 0; i < json_array_size(fin); i++) {
        v = json_string_value(json_array_get(fin, i));

        if (v && strcmp(v, "kubernetes") == 0) {
            break;
        }
    }

    if (i == json_array_size(fin)) {
        json_array_append_new(fin, json_string("kubernetes"));
    }

    status = json_object();
    json_object_set_new(status, "phase", json_string("Active"));
    json_object_set_new(obj, "status", status);

    if (gcp_meta_str(obj, "name")[0]) {
        gcp_namespace_label(obj);
    }

    return GCP_OK;
}


static int
gcp_namespace_prepare_update(gcp_op_t *op, json_t *obj, const json_t *old)
{
    json_t  *v;

    /* status and spec.finalizers change only through their subresources */

    v = json_object_get(old, "status");
    if (v) {
        json_object_set(obj, "status", v);
    }

    v = json_object_get(json_object_get(old, "spec"), "finalizers");

    if (v) {
        json_object_set(gcp_namespace_child(obj, "spec"), "finalizers", v);

    } else if (json_is_object(json_object_get(obj, "spec"))) {
        json_object_del(json_object_get(obj, "spec"), "finalizers");
    }

    gcp_namespace_label(obj);

    return GCP_OK;
}


static int
gcp_namespace_prepare_status(gcp_op_t *op, json_t *obj, const json_t *old)
{
    return GCP_OK;
}


static int
gcp_namespace_before_delete(gcp_op_t *op, json_t *obj)
{
    json_t  *fin;

    /*
     * As the namespace registry of kube-apiserver: the first delete only
     * turns the namespace Terminating, with a deletionTimestamp and no
     * grace period; once spec.finalizers is empty (PUT /finalize) a
     * delete removes it.
     */

    if (gcp_meta_str(obj, "deletionTimestamp")[0] == '\0') {
        gcp_meta_set_str(obj, "deletionTimestamp", gcp_reg_now(op));
        json_object_set_new(gcp_namespace_child(obj, "status"), "phase",
                            json_string("Terminating"));
        return 1;
    }

    fin = json_object_get(json_object_get(obj, "spec"), "finalizers");

    return json_array_size(fin) > 0;
}


static int
gcp_namespace_cells(gcp_op_t *op, const json_t *obj, json_t *cells)
{
    const char  *phase;

    phase = json_string_value(json_object_get(json_object_get(obj, "status"),
                                              "phase"));

    gcp_table_cell_name(cells, obj);
    json_array_append_new(cells, json_string(phase ? phase : ""));
    gcp_table_cell_age(cells, obj);

    return GCP_OK;
}


static const char *
gcp_namespace_field(gcp_op_t *op, const json_t *obj, const char *field)
{
    if (strcmp(field, "status.phase") == 0) {
        return json_string_value(
                   json_object_get(json_object_get(obj, "status"), "phase"));
    }

    return NULL;
}


static const gcp_strategy_t  gcp_namespace_strategy = {
    .field_order = gcp_namespace_order,
    .prepare_create = gcp_namespace_prepare_create,
    .prepare_update = gcp_namespace_prepare_update,
    .prepare_status_update = gcp_namespace_prepare_status,
    .status_build = gcp_type_status_keep_spec,
    .validate = gcp_validate_namespace,
    .validate_update = gcp_validate_namespace_update,
    .validate_status = gcp_validate_namespace_status,
    .validate_finalize = gcp_validate_namespace_finalize,
    .before_delete = gcp_namespace_before_delete,
    .table_cells = gcp_namespace_cells,
    .field_value = gcp_namespace_field,
};


static const gcp_subresource_t  gcp_namespace_subresources[] = {
    { "finalize", GCP_SUB_FINALIZE, GCP_VERB_UPDATE, NULL, NULL, NULL },
    { "status", GCP_SUB_STATUS,
      GCP_VERB_GET | GCP_VERB_PATCH | GCP_VERB_UPDATE, NULL, NULL, NULL },
};


static const gcp_column_t  gcp_namespace_columns[] = {
    GCP_COLUMN_NAME,
    { "Status", "string", "", "The status of the namespace", 0 },
    GCP_COLUMN_AGE,
};


const gcp_resource_t  gcp_type_namespaces = {
    .protobuf = 1,
    .group = "",
    .version = "v1",
    .name = "namespaces",
    .singular = "namespace",
    .kind = "Namespace",
    .list_kind = "NamespaceList",
    .short_names = (const char * const []) { "ns", NULL },
    .namespaced = 0,
    .name_mode = GCP_NAME_DNS_LABEL,
    .verbs = GCP_VERBS_CRUD & ~GCP_VERB_DELETECOLLECTION,
    .subresources = gcp_namespace_subresources,
    .nsubresources = gcp_nelems(gcp_namespace_subresources),
    .schema = "io.k8s.api.core.v1.Namespace",
    .list_schema = "io.k8s.api.core.v1.NamespaceList",
    .storage = "namespaces",
    .columns = gcp_namespace_columns,
    .ncolumns = gcp_nelems(gcp_namespace_columns),
    .field_labels = gcp_namespace_fields,
    .strategy = &gcp_namespace_strategy,
};
