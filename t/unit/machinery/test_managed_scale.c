
/*
 * Unit tests: managedFields through a scale subresource
 * (machinery/gcp_managed_scale.c), the cases of upstream's
 * scalehandler_test.go (apps/v1 with .spec.replicas): the Scale's entries
 * made of the object's, then the object's made of the Scale's after a
 * write, by the same or another manager and operation.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_managed.h"
#include "support_schema.h"


static const gcp_managed_scale_path_t  paths[] = {
    { "apps/v1", ".spec.replicas" },
    { "apps/v2", ".spec.count" },
    { "apps/v3", NULL },
};

#define NPATHS  (sizeof(paths) / sizeof(paths[0]))


/* An entry: manager, operation, apiVersion, fieldsV1, subresource. */

#define E(m, op, av, fs, sub)                                                \
    "{\"manager\":\"" m "\",\"operation\":\"" op "\",\"apiVersion\":\""      \
    av "\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":" fs                     \
    sub "}"

#define SCALE  ",\"subresource\":\"scale\""

#define REPLICAS       "{\"f:spec\":{\"f:replicas\":{}}}"
#define REPL_SELECTOR  "{\"f:spec\":{\"f:replicas\":{},\"f:selector\":{}}}"
#define SELECTOR       "{\"f:spec\":{\"f:selector\":{}}}"


static void
to_scale(const char *parent, const char *expected)
{
    json_t  *p;

    p = schema_json(parent);
    schema_expect_json(gcp_managed_scale_entries(p, paths, NPATHS),
                       expected);
    json_decref(p);
}


static void
to_parent(const char *parent, const char *scale, const char *expected)
{
    json_t  *p, *s;

    p = schema_json(parent);
    s = schema_json(scale);
    schema_expect_json(gcp_managed_scale_parent(p, s, paths, NPATHS,
                                                "apps/v1"),
                       expected);
    json_decref(p);
    json_decref(s);
}


static void
test_to_subresource(void **state)
{
    /* only the entries that own replicas, in autoscaling/v1, time kept */

    to_scale("[" E("manager-1", "Apply", "apps/v1",
                   "{\"f:spec\":{\"f:another-field\":{}}}", "") ","
             "{\"manager\":\"manager-2\",\"operation\":\"Apply\","
             "\"apiVersion\":\"apps/v1\",\"time\":\"2013-02-03T00:00:00Z\","
             "\"fieldsType\":\"FieldsV1\",\"fieldsV1\":" REPLICAS "}]",
             "[{\"manager\":\"manager-2\",\"operation\":\"Apply\","
             "\"apiVersion\":\"autoscaling/v1\","
             "\"time\":\"2013-02-03T00:00:00Z\",\"fieldsType\":\"FieldsV1\","
             "\"fieldsV1\":" REPLICAS "}]");

    /* every entry, a subresource's too */

    to_scale("[" E("manager-1", "Apply", "apps/v1", REPLICAS, "") ","
             E("manager-2", "Apply", "apps/v1", REPLICAS, "") ","
             E("manager-3", "Apply", "apps/v1", REPLICAS, SCALE) "]",
             "[" E("manager-1", "Apply", "autoscaling/v1", REPLICAS, "") ","
             E("manager-2", "Apply", "autoscaling/v1", REPLICAS, "") ","
             E("manager-3", "Apply", "autoscaling/v1", REPLICAS, SCALE)
             "]");

    /* an unknown version, or one without scale: dropped */

    to_scale("[" E("manager-1", "Apply", "apps/v10", REPLICAS, "") ","
             E("manager-2", "Update", "apps/v3", REPLICAS, "") "]", "[]");

    /* another version's path */

    to_scale("[" E("m", "Update", "apps/v2", "{\"f:spec\":{\"f:count\":{}}}",
                   "") ","
             E("n", "Update", "apps/v2", REPLICAS, "") "]",
             "[" E("m", "Update", "autoscaling/v1", REPLICAS, "") "]");

    /* none, or invalid ones */

    to_scale("[]", "[]");
    to_scale("[{\"manager\":\"x\"}]", "[]");
}


