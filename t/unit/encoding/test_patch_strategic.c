
/*
 * Unit tests: strategic merge patch (core/encoding/gcp_patch_strategic.c).
 * The test schema mirrors apimachinery's strategicpatch test types (MergeItem,
 * RetainKeysStruct) and the Kubernetes fields that matter here; the fixtures
 * are upstream patch_test.go cases (three-way patch applied to the current
 * object), whose list orders are exact.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "gcp_patch.h"
#include "support_patch.h"


#define REF(name)  "{'$ref':'#/definitions/" name "'}"

#define MERGE_LIST(items, key)                                                \
    "{'type':'array','items':" items ",'x-kubernetes-patch-strategy':"      \
    "'merge','x-kubernetes-patch-merge-key':'" key "'}"

#define STRING_MAP "{'type':'object','additionalProperties':{'type':'string'}}"


static const char  *schema_doc =
    "{"
    "'test.MergeItem':{'type':'object','properties':{"
    "'kind':{'type':'string'},'name':{'type':'string'},"
    "'value':{'type':'string'},'other':{'type':'string'},"
    "'mergingList':" MERGE_LIST(REF("test.MergeItem"), "name") ","
    "'nonMergingList':{'type':'array','items':" REF("test.MergeItem") "},"
    "'mergingIntList':{'type':'array','items':{'type':'integer'},"
    "'x-kubernetes-patch-strategy':'merge'},"
    "'nonMergingIntList':{'type':'array','items':{'type':'integer'}},"
    "'mergeItemPtr':" MERGE_LIST(REF("test.MergeItem"), "name") ","
    "'simpleMap':" STRING_MAP ","
    "'replacingItem':{'type':'object',"
    "'x-kubernetes-patch-strategy':'replace'},"
    "'retainKeysMap':{'allOf':[" REF("test.RetainKeys") "],"
    "'x-kubernetes-patch-strategy':'retainKeys'},"
    "'retainKeysMergingList':{'type':'array','items':"
    REF("test.MergeItem") ",'x-kubernetes-patch-strategy':"
    "'merge,retainKeys','x-kubernetes-patch-merge-key':'name'},"
    "'badStrategy':{'type':'array','x-kubernetes-patch-strategy':"
    "'merge,replace'}}},"

    "'test.RetainKeys':{'type':'object','properties':{"
    "'name':{'type':'string'},'value':{'type':'string'},"
    "'other':{'type':'string'},'simpleMap':" STRING_MAP ","
    "'mergingList':" MERGE_LIST(REF("test.MergeItem"), "name") ","
    "'nonMergingList':{'type':'array','items':" REF("test.MergeItem") "},"
    "'mergingIntList':{'type':'array','items':{'type':'integer'},"
    "'x-kubernetes-patch-strategy':'merge'}}},"

    "'test.ObjectMeta':{'type':'object','properties':{"
    "'name':{'type':'string'},'labels':" STRING_MAP ","
    "'annotations':" STRING_MAP ","
    "'finalizers':{'type':'array','items':{'type':'string'},"
    "'x-kubernetes-patch-strategy':'merge'},"
    "'ownerReferences':{'type':'array','items':{'allOf':["
    "{'$ref':'#/components/schemas/test.OwnerReference'}]},"
    "'x-kubernetes-patch-strategy':'merge',"
    "'x-kubernetes-patch-merge-key':'uid'}}},"

    "'test.OwnerReference':{'type':'object','properties':{"
    "'uid':{'type':'string'},'name':{'type':'string'},"
    "'kind':{'type':'string'}}},"

    "'test.ConfigMap':{'type':'object','properties':{"
    "'metadata':{'allOf':[" REF("test.ObjectMeta") "]},"
    "'data':" STRING_MAP "}},"

    "'test.Role':{'type':'object','properties':{"
    "'metadata':" REF("test.ObjectMeta") ","
    "'rules':{'type':'array','items':" REF("test.PolicyRule") ","
    "'x-kubernetes-list-type':'atomic'}}},"

    "'test.PolicyRule':{'type':'object','properties':{"
    "'verbs':{'type':'array','items':{'type':'string'}},"
    "'resources':{'type':'array','items':{'type':'string'}}}},"

    "'test.Pod':{'type':'object','properties':{"
    "'metadata':" REF("test.ObjectMeta") ","
    "'spec':" REF("test.PodSpec") "}},"

    "'test.PodSpec':{'type':'object','properties':{"
    "'containers':" MERGE_LIST(REF("test.Container"), "name") ","
    "'volumes':{'type':'array','items':" REF("test.Volume") ","
    "'x-kubernetes-patch-strategy':'merge,retainKeys',"
    "'x-kubernetes-patch-merge-key':'name'}}},"

    "'test.Container':{'type':'object','properties':{"
    "'name':{'type':'string'},'image':{'type':'string'},"
    "'ports':" MERGE_LIST(REF("test.Port"), "containerPort") ","
    "'env':" MERGE_LIST(REF("test.Env"), "name") ","
    "'args':{'type':'array','items':{'type':'string'}}}},"

    "'test.Port':{'type':'object','properties':{"
    "'containerPort':{'type':'integer'},'name':{'type':'string'}}},"

    "'test.Env':{'type':'object','properties':{"
    "'name':{'type':'string'},'value':{'type':'string'}}},"

    "'test.Volume':{'type':'object','properties':{"
    "'name':{'type':'string'},'hostPath':{'type':'object'},"
    "'emptyDir':{'type':'object'}}}"
    "}";


static gcp_schema_set_t  *set;


static int
setup(void **state)
{
    const char   *err;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    set = gcp_schema_set_create();
    assert_non_null(set);

    err = NULL;
    assert_int_equal(gcp_schema_set_add_doc(set, sp_q(a, schema_doc),
                                            strlen(schema_doc), &err),
                     GCP_OK);
    gcp_arena_destroy(a);

    return 0;
}


static int
teardown(void **state)
{
    gcp_schema_set_free(set);

    return 0;
}


/* Applies patch to doc with the schema of type; returns the result dump. */
static int
smp(gcp_arena_t *a, const char *type, const char *doc, const char *patch,
    const char **res)
{
    int          rc;
    json_t      *d, *out;
    const char  *p, *msg, *before;

    d = sp_load(a, doc);
    before = sp_dump_ordered(a, d);
    p = sp_q(a, patch);

    msg = NULL;
    out = (json_t *) 1;

    rc = gcp_patch_strategic(a, set, type ? gcp_schema_get(set, type) : NULL,
                             d, p, strlen(p), &out, &msg);

    if (rc == GCP_OK) {
        *res = sp_dump(a, out);

        /* a tree of its own */
        assert_int_equal(out->refcount, 1);
        json_decref(out);

    } else {
        assert_null(out);
        assert_non_null(msg);
        *res = msg;
    }

    assert_string_equal(sp_dump_ordered(a, d), before);
    assert_int_equal(d->refcount, 1);
    json_decref(d);

    return rc;
}


