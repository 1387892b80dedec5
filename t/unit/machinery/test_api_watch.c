
/*
 * Unit tests: watches through the API core on LMDB: start points, event
 * types, selectors leaving and entering, bookmarks, timeouts, tables,
 * compacted start points (watches, lists and continue tokens).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_base64.h"
#include "support_api.h"
#include "gcp_reg.h"


#define CM   "/api/v1/namespaces/default/configmaps"
#define JSON "application/json"


static int
setup(void **state)
{
    *state = api_env_create();
    return 0;
}


static int
teardown(void **state)
{
    api_env_destroy(*state);
    return 0;
}


static void
create(api_env_t *env, const char *name, const char *labels)
{
    char         body[256];
    api_resp_t  *r;

    snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"%s\","
             "\"labels\":%s},\"data\":{\"k\":\"v\"}}", name, labels);
    r = api_call(env, "POST", CM, JSON, body, NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);
}


static void
test_watch_initial_and_timeout(void **state)
{
    size_t       n;
    json_t      *ev[8];
    api_env_t   *env = *state;
    api_resp_t  *r;

    create(env, "a", "{\"app\":\"x\"}");
    create(env, "b", "{\"app\":\"y\"}");

    /* no resourceVersion: the current objects as ADDED, then the timeout */
    r = api_call_stream(env, "GET", CM "?watch=1&timeoutSeconds=1", NULL,
                        3000);
    assert_int_equal(r->status, 200);
    assert_true(r->streaming);
    assert_true(r->ended);

    n = api_events(r, ev, 8);
    assert_int_equal(n, 2);
    assert_string_equal(api_str(ev[0], "type", NULL), "ADDED");
    assert_string_equal(api_str(ev[0], "object", "metadata", "name", NULL),
                        "a");
    assert_string_equal(api_str(ev[0], "object", "kind", NULL), "ConfigMap");
    api_events_free(ev, n);
    api_resp_free(r);

    /* label selector */
    r = api_call_stream(env, "GET", CM "?watch=1&timeoutSeconds=1"
                        "&labelSelector=app%3Dy", NULL, 3000);
    n = api_events(r, ev, 8);
    assert_int_equal(n, 1);
    assert_string_equal(api_str(ev[0], "object", "metadata", "name", NULL),
                        "b");
    api_events_free(ev, n);
    api_resp_free(r);
}


typedef struct {
    api_env_t  *env;
    int         step;
} writer_t;


static void
test_watch_from_rv_and_selectors(void **state)
{
    size_t       n;
    char        *rv, path[256];
    json_t      *ev[16];
    api_env_t   *env = *state;
    api_resp_t  *r, *w;

    create(env, "w", "{\"app\":\"w\"}");

    r = api_call(env, "GET", CM, NULL, NULL, NULL);
    rv = strdup(api_str(r->json, "metadata", "resourceVersion", NULL));
    api_resp_free(r);

    /* changes made after rv: relabel out of and back into the selector */

    w = api_call(env, "PATCH", CM "/w", "application/merge-patch+json",
                 "{\"metadata\":{\"labels\":{\"app\":\"other\"}}}", NULL);
    assert_int_equal(w->status, 200);
    api_resp_free(w);

    w = api_call(env, "PATCH", CM "/w", "application/merge-patch+json",
                 "{\"metadata\":{\"labels\":{\"app\":\"w\"}}}", NULL);
    api_resp_free(w);

    w = api_call(env, "PATCH", CM "/w", "application/merge-patch+json",
                 "{\"data\":{\"k\":\"2\"}}", NULL);
    api_resp_free(w);

    w = api_call(env, "DELETE", CM "/w", NULL, NULL, NULL);
    assert_int_equal(w->status, 200);
    api_resp_free(w);

    snprintf(path, sizeof(path), CM "?watch=1&resourceVersion=%s"
             "&labelSelector=app%%3Dw&timeoutSeconds=1", rv);
    r = api_call_stream(env, "GET", path, NULL, 3000);

    n = api_events(r, ev, 16);
    assert_int_equal(n, 4);
    assert_string_equal(api_str(ev[0], "type", NULL), "DELETED");
    /* leaving the selection shows the state before (as kube-apiserver) */
    assert_string_equal(api_str(ev[0], "object", "metadata", "labels", "app",
                                NULL), "w");
    assert_string_equal(api_str(ev[1], "type", NULL), "ADDED");
    assert_string_equal(api_str(ev[2], "type", NULL), "MODIFIED");
    assert_string_equal(api_str(ev[2], "object", "data", "k", NULL), "2");
    assert_string_equal(api_str(ev[3], "type", NULL), "DELETED");

    /* the deletion carries its own revision, after the last change */
    assert_true(atoll(api_str(ev[3], "object", "metadata", "resourceVersion",
                              NULL))
                > atoll(api_str(ev[2], "object", "metadata",
                                "resourceVersion", NULL)));

    api_events_free(ev, n);
    api_resp_free(r);
    free(rv);
}


