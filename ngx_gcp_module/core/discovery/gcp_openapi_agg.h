
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

/* Sorts the index's keys as Go writes a map.  Returns GCP_OK or GCP_ENOMEM. */
int gcp_openapi_index_sort(json_t *index);


/*
 * The fronted upstream's documents (gcp_openapi_front.c), narrowed to the
 * surface (aggregator/gcp_front.h), in place of this server's own
 * group-versions that are fronted (of all its own and delegated ones with
 * gcp_front_only on).  Nothing changes without gcp_front.
 */

/*
 * Replaces in this server's v2 document doc the fronted paths (and every
 * group-version's with gcp_front_only) by the upstream's, with the
 * upstream's definitions, and drops the definitions no path reaches.
 * Returns GCP_OK or GCP_ENOMEM.
 */
int gcp_openapi_front_v2(gcp_api_t *api, json_t *doc);

/*
 * The same for the v3 index: the fronted group-versions' keys, each URL
 * with the hash of the document served there (gcp_openapi_dump() in a).
 * Returns GCP_OK or GCP_ENOMEM.
 */
int gcp_openapi_front_v3_index(gcp_api_t *api, gcp_arena_t *a,
    json_t *index);

/*
 * For the v3 document at key ("api/v1", "apis/GROUP/VERSION"): returns 1
 * with *doc a new reference of the fronted one (NULL: none yet, 404), or
 * 1 with *doc NULL for a key gcp_front_only hides; returns 0 when key is
 * not the front's (this server's, or delegated).
 */
int gcp_openapi_front_v3_doc(gcp_api_t *api, const char *key, json_t **doc);


#endif /* _GCP_OPENAPI_AGG_H_INCLUDED_ */
