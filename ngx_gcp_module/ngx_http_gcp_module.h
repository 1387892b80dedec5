
/*
 * ngx_http_gcp_module: declarations shared by the files of the nginx
 * adapter (module and directives, request handler, watch streams, event
 * loop, Status filter).  The adapter only moves bytes and events between
 * nginx and the API core (core/server/gcp_api.h); it never blocks a worker.
 */

#ifndef _NGX_HTTP_GCP_MODULE_H_INCLUDED_
#define _NGX_HTTP_GCP_MODULE_H_INCLUDED_


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "gcp_admission.h"
#include "gcp_api.h"
#include "gcp_audit.h"
#include "gcp_auth.h"
#include "gcp_ctl.h"
#include "gcp_manifests.h"
#include "gcp_loop.h"
#include "gcp_store.h"
#include "gcp_store_encrypt.h"


#define NGX_HTTP_GCP_STORAGE_NONE  0
#define NGX_HTTP_GCP_STORAGE_LMDB  1
#define NGX_HTTP_GCP_STORAGE_ETCD  2


#define NGX_HTTP_GCP_AUTHZ_ALWAYS_ALLOW  0
#define NGX_HTTP_GCP_AUTHZ_RBAC          1


typedef struct ngx_http_gcp_call_s  ngx_http_gcp_call_t;


/* Authentication and authorization directives (ngx_http_gcp_auth.c). */
typedef struct {
    ngx_str_t                   client_ca_file;
    ngx_str_t                   token_auth_file;
    ngx_str_t                   sa_signing_key_file;
    ngx_array_t                *sa_key_files;       /* ngx_str_t */
    ngx_array_t                *sa_issuers;
    ngx_array_t                *api_audiences;
    ngx_str_t                   sa_jwks_uri;
    time_t                      sa_max_expiration;
    ngx_str_t                   authentication_config;
    ngx_str_t                   requestheader_ca_file;
    ngx_array_t                *requestheader_allowed_names;
    ngx_array_t                *requestheader_username_headers;
    ngx_array_t                *requestheader_group_headers;
    ngx_array_t                *requestheader_extra_prefixes;
    ngx_flag_t                  anonymous;
    ngx_uint_t                  mode;       /* NGX_HTTP_GCP_AUTHZ_* */

    gcp_auth_t                 *auth;       /* loaded by init_main_conf */
} ngx_http_gcp_auth_conf_t;


/* API Priority and Fairness directives (ngx_http_gcp_apf.c). */
typedef struct {
    ngx_flag_t                  enable;     /* gcp_enable_priority_and_ */
                                            /* fairness */
    ngx_int_t                   max_inflight;
    ngx_int_t                   max_mutating;
    ngx_int_t                   records;    /* requests the zone holds */
    size_t                      size;       /* of the region */
    ngx_shm_zone_t             *zone;
    void                       *shm;        /* gcp_apf_shm_t, per cycle */
} ngx_http_gcp_apf_conf_t;

/* Admission plugins (ngx_http_gcp_admission.c); the services webhooks
 * are called through are the proxy's (ngx_http_gcp_proxy_conf.c). */
typedef struct {
    ngx_array_t                *enable;     /* char *, NUL-terminated */
    ngx_array_t                *disable;
    ngx_array_t                *args;       /* gcp_admission_args_t */
    gcp_admission_conf_t        conf;       /* for the core */
} ngx_http_gcp_admission_conf_t;


/* A client certificate the proxy proves itself with. */
typedef struct {
    X509                       *leaf;
    STACK_OF(X509)             *chain;
    EVP_PKEY                   *pkey;
} ngx_http_gcp_cred_t;


/* Fronting an upstream API server (ngx_http_gcp_front.c). */
typedef struct {
    ngx_str_t                   url;        /* gcp_front */
    ngx_str_t                   ca;         /* gcp_front_ca_file */
    ngx_str_t                   cert;       /* gcp_front_client_certificate */
    ngx_str_t                   key;
    ngx_str_t                   token;      /* gcp_front_token_file */
    ngx_str_t                   server_name;
    ngx_flag_t                  authorize;  /* gcp_front_authorization */
    ngx_flag_t                  only;       /* gcp_front_only */
    ngx_uint_t                  identity;   /* gcp_front_identity */
    ngx_array_t                *expose;     /* gcp_front_expose_t */
    gcp_front_conf_t            conf;       /* for the core */
} ngx_http_gcp_front_conf_t;


