
/*
 * API version names as Kubernetes orders them (k8s.io/apimachinery's
 * version.CompareKubeAwareVersionStrings): "v1" > "v1beta2" > "v1beta1" >
 * "v1alpha1", GA before beta before alpha, then higher numbers first;
 * names of another form come after those, in string order.  Discovery
 * lists a custom resource group's versions this way.
 */

#ifndef _GCP_VERSION_H_INCLUDED_
#define _GCP_VERSION_H_INCLUDED_


#include "gcp_core.h"


/*
 * Returns > 0 when v1 has the higher priority, < 0 when v2 has, 0 when
 * they are the same.
 */
int gcp_version_compare(const char *v1, const char *v2);

/* Returns 1 when v has the form v<N>[alpha|beta<M>]. */
int gcp_version_is_kube(const char *v);


#endif /* _GCP_VERSION_H_INCLUDED_ */
