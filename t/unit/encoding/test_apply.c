
/*
 * Unit tests: structured merge, comparison and removal by the schema
 * (encoding/gcp_apply.c) as structured-merge-diff does them for server-
 * side apply: granular and atomic maps, atomic, set and map lists (with
 * upstream's order of merged items), the members a comparison reports.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_apply.h"
#include "support_schema.h"


static const char  test_doc[] =
    "{\"T\":{\"type\":\"object\",\"properties\":{"
    "\"atomicList\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"setList\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"set\","
    "\"items\":{\"type\":\"string\"}},"
    "\"mapList\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\","
    "\"x-kubernetes-list-map-keys\":[\"name\"],"
    "\"items\":{\"$ref\":\"#/definitions/Item\"}},"
    "\"atomicMap\":{\"type\":\"object\",\"x-kubernetes-map-type\":"
    "\"atomic\",\"additionalProperties\":{\"type\":\"string\"}},"
    "\"granular\":{\"type\":\"object\",\"additionalProperties\":"
    "{\"type\":\"string\"}}}},"
    "\"Item\":{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\"},\"value\":{\"type\":\"string\"},"
    "\"other\":{\"type\":\"string\"}}}}";


static gcp_schema_set_t  *set;
static const json_t      *node;


static int
setup(void **state)
{
    set = schema_set_with(test_doc, sizeof(test_doc) - 1);
    node = gcp_schema_get(set, "T");
    assert_non_null(node);

    return 0;
}


static int
teardown(void **state)
{
    gcp_schema_set_free(set);
    return 0;
}




static void
merge(const char *live, const char *config, const char *expect)
{
    json_t  *l = schema_json(live), *c = schema_json(config);

    schema_expect_json(gcp_apply_merge(set, node, l, c), expect);

    json_decref(l);
    json_decref(c);
}


static void
test_merge_maps(void **state)
{
    json_t  *l, *c;

    /* granular maps key by key, atomic maps replaced */
    merge("{\"granular\":{\"a\":\"1\",\"b\":\"2\"},"
          "\"atomicMap\":{\"a\":\"1\",\"b\":\"2\"}}",
          "{\"granular\":{\"b\":\"3\",\"c\":\"4\"},"
          "\"atomicMap\":{\"c\":\"4\"}}",
          "{\"granular\":{\"a\":\"1\",\"b\":\"3\",\"c\":\"4\"},"
          "\"atomicMap\":{\"c\":\"4\"}}");

    /* an empty map applied removes nothing */
    merge("{\"granular\":{\"a\":\"1\"}}", "{\"granular\":{}}",
          "{\"granular\":{\"a\":\"1\"}}");

    /* without a schema: maps granular */
    l = schema_json("{\"x\":{\"a\":1}}");
    c = schema_json("{\"x\":{\"b\":2}}");

    schema_expect_json(gcp_apply_merge(NULL, NULL, l, c),
                "{\"x\":{\"a\":1,\"b\":2}}");
    json_decref(l);
    json_decref(c);
}


static void
test_merge_lists(void **state)
{
    merge("{\"atomicList\":[\"a\",\"b\"]}", "{\"atomicList\":[\"c\"]}",
          "{\"atomicList\":[\"c\"]}");

    /* structured-merge-diff's order: config's items, live's others */
    merge("{\"setList\":[\"x\",\"y\"]}", "{\"setList\":[\"z\",\"x\"]}",
          "{\"setList\":[\"z\",\"x\",\"y\"]}");

    merge("{\"mapList\":[{\"name\":\"a\",\"value\":\"x\",\"other\":\"o\"},"
          "{\"name\":\"b\"}]}",
          "{\"mapList\":[{\"name\":\"c\"},{\"name\":\"a\",\"value\":\"y\"}]}",
          "{\"mapList\":[{\"name\":\"c\"},{\"name\":\"a\",\"value\":\"y\","
          "\"other\":\"o\"},{\"name\":\"b\"}]}");

    /* live's items before the next shared one stay ahead of it */
    merge("{\"mapList\":[{\"name\":\"a\"},{\"name\":\"b\"},"
          "{\"name\":\"c\"}]}",
          "{\"mapList\":[{\"name\":\"c\"},{\"name\":\"a\"}]}",
          "{\"mapList\":[{\"name\":\"b\"},{\"name\":\"c\"},"
          "{\"name\":\"a\"}]}");
}


