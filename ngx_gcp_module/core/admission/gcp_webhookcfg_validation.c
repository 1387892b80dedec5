
/*
 * Validation of webhook configurations, as kube-apiserver's
 * pkg/apis/admissionregistration/validation and
 * k8s.io/apiserver/pkg/util/webhook (see gcp_admissionreg.h).  Values in
 * messages are rendered as field.Error renders the internal types: lists
 * as Go's %#v, enumerations quoted.
 */

#include <strings.h>

#include "gcp_admissionreg.h"
#include "gcp_json.h"
#include "gcp_validation.h"
#include "gcp_validation_selector.h"


#define GCP_WHV_VERSIONS  "v1, v1beta1"


typedef struct {
    gcp_ferrs_t   *errs;
    const char    *path;            /* "webhooks[i]" */
    unsigned       mutating:1;
    unsigned       side_effects_any:1;  /* the stored ones had some */
    unsigned       any_review_version:1;
} gcp_whv_t;


static const char *
gcp_whv_path(gcp_whv_t *v, const char *child)
{
    return gcp_sprintf(v->errs->arena, "%s.%s", v->path, child);
}


static int
gcp_whv_in(const char *s, const char * const *set)
{
    size_t  i;

    for (i = 0; set[i]; i++) {
        if (strcmp(s, set[i]) == 0) {
            return 1;
        }
    }

    return 0;
}


/* "\"A\", \"B\"": a supported-values list as NotSupported shows it. */
static const char *
gcp_whv_supported(gcp_arena_t *a, const char * const *set)
{
    size_t     i;
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    gcp_buf_addstr(&b, "supported values: ");

    for (i = 0; set[i]; i++) {
        gcp_buf_printf(&b, "%s%s", i ? ", " : "", gcp_ferr_quote(a, set[i]));
    }

    return gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);
}


/* An optional enumeration field: absent, or one of set. */
static void
gcp_whv_enum(gcp_whv_t *v, const json_t *obj, const char *field,
    const char * const *set)
{
    json_t       *f;
    const char   *s;
    gcp_arena_t  *a = v->errs->arena;

    f = json_object_get(obj, field);
    if (f == NULL || json_is_null(f)) {
        return;
    }

    s = json_is_string(f) ? json_string_value(f) : "";

    if (!gcp_whv_in(s, set)) {
        gcp_ferrs_add(v->errs, GCP_FERR_NOT_SUPPORTED, gcp_whv_path(v, field),
                      gcp_ferr_quote(a, s), "%s", gcp_whv_supported(a, set));
    }
}


static int
gcp_whv_has_wildcard(const json_t *list)
{
    size_t   i;
    json_t  *e;

    json_array_foreach(list, i, e) {
        if (json_is_string(e) && strcmp(json_string_value(e), "*") == 0) {
            return 1;
        }
    }

    return 0;
}


static const char *
gcp_whv_str(const json_t *v)
{
    return json_is_string(v) ? json_string_value(v) : "";
}


/* validateResources: subresources allowed, wildcards not overlapping. */
static void
gcp_whv_resources(gcp_whv_t *v, const json_t *resources, const char *path)
{
    size_t        i, j, n;
    json_t       *e;
    const char   *rs, *slash, *sub, *other, *oslash;
    int           single, dbl, plain;
    gcp_arena_t  *a = v->errs->arena;

    n = json_array_size(resources);

    if (n == 0) {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, path, NULL, NULL);
    }

    single = 0;
    dbl = 0;
    plain = 0;

    json_array_foreach(resources, i, e) {
        rs = gcp_whv_str(e);

        if (rs[0] == '\0') {
            gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED,
                          gcp_sprintf(a, "%s[%zu]", path, i), NULL, NULL);
            continue;
        }

        dbl |= strcmp(rs, "*/*") == 0;
        single |= strcmp(rs, "*") == 0;

        slash = strchr(rs, '/');

        if (slash == NULL) {
            plain = strcmp(rs, "*") != 0;
            continue;
        }

        sub = slash + 1;

        /* an earlier wildcard (every subresource of RES, or SUB of */
        /* every resource) covers this one */

        for (j = 0; j < i; j++) {
            other = gcp_whv_str(json_array_get(resources, j));
            oslash = strchr(other, '/');

            if (oslash == NULL) {
                continue;
            }

            if (strcmp(oslash + 1, "*") == 0
                && (size_t) (oslash - other) == (size_t) (slash - rs)
                && strncmp(other, rs, (size_t) (slash - rs)) == 0)
            {
                gcp_ferrs_add(v->errs, GCP_FERR_INVALID,
                              gcp_sprintf(a, "%s[%zu]", path, i),
                              gcp_ferr_quote(a, rs),
                              "if '%.*s/*' is present, must not specify %s",
                              (int) (slash - rs), rs, rs);
                break;
            }
        }

        for (j = 0; j < i; j++) {
            other = gcp_whv_str(json_array_get(resources, j));
            oslash = strchr(other, '/');

            if (oslash && oslash == other + 1 && other[0] == '*'
                && strcmp(oslash + 1, sub) == 0)
            {
                gcp_ferrs_add(v->errs, GCP_FERR_INVALID,
                              gcp_sprintf(a, "%s[%zu]", path, i),
                              gcp_ferr_quote(a, rs),
                              "if '*/%s' is present, must not specify %s",
                              sub, rs);
                break;
            }
        }
    }

    if (n > 1 && dbl) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, path,
                      gcp_go_strings(a, resources),
                      "if '*/*' is present, must not specify other "
                      "resources");
    }

    if (single && plain) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, path,
                      gcp_go_strings(a, resources),
                      "if '*' is present, must not specify other resources "
                      "without subresources");
    }
}


