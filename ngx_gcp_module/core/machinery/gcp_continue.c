
/*
 * List continue tokens (see gcp_continue.h).
 */

#include "gcp_base64.h"
#include "gcp_continue.h"
#include "gcp_json.h"


/*
 * The token for the start key suffix key[0..n) (relative to the prefix,
 * n bytes that may end in NUL) at revision rev.
 */

static const char *
gcp_continue_encode_key(gcp_arena_t *a, int64_t rev, const char *key,
    size_t n)
{
    json_t     *t;
    gcp_buf_t   json, out;

    t = json_pack("{s:s, s:I, s:s%}", "v", "meta.k8s.io/v1",
                  "rv", (json_int_t) rev, "start", key, n);
    if (t == NULL) {
        return NULL;
    }

    gcp_buf_init(&json, a);
    gcp_json_dump_buf(&json, t, 0);
    json_decref(t);

    gcp_buf_init(&out, a);
    gcp_base64_encode_buf(&out, json.data, json.len, GCP_BASE64_RAWURL);

    return gcp_buf_failed(&out) ? NULL : gcp_buf_cstr(&out);
}


const char *
gcp_continue_encode(gcp_arena_t *a, int64_t rev, const char *last)
{
    char    *start;
    size_t   n;

    n = strlen(last);

    start = gcp_alloc(a, n + 1);
    if (start == NULL) {
        return NULL;
    }

    memcpy(start, last, n);
    start[n] = '\0';

    return gcp_continue_encode_key(a, rev, start, n + 1);
}


static void
gcp_continue_invalid(gcp_op_t *op, const char *why)
{
    gcp_op_error(op, GCP_EBADREQUEST,
                 gcp_sprintf(op->a, "invalid continue token: %s", why),
                 NULL);
}


/* Whether path.Clean("/" + s) (s without a leading "/") is the same. */

static int
gcp_continue_clean(const char *s, size_t n)
{
    size_t       i, seg;
    const char  *p;

    if (s[0] == '/') {
        s++;
        n--;
    }

    if (n == 0) {
        return 1;                               /* "/" */
    }

    p = s;

    for (i = 0; i <= n; i++) {
        if (i < n && s[i] != '/') {
            continue;
        }

        seg = (size_t) (s + i - p);

        if (seg == 0
            || (seg == 1 && p[0] == '.')
            || (seg == 2 && p[0] == '.' && p[1] == '.'))
        {
            return 0;
        }

        p = s + i + 1;
    }

    return 1;
}


int
gcp_continue_decode(gcp_op_t *op, const char *token, gcp_str_t prefix,
    gcp_str_t *start, int64_t *rev)
{
    json_t      *t, *v;
    char        *p;
    gcp_str_t    raw;
    const char  *msg, *s;
    size_t       slen;

    if (gcp_base64_decode_mode(op->a, token, strlen(token),
                               GCP_BASE64_RAWURL, &raw, &msg) != GCP_OK)
    {
        gcp_continue_invalid(op, gcp_sprintf(op->a, "continue key is not "
                                             "valid: %s", msg));
        return GCP_EBADREQUEST;
    }

    t = gcp_json_arena(op->a, json_loadb(raw.data, raw.len, JSON_ALLOW_NUL,
                                         NULL));

    if (t == NULL || !json_is_object(t)) {
        gcp_continue_invalid(op, "continue key is not valid: "
                             "invalid character");
        return GCP_EBADREQUEST;
    }

    s = json_string_value(json_object_get(t, "v"));

    if (s == NULL || strcmp(s, "meta.k8s.io/v1") != 0) {
        gcp_continue_invalid(op, "continue key is not valid: incorrect "
                             "encoded start resourceVersion (version "
                             "meta.k8s.io/v1)");
        return GCP_EBADREQUEST;
    }

    v = json_object_get(t, "rv");
    s = json_string_value(json_object_get(t, "start"));
    slen = json_string_length(json_object_get(t, "start"));

    if (!json_is_integer(v) || json_integer_value(v) == 0) {
        gcp_continue_invalid(op, "continue key is not valid: "
                             "incorrect encoded start resourceVersion "
                             "(version meta.k8s.io/v1)");
        return GCP_EBADREQUEST;
    }

    if (s == NULL || slen == 0) {
        gcp_continue_invalid(op, "continue key is not valid: encoded "
                             "start key empty (version meta.k8s.io/v1)");
        return GCP_EBADREQUEST;
    }

    /*
     * kube-apiserver accepts the start key with or without a leading "/"
     * (its first page's tokens carry one) but not one that path.Clean
     * would change: no empty, "." or ".." segment, no trailing "/".
     */

    if (!gcp_continue_clean(s, slen)) {
        gcp_continue_invalid(op, gcp_sprintf(op->a, "continue key is not "
                                             "valid: %s", s));
        return GCP_EBADREQUEST;
    }

    if (s[0] == '/') {
        s++;
        slen--;
    }

    *rev = json_integer_value(v) < 0 ? 0 : json_integer_value(v);

    p = gcp_alloc(op->a, prefix.len + slen + 1);
    if (p == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    memcpy(p, prefix.data, prefix.len);
    memcpy(p + prefix.len, s, slen);
    p[prefix.len + slen] = '\0';

    if (p[prefix.len + slen - 1] == '\0') {
        p[prefix.len + slen - 1] = GCP_CONTINUE_NEXT;
    }

    start->data = p;
    start->len = prefix.len + slen;

    return GCP_OK;
}


void
gcp_continue_expired(gcp_op_t *op, gcp_str_t start, gcp_str_t prefix)
{
    char        *key;
    size_t       n;
    gcp_buf_t    b;
    const char  *token, *msg;

    /*
     * The fresh token continues from the same start key, as upstream's
     * (which re-encodes the decoded key): the suffix after the prefix,
     * with a GCP_CONTINUE_NEXT that stood for etcd's NUL turned back into
     * it.  The suffix may be empty (a token whose start was "/").
     */

    n = start.len > prefix.len ? start.len - prefix.len : 0;
    token = NULL;

    key = gcp_alloc(op->a, n + 1);

    if (key != NULL) {
        memcpy(key, start.data + prefix.len, n);

        if (n > 0 && key[n - 1] == GCP_CONTINUE_NEXT) {
            key[n - 1] = '\0';
        }

        token = gcp_continue_encode_key(op->a, -1, key, n);
    }

    msg = "The provided continue parameter is too old to display a "
          "consistent list result. You can start a new list without the "
          "continue parameter, or use the continue token in this response "
          "to retrieve the remainder of the results. Continuing with the "
          "provided token results in an inconsistent list - objects that "
          "were created, modified, or deleted between the time the first "
          "chunk was returned and now may show up in the list.";

    gcp_buf_init(&b, op->a);
    gcp_buf_addstr(&b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                       "\"metadata\":{\"continue\":");
    gcp_json_add_string(&b, token ? token : "", token ? strlen(token)
                                                          : 0);
    gcp_buf_addstr(&b, "},\"status\":\"Failure\",\"message\":");
    gcp_json_add_string(&b, msg, strlen(msg));
    gcp_buf_addstr(&b, ",\"reason\":\"Expired\",\"code\":410}");

    gcp_op_respond_status(op, 410, &b);
}
