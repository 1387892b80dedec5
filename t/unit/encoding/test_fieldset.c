
/*
 * Unit tests: field sets (encoding/gcp_fieldset.c) as kube-apiserver
 * writes them in managedFields (FieldsV1): the expectations are
 * kube-apiserver 1.32's answers (the 02-cm-apply-* captures) and
 * structured-merge-diff's rules for atomic, set and map lists, granular
 * and atomic maps.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_fieldset.h"
#include "support_schema.h"


static const char  test_doc[] =
    "{\"T\":{\"type\":\"object\",\"properties\":{"
    "\"atomicList\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"setList\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"set\","
    "\"items\":{\"type\":\"string\"}},"
    "\"mapList\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\","
    "\"x-kubernetes-list-map-keys\":[\"name\",\"port\"],"
    "\"items\":{\"$ref\":\"#/definitions/Item\"}},"
    "\"merged\":{\"type\":\"array\",\"x-kubernetes-patch-strategy\":"
    "\"merge\",\"x-kubernetes-patch-merge-key\":\"name\","
    "\"items\":{\"$ref\":\"#/definitions/Item\"}},"
    "\"atomicMap\":{\"type\":\"object\",\"x-kubernetes-map-type\":"
    "\"atomic\",\"additionalProperties\":{\"type\":\"string\"}},"
    "\"granular\":{\"type\":\"object\",\"additionalProperties\":"
    "{\"type\":\"string\"}},"
    "\"empty\":{\"type\":\"object\"}}},"
    "\"Item\":{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\"},\"port\":{\"type\":\"integer\"},"
    "\"value\":{\"type\":\"string\"}}}}";





/* 02-cm-apply-create: what manager-a's entry holds */

static void
test_configmap_apply(void **state)
{
    json_t            *obj;
    gcp_schema_set_t  *set;
    const char        *err;

    set = gcp_schema_set_create();
    assert_int_equal(gcp_schema_set_load_embedded(set, &err), GCP_OK);

    obj = schema_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
               "{\"name\":\"cm-ssa\",\"namespace\":\"x\",\"labels\":"
               "{\"app\":\"demo\"}},\"data\":{\"shared\":\"a\","
               "\"owned-by-a\":\"1\"}}");

    schema_expect_json(gcp_fieldset_of(set, gcp_schema_get(set,
                                    "io.k8s.api.core.v1.ConfigMap"),
                                obj, 1),
                "{\"f:data\":{\"f:owned-by-a\":{},\"f:shared\":{}},"
                "\"f:metadata\":{\"f:labels\":{\"f:app\":{}}}}");

    /* 02-cm-apply-yaml-body: only data */
    json_decref(obj);
    obj = schema_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
               "{\"name\":\"cm-ssa-yaml\"},\"data\":{\"k\":\"v\"}}");
    schema_expect_json(gcp_fieldset_of(set, gcp_schema_get(set,
                                    "io.k8s.api.core.v1.ConfigMap"),
                                obj, 1),
                "{\"f:data\":{\"f:k\":{}}}");

    /*
     * metadata's ownerReferences are a map list by uid of atomic items
     * (leaves), finalizers a set
     */
    json_decref(obj);
    obj = schema_json("{\"metadata\":{\"name\":\"n\",\"finalizers\":[\"b/x\","
               "\"a/y\"],\"ownerReferences\":[{\"apiVersion\":\"v1\","
               "\"kind\":\"ConfigMap\",\"name\":\"o\",\"uid\":\"u1\"}]}}");
    schema_expect_json(gcp_fieldset_of(set, gcp_schema_get(set,
                                    "io.k8s.api.core.v1.ConfigMap"),
                                obj, 1),
                "{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"a/y\\\"\":{},"
                "\"v:\\\"b/x\\\"\":{}},\"f:ownerReferences\":"
                "{\"k:{\\\"uid\\\":\\\"u1\\\"}\":{}}}}");

    json_decref(obj);
    gcp_schema_set_free(set);
}


