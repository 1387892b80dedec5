
/*
 * Unit tests: the authorization.k8s.io/v1 review APIs
 * (core/authz/gcp_type_accessreview.c, gcp_type_selfsubjectrulesreview.c):
 * answers and errors as ../shared/reference/08-ss*, 08-sar-*.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_op.h"
#include "support_rbac.h"


#define AUTHZ  "/apis/authorization.k8s.io/v1"
#define SSAR   AUTHZ "/selfsubjectaccessreviews"
#define SAR    AUTHZ "/subjectaccessreviews"
#define SSRR   AUTHZ "/selfsubjectrulesreviews"
#define LSAR   AUTHZ "/namespaces/ref-auth/localsubjectaccessreviews"


static void
assert_json(const json_t *v, const char *expected)
{
    char  *s;

    s = json_dumps(v, JSON_COMPACT);
    assert_non_null(s);
    assert_string_equal(s, expected);
    free(s);
}


static api_env_t *
env_ref_auth(void)
{
    api_env_t  *env;

    env = rbac_env(NULL);

    assert_int_equal(rbac_status(env, &rbac_admin, "POST",
                                 "/api/v1/namespaces",
                                 "{\"metadata\":{\"name\":\"ref-auth\"}}"),
                     201);

    return env;
}


static void
test_ssar(void **state)
{
    api_env_t   *env;
    api_resp_t  *r;

    env = env_ref_auth();

    /* 08-ssar-allowed.http: no reason for system:masters */

    r = rbac_call(env, &rbac_admin, "POST", SSAR,
                  "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":"
                  "\"SelfSubjectAccessReview\",\"spec\":"
                  "{\"resourceAttributes\":{\"namespace\":\"ref-auth\","
                  "\"verb\":\"create\",\"resource\":\"configmaps\"}}}");
    assert_int_equal(r->status, 201);
    assert_json(r->json,
                "{\"kind\":\"SelfSubjectAccessReview\",\"apiVersion\":"
                "\"authorization.k8s.io/v1\",\"metadata\":"
                "{\"creationTimestamp\":null},\"spec\":"
                "{\"resourceAttributes\":{\"namespace\":\"ref-auth\","
                "\"verb\":\"create\",\"resource\":\"configmaps\"}},"
                "\"status\":{\"allowed\":true}}");
    api_resp_free(r);

    /* 08-ssar-denied.http */

    r = rbac_call(env, &rbac_anchor, "POST", SSAR,
                  "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":"
                  "\"SelfSubjectAccessReview\",\"spec\":"
                  "{\"resourceAttributes\":{\"namespace\":\"ref-auth\","
                  "\"verb\":\"create\",\"resource\":\"configmaps\"}}}");
    assert_int_equal(r->status, 201);
    assert_json(json_object_get(r->json, "status"), "{\"allowed\":false}");
    api_resp_free(r);

    /* 08-ssar-nonresource.http: the reason names the binding (the first
       in name order here: system:discovery also grants /healthz) */

    r = rbac_call(env, &rbac_anchor, "POST", SSAR,
                  "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":"
                  "\"SelfSubjectAccessReview\",\"spec\":"
                  "{\"nonResourceAttributes\":{\"path\":\"/healthz\","
                  "\"verb\":\"get\"}}}");
    assert_int_equal(r->status, 201);
    assert_json(json_object_get(r->json, "status"),
                "{\"allowed\":true,\"reason\":\"RBAC: allowed by "
                "ClusterRoleBinding \\\"system:discovery\\\" of ClusterRole "
                "\\\"system:discovery\\\" to Group "
                "\\\"system:authenticated\\\"\"}");
    api_resp_free(r);

    /* a RoleBinding's reason: name/namespace, ServiceAccount subjects */

    assert_int_equal(rbac_status(env, &rbac_admin, "POST",
                                 "/apis/rbac.authorization.k8s.io/v1/"
                                 "clusterroles",
                                 "{\"metadata\":{\"name\":\"ns-status\"},"
                                 "\"rules\":[{\"verbs\":[\"get\"],"
                                 "\"apiGroups\":[\"\"],\"resources\":"
                                 "[\"namespaces/status\"]}]}"), 201);
    assert_int_equal(rbac_status(env, &rbac_admin, "POST",
                                 "/apis/rbac.authorization.k8s.io/v1/"
                                 "namespaces/ref-auth/rolebindings",
                                 "{\"metadata\":{\"name\":\"sa-view\"},"
                                 "\"roleRef\":{\"kind\":\"ClusterRole\","
                                 "\"name\":\"ns-status\"},\"subjects\":"
                                 "[{\"kind\":\"ServiceAccount\",\"name\":"
                                 "\"ref-sa\"}]}"), 201);

    r = rbac_call(env, rbac_user("system:serviceaccount:ref-auth:ref-sa",
                                 "system:serviceaccounts",
                                 "system:serviceaccounts:ref-auth",
                                 "system:authenticated", NULL),
                  "POST", SSAR,
                  "{\"spec\":{\"resourceAttributes\":{\"namespace\":"
                  "\"ref-auth\",\"verb\":\"get\",\"resource\":"
                  "\"namespaces\",\"subresource\":\"status\","
                  "\"name\":\"ref-auth\"}}}");
    assert_int_equal(r->status, 201);
    assert_json(json_object_get(r->json, "status"),
                "{\"allowed\":true,\"reason\":\"RBAC: allowed by "
                "RoleBinding \\\"sa-view/ref-auth\\\" of ClusterRole "
                "\\\"ns-status\\\" to ServiceAccount "
                "\\\"ref-sa/ref-auth\\\"\"}");
    api_resp_free(r);

    /* 08-ssar-invalid.http */

    r = rbac_call(env, &rbac_anchor, "POST", SSAR,
                  "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":"
                  "\"SelfSubjectAccessReview\",\"spec\":{}}");
    assert_int_equal(r->status, 422);
    assert_json(r->json,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                "\"status\":\"Failure\",\"message\":\".authorization.k8s.io "
                "\\\"\\\" is invalid: spec.resourceAttributes: Invalid "
                "value: \\\"null\\\": exactly one of nonResourceAttributes "
                "or resourceAttributes must be specified\",\"reason\":"
                "\"Invalid\",\"details\":{\"group\":\"authorization.k8s.io\","
                "\"causes\":[{\"reason\":\"FieldValueInvalid\",\"message\":"
                "\"Invalid value: \\\"null\\\": exactly one of "
                "nonResourceAttributes or resourceAttributes must be "
                "specified\",\"field\":\"spec.resourceAttributes\"}]},"
                "\"code\":422}");
    api_resp_free(r);

    /* both kinds of attributes, selectors, metadata */

    r = rbac_call(env, &rbac_anchor, "POST", SSAR,
                  "{\"metadata\":{\"name\":\"x\"},\"spec\":"
                  "{\"resourceAttributes\":{\"verb\":\"list\",\"resource\":"
                  "\"pods\",\"fieldSelector\":{},\"labelSelector\":"
                  "{\"rawSelector\":\"a=b\",\"requirements\":[{\"key\":\"a\","
                  "\"operator\":\"In\"}]}},\"nonResourceAttributes\":"
                  "{\"path\":\"/x\",\"verb\":\"get\"}}}");
    assert_int_equal(r->status, 422);
    assert_string_equal(api_str(r->json, "message", NULL),
                        ".authorization.k8s.io \"\" is invalid: "
                        "[spec.nonResourceAttributes: Invalid value: "
                        "authorization.NonResourceAttributes{Path:\"/x\", "
                        "Verb:\"get\"}: cannot be specified in combination "
                        "with resourceAttributes, "
                        "spec.resourceAttributes.fieldSelector.requirements: "
                        "Required value: when spec.resourceAttributes."
                        "fieldSelector is specified, requirements or "
                        "rawSelector is required, spec.resourceAttributes."
                        "labelSelector.rawSelector: Invalid value: \"a=b\": "
                        "may not specified at the same time as requirements, "
                        "spec.resourceAttributes.labelSelector."
                        "requirements[0].values: Required value: must be "
                        "specified when `operator` is 'In' or 'NotIn', "
                        "metadata: Invalid value: v1.ObjectMeta{Name:\"x\", "
                        "GenerateName:\"\", Namespace:\"\", SelfLink:\"\", "
                        "UID:\"\", ResourceVersion:\"\", Generation:0, "
                        "CreationTimestamp:v1.Time{Time:time.Date(1, "
                        "time.January, 1, 0, 0, 0, 0, time.UTC)}, "
                        "DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:"
                        "(*int64)(nil), Labels:map[string]string(nil), "
                        "Annotations:map[string]string(nil), "
                        "OwnerReferences:[]v1.OwnerReference(nil), "
                        "Finalizers:[]string(nil), "
                        "ManagedFields:[]v1.ManagedFieldsEntry(nil)}: must "
                        "be empty]");
    api_resp_free(r);

    /* without credentials: system:anonymous, who may not ask */

    r = api_call(env, "POST", SSAR, "application/json",
                 "{\"spec\":{\"nonResourceAttributes\":{\"path\":\"/\"}}}",
                 NULL);
    assert_int_equal(r->status, 403);
    api_resp_free(r);

    api_env_destroy(env);
}


