
/*
 * Structural schemas of CustomResourceDefinitions: what
 * k8s.io/apiextensions-apiserver and k8s.io/kube-openapi do in
 * kube-apiserver 1.32 with a version's schema.openAPIV3Schema (a JSON
 * Schema object, as jansson values), with their messages.
 *
 *   gcp_crd_schema_check()     the schema itself, when a CRD is created
 *                              or updated (422 causes)
 *   gcp_crd_schema_compile()   once per CRD revision: an immutable form
 *   gcp_crd_schema_prune()     unknown fields of a custom resource
 *   gcp_crd_schema_default()   defaults
 *   gcp_crd_schema_validate()  a custom resource against the schema
 *
 * kube-apiserver's order for a custom resource body is: decode, prune
 * (and drop nulls of non-nullable fields without default, and coerce
 * embedded ObjectMeta), default, then at validation the registry's own
 * checks (kind, root metadata), then this schema's validation.  Objects
 * read from storage are pruned and defaulted the same way (with
 * GCP_CRD_PRUNE_DROP_INVALID).
 *
 * What stays with the caller (the registry): the root apiVersion, kind
 * and metadata (the root ObjectMeta is decoded, pruned and validated as
 * for built-in types; this library skips the three keys at the root), the
 * scale subresource checks, CEL rules (refused: see the check).
 *
 * Order of causes.  Upstream iterates Go maps where the order is random
 * (properties of a schema, keys of an object); here properties are
 * visited in the order the schema lists them and object keys in document
 * order, so the output is stable.  Where upstream sorts (structural
 * errors, pruned paths) the same sort is applied.
 */

#ifndef _GCP_CRD_SCHEMA_H_INCLUDED_
#define _GCP_CRD_SCHEMA_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"
#include "gcp_ferr.h"
#include "gcp_schema.h"


typedef struct gcp_crd_schema_s  gcp_crd_schema_t;


/* ---------------------------------------------------------- checking */


/*
 * The validationOptions of apiextensions' CRD validation that concern a
 * schema.  On create every requirement holds; on update kube-apiserver
 * only requires what the old CRD already satisfied (ratcheting): start
 * from gcp_crd_check_opts_init() and call gcp_crd_check_opts_ratchet()
 * with every schema of the old CRD.
 */
typedef struct {
    unsigned  status_enabled:1;     /* this version has subresources.status */
    unsigned  allow_defaults:1;
    unsigned  require_valid_property_type:1;
    unsigned  require_structural:1;
    unsigned  require_pruned_defaults:1;
    unsigned  require_atomic_set_type:1;
    unsigned  require_map_list_keys:1;  /* keys required or defaulted, not
                                           nullable; map/set items not
                                           nullable */
} gcp_crd_check_opts_t;


/* Sets every requirement (a create); status_enabled is left 0. */
void gcp_crd_check_opts_init(gcp_crd_check_opts_t *opts);

/*
 * Clears the requirements old_schema (an openAPIV3Schema of the CRD being
 * updated, NULL allowed) does not satisfy, as apiextensions'
 * requireValidPropertyType(), requireStructuralSchema(),
 * requirePrunedDefaults(), requireAtomicSetType() and
 * requireMapListKeysMapSetValidation() do.
 */
void gcp_crd_check_opts_ratchet(gcp_crd_check_opts_t *opts,
    const json_t *old_schema, const gcp_schema_set_t *set);

/*
 * validateCustomResourceDefinitionValidation() for one
 * CustomResourceValidation: schema is its openAPIV3Schema (NULL: nothing
 * to check), base the path of the CustomResourceValidation.  kube-apiserver
 * 1.32 converts a v1 CRD whose versions all have the same schema into one
 * top-level validation: the paths are then "spec.validation.openAPIV3Schema
 * ..."; when the versions differ each is checked at
 * "spec.versions[i].schema.openAPIV3Schema...".  base is then
 * "spec.validation" or "spec.versions[i].schema".
 *
 * Appends to errs, in upstream's order: the status subresource's root
 * rule, nullable at the root, the structural schema errors (sorted as
 * upstream sorts them; when there are none, the default values' errors),
 * the OpenAPI schema errors (types, unsupported keywords, uniqueItems,
 * additionalProperties with properties, metadata, list and map types and
 * their keys, embedded resources, patterns, defaults where forbidden),
 * the structural conversion error only if there was no schema error, and
 * last one Forbidden cause per x-kubernetes-validations rule at
 * "...x-kubernetes-validations[i].rule": CEL rules are not evaluated by
 * this server.  When nothing failed, the schema is compiled once to make
 * sure it can be ("error building validator").
 *
 * set holds the ObjectMeta definition (defaults of embedded metadata are
 * decoded as ObjectMeta).  Returns GCP_OK or GCP_ENOMEM.
 */
int gcp_crd_schema_check(gcp_ferrs_t *errs, const json_t *schema,
    const char *base, const gcp_crd_check_opts_t *opts,
    const gcp_schema_set_t *set);


