
/*
 * JWT signing and verification with OpenSSL (see gcp_jwt.h).
 */

#include <stdio.h>
#include <stdlib.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "gcp_jwt.h"
#include "gcp_json.h"
#include "gcp_base64.h"


#define GCP_JWT_RS256   1
#define GCP_JWT_ES256   2

#define GCP_JWT_ES256_PART  32      /* bytes of R and of S */


struct gcp_jwt_key_s {
    EVP_PKEY  *pkey;
    int        alg;                 /* GCP_JWT_* */
    char       kid[GCP_JWT_KID_LEN + 1];
};


/* Never prompts for a passphrase: encrypted keys are refused. */

static int
gcp_jwt_no_pass(char *buf, int size, int rwflag, void *u)
{
    return -1;
}


/* The JWS algorithm for a key, or 0 when the key type is not supported. */

static int
gcp_jwt_pkey_alg(EVP_PKEY *pkey)
{
    char    group[64];
    size_t  len;

    switch (EVP_PKEY_get_base_id(pkey)) {

    case EVP_PKEY_RSA:
        return GCP_JWT_RS256;

    case EVP_PKEY_EC:
        if (EVP_PKEY_get_utf8_string_param(pkey,
                                           OSSL_PKEY_PARAM_GROUP_NAME,
                                           group, sizeof(group), &len) != 1)
        {
            return 0;
        }

        if (strcmp(group, "prime256v1") == 0 || strcmp(group, "P-256") == 0)
        {
            return GCP_JWT_ES256;
        }

        return 0;

    default:
        return 0;
    }
}


/* kid: base64url(SHA-256(DER SubjectPublicKeyInfo)), unpadded. */

static int
gcp_jwt_make_kid(EVP_PKEY *pkey, char *kid)
{
    int             len;
    unsigned char  *der, md[EVP_MAX_MD_SIZE];
    unsigned int    mdlen;
    gcp_buf_t       b;
    gcp_arena_t    *a;

    der = NULL;
    len = i2d_PUBKEY(pkey, &der);

    if (len <= 0) {
        return GCP_EINTERNAL;
    }

    if (EVP_Digest(der, (size_t) len, md, &mdlen, EVP_sha256(), NULL) != 1) {
        OPENSSL_free(der);
        return GCP_EINTERNAL;
    }

    OPENSSL_free(der);

    a = gcp_arena_create(0);
    if (a == NULL) {
        return GCP_ENOMEM;
    }

    gcp_buf_init(&b, a);
    gcp_base64_encode_buf(&b, (char *) md, mdlen, GCP_BASE64_RAWURL);

    if (gcp_buf_failed(&b) || b.len != GCP_JWT_KID_LEN) {
        gcp_arena_destroy(a);
        return GCP_ENOMEM;
    }

    memcpy(kid, b.data, GCP_JWT_KID_LEN);
    kid[GCP_JWT_KID_LEN] = '\0';

    gcp_arena_destroy(a);

    return GCP_OK;
}


/* Wraps pkey (the key takes the reference) or frees it on failure. */

static gcp_jwt_key_t *
gcp_jwt_key_wrap(EVP_PKEY *pkey)
{
    gcp_jwt_key_t  *key;

    key = calloc(1, sizeof(gcp_jwt_key_t));
    if (key == NULL) {
        EVP_PKEY_free(pkey);
        return NULL;
    }

    key->pkey = pkey;
    key->alg = gcp_jwt_pkey_alg(pkey);

    if (key->alg == 0 || gcp_jwt_make_kid(pkey, key->kid) != GCP_OK) {
        gcp_jwt_key_free(key);
        return NULL;
    }

    return key;
}


gcp_jwt_key_t *
gcp_jwt_key_load_private(const char *path, char *err, size_t errlen)
{
    BIO            *bio;
    EVP_PKEY       *pkey;
    gcp_jwt_key_t  *key;

    bio = BIO_new_file(path, "r");
    if (bio == NULL) {
        snprintf(err, errlen, "cannot open \"%s\"", path);
        ERR_clear_error();
        return NULL;
    }

    pkey = PEM_read_bio_PrivateKey(bio, NULL, gcp_jwt_no_pass, NULL);
    BIO_free(bio);
    ERR_clear_error();

    if (pkey == NULL) {
        snprintf(err, errlen, "no private key in \"%s\"", path);
        return NULL;
    }

    if (gcp_jwt_pkey_alg(pkey) == 0) {
        EVP_PKEY_free(pkey);
        snprintf(err, errlen, "the key in \"%s\" is neither RSA nor "
                 "ECDSA P-256", path);
        return NULL;
    }

    key = gcp_jwt_key_wrap(pkey);
    if (key == NULL) {
        snprintf(err, errlen, "out of memory");
    }

    return key;
}


