
/*
 * Unit tests: impersonation (core/authn/gcp_auth_impersonate.c) and the
 * authorization step with kube-apiserver's 403s (core/authn/gcp_auth_authz.c),
 * against a recording authorizer.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_client.h"
#include "gcp_op.h"
#include "support_auth.h"


#define TOKENS                                                              \
    "tok-admin,anchor-admin,uid-anchor-admin,system:masters\n"              \
    "tok-user,anchor-user,uid-anchor-user\n"

#define SSR_PATH  "/apis/authentication.k8s.io/v1/selfsubjectreviews"

#define MAX_RECS  32


/* What the authorizer was asked. */
typedef struct {
    char   user[64];
    char   line[512];       /* "verb group version resource sub ns name" */
} rec_t;


static auth_pki_t        *pki;
static auth_env_t        *env;
static gcp_authorizer_t  *saved;

static rec_t              recs[MAX_RECS];
static size_t             nrecs;

/* denials: attrs whose line starts with deny_prefix, for anchor-user and */
/* system:anonymous */
static const char        *deny_prefix;
static const char        *deny_reason;


static gcp_authz_decision_t
rec_authorize(gcp_authorizer_t *az, gcp_arena_t *a,
    const gcp_authz_attrs_t *attrs, const char **reason)
{
    rec_t       *r;
    const char  *user;

    user = attrs->user ? attrs->user->name : "";

    assert_true(nrecs < MAX_RECS);
    r = &recs[nrecs++];

    snprintf(r->user, sizeof(r->user), "%s", user);

    if (attrs->resource_request) {
        snprintf(r->line, sizeof(r->line), "%s %s %s %s %s %s %s",
                 attrs->verb, attrs->group, attrs->version, attrs->resource,
                 attrs->subresource, attrs->ns, attrs->name);

    } else {
        snprintf(r->line, sizeof(r->line), "%s %s", attrs->verb,
                 attrs->path);
    }

    if (deny_prefix
        && (strcmp(user, "anchor-user") == 0
            || strcmp(user, "system:anonymous") == 0
            || strcmp(user, "ctl") == 0)
        && strncmp(r->line, deny_prefix, strlen(deny_prefix)) == 0)
    {
        *reason = deny_reason;
        return GCP_AUTHZ_NO_OPINION;
    }

    return GCP_AUTHZ_ALLOW;
}


static void
rec_destroy(gcp_authorizer_t *az)
{
}


static gcp_authorizer_t  rec_authorizer = {
    "Recording", rec_authorize, rec_destroy, NULL
};


static int
setup(void **state)
{
    pki = auth_pki_create();
    env = auth_env_create(pki, TOKENS, 1, NULL);

    saved = env->api->authorizer;
    env->api->authorizer = &rec_authorizer;

    return 0;
}


static int
teardown(void **state)
{
    env->api->authorizer = saved;
    auth_env_destroy(env);
    auth_pki_destroy(pki);
    return 0;
}


static int
reset(void **state)
{
    nrecs = 0;
    deny_prefix = NULL;
    deny_reason = NULL;
    return 0;
}


static void
expect_rec(size_t i, const char *user, const char *line)
{
    assert_true(i < nrecs);
    assert_string_equal(recs[i].user, user);
    assert_string_equal(recs[i].line, line);
}


/* A request as the user of token, with name, value, ... headers. */

static api_resp_t *
call(const char *method, const char *path, const char *body,
    const char *token, ...)
{
    char            auth[128];
    size_t          n;
    va_list         ap;
    const char     *name;
    gcp_header_t    h[AUTH_MAX_HEADERS];
    api_req_opts_t  o;

    memset(&o, 0, sizeof(o));
    n = 0;

    if (token) {
        snprintf(auth, sizeof(auth), "Bearer %s", token);
        h[n].name = "Authorization";
        h[n++].value = auth;
    }

    va_start(ap, token);

    while ((name = va_arg(ap, const char *)) != NULL) {
        assert_true(n < AUTH_MAX_HEADERS);
        h[n].name = name;
        h[n++].value = va_arg(ap, const char *);
    }

    va_end(ap);

    o.headers = h;
    o.nheaders = n;

    return api_call_opts(env->env, method, path,
                         body ? "application/json" : NULL, body,
                         "application/json", &o);
}


