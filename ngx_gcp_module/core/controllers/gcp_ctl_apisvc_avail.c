
/*
 * The availability controller of remote APIServices
 * (apiservice-status-available-controller, kube-aggregator's remote
 * AvailableConditionController, v1.32): every 10 s (upstream: 30 s),
 * every 2 s while it fails, and at once when an APIService changes, its
 * service is resolved (an nginx upstream block named
 * NAME.NAMESPACE.svc[:PORT], else DNS when nginx has a resolver, else
 * ServiceNotFound) and its discovery document GET on up to five of
 * its endpoints at once, with the proxy's client certificate as user
 * system:kube-aggregator in group system:masters, without verifying the
 * server (as upstream: a check, not a use), 5 s at most; one answer in the
 * 200s is Available (Passed), none is FailedDiscoveryCheck with the last
 * error.  The Available condition is written only when it changes.
 *
 * Beyond upstream, the document the check fetched is kept, with the
 * server's OpenAPI v2 and v3 documents (fetched again when the discovery
 * document changes, or after ten minutes), in the store beside the
 * APIServices (GCP_APISVC_DOCUMENTS): every worker and instance serves
 * them in discovery and OpenAPI, and still does while the server is down.
 */

#include <errno.h>
#include <stdlib.h>

#include "gcp_aggregator.h"
#include "gcp_ctl_int.h"
#include "gcp_http.h"
#include "gcp_json.h"
#include "gcp_object.h"
#include "gcp_time.h"


#define GCP_AVAIL_RESYNC_MS      10000      /* an available one */
#define GCP_AVAIL_RETRY_MS       2000       /* one that is not */
#define GCP_AVAIL_TIMEOUT_MS     5000
#define GCP_AVAIL_OPENAPI_MS     10000      /* an OpenAPI fetch */
#define GCP_AVAIL_REFETCH_MS     600000     /* OpenAPI fetched again */
#define GCP_AVAIL_ATTEMPTS       5
#define GCP_AVAIL_MAX_BODY       (16 << 20)


typedef struct {
    gcp_ctl_base_t       base;
    gcp_http_t          *http;
} gcp_ctl_avail_t;


/* One sync: the checks, then the writes. */
typedef struct {
    gcp_ctl_item_t      *item;
    gcp_ctl_steps_t      steps;
    json_t              *obj;           /* the APIService (arena) */

    /* its documents as this process knew them at the start (arena) */
    json_t              *old_discovery;
    json_t              *old_v3;
    json_t              *old_v2;
    int64_t              fetched;       /* 0: none stored */

    const char          *host;          /* NAME.NAMESPACE.svc */
    int                  port;
    const char          *path;          /* /apis/GROUP/VERSION */
    const char         **endpoints;     /* "ADDR:PORT"; NULL: DNS */
    size_t               nendpoints;

    size_t               pending;
    const char          *ok_endpoint;   /* the first that answered */
    const char          *error;         /* the last failure */
    json_t              *discovery;     /* the answer (arena) */
    json_t              *openapi_v3;    /* fetched, or NULL */
    json_t              *openapi_v2;

    const char          *status;        /* the condition to have */
    const char          *reason;
    const char          *message;
} gcp_avail_sync_t;


enum {
    GCP_AVAIL_PROBE = 0,
    GCP_AVAIL_OPENAPI,
    GCP_AVAIL_STATUS,
    GCP_AVAIL_DOCUMENTS,
    GCP_AVAIL_NSTEPS
};


static void gcp_avail_step(void *data);


static int64_t
gcp_avail_now_ms(void)
{
    struct timespec  ts;

    ts = gcp_time_now();

    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}


/* The service's endpoints: NAME.NAMESPACE.svc:PORT, else any port. */
static const gcp_service_t *
gcp_avail_service(const gcp_api_conf_t *conf, const char *name, int port)
{
    size_t       i, len;
    const char  *s;

    len = strlen(name);

    for (i = 0; i < conf->nservices; i++) {
        s = conf->services[i].name;

        if (strncmp(s, name, len) == 0 && s[len] == ':'
            && atoi(s + len + 1) == port)
        {
            return &conf->services[i];
        }
    }

    for (i = 0; i < conf->nservices; i++) {
        if (strcmp(conf->services[i].name, name) == 0) {
            return &conf->services[i];
        }
    }

    return NULL;
}


