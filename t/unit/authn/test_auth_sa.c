
/*
 * Unit tests: service-account tokens (core/authn/gcp_auth_sa.c): TokenRequest
 * (serviceaccounts/NAME/token), authentication with the tokens (issuer,
 * signature, audience, lifetime, the service account and a bound secret
 * still existing), and TokenReview.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_jwt.h"
#include "gcp_time.h"
#include "gcp_validation.h"
#include "support_auth.h"


#define ISSUER  "https://kubernetes.default.svc.cluster.local"

#define SA_PATH  "/api/v1/namespaces/default/serviceaccounts"
#define TR_PATH  "/apis/authentication.k8s.io/v1/tokenreviews"


static auth_pki_t  *pki;
static auth_env_t  *env;


static int
setup(void **state)
{
    pki = auth_pki_create();
    env = auth_env_create(pki, "tok-admin,admin,uid-admin,system:masters\n",
                          1, NULL);
    return 0;
}


static int
teardown(void **state)
{
    auth_env_destroy(env);
    auth_pki_destroy(pki);
    return 0;
}


static void
assert_prefix(const char *s, const char *prefix)
{
    if (strncmp(s, prefix, strlen(prefix)) != 0) {
        fail_msg("%s\ndoes not start with\n%s", s, prefix);
    }
}


static api_resp_t *
post(const char *path, const char *body)
{
    return api_call(env->env, "POST", path, "application/json", body,
                    "application/json");
}


/* Creates service account name in default; returns its uid (malloc'd). */

static char *
create_sa(const char *name)
{
    char         body[256], *uid;
    api_resp_t  *r;

    snprintf(body, sizeof(body), "{\"apiVersion\":\"v1\",\"kind\":"
             "\"ServiceAccount\",\"metadata\":{\"name\":\"%s\"}}", name);

    r = post(SA_PATH, body);
    assert_int_equal(r->status, 201);

    uid = strdup(api_str(r->json, "metadata", "uid", NULL));
    api_resp_free(r);

    return uid;
}


static void
delete_obj(const char *path)
{
    api_resp_t  *r;

    r = api_call(env->env, "DELETE", path, NULL, NULL, "application/json");
    assert_int_equal(r->status, 200);
    api_resp_free(r);
}


/* POST .../NAME/token with body; returns the response. */

static api_resp_t *
token_request(const char *name, const char *body)
{
    char  path[256];

    snprintf(path, sizeof(path), SA_PATH "/%s/token", name);

    return post(path, body);
}


/* A token for name (default audiences and lifetime), malloc'd. */

static char *
new_token(const char *name, const char *spec)
{
    char         body[512], *tok;
    api_resp_t  *r;

    snprintf(body, sizeof(body), "{\"apiVersion\":\"authentication.k8s.io"
             "/v1\",\"kind\":\"TokenRequest\",\"spec\":%s}",
             spec ? spec : "{}");

    r = token_request(name, body);

    if (r->status != 201) {
        fail_msg("token request: %d %s", r->status, r->body);
    }

    tok = strdup(api_str(r->json, "status", "token", NULL));
    api_resp_free(r);

    return tok;
}


/* The whoami of a bearer token: 201 (the response) or a 401. */

static api_resp_t *
whoami_token(const char *tok)
{
    char        h[4096];
    auth_req_t  q;

    snprintf(h, sizeof(h), "Bearer %s", tok);

    return auth_whoami(env, auth_req(&q, NULL, "Authorization", h, NULL));
}


static void
expect_status(const char *tok, int status)
{
    api_resp_t  *r;

    r = whoami_token(tok);

    if (r->status != status) {
        fail_msg("expected %d, got %d %s", status, r->status, r->body);
    }

    api_resp_free(r);
}


/* The claims of a token, decoded (the caller decrefs). */

static json_t *
claims_of(const char *tok)
{
    json_t       *c;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    c = gcp_jwt_peek_claims(a, tok, strlen(tok));
    assert_non_null(c);
    json_incref(c);
    gcp_arena_destroy(a);

    return c;
}


