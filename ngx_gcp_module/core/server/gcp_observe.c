
/*
 * Observing every request (see gcp_observe.h): the request metrics with
 * kube-apiserver's labels (k8s.io/apiserver/pkg/endpoints/metrics), the
 * Audit-ID, and the audit stages.
 *
 * Labels come from known sets only: a resource is named only when the
 * registry serves it (404s of unknown resources count with empty
 * resource labels), a non-resource path only when it is one the server
 * serves, the verb from the HTTP method.
 */

#include <strings.h>
#include <time.h>

#include "gcp_audit.h"
#include "gcp_metrics.h"
#include "gcp_observe.h"
#include "gcp_rand.h"
#include "gcp_registry.h"
#include "gcp_time.h"


#define GCP_OBSERVE_AUDIT_ID_MAX  256


typedef struct {
    gcp_op_t                 *op;

    /* the adapter's */
    gcp_request_done_pt       done;
    const gcp_stream_ops_t   *stream;
    void                     *ctx;

    uint64_t                  start_ns;     /* monotonic */
    const char               *kind;         /* in-flight request kind */

    const char               *route[8];     /* long-running labels */

    unsigned                  inflight:1;
    unsigned                  longrunning:1;
    unsigned                  finished:1;
} gcp_observe_t;


/* the labels of a request, as upstream's MonitorRequest sets them */
typedef struct {
    const char  *verb;
    const char  *dry_run;
    const char  *group;
    const char  *version;
    const char  *resource;
    const char  *subresource;
    const char  *scope;
    const char  *component;
    char         code[4];
} gcp_observe_labels_t;


static int gcp_observe_write(void *arg, const char *data, size_t len,
    int flush);
static void gcp_observe_end(void *arg);


static const gcp_stream_ops_t  gcp_observe_stream = {
    gcp_observe_write,
    gcp_observe_end
};



/* labels */


/* The non-resource paths the server serves, as labels (else "other"). */

static const char *
gcp_observe_path(const gcp_reqinfo_t *ri)
{
    size_t       i;
    const char  *p = ri->path;

    static const char * const  paths[] = {
        "/healthz", "/livez", "/readyz", "/metrics", "/metrics/slis",
        "/version", "/openapi/v2", "/openapi/v3", NULL
    };

    if (p == NULL) {
        return "other";
    }

    if (strcmp(p, "/api") == 0 || strncmp(p, "/api/", 5) == 0) {
        return "api";
    }

    if (strcmp(p, "/apis") == 0 || strncmp(p, "/apis/", 6) == 0) {
        return "apis";
    }

    if (strncmp(p, "/openapi/v3/", 12) == 0) {
        return "/openapi/v3";
    }

    for (i = 0; paths[i]; i++) {
        if (strncmp(p, paths[i], strlen(paths[i])) == 0
            && (p[strlen(paths[i])] == '\0' || p[strlen(paths[i])] == '/'))
        {
            return paths[i];
        }
    }

    return "other";
}


static int
gcp_observe_health(const char *path)
{
    return strcmp(path, "/healthz") == 0 || strcmp(path, "/livez") == 0
           || strcmp(path, "/readyz") == 0;
}


/* dryRun: "", "All", or "invalid" (cleanDryRun) */

static const char *
gcp_observe_dry_run(const gcp_query_t *q)
{
    size_t  i, n;

    n = 0;

    for (i = 0; i < q->n; i++) {
        if (strcmp(q->params[i].name, "dryRun") != 0) {
            continue;
        }

        if (strcmp(q->params[i].value, "All") != 0) {
            return "invalid";
        }

        n++;
    }

    return n ? "All" : "";
}


/* The verb as upstream reports it (CanonicalVerb, CleanVerb). */

