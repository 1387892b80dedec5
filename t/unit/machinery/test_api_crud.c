
/*
 * Unit tests: the API core end to end on LMDB (no nginx): create, get,
 * update, patch, delete of configmaps and secrets, with the errors
 * kube-apiserver answers.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support_api.h"


#define CM_PATH  "/api/v1/namespaces/default/configmaps"
#define JSON     "application/json"


static int
setup(void **state)
{
    *state = api_env_create();
    return 0;
}


static int
teardown(void **state)
{
    api_env_destroy(*state);
    return 0;
}


static void
test_bootstrap_namespaces(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;

    r = api_call(env, "GET", "/api/v1/namespaces/kube-system", NULL, NULL,
                 NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "status", "phase", NULL), "Active");
    assert_string_equal(api_str(r->json, "metadata", "labels",
                                "kubernetes.io/metadata.name", NULL),
                        "kube-system");
    api_resp_free(r);

    r = api_call(env, "GET", "/api/v1/namespaces", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "kind", NULL), "NamespaceList");
    assert_int_equal(json_array_size(json_object_get(r->json, "items")), 3);
    api_resp_free(r);
}


static void
test_configmap_lifecycle(void **state)
{
    char        *rv, path[256];
    api_env_t   *env = *state;
    api_resp_t  *r;

    r = api_call(env, "POST", CM_PATH, JSON,
                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                 "\"metadata\":{\"name\":\"cm1\",\"labels\":{\"app\":"
                 "\"demo\"}},\"data\":{\"key1\":\"value1\"}}", NULL);
    assert_int_equal(r->status, 201);
    assert_string_equal(api_str(r->json, "metadata", "namespace", NULL),
                        "default");
    assert_non_null(api_str(r->json, "metadata", "uid", NULL));
    assert_non_null(api_str(r->json, "metadata", "creationTimestamp", NULL));
    rv = strdup(api_str(r->json, "metadata", "resourceVersion", NULL));
    assert_true(strncmp(r->body, "{\"kind\":\"ConfigMap\",\"apiVersion\":"
                        "\"v1\",\"metadata\":{\"name\":\"cm1\"", 56) == 0);
    api_resp_free(r);

    /* duplicate: 409 AlreadyExists */
    r = api_call(env, "POST", CM_PATH, JSON,
                 "{\"metadata\":{\"name\":\"cm1\"}}", NULL);
    assert_int_equal(r->status, 409);
    assert_string_equal(api_str(r->json, "reason", NULL), "AlreadyExists");
    assert_string_equal(api_str(r->json, "message", NULL),
                        "configmaps \"cm1\" already exists");
    api_resp_free(r);

    r = api_call(env, "GET", CM_PATH "/cm1", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "data", "key1", NULL), "value1");
    assert_string_equal(api_str(r->json, "metadata", "resourceVersion",
                                NULL), rv);
    api_resp_free(r);

    /* update with the current resourceVersion */
    snprintf(path, sizeof(path),
             "{\"metadata\":{\"name\":\"cm1\",\"resourceVersion\":\"%s\","
             "\"labels\":{\"app\":\"demo\"}},\"data\":{\"key1\":\"v2\"}}",
             rv);
    r = api_call(env, "PUT", CM_PATH "/cm1", JSON, path, NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "data", "key1", NULL), "v2");
    assert_string_not_equal(api_str(r->json, "metadata", "resourceVersion",
                                    NULL), rv);
    api_resp_free(r);

    /* the same stale resourceVersion again: 409 Conflict */
    r = api_call(env, "PUT", CM_PATH "/cm1", JSON, path, NULL);
    assert_int_equal(r->status, 409);
    assert_string_equal(api_str(r->json, "reason", NULL), "Conflict");
    assert_string_equal(api_str(r->json, "message", NULL),
                        "Operation cannot be fulfilled on configmaps \"cm1\":"
                        " the object has been modified; please apply your "
                        "changes to the latest version and try again");
    api_resp_free(r);
    free(rv);

    /* merge patch deletes a key */
    r = api_call(env, "PATCH", CM_PATH "/cm1",
                 "application/merge-patch+json",
                 "{\"data\":{\"key1\":null,\"key2\":\"x\"}}", NULL);
    assert_int_equal(r->status, 200);
    assert_null(api_str(r->json, "data", "key1", NULL));
    assert_string_equal(api_str(r->json, "data", "key2", NULL), "x");
    api_resp_free(r);

    /* strategic merge patch of labels */
    r = api_call(env, "PATCH", CM_PATH "/cm1",
                 "application/strategic-merge-patch+json",
                 "{\"metadata\":{\"labels\":{\"tier\":\"web\"}}}", NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "metadata", "labels", "app", NULL),
                        "demo");
    assert_string_equal(api_str(r->json, "metadata", "labels", "tier",
                                NULL), "web");
    api_resp_free(r);

    /* JSON patch with a failing test */
    r = api_call(env, "PATCH", CM_PATH "/cm1",
                 "application/json-patch+json",
                 "[{\"op\":\"test\",\"path\":\"/data/key2\",\"value\":\"y\"}]",
                 NULL);
    assert_int_equal(r->status, 422);
    api_resp_free(r);

    r = api_call(env, "PATCH", CM_PATH "/cm1",
                 "application/json-patch+json",
                 "[{\"op\":\"test\",\"path\":\"/data/key2\",\"value\":\"x\"},"
                 "{\"op\":\"add\",\"path\":\"/data/key3\",\"value\":\"z\"}]",
                 NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "data", "key3", NULL), "z");
    api_resp_free(r);

    /* delete: Status Success, then 404 */
    r = api_call(env, "DELETE", CM_PATH "/cm1", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "kind", NULL), "Status");
    assert_string_equal(api_str(r->json, "status", NULL), "Success");
    assert_string_equal(api_str(r->json, "details", "kind", NULL),
                        "configmaps");
    api_resp_free(r);

    r = api_call(env, "GET", CM_PATH "/cm1", NULL, NULL, NULL);
    assert_int_equal(r->status, 404);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "configmaps \"cm1\" not found");
    api_resp_free(r);
}


