
/*
 * Unit tests: RBAC authorization through the API core (requests carry a
 * preset user, as after authentication): a matrix of identities, verbs
 * and resources; the index following binding and role changes; the
 * escalation checks with kube-apiserver's messages
 * (../shared/reference/10-*); ClusterRole aggregation following labels.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_op.h"
#include "gcp_rbac.h"
#include "support_rbac.h"


#define RBAC   "/apis/rbac.authorization.k8s.io/v1"
#define CM     "/api/v1/namespaces/team/configmaps"
#define NSRB   RBAC "/namespaces/ref-rbac"


static const char  admin_missing[] =
    "{APIGroups:[\"\"], Resources:[\"bindings\"], Verbs:[\"get\" \"list\""
    " \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"configmaps\"], Verbs:[\"create\" \"d"
    "elete\" \"deletecollection\" \"patch\" \"update\" \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"endpoints\"], Verbs:[\"get\" \"list"
    "\" \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"events\"], Verbs:[\"create\" \"delet"
    "e\" \"deletecollection\" \"patch\" \"update\" \"get\" \"list\" \"wat"
    "ch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"limitranges\"], Verbs:[\"get\" \"lis"
    "t\" \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"namespaces\"], Verbs:[\"get\" \"list"
    "\" \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"namespaces/status\"], Verbs:[\"get\""
    " \"list\" \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"persistentvolumeclaims\"], Verbs:[\""
    "create\" \"delete\" \"deletecollection\" \"patch\" \"update\" \"get"
    "\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"persistentvolumeclaims/status\"], Ve"
    "rbs:[\"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"create\" \"delete"
    "\" \"deletecollection\" \"patch\" \"update\" \"get\" \"list\" \"watc"
    "h\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"pods/attach\"], Verbs:[\"get\" \"lis"
    "t\" \"watch\" \"create\" \"delete\" \"deletecollection\" \"patch\" "
    "\"update\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"pods/eviction\"], Verbs:[\"create\"]"
    "}\n"
    "{APIGroups:[\"\"], Resources:[\"pods/exec\"], Verbs:[\"get\" \"list"
    "\" \"watch\" \"create\" \"delete\" \"deletecollection\" \"patch\" \""
    "update\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"pods/log\"], Verbs:[\"get\" \"list\""
    " \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"pods/portforward\"], Verbs:[\"get\" "
    "\"list\" \"watch\" \"create\" \"delete\" \"deletecollection\" \"patc"
    "h\" \"update\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"pods/proxy\"], Verbs:[\"get\" \"list"
    "\" \"watch\" \"create\" \"delete\" \"deletecollection\" \"patch\" \""
    "update\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"pods/status\"], Verbs:[\"get\" \"lis"
    "t\" \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"replicationcontrollers\"], Verbs:[\""
    "create\" \"delete\" \"deletecollection\" \"patch\" \"update\" \"get"
    "\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"replicationcontrollers/scale\"], Ver"
    "bs:[\"create\" \"delete\" \"deletecollection\" \"patch\" \"update\" "
    "\"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"replicationcontrollers/status\"], Ve"
    "rbs:[\"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"resourcequotas\"], Verbs:[\"get\" \""
    "list\" \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"resourcequotas/status\"], Verbs:[\"g"
    "et\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\" \"list\" "
    "\"watch\" \"create\" \"delete\" \"deletecollection\" \"patch\" \"upd"
    "ate\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"serviceaccounts\"], Verbs:[\"imperso"
    "nate\" \"create\" \"delete\" \"deletecollection\" \"patch\" \"update"
    "\" \"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"serviceaccounts/token\"], Verbs:[\"c"
    "reate\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"services\"], Verbs:[\"create\" \"del"
    "ete\" \"deletecollection\" \"patch\" \"update\" \"get\" \"list\" \"w"
    "atch\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"services/proxy\"], Verbs:[\"get\" \""
    "list\" \"watch\" \"create\" \"delete\" \"deletecollection\" \"patch"
    "\" \"update\"]}\n"
    "{APIGroups:[\"\"], Resources:[\"services/status\"], Verbs:[\"get\" "
    "\"list\" \"watch\"]}\n"
    "{APIGroups:[\"apps\"], Resources:[\"controllerrevisions\"], Verbs:["
    "\"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"apps\"], Resources:[\"daemonsets\"], Verbs:[\"create\""
    " \"delete\" \"deletecollection\" \"patch\" \"update\" \"get\" \"list"
    "\" \"watch\"]}\n"
    "{APIGroups:[\"apps\"], Resources:[\"daemonsets/status\"], Verbs:[\"g"
    "et\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"apps\"], Resources:[\"deployments\"], Verbs:[\"create"
    "\" \"delete\" \"deletecollection\" \"patch\" \"update\" \"get\" \"li"
    "st\" \"watch\"]}\n"
    "{APIGroups:[\"apps\"], Resources:[\"deployments/rollback\"], Verbs:["
    "\"create\" \"delete\" \"deletecollection\" \"patch\" \"update\"]}\n"
    "{APIGroups:[\"apps\"], Resources:[\"deployments/scale\"], Verbs:[\"c"
    "reate\" \"delete\" \"deletecollection\" \"patch\" \"update\" \"get\""
    " \"list\" \"watch\"]}\n"
    "{APIGroups:[\"apps\"], Resources:[\"deployments/status\"], Verbs:[\""
    "get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"apps\"], Resources:[\"replicasets\"], Verbs:[\"create"
    "\" \"delete\" \"deletecollection\" \"patch\" \"update\" \"get\" \"li"
    "st\" \"watch\"]}\n"
    "{APIGroups:[\"apps\"], Resources:[\"replicasets/scale\"], Verbs:[\"c"
    "reate\" \"delete\" \"deletecollection\" \"patch\" \"update\" \"get\""
    " \"list\" \"watch\"]}\n"
    "{APIGroups:[\"apps\"], Resources:[\"replicasets/status\"], Verbs:[\""
    "get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"apps\"], Resources:[\"statefulsets\"], Verbs:[\"create"
    "\" \"delete\" \"deletecollection\" \"patch\" \"update\" \"get\" \"li"
    "st\" \"watch\"]}\n"
    "{APIGroups:[\"apps\"], Resources:[\"statefulsets/scale\"], Verbs:[\""
    "create\" \"delete\" \"deletecollection\" \"patch\" \"update\" \"get"
    "\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"apps\"], Resources:[\"statefulsets/status\"], Verbs:["
    "\"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"authorization.k8s.io\"], Resources:[\"localsubjectacce"
    "ssreviews\"], Verbs:[\"create\"]}\n"
    "{APIGroups:[\"autoscaling\"], Resources:[\"horizontalpodautoscalers"
    "\"], Verbs:[\"create\" \"delete\" \"deletecollection\" \"patch\" \"u"
    "pdate\" \"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"autoscaling\"], Resources:[\"horizontalpodautoscalers/"
    "status\"], Verbs:[\"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"batch\"], Resources:[\"cronjobs\"], Verbs:[\"create\" "
    "\"delete\" \"deletecollection\" \"patch\" \"update\" \"get\" \"list"
    "\" \"watch\"]}\n"
    "{APIGroups:[\"batch\"], Resources:[\"cronjobs/status\"], Verbs:[\"ge"
    "t\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"batch\"], Resources:[\"jobs\"], Verbs:[\"create\" \"de"
    "lete\" \"deletecollection\" \"patch\" \"update\" \"get\" \"list\" \""
    "watch\"]}\n"
    "{APIGroups:[\"batch\"], Resources:[\"jobs/status\"], Verbs:[\"get\" "
    "\"list\" \"watch\"]}\n"
    "{APIGroups:[\"coordination.k8s.io\"], Resources:[\"leases\"], Verbs:"
    "[\"create\" \"delete\" \"deletecollection\" \"get\" \"list\" \"patch"
    "\" \"update\" \"watch\"]}\n"
    "{APIGroups:[\"discovery.k8s.io\"], Resources:[\"endpointslices\"], V"
    "erbs:[\"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"extensions\"], Resources:[\"daemonsets\"], Verbs:[\"cr"
    "eate\" \"delete\" \"deletecollection\" \"patch\" \"update\" \"get\" "
    "\"list\" \"watch\"]}\n"
    "{APIGroups:[\"extensions\"], Resources:[\"daemonsets/status\"], Verb"
    "s:[\"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"extensions\"], Resources:[\"deployments\"], Verbs:[\"c"
    "reate\" \"delete\" \"deletecollection\" \"patch\" \"update\" \"get\""
    " \"list\" \"watch\"]}\n"
    "{APIGroups:[\"extensions\"], Resources:[\"deployments/rollback\"], V"
    "erbs:[\"create\" \"delete\" \"deletecollection\" \"patch\" \"update"
    "\"]}\n"
    "{APIGroups:[\"extensions\"], Resources:[\"deployments/scale\"], Verb"
    "s:[\"create\" \"delete\" \"deletecollection\" \"patch\" \"update\" "
    "\"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"extensions\"], Resources:[\"deployments/status\"], Ver"
    "bs:[\"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"extensions\"], Resources:[\"ingresses\"], Verbs:[\"cre"
    "ate\" \"delete\" \"deletecollection\" \"patch\" \"update\" \"get\" "
    "\"list\" \"watch\"]}\n"
    "{APIGroups:[\"extensions\"], Resources:[\"ingresses/status\"], Verbs"
    ":[\"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"extensions\"], Resources:[\"networkpolicies\"], Verbs:"
    "[\"create\" \"delete\" \"deletecollection\" \"patch\" \"update\" \"g"
    "et\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"extensions\"], Resources:[\"replicasets\"], Verbs:[\"c"
    "reate\" \"delete\" \"deletecollection\" \"patch\" \"update\" \"get\""
    " \"list\" \"watch\"]}\n"
    "{APIGroups:[\"extensions\"], Resources:[\"replicasets/scale\"], Verb"
    "s:[\"create\" \"delete\" \"deletecollection\" \"patch\" \"update\" "
    "\"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"extensions\"], Resources:[\"replicasets/status\"], Ver"
    "bs:[\"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"extensions\"], Resources:[\"replicationcontrollers/sca"
    "le\"], Verbs:[\"create\" \"delete\" \"deletecollection\" \"patch\" "
    "\"update\" \"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"networking.k8s.io\"], Resources:[\"ingresses\"], Verbs"
    ":[\"create\" \"delete\" \"deletecollection\" \"patch\" \"update\" \""
    "get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"networking.k8s.io\"], Resources:[\"ingresses/status\"]"
    ", Verbs:[\"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"networking.k8s.io\"], Resources:[\"networkpolicies\"],"
    " Verbs:[\"create\" \"delete\" \"deletecollection\" \"patch\" \"updat"
    "e\" \"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"policy\"], Resources:[\"poddisruptionbudgets\"], Verbs"
    ":[\"create\" \"delete\" \"deletecollection\" \"patch\" \"update\" \""
    "get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"policy\"], Resources:[\"poddisruptionbudgets/status\"]"
    ", Verbs:[\"get\" \"list\" \"watch\"]}\n"
    "{APIGroups:[\"rbac.authorization.k8s.io\"], Resources:[\"rolebinding"
    "s\"], Verbs:[\"deletecollection\" \"patch\" \"watch\"]}\n"
    "{APIGroups:[\"rbac.authorization.k8s.io\"], Resources:[\"roles\"], V"
    "erbs:[\"deletecollection\" \"patch\" \"watch\"]}";


static void
admin_ok(api_env_t *env, const char *method, const char *path,
    const char *body)
{
    int  status;

    status = rbac_status(env, &rbac_admin, method, path, body);

    if (status >= 300) {
        fail_msg("%s %s as admin: %d", method, path, status);
    }
}


/* Waits (at most 2 s) until the ClusterRole name has n rules. */
static json_t *
wait_rules(api_env_t *env, const char *name, size_t n)
{
    int          i;
    char         path[256];
    json_t      *rules;
    api_resp_t  *r;

    snprintf(path, sizeof(path), RBAC "/clusterroles/%s", name);

    for (i = 0; i < 400; i++) {
        r = rbac_call(env, &rbac_admin, "GET", path, NULL);
        assert_int_equal(r->status, 200);

        rules = json_object_get(r->json, "rules");

        if (json_array_size(rules) == n) {
            rules = json_incref(rules);
            api_resp_free(r);
            return rules;
        }

        api_resp_free(r);
        api_spin(env, 5);
    }

    fail_msg("clusterrole %s never had %zu rules", name, n);

    return NULL;
}


