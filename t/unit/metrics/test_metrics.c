
/*
 * Unit tests: the metrics registry in shared memory (core/metrics/
 * gcp_metrics.c): counters summed over processes, label sets bounded,
 * gauges per process (gone with their process), histograms, the layout
 * kept over a re-init (reload), collected families (the value of shared
 * memory at the scrape, whichever process wrote it).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gcp_metrics.h"


typedef struct {
    void    *mem;
    size_t   size;
} shm_t;


static int
setup(void **state)
{
    shm_t  *m;

    m = calloc(1, sizeof(shm_t));
    m->size = gcp_metrics_size();
    m->mem = mmap(NULL, m->size, PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(m->mem != MAP_FAILED);

    assert_int_equal(gcp_metrics_init(m->mem, m->size), 0);

    *state = m;

    return 0;
}


static int
teardown(void **state)
{
    shm_t  *m = *state;

    gcp_metrics_detach();
    munmap(m->mem, m->size);
    free(m);

    return 0;
}


static void
attach(shm_t *m)
{
    const char  *err = NULL;

    assert_int_equal(gcp_metrics_attach(m->mem, m->size, &err), GCP_OK);
    assert_true(gcp_metrics_on());
}


/* The exposition of the main set (arena-owned). */

static const char *
expose(gcp_arena_t *a, unsigned set, unsigned flags)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    gcp_metrics_write(&b, set, flags);
    assert_false(gcp_buf_failed(&b));

    return gcp_buf_cstr(&b);
}


/* The value of the sample line that starts with prefix, or -1. */

static double
sample(const char *text, const char *prefix)
{
    const char  *p;
    size_t       n;

    n = strlen(prefix);

    for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, prefix, n) == 0 && p[n] == ' ') {
            return strtod(p + n + 1, NULL);
        }
    }

    return -1;
}


static void
test_detached_is_noop(void **state)
{
    static const char * const  l[] = { "x", NULL };

    gcp_metrics_detach();
    assert_false(gcp_metrics_on());

    /* no memory behind: must not crash */
    gcp_metric_inc(GCP_M_AUDIT_EVENTS, l);
    gcp_metric_observe(GCP_M_AUTHN_DURATION, l, 0.5);
    gcp_metric_set(GCP_M_LEADER, l, 1);
}


static void
test_counters_across_processes(void **state)
{
    int           i, k, status;
    pid_t         pid[2];
    shm_t        *m = *state;
    gcp_arena_t  *a;
    const char   *text;

    static const char * const  ok[] = { "success", NULL };
    static const char * const  bad[] = { "failure", NULL };

    /* two processes add at once to the same series */

    for (k = 0; k < 2; k++) {
        pid[k] = fork();
        assert_true(pid[k] >= 0);

        if (pid[k] == 0) {
            attach(m);

            for (i = 0; i < 20000; i++) {
                gcp_metric_inc(GCP_M_AUTHN_ATTEMPTS, ok);
            }

            gcp_metric_add(GCP_M_AUTHN_ATTEMPTS, bad, 3);
            gcp_metrics_detach();
            _exit(0);
        }
    }

    for (k = 0; k < 2; k++) {
        assert_int_equal(waitpid(pid[k], &status, 0), pid[k]);
        assert_int_equal(status, 0);
    }

    attach(m);
    gcp_metric_inc(GCP_M_AUTHN_ATTEMPTS, ok);

    a = gcp_arena_create(0);
    text = expose(a, GCP_METRICS_SET_MAIN, 0);

    assert_non_null(strstr(text, "# HELP authentication_attempts [ALPHA] "
                                 "Counter of authenticated attempts.\n"
                                 "# TYPE authentication_attempts counter\n"
                                 "authentication_attempts{result=\"failure\""
                                 "} 6\nauthentication_attempts{result="
                                 "\"success\"} 40001\n"));

    gcp_arena_destroy(a);
}


static void
test_series_bounded(void **state)
{
    shm_t        *m = *state;
    gcp_arena_t  *a;
    const char   *text;
    char          big[GCP_METRICS_KEY + 2];

    static const char * const  r[] = { "readOnly", NULL };
    static const char * const  w[] = { "mutating", NULL };
    static const char * const  x[] = { "other", NULL };
    const char                *l[] = { big, NULL };

    attach(m);

    /* apiserver_current_inflight_requests keeps 2 label sets */

    gcp_metric_add(GCP_M_INFLIGHT, r, 2);
    gcp_metric_add(GCP_M_INFLIGHT, w, 1);
    gcp_metric_add(GCP_M_INFLIGHT, x, 5);
    gcp_metric_add(GCP_M_INFLIGHT, x, 5);

    /* a value longer than a key is refused the same way */

    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    gcp_metric_inc(GCP_M_AUTHN_USER_REQUESTS, l);

    a = gcp_arena_create(0);
    text = expose(a, GCP_METRICS_SET_MAIN, 0);

    assert_int_equal(sample(text, "apiserver_current_inflight_requests"
                                  "{request_kind=\"readOnly\"}"), 2);
    assert_int_equal(sample(text, "apiserver_current_inflight_requests"
                                  "{request_kind=\"mutating\"}"), 1);
    assert_null(strstr(text, "request_kind=\"other\""));
    assert_null(strstr(text, "aaaa"));
    assert_int_equal(sample(text, "ngx_gcp_metrics_series_overflow_total"
                                  "{family=\"apiserver_current_inflight_"
                                  "requests\"}"), 2);
    assert_int_equal(sample(text, "ngx_gcp_metrics_series_overflow_total"
                                  "{family=\"authenticated_user_"
                                  "requests\"}"), 1);

    gcp_arena_destroy(a);
}


