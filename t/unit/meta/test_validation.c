
/*
 * Unit tests: Kubernetes validation rules (core/meta/gcp_validation.c,
 * core/types/gcp_validation_types.c) and the messages they make through
 * gcp_ferrs_message().  Messages marked "reference" are copied from
 * responses of a real kube-apiserver (shared/reference).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "gcp_json.h"
#include "gcp_validation.h"
#include "gcp_validation_types.h"


#define MSG_QNAME                                                             \
    "must consist of alphanumeric characters, '-', '_' or '.', and must "     \
    "start and end with an alphanumeric character (e.g. 'MyName',  or "       \
    "'my.name',  or '123-abc', regex used for validation is "                 \
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

#define MSG_SUBDOMAIN                                                         \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric " \
    "characters, '-' or '.', and must start and end with an alphanumeric "    \
    "character (e.g. 'example.com', regex used for validation is "            \
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

#define MSG_LABEL                                                             \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric "     \
    "characters or '-', and must start and end with an alphanumeric "         \
    "character (e.g. 'my-name',  or '123-abc', regex used for validation "    \
    "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"

#define MSG_CONFIG_KEY                                                        \
    "a valid config key must consist of alphanumeric characters, '-', '_' "   \
    "or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used "    \
    "for validation is '[-._a-zA-Z0-9]+')"

#define MSG_LABEL_VALUE                                                       \
    "a valid label must be an empty string or consist of alphanumeric "       \
    "characters, '-', '_' or '.', and must start and end with an "            \
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "   \
    "regex used for validation is "                                           \
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

#define MSG_NOT_STANDARD                                                      \
    "name is neither a standard finalizer name nor is it fully qualified"


typedef struct {
    gcp_ferr_type_t  type;
    const char      *field;
    const char      *cause;
} want_t;


static json_t *
parse(gcp_arena_t *a, const char *s)
{
    json_t      *v;
    const char  *msg;

    v = gcp_json_parse(a, s, strlen(s), &msg);
    if (v == NULL) {
        print_error("bad test JSON: %s: %s\n", msg, s);
    }

    assert_non_null(v);

    return v;
}


static void
expect(gcp_ferrs_t *errs, const want_t *w, size_t n)
{
    size_t             i;
    const char        *cause;
    const gcp_ferr_t  *e;

    i = 0;

    for (e = errs->first; e; e = e->next, i++) {
        cause = gcp_ferr_cause_message(errs->arena, e);

        if (i >= n || strcmp(e->field, w[i].field) != 0
            || strcmp(cause, w[i].cause) != 0)
        {
            print_error("error %zu: %s: %s\n", i, e->field, cause);
        }

        assert_true(i < n);
        assert_int_equal(e->type, w[i].type);
        assert_string_equal(e->field, w[i].field);
        assert_string_equal(cause, w[i].cause);
    }

    assert_int_equal(i, n);
    assert_int_equal(errs->n, n);
}


/* the validation a create of a namespaced core object gets */
static void
validate_core(gcp_ferrs_t *errs, const json_t *obj, gcp_name_mode_t mode,
    int namespaced)
{
    gcp_meta_opts_t  opts;

    opts.name_mode = mode;
    opts.namespaced = namespaced;
    opts.core = 1;

    gcp_validate_object_meta(errs, json_object_get(obj, "metadata"), &opts);
}


typedef size_t (*check_pt)(const char *s, size_t len, gcp_msgs_t *m);


typedef struct {
    check_pt     check;
    const char  *in;
    const char  *msgs[3];
} check_case_t;


static void
test_name_checks(void **state)
{
    char         long64[65], long254[255];
    size_t       i, j, n;
    gcp_msgs_t   m;

    const check_case_t  cases[] = {
        { gcp_is_dns1123_label, "ref-ns", { NULL } },
        { gcp_is_dns1123_label, "Ref.Bad", { MSG_LABEL } },
        { gcp_is_dns1123_label, "a.b", { "must not contain dots" } },
        { gcp_is_dns1123_label, "", { MSG_LABEL } },
        { gcp_is_dns1123_label, "-a", { MSG_LABEL } },
        { gcp_is_dns1123_label, long64,
          { "must be no more than 63 characters" } },
        { gcp_is_dns1123_subdomain, "example.com", { NULL } },
        { gcp_is_dns1123_subdomain, "Bad_Name", { MSG_SUBDOMAIN } },
        { gcp_is_dns1123_subdomain, "a..b", { MSG_SUBDOMAIN } },
        { gcp_is_dns1123_subdomain, long254,
          { "must be no more than 253 characters" } },
        { gcp_is_dns1035_label, "1abc",
          { "a DNS-1035 label must consist of lower case alphanumeric "
            "characters or '-', start with an alphabetic character, and end "
            "with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
            "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')" } },
        { gcp_is_qualified_name, "example.com/My_Name.1", { NULL } },
        { gcp_is_qualified_name, "bad label!", { "name part " MSG_QNAME } },
        { gcp_is_qualified_name, "a/b/c",
          { "a qualified name " MSG_QNAME " with an optional DNS subdomain "
            "prefix and '/' (e.g. 'example.com/MyName')" } },
        { gcp_is_qualified_name, "/a", { "prefix part must be non-empty" } },
        { gcp_is_qualified_name, "Example.com/x",
          { "prefix part " MSG_SUBDOMAIN } },
        { gcp_is_qualified_name, "a/",
          { "name part must be non-empty", "name part " MSG_QNAME } },
        { gcp_is_qualified_name, long64,
          { "name part must be no more than 63 characters" } },
        { gcp_is_label_value, "", { NULL } },
        { gcp_is_label_value, "-a", { MSG_LABEL_VALUE } },
        { gcp_is_config_map_key, "key.name_1-2", { NULL } },
        { gcp_is_config_map_key, "bad key!", { MSG_CONFIG_KEY } },
        { gcp_is_config_map_key, "", { MSG_CONFIG_KEY } },
        { gcp_is_config_map_key, ".", { "must not be '.'" } },
        { gcp_is_config_map_key, "..", { "must not be '..'" } },
        { gcp_is_config_map_key, "..a", { "must not start with '..'" } },
    };

    memset(long64, 'a', 64);
    long64[64] = '\0';
    memset(long254, 'a', 254);
    long254[254] = '\0';

    for (i = 0; i < gcp_nelems(cases); i++) {
        n = cases[i].check(cases[i].in, strlen(cases[i].in), &m);

        for (j = 0; cases[i].msgs[j]; j++) {
            assert_true(j < n);
            assert_string_equal(m.msg[j], cases[i].msgs[j]);
        }

        if (n != j) {
            print_error("case %zu: %zu messages\n", i, n);
        }

        assert_int_equal(n, j);
    }

    assert_int_equal(gcp_is_path_segment_name(".", 1, 0, &m), 1);
    assert_string_equal(m.msg[0], "may not be '.'");
    assert_int_equal(gcp_is_path_segment_name("..", 2, 0, &m), 1);
    assert_string_equal(m.msg[0], "may not be '..'");
    assert_int_equal(gcp_is_path_segment_name("a/b%", 4, 0, &m), 2);
    assert_string_equal(m.msg[0], "may not contain '/'");
    assert_string_equal(m.msg[1], "may not contain '%'");
    assert_int_equal(gcp_is_path_segment_name("..", 2, 1, &m), 0);

    /* generateName: a trailing dash is allowed (masked as upstream) */
    assert_int_equal(gcp_validate_name(GCP_NAME_DNS_SUBDOMAIN, "cm-", 3, 1,
                                       &m), 0);
    assert_int_equal(gcp_validate_name(GCP_NAME_DNS_SUBDOMAIN, "cm-", 3, 0,
                                       &m), 1);
    assert_int_equal(gcp_validate_name(GCP_NAME_DNS_LABEL, "Cm-", 3, 1, &m),
                     1);
    assert_string_equal(m.msg[0], MSG_LABEL);
    assert_int_equal(gcp_validate_name(GCP_NAME_PATH_SEGMENT, "a b", 3, 0,
                                       &m), 0);
}


