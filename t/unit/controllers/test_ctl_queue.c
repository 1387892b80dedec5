
/*
 * Unit tests: the controllers' building blocks: the string map
 * (core/controllers/gcp_ctl_map.c), the work queue (gcp_ctl_queue.c), the step
 * runner of syncs (gcp_ctl_steps.c) and quantities (gcp_quantity.c).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_ctl_int.h"
#include "gcp_quantity.h"


static void
test_map(void **state)
{
    int                  i, n, sum;
    char                 key[32];
    void                *v;
    const char          *k;
    gcp_ctl_map_t       *m;
    gcp_ctl_map_iter_t   it;

    m = gcp_ctl_map_create();
    assert_non_null(m);

    for (i = 0; i < 1000; i++) {
        snprintf(key, sizeof(key), "key-%d", i);
        assert_int_equal(gcp_ctl_map_put(m, key, (void *) (intptr_t) (i + 1)),
                         GCP_OK);
    }

    assert_int_equal(gcp_ctl_map_size(m), 1000);
    assert_int_equal((intptr_t) gcp_ctl_map_get(m, "key-500"), 501);
    assert_null(gcp_ctl_map_get(m, "key-1000"));

    /* replacing keeps the size */
    gcp_ctl_map_put(m, "key-500", (void *) 7);
    assert_int_equal((intptr_t) gcp_ctl_map_get(m, "key-500"), 7);
    assert_int_equal(gcp_ctl_map_size(m), 1000);

    assert_int_equal((intptr_t) gcp_ctl_map_del(m, "key-0"), 1);
    assert_null(gcp_ctl_map_del(m, "key-0"));
    assert_int_equal(gcp_ctl_map_size(m), 999);

    /* iteration sees every entry once; the current one may go */

    memset(&it, 0, sizeof(it));
    n = 0;
    sum = 0;

    while (gcp_ctl_map_next(m, &it, &k, &v)) {
        n++;
        sum += strcmp(k, "key-500") == 0;

        if ((intptr_t) v % 2 == 0) {
            gcp_ctl_map_del(m, k);
        }
    }

    assert_int_equal(n, 999);
    assert_int_equal(sum, 1);
    assert_int_equal(gcp_ctl_map_size(m), 499);

    gcp_ctl_map_free(m);
}


/* queue */


typedef struct {
    gcp_loop_t      *loop;
    int              syncs;
    int              inflight;
    int              max_inflight;
    int              fail_first;
    int              hold;          /* keep syncs open */
    gcp_ctl_item_t  *held[16];
    int              nheld;
    char             order[256];
    uint64_t         at[16];        /* loop time of each sync */
} qstate_t;


static void
q_sync(gcp_ctl_item_t *item)
{
    qstate_t  *s = item->ctx;

    if (s->syncs < 16) {
        s->at[s->syncs] = s->loop->now_ms(s->loop);
    }

    s->syncs++;
    s->inflight++;
    s->max_inflight = gcp_max(s->max_inflight, s->inflight);
    strcat(s->order, item->key);

    if (s->hold) {
        s->held[s->nheld++] = item;
        return;
    }

    s->inflight--;

    if (s->fail_first) {
        s->fail_first--;
        gcp_ctl_queue_done(item, GCP_EUNAVAILABLE, 0);
        return;
    }

    gcp_ctl_queue_done(item, GCP_OK, 0);
}


/* Runs the loop for ms, at least one turn (however late this runs). */
static void
q_spin(gcp_loop_t *loop, int ms)
{
    uint64_t  end;

    end = loop->now_ms(loop) + (uint64_t) ms;

    do {
        gcp_loop_poll_run(loop, 5);
    } while (loop->now_ms(loop) < end);
}


/* Runs the loop until *n reaches want or 5 s pass. */
static void
q_until(gcp_loop_t *loop, const int *n, int want)
{
    uint64_t  end;

    end = loop->now_ms(loop) + 5000;

    while (*n < want && loop->now_ms(loop) < end) {
        gcp_loop_poll_run(loop, 5);
    }
}


