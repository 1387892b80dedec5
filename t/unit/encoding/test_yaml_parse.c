
/*
 * Unit tests: YAML input (core/encoding/gcp_yaml_parse.c), as
 * sigs.k8s.io/yaml 1.4.0's YAMLToJSON over go-yaml v2 reads it.  The
 * expected JSON and messages were produced by kubectl 1.32, which uses the
 * same libraries (kubectl label --local -f FILE prints the JSON of an
 * object without kind, and go-yaml's error for a bad document); the
 * inputs come from go-yaml's decode_test.go and limit_test.go and
 * sigs.k8s.io/yaml's yaml_test.go.  Strict duplicate keys were checked
 * against kube-apiserver.  Numbers are compared as kube-apiserver reads
 * the JSON back (integers beyond int64 are floats).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_json.h"
#include "gcp_yaml_parse.h"


typedef struct {
    const char  *yaml;
    const char  *expect;        /* JSON, or the error message */
} yaml_case_t;


static const yaml_case_t  value_cases[] = {
    { "v: hi\n",
      "{\"v\":\"hi\"}" },
    { "v: [true, yes, Y, on, On, ON, n, NO, off, False]\n",
      "{\"v\":[true,true,true,true,true,true,false,false,false,false]}" },
    { "v: [10, 0b10, 0xA, 0o17, 017, 08, 4294967296, -10, +685_230, 0x_"
      "0A_74_AE, -0b101010]\n",
      "{\"v\":[10,2,10,15,15,8,4294967296,-10,685230,685230,-42]}" },
    { "v: [0.1, .1, -.1, 6.8523e+5, 685.230_15e+03, 685_230.15, 123456e"
      "1, 1e3, 1.0, -0.0, 1e21, 1e-7]\n",
      "{\"v\":[0.1,0.1,-0.1,685230,685230.15,685230.15,1234560,1000,1,-"
      "0,1e+21,1e-7]}" },
    { "v: [9223372036854775807, 9223372036854775808, -92233720368547758"
      "08, 18446744073709551615, 18446744073709551616, 0x1FFFFFFFFFFFFF"
      "FFFFFFF, 99999999999999999999]\n",
      "{\"v\":[9223372036854775807,9223372036854775808,-922337203685477"
      "5808,18446744073709551615,18446744073709552000,\"0x1FFFFFFFFFFFF"
      "FFFFFFFF\",100000000000000000000]}" },
    { "v: [~, null, Null, NULL, '', \"\"]\nw:\n",
      "{\"v\":[null,null,null,null,\"\",\"\"],\"w\":null}" },
    { "v: [2015-01-01, 2015-02-24T18:19:39Z, 2015-02-24 18:19:39, 2001-"
      "02-29, !!str 2015-01-01, !!timestamp 2015-01-01, \"2015-01-01\"]"
      "\n",
      "{\"v\":[\"2015-01-01\",\"2015-02-24T18:19:39Z\",\"2015-02-24 18:"
      "19:39\",\"2001-02-29\",\"2015-01-01\",\"2015-01-01\",\"2015-01-0"
      "1\"]}" },
    { "v: [1:1, 12:30:45, 190:20:30.15, <foo>, 50cent_of_dollar, -b_c, "
      "+b_c, 3s, 1.2.3.4]\n",
      "{\"v\":[\"1:1\",\"12:30:45\",\"190:20:30.15\",\"\\u003cfoo\\u003"
      "e\",\"50cent_of_dollar\",\"-b_c\",\"+b_c\",\"3s\",\"1.2.3.4\"]}" },
    { "v: [!!float '1.1', !!float 0, !!float -1, !!null '', !!int '1', "
      "!!bool 'yes', ! test, !foo bar, !!str 12, !!binary gIGC]\n",
      "{\"v\":[1.1,0,-1,null,1,true,\"test\",\"bar\",\"12\",\"\\ufffd\\"
      "ufffd\\ufffd\"]}" },
    { "scalar: | # Comment\n\n literal\n\n \ttext\n\nfolded: >\n\n fold"
      "ed\n line\n \n next\n line\n  * one\n  * two\n\n last\n line\n\n",
      "{\"folded\":\"\\nfolded line\\nnext line\\n * one\\n * two\\n\\n"
      "last line\\n\",\"scalar\":\"\\nliteral\\n\\n\\ttext\\n\"}" },
    { "s: [\"a\\tb\\u00e9\\U0001F600\\x41\\0\", 'it''s', \"Generic line"
      " break (no glyph)\\n\\\n Line separator\\u2028\\\n end\"]\n",
      "{\"s\":[\"a\\tb\xc3\xa9\xf0\x9f\x98\x80""A\\u0000\",\"it's\",\"G"
      "eneric line break (no glyph)\\nLine separator\\u2028end\"]}" },
    { "1: a\n1000000000000000000000000000000000000: b\n1e+36: c\n\"1.2"
      "\": d\n1.5: e\n0.1: f\n3.14159265358979: g\ntrue: h\nno: i\n.inf"
      ": j\n-.inf: k\n.nan: l\n-0.0: m\n2015-01-01: n\n",
      "{\"-.inf\":\"k\",\"-0\":\"m\",\".inf\":\"j\",\".nan\":\"l\",\"0."
      "1\":\"f\",\"1\":\"a\",\"1.2\":\"d\",\"1.5\":\"e\",\"1e+36\":\"c"
      "\",\"2015-01-01\":false,\"3.1415927\":\"g\",\"false\":\"i\",\"tr"
      "ue\":\"h\"}" },
    { "a: &x 1\nb: &y 2\nc: *x\nd: *y\n",
      "{\"a\":1,\"b\":2,\"c\":1,\"d\":2}" },
    { "a: &a {c: 1}\nb: *a\nc: [*a, *a]\n",
      "{\"a\":{\"c\":1},\"b\":{\"c\":1},\"c\":[{\"c\":1},{\"c\":1}]}" },
    { "First occurrence: &anchor Foo\nSecond occurrence: *anchor\nOverr"
      "ide anchor: &anchor Bar\nReuse anchor: *anchor\n",
      "{\"First occurrence\":\"Foo\",\"Override anchor\":\"Bar\",\"Reus"
      "e anchor\":\"Bar\",\"Second occurrence\":\"Foo\"}" },
    { "base: &b {k1: v1, k2: v2}\nkeep:\n  k1: v3\n  <<: *b\noverride:"
      "\n  <<: *b\n  k1: v3\nmulti:\n  <<: [{k1: a}, {k1: b, k3: c}]\n",
      "{\"base\":{\"k1\":\"v1\",\"k2\":\"v2\"},\"keep\":{\"k1\":\"v1\","
      "\"k2\":\"v2\"},\"multi\":{\"k1\":\"a\",\"k3\":\"c\"},\"override"
      "\":{\"k1\":\"v3\",\"k2\":\"v2\"}}" },
    { "x: {'<<': {a: 1}}\ny: {!!merge <<: {a: 1}}\nz: {? !!str '<<' : 1"
      "}\n",
      "{\"true\":{\"a\":1},\"x\":{\"\\u003c\\u003c\":{\"a\":1}},\"z\":{"
      "\"\\u003c\\u003c\":1}}" },
    { "a: 1\na: 2\nb: {c: 1, c: 2}\nd: {1: x, 0x1: y}\ne: {true: x, yes"
      ": y}\n",
      "{\"a\":2,\"b\":{\"c\":2},\"d\":{\"1\":true},\"e\":{\"true\":true"
      "}}" },
    { "a:\n  - b: abc\n    c: def\n  - b: 123\n    c: 456\n",
      "{\"a\":[{\"b\":\"abc\",\"c\":\"def\"},{\"b\":123,\"c\":456}]}" },
    { "- t: a\n- t:\n    b: 1\n    c: 2\n",
      "[{\"t\":\"a\"},{\"t\":{\"b\":1,\"c\":2}}]" },
    { "[{t: a}, {t: {b: 1, c: 2}}]\n",
      "[{\"t\":\"a\"},{\"t\":{\"b\":1,\"c\":2}}]" },
    { "? a\n? b\n: 1\n",
      "{\"a\":null,\"b\":1}" },
    { "empty_map: {}\nempty_seq: []\nnested: [[[]], {}, [{}]]\n",
      "{\"empty_map\":{},\"empty_seq\":[],\"nested\":[[[]],{},[{}]]}" },
    { "u: \"\\xc3\\xa9 caf\xc3\xa9\"\n",
      "{\"u\":\"\xc3\x83\xc2\xa9 caf\xc3\xa9\"}" },
    { "x: {a: [b, c], d: {e: f}}\ny:\n- - 1\n  - 2\n- ? k\n  : v\n",
      "{\"true\":[[1,2],{\"k\":\"v\"}],\"x\":{\"a\":[\"b\",\"c\"],\"d\""
      ":{\"e\":\"f\"}}}" },
    { "hello\n",
      "\"hello\"" },
    { "[1, 2]\n",
      "[1,2]" },
    { "'1': '\"2\"'\n",
      "{\"1\":\"\\\"2\\\"\"}" },
    { "v:\n- A\n- 'B\n\n  C'\n",
      "{\"v\":[\"A\",\"B\\nC\"]}" },
    { "a: {b: https://github.com/go-yaml/yaml}\nc: [https://github.com/"
      "go-yaml/yaml]\n",
      "{\"a\":{\"b\":\"https://github.com/go-yaml/yaml\"},\"c\":[\"http"
      "s://github.com/go-yaml/yaml\"]}" },
};


