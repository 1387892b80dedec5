#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <time.h>
#include "gcp_op.h"
#include "gcp_rbac.h"
#include "support_rbac.h"

static void
test_bench(void **state)
{
    api_env_t *env = rbac_env(NULL);
    gcp_authorizer_t *az = api_env_api(env)->authorizer;
    gcp_authz_attrs_t at;
    const char *reason;
    struct timespec t0, t1;
    int i, n = 200000, allowed = 0;
    const gcp_user_t *u = rbac_user("bench-reader", "system:authenticated", NULL);
    gcp_arena_t *a;

    rbac_status(env, &rbac_admin, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"bench\"}}");
    rbac_status(env, &rbac_admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/bench/roles", "{\"metadata\":{\"name\":\"r\"},\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],\"verbs\":[\"get\"]}]}");
    rbac_status(env, &rbac_admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/bench/rolebindings", "{\"metadata\":{\"name\":\"r\"},\"roleRef\":{\"kind\":\"Role\",\"name\":\"r\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"bench-reader\"}]}");
    rbac_sync(env);
    memset(&at, 0, sizeof(at));
    at.user = u; at.verb = "get"; at.resource_request = 1; at.group = ""; at.version = "v1";
    at.resource = "configmaps"; at.subresource = ""; at.ns = "bench"; at.name = "one"; at.path = "/api/v1/namespaces/bench/configmaps/one";
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (i = 0; i < n; i++) {
        a = gcp_arena_create(0);
        reason = NULL;
        allowed += az->authorize(az, a, &at, &reason) == GCP_AUTHZ_ALLOW;
        gcp_arena_destroy(a);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("allowed %d/%d: %.3f us per decision\n", allowed, n, ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n / 1000.0);
    api_env_destroy(env);
}

int main(void) {
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_bench) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
