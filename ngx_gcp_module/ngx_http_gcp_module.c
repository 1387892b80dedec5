
/*
 * ngx_http_gcp_module: directives, configuration, and the life of the API
 * core in the nginx processes.
 *
 * The master opens the storage before forking (gcp_lmdb_prefork() from
 * init_module, again on every reload; the state of a cycle is released by
 * a cleanup of the cycle's pool).  Each worker opens its own store on its
 * own gcp_loop_t, creates the API core and bootstraps it (init_process),
 * and releases everything in exit_process.
 *
 * Graceful exit (quit, reload): nginx tells idle connections by calling
 * their read handler with c->close set.  Each worker keeps one such
 * connection, the sentinel, on a /dev/null descriptor that is never added
 * to the event loop, only to be told: it then ends the open watches
 * cleanly and keeps the worker alive (the drain timer) until every request
 * held by the core is answered.
 */

#include "ngx_http_gcp_module.h"

#include "lmdb/gcp_store_lmdb.h"
#include "etcd/gcp_store_etcd.h"


#define NGX_HTTP_GCP_MAX_BODY_SIZE  3145728     /* kube-apiserver's 3 MiB */
#define NGX_HTTP_GCP_WATCH_BUFFER   (4 * 1024 * 1024)
#define NGX_HTTP_GCP_MIN_REQUEST_TIMEOUT  1800  /* --min-request-timeout */
#define NGX_HTTP_GCP_COMPACT_INTERVAL     300000  /* 5 minutes, as upstream */
#define NGX_HTTP_GCP_OBJECT_CACHE   (64 * 1024 * 1024)
#define NGX_HTTP_GCP_LABEL_INDEX    (64 * 1024 * 1024)
#define NGX_HTTP_GCP_TABLE_CACHE    (32 * 1024 * 1024)
#define NGX_HTTP_GCP_STATS_INTERVAL 60000   /* object counts, as upstream */
#define NGX_HTTP_GCP_DRAIN_MS       100
#define NGX_HTTP_GCP_BOOTSTRAP_MS   1000
#define NGX_HTTP_GCP_MIRROR_DIR     "etcd-mirror"   /* in the prefix */


static void *ngx_http_gcp_create_main_conf(ngx_conf_t *cf);
static char *ngx_http_gcp_init_main_conf(ngx_conf_t *cf, void *conf);
static void *ngx_http_gcp_create_srv_conf(ngx_conf_t *cf);
static void *ngx_http_gcp_create_loc_conf(ngx_conf_t *cf);
static char *ngx_http_gcp_merge_loc_conf(ngx_conf_t *cf, void *parent,
    void *child);
