
/*
 * The admission plugins compiled into the module (see
 * gcp_admission_plugins.h).
 *
 * The order is kube-apiserver's (AllOrderedPlugins): NamespaceLifecycle
 * first; the CertificateSigningRequest plugins (approval, signing,
 * subject restriction); plugins of one's own next ("new admission
 * plugins should generally be inserted above here"); then the mutating webhooks; the
 * RBAC escalation checks, which kube-apiserver makes in the RBAC storage
 * after the mutating admission and before validation; the validating
 * webhooks; ResourceQuota last.  A plugin written for the module is
 * added to this table (docs/admission-plugins.md).
 */

#include <stdio.h>

#include "gcp_admission_plugins.h"
#include "gcp_csr_plugins.h"
#include "gcp_plugins.h"
#include "gcp_rbac.h"


static const gcp_admission_def_t  gcp_admission_defs[] = {
    { "NamespaceLifecycle", 1, gcp_namespace_lifecycle_plugin },
    { "CertificateApproval", 1, gcp_csr_approval_plugin },
    { "CertificateSigning", 1, gcp_csr_signing_plugin },
    { "CertificateSubjectRestriction", 1, gcp_csr_subject_plugin },
    { "RequiredLabels", 0, gcp_required_labels_plugin },
    { "MutatingAdmissionWebhook", 1, gcp_webhook_mutating_plugin },
    { "RBACEscalation", 1, gcp_rbac_escalation_plugin },
    { "ValidatingAdmissionWebhook", 1, gcp_webhook_validating_plugin },
    { "ResourceQuota", 1, gcp_quota_plugin },
};


const gcp_admission_def_t *
gcp_admission_plugins(size_t *n)
{
    *n = gcp_nelems(gcp_admission_defs);

    return gcp_admission_defs;
}


static const gcp_admission_def_t *
gcp_admission_def(const char *name)
{
    size_t  i;

    for (i = 0; i < gcp_nelems(gcp_admission_defs); i++) {
        if (strcmp(gcp_admission_defs[i].name, name) == 0) {
            return &gcp_admission_defs[i];
        }
    }

    return NULL;
}


static int
gcp_admission_listed(const char * const *names, size_t n, const char *name)
{
    size_t  i;

    for (i = 0; i < n; i++) {
        if (strcmp(names[i], name) == 0) {
            return 1;
        }
    }

    return 0;
}


/* The arguments the configuration gives name, or NULL. */
static const gcp_admission_args_t *
gcp_admission_args(const gcp_admission_conf_t *conf, const char *name)
{
    size_t  i;

    for (i = 0; conf && i < conf->nargs; i++) {
        if (strcmp(conf->args[i].name, name) == 0) {
            return &conf->args[i];
        }
    }

    return NULL;
}


static int
gcp_admission_enabled(const gcp_admission_conf_t *conf,
    const gcp_admission_def_t *def)
{
    if (conf == NULL) {
        return def->on;
    }

    if (gcp_admission_listed(conf->disable, conf->ndisable, def->name)) {
        return 0;
    }

    return def->on
           || gcp_admission_listed(conf->enable, conf->nenable, def->name);
}


int
gcp_admission_plugins_check(const gcp_admission_conf_t *conf, char *err,
    size_t errlen)
{
    size_t                       i;
    const gcp_admission_def_t   *def;

    if (conf == NULL) {
        return GCP_OK;
    }

    for (i = 0; i < conf->nenable; i++) {
        if (gcp_admission_def(conf->enable[i]) == NULL) {
            snprintf(err, errlen, "unknown admission plugin \"%s\"",
                     conf->enable[i]);
            return GCP_EBADREQUEST;
        }

        if (gcp_admission_listed(conf->disable, conf->ndisable,
                                 conf->enable[i]))
        {
            snprintf(err, errlen, "admission plugin \"%s\" is both enabled "
                     "and disabled", conf->enable[i]);
            return GCP_EBADREQUEST;
        }
    }

    for (i = 0; i < conf->ndisable; i++) {
        if (gcp_admission_def(conf->disable[i]) == NULL) {
            snprintf(err, errlen, "unknown admission plugin \"%s\"",
                     conf->disable[i]);
            return GCP_EBADREQUEST;
        }
    }

    for (i = 0; i < conf->nargs; i++) {
        def = gcp_admission_def(conf->args[i].name);

        if (def == NULL) {
            snprintf(err, errlen, "unknown admission plugin \"%s\"",
                     conf->args[i].name);
            return GCP_EBADREQUEST;
        }

        if (def->init(NULL, &conf->args[i], NULL, err, errlen) != GCP_OK) {
            return GCP_EBADREQUEST;
        }
    }

    return GCP_OK;
}


int
gcp_admission_plugins_setup(gcp_api_t *api, const gcp_admission_conf_t *conf,
    char *err, size_t errlen)
{
    int                          rc;
    size_t                       i;
    gcp_admission_plugin_t       p;
    const gcp_admission_def_t   *def;

    for (i = 0; i < gcp_nelems(gcp_admission_defs); i++) {
        def = &gcp_admission_defs[i];

        if (!gcp_admission_enabled(conf, def)) {
            continue;
        }

        memset(&p, 0, sizeof(p));
        p.name = def->name;

        rc = def->init(api, gcp_admission_args(conf, def->name), &p, err,
                       errlen);
        if (rc != GCP_OK) {
            return rc;
        }

        rc = gcp_admission_register(api, &p);
        if (rc != GCP_OK) {
            snprintf(err, errlen, "out of memory");
            return rc;
        }
    }

    return GCP_OK;
}
