
/*
 * Time: clock, RFC 3339 text as metav1.Time/MicroTime, Go's time.Parse
 * for those layouts, and duration.HumanDuration / ShortHumanDuration.
 */

#include <stdio.h>

#include "gcp_time.h"


#define GCP_SEC_PER_DAY   86400
#define GCP_GO_ZERO_TIME  (-62135596800LL)     /* 0001-01-01T00:00:00Z */

#define GCP_RFC3339        "2006-01-02T15:04:05Z07:00"
#define GCP_RFC3339_MICRO  "2006-01-02T15:04:05.000000Z07:00"


static struct timespec  gcp_time_fake;
static int              gcp_time_faked;


struct timespec
gcp_time_now(void)
{
    struct timespec  ts;

    if (gcp_time_faked) {
        return gcp_time_fake;
    }

    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) {
        ts.tv_sec = time(NULL);
        ts.tv_nsec = 0;
    }

    return ts;
}


void
gcp_time_set_fake(const struct timespec *ts)
{
    gcp_time_faked = (ts != NULL);

    if (ts) {
        gcp_time_fake = *ts;
    }
}


int64_t
gcp_time_mono_ns(void)
{
    struct timespec  ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);

    return (int64_t) ts.tv_sec * GCP_NSEC_PER_SEC + ts.tv_nsec;
}


/* ------------------------------------------------------------------ */
/* civil dates (proleptic Gregorian, as Go's time package)             */

static int64_t
gcp_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    int64_t   era;
    unsigned  yoe, doy, doe;

    y -= (m <= 2);
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = (unsigned) (y - era * 400);
    doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

    return era * 146097 + (int64_t) doe - 719468;
}


static void
gcp_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    int64_t   era;
    unsigned  doe, yoe, doy, mp;

    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = (unsigned) (z - era * 146097);
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;

    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t) yoe + era * 400 + (*m <= 2);
}