static ngx_int_t ngx_http_gcp_postconfiguration(ngx_conf_t *cf);
static char *ngx_http_gcp_api(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
static char *ngx_http_gcp_storage(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
static char *ngx_http_gcp_storage_lmdb(ngx_conf_t *cf,
    ngx_http_gcp_storage_conf_t *st);
static char *ngx_http_gcp_storage_etcd(ngx_conf_t *cf,
    ngx_http_gcp_storage_conf_t *st);
static ngx_int_t ngx_http_gcp_watermark_init(ngx_shm_zone_t *zone,
    void *data);
static ngx_int_t ngx_http_gcp_open_etcd(ngx_cycle_t *cycle,
    ngx_http_gcp_main_conf_t *mcf);
static ngx_int_t ngx_http_gcp_init_module(ngx_cycle_t *cycle);
static int ngx_http_gcp_mirror_claim(void *arg, int64_t revision,
    const char *recorded, const char **source);
static int ngx_http_gcp_mirror_ready(void *store, const char **why);
static ngx_int_t ngx_http_gcp_etcd_conf(ngx_pool_t *pool,
    ngx_http_gcp_main_conf_t *mcf, gcp_etcd_conf_t *conf);
static void ngx_http_gcp_shared_cleanup(void *data);
static ngx_int_t ngx_http_gcp_init_process(ngx_cycle_t *cycle);
static ngx_int_t ngx_http_gcp_open(ngx_cycle_t *cycle,
    ngx_http_gcp_main_conf_t *mcf);
static ngx_int_t ngx_http_gcp_sentinel(ngx_cycle_t *cycle,
    ngx_http_gcp_main_conf_t *mcf);
static void ngx_http_gcp_sentinel_handler(ngx_event_t *ev);
static void ngx_http_gcp_drain_handler(ngx_event_t *ev);
static void ngx_http_gcp_drain(ngx_http_gcp_main_conf_t *mcf);
static void ngx_http_gcp_feeder_stop(ngx_http_gcp_main_conf_t *mcf);
static ngx_int_t ngx_http_gcp_open_mirror(ngx_cycle_t *cycle,
    ngx_http_gcp_main_conf_t *mcf, gcp_etcd_conf_t *conf);
static void ngx_http_gcp_bootstrap_done(void *arg, int rc);
static void ngx_http_gcp_bootstrap_retry(ngx_event_t *ev);
static void ngx_http_gcp_exit_process(ngx_cycle_t *cycle);
static char *ngx_http_gcp_size_positive(ngx_conf_t *cf, void *post,
    void *data);
static char *ngx_http_gcp_sec_positive(ngx_conf_t *cf, void *post,
    void *data);


static ngx_conf_post_handler_pt  ngx_http_gcp_size_post =
    ngx_http_gcp_size_positive;
static ngx_conf_post_handler_pt  ngx_http_gcp_sec_post =
    ngx_http_gcp_sec_positive;


static ngx_conf_enum_t  ngx_http_gcp_authorization_modes[] = {
    { ngx_string("AlwaysAllow"), NGX_HTTP_GCP_AUTHZ_ALWAYS_ALLOW },
    { ngx_string("RBAC"), NGX_HTTP_GCP_AUTHZ_RBAC },
    { ngx_null_string, 0 }
};


static ngx_command_t  ngx_http_gcp_commands[] = {

    { ngx_string("gcp_api"),
      NGX_HTTP_LOC_CONF|NGX_CONF_NOARGS,
      ngx_http_gcp_api,
      NGX_HTTP_LOC_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("gcp_storage"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_2MORE,
      ngx_http_gcp_storage,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("gcp_max_body_size"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_size_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_gcp_loc_conf_t, max_body_size),
      &ngx_http_gcp_size_post },

    { ngx_string("gcp_watch_buffer"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_size_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_gcp_loc_conf_t, watch_buffer),
      &ngx_http_gcp_size_post },

    { ngx_string("gcp_min_request_timeout"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_sec_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, min_request_timeout),
      &ngx_http_gcp_sec_post },

    { ngx_string("gcp_compact_interval"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_msec_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, compact_interval),
      NULL },

    { ngx_string("gcp_object_cache_size"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_size_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, object_cache),
      NULL },

    { ngx_string("gcp_label_index_size"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_size_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, label_index),
      NULL },

    { ngx_string("gcp_table_cache_size"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_size_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, table_cache),
      NULL },

    { ngx_string("gcp_version"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, version),
      NULL },

    /* API Priority and Fairness (ngx_http_gcp_apf.c) */

    { ngx_string("gcp_enable_priority_and_fairness"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, apf.enable),
      NULL },

    { ngx_string("gcp_max_requests_inflight"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_num_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, apf.max_inflight),
      NULL },

    { ngx_string("gcp_max_mutating_requests_inflight"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_num_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, apf.max_mutating),
      NULL },

    /* metrics and audit (ngx_http_gcp_observe.c) */

    { ngx_string("gcp_metrics"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, observe.metrics),
      NULL },

    { ngx_string("gcp_audit_policy_file"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, observe.audit_policy),
      NULL },

    { ngx_string("gcp_audit_log"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_gcp_audit_log,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    /* encryption at rest (ngx_http_gcp_encrypt.c) */

    { ngx_string("gcp_encryption_provider_config"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE12,
      ngx_http_gcp_encryption,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    /* the built-in controllers (ngx_http_gcp_ctl.c) */

    { ngx_string("gcp_controllers"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_gcp_controllers,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("gcp_root_ca_file"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_http_gcp_root_ca_file,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("gcp_csr_signer"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE3,
      ngx_http_gcp_csr_signer,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("gcp_cluster_signing_duration"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_sec_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, signing_duration),
      NULL },

    /* bootstrap manifests (ngx_http_gcp_manifests.c) */

    { ngx_string("gcp_manifests"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_http_gcp_manifests,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    /* admission (ngx_http_gcp_admission.c) */

    { ngx_string("gcp_enable_admission_plugins"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_gcp_admission_plugins,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("gcp_disable_admission_plugins"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_gcp_admission_plugins,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("gcp_admission_plugin_config"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_gcp_admission_plugin_config,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    /* the proxy to aggregated API servers (ngx_http_gcp_proxy_conf.c) */

    { ngx_string("gcp_proxy_client_certificate"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, proxy.cert),
      NULL },

    { ngx_string("gcp_proxy_client_certificate_key"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, proxy.key),
      NULL },

    { ngx_string("gcp_proxy_connect_timeout"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_msec_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, proxy.connect_timeout),
      NULL },

    { ngx_string("gcp_proxy_timeout"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_msec_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, proxy.timeout),
      NULL },

    { ngx_string("gcp_proxy_buffer_size"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_size_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, proxy.buffer_size),
      NULL },

    { ngx_string("gcp_service"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_2MORE,
      ngx_http_gcp_service,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    /* fronting an upstream API server (ngx_http_gcp_front.c) */

    { ngx_string("gcp_front"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_http_gcp_front,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, front.url),
      NULL },

    { ngx_string("gcp_front_ca_file"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, front.ca),
      NULL },

    { ngx_string("gcp_front_client_certificate"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, front.cert),
      NULL },

    { ngx_string("gcp_front_client_certificate_key"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, front.key),
      NULL },

    { ngx_string("gcp_front_token_file"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, front.token),
      NULL },

    { ngx_string("gcp_front_server_name"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, front.server_name),
      NULL },

    { ngx_string("gcp_front_authorization"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, front.authorize),
      NULL },

    { ngx_string("gcp_front_only"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, front.only),
      NULL },

    { ngx_string("gcp_front_identity"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_enum_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, front.identity),
      &ngx_http_gcp_front_identities },

    { ngx_string("gcp_front_expose"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_2MORE,
      ngx_http_gcp_front_expose,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    /* authentication and authorization (ngx_http_gcp_auth.c) */

    { ngx_string("gcp_client_ca_file"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, auth.client_ca_file),
      NULL },

    { ngx_string("gcp_token_auth_file"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, auth.token_auth_file),
      NULL },

    { ngx_string("gcp_authentication_config"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, auth.authentication_config),
      NULL },

    { ngx_string("gcp_service_account_signing_key_file"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, auth.sa_signing_key_file),
      NULL },

    { ngx_string("gcp_service_account_key_file"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_gcp_conf_set_list,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, auth.sa_key_files),
      NULL },

    { ngx_string("gcp_service_account_issuer"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_gcp_conf_set_list,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, auth.sa_issuers),
      NULL },

    { ngx_string("gcp_service_account_jwks_uri"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, auth.sa_jwks_uri),
      NULL },

    { ngx_string("gcp_service_account_max_token_expiration"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_sec_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, auth.sa_max_expiration),
      NULL },

    { ngx_string("gcp_api_audiences"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_gcp_conf_set_list,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, auth.api_audiences),
      NULL },

    { ngx_string("gcp_requestheader_client_ca_file"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, auth.requestheader_ca_file),
      NULL },

    { ngx_string("gcp_requestheader_allowed_names"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_gcp_conf_set_list,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, auth.requestheader_allowed_names),
      NULL },

    { ngx_string("gcp_requestheader_username_headers"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_gcp_conf_set_list,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t,
               auth.requestheader_username_headers),
      NULL },

    { ngx_string("gcp_requestheader_group_headers"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_gcp_conf_set_list,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, auth.requestheader_group_headers),
      NULL },

    { ngx_string("gcp_requestheader_extra_headers_prefix"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_gcp_conf_set_list,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, auth.requestheader_extra_prefixes),
      NULL },

    { ngx_string("gcp_anonymous_auth"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, auth.anonymous),
      NULL },

    { ngx_string("gcp_authorization_mode"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_enum_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_gcp_main_conf_t, auth.mode),
      &ngx_http_gcp_authorization_modes },

      ngx_null_command
};


static ngx_http_module_t  ngx_http_gcp_module_ctx = {
    ngx_http_gcp_variables_add,            /* preconfiguration */
    ngx_http_gcp_postconfiguration,        /* postconfiguration */

    ngx_http_gcp_create_main_conf,         /* create main configuration */
    ngx_http_gcp_init_main_conf,           /* init main configuration */

    ngx_http_gcp_create_srv_conf,          /* create server configuration */
    NULL,                                  /* merge server configuration */

    ngx_http_gcp_create_loc_conf,          /* create location configuration */
    ngx_http_gcp_merge_loc_conf            /* merge location configuration */
};


ngx_module_t  ngx_http_gcp_module = {
    NGX_MODULE_V1,
    &ngx_http_gcp_module_ctx,              /* module context */
    ngx_http_gcp_commands,                 /* module directives */
    NGX_HTTP_MODULE,                       /* module type */
    NULL,                                  /* init master */
    ngx_http_gcp_init_module,              /* init module */
    ngx_http_gcp_init_process,             /* init process */
    NULL,                                  /* init thread */
    NULL,                                  /* exit thread */
    ngx_http_gcp_exit_process,             /* exit process */
    NULL,                                  /* exit master */
    NGX_MODULE_V1_PADDING
};


static void *
ngx_http_gcp_create_main_conf(ngx_conf_t *cf)
{
    ngx_http_gcp_main_conf_t  *mcf;

    mcf = ngx_pcalloc(cf->pool, sizeof(ngx_http_gcp_main_conf_t));
    if (mcf == NULL) {
        return NULL;
    }

    /*
     * set by ngx_pcalloc():
     *
     *     mcf->storage.type = NGX_HTTP_GCP_STORAGE_NONE;
     *     mcf->version = { 0, NULL };
     *     mcf->shared = NULL;
     *     mcf->api = NULL;
     */

    mcf->min_request_timeout = NGX_CONF_UNSET;
    mcf->compact_interval = NGX_CONF_UNSET_MSEC;
    mcf->object_cache = NGX_CONF_UNSET_SIZE;
    mcf->label_index = NGX_CONF_UNSET_SIZE;
    mcf->table_cache = NGX_CONF_UNSET_SIZE;
    mcf->controllers_off = NGX_CONF_UNSET_UINT;
    mcf->signing_duration = NGX_CONF_UNSET;
    mcf->storage.sync = NGX_CONF_UNSET;
    ngx_queue_init(&mcf->calls);

    ngx_http_gcp_auth_create_conf(&mcf->auth);
    ngx_http_gcp_apf_create_conf(&mcf->apf);
    ngx_http_gcp_proxy_create_conf(&mcf->proxy);
    ngx_http_gcp_front_create_conf(&mcf->front);
    ngx_http_gcp_observe_create_conf(&mcf->observe);

    return mcf;
}


static char *
ngx_http_gcp_init_main_conf(ngx_conf_t *cf, void *conf)
{
    ngx_http_gcp_main_conf_t *mcf = conf;

    ngx_conf_init_value(mcf->min_request_timeout,
                        NGX_HTTP_GCP_MIN_REQUEST_TIMEOUT);
    ngx_conf_init_msec_value(mcf->compact_interval,
                             NGX_HTTP_GCP_COMPACT_INTERVAL);
    ngx_conf_init_size_value(mcf->object_cache, NGX_HTTP_GCP_OBJECT_CACHE);
    ngx_conf_init_size_value(mcf->label_index, NGX_HTTP_GCP_LABEL_INDEX);
    ngx_conf_init_size_value(mcf->table_cache, NGX_HTTP_GCP_TABLE_CACHE);
    ngx_http_gcp_ctl_init_conf(mcf);

    if (mcf->used && mcf->storage.type == NGX_HTTP_GCP_STORAGE_NONE) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"gcp_api\" needs \"gcp_storage\" in the "
                           "http block");
        return NGX_CONF_ERROR;
    }

    if (ngx_http_gcp_admission_init_conf(cf, &mcf->admission)
        != NGX_CONF_OK)
    {
        return NGX_CONF_ERROR;
    }

    if (mcf->used) {
        if (ngx_http_gcp_apf_init_conf(cf, &mcf->apf) != NGX_CONF_OK) {
            return NGX_CONF_ERROR;
        }

        if (ngx_http_gcp_front_init_conf(cf, &mcf->front, &mcf->proxy)
            != NGX_CONF_OK
            || ngx_http_gcp_proxy_init_conf(cf, &mcf->proxy) != NGX_CONF_OK)
        {
            return NGX_CONF_ERROR;
        }

        if (ngx_http_gcp_observe_init_conf(cf, &mcf->observe)
            != NGX_CONF_OK)
        {
            return NGX_CONF_ERROR;
        }

        return ngx_http_gcp_auth_init_conf(cf, &mcf->auth);
    }

    return NGX_CONF_OK;
}


static void *
ngx_http_gcp_create_srv_conf(ngx_conf_t *cf)
{
    ngx_http_gcp_srv_conf_t  *scf;

    scf = ngx_pcalloc(cf->pool, sizeof(ngx_http_gcp_srv_conf_t));
    if (scf == NULL) {
        return NULL;
    }

    /* scf->api = 0: set by gcp_api in one of the server's locations */

    return scf;
}


static void *
ngx_http_gcp_create_loc_conf(ngx_conf_t *cf)
{
    ngx_http_gcp_loc_conf_t  *lcf;

    lcf = ngx_pcalloc(cf->pool, sizeof(ngx_http_gcp_loc_conf_t));
    if (lcf == NULL) {
        return NULL;
    }

    /*
     * set by ngx_pcalloc():
     *
     *     lcf->api = 0;
     *     lcf->clcf = NULL;
     */

    lcf->max_body_size = NGX_CONF_UNSET_SIZE;
    lcf->watch_buffer = NGX_CONF_UNSET_SIZE;

    return lcf;
}


static char *
ngx_http_gcp_merge_loc_conf(ngx_conf_t *cf, void *parent, void *child)
{
    ngx_http_gcp_loc_conf_t *prev = parent;
    ngx_http_gcp_loc_conf_t *conf = child;

    ngx_conf_merge_size_value(conf->max_body_size, prev->max_body_size,
                              NGX_HTTP_GCP_MAX_BODY_SIZE);
    ngx_conf_merge_size_value(conf->watch_buffer, prev->watch_buffer,
                              NGX_HTTP_GCP_WATCH_BUFFER);

    /*
     * gcp_api is not inherited.  In its location the body limit is
     * gcp_max_body_size: nginx's client_max_body_size (merged already, the
     * core module comes first) is turned off there.
     */

    if (conf->api && conf->clcf) {
        conf->clcf->client_max_body_size = 0;
    }

    return NGX_CONF_OK;
}


static ngx_int_t
ngx_http_gcp_postconfiguration(ngx_conf_t *cf)
{
    ngx_http_gcp_loc_conf_t   *lcf;
    ngx_http_gcp_main_conf_t  *mcf;

    mcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_gcp_module);
    lcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_gcp_module);

    /* the http level value, for the core */

    mcf->max_body_size = lcf->max_body_size == NGX_CONF_UNSET_SIZE
                         ? NGX_HTTP_GCP_MAX_BODY_SIZE : lcf->max_body_size;

    if (ngx_http_gcp_status_filter_init(cf) != NGX_OK) {
        return NGX_ERROR;
    }

#if (NGX_HTTP_SSL)
    if (ngx_http_gcp_auth_ssl_init(cf) != NGX_OK) {
        return NGX_ERROR;
    }
#endif

    ngx_http_gcp_variables_used(cf, &mcf->observe);

    return ngx_http_gcp_body_filter_init(cf);
}


static char *
ngx_http_gcp_api(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_gcp_loc_conf_t *lcf = conf;

    ngx_http_gcp_srv_conf_t   *scf;
    ngx_http_gcp_main_conf_t  *mcf;

    if (lcf->api) {
        return "is duplicate";
    }

    mcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_gcp_module);
    scf = ngx_http_conf_get_module_srv_conf(cf, ngx_http_gcp_module);

    lcf->api = 1;
    scf->api = 1;

    lcf->clcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module);
    lcf->clcf->handler = ngx_http_gcp_handler;

    mcf->used = 1;

    return NGX_CONF_OK;
}


static char *
ngx_http_gcp_size_positive(ngx_conf_t *cf, void *post, void *data)
{
    size_t *sp = data;

    if (*sp == 0) {
        return "must not be 0";
    }

    return NGX_CONF_OK;
}


static char *
ngx_http_gcp_sec_positive(ngx_conf_t *cf, void *post, void *data)
{
    time_t *tp = data;

    if (*tp < 1) {
        return "must be at least 1s";
    }

    return NGX_CONF_OK;
}


/*
 * gcp_storage lmdb PATH [map_size=SIZE] [sync=on|off];
 * gcp_storage etcd URL[,URL...] [prefix=/registry] [cacert=FILE]
 *     [cert=FILE key=FILE] [timeout=5s]
 *     [consistent_reads=instance|quorum] [freshness=1s]
 *     [mirror=DIR|off];
 *
 * The first argument names the backend; each backend parses the rest.
 */

static char *
ngx_http_gcp_storage(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_gcp_main_conf_t *mcf = conf;

    ngx_str_t  *value;

    if (mcf->storage.type != NGX_HTTP_GCP_STORAGE_NONE) {
        return "is duplicate";
    }

    value = cf->args->elts;

    if (ngx_strcmp(value[1].data, "lmdb") == 0) {
        mcf->storage.type = NGX_HTTP_GCP_STORAGE_LMDB;
        return ngx_http_gcp_storage_lmdb(cf, &mcf->storage);
    }

    if (ngx_strcmp(value[1].data, "etcd") == 0) {
        mcf->storage.type = NGX_HTTP_GCP_STORAGE_ETCD;
        return ngx_http_gcp_storage_etcd(cf, &mcf->storage);
    }

    ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                       "unknown storage \"%V\" (known: lmdb, etcd)",
                       &value[1]);

    return NGX_CONF_ERROR;
}


static char *
ngx_http_gcp_storage_lmdb(ngx_conf_t *cf, ngx_http_gcp_storage_conf_t *st)
{
    off_t        size;
    ngx_str_t   *value, s;
    ngx_uint_t   i;

    value = cf->args->elts;

    st->path = value[2];

    if (ngx_conf_full_name(cf->cycle, &st->path, 0) != NGX_OK) {
        return NGX_CONF_ERROR;
    }

    st->sync = 1;

    for (i = 3; i < cf->args->nelts; i++) {

        if (ngx_strncmp(value[i].data, "map_size=", 9) == 0) {
            s.data = value[i].data + 9;
            s.len = value[i].len - 9;

            size = ngx_parse_offset(&s);
            if (size <= 0) {
                goto invalid;
            }

            st->map_size = (size_t) size;
            continue;
        }

        if (ngx_strcmp(value[i].data, "sync=on") == 0) {
            st->sync = 1;
            continue;
        }

        if (ngx_strcmp(value[i].data, "sync=off") == 0) {
            st->sync = 0;
            continue;
        }

        goto invalid;
    }

    return NGX_CONF_OK;

invalid:

    ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                       "invalid parameter \"%V\"", &value[i]);

    return NGX_CONF_ERROR;
}


static char *
ngx_http_gcp_storage_etcd(ngx_conf_t *cf, ngx_http_gcp_storage_conf_t *st)
{
    u_char           *p;
    ngx_str_t        *value, *file, s;
    ngx_uint_t        i, mirror_off;
    const char       *err;
    gcp_etcd_conf_t   conf;

    static ngx_str_t  zone_name = ngx_string("gcp_etcd_watermark");

    value = cf->args->elts;

    st->endpoints = value[2];
    ngx_str_set(&st->prefix, "/registry");
    st->timeout = 5000;
    st->reads = GCP_ETCD_READS_INSTANCE;
    st->freshness = 1000;
    mirror_off = 0;

    for (i = 3; i < cf->args->nelts; i++) {

        if (ngx_strcmp(value[i].data, "consistent_reads=instance") == 0) {
            st->reads = GCP_ETCD_READS_INSTANCE;
            continue;
        }

        if (ngx_strcmp(value[i].data, "consistent_reads=quorum") == 0) {
            st->reads = GCP_ETCD_READS_QUORUM;
            continue;
        }

        if (ngx_strncmp(value[i].data, "freshness=", 10) == 0) {
            s.data = value[i].data + 10;
            s.len = value[i].len - 10;

            st->freshness = ngx_parse_time(&s, 0);
            if (st->freshness == (ngx_msec_t) NGX_ERROR
                || st->freshness == 0)
            {
                goto invalid;
            }

            continue;
        }

        if (ngx_strcmp(value[i].data, "mirror=off") == 0) {
            mirror_off = 1;
            ngx_str_null(&st->mirror);
            continue;
        }

        if (ngx_strncmp(value[i].data, "mirror=", 7) == 0) {
            mirror_off = 0;
            st->mirror.data = value[i].data + 7;
            st->mirror.len = value[i].len - 7;

            if (st->mirror.len == 0
                || ngx_conf_full_name(cf->cycle, &st->mirror, 0) != NGX_OK)
            {
                goto invalid;
            }

            continue;
        }

        if (ngx_strncmp(value[i].data, "prefix=", 7) == 0) {
            st->prefix.data = value[i].data + 7;
            st->prefix.len = value[i].len - 7;

            if (st->prefix.len == 0) {
                goto invalid;
            }

            continue;
        }

        if (ngx_strncmp(value[i].data, "timeout=", 8) == 0) {
            s.data = value[i].data + 8;
            s.len = value[i].len - 8;

            st->timeout = ngx_parse_time(&s, 0);
            if (st->timeout == (ngx_msec_t) NGX_ERROR || st->timeout == 0) {
                goto invalid;
            }

            continue;
        }

        file = NULL;

        if (ngx_strncmp(value[i].data, "cacert=", 7) == 0) {
            file = &st->cacert;
            file->data = value[i].data + 7;
            file->len = value[i].len - 7;

        } else if (ngx_strncmp(value[i].data, "cert=", 5) == 0) {
            file = &st->cert;
            file->data = value[i].data + 5;
            file->len = value[i].len - 5;

        } else if (ngx_strncmp(value[i].data, "key=", 4) == 0) {
            file = &st->key;
            file->data = value[i].data + 4;
            file->len = value[i].len - 4;
        }

        if (file == NULL || file->len == 0) {
            goto invalid;
        }

        if (ngx_conf_full_name(cf->cycle, file, 1) != NGX_OK) {
            return NGX_CONF_ERROR;
        }
    }

    if (st->mirror.len == 0 && !mirror_off) {
        /* one copy per instance by default, in the nginx prefix */
        ngx_str_set(&st->mirror, NGX_HTTP_GCP_MIRROR_DIR);

        if (ngx_conf_full_name(cf->cycle, &st->mirror, 0) != NGX_OK) {
            return NGX_CONF_ERROR;
        }
    }

    if ((st->cert.len == 0) != (st->key.len == 0)) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"cert\" and \"key\" go together");
        return NGX_CONF_ERROR;
    }

    ngx_memzero(&conf, sizeof(gcp_etcd_conf_t));
    conf.endpoints = (const char *) st->endpoints.data;

    if (gcp_etcd_check_conf(&conf, &err) != GCP_OK) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "%s: \"%V\"", err,
                           &st->endpoints);
        return NGX_CONF_ERROR;
    }

    /* the instance's write watermark, kept across reloads */

    st->zone = ngx_shared_memory_add(cf, &zone_name, 8 * ngx_pagesize,
                                     &ngx_http_gcp_module);
    if (st->zone == NULL) {
        return NGX_CONF_ERROR;
    }

    st->zone->init = ngx_http_gcp_watermark_init;

    /* the data directory (the core's) is nginx's prefix */

    s = cf->cycle->prefix;

    while (s.len > 1 && s.data[s.len - 1] == '/') {
        s.len--;
    }

    p = ngx_pnalloc(cf->pool, s.len + 1);
    if (p == NULL) {
        return NGX_CONF_ERROR;
    }

    *ngx_cpymem(p, s.data, s.len) = '\0';
    st->path.data = p;
    st->path.len = s.len;

    return NGX_CONF_OK;

invalid:

    ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                       "invalid parameter \"%V\"", &value[i]);

    return NGX_CONF_ERROR;
}


/* What the master asks etcd about the mirror at start (and reload). */
typedef struct {
    gcp_etcd_conf_t    etcd;
    gcp_etcd_claim_t   claim;
    ngx_log_t         *log;
    ngx_str_t         *path;
    ngx_uint_t         kept;        /* the mirror was kept */
} ngx_http_gcp_claim_t;


/*
 * The mirror in DIR is kept only when it copies this etcd cluster and
 * prefix and etcd still holds its revision (not compacted past it, not
 * behind it); else it is emptied and the feeder loads it from a fresh
 * range (docs/storage.md, "Mirror identity").  Blocks the master within
 * the etcd timeout; when etcd does not answer, the mirror is emptied.
 */

static int
ngx_http_gcp_mirror_claim(void *arg, int64_t revision, const char *recorded,
    const char **source)
{
    int                    keep;
    ngx_http_gcp_claim_t  *cl = arg;

    keep = gcp_etcd_claim(&cl->claim, revision, recorded, source);
    cl->kept = keep && revision != 0;

    if (revision != 0 && cl->claim.why != NULL) {
        ngx_log_error(NGX_LOG_NOTICE, cl->log, 0,
                      "gcp_storage etcd mirror \"%V\" at revision %L "
                      "(%s) is loaded again: %s", cl->path, revision,
                      recorded[0] ? recorded : "no identity",
                      cl->claim.why);
    }

    return keep;
}


static int
ngx_http_gcp_mirror_ready(void *store, const char **why)
{
    return gcp_etcd_mirror_ready(store, why);
}


/* In the master (or the single process), before the workers fork. */

static ngx_int_t
ngx_http_gcp_init_module(ngx_cycle_t *cycle)
{
    int                        nslots;
    ngx_str_t                 *path;
    const char                *err;
    gcp_lmdb_conf_t            conf;
    ngx_core_conf_t           *ccf;
    gcp_lmdb_shared_t         *sh;
    ngx_pool_cleanup_t        *cln;
    ngx_http_gcp_claim_t      *claim;
    ngx_http_gcp_main_conf_t  *mcf;

    if (ngx_test_config) {
        return NGX_OK;
    }

    mcf = ngx_http_cycle_get_module_main_conf(cycle, ngx_http_gcp_module);

    if (mcf == NULL) {
        return NGX_OK;
    }

    if (mcf->used && ngx_http_gcp_apf_init_module(cycle, &mcf->apf) != NGX_OK)
    {
        return NGX_ERROR;
    }

    /* read-only after start: built once here, shared by the workers */
    if (mcf->used && gcp_api_preload(&err) != GCP_OK) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0, "gcp_api_preload: %s",
                      err);
        return NGX_ERROR;
    }

    path = &mcf->storage.path;

    if (mcf->storage.type == NGX_HTTP_GCP_STORAGE_ETCD
        && mcf->storage.mirror.len)
    {
        /* the etcd instance's mirror: an LMDB store without fsync */
        path = &mcf->storage.mirror;

    } else if (mcf->storage.type != NGX_HTTP_GCP_STORAGE_LMDB) {
        return NGX_OK;
    }

    ccf = (ngx_core_conf_t *) ngx_get_conf(cycle->conf_ctx, ngx_core_module);

    nslots = ccf->master ? (int) ccf->worker_processes : 1;

    /* the path was NUL-terminated by ngx_conf_full_name() */

    ngx_memzero(&conf, sizeof(gcp_lmdb_conf_t));
    conf.path = (const char *) path->data;
    conf.map_size = mcf->storage.map_size;
    conf.nslots = nslots;
    conf.sync = mcf->storage.sync ? 1 : 0;

    if (path == &mcf->storage.mirror) {
        claim = ngx_pcalloc(cycle->pool, sizeof(ngx_http_gcp_claim_t));
        if (claim == NULL
            || ngx_http_gcp_etcd_conf(cycle->pool, mcf, &claim->etcd)
               != NGX_OK)
        {
            return NGX_ERROR;
        }

        claim->claim.conf = &claim->etcd;
        claim->log = cycle->log;
        claim->path = path;
        conf.claim = ngx_http_gcp_mirror_claim;
        conf.claim_arg = claim;
    }

    cln = ngx_pool_cleanup_add(cycle->pool, 0);
    if (cln == NULL) {
        return NGX_ERROR;
    }

    sh = gcp_lmdb_prefork(&conf, &err);
    if (sh == NULL) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                      "gcp_storage lmdb \"%V\": %s", path, err);
        return NGX_ERROR;
    }

    cln->handler = ngx_http_gcp_shared_cleanup;
    cln->data = sh;

    if (geteuid() == 0 && ccf->master
        && gcp_lmdb_chown(sh, ccf->user, ccf->group, &err) != GCP_OK)
    {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                      "gcp_storage lmdb \"%V\": %s", path, err);
        return NGX_ERROR;
    }

    mcf->shared = sh;

    if (conf.claim_arg != NULL) {
        /* the workers' feeders compare etcd's replies with it */
        claim = conf.claim_arg;
        mcf->mirror_source = claim->claim.id;

        if (!claim->kept && mcf->storage.zone && mcf->storage.zone->data) {
            /*
             * loaded again from a fresh range, at etcd's revision now: the
             * watermark kept over the reload may be another cluster's
             */
            __atomic_store_n((int64_t *) mcf->storage.zone->data, 0,
                             __ATOMIC_RELEASE);
        }
    }

    return NGX_OK;
}


/*
 * A cycle's pool is destroyed by the master on reload and at exit, and by
 * every worker at exit: only the master (or the single process) releases
 * the shared state.
 */

static void
ngx_http_gcp_shared_cleanup(void *data)
{
    if (ngx_process == NGX_PROCESS_MASTER
        || ngx_process == NGX_PROCESS_SINGLE)
    {
        gcp_lmdb_shared_free(data);
    }
}


static ngx_int_t
ngx_http_gcp_init_process(ngx_cycle_t *cycle)
{
    ngx_http_gcp_main_conf_t  *mcf;

    if (ngx_process != NGX_PROCESS_WORKER
        && ngx_process != NGX_PROCESS_SINGLE)
    {
        return NGX_OK;
    }

    mcf = ngx_http_cycle_get_module_main_conf(cycle, ngx_http_gcp_module);

    if (mcf == NULL || mcf->storage.type == NGX_HTTP_GCP_STORAGE_NONE
        || ((mcf->storage.type == NGX_HTTP_GCP_STORAGE_LMDB
             || mcf->storage.mirror.len)
            && mcf->shared == NULL))
    {
        return NGX_OK;
    }

    ngx_queue_init(&mcf->calls);

    mcf->drain.handler = ngx_http_gcp_drain_handler;
    mcf->drain.data = mcf;
    mcf->drain.log = cycle->log;

    mcf->bootstrap.handler = ngx_http_gcp_bootstrap_retry;
    mcf->bootstrap.data = mcf;
    mcf->bootstrap.log = cycle->log;
    mcf->bootstrap.cancelable = 1;

    if (ngx_http_gcp_observe_start(cycle, &mcf->observe) != NGX_OK
        || ngx_http_gcp_open(cycle, mcf) != NGX_OK
        || ngx_http_gcp_sentinel(cycle, mcf) != NGX_OK)
    {
        /* fatal: the master does not respawn the worker (exit code 2) */
        ngx_http_gcp_exit_process(cycle);
        return NGX_ERROR;
    }

    gcp_api_bootstrap(mcf->api, ngx_http_gcp_bootstrap_done, mcf);

    return NGX_OK;
}


static ngx_int_t
ngx_http_gcp_open(ngx_cycle_t *cycle, ngx_http_gcp_main_conf_t *mcf)
{
    const char      *err;
    gcp_api_conf_t   conf;

    mcf->loop = ngx_http_gcp_loop_create(cycle->log);
    if (mcf->loop == NULL) {
        return NGX_ERROR;
    }

    if (mcf->storage.type == NGX_HTTP_GCP_STORAGE_ETCD) {
        if (ngx_http_gcp_open_etcd(cycle, mcf) != NGX_OK) {
            return NGX_ERROR;
        }

    } else {
        mcf->store = gcp_lmdb_open(mcf->shared, (int) ngx_worker, mcf->loop,
                                   &err);
        if (mcf->store == NULL) {
            ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                          "gcp_storage lmdb \"%V\": %s",
                          &mcf->storage.path, err);
            return NGX_ERROR;
        }
    }

    ngx_memzero(&conf, sizeof(gcp_api_conf_t));

    conf.loop = mcf->loop;
    conf.store = mcf->store;
    conf.encryption = mcf->encryption.enc ? &mcf->encryption : NULL;
    conf.git_version = mcf->version.len
                       ? (const char *) mcf->version.data : NULL;
    conf.max_body = (int) mcf->max_body_size;
    conf.min_watch_timeout = (int) mcf->min_request_timeout;

    conf.object_cache = mcf->object_cache;
    conf.label_index = mcf->label_index;
    conf.table_cache = mcf->table_cache;

    /*
     * One process compacts and runs the controllers: the first worker (or
     * the single process).
     */
    conf.compact_interval_ms = ngx_worker == 0 ? mcf->compact_interval : 0;
    conf.stats_interval_ms = ngx_worker == 0 ? NGX_HTTP_GCP_STATS_INTERVAL
                                            : 0;
    conf.data_dir = (const char *) mcf->storage.path.data;

    /* a new worker's requests wait for its caches as reads for the store */
    conf.warm_ms = mcf->storage.type == NGX_HTTP_GCP_STORAGE_ETCD
                   ? mcf->storage.timeout : 0;

    if (mcf->mirror) {
        /* the instance's mirror: loaded, fed, not lagging (/readyz) */
        conf.store_check = "etcd-mirror";
        conf.store_check_ok = ngx_http_gcp_mirror_ready;
        conf.store_check_arg = mcf->store;
    }

    conf.auth = mcf->auth.auth;
    conf.authorization_mode = ngx_http_gcp_authorization_mode(&mcf->auth);
    conf.audit = mcf->observe.audit;

    ngx_http_gcp_apf_api_conf(&mcf->apf, &conf);
    conf.admission = &mcf->admission.conf;
    ngx_http_gcp_proxy_api_conf(&mcf->proxy, &conf);
    conf.front = mcf->front.url.len ? &mcf->front.conf : NULL;

    mcf->api = gcp_api_create(&conf, &err);
    if (mcf->api == NULL) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0, "gcp_api_create: %s",
                      err);
        return NGX_ERROR;
    }

    return NGX_OK;
}


