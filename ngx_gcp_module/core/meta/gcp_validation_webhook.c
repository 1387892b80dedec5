
/*
 * Where a webhook is (see gcp_validation.h), as k8s.io/apiserver's
 * pkg/util/webhook validates it for admission webhook configurations and
 * CRD conversion webhooks: a URL, or a service reference.
 */

#include <stdlib.h>
#include <strings.h>

#include "gcp_json.h"
#include "gcp_validation.h"


#define GCP_WEBHOOK_FORM  "; desired format: https://host[/path]"


static const char *
gcp_wh_q(gcp_ferrs_t *errs, const char *s, size_t len)
{
    return gcp_go_quote(errs->arena, s, len);
}


/* Go's url.Userinfo.String(): user[:password], each part escaped. */
static const char *
gcp_wh_userinfo(gcp_arena_t *a, const char *p, size_t n)
{
    size_t      i;
    int         pass;
    gcp_buf_t   b;
    unsigned    c;

    gcp_buf_init(&b, a);
    pass = 0;

    for (i = 0; i < n; i++) {
        c = (unsigned char) p[i];

        if (c == ':' && !pass) {
            pass = 1;
            gcp_buf_addc(&b, ':');
            continue;
        }

        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
            || (c >= '0' && c <= '9') || strchr("-._~$&'()*+,;=", (int) c))
        {
            gcp_buf_addc(&b, (char) c);

        } else {
            gcp_buf_printf(&b, "%%%02X", c);
        }
    }

    return gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);
}


/*
 * webhook.ValidateWebhookURL on the parts Go's url.Parse finds: the
 * fragment after the first '#', the query after the first '?', the
 * scheme, then the authority ("//" up to the path) with user information
 * before its last '@'.
 */
void
gcp_validate_webhook_url(gcp_ferrs_t *errs, const char *field,
    const char *url, int force_https)
{
    size_t        i, n;
    const char   *p, *end, *auth, *aend, *at;
    const char   *scheme, *frag, *query, *user;
    gcp_arena_t  *a = errs->arena;

    n = strlen(url);

    for (i = 0; i < n; i++) {
        if ((unsigned char) url[i] < 0x20 || url[i] == 0x7f) {
            gcp_ferrs_add(errs, GCP_FERR_REQUIRED, field, NULL,
                          "url must be a valid URL: parse %s: net/url: "
                          "invalid control character in URL"
                          GCP_WEBHOOK_FORM, gcp_wh_q(errs, url, n));
            return;
        }
    }

    if (url[0] == ':') {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, field, NULL,
                      "url must be a valid URL: parse %s: missing protocol "
                      "scheme" GCP_WEBHOOK_FORM, gcp_wh_q(errs, url, n));
        return;
    }

    p = strchr(url, '#');
    frag = p ? p + 1 : "";
    end = p ? p : url + n;

    p = memchr(url, '?', (size_t) (end - url));
    query = p ? gcp_strndup(a, p + 1, (size_t) (end - p - 1)) : "";
    end = p ? p : end;

    /* the scheme: a letter, then letters, digits, '+', '-', '.', ':' */

    scheme = "";

    for (p = url; p < end; p++) {
        if (*p == ':') {
            scheme = gcp_strndup(a, url, (size_t) (p - url));
            p++;
            break;
        }

        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
              || (p > url && ((*p >= '0' && *p <= '9') || *p == '+'
                              || *p == '-' || *p == '.'))))
        {
            p = url;
            break;
        }
    }

    if (p == end && scheme != NULL && scheme[0] == '\0') {
        p = url;
    }

    user = NULL;
    auth = NULL;
    aend = NULL;
    at = NULL;

    if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
        auth = p + 2;
        aend = memchr(auth, '/', (size_t) (end - auth));
        aend = aend ? aend : end;

        for (p = auth; p < aend; p++) {
            at = *p == '@' ? p : at;
        }

        if (at) {
            user = gcp_wh_userinfo(a, auth, (size_t) (at - auth));
            auth = at + 1;
        }
    }

    if (scheme == NULL || query == NULL || (user == NULL && at)) {
        errs->nomem = 1;
        return;
    }

    if (force_https && strcasecmp(scheme, "https") != 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                      gcp_wh_q(errs, scheme, strlen(scheme)),
                      "'https' is the only allowed URL scheme"
                      GCP_WEBHOOK_FORM);
    }

    if (auth == NULL || auth == aend) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field, "\"\"",
                      "host must be specified" GCP_WEBHOOK_FORM);
    }

    if (user) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                      gcp_wh_q(errs, user, strlen(user)),
                      "user information is not permitted in the URL");
    }

    if (frag[0]) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                      gcp_wh_q(errs, frag, strlen(frag)),
                      "fragments are not permitted in the URL");
    }

    if (query[0]) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                      gcp_wh_q(errs, query, strlen(query)),
                      "query parameters are not permitted in the URL");
    }
}


void
gcp_validate_webhook_service(gcp_ferrs_t *errs, const char *field,
    const json_t *svc)
{
    size_t       i, seg_len;
    json_t      *port;
    json_int_t   p;
    const char  *name, *ns, *path, *check, *seg, *end, *slash;
    gcp_msgs_t   m;

    name = json_string_value(json_object_get(svc, "name"));
    ns = json_string_value(json_object_get(svc, "namespace"));

    if (name == NULL || name[0] == '\0') {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                      gcp_sprintf(errs->arena, "%s.name", field), NULL,
                      "service name is required");
    }

    if (ns == NULL || ns[0] == '\0') {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                      gcp_sprintf(errs->arena, "%s.namespace", field), NULL,
                      "service namespace is required");
    }

    port = json_object_get(svc, "port");
    p = json_is_integer(port) ? json_integer_value(port) : 443;

    if (p < 1 || p > 65535) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID,
                      gcp_sprintf(errs->arena, "%s.port", field),
                      gcp_sprintf(errs->arena, "%lld", (long long) p),
                      "port is not valid: must be between 1 and 65535, "
                      "inclusive");
    }

    path = json_string_value(json_object_get(svc, "path"));

    if (path == NULL || path[0] == '\0' || strcmp(path, "/") == 0) {
        return;
    }

    field = gcp_sprintf(errs->arena, "%s.path", field);

    if (strcmp(path, "//") == 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                      gcp_wh_q(errs, path, strlen(path)),
                      "segment[0] may not be empty");
        return;
    }

    if (path[0] != '/') {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                      gcp_wh_q(errs, path, strlen(path)),
                      "must start with a '/'");
    }

    check = path[0] ? path + 1 : path;
    end = check + strlen(check);

    if (end > check && end[-1] == '/') {
        end--;
    }

    for (i = 0, seg = check; seg <= end; i++) {
        slash = memchr(seg, '/', (size_t) (end - seg));
        seg_len = slash ? (size_t) (slash - seg) : (size_t) (end - seg);

        if (seg_len == 0) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                          gcp_wh_q(errs, path, strlen(path)),
                          "segment[%zu] may not be empty", i);

        } else {
            size_t  k;

            gcp_is_dns1123_subdomain(seg, seg_len, &m);

            for (k = 0; k < m.n; k++) {
                gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                              gcp_wh_q(errs, path, strlen(path)),
                              "segment[%zu]: %s", i, m.msg[k]);
            }
        }

        if (slash == NULL) {
            break;
        }

        seg = slash + 1;
    }
}