static int
gcp_days_in(int month, int64_t year)
{
    static const int  days[] = {
        31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
    };

    if (month == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
    {
        return 29;
    }

    return days[month - 1];
}


/* ------------------------------------------------------------------ */
/* formatting                                                          */

/* The year as Go's appendInt(b, year, 4): at least 4 digits, '-' sign. */
static size_t
gcp_time_year(char *p, int64_t year)
{
    char      digits[24];
    size_t    n, len;
    uint64_t  u;

    len = 0;
    u = (uint64_t) year;

    if (year < 0) {
        p[len++] = '-';
        u = (uint64_t) 0 - u;
    }

    n = 0;

    do {
        digits[n++] = (char) ('0' + u % 10);
        u /= 10;
    } while (u);

    while (n < 4) {
        digits[n++] = '0';
    }

    while (n) {
        p[len++] = digits[--n];
    }

    return len;
}


/* sep then v (0-99) in two digits at buf + len; returns the new length */
static size_t
gcp_time_2digits(char *buf, size_t len, char sep, unsigned v)
{
    buf[len++] = sep;
    buf[len++] = (char) ('0' + v / 10 % 10);
    buf[len++] = (char) ('0' + v % 10);

    return len;
}


/* "YYYY-MM-DDTHH:MM:SS" then ".uuuuuu" if usec >= 0, then "Z". */
static size_t
gcp_time_fmt(char *buf, time_t sec, long usec)
{
    size_t    len, n;
    int64_t   days, rem, year;
    unsigned  month, day;

    days = (int64_t) sec / GCP_SEC_PER_DAY;
    rem = (int64_t) sec % GCP_SEC_PER_DAY;

    if (rem < 0) {
        rem += GCP_SEC_PER_DAY;
        days--;
    }

    gcp_civil_from_days(days, &year, &month, &day);

    /* without printf: audit events and every write format times */

    len = gcp_time_year(buf, year);
    len = gcp_time_2digits(buf, len, '-', month);
    len = gcp_time_2digits(buf, len, '-', day);
    len = gcp_time_2digits(buf, len, 'T', (unsigned) (rem / 3600));
    len = gcp_time_2digits(buf, len, ':', (unsigned) (rem / 60 % 60));
    len = gcp_time_2digits(buf, len, ':', (unsigned) (rem % 60));

    if (usec >= 0) {
        buf[len++] = '.';

        for (n = 6; n > 0; n--) {
            buf[len + n - 1] = (char) ('0' + usec % 10);
            usec /= 10;
        }

        len += 6;
    }

    buf[len++] = 'Z';
    buf[len] = '\0';

    return len;
}


size_t
gcp_time_format(char *buf, time_t sec)
{
    return gcp_time_fmt(buf, sec, -1);
}


size_t
gcp_time_format_micro(char *buf, const struct timespec *ts)
{
    return gcp_time_fmt(buf, ts->tv_sec, ts->tv_nsec / 1000);
}


const char *
gcp_time_str(gcp_arena_t *a, time_t sec)
{
    char  buf[GCP_TIME_BUFSIZE];

    return gcp_strndup(a, buf, gcp_time_format(buf, sec));
}


const char *
gcp_time_micro_str(gcp_arena_t *a, const struct timespec *ts)
{
    char  buf[GCP_TIME_BUFSIZE];

    return gcp_strndup(a, buf, gcp_time_format_micro(buf, ts));
}


/* ------------------------------------------------------------------ */
/* parsing: Go's time.parse() for the RFC 3339 layouts                 */

typedef enum {
    GCP_TP_YEAR = 0,
    GCP_TP_MONTH,
    GCP_TP_DAY,
    GCP_TP_HOUR,
    GCP_TP_MINUTE,
    GCP_TP_SECOND,
    GCP_TP_FRAC6,
    GCP_TP_ZONE
} gcp_tp_std_t;


typedef struct {
    const char    *prefix;      /* literal text before the element */
    const char    *std;         /* the layout element, for messages */
    gcp_tp_std_t   kind;
} gcp_tp_chunk_t;


static const gcp_tp_chunk_t  gcp_tp_rfc3339[] = {
    { "", "2006", GCP_TP_YEAR },
    { "-", "01", GCP_TP_MONTH },
    { "-", "02", GCP_TP_DAY },
    { "T", "15", GCP_TP_HOUR },
    { ":", "04", GCP_TP_MINUTE },
    { ":", "05", GCP_TP_SECOND },
    { "", "Z07:00", GCP_TP_ZONE },
};

static const gcp_tp_chunk_t  gcp_tp_rfc3339_micro[] = {
    { "", "2006", GCP_TP_YEAR },
    { "-", "01", GCP_TP_MONTH },
    { "-", "02", GCP_TP_DAY },
    { "T", "15", GCP_TP_HOUR },
    { ":", "04", GCP_TP_MINUTE },
    { ":", "05", GCP_TP_SECOND },
    { "", ".000000", GCP_TP_FRAC6 },
    { "", "Z07:00", GCP_TP_ZONE },
};


typedef struct {
    const char  *v;             /* what is left of the value */
    size_t       n;
} gcp_tp_val_t;


#define gcp_tp_digit(val, i)                                                  \
    ((val)->n > (i) && (val)->v[i] >= '0' && (val)->v[i] <= '9')


/* Go's getnum(): one or two digits (exactly two if fixed); -1 if none. */
static int
gcp_tp_getnum(gcp_tp_val_t *val, int fixed)
{
    int  n;

    if (!gcp_tp_digit(val, 0)) {
        return -1;
    }

    if (!gcp_tp_digit(val, 1)) {
        if (fixed) {
            return -1;
        }

        n = val->v[0] - '0';
        val->v++;
        val->n--;
        return n;
    }

    n = (val->v[0] - '0') * 10 + (val->v[1] - '0');
    val->v += 2;
    val->n -= 2;

    return n;
}


/* Go's atoi() on s[0, n): an optional sign, then digits only. */
static int
gcp_tp_atoi(const char *s, size_t n, int64_t *x)
{
    int     neg;
    size_t  i;

    neg = 0;
    i = 0;

    if (n > 0 && (s[0] == '-' || s[0] == '+')) {
        neg = (s[0] == '-');
        i = 1;
    }

    *x = 0;

    for ( /* void */ ; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return -1;
        }
        *x = *x * 10 + (s[i] - '0');
    }

    if (neg) {
        *x = -*x;
    }

    return 0;
}


/* Go's parseNanoseconds(): s[0] is '.' or ',', then nbytes - 1 digits. */
static int
gcp_tp_nanoseconds(const char *s, size_t nbytes, int64_t *ns, int *range)
{
    size_t  scale;

    if (s[0] != '.' && s[0] != ',') {
        return -1;
    }

    if (nbytes > 10) {
        nbytes = 10;
    }

    if (gcp_tp_atoi(s + 1, nbytes - 1, ns) != 0) {
        return -1;
    }

    if (*ns < 0) {
        *range = 1;
        return 0;
    }

    for (scale = 10 - nbytes; scale > 0; scale--) {
        *ns *= 10;
    }

    return 0;
}