void
gcp_jwt_key_free(gcp_jwt_key_t *key)
{
    if (key) {
        EVP_PKEY_free(key->pkey);
        free(key);
    }
}


const char *
gcp_jwt_key_id(const gcp_jwt_key_t *key)
{
    return key->kid;
}


const char *
gcp_jwt_key_alg(const gcp_jwt_key_t *key)
{
    return key->alg == GCP_JWT_ES256 ? "ES256" : "RS256";
}


static int
gcp_jwt_keys_push(gcp_jwt_keys_t *set, EVP_PKEY *pkey)
{
    gcp_jwt_key_t   *key, **keys;

    key = gcp_jwt_key_wrap(pkey);
    if (key == NULL) {
        return GCP_EINVALID;
    }

    keys = realloc(set->keys, (set->n + 1) * sizeof(gcp_jwt_key_t *));
    if (keys == NULL) {
        gcp_jwt_key_free(key);
        return GCP_ENOMEM;
    }

    keys[set->n++] = key;
    set->keys = keys;

    return GCP_OK;
}


/* The key of one PEM block, or NULL when the block holds none. */

static EVP_PKEY *
gcp_jwt_pem_block_key(const char *name, const unsigned char *data,
    long len)
{
    X509                 *x;
    EVP_PKEY             *pkey;
    const unsigned char  *p;

    p = data;

    if (strcmp(name, "PUBLIC KEY") == 0) {
        return d2i_PUBKEY(NULL, &p, len);
    }

    if (strcmp(name, "RSA PUBLIC KEY") == 0) {
        return d2i_PublicKey(EVP_PKEY_RSA, NULL, &p, len);
    }

    if (strcmp(name, "CERTIFICATE") == 0) {
        x = d2i_X509(NULL, &p, len);
        if (x == NULL) {
            return NULL;
        }

        pkey = X509_get_pubkey(x);
        X509_free(x);

        return pkey;
    }

    if (strcmp(name, "PRIVATE KEY") == 0
        || strcmp(name, "RSA PRIVATE KEY") == 0)
    {
        return d2i_AutoPrivateKey(NULL, &p, len);
    }

    if (strcmp(name, "EC PRIVATE KEY") == 0) {
        return d2i_PrivateKey(EVP_PKEY_EC, NULL, &p, len);
    }

    return NULL;
}


int
gcp_jwt_keys_load(gcp_jwt_keys_t *set, const char *path, char *err,
    size_t errlen)
{
    int             rc;
    BIO            *bio;
    long            len;
    char           *name, *header;
    size_t          before;
    EVP_PKEY       *pkey;
    unsigned char  *data;

    bio = BIO_new_file(path, "r");
    if (bio == NULL) {
        snprintf(err, errlen, "cannot open \"%s\"", path);
        ERR_clear_error();
        return GCP_EINVALID;
    }

    before = set->n;
    rc = GCP_OK;

    while (PEM_read_bio(bio, &name, &header, &data, &len) == 1) {

        pkey = gcp_jwt_pem_block_key(name, data, len);

        OPENSSL_free(name);
        OPENSSL_free(header);
        OPENSSL_free(data);

        if (pkey == NULL) {
            continue;
        }

        rc = gcp_jwt_keys_push(set, pkey);

        if (rc == GCP_EINVALID) {
            /* a key of another type (e.g. P-384): not ours */
            rc = GCP_OK;
            continue;
        }

        if (rc != GCP_OK) {
            snprintf(err, errlen, "out of memory");
            break;
        }
    }

    BIO_free(bio);
    ERR_clear_error();

    if (rc == GCP_OK && set->n == before) {
        snprintf(err, errlen, "no RSA or ECDSA P-256 key in \"%s\"", path);
        return GCP_EINVALID;
    }

    return rc;
}


int
gcp_jwt_keys_add_public(gcp_jwt_keys_t *set, const gcp_jwt_key_t *key)
{
    if (EVP_PKEY_up_ref(key->pkey) != 1) {
        return GCP_ENOMEM;
    }

    return gcp_jwt_keys_push(set, key->pkey) == GCP_OK ? GCP_OK : GCP_ENOMEM;
}


