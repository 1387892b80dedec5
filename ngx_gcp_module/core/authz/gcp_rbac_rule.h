
/*
 * RBAC policy rules (rbac.authorization.k8s.io/v1 PolicyRule) as the
 * authorizer and the escalation checks use them: parsed once from JSON,
 * matched against request attributes as upstream's RuleAllows, compared
 * as upstream's Covers (every simple rule a servant rule breaks down into
 * must be covered by one owner rule) and described as in its escalation
 * messages ({APIGroups:[""], Resources:["secrets"], Verbs:["get"]}).
 */

#ifndef _GCP_RBAC_RULE_H_INCLUDED_
#define _GCP_RBAC_RULE_H_INCLUDED_


#include <jansson.h>

#include "gcp_authz.h"


typedef struct {
    const char  **v;
    size_t        n;
} gcp_rbac_strs_t;


typedef struct {
    gcp_rbac_strs_t  verbs;
    gcp_rbac_strs_t  groups;            /* apiGroups */
    gcp_rbac_strs_t  resources;
    gcp_rbac_strs_t  names;             /* resourceNames */
    gcp_rbac_strs_t  urls;              /* nonResourceURLs */
} gcp_rbac_rule_t;


/*
 * Parses a "rules" array (NULL or null: none; items that are not objects
 * and values that are not strings are skipped).  Returns GCP_OK with
 * *rules and *n set (everything owned by a), or GCP_ENOMEM.
 */
int gcp_rbac_rules_parse(gcp_arena_t *a, const json_t *rules,
    gcp_rbac_rule_t **out, size_t *n);

/* Returns 1 when rule allows the request attrs (RuleAllows), else 0. */
int gcp_rbac_rule_allows(const gcp_rbac_rule_t *rule,
    const gcp_authz_attrs_t *attrs);

/* Returns 1 when both rules have the same fields in the same order. */
int gcp_rbac_rule_equal(const gcp_rbac_rule_t *x, const gcp_rbac_rule_t *y);

/*
 * Returns rule as a PolicyRule object (verbs, apiGroups, resources,
 * resourceNames, nonResourceURLs; empty lists left out), a new reference
 * owned by the caller, or NULL when out of memory.
 */
json_t *gcp_rbac_rule_json(const gcp_rbac_rule_t *rule);

/*
 * Covers: the simple rules of servant (one group, resource and verb, and
 * at most one resource name; or one URL and verb) that no rule of owner
 * covers, in breakdown order.  Returns GCP_OK with *missing (owned by a,
 * NULL when none) and *nmissing set, or GCP_ENOMEM.
 */
int gcp_rbac_covers(gcp_arena_t *a, const gcp_rbac_rule_t * const *owner,
    size_t nowner, const gcp_rbac_rule_t *servant, size_t nservant,
    gcp_rbac_rule_t **missing, size_t *nmissing);

/*
 * Returns the missing rules compacted (simple rules of one group and one
 * resource merged, verbs in order), each described as upstream's
 * CompactString, without duplicates, sorted and joined by "\n"; owned by
 * a, NULL when out of memory.
 */
const char *gcp_rbac_describe_missing(gcp_arena_t *a,
    const gcp_rbac_rule_t *missing, size_t n);


#endif /* _GCP_RBAC_RULE_H_INCLUDED_ */
