
/*
 * Deterministic fuzzing of the structural schema library
 * (core/apiextensions): random schemas (valid, invalid and odd ones) are
 * checked and compiled, and random documents, and mutations of documents
 * shaped after the schema, are pruned, defaulted and validated (with and
 * without an old object), checking the contract on every run under ASan
 * and UBSan: results or errors with a message, inputs untouched, pruning
 * idempotent, ratcheting never adding errors.  A fixed seed makes every
 * run identical; a time budget bounds it to a few seconds.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support_crd.h"


#define FUZZ_SECONDS     3.0
#define FUZZ_MAX_RUNS    100000
#define FUZZ_DOCS        8


static uint64_t  rng = 0x9e3779b97f4a7c15ULL;

/* what the runs exercised, printed at the end */
static size_t    n_docs, n_errors, n_pruned, n_refused;


static uint64_t
rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;

    return rng * 0x2545f4914f6cdd1dULL;
}


#define pick(n)  ((size_t) (rnd() % (uint64_t) (n)))
#define pick_of(a)  (a[pick(sizeof(a) / sizeof(a[0]))])


static const char  *names[] = {
    "a", "b", "spec", "status", "metadata", "apiVersion", "kind", "name",
    "x", "items", "key", "", "é", "a.b", "[0]"
};

static const char  *strings[] = {
    "", "a", "abc", "ABC", "small", "1", "2020-01-01", "2020-01-01T10:00:00Z",
    "1h", "10.0.0.0/8", "::1", "a@b.c", "http://x/y", "YWI=", "not valid!",
    "550e8400-e29b-41d4-a716-446655440000", "\xc3\xa9\xc3\xa9", "aaaaaaaaaaaaa"
    "aaaaaaaaaaaaaaaaaaaaaaab", "v1", "Pod", "a/b/c", "x-y"
};

static const char  *patterns[] = {
    "^[a-z]+$", "^(a+)+$", "(a|ab)(c|bcd)", "\\p{Greek}", "(?i)k", "(",
    "a**", "\\1", "^$", "(?m)^a$", "[[:alpha:]]", "\\x{10FFFF}", "a{1000}",
    "(?P<n>x)", ".", "\\Q*\\E"
};

static const char  *formats[] = {
    "date", "date-time", "uuid", "byte", "int32", "ipv4", "ipv6", "cidr",
    "mac", "email", "uri", "hostname", "duration", "isbn", "password",
    "unknown", "bsonobjectid", "creditcard", "hexcolor", "rgbcolor", "ssn"
};

static const char  *types[] = {
    "object", "array", "string", "integer", "number", "boolean", "null",
    "foo", ""
};


static json_t *
gen_value(int depth)
{
    size_t   i, n;
    json_t  *v;

    switch (pick(depth > 0 ? 8 : 6)) {
    case 0:
        return json_null();
    case 1:
        return json_boolean(pick(2));
    case 2:
        return json_integer((json_int_t) pick(21) - 5);
    case 3:
        return json_real((double) pick(2000) / 64.0 - 8);
    case 4:
    case 5:
        return json_string(pick_of(strings));
    case 6:
        v = json_array();
        n = pick(4);
        for (i = 0; i < n; i++) {
            json_array_append_new(v, gen_value(depth - 1));
        }
        return v;
    default:
        v = json_object();
        n = pick(4);
        for (i = 0; i < n; i++) {
            json_object_set_new(v, pick_of(names), gen_value(depth - 1));
        }
        return v;
    }
}


static json_t *gen_schema(int depth, int structural);


static json_t *
gen_props(int depth, int structural)
{
    size_t   i, n;
    json_t  *p;

    p = json_object();
    n = 1 + pick(4);

    for (i = 0; i < n; i++) {
        json_object_set_new(p, pick_of(names),
                            gen_schema(depth - 1, structural));
    }

    return p;
}


