
/*
 * Test support for authentication: keys and X.509 certificates made with
 * OpenSSL in a temporary directory (CAs, client certificates, the
 * service-account signing keys, a static token file).
 */

#ifndef _SUPPORT_AUTH_H_INCLUDED_
#define _SUPPORT_AUTH_H_INCLUDED_


#include <openssl/evp.h>
#include <openssl/x509.h>

#include "gcp_auth.h"
#include "support_api.h"


typedef struct {
    char        dir[64];

    EVP_PKEY   *ca_key;             /* the client CA */
    X509       *ca;
    EVP_PKEY   *other_key;          /* an unrelated CA */
    X509       *other;
    EVP_PKEY   *proxy_key;          /* the front-proxy (requestheader) CA */
    X509       *proxy;

    char        ca_file[128];       /* PEM files of the three CAs */
    char        other_file[128];
    char        proxy_file[128];
    char        rsa_key_file[128];  /* RSA 2048 private key (RS256) */
    char        ec_key_file[128];   /* P-256 private key (ES256) */
    char        token_file[128];    /* a path for a token file */
} auth_pki_t;


/* Returns a new PKI (aborts the test on failure); free with _destroy. */
auth_pki_t *auth_pki_create(void);
void auth_pki_destroy(auth_pki_t *pki);

/*
 * Returns a client certificate issued by ca/ca_key for CN cn and the
 * organisations orgs (NULL-terminated, may be NULL), valid from
 * not_before to not_after seconds from now, with the clientAuth extended
 * key usage when client_auth is set; PEM, malloc'd (the caller frees it).
 * When chain_ca is not NULL its PEM is appended (an intermediate).
 */
char *auth_pki_cert(EVP_PKEY *ca_key, X509 *ca, const char *cn,
    const char * const *orgs, long not_before, long not_after,
    int client_auth, X509 *chain_ca);

/*
 * Returns a new intermediate CA (certificate and key through the out
 * parameters) issued by ca/ca_key; the caller frees both.
 */
void auth_pki_intermediate(EVP_PKEY *ca_key, X509 *ca, const char *cn,
    X509 **out, EVP_PKEY **out_key);

/* Writes text into the PKI directory as name; returns the path (static
 * buffer of the pki, valid until the next call). */
const char *auth_pki_write(auth_pki_t *pki, const char *name,
    const char *text);

/* Returns the file's path inside the PKI directory (malloc'd). */
char *auth_pki_path(auth_pki_t *pki, const char *name);



/*
 * An API core authenticating with pki: its client CA, a static token file
 * with tokens_csv (NULL: none), its RSA key signing service-account
 * tokens, the front-proxy CA with the allowed name "front-proxy";
 * anonymous requests when anonymous is set; authz_mode NULL for
 * AlwaysAllow.
 */
typedef struct {
    api_env_t   *env;
    gcp_api_t   *api;
    gcp_auth_t  *auth;
} auth_env_t;

auth_env_t *auth_env_create(auth_pki_t *pki, const char *tokens_csv,
    int anonymous, const char *authz_mode);

/* The same with an authentication configuration of one's own. */
auth_env_t *auth_env_create_conf(const gcp_auth_conf_t *conf,
    const char *authz_mode);
void auth_env_destroy(auth_env_t *e);

/* Headers for api_req_opts_t: name, value pairs, NULL-terminated. */
#define AUTH_MAX_HEADERS  16

typedef struct {
    gcp_header_t    h[AUTH_MAX_HEADERS];
    api_req_opts_t  opts;
} auth_req_t;

/* Fills r from name, value, ..., NULL and the certificates (may be NULL);
 * returns &r->opts. */
const api_req_opts_t *auth_req(auth_req_t *r, const char *peer_certs, ...);

/* POST /apis/authentication.k8s.io/v1/selfsubjectreviews with opts. */
api_resp_t *auth_whoami(auth_env_t *e, const api_req_opts_t *opts);

/* The JSON array of strings v as one comma-separated string (static
 * buffer), for assertions: ["a","b"] -> "a,b". */
const char *auth_join(const json_t *v);


#endif /* _SUPPORT_AUTH_H_INCLUDED_ */
