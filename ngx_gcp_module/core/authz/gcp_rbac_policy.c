
/*
 * The bootstrap policy: the ClusterRoles and ClusterRoleBindings
 * kube-apiserver creates at start (plugin/pkg/auth/authorizer/rbac/
 * bootstrappolicy, v1.32) that a generic control plane needs, created when
 * absent:
 *
 *   cluster-admin               everything, bound to group system:masters
 *   system:discovery            discovery, OpenAPI, version and health,
 *                               bound to system:authenticated
 *   system:basic-user           self access and rules reviews, whoami,
 *                               bound to system:authenticated
 *   system:public-info-viewer   version and health, bound to
 *                               system:authenticated and
 *                               system:unauthenticated
 *   system:service-account-issuer-discovery
 *                               the issuer's discovery documents, bound
 *                               to system:serviceaccounts
 *   system:monitoring           /metrics, /metrics/slis and every health
 *                               check, bound to group system:monitoring
 *   admin, edit, view           aggregated from the system:aggregate-to-*
 *                               roles (and each other) by label
 *   system:auth-delegator       TokenReviews and SubjectAccessReviews, for
 *                               servers that delegate authentication and
 *                               authorization here (unbound)
 *   kube-system Role extension-apiserver-authentication-reader
 *                               reads the ConfigMap of that name, bound
 *                               (system::extension-apiserver-authentication-
 *                               reader) to system:kube-controller-manager
 *                               and system:kube-scheduler
 *
 * Rules are written as upstream stores them (lists sorted).  Every object
 * carries the label kubernetes.io/bootstrapping=rbac-defaults and the
 * annotation rbac.authorization.kubernetes.io/autoupdate=true.
 */

#include "gcp_rand.h"
#include "gcp_rbac.h"
#include "gcp_seed.h"
#include "gcp_time.h"
#include "gcp_authz_types.h"
#include "gcp_object.h"


#define L(...)  ((const char * const []) { __VA_ARGS__, NULL })

#define GCP_RBAC_READ   L("get", "list", "watch")
#define GCP_RBAC_WRITE  L("create", "delete", "deletecollection", "patch",    \
                          "update")
#define GCP_RBAC_RW     L("create", "delete", "deletecollection", "get",      \
                          "list", "patch", "update", "watch")

#define GCP_RBAC_AGGREGATE  "rbac.authorization.k8s.io/aggregate-to-"


typedef struct {
    const char * const  *verbs;
    const char * const  *groups;
    const char * const  *resources;
    const char * const  *urls;
} gcp_rbac_boot_rule_t;


typedef struct {
    const char                  *name;
    const char                  *label;         /* aggregate-to-LABEL */
    const char                  *aggregate;     /* selects aggregate-to-X */
    const gcp_rbac_boot_rule_t  *rules;
    size_t                       nrules;
} gcp_rbac_boot_role_t;


typedef struct {
    const char                  *name;          /* also the role's */
    const char * const          *groups;
} gcp_rbac_boot_binding_t;


/* A Role of kube-system: one rule, on named objects, and its binding. */
typedef struct {
    const char                  *name;
    gcp_rbac_boot_rule_t         rule;
    const char * const          *names;         /* resourceNames */
    const char                  *binding;
    const char * const          *users;         /* the binding's */
} gcp_rbac_boot_ns_role_t;


static const gcp_rbac_boot_rule_t  gcp_rbac_cluster_admin[] = {
    { L("*"), L("*"), L("*"), NULL },
    { L("*"), NULL, NULL, L("*") },
};


static const gcp_rbac_boot_rule_t  gcp_rbac_discovery[] = {
    { L("get"), NULL, NULL, L("/api", "/api/*", "/apis", "/apis/*",
      "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz",
      "/version", "/version/") },
};


static const gcp_rbac_boot_rule_t  gcp_rbac_basic_user[] = {
    { L("create"), L("authorization.k8s.io"),
      L("selfsubjectaccessreviews", "selfsubjectrulesreviews"), NULL },
    { L("create"), L("authentication.k8s.io"), L("selfsubjectreviews"),
      NULL },
};