static void
test_token_request(void **state)
{
    char        *uid, *tok;
    json_t      *c, *k8s;
    int64_t      exp, iat;
    api_resp_t  *r;
    const char  *created, *expires;
    struct timespec  t1, t2;

    uid = create_sa("sa-req");

    r = token_request("sa-req", "{\"apiVersion\":\"authentication.k8s.io/v1\","
                      "\"kind\":\"TokenRequest\",\"spec\":{}}");
    assert_int_equal(r->status, 201);

    assert_string_equal(api_str(r->json, "kind", NULL), "TokenRequest");
    assert_string_equal(api_str(r->json, "apiVersion", NULL),
                        "authentication.k8s.io/v1");
    assert_string_equal(api_str(r->json, "metadata", "name", NULL),
                        "sa-req");
    assert_string_equal(api_str(r->json, "metadata", "namespace", NULL),
                        "default");

    /* defaults: the API audiences, an hour, no binding (null) */

    assert_string_equal(auth_join(json_object_get(json_object_get(r->json,
                                  "spec"), "audiences")), ISSUER);
    assert_int_equal(json_integer_value(json_object_get(
        json_object_get(r->json, "spec"), "expirationSeconds")), 3600);
    assert_true(json_is_null(json_object_get(json_object_get(r->json,
                                                             "spec"),
                                             "boundObjectRef")));

    /* kube-apiserver's field order */
    assert_non_null(strstr(r->body, "\"spec\":{\"audiences\":[\"" ISSUER
                            "\"],\"expirationSeconds\":3600,"
                            "\"boundObjectRef\":null},\"status\":{"
                            "\"token\":\"ey"));
    assert_prefix(r->body, "{\"kind\":\"TokenRequest\","
                  "\"apiVersion\":\"authentication.k8s.io/v1\","
                  "\"metadata\":{\"name\":\"sa-req\","
                  "\"namespace\":\"default\",\"creationTimestamp\":\"");

    created = api_str(r->json, "metadata", "creationTimestamp", NULL);
    expires = api_str(r->json, "status", "expirationTimestamp", NULL);
    assert_int_equal(gcp_time_parse(NULL, created, strlen(created), &t1,
                                    NULL), GCP_OK);
    assert_int_equal(gcp_time_parse(NULL, expires, strlen(expires), &t2,
                                    NULL), GCP_OK);
    assert_int_equal(t2.tv_sec - t1.tv_sec, 3600);

    /* the claims, as kube-apiserver's */

    tok = strdup(api_str(r->json, "status", "token", NULL));
    api_resp_free(r);

    c = claims_of(tok);

    assert_string_equal(auth_join(json_object_get(c, "aud")), ISSUER);
    assert_string_equal(api_str(c, "iss", NULL), ISSUER);
    assert_string_equal(api_str(c, "sub", NULL),
                        "system:serviceaccount:default:sa-req");
    assert_int_equal(strlen(api_str(c, "jti", NULL)), 36);

    iat = json_integer_value(json_object_get(c, "iat"));
    exp = json_integer_value(json_object_get(c, "exp"));
    assert_int_equal(exp - iat, 3600);
    assert_int_equal(iat, t1.tv_sec);
    assert_int_equal(json_integer_value(json_object_get(c, "nbf")), iat);

    k8s = json_object_get(c, "kubernetes.io");
    assert_string_equal(api_str(k8s, "namespace", NULL), "default");
    assert_string_equal(api_str(k8s, "serviceaccount", "name", NULL),
                        "sa-req");
    assert_string_equal(api_str(k8s, "serviceaccount", "uid", NULL), uid);
    assert_null(json_object_get(k8s, "secret"));

    json_decref(c);
    free(tok);

    /* audiences and lifetime as asked */

    tok = new_token("sa-req", "{\"audiences\":[\"a1\",\"a2\"],"
                    "\"expirationSeconds\":7200}");
    c = claims_of(tok);
    assert_string_equal(auth_join(json_object_get(c, "aud")), "a1,a2");
    assert_int_equal(json_integer_value(json_object_get(c, "exp"))
                     - json_integer_value(json_object_get(c, "iat")), 7200);
    json_decref(c);
    free(tok);

    free(uid);
}


