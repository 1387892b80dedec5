
/*
 * Unit tests: differences from kube-apiserver found by the end-to-end
 * suites (t/e2e), fixed in the core; each test shows the upstream answer.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "support_api.h"
#include "gcp_validation.h"


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


/* The body without the server's fields, as compact JSON (malloc'd). */

static char *
strip_server_fields(const json_t *obj)
{
    json_t  *copy, *meta;
    char    *s;

    copy = json_deep_copy(obj);
    meta = json_object_get(copy, "metadata");

    json_object_del(meta, "uid");
    json_object_del(meta, "resourceVersion");
    json_object_del(meta, "creationTimestamp");
    json_object_del(meta, "managedFields");

    s = json_dumps(copy, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(copy);

    return s;
}


static void
assert_created_as(api_env_t *env, const char *path, const char *body,
    const char *expect)
{
    char        *got;
    api_resp_t  *r;

    r = api_call(env, "POST", path, JSON, body, NULL);
    assert_int_equal(r->status, 201);

    got = strip_server_fields(r->json);
    assert_string_equal(got, expect);
    free(got);

    api_resp_free(r);
}


/*
 * Go's omitempty: empty maps, slices, strings, zero numbers and false
 * disappear; pointers keep their value; null is the zero value.
 */

static void
test_typed_round_trip_drops_empty_fields(void **state)
{
    char        *got;
    api_env_t   *env = *state;
    api_resp_t  *r;

    assert_created_as(env, CM_PATH,
        "{\"metadata\":{\"name\":\"e1\",\"labels\":{},\"annotations\":{},"
        "\"finalizers\":[],\"generateName\":\"\",\"namespace\":\"\","
        "\"generation\":0},\"data\":{},\"binaryData\":{}}",
        "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":"
        "{\"name\":\"e1\",\"namespace\":\"default\"}}");

    /* immutable is a *bool: false stays; null fields go */
    assert_created_as(env, CM_PATH,
        "{\"metadata\":{\"name\":\"e2\",\"labels\":null},\"data\":null,"
        "\"immutable\":false}",
        "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":"
        "{\"name\":\"e2\",\"namespace\":\"default\"},\"immutable\":false}");

    /* map keys come out sorted, as Go writes maps */
    assert_created_as(env, CM_PATH,
        "{\"metadata\":{\"name\":\"e4\",\"labels\":{\"z\":\"1\","
        "\"a\":\"2\"}},\"data\":{\"b\":\"1\",\"a\":\"2\","
        "\"B\":\"3\"}}",
        "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":"
        "{\"name\":\"e4\",\"namespace\":\"default\",\"labels\":"
        "{\"a\":\"2\",\"z\":\"1\"}},\"data\":{\"B\":\"3\","
        "\"a\":\"2\",\"b\":\"1\"}}");

    /* null map values and slice items are the zero value */
    assert_created_as(env, CM_PATH,
        "{\"metadata\":{\"name\":\"e3\",\"labels\":{\"k\":null}},"
        "\"data\":{\"k\":null}}",
        "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":"
        "{\"name\":\"e3\",\"namespace\":\"default\",\"labels\":"
        "{\"k\":\"\"}},\"data\":{\"k\":\"\"}}");

    assert_created_as(env, "/api/v1/namespaces/default/serviceaccounts",
        "{\"metadata\":{\"name\":\"sa1\"},\"secrets\":[null,"
        "{\"name\":\"s\",\"uid\":\"\"}],\"imagePullSecrets\":[]}",
        "{\"kind\":\"ServiceAccount\",\"apiVersion\":\"v1\","
        "\"metadata\":{\"name\":\"sa1\",\"namespace\":\"default\"},"
        "\"secrets\":[{},{\"name\":\"s\"}]}");

    /* a struct that is not a pointer is always written (LeaseSpec) */
    assert_created_as(env,
        "/apis/coordination.k8s.io/v1/namespaces/default/leases",
        "{\"metadata\":{\"name\":\"l1\"}}",
        "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","
        "\"metadata\":{\"name\":\"l1\",\"namespace\":\"default\"},"
        "\"spec\":{}}");

    /* a merge patch removing the last label leaves no labels map */
    r = api_call(env, "PATCH", CM_PATH "/e2",
                 "application/merge-patch+json",
                 "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}", NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    r = api_call(env, "PATCH", CM_PATH "/e2",
                 "application/merge-patch+json",
                 "{\"metadata\":{\"labels\":{\"a\":null}}}", NULL);
    assert_int_equal(r->status, 200);
    got = strip_server_fields(r->json);
    assert_string_equal(got,
        "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":"
        "{\"name\":\"e2\",\"namespace\":\"default\"},\"immutable\":false}");
    free(got);
    api_resp_free(r);
}


static void
assert_status(api_resp_t *r, int code, const char *reason,
    const char *message)
{
    assert_int_equal(r->status, code);
    assert_non_null(r->json);
    assert_string_equal(api_str(r->json, "kind", NULL), "Status");
    assert_int_equal(json_integer_value(json_object_get(r->json, "code")),
                     code);

    if (reason) {
        assert_string_equal(api_str(r->json, "reason", NULL), reason);

    } else {
        assert_null(json_object_get(r->json, "reason"));
    }

    assert_string_equal(api_str(r->json, "message", NULL), message);
}


static void
test_field_validation_values(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;

    r = api_call(env, "POST", CM_PATH "?fieldValidation=Bogus", JSON,
                 "{\"metadata\":{\"name\":\"x\"}}", NULL);
    assert_status(r, 422, "Invalid",
                  "CreateOptions.meta.k8s.io \"\" is invalid: "
                  "fieldValidation: Unsupported value: \"Bogus\": "
                  "supported values: \"\", \"Ignore\", \"Strict\", "
                  "\"Warn\"");
    api_resp_free(r);
}


/* NewInvalid(GroupKind): "Kind.group" in the message */

static void
test_invalid_names_group_kind(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;

    r = api_call(env, "POST",
                 "/apis/coordination.k8s.io/v1/namespaces/default/leases",
                 JSON, "{\"metadata\":{\"name\":\"l\"},\"spec\":"
                 "{\"leaseDurationSeconds\":0}}", NULL);
    assert_status(r, 422, "Invalid",
                  "Lease.coordination.k8s.io \"l\" is invalid: "
                  "spec.leaseDurationSeconds: Invalid value: 0: must be "
                  "greater than 0");
    assert_string_equal(api_str(r->json, "details", "kind", NULL), "Lease");
    assert_string_equal(api_str(r->json, "details", "group", NULL),
                        "coordination.k8s.io");
    api_resp_free(r);
}


static void
test_resource_version_errors(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;

    r = api_call(env, "GET", CM_PATH "?resourceVersion=abc", NULL, NULL,
                 NULL);
    assert_status(r, 500, NULL,
                  "resourceVersion: Invalid value: \"abc\": "
                  "strconv.ParseUint: parsing \"abc\": invalid syntax");
    api_resp_free(r);

    r = api_call(env, "GET", CM_PATH "/x?resourceVersion=-1", NULL, NULL,
                 NULL);
    assert_status(r, 500, NULL,
                  "resourceVersion: Invalid value: \"-1\": "
                  "strconv.ParseUint: parsing \"-1\": invalid syntax");
    api_resp_free(r);

    r = api_call(env, "GET", CM_PATH "?resourceVersion=99999999999999999999",
                 NULL, NULL, NULL);
    assert_status(r, 500, NULL,
                  "resourceVersion: Invalid value: \"99999999999999999999\":"
                  " strconv.ParseUint: parsing \"99999999999999999999\": "
                  "value out of range");
    api_resp_free(r);

    r = api_call(env, "GET", CM_PATH "?resourceVersion=999999999"
                 "&resourceVersionMatch=Exact", NULL, NULL, NULL);
    assert_status(r, 500, NULL,
                  "etcdserver: mvcc: required revision is a future revision");
    api_resp_free(r);
}


/* a future revision: kube-apiserver waits 3 s for it, then 504 */

static void
test_future_resource_version_times_out(void **state)
{
    char         msg[128];
    api_env_t   *env = *state;
    api_resp_t  *r;
    gcp_loop_t  *loop;
    uint64_t     t0;
    int64_t      cur;

    static const char * const  paths[] = {
        CM_PATH "?resourceVersion=999999999&resourceVersionMatch="
        "NotOlderThan",
        CM_PATH "/x?resourceVersion=999999999",
        NULL
    };
    const char * const  *p;

    loop = api_env_loop(env);

    r = api_call(env, "GET", CM_PATH, NULL, NULL, NULL);
    cur = atoll(api_str(r->json, "metadata", "resourceVersion", NULL));
    api_resp_free(r);

    for (p = paths; *p; p++) {
        t0 = loop->now_ms(loop);
        r = api_call(env, "GET", *p, NULL, NULL, NULL);

        assert_true(loop->now_ms(loop) - t0 >= 2900);
        snprintf(msg, sizeof(msg), "Timeout: Too large resource version: "
                 "999999999, current: %lld", (long long) cur);
        assert_status(r, 504, "Timeout", msg);
        assert_string_equal(api_header(r, "Retry-After"), "1");
        assert_int_equal(json_integer_value(json_object_get(
            json_object_get(r->json, "details"), "retryAfterSeconds")), 1);
        assert_string_equal(api_str(json_array_get(json_object_get(
            json_object_get(r->json, "details"), "causes"), 0), "reason",
            NULL), "ResourceVersionTooLarge");
        api_resp_free(r);
    }

    /* a current or older one is served at once */
    r = api_call(env, "GET", "/api/v1/namespaces/default?resourceVersion=1",
                 NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);
}


static void
test_include_object_only_for_tables(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;

    r = api_call(env, "GET", CM_PATH "?includeObject=Bogus", NULL, NULL,
                 NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    r = api_call(env, "GET", CM_PATH "?includeObject=Bogus", NULL, NULL,
                 "application/json;as=Table;v=v1;g=meta.k8s.io");
    assert_status(r, 400, "BadRequest",
                  "Unable to convert to Table as requested: includeObject: "
                  "Invalid value: \"Bogus\": must be 'Metadata', 'Object', "
                  "'None', or empty");
    api_resp_free(r);
}


/* continue tokens: kube-apiserver's first pages carry "/NAME\u0000" */

static void
test_continue_token_start_key(void **state)
{
    size_t       i;
    char         path[512];
    api_env_t   *env = *state;
    api_resp_t  *r;

    static const struct {
        const char  *start;         /* the JSON string, escaped */
        const char  *error;         /* NULL: valid */
    } cases[] = {
        { "/cm-1\\u0000", NULL },
        { "cm-1\\u0000", NULL },
        { "/", NULL },
        { "", "continue key is not valid: encoded start key empty "
              "(version meta.k8s.io/v1)" },
        { "../secrets/x", "continue key is not valid: ../secrets/x" },
        { "a//b", "continue key is not valid: a//b" },
        { "a/./b", "continue key is not valid: a/./b" },
        { "a/", "continue key is not valid: a/" },
    };

    for (i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "{\"metadata\":{\"name\":"
                 "\"cm-%zu\"}}", i);
        r = api_call(env, "POST", CM_PATH, JSON, path, NULL);
        assert_int_equal(r->status, 201);
        api_resp_free(r);
    }

    for (i = 0; i < gcp_nelems(cases); i++) {
        char          json[128];
        gcp_buf_t     b;
        gcp_arena_t  *a;

        a = gcp_arena_create(0);
        snprintf(json, sizeof(json), "{\"v\":\"meta.k8s.io/v1\","
                 "\"rv\":-1,\"start\":\"%s\"}", cases[i].start);
        gcp_buf_init(&b, a);
        gcp_base64_encode_buf(&b, json, strlen(json), GCP_BASE64_RAWURL);
        snprintf(path, sizeof(path), CM_PATH "?limit=1&continue=%s",
                 gcp_buf_cstr(&b));
        gcp_arena_destroy(a);

        r = api_call(env, "GET", path, NULL, NULL, NULL);

        if (cases[i].error == NULL) {
            assert_int_equal(r->status, 200);
            assert_string_equal(api_str(json_array_get(json_object_get(
                r->json, "items"), 0), "metadata", "name", NULL),
                i == 2 ? "cm-0" : "cm-2");

        } else {
            char  msg[256];

            snprintf(msg, sizeof(msg), "invalid continue token: %s",
                     cases[i].error);
            assert_status(r, 400, "BadRequest", msg);
        }

        api_resp_free(r);
    }
}


/* leaving a label selection: DELETED with the object as it was */

static void
test_watch_leaving_selection(void **state)
{
    char        *rv, *patched_rv, path[256];
    json_t      *ev;
    api_env_t   *env = *state;
    api_resp_t  *r;

    r = api_call(env, "POST", CM_PATH, JSON,
                 "{\"metadata\":{\"name\":\"w\",\"labels\":"
                 "{\"app\":\"w\"}}}", NULL);
    assert_int_equal(r->status, 201);
    rv = strdup(api_str(r->json, "metadata", "resourceVersion", NULL));
    api_resp_free(r);

    r = api_call(env, "PATCH", CM_PATH "/w", "application/merge-patch+json",
                 "{\"metadata\":{\"labels\":{\"app\":\"x\"}}}", NULL);
    assert_int_equal(r->status, 200);
    patched_rv = strdup(api_str(r->json, "metadata", "resourceVersion",
                                NULL));
    api_resp_free(r);

    snprintf(path, sizeof(path), CM_PATH "?watch=1&labelSelector=app%%3Dw"
             "&resourceVersion=%s", rv);
    r = api_call_stream(env, "GET", path, NULL, 300);
    assert_int_equal(r->status, 200);

    ev = json_loads(r->body, JSON_DISABLE_EOF_CHECK, NULL);
    assert_non_null(ev);
    assert_string_equal(api_str(ev, "type", NULL), "DELETED");
    assert_string_equal(api_str(ev, "object", "metadata", "labels", "app",
                                NULL), "w");
    assert_string_equal(api_str(ev, "object", "metadata",
                                "resourceVersion", NULL), patched_rv);
    assert_null(strchr(strchr(r->body, '\n') + 1, '{'));
    json_decref(ev);

    api_resp_free(r);
    free(rv);
    free(patched_rv);
}


/* custom spec.finalizers are kept, "kubernetes" appended */

static void
test_namespace_finalizers_on_create(void **state)
{
    json_t      *fin;
    api_env_t   *env = *state;
    api_resp_t  *r;

    r = api_call(env, "POST", "/api/v1/namespaces", JSON,
                 "{\"metadata\":{\"name\":\"n1\"},\"spec\":"
                 "{\"finalizers\":[\"example.com/hold\"]}}", NULL);
    assert_int_equal(r->status, 201);
    fin = json_object_get(json_object_get(r->json, "spec"), "finalizers");
    assert_int_equal(json_array_size(fin), 2);
    assert_string_equal(json_string_value(json_array_get(fin, 0)),
                        "example.com/hold");
    assert_string_equal(json_string_value(json_array_get(fin, 1)),
                        "kubernetes");
    api_resp_free(r);

    r = api_call(env, "POST", "/api/v1/namespaces", JSON,
                 "{\"metadata\":{\"name\":\"n2\"},\"spec\":"
                 "{\"finalizers\":[\"kubernetes\",\"a.b/c\"]}}", NULL);
    assert_int_equal(r->status, 201);
    fin = json_object_get(json_object_get(r->json, "spec"), "finalizers");
    assert_int_equal(json_array_size(fin), 2);
    assert_string_equal(json_string_value(json_array_get(fin, 0)),
                        "kubernetes");
    api_resp_free(r);
}


static void
test_health_verbose_newline(void **state)
{
    size_t       n;
    api_env_t   *env = *state;
    api_resp_t  *r;

    r = api_call(env, "GET", "/livez?verbose", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    n = strlen(r->body);
    assert_true(n > 20);
    assert_string_equal(r->body + n - 19, "livez check passed\n");
    api_resp_free(r);

    r = api_call(env, "GET", "/healthz", NULL, NULL, NULL);
    assert_string_equal(r->body, "ok");
    api_resp_free(r);
}


/* a failed delete precondition names the kind (BeforeDelete) */

static void
test_delete_precondition_names_kind(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;

    r = api_call(env, "POST",
                 "/apis/coordination.k8s.io/v1/namespaces/default/leases",
                 JSON, "{\"metadata\":{\"name\":\"l\"}}", NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);

    r = api_call(env, "DELETE",
                 "/apis/coordination.k8s.io/v1/namespaces/default/leases/l",
                 JSON, "{\"preconditions\":{\"uid\":\"x\"}}", NULL);
    assert_int_equal(r->status, 409);
    assert_true(strncmp(api_str(r->json, "message", NULL),
                        "Operation cannot be fulfilled on "
                        "Lease.coordination.k8s.io \"l\": the UID in the "
                        "precondition (x) does not match", 91) == 0);
    assert_string_equal(api_str(r->json, "details", "kind", NULL), "Lease");
    assert_string_equal(api_str(r->json, "details", "group", NULL),
                        "coordination.k8s.io");
    api_resp_free(r);
}


/*
 * A merge patch on namespaces/NAME/status keeps its metadata changes, as
 * the namespace status strategy resets only the spec; spec changes go.
 */

static void
test_namespace_status_keeps_metadata(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;

    r = api_call(env, "POST", "/api/v1/namespaces", JSON,
                 "{\"metadata\":{\"name\":\"nsst\"}}", NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);

    r = api_call(env, "PATCH", "/api/v1/namespaces/nsst/status",
                 "application/merge-patch+json",
                 "{\"metadata\":{\"annotations\":{\"a\":\"1\"},"
                 "\"labels\":{\"l\":\"2\"}},"
                 "\"spec\":{\"finalizers\":[\"x/y\"]},"
                 "\"status\":{\"phase\":\"Active\"}}", NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "metadata", "annotations", "a",
                                NULL), "1");
    assert_string_equal(api_str(r->json, "metadata", "labels", "l", NULL),
                        "2");
    api_assert_json(json_object_get(r->json, "spec"),
                    "{\"finalizers\":[\"kubernetes\"]}");
    api_resp_free(r);

    r = api_call(env, "GET", "/api/v1/namespaces/nsst", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "metadata", "annotations", "a",
                                NULL), "1");
    api_resp_free(r);
}


/*
 * The reviews have no TableConvertor upstream: a Table of their answer is
 * 406 NotAcceptable; JSON as a fallback in the same Accept is served.
 */

static void
test_review_table_not_acceptable(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;

    static const char  ssar[] =
        "{\"apiVersion\":\"authorization.k8s.io/v1\","
        "\"kind\":\"SelfSubjectAccessReview\",\"spec\":"
        "{\"resourceAttributes\":{\"verb\":\"get\","
        "\"resource\":\"configmaps\"}}}";

    r = api_call(env, "POST",
                 "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                 JSON, ssar, "application/json;as=Table;v=v1;g=meta.k8s.io");
    assert_int_equal(r->status, 406);
    assert_string_equal(api_str(r->json, "reason", NULL), "NotAcceptable");
    assert_string_equal(api_str(r->json, "message", NULL),
                        "only the following media types are accepted: "
                        "application/json, application/yaml, "
                        "application/vnd.kubernetes.protobuf");
    api_resp_free(r);

    r = api_call(env, "POST",
                 "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                 JSON, ssar, "application/json;as=Table;v=v1;"
                 "g=meta.k8s.io, application/json");
    assert_int_equal(r->status, 201);
    assert_string_equal(api_str(r->json, "kind", NULL),
                        "SelfSubjectAccessReview");
    api_resp_free(r);

    /* stored resources still answer Tables */
    r = api_call(env, "GET", CM_PATH, NULL, NULL,
                 "application/json;as=Table;v=v1;g=meta.k8s.io");
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "kind", NULL), "Table");
    api_resp_free(r);
}


