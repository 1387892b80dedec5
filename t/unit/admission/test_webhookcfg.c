
/*
 * Unit tests: admissionregistration.k8s.io/v1 webhook configurations
 * through the API core (core/admission/gcp_type_webhookconfig.c,
 * gcp_webhookcfg_validation.c): validation messages as kube-apiserver's
 * (the cases below were answered by kube-apiserver), v1 defaults and Go's
 * field order, the relaxed rules of updates (matchConditions kept as
 * stored), Tables and protobuf.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "gcp_object.h"
#include "gcp_op.h"
#include "gcp_protobuf.h"
#include "support_api.h"


#define AR     "/apis/admissionregistration.k8s.io/v1"
#define JSON   "application/json"
#define PB     "application/vnd.kubernetes.protobuf"
#define TABLE  "application/json;as=Table;v=v1;g=meta.k8s.io"


typedef struct {
    const char  *name;
    int          code;
    const char  *body;
    const char  *message;
} case_t;


/* Bodies and kube-apiserver's answers (v1.28, the same rules as 1.32). */
static const case_t  cases[] = {
    {
        "resources", 422,
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v"
        "\"},\"webhooks\":[{\"name\":\"a.b.c\",\"clientConfig\":{\"url"
        "\":\"https://h/x\"},\"rules\":[{\"apiGroups\":[\"\"],\"apiVers"
        "ions\":[\"v1\"],\"operations\":[\"CREATE\"],\"resources\":[\"p"
        "ods/*\",\"pods/log\",\"*/*\",\"*/x\",\"\"]}],\"sideEffects\":"
        "\"None\",\"admissionReviewVersions\":[\"v1\"]}]}",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io \""
        "v\" is invalid: [webhooks[0].rules[0].resources[1]: Invalid va"
        "lue: \"pods/log\": if 'pods/*' is present, must not specify po"
        "ds/log, webhooks[0].rules[0].resources[3]: Invalid value: \"*/"
        "x\": if '*/*' is present, must not specify */x, webhooks[0].ru"
        "les[0].resources[4]: Required value, webhooks[0].rules[0].reso"
        "urces: Invalid value: []string{\"pods/*\", \"pods/log\", \"*/*"
        "\", \"*/x\", \"\"}: if '*/*' is present, must not specify othe"
        "r resources]"
    },
    {
        "resources2", 422,
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v"
        "\"},\"webhooks\":[{\"name\":\"a.b.c\",\"clientConfig\":{\"url"
        "\":\"https://h/x\"},\"rules\":[{\"apiGroups\":[\"*\",\"x\"],\""
        "apiVersions\":[\"*\",\"\"],\"operations\":[],\"resources\":[\""
        "*\",\"pods\"],\"scope\":\"Foo\"}],\"sideEffects\":\"None\",\"a"
        "dmissionReviewVersions\":[\"v1\"]}]}",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io \""
        "v\" is invalid: [webhooks[0].rules[0].operations: Required val"
        "ue, webhooks[0].rules[0].apiGroups: Invalid value: []string{\""
        "*\", \"x\"}: if '*' is present, must not specify other API gro"
        "ups, webhooks[0].rules[0].apiVersions: Invalid value: []string"
        "{\"*\", \"\"}: if '*' is present, must not specify other API v"
        "ersions, webhooks[0].rules[0].apiVersions[1]: Required value, "
        "webhooks[0].rules[0].resources: Invalid value: []string{\"*\","
        " \"pods\"}: if '*' is present, must not specify other resource"
        "s without subresources, webhooks[0].rules[0].scope: Unsupporte"
        "d value: \"Foo\": supported values: \"*\", \"Cluster\", \"Name"
        "spaced\"]"
    },
    {
        "service", 422,
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v"
        "\"},\"webhooks\":[{\"name\":\"a.b.c\",\"clientConfig\":{\"serv"
        "ice\":{\"name\":\"\",\"namespace\":\"\",\"port\":0,\"path\":\""
        "x//Y/\"}},\"rules\":[{\"apiGroups\":[\"\"],\"apiVersions\":[\""
        "v1\"],\"operations\":[\"CREATE\"],\"resources\":[\"configmaps"
        "\"]}],\"sideEffects\":\"None\",\"admissionReviewVersions\":[\""
        "v1\"]}]}",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io \""
        "v\" is invalid: [webhooks[0].clientConfig.service.name: Requir"
        "ed value: service name is required, webhooks[0].clientConfig.s"
        "ervice.namespace: Required value: service namespace is require"
        "d, webhooks[0].clientConfig.service.port: Invalid value: 0: po"
        "rt is not valid: must be between 1 and 65535, inclusive, webho"
        "oks[0].clientConfig.service.path: Invalid value: \"x//Y/\": mu"
        "st start with a '/', webhooks[0].clientConfig.service.path: In"
        "valid value: \"x//Y/\": segment[0] may not be empty, webhooks["
        "0].clientConfig.service.path: Invalid value: \"x//Y/\": segmen"
        "t[1] may not be empty, webhooks[0].clientConfig.service.path: "
        "Invalid value: \"x//Y/\": segment[2]: a lowercase RFC 1123 sub"
        "domain must consist of lower case alphanumeric characters, '-'"
        " or '.', and must start and end with an alphanumeric character"
        " (e.g. 'example.com', regex used for validation is '[a-z0-9](["
        "-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]"
    },
    {
        "both", 422,
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v"
        "\"},\"webhooks\":[{\"name\":\"a.b.c\",\"clientConfig\":{\"url"
        "\":\"https://h\",\"service\":{\"name\":\"s\",\"namespace\":\"n"
        "\"}},\"rules\":[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"]"
        ",\"operations\":[\"CREATE\"],\"resources\":[\"configmaps\"]}],"
        "\"sideEffects\":\"None\",\"admissionReviewVersions\":[\"v1\"]}"
        "]}",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io \""
        "v\" is invalid: webhooks[0].clientConfig: Required value: exac"
        "tly one of url or service is required"
    },
    {
        "none", 422,
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v"
        "\"},\"webhooks\":[{\"name\":\"a.b.c\",\"clientConfig\":{},\"ru"
        "les\":[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"operat"
        "ions\":[\"CREATE\"],\"resources\":[\"configmaps\"]}],\"sideEff"
        "ects\":\"None\",\"admissionReviewVersions\":[\"v1\"]}]}",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io \""
        "v\" is invalid: webhooks[0].clientConfig: Required value: exac"
        "tly one of url or service is required"
    },
    {
        "policies", 422,
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v"
        "\"},\"webhooks\":[{\"name\":\"a.b.c\",\"clientConfig\":{\"url"
        "\":\"https://h/x\"},\"rules\":[{\"apiGroups\":[\"\"],\"apiVers"
        "ions\":[\"v1\"],\"operations\":[\"CREATE\"],\"resources\":[\"c"
        "onfigmaps\"]}],\"sideEffects\":\"Some\",\"admissionReviewVersi"
        "ons\":[\"v1\"],\"failurePolicy\":\"X\",\"matchPolicy\":\"Y\","
        "\"timeoutSeconds\":0,\"namespaceSelector\":{\"matchLabels\":{"
        "\"a b\":\"c\"},\"matchExpressions\":[{\"key\":\"k\",\"operator"
        "\":\"In\"},{\"key\":\"k\",\"operator\":\"Bad\"}]}}]}",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io \""
        "v\" is invalid: [webhooks[0].failurePolicy: Unsupported value:"
        " \"X\": supported values: \"Fail\", \"Ignore\", webhooks[0].ma"
        "tchPolicy: Unsupported value: \"Y\": supported values: \"Equiv"
        "alent\", \"Exact\", webhooks[0].sideEffects: Unsupported value"
        ": \"Some\": supported values: \"None\", \"NoneOnDryRun\", webh"
        "ooks[0].timeoutSeconds: Invalid value: 0: the timeout value mu"
        "st be between 1 and 30 seconds, webhooks[0].namespaceSelector."
        "matchLabels: Invalid value: \"a b\": name part must consist of"
        " alphanumeric characters, '-', '_' or '.', and must start and "
        "end with an alphanumeric character (e.g. 'MyName',  or 'my.nam"
        "e',  or '123-abc', regex used for validation is '([A-Za-z0-9]["
        "-A-Za-z0-9_.]*)?[A-Za-z0-9]'), webhooks[0].namespaceSelector.m"
        "atchExpressions[0].values: Required value: must be specified w"
        "hen `operator` is 'In' or 'NotIn', webhooks[0].namespaceSelect"
        "or.matchExpressions[1].operator: Invalid value: \"Bad\": not a"
        " valid selector operator]"
    },
    {
        "nosideeffects", 422,
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v"
        "\"},\"webhooks\":[{\"name\":\"a.b.c\",\"clientConfig\":{\"url"
        "\":\"https://h/x\"},\"rules\":[{\"apiGroups\":[\"\"],\"apiVers"
        "ions\":[\"v1\"],\"operations\":[\"CREATE\"],\"resources\":[\"c"
        "onfigmaps\"]}],\"admissionReviewVersions\":[\"v1\"]}]}",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io \""
        "v\" is invalid: webhooks[0].sideEffects: Required value: must "
        "specify one of None, NoneOnDryRun"
    },
    {
        "versions", 422,
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v"
        "\"},\"webhooks\":[{\"name\":\"a.b.c\",\"clientConfig\":{\"url"
        "\":\"https://h/x\"},\"rules\":[{\"apiGroups\":[\"\"],\"apiVers"
        "ions\":[\"v1\"],\"operations\":[\"CREATE\"],\"resources\":[\"c"
        "onfigmaps\"]}],\"sideEffects\":\"None\",\"admissionReviewVersi"
        "ons\":[\"v1\",\"v1\",\"V2\"]}]}",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io \""
        "v\" is invalid: [webhooks[0].admissionReviewVersions[1]: Inval"
        "id value: \"v1\": duplicate version, webhooks[0].admissionRevi"
        "ewVersions[2]: Invalid value: \"V2\": a DNS-1035 label must co"
        "nsist of lower case alphanumeric characters or '-', start with"
        " an alphabetic character, and end with an alphanumeric charact"
        "er (e.g. 'my-name',  or 'abc-123', regex used for validation i"
        "s '[a-z]([-a-z0-9]*[a-z0-9])?')]"
    },
    {
        "noversions", 422,
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v"
        "\"},\"webhooks\":[{\"name\":\"a.b.c\",\"clientConfig\":{\"url"
        "\":\"https://h/x\"},\"rules\":[{\"apiGroups\":[\"\"],\"apiVers"
        "ions\":[\"v1\"],\"operations\":[\"CREATE\"],\"resources\":[\"c"
        "onfigmaps\"]}],\"sideEffects\":\"None\",\"admissionReviewVersi"
        "ons\":[]}]}",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io \""
        "v\" is invalid: webhooks[0].admissionReviewVersions: Required "
        "value: must specify one of v1, v1beta1"
    },
    {
        "dup", 422,
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v"
        "\"},\"webhooks\":[{\"name\":\"a.b.c\",\"clientConfig\":{\"url"
        "\":\"https://h/x\"},\"rules\":[{\"apiGroups\":[\"\"],\"apiVers"
        "ions\":[\"v1\"],\"operations\":[\"CREATE\"],\"resources\":[\"c"
        "onfigmaps\"]}],\"sideEffects\":\"None\",\"admissionReviewVersi"
        "ons\":[\"v1\"]},{\"name\":\"a.b.c\",\"clientConfig\":{\"url\":"
        "\"https://h/x\"},\"rules\":[{\"apiGroups\":[\"\"],\"apiVersion"
        "s\":[\"v1\"],\"operations\":[\"CREATE\"],\"resources\":[\"conf"
        "igmaps\"]}],\"sideEffects\":\"None\",\"admissionReviewVersions"
        "\":[\"v1\"]}]}",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io \""
        "v\" is invalid: webhooks[1].name: Duplicate value: \"a.b.c\""
    },
    {
        "name", 422,
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v"
        "\"},\"webhooks\":[{\"name\":\"A_b.c.\",\"clientConfig\":{\"url"
        "\":\"https://h/x\"},\"rules\":[{\"apiGroups\":[\"\"],\"apiVers"
        "ions\":[\"v1\"],\"operations\":[\"CREATE\"],\"resources\":[\"c"
        "onfigmaps\"]}],\"sideEffects\":\"None\",\"admissionReviewVersi"
        "ons\":[\"v1\"]}]}",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io \""
        "v\" is invalid: webhooks[0].name: Invalid value: \"A_b.c.\": a"
        " lowercase RFC 1123 subdomain must consist of lower case alpha"
        "numeric characters, '-' or '.', and must start and end with an"
        " alphanumeric character (e.g. 'example.com', regex used for va"
        "lidation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-"
        "9]*[a-z0-9])?)*')"
    },
    {
        "url1", 422,
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v"
        "\"},\"webhooks\":[{\"name\":\"a.b.c\",\"clientConfig\":{\"url"
        "\":\"h/x\"},\"rules\":[{\"apiGroups\":[\"\"],\"apiVersions\":["
        "\"v1\"],\"operations\":[\"CREATE\"],\"resources\":[\"configmap"
        "s\"]}],\"sideEffects\":\"None\",\"admissionReviewVersions\":["
        "\"v1\"]}]}",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io \""
        "v\" is invalid: [webhooks[0].clientConfig.url: Invalid value: "
        "\"\": 'https' is the only allowed URL scheme; desired format: "
        "https://host[/path], webhooks[0].clientConfig.url: Invalid val"
        "ue: \"\": host must be specified; desired format: https://host"
        "[/path]]"
    },
    {
        "url2", 422,
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v"
        "\"},\"webhooks\":[{\"name\":\"a.b.c\",\"clientConfig\":{\"url"
        "\":\"https:/x?\"},\"rules\":[{\"apiGroups\":[\"\"],\"apiVersio"
        "ns\":[\"v1\"],\"operations\":[\"CREATE\"],\"resources\":[\"con"
        "figmaps\"]}],\"sideEffects\":\"None\",\"admissionReviewVersion"
        "s\":[\"v1\"]}]}",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io \""
        "v\" is invalid: webhooks[0].clientConfig.url: Invalid value: "
        "\"\": host must be specified; desired format: https://host[/pa"
        "th]"
    },
    {
        "url3", 422,
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        "\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v"
        "\"},\"webhooks\":[{\"name\":\"a.b.c\",\"clientConfig\":{\"url"
        "\":\"HTTPS://a@b@c/#\"},\"rules\":[{\"apiGroups\":[\"\"],\"api"
        "Versions\":[\"v1\"],\"operations\":[\"CREATE\"],\"resources\":"
        "[\"configmaps\"]}],\"sideEffects\":\"None\",\"admissionReviewV"
        "ersions\":[\"v1\"]}]}",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io \""
        "v\" is invalid: webhooks[0].clientConfig.url: Invalid value: "
        "\"a%40b\": user information is not permitted in the URL"
    },
};


