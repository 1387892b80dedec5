
/*
 * RBAC escalation prevention, the RBACEscalation admission plugin (as the
 * policy-based storage of kube-apiserver's RBAC registry): creating or
 * updating a Role or ClusterRole needs every permission it grants, unless
 * the requester may "escalate" it; a RoleBinding or ClusterRoleBinding
 * needs every permission of the role it references, unless the requester
 * may "bind" that role.  Members of system:masters skip the checks, and
 * so does everyone when no authorizer is configured (AlwaysAllow).
 * Updates that change only what the garbage collector changes
 * (ownerReferences, finalizers) are not checked.  Setting or changing a
 * ClusterRole's aggregationRule needs full authority.
 */

#include "gcp_ferr.h"
#include "gcp_object.h"
#include "gcp_rbac_int.h"


static const char * const  gcp_rbac_gc_fields[] = {
    "ownerReferences", "finalizers", "selfLink", "deletionTimestamp",
    "deletionGracePeriodSeconds", "resourceVersion", "managedFields", NULL
};


/* A copy of obj without the metadata fields of gcp_rbac_gc_fields. */
static json_t *
gcp_rbac_without_gc(gcp_arena_t *a, const json_t *obj)
{
    size_t   i;
    json_t  *c, *meta;

    c = gcp_json_arena(a, json_deep_copy(obj));
    meta = json_object_get(c, "metadata");

    for (i = 0; meta && gcp_rbac_gc_fields[i]; i++) {
        json_object_del(meta, gcp_rbac_gc_fields[i]);
    }

    return c;
}


/* IsOnlyMutatingGCFields */
static int
gcp_rbac_only_gc(gcp_arena_t *a, const json_t *obj, const json_t *old)
{
    json_t  *x, *y;

    if (old == NULL) {
        return 0;
    }

    x = gcp_rbac_without_gc(a, obj);
    y = gcp_rbac_without_gc(a, old);

    return x && y && json_equal(x, y);
}


/* The requester's own authorization of verb on a role (escalate, bind). */
static int
gcp_rbac_may(gcp_op_t *op, const char *verb, const char *resource,
    const char *ns, const char *name)
{
    const char         *reason;
    gcp_authz_attrs_t   attrs;

    memset(&attrs, 0, sizeof(attrs));

    attrs.user = op->req->user;
    attrs.verb = verb;
    attrs.resource_request = 1;
    attrs.group = GCP_RBAC_GROUP;
    attrs.version = "*";
    attrs.resource = resource;
    attrs.subresource = "";
    attrs.ns = ns;
    attrs.name = name;
    attrs.path = "";

    return gcp_rbac_api_authorize(op->api, op->a, &attrs, &reason)
           == GCP_AUTHZ_ALLOW;
}


/* Go's %q of a []string: ["a" "b"]. */
static const char *
gcp_rbac_quote_list(gcp_arena_t *a, const char * const *v, size_t n)
{
    size_t     i;
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    gcp_buf_addc(&b, '[');

    for (i = 0; i < n; i++) {
        if (i) {
            gcp_buf_addc(&b, ' ');
        }

        gcp_buf_addstr(&b, gcp_ferr_quote(a, v[i] ? v[i] : ""));
    }

    gcp_buf_addc(&b, ']');

    return gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);
}


static void
gcp_rbac_forbidden(gcp_op_t *op, const char *name, const char *why)
{
    const char  *msg;

    msg = gcp_sprintf(op->a, "%s %s is forbidden: %s",
                      gcp_op_qualified_resource(op, op->res),
                      gcp_ferr_quote(op->a, name), why ? why : "");

    gcp_op_error_obj(op, GCP_EFORBIDDEN, msg, name);
}


/*
 * ConfirmNoEscalation: the requester's rules in ns must cover rules.
 * Returns GCP_OK, or responds 403 (or 500) and returns the error.
 */
