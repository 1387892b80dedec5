
/*
 * Unit tests: authenticators of the request path (core/authn/gcp_auth*.c),
 * seen through SelfSubjectReview: client certificates, static tokens, the
 * front proxy, anonymous requests, and the 401s.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_op.h"
#include "gcp_protobuf.h"
#include "gcp_time.h"
#include "support_auth.h"


#define TOKENS                                                              \
    "tok-alice,alice,uid-alice,\"dev,ops\"\n"                               \
    "tok-admin,admin,uid-admin,system:masters\n"                            \
    "tok-plain,plain,uid-plain\n"


static auth_pki_t  *pki;
static auth_env_t  *env;


static int
setup(void **state)
{
    pki = auth_pki_create();
    env = auth_env_create(pki, TOKENS, 1, NULL);
    return 0;
}


static int
teardown(void **state)
{
    auth_env_destroy(env);
    auth_pki_destroy(pki);
    return 0;
}


/* whoami as opts must answer 201 for username with groups (joined). */

static json_t *
whoami_ok(const api_req_opts_t *opts, const char *username,
    const char *groups)
{
    json_t      *info;
    api_resp_t  *r;

    r = auth_whoami(env, opts);

    if (r->status != 201) {
        fail_msg("whoami %s: %d %s", username, r->status, r->body);
    }

    assert_string_equal(api_str(r->json, "kind", NULL), "SelfSubjectReview");
    assert_string_equal(api_str(r->json, "apiVersion", NULL),
                        "authentication.k8s.io/v1");
    assert_non_null(api_str(r->json, "metadata", "creationTimestamp", NULL));

    info = json_object_get(json_object_get(r->json, "status"), "userInfo");
    assert_string_equal(api_str(info, "username", NULL), username);
    assert_string_equal(auth_join(json_object_get(info, "groups")), groups);

    json_incref(info);
    api_resp_free(r);

    return info;
}


/* The 401 of kube-apiserver, byte for byte. */

static void
whoami_401(const api_req_opts_t *opts)
{
    api_resp_t  *r;

    r = auth_whoami(env, opts);

    assert_int_equal(r->status, 401);
    assert_string_equal(r->content_type, "application/json");
    assert_string_equal(r->body,
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                        "\"metadata\":{},\"status\":\"Failure\","
                        "\"message\":\"Unauthorized\",\"reason\":"
                        "\"Unauthorized\",\"code\":401}");
    assert_null(api_header(r, "WWW-Authenticate"));

    api_resp_free(r);
}


static void
test_anonymous(void **state)
{
    json_t      *info;
    auth_req_t   q;

    info = whoami_ok(NULL, "system:anonymous", "system:unauthenticated");
    assert_null(json_object_get(info, "uid"));
    assert_null(json_object_get(info, "extra"));
    json_decref(info);

    /* another scheme than Bearer, an empty bearer token: anonymous */

    json_decref(whoami_ok(auth_req(&q, NULL, "Authorization",
                                   "Basic YWxpY2U6eA==", NULL),
                          "system:anonymous", "system:unauthenticated"));
    json_decref(whoami_ok(auth_req(&q, NULL, "Authorization", "Bearer ",
                                   NULL),
                          "system:anonymous", "system:unauthenticated"));

    /* front-proxy headers without a front-proxy certificate: ignored */

    json_decref(whoami_ok(auth_req(&q, NULL, "X-Remote-User", "root",
                                   "X-Remote-Group", "system:masters", NULL),
                          "system:anonymous", "system:unauthenticated"));
}


