
/*
 * Unit tests: the apiserver_flowcontrol_* metrics of requests through API
 * Priority and Fairness (core/flowcontrol/gcp_apf_metrics.c): dispatched
 * at once or from a queue, rejected for each of upstream's reasons, the
 * queue and execution gauges back to 0, the wait histogram by execute,
 * the execution histogram by type, the queue length after enqueue, the
 * names kept when the configuration that held them goes; the levels'
 * limits collected from the dispatcher's region at each scrape.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gcp_apf_metrics.h"
#include "apf_levels.h"
#include "gcp_metrics.h"


typedef struct {
    void         *mem;
    size_t        size;
    gcp_arena_t  *a;
} env_t;


static int
setup(void **state)
{
    env_t       *e;
    const char  *err = NULL;

    e = calloc(1, sizeof(env_t));
    e->size = gcp_metrics_size();
    e->mem = mmap(NULL, e->size, PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(e->mem != MAP_FAILED);
    assert_int_equal(gcp_metrics_init(e->mem, e->size), 0);
    assert_int_equal(gcp_metrics_attach(e->mem, e->size, &err), GCP_OK);

    e->a = gcp_arena_create(4096);
    assert_non_null(e->a);

    *state = e;

    return 0;
}


static int
teardown(void **state)
{
    env_t  *e = *state;

    gcp_metrics_detach();
    gcp_arena_destroy(e->a);
    munmap(e->mem, e->size);
    free(e);

    return 0;
}


/* The exposition of the main set (in e->a). */

static const char *
exposition(env_t *e)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, e->a);
    gcp_metrics_write(&b, GCP_METRICS_SET_MAIN, 0);
    gcp_buf_add(&b, "", 1);
    assert_false(gcp_buf_failed(&b));

    return b.data;
}


/* Asserts that the exposition holds line (a whole line). */

static void
has_line(env_t *e, const char *line)
{
    size_t      n = strlen(line);
    const char *p, *text;

    text = exposition(e);

    for (p = text; (p = strstr(p, line)) != NULL; p++) {
        if ((p == text || p[-1] == '\n') && p[n] == '\n') {
            return;
        }
    }

    fail_msg("no line \"%s\" in:\n%s", line, text);
}


/* A classification whose names live in a buffer that goes afterwards. */

static void
arrive_verb(env_t *e, gcp_apf_metrics_t *am, const char *fs, const char *pl,
    int seats, const char *verb)
{
    char            names[2][64];
    gcp_fc_match_t  m;

    memset(am, 0, sizeof(gcp_apf_metrics_t));
    memset(&m, 0, sizeof(m));

    strcpy(names[0], fs);
    strcpy(names[1], pl);
    m.flow_schema = names[0];
    m.level = names[1];

    gcp_apf_metrics_arrive(am, e->a, &m, seats, verb);

    memset(names, 'x', sizeof(names));
}


static void
arrive(env_t *e, gcp_apf_metrics_t *am, const char *fs, const char *pl,
    int seats)
{
    arrive_verb(e, am, fs, pl, seats, "get");
}


/* Asserts that the exposition has no line starting with prefix. */

static void
no_line(env_t *e, const char *prefix)
{
    const char *p, *text;

    text = exposition(e);

    for (p = text; (p = strstr(p, prefix)) != NULL; p++) {
        if (p == text || p[-1] == '\n') {
            fail_msg("a line \"%s...\" in:\n%s", prefix, text);
        }
    }
}


#define FLOW  "{flow_schema=\"service-accounts\",priority_level=" \
              "\"workload-low\""