static const yaml_case_t  error_cases[] = {
    { "v: !!float 'error'\n",
      "error converting YAML to JSON: yaml: cannot decode !!str `error`"
      " as a !!float" },
    { "v: [A,\n",
      "error converting YAML to JSON: yaml: line 1: did not find expect"
      "ed node content" },
    { "v:\n- [A,\n",
      "error converting YAML to JSON: yaml: line 2: did not find expect"
      "ed node content" },
    { "a:\n- b: *,\n",
      "error converting YAML to JSON: yaml: line 2: did not find expect"
      "ed alphabetic or numeric character" },
    { "a: *b\n",
      "error converting YAML to JSON: yaml: unknown anchor 'b' referenc"
      "ed" },
    { "a: &a\n  b: *a\n",
      "error converting YAML to JSON: yaml: anchor 'a' value contains i"
      "tself" },
    { "a: &x null\n<<:\n- *x\nb: &x {}\n",
      "error converting YAML to JSON: yaml: map merge requires map or s"
      "equence of maps as the value" },
    { "value: -\n",
      "error converting YAML to JSON: yaml: block sequence entries are "
      "not allowed in this context" },
    { "a: !!binary ==\n",
      "error converting YAML to JSON: yaml: !!binary value contains inv"
      "alid base64 data" },
    { "x: {[.]: 1}\n",
      "error converting YAML to JSON: yaml: invalid map key: []interfac"
      "e {}{\".\"}" },
    { "x: {{.}: 1}\n",
      "error converting YAML to JSON: yaml: invalid map key: map[interf"
      "ace {}]interface {}{\".\":interface {}(nil)}" },
    { "b: *a\na: &a {c: 1}\n",
      "error converting YAML to JSON: yaml: unknown anchor 'a' referenc"
      "ed" },
    { "%TAG !%79! tag:yaml.org,2002:\nv: !%79!int '1'\n",
      "error converting YAML to JSON: yaml: did not find expected white"
      "space" },
    { "a:\n  1:\nb\n  2:\n",
      "error converting YAML to JSON: yaml: line 4: could not find expe"
      "cted ':'" },
    { "apiVersion: v1\nkind2: ConfigMap\nmetadata:\n  name: a2\ndata:\n"
      "  k: v\n   bad: x\n",
      "error converting YAML to JSON: yaml: line 7: mapping values are "
      "not allowed in this context" },
    { "apiVersion: v1\nmetadata:\n  name: [\n",
      "error converting YAML to JSON: yaml: line 3: did not find expect"
      "ed node content" },
    { "\tapiVersion: v1\n",
      "error converting YAML to JSON: yaml: found character that cannot"
      " start any token" },
    { "apiVersion: v1\nmetadata:\n  name: \"abc\n",
      "error converting YAML to JSON: yaml: line 4: found unexpected en"
      "d of stream" },
    { "a: 1\n  b: 2\n",
      "error converting YAML to JSON: yaml: line 2: mapping values are "
      "not allowed in this context" },
    { "a: 'x\n",
      "error converting YAML to JSON: yaml: line 2: found unexpected en"
      "d of stream" },
    { "a: \"\\q\"\n",
      "error converting YAML to JSON: yaml: found unknown escape charac"
      "ter" },
    { "a: b: c\n",
      "error converting YAML to JSON: yaml: mapping values are not allo"
      "wed in this context" },
    { "x: 1\n- a\n",
      "error converting YAML to JSON: yaml: line 1: did not find expect"
      "ed key" },
    { "x: 1\ny: @\n",
      "error converting YAML to JSON: yaml: line 2: found character tha"
      "t cannot start any token" },
    { "x:\n  a: 1\n b: 2\n",
      "error converting YAML to JSON: yaml: line 2: did not find expect"
      "ed key" },
    { "x: |\n  a\n b\n",
      "error converting YAML to JSON: yaml: line 2: did not find expect"
      "ed key" },
    { "a: \x01\n",
      "error converting YAML to JSON: yaml: control characters are not "
      "allowed" },
    { "~: x\n",
      "error converting YAML to JSON: unsupported map key of type: %!s("
      "<nil>), key: <nil>, value: \"x\"" },
    { "x: {18446744073709551615: a}\n",
      "error converting YAML to JSON: unsupported map key of type: uint"
      "64, key: 0xffffffffffffffff, value: \"a\"" },
    { "x: {~: {a: [1, 2.5, 1e6, ~, 0xff, true, 18446744073709551615]}}"
      "\n",
      "error converting YAML to JSON: unsupported map key of type: %!s("
      "<nil>), key: <nil>, value: map[interface {}]interface {}{\"a\":["
      "]interface {}{1, 2.5, 1e+06, interface {}(nil), 255, true, 0xfff"
      "fffffffffffff}}" },
    { "x: [a, b]\n: c\n",
      "error converting YAML to JSON: yaml: line 1: did not find expect"
      "ed key" },
    { "x: .nan\n",
      "error converting YAML to JSON: json: unsupported value: NaN" },
    { "x: [-.inf]\n",
      "error converting YAML to JSON: json: unsupported value: -Inf" },
    { "x: !!int 1.5\n",
      "error converting YAML to JSON: yaml: cannot decode !!float `1.5`"
      " as a !!int" },
    { "x: !!bool 1\n",
      "error converting YAML to JSON: yaml: cannot decode !!int `1` as "
      "a !!bool" },
    { "x: !!null x\n",
      "error converting YAML to JSON: yaml: cannot decode !!str `x` as "
      "a !!null" },
    { "x: !!timestamp 123\n",
      "error converting YAML to JSON: yaml: cannot decode !!int `123` a"
      "s a !!timestamp" },
    { "x: !!float 18446744073709551615\n",
      "error converting YAML to JSON: yaml: cannot decode !!int `184467"
      "44073709551615` as a !!float" },
    { "x: {<<: 1}\n",
      "error converting YAML to JSON: yaml: map merge requires map or s"
      "equence of maps as the value" },
    { "x: {<<: [1]}\n",
      "error converting YAML to JSON: yaml: map merge requires map or s"
      "equence of maps as the value" },
    { "x: &s [1]\ny: {<<: *s}\n",
      "error converting YAML to JSON: yaml: map merge requires map or s"
      "equence of maps as the value" },
    { "%YAML 1.2\n---\nx: 1\n",
      "error converting YAML to JSON: yaml: found incompatible YAML doc"
      "ument" },
    { "%YAML 2.0\n---\nx: 1\n",
      "error converting YAML to JSON: yaml: found incompatible YAML doc"
      "ument" },
    { "x: [1, 2]: 3\n",
      "error converting YAML to JSON: yaml: mapping values are not allo"
      "wed in this context" },
    { "x: {a: 1, a: 2}\n",
      "{\"x\":{\"a\":2}}" },
    { "x: &a\n  y: [*a]\n",
      "error converting YAML to JSON: yaml: anchor 'a' value contains i"
      "tself" },
};



