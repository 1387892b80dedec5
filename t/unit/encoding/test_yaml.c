
/*
 * Unit tests: YAML output (core/encoding/gcp_yaml.c).  Expected documents were
 * produced with sigs.k8s.io/yaml.JSONToYAML (go-yaml v2.4.0) from the JSON
 * Go writes for the same values.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "gcp_json.h"
#include "gcp_yaml.h"


static const char  ref_json[] =
    "{\"apiVersion\":\"v1\",\"data\":{\"key1\":\"value1\",\"key2\":\"patched-"
    "by-smp\",\"nosuchkey\":\"x\"},\"kind\":\"ConfigMap\",\"metadata\":{\"ann"
    "otations\":{\"note\":\"smp\"},\"creationTimestamp\":\"2026-11-22T06:45:4"
    "6Z\",\"labels\":{\"app\":\"demo\",\"tier\":\"backend\"},\"managedFields"
    "\":[{\"apiVersion\":\"v1\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f"
    ":data\":{\".\":{},\"f:key1\":{},\"f:key2\":{},\"f:nosuchkey\":{}},\"f:me"
    "tadata\":{\"f:annotations\":{\".\":{},\"f:note\":{}},\"f:labels\":{\".\""
    ":{},\"f:app\":{},\"f:tier\":{}}}},\"manager\":\"refcapture\",\"operation"
    "\":\"Update\",\"time\":\"2026-11-22T06:45:47Z\"}],\"name\":\"cm1\",\"nam"
    "espace\":\"ref-crud\",\"resourceVersion\":\"6693\",\"uid\":\"3e367b1e-11"
    "a4-4735-9ee2-b9bfc013cb5c\"}}";

static const char  ref_yaml[] =
    "apiVersion: v1\ndata:\n  key1: value1\n  key2: patched-by-smp\n  nosuchk"
    "ey: x\nkind: ConfigMap\nmetadata:\n  annotations:\n    note: smp\n  crea"
    "tionTimestamp: \"2026-11-22T06:45:46Z\"\n  labels:\n    app: demo\n    t"
    "ier: backend\n  managedFields:\n  - apiVersion: v1\n    fieldsType: Fiel"
    "dsV1\n    fieldsV1:\n      f:data:\n        .: {}\n        f:key1: {}\n "
    "       f:key2: {}\n        f:nosuchkey: {}\n      f:metadata:\n        f"
    ":annotations:\n          .: {}\n          f:note: {}\n        f:labels:"
    "\n          .: {}\n          f:app: {}\n          f:tier: {}\n    manage"
    "r: refcapture\n    operation: Update\n    time: \"2026-11-22T06:45:47Z\""
    "\n  name: cm1\n  namespace: ref-crud\n  resourceVersion: \"6693\"\n  uid"
    ": 3e367b1e-11a4-4735-9ee2-b9bfc013cb5c\n";


static void
test_reference(void **state)
{
    json_t       *v;
    gcp_str_t     y;
    const char   *msg;
    gcp_arena_t  *a = gcp_arena_create(0);

    /* 02-cm-get-yaml.http, byte for byte */
    v = gcp_json_parse(a, ref_json, sizeof(ref_json) - 1, &msg);
    assert_non_null(v);

    y = gcp_yaml_dump(a, v);
    assert_int_equal(y.len, 716);
    assert_string_equal(y.data, ref_yaml);

    gcp_arena_destroy(a);
}


typedef struct {
    const char  *json;
    const char  *yaml;
} yaml_case_t;


/* 400 zeros */
#define BIG400                                                                \
    "00000000000000000000000000000000000000000000000000" \
    "00000000000000000000000000000000000000000000000000" \
    "00000000000000000000000000000000000000000000000000" \
    "00000000000000000000000000000000000000000000000000" \
    "00000000000000000000000000000000000000000000000000" \
    "00000000000000000000000000000000000000000000000000" \
    "00000000000000000000000000000000000000000000000000" \
    "00000000000000000000000000000000000000000000000000"


