
/*
 * Unit tests: OpenAPI documents (core/discovery/gcp_openapi.c) over the
 * embedded schemas (core/types/schemas/) and locally built resource
 * descriptors.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_openapi.h"


#define META  "io.k8s.apimachinery.pkg.apis.meta.v1."


static const gcp_subresource_t  ns_subs[] = {
    { "finalize", GCP_SUB_FINALIZE, GCP_VERB_UPDATE, NULL, NULL, NULL },
    { "status", GCP_SUB_STATUS,
      GCP_VERB_GET | GCP_VERB_UPDATE | GCP_VERB_PATCH, NULL, NULL, NULL }
};

static const gcp_resource_t  res_configmaps = {
    .group = "", .version = "v1", .name = "configmaps",
    .singular = "configmap", .kind = "ConfigMap",
    .list_kind = "ConfigMapList",
    .short_names = (const char * const []) { "cm", NULL },
    .namespaced = 1, .verbs = GCP_VERBS_CRUD,
    .schema = "io.k8s.api.core.v1.ConfigMap",
    .list_schema = "io.k8s.api.core.v1.ConfigMapList",
    .storage = "configmaps"
};

static const gcp_resource_t  res_namespaces = {
    .group = "", .version = "v1", .name = "namespaces",
    .singular = "namespace", .kind = "Namespace",
    .list_kind = "NamespaceList",
    .short_names = (const char * const []) { "ns", NULL },
    .verbs = GCP_VERBS_CRUD & ~GCP_VERB_DELETECOLLECTION,
    .subresources = ns_subs, .nsubresources = 2,
    .storage = "namespaces"         /* schemas found by GVK */
};

static const gcp_resource_t  res_leases = {
    .group = "coordination.k8s.io", .version = "v1", .name = "leases",
    .singular = "lease", .kind = "Lease", .list_kind = "LeaseList",
    .namespaced = 1, .verbs = GCP_VERBS_CRUD,
    .storage = "coordination.k8s.io/leases"
};

static const gcp_resource_t  res_events = {
    .group = "events.k8s.io", .version = "v1", .name = "events",
    .singular = "event", .kind = "Event", .list_kind = "EventList",
    .namespaced = 1, .verbs = GCP_VERBS_CRUD,
    .schema = "io.k8s.api.events.v1.Event",
    .list_schema = "io.k8s.api.events.v1.EventList",
    .storage = "events"
};

/* no schema in the set: operations are still published */
static const gcp_resource_t  res_clusterroles = {
    .group = "rbac.authorization.k8s.io", .version = "v1",
    .name = "clusterroles", .singular = "clusterrole",
    .kind = "ClusterRole", .list_kind = "ClusterRoleList",
    .verbs = GCP_VERBS_CRUD, .storage = "clusterroles"
};

static const gcp_resource_t  res_widgets = {
    .group = "ref.example.com", .version = "v1beta1", .name = "widgets",
    .singular = "widget", .kind = "Widget", .list_kind = "WidgetList",
    .namespaced = 1, .verbs = GCP_VERB_GET | GCP_VERB_LIST,
    .storage = "ref.example.com/widgets"
};

static const gcp_resource_t *const  all_res[] = {
    &res_configmaps, &res_namespaces, &res_leases, &res_events,
    &res_clusterroles, &res_widgets
};

#define NRES  gcp_nelems(all_res)


typedef struct {
    gcp_schema_set_t  *set;
    json_t            *v2;
    json_t            *core;
} fixture_t;


static int
setup(void **state)
{
    fixture_t   *f;
    const char  *err;

    f = calloc(1, sizeof(fixture_t));
    assert_non_null(f);

    f->set = gcp_schema_set_create();
    assert_non_null(f->set);
    assert_int_equal(gcp_schema_set_load_embedded(f->set, &err), GCP_OK);

    f->v2 = gcp_openapi_v2(f->set, all_res, NRES, "1.32");
    assert_non_null(f->v2);

    f->core = gcp_openapi_v3_gv(f->set, all_res, NRES, "", "v1");
    assert_non_null(f->core);

    *state = f;

    return 0;
}


static int
teardown(void **state)
{
    fixture_t  *f = *state;

    json_decref(f->v2);
    json_decref(f->core);
    gcp_schema_set_free(f->set);
    free(f);

    return 0;
}