static void
compare(const char *old, const char *new, const char *changed,
    const char *removed)
{
    json_t  *o = old ? schema_json(old) : NULL, *n = schema_json(new), *ch, *rm;

    assert_int_equal(gcp_apply_compare(set, node, o, n, &ch, &rm), 0);
    schema_expect_json(ch, changed);
    schema_expect_json(rm, removed);

    json_decref(o);
    json_decref(n);
}


static void
test_compare(void **state)
{
    /* a map that appears is a member itself (02-cm-create) */
    compare("{}", "{\"granular\":{\"a\":\"1\"},\"atomicMap\":{\"b\":\"2\"}}",
            "{\"f:atomicMap\":{},\"f:granular\":{\".\":{},\"f:a\":{}}}",
            "{}");

    /* changed and added keys; a present map is no member */
    compare("{\"granular\":{\"a\":\"1\",\"b\":\"2\"}}",
            "{\"granular\":{\"a\":\"3\",\"b\":\"2\",\"c\":\"4\"}}",
            "{\"f:granular\":{\"f:a\":{},\"f:c\":{}}}", "{}");

    /* a map that goes away, with its keys */
    compare("{\"granular\":{\"a\":\"1\"}}", "{}",
            "{}", "{\"f:granular\":{\".\":{},\"f:a\":{}}}");

    /* lists that appear are members (13-*webhookconfiguration-create) */
    compare("{}", "{\"mapList\":[{\"name\":\"a\"}],"
            "\"setList\":[\"Deny\"]}",
            "{\"f:mapList\":{\".\":{},\"k:{\\\"name\\\":\\\"a\\\"}\":{"
            "\".\":{},\"f:name\":{}}},\"f:setList\":{\".\":{},"
            "\"v:\\\"Deny\\\"\":{}}}", "{}");

    /* list items: members, set values leaves */
    compare("{\"mapList\":[{\"name\":\"a\",\"value\":\"x\"}],"
            "\"setList\":[\"x\"]}",
            "{\"mapList\":[{\"name\":\"a\",\"value\":\"y\"},"
            "{\"name\":\"b\"}],\"setList\":[\"y\"]}",
            "{\"f:mapList\":{\"k:{\\\"name\\\":\\\"a\\\"}\":{\"f:value\":{}},"
            "\"k:{\\\"name\\\":\\\"b\\\"}\":{\".\":{},\"f:name\":{}}},"
            "\"f:setList\":{\"v:\\\"y\\\"\":{}}}",
            "{\"f:setList\":{\"v:\\\"x\\\"\":{}}}");

    /* an atomic list is one leaf */
    compare("{\"atomicList\":[\"a\"]}", "{\"atomicList\":[\"b\"]}",
            "{\"f:atomicList\":{}}", "{}");
}


static void
test_remove(void **state)
{
    json_t  *obj, *s;

    obj = schema_json("{\"granular\":{\"a\":\"1\",\"b\":\"2\"},\"mapList\":["
               "{\"name\":\"a\",\"value\":\"x\"},{\"name\":\"b\","
               "\"value\":\"y\"}],\"setList\":[\"x\",\"y\"]}");
    s = schema_json("{\"f:granular\":{\"f:a\":{}},\"f:mapList\":{"
             "\"k:{\\\"name\\\":\\\"a\\\"}\":{\".\":{},\"f:value\":{}},"
             "\"k:{\\\"name\\\":\\\"b\\\"}\":{\"f:value\":{}}},"
             "\"f:setList\":{\"v:\\\"y\\\"\":{}}}");

    gcp_apply_remove(set, node, obj, s);

    schema_expect_json(obj, "{\"granular\":{\"b\":\"2\"},\"mapList\":["
                     "{\"name\":\"b\"}],\"setList\":[\"x\"]}");
    json_decref(s);

    /* with parents: named fields above members become members */
    s = schema_json("{\"f:a\":{\"f:b\":{}},\"f:l\":{\"k:{\\\"n\\\":1}\":{"
             "\"f:c\":{}}}}");
    schema_expect_json(gcp_apply_with_parents(s),
                "{\"f:a\":{\"f:b\":{},\".\":{}},\"f:l\":{"
                "\"k:{\\\"n\\\":1}\":{\"f:c\":{}},\".\":{}}}");
    json_decref(s);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_merge_maps),
        cmocka_unit_test(test_merge_lists),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_remove),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
