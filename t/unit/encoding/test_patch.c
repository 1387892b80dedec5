
/*
 * Unit tests: JSON patch (core/encoding/gcp_patch_json.c) and JSON merge patch
 * (core/encoding/gcp_patch_merge.c): RFC 6902 and RFC 7386 Appendix A, the
 * kube-apiserver reference captures, evanphx/json-patch quirks and error
 * texts.  Strategic merge patch: test_patch_strategic.c.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_json.h"
#include "gcp_patch.h"
#include "support_patch.h"


/* ------------------------------------------------------------- helpers */


typedef int (*patch_pt)(gcp_arena_t *a, const json_t *doc,
    const char *patch, size_t len, json_t **out, const char **msg);


/* Applies patch (single-quoted) to doc with fn; checks the result. */
static void
expect_ok(patch_pt fn, const char *doc, const char *patch,
    const char *expected)
{
    int           rc;
    json_t       *d, *out;
    const char   *p, *msg, *before;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    d = sp_load(a, doc);
    before = sp_dump_ordered(a, d);
    p = sp_q(a, patch);

    msg = NULL;
    rc = fn(a, d, p, strlen(p), &out, &msg);
    if (rc != GCP_OK) {
        fail_msg("patch %s failed: %d %s", patch, rc, msg);
    }

    assert_string_equal(sp_dump(a, out), sp_canon(a, expected));

    /* the input document is untouched and shares nothing */
    assert_string_equal(sp_dump_ordered(a, d), before);
    assert_int_equal(d->refcount, 1);

    json_decref(out);
    json_decref(d);
    gcp_arena_destroy(a);
}


/* Applies patch (raw bytes, not quote-converted) and checks the error. */
static void
expect_err_raw(patch_pt fn, const char *doc, const char *patch, int code,
    const char *message)
{
    int           rc;
    json_t       *d, *out;
    const char   *msg;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    d = sp_load(a, doc);

    out = (json_t *) 1;
    msg = NULL;
    rc = fn(a, d, patch, strlen(patch), &out, &msg);

    assert_int_equal(rc, code);
    assert_null(out);
    assert_non_null(msg);
    assert_string_equal(msg, message);

    json_decref(d);
    gcp_arena_destroy(a);
}


static void
expect_err(patch_pt fn, const char *doc, const char *patch, int code,
    const char *message)
{
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    expect_err_raw(fn, doc, sp_q(a, patch), code, message);
    gcp_arena_destroy(a);
}


/* gcp_patch_json_apply() with its detailed evanphx error text */
static void
expect_apply_err(const char *doc, const char *ops, const char *message)
{
    int           rc;
    json_t       *d, *o, *out;
    const char   *msg;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    d = sp_load(a, doc);
    o = sp_load(a, ops);

    msg = NULL;
    rc = gcp_patch_json_apply(a, d, o, &out, &msg);

    assert_int_equal(rc, GCP_EINVALID);
    assert_null(out);
    assert_string_equal(msg, message);

    json_decref(o);
    json_decref(d);
    gcp_arena_destroy(a);
}


static void
expect_apply_ok(const char *doc, const char *ops, const char *expected)
{
    int           rc;
    json_t       *d, *o, *out;
    const char   *msg;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    d = sp_load(a, doc);
    o = sp_load(a, ops);

    msg = NULL;
    rc = gcp_patch_json_apply(a, d, o, &out, &msg);
    if (rc != GCP_OK) {
        fail_msg("ops %s failed: %s", ops, msg);
    }

    assert_string_equal(sp_dump(a, out), sp_canon(a, expected));

    /* nothing shared with the caller's trees */
    assert_int_equal(out->refcount, 1);
    assert_int_equal(o->refcount, 1);
    assert_int_equal(d->refcount, 1);

    json_decref(out);
    json_decref(o);
    json_decref(d);
    gcp_arena_destroy(a);
}


/* --------------------------------------------------- RFC 6902 Appendix A */