/* Returns the compact JSON of the value parsed from yaml, or its error. */
static const char *
parse(gcp_arena_t *a, const char *yaml, size_t len, unsigned flags,
    gcp_yaml_info_t *info)
{
    int      rc;
    json_t  *v;

    rc = gcp_yaml_parse(a, yaml, len, flags, &v, info);

    if (rc != GCP_OK) {
        assert_int_equal(rc, GCP_EBADREQUEST);
        assert_null(v);
        assert_non_null(info->msg);
        return info->msg;
    }

    assert_non_null(v);
    assert_null(info->msg);

    return gcp_json_dump(a, v, 0).data;
}


/* The JSON as kube-apiserver reads it back, compact. */
static const char *
reread(gcp_arena_t *a, const char *json)
{
    json_t      *v;
    const char  *msg;

    v = gcp_json_parse(a, json, strlen(json), &msg);
    assert_non_null(v);

    return gcp_json_dump(a, v, 0).data;
}


/*
 * Parses every case: its JSON, read back as kube-apiserver reads it, or
 * its error message (errors).
 */
static void
check_cases(const yaml_case_t *cases, size_t n, int errors)
{
    size_t           i;
    const char      *got, *expect;
    gcp_arena_t     *a;
    gcp_yaml_info_t  info;

    for (i = 0; i < n; i++) {
        a = gcp_arena_create(0);

        got = parse(a, cases[i].yaml, strlen(cases[i].yaml), 0, &info);
        expect = errors ? cases[i].expect : reread(a, cases[i].expect);

        if (strcmp(got, expect) != 0) {
            fail_msg("%s\n  got      %s\n  expected %s", cases[i].yaml, got,
                     expect);
        }

        gcp_arena_destroy(a);
    }
}


