
/*
 * Signing approved requests (pkg/controller/certificates/signer and
 * authority, v1.32) with OpenSSL: the CA of a signer, its policy
 * (PermissiveSigningPolicy: the requested usages, not a CA, backdated
 * unless short-lived, never past the CA), the checks of the
 * kube-apiserver-client signer, the signer's duration.
 */

#include <string.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "gcp_csr.h"


#define GCP_CSR_BACKDATE  (5 * 60)          /* authority's backdate */
#define GCP_CSR_HORIZON   (8 * 3600)        /* ... and its "short" */
#define GCP_CSR_MIN_TTL   (10 * 60)


struct gcp_csr_ca_s {
    X509      *cert;
    EVP_PKEY  *key;
    time_t     not_after;
};


/* usages as x509 KeyUsage (OpenSSL's names) or ExtKeyUsage */
typedef struct {
    const char  *usage;
    const char  *ku;
    const char  *eku;
} gcp_csr_usage_t;

static const gcp_csr_usage_t  gcp_csr_usage_map[] = {
    { "signing", "digitalSignature", NULL },
    { "digital signature", "digitalSignature", NULL },
    { "content commitment", "nonRepudiation", NULL },
    { "key encipherment", "keyEncipherment", NULL },
    { "key agreement", "keyAgreement", NULL },
    { "data encipherment", "dataEncipherment", NULL },
    { "cert sign", "keyCertSign", NULL },
    { "crl sign", "cRLSign", NULL },
    { "encipher only", "encipherOnly", NULL },
    { "decipher only", "decipherOnly", NULL },
    { "any", NULL, "anyExtendedKeyUsage" },
    { "server auth", NULL, "serverAuth" },
    { "client auth", NULL, "clientAuth" },
    { "code signing", NULL, "codeSigning" },
    { "email protection", NULL, "emailProtection" },
    { "s/mime", NULL, "emailProtection" },
    { "ipsec end system", NULL, "ipsecEndSystem" },
    { "ipsec tunnel", NULL, "ipsecTunnel" },
    { "ipsec user", NULL, "ipsecUser" },
    { "timestamping", NULL, "timeStamping" },
    { "ocsp signing", NULL, "OCSPSigning" },
    { "microsoft sgc", NULL, "msSGC" },
    { "netscape sgc", NULL, "nsSGC" },
};


static time_t
gcp_csr_asn1_time(const ASN1_TIME *t)
{
    struct tm  tm;

    memset(&tm, 0, sizeof(tm));

    if (ASN1_TIME_to_tm(t, &tm) != 1) {
        return 0;
    }

    return timegm(&tm);
}


gcp_csr_ca_t *
gcp_csr_ca_load(const char *cert_pem, size_t cert_len, const char *key_pem,
    size_t key_len, char *err, size_t errlen)
{
    BIO           *bio;
    gcp_csr_ca_t  *ca;

    ca = calloc(1, sizeof(gcp_csr_ca_t));
    if (ca == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }

    bio = BIO_new_mem_buf(cert_pem, (int) cert_len);
    ca->cert = bio ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);

    bio = BIO_new_mem_buf(key_pem, (int) key_len);
    ca->key = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);

    if (ca->cert == NULL) {
        snprintf(err, errlen, "no PEM certificate");

    } else if (ca->key == NULL) {
        snprintf(err, errlen, "no PEM private key");

    } else if (X509_check_ca(ca->cert) < 1) {
        snprintf(err, errlen, "the certificate is not a CA's");

    } else if (X509_check_private_key(ca->cert, ca->key) != 1) {
        snprintf(err, errlen, "the private key does not match the "
                 "certificate");

    } else {
        ca->not_after = gcp_csr_asn1_time(X509_get0_notAfter(ca->cert));
        return ca;
    }

    gcp_csr_ca_free(ca);

    return NULL;
}


void
gcp_csr_ca_free(gcp_csr_ca_t *ca)
{
    if (ca == NULL) {
        return;
    }

    X509_free(ca->cert);
    EVP_PKEY_free(ca->key);
    free(ca);
}


long
gcp_csr_duration(long expiration_seconds, long max)
{
    if (expiration_seconds < 0) {
        return max;
    }

    if (expiration_seconds > max) {
        return max;
    }

    if (expiration_seconds < GCP_CSR_MIN_TTL) {
        return GCP_CSR_MIN_TTL;
    }

    return expiration_seconds;
}


