
/*
 * X.509 client certificates: the client CA authenticator (CN the user,
 * O the groups) and the front-proxy (request header) authenticator, whose
 * headers are trusted only from a certificate of its own CA.
 */

#include <stdio.h>
#include <strings.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "gcp_auth_int.h"
#include "gcp_time.h"


int
gcp_auth_ca_load(const char *path, X509_STORE **out, char **pem,
    char *err, size_t errlen)
{
    int          n;
    BIO         *bio, *mem;
    X509        *x;
    long         len;
    char        *data;
    X509_STORE  *store;

    bio = BIO_new_file(path, "r");
    if (bio == NULL) {
        snprintf(err, errlen, "cannot open \"%s\"", path);
        ERR_clear_error();
        return GCP_EINVALID;
    }

    store = X509_STORE_new();
    if (store == NULL) {
        BIO_free(bio);
        snprintf(err, errlen, "out of memory");
        return GCP_ENOMEM;
    }

    /* the certificates also as PEM again, for those who publish them */

    mem = BIO_new(BIO_s_mem());
    n = 0;

    while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        if (X509_STORE_add_cert(store, x) == 1) {
            n++;
        }

        if (mem) {
            PEM_write_bio_X509(mem, x);
        }

        X509_free(x);
    }

    BIO_free(bio);
    ERR_clear_error();

    len = mem ? BIO_get_mem_data(mem, &data) : 0;
    *pem = (n && len > 0) ? strndup(data, (size_t) len) : NULL;
    BIO_free(mem);

    if (n == 0 || *pem == NULL) {
        X509_STORE_free(store);
        snprintf(err, errlen, n ? "out of memory"
                                : "no certificate in \"%s\"", path);
        return n ? GCP_ENOMEM : GCP_EINVALID;
    }

    *out = store;

    return GCP_OK;
}


/* The message of Go's x509 errors for the common failures. */

static const char *
gcp_auth_x509_error(int code)
{
    switch (code) {

    case X509_V_ERR_CERT_HAS_EXPIRED:
    case X509_V_ERR_CERT_NOT_YET_VALID:
        return "x509: certificate has expired or is not yet valid";

    case X509_V_ERR_INVALID_PURPOSE:
        return "x509: certificate specifies an incompatible key usage";

    default:
        return "x509: certificate signed by unknown authority";
    }
}


/* The earliest notAfter of a chain (time_t), or 0 when unreadable. */

static time_t
gcp_auth_x509_not_after(STACK_OF(X509) *chain)
{
    int              i;
    time_t           t, min;
    struct tm        tm;
    const ASN1_TIME  *na;

    min = 0;

    for (i = 0; i < sk_X509_num(chain); i++) {
        na = X509_get0_notAfter(sk_X509_value(chain, i));

        if (ASN1_TIME_to_tm(na, &tm) != 1) {
            return 0;
        }

        t = timegm(&tm);

        if (min == 0 || t < min) {
            min = t;
        }
    }

    return min;
}


X509 *
gcp_auth_x509_verify(gcp_arena_t *a, X509_STORE *store, gcp_str_t pem,
    time_t *not_after, const char **msg)
{
    BIO             *bio;
    X509            *leaf, *x;
    STACK_OF(X509)  *chain;
    X509_STORE_CTX  *ctx;

    *msg = "x509: malformed certificate";

    bio = BIO_new_mem_buf(pem.data, (int) pem.len);
    if (bio == NULL) {
        return NULL;
    }

    leaf = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    chain = sk_X509_new_null();

    if (leaf == NULL || chain == NULL) {
        goto failed;
    }

    while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        if (sk_X509_push(chain, x) == 0) {
            X509_free(x);
            goto failed;
        }
    }

    ctx = X509_STORE_CTX_new();

    if (ctx == NULL || X509_STORE_CTX_init(ctx, store, leaf, chain) != 1) {
        X509_STORE_CTX_free(ctx);
        goto failed;
    }

    X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_CLIENT);
    X509_STORE_CTX_set_time(ctx, 0, gcp_time_now().tv_sec);

    if (X509_verify_cert(ctx) != 1) {
        *msg = gcp_auth_x509_error(X509_STORE_CTX_get_error(ctx));
        X509_STORE_CTX_free(ctx);
        goto failed;
    }

    *not_after = gcp_auth_x509_not_after(X509_STORE_CTX_get0_chain(ctx));

    X509_STORE_CTX_free(ctx);
    sk_X509_pop_free(chain, X509_free);
    BIO_free(bio);
    ERR_clear_error();

    *msg = NULL;

    return leaf;

failed:

    X509_free(leaf);
    sk_X509_pop_free(chain, X509_free);
    BIO_free(bio);
    ERR_clear_error();

    return NULL;
}


/* The values of attribute nid of the subject, in order. */

