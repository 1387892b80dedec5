
/*
 * The audit policy: audit.k8s.io/v1 Policy read and checked as
 * kube-apiserver's policy loader and validation.ValidatePolicy do, and
 * evaluated as its policy rule evaluator (k8s.io/apiserver/pkg/audit/
 * policy/checker.go): the first rule that matches the request decides.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_audit_int.h"
#include "gcp_validation.h"


static const char * const  gcp_audit_levels[] = {
    "None", "Metadata", "Request", "RequestResponse", NULL
};

static const char * const  gcp_audit_stages[] = {
    "RequestReceived", "ResponseStarted", "ResponseComplete", "Panic", NULL
};


const char *
gcp_audit_level_name(gcp_audit_level_t level)
{
    return gcp_audit_levels[level];
}


static int
gcp_audit_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list  args;

    va_start(args, fmt);
    vsnprintf(err, errlen, fmt, args);
    va_end(args);

    return GCP_EINVALID;
}


static void
gcp_audit_strv_free(char **v)
{
    char  **p;

    for (p = v; p && *p; p++) {
        free(*p);
    }

    free(v);
}


static int
gcp_audit_has(char * const *v, const char *s)
{
    for ( /* void */ ; v && *v; v++) {
        if (strcmp(*v, s) == 0) {
            return 1;
        }
    }

    return 0;
}


/*
 * key of obj, a list of strings, into *out (NULL when absent or empty).
 * Returns GCP_OK, GCP_ENOMEM, or GCP_EINVALID with a message.
 */

static int
gcp_audit_strv(const json_t *obj, const char *key, const char *path,
    char ***out, char *err, size_t errlen)
{
    size_t   i, n;
    char   **v;
    json_t  *a, *s;

    *out = NULL;

    a = json_object_get(obj, key);

    if (a == NULL || json_is_null(a)) {
        return GCP_OK;
    }

    if (!json_is_array(a)) {
        return gcp_audit_fail(err, errlen, "%s%s: expected a list of "
                              "strings", path, key);
    }

    n = json_array_size(a);

    if (n == 0) {
        return GCP_OK;
    }

    v = calloc(n + 1, sizeof(char *));
    if (v == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < n; i++) {
        s = json_array_get(a, i);

        if (!json_is_string(s)) {
            gcp_audit_strv_free(v);
            return gcp_audit_fail(err, errlen, "%s%s[%zu]: expected a "
                                  "string", path, key, i);
        }

        v[i] = strdup(json_string_value(s));

        if (v[i] == NULL) {
            gcp_audit_strv_free(v);
            return GCP_ENOMEM;
        }
    }

    *out = v;

    return GCP_OK;
}


/* omitStages: the stage bits, checked */

static int
gcp_audit_stages_read(const json_t *obj, const char *path, unsigned *out,
    char *err, size_t errlen)
{
    int      rc;
    char   **v, **p;
    size_t   i, k;

    *out = 0;

    rc = gcp_audit_strv(obj, "omitStages", path, &v, err, errlen);
    if (rc != GCP_OK) {
        return rc;
    }

    for (p = v, i = 0; p && *p; p++, i++) {
        for (k = 0; gcp_audit_stages[k]; k++) {
            if (strcmp(*p, gcp_audit_stages[k]) == 0) {
                *out |= 1u << k;
                break;
            }
        }

        if (gcp_audit_stages[k] == NULL) {
            rc = gcp_audit_fail(err, errlen, "%somitStages[%zu]: Invalid "
                                "value: \"%s\": allowed stages are "
                                "RequestReceived,ResponseStarted,"
                                "ResponseComplete,Panic", path, i, *p);
            break;
        }
    }

    gcp_audit_strv_free(v);

    return rc;
}


static int
gcp_audit_level_read(const json_t *rule, const char *path,
    gcp_audit_level_t *out, char *err, size_t errlen)
{
    size_t       i;
    json_t      *v;
    const char  *s;

    v = json_object_get(rule, "level");
    s = json_is_string(v) ? json_string_value(v) : "";

    if (s[0] == '\0') {
        return gcp_audit_fail(err, errlen, "%slevel: Required value", path);
    }

    for (i = 0; gcp_audit_levels[i]; i++) {
        if (strcmp(s, gcp_audit_levels[i]) == 0) {
            *out = (gcp_audit_level_t) i;
            return GCP_OK;
        }
    }

    return gcp_audit_fail(err, errlen, "%slevel: Unsupported value: \"%s\": "
                          "supported values: \"None\", \"Metadata\", "
                          "\"Request\", \"RequestResponse\"", path, s);
}


