/*
 * Fuzzing JSON Web Tokens as bearer tokens bring them (authn/gcp_jwt.c):
 * parsing the compact form, peeking at the claims (the issuer check before
 * an authenticator is chosen), verifying the signature with keys of the
 * nine algorithms upstream's JWT authenticators accept (RSA, P-256, P-384
 * and P-521 keys, also through their JWKS), and reading an issuer's JSON
 * Web Key Set.  A token signed by one of those keys must parse back to
 * its claims and verify, by key id too, with the keys as the set itself
 * and as its JWKS read back.
 *
 * Input: a byte of flags, then the text.  Flags 0x80: the rest is a JWKS
 * (read, then a fixed token of each key checked against it); else flags
 * & 0x0f from 1 to 9: the rest is a claims object to sign with that
 * algorithm (RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384,
 * ES512); else the rest is a token.
 */

#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "gcp_json.h"
#include "gcp_jwt.h"
#include "support_auth.h"
#include "fuzz.h"


static auth_pki_t      *pki;
static gcp_jwt_key_t   *rsa, *p256, *p384, *p521;
static gcp_jwt_keys_t   keys, jwks_keys;
static const char      *fixed[4];       /* a token of each key */
static gcp_arena_t     *fixed_a;

static const char * const  algs[] = {
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384",
    "ES512"
};


static void
jwt_exit(void)
{
    gcp_jwt_keys_free(&keys);
    gcp_jwt_keys_free(&jwks_keys);
    gcp_jwt_key_free(rsa);
    gcp_jwt_key_free(p256);
    gcp_jwt_key_free(p384);
    gcp_jwt_key_free(p521);
    gcp_arena_destroy(fixed_a);
    auth_pki_destroy(pki);
}


static gcp_jwt_key_t *
jwt_ec_key(const char *name, const char *curve)
{
    char            err[256], *path;
    FILE           *f;
    EVP_PKEY       *k;
    gcp_jwt_key_t  *key;

    path = auth_pki_path(pki, name);
    k = EVP_EC_gen(curve);
    f = fopen(path, "w");
    FUZZ_CHECK(k != NULL && f != NULL);
    FUZZ_CHECK(PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL) == 1);
    fclose(f);
    EVP_PKEY_free(k);

    key = gcp_jwt_key_load_private(path, err, sizeof(err));
    FUZZ_CHECK(key != NULL);
    free(path);

    return key;
}


/* The key of an algorithm. */

static gcp_jwt_key_t *
jwt_key_for(const char *alg)
{
    if (alg[0] != 'E') {
        return rsa;
    }

    return strcmp(alg, "ES256") == 0 ? p256
           : strcmp(alg, "ES384") == 0 ? p384 : p521;
}


static void
jwt_init(void)
{
    char        err[256];
    json_t     *doc, *claims;
    gcp_buf_t   b;

    pki = auth_pki_create();

    rsa = gcp_jwt_key_load_private(pki->rsa_key_file, err, sizeof(err));
    p256 = gcp_jwt_key_load_private(pki->ec_key_file, err, sizeof(err));
    FUZZ_CHECK(rsa != NULL && p256 != NULL);

    p384 = jwt_ec_key("p384.key", "P-384");
    p521 = jwt_ec_key("p521.key", "P-521");

    FUZZ_CHECK(gcp_jwt_keys_add_public(&keys, rsa) == GCP_OK);
    FUZZ_CHECK(gcp_jwt_keys_add_public(&keys, p256) == GCP_OK);
    FUZZ_CHECK(gcp_jwt_keys_add_public(&keys, p384) == GCP_OK);
    FUZZ_CHECK(gcp_jwt_keys_add_public(&keys, p521) == GCP_OK);

    /* the same keys as an issuer serves them */

    fixed_a = gcp_arena_create(0);
    FUZZ_CHECK(fixed_a != NULL);

    gcp_buf_init(&b, fixed_a);
    FUZZ_CHECK(gcp_jwt_keys_jwks(&b, &keys) == GCP_OK);
    doc = json_loadb(b.data, b.len, 0, NULL);
    FUZZ_CHECK(doc != NULL);
    FUZZ_CHECK(gcp_jwt_keys_from_jwks(&jwks_keys, doc) == GCP_OK);
    FUZZ_CHECK(jwks_keys.n == 4);
    json_decref(doc);

    claims = json_pack("{s:s}", "iss", "https://issuer.example");
    fixed[0] = gcp_jwt_sign_alg(fixed_a, rsa, "PS256", claims);
    fixed[1] = gcp_jwt_sign_alg(fixed_a, p256, "ES256", claims);
    fixed[2] = gcp_jwt_sign_alg(fixed_a, p384, "ES384", claims);
    fixed[3] = gcp_jwt_sign_alg(fixed_a, p521, "ES512", claims);
    json_decref(claims);

    FUZZ_CHECK(fixed[0] && fixed[1] && fixed[2] && fixed[3]);

    atexit(jwt_exit);
}


