
/*
 * Unit tests: JWT signing and verification (core/authn/gcp_jwt.c).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/pem.h>

#include "gcp_jwt.h"
#include "gcp_json.h"
#include "gcp_validation.h"
#include "support_auth.h"


static auth_pki_t  *pki;


static int
setup(void **state)
{
    pki = auth_pki_create();
    return 0;
}


static int
teardown(void **state)
{
    auth_pki_destroy(pki);
    return 0;
}


static gcp_jwt_key_t *
load(const char *path)
{
    char            err[256];
    gcp_jwt_key_t  *k;

    err[0] = '\0';
    k = gcp_jwt_key_load_private(path, err, sizeof(err));
    if (k == NULL) {
        fail_msg("load %s: %s", path, err);
    }

    return k;
}


/* base64url(SHA-256(DER SPKI)) computed apart from the code under test */

static void
expected_kid(const char *path, char *out)
{
    int             len, i;
    FILE           *f;
    EVP_PKEY       *k;
    unsigned char  *der, md[32], b64[64];
    unsigned int    mdlen;

    f = fopen(path, "r");
    assert_non_null(f);
    k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    fclose(f);
    assert_non_null(k);

    der = NULL;
    len = i2d_PUBKEY(k, &der);
    assert_true(len > 0);
    assert_int_equal(EVP_Digest(der, len, md, &mdlen, EVP_sha256(), NULL),
                     1);
    OPENSSL_free(der);
    EVP_PKEY_free(k);

    len = EVP_EncodeBlock(b64, md, 32);
    assert_int_equal(len, 44);

    for (i = 0; i < 43; i++) {
        out[i] = b64[i] == '+' ? '-' : b64[i] == '/' ? '_' : (char) b64[i];
    }

    out[43] = '\0';
}


static json_t *
claims(void)
{
    json_t  *c;

    c = json_pack("{s:[s], s:I, s:s, s:s}", "aud", "https://a.example",
                  "exp", (json_int_t) 1795330799, "iss", "https://issuer",
                  "sub", "system:serviceaccount:ns:sa");
    assert_non_null(c);

    return c;
}


static void
check_roundtrip(const char *path, const char *alg, size_t siglen)
{
    char             kid[44];
    json_t          *c;
    gcp_jwt_t        jwt;
    const char      *tok;
    gcp_arena_t     *a;
    gcp_jwt_key_t   *key;
    gcp_jwt_keys_t   set;

    a = gcp_arena_create(0);
    key = load(path);
    c = claims();

    assert_string_equal(gcp_jwt_key_alg(key), alg);

    expected_kid(path, kid);
    assert_string_equal(gcp_jwt_key_id(key), kid);

    tok = gcp_jwt_sign(a, key, c);
    assert_non_null(tok);

    assert_int_equal(gcp_jwt_parse(a, tok, strlen(tok), &jwt), GCP_OK);
    assert_string_equal(jwt.alg, alg);
    assert_string_equal(jwt.kid, kid);
    assert_int_equal(jwt.signature.len, siglen);
    assert_true(json_equal(jwt.claims, c));

    /* the header is exactly {"alg":...,"kid":...} */
    assert_int_equal(json_object_size(jwt.header), 2);

    memset(&set, 0, sizeof(set));
    assert_int_equal(gcp_jwt_keys_add_public(&set, key), GCP_OK);
    assert_int_equal(gcp_jwt_verify(&jwt, &set), GCP_OK);

    gcp_jwt_keys_free(&set);
    assert_int_equal(set.n, 0);

    json_decref(c);
    gcp_jwt_key_free(key);
    gcp_arena_destroy(a);
}


static void
test_jwt_rs256(void **state)
{
    check_roundtrip(pki->rsa_key_file, "RS256", 256);
}


static void
test_jwt_es256(void **state)
{
    check_roundtrip(pki->ec_key_file, "ES256", 64);
}


/* Replaces one character of part (0 header, 1 payload, 2 signature). */

static char *
tamper(gcp_arena_t *a, const char *tok, int part)
{
    char        *t, *p;
    int          i;

    t = gcp_strdup(a, tok);
    p = t;

    for (i = 0; i < part; i++) {
        p = strchr(p, '.') + 1;
    }

    p[2] = p[2] == 'A' ? 'B' : 'A';

    return t;
}


