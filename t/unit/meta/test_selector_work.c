
/*
 * Unit tests: the work of label selectors on long value lists, counted in
 * string comparisons (this program's strcmp() counts the calls the core
 * makes), not timed.  One "app in (0,...,11999)" of 61 KB cost about 72
 * million comparisons (insertion sorts and a linear set look-up per
 * value), a second of CPU: parsing and matching are n log n now.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_selector.h"


static unsigned long  compared;


int
strcmp(const char *a, const char *b)
{
    compared++;

    while (*a != '\0' && *a == *b) {
        a++;
        b++;
    }

    return (int) (unsigned char) *a - (int) (unsigned char) *b;
}


#define N  12000


static void
test_long_value_list(void **state)
{
    int                    i;
    char                   buf[32];
    json_t                *labels;
    gcp_buf_t              b;
    const char            *msg, *s;
    gcp_arena_t           *a;
    gcp_label_selector_t  *sel;

    a = gcp_arena_create(0);
    gcp_buf_init(&b, a);

    /* every value twice, in descending order */

    gcp_buf_addstr(&b, "app in (");

    for (i = 2 * N - 1; i >= 0; i--) {
        snprintf(buf, sizeof(buf), "%s%d", i < 2 * N - 1 ? "," : "", i / 2);
        gcp_buf_addstr(&b, buf);
    }

    gcp_buf_addstr(&b, ")");
    s = gcp_buf_cstr(&b);

    compared = 0;
    assert_int_equal(gcp_label_selector_parse(a, s, strlen(s), &sel, &msg),
                     GCP_OK);

    /* n log n: about 24000 * 15 comparisons per sort */
    if (compared > 2000000) {
        fail_msg("%lu comparisons to parse %d values", compared, 2 * N);
    }

    labels = json_pack("{s:s}", "app", "5000");
    compared = 0;

    for (i = 0; i < 100; i++) {
        assert_true(gcp_label_selector_matches(sel, labels));
    }

    assert_true(compared < 100 * 64);
    json_decref(labels);

    labels = json_pack("{s:s}", "app", "12000");
    assert_false(gcp_label_selector_matches(sel, labels));
    json_decref(labels);

    /* the set is unique and sorted: the string form shows it */
    s = gcp_label_selector_string(a, sel);
    assert_non_null(s);
    assert_int_equal(strncmp(s, "app in (0,1,10,100,1000,10000,10001,", 36),
                     0);
    assert_null(strstr(s, "5000,5000"));

    gcp_arena_destroy(a);
}


static void
test_many_requirements(void **state)
{
    int                    i;
    char                   buf[32];
    gcp_buf_t              b;
    const char            *msg, *s;
    gcp_arena_t           *a;
    gcp_label_selector_t  *sel;

    a = gcp_arena_create(0);
    gcp_buf_init(&b, a);

    /* keys in descending order, each twice (x and its !=): kept stable */

    for (i = N - 1; i >= 0; i--) {
        snprintf(buf, sizeof(buf), "%sk%05d=a,k%05d!=b",
                 i < N - 1 ? "," : "", i, i);
        gcp_buf_addstr(&b, buf);
    }

    s = gcp_buf_cstr(&b);

    compared = 0;
    assert_int_equal(gcp_label_selector_parse(a, s, strlen(s), &sel, &msg),
                     GCP_OK);

    if (compared > 2000000) {
        fail_msg("%lu comparisons to parse %d requirements", compared,
                 2 * N);
    }

    s = gcp_label_selector_string(a, sel);
    assert_non_null(s);
    assert_int_equal(strncmp(s, "k00000=a,k00000!=b,k00001=a,k00001!=b,",
                             38), 0);

    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_long_value_list),
        cmocka_unit_test(test_many_requirements),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
