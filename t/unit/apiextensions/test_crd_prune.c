
/*
 * Unit tests: pruning of unknown fields (and the paths fieldValidation
 * reports), embedded resources (apiVersion, kind, metadata coerced to
 * ObjectMeta) and defaulting (gcp_crd_schema_prune(),
 * gcp_crd_schema_default()); nulls and more embedded resources are in
 * test_crd_validate.c.  Outcomes marked "captured" are a real
 * kube-apiserver's (1.28.4 built from source).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "support_crd.h"


#define S_PRUNE \
    "{'type':'object','properties':{'spec':{'type':'object'," \
    "'x-kubernetes-preserve-unknown-fields':true," \
    "'properties':{'known':{'type':'object'," \
    "'properties':{'a':{'type':'string'}}}}},'list':{'type':'array'," \
    "'items':{'type':'object','properties':{'b':{'type':'string'}}}}," \
    "'m':{'type':'object','additionalProperties':{'type':'object'," \
    "'properties':{'c':{'type':'string'}}}},'tpl':{'type':'object'," \
    "'x-kubernetes-embedded-resource':true," \
    "'properties':{'spec':{'type':'object'}}},'tpls':{'type':'array'," \
    "'items':{'type':'object','x-kubernetes-embedded-resource':true," \
    "'x-kubernetes-preserve-unknown-fields':true}}," \
    "'mtpl':{'type':'object','additionalProperties':{'type':'object'," \
    "'x-kubernetes-embedded-resource':true," \
    "'x-kubernetes-preserve-unknown-fields':true}}}}"

#define D_PRUNE \
    "{'spec':{'free':{'x':1},'known':{'a':'1','z':2}},'list':[{'b':'1'," \
    "'c':2},{'d':3}],'bogus':1,'m':{'k1':{'c':'x','dd':1}}," \
    "'tpl':{'apiVersion':'v1','kind':'P','metadata':{'name':'a'," \
    "'foo':1,'ownerReferences':[{'uid':'u','bar':2}]},'spec':{'q':1}," \
    "'zz':1},'tpls':[{'apiVersion':'v1','kind':'P'," \
    "'metadata':{'baz':1}}],'mtpl':{'k':{'apiVersion':'v1','kind':'P'," \
    "'metadata':{'qux':1}}}}"

#define S_DEFAULTS \
    "{'type':'object','properties':{'spec':{'type':'object'," \
    "'default':{},'properties':{" \
    "'replicas':{'type':'integer','default':1}," \
    "'obj':{'type':'object','default':{'a':'x'}," \
    "'properties':{'a':{'type':'string'},'b':{'type':'string'," \
    "'default':'bb'}}}," \
    "'list':{'type':'array','items':{'type':'object'," \
    "'properties':{'n':{'type':'integer','default':7}}}}," \
    "'deep':{'type':'object','properties':{'x':{'type':'object'," \
    "'properties':{'y':{'type':'string','default':'yy'}}}}}}}}}"


static const sc_case_t  cases[] = {

    /* captured: fieldValidation=Strict */
    { S_PRUNE, D_PRUNE,
      "400 unknown field \"bogus\", unknown field \"list[0].c\", "
      "unknown field \"list[1].d\", unknown field \"m.k1.dd\", "
      "unknown field \"spec.known.z\", unknown field \"tpl.spec.q\", "
      "unknown field \"tpl.zz\", unknown field \"mtpl[k].metadata.qux\", "
      "unknown field \"tpl.metadata.foo\", "
      "unknown field \"tpl.metadata.ownerReferences[0].bar\", "
      "unknown field \"tpls[0].metadata.baz\"", 1 },

    /* captured: fieldValidation=Ignore, then the embedded ObjectMeta */
    { S_PRUNE, D_PRUNE,
      "tpl.metadata.ownerReferences.apiVersion: Invalid value: \"\": "
      "version must not be empty\n"
      "tpl.metadata.ownerReferences.kind: Invalid value: \"\": kind must "
      "not be empty\n"
      "tpl.metadata.ownerReferences.name: Invalid value: \"\": name must "
      "not be empty", 0 },

    /* captured */
    { S_PRUNE, "{'tpl':{'apiVersion':'','kind':''}}",
      "tpl.apiVersion: Invalid value: \"\": must not be empty\n"
      "tpl.kind: Invalid value: \"\": must not be empty", 0 },

    /* captured: embedded metadata written back as ObjectMeta encodes */
    { S_PRUNE,
      "{'tpl':{'apiVersion':'v1','kind':'P','metadata':{'name':'x',"
      "'creationTimestamp':'2020-01-01T10:00:00.5+02:00','generation':0,"
      "'labels':{},'annotations':{'a':null},'namespace':''}}}",
      "201 {\"tpl\":{\"apiVersion\":\"v1\",\"kind\":\"P\","
      "\"metadata\":{\"annotations\":{\"a\":\"\"},"
      "\"creationTimestamp\":\"2020-01-01T08:00:00Z\",\"name\":\"x\"}}}", 0 },

    /* pruned, the unknown fields dropped silently without strict */
    { S_PRUNE,
      "{'spec':{'free':{'x':1},'known':{'a':'1','z':2}},"
      "'list':[{'b':'1','c':2},{'d':3}],'bogus':1,"
      "'m':{'k1':{'c':'x','dd':1}}}",
      "201 {\"list\":[{\"b\":\"1\"},{}],\"m\":{\"k1\":{\"c\":\"x\"}},"
      "\"spec\":{\"free\":{\"x\":1},\"known\":{\"a\":\"1\"}}}", 0 },



    /* defaults: top down, objects created by a default are defaulted */
    { S_DEFAULTS, "{}",
      "201 {\"spec\":{\"obj\":{\"a\":\"x\",\"b\":\"bb\"},"
      "\"replicas\":1}}", 0 },
    { S_DEFAULTS,
      "{'spec':{'replicas':3,'obj':{},'list':[{},{'n':1}],"
      "'deep':{'x':{}}}}",
      "201 {\"spec\":{\"deep\":{\"x\":{\"y\":\"yy\"}},"
      "\"list\":[{\"n\":7},{\"n\":1}],\"obj\":{\"b\":\"bb\"},"
      "\"replicas\":3}}", 0 },
    { S_DEFAULTS, "{'spec':{'deep':{}}}",
      "201 {\"spec\":{\"deep\":{},\"obj\":{\"a\":\"x\",\"b\":\"bb\"},"
      "\"replicas\":1}}", 0 },

    /* null items stay (only object fields lose their nulls) */
    { S_DEFAULTS, "{'spec':{'list':[null]}}",
      "spec.list[0]: Invalid value: \"null\": spec.list[0] in body must "
      "be of type object: \"null\"", 0 },
};


