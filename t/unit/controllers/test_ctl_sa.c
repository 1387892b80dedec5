
/*
 * Unit tests: the service account and root CA controllers
 * (core/controllers/gcp_ctl_sa.c, gcp_ctl_rootca.c), leader election
 * (gcp_ctl_leader.c) and the controller switches.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_op.h"
#include "support_ctl.h"


#define NS_PATH   "/api/v1/namespaces"
#define SA_PATH   "/api/v1/namespaces/team/serviceaccounts/default"
#define CA_PATH   "/api/v1/namespaces/team/configmaps/kube-root-ca.crt"
#define LEASE     "/apis/coordination.k8s.io/v1/namespaces/kube-system/" \
                  "leases/kube-controller-manager"
#define DESC      "Contains a CA bundle that can be used to verify the "   \
                  "kube-apiserver when using internal endpoints such as "  \
                  "the internal service IP or kubernetes.default.svc. No " \
                  "other usage is guaranteed across distributions of "     \
                  "Kubernetes clusters."


static void
create_ns(api_env_t *env, const char *name)
{
    char  body[256];

    snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"%s\"}}", name);
    api_resp_free(ctl_req(env, "POST", NS_PATH, body, 201));
}


static const char *
ca_crt(const api_resp_t *r)
{
    const char  *s;

    s = json_string_value(json_object_get(ctl_json(r->json, "data"),
                                          "ca.crt"));

    return s ? s : "";
}


static void
test_sa_and_root_ca_created(void **state)
{
    int                 i;
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, 0, NULL, 1);

    /* the namespaces of the bootstrap get them too */

    r = ctl_wait(env, "/api/v1/namespaces/kube-system/serviceaccounts/"
                 "default", 200, NULL, NULL, 2000);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    create_ns(env, "team");

    r = ctl_wait(env, SA_PATH, 200, NULL, NULL, 2000);
    assert_int_equal(r->status, 200);
    assert_string_equal(ctl_str(r->json, "metadata.name"), "default");
    assert_null(ctl_json(r->json, "secrets"));
    api_resp_free(r);

    r = ctl_wait(env, CA_PATH, 200, NULL, NULL, 2000);
    assert_int_equal(r->status, 200);
    assert_string_equal(ca_crt(r), CTL_TEST_CA);
    assert_int_equal(json_object_size(ctl_json(r->json, "data")), 1);
    assert_string_equal(json_string_value(json_object_get(
                            ctl_json(r->json, "metadata.annotations"),
                            "kubernetes.io/description")), DESC);
    api_resp_free(r);

    /* deleted: created again */

    api_resp_free(ctl_req(env, "DELETE", SA_PATH, NULL, 200));
    r = ctl_wait(env, SA_PATH, 200, NULL, NULL, 2000);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    api_resp_free(ctl_req(env, "DELETE", CA_PATH, NULL, 200));
    r = ctl_wait(env, CA_PATH, 200, NULL, NULL, 2000);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    /* edited: put back */

    api_resp_free(ctl_patch(env, CA_PATH, "{\"data\":{\"ca.crt\":\"x\","
                            "\"other\":\"y\"},\"metadata\":{\"annotations\":"
                            "{\"kubernetes.io/description\":null}}}", 200));

    for (i = 0; i < 100; i++) {
        r = api_call(env, "GET", CA_PATH, NULL, NULL, NULL);

        if (strcmp(ca_crt(r), CTL_TEST_CA) == 0) {
            break;
        }

        api_resp_free(r);
        api_spin(env, 20);
    }

    assert_string_equal(ca_crt(r), CTL_TEST_CA);
    assert_null(ctl_json(r->json, "data.other"));
    assert_non_null(json_object_get(ctl_json(r->json,
                                             "metadata.annotations"),
                                    "kubernetes.io/description"));
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

    m = ctl_start(env, GCP_CTL_SERVICEACCOUNT, NULL, 1);

    create_ns(env, "team");

    r = ctl_wait(env, CA_PATH, 200, NULL, NULL, 2000);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    /* the CA came; the service account controller does not run */

    api_spin(env, 300);
    r = api_call(env, "GET", SA_PATH, NULL, NULL, NULL);
    assert_int_equal(r->status, 404);
    api_resp_free(r);

    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_names(void **state)
{
    assert_int_equal(gcp_ctl_bit("namespace", 9), GCP_CTL_NAMESPACE);
    assert_int_equal(gcp_ctl_bit("namespace-controller", 20),
                     GCP_CTL_NAMESPACE);
    assert_int_equal(gcp_ctl_bit("garbagecollector", 16), GCP_CTL_GC);
    assert_int_equal(gcp_ctl_bit("garbage-collector-controller", 28),
                     GCP_CTL_GC);
    assert_int_equal(gcp_ctl_bit("serviceaccount", 14),
                     GCP_CTL_SERVICEACCOUNT);
    assert_int_equal(gcp_ctl_bit("root-ca-cert-publisher", 22),
                     GCP_CTL_ROOT_CA);
    assert_int_equal(gcp_ctl_bit("root-ca-certificate-publisher-controller",
                                 40), GCP_CTL_ROOT_CA);
    assert_int_equal(gcp_ctl_bit("resourcequota", 13), GCP_CTL_QUOTA);
    assert_int_equal(gcp_ctl_bit("resourcequota-controller", 24),
                     GCP_CTL_QUOTA);
    assert_int_equal(gcp_ctl_bit("clusterrole-aggregation", 23),
                     GCP_CTL_CLUSTERROLE_AGG);
    assert_int_equal(gcp_ctl_bit("clusterrole-aggregation-controller", 34),
                     GCP_CTL_CLUSTERROLE_AGG);
    assert_int_equal(gcp_ctl_bit("namespacex", 10), 0);
    assert_int_equal(gcp_ctl_bit("names", 5), 0);
}


