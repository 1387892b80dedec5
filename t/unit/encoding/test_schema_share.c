
/*
 * Unit tests: the embedded definitions shared by every set of a process
 * (core/encoding/gcp_schema.c, gcp_schema_embedded_share()): what nginx's
 * master parses once before the workers fork.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_schema.h"


#define CM  "io.k8s.api.core.v1.ConfigMap"


/* Counts the names a walk visits; fails on one visited twice. */
static size_t
test_walk(const gcp_schema_set_t *set, const char *name, const json_t **found)
{
    size_t              n;
    json_t             *seen;
    const char         *k;
    const json_t       *def;
    gcp_schema_iter_t   i = GCP_SCHEMA_ITER;

    seen = json_object();
    assert_non_null(seen);

    n = 0;
    *found = NULL;

    while ((k = gcp_schema_next(set, &i, &def)) != NULL) {
        if (json_object_get(seen, k)) {
            fail_msg("%s visited twice", k);
        }

        assert_int_equal(json_object_set_new(seen, k, json_true()), 0);
        assert_ptr_equal(gcp_schema_get(set, k), def);

        if (strcmp(k, name) == 0) {
            *found = def;
        }

        n++;
    }

    /* the end stays the end */
    assert_null(gcp_schema_next(set, &i, &def));

    json_decref(seen);

    return n;
}


static void
test_shared(void **state)
{
    size_t             own, n;
    json_t            *mine, *widget;
    const char        *err;
    const json_t      *def, *cm;
    gcp_schema_set_t  *plain, *a, *b;

    /* before sharing: a set parses its own copies */
    plain = gcp_schema_set_create();
    assert_non_null(plain);
    assert_int_equal(gcp_schema_set_load_embedded(plain, &err), GCP_OK);
    own = test_walk(plain, CM, &def);
    assert_true(own > 100);
    assert_non_null(def);

    assert_int_equal(gcp_schema_embedded_share(&err), GCP_OK);
    assert_int_equal(gcp_schema_embedded_share(&err), GCP_OK);

    a = gcp_schema_set_create();
    b = gcp_schema_set_create();
    assert_non_null(a);
    assert_non_null(b);

    /* a definition the set had is replaced by the embedded one */
    mine = json_pack("{s:s}", "type", "string");
    assert_int_equal(gcp_schema_set_put(a, CM, mine), GCP_OK);
    json_decref(mine);

    assert_int_equal(gcp_schema_set_load_embedded(a, &err), GCP_OK);
    assert_int_equal(gcp_schema_set_load_embedded(b, &err), GCP_OK);

    /* both sets see the same nodes, not copies, and the plain set's */
    cm = gcp_schema_get(a, CM);
    assert_non_null(cm);
    assert_ptr_equal(cm, gcp_schema_get(b, CM));
    assert_ptr_not_equal(cm, gcp_schema_get(plain, CM));
    assert_true(json_equal((json_t *) cm,
                           (json_t *) gcp_schema_get(plain, CM)));
    assert_string_equal(gcp_schema_find_gvk(a, "", "v1", "ConfigMap"), CM);
    assert_string_equal(gcp_schema_def_name(a, cm), CM);

    assert_int_equal(test_walk(a, CM, &def), own);
    assert_ptr_equal(def, cm);

    /* a set's own definitions come first and hide a shared one */
    widget = json_pack("{s:s, s:[{s:s, s:s, s:s}]}", "type", "object",
                       "x-kubernetes-group-version-kind", "group", "",
                       "version", "v1", "kind", "ConfigMap");
    assert_non_null(widget);
    assert_int_equal(gcp_schema_set_put(a, "a.v1.Widget", widget), GCP_OK);
    assert_int_equal(gcp_schema_set_put(a, CM, widget), GCP_OK);
    json_decref(widget);

    assert_ptr_equal(gcp_schema_get(a, CM), widget);
    assert_ptr_equal(gcp_schema_get(b, CM), cm);
    assert_string_equal(gcp_schema_find_gvk(a, "", "v1", "ConfigMap"),
                        "a.v1.Widget");
    assert_string_equal(gcp_schema_def_name(a, widget), "a.v1.Widget");

    n = test_walk(a, CM, &def);
    assert_int_equal(n, own + 1);
    assert_ptr_equal(def, widget);
    assert_int_equal(test_walk(b, CM, &def), own);

    /* removing it shows the shared one again; the other set never changed */
    gcp_schema_set_del(a, CM);
    gcp_schema_set_del(a, "a.v1.Widget");
    assert_ptr_equal(gcp_schema_get(a, CM), cm);
    assert_null(gcp_schema_get(a, "a.v1.Widget"));
    assert_int_equal(test_walk(a, CM, &def), own);
    assert_ptr_equal(def, cm);

    gcp_schema_set_free(a);

    /* the shared definitions outlive the sets that used them */
    assert_ptr_equal(gcp_schema_get(b, CM), cm);
    assert_string_equal(gcp_schema_find_gvk(b, "", "v1", "ConfigMap"), CM);

    gcp_schema_set_free(b);
    gcp_schema_set_free(plain);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_shared),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
