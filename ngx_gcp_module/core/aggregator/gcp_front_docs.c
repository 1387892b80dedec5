
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
 *
 * The upstream's OpenAPI documents are kept the same way, narrowed to the
 * surface (gcp_front_openapi.c): each round reads its /openapi/v3 index,
 * fetches the v3 document of a fronted group-version whose hash changed,
 * and then, when one did (or none was had yet), the whole v2 document.
 */

#include "gcp_aggregator.h"
#include "gcp_front.h"
#include "gcp_http.h"
#include "gcp_json.h"


#define GCP_FRONT_REFRESH_MS   30000
#define GCP_FRONT_RETRY_MS     2000
#define GCP_FRONT_TIMEOUT_MS   10000
#define GCP_FRONT_MAX_BODY     (4 * 1024 * 1024)
#define GCP_FRONT_MAX_OPENAPI  (64 * 1024 * 1024)


typedef struct gcp_front_view_s  gcp_front_view_t;

typedef struct {
    gcp_front_view_t   *view;
    gcp_apisvc_t        svc;            /* svc.discovery: json_t owned */
    const char         *path;           /* "/api/v1", "/apis/G/V" */
    gcp_arena_t        *arena;          /* the request's in flight */
    gcp_http_req_t     *req;
    gcp_loop_timer_t   *timer;
    char               *oa_url;         /* its v3 document to fetch */
} gcp_front_gv_t;


struct gcp_front_view_s {
    gcp_api_t          *api;
    gcp_http_t         *http;
    gcp_front_gv_t     *gvs;
    size_t              n;
    const gcp_apisvc_t **list;

    /* the OpenAPI round: one request at a time */
    gcp_arena_t        *oa_arena;
    gcp_loop_timer_t   *oa_timer;
    size_t              oa_next;        /* the group-version fetched */
    unsigned            oa_v2:1;        /* v2 fetched at the round's end */
    json_t             *openapi_v2;
    uint64_t            generation;

    gcp_front_token_t  *token;          /* NULL: no token file */
};


static void gcp_front_fetch(void *arg);
static void gcp_front_oa_round(void *arg);


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


/*
 * Starts a GET of path (an absolute path, with its query) on the upstream
 * with the fronting credential, its bytes in a.  Returns the request, or
 * NULL when it cannot start.
 */
static gcp_http_req_t *
gcp_front_get(gcp_front_view_t *view, gcp_arena_t *a, const char *path,
    size_t max_body, gcp_http_done_pt done, void *arg)
{
    const char              **h, *token;
    gcp_http_opts_t           o;
    const gcp_front_conf_t   *conf = view->api->conf.front;

    memset(&o, 0, sizeof(o));
    o.method = "GET";
    o.url = gcp_sprintf(a, "https://%s:%d%s", conf->server_name,
                        conf->port, path);
    o.connect_to = gcp_sprintf(a, "%s:%d:%s", conf->server_name,
                               conf->port, conf->address);

    h = gcp_alloc(a, 3 * sizeof(char *));

    if (h == NULL || o.url == NULL || o.connect_to == NULL) {
        return NULL;
    }

    h[0] = "Accept: application/json";
    h[1] = NULL;
    h[2] = NULL;

    token = gcp_front_token(view->api);

    if (token) {
        h[1] = gcp_sprintf(a, "Authorization: Bearer %s", token);

        if (h[1] == NULL) {
            return NULL;
        }
    }

    o.headers = h;
    o.ca.pem = conf->ca;
    o.cert.file = conf->cert_file;
    o.key.file = conf->key_file;
    o.timeout_ms = GCP_FRONT_TIMEOUT_MS;
    o.max_body = max_body;

    return gcp_http_send(view->http, &o, NULL, done, arg);
}