static const gcp_rbac_boot_rule_t  gcp_rbac_public_info_viewer[] = {
    { L("get"), NULL, NULL, L("/healthz", "/livez", "/readyz", "/version",
      "/version/") },
};


static const gcp_rbac_boot_rule_t  gcp_rbac_sa_issuer_discovery[] = {
    { L("get"), NULL, NULL, L("/.well-known/openid-configuration",
      "/.well-known/openid-configuration/", "/openid/v1/jwks",
      "/openid/v1/jwks/") },
};


static const gcp_rbac_boot_rule_t  gcp_rbac_auth_delegator[] = {
    { L("create"), L("authentication.k8s.io"), L("tokenreviews"), NULL },
    { L("create"), L("authorization.k8s.io"), L("subjectaccessreviews"),
      NULL },
};


static const gcp_rbac_boot_rule_t  gcp_rbac_monitoring[] = {
    { L("get"), NULL, NULL, L("/healthz", "/healthz/*", "/livez",
      "/livez/*", "/metrics", "/metrics/slis", "/readyz", "/readyz/*") },
};


static const gcp_rbac_boot_rule_t  gcp_rbac_aggregate_to_admin[] = {
    { L("create"), L("authorization.k8s.io"),
      L("localsubjectaccessreviews"), NULL },
    { GCP_RBAC_RW, L("rbac.authorization.k8s.io"), L("rolebindings",
      "roles"), NULL },
};


static const gcp_rbac_boot_rule_t  gcp_rbac_aggregate_to_edit[] = {
    { GCP_RBAC_READ, L(""), L("pods/attach", "pods/exec",
      "pods/portforward", "pods/proxy", "secrets", "services/proxy"),
      NULL },
    { L("impersonate"), L(""), L("serviceaccounts"), NULL },
    { GCP_RBAC_WRITE, L(""), L("pods", "pods/attach", "pods/exec",
      "pods/portforward", "pods/proxy"), NULL },
    { L("create"), L(""), L("pods/eviction"), NULL },
    { GCP_RBAC_WRITE, L(""), L("configmaps", "events",
      "persistentvolumeclaims", "replicationcontrollers",
      "replicationcontrollers/scale", "secrets", "serviceaccounts",
      "services", "services/proxy"), NULL },
    { L("create"), L(""), L("serviceaccounts/token"), NULL },
    { GCP_RBAC_WRITE, L("apps"), L("daemonsets", "deployments",
      "deployments/rollback", "deployments/scale", "replicasets",
      "replicasets/scale", "statefulsets", "statefulsets/scale"), NULL },
    { GCP_RBAC_WRITE, L("autoscaling"), L("horizontalpodautoscalers"),
      NULL },
    { GCP_RBAC_WRITE, L("batch"), L("cronjobs", "jobs"), NULL },
    { GCP_RBAC_WRITE, L("extensions"), L("daemonsets", "deployments",
      "deployments/rollback", "deployments/scale", "ingresses",
      "networkpolicies", "replicasets", "replicasets/scale",
      "replicationcontrollers/scale"), NULL },
    { GCP_RBAC_WRITE, L("policy"), L("poddisruptionbudgets"), NULL },
    { GCP_RBAC_WRITE, L("networking.k8s.io"), L("ingresses",
      "networkpolicies"), NULL },
    { GCP_RBAC_RW, L("coordination.k8s.io"), L("leases"), NULL },
};


