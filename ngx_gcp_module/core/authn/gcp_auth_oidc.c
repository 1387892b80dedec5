
/*
 * JWT authenticators (see gcp_auth_oidc.h and gcp_auth_oidc_authenticate()
 * in gcp_auth_int.h), as upstream's oidc.jwtAuthenticator with go-oidc's
 * IDTokenVerifier and RemoteKeySet:
 *
 *   - each process (each API core) keeps the keys of each issuer, fetched
 *     on the event loop with its own HTTP client (gcp_http.h): the
 *     discovery document (issuer.discoveryURL, else ISSUER/.well-known/
 *     openid-configuration, whose "issuer" must then be the issuer), then
 *     its jwks_uri.  The first token of an issuer waits for them; a
 *     token that no key verifies makes the keys fetched again (go-oidc's
 *     re-sync, here at most once per GCP_OIDC_REFETCH_MS), so keys rotated
 *     by the issuer are picked up without a reload; requests arriving
 *     during a fetch wait for it.  A failed fetch keeps the keys known;
 *     with none, tokens of that issuer fail ("oidc: authenticator not
 *     initialized") until a later one succeeds;
 *   - verification in go-oidc's order: the JWS and its claims parsed
 *     (the algorithm one of gcp_jwt.h's), expiry (no leeway) and nbf
 *     (5 minutes of leeway), the signature, then the audiences (any of
 *     the configured ones), then the claims mapped (gcp_oidc_map_claims()).
 *     Errors read as upstream's ("oidc: verify token: ...").
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gcp_auth_int.h"
#include "gcp_http.h"
#include "gcp_json.h"
#include "gcp_log.h"
#include "gcp_time.h"


#define GCP_OIDC_FETCH_TIMEOUT_MS  10000
#define GCP_OIDC_MAX_DOCUMENT      (1024 * 1024)
#define GCP_OIDC_NBF_LEEWAY        300      /* seconds, go-oidc's */
#define GCP_OIDC_MAX_CONNS         8

#define GCP_OIDC_BAD_SIGNATURE     "oidc: verify token: failed to verify " \
                                   "signature: failed to verify id token " \
                                   "signature"


typedef struct gcp_oidc_wait_s   gcp_oidc_wait_t;
typedef struct gcp_oidc_state_s  gcp_oidc_state_t;


/* A token waiting for its issuer's keys. */
struct gcp_oidc_wait_s {
    gcp_oidc_wait_t       *next;
    gcp_arena_t           *a;
    gcp_jwt_t              jwt;
    gcp_auth_sa_done_pt    done;
    void                  *arg;
    unsigned               refetched:1;     /* no second fetch for it */
};


/* One issuer in this process. */
typedef struct {
    gcp_oidc_state_t          *state;
    const gcp_oidc_issuer_t   *conf;
    gcp_jwt_keys_t             keys;
    char                      *jwks_uri;
    gcp_http_req_t            *req;         /* the fetch in flight */
    gcp_oidc_wait_t           *waiters;
    gcp_oidc_wait_t          **last;
    uint64_t                   fetched_ms;  /* when the last fetch began */
    unsigned                   fetching:1;
    unsigned                   ever:1;      /* a fetch was started */
} gcp_oidc_rt_t;


struct gcp_oidc_state_s {
    gcp_loop_t                *loop;
    gcp_http_t                *http;
    gcp_oidc_rt_t             *rt;
    size_t                     n;
};


static void gcp_oidc_fetch(gcp_oidc_rt_t *rt);
static void gcp_oidc_verify(gcp_oidc_rt_t *rt, gcp_oidc_wait_t *w);


/* per-process state */


