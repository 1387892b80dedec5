
/*
 * Unit tests: clock, metav1.Time/MicroTime text, Go's RFC 3339 parsing
 * and human durations (core/base/gcp_time.c).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <stdio.h>

#include "gcp_time.h"


#define REF_SEC  1795329946             /* 2026-11-22T06:45:46Z */

#define S   GCP_NSEC_PER_SEC
#define MS  (S / 1000)
#define MIN (60 * S)
#define H   (60 * MIN)
#define D   (24 * H)
#define Y   (365 * D)

#define L3339   "\"2006-01-02T15:04:05Z07:00\""
#define LMICRO  "\"2006-01-02T15:04:05.000000Z07:00\""


static void
test_format(void **state)
{
    char             buf[GCP_TIME_BUFSIZE];
    gcp_arena_t     *a;
    struct timespec  ts;

    static const struct {
        time_t       sec;
        const char  *want;
    } cases[] = {
        { 0, "1970-01-01T00:00:00Z" },
        { REF_SEC, "2026-11-22T06:45:46Z" },
        { -1, "1969-12-31T23:59:59Z" },
        { 1709164800, "2024-02-29T00:00:00Z" },
        { 946684800 - 1, "1999-12-31T23:59:59Z" },
        { -62135596800LL, "0001-01-01T00:00:00Z" },
        { 253402300799LL, "9999-12-31T23:59:59Z" },
        { 253402300800LL, "10000-01-01T00:00:00Z" },
        { -62198755200LL, "-0001-01-01T00:00:00Z" },
    };

    size_t  i;

    for (i = 0; i < gcp_nelems(cases); i++) {
        assert_int_equal(gcp_time_format(buf, cases[i].sec),
                         strlen(cases[i].want));
        assert_string_equal(buf, cases[i].want);
    }

    ts.tv_sec = REF_SEC;
    ts.tv_nsec = 123456789;
    assert_int_equal(gcp_time_format_micro(buf, &ts), 27);
    assert_string_equal(buf, "2026-11-22T06:45:46.123456Z");

    ts.tv_nsec = 999;
    gcp_time_format_micro(buf, &ts);
    assert_string_equal(buf, "2026-11-22T06:45:46.000000Z");

    a = gcp_arena_create(0);
    assert_string_equal(gcp_time_str(a, REF_SEC), "2026-11-22T06:45:46Z");
    ts.tv_nsec = 5000;
    assert_string_equal(gcp_time_micro_str(a, &ts),
                        "2026-11-22T06:45:46.000005Z");
    gcp_arena_destroy(a);
}


typedef struct {
    const char  *in;
    int64_t      sec;
    long         nsec;
    const char  *msg;       /* NULL: must parse */
} parse_case_t;


