
/*
 * Unit tests: the garbage collector (core/controllers/gcp_ctl_gc.c,
 * gcp_ctl_gc_graph.c).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>

#include "support_ctl.h"


#define CMS  "/api/v1/namespaces/default/configmaps"
#define SAS  "/api/v1/namespaces/default/serviceaccounts"


/* Creates a ConfigMap with owners (JSON array text, may be NULL). */
static void
create_cm(api_env_t *env, const char *name, const char *owners,
    char uid[64])
{
    char         body[1024];
    api_resp_t  *r;

    snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"%s\"%s%s}}",
             name, owners ? ",\"ownerReferences\":" : "",
             owners ? owners : "");

    r = ctl_req(env, "POST", CMS, body, 201);

    if (uid) {
        snprintf(uid, 64, "%s", ctl_str(r->json, "metadata.uid"));
    }

    api_resp_free(r);
}


/* One owner reference to ConfigMap name. */
static const char *
ref(char *buf, size_t size, const char *name, const char *uid, int block)
{
    snprintf(buf, size, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
             "\"name\":\"%s\",\"uid\":\"%s\"%s}", name, uid,
             block ? ",\"blockOwnerDeletion\":true" : "");

    return buf;
}


static int
gone(api_env_t *env, const char *name, int ms)
{
    char         path[256];
    api_resp_t  *r;
    int          status;

    snprintf(path, sizeof(path), CMS "/%s", name);

    r = ctl_wait(env, path, 404, NULL, NULL, ms);
    status = r->status;
    api_resp_free(r);

    return status == 404;
}


static json_t *
get_cm(api_env_t *env, const char *name)
{
    char         path[256];
    json_t      *v;
    api_resp_t  *r;

    snprintf(path, sizeof(path), CMS "/%s", name);

    r = ctl_req(env, "GET", path, NULL, 200);
    v = json_incref(r->json);
    api_resp_free(r);

    return v;
}