static void
test_values(void **state)
{
    check_cases(value_cases, gcp_nelems(value_cases), 0);
}


static void
test_errors(void **state)
{
    check_cases(error_cases, gcp_nelems(error_cases), 1);
}


/* kube-apiserver's body: raw bytes, no newline added at the end */

typedef struct {
    const char  *yaml;
    const char  *expect;
    size_t       len;           /* 0: strlen(yaml) */
} raw_case_t;


static const raw_case_t  raw_cases[] = {
    { "a: 's", "error converting YAML to JSON: yaml: found unexpected end "
      "of stream", 0 },
    { "x: 1\na: 's", "error converting YAML to JSON: yaml: line 2: found "
      "unexpected end of stream", 0 },
    { "a: \xff", "error converting YAML to JSON: yaml: invalid leading "
      "UTF-8 octet", 0 },
    { "a: \xed\xa0\x80", "error converting YAML to JSON: yaml: invalid "
      "Unicode character", 0 },
    { "- a\n- b\n", "[\"a\",\"b\"]", 0 },
    { "hello", "\"hello\"", 0 },
    { "[1, 2]", "[1,2]", 0 },
    { "", "null", 0 },
    { "\n", "null", 0 },
    { "# only a comment\n", "null", 0 },
    { "null\n", "null", 0 },
    { "---\n", "null", 0 },
    { "---\n---\na: 1\n", "null", 0 },
    /* the first document only; what follows it is not even parsed */
    { "a: 1\n---\nb: 2\n", "{\"a\":1}", 0 },
    { "a: 1\n---\n- [\n", "{\"a\":1}", 0 },
    { "---\nhello\n...\n}not yaml", "\"hello\"", 0 },
    { "\xef\xbb\xbf" "a: 1", "{\"a\":1}", 0 },
    /* UTF-16 with a byte order mark */
    { "\xff\xfe" "a\0:\0 \0" "1\0\n\0", "{\"a\":1}", 12 },
    { "\xfe\xff\0a\0:\0 \0" "1\0\n", "{\"a\":1}", 12 },
};


