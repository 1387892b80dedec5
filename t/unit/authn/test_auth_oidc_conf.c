
/*
 * Unit tests: the structured authentication configuration
 * (core/authn/gcp_auth_jwtconf.c): AuthenticationConfiguration in YAML and
 * JSON, validated with upstream's messages, CEL expressions refused; and
 * the claims of a verified token mapped to a user
 * (core/authn/gcp_auth_oidc_claims.c).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_auth_int.h"
#include "gcp_json.h"
#include "support_auth.h"


#define HEAD  "apiVersion: apiserver.config.k8s.io/v1beta1\n" \
              "kind: AuthenticationConfiguration\n"

static const char * const  sa_issuers[] = {
    "https://kubernetes.default.svc.cluster.local", NULL
};


static void
parse_ok(const char *doc, gcp_oidc_conf_t *conf)
{
    int   rc;
    char  err[2048];

    err[0] = '\0';
    rc = gcp_oidc_conf_parse(doc, strlen(doc), sa_issuers, conf, err,
                             sizeof(err));
    if (rc != GCP_OK) {
        fail_msg("parse failed: %s", err);
    }
}


/* The configuration must be refused with exactly msg. */

static void
parse_fails(const char *doc, const char *msg)
{
    int              rc;
    char             err[4096];
    gcp_oidc_conf_t  conf;

    err[0] = '\0';
    rc = gcp_oidc_conf_parse(doc, strlen(doc), sa_issuers, &conf, err,
                             sizeof(err));
    assert_int_equal(rc, GCP_EINVALID);
    assert_int_equal(conf.n, 0);

    if (strcmp(err, msg) != 0) {
        fail_msg("got\n  %s\nwant\n  %s", err, msg);
    }
}


static char *
read_all(const char *path)
{
    FILE    *f;
    long     n;
    char    *s;

    f = fopen(path, "r");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    s = calloc(1, n + 1);
    assert_int_equal(fread(s, 1, n, f), (size_t) n);
    fclose(f);

    return s;
}


/* Every field read, in YAML, the CA a real one (from the test PKI). */

