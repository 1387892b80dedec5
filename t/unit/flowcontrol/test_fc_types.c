
/*
 * Unit tests: flowcontrol.apiserver.k8s.io FlowSchema and
 * PriorityLevelConfiguration through the API core (v1 and v1beta3 from one
 * storage, defaulting, validation with kube-apiserver's messages, /status,
 * Tables), the bootstrap configuration and its ensurer.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "gcp_fc_bootstrap.h"
#include "gcp_fc_types.h"
#include "gcp_fc_validation.h"
#include "support_api.h"


#define FC       "/apis/flowcontrol.apiserver.k8s.io/v1"
#define FCB3     "/apis/flowcontrol.apiserver.k8s.io/v1beta3"
#define JSON     "application/json"
#define TABLE    "application/json;as=Table;v=v1;g=meta.k8s.io"


static api_resp_t *
post(api_env_t *env, const char *path, const char *body)
{
    return api_call(env, "POST", path, JSON, body, JSON);
}


static void
assert_message(api_resp_t *r, int status, const char *message)
{
    assert_int_equal(r->status, status);
    assert_string_equal(api_str(r->json, "message", NULL), message);
}


/* PATCH (merge) of path: the status answered. */
static int
patch(api_env_t *env, const char *path, const char *body, api_resp_t **out)
{
    int          status;
    api_resp_t  *r;

    r = api_call(env, "PATCH", path, "application/merge-patch+json", body,
                 JSON);
    status = r->status;

    if (out) {
        *out = r;

    } else {
        api_resp_free(r);
    }

    return status;
}


#define assert_json  api_assert_json


static void
test_bootstrap_objects(void **state)
{
    json_t      *items;
    api_env_t   *env;
    api_resp_t  *r;

    env = api_env_create();

    r = api_call(env, "GET", FC "/flowschemas", NULL, NULL, JSON);
    assert_int_equal(r->status, 200);
    items = json_object_get(r->json, "items");
    assert_int_equal(json_array_size(items), 13);
    api_resp_free(r);

    r = api_call(env, "GET", FC "/prioritylevelconfigurations", NULL, NULL,
                 JSON);
    assert_int_equal(json_array_size(json_object_get(r->json, "items")), 8);
    api_resp_free(r);

    r = api_call(env, "GET", FC "/prioritylevelconfigurations/global-default",
                 NULL, NULL, JSON);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "metadata", "annotations",
                                GCP_FC_AUTOUPDATE, NULL), "true");
    assert_json(json_object_get(r->json, "spec"),
                "{\"type\":\"Limited\",\"limited\":{\"nominalConcurrencyShares"
                "\":20,\"limitResponse\":{\"type\":\"Queue\",\"queuing\":"
                "{\"queues\":128,\"handSize\":6,\"queueLengthLimit\":50}},"
                "\"lendablePercent\":50}}");
    assert_json(json_object_get(r->json, "status"), "{}");
    api_resp_free(r);

    r = api_call(env, "GET", FC "/flowschemas/probes", NULL, NULL, JSON);
    assert_json(json_object_get(r->json, "spec"),
                "{\"priorityLevelConfiguration\":{\"name\":\"exempt\"},"
                "\"matchingPrecedence\":2,\"rules\":[{\"subjects\":[{\"kind\":"
                "\"Group\",\"group\":{\"name\":\"system:unauthenticated\"}},"
                "{\"kind\":\"Group\",\"group\":{\"name\":"
                "\"system:authenticated\"}}],\"nonResourceRules\":[{\"verbs\":"
                "[\"get\"],\"nonResourceURLs\":[\"/healthz\",\"/readyz\","
                "\"/livez\"]}]}]}");
    api_resp_free(r);

    api_env_destroy(env);
}


