
/*
 * Upstream's admission plugins of CertificateSigningRequests
 * (plugin/pkg/admission/certificates): CertificateApproval (approving or
 * denying through /approval needs the verb "approve" on the "signers"
 * resource named by the request's signerName, or by its domain's
 * wildcard, the domain followed by a slash and an asterisk),
 * CertificateSigning (a change of status.certificate or of the conditions
 * through /status needs "sign"), CertificateSubjectRestriction (no
 * request for the kube-apiserver-client signer in the group
 * system:masters).  Their validating steps only refuse.
 */

#include <string.h>

#include "gcp_admission_plugin.h"
#include "gcp_csr.h"
#include "gcp_csr_plugins.h"
#include "gcp_rbac.h"


static const char *
gcp_csr_signer_of(const json_t *obj)
{
    const char  *s;

    s = json_string_value(json_object_get(json_object_get(obj, "spec"),
                                          "signerName"));

    return s ? s : "";
}


static int
gcp_csr_is_csr(gcp_admit_t *ad, const char *sub)
{
    const gcp_resource_t  *res;

    res = gcp_admission_resource(ad);

    return strcmp(res->group, GCP_CSR_GROUP) == 0
           && strcmp(res->name, "certificatesigningrequests") == 0
           && strcmp(gcp_admission_subresource(ad), sub) == 0;
}


/* IsAuthorizedForSignerName: the signer name, then its domain wildcard */
static int
gcp_csr_may(gcp_admit_t *ad, gcp_api_t *api, const char *verb,
    const char *signer)
{
    int                 i;
    size_t              n;
    const char         *reason, *slash;
    gcp_arena_t        *a;
    gcp_authz_attrs_t   attrs;

    a = gcp_admission_arena(ad);

    memset(&attrs, 0, sizeof(attrs));

    attrs.user = gcp_admission_user(ad);
    attrs.verb = verb;
    attrs.resource_request = 1;
    attrs.group = GCP_CSR_GROUP;
    attrs.version = "*";
    attrs.resource = "signers";
    attrs.subresource = "";
    attrs.ns = "";
    attrs.path = "";

    if (attrs.user == NULL) {
        return 1;
    }

    for (i = 0; i < 2; i++) {
        if (i == 0) {
            attrs.name = signer;

        } else {
            slash = strchr(signer, '/');
            n = slash ? (size_t) (slash - signer) : strlen(signer);
            attrs.name = gcp_sprintf(a, "%.*s/*", (int) n, signer);

            if (attrs.name == NULL) {
                return 0;
            }
        }

        if (gcp_rbac_api_authorize(api, a, &attrs, &reason)
            == GCP_AUTHZ_ALLOW)
        {
            return 1;
        }
    }

    return 0;
}


static void
gcp_csr_approval_validate(void *data, gcp_admit_t *ad,
    gcp_admit_done_pt done)
{
    const char  *signer;

    if (ad->operation != GCP_ADMIT_UPDATE || !gcp_csr_is_csr(ad, "approval"))
    {
        done(ad, GCP_OK);
        return;
    }

    /* the new object's signerName */

    signer = gcp_csr_signer_of(ad->obj);

    if (!gcp_csr_may(ad, data, "approve", signer)) {
        done(ad, gcp_admission_forbid(ad, "user not permitted to approve "
                                      "requests with signerName \"%s\"",
                                      signer));
        return;
    }

    done(ad, GCP_OK);
}


/* isSignificantCSRStatusUpdate */
static int
gcp_csr_status_changed(const json_t *obj, const json_t *old)
{
    size_t         i;
    const json_t  *x, *y;

    static const char * const  fields[] = { "certificate", "conditions" };

    for (i = 0; i < gcp_nelems(fields); i++) {
        x = json_object_get(json_object_get(obj, "status"), fields[i]);
        y = json_object_get(json_object_get(old, "status"), fields[i]);

        if ((x == NULL) != (y == NULL) || (x && !json_equal(x, y))) {
            return 1;
        }
    }

    return 0;
}


static void
gcp_csr_signing_validate(void *data, gcp_admit_t *ad, gcp_admit_done_pt done)
{
    const char  *signer;

    if (ad->operation != GCP_ADMIT_UPDATE || !gcp_csr_is_csr(ad, "status")
        || ad->old == NULL || !gcp_csr_status_changed(ad->obj, ad->old))
    {
        done(ad, GCP_OK);
        return;
    }

    /* the stored object's signerName */

    signer = gcp_csr_signer_of(ad->old);

    if (!gcp_csr_may(ad, data, "sign", signer)) {
        done(ad, gcp_admission_forbid(ad, "user not permitted to sign "
                                      "requests with signerName \"%s\"",
                                      signer));
        return;
    }

    done(ad, GCP_OK);
}


static void
gcp_csr_subject_validate(void *data, gcp_admit_t *ad, gcp_admit_done_pt done)
{
    size_t           i;
    gcp_str_t        req;
    const char      *signer, *err;
    gcp_arena_t     *a;
    gcp_csr_info_t   info;

    if (ad->operation != GCP_ADMIT_CREATE || !gcp_csr_is_csr(ad, "")) {
        done(ad, GCP_OK);
        return;
    }

    signer = gcp_csr_signer_of(ad->obj);

    if (strcmp(signer, GCP_CSR_SIGNER_APISERVER_CLIENT) != 0) {
        done(ad, GCP_OK);
        return;
    }

    a = gcp_admission_arena(ad);

    /* validation has parsed it already: it parses */

    if (gcp_csr_bytes(a, ad->obj, "spec", "request", &req) != GCP_OK
        || gcp_csr_parse(a, req.data, req.len, &info, &err) != GCP_OK)
    {
        done(ad, GCP_OK);
        return;
    }

    for (i = 0; i < info.norgs; i++) {
        if (strcmp(info.orgs[i], "system:masters") == 0) {
            done(ad, gcp_admission_forbid(ad, "use of %s signer with "
                                          "system:masters group is not "
                                          "allowed", signer));
            return;
        }
    }

    done(ad, GCP_OK);
}


static int
gcp_csr_plugin(gcp_api_t *api, const gcp_admission_args_t *args,
    gcp_admission_plugin_t *plugin, char *err, size_t errlen,
    void (*validate)(void *data, gcp_admit_t *ad, gcp_admit_done_pt done))
{
    if (gcp_admission_no_args(args, err, errlen) != GCP_OK) {
        return GCP_EBADREQUEST;
    }

    if (plugin) {
        plugin->validate = validate;
        plugin->data = api;
    }

    return GCP_OK;
}


int
gcp_csr_approval_plugin(gcp_api_t *api, const gcp_admission_args_t *args,
    gcp_admission_plugin_t *plugin, char *err, size_t errlen)
{
    return gcp_csr_plugin(api, args, plugin, err, errlen,
                          gcp_csr_approval_validate);
}


int
gcp_csr_signing_plugin(gcp_api_t *api, const gcp_admission_args_t *args,
    gcp_admission_plugin_t *plugin, char *err, size_t errlen)
{
    return gcp_csr_plugin(api, args, plugin, err, errlen,
                          gcp_csr_signing_validate);
}


int
gcp_csr_subject_plugin(gcp_api_t *api, const gcp_admission_args_t *args,
    gcp_admission_plugin_t *plugin, char *err, size_t errlen)
{
    return gcp_csr_plugin(api, args, plugin, err, errlen,
                          gcp_csr_subject_validate);
}