static const char *
gcp_observe_verb(gcp_op_t *op, const char *scope)
{
    size_t       i;
    const char  *m = op->req->method;
    const char  *ct = op->req->content_type;

    static const char * const  methods[] = {
        "POST", "PUT", "DELETE", "CONNECT", NULL
    };

    if (op->ri.verb && strcmp(op->ri.verb, "watch") == 0) {
        return "WATCH";
    }

    if (strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0) {
        return scope[0] && strcmp(scope, "resource") != 0 ? "LIST" : "GET";
    }

    if (strcmp(m, "PATCH") == 0) {
        return ct && strncasecmp(ct, "application/apply-patch", 23) == 0
               ? "APPLY" : "PATCH";
    }

    for (i = 0; methods[i]; i++) {
        if (strcmp(m, methods[i]) == 0) {
            return methods[i];
        }
    }

    return "other";
}


static void
gcp_observe_labels(gcp_op_t *op, int status, gcp_observe_labels_t *l)
{
    const gcp_reqinfo_t   *ri = &op->ri;
    const gcp_resource_t  *res;

    memset(l, 0, sizeof(gcp_observe_labels_t));

    l->group = "";
    l->version = "";
    l->resource = "";
    l->subresource = "";
    l->component = "apiserver";

    if (ri->name && ri->name[0]) {
        l->scope = "resource";

    } else if (ri->verb && strcmp(ri->verb, "create") == 0) {
        l->scope = "resource";

    } else if (ri->ns && ri->ns[0]) {
        l->scope = "namespace";

    } else {
        l->scope = ri->is_resource ? "cluster" : "";
    }

    if (ri->is_resource) {
        res = op->res ? op->res
                      : gcp_registry_find(op->api->registry, ri->group,
                                          ri->version, ri->resource);

        if (res) {
            l->group = res->group;
            l->version = res->version;
            l->resource = res->name;

            if (ri->subresource[0] && gcp_resource_sub(res, ri->subresource))
            {
                l->subresource = gcp_resource_sub(res,
                                                  ri->subresource)->name;
            }
        }

    } else if (ri->path) {
        l->subresource = gcp_observe_path(ri);

        if (gcp_observe_health(l->subresource)) {
            l->component = "";
        }
    }

    l->verb = gcp_observe_verb(op, l->scope);
    l->dry_run = gcp_observe_dry_run(&op->q);

    if (status < 100 || status > 999) {
        status = 500;
    }

    l->code[0] = (char) ('0' + status / 100);
    l->code[1] = (char) ('0' + status / 10 % 10);
    l->code[2] = (char) ('0' + status % 10);
    l->code[3] = '\0';
}


static void
gcp_observe_route(const gcp_observe_labels_t *l, const char **v)
{
    /* component, group, resource, scope, subresource, verb, version */

    v[0] = l->component;
    v[1] = l->group;
    v[2] = l->resource;
    v[3] = l->scope;
    v[4] = l->subresource;
    v[5] = l->verb;
    v[6] = l->version;
    v[7] = NULL;
}


/* apiserver_request_total and the request histograms, once per request */

static void
gcp_observe_request(gcp_observe_t *t, int status, size_t size)
{
    double                 elapsed;
    const char            *v[10];
    gcp_observe_labels_t   l;

    if (!gcp_metrics_on()) {
        return;
    }

    gcp_observe_labels(t->op, status, &l);

    elapsed = (double) (gcp_time_mono_ns() - t->start_ns) / 1e9;

    /* code, component, dry_run, group, resource, scope, subresource, */
    /* verb, version */

    v[0] = l.code;
    v[1] = l.component;
    v[2] = l.dry_run;
    v[3] = l.group;
    v[4] = l.resource;
    v[5] = l.scope;
    v[6] = l.subresource;
    v[7] = l.verb;
    v[8] = l.version;
    v[9] = NULL;

    gcp_metric_inc(GCP_M_REQUEST_TOTAL, v);
    gcp_metric_observe(GCP_M_REQUEST_DURATION, v + 1, elapsed);

    if (strcmp(l.verb, "GET") == 0 || strcmp(l.verb, "LIST") == 0) {
        gcp_observe_route(&l, v);
        gcp_metric_observe(GCP_M_RESPONSE_SIZES, v, (double) size);
    }
}


