
/*
 * Name formats of Kubernetes validation (see gcp_validation.h): DNS
 * labels and subdomains, qualified names, label values, ConfigMap keys,
 * path segments, with upstream's messages.
 */

#include <stdlib.h>

#include "gcp_json.h"
#include "gcp_validation.h"


#define GCP_RE_LABEL      "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define GCP_RE_SUBDOMAIN  GCP_RE_LABEL "(\\." GCP_RE_LABEL ")*"
#define GCP_RE_QNAME      "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"

#define GCP_MSG_QNAME                                                         \
    "must consist of alphanumeric characters, '-', '_' or '.', and must "     \
    "start and end with an alphanumeric character (e.g. 'MyName',  or "       \
    "'my.name',  or '123-abc', regex used for validation is '"                \
    GCP_RE_QNAME "')"

#define GCP_MSG_SUBDOMAIN                                                     \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric " \
    "characters, '-' or '.', and must start and end with an alphanumeric "    \
    "character (e.g. 'example.com', regex used for validation is '"           \
    GCP_RE_SUBDOMAIN "')"

#define GCP_MSG_LEN63     "must be no more than 63 characters"
#define GCP_MSG_LEN253    "must be no more than 253 characters"


static const char  gcp_msg_label[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric "
    "characters or '-', and must start and end with an alphanumeric "
    "character (e.g. 'my-name',  or '123-abc', regex used for validation "
    "is '" GCP_RE_LABEL "')";

static const char  gcp_msg_dns1035[] =
    "a DNS-1035 label must consist of lower case alphanumeric characters or "
    "'-', start with an alphabetic character, and end with an alphanumeric "
    "character (e.g. 'my-name',  or 'abc-123', regex used for validation "
    "is '[a-z]([-a-z0-9]*[a-z0-9])?')";

static const char  gcp_msg_label_value[] =
    "a valid label must be an empty string or consist of alphanumeric "
    "characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
    "regex used for validation is '(" GCP_RE_QNAME ")?')";

static const char  gcp_msg_config_key[] =
    "a valid config key must consist of alphanumeric characters, '-', '_' "
    "or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used "
    "for validation is '[-._a-zA-Z0-9]+')";

static const char  gcp_msg_qname_slashes[] =
    "a qualified name " GCP_MSG_QNAME " with an optional DNS subdomain "
    "prefix and '/' (e.g. 'example.com/MyName')";


#define gcp_is_lower_alnum(c)                                                 \
    (((c) >= 'a' && (c) <= 'z') || ((c) >= '0' && (c) <= '9'))

#define gcp_is_alnum(c)                                                       \
    (gcp_is_lower_alnum(c) || ((c) >= 'A' && (c) <= 'Z'))


static void
gcp_msgs_add(gcp_msgs_t *m, const char *msg)
{
    if (m->n < GCP_VALIDATION_MAX_MSGS) {
        m->msg[m->n++] = msg;
    }
}


/* ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ (first is [a-z] for DNS-1035) */
static int
gcp_match_label(const char *s, size_t len, int dns1035)
{
    size_t  i;

    if (len == 0) {
        return 0;
    }

    if (dns1035 ? !(s[0] >= 'a' && s[0] <= 'z') : !gcp_is_lower_alnum(s[0]))
    {
        return 0;
    }

    if (!gcp_is_lower_alnum(s[len - 1])) {
        return 0;
    }

    for (i = 1; i < len; i++) {
        if (!gcp_is_lower_alnum(s[i]) && s[i] != '-') {
            return 0;
        }
    }

    return 1;
}


static int
gcp_match_subdomain(const char *s, size_t len)
{
    size_t  i, start;

    start = 0;

    for (i = 0; i <= len; i++) {
        if (i == len || s[i] == '.') {
            if (!gcp_match_label(s + start, i - start, 0)) {
                return 0;
            }

            start = i + 1;
        }
    }

    return 1;
}


/* ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$ */
static int
gcp_match_qname(const char *s, size_t len)
{
    size_t  i;

    if (len == 0 || !gcp_is_alnum(s[0]) || !gcp_is_alnum(s[len - 1])) {
        return 0;
    }

    for (i = 1; i < len; i++) {
        if (!gcp_is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
        {
            return 0;
        }
    }

    return 1;
}


size_t
gcp_is_dns1123_label(const char *s, size_t len, gcp_msgs_t *m)
{
    m->n = 0;

    if (len > 63) {
        gcp_msgs_add(m, GCP_MSG_LEN63);
    }

    if (!gcp_match_label(s, len, 0)) {
        if (gcp_match_subdomain(s, len)) {
            gcp_msgs_add(m, "must not contain dots");

        } else {
            gcp_msgs_add(m, gcp_msg_label);
        }
    }

    return m->n;
}


size_t
gcp_is_dns1123_subdomain(const char *s, size_t len, gcp_msgs_t *m)
{
    m->n = 0;

    if (len > 253) {
        gcp_msgs_add(m, GCP_MSG_LEN253);
    }

    if (!gcp_match_subdomain(s, len)) {
        gcp_msgs_add(m, GCP_MSG_SUBDOMAIN);
    }

    return m->n;
}


size_t
gcp_is_dns1035_label(const char *s, size_t len, gcp_msgs_t *m)
{
    m->n = 0;

    if (len > 63) {
        gcp_msgs_add(m, GCP_MSG_LEN63);
    }

    if (!gcp_match_label(s, len, 1)) {
        gcp_msgs_add(m, gcp_msg_dns1035);
    }

    return m->n;
}


size_t
gcp_is_qualified_name(const char *s, size_t len, gcp_msgs_t *m)
{
    size_t       plen, i;
    const char  *slash, *name;

    m->n = 0;

    slash = memchr(s, '/', len);

    if (slash == NULL) {
        name = s;

    } else {
        name = slash + 1;

        if (memchr(name, '/', len - (size_t) (name - s)) != NULL) {
            gcp_msgs_add(m, gcp_msg_qname_slashes);
            return m->n;
        }

        plen = (size_t) (slash - s);

        if (plen == 0) {
            gcp_msgs_add(m, "prefix part must be non-empty");

        } else {
            if (plen > 253) {
                gcp_msgs_add(m, "prefix part " GCP_MSG_LEN253);
            }

            if (!gcp_match_subdomain(s, plen)) {
                gcp_msgs_add(m, "prefix part " GCP_MSG_SUBDOMAIN);
            }
        }
    }

    i = len - (size_t) (name - s);

    if (i == 0) {
        gcp_msgs_add(m, "name part must be non-empty");

    } else if (i > 63) {
        gcp_msgs_add(m, "name part " GCP_MSG_LEN63);
    }

    if (!gcp_match_qname(name, i)) {
        gcp_msgs_add(m, "name part " GCP_MSG_QNAME);
    }

    return m->n;
}


size_t
gcp_is_label_value(const char *s, size_t len, gcp_msgs_t *m)
{
    m->n = 0;

    if (len > 63) {
        gcp_msgs_add(m, GCP_MSG_LEN63);
    }

    if (len != 0 && !gcp_match_qname(s, len)) {
        gcp_msgs_add(m, gcp_msg_label_value);
    }

    return m->n;
}


size_t
gcp_is_config_map_key(const char *s, size_t len, gcp_msgs_t *m)
{
    size_t  i;

    m->n = 0;

    if (len > 253) {
        gcp_msgs_add(m, GCP_MSG_LEN253);
    }

    for (i = 0; i < len; i++) {
        if (!gcp_is_alnum(s[i]) && s[i] != '-' && s[i] != '.' && s[i] != '_')
        {
            break;
        }
    }

    if (len == 0 || i < len) {
        gcp_msgs_add(m, gcp_msg_config_key);
    }

    if (len == 1 && s[0] == '.') {
        gcp_msgs_add(m, "must not be '.'");

    } else if (len == 2 && s[0] == '.' && s[1] == '.') {
        gcp_msgs_add(m, "must not be '..'");

    } else if (len >= 2 && s[0] == '.' && s[1] == '.') {
        gcp_msgs_add(m, "must not start with '..'");
    }

    return m->n;
}


size_t
gcp_is_path_segment_name(const char *s, size_t len, int prefix,
    gcp_msgs_t *m)
{
    m->n = 0;

    if (!prefix) {
        if (len == 1 && s[0] == '.') {
            gcp_msgs_add(m, "may not be '.'");
            return m->n;
        }

        if (len == 2 && s[0] == '.' && s[1] == '.') {
            gcp_msgs_add(m, "may not be '..'");
            return m->n;
        }
    }

    if (memchr(s, '/', len) != NULL) {
        gcp_msgs_add(m, "may not contain '/'");
    }

    if (memchr(s, '%', len) != NULL) {
        gcp_msgs_add(m, "may not contain '%'");
    }

    return m->n;
}


size_t
gcp_validate_name(gcp_name_mode_t mode, const char *s, size_t len,
    int prefix, gcp_msgs_t *m)
{
    char         *masked;
    size_t        n;
    const char   *p;

    if (mode == GCP_NAME_PATH_SEGMENT) {
        return gcp_is_path_segment_name(s, len, prefix, m);
    }

    p = s;
    masked = NULL;

    if (prefix && len > 1 && s[len - 1] == '-') {
        /* maskTrailingDash(): name[:len(name)-2] + "a", upstream's own */
        masked = malloc(len);
        if (masked != NULL) {
            memcpy(masked, s, len - 2);
            masked[len - 2] = 'a';
            p = masked;
            len--;
        }
    }

    switch (mode) {
    case GCP_NAME_DNS_LABEL:
        n = gcp_is_dns1123_label(p, len, m);
        break;

    case GCP_NAME_DNS1035_LABEL:
        n = gcp_is_dns1035_label(p, len, m);
        break;

    default:
        n = gcp_is_dns1123_subdomain(p, len, m);
    }

    free(masked);

    return n;
}


void
gcp_ferrs_add_msgs(gcp_ferrs_t *errs, const char *field, const char *s,
    size_t len, const gcp_msgs_t *m)
{
    size_t       i;
    const char  *q;

    if (m->n == 0) {
        return;
    }

    q = gcp_go_quote(errs->arena, s, len);

    for (i = 0; i < m->n; i++) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID, field, q, "%s", m->msg[i]);
    }
}