static int
gcp_audit_urls_check(char * const *urls, const char *path, char *err,
    size_t errlen)
{
    size_t       i, n;
    const char  *u;

    for (i = 0; urls && urls[i]; i++) {
        u = urls[i];

        if (strcmp(u, "*") == 0) {
            continue;
        }

        if (u[0] != '/') {
            return gcp_audit_fail(err, errlen, "%snonResourceURLs[%zu]: "
                                  "Invalid value: \"%s\": non-resource URL "
                                  "rules must begin with a '/' character",
                                  path, i, u);
        }

        n = strlen(u);

        if (n && memchr(u, '*', n - 1)) {
            return gcp_audit_fail(err, errlen, "%snonResourceURLs[%zu]: "
                                  "Invalid value: \"%s\": non-resource URL "
                                  "wildcards '*' must be the final character "
                                  "of the rule", path, i, u);
        }
    }

    return GCP_OK;
}


static int
gcp_audit_gr_read(const json_t *v, const char *path, size_t i,
    gcp_audit_gr_t *gr, char *err, size_t errlen)
{
    int          rc;
    char         at[64];
    json_t      *g;
    const char  *group;
    gcp_msgs_t   m;

    snprintf(at, sizeof(at), "%sresources[%zu].", path, i);

    if (!json_is_object(v)) {
        return gcp_audit_fail(err, errlen, "%sresources[%zu]: expected an "
                              "object", path, i);
    }

    g = json_object_get(v, "group");
    group = json_is_string(g) ? json_string_value(g) : "";

    if (g && !json_is_string(g) && !json_is_null(g)) {
        return gcp_audit_fail(err, errlen, "%sgroup: expected a string", at);
    }

    if (group[0] && gcp_is_dns1123_subdomain(group, strlen(group), &m)) {
        return gcp_audit_fail(err, errlen, "%sresources.group: Invalid "
                              "value: \"%s\": %s", path, group, m.msg[0]);
    }

    gr->group = strdup(group);
    if (gr->group == NULL) {
        return GCP_ENOMEM;
    }

    rc = gcp_audit_strv(v, "resources", at, &gr->resources, err, errlen);

    if (rc == GCP_OK) {
        rc = gcp_audit_strv(v, "resourceNames", at, &gr->names, err,
                            errlen);
    }

    if (rc == GCP_OK && gr->names && gr->resources == NULL) {
        rc = gcp_audit_fail(err, errlen, "%sresources.resourceNames: "
                            "Invalid value: using resourceNames requires at "
                            "least one resource", path);
    }

    return rc;
}


static int
gcp_audit_rule_read(const json_t *v, size_t i, gcp_audit_rule_t *r,
    char *err, size_t errlen)
{
    int      rc;
    char     path[32];
    size_t   k, n;
    json_t  *res, *omf;

    snprintf(path, sizeof(path), "rules[%zu].", i);

    r->omit_managed = -1;

    if (!json_is_object(v)) {
        return gcp_audit_fail(err, errlen, "rules[%zu]: expected an object",
                              i);
    }

    rc = gcp_audit_level_read(v, path, &r->level, err, errlen);

    if (rc == GCP_OK) {
        rc = gcp_audit_strv(v, "users", path, &r->users, err, errlen);
    }

    if (rc == GCP_OK) {
        rc = gcp_audit_strv(v, "userGroups", path, &r->groups, err, errlen);
    }

    if (rc == GCP_OK) {
        rc = gcp_audit_strv(v, "verbs", path, &r->verbs, err, errlen);
    }

    if (rc == GCP_OK) {
        rc = gcp_audit_strv(v, "namespaces", path, &r->namespaces, err,
                            errlen);
    }

    if (rc == GCP_OK) {
        rc = gcp_audit_strv(v, "nonResourceURLs", path, &r->urls, err,
                            errlen);
    }

    if (rc == GCP_OK) {
        rc = gcp_audit_urls_check(r->urls, path, err, errlen);
    }

    if (rc == GCP_OK) {
        rc = gcp_audit_stages_read(v, path, &r->omit, err, errlen);
    }

    if (rc != GCP_OK) {
        return rc;
    }

    omf = json_object_get(v, "omitManagedFields");

    if (json_is_boolean(omf)) {
        r->omit_managed = json_is_true(omf);

    } else if (omf && !json_is_null(omf)) {
        return gcp_audit_fail(err, errlen, "%somitManagedFields: expected a "
                              "boolean", path);
    }

    res = json_object_get(v, "resources");

    if (res && !json_is_null(res) && !json_is_array(res)) {
        return gcp_audit_fail(err, errlen, "%sresources: expected a list",
                              path);
    }

    n = json_array_size(res);

    if (n) {
        r->has_resources = 1;
        r->resources = calloc(n, sizeof(gcp_audit_gr_t));

        if (r->resources == NULL) {
            return GCP_ENOMEM;
        }

        for (k = 0; k < n; k++) {
            r->nresources++;

            rc = gcp_audit_gr_read(json_array_get(res, k), path, k,
                                   &r->resources[k], err, errlen);
            if (rc != GCP_OK) {
                return rc;
            }
        }
    }

    if (r->urls && (r->has_resources || r->namespaces)) {
        return gcp_audit_fail(err, errlen, "%snonResourceURLs: Invalid "
                              "value: rules cannot apply to both regular "
                              "resources and non-resource URLs", path);
    }

    return GCP_OK;
}


