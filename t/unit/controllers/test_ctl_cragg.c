
/*
 * Unit tests: the ClusterRole aggregation controller
 * (core/controllers/gcp_ctl_cragg.c over gcp_rbac_aggregate.c) runs only in
 * the leader's run of the controllers, and only when it is not switched off;
 * the bootstrap roles admin, edit and view get their rules from it.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_op.h"
#include "support_ctl.h"


#define CR_PATH   "/apis/rbac.authorization.k8s.io/v1/clusterroles"
#define LABEL     "cragg.example.com/aggregate-to-agg"


/* The rules of the ClusterRole name: a new reference, or NULL. */
static json_t *
rules_of(api_env_t *env, const char *name)
{
    char         path[256];
    json_t      *rules;
    api_resp_t  *r;

    snprintf(path, sizeof(path), CR_PATH "/%s", name);

    r = ctl_req(env, "GET", path, NULL, 200);
    rules = json_incref(json_object_get(r->json, "rules"));
    api_resp_free(r);

    return rules;
}


static size_t
nrules(api_env_t *env, const char *name)
{
    size_t   n;
    json_t  *rules;

    rules = rules_of(env, name);
    n = json_array_size(rules);
    json_decref(rules);

    return n;
}


/* Runs the loop until the ClusterRole name has n rules, for ms at most. */
static void
wait_nrules(api_env_t *env, const char *name, size_t n, int ms)
{
    int  waited;

    for (waited = 0; nrules(env, name) != n; waited += 10) {
        if (waited >= ms) {
            fail_msg("clusterrole %s has %zu rules, expected %zu", name,
                     nrules(env, name), n);
        }

        api_spin(env, 10);
    }
}


static void
create_role(api_env_t *env, const char *name, const char *resource)
{
    char  body[512];

    snprintf(body, sizeof(body),
             "{\"metadata\":{\"name\":\"%s\",\"labels\":{\"" LABEL
             "\":\"true\"}},\"rules\":[{\"apiGroups\":[\"\"],"
             "\"resources\":[\"%s\"],\"verbs\":[\"get\"]}]}",
             name, resource);

    api_resp_free(ctl_req(env, "POST", CR_PATH, body, 201));
}


/* Nothing is aggregated: the target and the bootstrap roles stay empty. */
static void
assert_not_aggregated(api_env_t *env)
{
    api_spin(env, 300);

    assert_int_equal(nrules(env, "agg"), 0);
    assert_int_equal(nrules(env, "admin"), 0);
    assert_int_equal(nrules(env, "edit"), 0);
    assert_int_equal(nrules(env, "view"), 0);
}


static void
test_aggregation_follows_the_switch(void **state)
{
    json_t             *view, *to_view;
    gcp_api_t          *api2;
    api_env_t          *env = api_env_create();
    gcp_ctl_manager_t  *m, *follower;

    api_resp_free(ctl_req(env, "POST", CR_PATH,
                          "{\"metadata\":{\"name\":\"agg\"},"
                          "\"aggregationRule\":{\"clusterRoleSelectors\":"
                          "[{\"matchLabels\":{\"" LABEL "\":\"true\"}}]}}",
                          201));
    create_role(env, "part-a", "configmaps");

    /* no controllers: no aggregation */

    assert_not_aggregated(env);

    /* the controllers lead, the aggregation switched off */

    m = ctl_start(env, GCP_CTL_CLUSTERROLE_AGG, NULL, 1);
    assert_not_aggregated(env);

    /* another instance with every controller on, which does not lead */

    api2 = ctl_api_create(env);
    follower = ctl_start_api(env, api2, 0, "follower", 0);
    assert_false(gcp_ctl_leading(follower));
    assert_not_aggregated(env);

    ctl_stop(env, follower);
    gcp_api_destroy(api2);
    ctl_stop(env, m);

    /* switched on: the roles get their rules */

    m = ctl_start(env, 0, NULL, 1);

    wait_nrules(env, "agg", 1, 2000);
    wait_nrules(env, "admin", 25, 2000);

    view = rules_of(env, "view");
    to_view = rules_of(env, "system:aggregate-to-view");
    assert_true(json_array_size(to_view) > 0);
    assert_true(json_equal(view, to_view));
    json_decref(view);
    json_decref(to_view);

    assert_true(nrules(env, "edit") > nrules(env, "view"));

    create_role(env, "part-b", "secrets");
    wait_nrules(env, "agg", 2, 2000);

    /* the run stopped: so did the aggregation */

    ctl_stop(env, m);

    create_role(env, "part-c", "events");
    api_spin(env, 300);
    assert_int_equal(nrules(env, "agg"), 2);

    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_aggregation_follows_the_switch),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
