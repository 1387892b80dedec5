
/*
 * Test support: a PKI for the authentication tests (see support_auth.h).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "support_auth.h"


static long  auth_pki_serial = 1000;


static EVP_PKEY *
auth_pki_ec_key(void)
{
    EVP_PKEY  *k;

    k = EVP_EC_gen("P-256");
    assert_non_null(k);

    return k;
}


static void
auth_pki_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX       ctx;
    X509_EXTENSION  *ext;

    X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);

    ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    assert_non_null(ext);
    assert_int_equal(X509_add_ext(x, ext, -1), 1);
    X509_EXTENSION_free(ext);
}


/* A certificate for key, issued by issuer/issuer_key (self: NULL). */

static X509 *
auth_pki_make(EVP_PKEY *key, EVP_PKEY *issuer_key, X509 *issuer,
    const char *cn, const char * const *orgs, long not_before,
    long not_after, int ca, int client_auth)
{
    X509       *x;
    X509_NAME  *name;

    x = X509_new();
    assert_non_null(x);

    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), auth_pki_serial++);
    X509_gmtime_adj(X509_getm_notBefore(x), not_before);
    X509_gmtime_adj(X509_getm_notAfter(x), not_after);
    X509_set_pubkey(x, key);

    name = X509_get_subject_name(x);

    for (; orgs && *orgs; orgs++) {
        X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                                   (const unsigned char *) *orgs, -1, -1, 0);
    }

    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                               (const unsigned char *) cn, -1, -1, 0);

    X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name);

    if (ca) {
        auth_pki_ext(x, issuer ? issuer : x, NID_basic_constraints,
                     "critical,CA:TRUE");
        auth_pki_ext(x, issuer ? issuer : x, NID_key_usage,
                     "critical,keyCertSign,cRLSign,digitalSignature");

    } else {
        auth_pki_ext(x, issuer, NID_basic_constraints, "critical,CA:FALSE");
        auth_pki_ext(x, issuer, NID_key_usage,
                     "critical,digitalSignature,keyEncipherment");

        auth_pki_ext(x, issuer, NID_ext_key_usage,
                     client_auth ? "clientAuth" : "serverAuth");
    }

    assert_true(X509_sign(x, issuer_key ? issuer_key : key, EVP_sha256())
                > 0);

    return x;
}


static char *
auth_pki_pem(X509 *x, X509 *chain)
{
    BIO      *bio;
    char     *data, *out;
    long      len;

    bio = BIO_new(BIO_s_mem());
    assert_non_null(bio);

    assert_int_equal(PEM_write_bio_X509(bio, x), 1);

    if (chain) {
        assert_int_equal(PEM_write_bio_X509(bio, chain), 1);
    }

    len = BIO_get_mem_data(bio, &data);
    out = malloc(len + 1);
    assert_non_null(out);
    memcpy(out, data, len);
    out[len] = '\0';

    BIO_free(bio);

    return out;
}


char *
auth_pki_cert(EVP_PKEY *ca_key, X509 *ca, const char *cn,
    const char * const *orgs, long not_before, long not_after,
    int client_auth, X509 *chain_ca)
{
    X509      *x;
    char      *pem;
    EVP_PKEY  *key;

    key = auth_pki_ec_key();
    x = auth_pki_make(key, ca_key, ca, cn, orgs, not_before, not_after, 0,
                      client_auth);

    pem = auth_pki_pem(x, chain_ca);

    X509_free(x);
    EVP_PKEY_free(key);

    return pem;
}


void
auth_pki_intermediate(EVP_PKEY *ca_key, X509 *ca, const char *cn,
    X509 **out, EVP_PKEY **out_key)
{
    *out_key = auth_pki_ec_key();
    *out = auth_pki_make(*out_key, ca_key, ca, cn, NULL, -60, 86400, 1, 0);
}


char *
auth_pki_path(auth_pki_t *pki, const char *name)
{
    char  *p;

    p = malloc(strlen(pki->dir) + strlen(name) + 2);
    assert_non_null(p);
    sprintf(p, "%s/%s", pki->dir, name);

    return p;
}


static void
auth_pki_write_file(const char *path, const char *text)
{
    FILE  *f;

    f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}


const char *
auth_pki_write(auth_pki_t *pki, const char *name, const char *text)
{
    static char  path[160];

    snprintf(path, sizeof(path), "%s/%s", pki->dir, name);
    auth_pki_write_file(path, text);

    return path;
}


static void
auth_pki_ca(auth_pki_t *pki, const char *cn, const char *file,
    EVP_PKEY **key, X509 **x, char *path)
{
    char  *pem;

    *key = auth_pki_ec_key();
    *x = auth_pki_make(*key, NULL, NULL, cn, NULL, -60, 86400, 1, 0);

    pem = auth_pki_pem(*x, NULL);
    snprintf(path, 128, "%s/%s", pki->dir, file);
    auth_pki_write_file(path, pem);
    free(pem);
}


static void
auth_pki_key_file(EVP_PKEY *key, const char *path)
{
    FILE  *f;

    f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL,
                                          NULL), 1);
    assert_int_equal(fclose(f), 0);
}


