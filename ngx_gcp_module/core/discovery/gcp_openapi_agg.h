
/*
 * The OpenAPI documents of delegated group-versions (gcp_openapi_agg.c),
 * for gcp_openapi_serve.c: what the servers of remote APIServices gave,
 * kept in the aggregator's view (agg may be NULL: nothing is delegated).
 */

#ifndef _GCP_OPENAPI_AGG_H_INCLUDED_
#define _GCP_OPENAPI_AGG_H_INCLUDED_


#include "gcp_aggregator.h"
#include "gcp_openapi.h"


/*
 * Returns the v3 document served at /openapi/v3/KEY by a remote server
 * ("apis/GROUP/VERSION"), a new reference, or NULL when none is.
 */
json_t *gcp_openapi_agg_v3_doc(gcp_agg_t *agg, const char *key);

/*
 * Adds the remote group-versions to the v3 index (each URL with its
 * document's hash), keys sorted.  Returns GCP_OK or GCP_ENOMEM.
 */
int gcp_openapi_agg_v3_index(gcp_agg_t *agg, json_t *index);

/*
 * Merges the v2 documents of the remote servers into doc: their paths and
 * definitions that doc does not have.  Returns GCP_OK or GCP_ENOMEM.
 */
int gcp_openapi_agg_v2(gcp_agg_t *agg, json_t *doc);


#endif /* _GCP_OPENAPI_AGG_H_INCLUDED_ */