/* The URL of the check on endpoint ep (NULL: the service's name). */
static const char *
gcp_avail_url(gcp_avail_sync_t *s, const char *ep, const char *path)
{
    if (ep) {
        return gcp_sprintf(s->item->arena, "https://%s%s", ep, path);
    }

    return gcp_sprintf(s->item->arena, "https://%s:%d%s", s->host, s->port,
                       path);
}


/* Go's words for a failed request ("dial tcp ADDR: connect: ..."). */
static const char *
gcp_avail_go_error(gcp_avail_sync_t *s, const char *ep,
    const gcp_http_result_t *res)
{
    const char  *addr, *why;

    addr = ep ? ep : gcp_sprintf(s->item->arena, "%s:%d", s->host, s->port);

    switch (res->error) {

    case GCP_HTTP_ERR_CONNECT:
        why = res->os_errno == ECONNREFUSED ? "connection refused"
              : res->os_errno == EHOSTUNREACH ? "no route to host"
              : res->os_errno == ENETUNREACH ? "network is unreachable"
              : res->message;
        return gcp_sprintf(s->item->arena, "dial tcp %s: connect: %s", addr,
                           why);

    case GCP_HTTP_ERR_RESOLVE:
        return gcp_sprintf(s->item->arena, "dial tcp: lookup %s: no such "
                           "host", s->host);

    case GCP_HTTP_ERR_TIMEOUT:
        return "context deadline exceeded (Client.Timeout exceeded while "
               "awaiting headers)";

    default:
        return res->detail ? res->detail : "error";
    }
}


/* The headers of a request to the server, as the aggregator makes them. */
static const char * const  gcp_avail_headers[] = {
    "Accept: application/json",
    "X-Remote-User: system:kube-aggregator",
    "X-Remote-Group: system:masters",
    NULL
};


static gcp_http_req_t *
gcp_avail_send(gcp_avail_sync_t *s, const char *ep, const char *path,
    uint64_t timeout, gcp_http_done_pt done, void *arg)
{
    gcp_http_opts_t   o;
    gcp_ctl_avail_t  *av = s->item->ctx;
    gcp_api_conf_t   *conf = &av->base.ctl->api->conf;

    memset(&o, 0, sizeof(o));

    /* the service's name in the URL (and SNI), connected to ep */

    o.method = "GET";
    o.url = gcp_sprintf(s->item->arena, "https://%s:%d%s", s->host, s->port,
                        path);
    o.connect_to = ep ? gcp_sprintf(s->item->arena, "%s:%d:%s", s->host,
                                    s->port, ep)
                      : NULL;
    o.headers = gcp_avail_headers;
    o.insecure = 1;
    o.cert.file = conf->proxy_cert;
    o.key.file = conf->proxy_key;
    o.timeout_ms = timeout;
    o.max_body = GCP_AVAIL_MAX_BODY;

    if (o.url == NULL || (ep && o.connect_to == NULL)) {
        return NULL;
    }

    return gcp_http_send(av->http, &o, NULL, done, arg);
}


/* step 0: the discovery document from up to five endpoints at once */


typedef struct {
    gcp_avail_sync_t  *sync;
    const char        *endpoint;
} gcp_avail_probe_t;


