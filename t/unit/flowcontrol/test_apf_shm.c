
/*
 * Unit tests: the APF dispatcher in its region (gcp_apf_shm.h) driven
 * with chosen times: concurrency limits from shares, shuffle sharding,
 * fair queuing between flows, queue limits, rejection, leaving a queue,
 * wakeups of the owning slot, borrowing, Retry-After, the inflight limits
 * without APF, and the dumps.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gcp_apf_int.h"
#include "apf_levels.h"


#define MS  1000000ull          /* ns */


typedef struct {
    void           *mem;
    gcp_apf_shm_t  *sh;
} region_t;


static gcp_apf_shm_t *
region(region_t *r, int slots, int records, int server_cl)
{
    size_t       size;
    const char  *err;

    size = gcp_apf_shm_size(slots, records);
    r->mem = calloc(1, size);
    assert_non_null(r->mem);

    r->sh = gcp_apf_shm_init(r->mem, size, slots, records, server_cl, 4, 2,
                             &err);
    assert_non_null(r->sh);

    return r->sh;
}


static void
region_free(region_t *r)
{
    gcp_apf_shm_close(r->sh);
    free(r->mem);
}



static int
level(gcp_apf_shm_t *sh, const char *name)
{
    int  i;

    i = gcp_apf_shm_level(sh, name, NULL);
    assert_true(i >= 0);

    return i;
}


static void
assert_limits(gcp_apf_shm_t *sh, const char *name, int nominal, int min,
    int max)
{
    gcp_apf_level_stat_t  st;

    assert_true(gcp_apf_shm_level_stat(sh, level(sh, name), &st));
    assert_int_equal(st.nominal_cl, nominal);
    assert_int_equal(st.min_cl, min);
    assert_int_equal(st.max_cl, max);
    assert_int_equal(st.current_cl, nominal);
}


/* The limits kube-apiserver 1.28 reported for ServerCL 6 (4 + 2). */
static void
test_limits(void **state)
{
    region_t        r;
    gcp_apf_shm_t  *sh;

    sh = region(&r, 1, 64, 6);
    assert_int_equal(gcp_apf_shm_configure(sh, 1, levels, 8, 0), 1);

    assert_limits(sh, "catch-all", 1, 1, 7);
    assert_limits(sh, "exempt", 0, 0, 6);
    assert_limits(sh, "global-default", 1, 0, 7);
    assert_limits(sh, "leader-election", 1, 1, 7);
    assert_limits(sh, "node-high", 1, 1, 7);
    assert_limits(sh, "system", 1, 1, 7);
    assert_limits(sh, "workload-high", 1, 0, 7);
    assert_limits(sh, "workload-low", 3, 0, 9);

    /* an older configuration is ignored */
    assert_int_equal(gcp_apf_shm_configure(sh, 0, levels, 2, 0), 0);
    assert_int_equal(gcp_apf_shm_revision(sh), 1);

    region_free(&r);
}


static void
test_deal(void **state)
{
    int      i, j, n;
    int32_t  cards[15];

    /* the mixed-radix digits of the hash, as upstream's Dealer */
    assert_int_equal(gcp_apf_deal(5, 4, 2, cards), 2);
    assert_int_equal(cards[0], 1);
    assert_int_equal(cards[1], 2);

    gcp_apf_deal(0, 8, 4, cards);
    for (i = 0; i < 4; i++) {
        assert_int_equal(cards[i], i);
    }

    gcp_apf_deal(123456789, 128, 6, cards);
    assert_int_equal(cards[0], 21);
    assert_int_equal(cards[1], 69);
    assert_int_equal(cards[2], 35);
    assert_int_equal(cards[3], 62);
    assert_int_equal(cards[4], 0);
    assert_int_equal(cards[5], 1);

    gcp_apf_deal(0xdeadbeefcafebabeull, 64, 6, cards);
    assert_int_equal(cards[0], 62);
    assert_int_equal(cards[5], 46);

    /* any hash: distinct cards of the deck */
    for (i = 0; i < 1000; i++) {
        n = gcp_apf_deal((uint64_t) i * 0x9e3779b97f4a7c15ull, 16, 15,
                         cards);
        assert_int_equal(n, 15);

        for (j = 0; j < n; j++) {
            assert_true(cards[j] >= 0 && cards[j] < 16);

            for (int k = 0; k < j; k++) {
                assert_int_not_equal(cards[j], cards[k]);
            }
        }
    }
}


