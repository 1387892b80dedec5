
/*
 * The metrics in shared memory: layout, processes, label sets and updates
 * (see gcp_metrics.h and gcp_metrics_int.h).
 */

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "gcp_metrics_int.h"


#define GCP_METRICS_MAGIC    0x676370206d657472ULL     /* "gcp metr" */
#define GCP_METRICS_VERSION  1
#define GCP_METRICS_ALIGN    64
#define GCP_METRICS_SPINS    4096

#define gcp_metrics_align(n)                                                 \
    (((n) + GCP_METRICS_ALIGN - 1) & ~((size_t) GCP_METRICS_ALIGN - 1))


gcp_metrics_proc_t  gcp_metrics_self = { NULL, NULL, -1, 0 };


size_t
gcp_metrics_nvalues(const gcp_metric_def_t *d)
{
    switch (d->type) {

    case GCP_METRIC_GAUGE:
        return GCP_METRICS_PROCS;

    case GCP_METRIC_HISTOGRAM:
        return d->nbuckets + 2;     /* the buckets, +Inf, the sum */

    default:
        return 1;
    }
}


size_t
gcp_metrics_slot_size(const gcp_metric_def_t *d)
{
    return sizeof(gcp_metric_slot_t) + gcp_metrics_nvalues(d)
                                       * sizeof(int64_t);
}


static size_t
gcp_metrics_hdr_size(void)
{
    return gcp_metrics_align(sizeof(gcp_metrics_hdr_t));
}


static size_t
gcp_metrics_table_size(const gcp_metric_def_t *d)
{
    if (d->collected) {
        return 0;
    }

    return gcp_metrics_align(d->max_series * gcp_metrics_slot_size(d));
}


size_t
gcp_metrics_size(void)
{
    size_t  size;
    int     id;

    size = gcp_metrics_hdr_size();

    for (id = 0; id < GCP_M_LAST; id++) {
        size += gcp_metrics_table_size(gcp_metric_def(id));
    }

    return size;
}


/* FNV-1a, 64 bits */

static uint64_t
gcp_metrics_fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char  *s = p;

    while (n--) {
        h ^= *s++;
        h *= 0x100000001b3ULL;
    }

    return h;
}


/* The hash of a key, 8 bytes at a time (every update computes one). */

static uint32_t
gcp_metrics_hash(const char *p, size_t n)
{
    uint64_t  h, w;

    h = 0x9e3779b97f4a7c15ULL ^ n;

    for ( /* void */ ; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }

    w = 0;
    memcpy(&w, p, n);

    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 29;

    return (uint32_t) h;
}


/* The signature of the layout: every definition, the sizes. */

static uint64_t
gcp_metrics_signature(void)
{
    int                      id;
    size_t                   v[5];
    uint64_t                 h;
    const char * const      *l;
    const gcp_metric_def_t  *d;

    h = 0xcbf29ce484222325ULL;

    v[0] = GCP_METRICS_VERSION;
    v[1] = sizeof(gcp_metrics_hdr_t);
    v[2] = sizeof(gcp_metric_slot_t);
    v[3] = GCP_METRICS_PROCS;
    v[4] = GCP_M_LAST;
    h = gcp_metrics_fnv(h, v, sizeof(v));

    for (id = 0; id < GCP_M_LAST; id++) {
        d = gcp_metric_def(id);

        h = gcp_metrics_fnv(h, d->name, strlen(d->name) + 1);

        for (l = d->labels; *l; l++) {
            h = gcp_metrics_fnv(h, *l, strlen(*l) + 1);
        }

        v[0] = d->type;
        v[1] = d->nbuckets;
        v[2] = d->max_series;
        v[3] = (size_t) d->scale;
        v[4] = d->gauge_max | (d->collected << 1);
        h = gcp_metrics_fnv(h, v, sizeof(v));

        if (d->nbuckets) {
            h = gcp_metrics_fnv(h, d->buckets, d->nbuckets * sizeof(double));
        }
    }

    return h;
}


static int
gcp_metrics_valid(const gcp_metrics_hdr_t *hdr, size_t size)
{
    return hdr->magic == GCP_METRICS_MAGIC
           && hdr->sig == gcp_metrics_signature()
           && hdr->size == size;
}


int
gcp_metrics_init(void *mem, size_t size)
{
    int                 id;
    size_t              off;
    gcp_metrics_hdr_t  *hdr = mem;

    if (gcp_metrics_valid(hdr, size)) {
        return 1;
    }

    memset(mem, 0, size);

    off = gcp_metrics_hdr_size();

    for (id = 0; id < GCP_M_LAST; id++) {
        hdr->offsets[id] = off;
        off += gcp_metrics_table_size(gcp_metric_def(id));
    }

    hdr->start_time = (int64_t) time(NULL);
    hdr->size = size;
    hdr->sig = gcp_metrics_signature();

    __atomic_store_n(&hdr->magic, GCP_METRICS_MAGIC, __ATOMIC_RELEASE);

    return 0;
}


