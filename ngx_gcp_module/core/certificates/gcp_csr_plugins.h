
/*
 * The admission plugins of CertificateSigningRequests, as
 * server/gcp_admission_plugins.c lists them (each a gcp_admission_init_pt,
 * see gcp_admission.h; gcp_csr_admission.c):
 *
 *   CertificateApproval             gcp_csr_approval_plugin
 *   CertificateSigning              gcp_csr_signing_plugin
 *   CertificateSubjectRestriction   gcp_csr_subject_plugin
 */

#ifndef _GCP_CSR_PLUGINS_H_INCLUDED_
#define _GCP_CSR_PLUGINS_H_INCLUDED_


#include "gcp_admission.h"


int gcp_csr_approval_plugin(gcp_api_t *api, const gcp_admission_args_t *args,
    gcp_admission_plugin_t *plugin, char *err, size_t errlen);

int gcp_csr_signing_plugin(gcp_api_t *api, const gcp_admission_args_t *args,
    gcp_admission_plugin_t *plugin, char *err, size_t errlen);

int gcp_csr_subject_plugin(gcp_api_t *api, const gcp_admission_args_t *args,
    gcp_admission_plugin_t *plugin, char *err, size_t errlen);


#endif /* _GCP_CSR_PLUGINS_H_INCLUDED_ */
