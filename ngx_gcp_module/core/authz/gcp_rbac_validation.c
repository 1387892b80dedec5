
/*
 * RBAC types: validation, binding defaults, binding Table cells (see
 * gcp_rbac_validation.h).
 */

#include "gcp_json.h"
#include "gcp_rbac.h"
#include "gcp_rbac_validation.h"
#include "gcp_selector.h"
#include "gcp_table.h"
#include "gcp_validation.h"
#include "gcp_validation_selector.h"


static const char *
gcp_rbac_str(const json_t *obj, const char *field)
{
    const char  *v;

    v = json_string_value(json_object_get(obj, field));

    return v ? v : "";
}


/* ValidatePolicyRule */
static void
gcp_rbac_validate_rule(gcp_ferrs_t *errs, const json_t *rule,
    int namespaced, const char *path)
{
    const char  *f;
    json_t      *urls;

    if (json_array_size(json_object_get(rule, "verbs")) == 0) {
        f = gcp_sprintf(errs->arena, "%s.verbs", path);
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, f, NULL,
                      "verbs must contain at least one value");
    }

    urls = json_object_get(rule, "nonResourceURLs");

    if (json_array_size(urls)) {
        f = gcp_sprintf(errs->arena, "%s.nonResourceURLs", path);

        if (namespaced) {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, f,
                          gcp_go_strings(errs->arena, urls),
                          "namespaced rules cannot apply to non-resource "
                          "URLs");
        }

        if (json_array_size(json_object_get(rule, "apiGroups"))
            || json_array_size(json_object_get(rule, "resources"))
            || json_array_size(json_object_get(rule, "resourceNames")))
        {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, f,
                          gcp_go_strings(errs->arena, urls),
                          "rules cannot apply to both regular resources "
                          "and non-resource URLs");
        }

        return;
    }

    if (json_array_size(json_object_get(rule, "apiGroups")) == 0) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                      gcp_sprintf(errs->arena, "%s.apiGroups", path), NULL,
                      "resource rules must supply at least one api group");
    }

    if (json_array_size(json_object_get(rule, "resources")) == 0) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                      gcp_sprintf(errs->arena, "%s.resources", path), NULL,
                      "resource rules must supply at least one resource");
    }
}


static void
gcp_rbac_validate_rules(gcp_ferrs_t *errs, const json_t *obj,
    int namespaced)
{
    size_t   i;
    json_t  *rule;

    json_array_foreach(json_object_get(obj, "rules"), i, rule) {
        gcp_rbac_validate_rule(errs, rule, namespaced,
                               gcp_sprintf(errs->arena, "rules[%zu]", i));
    }
}


void
gcp_rbac_validate_role(gcp_ferrs_t *errs, const json_t *obj)
{
    gcp_rbac_validate_rules(errs, obj, 1);
}


void
gcp_rbac_validate_clusterrole(gcp_ferrs_t *errs, const json_t *obj)
{
    size_t                 i;
    json_t                *agg, *selectors, *sel;
    const char            *path, *msg;
    gcp_label_selector_t  *ls;

    gcp_rbac_validate_rules(errs, obj, 0);

    agg = json_object_get(obj, "aggregationRule");

    if (!json_is_object(agg)) {
        return;
    }

    selectors = json_object_get(agg, "clusterRoleSelectors");

    if (json_array_size(selectors) == 0) {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                      "aggregationRule.clusterRoleSelectors", NULL,
                      "at least one clusterRoleSelector required if "
                      "aggregationRule is non-nil");
        return;
    }

    json_array_foreach(selectors, i, sel) {
        path = gcp_sprintf(errs->arena,
                           "aggregationRule.clusterRoleSelectors[%zu]", i);

        gcp_validate_label_selector(errs, sel, path);

        if (gcp_label_selector_from_json(errs->arena, sel, &ls, &msg)
            != GCP_OK)
        {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, path, "\"null\"",
                          "invalid label selector.");
        }
    }
}