static void
test_static_tokens(void **state)
{
    json_t      *info;
    auth_req_t   q;

    info = whoami_ok(auth_req(&q, NULL, "Authorization", "Bearer tok-alice",
                              NULL),
                     "alice", "dev,ops,system:authenticated");
    assert_string_equal(api_str(info, "uid", NULL), "uid-alice");
    json_decref(info);

    /* "bearer" in any case, spaces around */
    json_decref(whoami_ok(auth_req(&q, NULL, "authorization",
                                   "  bEaReR tok-admin  ", NULL),
                          "admin", "system:masters,system:authenticated"));

    /* no groups column */
    json_decref(whoami_ok(auth_req(&q, NULL, "Authorization",
                                   "Bearer tok-plain", NULL),
                          "plain", "system:authenticated"));

    /* an unknown token is refused even with anonymous allowed */
    whoami_401(auth_req(&q, NULL, "Authorization", "Bearer tok-nobody",
                        NULL));
    whoami_401(auth_req(&q, NULL, "Authorization", "Bearer tok-alic", NULL));
    whoami_401(auth_req(&q, NULL, "Authorization", "Bearer tok-alicex",
                        NULL));
}


static const char * const  masters_team[] = { "system:masters", "team",
                                              NULL };


static void
test_client_certs(void **state)
{
    char        *cert, *hex;
    json_t      *info, *ids;
    auth_req_t   q;

    cert = auth_pki_cert(pki->ca_key, pki->ca, "bob", masters_team, -60,
                         3600, 1, NULL);

    info = whoami_ok(auth_req(&q, cert, NULL), "bob",
                     "system:masters,team,system:authenticated");
    assert_null(json_object_get(info, "uid"));

    ids = json_object_get(json_object_get(info, "extra"),
                          "authentication.kubernetes.io/credential-id");
    assert_int_equal(json_array_size(ids), 1);

    hex = (char *) json_string_value(json_array_get(ids, 0));
    assert_int_equal(strncmp(hex, "X509SHA256=", 11), 0);
    assert_int_equal(strlen(hex), 11 + 64);
    assert_int_equal(strspn(hex + 11, "0123456789abcdef"), 64);
    json_decref(info);

    /* the certificate wins over a token, and over X-Remote-User */
    json_decref(whoami_ok(auth_req(&q, cert, "Authorization",
                                   "Bearer tok-alice", "X-Remote-User",
                                   "carol", NULL),
                          "bob", "system:masters,team,system:authenticated"));
    free(cert);

    /* through an intermediate CA */
    {
        X509      *mid;
        EVP_PKEY  *mid_key;

        auth_pki_intermediate(pki->ca_key, pki->ca, "mid", &mid, &mid_key);
        cert = auth_pki_cert(mid_key, mid, "dave", NULL, -60, 3600, 1, mid);

        json_decref(whoami_ok(auth_req(&q, cert, NULL), "dave",
                              "system:authenticated"));

        free(cert);

        /* without the intermediate the chain is incomplete */
        cert = auth_pki_cert(mid_key, mid, "dave", NULL, -60, 3600, 1, NULL);
        whoami_401(auth_req(&q, cert, NULL));
        free(cert);

        X509_free(mid);
        EVP_PKEY_free(mid_key);
    }

    /*
     * A certificate without CN is no user; but it is no front-proxy
     * certificate either, an error for the front-proxy authenticator
     * upstream as here: 401, not anonymous.
     */
    cert = auth_pki_cert(pki->ca_key, pki->ca, "", masters_team, -60, 3600,
                         1, NULL);
    whoami_401(auth_req(&q, cert, NULL));
    free(cert);
}


/* Verified chains are remembered until they expire, no longer. */

static void
test_client_cert_cache(void **state)
{
    char             *cert;
    auth_req_t        q;
    struct timespec   t;

    cert = auth_pki_cert(pki->ca_key, pki->ca, "carl", NULL, -60, 3600, 1,
                         NULL);

    json_decref(whoami_ok(auth_req(&q, cert, NULL), "carl",
                          "system:authenticated"));
    json_decref(whoami_ok(auth_req(&q, cert, NULL), "carl",
                          "system:authenticated"));

    /* past its notAfter the remembered verdict is gone */
    t = gcp_time_now();
    t.tv_sec += 3700;
    gcp_time_set_fake(&t);
    whoami_401(auth_req(&q, cert, NULL));

    gcp_time_set_fake(NULL);
    json_decref(whoami_ok(auth_req(&q, cert, NULL), "carl",
                          "system:authenticated"));

    /* a certificate not valid yet is not remembered as refused */
    free(cert);
    cert = auth_pki_cert(pki->ca_key, pki->ca, "carl", NULL, 600, 3600, 1,
                         NULL);
    whoami_401(auth_req(&q, cert, NULL));

    t = gcp_time_now();
    t.tv_sec += 700;
    gcp_time_set_fake(&t);
    json_decref(whoami_ok(auth_req(&q, cert, NULL), "carl",
                          "system:authenticated"));
    gcp_time_set_fake(NULL);

    free(cert);
}