/* v[k1][k2]...: object keys, or "#N" for array index N; NULL ends. */
static json_t *
at(const json_t *v, ...)
{
    va_list      ap;
    const char  *k;

    va_start(ap, v);

    while (v && (k = va_arg(ap, const char *)) != NULL) {
        if (k[0] == '#') {
            v = json_array_get(v, (size_t) atoi(k + 1));
        } else {
            v = json_object_get(v, k);
        }
    }

    va_end(ap);

    return (json_t *) v;
}


static const char *
at_str(const json_t *v, const char *k1, const char *k2, const char *k3)
{
    return json_string_value(at(v, k1, k2, k3, NULL));
}


/* doc.paths[path][method] */
static json_t *
op(const json_t *doc, const char *path, const char *method)
{
    return at(doc, "paths", path, method, NULL);
}


static const char *
op_id(const json_t *doc, const char *path, const char *method)
{
    return json_string_value(json_object_get(op(doc, path, method),
                                              "operationId"));
}


/* The "name" values of a parameter list, joined with ','. */
static const char *
param_names(const json_t *params, char *buf, size_t size)
{
    size_t   i;
    json_t  *p;

    buf[0] = '\0';

    json_array_foreach(params, i, p) {
        if (json_object_get(p, "$ref")) {
            continue;
        }

        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s",
                 i ? "," : "", json_string_value(json_object_get(p, "name")));
    }

    return buf;
}


/* Removes every "description" key (descriptions are ours, not upstream's). */
static void
strip_descriptions(json_t *v)
{
    size_t       i;
    json_t      *e;
    const char  *key;
    void        *tmp;

    if (json_is_array(v)) {
        json_array_foreach(v, i, e) {
            strip_descriptions(e);
        }
    }

    json_object_foreach_safe(v, tmp, key, e) {
        if (strcmp(key, "description") == 0) {
            json_object_del(v, key);
        } else {
            strip_descriptions(e);
        }
    }
}


/* Fails when any $ref of v does not name a definition of defs. */
static int
refs_resolve(const json_t *v, const json_t *defs, const char *prefix,
    int *count)
{
    size_t       i, plen;
    json_t      *e;
    const char  *key, *ref;

    plen = strlen(prefix);

    if (json_is_array(v)) {
        json_array_foreach(v, i, e) {
            if (!refs_resolve(e, defs, prefix, count)) {
                return 0;
            }
        }
    }

    ref = json_string_value(json_object_get(v, "$ref"));

    if (ref) {
        (*count)++;

        if (strncmp(ref, prefix, plen) != 0
            || json_object_get(defs, ref + plen) == NULL)
        {
            print_error("unresolved $ref %s\n", ref);
            return 0;
        }
    }

    json_object_foreach((json_t *) v, key, e) {
        if (strncmp(key, "x-gcp-", 6) == 0) {
            print_error("private key %s published\n", key);
            return 0;
        }

        if (!refs_resolve(e, defs, prefix, count)) {
            return 0;
        }
    }

    return 1;
}


/* Whether a key appears anywhere in v. */
static int
has_key(const json_t *v, const char *name)
{
    size_t       i;
    json_t      *e;
    const char  *key;

    json_array_foreach(v, i, e) {
        if (has_key(e, name)) {
            return 1;
        }
    }

    json_object_foreach((json_t *) v, key, e) {
        if (strcmp(key, name) == 0 || has_key(e, name)) {
            return 1;
        }
    }

    return 0;
}


/* The name of the definition of defs tagged with group/version/kind. */
static const char *
gvk_def(const json_t *defs, const char *g, const char *v, const char *k)
{
    size_t       i;
    json_t      *def, *e;
    const char  *name;

    json_object_foreach((json_t *) defs, name, def) {
        json_array_foreach(json_object_get(def,
                               "x-kubernetes-group-version-kind"), i, e)
        {
            if (strcmp(json_string_value(json_object_get(e, "group")), g)
                    == 0
                && strcmp(json_string_value(json_object_get(e, "version")),
                          v) == 0
                && strcmp(json_string_value(json_object_get(e, "kind")), k)
                   == 0)
            {
                return name;
            }
        }
    }

    return NULL;
}


