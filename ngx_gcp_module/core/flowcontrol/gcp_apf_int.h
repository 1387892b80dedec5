
/*
 * The layout of the APF region (see gcp_apf_shm.h), shared by
 * gcp_apf_shm.c (region, lock, records, configuration, limits),
 * gcp_apf_queueset.c (queuing and dispatch), gcp_apf_borrow.c (the
 * periodic CurrentCL) and gcp_apf_dump.c (the debug dumps).  Every field
 * of the region is read and written under its lock, but the inflight
 * counters (atomics).
 */

#ifndef _GCP_APF_INT_H_INCLUDED_
#define _GCP_APF_INT_H_INCLUDED_


#include "gcp_apf_shm.h"


#define GCP_APF_MAGIC         0x41504631u       /* "APF1" */
#define GCP_APF_NONE          (-1)
#define GCP_APF_DROP_HISTORY  34                /* 2 * maxRetryAfter + 2 */

#define GCP_APF_STR_SHORT     64
#define GCP_APF_STR_LONG      160


typedef enum {
    GCP_APF_REC_FREE = 0,
    GCP_APF_REC_WAITING,
    GCP_APF_REC_EXECUTING
} gcp_apf_rec_state_t;


typedef struct {
    int64_t      unix_sec;
    int64_t      count;
} gcp_apf_drops_t;


/* A priority level and its queue set. */
typedef struct {
    char         name[GCP_APF_NAME_LEN];
    char         uid[GCP_APF_UID_LEN];
    unsigned     used:1;
    unsigned     exempt:1;
    unsigned     quiescing:1;       /* gone from the configuration */
    int32_t      queues;            /* 0: no queues (Reject, exempt) */
    int32_t      hand_size;
    int32_t      queue_length;
    int32_t      shares;
    int32_t      lendable;
    int32_t      borrowing;

    int32_t      nominal_cl;
    int32_t      min_cl;
    int32_t      max_cl;
    int32_t      current_cl;
    int32_t      max_seats;

    /* the queue set */
    double       current_r;         /* virtual time, seat-seconds */
    uint64_t     last_ns;
    int32_t      seats_in_use;
    int32_t      executing;
    int32_t      waiting;
    int32_t      seats_waiting;
    int32_t      active_queues;     /* queues holding a request */
    int32_t      robin;             /* round-robin index of dispatch */
    int32_t      waiting_queues;    /* head of the queues with waiting */
                                    /* requests */
    uint64_t     enqueues;
    uint64_t     dispatched;
    uint64_t     rejected;
    uint64_t     timed_out;
    uint64_t     cancelled;

    /* seat demand since the last adjustment, and its statistics */
    double       demand;            /* seats in use and waiting now */
    double       demand_sum;        /* integral of demand, seat-ns */
    double       demand_sum2;       /* integral of demand^2 */
    double       demand_max;
    uint64_t     demand_start;
    uint64_t     demand_last;
    double       smoothed;

    /* what the last adjustment found (for the metrics) */
    unsigned     adjusted:1;
    int32_t      demand_high;
    double       demand_avg;
    double       demand_stdev;
    double       target;

    /* dropped requests: Retry-After */
    gcp_apf_drops_t  drops[GCP_APF_DROP_HISTORY];
    int32_t          ndrops;
    int64_t          drop_unix;
    int64_t          drop_count;
    int64_t          retry_after;
    int64_t          retry_update_unix;
} gcp_apf_level_t;


/* A queue of a level, present while it holds a request. */
typedef struct {
    int32_t      level;             /* GCP_APF_NONE: free */
    int32_t      index;
    int32_t      head;              /* waiting records, FIFO */
    int32_t      tail;
    int32_t      waiting;
    int32_t      executing;
    int32_t      seats_in_use;
    int32_t      seats_waiting;     /* InitialSeatsSum = MaxSeatsSum */
    double       work_waiting;      /* TotalWorkSum */
    double       next_r;            /* nextDispatchR */
    int32_t      wnext;             /* in the level's waiting queues */
    int32_t      wprev;
    int32_t      next;              /* free list */
} gcp_apf_queue_t;