/* validateRuleWithOperations, then validateRule. */
static void
gcp_whv_rule(gcp_whv_t *v, const json_t *rule, const char *path)
{
    size_t        i;
    json_t       *ops, *groups, *versions, *e;
    const char   *f;
    gcp_arena_t  *a = v->errs->arena;

    static const char * const  operations[] = {
        "*", "CONNECT", "CREATE", "DELETE", "UPDATE", NULL
    };

    static const char * const  scopes[] = {
        "*", "Cluster", "Namespaced", NULL
    };

    ops = json_object_get(rule, "operations");
    f = gcp_sprintf(a, "%s.operations", path);

    if (json_array_size(ops) == 0) {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, f, NULL, NULL);
    }

    if (json_array_size(ops) > 1 && gcp_whv_has_wildcard(ops)) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, f,
                      gcp_go_slice(a, "admissionregistration.OperationType",
                                   ops),
                      "if '*' is present, must not specify other operations");
    }

    json_array_foreach(ops, i, e) {
        if (!gcp_whv_in(gcp_whv_str(e), operations)) {
            gcp_ferrs_add(v->errs, GCP_FERR_NOT_SUPPORTED,
                          gcp_sprintf(a, "%s[%zu]", f, i),
                          gcp_ferr_quote(a, gcp_whv_str(e)), "%s",
                          gcp_whv_supported(a, operations));
        }
    }

    groups = json_object_get(rule, "apiGroups");
    f = gcp_sprintf(a, "%s.apiGroups", path);

    if (json_array_size(groups) == 0) {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, f, NULL, NULL);
    }

    if (json_array_size(groups) > 1 && gcp_whv_has_wildcard(groups)) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, f,
                      gcp_go_strings(a, groups),
                      "if '*' is present, must not specify other API "
                      "groups");
    }

    versions = json_object_get(rule, "apiVersions");
    f = gcp_sprintf(a, "%s.apiVersions", path);

    if (json_array_size(versions) == 0) {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, f, NULL, NULL);
    }

    if (json_array_size(versions) > 1 && gcp_whv_has_wildcard(versions)) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, f,
                      gcp_go_strings(a, versions),
                      "if '*' is present, must not specify other API "
                      "versions");
    }

    json_array_foreach(versions, i, e) {
        if (gcp_whv_str(e)[0] == '\0') {
            gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED,
                          gcp_sprintf(a, "%s[%zu]", f, i), NULL, NULL);
        }
    }

    gcp_whv_resources(v, json_object_get(rule, "resources"),
                      gcp_sprintf(a, "%s.resources", path));

    e = json_object_get(rule, "scope");

    if (e && !json_is_null(e) && !gcp_whv_in(gcp_whv_str(e), scopes)) {
        gcp_ferrs_add(v->errs, GCP_FERR_NOT_SUPPORTED,
                      gcp_sprintf(a, "%s.scope", path),
                      gcp_ferr_quote(a, gcp_whv_str(e)), "%s",
                      gcp_whv_supported(a, scopes));
    }
}


/* utilvalidation.IsFullyQualifiedName (a trailing dot is not valid) */
static void
gcp_whv_fqdn(gcp_whv_t *v, const char *name)
{
    size_t        i, len, dots;
    const char   *f;
    gcp_buf_t     b;
    gcp_msgs_t    m;
    gcp_arena_t  *a = v->errs->arena;

    f = gcp_whv_path(v, "name");
    len = strlen(name);

    if (len == 0) {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, f, NULL, NULL);
        return;
    }

    if (gcp_is_dns1123_subdomain(name, len, &m)) {
        gcp_buf_init(&b, a);

        for (i = 0; i < m.n; i++) {
            gcp_buf_printf(&b, "%s%s", i ? "," : "", m.msg[i]);
        }

        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, f, gcp_ferr_quote(a, name),
                      "%s", gcp_buf_cstr(&b));
        return;
    }

    dots = 0;

    for (i = 0; i < len; i++) {
        dots += name[i] == '.';
    }

    if (dots < 2) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, f, gcp_ferr_quote(a, name),
                      "should be a domain with at least three segments "
                      "separated by dots");
    }
}