static void
setup_team(api_env_t *env)
{
    admin_ok(env, "POST", "/api/v1/namespaces",
             "{\"metadata\":{\"name\":\"team\"}}");
    admin_ok(env, "POST", "/api/v1/namespaces",
             "{\"metadata\":{\"name\":\"other\"}}");
    admin_ok(env, "POST", CM, "{\"metadata\":{\"name\":\"c1\"}}");
    admin_ok(env, "POST", "/api/v1/namespaces/other/configmaps",
             "{\"metadata\":{\"name\":\"c1\"}}");

    admin_ok(env, "POST", RBAC "/namespaces/team/roles",
             "{\"metadata\":{\"name\":\"cm-reader\"},\"rules\":"
             "[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
             "\"verbs\":[\"get\",\"list\"]}]}");
    admin_ok(env, "POST", RBAC "/namespaces/team/rolebindings",
             "{\"metadata\":{\"name\":\"alice\"},\"roleRef\":{\"kind\":"
             "\"Role\",\"name\":\"cm-reader\"},\"subjects\":[{\"kind\":"
             "\"User\",\"name\":\"alice\"},{\"kind\":\"ServiceAccount\","
             "\"name\":\"robot\"}]}");
    admin_ok(env, "POST", RBAC "/namespaces/team/rolebindings",
             "{\"metadata\":{\"name\":\"viewers\"},\"roleRef\":{\"kind\":"
             "\"ClusterRole\",\"name\":\"view\"},\"subjects\":[{\"kind\":"
             "\"Group\",\"name\":\"viewers\"}]}");
    admin_ok(env, "POST", RBAC "/clusterroles",
             "{\"metadata\":{\"name\":\"ns-lister\"},\"rules\":"
             "[{\"apiGroups\":[\"\"],\"resources\":[\"namespaces\"],"
             "\"verbs\":[\"list\"]},{\"apiGroups\":[\"\"],\"resources\":"
             "[\"namespaces/status\"],\"verbs\":[\"get\"]}]}");
    admin_ok(env, "POST", RBAC "/clusterrolebindings",
             "{\"metadata\":{\"name\":\"carol\"},\"roleRef\":{\"kind\":"
             "\"ClusterRole\",\"name\":\"ns-lister\"},\"subjects\":"
             "[{\"kind\":\"User\",\"name\":\"carol\"}]}");

    /* view's rules come from the aggregation controller */

    json_decref(wait_rules(env, "view", 10));
}


