
/*
 * Unit tests: arena allocator and buffers (core/base/gcp_arena.c).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "gcp_core.h"


static int  cleanup_calls;


static void
count_cleanup(void *data)
{
    cleanup_calls += *(int *) data;
}


static void
test_alloc_and_cleanup(void **state)
{
    int           i, one = 1, ten = 10;
    char         *p;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    assert_non_null(a);

    for (i = 0; i < 1000; i++) {
        p = gcp_alloc(a, (size_t) (i % 97) + 1);
        assert_non_null(p);
        assert_int_equal((uintptr_t) p % 16, 0);
        memset(p, 'x', (size_t) (i % 97) + 1);
    }

    p = gcp_alloc(a, 1 << 20);
    assert_non_null(p);
    memset(p, 0, 1 << 20);

    cleanup_calls = 0;
    assert_int_equal(gcp_arena_cleanup(a, count_cleanup, &one), GCP_OK);
    assert_int_equal(gcp_arena_cleanup(a, count_cleanup, &ten), GCP_OK);
    gcp_arena_destroy(a);
    assert_int_equal(cleanup_calls, 11);
}


static void
test_strings(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(64);

    assert_string_equal(gcp_strndup(a, "hello world", 5), "hello");
    assert_string_equal(gcp_sprintf(a, "%s-%d", "rv", 42), "rv-42");
    assert_string_equal(gcp_strdup(a, ""), "");

    gcp_arena_destroy(a);
}


static void
test_buf(void **state)
{
    int           i;
    gcp_buf_t    *b;
    gcp_arena_t  *a = gcp_arena_create(0);

    b = gcp_alloc(a, sizeof(gcp_buf_t));
    gcp_buf_init(b, a);

    for (i = 0; i < 10000; i++) {
        gcp_buf_printf(b, "%d,", i % 10);
    }

    assert_int_equal(b->len, 20000);
    assert_false(gcp_buf_failed(b));
    assert_int_equal(gcp_buf_cstr(b)[19998], '9');

    b->len = 0;
    gcp_buf_add_int(b, -9007199254740993LL);
    gcp_buf_addc(b, ' ');
    gcp_buf_add_int(b, 0);
    assert_string_equal(gcp_buf_cstr(b), "-9007199254740993 0");

    gcp_arena_destroy(a);
}


static void
test_error_table(void **state)
{
    assert_int_equal(gcp_error_info(GCP_ENOTFOUND)->http_status, 404);
    assert_string_equal(gcp_error_info(GCP_ECONFLICT)->reason, "Conflict");
    assert_string_equal(gcp_error_info(GCP_EEXISTS)->reason,
                        "AlreadyExists");
    assert_int_equal(gcp_error_info(GCP_EINVALID)->http_status, 422);
    assert_int_equal(gcp_error_info(9999)->http_status, 500);
    assert_int_equal(gcp_error_info(-1)->http_status, 500);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_alloc_and_cleanup),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_buf),
        cmocka_unit_test(test_error_table),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