static const char  *ssr = "{\"apiVersion\":\"authentication.k8s.io/v1\","
                          "\"kind\":\"SelfSubjectReview\"}";


static json_t *
user_info(api_resp_t *r)
{
    if (r->status != 201) {
        fail_msg("%d %s", r->status, r->body);
    }

    return json_object_get(json_object_get(r->json, "status"), "userInfo");
}


static void
test_impersonate_whoami(void **state)
{
    json_t      *info;
    api_resp_t  *r;

    /* 08-impersonate-whoami */

    r = call("POST", SSR_PATH, ssr, "tok-admin",
             "Impersonate-User", "jane",
             "Impersonate-Group", "developers",
             "Impersonate-Extra-Scopes", "view", NULL);

    info = user_info(r);
    assert_string_equal(api_str(info, "username", NULL), "jane");
    assert_null(json_object_get(info, "uid"));
    assert_string_equal(auth_join(json_object_get(info, "groups")),
                        "developers,system:authenticated");
    assert_string_equal(auth_join(json_object_get(json_object_get(info,
                                                  "extra"), "scopes")),
                        "view");
    assert_non_null(strstr(r->body, "\"status\":{\"userInfo\":{"
                                    "\"username\":\"jane\",\"groups\":["
                                    "\"developers\",\"system:authenticated\""
                                    "],\"extra\":{\"scopes\":[\"view\"]}}}"));
    api_resp_free(r);

    /* each impersonation authorized for the requester, then the request */
    /* for the impersonated user */

    assert_int_equal(nrecs, 4);
    expect_rec(0, "anchor-admin", "impersonate   users   jane");
    expect_rec(1, "anchor-admin", "impersonate   groups   developers");
    expect_rec(2, "anchor-admin", "impersonate authentication.k8s.io v1 "
               "userextras scopes  view");
    expect_rec(3, "jane", "create authentication.k8s.io v1 "
               "selfsubjectreviews   ");
}


static void
test_impersonate_serviceaccount(void **state)
{
    json_t      *info;
    api_resp_t  *r;

    /* 08-impersonate-serviceaccount */

    r = call("POST", SSR_PATH, ssr, "tok-admin", "Impersonate-User",
             "system:serviceaccount:ref-auth:ref-sa", NULL);

    info = user_info(r);
    assert_string_equal(api_str(info, "username", NULL),
                        "system:serviceaccount:ref-auth:ref-sa");
    assert_string_equal(auth_join(json_object_get(info, "groups")),
                        "system:serviceaccounts,system:serviceaccounts:"
                        "ref-auth,system:authenticated");
    api_resp_free(r);

    expect_rec(0, "anchor-admin", "impersonate   serviceaccounts  "
               "ref-auth ref-sa");

    /* groups given: they replace the service account's */

    r = call("POST", SSR_PATH, ssr, "tok-admin", "Impersonate-User",
             "system:serviceaccount:ref-auth:ref-sa", "Impersonate-Group",
             "g", NULL);
    assert_string_equal(auth_join(json_object_get(user_info(r), "groups")),
                        "g,system:authenticated");
    api_resp_free(r);

    /* not a valid service account name: a plain user */

    nrecs = 0;
    r = call("POST", SSR_PATH, ssr, "tok-admin", "Impersonate-User",
             "system:serviceaccount:Bad_NS:x", NULL);
    assert_string_equal(auth_join(json_object_get(user_info(r), "groups")),
                        "system:authenticated");
    api_resp_free(r);

    expect_rec(0, "anchor-admin", "impersonate   users   "
               "system:serviceaccount:Bad_NS:x");
}