static void
test_client_certs_refused(void **state)
{
    char        *cert;
    auth_req_t   q;

    /* another CA */
    cert = auth_pki_cert(pki->other_key, pki->other, "bob", masters_team,
                         -60, 3600, 1, NULL);
    whoami_401(auth_req(&q, cert, NULL));

    /* ... even with anonymous allowed; but a valid token still wins */
    json_decref(whoami_ok(auth_req(&q, cert, "Authorization",
                                   "Bearer tok-alice", NULL),
                          "alice", "dev,ops,system:authenticated"));
    free(cert);

    /* expired, not yet valid */
    cert = auth_pki_cert(pki->ca_key, pki->ca, "bob", NULL, -7200, -3600, 1,
                         NULL);
    whoami_401(auth_req(&q, cert, NULL));
    free(cert);

    cert = auth_pki_cert(pki->ca_key, pki->ca, "bob", NULL, 3600, 7200, 1,
                         NULL);
    whoami_401(auth_req(&q, cert, NULL));
    free(cert);

    /* a server certificate (no clientAuth usage) */
    cert = auth_pki_cert(pki->ca_key, pki->ca, "bob", NULL, -60, 3600, 0,
                         NULL);
    whoami_401(auth_req(&q, cert, NULL));
    free(cert);

    /* garbage */
    whoami_401(auth_req(&q, "-----BEGIN CERTIFICATE-----\nAAAA\n"
                        "-----END CERTIFICATE-----\n", NULL));
}


static void
test_front_proxy(void **state)
{
    char        *cert;
    json_t      *info, *extra;
    auth_req_t   q;

    cert = auth_pki_cert(pki->proxy_key, pki->proxy, "front-proxy", NULL,
                         -60, 3600, 1, NULL);

    info = whoami_ok(auth_req(&q, cert,
                              "X-Remote-User", "carol",
                              "X-Remote-Group", "g1",
                              "x-remote-group", "g2",
                              "X-Remote-Extra-Scopes", "s1",
                              "X-Remote-Extra-scopes", "s2",
                              "X-Remote-Extra-Acme.com%2fProject", "p",
                              "Authorization", "Bearer tok-alice",
                              NULL),
                     "carol", "g1,g2,system:authenticated");

    extra = json_object_get(info, "extra");
    assert_int_equal(json_object_size(extra), 2);
    assert_string_equal(auth_join(json_object_get(extra, "scopes")),
                        "s1,s2");
    assert_string_equal(auth_join(json_object_get(extra,
                                                  "acme.com/project")),
                        "p");
    json_decref(info);

    /* a front-proxy certificate without X-Remote-User: the next */
    /* authenticators (here the token) decide */
    json_decref(whoami_ok(auth_req(&q, cert, "Authorization",
                                   "Bearer tok-plain", NULL),
                          "plain", "system:authenticated"));

    /* ... and the certificate is no client certificate of the client CA */
    whoami_401(auth_req(&q, cert, NULL));
    free(cert);

    /* a name that is not allowed */
    cert = auth_pki_cert(pki->proxy_key, pki->proxy, "intruder", NULL, -60,
                         3600, 1, NULL);
    whoami_401(auth_req(&q, cert, "X-Remote-User", "carol", NULL));
    free(cert);

    /* a client certificate of the client CA named front-proxy: not the */
    /* proxy (headers ignored), just the user "front-proxy" */
    cert = auth_pki_cert(pki->ca_key, pki->ca, "front-proxy", NULL, -60,
                         3600, 1, NULL);
    json_decref(whoami_ok(auth_req(&q, cert, "X-Remote-User", "carol",
                                   NULL),
                          "front-proxy", "system:authenticated"));
    free(cert);
}