static json_t *
gen_schema(int depth, int structural)
{
    size_t       i, n;
    json_t      *s, *a;
    const char  *type;

    s = json_object();

    type = structural ? types[pick(6)] : pick_of(types);
    if (depth <= 0 && (strcmp(type, "object") == 0
                       || strcmp(type, "array") == 0))
    {
        type = "string";
    }

    if (*type || structural) {
        json_object_set_new(s, "type", json_string(*type ? type : "string"));
    }

    if (strcmp(type, "object") == 0) {
        switch (pick(4)) {
        case 0:
            json_object_set_new(s, "additionalProperties",
                                pick(3) ? gen_schema(depth - 1, structural)
                                        : json_boolean(pick(2)));
            break;
        case 1:
            json_object_set_new(s, "x-kubernetes-preserve-unknown-fields",
                                json_true());
            /* fall through */
        default:
            json_object_set_new(s, "properties",
                                gen_props(depth, structural));
        }

        if (pick(4) == 0) {
            a = json_array();
            json_array_append_new(a, json_string(pick_of(names)));
            json_object_set_new(s, "required", a);
        }

        if (pick(6) == 0) {
            json_object_set_new(s, "x-kubernetes-embedded-resource",
                                json_true());
        }

        if (pick(5) == 0) {
            json_object_set_new(s, pick(2) ? "minProperties"
                                           : "maxProperties",
                                json_integer(pick(3)));
        }

    } else if (strcmp(type, "array") == 0) {
        json_object_set_new(s, "items", gen_schema(depth - 1, structural));

        switch (pick(5)) {
        case 0:
            json_object_set_new(s, "x-kubernetes-list-type",
                                json_string("set"));
            break;
        case 1:
            json_object_set_new(s, "x-kubernetes-list-type",
                                json_string("map"));
            a = json_array();
            json_array_append_new(a, json_string(pick_of(names)));
            json_object_set_new(s, "x-kubernetes-list-map-keys", a);
            break;
        case 2:
            json_object_set_new(s, pick(2) ? "minItems" : "maxItems",
                                json_integer(pick(4)));
            break;
        case 3:
            json_object_set_new(s, "uniqueItems", json_true());
            break;
        }

    } else if (strcmp(type, "string") == 0) {
        switch (pick(5)) {
        case 0:
            json_object_set_new(s, "pattern", json_string(pick_of(patterns)));
            break;
        case 1:
            json_object_set_new(s, "format", json_string(pick_of(formats)));
            break;
        case 2:
            json_object_set_new(s, pick(2) ? "minLength" : "maxLength",
                                json_integer(pick(5)));
            break;
        case 3:
            json_object_set_new(s, "x-kubernetes-int-or-string",
                                json_true());
            json_object_del(s, "type");
            break;
        }

    } else if (strcmp(type, "integer") == 0 || strcmp(type, "number") == 0) {
        if (pick(2)) {
            json_object_set_new(s, pick(2) ? "minimum" : "maximum",
                                pick(2) ? json_integer(pick(10))
                                        : json_real(pick(40) / 4.0));
            if (pick(2)) {
                json_object_set_new(s, "exclusiveMaximum", json_true());
            }
        }

        if (pick(4) == 0) {
            json_object_set_new(s, "multipleOf",
                                pick(2) ? json_integer(pick(4))
                                        : json_real(0.25 * pick(3)));
        }
    }

    if (pick(6) == 0) {
        a = json_array();
        n = 1 + pick(3);
        for (i = 0; i < n; i++) {
            json_array_append_new(a, gen_value(1));
        }
        json_object_set_new(s, "enum", a);
    }

    if (pick(6) == 0) {
        json_object_set_new(s, "default", gen_value(2));
    }

    if (pick(8) == 0) {
        json_object_set_new(s, "nullable", json_true());
    }

    if (depth > 0 && pick(8) == 0) {
        a = json_array();
        json_array_append_new(a, gen_schema(depth - 1, 0));
        json_array_append_new(a, gen_schema(depth - 1, 0));
        json_object_set_new(s, pick(3) == 0 ? "anyOf"
                               : pick(2) ? "oneOf" : "allOf", a);
    }

    if (depth > 0 && pick(12) == 0) {
        json_object_set_new(s, "not", gen_schema(depth - 1, 0));
    }

    if (pick(30) == 0) {
        a = json_pack("[{s:s}]", "rule", "self.a > 0");
        json_object_set_new(s, "x-kubernetes-validations", a);
    }

    return s;
}


