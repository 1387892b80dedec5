
/*
 * The API server core as the nginx adapter sees it.
 *
 * One gcp_api_t per worker process holds the registry, the schemas and the
 * storage.  The adapter turns each HTTP request into a gcp_request_t and
 * calls gcp_api_handle(); the core answers through the request's done
 * callback, exactly once, either before gcp_api_handle() returns or later
 * from the event loop.  Watches stream: the core calls done with
 * resp->streaming set, then writes events through req->stream, and finally
 * calls req->stream->end().
 */

#ifndef _GCP_API_H_INCLUDED_
#define _GCP_API_H_INCLUDED_


#include "gcp_request.h"


/*
 * Builds, in the calling process, what the APIs it creates later share
 * read-only instead of building copies (the embedded schemas), kept until
 * the process exits: nginx's master calls it before it forks the workers,
 * whose pages then stay shared.  Optional; a second call does nothing.
 * Returns GCP_OK, or an error with *err set to a static message.
 */
int gcp_api_preload(const char **err);

/*
 * Returns the API core for this process, owned by the caller and released
 * with gcp_api_destroy(), or NULL with *err set to a static message.  The
 * conf is copied; the store stays the caller's.
 */
gcp_api_t *gcp_api_create(const gcp_api_conf_t *conf, const char **err);

void gcp_api_destroy(gcp_api_t *api);

/*
 * Creates what must exist from the first start (namespaces default,
 * kube-system, kube-public; the bootstrap RBAC policy and flowcontrol
 * configuration), if absent.  Completes through done(arg, rc).
 */
void gcp_api_bootstrap(gcp_api_t *api, void (*done)(void *arg, int rc),
    void *arg);

/* Serves req (see the top of this file). */
void gcp_api_handle(gcp_api_t *api, gcp_request_t *req);

/*
 * Returns 1 when a request for path (len bytes, percent-decoded) would be
 * proxied (gcp_response_t.proxy): the adapter then hands it to the core
 * before reading its body, which it streams to the other server; else 0.
 */
int gcp_api_proxied(gcp_api_t *api, const char *path, size_t len);

/*
 * Called by the adapter once a request the core answered with a proxy
 * (gcp_response_t.proxy) is over: status is what its client got (the other
 * server's, or the adapter's own error), size the bytes of the body sent.
 * The core observes its end (metrics, the audit event ResponseComplete);
 * call it once, before the request's arena goes.
 */
void gcp_api_proxy_end(gcp_request_t *req, int status, size_t size);

/*
 * Called by the adapter when the headers of a long-running proxied
 * request (gcp_proxy_t.long_running: a watch, an upgraded connection)
 * went to its client with status: the audit event ResponseStarted, as
 * upstream writes it for long-running requests.  At most once, before
 * gcp_api_proxy_end().
 */
void gcp_api_proxy_started(gcp_request_t *req, int status);

/*
 * Called by the adapter when the client went away during a stream: the core
 * stops the watch and never calls req->done or req->stream->write again.
 * Returns 1 when the core is done with req; 0 when an operation of the
 * watch (its initial list from the store) still holds req's arena: the core
 * then calls req->stream->end once, when it is back, and req must live
 * until then.  Must not be called before done was called, nor after
 * stream->end.
 */
int gcp_api_cancel(gcp_request_t *req);

/*
 * Called by the adapter when the client went away before req->done: a
 * request waiting in a priority and fairness queue leaves it.  Returns 1
 * when the core dropped req (it never touches it again: done is not
 * called), 0 when it still works on it and will call done as usual.
 */
int gcp_api_abandon(gcp_request_t *req);


#endif /* _GCP_API_H_INCLUDED_ */