static void
test_cases(void **state)
{
    sc_run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}


/* the flags: paths only when asked, bad embedded metadata dropped on reads */
static void
test_flags(void **state)
{
    int                rc;
    size_t             n;
    json_t            *obj;
    const char        *err, **paths;
    gcp_arena_t       *a;
    gcp_crd_schema_t  *cs;

    a = gcp_arena_create(0);
    assert_non_null(a);

    cs = sc_compile(a, S_PRUNE);

    obj = sp_load(a, "{'bogus':1,'tpl':{'apiVersion':'v1','kind':'P',"
                  "'metadata':{'name':5,'labels':{'a':'b'}}}}");
    paths = NULL;
    n = 7;
    err = NULL;
    rc = gcp_crd_schema_prune(cs, obj, 0, a, &paths, &n, &err);
    assert_int_equal(rc, GCP_EBADREQUEST);
    assert_string_equal(err, "tpl.metadata: Invalid value: "
                        "map[string]interface {}{\"labels\":"
                        "map[string]interface {}{\"a\":\"b\"}, \"name\":5}: "
                        "json: cannot unmarshal number into Go struct field "
                        "ObjectMeta.name of type string");
    json_decref(obj);

    /* as read from storage: the field that does not decode goes */
    obj = sp_load(a, "{'bogus':1,'tpl':{'apiVersion':'v1','kind':'P',"
                  "'metadata':{'name':5,'labels':{'a':'b'}}}}");
    rc = gcp_crd_schema_prune(cs, obj, GCP_CRD_PRUNE_DROP_INVALID
                              | GCP_CRD_PRUNE_PATHS, a, &paths, &n, &err);
    assert_int_equal(rc, GCP_OK);
    assert_int_equal(n, 1);
    assert_string_equal(paths[0], "bogus");
    assert_string_equal(sp_dump(a, obj),
                        "{\"tpl\":{\"apiVersion\":\"v1\",\"kind\":\"P\","
                        "\"metadata\":{\"labels\":{\"a\":\"b\"}}}}");
    json_decref(obj);

    gcp_crd_schema_free(cs);
    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_flags),
    };

    return cmocka_run_group_tests(tests, NULL, sc_teardown);
}
