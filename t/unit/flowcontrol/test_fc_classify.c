
/*
 * Unit tests: classifying requests by the FlowSchemas (gcp_fc_config.h):
 * the bootstrap configuration for users, groups, service accounts and
 * anonymous probes, precedence, resource and non-resource rules, dangling
 * schemas, the flow distinguisher and its hash; and the response headers
 * through the API core.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "gcp_apf.h"
#include "gcp_fc_bootstrap.h"
#include "gcp_fc_config.h"
#include "gcp_fc_types.h"
#include "gcp_object.h"
#include "support_api.h"


#define MAX_OBJECTS  40


typedef struct {
    gcp_arena_t  *a;
    gcp_kv_t      kvs[MAX_OBJECTS];
    size_t        n;
} objects_t;


static void
add(objects_t *o, int pl, json_t *obj)
{
    const char  *name;
    gcp_kv_t    *kv = &o->kvs[o->n++];

    name = gcp_meta_str(obj, "name");

    if (gcp_meta_str(obj, "uid")[0] == '\0') {
        gcp_meta_set_str(obj, "uid", gcp_sprintf(o->a, "uid-%s-%s",
                                                 pl ? "pl" : "fs", name));
    }

    kv->key.data = gcp_sprintf(o->a, "/registry/%s/%s",
                               pl ? GCP_FC_STORAGE_PL : GCP_FC_STORAGE_FS,
                               name);
    kv->key.len = strlen(kv->key.data);
    kv->value = gcp_object_encode(o->a, obj, gcp_fc_order);
    kv->mod_revision = 1;

    json_decref(obj);
}


/* The bootstrap objects, uids "uid-pl-NAME" / "uid-fs-NAME". */
static void
bootstrap(objects_t *o)
{
    int      pl, mandatory;
    size_t   i;
    json_t  *obj;

    memset(o, 0, sizeof(objects_t));
    o->a = gcp_arena_create(0);

    for (i = 0; i < gcp_fc_bootstrap_count(); i++) {
        obj = gcp_fc_bootstrap_object(i, &pl, &mandatory);
        add(o, pl, obj);
    }
}


static gcp_user_t *
user(gcp_arena_t *a, const char *name, ...)
{
    va_list      ap;
    const char  *g;
    gcp_user_t  *u;
    const char **groups;

    u = gcp_calloc(a, sizeof(gcp_user_t));
    groups = gcp_calloc(a, 8 * sizeof(const char *));
    u->name = name;
    u->groups = groups;

    va_start(ap, name);

    while ((g = va_arg(ap, const char *)) != NULL) {
        groups[u->ngroups++] = g;
    }

    va_end(ap);

    return u;
}


static void
classify(const gcp_fc_config_t *c, const gcp_user_t *u, int resource,
    const char *verb, const char *group, const char *res, const char *ns,
    const char *path, const char *fs, const char *pl, const char *dist)
{
    gcp_fc_match_t    m;
    gcp_fc_request_t  r;

    memset(&r, 0, sizeof(r));
    r.user = u;
    r.resource = resource;
    r.verb = verb;
    r.group = group;
    r.resource_name = res;
    r.subresource = "";
    r.ns = ns;
    r.path = path;

    assert_int_equal(gcp_fc_classify(c, &r, &m), GCP_OK);
    assert_string_equal(m.flow_schema, fs);
    assert_string_equal(m.level, pl);
    assert_string_equal(m.distinguisher, dist);
    assert_int_equal(m.hash, gcp_fc_flow_hash(fs, dist));
}