/*
 * The proxy to other servers (ngx_http_gcp_proxy*.c): its client
 * certificate, timeouts, the services, and per worker the TLS contexts.
 */
typedef struct {
    ngx_str_t                   cert;       /* gcp_proxy_client_certificate */
    ngx_str_t                   key;
    ngx_msec_t                  connect_timeout;
    ngx_msec_t                  timeout;    /* send/read, short requests */
    ngx_msec_t                  long_timeout;   /* watches, upgrades */
    size_t                      buffer_size;

    ngx_http_gcp_cred_t         cred;       /* loaded from cert, key */
    ngx_http_gcp_cred_t         front;      /* gcp_front's */

    ngx_http_upstream_conf_t    upstream;   /* every request's template */
    gcp_service_t              *services;   /* blocks named as services */
    ngx_uint_t                  nservices;
    ngx_flag_t                  dns;        /* a resolver for the others */

    ngx_array_t                *tls;        /* per worker: */
                                            /* ngx_http_gcp_tls_t */
} ngx_http_gcp_proxy_conf_t;


/* gcp_storage: which backend and its parameters. */
typedef struct {
    ngx_uint_t                  type;       /* NGX_HTTP_GCP_STORAGE_* */
    ngx_str_t                   path;       /* lmdb: directory */
    size_t                      map_size;   /* lmdb: 0 for the default */
    ngx_flag_t                  sync;       /* lmdb: fdatasync writes */
    ngx_str_t                   endpoints;  /* etcd: URLs, comma-separated */
    ngx_str_t                   prefix;     /* etcd: key prefix */
    ngx_str_t                   cacert;     /* etcd: TLS files, or empty */
    ngx_str_t                   cert;
    ngx_str_t                   key;
    ngx_msec_t                  timeout;    /* etcd: per operation */
    ngx_uint_t                  reads;      /* etcd: GCP_ETCD_READS_* */
    ngx_msec_t                  freshness;  /* etcd: instance reads */
    ngx_shm_zone_t             *zone;       /* etcd: the write watermark */
    ngx_str_t                   mirror;     /* etcd: the instance's mirror */
                                            /* directory, or empty */
} ngx_http_gcp_storage_conf_t;


/* Metrics, audit and the log variables (ngx_http_gcp_observe.c). */
typedef struct {
    ngx_flag_t                  metrics;        /* gcp_metrics */
    ngx_shm_zone_t             *zone;           /* the metrics, or NULL */
    ngx_str_t                   audit_policy;   /* gcp_audit_policy_file */
    ngx_str_t                   audit_log;      /* gcp_audit_log */
    uint64_t                    audit_max_size;
    ngx_uint_t                  audit_max_backups;
    size_t                      audit_buffer;
    gcp_audit_t                *audit;      /* loaded by init_main_conf */
    ngx_flag_t                  log_vars;   /* $gcp_* used somewhere */
} ngx_http_gcp_observe_conf_t;


/* The $gcp_* variables. */
#define NGX_HTTP_GCP_VAR_USER          0
#define NGX_HTTP_GCP_VAR_GROUPS        1
#define NGX_HTTP_GCP_VAR_IMPERSONATED  2
#define NGX_HTTP_GCP_VAR_VERB          3
#define NGX_HTTP_GCP_VAR_GROUP         4
#define NGX_HTTP_GCP_VAR_RESOURCE      5
#define NGX_HTTP_GCP_VAR_SUBRESOURCE   6
#define NGX_HTTP_GCP_VAR_NAMESPACE     7
#define NGX_HTTP_GCP_VAR_NAME          8
#define NGX_HTTP_GCP_VAR_AUDIT_ID      9
#define NGX_HTTP_GCP_VAR_REVISION      10
#define NGX_HTTP_GCP_VAR_LAST          11