static const yaml_case_t  yaml_cases[] = {
    { "{\"s\": [\"\", \" \", \"true\", \"yes\", \"No\", \"on\", \"null\", \"~"
      "\", \"123\", \"-1\", \"+1\", \"0x1F\", \"0o17\", \"08\", \"1_000\", \""
      "1.5\", \".5\", \"1e3\", \"1e999\", \".inf\", \"2026-11-22T06:45:46Z\","
      " \"2026-11-22\", \"2026-02-30\", \"12:30\", \"1:2:3\", \"<<\", \"y\"]}",
      "s:\n- \"\"\n- ' '\n- \"true\"\n- \"yes\"\n- \"No\"\n- \"on\"\n- \"null"
      "\"\n- \"~\"\n- \"123\"\n- \"-1\"\n- \"+1\"\n- \"0x1F\"\n- \"0o17\"\n- "
      "\"08\"\n- \"1_000\"\n- \"1.5\"\n- \".5\"\n- \"1e3\"\n- 1e999\n- \".inf"
      "\"\n- \"2026-11-22T06:45:46Z\"\n- \"2026-11-22\"\n- 2026-02-30\n- \"12"
      ":30\"\n- \"1:2:3\"\n- <<\n- \"y\"\n" },
    { "{\"q\": [\"a: b\", \"a:b\", \"- x\", \"-x\", \"-\", \"--- x\", \"...\""
      ", \"#c\", \"a #c\", \"a#c\", \"@x\", \"`x\", \"!x\", \"&x\", \"*x\", "
      "\"|x\", \">x\", \"%x\", \"'x'\", \"\\\"x\\\"\", \"x'y\", \"a,b\", \"[x"
      "]\", \"{x}\", \"?x\", \"? x\", \":x\", \": x\", \"x:\"]}",
      "q:\n- 'a: b'\n- a:b\n- '- x'\n- -x\n- '-'\n- '--- x'\n- '...'\n- '#c'"
      "\n- 'a #c'\n- a#c\n- '@x'\n- '`x'\n- '!x'\n- '&x'\n- '*x'\n- '|x'\n- '"
      ">x'\n- '%x'\n- '''x'''\n- '\"x\"'\n- x'y\n- a,b\n- '[x]'\n- '{x}'\n- ?"
      "x\n- '? x'\n- :x\n- ': x'\n- 'x:'\n" },
    { "{\"w\": [\"trailing \", \" leading\", \"tab\\there\", \"line1\\nline2"
      "\", \"line1\\nline2\\n\", \"\\nleading nl\", \"a\\n\\nb\", \"trail \\n"
      "x\", \"x\\n y\", \"x\\n\\n\", \"\\n\", \"\xc3\xa9\", \"\xe6\x97\xa5"
      "\xe6\x9c\xac\xe8\xaa\x9e\", \"emoji \xf0\x9f\x98\x80\", \"nbsp\xc2\xa0"
      "x\", \"nel\xc2\x85x\", \"bom\xef\xbb\xbfx\", \"ctl\\u0001x\", \"ls\xe2"
      "\x80\xa8x\", \"back\\\\slash\"]}",
      "w:\n- 'trailing '\n- ' leading'\n- \"tab\\there\"\n- |-\n  line1\n  li"
      "ne2\n- |\n  line1\n  line2\n- |2-\n\n  leading nl\n- |-\n  a\n\n  b\n-"
      " \"trail \\nx\"\n- |-\n  x\n   y\n- |+\n  x\n\n- |2+\n\n- \xc3\xa9\n- "
      "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\n- \"emoji \\U0001F600\"\n- nbsp"
      "\xc2\xa0x\n- nel x\n- \"bom\\uFEFFx\"\n- \"ctl\\x01x\"\n- 'ls\xe2\x80"
      "\xa8  x'\n- back\\slash\n" },
    { "{\"long\": {\"plain\": \"word word word word word word word word word "
      "word word word word word word word word word word word word word word "
      "word word word word word word word \", \"single\": \"it's a: it's a: i"
      "t's a: it's a: it's a: it's a: it's a: it's a: it's a: it's a: it's a:"
      " it's a: it's a: it's a: it's a: \", \"double\": \"tab\\t tab\\t tab\\"
      "t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\"
      "t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\"
      "t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\t \", \"nospace\": \""
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\", \"literal\": \"first line that is qu"
      "ite long, longer than the eighty columns of the emitter\\nsecond\"}}",
      "long:\n  double: \"tab\\t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\t ta"
      "b\\t tab\\t tab\\t tab\\t tab\\t\n    tab\\t tab\\t tab\\t tab\\t tab"
      "\\t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\t tab\\t\n    tab\\"
      "t tab\\t tab\\t tab\\t tab\\t \"\n  literal: |-\n    first line that i"
      "s quite long, longer than the eighty columns of the emitter\n    secon"
      "d\n  nospace: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  plain: 'word word word"
      " word word word word word word word word word word word word\n    word"
      " word word word word word word word word word word word word word word"
      " '\n  single: 'it''s a: it''s a: it''s a: it''s a: it''s a: it''s a: i"
      "t''s a: it''s a:\n    it''s a: it''s a: it''s a: it''s a: it''s a: it'"
      "'s a: it''s a: '\n" },
    { "{\"keys\": {\"a10\": 1, \"a9\": 2, \"a01\": 3, \"a1\": 4, \"10\": 5, "
      "\"9\": 6, \"09\": 7, \"b\": 8, \"A\": 9, \"_\": 10, \".\": 11, \"-\": "
      "12, \"f:data\": 13, \"f:a\": 14, \"k:{\\\"type\\\":\\\"X\\\"}\": 15, "
      "\"\xc3\xa9\": 16, \"\": 17, \"true\": 18, \"1.5\": 19}}",
      "keys:\n  \"\": 17\n  '-': 12\n  .: 11\n  _: 10\n  \"1.5\": 19\n  \"9\""
      ": 6\n  \"09\": 7\n  \"10\": 5\n  A: 9\n  a1: 4\n  a01: 3\n  a9: 2\n  a"
      "10: 1\n  b: 8\n  f:a: 14\n  f:data: 13\n  k:{\"type\":\"X\"}: 15\n  \""
      "true\": 18\n  \xc3\xa9: 16\n" },
    { "{\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
      "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\": \"l"
      "ong key\", \"key\\nnl\": \"v\", \"x\": {\"y\": [[1, [2, {}]], {\"z\": "
      "[]}, [], [[]]]}}",
      "? |-\n  key\n  nl\n: v\n? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
      "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
      "kkkkkkkkkkkkkkkk\n: long key\nx:\n  \"y\":\n  - - 1\n    - - 2\n      "
      "- {}\n  - z: []\n  - []\n  - - []\n" },
    { "{\"nums\": [0, -5, 123456789, 9223372036854775807, -922337203685477580"
      "8, 1.5, 0.0001, 1e-05, 1e-07, 1e+21, 1e+20, 1e+19, 123456.789, 1234567"
      ".5, 3.14159, 1e+300], \"b\": [true, false, null]}",
      "b:\n- true\n- false\n- null\nnums:\n- 0\n- -5\n- 123456789\n- 92233720"
      "36854775807\n- -9223372036854775808\n- 1.5\n- 0.0001\n- 1e-05\n- 1e-07"
      "\n- 1e+21\n- 1e+20\n- 10000000000000000000\n- 123456.789\n- 1.2345675e"
      "+06\n- 3.14159\n- 1e+300\n" },
    { "[]",
      "[]\n" },
    { "{}",
      "{}\n" },
    { "\"top\"",
      "top\n" },
    { "42",
      "42\n" },
    { "{\"a\": {\"b\": {\"c\": {\"d\": \"deep\"}}}}",
      "a:\n  b:\n    c:\n      d: deep\n" },
    /* integers beyond uint64 that are not decimal floats read back as
       strings (kubectl 1.32: no big.Int in its go-yaml), and so do
       decimal ones beyond float64 */
    { "{\"h\": \"0x1FFFFFFFFFFFFFFFFFFFF\", \"m\": \"-0x1FFFFFFFFFFFFFFFFF"
      "FFF\", \"o\": \"0o7777777777777777777777777\", \"e\": \"99999999999"
      "999999999\", \"d\": \"1" BIG400 "\"}",
      "d: 1" BIG400 "\ne: \"99999999999999999999\"\nh: 0x1FFFFFFFFFFFFFFFFFFFF"
      "\nm: -0x1FFFFFFFFFFFFFFFFFFFF\no: 0o7777777777777777777777777\n" },
};