static char *
dump(const json_t *v)
{
    return json_dumps(v, JSON_COMPACT);
}


static void
test_validation_messages(void **state)
{
    size_t       i;
    api_env_t   *env;
    api_resp_t  *r;

    env = api_env_create();

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        r = api_call(env, "POST", AR "/validatingwebhookconfigurations", JSON,
                     cases[i].body, NULL);
        print_message("%s\n", cases[i].name);
        assert_int_equal(r->status, cases[i].code);
        assert_string_equal(api_str(r->json, "message", NULL),
                            cases[i].message);
        api_resp_free(r);
    }

    /* no CEL here: matchConditions are refused */

    r = api_call(env, "POST", AR "/mutatingwebhookconfigurations", JSON,
                 "{\"metadata\":{\"name\":\"m\"},\"webhooks\":[{\"name\":"
                 "\"a.b.c\",\"clientConfig\":{\"url\":\"https://h\"},"
                 "\"sideEffects\":\"None\",\"admissionReviewVersions\":"
                 "[\"v1\"],\"matchConditions\":[{\"name\":\"x\","
                 "\"expression\":\"true\"}]}]}", NULL);
    assert_int_equal(r->status, 422);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "MutatingWebhookConfiguration.admissionregistration."
                        "k8s.io \"m\" is invalid: webhooks[0].matchConditions:"
                        " Forbidden: matchConditions are CEL expressions, "
                        "which this server does not evaluate; remove them");
    api_resp_free(r);

    api_env_destroy(env);
}


