
/*
 * Unit tests: APIService priorities (core/aggregator/gcp_agg_priority.c):
 * kube-apiserver's table, and Kubernetes' version order (meta/gcp_version)
 * on the example of the APIService documentation.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "gcp_aggregator.h"
#include "gcp_version.h"


static int
version_order(const void *a, const void *b)
{
    return -gcp_version_compare(*(const char * const *) a,
                                *(const char * const *) b);
}


/* The example of the APIServiceSpec.versionPriority documentation. */
static void
test_version_order(void **state)
{
    size_t  i;

    const char  *sorted[] = {
        "v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v12alpha1",
        "v11alpha2", "foo1", "foo10"
    };
    const char  *shuffled[] = {
        "foo10", "v1", "v11alpha2", "v3beta1", "foo1", "v10", "v12alpha1",
        "v2", "v10beta3", "v11beta2"
    };

    qsort(shuffled, 10, sizeof(char *), version_order);

    for (i = 0; i < 10; i++) {
        assert_string_equal(shuffled[i], sorted[i]);
    }
}


static void
test_builtin_priorities(void **state)
{
    int  g, v;

    assert_true(gcp_agg_builtin_priority("", "v1", &g, &v));
    assert_int_equal(g, 18000);
    assert_int_equal(v, 1);

    assert_true(gcp_agg_builtin_priority("rbac.authorization.k8s.io", "v1",
                                         &g, &v));
    assert_int_equal(g, 17000);
    assert_int_equal(v, 15);

    assert_true(gcp_agg_builtin_priority("flowcontrol.apiserver.k8s.io",
                                         "v1beta3", &g, &v));
    assert_int_equal(g, 16100);
    assert_int_equal(v, 18);

    assert_false(gcp_agg_builtin_priority("things.example.com", "v1", &g,
                                          &v));
    assert_false(gcp_agg_builtin_priority("apiregistration.k8s.io", "v1",
                                          &g, &v));
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_version_order),
        cmocka_unit_test(test_builtin_priorities),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