typedef struct {
    ngx_http_gcp_storage_conf_t  storage;
    ngx_str_t                    version;       /* gcp_version */
    time_t                       min_request_timeout;
    ngx_msec_t                   compact_interval;  /* 0: never */
    size_t                       object_cache;      /* 0: none */
    size_t                       label_index;       /* 0: none */
    size_t                       table_cache;       /* 0: none */
    size_t                       max_body_size; /* http level, for the core */
    ngx_uint_t                   controllers_off;   /* gcp_controllers: */
                                                    /* GCP_CTL_* bits */
    ngx_str_t                    root_ca;       /* gcp_root_ca_file: PEM */
    ngx_array_t                 *signers;       /* gcp_csr_signer: */
                                                /* gcp_ctl_signer_t */
    time_t                       signing_duration;  /* gcp_cluster_ */
                                                    /* signing_duration */
    ngx_array_t                 *manifests;     /* gcp_manifests: */
                                                /* gcp_manifest_file_t */
    ngx_http_gcp_auth_conf_t     auth;
    ngx_http_gcp_apf_conf_t      apf;
    ngx_http_gcp_admission_conf_t  admission;
    ngx_http_gcp_proxy_conf_t    proxy;
    ngx_http_gcp_observe_conf_t  observe;
    ngx_http_gcp_front_conf_t    front;
    gcp_store_encrypt_conf_t     encryption;    /* its enc: NULL, none */

    ngx_flag_t                   used;      /* some gcp_api exists */
    void                        *shared;    /* gcp_lmdb_shared_t, master */

    /* per worker process, set by init_process */
    gcp_loop_t                  *loop;
    gcp_store_t                 *store;
    gcp_store_t                 *mirror;    /* etcd mirror=: this slot */
    void                        *feeder;    /* gcp_etcd_feeder_t */
    const char                  *mirror_source; /* the etcd it copies, */
                                                /* as the master saw it */
    gcp_api_t                   *api;
    gcp_ctl_manager_t           *ctl;       /* the controllers, or NULL */
    gcp_ctl_manager_t           *apiserver_ctl;     /* the API server's */
    gcp_manifests_t             *manifests_run;     /* applying them */
    ngx_queue_t                  calls;     /* ngx_http_gcp_call_t.queue */
    ngx_connection_t            *sentinel;  /* tells of a graceful exit */
    ngx_event_t                  drain;     /* re-checks while exiting */
    ngx_event_t                  bootstrap; /* tries a failed bootstrap */
                                            /* again */
} ngx_http_gcp_main_conf_t;


typedef struct {
    ngx_flag_t                  api;        /* some location has gcp_api */
} ngx_http_gcp_srv_conf_t;


typedef struct {
    ngx_flag_t                  api;        /* gcp_api; not inherited */
    size_t                      max_body_size;
    size_t                      watch_buffer;
    ngx_http_core_loc_conf_t   *clcf;       /* this location's, for gcp_api */
} ngx_http_gcp_loc_conf_t;


/* Per HTTP request (r->pool), the module's ctx. */
typedef struct {
    ngx_http_gcp_call_t        *call;       /* NULL once the call is freed */

    /*
     * Watch stream output: our buffers in the order written, and offsets
     * in the stream: bytes written, bytes sent (their buffers freed), where
     * the initial events and the current event loop iteration began.
     */
    ngx_chain_t                *busy;
    ngx_chain_t               **busy_last;
    ngx_chain_t                *free;
    off_t                       written;
    off_t                       sent;
    off_t                       initial_end;
    off_t                       iteration_start;
    ngx_event_t                 iteration;  /* posted: ends the iteration */
    size_t                      watch_buffer;

    off_t                       body_limit; /* for the 413 Status */
    off_t                       body_received;

    ngx_chain_t                *status_body;    /* Status replacing an */
                                                /* nginx error page */
    void                       *proxy;      /* proxied: its state */

    void                       *summary;    /* for the $gcp_* variables */

    unsigned                    core_response:1;    /* made by the core */
                                                    /* (or the server it */
                                                    /* proxied to) */
    unsigned                    overflow:1;     /* watch_buffer exceeded */
    unsigned                    initial:1;      /* initial events */
    unsigned                    status_sent:1;
    unsigned                    cleanup_set:1;
} ngx_http_gcp_ctx_t;


