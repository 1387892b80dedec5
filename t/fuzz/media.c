/*
 * Fuzzing the Accept and Content-Type headers as every request gives them
 * (encoding/gcp_media.c): content negotiation with q-values, parameters
 * and the as=/g=/v= transformations (Table, PartialObjectMetadata,
 * aggregated discovery), and the classification of a body's media type.
 *
 * Input: a byte of the kinds allowed (as the route allows them: bit k for
 * gcp_media_kind_t k + 1, JSON always), then the header's value.
 */

#include <stdlib.h>
#include <string.h>

#include "gcp_media.h"
#include "fuzz.h"


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int           rc;
    char         *header;
    unsigned      allowed;
    fuzz_in_t     in;
    const char   *ct;
    gcp_media_t   m;
    gcp_arena_t  *a;

    in.p = data;
    in.n = size;

    allowed = ((unsigned) fuzz_byte(&in) << 1) | GCP_MEDIA_BIT(GCP_MEDIA_JSON);

    /* a header value ends at a NUL: the adapter passes C strings */

    header = fuzz_strndup(in.p, in.n);

    a = gcp_arena_create(0);
    FUZZ_CHECK(a != NULL);

    memset(&m, 0, sizeof(m));
    rc = gcp_media_negotiate(a, header, allowed, &m);

    if (rc == GCP_OK) {
        FUZZ_CHECK(m.kind != GCP_MEDIA_NONE);
        FUZZ_CHECK((allowed & GCP_MEDIA_BIT(m.kind)) != 0);

    } else {
        FUZZ_CHECK(rc == GCP_ENOTACCEPTABLE);
    }

    ct = gcp_media_content_type(a, header);
    FUZZ_CHECK(ct != NULL && strlen(ct) <= strlen(header));

    gcp_arena_destroy(a);
    free(header);

    return 0;
}