static void
gcp_observe_inflight_end(gcp_observe_t *t)
{
    const char  *v[2];

    if (!t->inflight) {
        return;
    }

    t->inflight = 0;

    v[0] = t->kind;
    v[1] = NULL;
    gcp_metric_add(GCP_M_INFLIGHT, v, -1);
}


static void
gcp_observe_finish(gcp_observe_t *t, int status, size_t size)
{
    if (t->finished) {
        return;
    }

    t->finished = 1;

    gcp_observe_inflight_end(t);

    if (t->longrunning) {
        t->longrunning = 0;
        gcp_metric_add(GCP_M_LONGRUNNING, t->route, -1);
    }

    gcp_observe_request(t, status, size);
    gcp_audit_complete(t->op, status);
}


/* the wrappers */


static void
gcp_observe_done(gcp_request_t *req, gcp_response_t *resp)
{
    size_t                 i;
    gcp_observe_t         *t = req->ctx;
    gcp_op_t              *op = t->op;
    gcp_observe_labels_t   l;

    /* every answer of the core carries its Audit-ID */

    if (resp == &op->resp && op->audit_id) {
        gcp_op_header(op, "Audit-Id", op->audit_id);
        resp->headers = op->headers;
    }

    if (resp->proxy) {
        /*
         * proxied: over when the adapter says so (gcp_api_proxy_end()),
         * with the other server's status; a watch or an upgraded
         * connection is no longer in flight
         */

        if (resp->proxy->long_running) {
            gcp_observe_inflight_end(t);
        }

        req->ctx = t->ctx;
        t->done(req, resp);
        return;
    }

    if (!resp->streaming) {
        gcp_observe_finish(t, resp->status, resp->body.len);

        req->ctx = t->ctx;
        t->done(req, resp);
        return;
    }

    /* a watch: no longer in flight, long-running until it ends */

    gcp_observe_inflight_end(t);

    if (gcp_metrics_on()) {
        gcp_observe_labels(op, resp->status, &l);
        gcp_observe_route(&l, t->route);

        /* copies: a custom resource may go away before its watches end */

        t->longrunning = 1;

        for (i = 0; t->route[i]; i++) {
            t->route[i] = gcp_strdup(op->a, t->route[i]);

            if (t->route[i] == NULL) {
                t->longrunning = 0;
                break;
            }
        }

        if (t->longrunning) {
            gcp_metric_add(GCP_M_LONGRUNNING, t->route, 1);
        }
    }

    gcp_audit_started(op, resp->status);

    t->done(req, resp);
}


static int
gcp_observe_write(void *arg, const char *data, size_t len, int flush)
{
    gcp_observe_t  *t = arg;

    return t->stream->write(t->ctx, data, len, flush);
}


static void
gcp_observe_end(void *arg)
{
    gcp_observe_t  *t = arg;

    gcp_observe_finish(t, 200, 0);

    t->stream->end(t->ctx);
}


void
gcp_observe_cancel(gcp_op_t *op, int status, size_t size)
{
    gcp_observe_t  *t = op->observe;

    if (t) {
        gcp_observe_finish(t, status, size);
    }
}


/* Audit-ID */


/*
 * The client's Audit-ID when it sent a usable one (printable ASCII, at
 * most GCP_OBSERVE_AUDIT_ID_MAX bytes), else a new UUID.
 */

static const char *
gcp_observe_audit_id(gcp_op_t *op)
{
    size_t                i, n;
    char                 *id;
    const char           *v;
    const gcp_request_t  *req = op->req;

    for (i = 0; i < req->nheaders; i++) {
        if (strcasecmp(req->headers[i].name, "Audit-ID") != 0) {
            continue;
        }

        v = req->headers[i].value;
        n = strlen(v);

        if (n == 0 || n > GCP_OBSERVE_AUDIT_ID_MAX) {
            break;
        }

        for (i = 0; i < n; i++) {
            if (v[i] < 0x21 || v[i] > 0x7e) {
                break;
            }
        }

        if (i == n) {
            return v;
        }

        break;
    }

    id = gcp_alloc(op->a, GCP_UUID_LEN + 1);

    if (id == NULL || gcp_uuid_v4(id) != GCP_OK) {
        return NULL;
    }

    return id;
}


