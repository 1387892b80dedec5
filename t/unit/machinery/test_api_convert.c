
/*
 * Unit tests: the registry and watches with a strategy that converts by
 * calling out (as CRD conversion webhooks do): a test resource served as
 * conv.test/v2 and stored as conv.test/v1 (v2 spec.amount is v1
 * spec.count), its conversion answered later from a loop timer.  Writes
 * convert the request's object to the storage version and the answer
 * back; watches deliver converted events in order, in batches, bookmarks
 * behind them, and end with an ERROR event when a conversion fails; a
 * watch that goes while its conversion runs frees nothing under it.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support_api.h"
#include "gcp_json.h"
#include "gcp_reg.h"
#include "gcp_registry.h"


#define W      "/apis/conv.test/v2/namespaces/default/widgets"
#define JSON   "application/json"


/* ------------------------------------------------ the converting strategy */


static struct {
    int          fail;
    size_t       calls;
    size_t       batch[64];         /* objects per call */
    unsigned     flags[64];
    gcp_loop_t  *loop;
} conv;


typedef struct {
    gcp_arena_t     *a;
    json_t         **objs;
    size_t           n;
    unsigned         flags;
    gcp_convert_pt   done;
    void            *arg;
} conv_call_t;


static void
conv_rename(json_t *obj, const char *from, const char *to)
{
    json_t  *spec, *v;

    spec = json_object_get(obj, "spec");
    v = json_object_get(spec, from);

    if (v) {
        json_object_set(spec, to, v);
        json_object_del(spec, from);
    }
}


static void
conv_answer(void *arg)
{
    size_t        i;
    json_t       *obj;
    conv_call_t  *c = arg;
    int           to_storage = (c->flags & GCP_CONVERT_TO_STORAGE) != 0;

    if (conv.fail) {
        c->done(c->arg, GCP_EINTERNAL, "conversion webhook for "
                "conv.test/v1, Kind=Widget failed: refused");
        return;
    }

    for (i = 0; i < c->n; i++) {
        obj = gcp_json_deep_copy(c->objs[i]);
        assert_non_null(obj);
        assert_string_equal(json_string_value(json_object_get(obj,
                                                              "apiVersion")),
                            to_storage ? "conv.test/v2" : "conv.test/v1");

        json_object_set_new(obj, "apiVersion",
                            json_string(to_storage ? "conv.test/v1"
                                                   : "conv.test/v2"));
        conv_rename(obj, to_storage ? "amount" : "count",
                    to_storage ? "count" : "amount");

        c->objs[i] = gcp_json_arena(c->a, obj);
    }

    c->done(c->arg, GCP_OK, NULL);
}


static int
conv_converts(gcp_op_t *op)
{
    return 1;
}


static void
conv_convert(gcp_op_t *op, gcp_arena_t *a, json_t **objs, size_t n,
    unsigned flags, gcp_convert_pt done, void *arg)
{
    conv_call_t  *c;

    c = gcp_calloc(a, sizeof(conv_call_t));
    assert_non_null(c);

    c->a = a;
    c->objs = objs;
    c->n = n;
    c->flags = flags;
    c->done = done;
    c->arg = arg;

    if (conv.calls < 64) {
        conv.batch[conv.calls] = n;
        conv.flags[conv.calls] = flags;
    }

    conv.calls++;

    /* answered later, as a webhook is */
    assert_non_null(conv.loop->timer_add(conv.loop, 20, conv_answer, c));
}


static json_t *
conv_to_external(gcp_op_t *op, const json_t *stored)
{
    return gcp_json_deep_copy(stored);
}


static json_t *
conv_to_internal(gcp_op_t *op, const json_t *obj, const char **msg)
{
    json_t  *in;

    in = gcp_json_deep_copy(obj);
    if (in) {
        json_object_set_new(in, "apiVersion", json_string("conv.test/v1"));
    }

    return in;
}