static const parse_case_t  rfc3339_cases[] = {
    { "2026-11-22T06:45:46Z", REF_SEC, 0, NULL },
    { "2026-11-22T07:45:46+01:00", REF_SEC, 0, NULL },
    { "2026-11-22T01:15:46-05:30", REF_SEC, 0, NULL },
    { "2026-11-23T06:45:46+24:00", REF_SEC, 0, NULL },
    { "2026-11-22T06:45:46.123456789Z", REF_SEC, 123456789, NULL },
    { "2026-11-22T06:45:46.1234567891234Z", REF_SEC, 123456789, NULL },
    { "2026-11-22T06:45:46,5Z", REF_SEC, 500000000, NULL },
    { "2026-11-22T06:45:46.000001+00:00", REF_SEC, 1000, NULL },
    { "2026-11-22T6:45:46Z", REF_SEC, 0, NULL },
    { "2024-02-29T00:00:00Z", 1709164800, 0, NULL },
    { "0001-01-01T00:00:00Z", -62135596800LL, 0, NULL },
    { "1969-12-31T23:59:59Z", -1, 0, NULL },

    { "garbage", 0, 0, "parsing time \"garbage\" as " L3339 ": cannot parse "
      "\"garbage\" as \"2006\"" },
    { "", 0, 0, "parsing time \"\" as " L3339 ": cannot parse \"\" as "
      "\"2006\"" },
    { "2026-1-22T06:45:46Z", 0, 0, "parsing time \"2026-1-22T06:45:46Z\" as "
      L3339 ": cannot parse \"1-22T06:45:46Z\" as \"01\"" },
    { "2026/11/22T06:45:46Z", 0, 0, "parsing time \"2026/11/22T06:45:46Z\" "
      "as " L3339 ": cannot parse \"/11/22T06:45:46Z\" as \"-\"" },
    { "2026-11-22 06:45:46Z", 0, 0, "parsing time \"2026-11-22 06:45:46Z\" "
      "as " L3339 ": cannot parse \" 06:45:46Z\" as \"T\"" },
    { "2026-11-22t06:45:46Z", 0, 0, "parsing time \"2026-11-22t06:45:46Z\" "
      "as " L3339 ": cannot parse \"t06:45:46Z\" as \"T\"" },
    { "2026-13-01T00:00:00Z", 0, 0, "parsing time \"2026-13-01T00:00:00Z\": "
      "month out of range" },
    { "2026-00-01T00:00:00Z", 0, 0, "parsing time \"2026-00-01T00:00:00Z\": "
      "month out of range" },
    { "2023-02-29T00:00:00Z", 0, 0, "parsing time \"2023-02-29T00:00:00Z\": "
      "day out of range" },
    { "2026-11-00T00:00:00Z", 0, 0, "parsing time \"2026-11-00T00:00:00Z\": "
      "day out of range" },
    { "2026-11-22T24:00:00Z", 0, 0, "parsing time \"2026-11-22T24:00:00Z\": "
      "hour out of range" },
    { "2026-11-22T06:60:00Z", 0, 0, "parsing time \"2026-11-22T06:60:00Z\": "
      "minute out of range" },
    { "2026-11-22T06:45:60Z", 0, 0, "parsing time \"2026-11-22T06:45:60Z\": "
      "second out of range" },
    { "2026-11-22T06:45:46", 0, 0, "parsing time \"2026-11-22T06:45:46\" as "
      L3339 ": cannot parse \"\" as \"Z07:00\"" },
    { "2026-11-22T06:45:46z", 0, 0, "parsing time \"2026-11-22T06:45:46z\" "
      "as " L3339 ": cannot parse \"z\" as \"Z07:00\"" },
    { "2026-11-22T06:45:46+0100", 0, 0, "parsing time "
      "\"2026-11-22T06:45:46+0100\" as " L3339 ": cannot parse \"+0100\" as "
      "\"Z07:00\"" },
    { "2026-11-22T06:45:46*01:00", 0, 0, "parsing time "
      "\"2026-11-22T06:45:46*01:00\" as " L3339 ": cannot parse \"*01:00\" "
      "as \"Z07:00\"" },
    { "2026-11-22T06:45:46+25:00", 0, 0, "parsing time "
      "\"2026-11-22T06:45:46+25:00\": time zone offset hour out of range" },
    { "2026-11-22T06:45:46+01:61", 0, 0, "parsing time "
      "\"2026-11-22T06:45:46+01:61\": time zone offset minute out of range" },
    { "2026-11-22T06:45:46.Z", 0, 0, "parsing time \"2026-11-22T06:45:46.Z\" "
      "as " L3339 ": cannot parse \".Z\" as \"Z07:00\"" },
    { "2026-11-22T06:45:46ZX", 0, 0, "parsing time \"2026-11-22T06:45:46ZX\": "
      "extra text: \"X\"" },
    { "2026-11-22T06:45:46Z\n", 0, 0, "parsing time "
      "\"2026-11-22T06:45:46Z\\x0a\": extra text: \"\\x0a\"" },
    { "\x01\"\\\xff", 0, 0, "parsing time \"\\x01\\\"\\\\\\xff\" as " L3339
      ": cannot parse \"\\x01\\\"\\\\\\xff\" as \"2006\"" },
};


static const parse_case_t  micro_cases[] = {
    { "2026-11-22T06:45:46.123456Z", REF_SEC, 123456000, NULL },
    { "2026-11-22T07:45:46,000001+01:00", REF_SEC, 1000, NULL },

    { "2026-11-22T06:45:46Z", 0, 0, "parsing time \"2026-11-22T06:45:46Z\" as "
      LMICRO ": cannot parse \"Z\" as \".000000\"" },
    { "2026-11-22T06:45:46.123Z", 0, 0, "parsing time "
      "\"2026-11-22T06:45:46.123Z\" as " LMICRO ": cannot parse \".123Z\" as "
      "\".000000\"" },
    { "2026-11-22T06:45:46.1234567Z", 0, 0, "parsing time "
      "\"2026-11-22T06:45:46.1234567Z\" as " LMICRO ": cannot parse \"7Z\" "
      "as \"Z07:00\"" },
    { "2026-11-22T06:45:46.-12345Z", 0, 0, "parsing time "
      "\"2026-11-22T06:45:46.-12345Z\": fractional second out of range" },
};