static void
test_rfc6902_examples(void **state)
{
    /* A.1 adding an object member */
    expect_ok(gcp_patch_json, "{'foo':'bar'}",
              "[{'op':'add','path':'/baz','value':'qux'}]",
              "{'baz':'qux','foo':'bar'}");

    /* A.2 adding an array element */
    expect_ok(gcp_patch_json, "{'foo':['bar','baz']}",
              "[{'op':'add','path':'/foo/1','value':'qux'}]",
              "{'foo':['bar','qux','baz']}");

    /* A.3 removing an object member */
    expect_ok(gcp_patch_json, "{'baz':'qux','foo':'bar'}",
              "[{'op':'remove','path':'/baz'}]", "{'foo':'bar'}");

    /* A.4 removing an array element */
    expect_ok(gcp_patch_json, "{'foo':['bar','qux','baz']}",
              "[{'op':'remove','path':'/foo/1'}]", "{'foo':['bar','baz']}");

    /* A.5 replacing a value */
    expect_ok(gcp_patch_json, "{'baz':'qux','foo':'bar'}",
              "[{'op':'replace','path':'/baz','value':'boo'}]",
              "{'baz':'boo','foo':'bar'}");

    /* A.6 moving a value */
    expect_ok(gcp_patch_json,
              "{'foo':{'bar':'baz','waldo':'fred'},'qux':{'corge':'grault'}}",
              "[{'op':'move','from':'/foo/waldo','path':'/qux/thud'}]",
              "{'foo':{'bar':'baz'},'qux':{'corge':'grault',"
              "'thud':'fred'}}");

    /* A.7 moving an array element */
    expect_ok(gcp_patch_json, "{'foo':['all','grass','cows','eat']}",
              "[{'op':'move','from':'/foo/1','path':'/foo/3'}]",
              "{'foo':['all','cows','eat','grass']}");

    /* A.8 testing a value: success */
    expect_ok(gcp_patch_json, "{'baz':'qux','foo':['a',2,'c']}",
              "[{'op':'test','path':'/baz','value':'qux'},"
              "{'op':'test','path':'/foo/1','value':2}]",
              "{'baz':'qux','foo':['a',2,'c']}");

    /* A.9 testing a value: error */
    expect_apply_err("{'baz':'qux'}",
                     "[{'op':'test','path':'/baz','value':'bar'}]",
                     "testing value /baz failed: test failed");

    /* A.10 adding a nested member object */
    expect_ok(gcp_patch_json, "{'foo':'bar'}",
              "[{'op':'add','path':'/child','value':{'grandchild':{}}}]",
              "{'foo':'bar','child':{'grandchild':{}}}");

    /* A.11 ignoring unrecognized elements */
    expect_ok(gcp_patch_json, "{'foo':'bar'}",
              "[{'op':'add','path':'/baz','value':'qux','xyz':123}]",
              "{'foo':'bar','baz':'qux'}");

    /* A.12 adding to a nonexistent target */
    expect_apply_err("{'foo':'bar'}",
                     "[{'op':'add','path':'/baz/bat','value':'qux'}]",
                     "add operation does not apply: doc is missing path: "
                     "\"/baz/bat\": missing value");

    /* A.13 duplicate "op": the last one wins, as Go's decoder */
    expect_apply_err("{'foo':'bar'}",
                     "[{'op':'add','path':'/baz','value':'qux',"
                     "'op':'remove'}]",
                     "error in remove for path: '/baz': Unable to remove "
                     "nonexistent key: baz: missing value");

    /* A.14 ~ escape ordering */
    expect_ok(gcp_patch_json, "{'/':9,'~1':10}",
              "[{'op':'test','path':'/~01','value':10}]", "{'/':9,'~1':10}");

    /* A.15 comparing strings and numbers */
    expect_apply_err("{'/':9,'~1':10}",
                     "[{'op':'test','path':'/~01','value':'10'}]",
                     "testing value /~01 failed: test failed");

    /* A.16 adding an array value */
    expect_ok(gcp_patch_json, "{'foo':['bar']}",
              "[{'op':'add','path':'/foo/-','value':['abc','def']}]",
              "{'foo':['bar',['abc','def']]}");
}


/* ------------------------------------------------- reference captures */


#define CM1  "{'kind':'ConfigMap','apiVersion':'v1','metadata':{"          \
             "'name':'cm1','namespace':'ref-crud','labels':{'app':'demo',"  \
             "'tier':'backend'},'annotations':{'note':'first'}},"           \
             "'data':{'key1':'value1','key2':'value2','key3':'value3'}}"


static void
test_json_patch_reference(void **state)
{
    /* 02-cm-patch-json-patch.http */
    expect_ok(gcp_patch_json, CM1,
              "[{'op':'replace','path':'/data/key2',"
              "'value':'patched-by-json-patch'},"
              "{'op':'add','path':'/metadata/labels/patched',"
              "'value':'json'}]",
              "{'kind':'ConfigMap','apiVersion':'v1','metadata':{"
              "'name':'cm1','namespace':'ref-crud','labels':{'app':'demo',"
              "'patched':'json','tier':'backend'},"
              "'annotations':{'note':'first'}},'data':{'key1':'value1',"
              "'key2':'patched-by-json-patch','key3':'value3'}}");

    /* 02-cm-patch-json-patch-bad-path.http: replace of a missing key adds */
    expect_ok(gcp_patch_json, CM1,
              "[{'op':'replace','path':'/data/nosuchkey','value':'x'}]",
              "{'kind':'ConfigMap','apiVersion':'v1','metadata':{"
              "'name':'cm1','namespace':'ref-crud','labels':{'app':'demo',"
              "'tier':'backend'},'annotations':{'note':'first'}},"
              "'data':{'key1':'value1','key2':'value2','key3':'value3',"
              "'nosuchkey':'x'}}");

    /* 02-cm-patch-json-patch-malformed.http */
    expect_err(gcp_patch_json, CM1, "{'op':'replace'}", GCP_EBADREQUEST,
               "error decoding patch: json: cannot unmarshal object into "
               "Go value of type []handlers.jsonPatchOp");

    /* 02-cm-patch-json-patch-test-fails.http: generic 422 */
    expect_err(gcp_patch_json, CM1,
               "[{'op':'test','path':'/data/key2','value':'not-the-value'},"
               "{'op':'replace','path':'/data/key2','value':'x'}]",
               GCP_EINVALID, GCP_PATCH_REJECTED);
}


/* -------------------------------------------------------- decoding */


