
/*
 * Unit tests: CertificateSigningRequests (core/certificates/): the PEM
 * request parsed and its signature checked, validation with upstream's
 * messages (create, and what the main resource, /status and /approval
 * may change), signing by a CA (subject, SANs, usages, validity bounds),
 * the kube-apiserver-client signer's checks, the signer's duration, the
 * cleaner's periods.  Keys, requests and CAs are made here with OpenSSL.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "gcp_base64.h"
#include "gcp_csr.h"
#include "gcp_json.h"


static EVP_PKEY *
new_key(void)
{
    EVP_PKEY  *k;

    k = EVP_EC_gen("P-256");
    assert_non_null(k);

    return k;
}


static char *
bio_string(BIO *b)
{
    char   *data, *s;
    long    n;

    n = BIO_get_mem_data(b, &data);
    s = malloc(n + 1);
    assert_non_null(s);
    memcpy(s, data, n);
    s[n] = '\0';
    BIO_free(b);

    return s;
}


/* A PEM request for CN=cn, O=org (org NULL: none), SAN dns (or NULL). */
static char *
make_csr(EVP_PKEY *key, const char *cn, const char *org, const char *dns)
{
    BIO                       *b;
    X509_REQ                  *req;
    X509_NAME                 *name;
    X509_EXTENSION            *ext;
    STACK_OF(X509_EXTENSION)  *exts;

    req = X509_REQ_new();
    name = X509_REQ_get_subject_name(req);

    if (org) {
        X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                                   (const unsigned char *) org, -1, -1, 0);
    }

    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                               (const unsigned char *) cn, -1, -1, 0);
    X509_REQ_set_pubkey(req, key);

    if (dns) {
        exts = sk_X509_EXTENSION_new_null();
        ext = X509V3_EXT_conf_nid(NULL, NULL, NID_subject_alt_name,
                                  (char *) dns);
        assert_non_null(ext);
        sk_X509_EXTENSION_push(exts, ext);
        X509_REQ_add_extensions(req, exts);
        sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
    }

    assert_true(X509_REQ_sign(req, key, EVP_sha256()) > 0);

    b = BIO_new(BIO_s_mem());
    PEM_write_bio_X509_REQ(b, req);
    X509_REQ_free(req);

    return bio_string(b);
}


/* A self-signed CA valid for days; its PEM certificate and key. */
static void
make_ca(long days, char **cert_pem, char **key_pem)
{
    BIO         *b;
    X509        *x;
    EVP_PKEY    *key;
    X509V3_CTX   ctx;
    X509_EXTENSION *ext;

    key = new_key();
    x = X509_new();
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_UTF8,
                               (const unsigned char *) "test-ca", -1, -1, 0);
    X509_set_issuer_name(x, X509_get_subject_name(x));
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), days * 86400);
    X509_set_pubkey(x, key);

    X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
    ext = X509V3_EXT_conf_nid(NULL, &ctx, NID_basic_constraints,
                              "critical,CA:TRUE");
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
    ext = X509V3_EXT_conf_nid(NULL, &ctx, NID_subject_key_identifier,
                              "hash");
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);

    assert_true(X509_sign(x, key, EVP_sha256()) > 0);

    b = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(b, x);
    *cert_pem = bio_string(b);

    b = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(b, key, NULL, NULL, 0, NULL, NULL);
    *key_pem = bio_string(b);

    X509_free(x);
    EVP_PKEY_free(key);
}


/* A CSR object for pem with signer and usages (JSON array text). */
static json_t *
csr_object(gcp_arena_t *a, const char *pem, const char *signer,
    const char *usages)
{
    json_t     *obj;
    gcp_str_t   b64;

    b64 = gcp_base64_encode(a, pem, strlen(pem));
    assert_non_null(b64.data);

    obj = json_pack("{s:{s:s}, s:{s:s%, s:s, s:o}, s:{}}",
                    "metadata", "name", "x",
                    "spec", "request", b64.data, b64.len,
                    "signerName", signer,
                    "usages", json_loads(usages, 0, NULL),
                    "status");
    assert_non_null(obj);

    return gcp_json_arena(a, obj);
}


