#define _GNU_SOURCE

/*
 * Encryption at rest: the providers (vectors made by another
 * implementation, round trips, upstream's layout), reading as upstream's
 * prefix transformers (rotation, identity, errors), the configuration's
 * validation with upstream's messages, and the encrypting store under a
 * whole API (ciphertext in the store, plain objects out, a wrong key, a
 * reload).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gcp_encryption.h"
#include "gcp_json.h"
#include "gcp_op.h"
#include "gcp_store_encrypt.h"
#include "support_api.h"


#define K32  "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
#define K16  "AAECAwQFBgcICQoLDA0ODw=="
#define K32B "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8="

#define KEY  "/registry/secrets/default/s1"
#define PLAIN "{\"kind\":\"Secret\",\"data\":{\"k\":\"c2VjcmV0\"}}"


static gcp_encryption_t *
parse(const char *yaml)
{
    char               err[2048];
    gcp_encryption_t  *e;

    e = gcp_encryption_parse("t.yaml", yaml, strlen(yaml), err, sizeof(err));

    if (e == NULL) {
        fail_msg("%s", err);
    }

    return e;
}


static const char *
parse_error(const char *yaml)
{
    static char        err[2048];
    gcp_encryption_t  *e;

    e = gcp_encryption_parse("t.yaml", yaml, strlen(yaml), err, sizeof(err));

    if (e) {
        gcp_encryption_unref(e);
        fail_msg("accepted: %s", yaml);
    }

    return err;
}


/* one provider of kind with keys "name: secret" pairs, for secrets */
static char *
config(const char *providers)
{
    static char  buf[4096];

    snprintf(buf, sizeof(buf),
             "apiVersion: apiserver.config.k8s.io/v1\n"
             "kind: EncryptionConfiguration\n"
             "resources:\n"
             "- resources: [secrets]\n"
             "  providers:\n%s", providers);

    return buf;
}


static gcp_str_t
str(const char *s)
{
    gcp_str_t  v;

    v.data = s;
    v.len = strlen(s);

    return v;
}


static gcp_str_t
hex(gcp_arena_t *a, const char *h)
{
    size_t     i, n;
    char      *p;
    gcp_str_t  v;
    unsigned   x;

    n = strlen(h) / 2;
    p = gcp_alloc(a, n + 1);

    for (i = 0; i < n; i++) {
        sscanf(h + 2 * i, "%2x", &x);
        p[i] = (char) x;
    }

    v.data = p;
    v.len = n;

    return v;
}


static const char *
read_err(gcp_encryption_t *e, gcp_arena_t *a, const char *key, gcp_str_t v)
{
    int          stale;
    gcp_str_t    out;
    const char  *msg;

    assert_int_equal(gcp_encryption_read(e, str(key), v, a, &out, &stale,
                                         &msg),
                     GCP_EINTERNAL);
    assert_non_null(msg);

    return msg;
}


static int
reads(gcp_encryption_t *e, gcp_arena_t *a, const char *key, gcp_str_t v,
    const char *plain)
{
    int          stale;
    gcp_str_t    out;
    const char  *msg;

    assert_int_equal(gcp_encryption_read(e, str(key), v, a, &out, &stale,
                                         &msg),
                     GCP_OK);
    assert_int_equal(out.len, strlen(plain));
    assert_memory_equal(out.data, plain, out.len);

    return stale;
}


/* reads, by the writing provider and key */
static void
assert_reads(gcp_encryption_t *e, gcp_arena_t *a, const char *key,
    gcp_str_t v, const char *plain)
{
    assert_int_equal(reads(e, a, key, v, plain), 0);
}


/* reads, by another provider or key: stale */
static void
assert_reads_stale(gcp_encryption_t *e, gcp_arena_t *a, const char *key,
    gcp_str_t v, const char *plain)
{
    assert_int_equal(reads(e, a, key, v, plain), 1);
}