static void
test_defaults_and_order(void **state)
{
    char        *s;
    api_env_t   *env;
    api_resp_t  *r;

    env = api_env_create();

    /* fields in any order, defaults missing: answered as upstream */

    r = api_call(env, "POST", AR "/mutatingwebhookconfigurations", JSON,
                 "{\"metadata\":{\"name\":\"m\"},\"webhooks\":[{"
                 "\"admissionReviewVersions\":[\"v1\"],\"sideEffects\":"
                 "\"None\",\"rules\":[{\"resources\":[\"configmaps\"],"
                 "\"operations\":[\"CREATE\"],\"apiVersions\":[\"v1\"],"
                 "\"apiGroups\":[\"\"]}],\"clientConfig\":{\"caBundle\":"
                 "\"eA==\",\"service\":{\"name\":\"s\",\"namespace\":"
                 "\"n\"}},\"name\":\"a.b.c\"}]}", NULL);
    assert_int_equal(r->status, 201);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(r->json, "metadata"),
                         "generation")), 1);

    s = dump(json_object_get(r->json, "webhooks"));
    assert_string_equal(s,
        "[{\"name\":\"a.b.c\",\"clientConfig\":{\"service\":{\"namespace\":"
        "\"n\",\"name\":\"s\",\"port\":443},\"caBundle\":\"eA==\"},"
        "\"rules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":[\"\"],"
        "\"apiVersions\":[\"v1\"],\"resources\":[\"configmaps\"],"
        "\"scope\":\"*\"}],\"failurePolicy\":\"Fail\",\"matchPolicy\":"
        "\"Equivalent\",\"namespaceSelector\":{},\"objectSelector\":{},"
        "\"sideEffects\":\"None\",\"timeoutSeconds\":10,"
        "\"admissionReviewVersions\":[\"v1\"],\"reinvocationPolicy\":"
        "\"Never\"}]");
    free(s);
    api_resp_free(r);

    /* an update that changes nothing keeps the generation */

    r = api_call(env, "PATCH", AR "/mutatingwebhookconfigurations/m",
                 "application/merge-patch+json",
                 "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}", NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(r->json, "metadata"),
                         "generation")), 1);
    api_resp_free(r);

    r = api_call(env, "PATCH", AR "/mutatingwebhookconfigurations/m",
                 "application/json-patch+json",
                 "[{\"op\":\"replace\",\"path\":\"/webhooks/0/"
                 "timeoutSeconds\",\"value\":3}]", NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(r->json, "metadata"),
                         "generation")), 2);
    api_resp_free(r);

    /* kubectl's Table: NAME, WEBHOOKS, AGE */

    r = api_call(env, "GET", AR "/mutatingwebhookconfigurations", NULL,
                 NULL, TABLE);
    assert_int_equal(r->status, 200);
    s = dump(json_object_get(json_array_get(json_object_get(r->json,
                                                            "rows"), 0),
                             "cells"));
    assert_true(strncmp(s, "[\"m\",1,\"", 8) == 0);
    free(s);
    api_resp_free(r);

    api_env_destroy(env);
}


