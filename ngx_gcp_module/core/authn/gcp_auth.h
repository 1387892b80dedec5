
/*
 * Authentication, impersonation and the authorization step of every
 * request, as kube-apiserver's filters (WithAuthentication,
 * WithImpersonation, WithAuthorization):
 *
 *   1. authenticators, the first that recognises the request wins, in
 *      upstream's order: front-proxy request headers (trusted only from a
 *      client certificate of the requestheader CA with an allowed name),
 *      X.509 client certificates (CN the user, O the groups), bearer
 *      tokens (the static token file, then service-account JWTs, whose
 *      service account is read from the store, then the JWT authenticators
 *      of the authentication configuration, whose issuers' keys are
 *      fetched: this step may complete later).  Every authenticated user gets system:authenticated.  When
 *      no authenticator recognises the request and none reported an
 *      error, the request is anonymous (system:anonymous, group
 *      system:unauthenticated) if allowed; otherwise 401;
 *   2. Impersonate-User/-Group/-Uid/-Extra-*, each authorized with the
 *      impersonate verb;
 *   3. the request's attributes (gcp_authz.h) go to api->authorizer: 403
 *      unless allowed.
 *
 * Steps 1 and 2 are gcp_auth_request(), step 3 gcp_auth_authorize_request();
 * API Priority and Fairness runs between them, as in kube-apiserver.  The
 * in-process client (gcp_client.h) sets req->user itself: step 1 and 2 do
 * nothing then.  Credentials never reach a log.
 */

#ifndef _GCP_AUTH_H_INCLUDED_
#define _GCP_AUTH_H_INCLUDED_


#include "gcp_authz.h"
#include "gcp_op.h"


#define GCP_AUTH_ANONYMOUS        "system:anonymous"
#define GCP_AUTH_UNAUTHENTICATED  "system:unauthenticated"
#define GCP_AUTH_AUTHENTICATED    "system:authenticated"
#define GCP_AUTH_MASTERS          "system:masters"
#define GCP_AUTH_SA_PREFIX        "system:serviceaccount:"
#define GCP_AUTH_SA_GROUP         "system:serviceaccounts"
#define GCP_AUTH_CREDENTIAL_ID    "authentication.kubernetes.io/credential-id"

#define GCP_AUTH_DEFAULT_ISSUER   "https://kubernetes.default.svc.cluster.local"


/*
 * What gcp_auth_create() loads; every string is read during the call
 * only.  Lists are NULL-terminated, NULL meaning empty.
 */
typedef struct {
    const char          *client_ca_file;        /* X.509 client certs */
    const char          *token_auth_file;       /* static tokens (CSV) */

    /* service accounts: signing key (TokenRequest), verification keys */
    /* (default: the signing key's), issuers (the first one issues; */
    /* default GCP_AUTH_DEFAULT_ISSUER), API audiences (default: the */
    /* first issuer), the longest lifetime issued (seconds, 0: none) */
    const char          *sa_signing_key_file;
    const char * const  *sa_key_files;
    const char * const  *sa_issuers;
    const char * const  *api_audiences;
    int64_t              sa_max_expiration;

    /* jwks_uri of the issuer discovery document (an https URL; NULL: */
    /* https://HOST/openid/v1/jwks with the request's Host) */
    const char          *sa_jwks_uri;

    /* AuthenticationConfiguration (JWT authenticators), or NULL; how */
    /* errors name it (e.g. the directive; NULL: "authentication */
    /* configuration") */
    const char          *authentication_config_file;
    const char          *authentication_config_name;

    /* front proxy: CA, allowed CNs (none: any), header names (defaults */
    /* X-Remote-User, X-Remote-Group, X-Remote-Extra-) */
    const char          *requestheader_ca_file;
    const char * const  *requestheader_allowed_names;
    const char * const  *requestheader_username_headers;
    const char * const  *requestheader_group_headers;
    const char * const  *requestheader_extra_prefixes;

    unsigned             anonymous:1;           /* anonymous requests */
} gcp_auth_conf_t;


/*
 * Loads the files of conf.  Returns the authentication configuration,
 * owned by the caller (gcp_auth_destroy()), or NULL with a message in err
 * (errlen bytes).  Processes forked afterwards use their own copy (it
 * holds a per-process cache of verified client certificates); one process
 * may share it between API cores.
 */
gcp_auth_t *gcp_auth_create(const gcp_auth_conf_t *conf, char *err,
    size_t errlen);

void gcp_auth_destroy(gcp_auth_t *auth);

/*
 * Sets api->authorizer for api->conf.authorization_mode ("AlwaysAllow",
 * the default, or "RBAC").  Returns GCP_OK, or an error with *err (static
 * text).  gcp_auth_fini() releases it.
 */
int gcp_auth_init(gcp_api_t *api, const char **err);
void gcp_auth_fini(gcp_api_t *api);