static gcp_ctl_t *
q_run(gcp_loop_t *loop)
{
    gcp_ctl_t  *ctl;

    ctl = calloc(1, sizeof(gcp_ctl_t));
    assert_non_null(ctl);

    ctl->loop = loop;
    ctl->refs = 1;

    return ctl;
}


static void
test_queue(void **state)
{
    int               i;
    uint64_t          t0;
    qstate_t          s;
    gcp_ctl_t        *ctl;
    gcp_loop_t       *loop;
    gcp_ctl_queue_t  *q;

    loop = gcp_loop_poll_create();
    ctl = q_run(loop);

    memset(&s, 0, sizeof(s));
    s.loop = loop;

    q = gcp_ctl_queue_create(ctl, "test", 2, q_sync, &s);
    assert_non_null(q);

    /* nothing runs before start, nor inside add; duplicates merge */

    gcp_ctl_queue_add(q, "a");
    gcp_ctl_queue_add(q, "b");
    gcp_ctl_queue_add(q, "a");
    q_spin(loop, 20);
    assert_int_equal(s.syncs, 0);
    assert_int_equal(gcp_ctl_queue_len(q), 2);

    gcp_ctl_queue_start(q);
    assert_int_equal(s.syncs, 0);
    q_until(loop, &s.syncs, 2);
    q_spin(loop, 20);
    assert_int_equal(s.syncs, 2);
    assert_string_equal(s.order, "ab");
    assert_int_equal(gcp_ctl_queue_len(q), 0);

    /* at most two at once; a key added while syncing runs again after */

    s.hold = 1;
    s.order[0] = '\0';

    for (i = 0; i < 5; i++) {
        gcp_ctl_queue_add(q, (const char *[]) { "c", "d", "e", "f",
                                                "g" }[i]);
    }

    q_until(loop, &s.nheld, 2);
    q_spin(loop, 20);
    assert_int_equal(s.nheld, 2);
    assert_int_equal(s.max_inflight, 2);

    gcp_ctl_queue_add(q, "c");          /* c is syncing */

    while (s.nheld) {
        s.nheld--;
        s.inflight--;
        gcp_ctl_queue_done(s.held[s.nheld], GCP_OK, 0);
        q_spin(loop, 10);
    }

    assert_int_equal(s.max_inflight, 2);
    assert_string_equal(s.order, "cdefgc");

    /*
     * a failure is retried after its backoff, 5 ms then 10 ms (the times
     * are checked from below only: a loaded machine only delays a timer)
     */

    s.hold = 0;
    s.syncs = 0;
    s.fail_first = 2;

    gcp_ctl_queue_add(q, "h");
    q_spin(loop, 0);
    assert_int_equal(s.syncs, 1);       /* the first in the next turn */
    q_until(loop, &s.syncs, 3);
    assert_int_equal(s.syncs, 3);
    assert_true(s.at[1] - s.at[0] >= 5);
    assert_true(s.at[2] - s.at[1] >= 10);
    q_spin(loop, 50);
    assert_int_equal(s.syncs, 3);

    /* delayed adds: the earliest wins, the others are dropped */

    s.syncs = 0;
    t0 = loop->now_ms(loop);
    gcp_ctl_queue_add_after(q, "i", 900);
    gcp_ctl_queue_add_after(q, "i", 80);
    gcp_ctl_queue_add_after(q, "i", 600);
    q_until(loop, &s.syncs, 1);
    assert_int_equal(s.syncs, 1);
    assert_true(s.at[0] - t0 >= 80);
    assert_true(s.at[0] - t0 < 600);
    while (loop->now_ms(loop) < t0 + 1000) {
        q_spin(loop, 10);
    }

    assert_int_equal(s.syncs, 1);

    /* stopped: nothing more */

    gcp_ctl_queue_add_after(q, "j", 10);
    gcp_ctl_queue_add(q, "k");
    gcp_ctl_queue_stop(q);
    gcp_ctl_queue_add(q, "l");
    q_spin(loop, 50);
    assert_int_equal(s.syncs, 1);

    gcp_ctl_queue_free(q);
    gcp_ctl_unref(ctl);
    gcp_loop_poll_destroy(loop);
}


/* quantities */


