
/*
 * apiregistration.k8s.io/v1 APIService, with /status: which server serves
 * a group-version (kube-aggregator's pkg/apis/apiregistration, registry
 * and validation, v1.32).  A local APIService (spec.service null) is
 * Available at once; the status of a remote one belongs to the
 * availability controller.
 */

#include <stdlib.h>

#include "gcp_aggregator.h"
#include "gcp_object.h"
#include "gcp_registry.h"
#include "gcp_table.h"
#include "gcp_time.h"
#include "gcp_validation.h"


static const char * const  gcp_apisvc_order[] = { "spec", "status", NULL };


/* SetDefaults_ServiceReference: port 443. */
static void
gcp_apisvc_defaults(json_t *obj)
{
    json_t  *svc;

    svc = json_object_get(json_object_get(obj, "spec"), "service");

    if (json_is_object(svc) && json_object_get(svc, "port") == NULL) {
        json_object_set_new(svc, "port", json_integer(443));
    }
}


json_t *
gcp_apiservice_condition(const char *status, const char *reason,
    const char *message, const char *time)
{
    json_t  *c;

    c = json_pack("{s:s, s:s}", "type", "Available", "status", status);

    if (c == NULL) {
        return NULL;
    }

    if (time) {
        json_object_set_new(c, "lastTransitionTime", json_string(time));

    } else {
        json_object_set_new(c, "lastTransitionTime", json_null());
    }

    if (reason && reason[0]) {
        json_object_set_new(c, "reason", json_string(reason));
    }

    if (message && message[0]) {
        json_object_set_new(c, "message", json_string(message));
    }

    return c;
}