static const gcp_strategy_t  conv_strategy = {
    .to_external = conv_to_external,
    .to_internal = conv_to_internal,
    .converts = conv_converts,
    .convert = conv_convert,
};


static const gcp_column_t  no_columns[1];
static const char * const  no_names[] = { NULL };


static const gcp_resource_t  widgets = {
    .group = "conv.test",
    .version = "v2",
    .name = "widgets",
    .singular = "widget",
    .kind = "Widget",
    .list_kind = "WidgetList",
    .short_names = no_names,
    .categories = no_names,
    .namespaced = 1,
    .unstructured = 1,
    .verbs = GCP_VERBS_CRUD,
    .schema = "test.conv.v2.Widget",
    .list_schema = "test.conv.v2.WidgetList",
    .storage = "conv.test/widgets",
    .storage_version_hash = "test",
    .columns = no_columns,
    .ncolumns = 0,
    .strategy = &conv_strategy,
};


/* ------------------------------------------------------------- helpers */


static int
setup(void **state)
{
    api_env_t  *env;

    env = api_env_create();
    assert_int_equal(gcp_registry_add(api_env_api(env)->registry, &widgets),
                     GCP_OK);

    memset(&conv, 0, sizeof(conv));
    conv.loop = api_env_loop(env);

    *state = env;
    return 0;
}


static int
teardown(void **state)
{
    api_env_destroy(*state);
    return 0;
}


static char *
create(api_env_t *env, const char *name, int amount)
{
    char         body[256], *rv;
    api_resp_t  *r;

    snprintf(body, sizeof(body), "{\"apiVersion\":\"conv.test/v2\","
             "\"kind\":\"Widget\",\"metadata\":{\"name\":\"%s\"},"
             "\"spec\":{\"amount\":%d}}", name, amount);
    r = api_call(env, "POST", W, JSON, body, NULL);
    assert_int_equal(r->status, 201);
    rv = strdup(api_str(r->json, "metadata", "resourceVersion", NULL));
    api_resp_free(r);

    return rv;
}


/* What the store holds under the widget's key. */

typedef struct {
    int      done;
    json_t  *obj;
} got_t;


static void
got(void *arg, gcp_store_result_t *res)
{
    got_t  *g = arg;

    g->done = 1;

    if (res->rc == GCP_OK && res->nkvs == 1) {
        g->obj = json_loadb(res->kvs[0].value.data, res->kvs[0].value.len,
                            0, NULL);
    }
}


static json_t *
stored(api_env_t *env, const char *name)
{
    char          key[128];
    got_t         g;
    gcp_str_t     k;
    gcp_arena_t  *a;

    snprintf(key, sizeof(key), "/registry/conv.test/widgets/default/%s",
             name);

    k.data = key;
    k.len = strlen(key);

    memset(&g, 0, sizeof(g));
    a = gcp_arena_create(0);
    assert_non_null(a);

    gcp_store_get(api_env_store(env), k, 0, a, got, &g);

    while (!g.done) {
        api_spin(env, 10);
    }

    gcp_arena_destroy(a);
    assert_non_null(g.obj);

    return g.obj;
}


/* --------------------------------------------------------------- tests */


