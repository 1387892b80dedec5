
/*
 * Internals shared by the files of the CRD schema library: the compiled
 * schema nodes, Go value rendering, field paths.  Not for other folders.
 */

#ifndef _GCP_CRD_INT_H_INCLUDED_
#define _GCP_CRD_INT_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"
#include "gcp_ferr.h"
#include "gcp_schema.h"
#include "gcp_crd_regex.h"
#include "gcp_crd_formats.h"
#include "gcp_crd_schema.h"


/* what a JSON value is for Go (reflect.Kind of the unstructured value) */
typedef enum {
    GCP_CRD_K_NULL = 0,
    GCP_CRD_K_BOOL,
    GCP_CRD_K_INT,              /* int64 */
    GCP_CRD_K_FLOAT,            /* float64 */
    GCP_CRD_K_STRING,
    GCP_CRD_K_SLICE,
    GCP_CRD_K_MAP
} gcp_crd_kind_t;


/* "type" of a schema */
typedef enum {
    GCP_CRD_T_NONE = 0,
    GCP_CRD_T_OBJECT,
    GCP_CRD_T_ARRAY,
    GCP_CRD_T_STRING,
    GCP_CRD_T_INTEGER,
    GCP_CRD_T_NUMBER,
    GCP_CRD_T_BOOLEAN,
    GCP_CRD_T_OTHER             /* e.g. "null": matches nothing */
} gcp_crd_type_t;


typedef enum {
    GCP_CRD_LIST_NONE = 0,
    GCP_CRD_LIST_ATOMIC,
    GCP_CRD_LIST_SET,
    GCP_CRD_LIST_MAP
} gcp_crd_list_t;


typedef struct gcp_crd_node_s  gcp_crd_node_t;


typedef struct {
    const char      *name;
    size_t           len;
    gcp_crd_node_t  *node;
} gcp_crd_prop_t;


struct gcp_crd_node_s {
    const char              *type;          /* as written; NULL: none */
    gcp_crd_type_t           tkind;
    const char              *format;        /* as written, if validated */
    gcp_crd_format_t         fmt;
    const gcp_crd_regex_t   *fmt_re;        /* hostname */

    json_t                  *dflt;          /* default, NULL: none */

    unsigned                 nullable:1;
    unsigned                 preserve:1;    /* x-k-preserve-unknown-fields */
    unsigned                 embedded:1;    /* x-k-embedded-resource */
    unsigned                 int_or_string:1;
    unsigned                 has_max:1;
    unsigned                 excl_max:1;
    unsigned                 has_min:1;
    unsigned                 excl_min:1;
    unsigned                 has_multiple:1;
    unsigned                 unique:1;
    unsigned                 ap_present:1;  /* additionalProperties */
    unsigned                 ap_allows:1;
    unsigned                 subtree_meta:1;    /* embedded below */
    unsigned                 subtree_lists:1;   /* set/map lists below */
    unsigned                 subtree_defaults:1;

    gcp_crd_list_t           list_type;

    double                   max;
    double                   min;
    double                   multiple;

    int64_t                  max_len;       /* -1: none */
    int64_t                  min_len;
    int64_t                  max_items;
    int64_t                  min_items;
    int64_t                  max_props;
    int64_t                  min_props;

    const gcp_crd_regex_t   *pattern;

    json_t                  *enumv;         /* array, NULL: none */
    const char              *enum_detail;   /* "supported values: ..." */
    const char              *enum_list;     /* Go's %v of the values */

    const char             **required;
    size_t                   nrequired;

    const char             **map_keys;
    size_t                   nmap_keys;

    gcp_crd_prop_t          *props;         /* in the schema's order */
    size_t                   nprops;
    uint32_t                *index;         /* hash slot -> prop + 1 */
    uint32_t                 mask;

    gcp_crd_node_t          *ap;            /* additionalProperties schema */
    gcp_crd_node_t          *items;

    gcp_crd_node_t         **all_of;
    size_t                   nall_of;
    gcp_crd_node_t         **any_of;
    size_t                   nany_of;
    gcp_crd_node_t         **one_of;
    size_t                   none_of;
    gcp_crd_node_t          *not;
};


struct gcp_crd_schema_s {
    gcp_arena_t             *arena;
    gcp_crd_node_t          *root;
    const gcp_schema_set_t  *set;
    const json_t            *objectmeta;    /* ObjectMeta's schema */
};


/* the node of property name of s, or NULL */
gcp_crd_node_t *gcp_crd_prop(const gcp_crd_node_t *s, const char *name,
    size_t len);

/*
 * Compiles one schema object (and what it contains) into nodes allocated
 * from a.  Returns NULL with *err (arena or static) on failure.
 */
gcp_crd_node_t *gcp_crd_compile_node(gcp_arena_t *a, const json_t *schema,
    const char **err);


/* ---------------------------------------------------------- Go values */


/* reflect.Kind of a JSON value as kube-apiserver decodes it */
gcp_crd_kind_t gcp_crd_kind(const json_t *v);

/*
 * Appends v as field.Error renders a bad value: strings %q, numbers and
 * booleans %v, null "null", objects and arrays Go's %#v
 * (map[string]interface {}{"a":1}, []interface {}{"x"}).
 */
void gcp_crd_go_value(gcp_buf_t *b, const json_t *v);