void
gcp_jwt_keys_free(gcp_jwt_keys_t *set)
{
    size_t  i;

    for (i = 0; i < set->n; i++) {
        gcp_jwt_key_free(set->keys[i]);
    }

    free(set->keys);
    set->keys = NULL;
    set->n = 0;
}


/* JSON Web Keys (RFC 7517) */


/* Appends the base64url of bn's big-endian bytes (at least pad bytes). */

static int
gcp_jwt_jwk_bn(gcp_buf_t *b, const EVP_PKEY *pkey, const char *param,
    int pad)
{
    int             n, ok;
    BIGNUM         *bn;
    unsigned char   bytes[1024];

    bn = NULL;

    if (EVP_PKEY_get_bn_param(pkey, param, &bn) != 1) {
        ERR_clear_error();
        return GCP_EINTERNAL;
    }

    n = BN_num_bytes(bn);
    if (n < pad) {
        n = pad;
    }

    ok = n <= (int) sizeof(bytes) && BN_bn2binpad(bn, bytes, n) == n;
    BN_free(bn);

    if (!ok) {
        return GCP_EINTERNAL;
    }

    gcp_buf_addc(b, '"');
    gcp_base64_encode_buf(b, (char *) bytes, n, GCP_BASE64_RAWURL);
    gcp_buf_addc(b, '"');

    return GCP_OK;
}


int
gcp_jwt_keys_jwks(gcp_buf_t *b, const gcp_jwt_keys_t *set)
{
    size_t                i;
    const gcp_jwt_key_t  *k;

    gcp_buf_addstr(b, "{\"keys\":[");

    for (i = 0; i < set->n; i++) {
        k = set->keys[i];

        /* go-jose's order: use, kty, kid, crv, alg, x, y, n, e */
        gcp_buf_printf(b, "%s{\"use\":\"sig\",\"kty\":\"%s\","
                       "\"kid\":\"%s\",", i ? "," : "",
                       k->alg == GCP_JWT_ES256 ? "EC" : "RSA", k->kid);

        if (k->alg == GCP_JWT_ES256) {
            gcp_buf_addstr(b, "\"crv\":\"P-256\",\"alg\":\"ES256\","
                           "\"x\":");
            if (gcp_jwt_jwk_bn(b, k->pkey, OSSL_PKEY_PARAM_EC_PUB_X,
                               GCP_JWT_ES256_PART) != GCP_OK)
            {
                return GCP_EINTERNAL;
            }

            gcp_buf_addstr(b, ",\"y\":");
            if (gcp_jwt_jwk_bn(b, k->pkey, OSSL_PKEY_PARAM_EC_PUB_Y,
                               GCP_JWT_ES256_PART) != GCP_OK)
            {
                return GCP_EINTERNAL;
            }

        } else {
            gcp_buf_addstr(b, "\"alg\":\"RS256\",\"n\":");
            if (gcp_jwt_jwk_bn(b, k->pkey, OSSL_PKEY_PARAM_RSA_N, 0)
                != GCP_OK)
            {
                return GCP_EINTERNAL;
            }

            gcp_buf_addstr(b, ",\"e\":");
            if (gcp_jwt_jwk_bn(b, k->pkey, OSSL_PKEY_PARAM_RSA_E, 0)
                != GCP_OK)
            {
                return GCP_EINTERNAL;
            }
        }

        gcp_buf_addc(b, '}');
    }

    gcp_buf_addstr(b, "]}");

    return gcp_buf_failed(b) ? GCP_ENOMEM : GCP_OK;
}


/* signing */


/* ES256 signatures are R || S; OpenSSL speaks DER. */

static int
gcp_jwt_es256_from_der(const unsigned char *der, size_t len,
    unsigned char *out)
{
    int                   ok;
    ECDSA_SIG            *sig;
    const BIGNUM         *r, *s;
    const unsigned char  *p;

    p = der;
    sig = d2i_ECDSA_SIG(NULL, &p, (long) len);
    if (sig == NULL) {
        return GCP_EINTERNAL;
    }

    ECDSA_SIG_get0(sig, &r, &s);

    ok = BN_bn2binpad(r, out, GCP_JWT_ES256_PART) == GCP_JWT_ES256_PART
         && BN_bn2binpad(s, out + GCP_JWT_ES256_PART, GCP_JWT_ES256_PART)
            == GCP_JWT_ES256_PART;

    ECDSA_SIG_free(sig);

    return ok ? GCP_OK : GCP_EINTERNAL;
}


