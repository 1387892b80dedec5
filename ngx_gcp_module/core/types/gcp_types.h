
/*
 * The built-in resources of the core, coordination and events groups:
 * descriptors and strategies live in one gcp_type_*.c file per type.  The
 * types of authentication and authorization live with them (authn/,
 * authz/); server/gcp_builtin.c lists every built-in resource.
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
extern const gcp_resource_t  gcp_type_leases;


/* Returns the number of keys of obj[field] (a map), 0 when absent. */
size_t gcp_type_map_size(const json_t *obj, const char *field);

/*
 * A strategy's status_build for types whose status strategy resets only
 * the spec (namespaces): a copy of the request's object src with old's
 * spec (an empty one when old has none), metadata changes kept.  Returns
 * a new reference, NULL when out of memory.
 */
json_t *gcp_type_status_keep_spec(gcp_op_t *op, const json_t *src,
    const json_t *old);


#endif /* _GCP_TYPES_H_INCLUDED_ */