static void
expect_smp(const char *type, const char *doc, const char *patch,
    const char *expected)
{
    int           rc;
    const char   *res;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);

    rc = smp(a, type, doc, patch, &res);
    if (rc != GCP_OK) {
        fail_msg("patch %s failed: %d %s", patch, rc, res);
    }

    assert_string_equal(res, sp_canon(a, expected));

    gcp_arena_destroy(a);
}


static void
expect_smp_err(const char *type, const char *doc, const char *patch,
    int code, const char *message)
{
    int           rc;
    const char   *res;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);

    rc = smp(a, type, doc, patch, &res);
    assert_int_equal(rc, code);
    assert_string_equal(res, message);

    gcp_arena_destroy(a);
}


#define M  "test.MergeItem"


/* ----------------------------------------------------- upstream fixtures */


typedef struct {
    const char  *name;
    const char  *current;
    const char  *patch;
    const char  *result;
} fixture_t;


static const fixture_t  fixtures[] = {

    { "nested patch merge with empty list",
      "{'name':'hi','mergingList':[{'name':'hello2'}]}",
      "{'$setElementOrder/mergingList':[{'name':'hello'},"
      "{'name':'doesntexist'}],'mergingList':[{'name':'hello'}]}",
      "{'name':'hi','mergingList':[{'name':'hello'},{'name':'hello2'}]}" },

    { "delete items in lists of scalars",
      "{'mergingIntList':[1,2,3,4]}",
      "{'$setElementOrder/mergingIntList':[1,2],"
      "'$deleteFromPrimitiveList/mergingIntList':[3]}",
      "{'mergingIntList':[1,2,4]}" },

    { "delete all duplicate items in lists of scalars",
      "{'mergingIntList':[1,2,3,3,4]}",
      "{'$setElementOrder/mergingIntList':[1,2],"
      "'$deleteFromPrimitiveList/mergingIntList':[3]}",
      "{'mergingIntList':[1,2,4]}" },

    { "add and delete items in lists of scalars",
      "{'mergingIntList':[1,2,3,4]}",
      "{'$setElementOrder/mergingIntList':[1,2,4],"
      "'$deleteFromPrimitiveList/mergingIntList':[3]}",
      "{'mergingIntList':[1,2,4]}" },

    { "merge lists of maps",
      "{'mergingList':[{'name':1,'other':'a'},"
      "{'name':2,'value':2,'other':'b'}]}",
      "{'$setElementOrder/mergingList':[{'name':4},{'name':1},{'name':2},"
      "{'name':3}],'mergingList':[{'name':4,'value':4},"
      "{'name':3,'value':3}]}",
      "{'mergingList':[{'name':4,'value':4},{'name':1,'other':'a'},"
      "{'name':2,'value':2,'other':'b'},{'name':3,'value':3}]}" },

    { "add field to map in merging list with conflict",
      "{'mergingList':[{'name':1,'other':'a'},"
      "{'name':3,'value':2,'other':'b'}]}",
      "{'$setElementOrder/mergingList':[{'name':1},{'name':2}],"
      "'mergingList':[{'name':1,'value':1},{'name':2,'value':2}]}",
      "{'mergingList':[{'name':1,'value':1,'other':'a'},"
      "{'name':2,'value':2},{'name':3,'value':2,'other':'b'}]}" },

    { "add map and delete map from merging list",
      "{'mergingList':[{'name':1},{'name':2,'other':'b'},"
      "{'name':4,'other':'c'}]}",
      "{'$setElementOrder/mergingList':[{'name':2},{'name':3}],"
      "'mergingList':[{'name':3},{'name':1,'$patch':'delete'}]}",
      "{'mergingList':[{'name':2,'other':'b'},{'name':4,'other':'c'},"
      "{'name':3}]}" },

    { "add map and delete map from merging list with conflict",
      "{'mergingList':[{'name':1,'other':'a'},{'name':4,'other':'c'}]}",
      "{'$setElementOrder/mergingList':[{'name':2},{'name':3}],"
      "'mergingList':[{'name':2},{'name':3},"
      "{'name':1,'$patch':'delete'}]}",
      "{'mergingList':[{'name':4,'other':'c'},{'name':2},{'name':3}]}" },

    { "delete map from merging list",
      "{'mergingList':[{'name':1},{'name':2,'other':'b'}]}",
      "{'$setElementOrder/mergingList':[{'name':2}],"
      "'mergingList':[{'name':1,'$patch':'delete'}]}",
      "{'mergingList':[{'name':2,'other':'b'}]}" },

    { "delete missing map from merging list with conflict",
      "{'mergingList':[{'name':3,'other':'a'}]}",
      "{'$setElementOrder/mergingList':[{'name':2}],"
      "'mergingList':[{'name':2},{'name':1,'$patch':'delete'}]}",
      "{'mergingList':[{'name':2},{'name':3,'other':'a'}]}" },

    { "delete field from map in merging list",
      "{'mergingList':[{'name':1,'value':1,'other':'a'},"
      "{'name':2,'value':2,'other':'b'}]}",
      "{'$setElementOrder/mergingList':[{'name':1},{'name':2}],"
      "'mergingList':[{'name':1,'value':null}]}",
      "{'mergingList':[{'name':1,'other':'a'},"
      "{'name':2,'value':2,'other':'b'}]}" },

    { "replace non merging list nested in merging list",
      "{'mergingList':[{'name':1,'other':'a','nonMergingList':["
      "{'name':1},{'name':2,'value':2}]},{'name':2,'other':'b'}]}",
      "{'$setElementOrder/mergingList':[{'name':1},{'name':2}],"
      "'mergingList':[{'name':1,'nonMergingList':[{'name':1,"
      "'value':1}]}]}",
      "{'mergingList':[{'name':1,'other':'a','nonMergingList':["
      "{'name':1,'value':1}]},{'name':2,'other':'b'}]}" },

    { "add field to map in merging list nested in merging list",
      "{'mergingList':[{'name':1,'other':'a','mergingList':["
      "{'name':1,'value':'a','other':'c'},"
      "{'name':2,'value':'b','other':'d'}]},{'name':2,'other':'b'}]}",
      "{'$setElementOrder/mergingList':[{'name':1},{'name':2}],"
      "'mergingList':[{'$setElementOrder/mergingList':[{'name':1},"
      "{'name':2}],'name':1,'mergingList':[{'name':1,'value':1},"
      "{'name':2,'value':2}]}]}",
      "{'mergingList':[{'name':1,'other':'a','mergingList':["
      "{'name':1,'value':1,'other':'c'},"
      "{'name':2,'value':2,'other':'d'}]},{'name':2,'other':'b'}]}" },

    { "add field to nested merging list in another order",
      "{'mergingList':[{'name':1,'other':'a','mergingList':["
      "{'name':2,'value':2,'other':'d'}]},{'name':2,'other':'b'}]}",
      "{'$setElementOrder/mergingList':[{'name':1},{'name':2}],"
      "'mergingList':[{'$setElementOrder/mergingList':[{'name':2},"
      "{'name':1}],'name':1,'mergingList':[{'name':1,'value':1}]}]}",
      "{'mergingList':[{'name':1,'other':'a','mergingList':["
      "{'name':2,'value':2,'other':'d'},{'name':1,'value':1}]},"
      "{'name':2,'other':'b'}]}" },

    { "add map to merging list by pointer",
      "{'mergeItemPtr':[{'name':1,'other':'a'},{'name':3}]}",
      "{'$setElementOrder/mergeItemPtr':[{'name':1},{'name':2}],"
      "'mergeItemPtr':[{'name':2}]}",
      "{'mergeItemPtr':[{'name':1,'other':'a'},{'name':2},{'name':3}]}" },

    { "merge lists of scalars",
      "{'mergingIntList':[1,2,4]}",
      "{'$setElementOrder/mergingIntList':[1,2,3],'mergingIntList':[3]}",
      "{'mergingIntList':[1,2,3,4]}" },

    { "add an item in a list of primitives and preserve order",
      "{'mergingIntList':[1,4,2]}",
      "{'$setElementOrder/mergingIntList':[3,1,2],'mergingIntList':[3]}",
      "{'mergingIntList':[3,1,4,2]}" },

    { "delete an item in a list of primitives and preserve order",
      "{'mergingIntList':[1,2,3]}",
      "{'$setElementOrder/mergingIntList':[2,1],"
      "'$deleteFromPrimitiveList/mergingIntList':[3]}",
      "{'mergingIntList':[2,1]}" },

    { "add multiple items in a int list and preserve order",
      "{'mergingIntList':[1,2]}",
      "{'$setElementOrder/mergingIntList':[1,4,2,3],"
      "'mergingIntList':[4,3]}",
      "{'mergingIntList':[1,4,2,3]}" },

    { "add an item in a list and preserve order",
      "{'mergingList':[{'name':1,'other':'a'},"
      "{'name':2,'value':2,'other':'b'}]}",
      "{'$setElementOrder/mergingList':[{'name':3},{'name':1},{'name':2}],"
      "'mergingList':[{'name':3,'value':3}]}",
      "{'mergingList':[{'name':3,'value':3},{'name':1,'other':'a'},"
      "{'name':2,'value':2,'other':'b'}]}" },

    { "delete an item in a list and preserve order",
      "{'mergingList':[{'name':1,'other':'a'},"
      "{'name':2,'value':2,'other':'b'},{'name':3,'value':3}]}",
      "{'$setElementOrder/mergingList':[{'name':2},{'name':1}],"
      "'mergingList':[{'name':3,'$patch':'delete'}]}",
      "{'mergingList':[{'name':2,'value':2,'other':'b'},"
      "{'name':1,'other':'a'}]}" },

    { "add and delete an item in a list and preserve order",
      "{'mergingList':[{'name':1,'other':'a'},"
      "{'name':2,'value':2,'other':'b'},{'name':3,'value':3}]}",
      "{'$setElementOrder/mergingList':[{'name':4},{'name':2},{'name':1}],"
      "'mergingList':[{'name':4,'value':4},{'name':3,'$patch':'delete'}]}",
      "{'mergingList':[{'name':4,'value':4},"
      "{'name':2,'value':2,'other':'b'},{'name':1,'other':'a'}]}" },

    { "set elements order in a list with server-only items",
      "{'mergingList':[{'name':1,'other':'a'},{'name':3,'value':3},"
      "{'name':4,'value':4},{'name':2,'value':2},{'name':9}]}",
      "{'$setElementOrder/mergingList':[{'name':4},{'name':2},{'name':3},"
      "{'name':1}]}",
      "{'mergingList':[{'name':4,'value':4},{'name':2,'value':2},"
      "{'name':3,'value':3},{'name':1,'other':'a'},{'name':9}]}" },

    { "set elements order in a list with server-only items 2",
      "{'mergingList':[{'name':1,'other':'a'},{'name':2,'value':2},"
      "{'name':9},{'name':3,'value':3},{'name':4,'value':4}]}",
      "{'$setElementOrder/mergingList':[{'name':2},{'name':1},{'name':4},"
      "{'name':3}]}",
      "{'mergingList':[{'name':2,'value':2},{'name':1,'other':'a'},"
      "{'name':9},{'name':4,'value':4},{'name':3,'value':3}]}" },

    { "set elements order in a list with server-only items 3",
      "{'mergingList':[{'name':1,'other':'a'},{'name':2,'value':2},"
      "{'name':7},{'name':9},{'name':8},{'name':3,'value':3},"
      "{'name':4,'value':4}]}",
      "{'$setElementOrder/mergingList':[{'name':2},{'name':1},{'name':4},"
      "{'name':3}]}",
      "{'mergingList':[{'name':2,'value':2},{'name':1,'other':'a'},"
      "{'name':7},{'name':9},{'name':8},{'name':4,'value':4},"
      "{'name':3,'value':3}]}" },

    { "retainKeys map changes a field in a nested map with conflict",
      "{'retainKeysMap':{'name':'foo','value':'bar','simpleMap':{"
      "'key1':'new','key2':'b','key3':'c'}}}",
      "{'retainKeysMap':{'$retainKeys':['name','simpleMap','value'],"
      "'simpleMap':{'key1':'modified'}}}",
      "{'retainKeysMap':{'name':'foo','value':'bar','simpleMap':{"
      "'key1':'modified','key2':'b','key3':'c'}}}" },

    { "retainKeys map delete nested non-merging list with conflict",
      "{'retainKeysMap':{'name':'foo','nonMergingList':[{'name':'a'},"
      "{'name':'b'},{'name':'c'}]}}",
      "{'retainKeysMap':{'$retainKeys':['name','value'],'value':'bar',"
      "'nonMergingList':null}}",
      "{'retainKeysMap':{'name':'foo','value':'bar'}}" },

    { "retainKeys map nested non-merging list with no change",
      "{'retainKeysMap':{'name':'foo','nonMergingList':[{'name':'a'},"
      "{'name':'b'},{'name':'c'}]}}",
      "{'retainKeysMap':{'$retainKeys':['name','nonMergingList','value'],"
      "'value':'bar','nonMergingList':[{'name':'a'},{'name':'b'}]}}",
      "{'retainKeysMap':{'name':'foo','value':'bar','nonMergingList':["
      "{'name':'a'},{'name':'b'}]}}" },

    { "retainKeys map adds an item in nested merging int list",
      "{'retainKeysMap':{'name':'foo','mergingIntList':[1,2,3]}}",
      "{'retainKeysMap':{'$setElementOrder/mergingIntList':[1,2,4],"
      "'$retainKeys':['mergingIntList','name'],'mergingIntList':[4]}}",
      "{'retainKeysMap':{'name':'foo','mergingIntList':[1,2,4,3]}}" },

    { "retainKeys map adds an item and deletes an item in nested merging "
      "int list",
      "{'retainKeysMap':{'name':'foo','mergingIntList':[1,2,3,4]}}",
      "{'retainKeysMap':{'$retainKeys':['mergingIntList','name'],"
      "'mergingIntList':[5],'$deleteFromPrimitiveList/mergingIntList':[2],"
      "'$setElementOrder/mergingIntList':[1,3,5]}}",
      "{'retainKeysMap':{'name':'foo','mergingIntList':[1,3,5,4]}}" },

    { "retainKeys map deletes nested merging int list",
      "{'retainKeysMap':{'name':'foo','mergingIntList':[1,2,3]}}",
      "{'retainKeysMap':{'$retainKeys':['name'],'mergingIntList':null}}",
      "{'retainKeysMap':{'name':'foo'}}" },

    { "retainKeys map adds an item in nested merging list",
      "{'retainKeysMap':{'name':'foo','mergingList':[{'name':'a'},"
      "{'name':'b'},{'name':'x'}]}}",
      "{'retainKeysMap':{'$retainKeys':['mergingList','name'],"
      "'$setElementOrder/mergingList':[{'name':'a'},{'name':'b'},"
      "{'name':'c'}],'mergingList':[{'name':'c'}]}}",
      "{'retainKeysMap':{'name':'foo','mergingList':[{'name':'a'},"
      "{'name':'b'},{'name':'c'},{'name':'x'}]}}" },

    { "retainKeys map changes an item in nested merging list",
      "{'retainKeysMap':{'name':'foo','mergingList':[{'name':'a'},"
      "{'name':'b','value':'foo'},{'name':'x'}]}}",
      "{'retainKeysMap':{'$retainKeys':['mergingList','name'],"
      "'$setElementOrder/mergingList':[{'name':'a'},{'name':'b'}],"
      "'mergingList':[{'name':'b','value':'bar'}]}}",
      "{'retainKeysMap':{'name':'foo','mergingList':[{'name':'a'},"
      "{'name':'b','value':'bar'},{'name':'x'}]}}" },

    { "retainKeys map deletes an item in nested merging list",
      "{'retainKeysMap':{'name':'foo','mergingList':[{'name':'a'},"
      "{'name':'b'},{'name':'x'}]}}",
      "{'retainKeysMap':{'$retainKeys':['mergingList','name'],"
      "'$setElementOrder/mergingList':[{'name':'a'}],"
      "'mergingList':[{'name':'b','$patch':'delete'}]}}",
      "{'retainKeysMap':{'name':'foo','mergingList':[{'name':'a'},"
      "{'name':'x'}]}}" },

    { "retainKeys list of maps clears a field",
      "{'retainKeysMergingList':[{'name':'bar'},{'name':'foo','value':'a',"
      "'other':'x'}]}",
      "{'$setElementOrder/retainKeysMergingList':[{'name':'bar'},"
      "{'name':'foo'}],'retainKeysMergingList':[{'$retainKeys':['name',"
      "'value'],'name':'foo'}]}",
      "{'retainKeysMergingList':[{'name':'bar'},{'name':'foo',"
      "'value':'a'}]}" },

    { "retainKeys list of maps deletes a field and clear a field",
      "{'retainKeysMergingList':[{'name':'bar'},{'name':'foo','value':'a',"
      "'other':'x'}]}",
      "{'$setElementOrder/retainKeysMergingList':[{'name':'bar'},"
      "{'name':'foo'}],'retainKeysMergingList':[{'$retainKeys':['name'],"
      "'name':'foo','value':null}]}",
      "{'retainKeysMergingList':[{'name':'bar'},{'name':'foo'}]}" },

    { "delete and reorder in one list, reorder in another",
      "{'mergingList':[{'name':'a','value':'a'},{'name':'b','value':'b'}],"
      "'mergeItemPtr':[{'name':'c','value':'c'},{'name':'d','value':'d'}]}",
      "{'$setElementOrder/mergingList':[{'name':'b'}],"
      "'$setElementOrder/mergeItemPtr':[{'name':'d'},{'name':'c'}],"
      "'mergingList':[{'$patch':'delete','name':'a'}]}",
      "{'mergingList':[{'name':'b','value':'b'}],'mergeItemPtr':["
      "{'name':'d','value':'d'},{'name':'c','value':'c'}]}" },

    /* two-way patches, applied to the original */

    { "two-way: add map and delete map from merging list",
      "{'mergingList':[{'name':1},{'name':2}]}",
      "{'$setElementOrder/mergingList':[{'name':2},{'name':3}],"
      "'mergingList':[{'name':3},{'name':1,'$patch':'delete'}]}",
      "{'mergingList':[{'name':2},{'name':3}]}" },

    { "two-way: set elements order in a list",
      "{'mergingList':[{'name':1},{'name':3,'value':3},"
      "{'name':4,'value':4},{'name':2,'value':2}]}",
      "{'$setElementOrder/mergingList':[{'name':4},{'name':2},{'name':3},"
      "{'name':1}]}",
      "{'mergingList':[{'name':4,'value':4},{'name':2,'value':2},"
      "{'name':3,'value':3},{'name':1}]}" },
};


