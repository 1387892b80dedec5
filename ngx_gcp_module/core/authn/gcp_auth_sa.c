
/*
 * Service-account tokens: issuing (TokenRequest) and authenticating them
 * as kube-apiserver's service-account JWT authenticator: issuer,
 * signature, audiences, lifetime (with a minute of leeway), then the
 * service account, and the secret a token is bound to, must still exist
 * in the store with the uids of the claims.  Nothing is cached: a token of
 * a deleted service account stops working at once.
 */

#include <stdio.h>

#include "gcp_auth_int.h"
#include "gcp_json.h"
#include "gcp_object.h"
#include "gcp_rand.h"
#include "gcp_time.h"
#include "gcp_types.h"
#include "gcp_validation.h"


#define GCP_SA_BAD_SIGNATURE  "square/go-jose: error in cryptographic primitive"
#define GCP_SA_UNEXPECTED     "service account token claims could not be " \
                              "validated due to unexpected validation error"


int
gcp_auth_sa_load(gcp_auth_t *auth, const gcp_auth_conf_t *conf, char *err,
    size_t errlen)
{
    int                  rc;
    const char * const  *f;

    if (conf->sa_signing_key_file) {
        auth->signing_key = gcp_jwt_key_load_private(conf->sa_signing_key_file,
                                                     err, errlen);
        if (auth->signing_key == NULL) {
            return GCP_EINVALID;
        }

        if (strcmp(gcp_jwt_key_alg(auth->signing_key), "RS256") != 0
            && strcmp(gcp_jwt_key_alg(auth->signing_key), "ES256") != 0)
        {
            snprintf(err, errlen, "the key in \"%s\" is neither RSA nor "
                     "ECDSA P-256", conf->sa_signing_key_file);
            return GCP_EINVALID;
        }
    }

    for (f = conf->sa_key_files; f && *f; f++) {
        rc = gcp_jwt_keys_load(&auth->sa_keys, *f, err, errlen);
        if (rc != GCP_OK) {
            return rc;
        }
    }

    if (auth->sa_keys.n == 0 && auth->signing_key
        && gcp_jwt_keys_add_public(&auth->sa_keys, auth->signing_key)
           != GCP_OK)
    {
        snprintf(err, errlen, "out of memory");
        return GCP_ENOMEM;
    }

    auth->issuers = gcp_auth_strv(conf->sa_issuers, GCP_AUTH_DEFAULT_ISSUER);

    if (auth->issuers == NULL) {
        snprintf(err, errlen, "out of memory");
        return GCP_ENOMEM;
    }

    auth->audiences = gcp_auth_strv(conf->api_audiences, auth->issuers[0]);

    if (auth->audiences == NULL) {
        snprintf(err, errlen, "out of memory");
        return GCP_ENOMEM;
    }

    auth->max_expiration = conf->sa_max_expiration;

    if (conf->sa_jwks_uri) {
        if (strncmp(conf->sa_jwks_uri, "https://", 8) != 0) {
            snprintf(err, errlen, "jwksURI requires https scheme, parsed "
                     "as: %s", conf->sa_jwks_uri);
            return GCP_EINVALID;
        }

        auth->jwks_uri = strdup(conf->sa_jwks_uri);
        if (auth->jwks_uri == NULL) {
            snprintf(err, errlen, "out of memory");
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


void
gcp_auth_sa_free(gcp_auth_t *auth)
{
    gcp_jwt_key_free(auth->signing_key);
    gcp_jwt_keys_free(&auth->sa_keys);
    gcp_auth_strv_free(auth->issuers);
    gcp_auth_strv_free(auth->audiences);
    free(auth->jwks_uri);
}


/* issuing */


const char *
gcp_auth_sa_issue(gcp_arena_t *a, const gcp_auth_t *auth,
    const gcp_auth_sa_claims_t *c)
{
    char                 jti[GCP_UUID_LEN + 1];
    json_t              *claims, *aud, *k8s;
    const char          *tok, *sub;
    const char * const  *p;

    if (auth == NULL || auth->signing_key == NULL
        || gcp_uuid_v4(jti) != GCP_OK)
    {
        return NULL;
    }

    aud = json_array();

    for (p = c->audiences; p && *p; p++) {
        json_array_append_new(aud, json_string(*p));
    }

    k8s = json_pack("{s:s}", "namespace", c->ns);

    if (c->secret_name) {
        json_object_set_new(k8s, "secret",
                            json_pack("{s:s, s:s}", "name", c->secret_name,
                                      "uid", c->secret_uid));
    }

    json_object_set_new(k8s, "serviceaccount",
                        json_pack("{s:s, s:s}", "name", c->name,
                                  "uid", c->uid));

    /* keys in Go's (sorted) order */

    sub = gcp_sprintf(a, GCP_AUTH_SA_PREFIX "%s:%s", c->ns, c->name);

    claims = json_pack("{s:o, s:I, s:I, s:s, s:s, s:o, s:I, s:s}",
                       "aud", aud,
                       "exp", (json_int_t) c->exp,
                       "iat", (json_int_t) c->iat,
                       "iss", auth->issuers[0],
                       "jti", jti,
                       "kubernetes.io", k8s,
                       "nbf", (json_int_t) c->iat,
                       "sub", sub ? sub : "");
    if (claims == NULL || sub == NULL) {
        json_decref(claims);
        return NULL;
    }

    tok = gcp_jwt_sign(a, auth->signing_key, claims);
    json_decref(claims);

    return tok;
}


gcp_user_t *
gcp_auth_sa_user(gcp_arena_t *a, const char *ns, const char *name,
    const char *uid)
{
    gcp_user_t  *u;

    u = gcp_user_create(a, gcp_sprintf(a, GCP_AUTH_SA_PREFIX "%s:%s", ns,
                                       name), uid);

    if (u == NULL
        || gcp_user_add_group(a, u, GCP_AUTH_SA_GROUP) != GCP_OK
        || gcp_user_add_group(a, u, gcp_sprintf(a, GCP_AUTH_SA_GROUP ":%s",
                                                ns)) != GCP_OK)
    {
        return NULL;
    }

    return u;
}


int
gcp_auth_sa_split(gcp_arena_t *a, const char *username, const char **ns,
    const char **name)
{
    size_t       plen;
    gcp_msgs_t   m;
    const char  *rest, *colon;

    plen = sizeof(GCP_AUTH_SA_PREFIX) - 1;

    if (strncmp(username, GCP_AUTH_SA_PREFIX, plen) != 0) {
        return 0;
    }

    rest = username + plen;
    colon = strchr(rest, ':');

    if (colon == NULL || strchr(colon + 1, ':')) {
        return 0;
    }

    if (gcp_is_dns1123_label(rest, colon - rest, &m)
        || gcp_is_dns1123_subdomain(colon + 1, strlen(colon + 1), &m))
    {
        return 0;
    }

    *ns = gcp_strndup(a, rest, colon - rest);
    *name = gcp_strdup(a, colon + 1);

    return *ns && *name;
}


/* authentication */


typedef struct {
    gcp_api_t              *api;
    gcp_arena_t            *a;
    gcp_auth_sa_done_pt     done;
    void                   *arg;
    gcp_auth_sa_result_t    res;

    const char             *ns;
    const char             *name;
    const char             *uid;
    const char             *secret_name;
    const char             *secret_uid;
    const char             *jti;
    int64_t                 now;
} gcp_sa_check_t;


static void
gcp_sa_fail(gcp_sa_check_t *c, const char *error)
{
    c->res.user = NULL;
    c->res.error = error ? error : "out of memory";
    c->done(c->arg, &c->res);
}


/* The token's audiences ("aud": a string or strings), NULL-terminated. */

static const char **
gcp_sa_token_audiences(gcp_arena_t *a, const json_t *aud, int *bad)
{
    size_t        i, n;
    const char  **v;

    *bad = 0;

    n = json_is_array(aud) ? json_array_size(aud)
                           : json_is_string(aud) ? 1 : 0;

    v = gcp_calloc(a, (n + 1) * sizeof(const char *));
    if (v == NULL) {
        return NULL;
    }

    if (json_is_string(aud)) {
        v[0] = json_string_value(aud);
        return v;
    }

    if (aud && !json_is_array(aud)) {
        *bad = 1;
        return v;
    }

    for (i = 0; i < n; i++) {
        v[i] = json_string_value(json_array_get(aud, i));

        if (v[i] == NULL) {
            *bad = 1;
            v[i] = "";
        }
    }

    return v;
}


/* The audiences in both lists, NULL-terminated (arena). */

static const char **
gcp_sa_intersect(gcp_arena_t *a, const char * const *x,
    const char * const *y)
{
    size_t        i, j, n;
    const char  **v;

    for (n = 0; x[n]; n++) { /* void */ }

    v = gcp_calloc(a, (n + 1) * sizeof(const char *));
    if (v == NULL) {
        return NULL;
    }

    n = 0;

    for (i = 0; x[i]; i++) {
        for (j = 0; y[j]; j++) {
            if (strcmp(x[i], y[j]) == 0) {
                v[n++] = x[i];
                break;
            }
        }
    }

    return v;
}


/* exp, nbf and iat with jwt.DefaultLeeway, as go-jose checks them. */

static const char *
gcp_sa_check_times(const json_t *claims, int64_t now)
{
    int      bad, present;
    int64_t  t;

    bad = 0;

    t = gcp_auth_time_claim(claims, "nbf", &present, &bad);
    if (present && now + GCP_AUTH_LEEWAY < t) {
        return "service account token is not valid yet";
    }

    t = gcp_auth_time_claim(claims, "exp", &present, &bad);
    if (present && now - GCP_AUTH_LEEWAY > t) {
        return "service account token has expired";
    }

    t = gcp_auth_time_claim(claims, "iat", &present, &bad);
    if (present && now + GCP_AUTH_LEEWAY < t) {
        return "service account token is issued in the future";
    }

    return bad ? GCP_SA_UNEXPECTED : NULL;
}


/* Returns 1 when obj's deletionTimestamp is older than the leeway. */

static int
gcp_sa_deleted(gcp_arena_t *a, const json_t *obj, int64_t now)
{
    const char       *ts;
    struct timespec   t;

    ts = gcp_json_get_str(obj, "metadata", "deletionTimestamp", NULL);

    if (ts == NULL
        || gcp_time_parse(a, ts, strlen(ts), &t, NULL) != GCP_OK)
    {
        return 0;
    }

    return (int64_t) t.tv_sec < now - GCP_AUTH_LEEWAY;
}


static void
gcp_sa_succeed(gcp_sa_check_t *c)
{
    gcp_user_t  *u;

    u = gcp_auth_sa_user(c->a, c->ns, c->name, c->uid);

    if (u == NULL
        || (c->jti && c->jti[0]
            && gcp_user_add_extra(c->a, u, GCP_AUTH_CREDENTIAL_ID,
                                  gcp_sprintf(c->a, "JTI=%s", c->jti))
               != GCP_OK))
    {
        gcp_sa_fail(c, NULL);
        return;
    }

    c->res.user = u;
    c->res.error = NULL;
    c->done(c->arg, &c->res);
}


static json_t *
gcp_sa_decode(gcp_sa_check_t *c, gcp_store_result_t *res)
{
    if (res->rc != GCP_OK || res->nkvs == 0) {
        return NULL;
    }

    return gcp_object_decode(c->a, res->kvs[0].value,
                             res->kvs[0].mod_revision);
}


static void
gcp_sa_got_secret(void *arg, gcp_store_result_t *res)
{
    json_t          *secret;
    const char      *uid;
    gcp_sa_check_t  *c = arg;

    secret = gcp_sa_decode(c, res);

    if (secret == NULL || gcp_sa_deleted(c->a, secret, c->now)) {
        gcp_sa_fail(c, "service account token has been invalidated");
        return;
    }

    uid = gcp_meta_str(secret, "uid");

    if (strcmp(uid, c->secret_uid) != 0) {
        gcp_sa_fail(c, gcp_sprintf(c->a, "secret UID (%s) does not match "
                                   "service account secret ref claim (%s)",
                                   uid, c->secret_uid));
        return;
    }

    gcp_sa_succeed(c);
}


static void
gcp_sa_got_account(void *arg, gcp_store_result_t *res)
{
    json_t          *sa;
    gcp_str_t        key;
    const char      *uid;
    gcp_sa_check_t  *c = arg;

    if (res->rc != GCP_OK && res->rc != GCP_ENOTFOUND) {
        gcp_sa_fail(c, res->message ? res->message
                                    : gcp_error_info(res->rc)->message);
        return;
    }

    sa = gcp_sa_decode(c, res);

    if (sa == NULL) {
        gcp_sa_fail(c, gcp_sprintf(c->a, "serviceaccounts \"%s\" not found",
                                   c->name));
        return;
    }

    if (gcp_sa_deleted(c->a, sa, c->now)) {
        gcp_sa_fail(c, gcp_sprintf(c->a, "service account %s/%s has been "
                                   "deleted", c->ns, c->name));
        return;
    }

    uid = gcp_meta_str(sa, "uid");

    if (strcmp(uid, c->uid) != 0) {
        gcp_sa_fail(c, gcp_sprintf(c->a, "service account UID (%s) does not "
                                   "match claim (%s)", uid, c->uid));
        return;
    }

    if (c->secret_name == NULL) {
        gcp_sa_succeed(c);
        return;
    }

    key = gcp_object_key(c->a, &gcp_type_secrets, c->ns, c->secret_name);
    if (key.data == NULL) {
        gcp_sa_fail(c, NULL);
        return;
    }

    gcp_store_get(c->api->store, key, 0, c->a, gcp_sa_got_secret, c);
}


/* Reads the kubernetes.io private claims into c. */

static void
gcp_sa_private_claims(gcp_sa_check_t *c, const json_t *claims)
{
    const json_t  *k8s;

    k8s = json_object_get(claims, "kubernetes.io");

    c->ns = gcp_json_get_str(k8s, "namespace", NULL);
    c->name = gcp_json_get_str(k8s, "serviceaccount", "name", NULL);
    c->uid = gcp_json_get_str(k8s, "serviceaccount", "uid", NULL);

    if (json_object_get(k8s, "secret")) {
        c->secret_name = gcp_json_get_str(k8s, "secret", "name", NULL);
        c->secret_uid = gcp_json_get_str(k8s, "secret", "uid", NULL);

        if (c->secret_name == NULL) {
            c->secret_name = "";
        }

        if (c->secret_uid == NULL) {
            c->secret_uid = "";
        }
    }

    c->jti = json_string_value(json_object_get(claims, "jti"));

    c->ns = c->ns ? c->ns : "";
    c->name = c->name ? c->name : "";
    c->uid = c->uid ? c->uid : "";
}


void
gcp_auth_sa_authenticate(gcp_api_t *api, gcp_arena_t *a, const char *token,
    size_t len, const char * const *audiences, gcp_auth_sa_done_pt done,
    void *arg)
{
    int                  bad;
    json_t              *peek;
    gcp_str_t            key;
    gcp_jwt_t            jwt;
    const char          *iss, *err, **tok_auds, **auds;
    gcp_sa_check_t      *c;
    const gcp_auth_t    *auth;
    gcp_auth_sa_result_t  res;

    auth = api->conf.auth;

    memset(&res, 0, sizeof(res));

    c = gcp_calloc(a, sizeof(gcp_sa_check_t));
    if (c == NULL) {
        res.error = "out of memory";
        done(arg, &res);
        return;
    }

    c->api = api;
    c->a = a;
    c->done = done;
    c->arg = arg;

    /* not ours unless the (unverified) issuer is one of ours */

    if (auth == NULL || auth->sa_keys.n == 0 || len == 0 || token[0] == '{') {
        done(arg, &c->res);
        return;
    }

    peek = gcp_jwt_peek_claims(a, token, len);
    iss = json_string_value(json_object_get(peek, "iss"));

    if (iss == NULL || !gcp_auth_strv_has(auth->issuers, iss)
        || gcp_jwt_parse(a, token, len, &jwt) != GCP_OK
        || (strcmp(jwt.alg, "RS256") != 0 && strcmp(jwt.alg, "ES256") != 0))
    {
        done(arg, &c->res);
        return;
    }

    if (gcp_jwt_verify(&jwt, &auth->sa_keys) != GCP_OK) {
        gcp_sa_fail(c, GCP_SA_BAD_SIGNATURE);
        return;
    }

    /* audiences */

    if (audiences == NULL || audiences[0] == NULL) {
        audiences = (const char * const *) auth->audiences;
    }

    tok_auds = gcp_sa_token_audiences(a, json_object_get(jwt.claims, "aud"),
                                      &bad);
    if (tok_auds == NULL) {
        gcp_sa_fail(c, NULL);
        return;
    }

    if (bad) {
        gcp_sa_fail(c, GCP_SA_UNEXPECTED);
        return;
    }

    if (tok_auds[0] == NULL) {
        tok_auds = (const char **) auth->audiences;
    }

    auds = gcp_sa_intersect(a, tok_auds, audiences);
    if (auds == NULL) {
        gcp_sa_fail(c, NULL);
        return;
    }

    if (auds[0] == NULL) {
        gcp_sa_fail(c, gcp_sprintf(a, "token audiences %s is invalid for the "
                                   "target audiences %s",
                                   gcp_auth_quote_list(a, tok_auds),
                                   gcp_auth_quote_list(a, audiences)));
        return;
    }

    c->res.audiences = auds;

    /* lifetime */

    c->now = (int64_t) gcp_time_now().tv_sec;

    err = gcp_sa_check_times(jwt.claims, c->now);
    if (err) {
        gcp_sa_fail(c, err);
        return;
    }

    /* the service account must still exist, with the same uid */

    gcp_sa_private_claims(c, jwt.claims);

    key = gcp_object_key(a, &gcp_type_serviceaccounts, c->ns, c->name);
    if (key.data == NULL) {
        gcp_sa_fail(c, NULL);
        return;
    }

    if (c->ns[0] == '\0' || c->name[0] == '\0' || strchr(c->ns, '/')
        || strchr(c->name, '/'))
    {
        gcp_sa_fail(c, gcp_sprintf(a, "serviceaccounts \"%s\" not found",
                                   c->name));
        return;
    }

    gcp_store_get(api->store, key, 0, a, gcp_sa_got_account, c);
}
