
/*
 * Fronting an upstream API server with a minimal surface (the
 * configuration is gcp_front_conf_t, gcp_request.h): the group-versions
 * of the exposed resources are the upstream's; requests for exposed
 * resources, verbs, namespaces and subresources go there with the
 * caller's identity (Impersonate-* headers over the fronting credential,
 * or front-proxy X-Remote-* headers), everything else in those
 * group-versions is 404 as if it did not exist, and a verb not exposed is
 * 405.  The client's credentials and identity headers never go on: the
 * identity sent is the one this server authenticated (and impersonated,
 * when its authorizer let the caller impersonate).
 */

#ifndef _GCP_FRONT_H_INCLUDED_
#define _GCP_FRONT_H_INCLUDED_


#include "gcp_aggregator.h"


/*
 * Returns 1 when group/version is fronted (one resource of it is
 * exposed), else 0 (conf may be NULL).
 */
int gcp_front_gv(const gcp_front_conf_t *conf, const char *group,
    const char *version);

/*
 * Returns 1 when a request path ("/api/v1/...", "/apis/G/V/...", below
 * the group-version's own discovery path) is under a fronted
 * group-version, else 0: its body is the upstream's to read.
 */
int gcp_front_path(const gcp_front_conf_t *conf, const char *path,
    size_t len);

/*
 * Returns the exposed entry of group/version/resource, or NULL.
 */
const gcp_front_expose_t *gcp_front_find(const gcp_front_conf_t *conf,
    const char *group, const char *version, const char *resource);

/*
 * Returns 1 when s is in the NULL-terminated list (NULL: an empty one),
 * else 0.
 */
int gcp_front_listed(const char * const *list, const char *s);

/*
 * For a request authenticated and impersonated (before this server's
 * authorizer): when it is a resource request under a fronted
 * group-version, answers it (404 outside the surface, 405 for a verb not
 * exposed, this server's 403 when gcp_front_conf_t.authorize and its
 * authorizer refuses, else a gcp_proxy_t to the upstream) and returns 1;
 * returns 0 for any other request (internal ones included).
 */
int gcp_front_route(gcp_op_t *op);

/*
 * Parses a verb list ("get,list,watch", "*": every verb) into GCP_VERB_*
 * bits.  Returns GCP_OK, or GCP_EBADREQUEST with *bad (in list) and
 * *bad_len the first unknown verb.
 */
int gcp_front_verbs(const char *list, unsigned *verbs, const char **bad,
    size_t *bad_len);



/* The upstream's discovery documents (gcp_front_docs.c). */

/*
 * Starts fetching the fronted group-versions' discovery documents in this
 * process (nothing without conf.front).  Returns GCP_OK or GCP_ENOMEM.
 */
int gcp_front_start(gcp_api_t *api);

/* Stops, and frees the documents. */
void gcp_front_stop(gcp_api_t *api);

/*
 * Returns the number of fronted group-versions and sets *list (borrowed
 * until the loop runs again): each as a remote group-version whose
 * discovery is the upstream's APIResourceList narrowed to the surface,
 * NULL (and available 0) while the upstream has not given it.
 */
size_t gcp_front_list(gcp_api_t *api, const gcp_apisvc_t * const **list);

/*
 * The upstream's APIResourceList doc of group/version narrowed to the
 * surface: the resources and subresources exposed, each with the verbs
 * it lists that the surface exposes, in its order.  Returns a new
 * reference (the caller's), or NULL when doc is not an APIResourceList or
 * out of memory.
 */
json_t *gcp_front_narrow(const gcp_front_conf_t *conf, const char *group,
    const char *version, const json_t *doc);

/*
 * Returns the fronted group/version (as above), or NULL.  Its openapi_v3
 * is the upstream's OpenAPI v3 document of the group-version narrowed to
 * the surface (gcp_front_openapi()), NULL until the upstream gave it.
 */
const gcp_apisvc_t *gcp_front_doc(gcp_api_t *api, const char *group,
    const char *version);

/*
 * Returns the upstream's OpenAPI v2 document narrowed to the surface
 * (borrowed until the loop runs again), or NULL until the upstream gave
 * it.
 */
const json_t *gcp_front_openapi_v2(gcp_api_t *api);

/*
 * Returns a number that changes whenever one of the upstream's documents
 * kept here changes (0: nothing fronted).
 */
uint64_t gcp_front_generation(gcp_api_t *api);



/* The upstream's OpenAPI documents (gcp_front_openapi.c). */

/*
 * Returns the OpenAPI document doc (v2 or v3) narrowed to the surface: the
 * fronted groups' and group-versions' discovery paths, the paths of the
 * exposed resources (namespaced ones only for a resource served in some
 * namespaces, the exposed subresources) with the operations of the
 * exposed verbs (x-kubernetes-action, else the method as a request's
 * verb), and the schemas those reach.  Returns a new reference (the
 * caller's), or NULL when doc has no paths or out of memory.
 */
json_t *gcp_front_openapi(const gcp_front_conf_t *conf, const json_t *doc);

/*
 * Drops the schemas of doc ("definitions" of v2, "components.schemas" of
 * v3) that its paths do not reach through "$ref".  Returns GCP_OK or
 * GCP_ENOMEM.
 */
int gcp_front_openapi_prune(json_t *doc);



/* The fronting bearer token (gcp_front_token.c). */

#define GCP_FRONT_TOKEN_EMPTY     1
#define GCP_FRONT_TOKEN_BAD_BYTE  2

typedef struct gcp_front_token_s  gcp_front_token_t;

/*
 * The token of a token file's len bytes at data: its first line, as
 * client-go reads it.  Returns GCP_OK with *line its length,
 * GCP_FRONT_TOKEN_EMPTY, or GCP_FRONT_TOKEN_BAD_BYTE (a byte a header
 * cannot carry).
 */
int gcp_front_token_line(const char *data, size_t len, size_t *line);

/*
 * Returns this process's reader of the token file (initial: the token
 * read at start; both borrowed for its life), owned by the caller
 * (gcp_front_token_destroy), or NULL when out of memory.
 */
gcp_front_token_t *gcp_front_token_create(gcp_loop_t *loop,
    const char *file, const char *initial);

/* Returns the current token (borrowed until the loop runs again). */
const char *gcp_front_token_get(const gcp_front_token_t *t);

/* Stops reading, frees t (NULL allowed). */
void gcp_front_token_destroy(gcp_front_token_t *t);

/*
 * Returns the bearer token the upstream is sent now (borrowed until the
 * loop runs again), or NULL when the front has none.
 */
const char *gcp_front_token(gcp_api_t *api);


#endif /* _GCP_FRONT_H_INCLUDED_ */