typedef struct {
    const char  *who;           /* index into the users of the test */
    const char  *method;
    const char  *path;
    const char  *body;
    int          status;
} matrix_row_t;


static const matrix_row_t  matrix[] = {
    /* cluster-admin through system:masters */
    { "admin", "GET", CM "/c1", NULL, 200 },
    { "admin", "GET", "/api/v1/namespaces", NULL, 200 },
    { "admin", "POST", CM, "{\"metadata\":{\"name\":\"by-admin\"}}", 201 },
    { "admin", "DELETE", CM "/by-admin", NULL, 200 },
    { "admin", "GET", "/metrics", NULL, 200 },

    /* a User bound to a Role in one namespace */
    { "alice", "GET", CM "/c1", NULL, 200 },
    { "alice", "GET", CM, NULL, 200 },
    { "alice", "GET", CM "?watch=1&timeoutSeconds=1", NULL, 403 },
    { "alice", "POST", CM, "{\"metadata\":{\"name\":\"x\"}}", 403 },
    { "alice", "DELETE", CM "/c1", NULL, 403 },
    { "alice", "GET", "/api/v1/namespaces/other/configmaps/c1", NULL, 403 },
    { "alice", "GET", "/api/v1/configmaps", NULL, 403 },
    { "alice", "GET", "/api/v1/namespaces/team/secrets", NULL, 403 },
    { "alice", "GET", "/api/v1/namespaces", NULL, 403 },

    /* a Group bound to the aggregated ClusterRole view in a namespace */
    { "bob", "GET", CM, NULL, 200 },
    { "bob", "GET", "/api/v1/namespaces/team/serviceaccounts", NULL, 200 },
    { "bob", "GET", "/api/v1/namespaces/team/secrets", NULL, 403 },
    { "bob", "POST", CM, "{\"metadata\":{\"name\":\"x\"}}", 403 },
    { "bob", "GET", "/api/v1/namespaces/other/configmaps", NULL, 403 },
    { "bob", "GET", "/apis/coordination.k8s.io/v1/namespaces/team/leases",
      NULL, 403 },

    /* a ServiceAccount subject without namespace: the binding's */
    { "robot", "GET", CM "/c1", NULL, 200 },
    { "robot", "GET", "/api/v1/namespaces/other/configmaps/c1", NULL, 403 },
    { "other-robot", "GET", CM "/c1", NULL, 403 },

    /* a ClusterRoleBinding: cluster-wide, verbs as granted */
    { "carol", "GET", "/api/v1/namespaces", NULL, 200 },
    { "carol", "GET", "/api/v1/namespaces/team", NULL, 403 },
    { "carol", "GET", "/api/v1/namespaces/team/status", NULL, 200 },
    { "carol", "GET", CM, NULL, 403 },

    /* every authenticated user: discovery, health, self reviews */
    { "nobody", "GET", "/api", NULL, 200 },
    { "nobody", "GET", "/apis", NULL, 200 },
    { "nobody", "GET", "/apis/rbac.authorization.k8s.io/v1", NULL, 200 },
    { "nobody", "GET", "/version", NULL, 200 },
    { "nobody", "GET", "/healthz", NULL, 200 },
    { "nobody", "GET", "/readyz", NULL, 200 },
    { "nobody", "GET", "/openapi/v2", NULL, 200 },
    { "nobody", "GET", "/metrics", NULL, 403 },
    { "nobody", "GET", "/api/v1/namespaces", NULL, 403 },
    { "nobody", "GET", RBAC "/clusterroles", NULL, 403 },

    /* anonymous: health and version only */
    { "anonymous", "GET", "/healthz", NULL, 200 },
    { "anonymous", "GET", "/livez", NULL, 200 },
    { "anonymous", "GET", "/version", NULL, 200 },
    { "anonymous", "GET", "/api", NULL, 403 },
    { "anonymous", "GET", "/api/v1/namespaces", NULL, 403 },
    { "anonymous", "POST", "/apis/authorization.k8s.io/v1/"
      "selfsubjectaccessreviews", "{\"spec\":{\"nonResourceAttributes\":"
      "{\"path\":\"/\",\"verb\":\"get\"}}}", 403 },
};