static gcp_oidc_state_t *
gcp_oidc_state(gcp_api_t *api, const gcp_auth_t *auth)
{
    size_t             i;
    gcp_oidc_state_t  *st;

    if (api->oidc) {
        return api->oidc;
    }

    if (api->conf.loop == NULL) {
        return NULL;
    }

    st = calloc(1, sizeof(gcp_oidc_state_t));
    if (st == NULL) {
        return NULL;
    }

    st->loop = api->conf.loop;
    st->n = auth->oidc.n;
    st->rt = calloc(st->n, sizeof(gcp_oidc_rt_t));
    st->http = gcp_http_create(st->loop, GCP_OIDC_MAX_CONNS);

    if (st->rt == NULL || st->http == NULL) {
        gcp_http_destroy(st->http);
        free(st->rt);
        free(st);
        return NULL;
    }

    for (i = 0; i < st->n; i++) {
        st->rt[i].state = st;
        st->rt[i].conf = &auth->oidc.jwt[i];
        st->rt[i].last = &st->rt[i].waiters;
    }

    api->oidc = st;

    return st;
}


void
gcp_auth_oidc_fini(gcp_api_t *api)
{
    size_t             i;
    gcp_oidc_state_t  *st = api->oidc;

    if (st == NULL) {
        return;
    }

    /* cancels the fetches: their callbacks do not run */
    gcp_http_destroy(st->http);

    for (i = 0; i < st->n; i++) {
        gcp_jwt_keys_free(&st->rt[i].keys);
        free(st->rt[i].jwks_uri);
    }

    free(st->rt);
    free(st);

    api->oidc = NULL;
}


/* results */


static void
gcp_oidc_fail(gcp_oidc_wait_t *w, const char *error)
{
    gcp_auth_sa_result_t  res;

    memset(&res, 0, sizeof(res));
    res.error = error ? error : "out of memory";

    w->done(w->arg, &res);
}


static void
gcp_oidc_wait(gcp_oidc_rt_t *rt, gcp_oidc_wait_t *w)
{
    w->next = NULL;
    *rt->last = w;
    rt->last = &w->next;
}


/* The fetch ended: the tokens that waited for it are verified now. */

static void
gcp_oidc_fetched(gcp_oidc_rt_t *rt)
{
    gcp_oidc_wait_t  *w, *next;

    rt->fetching = 0;
    rt->req = NULL;

    w = rt->waiters;
    rt->waiters = NULL;
    rt->last = &rt->waiters;

    for ( /* void */ ; w; w = next) {
        next = w->next;
        w->refetched = 1;

        if (rt->keys.n == 0) {
            gcp_oidc_fail(w, "oidc: authenticator not initialized");
            continue;
        }

        gcp_oidc_verify(rt, w);
    }
}


/* fetching */


static void
gcp_oidc_fetch_failed(gcp_oidc_rt_t *rt, const char *what, const char *why)
{
    gcp_log(GCP_LOG_WARN, "oidc: issuer \"%s\": %s: %s", rt->conf->url,
            what, why);

    gcp_oidc_fetched(rt);
}


/* The answer of a fetch as a JSON object, or NULL with *why. */

static json_t *
gcp_oidc_answer(gcp_arena_t *a, const gcp_http_result_t *res,
    const char **why)
{
    json_t  *doc;

    if (res->error != GCP_HTTP_OK) {
        *why = res->detail ? res->detail
                           : res->message ? res->message : "no answer";
        return NULL;
    }

    if (res->status != 200) {
        *why = gcp_sprintf(a, "HTTP status %ld", res->status);
        return NULL;
    }

    doc = gcp_json_parse(a, res->body.data, res->body.len, why);

    if (doc && !json_is_object(doc)) {
        *why = "not a JSON object";
        return NULL;
    }

    if (doc == NULL && *why == NULL) {
        *why = "out of memory";
    }

    return doc;
}


static void
gcp_oidc_got_jwks(void *arg, const gcp_http_result_t *res)
{
    int              rc;
    json_t          *doc;
    const char      *why;
    gcp_arena_t     *a;
    gcp_oidc_rt_t   *rt = arg;
    gcp_jwt_keys_t   keys;

    a = gcp_arena_create(0);
    if (a == NULL) {
        gcp_oidc_fetch_failed(rt, "JWKS", "out of memory");
        return;
    }

    why = NULL;
    doc = gcp_oidc_answer(a, res, &why);

    memset(&keys, 0, sizeof(keys));

    if (doc) {
        rc = gcp_jwt_keys_from_jwks(&keys, doc);

        if (rc != GCP_OK || keys.n == 0) {
            gcp_jwt_keys_free(&keys);
            why = rc == GCP_ENOMEM ? "out of memory"
                                   : "no usable key in the key set";
            doc = NULL;
        }
    }

    if (doc == NULL) {
        gcp_oidc_fetch_failed(rt, rt->jwks_uri, why);
        gcp_arena_destroy(a);
        return;
    }

    gcp_jwt_keys_free(&rt->keys);
    rt->keys = keys;

    gcp_arena_destroy(a);

    gcp_oidc_fetched(rt);
}