int
gcp_audit_policy_load(const json_t *doc, gcp_audit_policy_t *p, char *err,
    size_t errlen)
{
    int          rc;
    size_t       i, n;
    json_t      *rules, *omf;
    const char  *av, *kind;

    memset(p, 0, sizeof(gcp_audit_policy_t));

    if (!json_is_object(doc)) {
        return gcp_audit_fail(err, errlen, "not an audit.k8s.io/v1 Policy");
    }

    av = json_string_value(json_object_get(doc, "apiVersion"));
    kind = json_string_value(json_object_get(doc, "kind"));

    if (av == NULL || kind == NULL || strcmp(av, "audit.k8s.io/v1") != 0
        || strcmp(kind, "Policy") != 0)
    {
        return gcp_audit_fail(err, errlen, "apiVersion \"%s\", kind \"%s\": "
                              "expected an audit.k8s.io/v1 Policy",
                              av ? av : "", kind ? kind : "");
    }

    rc = gcp_audit_stages_read(doc, "", &p->omit, err, errlen);
    if (rc != GCP_OK) {
        return rc;
    }

    omf = json_object_get(doc, "omitManagedFields");

    if (omf && !json_is_boolean(omf) && !json_is_null(omf)) {
        return gcp_audit_fail(err, errlen, "omitManagedFields: expected a "
                              "boolean");
    }

    p->omit_managed = json_is_true(omf);

    rules = json_object_get(doc, "rules");

    if (rules && !json_is_array(rules) && !json_is_null(rules)) {
        return gcp_audit_fail(err, errlen, "rules: expected a list");
    }

    n = json_array_size(rules);

    if (n == 0) {
        return gcp_audit_fail(err, errlen, "loaded illegal policy with 0 "
                              "rules");
    }

    p->rules = calloc(n, sizeof(gcp_audit_rule_t));
    if (p->rules == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < n; i++) {
        p->nrules++;

        rc = gcp_audit_rule_read(json_array_get(rules, i), i, &p->rules[i],
                                 err, errlen);

        if (rc != GCP_OK) {
            if (rc == GCP_ENOMEM) {
                snprintf(err, errlen, "out of memory");
            }

            gcp_audit_policy_free(p);
            return rc;
        }
    }

    return GCP_OK;
}


void
gcp_audit_policy_free(gcp_audit_policy_t *p)
{
    size_t             i, k;
    gcp_audit_rule_t  *r;

    for (i = 0; i < p->nrules; i++) {
        r = &p->rules[i];

        gcp_audit_strv_free(r->users);
        gcp_audit_strv_free(r->groups);
        gcp_audit_strv_free(r->verbs);
        gcp_audit_strv_free(r->namespaces);
        gcp_audit_strv_free(r->urls);

        for (k = 0; k < r->nresources; k++) {
            free(r->resources[k].group);
            gcp_audit_strv_free(r->resources[k].resources);
            gcp_audit_strv_free(r->resources[k].names);
        }

        free(r->resources);
    }

    free(p->rules);
    memset(p, 0, sizeof(gcp_audit_policy_t));
}