/* The messages of errs, "field: detail|" each, for comparing. */
static const char *
errors(gcp_arena_t *a, const gcp_ferrs_t *errs)
{
    gcp_buf_t          b;
    const gcp_ferr_t  *e;

    gcp_buf_init(&b, a);

    for (e = errs->first; e; e = e->next) {
        gcp_buf_printf(&b, "%s: %s|", e->field,
                       gcp_ferr_cause_message(a, e));
    }

    return b.len ? gcp_buf_cstr(&b) : "";
}


static const char *
validate(gcp_arena_t *a, const json_t *obj, const json_t *old,
    const char *sub)
{
    gcp_ferrs_t  errs;

    gcp_ferrs_init(&errs, a);
    gcp_csr_validate(&errs, obj, old, sub);
    assert_false(errs.nomem);

    return errors(a, &errs);
}


static void
test_parse(void **state)
{
    char            *pem, *bad;
    EVP_PKEY        *key;
    const char      *err;
    gcp_arena_t     *a;
    gcp_csr_info_t   info;

    a = gcp_arena_create(0);
    key = new_key();

    pem = make_csr(key, "alice", "dev", NULL);
    assert_int_equal(gcp_csr_parse(a, pem, strlen(pem), &info, &err),
                     GCP_OK);
    assert_string_equal(info.cn, "alice");
    assert_int_equal(info.norgs, 1);
    assert_string_equal(info.orgs[0], "dev");

    /* text around the block is allowed, as by pem.Decode */

    bad = malloc(strlen(pem) + 32);
    sprintf(bad, "hello\n%sbye\n", pem);
    assert_int_equal(gcp_csr_parse(a, bad, strlen(bad), NULL, &err), GCP_OK);

    /* a flipped bit in the signature (the body's last characters) */

    strcpy(bad, pem);
    bad[strlen(bad) - strlen("-----END CERTIFICATE REQUEST-----\n") - 6]
        ^= 0x01;
    assert_int_equal(gcp_csr_parse(a, bad, strlen(bad), NULL, &err),
                     GCP_EINVALID);

    /* another block type; no block */

    assert_int_equal(gcp_csr_parse(a, "-----BEGIN CERTIFICATE-----\nAAAA\n"
                                   "-----END CERTIFICATE-----\n", 59, NULL,
                                   &err), GCP_EINVALID);
    assert_string_equal(err, "PEM block type must be CERTIFICATE REQUEST");
    assert_int_equal(gcp_csr_parse(a, "junk", 4, NULL, &err), GCP_EINVALID);
    assert_string_equal(err, "PEM block type must be CERTIFICATE REQUEST");

    /* a block that is not DER */

    assert_int_equal(gcp_csr_parse(a, "-----BEGIN CERTIFICATE REQUEST-----\n"
                                   "AAAA\n-----END CERTIFICATE REQUEST-----\n",
                                   79, NULL, &err), GCP_EINVALID);

    free(bad);
    free(pem);
    EVP_PKEY_free(key);
    gcp_arena_destroy(a);
}


