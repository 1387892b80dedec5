
/*
 * Unit tests: the rbac.authorization.k8s.io/v1 resources through the API
 * core: the bootstrap policy, create/update with kube-apiserver's
 * validation messages (../shared/reference/10-*), binding defaults,
 * Tables, discovery, and protobuf.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>

#include "gcp_op.h"
#include "gcp_protobuf.h"
#include "support_rbac.h"


#define RBAC   "/apis/rbac.authorization.k8s.io/v1"
#define NSRB   RBAC "/namespaces/ref-rbac"
#define PB     "application/vnd.kubernetes.protobuf"
#define TABLE  "application/json;as=Table;v=v1;g=meta.k8s.io"


static api_env_t *
env_with_ns(void)
{
    api_env_t  *env;

    env = rbac_env(NULL);

    assert_int_equal(rbac_status(env, &rbac_admin, "POST", "/api/v1/namespaces",
                                 "{\"metadata\":{\"name\":\"ref-rbac\"}}"),
                     201);

    return env;
}


static char *
dump(const json_t *v)
{
    return json_dumps(v, JSON_COMPACT);
}


static void
assert_json(const json_t *v, const char *expected)
{
    char  *s;

    s = dump(v);
    assert_non_null(s);
    assert_string_equal(s, expected);
    free(s);
}


static void
test_bootstrap_policy(void **state)
{
    size_t       i;
    json_t      *items, *it;
    api_env_t   *env;
    api_resp_t  *r;
    int          seen;

    env = rbac_env(NULL);

    r = rbac_call(env, &rbac_admin, "GET", RBAC "/clusterroles/cluster-admin",
                  NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "metadata", "labels",
                                "kubernetes.io/bootstrapping", NULL),
                        "rbac-defaults");
    assert_string_equal(api_str(r->json, "metadata", "annotations",
                                "rbac.authorization.kubernetes.io/"
                                "autoupdate", NULL), "true");
    assert_json(json_object_get(r->json, "rules"),
                "[{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],"
                "\"resources\":[\"*\"]},{\"verbs\":[\"*\"],"
                "\"nonResourceURLs\":[\"*\"]}]");
    api_resp_free(r);

    r = rbac_call(env, &rbac_admin, "GET",
                  RBAC "/clusterrolebindings/system:public-info-viewer",
                  NULL);
    assert_int_equal(r->status, 200);
    assert_json(json_object_get(r->json, "subjects"),
                "[{\"kind\":\"Group\",\"apiGroup\":"
                "\"rbac.authorization.k8s.io\",\"name\":"
                "\"system:authenticated\"},{\"kind\":\"Group\",\"apiGroup\":"
                "\"rbac.authorization.k8s.io\",\"name\":"
                "\"system:unauthenticated\"}]");
    assert_json(json_object_get(r->json, "roleRef"),
                "{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":"
                "\"ClusterRole\",\"name\":\"system:public-info-viewer\"}");
    api_resp_free(r);

    r = rbac_call(env, &rbac_admin, "GET", RBAC "/clusterrolebindings",
                  NULL);
    assert_int_equal(r->status, 200);
    items = json_object_get(r->json, "items");
    /* cluster-admin, system:basic-user, system:discovery, */
    /* system:public-info-viewer, system:service-account-issuer-discovery, */
    /* system:monitoring */
    assert_int_equal(json_array_size(items), 6);
    assert_string_equal(api_str(json_array_get(items, 0), "metadata", "name",
                                NULL), "cluster-admin");
    api_resp_free(r);

    r = rbac_call(env, &rbac_admin, "GET", RBAC "/clusterroles", NULL);
    assert_int_equal(r->status, 200);
    items = json_object_get(r->json, "items");
    /* the six bound above, admin, edit, view, the three */
    /* system:aggregate-to-*, system:auth-delegator */
    assert_int_equal(json_array_size(items), 13);

    seen = 0;

    json_array_foreach(items, i, it) {
        seen += strcmp(api_str(it, "metadata", "name", NULL),
                       "system:aggregate-to-view") == 0;
        seen += strcmp(api_str(it, "metadata", "name", NULL),
                       "system:monitoring") == 0;
    }

    assert_int_equal(seen, 2);
    api_resp_free(r);

    /* a second bootstrap keeps what exists */

    api_env_destroy(env);
}