static void
gcp_avail_probed(void *arg, const gcp_http_result_t *res)
{
    const char         *msg, *url;
    gcp_avail_probe_t  *p = arg;
    gcp_avail_sync_t   *s = p->sync;
    json_t             *doc;

    url = gcp_avail_url(s, p->endpoint, s->path);

    if (res->error != GCP_HTTP_OK) {
        s->error = gcp_sprintf(s->item->arena,
                               "failing or missing response from %s: Get "
                               "\"%s\": %s", url, url,
                               gcp_avail_go_error(s, p->endpoint, res));

    } else if (res->status < 200 || res->status >= 300) {
        s->error = gcp_sprintf(s->item->arena,
                               "failing or missing response from %s: bad "
                               "status from %s: %ld", url, url, res->status);

    } else if (s->ok_endpoint == NULL) {
        s->ok_endpoint = p->endpoint ? p->endpoint : "";
        doc = gcp_json_parse(s->item->arena, res->body.data, res->body.len,
                             &msg);
        s->discovery = json_is_object(doc) ? doc : NULL;
    }

    if (--s->pending == 0) {
        gcp_ctl_steps_run(&s->steps);
    }
}


static void
gcp_avail_probe(gcp_avail_sync_t *s)
{
    size_t              i, n, start;
    gcp_avail_probe_t  *p;

    n = s->endpoints ? s->nendpoints : 1;
    n = n < GCP_AVAIL_ATTEMPTS ? n : GCP_AVAIL_ATTEMPTS;

    /* a different first endpoint each time, as upstream picks at random */

    start = s->endpoints ? (size_t) gcp_avail_now_ms() % s->nendpoints : 0;

    s->pending = n;

    for (i = 0; i < n; i++) {
        p = gcp_calloc(s->item->arena, sizeof(gcp_avail_probe_t));

        if (p) {
            p->sync = s;
            p->endpoint = s->endpoints
                          ? s->endpoints[(start + i) % s->nendpoints] : NULL;
        }

        if (p == NULL
            || gcp_avail_send(s, p->endpoint, s->path, GCP_AVAIL_TIMEOUT_MS,
                              gcp_avail_probed, p) == NULL)
        {
            s->error = "out of memory";

            if (--s->pending == 0) {
                /* nothing in flight: go on from the loop */
                gcp_ctl_steps_run(&s->steps);
                return;
            }
        }
    }
}


/* step 1: the OpenAPI documents, when they may have changed */


static void
gcp_avail_openapi_done(void *arg, const gcp_http_result_t *res, int v3)
{
    json_t            *doc;
    const char        *msg;
    gcp_avail_sync_t  *s = arg;

    if (res->error == GCP_HTTP_OK && res->status == 200) {
        doc = gcp_json_parse(s->item->arena, res->body.data, res->body.len,
                             &msg);

        if (json_is_object(doc)) {
            if (v3) {
                s->openapi_v3 = doc;

            } else {
                s->openapi_v2 = doc;
            }
        }
    }

    if (--s->pending == 0) {
        gcp_ctl_steps_run(&s->steps);
    }
}


static void
gcp_avail_openapi_v3(void *arg, const gcp_http_result_t *res)
{
    gcp_avail_openapi_done(arg, res, 1);
}


static void
gcp_avail_openapi_v2(void *arg, const gcp_http_result_t *res)
{
    gcp_avail_openapi_done(arg, res, 0);
}


static int
gcp_avail_openapi_wanted(gcp_avail_sync_t *s)
{
    if (s->discovery == NULL) {
        return 0;
    }

    return s->old_v3 == NULL || s->old_v2 == NULL
           || !json_equal(s->old_discovery, s->discovery)
           || gcp_avail_now_ms() - s->fetched > GCP_AVAIL_REFETCH_MS;
}


static void
gcp_avail_openapi(gcp_avail_sync_t *s)
{
    const char  *ep, *path;

    if (!gcp_avail_openapi_wanted(s)) {
        gcp_ctl_steps_run(&s->steps);
        return;
    }

    ep = s->ok_endpoint[0] ? s->ok_endpoint : NULL;
    path = gcp_sprintf(s->item->arena, "/openapi/v3%s", s->path);
    s->pending = 2;

    if (path == NULL
        || gcp_avail_send(s, ep, path, GCP_AVAIL_OPENAPI_MS,
                          gcp_avail_openapi_v3, s) == NULL)
    {
        s->pending--;
    }

    if (gcp_avail_send(s, ep, "/openapi/v2", GCP_AVAIL_OPENAPI_MS,
                       gcp_avail_openapi_v2, s) == NULL)
    {
        s->pending--;
    }

    if (s->pending == 0) {
        gcp_ctl_steps_run(&s->steps);
    }
}


