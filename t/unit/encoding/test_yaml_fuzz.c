
/*
 * Deterministic fuzzing of the YAML parser (core/encoding/gcp_yaml_parse.c),
 * the manifest reader (gcp_manifest.c) and, through the parser, of the
 * emitter (gcp_yaml.c): mutated and generated
 * documents, checking the contract on every run (a value or an error with
 * kube-apiserver's prefix, strict duplicates only with a value) under ASan
 * and UBSan, and that every value read survives a round trip through the
 * emitter: YAML written by gcp_yaml_dump() reads back as the same JSON.  A
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

#include "gcp_json.h"
#include "gcp_manifest.h"
#include "gcp_yaml.h"
#include "gcp_yaml_parse.h"
#include "support_fuzz.h"


#define FUZZ_SECONDS     3.0
#define FUZZ_MAX_RUNS    200000
#define FUZZ_MAX_TEXT    4096


#define pick(n)  fuzz_pick(n)


static const char  *seeds[] = {
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels: "
    "{app: x, tier: y}\n  annotations:\n    note: \"yes\"\ndata:\n  k: v\n"
    "  lit: |\n    line1\n    line2\n  fold: >-\n    a\n    b\n",

    "a:\n  - b: 1\n    c: [1, 2, {d: e}]\n  - &x f\n  - *x\n"
    "g: 'single ''quoted'''\nh: \"dq \\n \\t \\u00e9 \\x41\"\n",

    "base: &b {k1: v1, k2: v2}\nuse:\n  <<: *b\n  k1: v3\n"
    "both:\n  <<: [*b, {k3: 3}]\nlist: [*b, *b]\n",

    "# comment\nk: v # trailing\nempty:\nnull: ~\nnums: [0x1F, 0o17, 1_000, "
    "1e3, .5, -.inf, 2001-01-01, 18446744073709551615, 1.5e300]\n"
    "? [complex, key]\n: value\n1: int key\n2.5: float key\ntrue: bool\n",

    "- !!str 1\n- !!int '2'\n- !!float 3\n- !!binary gIGC\n- ! x\n"
    "- !!timestamp 2001-01-01\n- !local y\n---\nsecond: doc\n",

    "%YAML 1.1\n%TAG !e! tag:example.com,2000:\n--- !e!foo\nx: &a [1, [2, "
    "[3, *a]]]\n...\n",
};


static const char  *tokens[] = {
    ":", ": ", " ", "\n", "- ", "-", "[", "]", "{", "}", ",", "? ", "&a ",
    "*a", "&b ", "*b", "!!str ", "!!int ", "!!binary ", "!!float ", "|",
    "|-", ">", "'", "\"", "#", "\t", "  ", "\\", "%", "@", "`", "<<: ",
    "...", "---", "\r\n", "\xc3\xa9", "\xff", "\xef\xbb\xbf", "~", "null",
    "yes", "0x", "1e999", ".nan", "18446744073709551616", "\"\\u00",
    "\\x", "\0",
};


static const char  *gen_keys[] = {
    "a", "b", "1", "~", "true", "1.5", "<<", "'a'", "[x]", "0x1", "*a"
};

static const char  *gen_scalars[] = {
    "x", "1", "-2.5", "yes", "~", "''", "\"q\"", "0o17", ".inf", "2001-01-01",
    "*a", "&a v", "!!str 3", "!!int x", "[]", "{}"
};

/* random YAML values, flow style */
static const fuzz_grammar_t  yaml_grammar = {
    gen_keys, gcp_nelems(gen_keys), gen_scalars, gcp_nelems(gen_scalars),
    ": ", ", ", "&a "
};


static const char  *prefix = "error converting YAML to JSON: ";


