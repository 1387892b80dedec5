
/*
 * Request info and query strings (see gcp_reqinfo.h).
 */

#include <ctype.h>
#include <strings.h>

#include "gcp_json.h"
#include "gcp_reqinfo.h"
#include "gcp_validation.h"


static int
gcp_hexval(int c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }

    c = tolower(c);

    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }

    return -1;
}


/*
 * Percent-decodes s[0..len) into an arena string of *n bytes (NUL-
 * terminated; it may hold NULs); plus is a space when form is set.  A
 * malformed escape ("%zz", "%4") is kept as it is, or, when strict (Go's
 * url.QueryUnescape), fails: NULL with *n 0.  Out of memory: NULL with *n
 * 1.
 */
static char *
gcp_unescape(gcp_arena_t *a, const char *s, size_t len, int form,
    int strict, size_t *n)
{
    int      hi, lo;
    char    *out, *p;
    size_t   i;

    *n = 1;

    out = gcp_alloc(a, len + 1);
    if (out == NULL) {
        return NULL;
    }

    p = out;

    for (i = 0; i < len; i++) {
        if (s[i] == '%') {
            hi = i + 2 < len ? gcp_hexval((unsigned char) s[i + 1]) : -1;
            lo = i + 2 < len ? gcp_hexval((unsigned char) s[i + 2]) : -1;

            if (hi >= 0 && lo >= 0) {
                *p++ = (char) (hi * 16 + lo);
                i += 2;
                continue;
            }

            if (strict) {
                *n = 0;
                return NULL;
            }
        }

        *p++ = (form && s[i] == '+') ? ' ' : s[i];
    }

    *p = '\0';
    *n = (size_t) (p - out);

    return out;
}


char *
gcp_url_decode(gcp_arena_t *a, const char *s, size_t len, int form)
{
    size_t  n;

    return gcp_unescape(a, s, len, form, 0, &n);
}


void
gcp_url_encode(gcp_buf_t *b, const char *s)
{
    unsigned char  c;

    static const char  hex[] = "0123456789ABCDEF";

    for ( /* void */ ; *s; s++) {
        c = (unsigned char) *s;

        if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            gcp_buf_addc(b, (char) c);

        } else {
            gcp_buf_addc(b, '%');
            gcp_buf_addc(b, hex[c >> 4]);
            gcp_buf_addc(b, hex[c & 0xf]);
        }
    }
}


/*
 * As Go's url.ParseQuery (net/http's Request.URL.Query()): parameters are
 * separated by "&" only, a parameter holding ";" or a malformed escape is
 * dropped, values keep their NUL bytes (with their length).
 */
int
gcp_query_parse(gcp_arena_t *a, gcp_str_t raw, gcp_query_t *q)
{
    char         *name, *value;
    size_t        i, n, start, eq, nlen, vlen;
    gcp_param_t  *p;

    q->params = NULL;
    q->n = 0;

    if (raw.len == 0) {
        return GCP_OK;
    }

    n = 1;
    for (i = 0; i < raw.len; i++) {
        if (raw.data[i] == '&') {
            n++;
        }
    }

    q->params = gcp_calloc(a, n * sizeof(gcp_param_t));
    if (q->params == NULL) {
        return GCP_ENOMEM;
    }

    start = 0;

    for (i = 0; i <= raw.len; i++) {
        if (i < raw.len && raw.data[i] != '&') {
            continue;
        }

        if (i > start && memchr(raw.data + start, ';', i - start) == NULL) {
            for (eq = start; eq < i && raw.data[eq] != '='; eq++) {
                /* void */
            }

            name = gcp_unescape(a, raw.data + start, eq - start, 1, 1, &nlen);
            vlen = 0;
            value = eq < i
                    ? gcp_unescape(a, raw.data + eq + 1, i - eq - 1, 1, 1,
                                   &vlen)
                    : "";

            if ((name == NULL && nlen) || (value == NULL && vlen)) {
                return GCP_ENOMEM;
            }

            /* a name holding NUL is no name the server reads */

            if (name && value && strlen(name) == nlen) {
                p = &q->params[q->n++];
                p->name = name;
                p->value = value;
                p->len = vlen;
            }
        }

        start = i + 1;
    }

    return GCP_OK;
}


/* The parameters a NUL byte makes invalid, and how upstream says it. */