static void
test_validate_create(void **state)
{
    char          *pem;
    json_t        *obj, *spec;
    EVP_PKEY      *key;
    gcp_arena_t   *a;

    a = gcp_arena_create(0);
    key = new_key();
    pem = make_csr(key, "alice", NULL, NULL);

    obj = csr_object(a, pem, "kubernetes.io/kube-apiserver-client",
                     "[\"client auth\"]");
    assert_string_equal(validate(a, obj, NULL, NULL), "");

    spec = json_object_get(obj, "spec");

    json_object_set_new(spec, "usages", json_pack("[s,s,s]", "client auth",
                                                  "bogus", "client auth"));
    json_object_set_new(spec, "expirationSeconds", json_integer(599));
    json_object_set_new(spec, "signerName", json_string("example"));

    assert_string_equal(validate(a, obj, NULL, NULL),
        "spec.usages[1]: Unsupported value: \"bogus\": supported values: "
        "\"any\", \"cert sign\", \"client auth\", \"code signing\", "
        "\"content commitment\", \"crl sign\", \"data encipherment\", "
        "\"decipher only\", \"digital signature\", \"email protection\", "
        "\"encipher only\", \"ipsec end system\", \"ipsec tunnel\", "
        "\"ipsec user\", \"key agreement\", \"key encipherment\", "
        "\"microsoft sgc\", \"netscape sgc\", \"ocsp signing\", \"s/mime\", "
        "\"server auth\", \"signing\", \"timestamping\"|"
        "spec.usages[2]: Duplicate value: \"client auth\"|"
        "spec.signerName: Invalid value: \"example\": must be a fully "
        "qualified domain and path of the form 'example.com/signer-name'|"
        "spec.expirationSeconds: Invalid value: 599: may not specify a "
        "duration less than 600 seconds (10 minutes)|");

    json_object_set_new(spec, "usages", json_array());
    json_object_del(spec, "expirationSeconds");
    json_object_set_new(spec, "signerName",
                        json_string("kubernetes.io/legacy-unknown"));
    json_object_set_new(spec, "request", json_string(""));

    assert_string_equal(validate(a, obj, NULL, NULL),
        "spec.request: Invalid value: []byte{}: PEM block type must be "
        "CERTIFICATE REQUEST|"
        "spec.usages: Required value|"
        "spec.signerName: Invalid value: \"kubernetes.io/legacy-unknown\": "
        "the legacy signerName is not allowed via this API version|");

    json_object_set_new(spec, "usages", json_pack("[s]", "client auth"));
    json_object_set_new(spec, "signerName", json_string("example/a_b"));
    json_object_set_new(spec, "request",
                        json_string(gcp_base64_encode(a, pem,
                                                      strlen(pem)).data));

    assert_string_equal(validate(a, obj, NULL, NULL),
        "spec.signerName: Invalid value: \"example\": should be a domain "
        "with at least two segments separated by dots|"
        "spec.signerName: Invalid value: \"a_b\": validating label \"a_b\": "
        "a lowercase RFC 1123 subdomain must consist of lower case "
        "alphanumeric characters, '-' or '.', and must start and end with "
        "an alphanumeric character (e.g. 'example.com', regex used for "
        "validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')|");

    free(pem);
    EVP_PKEY_free(key);
    gcp_arena_destroy(a);
}


static json_t *
condition(const char *type, const char *status)
{
    return json_pack("{s:s, s:s, s:s}", "type", type, "status", status,
                     "lastUpdateTime", "2026-01-01T00:00:00Z");
}


static void
test_validate_update(void **state)
{
    char          *pem;
    json_t        *old, *obj, *conds;
    EVP_PKEY      *key;
    gcp_arena_t   *a;

    a = gcp_arena_create(0);
    key = new_key();
    pem = make_csr(key, "alice", NULL, NULL);

    old = csr_object(a, pem, "example.com/x", "[\"client auth\"]");
    obj = gcp_json_arena(a, json_deep_copy(old));
    conds = json_array();
    json_object_set_new(json_object_get(obj, "status"), "conditions", conds);
    json_array_append_new(conds, condition("Approved", "True"));

    /* only /approval adds Approved */

    assert_string_equal(validate(a, obj, old, NULL),
        "status.conditions: Forbidden: updates may not add a condition of "
        "type \"Approved\"|");
    assert_string_equal(validate(a, obj, old, "status"),
        "status.conditions: Forbidden: updates may not add a condition of "
        "type \"Approved\"|");
    assert_string_equal(validate(a, obj, old, "approval"), "");

    /* Approved and Denied exclusive; only True; one of each type */

    json_array_append_new(conds, condition("Denied", "False"));
    json_array_append_new(conds, condition("Approved", "True"));

    assert_string_equal(validate(a, obj, old, "approval"),
        "status.conditions[1].status: Unsupported value: \"False\": "
        "supported values: \"True\"|"
        "status.conditions[1].type: Invalid value: \"Denied\": Approved and "
        "Denied conditions are mutually exclusive|"
        "status.conditions[2].type: Invalid value: \"Approved\": Approved "
        "and Denied conditions are mutually exclusive|"
        "status.conditions[2].type: Duplicate value: \"Approved\"|");

    /* a condition may not go; the certificate only through /status */

    json_array_clear(conds);
    json_object_set_new(json_object_get(old, "status"), "conditions",
                    json_pack("[o]", condition("Failed", "True")));
    json_object_set_new(json_object_get(obj, "status"), "certificate",
                        json_string("AAAA"));

    assert_string_equal(validate(a, obj, old, NULL),
        "status.certificate: Invalid value: \"<certificate data>\": must "
        "contain at least one CERTIFICATE PEM block|"
        "status.conditions: Forbidden: updates may not remove a condition "
        "of type \"Failed\"|"
        "status.certificate: Forbidden: updates may not set certificate "
        "content|");

    free(pem);
    EVP_PKEY_free(key);
    gcp_arena_destroy(a);
}


