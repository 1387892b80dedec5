
/*
 * Unit tests: the label index (core/machinery/gcp_lindex.c), random
 * puts, label changes and deletes checked against a scan of a model with
 * gcp_label_selector_matches(), and with field values recorded as labels
 * of their own, field selectors (gcp_lindex_selector()) checked against
 * gcp_field_selector_matches().
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_lindex.h"


#define PREFIX   "/registry/configmaps/"
#define NKEYS    300


typedef struct {
    char        key[96];
    json_t     *labels;         /* NULL: absent */
    int64_t     rev;
    const char *type;           /* a field; NULL: absent */
} model_t;


static const char *fields[] = {
    "metadata.name", "metadata.namespace", "type", NULL
};
static const char *types[] = { "Opaque", "kubernetes.io/tls", "" };

/* field selectors, each with every label selector */
static const char *field_selectors[] = {
    "type=Opaque", "type!=Opaque", "type=", "type!=",
    "metadata.name=cm-007", "metadata.name!=cm-007",
    "metadata.namespace=ns2", "metadata.namespace!=ns2,type=Opaque",
    "metadata.name=cm-003,metadata.namespace=n", "type==kubernetes.io/tls",
};


static const char *label_keys[] = { "app", "tier", "shard", "x.io/k" };
static const char *label_values[] = { "a", "b", "", "7", "12", "web" };
static const char *namespaces[] = { "ns1", "ns2", "n" };

static const char *selectors[] = {
    "app=a", "app==b", "app!=a", "app in (a,b)", "app notin (a,web)",
    "tier", "!tier", "shard>5", "shard<10", "app=a,tier=web",
    "app=a,!shard", "tier notin (b),app", "x.io/k in (7,12,web),app!=b",
    "app=zzz", "missing", "!missing", "shard=", "tier in (,a)",
};


static json_t *
random_labels(void)
{
    size_t   i;
    json_t  *l;

    if (rand() % 8 == 0) {
        return NULL;
    }

    l = json_object();

    for (i = 0; i < gcp_nelems(label_keys); i++) {
        if (rand() % 2) {
            json_object_set_new(l, label_keys[i],
                json_string(label_values[rand()
                                         % gcp_nelems(label_values)]));
        }
    }

    if (rand() % 16 == 0) {
        json_object_set_new(l, "app", json_integer(3));   /* not a string */
    }

    return l;
}


static int
cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}


static int
model_indexed(void *ctx, const char *field)
{
    size_t  i;

    for (i = 0; fields[i]; i++) {
        if (strcmp(fields[i], field) == 0) {
            return 1;
        }
    }

    return 0;
}


/* A model's fields, as the registry's scan reads them. */
static const char *
model_field(void *ctx, const char *field)
{
    static char     nsbuf[64];
    const model_t  *m = ctx;
    const char     *ns, *name;

    ns = m->key + strlen(PREFIX);
    name = strchr(ns, '/') + 1;

    if (strcmp(field, "metadata.name") == 0) {
        return name;
    }

    if (strcmp(field, "metadata.namespace") == 0) {
        snprintf(nsbuf, sizeof(nsbuf), "%.*s", (int) (name - 1 - ns), ns);
        return nsbuf;
    }

    return strcmp(field, "type") == 0 ? m->type : NULL;
}


/* What the registry records for m: its labels and its fields. */
static json_t *
model_recorded(const model_t *m)
{
    char        name[64];
    size_t      i;
    json_t     *l;
    const char *v;

    l = json_object();
    json_object_update(l, m->labels);

    for (i = 0; fields[i]; i++) {
        snprintf(name, sizeof(name), "%c%s", GCP_LINDEX_FIELD, fields[i]);
        v = model_field((void *) m, fields[i]);
        json_object_set_new(l, name, json_string(v ? v : ""));
    }

    return l;
}


static int
model_matches(model_t *m, const gcp_label_selector_t *sel,
    const gcp_field_selector_t *fsel)
{
    return gcp_label_selector_matches(sel, m->labels)
           && gcp_field_selector_matches(fsel, model_field, m);
}


