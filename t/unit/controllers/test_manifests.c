
/*
 * Unit tests: bootstrap manifests (core/controllers/gcp_manifests.c)
 * applied through the in-process client of an API core on LMDB.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "gcp_manifests.h"
#include "support_api.h"


#define CM  "/api/v1/namespaces/default/configmaps/"


typedef struct {
    char    log[8192];
    int     errors;
} report_t;


static void
reported(void *arg, int error, const char *msg)
{
    report_t  *r = arg;
    size_t     n = strlen(r->log);

    r->errors += error;
    snprintf(r->log + n, sizeof(r->log) - n, "%s\n", msg);
}


/* Applies one file and runs the loop until nothing is pending. */
static void
apply(api_env_t *env, const char *text, report_t *r)
{
    int                   i;
    gcp_manifests_t      *m;
    gcp_manifest_file_t   f;

    memset(r, 0, sizeof(*r));
    f.name = "m.yaml";
    f.data = text;
    f.len = strlen(text);

    m = gcp_manifests_start(api_env_api(env), &f, 1, reported, r);
    assert_non_null(m);

    for (i = 0; i < 400 && gcp_manifests_pending(m) > 0; i++) {
        api_spin(env, 5);
    }

    assert_int_equal(gcp_manifests_pending(m), 0);
    gcp_manifests_stop(m);
}


/* Returns the object's resourceVersion, "" when absent (static buffer). */
static const char *
rv_of(api_env_t *env, const char *path)
{
    static char   rv[32];
    const char   *s;
    api_resp_t   *resp;

    resp = api_call(env, "GET", path, NULL, NULL, NULL);
    s = resp->status == 200
        ? api_str(resp->json, "metadata", "resourceVersion", NULL) : "";
    snprintf(rv, sizeof(rv), "%s", s ? s : "");
    api_resp_free(resp);

    return rv;
}


static const char *
data_of(api_env_t *env, const char *path, const char *key)
{
    static char   v[64];
    const char   *s;
    api_resp_t   *resp;

    resp = api_call(env, "GET", path, NULL, NULL, NULL);
    s = resp->status == 200 ? api_str(resp->json, "data", key, NULL) : NULL;
    snprintf(v, sizeof(v), "%s", s ? s : "(none)");
    api_resp_free(resp);

    return v;
}


static const char  first[] =
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
    "data: {k: one}\n"
    "---\n"
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"
    "data: {k: same}\n"
    "---\n"
    "kind: ConfigMap\nmetadata: {name: broken}\n"
    "---\n"
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: mine}\n"
    "data: {k: manifest}\n";


static void
test_create_update_leave_alone(void **state)
{
    char         rv_b[32];
    report_t     r;
    api_env_t   *env = api_env_create();
    api_resp_t  *resp;

    /* a user's object of the same name exists before */
    resp = api_call(env, "POST", "/api/v1/namespaces/default/configmaps",
                    "application/json",
                    "{\"metadata\":{\"name\":\"mine\"},"
                    "\"data\":{\"k\":\"user\"}}", NULL);
    assert_int_equal(resp->status, 201);
    api_resp_free(resp);

    apply(env, first, &r);

    assert_string_equal(data_of(env, CM "a", "k"), "one");
    assert_string_equal(data_of(env, CM "b", "k"), "same");
    assert_string_equal(data_of(env, CM "mine", "k"), "user");
    assert_int_equal(r.errors, 1);
    assert_non_null(strstr(r.log, "m.yaml: document 3 (line 11): "));
    assert_non_null(strstr(r.log, "'apiVersion' is missing"));
    assert_non_null(strstr(r.log, "not made from manifests"));

    resp = api_call(env, "GET", CM "a", NULL, NULL, NULL);
    assert_int_equal(strlen(api_str(resp->json, "metadata", "annotations",
                                    GCP_MANIFESTS_DIGEST, NULL)), 64);
    api_resp_free(resp);

    snprintf(rv_b, sizeof(rv_b), "%s", rv_of(env, CM "b"));

    /* a's manifest changes: replaced; b's does not: not written again */
    {
        char  changed[sizeof(first)];

        memcpy(changed, first, sizeof(first));
        memcpy(strstr(changed, "{k: one}"), "{k: two}", 8);

        apply(env, changed, &r);
    }

    assert_string_equal(data_of(env, CM "a", "k"), "two");
    assert_string_equal(rv_of(env, CM "b"), rv_b);
    assert_string_equal(data_of(env, CM "mine", "k"), "user");

    api_env_destroy(env);
}


static void
test_waits_for_namespace(void **state)
{
    int                   i;
    report_t              r;
    api_env_t            *env = api_env_create();
    api_resp_t           *resp;
    gcp_manifests_t      *m;
    gcp_manifest_file_t   f;

    static const char  text[] =
        "apiVersion: v1\nkind: ConfigMap\n"
        "metadata: {name: later, namespace: team}\ndata: {k: v}\n";

    memset(&r, 0, sizeof(r));
    f.name = "w.yaml";
    f.data = text;
    f.len = sizeof(text) - 1;

    m = gcp_manifests_start(api_env_api(env), &f, 1, reported, &r);
    assert_non_null(m);

    api_spin(env, 300);
    assert_int_equal(gcp_manifests_pending(m), 1);
    assert_string_equal(
        rv_of(env, "/api/v1/namespaces/team/configmaps/later"), "");

    resp = api_call(env, "POST", "/api/v1/namespaces", "application/json",
                    "{\"metadata\":{\"name\":\"team\"}}", NULL);
    assert_int_equal(resp->status, 201);
    api_resp_free(resp);

    for (i = 0; i < 2000 && gcp_manifests_pending(m) > 0; i++) {
        api_spin(env, 5);
    }

    assert_int_equal(gcp_manifests_pending(m), 0);
    assert_string_equal(
        data_of(env, "/api/v1/namespaces/team/configmaps/later", "k"), "v");
    assert_int_equal(r.errors, 0);

    gcp_manifests_stop(m);
    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_create_update_leave_alone),
        cmocka_unit_test(test_waits_for_namespace),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