static void
test_oidc_conf_yaml(void **state)
{
    char               *pem, *line, *p;
    const char         *doc;
    gcp_buf_t           b;
    gcp_arena_t        *a;
    auth_pki_t         *pki;
    gcp_oidc_conf_t     conf;
    gcp_oidc_issuer_t  *iss;

    pki = auth_pki_create();
    pem = read_all(pki->ca_file);
    a = gcp_arena_create(0);

    gcp_buf_init(&b, a);
    gcp_buf_addstr(&b, HEAD
                   "jwt:\n"
                   "- issuer:\n"
                   "    url: https://issuer.example\n"
                   "    audiences: [a, b]\n"
                   "    audienceMatchPolicy: MatchAny\n"
                   "    certificateAuthority: |\n");

    for (line = strtok_r(pem, "\n", &p); line;
         line = strtok_r(NULL, "\n", &p))
    {
        gcp_buf_printf(&b, "      %s\n", line);
    }

    gcp_buf_addstr(&b, "  claimValidationRules:\n"
                   "  - claim: hd\n"
                   "    requiredValue: example.com\n"
                   "  claimMappings:\n"
                   "    username: {claim: email, prefix: 'oidc:'}\n"
                   "    groups: {claim: groups, prefix: ''}\n"
                   "    uid: {claim: sub}\n"
                   "- issuer:\n"
                   "    url: https://other.example/\n"
                   "    discoveryURL: https://idp.internal/.well-known/"
                   "openid-configuration\n"
                   "    audiences: [c]\n"
                   "  claimMappings:\n"
                   "    username: {claim: sub, prefix: ''}\n");

    doc = gcp_buf_dup(&b).data;
    parse_ok(doc, &conf);

    assert_int_equal(conf.n, 2);

    iss = &conf.jwt[0];
    assert_string_equal(iss->url, "https://issuer.example");
    assert_null(iss->discovery_url);
    assert_non_null(iss->ca_pem);
    assert_non_null(strstr(iss->ca_pem, "BEGIN CERTIFICATE"));
    assert_string_equal(iss->audiences[0], "a");
    assert_string_equal(iss->audiences[1], "b");
    assert_null(iss->audiences[2]);
    assert_string_equal(iss->username.claim, "email");
    assert_string_equal(iss->username.prefix, "oidc:");
    assert_string_equal(iss->groups.claim, "groups");
    assert_string_equal(iss->groups.prefix, "");
    assert_string_equal(iss->uid.claim, "sub");
    assert_int_equal(iss->nrequired, 1);
    assert_string_equal(iss->required[0].claim, "hd");
    assert_string_equal(iss->required[0].value, "example.com");

    p = gcp_oidc_discovery_url(iss);
    assert_string_equal(p, "https://issuer.example/.well-known/"
                           "openid-configuration");
    free(p);

    iss = &conf.jwt[1];
    assert_null(iss->groups.claim);
    assert_null(iss->uid.claim);
    assert_null(iss->ca_pem);
    p = gcp_oidc_discovery_url(iss);
    assert_string_equal(p, "https://idp.internal/.well-known/"
                           "openid-configuration");
    free(p);

    gcp_oidc_conf_free(&conf);

    /* the same in JSON, v1alpha1; no jwt at all is allowed too */

    parse_ok("{\"apiVersion\":\"apiserver.config.k8s.io/v1alpha1\","
             "\"kind\":\"AuthenticationConfiguration\",\"jwt\":[{\"issuer\":"
             "{\"url\":\"https://x.example\",\"audiences\":[\"k\"]},"
             "\"claimMappings\":{\"username\":{\"claim\":\"sub\","
             "\"prefix\":\"x:\"}}}]}", &conf);
    assert_int_equal(conf.n, 1);
    assert_string_equal(conf.jwt[0].username.prefix, "x:");
    gcp_oidc_conf_free(&conf);

    parse_ok(HEAD, &conf);
    assert_int_equal(conf.n, 0);
    gcp_oidc_conf_free(&conf);

    free(pem);
    gcp_arena_destroy(a);
    auth_pki_destroy(pki);
}


#define JWT1(issuer, mappings)                                               \
    HEAD "jwt:\n- issuer:\n" issuer "  claimMappings:\n" mappings

#define ISS_OK   "    url: https://i.example\n    audiences: [a]\n"
#define USER_OK  "    username: {claim: sub, prefix: ''}\n"


/* upstream's validation messages, one per case, and an aggregate */