static void
check_canonical(const char *in, const char *out)
{
    char             buf[GCP_QUANTITY_BUFSIZE];
    const char      *err;
    gcp_quantity_t   q;

    if (gcp_quantity_parse(in, strlen(in), &q, &err) != GCP_OK) {
        fail_msg("%s: %s", in, err);
    }

    gcp_quantity_format(&q, buf);

    if (strcmp(buf, out) != 0) {
        fail_msg("%s: %s, expected %s", in, buf, out);
    }
}


static void
check_error(const char *in, const char *msg)
{
    const char      *err;
    gcp_quantity_t   q;

    assert_int_equal(gcp_quantity_parse(in, strlen(in), &q, &err),
                     GCP_EBADREQUEST);
    assert_string_equal(err, msg);
}


static int
cmp(const char *a, const char *b)
{
    const char      *err;
    gcp_quantity_t   qa, qb;

    assert_int_equal(gcp_quantity_parse(a, strlen(a), &qa, &err), GCP_OK);
    assert_int_equal(gcp_quantity_parse(b, strlen(b), &qb, &err), GCP_OK);

    return gcp_quantity_cmp(&qa, &qb);
}


static void
test_quantity(void **state)
{
    char             buf[GCP_QUANTITY_BUFSIZE];
    const char      *err;
    json_t          *v;
    gcp_quantity_t   a, b, sum;

    check_canonical("0", "0");
    check_canonical("5", "5");
    check_canonical("1000", "1k");
    check_canonical("1500", "1500");
    check_canonical("1000000", "1M");
    check_canonical("10M", "10M");
    check_canonical("1.5", "1500m");
    check_canonical("0.1", "100m");
    check_canonical("100m", "100m");
    check_canonical("1n", "1n");
    check_canonical("-1", "-1");
    check_canonical("+7", "7");
    check_canonical("1Ki", "1Ki");
    check_canonical("2048Ki", "2Mi");
    check_canonical("1536Ki", "1536Ki");
    check_canonical("1.5Gi", "1536Mi");
    check_canonical("0.5Ki", "512");
    check_canonical("1e3", "1e3");
    check_canonical("1000e0", "1e3");
    check_canonical("12E", "12E");
    check_canonical("1.", "1");
    check_canonical(".5", "500m");

    /* binary quantities are capped at the largest int64, as upstream */
    check_canonical("9999999999999999999999999999999999999Ki",
                    "9223372036854775807");
    check_canonical("-9999999999999999999999999999999999999Ki",
                    "-9223372036854775807");
    check_canonical("99999999999999999999999999999999999999999999Ei",
                    "9223372036854775807");
    check_canonical("8Ei", "9223372036854775807");
    check_canonical("7Ei", "7Ei");
    check_canonical("8191Pi", "8191Pi");
    check_canonical("0.0000000000000000000000000000000001Ki", "1n");
    check_canonical("9007199254740991.999999999999999999999Ki",
                    "9223372036854775807");
    check_canonical("1e40", "10e39");

    check_error("", GCP_QUANTITY_EFORMAT);
    check_error("x", GCP_QUANTITY_EFORMAT);
    check_error("1x", GCP_QUANTITY_EFORMAT);
    check_error("1.2.3", GCP_QUANTITY_EFORMAT);
    check_error("-", GCP_QUANTITY_EFORMAT);
    check_error("1kk", "unable to parse quantity's suffix");
    check_error("1e", "unable to parse quantity's suffix");

    assert_int_equal(cmp("1k", "1000"), 0);
    assert_true(cmp("999m", "1") < 0);
    assert_true(cmp("2", "1500m") > 0);
    assert_true(cmp("-2", "1") < 0);
    assert_true(cmp("1Ki", "1k") > 0);

    assert_int_equal(gcp_quantity_parse("1k", 2, &a, &err), GCP_OK);
    gcp_quantity_set_int(&b, 1);
    gcp_quantity_add(&sum, &a, &b);
    gcp_quantity_format(&sum, buf);
    assert_string_equal(buf, "1001");

    gcp_quantity_set_int(&b, 999);
    gcp_quantity_set_int(&a, 1);
    gcp_quantity_add(&sum, &b, &a);
    gcp_quantity_format(&sum, buf);
    assert_string_equal(buf, "1k");

    assert_true(gcp_quantity_integral(&sum));
    assert_int_equal(gcp_quantity_parse("1500m", 5, &a, &err), GCP_OK);
    assert_false(gcp_quantity_integral(&a));

    /* JSON numbers are quantities too */
    v = json_integer(2000);
    assert_int_equal(gcp_quantity_parse_json(v, &a, &err), GCP_OK);
    json_decref(v);
    v = gcp_quantity_json(&a);
    assert_string_equal(json_string_value(v), "2k");
    json_decref(v);
}


