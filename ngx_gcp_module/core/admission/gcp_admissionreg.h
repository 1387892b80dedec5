
/*
 * admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and
 * ValidatingWebhookConfiguration as built-in types: their descriptors and
 * strategies (gcp_type_webhookconfig.c: v1 defaults, Go field order,
 * Table), and their validation with kube-apiserver's messages
 * (gcp_webhookcfg_validation.c).  The webhooks they configure are called
 * by the admission plugins of gcp_webhook.h.
 */

#ifndef _GCP_ADMISSIONREG_H_INCLUDED_
#define _GCP_ADMISSIONREG_H_INCLUDED_


#include <jansson.h>

#include "gcp_registry.h"


#define GCP_ADMISSIONREG_GROUP  "admissionregistration.k8s.io"


extern const gcp_resource_t  gcp_type_mutatingwebhookconfigurations;
extern const gcp_resource_t  gcp_type_validatingwebhookconfigurations;


/*
 * Validates a configuration as upstream's validation package: metadata is
 * the registry's; here every webhook (name, rules, policies, selectors,
 * client configuration, AdmissionReview versions, unique names).  old is
 * the stored configuration on an update (what it already holds relaxes
 * some rules, as upstream), NULL on a create.  matchConditions (CEL) are
 * refused unless an update leaves them as they were.
 */
void gcp_webhookcfg_validate(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old, int mutating);


#endif /* _GCP_ADMISSIONREG_H_INCLUDED_ */
