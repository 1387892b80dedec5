
/*
 * Unit tests: kubectl's JSONPath subset (core/encoding/gcp_jsonpath.c), as
 * printer columns, selectable fields and scale paths use it.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "gcp_jsonpath.h"
#include "gcp_json.h"


static const char  doc[] =
    "{\"metadata\":{\"name\":\"w\",\"labels\":{\"app.kubernetes.io/name\":"
    "\"x\"}},\"spec\":{\"replicas\":3,\"items\":[{\"n\":\"a\"},{\"n\":\"b\"}],"
    "\"ok\":true},\"status\":{\"conditions\":[{\"type\":\"Progressing\","
    "\"status\":\"True\"},{\"type\":\"Ready\",\"status\":\"False\"}]}}";


static json_t *
load(void)
{
    json_t  *v;

    v = json_loads(doc, 0, NULL);
    assert_non_null(v);

    return v;
}


/* The first result of path printed as kubectl prints it, or "<none>". */

static char *
first(const json_t *v, const char *path)
{
    char             *s;
    json_t           *r;
    gcp_buf_t         b;
    const char       *err;
    gcp_arena_t      *a;
    gcp_jsonpath_t   *jp;

    jp = gcp_jsonpath_compile(path, &err);
    if (jp == NULL) {
        fail_msg("%s: %s", path, err);
    }

    r = gcp_jsonpath_first(jp, v);
    a = gcp_arena_create(0);
    gcp_buf_init(&b, a);

    if (r == NULL) {
        gcp_buf_addstr(&b, "<none>");

    } else {
        gcp_jsonpath_print(&b, r);
    }

    s = strdup(gcp_buf_cstr(&b));
    gcp_arena_destroy(a);
    gcp_jsonpath_free(jp);

    return s;
}


static void
check(const json_t *v, const char *path, const char *want)
{
    char  *got;

    got = first(v, path);
    assert_string_equal(got, want);
    free(got);
}


static void
test_jsonpath_fields_and_indexes(void **state)
{
    json_t  *v = load();

    check(v, ".metadata.name", "w");
    check(v, ".spec.replicas", "3");
    check(v, ".spec.ok", "true");
    check(v, ".spec.items[0].n", "a");
    check(v, ".spec.items[-1].n", "b");
    check(v, ".spec.items[5].n", "<none>");
    check(v, ".spec.items[*].n", "a");
    check(v, ".spec.missing", "<none>");
    check(v, ".spec.items", "[{\"n\":\"a\"},{\"n\":\"b\"}]");
    check(v, ".metadata.labels.app\\.kubernetes\\.io/name", "x");
    check(v, ".metadata.labels['app.kubernetes.io/name']", "x");
    check(v, ".status.conditions[?(@.type==\"Ready\")].status", "False");
    check(v, ".status.conditions[?(@.type == 'Progressing')].status",
          "True");
    check(v, ".status.conditions[?(@.type!=\"Progressing\")].type",
          "Ready");
    check(v, ".status.conditions[?(@.type==\"Gone\")].status", "<none>");

    json_decref(v);
}


static void
test_jsonpath_errors(void **state)
{
    size_t           i;
    const char      *err;
    gcp_jsonpath_t  *jp;

    static const char * const  bad[] = {
        "spec", ".spec[", ".spec[1", ".a[?(@.x=1)]", ".a[?(x==1)]",
        ".a['unterminated]", ".", NULL
    };

    for (i = 0; bad[i]; i++) {
        jp = gcp_jsonpath_compile(bad[i], &err);

        if (strcmp(bad[i], ".") == 0) {
            /* the root itself: valid, simple */
            assert_non_null(jp);
            assert_true(gcp_jsonpath_simple(jp));
            gcp_jsonpath_free(jp);
            continue;
        }

        if (jp) {
            fail_msg("accepted %s", bad[i]);
        }

        assert_non_null(err);
    }

    jp = gcp_jsonpath_compile(".spec.size", &err);
    assert_true(gcp_jsonpath_simple(jp));
    gcp_jsonpath_free(jp);

    jp = gcp_jsonpath_compile(".spec.items[0]", &err);
    assert_false(gcp_jsonpath_simple(jp));
    gcp_jsonpath_free(jp);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_jsonpath_fields_and_indexes),
        cmocka_unit_test(test_jsonpath_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