static gcp_str_t
write_value(gcp_encryption_t *e, gcp_arena_t *a, const char *key,
    const char *plain)
{
    gcp_str_t    out;
    const char  *msg;

    assert_int_equal(gcp_encryption_write(e, str(key), str(plain), a, &out,
                                          &msg),
                     GCP_OK);

    return out;
}


/*
 * Values laid out by Python's cryptography (another AES-GCM and AES-CBC)
 * as upstream lays them out: prefix, key name, nonce or IV, ciphertext.
 */
static void
test_vectors(void **state)
{
    gcp_arena_t       *a;
    gcp_str_t          v;
    gcp_encryption_t  *e;

    a = gcp_arena_create(0);

    e = parse(config("  - aesgcm:\n      keys:\n      - name: key1\n"
                     "        secret: " K32 "\n"));

    v = hex(a, "6b38733a656e633a61657367636d3a76313a6b6579313aa0a1a2a3a4a5a6"
               "a7a8a9aaab9d3a17442baf20854036e2b0751fb4fc5c8e3d71e6d66056e7"
               "2c4da445891633841c2492f912714022886f81c3d7866d26fbc2323bbb45"
               "3669");
    assert_reads(e, a, KEY, v, PLAIN);

    /* the key is the additional data: moved elsewhere it does not read */
    assert_string_equal(read_err(e, a, "/registry/secrets/default/s2", v),
                        "cipher: message authentication failed");

    /* the key's context serves again after a failure */
    assert_reads(e, a, KEY, v, PLAIN);
    assert_reads(e, a, KEY, write_value(e, a, KEY, PLAIN), PLAIN);
    gcp_encryption_unref(e);

    e = parse(config("  - aescbc:\n      keys:\n      - name: key1\n"
                     "        secret: " K16 "\n"));

    v = hex(a, "6b38733a656e633a6165736362633a76313a6b6579313a10111213141516"
               "1718191a1b1c1d1e1f209581ba0b0976f0b35d4c5107d32b95c334806"
               "3a3bad4566113191359203008d95daab37f15fdd15d27e48c9feed291");
    assert_reads(e, a, KEY, v, PLAIN);

    /* CBC has no additional data */
    assert_reads(e, a, "/registry/secrets/default/s2", v, PLAIN);
    gcp_encryption_unref(e);

    gcp_arena_destroy(a);
}


static void
test_roundtrip(void **state)
{
    int                stale;
    size_t             i, plen;
    gcp_str_t          v1, v2, out;
    const char        *msg;
    gcp_arena_t       *a;
    gcp_encryption_t  *e;

    static const struct {
        const char  *provider;
        const char  *prefix;
        size_t       overhead;      /* after the prefix, besides padding */
    } cases[] = {
        { "aesgcm", "k8s:enc:aesgcm:v1:key1:", 12 + 16 },
        { "aescbc", "k8s:enc:aescbc:v1:key1:", 16 },
        { "secretbox", "k8s:enc:secretbox:v1:key1:", 24 + 16 },
    };

    static const char  *secrets[] = { K16, "AAECAwQFBgcICQoLDA0ODxAREhMUFRYX",
                                      K32 };

    a = gcp_arena_create(0);

    for (i = 0; i < 3 * gcp_nelems(cases); i++) {
        char  yaml[512];

        if (strcmp(cases[i / 3].provider, "secretbox") == 0 && i % 3 != 2) {
            continue;
        }

        snprintf(yaml, sizeof(yaml), "  - %s:\n      keys:\n"
                 "      - name: key1\n        secret: %s\n",
                 cases[i / 3].provider, secrets[i % 3]);

        e = parse(config(yaml));

        v1 = write_value(e, a, KEY, PLAIN);
        v2 = write_value(e, a, KEY, PLAIN);

        plen = strlen(cases[i / 3].prefix);

        assert_true(v1.len > plen);
        assert_memory_equal(v1.data, cases[i / 3].prefix, plen);

        if (strcmp(cases[i / 3].provider, "aescbc") == 0) {
            /* PKCS#7: 1 to 16 bytes */
            assert_int_equal(v1.len, plen + 16 + (strlen(PLAIN) / 16 + 1)
                                                  * 16);
        } else {
            assert_int_equal(v1.len, plen + cases[i / 3].overhead
                                     + strlen(PLAIN));
        }

        /* random nonces */
        assert_true(v1.len != v2.len || memcmp(v1.data, v2.data, v1.len));
        assert_null(memmem(v1.data, v1.len, "c2VjcmV0", 8));

        assert_reads(e, a, KEY, v1, PLAIN);
        assert_reads(e, a, KEY, v2, PLAIN);

        /* empty values and whole blocks */
        assert_reads(e, a, KEY, write_value(e, a, KEY, ""), "");
        assert_reads(e, a, KEY, write_value(e, a, KEY, "0123456789abcdef"),
                     "0123456789abcdef");

        if (strcmp(cases[i / 3].provider, "aescbc") == 0) {
            /* not authenticated: a flipped IV byte reads, differently */
            ((char *) v1.data)[plen] ^= 1;
            assert_int_equal(gcp_encryption_read(e, str(KEY), v1, a, &out,
                                                 &stale, &msg),
                             GCP_OK);
            assert_int_equal(out.len, strlen(PLAIN));
            assert_int_equal(out.data[0], PLAIN[0] ^ 1);
            assert_string_equal(out.data + 1, PLAIN + 1);

        } else {
            /* a flipped byte of the ciphertext */
            ((char *) v1.data)[v1.len - 1] ^= 1;
            read_err(e, a, KEY, v1);
        }

        gcp_encryption_unref(e);
    }

    gcp_arena_destroy(a);
}