static void
test_jwt_tampered(void **state)
{
    int              i;
    char            *t;
    json_t          *c;
    gcp_jwt_t        jwt;
    const char      *tok;
    gcp_arena_t     *a;
    gcp_jwt_key_t   *rsa, *ec;
    gcp_jwt_keys_t   set;

    a = gcp_arena_create(0);
    rsa = load(pki->rsa_key_file);
    ec = load(pki->ec_key_file);
    c = claims();

    memset(&set, 0, sizeof(set));
    assert_int_equal(gcp_jwt_keys_add_public(&set, rsa), GCP_OK);
    assert_int_equal(gcp_jwt_keys_add_public(&set, ec), GCP_OK);

    for (i = 0; i < 2; i++) {
        tok = gcp_jwt_sign(a, i ? ec : rsa, c);
        assert_non_null(tok);

        /* payload and signature changes break the signature */

        t = tamper(a, tok, 1);
        if (gcp_jwt_parse(a, t, strlen(t), &jwt) == GCP_OK) {
            assert_int_equal(gcp_jwt_verify(&jwt, &set), GCP_EUNAUTHORIZED);
        }

        t = tamper(a, tok, 2);
        assert_int_equal(gcp_jwt_parse(a, t, strlen(t), &jwt), GCP_OK);
        assert_int_equal(gcp_jwt_verify(&jwt, &set), GCP_EUNAUTHORIZED);

        /* the original verifies with either key first in the set */
        assert_int_equal(gcp_jwt_parse(a, tok, strlen(tok), &jwt), GCP_OK);
        assert_int_equal(gcp_jwt_verify(&jwt, &set), GCP_OK);

        /* without a kid every key is tried */
        json_object_del(jwt.header, "kid");
        jwt.kid = NULL;
        assert_int_equal(gcp_jwt_verify(&jwt, &set), GCP_OK);
    }

    json_decref(c);
    gcp_jwt_keys_free(&set);
    gcp_jwt_key_free(rsa);
    gcp_jwt_key_free(ec);
    gcp_arena_destroy(a);
}


static void
test_jwt_wrong_key(void **state)
{
    json_t          *c;
    gcp_jwt_t        jwt;
    const char      *tok, *p;
    gcp_buf_t        b;
    gcp_arena_t     *a;
    gcp_jwt_key_t   *rsa, *ec;
    gcp_jwt_keys_t   set;

    a = gcp_arena_create(0);
    rsa = load(pki->rsa_key_file);
    ec = load(pki->ec_key_file);
    c = claims();

    /* an RS256 token checked against the EC key only */

    memset(&set, 0, sizeof(set));
    assert_int_equal(gcp_jwt_keys_add_public(&set, ec), GCP_OK);

    tok = gcp_jwt_sign(a, rsa, c);
    assert_int_equal(gcp_jwt_parse(a, tok, strlen(tok), &jwt), GCP_OK);
    assert_int_equal(gcp_jwt_verify(&jwt, &set), GCP_EUNAUTHORIZED);

    /* the same signature claimed as ES256: refused */
    jwt.alg = "ES256";
    assert_int_equal(gcp_jwt_verify(&jwt, &set), GCP_EUNAUTHORIZED);

    /* alg "none" with the signature stripped */

    gcp_buf_init(&b, a);
    gcp_base64_encode_buf(&b, "{\"alg\":\"none\"}", 14, GCP_BASE64_RAWURL);
    p = strchr(tok, '.');
    gcp_buf_add(&b, p, strrchr(tok, '.') - p + 1);
    assert_int_equal(gcp_jwt_parse(a, b.data, b.len, &jwt), GCP_OK);
    assert_string_equal(jwt.alg, "none");
    assert_int_equal(jwt.signature.len, 0);
    assert_int_equal(gcp_jwt_verify(&jwt, &set), GCP_EUNAUTHORIZED);

    gcp_jwt_keys_free(&set);
    assert_int_equal(gcp_jwt_keys_add_public(&set, rsa), GCP_OK);
    assert_int_equal(gcp_jwt_verify(&jwt, &set), GCP_EUNAUTHORIZED);

    json_decref(c);
    gcp_jwt_keys_free(&set);
    gcp_jwt_key_free(rsa);
    gcp_jwt_key_free(ec);
    gcp_arena_destroy(a);
}


