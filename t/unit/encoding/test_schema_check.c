
/*
 * Unit tests: unknown fields and Go decoding errors
 * (core/encoding/gcp_schema_check.c) over the embedded schemas, and the schema
 * look-ups they use.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_schema_check.h"
#include "support_schema.h"


#define CORE  "io.k8s.api.core.v1."
#define META  "io.k8s.apimachinery.pkg.apis.meta.v1."
#define TL    "\"2006-01-02T15:04:05Z07:00\""
#define ML    "\"2006-01-02T15:04:05.000000Z07:00\""


/* A custom resource as a CRD would publish it, and an IntOrString user. */
static const char  test_defs[] =
    "{\"test.v1.Widget\": {\"type\": \"object\", \"properties\": {"
    "  \"apiVersion\": {\"type\": \"string\"},"
    "  \"kind\": {\"type\": \"string\"},"
    "  \"metadata\": {\"type\": \"object\"},"
    "  \"spec\": {\"type\": \"object\", \"properties\": {"
    "    \"size\": {\"type\": \"string\"},"
    "    \"config\": {\"type\": \"object\","
    "               \"x-kubernetes-preserve-unknown-fields\": true},"
    "    \"template\": {\"type\": \"object\","
    "                 \"x-kubernetes-embedded-resource\": true,"
    "                 \"properties\": {\"x\": {\"type\": \"string\"}}}}}}},"
    " \"test.v1.IntOrString\": {\"type\": \"string\","
    "                          \"format\": \"int-or-string\"},"
    " \"test.v1.Svc\": {\"type\": \"object\", \"properties\": {"
    "  \"port\": {\"allOf\": [{\"$ref\": "
    "           \"#/components/schemas/test.v1.IntOrString\"}]},"
    "  \"ports\": {\"type\": \"array\", \"items\": {\"$ref\": "
    "           \"#/components/schemas/test.v1.IntOrString\"}}}}}";


static gcp_schema_set_t  *set;


static int
setup(void **state)
{
    set = schema_set_with(test_defs, sizeof(test_defs) - 1);

    return 0;
}


static int
teardown(void **state)
{
    gcp_schema_set_free(set);

    return 0;
}


static json_t *
load(const char *text)
{
    json_t        *v;
    json_error_t   err;

    v = json_loads(text, JSON_DECODE_ANY, &err);
    if (v == NULL) {
        print_error("bad test JSON %s: %s\n", text, err.text);
    }

    assert_non_null(v);

    return v;
}


typedef struct {
    const char  *def;
    const char  *body;
    const char  *paths;     /* joined with ',' */
} unknown_case_t;


