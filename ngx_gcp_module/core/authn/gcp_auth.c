
/*
 * Authentication: the configuration, and the request step (see
 * gcp_auth.h): front proxy, client certificate, bearer token, anonymous;
 * then impersonation and authorization.
 */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "gcp_audit.h"
#include "gcp_auth_int.h"
#include "gcp_metrics.h"
#include "gcp_time.h"
#include "gcp_reg.h"
#include "gcp_authn_types.h"
#include "gcp_types.h"


/* string lists */


char **
gcp_auth_strv(const char * const *list, const char *def)
{
    size_t   n, i;
    char   **v;

    n = 0;

    while (list && list[n]) {
        n++;
    }

    v = calloc(n + 2, sizeof(char *));
    if (v == NULL) {
        return NULL;
    }

    if (n == 0 && def) {
        v[0] = strdup(def);

        if (v[0] == NULL) {
            free(v);
            return NULL;
        }

        return v;
    }

    for (i = 0; i < n; i++) {
        v[i] = strdup(list[i]);

        if (v[i] == NULL) {
            gcp_auth_strv_free(v);
            return NULL;
        }
    }

    return v;
}


void
gcp_auth_strv_free(char **v)
{
    char  **p;

    for (p = v; p && *p; p++) {
        free(*p);
    }

    free(v);
}


size_t
gcp_auth_strv_len(char * const *v)
{
    size_t  n;

    for (n = 0; v && v[n]; n++) {
        /* void */
    }

    return n;
}


int
gcp_auth_strv_has(char * const *v, const char *s)
{
    for ( /* void */ ; v && *v; v++) {
        if (strcmp(*v, s) == 0) {
            return 1;
        }
    }

    return 0;
}


const char *
gcp_auth_quote_list(gcp_arena_t *a, const char * const *v)
{
    size_t       i;
    gcp_buf_t    b;
    const char  *q;

    gcp_buf_init(&b, a);
    gcp_buf_addc(&b, '[');

    for (i = 0; v && v[i]; i++) {
        q = gcp_go_quote(a, v[i], strlen(v[i]));
        gcp_buf_printf(&b, "%s%s", i ? " " : "", q ? q : "");
    }

    gcp_buf_addc(&b, ']');

    return gcp_buf_dup(&b).data;
}


int64_t
gcp_auth_time_claim(const json_t *claims, const char *name, int *present,
    int *bad)
{
    const json_t  *v;

    v = json_object_get(claims, name);
    *present = v != NULL && !json_is_null(v);

    if (!*present) {
        return 0;
    }

    if (!json_is_number(v)) {
        *bad = 1;
        return 0;
    }

    return (int64_t) json_number_value(v);
}


const char *
gcp_auth_header(const gcp_request_t *req, const char *name)
{
    size_t  i;

    for (i = 0; i < req->nheaders; i++) {
        if (strcasecmp(req->headers[i].name, name) == 0) {
            return req->headers[i].value;
        }
    }

    return NULL;
}


const char *
gcp_auth_extra_key(gcp_arena_t *a, const char *s)
{
    char    *k, *p;
    size_t   i, n;

    k = gcp_strdup(a, s);
    if (k == NULL) {
        return NULL;
    }

    for (p = k; *p; p++) {
        *p = (char) tolower((unsigned char) *p);
    }

    n = strlen(k);

    for (i = 0; i < n; i++) {
        if (k[i] == '%'
            && (i + 2 >= n || !isxdigit((unsigned char) k[i + 1])
                || !isxdigit((unsigned char) k[i + 2])))
        {
            /* not valid escaping: the key as it is */
            return k;
        }
    }

    return gcp_url_decode(a, k, n, 0);
}


