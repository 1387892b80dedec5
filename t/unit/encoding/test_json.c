
/*
 * Unit tests: JSON parsing and serialisation (core/encoding/gcp_json.c).
 * Expected messages, offsets and outputs were produced with Go's
 * encoding/json.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gcp_json.h"


/* parses a string literal */
#define parse_lit(a, s, msg)  gcp_json_parse(a, s, sizeof(s) - 1, msg)


typedef struct {
    const char  *in;
    size_t       len;
    size_t       offset;
    const char  *msg;
} parse_error_case_t;


static const parse_error_case_t  parse_errors[] = {
    { "", 0, 0,
      "unexpected end of JSON input" },
    { "   ", 3, 3,
      "unexpected end of JSON input" },
    { "{\"a\":1", 6, 6,
      "unexpected end of JSON input" },
    { "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
      "\"bad\"", 62, 62,
      "unexpected end of JSON input" },
    { "tru", 3, 3,
      "invalid character ' ' in literal true (expecting 'e')" },
    { "fals", 4, 4,
      "invalid character ' ' in literal false (expecting 'e')" },
    { "nul", 3, 3,
      "invalid character ' ' in literal null (expecting 'l')" },
    { "nulx", 4, 4,
      "invalid character 'x' in literal null (expecting 'l')" },
    { "x", 1, 1,
      "invalid character 'x' looking for beginning of value" },
    { "{\"a\" 1}", 7, 6,
      "invalid character '1' after object key" },
    { "{\"a\":1,}", 8, 8,
      "invalid character '}' looking for beginning of object key string" },
    { "{,}", 3, 2,
      "invalid character ',' looking for beginning of object key string" },
    { "[1,]", 4, 4,
      "invalid character ']' looking for beginning of value" },
    { "[1 2]", 5, 4,
      "invalid character '2' after array element" },
    { "-", 1, 1,
      "invalid character ' ' in numeric literal" },
    { "-x", 2, 2,
      "invalid character 'x' in numeric literal" },
    { "1.", 2, 2,
      "invalid character ' ' after decimal point in numeric literal" },
    { "1.x", 3, 3,
      "invalid character 'x' after decimal point in numeric literal" },
    { "1e", 2, 2,
      "invalid character ' ' in exponent of numeric literal" },
    { "1e+", 3, 3,
      "invalid character ' ' in exponent of numeric literal" },
    { "1ex", 3, 3,
      "invalid character 'x' in exponent of numeric literal" },
    { "\"abc", 4, 4,
      "unexpected end of JSON input" },
    { "\"\\x\"", 4, 3,
      "invalid character 'x' in string escape code" },
    { "\"\\u12g4\"", 8, 6,
      "invalid character 'g' in \\u hexadecimal character escape" },
    { "{'a':1}", 7, 2,
      "invalid character '\\'' looking for beginning of object key string" },
    { "{\"a\":1 \"b\":2}", 13, 8,
      "invalid character '\"' after object key:value pair" },
    { "123abc", 6, 4,
      "invalid character 'a' after top-level value" },
    { "{}x", 3, 3,
      "invalid character 'x' after top-level value" },
    { "{} x", 4, 4,
      "invalid character 'x' after top-level value" },
    { "[]]", 3, 3,
      "invalid character ']' after top-level value" },
    { "0123", 4, 2,
      "invalid character '1' after top-level value" },
    { "\"a\tb\"", 5, 3,
      "invalid character '\\t' in string literal" },
    { "{\"a\":tx}", 8, 7,
      "invalid character 'x' in literal true (expecting 'r')" },
    { "\xef\xbb\xbf{}", 5, 1,
      "invalid character '\xc3\xaf' looking for beginning of value" },
    { "{\"a\":\"\x01\"}", 9, 7,
      "invalid character '\\x01' in string literal" },
    { "\x00", 1, 1,
      "invalid character '\\x00' looking for beginning of value" },
    { "\\", 1, 1,
      "invalid character '\\\\' looking for beginning of value" },
    { "'", 1, 1,
      "invalid character '\\'' looking for beginning of value" },
    { "\"", 1, 1,
      "unexpected end of JSON input" },
    { "[1,2", 4, 4,
      "unexpected end of JSON input" },
    { "{\"a\":[1,{\"b\":2}],\"c\":\"x\"} ]", 27, 27,
      "invalid character ']' after top-level value" },
    { " \xc3\xa9", 3, 2,
      "invalid character '\xc3\x83' looking for beginning of value" },
    { "\x80", 1, 1,
      "invalid character '\\u0080' looking for beginning of value" },
    { "\xa0", 1, 1,
      "invalid character '\\u00a0' looking for beginning of value" },
    { "\xad", 1, 1,
      "invalid character '\\u00ad' looking for beginning of value" },
    { "{\"k\":\xff}", 7, 6,
      "invalid character '\xc3\xbf' looking for beginning of value" },
    { "[.5]", 4, 2,
      "invalid character '.' looking for beginning of value" },
    { "[+1]", 4, 2,
      "invalid character '+' looking for beginning of value" },
    { "[01]", 4, 3,
      "invalid character '1' after array element" },
    { "{\"a\":1}{\"b\":2}", 14, 8,
      "invalid character '{' after top-level value" },
};