static void
test_rotation(void **state)
{
    gcp_str_t          old, new;
    gcp_arena_t       *a;
    gcp_encryption_t  *e1, *e2, *e3;

    a = gcp_arena_create(0);

    e1 = parse(config("  - aesgcm:\n      keys:\n"
                      "      - {name: key1, secret: " K32 "}\n"));

    /* a new first key: writes with it, reads both */
    e2 = parse(config("  - aesgcm:\n      keys:\n"
                      "      - {name: key2, secret: " K32B "}\n"
                      "      - {name: key1, secret: " K32 "}\n"));

    /* the old key gone */
    e3 = parse(config("  - aesgcm:\n      keys:\n"
                      "      - {name: key2, secret: " K32B "}\n"));

    old = write_value(e1, a, KEY, PLAIN);
    new = write_value(e2, a, KEY, PLAIN);

    assert_memory_equal(new.data, "k8s:enc:aesgcm:v1:key2:", 23);

    assert_reads_stale(e2, a, KEY, old, PLAIN);
    assert_reads(e2, a, KEY, new, PLAIN);
    assert_reads(e3, a, KEY, new, PLAIN);

    assert_string_equal(read_err(e3, a, KEY, old),
                        "no matching key was found for the provided AES "
                        "transformer");
    assert_string_equal(read_err(e1, a, KEY, new),
                        "no matching key was found for the provided AES "
                        "transformer");

    gcp_encryption_unref(e1);
    gcp_encryption_unref(e2);
    gcp_encryption_unref(e3);

    gcp_arena_destroy(a);
}