/* The AlwaysAllow authorizer (static; its destroy does nothing). */
extern gcp_authorizer_t  gcp_authz_always_allow;


/* The request step. */

typedef void (*gcp_auth_next_pt)(gcp_op_t *op);

/*
 * Authenticates and impersonates op's request (op->ri parsed), then calls
 * next(op), now or later; req->user is set then (arena-owned).  A refusal
 * answers the request itself (401, 403 for impersonation, or 500 for
 * impersonation headers without a user) and next is not called.
 */
void gcp_auth_request(gcp_op_t *op, gcp_auth_next_pt next);

/* Authorizes op's own request: returns GCP_OK, or answers 403. */
int gcp_auth_authorize_request(gcp_op_t *op);

/*
 * Answers op with kube-apiserver's 403 for a denial of attrs (reason may
 * be NULL or empty), e.g. "configmaps \"x\" is forbidden: User \"u\"
 * cannot get resource \"configmaps\" in API group \"\" in the namespace
 * \"ns\"".
 */
void gcp_auth_forbidden(gcp_op_t *op, const gcp_authz_attrs_t *attrs,
    const char *reason);

/*
 * Serves the authentication resources that are not stored: TokenReview,
 * SelfSubjectReview and serviceaccounts/NAME/token (TokenRequest).
 * Returns 1 when op was one of them (then it is answered), else 0.
 */
int gcp_auth_serve(gcp_op_t *op);

/*
 * Serves service-account issuer discovery (GET /.well-known/openid-
 * configuration and /openid/v1/jwks) when the first issuer is an https
 * URL and there are verification keys.  Returns 1 when op was one of
 * them (then it is answered), else 0.
 */
int gcp_auth_issuer_discovery(gcp_op_t *op);

/* Returns 1 when api serves issuer discovery (as above), else 0. */
int gcp_auth_issuer_served(const gcp_api_t *api);


/*
 * The request headers authentication consumes, which a request proxied on
 * must not carry (upstream's filters remove them): Authorization, the
 * impersonation headers, the front-proxy user, group and extra headers
 * (auth may be NULL: the defaults).  Returns a NULL-terminated array
 * (arena), where a name ending in '*' stands for a prefix, or NULL when
 * out of memory.
 */
const char **gcp_auth_consumed_headers(gcp_arena_t *a,
    const gcp_auth_t *auth);


/*
 * What clients of this server need to know of its authentication, as
 * kube-apiserver publishes it in the ConfigMap
 * kube-system/extension-apiserver-authentication: the CAs (PEM) of client
 * certificates and of the front proxy, the names the front proxy may
 * have, its headers.  Borrowed from auth (NULL: everything NULL); lists
 * NULL-terminated.
 */
typedef struct {
    const char          *client_ca;
    const char          *requestheader_ca;
    const char * const  *allowed_names;
    const char * const  *username_headers;
    const char * const  *group_headers;
    const char * const  *extra_prefixes;
} gcp_auth_info_t;

void gcp_auth_info(const gcp_auth_t *auth, gcp_auth_info_t *info);


/* Token authentication alone (TokenReview). */

typedef struct {
    const gcp_user_t    *user;          /* NULL: not authenticated */
    const char * const  *audiences;     /* NULL-terminated, or NULL */
    const char          *error;         /* upstream's error text, or NULL */
} gcp_authn_result_t;

typedef void (*gcp_authn_done_pt)(void *arg, const gcp_authn_result_t *res);

/*
 * Authenticates a bearer token for the audiences (NULL or empty: the API
 * audiences) as TokenReview does: the token authenticators, then
 * system:authenticated.  Calls done exactly once, possibly before
 * returning; everything it reports is owned by a.
 */
void gcp_auth_token(gcp_api_t *api, gcp_arena_t *a, const char *token,
    const char * const *audiences, gcp_authn_done_pt done, void *arg);


/* Users (gcp_auth_user.c).  All memory comes from the arena. */

/* Returns a new user with no group, or NULL when out of memory. */
gcp_user_t *gcp_user_create(gcp_arena_t *a, const char *name,
    const char *uid);

/* Appends a group.  Returns GCP_OK or GCP_ENOMEM. */
int gcp_user_add_group(gcp_arena_t *a, gcp_user_t *u, const char *group);

/* Appends value to extra[key].  Returns GCP_OK or GCP_ENOMEM. */
int gcp_user_add_extra(gcp_arena_t *a, gcp_user_t *u, const char *key,
    const char *value);

/* Returns 1 when u is in group. */
int gcp_user_in_group(const gcp_user_t *u, const char *group);

/*
 * Returns u as authentication.k8s.io/v1 UserInfo (username, uid, groups,
 * extra with sorted keys; empty fields omitted), a new reference owned by
 * the caller; NULL when out of memory.
 */
json_t *gcp_user_info_json(const gcp_user_t *u);


#endif /* _GCP_AUTH_H_INCLUDED_ */