static void
test_upstream_fixtures(void **state)
{
    int           rc;
    size_t        i;
    const char   *res, *want;
    gcp_arena_t  *a;

    for (i = 0; i < gcp_nelems(fixtures); i++) {
        a = gcp_arena_create(0);

        rc = smp(a, M, fixtures[i].current, fixtures[i].patch, &res);
        want = sp_canon(a, fixtures[i].result);

        if (rc != GCP_OK || strcmp(res, want) != 0) {
            fail_msg("%s: got %d %s, want %s", fixtures[i].name, rc, res,
                     want);
        }

        gcp_arena_destroy(a);
    }
}


/* --------------------------------------------------- reference captures */


static void
test_reference_configmap(void **state)
{
    int                rc;
    json_t            *d, *out;
    const char        *p, *msg, *err;
    gcp_arena_t       *a;
    gcp_schema_set_t  *real;

    /* 02-cm-patch-strategic-merge-patch.http, with the test schema */
    expect_smp("test.ConfigMap",
               "{'kind':'ConfigMap','apiVersion':'v1','metadata':{"
               "'name':'cm1','namespace':'ref-crud','labels':{'app':'demo',"
               "'patched':'merge','tier':'backend'},"
               "'annotations':{'note':'first'}},'data':{'key1':'value1',"
               "'key2':'patched-by-merge','nosuchkey':'x'}}",
               "{'data':{'key2':'patched-by-smp'},'metadata':{"
               "'annotations':{'note':'smp'},'labels':{'patched':null}}}",
               "{'kind':'ConfigMap','apiVersion':'v1','metadata':{"
               "'name':'cm1','namespace':'ref-crud','labels':{'app':'demo',"
               "'tier':'backend'},'annotations':{'note':'smp'}},"
               "'data':{'key1':'value1','key2':'patched-by-smp',"
               "'nosuchkey':'x'}}");

    /* and with the schemas compiled into the module */
    a = gcp_arena_create(0);
    real = gcp_schema_set_create();
    assert_int_equal(gcp_schema_set_load_embedded(real, &err), GCP_OK);

    d = sp_load(a, "{'metadata':{'name':'cm','finalizers':['a','b'],"
                "'ownerReferences':[{'uid':'1','name':'x'}]}}");
    p = sp_q(a, "{'metadata':{'$setElementOrder/finalizers':['b','c'],"
             "'$deleteFromPrimitiveList/finalizers':['a'],"
             "'finalizers':['c'],'ownerReferences':[{'uid':'1',"
             "'name':'y'},{'uid':'2','name':'z'}]}}");

    rc = gcp_patch_strategic(a, real,
                             gcp_schema_get(real,
                                            "io.k8s.api.core.v1.ConfigMap"),
                             d, p, strlen(p), &out, &msg);
    assert_int_equal(rc, GCP_OK);
    assert_string_equal(sp_dump(a, out),
                        sp_canon(a, "{'metadata':{'name':'cm',"
                                 "'finalizers':['b','c'],'ownerReferences':"
                                 "[{'uid':'1','name':'y'},{'uid':'2',"
                                 "'name':'z'}]}}"));

    json_decref(out);
    json_decref(d);
    gcp_schema_set_free(real);
    gcp_arena_destroy(a);
}