static const struct {
    const char  *name;
    unsigned     integer:1;
} gcp_query_nul_params[] = {
    { "limit", 1 }, { "timeoutSeconds", 1 }, { "gracePeriodSeconds", 1 },
    { "labelSelector", 0 }, { "fieldSelector", 0 }, { "continue", 0 },
    { "resourceVersion", 0 }, { "resourceVersionMatch", 0 },
    { "fieldValidation", 0 }, { "fieldManager", 0 }, { "dryRun", 0 },
    { "propagationPolicy", 0 }, { "includeObject", 0 }, { "timeout", 0 },
};


int
gcp_query_check(gcp_arena_t *a, const gcp_query_t *q, const char **msg)
{
    size_t              i, j;
    const char         *v;
    const gcp_param_t  *p;

    for (i = 0; i < q->n; i++) {
        p = &q->params[i];

        if (strlen(p->value) == p->len) {
            continue;
        }

        for (j = 0; j < gcp_nelems(gcp_query_nul_params); j++) {
            if (strcmp(p->name, gcp_query_nul_params[j].name) != 0) {
                continue;
            }

            v = gcp_go_quote(a, p->value, p->len);

            *msg = gcp_query_nul_params[j].integer
                   ? gcp_sprintf(a, "strconv.ParseInt: parsing %s: invalid "
                                 "syntax", v)
                   : gcp_sprintf(a, "%s: Invalid value: %s: must not "
                                 "contain NUL bytes", p->name, v);

            return *msg ? GCP_EBADREQUEST : GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


const gcp_param_t *
gcp_query_param(const gcp_query_t *q, const char *name)
{
    size_t  i;

    for (i = 0; q && i < q->n; i++) {
        if (strcmp(q->params[i].name, name) == 0) {
            return &q->params[i];
        }
    }

    return NULL;
}


const char *
gcp_query_get(const gcp_query_t *q, const char *name)
{
    const gcp_param_t  *p;

    p = gcp_query_param(q, name);

    return p ? p->value : NULL;
}


int
gcp_query_bool(const gcp_query_t *q, const char *name)
{
    const gcp_param_t  *p;

    p = gcp_query_param(q, name);

    if (p == NULL) {
        return -1;
    }

    return !((p->len == 1 && p->value[0] == '0')
             || (p->len == 5 && strcasecmp(p->value, "false") == 0));
}


size_t
gcp_query_count(const gcp_query_t *q, const char *name)
{
    size_t  i, n;

    n = 0;

    for (i = 0; q && i < q->n; i++) {
        if (strcmp(q->params[i].name, name) == 0) {
            n++;
        }
    }

    return n;
}


static int
gcp_reqinfo_split(gcp_arena_t *a, gcp_reqinfo_t *ri, gcp_str_t path)
{
    size_t        i, start, n;
    const char   *s;
    const char  **parts;

    s = path.data;

    /* kube-apiserver trims one leading and one trailing slash */

    while (path.len && s[0] == '/') {
        s++;
        path.len--;
        path.data = s;
    }

    if (path.len && s[path.len - 1] == '/') {
        path.len--;
        ri->trailing_slash = 1;
    }

    n = path.len ? 1 : 0;
    for (i = 0; i < path.len; i++) {
        if (s[i] == '/') {
            n++;
        }
    }

    parts = gcp_calloc(a, (n + 1) * sizeof(char *));
    if (parts == NULL) {
        return GCP_ENOMEM;
    }

    ri->nparts = 0;
    start = 0;

    for (i = 0; n && i <= path.len; i++) {
        if (i < path.len && s[i] != '/') {
            continue;
        }

        parts[ri->nparts] = gcp_strndup(a, s + start, i - start);
        if (parts[ri->nparts] == NULL) {
            return GCP_ENOMEM;
        }

        ri->nparts++;
        start = i + 1;
    }

    ri->parts = parts;

    return GCP_OK;
}


/*
 * The value a field selector requires of metadata.name ("metadata.name=X"
 * or "==", among other terms), unescaped, when it is a valid path segment
 * name (fields.Selector.RequiresExactMatch, as RequestInfoFactory uses
 * it); else "".
 */
static const char *
gcp_reqinfo_selector_name(gcp_arena_t *a, const char *sel)
{
    size_t       n;
    char        *v;
    const char  *p, *term, *key_end, *value;
    gcp_msgs_t   m;

    static const char  key[] = "metadata.name";

    for (p = sel; p && *p; /* void */) {
        term = p;

        /* the term ends at an unescaped ',' */

        while (*p && *p != ',') {
            p += (*p == '\\' && p[1]) ? 2 : 1;
        }

        key_end = memchr(term, '=', p - term);

        if (key_end && key_end > term && key_end[-1] != '!'
            && (size_t) (key_end - term) >= sizeof(key) - 1)
        {
            value = key_end + 1 + (key_end[1] == '=');

            /* the key, spaces around it ignored */

            while (term < key_end && *term == ' ') {
                term++;
            }

            n = sizeof(key) - 1;

            if (strncmp(term, key, n) == 0
                && strspn(term + n, " ") == (size_t) (key_end - term - n))
            {
                v = gcp_alloc(a, (size_t) (p - value) + 1);
                if (v == NULL) {
                    return "";
                }

                for (n = 0; value < p; value++) {
                    if (*value == '\\' && value + 1 < p) {
                        value++;
                    }

                    v[n++] = *value;
                }

                v[n] = '\0';

                return gcp_is_path_segment_name(v, n, 0, &m) == 0 && n ? v
                                                                       : "";
            }
        }

        p += *p ? 1 : 0;
    }

    return "";
}


int
gcp_reqinfo_parse(gcp_arena_t *a, const char *method, gcp_str_t path,
    const gcp_query_t *q, gcp_reqinfo_t *ri, const char **msg)
{
    size_t        n;
    const char  **p, *m;

    memset(ri, 0, sizeof(gcp_reqinfo_t));

    ri->path = gcp_strndup(a, path.data, path.len);
    if (ri->path == NULL || gcp_reqinfo_split(a, ri, path) != GCP_OK) {
        return GCP_ENOMEM;
    }

    ri->group = "";
    ri->version = "";
    ri->ns = "";
    ri->resource = "";
    ri->name = "";
    ri->subresource = "";
    ri->api_prefix = "";

    m = gcp_strdup(a, method);
    if (m == NULL) {
        return GCP_ENOMEM;
    }

    for (n = 0; m[n]; n++) {
        ((char *) m)[n] = (char) tolower((unsigned char) m[n]);
    }

    ri->verb = m;

    p = ri->parts;
    n = ri->nparts;

    if (n < 3) {
        return GCP_OK;
    }

    if (strcmp(p[0], "api") != 0 && strcmp(p[0], "apis") != 0) {
        return GCP_OK;
    }

    ri->api_prefix = p[0];
    p++;
    n--;

    if (strcmp(ri->api_prefix, "apis") == 0) {
        if (n < 3) {
            return GCP_OK;
        }

        ri->group = p[0];
        p++;
        n--;
    }

    ri->is_resource = 1;
    ri->version = p[0];
    p++;
    n--;

    if (strcmp(p[0], "watch") == 0) {
        if (n < 2) {
            *msg = "unable to determine kind and namespace from url";
            return GCP_EBADREQUEST;
        }

        ri->verb = "watch";
        ri->legacy_watch = 1;
        p++;
        n--;

    } else if (strcmp(method, "POST") == 0) {
        ri->verb = "create";

    } else if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0) {
        ri->verb = "get";

    } else if (strcmp(method, "PUT") == 0) {
        ri->verb = "update";

    } else if (strcmp(method, "PATCH") == 0) {
        ri->verb = "patch";

    } else if (strcmp(method, "DELETE") == 0) {
        ri->verb = "delete";

    } else {
        ri->verb = "";
    }

    if (strcmp(p[0], "namespaces") == 0) {
        if (n > 1) {
            ri->ns = p[1];

            if (n > 2 && strcmp(p[2], "status") != 0
                && strcmp(p[2], "finalize") != 0)
            {
                p += 2;
                n -= 2;
            }
        }
    }

    if (n >= 3) {
        ri->subresource = p[2];
    }

    if (n >= 2) {
        ri->name = p[1];
    }

    ri->resource = p[0];

    if (ri->name[0] == '\0' && strcmp(ri->verb, "get") == 0) {
        ri->verb = gcp_query_bool(q, "watch") == 1 ? "watch" : "list";
        ri->selector_name = gcp_reqinfo_selector_name(a,
                                gcp_query_get(q, "fieldSelector"));
    }

    if (ri->name[0] == '\0' && strcmp(ri->verb, "delete") == 0) {
        ri->verb = "deletecollection";
    }

    return GCP_OK;
}