static void
test_anonymous_off(void **state)
{
    auth_env_t  *save;
    auth_req_t   q;

    save = env;
    env = auth_env_create(pki, TOKENS, 0, NULL);

    whoami_401(NULL);
    whoami_401(auth_req(&q, NULL, "Authorization", "Basic eDp5", NULL));
    json_decref(whoami_ok(auth_req(&q, NULL, "Authorization",
                                   "Bearer tok-plain", NULL),
                          "plain", "system:authenticated"));

    /* what every request sees: a 401 before anything else */
    {
        api_resp_t  *r;

        r = api_call(env->env, "GET", "/api/v1/namespaces", NULL, NULL,
                     "application/json");
        assert_int_equal(r->status, 401);
        api_resp_free(r);

        r = api_call(env->env, "GET", "/healthz", NULL, NULL, NULL);
        assert_int_equal(r->status, 401);
        api_resp_free(r);
    }

    auth_env_destroy(env);
    env = save;
}


static void
test_in_process_user(void **state)
{
    api_resp_t      *r;
    api_req_opts_t   o;

    static const char * const  groups[] = { "g", NULL };
    static const gcp_user_t    me = { "controller", "", groups, 1, NULL, 0 };

    /* a preset user is not authenticated again (no system:authenticated */
    /* added, credentials ignored) */

    memset(&o, 0, sizeof(o));
    o.user = &me;

    r = auth_whoami(env, &o);
    assert_int_equal(r->status, 201);
    assert_string_equal(api_str(r->json, "status", "userInfo", "username",
                                NULL), "controller");
    assert_string_equal(auth_join(json_object_get(json_object_get(
        json_object_get(r->json, "status"), "userInfo"), "groups")), "g");
    api_resp_free(r);
}


static void
test_create_errors(void **state)
{
    char              err[256];
    gcp_auth_conf_t   conf;

    memset(&conf, 0, sizeof(conf));

    conf.client_ca_file = "/nonexistent/ca.crt";
    assert_null(gcp_auth_create(&conf, err, sizeof(err)));
    assert_string_equal(err, "cannot open \"/nonexistent/ca.crt\"");

    conf.client_ca_file = pki->rsa_key_file;
    assert_null(gcp_auth_create(&conf, err, sizeof(err)));
    assert_non_null(strstr(err, "no certificate in"));

    conf.client_ca_file = NULL;
    conf.sa_signing_key_file = pki->ca_file;
    assert_null(gcp_auth_create(&conf, err, sizeof(err)));
    assert_non_null(strstr(err, "no private key in"));

    conf.sa_signing_key_file = NULL;
    conf.token_auth_file = "/nonexistent/tokens";
    assert_null(gcp_auth_create(&conf, err, sizeof(err)));
    assert_string_equal(err, "cannot open \"/nonexistent/tokens\"");
}


/* The token file: Go's CSV rules and kube-apiserver's. */

