
/*
 * Unit tests: managedFields (machinery/gcp_managed.c) through the
 * sequence of kube-apiserver 1.32's captures 02-cm-create, 02-cm-apply-
 * create, -conflict, -force and 02-cm-update-field-manager: the entries
 * are compared with the captured ones (their time made "T"), then field
 * removal by an applier, resets, and manager names.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_managed.h"
#include "support_schema.h"


static gcp_schema_set_t  *set;


static int
setup(void **state)
{
    const char  *err;

    set = gcp_schema_set_create();
    assert_non_null(set);
    assert_int_equal(gcp_schema_set_load_embedded(set, &err), GCP_OK);

    return 0;
}


static int
teardown(void **state)
{
    gcp_schema_set_free(set);
    return 0;
}


static void
init(gcp_managed_t *m, const char *manager)
{
    memset(m, 0, sizeof(gcp_managed_t));

    m->set = set;
    m->node = gcp_schema_get(set, "io.k8s.api.core.v1.ConfigMap");
    m->manager = manager;
    m->api_version = "v1";
    m->now = "T";

    assert_non_null(m->node);
}




/* Asserts the borrowed v dumps as expected. */

static void
expect(json_t *v, const char *expected)
{
    schema_expect_json(json_incref(v), expected);
}


static json_t *
mf(const json_t *obj)
{
    return json_object_get(json_object_get(obj, "metadata"),
                           "managedFields");
}


#define ENTRY(m, op, fs)                                                     \
    "{\"manager\":\"" m "\",\"operation\":\"" op "\",\"apiVersion\":"        \
    "\"v1\",\"time\":\"T\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":" fs "}"

#define A_ALL  "{\"f:data\":{\"f:owned-by-a\":{},\"f:shared\":{}},"         \
               "\"f:metadata\":{\"f:labels\":{\"f:app\":{}}}}"
#define A_OWN  "{\"f:data\":{\"f:owned-by-a\":{}},"                          \
               "\"f:metadata\":{\"f:labels\":{\"f:app\":{}}}}"


/* 02-cm-create: an Update on create, maps that appear are members */

static void
test_create(void **state)
{
    json_t         *shape, *obj, *out;
    gcp_managed_t   m;

    init(&m, "refcapture");

    shape = schema_json("{\"metadata\":{}}");
    obj = schema_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
               "{\"name\":\"cm1\",\"namespace\":\"ref-crud\",\"uid\":\"u\","
               "\"labels\":{\"app\":\"demo\",\"tier\":\"backend\"},"
               "\"annotations\":{\"note\":\"first\"}},\"data\":{\"key1\":"
               "\"value1\",\"key2\":\"value2\"}}");

    out = gcp_managed_update(&m, NULL, NULL, shape, obj);
    expect(out, "[" ENTRY("refcapture", "Update",
                "{\"f:data\":{\".\":{},\"f:key1\":{},\"f:key2\":{}},"
                "\"f:metadata\":{\"f:annotations\":{\".\":{},\"f:note\":{}},"
                "\"f:labels\":{\".\":{},\"f:app\":{},\"f:tier\":{}}}}") "]");

    json_decref(out);
    json_decref(obj);
    json_decref(shape);
}


