
/*
 * Unit tests: apiregistration.k8s.io/v1 APIServices through the API core
 * (core/aggregator/): defaults, status, validation, Tables; the routing of
 * delegated group-versions (the gcp_proxy_t handed to the adapter, 503
 * when unavailable, the last discovery document kept); discovery merging
 * the remote groups.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "support_api.h"
#include "gcp_aggregator.h"


#define JSON      "application/json"
#define APISVC    "/apis/apiregistration.k8s.io/v1/apiservices"
#define DISC_V2   "application/json;g=apidiscovery.k8s.io;v=v2;" \
                  "as=APIGroupDiscoveryList"

#define REMOTE                                                               \
    "{\"metadata\":{\"name\":\"v1.things.example.com\"},"                   \
    "\"spec\":{\"group\":\"things.example.com\",\"version\":\"v1\","        \
    "\"service\":{\"namespace\":\"ext\",\"name\":\"ext\"},"                 \
    "\"caBundle\":\"YWJj\",\"groupPriorityMinimum\":1000,"                  \
    "\"versionPriority\":15},"                                              \
    "\"status\":{\"conditions\":[{\"type\":\"Available\","                  \
    "\"status\":\"True\"}]}}"


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


static json_t *
get_json(api_env_t *env, const char *path, const char *accept)
{
    json_t      *j;
    api_resp_t  *r;

    r = api_call(env, "GET", path, NULL, NULL, accept);
    assert_int_equal(r->status, 200);

    j = json_incref(r->json);
    api_resp_free(r);

    return j;
}


static void
create_remote(api_env_t *env)
{
    api_resp_t  *r;

    r = api_call(env, "POST", APISVC, JSON, REMOTE, NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);
}


/* Sets the Available condition of v1.things.example.com. */
static void
set_available(api_env_t *env, const char *status)
{
    char        *body;
    json_t      *obj;
    api_resp_t  *r;

    obj = get_json(env, APISVC "/v1.things.example.com", NULL);
    json_object_set_new(obj, "status",
                        json_pack("{s:[{s:s, s:s, s:s, s:s}]}",
                                  "conditions", "type", "Available",
                                  "status", status, "reason", "Test",
                                  "lastTransitionTime",
                                  "2026-01-01T00:00:00Z"));
    body = json_dumps(obj, JSON_COMPACT);
    json_decref(obj);

    r = api_call(env, "PUT", APISVC "/v1.things.example.com/status", JSON,
                 body, NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);
    free(body);
}


/* Runs the loop until the view of api has the APIService as wanted. */
static void
wait_view(api_env_t *env, int available)
{
    int                  i;
    gcp_agg_t           *agg;
    const gcp_apisvc_t  *svc;

    agg = gcp_agg(api_env_api(env));
    assert_non_null(agg);

    for (i = 0; i < 500; i++) {
        svc = gcp_agg_find(agg, "things.example.com", "v1");

        if (svc && (available < 0 || (int) svc->available == available)) {
            return;
        }

        api_spin(env, 5);
    }

    fail_msg("the view does not show v1.things.example.com");
}


static void
test_remote_create(void **state)
{
    api_env_t     *env = *state;
    api_resp_t    *r;
    const json_t  *spec;

    r = api_call(env, "POST", APISVC, JSON, REMOTE, NULL);
    assert_int_equal(r->status, 201);

    /* the status is the availability controller's; port 443 defaulted */

    assert_int_equal(json_object_size(json_object_get(r->json, "status")),
                     0);
    spec = json_object_get(r->json, "spec");
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(spec, "service"), "port")), 443);
    assert_string_equal(api_str(r->json, "spec", "caBundle", NULL), "YWJj");
    api_resp_free(r);

    /* an update keeps the status, a status update keeps the spec */

    set_available(env, "False");

    r = api_call(env, "GET", APISVC "/v1.things.example.com", NULL, NULL,
                 NULL);
    assert_string_equal(api_str(json_array_get(json_object_get(
                            json_object_get(r->json, "status"),
                            "conditions"), 0), "reason", NULL), "Test");
    assert_string_equal(api_str(r->json, "spec", "group", NULL),
                        "things.example.com");
    api_resp_free(r);
}