static void
test_oidc_conf_invalid(void **state)
{
    parse_fails(JWT1("    url: http://i.example\n    audiences: [a]\n",
                     USER_OK),
                "jwt[0].issuer.url: Invalid value: \"http://i.example\": "
                "URL scheme must be https");

    parse_fails(JWT1("    audiences: [a]\n", USER_OK),
                "jwt[0].issuer.url: Required value");

    parse_fails(JWT1("    url: https://u:p@i.example/?q=1#f\n"
                     "    audiences: [a]\n", USER_OK),
                "[jwt[0].issuer.url: Invalid value: \"https://u:p@i.example/"
                "?q=1#f\": URL must not contain a username or password, "
                "jwt[0].issuer.url: Invalid value: \"https://u:p@i.example/"
                "?q=1#f\": URL must not contain a query, "
                "jwt[0].issuer.url: Invalid value: \"https://u:p@i.example/"
                "?q=1#f\": URL must not contain a fragment]");

    parse_fails(JWT1("    url: https://kubernetes.default.svc.cluster.local\n"
                     "    audiences: [a]\n", USER_OK),
                "jwt[0].issuer.url: Invalid value: \"https://kubernetes."
                "default.svc.cluster.local\": URL must not overlap with "
                "disallowed issuers: [https://kubernetes.default.svc."
                "cluster.local]");

    parse_fails(JWT1("    url: https://i.example\n"
                     "    discoveryURL: https://i.example/\n"
                     "    audiences: [a]\n", USER_OK),
                "jwt[0].issuer.discoveryURL: Invalid value: "
                "\"https://i.example/\": discoveryURL must be different "
                "from URL");

    parse_fails(JWT1("    url: https://i.example\n", USER_OK),
                "jwt[0].issuer.audiences: Required value: at least one "
                "jwt[0].issuer.audiences is required");

    parse_fails(JWT1("    url: https://i.example\n    audiences: [a, a]\n"
                     "    audienceMatchPolicy: MatchAny\n", USER_OK),
                "jwt[0].issuer.audiences[1]: Duplicate value: \"a\"");

    parse_fails(JWT1("    url: https://i.example\n    audiences: [a, b]\n",
                     USER_OK),
                "jwt[0].issuer.audienceMatchPolicy: Invalid value: \"\": "
                "audienceMatchPolicy must be MatchAny for multiple "
                "audiences");

    parse_fails(JWT1("    url: https://i.example\n    audiences: [a]\n"
                     "    audienceMatchPolicy: MatchAll\n", USER_OK),
                "jwt[0].issuer.audienceMatchPolicy: Invalid value: "
                "\"MatchAll\": audienceMatchPolicy must be empty or MatchAny "
                "for single audience");

    parse_fails(JWT1("    url: https://i.example\n    audiences: [a]\n"
                     "    certificateAuthority: not a certificate\n",
                     USER_OK),
                "jwt[0].issuer.certificateAuthority: Invalid value: "
                "\"<omitted>\": data does not contain any valid RSA or "
                "ECDSA certificates");

    parse_fails(JWT1(ISS_OK, "    username: {claim: sub}\n"),
                "jwt[0].claimMappings.username.prefix: Required value: "
                "prefix is required when claim is set. It can be set to an "
                "empty string to disable prefixing");

    parse_fails(JWT1(ISS_OK, "    groups: {claim: g, prefix: ''}\n"),
                "jwt[0].claimMappings.username: Required value: claim or "
                "expression is required");

    parse_fails(JWT1(ISS_OK, "    username: {claim: sub, expression: "
                             "claims.sub}\n"),
                "jwt[0].claimMappings.username: Invalid value: \"\": claim "
                "and expression can't both be set");

    parse_fails(HEAD "jwt:\n- issuer:\n" ISS_OK
                "  claimValidationRules:\n  - claim: hd\n    message: m\n"
                "  - claim: hd\n"
                "  - requiredValue: x\n"
                "  claimMappings:\n" USER_OK,
                "[jwt[0].claimValidationRules[0].message: Invalid value: "
                "\"m\": may not be specified when claim is set, "
                "jwt[0].claimValidationRules[1].claim: Duplicate value: "
                "\"hd\", jwt[0].claimValidationRules[2]: Required value: "
                "claim or expression is required]");

    parse_fails(HEAD "jwt:\n- issuer:\n" ISS_OK "  claimMappings:\n" USER_OK
                "- issuer:\n" ISS_OK "  claimMappings:\n" USER_OK,
                "jwt[1].issuer.url: Duplicate value: \"https://i.example\"");

    parse_fails(JWT1(ISS_OK, USER_OK
                     "    extra:\n"
                     "    - key: example.org/Foo\n"
                     "      valueExpression: claims.x\n"
                     "    - key: kubernetes.io/foo\n"
                     "    - key: nodomain\n"),
                "[jwt[0].claimMappings.extra[0].key: Invalid value: "
                "\"example.org/Foo\": must be lowercase, "
                "jwt[0].claimMappings.extra[0].valueExpression: Invalid "
                "value: \"claims.x\": CEL expressions are not supported by "
                "ngx_gcp yet, jwt[0].claimMappings.extra[1].key: Invalid "
                "value: \"kubernetes.io/foo\": k8s.io, kubernetes.io and "
                "their subdomains are reserved for Kubernetes use, "
                "jwt[0].claimMappings.extra[1].valueExpression: Required "
                "value, jwt[0].claimMappings.extra[2].key: Invalid value: "
                "\"nodomain\": must be a domain-prefixed path (such as "
                "\"acme.io/foo\"), jwt[0].claimMappings.extra[2]."
                "valueExpression: Required value]");

    /* the type and the version */

    parse_fails("apiVersion: apiserver.config.k8s.io/v1\n"
                "kind: AuthenticationConfiguration\n",
                "no kind \"AuthenticationConfiguration\" is registered for "
                "version \"apiserver.config.k8s.io/v1\"");

    parse_fails("jwt: []\n",
                "Object 'Kind' is missing in the configuration (apiVersion "
                "and kind: apiserver.config.k8s.io/v1beta1 "
                "AuthenticationConfiguration)");

    parse_fails(HEAD "jwt: {}\n", "jwt: expected a list");

    parse_fails("- a\n", "the document is not an object");

    parse_fails(HEAD "jwt: [\n", "error converting YAML to JSON: yaml: "
                "line 3: did not find expected node content");
}