static void
test_parse_errors(void **state)
{
    int                        rc;
    size_t                     i;
    json_t                    *v;
    gcp_arena_t               *a;
    gcp_json_info_t            info;
    const parse_error_case_t  *c;

    for (i = 0; i < gcp_nelems(parse_errors); i++) {
        c = &parse_errors[i];
        a = gcp_arena_create(0);

        rc = gcp_json_parse_ex(a, c->in, c->len, 0, &v, &info);

        if (rc != GCP_EBADREQUEST || strcmp(info.msg, c->msg) != 0
            || info.offset != c->offset)
        {
            print_error("case %zu: rc %d offset %zu msg \"%s\"\n", i, rc,
                        info.offset, info.msg ? info.msg : "(null)");
        }

        assert_int_equal(rc, GCP_EBADREQUEST);
        assert_null(v);
        assert_string_equal(info.msg, c->msg);
        assert_int_equal(info.offset, c->offset);

        gcp_arena_destroy(a);
    }
}


static void
test_parse_number_errors(void **state)
{
    const char   *msg;
    json_t       *v;
    gcp_arena_t  *a = gcp_arena_create(0);

    v = parse_lit(a, "[1e999]", &msg);
    assert_null(v);
    assert_string_equal(msg, "json: cannot unmarshal number 1e999 into Go "
                        "value of type float64");

    /* a syntax error anywhere wins, as Go checks the syntax first */
    v = parse_lit(a, "[1e999, tru", &msg);
    assert_null(v);
    assert_string_equal(msg, "invalid character ' ' in literal true "
                        "(expecting 'e')");

    v = parse_lit(a, "[1]", &msg);
    assert_non_null(v);
    assert_null(msg);

    gcp_arena_destroy(a);
}


typedef struct {
    const char  *in;
    const char  *out;
} dump_case_t;


static const dump_case_t  dump_cases[] = {
    { "{\"a\":\"<b>&amp;</b>\",\"b\":\"\\u2028\\u2029\",\"c\":\"\xc3\xa9\\u00"
      "e9\",\"d\":\"\\u0001\\u001f\\u007f\",\"e\":\"\\t\\n\\r\\\"\\\\\\/\"}",
      "{\"a\":\"\\u003cb\\u003e\\u0026amp;\\u003c/b\\u003e\",\"b\":\"\\u2028"
      "\\u2029\",\"c\":\"\xc3\xa9\xc3\xa9\",\"d\":\"\\u0001\\u001f\x7f\",\"e"
      "\":\"\\t\\n\\r\\\"\\\\/\"}" },
    { "[1.5,-0.0,1e21,1e20,1e-7,0.000001,100,1e+2,123456789012,0.1,3.14159,-2"
      ".5e-10,5e-324]",
      "[1.5,-0,1e+21,100000000000000000000,1e-7,0.000001,100,100,123456789012"
      ",0.1,3.14159,-2.5e-10,5e-324]" },
    { "{\"a\":[],\"b\":{},\"c\":[{}],\"d\":null,\"e\":true,\"f\":false}",
      "{\"a\":[],\"b\":{},\"c\":[{}],\"d\":null,\"e\":true,\"f\":false}" },
    { " [ \"\\ud83d\\ude00\" , \"\\ud800\" , \"\\udc00\\ud800x\", \"a\xff"
      "b\", \"\xed\xa0\x80\" ] ",
      "[\"\xf0\x9f\x98\x80\",\"\xef\xbf\xbd\",\"\xef\xbf\xbd\xef\xbf\xbdx\","
      "\"a\xef\xbf\xbd"
      "b\",\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"]" },
    { "\"top\"",
      "\"top\"" },
    { "-0",
      "0" },                            /* an int64 0, as PreserveInts */
    { "  42  ",
      "42" },
};