static void
test_local_available(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;

    r = api_call(env, "POST", APISVC, JSON,
                 "{\"metadata\":{\"name\":\"v1.x.example.com\"},\"spec\":{"
                 "\"group\":\"x.example.com\",\"version\":\"v1\","
                 "\"groupPriorityMinimum\":100,\"versionPriority\":10}}",
                 NULL);
    assert_int_equal(r->status, 201);
    assert_string_equal(api_str(json_array_get(json_object_get(
                            json_object_get(r->json, "status"),
                            "conditions"), 0), "reason", NULL), "Local");
    api_resp_free(r);

    /* the Table */

    r = api_call(env, "GET", APISVC "/v1.x.example.com", NULL, NULL,
                 "application/json;as=Table;v=v1;g=meta.k8s.io");
    assert_int_equal(r->status, 200);
    assert_string_equal(json_string_value(json_array_get(json_object_get(
        json_array_get(json_object_get(r->json, "rows"), 0), "cells"), 1)),
        "Local");
    assert_string_equal(json_string_value(json_array_get(json_object_get(
        json_array_get(json_object_get(r->json, "rows"), 0), "cells"), 2)),
        "True");
    api_resp_free(r);
}


static void
test_table_remote(void **state)
{
    api_env_t   *env = *state;
    json_t      *cells;
    api_resp_t  *r;

    create_remote(env);

    r = api_call(env, "GET", APISVC "/v1.things.example.com", NULL, NULL,
                 "application/json;as=Table;v=v1;g=meta.k8s.io");
    cells = json_object_get(json_array_get(json_object_get(r->json, "rows"),
                                           0), "cells");
    assert_string_equal(json_string_value(json_array_get(cells, 1)),
                        "ext/ext");
    assert_string_equal(json_string_value(json_array_get(cells, 2)),
                        "Unknown");
    api_resp_free(r);

    set_available(env, "False");

    r = api_call(env, "GET", APISVC "/v1.things.example.com", NULL, NULL,
                 "application/json;as=Table;v=v1;g=meta.k8s.io");
    cells = json_object_get(json_array_get(json_object_get(r->json, "rows"),
                                           0), "cells");
    assert_string_equal(json_string_value(json_array_get(cells, 2)),
                        "False (Test)");
    api_resp_free(r);
}


static void
assert_invalid(api_env_t *env, const char *body, const char *message)
{
    api_resp_t  *r;

    r = api_call(env, "POST", APISVC, JSON, body, NULL);
    assert_int_equal(r->status, 422);
    assert_string_equal(api_str(r->json, "message", NULL), message);
    api_resp_free(r);
}


static void
test_validation(void **state)
{
    api_env_t  *env = *state;

    assert_invalid(env,
        "{\"metadata\":{\"name\":\"v2.a.example.com\"},\"spec\":{"
        "\"group\":\"a.example.com\",\"version\":\"v1\","
        "\"groupPriorityMinimum\":100,\"versionPriority\":10}}",
        "APIService.apiregistration.k8s.io \"v2.a.example.com\" is invalid: "
        "metadata.name: Invalid value: \"v2.a.example.com\": must be "
        "`spec.version+\".\"+spec.group`: \"v1.a.example.com\"");

    assert_invalid(env,
        "{\"metadata\":{\"name\":\"v2.\"},\"spec\":{\"version\":\"v2\","
        "\"groupPriorityMinimum\":100,\"versionPriority\":10}}",
        "APIService.apiregistration.k8s.io \"v2.\" is invalid: spec.group: "
        "Required value: only v1 may have an empty group and it better be "
        "legacy kube");

    assert_invalid(env,
        "{\"metadata\":{\"name\":\"v1.a.example.com\"},\"spec\":{"
        "\"group\":\"a.example.com\",\"version\":\"v1\","
        "\"service\":{\"port\":70000},"
        "\"groupPriorityMinimum\":100,\"versionPriority\":10}}",
        "APIService.apiregistration.k8s.io \"v1.a.example.com\" is invalid: "
        "[spec.service.namespace: Required value, spec.service.name: "
        "Required value, spec.service.port: Invalid value: 70000: port is "
        "not valid: must be between 1 and 65535, inclusive]");

    assert_invalid(env,
        "{\"metadata\":{\"name\":\"v1.a.example.com\"},\"spec\":{"
        "\"group\":\"a.example.com\",\"version\":\"v1\","
        "\"insecureSkipTLSVerify\":true,"
        "\"groupPriorityMinimum\":20001,\"versionPriority\":0}}",
        "APIService.apiregistration.k8s.io \"v1.a.example.com\" is invalid: "
        "[spec.groupPriorityMinimum: Invalid value: 20001: must be positive "
        "and less than 20000, spec.versionPriority: Invalid value: 0: must "
        "be positive and less than 1000, spec.insecureSkipTLSVerify: "
        "Invalid value: true: local APIServices may not have "
        "insecureSkipTLSVerify]");
}