static void
test_protobuf(void **state)
{
    char         *s, *t;
    json_t       *obj, *j0;
    gcp_buf_t     b;
    api_env_t    *env;
    api_resp_t   *r, *j;
    const char   *msg;
    gcp_arena_t  *a;

    env = api_env_create();

    r = api_call(env, "POST", AR "/validatingwebhookconfigurations", JSON,
                 "{\"metadata\":{\"name\":\"v\"},\"webhooks\":[{\"name\":"
                 "\"a.b.c\",\"clientConfig\":{\"url\":\"https://h/x\"},"
                 "\"rules\":[{\"operations\":[\"*\"],\"apiGroups\":[\"*\"],"
                 "\"apiVersions\":[\"*\"],\"resources\":[\"*/*\"],"
                 "\"scope\":\"Namespaced\"}],\"namespaceSelector\":"
                 "{\"matchExpressions\":[{\"key\":\"k\",\"operator\":"
                 "\"In\",\"values\":[\"a\"]}]},\"sideEffects\":"
                 "\"NoneOnDryRun\",\"admissionReviewVersions\":"
                 "[\"v1beta1\",\"v1\"]}]}", NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);

    /* what an informer of client-go gets, decoded, is the JSON object */

    r = api_call(env, "GET", AR "/validatingwebhookconfigurations/v", NULL,
                 NULL, PB);
    j = api_call(env, "GET", AR "/validatingwebhookconfigurations/v", NULL,
                 NULL, JSON);
    assert_int_equal(r->status, 200);
    assert_string_equal(r->content_type, PB);

    a = gcp_arena_create(0);
    assert_int_equal(gcp_protobuf_decode(a, api_env_api(env)->schemas,
                                         r->body, r->len, &obj, &msg),
                     GCP_OK);
    s = dump(obj);
    t = dump(j->json);
    assert_string_equal(s, t);
    free(s);
    free(t);
    j0 = json_incref(j->json);
    gcp_arena_destroy(a);
    api_resp_free(r);
    api_resp_free(j);

    /* and a protobuf body creates one (kubectl's typed clients) */

    a = gcp_arena_create(0);
    gcp_buf_init(&b, a);
    obj = json_pack("{s:s, s:s, s:{s:s}, s:O}", "kind",
                    "ValidatingWebhookConfiguration", "apiVersion",
                    "admissionregistration.k8s.io/v1", "metadata", "name",
                    "v2", "webhooks", json_object_get(j0, "webhooks"));
    assert_int_equal(gcp_protobuf_encode(&b, api_env_api(env)->schemas,
                                         obj), GCP_OK);
    j = api_call_n(env, "POST", AR "/validatingwebhookconfigurations", PB,
                   b.data, b.len, NULL);
    assert_int_equal(j->status, 201);
    s = dump(json_object_get(j->json, "webhooks"));
    t = dump(json_object_get(j0, "webhooks"));
    assert_string_equal(s, t);
    free(s);
    free(t);
    json_decref(obj);
    json_decref(j0);
    api_resp_free(j);
    gcp_arena_destroy(a);

    api_env_destroy(env);
}