const char **
gcp_auth_consumed_headers(gcp_arena_t *a, const gcp_auth_t *auth)
{
    size_t         n, k;
    const char   **out;
    char * const  *lists[3];
    char * const  *p;

    static char *  user_headers[] = { "X-Remote-User", NULL };
    static char *  group_headers[] = { "X-Remote-Group", NULL };
    static char *  extra_prefixes[] = { "X-Remote-Extra-", NULL };

    static const char * const  fixed[] = {
        "Authorization", "Impersonate-User", "Impersonate-Group",
        "Impersonate-Uid", "Impersonate-Extra-*", NULL
    };

    lists[0] = auth ? auth->user_headers : user_headers;
    lists[1] = auth ? auth->group_headers : group_headers;
    lists[2] = auth ? auth->extra_prefixes : extra_prefixes;

    n = gcp_nelems(fixed);

    for (k = 0; k < 3; k++) {
        n += gcp_auth_strv_len(lists[k]);
    }

    out = gcp_alloc(a, n * sizeof(char *));
    if (out == NULL) {
        return NULL;
    }

    for (n = 0; fixed[n]; n++) {
        out[n] = fixed[n];
    }

    for (k = 0; k < 3; k++) {
        for (p = lists[k]; p && *p; p++) {
            out[n++] = (k == 2) ? gcp_sprintf(a, "%s*", *p) : *p;

            if (out[n - 1] == NULL) {
                return NULL;
            }
        }
    }

    out[n] = NULL;

    return out;
}


void
gcp_auth_info(const gcp_auth_t *auth, gcp_auth_info_t *info)
{
    memset(info, 0, sizeof(gcp_auth_info_t));

    if (auth == NULL) {
        return;
    }

    info->client_ca = auth->client_ca_pem;
    info->requestheader_ca = auth->proxy_ca_pem;
    info->allowed_names = (const char * const *) auth->proxy_names;
    info->username_headers = (const char * const *) auth->user_headers;
    info->group_headers = (const char * const *) auth->group_headers;
    info->extra_prefixes = (const char * const *) auth->extra_prefixes;
}


/* configuration */


gcp_auth_t *
gcp_auth_create(const gcp_auth_conf_t *conf, char *err, size_t errlen)
{
    char         msg[1024];
    gcp_auth_t  *auth;

    static const char * const  user_headers[] = { "X-Remote-User", NULL };
    static const char * const  group_headers[] = { "X-Remote-Group", NULL };
    static const char * const  extra_prefixes[] = { "X-Remote-Extra-",
                                                    NULL };

    auth = calloc(1, sizeof(gcp_auth_t));
    if (auth == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }

    auth->anonymous = conf->anonymous;

    if (conf->client_ca_file
        && gcp_auth_ca_load(conf->client_ca_file, &auth->client_ca,
                            &auth->client_ca_pem, err, errlen) != GCP_OK)
    {
        goto failed;
    }

    if (conf->requestheader_ca_file) {
        if (gcp_auth_ca_load(conf->requestheader_ca_file, &auth->proxy_ca,
                             &auth->proxy_ca_pem, err, errlen) != GCP_OK)
        {
            goto failed;
        }
    }

    auth->proxy_names = gcp_auth_strv(conf->requestheader_allowed_names,
                                      NULL);
    auth->user_headers = gcp_auth_strv(
        conf->requestheader_username_headers
        ? conf->requestheader_username_headers : user_headers, NULL);
    auth->group_headers = gcp_auth_strv(
        conf->requestheader_group_headers
        ? conf->requestheader_group_headers : group_headers, NULL);
    auth->extra_prefixes = gcp_auth_strv(
        conf->requestheader_extra_prefixes
        ? conf->requestheader_extra_prefixes : extra_prefixes, NULL);

    if (auth->proxy_names == NULL || auth->user_headers == NULL
        || auth->group_headers == NULL || auth->extra_prefixes == NULL)
    {
        snprintf(err, errlen, "out of memory");
        goto failed;
    }

    if (conf->token_auth_file
        && gcp_auth_tokens_load(auth, conf->token_auth_file, err, errlen)
           != GCP_OK)
    {
        goto failed;
    }

    if (gcp_auth_sa_load(auth, conf, err, errlen) != GCP_OK) {
        goto failed;
    }

    if (conf->authentication_config_file
        && gcp_oidc_conf_load(conf->authentication_config_file,
                              (const char * const *) auth->issuers,
                              &auth->oidc, msg, sizeof(msg)) != GCP_OK)
    {
        snprintf(err, errlen, "%s %s",
                 conf->authentication_config_name
                 ? conf->authentication_config_name
                 : "authentication configuration", msg);
        goto failed;
    }

    return auth;

failed:

    gcp_auth_destroy(auth);

    return NULL;
}


