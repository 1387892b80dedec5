
/*
 * Unit tests: the Table row cache (core/machinery/gcp_table.c): rows
 * served again from the cache, never a stale one after a change of the
 * object, ages that move on with the clock, watches' rows, whole lists'
 * rows.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "support_api.h"
#include "gcp_op.h"
#include "gcp_table.h"
#include "gcp_time.h"


#define CM     "/api/v1/namespaces/default/configmaps"
#define TABLE  "application/json;as=Table;v=v1;g=meta.k8s.io"


static int
setup(void **state)
{
    *state = api_env_create();
    return 0;
}


static int
teardown(void **state)
{
    gcp_time_set_fake(NULL);
    api_env_destroy(*state);
    return 0;
}


static uint64_t
row_hits(api_env_t *env)
{
    uint64_t  cached, made;

    gcp_table_stats(&cached, &made);

    return cached;
}


static void
fake_time(time_t sec, long nsec)
{
    struct timespec  ts;

    ts.tv_sec = sec;
    ts.tv_nsec = nsec;
    gcp_time_set_fake(&ts);
}


/* The row of name in a Table list; asserts it is there. */
static json_t *
row_of(json_t *table, const char *name)
{
    size_t   i;
    json_t  *row;

    json_array_foreach(json_object_get(table, "rows"), i, row) {
        if (strcmp(json_string_value(json_array_get(
                json_object_get(row, "cells"), 0)), name) == 0)
        {
            return row;
        }
    }

    fail_msg("no row for %s", name);
    return NULL;
}


static void
test_changed_object_never_stale(void **state)
{
    int          i, k, n;
    char         body[1024], data[768];
    size_t       len;
    json_t      *row;
    uint64_t     hits;
    api_env_t   *env = *state;
    api_resp_t  *r, *t;
    const char  *rv;

    srand(3);

    for (i = 0; i < 5; i++) {
        snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"c%d\"},"
                 "\"data\":{\"k\":\"v\"}}", i);
        r = api_call(env, "POST", CM, "application/json", body, NULL);
        assert_int_equal(r->status, 201);
        api_resp_free(r);
    }

    /* the same list twice: the second from the cache */
    r = api_call(env, "GET", CM, NULL, NULL, TABLE);
    assert_int_equal(r->status, 200);
    api_resp_free(r);
    hits = row_hits(env);
    r = api_call(env, "GET", CM, NULL, NULL, TABLE);
    assert_int_equal(r->status, 200);
    api_resp_free(r);
    assert_true(row_hits(env) >= hits + 5);

    for (k = 0; k < 60; k++) {
        i = rand() % 5;
        n = 1 + rand() % 6;

        len = 0;
        for (int j = 0; j < n; j++) {
            len += (size_t) snprintf(data + len, sizeof(data) - len,
                                     "%s\"k%d\":\"%d\"", j ? "," : "", j, k);
        }

        snprintf(body, sizeof(body), "{\"metadata\":{\"labels\":"
                 "{\"step\":\"%d\"}},\"data\":{%s}}", k, data);
        snprintf(data, sizeof(data), CM "/c%d", i);

        /* the whole data replaced: a JSON merge patch of data = null */
        r = api_call(env, "PATCH", data, "application/merge-patch+json",
                      "{\"data\":null}", NULL);
        assert_int_equal(r->status, 200);
        api_resp_free(r);

        r = api_call(env, "PATCH", data, "application/merge-patch+json",
                     body, NULL);
        assert_int_equal(r->status, 200);
        rv = api_str(r->json, "metadata", "resourceVersion", NULL);

        /* the list and the single object, as Tables */
        t = api_call(env, "GET", CM, NULL, NULL, TABLE);
        assert_int_equal(t->status, 200);
        snprintf(body, sizeof(body), "c%d", i);
        row = row_of(t->json, body);
        assert_int_equal(json_integer_value(json_array_get(
            json_object_get(row, "cells"), 1)), n);
        assert_string_equal(api_str(row, "object", "metadata",
                                    "resourceVersion", NULL), rv);
        snprintf(body, sizeof(body), "%d", k);
        assert_string_equal(api_str(row, "object", "metadata", "labels",
                                    "step", NULL), body);
        api_resp_free(t);

        t = api_call(env, "GET", data, NULL, NULL, TABLE);
        assert_int_equal(t->status, 200);
        assert_int_equal(json_integer_value(json_array_get(json_object_get(
            json_array_get(json_object_get(t->json, "rows"), 0), "cells"),
            1)), n);
        api_resp_free(t);

        api_resp_free(r);
    }
}


