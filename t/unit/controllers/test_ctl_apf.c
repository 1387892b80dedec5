
/*
 * Unit tests: the priority-and-fairness-config controller
 * (core/controllers/gcp_ctl_apf.c): the Dangling condition of FlowSchemas,
 * and the configuration ensurer when the controllers start.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_fc_types.h"
#include "support_ctl.h"


#define FC      "/apis/" GCP_FC_GROUP "/v1"
#define FS      FC "/flowschemas"
#define PL      FC "/prioritylevelconfigurations"
#define NCS     "spec.limited.nominalConcurrencyShares"


/* Runs the loop until the integer at field of GET path is n. */
static void
wait_int(api_env_t *env, const char *path, const char *field, json_int_t n,
    int ms)
{
    int          waited;
    json_int_t   v;
    api_resp_t  *r;

    for (waited = 0; /* void */; waited += 10) {
        r = ctl_req(env, "GET", path, NULL, 200);
        v = json_integer_value(ctl_json(r->json, field));
        api_resp_free(r);

        if (v == n) {
            return;
        }

        if (waited >= ms) {
            fail_msg("%s %s is %lld, expected %lld", path, field,
                     (long long) v, (long long) n);
        }

        api_spin(env, 10);
    }
}


/* Runs the loop until the autoupdate-spec annotation of path is value. */
static void
wait_autoupdate(api_env_t *env, const char *path, const char *value, int ms)
{
    int          waited, same;
    json_t      *notes;
    const char  *v;
    api_resp_t  *r;

    for (waited = 0; /* void */; waited += 10) {
        r = ctl_req(env, "GET", path, NULL, 200);
        notes = ctl_json(r->json, "metadata.annotations");
        v = json_string_value(json_object_get(notes, GCP_FC_AUTOUPDATE));
        same = v && strcmp(v, value) == 0;
        api_resp_free(r);

        if (same) {
            return;
        }

        if (waited >= ms) {
            fail_msg("%s: autoupdate-spec is not %s", path, value);
        }

        api_spin(env, 10);
    }
}


static void
test_dangling(void **state)
{
    api_resp_t         *r;
    gcp_ctl_manager_t  *m;
    api_env_t          *env = api_env_create();

    m = ctl_start(env, 0, NULL, 1);

    api_resp_free(ctl_req(env, "POST", FS,
                          "{\"metadata\":{\"name\":\"fs-x\"},\"spec\":{"
                          "\"priorityLevelConfiguration\":{\"name\":"
                          "\"pl-x\"},\"matchingPrecedence\":500}}", 201));

    r = ctl_wait(env, FS "/fs-x", 200, "status.conditions.0.status",
                 "True", 3000);
    assert_string_equal(ctl_str(r->json, "status.conditions.0.type"),
                        "Dangling");
    assert_string_equal(ctl_str(r->json, "status.conditions.0.reason"),
                        "NotFound");
    api_resp_free(r);

    /* the level appears: no longer dangling */

    api_resp_free(ctl_req(env, "POST", PL,
                          "{\"metadata\":{\"name\":\"pl-x\"},\"spec\":{"
                          "\"type\":\"Limited\",\"limited\":{"
                          "\"nominalConcurrencyShares\":1,\"limitResponse\":"
                          "{\"type\":\"Reject\"}}}}", 201));

    r = ctl_wait(env, FS "/fs-x", 200, "status.conditions.0.status",
                 "False", 3000);
    assert_string_equal(ctl_str(r->json, "status.conditions.0.reason"),
                        "Found");
    assert_int_equal(json_array_size(ctl_json(r->json, "status.conditions")),
                     1);
    api_resp_free(r);

    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_ensurer(void **state)
{
    gcp_ctl_manager_t  *m;
    api_env_t          *env = api_env_create();

    /* before the controllers run: a suggested level deleted, ... */

    api_resp_free(ctl_req(env, "DELETE", PL "/workload-low", NULL, 200));

    /* ... a mandatory one's annotation changed (not its spec: fixed), ... */

    api_resp_free(ctl_patch(env, PL "/catch-all",
                            "{\"metadata\":{\"annotations\":{"
                            "\"" GCP_FC_AUTOUPDATE "\":\"false\"}}}", 200));

    /* ... a suggested one changed, no longer updated automatically, ... */

    api_resp_free(ctl_patch(env, PL "/global-default",
                            "{\"metadata\":{\"annotations\":{"
                            "\"" GCP_FC_AUTOUPDATE "\":\"false\"}},"
                            "\"spec\":{\"limited\":{"
                            "\"nominalConcurrencyShares\":33}}}", 200));

    /* ... and one the bootstrap configuration no longer has */

    api_resp_free(ctl_req(env, "POST", PL,
                          "{\"metadata\":{\"name\":\"retired\","
                          "\"annotations\":{\"" GCP_FC_AUTOUPDATE "\":"
                          "\"true\"}},\"spec\":{\"type\":\"Limited\","
                          "\"limited\":{\"nominalConcurrencyShares\":1,"
                          "\"limitResponse\":{\"type\":\"Reject\"}}}}",
                          201));

    m = ctl_start(env, 0, NULL, 1);

    api_resp_free(ctl_wait(env, PL "/workload-low", 200, NULL, NULL, 3000));
    wait_int(env, PL "/workload-low", NCS, 100, 0);
    wait_autoupdate(env, PL "/catch-all", "true", 3000);
    api_resp_free(ctl_wait(env, PL "/retired", 404, NULL, NULL, 3000));

    /* the changed suggested level is left alone */

    wait_int(env, PL "/global-default", NCS, 33, 0);
    wait_autoupdate(env, PL "/global-default", "false", 0);

    ctl_stop(env, m);
    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_dangling),
        cmocka_unit_test(test_ensurer),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
