
/*
 * What a request and its response are between the adapter and the core:
 * the request as the adapter hands it over (method, path, headers, body,
 * the client's certificates), the authenticated user, the response and the
 * stream operations of a watch, and the API core's configuration.  The
 * entry points that take them are in gcp_api.h.
 */

#ifndef _GCP_REQUEST_H_INCLUDED_
#define _GCP_REQUEST_H_INCLUDED_


#include "gcp_core.h"
#include "gcp_loop.h"


typedef struct gcp_api_s      gcp_api_t;
typedef struct gcp_call_s     gcp_call_t;
typedef struct gcp_auth_s     gcp_auth_t;     /* gcp_auth.h */
typedef struct gcp_admission_conf_s  gcp_admission_conf_t;
                                        /* gcp_admission.h */
typedef struct gcp_audit_s    gcp_audit_t;    /* gcp_audit.h */


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


/*
 * A request the core hands to another server instead of answering it
 * (an aggregated API's extension server): the adapter sends it there as
 * received (method, path and query, headers, the body streamed) over TLS,
 * without the hop-by-hop headers and those in remove, with those in set,
 * and passes the answer back as it arrives.  The adapter's own client
 * certificate authenticates it to the server.  Everything lives in the
 * request's arena.
 */
typedef struct {
    /*
     * Where: the nginx upstream block named "UPSTREAM:PORT", else the one
     * named UPSTREAM, else UPSTREAM resolved by DNS, port port.
     */
    const char           *upstream;         /* "NAME.NAMESPACE.svc" */
    int                   port;

    const char           *server_name;      /* TLS: SNI, name verified */
    gcp_str_t             ca;               /* PEM trust anchors; empty: */
                                            /* the system's */
    unsigned              insecure:1;       /* certificate not verified */
    unsigned              long_running:1;   /* a watch, an upgrade: no */
                                            /* read timeout */
    unsigned              front:1;          /* the fronted server's */
                                            /* client certificate */
                                            /* (gcp_front_conf_t) instead */
                                            /* of the proxy's */

    const gcp_header_t   *set;              /* headers added */
    size_t                nset;
    const char * const   *remove;           /* NULL-terminated names of */
                                            /* request headers dropped; */
                                            /* "X-A-*": a prefix */
} gcp_proxy_t;


typedef struct {
    int            status;          /* HTTP status */
    const char    *content_type;    /* NULL: no Content-Type */
    gcp_header_t  *headers;         /* extra headers (Warning, ETag, ...) */
    size_t         nheaders;
    gcp_str_t      body;            /* owned by the request's arena */
    gcp_str_t      status_json;     /* an error's Status in JSON, whatever */
                                    /* the body's encoding (for the logs) */
    unsigned       streaming:1;     /* chunked; more via req->stream */

    const gcp_proxy_t  *proxy;      /* set: no answer, proxy the request */
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

    const char               *remote_addr;  /* the client's IP address, */
                                            /* NULL when unknown */

    /* Set by the core's authentication; NULL before (or when none runs). */
    const gcp_user_t         *user;

    gcp_request_done_pt       done;
    const gcp_stream_ops_t   *stream;
    void                     *ctx;          /* the adapter's */

    gcp_call_t               *call;         /* set by the core */

    unsigned                  internal:1;   /* the in-process client's: */
                                            /* never fronted */
};


/*
 * A service the server calls (admission webhooks; aggregated APIs): the
 * name a clientConfig.service resolves to, "NAME.NAMESPACE.svc" (any port)
 * or "NAME.NAMESPACE.svc:PORT", and where it listens: "ADDR:PORT" (IPv6
 * addresses in brackets), tried in turn.
 */
typedef struct {
    const char          *name;
    const char * const  *endpoints;
    size_t               nendpoints;
} gcp_service_t;


/*
 * Fronting an upstream API server (gcp_front.h): one exposed resource of
 * the surface.  Verbs are GCP_VERB_* bits (gcp_resource.h); namespaces
 * and subresources are NULL-terminated lists, NULL: any namespace, no
 * subresource.
 */