static void
test_writes_convert_both_ways(void **state)
{
    json_t      *s;
    api_env_t   *env = *state;
    api_resp_t  *r;
    char        *rv;

    rv = create(env, "a", 3);
    free(rv);

    /* to the storage version, then the answer back */
    assert_int_equal(conv.calls, 2);
    assert_int_equal(conv.flags[0], GCP_CONVERT_TO_STORAGE);
    assert_int_equal(conv.flags[1], 0);

    s = stored(env, "a");
    assert_string_equal(api_str(s, "apiVersion", NULL), "conv.test/v1");
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(s, "spec"), "count")), 3);
    assert_null(json_object_get(json_object_get(s, "spec"), "amount"));
    json_decref(s);

    /* a JSON patch sees the stored object in the request's version */
    r = api_call(env, "PATCH", W "/a", "application/json-patch+json",
                 "[{\"op\":\"test\",\"path\":\"/spec/amount\",\"value\":3},"
                 "{\"op\":\"replace\",\"path\":\"/spec/amount\","
                 "\"value\":5}]", NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "apiVersion", NULL),
                        "conv.test/v2");
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(r->json, "spec"), "amount")), 5);
    api_resp_free(r);

    s = stored(env, "a");
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(s, "spec"), "count")), 5);
    json_decref(s);

    /* GET, LIST and DELETE answer in the request's version */
    r = api_call(env, "GET", W "/a", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "apiVersion", NULL),
                        "conv.test/v2");
    api_resp_free(r);

    r = api_call(env, "DELETE", W, NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "items")), 1);
    assert_string_equal(api_str(json_array_get(json_object_get(r->json,
                                                               "items"), 0),
                                "apiVersion", NULL), "conv.test/v2");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(
                         json_array_get(json_object_get(r->json, "items"),
                                        0), "spec"), "amount")), 5);
    api_resp_free(r);
}


/*
 * A delete reads the object in the request's version, as upstream's store
 * does through its codec: a failed conversion fails it, and a delete
 * answered with a Status converts nothing more.
 */
static void
test_delete_reads_converted(void **state)
{
    json_t      *s;
    api_env_t   *env = *state;
    api_resp_t  *r;

    free(create(env, "d", 4));

    conv.fail = 1;
    r = api_call(env, "DELETE", W "/d", NULL, NULL, NULL);
    assert_int_equal(r->status, 500);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "conversion webhook for conv.test/v1, Kind=Widget "
                        "failed: refused");
    api_resp_free(r);
    conv.fail = 0;

    s = stored(env, "d");
    json_decref(s);

    conv.calls = 0;
    r = api_call(env, "DELETE", W "/d", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "kind", NULL), "Status");
    assert_string_equal(api_str(r->json, "status", NULL), "Success");
    api_resp_free(r);

    assert_int_equal(conv.calls, 1);
    assert_int_equal(conv.flags[0], 0);

    r = api_call(env, "GET", W "/d", NULL, NULL, NULL);
    assert_int_equal(r->status, 404);
    api_resp_free(r);
}


static void
test_failed_conversion_writes_nothing(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;

    conv.fail = 1;

    r = api_call(env, "POST", W, JSON, "{\"apiVersion\":\"conv.test/v2\","
                 "\"kind\":\"Widget\",\"metadata\":{\"name\":\"x\"},"
                 "\"spec\":{\"amount\":1}}", NULL);
    assert_int_equal(r->status, 500);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "conversion webhook for conv.test/v1, Kind=Widget "
                        "failed: refused");
    assert_null(json_object_get(r->json, "reason"));
    api_resp_free(r);

    conv.fail = 0;

    r = api_call(env, "GET", W "/x", NULL, NULL, NULL);
    assert_int_equal(r->status, 404);
    api_resp_free(r);
}