static void
test_flowschema_defaults_and_status(void **state)
{
    api_env_t   *env;
    api_resp_t  *r;

    env = api_env_create();

    /* members in another order come back in Go's order, defaulted */
    r = post(env, FC "/flowschemas",
             "{\"metadata\":{\"name\":\"fs1\"},\"spec\":{\"rules\":[{"
             "\"nonResourceRules\":[{\"nonResourceURLs\":[\"/x/*\"],"
             "\"verbs\":[\"get\"]}],\"subjects\":[{\"user\":{\"name\":"
             "\"bob\"},\"kind\":\"User\"}]}],\"priorityLevelConfiguration\":"
             "{\"name\":\"workload-low\"}},\"status\":{\"conditions\":[{"
             "\"type\":\"X\"}]}}");
    assert_int_equal(r->status, 201);
    assert_json(json_object_get(r->json, "spec"),
                "{\"priorityLevelConfiguration\":{\"name\":\"workload-low\"},"
                "\"matchingPrecedence\":1000,\"rules\":[{\"subjects\":[{"
                "\"kind\":\"User\",\"user\":{\"name\":\"bob\"}}],"
                "\"nonResourceRules\":[{\"verbs\":[\"get\"],"
                "\"nonResourceURLs\":[\"/x/*\"]}]}]}");
    assert_json(json_object_get(r->json, "status"), "{}");
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(r->json, "metadata"), "generation")),
                     1);
    api_resp_free(r);

    /* /status changes the status only */
    assert_int_equal(patch(env, FC "/flowschemas/fs1/status",
                           "{\"spec\":{\"matchingPrecedence\":5},\"status\":"
                           "{\"conditions\":[{\"type\":\"Dangling\","
                           "\"status\":\"False\"}]}}", &r), 200);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(r->json, "spec"),
                         "matchingPrecedence")), 1000);
    assert_string_equal(api_str(json_array_get(json_object_get(
                            json_object_get(r->json, "status"),
                            "conditions"), 0), "type", NULL), "Dangling");
    api_resp_free(r);

    /* the main resource keeps the status and counts spec changes */
    assert_int_equal(patch(env, FC "/flowschemas/fs1",
                           "{\"spec\":{\"matchingPrecedence\":5},"
                           "\"status\":null}", &r), 200);
    assert_int_equal(json_array_size(json_object_get(
                         json_object_get(r->json, "status"), "conditions")),
                     1);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(r->json, "metadata"), "generation")),
                     2);
    api_resp_free(r);

    /* a duplicate condition type */
    patch(env, FC "/flowschemas/fs1/status",
          "{\"status\":{\"conditions\":[{\"type\":\"A\"},{\"type\":\"A\"},"
          "{\"status\":\"True\"}]}}", &r);
    assert_message(r, 422, "FlowSchema.flowcontrol.apiserver.k8s.io \"fs1\" "
                   "is invalid: [status.conditions[1].type: Duplicate value: "
                   "\"A\", status.conditions[2].type: Required value: must "
                   "not be empty]");
    api_resp_free(r);

    api_env_destroy(env);
}


