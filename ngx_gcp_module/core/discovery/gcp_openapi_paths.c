
/*
 * The paths of the OpenAPI documents (see gcp_openapi_int.h): the
 * operations of every resource, its group-version and group roots and
 * the discovery paths, collected in a neutral form (gcp_openapi_path_t,
 * one per URL, with its operations), then rendered as v2 or v3.
 * Parameters shared by every operation of a path move to the path item,
 * as kube-openapi does; both lists are in parameter name order.
 */

#include <ctype.h>
#include <stdlib.h>

#include "gcp_openapi_int.h"


/* Parameters, in name order: the order they are published in. */
typedef enum {
    GCP_P_ALLOW_BOOKMARKS = 0,
    GCP_P_CONTINUE,
    GCP_P_DRY_RUN,
    GCP_P_FIELD_MANAGER,
    GCP_P_FIELD_MANAGER_PATCH,
    GCP_P_FIELD_SELECTOR,
    GCP_P_FIELD_VALIDATION,
    GCP_P_FORCE,
    GCP_P_GRACE_PERIOD,
    GCP_P_IGNORE_READ_ERROR,
    GCP_P_LABEL_SELECTOR,
    GCP_P_LIMIT,
    GCP_P_NAME,
    GCP_P_NAMESPACE,
    GCP_P_ORPHAN,
    GCP_P_PRETTY,
    GCP_P_PROPAGATION,
    GCP_P_RESOURCE_VERSION,
    GCP_P_RV_MATCH,
    GCP_P_SEND_INITIAL,
    GCP_P_TIMEOUT,
    GCP_P_WATCH,
    GCP_P_LAST
} gcp_openapi_param_e;

#define P(id)  (1u << GCP_P_##id)

#define GCP_PS_LIST                                                           \
    (P(ALLOW_BOOKMARKS)|P(CONTINUE)|P(FIELD_SELECTOR)|P(LABEL_SELECTOR)       \
     |P(LIMIT)|P(RESOURCE_VERSION)|P(RV_MATCH)|P(SEND_INITIAL)|P(TIMEOUT)     \
     |P(WATCH))
#define GCP_PS_WRITE  (P(DRY_RUN)|P(FIELD_MANAGER)|P(FIELD_VALIDATION))
#define GCP_PS_PATCH                                                          \
    (P(DRY_RUN)|P(FIELD_MANAGER_PATCH)|P(FIELD_VALIDATION)|P(FORCE))
#define GCP_PS_DELETE                                                         \
    (P(DRY_RUN)|P(GRACE_PERIOD)|P(IGNORE_READ_ERROR)|P(ORPHAN)                \
     |P(PROPAGATION))
#define GCP_PS_DELETECOLLECTION                                               \
    ((GCP_PS_LIST & ~(P(ALLOW_BOOKMARKS)|P(WATCH))) | GCP_PS_DELETE)


typedef struct {
    const char  *name;
    const char  *in;
    const char  *type;
    const char  *description;     /* NULL: "name of the KIND" */
} gcp_openapi_param_t;


static const gcp_openapi_param_t  gcp_openapi_params[GCP_P_LAST] = {
    { "allowWatchBookmarks", "query", "boolean",
      "Ask for BOOKMARK events in a watch; the server may ignore it." },
    { "continue", "query", "string",
      "The continue token of the previous chunk of a paginated list." },
    { "dryRun", "query", "string",
      "When present, nothing is persisted; the only accepted value is "
      "'All'." },
    { "fieldManager", "query", "string",
      "Name of the actor making the change, at most 128 printable "
      "characters." },
    { "fieldManager", "query", "string",
      "Name of the actor making the change, at most 128 printable "
      "characters; required for apply patches." },
    { "fieldSelector", "query", "string",
      "Restrict the returned objects by their fields." },
    { "fieldValidation", "query", "string",
      "What to do with unknown or duplicate fields in the body: Ignore, "
      "Warn (the default) or Strict." },
    { "force", "query", "boolean",
      "Let an apply patch take over fields owned by other managers; only "
      "for apply patches." },
    { "gracePeriodSeconds", "query", "integer",
      "Seconds to wait before deleting; zero deletes at once." },
    { "ignoreStoreReadErrorWithClusterBreakingPotential", "query",
      "boolean",
      "Delete an object that cannot be read from storage, skipping "
      "finalizers and preconditions; unsafe." },
    { "labelSelector", "query", "string",
      "Restrict the returned objects by their labels." },
    { "limit", "query", "integer",
      "Maximum number of objects to return; more are available when the "
      "list's continue field is set." },
    { "name", "path", "string", NULL },
    { "namespace", "path", "string",
      "The namespace of the objects." },
    { "orphanDependents", "query", "boolean",
      "Deprecated, use propagationPolicy: whether dependents are "
      "orphaned." },
    { "pretty", "query", "string",
      "If 'true', the output is indented." },
    { "propagationPolicy", "query", "string",
      "How dependents are garbage collected: Orphan, Background or "
      "Foreground." },
    { "resourceVersion", "query", "string",
      "Which revision the request may be served from." },
    { "resourceVersionMatch", "query", "string",
      "How resourceVersion applies to a list: Exact or NotOlderThan." },
    { "sendInitialEvents", "query", "boolean",
      "Start a watch with synthetic ADDED events for the current objects, "
      "followed by a bookmark." },
    { "timeoutSeconds", "query", "integer",
      "Time limit of the list or watch call." },
    { "watch", "query", "boolean",
      "Watch for changes instead of listing." }
};


