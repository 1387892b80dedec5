
/*
 * Unit tests: label and field selectors (core/meta/gcp_selector.c).
 * Messages are kube-apiserver's (reference 04-list-*-selector-*.http,
 * 12-events-field-selector-unsupported.http) and labels.Parse's.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <stdio.h>

#include "gcp_selector.h"


#define QNAME_MSG                                                             \
    "must consist of alphanumeric characters, '-', '_' or '.', and must "     \
    "start and end with an alphanumeric character (e.g. 'MyName',  or "       \
    "'my.name',  or '123-abc', regex used for validation is "                 \
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

#define VALUE_MSG                                                             \
    "a valid label must be an empty string or consist of alphanumeric "       \
    "characters, '-', '_' or '.', and must start and end with an "            \
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "   \
    "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?"            \
    "[A-Za-z0-9])?')"

#define SUBDOMAIN_MSG                                                         \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric " \
    "characters, '-' or '.', and must start and end with an alphanumeric "    \
    "character (e.g. 'example.com', regex used for validation is "            \
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

#define GT_MSG  "for 'Gt', 'Lt' operators, the value must be an integer"

#define LONG64                                                                \
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"


typedef struct {
    const char  *in;
    const char  *out;       /* String() after parsing, or NULL */
    const char  *msg;       /* the error, or NULL */
} sel_case_t;