static void
test_token_request_errors(void **state)
{
    char        *uid;
    api_resp_t  *r;

    uid = create_sa("sa-err");

    /* 08-tokenrequest-too-short */

    r = token_request("sa-err", "{\"apiVersion\":\"authentication.k8s.io/v1"
                      "\",\"kind\":\"TokenRequest\",\"spec\":"
                      "{\"expirationSeconds\":60}}");
    assert_int_equal(r->status, 422);
    assert_string_equal(r->body,
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"TokenRequest.authentication."
        "k8s.io \\\"\\\" is invalid: spec.expirationSeconds: Invalid value: "
        "60: may not specify a duration less than 10 minutes\",\"reason\":"
        "\"Invalid\",\"details\":{\"group\":\"authentication.k8s.io\","
        "\"kind\":\"TokenRequest\",\"causes\":[{\"reason\":"
        "\"FieldValueInvalid\",\"message\":\"Invalid value: 60: may not "
        "specify a duration less than 10 minutes\",\"field\":"
        "\"spec.expirationSeconds\"}]},\"code\":422}");
    api_resp_free(r);

    r = token_request("sa-err", "{\"spec\":{\"expirationSeconds\":"
                      "4294967297}}");
    assert_int_equal(r->status, 422);
    assert_non_null(strstr(r->body, "may not specify a duration larger "
                                     "than 2^32 seconds"));
    api_resp_free(r);

    /* 08-tokenrequest-missing-sa */

    r = token_request("nosuch", "{\"apiVersion\":\"authentication.k8s.io/v1"
                      "\",\"kind\":\"TokenRequest\",\"spec\":{}}");
    assert_int_equal(r->status, 404);
    assert_string_equal(r->body,
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"serviceaccounts \\\"nosuch\\\" "
        "not found\",\"reason\":\"NotFound\",\"details\":{\"name\":"
        "\"nosuch\",\"kind\":\"serviceaccounts\"},\"code\":404}");
    api_resp_free(r);

    /* the body may not name another service account */

    r = token_request("sa-err", "{\"metadata\":{\"name\":\"other\"},"
                      "\"spec\":{}}");
    assert_int_equal(r->status, 422);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "TokenRequest.authentication.k8s.io \"sa-err\" is "
                        "invalid: metadata.name: Invalid value: \"other\": "
                        "must match the service account name if specified");
    api_resp_free(r);

    r = token_request("sa-err", "{\"metadata\":{\"namespace\":\"kube-system"
                      "\"},\"spec\":{}}");
    assert_int_equal(r->status, 422);
    assert_non_null(strstr(api_str(r->json, "message", NULL),
                            "metadata.namespace: Invalid value: "
                            "\"kube-system\": must match the service "
                            "account namespace if specified"));
    api_resp_free(r);

    /* a wrong kind in the body: the decoding error */
    r = token_request("sa-err", "{\"apiVersion\":\"authentication.k8s.io/v1"
                      "\",\"kind\":\"TokenReview\"}");
    assert_int_equal(r->status, 400);
    api_resp_free(r);

    /* only Secrets can be bound */
    r = token_request("sa-err", "{\"spec\":{\"boundObjectRef\":{\"kind\":"
                      "\"Pod\",\"apiVersion\":\"v1\",\"name\":\"p\"}}}");
    assert_int_equal(r->status, 400);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "cannot bind token to object of type /v1, Kind=Pod");
    api_resp_free(r);

    /* other verbs on the subresource */
    r = api_call(env->env, "GET", SA_PATH "/sa-err/token", NULL, NULL,
                 "application/json");
    assert_int_equal(r->status, 405);
    api_resp_free(r);

    free(uid);
}


