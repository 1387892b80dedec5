
/*
 * The apiserver_flowcontrol_* metrics of a request (see gcp_apf_metrics.h).
 * Label values are the names of the instance's FlowSchemas and priority
 * levels, objects only those allowed to write flowcontrol objects create;
 * each family keeps a bounded number of series (gcp_metrics.h).
 */

#include "gcp_apf_metrics.h"
#include "gcp_time.h"


void
gcp_apf_metrics_arrive(gcp_apf_metrics_t *am, gcp_arena_t *a,
    const gcp_fc_match_t *m, int seats, const char *verb)
{
    if (!gcp_metrics_on()) {
        return;
    }

    am->labels[0] = gcp_strdup(a, m->flow_schema);
    am->labels[1] = gcp_strdup(a, m->level);
    am->labels[2] = NULL;

    if (am->labels[0] == NULL || am->labels[1] == NULL) {
        return;
    }

    am->arrived_ns = gcp_time_mono_ns();
    am->seats = seats > 0 ? seats : 1;
    am->watch = strcmp(verb, "watch") == 0;
    am->on = 1;
}


void
gcp_apf_metrics_enqueued(gcp_apf_metrics_t *am, int queue_length)
{
    if (am->on) {
        gcp_metric_observe(GCP_M_APF_QUEUE_LENGTH, am->labels,
                           queue_length);
    }
}


void
gcp_apf_metrics_queued(gcp_apf_metrics_t *am)
{
    if (am->on) {
        am->queued = 1;
        gcp_metric_add(GCP_M_APF_INQUEUE, am->labels, 1);
        gcp_metric_add(GCP_M_APF_INQUEUE_SEATS, am->labels, am->seats);
    }
}


/* out of its queue if it was in one; the time waited, by execute */

static void
gcp_apf_metrics_left(gcp_apf_metrics_t *am, const char *execute)
{
    const char  *v[4];

    if (am->queued) {
        am->queued = 0;
        gcp_metric_add(GCP_M_APF_INQUEUE, am->labels, -1);
        gcp_metric_add(GCP_M_APF_INQUEUE_SEATS, am->labels, -am->seats);
    }

    /* execute, flow_schema, priority_level */

    v[0] = execute;
    v[1] = am->labels[0];
    v[2] = am->labels[1];
    v[3] = NULL;

    gcp_metric_observe(GCP_M_APF_WAIT_DURATION, v,
                       (double) (gcp_time_mono_ns() - am->arrived_ns) / 1e9);
}


void
gcp_apf_metrics_dispatched(gcp_apf_metrics_t *am)
{
    if (!am->on) {
        return;
    }

    gcp_apf_metrics_left(am, "true");

    gcp_metric_inc(GCP_M_APF_DISPATCHED, am->labels);

    am->started_ns = gcp_time_mono_ns();
    am->executing = 1;
    gcp_metric_add(GCP_M_APF_EXECUTING, am->labels, 1);
    gcp_metric_add(GCP_M_APF_EXECUTING_SEATS, am->labels, am->seats);
}


void
gcp_apf_metrics_rejected(gcp_apf_metrics_t *am, const char *reason)
{
    const char  *v[4];

    if (!am->on) {
        return;
    }

    gcp_apf_metrics_left(am, "false");

    /* flow_schema, priority_level, reason */

    v[0] = am->labels[0];
    v[1] = am->labels[1];
    v[2] = reason;
    v[3] = NULL;

    gcp_metric_inc(GCP_M_APF_REJECTED, v);
}


void
gcp_apf_metrics_finished(gcp_apf_metrics_t *am)
{
    const char  *v[4];

    if (!am->executing) {
        return;
    }

    am->executing = 0;
    gcp_metric_add(GCP_M_APF_EXECUTING, am->labels, -1);
    gcp_metric_add(GCP_M_APF_EXECUTING_SEATS, am->labels, -am->seats);

    /* flow_schema, priority_level, type (upstream's: the verb watch or */
    /* regular) */

    v[0] = am->labels[0];
    v[1] = am->labels[1];
    v[2] = am->watch ? "watch" : "regular";
    v[3] = NULL;

    gcp_metric_observe(GCP_M_APF_EXECUTION_DURATION, v,
                       (double) (gcp_time_mono_ns() - am->started_ns) / 1e9);
}


void
gcp_apf_metrics_collect(gcp_metrics_scrape_t *s, void *data)
{
    int                    i;
    const char            *v[2];
    gcp_apf_shm_t         *sh = data;
    gcp_apf_level_stat_t   st;

    v[1] = NULL;

    for (i = 0; i < GCP_APF_MAX_LEVELS; i++) {
        if (!gcp_apf_shm_level_stat(sh, i, &st)) {
            continue;
        }

        v[0] = st.name;

        gcp_metrics_put(s, GCP_M_APF_NOMINAL_LIMIT, v, st.nominal_cl);
        gcp_metrics_put(s, GCP_M_APF_LOWER_LIMIT, v, st.min_cl);
        gcp_metrics_put(s, GCP_M_APF_UPPER_LIMIT, v, st.max_cl);
        gcp_metrics_put(s, GCP_M_APF_CURRENT_LIMIT, v, st.current_cl);

        if (!st.exempt) {
            gcp_metrics_put(s, GCP_M_APF_CURRENT_R, v, st.current_r);
        }

        if (st.adjusted) {
            gcp_metrics_put(s, GCP_M_APF_DEMAND_HIGH, v, st.demand_high);
            gcp_metrics_put(s, GCP_M_APF_DEMAND_AVERAGE, v, st.demand_avg);
            gcp_metrics_put(s, GCP_M_APF_DEMAND_STDEV, v, st.demand_stdev);
            gcp_metrics_put(s, GCP_M_APF_DEMAND_SMOOTHED, v,
                            st.demand_smoothed);
            gcp_metrics_put(s, GCP_M_APF_TARGET_SEATS, v, st.target);
        }
    }
}