static void
test_ages_move_on(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;
    uint64_t     hits;

    fake_time(1800000000, 0);

    r = api_call(env, "POST", CM, "application/json",
                 "{\"metadata\":{\"name\":\"aged\"}}", NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);

    fake_time(1800000005, 200000000);
    r = api_call(env, "GET", CM "/aged", NULL, NULL, TABLE);
    assert_string_equal(json_string_value(json_array_get(json_object_get(
        json_array_get(json_object_get(r->json, "rows"), 0), "cells"), 2)),
        "5s");
    api_resp_free(r);

    /* within the same second: the cached row */
    hits = row_hits(env);
    fake_time(1800000005, 900000000);
    r = api_call(env, "GET", CM "/aged", NULL, NULL, TABLE);
    assert_string_equal(json_string_value(json_array_get(json_object_get(
        json_array_get(json_object_get(r->json, "rows"), 0), "cells"), 2)),
        "5s");
    api_resp_free(r);
    assert_int_equal(row_hits(env), hits + 1);

    /* the next second: a new age */
    fake_time(1800000006, 0);
    r = api_call(env, "GET", CM "?fieldSelector=metadata.name%3Daged", NULL,
                 NULL, TABLE);
    assert_string_equal(json_string_value(json_array_get(json_object_get(
        json_array_get(json_object_get(r->json, "rows"), 0), "cells"), 2)),
        "6s");
    api_resp_free(r);

    /* and that row is served again within its second */
    hits = row_hits(env);
    fake_time(1800000006, 500000000);
    r = api_call(env, "GET", CM "/aged", NULL, NULL, TABLE);
    assert_string_equal(json_string_value(json_array_get(json_object_get(
        json_array_get(json_object_get(r->json, "rows"), 0), "cells"), 2)),
        "6s");
    api_resp_free(r);
    assert_int_equal(row_hits(env), hits + 1);

    /* hours later the row lasts to the next minute of its age */
    fake_time(1800000000 + 5 * 3600 + 7 * 60 + 3, 0);
    r = api_call(env, "GET", CM "/aged", NULL, NULL, TABLE);
    assert_string_equal(json_string_value(json_array_get(json_object_get(
        json_array_get(json_object_get(r->json, "rows"), 0), "cells"), 2)),
        "5h7m");
    api_resp_free(r);

    fake_time(1800000000 + 5 * 3600 + 8 * 60, 0);
    r = api_call(env, "GET", CM "/aged", NULL, NULL, TABLE);
    assert_string_equal(json_string_value(json_array_get(json_object_get(
        json_array_get(json_object_get(r->json, "rows"), 0), "cells"), 2)),
        "5h8m");
    api_resp_free(r);
}


