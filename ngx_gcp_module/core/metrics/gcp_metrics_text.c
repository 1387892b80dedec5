
/*
 * The exposition formats: Prometheus text 0.0.4, as client_golang's
 * expfmt writes it (what kube-apiserver serves), and OpenMetrics 1.0.0.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_metrics_int.h"


#define GCP_METRICS_PROCESS  GCP_M_LAST     /* process_* in the order */


/* One series as exposed: its values summed over duplicate slots. */
typedef struct {
    const gcp_metric_slot_t  *slot;
    double                    value;        /* counter, gauge */
    uint64_t                  counts[GCP_METRICS_MAX_BUCKETS + 1];
    double                    sum;
} gcp_metrics_series_t;


void
gcp_metrics_add_float(gcp_buf_t *b, double v, int om)
{
    int    prec, exp;
    char   buf[40];
    char  *e;

    if (isnan(v)) {
        gcp_buf_addstr(b, "NaN");
        return;
    }

    if (isinf(v)) {
        gcp_buf_addstr(b, v > 0 ? "+Inf" : "-Inf");
        return;
    }

    /* the fewest digits that read back as v */

    for (prec = 1; prec < 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*e", prec - 1, v);

        if (strtod(buf, NULL) == v) {
            break;
        }
    }

    snprintf(buf, sizeof(buf), "%.*e", prec - 1, v);

    e = strchr(buf, 'e');
    exp = e ? atoi(e + 1) : 0;

    /* Go's 'g' with the shortest precision: %e when exp < -4 || exp >= 6 */

    if (exp >= -4 && exp < 6) {
        snprintf(buf, sizeof(buf), "%.*f", prec - 1 - exp > 0
                                           ? prec - 1 - exp : 0, v);
    }

    gcp_buf_addstr(b, buf);

    if (om && strpbrk(buf, ".e") == NULL) {
        gcp_buf_addstr(b, ".0");
    }
}


/* text with \, newline (and " when quote) escaped */

static void
gcp_metrics_add_escaped(gcp_buf_t *b, const char *s, size_t len, int quote)
{
    size_t  i, start;

    start = 0;

    for (i = 0; i < len; i++) {
        if (s[i] != '\\' && s[i] != '\n' && (!quote || s[i] != '"')) {
            continue;
        }

        gcp_buf_add(b, s + start, i - start);
        gcp_buf_addstr(b, s[i] == '\\' ? "\\\\" : s[i] == '\n' ? "\\n"
                                                              : "\\\"");
        start = i + 1;
    }

    gcp_buf_add(b, s + start, len - start);
}


void
gcp_metrics_write_head(gcp_buf_t *b, const char *name, const char *help,
    gcp_metric_type_t type, unsigned flags)
{
    size_t       len;
    int          om;
    const char  *kind;

    om = (flags & GCP_METRICS_OPENMETRICS) != 0;
    len = strlen(name);

    /* OpenMetrics names a counter family without its _total */

    if (om && type == GCP_METRIC_COUNTER && len > 6
        && strcmp(name + len - 6, "_total") == 0)
    {
        len -= 6;
    }

    kind = type == GCP_METRIC_COUNTER ? "counter"
           : type == GCP_METRIC_GAUGE ? "gauge" : "histogram";

    gcp_buf_addstr(b, "# HELP ");
    gcp_buf_add(b, name, len);
    gcp_buf_addc(b, ' ');
    gcp_metrics_add_escaped(b, help, strlen(help), om);
    gcp_buf_addstr(b, "\n# TYPE ");
    gcp_buf_add(b, name, len);
    gcp_buf_printf(b, " %s\n", kind);
}


/*
 * name{labels[,le="x"]} where the label values come from the slot's key;
 * suffix is appended to name ("_bucket", ...).
 */

