
/*
 * authorization.k8s.io/v1 SelfSubjectRulesReview (kubectl auth can-i
 * --list): the rules the requesting user has in spec.namespace, never
 * stored.  With the RBAC authorizer they are the rules of the bindings
 * that apply to the user (RulesFor, resolution errors in
 * status.evaluationError); with AlwaysAllow (or no authorizer) everything.
 * The answer carries only the status, as upstream's.
 */

#include "gcp_rbac.h"
#include "gcp_reg.h"
#include "gcp_type_accessreview.h"
#include "gcp_authz_types.h"


/* The rules of AlwaysAllow. */
static const gcp_rbac_rule_t  gcp_ssrr_everything[] = {
    { { (const char *[]) { "*" }, 1 }, { (const char *[]) { "*" }, 1 },
      { (const char *[]) { "*" }, 1 }, { NULL, 0 },
      { (const char *[]) { "*" }, 1 } },
};


static int
gcp_ssrr_strs(json_t *obj, const char *field, const gcp_rbac_strs_t *s,
    int always)
{
    size_t   i;
    json_t  *a;

    if (s->n == 0 && !always) {
        return 0;
    }

    a = json_array();

    for (i = 0; a && i < s->n; i++) {
        json_array_append_new(a, json_string(s->v[i]));
    }

    return json_object_set_new(obj, field, a);
}


/* ResourceRule / NonResourceRule lists of rules (nothing: null). */
static json_t *
gcp_ssrr_status(const gcp_rbac_rule_t * const *rules, size_t n,
    const char *error)
{
    size_t                  i;
    json_t                 *res, *nonres, *r, *status;
    const gcp_rbac_rule_t  *rule;

    res = json_array();
    nonres = json_array();

    for (i = 0; res && nonres && i < n; i++) {
        rule = rules[i];

        if (rule->resources.n) {
            r = json_object();

            if (r == NULL
                || gcp_ssrr_strs(r, "verbs", &rule->verbs, 1) != 0
                || gcp_ssrr_strs(r, "apiGroups", &rule->groups, 0) != 0
                || gcp_ssrr_strs(r, "resources", &rule->resources, 0) != 0
                || gcp_ssrr_strs(r, "resourceNames", &rule->names, 0) != 0
                || json_array_append_new(res, r) != 0)
            {
                json_decref(r);
                break;
            }
        }

        if (rule->urls.n) {
            r = json_object();

            if (r == NULL
                || gcp_ssrr_strs(r, "verbs", &rule->verbs, 1) != 0
                || gcp_ssrr_strs(r, "nonResourceURLs", &rule->urls, 0) != 0
                || json_array_append_new(nonres, r) != 0)
            {
                json_decref(r);
                break;
            }
        }
    }

    if (res == NULL || nonres == NULL || i < n) {
        json_decref(res);
        json_decref(nonres);
        return NULL;
    }

    /* Go marshals nil slices as null */

    if (json_array_size(res) == 0) {
        json_decref(res);
        res = json_null();
    }

    if (json_array_size(nonres) == 0) {
        json_decref(nonres);
        nonres = json_null();
    }

    status = json_pack("{s:o, s:o, s:b}", "resourceRules", res,
                       "nonResourceRules", nonres, "incomplete", 0);

    if (status && error) {
        json_object_set_new(status, "evaluationError", json_string(error));
    }

    return status;
}


static int
gcp_ssrr_serve(gcp_op_t *op, json_t *obj)
{
    size_t                   i;
    json_t                  *status, *out;
    const char              *ns;
    gcp_rbac_rules_t         rules;
    const gcp_rbac_rule_t   *all[gcp_nelems(gcp_ssrr_everything)];

    if (op->req->user == NULL) {
        return gcp_review_no_user(op);
    }

    ns = gcp_review_str(json_object_get(obj, "spec"), "namespace");

    if (ns[0] == '\0') {
        gcp_op_error(op, GCP_EBADREQUEST, "no namespace on request", NULL);
        return GCP_EBADREQUEST;
    }

    if (gcp_rbac_is_authorizer(op->api->authorizer)) {
        if (gcp_rbac_rules_for(op->api, op->a, op->req->user, ns, &rules)
            != GCP_OK)
        {
            gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
            return GCP_ENOMEM;
        }

    } else {
        for (i = 0; i < gcp_nelems(gcp_ssrr_everything); i++) {
            all[i] = &gcp_ssrr_everything[i];
        }

        rules.rules = all;
        rules.n = gcp_nelems(gcp_ssrr_everything);
        rules.error = NULL;
    }

    status = gcp_ssrr_status(rules.rules, rules.n, rules.error);
    out = status ? gcp_review_response(op, obj, json_object(), status)
                 : NULL;

    if (out == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    gcp_output_object(op, 201, NULL, out);

    /* answered: nothing is stored */

    return GCP_EEXISTS;
}


static const gcp_strategy_t  gcp_ssrr_strategy = {
    .prepare_create = gcp_ssrr_serve,
};


const gcp_resource_t  gcp_type_selfsubjectrulesreviews = {
    GCP_REVIEW_TYPE("selfsubjectrulesreviews", "selfsubjectrulesreview",
                    "SelfSubjectRulesReview", 0, &gcp_ssrr_strategy),
};
