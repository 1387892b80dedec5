
/*
 * The authorization step: the authorizer of the API core (AlwaysAllow, or
 * RBAC), the attributes of a request, and kube-apiserver's 403 Forbidden.
 */

#include "gcp_audit.h"
#include "gcp_auth_int.h"
#include "gcp_json.h"
#include "gcp_metrics.h"
#include "gcp_rbac.h"
#include "gcp_time.h"


static gcp_authz_decision_t
gcp_authz_allow(gcp_authorizer_t *az, gcp_arena_t *a,
    const gcp_authz_attrs_t *attrs, const char **reason)
{
    return GCP_AUTHZ_ALLOW;
}


static void
gcp_authz_static_destroy(gcp_authorizer_t *az)
{
}


gcp_authorizer_t  gcp_authz_always_allow = {
    "AlwaysAllow",
    gcp_authz_allow,
    gcp_authz_static_destroy,
    NULL
};


static int gcp_auth_authorize_verb(gcp_op_t *op, const char *verb,
    const char **reason);


int
gcp_auth_init(gcp_api_t *api, const char **err)
{
    const char  *mode;

    mode = api->conf.authorization_mode;
    api->authorize_verb = gcp_auth_authorize_verb;

    if (mode == NULL || strcmp(mode, "AlwaysAllow") == 0) {
        api->authorizer = &gcp_authz_always_allow;
        return GCP_OK;
    }

    if (strcmp(mode, "RBAC") == 0) {
        api->authorizer = gcp_rbac_authorizer_create(api, err);
        return api->authorizer ? GCP_OK : GCP_ENOMEM;
    }

    *err = "unknown authorization mode";

    return GCP_EINVALID;
}


void
gcp_auth_fini(gcp_api_t *api)
{
    gcp_authorizer_t  *az = api->authorizer;

    if (az && az->destroy) {
        az->destroy(az);
    }

    api->authorizer = NULL;

    gcp_auth_oidc_fini(api);
}


int
gcp_auth_authorize(gcp_op_t *op, const gcp_authz_attrs_t *attrs,
    const char **reason)
{
    gcp_authorizer_t  *az = op->api->authorizer;

    *reason = NULL;

    if (az == NULL) {
        return 1;
    }

    return az->authorize(az, op->a, attrs, reason) == GCP_AUTHZ_ALLOW;
}


#define gcp_authz_str(s)  ((s) ? (s) : "")



/* authorization_attempts_total and friends, as upstream's filter counts */

static void
gcp_authz_observe(gcp_op_t *op, gcp_authz_decision_t d, double start)
{
    char                     name[32];
    size_t                   i;
    const char              *v[4];
    const gcp_authorizer_t  *az = op->api->authorizer;

    v[0] = d == GCP_AUTHZ_ALLOW ? "allowed"
           : d == GCP_AUTHZ_DENY ? "denied" : "no-opinion";
    v[1] = NULL;

    gcp_metric_inc(GCP_M_AUTHZ_ATTEMPTS, v);
    gcp_metric_observe(GCP_M_AUTHZ_DURATION, v,
                       gcp_time_mono_ns() / 1e9 - start);

    /* the terminal decisions of the authorizer: decision, name, type */

    if (az == NULL || d == GCP_AUTHZ_NO_OPINION) {
        return;
    }

    for (i = 0; az->name[i] && i < sizeof(name) - 1; i++) {
        name[i] = (char) (az->name[i] >= 'A' && az->name[i] <= 'Z'
                          ? az->name[i] + 'a' - 'A' : az->name[i]);
    }

    name[i] = '\0';

    v[1] = name;
    v[2] = az->name;
    v[3] = NULL;

    gcp_metric_inc(GCP_M_AUTHZ_DECISIONS, v);
}


/* The attributes of op's request, with verb. */

static void
gcp_authz_attrs(gcp_op_t *op, const char *verb, gcp_authz_attrs_t *attrs)
{
    const gcp_reqinfo_t  *ri = &op->ri;

    memset(attrs, 0, sizeof(gcp_authz_attrs_t));

    attrs->user = op->req->user;
    attrs->verb = gcp_authz_str(verb);
    attrs->resource_request = ri->is_resource;
    attrs->group = gcp_authz_str(ri->group);
    attrs->version = gcp_authz_str(ri->version);
    attrs->resource = gcp_authz_str(ri->resource);
    attrs->subresource = gcp_authz_str(ri->subresource);
    attrs->ns = gcp_authz_str(ri->ns);
    attrs->name = gcp_authz_str(ri->name[0] || ri->selector_name == NULL
                                ? ri->name : ri->selector_name);
    attrs->path = gcp_authz_str(ri->path);
}