static void
test_flowschema_validation(void **state)
{
    api_env_t   *env;
    api_resp_t  *r;

    env = api_env_create();

    r = post(env, FCB3 "/flowschemas",
             "{\"metadata\":{\"name\":\"bad1\"},\"spec\":{"
             "\"matchingPrecedence\":1,\"priorityLevelConfiguration\":{"
             "\"name\":\"\"},\"distinguisherMethod\":{\"type\":\"ByFoo\"},"
             "\"rules\":[{\"subjects\":[],\"resourceRules\":[{\"verbs\":"
             "[\"*\",\"get\"],\"apiGroups\":[],\"resources\":[\"*\",\"x\"],"
             "\"namespaces\":[]}],\"nonResourceRules\":[{\"verbs\":"
             "[\"bogus\"],\"nonResourceURLs\":[\"foo\",\"*\"]}]}]}}");
    assert_message(r, 422,
        "FlowSchema.flowcontrol.apiserver.k8s.io \"bad1\" is invalid: ["
        "spec.matchingPrecedence: Invalid value: 1: only the schema named "
        "'exempt' may have matchingPrecedence 1, "
        "spec.distinguisherMethod.type: Unsupported value: "
        "flowcontrol.FlowDistinguisherMethod{Type:\"ByFoo\"}: supported "
        "values: \"ByNamespace\", \"ByUser\", "
        "spec.priorityLevelConfiguration.name: Required value: must "
        "reference a priority level, spec.rules[0].subjects: Required value: "
        "subjects must contain at least one value, "
        "spec.rules[0].resourceRules[0].verbs: Invalid value: "
        "[]string{\"*\", \"get\"}: if '*' is present, must not specify other "
        "verbs, spec.rules[0].resourceRules[0].apiGroups: Required value: "
        "resource rules must supply at least one api group, "
        "spec.rules[0].resourceRules[0].resources: Invalid value: "
        "[]string{\"*\", \"x\"}: if '*' is present, must not specify other "
        "resources, spec.rules[0].resourceRules[0].namespaces: Required "
        "value: resource rules that are not cluster scoped must supply at "
        "least one namespace, spec.rules[0].nonResourceRules[0].verbs: "
        "Unsupported value: []string{\"bogus\"}: supported values: "
        "\"create\", \"delete\", \"deletecollection\", \"get\", \"list\", "
        "\"patch\", \"proxy\", \"update\", \"watch\", "
        "spec.rules[0].nonResourceRules[0].nonResourceURLs: Invalid value: "
        "[]string{\"foo\", \"*\"}: if '*' is present, must not specify other "
        "non-resource URLs]");
    api_resp_free(r);

    r = post(env, FC "/flowschemas",
             "{\"metadata\":{\"name\":\"bad2\"},\"spec\":{"
             "\"matchingPrecedence\":10001,\"priorityLevelConfiguration\":{"
             "\"name\":\"x\"},\"rules\":[{\"subjects\":[{\"kind\":\"Foo\"},"
             "{\"kind\":\"User\"},{\"kind\":\"Group\",\"group\":{\"name\":"
             "\"\"},\"user\":{\"name\":\"x\"}},{\"kind\":\"ServiceAccount\","
             "\"serviceAccount\":{\"name\":\"*\",\"namespace\":\"\"}}],"
             "\"nonResourceRules\":[{\"verbs\":[\"get\"],"
             "\"nonResourceURLs\":[\"a\",\"/a b\",\"/a//b\",\"/a*\","
             "\"/b/*\"]}]}]}}");
    assert_message(r, 422,
        "FlowSchema.flowcontrol.apiserver.k8s.io \"bad2\" is invalid: ["
        "spec.matchingPrecedence: Invalid value: 10001: must not be greater "
        "than 10000, spec.rules[0].subjects[0].kind: Unsupported value: "
        "\"Foo\": supported values: \"Group\", \"ServiceAccount\", \"User\", "
        "spec.rules[0].subjects[1].user: Required value: user is required "
        "when subject kind is 'User', spec.rules[0].subjects[2].group.name: "
        "Required value, spec.rules[0].subjects[2].user: Forbidden: user is "
        "forbidden when subject kind is not 'User', "
        "spec.rules[0].subjects[3].serviceAccount.namespace: Required value: "
        "must specify namespace for service account, "
        "spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid "
        "value: \"a\": must start with slash, "
        "spec.rules[0].nonResourceRules[0].nonResourceURLs[1]: Invalid "
        "value: \"/a b\": must not contain white-space, "
        "spec.rules[0].nonResourceRules[0].nonResourceURLs[2]: Invalid "
        "value: \"/a//b\": must not contain double slash, "
        "spec.rules[0].nonResourceRules[0].nonResourceURLs[3]: Invalid "
        "value: \"/a*\": wildcard can only do suffix matching]");
    api_resp_free(r);

    /* the mandatory schemas keep their spec */
    r = post(env, FC "/flowschemas",
             "{\"metadata\":{\"name\":\"exempt\"},\"spec\":{"
             "\"matchingPrecedence\":1,\"priorityLevelConfiguration\":{"
             "\"name\":\"exempt\"}}}");
    assert_message(r, 422,
        "FlowSchema.flowcontrol.apiserver.k8s.io \"exempt\" is invalid: "
        "spec: Invalid value: flowcontrol.FlowSchemaSpec{"
        "PriorityLevelConfiguration:flowcontrol."
        "PriorityLevelConfigurationReference{Name:\"exempt\"}, "
        "MatchingPrecedence:1, DistinguisherMethod:(*flowcontrol."
        "FlowDistinguisherMethod)(nil), Rules:[]flowcontrol."
        "PolicyRulesWithSubjects(nil)}: spec of 'exempt' must equal the "
        "fixed value");
    api_resp_free(r);

    assert_int_equal(patch(env, FC "/flowschemas/catch-all",
                           "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}",
                           NULL), 200);
    assert_int_equal(patch(env, FC "/flowschemas/catch-all",
                           "{\"spec\":{\"matchingPrecedence\":9999}}", NULL),
                     422);

    api_env_destroy(env);
}