/* CEL expressions: a clear error at load time, wherever they are */

static void
test_oidc_conf_cel(void **state)
{
    parse_fails(JWT1(ISS_OK, "    username: {expression: 'claims.sub'}\n"),
                "jwt[0].claimMappings.username.expression: Invalid value: "
                "\"claims.sub\": CEL expressions are not supported by "
                "ngx_gcp yet");

    parse_fails(JWT1(ISS_OK, USER_OK
                     "    groups: {expression: 'claims.g', prefix: p}\n"),
                "[jwt[0].claimMappings.groups.prefix: Invalid value: \"p\": "
                "may not be specified when expression is set, "
                "jwt[0].claimMappings.groups.expression: Invalid value: "
                "\"claims.g\": CEL expressions are not supported by ngx_gcp "
                "yet]");

    parse_fails(JWT1(ISS_OK, USER_OK "    uid: {expression: 'claims.u'}\n"),
                "jwt[0].claimMappings.uid.expression: Invalid value: "
                "\"claims.u\": CEL expressions are not supported by ngx_gcp "
                "yet");

    parse_fails(HEAD "jwt:\n- issuer:\n" ISS_OK
                "  claimValidationRules:\n"
                "  - expression: 'claims.x == 1'\n    requiredValue: v\n"
                "  claimMappings:\n" USER_OK
                "  userValidationRules:\n"
                "  - expression: \"!user.username.startsWith('system:')\"\n"
                "  - message: m\n",
                "[jwt[0].claimValidationRules[0].requiredValue: Invalid "
                "value: \"v\": may not be specified when expression is set, "
                "jwt[0].claimValidationRules[0].expression: Invalid value: "
                "\"claims.x == 1\": CEL expressions are not supported by "
                "ngx_gcp yet, jwt[0].userValidationRules[0].expression: "
                "Invalid value: \"!user.username.startsWith('system:')\": "
                "CEL expressions are not supported by ngx_gcp yet, "
                "jwt[0].userValidationRules[1].expression: Required value]");
}


/* claims mapped to users */

static gcp_user_t *
map(gcp_arena_t *a, const gcp_oidc_issuer_t *iss, const char *claims,
    const char **err)
{
    json_t      *c;
    gcp_user_t  *u;

    c = json_loads(claims, 0, NULL);
    assert_non_null(c);

    *err = NULL;
    u = gcp_oidc_map_claims(a, iss, c, err);

    /* the user's strings are the arena's: the claims may go */
    json_decref(c);

    return u;
}


