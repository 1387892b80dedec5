
/*
 * flowcontrol.apiserver.k8s.io: FlowSchema and PriorityLevelConfiguration,
 * stored once in v1 form and served as v1 and as v1beta3 (which extension
 * servers built on the 1.26 to 1.31 libraries watch), with /status, the
 * validation and Table columns of kube-apiserver 1.32.
 *
 * v1beta3 differs from v1 only in the defaulting of a Limited level's
 * nominalConcurrencyShares: 0 means "unset" (30) unless the object carries
 * the annotation flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-
 * shares: "true", which v1 objects with 0 shares get on their way out as
 * v1beta3 and lose on their way in (upstream's conversion).
 */

#ifndef _GCP_FC_TYPES_H_INCLUDED_
#define _GCP_FC_TYPES_H_INCLUDED_


#include "gcp_json.h"
#include "gcp_object.h"
#include "gcp_registry.h"


#define GCP_FC_GROUP             "flowcontrol.apiserver.k8s.io"
#define GCP_FC_STORAGE_FS        GCP_FC_GROUP "/flowschemas"
#define GCP_FC_STORAGE_PL        GCP_FC_GROUP "/prioritylevelconfigurations"
#define GCP_FC_AUTOUPDATE        "apf.kubernetes.io/autoupdate-spec"
#define GCP_FC_PRESERVE_ZERO                                                 \
    "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares"

#define GCP_FC_DEFAULT_PRECEDENCE      1000
#define GCP_FC_MAX_PRECEDENCE          10000
#define GCP_FC_DEFAULT_SHARES          30
#define GCP_FC_DEFAULT_QUEUES          64
#define GCP_FC_DEFAULT_HAND_SIZE       8
#define GCP_FC_DEFAULT_QUEUE_LENGTH    50


extern const gcp_resource_t  gcp_type_flowschemas;
extern const gcp_resource_t  gcp_type_flowschemas_v1beta3;
extern const gcp_resource_t  gcp_type_prioritylevels;
extern const gcp_resource_t  gcp_type_prioritylevels_v1beta3;


/* Shared by both kinds (gcp_fc_strategy.c). */

/* Top-level fields of both kinds in Go order. */
extern const char * const  gcp_fc_order[];

/* PrepareForCreate: the status starts empty. */
int gcp_fc_prepare_create(gcp_op_t *op, json_t *obj);

/* PrepareForUpdate of the main resource: the stored status stays. */
int gcp_fc_keep_status(gcp_op_t *op, json_t *obj, const json_t *old);

/* /status: an absent status is an empty one. */
int gcp_fc_prepare_status(gcp_op_t *op, json_t *obj, const json_t *old);

/*
 * Returns a copy of obj with apiVersion set to GROUP/version, a new
 * reference (NULL when out of memory).
 */
json_t *gcp_fc_convert(const json_t *obj, const char *version);

/* Returns integer obj.path, or def when absent or not an integer. */
int64_t gcp_fc_int(const json_t *obj, const char *a, const char *b,
    int64_t def);


#endif /* _GCP_FC_TYPES_H_INCLUDED_ */
