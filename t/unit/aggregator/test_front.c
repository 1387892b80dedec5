
/*
 * Unit tests: fronting an upstream API server (core/aggregator/gcp_front.c,
 * gcp_front_docs.c): verb lists, which paths are fronted, the surface's
 * entries, and the upstream's discovery document narrowed to the surface.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "gcp_front.h"


static const char * const  demo[] = { "demo", NULL };
static const char * const  subs[] = { "scale", NULL };

static const gcp_front_expose_t  expose[] = {
    { "", "v1", "configmaps", GCP_VERB_GET | GCP_VERB_LIST | GCP_VERB_WATCH,
      demo, NULL },
    { "apps", "v1", "deployments", GCP_VERB_GET | GCP_VERB_PATCH, NULL,
      subs },
};

static const gcp_front_conf_t  conf = {
    .upstream = "10.0.0.1", .port = 6443, .server_name = "kubernetes",
    .expose = expose, .nexpose = 2
};


static void
test_verbs(void **state)
{
    size_t       n;
    unsigned     v;
    const char  *bad;

    assert_int_equal(gcp_front_verbs("get,list,watch", &v, &bad, &n),
                     GCP_OK);
    assert_int_equal(v, GCP_VERB_GET | GCP_VERB_LIST | GCP_VERB_WATCH);

    assert_int_equal(gcp_front_verbs("*", &v, &bad, &n), GCP_OK);
    assert_int_equal(v, GCP_VERBS_CRUD);

    assert_int_equal(gcp_front_verbs("deletecollection", &v, &bad, &n),
                     GCP_OK);
    assert_int_equal(v, GCP_VERB_DELETECOLLECTION);

    assert_int_equal(gcp_front_verbs("get,gett,list", &v, &bad, &n),
                     GCP_EBADREQUEST);
    assert_int_equal(n, 4);
    assert_memory_equal(bad, "gett", 4);

    assert_int_equal(gcp_front_verbs("get,", &v, &bad, &n),
                     GCP_EBADREQUEST);
    assert_int_equal(n, 0);

    assert_int_equal(gcp_front_verbs("proxy", &v, &bad, &n),
                     GCP_EBADREQUEST);
}


static int
path(const char *p)
{
    return gcp_front_path(&conf, p, strlen(p));
}


static void
test_paths(void **state)
{
    assert_true(path("/api/v1/namespaces/demo/configmaps"));
    assert_true(path("/api/v1/namespaces/demo/secrets/x"));
    assert_true(path("/apis/apps/v1/namespaces/a/deployments/x/scale"));

    /* the discovery documents are answered here */
    assert_false(path("/api/v1"));
    assert_false(path("/api/v1/"));
    assert_false(path("/apis/apps/v1"));
    assert_false(path("/apis/apps"));

    assert_false(path("/apis/apps/v1beta1/deployments"));
    assert_false(path("/apis/apps2/v1/deployments"));
    assert_false(path("/api/v2/configmaps"));
    assert_false(path("/apis/batch/v1/jobs"));
    assert_false(gcp_front_path(NULL, "/api/v1/x", 9));

    assert_true(gcp_front_gv(&conf, "", "v1"));
    assert_true(gcp_front_gv(&conf, "apps", "v1"));
    assert_false(gcp_front_gv(&conf, "apps", "v1beta2"));
    assert_false(gcp_front_gv(NULL, "", "v1"));

    assert_ptr_equal(gcp_front_find(&conf, "", "v1", "configmaps"),
                     &expose[0]);
    assert_null(gcp_front_find(&conf, "", "v1", "secrets"));
    assert_null(gcp_front_find(&conf, "apps", "v1", "configmaps"));
}


static json_t *
narrow(const char *group, const char *version, const char *doc)
{
    json_t        *in, *out;
    json_error_t   err;

    in = json_loads(doc, 0, &err);
    assert_non_null(in);

    out = gcp_front_narrow(&conf, group, version, in);
    json_decref(in);

    return out;
}


static void
assert_json(json_t *v, const char *expected)
{
    char  *s;

    assert_non_null(v);
    s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_string_equal(s, expected);
    free(s);
    json_decref(v);
}