/*
 * The etcd write watermark: one int64_t in a shared zone, made before the
 * fork and kept across reloads (the workers of the old cycle and of the
 * new one write through the same instance).
 */

static ngx_int_t
ngx_http_gcp_watermark_init(ngx_shm_zone_t *zone, void *data)
{
    zone->data = ngx_http_gcp_zone_data(zone, data, sizeof(int64_t));

    return zone->data ? NGX_OK : NGX_ERROR;
}


void *
ngx_http_gcp_zone_data(ngx_shm_zone_t *zone, void *data, size_t size)
{
    if (data) {
        return data;
    }

    return ngx_slab_calloc((ngx_slab_pool_t *) zone->shm.addr, size);
}


/*
 * Each worker keeps its own copy of the keyspace, fed by its own etcd watch
 * stream; the workers share only the write watermark.  The core's keys
 * start with "/registry"; in etcd they start with the prefix.
 */

/* Fills conf from the gcp_storage etcd directive (strings from pool). */

static ngx_int_t
ngx_http_gcp_etcd_conf(ngx_pool_t *pool, ngx_http_gcp_main_conf_t *mcf,
    gcp_etcd_conf_t *conf)
{
    ngx_str_t  *st_prefix;
    u_char     *prefix;

    st_prefix = &mcf->storage.prefix;

    prefix = ngx_pnalloc(pool, st_prefix->len + 1);
    if (prefix == NULL) {
        return NGX_ERROR;
    }

    *ngx_cpymem(prefix, st_prefix->data, st_prefix->len) = '\0';

    ngx_memzero(conf, sizeof(gcp_etcd_conf_t));

    conf->endpoints = (const char *) mcf->storage.endpoints.data;
    conf->prefix = (const char *) prefix;
    conf->core_prefix = "/registry";
    conf->cacert = mcf->storage.cacert.len
                   ? (const char *) mcf->storage.cacert.data : NULL;
    conf->cert = mcf->storage.cert.len
                 ? (const char *) mcf->storage.cert.data : NULL;
    conf->key = mcf->storage.key.len
                ? (const char *) mcf->storage.key.data : NULL;
    conf->timeout_ms = mcf->storage.timeout;
    conf->reads = (int) mcf->storage.reads;
    conf->fresh_ms = mcf->storage.freshness;
    conf->watermark = mcf->storage.zone ? mcf->storage.zone->data : NULL;

    return NGX_OK;
}


