
/*
 * Unit tests: the audit policy (core/audit/gcp_audit_policy.c): what
 * kube-apiserver's loader and validation refuse, and which rule decides
 * for a request, as its policy checker matches them.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcp_audit_int.h"


static const char * const  admin_groups[] = {
    "system:masters", "system:authenticated", NULL
};

static const char * const  dev_groups[] = {
    "devs", "system:authenticated", NULL
};

static const gcp_user_t  admin = { "admin", "1", admin_groups, 2, NULL, 0 };
static const gcp_user_t  alice = { "alice", "2", dev_groups, 2, NULL, 0 };


static int
load(const char *text, gcp_audit_policy_t *p, char *err, size_t errlen)
{
    int           rc;
    json_t       *doc;
    json_error_t  jerr;

    doc = json_loads(text, 0, &jerr);
    assert_non_null(doc);

    rc = gcp_audit_policy_load(doc, p, err, errlen);
    json_decref(doc);

    return rc;
}


static void
refused(const char *text, const char *msg)
{
    char                err[512];
    gcp_audit_policy_t  p;

    err[0] = '\0';
    assert_int_equal(load(text, &p, err, sizeof(err)), GCP_EINVALID);
    assert_string_equal(err, msg);
}


static void
test_refused(void **state)
{
    refused("{\"apiVersion\":\"audit.k8s.io/v1beta1\",\"kind\":\"Policy\","
            "\"rules\":[{\"level\":\"None\"}]}",
            "apiVersion \"audit.k8s.io/v1beta1\", kind \"Policy\": expected "
            "an audit.k8s.io/v1 Policy");

    refused("{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\"}",
            "loaded illegal policy with 0 rules");

    refused("{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\","
            "\"rules\":[{\"level\":\"None\"},{}]}",
            "rules[1].level: Required value");

    refused("{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\","
            "\"rules\":[{\"level\":\"Everything\"}]}",
            "rules[0].level: Unsupported value: \"Everything\": supported "
            "values: \"None\", \"Metadata\", \"Request\", "
            "\"RequestResponse\"");

    refused("{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\","
            "\"omitStages\":[\"ResponseStarted\",\"Later\"],"
            "\"rules\":[{\"level\":\"None\"}]}",
            "omitStages[1]: Invalid value: \"Later\": allowed stages are "
            "RequestReceived,ResponseStarted,ResponseComplete,Panic");

    refused("{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\","
            "\"rules\":[{\"level\":\"None\",\"nonResourceURLs\":[\"/a*b\"]}"
            "]}",
            "rules[0].nonResourceURLs[0]: Invalid value: \"/a*b\": "
            "non-resource URL wildcards '*' must be the final character of "
            "the rule");

    refused("{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\","
            "\"rules\":[{\"level\":\"None\",\"nonResourceURLs\":[\"api\"]}"
            "]}",
            "rules[0].nonResourceURLs[0]: Invalid value: \"api\": "
            "non-resource URL rules must begin with a '/' character");

    refused("{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\","
            "\"rules\":[{\"level\":\"None\",\"nonResourceURLs\":[\"/x\"],"
            "\"namespaces\":[\"a\"]}]}",
            "rules[0].nonResourceURLs: Invalid value: rules cannot apply to "
            "both regular resources and non-resource URLs");

    refused("{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\","
            "\"rules\":[{\"level\":\"None\",\"resources\":[{\"group\":"
            "\"rbac.authorization.k8s.io/v1\"}]}]}",
            "rules[0].resources.group: Invalid value: \"rbac.authorization."
            "k8s.io/v1\": a lowercase RFC 1123 subdomain must consist of "
            "lower case alphanumeric characters, '-' or '.', and must start "
            "and end with an alphanumeric character (e.g. 'example.com', "
            "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?"
            "(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");

    refused("{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\","
            "\"rules\":[{\"level\":\"None\",\"resources\":[{\"group\":\"\","
            "\"resourceNames\":[\"x\"]}]}]}",
            "rules[0].resources.resourceNames: Invalid value: using "
            "resourceNames requires at least one resource");

    refused("{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\","
            "\"rules\":[{\"level\":\"None\",\"users\":\"admin\"}]}",
            "rules[0].users: expected a list of strings");
}


/* The level, omitted stages and omitManagedFields for a request. */

static gcp_audit_config_t
judge(const gcp_audit_policy_t *p, const gcp_user_t *u, const char *verb,
    const char *group, const char *resource, const char *sub,
    const char *ns, const char *name, const char *path)
{
    gcp_audit_attrs_t   a;
    gcp_audit_config_t  c;

    memset(&a, 0, sizeof(a));

    a.user = u;
    a.verb = verb;
    a.resource_request = resource != NULL;
    a.group = group ? group : "";
    a.resource = resource ? resource : "";
    a.subresource = sub ? sub : "";
    a.ns = ns ? ns : "";
    a.name = name ? name : "";
    a.path = path ? path : "";

    gcp_audit_policy_eval(p, &a, &c);

    return c;
}


