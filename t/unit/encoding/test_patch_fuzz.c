
/*
 * Deterministic fuzzing of the three patch formats
 * (core/encoding/gcp_patch_*.c): mutated and generated patches against a few
 * documents, checking the contract on every run (a result or an error with a
 * message, the input untouched, the result unshared) under ASan and UBSan.  A
 * fixed seed makes every run identical; a time budget bounds it to a few
 * seconds.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_patch.h"
#include "support_fuzz.h"
#include "support_patch.h"


#define FUZZ_SECONDS     3.0
#define FUZZ_MAX_RUNS    200000
#define FUZZ_MAX_TEXT    4096


static gcp_schema_set_t  *set;
static const json_t      *schema;


#define pick(n)  fuzz_pick(n)


static const char  *schema_doc =
    "{'t.Obj':{'properties':{"
    "'metadata':{'$ref':'#/definitions/t.Meta'},"
    "'items':{'type':'array','items':{'$ref':'#/definitions/t.Obj'},"
    "'x-kubernetes-patch-strategy':'merge','x-kubernetes-patch-merge-key':"
    "'name'},"
    "'ints':{'type':'array','x-kubernetes-patch-strategy':'merge'},"
    "'keep':{'$ref':'#/definitions/t.Obj','x-kubernetes-patch-strategy':"
    "'retainKeys'},"
    "'whole':{'type':'object','x-kubernetes-patch-strategy':'replace'},"
    "'both':{'type':'array','items':{'$ref':'#/definitions/t.Obj'},"
    "'x-kubernetes-patch-strategy':'merge,retainKeys',"
    "'x-kubernetes-patch-merge-key':'name'}}},"
    "'t.Meta':{'properties':{"
    "'labels':{'type':'object','additionalProperties':{'type':'string'}},"
    "'finalizers':{'type':'array','x-kubernetes-patch-strategy':'merge'},"
    "'ownerReferences':{'type':'array','x-kubernetes-patch-strategy':"
    "'merge','x-kubernetes-patch-merge-key':'uid'}}}}";


static const char  *docs[] = {
    "{'metadata':{'name':'a','labels':{'x':'1','y':'2'},'finalizers':['f1',"
    "'f2','f1'],'ownerReferences':[{'uid':'u1','name':'o'},{'uid':'u2'}]},"
    "'items':[{'name':'a','ints':[1,2,3],'items':[{'name':'x'}]},"
    "{'name':'b','value':1.5},{'name':'c','keep':{'a':1,'b':[true]}}],"
    "'ints':[3,1,2,1],'whole':{'p':null},'both':[{'name':'n','v':1}]}",

    "{'a':[1,'2',[3],{'b':null}],'~1':{'/':0},'':{'':''},'n':null,"
    "'deep':{'a':{'b':{'c':{'d':[[[]]]}}}}}",

    "{}",

    "{'items':[{'name':1},{'name':1.0},{'name':'1'},{'name':null},{'x':1}],"
    "'ints':[null,true,false,0,-0,1e300]}",
};


static const char  *tokens[] = {
    "{", "}", "[", "]", ",", ":", "\"", "null", "true", "-1", "0", "1e999",
    "\"$patch\":\"delete\"", "\"$patch\":\"replace\"", "\"$patch\":\"merge\"",
    "\"$patch\":1", "\"$retainKeys\":[\"name\"]",
    "\"$setElementOrder/items\":[{\"name\":\"b\"}]",
    "\"$setElementOrder/ints\":[1,2]",
    "\"$deleteFromPrimitiveList/ints\":[1]",
    "\"$deleteFromPrimitiveList/finalizers\":null",
    "{\"op\":\"add\",\"path\":\"/items/-\",\"value\":{}}",
    "{\"op\":\"move\",\"from\":\"/items/0\",\"path\":\"/items/-1\"}",
    "{\"op\":\"copy\",\"from\":\"\",\"path\":\"/x\"}",
    "{\"op\":\"test\",\"path\":\"\",\"value\":{}}",
    "{\"op\":\"replace\",\"path\":\"\",\"value\":[]}",
    "\"/~0~1/-/01\"", "\"\\u0000\"", "\"\\ud800\"", "\xff", "\t",
};


static const char  *patches[] = {
    "[{'op':'add','path':'/metadata/labels/z','value':'3'},"
    "{'op':'remove','path':'/items/1'},{'op':'test','path':'/ints/0',"
    "'value':3},{'op':'copy','from':'/items','path':'/c'},"
    "{'op':'move','from':'/c/0','path':'/items/0'}]",

    "{'metadata':{'labels':{'x':null,'w':'4'},'finalizers':['f3']},"
    "'items':[{'name':'a','ints':[4]},{'name':'b','$patch':'delete'},"
    "{'name':'d','items':[{'name':'y','v':null}]}],"
    "'$setElementOrder/items':[{'name':'d'},{'name':'a'}]}",

    "{'ints':[5],'$deleteFromPrimitiveList/ints':[1],"
    "'$setElementOrder/ints':[2,5,3],'keep':{'$retainKeys':['a'],'a':2},"
    "'whole':{'q':1},'both':[{'$retainKeys':['name'],'name':'n'}]}",

    "{'items':[{'$patch':'replace'},{'name':'z'}],'$patch':'replace'}",
};


static const char  *gen_keys[] = {
    "\"name\"", "\"uid\"", "\"a\"", "\"ints\"", "\"items\"", "\"$patch\"",
    "\"$retainKeys\"", "\"labels\"", "\"metadata\"", "\"keep\""
};

static const char  *gen_scalars[] = {
    "null", "true", "1", "2.5", "\"a\"", "\"delete\"", "\"replace\"", "-3",
    "\"b\""
};

/* random JSON values */
static const fuzz_grammar_t  json_grammar = {
    gen_keys, gcp_nelems(gen_keys), gen_scalars, gcp_nelems(gen_scalars),
    ":", ",", NULL
};