static void
test_jwt_malformed(void **state)
{
    size_t        i;
    gcp_jwt_t     jwt;
    gcp_arena_t  *a;

    static const char  *bad[] = {
        "",
        "abc",
        "a.b",
        "a.b.c.d",
        "!!!.e30.AAAA",                         /* bad base64 */
        "e30.e30.AAAA",                         /* header without alg */
        "eyJhbGciOiJSUzI1NiJ9.W10.AAAA",        /* claims [] */
        "eyJhbGciOiJSUzI1NiJ9.e30.A",           /* bad signature base64 */
        "eyJhbGciOjF9.e30.AAAA",                /* alg 1 */
        "eyJhbGciOiJSUzI1NiJ9.e30=.AAAA",       /* padding */
    };

    a = gcp_arena_create(0);

    for (i = 0; i < gcp_nelems(bad); i++) {
        if (gcp_jwt_parse(a, bad[i], strlen(bad[i]), &jwt)
            != GCP_EBADREQUEST)
        {
            fail_msg("parsed \"%s\"", bad[i]);
        }
    }

    /* {"alg":"RS256"}.{}.AAAA: well formed */
    assert_int_equal(gcp_jwt_parse(a, "eyJhbGciOiJSUzI1NiJ9.e30.AAAA", 29,
                                   &jwt), GCP_OK);
    assert_int_equal(jwt.signature.len, 3);
    assert_null(jwt.kid);

    /* peeking reads the claims of a token with a bad signature part */
    assert_non_null(gcp_jwt_peek_claims(a, "x.eyJpc3MiOiJpIn0.!", 19));
    assert_string_equal(json_string_value(json_object_get(
        gcp_jwt_peek_claims(a, "x.eyJpc3MiOiJpIn0.!", 19), "iss")), "i");
    assert_null(gcp_jwt_peek_claims(a, "x.eyJpc3MiOiJpIn0", 17));
    assert_null(gcp_jwt_peek_claims(a, "x.!.y", 5));

    gcp_arena_destroy(a);
}


static void
test_jwt_key_files(void **state)
{
    FILE            *f;
    char            *cert, err[256], *path;
    EVP_PKEY        *k;
    gcp_jwt_key_t   *key;
    gcp_jwt_keys_t   set;

    memset(&set, 0, sizeof(set));

    /* a certificate, a public key and a private key in one file */

    cert = auth_pki_cert(pki->ca_key, pki->ca, "u", NULL, -60, 3600, 1,
                         NULL);
    path = auth_pki_path(pki, "keys.pem");

    f = fopen(path, "w");
    assert_non_null(f);
    fputs("junk before\n", f);
    fputs(cert, f);
    key = load(pki->rsa_key_file);
    k = EVP_RSA_gen(2048);
    PEM_write_PUBKEY(f, k);
    PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL);
    EVP_PKEY_free(k);
    fclose(f);

    assert_int_equal(gcp_jwt_keys_load(&set, path, err, sizeof(err)),
                     GCP_OK);
    assert_int_equal(set.n, 3);

    /* the public key and the private key are the same key */
    assert_string_equal(gcp_jwt_key_id(set.keys[1]),
                        gcp_jwt_key_id(set.keys[2]));
    assert_string_not_equal(gcp_jwt_key_id(set.keys[0]),
                            gcp_jwt_key_id(set.keys[1]));

    /* the EC signing key file adds one key */
    assert_int_equal(gcp_jwt_keys_load(&set, pki->ec_key_file, err,
                                       sizeof(err)), GCP_OK);
    assert_int_equal(set.n, 4);
    assert_string_equal(gcp_jwt_key_alg(set.keys[3]), "ES256");

    gcp_jwt_keys_free(&set);
    gcp_jwt_key_free(key);
    free(cert);
    free(path);

    /* no key at all, a missing file */

    assert_int_equal(gcp_jwt_keys_load(&set, auth_pki_write(pki, "e.pem",
                                       "nothing here\n"), err, sizeof(err)),
                     GCP_EINVALID);
    assert_non_null(strstr(err, "no RSA or ECDSA P-256 key in"));

    assert_int_equal(gcp_jwt_keys_load(&set, "/nonexistent/k.pem", err,
                                       sizeof(err)), GCP_EINVALID);
    assert_string_equal(err, "cannot open \"/nonexistent/k.pem\"");

    assert_null(gcp_jwt_key_load_private(pki->ca_file, err, sizeof(err)));
    assert_non_null(strstr(err, "no private key in"));
    assert_int_equal(set.n, 0);
}