static void
test_unknown_fields(void **state)
{
    char           joined[1024];
    size_t         i, j, n;
    json_t        *obj;
    const char   **paths;
    gcp_arena_t   *a;

    static const unknown_case_t  cases[] = {
        /* 02-cm-create-fieldvalidation-strict */
        { CORE "ConfigMap",
          "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
          "{\"name\":\"cm-unknown\",\"unknownMeta\":1},\"data\":{\"k\":\"v\"},"
          "\"spec\":{\"x\":1}}",
          "metadata.unknownMeta,spec" },
        { CORE "ConfigMap",
          "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
          "{\"name\":\"a\",\"labels\":{\"x\":\"y\"}},\"data\":{\"k\":\"v\"},"
          "\"binaryData\":{\"b\":\"YQ==\"},\"immutable\":true}",
          "" },
        /* case-sensitive names */
        { CORE "ConfigMap",
          "{\"Data\":{},\"metadata\":{\"Name\":\"x\",\"kind\":\"y\"}}",
          "Data,metadata.Name,metadata.kind" },
        /* array items, list maps */
        { CORE "ServiceAccount",
          "{\"secrets\":[{\"name\":\"a\"},{\"name\":\"b\",\"foo\":1}],"
          "\"imagePullSecrets\":[{\"bar\":2}],\"metadata\":"
          "{\"ownerReferences\":[{\"uid\":\"u\",\"junk\":1}]}}",
          "secrets[1].foo,imagePullSecrets[0].bar,"
          "metadata.ownerReferences[0].junk" },
        /* free-form fieldsV1; a wrong type is not descended into */
        { CORE "ConfigMap",
          "{\"metadata\":{\"managedFields\":[{\"fieldsV1\":{\"f:data\":{}},"
          "\"bogus\":1}]},\"data\":{\"x\":{\"y\":1}}}",
          "metadata.managedFields[0].bogus" },
        { CORE "ConfigMap",
          "{\"metadata\":\"x\",\"data\":[{\"a\":1}]}",
          "" },
        { CORE "Namespace",
          "{\"status\":{\"conditions\":[{\"type\":\"A\"},"
          "{\"type\":\"B\",\"bogus\":true}]},\"spec\":{\"x\":1}}",
          "status.conditions[1].bogus,spec.x" },
        /* apiVersion and kind are only known at the top */
        { CORE "Event",
          "{\"involvedObject\":{\"kind\":\"Pod\",\"extra\":1},"
          "\"series\":{\"count\":1,\"apiVersion\":\"v1\"}}",
          "involvedObject.extra,series.apiVersion" },
        /* 09-cr-create-unknown-field-strict */
        { "test.v1.Widget",
          "{\"apiVersion\":\"ref.example.com/v1\",\"kind\":\"Widget\","
          "\"metadata\":{\"name\":\"w-unknown\"},\"spec\":{\"size\":\"medium\","
          "\"bogus\":\"x\",\"config\":{\"free\":\"form\"}},"
          "\"topLevelBogus\":1}",
          "spec.bogus,topLevelBogus" },
        { "test.v1.Widget",
          "{\"spec\":{\"template\":{\"apiVersion\":\"v1\",\"kind\":\"K\","
          "\"metadata\":{},\"x\":\"\",\"y\":1}}}",
          "spec.template.y" },
    };

    a = gcp_arena_create(0);
    assert_non_null(a);

    for (i = 0; i < gcp_nelems(cases); i++) {
        obj = load(cases[i].body);

        assert_int_equal(gcp_schema_unknown_fields(a, set,
                             gcp_schema_get(set, cases[i].def), obj, &paths,
                             &n),
                         GCP_OK);

        joined[0] = '\0';

        for (j = 0; j < n; j++) {
            snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined),
                     "%s%s", j ? "," : "", paths[j]);
        }

        if (strcmp(joined, cases[i].paths) != 0) {
            print_error("case %zu: got \"%s\"\n", i, joined);
        }

        assert_string_equal(joined, cases[i].paths);
        json_decref(obj);
    }

    gcp_arena_destroy(a);
}


static void
test_unknown_limit_and_prune(void **state)
{
    char           key[16];
    size_t         i, n;
    json_t        *obj, *want;
    const char   **paths;
    gcp_arena_t   *a;

    a = gcp_arena_create(0);
    assert_non_null(a);

    /* at most 100, the first ones */
    obj = json_object();

    for (i = 0; i < 150; i++) {
        snprintf(key, sizeof(key), "u%zu", i);
        json_object_set_new(obj, key, json_integer(1));
    }

    assert_int_equal(gcp_schema_unknown_fields(a, set,
                         gcp_schema_get(set, CORE "ConfigMap"), obj, &paths,
                         &n),
                     GCP_OK);
    assert_int_equal(n, GCP_SCHEMA_MAX_UNKNOWN);
    assert_string_equal(paths[0], "u0");
    assert_string_equal(paths[99], "u99");

    assert_int_equal(gcp_schema_prune_unknown(set,
                         gcp_schema_get(set, CORE "ConfigMap"), obj), 150);
    assert_int_equal(json_object_size(obj), 0);
    json_decref(obj);

    /* what a typed decode keeps */
    obj = load("{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\","
               "\"metadata\":{\"name\":\"sa\",\"unknownMeta\":1},"
               "\"secrets\":[{\"name\":\"s\",\"foo\":1}],\"spec\":{}}");
    want = load("{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\","
                "\"metadata\":{\"name\":\"sa\"},"
                "\"secrets\":[{\"name\":\"s\"}]}");

    assert_int_equal(gcp_schema_prune_unknown(set,
                         gcp_schema_get(set, CORE "ServiceAccount"), obj), 3);
    assert_true(json_equal(obj, want));

    assert_int_equal(gcp_schema_unknown_fields(a, set,
                         gcp_schema_get(set, CORE "ServiceAccount"), obj,
                         &paths, &n),
                     GCP_OK);
    assert_int_equal(n, 0);

    json_decref(obj);
    json_decref(want);
    gcp_arena_destroy(a);
}


