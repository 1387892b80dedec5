
/*
 * Each worker's view of the fronted upstream's discovery documents
 * (gcp_front.h): the APIResourceList of every fronted group-version,
 * fetched with the fronting credential through the asynchronous HTTP
 * client, filtered to the surface (the exposed resources and
 * subresources, their verbs those the upstream lists and the surface
 * exposes), kept as the documents of remote group-versions
 * (gcp_apisvc_t) for discovery; fetched again every
 * GCP_FRONT_REFRESH_MS (GCP_FRONT_RETRY_MS after a failure), so that the
 * upstream's changes and its recovery need no reload.  While the upstream
 * has not answered, a group-version is listed with no resources, Stale.
 */

#include "gcp_aggregator.h"
#include "gcp_front.h"
#include "gcp_http.h"
#include "gcp_json.h"


#define GCP_FRONT_REFRESH_MS   30000
#define GCP_FRONT_RETRY_MS     2000
#define GCP_FRONT_TIMEOUT_MS   10000
#define GCP_FRONT_MAX_BODY     (4 * 1024 * 1024)


typedef struct gcp_front_view_s  gcp_front_view_t;

typedef struct {
    gcp_front_view_t   *view;
    gcp_apisvc_t        svc;            /* svc.discovery: json_t owned */
    const char         *path;           /* "/api/v1", "/apis/G/V" */
    gcp_arena_t        *arena;          /* the request's in flight */
    gcp_http_req_t     *req;
    gcp_loop_timer_t   *timer;
} gcp_front_gv_t;


struct gcp_front_view_s {
    gcp_api_t          *api;
    gcp_http_t         *http;
    gcp_front_gv_t     *gvs;
    size_t              n;
    const gcp_apisvc_t **list;
};


static void gcp_front_fetch(void *arg);


/* Returns 1 when name is listed in the NULL-terminated list (or NULL). */
static int
gcp_front_in(const char * const *list, const char *name, size_t len)
{
    for ( /* void */ ; list && *list; list++) {
        if (strlen(*list) == len && memcmp(*list, name, len) == 0) {
            return 1;
        }
    }

    return 0;
}


/* The surface's entry for an APIResourceList name ("res", "res/sub"). */
static const gcp_front_expose_t *
gcp_front_doc_entry(const gcp_front_conf_t *conf, const char *group,
    const char *version, const char *name)
{
    size_t                     i, len;
    const char                *slash;
    const gcp_front_expose_t  *e;

    slash = strchr(name, '/');
    len = slash ? (size_t) (slash - name) : strlen(name);

    for (i = 0; i < conf->nexpose; i++) {
        e = &conf->expose[i];

        if (strcmp(e->group, group) != 0
            || strcmp(e->version, version) != 0
            || strlen(e->resource) != len
            || memcmp(e->resource, name, len) != 0)
        {
            continue;
        }

        if (slash == NULL
            || gcp_front_in(e->subresources, slash + 1, strlen(slash + 1)))
        {
            return e;
        }
    }

    return NULL;
}


static const char * const  gcp_front_verb_order[] = {
    "get", "list", "watch", "create", "update", "patch", "delete",
    "deletecollection", NULL
};


json_t *
gcp_front_narrow(const gcp_front_conf_t *conf, const char *group,
    const char *version, const json_t *doc)
{
    size_t                     i, j, k;
    json_t                    *out, *list, *r, *verbs, *v;
    const char                *name, *verb;
    const gcp_front_expose_t  *e;

    list = json_object_get(doc, "resources");

    if (!json_is_object(doc) || !json_is_array(list)) {
        return NULL;
    }

    out = json_deep_copy(doc);
    list = out ? json_array() : NULL;

    if (list == NULL || json_object_set_new(out, "resources", list) != 0) {
        json_decref(out);
        return NULL;
    }

    json_array_foreach(json_object_get(doc, "resources"), i, r) {
        name = json_string_value(json_object_get(r, "name"));
        e = name ? gcp_front_doc_entry(conf, group, version, name) : NULL;

        if (e == NULL) {
            continue;
        }

        r = json_deep_copy(r);
        verbs = json_array();

        if (r == NULL || verbs == NULL
            || json_object_set_new(r, "verbs", verbs) != 0
            || json_array_append_new(list, r) != 0)
        {
            json_decref(r);
            json_decref(out);
            return NULL;
        }

        /* the upstream's verbs the surface exposes, in its order */

        json_array_foreach(json_object_get(json_array_get(
            json_object_get(doc, "resources"), i), "verbs"), j, v)
        {
            verb = json_string_value(v);

            for (k = 0; verb && gcp_front_verb_order[k]; k++) {
                if (strcmp(gcp_front_verb_order[k], verb) == 0
                    && (e->verbs & (1u << k)))
                {
                    json_array_append_new(verbs, json_string(verb));
                }
            }
        }
    }

    return out;
}


