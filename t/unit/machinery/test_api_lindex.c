
/*
 * Unit tests: lists with label and field selectors answered by the index
 * (core/machinery/gcp_reg_index.c) against the same lists scanned (the
 * worker's indexes set aside), through the whole API on LMDB: random
 * creates, label changes and deletes, paging with continue tokens, lists
 * at exact and compacted revisions, Secrets by their declared field,
 * custom resources by their selectableFields (per version, across a CRD
 * update).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <jansson.h>

#include "gcp_time.h"
#include "support_api.h"
#include "support_ctl.h"
#include "gcp_ctl.h"
#include "gcp_op.h"
#include "gcp_reg_index.h"


#define NOBJ  90

static const char *nss[] = { "ns1", "ns2", "ns3" };
static const char *vals[] = { "a", "b", "c", "7", "12" };

/* field selectors (with a label selector): lists across namespaces */
static const char *fsels[] = {
    "fieldSelector=metadata.name%3Dcm-007",
    "fieldSelector=metadata.name%3Dcm-011&labelSelector=app",
    "fieldSelector=metadata.namespace%3Dns2",
    "fieldSelector=metadata.namespace!%3Dns2&labelSelector=app%3Da",
    "fieldSelector=metadata.name!%3Dcm-003%2Cmetadata.namespace%3Dns1",
    "fieldSelector=metadata.namespace%3Dns1&limit=4",
};

static const char *sels[] = {
    "app%3Da", "app%3D%3Db", "app!%3Da", "app%20in%20(a%2Cb)",
    "app%20notin%20(a%2C7)", "tier", "!tier", "shard%3E5",
    "app%3Da%2Ctier%3Db", "tier%20notin%20(b)%2Capp", "app%3Dnone",
    "!app%2C!tier",
};


static int
setup(void **state)
{
    *state = api_env_create();
    return 0;
}


static int
teardown(void **state)
{
    api_env_destroy(*state);
    return 0;
}


static uint64_t
answered(api_env_t *env)
{
    size_t    ix, keys, bytes;
    uint64_t  n;

    gcp_reg_indexes_stats(api_env_api(env)->lindex, &ix, &keys, &bytes, &n);

    return n;
}


static void
put_object(api_env_t *env, int i, int create)
{
    int          k;
    char         path[128], body[512], labels[256];
    size_t       len;
    api_resp_t  *r;
    const char  *ns = nss[i % 3];

    len = 0;
    labels[0] = '\0';

    for (k = 0; k < 3; k++) {
        static const char  *keys[] = { "app", "tier", "shard" };

        if (rand() % 3 == 0) {
            continue;
        }

        len += (size_t) snprintf(labels + len, sizeof(labels) - len,
                                 "%s\"%s\":\"%s\"", len ? "," : "", keys[k],
                                 vals[rand() % 5]);
    }

    snprintf(body, sizeof(body), "{\"apiVersion\":\"v1\",\"kind\":"
             "\"ConfigMap\",\"metadata\":{\"name\":\"cm-%03d\","
             "\"labels\":{%s}},\"data\":{\"i\":\"%d\"}}", i, labels, rand());

    if (create) {
        snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps", ns);
        r = api_call(env, "POST", path, "application/json", body, NULL);
        assert_int_equal(r->status, 201);

    } else {
        snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps/"
                 "cm-%03d", ns, i);
        r = api_call(env, "PUT", path, "application/json", body, NULL);
        assert_true(r->status == 200 || r->status == 201);
    }

    api_resp_free(r);
}


static void
delete_object(api_env_t *env, int i)
{
    char         path[128];
    api_resp_t  *r;

    snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps/cm-%03d",
             nss[i % 3], i);
    r = api_call(env, "DELETE", path, NULL, NULL, NULL);
    assert_true(r->status == 200 || r->status == 404);
    api_resp_free(r);
}