static void
test_bootstrap_classification(void **state)
{
    objects_t         o;
    gcp_arena_t      *a;
    gcp_fc_config_t  *c;

    bootstrap(&o);
    a = o.a;

    c = gcp_fc_config_build(o.kvs, o.n);
    assert_non_null(c);

    /* masters: exempt, no distinguisher */
    classify(c, user(a, "admin", "system:masters", "system:authenticated",
                     NULL),
             1, "list", "", "configmaps", "default",
             "/api/v1/namespaces/default/configmaps", "exempt", "exempt",
             "");

    /* anyone: global-default by user */
    classify(c, user(a, "alice", "system:authenticated", NULL),
             1, "get", "", "configmaps", "default",
             "/api/v1/namespaces/default/configmaps/x", "global-default",
             "global-default", "alice");

    /* anonymous probes are exempt, /healthz/NAME too, other paths not */
    classify(c, user(a, "system:anonymous", "system:unauthenticated", NULL),
             0, "get", "", "", "", "/healthz", "probes", "exempt", "");
    classify(c, user(a, "system:anonymous", "system:unauthenticated", NULL),
             0, "get", "", "", "", "/readyz/etcd", "probes", "exempt", "");
    classify(c, user(a, "system:anonymous", "system:unauthenticated", NULL),
             0, "get", "", "", "", "/healthzx", "global-default",
             "global-default", "system:anonymous");
    classify(c, user(a, "system:anonymous", "system:unauthenticated", NULL),
             0, "post", "", "", "", "/healthz", "global-default",
             "global-default", "system:anonymous");

    /* service accounts: kube-system's by namespace, others by user */
    classify(c, user(a, "system:serviceaccount:kube-system:x",
                     "system:serviceaccounts",
                     "system:serviceaccounts:kube-system",
                     "system:authenticated", NULL),
             1, "list", "", "configmaps", "ns1",
             "/api/v1/namespaces/ns1/configmaps",
             "kube-system-service-accounts", "workload-high", "ns1");
    classify(c, user(a, "system:serviceaccount:kube-system:x",
                     "system:serviceaccounts", "system:authenticated", NULL),
             1, "update", "coordination.k8s.io", "leases", "kube-system",
             "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l",
             "system-leader-election", "leader-election",
             "system:serviceaccount:kube-system:x");
    classify(c, user(a, "system:serviceaccount:app:worker",
                     "system:serviceaccounts", "system:authenticated", NULL),
             1, "list", "", "secrets", "app",
             "/api/v1/namespaces/app/secrets", "service-accounts",
             "workload-low", "system:serviceaccount:app:worker");

    /* the nodes' leases go to node-high, their other requests to system */
    classify(c, user(a, "system:node:n1", "system:nodes",
                     "system:authenticated", NULL),
             1, "update", "coordination.k8s.io", "leases", "kube-node-lease",
             "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/"
             "leases/n1", "system-node-high", "node-high", "system:node:n1");
    classify(c, user(a, "system:node:n1", "system:nodes",
                     "system:authenticated", NULL),
             1, "list", "", "configmaps", "", "/api/v1/configmaps",
             "system-nodes", "system", "system:node:n1");

    /* the controller manager: its leases, then everything by namespace */
    classify(c, user(a, "system:kube-controller-manager",
                     "system:authenticated", NULL),
             1, "get", "coordination.k8s.io", "leases", "kube-system",
             "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/k",
             "system-leader-election", "leader-election",
             "system:kube-controller-manager");
    classify(c, user(a, "system:kube-controller-manager",
                     "system:authenticated", NULL),
             1, "delete", "", "namespaces", "gone",
             "/api/v1/namespaces/gone", "kube-controller-manager",
             "workload-high", "gone");

    gcp_fc_config_free(c);
    gcp_arena_destroy(a);
}


static json_t *
fs(const char *name, const char *pl, int prec, const char *dm,
    const char *rules)
{
    return json_pack("{s:s, s:s, s:{s:s}, s:{s:{s:s}, s:i, s:o, s:o}}",
                     "kind", "FlowSchema",
                     "apiVersion", GCP_FC_GROUP "/v1",
                     "metadata", "name", name,
                     "spec", "priorityLevelConfiguration", "name", pl,
                     "matchingPrecedence", prec,
                     "distinguisherMethod",
                     dm ? json_pack("{s:s}", "type", dm) : json_object(),
                     "rules", json_loads(rules, 0, NULL));
}