static X509 *
parse_cert(const gcp_str_t *pem)
{
    BIO   *b;
    X509  *x;

    b = BIO_new_mem_buf(pem->data, (int) pem->len);
    x = PEM_read_bio_X509(b, NULL, NULL, NULL);
    BIO_free(b);
    assert_non_null(x);

    return x;
}


static time_t
cert_time(const ASN1_TIME *t)
{
    struct tm  tm;

    assert_int_equal(ASN1_TIME_to_tm(t, &tm), 1);

    return timegm(&tm);
}


static void
test_sign(void **state)
{
    int                 crit;
    char               *pem, *cert, *keypem, err[256];
    X509               *x, *cax;
    BIO                *b;
    time_t              now;
    json_t             *obj;
    EVP_PKEY           *key;
    gcp_str_t           out;
    const char         *msg;
    gcp_arena_t        *a;
    gcp_csr_ca_t       *ca;
    ASN1_BIT_STRING    *ku;
    EXTENDED_KEY_USAGE *eku;
    GENERAL_NAMES      *san;

    a = gcp_arena_create(0);
    key = new_key();
    pem = make_csr(key, "alice", "dev", "DNS:alice.example.com");

    make_ca(30, &cert, &keypem);

    assert_null(gcp_csr_ca_load(cert, strlen(cert), "x", 1, err,
                                sizeof(err)));
    ca = gcp_csr_ca_load(cert, strlen(cert), keypem, strlen(keypem), err,
                         sizeof(err));
    assert_non_null(ca);

    obj = csr_object(a, pem, "kubernetes.io/kube-apiserver-client",
                     "[\"digital signature\", \"client auth\"]");

    now = time(NULL);

    /* short-lived: not backdated */

    assert_int_equal(gcp_csr_sign(a, ca, obj, now, 3600, &out, &msg),
                     GCP_OK);
    x = parse_cert(&out);

    assert_int_equal(cert_time(X509_get0_notBefore(x)), now);
    assert_int_equal(cert_time(X509_get0_notAfter(x)), now + 3600);

    b = BIO_new_mem_buf(cert, -1);
    cax = PEM_read_bio_X509(b, NULL, NULL, NULL);
    BIO_free(b);
    assert_int_equal(X509_verify(x, X509_get0_pubkey(cax)), 1);
    assert_int_equal(X509_NAME_cmp(X509_get_issuer_name(x),
                                   X509_get_subject_name(cax)), 0);
    assert_int_equal(X509_check_ca(x), 0);
    assert_int_equal(EVP_PKEY_eq(X509_get0_pubkey(x), key), 1);

    ku = X509_get_ext_d2i(x, NID_key_usage, &crit, NULL);
    assert_non_null(ku);
    assert_int_equal(crit, 1);
    assert_true(ASN1_BIT_STRING_get_bit(ku, 0));       /* digitalSig. */
    assert_false(ASN1_BIT_STRING_get_bit(ku, 2));      /* keyEnciph. */
    ASN1_BIT_STRING_free(ku);

    eku = X509_get_ext_d2i(x, NID_ext_key_usage, NULL, NULL);
    assert_non_null(eku);
    assert_int_equal(sk_ASN1_OBJECT_num(eku), 1);
    assert_int_equal(OBJ_obj2nid(sk_ASN1_OBJECT_value(eku, 0)),
                     NID_client_auth);
    EXTENDED_KEY_USAGE_free(eku);

    san = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
    assert_non_null(san);
    assert_int_equal(sk_GENERAL_NAME_num(san), 1);
    GENERAL_NAMES_free(san);
    X509_free(x);

    /* a year asked: backdated 5 minutes, cut at the CA's notAfter */

    assert_int_equal(gcp_csr_sign(a, ca, obj, now, 365L * 86400, &out, &msg),
                     GCP_OK);
    x = parse_cert(&out);
    assert_int_equal(cert_time(X509_get0_notBefore(x)), now - 300);
    assert_int_equal(cert_time(X509_get0_notAfter(x)),
                     cert_time(X509_get0_notAfter(cax)));
    X509_free(x);
    X509_free(cax);

    /* a signer past its notAfter */

    assert_int_equal(gcp_csr_sign(a, ca, obj, now + 31 * 86400, 3600, &out,
                                  &msg), GCP_EINVALID);
    assert_true(strncmp(msg, "the signer has expired: NotAfter=", 33) == 0);

    gcp_csr_ca_free(ca);
    free(cert);
    free(keypem);
    free(pem);
    EVP_PKEY_free(key);
    gcp_arena_destroy(a);
}