/* ------------------------------------------------------- kubectl fields */


static void
test_kubernetes_fields(void **state)
{
    /* kubectl apply: reorder, add and delete finalizers */
    expect_smp("test.ConfigMap",
               "{'metadata':{'finalizers':['a','b']}}",
               "{'metadata':{'$setElementOrder/finalizers':['b','c'],"
               "'$deleteFromPrimitiveList/finalizers':['a'],"
               "'finalizers':['c']}}",
               "{'metadata':{'finalizers':['b','c']}}");

    /* without $setElementOrder the patch items come first */
    expect_smp("test.ConfigMap", "{'metadata':{'finalizers':['a']}}",
               "{'metadata':{'finalizers':['b','a']}}",
               "{'metadata':{'finalizers':['b','a']}}");
    expect_smp("test.ConfigMap", "{'metadata':{'finalizers':['a','x']}}",
               "{'metadata':{'finalizers':['b']}}",
               "{'metadata':{'finalizers':['b','a','x']}}");

    /* a deletion list applies to the live list; null deletes it all */
    expect_smp("test.ConfigMap", "{'metadata':{'finalizers':['a','b','a']}}",
               "{'metadata':{'$deleteFromPrimitiveList/finalizers':['a']}}",
               "{'metadata':{'finalizers':['b']}}");
    expect_smp("test.ConfigMap", "{'metadata':{'finalizers':['a']}}",
               "{'metadata':{'$deleteFromPrimitiveList/finalizers':null}}",
               "{'metadata':{}}");
    expect_smp("test.ConfigMap", "{'metadata':{}}",
               "{'metadata':{'$deleteFromPrimitiveList/finalizers':['a']}}",
               "{'metadata':{}}");
    expect_smp("test.ConfigMap", "{'metadata':{'finalizers':['a']}}",
               "{'metadata':{'finalizers':null}}", "{'metadata':{}}");

    /* owner references merge by uid */
    expect_smp("test.ConfigMap",
               "{'metadata':{'ownerReferences':[{'uid':'1','name':'x'},"
               "{'uid':'2','name':'y'}]}}",
               "{'metadata':{'ownerReferences':[{'uid':'3','name':'z'},"
               "{'uid':'1','kind':'K'}]}}",
               "{'metadata':{'ownerReferences':[{'uid':'3','name':'z'},"
               "{'uid':'1','name':'x','kind':'K'},{'uid':'2','name':'y'}]}}");
    expect_smp("test.ConfigMap",
               "{'metadata':{'ownerReferences':[{'uid':'1','name':'x'},"
               "{'uid':'2','name':'y'}]}}",
               "{'metadata':{'ownerReferences':[{'$patch':'delete',"
               "'uid':'1'}]}}",
               "{'metadata':{'ownerReferences':[{'uid':'2','name':'y'}]}}");

    /* an empty merging list keeps the live one (this did pointer
       arithmetic on the empty patch's NULL items: clang's UBSan) */
    expect_smp("test.ConfigMap",
               "{'metadata':{'ownerReferences':[{'uid':'1','name':'x'}]}}",
               "{'metadata':{'ownerReferences':[]}}",
               "{'metadata':{'ownerReferences':[{'uid':'1','name':'x'}]}}");
    expect_smp("test.ConfigMap", "{'metadata':{'finalizers':['a']}}",
               "{'metadata':{'finalizers':[]}}",
               "{'metadata':{'finalizers':['a']}}");
    expect_smp("test.ConfigMap", "{'metadata':{}}",
               "{'metadata':{'ownerReferences':[]}}",
               "{'metadata':{'ownerReferences':[]}}");

    /* kubectl label / annotate */
    expect_smp("test.ConfigMap",
               "{'metadata':{'labels':{'a':'1','b':'2'}}}",
               "{'metadata':{'labels':{'a':null,'c':'3'},'annotations':{"
               "'x':'y'}}}",
               "{'metadata':{'labels':{'b':'2','c':'3'},'annotations':{"
               "'x':'y'}}}");

    /* Role rules have no strategy: replaced */
    expect_smp("test.Role",
               "{'rules':[{'verbs':['get'],'resources':['pods']}]}",
               "{'rules':[{'verbs':['list']}]}",
               "{'rules':[{'verbs':['list']}]}");

    /* nested lists of maps with their own merge keys */
    expect_smp("test.Pod",
               "{'spec':{'containers':[{'name':'a','image':'i1','ports':["
               "{'containerPort':80,'name':'http'}],'env':[{'name':'X',"
               "'value':'1'}],'args':['x','y']},{'name':'b','image':'i2'}]}}",
               "{'spec':{'containers':[{'name':'a','ports':[{'containerPort':"
               "443}],'env':[{'name':'X','value':'2'},{'name':'Y',"
               "'value':'3'}],'args':['z']}]}}",
               "{'spec':{'containers':[{'name':'a','image':'i1','ports':["
               "{'containerPort':443},{'containerPort':80,'name':'http'}],"
               "'env':[{'name':'X','value':'2'},{'name':'Y','value':'3'}],"
               "'args':['z']},{'name':'b','image':'i2'}]}}");

    /* kubectl apply of a volume source change (merge,retainKeys) */
    expect_smp("test.Pod",
               "{'spec':{'volumes':[{'name':'v','hostPath':{'path':'/x'}}]}}",
               "{'spec':{'$setElementOrder/volumes':[{'name':'v'}],"
               "'volumes':[{'$retainKeys':['emptyDir','name'],'emptyDir':{},"
               "'name':'v'}]}}",
               "{'spec':{'volumes':[{'name':'v','emptyDir':{}}]}}");

    /* the container b is deleted, a new one added */
    expect_smp("test.Pod",
               "{'spec':{'containers':[{'name':'a'},{'name':'b'}]}}",
               "{'spec':{'containers':[{'name':'c'},{'name':'b',"
               "'$patch':'delete'}]}}",
               "{'spec':{'containers':[{'name':'c'},{'name':'a'}]}}");
}


