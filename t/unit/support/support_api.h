
/*
 * Test support: a whole API core (gcp_api_t) on a fresh LMDB store in a
 * temporary directory, driven by the poll loop, and a synchronous request
 * helper.  Watch streams are collected into the response body.
 */

#ifndef _SUPPORT_API_H_INCLUDED_
#define _SUPPORT_API_H_INCLUDED_


#include <jansson.h>

#include "gcp_api.h"
#include "gcp_loop.h"
#include "gcp_store.h"


typedef struct api_env_s  api_env_t;


typedef struct {
    int          status;
    char        *content_type;      /* malloc'd, or NULL */
    char        *body;              /* malloc'd, NUL-terminated */
    size_t       len;
    char        *headers[32][2];    /* name, value; malloc'd */
    size_t       nheaders;
    int          streaming;
    int          ended;             /* stream->end called */
    int          cancel_held;       /* gcp_api_cancel() returned 0 */
    size_t       late_bytes;        /* written after gcp_api_cancel() */
    json_t      *json;              /* body parsed, or NULL */
    json_t      *proxy;             /* a gcp_proxy_t as JSON: upstream, */
                                    /* port, serverName, insecure, */
                                    /* longRunning, ca, set [[n, v]], */
                                    /* remove; NULL when not proxied */
} api_resp_t;


/* Returns a bootstrapped API on a new store, or aborts the test. */
api_env_t *api_env_create(void);

/* As api_env_create(), tune(conf, arg) adjusting the configuration. */
api_env_t *api_env_create_with(void (*tune)(gcp_api_conf_t *conf,
    void *arg), void *arg);
void api_env_destroy(api_env_t *env);

/*
 * A new API on env's store, as after a restart of the worker: the
 * controllers stop, the API is destroyed, created and bootstrapped again.
 */
void api_env_restart(api_env_t *env);

/*
 * Starts every controller on env's API, as the adapter does in the worker
 * that runs them (upstream's lease timings); api_env_destroy() stops them.
 */
void api_env_start_controllers(api_env_t *env);

gcp_api_t *api_env_api(api_env_t *env);
gcp_store_t *api_env_store(api_env_t *env);
gcp_loop_t *api_env_loop(api_env_t *env);

/*
 * Serves one request; path may carry "?query".  Runs the loop until the
 * response is done (and, for streams, until ended or stream_ms passed).
 * The caller frees the result with api_resp_free().
 */
api_resp_t *api_call(api_env_t *env, const char *method, const char *path,
    const char *content_type, const char *body, const char *accept);

/* As api_call() with a body of len bytes (it may hold NULs). */
api_resp_t *api_call_n(api_env_t *env, const char *method, const char *path,
    const char *content_type, const char *body, size_t len,
    const char *accept);

api_resp_t *api_call_stream(api_env_t *env, const char *method,
    const char *path, const char *accept, int stream_ms);


/* What a request carries for authentication. */
typedef struct {
    const gcp_header_t  *headers;       /* request headers */
    size_t               nheaders;
    const char          *peer_certs;    /* client certificates (PEM) */
    const gcp_user_t    *user;          /* preset, as the in-process */
                                        /* client does */
    size_t               body_len;      /* 0: strlen(body) */
} api_req_opts_t;

/* As api_call() with the headers, certificates and user of opts. */
api_resp_t *api_call_opts(api_env_t *env, const char *method,
    const char *path, const char *content_type, const char *body,
    const char *accept, const api_req_opts_t *opts);

/* Writes key = value in env's store (created or overwritten). */
void api_store_put(api_env_t *env, gcp_str_t key, gcp_str_t value);

/* A store's range operation (gcp_store_ops_t.range). */
typedef void (*api_range_pt)(gcp_store_t *s, gcp_str_t key,
    gcp_str_t range_end, int64_t revision, int64_t limit, int count_only,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg);

/*
 * Sends the ranges of env's store whose key contains part (a static
 * string) to fn instead, until called again; part NULL gives the store
 * its own ops back.  One interception at a time, in one env.
 */
void api_store_intercept_range(api_env_t *env, const char *part,
    api_range_pt fn);

/* The store's own range, for fn to pass a range on (now or later). */
void api_store_range(gcp_store_t *s, gcp_str_t key, gcp_str_t range_end,
    int64_t revision, int64_t limit, int count_only, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg);

/* Runs the loop for ms milliseconds, at least one turn. */
void api_spin(api_env_t *env, int ms);

/*
 * Splits a watch body into its events (one JSON line each) into out[0..);
 * returns their number (at most max).  The caller owns them
 * (api_events_free).
 */
size_t api_events(const api_resp_t *r, json_t **out, size_t max);
void api_events_free(json_t **ev, size_t n);

/* The value of header name (first), or NULL. */
const char *api_header(const api_resp_t *r, const char *name);

/* Number of headers named name. */
size_t api_header_count(const api_resp_t *r, const char *name);

/* json_string_value at a path of keys ("metadata", "name", NULL). */
const char *api_str(const json_t *v, ...);

/* Asserts v dumps as the compact JSON expected (key order counts). */
void api_assert_json(const json_t *v, const char *expected);

void api_resp_free(api_resp_t *r);


#endif /* _SUPPORT_API_H_INCLUDED_ */