static const gcp_rbac_boot_rule_t  gcp_rbac_aggregate_to_view[] = {
    { GCP_RBAC_READ, L(""), L("configmaps", "endpoints",
      "persistentvolumeclaims", "persistentvolumeclaims/status", "pods",
      "replicationcontrollers", "replicationcontrollers/scale",
      "serviceaccounts", "services", "services/status"), NULL },
    { GCP_RBAC_READ, L(""), L("bindings", "events", "limitranges",
      "namespaces/status", "pods/log", "pods/status",
      "replicationcontrollers/status", "resourcequotas",
      "resourcequotas/status"), NULL },
    { GCP_RBAC_READ, L(""), L("namespaces"), NULL },
    { GCP_RBAC_READ, L("discovery.k8s.io"), L("endpointslices"), NULL },
    { GCP_RBAC_READ, L("apps"), L("controllerrevisions", "daemonsets",
      "daemonsets/status", "deployments", "deployments/scale",
      "deployments/status", "replicasets", "replicasets/scale",
      "replicasets/status", "statefulsets", "statefulsets/scale",
      "statefulsets/status"), NULL },
    { GCP_RBAC_READ, L("autoscaling"), L("horizontalpodautoscalers",
      "horizontalpodautoscalers/status"), NULL },
    { GCP_RBAC_READ, L("batch"), L("cronjobs", "cronjobs/status", "jobs",
      "jobs/status"), NULL },
    { GCP_RBAC_READ, L("extensions"), L("daemonsets", "daemonsets/status",
      "deployments", "deployments/scale", "deployments/status",
      "ingresses", "ingresses/status", "networkpolicies", "replicasets",
      "replicasets/scale", "replicasets/status",
      "replicationcontrollers/scale"), NULL },
    { GCP_RBAC_READ, L("policy"), L("poddisruptionbudgets",
      "poddisruptionbudgets/status"), NULL },
    { GCP_RBAC_READ, L("networking.k8s.io"), L("ingresses",
      "ingresses/status", "networkpolicies"), NULL },
};


#define GCP_RBAC_RULES(r)  r, gcp_nelems(r)

static const gcp_rbac_boot_role_t  gcp_rbac_boot_roles[] = {
    { "cluster-admin", NULL, NULL, GCP_RBAC_RULES(gcp_rbac_cluster_admin) },
    { "system:discovery", NULL, NULL, GCP_RBAC_RULES(gcp_rbac_discovery) },
    { "system:basic-user", NULL, NULL,
      GCP_RBAC_RULES(gcp_rbac_basic_user) },
    { "system:public-info-viewer", NULL, NULL,
      GCP_RBAC_RULES(gcp_rbac_public_info_viewer) },
    { "system:service-account-issuer-discovery", NULL, NULL,
      GCP_RBAC_RULES(gcp_rbac_sa_issuer_discovery) },
    { "system:monitoring", NULL, NULL, GCP_RBAC_RULES(gcp_rbac_monitoring) },
    { "admin", NULL, "admin", NULL, 0 },
    { "edit", "admin", "edit", NULL, 0 },
    { "view", "edit", "view", NULL, 0 },
    { "system:aggregate-to-admin", "admin", NULL,
      GCP_RBAC_RULES(gcp_rbac_aggregate_to_admin) },
    { "system:aggregate-to-edit", "edit", NULL,
      GCP_RBAC_RULES(gcp_rbac_aggregate_to_edit) },
    { "system:aggregate-to-view", "view", NULL,
      GCP_RBAC_RULES(gcp_rbac_aggregate_to_view) },
    { "system:auth-delegator", NULL, NULL,
      GCP_RBAC_RULES(gcp_rbac_auth_delegator) },
};


static const gcp_rbac_boot_ns_role_t  gcp_rbac_boot_system_roles[] = {
    { "extension-apiserver-authentication-reader",
      { GCP_RBAC_READ, L(""), L("configmaps"), NULL },
      L("extension-apiserver-authentication"),
      "system::extension-apiserver-authentication-reader",
      L("system:kube-controller-manager", "system:kube-scheduler") },
};


static const gcp_rbac_boot_binding_t  gcp_rbac_boot_bindings[] = {
    { "cluster-admin", L("system:masters") },
    { "system:discovery", L("system:authenticated") },
    { "system:basic-user", L("system:authenticated") },
    { "system:public-info-viewer",
      L("system:authenticated", "system:unauthenticated") },
    { "system:service-account-issuer-discovery",
      L("system:serviceaccounts") },
    { "system:monitoring", L("system:monitoring") },
};


static json_t *
gcp_rbac_boot_list(const char * const *v)
{
    json_t  *a;

    a = json_array();

    while (a && *v) {
        if (json_array_append_new(a, json_string(*v++)) != 0) {
            json_decref(a);
            return NULL;
        }
    }

    return a;
}