static void
test_v3_core_paths(void **state)
{
    char         buf[512];
    size_t       i;
    json_t      *v;
    fixture_t   *f = *state;
    const char  *cm, *cmi, *ns, *key;

    static const char  *paths[] = {
        "/api/v1/", "/api/v1/configmaps", "/api/v1/namespaces",
        "/api/v1/namespaces/{namespace}/configmaps",
        "/api/v1/namespaces/{namespace}/configmaps/{name}",
        "/api/v1/namespaces/{name}", "/api/v1/namespaces/{name}/finalize",
        "/api/v1/namespaces/{name}/status", "/api/v1/watch/configmaps",
        "/api/v1/watch/namespaces",
        "/api/v1/watch/namespaces/{namespace}/configmaps",
        "/api/v1/watch/namespaces/{namespace}/configmaps/{name}",
        "/api/v1/watch/namespaces/{name}"
    };

    cm = "/api/v1/namespaces/{namespace}/configmaps";
    cmi = "/api/v1/namespaces/{namespace}/configmaps/{name}";
    ns = "/api/v1/namespaces/{name}";

    /* exactly these paths, in order */
    i = 0;

    json_object_foreach(json_object_get(f->core, "paths"), key, v) {
        assert_true(i < gcp_nelems(paths));
        assert_string_equal(key, paths[i]);
        i++;
    }

    assert_int_equal(i, gcp_nelems(paths));

    assert_string_equal(json_string_value(json_object_get(f->core,
                                                          "openapi")),
                        "3.0.0");
    assert_string_equal(op_id(f->core, "/api/v1/", "get"),
                        "getCoreV1APIResources");
    assert_string_equal(op_id(f->core, cm, "get"),
                        "listCoreV1NamespacedConfigMap");
    assert_string_equal(op_id(f->core, cm, "post"),
                        "createCoreV1NamespacedConfigMap");
    assert_string_equal(op_id(f->core, cm, "delete"),
                        "deleteCoreV1CollectionNamespacedConfigMap");
    assert_string_equal(op_id(f->core, cmi, "get"),
                        "readCoreV1NamespacedConfigMap");
    assert_string_equal(op_id(f->core, cmi, "put"),
                        "replaceCoreV1NamespacedConfigMap");
    assert_string_equal(op_id(f->core, cmi, "delete"),
                        "deleteCoreV1NamespacedConfigMap");
    assert_string_equal(op_id(f->core, cmi, "patch"),
                        "patchCoreV1NamespacedConfigMap");
    assert_string_equal(op_id(f->core, "/api/v1/configmaps", "get"),
                        "listCoreV1ConfigMapForAllNamespaces");
    assert_string_equal(op_id(f->core, "/api/v1/watch/configmaps", "get"),
                        "watchCoreV1ConfigMapListForAllNamespaces");
    assert_string_equal(op_id(f->core,
                            "/api/v1/watch/namespaces/{namespace}/configmaps",
                            "get"),
                        "watchCoreV1NamespacedConfigMapList");
    assert_string_equal(op_id(f->core,
                      "/api/v1/watch/namespaces/{namespace}/configmaps/{name}",
                      "get"),
                        "watchCoreV1NamespacedConfigMap");
    assert_string_equal(op_id(f->core, ns, "get"), "readCoreV1Namespace");
    assert_string_equal(op_id(f->core, "/api/v1/namespaces/{name}/status",
                              "patch"),
                        "patchCoreV1NamespaceStatus");
    assert_string_equal(op_id(f->core, "/api/v1/namespaces/{name}/finalize",
                              "put"),
                        "replaceCoreV1NamespaceFinalize");

    /* namespaces have no deletecollection */
    assert_null(op(f->core, "/api/v1/namespaces", "delete"));
    assert_non_null(op(f->core, "/api/v1/namespaces", "post"));

    /* parameters shared by all operations move to the path, by name */
    assert_string_equal(param_names(at(f->core, "paths", cm, "parameters",
                                       NULL), buf, sizeof(buf)),
                        "namespace,pretty");
    assert_string_equal(param_names(at(f->core, "paths", cmi, "parameters",
                                       NULL), buf, sizeof(buf)),
                        "name,namespace,pretty");
    assert_string_equal(param_names(at(f->core, "paths",
                                       "/api/v1/namespaces/{name}/finalize",
                                       "parameters", NULL),
                                    buf, sizeof(buf)),
                        "dryRun,fieldManager,fieldValidation,name,pretty");
    assert_string_equal(param_names(at(f->core, "paths",
                                       "/api/v1/configmaps", "parameters",
                                       NULL), buf, sizeof(buf)),
                        "allowWatchBookmarks,continue,fieldSelector,"
                        "labelSelector,limit,pretty,resourceVersion,"
                        "resourceVersionMatch,sendInitialEvents,"
                        "timeoutSeconds,watch");
    assert_string_equal(param_names(json_object_get(op(f->core, cm, "delete"),
                                                    "parameters"),
                                    buf, sizeof(buf)),
                        "continue,dryRun,fieldSelector,gracePeriodSeconds,"
                        "ignoreStoreReadErrorWithClusterBreakingPotential,"
                        "labelSelector,limit,orphanDependents,"
                        "propagationPolicy,resourceVersion,"
                        "resourceVersionMatch,sendInitialEvents,"
                        "timeoutSeconds");
    assert_string_equal(param_names(json_object_get(op(f->core, cmi,
                                                       "patch"),
                                                    "parameters"),
                                    buf, sizeof(buf)),
                        "dryRun,fieldManager,fieldValidation,force");
    assert_null(json_object_get(op(f->core, cmi, "get"), "parameters"));
}