static int
gcp_apisvc_prepare_create(gcp_op_t *op, json_t *obj)
{
    char     now[GCP_TIME_BUFSIZE];
    json_t  *status, *c;

    gcp_apisvc_defaults(obj);

    status = json_object();
    if (status == NULL) {
        return GCP_ENOMEM;
    }

    json_object_set_new(obj, "status", status);

    /* local APIServices are available at once */

    if (!json_is_object(json_object_get(json_object_get(obj, "spec"),
                                        "service")))
    {
        gcp_time_format(now, gcp_time_now().tv_sec);

        c = gcp_apiservice_condition("True", GCP_APISVC_LOCAL_REASON,
                                     GCP_APISVC_LOCAL_MESSAGE, now);

        if (c == NULL
            || json_object_set_new(status, "conditions", json_pack("[o]", c))
               != 0)
        {
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


static int
gcp_apisvc_prepare_update(gcp_op_t *op, json_t *obj, const json_t *old)
{
    json_t  *status;

    gcp_apisvc_defaults(obj);

    status = json_object_get(old, "status");
    json_object_set(obj, "status", status ? status : json_object());

    return GCP_OK;
}


static int
gcp_apisvc_prepare_status(gcp_op_t *op, json_t *obj, const json_t *old)
{
    size_t       i;
    json_t      *meta, *v;
    const char  *keep;

    static const char * const  kept[] = {
        "labels", "annotations", "finalizers", "ownerReferences", NULL
    };

    /* the spec and these metadata stay as they were */

    v = json_object_get(old, "spec");
    json_object_set(obj, "spec", v ? v : json_object());

    meta = gcp_meta(obj);
    if (meta == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; kept[i]; i++) {
        keep = kept[i];
        v = json_object_get(json_object_get(old, "metadata"), keep);

        if (v) {
            json_object_set(meta, keep, v);

        } else {
            json_object_del(meta, keep);
        }
    }

    gcp_apisvc_defaults(obj);

    if (!json_is_object(json_object_get(obj, "status"))) {
        json_object_set_new(obj, "status", json_object());
    }

    return GCP_OK;
}


/* The length of spec.caBundle decoded (0: none, or not base64). */
static size_t
gcp_apisvc_ca_len(gcp_arena_t *a, const json_t *spec)
{
    gcp_str_t     out;
    const char   *msg;
    const json_t *ca;

    ca = json_object_get(spec, "caBundle");

    if (!json_is_string(ca)
        || gcp_base64_decode(a, json_string_value(ca), json_string_length(ca),
                             &out, &msg) != GCP_OK)
    {
        return 0;
    }

    return out.len;
}


/* spec.caBundle must be base64 (a decoding error, 400). */
static int
gcp_apisvc_decode(gcp_arena_t *a, const json_t *obj, const char **msg)
{
    gcp_str_t      out;
    const json_t  *ca;

    ca = json_object_get(json_object_get(obj, "spec"), "caBundle");

    if (!json_is_string(ca)) {
        return GCP_OK;
    }

    return gcp_base64_decode(a, json_string_value(ca),
                             json_string_length(ca), &out, msg);
}


/* ValidateAPIService */
static void
gcp_apisvc_validate(gcp_ferrs_t *errs, const json_t *obj)
{
    size_t         len;
    json_int_t     n;
    gcp_msgs_t     m;
    const char    *name, *group, *version, *required;
    gcp_arena_t   *a = errs->arena;
    const json_t  *spec, *svc, *port;

    spec = json_object_get(obj, "spec");
    svc = json_object_get(spec, "service");
    name = gcp_meta_str(obj, "name");
    group = json_string_value(json_object_get(spec, "group"));
    version = json_string_value(json_object_get(spec, "version"));
    group = group ? group : "";
    version = version ? version : "";

    /* the name must be version.group (its path segment rules come first) */

    required = gcp_sprintf(a, "%s.%s", version, group);

    if (name && name[0] && required
        && gcp_is_path_segment_name(name, strlen(name), 0, &m) == 0
        && strcmp(name, required) != 0)
    {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "metadata.name",
                      gcp_ferr_quote(a, name),
                      "must be `spec.version+\".\"+spec.group`: %s",
                      gcp_ferr_quote(a, required));
    }

    if (group[0] == '\0' && strcmp(version, "v1") != 0) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, "spec.group", NULL,
                      "only v1 may have an empty group and it better be "
                      "legacy kube");
    }

    if (group[0]) {
        gcp_is_dns1123_subdomain(group, strlen(group), &m);
        gcp_ferrs_add_msgs(errs, "spec.group", group, strlen(group), &m);
    }

    gcp_is_dns1035_label(version, strlen(version), &m);
    gcp_ferrs_add_msgs(errs, "spec.version", version, strlen(version), &m);

    n = json_integer_value(json_object_get(spec, "groupPriorityMinimum"));

    if (n <= 0 || n > 20000) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.groupPriorityMinimum",
                      gcp_sprintf(a, "%lld", (long long) n),
                      "must be positive and less than 20000");
    }

    n = json_integer_value(json_object_get(spec, "versionPriority"));

    if (n <= 0 || n > 1000) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.versionPriority",
                      gcp_sprintf(a, "%lld", (long long) n),
                      "must be positive and less than 1000");
    }

    len = gcp_apisvc_ca_len(a, spec);

    if (!json_is_object(svc)) {
        if (len) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.caBundle",
                          gcp_ferr_quote(a, gcp_sprintf(a, "%zu bytes", len)),
                          "local APIServices may not have a caBundle");
        }

        if (json_is_true(json_object_get(spec, "insecureSkipTLSVerify"))) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID,
                          "spec.insecureSkipTLSVerify", "true",
                          "local APIServices may not have "
                          "insecureSkipTLSVerify");
        }

        return;
    }

    if (json_string_length(json_object_get(svc, "namespace")) == 0) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, "spec.service.namespace",
                      NULL, NULL);
    }

    if (json_string_length(json_object_get(svc, "name")) == 0) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, "spec.service.name", NULL,
                      NULL);
    }

    port = json_object_get(svc, "port");
    n = json_integer_value(port);

    if (port && (n < 1 || n > 65535)) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.service.port",
                      gcp_sprintf(a, "%lld", (long long) n),
                      "port is not valid: must be between 1 and 65535, "
                      "inclusive");
    }

    if (json_is_true(json_object_get(spec, "insecureSkipTLSVerify")) && len)
    {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, "spec.insecureSkipTLSVerify",
                      "true", "may not be true if caBundle is present");
    }
}


static void
gcp_apisvc_validate_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    gcp_apisvc_validate(errs, obj);
}


