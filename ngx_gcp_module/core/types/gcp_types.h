
/*
 * The built-in resources served by every ngx_gcp: descriptors and
 * strategies live in one gcp_type_*.c file per type.
 */

#ifndef _GCP_TYPES_H_INCLUDED_
#define _GCP_TYPES_H_INCLUDED_


#include "gcp_object.h"
#include "gcp_registry.h"


extern const gcp_resource_t  gcp_type_namespaces;
extern const gcp_resource_t  gcp_type_configmaps;
extern const gcp_resource_t  gcp_type_secrets;
extern const gcp_resource_t  gcp_type_serviceaccounts;
extern const gcp_resource_t  gcp_type_resourcequotas;
extern const gcp_resource_t  gcp_type_events;
extern const gcp_resource_t  gcp_type_events_k8s_io;
extern const gcp_resource_t  gcp_type_selfsubjectreviews;
extern const gcp_resource_t  gcp_type_tokenreviews;
extern const gcp_resource_t  gcp_type_selfsubjectaccessreviews;
extern const gcp_resource_t  gcp_type_subjectaccessreviews;
extern const gcp_resource_t  gcp_type_localsubjectaccessreviews;
extern const gcp_resource_t  gcp_type_selfsubjectrulesreviews;
extern const gcp_resource_t  gcp_type_clusterrolebindings;
extern const gcp_resource_t  gcp_type_clusterroles;
extern const gcp_resource_t  gcp_type_rolebindings;
extern const gcp_resource_t  gcp_type_roles;
extern const gcp_resource_t  gcp_type_leases;


/* Adds every built-in resource to reg.  Returns GCP_OK or GCP_ENOMEM. */
int gcp_types_register(gcp_registry_t *reg);

/* Returns the number of keys of obj[field] (a map), 0 when absent. */
size_t gcp_type_map_size(const json_t *obj, const char *field);


#endif /* _GCP_TYPES_H_INCLUDED_ */
