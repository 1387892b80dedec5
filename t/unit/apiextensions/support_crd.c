
/*
 * Helpers for the apiextensions unit tests (see support_crd.h).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_ferr.h"
#include "gcp_schema.h"
#include "support_crd.h"


static gcp_schema_set_t  *sc_schemas;


const gcp_schema_set_t *
sc_set(void)
{
    const char  *err;

    if (sc_schemas == NULL) {
        sc_schemas = gcp_schema_set_create();
        assert_non_null(sc_schemas);

        err = NULL;
        if (gcp_schema_set_load_embedded(sc_schemas, &err) != GCP_OK) {
            fail_msg("embedded schemas: %s", err ? err : "?");
        }
    }

    return sc_schemas;
}


void
sc_set_free(void)
{
    gcp_schema_set_free(sc_schemas);
    sc_schemas = NULL;
}


int
sc_teardown(void **state)
{
    sc_set_free();
    return 0;
}


const char *
sc_causes(gcp_arena_t *a, const gcp_ferrs_t *errs)
{
    gcp_buf_t          b;
    const gcp_ferr_t  *e;

    assert_false(errs->nomem);

    gcp_buf_init(&b, a);

    for (e = errs->first; e; e = e->next) {
        if (e != errs->first) {
            gcp_buf_addc(&b, '\n');
        }

        gcp_buf_printf(&b, "%s: %s", e->field,
                       gcp_ferr_cause_message(a, e));
    }

    return gcp_buf_cstr(&b);
}


gcp_crd_schema_t *
sc_compile(gcp_arena_t *a, const char *s)
{
    char               err[256];
    json_t            *schema;
    gcp_crd_schema_t  *cs;

    schema = sp_load(a, s);
    cs = gcp_crd_schema_compile(schema, sc_set(), err, sizeof(err));
    json_decref(schema);

    if (cs == NULL) {
        fail_msg("schema %s does not compile: %s", s, err);
    }

    return cs;
}


/* prune and default obj; returns NULL or the "400 ..." outcome */
static const char *
sc_decode(gcp_arena_t *a, const gcp_crd_schema_t *cs, json_t *obj,
    int strict)
{
    int          rc;
    size_t       i, n;
    gcp_buf_t    b;
    const char  *err, **paths;

    paths = NULL;
    n = 0;
    err = NULL;

    rc = gcp_crd_schema_prune(cs, obj, GCP_CRD_PRUNE_PATHS, a, &paths, &n,
                              &err);
    if (rc == GCP_EBADREQUEST) {
        assert_non_null(err);
        return gcp_sprintf(a, "400 %s", err);
    }

    assert_int_equal(rc, GCP_OK);

    if (strict && n) {
        gcp_buf_init(&b, a);
        gcp_buf_addstr(&b, "400 ");

        for (i = 0; i < n; i++) {
            gcp_buf_printf(&b, "%sunknown field \"%s\"", i ? ", " : "",
                           paths[i]);
        }

        return gcp_buf_cstr(&b);
    }

    assert_int_equal(gcp_crd_schema_default(cs, obj), GCP_OK);

    return NULL;
}


/* obj as the tests expect it: sorted keys, reals with 15 digits (0.3) */
static const char *
sc_dump(gcp_arena_t *a, const json_t *obj)
{
    char        *s;
    const char  *r;

    s = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY
                        | JSON_REAL_PRECISION(15));
    assert_non_null(s);

    r = gcp_strdup(a, s);
    free(s);

    return r;
}


static const char *
sc_outcome(gcp_arena_t *a, const gcp_crd_schema_t *cs, json_t *obj,
    const json_t *old)
{
    const char   *r;
    gcp_ferrs_t   errs;

    gcp_ferrs_init(&errs, a);
    assert_int_equal(gcp_crd_schema_validate(cs, obj, old, &errs), GCP_OK);

    r = errs.n ? sc_causes(a, &errs)
               : gcp_sprintf(a, "201 %s", sc_dump(a, obj));

    return r;
}


const char *
sc_create(gcp_arena_t *a, const gcp_crd_schema_t *cs, const char *doc,
    int strict)
{
    json_t      *obj;
    const char  *r;

    obj = sp_load(a, doc);

    r = sc_decode(a, cs, obj, strict);
    if (r == NULL) {
        r = sc_outcome(a, cs, obj, NULL);
    }

    json_decref(obj);

    return r;
}


const char *
sc_update(gcp_arena_t *a, const gcp_crd_schema_t *cs, const char *old,
    const char *doc)
{
    json_t      *o, *obj;
    const char  *r;

    o = sp_load(a, old);
    obj = sp_load(a, doc);

    r = sc_decode(a, cs, obj, 0);
    if (r == NULL) {
        r = sc_outcome(a, cs, obj, o);
    }

    json_decref(obj);
    json_decref(o);

    return r;
}


const char *
sc_check(gcp_arena_t *a, const char *s, int status)
{
    json_t                *schema;
    gcp_ferrs_t            errs;
    gcp_crd_check_opts_t   opts;

    schema = sp_load(a, s);

    gcp_crd_check_opts_init(&opts);
    opts.status_enabled = status ? 1 : 0;

    gcp_ferrs_init(&errs, a);
    assert_int_equal(gcp_crd_schema_check(&errs, schema, "spec.validation",
                                          &opts, sc_set()),
                     GCP_OK);
    json_decref(schema);

    return sc_causes(a, &errs);
}


void
sc_run_cases(const sc_case_t *c, size_t n)
{
    size_t             i, bad;
    const char        *got, *last;
    gcp_arena_t       *a;
    gcp_crd_schema_t  *cs;

    a = gcp_arena_create(0);
    assert_non_null(a);

    cs = NULL;
    last = NULL;
    bad = 0;

    for (i = 0; i < n; i++) {
        if (c[i].schema != last) {
            gcp_crd_schema_free(cs);
            cs = sc_compile(a, c[i].schema);
            last = c[i].schema;
        }

        got = sc_create(a, cs, c[i].doc, c[i].strict);

        if (strcmp(got, c[i].want) != 0) {
            fprintf(stderr, "case %zu %s\n  want: %s\n  got:  %s\n", i,
                    c[i].doc, c[i].want, got);
            bad++;
        }
    }

    gcp_crd_schema_free(cs);
    gcp_arena_destroy(a);

    assert_int_equal(bad, 0);
}