/* Whole operations, compared with what kube-apiserver publishes. */
static void
test_v3_operation_shapes(void **state)
{
    json_t      *got, *want;
    fixture_t   *f = *state;
    const char  *cmi;

    cmi = "/api/v1/namespaces/{namespace}/configmaps/{name}";

    want = json_loads(
        "{\"tags\":[\"core_v1\"],"
        "\"operationId\":\"readCoreV1NamespacedConfigMap\","
        "\"responses\":{\"200\":{\"content\":{"
        "\"application/json\":{\"schema\":{\"$ref\":"
        "\"#/components/schemas/io.k8s.api.core.v1.ConfigMap\"}},"
        "\"application/vnd.kubernetes.protobuf\":{\"schema\":{\"$ref\":"
        "\"#/components/schemas/io.k8s.api.core.v1.ConfigMap\"}},"
        "\"application/yaml\":{\"schema\":{\"$ref\":"
        "\"#/components/schemas/io.k8s.api.core.v1.ConfigMap\"}}}},"
        "\"401\":{}},"
        "\"x-kubernetes-action\":\"get\","
        "\"x-kubernetes-group-version-kind\":"
        "{\"group\":\"\",\"version\":\"v1\",\"kind\":\"ConfigMap\"}}",
        0, NULL);
    assert_non_null(want);

    got = json_deep_copy(op(f->core, cmi, "get"));
    strip_descriptions(got);
    assert_true(json_equal(got, want));
    json_decref(got);
    json_decref(want);

    want = json_loads(
        "{\"tags\":[\"core_v1\"],"
        "\"operationId\":\"patchCoreV1NamespacedConfigMap\","
        "\"parameters\":["
        "{\"name\":\"dryRun\",\"in\":\"query\",\"schema\":"
        "{\"type\":\"string\",\"uniqueItems\":true}},"
        "{\"name\":\"fieldManager\",\"in\":\"query\",\"schema\":"
        "{\"type\":\"string\",\"uniqueItems\":true}},"
        "{\"name\":\"fieldValidation\",\"in\":\"query\",\"schema\":"
        "{\"type\":\"string\",\"uniqueItems\":true}},"
        "{\"name\":\"force\",\"in\":\"query\",\"schema\":"
        "{\"type\":\"boolean\",\"uniqueItems\":true}}],"
        "\"requestBody\":{\"content\":{"
        "\"application/apply-patch+yaml\":{\"schema\":{\"$ref\":"
        "\"#/components/schemas/" META "Patch\"}},"
        "\"application/json-patch+json\":{\"schema\":{\"$ref\":"
        "\"#/components/schemas/" META "Patch\"}},"
        "\"application/merge-patch+json\":{\"schema\":{\"$ref\":"
        "\"#/components/schemas/" META "Patch\"}},"
        "\"application/strategic-merge-patch+json\":{\"schema\":{\"$ref\":"
        "\"#/components/schemas/" META "Patch\"}}},\"required\":true},"
        "\"responses\":{"
        "\"200\":{\"content\":{"
        "\"application/json\":{\"schema\":{\"$ref\":"
        "\"#/components/schemas/io.k8s.api.core.v1.ConfigMap\"}},"
        "\"application/vnd.kubernetes.protobuf\":{\"schema\":{\"$ref\":"
        "\"#/components/schemas/io.k8s.api.core.v1.ConfigMap\"}},"
        "\"application/yaml\":{\"schema\":{\"$ref\":"
        "\"#/components/schemas/io.k8s.api.core.v1.ConfigMap\"}}}},"
        "\"201\":{\"content\":{"
        "\"application/json\":{\"schema\":{\"$ref\":"
        "\"#/components/schemas/io.k8s.api.core.v1.ConfigMap\"}},"
        "\"application/vnd.kubernetes.protobuf\":{\"schema\":{\"$ref\":"
        "\"#/components/schemas/io.k8s.api.core.v1.ConfigMap\"}},"
        "\"application/yaml\":{\"schema\":{\"$ref\":"
        "\"#/components/schemas/io.k8s.api.core.v1.ConfigMap\"}}}},"
        "\"401\":{}},"
        "\"x-kubernetes-action\":\"patch\","
        "\"x-kubernetes-group-version-kind\":"
        "{\"group\":\"\",\"version\":\"v1\",\"kind\":\"ConfigMap\"}}",
        0, NULL);
    assert_non_null(want);

    got = json_deep_copy(op(f->core, cmi, "patch"));
    strip_descriptions(got);
    assert_true(json_equal(got, want));
    json_decref(got);
    json_decref(want);

    /* create answers 200/201/202, delete 200/202 with a Status */
    got = op(f->core, "/api/v1/namespaces/{namespace}/configmaps", "post");
    assert_non_null(at(got, "responses", "202", NULL));
    assert_true(json_is_true(at(got, "requestBody", "required", NULL)));
    got = op(f->core, cmi, "delete");
    assert_non_null(at(got, "requestBody", NULL));
    assert_null(at(got, "requestBody", "required", NULL));
    assert_string_equal(json_string_value(at(got, "responses", "202",
                            "content", "application/json", "schema", "$ref",
                            NULL)),
                        "#/components/schemas/" META "Status");

    /* list: watch media types; finalize: the Namespace kind */
    got = at(op(f->core, "/api/v1/namespaces", "get"), "responses", "200",
             "content", NULL);
    assert_int_equal(json_object_size(got), 5);
    assert_non_null(json_object_get(got, "application/json;stream=watch"));
    assert_string_equal(at_str(op(f->core,
                                  "/api/v1/namespaces/{name}/finalize",
                                  "put"),
                               "x-kubernetes-group-version-kind", "kind",
                               NULL),
                        "Namespace");
    assert_string_equal(at_str(op(f->core, "/api/v1/watch/namespaces",
                                  "get"), "x-kubernetes-action", NULL, NULL),
                        "watchlist");
}