static void
test_json_patch_decoding(void **state)
{
    const char  *doc = "{'a':1}";

    expect_err(gcp_patch_json, doc, "'x'", GCP_EBADREQUEST,
               "error decoding patch: json: cannot unmarshal string into "
               "Go value of type []handlers.jsonPatchOp");
    expect_err(gcp_patch_json, doc, "1.5", GCP_EBADREQUEST,
               "error decoding patch: json: cannot unmarshal number into "
               "Go value of type []handlers.jsonPatchOp");
    expect_err(gcp_patch_json, doc, "[true]", GCP_EBADREQUEST,
               "error decoding patch: json: cannot unmarshal bool into Go "
               "value of type handlers.jsonPatchOp");
    expect_err(gcp_patch_json, doc, "[{'op':'add','path':'/a'},[]]",
               GCP_EBADREQUEST,
               "error decoding patch: json: cannot unmarshal array into Go "
               "value of type handlers.jsonPatchOp");
    expect_err(gcp_patch_json, doc, "[{'op':1}]", GCP_EBADREQUEST,
               "error decoding patch: json: cannot unmarshal number into Go "
               "struct field jsonPatchOp.op of type string");
    expect_err(gcp_patch_json, doc, "[{'op':'add','path':{}}]",
               GCP_EBADREQUEST,
               "error decoding patch: json: cannot unmarshal object into Go "
               "struct field jsonPatchOp.path of type string");
    expect_err(gcp_patch_json, doc, "[{'op':'move','from':false}]",
               GCP_EBADREQUEST,
               "error decoding patch: json: cannot unmarshal bool into Go "
               "struct field jsonPatchOp.from of type string");

    /* syntax errors */
    expect_err_raw(gcp_patch_json, doc, "", GCP_EBADREQUEST,
                   "error decoding patch: unexpected end of JSON input");
    expect_err_raw(gcp_patch_json, doc, "  [{\"op\":", GCP_EBADREQUEST,
                   "error decoding patch: unexpected end of JSON input");
    expect_err_raw(gcp_patch_json, doc, "x", GCP_EBADREQUEST,
                   "error decoding patch: invalid character 'x' looking "
                   "for beginning of value");

    /* null is an empty patch; so is [] */
    expect_ok(gcp_patch_json, doc, "null", "{'a':1}");
    expect_ok(gcp_patch_json, doc, "[]", "{'a':1}");

    /* a null operation has no kind */
    expect_err(gcp_patch_json, doc, "[null]", GCP_EINVALID,
               GCP_PATCH_REJECTED);
    expect_apply_err(doc, "[null]", "Unexpected kind: unknown");
    expect_apply_err(doc, "[{'op':'frob','path':'/a'}]",
                     "Unexpected kind: frob");
    expect_apply_err(doc, "[{'path':'/a'}]", "Unexpected kind: unknown");
}


/* Returns a JSON patch of n "test" operations, arena-owned. */
static const char *
n_ops(gcp_arena_t *a, int n)
{
    int        i;
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    gcp_buf_addc(&b, '[');

    for (i = 0; i < n; i++) {
        gcp_buf_addstr(&b, i ? ",{\"op\":\"test\",\"path\":\"/a\","
                              "\"value\":1}"
                            : "{\"op\":\"test\",\"path\":\"/a\","
                              "\"value\":1}");
    }

    gcp_buf_addc(&b, ']');
    assert_false(gcp_buf_failed(&b));

    return gcp_buf_cstr(&b);
}


static void
test_json_patch_max_ops(void **state)
{
    int           rc;
    json_t       *d, *out;
    const char   *p, *msg;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    d = sp_load(a, "{'a':1}");

    p = n_ops(a, GCP_PATCH_MAX_OPS);
    rc = gcp_patch_json(a, d, p, strlen(p), &out, &msg);
    assert_int_equal(rc, GCP_OK);
    json_decref(out);

    p = n_ops(a, GCP_PATCH_MAX_OPS + 1);
    rc = gcp_patch_json(a, d, p, strlen(p), &out, &msg);
    assert_int_equal(rc, GCP_ETOOLARGE);
    assert_null(out);
    assert_string_equal(msg, "The allowed maximum operations in a JSON patch "
                        "is 10000, got 10001");

    json_decref(d);
    gcp_arena_destroy(a);
}


/* ------------------------------------------------------------- quirks */


static void
test_json_patch_arrays(void **state)
{
    const char  *doc = "{'l':['a','b','c']}";

    /* "-" appends; index len inserts at the end */
    expect_ok(gcp_patch_json, doc, "[{'op':'add','path':'/l/-','value':'d'}]",
              "{'l':['a','b','c','d']}");
    expect_ok(gcp_patch_json, doc, "[{'op':'add','path':'/l/3','value':'d'}]",
              "{'l':['a','b','c','d']}");
    expect_apply_err(doc, "[{'op':'add','path':'/l/4','value':'d'}]",
                     "error in add for path: '/l/4': Unable to access "
                     "invalid index: 4: invalid index referenced");

    /* negative indices count from the end */
    expect_ok(gcp_patch_json, doc, "[{'op':'add','path':'/l/-1',"
              "'value':'d'}]", "{'l':['a','b','c','d']}");
    expect_ok(gcp_patch_json, doc, "[{'op':'add','path':'/l/-4',"
              "'value':'d'}]", "{'l':['d','a','b','c']}");
    expect_apply_err(doc, "[{'op':'add','path':'/l/-5','value':'d'}]",
                     "error in add for path: '/l/-5': Unable to access "
                     "invalid index: -5: invalid index referenced");
    expect_ok(gcp_patch_json, doc, "[{'op':'remove','path':'/l/-1'}]",
              "{'l':['a','b']}");
    expect_ok(gcp_patch_json, doc, "[{'op':'replace','path':'/l/-3',"
              "'value':'z'}]", "{'l':['z','b','c']}");
    expect_ok(gcp_patch_json, doc, "[{'op':'test','path':'/l/-2',"
              "'value':'b'}]", doc);
    expect_apply_err(doc, "[{'op':'remove','path':'/l/-4'}]",
                     "error in remove for path: '/l/-4': Unable to access "
                     "invalid index: -4: invalid index referenced");
    expect_apply_err(doc, "[{'op':'remove','path':'/l/3'}]",
                     "error in remove for path: '/l/3': Unable to access "
                     "invalid index: 3: invalid index referenced");
    expect_apply_err(doc, "[{'op':'replace','path':'/l/3','value':1}]",
                     "replace operation does not apply: doc is missing "
                     "key: /l/3: missing value");

    /* strconv.Atoi: signs and leading zeros are accepted */
    expect_ok(gcp_patch_json, doc, "[{'op':'remove','path':'/l/+01'}]",
              "{'l':['a','c']}");
    expect_apply_err(doc, "[{'op':'remove','path':'/l/x'}]",
                     "error in remove for path: '/l/x': strconv.Atoi: "
                     "parsing \"x\": invalid syntax");
    expect_apply_err(doc, "[{'op':'add','path':'/l/','value':1}]",
                     "error in add for path: '/l/': value was not a proper "
                     "array index: '': strconv.Atoi: parsing \"\": invalid "
                     "syntax");
    expect_apply_err(doc, "[{'op':'remove','path':'/l/-'}]",
                     "error in remove for path: '/l/-': strconv.Atoi: "
                     "parsing \"-\": invalid syntax");
    expect_apply_err(doc, "[{'op':'test','path':'/l/99999999999999999999',"
                     "'value':1}]",
                     "error in test for path: '/l/99999999999999999999': "
                     "strconv.Atoi: parsing \"99999999999999999999\": value "
                     "out of range");

    /* through arrays of objects */
    expect_ok(gcp_patch_json, "{'l':[{'a':1},{'a':2}]}",
              "[{'op':'replace','path':'/l/1/a','value':3},"
              "{'op':'add','path':'/l/-1/b','value':4}]",
              "{'l':[{'a':1},{'a':3,'b':4}]}");
}