static const sel_case_t  label_cases[] = {
    { "", "", NULL },
    { " \t\r\n ", "", NULL },
    { "x=a", "x=a", NULL },
    { "x==a", "x==a", NULL },
    { "x!=a", "x!=a", NULL },
    { "x", "x", NULL },
    { "!x", "!x", NULL },
    { "x>1", "x>1", NULL },
    { "x<10", "x<10", NULL },
    { "x=", "x=", NULL },
    { "x=,y!=", "x=,y!=", NULL },
    { "  x  =  a  ,  y  ", "x=a,y", NULL },
    { "x in (b,a,b)", "x in (a,b)", NULL },
    { "x notin (a)", "x notin (a)", NULL },
    { "x in (foo,,baz),y,z notin ()", "x in (,baz,foo),y,z notin ()", NULL },
    { "x in (,a)", "x in (,a)", NULL },
    { "x in (a,)", "x in (,a)", NULL },
    { "z=a,y,x in (c,b),!w", "!w,x in (b,c),y,z=a", NULL },
    { "in=notin", "in=notin", NULL },
    { "x in (in,notin)", "x in (in,notin)", NULL },
    { "example.com/app=web", "example.com/app=web", NULL },
    { "app in (web,db),tier!=cache,!nosuch",
      "app in (db,web),!nosuch,tier!=cache", NULL },

    /* reference 04-list-label-selector-invalid.http */
    { "app in (web", NULL,
      "unable to parse requirement: found '', expected: ',' or ')'" },

    /* reference 04-list-label-selector-invalid-value.http */
    { "app=bad value!", NULL,
      "found 'value', expected: ',' or 'end of string'" },

    { "=a", NULL, "found '=', expected: !, identifier, or 'end of string'" },
    { "!=a", NULL,
      "found '!=', expected: !, identifier, or 'end of string'" },
    { "x=a,", NULL, "found '', expected: identifier after ','" },
    { "x=a,=b", NULL, "found '=', expected: identifier after ','" },
    { "!x=a", NULL, "found '=', expected: ',' or 'end of string'" },
    { "x b", NULL, "unable to parse requirement: found 'b', expected: "
                   "in, notin, =, ==, !=, gt, lt" },
    { "x!b", NULL, "unable to parse requirement: found '!', expected: "
                   "in, notin, =, ==, !=, gt, lt" },
    { "x>=1", NULL, "unable to parse requirement: found '=', expected: "
                    "identifier" },
    { "x in a", NULL, "unable to parse requirement: found 'a' expected: "
                      "'('" },
    { "x in", NULL, "unable to parse requirement: found '' expected: '('" },
    { "x in (a b)", NULL, "unable to parse requirement: found 'b', "
                          "expected: ',' or ')'" },
    { "x in (=)", NULL, "unable to parse requirement: found '=', "
                        "expected: ',', ')' or identifier" },
    { "x in (a,=)", NULL, "unable to parse requirement: found '=', "
                          "expected: ',', or identifier" },
    { "x in (,,)", NULL, "unable to parse requirement: found ')', "
                         "expected: ',', or identifier" },
    { "x=(", NULL, "unable to parse requirement: found '(', expected: "
                   "identifier" },
    { "!", NULL, "unable to parse requirement: found '', expected: "
                 "identifier" },
    { "!(", NULL, "unable to parse requirement: found '(', expected: "
                  "identifier" },

    /* key validation: a nil field path renders as <nil> */
    { "app:monolith", NULL, "unable to parse requirement: <nil>: Invalid "
      "value: \"app:monolith\": name part " QNAME_MSG },
    { "-x=a", NULL, "unable to parse requirement: <nil>: Invalid value: "
      "\"-x\": name part " QNAME_MSG },
    { "a/b/c=d", NULL, "unable to parse requirement: <nil>: Invalid value: "
      "\"a/b/c\": a qualified name " QNAME_MSG " with an optional DNS "
      "subdomain prefix and '/' (e.g. 'example.com/MyName')" },
    { "app.kubernetes_io/name=x", NULL, "unable to parse requirement: "
      "<nil>: Invalid value: \"app.kubernetes_io/name\": prefix part "
      SUBDOMAIN_MSG },
    { "/x", NULL, "unable to parse requirement: <nil>: Invalid value: "
      "\"/x\": prefix part must be non-empty" },
    { "x/", NULL, "unable to parse requirement: <nil>: Invalid value: "
      "\"x/\": name part must be non-empty; name part " QNAME_MSG },
    { LONG64, NULL, "unable to parse requirement: <nil>: Invalid value: "
      "\"" LONG64 "\": name part must be no more than 63 characters" },
    { "Bad.Prefix/" LONG64, NULL, "unable to parse requirement: <nil>: "
      "Invalid value: \"Bad.Prefix/" LONG64 "\": prefix part "
      SUBDOMAIN_MSG "; name part must be no more than 63 characters" },

    /* value validation: path values[i][key] */
    { "x=-a", NULL, "unable to parse requirement: values[0][x]: Invalid "
      "value: \"-a\": " VALUE_MSG },
    { "x=" LONG64, NULL, "unable to parse requirement: values[0][x]: "
      "Invalid value: \"" LONG64 "\": must be no more than 63 characters" },
    { "x in (b-,-a,ok)", NULL, "unable to parse requirement: "
      "[values[0][x]: Invalid value: \"-a\": " VALUE_MSG ", values[1][x]: "
      "Invalid value: \"b-\": " VALUE_MSG "]" },
    { "x<-10", NULL, "unable to parse requirement: values[0][x]: Invalid "
      "value: \"-10\": " VALUE_MSG },
    { "x>a", NULL, "unable to parse requirement: values[0]: Invalid value: "
      "\"a\": " GT_MSG },
    { "x<99999999999999999999", NULL, "unable to parse requirement: "
      "values[0]: Invalid value: \"99999999999999999999\": " GT_MSG },
    { "x>-", NULL, "unable to parse requirement: [values[0]: Invalid "
      "value: \"-\": " GT_MSG ", values[0][x]: Invalid value: \"-\": "
      VALUE_MSG "]" },
};


/*
 * Upstream's lexer reads a NUL byte as the end of the string: it ends the
 * selector where a token starts, else only the token (and is skipped).
 */
static const struct {
    const char  *in;
    size_t       len;
    const char  *out;
    const char  *msg;
} label_nul_cases[] = {
    { "x=a,\0y", 6, "x=a,y", NULL },
    { "x=a, \0y", 7, NULL, "found '', expected: identifier after ','" },
    { "x=a\0", 4, "x=a", NULL },
    { "x=a\0,y", 6, "x=a,y", NULL },
    { "\0x=a", 4, "", NULL },
    { "x=a\0b", 5, NULL, "found 'b', expected: ',' or 'end of string'" },
};