static const gcp_user_t *
matrix_user(const char *who)
{
    if (strcmp(who, "admin") == 0) {
        return &rbac_admin;
    }

    if (strcmp(who, "nobody") == 0) {
        return &rbac_anchor;
    }

    if (strcmp(who, "anonymous") == 0) {
        return &rbac_anonymous;
    }

    if (strcmp(who, "bob") == 0) {
        return rbac_user("bob", "viewers", "system:authenticated", NULL);
    }

    if (strcmp(who, "robot") == 0) {
        return rbac_user("system:serviceaccount:team:robot",
                         "system:serviceaccounts",
                         "system:serviceaccounts:team",
                         "system:authenticated", NULL);
    }

    if (strcmp(who, "other-robot") == 0) {
        return rbac_user("system:serviceaccount:other:robot",
                         "system:serviceaccounts",
                         "system:serviceaccounts:other",
                         "system:authenticated", NULL);
    }

    return rbac_user(who, "system:authenticated", NULL);
}


static void
test_authorize_matrix(void **state)
{
    int          status;
    size_t       i;
    api_env_t   *env;

    env = rbac_env(NULL);
    setup_team(env);

    for (i = 0; i < gcp_nelems(matrix); i++) {
        status = rbac_status(env, matrix_user(matrix[i].who),
                             matrix[i].method, matrix[i].path,
                             matrix[i].body);

        if (status != matrix[i].status) {
            fail_msg("%s %s %s: %d, expected %d", matrix[i].who,
                     matrix[i].method, matrix[i].path, status,
                     matrix[i].status);
        }
    }

    api_env_destroy(env);
}


static void
test_forbidden_messages(void **state)
{
    api_env_t   *env;
    api_resp_t  *r;

    env = rbac_env(NULL);

    admin_ok(env, "POST", "/api/v1/namespaces",
             "{\"metadata\":{\"name\":\"ref-auth\"}}");

    /* 08-rbac-denied-namespaced-get.http */

    r = rbac_call(env, &rbac_anchor, "GET",
                  "/api/v1/namespaces/ref-auth/configmaps/some-name", NULL);
    assert_int_equal(r->status, 403);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "configmaps \"some-name\" is forbidden: User "
                        "\"anchor-user\" cannot get resource \"configmaps\" "
                        "in API group \"\" in the namespace \"ref-auth\"");
    api_resp_free(r);

    /* 08-rbac-denied-group-resource.http */

    r = rbac_call(env, &rbac_anchor, "GET", RBAC "/clusterroles", NULL);
    assert_int_equal(r->status, 403);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "clusterroles.rbac.authorization.k8s.io is "
                        "forbidden: User \"anchor-user\" cannot list "
                        "resource \"clusterroles\" in API group "
                        "\"rbac.authorization.k8s.io\" at the cluster "
                        "scope");
    api_resp_free(r);

    /* 08-rbac-denied-nonresource.http, 01-discovery-api-anonymous.http */

    r = rbac_call(env, &rbac_anchor, "GET", "/metrics", NULL);
    assert_int_equal(r->status, 403);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "forbidden: User \"anchor-user\" cannot get path "
                        "\"/metrics\"");
    api_resp_free(r);

    r = rbac_call(env, &rbac_anonymous, "GET", "/api", NULL);
    assert_int_equal(r->status, 403);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "forbidden: User \"system:anonymous\" cannot get "
                        "path \"/api\"");
    api_resp_free(r);

    /* a binding to a missing role: the resolution error is the reason */

    admin_ok(env, "POST", RBAC "/namespaces/ref-auth/rolebindings",
             "{\"metadata\":{\"name\":\"dangling\"},\"roleRef\":{\"kind\":"
             "\"ClusterRole\",\"name\":\"nosuch\"},\"subjects\":[{\"kind\":"
             "\"User\",\"name\":\"anchor-user\"}]}");

    r = rbac_call(env, &rbac_anchor, "GET",
                  "/api/v1/namespaces/ref-auth/configmaps", NULL);
    assert_int_equal(r->status, 403);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "configmaps is forbidden: User \"anchor-user\" "
                        "cannot list resource \"configmaps\" in API group "
                        "\"\" in the namespace \"ref-auth\": RBAC: "
                        "clusterrole.rbac.authorization.k8s.io \"nosuch\" "
                        "not found");
    api_resp_free(r);

    api_env_destroy(env);
}


