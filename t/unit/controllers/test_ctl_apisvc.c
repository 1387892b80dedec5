
/*
 * Unit tests: the APIService registration controller
 * (core/controllers/gcp_ctl_apisvc.c: a local APIService per served
 * group-version, "onstart" ones made right once a term, unwanted ones of
 * ours deleted) and the cluster authentication trust controller
 * (gcp_ctl_authtrust.c, without authentication configured: an empty
 * ConfigMap, put back when deleted).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_op.h"
#include "support_ctl.h"


#define APISVC  "/apis/apiregistration.k8s.io/v1/apiservices"
#define TRUST   "/api/v1/namespaces/kube-system/configmaps/" \
                "extension-apiserver-authentication"
#define LABEL   "kube-aggregator.kubernetes.io/automanaged"


static void
test_local_apiservices(void **state)
{
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, 0, NULL, 1);

    r = ctl_wait(env, APISVC "/v1.coordination.k8s.io", 200, NULL, NULL,
                 3000);
    assert_int_equal(r->status, 200);
    assert_string_equal(ctl_str(r->json, "spec.group"),
                        "coordination.k8s.io");
    assert_int_equal(json_integer_value(ctl_json(r->json,
                         "spec.groupPriorityMinimum")), 16500);
    assert_int_equal(json_integer_value(ctl_json(r->json,
                         "spec.versionPriority")), 15);
    assert_string_equal(json_string_value(json_object_get(
                            ctl_json(r->json, "metadata.labels"), LABEL)),
                        "onstart");
    assert_string_equal(ctl_str(r->json, "status.conditions.0.reason"),
                        "Local");
    api_resp_free(r);

    r = ctl_wait(env, APISVC "/v1.", 200, NULL, NULL, 3000);
    assert_int_equal(r->status, 200);
    assert_null(ctl_json(r->json, "spec.group"));
    assert_string_equal(ctl_str(r->json, "spec.version"), "v1");
    api_resp_free(r);

    /* the aggregator's own group has none */

    r = ctl_req(env, "GET", APISVC "/v1.apiregistration.k8s.io", NULL, 404);
    api_resp_free(r);

    /* one of ours that is not served goes; another's stays */

    api_resp_free(ctl_req(env, "POST", APISVC,
        "{\"metadata\":{\"name\":\"v1.gone.example.com\",\"labels\":"
        "{\"" LABEL "\":\"true\"}},\"spec\":{\"group\":\"gone.example.com\","
        "\"version\":\"v1\",\"groupPriorityMinimum\":1000,"
        "\"versionPriority\":100}}", 201));
    api_resp_free(ctl_req(env, "POST", APISVC,
        "{\"metadata\":{\"name\":\"v1.user.example.com\"},\"spec\":{"
        "\"group\":\"user.example.com\",\"version\":\"v1\","
        "\"groupPriorityMinimum\":1000,\"versionPriority\":100}}", 201));

    r = ctl_wait(env, APISVC "/v1.gone.example.com", 404, NULL, NULL, 3000);
    assert_int_equal(r->status, 404);
    api_resp_free(r);

    r = ctl_req(env, "GET", APISVC "/v1.user.example.com", NULL, 200);
    api_resp_free(r);

    /* a deleted one of ours comes back */

    api_resp_free(ctl_req(env, "DELETE", APISVC "/v1.events.k8s.io", NULL,
                          200));
    r = ctl_wait(env, APISVC "/v1.events.k8s.io", 200, NULL, NULL, 3000);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_trust_configmap(void **state)
{
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, 0, NULL, 1);

    r = ctl_wait(env, TRUST, 200, NULL, NULL, 3000);
    assert_int_equal(r->status, 200);

    /* no authentication configured: nothing to publish */
    assert_int_equal(json_object_size(ctl_json(r->json, "data")), 0);
    api_resp_free(r);

    api_resp_free(ctl_req(env, "DELETE", TRUST, NULL, 200));

    r = ctl_wait(env, TRUST, 200, NULL, NULL, 3000);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_switched_off(void **state)
{
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_ctl_manager_t  *m;

    assert_int_equal(gcp_ctl_bit("apiservice-registration", 23),
                     GCP_CTL_APISERVICE_REGISTRATION);
    assert_int_equal(gcp_ctl_bit("apiservice-status-available-controller",
                                 38), GCP_CTL_APISERVICE_AVAILABLE);
    assert_int_equal(gcp_ctl_bit("cluster-authentication-trust", 28),
                     GCP_CTL_AUTH_TRUST);

    m = ctl_start(env, GCP_CTL_APISERVICE_REGISTRATION | GCP_CTL_AUTH_TRUST,
                  NULL, 1);
    api_spin(env, 300);

    r = ctl_req(env, "GET", APISVC, NULL, 200);
    assert_int_equal(json_array_size(ctl_json(r->json, "items")), 0);
    api_resp_free(r);

    api_resp_free(ctl_req(env, "GET", TRUST, NULL, 404));

    ctl_stop(env, m);
    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_local_apiservices),
        cmocka_unit_test(test_trust_configmap),
        cmocka_unit_test(test_switched_off),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