const char *
gcp_csr_apiserver_client_check(gcp_arena_t *a, const json_t *obj,
    const gcp_csr_info_t *info)
{
    int          client;
    size_t       i;
    json_t      *u;
    const char  *s;

    client = 0;

    json_array_foreach(json_object_get(json_object_get(obj, "spec"),
                                       "usages"), i, u)
    {
        s = json_is_string(u) ? json_string_value(u) : "";

        if (strcmp(s, "client auth") == 0) {
            client = 1;

        } else if (strcmp(s, "digital signature") != 0
                   && strcmp(s, "key encipherment") != 0)
        {
            return gcp_sprintf(a, "invalid usage for client certificate: %s",
                               s);
        }
    }

    if (!client) {
        return "missing required usage for client certificate: client auth";
    }

    for (i = 0; i < info->norgs; i++) {
        if (strcmp(info->orgs[i], "system:masters") == 0) {
            return "use of kubernetes.io/kube-apiserver-client signer with "
                   "system:masters group is not allowed";
        }
    }

    return NULL;
}


/* Adds extension nid with value v (OpenSSL's configuration syntax). */
static int
gcp_csr_add_ext(X509 *x, X509V3_CTX *ctx, int nid, const char *v)
{
    int              rc;
    X509_EXTENSION  *ext;

    ext = X509V3_EXT_conf_nid(NULL, ctx, nid, v);
    if (ext == NULL) {
        return -1;
    }

    rc = X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);

    return rc == 1 ? 0 : -1;
}


/* The key usage and extended key usage extensions' values of obj. */
static int
gcp_csr_usage_values(gcp_arena_t *a, const json_t *obj, gcp_buf_t *ku,
    gcp_buf_t *eku, const char **err)
{
    size_t                   i, k;
    json_t                  *u;
    const char              *s;
    const gcp_csr_usage_t   *m;

    gcp_buf_init(ku, a);
    gcp_buf_init(eku, a);

    json_array_foreach(json_object_get(json_object_get(obj, "spec"),
                                       "usages"), i, u)
    {
        s = json_is_string(u) ? json_string_value(u) : "";
        m = NULL;

        for (k = 0; k < gcp_nelems(gcp_csr_usage_map); k++) {
            if (strcmp(gcp_csr_usage_map[k].usage, s) == 0) {
                m = &gcp_csr_usage_map[k];
                break;
            }
        }

        if (m == NULL) {
            *err = gcp_sprintf(a, "unrecognized usage: %s", s);
            return GCP_EINVALID;
        }

        if (m->ku) {
            gcp_buf_addstr(ku, ku->len ? "," : "critical,");
            gcp_buf_addstr(ku, m->ku);

        } else {
            if (eku->len) {
                gcp_buf_addc(eku, ',');
            }

            gcp_buf_addstr(eku, m->eku);
        }
    }

    return gcp_buf_failed(ku) || gcp_buf_failed(eku) ? GCP_ENOMEM : GCP_OK;
}


/* The subjectAltName of the request, copied. */
static int
gcp_csr_copy_san(X509 *x, X509_REQ *req)
{
    int                         i, rc;
    X509_EXTENSION             *ext;
    STACK_OF(X509_EXTENSION)   *exts;

    exts = X509_REQ_get_extensions(req);
    if (exts == NULL) {
        return 0;
    }

    rc = 0;

    for (i = 0; i < sk_X509_EXTENSION_num(exts); i++) {
        ext = sk_X509_EXTENSION_value(exts, i);

        if (OBJ_obj2nid(X509_EXTENSION_get_object(ext))
            == NID_subject_alt_name)
        {
            rc = X509_add_ext(x, ext, -1) == 1 ? 0 : -1;
            break;
        }
    }

    sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);

    return rc;
}


static int
gcp_csr_serial(X509 *x)
{
    int             rc;
    BIGNUM         *bn;
    unsigned char   r[16];

    /* rand.Int(rand.Reader, 2^128) */

    if (RAND_bytes(r, sizeof(r)) != 1) {
        return -1;
    }

    bn = BN_bin2bn(r, sizeof(r), NULL);
    rc = bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) ? 0 : -1;
    BN_free(bn);

    return rc;
}


