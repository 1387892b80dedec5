
/*
 * Unit tests: a watch whose client goes away while its initial list is
 * still in the store (etcd answering later): the core keeps the request's
 * memory until the list is back, then ends the stream once and writes
 * nothing more.  Freed at the cancel, the arena was read by the store's
 * callback (heap-use-after-free under ASan).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support_api.h"


#define CM   "/api/v1/namespaces/default/configmaps"
#define JSON "application/json"


/* Ranges of configmaps answered 200 ms late. */

typedef struct {
    gcp_store_t        *store;
    gcp_str_t           key;
    gcp_str_t           range_end;
    int64_t             revision;
    int64_t             limit;
    int                 count_only;
    gcp_arena_t        *a;
    gcp_store_done_pt   done;
    void               *arg;
} held_range_t;


static gcp_loop_t  *loop;
static int          held, answered;


static void
range_answer(void *arg)
{
    held_range_t  *h = arg;

    answered++;
    api_store_range(h->store, h->key, h->range_end, h->revision, h->limit,
                    h->count_only, h->a, h->done, h->arg);
    free(h);
}


static void
range_late(gcp_store_t *s, gcp_str_t key, gcp_str_t range_end,
    int64_t revision, int64_t limit, int count_only, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg)
{
    held_range_t  *h;

    h = calloc(1, sizeof(held_range_t));
    assert_non_null(h);

    *h = (held_range_t) { s, key, range_end, revision, limit, count_only, a,
                          done, arg };
    held++;

    assert_non_null(loop->timer_add(loop, 200, range_answer, h));
}


static void
create(api_env_t *env, const char *name)
{
    char         body[128];
    api_resp_t  *r;

    snprintf(body, sizeof(body),
             "{\"metadata\":{\"name\":\"%s\"},\"data\":{\"k\":\"v\"}}", name);
    r = api_call(env, "POST", CM, JSON, body, NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);
}


static void
test_cancel_during_initial_list(void **state)
{
    api_env_t   *env;
    api_resp_t  *r;

    env = api_env_create();
    loop = api_env_loop(env);

    create(env, "one");
    create(env, "two");

    api_store_intercept_range(env, "configmaps", range_late);
    held = answered = 0;

    /* the client goes away 20 ms in, the list comes back at 200 ms */

    r = api_call_stream(env, "GET", CM "?watch=1", JSON, 20);

    assert_int_equal(r->status, 200);
    assert_int_equal(held, 1);
    assert_true(r->cancel_held);
    assert_int_equal(answered, 1);
    assert_true(r->ended);
    assert_int_equal(r->late_bytes, 0);
    assert_int_equal(r->len, 0);
    api_resp_free(r);

    /* a watch whose list is back by then is let go at once */

    api_store_intercept_range(env, NULL, NULL);

    r = api_call_stream(env, "GET", CM "?watch=1", JSON, 20);

    assert_int_equal(r->status, 200);
    assert_false(r->cancel_held);
    assert_false(r->ended);
    assert_non_null(strstr(r->body, "\"name\":\"two\""));
    api_resp_free(r);

    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_cancel_during_initial_list),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