/* Returns gcp_crd_go_value() of v in the arena ("\"\"" on ENOMEM). */
const char *gcp_crd_go_value_str(gcp_arena_t *a, const json_t *v);

/* Appends v as Go's json.Marshal of the unstructured value (sorted keys). */
void gcp_crd_marshal(gcp_buf_t *b, const json_t *v);

/* Go's %v of a float64 (strconv.FormatFloat(f, 'g', -1, 64)). */
void gcp_crd_go_float(gcp_buf_t *b, double f);

/* int64(f) as Go computes it on amd64 (out of range: math.MinInt64). */
int64_t gcp_crd_go_f2i(double f);

/* swag.IsFloat64AJSONInteger() */
int gcp_crd_is_json_integer(double f);

/* The basicCommonValidator's test: does v equal enum value e for Go? */
int gcp_crd_enum_match(const json_t *v, const json_t *e);

/* Number of runes of s as Go's utf8.RuneCountInString. */
size_t gcp_crd_runes(const char *s, size_t len);


/* ---------------------------------------------------------- field paths */


/*
 * A field path being built (field.Path's String(): "a.b[0][k]"), on a
 * buffer: push returns the length to pop back to.
 */
size_t gcp_crd_path_child(gcp_buf_t *p, const char *name, size_t len);
size_t gcp_crd_path_index(gcp_buf_t *p, size_t i);
size_t gcp_crd_path_key(gcp_buf_t *p, const char *key, size_t len);
void gcp_crd_path_pop(gcp_buf_t *p, size_t len);

/* The path as a string in the arena; "<nil>" when empty. */
const char *gcp_crd_path_str(gcp_arena_t *a, gcp_buf_t *p);


/* --------------------------------------------------- embedded resources */


/*
 * The node the root of a resource is walked with: s, or when resource_root
 * a copy of s (or of an empty node when s is NULL) in *root, marked
 * embedded: the root's apiVersion, kind and metadata are the resource's.
 */
const gcp_crd_node_t *gcp_crd_resource_root(const gcp_crd_node_t *s,
    int resource_root, gcp_crd_node_t *root);


/*
 * objectmeta.Validate (embedded apiVersion, kind, metadata) and
 * listtype.ValidateListSetsAndMaps over obj at field path prefix (a field
 * path, "" for none).
 */
void gcp_crd_validate_embedded(gcp_ferrs_t *errs,
    const gcp_crd_schema_t *cs, const gcp_crd_node_t *s, const json_t *obj,
    const char *prefix, int resource_root);
void gcp_crd_validate_lists(gcp_ferrs_t *errs, const gcp_crd_node_t *s,
    const json_t *obj);

/*
 * objectmeta.Coerce: checks the types of embedded apiVersion and kind and
 * decodes embedded metadata as ObjectMeta (unknown fields pruned).
 * Returns GCP_OK, GCP_EBADREQUEST with one error added to errs (unless
 * drop_invalid), or GCP_ENOMEM.  Unknown field paths are appended to the
 * list when paths is not NULL.
 */
typedef struct {
    gcp_arena_t   *arena;
    const char   **v;
    size_t         n;
    size_t         cap;
    unsigned       nomem:1;
} gcp_crd_paths_t;

void gcp_crd_paths_add(gcp_crd_paths_t *paths, const char *p, size_t len);

int gcp_crd_coerce(const gcp_crd_schema_t *cs, const gcp_crd_node_t *s,
    json_t *obj, const char *prefix, int resource_root, int drop_invalid,
    gcp_crd_paths_t *paths, gcp_ferrs_t *errs);

/* Pruning of x with s (pruning.Prune); removed field paths when paths. */
void gcp_crd_prune_node(const gcp_crd_node_t *s, json_t *x,
    int resource_root, gcp_crd_paths_t *paths, gcp_buf_t *path);


/* -------------------------------------------- kube-openapi validation */


/*
 * validation.ValidateCustomResource(fldPath, v, validator) with s as the
 * schema: appends the field errors to errs (fld_path NULL for a nil
 * path).  old/has_old: the correlated old object for ratcheting.
 */
int gcp_crd_validate_value(gcp_ferrs_t *errs, const gcp_crd_schema_t *cs,
    const gcp_crd_node_t *s, const json_t *v, const json_t *old,
    int has_old, const char *fld_path);


/* ---------------------------------------------------- checking schemas */


/* NewStructural(): NULL, or its error (static) */
const char *gcp_crd_structural_convert(const json_t *schema);

/*
 * ValidateStructural(path, schema): appends the errors, sorted; returns
 * their number, or -1 when out of memory.
 */
int gcp_crd_structural_validate(gcp_ferrs_t *errs, const json_t *schema,
    const char *path);

/* structuraldefaulting.ValidateDefaults(path, schema, true, pruned) */
void gcp_crd_defaults_validate(gcp_ferrs_t *errs, const json_t *schema,
    const char *path, int require_pruned, const gcp_schema_set_t *set);

/* whether a default of the (structural) schema has unknown fields */
int gcp_crd_defaults_unpruned(const json_t *schema,
    const gcp_schema_set_t *set);

/* GetObjectMeta(): NULL when meta decodes as ObjectMeta, else why */
const char *gcp_crd_decode_meta(gcp_arena_t *a, const gcp_crd_schema_t *cs,
    const json_t *meta);


#endif /* _GCP_CRD_INT_H_INCLUDED_ */