typedef struct {
    const char  *def;
    const char  *body;
    const char  *msg;       /* NULL: no error */
} type_case_t;


static void
run_type_cases(const type_case_t *cases, size_t ncases)
{
    int            rc;
    size_t         i;
    json_t        *obj;
    const char    *msg;
    gcp_arena_t   *a;

    a = gcp_arena_create(0);
    assert_non_null(a);

    for (i = 0; i < ncases; i++) {
        obj = load(cases[i].body);
        msg = NULL;

        rc = gcp_schema_check_types(a, set, gcp_schema_get(set, cases[i].def),
                                    obj, &msg);

        if ((cases[i].msg == NULL) != (rc == GCP_OK)
            || (msg && cases[i].msg && strcmp(msg, cases[i].msg) != 0))
        {
            print_error("case %zu (%s): rc %d, got \"%s\"\n", i,
                        cases[i].body, rc, msg ? msg : "(none)");
        }

        if (cases[i].msg == NULL) {
            assert_int_equal(rc, GCP_OK);

        } else {
            assert_int_equal(rc, GCP_EBADREQUEST);
            assert_string_equal(msg, cases[i].msg);
        }

        json_decref(obj);
    }

    gcp_arena_destroy(a);
}


#define PFX  "json: cannot unmarshal "