/* api->authorize_verb: the authorizer alone, as upstream's handlers ask */

static int
gcp_auth_authorize_verb(gcp_op_t *op, const char *verb, const char **reason)
{
    gcp_authz_attrs_t  attrs;

    gcp_authz_attrs(op, verb, &attrs);

    return gcp_auth_authorize(op, &attrs, reason);
}


int
gcp_auth_authorize_request(gcp_op_t *op)
{
    double                 start;
    const char            *reason;
    gcp_authorizer_t      *az = op->api->authorizer;
    gcp_authz_attrs_t      attrs;
    gcp_authz_decision_t   d;

    gcp_authz_attrs(op, op->ri.verb, &attrs);

    start = gcp_metrics_on() ? gcp_time_mono_ns() / 1e9 : 0;
    reason = NULL;

    /* an audited request says why it was allowed, as upstream's does */

    if (gcp_audit_explain(op)) {
        d = gcp_rbac_api_authorize(op->api, op->a, &attrs, &reason);

    } else {
        d = az ? az->authorize(az, op->a, &attrs, &reason) : GCP_AUTHZ_ALLOW;
    }

    if (gcp_metrics_on()) {
        gcp_authz_observe(op, d, start);
    }

    gcp_audit_authorized(op, d == GCP_AUTHZ_ALLOW, reason);

    if (d == GCP_AUTHZ_ALLOW) {
        return GCP_OK;
    }

    gcp_auth_forbidden(op, &attrs, reason);

    return GCP_EFORBIDDEN;
}


/* Go's %q of s (arena text). */

static const char *
gcp_authz_q(gcp_op_t *op, const char *s)
{
    const char  *q;

    s = gcp_authz_str(s);
    q = gcp_go_quote(op->a, s, strlen(s));

    return q ? q : "\"\"";
}


void
gcp_auth_forbidden(gcp_op_t *op, const gcp_authz_attrs_t *attrs,
    const char *reason)
{
    gcp_buf_t              b;
    const char            *user, *ns, *sub, *res;
    gcp_status_details_t   d;

    user = gcp_authz_q(op, attrs->user ? attrs->user->name : "");

    memset(&d, 0, sizeof(d));
    gcp_buf_init(&b, op->a);

    if (!attrs->resource_request) {
        gcp_buf_printf(&b, "forbidden: User %s cannot %s path %s", user,
                       attrs->verb, gcp_authz_q(op, attrs->path));

    } else {
        ns = gcp_authz_str(attrs->ns);
        sub = gcp_authz_str(attrs->subresource);
        res = sub[0] ? gcp_sprintf(op->a, "%s/%s", attrs->resource, sub)
                     : attrs->resource;

        d.name = attrs->name;
        d.group = attrs->group;
        d.kind = attrs->resource;

        /* NewForbidden(GroupResource, name, err) */

        gcp_buf_addstr(&b, attrs->resource);

        if (attrs->group[0]) {
            gcp_buf_printf(&b, ".%s", attrs->group);
        }

        if (attrs->name && attrs->name[0]) {
            gcp_buf_printf(&b, " %s", gcp_authz_q(op, attrs->name));
        }

        gcp_buf_printf(&b, " is forbidden: User %s cannot %s resource %s "
                       "in API group %s", user, attrs->verb,
                       gcp_authz_q(op, res), gcp_authz_q(op, attrs->group));

        if (ns[0]) {
            gcp_buf_printf(&b, " in the namespace %s", gcp_authz_q(op, ns));

        } else {
            gcp_buf_addstr(&b, " at the cluster scope");
        }
    }

    if (reason && reason[0]) {
        gcp_buf_printf(&b, ": %s", reason);
    }

    if (gcp_buf_failed(&b)) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    gcp_op_header(op, "X-Content-Type-Options", "nosniff");
    gcp_op_error(op, GCP_EFORBIDDEN, gcp_buf_cstr(&b), &d);
}
