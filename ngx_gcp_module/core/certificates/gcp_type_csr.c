
/*
 * certificates.k8s.io/v1 CertificateSigningRequest, with /approval and
 * /status (pkg/registry/certificates/certificates, v1.32): the requestor
 * is whoever creates it; the spec never changes; /approval changes only
 * the conditions, /status everything in status but the Approved and
 * Denied conditions; conditions get their timestamps.
 */

#include <string.h>

#include "gcp_csr.h"
#include "gcp_object.h"
#include "gcp_registry.h"
#include "gcp_table.h"
#include "gcp_time.h"
#include "gcp_validation.h"


static const char * const  gcp_csr_order[] = { "spec", "status", NULL };

static const char * const  gcp_csr_fields[] = {
    "metadata.name", "spec.signerName", NULL
};


/* spec.username, uid, groups and extra from who creates it */
static int
gcp_csr_requestor(json_t *spec, const gcp_user_t *u)
{
    size_t   i, j;
    json_t  *groups, *extra, *vals;

    json_object_del(spec, "username");
    json_object_del(spec, "uid");
    json_object_del(spec, "groups");
    json_object_del(spec, "extra");

    if (u == NULL) {
        return GCP_OK;
    }

    if (u->name && u->name[0]) {
        json_object_set_new(spec, "username", json_string(u->name));
    }

    if (u->uid && u->uid[0]) {
        json_object_set_new(spec, "uid", json_string(u->uid));
    }

    if (u->ngroups) {
        groups = json_array();
        if (groups == NULL) {
            return GCP_ENOMEM;
        }

        for (i = 0; i < u->ngroups; i++) {
            json_array_append_new(groups, json_string(u->groups[i]));
        }

        json_object_set_new(spec, "groups", groups);
    }

    if (u->nextra) {
        extra = json_object();
        if (extra == NULL) {
            return GCP_ENOMEM;
        }

        for (i = 0; i < u->nextra; i++) {
            vals = json_array();

            for (j = 0; vals && j < u->extra[i].nvalues; j++) {
                json_array_append_new(vals,
                                      json_string(u->extra[i].values[j]));
            }

            json_object_set_new(extra, u->extra[i].key, vals);
        }

        json_object_set_new(spec, "extra", extra);
    }

    return GCP_OK;
}


static int
gcp_csr_prepare_create(gcp_op_t *op, json_t *obj)
{
    json_t  *spec;

    spec = json_object_get(obj, "spec");

    if (!json_is_object(spec)) {
        spec = json_object();
        json_object_set_new(obj, "spec", spec);
    }

    if (spec == NULL
        || gcp_csr_requestor(spec, op->req->user) != GCP_OK
        || json_object_set_new(obj, "status", json_object()) != 0)
    {
        return GCP_ENOMEM;
    }

    return GCP_OK;
}


static void
gcp_csr_keep(json_t *obj, const json_t *old, const char *field)
{
    json_t  *v;

    v = json_object_get(old, field);

    if (v) {
        json_object_set(obj, field, v);

    } else {
        json_object_del(obj, field);
    }
}


static int
gcp_csr_prepare_update(gcp_op_t *op, json_t *obj, const json_t *old)
{
    gcp_csr_keep(obj, old, "spec");
    gcp_csr_keep(obj, old, "status");

    return GCP_OK;
}


static const char *
gcp_csr_cstr(const json_t *c, const char *field)
{
    const char  *s;

    s = json_string_value(json_object_get(c, field));

    return s ? s : "";
}


static int
gcp_csr_time_unset(const json_t *c, const char *field)
{
    const json_t  *v;

    v = json_object_get(c, field);

    return !json_is_string(v) || json_string_length(v) == 0;
}


/* populateConditionTimestamps */
static void
gcp_csr_timestamps(json_t *obj, const json_t *old)
{
    char         now[GCP_TIME_BUFSIZE];
    size_t       i, j;
    json_t      *c, *o;
    const char  *t;

    gcp_time_format(now, gcp_time_now().tv_sec);

    json_array_foreach(json_object_get(json_object_get(obj, "status"),
                                       "conditions"), i, c)
    {
        if (!json_is_object(c)) {
            continue;
        }

        if (gcp_csr_time_unset(c, "lastUpdateTime")) {
            json_object_set_new(c, "lastUpdateTime", json_string(now));
        }

        if (!gcp_csr_time_unset(c, "lastTransitionTime")) {
            continue;
        }

        t = now;

        json_array_foreach(json_object_get(json_object_get(old, "status"),
                                           "conditions"), j, o)
        {
            if (strcmp(gcp_csr_cstr(o, "type"), gcp_csr_cstr(c, "type")) == 0
                && strcmp(gcp_csr_cstr(o, "status"),
                          gcp_csr_cstr(c, "status")) == 0
                && !gcp_csr_time_unset(o, "lastTransitionTime"))
            {
                t = gcp_csr_cstr(o, "lastTransitionTime");
                break;
            }
        }

        json_object_set_new(c, "lastTransitionTime", json_string(t));
    }
}