/* validateAdmissionReviewVersions */
static void
gcp_whv_versions(gcp_whv_t *v, const json_t *versions)
{
    size_t        i, j;
    int           known;
    json_t       *e;
    const char   *f, *s;
    gcp_msgs_t    m;
    gcp_arena_t  *a = v->errs->arena;

    f = gcp_whv_path(v, "admissionReviewVersions");

    if (json_array_size(versions) == 0) {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, f, NULL,
                      "must specify one of " GCP_WHV_VERSIONS);
        return;
    }

    known = 0;

    json_array_foreach(versions, i, e) {
        s = gcp_whv_str(e);

        for (j = 0; j < i; j++) {
            if (strcmp(gcp_whv_str(json_array_get(versions, j)), s) == 0) {
                break;
            }
        }

        if (j < i) {
            gcp_ferrs_add(v->errs, GCP_FERR_INVALID,
                          gcp_sprintf(a, "%s[%zu]", f, i),
                          gcp_ferr_quote(a, s), "duplicate version");
            continue;
        }

        gcp_is_dns1035_label(s, strlen(s), &m);
        gcp_ferrs_add_msgs(v->errs, gcp_sprintf(a, "%s[%zu]", f, i), s,
                           strlen(s), &m);

        known |= strcmp(s, "v1") == 0 || strcmp(s, "v1beta1") == 0;
    }

    if (!known && !v->any_review_version) {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID, f,
                      gcp_go_strings(a, versions),
                      "must include at least one of " GCP_WHV_VERSIONS);
    }
}


static void
gcp_whv_webhook(gcp_whv_t *v, const json_t *hook, int ignore_conditions)
{
    size_t        i;
    json_t       *rule, *cc, *url, *svc, *se, *t, *mc;
    const char   *f, *s;
    gcp_arena_t  *a = v->errs->arena;

    static const char * const  failure[] = { "Fail", "Ignore", NULL };
    static const char * const  match[] = { "Equivalent", "Exact", NULL };
    static const char * const  reinvoke[] = { "IfNeeded", "Never", NULL };
    static const char * const  none[] = { "None", "NoneOnDryRun", NULL };
    static const char * const  any[] = {
        "None", "NoneOnDryRun", "Some", "Unknown", NULL
    };

    gcp_whv_fqdn(v, gcp_whv_str(json_object_get(hook, "name")));

    json_array_foreach(json_object_get(hook, "rules"), i, rule) {
        gcp_whv_rule(v, rule, gcp_sprintf(a, "%s.rules[%zu]", v->path, i));
    }

    gcp_whv_enum(v, hook, "failurePolicy", failure);
    gcp_whv_enum(v, hook, "matchPolicy", match);

    se = json_object_get(hook, "sideEffects");
    f = gcp_whv_path(v, "sideEffects");

    if (se == NULL || json_is_null(se)) {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED, f, NULL,
                      "must specify one of %s",
                      v->side_effects_any ? "None, NoneOnDryRun, Some, Unknown"
                                          : "None, NoneOnDryRun");

    } else {
        gcp_whv_enum(v, hook, "sideEffects",
                     v->side_effects_any ? any : none);
    }

    t = json_object_get(hook, "timeoutSeconds");

    if (json_is_integer(t)
        && (json_integer_value(t) > 30 || json_integer_value(t) < 1))
    {
        gcp_ferrs_add(v->errs, GCP_FERR_INVALID,
                      gcp_whv_path(v, "timeoutSeconds"),
                      gcp_sprintf(a, "%lld",
                                  (long long) json_integer_value(t)),
                      "the timeout value must be between 1 and 30 seconds");
    }

    gcp_validate_label_selector(v->errs,
                                json_object_get(hook, "namespaceSelector"),
                                gcp_whv_path(v, "namespaceSelector"));
    gcp_validate_label_selector(v->errs,
                                json_object_get(hook, "objectSelector"),
                                gcp_whv_path(v, "objectSelector"));

    if (v->mutating) {
        gcp_whv_enum(v, hook, "reinvocationPolicy", reinvoke);
    }

    cc = json_object_get(hook, "clientConfig");
    url = json_object_get(cc, "url");
    svc = json_object_get(cc, "service");

    if (url && json_is_null(url)) {
        url = NULL;
    }

    if (svc && json_is_null(svc)) {
        svc = NULL;
    }

    if ((url == NULL) == (svc == NULL)) {
        gcp_ferrs_add(v->errs, GCP_FERR_REQUIRED,
                      gcp_whv_path(v, "clientConfig"), NULL,
                      "exactly one of url or service is required");

    } else if (url) {
        s = gcp_whv_str(url);
        gcp_validate_webhook_url(v->errs,
                                 gcp_sprintf(a, "%s.clientConfig.url",
                                             v->path), s, 1);

    } else {
        gcp_validate_webhook_service(v->errs,
                                     gcp_sprintf(a, "%s.clientConfig."
                                                 "service", v->path), svc);
    }

    /* CEL is not built in: conditions are refused, unless kept as */
    /* stored (a configuration written by another server) */

    mc = json_object_get(hook, "matchConditions");

    if (json_array_size(mc) && !ignore_conditions) {
        gcp_ferrs_add(v->errs, GCP_FERR_FORBIDDEN,
                      gcp_whv_path(v, "matchConditions"), NULL,
                      "matchConditions are CEL expressions, which this "
                      "server does not evaluate; remove them");
    }
}