static void
test_prioritylevel_validation(void **state)
{
    api_env_t   *env;
    api_resp_t  *r;

    env = api_env_create();

    r = post(env, FC "/prioritylevelconfigurations",
             "{\"metadata\":{\"name\":\"p1\"},\"spec\":{\"type\":\"Limited\","
             "\"exempt\":{},\"limited\":{\"nominalConcurrencyShares\":-1,"
             "\"lendablePercent\":101,\"borrowingLimitPercent\":-1,"
             "\"limitResponse\":{\"type\":\"Queue\",\"queuing\":{"
             "\"queues\":128,\"handSize\":100}}}}}");
    assert_message(r, 422,
        "PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io \"p1\" is "
        "invalid: [spec.exempt: Forbidden: must be nil if the type is "
        "Limited, spec.limited.nominalConcurrencyShares: Invalid value: -1: "
        "must be a non-negative integer, "
        "spec.limited.limitResponse.queuing.handSize: Invalid value: 100: "
        "required entropy bits of deckSize 128 and handSize 100 should not "
        "be greater than 60, spec.limited.lendablePercent: Invalid value: "
        "101: must be between 0 and 100, inclusive, "
        "spec.limited.borrowingLimitPercent: Invalid value: -1: if "
        "specified, must be a non-negative integer]");
    api_resp_free(r);

    r = post(env, FC "/prioritylevelconfigurations",
             "{\"metadata\":{\"name\":\"p2\"},\"spec\":{\"type\":\"Limited\","
             "\"limited\":{\"limitResponse\":{\"type\":\"Reject\","
             "\"queuing\":{}}}}}");
    assert_message(r, 422,
        "PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io \"p2\" is "
        "invalid: spec.limited.limitResponse.queuing: Forbidden: must be nil "
        "if limited.limitResponse.type is not Limited");
    api_resp_free(r);

    r = post(env, FC "/prioritylevelconfigurations",
             "{\"metadata\":{\"name\":\"p3\"},\"spec\":{\"type\":\"Exempt\"}}");
    assert_message(r, 422,
        "PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io \"p3\" is "
        "invalid: spec.type: Invalid value: \"Exempt\": type must be 'Exempt' "
        "if and only if name is 'exempt'");
    api_resp_free(r);

    r = post(env, FC "/prioritylevelconfigurations",
             "{\"metadata\":{\"name\":\"p4\"},\"spec\":{\"type\":\"Limited\","
             "\"limited\":{\"limitResponse\":{\"type\":\"Queue\","
             "\"queuing\":{\"queues\":10,\"handSize\":11}}}}}");
    assert_message(r, 422,
        "PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io \"p4\" is "
        "invalid: spec.limited.limitResponse.queuing.handSize: Invalid "
        "value: 11: should not be greater than queues (10)");
    api_resp_free(r);

    /* the exempt level may change its "exempt" member only */
    assert_int_equal(patch(env, FC "/prioritylevelconfigurations/exempt",
                           "{\"spec\":{\"exempt\":{\"lendablePercent\":10}}}",
                           NULL), 200);

    patch(env, FC "/prioritylevelconfigurations/exempt",
          "{\"spec\":{\"type\":\"Limited\",\"exempt\":null,"
          "\"limited\":{\"limitResponse\":{\"type\":\"Reject\"}}}}", &r);
    assert_message(r, 422,
        "PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io \"exempt\" "
        "is invalid: [spec.type: Invalid value: \"Limited\": type must be "
        "'Exempt' if and only if name is 'exempt', spec: Invalid value: "
        "flowcontrol.PriorityLevelConfigurationSpec{Type:\"Limited\", "
        "Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)"
        "(0xc000a2c000), Exempt:(*flowcontrol."
        "ExemptPriorityLevelConfiguration)(nil)}: spec of 'exempt' except "
        "the 'spec.exempt' field must equal the fixed value]");
    api_resp_free(r);

    api_env_destroy(env);
}


