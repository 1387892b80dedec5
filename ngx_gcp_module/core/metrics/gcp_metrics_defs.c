
/*
 * Every metric family: kube-apiserver's names, help texts, labels and
 * buckets (k8s.io/apiserver, component-base, client-go's workqueue and
 * leader election) where ngx_gcp measures the same thing, and ngx_gcp's
 * own under ngx_gcp_.  The layout of the shared memory follows from this
 * table (gcp_metrics.h).
 */

#include "gcp_metrics.h"


/* label sets, names sorted as upstream's exposition sorts them */

static const char * const  gcp_l_request[] = {
    "code", "component", "dry_run", "group", "resource", "scope",
    "subresource", "verb", "version", NULL
};

static const char * const  gcp_l_duration[] = {
    "component", "dry_run", "group", "resource", "scope", "subresource",
    "verb", "version", NULL
};

static const char * const  gcp_l_route[] = {
    "component", "group", "resource", "scope", "subresource", "verb",
    "version", NULL
};

static const char * const  gcp_l_build[] = {
    "build_date", "compiler", "git_commit", "git_tree_state", "git_version",
    "go_version", "major", "minor", "platform", NULL
};

static const char * const  gcp_l_request_kind[] = { "request_kind", NULL };
static const char * const  gcp_l_gvk[] = { "group", "kind", "version", NULL };
static const char * const  gcp_l_storage[] = { "operation", "type", NULL };
static const char * const  gcp_l_resource[] = { "resource", NULL };
static const char * const  gcp_l_endpoint[] = { "endpoint", NULL };
static const char * const  gcp_l_cluster_id[] = { "storage_cluster_id",
                                                  NULL };
static const char * const  gcp_l_step[] = { "operation", "rejected", "type",
                                            NULL };
static const char * const  gcp_l_controller[] = { "name", "operation",
                                                  "rejected", "type", NULL };
static const char * const  gcp_l_wh_request[] = { "code", "name",
                                                  "operation", "rejected",
                                                  "type", NULL };
static const char * const  gcp_l_wh_rejection[] = { "error_type", "name",
                                                    "operation",
                                                    "rejection_code", "type",
                                                    NULL };
static const char * const  gcp_l_wh_fail_open[] = { "name", "type", NULL };
static const char * const  gcp_l_username[] = { "username", NULL };
static const char * const  gcp_l_result[] = { "result", NULL };
static const char * const  gcp_l_decision[] = { "decision", "name", "type",
                                                NULL };
static const char * const  gcp_l_level[] = { "level", NULL };
static const char * const  gcp_l_plugin[] = { "plugin", NULL };
static const char * const  gcp_l_name[] = { "name", NULL };
static const char * const  gcp_l_health[] = { "name", "type", NULL };
static const char * const  gcp_l_health_total[] = { "name", "status", "type",
                                                    NULL };
static const char * const  gcp_l_family[] = { "family", NULL };
static const char * const  gcp_l_flow[] = { "flow_schema", "priority_level",
                                            NULL };
static const char * const  gcp_l_flow_rejected[] = { "flow_schema",
                                                     "priority_level",
                                                     "reason", NULL };
static const char * const  gcp_l_flow_wait[] = { "execute", "flow_schema",
                                                 "priority_level", NULL };
static const char * const  gcp_l_flow_type[] = { "flow_schema",
                                                 "priority_level", "type",
                                                 NULL };
static const char * const  gcp_l_priority_level[] = { "priority_level",
                                                      NULL };
static const char * const  gcp_l_none[] = { NULL };


/* buckets */

static const double  gcp_b_request[] = {
    0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4,
    5, 6, 8, 10, 15, 20, 30, 45, 60
};

/* ExponentialBuckets(1000, 10, 7) */
static const double  gcp_b_response[] = {
    1000, 10000, 100000, 1e6, 1e7, 1e8, 1e9
};

/* ExponentialBuckets(1024, 2, 8) */
static const double  gcp_b_event[] = {
    1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072
};

static const double  gcp_b_admission[] = {
    0.005, 0.025, 0.1, 0.5, 1.0, 2.5
};

static const double  gcp_b_webhook[] = {
    0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25
};

