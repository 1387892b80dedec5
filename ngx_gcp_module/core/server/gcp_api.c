
/*
 * The API server core: creation, bootstrap, and routing of every request
 * (see gcp_api.h).
 */

#include <stdlib.h>

#include "gcp_api.h"
#include "gcp_admission.h"
#include "gcp_apf.h"
#include "gcp_admission_plugins.h"
#include "gcp_aggregator.h"
#include "gcp_audit.h"
#include "gcp_auth.h"
#include "gcp_builtin.h"
#include "gcp_compact.h"
#include "gcp_crd.h"
#include "gcp_discovery.h"
#include "gcp_front.h"
#include "gcp_fc_bootstrap.h"
#include "gcp_health.h"
#include "gcp_objcache.h"
#include "gcp_reg_index.h"
#include "gcp_json.h"
#include "gcp_observe.h"
#include "gcp_openapi_serve.h"
#include "gcp_rand.h"
#include "gcp_rbac.h"
#include "gcp_reg.h"
#include "gcp_seed.h"
#include "gcp_storage_stats.h"
#include "gcp_store_encrypt.h"
#include "gcp_store_metrics.h"
#include "gcp_time.h"
#include "gcp_types.h"
#include "gcp_warm.h"


#define GCP_DEFAULT_VERSION  "v1.32.0-ngx-gcp"

#ifndef GCP_BUILD_DATE
#define GCP_BUILD_DATE       "1970-01-01T00:00:00Z"
#endif


/* why the last gcp_api_create() failed, when the message is not static */
static char  gcp_api_err[256];


int
gcp_api_preload(const char **err)
{
    return gcp_schema_embedded_share(err);
}


gcp_api_t *
gcp_api_create(const gcp_api_conf_t *conf, const char **err)
{
    gcp_api_t  *api;

    api = calloc(1, sizeof(gcp_api_t));
    if (api == NULL) {
        *err = "out of memory";
        return NULL;
    }

    api->conf = *conf;
    api->store = gcp_store_metrics_wrap(conf->store);

    if (conf->encryption) {
        gcp_store_t  *es;

        es = gcp_store_encrypt_wrap(api->store, conf->loop, conf->encryption);
        if (es == NULL) {
            *err = "out of memory";
            gcp_store_metrics_unwrap(api->store);
            free(api);
            return NULL;
        }

        api->store = es;
    }

    if (api->conf.git_version == NULL) {
        api->conf.git_version = GCP_DEFAULT_VERSION;
    }

    api->registry = gcp_registry_create();
    api->schemas = gcp_schema_set_create();

    if (api->registry == NULL || api->schemas == NULL
        || gcp_builtin_register(api->registry) != GCP_OK)
    {
        *err = "out of memory";
        gcp_api_destroy(api);
        return NULL;
    }

    if (gcp_front_start(api) != GCP_OK) {
        *err = "out of memory";
        gcp_api_destroy(api);
        return NULL;
    }

    if (gcp_schema_set_load_embedded(api->schemas, err) != GCP_OK) {
        gcp_api_destroy(api);
        return NULL;
    }

    if (conf->object_cache) {
        api->objcache = gcp_objcache_create(conf->object_cache);
        if (api->objcache == NULL) {
            *err = "out of memory";
            gcp_api_destroy(api);
            return NULL;
        }
    }

    if (conf->table_cache) {
        api->tablecache = gcp_objcache_create(conf->table_cache);
        if (api->tablecache == NULL) {
            *err = "out of memory";
            gcp_api_destroy(api);
            return NULL;
        }
    }

    if (conf->label_index && conf->loop) {
        api->lindex = gcp_reg_indexes_create(api->store, conf->loop,
                                             conf->label_index);
        if (api->lindex == NULL) {
            *err = "out of memory";
            gcp_api_destroy(api);
            return NULL;
        }
    }

    if (conf->compact_interval_ms) {
        api->compactor = gcp_compactor_start(api->store, conf->loop,
                                             conf->compact_interval_ms);
        if (api->compactor == NULL) {
            *err = "out of memory";
            gcp_api_destroy(api);
            return NULL;
        }
    }

    if (gcp_crds_init(api) != GCP_OK) {
        *err = "out of memory";
        gcp_api_destroy(api);
        return NULL;
    }

    /* the APIServices, loading at once: routing needs them */

    if (gcp_agg(api) == NULL) {
        *err = "out of memory";
        gcp_api_destroy(api);
        return NULL;
    }

    if (gcp_rbac_init(api) != GCP_OK) {
        *err = "out of memory";
        gcp_api_destroy(api);
        return NULL;
    }

    if (gcp_auth_init(api, err) != GCP_OK) {
        gcp_api_destroy(api);
        return NULL;
    }

    if (conf->stats_interval_ms) {
        api->stats = gcp_storage_stats_start(api, conf->stats_interval_ms);
        if (api->stats == NULL) {
            *err = "out of memory";
            gcp_api_destroy(api);
            return NULL;
        }
    }

    if (gcp_apf_init(api) != GCP_OK) {
        *err = "out of memory";
        gcp_api_destroy(api);
        return NULL;
    }

    if (conf->audit && gcp_audit_open(conf->audit, err) != GCP_OK) {
        gcp_api_destroy(api);
        return NULL;
    }

    gcp_observe_build_info(api->conf.git_version, GCP_BUILD_DATE);

    /* the admission chain, in kube-apiserver's order */

    if (gcp_admission_plugins_setup(api, conf->admission, gcp_api_err,
                                    sizeof(gcp_api_err))
        != GCP_OK)
    {
        *err = gcp_api_err;
        gcp_api_destroy(api);
        return NULL;
    }

    return api;
}