static const char *
gcp_csr_go_time(gcp_arena_t *a, time_t t)
{
    char       buf[64];
    struct tm  tm;

    gmtime_r(&t, &tm);
    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S +0000 UTC", &tm);

    return gcp_strdup(a, buf);
}


int
gcp_csr_sign(gcp_arena_t *a, gcp_csr_ca_t *ca, const json_t *obj,
    time_t now, long ttl, gcp_str_t *pem, const char **err)
{
    int              rc;
    X509            *x;
    BIO             *bio;
    long             backdate, n;
    char            *data;
    time_t           nb, na;
    gcp_str_t        req;
    gcp_buf_t        ku, eku;
    X509V3_CTX       ctx;
    const EVP_MD    *md;
    gcp_csr_info_t   info;

    rc = gcp_csr_bytes(a, obj, "spec", "request", &req);

    if (rc == GCP_OK) {
        rc = gcp_csr_parse(a, req.data, req.len, &info, err);

    } else if (rc != GCP_ENOMEM) {
        *err = "PEM block type must be CERTIFICATE REQUEST";
    }

    if (rc != GCP_OK) {
        return rc;
    }

    rc = gcp_csr_usage_values(a, obj, &ku, &eku, err);
    if (rc != GCP_OK) {
        return rc;
    }

    /* boundaries() */

    backdate = ttl < GCP_CSR_HORIZON ? 0 : GCP_CSR_BACKDATE;
    nb = now - backdate;
    na = now + ttl - backdate;

    if (na >= ca->not_after) {
        na = ca->not_after;
    }

    if (nb >= ca->not_after) {
        *err = gcp_sprintf(a, "the signer has expired: NotAfter=%s",
                           gcp_csr_go_time(a, ca->not_after));
        return *err ? GCP_EINVALID : GCP_ENOMEM;
    }

    if (now >= ca->not_after) {
        *err = "refusing to sign a certificate that expired in the past";
        return GCP_EINVALID;
    }

    x = X509_new();
    if (x == NULL) {
        return GCP_ENOMEM;
    }

    X509V3_set_ctx(&ctx, ca->cert, x, NULL, NULL, 0);

    md = EVP_PKEY_base_id(ca->key) == EVP_PKEY_ED25519 ? NULL : EVP_sha256();

    if (X509_set_version(x, 2) != 1
        || gcp_csr_serial(x) != 0
        || X509_set_issuer_name(x, X509_get_subject_name(ca->cert)) != 1
        || X509_set_subject_name(x, X509_REQ_get_subject_name(info.req)) != 1
        || X509_set_pubkey(x, X509_REQ_get0_pubkey(info.req)) != 1
        || ASN1_TIME_set(X509_getm_notBefore(x), nb) == NULL
        || ASN1_TIME_set(X509_getm_notAfter(x), na) == NULL
        || (ku.len && gcp_csr_add_ext(x, &ctx, NID_key_usage,
                                      gcp_buf_cstr(&ku)) != 0)
        || (eku.len && gcp_csr_add_ext(x, &ctx, NID_ext_key_usage,
                                       gcp_buf_cstr(&eku)) != 0)
        || gcp_csr_add_ext(x, &ctx, NID_basic_constraints,
                           "critical,CA:FALSE") != 0
        || (X509_get0_subject_key_id(ca->cert)
            && gcp_csr_add_ext(x, &ctx, NID_authority_key_identifier,
                               "keyid") != 0)
        || gcp_csr_copy_san(x, info.req) != 0
        || X509_sign(x, ca->key, md) <= 0)
    {
        X509_free(x);
        *err = "the certificate could not be made";
        return GCP_EINTERNAL;
    }

    bio = BIO_new(BIO_s_mem());

    if (bio == NULL || PEM_write_bio_X509(bio, x) != 1) {
        BIO_free(bio);
        X509_free(x);
        return GCP_ENOMEM;
    }

    X509_free(x);

    n = BIO_get_mem_data(bio, &data);

    pem->data = gcp_strndup(a, data, n);
    pem->len = n;

    BIO_free(bio);

    return pem->data ? GCP_OK : GCP_ENOMEM;
}