/*
 * The conditions of type in obj take the values of those in old, when
 * there are as many (preserveConditionInstances).
 */
static void
gcp_csr_preserve(json_t *obj, const json_t *old, const char *type)
{
    size_t   i, j, n, m;
    json_t  *c, *nc, *oc;

    nc = json_object_get(json_object_get(obj, "status"), "conditions");
    oc = json_object_get(json_object_get(old, "status"), "conditions");

    n = 0;
    m = 0;

    json_array_foreach(nc, i, c) {
        n += strcmp(gcp_csr_cstr(c, "type"), type) == 0;
    }

    json_array_foreach(oc, i, c) {
        m += strcmp(gcp_csr_cstr(c, "type"), type) == 0;
    }

    if (n != m) {
        return;
    }

    j = 0;

    json_array_foreach(nc, i, c) {
        if (strcmp(gcp_csr_cstr(c, "type"), type) != 0) {
            continue;
        }

        while (j < json_array_size(oc)
               && strcmp(gcp_csr_cstr(json_array_get(oc, j), "type"), type)
                  != 0)
        {
            j++;
        }

        json_array_set(nc, i, json_array_get(oc, j));
        j++;
    }
}


static int
gcp_csr_prepare_sub(gcp_op_t *op, json_t *obj, const json_t *old)
{
    json_t  *status, *conds;

    gcp_csr_keep(obj, old, "spec");

    if (!json_is_object(json_object_get(obj, "status"))) {
        json_object_set_new(obj, "status", json_object());
    }

    if (strcmp(op->sub->name, "approval") == 0) {
        /* only the conditions change */

        gcp_csr_timestamps(obj, old);

        conds = json_object_get(json_object_get(obj, "status"), "conditions");
        json_incref(conds);

        status = json_deep_copy(json_object_get(old, "status"));
        status = status ? status : json_object();

        if (conds) {
            json_object_set_new(status, "conditions", conds);

        } else {
            json_object_del(status, "conditions");
        }

        json_object_set_new(obj, "status", status);

        return GCP_OK;
    }

    gcp_csr_preserve(obj, old, "Approved");
    gcp_csr_preserve(obj, old, "Denied");
    gcp_csr_timestamps(obj, old);

    return GCP_OK;
}


static void
gcp_csr_validate_request(gcp_op_t *op, gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old)
{
    gcp_csr_validate(errs, obj, old, op->sub ? op->sub->name : NULL);
}


/* extractCSRStatus */
static const char *
gcp_csr_status_text(gcp_arena_t *a, const json_t *obj)
{
    const char    *s;
    const json_t  *cert;

    if (gcp_csr_condition(obj, "Denied")) {
        s = "Denied";

    } else if (gcp_csr_condition(obj, "Approved")) {
        s = "Approved";

    } else {
        s = "Pending";
    }

    cert = json_object_get(json_object_get(obj, "status"), "certificate");

    return gcp_sprintf(a, "%s%s%s", s,
                       gcp_csr_condition(obj, "Failed") ? ",Failed" : "",
                       json_string_length(cert) ? ",Issued" : "");
}


/* Name, Age, SignerName, Requestor, RequestedDuration, Condition */
static int
gcp_csr_cells(gcp_op_t *op, const json_t *obj, json_t *cells)
{
    char           buf[GCP_TIME_BUFSIZE];
    const char    *signer, *user, *dur;
    const json_t  *spec, *exp;

    spec = json_object_get(obj, "spec");
    signer = gcp_csr_cstr(spec, "signerName");
    user = gcp_csr_cstr(spec, "username");
    exp = json_object_get(spec, "expirationSeconds");
    dur = "<none>";

    if (json_is_integer(exp)) {
        gcp_human_duration(buf, (int64_t) json_integer_value(exp)
                                * 1000000000);
        dur = buf;
    }

    gcp_table_cell_name(cells, obj);
    gcp_table_cell_age(cells, obj);
    json_array_append_new(cells, json_string(signer[0] ? signer : "<none>"));
    json_array_append_new(cells, json_string(user));
    json_array_append_new(cells, json_string(dur));
    json_array_append_new(cells,
                          json_string(gcp_csr_status_text(op->a, obj) ?: ""));

    return GCP_OK;
}