static ngx_int_t
ngx_http_gcp_open_etcd(ngx_cycle_t *cycle, ngx_http_gcp_main_conf_t *mcf)
{
    const char       *err;
    gcp_etcd_conf_t   conf;

    if (ngx_http_gcp_etcd_conf(cycle->pool, mcf, &conf) != NGX_OK) {
        return NGX_ERROR;
    }

    if (mcf->storage.mirror.len
        && ngx_http_gcp_open_mirror(cycle, mcf, &conf) != NGX_OK)
    {
        return NGX_ERROR;
    }

    mcf->store = gcp_etcd_open(&conf, mcf->loop, &err);
    if (mcf->store == NULL) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                      "gcp_storage etcd \"%V\": %s",
                      &mcf->storage.endpoints, err);
        return NGX_ERROR;
    }

    return NGX_OK;
}


/*
 * The feeder saw another etcd under the endpoints (docs/storage.md, "An
 * etcd replaced at run time"): the mirror was emptied; a reload makes new
 * workers, whose revisions, caches and watches start afresh, and whose
 * master loads the mirror anew for the etcd it finds.
 */

static void
ngx_http_gcp_etcd_replaced(void *arg, const char *why)
{
    ngx_log_error(NGX_LOG_WARN, ngx_cycle->log, 0,
                  "gcp_storage etcd: %s: the mirror was emptied, reloading",
                  why);

    if (ngx_process == NGX_PROCESS_WORKER
        && kill(getppid(), ngx_signal_value(NGX_RECONFIGURE_SIGNAL)) == -1)
    {
        ngx_log_error(NGX_LOG_ALERT, ngx_cycle->log, ngx_errno,
                      "gcp_storage etcd: kill(master) failed");
    }
}


