
/*
 * Discovery documents (/api, /apis, /apis/GROUP, /api/v1,
 * /apis/GROUP/VERSION), legacy and aggregated, built from the registry.
 */

#ifndef _GCP_DISCOVERY_H_INCLUDED_
#define _GCP_DISCOVERY_H_INCLUDED_


#include "gcp_op.h"


/*
 * Serves op if its path is a discovery path and returns 1; returns 0
 * (without responding) for any other path.
 */
int gcp_discovery_handle(gcp_op_t *op);

/* The storageVersionHash of a resource (base64 of 8 bytes, NUL-ended). */
void gcp_discovery_storage_hash(const gcp_resource_t *res, char out[16]);

/* A quoted upper-case hex SHA-512 ETag of data, NUL-terminated. */
void gcp_discovery_etag(const char *data, size_t len, char out[131]);


#endif /* _GCP_DISCOVERY_H_INCLUDED_ */
