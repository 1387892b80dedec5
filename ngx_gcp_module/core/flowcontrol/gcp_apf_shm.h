
/*
 * The dispatcher of API Priority and Fairness, shared by every worker of
 * an instance: a region of shared memory (the adapter allocates it before
 * the workers fork) holding the priority levels, their queues and one
 * record per request waiting or executing, under a short spinlock.
 *
 * It is upstream's queueset (k8s.io/apiserver/pkg/util/flowcontrol/
 * fairqueuing/queueset) and the concurrency limits of its configuration
 * controller, across processes:
 *
 *   - a level's seats: NominalCL = ceil(ServerCL * NCS / sum of NCS),
 *     LendableCL = round(NominalCL * lendablePercent / 100), BorrowingCL =
 *     round(NominalCL * borrowingLimitPercent / 100) (ServerCL when
 *     unset); its CurrentCL starts at NominalCL and is recomputed every 10
 *     seconds from the seat demand of every level (gcp_apf_shm_adjust());
 *   - a request of a Queue level is dealt a hand of queues by its flow's
 *     hash (shuffle sharding), joins the hand's queue with the least work
 *     waiting (rejected when that queue is full and every seat is taken),
 *     and is dispatched by fair queuing: the queue whose head finishes
 *     first in virtual time, when the head's seats fit;
 *   - a Reject level executes at once when its seats allow, else rejects;
 *     the exempt level always executes.
 *
 * A request queued by one worker may be dispatched by another (the one
 * that freed the seats): the record goes to the owner's list of dispatched
 * records and the owner's eventfd is written; the owner's loop then takes
 * them (gcp_apf_shm_take()).  A worker that died leaves its records behind
 * until the worker started in its place reclaims them.
 *
 * Times are monotonic nanoseconds given by the caller (tests choose
 * them); wall-clock times are only recorded for the dumps.
 */

#ifndef _GCP_APF_SHM_H_INCLUDED_
#define _GCP_APF_SHM_H_INCLUDED_


#include "gcp_core.h"


#define GCP_APF_MAX_LEVELS       256
#define GCP_APF_NAME_LEN         254    /* a DNS subdomain and its NUL */
#define GCP_APF_UID_LEN          40

#define GCP_APF_SERVICE_NS       3000000LL      /* estimatedServiceDuration */
#define GCP_APF_ADJUST_NS        10000000000LL  /* borrowing period, 10 s */


typedef struct gcp_apf_shm_s  gcp_apf_shm_t;


/* A priority level as the configuration says. */
typedef struct {
    const char  *name;
    const char  *uid;
    unsigned     exempt:1;      /* type Exempt */
    int          queues;        /* 0: limitResponse Reject */
    int          hand_size;
    int          queue_length;
    int          shares;        /* nominalConcurrencyShares */
    int          lendable;      /* lendablePercent */
    int          borrowing;     /* borrowingLimitPercent, -1: none */
} gcp_apf_level_conf_t;


/* What the dumps show of a request (truncated to fit the record). */
typedef struct {
    const char  *flow_schema;
    const char  *distinguisher;
    const char  *user;
    const char  *verb;
    const char  *path;
    const char  *ns;
    const char  *name;
    const char  *api_version;
    const char  *resource;
    const char  *subresource;
} gcp_apf_details_t;


typedef struct {
    int                       level;
    uint64_t                  hash;         /* the flow's */
    int                       seats;
    int                       slot;         /* the owning worker */
    const gcp_apf_details_t  *details;
} gcp_apf_ticket_t;


typedef enum {
    GCP_APF_EXECUTE = 0,        /* seats taken, go on */
    GCP_APF_QUEUED,             /* wait for gcp_apf_shm_take() */
    GCP_APF_REJECT              /* 429 */
} gcp_apf_decision_t;


/* A request's place in the region: record index and its generation. */
typedef struct {
    int32_t      rec;           /* -1: none (an exempt request for which */
                                /* no record was free) */
    uint32_t     token;
    int32_t      queue_length;  /* set by gcp_apf_shm_start(): the */
                                /* requests waiting in its queue once it */
                                /* joined (0: it joined none) */
} gcp_apf_place_t;


/*
 * Returns the size of a region for nslots workers and nrecords requests
 * waiting or executing at a time.
 */
size_t gcp_apf_shm_size(int nslots, int nrecords);

/*
 * Lays out the region at mem (size bytes from gcp_apf_shm_size()): no
 * level yet, ServerCL server_cl, the inflight limits of the filter
 * without APF (readonly and mutating, 0: none), and one eventfd per slot.
 * Returns the region, or NULL with *err (static text).  Done once, before
 * the workers fork; gcp_apf_shm_close() closes the eventfds.
 */
gcp_apf_shm_t *gcp_apf_shm_init(void *mem, size_t size, int nslots,
    int nrecords, int server_cl, int readonly, int mutating,
    const char **err);
void gcp_apf_shm_close(gcp_apf_shm_t *sh);

/* Returns the eventfd of slot. */
int gcp_apf_shm_efd(gcp_apf_shm_t *sh, int slot);

/*
 * Returns the number of slots, of records and the server's concurrency
 * limit.
 */