static void
test_rules(void **state)
{
    objects_t         o;
    gcp_arena_t      *a;
    gcp_fc_config_t  *c;
    gcp_user_t       *bob;

    bootstrap(&o);
    a = o.a;

    /* bob's get of /foo/... and of configmaps/status in "team" */
    add(&o, 0, fs("bob-urls", "workload-high", 50, NULL,
                  "[{\"subjects\":[{\"kind\":\"User\",\"user\":{\"name\":"
                  "\"bob\"}}],\"nonResourceRules\":[{\"verbs\":[\"get\"],"
                  "\"nonResourceURLs\":[\"/foo/*\",\"/bar\"]}]}]"));
    add(&o, 0, fs("bob-status", "system", 60, "ByNamespace",
                  "[{\"subjects\":[{\"kind\":\"User\",\"user\":{\"name\":"
                  "\"*\"}}],\"resourceRules\":[{\"verbs\":[\"*\"],"
                  "\"apiGroups\":[\"\"],\"resources\":"
                  "[\"configmaps/status\"],\"namespaces\":[\"team\"]}]}]"));
    /* a schema whose level does not exist: ignored */
    add(&o, 0, fs("dangling", "nosuch", 10, NULL,
                  "[{\"subjects\":[{\"kind\":\"Group\",\"group\":{\"name\":"
                  "\"*\"}}],\"nonResourceRules\":[{\"verbs\":[\"*\"],"
                  "\"nonResourceURLs\":[\"*\"]}]}]"));

    c = gcp_fc_config_build(o.kvs, o.n);
    assert_non_null(c);

    bob = user(a, "bob", "system:authenticated", NULL);

    classify(c, bob, 0, "get", "", "", "", "/foo/x/y", "bob-urls",
             "workload-high", "");
    classify(c, bob, 0, "get", "", "", "", "/bar/baz", "bob-urls",
             "workload-high", "");
    classify(c, bob, 0, "get", "", "", "", "/foo", "global-default",
             "global-default", "bob");
    classify(c, bob, 0, "put", "", "", "", "/foo/x", "global-default",
             "global-default", "bob");

    {
        gcp_fc_match_t    m;
        gcp_fc_request_t  r;

        memset(&r, 0, sizeof(r));
        r.user = bob;
        r.resource = 1;
        r.verb = "update";
        r.group = "";
        r.resource_name = "configmaps";
        r.subresource = "status";
        r.ns = "team";
        r.path = "/api/v1/namespaces/team/configmaps/c/status";

        assert_int_equal(gcp_fc_classify(c, &r, &m), GCP_OK);
        assert_string_equal(m.flow_schema, "bob-status");
        assert_string_equal(m.distinguisher, "team");
        assert_string_equal(m.flow_schema_uid, "uid-fs-bob-status");
        assert_string_equal(m.level_uid, "uid-pl-system");

        /* not the main resource, not another namespace */
        r.subresource = "";
        assert_int_equal(gcp_fc_classify(c, &r, &m), GCP_OK);
        assert_string_equal(m.flow_schema, "global-default");

        r.subresource = "status";
        r.ns = "other";
        assert_int_equal(gcp_fc_classify(c, &r, &m), GCP_OK);
        assert_string_equal(m.flow_schema, "global-default");
    }

    gcp_fc_config_free(c);
    gcp_arena_destroy(a);
}


/* Without stored objects the mandatory ones, with empty uids, apply. */
static void
test_mandatory_only(void **state)
{
    size_t                       n;
    gcp_arena_t                 *a;
    gcp_fc_config_t             *c;
    const gcp_apf_level_conf_t  *levels;

    a = gcp_arena_create(0);
    c = gcp_fc_config_build(NULL, 0);
    assert_non_null(c);

    n = gcp_fc_config_levels(c, &levels);
    assert_int_equal(n, 2);
    assert_string_equal(levels[0].name, "exempt");
    assert_true(levels[0].exempt);
    assert_string_equal(levels[1].name, "catch-all");
    assert_int_equal(levels[1].queues, 0);
    assert_int_equal(levels[1].shares, 5);

    classify(c, user(a, "alice", "system:authenticated", NULL), 1, "get",
             "", "configmaps", "x", "/api/v1/namespaces/x/configmaps/y",
             "catch-all", "catch-all", "alice");
    classify(c, user(a, "root", "system:masters", NULL), 0, "get", "", "",
             "", "/version", "exempt", "exempt", "");

    gcp_fc_config_free(c);
    gcp_arena_destroy(a);
}


/* Through the API core: every classified response has the headers. */
static void
test_headers(void **state)
{
    api_env_t   *env;
    api_resp_t  *r, *fs, *pl;

    env = api_env_create();

    /* the configuration is loaded from the store as it changes */
    api_spin(env, 10);

    fs = api_call(env, "GET", "/apis/" GCP_FC_GROUP "/v1/flowschemas/"
                  "global-default", NULL, NULL, "application/json");
    pl = api_call(env, "GET", "/apis/" GCP_FC_GROUP "/v1/"
                  "prioritylevelconfigurations/global-default", NULL, NULL,
                  "application/json");

    /* the test's requests are anonymous: global-default */
    r = api_call(env, "GET", "/api/v1/namespaces/nosuch/configmaps/x", NULL,
                 NULL, "application/json");
    assert_int_equal(r->status, 404);
    assert_string_equal(api_header(r, GCP_APF_HEADER_FS),
                        api_str(fs->json, "metadata", "uid", NULL));
    assert_string_equal(api_header(r, GCP_APF_HEADER_PL),
                        api_str(pl->json, "metadata", "uid", NULL));
    api_resp_free(r);

    /* a new worker on the store has the configuration at once */
    api_env_restart(env);

    r = api_call(env, "GET", "/api/v1/namespaces/nosuch/configmaps/x", NULL,
                 NULL, "application/json");
    assert_string_equal(api_header(r, GCP_APF_HEADER_FS),
                        api_str(fs->json, "metadata", "uid", NULL));
    api_resp_free(r);

    api_resp_free(fs);
    api_resp_free(pl);
    api_env_destroy(env);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_bootstrap_classification),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_mandatory_only),
        cmocka_unit_test(test_headers),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
