
/*
 * Test support: the API core on a real LMDB store (see support_api.h).
 */

#define _GNU_SOURCE                 /* memmem */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "support_api.h"
#include "gcp_ctl.h"
#include "lmdb/gcp_store_lmdb.h"


struct api_env_s {
    char                dir[64];
    gcp_loop_t         *loop;
    gcp_lmdb_shared_t  *shared;
    gcp_store_t        *store;
    gcp_api_t          *api;
    gcp_ctl_manager_t  *ctl;
    gcp_api_conf_t      conf;
};


typedef struct {
    gcp_request_t       req;
    api_resp_t         *resp;
    int                 done;
} api_req_t;


static void api_env_open(api_env_t *env);
static void api_env_stop_controllers(api_env_t *env);


static void
api_boot_done(void *arg, int rc)
{
    *(int *) arg = rc == GCP_OK ? 1 : -1;
}


api_env_t *
api_env_create(void)
{
    return api_env_create_with(NULL, NULL);
}


api_env_t *
api_env_create_with(void (*tune)(gcp_api_conf_t *conf, void *arg),
    void *arg)
{
    const char      *err;
    api_env_t       *env;
    gcp_api_conf_t   conf;
    gcp_lmdb_conf_t  lc;

    env = calloc(1, sizeof(api_env_t));
    assert_non_null(env);

    snprintf(env->dir, sizeof(env->dir), "/tmp/gcp-api-test-XXXXXX");
    assert_non_null(mkdtemp(env->dir));

    memset(&lc, 0, sizeof(lc));
    lc.path = env->dir;
    lc.map_size = 64 << 20;
    lc.nslots = 1;
    lc.sync = 0;

    err = NULL;
    env->shared = gcp_lmdb_prefork(&lc, &err);
    assert_non_null(env->shared);

    env->loop = gcp_loop_poll_create();
    env->store = gcp_lmdb_open(env->shared, 0, env->loop, &err);
    assert_non_null(env->store);

    memset(&conf, 0, sizeof(conf));
    conf.loop = env->loop;
    conf.store = env->store;
    conf.min_watch_timeout = 1800;
    conf.object_cache = 8 << 20;
    conf.label_index = 8 << 20;
    conf.table_cache = 4 << 20;

    if (tune) {
        tune(&conf, arg);
    }

    env->conf = conf;
    api_env_open(env);

    return env;
}


/* Creates and bootstraps env's API, as a worker does at its start. */
static void
api_env_open(api_env_t *env)
{
    int          booted;
    const char  *err;

    err = NULL;
    env->api = gcp_api_create(&env->conf, &err);
    if (env->api == NULL) {
        fail_msg("gcp_api_create: %s", err);
    }

    booted = 0;
    gcp_api_bootstrap(env->api, api_boot_done, &booted);

    while (booted == 0) {
        gcp_loop_poll_run(env->loop, 100);
    }

    assert_int_equal(booted, 1);
}


void
api_env_restart(api_env_t *env)
{
    api_env_stop_controllers(env);
    gcp_api_destroy(env->api);

    api_env_open(env);
}


void
api_env_start_controllers(api_env_t *env)
{
    gcp_ctl_conf_t  conf;

    memset(&conf, 0, sizeof(conf));

    env->ctl = gcp_ctl_start(env->api, &conf);
    assert_non_null(env->ctl);
}


static void
api_env_ctl_stopped(void *arg)
{
    *(int *) arg = 1;
}


/*
 * The controllers' work in flight completes from the loop (the in-process
 * client answers from it): run it until they are released, so that their
 * arenas are freed before the API or the store goes.
 */
static void
api_env_stop_controllers(api_env_t *env)
{
    int  i, stopped;

    stopped = 0;
    gcp_ctl_stop(env->ctl, api_env_ctl_stopped, &stopped);
    env->ctl = NULL;

    for (i = 0; !stopped && i < 400; i++) {
        api_spin(env, 5);
    }
}


void
api_env_destroy(api_env_t *env)
{
    char  cmd[128];

    api_env_stop_controllers(env);
    gcp_api_destroy(env->api);
    gcp_store_close(env->store);
    gcp_loop_poll_destroy(env->loop);
    gcp_lmdb_shared_free(env->shared);

    snprintf(cmd, sizeof(cmd), "rm -rf %s", env->dir);
    if (system(cmd) != 0) {
        /* leftovers in /tmp are harmless */
    }

    free(env);
}


gcp_api_t *
api_env_api(api_env_t *env)
{
    return env->api;
}


gcp_store_t *
api_env_store(api_env_t *env)
{
    return env->store;
}


gcp_loop_t *
api_env_loop(api_env_t *env)
{
    return env->loop;
}


/* intercepted ranges */

static const gcp_store_ops_t  *api_range_own;
static gcp_store_ops_t         api_range_ops;
static const char             *api_range_part;
static api_range_pt            api_range_fn;


