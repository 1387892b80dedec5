
/*
 * The shared memory of the metrics, as gcp_metrics.c lays it out and
 * gcp_metrics_text.c and gcp_metrics_process.c read it.
 *
 *   header: magic, the layout's signature, the processes attached, the
 *           offset of each family's table
 *   per family: max_series slots of a fixed size: state, hash, the label
 *           values (NUL-separated), then the values: a counter's count;
 *           a gauge's value per process slot; a histogram's count per
 *           bucket (+Inf last) and its sum, in 1/scale units
 *
 * A collected family has no table: its series are slots of the same shape
 * made for one scrape in its arena (gcp_metrics_collect.c), the value a
 * double in the bytes of v[0].
 */

#ifndef _GCP_METRICS_INT_H_INCLUDED_
#define _GCP_METRICS_INT_H_INCLUDED_


#include <sys/types.h>

#include "gcp_metrics.h"


#define GCP_METRICS_FREE     0
#define GCP_METRICS_WRITING  1
#define GCP_METRICS_READY    2


typedef struct {
    uint64_t   magic;
    uint64_t   sig;
    uint64_t   size;
    int64_t    start_time;          /* unix seconds, first laid out */
    int32_t    procs[GCP_METRICS_PROCS];   /* pid; 0 free; -1 reclaimed */
    uint64_t   offsets[GCP_M_LAST];
} gcp_metrics_hdr_t;


typedef struct {
    uint32_t   state;               /* GCP_METRICS_FREE, ... */
    uint32_t   hash;
    uint32_t   keylen;
    uint32_t   reserved;
    char       key[GCP_METRICS_KEY];
    int64_t    v[];                 /* see above */
} gcp_metric_slot_t;


/* This process's view. */
typedef struct {
    gcp_metrics_hdr_t  *hdr;
    char               *base;
    int                 proc;       /* slot of this process, -1: none */
    pid_t               pid;
} gcp_metrics_proc_t;


extern gcp_metrics_proc_t  gcp_metrics_self;


/* Values per slot of a family. */
size_t gcp_metrics_nvalues(const gcp_metric_def_t *d);

/* Bytes per slot of a family (multiple of 8). */
size_t gcp_metrics_slot_size(const gcp_metric_def_t *d);

/* Slot i of family id. */
gcp_metric_slot_t *gcp_metrics_slot(gcp_metric_id_t id, size_t i);

/*
 * Frees the process slots whose process is gone (their gauges drop to
 * 0).  Returns the number freed.
 */
unsigned gcp_metrics_reclaim(void);

/*
 * Appends Go's strconv.FormatFloat(v, 'g', -1, 64) (the shortest text
 * that reads back as v: "0.005", "1e+06", "+Inf"); om adds ".0" to an
 * integral value, as OpenMetrics' writer does.
 */
void gcp_metrics_add_float(gcp_buf_t *b, double v, int om);

/*
 * Writes the process_* families: the instance's worker processes summed
 * (CPU, memory, descriptors), its start time.
 */
void gcp_metrics_process_write(gcp_buf_t *b, unsigned flags);

/*
 * Writes the key of the label values of family d (NUL-separated, missing
 * values empty) to key (GCP_METRICS_KEY bytes) and its length to *len.
 * Returns GCP_OK, or GCP_EINVALID when they do not fit.
 */
int gcp_metrics_key(const gcp_metric_def_t *d, const char * const *labels,
    char *key, size_t *len);


/* The series of the collected families for one scrape. */
struct gcp_metrics_scrape_s {
    gcp_arena_t         *arena;
    gcp_metric_slot_t  **slots[GCP_M_LAST];    /* max_series each, lazily */
    size_t               n[GCP_M_LAST];
};

/*
 * Returns a scrape in a (its series too) after calling every collector of
 * this process with it, or NULL when out of memory.
 */
gcp_metrics_scrape_t *gcp_metrics_collect(gcp_arena_t *a);

/* Returns the value of a slot made by gcp_metrics_put(). */
double gcp_metrics_collected_value(const gcp_metric_slot_t *s);


/* Writes "# HELP" and "# TYPE" lines of a family. */
void gcp_metrics_write_head(gcp_buf_t *b, const char *name,
    const char *help, gcp_metric_type_t type, unsigned flags);


#endif /* _GCP_METRICS_INT_H_INCLUDED_ */
