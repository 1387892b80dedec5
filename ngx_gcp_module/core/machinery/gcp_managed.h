
/*
 * metadata.managedFields as kube-apiserver's field manager keeps them:
 * one entry per manager, operation (Update or Apply), apiVersion (of
 * Update entries) and subresource, each with the FieldsV1 set of the
 * fields it owns (gcp_fieldset.h); every write updates them, server-side
 * apply merges an applied configuration by them (gcp_apply.h), with
 * conflicts between managers.
 */

#ifndef _GCP_MANAGED_H_INCLUDED_
#define _GCP_MANAGED_H_INCLUDED_


#include <jansson.h>

#include "gcp_schema.h"


/* Which fields a write may own (upstream's reset fields). */
typedef enum {
    GCP_MF_ALL = 0,
    GCP_MF_NOT_STATUS,          /* the main resource of a type with /status */
    GCP_MF_ONLY_STATUS          /* writes through /status */
} gcp_managed_scope_t;


/*
 * A write seen in another apiVersion than the request's (upstream's
 * versionconverter): the stored and the new object converted to it.
 * The entries of that apiVersion own fields by these names.
 */
typedef struct {
    const char              *api_version;
    const json_t            *node;          /* its schema, or NULL */
    const json_t            *old;           /* the stored object */
    const json_t            *new;           /* the new object */
} gcp_managed_view_t;


typedef struct {
    const gcp_schema_set_t    *set;
    const json_t              *node;        /* the object's schema */
    const char                *manager;
    const char                *api_version;
    const char                *subresource; /* NULL or "" for none */
    const char                *now;         /* metav1.Time text */
    gcp_managed_scope_t        scope;

    /* the write in the other apiVersions of the entries (none: as in */
    /* api_version, as upstream's converter of types without webhooks) */
    const gcp_managed_view_t  *views;
    size_t                     nviews;

    /* the manager's Apply entry of another apiVersion pruned there (as */
    /* upstream's prune): the fields, by the request's names, that lost; */
    /* NULL: its own set prunes the merge */
    const json_t              *self_lost;
} gcp_managed_t;


/* At most so many apiVersions are seen apart (the others as the request's). */
#define GCP_MANAGED_MAX_VIEWS  8


/*
 * Returns the managedFields of a write's new object: the entries sent in
 * it (sent, NULL when absent) when they are valid and not empty, else
 * those of the stored object (live, NULL on create; invalid ones are
 * dropped); none when sent is a reset ([] or [{}]).  Then the changes
 * from old to new (both without managedFields; old NULL on create) are
 * owned by m's Update entry, taken from the other managers, and the
 * fields removed are dropped from every entry.  Returns a new reference
 * (an array in upstream's order), or NULL when out of memory.
 */
json_t *gcp_managed_update(const gcp_managed_t *m, const json_t *sent,
    const json_t *live, const json_t *old, const json_t *new);

/*
 * Server-side apply of config onto live (NULL on create) for m's manager.
 * On success returns 0, sets *merged to the new object (a new reference;
 * the fields the manager applied before and no longer applies removed
 * unless another manager owns them) with its managedFields set.  When
 * other managers own fields the config changes and force is not set,
 * returns 1 and sets *conflicts to an array of {"manager", "path"}
 * (manager as upstream prints it: "\"name\"" or "\"name\" using v1"),
 * sorted by manager.  Returns -1 when out of memory.
 */
int gcp_managed_apply(const gcp_managed_t *m, const json_t *live,
    const json_t *config, int force, json_t **merged, json_t **conflicts);

/*
 * A version of a resource that has a scale subresource in some version
 * (upstream's ResourcePathMappings): its apiVersion ("group/v1") and the
 * path of its replicas field (".spec.replicas"), NULL when that version
 * has no scale.
 */
typedef struct {
    const char  *api_version;
    const char  *replicas;
} gcp_managed_scale_path_t;


/*
 * The managedFields of the Scale made of an object whose entries are
 * parent (upstream's ToSubresource): each entry that owns the replicas
 * field of its version (paths[0..n)), made an autoscaling/v1 entry that
 * owns spec.replicas.  Returns a new reference, or NULL when out of
 * memory.
 */
json_t *gcp_managed_scale_entries(const json_t *parent,
    const gcp_managed_scale_path_t *paths, size_t n);

/*
 * The object's managedFields after a write through its scale subresource
 * in api_version (upstream's ToParent), given its entries before
 * (parent) and the Scale's after the write (scale): the entries of
 * versions not in paths dropped, the replicas field taken from the
 * entries that no longer own it in scale, and every manager of
 * spec.replicas in scale owning the replicas field of api_version.
 * Returns a new reference, or NULL when out of memory (or api_version
 * has no scale).
 */
json_t *gcp_managed_scale_parent(const json_t *parent, const json_t *scale,
    const gcp_managed_scale_path_t *paths, size_t n,
    const char *api_version);

/*
 * The object server-side apply of config onto live makes, before
 * gcp_managed_apply() checks conflicts, for converting it to the
 * apiVersions of other entries (gcp_managed_versions()): the merge with
 * what the manager stopped applying removed.  Returns a new reference
 * without managedFields, or NULL when out of memory.
 */
json_t *gcp_managed_applied(const gcp_managed_t *m, const json_t *live,
    const json_t *config);

/*
 * The apiVersion of m's manager's Apply entry in live when it is not m's
 * and the entry owns fields (its fields are named as that apiVersion
 * names them: upstream prunes the merge there).  Returns a string of
 * live, or NULL.
 */
const char *gcp_managed_self_version(const gcp_managed_t *m,
    const json_t *live);

/*
 * The merge of config onto live (NULL on create), nothing removed.
 * Returns a new reference without managedFields, or NULL when out of
 * memory.
 */
json_t *gcp_managed_merged(const gcp_managed_t *m, const json_t *live,
    const json_t *config);

/*
 * Upstream's prune in the apiVersion of the manager's Apply entry of
 * live (gcp_managed_self_version()): merged (the merge converted there,
 * node its schema there) less the members of that entry's set that no
 * other entry of that apiVersion owns (their parents are left to
 * gcp_managed_apply(), by m's self_lost).  Returns a new reference, or
 * NULL when out of memory.
 */
json_t *gcp_managed_prune_self(const gcp_managed_t *m, const json_t *live,
    const json_t *node, const json_t *merged);

/*
 * The fields of merged that pruned lacks (both under m's schema), for
 * m's self_lost.  Returns a new reference, or NULL when out of memory.
 */
json_t *gcp_managed_lost(const gcp_managed_t *m, const json_t *merged,
    const json_t *pruned);

/*
 * The apiVersions other than m's of the entries of the managedFields
 * lists a and b (either may be NULL), at most GCP_MANAGED_MAX_VIEWS.
 * Returns a new array of strings (empty when none), or NULL when out of
 * memory.
 */
json_t *gcp_managed_versions(const gcp_managed_t *m, const json_t *a,
    const json_t *b);

/*
 * The manager of a request as upstream names it: fieldManager when set,
 * else the User-Agent up to its first "/", without unprintable
 * characters, cut at 128 bytes.  Returns a string in buf (of size > 128).
 */
const char *gcp_managed_manager(const char *field_manager,
    const char *user_agent, char *buf, size_t size);


#endif /* _GCP_MANAGED_H_INCLUDED_ */