static void
stored_done(void *arg, gcp_store_result_t *res)
{
    *(int *) arg = res->rc == GCP_OK ? 1 : -1;
}


/* A configuration stored by another server with matchConditions. */
static void
test_conditions_kept_on_update(void **state)
{
    int                 done;
    api_env_t          *env;
    api_resp_t         *r;
    gcp_arena_t        *a;
    gcp_str_t           key, value;

    static const char  stored[] =
        "{\"kind\":\"ValidatingWebhookConfiguration\",\"apiVersion\":"
        "\"admissionregistration.k8s.io/v1\",\"metadata\":{\"name\":\"c\","
        "\"uid\":\"u\",\"generation\":1,\"creationTimestamp\":"
        "\"2026-01-01T00:00:00Z\"},\"webhooks\":[{\"name\":\"a.b.c\","
        "\"clientConfig\":{\"url\":\"https://h\"},\"sideEffects\":\"None\","
        "\"admissionReviewVersions\":[\"v1\"],\"matchConditions\":[{"
        "\"name\":\"x\",\"expression\":\"true\"}]}]}";

    env = api_env_create();
    a = gcp_arena_create(0);

    key.data = "/registry/admissionregistration.k8s.io/"
               "validatingwebhookconfigurations/c";
    key.len = strlen(key.data);
    value.data = stored;
    value.len = sizeof(stored) - 1;

    done = 0;
    gcp_store_create(api_env_store(env), key, value, a, stored_done, &done);

    while (done == 0) {
        api_spin(env, 10);
    }

    assert_int_equal(done, 1);

    r = api_call(env, "PATCH", AR "/validatingwebhookconfigurations/c",
                 "application/merge-patch+json",
                 "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}", NULL);
    assert_int_equal(r->status, 200);
    api_resp_free(r);

    r = api_call(env, "PATCH", AR "/validatingwebhookconfigurations/c",
                 "application/json-patch+json",
                 "[{\"op\":\"replace\",\"path\":\"/webhooks/0/"
                 "matchConditions/0/expression\",\"value\":\"false\"}]",
                 NULL);
    assert_int_equal(r->status, 422);
    api_resp_free(r);

    gcp_arena_destroy(a);
    api_env_destroy(env);
}