static void
test_status_validation(void **state)
{
    char        *body;
    json_t      *obj;
    api_env_t   *env = *state;
    api_resp_t  *r;

    create_remote(env);

    obj = get_json(env, APISVC "/v1.things.example.com", NULL);
    json_object_set_new(obj, "status",
                        json_pack("{s:[{s:s, s:s}]}", "conditions", "type",
                                  "Available", "status", "Maybe"));
    body = json_dumps(obj, JSON_COMPACT);
    json_decref(obj);

    r = api_call(env, "PUT", APISVC "/v1.things.example.com/status", JSON,
                 body, NULL);
    assert_int_equal(r->status, 422);
    assert_string_equal(api_str(r->json, "message", NULL),
        "APIService.apiregistration.k8s.io \"v1.things.example.com\" is "
        "invalid: status.conditions[0].status: Unsupported value: "
        "\"Maybe\": supported values: \"True\", \"False\", \"Unknown\"");
    api_resp_free(r);
    free(body);
}


static const gcp_header_t  forged[] = {
    { "Authorization", "Bearer secret" },
    { "X-Remote-User", "root" },
};


static void
test_route_available(void **state)
{
    size_t                i;
    json_t               *set, *h;
    api_env_t            *env = *state;
    api_resp_t           *r;
    api_req_opts_t        o;
    gcp_user_extra_t      extra;

    static const char * const  groups[] = { "devs", NULL };
    static const char * const  values[] = { "a b" };
    gcp_user_t                 user = { "alice", "u1", groups, 1, NULL, 0 };

    create_remote(env);
    set_available(env, "True");
    wait_view(env, 1);

    assert_true(gcp_api_proxied(api_env_api(env),
                                "/apis/things.example.com/v1/widgets", 35));
    assert_false(gcp_api_proxied(api_env_api(env),
                                 "/apis/things.example.com", 24));
    assert_false(gcp_api_proxied(api_env_api(env), "/api/v1/pods", 12));

    extra.key = "scopes/x";
    extra.values = values;
    extra.nvalues = 1;
    user.extra = &extra;
    user.nextra = 1;

    memset(&o, 0, sizeof(o));
    o.user = &user;
    o.headers = forged;
    o.nheaders = 2;

    r = api_call_opts(env, "GET",
                      "/apis/things.example.com/v1/namespaces/ns/widgets"
                      "?watch=1", NULL, NULL, NULL, &o);
    assert_non_null(r->proxy);

    assert_string_equal(api_str(r->proxy, "upstream", NULL),
                        "ext.ext.svc");
    assert_string_equal(api_str(r->proxy, "serverName", NULL),
                        "ext.ext.svc");
    assert_int_equal(json_integer_value(json_object_get(r->proxy, "port")),
                     443);
    assert_string_equal(api_str(r->proxy, "ca", NULL), "abc");
    assert_true(json_is_false(json_object_get(r->proxy, "insecure")));
    assert_true(json_is_true(json_object_get(r->proxy, "longRunning")));

    set = json_object_get(r->proxy, "set");
    assert_int_equal(json_array_size(set), 3);
    assert_string_equal(json_string_value(json_array_get(
                            json_array_get(set, 0), 0)), "X-Remote-User");
    assert_string_equal(json_string_value(json_array_get(
                            json_array_get(set, 0), 1)), "alice");
    assert_string_equal(json_string_value(json_array_get(
                            json_array_get(set, 1), 1)), "devs");
    assert_string_equal(json_string_value(json_array_get(
                            json_array_get(set, 2), 0)),
                        "X-Remote-Extra-scopes%2Fx");
    assert_string_equal(json_string_value(json_array_get(
                            json_array_get(set, 2), 1)), "a b");

    /* the client's credentials and identity headers are dropped */

    json_array_foreach(json_object_get(r->proxy, "remove"), i, h) {
        if (strcmp(json_string_value(h), "Authorization") == 0) {
            break;
        }
    }

    assert_true(i < json_array_size(json_object_get(r->proxy, "remove")));
    api_resp_free(r);
}


