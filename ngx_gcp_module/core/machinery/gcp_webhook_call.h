
/*
 * Calling a webhook: what admissionregistration's WebhookClientConfig
 * (and apiextensions' for conversion webhooks) says, compiled once; a
 * JSON POST to it on the core's HTTP client, asynchronous, within the
 * webhook's timeout; the answer's JSON, or the error in the words
 * kube-apiserver's REST client gives ("Post \"URL\": dial tcp ADDR:
 * connect: connection refused").  The review itself (AdmissionReview,
 * ConversionReview) is the caller's.
 *
 * Services: clientConfig.service {namespace, name, port, path} is called
 * at https://NAME.NAMESPACE.svc:PORT/PATH, with TLS verified for (and SNI
 * naming) NAME.NAMESPACE.svc, as upstream; the connection goes to an
 * endpoint of the API's service NAME.NAMESPACE.svc:PORT, else
 * NAME.NAMESPACE.svc (gcp_service_t: the adapter's nginx upstream blocks
 * of these names), endpoints taken in turn.
 */

#ifndef _GCP_WEBHOOK_CALL_H_INCLUDED_
#define _GCP_WEBHOOK_CALL_H_INCLUDED_


#include <jansson.h>

#include "gcp_http.h"
#include "gcp_op.h"


#define GCP_WEBHOOK_MAX_ANSWER  (16 * 1024 * 1024)


/* A compiled clientConfig; strings live in the arena it was parsed in. */
typedef struct {
    const char   *url;          /* the URL called, without ?timeout= */
    const char   *service;      /* "NAME.NAMESPACE.svc", or NULL (url) */
    int           port;         /* the service's port */
    gcp_str_t     ca;           /* PEM of caBundle; len 0: system CAs */
} gcp_webhook_client_t;


/* A webhook's answer, valid during the callback. */
typedef struct {
    int           rc;           /* GCP_OK: json holds the answer */
    json_t       *json;         /* the answer, an object (borrowed) */
    const char   *error;        /* rc != GCP_OK: the failure as upstream */
                                /* words it, after "failed to call */
                                /* webhook: " (arena string) */
    int           status;       /* the HTTP status, or 0 */
    unsigned      timeout:1;    /* the time ran out */
} gcp_webhook_reply_t;

typedef void (*gcp_webhook_reply_pt)(void *arg,
    const gcp_webhook_reply_t *reply);


/*
 * Compiles clientConfig (validated or not: a stored configuration written
 * by another server is not trusted).  Returns GCP_OK with *c filled from
 * arena a, or GCP_EINVALID with *err (static) when it cannot be called.
 */
int gcp_webhook_client_parse(gcp_arena_t *a, const json_t *client_config,
    gcp_webhook_client_t *c, const char **err);

/*
 * POSTs body (JSON, copied) to the webhook of c through http, within
 * timeout_s seconds (sent as "?timeout=Ns"), and calls done once, from
 * the event loop or before this returns (an unknown service).  The
 * answer's JSON and the error strings live in arena a, which must outlive
 * the call.  Returns GCP_OK, or GCP_ENOMEM (done not called).
 */
int gcp_webhook_post(gcp_http_t *http, const gcp_api_conf_t *conf,
    gcp_arena_t *a, const gcp_webhook_client_t *c, int timeout_s,
    gcp_str_t body, gcp_webhook_reply_pt done, void *arg);


#endif /* _GCP_WEBHOOK_CALL_H_INCLUDED_ */