static void
test_watch_rows(void **state)
{
    api_env_t   *env = *state;
    api_resp_t  *r;
    const char  *rv;
    char         path[256];

    r = api_call(env, "POST", CM, "application/json",
                 "{\"metadata\":{\"name\":\"w\"},\"data\":{\"a\":\"1\"}}",
                 NULL);
    rv = api_str(r->json, "metadata", "resourceVersion", NULL);
    snprintf(path, sizeof(path), CM "?watch=1&resourceVersion=%s"
             "&timeoutSeconds=1", rv);
    api_resp_free(r);

    /* the row of the first version, cached by a list */
    r = api_call(env, "GET", CM, NULL, NULL, TABLE);
    api_resp_free(r);

    r = api_call(env, "PATCH", CM "/w", "application/merge-patch+json",
                 "{\"data\":{\"b\":\"2\",\"c\":\"3\"}}", NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    r = api_call(env, "GET", CM, NULL, NULL, TABLE);
    api_resp_free(r);

    r = api_call_stream(env, "GET", path, TABLE, 2000);
    assert_int_equal(r->status, 200);
    /* the MODIFIED event's row shows three keys, not the cached one */
    assert_non_null(strstr(r->body, "\"cells\":[\"w\",3,"));
    api_resp_free(r);
}


/* Cell col of each of a Table's rows, "a,b,..." (static buffer). */
static const char *
row_cells(const json_t *table, size_t col)
{
    size_t       i, len;
    json_t      *row;
    static char  out[256];

    len = 0;
    out[0] = '\0';

    json_array_foreach(json_object_get(table, "rows"), i, row) {
        len += (size_t) snprintf(out + len, sizeof(out) - len, "%s%s",
                                 i ? "," : "",
                                 json_string_value(json_array_get(
                                     json_object_get(row, "cells"), col)));
    }

    return out;
}

#define row_names(t)  row_cells(t, 0)
#define row_ages(t)   row_cells(t, 2)


/*
 * A whole list's rows, cached as one piece, are served only for the very
 * same objects at the same revisions (lists of the same length, first
 * and last key, but other items between), and not past an age's change.
 */
static void
test_list_rows(void **state)
{
    int          k;
    char         body[256];
    uint64_t     hits;
    api_env_t   *env = *state;
    api_resp_t  *r;

    static const char  *objs[][2] = {
        { "a", "3" }, { "b", "1" }, { "c", "2" }, { "d", "3" },
    };

    static const char  *lists[][2] = {
        { CM "?labelSelector=x%20in%20(1%2C3)", "a,b,d" },
        { CM "?labelSelector=x%20in%20(2%2C3)", "a,c,d" },
        { CM, "a,b,c,d" },
    };

    fake_time(1800000000, 0);

    for (k = 0; k < 4; k++) {
        snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"%s\","
                 "\"labels\":{\"x\":\"%s\"}}}", objs[k][0], objs[k][1]);
        r = api_call(env, "POST", CM, "application/json", body, NULL);
        assert_int_equal(r->status, 201);
        api_resp_free(r);
    }

    fake_time(1800000005, 100000000);

    for (k = 0; k < 12; k++) {
        r = api_call(env, "GET", lists[k % 3][0], NULL, NULL, TABLE);
        assert_int_equal(r->status, 200);
        assert_string_equal(row_names(r->json), lists[k % 3][1]);
        assert_string_equal(row_ages(r->json),
                            k % 3 == 2 ? "5s,5s,5s,5s" : "5s,5s,5s");
        api_resp_free(r);
    }

    /* the same list again within the second: every row from the cache */
    hits = row_hits(env);
    r = api_call(env, "GET", CM, NULL, NULL, TABLE);
    assert_string_equal(row_names(r->json), "a,b,c,d");
    api_resp_free(r);
    assert_int_equal(row_hits(env), hits + 4);

    /* the next second: new ages, for the whole list as for its rows */
    fake_time(1800000006, 0);
    r = api_call(env, "GET", CM, NULL, NULL, TABLE);
    assert_string_equal(row_ages(r->json), "6s,6s,6s,6s");
    api_resp_free(r);

    /* b's label changes: the lists of the same length and ends differ */
    r = api_call(env, "PATCH", CM "/b", "application/merge-patch+json",
                 "{\"metadata\":{\"labels\":{\"x\":\"2\"}}}", NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    r = api_call(env, "GET", lists[0][0], NULL, NULL, TABLE);
    assert_string_equal(row_names(r->json), "a,d");
    api_resp_free(r);

    r = api_call(env, "GET", lists[1][0], NULL, NULL, TABLE);
    assert_string_equal(row_names(r->json), "a,b,c,d");
    api_resp_free(r);

    /* c replaced by a new c: same names, another revision, its row */
    r = api_call(env, "DELETE", CM "/c", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);
    fake_time(1800000006, 500000000);
    r = api_call(env, "POST", CM, "application/json",
                 "{\"metadata\":{\"name\":\"c\",\"labels\":{\"x\":\"2\"}},"
                 "\"data\":{\"k\":\"v\"}}", NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);

    fake_time(1800000006, 600000000);
    r = api_call(env, "GET", CM, NULL, NULL, TABLE);
    assert_string_equal(row_names(r->json), "a,b,c,d");
    assert_string_equal(row_ages(r->json), "6s,6s,0s,6s");
    assert_int_equal(json_integer_value(json_array_get(json_object_get(
        row_of(r->json, "c"), "cells"), 1)), 1);
    api_resp_free(r);
}


int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_changed_object_never_stale,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_ages_move_on, setup, teardown),
        cmocka_unit_test_setup_teardown(test_watch_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_rows, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
