
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

/* Returns the fronted group/version (as above), or NULL. */
const gcp_apisvc_t *gcp_front_doc(gcp_api_t *api, const char *group,
    const char *version);


#endif /* _GCP_FRONT_H_INCLUDED_ */