static void
test_roundtrip_go(void **state)
{
    size_t        i;
    json_t       *v;
    gcp_str_t     s;
    const char   *msg;
    gcp_arena_t  *a;

    for (i = 0; i < gcp_nelems(dump_cases); i++) {
        a = gcp_arena_create(0);

        v = gcp_json_parse(a, dump_cases[i].in, strlen(dump_cases[i].in),
                           &msg);
        assert_non_null(v);

        s = gcp_json_dump(a, v, 0);
        assert_string_equal(s.data, dump_cases[i].out);
        assert_int_equal(s.len, strlen(dump_cases[i].out));

        gcp_arena_destroy(a);
    }
}


static void
test_values(void **state)
{
    json_t       *v, *k;
    const char   *msg;
    gcp_arena_t  *a = gcp_arena_create(0);

    /* integers: int64 kept, beyond it a float64 */
    v = parse_lit(a, "[-9223372036854775808,9223372036854775807,"
                       "9223372036854775808,-0,1.0]", &msg);
    assert_non_null(v);
    assert_true(json_is_integer(json_array_get(v, 0)));
    assert_true(json_integer_value(json_array_get(v, 0)) == INT64_MIN);
    assert_true(json_integer_value(json_array_get(v, 1)) == INT64_MAX);
    assert_true(json_is_real(json_array_get(v, 2)));
    assert_true(json_real_value(json_array_get(v, 2)) == 9223372036854775808.0);
    assert_true(json_is_integer(json_array_get(v, 3)));
    assert_true(json_is_real(json_array_get(v, 4)));
    assert_string_equal(gcp_json_dump(a, v, 0).data,
                        "[-9223372036854775808,9223372036854775807,"
                        "9223372036854776000,0,1]");

    /* NUL characters are kept; the last of repeated keys wins */
    v = parse_lit(a, "{\"k\":\"a\\u0000b\",\"k\":\"c\\u0000d\"}", &msg);
    assert_non_null(v);
    assert_int_equal(json_object_size(v), 1);
    k = json_object_get(v, "k");
    assert_int_equal(json_string_length(k), 3);
    assert_memory_equal(json_string_value(k), "c\0d", 3);
    assert_string_equal(gcp_json_dump(a, v, 0).data,
                        "{\"k\":\"c\\u0000d\"}");

    /* keys with NUL, invalid UTF-8 keys */
    v = parse_lit(a, "{\"a\\u0000b\":1,\"\xff\":2}", &msg);
    assert_non_null(v);
    assert_string_equal(gcp_json_dump(a, v, 0).data,
                        "{\"a\\u0000b\":1,\"\xef\xbf\xbd\":2}");

    /* key order is kept */
    v = parse_lit(a, "{\"z\":1,\"a\":2,\"m\":3}", &msg);
    assert_string_equal(gcp_json_dump(a, v, 0).data,
                        "{\"z\":1,\"a\":2,\"m\":3}");

    gcp_arena_destroy(a);
}


static void
test_dump_escapes(void **state)
{
    json_t       *v;
    gcp_buf_t     b;
    gcp_arena_t  *a = gcp_arena_create(0);

    /* Go 1.22+: \b and \f short escapes; invalid UTF-8 as \ufffd */
    v = json_stringn_nocheck("\b\f\x7f\xff\xe2\x80\xa8<", 8);
    gcp_buf_init(&b, a);
    gcp_json_dump_buf(&b, v, 0);
    assert_string_equal(gcp_buf_cstr(&b),
                        "\"\\b\\f\x7f\\ufffd\\u2028\\u003c\"");
    json_decref(v);

    gcp_buf_init(&b, a);
    gcp_json_add_string(&b, "\xc3", 1);
    assert_string_equal(gcp_buf_cstr(&b), "\"\\ufffd\"");

    gcp_arena_destroy(a);
}


