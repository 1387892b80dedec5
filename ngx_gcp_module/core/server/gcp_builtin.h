
/*
 * The built-in resources: every type the core serves without a
 * CustomResourceDefinition, in the order discovery lists their groups.
 */

#ifndef _GCP_BUILTIN_H_INCLUDED_
#define _GCP_BUILTIN_H_INCLUDED_


#include "gcp_registry.h"


/* Adds every built-in resource to reg.  Returns GCP_OK or GCP_ENOMEM. */
int gcp_builtin_register(gcp_registry_t *reg);


#endif /* _GCP_BUILTIN_H_INCLUDED_ */
