
/*
 * Unit tests: ResourceQuota (core/types/gcp_type_resourcequota.c), its
 * controller (gcp_ctl_quota.c) and its admission plugin
 * (admission/gcp_quota_admission.c).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>

#include "gcp_client.h"
#include "support_ctl.h"


#define NS       "/api/v1/namespaces/ref-quota"
#define CMS      NS "/configmaps"
#define QUOTAS   NS "/resourcequotas"
#define TABLE    "application/json;as=Table;v=v1;g=meta.k8s.io"


static void
setup_ns(api_env_t *env)
{
    api_resp_free(ctl_req(env, "POST", "/api/v1/namespaces",
                          "{\"metadata\":{\"name\":\"ref-quota\"}}", 201));
}


static void
create_cm(api_env_t *env, const char *name, int status)
{
    char  body[128];

    snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"%s\"}}", name);
    api_resp_free(ctl_req(env, "POST", CMS, body, status));
}


/* Waits until the quota's status.used[name] is value. */
static api_resp_t *
wait_used(api_env_t *env, const char *quota, const char *name,
    const char *value)
{
    int          i;
    char         path[256];
    const char  *v;
    api_resp_t  *r;

    snprintf(path, sizeof(path), QUOTAS "/%s", quota);

    for (i = 0; ; i++) {
        r = ctl_req(env, "GET", path, NULL, 200);
        v = json_string_value(json_object_get(ctl_json(r->json,
                                                       "status.used"),
                                              name));

        if ((v && strcmp(v, value) == 0) || i == 100) {
            return r;
        }

        api_resp_free(r);
        api_spin(env, 20);
    }
}


static const char *
used(const api_resp_t *r, const char *name)
{
    const char  *v;

    v = json_string_value(json_object_get(ctl_json(r->json, "status.used"),
                                          name));

    return v ? v : "";
}


