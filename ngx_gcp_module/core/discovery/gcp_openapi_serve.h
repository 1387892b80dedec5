
/*
 * Serving the OpenAPI documents (/openapi/v2, /openapi/v3[/KEY]) with
 * kube-apiserver's caching headers.  Documents are built once per process
 * and kept until gcp_openapi_cache_reset() (the served resources changed).
 */

#ifndef _GCP_OPENAPI_SERVE_H_INCLUDED_
#define _GCP_OPENAPI_SERVE_H_INCLUDED_


#include "gcp_op.h"


/* Serves op and returns 1 for /openapi/... paths; returns 0 otherwise. */
int gcp_openapi_handle(gcp_op_t *op);

/* Drops the built documents (they are rebuilt on the next request). */
void gcp_openapi_cache_reset(gcp_api_t *api);

/* Frees the cache (at gcp_api_destroy). */
void gcp_openapi_cache_free(gcp_api_t *api);


#endif /* _GCP_OPENAPI_SERVE_H_INCLUDED_ */