/* validateRoleBindingSubject */
static void
gcp_rbac_validate_subject(gcp_ferrs_t *errs, const json_t *s, int namespaced,
    const char *path)
{
    const char  *kind, *name, *group, *ns, *f;
    gcp_msgs_t   m;

    kind = gcp_rbac_str(s, "kind");
    name = gcp_rbac_str(s, "name");
    group = gcp_rbac_str(s, "apiGroup");
    ns = gcp_rbac_str(s, "namespace");

    f = gcp_sprintf(errs->arena, "%s.name", path);

    if (name[0] == '\0') {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, f, NULL, NULL);
    }

    if (strcmp(kind, "ServiceAccount") == 0) {
        if (name[0]) {
            gcp_validate_name(GCP_NAME_DNS_SUBDOMAIN, name, strlen(name), 0,
                              &m);
            gcp_ferrs_add_msgs(errs, f, name, strlen(name), &m);
        }

        if (group[0]) {
            gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED,
                          gcp_sprintf(errs->arena, "%s.apiGroup", path),
                          gcp_ferr_quote(errs->arena, group),
                          "supported values: \"\"");
        }

        if (!namespaced && ns[0] == '\0') {
            gcp_ferrs_add(errs, GCP_FERR_REQUIRED,
                          gcp_sprintf(errs->arena, "%s.namespace", path),
                          NULL, NULL);
        }

        return;
    }

    if (strcmp(kind, "User") == 0 || strcmp(kind, "Group") == 0) {
        if (name[0] == '\0') {
            gcp_ferrs_add(errs, GCP_FERR_INVALID, f, "\"\"",
                          kind[0] == 'U' ? "user name cannot be empty"
                                         : "group name cannot be empty");
        }

        if (strcmp(group, GCP_RBAC_GROUP) != 0) {
            gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED,
                          gcp_sprintf(errs->arena, "%s.apiGroup", path),
                          gcp_ferr_quote(errs->arena, group),
                          "supported values: \"" GCP_RBAC_GROUP "\"");
        }

        return;
    }

    gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED,
                  gcp_sprintf(errs->arena, "%s.kind", path),
                  gcp_ferr_quote(errs->arena, kind),
                  "supported values: \"ServiceAccount\", \"User\", "
                  "\"Group\"");
}


static void
gcp_rbac_validate_binding(gcp_ferrs_t *errs, const json_t *obj,
    int namespaced)
{
    size_t       i;
    json_t      *ref, *s;
    const char  *group, *kind, *name;
    gcp_msgs_t   m;

    ref = json_object_get(obj, "roleRef");
    group = gcp_rbac_str(ref, "apiGroup");
    kind = gcp_rbac_str(ref, "kind");
    name = gcp_rbac_str(ref, "name");

    if (strcmp(group, GCP_RBAC_GROUP) != 0) {
        gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED, "roleRef.apiGroup",
                      gcp_ferr_quote(errs->arena, group),
                      "supported values: \"" GCP_RBAC_GROUP "\"");
    }

    if (namespaced) {
        if (strcmp(kind, "Role") != 0 && strcmp(kind, "ClusterRole") != 0) {
            gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED, "roleRef.kind",
                          gcp_ferr_quote(errs->arena, kind),
                          "supported values: \"Role\", \"ClusterRole\"");
        }

    } else if (strcmp(kind, "ClusterRole") != 0) {
        gcp_ferrs_add(errs, GCP_FERR_NOT_SUPPORTED, "roleRef.kind",
                      gcp_ferr_quote(errs->arena, kind),
                      "supported values: \"ClusterRole\"");
    }

    if (name[0] == '\0') {
        gcp_ferrs_add(errs, GCP_FERR_REQUIRED, "roleRef.name", NULL, NULL);

    } else {
        gcp_is_path_segment_name(name, strlen(name), 0, &m);
        gcp_ferrs_add_msgs(errs, "roleRef.name", name, strlen(name), &m);
    }

    json_array_foreach(json_object_get(obj, "subjects"), i, s) {
        gcp_rbac_validate_subject(errs, s, namespaced,
                                  gcp_sprintf(errs->arena, "subjects[%zu]",
                                              i));
    }
}


