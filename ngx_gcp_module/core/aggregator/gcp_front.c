
/*
 * Fronting an upstream API server (gcp_front.h): the surface check and
 * the proxy decision.  The identity goes on as client-go's
 * ImpersonatingRoundTripper sends it (Impersonate-User, one
 * Impersonate-Group per group, Impersonate-Uid, Impersonate-Extra-KEY
 * per value, KEY escaped as it does), or as its front proxy does.
 */

#include "gcp_aggregator.h"
#include "gcp_auth.h"
#include "gcp_front.h"


static const gcp_identity_names_t  gcp_front_impersonate = {
    "Impersonate-User", "Impersonate-Uid", "Impersonate-Group",
    "Impersonate-Extra-"
};


int
gcp_front_gv(const gcp_front_conf_t *conf, const char *group,
    const char *version)
{
    size_t  i;

    for (i = 0; conf && i < conf->nexpose; i++) {
        if (strcmp(conf->expose[i].group, group) == 0
            && strcmp(conf->expose[i].version, version) == 0)
        {
            return 1;
        }
    }

    return 0;
}


/* Returns 1 when len bytes at p are the string s. */
static int
gcp_front_eq(const char *p, size_t len, const char *s)
{
    return strlen(s) == len && memcmp(p, s, len) == 0;
}


int
gcp_front_path(const gcp_front_conf_t *conf, const char *path, size_t len)
{
    size_t             i, glen;
    const char        *p, *end, *slash;
    const gcp_front_expose_t  *e;

    if (conf == NULL) {
        return 0;
    }

    end = path + len;

    for (i = 0; i < conf->nexpose; i++) {
        e = &conf->expose[i];
        p = path;

        if (e->group[0] == '\0') {
            if (len < 5 || memcmp(p, "/api/", 5) != 0) {
                continue;
            }

            p += 5;

        } else {
            glen = strlen(e->group);

            if (len < 6 + glen + 1 || memcmp(p, "/apis/", 6) != 0
                || memcmp(p + 6, e->group, glen) != 0 || p[6 + glen] != '/')
            {
                continue;
            }

            p += 6 + glen + 1;
        }

        slash = memchr(p, '/', end - p);

        /* below the group-version's discovery path: a resource */

        if (slash && slash + 1 < end
            && gcp_front_eq(p, slash - p, e->version))
        {
            return 1;
        }
    }

    return 0;
}


const gcp_front_expose_t *
gcp_front_find(const gcp_front_conf_t *conf, const char *group,
    const char *version, const char *resource)
{
    size_t                     i;
    const gcp_front_expose_t  *e;

    for (i = 0; conf && i < conf->nexpose; i++) {
        e = &conf->expose[i];

        if (strcmp(e->group, group) == 0 && strcmp(e->version, version) == 0
            && strcmp(e->resource, resource) == 0)
        {
            return e;
        }
    }

    return NULL;
}


int
gcp_front_listed(const char * const *list, const char *s)
{
    for ( /* void */ ; list && *list; list++) {
        if (strcmp(*list, s) == 0) {
            return 1;
        }
    }

    return 0;
}


static const struct {
    const char  *name;
    unsigned     bit;
} gcp_front_verb_names[] = {
    { "get", GCP_VERB_GET },
    { "list", GCP_VERB_LIST },
    { "watch", GCP_VERB_WATCH },
    { "create", GCP_VERB_CREATE },
    { "update", GCP_VERB_UPDATE },
    { "patch", GCP_VERB_PATCH },
    { "delete", GCP_VERB_DELETE },
    { "deletecollection", GCP_VERB_DELETECOLLECTION },
    { NULL, 0 }
};


/* The GCP_VERB_* bit of a request's verb, or 0 ("proxy"). */
static unsigned
gcp_front_verb_bit(const char *verb)
{
    size_t  i;

    for (i = 0; gcp_front_verb_names[i].name; i++) {
        if (strcmp(gcp_front_verb_names[i].name, verb) == 0) {
            return gcp_front_verb_names[i].bit;
        }
    }

    return 0;
}


int
gcp_front_verbs(const char *list, unsigned *verbs, const char **bad,
    size_t *bad_len)
{
    size_t       i, n;
    const char  *p, *comma;

    *verbs = 0;

    if (strcmp(list, "*") == 0) {
        *verbs = GCP_VERBS_CRUD;
        return GCP_OK;
    }

    for (p = list; /* void */ ; p = comma + 1) {
        comma = strchr(p, ',');
        n = comma ? (size_t) (comma - p) : strlen(p);

        for (i = 0; gcp_front_verb_names[i].name; i++) {
            if (gcp_front_eq(p, n, gcp_front_verb_names[i].name)) {
                break;
            }
        }

        if (gcp_front_verb_names[i].name == NULL) {
            *bad = p;
            *bad_len = n;
            return GCP_EBADREQUEST;
        }

        *verbs |= gcp_front_verb_names[i].bit;

        if (comma == NULL) {
            return GCP_OK;
        }
    }
}