static void
test_token_authentication(void **state)
{
    char        *uid, *tok, want[64];
    json_t      *c, *info;
    api_resp_t  *r;

    uid = create_sa("sa-auth");
    tok = new_token("sa-auth", NULL);

    /* 08-serviceaccount-whoami */

    r = whoami_token(tok);
    assert_int_equal(r->status, 201);

    info = json_object_get(json_object_get(r->json, "status"), "userInfo");
    assert_string_equal(api_str(info, "username", NULL),
                        "system:serviceaccount:default:sa-auth");
    assert_string_equal(api_str(info, "uid", NULL), uid);
    assert_string_equal(auth_join(json_object_get(info, "groups")),
                        "system:serviceaccounts,system:serviceaccounts:"
                        "default,system:authenticated");

    c = claims_of(tok);
    snprintf(want, sizeof(want), "JTI=%s", api_str(c, "jti", NULL));
    assert_string_equal(auth_join(json_object_get(json_object_get(info,
                            "extra"),
                            "authentication.kubernetes.io/credential-id")),
                        want);
    json_decref(c);
    api_resp_free(r);

    /* deleted: refused at once; recreated with the same name: another */
    /* uid, still refused */

    delete_obj(SA_PATH "/sa-auth");
    expect_status(tok, 401);

    free(uid);
    uid = create_sa("sa-auth");
    expect_status(tok, 401);

    free(tok);
    tok = new_token("sa-auth", NULL);
    expect_status(tok, 201);

    free(tok);
    free(uid);
}


static void
test_token_lifetime(void **state)
{
    char             *uid, *tok;
    struct timespec   now, later;

    uid = create_sa("sa-time");
    tok = new_token("sa-time", "{\"expirationSeconds\":600}");

    now = gcp_time_now();
    later = now;

    /* a minute of leeway after exp, none more */

    later.tv_sec = now.tv_sec + 600 + 50;
    gcp_time_set_fake(&later);
    expect_status(tok, 201);

    later.tv_sec = now.tv_sec + 600 + 70;
    gcp_time_set_fake(&later);
    expect_status(tok, 401);

    /* issued in the future (more than the leeway) */

    later.tv_sec = now.tv_sec - 120;
    gcp_time_set_fake(&later);
    expect_status(tok, 401);

    gcp_time_set_fake(NULL);
    expect_status(tok, 201);

    free(tok);
    free(uid);
}


/* Signs claims with the key of path. */

static char *
forge(const char *path, json_t *claims)
{
    char            err[256], *tok;
    gcp_arena_t    *a;
    gcp_jwt_key_t  *key;

    a = gcp_arena_create(0);
    key = gcp_jwt_key_load_private(path, err, sizeof(err));
    assert_non_null(key);

    tok = strdup(gcp_jwt_sign(a, key, claims));

    gcp_jwt_key_free(key);
    gcp_arena_destroy(a);

    return tok;
}


static void
test_token_forged(void **state)
{
    char     *uid, *tok, *bad;
    json_t   *c;
    int64_t   now;

    uid = create_sa("sa-forge");
    tok = new_token("sa-forge", NULL);
    c = claims_of(tok);

    /* the same claims signed by our key: accepted (the signature is the */
    /* only thing that binds them) */
    bad = forge(pki->rsa_key_file, c);
    expect_status(bad, 201);
    free(bad);

    /* signed by another key */
    bad = forge(pki->ec_key_file, c);
    expect_status(bad, 401);
    free(bad);

    /* expired long ago */
    now = (int64_t) gcp_time_now().tv_sec;
    json_object_set_new(c, "exp", json_integer(now - 3600));
    bad = forge(pki->rsa_key_file, c);
    expect_status(bad, 401);
    free(bad);

    /* another issuer: not a token of ours at all */
    json_object_set_new(c, "exp", json_integer(now + 3600));
    json_object_set_new(c, "iss", json_string("https://elsewhere"));
    bad = forge(pki->rsa_key_file, c);
    expect_status(bad, 401);
    free(bad);

    /* another service account uid */
    json_object_set_new(c, "iss", json_string(ISSUER));
    json_object_set_new(json_object_get(json_object_get(c, "kubernetes.io"),
                                        "serviceaccount"),
                        "uid", json_string("0000"));
    bad = forge(pki->rsa_key_file, c);
    expect_status(bad, 401);
    free(bad);

    /* not a JWT, a truncated one */
    expect_status("not.a.jwt", 401);
    tok[strlen(tok) - 5] = '\0';
    expect_status(tok, 401);

    json_decref(c);
    free(tok);
    free(uid);
}