/* Go's time.quote(): bytes outside ' '..0x7f become \xNN. */
static void
gcp_tp_quote(gcp_buf_t *b, const char *s, size_t n)
{
    size_t         i;
    unsigned char  c;

    gcp_buf_addc(b, '"');

    for (i = 0; i < n; i++) {
        c = (unsigned char) s[i];

        if (c < ' ' || c >= 0x80) {
            gcp_buf_printf(b, "\\x%02x", c);
            continue;
        }

        if (c == '"' || c == '\\') {
            gcp_buf_addc(b, '\\');
        }

        gcp_buf_addc(b, (char) c);
    }

    gcp_buf_addc(b, '"');
}


/*
 * Go's ParseError.Error(): with elem, "parsing time V as LAYOUT: cannot
 * parse ELEM as STD"; else "parsing time V" followed by tail (and the
 * quoted rest for "extra text").
 */
static int
gcp_tp_error(gcp_arena_t *a, const char **msg, const char *s, size_t n,
    const char *layout, const gcp_tp_val_t *elem, const char *std,
    const char *tail)
{
    gcp_buf_t  b;

    if (msg == NULL) {
        return GCP_EBADREQUEST;
    }

    gcp_buf_init(&b, a);
    gcp_buf_addstr(&b, "parsing time ");
    gcp_tp_quote(&b, s, n);

    if (tail) {
        gcp_buf_addstr(&b, tail);

        if (elem) {
            gcp_tp_quote(&b, elem->v, elem->n);
        }

    } else {
        gcp_buf_addstr(&b, " as ");
        gcp_tp_quote(&b, layout, strlen(layout));
        gcp_buf_addstr(&b, ": cannot parse ");
        gcp_tp_quote(&b, elem->v, elem->n);
        gcp_buf_addstr(&b, " as ");
        gcp_tp_quote(&b, std, strlen(std));
    }

    *msg = gcp_buf_failed(&b) ? NULL : gcp_strndup(a, b.data, b.len);

    return GCP_EBADREQUEST;
}


/* The time zone element "Z" or "+hh:mm"; sets *off (seconds east). */
static int
gcp_tp_zone(gcp_tp_val_t *val, int *off, const char **range)
{
    int           hr, mm, err;
    gcp_tp_val_t  h, m;

    if (val->n >= 1 && val->v[0] == 'Z') {
        val->v++;
        val->n--;
        *off = 0;
        return 0;
    }

    if (val->n < 6 || val->v[3] != ':') {
        return -1;
    }

    h.v = val->v + 1;
    h.n = 2;
    m.v = val->v + 4;
    m.n = 2;

    err = 0;
    mm = 0;

    hr = gcp_tp_getnum(&h, 1);
    if (hr < 0) {
        hr = 0;
        err = -1;

    } else {
        mm = gcp_tp_getnum(&m, 1);
        if (mm < 0) {
            mm = 0;
            err = -1;
        }
    }

    /* Go accepts 24 hours and 60 minutes ("some people do write them") */

    if (hr > 24) {
        *range = ": time zone offset hour out of range";
    }

    if (mm > 60) {
        *range = ": time zone offset minute out of range";
    }

    *off = (hr * 60 + mm) * 60;

    if (val->v[0] == '-') {
        *off = -*off;

    } else if (val->v[0] != '+') {
        err = -1;
    }

    val->v += 6;
    val->n -= 6;

    return err;
}


static int
gcp_time_parse_layout(gcp_arena_t *a, const char *layout,
    const gcp_tp_chunk_t *chunks, size_t nchunks, const char *s, size_t len,
    struct timespec *out, const char **msg)
{
    int                    err, month, day, hour, minute, sec, off, x;
    size_t                 i, k, n;
    int64_t                year, nsec, v;
    const char            *range;
    gcp_tp_val_t           val, hold;
    const gcp_tp_chunk_t  *c;

    val.v = s;
    val.n = len;

    year = 0;
    month = day = hour = minute = sec = off = 0;
    nsec = 0;