static int
gcp_oidc_get(gcp_oidc_rt_t *rt, const char *url, gcp_http_done_pt done)
{
    gcp_http_opts_t  o;

    static const char * const  headers[] = { "Accept: application/json",
                                             NULL };

    memset(&o, 0, sizeof(o));

    o.method = "GET";
    o.url = url;
    o.headers = headers;
    o.timeout_ms = GCP_OIDC_FETCH_TIMEOUT_MS;
    o.max_body = GCP_OIDC_MAX_DOCUMENT;

    if (rt->conf->ca_pem) {
        o.ca.pem.data = rt->conf->ca_pem;
        o.ca.pem.len = strlen(rt->conf->ca_pem);
    }

    rt->req = gcp_http_send(rt->state->http, &o, NULL, done, rt);

    return rt->req ? GCP_OK : GCP_ENOMEM;
}


static void
gcp_oidc_got_discovery(void *arg, const gcp_http_result_t *res)
{
    json_t         *doc;
    const char     *why, *iss, *uri;
    gcp_arena_t    *a;
    gcp_oidc_rt_t  *rt = arg;

    a = gcp_arena_create(0);
    if (a == NULL) {
        gcp_oidc_fetch_failed(rt, "discovery", "out of memory");
        return;
    }

    why = NULL;
    doc = gcp_oidc_answer(a, res, &why);

    if (doc) {
        iss = json_string_value(json_object_get(doc, "issuer"));
        uri = json_string_value(json_object_get(doc, "jwks_uri"));

        /* go-oidc's NewProvider; a discoveryURL skips the issuer check */

        if (rt->conf->discovery_url == NULL
            && (iss == NULL || strcmp(iss, rt->conf->url) != 0))
        {
            why = gcp_sprintf(a, "oidc: issuer did not match the issuer "
                              "returned by provider, expected \"%s\" got "
                              "\"%s\"", rt->conf->url, iss ? iss : "");
            doc = NULL;

        } else if (uri == NULL || uri[0] == '\0') {
            why = "no jwks_uri in the discovery document";
            doc = NULL;

        } else {
            free(rt->jwks_uri);
            rt->jwks_uri = strdup(uri);

            if (rt->jwks_uri == NULL) {
                why = "out of memory";
                doc = NULL;
            }
        }
    }

    if (doc == NULL) {
        gcp_oidc_fetch_failed(rt, "discovery", why);
        gcp_arena_destroy(a);
        return;
    }

    gcp_arena_destroy(a);

    if (gcp_oidc_get(rt, rt->jwks_uri, gcp_oidc_got_jwks) != GCP_OK) {
        gcp_oidc_fetch_failed(rt, rt->jwks_uri, "out of memory");
    }
}


static void
gcp_oidc_fetch(gcp_oidc_rt_t *rt)
{
    int    rc;
    char  *url;

    rt->fetching = 1;
    rt->ever = 1;
    rt->fetched_ms = rt->state->loop->now_ms(rt->state->loop);

    url = gcp_oidc_discovery_url(rt->conf);

    rc = url ? gcp_oidc_get(rt, url, gcp_oidc_got_discovery) : GCP_ENOMEM;
    free(url);

    if (rc != GCP_OK) {
        gcp_oidc_fetch_failed(rt, "discovery", "out of memory");
    }
}


/* verification */


/* Go's %v of a time.Time in UTC: "2006-01-02 15:04:05 +0000 UTC". */

static const char *
gcp_oidc_go_time(gcp_arena_t *a, int64_t t)
{
    char       buf[64];
    time_t     tt;
    struct tm  tm;

    tt = (time_t) t;

    if (gmtime_r(&tt, &tm) == NULL) {
        return "?";
    }

    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S +0000 UTC", &tm);

    return gcp_strdup(a, buf);
}