static void
test_watch_bookmarks_initial_events(void **state)
{
    size_t       n;
    json_t      *ev[8];
    api_env_t   *env = *state;
    api_resp_t  *r;

    create(env, "i1", "{}");

    r = api_call_stream(env, "GET", CM "?watch=1&sendInitialEvents=true"
                        "&resourceVersionMatch=NotOlderThan"
                        "&allowWatchBookmarks=true&timeoutSeconds=1", NULL,
                        3000);
    n = api_events(r, ev, 8);
    assert_true(n >= 2);
    assert_string_equal(api_str(ev[0], "type", NULL), "ADDED");
    assert_string_equal(api_str(ev[1], "type", NULL), "BOOKMARK");
    assert_string_equal(api_str(ev[1], "object", "metadata", "annotations",
                                "k8s.io/initial-events-end", NULL), "true");
    api_events_free(ev, n);
    api_resp_free(r);

    /* sendInitialEvents without resourceVersionMatch: 422 */
    r = api_call(env, "GET", CM "?watch=1&sendInitialEvents=true", NULL,
                 NULL, NULL);
    assert_int_equal(r->status, 422);
    api_resp_free(r);
}


static void
test_watch_table_and_partial(void **state)
{
    size_t       n;
    json_t      *ev[8];
    api_env_t   *env = *state;
    api_resp_t  *r;

    create(env, "t1", "{}");
    create(env, "t2", "{}");

    r = api_call_stream(env, "GET", CM "?watch=1&timeoutSeconds=1", NULL,
                        3000);
    api_resp_free(r);

    r = api_call_stream(env, "GET", CM "?watch=1&timeoutSeconds=1",
                        "application/json;as=Table;v=v1;g=meta.k8s.io",
                        3000);
    n = api_events(r, ev, 8);
    assert_int_equal(n, 2);
    assert_string_equal(api_str(ev[0], "object", "kind", NULL), "Table");
    assert_true(json_is_array(json_object_get(json_object_get(ev[0],
                "object"), "columnDefinitions")));
    assert_true(json_is_null(json_object_get(json_object_get(ev[1],
                "object"), "columnDefinitions")));
    api_events_free(ev, n);
    api_resp_free(r);

    r = api_call_stream(env, "GET", CM "?watch=1&timeoutSeconds=1",
        "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
        3000);
    n = api_events(r, ev, 8);
    assert_int_equal(n, 2);
    assert_string_equal(api_str(ev[0], "object", "kind", NULL),
                        "PartialObjectMetadata");
    assert_null(json_object_get(json_object_get(ev[0], "object"), "data"));
    api_events_free(ev, n);
    api_resp_free(r);

    /* YAML has no stream encoding: 406, the Status in YAML; JSON first */
    /* is served */

    r = api_call_stream(env, "GET", CM "?watch=1&timeoutSeconds=1",
                        "application/yaml, application/json", 3000);
    assert_int_equal(r->status, 406);
    assert_string_equal(r->content_type, "application/yaml");
    assert_non_null(strstr(r->body, "message: 'only the following media "
                           "types are accepted: application/json;stream="
                           "watch,\n  application/vnd.kubernetes.protobuf;"
                           "stream=watch'\n"));
    assert_non_null(strstr(r->body, "reason: NotAcceptable\n"));
    api_resp_free(r);

    r = api_call_stream(env, "GET", CM "?watch=1&timeoutSeconds=1",
                        "application/json, application/yaml", 3000);
    assert_int_equal(r->status, 200);
    n = api_events(r, ev, 8);
    assert_int_equal(n, 2);
    api_events_free(ev, n);
    api_resp_free(r);
}


static void
compacted_done(void *arg, gcp_store_result_t *res)
{
    *(int *) arg = 1;
}