static void
test_dispatched_and_finished(void **state)
{
    env_t              *e = *state;
    gcp_apf_metrics_t   at_once, queued;

    arrive(e, &at_once, "service-accounts", "workload-low", 3);
    gcp_apf_metrics_dispatched(&at_once);

    arrive(e, &queued, "service-accounts", "workload-low", 1);
    gcp_apf_metrics_queued(&queued);

    has_line(e, "apiserver_flowcontrol_current_inqueue_requests" FLOW
                "} 1");
    has_line(e, "apiserver_flowcontrol_current_executing_requests" FLOW
                "} 1");
    has_line(e, "apiserver_flowcontrol_current_executing_seats" FLOW
                "} 3");

    gcp_apf_metrics_dispatched(&queued);

    has_line(e, "apiserver_flowcontrol_current_inqueue_requests" FLOW
                "} 0");
    has_line(e, "apiserver_flowcontrol_current_executing_requests" FLOW
                "} 2");
    has_line(e, "apiserver_flowcontrol_current_executing_seats" FLOW
                "} 4");

    gcp_apf_metrics_finished(&at_once);
    gcp_apf_metrics_finished(&queued);
    gcp_apf_metrics_finished(&queued);      /* once only */

    has_line(e, "apiserver_flowcontrol_dispatched_requests_total" FLOW
                "} 2");
    has_line(e, "apiserver_flowcontrol_current_executing_requests" FLOW
                "} 0");
    has_line(e, "apiserver_flowcontrol_current_executing_seats" FLOW
                "} 0");
    has_line(e, "apiserver_flowcontrol_request_wait_duration_seconds_count"
                "{execute=\"true\",flow_schema=\"service-accounts\","
                "priority_level=\"workload-low\"} 2");
    has_line(e, "apiserver_flowcontrol_request_wait_duration_seconds_bucket"
                "{execute=\"true\",flow_schema=\"service-accounts\","
                "priority_level=\"workload-low\",le=\"+Inf\"} 2");
    has_line(e, "# TYPE apiserver_flowcontrol_request_wait_duration_seconds"
                " histogram");
}


static void
test_rejected_by_reason(void **state)
{
    env_t              *e = *state;
    gcp_apf_metrics_t   full, late, gone;

    arrive(e, &full, "tiny", "tiny-level", 1);
    gcp_apf_metrics_rejected(&full, GCP_APF_REJECT_QUEUE_FULL);

    arrive(e, &late, "tiny", "tiny-level", 1);
    gcp_apf_metrics_queued(&late);
    gcp_apf_metrics_rejected(&late, GCP_APF_REJECT_TIME_OUT);

    arrive(e, &gone, "tiny", "tiny-level", 1);
    gcp_apf_metrics_queued(&gone);
    gcp_apf_metrics_rejected(&gone, GCP_APF_REJECT_CANCELLED);

    /* a rejected request never executed: nothing to give back */
    gcp_apf_metrics_finished(&gone);

    has_line(e, "apiserver_flowcontrol_rejected_requests_total{flow_schema="
                "\"tiny\",priority_level=\"tiny-level\",reason=\"cancelled\""
                "} 1");
    has_line(e, "apiserver_flowcontrol_rejected_requests_total{flow_schema="
                "\"tiny\",priority_level=\"tiny-level\",reason="
                "\"queue-full\"} 1");
    has_line(e, "apiserver_flowcontrol_rejected_requests_total{flow_schema="
                "\"tiny\",priority_level=\"tiny-level\",reason=\"time-out\""
                "} 1");
    has_line(e, "apiserver_flowcontrol_current_inqueue_requests{flow_schema="
                "\"tiny\",priority_level=\"tiny-level\"} 0");
    has_line(e, "apiserver_flowcontrol_request_wait_duration_seconds_count"
                "{execute=\"false\",flow_schema=\"tiny\",priority_level="
                "\"tiny-level\"} 3");
    has_line(e, "apiserver_flowcontrol_request_wait_duration_seconds_bucket"
                "{execute=\"false\",flow_schema=\"tiny\",priority_level="
                "\"tiny-level\",le=\"30\"} 3");
}