/* "aud": a string or strings (go-oidc's audience); NULL when neither. */

static const char **
gcp_oidc_token_audiences(gcp_arena_t *a, const json_t *aud)
{
    size_t        i, n;
    const char  **v;

    n = json_is_array(aud) ? json_array_size(aud) : 1;

    v = gcp_calloc(a, (n + 1) * sizeof(const char *));
    if (v == NULL) {
        return NULL;
    }

    if (aud == NULL || json_is_null(aud)) {
        return v;
    }

    if (json_is_string(aud)) {
        v[0] = json_string_value(aud);
        return v;
    }

    if (!json_is_array(aud)) {
        return NULL;
    }

    for (i = 0; i < n; i++) {
        v[i] = json_string_value(json_array_get(aud, i));

        if (v[i] == NULL) {
            return NULL;
        }
    }

    return v;
}


/* go-oidc's checks before the signature; returns NULL or the error. */

static const char *
gcp_oidc_check_claims(gcp_arena_t *a, const gcp_jwt_t *jwt, int64_t now)
{
    int            bad, present;
    int64_t        exp, nbf;
    const json_t  *c = jwt->claims;

    if (!gcp_jwt_alg_supported(jwt->alg)) {
        return gcp_sprintf(a, "oidc: verify token: oidc: malformed jwt: "
                           "go-jose/go-jose: unexpected signature algorithm "
                           "\"%s\"; expected [\"RS256\" \"RS384\" \"RS512\" "
                           "\"ES256\" \"ES384\" \"ES512\" \"PS256\" \"PS384\" "
                           "\"PS512\"]", jwt->alg);
    }

    bad = 0;
    exp = gcp_auth_time_claim(c, "exp", &present, &bad);
    nbf = gcp_auth_time_claim(c, "nbf", &present, &bad);

    if (bad || !json_is_string(json_object_get(c, "iss"))) {
        return "oidc: verify token: oidc: failed to unmarshal claims";
    }

    if (exp < now) {
        return gcp_sprintf(a, "oidc: verify token: oidc: token is expired "
                           "(Token Expiry: %s)",
                           exp ? gcp_oidc_go_time(a, exp)
                               : "0001-01-01 00:00:00 +0000 UTC");
    }

    if (present && nbf > now + GCP_OIDC_NBF_LEEWAY) {
        return gcp_sprintf(a, "oidc: verify token: oidc: current time %s "
                           "before the nbf (not before) time: %s",
                           gcp_oidc_go_time(a, now),
                           gcp_oidc_go_time(a, nbf));
    }

    return NULL;
}


/* kube's verifyAudience: any configured audience among the token's. */