/* ExponentialBuckets(0.001, 2, 15) */
static const double  gcp_b_authn[] = {
    0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512,
    1.024, 2.048, 4.096, 8.192, 16.384
};

/* ExponentialBuckets(10e-9, 10, 10) */
static const double  gcp_b_workqueue[] = {
    1e-08, 1e-07, 1e-06, 9.999999999999999e-06, 9.999999999999999e-05,
    0.001, 0.01, 0.1, 1, 10
};

static const double  gcp_b_batch[] = {
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024
};

static const double  gcp_b_fsync[] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
    0.25, 0.5, 1, 2.5
};

static const double  gcp_b_notify[] = {
    1e-05, 2.5e-05, 5e-05, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
    0.01, 0.025, 0.05, 0.1
};

/* requestDurationSecondsBuckets of APF */
static const double  gcp_b_apf_wait[] = {
    0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30
};

/* queueLengthBuckets of APF */
static const double  gcp_b_apf_queue[] = {
    0, 10, 25, 50, 100, 250, 500, 1000
};


#define gcp_buckets(b)  b, gcp_nelems(b)
#define GCP_NS          1e9         /* seconds kept in nanoseconds */
#define GCP_MAIN        GCP_METRICS_SET_MAIN

/* a gauge of API Priority and Fairness per priority level, collected */
#define gcp_apf_level_gauge(name, help)                                      \
    { name, help, GCP_METRIC_GAUGE, gcp_l_priority_level, NULL, 0, 256, 1,  \
      GCP_MAIN, 0, 1 }