static void
test_v3_components(void **state)
{
    int          count;
    json_t      *defs, *p;
    fixture_t   *f = *state;

    defs = at(f->core, "components", "schemas", NULL);
    count = 0;
    assert_true(refs_resolve(f->core, defs, "#/components/schemas/",
                             &count));
    assert_true(count > 100);

    /* only what the paths reach: no events.k8s.io, no Lease */
    assert_non_null(json_object_get(defs, "io.k8s.api.core.v1.ConfigMap"));
    assert_non_null(json_object_get(defs, META "ObjectMeta"));
    assert_non_null(json_object_get(defs, META "Time"));
    assert_null(json_object_get(defs, "io.k8s.api.events.v1.Event"));
    assert_null(json_object_get(defs, "io.k8s.api.coordination.v1.Lease"));

    /* GVK-tagged schemas for every kind served in core/v1 */
    assert_string_equal(gvk_def(defs, "", "v1", "ConfigMap"),
                        "io.k8s.api.core.v1.ConfigMap");
    assert_string_equal(gvk_def(defs, "", "v1", "NamespaceList"),
                        "io.k8s.api.core.v1.NamespaceList");

    /* v3 keeps allOf and defaults, strips private keys */
    p = at(defs, "io.k8s.api.core.v1.ConfigMap", "properties", "metadata",
           NULL);
    assert_true(json_is_object(json_object_get(p, "default")));
    assert_true(json_is_array(json_object_get(p, "allOf")));
    assert_false(has_key(f->core, "x-gcp-go-type"));

    p = at(defs, META "ObjectMeta", "properties", "ownerReferences", NULL);
    assert_string_equal(at_str(p, "x-kubernetes-patch-merge-key", NULL,
                               NULL), "uid");
    assert_string_equal(at_str(p, "x-kubernetes-patch-strategy", NULL,
                               NULL), "merge");
    assert_string_equal(json_string_value(at(defs, META "ObjectMeta",
                            "properties", "finalizers",
                            "x-kubernetes-patch-strategy", NULL)), "merge");

    p = at(defs, "io.k8s.api.core.v1.NamespaceStatus", "properties",
           "conditions", NULL);
    assert_string_equal(at_str(p, "x-kubernetes-patch-merge-key", NULL,
                               NULL), "type");

    assert_string_equal(json_string_value(at(f->core, "components",
                            "securitySchemes", "BearerToken", "type",
                            NULL)), "apiKey");
}