static const char *
gcp_oidc_check_audience(gcp_arena_t *a, const gcp_oidc_issuer_t *iss,
    const char **auds)
{
    size_t        i, j, n;
    const char  **sorted, *t;

    for (i = 0; auds[i]; i++) {
        if (gcp_auth_strv_has(iss->audiences, auds[i])) {
            return NULL;
        }
    }

    /* sets.List(): sorted */

    n = gcp_auth_strv_len(iss->audiences);
    sorted = gcp_calloc(a, (n + 1) * sizeof(const char *));
    if (sorted == NULL) {
        return NULL;
    }

    memcpy(sorted, iss->audiences, n * sizeof(const char *));

    for (i = 1; i < n; i++) {
        for (j = i; j > 0 && strcmp(sorted[j - 1], sorted[j]) > 0; j--) {
            t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    }

    return gcp_sprintf(a, "oidc: verify token: oidc: expected audience in %s "
                       "got %s", gcp_auth_quote_list(a, sorted),
                       gcp_auth_quote_list(a, auds));
}


static void
gcp_oidc_verify(gcp_oidc_rt_t *rt, gcp_oidc_wait_t *w)
{
    int64_t                now;
    uint64_t               ms;
    gcp_arena_t           *a = w->a;
    const char            *err, **auds;
    gcp_auth_sa_result_t   res;

    now = (int64_t) gcp_time_now().tv_sec;

    err = gcp_oidc_check_claims(a, &w->jwt, now);
    if (err) {
        gcp_oidc_fail(w, err);
        return;
    }

    auds = gcp_oidc_token_audiences(a, json_object_get(w->jwt.claims,
                                                       "aud"));
    if (auds == NULL) {
        gcp_oidc_fail(w, "oidc: verify token: oidc: failed to unmarshal "
                         "claims");
        return;
    }

    if (gcp_jwt_verify_kid(&w->jwt, &rt->keys) != GCP_OK) {

        /* go-oidc's re-sync: the keys may have rotated */

        ms = rt->state->loop->now_ms(rt->state->loop);

        if (!w->refetched
            && (rt->fetching
                || ms - rt->fetched_ms >= GCP_OIDC_REFETCH_MS))
        {
            gcp_oidc_wait(rt, w);

            if (!rt->fetching) {
                gcp_oidc_fetch(rt);
            }

            return;
        }

        gcp_oidc_fail(w, rt->keys.n ? GCP_OIDC_BAD_SIGNATURE
                                    : "oidc: authenticator not initialized");
        return;
    }

    err = gcp_oidc_check_audience(a, rt->conf, auds);
    if (err) {
        gcp_oidc_fail(w, err);
        return;
    }

    memset(&res, 0, sizeof(res));

    res.user = gcp_oidc_map_claims(a, rt->conf, w->jwt.claims, &res.error);

    w->done(w->arg, &res);
}


/* upstream's untrustedIssuer: Google's legacy issuer coalesced */

static const char *
gcp_oidc_untrusted_issuer(gcp_arena_t *a, const char *token, size_t len)
{
    json_t      *peek;
    const char  *iss;

    peek = gcp_jwt_peek_claims(a, token, len);
    iss = json_string_value(json_object_get(peek, "iss"));

    if (iss && strcmp(iss, "accounts.google.com") == 0) {
        return "https://accounts.google.com";
    }

    return iss;
}


void
gcp_auth_oidc_authenticate(gcp_api_t *api, gcp_arena_t *a,
    const char *token, size_t len, gcp_auth_sa_done_pt done, void *arg)
{
    size_t                 i;
    const char            *iss;
    gcp_oidc_rt_t         *rt;
    gcp_oidc_wait_t       *w;
    gcp_oidc_state_t      *st;
    const gcp_auth_t      *auth = api->conf.auth;
    gcp_auth_sa_result_t   res;

    memset(&res, 0, sizeof(res));

    if (auth == NULL || auth->oidc.n == 0) {
        done(arg, &res);
        return;
    }

    while (len && (*token == ' ' || *token == '\t')) {
        token++;
        len--;
    }

    iss = (len && token[0] != '{')
          ? gcp_oidc_untrusted_issuer(a, token, len) : NULL;

    for (i = 0; iss && i < auth->oidc.n; i++) {
        if (strcmp(auth->oidc.jwt[i].url, iss) == 0) {
            break;
        }
    }

    if (iss == NULL || i == auth->oidc.n) {
        /* not for any of these issuers */
        done(arg, &res);
        return;
    }

    w = gcp_calloc(a, sizeof(gcp_oidc_wait_t));
    st = gcp_oidc_state(api, auth);

    if (w == NULL || st == NULL) {
        res.error = w ? "oidc: authenticator not initialized"
                      : "out of memory";
        done(arg, &res);
        return;
    }

    w->a = a;
    w->done = done;
    w->arg = arg;

    if (gcp_jwt_parse(a, token, len, &w->jwt) != GCP_OK) {
        gcp_oidc_fail(w, "oidc: verify token: oidc: malformed jwt");
        return;
    }

    rt = &st->rt[i];

    if (!rt->ever || rt->fetching) {
        /* the first token of this issuer, or keys on their way */

        gcp_oidc_wait(rt, w);

        if (!rt->fetching) {
            gcp_oidc_fetch(rt);
        }

        return;
    }

    /* with no keys yet (the fetches failed), verifying fetches again */

    gcp_oidc_verify(rt, w);
}