static void
test_background(void **state)
{
    char                uid[64], r1[256], owners[600];
    api_env_t          *env = api_env_create();
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, 0, NULL, 1);

    create_cm(env, "owner", NULL, uid);
    snprintf(owners, sizeof(owners), "[%s]",
             ref(r1, sizeof(r1), "owner", uid, 0));
    create_cm(env, "dep", owners, NULL);

    /* an object of another resource, owned by the ConfigMap */
    snprintf(owners, sizeof(owners), "{\"metadata\":{\"name\":\"sa\","
             "\"ownerReferences\":[%s]}}", r1);
    api_resp_free(ctl_req(env, "POST", SAS, owners, 201));

    api_spin(env, 200);
    assert_false(gone(env, "dep", 0));

    api_resp_free(ctl_req(env, "DELETE", CMS "/owner", NULL, 200));

    assert_true(gone(env, "dep", 2000));

    api_resp_free(ctl_wait(env, SAS "/sa", 404, NULL, NULL, 2000));
    api_resp_free(ctl_req(env, "GET", SAS "/sa", NULL, 404));

    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_foreground_chain(void **state)
{
    char                a[64], b[64], r1[256], owners[600];
    json_t             *obj;
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, 0, NULL, 1);

    /* a <- b <- c, each blocking its owner; c held by a finalizer */

    create_cm(env, "a", NULL, a);
    snprintf(owners, sizeof(owners), "[%s]", ref(r1, sizeof(r1), "a", a, 1));
    create_cm(env, "b", owners, b);
    snprintf(owners, sizeof(owners), "[%s],\"finalizers\":"
             "[\"example.com/hold\"]", ref(r1, sizeof(r1), "b", b, 1));
    create_cm(env, "c", owners, NULL);

    r = ctl_req(env, "DELETE", CMS "/a?propagationPolicy=Foreground", NULL,
                200);
    assert_string_equal(ctl_str(r->json, "metadata.finalizers.0"),
                        "foregroundDeletion");
    api_resp_free(r);

    /* the chain waits for c: all three are being deleted */

    api_spin(env, 500);

    obj = get_cm(env, "c");
    assert_true(ctl_str(obj, "metadata.deletionTimestamp")[0] != '\0');
    json_decref(obj);

    obj = get_cm(env, "b");
    assert_true(ctl_str(obj, "metadata.deletionTimestamp")[0] != '\0');
    assert_string_equal(ctl_str(obj, "metadata.finalizers.0"),
                        "foregroundDeletion");
    json_decref(obj);

    obj = get_cm(env, "a");
    assert_string_equal(ctl_str(obj, "metadata.finalizers.0"),
                        "foregroundDeletion");
    json_decref(obj);

    /* c's finalizer goes: c, then b, then a */

    api_resp_free(ctl_patch(env, CMS "/c",
                            "{\"metadata\":{\"finalizers\":null}}", 200));

    assert_true(gone(env, "c", 2000));
    assert_true(gone(env, "b", 2000));
    assert_true(gone(env, "a", 2000));

    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_orphan(void **state)
{
    char                uid[64], r1[256], owners[600];
    json_t             *obj;
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, 0, NULL, 1);

    create_cm(env, "owner", NULL, uid);
    create_cm(env, "other", NULL, NULL);

    snprintf(owners, sizeof(owners), "[%s]",
             ref(r1, sizeof(r1), "owner", uid, 1));
    create_cm(env, "dep1", owners, NULL);
    create_cm(env, "dep2", owners, NULL);

    r = ctl_req(env, "DELETE", CMS "/owner?propagationPolicy=Orphan", NULL,
                200);
    assert_string_equal(ctl_str(r->json, "metadata.finalizers.0"), "orphan");
    api_resp_free(r);

    assert_true(gone(env, "owner", 2000));

    obj = get_cm(env, "dep1");
    assert_null(ctl_json(obj, "metadata.ownerReferences"));
    json_decref(obj);

    obj = get_cm(env, "dep2");
    assert_null(ctl_json(obj, "metadata.ownerReferences"));
    json_decref(obj);

    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_cycle(void **state)
{
    char                a[64], b[64], r1[256], body[1024];
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, 0, NULL, 1);

    create_cm(env, "a", NULL, a);
    snprintf(body, sizeof(body), "[%s]", ref(r1, sizeof(r1), "a", a, 1));
    create_cm(env, "b", body, b);

    snprintf(body, sizeof(body), "{\"metadata\":{\"ownerReferences\":[%s]}}",
             ref(r1, sizeof(r1), "b", b, 1));
    api_resp_free(ctl_patch(env, CMS "/a", body, 200));

    r = ctl_req(env, "DELETE", CMS "/a?propagationPolicy=Foreground", NULL,
                200);
    api_resp_free(r);

    assert_true(gone(env, "a", 3000));
    assert_true(gone(env, "b", 3000));

    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_missing_owners(void **state)
{
    char                uid[64], r1[256], r2[256], owners[600];
    json_t             *obj;
    api_env_t          *env = api_env_create();
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, 0, NULL, 1);

    create_cm(env, "real", NULL, uid);

    /* an owner that never existed */

    snprintf(owners, sizeof(owners), "[%s]",
             ref(r1, sizeof(r1), "ghost",
                 "00000000-0000-4000-8000-000000000000", 0));
    create_cm(env, "orphaned", owners, NULL);

    /* the owner's name exists, with another uid: absent too */

    snprintf(owners, sizeof(owners), "[%s]",
             ref(r1, sizeof(r1), "real",
                 "00000000-0000-4000-8000-000000000001", 0));
    create_cm(env, "stale", owners, NULL);

    /* one owner exists: the dangling reference is removed, not it */

    snprintf(owners, sizeof(owners), "[%s,%s]",
             ref(r1, sizeof(r1), "real", uid, 0),
             ref(r2, sizeof(r2), "ghost",
                 "00000000-0000-4000-8000-000000000002", 0));
    create_cm(env, "kept", owners, NULL);

    assert_true(gone(env, "orphaned", 2000));
    assert_true(gone(env, "stale", 2000));

    api_spin(env, 300);

    obj = get_cm(env, "kept");
    assert_int_equal(json_array_size(ctl_json(obj,
                                              "metadata.ownerReferences")),
                     1);
    assert_string_equal(ctl_str(obj, "metadata.ownerReferences.0.uid"), uid);
    json_decref(obj);

    obj = get_cm(env, "real");
    json_decref(obj);

    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_switched_off(void **state)
{
    char                r1[256], owners[600];
    api_env_t          *env = api_env_create();
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, GCP_CTL_GC, NULL, 1);

    snprintf(owners, sizeof(owners), "[%s]",
             ref(r1, sizeof(r1), "ghost",
                 "00000000-0000-4000-8000-000000000000", 0));
    create_cm(env, "orphaned", owners, NULL);

    api_spin(env, 500);
    assert_false(gone(env, "orphaned", 0));

    ctl_stop(env, m);

    /* started again with the collector: it acts on what it finds */

    m = ctl_start(env, 0, NULL, 1);
    assert_true(gone(env, "orphaned", 2000));

    ctl_stop(env, m);
    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_background),
        cmocka_unit_test(test_foreground_chain),
        cmocka_unit_test(test_orphan),
        cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_missing_owners),
        cmocka_unit_test(test_switched_off),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