/*
 * A webhook with side effects (only webhooks created through v1beta1 have
 * them): a dry run is refused before it is called; otherwise it is called
 * (and here, unreachable and ignored, lets the write through).
 */
static void
test_side_effects_dry_run(void **state)
{
    int                 done, i;
    api_env_t          *env;
    api_resp_t         *r;
    gcp_arena_t        *a;
    gcp_str_t           key, value;

    static const char  stored[] =
        "{\"kind\":\"ValidatingWebhookConfiguration\",\"apiVersion\":"
        "\"admissionregistration.k8s.io/v1\",\"metadata\":{\"name\":\"s\","
        "\"uid\":\"u\",\"generation\":1,\"creationTimestamp\":"
        "\"2026-01-01T00:00:00Z\"},\"webhooks\":[{\"name\":"
        "\"some.example.com\",\"clientConfig\":{\"url\":"
        "\"https://127.0.0.1:1/x\"},\"rules\":[{\"operations\":[\"*\"],"
        "\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"resources\":"
        "[\"configmaps\"],\"scope\":\"*\"}],\"failurePolicy\":\"Ignore\","
        "\"sideEffects\":\"Some\",\"timeoutSeconds\":2,"
        "\"admissionReviewVersions\":[\"v1\"]}]}";

    env = api_env_create();
    a = gcp_arena_create(0);

    key.data = "/registry/admissionregistration.k8s.io/"
               "validatingwebhookconfigurations/s";
    key.len = strlen(key.data);
    value.data = stored;
    value.len = sizeof(stored) - 1;

    done = 0;
    gcp_store_create(api_env_store(env), key, value, a, stored_done, &done);

    while (done == 0) {
        api_spin(env, 10);
    }

    /* (the workers' copies follow the store: wait for the first) */

    for (i = 0; ; i++) {
        r = api_call(env, "POST",
                     "/api/v1/namespaces/default/configmaps?dryRun=All",
                     JSON, "{\"metadata\":{\"name\":\"c\"}}", NULL);

        if (r->status != 201 || i == 500) {
            break;
        }

        api_resp_free(r);
        api_spin(env, 10);
    }

    assert_int_equal(r->status, 400);
    assert_string_equal(api_str(r->json, "message", NULL),
                        "admission webhook \"some.example.com\" does not "
                        "support dry run");
    api_resp_free(r);

    r = api_call(env, "POST", "/api/v1/namespaces/default/configmaps", JSON,
                 "{\"metadata\":{\"name\":\"c\"}}", NULL);
    assert_int_equal(r->status, 201);
    api_resp_free(r);

    gcp_arena_destroy(a);
    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_validation_messages),
        cmocka_unit_test(test_defaults_and_order),
        cmocka_unit_test(test_protobuf),
        cmocka_unit_test(test_conditions_kept_on_update),
        cmocka_unit_test(test_side_effects_dry_run),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