static void
test_sar(void **state)
{
    api_env_t   *env;
    api_resp_t  *r;

    env = env_ref_auth();

    /* 08-sar-by-admin.http */

    r = rbac_call(env, &rbac_admin, "POST", SAR,
                  "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":"
                  "\"SubjectAccessReview\",\"spec\":{\"user\":\"anchor-user\","
                  "\"groups\":[\"system:authenticated\"],"
                  "\"resourceAttributes\":{\"namespace\":\"ref-auth\","
                  "\"verb\":\"get\",\"resource\":\"secrets\"}}}");
    assert_int_equal(r->status, 201);
    assert_json(r->json,
                "{\"kind\":\"SubjectAccessReview\",\"apiVersion\":"
                "\"authorization.k8s.io/v1\",\"metadata\":"
                "{\"creationTimestamp\":null},\"spec\":"
                "{\"resourceAttributes\":{\"namespace\":\"ref-auth\","
                "\"verb\":\"get\",\"resource\":\"secrets\"},\"user\":"
                "\"anchor-user\",\"groups\":[\"system:authenticated\"]},"
                "\"status\":{\"allowed\":false}}");
    api_resp_free(r);

    /* the subject's groups decide: system:masters */

    r = rbac_call(env, &rbac_admin, "POST", SAR,
                  "{\"spec\":{\"user\":\"someone\",\"groups\":"
                  "[\"system:masters\"],\"extra\":{\"scopes\":[\"a\"]},"
                  "\"uid\":\"u1\",\"nonResourceAttributes\":{\"path\":"
                  "\"/metrics\",\"verb\":\"get\"}}}");
    assert_int_equal(r->status, 201);
    assert_json(json_object_get(r->json, "status"), "{\"allowed\":true}");
    api_resp_free(r);

    /* 08-sar-denied-for-user.http */

    r = rbac_call(env, &rbac_anchor, "POST", SAR,
                  "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":"
                  "\"SubjectAccessReview\",\"spec\":{\"user\":\"x\","
                  "\"resourceAttributes\":{\"verb\":\"get\",\"resource\":"
                  "\"secrets\"}}}");
    assert_int_equal(r->status, 403);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "subjectaccessreviews.authorization.k8s.io is "
                        "forbidden: User \"anchor-user\" cannot create "
                        "resource \"subjectaccessreviews\" in API group "
                        "\"authorization.k8s.io\" at the cluster scope");
    api_resp_free(r);

    /* no subject */

    r = rbac_call(env, &rbac_admin, "POST", SAR,
                  "{\"spec\":{\"resourceAttributes\":{\"verb\":\"get\"}}}");
    assert_int_equal(r->status, 422);
    assert_string_equal(api_str(r->json, "message", NULL),
                        ".authorization.k8s.io \"\" is invalid: spec.user: "
                        "Invalid value: \"\": at least one of user or group "
                        "must be specified");
    api_resp_free(r);

    /* LocalSubjectAccessReview: the URL's namespace */

    r = rbac_call(env, &rbac_admin, "POST", LSAR,
                  "{\"spec\":{\"user\":\"anchor-user\",\"resourceAttributes\":"
                  "{\"namespace\":\"ref-auth\",\"verb\":\"list\","
                  "\"resource\":\"configmaps\"}}}");
    assert_int_equal(r->status, 201);
    assert_json(r->json,
                "{\"kind\":\"LocalSubjectAccessReview\",\"apiVersion\":"
                "\"authorization.k8s.io/v1\",\"metadata\":{\"namespace\":"
                "\"ref-auth\",\"creationTimestamp\":null},\"spec\":"
                "{\"resourceAttributes\":{\"namespace\":\"ref-auth\","
                "\"verb\":\"list\",\"resource\":\"configmaps\"},\"user\":"
                "\"anchor-user\"},\"status\":{\"allowed\":false}}");
    api_resp_free(r);

    r = rbac_call(env, &rbac_admin, "POST", LSAR,
                  "{\"spec\":{\"user\":\"anchor-user\",\"resourceAttributes\":"
                  "{\"namespace\":\"other\",\"verb\":\"list\"},"
                  "\"nonResourceAttributes\":{\"path\":\"/x\"}}}");
    assert_int_equal(r->status, 422);
    assert_string_equal(api_str(r->json, "message", NULL),
                        ".authorization.k8s.io \"\" is invalid: "
                        "[spec.nonResourceAttributes: Invalid value: "
                        "authorization.NonResourceAttributes{Path:\"/x\", "
                        "Verb:\"\"}: cannot be specified in combination with "
                        "resourceAttributes, "
                        "spec.resourceAttributes.namespace: Invalid value: "
                        "\"other\": must match metadata.namespace, "
                        "spec.nonResourceAttributes: Invalid value: "
                        "authorization.NonResourceAttributes{Path:\"/x\", "
                        "Verb:\"\"}: disallowed on this kind of request]");
    api_resp_free(r);

    r = rbac_call(env, &rbac_admin, "POST", LSAR,
                  "{\"metadata\":{\"namespace\":\"default\"},\"spec\":"
                  "{\"user\":\"u\",\"resourceAttributes\":{}}}");
    assert_int_equal(r->status, 400);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "the namespace of the provided object does not "
                        "match the namespace sent on the request");
    api_resp_free(r);

    api_env_destroy(env);
}