/* Reads p as a manifest file: objects or messages, never both. */
static void
run_manifest(gcp_arena_t *a, const char *p, size_t len)
{
    size_t               i, n;
    gcp_manifest_obj_t  *objs;

    assert_int_equal(gcp_manifest_read(a, p, len, &objs, &n), GCP_OK);

    for (i = 0; i < n; i++) {
        assert_true((objs[i].obj == NULL) != (objs[i].msg == NULL));
        assert_true(objs[i].obj == NULL || json_is_object(objs[i].obj));
        assert_true(objs[i].line >= 1);
        assert_true(i == 0 || objs[i].doc >= objs[i - 1].doc);
    }
}


/* Parses one document and checks the contract; returns the code. */
static int
run(gcp_arena_t *a, const char *p, size_t len, unsigned flags)
{
    int               rc;
    json_t           *v, *again;
    gcp_str_t         y, j1, j2;
    gcp_yaml_info_t   info;

    v = (json_t *) 1;

    rc = gcp_yaml_parse(a, p, len, flags, &v, &info);

    if (rc != GCP_OK) {
        assert_int_equal(rc, GCP_EBADREQUEST);
        assert_null(v);
        assert_non_null(info.msg);
        assert_true(info.json
                    || strncmp(info.msg, prefix, strlen(prefix)) == 0);
        assert_int_equal(info.ndups, 0);
        return rc;
    }

    assert_non_null(v);
    assert_null(info.msg);
    assert_true(info.ndups <= GCP_YAML_MAX_DUPLICATES);
    assert_true((info.ndups != 0) == (info.strict_msg != NULL));
    assert_true(info.ndups == 0 || (flags & GCP_YAML_STRICT));

    /*
     * The emitter's YAML reads back as the same JSON, except where
     * JSONToYAML itself changes the value: a key "<<" is written plain and
     * reads as a merge, a U+0085 (NEL) folds as a line break (Go's JSON
     * leaves it unescaped for go-yaml to read).
     */

    j1 = gcp_json_dump(a, v, 0);

    if (strstr(j1.data, "\"\\u003c\\u003c\":") != NULL
        || strstr(j1.data, "\xc2\x85") != NULL)
    {
        return GCP_OK;
    }

    y = gcp_yaml_dump(a, v);
    assert_non_null(y.data);

    rc = gcp_yaml_parse(a, y.data, y.len, 0, &again, &info);
    if (rc != GCP_OK) {
        fail_msg("%.*s\n=> %s\n=> %s", (int) len, p, y.data, info.msg);
    }

    j2 = gcp_json_dump(a, again, 0);

    if (strcmp(j1.data, j2.data) != 0) {
        fail_msg("%.*s\n=> %s\n=> %s\n!= %s", (int) len, p, y.data, j1.data,
                 j2.data);
    }

    return GCP_OK;
}


static void
test_fuzz(void **state)
{
    int           ok, runs;
    double        start;
    gcp_buf_t     b;
    gcp_arena_t  *a;

    fuzz_seed(0x452821e638d01377ULL);

    ok = 0;
    start = fuzz_now();

    for (runs = 0; fuzz_more(runs, FUZZ_MAX_RUNS, start, FUZZ_SECONDS);
         runs++)
    {
        a = gcp_arena_create(0);
        gcp_buf_init(&b, a);

        if (pick(4) == 0) {
            gcp_buf_addstr(&b, "x: ");
            fuzz_gen_value(&b, &yaml_grammar, 4);
            gcp_buf_addc(&b, '\n');

        } else {
            fuzz_mutate(&b, seeds[pick(gcp_nelems(seeds))], tokens,
                        gcp_nelems(tokens), FUZZ_MAX_TEXT);
        }

        assert_false(gcp_buf_failed(&b));

        ok += (run(a, b.len ? b.data : "", b.len,
                   pick(2) ? GCP_YAML_STRICT : 0) == GCP_OK);

        run_manifest(a, b.len ? b.data : "", b.len);

        gcp_arena_destroy(a);
    }

    /* the generators reach the decoder, not only the scanner */
    assert_true(runs > 1000);
    assert_true(ok > runs / 10);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_fuzz),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