static void
test_watch_compacted(void **state)
{
    int          done;
    size_t       n;
    int64_t      rev;
    json_t      *ev[4];
    api_env_t   *env = *state;
    api_resp_t  *r;
    gcp_arena_t *a;

    create(env, "c1", "{}");
    create(env, "c2", "{}");

    r = api_call(env, "GET", CM, NULL, NULL, NULL);
    rev = atoll(api_str(r->json, "metadata", "resourceVersion", NULL));
    api_resp_free(r);

    a = gcp_arena_create(0);
    done = 0;
    gcp_store_compact(api_env_store(env), rev, a, compacted_done, &done);

    while (!done) {
        api_spin(env, 10);
    }

    gcp_arena_destroy(a);

    r = api_call_stream(env, "GET", CM "?watch=1&resourceVersion=1"
                        "&timeoutSeconds=2", NULL, 3000);
    assert_int_equal(r->status, 200);
    assert_true(r->ended);
    n = api_events(r, ev, 4);
    assert_int_equal(n, 1);
    assert_string_equal(api_str(ev[0], "type", NULL), "ERROR");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(
        ev[0], "object"), "code")), 410);
    assert_string_equal(api_str(ev[0], "object", "reason", NULL), "Expired");
    api_events_free(ev, n);
    api_resp_free(r);

    /* a list at the compacted revision: 410 too */
    r = api_call(env, "GET", CM "?resourceVersion=1"
                 "&resourceVersionMatch=Exact", NULL, NULL, NULL);
    assert_int_equal(r->status, 410);
    api_resp_free(r);
}


/* A continue token {"v":"meta.k8s.io/v1","rv":REV,"start":START} as a */
/* query value (base64url without padding). */

static const char *
token(gcp_arena_t *a, int64_t rev, const char *start, size_t len)
{
    char       json[256];
    int        n;
    gcp_buf_t  b;

    n = snprintf(json, sizeof(json), "{\"v\":\"meta.k8s.io/v1\",\"rv\":%lld,"
                 "\"start\":\"", (long long) rev);
    memcpy(json + n, start, len);
    n += (int) len;
    n += snprintf(json + n, sizeof(json) - (size_t) n, "\"}");

    gcp_buf_init(&b, a);
    gcp_base64_encode_buf(&b, json, (size_t) n, GCP_BASE64_RAWURL);

    return gcp_buf_cstr(&b);
}


static json_t *
decoded_token(gcp_arena_t *a, const char *t)
{
    gcp_str_t    raw;
    const char  *msg;

    assert_int_equal(gcp_base64_decode_mode(a, t, strlen(t),
                                            GCP_BASE64_RAWURL, &raw, &msg),
                     GCP_OK);

    return json_loadb(raw.data, raw.len, JSON_ALLOW_NUL, NULL);
}


/*
 * A continue token whose start key is "/" (the collection's beginning)
 * lists from the start while its revision exists; once compacted it is
 * 410 Expired with a fresh token, as upstream (the start key's length
 * equals the prefix's: this used to underflow and kill the worker).  A
 * token whose key lacks etcd's trailing NUL keeps that key too.
 */