int gcp_apf_shm_slots(gcp_apf_shm_t *sh);
int gcp_apf_shm_records(gcp_apf_shm_t *sh);
int gcp_apf_shm_server_cl(gcp_apf_shm_t *sh);

/*
 * A process takes slot: whatever records a previous process of that slot
 * left (it died) are released, their seats freed.
 */
void gcp_apf_shm_reclaim(gcp_apf_shm_t *sh, int slot, uint64_t now);

/*
 * Applies the configuration of revision rev (the store revision it was
 * read at): the n levels replace the current ones (a level that is gone
 * stops taking requests and is dropped once idle; more than
 * GCP_APF_MAX_LEVELS are left out).  A configuration older than the one
 * applied is ignored.  Returns 1 when applied, else 0.
 */
int gcp_apf_shm_configure(gcp_apf_shm_t *sh, int64_t rev,
    const gcp_apf_level_conf_t *levels, size_t n, uint64_t now);

/* Returns the revision of the configuration applied (0: none yet). */
int64_t gcp_apf_shm_revision(gcp_apf_shm_t *sh);

/*
 * Returns the index of the level named name that takes requests, or -1;
 * with max_seats, that level's cap on a request's seats (0: none).
 */
int gcp_apf_shm_level(gcp_apf_shm_t *sh, const char *name, int *max_seats);

/*
 * Starts a request: executes it (seats taken), queues it, or rejects it.
 * *place is set for EXECUTE and QUEUED.  A request of a level with queues
 * joins one (and may leave it at once, dispatched), as upstream's
 * queueset does.
 */
gcp_apf_decision_t gcp_apf_shm_start(gcp_apf_shm_t *sh,
    const gcp_apf_ticket_t *t, uint64_t now, gcp_apf_place_t *place);

/*
 * A queued request gives up: timed out (1) or its client went away (0).
 * Returns 1 when it left its queue, 0 when it had been dispatched in the
 * meantime (it then holds seats: finish it).
 */
int gcp_apf_shm_leave(gcp_apf_shm_t *sh, const gcp_apf_place_t *place,
    int timed_out, uint64_t now);

/* A request done executing: its seats go, and more are dispatched. */
void gcp_apf_shm_finish(gcp_apf_shm_t *sh, const gcp_apf_place_t *place,
    uint64_t now);

/*
 * Takes up to max records dispatched for slot since the last call.
 * Returns their number.
 */
size_t gcp_apf_shm_take(gcp_apf_shm_t *sh, int slot, gcp_apf_place_t *out,
    size_t max);

/*
 * Notes a request of level rejected at unix second now_sec and returns
 * the Retry-After to answer (upstream's dropped requests tracker).
 */
int64_t gcp_apf_shm_drop(gcp_apf_shm_t *sh, int level, int64_t now_sec);

/*
 * Recomputes every level's CurrentCL from the seat demand since the last
 * time, when GCP_APF_ADJUST_NS passed (force: now).  Returns 1 when done.
 */
int gcp_apf_shm_adjust(gcp_apf_shm_t *sh, uint64_t now, int force);

/*
 * The filter without APF (max-requests-inflight): takes a readonly or a
 * mutating seat.  Returns 1 when taken, 0 when the limit is reached.
 */
int gcp_apf_shm_inflight(gcp_apf_shm_t *sh, int mutating);
void gcp_apf_shm_inflight_done(gcp_apf_shm_t *sh, int mutating);


/* The state of one level, for tests, the dumps and the metrics. */
typedef struct {
    const char  *name;              /* name_copy */
    char         name_copy[GCP_APF_NAME_LEN];
    int          nominal_cl;
    int          min_cl;
    int          max_cl;
    int          current_cl;
    int          seats_in_use;
    int          executing;
    int          waiting;
    int          active_queues;
    uint64_t     dispatched;
    uint64_t     rejected;
    uint64_t     timed_out;
    uint64_t     cancelled;
    unsigned     quiescing:1;
    unsigned     exempt:1;
    double       current_r;         /* virtual time, seat-seconds */

    /* the last borrowing adjustment (adjusted 0: none yet) */
    unsigned     adjusted:1;
    int          demand_high;       /* seats, high watermark */
    double       demand_avg;
    double       demand_stdev;
    double       demand_smoothed;
    double       target;
} gcp_apf_level_stat_t;

/* Fills st for level i; returns 0 when i is not a level in use. */
int gcp_apf_shm_level_stat(gcp_apf_shm_t *sh, int i,
    gcp_apf_level_stat_t *st);

/*
 * The text of /debug/api_priority_and_fairness/dump_priority_levels,
 * dump_queues and dump_requests (details: includeRequestDetails), as
 * upstream prints them, appended to b.
 */
void gcp_apf_shm_dump_levels(gcp_apf_shm_t *sh, gcp_buf_t *b);
void gcp_apf_shm_dump_queues(gcp_apf_shm_t *sh, gcp_buf_t *b);
void gcp_apf_shm_dump_requests(gcp_apf_shm_t *sh, gcp_buf_t *b,
    int details);


#endif /* _GCP_APF_SHM_H_INCLUDED_ */
