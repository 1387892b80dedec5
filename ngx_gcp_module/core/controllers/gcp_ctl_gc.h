
/*
 * The garbage collector's internals, shared by its dependency graph
 * (gcp_ctl_gc_graph.c) and its workers (gcp_ctl_gc.c), after upstream's
 * pkg/controller/garbagecollector.
 *
 * The graph holds a node for every object that has owners or waits for
 * the collector (a deletionTimestamp with the orphan or foregroundDeletion
 * finalizer), and for every owner they name; an owner not seen yet is a
 * virtual node, whose existence a worker checks by uid.  Nodes are found
 * by uid and by storage key.
 */

#ifndef _GCP_CTL_GC_H_INCLUDED_
#define _GCP_CTL_GC_H_INCLUDED_


#include "gcp_ctl_int.h"


#define GCP_GC_ORPHAN      "orphan"
#define GCP_GC_FOREGROUND  "foregroundDeletion"


/* One entry of metadata.ownerReferences. */
typedef struct {
    char       *uid;
    char       *api_version;
    char       *kind;
    char       *name;
    unsigned    block:1;            /* blockOwnerDeletion */
} gcp_gc_ref_t;


typedef struct gcp_gc_node_s  gcp_gc_node_t;

struct gcp_gc_node_s {
    char                   *uid;
    char                   *api_version;
    char                   *kind;
    char                   *ns;
    char                   *name;
    char                   *key;        /* NULL while the kind is unknown */
    const gcp_resource_t   *res;

    gcp_gc_ref_t           *owners;
    size_t                  nowners;

    gcp_gc_node_t         **deps;
    size_t                  ndeps;
    size_t                  cap;

    unsigned                virtual:1;
    unsigned                being_deleted:1;
    unsigned                deleting_deps:1;    /* foregroundDeletion */
    unsigned                orphaning:1;
};


typedef struct {
    gcp_ctl_t              *ctl;
    gcp_ctl_map_t          *uids;           /* uid -> node */
    gcp_ctl_map_t          *keys;           /* key -> node */
    gcp_ctl_queue_t        *attempt_delete; /* by uid */
    gcp_ctl_queue_t        *attempt_orphan; /* by uid */
} gcp_gc_t;


/* Graph changes for an object listed, created or updated. */
void gcp_gc_observe(gcp_gc_t *gc, gcp_ctl_event_t *ev);

/* Graph changes for an object deleted. */
void gcp_gc_deleted(gcp_gc_t *gc, gcp_ctl_event_t *ev);

/*
 * Removes a node whose object is gone (a delete event, or a worker found
 * it absent): its dependents are looked at, and its owners waiting for
 * their dependents.
 */
void gcp_gc_forget(gcp_gc_t *gc, gcp_gc_node_t *node);

/* Drops every node (relist). */
void gcp_gc_clear(gcp_gc_t *gc);

/* The owner reference of dep to the owner uid, or NULL. */
const gcp_gc_ref_t *gcp_gc_ref_to(const gcp_gc_node_t *dep,
    const char *uid);

/*
 * Parses metadata.ownerReferences of obj into *refs (malloc'd, released
 * with gcp_gc_refs_free()).  Returns GCP_OK or GCP_ENOMEM.
 */
int gcp_gc_refs(const json_t *obj, gcp_gc_ref_t **refs, size_t *n);

void gcp_gc_refs_free(gcp_gc_ref_t *refs, size_t n);

/* Resolves a node's resource and key once its kind is served. */
int gcp_gc_resolve(gcp_gc_t *gc, gcp_gc_node_t *node);


#endif /* _GCP_CTL_GC_H_INCLUDED_ */