static void
test_reference_configmaps(void **state)
{
    json_t       *obj;
    gcp_ferrs_t   errs;
    gcp_arena_t  *a = gcp_arena_create(0);

    /* reference: 02-cm-create-invalid-multi.http */
    obj = parse(a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
                "{\"name\":\"bad-keys\",\"namespace\":\"ref-crud\",\"labels\":"
                "{\"bad label!\":\"x\"}},\"data\":{\"bad key!\":\"v\",\"ok\":"
                "\"v\"},\"binaryData\":{\"ok\":\"dg==\"}}");

    gcp_ferrs_init(&errs, a);
    validate_core(&errs, obj, GCP_NAME_DNS_SUBDOMAIN, 1);
    gcp_validate_configmap(&errs, obj);

    assert_string_equal(gcp_ferrs_message(&errs, "ConfigMap", "bad-keys"),
        "ConfigMap \"bad-keys\" is invalid: [metadata.labels: Invalid value: "
        "\"bad label!\": name part must consist of alphanumeric characters, "
        "'-', '_' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
        "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), "
        "data[bad key!]: Invalid value: \"bad key!\": a valid config key "
        "must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
        "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for "
        "validation is '[-._a-zA-Z0-9]+'), data[ok]: Invalid value: \"ok\": "
        "duplicate of key present in binaryData]");

    {
        const want_t  w[] = {
            { GCP_FERR_INVALID, "metadata.labels",
              "Invalid value: \"bad label!\": name part " MSG_QNAME },
            { GCP_FERR_INVALID, "data[bad key!]",
              "Invalid value: \"bad key!\": " MSG_CONFIG_KEY },
            { GCP_FERR_INVALID, "data[ok]",
              "Invalid value: \"ok\": duplicate of key present in "
              "binaryData" },
        };

        expect(&errs, w, gcp_nelems(w));
    }

    /* reference: 02-cm-create-invalid-name.http */
    obj = parse(a, "{\"metadata\":{\"name\":\"Bad_Name\",\"namespace\":"
                "\"ref-crud\"},\"data\":{\"k\":\"v\"}}");
    gcp_ferrs_init(&errs, a);
    validate_core(&errs, obj, GCP_NAME_DNS_SUBDOMAIN, 1);
    gcp_validate_configmap(&errs, obj);

    assert_string_equal(gcp_ferrs_message(&errs, "ConfigMap", "Bad_Name"),
        "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: "
        "\"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower "
        "case alphanumeric characters, '-' or '.', and must start and end "
        "with an alphanumeric character (e.g. 'example.com', regex used for "
        "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]"
        "([-a-z0-9]*[a-z0-9])?)*')");

    /* reference: 02-cm-create-missing-name.http */
    obj = parse(a, "{\"metadata\":{\"namespace\":\"ref-crud\"},\"data\":{}}");
    gcp_ferrs_init(&errs, a);
    validate_core(&errs, obj, GCP_NAME_DNS_SUBDOMAIN, 1);
    gcp_validate_configmap(&errs, obj);

    assert_string_equal(gcp_ferrs_message(&errs, "ConfigMap", ""),
        "ConfigMap \"\" is invalid: metadata.name: Required value: name or "
        "generateName is required");

    gcp_arena_destroy(a);
}