/* "cannot change roleRef", the value as Go's %#v of rbac.RoleRef */
static void
gcp_rbac_validate_roleref_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    json_t  *ref, *oref;

    ref = json_object_get(obj, "roleRef");
    oref = json_object_get(old, "roleRef");

    if (strcmp(gcp_rbac_str(ref, "apiGroup"), gcp_rbac_str(oref, "apiGroup"))
        == 0
        && strcmp(gcp_rbac_str(ref, "kind"), gcp_rbac_str(oref, "kind")) == 0
        && strcmp(gcp_rbac_str(ref, "name"), gcp_rbac_str(oref, "name")) == 0)
    {
        return;
    }

    gcp_ferrs_add(errs, GCP_FERR_INVALID, "roleRef",
                  gcp_sprintf(errs->arena,
                              "rbac.RoleRef{APIGroup:%s, Kind:%s, Name:%s}",
                              gcp_ferr_quote(errs->arena,
                                             gcp_rbac_str(ref, "apiGroup")),
                              gcp_ferr_quote(errs->arena,
                                             gcp_rbac_str(ref, "kind")),
                              gcp_ferr_quote(errs->arena,
                                             gcp_rbac_str(ref, "name"))),
                  "cannot change roleRef");
}


void
gcp_rbac_validate_rolebinding(gcp_ferrs_t *errs, const json_t *obj)
{
    gcp_rbac_validate_binding(errs, obj, 1);
}


void
gcp_rbac_validate_rolebinding_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    gcp_rbac_validate_binding(errs, obj, 1);
    gcp_rbac_validate_roleref_update(errs, obj, old);
}


void
gcp_rbac_validate_clusterrolebinding(gcp_ferrs_t *errs, const json_t *obj)
{
    gcp_rbac_validate_binding(errs, obj, 0);
}


void
gcp_rbac_validate_clusterrolebinding_update(gcp_ferrs_t *errs,
    const json_t *obj, const json_t *old)
{
    gcp_rbac_validate_binding(errs, obj, 0);
    gcp_rbac_validate_roleref_update(errs, obj, old);
}


/* defaults */


/* Copies field of from into to when present (keeping Go order). */
static int
gcp_rbac_copy(json_t *to, const json_t *from, const char *field,
    const char *value)
{
    json_t  *v;

    if (value) {
        return json_object_set_new(to, field, json_string(value));
    }

    v = json_object_get(from, field);

    return v ? json_object_set(to, field, v) : 0;
}


json_t *
gcp_rbac_ordered(json_t *obj, const char * const *order)
{
    json_t  *out;

    if (!json_is_object(obj)) {
        return json_incref(obj);
    }

    out = json_object();

    while (out && *order) {
        if (gcp_rbac_copy(out, obj, *order++, NULL) != 0) {
            json_decref(out);
            return NULL;
        }
    }

    return out;
}


