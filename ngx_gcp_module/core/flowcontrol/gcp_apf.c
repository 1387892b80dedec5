
/*
 * API Priority and Fairness in a worker (see gcp_apf.h): the
 * configuration kept from the store, the request step, the wakeups from
 * the region, and the periodic borrowing.
 */

#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "gcp_apf.h"
#include "gcp_apf_metrics.h"
#include "gcp_apf_shm.h"
#include "gcp_auth.h"
#include "gcp_fc_config.h"
#include "gcp_fc_types.h"
#include "gcp_mirror.h"
#include "gcp_registry.h"
#include "gcp_time.h"


#define GCP_APF_PREFIX      "/registry/" GCP_FC_GROUP "/"
#define GCP_APF_TAKE        64
#define GCP_APF_MIN_SEATS   1
#define GCP_APF_MAX_SEATS   10      /* the work estimator's limit */
#define GCP_APF_PER_SEAT    100     /* objects per seat of a list */

#define GCP_APF_TOO_MANY    "Too many requests, please try again later.\n"


typedef enum {
    GCP_APF_WAITING = 1,
    GCP_APF_RUNNING,
    GCP_APF_OVER
} gcp_apf_phase_t;


typedef struct gcp_apf_req_s  gcp_apf_req_t;

struct gcp_apf_s {
    gcp_api_t            *api;
    gcp_loop_t           *loop;
    gcp_apf_shm_t        *shm;
    int                   slot;
    unsigned              off:1;
    unsigned              collector:1;  /* gcp_apf_metrics_collect() */

    gcp_mirror_t         *mirror;
    gcp_fc_config_t      *config;
    gcp_apf_counts_t     *counts;

    gcp_loop_fd_t        *wakeup;
    gcp_loop_timer_t     *adjust;

    gcp_apf_req_t       **waiting;      /* by record */
    int32_t               nrecords;
};


struct gcp_apf_req_s {
    gcp_apf_t            *apf;
    gcp_op_t             *op;
    gcp_apf_next_pt       next;
    gcp_request_done_pt   done;         /* the adapter's */
    gcp_apf_place_t       place;
    int                   level;
    gcp_loop_timer_t     *timer;
    gcp_apf_phase_t       phase;
    gcp_apf_metrics_t     metrics;
    unsigned              seat:1;       /* a place to finish */
    unsigned              inflight:1;   /* APF off: an inflight seat */
    unsigned              mutating:1;
};


static uint64_t
gcp_apf_now(void)
{
    return (uint64_t) gcp_time_mono_ns();
}


/* configuration */


/* m: the mirror of the store's objects (NULL or not ready: none yet) */

static void
gcp_apf_configure(gcp_apf_t *apf, gcp_mirror_t *m)
{
    size_t                        n;
    const gcp_kv_t               *kvs;
    gcp_fc_config_t              *c;
    const gcp_apf_level_conf_t   *levels;

    n = m && gcp_mirror_ready(m) ? gcp_mirror_entries(m, &kvs) : 0;

    c = gcp_fc_config_build(n ? kvs : NULL, n);
    if (c == NULL) {
        return;
    }

    gcp_fc_config_free(apf->config);
    apf->config = c;

    if (apf->shm) {
        n = gcp_fc_config_levels(c, &levels);
        gcp_apf_shm_configure(apf->shm, m ? gcp_mirror_revision(m) : 0,
                              levels, n, gcp_apf_now());
    }
}


/* (the LMDB store lists before gcp_mirror_create() returns) */

static void
gcp_apf_changed(gcp_mirror_t *m, void *arg)
{
    gcp_apf_configure(arg, m);
}


/* the periodic borrowing: whichever worker comes first */
static void
gcp_apf_adjust(void *arg)
{
    gcp_apf_t  *apf = arg;

    apf->adjust = apf->loop->timer_add(apf->loop, GCP_APF_ADJUST_NS / 1000000,
                                       gcp_apf_adjust, apf);

    gcp_apf_shm_adjust(apf->shm, gcp_apf_now(), 0);
}


/* requests */