#define GCP_C200  0x1
#define GCP_C201  0x2
#define GCP_C202  0x4

typedef enum {
    GCP_R_OBJECT = 0,       /* the resource's (or subresource's) kind */
    GCP_R_LIST,
    GCP_R_STATUS,
    GCP_R_EVENT             /* WatchEvent */
} gcp_openapi_resp_e;

/* Where an operation lives. */
typedef enum {
    GCP_AT_COLL = 0,        /* .../[namespaces/{namespace}/]RES */
    GCP_AT_ITEM,            /* .../RES/{name} */
    GCP_AT_WATCH_COLL,      /* .../watch/[namespaces/{namespace}/]RES */
    GCP_AT_WATCH_ITEM,      /* .../watch/.../RES/{name} */
    GCP_AT_ALL,             /* .../RES of a namespaced resource */
    GCP_AT_WATCH_ALL,       /* .../watch/RES of a namespaced resource */
    GCP_AT_SUB              /* .../RES/{name}/SUB */
} gcp_openapi_at_e;


/* One kind of operation on a resource. */
typedef struct {
    unsigned             verb;          /* GCP_VERB_* that enables it */
    gcp_openapi_at_e     at;
    const char          *method;
    const char          *id_verb;       /* operationId: VERB GV PRE KIND */
    const char          *pre;           /*   [SUB] SUF */
    const char          *suf;
    const char          *action;
    const char          *description;   /* format: kind (at SUB: sub, kind) */
    unsigned             params;
    gcp_openapi_body_e   body;
    gcp_openapi_resp_e   resp;
    unsigned             codes;
    gcp_openapi_media_e  media;
} gcp_openapi_spec_t;


/* Everything describing the resource a group of operations belongs to. */
typedef struct {
    const gcp_resource_t  *r;
    const char            *gv;          /* "CoreV1", operationId infix */
    const char            *tag;         /* "core_v1" */
    const char            *base;        /* "/api/v1" */
    const char            *nsd;         /* "Namespaced" or "" */
    const char            *coll;        /* collection path */
    const char            *item;        /* item path */
    unsigned               scope;       /* P(PRETTY) [|P(NAMESPACE)] */
} gcp_openapi_res_t;


static const char  *gcp_openapi_methods[] = {
    "get", "put", "post", "delete", "patch"
};


static const char *
gcp_openapi_str(gcp_openapi_ctx_t *ctx, const char *s)
{
    if (s == NULL) {
        ctx->nomem = 1;
        return "";
    }

    return s;
}


/*
 * kube-apiserver's ToValidOperationID(): keeps letters, '_' and non-leading
 * digits, upper-casing the letter after a dropped character (and the first
 * one when capitalize is set).
 */
static const char *
gcp_openapi_ident(gcp_openapi_ctx_t *ctx, const char *s, int capitalize)
{
    char    *out, *p;
    size_t   i;

    out = gcp_alloc(ctx->arena, strlen(s) + 1);
    if (out == NULL) {
        ctx->nomem = 1;
        return "";
    }

    p = out;

    for (i = 0; s[i]; i++) {
        if (isalpha((unsigned char) s[i]) || s[i] == '_'
            || (i != 0 && isdigit((unsigned char) s[i])))
        {
            *p++ = capitalize ? (char) toupper((unsigned char) s[i]) : s[i];
            capitalize = 0;

        } else {
            capitalize = 1;
        }
    }

    *p = '\0';

    return out;
}


/* The group as operation ids use it: "" -> "core", ".k8s.io" trimmed. */
static const char *
gcp_openapi_group_word(gcp_openapi_ctx_t *ctx, const char *group)
{
    size_t  len;

    if (group[0] == '\0') {
        return "core";
    }

    len = strlen(group);

    if (len > 7 && strcmp(group + len - 7, ".k8s.io") == 0) {
        return gcp_openapi_str(ctx, gcp_strndup(ctx->arena, group, len - 7));
    }

    return group;
}