static void
test_type_errors(void **state)
{
    static const type_case_t  cases[] = {
        /* 02-cm-create-wrong-type-field */
        { CORE "ConfigMap",
          "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
          "{\"name\":\"badtype\"},\"data\":{\"k\":5}}",
          PFX "number into Go struct field ConfigMap.data of type string" },
        { CORE "ConfigMap",
          "{\"metadata\":{\"name\":\"a\",\"labels\":{\"a\":\"b\",\"c\":1}}}",
          PFX "number into Go struct field ObjectMeta.metadata.labels of "
          "type string" },
        { CORE "ConfigMap", "{\"metadata\":\"x\"}",
          PFX "string into Go struct field ConfigMap.metadata of type "
          "v1.ObjectMeta" },
        { CORE "ConfigMap", "{\"metadata\":{\"labels\":[]}}",
          PFX "array into Go struct field ObjectMeta.metadata.labels of type "
          "map[string]string" },
        { CORE "ConfigMap", "{\"data\":\"x\"}",
          PFX "string into Go struct field ConfigMap.data of type "
          "map[string]string" },
        { CORE "ConfigMap", "{\"immutable\":\"yes\"}",
          PFX "string into Go struct field ConfigMap.immutable of type bool" },
        { CORE "ConfigMap", "{\"apiVersion\":5}",
          PFX "number into Go struct field ConfigMap.apiVersion of type "
          "string" },
        { CORE "ConfigMap", "{\"binaryData\":{\"k\":5}}",
          PFX "number into Go struct field ConfigMap.binaryData of type "
          "[]uint8" },
        { CORE "ConfigMap", "{\"binaryData\":{\"k\":[1,2,300]}}",
          PFX "number 300 into Go struct field ConfigMap.binaryData of type "
          "uint8" },
        { CORE "ConfigMap", "{\"binaryData\":{\"k\":[0,255,null]}}", NULL },
        { CORE "ConfigMap", "{\"metadata\":{\"generation\":\"5\"}}",
          PFX "string into Go struct field ObjectMeta.metadata.generation of "
          "type int64" },
        { CORE "ConfigMap", "{\"metadata\":{\"generation\":1.5}}",
          PFX "number 1.5 into Go struct field ObjectMeta.metadata.generation "
          "of type int64" },
        { CORE "ConfigMap", "{\"metadata\":{\"generation\":1e30}}",
          PFX "number 1e+30 into Go struct field "
          "ObjectMeta.metadata.generation of type int64" },
        { CORE "ConfigMap",
          "{\"metadata\":{\"generation\":-9223372036854775808,"
          "\"deletionGracePeriodSeconds\":9223372036854775807}}", NULL },
        { CORE "Event", "{\"count\":3000000000}",
          PFX "number 3000000000 into Go struct field Event.count of type "
          "int32" },
        { CORE "Event", "{\"count\":-2147483648,\"series\":{\"count\":"
          "2147483647}}", NULL },
        { CORE "Event", "{\"series\":{\"count\":2147483648}}",
          PFX "number 2147483648 into Go struct field EventSeries.series.count"
          " of type int32" },
        { CORE "ConfigMap", "{\"metadata\":{\"finalizers\":\"x\"}}",
          PFX "string into Go struct field ObjectMeta.metadata.finalizers of "
          "type []string" },
        { CORE "ConfigMap", "{\"metadata\":{\"finalizers\":[\"a\",1]}}",
          PFX "number into Go struct field ObjectMeta.metadata.finalizers of "
          "type string" },
        { CORE "ConfigMap",
          "{\"metadata\":{\"ownerReferences\":[{\"uid\":5}]}}",
          PFX "number into Go struct field "
          "OwnerReference.metadata.ownerReferences.uid of type types.UID" },
        { CORE "ConfigMap", "{\"metadata\":{\"ownerReferences\":{}}}",
          PFX "object into Go struct field ObjectMeta.metadata.ownerReferences"
          " of type []v1.OwnerReference" },
        { CORE "ConfigMap", "{\"metadata\":{\"ownerReferences\":[\"x\"]}}",
          PFX "string into Go struct field ObjectMeta.metadata.ownerReferences"
          " of type v1.OwnerReference" },
        { CORE "ConfigMap",
          "{\"metadata\":{\"ownerReferences\":[{\"controller\":\"true\"}]}}",
          PFX "string into Go struct field "
          "OwnerReference.metadata.ownerReferences.controller of type bool" },
        { CORE "Namespace", "{\"spec\":{\"finalizers\":[1]}}",
          PFX "number into Go struct field NamespaceSpec.spec.finalizers of "
          "type v1.FinalizerName" },
        { CORE "Namespace", "{\"spec\":{\"finalizers\":\"kubernetes\"}}",
          PFX "string into Go struct field NamespaceSpec.spec.finalizers of "
          "type []v1.FinalizerName" },
        { CORE "Namespace", "{\"status\":{\"phase\":1}}",
          PFX "number into Go struct field NamespaceStatus.status.phase of "
          "type v1.NamespacePhase" },
        { CORE "Namespace",
          "{\"status\":{\"conditions\":[{\"type\":\"A\",\"status\":true}]}}",
          PFX "bool into Go struct field "
          "NamespaceCondition.status.conditions.status of type "
          "v1.ConditionStatus" },
        { CORE "Secret", "{\"type\":1}",
          PFX "number into Go struct field Secret.type of type v1.SecretType" },
        { "io.k8s.api.coordination.v1.Lease",
          "{\"spec\":{\"leaseDurationSeconds\":\"15\"}}",
          PFX "string into Go struct field LeaseSpec.spec.leaseDurationSeconds"
          " of type int32" },
        { META "DeleteOptions", "{\"propagationPolicy\":1}",
          PFX "number into Go struct field DeleteOptions.propagationPolicy of "
          "type v1.DeletionPropagation" },
        { META "DeleteOptions", "{\"preconditions\":{\"uid\":1}}",
          PFX "number into Go struct field Preconditions.preconditions.uid of "
          "type types.UID" },
        { META "DeleteOptions", "{\"dryRun\":[\"All\"],\"gracePeriodSeconds\":"
          "0,\"orphanDependents\":null}", NULL },
        /* not an object at all */
        { CORE "ConfigMap", "[]",
          PFX "array into Go value of type v1.ConfigMap" },
        { CORE "ConfigMap", "\"x\"",
          PFX "string into Go value of type v1.ConfigMap" },
        /* null is accepted everywhere; unknown fields are not checked */
        { CORE "ConfigMap",
          "{\"metadata\":null,\"data\":{\"a\":null},\"immutable\":null,"
          "\"spec\":5,\"binaryData\":null}", NULL },
        { CORE "ConfigMap",
          "{\"metadata\":{\"managedFields\":[{\"fieldsV1\":5,\"time\":null}]}}",
          NULL },
        /* the first error in document order */
        { CORE "ConfigMap", "{\"data\":{\"a\":1},\"immutable\":\"x\"}",
          PFX "number into Go struct field ConfigMap.data of type string" },
        { CORE "ConfigMap", "{\"immutable\":\"x\",\"data\":{\"a\":1}}",
          PFX "string into Go struct field ConfigMap.immutable of type bool" },
    };

    run_type_cases(cases, gcp_nelems(cases));
}


