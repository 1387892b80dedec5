
/*
 * Authentication internals shared by the gcp_auth*.c files and the
 * authentication resources (gcp_type_tokenrequest.c, gcp_type_tokenreview.c,
 * gcp_type_selfsubjectreview.c).
 */

#ifndef _GCP_AUTH_INT_H_INCLUDED_
#define _GCP_AUTH_INT_H_INCLUDED_


#include <openssl/x509.h>

#include "gcp_auth.h"
#include "gcp_auth_oidc.h"
#include "gcp_jwt.h"
#include "gcp_digest.h"


#define GCP_AUTH_SHA256_LEN   GCP_SHA256_LEN
#define GCP_AUTH_LEEWAY       60        /* seconds, jwt.DefaultLeeway */


/* One line of the static token file. */
typedef struct {
    unsigned char   digest[GCP_AUTH_SHA256_LEN];    /* SHA-256 of the token */
    char           *name;
    char           *uid;
    char          **groups;                         /* NULL-terminated */
} gcp_auth_token_t;


typedef struct gcp_auth_cert_cache_s  gcp_auth_cert_cache_t;


struct gcp_auth_s {
    X509_STORE         *client_ca;          /* NULL: no X.509 users */
    char               *client_ca_pem;

    X509_STORE         *proxy_ca;           /* NULL: no front proxy */
    char               *proxy_ca_pem;
    char              **proxy_names;        /* allowed CNs; empty: any */
    char              **user_headers;
    char              **group_headers;
    char              **extra_prefixes;

    gcp_auth_token_t   *tokens;
    size_t              ntokens;

    gcp_jwt_key_t      *signing_key;        /* NULL: no TokenRequest */
    gcp_jwt_keys_t      sa_keys;
    char              **issuers;            /* at least one */
    char               *jwks_uri;           /* NULL: from the request */
    char              **audiences;          /* at least one */
    int64_t             max_expiration;

    gcp_oidc_conf_t     oidc;               /* JWT authenticators */

    unsigned            anonymous:1;

    /* per process (each forked process changes its own copy) */
    gcp_auth_cert_cache_t  *certs;
};


/* gcp_auth_issuer.c */

/* Returns 1 when issuer can be discovered (an https URL, no query or
 * fragment), as kube-apiserver requires to serve issuer discovery. */
int gcp_auth_issuer_usable(const char *issuer);


/* gcp_auth.c */

/*
 * Returns a malloc'd NULL-terminated copy of list (NULL: def, when not
 * NULL, as the only element; else empty), or NULL when out of memory.
 */
char **gcp_auth_strv(const char * const *list, const char *def);
void gcp_auth_strv_free(char **v);

/* Returns the number of strings of the NULL-terminated list v. */
size_t gcp_auth_strv_len(char * const *v);

/* Returns 1 when s is in the NULL-terminated list v. */
int gcp_auth_strv_has(char * const *v, const char *s);

/* Returns Go's %q of a []string ("[\"a\" \"b\"]"), arena text. */
const char *gcp_auth_quote_list(gcp_arena_t *a, const char * const *v);

/*
 * A NumericDate claim: returns 0 when absent or null (*present 0), else
 * its value in seconds; sets *bad when it is not a number.
 */
int64_t gcp_auth_time_claim(const json_t *claims, const char *name,
    int *present, int *bad);

/* The first value of request header name (case-insensitive), or NULL. */
const char *gcp_auth_header(const gcp_request_t *req, const char *name);

/*
 * An extra key from the rest of a header name (Impersonate-Extra-KEY,
 * X-Remote-Extra-KEY): lower case, then path-unescaped (kept as is when
 * the escaping is not valid).  Arena text, NULL when out of memory.
 */
const char *gcp_auth_extra_key(gcp_arena_t *a, const char *s);


/* gcp_auth_x509.c */

/*
 * Loads the certificates of a PEM file as trust anchors, into *out, and
 * the same certificates as PEM into *pem (malloc'd, the caller's).
 */
