
/*
 * The bootstrap configuration of API Priority and Fairness: the mandatory
 * and suggested PriorityLevelConfigurations and FlowSchemas of
 * k8s.io/apiserver's pkg/apis/flowcontrol/bootstrap (1.32), created at
 * first start and kept as upstream's configuration ensurer keeps them:
 *
 *   - a missing mandatory or suggested object is created, annotated
 *     apf.kubernetes.io/autoupdate-spec: "true";
 *   - a mandatory object always gets its bootstrap spec back (and the
 *     annotation "true");
 *   - a suggested object gets its bootstrap spec back when the annotation
 *     says "true", or, without a boolean annotation, while its generation
 *     is 1 (nobody changed it); the annotation is then set to what was
 *     decided;
 *   - an object annotated "true" that is no longer part of the bootstrap
 *     configuration is deleted.
 */

#ifndef _GCP_FC_BOOTSTRAP_H_INCLUDED_
#define _GCP_FC_BOOTSTRAP_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"
#include "gcp_store.h"


typedef enum {
    GCP_FC_KEEP = 0,            /* nothing to do */
    GCP_FC_UPDATE,              /* write the revised object */
    GCP_FC_DELETE               /* delete the object */
} gcp_fc_ensure_t;


/* The number of bootstrap objects. */
size_t gcp_fc_bootstrap_count(void);

/*
 * Returns bootstrap object i (v1 form: kind, apiVersion, metadata.name and
 * the autoupdate annotation, spec), a new reference; *pl is 1 for a
 * PriorityLevelConfiguration, 0 for a FlowSchema; *mandatory 1 for the
 * mandatory ones.  NULL when out of memory.
 */
json_t *gcp_fc_bootstrap_object(size_t i, int *pl, int *mandatory);

/*
 * Returns the bootstrap object of that kind and name (as above), or NULL
 * when there is none.
 */
json_t *gcp_fc_bootstrap_find(int pl, const char *name, int *mandatory);

/*
 * Returns the fixed spec of the mandatory object of that kind and name, a
 * new reference, or NULL when it is not mandatory.
 */
json_t *gcp_fc_mandatory_spec(int pl, const char *name);

/*
 * The ensurer's decision for a stored object cur (v1 form, with metadata)
 * of that kind.  GCP_FC_UPDATE sets *revised to the object to write (a new
 * reference: spec and annotation revised, the rest as stored).
 */
gcp_fc_ensure_t gcp_fc_ensure(int pl, const json_t *cur, json_t **revised);

/*
 * Creates the bootstrap objects that do not exist in the store yet (at
 * first start: every worker may run it, a second run changes nothing),
 * then calls done(arg, rc).
 */
void gcp_fc_seed(gcp_store_t *store, void (*done)(void *arg, int rc),
    void *arg);


#endif /* _GCP_FC_BOOTSTRAP_H_INCLUDED_ */