#define level_of(...)  judge(&p, __VA_ARGS__).level
#define level_of_policy(p, verb, group, resource)                            \
    judge(p, &admin, verb, group, resource, NULL, "ns", "x", NULL).level


static void
test_rules(void **state)
{
    char                err[512];
    gcp_audit_policy_t  p;

    assert_int_equal(load(
        "{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\","
        " \"omitStages\":[\"RequestReceived\"],"
        " \"omitManagedFields\":true,"
        " \"rules\":["
        "  {\"level\":\"None\",\"nonResourceURLs\":[\"/healthz*\","
        "   \"/version\"]},"
        "  {\"level\":\"RequestResponse\",\"users\":[\"alice\"],"
        "   \"verbs\":[\"delete\"],\"omitManagedFields\":false},"
        "  {\"level\":\"Request\",\"userGroups\":[\"devs\"],"
        "   \"resources\":[{\"group\":\"\",\"resources\":[\"configmaps\"],"
        "   \"resourceNames\":[\"app\"]}]},"
        "  {\"level\":\"Metadata\",\"resources\":[{\"group\":\"\","
        "   \"resources\":[\"secrets\",\"*/status\"]},"
        "   {\"group\":\"coordination.k8s.io\",\"resources\":[\"leases/*\"]}]"
        "   ,\"omitStages\":[\"ResponseStarted\"]},"
        "  {\"level\":\"None\",\"namespaces\":[\"kube-system\"]},"
        "  {\"level\":\"RequestResponse\",\"resources\":[{\"group\":"
        "   \"rbac.authorization.k8s.io\"}]},"
        "  {\"level\":\"Request\",\"nonResourceURLs\":[\"*\"]},"
        "  {\"level\":\"Metadata\",\"verbs\":[\"get\"]}"
        " ]}", &p, err, sizeof(err)), GCP_OK);

    /* non-resource URLs: prefix and exact */
    assert_int_equal(level_of(&admin, "get", NULL, NULL, NULL, NULL, NULL,
                              "/healthz/etcd"), GCP_AUDIT_NONE);
    assert_int_equal(level_of(&admin, "get", NULL, NULL, NULL, NULL, NULL,
                              "/version"), GCP_AUDIT_NONE);
    assert_int_equal(level_of(&admin, "get", NULL, NULL, NULL, NULL, NULL,
                              "/version/x"), GCP_AUDIT_REQUEST);

    /* users and verbs: alice's deletes, whatever the resource */
    assert_int_equal(level_of(&alice, "delete", "", "secrets", NULL, "ns",
                              "s", NULL), GCP_AUDIT_REQUEST_RESPONSE);
    assert_int_equal(judge(&p, &alice, "delete", "", "secrets", NULL, "ns",
                           "s", NULL).omit_managed, 0);

    /* groups and resourceNames */
    assert_int_equal(level_of(&alice, "get", "", "configmaps", NULL, "ns",
                              "app", NULL), GCP_AUDIT_REQUEST);
    assert_int_equal(level_of(&alice, "get", "", "configmaps", NULL, "ns",
                              "other", NULL), GCP_AUDIT_METADATA);
    assert_int_equal(level_of(&admin, "list", "", "configmaps", NULL, "ns",
                              NULL, NULL), GCP_AUDIT_NONE);

    /* "*" "/status" and "leases/" "*"; stages are the union */
    assert_int_equal(level_of(&admin, "update", "", "namespaces", "status",
                              "x", "x", NULL), GCP_AUDIT_METADATA);
    assert_int_equal(judge(&p, &admin, "update", "", "namespaces", "status",
                           "x", "x", NULL).omit,
                     GCP_AUDIT_RECEIVED | GCP_AUDIT_STARTED);
    assert_int_equal(level_of(&admin, "create", "coordination.k8s.io",
                              "leases", "x", "kube-system", "l", NULL),
                     GCP_AUDIT_METADATA);
    /* "leases/" "*" is the resource itself too, as upstream matches it */
    assert_int_equal(level_of(&admin, "create", "coordination.k8s.io",
                              "leases", NULL, "kube-system", "l", NULL),
                     GCP_AUDIT_METADATA);
    assert_int_equal(level_of(&admin, "create", "coordination.k8s.io",
                              "leasesx", NULL, "kube-system", "l", NULL),
                     GCP_AUDIT_NONE);
    assert_int_equal(level_of(&admin, "create", "", "secrets", NULL, "ns",
                              NULL, NULL), GCP_AUDIT_METADATA);

    /* a namespace; a group without resources is every resource of it */
    assert_int_equal(level_of(&admin, "patch", "", "configmaps", NULL,
                              "kube-system", "c", NULL), GCP_AUDIT_NONE);
    assert_int_equal(level_of(&admin, "patch", "rbac.authorization.k8s.io",
                              "roles", NULL, "ns", "r", NULL),
                     GCP_AUDIT_REQUEST_RESPONSE);
    assert_int_equal(judge(&p, &admin, "patch", "rbac.authorization.k8s.io",
                           "roles", NULL, "ns", "r", NULL).omit_managed, 1);

    /* "*" URLs are no resource rule, and rules without a user */
    /* (unauthenticated requests) still match */
    assert_int_equal(level_of(NULL, "post", NULL, NULL, NULL, NULL, NULL,
                              "/apis"), GCP_AUDIT_REQUEST);
    assert_int_equal(level_of(NULL, "get", "", "pods", NULL, "ns", NULL,
                              NULL), GCP_AUDIT_METADATA);

    /* nothing matches: None, the policy's stages */
    assert_int_equal(level_of(NULL, "list", "", "pods", NULL, "ns", NULL,
                              NULL), GCP_AUDIT_NONE);
    assert_int_equal(judge(&p, NULL, "list", "", "pods", NULL, "ns", NULL,
                           NULL).omit, GCP_AUDIT_RECEIVED);

    gcp_audit_policy_free(&p);
}