static void
test_watch_in_order_batched(void **state)
{
    size_t       i, n, calls;
    char        *rv, path[256];
    json_t      *ev[16];
    api_env_t   *env = *state;
    api_resp_t  *r;

    rv = create(env, "first", 0);

    for (i = 1; i <= 5; i++) {
        snprintf(path, sizeof(path), "w%zu", i);
        free(create(env, path, (int) i));
    }

    r = api_call(env, "DELETE", W "/w1", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    calls = conv.calls;

    /* replayed from rv at once: converted in few calls, in order */
    snprintf(path, sizeof(path), W "?watch=1&resourceVersion=%s"
             "&timeoutSeconds=2&allowWatchBookmarks=true", rv);
    r = api_call_stream(env, "GET", path, NULL, 4000);
    free(rv);

    n = api_events(r, ev, 16);
    assert_int_equal(n, 6);

    for (i = 0; i < 5; i++) {
        assert_string_equal(api_str(ev[i], "type", NULL), "ADDED");
        assert_string_equal(api_str(ev[i], "object", "apiVersion", NULL),
                            "conv.test/v2");
        assert_int_equal(json_integer_value(json_object_get(json_object_get(
                             json_object_get(ev[i], "object"), "spec"),
                             "amount")), (json_int_t) i + 1);
        assert_null(json_object_get(json_object_get(json_object_get(ev[i],
                                                                    "object"),
                                                    "spec"), "count"));
    }

    assert_string_equal(api_str(ev[5], "type", NULL), "DELETED");
    assert_string_equal(api_str(ev[5], "object", "metadata", "name", NULL),
                        "w1");
    assert_string_equal(api_str(ev[5], "object", "apiVersion", NULL),
                        "conv.test/v2");

    /* the first event alone, the others behind it in one review */
    assert_true(conv.calls - calls <= 3);
    assert_true(conv.calls - calls >= 2);
    assert_int_equal(conv.batch[calls], 1);

    api_events_free(ev, n);
    api_resp_free(r);
}


static void
test_watch_initial_events_then_bookmark(void **state)
{
    size_t       n;
    json_t      *ev[8];
    api_env_t   *env = *state;
    api_resp_t  *r;

    free(create(env, "a", 1));
    free(create(env, "b", 2));

    /* the initial-events-end bookmark waits behind the ADDED events */
    r = api_call_stream(env, "GET", W "?watch=1&sendInitialEvents=true"
                        "&resourceVersionMatch=NotOlderThan"
                        "&allowWatchBookmarks=true&timeoutSeconds=1",
                        NULL, 3000);

    n = api_events(r, ev, 8);
    assert_true(n >= 3);
    assert_string_equal(api_str(ev[0], "type", NULL), "ADDED");
    assert_string_equal(api_str(ev[0], "object", "apiVersion", NULL),
                        "conv.test/v2");
    assert_string_equal(api_str(ev[1], "type", NULL), "ADDED");
    assert_string_equal(api_str(ev[2], "type", NULL), "BOOKMARK");
    assert_string_equal(api_str(ev[2], "object", "metadata", "annotations",
                                "k8s.io/initial-events-end", NULL), "true");

    api_events_free(ev, n);
    api_resp_free(r);
}


static void
test_watch_failure_and_cancel(void **state)
{
    size_t       n;
    char        *rv, path[256];
    json_t      *ev[8];
    api_env_t   *env = *state;
    api_resp_t  *r;

    rv = create(env, "a", 1);
    free(create(env, "b", 2));

    conv.fail = 1;

    snprintf(path, sizeof(path), W "?watch=1&resourceVersion=%s", rv);
    r = api_call_stream(env, "GET", path, NULL, 3000);

    /* the conversion failed: an ERROR event ends the watch */
    assert_true(r->ended);
    n = api_events(r, ev, 8);
    assert_int_equal(n, 1);
    assert_string_equal(api_str(ev[0], "type", NULL), "ERROR");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(
                         ev[0], "object"), "code")), 500);
    assert_string_equal(api_str(ev[0], "object", "reason", NULL),
                        "InternalError");
    assert_string_equal(api_str(ev[0], "object", "message", NULL),
                        "Internal error occurred: conversion webhook for "
                        "conv.test/v1, Kind=Widget failed: refused");
    api_events_free(ev, n);
    api_resp_free(r);

    conv.fail = 0;

    /* the client goes while a conversion runs: answered after, unused */
    r = api_call_stream(env, "GET", path, NULL, 5);
    assert_false(r->ended);
    api_resp_free(r);
    free(rv);

    api_spin(env, 200);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test_setup_teardown(test_writes_convert_both_ways,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_conversion_writes_nothing,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete_reads_converted,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_watch_in_order_batched,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_watch_initial_events_then_bookmark, setup, teardown),
        cmocka_unit_test_setup_teardown(test_watch_failure_and_cancel,
                                        setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
