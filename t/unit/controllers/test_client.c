
/*
 * Unit tests: the in-process API client (core/controllers/gcp_client.c).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>

#include "gcp_client.h"
#include "support_api.h"


typedef struct {
    int           done;
    int           status;
    char          name[64];
    gcp_arena_t  *a;            /* got_and_free(): freed when answered */
} result_t;


static void
got(void *arg, gcp_client_resp_t *resp)
{
    result_t    *r = arg;
    const char  *n;

    r->done = 1;
    r->status = resp->status;

    n = api_str(resp->json, "metadata", "name", NULL);
    snprintf(r->name, sizeof(r->name), "%s", n ? n : "");
}


static void
wait_for(api_env_t *env, result_t *r)
{
    while (!r->done) {
        api_spin(env, 5);
    }
}


static void
test_client_calls(void **state)
{
    result_t      r;
    api_env_t    *env = api_env_create();
    gcp_arena_t  *a = gcp_arena_create(0);

    memset(&r, 0, sizeof(r));
    gcp_client_call(api_env_api(env), a, "POST",
                    "/api/v1/namespaces/default/configmaps", NULL,
                    "{\"metadata\":{\"name\":\"from-client\"}}", NULL, got,
                    &r);
    wait_for(env, &r);
    assert_int_equal(r.status, 201);
    assert_string_equal(r.name, "from-client");

    memset(&r, 0, sizeof(r));
    gcp_client_call(api_env_api(env), a, "GET",
                    "/api/v1/namespaces/default/configmaps/from-client?"
                    "resourceVersion=0", NULL, NULL, NULL, got, &r);
    wait_for(env, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.name, "from-client");

    memset(&r, 0, sizeof(r));
    gcp_client_call(api_env_api(env), a, "DELETE",
                    "/api/v1/namespaces/default/configmaps/nosuch", NULL,
                    NULL, NULL, got, &r);
    wait_for(env, &r);
    assert_int_equal(r.status, 404);

    gcp_arena_destroy(a);
    api_env_destroy(env);
}


/* a caller that frees the request's arena as soon as it is answered */
static void
got_and_free(void *arg, gcp_client_resp_t *resp)
{
    result_t  *r = arg;

    gcp_arena_destroy(r->a);
    r->a = NULL;

    r->done = 1;
    r->status = resp->status;
}


/*
 * A refusal by an admission plugin (NamespaceLifecycle: a create in a
 * terminating namespace) answers, then the plugin ends its step: the
 * caller, which frees the arena when answered, is called after that
 * (under ASan a use after free otherwise).
 */
static void
test_client_caller_frees_on_refusal(void **state)
{
    result_t     r;
    api_resp_t  *resp;
    api_env_t   *env = api_env_create();

    resp = api_call(env, "POST", "/api/v1/namespaces", NULL,
                    "{\"metadata\":{\"name\":\"ending\"}}", NULL);
    assert_int_equal(resp->status, 201);
    api_resp_free(resp);

    /* no namespace controller here: it stays Terminating */
    resp = api_call(env, "DELETE", "/api/v1/namespaces/ending", NULL, NULL,
                    NULL);
    assert_int_equal(resp->status, 200);
    api_resp_free(resp);

    memset(&r, 0, sizeof(r));
    r.a = gcp_arena_create(0);

    gcp_client_call(api_env_api(env), r.a, "POST",
                    "/api/v1/namespaces/ending/configmaps", NULL,
                    "{\"metadata\":{\"name\":\"late\"}}", NULL,
                    got_and_free, &r);
    wait_for(env, &r);
    assert_int_equal(r.status, 403);
    assert_null(r.a);

    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_client_calls),
        cmocka_unit_test(test_client_caller_frees_on_refusal),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