static void
test_index_follows_changes(void **state)
{
    api_env_t  *env;

    env = rbac_env(NULL);
    setup_team(env);

    assert_int_equal(rbac_status(env, &rbac_anchor, "GET", CM, NULL), 403);

    admin_ok(env, "POST", RBAC "/namespaces/team/rolebindings",
             "{\"metadata\":{\"name\":\"anchor\"},\"roleRef\":{\"kind\":"
             "\"Role\",\"name\":\"cm-reader\"},\"subjects\":[{\"kind\":"
             "\"User\",\"name\":\"anchor-user\"}]}");
    assert_int_equal(rbac_status(env, &rbac_anchor, "GET", CM, NULL), 200);

    /* the role loses list */

    admin_ok(env, "PATCH", RBAC "/namespaces/team/roles/cm-reader",
             "{\"rules\":[{\"apiGroups\":[\"\"],\"resources\":"
             "[\"configmaps\"],\"verbs\":[\"get\"]}]}");
    assert_int_equal(rbac_status(env, &rbac_anchor, "GET", CM, NULL), 403);
    assert_int_equal(rbac_status(env, &rbac_anchor, "GET", CM "/c1", NULL),
                     200);

    /* the subject changes to a group the user is not in */

    admin_ok(env, "PATCH", RBAC "/namespaces/team/rolebindings/anchor",
             "{\"subjects\":[{\"kind\":\"Group\",\"name\":\"admins\"}]}");
    assert_int_equal(rbac_status(env, &rbac_anchor, "GET", CM "/c1", NULL),
                     403);

    admin_ok(env, "PATCH", RBAC "/namespaces/team/rolebindings/anchor",
             "{\"subjects\":[{\"kind\":\"Group\",\"name\":"
             "\"system:authenticated\"}]}");
    assert_int_equal(rbac_status(env, &rbac_anchor, "GET", CM "/c1", NULL),
                     200);

    /* the role goes, then the binding */

    admin_ok(env, "DELETE", RBAC "/namespaces/team/roles/cm-reader", NULL);
    assert_int_equal(rbac_status(env, &rbac_anchor, "GET", CM "/c1", NULL),
                     403);

    admin_ok(env, "POST", RBAC "/namespaces/team/roles",
             "{\"metadata\":{\"name\":\"cm-reader\"},\"rules\":"
             "[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
             "\"verbs\":[\"get\"]}]}");
    assert_int_equal(rbac_status(env, &rbac_anchor, "GET", CM "/c1", NULL),
                     200);

    admin_ok(env, "DELETE", RBAC "/namespaces/team/rolebindings/anchor",
             NULL);
    assert_int_equal(rbac_status(env, &rbac_anchor, "GET", CM "/c1", NULL),
                     403);

    api_env_destroy(env);
}