/*
 * One request handed to the core.  Allocated with ngx_alloc() rather than
 * from r->pool because it may outlive the HTTP request (the client may go
 * away before the core answers); freed once both the core and nginx are done
 * with it.
 */
struct ngx_http_gcp_call_s {
    gcp_request_t               req;        /* req.ctx points here */
    ngx_http_request_t         *r;          /* NULL once nginx freed it */
    ngx_queue_t                 queue;      /* in the worker's calls */
    ngx_event_t                 post;       /* deferred finalization */
    ngx_int_t                   rc;         /* to finalize r with */
    const gcp_proxy_t          *proxy;      /* the core's: proxy r */

    unsigned                    in_handle:1;    /* inside gcp_api_handle */
    unsigned                    done:1;         /* req->done was called */
    unsigned                    streaming:1;
    unsigned                    ended:1;        /* stream->end was called */
    unsigned                    cancelled:1;    /* gcp_api_cancel called */
    unsigned                    lingering:1;    /* and stream->end owed */
    unsigned                    finalize:1;     /* post: finalize r */
};


/* True once the core will not use the call any more. */
#define ngx_http_gcp_call_core_done(call)                                    \
    (((call)->done && !(call)->streaming) || (call)->ended                   \
     || ((call)->cancelled && !(call)->lingering))


extern ngx_module_t  ngx_http_gcp_module;


/* ngx_http_gcp_module.c */

/*
 * While the worker exits gracefully: keeps it alive (a non-cancelable timer)
 * and ends watches, until no call is attached to a request any more.
 */
void ngx_http_gcp_drain_later(ngx_http_gcp_main_conf_t *mcf);

/*
 * The data of a shared zone kept over reloads (its init handler): data,
 * the previous cycle's, when set; else size zeroed bytes of the zone's
 * slab pool.  Returns it, or NULL when the zone is too small.
 */
void *ngx_http_gcp_zone_data(ngx_shm_zone_t *zone, void *data, size_t size);


/* ngx_http_gcp_handler.c */

/* The content handler of gcp_api locations. */
ngx_int_t ngx_http_gcp_handler(ngx_http_request_t *r);

/* Installs the request body filter (postconfiguration). */
ngx_int_t ngx_http_gcp_body_filter_init(ngx_conf_t *cf);

/*
 * Tells the core the client of a streaming call went away (once, after
 * done, before stream->end): call->cancelled set, and call->lingering when
 * the core still uses the call until its stream->end.
 */
void ngx_http_gcp_call_cancel(ngx_http_gcp_call_t *call);

/*
 * Posts the call's event: from a core callback, the request is finalized
 * (call->finalize) or the call freed from the event loop, not right away.
 */
void ngx_http_gcp_call_post(ngx_http_gcp_call_t *call);

/*
 * Returns the request's ctx, creating it (from r->pool) if needed, or NULL
 * when out of memory.
 */
ngx_http_gcp_ctx_t *ngx_http_gcp_get_ctx(ngx_http_request_t *r);

/*
 * Sets the response headers of r from resp (status, Content-Type, extra
 * headers; Content-Length when not streaming) and sends them.  Returns what
 * ngx_http_send_header() returns.
 */
ngx_int_t ngx_http_gcp_send_header(ngx_http_request_t *r,
    gcp_response_t *resp);

/* Hides nginx's own "Server" header from r's response. */
ngx_int_t ngx_http_gcp_hide_server(ngx_http_request_t *r);

/*
 * Ends what the worker's calls still hold when it exits gracefully: open
 * watches are cancelled and their responses completed.  Returns the number
 * of calls still attached to a request (the caller keeps the worker alive
 * while it is not 0).
 */
ngx_uint_t ngx_http_gcp_end_streams(ngx_http_gcp_main_conf_t *mcf);

/* Releases every call (worker exit, after gcp_api_destroy()). */
void ngx_http_gcp_free_calls(ngx_http_gcp_main_conf_t *mcf);


/* ngx_http_gcp_auth.c */