/* The list by the index and by a scan: the same status and bytes. */
static api_resp_t *
compare(api_env_t *env, const char *coll, const char *query,
    const char *accept)
{
    char                p1[512];
    api_resp_t         *a, *b;
    struct timespec     now;
    gcp_reg_indexes_t  *ix;

    snprintf(p1, sizeof(p1), "%s?%s", coll, query);

    /* one clock for both: a Table's ages would differ across a second */
    now = gcp_time_now();
    gcp_time_set_fake(&now);

    a = api_call(env, "GET", p1, NULL, NULL, accept);

    /* the scan: without the worker's indexes */
    ix = api_env_api(env)->lindex;
    api_env_api(env)->lindex = NULL;
    b = api_call(env, "GET", p1, NULL, NULL, accept);
    api_env_api(env)->lindex = ix;

    gcp_time_set_fake(NULL);

    if (a->status != b->status || a->len != b->len
        || memcmp(a->body, b->body, a->len) != 0)
    {
        print_error("%s\nindex: %d %s\nscan:  %d %s\n", p1, a->status,
                    a->body, b->status, b->body);
        fail();
    }

    api_resp_free(b);

    return a;
}


/* Pages of limit through the whole list, each compared. */
static void
compare_pages(api_env_t *env, const char *coll, const char *sel, int limit)
{
    char         q[512];
    const char  *cont;
    api_resp_t  *r;
    int          pages;

    snprintf(q, sizeof(q), "labelSelector=%s&limit=%d", sel, limit);

    for (pages = 0; pages < 100; pages++) {
        r = compare(env, coll, q, NULL);
        assert_int_equal(r->status, 200);

        cont = api_str(r->json, "metadata", "continue", NULL);
        if (cont == NULL || cont[0] == '\0') {
            api_resp_free(r);
            return;
        }

        snprintf(q, sizeof(q), "labelSelector=%s&limit=%d&continue=%s",
                 sel, limit, cont);
        api_resp_free(r);
    }

    fail_msg("too many pages");
}


static void
compacted(void *arg, gcp_store_result_t *res)
{
    *(int *) arg = 1;
}


static void
test_random_against_scan(void **state)
{
    int          i, op, round, done, live[NOBJ];
    char         q[512], oldq[512];
    size_t       s;
    int64_t      rev;
    uint64_t     before;
    api_env_t   *env = *state;
    api_resp_t  *r;
    gcp_arena_t *a;

    static const char  *colls[] = {
        "/api/v1/namespaces/ns1/configmaps",
        "/api/v1/namespaces/ns2/configmaps",
        "/api/v1/configmaps",
    };

    srand(7);

    for (i = 0; i < 3; i++) {
        snprintf(q, sizeof(q), "{\"metadata\":{\"name\":\"%s\"}}", nss[i]);
        r = api_call(env, "POST", "/api/v1/namespaces", "application/json",
                     q, NULL);
        assert_int_equal(r->status, 201);
        api_resp_free(r);
    }

    for (i = 0; i < NOBJ; i++) {
        put_object(env, i, 1);
        live[i] = 1;
    }

    /* the first selective list builds the index (and is scanned) */
    r = api_call(env, "GET", "/api/v1/configmaps?labelSelector=app", NULL,
                 NULL, NULL);
    api_resp_free(r);
    api_spin(env, 5);

    oldq[0] = '\0';
    before = answered(env);

    for (round = 0; round < 12; round++) {

        for (op = 0; op < 25; op++) {
            i = rand() % NOBJ;

            if (live[i] && rand() % 4 == 0) {
                delete_object(env, i);
                live[i] = 0;

            } else {
                put_object(env, i, !live[i]);
                live[i] = 1;
            }
        }

        api_spin(env, 5);

        for (s = 0; s < gcp_nelems(sels); s++) {
            snprintf(q, sizeof(q), "labelSelector=%s", sels[s]);
            api_resp_free(compare(env, colls[s % 3], q, NULL));
            api_resp_free(compare(env, colls[(s + 1) % 3], q,
                                  "application/json;as=Table;v=v1;"
                                  "g=meta.k8s.io"));
            compare_pages(env, colls[(s + 2) % 3], sels[s], 1 + s % 7);
        }

        for (s = 0; s < gcp_nelems(fsels); s++) {
            api_resp_free(compare(env, colls[2], fsels[s], NULL));
            api_resp_free(compare(env, colls[s % 2], fsels[s], NULL));
        }

        /* a list at the revision of the previous round: exact */
        if (oldq[0]) {
            api_resp_free(compare(env, colls[2], oldq, NULL));
        }

        r = api_call(env, "GET", "/api/v1/configmaps?limit=1", NULL, NULL,
                     NULL);
        rev = atoll(api_str(r->json, "metadata", "resourceVersion", NULL));
        api_resp_free(r);

        snprintf(oldq, sizeof(oldq), "labelSelector=app&resourceVersion=%lld"
                 "&resourceVersionMatch=Exact", (long long) rev);

        if (round % 4 == 3) {
            /* compaction: older revisions answer 410 both ways */
            a = gcp_arena_create(0);
            done = 0;
            gcp_store_compact(api_env_store(env), rev, a, compacted, &done);

            while (!done) {
                api_spin(env, 10);
            }

            gcp_arena_destroy(a);

            snprintf(q, sizeof(q), "labelSelector=app&resourceVersion=%lld"
                     "&resourceVersionMatch=Exact", (long long) rev - 1);
            r = compare(env, colls[2], q, NULL);
            assert_int_equal(r->status, 410);
            api_resp_free(r);
        }
    }

    /* most of these were the index's */
    assert_true(answered(env) - before
                > 12 * (gcp_nelems(sels) + gcp_nelems(fsels)));
}