int gcp_auth_ca_load(const char *path, X509_STORE **out, char **pem,
    char *err, size_t errlen);

/*
 * Verifies a PEM chain (leaf first, then intermediates) for client
 * authentication against store.  Returns the leaf (the caller X509_free()s
 * it) and the first expiry of the verified chain in *not_after, or NULL
 * with *msg (static text) when it does not verify.
 */
X509 *gcp_auth_x509_verify(gcp_arena_t *a, X509_STORE *store,
    gcp_str_t pem, time_t *not_after, const char **msg);

/*
 * The user of a verified client certificate (CN, O as groups, extra
 * credential-id X509SHA256=...), or NULL when its CN is empty or out of
 * memory (*nomem tells which).
 */
gcp_user_t *gcp_auth_x509_user(gcp_arena_t *a, X509 *leaf, int *nomem);

/* Returns the leaf's CN (arena text, "" when none). */
const char *gcp_auth_x509_cn(gcp_arena_t *a, X509 *leaf);

/*
 * The user the front proxy names in the request headers, once its
 * certificate qualified.  Returns GCP_OK with *user (NULL: no user
 * header), or GCP_ENOMEM.
 */
int gcp_auth_proxy_user(gcp_arena_t *a, const gcp_auth_t *auth,
    const gcp_request_t *req, gcp_user_t **user);


/* gcp_auth_cert.c */

typedef enum {
    GCP_AUTH_CERT_ABSENT = 0,       /* no such CA configured */
    GCP_AUTH_CERT_OK,               /* verified (and allowed) */
    GCP_AUTH_CERT_NOUSER,           /* verified, no CN */
    GCP_AUTH_CERT_FAILED            /* does not verify, name not allowed */
} gcp_auth_cert_rc_t;


/* What a client certificate chain is worth. */
typedef struct {
    gcp_auth_cert_rc_t   proxy;     /* for the front-proxy CA */
    gcp_auth_cert_rc_t   client;    /* for the client CA */
    gcp_user_t          *user;      /* client OK: the user (arena) */
} gcp_auth_cert_t;

/*
 * Judges a PEM chain against the front-proxy and client CAs, from this
 * process's cache when it was seen before.  Returns GCP_OK (out filled),
 * or GCP_ENOMEM / GCP_EINTERNAL.
 */
int gcp_auth_cert_check(gcp_arena_t *a, gcp_auth_t *auth, gcp_str_t pem,
    gcp_auth_cert_t *out);

void gcp_auth_cert_cache_free(gcp_auth_cert_cache_t *cache);


/* gcp_auth_tokenfile.c */

/* Loads the static token file (kube-apiserver's --token-auth-file). */
int gcp_auth_tokens_load(gcp_auth_t *auth, const char *path, char *err,
    size_t errlen);
void gcp_auth_tokens_free(gcp_auth_t *auth);

/*
 * Returns the user of a static token (compared in constant time with every
 * token of the file), or NULL when none matches (or out of memory).
 */
gcp_user_t *gcp_auth_tokens_find(gcp_arena_t *a, const gcp_auth_t *auth,
    const char *token, size_t len);


/* gcp_auth_sa.c */

int gcp_auth_sa_load(gcp_auth_t *auth, const gcp_auth_conf_t *conf,
    char *err, size_t errlen);
void gcp_auth_sa_free(gcp_auth_t *auth);

/* The result of a token authenticator. */
typedef struct {
    gcp_user_t          *user;          /* NULL: not authenticated */
    const char * const  *audiences;
    const char          *error;         /* NULL: the token is not ours */
} gcp_auth_sa_result_t;

typedef void (*gcp_auth_sa_done_pt)(void *arg, gcp_auth_sa_result_t *res);

/*
 * Authenticates a service-account token for audiences (NULL: the API
 * audiences): issuer, signature, audiences, lifetime, then the service
 * account (and bound secret) read from the store.  Calls done once, now
 * or later; res memory is a's.
 */