static void
test_gauges_per_process(void **state)
{
    int           fds[2], status;
    char          c;
    pid_t         pid;
    shm_t        *m = *state;
    gcp_arena_t  *a;
    const char   *text;

    static const char * const  ro[] = { "readOnly", NULL };
    static const char * const  lease[] = { "kube-controller-manager", NULL };

    attach(m);
    gcp_metric_add(GCP_M_INFLIGHT, ro, 1);
    gcp_metric_set(GCP_M_LEADER, lease, 0);

    assert_int_equal(pipe(fds), 0);

    pid = fork();
    assert_true(pid >= 0);

    if (pid == 0) {
        /* a worker that holds 5 requests, leads, then dies uncleanly */
        attach(m);
        gcp_metric_add(GCP_M_INFLIGHT, ro, 5);
        gcp_metric_set(GCP_M_LEADER, lease, 1);
        assert_int_equal(write(fds[1], "x", 1), 1);
        pause();
        _exit(0);
    }

    assert_int_equal(read(fds[0], &c, 1), 1);

    a = gcp_arena_create(0);

    text = expose(a, GCP_METRICS_SET_MAIN, 0);
    assert_int_equal(sample(text, "apiserver_current_inflight_requests"
                                  "{request_kind=\"readOnly\"}"), 6);
    /* the largest value of the processes, not their sum */
    assert_int_equal(sample(text, "leader_election_master_status"
                                  "{name=\"kube-controller-manager\"}"), 1);

    kill(pid, SIGKILL);
    assert_int_equal(waitpid(pid, &status, 0), pid);

    text = expose(a, GCP_METRICS_SET_MAIN, 0);
    assert_int_equal(sample(text, "apiserver_current_inflight_requests"
                                  "{request_kind=\"readOnly\"}"), 1);
    assert_int_equal(sample(text, "leader_election_master_status"
                                  "{name=\"kube-controller-manager\"}"), 0);

    gcp_arena_destroy(a);
    close(fds[0]);
    close(fds[1]);
}


static void
test_histogram(void **state)
{
    shm_t        *m = *state;
    gcp_arena_t  *a;
    const char   *text;

    static const char * const  ok[] = { "allowed", NULL };

    attach(m);

    gcp_metric_observe(GCP_M_AUTHZ_DURATION, ok, 0.0005);
    gcp_metric_observe(GCP_M_AUTHZ_DURATION, ok, 0.001);     /* le 0.001 */
    gcp_metric_observe(GCP_M_AUTHZ_DURATION, ok, 0.003);
    gcp_metric_observe(GCP_M_AUTHZ_DURATION, ok, 100);       /* +Inf */

    a = gcp_arena_create(0);
    text = expose(a, GCP_METRICS_SET_MAIN, 0);

    assert_non_null(strstr(text,
        "# TYPE authorization_duration_seconds histogram\n"
        "authorization_duration_seconds_bucket{result=\"allowed\","
        "le=\"0.001\"} 2\n"
        "authorization_duration_seconds_bucket{result=\"allowed\","
        "le=\"0.002\"} 2\n"
        "authorization_duration_seconds_bucket{result=\"allowed\","
        "le=\"0.004\"} 3\n"));
    assert_non_null(strstr(text,
        "authorization_duration_seconds_bucket{result=\"allowed\","
        "le=\"16.384\"} 3\n"
        "authorization_duration_seconds_bucket{result=\"allowed\","
        "le=\"+Inf\"} 4\n"
        "authorization_duration_seconds_sum{result=\"allowed\"} 100.0045\n"
        "authorization_duration_seconds_count{result=\"allowed\"} 4\n"));

    gcp_arena_destroy(a);
}