/* ----------------------------------------------------------- directives */


static void
test_directives(void **state)
{
    /* $patch in maps */
    expect_smp(M, "{'name':'x','simpleMap':{'key1':'1','key2':'2'}}",
               "{'simpleMap':{'$patch':'replace','key3':'3'}}",
               "{'name':'x','simpleMap':{'key3':'3'}}");
    expect_smp(M, "{'name':'x','simpleMap':{'key1':'1'}}",
               "{'simpleMap':{'$patch':'delete'}}",
               "{'name':'x','simpleMap':{}}");
    expect_smp(M, "{'name':'x','value':'y'}", "{'$patch':'delete'}", "{}");
    expect_smp(M, "{'name':'x','value':'y'}",
               "{'$patch':'replace','other':'z'}", "{'other':'z'}");

    /* a new map holding $patch is dropped, whatever the directive */
    expect_smp(M, "{'name':'x'}", "{'simpleMap':{'$patch':'foo'}}",
               "{'name':'x'}");

    /* $patch in list elements */
    expect_smp(M, "{'mergingList':[{'name':1},{'name':2}]}",
               "{'mergingList':[{'name':3},{'$patch':'replace'}]}",
               "{'mergingList':[{'name':3}]}");
    expect_smp(M, "{'mergingList':[{'name':1},{'name':2}]}",
               "{'mergingList':[{'$patch':'replace'}]}",
               "{'mergingList':[]}");
    expect_smp(M, "{'mergingList':[{'name':1},{'name':2},{'name':1}]}",
               "{'mergingList':[{'name':1,'$patch':'delete'}]}",
               "{'mergingList':[{'name':2}]}");

    /* null deletes; null of a missing key does nothing */
    expect_smp(M, "{'name':'x','value':'y'}", "{'value':null,'other':null}",
               "{'name':'x'}");

    /* new values lose their nulls and their $patch maps */
    expect_smp(M, "{}",
               "{'simpleMap':{'a':null,'b':'x'},'mergingList':["
               "{'name':1,'$patch':'delete'},{'name':2,'value':null,"
               "'other':[null]}]}",
               "{'simpleMap':{'b':'x'},'mergingList':[{'name':2,"
               "'other':[null]}]}");

    /* but not their other directives, as upstream */
    expect_smp(M, "{}",
               "{'simpleMap':{'$retainKeys':['a'],'a':'1'}}",
               "{'simpleMap':{'$retainKeys':['a'],'a':'1'}}");

    /* a value of another type replaces */
    expect_smp(M, "{'simpleMap':{'a':'1'}}", "{'simpleMap':'s'}",
               "{'simpleMap':'s'}");
    expect_smp(M, "{'simpleMap':null}", "{'simpleMap':{'a':null,'b':'1'}}",
               "{'simpleMap':{'b':'1'}}");

    /* the replace strategy takes the patch value as it is */
    expect_smp(M, "{'replacingItem':{'a':1,'b':2}}",
               "{'replacingItem':{'c':3,'d':null}}",
               "{'replacingItem':{'c':3,'d':null}}");

    /* lists without a strategy are replaced */
    expect_smp(M, "{'nonMergingList':[{'name':1}],'nonMergingIntList':[1]}",
               "{'nonMergingList':[{'name':2}],'nonMergingIntList':[2,2]}",
               "{'nonMergingList':[{'name':2}],'nonMergingIntList':[2,2]}");

    /* a primitive merge deduplicates, in upstream's peculiar order */
    expect_smp(M, "{'mergingIntList':[1,2,1,3,4]}", "{'mergingIntList':[]}",
               "{'mergingIntList':[1,2,4,3]}");
    expect_smp(M, "{'mergingIntList':[1,2]}", "{'mergingIntList':[2,3,3]}",
               "{'mergingIntList':[1,2,3]}");

    /* an empty patch list and an empty live list */
    expect_smp(M, "{'mergingIntList':[]}", "{'mergingIntList':[]}",
               "{'mergingIntList':[]}");

    /* a patch that is null changes nothing */
    expect_smp(M, "{'name':'x'}", "null", "{'name':'x'}");
}


