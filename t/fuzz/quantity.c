/*
 * Fuzzing resource quantities (meta/gcp_quantity.c) as a ResourceQuota's
 * spec.hard and a CRD's int-or-string values give them to the server: the
 * text parsed as resource.ParseQuantity.  When it parses: BinarySI
 * quantities are capped at the largest int64 as upstream caps them (its
 * decimal ones only off its int64 fast path: "230E" stays); the canonical
 * text parses again to the same quantity, and from
 * there its text is stable (not at once: as upstream's, a BinarySI
 * quantity that is no whole multiple of its suffix prints as plain
 * digits, which parse as DecimalSI: "0.9765625Ki" is "1000", then "1k");
 * sums and comparisons of any two quantities stay defined.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_quantity.h"
#include "fuzz.h"


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t          n, m;
    const char     *err;
    gcp_quantity_t  q, r, r2, sum, max;
    char            buf[GCP_QUANTITY_BUFSIZE], again[GCP_QUANTITY_BUFSIZE];

    err = NULL;

    if (gcp_quantity_parse((const char *) data, size, &q, &err) != GCP_OK) {
        FUZZ_CHECK(err != NULL);
        return 0;
    }

    if (q.format == GCP_QTY_BINARY_SI) {
        gcp_quantity_set_int(&max, INT64_MAX);
        FUZZ_CHECK(gcp_quantity_cmp(&q, &max) <= 0);
    }

    n = gcp_quantity_format(&q, buf);
    FUZZ_CHECK(n > 0 && n < GCP_QUANTITY_BUFSIZE && buf[n] == '\0');

    err = NULL;
    FUZZ_CHECK(gcp_quantity_parse(buf, n, &r, &err) == GCP_OK);
    FUZZ_CHECK(gcp_quantity_cmp(&q, &r) == 0);

    n = gcp_quantity_format(&r, buf);
    FUZZ_CHECK(gcp_quantity_parse(buf, n, &r2, &err) == GCP_OK);
    FUZZ_CHECK(gcp_quantity_cmp(&r, &r2) == 0);

    m = gcp_quantity_format(&r2, again);
    FUZZ_CHECK(m == n && memcmp(buf, again, n) == 0);

    gcp_quantity_add(&sum, &q, &r);
    (void) gcp_quantity_cmp(&sum, &q);
    (void) gcp_quantity_negative(&sum);
    (void) gcp_quantity_integral(&sum);
    n = gcp_quantity_format(&sum, buf);
    FUZZ_CHECK(n > 0 && n < GCP_QUANTITY_BUFSIZE);

    return 0;
}