typedef struct {
    const char           *group;            /* "" for the core group */
    const char           *version;
    const char           *resource;
    unsigned              verbs;
    const char * const   *namespaces;
    const char * const   *subresources;
} gcp_front_expose_t;


/*
 * The upstream API server this one fronts and the surface it exposes;
 * the adapter proxies to upstream (an nginx upstream block: "HOST:PORT",
 * else HOST, as gcp_proxy_t) with its own client certificate when it has
 * one, or the bearer token.
 */
typedef struct {
    const char                *upstream;
    int                        port;
    const char                *server_name;     /* TLS name verified */
    gcp_str_t                  ca;              /* PEM; empty: system's */
    const char                *token;           /* NULL: none */
    const char                *token_file;      /* read again when it */
                                                /* changes */
    const char                *cert_file;       /* the client */
    const char                *key_file;        /* certificate, or NULL */
    const char                *address;         /* "ADDR:PORT" the */
                                                /* documents are fetched */
                                                /* from */
    unsigned                   authorize:1;     /* this server's */
                                                /* authorizer first */
    unsigned                   front_proxy:1;   /* X-Remote-* headers */
                                                /* instead of Impersonate-* */
    unsigned                   only:1;          /* this server's own */
                                                /* resources hidden from */
                                                /* clients */
    const gcp_front_expose_t  *expose;
    size_t                     nexpose;
} gcp_front_conf_t;


typedef struct {
    gcp_loop_t   *loop;
    void         *store;            /* gcp_store_t *, opened by the adapter */
    const void   *encryption;       /* gcp_store_encrypt_conf_t *: */
                                    /* encryption at rest; NULL: none */
    const char   *git_version;      /* for /version, e.g. "v1.32.0-gcp" */
    const char   *server_address;   /* host:port clients reach us at */
    int           max_body;         /* bytes; 413 above */
    int           min_watch_timeout;    /* seconds: random in [min, 2*min) */
    uint64_t      compact_interval_ms;  /* 0: this process does not */
                                        /* compact the store */
    size_t        object_cache;         /* bytes of decoded objects kept */
                                        /* per process; 0: no cache */
    size_t        label_index;          /* bytes of label indexes kept */
                                        /* per process; 0: none */
    size_t        table_cache;          /* bytes of Table rows kept per */
                                        /* process; 0: no cache */
    uint64_t      stats_interval_ms;    /* 0: this process does not */
                                        /* sample the storage's size */
    uint64_t      warm_ms;              /* a new worker's requests wait */
                                        /* at most this for its caches */
                                        /* (server/gcp_warm.h; 0: 5000) */
    const char   *data_dir;

    /*
     * A readiness check of the store after "etcd-readiness" (/readyz):
     * its name, e.g. "etcd-mirror", and ok(arg, &why) returning 1 when it
     * passes, else 0 with why (static, logged); NULL name: none.
     */
    const char   *store_check;
    int         (*store_check_ok)(void *arg, const char **why);
    void         *store_check_arg;

    gcp_auth_t   *auth;                 /* authentication (borrowed); */
                                        /* NULL: anonymous requests only */
    const char   *authorization_mode;   /* "AlwaysAllow" (NULL), "RBAC" */

    void         *flowcontrol;          /* the instance's APF region */
                                        /* (gcp_apf_shm.h), NULL: none */
    int           flowcontrol_slot;     /* this process's slot in it */
    unsigned      flowcontrol_off:1;    /* APF off: inflight limits */

    const gcp_admission_conf_t  *admission;     /* plugins; NULL: the */
                                                /* default ones */

    /*
     * Where services are (the adapter's nginx upstream blocks), and
     * whether other names are looked up in DNS; the client certificate
     * (PEM files) that proves this server to aggregated API servers.
     */
    const gcp_service_t         *services;      /* borrowed */
    size_t                       nservices;
    unsigned                     service_dns:1;
    const char                  *proxy_cert;
    const char                  *proxy_key;

    gcp_audit_t  *audit;                /* auditing (borrowed); NULL: */
                                        /* none */

    const gcp_front_conf_t      *front;         /* borrowed; NULL: */
                                                /* nothing fronted */
} gcp_api_conf_t;


#endif /* _GCP_REQUEST_H_INCLUDED_ */