static void
check_label_case(size_t i, const char *in, size_t len, const char *out,
    const char *want)
{
    int                    rc;
    const char            *msg, *str;
    gcp_arena_t           *a;
    gcp_label_selector_t  *sel;

    a = gcp_arena_create(0);

    sel = NULL;
    msg = NULL;
    rc = gcp_label_selector_parse(a, in, len, &sel, &msg);

    if (want) {
        if (rc != GCP_EBADREQUEST || msg == NULL || strcmp(msg, want) != 0) {
            print_error("case %zu \"%s\": rc %d\n got: %s\nwant: %s\n",
                        i, in, rc, msg ? msg : "(null)", want);
            fail();
        }
        assert_null(sel);

    } else {
        if (rc != GCP_OK) {
            print_error("case %zu \"%s\": %s\n", i, in,
                        msg ? msg : "(null)");
            fail();
        }

        str = gcp_label_selector_string(a, sel);
        if (strcmp(str, out) != 0) {
            print_error("case %zu \"%s\": got \"%s\" want \"%s\"\n", i, in,
                        str, out);
            fail();
        }

        assert_int_equal(gcp_label_selector_empty(sel), out[0] == '\0');
    }

    gcp_arena_destroy(a);
}


static void
test_label_parse_table(void **state)
{
    size_t  i;

    for (i = 0; i < gcp_nelems(label_cases); i++) {
        check_label_case(i, label_cases[i].in, strlen(label_cases[i].in),
                         label_cases[i].out, label_cases[i].msg);
    }

    for (i = 0; i < gcp_nelems(label_nul_cases); i++) {
        check_label_case(i, label_nul_cases[i].in, label_nul_cases[i].len,
                         label_nul_cases[i].out, label_nul_cases[i].msg);
    }
}


static gcp_label_selector_t *
parse_ok(gcp_arena_t *a, const char *s)
{
    const char            *msg;
    gcp_label_selector_t  *sel;

    msg = NULL;
    if (gcp_label_selector_parse(a, s, strlen(s), &sel, &msg) != GCP_OK) {
        print_error("\"%s\": %s\n", s, msg ? msg : "(null)");
        fail();
    }

    return sel;
}


typedef struct {
    const char  *sel;
    int          want;
} match_case_t;


static void
test_label_matches(void **state)
{
    size_t        i;
    json_t       *labels, *nolabels;
    gcp_arena_t  *a;

    static const match_case_t  cases[] = {
        { "", 1 },
        { "app=web", 1 },
        { "app==web", 1 },
        { "app=db", 0 },
        { "app!=db", 1 },
        { "app!=web", 0 },
        { "missing!=x", 1 },
        { "missing=x", 0 },
        { "app in (db,web)", 1 },
        { "app in (db)", 0 },
        { "missing in (a)", 0 },
        { "app notin (web)", 0 },
        { "app notin (db)", 1 },
        { "missing notin (a)", 1 },
        { "app", 1 },
        { "missing", 0 },
        { "!app", 0 },
        { "!missing", 1 },
        { "n>4", 1 },
        { "n>5", 0 },
        { "n<6", 1 },
        { "n<5", 0 },
        { "neg<0", 1 },
        { "app>1", 0 },
        { "missing<100", 0 },
        { "empty=", 1 },
        { "empty", 1 },
        { "empty in (,x)", 1 },
        { "app=", 0 },
        { "num", 0 },                           /* not a string: absent */
        { "!num", 1 },
        { "app in (web),tier=frontend", 1 },
        { "app=web,tier=backend", 0 },
        { "app=web,!tier", 0 },
    };

    a = gcp_arena_create(0);
    labels = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i}", "app", "web",
                       "tier", "frontend", "n", "5", "neg", "-7", "empty", "",
                       "num", 3);
    assert_non_null(labels);

    for (i = 0; i < gcp_nelems(cases); i++) {
        if (gcp_label_selector_matches(parse_ok(a, cases[i].sel), labels)
            != cases[i].want)
        {
            print_error("\"%s\" should %smatch\n", cases[i].sel,
                        cases[i].want ? "" : "not ");
            fail();
        }
    }

    /* no labels at all */
    nolabels = json_object();
    assert_int_equal(gcp_label_selector_matches(parse_ok(a, "!x"), NULL), 1);
    assert_int_equal(gcp_label_selector_matches(parse_ok(a, "x!=a"), NULL),
                     1);
    assert_int_equal(gcp_label_selector_matches(parse_ok(a, "x notin (a)"),
                                                nolabels), 1);
    assert_int_equal(gcp_label_selector_matches(parse_ok(a, "x"), NULL), 0);
    assert_int_equal(gcp_label_selector_matches(parse_ok(a, "x="), NULL), 0);
    assert_int_equal(gcp_label_selector_matches(parse_ok(a, ""), NULL), 1);
    assert_int_equal(gcp_label_selector_matches(NULL, labels), 1);

    json_decref(nolabels);
    json_decref(labels);
    gcp_arena_destroy(a);
}