/* A request waiting or executing. */
typedef struct {
    uint8_t      state;             /* gcp_apf_rec_state_t */
    uint8_t      dispatched;        /* on its slot's dispatched list */
    int16_t      slot;
    uint32_t     token;
    int32_t      level;
    int32_t      queue;             /* GCP_APF_NONE: queueless */
    int32_t      next;              /* FIFO, dispatched list, free list */
    int32_t      prev;              /* FIFO */
    int32_t      seats;
    double       work;              /* seat-seconds */
    double       arrival_r;
    uint64_t     arrive_ns;         /* monotonic */
    uint64_t     start_ns;
    int64_t      arrive_wall;       /* realtime ns, for the dumps */
    int64_t      start_wall;        /* 0: not started */

    char         flow_schema[GCP_APF_STR_SHORT];
    char         distinguisher[GCP_APF_STR_SHORT];
    char         user[GCP_APF_STR_SHORT];
    char         verb[24];
    char         path[GCP_APF_STR_LONG];
    char         ns[GCP_APF_STR_SHORT];
    char         name[GCP_APF_STR_SHORT];
    char         api_version[GCP_APF_STR_SHORT];
    char         resource[GCP_APF_STR_SHORT];
    char         subresource[32];
} gcp_apf_rec_t;


typedef struct {
    int          efd;
    int32_t      dispatched;        /* head of the dispatched records */
    int32_t      dispatched_tail;
} gcp_apf_slot_t;


struct gcp_apf_shm_s {
    uint32_t         magic;
    volatile int     lock;          /* 0, or the pid holding it */
    int32_t          nslots;
    int32_t          nrecords;
    int32_t          nhash;         /* queue hash buckets, a power of 2 */
    int32_t          server_cl;
    int64_t          config_rev;
    uint64_t         adjusted;      /* monotonic ns of the last adjust */
    int32_t          free_rec;
    int32_t          free_queue;
    uint32_t         tokens;

    /* the filter without APF */
    int32_t          limit_readonly;
    int32_t          limit_mutating;
    volatile int     inflight_readonly;
    volatile int     inflight_mutating;

    size_t           slots_off;
    size_t           queues_off;
    size_t           hash_off;
    size_t           recs_off;

    gcp_apf_level_t  levels[GCP_APF_MAX_LEVELS];
};


#define gcp_apf_slots(sh)                                                     \
    ((gcp_apf_slot_t *) ((char *) (sh) + (sh)->slots_off))
#define gcp_apf_queues(sh)                                                    \
    ((gcp_apf_queue_t *) ((char *) (sh) + (sh)->queues_off))
#define gcp_apf_hash(sh)                                                      \
    ((int32_t *) ((char *) (sh) + (sh)->hash_off))
#define gcp_apf_recs(sh)                                                      \
    ((gcp_apf_rec_t *) ((char *) (sh) + (sh)->recs_off))


void gcp_apf_lock(gcp_apf_shm_t *sh);
void gcp_apf_unlock(gcp_apf_shm_t *sh);

/* Returns a free record (state WAITING, owned by slot), or NONE. */
int32_t gcp_apf_rec_alloc(gcp_apf_shm_t *sh, int slot);
void gcp_apf_rec_free(gcp_apf_shm_t *sh, int32_t r);

/* Hands an executing record to its owner (list, eventfd). */
void gcp_apf_rec_dispatched(gcp_apf_shm_t *sh, int32_t r);


/* gcp_apf_queueset.c */

/*
 * shufflesharding.Dealer.Deal: deals hand distinct cards (at most 15) of
 * a deck of deck cards into cards, from hash.  Returns the number dealt.
 */
int gcp_apf_deal(uint64_t hash, int deck, int hand, int32_t *cards);

/* Advances the level's virtual time to now. */
void gcp_apf_qs_sync(gcp_apf_shm_t *sh, gcp_apf_level_t *l, uint64_t now);

/*
 * Starts record r of level l: executes, queues, or rejects it (then r is
 * freed).  *queue_length: the requests waiting in the queue r joined,
 * with r (0: none joined).
 */
gcp_apf_decision_t gcp_apf_qs_start(gcp_apf_shm_t *sh, gcp_apf_level_t *l,
    int32_t r, uint64_t hash, uint64_t now, int32_t *queue_length);

/* Takes waiting record r out of its queue (not freed). */
void gcp_apf_qs_unqueue(gcp_apf_shm_t *sh, int32_t r);

/* Releases the seats of executing record r (not freed). */
void gcp_apf_qs_release(gcp_apf_shm_t *sh, int32_t r, uint64_t now);

/* Dispatches the level's waiting requests while its seats allow. */
void gcp_apf_qs_dispatch(gcp_apf_shm_t *sh, gcp_apf_level_t *l,
    uint64_t now);

/* Notes the level's seat demand changed (seats in use and waiting). */
void gcp_apf_demand(gcp_apf_level_t *l, uint64_t now);


#endif /* _GCP_APF_INT_H_INCLUDED_ */