static void
gcp_front_fetch(void *arg)
{
    gcp_front_gv_t  *gv = arg;

    gv->timer = NULL;
    gv->arena = gcp_arena_create(16384);

    gv->req = gv->arena ? gcp_front_get(gv->view, gv->arena, gv->path,
                                        GCP_FRONT_MAX_BODY, gcp_front_done,
                                        gv)
                        : NULL;

    if (gv->req == NULL) {
        gcp_arena_destroy(gv->arena);
        gv->arena = NULL;
        gcp_front_schedule(gv, GCP_FRONT_RETRY_MS);
    }
}


/* The OpenAPI round's end: the next one after ms. */
static void
gcp_front_oa_next_round(gcp_front_view_t *view, uint64_t ms)
{
    gcp_loop_t  *loop = view->api->conf.loop;

    gcp_arena_destroy(view->oa_arena);
    view->oa_arena = NULL;
    view->oa_timer = loop->timer_add(loop, ms, gcp_front_oa_round, view);
}


/* The answer's body parsed (in the round's arena), or NULL. */
static json_t *
gcp_front_oa_parse(gcp_front_view_t *view, const gcp_http_result_t *res)
{
    const char  *msg;

    if (res->error != GCP_HTTP_OK || res->status != 200) {
        return NULL;
    }

    return gcp_json_parse(view->oa_arena, res->body.data, res->body.len,
                          &msg);
}


static void gcp_front_oa_step(gcp_front_view_t *view);


static void
gcp_front_oa_v2_done(void *arg, const gcp_http_result_t *res)
{
    gcp_front_view_t  *view = arg;

    json_t  *doc;

    doc = gcp_front_oa_parse(view, res);
    doc = doc ? gcp_front_openapi(view->api->conf.front, doc) : NULL;

    if (doc == NULL) {
        gcp_front_oa_next_round(view, GCP_FRONT_RETRY_MS);
        return;
    }

    json_decref(view->openapi_v2);
    view->openapi_v2 = doc;
    view->oa_v2 = 0;
    view->generation++;

    gcp_front_oa_next_round(view, GCP_FRONT_REFRESH_MS);
}


static void
gcp_front_oa_v3_done(void *arg, const gcp_http_result_t *res)
{
    gcp_front_view_t  *view = arg;

    json_t          *doc;
    const char      *hash;
    gcp_front_gv_t  *gv = &view->gvs[view->oa_next];

    doc = gcp_front_oa_parse(view, res);
    doc = doc ? gcp_front_openapi(view->api->conf.front, doc) : NULL;

    if (doc == NULL) {
        gcp_front_oa_next_round(view, GCP_FRONT_RETRY_MS);
        return;
    }

    hash = strstr(gv->oa_url, "hash=");
    free((char *) gv->svc.openapi_v3_hash);
    gv->svc.openapi_v3_hash = strdup(hash ? hash + 5 : "");

    json_decref((json_t *) gv->svc.openapi_v3);
    gv->svc.openapi_v3 = doc;
    view->generation++;

    free(gv->oa_url);
    gv->oa_url = NULL;

    gcp_arena_destroy(view->oa_arena);
    view->oa_arena = NULL;
    view->oa_next++;

    gcp_front_oa_step(view);
}


/* The next document of the round, or its end. */
static void
gcp_front_oa_step(gcp_front_view_t *view)
{
    gcp_http_req_t  *r;

    while (view->oa_next < view->n && view->gvs[view->oa_next].oa_url == NULL)
    {
        view->oa_next++;
    }

    if (view->oa_next == view->n && !view->oa_v2) {
        gcp_front_oa_next_round(view, GCP_FRONT_REFRESH_MS);
        return;
    }

    view->oa_arena = gcp_arena_create(16384);

    if (view->oa_arena == NULL) {
        gcp_front_oa_next_round(view, GCP_FRONT_RETRY_MS);
        return;
    }

    if (view->oa_next < view->n) {
        r = gcp_front_get(view, view->oa_arena,
                          view->gvs[view->oa_next].oa_url,
                          GCP_FRONT_MAX_OPENAPI, gcp_front_oa_v3_done, view);

    } else {
        r = gcp_front_get(view, view->oa_arena, "/openapi/v2",
                          GCP_FRONT_MAX_OPENAPI, gcp_front_oa_v2_done, view);
    }

    if (r == NULL) {
        gcp_front_oa_next_round(view, GCP_FRONT_RETRY_MS);
    }
}