static void
test_token_audiences(void **state)
{
    char  *uid, *tok;

    uid = create_sa("sa-aud");

    /* a token for other audiences is no API credential */
    tok = new_token("sa-aud", "{\"audiences\":[\"vault\"]}");
    expect_status(tok, 401);
    free(tok);

    /* one of them the API's: accepted */
    tok = new_token("sa-aud", "{\"audiences\":[\"vault\",\"" ISSUER "\"]}");
    expect_status(tok, 201);
    free(tok);

    free(uid);
}


static void
test_token_bound_secret(void **state)
{
    char        *uid, *tok, body[512], suid[64];
    json_t      *c;
    api_resp_t  *r;

    uid = create_sa("sa-bound");

    r = post("/api/v1/namespaces/default/secrets",
             "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":"
             "{\"name\":\"bound\"}}");
    assert_int_equal(r->status, 201);
    snprintf(suid, sizeof(suid), "%s",
             api_str(r->json, "metadata", "uid", NULL));
    api_resp_free(r);

    /* a wrong uid in the reference: 409 */

    r = token_request("sa-bound", "{\"spec\":{\"boundObjectRef\":{\"kind\":"
                      "\"Secret\",\"apiVersion\":\"v1\",\"name\":\"bound\","
                      "\"uid\":\"1234\"}}}");
    assert_int_equal(r->status, 409);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "Operation cannot be fulfilled on Secret \"bound\": "
                        "the UID in the bound object reference (1234) does "
                        "not match the UID in record. The object might have "
                        "been deleted and then recreated");
    api_resp_free(r);

    /* a missing secret: 404 */

    r = token_request("sa-bound", "{\"spec\":{\"boundObjectRef\":{\"kind\":"
                      "\"Secret\",\"apiVersion\":\"v1\",\"name\":\"nosuch\"}}"
                      "}");
    assert_int_equal(r->status, 404);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "secrets \"nosuch\" not found");
    api_resp_free(r);

    snprintf(body, sizeof(body), "{\"boundObjectRef\":{\"kind\":\"Secret\","
             "\"apiVersion\":\"v1\",\"name\":\"bound\",\"uid\":\"%s\"}}",
             suid);
    tok = new_token("sa-bound", body);

    c = claims_of(tok);
    assert_string_equal(api_str(c, "kubernetes.io", "secret", "name", NULL),
                        "bound");
    assert_string_equal(api_str(c, "kubernetes.io", "secret", "uid", NULL),
                        suid);
    json_decref(c);

    expect_status(tok, 201);

    /* deleting the secret invalidates the token */
    delete_obj("/api/v1/namespaces/default/secrets/bound");
    expect_status(tok, 401);

    free(tok);
    free(uid);
}


/* A TokenReview of tok for audiences (JSON array text, or NULL). */

static api_resp_t *
review(const char *tok, const char *audiences)
{
    char         *body;
    api_resp_t   *r;

    body = malloc(strlen(tok) + 256);
    assert_non_null(body);

    sprintf(body, "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":"
            "\"TokenReview\",\"spec\":{\"token\":\"%s\"%s%s}}", tok,
            audiences ? ",\"audiences\":" : "", audiences ? audiences : "");

    r = post(TR_PATH, body);
    free(body);

    assert_int_equal(r->status, 201);

    return r;
}