    for (i = 0; i < nchunks; i++) {
        c = &chunks[i];

        for (k = 0; c->prefix[k]; k++) {
            if (val.n == 0 || val.v[0] != c->prefix[k]) {
                return gcp_tp_error(a, msg, s, len, layout, &val, c->prefix,
                                    NULL);
            }

            val.v++;
            val.n--;
        }

        hold = val;
        err = 0;
        range = NULL;

        switch (c->kind) {

        case GCP_TP_YEAR:
            if (val.n < 4 || !gcp_tp_digit(&val, 0)
                || gcp_tp_atoi(val.v, 4, &year) != 0)
            {
                err = -1;
                break;
            }

            val.v += 4;
            val.n -= 4;
            break;

        case GCP_TP_MONTH:
            month = gcp_tp_getnum(&val, 1);
            err = (month < 0) ? -1 : 0;

            if (err == 0 && (month <= 0 || month > 12)) {
                range = ": month out of range";
            }
            break;

        case GCP_TP_DAY:
            day = gcp_tp_getnum(&val, 1);
            err = (day < 0) ? -1 : 0;
            break;

        case GCP_TP_HOUR:
            hour = gcp_tp_getnum(&val, 0);
            err = (hour < 0) ? -1 : 0;

            if (hour >= 24) {
                range = ": hour out of range";
            }
            break;

        case GCP_TP_MINUTE:
            minute = gcp_tp_getnum(&val, 1);
            err = (minute < 0) ? -1 : 0;

            if (minute >= 60) {
                range = ": minute out of range";
            }
            break;

        case GCP_TP_SECOND:
            sec = gcp_tp_getnum(&val, 1);
            if (sec < 0) {
                err = -1;
                break;
            }

            if (sec >= 60) {
                range = ": second out of range";
                break;
            }

            /* a fraction the layout does not name is still accepted */

            if (val.n >= 2 && (val.v[0] == '.' || val.v[0] == ',')
                && gcp_tp_digit(&val, 1)
                && !(i + 1 < nchunks && chunks[i + 1].kind == GCP_TP_FRAC6))
            {
                for (n = 2; gcp_tp_digit(&val, n); n++) {
                    /* void */
                }

                x = 0;
                err = gcp_tp_nanoseconds(val.v, n, &nsec, &x);
                val.v += n;
                val.n -= n;
            }
            break;

        case GCP_TP_FRAC6:
            if (val.n < 7) {
                err = -1;
                break;
            }

            x = 0;
            err = gcp_tp_nanoseconds(val.v, 7, &nsec, &x);
            if (x) {
                range = ": fractional second out of range";
            }

            val.v += 7;
            val.n -= 7;
            break;

        case GCP_TP_ZONE:
            err = gcp_tp_zone(&val, &off, &range);
            break;
        }

        if (range) {
            return gcp_tp_error(a, msg, s, len, layout, NULL, NULL, range);
        }

        if (err) {
            return gcp_tp_error(a, msg, s, len, layout, &hold, c->std, NULL);
        }
    }

    if (val.n > 0) {
        return gcp_tp_error(a, msg, s, len, layout, &val, NULL,
                            ": extra text: ");
    }

    if (day < 1 || day > gcp_days_in(month, year)) {
        return gcp_tp_error(a, msg, s, len, layout, NULL, NULL,
                            ": day out of range");
    }

    v = gcp_days_from_civil(year, (unsigned) month, (unsigned) day)
        * GCP_SEC_PER_DAY + hour * 3600 + minute * 60 + sec - off;

    out->tv_sec = (time_t) v;
    out->tv_nsec = (long) nsec;

    return GCP_OK;
}


int
gcp_time_parse(gcp_arena_t *a, const char *s, size_t len,
    struct timespec *out, const char **msg)
{
    return gcp_time_parse_layout(a, GCP_RFC3339, gcp_tp_rfc3339,
                                 gcp_nelems(gcp_tp_rfc3339), s, len, out,
                                 msg);
}


int
gcp_time_parse_micro(gcp_arena_t *a, const char *s, size_t len,
    struct timespec *out, const char **msg)
{
    return gcp_time_parse_layout(a, GCP_RFC3339_MICRO, gcp_tp_rfc3339_micro,
                                 gcp_nelems(gcp_tp_rfc3339_micro), s, len,
                                 out, msg);
}


/* ------------------------------------------------------------------ */
/* human durations (k8s.io/apimachinery/pkg/util/duration)             */

#define GCP_NS_MINUTE  (60 * GCP_NSEC_PER_SEC)
#define GCP_NS_HOUR    (60 * GCP_NS_MINUTE)


/* int(d.Seconds()), int(d.Minutes()), int(d.Hours()) as Go computes them */
static int64_t
gcp_go_units(int64_t d, int64_t unit)
{
    return (int64_t) ((double) (d / unit) + (double) (d % unit) / unit);
}