/* Secrets by their declared field (type), with creates and deletes. */
static void
test_declared_field(void **state)
{
    int          i, k;
    char         body[256], path[128];
    uint64_t     before;
    api_env_t   *env = *state;
    api_resp_t  *r;

    static const char  *types[] = { "Opaque", "example.com/a", "x" };
    static const char  *qs[] = {
        "fieldSelector=type%3DOpaque",
        "fieldSelector=type!%3DOpaque",
        "fieldSelector=type%3Dexample.com%2Fa%2Cmetadata.name!%3Ds3",
        "fieldSelector=type%3Dx&labelSelector=k%3Dv",
        "fieldSelector=type%3Dnone",
    };

    srand(11);

    r = api_call(env, "GET", "/api/v1/secrets?fieldSelector=type%3Dx", NULL,
                 NULL, NULL);
    api_resp_free(r);
    api_spin(env, 5);
    before = answered(env);

    for (k = 0; k < 60; k++) {
        i = rand() % 12;
        snprintf(path, sizeof(path),
                 "/api/v1/namespaces/default/secrets/s%d", i);

        r = api_call(env, "DELETE", path, NULL, NULL, NULL);
        assert_true(r->status == 200 || r->status == 404);
        api_resp_free(r);

        if (rand() % 3) {
            snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"s%d\","
                     "\"labels\":{\"k\":\"%s\"}},\"type\":\"%s\"}", i,
                     rand() % 2 ? "v" : "w", types[rand() % 3]);
            r = api_call(env, "POST", "/api/v1/namespaces/default/secrets",
                         "application/json", body, NULL);
            assert_int_equal(r->status, 201);
            api_resp_free(r);
        }

        api_spin(env, 2);

        api_resp_free(compare(env, "/api/v1/namespaces/default/secrets",
                              qs[k % gcp_nelems(qs)], NULL));
        api_resp_free(compare(env, "/api/v1/secrets",
                              qs[(k + 1) % gcp_nelems(qs)], NULL));
    }

    assert_true(answered(env) - before > 60);
}


/*
 * events.k8s.io/v1 events (stored as core/v1) by their declared fields,
 * read from the form a list serves, next to core/v1's own index.
 */