static void
test_escalation(void **state)
{
    api_env_t   *env;
    api_resp_t  *r;
    char        *s, *expected;

    env = rbac_env(NULL);

    admin_ok(env, "POST", "/api/v1/namespaces",
             "{\"metadata\":{\"name\":\"ref-rbac\"}}");

    /* 10-role-create.http, 10-rolebinding-create.http */

    admin_ok(env, "POST", NSRB "/roles",
             "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":"
             "\"Role\",\"metadata\":{\"name\":\"role-manager\"},\"rules\":"
             "[{\"apiGroups\":[\"rbac.authorization.k8s.io\"],"
             "\"resources\":[\"roles\",\"rolebindings\"],\"verbs\":"
             "[\"get\",\"list\",\"create\",\"update\",\"delete\"]},"
             "{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
             "\"verbs\":[\"get\",\"list\"]}]}");
    admin_ok(env, "POST", NSRB "/rolebindings",
             "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":"
             "\"RoleBinding\",\"metadata\":{\"name\":"
             "\"anchor-user-role-manager\"},\"subjects\":[{\"kind\":"
             "\"User\",\"apiGroup\":\"rbac.authorization.k8s.io\","
             "\"name\":\"anchor-user\"}],\"roleRef\":{\"kind\":\"Role\","
             "\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":"
             "\"role-manager\"}}");

    /* 10-role-create-escalation-denied.http */

    r = rbac_call(env, &rbac_anchor, "POST", NSRB "/roles",
                  "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\","
                  "\"kind\":\"Role\",\"metadata\":{\"name\":"
                  "\"secret-reader\"},\"rules\":[{\"apiGroups\":[\"\"],"
                  "\"resources\":[\"secrets\"],\"verbs\":[\"get\","
                  "\"list\"]},{\"apiGroups\":[\"\"],\"resources\":"
                  "[\"configmaps\"],\"verbs\":[\"get\",\"delete\"]}]}");
    assert_int_equal(r->status, 403);
    assert_null(api_header(r, "X-Content-Type-Options"));
    s = json_dumps(r->json, JSON_COMPACT);
    assert_string_equal(s,
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"roles.rbac.authorization."
        "k8s.io \\\"secret-reader\\\" is forbidden: user \\\"anchor-user\\\" "
        "(groups=[\\\"system:authenticated\\\"]) is attempting to grant RBAC "
        "permissions not currently held:\\n{APIGroups:[\\\"\\\"], "
        "Resources:[\\\"configmaps\\\"], Verbs:[\\\"delete\\\"]}\\n"
        "{APIGroups:[\\\"\\\"], Resources:[\\\"secrets\\\"], "
        "Verbs:[\\\"get\\\" \\\"list\\\"]}\",\"reason\":\"Forbidden\","
        "\"details\":{\"name\":\"secret-reader\",\"group\":\"rbac."
        "authorization.k8s.io\",\"kind\":\"roles\"},\"code\":403}");
    free(s);
    api_resp_free(r);

    /* 10-role-create-by-user-allowed.http,
       10-rolebinding-create-by-user-allowed.http */

    assert_int_equal(rbac_status(env, &rbac_anchor, "POST", NSRB "/roles",
                                 "{\"metadata\":{\"name\":\"cm-reader\"},"
                                 "\"rules\":[{\"apiGroups\":[\"\"],"
                                 "\"resources\":[\"configmaps\"],"
                                 "\"verbs\":[\"get\"]}]}"), 201);
    assert_int_equal(rbac_status(env, &rbac_anchor, "POST",
                                 NSRB "/rolebindings",
                                 "{\"metadata\":{\"name\":"
                                 "\"bind-cm-reader\"},\"subjects\":"
                                 "[{\"kind\":\"ServiceAccount\",\"name\":"
                                 "\"default\",\"namespace\":\"ref-rbac\"}],"
                                 "\"roleRef\":{\"kind\":\"Role\","
                                 "\"apiGroup\":\"rbac.authorization.k8s.io\","
                                 "\"name\":\"cm-reader\"}}"), 201);

    /* an update that grants more is checked too */

    r = rbac_call(env, &rbac_anchor, "PUT", NSRB "/roles/cm-reader",
                  "{\"metadata\":{\"name\":\"cm-reader\"},\"rules\":"
                  "[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
                  "\"verbs\":[\"get\",\"watch\"]}]}");
    assert_int_equal(r->status, 403);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "roles.rbac.authorization.k8s.io \"cm-reader\" is "
                        "forbidden: user \"anchor-user\" (groups=["
                        "\"system:authenticated\"]) is attempting to grant "
                        "RBAC permissions not currently held:\n"
                        "{APIGroups:[\"\"], Resources:[\"configmaps\"], "
                        "Verbs:[\"watch\"]}");
    api_resp_free(r);

    /* 10-rolebinding-create-escalation-denied.http: every rule of the
       aggregated admin role the user lacks */

    json_decref(wait_rules(env, "admin", 25));

    r = rbac_call(env, &rbac_anchor, "POST", NSRB "/rolebindings",
                  "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\","
                  "\"kind\":\"RoleBinding\",\"metadata\":{\"name\":"
                  "\"grab-admin\"},\"subjects\":[{\"kind\":\"User\","
                  "\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":"
                  "\"anchor-user\"}],\"roleRef\":{\"kind\":\"ClusterRole\","
                  "\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":"
                  "\"admin\"}}");
    assert_int_equal(r->status, 403);

    expected = malloc(sizeof(admin_missing) + 256);
    assert_non_null(expected);
    snprintf(expected, sizeof(admin_missing) + 256,
             "rolebindings.rbac.authorization.k8s.io \"grab-admin\" is "
             "forbidden: user \"anchor-user\" (groups=["
             "\"system:authenticated\"]) is attempting to grant RBAC "
             "permissions not currently held:\n%s", admin_missing);
    assert_string_equal(api_str(r->json, "message", NULL), expected);
    assert_string_equal(api_str(r->json, "details", "kind", NULL),
                        "rolebindings");
    free(expected);
    api_resp_free(r);

    /* a binding to a role that does not exist */

    r = rbac_call(env, &rbac_anchor, "POST", NSRB "/rolebindings",
                  "{\"metadata\":{\"name\":\"dangling\"},\"roleRef\":"
                  "{\"kind\":\"Role\",\"name\":\"nosuch\"},\"subjects\":"
                  "[{\"kind\":\"User\",\"name\":\"anchor-user\"}]}");
    assert_int_equal(r->status, 403);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "rolebindings.rbac.authorization.k8s.io \"dangling\" "
                        "is forbidden: roles.rbac.authorization.k8s.io "
                        "\"nosuch\" not found");
    api_resp_free(r);

    /* GC fields only: not checked; anything else is */

    admin_ok(env, "POST", NSRB "/roles",
             "{\"metadata\":{\"name\":\"big\"},\"rules\":[{\"apiGroups\":"
             "[\"\"],\"resources\":[\"secrets\"],\"verbs\":[\"*\"]}]}");
    assert_int_equal(rbac_status(env, &rbac_anchor, "PUT",
                                 NSRB "/roles/big",
                                 "{\"metadata\":{\"name\":\"big\","
                                 "\"finalizers\":[\"example.com/keep\"]},"
                                 "\"rules\":[{\"apiGroups\":[\"\"],"
                                 "\"resources\":[\"secrets\"],\"verbs\":"
                                 "[\"*\"]}]}"), 200);
    assert_int_equal(rbac_status(env, &rbac_anchor, "PUT",
                                 NSRB "/roles/big",
                                 "{\"metadata\":{\"name\":\"big\","
                                 "\"labels\":{\"a\":\"b\"}},"
                                 "\"rules\":[{\"apiGroups\":[\"\"],"
                                 "\"resources\":[\"secrets\"],\"verbs\":"
                                 "[\"*\"]}]}"), 403);

    /* with "bind" on the ClusterRole admin the binding is allowed, with
       "escalate" on roles any Role */

    admin_ok(env, "POST", RBAC "/clusterroles",
             "{\"metadata\":{\"name\":\"delegate\"},\"rules\":["
             "{\"apiGroups\":[\"rbac.authorization.k8s.io\"],\"resources\":"
             "[\"clusterroles\"],\"verbs\":[\"bind\"],\"resourceNames\":"
             "[\"admin\"]},{\"apiGroups\":[\"rbac.authorization.k8s.io\"],"
             "\"resources\":[\"roles\"],\"verbs\":[\"escalate\"]}]}");
    admin_ok(env, "POST", NSRB "/rolebindings",
             "{\"metadata\":{\"name\":\"delegate\"},\"roleRef\":{\"kind\":"
             "\"ClusterRole\",\"name\":\"delegate\"},\"subjects\":[{\"kind\":"
             "\"User\",\"name\":\"anchor-user\"}]}");

    assert_int_equal(rbac_status(env, &rbac_anchor, "POST",
                                 NSRB "/rolebindings",
                                 "{\"metadata\":{\"name\":\"grab-admin\"},"
                                 "\"subjects\":[{\"kind\":\"User\",\"name\":"
                                 "\"anchor-user\"}],\"roleRef\":{\"kind\":"
                                 "\"ClusterRole\",\"name\":\"admin\"}}"),
                     201);
    assert_int_equal(rbac_status(env, &rbac_anchor, "POST",
                                 NSRB "/rolebindings",
                                 "{\"metadata\":{\"name\":\"grab-edit\"},"
                                 "\"subjects\":[{\"kind\":\"User\",\"name\":"
                                 "\"x\"}],\"roleRef\":{\"kind\":"
                                 "\"ClusterRole\",\"name\":"
                                 "\"cluster-admin\"}}"), 403);
    assert_int_equal(rbac_status(env, &rbac_anchor, "POST", NSRB "/roles",
                                 "{\"metadata\":{\"name\":\"everything\"},"
                                 "\"rules\":[{\"apiGroups\":[\"*\"],"
                                 "\"resources\":[\"*\"],\"verbs\":"
                                 "[\"*\"]}]}"), 201);

    api_env_destroy(env);
}