static void
test_v2(void **state)
{
    int          count;
    json_t      *defs, *p, *o;
    fixture_t   *f = *state;
    const char  *cmi;

    cmi = "/api/v1/namespaces/{namespace}/configmaps/{name}";
    defs = json_object_get(f->v2, "definitions");

    assert_string_equal(json_string_value(json_object_get(f->v2, "swagger")),
                        "2.0");
    assert_string_equal(at_str(f->v2, "info", "version", NULL), "1.32");

    count = 0;
    assert_true(refs_resolve(f->v2, defs, "#/definitions/", &count));
    assert_false(has_key(defs, "allOf"));
    assert_false(has_key(defs, "default"));

    /* flattened reference keeps its extensions */
    p = at(defs, META "Status", "properties", "details", NULL);
    assert_string_equal(json_string_value(json_object_get(p, "$ref")),
                        "#/definitions/" META "StatusDetails");
    assert_string_equal(json_string_value(json_object_get(p,
                            "x-kubernetes-list-type")), "atomic");

    /* every group's documents and kinds */
    assert_string_equal(op_id(f->v2, "/api/", "get"), "getCoreAPIVersions");
    assert_string_equal(op_id(f->v2, "/apis/", "get"), "getAPIVersions");
    assert_string_equal(op_id(f->v2, "/version/", "get"), "getCodeVersion");
    assert_string_equal(op_id(f->v2, "/apis/coordination.k8s.io/", "get"),
                        "getCoordinationAPIGroup");
    assert_string_equal(op_id(f->v2, "/apis/coordination.k8s.io/v1/", "get"),
                        "getCoordinationV1APIResources");
    assert_string_equal(op_id(f->v2,
        "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}",
        "put"), "replaceCoordinationV1NamespacedLease");
    assert_string_equal(op_id(f->v2,
        "/apis/rbac.authorization.k8s.io/v1/clusterroles", "delete"),
        "deleteRbacAuthorizationV1CollectionClusterRole");
    assert_string_equal(op_id(f->v2, "/apis/ref.example.com/v1beta1/widgets",
                              "get"),
                        "listRefExampleComV1beta1WidgetForAllNamespaces");
    assert_string_equal(at_str(op(f->v2, "/apis/rbac.authorization.k8s.io/",
                                  "get"), "tags", "#0", NULL),
                        "rbacAuthorization");
    assert_string_equal(gvk_def(defs, "coordination.k8s.io", "v1", "Lease"),
                        "io.k8s.api.coordination.v1.Lease");
    assert_string_equal(gvk_def(defs, "events.k8s.io", "v1", "EventList"),
                        "io.k8s.api.events.v1.EventList");
    assert_non_null(json_object_get(defs,
                                    "io.k8s.apimachinery.pkg.version.Info"));

    /* v2 operation shape */
    o = op(f->v2, cmi, "patch");
    assert_int_equal(json_array_size(json_object_get(o, "consumes")), 4);
    assert_string_equal(at_str(o, "consumes", "#2", NULL),
                        "application/strategic-merge-patch+json");
    p = at(o, "parameters", "#0", NULL);
    assert_string_equal(json_string_value(json_object_get(p, "in")), "body");
    assert_true(json_is_true(json_object_get(p, "required")));
    assert_string_equal(at_str(p, "schema", "$ref", NULL),
                        "#/definitions/" META "Patch");
    assert_string_equal(json_string_value(at(o, "responses", "200", "schema",
                                             "$ref", NULL)),
                        "#/definitions/io.k8s.api.core.v1.ConfigMap");
    assert_string_equal(at_str(o, "x-kubernetes-group-version-kind", "kind",
                               NULL), "ConfigMap");

    o = op(f->v2, cmi, "delete");
    p = at(o, "parameters", "#0", NULL);
    assert_string_equal(json_string_value(json_object_get(p, "name")),
                        "body");
    assert_null(json_object_get(p, "required"));

    p = at(f->v2, "paths", cmi, "parameters", "#0", NULL);
    assert_string_equal(json_string_value(json_object_get(p, "name")),
                        "name");
    assert_string_equal(json_string_value(json_object_get(p, "in")), "path");
    assert_true(json_is_true(json_object_get(p, "required")));
    assert_string_equal(json_string_value(json_object_get(p, "type")),
                        "string");

    o = op(f->v2, "/version/", "get");
    assert_int_equal(json_array_size(json_object_get(o, "produces")), 1);
}