/*
 * One copy per instance (docs/storage.md): the worker opens its slot of
 * the mirror and a feeder, which feeds while it holds DIR/feeder.lock
 * (one worker at a time, another within 200 ms after it died or began
 * exiting); its etcd store reads and watches the mirror.
 */

static ngx_int_t
ngx_http_gcp_open_mirror(ngx_cycle_t *cycle, ngx_http_gcp_main_conf_t *mcf,
    gcp_etcd_conf_t *conf)
{
    u_char       *lock;
    const char   *err;

    lock = ngx_pnalloc(cycle->pool, mcf->storage.mirror.len
                                    + sizeof("/feeder.lock"));
    if (lock == NULL) {
        return NGX_ERROR;
    }

    ngx_sprintf(lock, "%V/feeder.lock%Z", &mcf->storage.mirror);

    mcf->mirror = gcp_lmdb_open(mcf->shared, (int) ngx_worker, mcf->loop,
                                &err);
    if (mcf->mirror == NULL) {
        goto failed;
    }

    conf->mirror_source = mcf->mirror_source;
    conf->replaced = ngx_http_gcp_etcd_replaced;
    conf->replaced_arg = mcf;

    mcf->feeder = gcp_etcd_feeder_create(conf, (const char *) lock,
                                         mcf->mirror, &gcp_lmdb_mirror_ops,
                                         mcf->loop, &err);
    if (mcf->feeder == NULL) {
        goto failed;
    }

    conf->mirror = mcf->mirror;
    conf->mirror_ops = &gcp_lmdb_mirror_ops;

    return NGX_OK;

failed:

    ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                  "gcp_storage etcd mirror \"%V\": %s",
                  &mcf->storage.mirror, err);

    return NGX_ERROR;
}