static void
test_go_yaml(void **state)
{
    size_t        i;
    json_t       *v;
    gcp_buf_t     b;
    const char   *msg;
    gcp_arena_t  *a;

    for (i = 0; i < gcp_nelems(yaml_cases); i++) {
        a = gcp_arena_create(0);

        v = gcp_json_parse(a, yaml_cases[i].json, strlen(yaml_cases[i].json),
                           &msg);
        assert_non_null(v);

        gcp_buf_init(&b, a);
        gcp_yaml_dump_buf(&b, v);

        if (strcmp(gcp_buf_cstr(&b), yaml_cases[i].yaml) != 0) {
            print_error("case %zu:\n%s\n", i, gcp_buf_cstr(&b));
        }

        assert_string_equal(gcp_buf_cstr(&b), yaml_cases[i].yaml);

        gcp_arena_destroy(a);
    }
}


static void
test_values_built_in_c(void **state)
{
    json_t       *v;
    gcp_str_t     y;
    gcp_arena_t  *a = gcp_arena_create(0);

    /* reals that Go writes as integers read back as integers */
    v = json_pack("{s:f, s:f, s:f, s:f}", "a", 3.0, "b", -0.0, "c", 1e19,
                  "d", 1e20);
    y = gcp_yaml_dump(a, v);
    assert_string_equal(y.data, "a: 3\nb: 0\nc: 10000000000000000000\n"
                        "d: 1e+20\n");
    json_decref(v);

    /* invalid UTF-8 is what Go's JSON makes of it: U+FFFD */
    v = json_object();
    json_object_set_new_nocheck(v, "k\xff", json_stringn_nocheck("\xc3", 1));
    y = gcp_yaml_dump(a, v);
    assert_string_equal(y.data, "k\xef\xbf\xbd: \xef\xbf\xbd\n");
    json_decref(v);

    gcp_arena_destroy(a);
}