/* step 2: the Available condition, written when it changes */


static void
gcp_avail_written(gcp_ctl_item_t *item, gcp_client_resp_t *resp)
{
    gcp_avail_sync_t  *s = item->data;

    /* 409: changed meanwhile, 404: gone; the next check says again */

    gcp_ctl_steps_run(&s->steps);
}


static void
gcp_avail_status(gcp_avail_sync_t *s)
{
    char           now[GCP_TIME_BUFSIZE];
    char          *body;
    size_t         i;
    json_t        *obj, *conds, *c, *cond;
    const char    *time, *old;
    const json_t  *prev;

    prev = gcp_apiservice_available(s->obj);
    old = json_string_value(json_object_get(prev, "status"));

    if (prev && old && strcmp(old, s->status) == 0
        && strcmp(json_string_value(json_object_get(prev, "reason")) ?: "",
                  s->reason) == 0
        && strcmp(json_string_value(json_object_get(prev, "message")) ?: "",
                  s->message) == 0)
    {
        gcp_ctl_steps_run(&s->steps);
        return;
    }

    /* the transition time moves only when the status does */

    gcp_time_format(now, gcp_time_now().tv_sec);
    time = now;

    if (prev && old && strcmp(old, s->status) == 0
        && json_is_string(json_object_get(prev, "lastTransitionTime")))
    {
        time = json_string_value(json_object_get(prev, "lastTransitionTime"));
    }

    cond = gcp_apiservice_condition(s->status, s->reason, s->message, time);
    obj = json_deep_copy(s->obj);
    conds = json_array();

    if (cond == NULL || obj == NULL || conds == NULL) {
        json_decref(cond);
        json_decref(obj);
        json_decref(conds);
        gcp_ctl_steps_run(&s->steps);
        return;
    }

    json_array_foreach(json_object_get(json_object_get(obj, "status"),
                                       "conditions"), i, c)
    {
        if (c != prev && !json_equal(c, prev)) {
            json_array_append(conds, c);
        }
    }

    json_array_append_new(conds, cond);
    json_object_set_new(gcp_json_object_child(obj, "status"), "conditions",
                        conds);

    body = json_dumps(obj, JSON_COMPACT);
    json_decref(obj);

    if (body == NULL) {
        gcp_ctl_steps_run(&s->steps);
        return;
    }

    gcp_ctl_call(s->item, "PUT",
                 gcp_sprintf(s->item->arena, "%s/%s/status",
                             gcp_ctl_path(s->item->arena,
                                          &gcp_type_apiservices, ""),
                             s->item->key),
                 NULL, gcp_strdup(s->item->arena, body), gcp_avail_written);
    free(body);
}


/* step 3: the documents, written when they change */


static void
gcp_avail_stored(void *arg, gcp_store_result_t *res)
{
    gcp_avail_sync_t  *s = arg;

    gcp_ctl_steps_run(&s->steps);
}


static void
gcp_avail_documents(gcp_avail_sync_t *s)
{
    char                *text;
    json_t              *doc;
    gcp_str_t            key, value;
    gcp_ctl_t           *ctl = ((gcp_ctl_base_t *) s->item->ctx)->ctl;
    const json_t        *v3, *v2;

    if (s->discovery == NULL
        || (s->old_discovery && json_equal(s->old_discovery, s->discovery)
            && s->openapi_v3 == NULL && s->openapi_v2 == NULL))
    {
        gcp_ctl_steps_run(&s->steps);
        return;
    }

    /* what was not fetched again stays */

    v3 = s->openapi_v3 ? s->openapi_v3 : s->old_v3;
    v2 = s->openapi_v2 ? s->openapi_v2 : s->old_v2;

    doc = json_pack("{s:O, s:I}", "discovery", s->discovery, "fetched",
                    (json_int_t) gcp_avail_now_ms());

    if (doc && v3) {
        json_object_set(doc, "openapiV3", (json_t *) v3);
    }

    if (doc && v2) {
        json_object_set(doc, "openapiV2", (json_t *) v2);
    }

    text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);

    key.data = gcp_sprintf(s->item->arena, GCP_APISVC_DOCUMENTS "%s",
                           s->item->key);
    value.data = text ? gcp_strdup(s->item->arena, text) : NULL;
    free(text);

    if (key.data == NULL || value.data == NULL) {
        gcp_ctl_steps_run(&s->steps);
        return;
    }

    key.len = strlen(key.data);
    value.len = strlen(value.data);

    /* a key that exists is overwritten, else created */

    if (s->fetched) {
        gcp_store_update(ctl->store, key, value, 0, s->item->arena,
                         gcp_avail_stored, s);

    } else {
        gcp_store_create(ctl->store, key, value, s->item->arena,
                         gcp_avail_stored, s);
    }
}