/* Returns the DER form of an R || S signature (OPENSSL_free it). */

static unsigned char *
gcp_jwt_es256_to_der(const unsigned char *rs, int *len)
{
    BIGNUM         *r, *s;
    ECDSA_SIG      *sig;
    unsigned char  *der;

    r = BN_bin2bn(rs, GCP_JWT_ES256_PART, NULL);
    s = BN_bin2bn(rs + GCP_JWT_ES256_PART, GCP_JWT_ES256_PART, NULL);
    sig = ECDSA_SIG_new();

    if (r == NULL || s == NULL || sig == NULL) {
        BN_free(r);
        BN_free(s);
        ECDSA_SIG_free(sig);
        return NULL;
    }

    ECDSA_SIG_set0(sig, r, s);

    der = NULL;
    *len = i2d_ECDSA_SIG(sig, &der);
    ECDSA_SIG_free(sig);

    return *len > 0 ? der : NULL;
}


static int
gcp_jwt_raw_sign(const gcp_jwt_key_t *key, const char *data, size_t len,
    unsigned char *sig, size_t *siglen)
{
    int             rc;
    size_t          n;
    EVP_MD_CTX     *ctx;
    unsigned char   der[256];

    ctx = EVP_MD_CTX_new();
    if (ctx == NULL) {
        return GCP_ENOMEM;
    }

    rc = GCP_EINTERNAL;

    if (EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, key->pkey) != 1
        || EVP_DigestSign(ctx, NULL, &n, (const unsigned char *) data, len)
           != 1)
    {
        goto done;
    }

    if (key->alg == GCP_JWT_ES256) {
        if (n > sizeof(der)
            || EVP_DigestSign(ctx, der, &n, (const unsigned char *) data,
                              len) != 1
            || gcp_jwt_es256_from_der(der, n, sig) != GCP_OK)
        {
            goto done;
        }

        *siglen = 2 * GCP_JWT_ES256_PART;
        rc = GCP_OK;
        goto done;
    }

    if (n > *siglen
        || EVP_DigestSign(ctx, sig, &n, (const unsigned char *) data, len)
           != 1)
    {
        goto done;
    }

    *siglen = n;
    rc = GCP_OK;

done:

    EVP_MD_CTX_free(ctx);
    ERR_clear_error();

    return rc;
}


const char *
gcp_jwt_sign(gcp_arena_t *a, const gcp_jwt_key_t *key, const json_t *claims)
{
    size_t          siglen;
    json_t         *header;
    gcp_buf_t       b;
    gcp_str_t       h, c;
    unsigned char  *sig;

    header = json_pack("{s:s, s:s}", "alg", gcp_jwt_key_alg(key),
                       "kid", key->kid);
    if (header == NULL) {
        return NULL;
    }

    h = gcp_json_dump(a, header, 0);
    json_decref(header);

    c = gcp_json_dump(a, claims, 0);

    if (h.data == NULL || c.data == NULL) {
        return NULL;
    }

    gcp_buf_init(&b, a);
    gcp_base64_encode_buf(&b, h.data, h.len, GCP_BASE64_RAWURL);
    gcp_buf_addc(&b, '.');
    gcp_base64_encode_buf(&b, c.data, c.len, GCP_BASE64_RAWURL);

    siglen = (size_t) EVP_PKEY_get_size(key->pkey) + 2 * GCP_JWT_ES256_PART;

    sig = gcp_alloc(a, siglen);

    if (sig == NULL || gcp_buf_failed(&b)
        || gcp_jwt_raw_sign(key, b.data, b.len, sig, &siglen) != GCP_OK)
    {
        return NULL;
    }

    gcp_buf_addc(&b, '.');
    gcp_base64_encode_buf(&b, (char *) sig, siglen, GCP_BASE64_RAWURL);

    return gcp_buf_dup(&b).data;
}


/* parsing */


static json_t *
gcp_jwt_part_json(gcp_arena_t *a, const char *p, size_t len)
{
    json_t       *v;
    gcp_str_t     raw;
    const char   *msg;

    if (gcp_base64_decode_mode(a, p, len, GCP_BASE64_RAWURL, &raw, &msg)
        != GCP_OK)
    {
        return NULL;
    }

    v = gcp_json_parse(a, raw.data, raw.len, &msg);

    return json_is_object(v) ? v : NULL;
}