void gcp_auth_sa_authenticate(gcp_api_t *api, gcp_arena_t *a,
    const char *token, size_t len, const char * const *audiences,
    gcp_auth_sa_done_pt done, void *arg);

/* What a service-account token says. */
typedef struct {
    const char          *ns;
    const char          *name;
    const char          *uid;
    const char          *secret_name;   /* bound secret, or NULL */
    const char          *secret_uid;
    const char * const  *audiences;
    int64_t              iat;           /* seconds since the epoch */
    int64_t              exp;
} gcp_auth_sa_claims_t;

/* Returns the signed token for c (arena text), or NULL. */
const char *gcp_auth_sa_issue(gcp_arena_t *a, const gcp_auth_t *auth,
    const gcp_auth_sa_claims_t *c);

/* The user of service account NS/NAME (groups of its namespace). */
gcp_user_t *gcp_auth_sa_user(gcp_arena_t *a, const char *ns,
    const char *name, const char *uid);

/*
 * Splits "system:serviceaccount:NS:NAME" (valid names only).  Returns 1
 * and sets *ns and *name (arena text), else 0.
 */
int gcp_auth_sa_split(gcp_arena_t *a, const char *username, const char **ns,
    const char **name);


/* gcp_auth_oidc.c */

/*
 * Authenticates a bearer token with the JWT authenticators of
 * api->conf.auth, in the configuration's order: a token whose
 * (unverified) issuer is none of theirs is not theirs (res->user and
 * res->error NULL).  Otherwise the issuer's keys are fetched when this
 * process has none yet (the request waits), and refetched once when no
 * key verifies the signature (at most once per GCP_OIDC_REFETCH_MS);
 * then issuer, audiences, lifetime, signature and claims are checked.
 * Calls done once, now or later; res memory is a's.
 */
void gcp_auth_oidc_authenticate(gcp_api_t *api, gcp_arena_t *a,
    const char *token, size_t len, gcp_auth_sa_done_pt done, void *arg);

/* Releases api's per-process OIDC state (keys, fetches, HTTP client). */
void gcp_auth_oidc_fini(gcp_api_t *api);


/* gcp_auth_token.c */

/*
 * The bearer token authenticators in upstream's order: the static token
 * file, then service-account tokens, then the JWT authenticators (a token
 * that one rejects is tried by the next; when all reject it, res->error
 * holds their errors); audiences as for
 * gcp_auth_sa_authenticate().  res->user is the user before
 * system:authenticated is added; res->error NULL and no user: no
 * authenticator recognised the token.
 */
void gcp_auth_bearer(gcp_api_t *api, gcp_arena_t *a, const char *token,
    size_t len, const char * const *audiences, gcp_auth_sa_done_pt done,
    void *arg);


/* gcp_auth_impersonate.c */

/*
 * Applies the Impersonate-* headers of op's request to req->user.  Returns
 * GCP_OK (go on), or another code once the request was answered (403, or
 * 500 for groups, extras or uid without a user).
 */
int gcp_auth_impersonate(gcp_op_t *op);


/* gcp_auth_authz.c */

/*
 * Asks api->authorizer about attrs.  Returns 1 when allowed; else 0 with
 * *reason (may be NULL).
 */
int gcp_auth_authorize(gcp_op_t *op, const gcp_authz_attrs_t *attrs,
    const char **reason);

/* The authentication resources' handlers. */

/*
 * CreateOptions, then the request body decoded as op->res's kind.
 * Returns the object (borrowed from the arena), or NULL once answered.
 */
json_t *gcp_auth_decode_body(gcp_op_t *op);

void gcp_tokenreview_create(gcp_op_t *op);
void gcp_selfsubjectreview_create(gcp_op_t *op);
void gcp_tokenrequest_create(gcp_op_t *op);


#endif /* _GCP_AUTH_INT_H_INCLUDED_ */
