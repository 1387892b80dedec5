
/*
 * Unit tests: Kubernetes version priorities (core/meta/gcp_version.c),
 * with the cases of apimachinery's CompareKubeAwareVersionStrings tests.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "gcp_version.h"


static int
cmp_desc(const void *a, const void *b)
{
    return gcp_version_compare(*(const char * const *) b,
                               *(const char * const *) a);
}


static void
test_version_order(void **state)
{
    size_t       i;
    const char  *v[] = {
        "foo1", "v1alpha2", "v10beta3", "v1", "v3beta1", "v11alpha2",
        "v2", "v12alpha1", "foo10", "v1beta1", "v10", "v1alpha1", "v11beta2",
        "foo2"
    };

    /* upstream's expected order, highest priority first */
    static const char * const  want[] = {
        "v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v1beta1",
        "v12alpha1", "v11alpha2", "v1alpha2", "v1alpha1", "foo1", "foo10",
        "foo2"
    };

    qsort(v, sizeof(v) / sizeof(v[0]), sizeof(v[0]), cmp_desc);

    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        assert_string_equal(v[i], want[i]);
    }
}


static void
test_version_compare(void **state)
{
    assert_int_equal(gcp_version_compare("v1", "v1"), 0);
    assert_true(gcp_version_compare("v1", "v1beta1") > 0);
    assert_true(gcp_version_compare("v1beta1", "v1") < 0);
    assert_true(gcp_version_compare("v1beta2", "v1beta1") > 0);
    assert_true(gcp_version_compare("v2alpha1", "v1beta1") < 0);
    assert_true(gcp_version_compare("v1", "zzz") > 0);
    assert_true(gcp_version_compare("abc", "abd") > 0);
    assert_true(gcp_version_is_kube("v1"));
    assert_true(gcp_version_is_kube("v3alpha12"));
    assert_false(gcp_version_is_kube("v1gamma1"));
    assert_false(gcp_version_is_kube("v"));
    assert_false(gcp_version_is_kube("V1"));
    assert_false(gcp_version_is_kube("v1beta"));
    assert_false(gcp_version_is_kube("v99999999999999"));
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_version_order),
        cmocka_unit_test(test_version_compare),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