/* reference 04-list-label-selector-set.http: cm-0, cm-1, cm-2 match */
static void
test_label_reference_set(void **state)
{
    int                    i;
    json_t                *cm[5];
    gcp_arena_t           *a;
    gcp_label_selector_t  *sel;

    static const int  want[5] = { 1, 1, 1, 0, 0 };

    a = gcp_arena_create(0);

    cm[0] = json_pack("{s:s, s:s}", "app", "web", "tier", "frontend");
    cm[1] = json_pack("{s:s, s:s}", "app", "web", "tier", "backend");
    cm[2] = json_pack("{s:s, s:s}", "app", "db", "tier", "backend");
    cm[3] = json_pack("{s:s, s:s}", "app", "db", "tier", "cache");
    cm[4] = json_pack("{s:s}", "app", "batch");

    sel = parse_ok(a, "app in (web,db),tier!=cache,!nosuch");

    for (i = 0; i < 5; i++) {
        assert_int_equal(gcp_label_selector_matches(sel, cm[i]), want[i]);
    }

    /* 04-list-label-selector-exists.http: "tier" excludes cm-4 */
    sel = parse_ok(a, "tier");

    for (i = 0; i < 5; i++) {
        assert_int_equal(gcp_label_selector_matches(sel, cm[i]), i < 4);
    }

    for (i = 0; i < 5; i++) {
        json_decref(cm[i]);
    }

    gcp_arena_destroy(a);
}


static void
test_label_requires(void **state)
{
    gcp_arena_t           *a;
    gcp_label_selector_t  *sel;

    a = gcp_arena_create(0);
    sel = parse_ok(a, "a=1,b in (2),c in (3,4),d!=5,e==6,f,!g");

    assert_string_equal(gcp_label_selector_requires(sel, "a"), "1");
    assert_string_equal(gcp_label_selector_requires(sel, "b"), "2");
    assert_string_equal(gcp_label_selector_requires(sel, "e"), "6");
    assert_null(gcp_label_selector_requires(sel, "c"));
    assert_null(gcp_label_selector_requires(sel, "d"));
    assert_null(gcp_label_selector_requires(sel, "f"));
    assert_null(gcp_label_selector_requires(sel, "g"));
    assert_null(gcp_label_selector_requires(sel, "zz"));
    assert_null(gcp_label_selector_requires(NULL, "a"));

    gcp_arena_destroy(a);
}


typedef struct {
    const char  *json;      /* NULL: a NULL json_t */
    const char  *out;       /* String(), or NULL */
    const char  *msg;       /* the error, or NULL */
} json_case_t;


