
/*
 * Unit tests: the exposition formats (core/metrics/gcp_metrics_text.c):
 * Go's float text, escaping, family and series order, OpenMetrics.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "gcp_metrics_int.h"


static void *shm;
static size_t shm_size;


static int
setup(void **state)
{
    const char  *err;

    shm_size = gcp_metrics_size();
    shm = calloc(1, shm_size);
    assert_non_null(shm);

    gcp_metrics_init(shm, shm_size);
    assert_int_equal(gcp_metrics_attach(shm, shm_size, &err), GCP_OK);

    return 0;
}


static int
teardown(void **state)
{
    gcp_metrics_detach();
    free(shm);

    return 0;
}


static const char *
go_float(gcp_arena_t *a, double v, int om)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    gcp_metrics_add_float(&b, v, om);

    return gcp_buf_cstr(&b);
}


static void
test_floats(void **state)
{
    gcp_arena_t  *a;

    a = gcp_arena_create(0);

    /* what strconv.FormatFloat(v, 'g', -1, 64) gives */
    assert_string_equal(go_float(a, 0, 0), "0");
    assert_string_equal(go_float(a, 853, 0), "853");
    assert_string_equal(go_float(a, 0.005, 0), "0.005");
    assert_string_equal(go_float(a, 1.25, 0), "1.25");
    assert_string_equal(go_float(a, 100000, 0), "100000");
    assert_string_equal(go_float(a, 1e6, 0), "1e+06");
    assert_string_equal(go_float(a, 1234567, 0), "1.234567e+06");
    assert_string_equal(go_float(a, 2.41238016e+08, 0), "2.41238016e+08");
    assert_string_equal(go_float(a, 9.999999999999999e-06, 0),
                        "9.999999999999999e-06");
    assert_string_equal(go_float(a, 1e-05, 0), "1e-05");
    assert_string_equal(go_float(a, 0.0001, 0), "0.0001");
    assert_string_equal(go_float(a, 0.1 + 0.2, 0), "0.30000000000000004");
    assert_string_equal(go_float(a, 1.1095902739999997, 0),
                        "1.1095902739999997");
    assert_string_equal(go_float(a, 18446744073709551615.0, 0),
                        "1.8446744073709552e+19");
    assert_string_equal(go_float(a, -2.5, 0), "-2.5");
    assert_string_equal(go_float(a, INFINITY, 0), "+Inf");
    assert_string_equal(go_float(a, NAN, 0), "NaN");

    /* OpenMetrics marks integral values as floats */
    assert_string_equal(go_float(a, 5, 1), "5.0");
    assert_string_equal(go_float(a, 0, 1), "0.0");
    assert_string_equal(go_float(a, 0.25, 1), "0.25");
    assert_string_equal(go_float(a, 1e6, 1), "1e+06");

    gcp_arena_destroy(a);
}