static void
gcp_front_schedule(gcp_front_gv_t *gv, uint64_t ms)
{
    gcp_loop_t  *loop = gv->view->api->conf.loop;

    gv->timer = loop->timer_add(loop, ms, gcp_front_fetch, gv);
}


static void
gcp_front_done(void *arg, const gcp_http_result_t *res)
{
    gcp_front_gv_t  *gv = arg;

    json_t                  *doc, *filtered;
    const char              *msg;
    const gcp_front_conf_t  *conf = gv->view->api->conf.front;

    gv->req = NULL;
    filtered = NULL;

    if (res->error == GCP_HTTP_OK && res->status == 200) {
        doc = gcp_json_parse(gv->arena, res->body.data, res->body.len, &msg);
        filtered = doc ? gcp_front_narrow(conf, gv->svc.group,
                                          gv->svc.version, doc)
                       : NULL;
    }

    gcp_arena_destroy(gv->arena);
    gv->arena = NULL;

    if (filtered == NULL) {
        gv->svc.available = 0;
        gcp_front_schedule(gv, GCP_FRONT_RETRY_MS);
        return;
    }

    json_decref((json_t *) gv->svc.discovery);
    gv->svc.discovery = filtered;
    gv->svc.available = 1;

    gcp_front_schedule(gv, GCP_FRONT_REFRESH_MS);
}


static void
gcp_front_fetch(void *arg)
{
    gcp_front_gv_t  *gv = arg;

    gcp_http_opts_t          o;
    const gcp_front_conf_t  *conf = gv->view->api->conf.front;

    static const char * const  plain[] = { "Accept: application/json",
                                           NULL };

    gv->timer = NULL;
    gv->arena = gcp_arena_create(16384);

    if (gv->arena == NULL) {
        gcp_front_schedule(gv, GCP_FRONT_RETRY_MS);
        return;
    }

    memset(&o, 0, sizeof(o));
    o.method = "GET";
    o.url = gcp_sprintf(gv->arena, "https://%s:%d%s", conf->server_name,
                        conf->port, gv->path);
    o.connect_to = gcp_sprintf(gv->arena, "%s:%d:%s", conf->server_name,
                               conf->port, conf->address);
    o.headers = plain;

    if (conf->token) {
        const char  **h;

        h = gcp_alloc(gv->arena, 3 * sizeof(char *));

        if (h) {
            h[0] = plain[0];
            h[1] = gcp_sprintf(gv->arena, "Authorization: Bearer %s",
                               conf->token);
            h[2] = NULL;
        }

        o.headers = h;
    }

    o.ca.pem = conf->ca;
    o.cert.file = conf->cert_file;
    o.key.file = conf->key_file;
    o.timeout_ms = GCP_FRONT_TIMEOUT_MS;
    o.max_body = GCP_FRONT_MAX_BODY;

    if (o.url == NULL || o.connect_to == NULL || o.headers == NULL
        || (conf->token && o.headers[1] == NULL))
    {
        gcp_arena_destroy(gv->arena);
        gv->arena = NULL;
        gcp_front_schedule(gv, GCP_FRONT_RETRY_MS);
        return;
    }

    gv->req = gcp_http_send(gv->view->http, &o, NULL, gcp_front_done, gv);

    if (gv->req == NULL && gv->arena) {
        gcp_arena_destroy(gv->arena);
        gv->arena = NULL;
        gcp_front_schedule(gv, GCP_FRONT_RETRY_MS);
    }
}


/* a b c d, concatenated (malloc), or NULL */
static char *
gcp_front_join(const char *a, const char *b, const char *c, const char *d)
{
    size_t   n;
    char    *s;

    n = strlen(a) + strlen(b) + strlen(c) + strlen(d) + 1;

    s = malloc(n);
    if (s) {
        snprintf(s, n, "%s%s%s%s", a, b, c, d);
    }

    return s;
}