gcp_metric_slot_t *
gcp_metrics_slot(gcp_metric_id_t id, size_t i)
{
    gcp_metrics_proc_t  *m = &gcp_metrics_self;

    return (gcp_metric_slot_t *) (m->base + m->hdr->offsets[id]
                                  + i * gcp_metrics_slot_size(
                                            gcp_metric_def(id)));
}


/* processes */


static int
gcp_metrics_alive(pid_t pid)
{
    return kill(pid, 0) == 0 || errno != ESRCH;
}


/* Zeroes what process slot p holds in every gauge. */

static void
gcp_metrics_clear_proc(int p)
{
    int                      id;
    size_t                   i;
    gcp_metric_slot_t       *s;
    const gcp_metric_def_t  *d;

    for (id = 0; id < GCP_M_LAST; id++) {
        d = gcp_metric_def(id);

        if (d->type != GCP_METRIC_GAUGE || d->collected) {
            continue;
        }

        for (i = 0; i < d->max_series; i++) {
            s = gcp_metrics_slot(id, i);
            __atomic_store_n(&s->v[p], 0, __ATOMIC_RELAXED);
        }
    }
}


unsigned
gcp_metrics_reclaim(void)
{
    int                 p;
    int32_t             pid;
    unsigned            n;
    gcp_metrics_hdr_t  *hdr = gcp_metrics_self.hdr;

    n = 0;

    for (p = 0; p < GCP_METRICS_PROCS; p++) {
        pid = __atomic_load_n(&hdr->procs[p], __ATOMIC_ACQUIRE);

        if (pid <= 0 || gcp_metrics_alive(pid)) {
            continue;
        }

        /* -1 keeps claimers away while the values are cleared */

        if (!__atomic_compare_exchange_n(&hdr->procs[p], &pid, -1, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        {
            continue;
        }

        gcp_metrics_clear_proc(p);
        __atomic_store_n(&hdr->procs[p], 0, __ATOMIC_RELEASE);
        n++;
    }

    return n;
}


static int
gcp_metrics_claim(gcp_metrics_hdr_t *hdr, int32_t pid)
{
    int      p;
    int32_t  free;

    for (p = 0; p < GCP_METRICS_PROCS; p++) {
        free = 0;

        if (__atomic_compare_exchange_n(&hdr->procs[p], &free, pid, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        {
            return p;
        }
    }

    return -1;
}


int
gcp_metrics_attach(void *mem, size_t size, const char **err)
{
    gcp_metrics_hdr_t   *hdr = mem;
    gcp_metrics_proc_t  *m = &gcp_metrics_self;

    if (__atomic_load_n(&hdr->magic, __ATOMIC_ACQUIRE) != GCP_METRICS_MAGIC
        || !gcp_metrics_valid(hdr, size))
    {
        *err = "the metrics memory is laid out for other definitions";
        return GCP_EINVALID;
    }

    m->hdr = hdr;
    m->base = mem;
    m->pid = getpid();

    m->proc = gcp_metrics_claim(hdr, (int32_t) m->pid);

    if (m->proc < 0 && gcp_metrics_reclaim()) {
        m->proc = gcp_metrics_claim(hdr, (int32_t) m->pid);
    }

    /* without a slot the gauges of this process are not counted */

    return GCP_OK;
}


void
gcp_metrics_detach(void)
{
    gcp_metrics_proc_t  *m = &gcp_metrics_self;

    if (m->hdr == NULL) {
        return;
    }

    if (m->proc >= 0) {
        gcp_metrics_clear_proc(m->proc);
        __atomic_store_n(&m->hdr->procs[m->proc], 0, __ATOMIC_RELEASE);
    }

    m->hdr = NULL;
    m->base = NULL;
    m->proc = -1;
}


int
gcp_metrics_on(void)
{
    return gcp_metrics_self.hdr != NULL;
}


/* label sets */


int
gcp_metrics_key(const gcp_metric_def_t *d, const char * const *labels,
    char *key, size_t *len)
{
    size_t               n, i, l;
    const char          *v;
    const char * const  *name;

    l = 0;

    for (name = d->labels, i = 0; *name; name++, i++) {
        v = labels[i] ? labels[i] : "";
        n = strlen(v);

        if (l + n + (i ? 1 : 0) > GCP_METRICS_KEY) {
            return GCP_EINVALID;
        }

        if (i) {
            key[l++] = '\0';
        }

        memcpy(key + l, v, n);
        l += n;
    }

    *len = l;

    return GCP_OK;
}


/*
 * Returns the slot of family id for the label values, inserting them
 * when new; NULL when the family is full (counted) or the values do not
 * fit a key.
 */

static gcp_metric_slot_t *
gcp_metrics_series(gcp_metric_id_t id, const char * const *labels)
{
    char                     key[GCP_METRICS_KEY];
    size_t                   len, i, probe;
    uint32_t                 hash, state;
    unsigned                 spins;
    gcp_metric_slot_t       *s;
    const gcp_metric_def_t  *d;

    d = gcp_metric_def(id);

    if (gcp_metrics_key(d, labels, key, &len) != GCP_OK) {
        goto full;
    }

    hash = gcp_metrics_hash(key, len);

    i = hash % d->max_series;

    for (probe = 0; probe < d->max_series; probe++) {
        s = gcp_metrics_slot(id, i);

        for (spins = 0; ; spins++) {
            state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);

            if (state == GCP_METRICS_READY) {
                if (s->hash == hash && s->keylen == len
                    && memcmp(s->key, key, len) == 0)
                {
                    return s;
                }

                break;
            }

            if (state == GCP_METRICS_FREE) {
                if (!__atomic_compare_exchange_n(&s->state, &state,
                                                 GCP_METRICS_WRITING, 0,
                                                 __ATOMIC_ACQ_REL,
                                                 __ATOMIC_ACQUIRE))
                {
                    continue;       /* someone else took it: look again */
                }

                s->hash = hash;
                s->keylen = (uint32_t) len;
                memcpy(s->key, key, len);

                __atomic_store_n(&s->state, GCP_METRICS_READY,
                                 __ATOMIC_RELEASE);
                return s;
            }

            /*
             * being written: a few stores away, unless its process died
             * in between; then the slot is skipped for good
             */

            if (spins == GCP_METRICS_SPINS) {
                break;
            }
        }

        i = (i + 1) % d->max_series;
    }

full:

    if (id != GCP_M_SERIES_OVERFLOW) {
        gcp_metric_inc(GCP_M_SERIES_OVERFLOW, &d->name);
    }

    return NULL;
}


/* updates */


void
gcp_metric_add(gcp_metric_id_t id, const char * const *labels, int64_t n)
{
    gcp_metric_slot_t       *s;
    const gcp_metric_def_t  *d;

    if (gcp_metrics_self.hdr == NULL) {
        return;
    }

    d = gcp_metric_def(id);

    if ((d->type == GCP_METRIC_GAUGE && gcp_metrics_self.proc < 0)
        || d->collected)
    {
        return;
    }

    s = gcp_metrics_series(id, labels);
    if (s == NULL) {
        return;
    }

    if (d->type == GCP_METRIC_GAUGE) {
        __atomic_add_fetch(&s->v[gcp_metrics_self.proc], n,
                           __ATOMIC_RELAXED);
        return;
    }

    __atomic_add_fetch(&s->v[0], n, __ATOMIC_RELAXED);
}


void
gcp_metric_set(gcp_metric_id_t id, const char * const *labels, double v)
{
    gcp_metric_slot_t       *s;
    const gcp_metric_def_t  *d;

    if (gcp_metrics_self.hdr == NULL || gcp_metrics_self.proc < 0) {
        return;
    }

    d = gcp_metric_def(id);

    if (d->collected) {
        return;
    }

    s = gcp_metrics_series(id, labels);
    if (s == NULL) {
        return;
    }

    __atomic_store_n(&s->v[gcp_metrics_self.proc], (int64_t) llround(
                         v * d->scale), __ATOMIC_RELAXED);
}


void
gcp_metric_observe(gcp_metric_id_t id, const char * const *labels, double v)
{
    unsigned                 b;
    gcp_metric_slot_t       *s;
    const gcp_metric_def_t  *d;

    if (gcp_metrics_self.hdr == NULL) {
        return;
    }

    d = gcp_metric_def(id);

    if (d->collected) {
        return;
    }

    s = gcp_metrics_series(id, labels);
    if (s == NULL) {
        return;
    }

    for (b = 0; b < d->nbuckets && v > d->buckets[b]; b++) {
        /* void */
    }

    __atomic_add_fetch(&s->v[b], 1, __ATOMIC_RELAXED);

    if (v > 0 && isfinite(v)) {
        __atomic_add_fetch(&s->v[d->nbuckets + 1],
                           (int64_t) llround(v * d->scale),
                           __ATOMIC_RELAXED);
    }
}