static void
test_raw(void **state)
{
    size_t           i, len;
    const char      *got, *y;
    gcp_arena_t     *a;
    gcp_yaml_info_t  info;

    for (i = 0; i < gcp_nelems(raw_cases); i++) {
        a = gcp_arena_create(0);

        y = raw_cases[i].yaml;
        len = raw_cases[i].len ? raw_cases[i].len : strlen(y);

        got = parse(a, y, len, 0, &info);

        if (strcmp(got, raw_cases[i].expect) != 0) {
            fail_msg("case %zu\n  got      %s\n  expected %s", i, got,
                     raw_cases[i].expect);
        }

        gcp_arena_destroy(a);
    }

    /* no data at all */
    a = gcp_arena_create(0);
    assert_string_equal(parse(a, NULL, 0, 0, &info), "null");
    gcp_arena_destroy(a);
}


typedef struct {
    const char  *yaml;
    const char  *json;
    const char  *dups[4];          /* NULL-terminated */
} strict_case_t;


static const strict_case_t  strict_cases[] = {
    /* kube-apiserver: "line 6: key \"labels\" already set in map" ... */
    { "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b4\n  labels: "
      "{a: b}\n  labels: {c: d}\ndata: {a: x1, a: x2}\n",
      "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"x2\"},\"kind\":\"ConfigMap\","
      "\"metadata\":{\"labels\":{\"c\":\"d\"},\"name\":\"b4\"}}",
      { "line 6: key \"labels\" already set in map",
        "line 7: key \"a\" already set in map" } },
    /* a merged key set again: at the line of the value that repeats it */
    { "base: &b {k1: v1, k2: v2}\ndata:\n  <<: *b\n  k1: v3\n",
      "{\"base\":{\"k1\":\"v1\",\"k2\":\"v2\"},\"data\":{\"k1\":\"v3\","
      "\"k2\":\"v2\"}}",
      { "line 4: key \"k1\" already set in map" } },
    /* go-yaml's decode_test.go: typed keys, the later value */
    { "a: 1\n9: 2\nb: 3\n9: 4", "{\"9\":4,\"a\":1,\"b\":3}",
      { "line 4: key 9 already set in map" } },
    { "1: a\n0x1: b\ntrue: c\nyes: d\n1.5: e\n15e-1: f\n",
      "{\"1\":\"b\",\"1.5\":\"f\",\"true\":\"d\"}",
      { "line 2: key 1 already set in map",
        "line 4: key true already set in map",
        "line 6: key 1.5 already set in map" } },
    /* the same text as different types is not a duplicate for go-yaml */
    { "1: a\n'1': b\n", "{\"1\":\"b\"}", { NULL } },
    /* an alias decodes its node again, duplicates included */
    { "a: &x {k: 1, k: 2}\nb: *x\n",
      "{\"a\":{\"k\":2},\"b\":{\"k\":2}}",
      { "line 1: key \"k\" already set in map",
        "line 1: key \"k\" already set in map" } },
    /* NaN is never equal to NaN; both are ".nan" in JSON */
    { "a: {.nan: 1, .nan: 2}\n", "{\"a\":{\".nan\":2}}", { NULL } },
};


