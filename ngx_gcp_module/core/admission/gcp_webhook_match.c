
/*
 * Which webhooks a request reaches (see gcp_webhook.h), as upstream's
 * rules.Matcher, namespace.Matcher and object.Matcher: a rule matches the
 * operation, group, version, resource and subresource ("*" wildcards, on
 * either side of "res/sub") and scope; with matchPolicy Equivalent, a rule
 * that names another resource with the same storage matches too (the webhook
 * then gets the object in that resource's form).  The namespace selector
 * is matched against the labels of the request's namespace (of the
 * Namespace object itself on its create and update; cluster-scoped objects
 * always match), the object selector against the new or the old object.
 */

#include "gcp_admissionreg.h"
#include "gcp_object.h"
#include "gcp_types.h"
#include "gcp_webhook.h"


int
gcp_webhook_exempt(const gcp_admit_t *ad)
{
    /* a broken webhook cannot lock its own configuration away */

    return strcmp(ad->op->res->group, GCP_ADMISSIONREG_GROUP) == 0;
}


static int
gcp_whm_is_namespaces(const gcp_resource_t *res)
{
    return res->group[0] == '\0' && strcmp(res->name, "namespaces") == 0;
}


const char *
gcp_webhook_namespace(const gcp_admit_t *ad)
{
    gcp_op_t  *op = ad->op;

    if (gcp_whm_is_namespaces(op->res)) {
        return op->ri.ns[0] ? op->ri.ns : ad->name;
    }

    return op->ri.ns;
}


static int
gcp_whm_listed(const char * const *items, const char *s)
{
    size_t  i;

    for (i = 0; items && items[i]; i++) {
        if (strcmp(items[i], "*") == 0 || strcmp(items[i], s) == 0) {
            return 1;
        }
    }

    return 0;
}


static int
gcp_whm_resource(const char * const *items, const char *res,
    const char *sub)
{
    size_t       i, n;
    const char  *slash, *r, *s;

    for (i = 0; items && items[i]; i++) {
        r = items[i];
        slash = strchr(r, '/');
        n = slash ? (size_t) (slash - r) : strlen(r);
        s = slash ? slash + 1 : "";

        if (((n == 1 && r[0] == '*')
             || (strlen(res) == n && strncmp(r, res, n) == 0))
            && (strcmp(s, "*") == 0 || strcmp(s, sub) == 0))
        {
            return 1;
        }
    }

    return 0;
}


/* rules.Matcher.Matches for the request's attributes as resource res. */
static int
gcp_whm_rule(const gcp_webhook_rule_t *r, const gcp_admit_t *ad,
    const gcp_resource_t *res)
{
    int        cluster;
    unsigned   op;
    gcp_op_t  *o = ad->op;

    cluster = gcp_whm_is_namespaces(res)
              || gcp_webhook_namespace(ad)[0] == '\0';

    if ((r->scope == GCP_WH_SCOPE_NAMESPACED && cluster)
        || (r->scope == GCP_WH_SCOPE_CLUSTER && !cluster))
    {
        return 0;
    }

    op = ad->operation == GCP_ADMIT_CREATE ? GCP_WH_OP_CREATE
         : ad->operation == GCP_ADMIT_UPDATE ? GCP_WH_OP_UPDATE
         : GCP_WH_OP_DELETE;

    return (r->ops & op)
           && gcp_whm_listed(r->groups, res->group)
           && gcp_whm_listed(r->versions, res->version)
           && gcp_whm_resource(r->resources, res->name,
                               o->sub ? o->sub->name : "");
}


int
gcp_webhook_rules_match(const gcp_webhook_t *hook, const gcp_admit_t *ad,
    gcp_webhook_invocation_t *inv)
{
    size_t                  i, j;
    gcp_op_t               *op = ad->op;
    gcp_registry_t         *reg = op->api->registry;
    const gcp_resource_t   *eq;

    inv->hook = hook;
    inv->res = op->res;

    for (i = 0; i < hook->nrules; i++) {
        if (gcp_whm_rule(&hook->rules[i], ad, op->res)) {
            return 1;
        }
    }

    if (!hook->equivalent) {
        return 0;
    }

    /* the same objects served by another group or version */

    for (i = 0; i < hook->nrules; i++) {
        for (j = 0; j < reg->n; j++) {
            eq = reg->resources[j];

            if (eq == op->res || strcmp(eq->storage, op->res->storage) != 0)
            {
                continue;
            }

            if (gcp_whm_rule(&hook->rules[i], ad, eq)) {
                inv->res = eq;
                return 1;
            }
        }
    }

    return 0;
}