static void
api_range_intercept(gcp_store_t *s, gcp_str_t key, gcp_str_t range_end,
    int64_t revision, int64_t limit, int count_only, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg)
{
    api_range_pt  fn = api_range_own->range;

    if (memmem(key.data, key.len, api_range_part, strlen(api_range_part))) {
        fn = api_range_fn;
    }

    fn(s, key, range_end, revision, limit, count_only, a, done, arg);
}


void
api_store_intercept_range(api_env_t *env, const char *part, api_range_pt fn)
{
    gcp_store_t  *s = env->store;

    if (s->ops == &api_range_ops) {
        s->ops = api_range_own;
    }

    if (part == NULL) {
        return;
    }

    api_range_own = s->ops;
    api_range_ops = *s->ops;
    api_range_ops.range = api_range_intercept;
    api_range_part = part;
    api_range_fn = fn;
    s->ops = &api_range_ops;
}


void
api_store_range(gcp_store_t *s, gcp_str_t key, gcp_str_t range_end,
    int64_t revision, int64_t limit, int count_only, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg)
{
    api_range_own->range(s, key, range_end, revision, limit, count_only, a,
                         done, arg);
}


void
api_spin(api_env_t *env, int ms)
{
    uint64_t  end;

    end = env->loop->now_ms(env->loop) + (uint64_t) ms;

    do {
        gcp_loop_poll_run(env->loop, 10);
    } while (env->loop->now_ms(env->loop) < end);
}


typedef struct {
    int  done;
    int  rc;
} api_put_t;


static void
api_put_done(void *arg, gcp_store_result_t *res)
{
    api_put_t  *p = arg;

    p->rc = res->rc;
    p->done = 1;
}


void
api_store_put(api_env_t *env, gcp_str_t key, gcp_str_t value)
{
    api_put_t     p;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);
    assert_non_null(a);

    memset(&p, 0, sizeof(p));
    gcp_store_create(env->store, key, value, a, api_put_done, &p);

    while (!p.done) {
        gcp_loop_poll_run(env->loop, 10);
    }

    if (p.rc != GCP_OK) {
        memset(&p, 0, sizeof(p));
        gcp_store_update(env->store, key, value, 0, a, api_put_done, &p);

        while (!p.done) {
            gcp_loop_poll_run(env->loop, 10);
        }
    }

    assert_int_equal(p.rc, GCP_OK);
    gcp_arena_destroy(a);
}


static void
api_append(api_resp_t *r, const char *data, size_t len)
{
    r->body = realloc(r->body, r->len + len + 1);
    assert_non_null(r->body);
    memcpy(r->body + r->len, data, len);
    r->len += len;
    r->body[r->len] = '\0';
}


static json_t *
api_proxy_json(const gcp_proxy_t *p)
{
    size_t   i;
    json_t  *set, *remove;

    set = json_array();
    remove = json_array();

    for (i = 0; i < p->nset; i++) {
        json_array_append_new(set, json_pack("[s, s]", p->set[i].name,
                                             p->set[i].value));
    }

    for (i = 0; p->remove && p->remove[i]; i++) {
        json_array_append_new(remove, json_string(p->remove[i]));
    }

    return json_pack("{s:s, s:i, s:s, s:b, s:b, s:s%, s:o, s:o}",
                     "upstream", p->upstream, "port", p->port,
                     "serverName", p->server_name,
                     "insecure", p->insecure, "longRunning", p->long_running,
                     "ca", p->ca.data ? p->ca.data : "", p->ca.len,
                     "set", set, "remove", remove);
}


static void
api_done(gcp_request_t *req, gcp_response_t *resp)
{
    size_t       i;
    api_req_t   *ar = (api_req_t *) req;
    api_resp_t  *r = ar->resp;

    r->status = resp->status;
    r->content_type = resp->content_type ? strdup(resp->content_type)
                                         : NULL;
    r->streaming = resp->streaming;

    for (i = 0; i < resp->nheaders && i < 32; i++) {
        r->headers[i][0] = strdup(resp->headers[i].name);
        r->headers[i][1] = strdup(resp->headers[i].value);
    }

    r->nheaders = i;

    api_append(r, resp->body.data ? resp->body.data : "", resp->body.len);

    if (resp->proxy) {
        r->proxy = api_proxy_json(resp->proxy);
    }

    ar->done = 1;
}


static int
api_stream_write(void *arg, const char *data, size_t len, int flush)
{
    api_req_t  *ar = arg;

    api_append(ar->resp, data, len);

    return GCP_OK;
}


static void
api_stream_end(void *arg)
{
    api_req_t  *ar = arg;

    ar->resp->ended = 1;
}


static const gcp_stream_ops_t  api_stream_ops = {
    api_stream_write,
    api_stream_end,
};