static void
test_aggregation_rule_needs_full_authority(void **state)
{
    api_env_t          *env;
    api_resp_t         *r;
    const gcp_user_t   *u;

    env = rbac_env(NULL);

    admin_ok(env, "POST", RBAC "/clusterroles",
             "{\"metadata\":{\"name\":\"role-maker\"},\"rules\":["
             "{\"apiGroups\":[\"rbac.authorization.k8s.io\"],\"resources\":"
             "[\"clusterroles\"],\"verbs\":[\"create\",\"update\",\"get\"]},"
             "{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
             "\"verbs\":[\"get\"]}]}");
    admin_ok(env, "POST", RBAC "/clusterrolebindings",
             "{\"metadata\":{\"name\":\"role-maker\"},\"roleRef\":"
             "{\"kind\":\"ClusterRole\",\"name\":\"role-maker\"},"
             "\"subjects\":[{\"kind\":\"User\",\"name\":\"maker\"}]}");

    u = rbac_user("maker", "system:authenticated", NULL);

    assert_int_equal(rbac_status(env, u, "POST", RBAC "/clusterroles",
                                 "{\"metadata\":{\"name\":\"small\"},"
                                 "\"rules\":[{\"apiGroups\":[\"\"],"
                                 "\"resources\":[\"configmaps\"],"
                                 "\"verbs\":[\"get\"]}]}"), 201);

    r = rbac_call(env, u, "POST", RBAC "/clusterroles",
                  "{\"metadata\":{\"name\":\"agg\"},\"aggregationRule\":"
                  "{\"clusterRoleSelectors\":[{\"matchLabels\":{\"x\":"
                  "\"y\"}}]}}");
    assert_int_equal(r->status, 403);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "clusterroles.rbac.authorization.k8s.io \"agg\" is "
                        "forbidden: must have cluster-admin privileges to "
                        "use the aggregationRule");
    api_resp_free(r);

    api_env_destroy(env);
}