static void
check_query(gcp_lindex_t *ix, model_t *m, size_t nm, const char *ns,
    const char *selstr, const char *fieldstr, const char *after)
{
    int                    rc;
    char                   scope[64];
    size_t                 i, n, nexp;
    const char            *msg, **exp;
    gcp_arena_t           *a;
    gcp_lindex_hit_t      *hits;
    gcp_label_selector_t  *sel, *isel;
    gcp_field_selector_t  *fsel;
    gcp_str_t              aft;

    a = gcp_arena_create(0);
    assert_non_null(a);

    rc = gcp_label_selector_parse(a, selstr, strlen(selstr), &sel, &msg);
    assert_int_equal(rc, GCP_OK);

    fsel = NULL;
    isel = sel;

    if (fieldstr) {
        rc = gcp_field_selector_parse(a, fieldstr, strlen(fieldstr), fields,
                                      &fsel, &msg);
        assert_int_equal(rc, GCP_OK);

        rc = gcp_lindex_selector(a, sel, fsel, model_indexed, NULL, &isel);
        assert_int_equal(rc, GCP_OK);
    }

    aft.data = after;
    aft.len = strlen(after);

    rc = gcp_lindex_query(ix, a, ns, isel, aft, &hits, &n);
    assert_int_equal(rc, GCP_OK);

    exp = gcp_alloc(a, (nm + 1) * sizeof(char *));
    nexp = 0;
    snprintf(scope, sizeof(scope), PREFIX "%s/", ns);

    for (i = 0; i < nm; i++) {
        if (m[i].rev == 0) {
            continue;
        }

        if (ns[0] && strncmp(m[i].key, scope, strlen(scope)) != 0) {
            continue;
        }

        if (strcmp(m[i].key, after) < 0) {
            continue;
        }

        if (model_matches(&m[i], sel, fsel)) {
            exp[nexp++] = m[i].key;
        }
    }

    qsort(exp, nexp, sizeof(char *), cmp_key);

    if (n != nexp) {
        print_error("ns %s selector %s fields %s after %s: %zu hits, %zu "
                    "expected\n", ns, selstr, fieldstr ? fieldstr : "",
                    after, n, nexp);
    }

    assert_int_equal(n, nexp);

    for (i = 0; i < n; i++) {
        assert_string_equal(hits[i].key.data, exp[i]);
        assert_int_equal(hits[i].key.len, strlen(exp[i]));
    }

    for (i = 0; i < n; i++) {
        size_t  j;

        for (j = 0; j < nm; j++) {
            if (strcmp(m[j].key, exp[i]) == 0) {
                char  v[32];

                assert_int_equal(hits[i].mod_revision, m[j].rev);

                /* the value recorded with that revision */
                snprintf(v, sizeof(v), "{\"rev\":%lld}",
                         (long long) m[j].rev);
                assert_int_equal(hits[i].value.len, strlen(v));
                assert_memory_equal(hits[i].value.data, v, strlen(v));
            }
        }
    }

    /* any_from says whether the scope has a key from the given one on */
    {
        int  any = 0;

        for (i = 0; i < nm; i++) {
            if (m[i].rev && (ns[0] == '\0'
                             || strncmp(m[i].key, scope, strlen(scope)) == 0)
                && strcmp(m[i].key, after) >= 0)
            {
                any = 1;
            }
        }

        assert_int_equal(gcp_lindex_any_from(ix, ns, aft), any);
    }

    gcp_arena_destroy(a);
}


/* A model of NKEYS keys over the namespaces, none stored yet. */
static model_t *
model_create(void)
{
    size_t    i;
    model_t  *m;

    m = calloc(NKEYS, sizeof(model_t));
    assert_non_null(m);

    for (i = 0; i < NKEYS; i++) {
        snprintf(m[i].key, sizeof(m[i].key), PREFIX "%s/cm-%03zu",
                 namespaces[i % gcp_nelems(namespaces)], (i * 7919) % 1000);
    }

    return m;
}


/*
 * nops random creates, updates (new labels and, with fields, a new type)
 * and deletes, applied to the model and the index; returns the revision.
 */