static void
test_impersonate_uid_anonymous(void **state)
{
    json_t      *info;
    api_resp_t  *r;

    r = call("POST", SSR_PATH, ssr, "tok-admin", "Impersonate-User", "u",
             "Impersonate-Uid", "1234", "Impersonate-Group",
             "system:unauthenticated", NULL);

    info = user_info(r);
    assert_string_equal(api_str(info, "uid", NULL), "1234");

    /* system:unauthenticated given: no system:authenticated added */
    assert_string_equal(auth_join(json_object_get(info, "groups")),
                        "system:unauthenticated");
    api_resp_free(r);

    expect_rec(2, "anchor-admin", "impersonate authentication.k8s.io v1 "
               "uids   1234");

    r = call("POST", SSR_PATH, ssr, "tok-admin", "Impersonate-User",
             "system:anonymous", NULL);
    info = user_info(r);
    assert_string_equal(auth_join(json_object_get(info, "groups")),
                        "system:unauthenticated");
    api_resp_free(r);

    /* extra keys: lower case, path-unescaped */

    r = call("POST", SSR_PATH, ssr, "tok-admin", "Impersonate-User", "u",
             "Impersonate-Extra-Acme.com%2FProject", "p1",
             "impersonate-extra-acme.com%2fproject", "p2",
             "Impersonate-Extra-Bad%zz", "b", NULL);
    info = json_object_get(user_info(r), "extra");
    assert_string_equal(auth_join(json_object_get(info,
                                                  "acme.com/project")),
                        "p1,p2");
    assert_string_equal(auth_join(json_object_get(info, "bad%zz")), "b");
    api_resp_free(r);
}


static void
test_impersonate_without_user(void **state)
{
    api_resp_t  *r;

    /* 08-impersonate-group-without-user */

    r = call("GET", "/api/v1/namespaces", NULL, "tok-admin",
             "Impersonate-Group", "developers", NULL);
    assert_int_equal(r->status, 500);
    assert_string_equal(r->content_type, "text/plain; charset=utf-8");
    assert_string_equal(api_header(r, "X-Content-Type-Options"), "nosniff");
    assert_string_equal(r->body, "Internal Server Error: "
                        "\"/api/v1/namespaces\": requested [{Group  "
                        "developers    }] without impersonating a user\n");
    assert_int_equal(r->len, 110);
    api_resp_free(r);

    r = call("GET", "/api/v1/namespaces?limit=1", NULL, "tok-admin",
             "Impersonate-Group", "g", "Impersonate-Extra-K", "v",
             "Impersonate-Uid", "u", NULL);
    assert_int_equal(r->status, 500);
    assert_string_equal(r->body, "Internal Server Error: "
                        "\"/api/v1/namespaces?limit=1\": requested [{Group  "
                        "g    } {UserExtra  v  authentication.k8s.io/v1  k} "
                        "{UID  u  authentication.k8s.io/v1  }] without "
                        "impersonating a user\n");
    api_resp_free(r);

    /* nothing was authorized */
    assert_int_equal(nrecs, 0);
}


