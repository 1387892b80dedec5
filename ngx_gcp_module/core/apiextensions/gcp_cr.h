
/*
 * Between the parts of apiextensions/: the CRD strategy and validation,
 * the custom resources built from a CRD (gcp_cr_res.c), their strategy
 * (gcp_cr_strategy.c, gcp_cr_scale.c) and the per-process cache that
 * registers them (gcp_crd_cache.c).  Not for the rest of the core, which
 * uses gcp_crd.h.
 */

#ifndef _GCP_CR_H_INCLUDED_
#define _GCP_CR_H_INCLUDED_


#include <jansson.h>

#include "gcp_cr_convert.h"
#include "gcp_crd.h"
#include "gcp_crd_schema.h"
#include "gcp_jsonpath.h"


/*
 * gcp_crd_validation.c: the CRD strategy's validation (validate_request):
 * a create (old NULL), an update, or a write through /status.
 */
void gcp_crd_validate(gcp_op_t *op, gcp_ferrs_t *errs, const json_t *crd,
    const json_t *old);

/* gcp_crd_type.c: the name of the storage version, or NULL (borrowed). */
const char *gcp_crd_storage_version(const json_t *crd);


/*
 * What one revision of a CRD serves, shared by the descriptors of its
 * versions and by the requests that use them (reference counted): the
 * CRD as stored, and per version its compiled schema and paths.
 */

typedef struct {
    gcp_jsonpath_t   *path;
    const char       *type;         /* "integer", "string", ... */
} gcp_cr_column_t;


typedef struct {
    const char            *name;            /* "v1" */
    json_t                *schema_json;     /* openAPIV3Schema, or NULL */
    gcp_crd_schema_t      *schema;          /* compiled, or NULL */
    gcp_cr_column_t       *columns;
    size_t                 ncolumns;
    const char           **field_labels;    /* metadata.* and selectable */
    gcp_jsonpath_t       **field_paths;     /* [i]: field_labels[i + 2] */
    size_t                 nfields;
    gcp_jsonpath_t        *spec_replicas;   /* scale, or NULL */
    gcp_jsonpath_t        *status_replicas;
    gcp_jsonpath_t        *label_selector;
    const char            *spec_replicas_path;
    const char            *status_replicas_path;
    const char            *label_selector_path;
    const char            *warning;         /* deprecation, or NULL */
    unsigned               served:1;
    unsigned               storage:1;
    unsigned               status:1;        /* status subresource */
    unsigned               scale:1;
} gcp_cr_version_t;


typedef struct {
    unsigned               refs;
    gcp_arena_t           *arena;           /* everything below */
    json_t                *crd;             /* as stored (borrowed) */
    int64_t                revision;        /* the CRD's mod_revision */
    const char            *name;            /* "widgets.example.com" */
    const char            *group;
    const char            *plural;
    gcp_cr_version_t      *versions;
    size_t                 nversions;
    gcp_cr_version_t      *storage;         /* the storage version */
    gcp_cr_conversion_t    conversion;      /* spec.conversion */
    unsigned               namespaced:1;
    unsigned               established:1;   /* served */
    unsigned               terminating:1;   /* creates refused */
    unsigned               preserve_unknown:1;
} gcp_cr_def_t;


/* A served version's descriptor; the registry and requests hold it. */

typedef struct {
    gcp_resource_owner_t   owner;
    gcp_resource_t         res;
    gcp_subresource_t      subresources[2];
    gcp_cr_def_t          *def;
    gcp_cr_version_t      *version;
} gcp_cr_res_t;


#define gcp_cr_res(r)                                                        \
    ((gcp_cr_res_t *) ((char *) (r) - offsetof(gcp_cr_res_t, res)))


/*
 * Builds the definition of a stored CRD (decoded crd, copied) at revision
 * rev, its schemas compiled with set (for ObjectMeta; it must outlive the
 * definition).  Returns it with one reference (the caller's;
 * gcp_cr_def_unref()), or NULL when out of memory.  A version whose schema
 * does not compile is not served.
 */
gcp_cr_def_t *gcp_cr_def_create(const json_t *crd, int64_t rev,
    const gcp_schema_set_t *set);
void gcp_cr_def_ref(gcp_cr_def_t *def);
void gcp_cr_def_unref(gcp_cr_def_t *def);

/*
 * Returns a descriptor of the served version v of def (holding a
 * reference to def), with no reference of its own yet (the registry takes
 * one), or NULL when out of memory.
 */
gcp_cr_res_t *gcp_cr_res_create(gcp_cr_def_t *def, gcp_cr_version_t *v);

/*
 * Puts the OpenAPI definitions of cr's kind and list kind into set (named
 * cr->res.schema and list_schema).  Returns GCP_OK or GCP_ENOMEM.
 */
int gcp_cr_res_schemas(gcp_cr_res_t *cr, gcp_schema_set_t *set);

/* The custom resources' strategy (gcp_cr_strategy.c). */
extern const gcp_strategy_t  gcp_cr_strategy;

/*
 * Validates a custom resource obj (old: the stored one on an update) by
 * its kind, its version's schema (with ratcheting) and scale paths; adds
 * to errs.
 */
void gcp_cr_validate(gcp_op_t *op, gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old);

/*
 * gcp_crd_cache.c: the HTTP client of api's conversion webhooks (one per
 * process, made at the first call), or NULL when out of memory.
 */
gcp_http_t *gcp_crds_http(gcp_api_t *api);

/* gcp_cr_scale.c: serves /scale of a custom resource (strategy serve). */
int gcp_cr_scale_serve(gcp_op_t *op);


#endif /* _GCP_CR_H_INCLUDED_ */