static const char *
gcp_csr_field(gcp_op_t *op, const json_t *obj, const char *field)
{
    if (strcmp(field, "spec.signerName") == 0) {
        return gcp_csr_cstr(json_object_get(obj, "spec"), "signerName");
    }

    return NULL;
}


static const gcp_strategy_t  gcp_csr_strategy = {
    .field_order = gcp_csr_order,
    .prepare_create = gcp_csr_prepare_create,
    .prepare_update = gcp_csr_prepare_update,
    .prepare_status_update = gcp_csr_prepare_sub,
    .validate_request = gcp_csr_validate_request,
    .table_cells = gcp_csr_cells,
    .field_value = gcp_csr_field,
};


static const gcp_subresource_t  gcp_csr_subresources[] = {
    { "approval", GCP_SUB_STATUS,
      GCP_VERB_GET | GCP_VERB_PATCH | GCP_VERB_UPDATE, NULL, NULL, NULL },
    { "status", GCP_SUB_STATUS,
      GCP_VERB_GET | GCP_VERB_PATCH | GCP_VERB_UPDATE, NULL, NULL, NULL },
};


static const gcp_column_t  gcp_csr_columns[] = {
    GCP_COLUMN_NAME,
    GCP_COLUMN_AGE,
    { "SignerName", "string", "", "Requested signer for the request. It is "
      "a qualified name in the form: `scope-hostname.io/name`. If empty, it "
      "will be defaulted:\n 1. If it's a kubelet client certificate, it is "
      "assigned\n    \"kubernetes.io/kube-apiserver-client-kubelet\".\n 2. "
      "If it's a kubelet serving certificate, it is assigned\n    "
      "\"kubernetes.io/kubelet-serving\".\n 3. Otherwise, it is assigned "
      "\"kubernetes.io/legacy-unknown\".\nDistribution of trust for "
      "signers happens out of band. You can select on this field using "
      "`spec.signerName`.", 0 },
    { "Requestor", "string", "", "Base64-encoded PKCS#10 CSR data", 0 },
    { "RequestedDuration", "string", "", "expirationSeconds is the "
      "requested duration of validity of the issued certificate. The "
      "certificate signer may issue a certificate with a different validity "
      "duration so a client must check the delta between the notBefore and "
      "and notAfter fields in the issued certificate to determine the "
      "actual duration.\n\nThe v1.22+ in-tree implementations of the "
      "well-known Kubernetes signers will honor this field as long as the "
      "requested duration is not greater than the maximum duration they "
      "will honor per the --cluster-signing-duration CLI flag to the "
      "Kubernetes controller manager.\n\nCertificate signers may not honor "
      "this field for various reasons:\n\n  1. Old signer that is unaware "
      "of the field (such as the in-tree\n     implementations prior to "
      "v1.22)\n  2. Signer whose configured maximum is shorter than the "
      "requested duration\n  3. Signer whose configured minimum is longer "
      "than the requested duration\n\nThe minimum valid value for "
      "expirationSeconds is 600, i.e. 10 minutes.\n\nAs of v1.22, this "
      "field is beta and is controlled via the CSRDuration feature gate.",
      0 },
    { "Condition", "string", "", "Conditions applied to the request, such "
      "as approval or denial.", 0 },
};


const gcp_resource_t  gcp_type_certificatesigningrequests = {
    .protobuf = 1,
    .group = GCP_CSR_GROUP,
    .version = "v1",
    .name = "certificatesigningrequests",
    .singular = "certificatesigningrequest",
    .kind = "CertificateSigningRequest",
    .list_kind = "CertificateSigningRequestList",
    .short_names = (const char * const []) { "csr", NULL },
    .name_mode = GCP_NAME_PATH_SEGMENT,
    .verbs = GCP_VERBS_CRUD,
    .subresources = gcp_csr_subresources,
    .nsubresources = gcp_nelems(gcp_csr_subresources),
    .schema = "io.k8s.api.certificates.v1.CertificateSigningRequest",
    .list_schema = "io.k8s.api.certificates.v1.CertificateSigningRequestList",
    .storage = "certificates.k8s.io/certificatesigningrequests",
    .columns = gcp_csr_columns,
    .ncolumns = gcp_nelems(gcp_csr_columns),
    .field_labels = gcp_csr_fields,
    .strategy = &gcp_csr_strategy,
};
