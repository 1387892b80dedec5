
/*
 * Between the parts of the OpenAPI documents: gcp_openapi.c (documents,
 * shared helpers), gcp_openapi_paths.c (operations and paths) and
 * gcp_openapi_defs.c (definitions); the rest of the core uses
 * gcp_openapi.h.
 */

#ifndef _GCP_OPENAPI_INT_H_INCLUDED_
#define _GCP_OPENAPI_INT_H_INCLUDED_


#include "gcp_openapi.h"


#define GCP_OPENAPI_META   "io.k8s.apimachinery.pkg.apis.meta.v1."
#define GCP_OPENAPI_V3REF  "#/components/schemas/"
#define GCP_OPENAPI_V2REF  "#/definitions/"

#define GCP_OPENAPI_MAX_OPS  4


typedef enum {
    GCP_BODY_NONE = 0,
    GCP_BODY_OBJECT,        /* the object, required */
    GCP_BODY_DELETE,        /* DeleteOptions, optional */
    GCP_BODY_PATCH          /* meta.v1.Patch in a patch media type */
} gcp_openapi_body_e;

typedef enum {
    GCP_MEDIA_OBJECT = 0,   /* JSON, YAML, protobuf */
    GCP_MEDIA_WATCH,        /* ... and their watch streams */
    GCP_MEDIA_JSON          /* JSON only (/version) */
} gcp_openapi_media_e;

/* One operation of a path (P(...), GCP_C2xx: gcp_openapi_paths.c). */
typedef struct {
    const char          *method;        /* "get", "put", ... */
    const char          *id;            /* operationId */
    const char          *description;
    const char          *tag;
    const char          *action;        /* x-kubernetes-action, or NULL */
    const char          *group;         /* x-kubernetes-group-version-kind */
    const char          *version;
    const char          *kind;          /* NULL: no extension */
    unsigned             params;        /* P(...) */
    gcp_openapi_body_e   body;
    const char          *body_schema;   /* definition name, or NULL */
    const char          *resp_schema;
    unsigned             codes;         /* GCP_C2xx */
    gcp_openapi_media_e  media;
} gcp_openapi_op_t;


/* One URL and its operations. */
typedef struct {
    const char        *path;
    const char        *kind;            /* for the name parameter */
    gcp_openapi_op_t   ops[GCP_OPENAPI_MAX_OPS];
    int                nops;
} gcp_openapi_path_t;


/* One document being built. */
typedef struct {
    gcp_arena_t             *arena;
    const gcp_schema_set_t  *set;
    gcp_openapi_path_t      *paths;
    size_t                   npaths;
    size_t                   cap;
    int                      v2;
    unsigned                 nomem:1;
} gcp_openapi_ctx_t;


/*
 * Helpers (gcp_openapi.c).  Allocation failures set ctx->nomem: the
 * document being built is then dropped.
 */

/* Returns v; v NULL (allocation failed) sets ctx->nomem. */
json_t *gcp_openapi_chk(gcp_openapi_ctx_t *ctx, json_t *v);

/* Sets key of object o to v (stolen); v NULL: leaves the key out. */
void gcp_openapi_put(gcp_openapi_ctx_t *ctx, json_t *o, const char *key,
    json_t *v);

/* Appends v (stolen) to list; v NULL: appends nothing. */
void gcp_openapi_push(gcp_openapi_ctx_t *ctx, json_t *list, json_t *v);

/* qsort() comparison of two const char * by strcmp(); returns its sign. */
int gcp_openapi_name_cmp(const void *a, const void *b);


/*
 * Operations and paths (gcp_openapi_paths.c), collected in ctx->paths
 * (ctx's arena).  Strings given are borrowed for the life of ctx.
 */

/*
 * Adds the discovery path path: a GET with operation id id, tag,
 * description, the definition schema as response and media types media.
 */
void gcp_openapi_add_discovery(gcp_openapi_ctx_t *ctx, const char *path,
    const char *id, const char *tag, const char *description,
    const char *schema, gcp_openapi_media_e media);

/* Adds /apis/GROUP/ (APIGroup). */
void gcp_openapi_add_group_root(gcp_openapi_ctx_t *ctx, const char *group);

/* Adds r's group-version root, /api/v1/ or /apis/G/V/ (APIResourceList). */
void gcp_openapi_add_gv_root(gcp_openapi_ctx_t *ctx,
    const gcp_resource_t *r);

/* Adds the operations of resource r (and its subresources). */
void gcp_openapi_add_resource(gcp_openapi_ctx_t *ctx,
    const gcp_resource_t *r);

/*
 * Returns the paths collected, sorted by URL (ctx->paths is sorted in
 * place), as the "paths" object of a v2 (ctx->v2) or v3 document: a new
 * reference, or NULL when out of memory.
 */
json_t *gcp_openapi_paths_json(gcp_openapi_ctx_t *ctx);


/*
 * Returns the published definitions every reference in doc reaches, by
 * name (gcp_openapi_defs.c): a new reference, or NULL when out of memory.
 */
json_t *gcp_openapi_definitions(gcp_openapi_ctx_t *ctx, const json_t *doc);


#endif /* _GCP_OPENAPI_INT_H_INCLUDED_ */
