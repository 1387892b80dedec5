
/*
 * Metrics: counters, gauges and histograms shared by every process of an
 * nginx instance, exposed in Prometheus' text format (gcp_metrics_write()).
 *
 * Every family is defined once, in gcp_metrics_defs.c, with its label
 * names fixed there: the layout of the shared memory follows from those
 * definitions alone, so every process (and the next generation of workers
 * after a reload) finds each family at the same place.  A family keeps at
 * most max_series label sets; callers pass label values only from known
 * sets (the served resources, the verbs, status codes, ...), never from
 * what a client sends, and an observation that finds the table full is
 * counted in ngx_gcp_metrics_series_overflow_total instead.
 *
 * The memory is raw bytes handed over by the adapter (an nginx shared
 * zone): gcp_metrics_init() lays it out once, in the master, and every
 * process then gcp_metrics_attach()es to it.  Updates are lock-free
 * atomic additions; a label set is inserted with one compare-and-swap.
 * Counters and histograms are the instance's totals and survive reloads
 * (the zone does).  Gauges are kept per process and summed (or their
 * largest value taken) when exposed, so that what a process that exited
 * or crashed held (in-flight requests, watchers) goes away with it.
 *
 * A value the instance keeps elsewhere in shared memory (a limit that any
 * process may lower or raise) is a collected family instead: nothing of it
 * is kept here; the process answering the scrape asks its collectors
 * (gcp_metrics_collector_add()) for the current series, so that the
 * answer is the instance's value whichever process wrote it last, and a
 * series its source no longer has goes away.
 *
 * Before attaching (or when metrics are off) every update is a no-op.
 * Updates are thread-safe; attach, detach and the writer are for the
 * event loop's thread.
 */

#ifndef _GCP_METRICS_H_INCLUDED_
#define _GCP_METRICS_H_INCLUDED_


#include "gcp_core.h"


#define GCP_METRICS_MAX_LABELS   10
#define GCP_METRICS_MAX_BUCKETS  24
#define GCP_METRICS_PROCS        64     /* processes attached at once */
#define GCP_METRICS_KEY          448    /* bytes of label values */


typedef enum {
    GCP_METRIC_COUNTER = 0,
    GCP_METRIC_GAUGE,
    GCP_METRIC_HISTOGRAM
} gcp_metric_type_t;


/* Which endpoint shows a family. */
#define GCP_METRICS_SET_MAIN  0x1           /* /metrics */
#define GCP_METRICS_SET_SLIS  0x2           /* /metrics/slis */


typedef struct {
    const char          *name;      /* as exposed, e.g. counters end in */
                                    /* _total where upstream's do */
    const char          *help;
    gcp_metric_type_t    type;
    const char * const  *labels;    /* NULL-terminated, sorted by name */
    const double        *buckets;   /* histogram: ascending upper bounds */
    unsigned             nbuckets;  /* without +Inf */
    unsigned             max_series;
    double               scale;     /* stored integer units per 1: a */
                                    /* histogram's sum, a gauge's value */
    unsigned             set;       /* GCP_METRICS_SET_* */
    unsigned             gauge_max:1;   /* expose the largest value of */
                                        /* the processes, not the sum */
    unsigned             collected:1;   /* a gauge given at scrape time */
                                        /* by a collector, not kept */
} gcp_metric_def_t;


/* The families (gcp_metrics_defs.c). */
typedef enum {
    /* requests (server/gcp_api_observe.c) */
    GCP_M_REQUEST_TOTAL = 0,
    GCP_M_REQUEST_DURATION,
    GCP_M_RESPONSE_SIZES,
    GCP_M_INFLIGHT,
    GCP_M_LONGRUNNING,
    GCP_M_BUILD_INFO,

    /* watches (machinery/gcp_watch.c) */
    GCP_M_REGISTERED_WATCHERS,
    GCP_M_WATCH_EVENTS,
    GCP_M_WATCH_EVENT_SIZES,

    /* storage (backends/gcp_store_metrics.c, server/gcp_storage_stats.c) */
    GCP_M_STORAGE_DURATION,
    GCP_M_STORAGE_REQUESTS,
    GCP_M_STORAGE_ERRORS,
    GCP_M_STORAGE_OBJECTS,
    GCP_M_STORAGE_DB_SIZE,
    GCP_M_STORAGE_SIZE_BYTES,

    /* LMDB (backends/lmdb/) */
    GCP_M_LMDB_COMMIT_BATCH,
    GCP_M_LMDB_FSYNC_DURATION,
    GCP_M_NOTIFY_LATENCY,

    /* the etcd instance's mirror (backends/etcd/gcp_etcd_mirror*.c) */
    GCP_M_MIRROR_REVISION,
    GCP_M_MIRROR_LAG,
    GCP_M_MIRROR_TAKEOVERS,
    GCP_M_MIRROR_LOADS,
    GCP_M_MIRROR_EVENTS,

    /* admission (machinery/gcp_admission.c) */
    GCP_M_ADMISSION_STEP,
    GCP_M_ADMISSION_CONTROLLER,
    GCP_M_ADMISSION_WEBHOOK,
    GCP_M_ADMISSION_WEBHOOK_REQUESTS,
    GCP_M_ADMISSION_WEBHOOK_REJECTIONS,
    GCP_M_ADMISSION_WEBHOOK_FAIL_OPEN,

    /* authentication and authorization (authn/) */
    GCP_M_AUTHN_USER_REQUESTS,
    GCP_M_AUTHN_ATTEMPTS,
    GCP_M_AUTHN_DURATION,
    GCP_M_AUTHZ_ATTEMPTS,
    GCP_M_AUTHZ_DURATION,
    GCP_M_AUTHZ_DECISIONS,

    /* API Priority and Fairness (flowcontrol/gcp_apf_metrics.c) */
    GCP_M_APF_DISPATCHED,
    GCP_M_APF_REJECTED,
    GCP_M_APF_INQUEUE,
    GCP_M_APF_EXECUTING,
    GCP_M_APF_EXECUTING_SEATS,
    GCP_M_APF_WAIT_DURATION,
    GCP_M_APF_EXECUTION_DURATION,
    GCP_M_APF_QUEUE_LENGTH,
    GCP_M_APF_INQUEUE_SEATS,

    /* API Priority and Fairness, collected from its shared memory */
    GCP_M_APF_NOMINAL_LIMIT,
    GCP_M_APF_LOWER_LIMIT,
    GCP_M_APF_UPPER_LIMIT,
    GCP_M_APF_CURRENT_LIMIT,
    GCP_M_APF_DEMAND_HIGH,
    GCP_M_APF_DEMAND_AVERAGE,
    GCP_M_APF_DEMAND_STDEV,
    GCP_M_APF_DEMAND_SMOOTHED,
    GCP_M_APF_TARGET_SEATS,
    GCP_M_APF_CURRENT_R,

    /* audit (audit/) */
    GCP_M_AUDIT_EVENTS,
    GCP_M_AUDIT_LEVELS,
    GCP_M_AUDIT_ERRORS,
    GCP_M_AUDIT_REJECTED,

    /* controllers (controllers/) */
    GCP_M_WORKQUEUE_ADDS,
    GCP_M_WORKQUEUE_DEPTH,
    GCP_M_WORKQUEUE_QUEUE_DURATION,
    GCP_M_WORKQUEUE_WORK_DURATION,
    GCP_M_WORKQUEUE_RETRIES,
    GCP_M_LEADER,

    /* health checks (server/gcp_health.c), /metrics/slis */
    GCP_M_HEALTHCHECK,
    GCP_M_HEALTHCHECKS_TOTAL,

    /* the registry itself */
    GCP_M_SERIES_OVERFLOW,

    GCP_M_LAST
} gcp_metric_id_t;