/* ---------------------------------------------------------- compiling */


/*
 * Compiles a schema (one that gcp_crd_schema_check() accepted; any JSON is
 * safe).  Returns the compiled schema, owned by the caller, immutable: it
 * may be shared by every request of a worker (and by threads) and is
 * released with gcp_crd_schema_free().  It keeps its own copies of what
 * it needs from schema, and borrows set (which must outlive it) for
 * ObjectMeta.  Returns NULL on failure with a message in err (errlen
 * bytes, NUL-terminated).
 */
gcp_crd_schema_t *gcp_crd_schema_compile(const json_t *schema,
    const gcp_schema_set_t *set, char *err, size_t errlen);

/* Releases a compiled schema.  NULL is allowed. */
void gcp_crd_schema_free(gcp_crd_schema_t *cs);


/* ---------------------------------------------------------- objects */


#define GCP_CRD_PRUNE_PATHS         0x01    /* collect unknown field paths */
#define GCP_CRD_PRUNE_DROP_INVALID  0x02    /* storage reads: drop fields of
                                               embedded metadata that do not
                                               decode, instead of failing */

/*
 * Structural pruning of obj in place (pruning.PruneWithOptions at the
 * resource root, then PruneNonNullableNullsWithoutDefaults, then
 * objectmeta.Coerce): fields the schema does not specify are removed,
 * except under x-kubernetes-preserve-unknown-fields and, at the root and
 * in embedded resources, apiVersion, kind and metadata; null values of
 * non-nullable fields without a default are removed; embedded resources
 * get apiVersion and kind checked as strings and metadata decoded as
 * ObjectMeta: its unknown fields are removed, and it is written back as
 * ObjectMeta encodes (empty fields dropped, times in UTC).  The root's
 * metadata is not touched (the registry's business).
 *
 * With GCP_CRD_PRUNE_PATHS, *paths is set to the removed fields as
 * fieldValidation reports them, in kube-apiserver's order (the pruned
 * paths sorted, "spec.bogus", "spec.items[0].x", "spec.map.key.x", then
 * the unknown fields of embedded metadata, "spec.template.metadata.x"),
 * *npaths to their number; the array and strings are owned by a.  Removed
 * nulls are not reported.  Without the flag paths and npaths may be NULL.
 *
 * Returns GCP_OK; GCP_EBADREQUEST when embedded apiVersion, kind or
 * metadata cannot be decoded, with *err set to the error as
 * kube-apiserver words it ("spec.template.kind: Invalid value: 1: must be
 * a string"; owned by a); GCP_ENOMEM.
 */
int gcp_crd_schema_prune(const gcp_crd_schema_t *cs, json_t *obj,
    unsigned flags, gcp_arena_t *a, const char ***paths, size_t *npaths,
    const char **err);

/*
 * Structural defaulting of obj in place (defaulting.Default): top down,
 * each default of a property absent from an object, or null there when
 * the property is not nullable, is set (a deep copy of the default);
 * items and additionalProperties values that are null and not nullable
 * get their schema's default.  Returns GCP_OK or GCP_ENOMEM.
 */
int gcp_crd_schema_default(const gcp_crd_schema_t *cs, json_t *obj);

/*
 * Validates obj against the schema, appending to errs what
 * kube-apiserver's custom resource strategy adds after the root metadata
 * checks, in its order:
 *
 *   - validation.ValidateCustomResource(nil, obj): kube-openapi's schema
 *     validation (type, allOf/anyOf/oneOf/not, string lengths in runes,
 *     pattern, format, number bounds and multipleOf, items counts and
 *     uniqueness, enum, properties counts, additionalProperties,
 *     properties, required), converted to field errors as upstream does:
 *     "spec.replicas: Invalid value: 11: spec.replicas in body should be
 *     less than or equal to 10", "spec.size: Unsupported value: \"huge\":
 *     supported values: ...", "spec.tags: Too many: 4: must have at most 3
 *     items", "spec.size: Required value", type errors as
 *     FieldValueTypeInvalid; errors of the object itself at "<nil>";
 *   - objectmeta.Validate of embedded resources (apiVersion, kind and
 *     metadata, validated as ObjectMeta with path-segment names);
 *   - listtype.ValidateListSetsAndMaps: duplicates in x-kubernetes-list-type
 *     set and map lists ("Duplicate value").
 *
 * old is NULL on create.  On update it is the old object, and as in
 * kube-apiserver 1.32 (CRDValidationRatcheting, on by default) schema
 * errors of values unchanged from old are dropped: a value correlates
 * with the old one through object fields and through the keys of map
 * lists (and equal items of sets).
 *
 * Returns GCP_OK or GCP_ENOMEM.
 */
int gcp_crd_schema_validate(const gcp_crd_schema_t *cs, const json_t *obj,
    const json_t *old, gcp_ferrs_t *errs);


#endif /* _GCP_CRD_SCHEMA_H_INCLUDED_ */
