
/*
 * What the four RBAC types share beyond their descriptors
 * (gcp_type_role.c, gcp_type_clusterrole.c, gcp_type_rolebinding.c,
 * gcp_type_clusterrolebinding.c): kube-apiserver's validation
 * (pkg/apis/rbac/validation, with its messages), the v1 defaults of
 * bindings, and the Table cells of bindings.  The signatures are the
 * strategy hooks' (gcp_registry.h); objects are in their v1 form.
 */

#ifndef _GCP_RBAC_VALIDATION_H_INCLUDED_
#define _GCP_RBAC_VALIDATION_H_INCLUDED_


#include "gcp_op.h"


/* ValidateRole and ValidateClusterRole (metadata aside). */
void gcp_rbac_validate_role(gcp_ferrs_t *errs, const json_t *obj);
void gcp_rbac_validate_clusterrole(gcp_ferrs_t *errs, const json_t *obj);

/*
 * ValidateRoleBinding and ValidateClusterRoleBinding (metadata aside);
 * the _update forms add "cannot change roleRef".
 */
void gcp_rbac_validate_rolebinding(gcp_ferrs_t *errs, const json_t *obj);
void gcp_rbac_validate_rolebinding_update(gcp_ferrs_t *errs,
    const json_t *obj, const json_t *old);
void gcp_rbac_validate_clusterrolebinding(gcp_ferrs_t *errs,
    const json_t *obj);
void gcp_rbac_validate_clusterrolebinding_update(gcp_ferrs_t *errs,
    const json_t *obj, const json_t *old);

/*
 * Returns obj with only the fields named in order (NULL-terminated), in
 * that order: a new reference owned by the caller (obj itself, with a new
 * reference, when it is not an object); NULL when out of memory.
 */
json_t *gcp_rbac_ordered(json_t *obj, const char * const *order);

/*
 * Roles and ClusterRoles: rules and aggregationRule selectors rewritten in
 * Go field order (as kube-apiserver answers them).  Returns GCP_OK, or
 * responds with 500 and returns GCP_ENOMEM.
 */
int gcp_rbac_role_prepare(gcp_op_t *op, json_t *obj);
int gcp_rbac_role_prepare_update(gcp_op_t *op, json_t *obj,
    const json_t *old);

/*
 * The v1 defaults of a binding: roleRef.apiGroup, and apiGroup of User
 * and Group subjects, default to rbac.authorization.k8s.io; roleRef and
 * subjects are rewritten in Go field order.  Returns GCP_OK, or responds
 * with 500 and returns GCP_ENOMEM.
 */
int gcp_rbac_binding_prepare(gcp_op_t *op, json_t *obj);
int gcp_rbac_binding_prepare_update(gcp_op_t *op, json_t *obj,
    const json_t *old);

/* Table cells of a binding: Name, Role, Age, Users, Groups,
 * ServiceAccounts. */
int gcp_rbac_binding_cells(gcp_op_t *op, const json_t *obj, json_t *cells);


#endif /* _GCP_RBAC_VALIDATION_H_INCLUDED_ */