static void
gcp_metrics_add_labels(gcp_buf_t *b, const gcp_metric_def_t *d,
    const gcp_metric_slot_t *s, const char *suffix, const char *le)
{
    size_t        n;
    unsigned      i;
    const char   *v, *end;

    gcp_buf_addstr(b, d->name);
    gcp_buf_addstr(b, suffix);

    if (d->labels[0] == NULL && le == NULL) {
        gcp_buf_addc(b, ' ');
        return;
    }

    gcp_buf_addc(b, '{');

    v = s->key;
    end = s->key + s->keylen;

    for (i = 0; d->labels[i]; i++) {
        n = strnlen(v, end - v);

        gcp_buf_printf(b, "%s%s=\"", i ? "," : "", d->labels[i]);
        gcp_metrics_add_escaped(b, v, n, 1);
        gcp_buf_addc(b, '"');

        v += n + (v + n < end ? 1 : 0);
    }

    if (le) {
        gcp_buf_printf(b, "%sle=\"%s\"", i ? "," : "", le);
    }

    gcp_buf_addstr(b, "} ");
}


static void
gcp_metrics_read(const gcp_metric_def_t *d, const gcp_metric_slot_t *s,
    gcp_metrics_series_t *out)
{
    int       p;
    unsigned  i;
    int64_t   v, best;
    int32_t   pid;

    switch (d->type) {

    case GCP_METRIC_COUNTER:
        out->value += (double) (uint64_t) __atomic_load_n(&s->v[0],
                                                          __ATOMIC_RELAXED);
        return;

    case GCP_METRIC_GAUGE:
        if (d->collected) {
            out->value += gcp_metrics_collected_value(s);
            return;
        }

        best = 0;
        v = 0;

        for (p = 0; p < GCP_METRICS_PROCS; p++) {
            pid = __atomic_load_n(&gcp_metrics_self.hdr->procs[p],
                                  __ATOMIC_RELAXED);
            if (pid <= 0) {
                continue;
            }

            if (d->gauge_max) {
                v = __atomic_load_n(&s->v[p], __ATOMIC_RELAXED);
                best = v > best ? v : best;

            } else {
                best += __atomic_load_n(&s->v[p], __ATOMIC_RELAXED);
            }
        }

        out->value += (double) best / d->scale;
        return;

    default:
        for (i = 0; i <= d->nbuckets; i++) {
            out->counts[i] += (uint64_t) __atomic_load_n(&s->v[i],
                                                         __ATOMIC_RELAXED);
        }

        out->sum += (double) __atomic_load_n(&s->v[d->nbuckets + 1],
                                             __ATOMIC_RELAXED) / d->scale;
    }
}


static void
gcp_metrics_write_series(gcp_buf_t *b, const gcp_metric_def_t *d,
    const gcp_metrics_series_t *se, unsigned flags)
{
    int          om;
    unsigned     i;
    uint64_t     count;
    gcp_buf_t    le;
    const char  *suffix;

    om = (flags & GCP_METRICS_OPENMETRICS) != 0;

    if (d->type != GCP_METRIC_HISTOGRAM) {
        /* OpenMetrics: every counter sample ends in _total */
        suffix = om && d->type == GCP_METRIC_COUNTER
                 && strcmp(d->name + strlen(d->name) - 6, "_total") != 0
                 ? "_total" : "";

        gcp_metrics_add_labels(b, d, se->slot, suffix, NULL);
        gcp_metrics_add_float(b, se->value, om);
        gcp_buf_addc(b, '\n');
        return;
    }

    count = 0;

    for (i = 0; i <= d->nbuckets; i++) {
        count += se->counts[i];

        gcp_buf_init(&le, b->arena);

        if (i < d->nbuckets) {
            gcp_metrics_add_float(&le, d->buckets[i], om);

        } else {
            gcp_buf_addstr(&le, "+Inf");
        }

        gcp_metrics_add_labels(b, d, se->slot, "_bucket", gcp_buf_cstr(&le));

        if (om) {
            gcp_buf_add_int(b, (int64_t) count);

        } else {
            gcp_metrics_add_float(b, (double) count, 0);
        }

        gcp_buf_addc(b, '\n');
    }

    gcp_metrics_add_labels(b, d, se->slot, "_sum", NULL);
    gcp_metrics_add_float(b, se->sum, om);
    gcp_buf_addc(b, '\n');

    gcp_metrics_add_labels(b, d, se->slot, "_count", NULL);

    if (om) {
        gcp_buf_add_int(b, (int64_t) count);

    } else {
        gcp_metrics_add_float(b, (double) count, 0);
    }

    gcp_buf_addc(b, '\n');
}