static void
test_no_schema(void **state)
{
    expect_smp(NULL, "{'a':{'b':1,'c':2},'l':[1,2],'s':'x'}",
               "{'a':{'b':null,'d':3},'l':[3],'s':'y'}",
               "{'a':{'c':2,'d':3},'l':[3],'s':'y'}");

    /* unknown fields of a known type too */
    expect_smp(M, "{'unknown':{'x':[1]}}", "{'unknown':{'x':[2],'y':1}}",
               "{'unknown':{'x':[2],'y':1}}");

    /* a deletion list works whatever the strategy */
    expect_smp(NULL, "{'l':['a','b']}",
               "{'$deleteFromPrimitiveList/l':['a']}", "{'l':['b']}");
}


/* --------------------------------------------------------------- errors */


static void
test_errors(void **state)
{
    /* decoding: the Go error, without the "error decoding patch" prefix */
    expect_smp_err(M, "{}", "['x']", GCP_EBADREQUEST,
                   "json: cannot unmarshal array into Go value of type "
                   "map[string]interface {}");
    expect_smp_err(M, "{}", "'x'", GCP_EBADREQUEST,
                   "json: cannot unmarshal string into Go value of type "
                   "map[string]interface {}");
    expect_smp_err(M, "{}", "{", GCP_EBADREQUEST,
                   "unexpected end of JSON input");

    /* malformed directives: 400 */
    expect_smp_err(M, "{'name':'x'}", "{'$retainKeys':'name'}",
                   GCP_EBADREQUEST, "invalid patch format of retainKeys");
    expect_smp_err(M, "{'name':'x'}", "{'$retainKeys':['name'],'value':'v'}",
                   GCP_EBADREQUEST, "invalid patch format of retainKeys");
    expect_smp_err(M, "{}", "{'$setElementOrder':[1]}", GCP_EBADREQUEST,
                   "invalid patch format of setElementOrder list");
    expect_smp_err(M, "{}", "{'$setElementOrderX/a':[1]}", GCP_EBADREQUEST,
                   "invalid patch format of setElementOrder list");
    expect_smp_err(M, "{}", "{'$deleteFromPrimitiveList':[1]}",
                   GCP_EBADREQUEST,
                   "invalid patch format of primitive list");

    /* lists of lists: 422 with the generic message */
    expect_smp_err(M, "{'mergingIntList':[]}", "{'mergingIntList':[[1]]}",
                   GCP_EINVALID, GCP_PATCH_REJECTED);

    /* the rest: 500 with the Go error text */
    expect_smp_err(M, "{'mergingList':[{'name':'a'}]}",
                   "{'mergingList':[{'value':'x','other':'y'}]}",
                   GCP_EINTERNAL, "map: map[other:y value:x] does not "
                   "contain declared merge key: name");
    expect_smp_err(M, "{'simpleMap':{'a':'1'}}",
                   "{'simpleMap':{'$patch':'foo'}}", GCP_EINTERNAL,
                   "unknown patch type: foo in map: map[$patch:foo]");
    expect_smp_err(M, "{'simpleMap':{'a':'1'}}",
                   "{'simpleMap':{'$patch':1,'b':[1.5,true,null]}}",
                   GCP_EINTERNAL, "unknown patch type: %!s(int64=1) in map: "
                   "map[$patch:1 b:[1.5 true <nil>]]");
    expect_smp_err(M, "{}", "{'$patch':'merge'}", GCP_EINTERNAL,
                   "unknown patch type: merge in map: map[$patch:merge]");
    expect_smp_err(M, "{'mergingList':[{'name':'a'}]}",
                   "{'mergingList':[{'$patch':'merge'}]}", GCP_EINTERNAL,
                   "merging lists cannot yet be specified in the patch");
    expect_smp_err(M, "{'mergingList':[{'name':'a'}]}",
                   "{'mergingList':[{'$patch':'delete'}]}", GCP_EINTERNAL,
                   "map: map[$patch:delete] does not contain declared merge "
                   "key: name");
    expect_smp_err(M, "{'mergingList':[{'name':'a'}]}",
                   "{'mergingList':[{'name':'b','$patch':'frob'}]}",
                   GCP_EINTERNAL, "unknown patch type: frob in map: "
                   "map[$patch:frob name:b]");
    expect_smp_err(M, "{'mergingIntList':[1]}", "{'mergingIntList':['a']}",
                   GCP_EINTERNAL, "list element types are not identical: "
                   "[[1] [a]]");
    expect_smp_err(M, "{'mergingIntList':[1]}",
                   "{'mergingIntList':[1.25e30]}", GCP_EINTERNAL,
                   "list element types are not identical: [[1] "
                   "[1.25e+30]]");
    expect_smp_err(M, "{'mergingIntList':[1]}",
                   "{'$setElementOrder/mergingIntList':'x'}",
                   GCP_EINTERNAL, "expected a []interface {}, but received "
                   "a string");
    expect_smp_err(M, "{'mergingIntList':{}}",
                   "{'$setElementOrder/mergingIntList':[1]}",
                   GCP_EINTERNAL, "expected a []interface {}, but received "
                   "a map[string]interface {}");
    expect_smp_err(M, "{'mergingIntList':[1,2]}",
                   "{'$setElementOrder/mergingIntList':[1],"
                   "'mergingIntList':[3]}",
                   GCP_EINTERNAL, "the order in patch list:\n[3]\n doesn't "
                   "match $setElementOrder list:\n[1]");
    expect_smp_err(M, "{'mergingIntList':[]}",
                   "{'$setElementOrder/mergingIntList':[]}",
                   GCP_EINTERNAL, "no elements in any of the given slices");
    expect_smp_err(M, "{'mergingList':[{'name':'a'}]}",
                   "{'$setElementOrder/mergingList':[{'x':1}]}",
                   GCP_EINTERNAL, "map: map[x:1] does not contain "
                   "declared merge key: name");
    expect_smp_err(M, "{'nonMergingList':[{'name':'a'}]}",
                   "{'$deleteFromPrimitiveList/nonMergingList':[{'x':1}]}",
                   GCP_EINTERNAL, "cannot merge lists without merge key for "
                   "struct");
    expect_smp_err(M, "{'badStrategy':[1]}", "{'badStrategy':[2]}",
                   GCP_EINTERNAL, "unexpected patch strategy: [merge "
                   "replace]");
}