static void
test_escaping_and_order(void **state)
{
    gcp_buf_t     b;
    gcp_arena_t  *a;
    const char   *text, *p1, *p2, *p3;

    static const char * const  odd[] = { "a\"b\\c\nd", "x", NULL };
    static const char * const  h1[] = { "ping", "readyz", NULL };
    static const char * const  h2[] = { "etcd", "readyz", NULL };
    static const char * const  none[] = { NULL };

    a = gcp_arena_create(0);

    gcp_metric_set(GCP_M_HEALTHCHECK, odd, 1);
    gcp_metric_set(GCP_M_HEALTHCHECK, h1, 1);
    gcp_metric_set(GCP_M_HEALTHCHECK, h2, 0);
    gcp_metric_inc(GCP_M_AUDIT_EVENTS, none);

    /* /metrics/slis shows the health checks only, series sorted */

    gcp_buf_init(&b, a);
    gcp_metrics_write(&b, GCP_METRICS_SET_SLIS, 0);
    text = gcp_buf_cstr(&b);

    assert_string_equal(text,
        "# HELP kubernetes_healthcheck [BETA] This metric records the "
        "result of a single healthcheck.\n"
        "# TYPE kubernetes_healthcheck gauge\n"
        "kubernetes_healthcheck{name=\"a\\\"b\\\\c\\nd\",type=\"x\"} 1\n"
        "kubernetes_healthcheck{name=\"etcd\",type=\"readyz\"} 0\n"
        "kubernetes_healthcheck{name=\"ping\",type=\"readyz\"} 1\n");

    /* /metrics: families sorted by name, process_* in their place */

    gcp_buf_init(&b, a);
    gcp_metrics_write(&b, GCP_METRICS_SET_MAIN, 0);
    text = gcp_buf_cstr(&b);

    assert_null(strstr(text, "kubernetes_healthcheck"));
    p1 = strstr(text, "\napiserver_audit_event_total 1\n");
    p2 = strstr(text, "# TYPE process_cpu_seconds_total counter\n"
                      "process_cpu_seconds_total ");
    p3 = strstr(text, "\nprocess_start_time_seconds ");
    assert_non_null(p1);
    assert_non_null(p2);
    assert_non_null(p3);
    assert_true(p1 < p2 && p2 < p3);
    assert_non_null(strstr(text, "\nprocess_open_fds "));
    assert_non_null(strstr(text, "\nprocess_resident_memory_bytes "));

    gcp_arena_destroy(a);
}


static void
test_openmetrics(void **state)
{
    gcp_buf_t     b;
    gcp_arena_t  *a;
    const char   *text;
    size_t        len;

    static const char * const  ok[] = { "success", NULL };
    static const char * const  gvk[] = { "", "ConfigMap", "v1", NULL };

    a = gcp_arena_create(0);

    gcp_metric_inc(GCP_M_AUTHN_ATTEMPTS, ok);
    gcp_metric_inc(GCP_M_WATCH_EVENTS, gvk);
    gcp_metric_observe(GCP_M_WATCH_EVENT_SIZES, gvk, 1500);

    gcp_buf_init(&b, a);
    gcp_metrics_write(&b, GCP_METRICS_SET_MAIN, GCP_METRICS_OPENMETRICS);
    text = gcp_buf_cstr(&b);
    len = strlen(text);

    /* a counter family without _total, its samples with it */
    assert_non_null(strstr(text,
        "# TYPE authentication_attempts counter\n"
        "authentication_attempts_total{result=\"success\"} 1.0\n"));
    assert_non_null(strstr(text,
        "# TYPE apiserver_watch_events counter\n"
        "apiserver_watch_events_total{group=\"\",kind=\"ConfigMap\","
        "version=\"v1\"} 1.0\n"));
    assert_non_null(strstr(text,
        "apiserver_watch_events_sizes_bucket{group=\"\",kind=\"ConfigMap\","
        "version=\"v1\",le=\"1024.0\"} 0\n"
        "apiserver_watch_events_sizes_bucket{group=\"\",kind=\"ConfigMap\","
        "version=\"v1\",le=\"2048.0\"} 1\n"));
    assert_non_null(strstr(text,
        "apiserver_watch_events_sizes_sum{group=\"\",kind=\"ConfigMap\","
        "version=\"v1\"} 1500.0\n"
        "apiserver_watch_events_sizes_count{group=\"\",kind=\"ConfigMap\","
        "version=\"v1\"} 1\n"));

    assert_true(len > 6);
    assert_string_equal(text + len - 6, "# EOF\n");

    assert_string_equal(gcp_metrics_content_type(GCP_METRICS_OPENMETRICS),
                        "application/openmetrics-text; version=1.0.0; "
                        "charset=utf-8");
    assert_string_equal(gcp_metrics_content_type(0),
                        "text/plain; version=0.0.4; charset=utf-8");

    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_floats),
        cmocka_unit_test_setup_teardown(test_escaping_and_order, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_openmetrics, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