static void
test_events_v1_fields(void **state)
{
    int          i, k;
    char         body[512], path[128];
    uint64_t     before;
    api_env_t   *env = *state;
    api_resp_t  *r;

    static const char  *reasons[] = { "Pulled", "Failed", "" };
    static const char  *qs[] = {
        "fieldSelector=reason%3DFailed",
        "fieldSelector=reason!%3DFailed%2Ctype%3DWarning",
        "fieldSelector=involvedObject.name%3Dt1",
        "fieldSelector=reason%3D&labelSelector=k%3Dv",
    };
    static const char  *colls[] = {
        "/apis/events.k8s.io/v1/namespaces/default/events",
        "/apis/events.k8s.io/v1/events",
        "/api/v1/namespaces/default/events",
    };

    srand(23);

    r = api_call(env, "GET", colls[1], NULL, NULL, NULL);
    api_resp_free(r);

    for (k = 0; k < 2; k++) {
        snprintf(path, sizeof(path), "%s?fieldSelector=reason%%3DX",
                 colls[k * 2]);
        r = api_call(env, "GET", path, NULL, NULL, NULL);
        assert_int_equal(r->status, 200);
        api_resp_free(r);
    }

    api_spin(env, 5);
    before = answered(env);

    for (k = 0; k < 40; k++) {
        i = rand() % 10;
        snprintf(path, sizeof(path),
                 "/api/v1/namespaces/default/events/e%d", i);

        r = api_call(env, "DELETE", path, NULL, NULL, NULL);
        assert_true(r->status == 200 || r->status == 404);
        api_resp_free(r);

        snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"e%d\","
                 "\"labels\":{\"k\":\"%s\"}},\"reason\":\"%s\","
                 "\"type\":\"%s\",\"source\":{\"component\":\"x\"},"
                 "\"involvedObject\":{\"kind\":\"Pod\","
                 "\"name\":\"t%d\",\"namespace\":\"default\"}}", i,
                 rand() % 2 ? "v" : "w", reasons[rand() % 3],
                 rand() % 2 ? "Normal" : "Warning", rand() % 3);
        r = api_call(env, "POST", "/api/v1/namespaces/default/events",
                     "application/json", body, NULL);
        assert_int_equal(r->status, 201);
        api_resp_free(r);

        api_spin(env, 2);

        api_resp_free(compare(env, colls[k % 3], qs[k % gcp_nelems(qs)],
                              NULL));
        api_resp_free(compare(env, colls[(k + 1) % 3],
                              qs[(k + 1) % gcp_nelems(qs)], NULL));
    }

    assert_true(answered(env) - before > 60);
}


/* custom resources' selectableFields */

#define CRD_PATH  "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
#define CR_GROUP  "lx.example.com"

static const char *colors[] = { "red", "blue", "" };


/*
 * A CRD of widgets served as v1 (storage) and v2, each version with its
 * own selectableFields (per version paths: v2 selects .spec.color as v1
 * does, and .spec.size, defaulted by v2's schema only); fields1 are v1's.
 */