static void
test_identity_and_errors(void **state)
{
    int                stale;
    gcp_str_t          enc, out;
    const char        *msg;
    gcp_arena_t       *a;
    gcp_encryption_t  *e1, *e2, *e3, *e4;

    a = gcp_arena_create(0);

    e1 = parse(config("  - identity: {}\n  - aescbc:\n      keys:\n"
                      "      - {name: key1, secret: " K32 "}\n"));
    e2 = parse(config("  - aescbc:\n      keys:\n"
                      "      - {name: key1, secret: " K32 "}\n"
                      "  - identity: {}\n"));
    e3 = parse(config("  - aescbc:\n      keys:\n"
                      "      - {name: key1, secret: " K32B "}\n"));
    e4 = parse(config("  - aesgcm:\n      keys:\n"
                      "      - {name: key1, secret: " K32B "}\n"
                      "  - aesgcm:\n      keys:\n"
                      "      - {name: key2, secret: " K32B "}\n"));

    /* identity first: writes plain, reads both (leaving encryption) */
    out = write_value(e1, a, KEY, PLAIN);
    assert_string_equal(out.data, PLAIN);

    enc = write_value(e2, a, KEY, PLAIN);
    assert_memory_equal(enc.data, "k8s:enc:aescbc:v1:key1:", 23);

    assert_reads_stale(e1, a, KEY, enc, PLAIN);
    assert_reads(e1, a, KEY, str(PLAIN), PLAIN);

    /* identity last: plain objects of before still read (adopting it) */
    assert_reads_stale(e2, a, KEY, str(PLAIN), PLAIN);

    /* without identity, a plain value matches no provider */
    assert_string_equal(read_err(e3, a, KEY, str(PLAIN)),
                        "no matching prefix found");

    /* a wrong key: the padding check fails (or, rarely, the JSON) */
    if (gcp_encryption_read(e3, str(KEY), enc, a, &out, &stale, &msg)
        == GCP_OK)
    {
        assert_true(out.len != strlen(PLAIN)
                    || memcmp(out.data, PLAIN, out.len) != 0);
    }

    /* the errors of every provider tried, without repeats */
    enc = write_value(e1, a, KEY, PLAIN);
    enc = str("k8s:enc:aesgcm:v1:key1:0123456789abcdefghijklmnopqrstuvwxyz");
    assert_string_equal(read_err(e4, a, KEY, enc),
                        "[cipher: message authentication failed, no matching "
                        "key was found for the provided AES transformer]");
    assert_string_equal(read_err(e4, a, KEY, str("k8s:enc:aesgcm:v1:key1:x")),
                        "[the stored data was shorter than the required "
                        "size, no matching key was found for the provided "
                        "AES transformer]");

    /* resources not configured: identity, which refuses encrypted data */
    assert_reads(e3, a, "/registry/configmaps/default/c", str(PLAIN), PLAIN);
    assert_string_equal(read_err(e3, a, "/registry/configmaps/default/c",
                                 enc),
                        "identity transformer tried to read encrypted data");
    out = write_value(e3, a, "/registry/configmaps/default/c", PLAIN);
    assert_string_equal(out.data, PLAIN);

    gcp_encryption_unref(e1);
    gcp_encryption_unref(e2);
    gcp_encryption_unref(e3);
    gcp_encryption_unref(e4);

    gcp_arena_destroy(a);
}


static void
test_resources(void **state)
{
    gcp_arena_t       *a;
    gcp_encryption_t  *e;

    a = gcp_arena_create(0);

    e = parse("{\"apiVersion\":\"apiserver.config.k8s.io/v1\","
              "\"kind\":\"EncryptionConfiguration\",\"resources\":["
              "{\"resources\":[\"secrets\"],\"providers\":[{\"aesgcm\":"
              "{\"keys\":[{\"name\":\"g\",\"secret\":\"" K32 "\"}]}}]},"
              "{\"resources\":[\"*.example.com\",\"leases.coordination"
              ".k8s.io\"],\"providers\":[{\"secretbox\":{\"keys\":[{\"name\":"
              "\"s\",\"secret\":\"" K32 "\"}]}}]},"
              "{\"resources\":[\"*.\"],\"providers\":[{\"aescbc\":"
              "{\"keys\":[{\"name\":\"c\",\"secret\":\"" K32 "\"}]}}]},"
              "{\"resources\":[\"*.*\"],\"providers\":[{\"identity\":{}}]}"
              "]}");

    assert_memory_equal(write_value(e, a, KEY, PLAIN).data,
                        "k8s:enc:aesgcm:v1:g:", 20);
    assert_memory_equal(write_value(e, a, "/registry/configmaps/ns/c",
                                    PLAIN).data,
                        "k8s:enc:aescbc:v1:c:", 20);
    assert_memory_equal(write_value(e, a, "/registry/namespaces/ns",
                                    PLAIN).data,
                        "k8s:enc:aescbc:v1:c:", 20);
    assert_memory_equal(write_value(e, a,
                                    "/registry/example.com/widgets/ns/w",
                                    PLAIN).data,
                        "k8s:enc:secretbox:v1:s:", 23);
    assert_memory_equal(write_value(e, a,
                                    "/registry/coordination.k8s.io/leases/"
                                    "ns/l", PLAIN).data,
                        "k8s:enc:secretbox:v1:s:", 23);
    assert_string_equal(write_value(e, a,
                                    "/registry/rbac.authorization.k8s.io/"
                                    "roles/ns/r", PLAIN).data, PLAIN);

    assert_true(gcp_encryption_covers(e, str("/registry/secrets/a/b")));
    assert_true(gcp_encryption_covers(e, str("/registry/x.io/ys/a/b")));

    gcp_encryption_unref(e);

    gcp_arena_destroy(a);
}


