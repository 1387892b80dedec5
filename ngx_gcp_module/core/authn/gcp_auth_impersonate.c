
/*
 * Impersonation, as kube-apiserver's WithImpersonation: Impersonate-User
 * (a user, or a service account "system:serviceaccount:NS:NAME"),
 * Impersonate-Group, Impersonate-Extra-KEY and Impersonate-Uid, each
 * authorized for the requesting user with the impersonate verb on users,
 * serviceaccounts, groups, userextras/KEY or uids.
 */

#include <strings.h>

#include "gcp_auth_int.h"
#include "gcp_json.h"


#define GCP_IMP_PREFIX_EXTRA  "Impersonate-Extra-"
#define GCP_IMP_AUTHN_V1      "authentication.k8s.io/v1"


typedef enum {
    GCP_IMP_USER = 0,
    GCP_IMP_SERVICEACCOUNT,
    GCP_IMP_GROUP,
    GCP_IMP_EXTRA,
    GCP_IMP_UID
} gcp_imp_kind_t;


/* One thing to impersonate (upstream's ObjectReference). */
typedef struct {
    gcp_imp_kind_t   kind;
    const char      *ns;
    const char      *name;
    const char      *key;           /* extra */
} gcp_imp_t;


typedef struct {
    gcp_imp_t       *v;
    size_t           n;
    size_t           cap;
    unsigned         has_user:1;
    unsigned         has_other:1;   /* groups, extras or a uid */
    unsigned         groups:1;      /* Impersonate-Group given */
} gcp_imps_t;


static int
gcp_imp_add(gcp_arena_t *a, gcp_imps_t *imps, gcp_imp_kind_t kind,
    const char *ns, const char *name, const char *key)
{
    gcp_imp_t  *v;

    if (imps->n == imps->cap) {
        imps->cap = imps->cap ? 2 * imps->cap : 8;

        v = gcp_alloc(a, imps->cap * sizeof(gcp_imp_t));
        if (v == NULL) {
            return GCP_ENOMEM;
        }

        if (imps->n) {
            memcpy(v, imps->v, imps->n * sizeof(gcp_imp_t));
        }

        imps->v = v;
    }

    v = &imps->v[imps->n++];

    v->kind = kind;
    v->ns = ns;
    v->name = name;
    v->key = key;

    return GCP_OK;
}


/* What the headers ask for, in upstream's order. */

