
/*
 * The providers' transformations, byte for byte as upstream's
 * (k8s.io/apiserver/pkg/storage/value/encrypt): OpenSSL's AES, libsodium's
 * XSalsa20-Poly1305 (NaCl's secretbox, as golang.org/x/crypto's).
 *
 *   aescbc     IV (16 random bytes), AES-CBC of the value PKCS#7-padded
 *   aesgcm     nonce (12 random bytes), AES-GCM of the value, the tag;
 *              the storage key is the additional authenticated data
 *   secretbox  nonce (24 random bytes), the Poly1305 tag, XSalsa20 of the
 *              value
 */

#include <openssl/evp.h>
#include <sodium.h>

#include "gcp_enc_int.h"
#include "gcp_rand.h"


#define GCP_AES_BLOCK       16
#define GCP_GCM_NONCE       12
#define GCP_GCM_TAG         16

#define GCP_ENC_SHORT       "the stored data was shorter than the required size"


const char *
gcp_enc_prefix(gcp_enc_kind_t kind)
{
    switch (kind) {
    case GCP_ENC_AESCBC:
        return "k8s:enc:aescbc:v1:";
    case GCP_ENC_AESGCM:
        return "k8s:enc:aesgcm:v1:";
    case GCP_ENC_SECRETBOX:
        return "k8s:enc:secretbox:v1:";
    default:
        return "";
    }
}


const char *
gcp_enc_family(gcp_enc_kind_t kind)
{
    return kind == GCP_ENC_SECRETBOX ? "Secretbox" : "AES";
}


static const EVP_CIPHER *
gcp_enc_cipher(gcp_enc_kind_t kind, size_t len)
{
    if (kind == GCP_ENC_AESGCM) {
        return len == 16 ? EVP_aes_128_gcm()
               : len == 24 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
    }

    return len == 16 ? EVP_aes_128_cbc()
           : len == 24 ? EVP_aes_192_cbc() : EVP_aes_256_cbc();
}


/*
 * Returns k's context for kind, to seal (enc 1) or open (enc 0), ready for
 * a value with the IV or nonce iv, or NULL.  The key's schedule is set up
 * once per process and key (OpenSSL 3 fetches the implementation on each
 * full initialization, which costs more than sealing a Secret); each use
 * only sets the IV.
 */
static EVP_CIPHER_CTX *
gcp_enc_ctx(gcp_enc_kind_t kind, const gcp_enc_key_t *k, int enc,
    const unsigned char *iv)
{
    EVP_CIPHER_CTX  **slot;

    slot = (EVP_CIPHER_CTX **) &((gcp_enc_key_t *) k)->ctx[enc];

    if (*slot == NULL) {
        *slot = EVP_CIPHER_CTX_new();

        if (*slot == NULL
            || !EVP_CipherInit_ex(*slot, gcp_enc_cipher(kind, k->len), NULL,
                                  k->secret, NULL, enc))
        {
            EVP_CIPHER_CTX_free(*slot);
            *slot = NULL;
            return NULL;
        }
    }

    if (!EVP_CipherInit_ex(*slot, NULL, NULL, NULL, iv, enc)
        || !EVP_CIPHER_CTX_set_padding(*slot, 0))
    {
        return NULL;
    }

    return *slot;
}


void
gcp_enc_key_free(gcp_enc_key_t *k)
{
    EVP_CIPHER_CTX_free(k->ctx[0]);
    EVP_CIPHER_CTX_free(k->ctx[1]);
    k->ctx[0] = NULL;
    k->ctx[1] = NULL;
}


static int
gcp_enc_seal_cbc(const gcp_enc_key_t *k, gcp_str_t in, unsigned char *out,
    size_t *n)
{
    int              ok, l1, l2;
    size_t           pad;
    unsigned char    last[GCP_AES_BLOCK];
    EVP_CIPHER_CTX  *ctx;

    if (gcp_rand_bytes(out, GCP_AES_BLOCK) != GCP_OK) {
        return GCP_EINTERNAL;
    }

    ctx = gcp_enc_ctx(GCP_ENC_AESCBC, k, 1, out);
    if (ctx == NULL) {
        return GCP_EINTERNAL;
    }

    /* PKCS#7 as upstream writes it: always 1 to 16 bytes */

    pad = GCP_AES_BLOCK - in.len % GCP_AES_BLOCK;

    if (in.len % GCP_AES_BLOCK) {
        memcpy(last, in.data + in.len - in.len % GCP_AES_BLOCK,
               in.len % GCP_AES_BLOCK);
    }

    memset(last + in.len % GCP_AES_BLOCK, (int) pad, pad);

    l1 = l2 = 0;

    ok = EVP_EncryptUpdate(ctx, out + GCP_AES_BLOCK, &l1,
                           (const unsigned char *) in.data,
                           (int) (in.len - in.len % GCP_AES_BLOCK))
         && EVP_EncryptUpdate(ctx, out + GCP_AES_BLOCK + l1, &l2, last,
                              GCP_AES_BLOCK);

    *n = GCP_AES_BLOCK + (size_t) l1 + (size_t) l2;

    return ok ? GCP_OK : GCP_EINTERNAL;
}


