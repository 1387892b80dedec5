
/*
 * JWT authenticators from kube-apiserver's structured authentication
 * configuration (AuthenticationConfiguration, apiserver.config.k8s.io
 * v1alpha1 and v1beta1, as 1.32 reads them: --authentication-config):
 *
 *   - gcp_auth_jwtconf.c reads and validates the file as upstream's
 *     ValidateAuthenticationConfiguration does, with its messages (an
 *     aggregate of field errors: "jwt[0].issuer.url: Invalid value:
 *     \"http://x\": URL scheme must be https").  CEL expressions (claim
 *     validation rules' and claim mappings' expressions, extra mappings,
 *     user validation rules) are refused: there is no CEL yet;
 *   - gcp_auth_oidc.c authenticates bearer tokens with them (see
 *     gcp_auth_oidc_authenticate() in gcp_auth_int.h), fetching each issuer's discovery
 *     document and JSON Web Key Set on the event loop.
 */

#ifndef _GCP_AUTH_OIDC_H_INCLUDED_
#define _GCP_AUTH_OIDC_H_INCLUDED_


#include "gcp_auth.h"


#define GCP_OIDC_MAX_AUTHENTICATORS  64
#define GCP_OIDC_MAX_FILE            (1024 * 1024)
#define GCP_OIDC_REFETCH_MS          1000   /* keys fetched again at most */
                                            /* this often */


/* A claim mapped to a user field: claim NULL: none; prefix NULL: unset. */
typedef struct {
    char                *claim;
    char                *prefix;
} gcp_oidc_claim_t;


/* A claimValidationRule with a claim: the claim must have the value. */
typedef struct {
    char                *claim;
    char                *value;
} gcp_oidc_required_t;


/* One jwt[] entry. */
typedef struct {
    char                *url;               /* issuer.url */
    char                *discovery_url;     /* NULL: URL/.well-known/... */
    char                *ca_pem;            /* NULL: the system's CAs */
    char               **audiences;         /* NULL-terminated, at least 1 */
    gcp_oidc_claim_t     username;
    gcp_oidc_claim_t     groups;
    gcp_oidc_claim_t     uid;
    gcp_oidc_required_t *required;
    size_t               nrequired;
} gcp_oidc_issuer_t;


typedef struct {
    gcp_oidc_issuer_t   *jwt;
    size_t               n;
} gcp_oidc_conf_t;


/*
 * Reads an AuthenticationConfiguration (JSON or YAML) from the len bytes
 * at data into conf, validated; disallowed (NULL-terminated, may be NULL)
 * are the issuer URLs no JWT authenticator may use (the service-account
 * issuers).  Returns GCP_OK (gcp_oidc_conf_free() conf then), GCP_ENOMEM,
 * or GCP_EINVALID with upstream's message in err (errlen bytes); conf is
 * empty on failure.
 */
int gcp_oidc_conf_parse(const char *data, size_t len,
    const char * const *disallowed, gcp_oidc_conf_t *conf, char *err,
    size_t errlen);

/* The same for the file at path ("\"PATH\": " before the message). */
int gcp_oidc_conf_load(const char *path, const char * const *disallowed,
    gcp_oidc_conf_t *conf, char *err, size_t errlen);

void gcp_oidc_conf_free(gcp_oidc_conf_t *conf);


/* The discovery document's URL of an issuer (malloc'd), or NULL. */
char *gcp_oidc_discovery_url(const gcp_oidc_issuer_t *iss);


/*
 * The user a token's verified claims map to, as upstream's jwtAuthenticator
 * does after the signature: username (with email_verified checked when the
 * claim is "email"), groups (a string or strings), uid, extra (the
 * credential id of "jti"), then the required claims.  Returns the user
 * (arena), or NULL with *error (arena or static text; "out of memory").
 */
gcp_user_t *gcp_oidc_map_claims(gcp_arena_t *a, const gcp_oidc_issuer_t *iss,
    const json_t *claims, const char **error);


#endif /* _GCP_AUTH_OIDC_H_INCLUDED_ */
