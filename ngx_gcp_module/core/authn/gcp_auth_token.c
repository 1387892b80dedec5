
/*
 * Bearer tokens: the token authenticators in order (static tokens, then
 * service-account tokens, then the JWT authenticators of the
 * authentication configuration: upstream's union, where a token that one
 * rejects is still tried by the next), and token authentication as TokenReview sees
 * it, with upstream's error texts ("[invalid bearer token, ...]").
 */

#include "gcp_auth_int.h"


#define GCP_AUTH_INVALID_TOKEN  "invalid bearer token"


/* The API audiences also requested (audience-agnostic static tokens). */

static const char **
gcp_auth_implicit_audiences(gcp_arena_t *a, const gcp_auth_t *auth,
    const char * const *requested)
{
    size_t        i, j, n;
    const char  **v;

    for (n = 0; auth->audiences[n]; n++) { /* void */ }

    v = gcp_calloc(a, (n + 1) * sizeof(const char *));
    if (v == NULL) {
        return NULL;
    }

    if (requested == NULL || requested[0] == NULL) {
        memcpy(v, auth->audiences, n * sizeof(const char *));
        return v;
    }

    n = 0;

    for (i = 0; auth->audiences[i]; i++) {
        for (j = 0; requested[j]; j++) {
            if (strcmp(auth->audiences[i], requested[j]) == 0) {
                v[n++] = auth->audiences[i];
                break;
            }
        }
    }

    return v;
}


/* The token is tried by the JWT authenticators after service accounts. */

typedef struct {
    gcp_api_t             *api;
    gcp_arena_t           *a;
    const char            *token;
    size_t                 len;
    const char            *sa_error;
    const char           **audiences;   /* API audiences also requested */
    gcp_auth_sa_done_pt    done;
    void                  *arg;
} gcp_auth_union_t;


static void
gcp_auth_oidc_done(void *arg, gcp_auth_sa_result_t *res)
{
    gcp_auth_union_t  *u = arg;

    if (res->user) {
        res->audiences = u->audiences;

    } else if (u->sa_error) {
        /* both failed: the errors of both, as upstream's aggregate */
        res->error = res->error ? gcp_sprintf(u->a, "%s, %s", u->sa_error,
                                              res->error)
                                : u->sa_error;
    }

    u->done(u->arg, res);
}


static void
gcp_auth_sa_done(void *arg, gcp_auth_sa_result_t *res)
{
    gcp_auth_union_t  *u = arg;

    if (res->user) {
        u->done(u->arg, res);
        return;
    }

    u->sa_error = res->error;

    if (u->audiences[0] == NULL) {
        /* audience-agnostic, as upstream wraps them: none requested */
        u->done(u->arg, res);
        return;
    }

    gcp_auth_oidc_authenticate(u->api, u->a, u->token, u->len,
                               gcp_auth_oidc_done, u);
}


void
gcp_auth_bearer(gcp_api_t *api, gcp_arena_t *a, const char *token,
    size_t len, const char * const *audiences, gcp_auth_sa_done_pt done,
    void *arg)
{
    const char            **auds;
    gcp_auth_union_t       *u;
    gcp_auth_sa_result_t    res;
    const gcp_auth_t       *auth = api->conf.auth;

    memset(&res, 0, sizeof(res));

    if (auth && auth->ntokens) {
        auds = gcp_auth_implicit_audiences(a, auth, audiences);

        if (auds == NULL) {
            res.error = "out of memory";
            done(arg, &res);
            return;
        }

        if (auds[0]) {
            res.user = gcp_auth_tokens_find(a, auth, token, len);

            if (res.user) {
                res.audiences = auds;
                done(arg, &res);
                return;
            }
        }
    }

    if (auth == NULL || auth->oidc.n == 0) {
        gcp_auth_sa_authenticate(api, a, token, len, audiences, done, arg);
        return;
    }

    u = gcp_calloc(a, sizeof(gcp_auth_union_t));
    if (u == NULL) {
        res.error = "out of memory";
        done(arg, &res);
        return;
    }

    u->audiences = gcp_auth_implicit_audiences(a, auth, audiences);
    if (u->audiences == NULL) {
        res.error = "out of memory";
        done(arg, &res);
        return;
    }

    u->api = api;
    u->a = a;
    u->token = token;
    u->len = len;
    u->done = done;
    u->arg = arg;

    gcp_auth_sa_authenticate(api, a, token, len, audiences, gcp_auth_sa_done,
                             u);
}


typedef struct {
    gcp_arena_t         *a;
    gcp_authn_done_pt    done;
    void                *arg;
} gcp_auth_review_t;


static void
gcp_auth_token_done(void *arg, gcp_auth_sa_result_t *res)
{
    gcp_user_t          *u;
    gcp_auth_review_t   *r = arg;
    gcp_authn_result_t   out;

    memset(&out, 0, sizeof(out));

    u = res->user;

    if (u) {
        if (!gcp_user_in_group(u, GCP_AUTH_AUTHENTICATED)
            && !gcp_user_in_group(u, GCP_AUTH_UNAUTHENTICATED)
            && gcp_user_add_group(r->a, u, GCP_AUTH_AUTHENTICATED) != GCP_OK)
        {
            out.error = "out of memory";
            r->done(r->arg, &out);
            return;
        }

        out.user = u;
        out.audiences = res->audiences;

    } else if (res->error) {
        out.error = gcp_sprintf(r->a, "[" GCP_AUTH_INVALID_TOKEN ", %s]",
                                res->error);

    } else {
        out.error = GCP_AUTH_INVALID_TOKEN;
    }

    r->done(r->arg, &out);
}


void
gcp_auth_token(gcp_api_t *api, gcp_arena_t *a, const char *token,
    const char * const *audiences, gcp_authn_done_pt done, void *arg)
{
    gcp_auth_review_t   *r;
    gcp_authn_result_t   out;

    r = gcp_calloc(a, sizeof(gcp_auth_review_t));
    if (r == NULL) {
        memset(&out, 0, sizeof(out));
        out.error = "out of memory";
        done(arg, &out);
        return;
    }

    r->a = a;
    r->done = done;
    r->arg = arg;

    gcp_auth_bearer(api, a, token, strlen(token), audiences,
                    gcp_auth_token_done, r);
}