static void
test_create_and_validate(void **state)
{
    api_env_t   *env;
    api_resp_t  *r;

    env = env_with_ns();

    /* 10-clusterrole-create.http */

    r = rbac_call(env, &rbac_admin, "POST", RBAC "/clusterroles",
                  "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\","
                  "\"kind\":\"ClusterRole\",\"metadata\":{\"name\":"
                  "\"ref-configmap-reader\",\"labels\":{\"ref.example.com/"
                  "aggregate-to-ref\":\"true\"}},\"rules\":[{\"apiGroups\":"
                  "[\"\"],\"resources\":[\"configmaps\"],\"verbs\":[\"get\","
                  "\"list\",\"watch\"]},{\"nonResourceURLs\":[\"/ref-path\"],"
                  "\"verbs\":[\"get\"]}]}");
    assert_int_equal(r->status, 201);
    assert_json(json_object_get(r->json, "rules"),
                "[{\"verbs\":[\"get\",\"list\",\"watch\"],\"apiGroups\":"
                "[\"\"],\"resources\":[\"configmaps\"]},{\"verbs\":"
                "[\"get\"],\"nonResourceURLs\":[\"/ref-path\"]}]");
    api_resp_free(r);

    /* 10-clusterrole-aggregated-create.http: rules null */

    r = rbac_call(env, &rbac_admin, "POST", RBAC "/clusterroles",
                  "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\","
                  "\"kind\":\"ClusterRole\",\"metadata\":{\"name\":"
                  "\"ref-aggregate\"},\"aggregationRule\":"
                  "{\"clusterRoleSelectors\":[{\"matchLabels\":"
                  "{\"ref.example.com/aggregate-to-ref\":\"true\"}}]}}");
    assert_int_equal(r->status, 201);
    assert_true(json_is_null(json_object_get(r->json, "rules")));
    api_resp_free(r);

    /* 10-clusterrole-create-invalid.http */

    r = rbac_call(env, &rbac_admin, "POST", RBAC "/clusterroles",
                  "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\","
                  "\"kind\":\"ClusterRole\",\"metadata\":{\"name\":"
                  "\"ref-invalid\"},\"rules\":[{\"apiGroups\":[\"\"],"
                  "\"resources\":[\"configmaps\"]}]}");
    assert_int_equal(r->status, 422);
    assert_json(r->json,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                "\"status\":\"Failure\",\"message\":\"ClusterRole.rbac."
                "authorization.k8s.io \\\"ref-invalid\\\" is invalid: "
                "rules[0].verbs: Required value: verbs must contain at "
                "least one value\",\"reason\":\"Invalid\",\"details\":"
                "{\"name\":\"ref-invalid\",\"group\":\"rbac.authorization."
                "k8s.io\",\"kind\":\"ClusterRole\",\"causes\":[{\"reason\":"
                "\"FieldValueRequired\",\"message\":\"Required value: verbs "
                "must contain at least one value\",\"field\":\"rules[0]."
                "verbs\"}]},\"code\":422}");
    api_resp_free(r);

    /* a namespaced Role may not name URLs; an empty aggregationRule */

    r = rbac_call(env, &rbac_admin, "POST", NSRB "/roles",
                  "{\"metadata\":{\"name\":\"bad\"},\"rules\":[{\"verbs\":"
                  "[\"get\"],\"nonResourceURLs\":[\"/x\"],\"apiGroups\":"
                  "[\"\"]},{\"verbs\":[\"get\"]}]}");
    assert_int_equal(r->status, 422);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "Role.rbac.authorization.k8s.io \"bad\" is invalid: "
                        "[rules[0].nonResourceURLs: Invalid value: "
                        "[]string{\"/x\"}: namespaced rules cannot apply to "
                        "non-resource URLs, rules[0].nonResourceURLs: Invalid "
                        "value: []string{\"/x\"}: rules cannot apply to both "
                        "regular resources and non-resource URLs, "
                        "rules[1].apiGroups: Required value: resource rules "
                        "must supply at least one api group, "
                        "rules[1].resources: Required value: resource rules "
                        "must supply at least one resource]");
    api_resp_free(r);

    r = rbac_call(env, &rbac_admin, "POST", RBAC "/clusterroles",
                  "{\"metadata\":{\"name\":\"agg\"},\"aggregationRule\":{}}");
    assert_int_equal(r->status, 422);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "ClusterRole.rbac.authorization.k8s.io \"agg\" is "
                        "invalid: aggregationRule.clusterRoleSelectors: "
                        "Required value: at least one clusterRoleSelector "
                        "required if aggregationRule is non-nil");
    api_resp_free(r);

    /* names are path segments */

    r = rbac_call(env, &rbac_admin, "POST", RBAC "/clusterroles",
                  "{\"metadata\":{\"name\":\"a%b\"},\"rules\":[]}");
    assert_int_equal(r->status, 422);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "ClusterRole.rbac.authorization.k8s.io \"a%b\" is "
                        "invalid: metadata.name: Invalid value: \"a%b\": may "
                        "not contain '%'");
    api_resp_free(r);

    api_env_destroy(env);
}


