
/*
 * A worker's caches before its first requests: a request waits until
 * the caches the worker derives from the store (the RBAC policy, the
 * flowcontrol configuration, the CRDs, the APIServices, the webhook
 * configurations) have loaded once, so that a worker started by a reload
 * never answers with an older view than the workers it replaces did.
 */

#ifndef _GCP_WARM_H_INCLUDED_
#define _GCP_WARM_H_INCLUDED_


#include "gcp_op.h"


/*
 * Returns 0 when op may go on now (the caches are loaded, or op is a
 * health, metrics or version request, which need none); else returns 1
 * and calls next(op) once they are, or answers op itself with 503 when
 * they are still loading after conf.warm_ms (the store's timeout: the
 * caches' lists wait for the store as reads do).
 */
int gcp_warm_wait(gcp_op_t *op, void (*next)(gcp_op_t *op));


#endif /* _GCP_WARM_H_INCLUDED_ */