static void
test_apply_sequence(void **state)
{
    int             rc;
    json_t         *cfg, *live, *out, *conflicts, *upd;
    gcp_managed_t   m;

    /* 02-cm-apply-create */

    init(&m, "manager-a");
    cfg = schema_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
               "{\"name\":\"cm-ssa\",\"labels\":{\"app\":\"demo\"}},\"data\":"
               "{\"owned-by-a\":\"1\",\"shared\":\"a\"}}");

    rc = gcp_managed_apply(&m, NULL, cfg, 0, &live, &conflicts);
    assert_int_equal(rc, 0);
    expect(mf(live), "[" ENTRY("manager-a", "Apply", A_ALL) "]");
    json_decref(cfg);

    /* 02-cm-apply-conflict: manager-b changes a field a owns */

    init(&m, "manager-b");
    cfg = schema_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
               "{\"name\":\"cm-ssa\"},\"data\":{\"shared\":\"b\","
               "\"owned-by-b\":\"2\"}}");

    rc = gcp_managed_apply(&m, live, cfg, 0, &out, &conflicts);
    assert_int_equal(rc, 1);
    assert_null(out);
    expect(conflicts, "[{\"manager\":\"\\\"manager-a\\\"\","
                           "\"path\":\".data.shared\"}]");
    json_decref(conflicts);

    /* 02-cm-apply-force: b takes the field */

    rc = gcp_managed_apply(&m, live, cfg, 1, &out, &conflicts);
    assert_int_equal(rc, 0);
    expect(json_object_get(out, "data"),
                "{\"owned-by-a\":\"1\",\"shared\":\"b\",\"owned-by-b\":\"2\"}");
    expect(mf(out), "[" ENTRY("manager-a", "Apply", A_OWN) ","
                ENTRY("manager-b", "Apply",
                      "{\"f:data\":{\"f:owned-by-b\":{},\"f:shared\":{}}}")
                "]");
    json_decref(cfg);
    json_decref(live);
    live = out;

    /* 02-cm-update-field-manager: a PUT by "editor" */

    init(&m, "editor");
    upd = json_deep_copy(live);
    json_object_set_new(json_object_get(upd, "data"), "shared",
                        json_string("edited"));

    out = gcp_managed_update(&m, mf(upd), live, live, upd);
    expect(out, "[" ENTRY("manager-a", "Apply", A_OWN) ","
                ENTRY("manager-b", "Apply",
                      "{\"f:data\":{\"f:owned-by-b\":{}}}") ","
                ENTRY("editor", "Update", "{\"f:data\":{\"f:shared\":{}}}")
                "]");

    /* an Update by a manager that owns shared now conflicts with b? no: */
    /* a, reapplying shared, conflicts with the editor (an Update entry) */

    json_object_set(json_object_get(upd, "metadata"), "managedFields", out);
    json_decref(out);
    json_decref(live);
    live = upd;

    init(&m, "manager-a");
    cfg = schema_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
               "{\"name\":\"cm-ssa\",\"labels\":{\"app\":\"demo\"}},\"data\":"
               "{\"shared\":\"a\"}}");

    rc = gcp_managed_apply(&m, live, cfg, 0, &out, &conflicts);
    assert_int_equal(rc, 1);
    expect(conflicts, "[{\"manager\":\"\\\"editor\\\" using v1\","
                           "\"path\":\".data.shared\"}]");
    json_decref(conflicts);
    json_decref(cfg);

    /* a stops applying owned-by-a: no one else owns it, it goes away */

    cfg = schema_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
               "{\"name\":\"cm-ssa\",\"labels\":{\"app\":\"demo\"}}}");

    rc = gcp_managed_apply(&m, live, cfg, 0, &out, &conflicts);
    assert_int_equal(rc, 0);
    expect(json_object_get(out, "data"),
                "{\"shared\":\"edited\",\"owned-by-b\":\"2\"}");
    expect(mf(out), "[" ENTRY("manager-a", "Apply",
                "{\"f:metadata\":{\"f:labels\":{\"f:app\":{}}}}") ","
                ENTRY("manager-b", "Apply",
                      "{\"f:data\":{\"f:owned-by-b\":{}}}") ","
                ENTRY("editor", "Update", "{\"f:data\":{\"f:shared\":{}}}")
                "]");
    json_decref(out);
    json_decref(cfg);

    /* a reset ([{}]) by an update keeps only the updater's entry */

    init(&m, "editor");
    upd = json_deep_copy(live);
    json_object_set_new(json_object_get(upd, "data"), "shared",
                        json_string("again"));
    cfg = schema_json("[{}]");

    out = gcp_managed_update(&m, cfg, live, live, upd);
    expect(out, "[" ENTRY("editor", "Update",
                               "{\"f:data\":{\"f:shared\":{}}}") "]");
    json_decref(out);
    json_decref(cfg);

    /* an invalid list sent is ignored: the stored entries stay */

    cfg = schema_json("[{\"manager\":\"x\",\"operation\":\"Bad\"}]");
    out = gcp_managed_update(&m, cfg, live, live, upd);
    assert_int_equal(json_array_size(out), 3);
    json_decref(out);
    json_decref(cfg);

    json_decref(upd);
    json_decref(live);
}