/* a document shaped after the schema, with some mistakes */
static json_t *
gen_doc(const json_t *s, int depth)
{
    void        *it;
    size_t       i, n;
    json_t      *v, *sub;
    const char  *k, *type;

    if (s == NULL || !json_is_object(s) || depth <= 0 || pick(12) == 0) {
        return gen_value(depth > 0 ? 2 : 0);
    }

    type = json_string_value(json_object_get(s, "type"));
    if (type == NULL) {
        type = "";
    }

    if (strcmp(type, "object") == 0) {
        v = json_object();

        sub = json_object_get(s, "properties");
        json_object_foreach(sub, k, it) {
            if (pick(4)) {
                json_object_set_new(v, k, gen_doc(json_object_get(sub, k),
                                                  depth - 1));
            }
        }

        (void) it;

        sub = json_object_get(s, "additionalProperties");
        n = pick(3);
        for (i = 0; i < n; i++) {
            json_object_set_new(v, pick_of(names),
                                gen_doc(json_is_object(sub) ? sub : NULL,
                                        depth - 1));
        }

        if (json_is_true(json_object_get(s,
                                         "x-kubernetes-embedded-resource")))
        {
            json_object_set_new(v, "apiVersion",
                                json_string(pick_of(strings)));
            json_object_set_new(v, "kind", json_string(pick_of(strings)));
            if (pick(2)) {
                json_object_set_new(v, "metadata",
                    json_pack("{s:s,s:{s:s},s:o}", "name", pick_of(strings),
                              "labels", pick_of(names), pick_of(strings),
                              pick_of(names), gen_value(1)));
            }
        }

        return v;
    }

    if (strcmp(type, "array") == 0) {
        v = json_array();
        n = pick(4);
        for (i = 0; i < n; i++) {
            json_array_append_new(v, gen_doc(json_object_get(s, "items"),
                                             depth - 1));
        }
        if (n && pick(3) == 0) {
            json_array_append(v, json_array_get(v, 0));
        }
        return v;
    }

    return gen_value(0);
}


static double
now(void)
{
    struct timespec  ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);

    return ts.tv_sec + ts.tv_nsec / 1e9;
}


static size_t
nerrs(gcp_arena_t *a, const gcp_crd_schema_t *cs, const json_t *obj,
    const json_t *old)
{
    gcp_ferrs_t  errs;

    gcp_ferrs_init(&errs, a);
    assert_int_equal(gcp_crd_schema_validate(cs, obj, old, &errs), GCP_OK);
    assert_false(errs.nomem);

    return errs.n;
}


static void
fuzz_docs(gcp_arena_t *a, const json_t *schema, const gcp_crd_schema_t *cs)
{
    int           rc;
    size_t        d, n, n2, e1, e2;
    json_t       *doc, *copy, *prev;
    unsigned      flags;
    const char   *err, **paths, *before;

    prev = NULL;

    for (d = 0; d < FUZZ_DOCS; d++) {
        doc = pick(4) ? gen_doc(schema, 6) : gen_value(3);
        if (!json_is_object(doc)) {
            json_decref(doc);
            doc = json_object();
        }

        flags = GCP_CRD_PRUNE_PATHS
                | (pick(2) ? GCP_CRD_PRUNE_DROP_INVALID : 0);

        err = NULL;
        paths = NULL;
        n = 0;
        rc = gcp_crd_schema_prune(cs, doc, flags, a, &paths, &n, &err);

        n_docs++;
        n_pruned += n;

        if (rc == GCP_EBADREQUEST) {
            n_refused++;
            assert_non_null(err);
            assert_true((flags & GCP_CRD_PRUNE_DROP_INVALID) == 0);
            json_decref(doc);
            continue;
        }

        assert_int_equal(rc, GCP_OK);
        assert_true(n == 0 || paths != NULL);

        /* pruning twice changes nothing more */
        copy = json_deep_copy(doc);
        before = sp_dump(a, copy);
        rc = gcp_crd_schema_prune(cs, copy, flags, a, &paths, &n2, &err);
        assert_int_equal(rc, GCP_OK);
        if (n2 != 0 || strcmp(before, sp_dump(a, copy)) != 0) {
            fail_msg("prune not idempotent: %s -> %s (%zu paths, %s)\n"
                     "schema %s", before, sp_dump(a, copy), n2,
                     n2 ? paths[0] : "", sp_dump(a, schema));
        }
        json_decref(copy);

        assert_int_equal(gcp_crd_schema_default(cs, doc), GCP_OK);

        /* validation leaves the object alone */
        before = sp_dump(a, doc);
        e1 = nerrs(a, cs, doc, NULL);
        n_errors += e1;
        assert_string_equal(before, sp_dump(a, doc));

        /* an unchanged object cannot get more errors with ratcheting */
        copy = json_deep_copy(doc);
        e2 = nerrs(a, cs, doc, copy);
        assert_true(e2 <= e1);
        json_decref(copy);

        if (prev) {
            (void) nerrs(a, cs, doc, prev);
            json_decref(prev);
        }

        prev = doc;
    }

    json_decref(prev);
}