static gcp_openapi_op_t *
gcp_openapi_add_op(gcp_openapi_ctx_t *ctx, const char *path,
    const char *kind, const char *method)
{
    size_t               i;
    gcp_openapi_op_t    *op;
    gcp_openapi_path_t  *p, *np;

    p = NULL;

    for (i = 0; i < ctx->npaths; i++) {
        if (strcmp(ctx->paths[i].path, path) == 0) {
            p = &ctx->paths[i];
            break;
        }
    }

    if (p == NULL) {
        if (ctx->npaths == ctx->cap) {
            ctx->cap = ctx->cap ? ctx->cap * 2 : 32;
            np = gcp_alloc(ctx->arena, ctx->cap * sizeof(gcp_openapi_path_t));
            if (np == NULL) {
                ctx->nomem = 1;
                return NULL;
            }

            if (ctx->npaths) {
                memcpy(np, ctx->paths,
                       ctx->npaths * sizeof(gcp_openapi_path_t));
            }

            ctx->paths = np;
        }

        p = &ctx->paths[ctx->npaths++];
        memset(p, 0, sizeof(gcp_openapi_path_t));
        p->path = path;
        p->kind = kind;
    }

    if (p->nops == GCP_OPENAPI_MAX_OPS) {
        return NULL;
    }

    op = &p->ops[p->nops++];
    memset(op, 0, sizeof(gcp_openapi_op_t));
    op->method = method;
    op->codes = GCP_C200;

    return op;
}


void
gcp_openapi_add_discovery(gcp_openapi_ctx_t *ctx, const char *path,
    const char *id, const char *tag, const char *description,
    const char *schema, gcp_openapi_media_e media)
{
    gcp_openapi_op_t  *op;

    op = gcp_openapi_add_op(ctx, path, NULL, "get");
    if (op == NULL) {
        return;
    }

    op->id = id;
    op->tag = tag;
    op->description = description;
    op->resp_schema = schema;
    op->media = media;
}


/* The definition of a kind: the descriptor's name, else found by GVK. */
static const char *
gcp_openapi_kind_schema(gcp_openapi_ctx_t *ctx, const char *name,
    const char *group, const char *version, const char *kind)
{
    if (name) {
        return name;
    }

    return gcp_schema_find_gvk(ctx->set, group, version, kind);
}


#define GCP_WATCH_DEPRECATED                                                  \
    " (deprecated: use the 'watch' parameter of list"

static const gcp_openapi_spec_t  gcp_openapi_res_specs[] = {
    { GCP_VERB_LIST, GCP_AT_COLL, "get", "list", "", "", "list",
      "list or watch objects of kind %s", GCP_PS_LIST, GCP_BODY_NONE,
      GCP_R_LIST, GCP_C200, GCP_MEDIA_WATCH },
    { GCP_VERB_CREATE, GCP_AT_COLL, "post", "create", "", "", "post",
      "create a %s", GCP_PS_WRITE, GCP_BODY_OBJECT, GCP_R_OBJECT,
      GCP_C200 | GCP_C201 | GCP_C202, GCP_MEDIA_OBJECT },
    { GCP_VERB_DELETECOLLECTION, GCP_AT_COLL, "delete", "delete",
      "Collection", "", "deletecollection", "delete a collection of %s",
      GCP_PS_DELETECOLLECTION, GCP_BODY_DELETE, GCP_R_STATUS, GCP_C200,
      GCP_MEDIA_OBJECT },
    { GCP_VERB_GET, GCP_AT_ITEM, "get", "read", "", "", "get",
      "read the specified %s", 0, GCP_BODY_NONE, GCP_R_OBJECT, GCP_C200,
      GCP_MEDIA_OBJECT },
    { GCP_VERB_UPDATE, GCP_AT_ITEM, "put", "replace", "", "", "put",
      "replace the specified %s", GCP_PS_WRITE, GCP_BODY_OBJECT,
      GCP_R_OBJECT, GCP_C200 | GCP_C201, GCP_MEDIA_OBJECT },
    { GCP_VERB_DELETE, GCP_AT_ITEM, "delete", "delete", "", "", "delete",
      "delete a %s", GCP_PS_DELETE, GCP_BODY_DELETE, GCP_R_STATUS,
      GCP_C200 | GCP_C202, GCP_MEDIA_OBJECT },
    { GCP_VERB_PATCH, GCP_AT_ITEM, "patch", "patch", "", "", "patch",
      "partially update the specified %s", GCP_PS_PATCH, GCP_BODY_PATCH,
      GCP_R_OBJECT, GCP_C200 | GCP_C201, GCP_MEDIA_OBJECT },
    { GCP_VERB_WATCH, GCP_AT_WATCH_COLL, "get", "watch", "", "List",
      "watchlist", "watch changes to a list of %s" GCP_WATCH_DEPRECATED ")",
      GCP_PS_LIST, GCP_BODY_NONE, GCP_R_EVENT, GCP_C200, GCP_MEDIA_WATCH },
    { GCP_VERB_WATCH, GCP_AT_WATCH_ITEM, "get", "watch", "", "", "watch",
      "watch changes to one %s" GCP_WATCH_DEPRECATED
      " with a fieldSelector)", GCP_PS_LIST, GCP_BODY_NONE, GCP_R_EVENT,
      GCP_C200, GCP_MEDIA_WATCH },
    { GCP_VERB_LIST, GCP_AT_ALL, "get", "list", "", "ForAllNamespaces",
      "list", "list or watch objects of kind %s", GCP_PS_LIST,
      GCP_BODY_NONE, GCP_R_LIST, GCP_C200, GCP_MEDIA_WATCH },
    { GCP_VERB_WATCH, GCP_AT_WATCH_ALL, "get", "watch", "",
      "ListForAllNamespaces", "watchlist",
      "watch changes to a list of %s" GCP_WATCH_DEPRECATED ")",
      GCP_PS_LIST, GCP_BODY_NONE, GCP_R_EVENT, GCP_C200, GCP_MEDIA_WATCH }
};