static void gcp_apf_run(gcp_apf_req_t *st);


static void
gcp_apf_done(gcp_request_t *req, gcp_response_t *resp)
{
    gcp_op_t       *op = (gcp_op_t *) req->call;
    gcp_apf_req_t  *st = op->flow;

    req->done = st->done;
    st->phase = GCP_APF_OVER;

    gcp_apf_metrics_finished(&st->metrics);

    if (st->seat) {
        st->seat = 0;
        gcp_apf_shm_finish(st->apf->shm, &st->place, gcp_apf_now());
    }

    if (st->inflight) {
        st->inflight = 0;
        gcp_apf_shm_inflight_done(st->apf->shm, st->mutating);
    }

    req->done(req, resp);
}


/* The request goes on, holding its seats until its response starts. */
static void
gcp_apf_go(gcp_apf_req_t *st)
{
    gcp_op_t  *op = st->op;

    st->phase = GCP_APF_RUNNING;
    st->done = op->req->done;

    gcp_apf_metrics_dispatched(&st->metrics);

    op->req->done = gcp_apf_done;

    st->next(op);
}


static void
gcp_apf_reject(gcp_op_t *op, int64_t retry_after)
{
    char  ra[24];

    snprintf(ra, sizeof(ra), "%lld", (long long) retry_after);

    gcp_op_header(op, "Retry-After", ra);
    gcp_op_text(op, 429, GCP_APF_TOO_MANY);
}


static int64_t
gcp_apf_drop(gcp_apf_req_t *st)
{
    return gcp_apf_shm_drop(st->apf->shm, st->level,
                            (int64_t) time(NULL));
}


static void
gcp_apf_expire(void *arg)
{
    gcp_apf_req_t  *st = arg;
    gcp_apf_t      *apf = st->apf;

    st->timer = NULL;

    if (st->phase != GCP_APF_WAITING) {
        return;
    }

    if (gcp_apf_shm_leave(apf->shm, &st->place, 1, gcp_apf_now())) {
        apf->waiting[st->place.rec] = NULL;
        st->phase = GCP_APF_OVER;
        gcp_apf_metrics_rejected(&st->metrics, GCP_APF_REJECT_TIME_OUT);
        gcp_apf_reject(st->op, gcp_apf_drop(st));
        return;
    }

    /* dispatched meanwhile: its wakeup is on the way */
    gcp_apf_run(st);
}


/* A queued request dispatched: it goes on. */
static void
gcp_apf_run(gcp_apf_req_t *st)
{
    gcp_apf_t  *apf = st->apf;

    apf->waiting[st->place.rec] = NULL;

    if (st->timer) {
        apf->loop->timer_del(apf->loop, st->timer);
        st->timer = NULL;
    }

    st->seat = 1;
    gcp_apf_go(st);
}


static void
gcp_apf_wakeup(void *arg, int fd, unsigned events)
{
    size_t            i, n;
    uint64_t          v;
    gcp_apf_t        *apf = arg;
    gcp_apf_req_t    *st;
    gcp_apf_place_t   places[GCP_APF_TAKE];

    if (read(fd, &v, sizeof(v)) == -1 && errno != EAGAIN) {
        return;
    }

    do {
        n = gcp_apf_shm_take(apf->shm, apf->slot, places, GCP_APF_TAKE);

        for (i = 0; i < n; i++) {
            st = apf->waiting[places[i].rec];

            /* else: it went away or timed out already */

            if (st && st->place.token == places[i].token
                && st->phase == GCP_APF_WAITING)
            {
                gcp_apf_run(st);
            }
        }

    } while (n == GCP_APF_TAKE);
}


/* long-running requests (upstream's BasicLongRunningRequestCheck) */
static int
gcp_apf_long_running(const gcp_reqinfo_t *ri)
{
    size_t  i;

    static const char * const  subs[] = {
        "attach", "exec", "proxy", "log", "portforward"
    };

    if (strcmp(ri->verb, "watch") == 0 || strcmp(ri->verb, "proxy") == 0) {
        return 1;
    }

    for (i = 0; ri->is_resource && i < gcp_nelems(subs); i++) {
        if (strcmp(ri->subresource, subs[i]) == 0) {
            return 1;
        }
    }

    return 0;
}