/* Eleven Update managers: the two oldest become "ancient-changes" */

static void
test_update_managers_capped(void **state)
{
    int             i;
    char            k[16], f[16], t[32];
    json_t         *live, *upd, *out, *entries, *data;
    gcp_managed_t   m;

    live = schema_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                       "\"metadata\":{\"name\":\"c\"},\"data\":{}}");
    entries = json_array();
    data = json_object_get(live, "data");

    /* managers "01".."10", each owning its key k01..k10 */

    for (i = 1; i <= 10; i++) {
        snprintf(k, sizeof(k), "k%02d", i);
        snprintf(f, sizeof(f), "f:k%02d", i);
        snprintf(t, sizeof(t), "2026-01-01T00:00:%02dZ", i);
        json_object_set_new(data, k, json_string("v"));
        json_array_append_new(entries, json_pack(
            "{s:s,s:s,s:s,s:s,s:s,s:{s:{s:{}}}}", "manager", k + 1,
            "operation", "Update", "apiVersion", "v1", "time", t,
            "fieldsType", "FieldsV1", "fieldsV1", "f:data", f));
    }

    json_object_set_new(json_object_get(live, "metadata"), "managedFields",
                        entries);

    upd = json_deep_copy(live);
    json_object_set_new(json_object_get(upd, "data"), "k11",
                        json_string("v"));

    init(&m, "11");
    m.now = "2026-01-02T00:00:00Z";

    out = gcp_managed_update(&m, NULL, live, live, upd);
    assert_int_equal(json_array_size(out), 10);

    expect(json_array_get(out, 0),
           "{\"manager\":\"ancient-changes\",\"operation\":\"Update\","
           "\"apiVersion\":\"v1\",\"time\":\"2026-01-01T00:00:02Z\","
           "\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:data\":{"
           "\"f:k01\":{},\"f:k02\":{}}}}");
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(out, 1), "manager")), "03");
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(out, 9), "manager")), "11");

    json_decref(out);
    json_decref(upd);
    json_decref(live);
}


/*
 * A field renamed between apiVersions (x/v1 spec.count is x/v2
 * spec.amount): an entry of x/v1 sees a write in x/v2 through its view
 * (the objects converted to x/v1), so conflicts and takes go by its names.
 */

#define ONE_V1  "{\"manager\":\"one\",\"operation\":\"Apply\","           \
                "\"apiVersion\":\"x/v1\",\"time\":\"T\",\"fieldsType\":"  \
                "\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:count\":{}}}}"