static void
test_v3_docs(void **state)
{
    size_t       i;
    json_t      *d;
    fixture_t   *f = *state;

    static const char  *missing[] = {
        "apis/nosuch.example.com/v1", "apis/nosuch.example.com", "api/v2",
        "apis/coordination.k8s.io/v2", "apis/", "apis//v1", "nosuch", "",
        "apis/coordination.k8s.io/v1/"
    };

    for (i = 0; i < gcp_nelems(missing); i++) {
        d = gcp_openapi_v3_doc(f->set, all_res, NRES, missing[i]);
        if (d) {
            print_error("document for \"%s\"\n", missing[i]);
        }
        assert_null(d);
    }

    assert_null(gcp_openapi_v3_gv(f->set, all_res, NRES, "apps", "v1"));

    d = gcp_openapi_v3_doc(f->set, all_res, NRES, "apis/coordination.k8s.io");
    assert_non_null(d);
    assert_string_equal(op_id(d, "/apis/coordination.k8s.io/", "get"),
                        "getCoordinationAPIGroup");
    assert_non_null(at(d, "components", "schemas", META "APIGroup", NULL));
    json_decref(d);

    d = gcp_openapi_v3_doc(f->set, all_res, NRES, "version");
    assert_non_null(d);
    assert_int_equal(json_object_size(at(op(d, "/version/", "get"),
                                         "responses", "200", "content",
                                         NULL)), 1);
    json_decref(d);

    d = gcp_openapi_v3_doc(f->set, all_res, NRES, "api/v1");
    assert_non_null(d);
    assert_true(json_equal(d, f->core));
    json_decref(d);

    d = gcp_openapi_v3_doc(f->set, all_res, NRES, "apis/events.k8s.io/v1");
    assert_non_null(d);
    assert_string_equal(op_id(d,
                            "/apis/events.k8s.io/v1/namespaces/{namespace}/"
                            "events", "get"),
                        "listEventsV1NamespacedEvent");
    assert_string_equal(gvk_def(at(d, "components", "schemas", NULL),
                                "events.k8s.io", "v1", "Event"),
                        "io.k8s.api.events.v1.Event");
    json_decref(d);
}


static void
test_index_and_hash(void **state)
{
    char           hash[GCP_OPENAPI_HASH_LEN + 1], *bytes;
    json_t        *index, *paths, *doc, *v;
    size_t         i, len;
    fixture_t     *f = *state;
    const char    *key, *url;
    gcp_arena_t   *a;

    static const char  *keys[] = {
        "api", "api/v1", "apis", "apis/coordination.k8s.io",
        "apis/coordination.k8s.io/v1", "apis/events.k8s.io",
        "apis/events.k8s.io/v1", "apis/rbac.authorization.k8s.io",
        "apis/rbac.authorization.k8s.io/v1", "apis/ref.example.com",
        "apis/ref.example.com/v1beta1", "version"
    };

    assert_int_equal(gcp_openapi_hash("abc", 3, hash), GCP_OK);
    assert_string_equal(hash,
        "DDAF35A193617ABACC417349AE20413112E6FA4E89A97EA20A9EEEE64B55D39A"
        "2192992A274FC1A836BA3C23A3FEEBBD454D4423643CE80E2A9AC94FA54CA49F");

    index = gcp_openapi_v3_index(f->set, all_res, NRES);
    assert_non_null(index);
    paths = json_object_get(index, "paths");
    assert_int_equal(json_object_size(index), 1);
    assert_int_equal(json_object_size(paths), gcp_nelems(keys));

    a = gcp_arena_create(0);
    assert_non_null(a);

    i = 0;

    json_object_foreach(paths, key, v) {
        assert_string_equal(key, keys[i]);
        i++;

        doc = gcp_openapi_v3_doc(f->set, all_res, NRES, key);
        assert_non_null(doc);
        bytes = gcp_openapi_dump(a, doc, &len);
        assert_non_null(bytes);
        assert_int_equal(len, strlen(bytes));
        assert_int_equal(gcp_openapi_hash(bytes, len, hash), GCP_OK);
        json_decref(doc);

        url = json_string_value(json_object_get(v, "serverRelativeURL"));
        assert_non_null(url);
        assert_string_equal(url, gcp_sprintf(a, "/openapi/v3/%s?hash=%s",
                                             key, hash));
    }

    /* compact, in document order */
    doc = json_pack("{s:i,s:[s]}", "b", 1, "a", "x");
    assert_string_equal(gcp_openapi_dump(a, doc, &len),
                        "{\"b\":1,\"a\":[\"x\"]}");
    assert_int_equal(len, 17);
    json_decref(doc);

    gcp_arena_destroy(a);
    json_decref(index);
}