static void
write_key(const char *path, EVP_PKEY *k, const EVP_CIPHER *enc)
{
    FILE  *f;

    f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(PEM_write_PrivateKey(f, k, enc,
                                          (unsigned char *) "secret",
                                          enc ? 6 : 0, NULL, NULL), 1);
    assert_int_equal(fclose(f), 0);
    EVP_PKEY_free(k);
}


static void
test_jwt_refused_keys(void **state)
{
    char  err[256], *path;

    path = auth_pki_path(pki, "refused.key");

    /* an encrypted key: refused without asking for a passphrase */
    write_key(path, EVP_EC_gen("P-256"), EVP_aes_128_cbc());
    assert_null(gcp_jwt_key_load_private(path, err, sizeof(err)));
    assert_non_null(strstr(err, "no private key in"));

    /* an Ed25519 key: not an algorithm of upstream's */
    write_key(path, EVP_PKEY_Q_keygen(NULL, NULL, "ED25519"), NULL);
    assert_null(gcp_jwt_key_load_private(path, err, sizeof(err)));
    assert_non_null(strstr(err, "is neither RSA nor ECDSA P-256, P-384 or "
                                "P-521"));

    free(path);
}


/* base64url without padding, decoded into out; returns the length */

static size_t
unb64url(const char *in, unsigned char *out)
{
    size_t  i, n, len;
    char    buf[1024];
    int     got;

    n = strlen(in);
    assert_true(n + 4 < sizeof(buf));

    for (i = 0; i < n; i++) {
        buf[i] = in[i] == '-' ? '+' : in[i] == '_' ? '/' : in[i];
    }

    len = n;
    while (len % 4) {
        buf[len++] = '=';
    }

    got = EVP_DecodeBlock(out, (unsigned char *) buf, (int) len);
    assert_true(got >= 0);

    return (size_t) got - (len - n);
}