static void
test_prioritylevel_versions(void **state)
{
    api_env_t   *env;
    api_resp_t  *r;

    env = api_env_create();

    /* v1beta3: 0 shares mean the default, unless annotated */
    r = post(env, FCB3 "/prioritylevelconfigurations",
             "{\"metadata\":{\"name\":\"p0\"},\"spec\":{\"type\":\"Limited\","
             "\"limited\":{\"nominalConcurrencyShares\":0,\"limitResponse\":"
             "{\"type\":\"Queue\",\"queuing\":{}}}}}");
    assert_int_equal(r->status, 201);
    assert_json(json_object_get(r->json, "spec"),
                "{\"type\":\"Limited\",\"limited\":{\"nominalConcurrencyShares"
                "\":30,\"limitResponse\":{\"type\":\"Queue\",\"queuing\":"
                "{\"queues\":64,\"handSize\":8,\"queueLengthLimit\":50}},"
                "\"lendablePercent\":0}}");
    api_resp_free(r);

    r = post(env, FCB3 "/prioritylevelconfigurations",
             "{\"metadata\":{\"name\":\"jail\",\"annotations\":{"
             "\"" GCP_FC_PRESERVE_ZERO "\":\"true\"}},\"spec\":{\"type\":"
             "\"Limited\",\"limited\":{\"nominalConcurrencyShares\":0,"
             "\"limitResponse\":{\"type\":\"Reject\"}}}}");
    assert_int_equal(r->status, 201);
    assert_string_equal(api_str(r->json, "apiVersion", NULL),
                        "flowcontrol.apiserver.k8s.io/v1beta3");
    assert_string_equal(api_str(r->json, "metadata", "annotations",
                                GCP_FC_PRESERVE_ZERO, NULL), "true");
    api_resp_free(r);

    /* stored without the annotation, which v1beta3 readers get back */
    r = api_call(env, "GET", FC "/prioritylevelconfigurations/jail", NULL,
                 NULL, JSON);
    assert_int_equal(r->status, 200);
    assert_null(json_object_get(json_object_get(r->json, "metadata"),
                                "annotations"));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(
                         json_object_get(r->json, "spec"), "limited"),
                         "nominalConcurrencyShares")), 0);
    api_resp_free(r);

    r = api_call(env, "GET", FCB3 "/prioritylevelconfigurations/jail", NULL,
                 NULL, JSON);
    assert_string_equal(api_str(r->json, "metadata", "annotations",
                                GCP_FC_PRESERVE_ZERO, NULL), "true");
    api_resp_free(r);

    /* v1: absent shares default, 0 stays */
    r = post(env, FC "/prioritylevelconfigurations",
             "{\"metadata\":{\"name\":\"p5\"},\"spec\":{\"type\":\"Limited\","
             "\"limited\":{\"limitResponse\":{\"type\":\"Reject\"}}}}");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(
                         json_object_get(r->json, "spec"), "limited"),
                         "nominalConcurrencyShares")), 30);
    api_resp_free(r);

    r = api_call(env, "GET", FCB3 "/flowschemas/exempt", NULL, NULL, JSON);
    assert_int_equal(r->status, 200);
    assert_string_equal(api_str(r->json, "apiVersion", NULL),
                        "flowcontrol.apiserver.k8s.io/v1beta3");
    api_resp_free(r);

    api_env_destroy(env);
}


