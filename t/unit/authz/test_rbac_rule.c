
/*
 * Unit tests: RBAC policy rules (core/authz/gcp_rbac_rule.c): matching as
 * upstream's RuleAllows, Covers, and the escalation message's rule list;
 * and the error aggregation of gcp_rbac.c.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "gcp_rbac.h"


typedef struct {
    gcp_arena_t      *a;
    gcp_rbac_rule_t  *rules;
    size_t            n;
} rules_t;


static void
rules_load(rules_t *r, gcp_arena_t *a, const char *json)
{
    json_t  *v;

    v = json_loads(json, 0, NULL);
    assert_non_null(v);

    r->a = a;
    assert_int_equal(gcp_rbac_rules_parse(a, v, &r->rules, &r->n), GCP_OK);

    json_decref(v);
}


static gcp_authz_attrs_t
res_attrs(const char *verb, const char *group, const char *resource,
    const char *sub, const char *ns, const char *name)
{
    gcp_authz_attrs_t  at;

    memset(&at, 0, sizeof(at));
    at.verb = verb;
    at.resource_request = 1;
    at.group = group;
    at.version = "v1";
    at.resource = resource;
    at.subresource = sub;
    at.ns = ns;
    at.name = name;
    at.path = "";

    return at;
}


static gcp_authz_attrs_t
url_attrs(const char *verb, const char *path)
{
    gcp_authz_attrs_t  at;

    memset(&at, 0, sizeof(at));
    at.verb = verb;
    at.path = path;
    at.group = at.resource = at.subresource = at.ns = at.name = "";

    return at;
}


static int
allows(const rules_t *r, gcp_authz_attrs_t at)
{
    size_t  i;

    for (i = 0; i < r->n; i++) {
        if (gcp_rbac_rule_allows(&r->rules[i], &at)) {
            return 1;
        }
    }

    return 0;
}


static void
test_rule_allows(void **state)
{
    rules_t       r;
    gcp_arena_t  *a = gcp_arena_create(0);

    rules_load(&r, a,
        "[{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],"
        "  \"resources\":[\"configmaps\",\"namespaces/status\"]},"
        " {\"verbs\":[\"*\"],\"apiGroups\":[\"coordination.k8s.io\"],"
        "  \"resources\":[\"leases\"],\"resourceNames\":[\"mine\"]},"
        " {\"verbs\":[\"update\"],\"apiGroups\":[\"*\"],"
        "  \"resources\":[\"*/status\"]},"
        " {\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/healthz\","
        "  \"/apis/*\"]},"
        " 5, {\"verbs\":[7, \"watch\"],\"apiGroups\":[\"\"],"
        "  \"resources\":[\"secrets\"]}]");

    assert_int_equal(r.n, 5);

    /* verbs and resources */

    assert_true(allows(&r, res_attrs("get", "", "configmaps", "", "x", "")));
    assert_true(allows(&r, res_attrs("list", "", "configmaps", "", "", "")));
    assert_false(allows(&r, res_attrs("watch", "", "configmaps", "", "x",
                                      "")));
    assert_false(allows(&r, res_attrs("get", "apps", "configmaps", "", "x",
                                      "")));
    assert_false(allows(&r, res_attrs("get", "", "secrets", "", "x", "")));
    assert_true(allows(&r, res_attrs("watch", "", "secrets", "", "x", "")));

    /* subresources: exact, "*" "/" sub, and not the main resource */

    assert_true(allows(&r, res_attrs("get", "", "namespaces", "status", "",
                                     "default")));
    assert_false(allows(&r, res_attrs("get", "", "namespaces", "", "",
                                      "default")));
    assert_false(allows(&r, res_attrs("get", "", "configmaps", "status",
                                      "x", "")));
    assert_true(allows(&r, res_attrs("update", "apps", "deployments",
                                     "status", "x", "d")));
    assert_false(allows(&r, res_attrs("update", "apps", "deployments",
                                      "scale", "x", "d")));

    /* resourceNames: a named request only */

    assert_true(allows(&r, res_attrs("delete", "coordination.k8s.io",
                                     "leases", "", "x", "mine")));
    assert_false(allows(&r, res_attrs("delete", "coordination.k8s.io",
                                      "leases", "", "x", "other")));
    assert_false(allows(&r, res_attrs("list", "coordination.k8s.io",
                                      "leases", "", "x", "")));

    /* non-resource URLs: exact or prefix with '*'; never a resource rule */

    assert_true(allows(&r, url_attrs("get", "/healthz")));
    assert_false(allows(&r, url_attrs("get", "/healthz/etcd")));
    assert_true(allows(&r, url_attrs("get", "/apis/")));
    assert_true(allows(&r, url_attrs("get", "/apis/rbac.authorization.k8s.io"
                                            "/v1")));
    assert_false(allows(&r, url_attrs("get", "/apis")));
    assert_false(allows(&r, url_attrs("post", "/healthz")));
    assert_false(allows(&r, url_attrs("get", "/api/v1/configmaps")));

    gcp_arena_destroy(a);
}