void
gcp_auth_destroy(gcp_auth_t *auth)
{
    if (auth == NULL) {
        return;
    }

    X509_STORE_free(auth->client_ca);
    X509_STORE_free(auth->proxy_ca);
    free(auth->client_ca_pem);
    free(auth->proxy_ca_pem);
    gcp_auth_strv_free(auth->proxy_names);
    gcp_auth_strv_free(auth->user_headers);
    gcp_auth_strv_free(auth->group_headers);
    gcp_auth_strv_free(auth->extra_prefixes);
    gcp_auth_tokens_free(auth);
    gcp_auth_sa_free(auth);
    gcp_oidc_conf_free(&auth->oidc);
    gcp_auth_cert_cache_free(auth->certs);

    free(auth);
}


/* the request step */


typedef struct {
    gcp_op_t          *op;
    gcp_auth_next_pt   next;
    double             start;       /* seconds, monotonic */
    unsigned           failed:1;    /* an authenticator reported an error */
} gcp_auth_step_t;



/* upstream's compressUsername: a few names, e-mail addresses, the rest */

static const char *
gcp_auth_username_label(const char *name)
{
    size_t  i;

    static const char * const  known[] = {
        "admin", "client", "kube_proxy", "kubelet",
        "system:serviceaccount:kube-system:default", NULL
    };

    for (i = 0; known[i]; i++) {
        if (strcmp(name, known[i]) == 0) {
            return known[i];
        }
    }

    return strchr(name, '@') ? "email_id" : "other";
}


/* authentication_attempts and friends; u: the user, when one */

static void
gcp_auth_observe(gcp_auth_step_t *s, const char *result, const gcp_user_t *u)
{
    const char  *v[2];

    if (!gcp_metrics_on()) {
        return;
    }

    v[1] = NULL;

    if (u) {
        v[0] = gcp_auth_username_label(u->name);
        gcp_metric_inc(GCP_M_AUTHN_USER_REQUESTS, v);
    }

    v[0] = result;
    gcp_metric_inc(GCP_M_AUTHN_ATTEMPTS, v);
    gcp_metric_observe(GCP_M_AUTHN_DURATION, v,
                       gcp_time_mono_ns() / 1e9 - s->start);
}


static void
gcp_auth_unauthorized(gcp_auth_step_t *s)
{
    gcp_auth_observe(s, s->failed ? "error" : "failure", NULL);
    gcp_op_error(s->op, GCP_EUNAUTHORIZED, "Unauthorized", NULL);
}


/* The request's user is known: impersonation, then the next step. */

static void
gcp_auth_identified(gcp_auth_step_t *s, gcp_user_t *u)
{
    gcp_auth_observe(s, "success", u);

    s->op->req->user = u;
    s->op->authn_user = u;

    /* audited as the authenticated user, before impersonation */
    gcp_audit_begin(s->op);

    if (gcp_auth_impersonate(s->op) != GCP_OK) {
        return;
    }

    s->next(s->op);
}


/* A user was authenticated: system:authenticated, impersonation. */

