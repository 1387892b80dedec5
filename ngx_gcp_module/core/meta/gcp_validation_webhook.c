
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


void
gcp_validate_webhook_url(gcp_ferrs_t *errs, const char *field,
    const char *url, int force_https)
{
    size_t       n;
    const char  *p, *scheme_end, *auth, *auth_end, *at, *q, *frag;

    /* url.Parse: [scheme:][//[userinfo@]host][/]path[?query][#fragment] */

    frag = strchr(url, '#');
    n = frag ? (size_t) (frag - url) : strlen(url);

    scheme_end = NULL;

    for (p = url; p < url + n; p++) {
        if (*p == ':') {
            scheme_end = p > url ? p : NULL;
            break;
        }

        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
              || (p > url && ((*p >= '0' && *p <= '9') || *p == '+'
                              || *p == '-' || *p == '.'))))
        {
            break;
        }
    }

    if (p < url + n && *p == ':' && scheme_end == NULL) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, field, NULL,
                      "url must be a valid URL: parse %s: missing protocol "
                      "scheme" GCP_WEBHOOK_FORM,
                      gcp_wh_q(errs, url, strlen(url)));
        return;
    }

    if (force_https
        && (scheme_end == NULL
            || (size_t) (scheme_end - url) != 5
            || strncasecmp(url, "https", 5) != 0))
    {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                      scheme_end ? gcp_wh_q(errs, url,
                                            (size_t) (scheme_end - url))
                                 : "\"\"",
                      "'https' is the only allowed URL scheme"
                      GCP_WEBHOOK_FORM);
    }

    auth = scheme_end ? scheme_end + 1 : url;
    auth_end = auth;

    if (auth + 1 < url + n && auth[0] == '/' && auth[1] == '/') {
        auth += 2;

        for (auth_end = auth; auth_end < url + n && *auth_end != '/'
                              && *auth_end != '?'; auth_end++)
        {
            /* the authority */
        }
    }

    at = NULL;

    for (p = auth; p < auth_end; p++) {
        if (*p == '@') {
            at = p;
        }
    }

    if ((at ? auth_end - at - 1 : auth_end - auth) <= 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field, "\"\"",
                      "host must be specified" GCP_WEBHOOK_FORM);
    }

    if (at) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                      gcp_wh_q(errs, auth, (size_t) (at - auth)),
                      "user information is not permitted in the URL");
    }

    if (frag && frag[1]) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                      gcp_wh_q(errs, frag + 1, strlen(frag + 1)),
                      "fragments are not permitted in the URL");
    }

    q = memchr(url, '?', n);

    if (q && (size_t) (url + n - q - 1) > 0) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field,
                      gcp_wh_q(errs, q + 1, (size_t) (url + n - q - 1)),
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