static void
test_impersonate_denied(void **state)
{
    api_resp_t  *r;

    deny_prefix = "impersonate";

    /* 08-impersonate-denied */

    r = call("GET", "/api/v1/namespaces", NULL, "tok-user",
             "Impersonate-User", "anchor-admin", NULL);
    assert_int_equal(r->status, 403);
    assert_string_equal(api_header(r, "X-Content-Type-Options"), "nosniff");
    assert_string_equal(r->body,
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"users \\\"anchor-admin\\\" is "
        "forbidden: User \\\"anchor-user\\\" cannot impersonate resource "
        "\\\"users\\\" in API group \\\"\\\" at the cluster scope\","
        "\"reason\":\"Forbidden\",\"details\":{\"name\":\"anchor-admin\","
        "\"kind\":\"users\"},\"code\":403}");
    api_resp_free(r);

    /* the user is allowed, an extra is not; with a reason */

    deny_prefix = "impersonate authentication.k8s.io";
    deny_reason = "no extras for you";

    r = call("GET", "/api/v1/namespaces", NULL, "tok-user",
             "Impersonate-User", "jane", "Impersonate-Extra-Scopes", "view",
             NULL);
    assert_int_equal(r->status, 403);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "userextras.authentication.k8s.io \"view\" is "
                        "forbidden: User \"anchor-user\" cannot impersonate "
                        "resource \"userextras/scopes\" in API group "
                        "\"authentication.k8s.io\" at the cluster scope: "
                        "no extras for you");
    assert_string_equal(api_str(r->json, "details", "group", NULL),
                        "authentication.k8s.io");
    assert_string_equal(api_str(r->json, "details", "kind", NULL),
                        "userextras");
    api_resp_free(r);

    /* a service account in a namespace */

    deny_prefix = "impersonate   serviceaccounts";
    deny_reason = NULL;

    r = call("GET", "/api/v1/namespaces", NULL, "tok-user",
             "Impersonate-User", "system:serviceaccount:ns1:sa1", NULL);
    assert_int_equal(r->status, 403);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "serviceaccounts \"sa1\" is forbidden: User "
                        "\"anchor-user\" cannot impersonate resource "
                        "\"serviceaccounts\" in API group \"\" in the "
                        "namespace \"ns1\"");
    api_resp_free(r);
}


/* The 403 of the authorization filter for a request of anchor-user. */

static void
expect_forbidden(const char *method, const char *path, const char *body,
    const char *token, const char *expected)
{
    api_resp_t  *r;

    r = call(method, path, body, token, NULL);

    assert_int_equal(r->status, 403);
    assert_string_equal(r->content_type, "application/json");
    assert_string_equal(api_header(r, "X-Content-Type-Options"), "nosniff");
    assert_string_equal(r->body, expected);

    api_resp_free(r);
}


static void
test_forbidden_messages(void **state)
{
    deny_prefix = "";

    /* 08-rbac-denied-cluster-list */
    expect_forbidden("GET", "/api/v1/namespaces", NULL, "tok-user",
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"namespaces is forbidden: "
        "User \\\"anchor-user\\\" cannot list resource \\\"namespaces\\\" in "
        "API group \\\"\\\" at the cluster scope\",\"reason\":\"Forbidden\","
        "\"details\":{\"kind\":\"namespaces\"},\"code\":403}");

    /* 08-anonymous-list-namespaces */
    expect_forbidden("GET", "/api/v1/namespaces", NULL, NULL,
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"namespaces is forbidden: "
        "User \\\"system:anonymous\\\" cannot list resource "
        "\\\"namespaces\\\" in API group \\\"\\\" at the cluster scope\","
        "\"reason\":\"Forbidden\",\"details\":{\"kind\":\"namespaces\"},"
        "\"code\":403}");

    /* 08-rbac-denied-namespaced-get */
    expect_forbidden("GET", "/api/v1/namespaces/ref-auth/configmaps/"
                     "some-name", NULL, "tok-user",
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"configmaps \\\"some-name\\\" "
        "is forbidden: User \\\"anchor-user\\\" cannot get resource "
        "\\\"configmaps\\\" in API group \\\"\\\" in the namespace "
        "\\\"ref-auth\\\"\",\"reason\":\"Forbidden\",\"details\":{\"name\":"
        "\"some-name\",\"kind\":\"configmaps\"},\"code\":403}");

    /* 08-rbac-denied-namespaced-create */
    expect_forbidden("POST", "/api/v1/namespaces/ref-auth/secrets",
                     "{\"apiVersion\":\"v1\",\"kind\":\"Secret\","
                     "\"metadata\":{\"name\":\"x\"}}", "tok-user",
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"secrets is forbidden: User "
        "\\\"anchor-user\\\" cannot create resource \\\"secrets\\\" in API "
        "group \\\"\\\" in the namespace \\\"ref-auth\\\"\",\"reason\":"
        "\"Forbidden\",\"details\":{\"kind\":\"secrets\"},\"code\":403}");

    /* 08-rbac-denied-nonresource */
    expect_forbidden("GET", "/metrics", NULL, "tok-user",
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"forbidden: User "
        "\\\"anchor-user\\\" cannot get path \\\"/metrics\\\"\",\"reason\":"
        "\"Forbidden\",\"details\":{},\"code\":403}");

    /* 08-rbac-denied-group-resource, a subresource (as -subresource) */
    expect_forbidden("GET", "/apis/coordination.k8s.io/v1/leases", NULL,
                     "tok-user",
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"leases.coordination.k8s.io is "
        "forbidden: User \\\"anchor-user\\\" cannot list resource "
        "\\\"leases\\\" in API group \\\"coordination.k8s.io\\\" at the "
        "cluster scope\",\"reason\":\"Forbidden\",\"details\":{\"group\":"
        "\"coordination.k8s.io\",\"kind\":\"leases\"},\"code\":403}");

    expect_forbidden("PUT", "/api/v1/namespaces/n1/status",
                     "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\"}",
                     "tok-user",
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"namespaces \\\"n1\\\" is "
        "forbidden: User \\\"anchor-user\\\" cannot update resource "
        "\\\"namespaces/status\\\" in API group \\\"\\\" in the namespace "
        "\\\"n1\\\"\",\"reason\":\"Forbidden\",\"details\":{\"name\":\"n1\","
        "\"kind\":\"namespaces\"},\"code\":403}");

    /* unknown resources are authorized first: 403, not 404 */
    deny_reason = "no";
    expect_forbidden("GET", "/api/v1/pods", NULL, "tok-user",
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"pods is forbidden: User "
        "\\\"anchor-user\\\" cannot list resource \\\"pods\\\" in API group "
        "\\\"\\\" at the cluster scope: no\",\"reason\":\"Forbidden\","
        "\"details\":{\"kind\":\"pods\"},\"code\":403}");

    /* the admin, and the anchor-user where allowed, go through */

    deny_prefix = "list";
    {
        api_resp_t  *r;

        r = call("GET", "/api/v1/namespaces", NULL, "tok-admin", NULL);
        assert_int_equal(r->status, 200);
        api_resp_free(r);

        r = call("GET", "/api/v1/namespaces/default", NULL, "tok-user",
                 NULL);
        assert_int_equal(r->status, 200);
        api_resp_free(r);
    }
}