static int
gcp_apf_readonly(const char *verb)
{
    return strcmp(verb, "get") == 0 || strcmp(verb, "list") == 0
           || strcmp(verb, "watch") == 0;
}


/* APF off: upstream's WithMaxInFlightLimit */
static void
gcp_apf_inflight(gcp_apf_t *apf, gcp_op_t *op, gcp_apf_next_pt next)
{
    int             mutating;
    gcp_apf_req_t  *st;

    if (apf->shm == NULL || gcp_apf_long_running(&op->ri)) {
        next(op);
        return;
    }

    mutating = !gcp_apf_readonly(op->ri.verb);

    if (!gcp_apf_shm_inflight(apf->shm, mutating)) {
        /* system:masters always get an answer */
        if (gcp_user_in_group(op->req->user, GCP_AUTH_MASTERS)) {
            next(op);
            return;
        }

        gcp_apf_reject(op, 1);
        return;
    }

    st = gcp_calloc(op->a, sizeof(gcp_apf_req_t));
    if (st == NULL) {
        gcp_apf_shm_inflight_done(apf->shm, mutating);
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    st->apf = apf;
    st->op = op;
    st->next = next;
    st->inflight = 1;
    st->mutating = mutating;
    op->flow = st;

    gcp_apf_go(st);
}


/*
 * Go's time.ParseDuration for ?timeout: decimal numbers with units (ns,
 * us, µs, ms, s, m, h), e.g. "1m30s".  Returns milliseconds, or -1.
 */
static int64_t
gcp_apf_duration_ms(const char *s)
{
    char    *end;
    double   v, ms;
    size_t   i;

    static const struct {
        const char  *unit;
        double       ms;
    } units[] = {
        { "ns", 1e-6 }, { "us", 1e-3 }, { "\xc2\xb5s", 1e-3 },
        { "ms", 1 }, { "s", 1e3 }, { "m", 6e4 }, { "h", 3.6e6 }
    };

    ms = 0;

    if (*s == '\0') {
        return -1;
    }

    while (*s) {
        if (*s == '-' || *s == '+') {
            return -1;
        }

        v = strtod(s, &end);
        if (end == s) {
            return -1;
        }

        s = end;

        for (i = 0; i < gcp_nelems(units); i++) {
            if (strncmp(s, units[i].unit, strlen(units[i].unit)) == 0
                && (strcmp(units[i].unit, "m") != 0 || s[1] != 's'))
            {
                break;
            }
        }

        if (i == gcp_nelems(units)) {
            return -1;
        }

        ms += v * units[i].ms;
        s += strlen(units[i].unit);
    }

    return (int64_t) ms;
}


/*
 * How long a request may wait in a queue: a quarter of its deadline (the
 * ?timeout of requests that are not long-running), at most a minute;
 * 15 seconds by default.
 */
static uint64_t
gcp_apf_wait_ms(gcp_op_t *op)
{
    int64_t      ms;
    const char  *t;

    t = gcp_query_get(&op->q, "timeout");

    if (t && !gcp_apf_long_running(&op->ri)) {
        ms = gcp_apf_duration_ms(t);

        if (ms > 0) {
            return (uint64_t) gcp_min(ms / 4, GCP_APF_MAX_WAIT_MS);
        }
    }

    return GCP_APF_WAIT_MS;
}


/*
 * The seats of a list or watch (upstream's listWorkEstimator): one per
 * hundred objects it goes through, from 1 to max.
 */
static int
gcp_apf_list_seats(gcp_apf_t *apf, gcp_op_t *op, int max)
{
    char                  *end;
    int64_t                stored, limit, n, objects;
    int                    from_cache, storage;
    const char            *v, *rv, *match;
    const gcp_resource_t  *res;

    if (strcmp(op->ri.verb, "watch") == 0) {
        v = gcp_query_get(&op->q, "sendInitialEvents");

        if (v == NULL || strcmp(v, "true") != 0) {
            return GCP_APF_MIN_SEATS;
        }
    }

    limit = 0;
    v = gcp_query_get(&op->q, "limit");

    if (v && *v) {
        errno = 0;
        limit = strtoll(v, &end, 10);

        if (*end != '\0' || errno) {
            return max;
        }
    }

    res = gcp_registry_find(apf->api->registry, op->ri.group, op->ri.version,
                            op->ri.resource);
    stored = gcp_apf_counts_get(apf->counts, res);

    if (stored < 0) {
        /* not counted: the minimum, as upstream for unknown counts */
        return GCP_APF_MIN_SEATS;
    }

    n = limit > 0 && limit < stored ? limit : stored;

    rv = gcp_query_get(&op->q, "resourceVersion");
    rv = rv ? rv : "";
    match = gcp_query_get(&op->q, "resourceVersionMatch");
    match = match ? match : "";

    /* shouldListFromStorage, with consistent lists served from cache */
    storage = (gcp_query_get(&op->q, "continue")
               && gcp_query_get(&op->q, "continue")[0])
              || (limit > 0 && strcmp(rv, "0") != 0)
              || (match[0] && strcmp(match, "NotOlderThan") != 0);

    from_cache = strcmp(op->ri.verb, "watch") == 0 || !storage;

    if (from_cache) {
        objects = stored;

    } else if ((gcp_query_get(&op->q, "labelSelector")
                && gcp_query_get(&op->q, "labelSelector")[0])
               || (gcp_query_get(&op->q, "fieldSelector")
                   && gcp_query_get(&op->q, "fieldSelector")[0]))
    {
        objects = stored + n;

    } else {
        objects = 2 * n;
    }

    n = (objects + GCP_APF_PER_SEAT - 1) / GCP_APF_PER_SEAT;

    return (int) gcp_max(GCP_APF_MIN_SEATS, gcp_min(n, max));
}


static int
gcp_apf_seats(gcp_apf_t *apf, gcp_op_t *op, int max_seats)
{
    int  max;

    max = max_seats <= 0 || max_seats > GCP_APF_MAX_SEATS ? GCP_APF_MAX_SEATS
                                                          : max_seats;

    if (op->ri.is_resource && (strcmp(op->ri.verb, "list") == 0
                               || strcmp(op->ri.verb, "watch") == 0))
    {
        return gcp_apf_list_seats(apf, op, max);
    }

    return GCP_APF_MIN_SEATS;
}


static void
gcp_apf_details(gcp_op_t *op, const gcp_fc_match_t *m, gcp_apf_details_t *d)
{
    const gcp_reqinfo_t  *ri = &op->ri;

    d->flow_schema = m->flow_schema;
    d->distinguisher = m->distinguisher;
    d->user = op->req->user && op->req->user->name ? op->req->user->name
                                                   : "";
    d->verb = ri->verb;
    d->path = ri->path;
    d->ns = ri->is_resource ? ri->ns : "";
    d->name = ri->is_resource ? ri->name : "";
    d->api_version = ri->is_resource
                     ? gcp_sprintf(op->a, "%s/%s", ri->group, ri->version)
                     : "";
    d->resource = ri->is_resource ? ri->resource : "";
    d->subresource = ri->is_resource ? ri->subresource : "";
}


void
gcp_apf_admit(gcp_op_t *op, gcp_apf_next_pt next)
{
    int                  max_seats;
    gcp_apf_t           *apf = op->api->apf;
    gcp_apf_req_t       *st;
    gcp_apf_decision_t   decision;
    gcp_fc_match_t       m;
    gcp_fc_request_t     r;
    gcp_apf_ticket_t     t;
    gcp_apf_details_t    d;
    const gcp_reqinfo_t *ri = &op->ri;

    if (apf && apf->off) {
        gcp_apf_inflight(apf, op, next);
        return;
    }

    if (apf == NULL || apf->config == NULL) {
        next(op);
        return;
    }

    if (gcp_apf_long_running(ri) && strcmp(ri->verb, "watch") != 0) {
        next(op);
        return;
    }

    memset(&r, 0, sizeof(r));
    r.user = op->req->user;
    r.resource = ri->is_resource;
    r.verb = ri->verb;
    r.group = ri->group ? ri->group : "";
    r.resource_name = ri->resource ? ri->resource : "";
    r.subresource = ri->subresource ? ri->subresource : "";
    r.ns = ri->ns ? ri->ns : "";
    r.path = ri->path;

    if (gcp_fc_classify(apf->config, &r, &m) != GCP_OK) {
        gcp_op_error(op, GCP_EINTERNAL, NULL, NULL);
        return;
    }

    gcp_op_header(op, GCP_APF_HEADER_FS, m.flow_schema_uid);
    gcp_op_header(op, GCP_APF_HEADER_PL, m.level_uid);

    if (apf->shm == NULL) {
        next(op);
        return;
    }

    st = gcp_calloc(op->a, sizeof(gcp_apf_req_t));
    if (st == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return;
    }

    st->apf = apf;
    st->op = op;
    st->next = next;
    op->flow = st;

    max_seats = 0;
    st->level = gcp_apf_shm_level(apf->shm, m.level, &max_seats);

    if (st->level < 0) {
        /* a level this worker knows before the region does */
        st->level = gcp_apf_shm_level(apf->shm, "catch-all", &max_seats);
    }

    gcp_apf_details(op, &m, &d);

    t.level = st->level;
    t.hash = m.hash;
    t.seats = gcp_apf_seats(apf, op, max_seats);
    t.slot = apf->slot;
    t.details = &d;

    gcp_apf_metrics_arrive(&st->metrics, op->a, &m, t.seats, ri->verb);

    decision = gcp_apf_shm_start(apf->shm, &t, gcp_apf_now(), &st->place);

    if (st->place.queue_length > 0) {
        gcp_apf_metrics_enqueued(&st->metrics, st->place.queue_length);
    }

    switch (decision) {

    case GCP_APF_EXECUTE:
        st->seat = st->place.rec >= 0;
        gcp_apf_go(st);
        return;

    case GCP_APF_QUEUED:
        st->phase = GCP_APF_WAITING;
        gcp_apf_metrics_queued(&st->metrics);
        apf->waiting[st->place.rec] = st;
        st->timer = apf->loop->timer_add(apf->loop, gcp_apf_wait_ms(op),
                                         gcp_apf_expire, st);
        return;

    default:
        st->phase = GCP_APF_OVER;
        gcp_apf_metrics_rejected(&st->metrics, GCP_APF_REJECT_QUEUE_FULL);
        gcp_apf_reject(op, gcp_apf_drop(st));
        return;
    }
}


int
gcp_apf_abandon(gcp_op_t *op)
{
    gcp_apf_t      *apf;
    gcp_apf_req_t  *st = op->flow;

    if (st == NULL || st->phase != GCP_APF_WAITING) {
        return 0;
    }

    apf = st->apf;

    if (st->timer) {
        apf->loop->timer_del(apf->loop, st->timer);
        st->timer = NULL;
    }

    if (!gcp_apf_shm_leave(apf->shm, &st->place, 0, gcp_apf_now())) {
        /* dispatched meanwhile: its seats go back at once */
        gcp_apf_shm_finish(apf->shm, &st->place, gcp_apf_now());
    }

    apf->waiting[st->place.rec] = NULL;
    st->phase = GCP_APF_OVER;
    gcp_apf_metrics_rejected(&st->metrics, GCP_APF_REJECT_CANCELLED);

    return 1;
}


/* debug */


int
gcp_apf_debug(gcp_op_t *op)
{
    gcp_buf_t    b;
    gcp_str_t    body;
    gcp_apf_t   *apf = op->api->apf;
    const char  *path = op->ri.path, *details;

#define GCP_APF_DEBUG  "/debug/api_priority_and_fairness/"

    if (strncmp(path, GCP_APF_DEBUG, sizeof(GCP_APF_DEBUG) - 1) != 0
        || apf == NULL || apf->off || apf->shm == NULL)
    {
        return 0;
    }

    path += sizeof(GCP_APF_DEBUG) - 1;
    gcp_buf_init(&b, op->a);

    if (strcmp(path, "dump_priority_levels") == 0) {
        gcp_apf_shm_dump_levels(apf->shm, &b);

    } else if (strcmp(path, "dump_queues") == 0) {
        gcp_apf_shm_dump_queues(apf->shm, &b);

    } else if (strcmp(path, "dump_requests") == 0) {
        details = gcp_query_get(&op->q, "includeRequestDetails");
        gcp_apf_shm_dump_requests(apf->shm, &b, details && details[0]);

    } else {
        return 0;
    }

    if (gcp_buf_failed(&b)) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return 1;
    }

    body.data = b.data ? b.data : "";
    body.len = b.len;

    gcp_op_respond(op, 200, "text/plain; charset=utf-8", body);

    return 1;

#undef GCP_APF_DEBUG
}