static void
test_create_errors(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;

    r = api_call(env, "POST", CM_PATH, JSON,
                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                 "\"metadata\":{\"name\":\"bad\"", NULL);
    assert_int_equal(r->status, 400);
    assert_string_equal(api_str(r->json, "message", NULL),
        "the object provided is unrecognized (must be of type ConfigMap): "
        "couldn't get version/kind; json parse error: unexpected end of "
        "JSON input ({\"apiVersion\":\"v1\",\"kind\":\"Con ...)");
    api_resp_free(r);

    r = api_call(env, "POST", CM_PATH, "text/plain", "{}", NULL);
    assert_int_equal(r->status, 415);
    api_resp_free(r);

    r = api_call(env, "POST", CM_PATH, JSON,
                 "{\"metadata\":{\"name\":\"Bad_Name\"}}", NULL);
    assert_int_equal(r->status, 422);
    assert_string_equal(api_str(r->json, "reason", NULL), "Invalid");
    assert_string_equal(api_str(json_array_get(json_object_get(
        json_object_get(r->json, "details"), "causes"), 0), "field", NULL),
        "metadata.name");
    api_resp_free(r);

    r = api_call(env, "POST", "/api/v1/namespaces/nosuch/configmaps", JSON,
                 "{\"metadata\":{\"name\":\"x\"}}", NULL);
    assert_int_equal(r->status, 404);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "namespaces \"nosuch\" not found");
    api_resp_free(r);

    r = api_call(env, "POST", CM_PATH, JSON,
                 "{\"metadata\":{\"name\":\"x\",\"namespace\":\"other\"}}",
                 NULL);
    assert_int_equal(r->status, 400);
    api_resp_free(r);

    r = api_call(env, "POST", CM_PATH, JSON,
                 "{\"apiVersion\":\"v1\",\"kind\":\"Secret\","
                 "\"metadata\":{\"name\":\"x\"}}", NULL);
    assert_int_equal(r->status, 400);
    assert_string_equal(api_str(r->json, "message", NULL),
        "Secret in version \"v1\" cannot be handled as a ConfigMap: "
        "converting (v1.Secret) to (core.ConfigMap): unknown conversion");
    api_resp_free(r);

    r = api_call(env, "POST", CM_PATH "?fieldValidation=Strict", JSON,
                 "{\"metadata\":{\"name\":\"x\",\"unknownMeta\":1},"
                 "\"spec\":{}}", NULL);
    assert_int_equal(r->status, 400);
    assert_string_equal(api_str(r->json, "message", NULL),
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: "
        "strict decoding error: unknown field \"metadata.unknownMeta\", "
        "unknown field \"spec\"");
    api_resp_free(r);

    r = api_call(env, "POST", CM_PATH, JSON,
                 "{\"metadata\":{\"name\":\"warned\"},\"spec\":{}}", NULL);
    assert_int_equal(r->status, 201);
    assert_string_equal(api_header(r, "Warning"),
                        "299 - \"unknown field \\\"spec\\\"\"");
    assert_null(json_object_get(r->json, "spec"));
    api_resp_free(r);

    r = api_call(env, "POST", CM_PATH "?dryRun=All", JSON,
                 "{\"metadata\":{\"name\":\"dry\"}}", NULL);
    assert_int_equal(r->status, 201);
    assert_null(api_str(r->json, "metadata", "resourceVersion", NULL));
    api_resp_free(r);

    r = api_call(env, "GET", CM_PATH "/dry", NULL, NULL, NULL);
    assert_int_equal(r->status, 404);
    api_resp_free(r);

    /* upstream's dry-run storage reads the key first: a name taken */

    r = api_call(env, "POST", CM_PATH "?dryRun=All", JSON,
                 "{\"metadata\":{\"name\":\"warned\"}}", NULL);
    assert_int_equal(r->status, 409);
    assert_string_equal(api_str(r->json, "reason", NULL), "AlreadyExists");
    assert_string_equal(api_str(r->json, "message", NULL),
                        "configmaps \"warned\" already exists");
    api_resp_free(r);

    r = api_call(env, "POST", CM_PATH "?dryRun=Bogus", JSON,
                 "{\"metadata\":{\"name\":\"dry\"}}", NULL);
    assert_int_equal(r->status, 422);
    assert_string_equal(api_str(r->json, "message", NULL),
        "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported "
        "value: []string{\"Bogus\"}: supported values: \"All\"");
    api_resp_free(r);

    r = api_call(env, "POST", "/api/v1/configmaps", JSON,
                 "{\"metadata\":{\"name\":\"x\"}}", NULL);
    assert_int_equal(r->status, 405);
    api_resp_free(r);

    r = api_call(env, "GET", "/api/v1/pods", NULL, NULL, NULL);
    assert_int_equal(r->status, 404);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "the server could not find the requested resource");
    api_resp_free(r);
}