/* ValidateAPIServiceStatus */
static void
gcp_apisvc_validate_status(gcp_ferrs_t *errs, const json_t *obj)
{
    size_t       i;
    json_t      *c;
    const char  *s;

    json_array_foreach(json_object_get(json_object_get(obj, "status"),
                                       "conditions"), i, c)
    {
        s = json_string_value(json_object_get(c, "status"));
        s = s ? s : "";

        if (strcmp(s, "True") != 0 && strcmp(s, "False") != 0
            && strcmp(s, "Unknown") != 0)
        {
            gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED,
                          gcp_sprintf(errs->arena,
                                      "status.conditions[%zu].status", i),
                          gcp_ferr_quote(errs->arena, s),
                          "supported values: \"True\", \"False\", "
                          "\"Unknown\"");
        }
    }
}


const json_t *
gcp_apiservice_available(const json_t *obj)
{
    size_t   i;
    json_t  *c;

    json_array_foreach(json_object_get(json_object_get(obj, "status"),
                                       "conditions"), i, c)
    {
        if (json_is_string(json_object_get(c, "type"))
            && strcmp(json_string_value(json_object_get(c, "type")),
                      "Available") == 0)
        {
            return c;
        }
    }

    return NULL;
}


/* Name, Service ("Local" or NS/NAME), Available ("False (Reason)"), Age */
static int
gcp_apisvc_cells(gcp_op_t *op, const json_t *obj, json_t *cells)
{
    const char    *status, *reason, *svc;
    const json_t  *s, *c;

    s = json_object_get(json_object_get(obj, "spec"), "service");
    svc = "Local";

    if (json_is_object(s)) {
        svc = gcp_sprintf(op->a, "%s/%s",
                  json_string_value(json_object_get(s, "namespace")) ?: "",
                  json_string_value(json_object_get(s, "name")) ?: "");
    }

    status = "Unknown";
    c = gcp_apiservice_available(obj);

    if (c) {
        status = json_string_value(json_object_get(c, "status")) ?: "";
        reason = json_string_value(json_object_get(c, "reason"));

        if (strcmp(status, "True") != 0 && reason && reason[0]) {
            status = gcp_sprintf(op->a, "%s (%s)", status, reason);
        }
    }

    gcp_table_cell_name(cells, obj);
    json_array_append_new(cells, json_string(svc ? svc : ""));
    json_array_append_new(cells, json_string(status ? status : ""));
    gcp_table_cell_age(cells, obj);

    return GCP_OK;
}


static const gcp_strategy_t  gcp_apisvc_strategy = {
    .field_order = gcp_apisvc_order,
    .decode = gcp_apisvc_decode,
    .prepare_create = gcp_apisvc_prepare_create,
    .prepare_update = gcp_apisvc_prepare_update,
    .prepare_status_update = gcp_apisvc_prepare_status,
    .validate = gcp_apisvc_validate,
    .validate_update = gcp_apisvc_validate_update,
    .validate_status = gcp_apisvc_validate_status,
    .table_cells = gcp_apisvc_cells,
    .no_unconditional_update = 1,
};


static const gcp_subresource_t  gcp_apisvc_subresources[] = {
    { "status", GCP_SUB_STATUS,
      GCP_VERB_GET | GCP_VERB_PATCH | GCP_VERB_UPDATE, NULL, NULL, NULL },
};


static const gcp_column_t  gcp_apisvc_columns[] = {
    GCP_COLUMN_NAME,
    { "Service", "string", "",
      "The reference to the service that hosts this API endpoint.", 0 },
    { "Available", "string", "", "Whether this service is available.", 0 },
    GCP_COLUMN_AGE,
};


const gcp_resource_t  gcp_type_apiservices = {
    .protobuf = 1,
    .group = "apiregistration.k8s.io",
    .version = "v1",
    .name = "apiservices",
    .singular = "apiservice",
    .kind = "APIService",
    .list_kind = "APIServiceList",
    .categories = (const char * const []) { "api-extensions", NULL },
    .name_mode = GCP_NAME_PATH_SEGMENT,
    .verbs = GCP_VERBS_CRUD,
    .subresources = gcp_apisvc_subresources,
    .nsubresources = gcp_nelems(gcp_apisvc_subresources),
    .schema = "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService",
    .list_schema =
        "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceList",
    .storage = "apiregistration.k8s.io/apiservices",
    .columns = gcp_apisvc_columns,
    .ncolumns = gcp_nelems(gcp_apisvc_columns),
    .strategy = &gcp_apisvc_strategy,
};