static int
gcp_imp_collect(gcp_op_t *op, gcp_imps_t *imps)
{
    size_t               i, plen;
    const char          *user, *uid, *ns, *name, *key;
    const gcp_header_t  *h;
    gcp_request_t       *req = op->req;

    memset(imps, 0, sizeof(gcp_imps_t));

    user = gcp_auth_header(req, "Impersonate-User");

    if (user && user[0]) {
        imps->has_user = 1;

        if (gcp_auth_sa_split(op->a, user, &ns, &name)) {
            if (gcp_imp_add(op->a, imps, GCP_IMP_SERVICEACCOUNT, ns, name,
                            NULL) != GCP_OK)
            {
                return GCP_ENOMEM;
            }

        } else if (gcp_imp_add(op->a, imps, GCP_IMP_USER, "", user, NULL)
                   != GCP_OK)
        {
            return GCP_ENOMEM;
        }
    }

    for (i = 0; i < req->nheaders; i++) {
        h = &req->headers[i];

        if (strcasecmp(h->name, "Impersonate-Group") == 0) {
            imps->groups = 1;
            imps->has_other = 1;

            if (gcp_imp_add(op->a, imps, GCP_IMP_GROUP, "", h->value, NULL)
                != GCP_OK)
            {
                return GCP_ENOMEM;
            }
        }
    }

    plen = sizeof(GCP_IMP_PREFIX_EXTRA) - 1;

    for (i = 0; i < req->nheaders; i++) {
        h = &req->headers[i];

        if (strncasecmp(h->name, GCP_IMP_PREFIX_EXTRA, plen) != 0
            || h->name[plen] == '\0')
        {
            continue;
        }

        imps->has_other = 1;

        key = gcp_auth_extra_key(op->a, h->name + plen);

        if (key == NULL
            || gcp_imp_add(op->a, imps, GCP_IMP_EXTRA, "", h->value, key)
               != GCP_OK)
        {
            return GCP_ENOMEM;
        }
    }

    uid = gcp_auth_header(req, "Impersonate-Uid");

    if (uid && uid[0]) {
        imps->has_other = 1;

        if (gcp_imp_add(op->a, imps, GCP_IMP_UID, "", uid, NULL) != GCP_OK) {
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


/*
 * 500 text/plain, as upstream's responsewriters.InternalError:
 * Internal Server Error: "/path": requested [{Group  g    }] without
 * impersonating a user
 */

static void
gcp_imp_without_user(gcp_op_t *op, const gcp_imps_t *imps)
{
    size_t            i;
    gcp_buf_t         b, uri;
    const char       *kind, *api_version, *field, *q;
    const gcp_imp_t  *imp;

    static const char * const  kinds[] = {
        "User", "ServiceAccount", "Group", "UserExtra", "UID"
    };

    gcp_buf_init(&uri, op->a);
    gcp_buf_add(&uri, op->req->path.data, op->req->path.len);

    if (op->req->query.len) {
        gcp_buf_addc(&uri, '?');
        gcp_buf_add(&uri, op->req->query.data, op->req->query.len);
    }

    q = gcp_go_quote(op->a, uri.data ? uri.data : "", uri.len);

    gcp_buf_init(&b, op->a);
    gcp_buf_printf(&b, "Internal Server Error: %s: requested [",
                   q ? q : "\"\"");

    for (i = 0; i < imps->n; i++) {
        imp = &imps->v[i];
        kind = kinds[imp->kind];

        api_version = imp->kind == GCP_IMP_EXTRA || imp->kind == GCP_IMP_UID
                      ? GCP_IMP_AUTHN_V1 : "";
        field = imp->kind == GCP_IMP_EXTRA ? imp->key : "";

        /* {Kind Namespace Name UID APIVersion ResourceVersion FieldPath} */
        gcp_buf_printf(&b, "%s{%s %s %s  %s  %s}", i ? " " : "", kind,
                       imp->ns, imp->name, api_version, field);
    }

    gcp_buf_addstr(&b, "] without impersonating a user\n");

    if (gcp_buf_failed(&b)) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    gcp_op_text(op, 500, gcp_buf_cstr(&b));
}


/* Authorizes one impersonation; answers 403 and returns 0 when denied. */

static int
gcp_imp_allowed(gcp_op_t *op, const gcp_user_t *requestor,
    const gcp_imp_t *imp)
{
    const char         *reason;
    gcp_authz_attrs_t   attrs;

    memset(&attrs, 0, sizeof(attrs));

    attrs.user = requestor;
    attrs.verb = "impersonate";
    attrs.resource_request = 1;
    attrs.group = "";
    attrs.version = "";
    attrs.subresource = "";
    attrs.ns = imp->ns;
    attrs.name = imp->name;
    attrs.path = op->ri.path;

    switch (imp->kind) {

    case GCP_IMP_SERVICEACCOUNT:
        attrs.resource = "serviceaccounts";
        break;

    case GCP_IMP_USER:
        attrs.resource = "users";
        break;

    case GCP_IMP_GROUP:
        attrs.resource = "groups";
        break;

    case GCP_IMP_EXTRA:
        attrs.group = "authentication.k8s.io";
        attrs.version = "v1";
        attrs.resource = "userextras";
        attrs.subresource = imp->key;
        break;

    default: /* GCP_IMP_UID */
        attrs.group = "authentication.k8s.io";
        attrs.version = "v1";
        attrs.resource = "uids";
        break;
    }

    if (gcp_auth_authorize(op, &attrs, &reason)) {
        return 1;
    }

    gcp_auth_forbidden(op, &attrs, reason);

    return 0;
}


static gcp_user_t *
gcp_imp_user(gcp_op_t *op, const gcp_imps_t *imps)
{
    size_t            i;
    gcp_user_t       *u;
    const gcp_imp_t  *imp;

    u = NULL;

    for (i = 0; i < imps->n; i++) {
        imp = &imps->v[i];

        switch (imp->kind) {

        case GCP_IMP_SERVICEACCOUNT:
            u = imps->groups
                ? gcp_user_create(op->a,
                                  gcp_sprintf(op->a, GCP_AUTH_SA_PREFIX
                                              "%s:%s", imp->ns, imp->name),
                                  "")
                : gcp_auth_sa_user(op->a, imp->ns, imp->name, "");
            break;

        case GCP_IMP_USER:
            u = gcp_user_create(op->a, imp->name, "");
            break;

        case GCP_IMP_GROUP:
            if (gcp_user_add_group(op->a, u, imp->name) != GCP_OK) {
                return NULL;
            }

            break;

        case GCP_IMP_EXTRA:
            if (gcp_user_add_extra(op->a, u, imp->key, imp->name) != GCP_OK)
            {
                return NULL;
            }

            break;

        case GCP_IMP_UID:
            u->uid = gcp_strdup(op->a, imp->name);
            break;
        }

        if (u == NULL || u->uid == NULL) {
            return NULL;
        }
    }

    /* system:authenticated, or system:unauthenticated for anonymous */

    if (strcmp(u->name, GCP_AUTH_ANONYMOUS) != 0) {
        if (!gcp_user_in_group(u, GCP_AUTH_AUTHENTICATED)
            && !gcp_user_in_group(u, GCP_AUTH_UNAUTHENTICATED)
            && gcp_user_add_group(op->a, u, GCP_AUTH_AUTHENTICATED) != GCP_OK)
        {
            return NULL;
        }

    } else if (!gcp_user_in_group(u, GCP_AUTH_UNAUTHENTICATED)
               && gcp_user_add_group(op->a, u, GCP_AUTH_UNAUTHENTICATED)
                  != GCP_OK)
    {
        return NULL;
    }

    return u;
}


int
gcp_auth_impersonate(gcp_op_t *op)
{
    size_t             i;
    gcp_user_t        *u;
    gcp_imps_t         imps;
    const gcp_user_t  *requestor = op->req->user;

    if (gcp_imp_collect(op, &imps) != GCP_OK) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    if (imps.n == 0) {
        return GCP_OK;
    }

    if (!imps.has_user) {
        gcp_imp_without_user(op, &imps);
        return GCP_EINTERNAL;
    }

    for (i = 0; i < imps.n; i++) {
        if (!gcp_imp_allowed(op, requestor, &imps.v[i])) {
            return GCP_EFORBIDDEN;
        }
    }

    u = gcp_imp_user(op, &imps);
    if (u == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    op->req->user = u;

    return GCP_OK;
}