static void
test_list_and_map_types(void **state)
{
    json_t            *obj;
    gcp_schema_set_t  *set;
    const char        *err;

    set = gcp_schema_set_create();
    assert_int_equal(gcp_schema_set_add_doc(set, test_doc,
                                            sizeof(test_doc) - 1, &err),
                     GCP_OK);

    obj = schema_json("{\"setList\":[\"b\",\"a\"],\"atomicList\":[\"x\"],"
               "\"mapList\":[{\"name\":\"n\",\"port\":80,\"value\":\"v\"},"
               "{\"port\":443,\"name\":\"m\"}],"
               "\"merged\":[{\"name\":\"c\",\"value\":\"1\"}],"
               "\"atomicMap\":{\"a\":\"1\"},\"granular\":{\"z\":\"1\","
               "\"a\":\"2\"},\"empty\":{},\"unknown\":{\"deep\":[1]}}");

    schema_expect_json(gcp_fieldset_of(set, gcp_schema_get(set, "T"), obj, 0),
                "{\"f:atomicList\":{},\"f:atomicMap\":{},\"f:empty\":{},"
                "\"f:granular\":{\"f:a\":{},\"f:z\":{}},"
                "\"f:mapList\":{"
                "\"k:{\\\"name\\\":\\\"m\\\",\\\"port\\\":443}\":{\".\":{},"
                "\"f:name\":{},\"f:port\":{}},"
                "\"k:{\\\"name\\\":\\\"n\\\",\\\"port\\\":80}\":{\".\":{},"
                "\"f:name\":{},\"f:port\":{},\"f:value\":{}}},"
                "\"f:merged\":{\"k:{\\\"name\\\":\\\"c\\\"}\":{\".\":{},"
                "\"f:name\":{},\"f:value\":{}}},"
                "\"f:setList\":{\"v:\\\"a\\\"\":{},\"v:\\\"b\\\"\":{}},"
                "\"f:unknown\":{\"f:deep\":{}}}");

    json_decref(obj);
    gcp_schema_set_free(set);
}


/* 02-cm-apply-conflict and -force: the shared field, then its transfer */

static void
test_set_operations(void **state)
{
    json_t  *a, *b, *c;

    a = schema_json("{\"f:data\":{\"f:owned-by-a\":{},\"f:shared\":{}},"
             "\"f:metadata\":{\"f:labels\":{\"f:app\":{}}}}");
    b = schema_json("{\"f:data\":{\"f:owned-by-b\":{},\"f:shared\":{}}}");

    c = gcp_fieldset_intersection(a, b);
    schema_expect_json(gcp_fieldset_paths(c), "[\".data.shared\"]");
    assert_false(gcp_fieldset_empty(c));
    json_decref(c);

    schema_expect_json(gcp_fieldset_difference(a, b),
                "{\"f:data\":{\"f:owned-by-a\":{}},"
                "\"f:metadata\":{\"f:labels\":{\"f:app\":{}}}}");

    schema_expect_json(gcp_fieldset_union(b, a),
                "{\"f:data\":{\"f:owned-by-a\":{},\"f:owned-by-b\":{},"
                "\"f:shared\":{}},\"f:metadata\":{\"f:labels\":"
                "{\"f:app\":{}}}}");

    c = gcp_fieldset_difference(b, b);
    assert_true(gcp_fieldset_empty(c));
    json_decref(c);

    json_decref(a);
    json_decref(b);

    /* an item is a member ("."), its fields are children */

    a = schema_json("{\"f:spec\":{\"f:c\":{\"k:{\\\"name\\\":\\\"x\\\"}\":{\".\":{},"
             "\"f:image\":{},\"f:name\":{}},\"v:3\":{}}},\"f:n\":{\"i:10\":{},"
             "\"i:2\":{}}}");
    schema_expect_json(gcp_fieldset_paths(a),
                "[\".spec.c[name=\\\"x\\\"]\",\".spec.c[name=\\\"x\\\"]"
                ".image\",\".spec.c[name=\\\"x\\\"].name\",\".spec.c[=3]\","
                "\".n[10]\",\".n[2]\"]");

    b = schema_json("{\"f:spec\":{\"f:c\":{\"k:{\\\"name\\\":\\\"x\\\"}\":{"
             "\"f:image\":{}}}}}");

    /* dropping a field keeps the item it belonged to */
    schema_expect_json(gcp_fieldset_difference(a, b),
                "{\"f:n\":{\"i:2\":{},\"i:10\":{}},\"f:spec\":{\"f:c\":{"
                "\"k:{\\\"name\\\":\\\"x\\\"}\":{\".\":{},\"f:name\":{}},"
                "\"v:3\":{}}}}");

    schema_expect_json(gcp_fieldset_intersection(a, b),
                "{\"f:spec\":{\"f:c\":{\"k:{\\\"name\\\":\\\"x\\\"}\":{"
                "\"f:image\":{}}}}}");

    json_decref(a);
    json_decref(b);
}


/*
 * The tests the field manager makes before building a set: do two sets
 * meet, is one within another, is a set (a client's) in upstream's form.
 */