void
gcp_api_destroy(gcp_api_t *api)
{
    if (api == NULL) {
        return;
    }

    gcp_apf_fini(api);
    gcp_auth_fini(api);
    gcp_crds_free(api);
    gcp_agg_free(api);
    gcp_front_stop(api);
    gcp_rbac_free(api);
    gcp_admission_free(api);
    gcp_compactor_stop(api->compactor);
    gcp_storage_stats_stop(api->stats);
    gcp_objcache_free(api->objcache);
    gcp_reg_indexes_free(api->lindex);
    gcp_objcache_free(api->tablecache);
    gcp_openapi_cache_free(api);
    gcp_registry_free(api->registry);
    gcp_schema_set_free(api->schemas);
    gcp_audit_close(api->conf.audit);
    gcp_store_metrics_unwrap(gcp_store_encrypt_unwrap(api->store));
    free(api);
}


/* bootstrap */


static const char * const  gcp_system_namespaces[] = {
    "default", "kube-system", "kube-public"
};


typedef struct {
    gcp_api_t    *api;
    void        (*done)(void *arg, int rc);
    void         *arg;
} gcp_boot_t;


static void
gcp_boot_end(gcp_boot_t *b, int rc)
{
    b->api->ready = rc == GCP_OK;

    b->done(b->arg, rc);
    free(b);
}


static void
gcp_boot_flowcontrol_done(void *arg, int rc)
{
    gcp_boot_end(arg, rc);
}


static void
gcp_boot_rbac_done(void *arg, int rc)
{
    gcp_boot_t  *b = arg;

    if (rc != GCP_OK) {
        gcp_boot_end(b, rc);
        return;
    }

    gcp_fc_seed(b->api->store, gcp_boot_flowcontrol_done, b);
}


static void
gcp_boot_namespaces_done(void *arg, int rc)
{
    gcp_boot_t  *b = arg;

    if (rc != GCP_OK) {
        gcp_boot_end(b, rc);
        return;
    }

    gcp_rbac_bootstrap(b->api, gcp_boot_rbac_done, b);
}


/* The system namespace i, Active, as kube-apiserver creates them. */

static int
gcp_boot_namespace(void *data, size_t i, gcp_arena_t *a, gcp_str_t *key,
    gcp_str_t *value)
{
    char         uid[40], now[GCP_TIME_BUFSIZE];
    json_t      *ns;
    const char  *name;

    name = gcp_system_namespaces[i];

    gcp_uuid_v4(uid);
    gcp_time_format(now, gcp_time_now().tv_sec);

    ns = json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:{s:s}}, s:{s:[s]},"
                   " s:{s:s}}",
                   "kind", "Namespace", "apiVersion", "v1",
                   "metadata", "name", name, "uid", uid,
                   "creationTimestamp", now,
                   "labels", "kubernetes.io/metadata.name", name,
                   "spec", "finalizers", "kubernetes",
                   "status", "phase", "Active");

    if (ns == NULL) {
        return GCP_ENOMEM;
    }

    *value = gcp_object_encode(a, ns, NULL);
    json_decref(ns);

    key->data = gcp_sprintf(a, "/registry/namespaces/%s", name);
    key->len = key->data ? strlen(key->data) : 0;

    return (value->data && key->data) ? GCP_OK : GCP_ENOMEM;
}