static void
test_reference_flow(void **state)
{
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, 0, NULL, 1);
    setup_ns(env);

    /* kube-root-ca.crt counts, as in the capture */
    api_resp_free(ctl_wait(env, CMS "/kube-root-ca.crt", 200, NULL, NULL,
                           2000));

    r = ctl_req(env, "POST", QUOTAS, "{\"apiVersion\":\"v1\",\"kind\":"
                "\"ResourceQuota\",\"metadata\":{\"name\":\"q\"},\"spec\":"
                "{\"hard\":{\"count/configmaps\":\"2\",\"secrets\":\"5\"}}}",
                201);
    assert_int_equal(json_object_size(ctl_json(r->json, "status")), 0);
    assert_non_null(ctl_json(r->json, "status"));
    api_resp_free(r);

    r = wait_used(env, "q", "count/configmaps", "1");
    assert_string_equal(used(r, "count/configmaps"), "1");
    assert_string_equal(used(r, "secrets"), "0");
    assert_string_equal(json_string_value(json_object_get(
                            ctl_json(r->json, "status.hard"),
                            "count/configmaps")), "2");
    assert_string_equal(json_string_value(json_object_get(
                            ctl_json(r->json, "status.hard"), "secrets")),
                        "5");
    api_resp_free(r);

    create_cm(env, "fits", 201);

    /* charged at admission */
    r = ctl_req(env, "GET", QUOTAS "/q", NULL, 200);
    assert_string_equal(used(r, "count/configmaps"), "2");
    api_resp_free(r);

    r = ctl_req(env, "POST", CMS, "{\"apiVersion\":\"v1\",\"kind\":"
                "\"ConfigMap\",\"metadata\":{\"name\":\"too-many\"}}", 403);
    assert_string_equal(ctl_str(r->json, "message"),
                        "configmaps \"too-many\" is forbidden: exceeded "
                        "quota: q, requested: count/configmaps=1, used: "
                        "count/configmaps=2, limited: count/configmaps=2");
    assert_string_equal(ctl_str(r->json, "reason"), "Forbidden");
    assert_string_equal(ctl_str(r->json, "details.name"), "too-many");
    assert_string_equal(ctl_str(r->json, "details.kind"), "configmaps");
    assert_null(ctl_json(r->json, "details.group"));
    assert_int_equal(json_integer_value(ctl_json(r->json, "code")), 403);
    api_resp_free(r);

    /* dry run: checked, not charged */
    api_resp_free(ctl_req(env, "POST", NS "/secrets?dryRun=All",
                          "{\"metadata\":{\"name\":\"s\"}}", 201));
    r = ctl_req(env, "GET", QUOTAS "/q", NULL, 200);
    assert_string_equal(used(r, "secrets"), "0");
    api_resp_free(r);

    /* a deletion frees quota (the controller recounts) */

    api_resp_free(ctl_req(env, "DELETE", CMS "/fits", NULL, 200));
    r = wait_used(env, "q", "count/configmaps", "1");
    assert_string_equal(used(r, "count/configmaps"), "1");
    api_resp_free(r);

    create_cm(env, "fits-again", 201);

    /* Table: kubectl get quota */

    r = api_call(env, "GET", QUOTAS, NULL, NULL, TABLE);
    assert_int_equal(r->status, 200);
    assert_string_equal(ctl_str(r->json, "columnDefinitions.1.name"),
                        "Request");
    assert_string_equal(ctl_str(r->json, "columnDefinitions.2.name"),
                        "Limit");
    assert_string_equal(ctl_str(r->json, "rows.0.cells.1"),
                        "count/configmaps: 2/2, secrets: 0/5");
    assert_string_equal(ctl_str(r->json, "rows.0.cells.2"), "");
    api_resp_free(r);

    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_spec_changes(void **state)
{
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, GCP_CTL_ROOT_CA, NULL, 1);
    setup_ns(env);

    create_cm(env, "a", 201);
    api_resp_free(ctl_req(env, "POST", NS "/serviceaccounts",
                          "{\"metadata\":{\"name\":\"x\"}}", 201));

    /* canonical quantities; a count of another group; legacy names */

    r = ctl_req(env, "POST", QUOTAS, "{\"metadata\":{\"name\":\"q\"},"
                "\"spec\":{\"hard\":{\"configmaps\":\"1000\","
                "\"count/leases.coordination.k8s.io\":\"3\","
                "\"count/serviceaccounts\":\"10\"}}}", 201);
    assert_string_equal(json_string_value(json_object_get(
                            ctl_json(r->json, "spec.hard"), "configmaps")),
                        "1k");
    api_resp_free(r);

    r = wait_used(env, "q", "count/serviceaccounts", "2");
    assert_string_equal(used(r, "configmaps"), "1");
    assert_string_equal(used(r, "count/leases.coordination.k8s.io"), "0");
    assert_string_equal(used(r, "count/serviceaccounts"), "2");
    api_resp_free(r);

    api_resp_free(ctl_req(env, "POST", "/apis/coordination.k8s.io/v1/"
                          "namespaces/ref-quota/leases",
                          "{\"metadata\":{\"name\":\"l\"}}", 201));
    r = ctl_req(env, "GET", QUOTAS "/q", NULL, 200);
    assert_string_equal(used(r, "count/leases.coordination.k8s.io"), "1");
    api_resp_free(r);

    /* a new limit: status follows */

    api_resp_free(ctl_patch(env, QUOTAS "/q", "{\"spec\":{\"hard\":"
                            "{\"secrets\":\"1\"}}}", 200));
    r = wait_used(env, "q", "secrets", "0");
    assert_string_equal(used(r, "secrets"), "0");
    api_resp_free(r);

    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_status_unknown(void **state)
{
    api_env_t          *env = api_env_create();
    gcp_ctl_manager_t  *m;

    /* no quota controller: nobody computes the usage */

    m = ctl_start(env, GCP_CTL_QUOTA | GCP_CTL_ROOT_CA, NULL, 1);
    setup_ns(env);

    api_resp_free(ctl_req(env, "POST", QUOTAS, "{\"metadata\":{\"name\":"
                          "\"q\"},\"spec\":{\"hard\":{\"configmaps\":"
                          "\"5\"}}}", 201));

    /* status.hard empty: the quota does not restrict yet */
    create_cm(env, "a", 201);

    api_resp_free(ctl_req(env, "PUT", QUOTAS "/q/status",
                          "{\"metadata\":{\"name\":\"q\"},\"status\":"
                          "{\"hard\":{\"configmaps\":\"5\","
                          "\"count/configmaps\":\"5\"}}}", 200));

    ctl_req_msg(env, "POST", CMS, "{\"metadata\":{\"name\":\"b\"}}", 403,
                "configmaps \"b\" is forbidden: status unknown for "
                "quota: q, resources: configmaps,count/configmaps");

    ctl_stop(env, m);
    api_env_destroy(env);
}


typedef struct {
    int  done;
    int  created;
    int  refused;
} burst_t;


static void
burst_done(void *arg, gcp_client_resp_t *resp)
{
    burst_t  *b = arg;

    b->done++;
    b->created += resp->status == 201;
    b->refused += resp->status == 403;
}