/* Returns the definition of a family (static). */
const gcp_metric_def_t *gcp_metric_def(gcp_metric_id_t id);


/* shared memory */

/* Returns the bytes the shared memory needs for every family. */
size_t gcp_metrics_size(void);

/*
 * Lays the shared memory out (size bytes from gcp_metrics_size(), zeroed
 * or already laid out): memory laid out by the same definitions keeps its
 * values (a reload), anything else is cleared.  Returns 1 when the values
 * were kept, 0 when cleared.  For one process before the others attach.
 */
int gcp_metrics_init(void *mem, size_t size);

/*
 * Makes this process update and expose the metrics in mem, laid out by
 * gcp_metrics_init(), and takes a process slot for its gauges.  Returns
 * GCP_OK, or GCP_EINVALID with *err (static) when mem is not laid out
 * by these definitions.
 */
int gcp_metrics_attach(void *mem, size_t size, const char **err);

/* Gives the process slot back (its gauges drop to 0) and stops. */
void gcp_metrics_detach(void);

/* Returns 1 when this process is attached. */
int gcp_metrics_on(void);


/* updates: labels are the values, in the order of the family's names */

/*
 * counter += n (n >= 0); gauge: this process's value += n (any sign).
 * Updates of a collected family are ignored.
 */
void gcp_metric_add(gcp_metric_id_t id, const char * const *labels,
    int64_t n);

#define gcp_metric_inc(id, labels)  gcp_metric_add(id, labels, 1)

/* gauge: sets this process's value (in the family's units) */
void gcp_metric_set(gcp_metric_id_t id, const char * const *labels,
    double v);

/* histogram: one observation */
void gcp_metric_observe(gcp_metric_id_t id, const char * const *labels,
    double v);


/* collected families */

typedef struct gcp_metrics_scrape_s  gcp_metrics_scrape_t;

/* Adds the current series of the collected families it knows to s. */
typedef void (*gcp_metrics_collect_pt)(gcp_metrics_scrape_t *s, void *data);

/*
 * Makes this process's scrapes call fn(s, data) (a few collectors at a
 * time; fn and data added twice are called once).  Returns GCP_OK, or
 * GCP_ENOMEM when every place is taken.  gcp_metrics_collector_del()
 * undoes one gcp_metrics_collector_add() of fn and data.  For the event
 * loop's thread.
 */
int gcp_metrics_collector_add(gcp_metrics_collect_pt fn, void *data);
void gcp_metrics_collector_del(gcp_metrics_collect_pt fn, void *data);

/*
 * In a collector: the series of collected family id with the label values
 * (in the order of the family's names) has value v.  Beyond the family's
 * max_series, or with values too long, it is counted in
 * ngx_gcp_metrics_series_overflow_total instead.
 */
void gcp_metrics_put(gcp_metrics_scrape_t *s, gcp_metric_id_t id,
    const char * const *labels, double v);


/* exposition */

#define GCP_METRICS_OPENMETRICS  0x100      /* OpenMetrics 1.0.0 */

/*
 * Appends the families of set (GCP_METRICS_SET_*) to b in Prometheus'
 * text format 0.0.4, or OpenMetrics with GCP_METRICS_OPENMETRICS in
 * flags: families sorted by name, series by label values, histogram
 * buckets cumulative and ending with +Inf equal to _count; process_*
 * metrics with the main set; "# EOF" closes OpenMetrics.  The collectors
 * are called first (their series in b->arena).  Nothing when not
 * attached.
 */
void gcp_metrics_write(gcp_buf_t *b, unsigned set, unsigned flags);

/* Content-Type of what gcp_metrics_write() wrote with flags. */
const char *gcp_metrics_content_type(unsigned flags);


#endif /* _GCP_METRICS_H_INCLUDED_ */