static void
run_parse_cases(const parse_case_t *cases, size_t n,
    int (*parse)(gcp_arena_t *, const char *, size_t, struct timespec *,
                 const char **))
{
    int              rc;
    size_t           i;
    const char      *msg;
    gcp_arena_t     *a;
    struct timespec  ts;

    a = gcp_arena_create(0);

    for (i = 0; i < n; i++) {
        msg = NULL;
        rc = parse(a, cases[i].in, strlen(cases[i].in), &ts, &msg);

        if (cases[i].msg == NULL) {
            if (rc != GCP_OK) {
                print_error("\"%s\": %s\n", cases[i].in, msg);
                fail();
            }

            assert_int_equal(ts.tv_sec, cases[i].sec);
            assert_int_equal(ts.tv_nsec, cases[i].nsec);
            continue;
        }

        if (rc != GCP_EBADREQUEST || msg == NULL
            || strcmp(msg, cases[i].msg) != 0)
        {
            print_error("case %zu: rc %d\n got: %s\nwant: %s\n", i, rc,
                        msg ? msg : "(null)", cases[i].msg);
            fail();
        }

        /* the message is optional */
        assert_int_equal(parse(NULL, cases[i].in, strlen(cases[i].in), &ts,
                               NULL), GCP_EBADREQUEST);
    }

    gcp_arena_destroy(a);
}


static void
test_parse_rfc3339(void **state)
{
    run_parse_cases(rfc3339_cases, gcp_nelems(rfc3339_cases),
                    gcp_time_parse);
}


static void
test_parse_micro(void **state)
{
    run_parse_cases(micro_cases, gcp_nelems(micro_cases),
                    gcp_time_parse_micro);
}


static void
test_roundtrip(void **state)
{
    int              i;
    char             buf[GCP_TIME_BUFSIZE];
    struct timespec  ts, back;

    srandom(4080);

    for (i = 0; i < 20000; i++) {
        /* years 0001..9999 */
        ts.tv_sec = (time_t) ((((uint64_t) random() << 31) ^ random())
                              % 253402300800ULL)
                    - (i % 2 ? 62135596800LL : 0);
        ts.tv_nsec = (long) (random() % 1000000) * 1000;

        gcp_time_format_micro(buf, &ts);
        assert_int_equal(gcp_time_parse_micro(NULL, buf, strlen(buf), &back,
                                              NULL), GCP_OK);
        assert_int_equal(back.tv_sec, ts.tv_sec);
        assert_int_equal(back.tv_nsec, ts.tv_nsec);

        gcp_time_format(buf, ts.tv_sec);
        assert_int_equal(gcp_time_parse(NULL, buf, strlen(buf), &back, NULL),
                         GCP_OK);
        assert_int_equal(back.tv_sec, ts.tv_sec);
        assert_int_equal(back.tv_nsec, 0);
    }
}


typedef struct {
    int64_t      d;
    const char  *want;
} dur_case_t;


/* upstream duration_test.go, TestHumanDuration and its boundaries */
static const dur_case_t  human_cases[] = {
    { S, "1s" },
    { 70 * S, "70s" },
    { 190 * S, "3m10s" },
    { 70 * MIN, "70m" },
    { 47 * H, "47h" },
    { 49 * H, "2d1h" },
    { (8 * 24 + 2) * H, "8d" },
    { 367 * 24 * H, "367d" },
    { (365 * 2 * 24 + 25) * H, "2y1d" },
    { (365 * 8 * 24 + 2) * H, "8y" },

    { -2 * S, "<invalid>" },
    { -2 * S + 1, "0s" },
    { 0, "0s" },
    { S - MS, "0s" },
    { 2 * MIN - MS, "119s" },
    { 2 * MIN, "2m" },
    { 2 * MIN + S, "2m1s" },
    { 10 * MIN - MS, "9m59s" },
    { 10 * MIN, "10m" },
    { 10 * MIN + S, "10m" },
    { 3 * H - MS, "179m" },
    { 3 * H, "3h" },
    { 3 * H + MIN, "3h1m" },
    { 8 * H - MS, "7h59m" },
    { 8 * H, "8h" },
    { 8 * H + 59 * MIN, "8h" },
    { 2 * D - MS, "47h" },
    { 2 * D, "2d" },
    { 2 * D + H, "2d1h" },
    { 8 * D - MS, "7d23h" },
    { 8 * D, "8d" },
    { 8 * D + 23 * H, "8d" },
    { 2 * Y - MS, "729d" },
    { 2 * Y, "2y" },
    { 2 * Y + 23 * H, "2y" },
    { 2 * Y + 23 * H + 59 * MIN, "2y" },
    { 2 * Y + D - MS, "2y" },
    { 2 * Y + D, "2y1d" },
    { 3 * Y, "3y" },
    { 4 * Y, "4y" },
    { 5 * Y, "5y" },
    { 6 * Y, "6y" },
    { 7 * Y, "7y" },
    { 8 * Y - MS, "7y364d" },
    { 8 * Y, "8y" },
    { 8 * Y + 364 * D, "8y" },
    { 9 * Y, "9y" },

    /* the reference Table's Age cell (06-table-configmaps-list.http) */
    { 133 * S, "2m13s" },
    { INT64_MAX, "292y" },
    { INT64_MIN, "<invalid>" },
};