static ngx_int_t
ngx_http_gcp_sentinel(ngx_cycle_t *cycle, ngx_http_gcp_main_conf_t *mcf)
{
    ngx_fd_t           fd;
    ngx_connection_t  *c;

    fd = ngx_open_file("/dev/null", NGX_FILE_RDONLY, NGX_FILE_OPEN, 0);
    if (fd == NGX_INVALID_FILE) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, ngx_errno,
                      ngx_open_file_n " \"/dev/null\" failed");
        return NGX_ERROR;
    }

    c = ngx_get_connection(fd, cycle->log);
    if (c == NULL) {
        ngx_close_file(fd);
        return NGX_ERROR;
    }

    /* never added to the event loop: only ngx_close_idle_connections() */
    /* and the shutdown timer call its read handler */

    c->idle = 1;
    c->data = mcf;
    c->read->handler = ngx_http_gcp_sentinel_handler;
    c->read->log = cycle->log;
    c->write->log = cycle->log;

    mcf->sentinel = c;

    return NGX_OK;
}


static void
ngx_http_gcp_sentinel_handler(ngx_event_t *ev)
{
    ngx_connection_t  *c;

    c = ev->data;

    if (!c->close) {
        return;
    }

    c->close = 0;

    ngx_log_error(NGX_LOG_INFO, ev->log, 0,
                  "gcp: worker exiting, ending watches");

    ngx_http_gcp_feeder_stop(c->data);
    ngx_http_gcp_drain(c->data);
}