static void
test_json_patch_quirks(void **state)
{
    /* add and replace without a value set null */
    expect_ok(gcp_patch_json, "{'a':1}", "[{'op':'add','path':'/b'}]",
              "{'a':1,'b':null}");
    expect_ok(gcp_patch_json, "{'a':1}", "[{'op':'replace','path':'/a'}]",
              "{'a':null}");

    /* copy from a missing member copies null */
    expect_ok(gcp_patch_json, "{'a':1}",
              "[{'op':'copy','from':'/x','path':'/b'}]", "{'a':1,'b':null}");

    /* a missing member tests equal to null */
    expect_ok(gcp_patch_json, "{'a':null}",
              "[{'op':'test','path':'/b','value':null},"
              "{'op':'test','path':'/a','value':null}]", "{'a':null}");
    expect_apply_err("{'a':1}", "[{'op':'test','path':'/b','value':1}]",
                     "testing value /b failed: test failed");
    expect_apply_err("{'a':1}", "[{'op':'test','path':'/a'}]",
                     "testing value /a failed: test failed");

    /* the first segment is not checked */
    expect_ok(gcp_patch_json, "{'a':1}", "[{'op':'add','path':'x/b',"
              "'value':2}]", "{'a':1,'b':2}");
    expect_apply_err("{'a':1}", "[{'op':'add','path':'b','value':2}]",
                     "add operation does not apply: doc is missing path: "
                     "\"b\": missing value");

    /* "/" is the member named "" */
    expect_ok(gcp_patch_json, "{'a':1}", "[{'op':'add','path':'/',"
              "'value':2}]", "{'a':1,'':2}");

    /* escapes, decoded in one pass */
    expect_ok(gcp_patch_json, "{}",
              "[{'op':'add','path':'/a~1b','value':1},"
              "{'op':'add','path':'/c~0d','value':2},"
              "{'op':'add','path':'/~01','value':3},"
              "{'op':'add','path':'/~2','value':4}]",
              "{'a/b':1,'c~d':2,'~1':3,'~2':4}");

    /* replace of the whole document: containers only */
    expect_ok(gcp_patch_json, "{'a':1}",
              "[{'op':'replace','path':'','value':{'b':2}},"
              "{'op':'add','path':'/c','value':3}]", "{'b':2,'c':3}");
    expect_ok(gcp_patch_json, "{'a':1}",
              "[{'op':'replace','path':'','value':5}]", "{'a':1}");
    expect_ok(gcp_patch_json, "{'a':1}",
              "[{'op':'test','path':'','value':{'a':1.0}}]", "{'a':1}");
    expect_apply_err("{'a':1}", "[{'op':'remove','path':''}]",
                     "remove operation does not apply: doc is missing path: "
                     "\"\": missing value");

    /* test compares numbers by value and objects whatever their order */
    expect_ok(gcp_patch_json, "{'a':{'x':1,'y':[1.5,'s',true,null]}}",
              "[{'op':'test','path':'/a','value':{'y':[1.5,'s',true,null],"
              "'x':1.0}}]", "{'a':{'x':1,'y':[1.5,'s',true,null]}}");
    expect_apply_err("{'a':{'x':1}}",
                     "[{'op':'test','path':'/a','value':{'x':1,'y':2}}]",
                     "testing value /a failed: test failed");
    expect_apply_err("{'a':[1,2]}",
                     "[{'op':'test','path':'/a','value':[2,1]}]",
                     "testing value /a failed: test failed");
    expect_apply_err("{'a':1}",
                     "[{'op':'test','path':'/a','value':1.5}]",
                     "testing value /a failed: test failed");
    expect_apply_err("{'a':true}",
                     "[{'op':'test','path':'/a','value':false}]",
                     "testing value /a failed: test failed");
}


