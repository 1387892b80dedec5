
/*
 * Unit tests: which webhooks a request reaches (core/admission/
 * gcp_webhook_match.c) as upstream's rules, namespace and object matchers
 * decide: operations, groups, versions, resources and subresources with
 * their wildcards, scopes, matchPolicy Equivalent between core/v1 and
 * events.k8s.io/v1 events, selectors on the namespace's labels (a
 * Namespace's own on its create), on the new or the old object, the
 * exemption of webhook configurations, and dry runs against side effects
 * (the refusal of webhooks with side effects: test_webhookcfg.c).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "gcp_registry.h"
#include "gcp_webhook.h"
#include "support_api.h"


static api_env_t  *env;
static gcp_op_t    op;


static int
setup(void **state)
{
    env = api_env_create();

    memset(&op, 0, sizeof(op));
    op.api = api_env_api(env);
    op.a = gcp_arena_create(0);

    return 0;
}


static int
teardown(void **state)
{
    gcp_arena_destroy(op.a);
    api_env_destroy(env);

    return 0;
}


/* An admission of operation on group/version/resource[/sub] in ns. */
static gcp_admit_t *
admit(gcp_admit_op_t operation, const char *group, const char *resource,
    const char *sub, const char *ns, json_t *obj, const json_t *old)
{
    static gcp_admit_t  ad;

    op.res = gcp_registry_find(op.api->registry, group, "v1", resource);
    assert_non_null(op.res);
    op.sub = sub ? gcp_resource_sub(op.res, sub) : NULL;
    op.ri.ns = ns;

    gcp_admission_init(&ad, &op, operation, obj, old, "x", 0);

    return &ad;
}


/* One webhook with one rule. */
static gcp_webhook_t *
hook(const char *ops, const char *group, const char *version,
    const char *resources, int scope)
{
    static gcp_webhook_t        h;
    static gcp_webhook_rule_t   r;
    static const char          *g[2], *v[2], *res[4];
    static char                 buf[128];
    char                       *p, *save;
    size_t                      n;

    memset(&h, 0, sizeof(h));
    memset(&r, 0, sizeof(r));

    r.ops = (strchr(ops, 'C') ? GCP_WH_OP_CREATE : 0)
            | (strchr(ops, 'U') ? GCP_WH_OP_UPDATE : 0)
            | (strchr(ops, 'D') ? GCP_WH_OP_DELETE : 0);
    g[0] = group;
    v[0] = version;

    snprintf(buf, sizeof(buf), "%s", resources);
    n = 0;

    for (p = strtok_r(buf, " ", &save); p && n < 3;
         p = strtok_r(NULL, " ", &save))
    {
        res[n++] = p;
    }

    res[n] = NULL;

    r.groups = g;
    r.versions = v;
    r.resources = res;
    r.scope = scope;

    h.rules = &r;
    h.nrules = 1;
    h.name = "test.example.com";

    return &h;
}


static int
match(gcp_webhook_t *h, gcp_admit_t *ad, const gcp_resource_t **res)
{
    gcp_webhook_invocation_t  inv;
    int                       m;

    m = gcp_webhook_rules_match(h, ad, &inv);

    if (res) {
        *res = m ? inv.res : NULL;
    }

    return m;
}


static void
test_rules(void **state)
{
    gcp_admit_t  *cm, *nss, *cr;

    cm = admit(GCP_ADMIT_CREATE, "", "configmaps", NULL, "a", NULL, NULL);

    assert_true(match(hook("C", "", "v1", "configmaps", 0), cm, NULL));
    assert_false(match(hook("U", "", "v1", "configmaps", 0), cm, NULL));
    assert_false(match(hook("C", "apps", "v1", "configmaps", 0), cm, NULL));
    assert_false(match(hook("C", "", "v2", "configmaps", 0), cm, NULL));
    assert_true(match(hook("C", "*", "*", "*", 0), cm, NULL));
    assert_true(match(hook("C", "", "v1", "secrets configmaps", 0), cm,
                      NULL));
    assert_true(match(hook("C", "", "v1", "configmaps",
                           GCP_WH_SCOPE_NAMESPACED), cm, NULL));
    assert_false(match(hook("C", "", "v1", "configmaps",
                            GCP_WH_SCOPE_CLUSTER), cm, NULL));

    /* a subresource: matched by RES/SUB and by wildcards on either side, */
    /* not by the bare resource nor by "*" */

    nss = admit(GCP_ADMIT_UPDATE, "", "namespaces", "status", "x", NULL,
                NULL);
    assert_false(match(hook("U", "", "v1", "*", 0), nss, NULL));
    assert_false(match(hook("U", "", "v1", "namespaces", 0), nss, NULL));
    assert_true(match(hook("U", "", "v1", "*/status", 0), nss, NULL));
    assert_true(match(hook("U", "", "v1", "namespaces/*", 0), nss, NULL));
    assert_true(match(hook("U", "", "v1", "*/*", 0), nss, NULL));
    assert_true(match(hook("U", "", "v1", "namespaces/status", 0), nss,
                      NULL));
    assert_false(match(hook("U", "", "v1", "namespaces/finalize", 0), nss,
                       NULL));

    /* Namespace objects are cluster-scoped, whatever their namespace */

    assert_true(match(hook("U", "", "v1", "*/*", GCP_WH_SCOPE_CLUSTER), nss,
                      NULL));
    assert_false(match(hook("U", "", "v1", "*/*",
                            GCP_WH_SCOPE_NAMESPACED), nss, NULL));

    cr = admit(GCP_ADMIT_DELETE, "rbac.authorization.k8s.io", "clusterroles",
               NULL, "", NULL, NULL);
    assert_true(match(hook("D", "rbac.authorization.k8s.io", "v1", "*",
                           GCP_WH_SCOPE_CLUSTER), cr, NULL));
    assert_false(match(hook("D", "rbac.authorization.k8s.io", "v1", "*",
                            GCP_WH_SCOPE_NAMESPACED), cr, NULL));
}