/* life */


int
gcp_apf_init(gcp_api_t *api)
{
    int         efd;
    gcp_apf_t  *apf;

    apf = calloc(1, sizeof(gcp_apf_t));
    if (apf == NULL) {
        return GCP_ENOMEM;
    }

    api->apf = apf;

    apf->api = api;
    apf->loop = api->conf.loop;
    apf->shm = api->conf.flowcontrol;
    apf->slot = api->conf.flowcontrol_slot;
    apf->off = api->conf.flowcontrol_off;

    if (apf->shm) {
        apf->nrecords = gcp_apf_shm_records(apf->shm);
        apf->waiting = calloc(apf->nrecords, sizeof(gcp_apf_req_t *));

        if (apf->waiting == NULL) {
            return GCP_ENOMEM;
        }

        /* what a worker of this slot left when it died */
        gcp_apf_shm_reclaim(apf->shm, apf->slot, gcp_apf_now());

        efd = gcp_apf_shm_efd(apf->shm, apf->slot);

        apf->wakeup = apf->loop->fd_add(apf->loop, efd, GCP_LOOP_READ,
                                        gcp_apf_wakeup, apf);
        apf->adjust = apf->loop->timer_add(apf->loop,
                                           GCP_APF_ADJUST_NS / 1000000,
                                           gcp_apf_adjust, apf);

        if (apf->wakeup == NULL || apf->adjust == NULL) {
            return GCP_ENOMEM;
        }

        /* the levels' limits, whichever worker set them */
        if (gcp_metrics_collector_add(gcp_apf_metrics_collect, apf->shm)
            != GCP_OK)
        {
            return GCP_ENOMEM;
        }

        apf->collector = 1;
    }

    if (apf->off) {
        /* no classification: the inflight limits only */
        return GCP_OK;
    }

    apf->counts = gcp_apf_counts_create(api);

    /* the mandatory configuration until the store's is loaded */
    gcp_apf_configure(apf, NULL);

    apf->mirror = gcp_mirror_create(api->store, apf->loop, GCP_APF_PREFIX,
                                    gcp_apf_changed, apf);

    return apf->counts && apf->config && apf->mirror ? GCP_OK : GCP_ENOMEM;
}


void
gcp_apf_fini(gcp_api_t *api)
{
    gcp_apf_t  *apf = api->apf;

    if (apf == NULL) {
        return;
    }

    if (apf->collector) {
        gcp_metrics_collector_del(gcp_apf_metrics_collect, apf->shm);
    }

    if (apf->wakeup) {
        apf->loop->fd_del(apf->loop, apf->wakeup);
    }

    if (apf->adjust) {
        apf->loop->timer_del(apf->loop, apf->adjust);
    }

    if (apf->shm && apf->waiting) {
        /* whatever this process still holds goes back */
        gcp_apf_shm_reclaim(apf->shm, apf->slot, gcp_apf_now());
    }

    gcp_mirror_free(apf->mirror);
    gcp_apf_counts_free(apf->counts);
    gcp_fc_config_free(apf->config);
    free(apf->waiting);
    free(apf);

    api->apf = NULL;
}