static void
test_number_formats(void **state)
{
    static const type_case_t  cases[] = {
        { CORE "Event", "{\"count\":1234567.5}",
          PFX "number 1.2345675e+06 into Go struct field Event.count of type "
          "int32" },
        { CORE "Event", "{\"count\":123456.5}",
          PFX "number 123456.5 into Go struct field Event.count of type "
          "int32" },
        { CORE "Event", "{\"count\":0.00001}",
          PFX "number 1e-05 into Go struct field Event.count of type int32" },
        { CORE "Event", "{\"count\":0.0001}",
          PFX "number 0.0001 into Go struct field Event.count of type int32" },
        { CORE "Event", "{\"count\":-2.5}",
          PFX "number -2.5 into Go struct field Event.count of type int32" },
        { CORE "Event", "{\"count\":100.25}",
          PFX "number 100.25 into Go struct field Event.count of type int32" },
        { CORE "Event", "{\"count\":0.1}",
          PFX "number 0.1 into Go struct field Event.count of type int32" },
        { CORE "Event", "{\"count\":1.7976931348623157e308}",
          PFX "number 1.7976931348623157e+308 into Go struct field "
          "Event.count of type int32" },
    };

    run_type_cases(cases, gcp_nelems(cases));
}


static void
test_base64(void **state)
{
    static const type_case_t  cases[] = {
        { CORE "Secret", "{\"data\":{\"a\":\"YWJj\",\"b\":\"YQ==\",\"c\":"
          "\"YWI=\",\"d\":\"\",\"e\":\"YW\\nJj\\r\\n\"}}", NULL },
        { CORE "Secret", "{\"data\":{\"k\":\"abc\"}}",
          "illegal base64 data at input byte 0" },
        { CORE "Secret", "{\"data\":{\"k\":\"YQ=\"}}",
          "illegal base64 data at input byte 3" },
        { CORE "Secret", "{\"data\":{\"k\":\"YW=j\"}}",
          "illegal base64 data at input byte 2" },
        { CORE "Secret", "{\"data\":{\"k\":\"Y===\"}}",
          "illegal base64 data at input byte 1" },
        { CORE "Secret", "{\"data\":{\"k\":\"YWJj!\"}}",
          "illegal base64 data at input byte 4" },
        { CORE "Secret", "{\"data\":{\"k\":\"YQ==YQ==\"}}",
          "illegal base64 data at input byte 4" },
        { CORE "Secret", "{\"data\":{\"k\":\"YWJjZA\"}}",
          "illegal base64 data at input byte 4" },
        { CORE "Secret", "{\"data\":{\"k\":\"not base64!\"}}",
          "illegal base64 data at input byte 3" },
        /* a base64 error is kept like a type error: the first one wins */
        { CORE "Secret", "{\"data\":{\"k\":\"a\"},\"type\":1}",
          "illegal base64 data at input byte 0" },
        { CORE "Secret", "{\"type\":1,\"data\":{\"k\":\"a\"}}",
          PFX "number into Go struct field Secret.type of type v1.SecretType" },
    };

    run_type_cases(cases, gcp_nelems(cases));
}


