
/*
 * Validation of metav1.LabelSelector values written in objects (webhook
 * configurations' selectors, aggregation rules, access reviews), as
 * k8s.io/apimachinery/pkg/apis/meta/v1/validation, with its messages.
 */

#ifndef _GCP_VALIDATION_SELECTOR_H_INCLUDED_
#define _GCP_VALIDATION_SELECTOR_H_INCLUDED_


#include <jansson.h>

#include "gcp_ferr.h"


/*
 * ValidateLabelSelectorRequirement of req at path (the operator, values,
 * key and label values); allow_unknown accepts operators it does not know
 * (the access reviews do).
 */
void gcp_validate_label_requirement(gcp_ferrs_t *errs, const json_t *req,
    const char *path, int allow_unknown);

/*
 * ValidateLabelSelector of sel (NULL or null: nothing to check) at path:
 * matchLabels as labels, each of matchExpressions as a requirement.
 */
void gcp_validate_label_selector(gcp_ferrs_t *errs, const json_t *sel,
    const char *path);


#endif /* _GCP_VALIDATION_SELECTOR_H_INCLUDED_ */
