
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


#include "gcp_core.h"
#include "gcp_loop.h"


typedef struct gcp_api_s      gcp_api_t;
typedef struct gcp_call_s     gcp_call_t;
typedef struct gcp_auth_s     gcp_auth_t;     /* gcp_auth.h */


typedef struct {
    const char  *name;
    const char  *value;
} gcp_header_t;


/* One key of user.extra (authentication.k8s.io UserInfo.extra). */
typedef struct {
    const char          *key;
    const char * const  *values;
    size_t               nvalues;
} gcp_user_extra_t;


/* The authenticated caller; NULL fields allowed. */
typedef struct {
    const char              *name;
    const char              *uid;
    const char * const      *groups;        /* NULL-terminated */
    size_t                   ngroups;
    const gcp_user_extra_t  *extra;
    size_t                   nextra;
} gcp_user_t;


typedef struct {
    /*
     * Queues data for the client (the adapter copies it).  Returns GCP_OK;
     * GCP_ETOOMANY when the client does not read fast enough and the stream
     * must end; another code when the connection is gone.  flush asks the
     * adapter to send now rather than batch.
     */
    int   (*write)(void *arg, const char *data, size_t len, int flush);

    /* Ends the stream; the core does not use the request afterwards. */
    void  (*end)(void *arg);
} gcp_stream_ops_t;


typedef struct {
    int            status;          /* HTTP status */
    const char    *content_type;    /* NULL: no Content-Type */
    gcp_header_t  *headers;         /* extra headers (Warning, ETag, ...) */
    size_t         nheaders;
    gcp_str_t      body;            /* owned by the request's arena */
    unsigned       streaming:1;     /* chunked; more via req->stream */
} gcp_response_t;


typedef struct gcp_request_s  gcp_request_t;

typedef void (*gcp_request_done_pt)(gcp_request_t *req, gcp_response_t *resp);

struct gcp_request_s {
    gcp_arena_t              *arena;        /* owned by the adapter */
    const char               *method;       /* "GET", "POST", ... */
    gcp_str_t                 path;         /* percent-decoded, no query */
    gcp_str_t                 query;        /* raw, without '?' */

    const char               *content_type; /* NULL when absent */
    const char               *accept;       /* NULL when absent */
    const char               *user_agent;
    const char               *if_none_match;
    gcp_str_t                 body;         /* data NULL: no body */

    /*
     * Every request header, in order, for what the core reads itself
     * (Authorization, Impersonate-*, X-Remote-* ...).  Names as sent.
     */
    const gcp_header_t       *headers;
    size_t                    nheaders;

    /*
     * The client certificate chain presented on TLS, PEM, leaf first, not
     * verified by the adapter (the core's authenticators verify it against
     * their own CAs); data NULL when none.
     */
    gcp_str_t                 peer_certs;

    /* Set by the core's authentication; NULL before (or when none runs). */
    const gcp_user_t         *user;

    gcp_request_done_pt       done;
    const gcp_stream_ops_t   *stream;
    void                     *ctx;          /* the adapter's */

    gcp_call_t               *call;         /* set by the core */
};


typedef struct {
    gcp_loop_t   *loop;
    void         *store;            /* gcp_store_t *, opened by the adapter */
    const char   *git_version;      /* for /version, e.g. "v1.32.0-gcp" */
    const char   *server_address;   /* host:port clients reach us at */
    int           max_body;         /* bytes; 413 above */
    int           min_watch_timeout;    /* seconds: random in [min, 2*min) */
    uint64_t      compact_interval_ms;  /* 0: this process does not */
                                        /* compact the store */
    size_t        object_cache;         /* bytes of decoded objects kept */
                                        /* per process; 0: no cache */
    unsigned      controllers:1;        /* this process runs the */
                                        /* background controllers (one */
                                        /* worker of the instance) */
    unsigned      controllers_off;      /* gcp_ctl.h GCP_CTL_* bits of */
                                        /* controllers switched off */
    const char   *root_ca;              /* PEM published in every */
                                        /* namespace (kube-root-ca.crt); */
                                        /* NULL: none */
    const char   *identity;             /* leader election identity of */
                                        /* this instance */
    const char   *data_dir;

    gcp_auth_t   *auth;                 /* authentication (borrowed); */
                                        /* NULL: anonymous requests only */
    const char   *authorization_mode;   /* "AlwaysAllow" (NULL), "RBAC" */
} gcp_api_conf_t;


/*
 * Returns the API core for this process, owned by the caller and released
 * with gcp_api_destroy(), or NULL with *err set to a static message.  The
 * conf is copied; the store stays the caller's.
 */
gcp_api_t *gcp_api_create(const gcp_api_conf_t *conf, const char **err);

void gcp_api_destroy(gcp_api_t *api);

/*
 * Creates what must exist from the first start (namespaces default,
 * kube-system, kube-public), if absent.  Completes through done(arg, rc).
 */
void gcp_api_bootstrap(gcp_api_t *api, void (*done)(void *arg, int rc),
    void *arg);

/* Serves req (see the top of this file). */
void gcp_api_handle(gcp_api_t *api, gcp_request_t *req);

/*
 * Called by the adapter when the client went away during a stream: the core
 * stops the watch and never calls req->done or req->stream again.  Must not
 * be called before done was called, nor after stream->end.
 */
void gcp_api_cancel(gcp_request_t *req);


#endif /* _GCP_API_H_INCLUDED_ */