static void
test_aggregation_follows_labels(void **state)
{
    char        *s;
    json_t      *rules;
    api_env_t   *env;

    env = rbac_env(NULL);

    admin_ok(env, "POST", RBAC "/clusterroles",
             "{\"metadata\":{\"name\":\"ref-aggregate\"},\"aggregationRule\":"
             "{\"clusterRoleSelectors\":[{\"matchLabels\":"
             "{\"ref.example.com/aggregate-to-ref\":\"true\"}}]}}");

    /* 10-clusterrole-aggregated-get.http */

    admin_ok(env, "POST", RBAC "/clusterroles",
             "{\"metadata\":{\"name\":\"ref-configmap-reader\",\"labels\":"
             "{\"ref.example.com/aggregate-to-ref\":\"true\"}},\"rules\":"
             "[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
             "\"verbs\":[\"get\",\"list\",\"watch\"]},{\"nonResourceURLs\":"
             "[\"/ref-path\"],\"verbs\":[\"get\"]}]}");

    rules = wait_rules(env, "ref-aggregate", 2);
    s = json_dumps(rules, JSON_COMPACT);
    assert_string_equal(s, "[{\"verbs\":[\"get\",\"list\",\"watch\"],"
                           "\"apiGroups\":[\"\"],\"resources\":"
                           "[\"configmaps\"]},{\"verbs\":[\"get\"],"
                           "\"nonResourceURLs\":[\"/ref-path\"]}]");
    free(s);
    json_decref(rules);

    /* a second role: rules of both, by name, without duplicates */

    admin_ok(env, "POST", RBAC "/clusterroles",
             "{\"metadata\":{\"name\":\"a-secret-reader\",\"labels\":"
             "{\"ref.example.com/aggregate-to-ref\":\"true\"}},\"rules\":"
             "[{\"apiGroups\":[\"\"],\"resources\":[\"secrets\"],"
             "\"verbs\":[\"get\"]},{\"nonResourceURLs\":[\"/ref-path\"],"
             "\"verbs\":[\"get\"]}]}");

    rules = wait_rules(env, "ref-aggregate", 3);
    assert_string_equal(json_string_value(json_array_get(json_object_get(
                            json_array_get(rules, 0), "resources"), 0)),
                        "secrets");
    json_decref(rules);

    /* its rules change */

    admin_ok(env, "PATCH", RBAC "/clusterroles/a-secret-reader",
             "{\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"secrets\"],"
             "\"verbs\":[\"get\"]},{\"apiGroups\":[\"\"],\"resources\":"
             "[\"events\"],\"verbs\":[\"list\"]}]}");
    json_decref(wait_rules(env, "ref-aggregate", 4));

    /* the label goes: so do its rules */

    admin_ok(env, "PATCH", RBAC "/clusterroles/a-secret-reader",
             "{\"metadata\":{\"labels\":null}}");
    json_decref(wait_rules(env, "ref-aggregate", 2));

    /* the other role goes: nothing is left */

    admin_ok(env, "DELETE", RBAC "/clusterroles/ref-configmap-reader",
             NULL);
    json_decref(wait_rules(env, "ref-aggregate", 0));

    /* the bootstrap admin: edit's rules (which are aggregate-to-edit's
       then view's), then aggregate-to-admin's */

    rules = wait_rules(env, "admin", 25);
    s = json_dumps(json_array_get(rules, 0), JSON_COMPACT);
    assert_string_equal(s, "{\"verbs\":[\"get\",\"list\",\"watch\"],"
                           "\"apiGroups\":[\"\"],\"resources\":"
                           "[\"pods/attach\",\"pods/exec\","
                           "\"pods/portforward\",\"pods/proxy\","
                           "\"secrets\",\"services/proxy\"]}");
    free(s);
    s = json_dumps(json_array_get(rules, 23), JSON_COMPACT);
    assert_string_equal(s, "{\"verbs\":[\"create\"],\"apiGroups\":"
                           "[\"authorization.k8s.io\"],\"resources\":"
                           "[\"localsubjectaccessreviews\"]}");
    free(s);
    json_decref(rules);

    api_env_destroy(env);
}

/*
 * The authorizer the request path asks leaves an allowed request without
 * a reason (no formatting per request); the access reviews' entry point
 * says which binding allowed it, as upstream.
 */
static void
test_allowed_reason_only_for_reviews(void **state)
{
    api_env_t          *env;
    gcp_api_t          *api;
    gcp_arena_t        *a;
    const char         *reason;
    gcp_authorizer_t   *az;
    gcp_authz_attrs_t   at;

    env = rbac_env(NULL);
    api = api_env_api(env);
    az = api->authorizer;

    assert_int_equal(rbac_status(env, &rbac_admin, "POST",
                                 "/api/v1/namespaces",
                                 "{\"metadata\":{\"name\":\"bench\"}}"),
                     201);
    assert_int_equal(rbac_status(env, &rbac_admin, "POST",
                                 RBAC "/namespaces/bench/roles",
                                 "{\"metadata\":{\"name\":\"r\"},"
                                 "\"rules\":[{\"apiGroups\":[\"\"],"
                                 "\"resources\":[\"configmaps\"],"
                                 "\"verbs\":[\"get\"]}]}"),
                     201);
    assert_int_equal(rbac_status(env, &rbac_admin, "POST",
                                 RBAC "/namespaces/bench/rolebindings",
                                 "{\"metadata\":{\"name\":\"rb\"},"
                                 "\"roleRef\":{\"kind\":\"Role\","
                                 "\"name\":\"r\"},\"subjects\":[{\"kind\":"
                                 "\"User\",\"name\":\"bench-reader\"}]}"),
                     201);
    rbac_sync(env);

    memset(&at, 0, sizeof(at));
    at.user = rbac_user("bench-reader", "system:authenticated", NULL);
    at.verb = "get";
    at.resource_request = 1;
    at.group = "";
    at.version = "v1";
    at.resource = "configmaps";
    at.subresource = "";
    at.ns = "bench";
    at.name = "one";

    a = gcp_arena_create(0);
    assert_non_null(a);

    reason = NULL;
    assert_int_equal(az->authorize(az, a, &at, &reason), GCP_AUTHZ_ALLOW);
    assert_null(reason);

    assert_int_equal(gcp_rbac_api_authorize(api, a, &at, &reason),
                     GCP_AUTHZ_ALLOW);
    assert_string_equal(reason, "RBAC: allowed by RoleBinding \"rb/bench\" "
                                "of Role \"r\" to User \"bench-reader\"");

    /* another verb: no opinion, and no role resolution error to give */
    at.verb = "delete";
    reason = NULL;
    assert_int_equal(az->authorize(az, a, &at, &reason),
                     GCP_AUTHZ_NO_OPINION);
    assert_null(reason);

    gcp_arena_destroy(a);
    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_authorize_matrix),
        cmocka_unit_test(test_forbidden_messages),
        cmocka_unit_test(test_index_follows_changes),
        cmocka_unit_test(test_escalation),
        cmocka_unit_test(test_aggregation_rule_needs_full_authority),
        cmocka_unit_test(test_aggregation_follows_labels),
        cmocka_unit_test(test_allowed_reason_only_for_reviews),
    };

    if (getenv("RBAC_FILTER")) {
        cmocka_set_test_filter(getenv("RBAC_FILTER"));
    }

    return cmocka_run_group_tests(tests, NULL, NULL);
}