/*
 * The index: the group-versions whose document changed (by its hash), v2
 * with them.
 */
static void
gcp_front_oa_index_done(void *arg, const gcp_http_result_t *res)
{
    gcp_front_view_t  *view = arg;

    size_t           i;
    json_t          *index;
    const char      *url, *hash, *have;
    gcp_front_gv_t  *gv;

    index = gcp_front_oa_parse(view, res);

    if (index == NULL) {
        gcp_front_oa_next_round(view, GCP_FRONT_RETRY_MS);
        return;
    }

    for (i = 0; i < view->n; i++) {
        gv = &view->gvs[i];
        url = json_string_value(json_object_get(json_object_get(
                  json_object_get(index, "paths"), gv->path + 1),
                  "serverRelativeURL"));

        if (url == NULL || url[0] != '/') {
            continue;
        }

        hash = strstr(url, "hash=");
        have = gv->svc.openapi_v3_hash;

        if (gv->svc.openapi_v3 && hash && have && strcmp(hash + 5, have) == 0)
        {
            continue;
        }

        free(gv->oa_url);
        gv->oa_url = strdup(url);
        view->oa_v2 = 1;
    }

    if (view->openapi_v2 == NULL) {
        view->oa_v2 = 1;
    }

    gcp_arena_destroy(view->oa_arena);
    view->oa_arena = NULL;
    view->oa_next = 0;

    gcp_front_oa_step(view);
}


static void
gcp_front_oa_round(void *arg)
{
    gcp_front_view_t  *view = arg;

    view->oa_timer = NULL;
    view->oa_arena = gcp_arena_create(16384);

    if (view->oa_arena == NULL
        || gcp_front_get(view, view->oa_arena, "/openapi/v3",
                         GCP_FRONT_MAX_BODY, gcp_front_oa_index_done, view)
           == NULL)
    {
        gcp_front_oa_next_round(view, GCP_FRONT_RETRY_MS);
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
    gcp_front_token_destroy(view->token);

    for (i = 0; view->gvs && i < view->n; i++) {
        gv = &view->gvs[i];

        if (gv->timer) {
            loop->timer_del(loop, gv->timer);
        }

        if (gv->arena) {
            gcp_arena_destroy(gv->arena);
        }

        json_decref((json_t *) gv->svc.discovery);
        json_decref((json_t *) gv->svc.openapi_v3);
        free((char *) gv->svc.openapi_v3_hash);
        free(gv->oa_url);
        free((char *) gv->svc.name);
        free((char *) gv->path);
    }

    if (view->oa_timer) {
        loop->timer_del(loop, view->oa_timer);
    }

    gcp_arena_destroy(view->oa_arena);
    json_decref(view->openapi_v2);

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

    if (api->conf.front->token_file && api->conf.front->token) {
        view->token = gcp_front_token_create(api->conf.loop,
                                             api->conf.front->token_file,
                                             api->conf.front->token);
        if (view->token == NULL) {
            gcp_front_view_free(view);
            return GCP_ENOMEM;
        }
    }

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

    view->oa_timer = api->conf.loop->timer_add(api->conf.loop, 0,
                                               gcp_front_oa_round, view);

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


const json_t *
gcp_front_openapi_v2(gcp_api_t *api)
{
    gcp_front_view_t  *view = api->front;

    return view ? view->openapi_v2 : NULL;
}


uint64_t
gcp_front_generation(gcp_api_t *api)
{
    gcp_front_view_t  *view = api->front;

    return view ? view->generation : 0;
}


const char *
gcp_front_token(gcp_api_t *api)
{
    gcp_front_view_t  *view = api->front;

    if (view && view->token) {
        return gcp_front_token_get(view->token);
    }

    return api->conf.front ? api->conf.front->token : NULL;
}
