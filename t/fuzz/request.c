/*
 * Fuzzing whole requests through the API core in process, as the nginx
 * adapter hands them over: method, path and query string, headers (Accept,
 * Content-Type, Authorization, Impersonate-*, the front proxy's), the body,
 * and the client's certificate, with authentication (client CA, static
 * tokens, service-account JWTs, anonymous) and RBAC with the bootstrap
 * policy, on a real store.
 *
 * Input, as an HTTP/1.1 request without the version:
 *
 *   METHOD PATH[?QUERY]
 *   Name: value
 *   ...
 *   (an empty line)
 *   BODY
 *
 * The static tokens "admin-token" (group system:masters) and "user-token"
 * (no group) are known; "SA-TOKEN" anywhere in a header value stands for a
 * service-account token of default/fuzz issued at start; the pseudo-header
 * "X-Fuzz-Cert: N" presents client certificate N (0 admin, 1 expired,
 * 2 without clientAuth, 3 of an unknown CA, 4 a front proxy's).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "support_auth.h"
#include "support_rbac.h"
#include "fuzz.h"


#define FUZZ_HEADERS  24
#define FUZZ_CERTS    5


static auth_pki_t   *pki;
static auth_env_t   *env;
static char         *sa_token;
static char         *certs[FUZZ_CERTS];


static void
request_exit(void)
{
    size_t  i;

    auth_env_destroy(env);
    auth_pki_destroy(pki);
    free(sa_token);

    for (i = 0; i < FUZZ_CERTS; i++) {
        free(certs[i]);
    }
}


/* Returns the response, 201, of the admin's POST of body at path. */

static api_resp_t *
request_admin_post(const char *path, const char *body)
{
    api_resp_t  *r;
    auth_req_t   ar;

    r = api_call_opts(env->env, "POST", path, "application/json", body,
                      "application/json",
                      auth_req(&ar, NULL, "Authorization",
                               "Bearer admin-token", NULL));
    FUZZ_CHECK_RESP(r, r->status == 201);

    return r;
}


static void
request_init(void)
{
    api_resp_t   *r;
    const char   *tok;

    static const char * const  masters[] = { "system:masters", NULL };

    pki = auth_pki_create();

    env = auth_env_create(pki,
                          "admin-token,anchor-admin,uid-1,\"system:masters\"\n"
                          "user-token,anchor-user,uid-2\n", 1, "RBAC");

    certs[0] = auth_pki_cert(pki->ca_key, pki->ca, "fuzz-admin", masters,
                             -60, 3600, 1, NULL);
    certs[1] = auth_pki_cert(pki->ca_key, pki->ca, "fuzz-expired", NULL,
                             -7200, -3600, 1, NULL);
    certs[2] = auth_pki_cert(pki->ca_key, pki->ca, "fuzz-server", NULL,
                             -60, 3600, 0, NULL);
    certs[3] = auth_pki_cert(pki->other_key, pki->other, "fuzz-other", NULL,
                             -60, 3600, 1, NULL);
    certs[4] = auth_pki_cert(pki->proxy_key, pki->proxy, "front-proxy", NULL,
                             -60, 3600, 1, NULL);

    rbac_sync(env->env);

    r = request_admin_post("/api/v1/namespaces/default/serviceaccounts",
                           "{\"metadata\":{\"name\":\"fuzz\"}}");
    api_resp_free(r);

    r = request_admin_post("/api/v1/namespaces/default/serviceaccounts/"
                           "fuzz/token", "{\"spec\":{}}");
    tok = api_str(r->json, "status", "token", NULL);
    FUZZ_CHECK(tok != NULL);
    sa_token = strdup(tok);
    api_resp_free(r);

    atexit(request_exit);
}


/* Returns v with "SA-TOKEN" replaced by the service account's token. */
static char *
request_value(const char *v)
{
    char        *out;
    const char  *p;
    size_t       n;

    p = strstr(v, "SA-TOKEN");

    if (p == NULL) {
        return strdup(v);
    }

    n = strlen(v) - 8 + strlen(sa_token);
    out = malloc(n + 1);
    FUZZ_CHECK(out != NULL);

    sprintf(out, "%.*s%s%s", (int) (p - v), v, sa_token, p + 8);

    return out;
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char            *line, *path, *colon, *value;
    char            *names[FUZZ_HEADERS], *values[FUZZ_HEADERS];
    size_t           i, n;
    fuzz_in_t        in;
    api_resp_t      *r;
    const char      *accept, *ctype, *cert;
    gcp_header_t     h[FUZZ_HEADERS];
    api_req_opts_t   opts;

    if (env == NULL) {
        request_init();
    }

    in.p = data;
    in.n = size;

    line = fuzz_line(&in);
    path = strchr(line, ' ');

    if (path == NULL || path[1] != '/' || path == line) {
        free(line);
        return -1;
    }

    *path++ = '\0';

    n = 0;
    accept = NULL;
    ctype = NULL;
    cert = NULL;

    while (in.n > 0) {
        value = fuzz_line(&in);

        if (value[0] == '\0') {
            free(value);
            break;
        }

        colon = strchr(value, ':');

        if (colon == NULL || n == FUZZ_HEADERS) {
            free(value);
            continue;
        }

        *colon++ = '\0';
        colon += strspn(colon, " \t");

        names[n] = value;
        values[n] = request_value(colon);

        if (strcasecmp(value, "X-Fuzz-Cert") == 0) {
            i = strtoul(values[n], NULL, 10);
            cert = i < FUZZ_CERTS ? certs[i] : NULL;

        } else {
            if (strcasecmp(value, "Accept") == 0) {
                accept = values[n];

            } else if (strcasecmp(value, "Content-Type") == 0) {
                ctype = values[n];
            }

            h[n].name = names[n];
            h[n].value = values[n];
        }

        n++;
    }

    /* the pseudo-header is not passed on */

    for (i = 0; i < n; i++) {
        if (strcasecmp(names[i], "X-Fuzz-Cert") == 0) {
            h[i].name = "User-Agent";
            h[i].value = "fuzz/1.0";
        }
    }

    fuzz_tick(env->env);

    memset(&opts, 0, sizeof(opts));
    opts.headers = h;
    opts.nheaders = n;
    opts.peer_certs = cert;
    opts.body_len = in.n;

    r = api_call_opts(env->env, line, path, ctype,
                      in.n ? (const char *) in.p : NULL, accept, &opts);

    FUZZ_CHECK_RESP(r, r->status >= 200 && r->status < 600);

    api_resp_free(r);

    for (i = 0; i < n; i++) {
        free(names[i]);
        free(values[i]);
    }

    free(line);

    return 0;
}
