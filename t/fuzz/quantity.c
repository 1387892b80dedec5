/*
 * Fuzzing resource quantities (meta/gcp_quantity.c) as a ResourceQuota's
 * spec.hard and a CRD's int-or-string values give them to the server: the
 * text parsed as resource.ParseQuantity, and when it parses, its canonical
 * text must parse again to the same quantity and the same text (the server
 * stores the canonical text and reads it back); sums and comparisons of
 * any two quantities stay defined.
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
    gcp_quantity_t  q, r, sum;
    char            buf[GCP_QUANTITY_BUFSIZE], again[GCP_QUANTITY_BUFSIZE];

    err = NULL;

    if (gcp_quantity_parse((const char *) data, size, &q, &err) != GCP_OK) {
        FUZZ_CHECK(err != NULL);
        return 0;
    }

    n = gcp_quantity_format(&q, buf);
    FUZZ_CHECK(n > 0 && n < GCP_QUANTITY_BUFSIZE && buf[n] == '\0');

    err = NULL;
    FUZZ_CHECK(gcp_quantity_parse(buf, n, &r, &err) == GCP_OK);
    FUZZ_CHECK(gcp_quantity_cmp(&q, &r) == 0);

    m = gcp_quantity_format(&r, again);
    FUZZ_CHECK(m == n && memcmp(buf, again, n) == 0);

    gcp_quantity_add(&sum, &q, &r);
    (void) gcp_quantity_cmp(&sum, &q);
    (void) gcp_quantity_negative(&sum);
    (void) gcp_quantity_integral(&sum);
    n = gcp_quantity_format(&sum, buf);
    FUZZ_CHECK(n > 0 && n < GCP_QUANTITY_BUFSIZE);

    return 0;
}