static void
test_tables(void **state)
{
    json_t      *rows, *cells;
    api_env_t   *env;
    api_resp_t  *r;

    env = api_env_create();

    /* FlowSchemas by precedence, then name */
    r = api_call(env, "GET", FC "/flowschemas", NULL, NULL, TABLE);
    assert_int_equal(r->status, 200);
    rows = json_object_get(r->json, "rows");
    assert_int_equal(json_array_size(rows), 13);
    assert_string_equal(json_string_value(json_array_get(json_object_get(
                            json_array_get(rows, 0), "cells"), 0)), "exempt");
    assert_string_equal(json_string_value(json_array_get(json_object_get(
                            json_array_get(rows, 1), "cells"), 0)), "probes");
    assert_string_equal(json_string_value(json_array_get(json_object_get(
                            json_array_get(rows, 7), "cells"), 0)),
                        "kube-controller-manager");
    assert_string_equal(json_string_value(json_array_get(json_object_get(
                            json_array_get(rows, 8), "cells"), 0)),
                        "kube-scheduler");
    cells = json_object_get(json_array_get(rows, 12), "cells");
    assert_string_equal(json_string_value(json_array_get(cells, 0)),
                        "catch-all");
    assert_int_equal(json_integer_value(json_array_get(cells, 2)), 10000);
    assert_string_equal(json_string_value(json_array_get(cells, 3)),
                        "ByUser");
    assert_string_equal(json_string_value(json_array_get(cells, 5)), "?");
    assert_string_equal(api_str(json_array_get(json_object_get(r->json,
                            "columnDefinitions"), 5), "name", NULL),
                        "MissingPL");
    api_resp_free(r);

    r = api_call(env, "GET", FC "/prioritylevelconfigurations", NULL, NULL,
                 TABLE);
    rows = json_object_get(r->json, "rows");
    cells = json_object_get(json_array_get(rows, 0), "cells");
    assert_string_equal(json_string_value(json_array_get(cells, 0)),
                        "catch-all");
    assert_int_equal(json_integer_value(json_array_get(cells, 2)), 5);
    assert_string_equal(json_string_value(json_array_get(cells, 3)),
                        "<none>");
    cells = json_object_get(json_array_get(rows, 2), "cells");
    assert_string_equal(json_string_value(json_array_get(cells, 0)),
                        "global-default");
    assert_int_equal(json_integer_value(json_array_get(cells, 3)), 128);
    assert_int_equal(json_integer_value(json_array_get(cells, 4)), 6);
    assert_int_equal(json_integer_value(json_array_get(cells, 5)), 50);
    api_resp_free(r);

    api_env_destroy(env);
}


static json_t *
stored(const char *name, const char *note, int generation, const char *spec)
{
    json_t  *obj;

    obj = json_pack("{s:{s:s, s:i}, s:o}", "metadata", "name", name,
                    "generation", generation, "spec",
                    json_loads(spec, 0, NULL));

    if (note) {
        json_object_set_new(json_object_get(obj, "metadata"), "annotations",
                            json_pack("{s:s}", GCP_FC_AUTOUPDATE, note));
    }

    return obj;
}


/*
 * The ensurer's decision for a stored object of that name, annotation and
 * generation (spec with 1 share), and what the revised object holds.
 */
static void
ensure_case(const char *name, const char *note, int generation,
    gcp_fc_ensure_t decision, const char *revised_note, int revised_shares)
{
    json_t  *cur, *rev;

    cur = stored(name, note, generation,
                 "{\"type\":\"Limited\",\"limited\":{"
                 "\"nominalConcurrencyShares\":1,\"limitResponse\":"
                 "{\"type\":\"Reject\"},\"lendablePercent\":0}}");

    assert_int_equal(gcp_fc_ensure(1, cur, &rev), decision);

    if (decision == GCP_FC_UPDATE) {
        assert_string_equal(api_str(rev, "metadata", "annotations",
                                    GCP_FC_AUTOUPDATE, NULL), revised_note);
        assert_int_equal(json_integer_value(gcp_json_get(rev, "spec",
                             "limited", "nominalConcurrencyShares", NULL)),
                         revised_shares);
        json_decref(rev);
    }

    json_decref(cur);
}


static void
test_ensurer(void **state)
{
    int            pl, mandatory;
    size_t         i;
    json_t        *boot, *rev;
    gcp_arena_t   *a;
    gcp_ferrs_t    errs;

    /* the bootstrap object as stored: nothing to do */
    boot = gcp_fc_bootstrap_find(1, "workload-low", &mandatory);
    assert_non_null(boot);
    assert_false(mandatory);
    assert_int_equal(gcp_fc_ensure(1, boot, &rev), GCP_FC_KEEP);
    json_decref(boot);

    /* changed, annotated "false": kept */
    ensure_case("workload-low", "false", 2, GCP_FC_KEEP, NULL, 0);
    /* annotated "true": its spec comes back */
    ensure_case("workload-low", "true", 2, GCP_FC_UPDATE, "true", 100);
    /* no annotation, changed (generation 2): kept, annotated "false" */
    ensure_case("workload-low", NULL, 2, GCP_FC_UPDATE, "false", 1);
    /* no annotation, generation 1: updated, annotated "true" */
    ensure_case("workload-low", NULL, 1, GCP_FC_UPDATE, "true", 100);
    /* a mandatory object, even annotated "false", gets its spec back */
    ensure_case("catch-all", "false", 3, GCP_FC_UPDATE, "true", 5);
    /* not a bootstrap object: deleted only when annotated "true" */
    ensure_case("mine", "true", 1, GCP_FC_DELETE, NULL, 0);
    ensure_case("mine", NULL, 1, GCP_FC_KEEP, NULL, 0);

    /* every bootstrap object validates */
    for (i = 0; i < gcp_fc_bootstrap_count(); i++) {
        boot = gcp_fc_bootstrap_object(i, &pl, &mandatory);
        a = gcp_arena_create(0);
        gcp_ferrs_init(&errs, a);

        if (pl) {
            gcp_fc_validate_prioritylevel(&errs, boot);

        } else {
            gcp_fc_validate_flowschema(&errs, boot);
        }

        assert_int_equal(errs.n, 0);
        gcp_arena_destroy(a);
        json_decref(boot);
    }
}


