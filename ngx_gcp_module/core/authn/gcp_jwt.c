
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
#include <openssl/param_build.h>
#include <openssl/rsa.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "gcp_jwt.h"
#include "gcp_json.h"
#include "gcp_base64.h"


/* key types */
#define GCP_JWT_RSA     1
#define GCP_JWT_P256    2
#define GCP_JWT_P384    3
#define GCP_JWT_P521    4

#define GCP_JWT_EC_PART_MAX  66     /* bytes of R and of S on P-521 */


struct gcp_jwt_key_s {
    EVP_PKEY  *pkey;
    int        type;                /* GCP_JWT_RSA... */
    char      *kid;                 /* "" when a JWK has none */
};


/* The algorithms upstream's OIDC authenticator accepts (go-oidc's). */

typedef struct {
    const char  *name;
    int          type;              /* the key type it needs; RSA: any */
    unsigned     pss:1;
    const char  *md;                /* digest name */
} gcp_jwt_alg_t;


static const gcp_jwt_alg_t  gcp_jwt_algs[] = {
    { "RS256", GCP_JWT_RSA, 0, "SHA256" },
    { "RS384", GCP_JWT_RSA, 0, "SHA384" },
    { "RS512", GCP_JWT_RSA, 0, "SHA512" },
    { "ES256", GCP_JWT_P256, 0, "SHA256" },
    { "ES384", GCP_JWT_P384, 0, "SHA384" },
    { "ES512", GCP_JWT_P521, 0, "SHA512" },
    { "PS256", GCP_JWT_RSA, 1, "SHA256" },
    { "PS384", GCP_JWT_RSA, 1, "SHA384" },
    { "PS512", GCP_JWT_RSA, 1, "SHA512" },
    { NULL, 0, 0, NULL }
};


/* The curves of the EC key types: name, JWK crv, bytes of a coordinate. */

typedef struct {
    int          type;
    const char  *group;             /* OpenSSL's name */
    const char  *crv;               /* JWK's */
    const char  *alg;
    int          part;
} gcp_jwt_curve_t;


static const gcp_jwt_curve_t  gcp_jwt_curves[] = {
    { GCP_JWT_P256, "prime256v1", "P-256", "ES256", 32 },
    { GCP_JWT_P384, "secp384r1", "P-384", "ES384", 48 },
    { GCP_JWT_P521, "secp521r1", "P-521", "ES512", 66 },
    { 0, NULL, NULL, NULL, 0 }
};


static const gcp_jwt_alg_t *
gcp_jwt_alg_find(const char *name)
{
    const gcp_jwt_alg_t  *p;

    for (p = gcp_jwt_algs; name && p->name; p++) {
        if (strcmp(p->name, name) == 0) {
            return p;
        }
    }

    return NULL;
}


static const gcp_jwt_curve_t *
gcp_jwt_curve(int type)
{
    const gcp_jwt_curve_t  *c;

    for (c = gcp_jwt_curves; c->type; c++) {
        if (c->type == type) {
            return c;
        }
    }

    return NULL;
}


int
gcp_jwt_alg_supported(const char *alg)
{
    return gcp_jwt_alg_find(alg) != NULL;
}


/* Never prompts for a passphrase: encrypted keys are refused. */

static int
gcp_jwt_no_pass(char *buf, int size, int rwflag, void *u)
{
    return -1;
}


/* The key type of a key, or 0 when it is not supported. */

static int
gcp_jwt_pkey_type(EVP_PKEY *pkey)
{
    char                    group[64];
    size_t                  len;
    const gcp_jwt_curve_t  *c;

    switch (EVP_PKEY_get_base_id(pkey)) {

    case EVP_PKEY_RSA:
        return GCP_JWT_RSA;

    case EVP_PKEY_EC:
        if (EVP_PKEY_get_utf8_string_param(pkey,
                                           OSSL_PKEY_PARAM_GROUP_NAME,
                                           group, sizeof(group), &len) != 1)
        {
            ERR_clear_error();
            return 0;
        }

        for (c = gcp_jwt_curves; c->type; c++) {
            if (strcmp(group, c->group) == 0 || strcmp(group, c->crv) == 0) {
                return c->type;
            }
        }

        return 0;

    default:
        return 0;
    }
}


