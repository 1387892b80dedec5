
/*
 * Unit tests: the namespace controller (core/controllers/gcp_ctl_ns.c).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>

#include "support_ctl.h"


#define NS       "/api/v1/namespaces/doomed"
#define CMS      "/api/v1/namespaces/doomed/configmaps"
#define HOLD     "{\"metadata\":{\"name\":\"held\",\"finalizers\":" \
                 "[\"example.com/hold\"]}}"


static void
create(api_env_t *env, const char *path, const char *body)
{
    api_resp_free(ctl_req(env, "POST", path, body, 201));
}


static const json_t *
condition(const json_t *ns, const char *type)
{
    size_t   i;
    json_t  *c;

    json_array_foreach(ctl_json(ns, "status.conditions"), i, c) {
        if (strcmp(ctl_str(c, "type"), type) == 0) {
            return c;
        }
    }

    fail_msg("no condition %s", type);

    return NULL;
}


static void
assert_condition(const json_t *ns, const char *type, const char *status,
    const char *reason, const char *message)
{
    const json_t  *c;

    c = condition(ns, type);

    assert_string_equal(ctl_str(c, "status"), status);
    assert_string_equal(ctl_str(c, "reason"), reason);
    assert_string_equal(ctl_str(c, "message"), message);
    assert_int_equal(strlen(ctl_str(c, "lastTransitionTime")), 20);
}


static void
test_content_deleted(void **state)
{
    int                 i;
    char                body[128];
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, 0, NULL, 1);

    create(env, "/api/v1/namespaces", "{\"metadata\":{\"name\":\"doomed\"}}");

    for (i = 0; i < 300; i++) {
        snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"cm-%d\"}}",
                 i);
        create(env, CMS, body);
    }

    create(env, "/api/v1/namespaces/doomed/secrets",
           "{\"metadata\":{\"name\":\"s\"}}");
    create(env, "/apis/coordination.k8s.io/v1/namespaces/doomed/leases",
           "{\"metadata\":{\"name\":\"l\"}}");
    create(env, "/api/v1/namespaces/doomed/resourcequotas",
           "{\"metadata\":{\"name\":\"q\"},\"spec\":{\"hard\":"
           "{\"secrets\":\"9\"}}}");
    create(env, "/apis/events.k8s.io/v1/namespaces/doomed/events",
           "{\"metadata\":{\"name\":\"e\"},\"eventTime\":"
           "\"2026-01-01T00:00:00.000000Z\",\"reportingController\":\"x/y\","
           "\"reportingInstance\":\"i\",\"action\":\"A\",\"reason\":\"R\","
           "\"type\":\"Normal\",\"regarding\":{\"kind\":\"ConfigMap\","
           "\"name\":\"cm-0\",\"namespace\":\"doomed\"}}");

    /* delete answers at once, with the namespace Terminating */

    r = ctl_req(env, "DELETE", NS, NULL, 200);
    assert_string_equal(ctl_str(r->json, "status.phase"), "Terminating");
    api_resp_free(r);

    r = ctl_wait(env, NS, 404, NULL, NULL, 5000);
    assert_int_equal(r->status, 404);
    api_resp_free(r);

    r = ctl_req(env, "GET", CMS, NULL, 200);
    assert_int_equal(json_array_size(ctl_json(r->json, "items")), 0);
    api_resp_free(r);

    r = ctl_req(env, "GET", "/api/v1/secrets", NULL, 200);
    assert_int_equal(json_array_size(ctl_json(r->json, "items")), 0);
    api_resp_free(r);

    r = ctl_req(env, "GET", "/api/v1/events", NULL, 200);
    assert_int_equal(json_array_size(ctl_json(r->json, "items")), 0);
    api_resp_free(r);

    r = ctl_req(env, "GET", "/apis/coordination.k8s.io/v1/namespaces/"
                "doomed/leases", NULL, 200);
    assert_int_equal(json_array_size(ctl_json(r->json, "items")), 0);
    api_resp_free(r);

    /* the name can be used again */

    create(env, "/api/v1/namespaces", "{\"metadata\":{\"name\":\"doomed\"}}");

    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_finalizers_hold(void **state)
{
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, GCP_CTL_ROOT_CA | GCP_CTL_SERVICEACCOUNT, NULL, 1);

    create(env, "/api/v1/namespaces", "{\"metadata\":{\"name\":\"doomed\"}}");
    create(env, CMS, HOLD);
    create(env, CMS, "{\"metadata\":{\"name\":\"free\"}}");

    api_resp_free(ctl_req(env, "DELETE", NS, NULL, 200));

    r = ctl_wait(env, CMS "/free", 404, NULL, NULL, 2000);
    assert_int_equal(r->status, 404);
    api_resp_free(r);

    /* held: the conditions say why, as upstream */

    r = ctl_wait(env, NS, 200, "status.conditions.3.status", "True", 2000);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(ctl_json(r->json, "status.conditions")),
                     5);
    assert_string_equal(ctl_str(r->json, "status.conditions.0.type"),
                        "NamespaceDeletionDiscoveryFailure");
    assert_condition(r->json, "NamespaceDeletionDiscoveryFailure", "False",
                     "ResourcesDiscovered",
                     "All resources successfully discovered");
    assert_condition(r->json, "NamespaceDeletionGroupVersionParsingFailure",
                     "False", "ParsedGroupVersions",
                     "All legacy kube types successfully parsed");
    assert_condition(r->json, "NamespaceDeletionContentFailure", "False",
                     "ContentDeleted", "All content successfully deleted, "
                     "may be waiting on finalization");
    assert_condition(r->json, "NamespaceContentRemaining", "True",
                     "SomeResourcesRemain", "Some resources are remaining: "
                     "configmaps. has 1 resource instances");
    assert_condition(r->json, "NamespaceFinalizersRemaining", "True",
                     "SomeFinalizersRemain", "Some content in the namespace "
                     "has finalizers remaining: example.com/hold in 1 "
                     "resource instances");
    assert_string_equal(ctl_str(r->json, "status.phase"), "Terminating");
    assert_string_equal(ctl_str(r->json, "spec.finalizers.0"), "kubernetes");
    api_resp_free(r);

    /* the held object was marked for deletion */

    r = ctl_req(env, "GET", CMS "/held", NULL, 200);
    assert_true(ctl_str(r->json, "metadata.deletionTimestamp")[0] != '\0');
    api_resp_free(r);

    /* the finalizer goes: so do the object and the namespace */

    api_resp_free(ctl_patch(env, CMS "/held",
                            "{\"metadata\":{\"finalizers\":null}}", 200));

    r = ctl_wait(env, NS, 404, NULL, NULL, 3000);
    assert_int_equal(r->status, 404);
    api_resp_free(r);

    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_other_spec_finalizer(void **state)
{
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_ctl_manager_t  *m;

    m = ctl_start(env, 0, NULL, 1);

    create(env, "/api/v1/namespaces", "{\"metadata\":{\"name\":\"doomed\"},"
           "\"spec\":{\"finalizers\":[\"example.com/hold\"]}}");
    create(env, CMS, "{\"metadata\":{\"name\":\"a\"}}");

    api_resp_free(ctl_req(env, "DELETE", NS, NULL, 200));

    /* the controller removes its own finalizer only */

    r = ctl_wait(env, NS, 200, "spec.finalizers.1", "", 3000);
    assert_string_equal(ctl_str(r->json, "spec.finalizers.0"),
                        "example.com/hold");
    assert_int_equal(json_array_size(ctl_json(r->json, "spec.finalizers")),
                     1);
    assert_string_equal(ctl_str(r->json, "status.phase"), "Terminating");
    assert_condition(r->json, "NamespaceContentRemaining", "False",
                     "ContentRemoved", "All content successfully removed");
    assert_condition(r->json, "NamespaceFinalizersRemaining", "False",
                     "ContentHasNoFinalizers",
                     "All content-preserving finalizers finished");
    api_resp_free(r);

    r = ctl_req(env, "GET", CMS, NULL, 200);
    assert_int_equal(json_array_size(ctl_json(r->json, "items")), 0);
    api_resp_free(r);

    ctl_stop(env, m);
    api_env_destroy(env);
}


static void
test_resumes_after_restart(void **state)
{
    int                 i;
    char                body[128];
    api_env_t          *env = api_env_create();
    api_resp_t         *r;
    gcp_ctl_manager_t  *m;

    /*
     * deleted while no controller runs: nothing happens.  (More objects
     * than one page of the controllers' first list.)
     */

    create(env, "/api/v1/namespaces", "{\"metadata\":{\"name\":\"doomed\"}}");

    for (i = 0; i < 600; i++) {
        snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"cm-%d\"}}",
                 i);
        create(env, CMS, body);
    }

    api_resp_free(ctl_req(env, "DELETE", NS, NULL, 200));

    api_spin(env, 200);
    r = ctl_req(env, "GET", NS, NULL, 200);
    api_resp_free(r);

    /* controllers started (a restart): the deletion completes */

    m = ctl_start(env, 0, NULL, 1);

    r = ctl_wait(env, NS, 404, NULL, NULL, 3000);
    assert_int_equal(r->status, 404);
    api_resp_free(r);

    ctl_stop(env, m);
    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_content_deleted),
        cmocka_unit_test(test_finalizers_hold),
        cmocka_unit_test(test_other_spec_finalizer),
        cmocka_unit_test(test_resumes_after_restart),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