static void
test_equivalent(void **state)
{
    gcp_admit_t           *ev;
    gcp_webhook_t         *h;
    const gcp_resource_t  *res;

    ev = admit(GCP_ADMIT_CREATE, "events.k8s.io", "events", NULL, "a", NULL,
               NULL);

    /* a rule on core/v1 events catches events.k8s.io/v1 ones */

    h = hook("C", "", "v1", "events", 0);
    h->equivalent = 1;
    assert_true(match(h, ev, &res));
    assert_string_equal(res->group, "");
    assert_string_equal(res->kind, "Event");

    h->equivalent = 0;
    assert_false(match(h, ev, NULL));

    /* the request's own resource first */

    h = hook("C", "events.k8s.io", "v1", "events", 0);
    h->equivalent = 1;
    assert_true(match(h, ev, &res));
    assert_string_equal(res->group, "events.k8s.io");
}


static void
test_selectors(void **state)
{
    json_t                *obj, *old, *nsobj;
    const char            *msg;
    gcp_admit_t           *ad;
    gcp_webhook_t         *h;
    gcp_webhook_ns_t       ns;

    obj = json_loads("{\"metadata\":{\"labels\":{\"app\":\"web\"}}}", 0,
                     NULL);
    old = json_loads("{\"metadata\":{\"labels\":{\"app\":\"db\"}}}", 0,
                     NULL);
    nsobj = json_loads("{\"env\":\"prod\"}", 0, NULL);

    h = hook("CU", "", "v1", "configmaps", 0);

    /* objectSelector: the new or the old object */

    assert_int_equal(gcp_label_selector_parse(op.a, "app=db", 6, &h->obj_sel,
                                              &msg), GCP_OK);
    memset(&ns, 0, sizeof(ns));

    ad = admit(GCP_ADMIT_UPDATE, "", "configmaps", NULL, "a", obj, old);
    assert_int_equal(gcp_webhook_selectors_match(h, ad, &ns), 1);

    ad = admit(GCP_ADMIT_CREATE, "", "configmaps", NULL, "a", obj, NULL);
    assert_int_equal(gcp_webhook_selectors_match(h, ad, &ns), 0);

    /* namespaceSelector: the namespace's labels, read when needed */

    h->obj_sel = NULL;
    assert_int_equal(gcp_label_selector_parse(op.a, "env=prod", 8,
                                              &h->ns_sel, &msg), GCP_OK);

    assert_true(gcp_webhook_needs_namespace(h, ad, &ns));
    ns.state = 1;
    ns.labels = nsobj;
    assert_false(gcp_webhook_needs_namespace(h, ad, &ns));
    assert_int_equal(gcp_webhook_selectors_match(h, ad, &ns), 1);

    ns.labels = NULL;
    assert_int_equal(gcp_webhook_selectors_match(h, ad, &ns), 0);

    ns.state = 2;           /* the namespace does not exist */
    assert_int_equal(gcp_webhook_selectors_match(h, ad, &ns), -1);

    /* cluster-scoped objects always match it */

    ad = admit(GCP_ADMIT_CREATE, "rbac.authorization.k8s.io",
               "clusterroles", NULL, "", obj, NULL);
    assert_false(gcp_webhook_needs_namespace(h, ad, &ns));
    assert_int_equal(gcp_webhook_selectors_match(h, ad, &ns), 1);

    /* a Namespace being created: its own labels */

    json_decref(obj);
    obj = json_loads("{\"metadata\":{\"labels\":{\"env\":\"prod\"}}}", 0,
                     NULL);
    memset(&ns, 0, sizeof(ns));
    ad = admit(GCP_ADMIT_CREATE, "", "namespaces", NULL, "", obj, NULL);
    assert_false(gcp_webhook_needs_namespace(h, ad, &ns));
    assert_int_equal(gcp_webhook_selectors_match(h, ad, &ns), 1);

    json_decref(obj);
    json_decref(old);
    json_decref(nsobj);
}


static void
test_exempt_and_dry_run(void **state)
{
    const char     *why;
    gcp_admit_t    *ad;
    gcp_webhook_t  *h;

    ad = admit(GCP_ADMIT_CREATE, "admissionregistration.k8s.io",
               "validatingwebhookconfigurations", NULL, "", NULL, NULL);
    assert_true(gcp_webhook_exempt(ad));

    ad = admit(GCP_ADMIT_CREATE, "", "configmaps", NULL, "a", NULL, NULL);
    assert_false(gcp_webhook_exempt(ad));

    h = hook("C", "", "v1", "configmaps", 0);

    /* not a dry run: anything goes */

    h->side_effects = GCP_WH_SE_SOME;
    assert_int_equal(gcp_webhook_dry_run(ad, h, &why), GCP_OK);

    /* a dry run reaches None and NoneOnDryRun webhooks only */

    ad->dry_run = 1;
    h->side_effects = GCP_WH_SE_NONE;
    assert_int_equal(gcp_webhook_dry_run(ad, h, &why), GCP_OK);

    h->side_effects = GCP_WH_SE_NIL;
    assert_int_equal(gcp_webhook_dry_run(ad, h, &why), GCP_EUNAVAILABLE);
    assert_string_equal(why, "Webhook SideEffects is nil");

}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_equivalent),
        cmocka_unit_test(test_selectors),
        cmocka_unit_test(test_exempt_and_dry_run),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