static void
test_bindings(void **state)
{
    api_env_t   *env;
    api_resp_t  *r;

    env = env_with_ns();

    /* 10-rolebinding-create-invalid-roleref.http: apiGroup "" defaults */

    r = rbac_call(env, &rbac_admin, "POST", NSRB "/rolebindings",
                  "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\","
                  "\"kind\":\"RoleBinding\",\"metadata\":{\"name\":"
                  "\"bad-ref\"},\"subjects\":[{\"kind\":\"User\",\"name\":"
                  "\"x\"}],\"roleRef\":{\"kind\":\"Pod\",\"apiGroup\":\"\","
                  "\"name\":\"x\"}}");
    assert_int_equal(r->status, 422);
    assert_json(r->json,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                "\"status\":\"Failure\",\"message\":\"RoleBinding.rbac."
                "authorization.k8s.io \\\"bad-ref\\\" is invalid: roleRef."
                "kind: Unsupported value: \\\"Pod\\\": supported values: "
                "\\\"Role\\\", \\\"ClusterRole\\\"\",\"reason\":\"Invalid\","
                "\"details\":{\"name\":\"bad-ref\",\"group\":\"rbac."
                "authorization.k8s.io\",\"kind\":\"RoleBinding\",\"causes\":"
                "[{\"reason\":\"FieldValueNotSupported\",\"message\":"
                "\"Unsupported value: \\\"Pod\\\": supported values: "
                "\\\"Role\\\", \\\"ClusterRole\\\"\",\"field\":\"roleRef."
                "kind\"}]},\"code\":422}");
    api_resp_free(r);

    /* 10-rolebinding-create-by-user-allowed.http's object: the
       ServiceAccount subject keeps no apiGroup */

    r = rbac_call(env, &rbac_admin, "POST", NSRB "/rolebindings",
                  "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\","
                  "\"kind\":\"RoleBinding\",\"metadata\":{\"name\":"
                  "\"bind-cm-reader\"},\"subjects\":[{\"kind\":"
                  "\"ServiceAccount\",\"name\":\"default\",\"namespace\":"
                  "\"ref-rbac\"}],\"roleRef\":{\"kind\":\"Role\","
                  "\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":"
                  "\"cm-reader\"}}");
    assert_int_equal(r->status, 201);
    assert_json(json_object_get(r->json, "subjects"),
                "[{\"kind\":\"ServiceAccount\",\"name\":\"default\","
                "\"namespace\":\"ref-rbac\"}]");
    assert_json(json_object_get(r->json, "roleRef"),
                "{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":"
                "\"Role\",\"name\":\"cm-reader\"}");
    api_resp_free(r);

    /* defaults: the User subject's and the roleRef's apiGroup */

    r = rbac_call(env, &rbac_admin, "POST", NSRB "/rolebindings",
                  "{\"metadata\":{\"name\":\"anchor-user-role-manager\"},"
                  "\"roleRef\":{\"name\":\"role-manager\",\"kind\":\"Role\"},"
                  "\"subjects\":[{\"name\":\"anchor-user\",\"kind\":"
                  "\"User\"}]}");
    assert_int_equal(r->status, 201);
    assert_json(json_object_get(r->json, "subjects"),
                "[{\"kind\":\"User\",\"apiGroup\":\"rbac.authorization."
                "k8s.io\",\"name\":\"anchor-user\"}]");
    assert_json(json_object_get(r->json, "roleRef"),
                "{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":"
                "\"Role\",\"name\":\"role-manager\"}");
    api_resp_free(r);

    /* 10-rolebinding-update-roleref-immutable.http */

    r = rbac_call(env, &rbac_admin, "PATCH",
                  NSRB "/rolebindings/anchor-user-role-manager",
                  "{\"roleRef\":{\"name\":\"other\"}}");
    assert_int_equal(r->status, 422);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "RoleBinding.rbac.authorization.k8s.io "
                        "\"anchor-user-role-manager\" is invalid: roleRef: "
                        "Invalid value: rbac.RoleRef{APIGroup:\"rbac."
                        "authorization.k8s.io\", Kind:\"Role\", Name:"
                        "\"other\"}: cannot change roleRef");
    api_resp_free(r);

    /* subjects: kinds, service accounts of cluster bindings */

    r = rbac_call(env, &rbac_admin, "POST", RBAC "/clusterrolebindings",
                  "{\"metadata\":{\"name\":\"crb\"},\"roleRef\":{\"kind\":"
                  "\"Role\",\"name\":\"view\"},\"subjects\":[{\"kind\":"
                  "\"ServiceAccount\",\"name\":\"sa\"},{\"kind\":\"Robot\","
                  "\"name\":\"r\"},{\"kind\":\"Group\",\"name\":\"g\","
                  "\"apiGroup\":\"x\"}]}");
    assert_int_equal(r->status, 422);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "ClusterRoleBinding.rbac.authorization.k8s.io \"crb\" "
                        "is invalid: [roleRef.kind: Unsupported value: "
                        "\"Role\": supported values: \"ClusterRole\", "
                        "subjects[0].namespace: Required value, "
                        "subjects[1].kind: Unsupported value: \"Robot\": "
                        "supported values: \"ServiceAccount\", \"User\", "
                        "\"Group\", subjects[2].apiGroup: Unsupported value: "
                        "\"x\": supported values: \"rbac.authorization."
                        "k8s.io\"]");
    api_resp_free(r);

    /* 10-rolebindings-list-table.http: the cells */

    r = rbac_call(env, &rbac_admin, "GET", NSRB "/rolebindings", NULL);
    api_resp_free(r);

    {
        api_req_opts_t  o;

        memset(&o, 0, sizeof(o));
        o.user = &rbac_admin;
        r = api_call_opts(env, "GET", NSRB "/rolebindings", NULL, NULL,
                          TABLE, &o);
    }

    assert_int_equal(r->status, 200);
    assert_json(json_object_get(r->json, "columnDefinitions"),
                "[{\"name\":\"Name\",\"type\":\"string\",\"format\":\"name\","
                "\"description\":\"Name must be unique within a namespace. "
                "Is required when creating resources, although some "
                "resources may allow a client to request the generation of "
                "an appropriate name automatically. Name is primarily "
                "intended for creation idempotence and configuration "
                "definition. Cannot be updated. More info: https://"
                "kubernetes.io/docs/concepts/overview/working-with-objects/"
                "names#names\",\"priority\":0},{\"name\":\"Role\",\"type\":"
                "\"string\",\"format\":\"\",\"description\":\"RoleRef can "
                "reference a Role in the current namespace or a ClusterRole "
                "in the global namespace. If the RoleRef cannot be "
                "resolved, the Authorizer must return an error.\","
                "\"priority\":0},{\"name\":\"Age\",\"type\":\"string\","
                "\"format\":\"\",\"description\":\"CreationTimestamp is a "
                "timestamp representing the server time when this object "
                "was created. It is not guaranteed to be set in "
                "happens-before order across separate operations. Clients "
                "may not set this value. It is represented in RFC3339 form "
                "and is in UTC.\\n\\nPopulated by the system. Read-only. "
                "Null for lists. More info: https://git.k8s.io/community/"
                "contributors/devel/sig-architecture/api-conventions.md#"
                "metadata\",\"priority\":0},{\"name\":\"Users\",\"type\":"
                "\"string\",\"format\":\"\",\"description\":\"Users in the "
                "roleBinding\",\"priority\":1},{\"name\":\"Groups\","
                "\"type\":\"string\",\"format\":\"\",\"description\":"
                "\"Groups in the roleBinding\",\"priority\":1},{\"name\":"
                "\"ServiceAccounts\",\"type\":\"string\",\"format\":\"\","
                "\"description\":\"ServiceAccounts in the roleBinding\","
                "\"priority\":1}]");

    {
        json_t  *rows, *cells;

        rows = json_object_get(r->json, "rows");
        assert_int_equal(json_array_size(rows), 2);

        cells = json_object_get(json_array_get(rows, 0), "cells");
        assert_string_equal(json_string_value(json_array_get(cells, 0)),
                            "anchor-user-role-manager");
        assert_string_equal(json_string_value(json_array_get(cells, 1)),
                            "Role/role-manager");
        assert_string_equal(json_string_value(json_array_get(cells, 3)),
                            "anchor-user");
        assert_string_equal(json_string_value(json_array_get(cells, 4)), "");
        assert_string_equal(json_string_value(json_array_get(cells, 5)), "");

        cells = json_object_get(json_array_get(rows, 1), "cells");
        assert_string_equal(json_string_value(json_array_get(cells, 1)),
                            "Role/cm-reader");
        assert_string_equal(json_string_value(json_array_get(cells, 3)), "");
        assert_string_equal(json_string_value(json_array_get(cells, 5)),
                            "ref-rbac/default");
    }

    api_resp_free(r);

    /* 01-cluster-scoped-with-namespace.http */

    r = rbac_call(env, &rbac_admin, "GET",
                  RBAC "/namespaces/default/clusterroles", NULL);
    assert_int_equal(r->status, 404);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "the server could not find the requested resource");
    api_resp_free(r);

    api_env_destroy(env);
}