static void
test_json_patch_move_copy(void **state)
{
    /* move into its own child fails after removing */
    expect_apply_err("{'a':{'b':1}}",
                     "[{'op':'move','from':'/a','path':'/a/c'}]",
                     "move operation does not apply: doc is missing "
                     "destination path: /a/c: missing value");

    /* move onto itself */
    expect_ok(gcp_patch_json, "{'a':1}",
              "[{'op':'move','from':'/a','path':'/a'}]", "{'a':1}");

    expect_apply_err("{'a':1}", "[{'op':'move','from':'/x','path':'/y'}]",
                     "error in move for path: 'x': Unable to remove "
                     "nonexistent key: x: missing value");
    expect_apply_err("{'a':1}", "[{'op':'move','from':'/x/y','path':'/y'}]",
                     "move operation does not apply: doc is missing from "
                     "path: /x/y: missing value");
    expect_apply_err("{'a':1}", "[{'op':'move','path':'/y'}]",
                     "move operation failed to decode from: operation, "
                     "missing from field: missing value");
    expect_apply_err("{'a':1}", "[{'op':'move','from':'/a'}]",
                     "move operation failed to decode path: operation "
                     "missing path field: missing value");

    /* copy into an array, then change the copy only */
    expect_ok(gcp_patch_json, "{'a':{'b':[1]}}",
              "[{'op':'copy','from':'/a','path':'/c'},"
              "{'op':'add','path':'/c/b/-','value':2},"
              "{'op':'copy','from':'/a/b/0','path':'/a/b/0'}]",
              "{'a':{'b':[1,1]},'c':{'b':[1,2]}}");
    expect_apply_err("{'a':[]}", "[{'op':'copy','from':'/a/0','path':'/b'}]",
                     "error in copy for from: '/a/0': Unable to access "
                     "invalid index: 0: invalid index referenced");
    expect_apply_err("{'a':1}", "[{'op':'copy','from':'/a','path':'/x/y'}]",
                     "copy operation does not apply: doc is missing "
                     "destination path: /x/y: missing value");
    expect_apply_err("{'a':1}", "[{'op':'copy','from':'/a'}]",
                     "copy operation failed to decode path: missing value");
    expect_apply_err("{'a':1}", "[{'op':'copy','from':1,'path':'/b'}]",
                     "copy operation failed to decode from: json: cannot "
                     "unmarshal number into Go value of type string");

    /* the other decoding errors */
    expect_apply_err("{'a':1}", "[{'op':'add','path':null,'value':1}]",
                     "add operation failed to decode path: missing value");
    expect_apply_err("{'a':1}", "[{'op':'remove'}]",
                     "remove operation failed to decode path: missing "
                     "value");
    expect_apply_err("{'a':1}", "[{'op':'replace','path':2}]",
                     "replace operation failed to decode path: json: cannot "
                     "unmarshal number into Go value of type string");
    expect_apply_err("{'a':1}", "[{'op':'test'}]",
                     "test operation failed to decode path: operation "
                     "missing path field: missing value");
    expect_apply_err("{'a':1}", "[{'op':'test','path':'/a/b','value':1}]",
                     "test operation does not apply: is missing path: /a/b: "
                     "missing value");
    expect_apply_err("{'a':1}", "[{'op':'replace','path':'/x/y','value':1}]",
                     "replace operation does not apply: doc is missing "
                     "path: /x/y: missing value");
    expect_apply_err("{'a':'s'}", "[{'op':'remove','path':'/a/0'}]",
                     "remove operation does not apply: doc is missing "
                     "path: \"/a/0\": missing value");
}


static void
test_json_patch_copy_limit(void **state)
{
    int           i, rc;
    char         *big;
    json_t       *d, *o, *op, *out;
    const char   *msg;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);

    /* a 1 MiB string: the third copy brings 3145731 bytes > 3 MiB */
    d = json_object();
    o = json_array();
    big = gcp_alloc(a, 1 << 20);
    assert_non_null(big);
    memset(big, 'x', (1 << 20) - 1);
    big[(1 << 20) - 1] = '\0';
    json_object_set_new(d, "big", json_string(big));

    for (i = 0; i < 4; i++) {
        op = json_pack("{s:s, s:s, s:s}", "op", "copy", "from", "/big",
                       "path", "/c");
        json_array_append_new(o, op);
    }

    rc = gcp_patch_json_apply(a, d, o, &out, &msg);
    assert_int_equal(rc, GCP_EINVALID);
    assert_null(out);
    assert_string_equal(msg, "Unable to complete the copy, the accumulated "
                        "size increase of copy is 3145731, exceeding the "
                        "limit 3145728");

    /* two copies are fine */
    json_array_remove(o, 0);
    json_array_remove(o, 0);
    rc = gcp_patch_json_apply(a, d, o, &out, &msg);
    assert_int_equal(rc, GCP_OK);
    assert_int_equal(json_string_length(json_object_get(out, "c")),
                     (1 << 20) - 1);
    json_decref(out);

    /* sizes are Go's: "<" is written "\u003c" */
    memset(big, '<', 1 << 19);
    big[1 << 19] = '\0';
    json_object_set_new(d, "big", json_string(big));

    rc = gcp_patch_json_apply(a, d, o, &out, &msg);
    assert_int_equal(rc, GCP_EINVALID);
    assert_string_equal(msg, "Unable to complete the copy, the accumulated "
                        "size increase of copy is 3145730, exceeding the "
                        "limit 3145728");

    json_decref(o);
    json_decref(d);
    gcp_arena_destroy(a);
}