static int
gcp_rbac_confirm(gcp_op_t *op, const char *name, const char *ns,
    const gcp_rbac_rule_t *rules, size_t n, const char *why)
{
    size_t             nmissing;
    const char        *list, *msg;
    gcp_rbac_rule_t   *missing;
    gcp_rbac_rules_t   own;
    const gcp_user_t  *user = op->req->user;

    if (gcp_rbac_rules_for(op->api, op->a, user, ns, &own) != GCP_OK
        || gcp_rbac_covers(op->a, own.rules, own.n, rules, n, &missing,
                           &nmissing) != GCP_OK)
    {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    if (nmissing == 0) {
        return GCP_OK;
    }

    if (why == NULL) {
        list = gcp_rbac_describe_missing(op->a, missing, nmissing);

        msg = gcp_sprintf(op->a, "user %s (groups=%s) is attempting to "
                          "grant RBAC permissions not currently held:\n%s",
                          gcp_ferr_quote(op->a, user->name ? user->name
                                                           : ""),
                          gcp_rbac_quote_list(op->a, user->groups,
                                              user->ngroups),
                          list ? list : "");

        if (msg && own.error) {
            msg = gcp_sprintf(op->a, "%s; resolution errors: [%s]", msg,
                              own.error);
        }

        why = msg;
    }

    gcp_rbac_forbidden(op, name, why);

    return GCP_EFORBIDDEN;
}


static const gcp_rbac_rule_t  gcp_rbac_full_authority[] = {
    { { (const char *[]) { "*" }, 1 }, { (const char *[]) { "*" }, 1 },
      { (const char *[]) { "*" }, 1 }, { NULL, 0 }, { NULL, 0 } },
    { { (const char *[]) { "*" }, 1 }, { NULL, 0 }, { NULL, 0 },
      { NULL, 0 }, { (const char *[]) { "*" }, 1 } },
};


static int
gcp_rbac_check_role(gcp_admit_t *ad, int cluster)
{
    size_t            n;
    gcp_op_t         *op = ad->op;
    gcp_rbac_rule_t  *rules;

    if (gcp_rbac_may(op, "escalate", op->ri.resource, op->ri.ns,
                     op->ri.name))
    {
        return GCP_OK;
    }

    if (gcp_rbac_rules_parse(op->a, json_object_get(ad->obj, "rules"),
                             &rules, &n) != GCP_OK)
    {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    if (gcp_rbac_confirm(op, ad->name, op->ri.ns, rules, n, NULL)
        != GCP_OK)
    {
        return GCP_EFORBIDDEN;
    }

    /* an aggregationRule can gather anything: it takes * on *.* */

    if (cluster
        && (json_object_get(ad->obj, "aggregationRule")
            || (ad->old && json_object_get(ad->old, "aggregationRule"))))
    {
        return gcp_rbac_confirm(op, ad->name, "", gcp_rbac_full_authority,
                                gcp_nelems(gcp_rbac_full_authority),
                                "must have cluster-admin privileges to use "
                                "the aggregationRule");
    }

    return GCP_OK;
}


static int
gcp_rbac_check_binding(gcp_admit_t *ad)
{
    size_t                  n;
    json_t                 *ref;
    gcp_op_t               *op = ad->op;
    const char             *kind, *name, *group, *err;
    gcp_rbac_index_t       *ix;
    const gcp_rbac_rule_t  *rules;

    ref = json_object_get(ad->obj, "roleRef");
    kind = json_string_value(json_object_get(ref, "kind"));
    name = json_string_value(json_object_get(ref, "name"));
    group = json_string_value(json_object_get(ref, "apiGroup"));

    kind = kind ? kind : "";
    name = name ? name : "";

    /* the check runs before the v1 defaults are written: an empty */
    /* roleRef.apiGroup is the one they give */

    if (group == NULL || group[0] == '\0') {
        group = GCP_RBAC_GROUP;
    }

    /* BindingAuthorized: "bind" on the role, in the binding's namespace */

    if ((strcmp(kind, "ClusterRole") == 0 || strcmp(kind, "Role") == 0)
        && group && strcmp(group, GCP_RBAC_GROUP) == 0
        && gcp_rbac_may(op, "bind", kind[0] == 'C' ? "clusterroles"
                                                    : "roles",
                        op->ri.ns, name))
    {
        return GCP_OK;
    }

    ix = gcp_rbac_index(op->api);
    if (ix == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    if (gcp_rbac_index_role_rules(ix, op->a, kind, op->ri.ns, name, &rules,
                                  &n, &err)
        != GCP_OK)
    {
        /* as the registry's NotFound: the plural resource */

        if (strcmp(kind, "ClusterRole") == 0 || strcmp(kind, "Role") == 0) {
            err = gcp_sprintf(op->a, "%s.%s %s not found",
                              kind[0] == 'C' ? "clusterroles" : "roles",
                              GCP_RBAC_GROUP, gcp_ferr_quote(op->a, name));
        }

        gcp_rbac_forbidden(op, ad->name, err);
        return GCP_EFORBIDDEN;
    }

    return gcp_rbac_confirm(op, ad->name, op->ri.ns, rules, n, NULL);
}


void
gcp_rbac_escalation_admit(void *data, gcp_admit_t *ad,
    gcp_admit_done_pt done)
{
    int                    rc;
    gcp_api_t             *api = data;
    gcp_op_t              *op = ad->op;
    const char            *r;
    const gcp_user_t      *user = op->req->user;
    const gcp_resource_t  *res = op->res;

    if (ad->operation == GCP_ADMIT_DELETE || op->sub
        || strcmp(res->group, GCP_RBAC_GROUP) != 0
        || api->authorizer == NULL || user == NULL
        || gcp_rbac_privileged(user)
        || (ad->operation == GCP_ADMIT_UPDATE
            && gcp_rbac_only_gc(op->a, ad->obj, ad->old)))
    {
        done(ad, GCP_OK);
        return;
    }

    r = res->name;

    if (strcmp(r, "roles") == 0 || strcmp(r, "clusterroles") == 0) {
        rc = gcp_rbac_check_role(ad, r[0] == 'c');

    } else if (strcmp(r, "rolebindings") == 0
               || strcmp(r, "clusterrolebindings") == 0)
    {
        rc = gcp_rbac_check_binding(ad);

    } else {
        rc = GCP_OK;
    }

    done(ad, rc);
}