/* The labels of the Namespace being created or updated itself. */
static int
gcp_whm_own_labels(const gcp_admit_t *ad)
{
    return gcp_whm_is_namespaces(ad->op->res) && ad->op->sub == NULL
           && (ad->operation == GCP_ADMIT_CREATE
               || ad->operation == GCP_ADMIT_UPDATE);
}


int
gcp_webhook_needs_namespace(const gcp_webhook_t *hook,
    const gcp_admit_t *ad, const gcp_webhook_ns_t *ns)
{
    return hook->ns_sel && ns->state == 0 && gcp_webhook_namespace(ad)[0]
           && !gcp_whm_own_labels(ad);
}


typedef struct {
    gcp_webhook_ns_t   *ns;
    gcp_op_t           *op;
    void              (*done)(void *arg);
    void               *arg;
} gcp_whm_read_t;


static void
gcp_whm_ns_got(void *arg, gcp_store_result_t *res)
{
    json_t          *obj;
    gcp_whm_read_t  *r = arg;

    r->ns->state = 2;

    if (res->rc == GCP_OK && res->nkvs) {
        obj = gcp_object_decode(r->op->a, res->kvs[0].value, 0);

        if (obj) {
            r->ns->state = 1;
            r->ns->labels = json_object_get(json_object_get(obj,
                                                            "metadata"),
                                            "labels");
        }
    }

    r->done(r->arg);
}


void
gcp_webhook_read_namespace(gcp_admit_t *ad, gcp_webhook_ns_t *ns,
    void (*done)(void *arg), void *arg)
{
    gcp_op_t        *op = ad->op;
    gcp_whm_read_t  *r;

    r = gcp_alloc(op->a, sizeof(gcp_whm_read_t));
    if (r == NULL) {
        ns->state = 2;
        done(arg);
        return;
    }

    r->ns = ns;
    r->op = op;
    r->done = done;
    r->arg = arg;

    gcp_store_get(op->api->store,
                  gcp_object_key(op->a, &gcp_type_namespaces, "",
                                 gcp_webhook_namespace(ad)),
                  0, op->a, gcp_whm_ns_got, r);
}


static int
gcp_whm_object(const gcp_label_selector_t *sel, const json_t *obj)
{
    return obj != NULL
           && gcp_label_selector_matches(sel,
                  json_object_get(json_object_get(obj, "metadata"),
                                  "labels"));
}


int
gcp_webhook_selectors_match(const gcp_webhook_t *hook, const gcp_admit_t *ad,
    const gcp_webhook_ns_t *ns)
{
    const json_t  *labels;

    if (hook->ns_sel && gcp_webhook_namespace(ad)[0]) {
        if (gcp_whm_own_labels(ad)) {
            labels = json_object_get(json_object_get(ad->obj, "metadata"),
                                     "labels");

        } else if (ns->state == 2) {
            return -1;

        } else {
            labels = ns->labels;
        }

        if (!gcp_label_selector_matches(hook->ns_sel, labels)) {
            return 0;
        }
    }

    if (hook->obj_sel
        && !gcp_whm_object(hook->obj_sel, ad->obj)
        && !gcp_whm_object(hook->obj_sel, ad->old))
    {
        return 0;
    }

    return 1;
}


int
gcp_webhook_namespace_missing(gcp_admit_t *ad)
{
    gcp_op_t              *op = ad->op;
    const char            *name;
    gcp_status_details_t   d;

    name = gcp_webhook_namespace(ad);

    memset(&d, 0, sizeof(d));
    d.name = name;
    d.kind = "namespaces";

    gcp_op_error(op, GCP_ENOTFOUND,
                 gcp_sprintf(op->a, "namespaces \"%s\" not found", name),
                 &d);

    return GCP_ENOTFOUND;
}


json_t *
gcp_webhook_convert(gcp_op_t *op, const gcp_resource_t *from,
    const gcp_resource_t *to, const json_t *obj)
{
    json_t      *in, *out;
    const char  *msg;

    if (from == to) {
        return json_deep_copy(obj);
    }

    if (from->strategy && from->strategy->to_internal) {
        in = from->strategy->to_internal(op, obj, &msg);

    } else {
        in = json_deep_copy(obj);
    }

    if (in == NULL) {
        return NULL;
    }

    if (to->strategy && to->strategy->to_external) {
        out = to->strategy->to_external(op, in);
        json_decref(in);
        return out;
    }

    return in;
}
