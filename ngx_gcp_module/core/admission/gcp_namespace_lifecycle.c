
/*
 * The NamespaceLifecycle admission plugin, as upstream's (a mutating step
 * that changes nothing): default, kube-system and kube-public may not be
 * deleted; objects are not written into a namespace that does not exist
 * (404 for the namespace), nor created in one being terminated (403 with
 * a NamespaceTerminating cause).  Namespaces themselves, cluster-scoped
 * objects, deletes and access reviews pass.  The namespace is read from
 * the store, so every worker and instance sees the same answer.
 */

#include "gcp_plugins.h"
#include "gcp_object.h"
#include "gcp_types.h"


static const char * const  gcp_nsl_immortal[] = {
    "default", "kube-system", "kube-public", NULL
};


typedef struct {
    gcp_admit_t        *ad;
    gcp_admit_done_pt   done;
} gcp_nsl_t;


static int
gcp_nsl_is_namespace(const gcp_resource_t *res)
{
    return res->group[0] == '\0' && strcmp(res->name, "namespaces") == 0;
}


static void
gcp_nsl_got(void *arg, gcp_store_result_t *res)
{
    json_t                *ns;
    const char            *phase;
    gcp_nsl_t             *l = arg;
    gcp_admit_t           *ad = l->ad;
    gcp_op_t              *op = ad->op;
    gcp_status_details_t   d;
    gcp_status_cause_t     cause;

    if (res->rc == GCP_OK && res->nkvs == 0) {
        res->rc = GCP_ENOTFOUND;
    }

    if (res->rc == GCP_ENOTFOUND) {
        memset(&d, 0, sizeof(d));
        d.name = op->ri.ns;
        d.kind = "namespaces";

        gcp_op_error(op, GCP_ENOTFOUND,
                     gcp_sprintf(op->a, "namespaces \"%s\" not found",
                                 op->ri.ns), &d);
        l->done(ad, GCP_ENOTFOUND);
        return;
    }

    if (res->rc != GCP_OK) {
        /* the store's own status: 503 or 504 when etcd has no quorum */
        gcp_op_error(op, res->rc, res->message, NULL);
        l->done(ad, res->rc);
        return;
    }

    if (ad->operation != GCP_ADMIT_CREATE) {
        l->done(ad, GCP_OK);
        return;
    }

    ns = gcp_object_decode(op->a, res->kvs[0].value, 0);
    phase = json_string_value(json_object_get(json_object_get(ns, "status"),
                                              "phase"));

    if (ns == NULL
        || (gcp_meta_str(ns, "deletionTimestamp")[0] == '\0'
            && (phase == NULL || strcmp(phase, "Terminating") != 0)))
    {
        l->done(ad, GCP_OK);
        return;
    }

    memset(&d, 0, sizeof(d));
    memset(&cause, 0, sizeof(cause));

    cause.reason = "NamespaceTerminating";
    cause.message = gcp_sprintf(op->a, "namespace %s is being terminated",
                                op->ri.ns);
    cause.field = "metadata.namespace";

    d.name = ad->name;
    d.group = op->res->group;
    d.kind = op->res->name;
    d.cause = &cause;

    gcp_op_error(op, GCP_EFORBIDDEN,
                 gcp_sprintf(op->a, "%s \"%s\" is forbidden: unable to "
                             "create new content in namespace %s because it "
                             "is being terminated",
                             gcp_op_qualified_resource(op, op->res),
                             ad->name, op->ri.ns), &d);
    l->done(ad, GCP_EFORBIDDEN);
}


static void
gcp_nsl_admit(void *data, gcp_admit_t *ad, gcp_admit_done_pt done)
{
    size_t       i;
    gcp_op_t    *op = ad->op;
    gcp_nsl_t   *l;

    if (gcp_nsl_is_namespace(op->res)) {
        if (ad->operation == GCP_ADMIT_DELETE) {
            for (i = 0; gcp_nsl_immortal[i]; i++) {
                if (strcmp(ad->name, gcp_nsl_immortal[i]) == 0) {
                    gcp_op_error_obj(op, GCP_EFORBIDDEN,
                                     gcp_sprintf(op->a, "namespaces \"%s\" "
                                                 "is forbidden: this "
                                                 "namespace may not be "
                                                 "deleted", ad->name),
                                     ad->name);
                    done(ad, GCP_EFORBIDDEN);
                    return;
                }
            }
        }

        done(ad, GCP_OK);
        return;
    }

    if (op->ri.ns[0] == '\0' || ad->operation == GCP_ADMIT_DELETE
        || strcmp(op->res->name, "localsubjectaccessreviews") == 0)
    {
        done(ad, GCP_OK);
        return;
    }

    l = gcp_alloc(op->a, sizeof(gcp_nsl_t));
    if (l == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        done(ad, GCP_ENOMEM);
        return;
    }

    l->ad = ad;
    l->done = done;

    gcp_store_get(op->api->store,
                  gcp_object_key(op->a, &gcp_type_namespaces, "", op->ri.ns),
                  0, op->a, gcp_nsl_got, l);
}


int
gcp_namespace_lifecycle_plugin(gcp_api_t *api,
    const gcp_admission_args_t *args, gcp_admission_plugin_t *plugin,
    char *err, size_t errlen)
{
    if (gcp_admission_no_args(args, err, errlen) != GCP_OK) {
        return GCP_EBADREQUEST;
    }

    if (plugin) {
        plugin->admit = gcp_nsl_admit;
    }

    return GCP_OK;
}