static gcp_apf_decision_t
start(gcp_apf_shm_t *sh, int lvl, uint64_t hash, int seats, uint64_t now,
    gcp_apf_place_t *p)
{
    gcp_apf_ticket_t   t;
    gcp_apf_details_t  d;

    memset(&d, 0, sizeof(d));
    d.flow_schema = "fs";
    d.distinguisher = hash == 1 ? "a" : "b";

    t.level = lvl;
    t.hash = hash;
    t.seats = seats;
    t.slot = 0;
    t.details = &d;

    return gcp_apf_shm_start(sh, &t, now, p);
}


/* One level of 1 seat, queues 64, hand 1. */
static gcp_apf_shm_t *
one_seat(region_t *r, int queue_length)
{
    gcp_apf_shm_t  *sh;

    gcp_apf_level_conf_t  conf[] = {
        { "exempt", "", 1, 0, 0, 0, 0, 0, -1 },
        { "fair", "u", 0, 64, 1, 50, 1, 0, 0 },
    };

    conf[1].queue_length = queue_length;

    sh = region(r, 1, 256, 1);
    gcp_apf_shm_configure(sh, 1, conf, 2, 0);

    return sh;
}


/* Two flows of one level: dispatch alternates between their queues. */
static void
test_fair_queuing(void **state)
{
    int               i, lvl, a, b;
    size_t            n;
    region_t          r;
    uint64_t          now;
    gcp_apf_shm_t    *sh;
    gcp_apf_place_t   running, pa[6], pb[6], got;
    gcp_apf_rec_t    *rec;

    sh = one_seat(&r, 50);
    lvl = level(sh, "fair");
    now = 1000 * MS;

    /* flows 1, 2 and 3 go to different queues of the 64; 3 runs */
    assert_int_equal(start(sh, lvl, 3, 1, now, &running), GCP_APF_EXECUTE);

    for (i = 0; i < 6; i++) {
        assert_int_equal(start(sh, lvl, 1, 1, now + i * MS, &pa[i]),
                         GCP_APF_QUEUED);
    }

    for (i = 0; i < 6; i++) {
        assert_int_equal(start(sh, lvl, 2, 1, now + (10 + i) * MS, &pb[i]),
                         GCP_APF_QUEUED);
    }

    /* as each finishes, the next is dispatched: count the first eight */
    a = b = 0;
    got = running;

    for (i = 0; i < 8; i++) {
        gcp_apf_shm_finish(sh, &got, now + (100 + i * 10) * MS);
        n = gcp_apf_shm_take(sh, 0, &got, 1);
        assert_int_equal(n, 1);

        rec = &gcp_apf_recs(sh)[got.rec];
        assert_int_equal(rec->state, GCP_APF_REC_EXECUTING);

        if (strcmp(rec->distinguisher, "a") == 0) {
            a++;

        } else {
            b++;
        }
    }

    /* FIFO would give eight of flow a (six); fairness gives half each */
    assert_int_equal(a, 4);
    assert_int_equal(b, 4);

    region_free(&r);
}


static void
test_queue_limit_and_leave(void **state)
{
    int                    lvl;
    region_t               r;
    gcp_apf_shm_t         *sh;
    gcp_apf_place_t        p0, p1, p2, p3;
    gcp_apf_level_stat_t   st;
    uint64_t               v;

    sh = one_seat(&r, 2);
    lvl = level(sh, "fair");

    assert_int_equal(start(sh, lvl, 7, 1, MS, &p0), GCP_APF_EXECUTE);
    assert_int_equal(start(sh, lvl, 7, 1, MS, &p1), GCP_APF_QUEUED);
    assert_int_equal(start(sh, lvl, 7, 1, MS, &p2), GCP_APF_QUEUED);

    /* its queue is full and every seat taken */
    assert_int_equal(start(sh, lvl, 7, 1, MS, &p3), GCP_APF_REJECT);

    /* one times out, another goes away */
    assert_int_equal(gcp_apf_shm_leave(sh, &p1, 1, 2 * MS), 1);
    assert_int_equal(gcp_apf_shm_leave(sh, &p2, 0, 2 * MS), 1);

    gcp_apf_shm_level_stat(sh, lvl, &st);
    assert_int_equal(st.waiting, 0);
    assert_int_equal(st.executing, 1);
    assert_int_equal(st.rejected, 3);
    assert_int_equal(st.timed_out, 1);
    assert_int_equal(st.cancelled, 1);

    /* a request dispatched cannot leave: the owner was woken */
    assert_int_equal(start(sh, lvl, 7, 1, 3 * MS, &p1), GCP_APF_QUEUED);
    gcp_apf_shm_finish(sh, &p0, 4 * MS);
    assert_int_equal(read(gcp_apf_shm_efd(sh, 0), &v, sizeof(v)),
                     (ssize_t) sizeof(v));
    assert_int_equal(gcp_apf_shm_leave(sh, &p1, 1, 5 * MS), 0);

    /* finished while still on the owner's list: it leaves the list */
    gcp_apf_shm_finish(sh, &p1, 6 * MS);
    assert_int_equal(gcp_apf_shm_take(sh, 0, &p2, 1), 0);

    gcp_apf_shm_level_stat(sh, lvl, &st);
    assert_int_equal(st.executing, 0);
    assert_int_equal(st.seats_in_use, 0);
    assert_int_equal(st.active_queues, 0);

    region_free(&r);
}


