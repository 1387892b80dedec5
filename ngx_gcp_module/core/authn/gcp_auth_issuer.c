
/*
 * Service-account issuer discovery, as kube-apiserver serves it
 * (pkg/serviceaccount/openidmetadata.go, pkg/routes/openidmetadata.go):
 *
 *   GET /.well-known/openid-configuration   the OIDC discovery document
 *   GET /openid/v1/jwks                     the verification keys (JWKS)
 *
 * so that systems elsewhere can verify the service-account tokens this
 * server issues with these two documents alone.  Served when the first
 * service-account issuer is an https URL without query or fragment and
 * there are verification keys (kube-apiserver installs the routes only
 * then); otherwise they are unknown paths.  The documents are public
 * (Cache-Control: public, max-age=3600); who may read them is RBAC's:
 * the bootstrap role system:service-account-issuer-discovery, bound to
 * system:serviceaccounts.
 */

#include <string.h>

#include "gcp_auth.h"
#include "gcp_auth_int.h"
#include "gcp_json.h"
#include "gcp_jwt.h"
#include "gcp_op.h"


#define GCP_ISSUER_CONFIG_PATH  "/.well-known/openid-configuration"
#define GCP_ISSUER_JWKS_PATH    "/openid/v1/jwks"
#define GCP_ISSUER_CACHE        "public, max-age=3600"


/* path is p, or p with one trailing slash */

static int
gcp_issuer_path_is(const char *path, const char *p)
{
    size_t  n = strlen(p);

    return strncmp(path, p, n) == 0
           && (path[n] == '\0' || (path[n] == '/' && path[n + 1] == '\0'));
}


int
gcp_auth_issuer_usable(const char *issuer)
{
    return strncmp(issuer, "https://", 8) == 0
           && strpbrk(issuer, "?#") == NULL && issuer[8] != '\0';
}


/*
 * jwks_uri: the configured one, else https://HOST/openid/v1/jwks with the
 * request's Host (kube-apiserver takes its external address), else the
 * issuer's.
 */

static const char *
gcp_issuer_jwks_uri(gcp_op_t *op, const gcp_auth_t *auth)
{
    const char  *host;

    if (auth->jwks_uri) {
        return auth->jwks_uri;
    }

    host = gcp_auth_header(op->req, "Host");

    if (host && host[0] && strpbrk(host, "/?#\"\\ ") == NULL) {
        return gcp_sprintf(op->a, "https://%s" GCP_ISSUER_JWKS_PATH, host);
    }

    return gcp_sprintf(op->a, "%s" GCP_ISSUER_JWKS_PATH, auth->issuers[0]);
}


static void
gcp_issuer_config(gcp_op_t *op, const gcp_auth_t *auth)
{
    size_t        i;
    unsigned      algs;
    gcp_buf_t     b;
    const char   *alg, *uri;

    /* the algorithms of the keys, sorted: ES256 < RS256 */
    algs = 0;

    for (i = 0; i < auth->sa_keys.n; i++) {
        alg = gcp_jwt_key_alg(auth->sa_keys.keys[i]);
        algs |= strcmp(alg, "ES256") == 0 ? 1 : 2;
    }

    gcp_buf_init(&b, op->a);
    gcp_buf_addstr(&b, "{\"issuer\":");
    gcp_json_add_string(&b, auth->issuers[0], strlen(auth->issuers[0]));
    gcp_buf_addstr(&b, ",\"jwks_uri\":");
    uri = gcp_issuer_jwks_uri(op, auth);
    gcp_json_add_string(&b, uri, strlen(uri));
    gcp_buf_printf(&b, ",\"response_types_supported\":[\"id_token\"],"
                   "\"subject_types_supported\":[\"public\"],"
                   "\"id_token_signing_alg_values_supported\":[%s%s%s]}",
                   (algs & 1) ? "\"ES256\"" : "",
                   algs == 3 ? "," : "",
                   (algs & 2) ? "\"RS256\"" : "");

    if (gcp_buf_failed(&b)) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    gcp_op_header(op, "Cache-Control", GCP_ISSUER_CACHE);
    gcp_op_respond(op, 200, "application/json",
                   (gcp_str_t) { b.data, b.len });
}


static void
gcp_issuer_jwks(gcp_op_t *op, const gcp_auth_t *auth)
{
    int         rc;
    gcp_buf_t   b;

    gcp_buf_init(&b, op->a);

    rc = gcp_jwt_keys_jwks(&b, &auth->sa_keys);
    if (rc != GCP_OK) {
        gcp_op_error(op, rc, NULL, NULL);
        return;
    }

    gcp_op_header(op, "Cache-Control", GCP_ISSUER_CACHE);
    gcp_op_respond(op, 200, "application/jwk-set+json",
                   (gcp_str_t) { b.data, b.len });
}


int
gcp_auth_issuer_served(const gcp_api_t *api)
{
    const gcp_auth_t  *auth = api->conf.auth;

    return auth != NULL && auth->sa_keys.n > 0
           && gcp_auth_issuer_usable(auth->issuers[0]);
}


int
gcp_auth_issuer_discovery(gcp_op_t *op)
{
    int                config;
    const char        *path = op->ri.path;
    const gcp_auth_t  *auth = op->api->conf.auth;

    if (gcp_issuer_path_is(path, GCP_ISSUER_CONFIG_PATH)) {
        config = 1;

    } else if (gcp_issuer_path_is(path, GCP_ISSUER_JWKS_PATH)) {
        config = 0;

    } else {
        return 0;
    }

    if (!gcp_auth_issuer_served(op->api)) {
        return 0;
    }

    if (strcmp(op->req->method, "GET") != 0) {
        gcp_op_text(op, 405, "405: Method Not Allowed");
        return 1;
    }

    if (config) {
        gcp_issuer_config(op, auth);

    } else {
        gcp_issuer_jwks(op, auth);
    }

    return 1;
}
