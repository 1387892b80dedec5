
/*
 * PEM blocks as Go's encoding/pem decodes them, PKCS#10 requests and
 * certificates through OpenSSL: spec.request and status.certificate of
 * CertificateSigningRequests (untrusted input: every length is bounded by
 * the input's, which the body limit bounds).
 */

#include <string.h>

#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/x509.h>

#include "gcp_base64.h"
#include "gcp_csr.h"
#include "gcp_csr_int.h"


static const char  gcp_pem_begin[] = "-----BEGIN ";
static const char  gcp_pem_end[] = "-----END ";
static const char  gcp_pem_dashes[] = "-----";


/* The end of the line starting at p (its '\n', or end). */
static const char *
gcp_pem_eol(const char *p, const char *end)
{
    const char  *nl;

    nl = memchr(p, '\n', end - p);

    return nl ? nl : end;
}


/* Line p .. eol without its trailing '\r', spaces and tabs. */
static const char *
gcp_pem_trim(const char *p, const char *eol)
{
    while (eol > p && (eol[-1] == '\r' || eol[-1] == ' '
                       || eol[-1] == '\t'))
    {
        eol--;
    }

    return eol;
}


static int
gcp_pem_b64(u_char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
           || (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '=';
}


/*
 * Decodes the block whose "-----BEGIN " starts at p.  Returns 1 with
 * *blk filled and *next after it, 0 when it is not a valid block, -1
 * when out of memory.  *end_line caches the first "-----END " line found
 * after an earlier block's start (no other line between starts so), and
 * a body stops at its first character that is not base64: every byte is
 * looked at a bounded number of times, however many BEGIN lines there are.
 */
static int
gcp_pem_block(gcp_arena_t *a, const char *p, const char *end,
    gcp_pem_block_t *blk, const char **next, const char **end_line)
{
    char        *out, *b64;
    size_t       tlen, n;
    ssize_t      got;
    const char  *eol, *le, *type, *body, *q;

    p += sizeof(gcp_pem_begin) - 1;
    eol = gcp_pem_eol(p, end);
    le = gcp_pem_trim(p, eol);

    if (le - p < (ssize_t) sizeof(gcp_pem_dashes) - 1
        || memcmp(le - 5, gcp_pem_dashes, 5) != 0)
    {
        return 0;
    }

    type = p;
    tlen = (le - 5) - p;

    memset(blk, 0, sizeof(gcp_pem_block_t));

    p = eol < end ? eol + 1 : end;

    /* headers: "Key: value" lines, then an empty line */

    q = p;

    while (q < end) {
        eol = gcp_pem_eol(q, end);
        le = gcp_pem_trim(q, eol);

        if (le == q || memchr(q, ':', le - q) == NULL) {
            break;
        }

        blk->headers++;
        q = eol < end ? eol + 1 : end;
    }

    if (blk->headers) {
        eol = gcp_pem_eol(q, end);

        if (gcp_pem_trim(q, eol) != q) {
            /* headers not followed by an empty line: a body after all */
            blk->headers = 0;
            q = p;

        } else {
            q = eol < end ? eol + 1 : end;
        }
    }

    body = q;

    /* the body: base64 and white space, up to an END line */

    for (q = body; q < end; q++) {
        if (*q == '-') {
            break;
        }

        if (!gcp_pem_b64(*q) && *q != ' ' && *q != '\t' && *q != '\r'
            && *q != '\n')
        {
            return 0;
        }
    }

    if (q < end && q > body && q[-1] != '\n') {
        return 0;
    }

    /* the END line of the same type */

    if (*end_line == NULL || *end_line < q) {
        while (q < end
               && ((size_t) (end - q) < sizeof(gcp_pem_end) - 1
                   || memcmp(q, gcp_pem_end, sizeof(gcp_pem_end) - 1) != 0))
        {
            eol = gcp_pem_eol(q, end);
            q = eol < end ? eol + 1 : end;
        }

        *end_line = q;
    }

    if (*end_line != q) {
        /* a line between the body and the END line */
        return 0;
    }

    if (q >= end) {
        return 0;
    }

    eol = gcp_pem_eol(q, end);
    le = gcp_pem_trim(q, eol);
    n = sizeof(gcp_pem_end) - 1;

    if ((size_t) (le - q) != n + tlen + 5
        || memcmp(q + n, type, tlen) != 0
        || memcmp(q + n + tlen, gcp_pem_dashes, 5) != 0)
    {
        return 0;
    }

    /* base64 without the white space */

    b64 = gcp_alloc(a, (q - body) + 1);
    out = gcp_alloc(a, GCP_BASE64_DECODED_MAX((size_t) (q - body)) + 1);

    if (b64 == NULL || out == NULL) {
        return -1;
    }

    for (n = 0, p = body; p < q; p++) {
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
            b64[n++] = *p;
        }
    }

    got = gcp_base64_decode_into(b64, n, GCP_BASE64_STD, out, NULL);
    if (got < 0) {
        return 0;
    }

    blk->type = gcp_strndup(a, type, tlen);
    if (blk->type == NULL) {
        return -1;
    }

    blk->der = (const unsigned char *) out;
    blk->len = got;

    *next = eol < end ? eol + 1 : end;

    return 1;
}