static void
test_deep(void **state)
{
    char         *doc;
    size_t        n, i;
    json_t       *v;
    gcp_str_t     y;
    const char   *msg;
    gcp_arena_t  *a = gcp_arena_create(0);

    n = GCP_JSON_MAX_DEPTH;
    doc = gcp_alloc(a, 2 * n + 1);
    memset(doc, '[', n);
    memset(doc + n, ']', n);

    v = gcp_json_parse(a, doc, 2 * n, &msg);
    assert_non_null(v);

    /* "- - - ... - []" on one line */
    y = gcp_yaml_dump(a, v);
    assert_int_equal(y.len, 2 * (n - 1) + 3);

    for (i = 0; i < n - 1; i++) {
        assert_memory_equal(y.data + 2 * i, "- ", 2);
    }

    assert_string_equal(y.data + 2 * (n - 1), "[]\n");

    gcp_arena_destroy(a);
}


static uint32_t
xorshift(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;

    return *x;
}


/* Sets doc to a random mutation of one of seeds; returns its length. */
static size_t
mutate(char *doc, size_t size, const char *const *seeds, size_t nseeds,
    uint32_t *x)
{
    size_t  j, k, len, pos;

    static const char  alphabet[] = "{}[]:,\"\\ \t\n0123456789.e-tfnul"
                                    "abkxyz/\x01\xc3\xa9\xc2\x85\xff";

    k = xorshift(x) % nseeds;
    len = strlen(seeds[k]);
    memcpy(doc, seeds[k], len);

    for (j = xorshift(x) % 4 + 1; j > 0; j--) {
        pos = xorshift(x) % (len + 1);

        if (xorshift(x) % 2 && len > 0) {
            pos = gcp_min(pos, len - 1);
            memmove(doc + pos, doc + pos + 1, len - pos - 1);
            len--;

        } else if (len < size - 1) {
            memmove(doc + pos + 1, doc + pos, len - pos);
            doc[pos] = alphabet[xorshift(x) % (sizeof(alphabet) - 1)];
            len++;
        }
    }

    return len;
}


static void
test_fuzz(void **state)
{
    char          doc[512];
    size_t        i, len;
    json_t       *v;
    uint32_t      x;
    gcp_str_t     y;
    const char   *msg;
    gcp_arena_t  *a;

    static const char *const  seeds[] = {
        "{\"b\":[\"true\",\"a: b\",\"x\\ny\\n\",\" s\",\"#c\",\"1e3\",\"\"],"
        "\"a\":{\"k10\":1,\"k9\":2.5,\"\":null,\"f:x\":{}}}",
        "[[{\"key\\nnl\":\"- v\"},[]],\"2026-11-22T06:45:46Z\",-0.0,1e21]",
        "{\"s\":\"a\\u0085b  \\u0085\\u0085c \\\\ \\\" \\t\",\"n\":123}",
    };

    x = 88172645u;

    for (i = 0; i < 5000; i++) {
        len = mutate(doc, sizeof(doc), seeds, gcp_nelems(seeds), &x);

        a = gcp_arena_create(0);
        v = gcp_json_parse(a, doc, len, &msg);

        if (v != NULL) {
            y = gcp_yaml_dump(a, v);
            assert_non_null(y.data);
            assert_true(y.len > 0);
            assert_int_equal(y.data[y.len - 1], '\n');
            assert_int_equal(strlen(y.data), y.len);
        }

        gcp_arena_destroy(a);
    }
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_reference),
        cmocka_unit_test(test_go_yaml),
        cmocka_unit_test(test_values_built_in_c),
        cmocka_unit_test(test_deep),
        cmocka_unit_test(test_fuzz),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