static void
test_views(void **state)
{
    int                  rc;
    json_t              *live, *cfg, *out, *conflicts, *old1, *new1, *upd;
    gcp_managed_t        m;
    gcp_managed_view_t   v;

    init(&m, "two");
    m.node = NULL;
    m.api_version = "x/v2";

    live = schema_json("{\"apiVersion\":\"x/v2\",\"kind\":\"G\","
                       "\"metadata\":{\"name\":\"g\",\"managedFields\":["
                       ONE_V1 "]},\"spec\":{\"amount\":1}}");
    cfg = schema_json("{\"apiVersion\":\"x/v2\",\"kind\":\"G\","
                      "\"metadata\":{\"name\":\"g\"},\"spec\":"
                      "{\"amount\":2}}");

    schema_expect_json(gcp_managed_versions(&m, mf(live), NULL),
                       "[\"x/v1\"]");

    /* the object the views convert: the merge, no managedFields */

    out = gcp_managed_applied(&m, live, cfg);
    expect(out, "{\"apiVersion\":\"x/v2\",\"kind\":\"G\",\"metadata\":"
                "{\"name\":\"g\"},\"spec\":{\"amount\":2}}");
    json_decref(out);

    /* without a view, x/v1's names are not x/v2's: no conflict seen */

    rc = gcp_managed_apply(&m, live, cfg, 0, &out, &conflicts);
    assert_int_equal(rc, 0);
    json_decref(out);

    old1 = schema_json("{\"apiVersion\":\"x/v1\",\"kind\":\"G\","
                       "\"metadata\":{\"name\":\"g\"},\"spec\":"
                       "{\"count\":1}}");
    new1 = schema_json("{\"apiVersion\":\"x/v1\",\"kind\":\"G\","
                       "\"metadata\":{\"name\":\"g\"},\"spec\":"
                       "{\"count\":2}}");

    v.api_version = "x/v1";
    v.node = NULL;
    v.old = old1;
    v.new = new1;
    m.views = &v;
    m.nviews = 1;

    rc = gcp_managed_apply(&m, live, cfg, 0, &out, &conflicts);
    assert_int_equal(rc, 1);
    expect(conflicts, "[{\"manager\":\"\\\"one\\\"\","
                      "\"path\":\".spec.count\"}]");
    json_decref(conflicts);

    /* force: one loses spec.count (its entry, left empty, goes) */

    rc = gcp_managed_apply(&m, live, cfg, 1, &out, &conflicts);
    assert_int_equal(rc, 0);
    expect(mf(out), "[{\"manager\":\"two\",\"operation\":\"Apply\","
                    "\"apiVersion\":\"x/v2\",\"time\":\"T\",\"fieldsType\":"
                    "\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:amount\":"
                    "{}}}}]");
    json_decref(out);

    /* an update in x/v2 takes spec.count from one as well */

    init(&m, "ed");
    m.node = NULL;
    m.api_version = "x/v2";
    m.views = &v;
    m.nviews = 1;

    upd = schema_json("{\"apiVersion\":\"x/v2\",\"kind\":\"G\","
                      "\"metadata\":{\"name\":\"g\"},\"spec\":"
                      "{\"amount\":2}}");

    out = gcp_managed_update(&m, NULL, live, live, upd);
    expect(out, "[{\"manager\":\"ed\",\"operation\":\"Update\","
                "\"apiVersion\":\"x/v2\",\"time\":\"T\",\"fieldsType\":"
                "\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:amount\":"
                "{}}}}]");
    json_decref(out);

    /* with no change in x/v1, one keeps its field */

    m.nviews = 0;
    out = gcp_managed_update(&m, NULL, live, live, upd);
    assert_int_equal(json_array_size(out), 2);
    expect(json_array_get(out, 0), ONE_V1);
    json_decref(out);

    json_decref(upd);
    json_decref(old1);
    json_decref(new1);
    json_decref(cfg);
    json_decref(live);
}


/*
 * The applier's own Apply entry of x/v1 (spec.count, spec.size) applying
 * again in x/v2 (spec.amount there) without spec.amount: pruned in x/v1
 * (the merge converted there by hand), what that removed seen by x/v2's
 * names, then the apply removes it unless the configuration owns it.
 */

#define ONE_OWN  "{\"manager\":\"one\",\"operation\":\"Apply\","          \
                 "\"apiVersion\":\"x/v1\",\"time\":\"T\",\"fieldsType\":" \
                 "\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:count\":{},"   \
                 "\"f:size\":{}}}}"
#define KEEP_V1  "{\"manager\":\"keep\",\"operation\":\"Update\","        \
                 "\"apiVersion\":\"x/v1\",\"time\":\"T\",\"fieldsType\":" \
                 "\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:kept\":{}}}}"