void
ngx_http_gcp_drain_later(ngx_http_gcp_main_conf_t *mcf)
{
    if (!mcf->drain.timer_set) {
        ngx_add_timer(&mcf->drain, NGX_HTTP_GCP_DRAIN_MS);
    }
}


/*
 * A worker that begins exiting (reload, graceful stop) gives the mirror's
 * feeder lock up at once: a worker of the new generation, whose mirror
 * wake-ups are its own, takes over from the mirror's revision.
 */

static void
ngx_http_gcp_feeder_stop(ngx_http_gcp_main_conf_t *mcf)
{
    gcp_etcd_feeder_destroy(mcf->feeder);
    mcf->feeder = NULL;
}


static void
ngx_http_gcp_drain_handler(ngx_event_t *ev)
{
    ngx_http_gcp_drain(ev->data);
}


static void
ngx_http_gcp_drain(ngx_http_gcp_main_conf_t *mcf)
{
    if (ngx_http_gcp_end_streams(mcf)) {
        /* a non-cancelable timer: the worker waits for the answers */
        ngx_http_gcp_drain_later(mcf);
    }
}


static void
ngx_http_gcp_bootstrap_done(void *arg, int rc)
{
    ngx_http_gcp_main_conf_t  *mcf = arg;

    if (rc != GCP_OK) {
        /*
         * as kube-apiserver's post-start hooks, tried until they succeed
         * (e.g. etcd unreachable, or a copy of a large keyspace still
         * loading past the timeout): not ready meanwhile
         */
        ngx_log_error(NGX_LOG_ERR, ngx_cycle->log, 0,
                      "gcp: bootstrap failed: %s, trying again in %d ms",
                      gcp_error_info(rc)->name, NGX_HTTP_GCP_BOOTSTRAP_MS);

        if (!ngx_exiting && !ngx_terminate && !ngx_quit) {
            ngx_add_timer(&mcf->bootstrap, NGX_HTTP_GCP_BOOTSTRAP_MS);
        }

        return;
    }

    ngx_log_debug0(NGX_LOG_DEBUG_HTTP, ngx_cycle->log, 0,
                   "gcp: bootstrap done");

    ngx_http_gcp_ctl_start((ngx_cycle_t *) ngx_cycle, mcf);
}


