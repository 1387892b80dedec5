
/*
 * Unit tests: scheduled compaction (core/server/gcp_compact.c) on LMDB.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_compact.h"
#include "support_api.h"


static void
test_compactor_keeps_one_interval(void **state)
{
    int              i;
    char             body[128];
    int64_t          first_rev;
    api_resp_t      *r;
    api_env_t       *env;
    gcp_compactor_t *c;

    env = api_env_create();

    r = api_call(env, "POST", "/api/v1/namespaces/default/configmaps",
                 "application/json", "{\"metadata\":{\"name\":\"c0\"}}", NULL);
    assert_int_equal(r->status, 201);
    first_rev = atoll(api_str(r->json, "metadata", "resourceVersion", NULL));
    api_resp_free(r);

    c = gcp_compactor_start(api_env_store(env), api_env_loop(env), 500);
    assert_non_null(c);

    /*
     * first tick (500 ms): notes the revision, compacts nothing; the
     * second is 400 ms away when this looks, room for a loaded machine
     */

    api_spin(env, 600);
    assert_int_equal(gcp_compactor_last(c), 0);

    for (i = 1; i < 5; i++) {
        snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"c%d\"}}", i);
        r = api_call(env, "POST", "/api/v1/namespaces/default/configmaps",
                      "application/json", body, NULL);
        assert_int_equal(r->status, 201);
        api_resp_free(r);
    }

    /* second tick: compacts to the revision of the first */

    api_spin(env, 500);
    assert_true(gcp_compactor_last(c) >= first_rev);

    snprintf(body, sizeof(body), "/api/v1/namespaces/default/configmaps?"
             "resourceVersion=%lld&resourceVersionMatch=Exact",
             (long long) first_rev - 1);
    r = api_call(env, "GET", body, NULL, NULL, NULL);
    assert_int_equal(r->status, 410);
    assert_string_equal(api_str(r->json, "reason", NULL), "Expired");
    api_resp_free(r);

    /* the revision compacted to stays readable */

    snprintf(body, sizeof(body), "/api/v1/namespaces/default/configmaps?"
             "resourceVersion=%lld&resourceVersionMatch=Exact",
             (long long) gcp_compactor_last(c));
    r = api_call(env, "GET", body, NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    gcp_compactor_stop(c);
    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_compactor_keeps_one_interval),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