static void
test_list_limit(void **state)
{
    int           i, rc;
    json_t       *d, *l, *out;
    const char   *msg, *p;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);

    d = json_object();
    l = json_array();
    for (i = 0; i < GCP_PATCH_MAX_MERGE_LIST; i++) {
        json_array_append_new(l, json_integer(i));
    }

    json_object_set_new(d, "mergingIntList", l);

    p = "{\"mergingIntList\":[-1]}";
    rc = gcp_patch_strategic(a, set, gcp_schema_get(set, M), d, p, strlen(p),
                             &out, &msg);
    assert_int_equal(rc, GCP_ETOOLARGE);
    assert_null(out);
    assert_string_equal(msg, "a merged list may have at most 5000 items, "
                        "got 5001");

    /* at the limit it works, quickly */
    json_array_remove(l, 0);
    rc = gcp_patch_strategic(a, set, gcp_schema_get(set, M), d, p, strlen(p),
                             &out, &msg);
    assert_int_equal(rc, GCP_OK);
    assert_int_equal(json_array_size(json_object_get(out, "mergingIntList")),
                     GCP_PATCH_MAX_MERGE_LIST);
    json_decref(out);

    json_decref(d);
    gcp_arena_destroy(a);
}


/* Returns depth nested objects {"a":{"a":...}}, arena-owned. */
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
test_deep(void **state)
{
    int           rc;
    json_t       *d, *out;
    const char   *p, *msg, *dump;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);

    /* both sides deep, near Go's depth limit: the merge recurses */
    out = json_object();
    p = nested(a, 9000, "{\"b\":[1]}");
    rc = gcp_patch_strategic(a, set, NULL, out, p, strlen(p), &d, &msg);
    assert_int_equal(rc, GCP_OK);
    json_decref(out);

    p = nested(a, 9000, "{\"b\":null,\"$patch\":\"replace\",\"c\":[2]}");
    rc = gcp_patch_strategic(a, set, NULL, d, p, strlen(p), &out, &msg);
    assert_int_equal(rc, GCP_OK);

    dump = sp_dump(a, out);
    assert_int_equal(strlen(dump), 9000 * 6 + strlen("{\"b\":null,\"c\":[2]}"));

    json_decref(out);
    json_decref(d);
    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upstream_fixtures),
        cmocka_unit_test(test_reference_configmap),
        cmocka_unit_test(test_kubernetes_fields),
        cmocka_unit_test(test_directives),
        cmocka_unit_test(test_no_schema),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_list_limit),
        cmocka_unit_test(test_deep),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
