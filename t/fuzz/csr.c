/*
 * Fuzzing CertificateSigningRequest bytes as the server reads them:
 * spec.request (a PEM "CERTIFICATE REQUEST" block, PKCS#10 parsed and its
 * signature checked by OpenSSL) and status.certificate (CERTIFICATE
 * blocks), through the type's validation as a create and as a /status
 * update would see them.  A request that parses has a subject; every
 * refusal has a message.
 *
 * Input: a byte choosing what the rest is (bit 0: the request, else the
 * certificate), then the PEM text.
 */

#include <string.h>

#include "gcp_base64.h"
#include "gcp_csr.h"
#include "gcp_json.h"
#include "fuzz.h"


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int              rc, request;
    json_t          *obj, *old;
    time_t           not_after;
    fuzz_in_t        in;
    gcp_str_t        b64;
    const char      *err;
    gcp_ferrs_t      errs;
    gcp_arena_t     *a;
    gcp_csr_info_t   info;

    in.p = data;
    in.n = size;
    request = fuzz_byte(&in) & 1;

    a = gcp_arena_create(0);
    FUZZ_CHECK(a != NULL);

    err = NULL;

    if (request) {
        rc = gcp_csr_parse(a, (const char *) in.p, in.n, &info, &err);
        FUZZ_CHECK(rc == GCP_OK || (rc == GCP_EINVALID && err != NULL));

        if (rc == GCP_OK) {
            FUZZ_CHECK(info.cn != NULL && info.req != NULL);
            FUZZ_CHECK(info.orgs != NULL && info.orgs[info.norgs] == NULL);
        }

    } else {
        rc = gcp_csr_check_certificate(a, (const char *) in.p, in.n,
                                       &not_after, &err);
        FUZZ_CHECK(rc == GCP_OK || (rc == GCP_EINVALID && err != NULL));
    }

    /* the same bytes in an object, as validation sees them */

    b64 = gcp_base64_encode(a, (const char *) in.p, in.n);
    FUZZ_CHECK(b64.data != NULL);

    obj = gcp_json_arena(a, json_pack("{s:{s:s}, s:{s:s%, s:s, s:[s]}, s:{}}",
                                      "metadata", "name", "x",
                                      "spec", "request",
                                      request ? b64.data : "",
                                      request ? b64.len : 0,
                                      "signerName", "example.com/x",
                                      "usages", "client auth",
                                      "status"));
    FUZZ_CHECK(obj != NULL);

    old = gcp_json_arena(a, json_deep_copy(obj));
    FUZZ_CHECK(old != NULL);

    if (!request) {
        json_object_set_new(json_object_get(obj, "status"), "certificate",
                            json_stringn(b64.data, b64.len));
    }

    gcp_ferrs_init(&errs, a);
    gcp_csr_validate(&errs, obj, request ? NULL : old,
                     request ? NULL : "status");
    FUZZ_CHECK(!errs.nomem);
    FUZZ_CHECK(!request || (rc == GCP_OK) == (errs.n == 0));

    gcp_arena_destroy(a);

    return 0;
}