/*
 * The v2 document as gnostic's openapi.v2.Document: fields in number
 * order, maps as Named pairs, a path parameter reference and a query
 * parameter definition, a response schema, a vendor extension as YAML.
 * The expected bytes were built field by field with t/e2e/gcp_pbwire.py.
 */

static void
test_v2_protobuf(void **state)
{
    json_t       *doc;
    gcp_buf_t     b;
    gcp_arena_t  *a;

    static const char  expect[] =
        "\x0a\x03\x32\x2e\x30\x12\x06\x0a\x01\x4b\x12\x01\x31\x42\x47\x12"
        "\x45\x0a\x02\x2f\x61\x12\x3f\x12\x29\x2a\x01\x78\x4a\x24\x0a\x22"
        "\x0a\x03\x32\x30\x30\x12\x1b\x0a\x19\x0a\x02\x4f\x4b\x12\x13\x0a"
        "\x11\x0a\x0f\x23\x2f\x64\x65\x66\x69\x6e\x69\x74\x69\x6f\x6e\x73"
        "\x2f\x44\x4a\x12\x12\x10\x0a\x0e\x23\x2f\x70\x61\x72\x61\x6d\x65"
        "\x74\x65\x72\x73\x2f\x70\x4a\x51\x0a\x4f\x0a\x01\x44\x12\x4a\x9a"
        "\x01\x01\x6e\xb2\x01\x08\x0a\x06\x6f\x62\x6a\x65\x63\x74\xca\x01"
        "\x38\x0a\x36\x0a\x01\x6e\x12\x31\xb2\x01\x08\x0a\x06\x73\x74\x72"
        "\x69\x6e\x67\xfa\x01\x23\x0a\x16\x78\x2d\x6b\x75\x62\x65\x72\x6e"
        "\x65\x74\x65\x73\x2d\x6c\x69\x73\x74\x2d\x74\x79\x70\x65\x12\x09"
        "\x12\x07\x61\x74\x6f\x6d\x69\x63\x0a\x52\x21\x0a\x1f\x0a\x01\x70"
        "\x12\x1a\x12\x18\x1a\x16\x12\x05\x71\x75\x65\x72\x79\x22\x01\x70"
        "\x32\x07\x62\x6f\x6f\x6c\x65\x61\x6e\xa0\x01\x01";

    doc = json_loads("{\"swagger\":\"2.0\",\"info\":{\"title\":\"K\","
                     "\"version\":\"1\"},\"paths\":{\"/a\":{\"get\":"
                     "{\"operationId\":\"x\",\"responses\":{\"200\":"
                     "{\"description\":\"OK\",\"schema\":{\"$ref\":"
                     "\"#/definitions/D\"}}}},\"parameters\":[{\"$ref\":"
                     "\"#/parameters/p\"}]}},\"definitions\":{\"D\":"
                     "{\"type\":\"object\",\"required\":[\"n\"],"
                     "\"properties\":{\"n\":{\"type\":\"string\","
                     "\"x-kubernetes-list-type\":\"atomic\"}}}},"
                     "\"parameters\":{\"p\":{\"uniqueItems\":true,"
                     "\"type\":\"boolean\",\"name\":\"p\","
                     "\"in\":\"query\"}}}", 0, NULL);
    assert_non_null(doc);

    a = gcp_arena_create(0);
    gcp_buf_init(&b, a);

    assert_int_equal(gcp_openapi_v2_protobuf(&b, doc), GCP_OK);
    assert_int_equal(b.len, sizeof(expect) - 1);
    assert_memory_equal(b.data, expect, b.len);

    json_decref(doc);
    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_v3_core_paths),
        cmocka_unit_test(test_v3_operation_shapes),
        cmocka_unit_test(test_v3_components),
        cmocka_unit_test(test_v2),
        cmocka_unit_test(test_v2_protobuf),
        cmocka_unit_test(test_v3_docs),
        cmocka_unit_test(test_index_and_hash),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