static void
test_list_continue_compacted(void **state)
{
    int           done;
    char          path[512];
    int64_t       rev;
    json_t       *t;
    api_env_t    *env = *state;
    api_resp_t   *r;
    gcp_arena_t  *a;

    create(env, "c1", "{}");
    create(env, "c2", "{}");

    r = api_call(env, "GET", CM, NULL, NULL, NULL);
    rev = atoll(api_str(r->json, "metadata", "resourceVersion", NULL));
    api_resp_free(r);

    a = gcp_arena_create(0);

    snprintf(path, sizeof(path), CM "?limit=1&continue=%s",
             token(a, rev, "/", 1));
    r = api_call(env, "GET", path, NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(json_array_get(json_object_get(r->json,
                                    "items"), 0), "metadata", "name", NULL),
                        "c1");
    api_resp_free(r);

    create(env, "c3", "{}");            /* rev is now older than current */

    done = 0;
    gcp_store_compact(api_env_store(env), rev + 1, a, compacted_done, &done);

    while (!done) {
        api_spin(env, 10);
    }

    /* namespaced and cluster-scoped, with and without limit */

    {
        static const char  *paths[] = {
            CM "?limit=1&continue=%s", CM "?continue=%s",
            "/api/v1/namespaces?limit=1&continue=%s",
            "/api/v1/namespaces?continue=%s",
        };
        size_t  i;

        for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
            snprintf(path, sizeof(path), paths[i], token(a, rev, "/", 1));
            r = api_call(env, "GET", path, NULL, NULL, NULL);
            assert_int_equal(r->status, 410);
            assert_string_equal(api_str(r->json, "reason", NULL), "Expired");

            t = decoded_token(a, api_str(r->json, "metadata", "continue",
                                         NULL));
            assert_non_null(t);
            assert_int_equal(json_integer_value(json_object_get(t, "rv")),
                             -1);
            assert_int_equal(json_string_length(json_object_get(t,
                                                                "start")), 0);
            json_decref(t);
            api_resp_free(r);
        }
    }

    /* the usual token (KEY "\0") and one without the NUL keep their key */

    snprintf(path, sizeof(path), CM "?continue=%s",
             token(a, rev, "/c1\\u0000", 9));
    r = api_call(env, "GET", path, NULL, NULL, NULL);
    assert_int_equal(r->status, 410);
    t = decoded_token(a, api_str(r->json, "metadata", "continue", NULL));
    assert_int_equal(json_string_length(json_object_get(t, "start")), 3);
    assert_memory_equal(json_string_value(json_object_get(t, "start")),
                        "c1\0", 3);
    json_decref(t);
    api_resp_free(r);

    snprintf(path, sizeof(path), CM "?continue=%s", token(a, rev, "c1", 2));
    r = api_call(env, "GET", path, NULL, NULL, NULL);
    assert_int_equal(r->status, 410);
    t = decoded_token(a, api_str(r->json, "metadata", "continue", NULL));
    assert_string_equal(json_string_value(json_object_get(t, "start")),
                        "c1");
    json_decref(t);
    api_resp_free(r);

    /* the server is still serving */

    r = api_call(env, "GET", CM, NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "items")), 3);
    api_resp_free(r);

    gcp_arena_destroy(a);
}


/* The longest timer asked of the loop (a wrapper of its timer_add). */

static uint64_t             longest_timer;
static gcp_loop_timer_t  *(*timer_add_orig)(gcp_loop_t *loop, uint64_t ms,
    gcp_loop_timer_pt handler, void *arg);


static gcp_loop_timer_t *
timer_add_recorded(gcp_loop_t *loop, uint64_t ms, gcp_loop_timer_pt handler,
    void *arg)
{
    if (ms > longest_timer) {
        longest_timer = ms;
    }

    return timer_add_orig(loop, ms, handler, arg);
}


/*
 * timeoutSeconds beyond GCP_WATCH_TIMEOUT_MAX is cut to it (its
 * milliseconds used to overflow, and the watch had no end); a negative one
 * ends the watch at once, as upstream's timer of a negative duration.
 */

static void
test_watch_timeout_bounds(void **state)
{
    api_env_t   *env = *state;
    gcp_loop_t  *loop = api_env_loop(env);
    api_resp_t  *r;

    timer_add_orig = loop->timer_add;
    loop->timer_add = timer_add_recorded;
    longest_timer = 0;

    r = api_call_stream(env, "GET", CM "?watch=1&allowWatchBookmarks=true"
                        "&timeoutSeconds=9223372036854775807", NULL, 100);
    assert_int_equal(r->status, 200);
    assert_false(r->ended);
    assert_int_equal(longest_timer, GCP_WATCH_TIMEOUT_MAX * 1000);
    api_resp_free(r);

    longest_timer = 0;
    r = api_call_stream(env, "GET", CM "?watch=1&timeoutSeconds=90", NULL,
                        100);
    assert_int_equal(longest_timer, 90000);
    api_resp_free(r);

    r = api_call_stream(env, "GET", CM "?watch=1&timeoutSeconds=-1", NULL,
                        30000);
    assert_int_equal(r->status, 200);
    assert_true(r->ended);
    api_resp_free(r);

    loop->timer_add = timer_add_orig;
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test_setup_teardown(test_watch_initial_and_timeout,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_watch_from_rv_and_selectors,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_watch_bookmarks_initial_events,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_watch_table_and_partial,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_watch_compacted, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_list_continue_compacted, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_watch_timeout_bounds, setup,
                                        teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