static const gcp_metric_def_t  gcp_metric_defs[GCP_M_LAST] = {

    [GCP_M_REQUEST_TOTAL] = {
        "apiserver_request_total",
        "[STABLE] Counter of apiserver requests broken out for each verb, "
        "dry run value, group, version, resource, scope, component, and "
        "HTTP response code.",
        GCP_METRIC_COUNTER, gcp_l_request, NULL, 0, 2048, 1, GCP_MAIN, 0 },

    [GCP_M_REQUEST_DURATION] = {
        "apiserver_request_duration_seconds",
        "[STABLE] Response latency distribution in seconds for each verb, "
        "dry run value, group, version, resource, subresource, scope and "
        "component.",
        GCP_METRIC_HISTOGRAM, gcp_l_duration, gcp_buckets(gcp_b_request),
        1024, GCP_NS, GCP_MAIN, 0 },

    [GCP_M_RESPONSE_SIZES] = {
        "apiserver_response_sizes",
        "[STABLE] Response size distribution in bytes for each group, "
        "version, verb, resource, subresource, scope and component.",
        GCP_METRIC_HISTOGRAM, gcp_l_route, gcp_buckets(gcp_b_response),
        512, 1, GCP_MAIN, 0 },

    [GCP_M_INFLIGHT] = {
        "apiserver_current_inflight_requests",
        "[STABLE] Maximal number of currently used inflight request limit "
        "of this apiserver per request kind in last second.",
        GCP_METRIC_GAUGE, gcp_l_request_kind, NULL, 0, 2, 1, GCP_MAIN, 0 },

    [GCP_M_LONGRUNNING] = {
        "apiserver_longrunning_requests",
        "[STABLE] Gauge of all active long-running apiserver requests "
        "broken out by verb, group, version, resource, scope and "
        "component. Not all requests are tracked this way.",
        GCP_METRIC_GAUGE, gcp_l_route, NULL, 0, 256, 1, GCP_MAIN, 0 },

    [GCP_M_BUILD_INFO] = {
        "kubernetes_build_info",
        "[ALPHA] A metric with a constant '1' value labeled by major, "
        "minor, git version, git commit, git tree state, build date, Go "
        "version, and compiler from which Kubernetes was built, and "
        "platform on which it is running.",
        GCP_METRIC_GAUGE, gcp_l_build, NULL, 0, 4, 1, GCP_MAIN, 1 },

    [GCP_M_REGISTERED_WATCHERS] = {
        "apiserver_registered_watchers",
        "[ALPHA] Number of currently registered watchers for a given "
        "resources",
        GCP_METRIC_GAUGE, gcp_l_gvk, NULL, 0, 256, 1, GCP_MAIN, 0 },

    [GCP_M_WATCH_EVENTS] = {
        "apiserver_watch_events_total",
        "[ALPHA] Number of events sent in watch clients",
        GCP_METRIC_COUNTER, gcp_l_gvk, NULL, 0, 256, 1, GCP_MAIN, 0 },

    [GCP_M_WATCH_EVENT_SIZES] = {
        "apiserver_watch_events_sizes",
        "[ALPHA] Watch event size distribution in bytes",
        GCP_METRIC_HISTOGRAM, gcp_l_gvk, gcp_buckets(gcp_b_event), 256, 1,
        GCP_MAIN, 0 },

    [GCP_M_STORAGE_DURATION] = {
        "etcd_request_duration_seconds",
        "[ALPHA] Etcd request latency in seconds for each operation and "
        "object type.",
        GCP_METRIC_HISTOGRAM, gcp_l_storage, gcp_buckets(gcp_b_request),
        384, GCP_NS, GCP_MAIN, 0 },

    [GCP_M_STORAGE_REQUESTS] = {
        "etcd_requests_total",
        "[ALPHA] Etcd request counts for each operation and object type.",
        GCP_METRIC_COUNTER, gcp_l_storage, NULL, 0, 384, 1, GCP_MAIN, 0 },

    [GCP_M_STORAGE_ERRORS] = {
        "etcd_request_errors_total",
        "[ALPHA] Etcd failed request counts for each operation and object "
        "type.",
        GCP_METRIC_COUNTER, gcp_l_storage, NULL, 0, 256, 1, GCP_MAIN, 0 },

    [GCP_M_STORAGE_OBJECTS] = {
        "apiserver_storage_objects",
        "[STABLE] Number of stored objects at the time of last check split "
        "by kind.",
        GCP_METRIC_GAUGE, gcp_l_resource, NULL, 0, 256, 1, GCP_MAIN, 1 },

    [GCP_M_STORAGE_DB_SIZE] = {
        "apiserver_storage_db_total_size_in_bytes",
        "[ALPHA] (Deprecated since 1.28.0) Total size of the storage "
        "database file physically allocated in bytes.",
        GCP_METRIC_GAUGE, gcp_l_endpoint, NULL, 0, 8, 1, GCP_MAIN, 1 },

    [GCP_M_STORAGE_SIZE_BYTES] = {
        "apiserver_storage_size_bytes",
        "[ALPHA] Size of the storage database file physically allocated in "
        "bytes.",
        GCP_METRIC_GAUGE, gcp_l_cluster_id, NULL, 0, 8, 1, GCP_MAIN, 1 },

    [GCP_M_LMDB_COMMIT_BATCH] = {
        "ngx_gcp_lmdb_commit_batch_writes",
        "Writes made durable by one fdatasync of the LMDB group commit.",
        GCP_METRIC_HISTOGRAM, gcp_l_none, gcp_buckets(gcp_b_batch), 1, 1,
        GCP_MAIN, 0 },

    [GCP_M_LMDB_FSYNC_DURATION] = {
        "ngx_gcp_lmdb_fsync_duration_seconds",
        "Duration of the fdatasync of one LMDB group commit.",
        GCP_METRIC_HISTOGRAM, gcp_l_none, gcp_buckets(gcp_b_fsync), 1,
        GCP_NS, GCP_MAIN, 0 },

    [GCP_M_NOTIFY_LATENCY] = {
        "ngx_gcp_watch_notify_latency_seconds",
        "Time from a durable LMDB commit to a worker process waking up to "
        "deliver its events (cross-worker notification).",
        GCP_METRIC_HISTOGRAM, gcp_l_none, gcp_buckets(gcp_b_notify), 1,
        GCP_NS, GCP_MAIN, 0 },

    [GCP_M_MIRROR_REVISION] = {
        "ngx_gcp_etcd_mirror_revision",
        "The etcd revision the instance's mirror is at (gcp_storage etcd "
        "mirror=), the newest any process of the instance has seen.",
        GCP_METRIC_GAUGE, gcp_l_none, NULL, 0, 1, 1, GCP_MAIN, 1, 0 },

    [GCP_M_MIRROR_LAG] = {
        "ngx_gcp_etcd_mirror_lag_revisions",
        "How many revisions the instance's mirror is behind the newest etcd "
        "revision its processes know of (written by the instance, or seen "
        "by the feeder's watch stream); the largest of the processes.",
        GCP_METRIC_GAUGE, gcp_l_none, NULL, 0, 1, 1, GCP_MAIN, 1, 0 },

    [GCP_M_MIRROR_TAKEOVERS] = {
        "ngx_gcp_etcd_mirror_feeder_takeovers_total",
        "Times a process of the instance took the mirror's feeder lock "
        "(the first feeder included).",
        GCP_METRIC_COUNTER, gcp_l_none, NULL, 0, 1, 1, GCP_MAIN, 0 },

    [GCP_M_MIRROR_LOADS] = {
        "ngx_gcp_etcd_mirror_loads_total",
        "Full loads of the instance's mirror from an etcd range.",
        GCP_METRIC_COUNTER, gcp_l_none, NULL, 0, 1, 1, GCP_MAIN, 0 },

    [GCP_M_MIRROR_EVENTS] = {
        "ngx_gcp_etcd_mirror_events_total",
        "Changes of the prefix the feeder applied to the instance's mirror "
        "from its etcd watch stream.",
        GCP_METRIC_COUNTER, gcp_l_none, NULL, 0, 1, 1, GCP_MAIN, 0 },

    [GCP_M_ADMISSION_STEP] = {
        "apiserver_admission_step_admission_duration_seconds",
        "[STABLE] Admission sub-step latency histogram in seconds, broken "
        "out for each operation and API resource and step type (validate "
        "or admit).",
        GCP_METRIC_HISTOGRAM, gcp_l_step, gcp_buckets(gcp_b_admission), 32,
        GCP_NS, GCP_MAIN, 0 },

    [GCP_M_ADMISSION_CONTROLLER] = {
        "apiserver_admission_controller_admission_duration_seconds",
        "[STABLE] Admission controller latency histogram in seconds, "
        "identified by name and broken out for each operation and API "
        "resource and type (validate or admit).",
        GCP_METRIC_HISTOGRAM, gcp_l_controller,
        gcp_buckets(gcp_b_admission), 128, GCP_NS, GCP_MAIN, 0 },

    [GCP_M_ADMISSION_WEBHOOK] = {
        "apiserver_admission_webhook_admission_duration_seconds",
        "[STABLE] Admission webhook latency histogram in seconds, "
        "identified by name and broken out for each operation and API "
        "resource and type (validate or admit).",
        GCP_METRIC_HISTOGRAM, gcp_l_controller, gcp_buckets(gcp_b_webhook),
        256, GCP_NS, GCP_MAIN, 0 },

    [GCP_M_ADMISSION_WEBHOOK_REQUESTS] = {
        "apiserver_admission_webhook_request_total",
        "[ALPHA] Admission webhook request total, identified by name and "
        "broken out for each admission type (validating or mutating) and "
        "operation. Additional labels specify whether the request was "
        "rejected or not and an HTTP status code. Codes greater than 600 "
        "are truncated to 600, to keep the metrics cardinality bounded.",
        GCP_METRIC_COUNTER, gcp_l_wh_request, NULL, 0, 256, 1, GCP_MAIN,
        0 },

    [GCP_M_ADMISSION_WEBHOOK_REJECTIONS] = {
        "apiserver_admission_webhook_rejection_count",
        "[ALPHA] Admission webhook rejection count, identified by name and "
        "broken out for each admission type (validating or admit) and "
        "operation. Additional labels specify an error type "
        "(calling_webhook_error or apiserver_internal_error if an error "
        "occurred; no_error otherwise) and optionally a non-zero rejection "
        "code if the webhook rejects the request with an HTTP status code "
        "(honored by the apiserver when the code is greater or equal to "
        "400). Codes greater than 600 are truncated to 600, to keep the "
        "metrics cardinality bounded.",
        GCP_METRIC_COUNTER, gcp_l_wh_rejection, NULL, 0, 256, 1, GCP_MAIN,
        0 },

    [GCP_M_ADMISSION_WEBHOOK_FAIL_OPEN] = {
        "apiserver_admission_webhook_fail_open_count",
        "[ALPHA] Admission webhook fail open count, identified by name and "
        "broken out for each admission type (validating or mutating).",
        GCP_METRIC_COUNTER, gcp_l_wh_fail_open, NULL, 0, 128, 1, GCP_MAIN,
        0 },

    [GCP_M_AUTHN_USER_REQUESTS] = {
        "authenticated_user_requests",
        "[ALPHA] Counter of authenticated requests broken out by username.",
        GCP_METRIC_COUNTER, gcp_l_username, NULL, 0, 8, 1, GCP_MAIN, 0 },

    [GCP_M_AUTHN_ATTEMPTS] = {
        "authentication_attempts",
        "[ALPHA] Counter of authenticated attempts.",
        GCP_METRIC_COUNTER, gcp_l_result, NULL, 0, 4, 1, GCP_MAIN, 0 },

    [GCP_M_AUTHN_DURATION] = {
        "authentication_duration_seconds",
        "[ALPHA] Authentication duration in seconds broken out by result.",
        GCP_METRIC_HISTOGRAM, gcp_l_result, gcp_buckets(gcp_b_authn), 4,
        GCP_NS, GCP_MAIN, 0 },

    [GCP_M_AUTHZ_ATTEMPTS] = {
        "authorization_attempts_total",
        "[ALPHA] Counter of authorization attempts broken down by result. "
        "It can be either 'allowed', 'denied', 'no-opinion' or 'error'.",
        GCP_METRIC_COUNTER, gcp_l_result, NULL, 0, 4, 1, GCP_MAIN, 0 },

    [GCP_M_AUTHZ_DURATION] = {
        "authorization_duration_seconds",
        "[ALPHA] Authorization duration in seconds broken out by result.",
        GCP_METRIC_HISTOGRAM, gcp_l_result, gcp_buckets(gcp_b_authn), 4,
        GCP_NS, GCP_MAIN, 0 },

    [GCP_M_AUTHZ_DECISIONS] = {
        "apiserver_authorization_decisions_total",
        "[ALPHA] Total number of terminal decisions made by an authorizer "
        "split by authorizer type, name, and decision.",
        GCP_METRIC_COUNTER, gcp_l_decision, NULL, 0, 8, 1, GCP_MAIN, 0 },

    [GCP_M_APF_DISPATCHED] = {
        "apiserver_flowcontrol_dispatched_requests_total",
        "[BETA] Number of requests executed by API Priority and Fairness "
        "subsystem",
        GCP_METRIC_COUNTER, gcp_l_flow, NULL, 0, 128, 1, GCP_MAIN, 0 },

    [GCP_M_APF_REJECTED] = {
        "apiserver_flowcontrol_rejected_requests_total",
        "[BETA] Number of requests rejected by API Priority and Fairness "
        "subsystem",
        GCP_METRIC_COUNTER, gcp_l_flow_rejected, NULL, 0, 256, 1, GCP_MAIN,
        0 },

    [GCP_M_APF_INQUEUE] = {
        "apiserver_flowcontrol_current_inqueue_requests",
        "[BETA] Number of requests currently pending in queues of the API "
        "Priority and Fairness subsystem",
        GCP_METRIC_GAUGE, gcp_l_flow, NULL, 0, 128, 1, GCP_MAIN, 0 },

    [GCP_M_APF_EXECUTING] = {
        "apiserver_flowcontrol_current_executing_requests",
        "[BETA] Number of requests in initial (for a WATCH) or any (for a "
        "non-WATCH) execution stage in the API Priority and Fairness "
        "subsystem",
        GCP_METRIC_GAUGE, gcp_l_flow, NULL, 0, 128, 1, GCP_MAIN, 0 },

    [GCP_M_APF_EXECUTING_SEATS] = {
        "apiserver_flowcontrol_current_executing_seats",
        "[BETA] Concurrency (number of seats) occupied by the currently "
        "executing (initial stage for a WATCH, any stage otherwise) "
        "requests in the API Priority and Fairness subsystem",
        GCP_METRIC_GAUGE, gcp_l_flow, NULL, 0, 128, 1, GCP_MAIN, 0 },

    [GCP_M_APF_WAIT_DURATION] = {
        "apiserver_flowcontrol_request_wait_duration_seconds",
        "[BETA] Length of time a request spent waiting in its queue",
        GCP_METRIC_HISTOGRAM, gcp_l_flow_wait, gcp_buckets(gcp_b_apf_wait),
        256, GCP_NS, GCP_MAIN, 0 },

    [GCP_M_APF_EXECUTION_DURATION] = {
        "apiserver_flowcontrol_request_execution_seconds",
        "[ALPHA] Duration of initial stage (for a WATCH) or any (for a "
        "non-WATCH) stage of request execution in the API Priority and "
        "Fairness subsystem",
        GCP_METRIC_HISTOGRAM, gcp_l_flow_type, gcp_buckets(gcp_b_apf_wait),
        256, GCP_NS, GCP_MAIN, 0 },

    [GCP_M_APF_QUEUE_LENGTH] = {
        "apiserver_flowcontrol_request_queue_length_after_enqueue",
        "[ALPHA] Length of queue in the API Priority and Fairness "
        "subsystem, as seen by each request after it is enqueued",
        GCP_METRIC_HISTOGRAM, gcp_l_flow, gcp_buckets(gcp_b_apf_queue),
        128, 1, GCP_MAIN, 0 },

    [GCP_M_APF_INQUEUE_SEATS] = {
        "apiserver_flowcontrol_current_inqueue_seats",
        "[ALPHA] Number of seats currently pending in queues of the API "
        "Priority and Fairness subsystem",
        GCP_METRIC_GAUGE, gcp_l_flow, NULL, 0, 128, 1, GCP_MAIN, 0 },

    [GCP_M_APF_NOMINAL_LIMIT] = gcp_apf_level_gauge(
        "apiserver_flowcontrol_nominal_limit_seats",
        "[BETA] Nominal number of execution seats configured for each "
        "priority level"),

    [GCP_M_APF_LOWER_LIMIT] = gcp_apf_level_gauge(
        "apiserver_flowcontrol_lower_limit_seats",
        "[ALPHA] Configured lower bound on number of execution seats "
        "available to each priority level"),

    [GCP_M_APF_UPPER_LIMIT] = gcp_apf_level_gauge(
        "apiserver_flowcontrol_upper_limit_seats",
        "[ALPHA] Configured upper bound on number of execution seats "
        "available to each priority level"),

    [GCP_M_APF_CURRENT_LIMIT] = gcp_apf_level_gauge(
        "apiserver_flowcontrol_current_limit_seats",
        "[ALPHA] current derived number of execution seats available to "
        "each priority level"),

    [GCP_M_APF_DEMAND_HIGH] = gcp_apf_level_gauge(
        "apiserver_flowcontrol_demand_seats_high_watermark",
        "[ALPHA] High watermark, over last adjustment period, of "
        "demand_seats"),

    [GCP_M_APF_DEMAND_AVERAGE] = gcp_apf_level_gauge(
        "apiserver_flowcontrol_demand_seats_average",
        "[ALPHA] Time-weighted average, over last adjustment period, of "
        "demand_seats"),

    [GCP_M_APF_DEMAND_STDEV] = gcp_apf_level_gauge(
        "apiserver_flowcontrol_demand_seats_stdev",
        "[ALPHA] Time-weighted standard deviation, over last adjustment "
        "period, of demand_seats"),

    [GCP_M_APF_DEMAND_SMOOTHED] = gcp_apf_level_gauge(
        "apiserver_flowcontrol_demand_seats_smoothed",
        "[ALPHA] Smoothed seat demands"),

    [GCP_M_APF_TARGET_SEATS] = gcp_apf_level_gauge(
        "apiserver_flowcontrol_target_seats",
        "[ALPHA] Seat allocation targets"),

    [GCP_M_APF_CURRENT_R] = gcp_apf_level_gauge(
        "apiserver_flowcontrol_current_r",
        "[ALPHA] R(time of last change)"),

    [GCP_M_AUDIT_EVENTS] = {
        "apiserver_audit_event_total",
        "[ALPHA] Counter of audit events generated and sent to the audit "
        "backend.",
        GCP_METRIC_COUNTER, gcp_l_none, NULL, 0, 1, 1, GCP_MAIN, 0 },

    [GCP_M_AUDIT_LEVELS] = {
        "apiserver_audit_level_total",
        "[ALPHA] Counter of policy levels for audit events (1 per "
        "request).",
        GCP_METRIC_COUNTER, gcp_l_level, NULL, 0, 4, 1, GCP_MAIN, 0 },

    [GCP_M_AUDIT_ERRORS] = {
        "apiserver_audit_error_total",
        "[ALPHA] Counter of audit events that failed to be audited "
        "properly. Plugin identifies the plugin affected by the error.",
        GCP_METRIC_COUNTER, gcp_l_plugin, NULL, 0, 4, 1, GCP_MAIN, 0 },

    [GCP_M_AUDIT_REJECTED] = {
        "apiserver_audit_requests_rejected_total",
        "[ALPHA] Counter of apiserver requests rejected due to an error in "
        "audit logging backend.",
        GCP_METRIC_COUNTER, gcp_l_none, NULL, 0, 1, 1, GCP_MAIN, 0 },

    [GCP_M_WORKQUEUE_ADDS] = {
        "workqueue_adds_total",
        "[ALPHA] Total number of adds handled by workqueue",
        GCP_METRIC_COUNTER, gcp_l_name, NULL, 0, 32, 1, GCP_MAIN, 0 },

    [GCP_M_WORKQUEUE_DEPTH] = {
        "workqueue_depth",
        "[ALPHA] Current depth of workqueue",
        GCP_METRIC_GAUGE, gcp_l_name, NULL, 0, 32, 1, GCP_MAIN, 0 },

    [GCP_M_WORKQUEUE_QUEUE_DURATION] = {
        "workqueue_queue_duration_seconds",
        "[ALPHA] How long in seconds an item stays in workqueue before "
        "being requested.",
        GCP_METRIC_HISTOGRAM, gcp_l_name, gcp_buckets(gcp_b_workqueue), 32,
        GCP_NS, GCP_MAIN, 0 },

    [GCP_M_WORKQUEUE_WORK_DURATION] = {
        "workqueue_work_duration_seconds",
        "[ALPHA] How long in seconds processing an item from workqueue "
        "takes.",
        GCP_METRIC_HISTOGRAM, gcp_l_name, gcp_buckets(gcp_b_workqueue), 32,
        GCP_NS, GCP_MAIN, 0 },

    [GCP_M_WORKQUEUE_RETRIES] = {
        "workqueue_retries_total",
        "[ALPHA] Total number of retries handled by workqueue",
        GCP_METRIC_COUNTER, gcp_l_name, NULL, 0, 32, 1, GCP_MAIN, 0 },

    [GCP_M_LEADER] = {
        "leader_election_master_status",
        "[ALPHA] Gauge of if the reporting system is master of the relevant "
        "lease, 0 indicates backup, 1 indicates master. 'name' is the "
        "string used to identify the lease. Please make sure to group by "
        "name.",
        GCP_METRIC_GAUGE, gcp_l_name, NULL, 0, 4, 1, GCP_MAIN, 1 },

    [GCP_M_HEALTHCHECK] = {
        "kubernetes_healthcheck",
        "[BETA] This metric records the result of a single healthcheck.",
        GCP_METRIC_GAUGE, gcp_l_health, NULL, 0, 32, 1,
        GCP_METRICS_SET_SLIS, 1 },

    [GCP_M_HEALTHCHECKS_TOTAL] = {
        "kubernetes_healthchecks_total",
        "[BETA] This metric records the results of all healthcheck.",
        GCP_METRIC_COUNTER, gcp_l_health_total, NULL, 0, 64, 1,
        GCP_METRICS_SET_SLIS, 0 },

    [GCP_M_SERIES_OVERFLOW] = {
        "ngx_gcp_metrics_series_overflow_total",
        "Observations not recorded because their family already holds as "
        "many label sets as it may.",
        GCP_METRIC_COUNTER, gcp_l_family, NULL, 0, GCP_M_LAST, 1, GCP_MAIN,
        0 },
};


const gcp_metric_def_t *
gcp_metric_def(gcp_metric_id_t id)
{
    return &gcp_metric_defs[id];
}