static const char  ref_compact[] =
    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"c"
    "m-0\",\"namespace\":\"ref-list\",\"uid\":\"c6e593a9-f4d8-4fd2-b6a9-cc10b"
    "9ccdd8c\",\"resourceVersion\":\"6738\",\"creationTimestamp\":\"2026-11-2"
    "2T06:46:17Z\",\"labels\":{\"app\":\"web\",\"tier\":\"frontend\"},\"manag"
    "edFields\":[{\"manager\":\"refcapture\",\"operation\":\"Update\",\"apiVe"
    "rsion\":\"v1\",\"time\":\"2026-11-22T06:46:17Z\",\"fieldsType\":\"Fields"
    "V1\",\"fieldsV1\":{\"f:data\":{\".\":{},\"f:i\":{}},\"f:metadata\":{\"f:"
    "labels\":{\".\":{},\"f:app\":{},\"f:tier\":{}}}}}]},\"data\":{\"i\":\"0"
    "\"}}";

static const char  ref_pretty[] =
    "{\n  \"kind\": \"ConfigMap\",\n  \"apiVersion\": \"v1\",\n  \"metadata\""
    ": {\n    \"name\": \"cm-0\",\n    \"namespace\": \"ref-list\",\n    \"ui"
    "d\": \"c6e593a9-f4d8-4fd2-b6a9-cc10b9ccdd8c\",\n    \"resourceVersion\":"
    " \"6738\",\n    \"creationTimestamp\": \"2026-11-22T06:46:17Z\",\n    \""
    "labels\": {\n      \"app\": \"web\",\n      \"tier\": \"frontend\"\n    "
    "},\n    \"managedFields\": [\n      {\n        \"manager\": \"refcapture"
    "\",\n        \"operation\": \"Update\",\n        \"apiVersion\": \"v1\","
    "\n        \"time\": \"2026-11-22T06:46:17Z\",\n        \"fieldsType\": "
    "\"FieldsV1\",\n        \"fieldsV1\": {\n          \"f:data\": {\n       "
    "     \".\": {},\n            \"f:i\": {}\n          },\n          \"f:me"
    "tadata\": {\n            \"f:labels\": {\n              \".\": {},\n    "
    "          \"f:app\": {},\n              \"f:tier\": {}\n            }\n "
    "         }\n        }\n      }\n    ]\n  },\n  \"data\": {\n    \"i\": "
    "\"0\"\n  }\n}";


static void
test_pretty_reference(void **state)
{
    json_t       *v;
    gcp_str_t     s;
    const char   *msg;
    gcp_arena_t  *a = gcp_arena_create(0);

    v = gcp_json_parse(a, ref_compact, strlen(ref_compact), &msg);
    assert_non_null(v);

    /* 02-cm-get-pretty.http: byte-exact, no trailing newline */
    s = gcp_json_dump(a, v, 1);
    assert_int_equal(s.len, 822);
    assert_string_equal(s.data, ref_pretty);

    s = gcp_json_dump(a, v, 0);
    assert_string_equal(s.data, ref_compact);

    v = parse_lit(a, "{\"a\":[],\"b\":{},\"c\":[1,{\"d\":[]}]}", &msg);
    assert_string_equal(gcp_json_dump(a, v, 1).data,
                        "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n"
                        "    {\n      \"d\": []\n    }\n  ]\n}");

    gcp_arena_destroy(a);
}


typedef struct {
    const char  *in;
    const char  *dups[4];
} dup_case_t;


static const dup_case_t  dup_cases[] = {
    { "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
      "\"cm-dup\"},\"data\":{\"k\":\"v\",\"k\":\"w\"}}", { "data.k" } },
    { "{\"a\":1,\"a\":2,\"a\":3}", { "a" } },
    { "{\"spec\":{\"items\":[{\"name\":\"a\",\"name\":\"b\"},{\"x\":1},"
      "{\"y\":1,\"y\":2}]}}", { "spec.items[0].name", "spec.items[2].y" } },
    { "[{\"a\":1,\"a\":2}]", { "[0].a" } },
    { "{\"a\":{\"x\":1,\"x\":2},\"a\":{\"y\":1,\"y\":2}}",
      { "a.x", "a", "a.y" } },
    { "{\"\":{\"x\":1,\"x\":2}}", { ".x" } },
    { "{\"m\":[[{\"k\":1,\"k\":2}]]}", { "m[0][0].k" } },
    { "{\"a\":1,\"b\":{\"a\":1},\"c\":[{\"a\":1},{\"a\":2}]}", { NULL } },
    { "{\"a\":1,\"a\":2,", { "a" } },
};