static json_t *
gcp_rbac_boot_rules(const gcp_rbac_boot_role_t *role)
{
    size_t                       i;
    json_t                      *rules, *r;
    const gcp_rbac_boot_rule_t  *br;

    if (role->aggregate) {
        return json_null();
    }

    rules = json_array();

    for (i = 0; rules && i < role->nrules; i++) {
        br = &role->rules[i];

        r = json_pack("{s:o}", "verbs", gcp_rbac_boot_list(br->verbs));

        if (r && br->groups) {
            json_object_set_new(r, "apiGroups",
                                gcp_rbac_boot_list(br->groups));
            json_object_set_new(r, "resources",
                                gcp_rbac_boot_list(br->resources));
        }

        if (r && br->urls) {
            json_object_set_new(r, "nonResourceURLs",
                                gcp_rbac_boot_list(br->urls));
        }

        if (r == NULL || json_array_append_new(rules, r) != 0) {
            json_decref(rules);
            return NULL;
        }
    }

    return rules;
}


/* metadata with the bootstrap label and annotation (and aggregate-to-X) */
static json_t *
gcp_rbac_boot_meta(gcp_arena_t *a, const char *name, const char *label)
{
    char     uid[GCP_UUID_LEN + 1], now[GCP_TIME_BUFSIZE];
    json_t  *meta, *labels;

    gcp_uuid_v4(uid);
    gcp_time_format(now, gcp_time_now().tv_sec);

    meta = json_pack("{s:s, s:s, s:s, s:{s:s}, s:{s:s}}",
                     "name", name, "uid", uid, "creationTimestamp", now,
                     "labels", "kubernetes.io/bootstrapping",
                     "rbac-defaults",
                     "annotations",
                     "rbac.authorization.kubernetes.io/autoupdate", "true");

    if (meta && label) {
        labels = json_object_get(meta, "labels");
        json_object_set_new(labels, gcp_sprintf(a, GCP_RBAC_AGGREGATE "%s",
                                                label),
                            json_string("true"));
    }

    return meta;
}


static json_t *
gcp_rbac_boot_role(gcp_arena_t *a, const gcp_rbac_boot_role_t *role)
{
    json_t  *obj;

    obj = json_pack("{s:s, s:s, s:o, s:o}",
                    "kind", "ClusterRole",
                    "apiVersion", "rbac.authorization.k8s.io/v1",
                    "metadata", gcp_rbac_boot_meta(a, role->name,
                                                   role->label),
                    "rules", gcp_rbac_boot_rules(role));

    if (obj && role->aggregate) {
        json_object_set_new(obj, "aggregationRule",
                            json_pack("{s:[{s:{s:s}}]}",
                                      "clusterRoleSelectors", "matchLabels",
                                      gcp_sprintf(a, GCP_RBAC_AGGREGATE "%s",
                                                  role->aggregate),
                                      "true"));
    }

    return obj;
}


static json_t *
gcp_rbac_boot_binding(gcp_arena_t *a, const gcp_rbac_boot_binding_t *b)
{
    size_t               i;
    json_t              *obj, *subjects;

    subjects = json_array();

    for (i = 0; subjects && b->groups[i]; i++) {
        json_array_append_new(subjects,
                              json_pack("{s:s, s:s, s:s}", "kind", "Group",
                                        "apiGroup", GCP_RBAC_GROUP,
                                        "name", b->groups[i]));
    }

    obj = json_pack("{s:s, s:s, s:o, s:o, s:{s:s, s:s, s:s}}",
                    "kind", "ClusterRoleBinding",
                    "apiVersion", "rbac.authorization.k8s.io/v1",
                    "metadata", gcp_rbac_boot_meta(a, b->name, NULL),
                    "subjects", subjects,
                    "roleRef", "apiGroup", GCP_RBAC_GROUP,
                    "kind", "ClusterRole", "name", b->name);

    return obj;
}