static void
test_token_file(void **state)
{
    char              err[256];
    auth_env_t       *save;
    auth_req_t        q;
    gcp_auth_conf_t   conf;

    memset(&conf, 0, sizeof(conf));

    conf.token_auth_file = auth_pki_write(pki, "t.csv", "a,b\n");
    assert_null(gcp_auth_create(&conf, err, sizeof(err)));
    assert_non_null(strstr(err, "/t.csv' must have at least 3 columns "
                               "(token, user name, user uid), found 2"));

    conf.token_auth_file = auth_pki_write(pki, "t.csv", "a,\"b,c\n");
    assert_null(gcp_auth_create(&conf, err, sizeof(err)));
    assert_non_null(strstr(err, "extraneous or missing \" in quoted-field"));

    conf.token_auth_file = auth_pki_write(pki, "t.csv", "a,b\"c,d\n");
    assert_null(gcp_auth_create(&conf, err, sizeof(err)));
    assert_non_null(strstr(err, "bare \" in non-quoted-field"));

    /* quotes, CRLF, blank lines, an empty token, a duplicate (the later */
    /* one wins), a quote inside a quoted field */

    save = env;
    env = auth_env_create(pki,
                          "\"t-1\",\"u \"\"one\"\"\",\"id-1\",\"a,b\"\r\n"
                          "\r\n"
                          ",empty,x\n"
                          "\n"
                          "t-2,first,id-2\n"
                          "t-2,second,id-2b,\"\"\n"
                          "t-3,three,id-3,\"x\ny\",ignored", 1, NULL);

    json_decref(whoami_ok(auth_req(&q, NULL, "Authorization", "Bearer t-1",
                                   NULL),
                          "u \"one\"", "a,b,system:authenticated"));
    json_decref(whoami_ok(auth_req(&q, NULL, "Authorization", "Bearer t-2",
                                   NULL),
                          "second", ",system:authenticated"));
    json_decref(whoami_ok(auth_req(&q, NULL, "Authorization", "Bearer t-3",
                                   NULL),
                          "three", "x\ny,system:authenticated"));

    auth_env_destroy(env);
    env = save;
}


/* kubectl auth whoami: a protobuf body, a protobuf answer */

static void
test_protobuf(void **state)
{
    char            *cert;
    json_t          *obj, *info, *extra;
    api_resp_t      *r;
    auth_req_t       q;
    gcp_arena_t     *a;
    const char      *msg;
    api_req_opts_t   o;

    /* the bytes kubectl v1.32 sends */
    static const char  body[] =
        "k8s\0\n-\n\030authentication.k8s.io/v1\022\021SelfSubjectReview"
        "\022\032\n\020\n\0\022\0\032\0\"\0*\0002\0008\0B\0\022\006\n\004"
        "\n\0\022\0\032\0\"\0";

    cert = auth_pki_cert(pki->ca_key, pki->ca, "bob", masters_team, -60,
                         3600, 1, NULL);

    o = *auth_req(&q, cert, NULL);
    o.body_len = sizeof(body) - 1;

    r = api_call_opts(env->env, "POST",
                      "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                      "application/vnd.kubernetes.protobuf", body,
                      "application/vnd.kubernetes.protobuf,application/json",
                      &o);
    assert_int_equal(r->status, 201);
    assert_string_equal(r->content_type,
                        "application/vnd.kubernetes.protobuf");

    a = gcp_arena_create(0);
    assert_int_equal(gcp_protobuf_decode(a, api_env_api(env->env)->schemas,
                                         r->body, r->len, &obj, &msg),
                     GCP_OK);

    info = json_object_get(json_object_get(obj, "status"), "userInfo");
    assert_string_equal(api_str(obj, "kind", NULL), "SelfSubjectReview");
    assert_string_equal(api_str(info, "username", NULL), "bob");
    assert_string_equal(auth_join(json_object_get(info, "groups")),
                        "system:masters,team,system:authenticated");
    assert_non_null(api_str(obj, "metadata", "creationTimestamp", NULL));

    /* extra (map of ExtraValue) as the JSON answer has it */
    extra = json_object_get(json_object_get(info, "extra"),
                            GCP_AUTH_CREDENTIAL_ID);
    assert_int_equal(json_array_size(extra), 1);
    assert_int_equal(strncmp(json_string_value(json_array_get(extra, 0)),
                             "X509SHA256=", 11), 0);

    gcp_arena_destroy(a);
    api_resp_free(r);
    free(cert);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_anonymous),
        cmocka_unit_test(test_static_tokens),
        cmocka_unit_test(test_client_certs),
        cmocka_unit_test(test_client_cert_cache),
        cmocka_unit_test(test_client_certs_refused),
        cmocka_unit_test(test_front_proxy),
        cmocka_unit_test(test_anonymous_off),
        cmocka_unit_test(test_in_process_user),
        cmocka_unit_test(test_create_errors),
        cmocka_unit_test(test_token_file),
        cmocka_unit_test(test_protobuf),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