static void
test_helpers(void **state)
{
    json_t       *a, *b;
    gcp_arena_t  *ar;

    assert_int_equal(gcp_fc_entropy_bits(128, 6), 42);
    assert_int_equal(gcp_fc_entropy_bits(128, 100), 700);
    assert_int_equal(gcp_fc_entropy_bits(64, 10), 60);

    a = json_loads("{\"x\":[],\"y\":{\"z\":null},\"n\":1}", 0, NULL);
    b = json_loads("{\"n\":1}", 0, NULL);
    assert_true(gcp_fc_semantic_equal(a, b));
    json_object_set_new(b, "n", json_integer(2));
    assert_false(gcp_fc_semantic_equal(a, b));
    json_decref(a);
    json_decref(b);

    ar = gcp_arena_create(0);
    a = json_loads("{\"rules\":[{\"subjects\":[{\"kind\":\"Group\","
                   "\"group\":{\"name\":\"g\"}}],\"resourceRules\":[{\"verbs\":"
                   "[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"],"
                   "\"clusterScope\":true,\"namespaces\":[\"*\"]}]}],"
                   "\"matchingPrecedence\":3,\"priorityLevelConfiguration\":{"
                   "\"name\":\"p\"}}", 0, NULL);
    assert_string_equal(gcp_fc_gostring(ar, "FlowSchemaSpec", a),
        "flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:flowcontrol."
        "PriorityLevelConfigurationReference{Name:\"p\"}, "
        "MatchingPrecedence:3, DistinguisherMethod:(*flowcontrol."
        "FlowDistinguisherMethod)(nil), Rules:[]flowcontrol."
        "PolicyRulesWithSubjects{flowcontrol.PolicyRulesWithSubjects{"
        "Subjects:[]flowcontrol.Subject{flowcontrol.Subject{Kind:\"Group\", "
        "User:(*flowcontrol.UserSubject)(nil), Group:(*flowcontrol."
        "GroupSubject)(0xc000a2c000), ServiceAccount:(*flowcontrol."
        "ServiceAccountSubject)(nil)}}, ResourceRules:[]flowcontrol."
        "ResourcePolicyRule{flowcontrol.ResourcePolicyRule{Verbs:[]string"
        "{\"*\"}, APIGroups:[]string{\"*\"}, Resources:[]string{\"*\"}, "
        "ClusterScope:true, Namespaces:[]string{\"*\"}}}, NonResourceRules:"
        "[]flowcontrol.NonResourcePolicyRule(nil)}}}");

    gcp_fc_go_order(a, "FlowSchemaSpec");
    assert_json(a, "{\"priorityLevelConfiguration\":{\"name\":\"p\"},"
                "\"matchingPrecedence\":3,\"rules\":[{\"subjects\":[{\"kind\":"
                "\"Group\",\"group\":{\"name\":\"g\"}}],\"resourceRules\":[{"
                "\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"],"
                "\"clusterScope\":true,\"namespaces\":[\"*\"]}]}]}");

    json_decref(a);
    gcp_arena_destroy(ar);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_bootstrap_objects),
        cmocka_unit_test(test_flowschema_defaults_and_status),
        cmocka_unit_test(test_flowschema_validation),
        cmocka_unit_test(test_prioritylevel_validation),
        cmocka_unit_test(test_prioritylevel_versions),
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_ensurer),
        cmocka_unit_test(test_helpers),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