static void
test_jwt_jwks(void **state)
{
    size_t           n;
    json_t          *doc, *k;
    EVP_PKEY        *ec;
    gcp_buf_t        b;
    gcp_arena_t     *a;
    unsigned char    raw[512], point[65];
    gcp_jwt_key_t   *rsa_key, *ec_key;
    gcp_jwt_keys_t   set;
    const char      *keys[] = { "use", "kty", "kid", "alg", "n", "e" };
    const char      *eckeys[] = { "use", "kty", "kid", "crv", "alg", "x",
                                  "y" };
    void            *it;
    FILE            *f;

    a = gcp_arena_create(0);
    rsa_key = load(pki->rsa_key_file);
    ec_key = load(pki->ec_key_file);

    memset(&set, 0, sizeof(set));
    assert_int_equal(gcp_jwt_keys_add_public(&set, rsa_key), GCP_OK);
    assert_int_equal(gcp_jwt_keys_add_public(&set, ec_key), GCP_OK);

    gcp_buf_init(&b, a);
    assert_int_equal(gcp_jwt_keys_jwks(&b, &set), GCP_OK);

    doc = json_loadb(b.data, b.len, JSON_PRESERVE_ORDER, NULL);
    assert_non_null(doc);
    assert_int_equal(json_object_size(doc), 1);
    assert_int_equal(json_array_size(json_object_get(doc, "keys")), 2);

    /* RSA: go-jose's members in its order, the public exponent 65537 */
    k = json_array_get(json_object_get(doc, "keys"), 0);
    it = json_object_iter(k);
    for (n = 0; n < 6; n++, it = json_object_iter_next(k, it)) {
        assert_non_null(it);
        assert_string_equal(json_object_iter_key(it), keys[n]);
    }
    assert_null(it);
    assert_string_equal(json_string_value(json_object_get(k, "kty")),
                        "RSA");
    assert_string_equal(json_string_value(json_object_get(k, "kid")),
                        gcp_jwt_key_id(rsa_key));
    assert_string_equal(json_string_value(json_object_get(k, "e")),
                        "AQAB");
    n = unb64url(json_string_value(json_object_get(k, "n")), raw);
    assert_int_equal(n, 256);
    assert_true(raw[0] & 0x80);         /* no leading zero byte */

    /* EC: 0x04 || x || y is the key's encoded point */
    k = json_array_get(json_object_get(doc, "keys"), 1);
    it = json_object_iter(k);
    for (n = 0; n < 7; n++, it = json_object_iter_next(k, it)) {
        assert_non_null(it);
        assert_string_equal(json_object_iter_key(it), eckeys[n]);
    }
    assert_null(it);
    assert_string_equal(json_string_value(json_object_get(k, "crv")),
                        "P-256");
    assert_string_equal(json_string_value(json_object_get(k, "alg")),
                        "ES256");

    f = fopen(pki->ec_key_file, "r");
    assert_non_null(f);
    ec = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    fclose(f);
    assert_non_null(ec);
    assert_int_equal(EVP_PKEY_get_octet_string_param(ec,
                         OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point,
                         sizeof(point), &n), 1);
    assert_int_equal(n, 65);
    EVP_PKEY_free(ec);

    assert_int_equal(unb64url(json_string_value(json_object_get(k, "x")),
                              raw), 32);
    assert_memory_equal(raw, point + 1, 32);
    assert_int_equal(unb64url(json_string_value(json_object_get(k, "y")),
                              raw), 32);
    assert_memory_equal(raw, point + 33, 32);

    /* an empty set is an empty key list */
    json_decref(doc);
    gcp_jwt_keys_free(&set);
    gcp_buf_init(&b, a);
    assert_int_equal(gcp_jwt_keys_jwks(&b, &set), GCP_OK);
    assert_int_equal(b.len, strlen("{\"keys\":[]}"));
    assert_memory_equal(b.data, "{\"keys\":[]}", b.len);

    gcp_jwt_key_free(rsa_key);
    gcp_jwt_key_free(ec_key);
    gcp_arena_destroy(a);
}


/* A private key of the given kind, written and loaded back. */

static gcp_jwt_key_t *
gen_key(const char *name, const char *kind)
{
    char           *path;
    gcp_jwt_key_t  *k;

    path = auth_pki_path(pki, name);

    if (strcmp(kind, "RSA") == 0) {
        write_key(path, EVP_RSA_gen(2048), NULL);

    } else {
        write_key(path, EVP_EC_gen(kind), NULL);
    }

    k = load(path);
    free(path);

    return k;
}


/*
 * Every algorithm of upstream's OIDC authenticator: a token signed with
 * each verifies with the key's JWK (exported, then imported as an issuer's
 * JWKS), and not with an algorithm of another key type; the key id of
 * the JWK is the one that selects the key.
 */