int
gcp_pem_decode(gcp_arena_t *a, const char *data, size_t len,
    gcp_pem_block_t *blk, size_t *used)
{
    int          rc;
    const char  *p, *end, *next, *end_line;

    end = data + len;
    p = data;
    end_line = NULL;

    while (p < end) {
        if ((size_t) (end - p) >= sizeof(gcp_pem_begin) - 1
            && memcmp(p, gcp_pem_begin, sizeof(gcp_pem_begin) - 1) == 0
            && (p == data || p[-1] == '\n'))
        {
            rc = gcp_pem_block(a, p, end, blk, &next, &end_line);

            if (rc < 0) {
                return GCP_ENOMEM;
            }

            if (rc == 1) {
                *used = next - data;
                return GCP_OK;
            }

            p += sizeof(gcp_pem_begin) - 1;
            continue;
        }

        next = memchr(p, '\n', end - p);
        if (next == NULL) {
            break;
        }

        p = next + 1;
    }

    return GCP_EINVALID;
}


static void
gcp_csr_req_free(void *data)
{
    X509_REQ_free(data);
}


/* The UTF-8 values of the subject's entries of nid, NULL-terminated. */
static const char **
gcp_csr_names(gcp_arena_t *a, X509_NAME *name, int nid, size_t *n)
{
    int              i, count, len;
    size_t           k;
    const char     **v;
    unsigned char   *utf8;
    X509_NAME_ENTRY *e;

    count = X509_NAME_entry_count(name);

    v = gcp_calloc(a, (count + 1) * sizeof(char *));
    if (v == NULL) {
        return NULL;
    }

    for (i = 0, k = 0; i < count; i++) {
        e = X509_NAME_get_entry(name, i);

        if (OBJ_obj2nid(X509_NAME_ENTRY_get_object(e)) != nid) {
            continue;
        }

        len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(e));
        if (len < 0) {
            continue;
        }

        v[k] = gcp_strndup(a, (char *) utf8, len);
        OPENSSL_free(utf8);

        if (v[k] == NULL) {
            return NULL;
        }

        k++;
    }

    *n = k;

    return v;
}


/* Go's message for a signature that does not verify, by key type. */
static const char *
gcp_csr_verify_error(EVP_PKEY *key)
{
    switch (EVP_PKEY_base_id(key)) {

    case EVP_PKEY_RSA:
        return "crypto/rsa: verification error";

    case EVP_PKEY_EC:
        return "x509: ECDSA verification failure";

    case EVP_PKEY_ED25519:
        return "x509: Ed25519 verification failure";

    default:
        return "x509: cannot verify signature: algorithm unimplemented";
    }
}