#define HEAD  "apiVersion: apiserver.config.k8s.io/v1\n" \
              "kind: EncryptionConfiguration\n"

static void
test_validation(void **state)
{
    assert_string_equal(parse_error(""),
                        "error while parsing file: error while loading "
                        "file: encryption provider configuration file "
                        "\"t.yaml\" is empty");

    assert_string_equal(parse_error("apiVersion: v1\nkind: ConfigMap\n"),
                        "error while parsing file: error decoding encryption "
                        "provider configuration file \"t.yaml\": no kind "
                        "\"ConfigMap\" is registered for version \"v1\"");

    assert_string_equal(parse_error(HEAD "resources: []\n"),
                        "error while parsing file: resources: Required "
                        "value: at least one resources is required");

    assert_string_equal(parse_error(HEAD "resources:\n- resources: []\n"),
                        "error while parsing file: [resources[0].resources: "
                        "Required value: at least one resources[0].resources"
                        " is required, resources[0].providers: Required "
                        "value: at least one resources[0].providers is "
                        "required]");

    assert_string_equal(parse_error(config("  - aesgcm:\n      keys:\n"
                                           "      - {name: k, secret: "
                                           "YWJjZGVmZ2g=}\n")),
                        "error while parsing file: resources[0].providers[0]"
                        ".aesgcm.keys[0].secret: Invalid value: \"REDACTED\":"
                        " secret is not of the expected length, got 8, "
                        "expected one of [16 24 32]");

    assert_string_equal(parse_error(config("  - secretbox:\n      keys:\n"
                                           "      - {name: k, secret: "
                                           K16 "}\n")),
                        "error while parsing file: resources[0].providers[0]"
                        ".secretbox.keys[0].secret: Invalid value: "
                        "\"REDACTED\": secret is not of the expected length,"
                        " got 16, expected one of [32]");

    assert_string_equal(parse_error(config("  - aescbc:\n      keys:\n"
                                           "      - {name: '', secret: "
                                           "'not base64!'}\n")),
                        "error while parsing file: [resources[0].providers"
                        "[0].aescbc.keys[0].name: Required value: name is a "
                        "mandatory field for a key, resources[0].providers"
                        "[0].aescbc.keys[0].secret: Invalid value: "
                        "\"REDACTED\": secrets must be base64 encoded]");

    assert_string_equal(parse_error(config("  - aescbc:\n      keys: []\n")),
                        "error while parsing file: resources[0].providers[0]"
                        ".aescbc.keys: Required value: at least one keys is "
                        "required");

    assert_string_equal(parse_error(config("  - kms:\n      name: k\n"
                                           "      endpoint: unix:///k\n")),
                        "error while parsing file: resources[0].providers[0]"
                        ".kms: Forbidden: KMS providers are not supported by"
                        " ngx_gcp: use aescbc, aesgcm or secretbox");

    assert_non_null(strstr(parse_error(config("  - identity: {}\n"
                                              "    aescbc: {}\n")),
                           "resources[0].providers[0]: Invalid value: "));
    assert_non_null(strstr(parse_error(config("  - identity: {}\n"
                                              "    aescbc: {}\n")),
                           ": more than one provider specified in a single "
                           "element, should split into different list "
                           "elements"));
    assert_non_null(strstr(parse_error(config("  - {}\n")),
                           ": provider does not contain any of the expected "
                           "providers: KMS, AESGCM, AESCBC, Secretbox, "
                           "Identity"));

    assert_string_equal(parse_error(HEAD "resources:\n"
                                    "- resources: [secrets, '*.']\n"
                                    "  providers: [{identity: {}}]\n"),
                        "error while parsing file: resources[0].resources: "
                        "Invalid value: []string{\"secrets\", \"*.\"}: using "
                        "overlapping resources such as 'secrets' and '*.' in"
                        " the same resource list is not allowed as they will"
                        " be masked");

    assert_string_equal(parse_error(HEAD "resources:\n"
                                    "- resources: [secrets, secrets]\n"
                                    "  providers: [{identity: {}}]\n"),
                        "error while parsing file: resources[0].resources: "
                        "Invalid value: []string{\"secrets\", \"secrets\"}: "
                        "the same resource cannot be specified multiple "
                        "times");

    assert_string_equal(parse_error(HEAD "resources:\n"
                                    "- resources: [Secrets, '*', "
                                    "'*.events.k8s.io', 'deployments.*', "
                                    "serviceipallocations]\n"
                                    "  providers: [{identity: {}}]\n"),
                        "error while parsing file: [resources[0].resources:"
                        " Invalid value: []string{\"Secrets\", \"*\", "
                        "\"*.events.k8s.io\", \"deployments.*\", "
                        "\"serviceipallocations\"}: using overlapping "
                        "resources such as 'secrets' and '*.' in the same "
                        "resource list is not allowed as they will be "
                        "masked, "
                        "resources[0].resources"
                        "[0]: Invalid value: \"Secrets\": resource name "
                        "should not contain capital letters, "
                        "resources[0].resources[1]: Invalid value: \"*\": "
                        "use '*.' to encrypt all the resources from core API"
                        " group or *.* to encrypt all resources, "
                        "resources[0].resources[2]: Invalid value: "
                        "\"*.events.k8s.io\": '*.events.k8s.io' objects are "
                        "stored using the 'events' API group in etcd. Use "
                        "'events' instead in the config file, "
                        "resources[0].resources[3]: Invalid value: "
                        "\"deployments.*\": encrypting the same resource "
                        "across groups is not supported, "
                        "resources[0].resources[4]: Invalid value: "
                        "\"serviceipallocations\": resources which do not "
                        "have REST API/s cannot be encrypted]");

    /* across entries: a resource after its group's or every wildcard */

    assert_string_equal(parse_error(HEAD "resources:\n"
                                    "- resources: ['*.']\n"
                                    "  providers: [{identity: {}}]\n"
                                    "- resources: [secrets]\n"
                                    "  providers: [{identity: {}}]\n"),
                        "resource \"secrets\" is masked by earlier rule "
                        "\"*.\"");

    assert_string_equal(parse_error(HEAD "resources:\n"
                                    "- resources: ['*.*']\n"
                                    "  providers: [{identity: {}}]\n"
                                    "- resources: [widgets.example.com]\n"
                                    "  providers: [{identity: {}}]\n"),
                        "resource \"widgets.example.com\" is masked by "
                        "earlier rule \"*.*\"");

    assert_string_equal(parse_error(HEAD "resources: 3\n"),
                        "error while parsing file: error decoding encryption"
                        " provider configuration file \"t.yaml\": json: "
                        "cannot unmarshal number into Go struct field "
                        "EncryptionConfiguration.resources of type "
                        "[]v1.ResourceConfiguration");

    /* the same resource in two entries: providers appended, no error */
    gcp_encryption_unref(parse(HEAD "resources:\n"
                               "- resources: [secrets]\n"
                               "  providers: [{identity: {}}]\n"
                               "- resources: [secrets, configmaps]\n"
                               "  providers: [{identity: {}}]\n"));
}