static void
ngx_http_gcp_bootstrap_retry(ngx_event_t *ev)
{
    ngx_http_gcp_main_conf_t  *mcf = ev->data;

    if (ngx_exiting || ngx_terminate || ngx_quit) {
        return;
    }

    gcp_api_bootstrap(mcf->api, ngx_http_gcp_bootstrap_done, mcf);
}


static void
ngx_http_gcp_exit_process(ngx_cycle_t *cycle)
{
    ngx_queue_t               *q;
    ngx_http_gcp_call_t       *call;
    ngx_http_gcp_main_conf_t  *mcf;

    mcf = ngx_http_cycle_get_module_main_conf(cycle, ngx_http_gcp_module);

    if (mcf == NULL || mcf->loop == NULL) {
        return;
    }

    if (mcf->bootstrap.timer_set) {
        ngx_del_timer(&mcf->bootstrap);
    }

    /* fast shutdown: watches still open are dropped with the process */

    for (q = ngx_queue_head(&mcf->calls);
         q != ngx_queue_sentinel(&mcf->calls);
         q = ngx_queue_next(q))
    {
        call = ngx_queue_data(q, ngx_http_gcp_call_t, queue);

        if (call->done && call->streaming && !call->ended
            && !call->cancelled)
        {
            ngx_http_gcp_call_cancel(call);
        }
    }

    ngx_http_gcp_ctl_stop(mcf);

    if (mcf->api) {
        gcp_api_destroy(mcf->api);
        mcf->api = NULL;
    }

    if (mcf->store) {
        gcp_store_close(mcf->store);
        mcf->store = NULL;
    }

    ngx_http_gcp_feeder_stop(mcf);

    if (mcf->mirror) {
        gcp_store_close(mcf->mirror);
        mcf->mirror = NULL;
    }

    ngx_http_gcp_free_calls(mcf);

    if (mcf->drain.timer_set) {
        ngx_del_timer(&mcf->drain);
    }

    if (mcf->sentinel) {
        ngx_close_connection(mcf->sentinel);
        mcf->sentinel = NULL;
    }

    ngx_http_gcp_loop_destroy(mcf->loop);
    mcf->loop = NULL;

    ngx_http_gcp_observe_stop(cycle);
}