static void
test_narrow(void **state)
{
    assert_json(narrow("", "v1",
        "{\"kind\":\"APIResourceList\",\"groupVersion\":\"v1\","
        "\"resources\":["
        "{\"name\":\"configmaps\",\"namespaced\":true,\"kind\":"
        "\"ConfigMap\",\"verbs\":[\"create\",\"delete\","
        "\"deletecollection\",\"get\",\"list\",\"patch\",\"update\","
        "\"watch\"],\"shortNames\":[\"cm\"]},"
        "{\"name\":\"secrets\",\"verbs\":[\"get\"]},"
        "{\"name\":\"configmaps/status\",\"verbs\":[\"get\"]},"
        "{\"name\":\"pods\",\"verbs\":[\"get\",\"list\"]}]}"),
        "{\"kind\":\"APIResourceList\",\"groupVersion\":\"v1\","
        "\"resources\":[{\"name\":\"configmaps\",\"namespaced\":true,"
        "\"kind\":\"ConfigMap\",\"verbs\":[\"get\",\"list\",\"watch\"],"
        "\"shortNames\":[\"cm\"]}]}");

    /* subresources exposed, verbs the upstream does not list left out */
    assert_json(narrow("apps", "v1",
        "{\"groupVersion\":\"apps/v1\",\"resources\":["
        "{\"name\":\"deployments\",\"verbs\":[\"get\",\"list\"]},"
        "{\"name\":\"deployments/scale\",\"verbs\":[\"get\",\"patch\","
        "\"update\"]},"
        "{\"name\":\"deployments/status\",\"verbs\":[\"get\"]},"
        "{\"name\":\"replicasets\",\"verbs\":[\"get\"]}]}"),
        "{\"groupVersion\":\"apps/v1\",\"resources\":["
        "{\"name\":\"deployments\",\"verbs\":[\"get\"]},"
        "{\"name\":\"deployments/scale\",\"verbs\":[\"get\",\"patch\"]}]}");

    /* not a resource list */
    assert_null(narrow("", "v1", "{\"kind\":\"Status\"}"));
    assert_null(narrow("", "v1", "[]"));
    assert_json(narrow("", "v1", "{\"resources\":[{\"verbs\":[]},"
                       "{\"name\":7},{\"name\":\"configmaps\"}]}"),
                "{\"resources\":[{\"name\":\"configmaps\",\"verbs\":[]}]}");
}


/* A v3 document of core/v1 and apps/v1 paths, schemas chained by $ref. */
static const char  openapi_v3[] =
    "{\"openapi\":\"3.0.0\",\"paths\":{"
    "\"/api/v1/\":{\"get\":{\"operationId\":\"getCoreV1APIResources\"}},"
    "\"/api/v1/configmaps\":{\"get\":{\"x-kubernetes-action\":\"list\","
    "\"responses\":{\"200\":{\"$ref\":\"#/components/schemas/CMList\"}}}},"
    "\"/api/v1/namespaces/{namespace}/configmaps\":{"
    "\"get\":{\"x-kubernetes-action\":\"list\",\"responses\":{\"200\":"
    "{\"$ref\":\"#/components/schemas/CMList\"}}},"
    "\"post\":{\"x-kubernetes-action\":\"post\",\"requestBody\":"
    "{\"$ref\":\"#/components/schemas/CM\"}},"
    "\"parameters\":[{\"name\":\"namespace\"}]},"
    "\"/api/v1/namespaces/{namespace}/configmaps/{name}\":{"
    "\"get\":{\"x-kubernetes-action\":\"get\"},"
    "\"delete\":{\"x-kubernetes-action\":\"delete\"}},"
    "\"/api/v1/watch/namespaces/{namespace}/configmaps\":{"
    "\"get\":{\"x-kubernetes-action\":\"watchlist\"}},"
    "\"/api/v1/watch/configmaps\":{"
    "\"get\":{\"x-kubernetes-action\":\"watchlist\"}},"
    "\"/api/v1/namespaces/{namespace}/configmaps/{name}/status\":{"
    "\"get\":{\"x-kubernetes-action\":\"get\"}},"
    "\"/api/v1/namespaces/{namespace}/secrets\":{"
    "\"get\":{\"x-kubernetes-action\":\"list\",\"responses\":{\"200\":"
    "{\"$ref\":\"#/components/schemas/Secret\"}}}},"
    "\"/apis/apps/\":{\"get\":{}},"
    "\"/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale\":{"
    "\"get\":{\"x-kubernetes-action\":\"get\"},"
    "\"put\":{\"x-kubernetes-action\":\"put\"},"
    "\"patch\":{\"x-kubernetes-action\":\"patch\"}},"
    "\"/apis/apps/v1/namespaces/{namespace}/deployments/{name}/exec\":{"
    "\"get\":{\"x-kubernetes-action\":\"connect\"}},"
    "\"/apis/batch/v1/jobs\":{\"get\":{\"x-kubernetes-action\":\"list\"}},"
    "\"/version/\":{\"get\":{}}},"
    "\"components\":{\"schemas\":{"
    "\"Secret\":{\"type\":\"object\"},"
    "\"CM\":{\"properties\":{\"metadata\":{\"allOf\":[{\"$ref\":"
    "\"#/components/schemas/Meta\"}]}}},"
    "\"CMList\":{\"properties\":{\"items\":{\"items\":{\"$ref\":"
    "\"#/components/schemas/CM\"}}}},"
    "\"Meta\":{\"type\":\"object\"},"
    "\"Unused\":{\"$ref\":\"#/components/schemas/Secret\"}},"
    "\"securitySchemes\":{\"BearerToken\":{}}}}";