static const gcp_openapi_spec_t  gcp_openapi_sub_specs[] = {
    { GCP_VERB_GET, GCP_AT_SUB, "get", "read", "", "", "get",
      "read %s of the specified %s", 0, GCP_BODY_NONE, GCP_R_OBJECT,
      GCP_C200, GCP_MEDIA_OBJECT },
    { GCP_VERB_UPDATE, GCP_AT_SUB, "put", "replace", "", "", "put",
      "replace %s of the specified %s", GCP_PS_WRITE, GCP_BODY_OBJECT,
      GCP_R_OBJECT, GCP_C200 | GCP_C201, GCP_MEDIA_OBJECT },
    { GCP_VERB_CREATE, GCP_AT_SUB, "post", "create", "", "", "post",
      "create %s of a %s", GCP_PS_WRITE, GCP_BODY_OBJECT, GCP_R_OBJECT,
      GCP_C200 | GCP_C201 | GCP_C202, GCP_MEDIA_OBJECT },
    { GCP_VERB_PATCH, GCP_AT_SUB, "patch", "patch", "", "", "patch",
      "partially update %s of the specified %s", GCP_PS_PATCH,
      GCP_BODY_PATCH, GCP_R_OBJECT, GCP_C200 | GCP_C201, GCP_MEDIA_OBJECT }
};


/* The URL of an operation. */
static const char *
gcp_openapi_spec_path(gcp_openapi_ctx_t *ctx, const gcp_openapi_res_t *rs,
    gcp_openapi_at_e at, const char *sub)
{
    const char            *ns, *p;
    const gcp_resource_t  *r;

    r = rs->r;
    ns = r->namespaced ? "/namespaces/{namespace}" : "";

    switch (at) {
    case GCP_AT_COLL:
        return rs->coll;
    case GCP_AT_ITEM:
        return rs->item;
    case GCP_AT_WATCH_COLL:
        p = gcp_sprintf(ctx->arena, "%s/watch%s/%s", rs->base, ns, r->name);
        break;
    case GCP_AT_WATCH_ITEM:
        p = gcp_sprintf(ctx->arena, "%s/watch%s/%s/{name}", rs->base, ns,
                        r->name);
        break;
    case GCP_AT_ALL:
        p = gcp_sprintf(ctx->arena, "%s/%s", rs->base, r->name);
        break;
    case GCP_AT_WATCH_ALL:
        p = gcp_sprintf(ctx->arena, "%s/watch/%s", rs->base, r->name);
        break;
    default:
        p = gcp_sprintf(ctx->arena, "%s/%s", rs->item, sub);
        break;
    }

    return gcp_openapi_str(ctx, p);
}


/*
 * Adds the operation spec describes to resource rs (sub: at one of its
 * subresources).  schema is the definition of the operation's kind.
 */