/* upstream TestShortHumanDurationBoundaries */
static const dur_case_t  short_cases[] = {
    { -2 * S, "<invalid>" },
    { -2 * S + 1, "0s" },
    { 0, "0s" },
    { S - MS, "0s" },
    { S, "1s" },
    { 2 * S - MS, "1s" },
    { MIN - MS, "59s" },
    { MIN, "1m" },
    { 2 * MIN - MS, "1m" },
    { H - MS, "59m" },
    { H, "1h" },
    { 2 * H - MS, "1h" },
    { D - MS, "23h" },
    { D, "1d" },
    { 2 * D - MS, "1d" },
    { Y - MS, "364d" },
    { Y, "1y" },
    { 2 * Y - MS, "1y" },
    { 2 * Y, "2y" },
    { INT64_MAX, "292y" },
};


static void
test_durations(void **state)
{
    char    buf[GCP_DURATION_BUFSIZE];
    size_t  i, n;

    for (i = 0; i < gcp_nelems(human_cases); i++) {
        n = gcp_human_duration(buf, human_cases[i].d);
        if (strcmp(buf, human_cases[i].want) != 0) {
            print_error("HumanDuration(%lld) = %s, want %s\n",
                        (long long) human_cases[i].d, buf,
                        human_cases[i].want);
            fail();
        }
        assert_int_equal(n, strlen(human_cases[i].want));
    }

    for (i = 0; i < gcp_nelems(short_cases); i++) {
        n = gcp_short_human_duration(buf, short_cases[i].d);
        if (strcmp(buf, short_cases[i].want) != 0) {
            print_error("ShortHumanDuration(%lld) = %s, want %s\n",
                        (long long) short_cases[i].d, buf,
                        short_cases[i].want);
            fail();
        }
        assert_int_equal(n, strlen(short_cases[i].want));
    }
}


static void
test_fake_clock_and_age(void **state)
{
    char             buf[GCP_DURATION_BUFSIZE];
    struct timespec  now, ts, real;

    now.tv_sec = REF_SEC + 133;
    now.tv_nsec = 500000000;
    gcp_time_set_fake(&now);

    ts = gcp_time_now();
    assert_int_equal(ts.tv_sec, REF_SEC + 133);
    assert_int_equal(ts.tv_nsec, 500000000);

    ts.tv_sec = REF_SEC;
    ts.tv_nsec = 0;
    gcp_time_age(buf, &ts);
    assert_string_equal(buf, "2m13s");

    ts.tv_sec = REF_SEC + 135;              /* 1.5s in the future */
    gcp_time_age(buf, &ts);
    assert_string_equal(buf, "0s");

    ts.tv_sec = REF_SEC + 136;              /* 2.5s in the future */
    gcp_time_age(buf, &ts);
    assert_string_equal(buf, "<invalid>");

    ts.tv_sec = REF_SEC - 500LL * 365 * 86400;
    gcp_time_age(buf, &ts);
    assert_string_equal(buf, "292y");

    ts.tv_sec = -62135596800LL;             /* Go's zero time */
    gcp_time_age(buf, &ts);
    assert_string_equal(buf, "<unknown>");

    assert_int_equal(gcp_time_age(buf, NULL), 9);
    assert_string_equal(buf, "<unknown>");

    /* back to the real clock */
    gcp_time_set_fake(NULL);
    clock_gettime(CLOCK_REALTIME, &real);
    ts = gcp_time_now();
    assert_true(ts.tv_sec >= real.tv_sec && ts.tv_sec <= real.tv_sec + 5);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_parse_rfc3339),
        cmocka_unit_test(test_parse_micro),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_fake_clock_and_age),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