/* the encrypting store under a whole API */


typedef struct {
    gcp_store_encrypt_conf_t   conf;
    char                       path[64];
} enc_env_t;


static void
write_file(const char *path, const char *data)
{
    FILE  *fp;

    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(data, fp);
    fclose(fp);
}


static void
tune(gcp_api_conf_t *conf, void *arg)
{
    enc_env_t  *ee = arg;

    conf->encryption = &ee->conf;
}


static gcp_str_t
raw_get(api_env_t *env, gcp_arena_t *a, const char *key);


static void
raw_done(void *arg, gcp_store_result_t *res)
{
    gcp_str_t  *out = arg;

    assert_int_equal(res->rc, GCP_OK);
    assert_int_equal(res->nkvs, 1);

    *out = res->kvs[0].value;
}


static gcp_str_t
raw_get(api_env_t *env, gcp_arena_t *a, const char *key)
{
    gcp_str_t  v = gcp_null_string;

    gcp_store_get(api_env_store(env), str(key), 0, a, raw_done, &v);
    assert_non_null(v.data);

    return v;
}


#define SECRET(name) \
    "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"" \
    name "\"},\"stringData\":{\"password\":\"hunter2-" name "\"}}"


static void
test_store(void **state)
{
    char          *yaml, *body;
    json_t        *prev;
    gcp_str_t      v;
    enc_env_t      ee;
    api_env_t     *env;
    api_resp_t    *r;
    gcp_arena_t   *a;
    gcp_store_t   *st;

    a = gcp_arena_create(0);

    memset(&ee, 0, sizeof(ee));
    snprintf(ee.path, sizeof(ee.path), "/tmp/gcp-enc-%d.yaml", (int) getpid());

    yaml = config("  - aesgcm:\n      keys:\n"
                  "      - {name: key1, secret: " K32 "}\n"
                  "  - identity: {}\n");
    write_file(ee.path, yaml);

    ee.conf.path = ee.path;
    ee.conf.enc = parse(yaml);

    env = api_env_create_with(tune, &ee);
    st = api_env_api(env)->store;

    r = api_call(env, "POST", "/api/v1/namespaces/default/secrets",
                 "application/json", SECRET("s1"), NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);

    r = api_call(env, "POST", "/api/v1/namespaces/kube-system/secrets",
                 "application/json", SECRET("s9"), NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);

    /* the store holds ciphertext, configmaps stay plain */

    v = raw_get(env, a, "/registry/secrets/default/s1");
    assert_memory_equal(v.data, "k8s:enc:aesgcm:v1:key1:", 23);
    assert_null(memmem(v.data, v.len, "aHVudGVyMi1zMQ", 14));
    assert_null(memmem(v.data, v.len, "\"name\"", 6));

    v = raw_get(env, a, "/registry/namespaces/default");
    assert_int_equal(v.data[0], '{');

    /* clients see the object, by get, list and a watch */

    r = api_call(env, "GET", "/api/v1/namespaces/default/secrets/s1", NULL,
                 NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(json_string_value(gcp_json_get(r->json, "data",
                                                       "password", NULL)),
                        "aHVudGVyMi1zMQ==");
    api_resp_free(r);

    r = api_call(env, "GET", "/api/v1/secrets", NULL, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_true(json_array_size(json_object_get(r->json, "items")) >= 2);
    api_resp_free(r);

    r = api_call_stream(env, "GET", "/api/v1/namespaces/default/secrets"
                        "?watch=1&resourceVersion=1", NULL, 300);
    assert_non_null(strstr(r->body, "\"aHVudGVyMi1zMQ==\""));
    api_resp_free(r);

    /* a reload with a new first key: new writes use it, old ones read */

    write_file(ee.path, config("  - aesgcm:\n      keys:\n"
                               "      - {name: key2, secret: " K32B "}\n"
                               "      - {name: key1, secret: " K32 "}\n"));
    assert_int_equal(gcp_store_encrypt_reload(st), GCP_OK);

    r = api_call(env, "POST", "/api/v1/namespaces/default/secrets",
                 "application/json", SECRET("s2"), NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);

    v = raw_get(env, a, "/registry/secrets/default/s2");
    assert_memory_equal(v.data, "k8s:enc:aesgcm:v1:key2:", 23);

    r = api_call(env, "GET", "/api/v1/namespaces/default/secrets/s1", NULL,
                 NULL, NULL);
    assert_int_equal(r->status, 200);

    /* the same object put back is written again, with the new key */
    body = strdup(r->body);
    api_resp_free(r);

    r = api_call(env, "PUT", "/api/v1/namespaces/default/secrets/s1",
                 "application/json", body, NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);
    free(body);

    v = raw_get(env, a, "/registry/secrets/default/s1");
    assert_memory_equal(v.data, "k8s:enc:aesgcm:v1:key2:", 23);

    /* then a no-op again */
    r = api_call(env, "GET", "/api/v1/namespaces/default/secrets/s1", NULL,
                 NULL, NULL);
    body = strdup(r->body);
    api_resp_free(r);

    r = api_call(env, "PUT", "/api/v1/namespaces/default/secrets/s1",
                 "application/json", body, NULL);
    assert_int_equal(r->status, 200);
    prev = json_loads(body, 0, NULL);
    assert_string_equal(json_string_value(gcp_json_get(r->json, "metadata",
                                                       "resourceVersion",
                                                       NULL)),
                        json_string_value(gcp_json_get(prev, "metadata",
                                                       "resourceVersion",
                                                       NULL)));
    json_decref(prev);
    api_resp_free(r);
    free(body);

    /* a bad file: refused, the configuration in use stays */

    write_file(ee.path, config("  - aesgcm:\n      keys: []\n"));
    assert_int_equal(gcp_store_encrypt_reload(st), GCP_EINVALID);

    r = api_call(env, "GET", "/api/v1/namespaces/default/secrets/s2", NULL,
                 NULL, NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    /* key1 forgotten: s9 (still under it) answers upstream's 500, s2 and
       lists elsewhere still work, a list that meets s9 fails as
       upstream's */

    write_file(ee.path, config("  - aesgcm:\n      keys:\n"
                               "      - {name: key2, secret: " K32B "}\n"));
    assert_int_equal(gcp_store_encrypt_reload(st), GCP_OK);

    r = api_call(env, "GET", "/api/v1/namespaces/kube-system/secrets/s9", NULL,
                 NULL, NULL);
    assert_int_equal(r->status, 500);
    assert_string_equal(json_string_value(json_object_get(r->json,
                                                          "reason")),
                        "InternalError");
    assert_string_equal(json_string_value(json_object_get(r->json,
                                                          "message")),
                        "Internal error occurred: no matching key was found "
                        "for the provided AES transformer");
    api_resp_free(r);

    r = api_call(env, "GET", "/api/v1/namespaces/default/secrets/s2", NULL,
                 NULL, NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    r = api_call(env, "GET", "/api/v1/namespaces/default/secrets", NULL,
                 NULL, NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    r = api_call(env, "GET", "/api/v1/namespaces/kube-system/secrets", NULL,
                 NULL, NULL);
    assert_int_equal(r->status, 500);
    assert_string_equal(json_string_value(json_object_get(r->json,
                                                          "message")),
                        "Internal error occurred: unable to transform key "
                        "\"/registry/secrets/kube-system/s9\": no matching key "
                        "was found for the provided AES transformer");
    api_resp_free(r);

    r = api_call(env, "GET", "/api/v1/namespaces/default/configmaps", NULL,
                 NULL, NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    /* a watch meeting it ends with the error */

    r = api_call_stream(env, "GET", "/api/v1/namespaces/kube-system/"
                        "secrets?watch=1&resourceVersion=1", NULL, 300);
    assert_non_null(strstr(r->body, "\"type\":\"ERROR\""));
    assert_non_null(strstr(r->body, "no matching key was found"));
    api_resp_free(r);

    api_env_destroy(env);
    gcp_encryption_unref(ee.conf.enc);
    unlink(ee.path);
    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_rotation),
        cmocka_unit_test(test_identity_and_errors),
        cmocka_unit_test(test_resources),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_store),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
