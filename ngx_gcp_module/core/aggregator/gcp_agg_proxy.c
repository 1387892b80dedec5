
/*
 * Routing of delegated group-versions (kube-aggregator's proxyHandler,
 * v1.32): a request for a remote APIService's group-version, once
 * authenticated, impersonated and authorized, goes to its server with the
 * caller's identity in the front-proxy headers (client-go's
 * SetAuthProxyHeaders) over the proxy's client certificate; the client's
 * own credentials and identity headers stay here.  An unavailable
 * APIService is answered 503 "service unavailable" as upstream; beyond
 * upstream, its discovery document is still served from the last one its
 * server gave.
 */

#include "gcp_aggregator.h"
#include "gcp_auth.h"
#include "gcp_json.h"


/* A header name byte that needs no escaping (an RFC 7230 token char). */
static int
gcp_agg_token_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9')
           || (c != '%' && c != 0 && strchr("!#$&'*+-.^_`|~", c) != NULL);
}


/* client-go's headerKeyEscape: %XX for bytes not allowed in a name. */
static const char *
gcp_agg_escape_key(gcp_arena_t *a, const char *key)
{
    size_t      i;
    gcp_buf_t   b;

    static const char  hex[] = "0123456789ABCDEF";

    gcp_buf_init(&b, a);

    for (i = 0; key[i]; i++) {
        if (gcp_agg_token_byte((unsigned char) key[i])) {
            gcp_buf_addc(&b, key[i]);
            continue;
        }

        gcp_buf_addc(&b, '%');
        gcp_buf_addc(&b, hex[(unsigned char) key[i] >> 4]);
        gcp_buf_addc(&b, hex[(unsigned char) key[i] & 0xf]);
    }

    return gcp_buf_cstr(&b);
}


ssize_t
gcp_agg_identity_headers_named(gcp_arena_t *a, const gcp_user_t *user,
    const gcp_identity_names_t *names, gcp_header_t **out)
{
    size_t         i, j, n;
    const char    *key;
    gcp_header_t  *h;

    n = 2 + user->ngroups;

    for (i = 0; i < user->nextra; i++) {
        n += user->extra[i].nvalues;
    }

    h = gcp_alloc(a, n * sizeof(gcp_header_t));
    if (h == NULL) {
        return -1;
    }

    n = 0;
    h[n].name = names->user;
    h[n++].value = user->name ? user->name : "";

    if (names->uid && user->uid && user->uid[0]) {
        h[n].name = names->uid;
        h[n++].value = user->uid;
    }

    for (i = 0; i < user->ngroups; i++) {
        h[n].name = names->group;
        h[n++].value = user->groups[i];
    }

    for (i = 0; i < user->nextra; i++) {
        key = gcp_agg_escape_key(a, user->extra[i].key);
        key = key ? gcp_sprintf(a, "%s%s", names->extra, key) : NULL;

        if (key == NULL) {
            return -1;
        }

        for (j = 0; j < user->extra[i].nvalues; j++) {
            h[n].name = key;
            h[n++].value = user->extra[i].values[j];
        }
    }

    *out = h;

    return (ssize_t) n;
}


const gcp_identity_names_t  gcp_agg_front_proxy_names = {
    "X-Remote-User", NULL, "X-Remote-Group", "X-Remote-Extra-"
};


ssize_t
gcp_agg_identity_headers(gcp_arena_t *a, const gcp_user_t *user,
    gcp_header_t **out)
{
    return gcp_agg_identity_headers_named(a, user,
                                          &gcp_agg_front_proxy_names, out);
}


/* What authentication consumed, every header SetAuthProxyHeaders sets. */
const char * const *
gcp_agg_removed_headers(gcp_op_t *op, const char * const *more)
{
    size_t        i, j, n;
    const char  **consumed, **out;

    static const char * const  identity[] = {
        "X-Remote-User", "X-Remote-Uid", "X-Remote-Group",
        "X-Remote-Extra-*", NULL
    };

    const char * const  *lists[] = { identity, more };

    consumed = gcp_auth_consumed_headers(op->a, op->api->conf.auth);
    if (consumed == NULL) {
        return NULL;
    }

    for (n = 0; consumed[n]; n++) {
        /* void */
    }

    for (i = 0; more && more[i]; i++) {
        /* void */
    }

    out = gcp_alloc(op->a, (n + gcp_nelems(identity) + i) * sizeof(char *));
    if (out == NULL) {
        return NULL;
    }

    memcpy(out, consumed, n * sizeof(char *));

    for (j = 0; j < gcp_nelems(lists); j++) {
        for (i = 0; lists[j] && lists[j][i]; i++) {
            out[n++] = lists[j][i];
        }
    }

    out[n] = NULL;

    return out;
}