static void
test_token_review(void **state)
{
    char        *uid, *tok, *bad, *want;
    json_t      *st, *c;
    api_resp_t  *r;

    uid = create_sa("sa-rev");
    tok = new_token("sa-rev", NULL);

    /* 08-tokenreview-valid */

    r = review(tok, NULL);
    st = json_object_get(r->json, "status");

    assert_true(json_is_true(json_object_get(st, "authenticated")));
    assert_string_equal(api_str(st, "user", "username", NULL),
                        "system:serviceaccount:default:sa-rev");
    assert_string_equal(api_str(st, "user", "uid", NULL), uid);
    assert_string_equal(auth_join(json_object_get(json_object_get(st,
                                  "user"), "groups")),
                        "system:serviceaccounts,system:serviceaccounts:"
                        "default,system:authenticated");
    assert_string_equal(auth_join(json_object_get(st, "audiences")),
                        ISSUER);
    assert_null(json_object_get(st, "error"));

    /* the spec is echoed, metadata.creationTimestamp null */
    assert_string_equal(api_str(r->json, "spec", "token", NULL), tok);
    assert_true(json_is_null(json_object_get(json_object_get(r->json,
                                             "metadata"),
                                             "creationTimestamp")));
    assert_prefix(r->body, "{\"kind\":\"TokenReview\","
                  "\"apiVersion\":\"authentication.k8s.io/v1\","
                  "\"metadata\":{\"creationTimestamp\":null},"
                  "\"spec\":{\"token\":\"");
    assert_non_null(strstr(r->body, "\"},\"status\":{\"authenticated\":true,"
                                    "\"user\":{\"username\":"));
    api_resp_free(r);

    /* 08-tokenreview-wrong-audience */

    r = review(tok, "[\"other-audience\"]");
    st = json_object_get(r->json, "status");
    assert_null(json_object_get(st, "authenticated"));
    assert_int_equal(json_object_size(json_object_get(st, "user")), 0);
    assert_string_equal(api_str(st, "error", NULL),
                        "[invalid bearer token, token audiences [\"" ISSUER
                        "\"] is invalid for the target audiences "
                        "[\"other-audience\"]]");
    assert_non_null(strstr(r->body, "\"status\":{\"user\":{},\"error\":"));
    assert_non_null(strstr(r->body, ",\"audiences\":[\"other-audience\"]}"));
    api_resp_free(r);

    /* 08-tokenreview-invalid: another signature */

    c = claims_of(tok);
    bad = forge(pki->ec_key_file, c);
    json_decref(c);

    r = review(bad, NULL);
    st = json_object_get(r->json, "status");
    assert_null(json_object_get(st, "authenticated"));
    assert_string_equal(api_str(st, "error", NULL),
                        "[invalid bearer token, square/go-jose: error in "
                        "cryptographic primitive]");
    api_resp_free(r);
    free(bad);

    /* a token nobody knows */
    r = review("garbage", NULL);
    assert_string_equal(api_str(r->json, "status", "error", NULL),
                        "invalid bearer token");
    api_resp_free(r);

    /* a static token, for the API audiences only */

    r = review("tok-admin", NULL);
    st = json_object_get(r->json, "status");
    assert_true(json_is_true(json_object_get(st, "authenticated")));
    assert_string_equal(api_str(st, "user", "username", NULL), "admin");
    assert_string_equal(auth_join(json_object_get(json_object_get(st,
                                  "user"), "groups")),
                        "system:masters,system:authenticated");
    assert_string_equal(auth_join(json_object_get(st, "audiences")),
                        ISSUER);
    api_resp_free(r);

    r = review("tok-admin", "[\"vault\"]");
    assert_string_equal(api_str(r->json, "status", "error", NULL),
                        "invalid bearer token");
    api_resp_free(r);

    /* a deleted service account */
    delete_obj(SA_PATH "/sa-rev");

    r = review(tok, NULL);
    want = "[invalid bearer token, serviceaccounts \"sa-rev\" not found]";
    assert_string_equal(api_str(r->json, "status", "error", NULL), want);
    api_resp_free(r);

    /* no token: 400 */
    r = post(TR_PATH, "{\"apiVersion\":\"authentication.k8s.io/v1\","
             "\"kind\":\"TokenReview\",\"spec\":{}}");
    assert_int_equal(r->status, 400);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "token is required for TokenReview in "
                        "authentication");
    api_resp_free(r);

    /* create only */
    r = api_call(env->env, "GET", TR_PATH, NULL, NULL, "application/json");
    assert_int_equal(r->status, 405);
    api_resp_free(r);

    free(tok);
    free(uid);
}