static void
test_execution_by_type(void **state)
{
    env_t              *e = *state;
    gcp_apf_metrics_t   get, watch, rejected;

    arrive_verb(e, &get, "service-accounts", "workload-low", 1, "get");
    gcp_apf_metrics_enqueued(&get, 1);
    gcp_apf_metrics_dispatched(&get);
    gcp_apf_metrics_finished(&get);

    arrive_verb(e, &watch, "service-accounts", "workload-low", 1, "watch");
    gcp_apf_metrics_enqueued(&watch, 12);
    gcp_apf_metrics_queued(&watch);
    gcp_apf_metrics_dispatched(&watch);

    /* not finished: its initial stage goes on */
    no_line(e, "apiserver_flowcontrol_request_execution_seconds_count{"
               "flow_schema=\"service-accounts\",priority_level="
               "\"workload-low\",type=\"watch\"}");

    gcp_apf_metrics_finished(&watch);

    /* never executed: no execution */
    arrive(e, &rejected, "service-accounts", "workload-low", 1);
    gcp_apf_metrics_rejected(&rejected, GCP_APF_REJECT_QUEUE_FULL);
    gcp_apf_metrics_finished(&rejected);

    has_line(e, "# TYPE apiserver_flowcontrol_request_execution_seconds "
                "histogram");
    has_line(e, "apiserver_flowcontrol_request_execution_seconds_count{"
                "flow_schema=\"service-accounts\",priority_level="
                "\"workload-low\",type=\"regular\"} 1");
    has_line(e, "apiserver_flowcontrol_request_execution_seconds_count{"
                "flow_schema=\"service-accounts\",priority_level="
                "\"workload-low\",type=\"watch\"} 1");
    has_line(e, "apiserver_flowcontrol_request_execution_seconds_bucket{"
                "flow_schema=\"service-accounts\",priority_level="
                "\"workload-low\",type=\"watch\",le=\"30\"} 1");

    /* upstream's queueLengthBuckets: 1 <= 10 < 12 <= 25 */
    has_line(e, "apiserver_flowcontrol_request_queue_length_after_enqueue_"
                "bucket" FLOW ",le=\"0\"} 0");
    has_line(e, "apiserver_flowcontrol_request_queue_length_after_enqueue_"
                "bucket" FLOW ",le=\"10\"} 1");
    has_line(e, "apiserver_flowcontrol_request_queue_length_after_enqueue_"
                "bucket" FLOW ",le=\"25\"} 2");
    has_line(e, "apiserver_flowcontrol_request_queue_length_after_enqueue_"
                "sum" FLOW "} 13");
}


static void
test_inqueue_seats(void **state)
{
    env_t              *e = *state;
    gcp_apf_metrics_t   a, b;

    arrive(e, &a, "service-accounts", "workload-low", 4);
    gcp_apf_metrics_queued(&a);
    arrive(e, &b, "service-accounts", "workload-low", 2);
    gcp_apf_metrics_queued(&b);

    has_line(e, "apiserver_flowcontrol_current_inqueue_seats" FLOW "} 6");

    gcp_apf_metrics_dispatched(&a);
    gcp_apf_metrics_rejected(&b, GCP_APF_REJECT_TIME_OUT);

    has_line(e, "apiserver_flowcontrol_current_inqueue_seats" FLOW "} 0");
}