static void
gcp_openapi_add_spec(gcp_openapi_ctx_t *ctx, const gcp_openapi_res_t *rs,
    const gcp_openapi_spec_t *spec, const gcp_subresource_t *sub,
    const char *schema, const char *list)
{
    int                    all;
    char                  *title, *rest;
    const char            *k;
    unsigned               scope;
    gcp_openapi_op_t      *op;
    const gcp_resource_t  *r;

    static const char  *fixed[] = {
        NULL, NULL, GCP_OPENAPI_META "Status", GCP_OPENAPI_META "WatchEvent"
    };

    r = rs->r;
    k = r->kind;
    all = spec->at == GCP_AT_ALL || spec->at == GCP_AT_WATCH_ALL;

    if (all && !r->namespaced) {
        return;
    }

    title = gcp_strdup(ctx->arena, sub ? sub->name : "");
    if (title == NULL) {
        ctx->nomem = 1;
        return;
    }

    title[0] = (char) toupper((unsigned char) title[0]);

    rest = gcp_sprintf(ctx->arena, "%s%s%s%s%s", spec->pre,
                       all ? "" : rs->nsd, k, title, spec->suf);

    op = gcp_openapi_add_op(ctx, gcp_openapi_spec_path(ctx, rs, spec->at,
                                                       title[0] ? sub->name
                                                                : NULL),
                            k, spec->method);
    if (op == NULL || rest == NULL) {
        ctx->nomem |= rest == NULL;
        return;
    }

    scope = all ? P(PRETTY) : rs->scope;

    if (spec->at == GCP_AT_ITEM || spec->at == GCP_AT_WATCH_ITEM
        || spec->at == GCP_AT_SUB)
    {
        scope |= P(NAME);
    }

    op->id = gcp_openapi_str(ctx, gcp_sprintf(ctx->arena, "%s%s%s",
                                 spec->id_verb, rs->gv,
                                 gcp_openapi_ident(ctx, rest, 1)));
    op->description = sub ? gcp_sprintf(ctx->arena, spec->description,
                                        sub->name, k)
                          : gcp_sprintf(ctx->arena, spec->description, k);
    op->tag = rs->tag;
    op->action = spec->action;
    op->group = sub && sub->group ? sub->group : r->group;
    op->version = sub && sub->version ? sub->version : r->version;
    op->kind = sub && sub->kind ? sub->kind : k;
    op->params = spec->params | scope;
    op->body = spec->body;
    op->body_schema = spec->body == GCP_BODY_DELETE
                      ? GCP_OPENAPI_META "DeleteOptions"
                      : spec->body == GCP_BODY_PATCH
                      ? GCP_OPENAPI_META "Patch" : schema;
    op->resp_schema = spec->resp == GCP_R_OBJECT ? schema
                      : spec->resp == GCP_R_LIST ? list : fixed[spec->resp];
    op->codes = spec->codes;
    op->media = spec->media;
}


/* The names of a resource's group-version and its URLs. */
static void
gcp_openapi_res_init(gcp_openapi_ctx_t *ctx, const gcp_resource_t *r,
    gcp_openapi_res_t *rs)
{
    const char  *word;

    word = gcp_openapi_group_word(ctx, r->group);

    rs->r = r;
    rs->gv = gcp_openapi_str(ctx, gcp_sprintf(ctx->arena, "%s%s",
                                      gcp_openapi_ident(ctx, word, 1),
                                      gcp_openapi_ident(ctx, r->version, 1)));
    rs->tag = gcp_openapi_str(ctx, gcp_sprintf(ctx->arena, "%s_%s",
                                       gcp_openapi_ident(ctx, word, 0),
                                       gcp_openapi_ident(ctx, r->version,
                                                         0)));
    rs->base = gcp_openapi_str(ctx, r->group[0]
                   ? gcp_sprintf(ctx->arena, "/apis/%s/%s", r->group,
                                 r->version)
                   : gcp_sprintf(ctx->arena, "/api/%s", r->version));
    rs->nsd = r->namespaced ? "Namespaced" : "";
    rs->coll = gcp_openapi_str(ctx, gcp_sprintf(ctx->arena, "%s%s/%s",
                                       rs->base,
                                       r->namespaced
                                       ? "/namespaces/{namespace}" : "",
                                       r->name));
    rs->item = gcp_openapi_str(ctx, gcp_sprintf(ctx->arena, "%s/{name}",
                                                rs->coll));
    rs->scope = P(PRETTY) | (r->namespaced ? P(NAMESPACE) : 0);
}


/* The group-version's APIResourceList, at /api/v1/ or /apis/G/V/. */
void
gcp_openapi_add_gv_root(gcp_openapi_ctx_t *ctx, const gcp_resource_t *r)
{
    gcp_openapi_res_t  rs;

    gcp_openapi_res_init(ctx, r, &rs);

    gcp_openapi_add_discovery(ctx,
        gcp_openapi_str(ctx, gcp_sprintf(ctx->arena, "%s/", rs.base)),
        gcp_openapi_str(ctx, gcp_sprintf(ctx->arena, "get%sAPIResources",
                                         rs.gv)),
        rs.tag, "get available resources",
        GCP_OPENAPI_META "APIResourceList", GCP_MEDIA_OBJECT);
}