static int
gcp_enc_seal_gcm(const gcp_enc_key_t *k, gcp_str_t aad, gcp_str_t in,
    unsigned char *out, size_t *n)
{
    int              ok, l1, l2;
    EVP_CIPHER_CTX  *ctx;

    if (gcp_rand_bytes(out, GCP_GCM_NONCE) != GCP_OK) {
        return GCP_EINTERNAL;
    }

    ctx = gcp_enc_ctx(GCP_ENC_AESGCM, k, 1, out);
    if (ctx == NULL) {
        return GCP_EINTERNAL;
    }

    l1 = l2 = 0;

    ok = EVP_EncryptUpdate(ctx, NULL, &l1,
                              (const unsigned char *) aad.data,
                              (int) aad.len)
         && EVP_EncryptUpdate(ctx, out + GCP_GCM_NONCE, &l1,
                              (const unsigned char *) in.data, (int) in.len)
         && EVP_EncryptFinal_ex(ctx, out + GCP_GCM_NONCE + l1, &l2)
         && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, GCP_GCM_TAG,
                                out + GCP_GCM_NONCE + l1 + l2);

    *n = GCP_GCM_NONCE + (size_t) l1 + (size_t) l2 + GCP_GCM_TAG;

    return ok ? GCP_OK : GCP_EINTERNAL;
}


int
gcp_enc_seal(gcp_enc_kind_t kind, const gcp_enc_key_t *k, gcp_str_t aad,
    gcp_str_t in, gcp_buf_t *b, const char **msg)
{
    int             rc;
    size_t          n;
    unsigned char  *out;

    if (in.len > INT32_MAX - 64) {
        *msg = "value too large to encrypt";
        return GCP_EINTERNAL;
    }

    if (gcp_buf_reserve(b, in.len + 64) != GCP_OK) {
        return GCP_ENOMEM;
    }

    out = (unsigned char *) b->data + b->len;
    n = 0;

    switch (kind) {

    case GCP_ENC_AESCBC:
        rc = gcp_enc_seal_cbc(k, in, out, &n);
        break;

    case GCP_ENC_AESGCM:
        rc = gcp_enc_seal_gcm(k, aad, in, out, &n);
        break;

    case GCP_ENC_SECRETBOX:
        randombytes_buf(out, crypto_secretbox_NONCEBYTES);
        rc = crypto_secretbox_easy(out + crypto_secretbox_NONCEBYTES,
                                   (const unsigned char *) in.data, in.len,
                                   out, k->secret) == 0
             ? GCP_OK : GCP_EINTERNAL;
        n = crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES + in.len;
        break;

    default:
        rc = GCP_EINTERNAL;
    }

    if (rc != GCP_OK) {
        *msg = rc == GCP_ENOMEM ? NULL : "unable to encrypt the value";
        return rc;
    }

    b->len += n;

    return GCP_OK;
}