static void
test_self_prune(void **state)
{
    int             rc;
    json_t         *live, *cfg, *merged, *there, *pruned, *back, *lost;
    json_t         *out, *conflicts;
    gcp_managed_t   m;

    init(&m, "one");
    m.node = NULL;
    m.api_version = "x/v2";

    live = schema_json("{\"apiVersion\":\"x/v2\",\"kind\":\"G\","
                       "\"metadata\":{\"name\":\"g\",\"managedFields\":["
                       ONE_OWN "," KEEP_V1 "]},\"spec\":{\"amount\":1,"
                       "\"size\":2,\"kept\":3}}");
    cfg = schema_json("{\"apiVersion\":\"x/v2\",\"kind\":\"G\","
                      "\"metadata\":{\"name\":\"g\"},\"spec\":"
                      "{\"size\":2}}");

    assert_string_equal(gcp_managed_self_version(&m, live), "x/v1");

    /* the merge, nothing removed yet */

    merged = gcp_managed_merged(&m, live, cfg);
    expect(merged, "{\"apiVersion\":\"x/v2\",\"kind\":\"G\",\"metadata\":"
                   "{\"name\":\"g\"},\"spec\":{\"amount\":1,\"size\":2,"
                   "\"kept\":3}}");

    /* in x/v1: one's members go, keep's stays */

    there = schema_json("{\"apiVersion\":\"x/v1\",\"kind\":\"G\","
                        "\"metadata\":{\"name\":\"g\"},\"spec\":"
                        "{\"count\":1,\"size\":2,\"kept\":3}}");
    pruned = gcp_managed_prune_self(&m, live, NULL, there);
    expect(pruned, "{\"apiVersion\":\"x/v1\",\"kind\":\"G\",\"metadata\":"
                   "{\"name\":\"g\"},\"spec\":{\"kept\":3}}");

    /* back in x/v2: lost by x/v2's names */

    back = schema_json("{\"apiVersion\":\"x/v2\",\"kind\":\"G\","
                       "\"metadata\":{\"name\":\"g\"},\"spec\":"
                       "{\"kept\":3}}");
    lost = gcp_managed_lost(&m, merged, back);
    expect(lost, "{\"f:spec\":{\"f:amount\":{},\"f:size\":{}}}");

    /* without it, x/v1's names miss spec.amount */

    rc = gcp_managed_apply(&m, live, cfg, 0, &out, &conflicts);
    assert_int_equal(rc, 0);
    expect(json_object_get(out, "spec"),
           "{\"amount\":1,\"size\":2,\"kept\":3}");
    json_decref(out);

    /* with it: spec.amount goes, spec.size stays (applied again) */

    m.self_lost = lost;
    rc = gcp_managed_apply(&m, live, cfg, 0, &out, &conflicts);
    assert_int_equal(rc, 0);
    expect(json_object_get(out, "spec"), "{\"size\":2,\"kept\":3}");
    json_decref(out);

    /* an entry of the request's apiVersion prunes by its own set */

    m.api_version = "x/v1";
    assert_null(gcp_managed_self_version(&m, live));

    json_decref(lost);
    json_decref(back);
    json_decref(pruned);
    json_decref(there);
    json_decref(merged);
    json_decref(cfg);
    json_decref(live);
}


static void
test_manager_name(void **state)
{
    char  buf[130];

    assert_string_equal(gcp_managed_manager("mine", "kubectl/v1", buf,
                                            sizeof(buf)), "mine");
    assert_string_equal(gcp_managed_manager(NULL, "kubectl/v1.32.0 (linux/"
                                            "amd64) kubernetes/abc", buf,
                                            sizeof(buf)), "kubectl");
    assert_string_equal(gcp_managed_manager("", "OpenAPI-Generator/31.0.0"
                                            "/python", buf, sizeof(buf)),
                        "OpenAPI-Generator");
    assert_string_equal(gcp_managed_manager(NULL, NULL, buf, sizeof(buf)),
                        "");
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_create),
        cmocka_unit_test(test_apply_sequence),
        cmocka_unit_test(test_update_managers_capped),
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_self_prune),
        cmocka_unit_test(test_manager_name),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