void
gcp_openapi_add_group_root(gcp_openapi_ctx_t *ctx, const char *group)
{
    const char  *word;

    word = gcp_openapi_group_word(ctx, group);

    gcp_openapi_add_discovery(ctx,
        gcp_openapi_str(ctx, gcp_sprintf(ctx->arena, "/apis/%s/", group)),
        gcp_openapi_str(ctx, gcp_sprintf(ctx->arena, "get%sAPIGroup",
                                         gcp_openapi_ident(ctx, word, 1))),
        gcp_openapi_ident(ctx, word, 0), "get information of a group",
        GCP_OPENAPI_META "APIGroup", GCP_MEDIA_OBJECT);
}


void
gcp_openapi_add_resource(gcp_openapi_ctx_t *ctx, const gcp_resource_t *r)
{
    size_t                    i, j;
    const char               *schema, *list, *sch;
    gcp_openapi_res_t         rs;
    const gcp_subresource_t  *sub;

    gcp_openapi_res_init(ctx, r, &rs);

    schema = gcp_openapi_kind_schema(ctx, r->schema, r->group, r->version,
                                     r->kind);
    list = gcp_openapi_kind_schema(ctx, r->list_schema, r->group, r->version,
                                   r->list_kind ? r->list_kind : "");

    for (i = 0; i < gcp_nelems(gcp_openapi_res_specs); i++) {
        if (r->verbs & gcp_openapi_res_specs[i].verb) {
            gcp_openapi_add_spec(ctx, &rs, &gcp_openapi_res_specs[i], NULL,
                                 schema, list);
        }
    }

    for (j = 0; j < r->nsubresources; j++) {
        sub = &r->subresources[j];
        sch = sub->kind
              ? gcp_schema_find_gvk(ctx->set,
                                    sub->group ? sub->group : r->group,
                                    sub->version ? sub->version
                                                 : r->version,
                                    sub->kind)
              : schema;

        for (i = 0; i < gcp_nelems(gcp_openapi_sub_specs); i++) {
            if (sub->verbs & gcp_openapi_sub_specs[i].verb) {
                gcp_openapi_add_spec(ctx, &rs, &gcp_openapi_sub_specs[i],
                                     sub, sch, NULL);
            }
        }
    }
}


/* ---------------------------------------------------------- rendering */


static json_t *
gcp_openapi_ref(gcp_openapi_ctx_t *ctx, const char *name)
{
    if (name == NULL) {
        return gcp_openapi_chk(ctx, json_object());
    }

    return gcp_openapi_chk(ctx, json_pack("{s:s++}", "$ref",
                               ctx->v2 ? GCP_OPENAPI_V2REF
                                       : GCP_OPENAPI_V3REF, name, ""));
}


static json_t *
gcp_openapi_param(gcp_openapi_ctx_t *ctx, int id, const char *kind)
{
    json_t                     *o;
    const char                 *desc;
    const gcp_openapi_param_t  *p;

    p = &gcp_openapi_params[id];
    desc = p->description;

    if (desc == NULL) {
        desc = gcp_openapi_str(ctx, gcp_sprintf(ctx->arena, "name of the %s",
                                                kind ? kind : "object"));
    }

    if (ctx->v2) {
        o = json_pack("{s:b,s:s,s:s,s:s,s:s}", "uniqueItems", 1,
                      "type", p->type, "description", desc,
                      "name", p->name, "in", p->in);
    } else {
        o = json_pack("{s:s,s:s,s:s}", "name", p->name, "in", p->in,
                      "description", desc);
    }

    if (gcp_openapi_chk(ctx, o) == NULL) {
        return NULL;
    }

    if (strcmp(p->in, "path") == 0) {
        gcp_openapi_put(ctx, o, "required", json_true());
    }

    if (!ctx->v2) {
        gcp_openapi_put(ctx, o, "schema",
                        gcp_openapi_chk(ctx, json_pack("{s:s,s:b}",
                            "type", p->type, "uniqueItems", 1)));
    }

    return o;
}


static json_t *
gcp_openapi_params_json(gcp_openapi_ctx_t *ctx, const gcp_openapi_op_t *op,
    unsigned mask, const char *kind)
{
    int      id;
    json_t  *list, *body;

    list = gcp_openapi_chk(ctx, json_array());
    if (list == NULL) {
        return NULL;
    }

    if (ctx->v2 && op && op->body != GCP_BODY_NONE) {
        body = gcp_openapi_chk(ctx, json_pack("{s:s,s:s}", "name", "body",
                                              "in", "body"));
        if (body) {
            if (op->body != GCP_BODY_DELETE) {
                gcp_openapi_put(ctx, body, "required", json_true());
            }

            gcp_openapi_put(ctx, body, "schema",
                            gcp_openapi_ref(ctx, op->body_schema));
            gcp_openapi_push(ctx, list, body);
        }
    }

    for (id = 0; id < GCP_P_LAST; id++) {
        if (mask & (1u << id)) {
            gcp_openapi_push(ctx, list, gcp_openapi_param(ctx, id, kind));
        }
    }

    if (json_array_size(list) == 0) {
        json_decref(list);
        return NULL;
    }

    return list;
}