static void
test_duplicates(void **state)
{
    int            rc;
    size_t         i, j, n;
    json_t        *v;
    gcp_buf_t      b;
    const char    *msg;
    const char   **paths;
    gcp_arena_t   *a;

    for (i = 0; i < gcp_nelems(dup_cases); i++) {
        a = gcp_arena_create(0);

        rc = gcp_json_duplicates(a, dup_cases[i].in, strlen(dup_cases[i].in),
                                 &paths, &n);
        assert_int_equal(rc, GCP_OK);

        for (j = 0; dup_cases[i].dups[j]; j++) {
            assert_true(j < n);
            assert_string_equal(paths[j], dup_cases[i].dups[j]);
        }

        assert_int_equal(n, j);

        gcp_arena_destroy(a);
    }

    /* the value kept is the last one (Go), at the first position */
    a = gcp_arena_create(0);
    v = gcp_json_parse(a, dup_cases[0].in, strlen(dup_cases[0].in), &msg);
    assert_non_null(v);
    assert_string_equal(gcp_json_get_str(v, "data", "k", NULL), "w");

    /* at most 100 distinct paths */
    gcp_buf_init(&b, a);
    gcp_buf_addc(&b, '{');

    for (i = 0; i < 150; i++) {
        gcp_buf_printf(&b, "%s\"k%zu\":1,\"k%zu\":2", i ? "," : "", i, i);
    }

    gcp_buf_addc(&b, '}');

    rc = gcp_json_duplicates(a, b.data, b.len, &paths, &n);
    assert_int_equal(rc, GCP_OK);
    assert_int_equal(n, GCP_JSON_MAX_DUPLICATES);
    assert_string_equal(paths[99], "k99");

    gcp_arena_destroy(a);
}