static void
test_configmap_rules(void **state)
{
    char         *big;
    json_t       *obj, *old;
    gcp_ferrs_t   errs;
    gcp_arena_t  *a = gcp_arena_create(0);

    /* 1 MiB in total, data and binaryData together: path "" */
    big = gcp_alloc(a, 1048577);
    memset(big, 'x', 1048576);
    big[1048576] = '\0';

    obj = json_pack("{s:{s:s,s:s}, s:{s:s}}", "data", "a", big + 1, "b", "y",
                    "binaryData", "c", "eHk=");
    gcp_ferrs_init(&errs, a);
    gcp_validate_configmap(&errs, obj);

    assert_string_equal(gcp_ferrs_message(&errs, "ConfigMap", "big"),
        "ConfigMap \"big\" is invalid: : Too long: must have at most 1048576 "
        "bytes");
    assert_string_equal(errs.first->field, "");
    json_decref(obj);

    obj = json_pack("{s:{s:s}}", "data", "a", big + 1);
    gcp_ferrs_init(&errs, a);
    gcp_validate_configmap(&errs, obj);
    assert_int_equal(errs.n, 0);
    json_decref(obj);

    /* keys of binaryData; "." and ".." */
    obj = parse(a, "{\"data\":{\".\":\"\"},\"binaryData\":{\"..\":\"\","
                "\"a b\":\"\"}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_configmap(&errs, obj);

    {
        const want_t  w[] = {
            { GCP_FERR_INVALID, "data[.]",
              "Invalid value: \".\": must not be '.'" },
            { GCP_FERR_INVALID, "binaryData[..]",
              "Invalid value: \"..\": must not be '..'" },
            { GCP_FERR_INVALID, "binaryData[a b]",
              "Invalid value: \"a b\": " MSG_CONFIG_KEY },
        };

        expect(&errs, w, gcp_nelems(w));
    }

    /* immutable */
    old = parse(a, "{\"immutable\":true,\"data\":{\"k\":\"v\"}}");
    obj = parse(a, "{\"data\":{\"k\":\"w\"},\"binaryData\":{}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_configmap_update(&errs, obj, old);

    {
        const want_t  w[] = {
            { GCP_FERR_FORBIDDEN, "immutable",
              "Forbidden: field is immutable when `immutable` is set" },
            { GCP_FERR_FORBIDDEN, "data",
              "Forbidden: field is immutable when `immutable` is set" },
            { GCP_FERR_FORBIDDEN, "binaryData",
              "Forbidden: field is immutable when `immutable` is set" },
        };

        expect(&errs, w, gcp_nelems(w));
    }

    obj = parse(a, "{\"immutable\":true,\"data\":{\"k\":\"v\"},"
                "\"binaryData\":null}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_configmap_update(&errs, obj, old);
    assert_int_equal(errs.n, 0);

    /* not immutable before: anything goes */
    gcp_ferrs_init(&errs, a);
    gcp_validate_configmap_update(&errs, old, obj);
    assert_int_equal(errs.n, 0);

    gcp_arena_destroy(a);
}


static void
test_reference_secrets(void **state)
{
    json_t           *obj, *old;
    const char       *msg;
    gcp_ferrs_t       errs;
    gcp_arena_t      *a = gcp_arena_create(0);
    gcp_meta_opts_t   core = { GCP_NAME_DNS_SUBDOMAIN, 1, 1 };

    /* reference: 03-secret-create-bad-base64.http (the inner message) */
    obj = parse(a, "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":"
                "{\"name\":\"b64-bad\"},\"data\":{\"k\":\"not base64!!\"}}");
    assert_int_equal(gcp_decode_check_secret(a, obj, &msg), GCP_EBADREQUEST);
    assert_string_equal(msg, "illegal base64 data at input byte 3");

    obj = parse(a, "{\"data\":{\"a\":\"YQ==\",\"b\":null,\"c\":\"YQ\","
                "\"d\":\"!\"}}");
    assert_int_equal(gcp_decode_check_secret(a, obj, &msg), GCP_EBADREQUEST);
    assert_string_equal(msg, "illegal base64 data at input byte 0");

    obj = parse(a, "{\"data\":{\"k\":\"!!\"},\"binaryData\":{\"k\":\"YQ==\"}}");
    assert_int_equal(gcp_decode_check_configmap(a, obj, &msg), GCP_OK);

    /* reference: 03-secret-create-tls-missing-keys.http */
    obj = parse(a, "{\"metadata\":{\"name\":\"tls-bad\",\"namespace\":"
                "\"ref-secrets\"},\"type\":\"kubernetes.io/tls\",\"data\":"
                "{\"foo\":\"YmFy\"}}");
    gcp_ferrs_init(&errs, a);
    validate_core(&errs, obj, GCP_NAME_DNS_SUBDOMAIN, 1);
    gcp_validate_secret(&errs, obj);

    assert_string_equal(gcp_ferrs_message(&errs, "Secret", "tls-bad"),
        "Secret \"tls-bad\" is invalid: [data[tls.crt]: Required value, "
        "data[tls.key]: Required value]");
    assert_string_equal(gcp_ferr_reason(errs.first->type),
                        "FieldValueRequired");

    /* reference: 03-secret-create-dockerconfig-invalid.http */
    obj = parse(a, "{\"metadata\":{\"name\":\"docker-bad\",\"namespace\":"
                "\"ref-secrets\"},\"type\":\"kubernetes.io/dockerconfigjson\","
                "\"data\":{\".dockerconfigjson\":\"bm90IGpzb24=\"}}");
    gcp_ferrs_init(&errs, a);
    validate_core(&errs, obj, GCP_NAME_DNS_SUBDOMAIN, 1);
    gcp_validate_secret(&errs, obj);

    assert_string_equal(gcp_ferrs_message(&errs, "Secret", "docker-bad"),
        "Secret \"docker-bad\" is invalid: data[.dockerconfigjson]: Invalid "
        "value: \"<secret contents redacted>\": invalid character 'o' in "
        "literal null (expecting 'u')");

    /* reference: 03-secret-update-immutable-rejected.http */
    old = parse(a, "{\"metadata\":{\"name\":\"s-immutable\",\"namespace\":"
                "\"ref-secrets\",\"resourceVersion\":\"6730\"},\"immutable\":"
                "true,\"data\":{\"k\":\"djE=\"},\"type\":\"Opaque\"}");
    obj = parse(a, "{\"metadata\":{\"name\":\"s-immutable\",\"namespace\":"
                "\"ref-secrets\",\"resourceVersion\":\"6730\"},\"immutable\":"
                "true,\"data\":{\"k\":\"djI=\"},\"type\":\"Opaque\"}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_object_meta_update(&errs, json_object_get(obj, "metadata"),
                                    json_object_get(old, "metadata"), &core);
    gcp_validate_secret_update(&errs, obj, old);

    assert_string_equal(gcp_ferrs_message(&errs, "Secret", "s-immutable"),
        "Secret \"s-immutable\" is invalid: data: Forbidden: field is "
        "immutable when `immutable` is set");

    /* reference: 03-secret-patch-immutable-flag-rejected.http */
    obj = parse(a, "{\"metadata\":{\"name\":\"s-immutable\",\"namespace\":"
                "\"ref-secrets\",\"resourceVersion\":\"6730\"},\"immutable\":"
                "false,\"data\":{\"k\":\"djE=\"},\"type\":\"Opaque\"}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_secret_update(&errs, obj, old);

    assert_string_equal(gcp_ferrs_message(&errs, "Secret", "s-immutable"),
        "Secret \"s-immutable\" is invalid: immutable: Forbidden: field is "
        "immutable when `immutable` is set");

    /* reference: 03-secret-update-type-change.http */
    old = parse(a, "{\"data\":{\"k\":\"dg==\"},\"type\":\"Opaque\"}");
    obj = parse(a, "{\"type\":\"kubernetes.io/basic-auth\",\"data\":"
                "{\"username\":\"YQ==\"}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_secret_update(&errs, obj, old);

    assert_string_equal(gcp_ferrs_message(&errs, "Secret", "s1"),
        "Secret \"s1\" is invalid: type: Invalid value: "
        "\"kubernetes.io/basic-auth\": field is immutable");

    gcp_arena_destroy(a);
}


static void
test_secret_types(void **state)
{
    json_t       *obj;
    gcp_ferrs_t   errs;
    gcp_arena_t  *a = gcp_arena_create(0);

    obj = parse(a, "{\"type\":\"kubernetes.io/service-account-token\","
                "\"metadata\":{\"annotations\":{\"x\":\"y\"}},"
                "\"data\":{\"bad/key\":\"\"}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_secret(&errs, obj);

    {
        const want_t  w[] = {
            { GCP_FERR_INVALID, "data[bad/key]",
              "Invalid value: \"bad/key\": " MSG_CONFIG_KEY },
            { GCP_FERR_REQUIRED,
              "metadata.annotations[kubernetes.io/service-account.name]",
              "Required value" },
        };

        expect(&errs, w, gcp_nelems(w));
    }

    obj = parse(a, "{\"type\":\"kubernetes.io/basic-auth\",\"data\":{}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_secret(&errs, obj);
    assert_string_equal(gcp_ferrs_message(&errs, "Secret", "s"),
        "Secret \"s\" is invalid: [data[username]: Required value, "
        "data[password]: Required value]");

    obj = parse(a, "{\"type\":\"kubernetes.io/basic-auth\",\"data\":"
                "{\"password\":\"\"}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_secret(&errs, obj);
    assert_int_equal(errs.n, 0);

    obj = parse(a, "{\"type\":\"kubernetes.io/ssh-auth\",\"data\":"
                "{\"ssh-privatekey\":\"\"}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_secret(&errs, obj);
    assert_string_equal(gcp_ferrs_message(&errs, "Secret", "s"),
        "Secret \"s\" is invalid: data[ssh-privatekey]: Required value");

    obj = parse(a, "{\"type\":\"kubernetes.io/dockercfg\"}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_secret(&errs, obj);
    assert_string_equal(gcp_ferrs_message(&errs, "Secret", "s"),
        "Secret \"s\" is invalid: data[.dockercfg]: Required value");

    /* "[]" and "" are not JSON objects */
    obj = parse(a, "{\"type\":\"kubernetes.io/dockercfg\",\"data\":"
                "{\".dockercfg\":\"W10=\"}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_secret(&errs, obj);
    assert_string_equal(gcp_ferrs_message(&errs, "Secret", "s"),
        "Secret \"s\" is invalid: data[.dockercfg]: Invalid value: "
        "\"<secret contents redacted>\": json: cannot unmarshal array into "
        "Go value of type map[string]interface {}");

    obj = parse(a, "{\"type\":\"kubernetes.io/dockerconfigjson\",\"data\":"
                "{\".dockerconfigjson\":\"\"}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_secret(&errs, obj);
    assert_string_equal(gcp_ferrs_message(&errs, "Secret", "s"),
        "Secret \"s\" is invalid: data[.dockerconfigjson]: Invalid value: "
        "\"<secret contents redacted>\": unexpected end of JSON input");

    obj = parse(a, "{\"type\":\"kubernetes.io/dockerconfigjson\",\"data\":"
                "{\".dockerconfigjson\":\"eyJhdXRocyI6e319\"}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_secret(&errs, obj);
    assert_int_equal(errs.n, 0);

    gcp_arena_destroy(a);
}


static void
test_namespaces(void **state)
{
    json_t       *obj;
    gcp_ferrs_t   errs;
    gcp_arena_t  *a = gcp_arena_create(0);

    /* reference: 07-ns-create-invalid-name.http */
    obj = parse(a, "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
                "\"metadata\":{\"name\":\"Ref.Bad\"}}");
    gcp_ferrs_init(&errs, a);
    validate_core(&errs, obj, GCP_NAME_DNS_LABEL, 0);
    gcp_validate_namespace(&errs, obj);

    assert_string_equal(gcp_ferrs_message(&errs, "Namespace", "Ref.Bad"),
        "Namespace \"Ref.Bad\" is invalid: metadata.name: Invalid value: "
        "\"Ref.Bad\": a lowercase RFC 1123 label must consist of lower case "
        "alphanumeric characters or '-', and must start and end with an "
        "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
        "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");

    /* reference: 07-ns-finalize-invalid.http */
    obj = parse(a, "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
                "\"metadata\":{\"name\":\"ref-ns-term\"},\"spec\":"
                "{\"finalizers\":[\"not a valid name!\"]}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_namespace_finalize(&errs, obj);

    assert_string_equal(gcp_ferrs_message(&errs, "Namespace", "ref-ns-term"),
        "Namespace \"ref-ns-term\" is invalid: [spec.finalizers[0]: Invalid "
        "value: \"not a valid name!\": name part must consist of "
        "alphanumeric characters, '-', '_' or '.', and must start and end "
        "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
        "'123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.finalizers[0]: "
        "Invalid value: \"not a valid name!\": name is neither a standard "
        "finalizer name nor is it fully qualified]");

    /* create: no index; standard names; namespace not allowed */
    obj = parse(a, "{\"metadata\":{\"name\":\"n\",\"namespace\":\"x\"},"
                "\"spec\":{\"finalizers\":[\"kubernetes\",\"example.com/x\","
                "\"foo\"]}}");
    gcp_ferrs_init(&errs, a);
    validate_core(&errs, obj, GCP_NAME_DNS_LABEL, 0);
    gcp_validate_namespace(&errs, obj);

    {
        const want_t  w[] = {
            { GCP_FERR_FORBIDDEN, "metadata.namespace",
              "Forbidden: not allowed on this type" },
            { GCP_FERR_INVALID, "spec.finalizers",
              "Invalid value: \"foo\": " MSG_NOT_STANDARD },
        };

        expect(&errs, w, gcp_nelems(w));
    }

    gcp_ferrs_init(&errs, a);
    gcp_validate_namespace_update(&errs, obj, obj);
    assert_int_equal(errs.n, 1);
    assert_string_equal(errs.first->field, "spec.finalizers");

    /* status */
    obj = parse(a, "{\"metadata\":{\"name\":\"n\"},\"status\":{\"phase\":"
                "\"Terminating\"}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_namespace_status(&errs, obj);
    assert_string_equal(gcp_ferrs_message(&errs, "Namespace", "n"),
        "Namespace \"n\" is invalid: status.Phase: Invalid value: "
        "\"Terminating\": may only be 'Active' if `deletionTimestamp` is "
        "empty");

    obj = parse(a, "{\"metadata\":{\"name\":\"n\",\"deletionTimestamp\":"
                "\"2026-11-22T06:49:15Z\"},\"status\":{\"phase\":"
                "\"Active\"}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_namespace_status(&errs, obj);
    assert_string_equal(gcp_ferrs_message(&errs, "Namespace", "n"),
        "Namespace \"n\" is invalid: status.Phase: Invalid value: "
        "\"Active\": may only be 'Terminating' if `deletionTimestamp` is not "
        "empty");

    gcp_arena_destroy(a);
}


static void
test_object_meta_create(void **state)
{
    char             *ann;
    json_t           *obj, *meta;
    gcp_ferrs_t       errs;
    gcp_arena_t      *a = gcp_arena_create(0);
    gcp_meta_opts_t   opts = { GCP_NAME_DNS_SUBDOMAIN, 1, 0 };

    meta = parse(a, "{\"generateName\":\"Gen-\",\"name\":\"ok\","
                 "\"namespace\":\"Bad\",\"generation\":-1,"
                 "\"labels\":{\"a\":\"-bad\",\"k\":\"\"},"
                 "\"annotations\":{\"Example.COM/Key\":\"v\",\"a b\":\"\"},"
                 "\"finalizers\":[\"orphan\",\"foregroundDeletion\","
                 "\"x y\"]}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_object_meta(&errs, meta, &opts);

    {
        const want_t  w[] = {
            { GCP_FERR_INVALID, "metadata.generateName",
              "Invalid value: \"Gen-\": " MSG_SUBDOMAIN },
            { GCP_FERR_INVALID, "metadata.namespace",
              "Invalid value: \"Bad\": " MSG_LABEL },
            { GCP_FERR_INVALID, "metadata.generation",
              "Invalid value: -1: must be greater than or equal to 0" },
            { GCP_FERR_INVALID, "metadata.labels",
              "Invalid value: \"-bad\": " MSG_LABEL_VALUE },
            { GCP_FERR_INVALID, "metadata.annotations",
              "Invalid value: \"a b\": name part " MSG_QNAME },
            { GCP_FERR_INVALID, "metadata.finalizers",
              "Invalid value: \"x y\": name part " MSG_QNAME },
            { GCP_FERR_INVALID, "metadata.finalizers",
              "Invalid value: []string{\"orphan\", \"foregroundDeletion\", "
              "\"x y\"}: finalizer orphan and foregroundDeletion cannot be "
              "both set" },
        };

        expect(&errs, w, gcp_nelems(w));
    }

    /* cluster-scoped, missing name; core finalizer names */
    opts.namespaced = 0;
    opts.core = 1;
    meta = parse(a, "{\"finalizers\":[\"kubernetes\",\"foo\"]}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_object_meta(&errs, meta, &opts);

    {
        const want_t  w[] = {
            { GCP_FERR_REQUIRED, "metadata.name",
              "Required value: name or generateName is required" },
            { GCP_FERR_INVALID, "metadata.finalizers",
              "Invalid value: \"foo\": " MSG_NOT_STANDARD },
        };

        expect(&errs, w, gcp_nelems(w));
    }

    /* no metadata at all, namespaced */
    opts.namespaced = 1;
    gcp_ferrs_init(&errs, a);
    gcp_validate_object_meta(&errs, NULL, &opts);
    assert_string_equal(gcp_ferrs_message(&errs, "ConfigMap", ""),
        "ConfigMap \"\" is invalid: [metadata.name: Required value: name or "
        "generateName is required, metadata.namespace: Required value]");

    /* annotations: 256 KiB in total */
    ann = gcp_alloc(a, 262144);
    memset(ann, 'v', 262143);
    ann[262143] = '\0';

    obj = json_pack("{s:s, s:s, s:{s:s}}", "name", "n", "namespace", "ns",
                    "annotations", "kk", ann);
    gcp_ferrs_init(&errs, a);
    gcp_validate_object_meta(&errs, obj, &opts);
    assert_string_equal(gcp_ferrs_message(&errs, "ConfigMap", "n"),
        "ConfigMap \"n\" is invalid: metadata.annotations: Too long: must "
        "have at most 262144 bytes");
    json_decref(obj);

    /* ownerReferences */
    meta = parse(a, "{\"name\":\"n\",\"namespace\":\"ns\",\"ownerReferences\":"
                 "[{\"apiVersion\":\"apps/\",\"kind\":\"\",\"name\":\"a\","
                 "\"uid\":\"1\",\"controller\":true},{\"apiVersion\":\"v1\","
                 "\"kind\":\"Event\",\"name\":\"b\",\"uid\":\"2\","
                 "\"controller\":true}]}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_object_meta(&errs, meta, &opts);

    {
        const want_t  w[] = {
            { GCP_FERR_INVALID, "metadata.ownerReferences.apiVersion",
              "Invalid value: \"apps/\": version must not be empty" },
            { GCP_FERR_INVALID, "metadata.ownerReferences.kind",
              "Invalid value: \"\": kind must not be empty" },
            { GCP_FERR_INVALID, "metadata.ownerReferences",
              "Invalid value: v1.OwnerReference{APIVersion:\"v1\", "
              "Kind:\"Event\", Name:\"b\", UID:\"2\", "
              "Controller:(*bool)(0xc000010000), "
              "BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is "
              "disallowed from being an owner" },
            { GCP_FERR_INVALID, "metadata.ownerReferences",
              "Invalid value: []v1.OwnerReference{v1.OwnerReference{"
              "APIVersion:\"apps/\", Kind:\"\", Name:\"a\", UID:\"1\", "
              "Controller:(*bool)(0xc000010000), "
              "BlockOwnerDeletion:(*bool)(nil)}, v1.OwnerReference{"
              "APIVersion:\"v1\", Kind:\"Event\", Name:\"b\", UID:\"2\", "
              "Controller:(*bool)(0xc000010000), "
              "BlockOwnerDeletion:(*bool)(nil)}}: Only one reference can "
              "have Controller set to true. Found \"true\" in references for "
              "/a and Event/b" },
        };

        expect(&errs, w, gcp_nelems(w));
    }

    /* managedFields */
    meta = parse(a, "{\"name\":\"n\",\"namespace\":\"ns\",\"managedFields\":"
                 "[{\"manager\":\"m\",\"operation\":\"Update\"},"
                 "{\"manager\":\"a\\u0001\",\"operation\":\"Patch\","
                 "\"fieldsType\":\"FieldsV2\"}]}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_object_meta(&errs, meta, &opts);

    {
        const want_t  w[] = {
            { GCP_FERR_INVALID, "metadata.managedFields[1].operation",
              "Invalid value: \"Patch\": must be `Apply` or `Update`" },
            { GCP_FERR_INVALID, "metadata.managedFields[1].fieldsType",
              "Invalid value: \"FieldsV2\": must be `FieldsV1`" },
            { GCP_FERR_INVALID, "metadata.managedFields[1].manager",
              "Invalid value: \"a\\x01\": invalid character U+0001 (at "
              "position 1)" },
        };

        expect(&errs, w, gcp_nelems(w));
    }

    /* the generic pass of rest.BeforeCreate: path segment names */
    opts.name_mode = GCP_NAME_PATH_SEGMENT;
    meta = parse(a, "{\"name\":\"a/b\",\"namespace\":\"ns\"}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_object_meta(&errs, meta, &opts);
    assert_string_equal(gcp_ferrs_message(&errs, "Event", "a/b"),
        "Event \"a/b\" is invalid: metadata.name: Invalid value: \"a/b\": "
        "may not contain '/'");

    gcp_arena_destroy(a);
}


static void
test_object_meta_update(void **state)
{
    json_t           *old, *meta;
    gcp_ferrs_t       errs;
    gcp_arena_t      *a = gcp_arena_create(0);
    gcp_meta_opts_t   core = { GCP_NAME_DNS_SUBDOMAIN, 1, 1 };

    old = parse(a, "{\"name\":\"n\",\"namespace\":\"ns\",\"uid\":\"u1\","
                "\"resourceVersion\":\"5\",\"generation\":3,"
                "\"creationTimestamp\":\"2026-11-22T06:45:46Z\","
                "\"deletionTimestamp\":\"2026-11-22T07:00:00Z\","
                "\"deletionGracePeriodSeconds\":30,"
                "\"finalizers\":[\"a.io/x\"]}");

    /* unchanged (other offset, same instant): valid */
    meta = parse(a, "{\"name\":\"n\",\"namespace\":\"ns\",\"uid\":\"u1\","
                 "\"resourceVersion\":\"5\",\"generation\":4,"
                 "\"creationTimestamp\":\"2026-11-22T08:45:46+02:00\","
                 "\"deletionTimestamp\":\"2026-11-22T07:00:00Z\","
                 "\"deletionGracePeriodSeconds\":30,"
                 "\"finalizers\":[\"a.io/x\"]}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_object_meta_update(&errs, meta, old, &core);
    assert_int_equal(errs.n, 0);

    meta = parse(a, "{\"name\":\"m\",\"namespace\":\"other\","
                 "\"generation\":2,"
                 "\"creationTimestamp\":\"2026-11-22T06:45:47Z\","
                 "\"labels\":{\"a\":\"b c\"},"
                 "\"finalizers\":[\"z.io/b\",\"a.io/x\",\"b.io/a\",\"z.io/b\","
                 "\"foo\"]}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_object_meta_update(&errs, meta, old, &core);

    {
        const want_t  w[] = {
            { GCP_FERR_FORBIDDEN, "metadata.finalizers",
              "Forbidden: no new finalizers can be added if the object is "
              "being deleted, found new finalizers []string{\"b.io/a\", "
              "\"foo\", \"z.io/b\"}" },
            { GCP_FERR_INVALID, "metadata.resourceVersion",
              "Invalid value: \"\": must be specified for an update" },
            { GCP_FERR_INVALID, "metadata.generation",
              "Invalid value: 2: must not be decremented" },
            { GCP_FERR_INVALID, "metadata.name",
              "Invalid value: \"m\": field is immutable" },
            { GCP_FERR_INVALID, "metadata.namespace",
              "Invalid value: \"other\": field is immutable" },
            { GCP_FERR_INVALID, "metadata.uid",
              "Invalid value: \"\": field is immutable" },
            { GCP_FERR_INVALID, "metadata.creationTimestamp",
              "Invalid value: 2026-11-22 06:45:47 +0000 UTC: field is "
              "immutable" },
            { GCP_FERR_INVALID, "metadata.deletionTimestamp",
              "Invalid value: \"null\": field is immutable" },
            { GCP_FERR_INVALID, "metadata.deletionGracePeriodSeconds",
              "Invalid value: \"null\": field is immutable" },
            { GCP_FERR_INVALID, "metadata.labels",
              "Invalid value: \"b c\": " MSG_LABEL_VALUE },
            { GCP_FERR_INVALID, "metadata.finalizers",
              "Invalid value: \"foo\": " MSG_NOT_STANDARD },
        };

        expect(&errs, w, gcp_nelems(w));
    }

    /* one message for errors Go renders the same */
    gcp_ferrs_init(&errs, a);
    gcp_ferrs_add(&errs, GCP_FERR_REQUIRED, "a", NULL, NULL);
    gcp_ferrs_add(&errs, GCP_FERR_REQUIRED, "a", NULL, NULL);
    assert_string_equal(gcp_ferrs_message(&errs, "K", "n"),
                        "K \"n\" is invalid: a: Required value");
    gcp_ferrs_add(&errs, GCP_FERR_REQUIRED, "b", NULL, NULL);
    gcp_ferrs_add(&errs, GCP_FERR_REQUIRED, "a", NULL, NULL);
    assert_string_equal(gcp_ferrs_message(&errs, "K", "n"),
                        "K \"n\" is invalid: [a: Required value, "
                        "b: Required value]");

    gcp_arena_destroy(a);
}


static void
test_events(void **state)
{
    json_t       *obj, *old;
    gcp_ferrs_t   errs;
    gcp_arena_t  *a = gcp_arena_create(0);

    /* reference: 12-event-create-core-v1.http is valid */
    obj = parse(a, "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":"
                "{\"name\":\"target.ref1\",\"namespace\":\"ref-misc\"},"
                "\"involvedObject\":{\"kind\":\"ConfigMap\",\"namespace\":"
                "\"ref-misc\",\"name\":\"target\",\"uid\":\"7159b547\","
                "\"apiVersion\":\"v1\"},\"reason\":\"Tested\",\"message\":"
                "\"reference event\",\"type\":\"Normal\",\"source\":"
                "{\"component\":\"refcapture\"},\"firstTimestamp\":"
                "\"2026-01-01T00:00:00Z\",\"lastTimestamp\":"
                "\"2026-01-01T00:00:00Z\",\"count\":1,\"reportingComponent\":"
                "\"refcapture\",\"reportingInstance\":\"refcapture-1\"}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_event(&errs, obj);
    assert_int_equal(errs.n, 0);

    /* ... but not through events.k8s.io */
    gcp_ferrs_init(&errs, a);
    gcp_validate_event_v1(&errs, obj);

    {
        const want_t  w[] = {
            { GCP_FERR_REQUIRED, "eventTime", "Required value" },
            { GCP_FERR_INVALID, "firstTimestamp",
              "Invalid value: \"\": needs to be unset" },
            { GCP_FERR_INVALID, "lastTimestamp",
              "Invalid value: \"\": needs to be unset" },
            { GCP_FERR_INVALID, "count",
              "Invalid value: \"\": needs to be unset" },
            { GCP_FERR_INVALID, "source",
              "Invalid value: \"\": needs to be unset" },
        };

        expect(&errs, w, gcp_nelems(w));
    }

    /* legacy: the namespaces must agree */
    obj = parse(a, "{\"metadata\":{\"name\":\"e\",\"namespace\":\"ns\"},"
                "\"involvedObject\":{\"namespace\":\"other\"}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_event(&errs, obj);
    assert_string_equal(gcp_ferrs_message(&errs, "Event", "e"),
        "Event \"e\" is invalid: involvedObject.namespace: Invalid value: "
        "\"other\": does not match event.namespace");

    /* a new-style event (eventTime set) needs the reporting fields */
    obj = parse(a, "{\"metadata\":{\"name\":\"e\",\"namespace\":\"ns\"},"
                "\"eventTime\":\"2026-01-01T00:00:00.000000Z\","
                "\"involvedObject\":{},\"type\":\"Odd\","
                "\"series\":{\"count\":1}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_event_v1(&errs, obj);

    {
        const want_t  w[] = {
            { GCP_FERR_INVALID, "involvedObject.namespace",
              "Invalid value: \"\": does not match event.namespace" },
            { GCP_FERR_REQUIRED, "reportingController", "Required value" },
            { GCP_FERR_INVALID, "reportingController",
              "Invalid value: \"\": name part must be non-empty" },
            { GCP_FERR_INVALID, "reportingController",
              "Invalid value: \"\": name part " MSG_QNAME },
            { GCP_FERR_REQUIRED, "reportingInstance", "Required value" },
            { GCP_FERR_REQUIRED, "action", "Required value" },
            { GCP_FERR_REQUIRED, "reason", "Required value" },
            { GCP_FERR_INVALID, "series.count",
              "Invalid value: \"\": should be at least 2" },
            { GCP_FERR_REQUIRED, "series.lastObservedTime",
              "Required value" },
            { GCP_FERR_INVALID, "type",
              "Invalid value: \"\": has invalid value: Odd" },
        };

        expect(&errs, w, gcp_nelems(w));
    }

    /* update through events.k8s.io: immutable fields */
    old = parse(a, "{\"metadata\":{\"name\":\"e\",\"namespace\":\"default\","
                "\"resourceVersion\":\"1\"},\"eventTime\":"
                "\"2026-01-01T00:00:00.000001Z\",\"involvedObject\":"
                "{\"kind\":\"Pod\"},\"reason\":\"R\",\"action\":\"A\","
                "\"type\":\"Normal\",\"reportingComponent\":\"c\","
                "\"reportingInstance\":\"i\"}");
    obj = parse(a, "{\"metadata\":{\"name\":\"e\",\"namespace\":\"default\","
                "\"resourceVersion\":\"1\"},\"eventTime\":"
                "\"2026-01-01T00:00:00.000002Z\",\"involvedObject\":"
                "{\"kind\":\"Node\"},\"reason\":\"R\",\"action\":\"A\","
                "\"type\":\"Normal\",\"reportingComponent\":\"c\","
                "\"reportingInstance\":\"i\",\"count\":3,\"related\":"
                "{\"name\":\"x\"}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_event_v1_update(&errs, obj, old);

    {
        const want_t  w[] = {
            { GCP_FERR_INVALID, "involvedObject",
              "Invalid value: core.ObjectReference{Kind:\"Node\", "
              "Namespace:\"\", Name:\"\", UID:\"\", APIVersion:\"\", "
              "ResourceVersion:\"\", FieldPath:\"\"}: field is immutable" },
            { GCP_FERR_INVALID, "count",
              "Invalid value: 3: field is immutable" },
            { GCP_FERR_INVALID, "eventTime",
              "Invalid value: 2026-01-01 00:00:00.000002 +0000 UTC: field "
              "is immutable" },
            { GCP_FERR_INVALID, "related",
              "Invalid value: core.ObjectReference{Kind:\"\", "
              "Namespace:\"\", Name:\"x\", UID:\"\", APIVersion:\"\", "
              "ResourceVersion:\"\", FieldPath:\"\"}: field is immutable" },
        };

        expect(&errs, w, gcp_nelems(w));
    }

    gcp_ferrs_init(&errs, a);
    gcp_validate_event_update(&errs, obj, old);
    assert_int_equal(errs.n, 0);

    gcp_arena_destroy(a);
}


static void
test_leases(void **state)
{
    json_t       *obj;
    gcp_ferrs_t   errs;
    gcp_arena_t  *a = gcp_arena_create(0);

    /* reference: 12-lease-create.http is valid */
    obj = parse(a, "{\"spec\":{\"holderIdentity\":\"node-a\","
                "\"leaseDurationSeconds\":15,\"acquireTime\":"
                "\"2026-01-01T00:00:00.000000Z\",\"leaseTransitions\":0}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_lease(&errs, obj);
    assert_int_equal(errs.n, 0);

    obj = parse(a, "{\"spec\":{\"leaseDurationSeconds\":0,"
                "\"leaseTransitions\":-1,\"strategy\":\"Newest\","
                "\"preferredHolder\":\"x\"}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_lease(&errs, obj);

    {
        const want_t  w[] = {
            { GCP_FERR_INVALID, "spec.leaseDurationSeconds",
              "Invalid value: 0: must be greater than 0" },
            { GCP_FERR_INVALID, "spec.leaseTransitions",
              "Invalid value: -1: must be greater than or equal to 0" },
            { GCP_FERR_NOT_SUPPORTED, "spec.strategy.strategy",
              "Unsupported value: \"Newest\": supported values: "
              "\"OldestEmulationVersion\"" },
        };

        expect(&errs, w, gcp_nelems(w));
    }

    gcp_ferrs_init(&errs, a);
    gcp_validate_lease_update(&errs, obj, obj);
    assert_int_equal(errs.n, 3);

    obj = parse(a, "{\"spec\":{\"preferredHolder\":\"x\"}}");
    gcp_ferrs_init(&errs, a);
    gcp_validate_lease(&errs, obj);
    assert_string_equal(gcp_ferrs_message(&errs, "Lease.coordination.k8s.io",
                                          "l"),
        "Lease.coordination.k8s.io \"l\" is invalid: spec.preferredHolder: "
        "Forbidden: may only be specified if `strategy` is defined");

    gcp_arena_destroy(a);
}


typedef struct {
    const char  *in;
    const char  *out;           /* NULL: error */
    const char  *msg;
} b64_case_t;


static void
test_base64(void **state)
{
    int           rc;
    size_t        i;
    gcp_buf_t     b;
    gcp_str_t     out, enc;
    const char   *msg;
    gcp_arena_t  *a = gcp_arena_create(0);

    /* results of Go's base64.StdEncoding.DecodeString */
    static const b64_case_t  cases[] = {
        { "not base64!!", NULL, "illegal base64 data at input byte 3" },
        { "YQ=", NULL, "illegal base64 data at input byte 3" },
        { "YQ", NULL, "illegal base64 data at input byte 0" },
        { "Y", NULL, "illegal base64 data at input byte 0" },
        { "YQ==x", NULL, "illegal base64 data at input byte 4" },
        { "Y===", NULL, "illegal base64 data at input byte 1" },
        { "YQ=x", NULL, "illegal base64 data at input byte 2" },
        { "=", NULL, "illegal base64 data at input byte 0" },
        { "YWJjZA=", NULL, "illegal base64 data at input byte 7" },
        { "YQ==\nYQ==", NULL, "illegal base64 data at input byte 5" },
        { "YWJjZA===", NULL, "illegal base64 data at input byte 8" },
        { "YWJj\nZGVm", "abcdef", NULL },
        { "YQ==\n", "a", NULL },
        { "", "", NULL },
        { "YWJjZA==", "abcd", NULL },
        { "YR==", "a", NULL },
        { "YQ=\n=", "a", NULL },
        { "\n\n", "", NULL },
        { "YWJ\r\njZA==", "abcd", NULL },
    };

    for (i = 0; i < gcp_nelems(cases); i++) {
        msg = NULL;
        rc = gcp_base64_decode(a, cases[i].in, strlen(cases[i].in), &out,
                               &msg);

        if (cases[i].out == NULL) {
            assert_int_equal(rc, GCP_EBADREQUEST);
            assert_string_equal(msg, cases[i].msg);

        } else {
            assert_int_equal(rc, GCP_OK);
            assert_int_equal(out.len, strlen(cases[i].out));
            assert_string_equal(out.data, cases[i].out);
        }
    }

    enc = gcp_base64_encode(a, "abcd", 4);
    assert_string_equal(enc.data, "YWJjZA==");
    enc = gcp_base64_encode(a, "abcde", 5);
    assert_string_equal(enc.data, "YWJjZGU=");
    enc = gcp_base64_encode(a, "\x00\xff\xfe", 3);
    assert_string_equal(enc.data, "AP/+");
    enc = gcp_base64_encode(a, "", 0);
    assert_string_equal(enc.data, "");

    rc = gcp_base64_decode(a, "AP/+", 4, &out, &msg);
    assert_int_equal(rc, GCP_OK);
    assert_memory_equal(out.data, "\x00\xff\xfe", 3);

    /* base64.RawURLEncoding (continue tokens) */
    gcp_buf_init(&b, a);
    gcp_base64_encode_buf(&b, "\xfb\xff", 2, GCP_BASE64_RAWURL);
    gcp_base64_encode_buf(&b, "a", 1, GCP_BASE64_RAWURL);
    gcp_base64_encode_buf(&b, "abc", 3, GCP_BASE64_RAWURL);
    assert_string_equal(gcp_buf_cstr(&b), "-_8YQYWJj");

    rc = gcp_base64_decode_mode(a, "-_8", 3, GCP_BASE64_RAWURL, &out, &msg);
    assert_int_equal(rc, GCP_OK);
    assert_int_equal(out.len, 2);
    assert_memory_equal(out.data, "\xfb\xff", 2);

    rc = gcp_base64_decode_mode(a, "YQ", 2, GCP_BASE64_RAWURL, &out, &msg);
    assert_int_equal(rc, GCP_OK);
    assert_string_equal(out.data, "a");

    rc = gcp_base64_decode_mode(a, "YQ=", 3, GCP_BASE64_RAWURL, &out, &msg);
    assert_int_equal(rc, GCP_EBADREQUEST);
    assert_string_equal(msg, "illegal base64 data at input byte 2");

    rc = gcp_base64_decode_mode(a, "Y", 1, GCP_BASE64_RAWURL, &out, &msg);
    assert_int_equal(rc, GCP_EBADREQUEST);
    assert_string_equal(msg, "illegal base64 data at input byte 0");

    rc = gcp_base64_decode_mode(a, "ab+c", 4, GCP_BASE64_RAWURL, &out, &msg);
    assert_int_equal(rc, GCP_EBADREQUEST);
    assert_string_equal(msg, "illegal base64 data at input byte 2");

    gcp_arena_destroy(a);
}


static void
test_time_string(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(0);

    assert_string_equal(gcp_validation_time_string(a, "2026-11-22T06:45:46Z"),
                        "2026-11-22 06:45:46 +0000 UTC");
    assert_string_equal(gcp_validation_time_string(a,
                            "2026-01-01T00:00:10.123456Z"),
                        "2026-01-01 00:00:10.123456 +0000 UTC");
    assert_string_equal(gcp_validation_time_string(a,
                            "2024-03-01T01:30:00+02:00"),
                        "2024-02-29 23:30:00 +0000 UTC");
    assert_string_equal(gcp_validation_time_string(a, NULL),
                        "0001-01-01 00:00:00 +0000 UTC");
    assert_string_equal(gcp_validation_time_string(a, "garbage"),
                        "0001-01-01 00:00:00 +0000 UTC");

    gcp_arena_destroy(a);
}


static uint32_t
xorshift(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;

    return *x;
}


/* Sets doc to a random mutation of one of seeds; returns its length. */
static size_t
mutate(char *doc, size_t size, const char *const *seeds, size_t nseeds,
    uint32_t *x)
{
    size_t  j, k, len, pos;

    static const char  alphabet[] = "{}[]:,\"\\ \t\n0123456789.e-tfnul"
                                    "abkxyz/\x01\xc3\xa9\xc2\x85\xff";

    k = xorshift(x) % nseeds;
    len = strlen(seeds[k]);
    memcpy(doc, seeds[k], len);

    for (j = xorshift(x) % 4 + 1; j > 0; j--) {
        pos = xorshift(x) % (len + 1);

        if (xorshift(x) % 2 && len > 0) {
            pos = gcp_min(pos, len - 1);
            memmove(doc + pos, doc + pos + 1, len - pos - 1);
            len--;

        } else if (len < size - 1) {
            memmove(doc + pos + 1, doc + pos, len - pos);
            doc[pos] = alphabet[xorshift(x) % (sizeof(alphabet) - 1)];
            len++;
        }
    }

    return len;
}


/* garbage objects through every rule: no crash, no leak, sane lists */
static void
test_fuzz(void **state)
{
    char              doc[512];
    size_t            i, len, n;
    json_t           *v, *w;
    uint32_t          x;
    const char       *msg;
    gcp_ferrs_t       errs;
    gcp_arena_t      *a;
    const gcp_ferr_t *e;
    gcp_meta_opts_t   opts = { GCP_NAME_DNS_SUBDOMAIN, 1, 1 };

    static const char *const  seeds[] = {
        "{\"metadata\":{\"name\":\"a\",\"namespace\":\"n\",\"labels\":{\"k\":"
        "\"v\"},\"finalizers\":[\"x/y\"],\"ownerReferences\":[{\"uid\":\"u\""
        "}]},\"data\":{\"k\":\"dg==\"},\"type\":\"kubernetes.io/tls\"}",
        "{\"metadata\":{\"name\":\"e\",\"namespace\":\"ns\",\"managedFields\":"
        "[{\"manager\":\"m\"}]},\"eventTime\":\"2026-01-01T00:00:00Z\","
        "\"series\":{\"count\":1},\"involvedObject\":{\"namespace\":\"x\"}}",
        "{\"spec\":{\"finalizers\":[\"kubernetes\",\"a\"],\"strategy\":\"a/b\","
        "\"leaseDurationSeconds\":-1},\"immutable\":true,\"binaryData\":"
        "{\"a\":\"YQ==\"}}",
    };

    x = 123456789u;

    for (i = 0; i < 3000; i++) {
        len = mutate(doc, sizeof(doc), seeds, gcp_nelems(seeds), &x);

        a = gcp_arena_create(0);
        v = gcp_json_parse(a, doc, len, &msg);
        w = parse(a, seeds[i % gcp_nelems(seeds)]);

        if (v != NULL) {
            gcp_ferrs_init(&errs, a);

            gcp_validate_object_meta(&errs, json_object_get(v, "metadata"),
                                     &opts);
            gcp_validate_object_meta_update(&errs,
                                            json_object_get(v, "metadata"),
                                            json_object_get(w, "metadata"),
                                            &opts);
            gcp_validate_configmap_update(&errs, v, w);
            gcp_validate_secret_update(&errs, v, w);
            gcp_validate_namespace(&errs, v);
            gcp_validate_namespace_finalize(&errs, v);
            gcp_validate_namespace_status(&errs, v);
            gcp_validate_namespace_update(&errs, v, w);
            gcp_validate_event(&errs, v);
            gcp_validate_event_update(&errs, v, w);
            gcp_validate_event_v1(&errs, v);
            gcp_validate_event_v1_update(&errs, v, w);
            gcp_validate_lease(&errs, v);
            gcp_validate_lease_update(&errs, v, w);
            (void) gcp_decode_check_secret(a, v, &msg);
            (void) gcp_decode_check_configmap(a, v, &msg);

            assert_false(errs.nomem);

            n = 0;

            for (e = errs.first; e; e = e->next) {
                assert_non_null(e->field);
                n++;
            }

            assert_int_equal(n, errs.n);

            if (n) {
                assert_non_null(gcp_ferrs_message(&errs, "Kind", "n"));
            }
        }

        gcp_arena_destroy(a);
    }
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_name_checks),
        cmocka_unit_test(test_reference_configmaps),
        cmocka_unit_test(test_configmap_rules),
        cmocka_unit_test(test_reference_secrets),
        cmocka_unit_test(test_secret_types),
        cmocka_unit_test(test_namespaces),
        cmocka_unit_test(test_object_meta_create),
        cmocka_unit_test(test_object_meta_update),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_leases),
        cmocka_unit_test(test_base64),
        cmocka_unit_test(test_time_string),
        cmocka_unit_test(test_fuzz),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