static int
gcp_metrics_key_cmp(const void *a, const void *b)
{
    const gcp_metric_slot_t  *x = *(gcp_metric_slot_t * const *) a;
    const gcp_metric_slot_t  *y = *(gcp_metric_slot_t * const *) b;
    int                       rc;

    rc = memcmp(x->key, y->key, gcp_min(x->keylen, y->keylen));

    if (rc) {
        return rc;
    }

    return (x->keylen > y->keylen) - (x->keylen < y->keylen);
}


static void
gcp_metrics_write_family(gcp_buf_t *b, gcp_metric_id_t id, unsigned flags,
    gcp_metric_slot_t **slots, const gcp_metrics_scrape_t *scrape)
{
    size_t                   i, n;
    gcp_metric_slot_t       *s;
    gcp_metrics_series_t     se;
    const gcp_metric_def_t  *d;

    d = gcp_metric_def(id);

    n = 0;

    for (i = 0; d->collected && i < scrape->n[id]; i++) {
        slots[n++] = scrape->slots[id][i];
    }

    for (i = 0; !d->collected && i < d->max_series; i++) {
        s = gcp_metrics_slot(id, i);

        if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE)
            == GCP_METRICS_READY)
        {
            slots[n++] = s;
        }
    }

    if (n == 0) {
        return;
    }

    qsort(slots, n, sizeof(gcp_metric_slot_t *), gcp_metrics_key_cmp);

    gcp_metrics_write_head(b, d->name, d->help, d->type, flags);

    for (i = 0; i < n; i++) {
        memset(&se, 0, sizeof(se));
        se.slot = slots[i];

        gcp_metrics_read(d, slots[i], &se);

        /* a label set inserted twice (its writer died mid-way) is merged */

        while (i + 1 < n && gcp_metrics_key_cmp(&slots[i], &slots[i + 1])
                            == 0)
        {
            gcp_metrics_read(d, slots[++i], &se);
        }

        gcp_metrics_write_series(b, d, &se, flags);
    }
}


static const char *
gcp_metrics_order_name(int id)
{
    return id == GCP_METRICS_PROCESS ? "process_"
                                     : gcp_metric_def(id)->name;
}


static int
gcp_metrics_name_cmp(const void *a, const void *b)
{
    return strcmp(gcp_metrics_order_name(*(const int *) a),
                  gcp_metrics_order_name(*(const int *) b));
}


void
gcp_metrics_write(gcp_buf_t *b, unsigned set, unsigned flags)
{
    int                    i;
    size_t                 most;
    gcp_metric_slot_t    **slots;
    gcp_metrics_scrape_t  *scrape;
    int                    order[GCP_M_LAST + 1];

    if (!gcp_metrics_on()) {
        return;
    }

    gcp_metrics_reclaim();

    scrape = gcp_metrics_collect(b->arena);
    if (scrape == NULL) {
        b->failed = 1;
        return;
    }

    most = 0;

    for (i = 0; i <= GCP_M_LAST; i++) {
        order[i] = i;

        if (i < GCP_M_LAST) {
            most = gcp_max(most, gcp_metric_def(i)->max_series);
        }
    }

    qsort(order, GCP_M_LAST + 1, sizeof(int), gcp_metrics_name_cmp);

    slots = malloc(most * sizeof(gcp_metric_slot_t *));
    if (slots == NULL) {
        b->failed = 1;
        return;
    }

    for (i = 0; i <= GCP_M_LAST; i++) {
        if (order[i] == GCP_METRICS_PROCESS) {
            if (set & GCP_METRICS_SET_MAIN) {
                gcp_metrics_process_write(b, flags);
            }

            continue;
        }

        if (gcp_metric_def(order[i])->set & set) {
            gcp_metrics_write_family(b, order[i], flags, slots, scrape);
        }
    }

    free(slots);

    if (flags & GCP_METRICS_OPENMETRICS) {
        gcp_buf_addstr(b, "# EOF\n");
    }
}


const char *
gcp_metrics_content_type(unsigned flags)
{
    return (flags & GCP_METRICS_OPENMETRICS)
           ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
           : "text/plain; version=0.0.4; charset=utf-8";
}