void
gcp_observe_start(gcp_op_t *op)
{
    const char      *v[2];
    const char      *m = op->req->method;
    gcp_observe_t   *t;
    gcp_request_t   *req = op->req;

    t = gcp_calloc(op->a, sizeof(gcp_observe_t));
    if (t == NULL) {
        return;
    }

    t->op = op;
    t->start_ns = gcp_time_mono_ns();
    op->audit_id = gcp_observe_audit_id(op);

    t->done = req->done;
    t->stream = req->stream;
    t->ctx = req->ctx;

    req->done = gcp_observe_done;
    req->ctx = t;

    if (req->stream) {
        req->stream = &gcp_observe_stream;
    }

    op->observe = t;
    op->received = gcp_time_now();

    if (gcp_metrics_on()) {
        t->kind = strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0
                  || strcmp(m, "OPTIONS") == 0 ? "readOnly" : "mutating";
        t->inflight = 1;

        v[0] = t->kind;
        v[1] = NULL;
        gcp_metric_add(GCP_M_INFLIGHT, v, 1);
    }
}


void
gcp_observe_build_info(const char *git_version, const char *build_date)
{
    const char  *v[10];

    /* build_date, compiler, git_commit, git_tree_state, git_version, */
    /* go_version, major, minor, platform */

    v[0] = build_date;
    v[1] = "gcc";
    v[2] = "";
    v[3] = "clean";
    v[4] = git_version;
    v[5] = "ngx_gcp";
    v[6] = "1";
    v[7] = "32";
    v[8] = "linux/amd64";
    v[9] = NULL;

    gcp_metric_set(GCP_M_BUILD_INFO, v, 1);
}


/* for the adapter's log variables */


static const char *
gcp_observe_groups(gcp_arena_t *a, const gcp_user_t *u)
{
    size_t     i;
    gcp_buf_t  b;

    if (u == NULL || u->ngroups == 0) {
        return NULL;
    }

    gcp_buf_init(&b, a);

    for (i = 0; i < u->ngroups; i++) {
        if (i) {
            gcp_buf_addc(&b, ',');
        }

        gcp_buf_addstr(&b, u->groups[i]);
    }

    return gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);
}


int
gcp_observe_summary(const gcp_request_t *req, gcp_observe_summary_t *s)
{
    const gcp_op_t       *op = (const gcp_op_t *) req->call;
    const gcp_user_t     *u;
    const gcp_reqinfo_t  *ri;

    memset(s, 0, sizeof(gcp_observe_summary_t));

    if (op == NULL) {
        return GCP_EGONE;
    }

    ri = &op->ri;

    /* the authenticated user, and the one it impersonated */

    u = op->authn_user ? op->authn_user : req->user;

    if (u) {
        s->user = u->name;
        s->groups = gcp_observe_groups(op->a, u);
    }

    if (op->authn_user && req->user && req->user != op->authn_user) {
        s->impersonated = req->user->name;
    }

    s->verb = ri->verb;
    s->group = ri->is_resource ? ri->group : NULL;
    s->resource = ri->is_resource ? ri->resource : NULL;
    s->subresource = ri->is_resource ? ri->subresource : NULL;
    s->ns = ri->is_resource ? ri->ns : NULL;
    s->name = ri->is_resource ? ri->name : NULL;
    s->audit_id = op->audit_id;

    if (ri->verb && (strcmp(ri->verb, "create") == 0
                     || strcmp(ri->verb, "update") == 0
                     || strcmp(ri->verb, "patch") == 0
                     || strcmp(ri->verb, "delete") == 0))
    {
        s->revision = op->revision;
    }

    return GCP_OK;
}