/* The in-process client is authorized too. */

typedef struct {
    int   status;
    int   done;
} client_res_t;


static void
client_done(void *arg, gcp_client_resp_t *resp)
{
    client_res_t  *c = arg;

    c->status = resp->status;
    c->done = 1;
}


static void
test_in_process_client(void **state)
{
    gcp_arena_t   *a;
    client_res_t   c;

    static const char * const  groups[] = { NULL };
    static const gcp_user_t    ctl = { "ctl", "", groups, 0, NULL, 0 };

    deny_prefix = "list";

    a = gcp_arena_create(0);
    memset(&c, 0, sizeof(c));

    gcp_client_call(env->api, a, "GET", "/api/v1/namespaces", NULL, NULL,
                    &ctl, client_done, &c);

    while (!c.done) {
        api_spin(env->env, 10);
    }

    assert_int_equal(c.status, 403);
    expect_rec(0, "ctl", "list  v1 namespaces   ");

    memset(&c, 0, sizeof(c));
    gcp_client_call(env->api, a, "GET", "/api/v1/namespaces", NULL, NULL,
                    NULL, client_done, &c);

    while (!c.done) {
        api_spin(env->env, 10);
    }

    assert_int_equal(c.status, 200);
    expect_rec(1, "system:apiserver", "list  v1 namespaces   ");

    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test_setup(test_impersonate_whoami, reset),
        cmocka_unit_test_setup(test_impersonate_serviceaccount, reset),
        cmocka_unit_test_setup(test_impersonate_uid_anonymous, reset),
        cmocka_unit_test_setup(test_impersonate_without_user, reset),
        cmocka_unit_test_setup(test_impersonate_denied, reset),
        cmocka_unit_test_setup(test_forbidden_messages, reset),
        cmocka_unit_test_setup(test_in_process_client, reset),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