static void
test_fuzz(void **state)
{
    char                   err[256];
    size_t                 runs, compiled;
    json_t                *schema;
    double                 start;
    const char            *before;
    gcp_arena_t           *a;
    gcp_ferrs_t            errs;
    gcp_crd_schema_t      *cs;
    gcp_crd_check_opts_t   opts;

    start = now();
    compiled = 0;

    for (runs = 0; runs < FUZZ_MAX_RUNS; runs++) {
        if ((runs & 7) == 0 && now() - start > FUZZ_SECONDS) {
            break;
        }

        a = gcp_arena_create(0);
        assert_non_null(a);

        schema = gen_schema(4, pick(3) != 0);
        json_object_set_new(schema, "type", json_string("object"));
        before = sp_dump(a, schema);

        gcp_crd_check_opts_init(&opts);
        opts.status_enabled = pick(2);
        if (pick(4) == 0) {
            gcp_crd_check_opts_ratchet(&opts, schema, sc_set());
        }

        gcp_ferrs_init(&errs, a);
        assert_int_equal(gcp_crd_schema_check(&errs, schema,
                                              "spec.validation", &opts,
                                              sc_set()),
                         GCP_OK);
        assert_false(errs.nomem);

        cs = gcp_crd_schema_compile(schema, sc_set(), err, sizeof(err));
        assert_string_equal(before, sp_dump(a, schema));

        if (cs == NULL) {
            assert_true(err[0] != '\0');

        } else {
            compiled++;
            fuzz_docs(a, schema, cs);
            gcp_crd_schema_free(cs);
        }

        json_decref(schema);
        gcp_arena_destroy(a);
    }

    print_message("%zu schemas (%zu compiled), %zu documents (%zu refused, "
                  "%zu pruned fields, %zu errors) in %.1fs\n", runs,
                  compiled, n_docs, n_refused, n_pruned, n_errors,
                  now() - start);

    assert_true(compiled > 0);
}


/* odd schemas: every keyword with every kind of value */
static void
test_odd_schemas(void **state)
{
    char               err[256];
    size_t             i, j;
    json_t            *schema, *v;
    gcp_arena_t       *a;
    gcp_ferrs_t        errs;
    gcp_crd_schema_t  *cs;

    static const char  *keys[] = {
        "type", "properties", "items", "additionalProperties", "required",
        "enum", "pattern", "format", "minimum", "maximum", "multipleOf",
        "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
        "minItems", "maxItems", "uniqueItems", "minProperties",
        "maxProperties", "nullable", "default", "allOf", "anyOf", "oneOf",
        "not", "x-kubernetes-int-or-string",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-embedded-resource", "x-kubernetes-list-type",
        "x-kubernetes-list-map-keys", "x-kubernetes-map-type",
        "x-kubernetes-validations", "$ref", "description", "example"
    };

    static const char  *values[] = {
        "null", "true", "false", "0", "-1", "1e300", "1.5", "\"\"",
        "\"object\"", "[]", "[null]", "[\"a\",\"a\"]", "{}",
        "{\"a\":{\"type\":\"foo\"}}", "[{}]", "9223372036854775807"
    };

    a = gcp_arena_create(0);
    assert_non_null(a);

    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        for (j = 0; j < sizeof(values) / sizeof(values[0]); j++) {
            v = json_loads(values[j], JSON_DECODE_ANY, NULL);
            assert_non_null(v);

            schema = json_pack("{s:s,s:{s:{s:o}}}", "type", "object",
                               "properties", "p", keys[i], v);

            gcp_ferrs_init(&errs, a);
            {
                gcp_crd_check_opts_t  opts;

                gcp_crd_check_opts_init(&opts);
                assert_int_equal(gcp_crd_schema_check(&errs, schema,
                                                      "spec.validation",
                                                      &opts, sc_set()),
                                 GCP_OK);
            }

            cs = gcp_crd_schema_compile(schema, sc_set(), err, sizeof(err));
            if (cs) {
                fuzz_docs(a, schema, cs);
                gcp_crd_schema_free(cs);
            }

            json_decref(schema);
        }
    }

    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_odd_schemas),
        cmocka_unit_test(test_fuzz),
    };

    return cmocka_run_group_tests(tests, NULL, sc_teardown);
}