/* A Role of kube-system (binding 0) or its RoleBinding (binding 1). */
static json_t *
gcp_rbac_boot_ns_object(gcp_arena_t *a, const gcp_rbac_boot_ns_role_t *role,
    int binding)
{
    size_t   i;
    json_t  *meta, *subjects, *rule;

    meta = gcp_rbac_boot_meta(a, binding ? role->binding : role->name, NULL);

    if (meta == NULL
        || json_object_set_new(meta, "namespace", json_string("kube-system"))
           != 0)
    {
        json_decref(meta);
        return NULL;
    }

    if (binding) {
        subjects = json_array();

        for (i = 0; subjects && role->users[i]; i++) {
            json_array_append_new(subjects,
                                  json_pack("{s:s, s:s, s:s}", "kind", "User",
                                            "apiGroup", GCP_RBAC_GROUP,
                                            "name", role->users[i]));
        }

        return json_pack("{s:s, s:s, s:o, s:o, s:{s:s, s:s, s:s}}",
                         "kind", "RoleBinding",
                         "apiVersion", "rbac.authorization.k8s.io/v1",
                         "metadata", meta, "subjects", subjects,
                         "roleRef", "apiGroup", GCP_RBAC_GROUP,
                         "kind", "Role", "name", role->name);
    }

    rule = json_pack("{s:o, s:o, s:o, s:o}",
                     "verbs", gcp_rbac_boot_list(role->rule.verbs),
                     "apiGroups", gcp_rbac_boot_list(role->rule.groups),
                     "resources", gcp_rbac_boot_list(role->rule.resources),
                     "resourceNames", gcp_rbac_boot_list(role->names));

    return json_pack("{s:s, s:s, s:o, s:[o]}",
                     "kind", "Role",
                     "apiVersion", "rbac.authorization.k8s.io/v1",
                     "metadata", meta, "rules", rule);
}


/*
 * Bootstrap object i: the cluster roles first, then the cluster role
 * bindings, then each role of kube-system followed by its binding.
 */

static int
gcp_rbac_boot_make(void *data, size_t i, gcp_arena_t *a, gcp_str_t *key,
    gcp_str_t *value)
{
    size_t                          nroles, nbindings;
    json_t                         *obj;
    const gcp_resource_t           *res;
    const gcp_rbac_boot_ns_role_t  *nr;

    nroles = gcp_nelems(gcp_rbac_boot_roles);
    nbindings = gcp_nelems(gcp_rbac_boot_bindings);

    if (i >= nroles + nbindings) {
        i -= nroles + nbindings;
        nr = &gcp_rbac_boot_system_roles[i / 2];
        res = (i % 2) ? &gcp_type_rolebindings : &gcp_type_roles;
        obj = gcp_rbac_boot_ns_object(a, nr, (int) (i % 2));
        *key = gcp_object_key(a, res, "kube-system",
                              (i % 2) ? nr->binding : nr->name);

    } else if (i < nroles) {
        res = &gcp_type_clusterroles;
        obj = gcp_rbac_boot_role(a, &gcp_rbac_boot_roles[i]);
        *key = gcp_object_key(a, res, "", gcp_rbac_boot_roles[i].name);

    } else {
        res = &gcp_type_clusterrolebindings;
        obj = gcp_rbac_boot_binding(a, &gcp_rbac_boot_bindings[i - nroles]);
        *key = gcp_object_key(a, res, "",
                              gcp_rbac_boot_bindings[i - nroles].name);
    }

    if (obj == NULL) {
        return GCP_ENOMEM;
    }

    *value = gcp_object_encode(a, obj, res->strategy->field_order);
    json_decref(obj);

    return (value->data && key->data) ? GCP_OK : GCP_ENOMEM;
}


void
gcp_rbac_bootstrap(gcp_api_t *api, void (*done)(void *arg, int rc),
    void *arg)
{
    gcp_seed(api->store,
             gcp_nelems(gcp_rbac_boot_roles)
             + gcp_nelems(gcp_rbac_boot_bindings)
             + 2 * gcp_nelems(gcp_rbac_boot_system_roles),
             gcp_rbac_boot_make, NULL, done, arg);
}