/* Each item of obj[field] (an array) rebuilt in order. */
static int
gcp_rbac_order_items(json_t *obj, const char *field,
    const char * const *order)
{
    size_t   i;
    json_t  *arr, *v;

    arr = json_object_get(obj, field);

    json_array_foreach(arr, i, v) {
        if (json_array_set_new(arr, i, gcp_rbac_ordered(v, order)) != 0) {
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


static const char * const  gcp_rbac_rule_order[] = {
    "verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs",
    NULL
};

static const char * const  gcp_rbac_selector_order[] = {
    "matchLabels", "matchExpressions", NULL
};

static const char * const  gcp_rbac_requirement_order[] = {
    "key", "operator", "values", NULL
};


int
gcp_rbac_role_prepare(gcp_op_t *op, json_t *obj)
{
    size_t   i;
    json_t  *selectors, *sel;

    selectors = json_object_get(json_object_get(obj, "aggregationRule"),
                                "clusterRoleSelectors");

    if (gcp_rbac_order_items(obj, "rules", gcp_rbac_rule_order) != GCP_OK
        || gcp_rbac_order_items(json_object_get(obj, "aggregationRule"),
                                "clusterRoleSelectors",
                                gcp_rbac_selector_order) != GCP_OK)
    {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    json_array_foreach(selectors, i, sel) {
        if (gcp_rbac_order_items(sel, "matchExpressions",
                                 gcp_rbac_requirement_order) != GCP_OK)
        {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


int
gcp_rbac_role_prepare_update(gcp_op_t *op, json_t *obj, const json_t *old)
{
    return gcp_rbac_role_prepare(op, obj);
}


static int
gcp_rbac_binding_defaults(json_t *obj)
{
    size_t       i;
    json_t      *ref, *nref, *subjects, *s, *ns;
    const char  *group, *kind;

    ref = json_object_get(obj, "roleRef");

    if (json_is_object(ref)) {
        group = gcp_rbac_str(ref, "apiGroup");

        nref = json_object();

        if (nref == NULL
            || gcp_rbac_copy(nref, ref, "apiGroup",
                             group[0] ? group : GCP_RBAC_GROUP) != 0
            || gcp_rbac_copy(nref, ref, "kind", NULL) != 0
            || gcp_rbac_copy(nref, ref, "name", NULL) != 0
            || json_object_set_new(obj, "roleRef", nref) != 0)
        {
            return GCP_ENOMEM;
        }
    }

    subjects = json_object_get(obj, "subjects");

    json_array_foreach(subjects, i, s) {
        if (!json_is_object(s)) {
            continue;
        }

        kind = gcp_rbac_str(s, "kind");
        group = NULL;

        if (gcp_rbac_str(s, "apiGroup")[0] == '\0'
            && (strcmp(kind, "User") == 0 || strcmp(kind, "Group") == 0))
        {
            group = GCP_RBAC_GROUP;
        }

        ns = json_object();

        if (ns == NULL
            || gcp_rbac_copy(ns, s, "kind", NULL) != 0
            || gcp_rbac_copy(ns, s, "apiGroup", group) != 0
            || gcp_rbac_copy(ns, s, "name", NULL) != 0
            || gcp_rbac_copy(ns, s, "namespace", NULL) != 0
            || json_array_set_new(subjects, i, ns) != 0)
        {
            json_decref(ns);
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


int
gcp_rbac_binding_prepare(gcp_op_t *op, json_t *obj)
{
    if (gcp_rbac_binding_defaults(obj) != GCP_OK) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    return GCP_OK;
}


int
gcp_rbac_binding_prepare_update(gcp_op_t *op, json_t *obj,
    const json_t *old)
{
    return gcp_rbac_binding_prepare(op, obj);
}


/* Table */


static void
gcp_rbac_cell_join(json_t *cells, gcp_buf_t *b)
{
    json_array_append_new(cells, json_stringn(b->data ? b->data : "",
                                              b->len));
}


int
gcp_rbac_binding_cells(gcp_op_t *op, const json_t *obj, json_t *cells)
{
    size_t       i;
    json_t      *ref, *s;
    gcp_buf_t    users, groups, sas, *b;
    const char  *kind;

    ref = json_object_get(obj, "roleRef");

    gcp_table_cell_name(cells, obj);
    json_array_append_new(cells, json_string(gcp_sprintf(op->a, "%s/%s",
                                             gcp_rbac_str(ref, "kind"),
                                             gcp_rbac_str(ref, "name"))));
    gcp_table_cell_age(cells, obj);

    gcp_buf_init(&users, op->a);
    gcp_buf_init(&groups, op->a);
    gcp_buf_init(&sas, op->a);

    json_array_foreach(json_object_get(obj, "subjects"), i, s) {
        kind = gcp_rbac_str(s, "kind");

        if (strcmp(kind, "User") == 0) {
            b = &users;

        } else if (strcmp(kind, "Group") == 0) {
            b = &groups;

        } else if (strcmp(kind, "ServiceAccount") == 0) {
            b = &sas;

        } else {
            continue;
        }

        if (b->len) {
            gcp_buf_addstr(b, ", ");
        }

        if (b == &sas) {
            gcp_buf_addstr(b, gcp_rbac_str(s, "namespace"));
            gcp_buf_addc(b, '/');
        }

        gcp_buf_addstr(b, gcp_rbac_str(s, "name"));
    }

    gcp_rbac_cell_join(cells, &users);
    gcp_rbac_cell_join(cells, &groups);
    gcp_rbac_cell_join(cells, &sas);

    return GCP_OK;
}