static void
gcp_auth_authenticated(gcp_auth_step_t *s, gcp_user_t *u)
{
    gcp_op_t  *op = s->op;

    if (!gcp_user_in_group(u, GCP_AUTH_AUTHENTICATED)
        && !gcp_user_in_group(u, GCP_AUTH_UNAUTHENTICATED)
        && gcp_user_add_group(op->a, u, GCP_AUTH_AUTHENTICATED) != GCP_OK)
    {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    gcp_auth_identified(s, u);
}


/* No authenticator recognised the request. */

static void
gcp_auth_unrecognized(gcp_auth_step_t *s)
{
    gcp_op_t          *op = s->op;
    gcp_user_t        *u;
    const gcp_auth_t  *auth = op->api->conf.auth;

    if (s->failed || (auth && !auth->anonymous)) {
        gcp_auth_unauthorized(s);
        return;
    }

    u = gcp_user_create(op->a, GCP_AUTH_ANONYMOUS, "");

    if (u == NULL
        || gcp_user_add_group(op->a, u, GCP_AUTH_UNAUTHENTICATED) != GCP_OK)
    {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    gcp_auth_identified(s, u);
}


static void
gcp_auth_bearer_done(void *arg, gcp_auth_sa_result_t *res)
{
    gcp_auth_step_t  *s = arg;

    if (res->user) {
        gcp_auth_authenticated(s, res->user);
        return;
    }

    /* a token nobody recognises is an error too ("invalid bearer token") */

    s->failed = 1;
    gcp_auth_unrecognized(s);
}


/*
 * The token of "Authorization: Bearer TOKEN" (as upstream: trimmed,
 * "bearer" in any case, the token up to the next space), or NULL.
 */

static const char *
gcp_auth_bearer_token(const gcp_request_t *req, size_t *len)
{
    const char  *h, *end, *sp;

    h = gcp_auth_header(req, "Authorization");
    if (h == NULL) {
        return NULL;
    }

    while (*h == ' ' || *h == '\t') {
        h++;
    }

    end = h + strlen(h);

    while (end > h && (end[-1] == ' ' || end[-1] == '\t')) {
        end--;
    }

    if (end - h < 7 || strncasecmp(h, "bearer ", 7) != 0) {
        return NULL;
    }

    h += 7;
    sp = memchr(h, ' ', end - h);
    *len = (sp ? sp : end) - h;

    return *len ? h : NULL;
}


/*
 * The client certificate: the front proxy's (then the user is in the
 * headers), or a user of the client CA.  Returns 1 when the request was
 * authenticated (or answered), else 0.
 */

static int
gcp_auth_cert(gcp_auth_step_t *s)
{
    int               rc;
    gcp_op_t         *op = s->op;
    gcp_user_t       *u;
    gcp_auth_t       *auth = op->api->conf.auth;
    gcp_auth_cert_t   cert;

    if (auth == NULL || op->req->peer_certs.data == NULL
        || (auth->proxy_ca == NULL && auth->client_ca == NULL))
    {
        return 0;
    }

    rc = gcp_auth_cert_check(op->a, auth, op->req->peer_certs, &cert);

    if (rc == GCP_OK && cert.proxy == GCP_AUTH_CERT_OK) {
        rc = gcp_auth_proxy_user(op->a, auth, op->req, &u);

        if (rc == GCP_OK && u) {
            gcp_auth_authenticated(s, u);
            return 1;
        }
    }

    if (rc != GCP_OK) {
        gcp_auth_observe(s, "error", NULL);
        gcp_op_error(op, rc, NULL, NULL);
        return 1;
    }

    if (cert.client == GCP_AUTH_CERT_OK) {
        gcp_auth_authenticated(s, cert.user);
        return 1;
    }

    /* errors count (no anonymous then); a certificate without CN not */

    if (cert.proxy == GCP_AUTH_CERT_FAILED
        || cert.client == GCP_AUTH_CERT_FAILED)
    {
        s->failed = 1;
    }

    return 0;
}


void
gcp_auth_request(gcp_op_t *op, gcp_auth_next_pt next)
{
    size_t               len;
    const char          *token;
    gcp_request_t       *req = op->req;
    gcp_auth_step_t     *s;

    s = gcp_calloc(op->a, sizeof(gcp_auth_step_t));
    if (s == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    s->op = op;
    s->next = next;
    s->start = gcp_metrics_on() ? gcp_time_mono_ns() / 1e9 : 0;

    if (req->user) {
        /* the in-process client's own identity */
        op->authn_user = req->user;
        gcp_audit_begin(op);
        next(op);
        return;
    }

    /* the front proxy, then the client certificate */

    if (gcp_auth_cert(s)) {
        return;
    }

    /* bearer tokens */

    token = gcp_auth_bearer_token(req, &len);

    if (token) {
        gcp_auth_bearer(op->api, op->a, token, len, NULL,
                        gcp_auth_bearer_done, s);
        return;
    }

    gcp_auth_unrecognized(s);
}


/* the authentication resources */


json_t *
gcp_auth_decode_body(gcp_op_t *op)
{
    int                     dry_run;
    gcp_field_validation_t  fv;

    if (gcp_reg_write_opts(op, "CreateOptions", &dry_run, &fv) != GCP_OK) {
        return NULL;
    }

    return gcp_reg_decode_body(op, fv);
}


int
gcp_auth_serve(gcp_op_t *op)
{
    const gcp_reqinfo_t  *ri = &op->ri;

    if (strcmp(ri->verb, "create") != 0) {
        return 0;
    }

    if (op->res == &gcp_type_tokenreviews && ri->name[0] == '\0') {
        gcp_tokenreview_create(op);
        return 1;
    }

    if (op->res == &gcp_type_selfsubjectreviews && ri->name[0] == '\0') {
        gcp_selfsubjectreview_create(op);
        return 1;
    }

    if (op->sub && strcmp(op->res->name, "serviceaccounts") == 0
        && strcmp(op->sub->name, "token") == 0 && ri->ns[0])
    {
        gcp_tokenrequest_create(op);
        return 1;
    }

    return 0;
}