void
gcp_api_bootstrap(gcp_api_t *api, void (*done)(void *arg, int rc), void *arg)
{
    gcp_boot_t  *b;

    b = calloc(1, sizeof(gcp_boot_t));
    if (b == NULL) {
        done(arg, GCP_ENOMEM);
        return;
    }

    b->api = api;
    b->done = done;
    b->arg = arg;

    gcp_seed(api->store, gcp_nelems(gcp_system_namespaces),
             gcp_boot_namespace, NULL, gcp_boot_namespaces_done, b);
}


/* non-resource paths */


static void
gcp_api_version(gcp_op_t *op)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, op->a);
    gcp_buf_printf(&b, "{\"major\":\"1\",\"minor\":\"32\",\"gitVersion\":");
    gcp_json_add_string(&b, op->api->conf.git_version,
                            strlen(op->api->conf.git_version));
    gcp_buf_addstr(&b, ",\"gitCommit\":\"\",\"gitTreeState\":\"clean\","
                       "\"buildDate\":\"" GCP_BUILD_DATE "\","
                       "\"goVersion\":\"ngx_gcp\",\"compiler\":\"gcc\","
                       "\"platform\":\"linux/amd64\"}");

    gcp_output_send(op, 200, &b);
}


/* The paths of the delegated group-versions, as kube-aggregator lists
 * the ones it handles. */
static void
gcp_api_root_remote(gcp_op_t *op, gcp_buf_t *b)
{
    size_t                       i, j, n;
    gcp_agg_t                   *agg;
    const gcp_apisvc_t * const  *list;

    agg = gcp_agg(op->api);
    n = agg ? gcp_agg_list(agg, &list) : 0;

    for (i = 0; i < n; i++) {
        if (!list[i]->remote) {
            continue;
        }

        for (j = 0; j < i; j++) {
            if (list[j]->remote
                && strcmp(list[j]->group, list[i]->group) == 0)
            {
                break;
            }
        }

        if (j == i && !gcp_registry_has_group(op->api->registry,
                                              list[i]->group))
        {
            gcp_buf_printf(b, ",\"/apis/%s\"", list[i]->group);
        }

        gcp_buf_printf(b, ",\"/apis/%s/%s\"", list[i]->group,
                       list[i]->version);
    }
}


static void
gcp_api_root(gcp_op_t *op)
{
    size_t           i, j;
    gcp_buf_t        b;
    gcp_registry_t  *reg = op->api->registry;
    const char      *g, *v;

    static const char * const  fixed[] = {
        "/api", "/api/v1", "/apis", "/apis/", "/healthz", "/livez",
        "/metrics", "/metrics/slis", "/openapi/v2", "/openapi/v3",
        "/openapi/v3/", "/readyz", "/version", NULL
    };

    gcp_buf_init(&b, op->a);
    gcp_buf_addstr(&b, "{\"paths\":[");

    for (i = 0; fixed[i]; i++) {
        gcp_buf_printf(&b, "%s\"%s\"", i ? "," : "", fixed[i]);
    }

    if (gcp_auth_issuer_served(op->api)) {
        gcp_buf_addstr(&b, ",\"/.well-known/openid-configuration\","
                       "\"/openid/v1/jwks\"");
    }

    for (i = 0; i < reg->n; i++) {
        g = reg->resources[i]->group;
        v = reg->resources[i]->version;

        if (g[0] == '\0') {
            continue;
        }

        for (j = 0; j < i; j++) {
            if (strcmp(reg->resources[j]->group, g) == 0
                && strcmp(reg->resources[j]->version, v) == 0)
            {
                break;
            }
        }

        if (j == i) {
            gcp_buf_printf(&b, ",\"/apis/%s\",\"/apis/%s/%s\"", g, g, v);
        }
    }

    gcp_api_root_remote(op, &b);

    gcp_buf_addstr(&b, "]}");

    gcp_output_send(op, 200, &b);
}


static void gcp_api_nonresource(gcp_op_t *op);


static void
gcp_api_caught_up(void *arg)
{
    gcp_api_nonresource(arg);
}


/*
 * Before discovery and OpenAPI documents: this worker's CRD watch may not
 * have brought yet a CRD that another worker or instance shows
 * Established; when the store is ahead of it, the CRDs are read first.
 * Returns 1 when the request goes on there.
 */