/* A sync driven by the step runner. */
typedef struct {
    gcp_arena_t      *arena;        /* the sync's; NULL once ended */
    gcp_ctl_steps_t  *steps;        /* in the arena */
    size_t            ran;          /* steps run */
    size_t            lasts;        /* last steps run */
    size_t            last_next;    /* steps->next in the last step */
    int               depth;
    int               max_depth;
    size_t            wait_at;      /* this step waits for a callback */
    size_t            end_at;       /* this step ends the sync */
} t_sync_t;


static void
t_step(void *data)
{
    t_sync_t  *t = data;
    size_t     i = t->steps->next;

    t->ran++;
    t->depth++;
    t->max_depth = t->depth > t->max_depth ? t->depth : t->max_depth;

    if (i == t->end_at) {
        gcp_arena_destroy(t->arena);
        t->arena = NULL;
        t->depth--;
        return;
    }

    if (i != t->wait_at) {
        /* completes at once: calls back into the runner */
        t->steps->next++;
        gcp_ctl_steps_run(t->steps);
    }

    t->depth--;
}


static void
t_last(void *data)
{
    t_sync_t  *t = data;

    t->lasts++;
    t->last_next = t->steps->next;

    gcp_arena_destroy(t->arena);
    t->arena = NULL;
}


static void
t_sync_start(t_sync_t *t, size_t n, size_t wait_at, size_t end_at)
{
    memset(t, 0, sizeof(t_sync_t));
    t->wait_at = wait_at;
    t->end_at = end_at;
    t->arena = gcp_arena_create(0);
    assert_non_null(t->arena);
    t->steps = gcp_calloc(t->arena, sizeof(gcp_ctl_steps_t));
    assert_non_null(t->steps);
    assert_int_equal(gcp_ctl_steps_init(t->steps, t->arena, n, t_step,
                                        t_last, t),
                     GCP_OK);

    gcp_ctl_steps_run(t->steps);
}


static void
test_steps(void **state)
{
    t_sync_t  t;

    /* many steps completing at once: one frame deep, then the last */

    t_sync_start(&t, 100000, (size_t) -1, (size_t) -1);
    assert_int_equal(t.ran, 100000);
    assert_int_equal(t.max_depth, 1);
    assert_int_equal(t.lasts, 1);
    assert_int_equal(t.last_next, 100000);
    assert_null(t.arena);

    /* no step: the last one at once */

    t_sync_start(&t, 0, (size_t) -1, (size_t) -1);
    assert_int_equal(t.ran, 0);
    assert_int_equal(t.lasts, 1);
    assert_int_equal(t.last_next, 0);

    /* step 3 waits; its callback resumes the run */

    t_sync_start(&t, 6, 3, (size_t) -1);
    assert_int_equal(t.ran, 4);
    assert_int_equal(t.lasts, 0);
    assert_int_equal(t.steps->next, 3);

    t.steps->next++;
    gcp_ctl_steps_run(t.steps);
    assert_int_equal(t.ran, 6);
    assert_int_equal(t.max_depth, 1);
    assert_int_equal(t.lasts, 1);
    assert_int_equal(t.last_next, 6);

    /* step 2 ends the sync (its arena, and the runner in it, go) */

    t_sync_start(&t, 6, (size_t) -1, 2);
    assert_int_equal(t.ran, 3);
    assert_int_equal(t.lasts, 0);
    assert_null(t.arena);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_map),
        cmocka_unit_test(test_queue),
        cmocka_unit_test(test_steps),
        cmocka_unit_test(test_quantity),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