static void
test_strict(void **state)
{
    size_t               i, n;
    gcp_buf_t            b;
    const char          *got;
    gcp_arena_t         *a;
    gcp_yaml_info_t      info;
    const strict_case_t  *c;

    for (i = 0; i < gcp_nelems(strict_cases); i++) {
        c = &strict_cases[i];
        a = gcp_arena_create(0);

        /* not strict: no duplicates reported, the same value */
        got = parse(a, c->yaml, strlen(c->yaml), 0, &info);
        assert_int_equal(info.ndups, 0);
        assert_null(info.strict_msg);

        if (c->json) {
            assert_string_equal(got, c->json);
        }

        got = parse(a, c->yaml, strlen(c->yaml), GCP_YAML_STRICT, &info);

        if (c->json) {
            assert_string_equal(got, c->json);
        }

        for (n = 0; c->dups[n]; n++) {
            assert_true(n < info.ndups);
            assert_string_equal(info.dups[n], c->dups[n]);
        }

        assert_int_equal(info.ndups, n);

        if (n == 0) {
            assert_null(info.strict_msg);
            gcp_arena_destroy(a);
            continue;
        }

        /* YAMLToJSONStrict's error, as kube-apiserver quotes it */
        gcp_buf_init(&b, a);
        gcp_buf_addstr(&b, "error converting YAML to JSON: yaml: unmarshal "
                       "errors:");

        for (n = 0; c->dups[n]; n++) {
            gcp_buf_printf(&b, "\n  %s", c->dups[n]);
        }

        assert_string_equal(info.strict_msg, gcp_buf_cstr(&b));

        gcp_arena_destroy(a);
    }
}