static void
test_rule_wildcards(void **state)
{
    rules_t       r;
    gcp_arena_t  *a = gcp_arena_create(0);

    rules_load(&r, a,
        "[{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"]},"
        " {\"verbs\":[\"*\"],\"nonResourceURLs\":[\"*\"]}]");

    assert_true(allows(&r, res_attrs("escalate", "rbac.authorization.k8s.io",
                                     "roles", "", "x", "y")));
    assert_true(allows(&r, res_attrs("get", "", "namespaces", "finalize", "",
                                     "x")));
    assert_true(allows(&r, url_attrs("delete", "/anything/at/all")));

    gcp_arena_destroy(a);
}


static const char *
missing_of(gcp_arena_t *a, const char *owner, const char *servant)
{
    size_t                   i, nmissing;
    rules_t                  o, s;
    gcp_rbac_rule_t         *missing;
    const gcp_rbac_rule_t  **own;

    rules_load(&o, a, owner);
    rules_load(&s, a, servant);

    own = gcp_alloc(a, (o.n + 1) * sizeof(gcp_rbac_rule_t *));
    assert_non_null(own);

    for (i = 0; i < o.n; i++) {
        own[i] = &o.rules[i];
    }

    assert_int_equal(gcp_rbac_covers(a, own, o.n, s.rules, s.n, &missing,
                                     &nmissing), GCP_OK);

    if (nmissing == 0) {
        return "";
    }

    return gcp_rbac_describe_missing(a, missing, nmissing);
}