static void
test_limits_collected(void **state)
{
    env_t                 *e = *state;
    size_t                 size;
    void                  *mem;
    const char            *err;
    char                   line[128];
    gcp_apf_shm_t         *sh;
    gcp_apf_level_stat_t   st;
    gcp_apf_level_conf_t   conf[8];

    size = gcp_apf_shm_size(2, 64);
    mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(mem != MAP_FAILED);

    sh = gcp_apf_shm_init(mem, size, 2, 64, 6, 4, 2, &err);
    assert_non_null(sh);
    assert_int_equal(gcp_apf_shm_configure(sh, 1, levels, 8, 0), 1);

    /* twice (two APIs of a process): collected once */
    assert_int_equal(gcp_metrics_collector_add(gcp_apf_metrics_collect, sh),
                     GCP_OK);
    assert_int_equal(gcp_metrics_collector_add(gcp_apf_metrics_collect, sh),
                     GCP_OK);

    /* the limits of test_apf_shm.c's test_limits (ServerCL 6) */
    has_line(e, "# TYPE apiserver_flowcontrol_nominal_limit_seats gauge");
    has_line(e, "apiserver_flowcontrol_nominal_limit_seats{priority_level="
                "\"workload-low\"} 3");
    has_line(e, "apiserver_flowcontrol_lower_limit_seats{priority_level="
                "\"workload-low\"} 0");
    has_line(e, "apiserver_flowcontrol_upper_limit_seats{priority_level="
                "\"workload-low\"} 9");
    has_line(e, "apiserver_flowcontrol_current_limit_seats{priority_level="
                "\"workload-low\"} 3");
    has_line(e, "apiserver_flowcontrol_nominal_limit_seats{priority_level="
                "\"exempt\"} 0");
    has_line(e, "apiserver_flowcontrol_current_r{priority_level="
                "\"workload-low\"} 0");
    no_line(e, "apiserver_flowcontrol_current_r{priority_level="
               "\"exempt\"}");

    /* no adjustment yet: no demand */
    no_line(e, "apiserver_flowcontrol_demand_seats_average{");
    no_line(e, "apiserver_flowcontrol_target_seats{");

    /*
     * workload-low's shares go down (100 -> 10: 3 seats -> 1); global-
     * default is gone (a series its source no longer has goes too, once
     * idle)
     */
    memcpy(conf, levels, sizeof(levels));
    conf[6].shares = 10;
    assert_int_equal(gcp_apf_shm_configure(sh, 2, conf, 7, 0), 1);

    has_line(e, "apiserver_flowcontrol_nominal_limit_seats{priority_level="
                "\"workload-low\"} 1");
    /* CurrentCL waits for the next adjustment */
    has_line(e, "apiserver_flowcontrol_current_limit_seats{priority_level="
                "\"workload-low\"} 3");
    no_line(e, "apiserver_flowcontrol_nominal_limit_seats{priority_level="
               "\"global-default\"}");

    /* an adjustment: the demand of the period (none) and the target */
    assert_int_equal(gcp_apf_shm_adjust(sh, 1000000000ull, 1), 1);

    has_line(e, "apiserver_flowcontrol_demand_seats_high_watermark{"
                "priority_level=\"workload-low\"} 0");
    has_line(e, "apiserver_flowcontrol_demand_seats_average{"
                "priority_level=\"workload-low\"} 0");
    has_line(e, "apiserver_flowcontrol_demand_seats_stdev{"
                "priority_level=\"workload-low\"} 0");
    has_line(e, "apiserver_flowcontrol_demand_seats_smoothed{"
                "priority_level=\"workload-low\"} 0");
    /* max(minCurrentCL, smoothed): the lower limit of system, 1 */
    has_line(e, "apiserver_flowcontrol_target_seats{"
                "priority_level=\"system\"} 1");

    /* whatever the adjustment made of CurrentCL, the region's */
    assert_true(gcp_apf_shm_level_stat(sh, gcp_apf_shm_level(sh,
                                       "workload-low", NULL), &st));
    assert_int_not_equal(st.current_cl, 3);
    snprintf(line, sizeof(line), "apiserver_flowcontrol_current_limit_"
             "seats{priority_level=\"workload-low\"} %d", st.current_cl);
    has_line(e, line);

    /* updates of a collected family are ignored */
    gcp_metric_set(GCP_M_APF_NOMINAL_LIMIT, (const char *[]) { "x", NULL },
                   5);
    no_line(e, "apiserver_flowcontrol_nominal_limit_seats{priority_level="
               "\"x\"}");

    gcp_metrics_collector_del(gcp_apf_metrics_collect, sh);
    has_line(e, "apiserver_flowcontrol_nominal_limit_seats{priority_level="
                "\"workload-low\"} 1");
    gcp_metrics_collector_del(gcp_apf_metrics_collect, sh);
    no_line(e, "apiserver_flowcontrol_nominal_limit_seats{");
    no_line(e, "# TYPE apiserver_flowcontrol_nominal_limit_seats");

    gcp_apf_shm_close(sh);
    munmap(mem, size);
}


static void
test_off(void **state)
{
    env_t              *e = *state;
    gcp_apf_metrics_t   am;

    gcp_metrics_detach();

    arrive(e, &am, "off", "off", 1);
    assert_false(am.on);
    gcp_apf_metrics_dispatched(&am);
    gcp_apf_metrics_finished(&am);
    assert_false(am.executing);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test_setup_teardown(test_dispatched_and_finished, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_rejected_by_reason, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_execution_by_type, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_inqueue_seats, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_limits_collected, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_off, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