static void
test_label_from_json(void **state)
{
    int                    rc;
    size_t                 i;
    json_t                *j;
    const char            *msg;
    gcp_arena_t           *a;
    json_error_t           jerr;
    gcp_label_selector_t  *sel;

    static const json_case_t  cases[] = {
        { "{}", "", NULL },
        { "{\"matchLabels\": null, \"matchExpressions\": null}", "", NULL },
        { "{\"matchLabels\": {\"b\": \"2\", \"a\": \"1\"}}", "a=1,b=2",
          NULL },
        { "{\"matchExpressions\": [{\"key\": \"k\", \"operator\": \"In\", "
          "\"values\": [\"y\", \"x\"]}, {\"key\": \"e\", \"operator\": "
          "\"Exists\"}, {\"key\": \"d\", \"operator\": \"DoesNotExist\"}, "
          "{\"key\": \"n\", \"operator\": \"NotIn\", \"values\": [\"z\"]}], "
          "\"matchLabels\": {\"m\": \"v\"}}",
          "!d,e,k in (x,y),m=v,n notin (z)", NULL },
        { "{\"matchExpressions\": [{\"key\": \"k\", \"operator\": \"Gt\", "
          "\"values\": [\"1\"]}]}", NULL,
          "\"Gt\" is not a valid label selector operator" },
        { "{\"matchExpressions\": [{\"key\": \"k\", \"operator\": \"In\"}]}",
          NULL, "values: Invalid value: []string(nil): for 'in', 'notin' "
          "operators, values set can't be empty" },
        { "{\"matchExpressions\": [{\"key\": \"k\", \"operator\": "
          "\"Exists\", \"values\": [\"a\", \"b\"]}]}", NULL,
          "values: Invalid value: []string{\"a\", \"b\"}: values set must be "
          "empty for exists and does not exist" },
        { "{\"matchLabels\": {\"-a\": \"ok\"}}", NULL,
          "key: Invalid value: \"-a\": name part " QNAME_MSG },
        { "{\"matchLabels\": {\"-a\": \"-b\"}}", NULL,
          "[key: Invalid value: \"-a\": name part " QNAME_MSG ", "
          "values[0][-a]: Invalid value: \"-b\": " VALUE_MSG "]" },
        { "{\"matchExpressions\": [{\"key\": \"k\", \"operator\": \"In\", "
          "\"values\": [\"ok\", \"-b\"]}]}", NULL,
          "values[1][k]: Invalid value: \"-b\": " VALUE_MSG },
        { "{\"matchLabels\": {\"a\": 1}}", NULL,
          "invalid label selector: matchLabels values must be strings" },
        { "[]", NULL, "invalid label selector: expected an object with "
          "matchLabels and matchExpressions" },
    };

    a = gcp_arena_create(0);

    for (i = 0; i < gcp_nelems(cases); i++) {
        j = json_loads(cases[i].json, 0, &jerr);
        assert_non_null(j);

        sel = NULL;
        msg = NULL;
        rc = gcp_label_selector_from_json(a, j, &sel, &msg);

        if (cases[i].msg) {
            if (rc != GCP_EBADREQUEST || strcmp(msg, cases[i].msg) != 0) {
                print_error("case %zu: rc %d\n got: %s\nwant: %s\n", i, rc,
                            msg ? msg : "(null)", cases[i].msg);
                fail();
            }

        } else {
            assert_int_equal(rc, GCP_OK);
            assert_string_equal(gcp_label_selector_string(a, sel),
                                cases[i].out);
        }

        json_decref(j);
    }

    /* nil selector: Nothing() */
    assert_int_equal(gcp_label_selector_from_json(a, NULL, &sel, &msg),
                     GCP_OK);
    assert_int_equal(gcp_label_selector_matches(sel, NULL), 0);
    assert_int_equal(gcp_label_selector_empty(sel), 0);
    assert_string_equal(gcp_label_selector_string(a, sel), "");

    j = json_null();
    assert_int_equal(gcp_label_selector_from_json(a, j, &sel, &msg), GCP_OK);
    assert_int_equal(sel->nothing, 1);

    /* {}: Everything() */
    j = json_object();
    assert_int_equal(gcp_label_selector_from_json(a, j, &sel, &msg), GCP_OK);
    assert_int_equal(gcp_label_selector_matches(sel, NULL), 1);
    assert_int_equal(gcp_label_selector_empty(sel), 1);
    json_decref(j);

    /* a ClusterRole aggregation rule */
    j = json_pack("{s:{s:s}}", "matchLabels",
                  "rbac.example.com/aggregate-to-monitoring", "true");
    assert_int_equal(gcp_label_selector_from_json(a, j, &sel, &msg), GCP_OK);
    json_decref(j);

    j = json_pack("{s:s, s:s}", "rbac.example.com/aggregate-to-monitoring",
                  "true", "other", "x");
    assert_int_equal(gcp_label_selector_matches(sel, j), 1);
    json_object_set_new(j, "rbac.example.com/aggregate-to-monitoring",
                        json_string("false"));
    assert_int_equal(gcp_label_selector_matches(sel, j), 0);
    json_decref(j);

    gcp_arena_destroy(a);
}