static void
put_crd(api_env_t *env, const char *fields1, const char *rv)
{
    char         body[4096];
    api_resp_t  *r;

    snprintf(body, sizeof(body),
        "{\"apiVersion\":\"apiextensions.k8s.io/v1\","
        "\"kind\":\"CustomResourceDefinition\","
        "\"metadata\":{\"name\":\"widgets." CR_GROUP "\"%s%s%s},"
        "\"spec\":{\"group\":\"" CR_GROUP "\",\"scope\":\"Namespaced\","
        "\"names\":{\"plural\":\"widgets\",\"singular\":\"widget\","
        "\"kind\":\"Widget\",\"listKind\":\"WidgetList\"},"
        "\"versions\":["
        "{\"name\":\"v1\",\"served\":true,\"storage\":true,"
        "\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\","
        "\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
        "\"color\":{\"type\":\"string\"},\"size\":{\"type\":\"integer\"},"
        "\"on\":{\"type\":\"boolean\"},"
        "\"shape\":{\"type\":\"string\",\"default\":\"round\"}}}}}},"
        "\"selectableFields\":[%s]},"
        "{\"name\":\"v2\",\"served\":true,\"storage\":false,"
        "\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\","
        "\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
        "\"color\":{\"type\":\"string\"},"
        "\"size\":{\"type\":\"integer\",\"default\":3},"
        "\"on\":{\"type\":\"boolean\"},"
        "\"shape\":{\"type\":\"string\"}}}}}},"
        "\"selectableFields\":[{\"jsonPath\":\".spec.color\"},"
        "{\"jsonPath\":\".spec.size\"}]}]}}",
        rv ? ",\"resourceVersion\":\"" : "", rv ? rv : "", rv ? "\"" : "",
        fields1);

    if (rv == NULL) {
        r = api_call(env, "POST", CRD_PATH, "application/json", body, NULL);
        assert_int_equal(r->status, 201);

    } else {
        r = api_call(env, "PUT", CRD_PATH "/widgets." CR_GROUP,
                     "application/json", body, NULL);
        assert_int_equal(r->status, 200);
    }

    api_resp_free(r);
}


/* Runs the loop until GET path answers status (60 s at most). */
static void
wait_status(api_env_t *env, const char *path, int status)
{
    int          i, got = 0;
    api_resp_t  *r;

    for (i = 0; i < 1200; i++) {
        r = api_call(env, "GET", path, NULL, NULL, NULL);
        got = r->status;
        api_resp_free(r);

        if (got == status) {
            return;
        }

        api_spin(env, 50);
    }

    /* the CRD's status says why */
    r = api_call(env, "GET", CRD_PATH "/widgets." CR_GROUP, NULL, NULL,
                 NULL);
    print_error("%s\n", r->body);
    api_resp_free(r);
    fail_msg("%s: %d, not %d", path, got, status);
}


static void
put_widget(api_env_t *env, int i, int create)
{
    char         path[160], body[600], size[32], on[32], rv[64];
    json_t      *got;
    api_resp_t  *r;
    const char  *ns = nss[i % 2];

    size[0] = '\0';
    on[0] = '\0';

    if (rand() % 4) {
        snprintf(size, sizeof(size), ",\"size\":%d", rand() % 4);
    }

    if (rand() % 3) {
        snprintf(on, sizeof(on), ",\"on\":%s", rand() % 2 ? "true" : "false");
    }

    /* custom resources allow no unconditional update: PUT names the RV */

    rv[0] = '\0';

    if (!create) {
        snprintf(path, sizeof(path), "/apis/" CR_GROUP "/v1/namespaces/%s/"
                 "widgets/w-%03d", ns, i);
        r = api_call(env, "GET", path, NULL, NULL, NULL);
        assert_int_equal(r->status, 200);
        got = json_loads(r->body, 0, NULL);
        assert_non_null(got);
        snprintf(rv, sizeof(rv), ",\"resourceVersion\":\"%s\"",
                 json_string_value(json_object_get(json_object_get(got,
                     "metadata"), "resourceVersion")));
        json_decref(got);
        api_resp_free(r);
    }

    snprintf(body, sizeof(body), "{\"apiVersion\":\"" CR_GROUP "/v1\","
             "\"kind\":\"Widget\",\"metadata\":{\"name\":\"w-%03d\"%s,"
             "\"labels\":{\"app\":\"%s\"}},\"spec\":{\"color\":\"%s\"%s%s"
             "%s}}", i, rv, vals[rand() % 3], colors[rand() % 3], size, on,
             rand() % 2 ? ",\"shape\":\"square\"" : "");

    if (create) {
        snprintf(path, sizeof(path), "/apis/" CR_GROUP "/v1/namespaces/%s/"
                 "widgets", ns);
        r = api_call(env, "POST", path, "application/json", body, NULL);
        assert_int_equal(r->status, 201);

    } else {
        snprintf(path, sizeof(path), "/apis/" CR_GROUP "/v1/namespaces/%s/"
                 "widgets/w-%03d", ns, i);
        r = api_call(env, "PUT", path, "application/json", body, NULL);
        assert_int_equal(r->status, 200);
    }

    api_resp_free(r);
}