/* What the proxied request loses: credentials, every identity header. */
static const char * const  gcp_front_removed[] = {
    "Authorization", "Impersonate-*", NULL
};


/* The identity headers, and the bearer token when the front has one. */
static ssize_t
gcp_front_set(gcp_op_t *op, const gcp_front_conf_t *conf,
    gcp_header_t **out)
{
    ssize_t        n;
    const char    *token;
    gcp_header_t  *h, *set;

    n = gcp_agg_identity_headers_named(op->a, op->req->user,
                                       conf->front_proxy
                                       ? &gcp_agg_front_proxy_names
                                       : &gcp_front_impersonate, &h);

    token = gcp_front_token(op->api);

    if (n < 0 || token == NULL) {
        *out = h;
        return n;
    }

    set = gcp_alloc(op->a, (n + 1) * sizeof(gcp_header_t));
    if (set == NULL) {
        return -1;
    }

    memcpy(set, h, n * sizeof(gcp_header_t));
    set[n].name = "Authorization";
    set[n].value = gcp_sprintf(op->a, "Bearer %s", token);

    if (set[n].value == NULL) {
        return -1;
    }

    *out = set;

    return n + 1;
}


static void
gcp_front_not_found(gcp_op_t *op)
{
    gcp_status_details_t  d;

    memset(&d, 0, sizeof(d));
    gcp_op_error(op, GCP_ENOTFOUND, NULL, &d);
}


/* Returns 1 when the request is inside the surface of e (else answers). */
static int
gcp_front_allowed(gcp_op_t *op, const gcp_front_expose_t *e)
{
    unsigned              bit;
    const gcp_reqinfo_t  *ri = &op->ri;

    if (e == NULL) {
        gcp_front_not_found(op);
        return 0;
    }

    if (e->namespaces
        && (ri->ns[0] == '\0' || !gcp_front_listed(e->namespaces, ri->ns)))
    {
        gcp_front_not_found(op);
        return 0;
    }

    if (ri->subresource[0]
        && (e->subresources == NULL
            || !gcp_front_listed(e->subresources, ri->subresource)))
    {
        gcp_front_not_found(op);
        return 0;
    }

    bit = gcp_front_verb_bit(ri->verb);

    if (bit == 0 || (e->verbs & bit) == 0) {
        gcp_op_error(op, GCP_EMETHOD, NULL, NULL);
        return 0;
    }

    return 1;
}


int
gcp_front_route(gcp_op_t *op)
{
    ssize_t                    n;
    gcp_proxy_t               *p;
    gcp_header_t              *set;
    const gcp_reqinfo_t       *ri = &op->ri;
    const gcp_front_conf_t    *conf = op->api->conf.front;

    if (conf == NULL || op->req->internal || !ri->is_resource) {
        return 0;
    }

    if (!gcp_front_gv(conf, ri->group, ri->version)) {
        if (!conf->only) {
            return 0;
        }

        /* only the surface is served: the rest as if absent */

        if (ri->group[0]) {
            gcp_op_text(op, 404, "404 page not found\n");

        } else {
            gcp_front_not_found(op);
        }

        return 1;
    }

    if (!gcp_front_allowed(op, gcp_front_find(conf, ri->group, ri->version,
                                              ri->resource)))
    {
        return 1;
    }

    if (conf->authorize && gcp_auth_authorize_request(op) != GCP_OK) {
        return 1;
    }

    if (op->req->user == NULL) {
        gcp_op_text(op, 500, "missing user\n");
        return 1;
    }

    p = gcp_calloc(op->a, sizeof(gcp_proxy_t));
    n = gcp_front_set(op, conf, &set);

    if (p == NULL || n < 0) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return 1;
    }

    p->upstream = conf->upstream;
    p->port = conf->port;
    p->server_name = conf->server_name;
    p->ca = conf->ca;
    p->front = 1;
    p->long_running = gcp_agg_long_running(ri);
    p->set = set;
    p->nset = (size_t) n;
    p->remove = gcp_agg_removed_headers(op, gcp_front_removed);

    if (p->remove == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return 1;
    }

    gcp_op_proxy(op, p);

    return 1;
}