static int
gcp_api_catch_up_crds(gcp_op_t *op)
{
    const char  *path = op->ri.path;

    if (op->crds_refreshed
        || (strncmp(path, "/api", 4) != 0
            && strncmp(path, "/openapi/", 9) != 0))
    {
        return 0;
    }

    op->crds_refreshed = 1;

    return gcp_crds_catch_up(op->api, op->a, gcp_api_caught_up, op);
}


static void
gcp_api_nonresource(gcp_op_t *op)
{
    const char  *path = op->ri.path;

    if (gcp_api_catch_up_crds(op)) {
        return;
    }

    if (strcmp(path, "/") == 0 || path[0] == '\0') {
        gcp_api_root(op);
        return;
    }

    if (strcmp(path, "/version") == 0 || strcmp(path, "/version/") == 0) {
        gcp_api_version(op);
        return;
    }

    if (gcp_health_handle(op) || gcp_metrics_serve(op)
        || gcp_openapi_handle(op) || gcp_discovery_handle(op)
        || gcp_apf_debug(op) || gcp_auth_issuer_discovery(op))
    {
        return;
    }

    gcp_op_text(op, 404, "404 page not found\n");
}


static void
gcp_api_not_found(gcp_op_t *op)
{
    gcp_status_details_t  d;

    memset(&d, 0, sizeof(d));
    gcp_op_error(op, GCP_ENOTFOUND, NULL, &d);
}


static void gcp_api_resource(gcp_op_t *op);


static void
gcp_api_refreshed(void *arg)
{
    gcp_api_resource(arg);
}


/*
 * Before a 404 under a group: this worker may not have applied yet a CRD
 * that another worker or instance shows Established (each learns it from
 * its own watch); it reads that CRD once, then routes again.  Returns 1
 * when the route goes on there.
 */

static int
gcp_api_refresh_crds(gcp_op_t *op)
{
    if (op->crds_refreshed || op->ri.group[0] == '\0') {
        return 0;
    }

    op->crds_refreshed = 1;

    return gcp_crds_refresh(op->api, op->ri.group, op->ri.resource, op->a,
                            gcp_api_refreshed, op);
}


static void
gcp_api_resource(gcp_op_t *op)
{
    int                   rc;
    unsigned              allowed;
    const char           *msg;
    const gcp_reqinfo_t  *ri = &op->ri;

    op->res = gcp_registry_find(op->api->registry, ri->group, ri->version,
                                ri->resource);

    if (op->res == NULL) {
        if (gcp_api_refresh_crds(op)) {
            return;
        }

        /*
         * Paths under a group kube-apiserver serves in some version
         * reach that group's web service, whose 404 is a Status; other
         * groups get the plain text 404 of the server's mux.
         */
        if (ri->group[0]
            && !gcp_registry_has_group(op->api->registry, ri->group))
        {
            gcp_op_text(op, 404, "404 page not found\n");
            return;
        }

        gcp_api_not_found(op);
        return;
    }

    if (gcp_resource_hold(op->a, op->res) != GCP_OK) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    /*
     * A cluster-scoped resource has no route under /namespaces/NS/; a
     * namespace's own path (/namespaces/NAME[/status|/finalize]) carries
     * its name as the request's namespace.
     */
    if (!op->res->namespaced && ri->ns[0]
        && (strcmp(op->res->name, "namespaces") != 0
            || strcmp(ri->ns, ri->name) != 0))
    {
        if (op->res->unstructured && gcp_api_refresh_crds(op)) {
            return;
        }

        gcp_api_not_found(op);
        return;
    }

    if (ri->subresource[0]) {
        op->sub = gcp_resource_sub(op->res, ri->subresource);

        if (op->sub == NULL) {
            if (op->res->unstructured && gcp_api_refresh_crds(op)) {
                return;
            }

            gcp_api_not_found(op);
            return;
        }
    }

    allowed = GCP_MEDIA_BIT(GCP_MEDIA_JSON) | GCP_MEDIA_BIT(GCP_MEDIA_YAML)
              | GCP_MEDIA_BIT(GCP_MEDIA_PARTIAL)
              | GCP_MEDIA_BIT(GCP_MEDIA_PARTIAL_LIST);

    /*
     * Create-only resources (the reviews) have no TableConvertor upstream,
     * so a Table is not an acceptable representation of their answers.
     */
    if (op->res->verbs & GCP_VERB_GET) {
        allowed |= GCP_MEDIA_BIT(GCP_MEDIA_TABLE);
    }

    /* a subresource of a built-in kind (a custom resource's Scale) too */

    if (op->res->protobuf || (op->sub && op->sub->group && op->sub->kind)) {
        allowed |= GCP_MEDIA_BIT(GCP_MEDIA_PROTOBUF);
    }

    if (gcp_media_negotiate(op->a, op->req->accept, allowed, &op->media)
        != GCP_OK)
    {
        gcp_op_error(op, GCP_ENOTACCEPTABLE,
                     "only the following media types are accepted: "
                     "application/json, application/yaml, "
                     "application/vnd.kubernetes.protobuf", NULL);
        return;
    }

    if (gcp_auth_serve(op)) {
        return;
    }

    msg = NULL;
    rc = gcp_query_check(op->a, &op->q, &msg);

    if (rc != GCP_OK) {
        gcp_op_error(op, rc, msg, NULL);
        return;
    }

    if (op->res->warning) {
        gcp_op_warning(op, op->res->warning);
    }

    gcp_registry_handle(op);
}