static void
test_reject_and_exempt(void **state)
{
    int              i, ca, ex;
    region_t         r;
    gcp_apf_shm_t   *sh;
    gcp_apf_place_t  p[8];

    sh = region(&r, 1, 64, 6);
    gcp_apf_shm_configure(sh, 1, levels, 8, 0);

    ca = level(sh, "catch-all");
    ex = level(sh, "exempt");

    /* catch-all: Reject, 1 seat */
    assert_int_equal(start(sh, ca, 1, 1, MS, &p[0]), GCP_APF_EXECUTE);
    assert_int_equal(start(sh, ca, 1, 1, MS, &p[1]), GCP_APF_REJECT);

    /* wider than the limit: alone only */
    gcp_apf_shm_finish(sh, &p[0], 2 * MS);
    assert_int_equal(start(sh, ca, 1, 3, 3 * MS, &p[0]), GCP_APF_EXECUTE);
    assert_int_equal(start(sh, ca, 1, 1, 3 * MS, &p[1]), GCP_APF_REJECT);

    /* exempt: never limited */
    for (i = 0; i < 8; i++) {
        assert_int_equal(start(sh, ex, 1, 1, MS, &p[i]), GCP_APF_EXECUTE);
    }

    region_free(&r);
}


/* A level that demands seats borrows them from idle ones. */
static void
test_borrowing(void **state)
{
    int                    i, wl;
    region_t               r;
    gcp_apf_shm_t         *sh;
    gcp_apf_place_t        p[40];
    gcp_apf_level_stat_t   st;

    sh = region(&r, 1, 256, 6);
    gcp_apf_shm_configure(sh, 1, levels, 8, 0);
    wl = level(sh, "workload-low");

    for (i = 0; i < 40; i++) {
        start(sh, wl, (uint64_t) i, 1, MS, &p[i]);
    }

    gcp_apf_shm_level_stat(sh, wl, &st);
    assert_int_equal(st.executing, 3);

    assert_int_equal(gcp_apf_shm_adjust(sh, 5000 * MS, 0), 1);
    assert_int_equal(gcp_apf_shm_adjust(sh, 6000 * MS, 0), 0);
    assert_int_equal(gcp_apf_shm_adjust(sh, 20000 * MS, 0), 1);

    /* up to its upper bound as far as the others lend */
    gcp_apf_shm_level_stat(sh, wl, &st);
    assert_true(st.current_cl > 3);
    assert_true(st.current_cl <= st.max_cl);
    assert_int_equal(st.executing, st.current_cl);

    /* a level that lends nothing keeps its seat */
    gcp_apf_shm_level_stat(sh, level(sh, "leader-election"), &st);
    assert_int_equal(st.current_cl, 1);

    region_free(&r);
}


static void
test_retry_after(void **state)
{
    int              i, lvl;
    region_t         r;
    int64_t          ra;
    gcp_apf_shm_t   *sh;

    sh = one_seat(&r, 50);
    lvl = level(sh, "fair");

    assert_int_equal(gcp_apf_shm_drop(sh, lvl, 100), 1);

    /* many drops in a second: doubled the next second */
    for (i = 0; i < 10; i++) {
        gcp_apf_shm_drop(sh, lvl, 100);
    }

    assert_int_equal(gcp_apf_shm_drop(sh, lvl, 101), 2);

    /* quiet seconds bring it down again */
    ra = gcp_apf_shm_drop(sh, lvl, 110);
    assert_int_equal(ra, 1);

    region_free(&r);
}