/* kid: base64url(SHA-256(DER SubjectPublicKeyInfo)), unpadded. */

static char *
gcp_jwt_make_kid(EVP_PKEY *pkey)
{
    int             len;
    char           *kid;
    unsigned char  *der, md[EVP_MAX_MD_SIZE];
    unsigned int    mdlen;
    gcp_buf_t       b;
    gcp_arena_t    *a;

    der = NULL;
    len = i2d_PUBKEY(pkey, &der);

    if (len <= 0) {
        ERR_clear_error();
        return NULL;
    }

    if (EVP_Digest(der, (size_t) len, md, &mdlen, EVP_sha256(), NULL) != 1) {
        OPENSSL_free(der);
        ERR_clear_error();
        return NULL;
    }

    OPENSSL_free(der);

    a = gcp_arena_create(0);
    if (a == NULL) {
        return NULL;
    }

    gcp_buf_init(&b, a);
    gcp_base64_encode_buf(&b, (char *) md, mdlen, GCP_BASE64_RAWURL);

    kid = NULL;

    if (!gcp_buf_failed(&b) && b.len == GCP_JWT_KID_LEN) {
        kid = strndup(b.data, b.len);
    }

    gcp_arena_destroy(a);

    return kid;
}


/*
 * Wraps pkey (the key takes the reference) or frees it on failure; kid
 * NULL: computed from the key.
 */

