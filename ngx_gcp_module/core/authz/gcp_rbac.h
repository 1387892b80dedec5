
/*
 * RBAC (rbac.authorization.k8s.io/v1) as the rest of the core sees it:
 *
 * - the RBAC authorizer (gcp_authz.h), deciding from the in-memory index
 *   of gcp_rbac_index.h; members of system:masters may do anything (the
 *   privileged-group authorizer kube-apiserver puts before RBAC);
 * - the escalation checks of Role, ClusterRole, RoleBinding and
 *   ClusterRoleBinding writes, the admission plugin RBACEscalation
 *   (gcp_rbac_escalation.c), whose check runs where kube-apiserver's RBAC
 *   storage makes it: after the mutating admission, before validation;
 * - ClusterRole aggregation (gcp_rbac_aggregate.c), which the
 *   controllers run (gcp_ctl_cragg.c);
 * - the bootstrap policy (gcp_rbac_policy.c);
 * - what the access review APIs need: the API's authorizer and the rules
 *   of a user.
 *
 * The per-API state lives in api->rbac.
 */

#ifndef _GCP_RBAC_H_INCLUDED_
#define _GCP_RBAC_H_INCLUDED_


#include "gcp_admission.h"
#include "gcp_authz.h"
#include "gcp_rbac_index.h"
#include "gcp_rbac_rule.h"


#define GCP_RBAC_GROUP            "rbac.authorization.k8s.io"
#define GCP_RBAC_MASTERS          "system:masters"


/*
 * Sets up RBAC's state for api (gcp_api_create).  Returns GCP_OK or
 * GCP_ENOMEM.
 */
int gcp_rbac_init(gcp_api_t *api);

/* The RBACEscalation admission plugin (a gcp_admission_init_pt). */
int gcp_rbac_escalation_plugin(gcp_api_t *api,
    const gcp_admission_args_t *args, gcp_admission_plugin_t *plugin,
    char *err, size_t errlen);

/* Releases the RBAC state of api (gcp_api_destroy); NULL state is fine. */
void gcp_rbac_free(gcp_api_t *api);

/*
 * Returns a new RBAC authorizer for api, owned by the caller (released
 * with az->destroy(az), before api is destroyed), or NULL with *err set
 * to a static message.  Its decisions come from api's index, which this
 * starts loading (at once with LMDB); until it is loaded only
 * system:masters is allowed anything.
 */
gcp_authorizer_t *gcp_rbac_authorizer_create(gcp_api_t *api,
    const char **err);

/* Returns 1 when az is an authorizer made by gcp_rbac_authorizer_create. */
int gcp_rbac_is_authorizer(const gcp_authorizer_t *az);

/*
 * Asks api's authorizer about attrs, for the access reviews.  With no
 * authorizer configured, everything is allowed (as AlwaysAllow).
 * *reason as in gcp_authz.h, except that RBAC also explains an allowed
 * request ("RBAC: allowed by ..."), which its authorize() leaves out so
 * that the request path pays no formatting.
 */
gcp_authz_decision_t gcp_rbac_api_authorize(gcp_api_t *api, gcp_arena_t *a,
    const gcp_authz_attrs_t *attrs, const char **reason);

/* Returns 1 when user is in system:masters. */
int gcp_rbac_privileged(const gcp_user_t *user);

/*
 * Returns api's index, created (and loading) on first use, borrowed; NULL
 * when out of memory.
 */
gcp_rbac_index_t *gcp_rbac_index(gcp_api_t *api);


/* The rules that apply to a user in a namespace (RulesFor). */
typedef struct {
    const gcp_rbac_rule_t  **rules;     /* borrowed from the index */
    size_t                   n;
    const char              *error;     /* aggregated resolution errors, */
                                        /* or NULL */
} gcp_rbac_rules_t;

/*
 * Fills out with the rules of user in ns ("": cluster bindings only), in
 * visiting order.  Returns GCP_OK or GCP_ENOMEM; everything but the rules
 * is owned by a.
 */
int gcp_rbac_rules_for(gcp_api_t *api, gcp_arena_t *a,
    const gcp_user_t *user, const char *ns, gcp_rbac_rules_t *out);

/*
 * Returns errs[0..n) as upstream's utilerrors.NewAggregate(errs).Error():
 * one message as is, several (without duplicates) as "[e1, e2]"; owned by
 * a, NULL when n is 0 or out of memory.
 */
const char *gcp_rbac_aggregate(gcp_arena_t *a, const char * const *errs,
    size_t n);

/*
 * Creates the bootstrap ClusterRoles and ClusterRoleBindings that do not
 * exist yet (gcp_api_bootstrap), then calls done(arg, rc) once.
 */
void gcp_rbac_bootstrap(gcp_api_t *api, void (*done)(void *arg, int rc),
    void *arg);


#endif /* _GCP_RBAC_H_INCLUDED_ */
