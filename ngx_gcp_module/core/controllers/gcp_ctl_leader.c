
/*
 * Lease-based leader election (see gcp_ctl_leader.h).
 */

#include <stdlib.h>

#include "gcp_client.h"
#include "gcp_ctl_leader.h"
#include "gcp_json.h"
#include "gcp_metrics.h"
#include "gcp_object.h"
#include "gcp_op.h"
#include "gcp_rand.h"
#include "gcp_time.h"


struct gcp_ctl_leader_s {
    gcp_api_t               *api;
    gcp_loop_t              *loop;
    gcp_ctl_leader_conf_t    conf;

    gcp_loop_timer_t        *timer;
    gcp_arena_t             *arena;         /* of the call in flight */

    char                    *observed;      /* the spec last seen, JSON */
    uint64_t                 observed_ms;   /* when it changed */
    uint64_t                 renewed_ms;    /* our last successful write */

    void                   (*done)(void *arg);
    void                    *done_arg;

    unsigned                 leading:1;
    unsigned                 stopped:1;
};


static void gcp_ctl_leader_tick(void *arg);


static void
gcp_ctl_leader_free(gcp_ctl_leader_t *le)
{
    if (le->done) {
        le->done(le->done_arg);
    }

    free(le->observed);
    free(le);
}


static void
gcp_ctl_leader_schedule(gcp_ctl_leader_t *le)
{
    uint64_t  ms;
    uint8_t   r;

    /* client-go waits retryPeriod, with up to 20% jitter */

    r = 0;
    gcp_rand_bytes(&r, 1);
    ms = le->conf.retry_ms + le->conf.retry_ms * r / 1280;

    le->timer = le->loop->timer_add(le->loop, ms, gcp_ctl_leader_tick, le);
}


/* Records the spec we saw (or wrote); a change restarts its clock. */
static void
gcp_ctl_leader_observe(gcp_ctl_leader_t *le, const json_t *spec)
{
    char  *s;

    s = json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS);
    if (s == NULL) {
        return;
    }

    if (le->observed && strcmp(le->observed, s) == 0) {
        free(s);
        return;
    }

    free(le->observed);
    le->observed = s;
    le->observed_ms = le->loop->now_ms(le->loop);
}


/* leader_election_master_status{name} */

static void
gcp_ctl_leader_status(gcp_ctl_leader_t *le)
{
    const char  *v[2];

    v[0] = le->conf.name;
    v[1] = NULL;

    gcp_metric_set(GCP_M_LEADER, v, le->leading ? 1 : 0);
}


static void
gcp_ctl_leader_end(gcp_ctl_leader_t *le, int won)
{
    uint64_t  now;

    gcp_arena_destroy(le->arena);
    le->arena = NULL;

    if (le->stopped) {
        gcp_ctl_leader_free(le);
        return;
    }

    now = le->loop->now_ms(le->loop);

    if (won) {
        le->renewed_ms = now;

        if (!le->leading) {
            le->leading = 1;
            le->conf.started(le->conf.arg);
        }

    } else if (le->leading && now - le->renewed_ms >= le->conf.renew_ms) {
        le->leading = 0;
        le->conf.stopped(le->conf.arg);
    }

    gcp_ctl_leader_status(le);
    gcp_ctl_leader_schedule(le);
}


/* The spec we want: ours, keeping acquireTime while we hold the lease. */
static json_t *
gcp_ctl_leader_record(gcp_ctl_leader_t *le, const json_t *old)
{
    json_t           *spec, *v;
    const char       *holder, *now;
    json_int_t        transitions;
    struct timespec   ts;

    ts = gcp_time_now();
    now = gcp_time_micro_str(le->arena, &ts);

    holder = json_string_value(json_object_get(old, "holderIdentity"));
    transitions = json_integer_value(json_object_get(old,
                                                     "leaseTransitions"));

    spec = gcp_json_arena(le->arena, json_object());
    if (spec == NULL || now == NULL) {
        return NULL;
    }

    json_object_set_new(spec, "holderIdentity",
                        json_string(le->conf.identity));
    json_object_set_new(spec, "leaseDurationSeconds",
                        json_integer((json_int_t) (le->conf.lease_ms + 999)
                                     / 1000));

    v = json_object_get(old, "acquireTime");

    if (holder && strcmp(holder, le->conf.identity) == 0 && v) {
        json_object_set(spec, "acquireTime", v);

    } else {
        json_object_set_new(spec, "acquireTime", json_string(now));

        if (old) {
            transitions++;
        }
    }

    json_object_set_new(spec, "renewTime", json_string(now));
    json_object_set_new(spec, "leaseTransitions", json_integer(transitions));

    return spec;
}


static const char *
gcp_ctl_leader_path(gcp_ctl_leader_t *le, int item)
{
    return gcp_sprintf(le->arena, "/apis/coordination.k8s.io/v1/namespaces/"
                       "%s/leases%s%s", le->conf.ns, item ? "/" : "",
                       item ? le->conf.name : "");
}


