
/*
 * OpenAPI schemas of the served types.
 *
 * A schema set holds named definitions ("io.k8s.api.core.v1.ConfigMap" ->
 * OpenAPI v3 schema object).  Built-in definitions are written in this
 * project (one JSON object of definitions per file in ngx_gcp_module/core/
 * schemas/) and compiled in; custom resources add theirs at run time.  A
 * reference is {"$ref": "#/components/schemas/NAME"} (or
 * "#/definitions/NAME"), possibly wrapped as {"allOf": [{"$ref": ...}]}.
 *
 * Schema nodes are jansson values borrowed from the set: valid until the set
 * is freed; callers never decref them.  Every function accepts a NULL node
 * and then returns NULL ("no schema": anything goes).
 *
 * Kubernetes extensions read by the core: x-kubernetes-patch-strategy,
 * x-kubernetes-patch-merge-key, x-kubernetes-list-type,
 * x-kubernetes-list-map-keys, x-kubernetes-map-type,
 * x-kubernetes-group-version-kind, x-kubernetes-preserve-unknown-fields,
 * x-kubernetes-int-or-string, x-kubernetes-embedded-resource.
 */

#ifndef _GCP_SCHEMA_H_INCLUDED_
#define _GCP_SCHEMA_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"


typedef struct gcp_schema_set_s  gcp_schema_set_t;


/* Returns a new empty set owned by the caller, or NULL. */
gcp_schema_set_t *gcp_schema_set_create(void);

/* Frees the set and every definition in it.  NULL is allowed. */
void gcp_schema_set_free(gcp_schema_set_t *set);

/*
 * Parses a JSON document {NAME: schema, ...} and adds its definitions
 * (replacing same-named ones).  Returns GCP_OK, or GCP_EBADREQUEST with
 * *err set to a static or set-owned message.
 */
int gcp_schema_set_add_doc(gcp_schema_set_t *set, const char *json,
    size_t len, const char **err);

/*
 * Adds every document compiled into the module (replacing same-named
 * definitions).  After gcp_schema_embedded_share() the set refers to the
 * process's shared definitions instead of parsing copies of its own.
 * Returns GCP_OK or an error.
 */
int gcp_schema_set_load_embedded(gcp_schema_set_t *set, const char **err);

/*
 * Parses the embedded documents once for the process, for every set that
 * loads them later (nginx's master calls it before it forks the workers,
 * so that they share its pages instead of building copies).  Kept until
 * the process exits; a second call does nothing.  Returns GCP_OK, or an
 * error with *err set to a static message.
 */
int gcp_schema_embedded_share(const char **err);

/* Adds one definition; the set takes a reference of schema. */
int gcp_schema_set_put(gcp_schema_set_t *set, const char *name,
    json_t *schema);

/* Removes the definition name (nothing when absent). */
void gcp_schema_set_del(gcp_schema_set_t *set, const char *name);

/*
 * A memo of values derived from the definitions (e.g. a type's empty
 * object), kept until a definition is added, replaced or removed:
 * gcp_schema_memo_get() returns the value of key (borrowed, valid until
 * the set changes) or NULL; gcp_schema_memo_put() stores a reference of
 * value under key and returns GCP_OK or GCP_ENOMEM.
 */
const json_t *gcp_schema_memo_get(const gcp_schema_set_t *set,
    const char *key);
int gcp_schema_memo_put(const gcp_schema_set_t *set, const char *key,
    json_t *value);

/* Returns the definition NAME, or NULL. */
const json_t *gcp_schema_get(const gcp_schema_set_t *set, const char *name);

/*
 * Walks the definitions: start with an iterator set to GCP_SCHEMA_ITER;
 * each call returns the next name (borrowed from the set) and sets *def,
 * or returns NULL at the end.  The set must not change during the walk.
 */
typedef struct {
    void      *it;
    unsigned   phase;
} gcp_schema_iter_t;

#define GCP_SCHEMA_ITER  { NULL, 0 }

const char *gcp_schema_next(const gcp_schema_set_t *set, gcp_schema_iter_t *i,
    const json_t **def);

/* Returns the definition name a node refers to ("$ref" or allOf), or NULL. */
const char *gcp_schema_ref_name(const json_t *node);

/* Follows references until a node that is not a reference.  NULL if a
 * reference is dangling. */
const json_t *gcp_schema_resolve(const gcp_schema_set_t *set,
    const json_t *node);

/*
 * Returns the schema of field name of an object schema node (node is
 * resolved first): properties[name], else additionalProperties (when it is
 * a schema), else NULL.  The result is not resolved, so that extensions
 * written beside a reference stay visible; pass it to gcp_schema_resolve()
 * to descend.
 */
const json_t *gcp_schema_property(const gcp_schema_set_t *set,
    const json_t *node, const char *name);

/* Returns the (unresolved) items schema of an array schema, or NULL. */
const json_t *gcp_schema_items(const gcp_schema_set_t *set,
    const json_t *node);

/*
 * Returns the resolved node's "type" ("object", "array", "string",
 * "integer", "number", "boolean"), or NULL when it has none.
 */
const char *gcp_schema_type(const gcp_schema_set_t *set, const json_t *node);

/*
 * Returns the string value of extension key (e.g.
 * "x-kubernetes-patch-strategy") of the node, looked up on the node itself,
 * then on what it refers to; NULL when absent or not a string.
 */
const char *gcp_schema_ext(const gcp_schema_set_t *set, const json_t *node,
    const char *key);

/*
 * Returns the name of the definition whose x-kubernetes-group-version-kind
 * lists group/version/kind (the first one in name order when several do),
 * or NULL.  The name is borrowed from the set.
 */
const char *gcp_schema_find_gvk(const gcp_schema_set_t *set,
    const char *group, const char *version, const char *kind);

/*
 * Returns the name of the definition node is (the same jansson value, as
 * gcp_schema_get() returns it) or refers to, or NULL when it is neither.
 * The name is borrowed from the set or from node.
 */
const char *gcp_schema_def_name(const gcp_schema_set_t *set,
    const json_t *node);


#endif /* _GCP_SCHEMA_H_INCLUDED_ */