static void
test_route_unavailable(void **state)
{
    int          i;
    gcp_str_t    key, value;
    api_env_t   *env = *state;
    api_resp_t  *r;

    create_remote(env);
    set_available(env, "False");
    wait_view(env, 0);

    r = api_call(env, "GET", "/apis/things.example.com/v1/widgets", NULL,
                 NULL, NULL);
    assert_null(r->proxy);
    assert_int_equal(r->status, 503);
    assert_string_equal(r->body, "service unavailable\n");
    api_resp_free(r);

    r = api_call(env, "GET", "/apis/things.example.com/v1", NULL, NULL,
                 NULL);
    assert_int_equal(r->status, 503);
    api_resp_free(r);

    /* with a document fetched earlier: served, marked stale */

    key.data = GCP_APISVC_DOCUMENTS "v1.things.example.com";
    key.len = strlen(key.data);
    value.data = "{\"discovery\":{\"kind\":\"APIResourceList\","
                 "\"apiVersion\":\"v1\",\"groupVersion\":"
                 "\"things.example.com/v1\",\"resources\":[{\"name\":"
                 "\"widgets\",\"singularName\":\"widget\",\"namespaced\":"
                 "true,\"kind\":\"Widget\",\"verbs\":[\"get\"]},{\"name\":"
                 "\"gadgets/scale\",\"singularName\":\"\",\"namespaced\":"
                 "false,\"group\":\"autoscaling\",\"version\":\"v1\","
                 "\"kind\":\"Scale\",\"verbs\":[\"get\"]}]},\"fetched\":1}";
    value.len = strlen(value.data);

    api_store_put(env, key, value);

    r = NULL;

    for (i = 0; i < 500; i++) {
        api_resp_free(r);
        r = api_call(env, "GET", "/apis/things.example.com/v1", NULL, NULL,
                     NULL);

        if (r->status == 200) {
            break;
        }

        api_spin(env, 5);
    }

    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "groupVersion", NULL),
                        "things.example.com/v1");
    api_resp_free(r);

    r = api_call(env, "GET", "/apis", NULL, NULL, DISC_V2);
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body,
        "{\"metadata\":{\"name\":\"things.example.com\",\"creationTimestamp"
        "\":null},\"versions\":[{\"version\":\"v1\",\"resources\":[{"
        "\"resource\":\"widgets\",\"responseKind\":{\"group\":\"\","
        "\"version\":\"\",\"kind\":\"Widget\"},\"scope\":\"Namespaced\","
        "\"singularResource\":\"widget\",\"verbs\":[\"get\"]},{\"resource\":"
        "\"gadgets\",\"responseKind\":{\"group\":\"\",\"version\":\"\","
        "\"kind\":\"\"},\"scope\":\"Cluster\",\"singularResource\":\"\","
        "\"verbs\":null,\"subresources\":[{\"subresource\":\"scale\","
        "\"responseKind\":{\"group\":\"autoscaling\",\"version\":\"v1\","
        "\"kind\":\"Scale\"},\"verbs\":[\"get\"]}]}],\"freshness\":"
        "\"Stale\"}]}"));
    api_resp_free(r);
}


static void
test_discovery_order(void **state)
{
    size_t       i;
    json_t      *doc, *groups, *g;
    api_env_t   *env = *state;

    create_remote(env);
    wait_view(env, -1);

    doc = get_json(env, "/apis", NULL);
    groups = json_object_get(doc, "groups");

    /* apiregistration first; things.example.com (1000) after the rest */

    assert_string_equal(api_str(json_array_get(groups, 0), "name", NULL),
                        "apiregistration.k8s.io");
    assert_string_equal(api_str(json_array_get(groups, 1), "name", NULL),
                        "events.k8s.io");
    assert_string_equal(api_str(json_array_get(groups,
                                               json_array_size(groups) - 1),
                                "name", NULL),
                        "things.example.com");

    json_array_foreach(groups, i, g) {
        if (strcmp(api_str(g, "name", NULL), "rbac.authorization.k8s.io")
            == 0)
        {
            break;
        }
    }

    /*
     * 17000, after certificates' 17300 (not served), then 16700 twice
     * (by name) and 16500
     */
    assert_string_equal(api_str(json_array_get(groups, i + 1), "name",
                                NULL),
                        "admissionregistration.k8s.io");
    assert_string_equal(api_str(json_array_get(groups, i + 2), "name",
                                NULL),
                        "apiextensions.k8s.io");
    assert_string_equal(api_str(json_array_get(groups, i + 3), "name",
                                NULL),
                        "coordination.k8s.io");
    json_decref(doc);

    g = get_json(env, "/apis/things.example.com", NULL);
    assert_string_equal(api_str(g, "preferredVersion", "groupVersion",
                                NULL), "things.example.com/v1");
    json_decref(g);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test_setup_teardown(test_remote_create, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_local_available, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_table_remote, setup, teardown),
        cmocka_unit_test_setup_teardown(test_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_status_validation, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_route_available, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_route_unavailable, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_discovery_order, setup,
                                        teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