static void
test_openapi(void **state)
{
    json_t        *in, *out, *paths;
    json_error_t   err;

    in = json_loads(openapi_v3, 0, &err);
    assert_non_null(in);

    out = gcp_front_openapi(&conf, in);
    assert_non_null(out);

    /* configmaps get,list,watch in demo: namespaced paths only, their
     * exposed operations; deployments/scale get,patch; no exec */

    paths = json_object_get(out, "paths");
    assert_json(json_incref(paths), "{\"/api/v1/\":{\"get\":{\"operationId\":"
                "\"getCoreV1APIResources\"}},"
                "\"/api/v1/namespaces/{namespace}/configmaps\":{"
                "\"get\":{\"x-kubernetes-action\":\"list\",\"responses\":"
                "{\"200\":{\"$ref\":\"#/components/schemas/CMList\"}}},"
                "\"parameters\":[{\"name\":\"namespace\"}]},"
                "\"/api/v1/namespaces/{namespace}/configmaps/{name}\":{"
                "\"get\":{\"x-kubernetes-action\":\"get\"}},"
                "\"/api/v1/watch/namespaces/{namespace}/configmaps\":{"
                "\"get\":{\"x-kubernetes-action\":\"watchlist\"}},"
                "\"/apis/apps/\":{\"get\":{}},"
                "\"/apis/apps/v1/namespaces/{namespace}/deployments/{name}"
                "/scale\":{\"get\":{\"x-kubernetes-action\":\"get\"},"
                "\"patch\":{\"x-kubernetes-action\":\"patch\"}}}");

    /* the schemas reached, transitively, in the document's order */

    assert_json(json_incref(json_object_get(out, "components")),
                "{\"schemas\":{\"CM\":{\"properties\":{\"metadata\":"
                "{\"allOf\":[{\"$ref\":\"#/components/schemas/Meta\"}]}}},"
                "\"CMList\":{\"properties\":{\"items\":{\"items\":{\"$ref\":"
                "\"#/components/schemas/CM\"}}}},"
                "\"Meta\":{\"type\":\"object\"}},"
                "\"securitySchemes\":{\"BearerToken\":{}}}");
    json_decref(out);

    /* v2: definitions */

    json_object_set_new(in, "definitions", json_pack("{s:{},s:{}}",
                                                    "CMList", "Secret"));
    json_object_del(in, "openapi");
    json_object_set_new(in, "swagger", json_string("2.0"));
    json_object_set_new(json_object_get(json_object_get(json_object_get(
        json_object_get(in, "paths"),
        "/api/v1/namespaces/{namespace}/configmaps"), "get"), "responses"),
        "200", json_pack("{s:s}", "$ref", "#/definitions/CMList"));

    out = gcp_front_openapi(&conf, in);
    assert_json(json_incref(json_object_get(out, "definitions")),
                "{\"CMList\":{}}");
    json_decref(out);

    assert_null(gcp_front_openapi(&conf, json_object_get(in, "swagger")));
    json_decref(in);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_verbs),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_narrow),
        cmocka_unit_test(test_openapi),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