static void
gcp_ctl_leader_written(void *arg, gcp_client_resp_t *resp)
{
    json_t            *spec;
    gcp_ctl_leader_t  *le = arg;

    if (resp->status == 200 || resp->status == 201) {
        spec = json_object_get(resp->json, "spec");

        if (spec) {
            gcp_ctl_leader_observe(le, spec);
        }

        gcp_ctl_leader_end(le, 1);
        return;
    }

    /* 409: someone else wrote first */

    gcp_ctl_leader_end(le, 0);
}


static void
gcp_ctl_leader_write(gcp_ctl_leader_t *le, json_t *lease, const json_t *old)
{
    char    *body;
    json_t  *spec;

    spec = gcp_ctl_leader_record(le, old);
    if (spec == NULL) {
        gcp_ctl_leader_end(le, 0);
        return;
    }

    json_object_set(lease, "spec", spec);

    body = json_dumps(lease, JSON_COMPACT);
    if (body == NULL) {
        gcp_ctl_leader_end(le, 0);
        return;
    }

    gcp_client_call(le->api, le->arena, old ? "PUT" : "POST",
                    gcp_ctl_leader_path(le, old != NULL), NULL,
                    gcp_strdup(le->arena, body), NULL,
                    gcp_ctl_leader_written, le);
    free(body);
}


static void
gcp_ctl_leader_got(void *arg, gcp_client_resp_t *resp)
{
    json_t            *lease, *spec;
    uint64_t           now, duration;
    const char        *holder;
    gcp_ctl_leader_t  *le = arg;

    if (le->stopped) {
        gcp_ctl_leader_end(le, 0);
        return;
    }

    if (resp->status == 404) {
        lease = gcp_json_arena(le->arena,
                               json_pack("{s:s, s:s, s:{s:s, s:s}}",
                                         "apiVersion",
                                         "coordination.k8s.io/v1",
                                         "kind", "Lease", "metadata",
                                         "name", le->conf.name,
                                         "namespace", le->conf.ns));
        if (lease == NULL) {
            gcp_ctl_leader_end(le, 0);
            return;
        }

        gcp_ctl_leader_write(le, lease, NULL);
        return;
    }

    if (resp->status != 200 || !json_is_object(resp->json)) {
        gcp_ctl_leader_end(le, 0);
        return;
    }

    lease = resp->json;
    spec = json_object_get(lease, "spec");

    if (!json_is_object(spec)) {
        spec = json_object();
        json_object_set_new(lease, "spec", spec);
    }

    gcp_ctl_leader_observe(le, spec);

    holder = json_string_value(json_object_get(spec, "holderIdentity"));
    duration = (uint64_t) json_integer_value(
                   json_object_get(spec, "leaseDurationSeconds")) * 1000;
    now = le->loop->now_ms(le->loop);

    if (holder && holder[0] && strcmp(holder, le->conf.identity) != 0
        && le->observed_ms + duration > now)
    {
        /* held by another, and renewed within its duration as we see it */
        gcp_ctl_leader_end(le, 0);
        return;
    }

    gcp_ctl_leader_write(le, lease,
                         gcp_json_arena(le->arena, json_deep_copy(spec)));
}


static void
gcp_ctl_leader_tick(void *arg)
{
    gcp_ctl_leader_t  *le = arg;

    le->timer = NULL;

    le->arena = gcp_arena_create(0);
    if (le->arena == NULL) {
        gcp_ctl_leader_schedule(le);
        return;
    }

    gcp_client_call(le->api, le->arena, "GET", gcp_ctl_leader_path(le, 1),
                    NULL, NULL, NULL, gcp_ctl_leader_got, le);
}


gcp_ctl_leader_t *
gcp_ctl_leader_start(gcp_api_t *api, const gcp_ctl_leader_conf_t *conf)
{
    gcp_ctl_leader_t  *le;

    le = calloc(1, sizeof(gcp_ctl_leader_t));
    if (le == NULL) {
        return NULL;
    }

    le->api = api;
    le->loop = api->conf.loop;
    le->conf = *conf;

    /* the first attempt at once */

    le->timer = le->loop->timer_add(le->loop, 0, gcp_ctl_leader_tick, le);

    if (le->timer == NULL) {
        free(le);
        return NULL;
    }

    return le;
}


void
gcp_ctl_leader_stop(gcp_ctl_leader_t *le, void (*done)(void *arg),
    void *arg)
{
    le->stopped = 1;
    le->done = done;
    le->done_arg = arg;

    if (le->timer) {
        le->loop->timer_del(le->loop, le->timer);
        le->timer = NULL;
    }

    if (le->arena == NULL) {
        gcp_ctl_leader_free(le);
    }
}


int
gcp_ctl_leader_leading(const gcp_ctl_leader_t *le)
{
    return le->leading;
}