auth_pki_t *
auth_pki_create(void)
{
    EVP_PKEY    *k;
    auth_pki_t  *pki;

    pki = calloc(1, sizeof(auth_pki_t));
    assert_non_null(pki);

    snprintf(pki->dir, sizeof(pki->dir), "/tmp/gcp-auth-test-XXXXXX");
    assert_non_null(mkdtemp(pki->dir));

    auth_pki_ca(pki, "test-ca", "ca.crt", &pki->ca_key, &pki->ca,
                pki->ca_file);
    auth_pki_ca(pki, "other-ca", "other.crt", &pki->other_key, &pki->other,
                pki->other_file);
    auth_pki_ca(pki, "proxy-ca", "proxy.crt", &pki->proxy_key, &pki->proxy,
                pki->proxy_file);

    snprintf(pki->rsa_key_file, sizeof(pki->rsa_key_file), "%s/sa-rsa.key",
             pki->dir);
    k = EVP_RSA_gen(2048);
    assert_non_null(k);
    auth_pki_key_file(k, pki->rsa_key_file);
    EVP_PKEY_free(k);

    snprintf(pki->ec_key_file, sizeof(pki->ec_key_file), "%s/sa-ec.key",
             pki->dir);
    k = auth_pki_ec_key();
    auth_pki_key_file(k, pki->ec_key_file);
    EVP_PKEY_free(k);

    snprintf(pki->token_file, sizeof(pki->token_file), "%s/tokens.csv",
             pki->dir);

    return pki;
}


void
auth_pki_destroy(auth_pki_t *pki)
{
    char  cmd[128];

    if (pki == NULL) {
        return;
    }

    EVP_PKEY_free(pki->ca_key);
    X509_free(pki->ca);
    EVP_PKEY_free(pki->other_key);
    X509_free(pki->other);
    EVP_PKEY_free(pki->proxy_key);
    X509_free(pki->proxy);

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", pki->dir);
    assert_int_equal(system(cmd), 0);

    free(pki);
}


typedef struct {
    gcp_auth_t  *auth;
    const char  *mode;
} auth_tune_t;


static void
auth_env_tune(gcp_api_conf_t *conf, void *arg)
{
    auth_tune_t  *t = arg;

    conf->auth = t->auth;
    conf->authorization_mode = t->mode;
}


auth_env_t *
auth_env_create(auth_pki_t *pki, const char *tokens_csv, int anonymous,
    const char *authz_mode)
{
    gcp_auth_conf_t  conf;

    static const char * const  proxy_names[] = { "front-proxy", NULL };

    memset(&conf, 0, sizeof(conf));
    conf.client_ca_file = pki->ca_file;
    conf.sa_signing_key_file = pki->rsa_key_file;
    conf.requestheader_ca_file = pki->proxy_file;
    conf.requestheader_allowed_names = proxy_names;
    conf.anonymous = anonymous ? 1 : 0;

    if (tokens_csv) {
        conf.token_auth_file = auth_pki_write(pki, "tokens.csv", tokens_csv);
    }

    return auth_env_create_conf(&conf, authz_mode);
}


auth_env_t *
auth_env_create_conf(const gcp_auth_conf_t *conf, const char *authz_mode)
{
    char          err[256];
    auth_env_t   *e;
    auth_tune_t   t;

    e = calloc(1, sizeof(auth_env_t));
    assert_non_null(e);

    err[0] = '\0';
    e->auth = gcp_auth_create(conf, err, sizeof(err));
    if (e->auth == NULL) {
        fail_msg("gcp_auth_create: %s", err);
    }

    t.auth = e->auth;
    t.mode = authz_mode;

    e->env = api_env_create_with(auth_env_tune, &t);
    e->api = api_env_api(e->env);

    return e;
}


void
auth_env_destroy(auth_env_t *e)
{
    api_env_destroy(e->env);
    gcp_auth_destroy(e->auth);
    free(e);
}


const api_req_opts_t *
auth_req(auth_req_t *r, const char *peer_certs, ...)
{
    va_list      ap;
    size_t       n;
    const char  *name;

    memset(r, 0, sizeof(auth_req_t));

    va_start(ap, peer_certs);

    for (n = 0; (name = va_arg(ap, const char *)) != NULL; n++) {
        assert_true(n < AUTH_MAX_HEADERS);
        r->h[n].name = name;
        r->h[n].value = va_arg(ap, const char *);
    }

    va_end(ap);

    r->opts.headers = r->h;
    r->opts.nheaders = n;
    r->opts.peer_certs = peer_certs;

    return &r->opts;
}


api_resp_t *
auth_whoami(auth_env_t *e, const api_req_opts_t *opts)
{
    return api_call_opts(e->env, "POST",
                         "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                         "application/json",
                         "{\"apiVersion\":\"authentication.k8s.io/v1\","
                         "\"kind\":\"SelfSubjectReview\"}",
                         "application/json", opts);
}


const char *
auth_join(const json_t *v)
{
    size_t        i, len;
    static char   buf[1024];
    const char   *s;

    buf[0] = '\0';
    len = 0;

    for (i = 0; i < json_array_size(v); i++) {
        s = json_string_value(json_array_get(v, i));
        assert_non_null(s);
        len += snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? "," : "",
                        s);
        assert_true(len < sizeof(buf));
    }

    return buf;
}