static gcp_jwt_key_t *
gcp_jwt_key_wrap(EVP_PKEY *pkey, const char *kid)
{
    gcp_jwt_key_t  *key;

    key = calloc(1, sizeof(gcp_jwt_key_t));
    if (key == NULL) {
        EVP_PKEY_free(pkey);
        return NULL;
    }

    key->pkey = pkey;
    key->type = gcp_jwt_pkey_type(pkey);
    key->kid = kid ? strdup(kid) : gcp_jwt_make_kid(pkey);

    if (key->type == 0 || key->kid == NULL) {
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

    if (gcp_jwt_pkey_type(pkey) == 0) {
        EVP_PKEY_free(pkey);
        snprintf(err, errlen, "the key in \"%s\" is neither RSA nor "
                 "ECDSA P-256, P-384 or P-521", path);
        return NULL;
    }

    key = gcp_jwt_key_wrap(pkey, NULL);
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
        free(key->kid);
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
    const gcp_jwt_curve_t  *c;

    c = gcp_jwt_curve(key->type);

    return c ? c->alg : "RS256";
}


/*
 * Adds pkey to set (the set takes the reference, or frees it).  Returns
 * GCP_OK, GCP_ENOMEM, or GCP_EINVALID for a key of a type not supported
 * (any_curve 0: RSA and P-256 only, as service-account key files).
 */

static int
gcp_jwt_keys_push(gcp_jwt_keys_t *set, EVP_PKEY *pkey, const char *kid,
    int any_curve)
{
    int              type;
    gcp_jwt_key_t   *key, **keys;

    type = gcp_jwt_pkey_type(pkey);

    if (type == 0 || (!any_curve && type != GCP_JWT_RSA
                      && type != GCP_JWT_P256))
    {
        EVP_PKEY_free(pkey);
        return GCP_EINVALID;
    }

    key = gcp_jwt_key_wrap(pkey, kid);
    if (key == NULL) {
        return GCP_ENOMEM;
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

        rc = gcp_jwt_keys_push(set, pkey, NULL, 0);

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

    return gcp_jwt_keys_push(set, key->pkey, key->kid, 1) == GCP_OK
           ? GCP_OK : GCP_ENOMEM;
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
    size_t                  i;
    const gcp_jwt_key_t    *k;
    const gcp_jwt_curve_t  *c;

    gcp_buf_addstr(b, "{\"keys\":[");

    for (i = 0; i < set->n; i++) {
        k = set->keys[i];
        c = gcp_jwt_curve(k->type);

        /* go-jose's order: use, kty, kid, crv, alg, x, y, n, e */
        gcp_buf_printf(b, "%s{\"use\":\"sig\",\"kty\":\"%s\","
                       "\"kid\":\"%s\",", i ? "," : "",
                       c ? "EC" : "RSA", k->kid);

        if (c) {
            gcp_buf_printf(b, "\"crv\":\"%s\",\"alg\":\"%s\",\"x\":",
                           c->crv, c->alg);
            if (gcp_jwt_jwk_bn(b, k->pkey, OSSL_PKEY_PARAM_EC_PUB_X,
                               c->part) != GCP_OK)
            {
                return GCP_EINTERNAL;
            }

            gcp_buf_addstr(b, ",\"y\":");
            if (gcp_jwt_jwk_bn(b, k->pkey, OSSL_PKEY_PARAM_EC_PUB_Y,
                               c->part) != GCP_OK)
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


/* A JWK member holding a base64url big-endian number, as a BIGNUM. */

static BIGNUM *
gcp_jwt_jwk_get_bn(gcp_arena_t *a, const json_t *jwk, const char *name,
    int len)
{
    gcp_str_t    raw;
    const char  *v, *msg;

    v = json_string_value(json_object_get(jwk, name));

    if (v == NULL || v[0] == '\0'
        || gcp_base64_decode_mode(a, v, strlen(v), GCP_BASE64_RAWURL, &raw,
                                  &msg) != GCP_OK
        || raw.len == 0 || (len && raw.len != (size_t) len))
    {
        return NULL;
    }

    return BN_bin2bn((const unsigned char *) raw.data, (int) raw.len, NULL);
}


/* The public key of an RSA or EC JWK, or NULL. */

static EVP_PKEY *
gcp_jwt_jwk_pkey(gcp_arena_t *a, const json_t *jwk)
{
    int                      ok;
    BIGNUM                  *n, *e, *x, *y;
    size_t                   plen;
    EVP_PKEY                *pkey;
    OSSL_PARAM              *params;
    const char              *kty, *crv;
    EVP_PKEY_CTX            *ctx;
    unsigned char            pub[1 + 2 * GCP_JWT_EC_PART_MAX];
    OSSL_PARAM_BLD          *bld;
    const gcp_jwt_curve_t   *c;

    kty = json_string_value(json_object_get(jwk, "kty"));
    if (kty == NULL) {
        return NULL;
    }

    n = e = x = y = NULL;
    c = NULL;
    pkey = NULL;
    params = NULL;
    ctx = NULL;

    bld = OSSL_PARAM_BLD_new();
    if (bld == NULL) {
        return NULL;
    }

    if (strcmp(kty, "RSA") == 0) {
        n = gcp_jwt_jwk_get_bn(a, jwk, "n", 0);
        e = gcp_jwt_jwk_get_bn(a, jwk, "e", 0);

        ok = n && e
             && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n)
             && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e);

        if (ok) {
            ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
        }

    } else if (strcmp(kty, "EC") == 0) {
        crv = json_string_value(json_object_get(jwk, "crv"));

        for (c = gcp_jwt_curves; crv && c->type; c++) {
            if (strcmp(c->crv, crv) == 0) {
                break;
            }
        }

        ok = 0;

        if (crv && c->type) {
            x = gcp_jwt_jwk_get_bn(a, jwk, "x", c->part);
            y = gcp_jwt_jwk_get_bn(a, jwk, "y", c->part);

            /* the uncompressed point: 04 || X || Y */
            pub[0] = 0x04;
            plen = 1 + 2 * (size_t) c->part;

            ok = x && y
                 && BN_bn2binpad(x, pub + 1, c->part) == c->part
                 && BN_bn2binpad(y, pub + 1 + c->part, c->part) == c->part
                 && OSSL_PARAM_BLD_push_utf8_string(bld,
                                               OSSL_PKEY_PARAM_GROUP_NAME,
                                               c->group, 0)
                 && OSSL_PARAM_BLD_push_octet_string(bld,
                                               OSSL_PKEY_PARAM_PUB_KEY,
                                               pub, plen);
        }

        if (ok) {
            ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
        }

    } else {
        ok = 0;
    }

    if (ok && ctx) {
        params = OSSL_PARAM_BLD_to_param(bld);

        if (params == NULL
            || EVP_PKEY_fromdata_init(ctx) != 1
            || EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params)
               != 1)
        {
            EVP_PKEY_free(pkey);
            pkey = NULL;
        }
    }

    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    EVP_PKEY_CTX_free(ctx);
    BN_free(n);
    BN_free(e);
    BN_free(x);
    BN_free(y);
    ERR_clear_error();

    return pkey;
}


int
gcp_jwt_keys_from_jwks(gcp_jwt_keys_t *set, const json_t *jwks)
{
    int             rc;
    size_t          i;
    json_t         *keys, *jwk;
    EVP_PKEY       *pkey;
    const char     *use, *kid;
    gcp_arena_t    *a;

    keys = json_object_get(jwks, "keys");

    if (!json_is_array(keys)) {
        return GCP_EINVALID;
    }

    a = gcp_arena_create(0);
    if (a == NULL) {
        return GCP_ENOMEM;
    }

    rc = GCP_OK;

    json_array_foreach(keys, i, jwk) {
        use = json_string_value(json_object_get(jwk, "use"));

        if (!json_is_object(jwk) || (use && strcmp(use, "sig") != 0)) {
            continue;
        }

        pkey = gcp_jwt_jwk_pkey(a, jwk);
        if (pkey == NULL) {
            continue;
        }

        kid = json_string_value(json_object_get(jwk, "kid"));

        rc = gcp_jwt_keys_push(set, pkey, kid ? kid : "", 1);

        if (rc == GCP_EINVALID) {
            rc = GCP_OK;
            continue;
        }

        if (rc != GCP_OK) {
            break;
        }
    }

    gcp_arena_destroy(a);

    return rc;
}


/* signing */


/* ECDSA signatures are R || S in JWS; OpenSSL speaks DER. */

static int
gcp_jwt_ec_from_der(const unsigned char *der, size_t len, int part,
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

    ok = BN_bn2binpad(r, out, part) == part
         && BN_bn2binpad(s, out + part, part) == part;

    ECDSA_SIG_free(sig);

    return ok ? GCP_OK : GCP_EINTERNAL;
}


/* Returns the DER form of an R || S signature (OPENSSL_free it). */

static unsigned char *
gcp_jwt_ec_to_der(const unsigned char *rs, int part, int *len)
{
    BIGNUM         *r, *s;
    ECDSA_SIG      *sig;
    unsigned char  *der;

    r = BN_bin2bn(rs, part, NULL);
    s = BN_bin2bn(rs + part, part, NULL);
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


/*
 * Starts a signature or a verification of alg with key: returns the
 * context (EVP_MD_CTX_free() it), or NULL when alg does not suit the key.
 */

static EVP_MD_CTX *
gcp_jwt_md_init(const gcp_jwt_alg_t *alg, const gcp_jwt_key_t *key,
    int sign)
{
    int            ok;
    EVP_MD_CTX    *ctx;
    EVP_PKEY_CTX  *pctx;

    if (alg->type != key->type) {
        return NULL;
    }

    ctx = EVP_MD_CTX_new();
    if (ctx == NULL) {
        return NULL;
    }

    pctx = NULL;

    ok = sign ? EVP_DigestSignInit_ex(ctx, &pctx, alg->md, NULL, NULL,
                                      key->pkey, NULL)
              : EVP_DigestVerifyInit_ex(ctx, &pctx, alg->md, NULL, NULL,
                                        key->pkey, NULL);

    if (ok == 1 && alg->pss) {
        /* go-jose: salt as long as the hash when signing, any verifying */
        ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1
             && EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx,
                    sign ? RSA_PSS_SALTLEN_DIGEST : RSA_PSS_SALTLEN_AUTO)
                == 1;
    }

    if (ok != 1) {
        EVP_MD_CTX_free(ctx);
        ERR_clear_error();
        return NULL;
    }

    return ctx;
}


static int
gcp_jwt_raw_sign(const gcp_jwt_key_t *key, const gcp_jwt_alg_t *alg,
    const char *data, size_t len, unsigned char *sig, size_t *siglen)
{
    int                     rc;
    size_t                  n;
    EVP_MD_CTX             *ctx;
    unsigned char           der[256];
    const gcp_jwt_curve_t  *c;

    ctx = gcp_jwt_md_init(alg, key, 1);
    if (ctx == NULL) {
        return GCP_EINTERNAL;
    }

    rc = GCP_EINTERNAL;

    if (EVP_DigestSign(ctx, NULL, &n, (const unsigned char *) data, len)
        != 1)
    {
        goto done;
    }

    c = gcp_jwt_curve(key->type);

    if (c) {
        if (n > sizeof(der)
            || EVP_DigestSign(ctx, der, &n, (const unsigned char *) data,
                              len) != 1
            || gcp_jwt_ec_from_der(der, n, c->part, sig) != GCP_OK)
        {
            goto done;
        }

        *siglen = 2 * (size_t) c->part;
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
    return gcp_jwt_sign_alg(a, key, gcp_jwt_key_alg(key), claims);
}


const char *
gcp_jwt_sign_alg(gcp_arena_t *a, const gcp_jwt_key_t *key,
    const char *algname, const json_t *claims)
{
    size_t                siglen;
    json_t               *header;
    gcp_buf_t             b;
    gcp_str_t             h, c;
    unsigned char        *sig;
    const gcp_jwt_alg_t  *alg;

    alg = gcp_jwt_alg_find(algname);
    if (alg == NULL || alg->type != key->type) {
        return NULL;
    }

    header = json_pack("{s:s, s:s}", "alg", alg->name, "kid", key->kid);
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

    siglen = (size_t) EVP_PKEY_get_size(key->pkey) + 2 * GCP_JWT_EC_PART_MAX;

    sig = gcp_alloc(a, siglen);

    if (sig == NULL || gcp_buf_failed(&b)
        || gcp_jwt_raw_sign(key, alg, b.data, b.len, sig, &siglen) != GCP_OK)
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


/* Returns 1 when jwt's signature verifies with key, else 0. */

static int
gcp_jwt_verify_key(const gcp_jwt_t *jwt, const gcp_jwt_key_t *key)
{
    int                     ok, derlen;
    size_t                  siglen;
    EVP_MD_CTX             *ctx;
    unsigned char          *der;
    const unsigned char    *sig;
    const gcp_jwt_alg_t    *alg;
    const gcp_jwt_curve_t  *c;

    alg = gcp_jwt_alg_find(jwt->alg);

    if (alg == NULL || alg->type != key->type) {
        return 0;
    }

    der = NULL;
    sig = (const unsigned char *) jwt->signature.data;
    siglen = jwt->signature.len;

    c = gcp_jwt_curve(key->type);

    if (c) {
        if (siglen != 2 * (size_t) c->part) {
            return 0;
        }

        der = gcp_jwt_ec_to_der(sig, c->part, &derlen);
        if (der == NULL) {
            ERR_clear_error();
            return 0;
        }

        sig = der;
        siglen = (size_t) derlen;
    }

    ctx = gcp_jwt_md_init(alg, key, 0);

    ok = ctx
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


int
gcp_jwt_verify_kid(const gcp_jwt_t *jwt, const gcp_jwt_keys_t *set)
{
    size_t  i;

    for (i = 0; i < set->n; i++) {
        if ((jwt->kid == NULL || jwt->kid[0] == '\0'
             || strcmp(jwt->kid, set->keys[i]->kid) == 0)
            && gcp_jwt_verify_key(jwt, set->keys[i]))
        {
            return GCP_OK;
        }
    }

    return GCP_EUNAUTHORIZED;
}