static int64_t
model_ops(gcp_lindex_t *ix, model_t *m, size_t nops, int64_t rev,
    int with_fields)
{
    char        val[32];
    size_t      i, n;
    json_t     *rec;
    gcp_str_t   k, v;

    for (n = 0; n < nops; n++) {
        i = (size_t) rand() % NKEYS;
        k.data = m[i].key;
        k.len = strlen(m[i].key);

        if (rand() % 4 == 0) {
            gcp_lindex_delete(ix, k);
            json_decref(m[i].labels);
            m[i].labels = NULL;
            m[i].rev = 0;
            continue;
        }

        json_decref(m[i].labels);
        m[i].labels = random_labels();
        m[i].rev = ++rev;

        v.len = (size_t) snprintf(val, sizeof(val), "{\"rev\":%lld}",
                                  (long long) rev);
        v.data = val;

        if (!with_fields) {
            assert_int_equal(gcp_lindex_put(ix, k, v, m[i].labels, rev),
                             GCP_OK);
            continue;
        }

        m[i].type = rand() % 4 ? types[rand() % gcp_nelems(types)] : NULL;

        rec = model_recorded(&m[i]);
        assert_int_equal(gcp_lindex_put(ix, k, v, rec, rev), GCP_OK);
        json_decref(rec);
    }

    return rev;
}


static void
test_random_against_scan(void **state)
{
    int             round;
    size_t          i, s, n, bytes0;
    int64_t         rev;
    gcp_str_t       k;
    model_t        *m;
    gcp_lindex_t   *ix;

    srand(42);

    m = model_create();

    ix = gcp_lindex_create(strlen(PREFIX), 1);
    assert_non_null(ix);
    bytes0 = gcp_lindex_bytes(ix);

    rev = 1;

    for (round = 0; round < 40; round++) {

        rev = model_ops(ix, m, 150, rev, 0);

        for (n = 0, i = 0; i < NKEYS; i++) {
            n += m[i].rev != 0;
        }

        assert_int_equal(gcp_lindex_count(ix), n);

        for (s = 0; s < gcp_nelems(selectors); s++) {
            check_query(ix, m, NKEYS, "", selectors[s], NULL, "");
            check_query(ix, m, NKEYS, "ns1", selectors[s], NULL, "");
            check_query(ix, m, NKEYS, "n", selectors[s], NULL, "");
            check_query(ix, m, NKEYS, "ns2", selectors[s], NULL,
                        PREFIX "ns2/cm-5");
            check_query(ix, m, NKEYS, "", selectors[s], NULL,
                        PREFIX "ns1/cm-5");
            check_query(ix, m, NKEYS, "ns1", selectors[s], NULL, m[s].key);
            check_query(ix, m, NKEYS, "none", selectors[s], NULL, "");
        }
    }

    /* deleting everything gives back every posting */
    for (i = 0; i < NKEYS; i++) {
        k.data = m[i].key;
        k.len = strlen(m[i].key);
        gcp_lindex_delete(ix, k);
        json_decref(m[i].labels);
    }

    assert_int_equal(gcp_lindex_count(ix), 0);
    assert_int_equal(gcp_lindex_bytes(ix), bytes0);

    gcp_lindex_free(ix);
    free(m);
}


/* Field selectors, alone and with label selectors, against the scan. */
static void
test_fields_against_scan(void **state)
{
    int             round;
    size_t          i, s, f;
    int64_t         rev;
    model_t        *m;
    gcp_lindex_t   *ix;

    srand(7);

    m = model_create();

    ix = gcp_lindex_create(strlen(PREFIX), 1);
    assert_non_null(ix);

    rev = 1;

    for (round = 0; round < 12; round++) {

        /* creates, updates that change labels and fields, deletes */
        rev = model_ops(ix, m, 120, rev, 1);

        for (f = 0; f < gcp_nelems(field_selectors); f++) {
            for (s = 0; s < 6; s++) {
                check_query(ix, m, NKEYS, "", s ? selectors[s] : "",
                            field_selectors[f], "");
                check_query(ix, m, NKEYS, "ns2", s ? selectors[s] : "",
                            field_selectors[f], "");
                check_query(ix, m, NKEYS, "n", s ? selectors[s] : "",
                            field_selectors[f], PREFIX "n/cm-4");
            }
        }
    }

    for (i = 0; i < NKEYS; i++) {
        json_decref(m[i].labels);
    }

    gcp_lindex_free(ix);
    free(m);
}


