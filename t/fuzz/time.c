/*
 * Fuzzing times as objects carry them: metav1.Time (RFC 3339, e.g.
 * creationTimestamp, a Lease's acquireTime in v1 Events) and
 * metav1.MicroTime (six fractional digits, a Lease's renewTime, an
 * Event's eventTime), parsed as Go's time.Parse.  A time that parses must
 * print (as the server stores it) to text that parses to the same second,
 * and to the same microsecond for MicroTime.
 *
 * Input: a byte choosing the layout (bit 0: MicroTime), then the text.
 */

#include <string.h>
#include <time.h>

#include "gcp_time.h"
#include "fuzz.h"


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int               rc, micro;
    char              buf[64];
    size_t            n;
    fuzz_in_t         in;
    const char       *msg;
    gcp_arena_t      *a;
    struct timespec   ts, again;

    in.p = data;
    in.n = size;
    micro = fuzz_byte(&in) & 1;

    a = gcp_arena_create(0);
    FUZZ_CHECK(a != NULL);

    msg = NULL;
    rc = micro ? gcp_time_parse_micro(a, (const char *) in.p, in.n, &ts, &msg)
               : gcp_time_parse(a, (const char *) in.p, in.n, &ts, &msg);

    if (rc != GCP_OK) {
        FUZZ_CHECK(rc == GCP_EBADREQUEST && msg != NULL);
        gcp_arena_destroy(a);
        return 0;
    }

    FUZZ_CHECK(ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000);

    if (micro) {
        n = gcp_time_format_micro(buf, &ts);
        FUZZ_CHECK(n > 0 && n < sizeof(buf));
        FUZZ_CHECK(gcp_time_parse_micro(a, buf, n, &again, &msg) == GCP_OK);
        FUZZ_CHECK(again.tv_sec == ts.tv_sec
                   && again.tv_nsec / 1000 == ts.tv_nsec / 1000);

    } else {
        n = gcp_time_format(buf, ts.tv_sec);
        FUZZ_CHECK(n > 0 && n < sizeof(buf));
        FUZZ_CHECK(gcp_time_parse(a, buf, n, &again, &msg) == GCP_OK);
        FUZZ_CHECK(again.tv_sec == ts.tv_sec);
    }

    gcp_arena_destroy(a);

    return 0;
}