static void
test_oidc_claims(void **state)
{
    gcp_user_t         *u;
    const char         *err;
    gcp_arena_t        *a;
    gcp_oidc_conf_t     conf;
    gcp_oidc_issuer_t  *iss;

    a = gcp_arena_create(0);

    parse_ok(JWT1(ISS_OK, "    username: {claim: email, prefix: 'oidc:'}\n"
                  "    groups: {claim: roles, prefix: 'r:'}\n"
                  "    uid: {claim: sub}\n")
             "  claimValidationRules:\n"
             "  - claim: hd\n    requiredValue: example.com\n", &conf);
    iss = &conf.jwt[0];

    u = map(a, iss, "{\"email\":\"ann@example.com\",\"email_verified\":true,"
            "\"roles\":[\"dev\",\"ops\"],\"sub\":\"42\",\"hd\":"
            "\"example.com\",\"jti\":\"j-1\"}", &err);
    assert_non_null(u);
    assert_string_equal(u->name, "oidc:ann@example.com");
    assert_string_equal(u->uid, "42");
    assert_int_equal(u->ngroups, 2);
    assert_string_equal(u->groups[0], "r:dev");
    assert_string_equal(u->groups[1], "r:ops");
    assert_int_equal(u->nextra, 1);
    assert_string_equal(u->extra[0].key, GCP_AUTH_CREDENTIAL_ID);
    assert_string_equal(u->extra[0].values[0], "JTI=j-1");

    /* a single string is one group; email_verified absent is fine */
    u = map(a, iss, "{\"email\":\"b@x\",\"roles\":\"admin\",\"sub\":\"1\","
            "\"hd\":\"example.com\"}", &err);
    assert_non_null(u);
    assert_int_equal(u->ngroups, 1);
    assert_string_equal(u->groups[0], "r:admin");
    assert_int_equal(u->nextra, 0);

    u = map(a, iss, "{\"email\":\"b@x\",\"email_verified\":false}", &err);
    assert_null(u);
    assert_string_equal(err, "oidc: email not verified");

    u = map(a, iss, "{\"email\":\"b@x\",\"email_verified\":\"yes\"}", &err);
    assert_null(u);
    assert_string_equal(err, "oidc: parse 'email_verified' claim: json: "
                        "cannot unmarshal string into Go value of type bool");

    u = map(a, iss, "{\"sub\":\"1\"}", &err);
    assert_null(u);
    assert_string_equal(err, "oidc: parse username claims \"email\": claim "
                        "not present");

    u = map(a, iss, "{\"email\":5}", &err);
    assert_null(u);
    assert_string_equal(err, "oidc: parse username claims \"email\": json: "
                        "cannot unmarshal number into Go value of type "
                        "string");

    u = map(a, iss, "{\"email\":\"b@x\",\"roles\":[\"a\",1]}", &err);
    assert_null(u);
    assert_string_equal(err, "oidc: parse groups claim \"roles\": json: "
                        "cannot unmarshal array into Go value of type "
                        "string");

    u = map(a, iss, "{\"email\":\"b@x\",\"sub\":[1]}", &err);
    assert_null(u);
    assert_string_equal(err, "oidc: parse uid claim \"sub\": json: cannot "
                        "unmarshal array into Go value of type string");

    u = map(a, iss, "{\"email\":\"b@x\",\"sub\":\"1\"}", &err);
    assert_null(u);
    assert_string_equal(err, "oidc: required claim hd not present in ID "
                        "token");

    u = map(a, iss, "{\"email\":\"b@x\",\"sub\":\"1\",\"hd\":\"evil.com\"}",
            &err);
    assert_null(u);
    assert_string_equal(err, "oidc: required claim hd value does not match. "
                        "Got = evil.com, want = example.com");

    gcp_oidc_conf_free(&conf);

    /* no prefix, no groups claim: groups in the token are not mapped */

    parse_ok(JWT1(ISS_OK, USER_OK), &conf);

    u = map(a, &conf.jwt[0], "{\"sub\":\"s\",\"groups\":[\"g\"]}", &err);
    assert_non_null(u);
    assert_string_equal(u->name, "s");
    assert_int_equal(u->ngroups, 0);

    gcp_oidc_conf_free(&conf);

    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_oidc_conf_yaml),
        cmocka_unit_test(test_oidc_conf_invalid),
        cmocka_unit_test(test_oidc_conf_cel),
        cmocka_unit_test(test_oidc_claims),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
