
/*
 * Time: the clock (settable by tests), metav1.Time / metav1.MicroTime text
 * ("2026-11-22T06:45:46Z", "2026-11-22T06:45:46.123456Z", always UTC),
 * parsing as Go's time.Parse with those layouts (with Go's error
 * messages), and the human durations of Table "Age" cells
 * (k8s.io/apimachinery/pkg/util/duration).
 */

#ifndef _GCP_TIME_H_INCLUDED_
#define _GCP_TIME_H_INCLUDED_


#include <time.h>

#include "gcp_core.h"


/* Buffer sizes, NUL included, enough for any time_t / duration. */
#define GCP_TIME_BUFSIZE      48
#define GCP_DURATION_BUFSIZE  32

#define GCP_NSEC_PER_SEC      1000000000LL


/*
 * Returns the current wall-clock time (CLOCK_REALTIME), or the fake time
 * set by gcp_time_set_fake().
 */
struct timespec gcp_time_now(void);

/*
 * Makes gcp_time_now() return *ts (copied) until called again; NULL goes
 * back to the real clock.  For tests; not thread-safe.
 */
void gcp_time_set_fake(const struct timespec *ts);

/*
 * Returns CLOCK_MONOTONIC in nanoseconds (durations; the same clock in
 * every process of the machine).  Never faked.
 */
int64_t gcp_time_mono_ns(void);


/*
 * Writes sec as metav1.Time ("2006-01-02T15:04:05Z", UTC) into buf
 * (GCP_TIME_BUFSIZE bytes) and returns its length.
 */
size_t gcp_time_format(char *buf, time_t sec);

/*
 * Writes ts as metav1.MicroTime ("2006-01-02T15:04:05.000000Z", UTC,
 * fraction truncated to microseconds) into buf (GCP_TIME_BUFSIZE bytes)
 * and returns its length.
 */
size_t gcp_time_format_micro(char *buf, const struct timespec *ts);

/* As above, returning a string owned by the arena, or NULL on ENOMEM. */
const char *gcp_time_str(gcp_arena_t *a, time_t sec);
const char *gcp_time_micro_str(gcp_arena_t *a, const struct timespec *ts);

/*
 * Parses s (len bytes) as Go's time.Parse(time.RFC3339, s), which
 * metav1.Time uses: offsets ("+01:00"), a fractional second ('.' or ',',
 * any number of digits, nanoseconds kept) and one-digit hours are
 * accepted.  Returns GCP_OK with *out (UTC), or GCP_EBADREQUEST; then, if
 * msg is not NULL, *msg is Go's message, allocated from a ("parsing time
 * \"x\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"x\" as \"2006\""),
 * or NULL when out of memory.
 */
int gcp_time_parse(gcp_arena_t *a, const char *s, size_t len,
    struct timespec *out, const char **msg);

/*
 * As gcp_time_parse() for metav1.MicroTime's layout
 * "2006-01-02T15:04:05.000000Z07:00": exactly six fractional digits.
 */
int gcp_time_parse_micro(gcp_arena_t *a, const char *s, size_t len,
    struct timespec *out, const char **msg);


/*
 * duration.HumanDuration(ns) ("0s", "119s", "2m1s", "3h", "2d1h", "2y1d",
 * "<invalid>" below -1s) written into buf (GCP_DURATION_BUFSIZE bytes);
 * returns its length.
 */
size_t gcp_human_duration(char *buf, int64_t ns);

/* duration.ShortHumanDuration(ns) ("59s", "1m", "23h", "364d", "2y"). */
size_t gcp_short_human_duration(char *buf, int64_t ns);

/*
 * A Table "Age" cell: HumanDuration(now - *ts) (Go's time.Since, which
 * saturates), or "<unknown>" when ts is NULL or Go's zero time
 * (0001-01-01T00:00:00Z).  Writes into buf (GCP_DURATION_BUFSIZE bytes);
 * returns the length.
 */
size_t gcp_time_age(char *buf, const struct timespec *ts);


#endif /* _GCP_TIME_H_INCLUDED_ */