/* Runs yaml (malloc'd, freed here); returns the error or NULL. */
static const char *
run_big(gcp_arena_t *a, char *yaml, size_t len)
{
    int              rc;
    json_t          *v;
    gcp_yaml_info_t  info;

    rc = gcp_yaml_parse(a, yaml, len, GCP_YAML_STRICT, &v, &info);
    free(yaml);

    if (rc == GCP_OK) {
        assert_non_null(v);
        return NULL;
    }

    assert_int_equal(rc, GCP_EBADREQUEST);

    return gcp_sprintf(a, "%s%s", info.json ? "json: " : "", info.msg);
}


/* Returns a malloc'd string: head, then rep n times, then tail. */
static char *
repeat(const char *head, const char *rep, size_t n, const char *tail,
    size_t *len)
{
    char    *s, *p;
    size_t   hl, rl, tl, i;

    hl = strlen(head);
    rl = strlen(rep);
    tl = strlen(tail);

    s = malloc(hl + rl * n + tl + 1);
    assert_non_null(s);

    memcpy(s, head, hl);
    p = s + hl;

    for (i = 0; i < n; i++) {
        memcpy(p, rep, rl);
        p += rl;
    }

    memcpy(p, tail, tl + 1);
    *len = hl + rl * n + tl;

    return s;
}


#define DEPTH_ERROR  "error converting YAML to JSON: yaml: exceeded max " \
                     "depth of 10000"
#define ALIAS_ERROR  "error converting YAML to JSON: yaml: document " \
                     "contains excessive aliasing"


