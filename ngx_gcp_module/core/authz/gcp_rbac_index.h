
/*
 * The RBAC index: every Role, ClusterRole, RoleBinding and
 * ClusterRoleBinding of the store, in memory, kept current from a store
 * watch (a list, then the watch from the list's revision; a new list when
 * the watch ends).  Every worker process keeps its own, so decisions are
 * the same in every worker and never read the store.
 *
 * Bindings are also indexed by subject (user, group, service account as
 * its user name), so that the rules that apply to a user are found
 * without a scan: upstream's VisitRulesFor (ClusterRoleBindings first,
 * then the RoleBindings of the namespace; each in name order here, which
 * upstream leaves to its informers).
 */

#ifndef _GCP_RBAC_INDEX_H_INCLUDED_
#define _GCP_RBAC_INDEX_H_INCLUDED_


#include <jansson.h>

#include "gcp_request.h"
#include "gcp_rbac_rule.h"
#include "gcp_store.h"


typedef enum {
    GCP_RBAC_ROLE = 0,
    GCP_RBAC_CLUSTERROLE,
    GCP_RBAC_ROLEBINDING,
    GCP_RBAC_CLUSTERROLEBINDING,
    GCP_RBAC_NKINDS
} gcp_rbac_kind_t;


typedef struct {
    const char  *kind;              /* User, Group, ServiceAccount, ... */
    const char  *name;
    const char  *ns;                /* as written, "" when absent */
} gcp_rbac_subject_t;


/* One object; everything it points to lives in its arena. */
typedef struct {
    gcp_arena_t         *arena;
    gcp_rbac_kind_t      kind;
    const char          *id;            /* "NS/NAME", or "NAME" */
    const char          *ns;            /* "" for cluster objects */
    const char          *name;
    int64_t              revision;
    json_t              *obj;           /* the object as stored */

    gcp_rbac_rule_t     *rules;         /* Role, ClusterRole */
    size_t               nrules;

    const char          *role_kind;     /* bindings: roleRef */
    const char          *role_name;
    gcp_rbac_subject_t  *subjects;
    size_t               nsubjects;
} gcp_rbac_obj_t;


typedef struct gcp_rbac_index_s  gcp_rbac_index_t;


/* Where a visited rule comes from. */
typedef struct {
    const gcp_rbac_obj_t      *binding;
    const gcp_rbac_subject_t  *subject;     /* the first that applies */
} gcp_rbac_source_t;


/*
 * Called with each rule that applies (src and rule set), or with an error
 * resolving a binding's role (src and rule NULL, err an arena string such
 * as "clusterrole.rbac.authorization.k8s.io \"x\" not found").  Returns 1
 * to go on, 0 to stop.
 */
typedef int (*gcp_rbac_visit_pt)(void *arg, const gcp_rbac_source_t *src,
    const gcp_rbac_rule_t *rule, const char *err);

/* Called after changes of objects of kind were applied. */
typedef void (*gcp_rbac_changed_pt)(void *arg, gcp_rbac_kind_t kind);


/*
 * Returns a new index owned by the caller (gcp_rbac_index_free), which
 * starts loading at once (the LMDB store answers before this returns), or
 * NULL when out of memory.
 */
gcp_rbac_index_t *gcp_rbac_index_create(gcp_store_t *store,
    gcp_loop_t *loop);

void gcp_rbac_index_free(gcp_rbac_index_t *ix);

/* Returns 1 once the first list was loaded. */
int gcp_rbac_index_ready(const gcp_rbac_index_t *ix);

/* Returns the store revision the index reflects (0 before loading). */
int64_t gcp_rbac_index_revision(const gcp_rbac_index_t *ix);

/*
 * Visits the rules that apply to user in namespace ns ("" or NULL: the
 * cluster bindings only), as upstream's VisitRulesFor.  Strings given to
 * visit are owned by a or by the index (valid until the loop runs again).
 */
void gcp_rbac_index_visit(gcp_rbac_index_t *ix, gcp_arena_t *a,
    const gcp_user_t *user, const char *ns, gcp_rbac_visit_pt visit,
    void *arg);

/*
 * The rules of the role a binding in namespace ns references
 * (GetRoleReferenceRules): role_kind "Role" or "ClusterRole".  Returns
 * GCP_OK with *rules (borrowed) and *n, or GCP_ENOTFOUND with *err (an
 * arena string as the error upstream's listers give).
 */
int gcp_rbac_index_role_rules(gcp_rbac_index_t *ix, gcp_arena_t *a,
    const char *role_kind, const char *ns, const char *name,
    const gcp_rbac_rule_t **rules, size_t *n, const char **err);

/* Returns the object of kind named ns/name (ns "" for cluster objects),
 * borrowed, or NULL. */
const gcp_rbac_obj_t *gcp_rbac_index_get(gcp_rbac_index_t *ix,
    gcp_rbac_kind_t kind, const char *ns, const char *name);

/*
 * Returns the number of objects of kind and sets *objs to them, sorted by
 * namespace and name; borrowed, valid until the loop runs again.
 */
size_t gcp_rbac_index_list(gcp_rbac_index_t *ix, gcp_rbac_kind_t kind,
    gcp_rbac_obj_t * const **objs);

/*
 * Calls changed(arg, kind) after each batch of changes (and after every
 * load).  Returns GCP_OK, or GCP_ENOMEM.  gcp_rbac_index_unsubscribe()
 * removes it.
 */
int gcp_rbac_index_subscribe(gcp_rbac_index_t *ix,
    gcp_rbac_changed_pt changed, void *arg);
void gcp_rbac_index_unsubscribe(gcp_rbac_index_t *ix,
    gcp_rbac_changed_pt changed, void *arg);

/*
 * Returns upstream's description of a rule's source ("ClusterRoleBinding
 * \"x\" of ClusterRole \"y\" to Group \"z\""), owned by a, or NULL.
 */
const char *gcp_rbac_source_string(gcp_arena_t *a,
    const gcp_rbac_source_t *src);


#endif /* _GCP_RBAC_INDEX_H_INCLUDED_ */
