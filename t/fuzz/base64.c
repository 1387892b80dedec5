/*
 * Fuzzing base64 as the server decodes it: StdEncoding (Secret data,
 * protobuf bytes fields given as JSON, etcd's JSON gateway) and
 * RawURLEncoding (continue tokens, JWTs).  Decoded bytes must encode to
 * text that decodes to the same bytes, and both decoders must agree.
 *
 * Input: a byte choosing the mode (bit 0: RawURLEncoding), then the text.
 */

#include <string.h>
#include <sys/types.h>

#include "gcp_base64.h"
#include "fuzz.h"


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int                 rc;
    char               *into;
    size_t              bad;
    ssize_t             n;
    gcp_buf_t           b;
    fuzz_in_t           in;
    gcp_str_t           out, again;
    const char         *msg;
    gcp_arena_t        *a;
    gcp_base64_mode_t   mode;

    in.p = data;
    in.n = size;
    mode = (fuzz_byte(&in) & 1) ? GCP_BASE64_RAWURL : GCP_BASE64_STD;

    a = gcp_arena_create(0);
    FUZZ_CHECK(a != NULL);

    into = gcp_alloc(a, GCP_BASE64_DECODED_MAX(in.n) + 1);
    FUZZ_CHECK(into != NULL);

    bad = 0;
    n = gcp_base64_decode_into((const char *) in.p, in.n, mode, into, &bad);

    msg = NULL;
    rc = gcp_base64_decode_mode(a, (const char *) in.p, in.n, mode, &out,
                                &msg);

    if (rc != GCP_OK) {
        FUZZ_CHECK(rc == GCP_EBADREQUEST && msg != NULL);
        FUZZ_CHECK(n == -1 && bad <= in.n);
        gcp_arena_destroy(a);
        return 0;
    }

    FUZZ_CHECK(n >= 0 && (size_t) n == out.len);
    FUZZ_CHECK(out.len <= GCP_BASE64_DECODED_MAX(in.n));
    FUZZ_CHECK(out.len == 0 || memcmp(into, out.data, out.len) == 0);

    gcp_buf_init(&b, a);
    gcp_base64_encode_buf(&b, out.data, out.len, mode);
    FUZZ_CHECK(!b.failed);

    FUZZ_CHECK(gcp_base64_decode_mode(a, b.data ? b.data : "", b.len, mode,
                                      &again, &msg) == GCP_OK);
    FUZZ_CHECK(again.len == out.len
               && (out.len == 0 || memcmp(again.data, out.data, out.len) == 0));

    gcp_arena_destroy(a);

    return 0;
}