static void
test_apiserver_client_rules(void **state)
{
    char            *pem;
    json_t          *obj;
    EVP_PKEY        *key;
    const char      *err;
    gcp_str_t        req;
    gcp_arena_t     *a;
    gcp_csr_info_t   info;

    a = gcp_arena_create(0);
    key = new_key();

    pem = make_csr(key, "alice", "system:masters", NULL);
    obj = csr_object(a, pem, "kubernetes.io/kube-apiserver-client",
                     "[\"client auth\", \"key encipherment\"]");
    assert_int_equal(gcp_csr_bytes(a, obj, "spec", "request", &req), GCP_OK);
    assert_int_equal(gcp_csr_parse(a, req.data, req.len, &info, &err),
                     GCP_OK);
    assert_string_equal(gcp_csr_apiserver_client_check(a, obj, &info),
                        "use of kubernetes.io/kube-apiserver-client signer "
                        "with system:masters group is not allowed");

    info.norgs = 0;
    assert_null(gcp_csr_apiserver_client_check(a, obj, &info));

    json_object_set_new(json_object_get(obj, "spec"), "usages",
                        json_pack("[s,s]", "client auth", "server auth"));
    assert_string_equal(gcp_csr_apiserver_client_check(a, obj, &info),
                        "invalid usage for client certificate: server auth");

    json_object_set_new(json_object_get(obj, "spec"), "usages",
                        json_pack("[s]", "digital signature"));
    assert_string_equal(gcp_csr_apiserver_client_check(a, obj, &info),
                        "missing required usage for client certificate: "
                        "client auth");

    assert_int_equal(gcp_csr_duration(-1, 86400), 86400);
    assert_int_equal(gcp_csr_duration(90000, 86400), 86400);
    assert_int_equal(gcp_csr_duration(3600, 86400), 3600);
    assert_int_equal(gcp_csr_duration(60, 86400), 600);

    free(pem);
    EVP_PKEY_free(key);
    gcp_arena_destroy(a);
}


static void
test_clean_due(void **state)
{
    json_t       *obj, *conds;
    time_t        next, t0;
    gcp_arena_t  *a;

    a = gcp_arena_create(0);

    /* 2026-01-01T00:00:00Z */
    t0 = 1767225600;

    obj = gcp_json_arena(a, json_pack("{s:{s:s}, s:{}}", "metadata",
                                      "creationTimestamp",
                                      "2026-01-01T00:00:00Z", "status"));

    /* pending: a day after creation */

    assert_int_equal(gcp_csr_clean_due(a, obj, t0 + 3600, &next), 0);
    assert_int_equal(next, t0 + 86400 + 1);
    assert_int_equal(gcp_csr_clean_due(a, obj, t0 + 86401, &next), 1);

    /* denied: an hour after the condition's last update */

    conds = json_pack("[o]", condition("Denied", "True"));
    json_object_set_new(json_object_get(obj, "status"), "conditions", conds);

    assert_int_equal(gcp_csr_clean_due(a, obj, t0 + 3600, &next), 0);
    assert_int_equal(next, t0 + 3601);
    assert_int_equal(gcp_csr_clean_due(a, obj, t0 + 3601, &next), 1);

    /* approved, not issued: never by time */

    json_array_set_new(conds, 0, condition("Approved", "True"));
    assert_int_equal(gcp_csr_clean_due(a, obj, t0 + 10 * 86400, &next), 0);
    assert_int_equal(next, 0);

    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_validate_create),
        cmocka_unit_test(test_validate_update),
        cmocka_unit_test(test_sign),
        cmocka_unit_test(test_apiserver_client_rules),
        cmocka_unit_test(test_clean_due),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