static api_resp_t *
api_run(api_env_t *env, const char *method, const char *path,
    const char *content_type, const char *body, size_t body_len,
    const char *accept, int stream_ms, const api_req_opts_t *opts)
{
    char         *q;
    size_t        len;
    uint64_t      end;
    api_req_t     ar;
    api_resp_t   *r;
    gcp_arena_t  *a;

    r = calloc(1, sizeof(api_resp_t));
    assert_non_null(r);

    a = gcp_arena_create(0);
    assert_non_null(a);

    memset(&ar, 0, sizeof(ar));
    ar.resp = r;
    ar.req.arena = a;
    ar.req.method = method;
    ar.req.path.data = gcp_strdup(a, path);

    q = strchr((char *) ar.req.path.data, '?');

    if (q) {
        *q = '\0';
        ar.req.query.data = q + 1;
        ar.req.query.len = strlen(q + 1);
    }

    ar.req.path.len = strlen(ar.req.path.data);
    ar.req.content_type = content_type;
    ar.req.accept = accept;
    ar.req.user_agent = "gcp-unit/1.0";

    if (body) {
        ar.req.body.data = body;
        ar.req.body.len = body_len;
    }

    if (opts) {
        ar.req.headers = opts->headers;
        ar.req.nheaders = opts->nheaders;
        ar.req.user = opts->user;

        if (opts->peer_certs) {
            ar.req.peer_certs.data = opts->peer_certs;
            ar.req.peer_certs.len = strlen(opts->peer_certs);
        }
    }

    ar.req.done = api_done;
    ar.req.stream = &api_stream_ops;
    ar.req.ctx = &ar;

    gcp_api_handle(env->api, &ar.req);

    while (!ar.done) {
        gcp_loop_poll_run(env->loop, 50);
    }

    if (r->streaming) {
        end = env->loop->now_ms(env->loop) + (uint64_t) stream_ms;

        while (!r->ended && env->loop->now_ms(env->loop) < end) {
            gcp_loop_poll_run(env->loop, 10);
        }

        if (!r->ended && !gcp_api_cancel(&ar.req)) {
            /* the watch still holds the request: its end comes */
            r->cancel_held = 1;
            len = r->len;

            while (!r->ended) {
                gcp_loop_poll_run(env->loop, 10);
            }

            r->late_bytes = r->len - len;
        }
    }

    if (r->body && r->len && !r->streaming) {
        r->json = json_loadb(r->body, r->len, 0, NULL);
    }

    gcp_arena_destroy(a);

    return r;
}


api_resp_t *
api_call(api_env_t *env, const char *method, const char *path,
    const char *content_type, const char *body, const char *accept)
{
    return api_run(env, method, path, content_type, body,
                   body ? strlen(body) : 0, accept, 0, NULL);
}


api_resp_t *
api_call_opts(api_env_t *env, const char *method, const char *path,
    const char *content_type, const char *body, const char *accept,
    const api_req_opts_t *opts)
{
    return api_run(env, method, path, content_type, body,
                   body ? (opts && opts->body_len ? opts->body_len
                                                  : strlen(body))
                        : 0, accept, 0, opts);
}


api_resp_t *
api_call_n(api_env_t *env, const char *method, const char *path,
    const char *content_type, const char *body, size_t len,
    const char *accept)
{
    return api_run(env, method, path, content_type, body, len, accept, 0,
                   NULL);
}


api_resp_t *
api_call_stream(api_env_t *env, const char *method, const char *path,
    const char *accept, int stream_ms)
{
    return api_run(env, method, path, NULL, NULL, 0, accept, stream_ms,
                   NULL);
}


size_t
api_events(const api_resp_t *r, json_t **out, size_t max)
{
    size_t       n;
    const char  *p, *nl;

    n = 0;

    for (p = r->body; p && *p && n < max; p = nl + 1) {
        nl = strchr(p, '\n');
        assert_non_null(nl);
        out[n] = json_loadb(p, (size_t) (nl - p), 0, NULL);
        assert_non_null(out[n]);
        n++;
    }

    return n;
}


void
api_events_free(json_t **ev, size_t n)
{
    while (n--) {
        json_decref(ev[n]);
    }
}


const char *
api_header(const api_resp_t *r, const char *name)
{
    size_t  i;

    for (i = 0; i < r->nheaders; i++) {
        if (strcasecmp(r->headers[i][0], name) == 0) {
            return r->headers[i][1];
        }
    }

    return NULL;
}


size_t
api_header_count(const api_resp_t *r, const char *name)
{
    size_t  i, n;

    n = 0;

    for (i = 0; i < r->nheaders; i++) {
        n += strcasecmp(r->headers[i][0], name) == 0;
    }

    return n;
}


const char *
api_str(const json_t *v, ...)
{
    va_list      ap;
    const char  *key;

    va_start(ap, v);

    while ((key = va_arg(ap, const char *)) != NULL) {
        v = json_object_get(v, key);
    }

    va_end(ap);

    return json_string_value(v);
}


void
api_assert_json(const json_t *v, const char *expected)
{
    char  *s;

    s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    assert_non_null(s);
    assert_string_equal(s, expected);
    free(s);
}


void
api_resp_free(api_resp_t *r)
{
    size_t  i;

    if (r == NULL) {
        return;
    }

    for (i = 0; i < r->nheaders; i++) {
        free(r->headers[i][0]);
        free(r->headers[i][1]);
    }

    free(r->content_type);
    free(r->body);
    json_decref(r->json);
    json_decref(r->proxy);
    free(r);
}