static void
test_generate_name_and_list(void **state)
{
    int          i;
    char         body[128];
    const char  *cont;
    api_env_t   *env = *state;
    api_resp_t  *r;

    for (i = 0; i < 5; i++) {
        snprintf(body, sizeof(body), "{\"metadata\":{\"generateName\":"
                 "\"gen-\",\"labels\":{\"i\":\"%d\"}}}", i);
        r = api_call(env, "POST", CM_PATH, JSON, body, NULL);
        assert_int_equal(r->status, 201);
        assert_int_equal(strlen(api_str(r->json, "metadata", "name", NULL)),
                         9);
        api_resp_free(r);
    }

    r = api_call(env, "GET", CM_PATH "?limit=2", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "items")), 2);
    assert_null(api_str(json_array_get(json_object_get(r->json, "items"), 0),
                        "kind", NULL));
    cont = api_str(r->json, "metadata", "continue", NULL);
    assert_non_null(cont);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(
        r->json, "metadata"), "remainingItemCount")), 3);

    {
        char         path[512];
        api_resp_t  *r2;

        snprintf(path, sizeof(path), CM_PATH "?limit=2&continue=%s", cont);
        r2 = api_call(env, "GET", path, NULL, NULL, NULL);
        if (r2->status != 200) {
            print_error("%s\n", r2->body);
        }
        assert_int_equal(r2->status, 200);
        assert_int_equal(json_array_size(json_object_get(r2->json, "items")),
                         2);
        api_resp_free(r2);
    }

    api_resp_free(r);

    r = api_call(env, "GET", CM_PATH "?labelSelector=i%20in%20(1,3)", NULL,
                 NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "items")), 2);
    api_resp_free(r);

    r = api_call(env, "GET", CM_PATH "?continue=not-a-valid-token", NULL,
                 NULL, NULL);
    assert_int_equal(r->status, 400);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "invalid continue token: continue key is not valid: "
                        "illegal base64 data at input byte 16");
    api_resp_free(r);

    r = api_call(env, "GET", CM_PATH, NULL, NULL,
                 "application/json;as=Table;v=v1;g=meta.k8s.io");
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "kind", NULL), "Table");
    assert_int_equal(json_array_size(json_object_get(r->json, "rows")), 5);
    api_resp_free(r);
}