/* A policy file as kube-apiserver takes it: YAML (as it is usually */
/* written) or JSON; refused with the file named. */

static gcp_audit_t *
create(const char *text, char *err, size_t errlen)
{
    int               fd;
    char              path[] = "/tmp/gcp-audit-policy-XXXXXX";
    gcp_audit_t      *au;
    gcp_audit_conf_t  conf;

    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t) strlen(text));
    close(fd);

    memset(&conf, 0, sizeof(conf));
    conf.policy_file = path;
    conf.log_path = "/dev/null";

    err[0] = '\0';
    au = gcp_audit_create(&conf, err, errlen);
    unlink(path);

    if (au == NULL) {
        /* the file's name, then the message */
        assert_non_null(strstr(err, path));
    }

    return au;
}


static void
test_policy_files(void **state)
{
    char          err[512];
    gcp_audit_t  *au;

    au = create("# upstream's example, shortened\n"
                "apiVersion: audit.k8s.io/v1\n"
                "kind: Policy\n"
                "omitStages:\n"
                "  - \"RequestReceived\"\n"
                "rules:\n"
                "  - level: RequestResponse\n"
                "    resources:\n"
                "    - group: \"\"\n"
                "      resources: [\"pods\"]\n"
                "  - level: None\n"
                "    users: [\"system:kube-proxy\"]\n"
                "    verbs: [\"watch\"]\n"
                "  - level: Metadata\n"
                "    omitStages: [RequestReceived, ResponseStarted]\n",
                err, sizeof(err));
    assert_non_null(au);
    assert_int_equal(level_of_policy(&au->policy, "get", "", "pods"),
                     GCP_AUDIT_REQUEST_RESPONSE);
    assert_int_equal(level_of_policy(&au->policy, "get", "", "secrets"),
                     GCP_AUDIT_METADATA);
    assert_int_equal(judge(&au->policy, &admin, "get", "", "secrets", NULL,
                           "ns", "s", NULL).omit,
                     GCP_AUDIT_RECEIVED | GCP_AUDIT_STARTED);
    gcp_audit_destroy(au);

    au = create(" {\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\","
                "\"rules\":[{\"level\":\"Request\"}]}", err, sizeof(err));
    assert_non_null(au);
    assert_int_equal(level_of_policy(&au->policy, "get", "", "pods"),
                     GCP_AUDIT_REQUEST);
    gcp_audit_destroy(au);

    /* YAML's errors as kube-apiserver's decoder words them */
    assert_null(create("apiVersion: audit.k8s.io/v1\nkind: Policy\n"
                       "rules:\n- level: None\n  users: [a\n", err,
                       sizeof(err)));
    assert_non_null(strstr(err, "error converting YAML to JSON: yaml: "));

    assert_null(create("- level: None\n", err, sizeof(err)));
    assert_non_null(strstr(err, "is not an object"));

    /* and the policy's own */
    assert_null(create("apiVersion: audit.k8s.io/v1\nkind: Policy\n"
                       "rules:\n- level: Everything\n", err, sizeof(err)));
    assert_non_null(strstr(err, "rules[0].level: Unsupported value: "
                                "\"Everything\""));
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_policy_files),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