static const sel_case_t  field_cases[] = {
    { "", "", NULL },
    { ",", "", NULL },
    { "metadata.name=cm-2", "metadata.name=cm-2", NULL },
    { "metadata.name==cm-2", "metadata.name=cm-2", NULL },
    { "metadata.name=", "metadata.name=", NULL },
    { "metadata.namespace=ref-list,metadata.name!=kube-root-ca.crt",
      "metadata.name!=kube-root-ca.crt,metadata.namespace=ref-list", NULL },
    { "metadata.name=a\\,b", "metadata.name=a\\,b", NULL },
    { "metadata.name=a\\=b\\\\", "metadata.name=a\\=b\\\\", NULL },
    { ",metadata.name=b,,metadata.name=a,", "metadata.name=a,metadata.name=b",
      NULL },

    /* reference 04-list-field-selector-invalid.http */
    { "metadata.name", NULL,
      "invalid selector: 'metadata.name'; can't understand 'metadata.name'" },

    /* reference 04-list-field-selector-unsupported.http */
    { "data.i=1", NULL, "\"data.i\" is not a known field selector: only "
                        "\"metadata.name\", \"metadata.namespace\"" },

    /* parse errors come first, then the first unknown label in order */
    { "data.i=1,metadata.name", NULL, "invalid selector: 'data.i=1,"
      "metadata.name'; can't understand 'metadata.name'" },
    { "zz=1,aa=2", NULL, "\"aa\" is not a known field selector: only "
                         "\"metadata.name\", \"metadata.namespace\"" },
    { "=x", NULL, "\"\" is not a known field selector: only "
                  "\"metadata.name\", \"metadata.namespace\"" },
    { "metadata.name=a=b", NULL, "invalid field selector: unescaped "
                                 "character in value: 61" },
    { "metadata.name=a\\,b,c", NULL, "invalid selector: "
      "'metadata.name=a\\,b,c'; can't understand 'c'" },
    { "metadata.name=a\\x", NULL, "invalid field selector: invalid escape "
                                  "sequence: \\x" },
    { "metadata.name=a\\", NULL, "invalid field selector: invalid escape "
                                 "sequence: \\" },
    { "metadata.name=\\\xc3\xa9", NULL, "invalid field selector: invalid "
                                        "escape sequence: \\\xc3\xa9" },
    { "metadata.name=\\\xff", NULL, "invalid field selector: invalid "
                                    "escape sequence: \\\xef\xbf\xbd" },
};


static void
test_field_parse_table(void **state)
{
    int                    rc;
    size_t                 i;
    const char            *msg, *str;
    gcp_arena_t           *a;
    gcp_field_selector_t  *sel;

    for (i = 0; i < gcp_nelems(field_cases); i++) {
        a = gcp_arena_create(0);

        sel = NULL;
        msg = NULL;
        rc = gcp_field_selector_parse(a, field_cases[i].in,
                                      strlen(field_cases[i].in), NULL, &sel,
                                      &msg);

        if (field_cases[i].msg) {
            if (rc != GCP_EBADREQUEST || msg == NULL
                || strcmp(msg, field_cases[i].msg) != 0)
            {
                print_error("case %zu \"%s\": rc %d\n got: %s\nwant: %s\n",
                            i, field_cases[i].in, rc, msg ? msg : "(null)",
                            field_cases[i].msg);
                fail();
            }
            assert_null(sel);

        } else {
            assert_int_equal(rc, GCP_OK);
            str = gcp_field_selector_string(a, sel);
            if (strcmp(str, field_cases[i].out) != 0) {
                print_error("case %zu: got \"%s\" want \"%s\"\n", i, str,
                            field_cases[i].out);
                fail();
            }
            assert_int_equal(gcp_field_selector_empty(sel),
                             field_cases[i].out[0] == '\0');
        }

        gcp_arena_destroy(a);
    }
}


static void
test_field_custom_labels(void **state)
{
    const char            *msg;
    gcp_arena_t           *a;
    gcp_field_selector_t  *sel;

    static const char *const  event_fields[] = {
        "involvedObject.kind", "involvedObject.namespace",
        "involvedObject.name", "involvedObject.uid",
        "involvedObject.apiVersion", "involvedObject.resourceVersion",
        "involvedObject.fieldPath", "reason", "reportingComponent", "source",
        "type", "metadata.namespace", "metadata.name", NULL
    };

    static const char *const  ns_fields[] = {
        "metadata.name", "status.phase", NULL
    };

    static const char  kubectl_describe[] =
        "involvedObject.name=target,involvedObject.namespace=ref-misc,"
        "involvedObject.kind=ConfigMap,involvedObject.uid=1234";

    a = gcp_arena_create(0);

    /* reference 12-events-field-selector-unsupported.http */
    assert_int_equal(gcp_field_selector_parse(a, "message=x", 9,
                                              event_fields, &sel, &msg),
                     GCP_EBADREQUEST);
    assert_string_equal(msg, "field label not supported: message");

    /* 12-events-list-involved-object.http */
    assert_int_equal(gcp_field_selector_parse(a, kubectl_describe,
                                              sizeof(kubectl_describe) - 1,
                                              event_fields, &sel, &msg),
                     GCP_OK);
    assert_int_equal(sel->n, 4);
    assert_string_equal(gcp_field_selector_requires(sel,
                                                    "involvedObject.kind"),
                        "ConfigMap");
    assert_string_equal(gcp_field_selector_string(a, sel),
                        "involvedObject.kind=ConfigMap,"
                        "involvedObject.name=target,"
                        "involvedObject.namespace=ref-misc,"
                        "involvedObject.uid=1234");

    /* namespaces do not accept metadata.namespace */
    assert_int_equal(gcp_field_selector_parse(a, "metadata.namespace=x", 20,
                                              ns_fields, &sel, &msg),
                     GCP_EBADREQUEST);
    assert_string_equal(msg, "field label not supported: metadata.namespace");

    assert_int_equal(gcp_field_selector_parse(a, "status.phase=Active", 19,
                                              ns_fields, &sel, &msg),
                     GCP_OK);

    /* an embedded NUL does not make a known label */
    assert_int_equal(gcp_field_selector_parse(a, "metadata.name\0x=a", 17,
                                              ns_fields, &sel, &msg),
                     GCP_EBADREQUEST);
    assert_string_equal(msg, "field label not supported: metadata.name");

    gcp_arena_destroy(a);
}