/* A JWKS from the input: read, then the fixed tokens checked with it. */

static void
jwt_jwks(gcp_arena_t *a, const fuzz_in_t *in)
{
    size_t           i;
    json_t          *doc;
    gcp_jwt_t        jwt;
    gcp_jwt_keys_t   set;

    doc = json_loadb((const char *) in->p, in->n, 0, NULL);
    if (doc == NULL) {
        return;
    }

    memset(&set, 0, sizeof(set));

    if (gcp_jwt_keys_from_jwks(&set, doc) == GCP_OK) {
        for (i = 0; i < 4; i++) {
            FUZZ_CHECK(gcp_jwt_parse(a, fixed[i], strlen(fixed[i]), &jwt)
                       == GCP_OK);
            (void) gcp_jwt_verify_kid(&jwt, &set);
            (void) gcp_jwt_verify(&jwt, &set);
        }
    }

    gcp_jwt_keys_free(&set);
    json_decref(doc);
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t         *claims, *expected;
    uint8_t         flags;
    gcp_str_t       dump;
    gcp_jwt_t       jwt;
    fuzz_in_t       in;
    const char     *token, *alg, *msg;
    gcp_arena_t    *a;

    if (pki == NULL) {
        jwt_init();
    }

    in.p = data;
    in.n = size;
    flags = fuzz_byte(&in);

    a = gcp_arena_create(0);
    FUZZ_CHECK(a != NULL);

    if (flags & 0x80) {
        jwt_jwks(a, &in);
        gcp_arena_destroy(a);
        return 0;
    }

    if ((flags & 0x0f) >= 1 && (flags & 0x0f) <= 9) {
        claims = json_loadb((const char *) in.p, in.n, 0, NULL);

        if (claims == NULL) {
            gcp_arena_destroy(a);
            return -1;
        }

        alg = algs[(flags & 0x0f) - 1];
        token = gcp_jwt_sign_alg(a, jwt_key_for(alg), alg, claims);
        FUZZ_CHECK(token != NULL);

        FUZZ_CHECK(gcp_jwt_parse(a, token, strlen(token), &jwt) == GCP_OK);
        FUZZ_CHECK(strcmp(jwt.alg, alg) == 0);

        /* the claims as the server writes them (170.0 is 170) */
        dump = gcp_json_dump(a, claims, 0);
        FUZZ_CHECK(dump.data != NULL);
        expected = gcp_json_parse(a, dump.data, dump.len, &msg);
        FUZZ_CHECK(expected != NULL);
        FUZZ_CHECK(json_equal(jwt.claims, expected));
        FUZZ_CHECK(gcp_jwt_verify(&jwt, &keys) == GCP_OK);
        FUZZ_CHECK(gcp_jwt_verify_kid(&jwt, &keys) == GCP_OK);
        FUZZ_CHECK(gcp_jwt_verify_kid(&jwt, &jwks_keys) == GCP_OK);
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
        (void) gcp_jwt_verify_kid(&jwt, &jwks_keys);
    }

    gcp_arena_destroy(a);

    return 0;
}