static json_t *
gcp_openapi_media_types(gcp_openapi_ctx_t *ctx, gcp_openapi_media_e media)
{
    if (media == GCP_MEDIA_JSON) {
        return gcp_openapi_chk(ctx, json_pack("[s]", "application/json"));
    }

    if (media == GCP_MEDIA_WATCH) {
        return gcp_openapi_chk(ctx, json_pack("[s,s,s,s,s]",
            "application/json", "application/yaml",
            "application/vnd.kubernetes.protobuf",
            "application/json;stream=watch",
            "application/vnd.kubernetes.protobuf;stream=watch"));
    }

    return gcp_openapi_chk(ctx, json_pack("[s,s,s]", "application/json",
                               "application/yaml",
                               "application/vnd.kubernetes.protobuf"));
}


/* v3 "content": every media type (in name order) -> the schema. */
static json_t *
gcp_openapi_content(gcp_openapi_ctx_t *ctx, json_t *types,
    const char *schema)
{
    size_t       i, j, n;
    json_t      *content;
    const char  *names[8], *t;

    content = gcp_openapi_chk(ctx, json_object());
    if (content == NULL || types == NULL) {
        json_decref(types);
        return content;
    }

    n = gcp_min(json_array_size(types), gcp_nelems(names));

    for (i = 0; i < n; i++) {
        names[i] = json_string_value(json_array_get(types, i));

        for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    }

    for (i = 0; i < n; i++) {
        gcp_openapi_put(ctx, content, names[i],
                        gcp_openapi_chk(ctx, json_pack("{s:o}", "schema",
                            gcp_openapi_ref(ctx, schema))));
    }

    json_decref(types);

    return content;
}


static json_t *
gcp_openapi_responses(gcp_openapi_ctx_t *ctx, const gcp_openapi_op_t *op)
{
    int      i;
    json_t  *resp, *r;

    static const struct {
        unsigned     bit;
        const char  *code;
        const char  *text;
    }  codes[] = {
        { GCP_C200, "200", "OK" },
        { GCP_C201, "201", "Created" },
        { GCP_C202, "202", "Accepted" }
    };

    resp = gcp_openapi_chk(ctx, json_object());
    if (resp == NULL) {
        return NULL;
    }

    for (i = 0; i < (int) gcp_nelems(codes); i++) {
        if (!(op->codes & codes[i].bit)) {
            continue;
        }

        if (ctx->v2) {
            r = json_pack("{s:s,s:o}", "description", codes[i].text,
                          "schema", gcp_openapi_ref(ctx, op->resp_schema));
        } else {
            r = json_pack("{s:s,s:o}", "description", codes[i].text,
                          "content", gcp_openapi_content(ctx,
                              gcp_openapi_media_types(ctx, op->media),
                              op->resp_schema));
        }

        gcp_openapi_put(ctx, resp, codes[i].code, gcp_openapi_chk(ctx, r));
    }

    gcp_openapi_put(ctx, resp, "401",
                    gcp_openapi_chk(ctx, json_pack("{s:s}", "description",
                                                   "Unauthorized")));

    return resp;
}


static json_t *
gcp_openapi_patch_types(gcp_openapi_ctx_t *ctx)
{
    return gcp_openapi_chk(ctx, json_pack("[s,s,s,s]",
                               "application/json-patch+json",
                               "application/merge-patch+json",
                               "application/strategic-merge-patch+json",
                               "application/apply-patch+yaml"));
}


static json_t *
gcp_openapi_request_body(gcp_openapi_ctx_t *ctx, const gcp_openapi_op_t *op)
{
    json_t  *types, *body;

    if (op->body == GCP_BODY_NONE) {
        return NULL;
    }

    if (op->body == GCP_BODY_PATCH) {
        types = gcp_openapi_patch_types(ctx);
    } else {
        types = gcp_openapi_chk(ctx, json_pack("[s]", "*/*"));
    }

    body = gcp_openapi_chk(ctx, json_pack("{s:o}", "content",
                               gcp_openapi_content(ctx, types,
                                                   op->body_schema)));

    if (body && op->body != GCP_BODY_DELETE) {
        gcp_openapi_put(ctx, body, "required", json_true());
    }

    return body;
}