static void
test_rule_covers(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(0);

    /* the rule list of 10-role-create-escalation-denied.http */

    assert_string_equal(
        missing_of(a,
            "[{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],"
            "  \"resources\":[\"configmaps\"]}]",
            "[{\"apiGroups\":[\"\"],\"resources\":[\"secrets\"],"
            "  \"verbs\":[\"get\",\"list\"]},"
            " {\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
            "  \"verbs\":[\"get\",\"delete\"]}]"),
        "{APIGroups:[\"\"], Resources:[\"configmaps\"], Verbs:[\"delete\"]}\n"
        "{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\" "
        "\"list\"]}");

    /* everything held: nothing missing */

    assert_string_equal(
        missing_of(a,
            "[{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"]}]",
            "[{\"apiGroups\":[\"\",\"apps\"],\"resources\":[\"a\",\"b/c\"],"
            "  \"verbs\":[\"get\",\"escalate\"],\"resourceNames\":[\"x\"]}]"),
        "");

    /* resourceNames: owner names must include the servant's; an owner
       limited to names does not cover every name */

    assert_string_equal(
        missing_of(a,
            "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],"
            "  \"resources\":[\"secrets\"],\"resourceNames\":[\"a\",\"b\"]}]",
            "[{\"apiGroups\":[\"\"],\"resources\":[\"secrets\"],"
            "  \"verbs\":[\"get\"],\"resourceNames\":[\"b\",\"c\"]},"
            " {\"apiGroups\":[\"\"],\"resources\":[\"secrets\"],"
            "  \"verbs\":[\"get\"]}]"),
        "{APIGroups:[\"\"], Resources:[\"secrets\"], ResourceNames:[\"c\"], "
        "Verbs:[\"get\"]}\n"
        "{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\"]}");

    /* URLs: a prefix owner covers longer paths; duplicates are listed
       once; verbs of one group/resource are merged in order */

    assert_string_equal(
        missing_of(a,
            "[{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/apis/*\"]}]",
            "[{\"verbs\":[\"get\",\"post\"],"
            "  \"nonResourceURLs\":[\"/apis/x\",\"/metrics\"]},"
            " {\"verbs\":[\"post\"],\"nonResourceURLs\":[\"/metrics\"]},"
            " {\"verbs\":[\"watch\",\"list\"],\"apiGroups\":[\"apps\"],"
            "  \"resources\":[\"deployments\"]},"
            " {\"verbs\":[\"get\"],\"apiGroups\":[\"apps\"],"
            "  \"resources\":[\"deployments\"]}]"),
        "{APIGroups:[\"apps\"], Resources:[\"deployments\"], "
        "Verbs:[\"watch\" \"list\" \"get\"]}\n"
        "{NonResourceURLs:[\"/apis/x\"], Verbs:[\"post\"]}\n"
        "{NonResourceURLs:[\"/metrics\"], Verbs:[\"get\"]}\n"
        "{NonResourceURLs:[\"/metrics\"], Verbs:[\"post\"]}");

    gcp_arena_destroy(a);
}


static void
test_rule_json_equal(void **state)
{
    char         *s;
    json_t       *j;
    rules_t       r;
    gcp_arena_t  *a = gcp_arena_create(0);

    rules_load(&r, a,
        "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],"
        "  \"resources\":[\"configmaps\"],\"resourceNames\":[\"x\"]},"
        " {\"verbs\":[\"get\"],\"apiGroups\":[\"\"],"
        "  \"resources\":[\"configmaps\"],\"resourceNames\":[\"x\"]},"
        " {\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/x\"]}]");

    assert_true(gcp_rbac_rule_equal(&r.rules[0], &r.rules[1]));
    assert_false(gcp_rbac_rule_equal(&r.rules[0], &r.rules[2]));

    j = gcp_rbac_rule_json(&r.rules[0]);
    s = json_dumps(j, JSON_COMPACT);
    assert_string_equal(s, "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],"
                           "\"resources\":[\"configmaps\"],"
                           "\"resourceNames\":[\"x\"]}");
    free(s);
    json_decref(j);

    j = gcp_rbac_rule_json(&r.rules[2]);
    s = json_dumps(j, JSON_COMPACT);
    assert_string_equal(s, "{\"verbs\":[\"get\"],"
                           "\"nonResourceURLs\":[\"/x\"]}");
    free(s);
    json_decref(j);

    gcp_arena_destroy(a);
}


static void
test_aggregate(void **state)
{
    gcp_arena_t  *a = gcp_arena_create(0);

    static const char * const  one[] = { "a \"x\" not found" };
    static const char * const  two[] = { "e1", "e2", "e1" };
    static const char * const  same[] = { "e1", "e1" };

    assert_null(gcp_rbac_aggregate(a, NULL, 0));
    assert_string_equal(gcp_rbac_aggregate(a, one, 1), "a \"x\" not found");
    assert_string_equal(gcp_rbac_aggregate(a, two, 3), "[e1, e2]");
    assert_string_equal(gcp_rbac_aggregate(a, same, 2), "e1");

    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_rule_allows),
        cmocka_unit_test(test_rule_wildcards),
        cmocka_unit_test(test_rule_covers),
        cmocka_unit_test(test_rule_json_equal),
        cmocka_unit_test(test_aggregate),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
