
/*
 * OpenAPI documents of the served API, built from the resource descriptors
 * (gcp_resource.h) and a schema set (gcp_schema.h):
 *
 *   /openapi/v2            Swagger 2.0, every path and reachable definition
 *   /openapi/v3            index: {"paths": {KEY: {"serverRelativeURL":
 *                          "/openapi/v3/KEY?hash=HASH"}}}
 *   /openapi/v3/KEY        one document per KEY: "api", "api/v1", "apis",
 *                          "apis/GROUP", "apis/GROUP/VERSION", "version"
 *
 * Paths, operation ids, parameters, media types and extensions
 * (x-kubernetes-action, x-kubernetes-group-version-kind) are named as
 * kube-apiserver names them, e.g. listCoreV1NamespacedConfigMap.  Schemas
 * are published with private x-gcp-* keys removed; v2 definitions are
 * converted (allOf-wrapped references flattened, defaults dropped,
 * "#/definitions/" references).
 *
 * Every json_t returned is a new reference owned by the caller.
 */

#ifndef _GCP_OPENAPI_H_INCLUDED_
#define _GCP_OPENAPI_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"
#include "gcp_resource.h"
#include "gcp_schema.h"


/* info.version of the documents when the caller gives none */
#define GCP_OPENAPI_VERSION   "1.32"

/* hex digits of a document hash (SHA-512) */
#define GCP_OPENAPI_HASH_LEN  128


/*
 * Returns the Swagger 2.0 document of the resources res[0..n-1] (and the
 * discovery and /version paths), with info.version version_info (NULL:
 * GCP_OPENAPI_VERSION), or NULL when out of memory.
 */
json_t *gcp_openapi_v2(const gcp_schema_set_t *set,
    const gcp_resource_t *const *res, size_t n, const char *version_info);

/*
 * Returns the OpenAPI v3 document of one group-version (group "" is the
 * core group: /openapi/v3/api/v1), or NULL when no resource of res is in
 * that group-version or out of memory.
 */
json_t *gcp_openapi_v3_gv(const gcp_schema_set_t *set,
    const gcp_resource_t *const *res, size_t n, const char *group,
    const char *version);

/*
 * Returns the OpenAPI v3 document served at /openapi/v3/KEY for key (see
 * the top of this file), or NULL when nothing is served there (404) or out
 * of memory.
 */
json_t *gcp_openapi_v3_doc(const gcp_schema_set_t *set,
    const gcp_resource_t *const *res, size_t n, const char *key);

/*
 * Returns the /openapi/v3 index, each URL carrying the hash of the
 * document's gcp_openapi_dump() bytes, or NULL when out of memory.
 */
json_t *gcp_openapi_v3_index(const gcp_schema_set_t *set,
    const gcp_resource_t *const *res, size_t n);

/*
 * Appends the OpenAPI v2 document doc (gcp_openapi_v2()) as gnostic's
 * openapi.v2.Document protobuf message, as kube-openapi serves it for
 * application/com.github.proto-openapi.spec.v2.v1.0+protobuf
 * (gcp_openapi_pb.c).  Returns GCP_OK, GCP_ENOMEM (b failed), or
 * GCP_EINTERNAL for a document nested beyond the protobuf depth limit.
 */
int gcp_openapi_v2_protobuf(gcp_buf_t *b, const json_t *doc);

/*
 * Returns doc serialized as served (compact JSON, keys in document order),
 * NUL-terminated, owned by the arena, with its length in *len; NULL when
 * out of memory.  The index hashes exactly these bytes.
 */
char *gcp_openapi_dump(gcp_arena_t *a, const json_t *doc, size_t *len);

/*
 * Writes the upper-case hex SHA-512 of bytes (as kube-openapi's ETags and
 * ?hash= values) and a NUL into out.  Returns GCP_OK or GCP_EINTERNAL.
 */
int gcp_openapi_hash(const char *bytes, size_t len,
    char out[GCP_OPENAPI_HASH_LEN + 1]);


#endif /* _GCP_OPENAPI_H_INCLUDED_ */