static json_t *
gcp_openapi_gvk(gcp_openapi_ctx_t *ctx, const gcp_openapi_op_t *op)
{
    if (op->kind == NULL) {
        return NULL;
    }

    if (ctx->v2) {
        return gcp_openapi_chk(ctx, json_pack("{s:s,s:s,s:s}", "group",
                                   op->group, "kind", op->kind, "version",
                                   op->version));
    }

    return gcp_openapi_chk(ctx, json_pack("{s:s,s:s,s:s}", "group",
                               op->group, "version", op->version, "kind",
                               op->kind));
}


static json_t *
gcp_openapi_op_json(gcp_openapi_ctx_t *ctx, const gcp_openapi_path_t *p,
    const gcp_openapi_op_t *op, unsigned common)
{
    json_t  *o, *desc, *consumes;

    o = gcp_openapi_chk(ctx, json_object());
    if (o == NULL) {
        return NULL;
    }

    desc = gcp_openapi_chk(ctx, json_string(gcp_openapi_str(ctx,
                                                op->description)));

    if (ctx->v2) {
        gcp_openapi_put(ctx, o, "description", desc);

        if (op->body == GCP_BODY_PATCH) {
            consumes = gcp_openapi_patch_types(ctx);

        } else if (op->kind) {
            consumes = gcp_openapi_chk(ctx, json_pack("[s]", "*/*"));

        } else {
            consumes = gcp_openapi_media_types(ctx, op->media);
        }

        gcp_openapi_put(ctx, o, "consumes", consumes);
        gcp_openapi_put(ctx, o, "produces",
                        gcp_openapi_media_types(ctx, op->media));
        gcp_openapi_put(ctx, o, "schemes",
                        gcp_openapi_chk(ctx, json_pack("[s]", "https")));
    }

    gcp_openapi_put(ctx, o, "tags",
                    gcp_openapi_chk(ctx, json_pack("[s]", op->tag)));

    if (!ctx->v2) {
        gcp_openapi_put(ctx, o, "description", desc);
    }

    gcp_openapi_put(ctx, o, "operationId",
                    gcp_openapi_chk(ctx, json_string(op->id)));
    gcp_openapi_put(ctx, o, "parameters",
                    gcp_openapi_params_json(ctx, op, op->params & ~common,
                                            p->kind));

    if (!ctx->v2) {
        gcp_openapi_put(ctx, o, "requestBody",
                        gcp_openapi_request_body(ctx, op));
    }

    gcp_openapi_put(ctx, o, "responses", gcp_openapi_responses(ctx, op));

    if (op->action) {
        gcp_openapi_put(ctx, o, "x-kubernetes-action",
                        gcp_openapi_chk(ctx, json_string(op->action)));
    }

    gcp_openapi_put(ctx, o, "x-kubernetes-group-version-kind",
                    gcp_openapi_gvk(ctx, op));

    return o;
}


static json_t *
gcp_openapi_path_json(gcp_openapi_ctx_t *ctx, const gcp_openapi_path_t *p)
{
    int        i, m;
    json_t    *item;
    unsigned   common;

    item = gcp_openapi_chk(ctx, json_object());
    if (item == NULL) {
        return NULL;
    }

    common = ~0u;

    for (i = 0; i < p->nops; i++) {
        common &= p->ops[i].params;
    }

    for (m = 0; m < (int) gcp_nelems(gcp_openapi_methods); m++) {
        for (i = 0; i < p->nops; i++) {
            if (strcmp(p->ops[i].method, gcp_openapi_methods[m]) == 0) {
                gcp_openapi_put(ctx, item, p->ops[i].method,
                                gcp_openapi_op_json(ctx, p, &p->ops[i],
                                                    common));
            }
        }
    }

    gcp_openapi_put(ctx, item, "parameters",
                    gcp_openapi_params_json(ctx, NULL, common, p->kind));

    return item;
}


static int
gcp_openapi_path_cmp(const void *a, const void *b)
{
    return strcmp(((const gcp_openapi_path_t *) a)->path,
                  ((const gcp_openapi_path_t *) b)->path);
}


json_t *
gcp_openapi_paths_json(gcp_openapi_ctx_t *ctx)
{
    size_t   i;
    json_t  *paths;

    paths = gcp_openapi_chk(ctx, json_object());
    if (paths == NULL) {
        return NULL;
    }

    if (ctx->npaths) {
        qsort(ctx->paths, ctx->npaths, sizeof(gcp_openapi_path_t),
              gcp_openapi_path_cmp);
    }

    for (i = 0; i < ctx->npaths; i++) {
        gcp_openapi_put(ctx, paths, ctx->paths[i].path,
                        gcp_openapi_path_json(ctx, &ctx->paths[i]));
    }

    return paths;
}
