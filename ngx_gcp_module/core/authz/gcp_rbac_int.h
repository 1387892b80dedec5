
/*
 * Between the parts of RBAC (gcp_rbac.c and the files it sets up); not
 * for the rest of the core, which uses gcp_rbac.h.
 */

#ifndef _GCP_RBAC_INT_H_INCLUDED_
#define _GCP_RBAC_INT_H_INCLUDED_


#include "gcp_admission.h"
#include "gcp_rbac.h"


/*
 * The escalation checks, the step of the RBACEscalation admission plugin
 * (data: the gcp_api_t), gcp_rbac_escalation.c.
 */
void gcp_rbac_escalation_admit(void *data, gcp_admit_t *ad,
    gcp_admit_done_pt done);


#endif /* _GCP_RBAC_INT_H_INCLUDED_ */