static void
test_to_parent_other_manager(void **state)
{
    /* apply -> update */

    to_parent("[" E("test", "Apply", "apps/v1", REPL_SELECTOR, "") "]",
              "[" E("scale", "Update", "autoscaling/v1", REPLICAS, SCALE)
              "]",
              "[" E("test", "Apply", "apps/v1", SELECTOR, "") ","
              E("scale", "Update", "apps/v1", REPLICAS, SCALE) "]");

    /* apply -> apply */

    to_parent("[" E("test", "Apply", "apps/v1", REPL_SELECTOR, "") "]",
              "[" E("scale", "Apply", "autoscaling/v1", REPLICAS, SCALE)
              "]",
              "[" E("scale", "Apply", "apps/v1", REPLICAS, SCALE) ","
              E("test", "Apply", "apps/v1", SELECTOR, "") "]");

    /* update -> update */

    to_parent("[" E("test", "Update", "apps/v1", REPL_SELECTOR, "") "]",
              "[" E("scale", "Update", "autoscaling/v1", REPLICAS, SCALE)
              "]",
              "[" E("scale", "Update", "apps/v1", REPLICAS, SCALE) ","
              E("test", "Update", "apps/v1", SELECTOR, "") "]");
}


static void
test_to_parent_same_manager(void **state)
{
    /* the subresource's entry is another identifier: replicas moves */

    to_parent("[" E("test", "Apply", "apps/v1", REPL_SELECTOR, "") "]",
              "[" E("test", "Apply", "autoscaling/v1", REPLICAS, SCALE)
              "]",
              "[" E("test", "Apply", "apps/v1", SELECTOR, "") ","
              E("test", "Apply", "apps/v1", REPLICAS, SCALE) "]");

    to_parent("[" E("test", "Update", "apps/v1", REPL_SELECTOR, "") "]",
              "[" E("test", "Update", "autoscaling/v1", REPLICAS, SCALE)
              "]",
              "[" E("test", "Update", "apps/v1", SELECTOR, "") ","
              E("test", "Update", "apps/v1", REPLICAS, SCALE) "]");

    /* an applier still owning it in the Scale keeps its entry as it is */

    to_parent("[" E("test", "Apply", "apps/v1", REPL_SELECTOR, "") "]",
              "[" E("test", "Apply", "autoscaling/v1", REPLICAS, "") "]",
              "[" E("test", "Apply", "apps/v1", REPL_SELECTOR, "") "]");
}


static void
test_to_parent_stolen(void **state)
{
    /* the Scale's manager no longer owns replicas: nothing comes back */

    to_parent("[" E("test", "Apply", "apps/v1", SELECTOR, "") "]",
              "[" E("scale", "Update", "autoscaling/v1",
                    "{\"f:status\":{\"f:replicas\":{}}}", SCALE) "]",
              "[" E("test", "Apply", "apps/v1", SELECTOR, "") "]");

    /* an entry left empty goes */

    to_parent("[" E("test", "Apply", "apps/v1", REPLICAS, "") "]",
              "[" E("scale", "Update", "autoscaling/v1", REPLICAS, SCALE)
              "]",
              "[" E("scale", "Update", "apps/v1", REPLICAS, SCALE) "]");

    /* entries of other versions: by their own path; unknown ones go */

    to_parent("[" E("a", "Update", "apps/v2",
                    "{\"f:spec\":{\"f:count\":{},\"f:x\":{}}}", "") ","
              E("b", "Update", "apps/v3", REPLICAS, "") ","
              E("c", "Update", "apps/v9", REPLICAS, "") "]",
              "[" E("scale", "Update", "autoscaling/v1", REPLICAS, SCALE)
              "]",
              "[" E("a", "Update", "apps/v2", "{\"f:spec\":{\"f:x\":{}}}",
                    "") ","
              E("b", "Update", "apps/v3", REPLICAS, "") ","
              E("scale", "Update", "apps/v1", REPLICAS, SCALE) "]");
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_to_subresource),
        cmocka_unit_test(test_to_parent_other_manager),
        cmocka_unit_test(test_to_parent_same_manager),
        cmocka_unit_test(test_to_parent_stolen),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