static void
test_times(void **state)
{
    static const type_case_t  cases[] = {
        { CORE "ConfigMap",
          "{\"metadata\":{\"creationTimestamp\":\"2024-02-29T23:59:59Z\","
          "\"deletionTimestamp\":\"2024-01-01T00:00:00.5+01:00\"}}", NULL },
        { CORE "ConfigMap", "{\"metadata\":{\"creationTimestamp\":5}}",
          PFX "number into Go struct field "
          "ObjectMeta.metadata.creationTimestamp of type string" },
        { CORE "ConfigMap", "{\"metadata\":{\"creationTimestamp\":{}}}",
          PFX "object into Go struct field "
          "ObjectMeta.metadata.creationTimestamp of type string" },
        /* a time error ends decoding and wins over earlier errors */
        { CORE "ConfigMap",
          "{\"data\":{\"a\":1},\"metadata\":{\"creationTimestamp\":true}}",
          PFX "bool into Go struct field "
          "ObjectMeta.metadata.creationTimestamp of type string" },
        { CORE "ConfigMap", "{\"metadata\":{\"creationTimestamp\":\"abc\"}}",
          "parsing time \"abc\" as " TL ": cannot parse \"abc\" as "
          "\"2006\"" },
        { CORE "ConfigMap",
          "{\"metadata\":{\"creationTimestamp\":\"2024-13-01T00:00:00Z\"}}",
          "parsing time \"2024-13-01T00:00:00Z\": month out of range" },
        { CORE "ConfigMap",
          "{\"metadata\":{\"creationTimestamp\":\"2023-02-29T00:00:00Z\"}}",
          "parsing time \"2023-02-29T00:00:00Z\": day out of range" },
        { CORE "ConfigMap",
          "{\"metadata\":{\"creationTimestamp\":\"2024-01-01 00:00:00Z\"}}",
          "parsing time \"2024-01-01 00:00:00Z\" as " TL ": cannot parse "
          "\" 00:00:00Z\" as \"T\"" },
        { CORE "ConfigMap",
          "{\"metadata\":{\"creationTimestamp\":\"2024-01-01T00:00:00\"}}",
          "parsing time \"2024-01-01T00:00:00\" as " TL ": cannot parse \"\" "
          "as \"Z07:00\"" },
        { CORE "ConfigMap",
          "{\"metadata\":{\"creationTimestamp\":\"2024-01-01T00:00:00Zjunk\"}}",
          "parsing time \"2024-01-01T00:00:00Zjunk\": extra text: \"junk\"" },
        { CORE "ConfigMap",
          "{\"metadata\":{\"creationTimestamp\":\"2024-01-01T25:00:00Z\"}}",
          "parsing time \"2024-01-01T25:00:00Z\": hour out of range" },
        { CORE "ConfigMap",
          "{\"metadata\":{\"creationTimestamp\":\"2024-01-01T1:02:03Z\"}}",
          NULL },
        { CORE "ConfigMap",
          "{\"metadata\":{\"creationTimestamp\":\"2024-01-01T10:2:03Z\"}}",
          "parsing time \"2024-01-01T10:2:03Z\" as " TL ": cannot parse "
          "\"2:03Z\" as \"04\"" },
        { CORE "ConfigMap",
          "{\"metadata\":{\"creationTimestamp\":"
          "\"2024-01-01T00:00:00+25:00\"}}",
          "parsing time \"2024-01-01T00:00:00+25:00\": time zone offset hour "
          "out of range" },
        { CORE "ConfigMap",
          "{\"metadata\":{\"creationTimestamp\":"
          "\"2024-01-01T00:00:00*01:00\"}}",
          "parsing time \"2024-01-01T00:00:00*01:00\" as " TL ": cannot parse "
          "\"*01:00\" as \"Z07:00\"" },
        { CORE "ConfigMap",
          "{\"metadata\":{\"creationTimestamp\":\"24-01-01T00:00:00Z\"}}",
          "parsing time \"24-01-01T00:00:00Z\" as " TL ": cannot parse "
          "\"24-01-01T00:00:00Z\" as \"2006\"" },
        { CORE "ConfigMap",
          "{\"metadata\":{\"creationTimestamp\":"
          "\"2024-01-01T00:00:00\\u00e9\"}}",
          "parsing time \"2024-01-01T00:00:00\\xc3\\xa9\" as " TL ": cannot "
          "parse \"\\xc3\\xa9\" as \"Z07:00\"" },
        /* MicroTime needs exactly six fractional digits */
        { CORE "Event", "{\"eventTime\":\"2024-01-01T00:00:00.123456Z\"}",
          NULL },
        { CORE "Event", "{\"eventTime\":\"2024-01-01T00:00:00Z\"}",
          "parsing time \"2024-01-01T00:00:00Z\" as " ML ": cannot parse "
          "\"Z\" as \".000000\"" },
        { CORE "Event", "{\"eventTime\":\"2024-01-01T00:00:00.123456789Z\"}",
          "parsing time \"2024-01-01T00:00:00.123456789Z\" as " ML ": cannot "
          "parse \"789Z\" as \"Z07:00\"" },
        { "io.k8s.api.coordination.v1.Lease",
          "{\"spec\":{\"renewTime\":\"2024-01-01T00:00:00.000001+02:00\"}}",
          NULL },
        { "io.k8s.api.events.v1.Event",
          "{\"eventTime\":\"2024-01-01T00:00:00.12345Z\"}",
          "parsing time \"2024-01-01T00:00:00.12345Z\" as " ML ": cannot "
          "parse \".12345Z\" as \".000000\"" },
    };

    run_type_cases(cases, gcp_nelems(cases));
}


