/*
 * Fuzzing JSON Web Tokens as bearer tokens bring them (authn/gcp_jwt.c):
 * parsing the compact form, peeking at the claims (the issuer check before
 * an authenticator is chosen) and verifying the signature with the
 * service-account keys of a test PKI (RSA and P-256).  A token signed by
 * one of those keys must parse back to its claims and verify.
 *
 * Input: a byte of flags (bit 0: the rest is a claims object to sign with
 * the RSA key, bit 1 with the P-256 key instead; else the rest is a
 * token), then the text.
 */

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gcp_jwt.h"
#include "support_auth.h"
#include "fuzz.h"


static auth_pki_t      *pki;
static gcp_jwt_key_t   *rsa, *ec;
static gcp_jwt_keys_t   keys;


static void
jwt_exit(void)
{
    gcp_jwt_keys_free(&keys);
    gcp_jwt_key_free(rsa);
    gcp_jwt_key_free(ec);
    auth_pki_destroy(pki);
}


static void
jwt_init(void)
{
    char  err[256];

    pki = auth_pki_create();

    rsa = gcp_jwt_key_load_private(pki->rsa_key_file, err, sizeof(err));
    ec = gcp_jwt_key_load_private(pki->ec_key_file, err, sizeof(err));
    FUZZ_CHECK(rsa != NULL && ec != NULL);

    FUZZ_CHECK(gcp_jwt_keys_add_public(&keys, rsa) == GCP_OK);
    FUZZ_CHECK(gcp_jwt_keys_add_public(&keys, ec) == GCP_OK);

    atexit(jwt_exit);
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t        *claims;
    uint8_t        flags;
    gcp_jwt_t      jwt;
    fuzz_in_t      in;
    const char    *token;
    gcp_arena_t   *a;

    if (pki == NULL) {
        jwt_init();
    }

    in.p = data;
    in.n = size;
    flags = fuzz_byte(&in);

    a = gcp_arena_create(0);
    FUZZ_CHECK(a != NULL);

    if (flags & 3) {
        claims = json_loadb((const char *) in.p, in.n, 0, NULL);

        if (claims == NULL) {
            gcp_arena_destroy(a);
            return -1;
        }

        token = gcp_jwt_sign(a, (flags & 1) ? rsa : ec, claims);
        FUZZ_CHECK(token != NULL);

        FUZZ_CHECK(gcp_jwt_parse(a, token, strlen(token), &jwt) == GCP_OK);
        FUZZ_CHECK(json_equal(jwt.claims, claims));
        FUZZ_CHECK(gcp_jwt_verify(&jwt, &keys) == GCP_OK);
        FUZZ_CHECK(gcp_jwt_peek_claims(a, token, strlen(token)) != NULL);

        json_decref(claims);
        gcp_arena_destroy(a);
        return 0;
    }

    (void) gcp_jwt_peek_claims(a, (const char *) in.p, in.n);

    if (gcp_jwt_parse(a, (const char *) in.p, in.n, &jwt) == GCP_OK) {
        FUZZ_CHECK(jwt.header != NULL && jwt.claims != NULL
                   && jwt.alg != NULL);
        (void) gcp_jwt_verify(&jwt, &keys);
    }

    gcp_arena_destroy(a);

    return 0;
}