typedef struct {
    const char  *name;
    const char  *ns;
} fake_obj_t;


static const char *
fake_get(void *ctx, const char *field)
{
    fake_obj_t  *o = ctx;

    if (strcmp(field, "metadata.name") == 0) {
        return o->name;
    }

    if (strcmp(field, "metadata.namespace") == 0) {
        return o->ns;
    }

    return NULL;
}


static gcp_field_selector_t *
field_ok(gcp_arena_t *a, const char *s, size_t len)
{
    const char            *msg;
    gcp_field_selector_t  *sel;

    msg = NULL;
    if (gcp_field_selector_parse(a, s, len, NULL, &sel, &msg) != GCP_OK) {
        print_error("\"%s\": %s\n", s, msg ? msg : "(null)");
        fail();
    }

    return sel;
}

#define field_ok_s(a, s)  field_ok(a, s, strlen(s))


static void
test_field_matches(void **state)
{
    gcp_arena_t           *a;
    fake_obj_t             cm2 = { "cm-2", "ref-list" };
    fake_obj_t             root = { "kube-root-ca.crt", "ref-list" };
    fake_obj_t             other = { "cm-2", "other" };
    fake_obj_t             cluster = { "x,y", NULL };
    gcp_field_selector_t  *sel;

    a = gcp_arena_create(0);

    sel = field_ok_s(a, "metadata.name=cm-2");
    assert_int_equal(gcp_field_selector_matches(sel, fake_get, &cm2), 1);
    assert_int_equal(gcp_field_selector_matches(sel, fake_get, &root), 0);
    assert_string_equal(gcp_field_selector_requires(sel, "metadata.name"),
                        "cm-2");
    assert_null(gcp_field_selector_requires(sel, "metadata.namespace"));

    sel = field_ok_s(a, "metadata.namespace=ref-list,"
                        "metadata.name!=kube-root-ca.crt");
    assert_int_equal(gcp_field_selector_matches(sel, fake_get, &cm2), 1);
    assert_int_equal(gcp_field_selector_matches(sel, fake_get, &root), 0);
    assert_int_equal(gcp_field_selector_matches(sel, fake_get, &other), 0);
    assert_null(gcp_field_selector_requires(sel, "metadata.name"));
    assert_string_equal(gcp_field_selector_requires(sel,
                                                    "metadata.namespace"),
                        "ref-list");

    /* a missing field reads as "" */
    sel = field_ok_s(a, "metadata.namespace=");
    assert_int_equal(gcp_field_selector_matches(sel, fake_get, &cluster), 1);
    sel = field_ok_s(a, "metadata.namespace!=");
    assert_int_equal(gcp_field_selector_matches(sel, fake_get, &cluster), 0);
    sel = field_ok_s(a, "metadata.namespace!=x");
    assert_int_equal(gcp_field_selector_matches(sel, fake_get, &cluster), 1);

    /* escaped values */
    sel = field_ok_s(a, "metadata.name=x\\,y");
    assert_string_equal(sel->terms[0].value, "x,y");
    assert_int_equal(gcp_field_selector_matches(sel, fake_get, &cluster), 1);

    /* a NUL in a value (%00 in the query) is data */
    sel = field_ok(a, "metadata.name=cm-2\0x", 20);
    assert_int_equal(sel->terms[0].value_len, 6);
    assert_int_equal(gcp_field_selector_matches(sel, fake_get, &cm2), 0);

    /* invalid UTF-8: kept when nothing is escaped, else U+FFFD (Go) */
    sel = field_ok_s(a, "metadata.name=\xff");
    assert_string_equal(sel->terms[0].value, "\xff");
    sel = field_ok_s(a, "metadata.name=\xff\\,");
    assert_string_equal(sel->terms[0].value, "\xef\xbf\xbd,");
    sel = field_ok_s(a, "metadata.name=\xc3\xa9\\,\xe2\x82\xac");
    assert_string_equal(sel->terms[0].value, "\xc3\xa9,\xe2\x82\xac");

    assert_int_equal(gcp_field_selector_matches(NULL, fake_get, &cm2), 1);
    sel = field_ok_s(a, "");
    assert_int_equal(gcp_field_selector_matches(sel, fake_get, &cm2), 1);

    gcp_arena_destroy(a);
}