static void
test_jwt_algorithms(void **state)
{
    size_t           i, j;
    json_t          *claims, *jwks;
    gcp_buf_t        b;
    gcp_jwt_t        jwt;
    const char      *tok;
    gcp_arena_t     *a;
    gcp_jwt_key_t   *k;
    gcp_jwt_keys_t   pub, got;

    static const struct {
        const char  *kind;
        const char  *algs[4];
    } cases[] = {
        { "RSA", { "RS256", "RS384", "RS512", NULL } },
        { "RSA", { "PS256", "PS384", "PS512", NULL } },
        { "P-256", { "ES256", NULL } },
        { "P-384", { "ES384", NULL } },
        { "P-521", { "ES512", NULL } },
    };

    static const char * const  wrong[] = { "ES256", "ES384", "RS256",
                                           "PS256", "HS256", "none" };

    a = gcp_arena_create(0);
    claims = json_pack("{s:s, s:i}", "iss", "https://issuer", "exp", 42);

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        k = gen_key("alg.key", cases[i].kind);

        memset(&pub, 0, sizeof(pub));
        memset(&got, 0, sizeof(got));
        assert_int_equal(gcp_jwt_keys_add_public(&pub, k), GCP_OK);

        gcp_buf_init(&b, a);
        assert_int_equal(gcp_jwt_keys_jwks(&b, &pub), GCP_OK);
        jwks = json_loadb(b.data, b.len, 0, NULL);
        assert_non_null(jwks);
        assert_int_equal(gcp_jwt_keys_from_jwks(&got, jwks), GCP_OK);
        assert_int_equal(got.n, 1);
        assert_string_equal(gcp_jwt_key_id(got.keys[0]), gcp_jwt_key_id(k));
        json_decref(jwks);

        for (j = 0; cases[i].algs[j]; j++) {
            assert_true(gcp_jwt_alg_supported(cases[i].algs[j]));

            tok = gcp_jwt_sign_alg(a, k, cases[i].algs[j], claims);
            assert_non_null(tok);
            assert_int_equal(gcp_jwt_parse(a, tok, strlen(tok), &jwt),
                             GCP_OK);
            assert_string_equal(jwt.alg, cases[i].algs[j]);
            assert_int_equal(gcp_jwt_verify_kid(&jwt, &got), GCP_OK);
            assert_int_equal(gcp_jwt_verify(&jwt, &got), GCP_OK);

            /* another key id: not this key for go-oidc */
            jwt.kid = "another";
            assert_int_equal(gcp_jwt_verify_kid(&jwt, &got),
                             GCP_EUNAUTHORIZED);

            /* no key id: every key */
            jwt.kid = NULL;
            assert_int_equal(gcp_jwt_verify_kid(&jwt, &got), GCP_OK);
        }

        /* the same signature under an algorithm of another kind fails */
        tok = gcp_jwt_sign_alg(a, k, cases[i].algs[0], claims);
        assert_int_equal(gcp_jwt_parse(a, tok, strlen(tok), &jwt), GCP_OK);

        for (j = 0; j < sizeof(wrong) / sizeof(wrong[0]); j++) {
            if (strcmp(wrong[j], cases[i].algs[0]) == 0) {
                continue;
            }

            jwt.alg = wrong[j];
            assert_int_equal(gcp_jwt_verify_kid(&jwt, &got),
                             GCP_EUNAUTHORIZED);
        }

        /* an algorithm the key cannot sign */
        assert_null(gcp_jwt_sign_alg(a, k, strcmp(cases[i].kind, "RSA") == 0
                                           ? "ES256" : "RS256", claims));

        gcp_jwt_keys_free(&pub);
        gcp_jwt_keys_free(&got);
        gcp_jwt_key_free(k);
    }

    assert_false(gcp_jwt_alg_supported("HS256"));
    assert_false(gcp_jwt_alg_supported("none"));
    assert_false(gcp_jwt_alg_supported("EdDSA"));

    json_decref(claims);
    gcp_arena_destroy(a);
}


/* JWKS members that are not usable keys are skipped, not fatal. */

static void
test_jwt_jwks_import(void **state)
{
    json_t          *jwks;
    gcp_jwt_keys_t   got;

    memset(&got, 0, sizeof(got));

    jwks = json_loads("{\"keys\":["
                      "{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"},"
                      "{\"kty\":\"RSA\",\"n\":\"!!\",\"e\":\"AQAB\"},"
                      "{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"AA\","
                      "\"y\":\"AA\"},"
                      "{\"kty\":\"EC\",\"crv\":\"secp256k1\"},"
                      "\"x\", 3, null]}", 0, NULL);
    assert_non_null(jwks);
    assert_int_equal(gcp_jwt_keys_from_jwks(&got, jwks), GCP_OK);
    assert_int_equal(got.n, 0);
    json_decref(jwks);

    jwks = json_loads("{\"keys\":{}}", 0, NULL);
    assert_int_equal(gcp_jwt_keys_from_jwks(&got, jwks), GCP_EINVALID);
    json_decref(jwks);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_jwt_rs256),
        cmocka_unit_test(test_jwt_es256),
        cmocka_unit_test(test_jwt_tampered),
        cmocka_unit_test(test_jwt_wrong_key),
        cmocka_unit_test(test_jwt_malformed),
        cmocka_unit_test(test_jwt_key_files),
        cmocka_unit_test(test_jwt_refused_keys),
        cmocka_unit_test(test_jwt_jwks),
        cmocka_unit_test(test_jwt_algorithms),
        cmocka_unit_test(test_jwt_jwks_import),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