static void
test_set_predicates(void **state)
{
    json_t  *own, *ch, *other, *item, *c, *kept;

    own = schema_json("{\"f:data\":{\"f:a\":{},\"f:n\":{}},"
               "\"f:metadata\":{\"f:labels\":{\".\":{},\"f:x\":{}}}}");
    ch = schema_json("{\"f:data\":{\"f:n\":{}}}");
    other = schema_json("{\"f:data\":{\"f:b\":{}}}");

    assert_true(gcp_fieldset_subset(ch, own));
    assert_false(gcp_fieldset_subset(own, ch));
    assert_true(gcp_fieldset_intersects(ch, own));
    assert_true(gcp_fieldset_intersects(own, ch));
    assert_false(gcp_fieldset_intersects(other, own));
    assert_false(gcp_fieldset_subset(other, own));

    /* a parent alone is no member: f:data is not owned by own */
    c = schema_json("{\"f:data\":{}}");
    assert_false(gcp_fieldset_subset(c, own));
    assert_false(gcp_fieldset_intersects(c, own));
    json_decref(c);

    /* the map f:labels is a member ("."), so a set naming it meets own */
    c = schema_json("{\"f:metadata\":{\"f:labels\":{}}}");
    assert_true(gcp_fieldset_subset(c, own));
    assert_true(gcp_fieldset_intersects(c, own));
    json_decref(c);

    /* an item with children: the item and its fields apart */
    item = schema_json("{\"f:c\":{\"k:{\\\"name\\\":\\\"x\\\"}\":"
                "{\".\":{},\"f:image\":{}}}}");
    c = schema_json("{\"f:c\":{\"k:{\\\"name\\\":\\\"x\\\"}\":"
             "{\"f:image\":{}}}}");
    assert_true(gcp_fieldset_subset(c, item));
    assert_false(gcp_fieldset_subset(item, c));
    assert_true(gcp_fieldset_intersects(item, c));
    json_decref(c);

    /* the empty set is within every set and meets none */
    c = schema_json("{}");
    assert_true(gcp_fieldset_subset(c, own));
    assert_false(gcp_fieldset_intersects(c, own));
    assert_true(gcp_fieldset_normal(c));
    json_decref(c);

    /* upstream's form, and a client's set brought to it */
    assert_true(gcp_fieldset_normal(own));
    assert_true(gcp_fieldset_normal(item));

    c = schema_json("{\"f:z\":{},\"f:a\":{\"i:10\":{},\"i:2\":{},"
             "\"v:1\":{},\".\":{}}}");
    assert_false(gcp_fieldset_normal(c));
    schema_expect_json(gcp_fieldset_normalize(c),
                       "{\"f:a\":{\".\":{},\"v:1\":{},\"i:2\":{},"
                       "\"i:10\":{}},\"f:z\":{}}");
    json_decref(c);

    c = schema_json("{\"f:a\":1}");
    assert_false(gcp_fieldset_normal(c));
    json_decref(c);

    /* ordered in place: a level in order is kept (the same object) */
    c = schema_json("{\"f:metadata\":{\".\":{},\"f:b\":{}},"
             "\"f:data\":{\"f:y\":{},\"f:x\":{},\".\":{}}}");
    kept = json_incref(json_object_get(c, "f:metadata"));
    c = gcp_fieldset_order(c);
    assert_ptr_equal(json_object_get(c, "f:metadata"), kept);
    assert_true(gcp_fieldset_normal(c));
    schema_expect_json(c, "{\"f:data\":{\".\":{},\"f:x\":{},"
                          "\"f:y\":{}},\"f:metadata\":{\".\":{},"
                          "\"f:b\":{}}}");
    json_decref(kept);

    json_decref(own);
    json_decref(ch);
    json_decref(other);
    json_decref(item);
}


/* A schema set's memo lasts until a definition changes. */

static void
test_schema_memo(void **state)
{
    json_t            *v, *def;
    gcp_schema_set_t  *set;

    set = gcp_schema_set_create();
    assert_non_null(set);
    assert_null(gcp_schema_memo_get(set, "k"));

    v = schema_json("{\"metadata\":{}}");
    assert_int_equal(gcp_schema_memo_put(set, "k", v), GCP_OK);
    assert_ptr_equal(gcp_schema_memo_get(set, "k"), v);

    def = schema_json("{\"type\":\"object\"}");
    assert_int_equal(gcp_schema_set_put(set, "D", def), GCP_OK);
    assert_null(gcp_schema_memo_get(set, "k"));

    assert_int_equal(gcp_schema_memo_put(set, "k", v), GCP_OK);
    gcp_schema_set_del(set, "D");
    assert_null(gcp_schema_memo_get(set, "k"));

    assert_int_equal(gcp_schema_memo_put(set, "k", v), GCP_OK);
    json_decref(v);
    json_decref(def);
    gcp_schema_set_free(set);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_configmap_apply),
        cmocka_unit_test(test_list_and_map_types),
        cmocka_unit_test(test_set_operations),
        cmocka_unit_test(test_set_predicates),
        cmocka_unit_test(test_schema_memo),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