static void
test_limits(void **state)
{
    char         *s, *t;
    size_t        len, i, n;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);

    /* go-yaml's limit_test.go */

    s = repeat("{a: &a [{a}", ",{a}", 1000 * 1024 / 4 - 100, "], b: &b [*a",
               &len);
    t = repeat(s, ",*a", 99, "]}", &len);
    free(s);
    assert_string_equal(run_big(a, t, len), ALIAS_ERROR);

    s = repeat("", "[", 1000 * 1024, "", &len);
    assert_string_equal(run_big(a, s, len), DEPTH_ERROR);

    s = repeat("x: ", "{", 1000 * 1024, "", &len);
    assert_string_equal(run_big(a, s, len), DEPTH_ERROR);

    s = repeat("", "- ", 1000 * 1024, "", &len);
    assert_string_equal(run_big(a, s, len), DEPTH_ERROR);

    t = repeat("", "- ", 1000, "\n", &len);
    s = repeat("", t, 1024 / 2, "", &len);
    free(t);
    assert_null(run_big(a, s, len));

    s = repeat("a: &a [{a}", ",{a}", 1 * 1024 / 4 - 1, "]", &len);
    assert_null(run_big(a, s, len));

    s = repeat("a: &a [{a}", ",{a}", 1000 * 1024 / 4 - 1, "]", &len);
    assert_null(run_big(a, s, len));

    /* decode_test.go: a billion laughs */

    s = strdup("a: &a [00,00,00,00,00,00,00,00,00]\n"
               "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
               "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
               "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
               "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
               "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
               "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
               "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
               "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n");
    assert_string_equal(run_big(a, s, strlen(s)), ALIAS_ERROR);

    /* the same through merge keys */
    s = strdup("a: &a {a0: 0, a1: 1, a2: 2, a3: 3, a4: 4, a5: 5, a6: 6}\n"
               "b: &b {<<: [*a], b0: *a, b1: *a, b2: *a, b3: *a, b4: *a}\n"
               "c: &c {<<: *b, c0: *b, c1: *b, c2: *b, c3: *b, c4: *b}\n"
               "d: &d {<<: *c, d0: *c, d1: *c, d2: *c, d3: *c, d4: *c}\n"
               "e: &e {<<: *d, e0: *d, e1: *d, e2: *d, e3: *d, e4: *d}\n"
               "f: &f {<<: *e, f0: *e, f1: *e, f2: *e, f3: *e, f4: *e}\n"
               "g: &g {<<: *f, g0: *f, g1: *f, g2: *f, g3: *f, g4: *f}\n"
               "h: &h {<<: *g, h0: *g, h1: *g, h2: *g, h3: *g, h4: *g}\n"
               "i: &i {<<: *h, i0: *h, i1: *h, i2: *h, i3: *h, i4: *h}\n");
    assert_string_equal(run_big(a, s, strlen(s)), ALIAS_ERROR);

    /*
     * Tighter than go-yaml: a large document where aliases account for a
     * share go-yaml allows, but more than GCP_YAML_MAX_ALIAS_NODES nodes.
     */
    t = repeat("a: &a [x", ",x", 999, "]\nb: [", &len);
    s = repeat(t, "{x: 1},", 250000, "{}]\nc: [*a", &len);
    free(t);
    t = repeat(s, ",*a", 251, "]\n", &len);
    free(s);
    assert_string_equal(run_big(a, t, len), ALIAS_ERROR);

    /* the same with fewer aliases is fine */
    t = repeat("a: &a [x", ",x", 999, "]\nb: [", &len);
    s = repeat(t, "{x: 1},", 250000, "{}]\nc: [*a", &len);
    free(t);
    t = repeat(s, ",*a", 200, "]\n", &len);
    free(s);
    assert_null(run_big(a, t, len));

    /*
     * Aliases that nest deeper than 10000 levels in all: the JSON the
     * conversion writes is refused by the JSON decoder.
     */
    s = repeat("a0: &a0 ", "[", 5000, "1", &len);
    t = repeat(s, "]", 5000, "\na1: &a1 [*a0]\n", &len);
    free(s);
    s = repeat(t, "", 0, "b: [[*a1, *a1]]\n", &len);
    free(t);
    assert_null(run_big(a, s, len));

    s = malloc(1 << 20);
    assert_non_null(s);
    n = (size_t) sprintf(s, "a0: &a0 [1]\n");

    for (i = 1; i <= 3; i++) {
        n += (size_t) sprintf(s + n, "a%zu: &a%zu ", i, i);
        memset(s + n, '[', 4999);
        n += 4999;
        n += (size_t) sprintf(s + n, "*a%zu", i - 1);
        memset(s + n, ']', 4999);
        n += 4999;
        s[n++] = '\n';
    }

    assert_string_equal(run_big(a, s, n), "json: invalid character '[' "
                        "exceeded max depth");

    gcp_arena_destroy(a);
}


/* Messages print values as Go's %#v, cut after 4 KiB. */

static void
test_long_message(void **state)
{
    char            *s;
    size_t           len;
    const char      *msg;
    gcp_arena_t     *a;
    gcp_yaml_info_t  info;
    json_t          *v;

    a = gcp_arena_create(0);

    s = repeat("~: [", "abcdefgh, ", 10000, "x]\n", &len);

    assert_int_equal(gcp_yaml_parse(a, s, len, 0, &v, &info),
                     GCP_EBADREQUEST);
    free(s);

    msg = info.msg;
    assert_true(strncmp(msg, "error converting YAML to JSON: unsupported "
                        "map key of type: %!s(<nil>), key: <nil>, value: "
                        "[]interface {}{\"abcdefgh\", ", 117) == 0);
    assert_true(strlen(msg) < 4096 + 200);
    assert_string_equal(msg + strlen(msg) - 3, "...");

    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_raw),
        cmocka_unit_test(test_strict),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_long_message),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