static void
test_ssrr(void **state)
{
    api_env_t   *env;
    api_resp_t  *r;

    env = env_ref_auth();

    /* 08-ssrr-user.http (bindings in name order here) */

    r = rbac_call(env, &rbac_anchor, "POST", SSRR,
                  "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":"
                  "\"SelfSubjectRulesReview\",\"spec\":{\"namespace\":"
                  "\"ref-auth\"}}");
    assert_int_equal(r->status, 201);
    assert_json(r->json,
                "{\"kind\":\"SelfSubjectRulesReview\",\"apiVersion\":"
                "\"authorization.k8s.io/v1\",\"metadata\":"
                "{\"creationTimestamp\":null},\"spec\":{},\"status\":"
                "{\"resourceRules\":[{\"verbs\":[\"create\"],\"apiGroups\":"
                "[\"authorization.k8s.io\"],\"resources\":"
                "[\"selfsubjectaccessreviews\",\"selfsubjectrulesreviews\"]},"
                "{\"verbs\":[\"create\"],\"apiGroups\":"
                "[\"authentication.k8s.io\"],\"resources\":"
                "[\"selfsubjectreviews\"]}],\"nonResourceRules\":"
                "[{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/api\","
                "\"/api/*\",\"/apis\",\"/apis/*\",\"/healthz\",\"/livez\","
                "\"/openapi\",\"/openapi/*\",\"/readyz\",\"/version\","
                "\"/version/\"]},{\"verbs\":[\"get\"],\"nonResourceURLs\":"
                "[\"/healthz\",\"/livez\",\"/readyz\",\"/version\","
                "\"/version/\"]}],\"incomplete\":false}}");
    api_resp_free(r);

    /* 08-ssrr-admin.http: cluster-admin's wildcards too */

    r = rbac_call(env, &rbac_admin, "POST", SSRR,
                  "{\"spec\":{\"namespace\":\"ref-auth\"}}");
    assert_int_equal(r->status, 201);
    assert_json(json_object_get(json_object_get(r->json, "status"),
                                "resourceRules"),
                "[{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":"
                "[\"*\"]},{\"verbs\":[\"create\"],\"apiGroups\":"
                "[\"authorization.k8s.io\"],\"resources\":"
                "[\"selfsubjectaccessreviews\",\"selfsubjectrulesreviews\"]},"
                "{\"verbs\":[\"create\"],\"apiGroups\":"
                "[\"authentication.k8s.io\"],\"resources\":"
                "[\"selfsubjectreviews\"]}]");
    api_resp_free(r);

    /* namespaced rules and resolution errors */

    assert_int_equal(rbac_status(env, &rbac_admin, "POST",
                                 "/apis/rbac.authorization.k8s.io/v1/"
                                 "namespaces/ref-auth/rolebindings",
                                 "{\"metadata\":{\"name\":\"dangling\"},"
                                 "\"roleRef\":{\"kind\":\"Role\",\"name\":"
                                 "\"gone\"},\"subjects\":[{\"kind\":\"User\","
                                 "\"name\":\"anchor-user\"}]}"), 201);

    r = rbac_call(env, &rbac_anchor, "POST", SSRR,
                  "{\"spec\":{\"namespace\":\"ref-auth\"}}");
    assert_int_equal(r->status, 201);
    assert_string_equal(api_str(r->json, "status", "evaluationError", NULL),
                        "role.rbac.authorization.k8s.io \"gone\" not found");
    api_resp_free(r);

    /* the namespace is required */

    r = rbac_call(env, &rbac_anchor, "POST", SSRR, "{\"spec\":{}}");
    assert_int_equal(r->status, 400);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "no namespace on request");
    api_resp_free(r);

    /* anonymous: no resource rule at all */

    r = rbac_call(env, &rbac_anonymous, "POST", SSRR,
                  "{\"spec\":{\"namespace\":\"ref-auth\"}}");
    assert_int_equal(r->status, 403);
    api_resp_free(r);

    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_ssar),
        cmocka_unit_test(test_sar),
        cmocka_unit_test(test_ssrr),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