static void
test_deep_nesting(void **state)
{
    int               rc;
    char             *doc;
    size_t            i, n;
    json_t           *v;
    clock_t           t0;
    gcp_str_t         s;
    gcp_arena_t      *a;
    gcp_json_info_t   info;

    a = gcp_arena_create(0);
    n = 20000;
    doc = gcp_alloc(a, 5 * n + 1);

    /* 20000 arrays: fails at the 10001st, quickly */
    memset(doc, '[', n);
    t0 = clock();
    rc = gcp_json_parse_ex(a, doc, n, GCP_JSON_DUPLICATES, &v, &info);
    assert_int_equal(rc, GCP_EBADREQUEST);
    assert_string_equal(info.msg, "invalid character '[' exceeded max depth");
    assert_int_equal(info.offset, 10001);
    assert_true((double) (clock() - t0) / CLOCKS_PER_SEC < 2.0);

    /* 20000 objects */
    for (i = 0; i < n; i++) {
        memcpy(doc + 5 * i, "{\"a\":", 5);
    }

    rc = gcp_json_parse_ex(a, doc, 5 * n, 0, &v, &info);
    assert_int_equal(rc, GCP_EBADREQUEST);
    assert_string_equal(info.msg, "invalid character '{' exceeded max depth");
    assert_int_equal(info.offset, 50001);

    /* exactly 10000 levels are allowed */
    n = GCP_JSON_MAX_DEPTH;
    memset(doc, '[', n);
    memset(doc + n, ']', n);
    rc = gcp_json_parse_ex(a, doc, 2 * n, 0, &v, &info);
    assert_int_equal(rc, GCP_OK);

    s = gcp_json_dump(a, v, 0);
    assert_int_equal(s.len, 2 * n);
    assert_memory_equal(s.data, doc, 2 * n);

    s = gcp_json_dump(a, v, 1);
    assert_non_null(s.data);

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


static void
test_fuzz(void **state)
{
    int               rc;
    char              doc[512];
    size_t            i, j, len, pos, seed;
    json_t           *v, *w;
    uint32_t          x;
    gcp_str_t         s, t;
    const char       *msg;
    gcp_arena_t      *a;
    gcp_json_info_t   info;

    static const char  *seeds[] = {
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
        "\"x\",\"labels\":{\"a\":\"b\"}},\"data\":{\"k\":\"v\\n\\u00e9\","
        "\"n\":[1,2.5,-3e4,true,false,null]}}",
        "[{\"a\":[[],{}]},\"s\\\\\\\"\",0.000001,1e-7,12345678901234567890,"
        "\"\\ud83d\\ude00\"]",
        "{\"x\":{\"y\":{\"z\":[1,{\"w\":\"\xc3\xa9\xff\xfe\",\"w\":1}]}}}",
    };

    static const char  alphabet[] = "{}[]:,\"\\ \t\r\n0123456789.eE+-tfnulrsa"
                                    "\x01\x7f\xc3\xa9\xff";

    x = 2463534242u;

    for (i = 0; i < 20000; i++) {
        seed = i % gcp_nelems(seeds);
        len = strlen(seeds[seed]);
        memcpy(doc, seeds[seed], len);

        for (j = xorshift(&x) % 4 + 1; j > 0; j--) {
            pos = xorshift(&x) % (len + 1);

            switch (xorshift(&x) % 3) {
            case 0:
                if (len > 0) {
                    pos = gcp_min(pos, len - 1);
                    memmove(doc + pos, doc + pos + 1, len - pos - 1);
                    len--;
                }
                break;

            case 1:
                if (len < sizeof(doc) - 1) {
                    memmove(doc + pos + 1, doc + pos, len - pos);
                    doc[pos] = alphabet[xorshift(&x)
                                        % (sizeof(alphabet) - 1)];
                    len++;
                }
                break;

            default:
                len = pos;
            }
        }

        a = gcp_arena_create(0);

        rc = gcp_json_parse_ex(a, doc, len, GCP_JSON_DUPLICATES, &v, &info);

        if (rc == GCP_OK) {
            /* what is written reads back and is written the same */
            s = gcp_json_dump(a, v, 0);
            w = gcp_json_parse(a, s.data, s.len, &msg);
            assert_non_null(w);
            assert_string_equal(gcp_json_dump(a, w, 0).data, s.data);

            t = gcp_json_dump(a, v, 1);
            w = gcp_json_parse(a, t.data, t.len, &msg);
            assert_non_null(w);
            assert_string_equal(gcp_json_dump(a, w, 0).data, s.data);

        } else {
            assert_int_equal(rc, GCP_EBADREQUEST);
            assert_non_null(info.msg);
            assert_true(strncmp(info.msg, "invalid character ", 18) == 0
                        || strcmp(info.msg, "unexpected end of JSON input")
                           == 0
                        || strncmp(info.msg, "json: cannot unmarshal", 22)
                           == 0);
            assert_true(info.offset <= len);
        }

        gcp_arena_destroy(a);
    }
}


static void
test_helpers(void **state)
{
    json_t       *v, *c;
    const char   *msg;
    gcp_arena_t  *a = gcp_arena_create(0);

    v = parse_lit(a, "{\"metadata\":{\"name\":\"n\",\"labels\":null,"
                       "\"x\":1}}", &msg);
    assert_non_null(v);

    assert_string_equal(gcp_json_get_str(v, "metadata", "name", NULL), "n");
    assert_null(gcp_json_get_str(v, "metadata", "x", NULL));
    assert_null(gcp_json_get(v, "metadata", "name", "deeper", NULL));
    assert_ptr_equal(gcp_json_get(v, NULL), v);

    c = gcp_json_object_child(gcp_json_get(v, "metadata", NULL), "labels");
    assert_non_null(c);
    assert_true(json_is_object(c));
    assert_ptr_equal(gcp_json_get(v, "metadata", "labels", NULL), c);
    assert_ptr_equal(gcp_json_object_child(gcp_json_get(v, "metadata", NULL),
                                           "labels"), c);
    assert_null(gcp_json_object_child(gcp_json_get(v, "metadata", NULL),
                                      "x"));

    assert_string_equal(gcp_go_quote(a, "a\"b\\\n\x01\x7f \xc3\xa9 \xff", 12),
                        "\"a\\\"b\\\\\\n\\x01\\x7f \xc3\xa9 \\xff\"");
    assert_string_equal(gcp_go_quote(a, "\xc2\xa0\xe2\x80\xa8", 5),
                        "\"\\u00a0\\u2028\"");

    gcp_arena_destroy(a);
}


/* gcp_json_dump_sorted_buf(): as gcp_json_sort_keys() then a dump. */
static void
test_dump_sorted(void **state)
{
    json_t       *v, *copy;
    gcp_buf_t     b1, b2;
    const char   *msg;
    gcp_arena_t  *a;

    static const char  doc[] =
        "{\"z\":1,\"a\":{\"y\":[{\"b\":2,\"a\":{}},[]],\"x\":\"\\u003c\"},"
        "\"ab\":null,\"a\\u0000b\":true,\"aa\":{},\"\":[1.5,{\"k\":{\"j\":0,"
        "\"i\":-1}}]}";

    a = gcp_arena_create(0);
    v = gcp_json_parse(a, doc, sizeof(doc) - 1, &msg);
    assert_non_null(v);

    copy = gcp_json_deep_copy(v);
    assert_int_equal(gcp_json_sort_keys(copy, 1), GCP_OK);

    gcp_buf_init(&b1, a);
    gcp_json_dump_sorted_buf(&b1, v);
    gcp_buf_init(&b2, a);
    gcp_json_dump_buf(&b2, copy, 0);

    assert_false(gcp_buf_failed(&b1));
    assert_int_equal(b1.len, b2.len);
    assert_memory_equal(b1.data, b2.data, b1.len);
    assert_true(memcmp(b1.data, "{\"\":[1.5,{\"k\":{\"i\":-1,\"j\":0}}],"
                       "\"a\":{\"x\":", 33) == 0);

    /* v itself keeps its order */
    gcp_buf_init(&b2, a);
    gcp_json_dump_buf(&b2, v, 0);
    assert_true(memcmp(b2.data, "{\"z\":1,", 7) == 0);

    json_decref(copy);
    gcp_arena_destroy(a);
}


/*
 * Long strings (copied sixteen bytes at a time where the CPU can): each
 * special byte or sequence at every offset of a 40-byte string is written
 * as alone (the short path), the plain bytes around it as they are.
 */
static void
test_dump_escapes_long(void **state)
{
    size_t        i, k, n;
    char          in[64], want[128];
    gcp_buf_t     b, one;
    const char   *esc;
    gcp_arena_t  *a = gcp_arena_create(0);

    static const char * const  specials[] = {
        "\x01", "\"", "\\", "<", ">", "&", "\n", "\x7f", "a", "\xc3\xa9",
        "\xff", "\xe2\x80\xa8", "\xf0\x9f\x98\x80", "\xc3"
    };

    for (k = 0; k < gcp_nelems(specials); k++) {
        gcp_buf_init(&one, a);
        gcp_json_add_string(&one, specials[k], strlen(specials[k]));
        esc = gcp_buf_cstr(&one);
        n = strlen(esc) - 2;

        for (i = 0; i + strlen(specials[k]) <= 40; i++) {
            memset(in, 'x', i);
            memcpy(in + i, specials[k], strlen(specials[k]));
            memset(in + i + strlen(specials[k]), 'y',
                   40 - i - strlen(specials[k]));

            want[0] = '"';
            memset(want + 1, 'x', i);
            memcpy(want + 1 + i, esc + 1, n);
            memset(want + 1 + i + n, 'y', 40 - i - strlen(specials[k]));
            want[1 + i + n + 40 - i - strlen(specials[k])] = '"';
            want[2 + n + 40 - strlen(specials[k])] = '\0';

            gcp_buf_init(&b, a);
            gcp_json_add_string(&b, in, 40);
            assert_string_equal(gcp_buf_cstr(&b), want);
        }
    }

    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_number_errors),
        cmocka_unit_test(test_roundtrip_go),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_dump_escapes),
        cmocka_unit_test(test_pretty_reference),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_fuzz),
        cmocka_unit_test(test_helpers),
        cmocka_unit_test(test_dump_sorted),
        cmocka_unit_test(test_dump_escapes_long),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