static void
test_inflight(void **state)
{
    region_t        r;
    gcp_apf_shm_t  *sh;

    sh = region(&r, 2, 64, 6);

    /* readonly 4, mutating 2 */
    assert_true(gcp_apf_shm_inflight(sh, 1));
    assert_true(gcp_apf_shm_inflight(sh, 1));
    assert_false(gcp_apf_shm_inflight(sh, 1));
    assert_true(gcp_apf_shm_inflight(sh, 0));
    gcp_apf_shm_inflight_done(sh, 1);
    assert_true(gcp_apf_shm_inflight(sh, 1));

    region_free(&r);
}


static void
test_reclaim(void **state)
{
    int                    lvl;
    region_t               r;
    gcp_apf_shm_t         *sh;
    gcp_apf_place_t        p0, p1;
    gcp_apf_level_stat_t   st;

    sh = one_seat(&r, 50);
    lvl = level(sh, "fair");

    start(sh, lvl, 1, 1, MS, &p0);
    start(sh, lvl, 1, 1, MS, &p1);

    /* the worker of slot 0 died: its successor frees everything */
    gcp_apf_shm_reclaim(sh, 0, 2 * MS);

    gcp_apf_shm_level_stat(sh, lvl, &st);
    assert_int_equal(st.executing, 0);
    assert_int_equal(st.waiting, 0);
    assert_int_equal(st.active_queues, 0);
    assert_int_equal(start(sh, lvl, 1, 1, 3 * MS, &p0), GCP_APF_EXECUTE);

    region_free(&r);
}


static void
test_dumps(void **state)
{
    int              lvl;
    region_t         r;
    gcp_buf_t        b;
    gcp_arena_t     *a;
    gcp_apf_shm_t   *sh;
    gcp_apf_place_t  p0, p1;

    sh = one_seat(&r, 50);
    lvl = level(sh, "fair");
    a = gcp_arena_create(0);

    start(sh, lvl, 1, 1, MS, &p0);
    start(sh, lvl, 1, 1, MS, &p1);

    gcp_buf_init(&b, a);
    gcp_apf_shm_dump_levels(sh, &b);
    assert_string_equal(gcp_buf_cstr(&b),
        "PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, "
        "WaitingRequests, ExecutingRequests, DispatchedRequests, "
        "RejectedRequests, TimedoutRequests, CancelledRequests\n"
        "exempt,            0,            true,   false,       0,        "
        "       0,                 0,                  0,                "
        "0,                0\n"
        "fair,              1,            false,  false,       1,        "
        "       1,                 1,                  0,                "
        "0,                0\n");

    gcp_buf_init(&b, a);
    gcp_apf_shm_dump_requests(sh, &b, 0);
    assert_non_null(strstr(gcp_buf_cstr(&b),
        "PriorityLevelName, FlowSchemaName, QueueIndex, "
        "RequestIndexInQueue, FlowDistingsher, ArriveTime,"));
    assert_non_null(strstr(gcp_buf_cstr(&b),
        "\nfair,              fs,             1,          0,                "
        "   a,               "));
    assert_non_null(strstr(gcp_buf_cstr(&b),
        "\nfair,              fs,             1,          -1,               "
        "   a,               "));
    assert_non_null(strstr(gcp_buf_cstr(&b), "0001-01-01T00:00:00Z\n"));

    gcp_buf_init(&b, a);
    gcp_apf_shm_dump_queues(sh, &b);
    assert_non_null(strstr(gcp_buf_cstr(&b), "\nfair,              63,"));

    gcp_arena_destroy(a);
    region_free(&r);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_deal),
        cmocka_unit_test(test_fair_queuing),
        cmocka_unit_test(test_queue_limit_and_leave),
        cmocka_unit_test(test_reject_and_exempt),
        cmocka_unit_test(test_borrowing),
        cmocka_unit_test(test_retry_after),
        cmocka_unit_test(test_inflight),
        cmocka_unit_test(test_reclaim),
        cmocka_unit_test(test_dumps),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