static void
test_concurrent_creates(void **state)
{
    int                 i;
    char                body[64];
    burst_t             b;
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_arena_t        *a;
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, GCP_CTL_ROOT_CA, NULL, 1);
    setup_ns(env);

    api_resp_free(ctl_req(env, "POST", QUOTAS, "{\"metadata\":{\"name\":"
                          "\"q\"},\"spec\":{\"hard\":{\"count/configmaps\":"
                          "\"10\"}}}", 201));
    api_resp_free(wait_used(env, "q", "count/configmaps", "0"));

    /* 40 creates in flight at once: their charges race */

    memset(&b, 0, sizeof(b));
    a = gcp_arena_create(0);

    for (i = 0; i < 40; i++) {
        snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"c%d\"}}", i);
        gcp_client_call(api_env_api(env), a, "POST", CMS, NULL,
                        gcp_strdup(a, body), NULL, burst_done, &b);
    }

    for (i = 0; i < 500 && b.done < 40; i++) {
        api_spin(env, 10);
    }

    assert_int_equal(b.done, 40);
    assert_int_equal(b.created, 10);
    assert_int_equal(b.refused, 30);

    r = ctl_req(env, "GET", CMS, NULL, 200);
    assert_int_equal(json_array_size(ctl_json(r->json, "items")), 10);
    api_resp_free(r);

    r = ctl_req(env, "GET", QUOTAS "/q", NULL, 200);
    assert_string_equal(used(r, "count/configmaps"), "10");
    api_resp_free(r);

    gcp_arena_destroy(a);
    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_validation(void **state)
{
    api_env_t   *env = api_env_create();
    api_resp_t  *r;

    setup_ns(env);

    ctl_req_msg(env, "POST", QUOTAS, "{\"metadata\":{\"name\":\"q\"},"
                "\"spec\":{\"hard\":{\"configmaps\":\"-1\","
                "\"foo\":\"1\",\"secrets\":\"1500m\"}}}", 422,
                "ResourceQuota \"q\" is invalid: ["
                "spec.hard[configmaps]: Invalid value: \"-1\": must "
                "be greater than or equal to 0, spec.hard[foo]: "
                "Invalid value: \"foo\": must be a standard "
                "resource type or fully qualified, spec.hard[foo]: "
                "Invalid value: \"foo\": must be a standard "
                "resource for quota, spec.hard[secrets]: Invalid "
                "value: \"1500m\": must be an integer]");

    ctl_req_msg(env, "POST", QUOTAS, "{\"metadata\":{\"name\":\"q\"},"
                "\"spec\":{\"hard\":{\"configmaps\":\"x\"}}}", 400,
                "ResourceQuota in version \"v1\" cannot be handled "
                "as a ResourceQuota: quantities must match the "
                "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*"
                "[-+]?[0-9]*)$'");

    ctl_req_msg(env, "POST", QUOTAS, "{\"metadata\":{\"name\":\"q\"},"
                "\"spec\":{\"hard\":{\"configmaps\":\"1\"},\"scopes\":"
                "[\"Terminating\"]}}", 422,
                "ResourceQuota \"q\" is invalid: spec.scopes: "
                "Invalid value: []core.ResourceQuotaScope"
                "{\"Terminating\"}: unsupported scope applied to "
                "resource");

    /* scopes are immutable */

    api_resp_free(ctl_req(env, "POST", QUOTAS, "{\"metadata\":{\"name\":"
                          "\"p\"},\"spec\":{\"hard\":{\"pods\":\"1\"},"
                          "\"scopes\":[\"BestEffort\"]}}", 201));
    r = ctl_patch(env, QUOTAS "/p", "{\"spec\":{\"scopes\":"
                  "[\"NotBestEffort\"]}}", 422);
    assert_string_equal(ctl_str(r->json, "details.causes.0.message"),
                        "Invalid value: []core.ResourceQuotaScope"
                        "{\"NotBestEffort\"}: field is immutable");
    api_resp_free(r);

    /* users cannot set the status through the main resource */

    r = ctl_patch(env, QUOTAS "/p", "{\"status\":{\"hard\":{\"pods\":"
                  "\"1\"}}}", 200);
    assert_int_equal(json_object_size(ctl_json(r->json, "status")), 0);
    api_resp_free(r);

    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_reference_flow),
        cmocka_unit_test(test_spec_changes),
        cmocka_unit_test(test_status_unknown),
        cmocka_unit_test(test_concurrent_creates),
        cmocka_unit_test(test_validation),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