static void
test_reinit_keeps_values(void **state)
{
    shm_t        *m = *state;
    gcp_arena_t  *a;
    const char   *text;

    static const char * const  none[] = { NULL };

    attach(m);
    gcp_metric_add(GCP_M_AUDIT_EVENTS, none, 7);
    gcp_metrics_detach();

    /* a reload: the master lays the same zone out again */
    assert_int_equal(gcp_metrics_init(m->mem, m->size), 1);

    attach(m);

    a = gcp_arena_create(0);
    text = expose(a, GCP_METRICS_SET_MAIN, 0);
    assert_int_equal(sample(text, "apiserver_audit_event_total"), 7);
    gcp_arena_destroy(a);

    /* memory of another layout is refused, then cleared by init */

    gcp_metrics_detach();
    ((char *) m->mem)[16] ^= 1;     /* the size */

    {
        const char  *err = NULL;

        assert_int_equal(gcp_metrics_attach(m->mem, m->size, &err),
                         GCP_EINVALID);
        assert_non_null(err);
    }

    assert_int_equal(gcp_metrics_init(m->mem, m->size), 0);
    attach(m);

    a = gcp_arena_create(0);
    text = expose(a, GCP_METRICS_SET_MAIN, 0);
    assert_null(strstr(text, "apiserver_audit_event_total"));
    gcp_arena_destroy(a);
}


/* A collector of a value in shared memory: a gauge per priority level. */

typedef struct {
    int64_t  limits[2];         /* < 0: no such level */
} source_t;


static void
collect(gcp_metrics_scrape_t *s, void *data)
{
    source_t  *src = data;

    static const char * const  a[] = { "a", NULL };
    static const char * const  b[] = { "b", NULL };

    if (src->limits[0] >= 0) {
        gcp_metrics_put(s, GCP_M_APF_NOMINAL_LIMIT, a,
                        (double) __atomic_load_n(&src->limits[0],
                                                 __ATOMIC_RELAXED));
    }

    if (src->limits[1] >= 0) {
        gcp_metrics_put(s, GCP_M_APF_NOMINAL_LIMIT, b,
                        (double) __atomic_load_n(&src->limits[1],
                                                 __ATOMIC_RELAXED));
    }

    /* a family that is not collected: ignored */
    gcp_metrics_put(s, GCP_M_INFLIGHT, a, 7);
}


static void
test_collected(void **state)
{
    int           status;
    pid_t         pid;
    shm_t        *m = *state;
    source_t     *src;
    gcp_arena_t  *a;
    const char   *text;

    src = mmap(NULL, sizeof(source_t), PROT_READ | PROT_WRITE,
               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(src != MAP_FAILED);
    src->limits[0] = 5;
    src->limits[1] = -1;

    attach(m);
    a = gcp_arena_create(0);

    /* nothing of the family before a collector */
    text = expose(a, GCP_METRICS_SET_MAIN, 0);
    assert_null(strstr(text, "apiserver_flowcontrol_nominal_limit_seats"));

    assert_int_equal(gcp_metrics_collector_add(collect, src), GCP_OK);

    text = expose(a, GCP_METRICS_SET_MAIN, 0);
    assert_int_equal(sample(text, "apiserver_flowcontrol_nominal_limit_seats"
                                  "{priority_level=\"a\"}"), 5);
    assert_int_equal(sample(text, "apiserver_flowcontrol_nominal_limit_seats"
                                  "{priority_level=\"b\"}"), -1);
    assert_null(strstr(text, "apiserver_current_inflight_requests{"
                             "request_kind=\"a\"}"));

    /* another process lowers a and adds b, then exits */
    pid = fork();
    assert_true(pid >= 0);

    if (pid == 0) {
        attach(m);
        src->limits[0] = 2;
        src->limits[1] = 9;
        gcp_metric_set(GCP_M_APF_NOMINAL_LIMIT,
                       (const char *[]) { "a", NULL }, 100);
        _exit(0);
    }

    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));

    text = expose(a, GCP_METRICS_SET_MAIN, 0);
    assert_int_equal(sample(text, "apiserver_flowcontrol_nominal_limit_seats"
                                  "{priority_level=\"a\"}"), 2);
    assert_int_equal(sample(text, "apiserver_flowcontrol_nominal_limit_seats"
                                  "{priority_level=\"b\"}"), 9);
    assert_non_null(strstr(text, "# TYPE apiserver_flowcontrol_nominal_"
                                 "limit_seats gauge\n"));

    /* b gone from the source: gone from the exposition */
    src->limits[1] = -1;
    text = expose(a, GCP_METRICS_SET_MAIN, GCP_METRICS_OPENMETRICS);
    assert_non_null(strstr(text, "apiserver_flowcontrol_nominal_limit_seats"
                                 "{priority_level=\"a\"} 2.0\n"));
    assert_null(strstr(text, "priority_level=\"b\""));

    gcp_metrics_collector_del(collect, src);

    text = expose(a, GCP_METRICS_SET_MAIN, 0);
    assert_null(strstr(text, "apiserver_flowcontrol_nominal_limit_seats"));

    gcp_arena_destroy(a);
    munmap(src, sizeof(source_t));
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_detached_is_noop),
        cmocka_unit_test_setup_teardown(test_counters_across_processes,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_series_bounded, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_gauges_per_process, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_histogram, setup, teardown),
        cmocka_unit_test_setup_teardown(test_collected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reinit_keeps_values, setup,
                                        teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