int
gcp_csr_parse(gcp_arena_t *a, const char *pem, size_t len,
    gcp_csr_info_t *info, const char **err)
{
    int                   rc;
    size_t                used, n;
    X509_REQ             *req;
    EVP_PKEY             *key;
    const char          **cn;
    gcp_pem_block_t       blk;
    const unsigned char  *p;

    if (len > GCP_CSR_PEM_MAX) {
        *err = "PEM block type must be CERTIFICATE REQUEST";
        return GCP_EINVALID;
    }

    rc = gcp_pem_decode(a, pem, len, &blk, &used);

    if (rc == GCP_ENOMEM) {
        return rc;
    }

    if (rc != GCP_OK || strcmp(blk.type, "CERTIFICATE REQUEST") != 0) {
        *err = "PEM block type must be CERTIFICATE REQUEST";
        return GCP_EINVALID;
    }

    p = blk.der;
    req = d2i_X509_REQ(NULL, &p, blk.len);

    if (req == NULL) {
        *err = "asn1: structure error: malformed certificate request";
        return GCP_EINVALID;
    }

    if (gcp_arena_cleanup(a, gcp_csr_req_free, req) != GCP_OK) {
        return GCP_ENOMEM;
    }

    if (p != blk.der + blk.len) {
        *err = "asn1: syntax error: trailing data";
        return GCP_EINVALID;
    }

    key = X509_REQ_get0_pubkey(req);

    if (key == NULL) {
        *err = "x509: unsupported public key type";
        return GCP_EINVALID;
    }

    if (X509_REQ_verify(req, key) != 1) {
        *err = gcp_csr_verify_error(key);
        return GCP_EINVALID;
    }

    if (info == NULL) {
        return GCP_OK;
    }

    info->req = req;

    cn = gcp_csr_names(a, X509_REQ_get_subject_name(req), NID_commonName,
                       &n);
    info->orgs = gcp_csr_names(a, X509_REQ_get_subject_name(req),
                               NID_organizationName, &info->norgs);

    if (cn == NULL || info->orgs == NULL) {
        return GCP_ENOMEM;
    }

    /* Go's pkix.Name keeps the last CommonName */
    info->cn = n ? cn[n - 1] : "";

    return GCP_OK;
}


int
gcp_csr_check_certificate(gcp_arena_t *a, const char *pem, size_t len,
    time_t *not_after, const char **err)
{
    int                   rc, blocks, day, sec;
    time_t                t;
    X509                 *x;
    size_t                used;
    gcp_pem_block_t       blk;
    const unsigned char  *p;

    if (len > GCP_CSR_PEM_MAX) {
        *err = "must contain at least one CERTIFICATE PEM block";
        return GCP_EINVALID;
    }

    blocks = 0;

    if (not_after) {
        *not_after = 0;
    }

    while (len) {
        rc = gcp_pem_decode(a, pem, len, &blk, &used);

        if (rc == GCP_ENOMEM) {
            return rc;
        }

        if (rc != GCP_OK) {
            break;
        }

        if (strcmp(blk.type, "CERTIFICATE") != 0) {
            *err = gcp_sprintf(a, "only CERTIFICATE PEM blocks are allowed, "
                               "found %s", gcp_ferr_quote(a, blk.type));
            return *err ? GCP_EINVALID : GCP_ENOMEM;
        }

        if (blk.headers) {
            *err = "no PEM block headers are permitted";
            return GCP_EINVALID;
        }

        blocks++;

        /* x509.ParseCertificates: one or more DER certificates in a row */

        p = blk.der;

        if (blk.len == 0) {
            *err = "found CERTIFICATE PEM block containing 0 certificates";
            return GCP_EINVALID;
        }

        while (p < blk.der + blk.len) {
            x = d2i_X509(NULL, &p, blk.der + blk.len - p);

            if (x == NULL) {
                *err = "x509: malformed certificate";
                return GCP_EINVALID;
            }

            if (not_after
                && ASN1_TIME_diff(&day, &sec, NULL, X509_get0_notAfter(x)))
            {
                t = time(NULL) + (time_t) day * 86400 + sec;

                if (*not_after == 0 || t < *not_after) {
                    *not_after = t;
                }
            }

            X509_free(x);
        }

        pem += used;
        len -= used;
    }

    if (blocks == 0) {
        *err = "must contain at least one CERTIFICATE PEM block";
        return GCP_EINVALID;
    }

    return GCP_OK;
}


int
gcp_csr_bytes(gcp_arena_t *a, const json_t *obj, const char *parent,
    const char *field, gcp_str_t *out)
{
    int            rc;
    const char    *msg;
    const json_t  *v;

    out->data = NULL;
    out->len = 0;

    v = json_object_get(json_object_get(obj, parent), field);

    if (!json_is_string(v)) {
        return GCP_OK;
    }

    rc = gcp_base64_decode(a, json_string_value(v), json_string_length(v),
                           out, &msg);

    return rc == GCP_OK || rc == GCP_ENOMEM ? rc : GCP_EINVALID;
}