/* Random writes, then every query of qs in both versions' scopes. */
static void
widgets_against_scan(api_env_t *env, int *live, const char * const *qs,
    size_t nq, const char *version)
{
    int          i, k, op;
    char         coll[3][160], q[512];
    size_t       s;
    api_resp_t  *r;

    snprintf(coll[0], sizeof(coll[0]), "/apis/" CR_GROUP "/%s/namespaces/"
             "ns1/widgets", version);
    snprintf(coll[1], sizeof(coll[1]), "/apis/" CR_GROUP "/%s/namespaces/"
             "ns2/widgets", version);
    snprintf(coll[2], sizeof(coll[2]), "/apis/" CR_GROUP "/%s/widgets",
             version);

    for (k = 0; k < 6; k++) {
        for (op = 0; op < 10; op++) {
            i = rand() % 40;

            if (live[i] && rand() % 4 == 0) {
                snprintf(q, sizeof(q), "/apis/" CR_GROUP "/v1/namespaces/"
                         "%s/widgets/w-%03d", nss[i % 2], i);
                r = api_call(env, "DELETE", q, NULL, NULL, NULL);
                assert_int_equal(r->status, 200);
                api_resp_free(r);
                live[i] = 0;

            } else {
                put_widget(env, i, !live[i]);
                live[i] = 1;
            }
        }

        api_spin(env, 5);

        for (s = 0; s < nq; s++) {
            api_resp_free(compare(env, coll[s % 3], qs[s], NULL));
            api_resp_free(compare(env, coll[(s + 1) % 3], qs[s], NULL));

            snprintf(q, sizeof(q), "%s&limit=%d", qs[s], 1 + (int) s % 3);
            api_resp_free(compare(env, coll[(s + 2) % 3], q, NULL));
        }
    }
}


static gcp_ctl_manager_t  *ctl;


static int
teardown_ctl(void **state)
{
    ctl_stop(*state, ctl);
    api_env_destroy(*state);
    return 0;
}


static int
setup_ctl(void **state)
{
    int          i;
    char         body[128];
    api_env_t   *env;
    api_resp_t  *r;

    env = api_env_create();
    ctl = gcp_ctl_start_apiserver(api_env_api(env));
    assert_non_null(ctl);

    for (i = 0; i < 2; i++) {
        snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"%s\"}}",
                 nss[i]);
        r = api_call(env, "POST", "/api/v1/namespaces", "application/json",
                     body, NULL);
        assert_int_equal(r->status, 201);
        api_resp_free(r);
    }

    *state = env;

    return 0;
}


/*
 * Field selectors on custom resources' selectableFields (string,
 * integer, boolean; absent as ""; defaulted on read by the version's
 * schema), alone and with labels, per version, answered by the index as
 * by a scan; a CRD update that changes them re-indexes.
 */