static void
gcp_avail_step(void *data)
{
    gcp_avail_sync_t  *s = data;

    switch (s->steps.next++) {

    case GCP_AVAIL_PROBE:
        if (s->endpoints == NULL && s->host == NULL) {
            gcp_ctl_steps_run(&s->steps);
            return;
        }

        gcp_avail_probe(s);
        return;

    case GCP_AVAIL_OPENAPI:
        if (s->ok_endpoint) {
            s->status = "True";
            s->reason = "Passed";
            s->message = "all checks passed";
            gcp_avail_openapi(s);
            return;
        }

        if (s->status == NULL) {
            s->status = "False";
            s->reason = "FailedDiscoveryCheck";
            s->message = s->error ? s->error : "no endpoint answered";
        }

        gcp_ctl_steps_run(&s->steps);
        return;

    case GCP_AVAIL_STATUS:
        gcp_avail_status(s);
        return;

    default:
        gcp_avail_documents(s);
        return;
    }
}


static void
gcp_avail_last(void *data)
{
    gcp_avail_sync_t  *s = data;

    gcp_ctl_queue_done(s->item, GCP_OK,
                       s->ok_endpoint ? GCP_AVAIL_RESYNC_MS
                                      : GCP_AVAIL_RETRY_MS);
}


/* A reference to v (NULL allowed) released with the arena. */
static json_t *
gcp_avail_keep(gcp_arena_t *a, const json_t *v)
{
    json_t  *ref;

    if (v == NULL) {
        return NULL;
    }

    ref = json_incref((json_t *) v);

    if (gcp_json_arena(a, ref) == NULL) {
        json_decref(ref);
        return NULL;
    }

    return ref;
}