/*
 * Fuzz: random strings built from selector-ish pieces must never crash;
 * whatever parses prints back to a string that parses to the same string.
 */
static void
test_fuzz(void **state)
{
    int                    rc;
    size_t                 i, k, n, len;
    char                   buf[256];
    const char            *msg, *str, *str2, *p;
    json_t                *labels;
    gcp_arena_t           *a;
    fake_obj_t             obj = { "a", "b" };
    gcp_label_selector_t  *ls, *ls2;
    gcp_field_selector_t  *fs, *fs2;

    static const char  *pieces[] = {
        "a", "b", "x", "=", "==", "!=", "!", "(", ")", ",", " ", "\t", "in",
        "notin", ">", "<", "1", "-1", "/", ".", "-", "_", "\\", "a.b/c",
        "metadata.name", "metadata.namespace", "\xff", "\xc3\xa9", "",
    };

    srandom(4080);

    labels = json_pack("{s:s, s:s, s:s}", "a", "1", "b", "", "x", "in");

    for (i = 0; i < 30000; i++) {
        a = gcp_arena_create(1024);

        n = (size_t) (random() % 12);
        len = 0;

        for (k = 0; k < n; k++) {
            if (random() % 16 == 0) {
                buf[len++] = (char) (random() % 256);
                continue;
            }

            p = pieces[random() % gcp_nelems(pieces)];
            memcpy(buf + len, p, strlen(p));
            len += strlen(p);
        }

        rc = gcp_label_selector_parse(a, buf, len, &ls, &msg);
        assert_true(rc == GCP_OK || rc == GCP_EBADREQUEST);

        if (rc == GCP_OK) {
            (void) gcp_label_selector_matches(ls, labels);
            str = gcp_label_selector_string(a, ls);
            assert_non_null(str);

            rc = gcp_label_selector_parse(a, str, strlen(str), &ls2, &msg);
            if (rc != GCP_OK) {
                print_error("\"%s\" -> \"%s\": %s\n", buf, str, msg);
                fail();
            }

            str2 = gcp_label_selector_string(a, ls2);
            assert_string_equal(str, str2);
            assert_int_equal(gcp_label_selector_matches(ls, labels),
                             gcp_label_selector_matches(ls2, labels));

        } else {
            assert_non_null(msg);
        }

        rc = gcp_field_selector_parse(a, buf, len, NULL, &fs, &msg);
        assert_true(rc == GCP_OK || rc == GCP_EBADREQUEST);

        if (rc == GCP_OK) {
            (void) gcp_field_selector_matches(fs, fake_get, &obj);
            str = gcp_field_selector_string(a, fs);
            assert_non_null(str);

            rc = gcp_field_selector_parse(a, str, strlen(str), NULL, &fs2,
                                          &msg);
            assert_int_equal(rc, GCP_OK);
            assert_string_equal(gcp_field_selector_string(a, fs2), str);

        } else {
            assert_non_null(msg);
        }

        gcp_arena_destroy(a);
    }

    json_decref(labels);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_label_parse_table),
        cmocka_unit_test(test_label_matches),
        cmocka_unit_test(test_label_reference_set),
        cmocka_unit_test(test_label_requires),
        cmocka_unit_test(test_label_from_json),
        cmocka_unit_test(test_field_parse_table),
        cmocka_unit_test(test_field_custom_labels),
        cmocka_unit_test(test_field_matches),
        cmocka_unit_test(test_fuzz),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