/* evaluation */


static int
gcp_audit_path_matches(const char *path, const char *spec)
{
    size_t  n;

    if (strcmp(spec, "*") == 0 || strcmp(spec, path) == 0) {
        return 1;
    }

    n = strlen(spec);

    return n && spec[n - 1] == '*' && strncmp(path, spec, n - 1) == 0;
}


/* s equals "resource" or "resource/subresource" as the request names it */

static int
gcp_audit_combined_eq(const char *s, const gcp_audit_attrs_t *a)
{
    size_t  n;

    n = strlen(a->resource);

    if (strncmp(s, a->resource, n) != 0) {
        return 0;
    }

    if (a->subresource[0] == '\0') {
        return s[n] == '\0';
    }

    return s[n] == '/' && strcmp(s + n + 1, a->subresource) == 0;
}


static int
gcp_audit_gr_matches(const gcp_audit_gr_t *gr, const gcp_audit_attrs_t *a)
{
    size_t        n;
    char * const *r;

    if (strcmp(gr->group, a->group) != 0) {
        return 0;
    }

    if (gr->resources == NULL) {
        return 1;
    }

    if (gr->names && !gcp_audit_has(gr->names, a->name)) {
        return 0;
    }

    for (r = gr->resources; *r; r++) {
        if (strcmp(*r, "*") == 0 || gcp_audit_combined_eq(*r, a)) {
            return 1;
        }

        /* "*" "/subresource" */
        if (a->subresource[0] && strncmp(*r, "*/", 2) == 0
            && strcmp(*r + 2, a->subresource) == 0)
        {
            return 1;
        }

        /* "resource/" "*" */
        n = strlen(*r);

        if (n > 2 && strcmp(*r + n - 2, "/*") == 0
            && strlen(a->resource) == n - 2
            && strncmp(*r, a->resource, n - 2) == 0)
        {
            return 1;
        }
    }

    return 0;
}


static int
gcp_audit_resource_matches(const gcp_audit_rule_t *r,
    const gcp_audit_attrs_t *a)
{
    size_t  i;

    if (!a->resource_request) {
        return 0;
    }

    if (r->namespaces && !gcp_audit_has(r->namespaces, a->ns)) {
        return 0;
    }

    if (!r->has_resources) {
        return 1;
    }

    for (i = 0; i < r->nresources; i++) {
        if (gcp_audit_gr_matches(&r->resources[i], a)) {
            return 1;
        }
    }

    return 0;
}


static int
gcp_audit_rule_matches(const gcp_audit_rule_t *r, const gcp_audit_attrs_t *a)
{
    size_t  i;

    if (r->users
        && (a->user == NULL || !gcp_audit_has(r->users, a->user->name)))
    {
        return 0;
    }

    if (r->groups) {
        if (a->user == NULL) {
            return 0;
        }

        for (i = 0; i < a->user->ngroups; i++) {
            if (gcp_audit_has(r->groups, a->user->groups[i])) {
                break;
            }
        }

        if (i == a->user->ngroups) {
            return 0;
        }
    }

    if (r->verbs && !gcp_audit_has(r->verbs, a->verb)) {
        return 0;
    }

    if (r->namespaces || r->has_resources) {
        return gcp_audit_resource_matches(r, a);
    }

    if (r->urls) {
        if (a->resource_request) {
            return 0;
        }

        for (i = 0; r->urls[i]; i++) {
            if (gcp_audit_path_matches(a->path, r->urls[i])) {
                return 1;
            }
        }

        return 0;
    }

    return 1;
}


void
gcp_audit_policy_eval(const gcp_audit_policy_t *p,
    const gcp_audit_attrs_t *attrs, gcp_audit_config_t *out)
{
    size_t                   i;
    const gcp_audit_rule_t  *r;

    for (i = 0; i < p->nrules; i++) {
        r = &p->rules[i];

        if (gcp_audit_rule_matches(r, attrs)) {
            out->level = r->level;
            out->omit = p->omit | r->omit;
            out->omit_managed = r->omit_managed >= 0 ? r->omit_managed
                                                     : p->omit_managed;
            return;
        }
    }

    out->level = GCP_AUDIT_NONE;
    out->omit = p->omit;
    out->omit_managed = p->omit_managed;
}