/*
 * Query strings as Go reads them: "%00" in a value the server reads is a
 * 400 (it used to cut the value: app%00x acted as app, %00Strict was
 * ignored, 2%00junk was 2), and ";" separates nothing (x=1;dryRun=All
 * used to run as a dry run).
 */

static void
test_query_nul_and_semicolon(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;

    static const char  *bad[] = {
        CM_PATH "?labelSelector=app%00x",
        CM_PATH "?limit=2%00junk",
        CM_PATH "?fieldSelector=metadata.name%3Da%00b",
        CM_PATH "/x?resourceVersion=1%00",
    };
    size_t  i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        r = api_call(env, "GET", bad[i], NULL, NULL, NULL);
        if (r->status != 400) {
            fail_msg("%s: %d", bad[i], r->status);
        }
        assert_string_equal(api_str(r->json, "reason", NULL), "BadRequest");
        api_resp_free(r);
    }

    r = api_call(env, "GET", CM_PATH "?limit=2%00junk", NULL, NULL, NULL);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "strconv.ParseInt: parsing \"2\\x00junk\": "
                        "invalid syntax");
    api_resp_free(r);

    r = api_call(env, "POST", CM_PATH "?fieldValidation=%00Strict", JSON,
                 "{\"metadata\":{\"name\":\"fv\"},\"bogus\":1}", NULL);
    assert_int_equal(r->status, 400);
    api_resp_free(r);

    r = api_call(env, "GET", CM_PATH "/fv", NULL, NULL, NULL);
    assert_int_equal(r->status, 404);
    api_resp_free(r);

    /* not a dry run: the parameter holding ";" is dropped */
    r = api_call(env, "POST", CM_PATH "?x=1;dryRun=All", JSON,
                 "{\"metadata\":{\"name\":\"semi\"}}", NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);

    r = api_call(env, "GET", CM_PATH "/semi", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    /* a parameter the server does not read may hold anything */
    r = api_call(env, "GET", CM_PATH "?other=a%00b", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    /*
     * booleans are read on their whole value: "false" followed by a NUL
     * is not "false" (Go's conversion: a watch), nor "true" for ?pretty
     */
    r = api_call(env, "GET", CM_PATH "?watch=false%00&timeoutSeconds=1",
                 NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_true(r->streaming);
    api_resp_free(r);

    r = api_call(env, "GET", CM_PATH "/semi?pretty=true%00", NULL, NULL,
                 NULL);
    assert_int_equal(r->status, 200);
    assert_null(strchr(r->body, '\n'));
    api_resp_free(r);

    r = api_call(env, "GET", CM_PATH "/semi?pretty=T", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, "{\n  \"kind\""));
    api_resp_free(r);

    /* orphanDependents=t is true as in Go (it used to be "true"/"1" only) */
    r = api_call(env, "DELETE", CM_PATH "/semi?orphanDependents=t", NULL,
                 NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(json_string_value(json_array_get(json_object_get(
                            json_object_get(r->json, "metadata"),
                            "finalizers"), 0)), "orphan");
    api_resp_free(r);
}


/*
 * Names and namespaces too long for an LMDB key are read as absent, as
 * kube-apiserver on etcd answers: 404, or an empty list (they were 500
 * "storage key too long").
 */

static void
test_long_names(void **state)
{
    char         path[2048], name[501];
    api_env_t   *env = *state;
    api_resp_t  *r;

    memset(name, 'a', 500);
    name[500] = '\0';

    snprintf(path, sizeof(path), CM_PATH "/%.480s", name);
    r = api_call(env, "GET", path, NULL, NULL, NULL);
    assert_int_equal(r->status, 404);
    assert_string_equal(api_str(r->json, "reason", NULL), "NotFound");
    api_resp_free(r);

    r = api_call(env, "DELETE", path, NULL, NULL, NULL);
    assert_int_equal(r->status, 404);
    api_resp_free(r);

    snprintf(path, sizeof(path), CM_PATH "?fieldSelector=metadata.name%%3D"
             "%.480s", name);
    r = api_call(env, "GET", path, NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "items")), 0);
    api_resp_free(r);

    snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps", name);
    r = api_call(env, "GET", path, NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "items")), 0);
    api_resp_free(r);

    snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps/x", name);
    r = api_call(env, "GET", path, NULL, NULL, NULL);
    assert_int_equal(r->status, 404);
    api_resp_free(r);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test_setup_teardown(test_bootstrap_namespaces, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_configmap_lifecycle, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_create_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_generate_name_and_list, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_query_nul_and_semicolon, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_long_names, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