static void
gcp_avail_got(gcp_ctl_item_t *item, json_t *obj)
{
    gcp_agg_t              *agg;
    gcp_ctl_avail_t        *av = item->ctx;
    const gcp_apisvc_t     *known;
    gcp_api_conf_t         *conf = &av->base.ctl->api->conf;
    gcp_avail_sync_t       *s;
    const json_t           *spec, *ref;
    const gcp_service_t    *svc;

    spec = json_object_get(obj, "spec");
    ref = json_object_get(spec, "service");

    if (!json_is_object(ref)) {
        /* local: the registration controller's */
        gcp_ctl_queue_done(item, GCP_OK, 0);
        return;
    }

    s = gcp_calloc(item->arena, sizeof(gcp_avail_sync_t));
    if (s == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    item->data = s;
    s->item = item;
    s->obj = obj;

    /*
     * The documents stored: kept by reference, as the view may drop them
     * while the sync waits (its own status write changes the APIService).
     */

    agg = gcp_agg(av->base.ctl->api);
    known = agg ? gcp_agg_find(agg, json_string_value(json_object_get(
                                        spec, "group")) ?: "",
                               json_string_value(json_object_get(
                                   spec, "version")) ?: "")
                : NULL;

    if (known) {
        s->old_discovery = gcp_avail_keep(item->arena, known->discovery);
        s->old_v3 = gcp_avail_keep(item->arena, known->openapi_v3);
        s->old_v2 = gcp_avail_keep(item->arena, known->openapi_v2);
        s->fetched = known->fetched;
    }

    s->host = gcp_sprintf(item->arena, "%s.%s.svc",
                          json_string_value(json_object_get(ref, "name"))
                          ?: "",
                          json_string_value(json_object_get(ref, "namespace"))
                          ?: "");
    s->port = json_is_integer(json_object_get(ref, "port"))
              ? (int) json_integer_value(json_object_get(ref, "port")) : 443;
    s->path = gcp_sprintf(item->arena, "/apis/%s/%s",
                          json_string_value(json_object_get(spec, "group"))
                          ?: "",
                          json_string_value(json_object_get(spec, "version"))
                          ?: "");

    if (s->host == NULL || s->path == NULL) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    svc = gcp_avail_service(conf, s->host, s->port);

    if (svc && svc->nendpoints) {
        s->endpoints = (const char **) svc->endpoints;
        s->nendpoints = svc->nendpoints;

    } else if (svc || !conf->service_dns) {
        /* resolves nowhere */
        s->status = "False";
        s->reason = "ServiceNotFound";
        s->message = gcp_sprintf(item->arena, "service/%s in \"%s\" is not "
                        "present",
                        json_string_value(json_object_get(ref, "name")) ?: "",
                        json_string_value(json_object_get(ref, "namespace"))
                        ?: "");
        s->host = NULL;
    }

    gcp_ctl_steps_start(&s->steps, item, GCP_AVAIL_NSTEPS, gcp_avail_step,
                        gcp_avail_last, s);
}


static void
gcp_avail_sync(gcp_ctl_item_t *item)
{
    gcp_ctl_get_object(item, gcp_object_key(item->arena,
                                            &gcp_type_apiservices, "",
                                            item->key),
                       gcp_avail_got);
}


static void
gcp_avail_forgotten(void *arg, gcp_store_result_t *res)
{
    gcp_arena_destroy(arg);
}


/* An APIService is gone: so are its documents. */
static void
gcp_avail_forget(gcp_ctl_t *ctl, const char *name)
{
    gcp_str_t     key;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    if (a == NULL) {
        return;
    }

    key.data = gcp_sprintf(a, GCP_APISVC_DOCUMENTS "%s", name);

    if (key.data == NULL) {
        gcp_arena_destroy(a);
        return;
    }

    key.len = strlen(key.data);

    gcp_store_delete(ctl->store, key, 0, a, gcp_avail_forgotten, a);
}


static void *
gcp_avail_create(gcp_ctl_t *ctl)
{
    gcp_ctl_avail_t  *av;

    av = gcp_ctl_base_create(ctl, sizeof(gcp_ctl_avail_t),
                             "RemoteAvailabilityController", 5,
                             gcp_avail_sync);
    if (av == NULL) {
        return NULL;
    }

    av->http = gcp_http_create(ctl->loop, 16);
    if (av->http == NULL) {
        gcp_ctl_base_free(av);
        return NULL;
    }

    return av;
}


static void
gcp_avail_event(void *c, gcp_ctl_event_t *ev)
{
    json_t           *obj;
    gcp_ctl_avail_t  *av = c;

    if (ev->res != &gcp_type_apiservices) {
        return;
    }

    obj = gcp_ctl_event_obj(ev);

    if (ev->type == GCP_CTL_EV_DELETE) {
        gcp_avail_forget(av->base.ctl, ev->name);
        return;
    }

    if (json_is_object(json_object_get(json_object_get(obj, "spec"),
                                       "service")))
    {
        gcp_ctl_queue_add(av->base.queue, ev->name);
    }
}


static void
gcp_avail_free(void *c)
{
    gcp_ctl_avail_t  *av = c;

    gcp_http_destroy(av->http);
    gcp_ctl_base_free(av);
}


const gcp_ctl_controller_t  gcp_ctl_apisvc_avail_controller = {
    "apiservice-status-available-controller",
    GCP_CTL_APISERVICE_AVAILABLE,
    gcp_avail_create,
    gcp_avail_event,
    NULL,
    gcp_ctl_base_synced,
    NULL,
    gcp_ctl_base_stop,
    gcp_avail_free,
};