static int
gcp_enc_open_cbc(const gcp_enc_key_t *k, gcp_str_t in, unsigned char *out,
    size_t *n, const char **msg)
{
    int              ok, l;
    size_t           pad, len, i;
    EVP_CIPHER_CTX  *ctx;

    if (in.len < GCP_AES_BLOCK) {
        *msg = GCP_ENC_SHORT;
        return GCP_EINTERNAL;
    }

    len = in.len - GCP_AES_BLOCK;

    if (len % GCP_AES_BLOCK != 0) {
        *msg = "the stored data is not a multiple of the block size";
        return GCP_EINTERNAL;
    }

    if (len == 0) {
        *msg = "invalid PKCS7 data (empty or not padded)";
        return GCP_EINTERNAL;
    }

    ctx = gcp_enc_ctx(GCP_ENC_AESCBC, k, 0,
                      (const unsigned char *) in.data);
    if (ctx == NULL) {
        *msg = "unable to decrypt the value";
        return GCP_EINTERNAL;
    }

    l = 0;

    ok = EVP_DecryptUpdate(ctx, out, &l,
                           (const unsigned char *) in.data + GCP_AES_BLOCK,
                           (int) len);

    if (!ok || (size_t) l != len) {
        *msg = "unable to decrypt the value";
        return GCP_EINTERNAL;
    }

    /* remove and verify PKCS#7 padding, as upstream */

    pad = out[len - 1];

    if (pad == 0 || pad > len) {
        *msg = "invalid PKCS7 data (empty or not padded)";
        return GCP_EINTERNAL;
    }

    for (i = len - pad; i < len; i++) {
        if (out[i] != pad) {
            *msg = "invalid padding on input";
            return GCP_EINTERNAL;
        }
    }

    *n = len - pad;

    return GCP_OK;
}


static int
gcp_enc_open_gcm(const gcp_enc_key_t *k, gcp_str_t aad, gcp_str_t in,
    unsigned char *out, size_t *n, const char **msg)
{
    int                   ok, l1, l2;
    size_t                len;
    EVP_CIPHER_CTX       *ctx;
    const unsigned char  *p = (const unsigned char *) in.data;

    if (in.len < GCP_GCM_NONCE) {
        *msg = GCP_ENC_SHORT;
        return GCP_EINTERNAL;
    }

    if (in.len < GCP_GCM_NONCE + GCP_GCM_TAG) {
        *msg = "cipher: message authentication failed";
        return GCP_EINTERNAL;
    }

    len = in.len - GCP_GCM_NONCE - GCP_GCM_TAG;

    ctx = gcp_enc_ctx(GCP_ENC_AESGCM, k, 0, p);
    if (ctx == NULL) {
        *msg = "cipher: message authentication failed";
        return GCP_EINTERNAL;
    }

    l1 = l2 = 0;

    ok = EVP_DecryptUpdate(ctx, NULL, &l1,
                              (const unsigned char *) aad.data,
                              (int) aad.len)
         && EVP_DecryptUpdate(ctx, out, &l1, p + GCP_GCM_NONCE, (int) len)
         && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, GCP_GCM_TAG,
                                (void *) (p + GCP_GCM_NONCE + len))
         && EVP_DecryptFinal_ex(ctx, out + l1, &l2) > 0;

    if (!ok) {
        *msg = "cipher: message authentication failed";
        return GCP_EINTERNAL;
    }

    *n = (size_t) l1 + (size_t) l2;

    return GCP_OK;
}


int
gcp_enc_open(gcp_enc_kind_t kind, const gcp_enc_key_t *k, gcp_str_t aad,
    gcp_str_t in, gcp_arena_t *a, gcp_str_t *out, const char **msg)
{
    int             rc;
    size_t          n;
    unsigned char  *o;

    if (in.len > INT32_MAX) {
        *msg = "value too large to decrypt";
        return GCP_EINTERNAL;
    }

    o = gcp_alloc(a, in.len + 1);
    if (o == NULL) {
        return GCP_ENOMEM;
    }

    n = 0;

    switch (kind) {

    case GCP_ENC_AESCBC:
        rc = gcp_enc_open_cbc(k, in, o, &n, msg);
        break;

    case GCP_ENC_AESGCM:
        rc = gcp_enc_open_gcm(k, aad, in, o, &n, msg);
        break;

    case GCP_ENC_SECRETBOX:
        if (in.len < crypto_secretbox_NONCEBYTES
                     + crypto_secretbox_MACBYTES)
        {
            *msg = GCP_ENC_SHORT;
            return GCP_EINTERNAL;
        }

        rc = crypto_secretbox_open_easy(o,
                 (const unsigned char *) in.data
                 + crypto_secretbox_NONCEBYTES,
                 in.len - crypto_secretbox_NONCEBYTES,
                 (const unsigned char *) in.data, k->secret);

        if (rc != 0) {
            *msg = "output array was not large enough for encryption";
            return GCP_EINTERNAL;
        }

        n = in.len - crypto_secretbox_NONCEBYTES - crypto_secretbox_MACBYTES;
        break;

    default:
        *msg = "unknown provider";
        return GCP_EINTERNAL;
    }

    if (rc != GCP_OK) {
        return rc;
    }

    o[n] = '\0';
    out->data = (const char *) o;
    out->len = n;

    return GCP_OK;
}