/* After authentication, priority and fairness, and authorization. */

static void
gcp_api_route(gcp_op_t *op)
{
    if (gcp_agg_delegate(op)) {
        return;
    }

    if (!op->ri.is_resource) {
        gcp_api_nonresource(op);
        return;
    }

    gcp_api_resource(op);
}


/* Admitted by priority and fairness: authorization, then the route. */

static void
gcp_api_admitted(gcp_op_t *op)
{
    /* fronted: the upstream authorizes (this server too, when chosen) */

    if (gcp_front_route(op)) {
        return;
    }

    if (gcp_auth_authorize_request(op) != GCP_OK) {
        return;
    }

    gcp_api_route(op);
}


/*
 * The user is known (impersonation applied): priority and fairness, once
 * the worker's caches are loaded (a new worker's first requests wait).
 */

static void
gcp_api_identified(gcp_op_t *op)
{
    if (gcp_warm_wait(op, gcp_api_identified)) {
        return;
    }

    gcp_apf_admit(op, gcp_api_admitted);
}


void
gcp_api_handle(gcp_api_t *api, gcp_request_t *req)
{
    int          rc;
    gcp_op_t    *op;
    const char  *msg;

    op = gcp_calloc(req->arena, sizeof(gcp_op_t));

    if (op == NULL) {
        gcp_response_t  resp;

        memset(&resp, 0, sizeof(resp));
        resp.status = 500;
        req->done(req, &resp);
        return;
    }

    op->api = api;
    op->req = req;
    op->a = req->arena;
    op->media.kind = GCP_MEDIA_JSON;
    op->media.version = "";

    req->call = (gcp_call_t *) op;

    gcp_observe_start(op);

    if (gcp_query_parse(op->a, req->query, &op->q) != GCP_OK) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    msg = NULL;
    rc = gcp_reqinfo_parse(op->a, req->method, req->path, &op->q, &op->ri,
                           &msg);

    if (rc != GCP_OK) {
        gcp_op_error(op, rc, msg, NULL);
        return;
    }

    gcp_auth_request(op, gcp_api_identified);
}


int
gcp_api_abandon(gcp_request_t *req)
{
    gcp_op_t  *op = (gcp_op_t *) req->call;

    if (op == NULL || !gcp_apf_abandon(op)) {
        return 0;
    }

    gcp_observe_cancel(op, 429, 0);

    return 1;
}


int
gcp_api_proxied(gcp_api_t *api, const char *path, size_t len)
{
    gcp_agg_t  *agg;

    if (gcp_front_path(api->conf.front, path, len)) {
        return 1;
    }

    agg = gcp_agg(api);

    return agg && gcp_agg_route(agg, path, len) != NULL;
}


void
gcp_api_proxy_end(gcp_request_t *req, int status, size_t size)
{
    gcp_op_t  *op = (gcp_op_t *) req->call;

    if (op) {
        gcp_observe_cancel(op, status, size);
    }
}


void
gcp_api_proxy_started(gcp_request_t *req, int status)
{
    gcp_op_t  *op = (gcp_op_t *) req->call;

    if (op) {
        gcp_audit_started(op, status);
    }
}


int
gcp_api_cancel(gcp_request_t *req)
{
    int        done;
    gcp_op_t  *op = (gcp_op_t *) req->call;

    done = 1;

    if (op && op->state) {
        done = gcp_watch_cancel(op->state);
        op->state = NULL;
    }

    if (op) {
        gcp_observe_cancel(op, 200, 0);
    }

    return done;
}