static void
test_cr_selectable_fields(void **state)
{
    int          live[40];
    char         rv[32];
    uint64_t     before;
    api_env_t   *env = *state;
    api_resp_t  *r;

    static const char * const  qs1[] = {
        "fieldSelector=spec.color%3Dred",
        "fieldSelector=spec.color!%3Dred",
        "fieldSelector=spec.color%3D",
        "fieldSelector=spec.size%3D2&labelSelector=app%3Da",
        "fieldSelector=spec.on%3Dtrue%2Cspec.color!%3Dblue",
        "fieldSelector=spec.on%3D%2Cmetadata.namespace%3Dns1",
        "fieldSelector=spec.size!%3D1&labelSelector=app%20in%20(b%2Cc)",
        "fieldSelector=spec.color%3Dnone",
    };

    static const char * const  qs2[] = {
        "fieldSelector=spec.color%3Dblue",
        "fieldSelector=spec.size%3D3",
        "fieldSelector=spec.size!%3D3%2Cspec.color%3Dred",
        "fieldSelector=spec.size%3D0&labelSelector=app",
    };

    /* v1 after the update: .spec.shape, defaulted by v1's schema */
    static const char * const  qs3[] = {
        "fieldSelector=spec.shape%3Dround",
        "fieldSelector=spec.shape!%3Dround&labelSelector=app%3Db",
        "fieldSelector=spec.shape%3Dsquare%2Cmetadata.name!%3Dw-003",
    };

    srand(19);
    memset(live, 0, sizeof(live));

    put_crd(env, "{\"jsonPath\":\".spec.color\"},"
            "{\"jsonPath\":\".spec.size\"},{\"jsonPath\":\".spec.on\"}",
            NULL);
    wait_status(env, "/apis/" CR_GROUP "/v2/widgets", 200);

    /* the first selective lists build the indexes (and are scanned) */
    r = api_call(env, "GET", "/apis/" CR_GROUP "/v1/widgets?fieldSelector="
                 "spec.color%3Dred", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);
    r = api_call(env, "GET", "/apis/" CR_GROUP "/v2/widgets?fieldSelector="
                 "spec.size%3D1", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);
    api_spin(env, 5);

    before = answered(env);
    widgets_against_scan(env, live, qs1, gcp_nelems(qs1), "v1");
    widgets_against_scan(env, live, qs2, gcp_nelems(qs2), "v2");
    assert_true(answered(env) - before
                > 6 * 3 * (gcp_nelems(qs1) + gcp_nelems(qs2)) / 2);

    /* the CRD changes v1's selectableFields under the same objects */
    r = api_call(env, "GET", CRD_PATH "/widgets." CR_GROUP, NULL, NULL,
                 NULL);
    snprintf(rv, sizeof(rv), "%s",
             api_str(r->json, "metadata", "resourceVersion", NULL));
    api_resp_free(r);

    put_crd(env, "{\"jsonPath\":\".spec.shape\"}", rv);
    wait_status(env, "/apis/" CR_GROUP "/v1/widgets?fieldSelector="
                "spec.shape%3Dround", 200);

    r = api_call(env, "GET", "/apis/" CR_GROUP "/v1/widgets?fieldSelector="
                 "spec.color%3Dred", NULL, NULL, NULL);
    assert_int_equal(r->status, 400);
    api_resp_free(r);
    api_spin(env, 5);

    before = answered(env);
    widgets_against_scan(env, live, qs3, gcp_nelems(qs3), "v1");
    widgets_against_scan(env, live, qs2, gcp_nelems(qs2), "v2");
    assert_true(answered(env) - before
                > 6 * 3 * (gcp_nelems(qs3) + gcp_nelems(qs2)) / 2);
}


static void
test_write_then_read(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;
    int          i;

    r = api_call(env, "GET", "/api/v1/namespaces/default/configmaps?"
                 "labelSelector=k%3Dv", NULL, NULL, NULL);
    api_resp_free(r);
    api_spin(env, 5);

    /* every write is seen by the next list, without waiting */
    for (i = 0; i < 20; i++) {
        char  body[256];

        snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"w%d\","
                 "\"labels\":{\"k\":\"v\"}}}", i);
        r = api_call(env, "POST", "/api/v1/namespaces/default/configmaps",
                     "application/json", body, NULL);
        assert_int_equal(r->status, 201);
        api_resp_free(r);

        r = api_call(env, "GET", "/api/v1/namespaces/default/configmaps?"
                     "labelSelector=k%3Dv", NULL, NULL, NULL);
        assert_int_equal(r->status, 200);
        assert_int_equal(json_array_size(json_object_get(r->json, "items")),
                         i + 1);
        api_resp_free(r);
    }
}


int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_random_against_scan, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_declared_field, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_write_then_read, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_cr_selectable_fields, setup_ctl,
                                        teardown_ctl),
        cmocka_unit_test_setup_teardown(test_events_v1_fields, setup,
                                        teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