static void
test_int_or_string(void **state)
{
    static const type_case_t  cases[] = {
        { "test.v1.Svc", "{\"port\":\"http\",\"ports\":[80,\"x\",null]}",
          NULL },
        { "test.v1.Svc", "{\"port\":true}",
          PFX "bool into Go struct field Svc.port of type int32" },
        { "test.v1.Svc", "{\"port\":1.5}",
          PFX "number 1.5 into Go struct field Svc.port of type int32" },
        { "test.v1.Svc", "{\"ports\":[3000000000]}",
          PFX "number 3000000000 into Go struct field Svc.ports of type "
          "int32" },
    };

    run_type_cases(cases, gcp_nelems(cases));
}


static void
test_schema_lookups(void **state)
{
    const json_t  *cm;

    assert_string_equal(gcp_schema_find_gvk(set, "", "v1", "ConfigMap"),
                        CORE "ConfigMap");
    assert_string_equal(gcp_schema_find_gvk(set, "events.k8s.io", "v1",
                                            "EventList"),
                        "io.k8s.api.events.v1.EventList");
    assert_string_equal(gcp_schema_find_gvk(set, "coordination.k8s.io", "v1",
                                            "DeleteOptions"),
                        META "DeleteOptions");
    assert_null(gcp_schema_find_gvk(set, "", "v1", "Pod"));
    assert_null(gcp_schema_find_gvk(set, "apps", "v1", "ConfigMap"));

    cm = gcp_schema_get(set, CORE "ConfigMap");
    assert_string_equal(gcp_schema_def_name(set, cm), CORE "ConfigMap");
    assert_string_equal(gcp_schema_def_name(set,
                            gcp_schema_property(set, cm, "metadata")),
                        META "ObjectMeta");
    assert_null(gcp_schema_def_name(set, gcp_schema_property(set, cm,
                                                             "data")));
    assert_null(gcp_schema_def_name(set, NULL));
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_unknown_fields),
        cmocka_unit_test(test_unknown_limit_and_prune),
        cmocka_unit_test(test_type_errors),
        cmocka_unit_test(test_number_formats),
        cmocka_unit_test(test_base64),
        cmocka_unit_test(test_times),
        cmocka_unit_test(test_int_or_string),
        cmocka_unit_test(test_schema_lookups),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