/* A directive whose arguments are appended to an ngx_array_t of ngx_str_t
 * (it may repeat). */
char *ngx_http_gcp_conf_set_list(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);

/* Marks the authentication settings unset (create_main_conf). */
void ngx_http_gcp_auth_create_conf(ngx_http_gcp_auth_conf_t *acf);

/*
 * Applies the defaults and loads the files into acf->auth (released with
 * cf->pool).  Returns NGX_CONF_OK or NGX_CONF_ERROR (after logging).
 */
char *ngx_http_gcp_auth_init_conf(ngx_conf_t *cf,
    ngx_http_gcp_auth_conf_t *acf);

/* "AlwaysAllow" or "RBAC" (static), for gcp_api_conf_t. */
const char *ngx_http_gcp_authorization_mode(ngx_http_gcp_auth_conf_t *acf);

/*
 * Copies r's headers and its TLS client certificate chain (PEM) into req
 * (memory of req->arena).  Returns NGX_OK or NGX_ERROR.
 */
ngx_int_t ngx_http_gcp_auth_request(ngx_http_request_t *r,
    gcp_request_t *req);

#if (NGX_HTTP_SSL)
/*
 * In every server with gcp_api and ssl_verify_client optional_no_ca,
 * makes nginx accept any client certificate: the core verifies them, and
 * one that fails is ignored as kube-apiserver ignores it (postconfiguration,
 * after the servers' SSL contexts exist).  Returns NGX_OK.
 */
ngx_int_t ngx_http_gcp_auth_ssl_init(ngx_conf_t *cf);
#endif


/* ngx_http_gcp_apf.c */

/* Marks the settings unset (create_main_conf). */
void ngx_http_gcp_apf_create_conf(ngx_http_gcp_apf_conf_t *acf);

/*
 * Applies the defaults and adds the instance's shared zone (a fresh one
 * at every reload).  Returns NGX_CONF_OK or NGX_CONF_ERROR.
 */
char *ngx_http_gcp_apf_init_conf(ngx_conf_t *cf,
    ngx_http_gcp_apf_conf_t *acf);

/*
 * In the master (or the single process), before the workers fork: lays
 * out the region in the zone for the cycle's workers.  Returns NGX_OK or
 * NGX_ERROR (after logging).
 */
ngx_int_t ngx_http_gcp_apf_init_module(ngx_cycle_t *cycle,
    ngx_http_gcp_apf_conf_t *acf);

/* Fills the core's configuration of this worker. */
void ngx_http_gcp_apf_api_conf(ngx_http_gcp_apf_conf_t *acf,
    gcp_api_conf_t *conf);

/* ngx_http_gcp_admission.c */

/*
 * gcp_enable_admission_plugins, gcp_disable_admission_plugins,
 * gcp_admission_plugin_config.
 */