/* The fronted group-versions, each once, in the surface's order. */
static int
gcp_front_view_gvs(gcp_front_view_t *view, const gcp_front_conf_t *conf)
{
    size_t               i, j;
    gcp_front_gv_t      *gv;
    const char          *g, *v;

    view->gvs = calloc(conf->nexpose, sizeof(gcp_front_gv_t));
    view->list = calloc(conf->nexpose, sizeof(gcp_apisvc_t *));

    if (view->gvs == NULL || view->list == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < conf->nexpose; i++) {
        g = conf->expose[i].group;
        v = conf->expose[i].version;

        for (j = 0; j < view->n; j++) {
            if (strcmp(view->gvs[j].svc.group, g) == 0
                && strcmp(view->gvs[j].svc.version, v) == 0)
            {
                break;
            }
        }

        if (j < view->n) {
            continue;
        }

        gv = &view->gvs[view->n];
        gv->view = view;
        gv->svc.group = g;
        gv->svc.version = v;
        gv->svc.remote = 1;
        gv->svc.name = g[0] ? gcp_front_join("", v, ".", g) : strdup(v);
        gv->path = g[0] ? gcp_front_join("/apis/", g, "/", v)
                        : gcp_front_join("/api/", v, "", "");

        if (gv->svc.name == NULL || gv->path == NULL) {
            return GCP_ENOMEM;
        }

        if (!gcp_agg_builtin_priority(g, v, &gv->svc.group_priority,
                                      &gv->svc.version_priority))
        {
            gv->svc.group_priority = GCP_AGG_CRD_GROUP_PRIORITY;
            gv->svc.version_priority = GCP_AGG_CRD_VERSION_PRIORITY;
        }

        view->list[view->n++] = &gv->svc;
    }

    return GCP_OK;
}


static void
gcp_front_view_free(gcp_front_view_t *view)
{
    size_t           i;
    gcp_loop_t      *loop = view->api->conf.loop;
    gcp_front_gv_t  *gv;

    gcp_http_destroy(view->http);

    for (i = 0; view->gvs && i < view->n; i++) {
        gv = &view->gvs[i];

        if (gv->timer) {
            loop->timer_del(loop, gv->timer);
        }

        if (gv->arena) {
            gcp_arena_destroy(gv->arena);
        }

        json_decref((json_t *) gv->svc.discovery);
        free((char *) gv->svc.name);
        free((char *) gv->path);
    }

    free(view->gvs);
    free(view->list);
    free(view);
}


int
gcp_front_start(gcp_api_t *api)
{
    size_t             i;
    gcp_front_view_t  *view;

    if (api->conf.front == NULL || api->conf.loop == NULL) {
        return GCP_OK;
    }

    view = calloc(1, sizeof(gcp_front_view_t));
    if (view == NULL) {
        return GCP_ENOMEM;
    }

    view->api = api;
    view->http = gcp_http_create(api->conf.loop, 4);

    if (view->http == NULL
        || gcp_front_view_gvs(view, api->conf.front) != GCP_OK)
    {
        gcp_front_view_free(view);
        return GCP_ENOMEM;
    }

    api->front = view;

    for (i = 0; i < view->n; i++) {
        gcp_front_schedule(&view->gvs[i], 0);
    }

    return GCP_OK;
}


void
gcp_front_stop(gcp_api_t *api)
{
    if (api->front) {
        gcp_front_view_free(api->front);
        api->front = NULL;
    }
}


size_t
gcp_front_list(gcp_api_t *api, const gcp_apisvc_t * const **list)
{
    gcp_front_view_t  *view = api->front;

    if (view == NULL) {
        *list = NULL;
        return 0;
    }

    *list = view->list;

    return view->n;
}


const gcp_apisvc_t *
gcp_front_doc(gcp_api_t *api, const char *group, const char *version)
{
    size_t             i;
    gcp_front_view_t  *view = api->front;

    for (i = 0; view && i < view->n; i++) {
        if (strcmp(view->gvs[i].svc.group, group) == 0
            && strcmp(view->gvs[i].svc.version, version) == 0)
        {
            return &view->gvs[i].svc;
        }
    }

    return NULL;
}