size_t
gcp_human_duration(char *buf, int64_t d)
{
    int64_t  seconds, minutes, hours, r;

    seconds = gcp_go_units(d, GCP_NSEC_PER_SEC);

    if (seconds < -1) {
        return (size_t) sprintf(buf, "<invalid>");
    }

    if (seconds < 0) {
        return (size_t) sprintf(buf, "0s");
    }

    if (seconds < 60 * 2) {
        return (size_t) sprintf(buf, "%llds", (long long) seconds);
    }

    minutes = d / GCP_NS_MINUTE;

    if (minutes < 10) {
        r = d / GCP_NSEC_PER_SEC % 60;
        return (size_t) (r == 0 ? sprintf(buf, "%lldm", (long long) minutes)
                                : sprintf(buf, "%lldm%llds",
                                          (long long) minutes, (long long) r));
    }

    if (minutes < 60 * 3) {
        return (size_t) sprintf(buf, "%lldm", (long long) minutes);
    }

    hours = d / GCP_NS_HOUR;

    if (hours < 8) {
        r = d / GCP_NS_MINUTE % 60;
        return (size_t) (r == 0 ? sprintf(buf, "%lldh", (long long) hours)
                                : sprintf(buf, "%lldh%lldm",
                                          (long long) hours, (long long) r));
    }

    if (hours < 48) {
        return (size_t) sprintf(buf, "%lldh", (long long) hours);
    }

    if (hours < 24 * 8) {
        r = hours % 24;
        return (size_t) (r == 0
                         ? sprintf(buf, "%lldd", (long long) (hours / 24))
                         : sprintf(buf, "%lldd%lldh",
                                   (long long) (hours / 24), (long long) r));
    }

    if (hours < 24 * 365 * 2) {
        return (size_t) sprintf(buf, "%lldd", (long long) (hours / 24));
    }

    if (hours < 24 * 365 * 8) {
        r = hours / 24 % 365;
        return (size_t) (r == 0
                         ? sprintf(buf, "%lldy", (long long) (hours / 24 / 365))
                         : sprintf(buf, "%lldy%lldd",
                                   (long long) (hours / 24 / 365),
                                   (long long) r));
    }

    return (size_t) sprintf(buf, "%lldy", (long long) (hours / 24 / 365));
}


size_t
gcp_short_human_duration(char *buf, int64_t d)
{
    int64_t  seconds, minutes, hours;
    double   fh;

    seconds = gcp_go_units(d, GCP_NSEC_PER_SEC);

    if (seconds < -1) {
        return (size_t) sprintf(buf, "<invalid>");
    }

    if (seconds < 0) {
        return (size_t) sprintf(buf, "0s");
    }

    if (seconds < 60) {
        return (size_t) sprintf(buf, "%llds", (long long) seconds);
    }

    minutes = gcp_go_units(d, GCP_NS_MINUTE);

    if (minutes < 60) {
        return (size_t) sprintf(buf, "%lldm", (long long) minutes);
    }

    hours = gcp_go_units(d, GCP_NS_HOUR);

    if (hours < 24) {
        return (size_t) sprintf(buf, "%lldh", (long long) hours);
    }

    if (hours < 24 * 365) {
        return (size_t) sprintf(buf, "%lldd", (long long) (hours / 24));
    }

    /* int(d.Hours()/24/365), in floating point as Go does */
    fh = (double) (d / GCP_NS_HOUR) + (double) (d % GCP_NS_HOUR) / GCP_NS_HOUR;

    return (size_t) sprintf(buf, "%lldy", (long long) (fh / 24 / 365));
}


size_t
gcp_time_age(char *buf, const struct timespec *ts)
{
    int64_t          ds, d;
    struct timespec  now;

    if (ts == NULL || (ts->tv_sec == GCP_GO_ZERO_TIME && ts->tv_nsec == 0)) {
        return (size_t) sprintf(buf, "<unknown>");
    }

    now = gcp_time_now();
    ds = (int64_t) now.tv_sec - (int64_t) ts->tv_sec;

    /* time.Since saturates at the largest Durations (about 292 years) */

    if (ds > INT64_MAX / GCP_NSEC_PER_SEC - 1) {
        d = INT64_MAX;

    } else if (ds < INT64_MIN / GCP_NSEC_PER_SEC + 1) {
        d = INT64_MIN;

    } else {
        d = ds * GCP_NSEC_PER_SEC + (now.tv_nsec - ts->tv_nsec);
    }

    return gcp_human_duration(buf, d);
}