static void
test_no_signing_key(void **state)
{
    char             *uid, *tok;
    auth_env_t       *e, *save;
    api_resp_t       *r;
    gcp_auth_conf_t   conf;

    const char * const  keys[] = { pki->rsa_key_file, NULL };

    /* tokens issued by the usual instance */
    uid = create_sa("sa-keys");
    tok = new_token("sa-keys", NULL);

    /* without a signing key there is no TokenRequest (404), and tokens */
    /* are verified with the keys of gcp_service_account_key_file */

    memset(&conf, 0, sizeof(conf));
    conf.anonymous = 1;
    conf.sa_key_files = keys;

    e = auth_env_create_conf(&conf, NULL);

    r = api_call(e->env, "POST", SA_PATH "/default/token",
                 "application/json", "{}", "application/json");
    assert_int_equal(r->status, 404);
    api_resp_free(r);

    /* the signature verifies with the key file; the service account */
    /* just does not exist in this store */
    save = env;
    env = e;
    expect_status(tok, 401);

    r = review(tok, NULL);
    assert_string_equal(api_str(r->json, "status", "error", NULL),
                        "[invalid bearer token, serviceaccounts \"sa-keys\" "
                        "not found]");
    api_resp_free(r);
    env = save;

    auth_env_destroy(e);
    free(tok);
    free(uid);
}


/* A TokenReview of tok says its signature does not verify. */

static void
expect_signature_refused(const char *tok)
{
    api_resp_t  *r;

    r = review(tok, NULL);
    assert_string_equal(api_str(r->json, "status", "error", NULL),
                        "[invalid bearer token, square/go-jose: error in "
                        "cryptographic primitive]");
    api_resp_free(r);
}


/* An ECDSA P-256 signing key: ES256 tokens, issued and accepted. */

static void
test_es256_signing_key(void **state)
{
    char             *uid, *tok;
    auth_env_t       *e, *save;
    gcp_jwt_t         jwt;
    api_resp_t       *r;
    gcp_arena_t      *a;
    gcp_auth_conf_t   conf;

    memset(&conf, 0, sizeof(conf));
    conf.anonymous = 1;
    conf.sa_signing_key_file = pki->ec_key_file;

    e = auth_env_create_conf(&conf, NULL);

    save = env;
    env = e;

    uid = create_sa("sa-ec");
    tok = new_token("sa-ec", NULL);

    a = gcp_arena_create(0);
    assert_int_equal(gcp_jwt_parse(a, tok, strlen(tok), &jwt), GCP_OK);
    assert_string_equal(jwt.alg, "ES256");
    gcp_arena_destroy(a);

    r = whoami_token(tok);
    assert_int_equal(r->status, 201);
    assert_string_equal(api_str(r->json, "status", "userInfo", "username",
                                NULL),
                        "system:serviceaccount:default:sa-ec");
    assert_string_equal(api_str(r->json, "status", "userInfo", "uid", NULL),
                        uid);
    api_resp_free(r);

    /* the RSA instance does not accept it, nor this one the RSA tokens */
    env = save;
    expect_signature_refused(tok);
    free(tok);
    free(uid);

    uid = create_sa("sa-rsa");
    tok = new_token("sa-rsa", NULL);
    env = e;
    expect_signature_refused(tok);
    env = save;

    auth_env_destroy(e);
    free(tok);
    free(uid);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_token_request),
        cmocka_unit_test(test_token_request_errors),
        cmocka_unit_test(test_token_authentication),
        cmocka_unit_test(test_token_lifetime),
        cmocka_unit_test(test_token_forged),
        cmocka_unit_test(test_token_audiences),
        cmocka_unit_test(test_token_bound_secret),
        cmocka_unit_test(test_token_review),
        cmocka_unit_test(test_no_signing_key),
        cmocka_unit_test(test_es256_signing_key),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
