
/*
 * The flowcontrol configuration as a worker uses it: the FlowSchemas and
 * PriorityLevelConfigurations of the store compiled for matching (in
 * process memory, rebuilt when they change), and the classification of a
 * request (upstream's apf_controller: matchesFlowSchema and the flow
 * distinguisher).
 *
 * FlowSchemas are matched in order of matchingPrecedence, then name; one
 * whose priority level does not exist is skipped (it is "dangling").  The
 * mandatory objects stand in for stored ones that are missing (with an
 * empty uid), so that every request matches: masters the exempt schema,
 * everyone else at least catch-all.
 */

#ifndef _GCP_FC_CONFIG_H_INCLUDED_
#define _GCP_FC_CONFIG_H_INCLUDED_


#include "gcp_apf_shm.h"
#include "gcp_request.h"
#include "gcp_store.h"


typedef struct gcp_fc_config_s  gcp_fc_config_t;


/* What a request is, for the classification. */
typedef struct {
    const gcp_user_t  *user;
    unsigned           resource:1;      /* a resource request */
    const char        *verb;
    const char        *group;
    const char        *resource_name;
    const char        *subresource;     /* "" when none */
    const char        *ns;              /* "" when none */
    const char        *path;
} gcp_fc_request_t;


/* Where a request goes. */
typedef struct {
    const char  *flow_schema;
    const char  *flow_schema_uid;
    const char  *level;
    const char  *level_uid;
    const char  *distinguisher;     /* "" without a distinguisher method */
    uint64_t     hash;              /* of the flow */
    unsigned     exempt:1;
} gcp_fc_match_t;


/*
 * Compiles the objects of kvs (stored FlowSchemas and
 * PriorityLevelConfigurations under /registry/flowcontrol.apiserver.
 * k8s.io/, n of them; 0: the mandatory ones only).  Returns a
 * configuration owned by the caller (gcp_fc_config_free()), or NULL when
 * out of memory.
 */
gcp_fc_config_t *gcp_fc_config_build(const gcp_kv_t *kvs, size_t n);
void gcp_fc_config_free(gcp_fc_config_t *c);

/*
 * Returns the number of priority levels, and with levels their
 * configuration for the dispatcher (borrowed from c).
 */
size_t gcp_fc_config_levels(const gcp_fc_config_t *c,
    const gcp_apf_level_conf_t **levels);

/*
 * Classifies r into *m (strings borrowed from c and r).  Returns GCP_OK,
 * or GCP_EINTERNAL when the digest fails.
 */
int gcp_fc_classify(const gcp_fc_config_t *c, const gcp_fc_request_t *r,
    gcp_fc_match_t *m);

/*
 * The hash of a flow: the first 8 bytes, little-endian, of the SHA-256 of
 * the schema's name, a NUL and the distinguisher (upstream's hashFlowID).
 */
uint64_t gcp_fc_flow_hash(const char *flow_schema, const char *distinguisher);


#endif /* _GCP_FC_CONFIG_H_INCLUDED_ */