static void
test_discovery(void **state)
{
    size_t       i;
    json_t      *res, *it;
    api_env_t   *env;
    api_resp_t  *r;
    char        *s;

    env = api_env_create();

    /* 01-discovery-apis-rbac-v1.http */

    r = api_call(env, "GET", RBAC, NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    res = json_object_get(r->json, "resources");
    assert_int_equal(json_array_size(res), 4);

    s = dump(json_array_get(res, 0));
    assert_string_equal(s, "{\"name\":\"clusterrolebindings\","
                           "\"singularName\":\"clusterrolebinding\","
                           "\"namespaced\":false,\"kind\":"
                           "\"ClusterRoleBinding\",\"verbs\":[\"create\","
                           "\"delete\",\"deletecollection\",\"get\",\"list\","
                           "\"patch\",\"update\",\"watch\"],"
                           "\"storageVersionHash\":\"48tpQ8gZHFc=\"}");
    free(s);

    json_array_foreach(res, i, it) {
        static const char * const  hashes[] = {
            "48tpQ8gZHFc=", "bYE5ZWDrJ44=", "eGsCzGH6b1g=", "7FuwZcIIItM="
        };

        assert_string_equal(api_str(it, "storageVersionHash", NULL),
                            hashes[i]);
    }

    api_resp_free(r);

    /* the review resources: create only */

    r = api_call(env, "GET", "/apis/authorization.k8s.io/v1", NULL, NULL,
                 NULL);
    assert_int_equal(r->status, 200);
    res = json_object_get(r->json, "resources");
    assert_int_equal(json_array_size(res), 4);
    assert_string_equal(api_str(json_array_get(res, 0), "name", NULL),
                        "localsubjectaccessreviews");
    assert_true(json_is_true(json_object_get(json_array_get(res, 0),
                                             "namespaced")));
    s = dump(json_object_get(json_array_get(res, 1), "verbs"));
    assert_string_equal(s, "[\"create\"]");
    free(s);
    api_resp_free(r);

    r = api_call(env, "GET", "/apis/authorization.k8s.io/v1/"
                 "selfsubjectaccessreviews", NULL, NULL, NULL);
    assert_int_equal(r->status, 405);
    api_resp_free(r);

    api_env_destroy(env);
}


static json_t *
pb_roundtrip(api_env_t *env, gcp_arena_t *a, const char *method,
    const char *path, const char *json, int status)
{
    json_t      *in, *out;
    gcp_buf_t    b;
    api_resp_t  *r;
    const char  *msg;

    in = json_loads(json, 0, NULL);
    assert_non_null(in);

    gcp_buf_init(&b, a);
    assert_int_equal(gcp_protobuf_encode(&b, api_env_api(env)->schemas, in),
                     GCP_OK);
    json_decref(in);

    r = api_call_n(env, method, path, PB, b.data, b.len, PB ", */*");
    assert_int_equal(r->status, status);
    assert_string_equal(r->content_type, PB);

    out = NULL;
    msg = NULL;
    assert_int_equal(gcp_protobuf_decode(a, api_env_api(env)->schemas,
                                         r->body, r->len, &out, &msg),
                     GCP_OK);
    api_resp_free(r);

    return out;
}


static void
test_protobuf(void **state)
{
    json_t       *o;
    api_env_t    *env;
    gcp_arena_t  *a;

    /* kubectl's typed create commands send protobuf (AlwaysAllow here:
       the requests are anonymous) */

    env = api_env_create();
    a = gcp_arena_create(0);

    o = pb_roundtrip(env, a, "POST", RBAC "/clusterroles",
                     "{\"kind\":\"ClusterRole\",\"apiVersion\":"
                     "\"rbac.authorization.k8s.io/v1\",\"metadata\":"
                     "{\"name\":\"pb\"},\"rules\":[{\"verbs\":[\"get\"],"
                     "\"apiGroups\":[\"\"],\"resources\":[\"pods\"],"
                     "\"resourceNames\":[\"p\"]}],\"aggregationRule\":"
                     "{\"clusterRoleSelectors\":[{\"matchLabels\":"
                     "{\"a\":\"b\"}}]}}", 201);
    assert_json(json_object_get(o, "rules"),
                "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":"
                "[\"pods\"],\"resourceNames\":[\"p\"]}]");
    assert_json(json_object_get(o, "aggregationRule"),
                "{\"clusterRoleSelectors\":[{\"matchLabels\":{\"a\":"
                "\"b\"}}]}");

    o = pb_roundtrip(env, a, "POST", "/apis/rbac.authorization.k8s.io/v1/"
                     "namespaces/default/rolebindings",
                     "{\"kind\":\"RoleBinding\",\"apiVersion\":"
                     "\"rbac.authorization.k8s.io/v1\",\"metadata\":"
                     "{\"name\":\"pb\"},\"subjects\":[{\"kind\":\"Group\","
                     "\"name\":\"g\"},{\"kind\":\"ServiceAccount\",\"name\":"
                     "\"s\",\"namespace\":\"default\"}],\"roleRef\":"
                     "{\"kind\":\"ClusterRole\",\"name\":\"pb\"}}", 201);
    assert_json(json_object_get(o, "subjects"),
                "[{\"kind\":\"Group\",\"apiGroup\":\"rbac.authorization."
                "k8s.io\",\"name\":\"g\"},{\"kind\":\"ServiceAccount\","
                "\"name\":\"s\",\"namespace\":\"default\"}]");
    assert_json(json_object_get(o, "roleRef"),
                "{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":"
                "\"ClusterRole\",\"name\":\"pb\"}");

    /* kubectl auth can-i */

    o = pb_roundtrip(env, a, "POST", "/apis/authorization.k8s.io/v1/"
                     "selfsubjectaccessreviews",
                     "{\"kind\":\"SelfSubjectAccessReview\",\"apiVersion\":"
                     "\"authorization.k8s.io/v1\",\"spec\":"
                     "{\"resourceAttributes\":{\"namespace\":\"default\","
                     "\"verb\":\"get\",\"resource\":\"pods\"}}}", 201);
    assert_json(o, "{\"kind\":\"SelfSubjectAccessReview\",\"apiVersion\":"
                   "\"authorization.k8s.io/v1\",\"metadata\":"
                   "{\"creationTimestamp\":null},\"spec\":"
                   "{\"resourceAttributes\":{\"namespace\":\"default\","
                   "\"verb\":\"get\",\"resource\":\"pods\"}},\"status\":"
                   "{\"allowed\":true}}");

    /* a SubjectAccessReview's extra: map<string, ExtraValue> */

    o = pb_roundtrip(env, a, "POST", "/apis/authorization.k8s.io/v1/"
                     "subjectaccessreviews",
                     "{\"kind\":\"SubjectAccessReview\",\"apiVersion\":"
                     "\"authorization.k8s.io/v1\",\"spec\":{\"user\":"
                     "\"u\",\"extra\":{\"scopes\":[\"a\",\"b\"],"
                     "\"empty\":[]},\"nonResourceAttributes\":"
                     "{\"path\":\"/x\",\"verb\":\"get\"}}}", 201);
    assert_json(json_object_get(o, "spec"),
                "{\"nonResourceAttributes\":{\"path\":\"/x\",\"verb\":"
                "\"get\"},\"user\":\"u\",\"extra\":{\"empty\":[],"
                "\"scopes\":[\"a\",\"b\"]}}");

    /* kubectl auth can-i --list (AlwaysAllow: everything) */

    o = pb_roundtrip(env, a, "POST", "/apis/authorization.k8s.io/v1/"
                     "selfsubjectrulesreviews",
                     "{\"kind\":\"SelfSubjectRulesReview\",\"apiVersion\":"
                     "\"authorization.k8s.io/v1\",\"spec\":{\"namespace\":"
                     "\"default\"}}", 201);
    assert_json(json_object_get(o, "status"),
                "{\"resourceRules\":[{\"verbs\":[\"*\"],\"apiGroups\":"
                "[\"*\"],\"resources\":[\"*\"]}],\"nonResourceRules\":"
                "[{\"verbs\":[\"*\"],\"nonResourceURLs\":[\"*\"]}],"
                "\"incomplete\":false}");

    gcp_arena_destroy(a);
    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_bootstrap_policy),
        cmocka_unit_test(test_create_and_validate),
        cmocka_unit_test(test_bindings),
        cmocka_unit_test(test_discovery),
        cmocka_unit_test(test_protobuf),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