/* Appends a random JSON pointer into doc-like shapes. */
static void
gen_path(gcp_buf_t *b)
{
    size_t       i, n;
    const char  *seg[] = { "metadata", "labels", "items", "0", "1", "-1",
                           "-", "ints", "x", "~0", "~1", "", "01", "a" };

    n = pick(5);
    for (i = 0; i < n; i++) {
        gcp_buf_printf(b, "/%s", seg[pick(gcp_nelems(seg))]);
    }
}


/* A generated JSON patch. */
static void
gen_json_patch(gcp_buf_t *b)
{
    size_t       i, n;
    const char  *ops[] = { "add", "remove", "replace", "move", "copy",
                           "test", "frob" };

    gcp_buf_addc(b, '[');

    n = 1 + pick(5);
    for (i = 0; i < n; i++) {
        gcp_buf_printf(b, "%s{\"op\":\"%s\",\"path\":\"", i ? "," : "",
                       ops[pick(gcp_nelems(ops))]);
        gen_path(b);
        gcp_buf_addstr(b, "\",\"from\":\"");
        gen_path(b);
        gcp_buf_addstr(b, "\",\"value\":");
        fuzz_gen_value(b, &json_grammar, 3);
        gcp_buf_addc(b, '}');
    }

    gcp_buf_addc(b, ']');
}


typedef int (*patch_pt)(gcp_arena_t *a, const json_t *doc,
    const char *patch, size_t len, json_t **out, const char **msg);


static int
smp_adapter(gcp_arena_t *a, const json_t *doc, const char *patch,
    size_t len, json_t **out, const char **msg)
{
    return gcp_patch_strategic(a, set, schema, doc, patch, len, out, msg);
}


/* Runs one patch and checks the contract; returns the code. */
static int
run(gcp_arena_t *a, patch_pt fn, json_t *doc, const char *before,
    const char *p, size_t len)
{
    int          rc;
    json_t      *out;
    const char  *msg, *dump;

    out = (json_t *) 1;
    msg = NULL;

    rc = fn(a, doc, p, len, &out, &msg);

    if (rc == GCP_OK) {
        assert_non_null(out);
        assert_int_equal(out->refcount, 1);

        /* the result is a document again */
        dump = sp_dump(a, out);
        assert_true(dump[0] == '{' || dump[0] == '[');

        json_decref(out);

    } else {
        assert_null(out);
        assert_non_null(msg);
        assert_true(rc == GCP_EBADREQUEST || rc == GCP_EINVALID
                    || rc == GCP_EINTERNAL || rc == GCP_ETOOLARGE);
    }

    assert_int_equal(doc->refcount, 1);
    assert_string_equal(sp_dump_ordered(a, doc), before);

    return rc;
}


static void
test_fuzz(void **state)
{
    int           rc, ok[3], runs;
    double        start;
    size_t        d, f;
    json_t       *doc[gcp_nelems(docs)];
    gcp_buf_t     b;
    const char   *err, *before[gcp_nelems(docs)];
    gcp_arena_t  *a, *keep;
    patch_pt      fns[3] = { gcp_patch_json, gcp_patch_merge, smp_adapter };

    fuzz_seed(0x243f6a8885a308d3ULL);

    keep = gcp_arena_create(0);

    set = gcp_schema_set_create();
    assert_int_equal(gcp_schema_set_add_doc(set, sp_q(keep, schema_doc),
                                            strlen(schema_doc), &err),
                     GCP_OK);
    schema = gcp_schema_get(set, "t.Obj");
    assert_non_null(schema);

    for (d = 0; d < gcp_nelems(docs); d++) {
        doc[d] = sp_load(keep, docs[d]);
        before[d] = sp_dump_ordered(keep, doc[d]);
    }

    memset(ok, 0, sizeof(ok));
    start = fuzz_now();

    for (runs = 0; fuzz_more(runs, FUZZ_MAX_RUNS, start, FUZZ_SECONDS);
         runs++)
    {
        a = gcp_arena_create(0);
        gcp_buf_init(&b, a);

        switch (pick(4)) {

        case 0:
            gen_json_patch(&b);
            break;

        case 1:
            fuzz_gen_value(&b, &json_grammar, 4);
            break;

        default:
            fuzz_mutate(&b, sp_q(a, patches[pick(gcp_nelems(patches))]),
                        tokens, gcp_nelems(tokens), FUZZ_MAX_TEXT);
            break;
        }

        assert_false(gcp_buf_failed(&b));

        d = pick(gcp_nelems(docs));

        for (f = 0; f < 3; f++) {
            rc = run(a, fns[f], doc[d], before[d], b.len ? b.data : "",
                     b.len);
            ok[f] += (rc == GCP_OK);
        }

        gcp_arena_destroy(a);
    }

    /* the generators reach the appliers, not only the decoders */
    assert_true(runs > 1000);
    assert_true(ok[0] > runs / 100);
    assert_true(ok[1] > runs / 20);
    assert_true(ok[2] > runs / 20);

    for (d = 0; d < gcp_nelems(docs); d++) {
        json_decref(doc[d]);
    }

    gcp_schema_set_free(set);
    gcp_arena_destroy(keep);
}


int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fuzz),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