/* The group and version of "/apis/GROUP/VERSION[/...]", or 0. */
static int
gcp_agg_path_gv(const char *path, size_t len, char *group, size_t gsize,
    char *version, size_t vsize)
{
    size_t       n;
    const char  *p, *end, *slash;

    if (len < 6 || memcmp(path, "/apis/", 6) != 0) {
        return 0;
    }

    p = path + 6;
    end = path + len;

    slash = memchr(p, '/', end - p);
    n = slash ? (size_t) (slash - p) : 0;

    if (n == 0 || n >= gsize) {
        return 0;
    }

    memcpy(group, p, n);
    group[n] = '\0';

    p = slash + 1;
    slash = memchr(p, '/', end - p);
    n = (size_t) ((slash ? slash : end) - p);

    if (n == 0 || n >= vsize) {
        return 0;
    }

    memcpy(version, p, n);
    version[n] = '\0';

    return 1;
}


const gcp_apisvc_t *
gcp_agg_route(gcp_agg_t *agg, const char *path, size_t len)
{
    char                 group[256], version[64];
    const gcp_apisvc_t  *svc;

    if (!gcp_agg_path_gv(path, len, group, sizeof(group), version,
                         sizeof(version)))
    {
        return NULL;
    }

    svc = gcp_agg_find(agg, group, version);

    return (svc && svc->remote) ? svc : NULL;
}


/*
 * Upstream's long-running requests (the aggregator's check): watches,
 * proxies, and the subresources that stream.
 */
unsigned
gcp_agg_long_running(const gcp_reqinfo_t *ri)
{
    size_t  i;

    static const char * const  subs[] = {
        "attach", "exec", "proxy", "log", "portforward", NULL
    };

    if (!ri->is_resource) {
        return 0;
    }

    if (strcmp(ri->verb, "watch") == 0 || strcmp(ri->verb, "proxy") == 0) {
        return 1;
    }

    for (i = 0; subs[i]; i++) {
        if (strcmp(ri->subresource, subs[i]) == 0) {
            return 1;
        }
    }

    return 0;
}


/* The last discovery document of an unavailable APIService. */
static void
gcp_agg_stale_discovery(gcp_op_t *op, const gcp_apisvc_t *svc)
{
    gcp_str_t  body;

    body = gcp_json_dump(op->a, svc->discovery, 0);

    if (body.data == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    gcp_op_respond(op, 200, "application/json", body);
}


int
gcp_agg_delegate(gcp_op_t *op)
{
    ssize_t              n;
    gcp_agg_t           *agg;
    gcp_proxy_t         *p;
    gcp_header_t        *set;
    gcp_request_t       *req = op->req;
    const gcp_apisvc_t  *svc;

    agg = gcp_agg(op->api);
    if (agg == NULL) {
        return 0;
    }

    svc = gcp_agg_route(agg, req->path.data, req->path.len);

    if (svc == NULL) {
        return 0;
    }

    if (!svc->available) {
        if (!op->ri.is_resource && op->ri.nparts == 3 && svc->discovery
            && strcmp(req->method, "GET") == 0)
        {
            gcp_agg_stale_discovery(op, svc);
            return 1;
        }

        gcp_op_text(op, 503, "service unavailable\n");
        return 1;
    }

    if (req->user == NULL) {
        gcp_op_text(op, 500, "missing user\n");
        return 1;
    }

    p = gcp_calloc(op->a, sizeof(gcp_proxy_t));
    n = gcp_agg_identity_headers(op->a, req->user, &set);

    if (p == NULL || n < 0) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return 1;
    }

    p->upstream = gcp_sprintf(op->a, "%s.%s.svc", svc->svc_name,
                              svc->svc_namespace);
    p->port = svc->svc_port;
    p->server_name = p->upstream;
    p->insecure = svc->insecure;
    p->long_running = gcp_agg_long_running(&op->ri);
    p->set = set;
    p->nset = (size_t) n;
    p->remove = gcp_agg_removed_headers(op, NULL);

    if (svc->ca.len) {
        p->ca.data = gcp_strndup(op->a, svc->ca.data, svc->ca.len);
        p->ca.len = p->ca.data ? svc->ca.len : 0;
    }

    if (p->upstream == NULL || p->remove == NULL
        || (svc->ca.len && p->ca.data == NULL))
    {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return 1;
    }

    gcp_op_proxy(op, p);

    return 1;
}
