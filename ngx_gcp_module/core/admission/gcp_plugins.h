
/*
 * The admission plugins of this folder, as server/gcp_admission_plugins.c
 * lists them (each a gcp_admission_init_pt, see gcp_admission.h):
 *
 *   NamespaceLifecycle          gcp_namespace_lifecycle.c
 *   RequiredLabels              gcp_required_labels.c (the example of
 *                               docs/admission-plugins.md)
 *   MutatingAdmissionWebhook    gcp_webhook_mutating.c
 *   ValidatingAdmissionWebhook  gcp_webhook_validating.c
 *   ResourceQuota               gcp_quota_admission.c
 */

#ifndef _GCP_PLUGINS_H_INCLUDED_
#define _GCP_PLUGINS_H_INCLUDED_


#include "gcp_admission.h"


int gcp_namespace_lifecycle_plugin(gcp_api_t *api,
    const gcp_admission_args_t *args, gcp_admission_plugin_t *plugin,
    char *err, size_t errlen);

int gcp_required_labels_plugin(gcp_api_t *api,
    const gcp_admission_args_t *args, gcp_admission_plugin_t *plugin,
    char *err, size_t errlen);

int gcp_webhook_mutating_plugin(gcp_api_t *api,
    const gcp_admission_args_t *args, gcp_admission_plugin_t *plugin,
    char *err, size_t errlen);

int gcp_webhook_validating_plugin(gcp_api_t *api,
    const gcp_admission_args_t *args, gcp_admission_plugin_t *plugin,
    char *err, size_t errlen);

int gcp_quota_plugin(gcp_api_t *api, const gcp_admission_args_t *args,
    gcp_admission_plugin_t *plugin, char *err, size_t errlen);


#endif /* _GCP_PLUGINS_H_INCLUDED_ */