static int
gcp_auth_x509_names(gcp_arena_t *a, X509 *leaf, int nid,
    int (*add)(gcp_arena_t *a, void *data, const char *value), void *data)
{
    int               i;
    char             *s;
    X509_NAME        *name;
    unsigned char    *utf8;
    X509_NAME_ENTRY  *e;

    name = X509_get_subject_name(leaf);
    i = -1;

    while ((i = X509_NAME_get_index_by_NID(name, nid, i)) >= 0) {
        e = X509_NAME_get_entry(name, i);

        if (ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(e)) < 0) {
            ERR_clear_error();
            continue;
        }

        s = gcp_strdup(a, (char *) utf8);
        OPENSSL_free(utf8);

        if (s == NULL || add(a, data, s) != GCP_OK) {
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


static int
gcp_auth_x509_set_cn(gcp_arena_t *a, void *data, const char *value)
{
    /* Go's pkix.Name keeps the last CommonName */
    *(const char **) data = value;

    return GCP_OK;
}


static int
gcp_auth_x509_add_group(gcp_arena_t *a, void *data, const char *value)
{
    return gcp_user_add_group(a, data, value);
}


const char *
gcp_auth_x509_cn(gcp_arena_t *a, X509 *leaf)
{
    const char  *cn;

    cn = "";

    if (gcp_auth_x509_names(a, leaf, NID_commonName, gcp_auth_x509_set_cn,
                            &cn) != GCP_OK)
    {
        return NULL;
    }

    return cn;
}


gcp_user_t *
gcp_auth_x509_user(gcp_arena_t *a, X509 *leaf, int *nomem)
{
    int             len;
    size_t          i;
    char           *id;
    gcp_user_t     *u;
    const char     *cn;
    unsigned char  *der, md[GCP_AUTH_SHA256_LEN];

    *nomem = 1;

    cn = gcp_auth_x509_cn(a, leaf);
    if (cn == NULL) {
        return NULL;
    }

    if (cn[0] == '\0') {
        *nomem = 0;
        return NULL;
    }

    u = gcp_user_create(a, cn, "");

    if (u == NULL
        || gcp_auth_x509_names(a, leaf, NID_organizationName,
                               gcp_auth_x509_add_group, u) != GCP_OK)
    {
        return NULL;
    }

    /* extra credential-id: X509SHA256=hex(SHA-256(DER)) */

    der = NULL;
    len = i2d_X509(leaf, &der);

    if (len <= 0
        || gcp_sha256(der, (size_t) len, md) != GCP_OK)
    {
        OPENSSL_free(der);
        return NULL;
    }

    OPENSSL_free(der);

    id = gcp_alloc(a, sizeof("X509SHA256=") + 2 * GCP_AUTH_SHA256_LEN);
    if (id == NULL) {
        return NULL;
    }

    len = sprintf(id, "X509SHA256=");

    for (i = 0; i < GCP_AUTH_SHA256_LEN; i++) {
        len += sprintf(id + len, "%02x", md[i]);
    }

    if (gcp_user_add_extra(a, u, GCP_AUTH_CREDENTIAL_ID, id) != GCP_OK) {
        return NULL;
    }

    *nomem = 0;

    return u;
}


/* front proxy */


/* Returns 1 when header name starts with prefix (case-insensitive). */

static int
gcp_auth_has_prefix(const char *name, const char *prefix)
{
    size_t  n;

    n = strlen(prefix);

    return strncasecmp(name, prefix, n) == 0 && name[n] != '\0';
}


int
gcp_auth_proxy_user(gcp_arena_t *a, const gcp_auth_t *auth,
    const gcp_request_t *req, gcp_user_t **user)
{
    size_t               i, j;
    const char          *name, *key;
    gcp_user_t          *u;
    const gcp_header_t  *h;

    name = NULL;
    *user = NULL;

    for (j = 0; name == NULL && auth->user_headers[j]; j++) {
        for (i = 0; i < req->nheaders; i++) {
            h = &req->headers[i];

            if (strcasecmp(h->name, auth->user_headers[j]) == 0
                && h->value[0])
            {
                name = h->value;
                break;
            }
        }
    }

    if (name == NULL) {
        return GCP_OK;
    }

    u = gcp_user_create(a, name, "");
    if (u == NULL) {
        return GCP_ENOMEM;
    }

    for (j = 0; auth->group_headers[j]; j++) {
        for (i = 0; i < req->nheaders; i++) {
            h = &req->headers[i];

            if (strcasecmp(h->name, auth->group_headers[j]) == 0
                && h->value[0]
                && gcp_user_add_group(a, u, h->value) != GCP_OK)
            {
                return GCP_ENOMEM;
            }
        }
    }

    for (j = 0; auth->extra_prefixes[j]; j++) {
        for (i = 0; i < req->nheaders; i++) {
            h = &req->headers[i];

            if (!gcp_auth_has_prefix(h->name, auth->extra_prefixes[j])) {
                continue;
            }

            key = gcp_auth_extra_key(a, h->name
                                        + strlen(auth->extra_prefixes[j]));

            if (key == NULL || gcp_user_add_extra(a, u, key, h->value)
                               != GCP_OK)
            {
                return GCP_ENOMEM;
            }
        }
    }

    *user = u;

    return GCP_OK;
}