/* Terms the index cannot answer: another field, a value with a NUL. */
static void
test_fields_unavailable(void **state)
{
    char                  *nul;
    const char            *msg;
    const char            *other[] = { "metadata.name", "spec.x", NULL };
    gcp_arena_t           *a;
    gcp_label_selector_t  *sel;
    gcp_field_selector_t  *fsel;

    a = gcp_arena_create(0);

    assert_int_equal(gcp_field_selector_parse(a, "spec.x=1", 8, other,
                                              &fsel, &msg), GCP_OK);
    assert_int_equal(gcp_lindex_selector(a, NULL, fsel, model_indexed, NULL,
                                         &sel), GCP_EUNAVAILABLE);

    assert_int_equal(gcp_field_selector_parse(a, "type=a%00b", 10, fields,
                                              &fsel, &msg), GCP_OK);
    nul = gcp_alloc(a, 4);
    memcpy(nul, "a\0b", 4);
    fsel->terms[0].value = nul;
    fsel->terms[0].value_len = 3;
    assert_int_equal(gcp_lindex_selector(a, NULL, fsel, model_indexed, NULL,
                                         &sel), GCP_EUNAVAILABLE);

    gcp_arena_destroy(a);
}


static void
test_cluster_scoped(void **state)
{
    size_t             n;
    json_t            *l;
    gcp_arena_t       *a;
    gcp_lindex_t      *ix;
    gcp_lindex_hit_t  *hits;
    gcp_str_t          k1 = gcp_string("/registry/namespaces/b");
    gcp_str_t          k2 = gcp_string("/registry/namespaces/a");
    gcp_str_t          none = gcp_null_string;
    gcp_str_t          v2 = gcp_string("{}");
    gcp_label_selector_t  *sel;
    const char            *msg;

    ix = gcp_lindex_create(strlen("/registry/namespaces/"), 0);
    a = gcp_arena_create(0);
    l = json_pack("{s:s}", "team", "x");

    assert_int_equal(gcp_lindex_put(ix, k1, none, l, 5), GCP_OK);
    assert_int_equal(gcp_lindex_put(ix, k2, none, l, 6), GCP_OK);
    assert_int_equal(gcp_lindex_put(ix, k2, v2, l, 7), GCP_OK);  /* again */

    assert_int_equal(gcp_label_selector_parse(a, "team=x", 6, &sel, &msg),
                     GCP_OK);
    assert_int_equal(gcp_lindex_query(ix, a, "", sel, none, &hits, &n),
                     GCP_OK);
    assert_int_equal(n, 2);
    assert_string_equal(hits[0].key.data, "/registry/namespaces/a");
    assert_int_equal(hits[0].mod_revision, 7);
    assert_int_equal(hits[0].value.len, 2);
    assert_memory_equal(hits[0].value.data, "{}", 2);
    assert_string_equal(hits[1].key.data, "/registry/namespaces/b");

    /* a label changed: the old value's posting no longer lists it */
    json_object_set_new(l, "team", json_string("y"));
    assert_int_equal(gcp_lindex_put(ix, k1, none, l, 8), GCP_OK);
    assert_int_equal(gcp_lindex_query(ix, a, "", sel, none, &hits, &n),
                     GCP_OK);
    assert_int_equal(n, 1);
    assert_string_equal(hits[0].key.data, "/registry/namespaces/a");

    json_decref(l);
    gcp_arena_destroy(a);
    gcp_lindex_free(ix);
}


int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_against_scan),
        cmocka_unit_test(test_cluster_scoped),
        cmocka_unit_test(test_fields_against_scan),
        cmocka_unit_test(test_fields_unavailable),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