char *ngx_http_gcp_admission_plugins(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
char *ngx_http_gcp_admission_plugin_config(ngx_conf_t *cf,
    ngx_command_t *cmd, void *conf);

/*
 * Checks the plugins' configuration.  Returns NGX_CONF_OK or
 * NGX_CONF_ERROR (after logging).
 */
char *ngx_http_gcp_admission_init_conf(ngx_conf_t *cf,
    ngx_http_gcp_admission_conf_t *acf);

/* ngx_http_gcp_proxy.c */

/*
 * Proxies r as p says (p in the call's arena, which outlives r), as a
 * content handler would: returns NGX_DONE, or an HTTP status to finalize
 * r with.
 */
ngx_int_t ngx_http_gcp_proxy(ngx_http_request_t *r, const gcp_proxy_t *p);

/*
 * When nginx answers a proxied request itself because the server could
 * not be reached (502, 504): the message of the 503 Status that replaces
 * its page ("Error trying to reach service: ..."), in a; else NULL.
 */
const char *ngx_http_gcp_proxy_failure(ngx_http_request_t *r,
    gcp_arena_t *a);


/* ngx_http_gcp_front.c */

/* gcp_front https://HOST[:PORT] | UPSTREAM */
char *ngx_http_gcp_front(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);

/* gcp_front_expose RESOURCE VERBS [namespaces=...] [subresources=...] */
char *ngx_http_gcp_front_expose(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);

/* gcp_front_identity impersonate | front-proxy */
extern ngx_conf_enum_t  ngx_http_gcp_front_identities[];

/* Marks the settings unset (create_main_conf). */
void ngx_http_gcp_front_create_conf(ngx_http_gcp_front_conf_t *fcf);

/*
 * Checks the settings and loads the files (init_main_conf): the client
 * certificate into pcf->front.  Returns NGX_CONF_OK, or NGX_CONF_ERROR
 * with an error naming the directive logged.
 */
char *ngx_http_gcp_front_init_conf(ngx_conf_t *cf,
    ngx_http_gcp_front_conf_t *fcf, ngx_http_gcp_proxy_conf_t *pcf);


/* ngx_http_gcp_proxy_conf.c */

/* gcp_service NAME.NAMESPACE.svc[:PORT] ADDRESS ...: an upstream block. */
char *ngx_http_gcp_service(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);

/* Marks the proxy settings unset (create_main_conf). */
void ngx_http_gcp_proxy_create_conf(ngx_http_gcp_proxy_conf_t *pcf);

/*
 * Applies the defaults, loads the client certificate, lists the services
 * and prepares the upstream template.  Returns NGX_CONF_OK or
 * NGX_CONF_ERROR (after logging).
 */
char *ngx_http_gcp_proxy_init_conf(ngx_conf_t *cf,
    ngx_http_gcp_proxy_conf_t *pcf);

/*
 * Defines the upstream block name with the servers addrs (naddrs, port
 * 443 by default), keep-alive connections kept.  Returns NGX_CONF_OK, or
 * NGX_CONF_ERROR with the error logged.
 */
char *ngx_http_gcp_proxy_block(ngx_conf_t *cf, ngx_str_t *name,
    ngx_str_t *addrs, ngx_uint_t naddrs);

/*
 * Loads a client certificate (its chain after it) and its key, the file
 * names made absolute in place, into cred.  Returns NGX_CONF_OK, or
 * NGX_CONF_ERROR with an error naming directive logged.
 */
char *ngx_http_gcp_load_cert(ngx_conf_t *cf, ngx_str_t *cert,
    ngx_str_t *key, const char *directive, ngx_http_gcp_cred_t *cred);

/* Sets the services and the proxy certificate of the core's conf. */
void ngx_http_gcp_proxy_api_conf(ngx_http_gcp_proxy_conf_t *pcf,
    gcp_api_conf_t *conf);

/*
 * Returns the worker's TLS context for p's CA (made on first use), or
 * NULL when it cannot be made.
 */
ngx_ssl_t *ngx_http_gcp_proxy_tls(ngx_http_request_t *r,
    const gcp_proxy_t *p);


/* ngx_http_gcp_ctl.c */

/* The gcp_controllers and gcp_root_ca_file directives. */
char *ngx_http_gcp_controllers(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
char *ngx_http_gcp_root_ca_file(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);

/* gcp_csr_signer NAME CERT_FILE KEY_FILE; */
char *ngx_http_gcp_csr_signer(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);

/* Applies the controllers' defaults (init_main_conf). */
void ngx_http_gcp_ctl_init_conf(ngx_http_gcp_main_conf_t *mcf);

/*
 * Starts the controllers in the process that runs them (the first worker),
 * once the API is bootstrapped: the API server's own, and those of
 * kube-controller-manager not switched off, with the root CA and this
 * instance's leader election identity.
 */
void ngx_http_gcp_ctl_start(ngx_cycle_t *cycle,
    ngx_http_gcp_main_conf_t *mcf);

/* Stops them (nothing when they do not run here). */
void ngx_http_gcp_ctl_stop(ngx_http_gcp_main_conf_t *mcf);


/* ngx_http_gcp_manifests.c */

/*
 * Reads file (made absolute in place) into out, NUL-terminated, from the
 * configuration's pool, at most max bytes.  Returns NGX_CONF_OK, or
 * NGX_CONF_ERROR with the error logged.
 */
char *ngx_http_gcp_read_conf_file(ngx_conf_t *cf, ngx_str_t *file,
    size_t max, ngx_str_t *out);

/* The gcp_manifests directive. */
char *ngx_http_gcp_manifests(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);

/* Starts applying the manifests (with the API server's controllers), and
 * stops. */
void ngx_http_gcp_manifests_start(ngx_http_gcp_main_conf_t *mcf);
void ngx_http_gcp_manifests_stop(ngx_http_gcp_main_conf_t *mcf);


/* ngx_http_gcp_encrypt.c */

/* The directive gcp_encryption_provider_config. */
char *ngx_http_gcp_encryption(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);


/* ngx_http_gcp_observe.c */

/* The directive gcp_audit_log. */
char *ngx_http_gcp_audit_log(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);

/* Marks the settings unset (create_main_conf). */
void ngx_http_gcp_observe_create_conf(ngx_http_gcp_observe_conf_t *ocf);

/*
 * Adds the metrics zone (gcp_metrics on) and loads the audit policy
 * (released with cf->pool).  Returns NGX_CONF_OK or NGX_CONF_ERROR
 * (after logging).
 */
char *ngx_http_gcp_observe_init_conf(ngx_conf_t *cf,
    ngx_http_gcp_observe_conf_t *ocf);

/* Registers the $gcp_* variables (preconfiguration). */
ngx_int_t ngx_http_gcp_variables_add(ngx_conf_t *cf);

/* Notes whether the configuration uses them (postconfiguration). */
void ngx_http_gcp_variables_used(ngx_conf_t *cf,
    ngx_http_gcp_observe_conf_t *ocf);

/*
 * In a worker, before the API core is created: the core's error log,
 * the metrics attached.  Returns NGX_OK or NGX_ERROR (logged).
 */
ngx_int_t ngx_http_gcp_observe_start(ngx_cycle_t *cycle,
    ngx_http_gcp_observe_conf_t *ocf);

/* At exit, after the API core is destroyed. */
void ngx_http_gcp_observe_stop(ngx_cycle_t *cycle);

/*
 * Keeps what the $gcp_* variables show of r, from the core's request
 * (when the core answers; the variables are read when r is logged, after
 * the core's request is gone).
 */
void ngx_http_gcp_summary_save(ngx_http_request_t *r, gcp_request_t *req);


/* ngx_http_gcp_stream.c */

/* The stream operations given to the core for watches (arg: the call). */
extern const gcp_stream_ops_t  ngx_http_gcp_stream_ops;

/*
 * Prepares r for streaming once the core answered with resp->streaming:
 * chunked output flushed at every write, detection of the client going
 * away.  Returns what ngx_http_send_header() returns.
 */
ngx_int_t ngx_http_gcp_stream_start(ngx_http_gcp_call_t *call,
    gcp_response_t *resp);

/*
 * HTTP/2 over TLS: sends what waits in the connection's TLS buffer (the
 * HEADERS frame of a stream that has no data yet).  Returns NGX_OK or
 * NGX_ERROR.
 */
ngx_int_t ngx_http_gcp_flush_tls(ngx_http_request_t *r);

/*
 * Completes a stream the adapter ends itself (graceful exit): sends the
 * end of the chunked body.  Returns the rc to finalize the request with.
 */
ngx_int_t ngx_http_gcp_stream_finish(ngx_http_request_t *r);


/* ngx_http_gcp_loop.c */

/*
 * Returns a gcp_loop_t running on this worker's nginx event loop (owned by
 * the caller, released by ngx_http_gcp_loop_destroy()), or NULL.  Timers are
 * cancelable: they never keep a gracefully exiting worker alive.
 */
gcp_loop_t *ngx_http_gcp_loop_create(ngx_log_t *log);

/* Releases the loop; every fd and timer must have been deleted. */
void ngx_http_gcp_loop_destroy(gcp_loop_t *loop);


/* ngx_http_gcp_status_filter.c */

/* Installs the header and body filters (postconfiguration). */
ngx_int_t ngx_http_gcp_status_filter_init(ngx_conf_t *cf);


#endif /* _NGX_HTTP_GCP_MODULE_H_INCLUDED_ */