static void
test_json_patch_apply_api(void **state)
{
    int           rc;
    json_t       *d, *o, *out;
    const char   *msg;
    gcp_arena_t  *a;

    /* values of the caller's ops are copied, not shared */
    expect_apply_ok("{'a':1}",
                    "[{'op':'add','path':'/b','value':{'c':[1,{'d':2}]}},"
                    "{'op':'replace','path':'/a','value':'x'}]",
                    "{'a':'x','b':{'c':[1,{'d':2}]}}");
    expect_apply_ok("{'a':1}",
                    "[{'op':'replace','path':'','value':{'z':[1]}}]",
                    "{'z':[1]}");

    /* an array document */
    expect_apply_ok("[1,2]", "[{'op':'add','path':'/0','value':0}]",
                    "[0,1,2]");

    a = gcp_arena_create(0);
    d = sp_load(a, "{'a':1}");

    rc = gcp_patch_json_apply(a, d, d, &out, &msg);
    assert_int_equal(rc, GCP_EBADREQUEST);
    assert_null(out);

    json_decref(d);
    d = json_string("x");
    o = json_array();
    rc = gcp_patch_json_apply(a, d, o, &out, &msg);
    assert_int_equal(rc, GCP_EINVALID);
    assert_string_equal(msg, "json: cannot unmarshal string into Go value of "
                        "type jsonpatch.partialDoc");

    json_decref(o);
    json_decref(d);
    gcp_arena_destroy(a);
}


/* ---------------------------------------------------------- merge patch */


/* RFC 7386 Appendix A, on parsed values */
static void
expect_merge_value(const char *doc, const char *patch, const char *expected)
{
    json_t       *d, *p, *out;
    const char   *before;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    d = sp_load(a, doc);
    p = sp_load(a, patch);
    before = sp_dump_ordered(a, p);

    out = gcp_patch_merge_value(d, p);
    assert_non_null(out);
    assert_string_equal(sp_dump(a, out), sp_canon(a, expected));
    assert_string_equal(sp_dump_ordered(a, p), before);
    assert_int_equal(p->refcount == 1 || p->refcount == (size_t) -1, 1);

    json_decref(out);
    json_decref(p);
    json_decref(d);
    gcp_arena_destroy(a);
}


static void
test_rfc7386_examples(void **state)
{
    expect_merge_value("{'a':'b'}", "{'a':'c'}", "{'a':'c'}");
    expect_merge_value("{'a':'b'}", "{'b':'c'}", "{'a':'b','b':'c'}");
    expect_merge_value("{'a':'b'}", "{'a':null}", "{}");
    expect_merge_value("{'a':'b','b':'c'}", "{'a':null}", "{'b':'c'}");
    expect_merge_value("{'a':['b']}", "{'a':'c'}", "{'a':'c'}");
    expect_merge_value("{'a':'c'}", "{'a':['b']}", "{'a':['b']}");
    expect_merge_value("{'a':{'b':'c'}}", "{'a':{'b':'d','c':null}}",
                       "{'a':{'b':'d'}}");
    expect_merge_value("{'a':[{'b':'c'}]}", "{'a':[1]}", "{'a':[1]}");
    expect_merge_value("['a','b']", "['c','d']", "['c','d']");
    expect_merge_value("{'a':'b'}", "['c']", "['c']");
    expect_merge_value("{'a':'foo'}", "null", "null");
    expect_merge_value("{'a':'foo'}", "'bar'", "'bar'");
    expect_merge_value("{'e':null}", "{'a':1}", "{'e':null,'a':1}");
    expect_merge_value("[1,2]", "{'a':'b','c':null}", "{'a':'b'}");
    expect_merge_value("{}", "{'a':{'bb':{'ccc':null}}}", "{'a':{'bb':{}}}");
}


static void
test_merge_patch_quirks(void **state)
{
    /* a value that replaces has its nulls pruned, in arrays too */
    expect_merge_value("{}", "{'a':[{'b':null,'c':1},null,[{'d':null}]]}",
                       "{'a':[{'c':1},null,[{}]]}");
    expect_merge_value("{'a':'s'}", "{'a':{'b':null,'c':{'d':null}}}",
                       "{'a':{'c':{}}}");
    expect_merge_value("{'a':null}", "{'a':{'b':null,'c':2}}",
                       "{'a':{'c':2}}");

    /* an object replaced by a non-object keeps the patch value as it is */
    expect_merge_value("{'a':{'x':1}}", "{'a':[{'b':null}]}",
                       "{'a':[{'b':null}]}");

    /* empty values stay */
    expect_merge_value("{'a':{'x':1}}", "{'a':{},'b':[],'c':{}}",
                       "{'a':{'x':1},'b':[],'c':{}}");

    /* new members go last, in patch order */
    {
        json_t       *d, *p, *out;
        gcp_arena_t  *a;

        a = gcp_arena_create(0);
        d = sp_load(a, "{'z':1,'y':2}");
        p = sp_load(a, "{'x':3,'z':4,'w':5}");
        out = gcp_patch_merge_value(d, p);
        assert_string_equal(sp_dump_ordered(a, out),
                            "{\"z\":4,\"y\":2,\"x\":3,\"w\":5}");
        json_decref(out);
        json_decref(p);
        json_decref(d);
        gcp_arena_destroy(a);
    }
}


