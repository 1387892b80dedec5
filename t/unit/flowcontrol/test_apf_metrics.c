
/*
 * Unit tests: the apiserver_flowcontrol_* metrics of requests through API
 * Priority and Fairness (core/flowcontrol/gcp_apf_metrics.c): dispatched
 * at once or from a queue, rejected for each of upstream's reasons, the
 * queue and execution gauges back to 0, the wait histogram by execute,
 * the names kept when the configuration that held them goes.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gcp_apf_metrics.h"
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


/* Asserts that the exposition holds line (a whole line). */

static void
has_line(env_t *e, const char *line)
{
    size_t      n = strlen(line);
    gcp_buf_t   b;
    const char *p, *text;

    gcp_buf_init(&b, e->a);
    gcp_metrics_write(&b, GCP_METRICS_SET_MAIN, 0);
    gcp_buf_add(&b, "", 1);
    assert_false(gcp_buf_failed(&b));
    text = b.data;

    for (p = text; (p = strstr(p, line)) != NULL; p++) {
        if ((p == text || p[-1] == '\n') && p[n] == '\n') {
            return;
        }
    }

    fail_msg("no line \"%s\" in:\n%s", line, text);
}


/* A classification whose names live in a buffer that goes afterwards. */

static void
arrive(env_t *e, gcp_apf_metrics_t *am, const char *fs, const char *pl,
    int seats)
{
    char            names[2][64];
    gcp_fc_match_t  m;

    memset(am, 0, sizeof(gcp_apf_metrics_t));
    memset(&m, 0, sizeof(m));

    strcpy(names[0], fs);
    strcpy(names[1], pl);
    m.flow_schema = names[0];
    m.level = names[1];

    gcp_apf_metrics_arrive(am, e->a, &m, seats);

    memset(names, 'x', sizeof(names));
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
        cmocka_unit_test_setup_teardown(test_off, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