static void
test_leader_election(void **state)
{
    int                 i;
    char                first_acquire[64];
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_api_t          *api2;
    gcp_ctl_manager_t  *a, *b;

    api2 = ctl_api_create(env);

    a = ctl_start(env, 0, "instance-a", 1);
    b = ctl_start_api(env, api2, 0, "instance-b", 0);

    /* one leads, the other waits; the lease says who */

    api_spin(env, 1500);
    assert_true(gcp_ctl_leading(a));
    assert_false(gcp_ctl_leading(b));

    r = api_call(env, "GET", LEASE, NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(ctl_str(r->json, "spec.holderIdentity"),
                        "instance-a");
    assert_int_equal(json_integer_value(ctl_json(r->json,
                         "spec.leaseDurationSeconds")), 1);
    assert_int_equal(json_integer_value(ctl_json(r->json,
                         "spec.leaseTransitions")), 0);
    /* MicroTime: six fractional digits */
    assert_int_equal(strlen(ctl_str(r->json, "spec.renewTime")), 27);
    snprintf(first_acquire, sizeof(first_acquire), "%s",
             ctl_str(r->json, "spec.acquireTime"));
    api_resp_free(r);

    /* renewals keep acquireTime and move renewTime */

    api_spin(env, 300);
    r = api_call(env, "GET", LEASE, NULL, NULL, NULL);
    assert_string_equal(ctl_str(r->json, "spec.acquireTime"),
                        first_acquire);
    api_resp_free(r);

    /* the leader goes: the other takes over once the lease expired */

    ctl_stop(env, a);

    for (i = 0; i < 300 && !gcp_ctl_leading(b); i++) {
        api_spin(env, 10);
    }

    assert_true(gcp_ctl_leading(b));

    r = api_call(env, "GET", LEASE, NULL, NULL, NULL);
    assert_string_equal(ctl_str(r->json, "spec.holderIdentity"),
                        "instance-b");
    assert_int_equal(json_integer_value(ctl_json(r->json,
                         "spec.leaseTransitions")), 1);
    assert_string_not_equal(ctl_str(r->json, "spec.acquireTime"),
                            first_acquire);
    api_resp_free(r);

    /* the new leader runs the controllers */

    create_ns(env, "team");
    r = ctl_wait(env, SA_PATH, 200, NULL, NULL, 2000);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    ctl_stop(env, b);
    gcp_api_destroy(api2);
    api_env_destroy(env);
}


static void
test_same_identity_resumes(void **state)
{
    int                 i;
    api_env_t          *env = api_env_create();
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, 0, "me", 1);
    ctl_stop(env, m);

    /*
     * restarted with the same identity: it leads again at once (well
     * before the lease, 1 s, would have expired)
     */

    m = ctl_start(env, 0, "me", 0);

    for (i = 0; i < 50 && !gcp_ctl_leading(m); i++) {
        api_spin(env, 10);
    }

    assert_true(gcp_ctl_leading(m));

    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_lost_lease_stops(void **state)
{
    int                 i;
    char               *body;
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, 0, "me", 1);

    /* someone else takes the lease: we stop within the renew deadline */

    for (i = 0; i < 60; i++) {
        r = api_call(env, "GET", LEASE, NULL, NULL, NULL);
        json_object_set_new(ctl_json(r->json, "spec"), "holderIdentity",
                            json_string("intruder"));
        body = json_dumps(r->json, JSON_COMPACT);
        assert_non_null(body);
        api_resp_free(api_call(env, "PUT", LEASE, "application/json", body,
                               NULL));
        free(body);
        api_resp_free(r);
        api_spin(env, 20);

        if (!gcp_ctl_leading(m)) {
            break;
        }
    }

    assert_false(gcp_ctl_leading(m));

    ctl_stop(env, m);
    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_sa_and_root_ca_created),
        cmocka_unit_test(test_switched_off),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_leader_election),
        cmocka_unit_test(test_same_identity_resumes),
        cmocka_unit_test(test_lost_lease_stops),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