static void
test_merge_patch_reference(void **state)
{
    /* 02-cm-patch-merge-patch.http: null deletes key3 */
    expect_ok(gcp_patch_merge,
              "{'metadata':{'name':'cm1','labels':{'app':'demo',"
              "'patched':'json','tier':'backend'}},'data':{'key1':'value1',"
              "'key2':'patched-by-json-patch','key3':'value3',"
              "'nosuchkey':'x'}}",
              "{'data':{'key2':'patched-by-merge','key3':null},"
              "'metadata':{'labels':{'patched':'merge'}}}",
              "{'metadata':{'name':'cm1','labels':{'app':'demo',"
              "'patched':'merge','tier':'backend'}},'data':{'key1':'value1',"
              "'key2':'patched-by-merge','nosuchkey':'x'}}");

    /* 02-cm-patch-remove-finalizer.http */
    expect_ok(gcp_patch_merge,
              "{'metadata':{'name':'cm-fin','finalizers':['ref/x']},"
              "'data':{'k':'v'}}",
              "{'metadata':{'finalizers':null}}",
              "{'metadata':{'name':'cm-fin'},'data':{'k':'v'}}");

    /* 09-cr-patch-merge.http: the list is replaced */
    expect_ok(gcp_patch_merge,
              "{'spec':{'color':'blue','replicas':3,'size':'small',"
              "'tags':['a','b']}}",
              "{'spec':{'tags':['only']}}",
              "{'spec':{'color':'blue','replicas':3,'size':'small',"
              "'tags':['only']}}");

    /* 03-secret-patch-immutable-flag-rejected.http: the patch applies */
    expect_ok(gcp_patch_merge, "{'immutable':true,'data':{}}",
              "{'immutable':false}", "{'immutable':false,'data':{}}");
}


static void
test_merge_patch_errors(void **state)
{
    expect_err(gcp_patch_merge, "{}", "['c']", GCP_EBADREQUEST,
               "error decoding patch: json: cannot unmarshal array into Go "
               "value of type map[string]interface {}");
    expect_err(gcp_patch_merge, "{}", "'bar'", GCP_EBADREQUEST,
               "error decoding patch: json: cannot unmarshal string into Go "
               "value of type map[string]interface {}");
    expect_err(gcp_patch_merge, "{}", "true", GCP_EBADREQUEST,
               "error decoding patch: json: cannot unmarshal bool into Go "
               "value of type map[string]interface {}");
    expect_err(gcp_patch_merge, "{}", "null", GCP_EBADREQUEST,
               "Invalid JSON Patch");
    expect_err_raw(gcp_patch_merge, "{}", "{\"a\":", GCP_EBADREQUEST,
                   "error decoding patch: unexpected end of JSON input");
    expect_err_raw(gcp_patch_merge, "{}", "", GCP_EBADREQUEST,
                   "error decoding patch: unexpected end of JSON input");
}


/* --------------------------------------------------- Go decoding details */


/* Returns depth nested objects {"a":{"a":...{}}}, arena-owned. */
static const char *
nested(gcp_arena_t *a, int depth, const char *inner)
{
    int        i;
    gcp_buf_t  b;

    gcp_buf_init(&b, a);

    for (i = 0; i < depth; i++) {
        gcp_buf_addstr(&b, "{\"a\":");
    }

    gcp_buf_addstr(&b, inner);

    for (i = 0; i < depth; i++) {
        gcp_buf_addc(&b, '}');
    }

    assert_false(gcp_buf_failed(&b));

    return gcp_buf_cstr(&b);
}


static void
test_go_decoding(void **state)
{
    int           rc;
    json_t       *d, *out;
    const char   *p, *msg;
    gcp_arena_t  *a;

    /* Go's syntax errors and number range */
    expect_err_raw(gcp_patch_json, "{}", "[1 2]", GCP_EBADREQUEST,
                   "error decoding patch: invalid character '2' after array "
                   "element");
    expect_err_raw(gcp_patch_json, "{}",
                   "[{\"op\":\"add\",\"path\":\"/a\",\"value\":1e999}]",
                   GCP_EBADREQUEST, "error decoding patch: json: cannot "
                   "unmarshal number 1e999 into Go value of type float64");
    expect_err_raw(gcp_patch_merge, "{}", "{\"a\" 1}", GCP_EBADREQUEST,
                   "error decoding patch: invalid character '1' after object "
                   "key");

    /* keys and strings may hold NULs: "a\u0000b" is not "a" */
    expect_ok(gcp_patch_json, "{'a':1}",
              "[{'op':'add','path':'/a\\u0000b','value':2},"
              "{'op':'test','path':'/a','value':1},"
              "{'op':'move','from':'/a\\u0000b','path':'/c'}]",
              "{'a':1,'c':2}");
    expect_apply_err("{'a':1}",
                     "[{'op':'add\\u0000x','path':'/b','value':2}]",
                     "Unexpected kind: add");
    expect_apply_err("{'l':[1]}",
                     "[{'op':'remove','path':'/l/0\\u0000'}]",
                     "error in remove for path: '/l/0': strconv.Atoi: "
                     "parsing \"0\\x00\": invalid syntax");

    a = gcp_arena_create(0);
    d = sp_load(a, "{'a':1}");
    p = "{\"a\\u0000b\":2,\"a\":null}";
    rc = gcp_patch_merge(a, d, p, strlen(p), &out, &msg);
    assert_int_equal(rc, GCP_OK);
    assert_int_equal(json_object_size(out), 1);
    assert_int_equal(json_integer_value(json_object_getn(out, "a\0b", 3)), 2);
    json_decref(out);
    json_decref(d);

    /* deep documents: no recursion trouble at Go's depth limit */
    d = json_object();

    p = nested(a, 9990, "{\"b\":null}");
    rc = gcp_patch_merge(a, d, p, strlen(p), &out, &msg);
    assert_int_equal(rc, GCP_OK);

    json_decref(d);
    d = out;

    p = nested(a, 9990, "{\"c\":1}");
    rc = gcp_patch_merge(a, d, p, strlen(p), &out, &msg);
    assert_int_equal(rc, GCP_OK);
    json_decref(d);
    d = out;

    p = nested(a, 10001, "1");
    rc = gcp_patch_merge(a, d, p, strlen(p), &out, &msg);
    assert_int_equal(rc, GCP_EBADREQUEST);
    assert_string_equal(msg, "error decoding patch: invalid character '{' "
                        "exceeded max depth");

    json_decref(d);
    gcp_arena_destroy(a);
}