json_t *
gcp_jwt_peek_claims(gcp_arena_t *a, const char *token, size_t len)
{
    const char  *dot1, *dot2, *end;

    end = token + len;

    dot1 = memchr(token, '.', len);
    if (dot1 == NULL) {
        return NULL;
    }

    dot2 = memchr(dot1 + 1, '.', end - dot1 - 1);
    if (dot2 == NULL || memchr(dot2 + 1, '.', end - dot2 - 1)) {
        return NULL;
    }

    return gcp_jwt_part_json(a, dot1 + 1, dot2 - dot1 - 1);
}


int
gcp_jwt_parse(gcp_arena_t *a, const char *token, size_t len,
    gcp_jwt_t *jwt)
{
    const char  *dot1, *dot2, *end, *msg;

    memset(jwt, 0, sizeof(gcp_jwt_t));

    end = token + len;

    dot1 = memchr(token, '.', len);
    if (dot1 == NULL) {
        return GCP_EBADREQUEST;
    }

    dot2 = memchr(dot1 + 1, '.', end - dot1 - 1);
    if (dot2 == NULL || memchr(dot2 + 1, '.', end - dot2 - 1)) {
        return GCP_EBADREQUEST;
    }

    jwt->header = gcp_jwt_part_json(a, token, dot1 - token);
    jwt->claims = gcp_jwt_part_json(a, dot1 + 1, dot2 - dot1 - 1);

    if (jwt->header == NULL || jwt->claims == NULL) {
        return GCP_EBADREQUEST;
    }

    jwt->alg = json_string_value(json_object_get(jwt->header, "alg"));
    jwt->kid = json_string_value(json_object_get(jwt->header, "kid"));

    if (jwt->alg == NULL) {
        return GCP_EBADREQUEST;
    }

    if (gcp_base64_decode_mode(a, dot2 + 1, end - dot2 - 1,
                               GCP_BASE64_RAWURL, &jwt->signature, &msg)
        != GCP_OK)
    {
        return GCP_EBADREQUEST;
    }

    jwt->signed_part.data = gcp_strndup(a, token, dot2 - token);
    jwt->signed_part.len = dot2 - token;

    return jwt->signed_part.data ? GCP_OK : GCP_ENOMEM;
}


/* verification */


static int
gcp_jwt_verify_key(const gcp_jwt_t *jwt, const gcp_jwt_key_t *key)
{
    int                   ok, derlen;
    size_t                siglen;
    EVP_MD_CTX           *ctx;
    unsigned char        *der;
    const unsigned char  *sig;

    if (strcmp(jwt->alg, gcp_jwt_key_alg(key)) != 0) {
        return 0;
    }

    der = NULL;
    sig = (const unsigned char *) jwt->signature.data;
    siglen = jwt->signature.len;

    if (key->alg == GCP_JWT_ES256) {
        if (siglen != 2 * GCP_JWT_ES256_PART) {
            return 0;
        }

        der = gcp_jwt_es256_to_der(sig, &derlen);
        if (der == NULL) {
            ERR_clear_error();
            return 0;
        }

        sig = der;
        siglen = (size_t) derlen;
    }

    ctx = EVP_MD_CTX_new();

    ok = ctx
         && EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, key->pkey)
            == 1
         && EVP_DigestVerify(ctx, sig, siglen,
                             (const unsigned char *) jwt->signed_part.data,
                             jwt->signed_part.len) == 1;

    EVP_MD_CTX_free(ctx);
    OPENSSL_free(der);
    ERR_clear_error();

    return ok;
}


int
gcp_jwt_verify(const gcp_jwt_t *jwt, const gcp_jwt_keys_t *set)
{
    size_t  i;

    /* the key the token names first, then every other one */

    for (i = 0; jwt->kid && i < set->n; i++) {
        if (strcmp(jwt->kid, set->keys[i]->kid) == 0
            && gcp_jwt_verify_key(jwt, set->keys[i]))
        {
            return GCP_OK;
        }
    }

    for (i = 0; i < set->n; i++) {
        if ((jwt->kid == NULL || strcmp(jwt->kid, set->keys[i]->kid) != 0)
            && gcp_jwt_verify_key(jwt, set->keys[i]))
        {
            return GCP_OK;
        }
    }

    return GCP_EUNAUTHORIZED;
}