/* Every stored webhook satisfies pred on field (upstream's relaxations). */
static int
gcp_whv_old_all(const json_t *old, const char *field,
    const char * const *set)
{
    size_t   i;
    json_t  *hook, *e;

    json_array_foreach(json_object_get(old, "webhooks"), i, hook) {
        e = json_object_get(hook, field);

        if (set == NULL) {
            /* admissionReviewVersions: one known, or none at all */
            size_t  j;
            json_t  *ver;
            int      known;

            if (json_array_size(e) == 0) {
                continue;
            }

            known = 0;

            json_array_foreach(e, j, ver) {
                known |= strcmp(gcp_whv_str(ver), "v1") == 0
                         || strcmp(gcp_whv_str(ver), "v1beta1") == 0;
            }

            if (!known) {
                return 0;
            }

            continue;
        }

        if (!json_is_string(e) || !gcp_whv_in(json_string_value(e), set)) {
            return 0;
        }
    }

    return 1;
}


/* The match conditions of every webhook are as stored. */
static int
gcp_whv_conditions_kept(const json_t *hooks, const json_t *old)
{
    size_t   i;
    json_t  *hook, *ohooks;

    ohooks = json_object_get(old, "webhooks");

    if (json_array_size(hooks) != json_array_size(ohooks)) {
        return 0;
    }

    json_array_foreach(hooks, i, hook) {
        if (!json_equal(json_object_get(hook, "matchConditions"),
                        json_object_get(json_array_get(ohooks, i),
                                        "matchConditions"))
            && (json_array_size(json_object_get(hook, "matchConditions"))
                || json_array_size(json_object_get(
                       json_array_get(ohooks, i), "matchConditions"))))
        {
            return 0;
        }
    }

    return 1;
}


void
gcp_webhookcfg_validate(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old, int mutating)
{
    size_t        i, j;
    int           ignore_conditions, unique;
    json_t       *hooks, *hook;
    const char   *name;
    gcp_whv_t     v;
    gcp_arena_t  *a = errs->arena;

    static const char * const  none[] = { "None", "NoneOnDryRun", NULL };

    memset(&v, 0, sizeof(v));
    v.errs = errs;
    v.mutating = mutating ? 1 : 0;

    hooks = json_object_get(obj, "webhooks");
    unique = 1;
    ignore_conditions = 0;

    if (old) {
        v.side_effects_any = !gcp_whv_old_all(old, "sideEffects", none);
        v.any_review_version = !gcp_whv_old_all(old,
                                                "admissionReviewVersions",
                                                NULL);
        ignore_conditions = gcp_whv_conditions_kept(hooks, old);

        /* names that were not unique may stay so */

        json_array_foreach(json_object_get(old, "webhooks"), i, hook) {
            name = gcp_whv_str(json_object_get(hook, "name"));

            for (j = 0; j < i; j++) {
                if (strcmp(gcp_whv_str(json_object_get(
                               json_array_get(json_object_get(old,
                                                              "webhooks"),
                                              j), "name")), name) == 0)
                {
                    unique = 0;
                }
            }
        }
    }

    json_array_foreach(hooks, i, hook) {
        v.path = gcp_sprintf(a, "webhooks[%zu]", i);

        gcp_whv_webhook(&v, hook, ignore_conditions);
        gcp_whv_versions(&v, json_object_get(hook, "admissionReviewVersions"));

        name = gcp_whv_str(json_object_get(hook, "name"));

        if (!unique || name[0] == '\0') {
            continue;
        }

        for (j = 0; j < i; j++) {
            if (strcmp(gcp_whv_str(json_object_get(json_array_get(hooks, j),
                                                   "name")), name) == 0)
            {
                gcp_ferrs_add(errs, GCP_FERR_DUPLICATE,
                              gcp_whv_path(&v, "name"),
                              gcp_ferr_quote(a, name), NULL);
                break;
            }
        }
    }
}