static void
test_unshare(void **state)
{
    json_t  *root, *shared;

    root = json_object();
    shared = json_pack("{s:[i,i]}", "x", 1, 2);

    json_object_set(root, "a", shared);
    json_object_set(root, "b", shared);
    json_object_set_new(root, "c", json_pack("[O,O]", shared, shared));
    json_decref(shared);

    assert_int_equal(shared->refcount, 4);
    assert_int_equal(gcp_patch_unshare(root), 1);

    assert_true(json_object_get(root, "a") != json_object_get(root, "b"));
    assert_int_equal(json_object_get(root, "a")->refcount, 1);
    assert_int_equal(json_object_get(root, "b")->refcount, 1);
    assert_int_equal(
        json_array_get(json_object_get(root, "c"), 0)->refcount, 1);
    assert_int_equal(
        json_array_get(json_object_get(root, "c"), 1)->refcount, 1);
    assert_true(json_equal(json_object_get(root, "a"),
                           json_array_get(json_object_get(root, "c"), 1)));

    json_decref(root);
}


/*
 * Object keys holding NUL bytes (a custom resource that preserves unknown
 * fields may store them) come out of every patch type whole, from the
 * document and from the patch; jansson's json_deep_copy() cut them.
 */

static void
nul_keys_kept(gcp_arena_t *a, const json_t *out)
{
    json_t  *inner;

    assert_non_null(out);
    assert_null(json_object_get(out, "a"));
    assert_int_equal(json_integer_value(json_object_getn(out, "a\0b", 3)), 1);

    inner = json_object_getn(out, "c\0d", 3);
    assert_non_null(inner);
    assert_int_equal(json_object_size(inner), 2);
    assert_int_equal(json_integer_value(json_object_getn(inner, "x\0y", 3)),
                     2);
    assert_int_equal(json_integer_value(json_object_getn(inner, "x\0z", 3)),
                     3);
    assert_true(json_is_object(json_object_getn(out, "n\0p", 3)));
    assert_int_equal(json_integer_value(
                         json_object_getn(json_object_getn(out, "n\0p", 3),
                                          "q\0r", 3)), 4);
}


static void
test_nul_keys(void **state)
{
    json_t       *doc, *out, *copy;
    const char   *msg;
    gcp_arena_t  *a;

    static const char  d[] = "{\"a\\u0000b\":1,\"c\\u0000d\":{"
                             "\"x\\u0000y\":2,\"x\\u0000z\":3}}";
    static const char  mp[] = "{\"n\\u0000p\":{\"q\\u0000r\":4}}";
    static const char  jp[] = "[{\"op\":\"add\",\"path\":\"/n\\u0000p\","
                              "\"value\":{\"q\\u0000r\":4}}]";

    a = gcp_arena_create(0);
    doc = gcp_json_parse(a, d, sizeof(d) - 1, &msg);
    assert_non_null(doc);
    assert_int_equal(json_object_size(doc), 2);

    assert_int_equal(gcp_patch_merge(a, doc, mp, sizeof(mp) - 1, &out, &msg),
                     GCP_OK);
    nul_keys_kept(a, out);
    json_decref(out);

    assert_int_equal(gcp_patch_strategic(a, NULL, NULL, doc, mp,
                                         sizeof(mp) - 1, &out, &msg),
                     GCP_OK);
    nul_keys_kept(a, out);
    json_decref(out);

    assert_int_equal(gcp_patch_json(a, doc, jp, sizeof(jp) - 1, &out, &msg),
                     GCP_OK);
    nul_keys_kept(a, out);

    /* the copies and the comparison tell such keys apart */
    copy = gcp_json_deep_copy(out);
    nul_keys_kept(a, copy);
    assert_true(gcp_json_equal(copy, out));
    json_object_setn_new(json_object_getn(copy, "c\0d", 3), "x\0z", 3,
                         json_integer(2));
    json_object_setn_new(json_object_getn(copy, "c\0d", 3), "x\0y", 3,
                         json_integer(3));
    assert_false(gcp_json_equal(copy, out));
    json_decref(copy);

    copy = gcp_json_copy(out);
    assert_int_equal(json_object_size(copy), 3);
    assert_ptr_equal(json_object_getn(copy, "c\0d", 3),
                     json_object_getn(out, "c\0d", 3));
    json_decref(copy);

    json_decref(out);
    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc6902_examples),
        cmocka_unit_test(test_json_patch_reference),
        cmocka_unit_test(test_json_patch_decoding),
        cmocka_unit_test(test_json_patch_max_ops),
        cmocka_unit_test(test_json_patch_arrays),
        cmocka_unit_test(test_json_patch_quirks),
        cmocka_unit_test(test_json_patch_move_copy),
        cmocka_unit_test(test_json_patch_copy_limit),
        cmocka_unit_test(test_json_patch_apply_api),
        cmocka_unit_test(test_rfc7386_examples),
        cmocka_unit_test(test_merge_patch_quirks),
        cmocka_unit_test(test_merge_patch_reference),
        cmocka_unit_test(test_merge_patch_errors),
        cmocka_unit_test(test_go_decoding),
        cmocka_unit_test(test_unshare),
        cmocka_unit_test(test_nul_keys),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