/*
 * The core/v1 Event field "source" is source.component, or else the
 * reporting controller (all an events.k8s.io/v1 write carries).
 */

static void
test_event_source_field(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;

    r = api_call(env, "POST",
                 "/apis/events.k8s.io/v1/namespaces/default/events", JSON,
                 "{\"metadata\":{\"name\":\"ev1\"},"
                 "\"eventTime\":\"2026-01-01T00:00:00.000000Z\","
                 "\"reportingController\":\"example.com/ctl\","
                 "\"reportingInstance\":\"i1\",\"action\":\"Do\","
                 "\"reason\":\"Done\",\"type\":\"Normal\","
                 "\"regarding\":{\"kind\":\"ConfigMap\","
                 "\"name\":\"x\"}}", NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);

    r = api_call(env, "POST", "/api/v1/namespaces/default/events", JSON,
                 "{\"metadata\":{\"name\":\"ev2\"},"
                 "\"involvedObject\":{\"kind\":\"ConfigMap\","
                 "\"name\":\"x\",\"namespace\":\"default\"},"
                 "\"source\":{\"component\":\"kubelet\"},"
                 "\"reportingComponent\":\"example.com/ctl\"}", NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);

    r = api_call(env, "GET", "/api/v1/namespaces/default/events"
                 "?fieldSelector=source%3Dexample.com%2Fctl", NULL, NULL,
                 NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "items")), 1);
    assert_string_equal(api_str(json_array_get(json_object_get(r->json,
                                                               "items"), 0),
                                "metadata", "name", NULL), "ev1");
    api_resp_free(r);

    r = api_call(env, "GET", "/api/v1/namespaces/default/events"
                 "?fieldSelector=source%3Dkubelet", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "items")), 1);
    assert_string_equal(api_str(json_array_get(json_object_get(r->json,
                                                               "items"), 0),
                                "metadata", "name", NULL), "ev2");
    api_resp_free(r);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test_setup_teardown(
            test_typed_round_trip_drops_empty_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_field_validation_values, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_invalid_names_group_kind, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_resource_version_errors, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_future_resource_version_times_out, setup, teardown),
        cmocka_unit_test_setup_teardown(test_include_object_only_for_tables,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_continue_token_start_key, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_watch_leaving_selection, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_namespace_finalizers_on_create,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_health_verbose_newline, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_delete_precondition_names_kind,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_namespace_status_keeps_metadata,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_review_table_not_acceptable,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_event_source_field, setup,
                                        teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
