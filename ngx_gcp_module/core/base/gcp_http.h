
/*
 * An asynchronous HTTP(S) client on the event loop: libcurl's multi
 * interface driven by a gcp_loop_t (its socket and timer callbacks), so
 * that no request blocks the process.  One client holds the connections
 * it keeps alive (HTTP/1.1 keep-alive, reused by later requests to the
 * same host with the same TLS settings); the etcd backend, admission
 * webhooks, aggregation probes and each API core's OIDC issuers
 * (authn/gcp_auth_oidc.c) each own one.
 *
 * TLS: the server is verified against a CA bundle given in memory (a
 * webhook's caBundle) or in a file, else against the system's; the host
 * name checked (and sent as SNI) is the URL's, so a request to
 * https://NAME.NAMESPACE.svc/ that is connected elsewhere (connect_to)
 * still verifies NAME.NAMESPACE.svc.  A client certificate may be given
 * in memory or in files.
 *
 * Callbacks never run inside gcp_http_send() or inside curl: bytes and
 * completions are handed out from the loop, after curl returned, where
 * any client call (send, cancel, destroy excepted) is allowed.
 */

#ifndef _GCP_HTTP_H_INCLUDED_
#define _GCP_HTTP_H_INCLUDED_


#include "gcp_core.h"
#include "gcp_loop.h"


typedef struct gcp_http_s      gcp_http_t;
typedef struct gcp_http_req_s  gcp_http_req_t;


/* Why a request has no answer. */
typedef enum {
    GCP_HTTP_OK = 0,            /* an answer arrived, whatever its status */
    GCP_HTTP_ERR_CONNECT,       /* no connection (os_errno says why) */
    GCP_HTTP_ERR_RESOLVE,       /* the host name is unknown */
    GCP_HTTP_ERR_TIMEOUT,       /* the request's time ran out */
    GCP_HTTP_ERR_TLS,           /* handshake or certificate verification */
    GCP_HTTP_ERR_TOO_LARGE,     /* more than max_body bytes of answer */
    GCP_HTTP_ERR_TRANSPORT      /* anything else (reset, bad answer...) */
} gcp_http_error_t;


/* The outcome of a request, valid during the done callback only. */
typedef struct {
    gcp_http_error_t   error;
    long               status;          /* HTTP status (error OK) */
    const char        *content_type;    /* the answer's, or NULL */
    gcp_str_t          body;            /* the bytes not consumed by a */
                                        /* data callback */
    const char        *message;         /* curl's words for the error */
    const char        *detail;          /* the same with particulars */
                                        /* (addresses, TLS reasons) */
    int                os_errno;        /* of a failed connect, or 0 */
    unsigned           sent:1;          /* the request was written: the */
                                        /* server may have acted on it */
} gcp_http_result_t;


/*
 * A stream's bytes: p holds every byte received and not consumed yet (n of
 * them).  Returns how many were consumed (the rest is handed out again
 * with the next ones).
 */
typedef size_t (*gcp_http_data_pt)(void *arg, const char *p, size_t n);

/* Called exactly once per request that was not cancelled. */
typedef void (*gcp_http_done_pt)(void *arg, const gcp_http_result_t *res);


/* PEM data in memory (pem.len > 0), or a file name, or neither. */
typedef struct {
    gcp_str_t      pem;
    const char    *file;
} gcp_http_pem_t;


typedef struct {
    const char           *method;       /* NULL: POST with a body, GET */
    const char           *url;
    const char * const   *headers;      /* "Name: value", NULL-ended */
    gcp_str_t             body;         /* data NULL: none */
    gcp_http_pem_t        ca;           /* none: the system's CAs */
    gcp_http_pem_t        cert;         /* client certificate and key */
    gcp_http_pem_t        key;
    const char           *connect_to;   /* "HOST:PORT:ADDR:PORT", or NULL */
    uint64_t              timeout_ms;   /* the whole exchange; 0: none */
    uint64_t              connect_timeout_ms;   /* 0: the timeout's */
    size_t                max_body;     /* unconsumed answer bytes kept */
                                        /* at most; 0: no limit */
    unsigned              tcp_keepalive:1;  /* probes on an idle stream */
    unsigned              insecure:1;       /* the server's certificate */
                                            /* not verified */
    unsigned              replayable:1;     /* may be sent again (below) */
} gcp_http_opts_t;


/*
 * Sent at most once: libcurl sends a request again on a fresh connection
 * when a reused keep-alive connection died before any byte of the answer
 * ("Connection died, retrying a fresh connect"); the server may have acted
 * on the first copy (a member killed after applying a write).  As Go's
 * transport replays only idempotent requests, this client lets curl do so
 * only for a request that is replayable: o->replayable set, or a GET
 * without a body.  Any other request ends there, error
 * GCP_HTTP_ERR_TRANSPORT with sent set: its outcome is unknown.
 */

/*
 * Returns a client on loop keeping at most max_conns idle connections,
 * owned by the caller (gcp_http_destroy), or NULL when out of memory.
 */
gcp_http_t *gcp_http_create(gcp_loop_t *loop, long max_conns);

/*
 * Cancels every request (no callback runs) and closes the connections.
 * NULL is allowed.  Not from inside a callback of this client.
 */
void gcp_http_destroy(gcp_http_t *h);

/*
 * Starts a request (everything in o is copied).  With data set, the answer
 * is a stream: its bytes go to data as they arrive, and done comes after
 * the last of them; without, done gets the whole body.  Returns the
 * request, owned by the client until done ran or it is cancelled, or NULL
 * when it cannot start (out of memory; no callback then).
 */
gcp_http_req_t *gcp_http_send(gcp_http_t *h, const gcp_http_opts_t *o,
    gcp_http_data_pt data, gcp_http_done_pt done, void *arg);

/* Ends a request; none of its callbacks runs afterwards.  NULL allowed. */
void gcp_http_cancel(gcp_http_req_t *r);

/* Requests started, and connections opened, by this client so far. */
uint64_t gcp_http_requests(const gcp_http_t *h);
uint64_t gcp_http_connections(const gcp_http_t *h);


#endif /* _GCP_HTTP_H_INCLUDED_ */
