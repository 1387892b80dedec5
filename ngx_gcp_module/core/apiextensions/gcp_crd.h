
/*
 * CustomResourceDefinitions (apiextensions.k8s.io/v1) as the rest of the
 * core sees them: the CRD resource itself, the conditions of a CRD's
 * status, and the per-process state that serves the custom resources of
 * every CRD (gcp_crd_cache.c): each worker watches the CRDs in the store
 * and keeps the registry's custom resources current, so that every worker
 * of every instance serves a new API within moments of its CRD being
 * Established, and a worker asked for it before its watch brought it
 * reads it first (gcp_crds_refresh()).
 */

#ifndef _GCP_CRD_H_INCLUDED_
#define _GCP_CRD_H_INCLUDED_


#include <jansson.h>

#include "gcp_registry.h"


#define GCP_CRD_GROUP      "apiextensions.k8s.io"
#define GCP_CRD_FINALIZER  "customresourcecleanup.apiextensions.k8s.io"
#define GCP_CRD_PREFIX     "/registry/apiextensions.k8s.io/" \
                           "customresourcedefinitions/"
#define GCP_CRD_APPROVAL   "api-approved.kubernetes.io"


extern const gcp_resource_t  gcp_type_customresourcedefinitions;


/* Returns the condition of crd's status of that type (borrowed), or NULL. */
json_t *gcp_crd_condition(const json_t *crd, const char *type);

/* Returns 1 when the condition of that type has status "True". */
int gcp_crd_condition_true(const json_t *crd, const char *type);

/*
 * Sets a condition of crd's status as upstream's SetCRDCondition: a new one
 * is appended; an existing one keeps its lastTransitionTime unless the
 * status changes (now, RFC 3339, is the new time).  Returns 1 when crd
 * changed (type, status, reason or message), 0 when not, -1 when out of
 * memory.
 */
int gcp_crd_set_condition(json_t *crd, const char *type, const char *status,
    const char *reason, const char *message, const char *now);

/* Returns 1 when the group needs the api-approved.kubernetes.io annotation */
int gcp_crd_protected_group(const char *group);

/*
 * The state of the approval annotation of a CRD in a protected group:
 * returns 0 missing, 1 invalid, 2 bypassed ("unapproved..."), 3 approved,
 * with *reason set to upstream's text (arena memory).
 */
int gcp_crd_approval(gcp_arena_t *a, const json_t *crd, const char **reason);


/*
 * The custom resources of an API core (api->crds): starts watching the
 * CRDs in the store and registering the custom resources of those that
 * are served.  Returns GCP_OK or GCP_ENOMEM.
 */
int gcp_crds_init(gcp_api_t *api);

/* Stops watching and releases everything (NULL api->crds is fine). */
void gcp_crds_free(gcp_api_t *api);

typedef void (*gcp_crds_done_pt)(void *arg);

/*
 * For a request about to be answered 404 under group: reads the CRD that
 * would serve resource of group ("RESOURCE.GROUP") from the store and
 * applies it to this process's custom resources when it is newer than
 * what this process's watch brought so far, so that a CRD any worker or
 * instance shows Established is served by this one too.  The read uses
 * arena a.  Returns 1 when done(arg) will be called once it is done (it
 * may be before this returns), 0 when there is nothing to read (CRDs not
 * loaded yet, an empty group or resource, out of memory): answer at once.
 */
int gcp_crds_refresh(gcp_api_t *api, const char *group, const char *resource,
    gcp_arena_t *a, gcp_crds_done_pt done, void *arg);

/*
 * For a discovery or OpenAPI request: when this worker's CRD watch has not
 * delivered up to the store's current revision (a count of the CRDs tells
 * it), reads the CRDs and applies those newer than this worker's copy, so
 * that a CRD any worker shows Established is in this worker's documents
 * too.  The reads use arena a.  Returns 1 when done(arg) will be called
 * once it is done (it may be before this returns), 0 when there is
 * nothing to do (CRDs not loaded yet or being listed, out of memory):
 * answer at once.
 */
int gcp_crds_catch_up(gcp_api_t *api, gcp_arena_t *a, gcp_crds_done_pt done,
    void *arg);

/* Returns 1 once the CRDs in the store have been read (readyz). */
int gcp_crds_synced(gcp_api_t *api);


#endif /* _GCP_CRD_H_INCLUDED_ */
