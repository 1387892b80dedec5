
/*
 * Internals of the LMDB backend, shared by the files of backends/lmdb/.
 * Not for use outside the backend (the public API is gcp_store_lmdb.h).
 *
 * Layout (docs/storage.md):
 *   hist   USERKEY \0 BE64(mod_revision) -> flags(1) BE64(create_revision)
 *          BE64(version) VALUE           (flags bit 0: tombstone)
 *   log    BE64(revision) -> USERKEY; a mirror (gcp_lmdb_mirror.c) adds
 *          BE64(revision) BE16(n) -> USERKEY for the n-th other key
 *          changed by the same revision (an etcd transaction)
 *   meta   "revision" -> BE64, "compact" -> BE64
 */

#ifndef _GCP_LMDB_H_INCLUDED_
#define _GCP_LMDB_H_INCLUDED_


#include <pthread.h>
#include <lmdb.h>

#include "gcp_store_lmdb.h"


#define GCP_LMDB_SUFFIX       9         /* \0 + BE64(revision) */
#define GCP_LMDB_HDR          17        /* flags + create + version */
#define GCP_LMDB_TOMBSTONE    0x01
#define GCP_LMDB_KEYBUF       1024      /* > any LMDB max key size */
#define GCP_LMDB_RPOOL        8         /* idle read txns kept */
#define GCP_LMDB_SNAPS        4         /* read snapshots pinned at once */
#define GCP_LMDB_TICK_MS      1000      /* safety timer */
#define GCP_LMDB_PROGRESS_MS  1000      /* PROGRESS events, per watch */
#define GCP_LMDB_CATCHUP      1000      /* log entries per catch-up turn */
#define GCP_LMDB_BATCH        1000      /* entries per compaction txn */
#define GCP_LMDB_FIRST_REV    1         /* revision of an empty store */
#define GCP_LMDB_LOGKEY       10        /* BE64(revision) BE16(sub) */
#define GCP_LMDB_MAX_SUB      0xffff    /* changes of one revision */


/* The shared memory segment, created at prefork (MAP_SHARED|MAP_ANON). */
typedef struct {
    int64_t      durable;           /* atomic max */
    uint64_t     syncs;             /* atomic counters */
    uint64_t     synced_writes;
    int64_t      notified_ns;       /* last wake-up sent (monotonic) */
    int          live;              /* mirror: the feeder's stream is up */
    int64_t      seen;              /* mirror: the source's newest revision */
} gcp_lmdb_shm_t;


struct gcp_lmdb_shared_s {
    gcp_lmdb_conf_t     conf;
    char               *path;       /* malloc'd copy of conf.path */
    gcp_lmdb_shm_t     *shm;
    int                *efd;        /* eventfd per slot */
    int                 nslots;
};


/* A decoded hist entry; key and value point into LMDB memory. */
typedef struct {
    gcp_str_t    key;
    gcp_str_t    value;
    int64_t      mod_revision;
    int64_t      create_revision;
    int64_t      version;
    unsigned     tombstone:1;
} gcp_lmdb_entry_t;


/* A write waiting for its group commit. */
typedef struct gcp_lmdb_op_s  gcp_lmdb_op_t;

struct gcp_lmdb_op_s {
    gcp_lmdb_op_t       *next;
    int64_t              revision;
    gcp_store_result_t  *res;
    gcp_store_done_pt    done;
    void                *arg;
};


struct gcp_store_watch_s {
    gcp_store_watch_t   *next;
    gcp_store_watch_t   *prev;
    char                *key;       /* malloc'd, with range_end */
    size_t               key_len;
    char                *end;       /* NULL: the single key */
    size_t               end_len;
    unsigned             unbounded:1;    /* range_end "\0" */
    int64_t              rev;       /* delivered everything up to */
    uint64_t             progress_ms;
    int                  error;     /* ERROR to deliver first, or GCP_OK */
    unsigned             caught_up:1;
    unsigned             cancelled:1;
    unsigned             from_load:1;   /* from "now" on a mirror not yet */
                                        /* loaded: from its load on */
    gcp_store_event_pt   handler;
    void                *arg;
};


typedef struct gcp_lmdb_compact_s  gcp_lmdb_compact_t;


/*
 * A read txn pinned by the brief arenas of the reads whose results point
 * into it (gcp_lmdb_pin()); concurrent reads share the newest one.
 */
typedef struct gcp_lmdb_snap_s  gcp_lmdb_snap_t;

struct gcp_lmdb_snap_s {
    gcp_lmdb_snap_t     *next;
    void                *store;     /* gcp_lmdb_store_t; NULL once closed */
    MDB_txn             *txn;
    size_t               txnid;
    unsigned             refs;      /* arenas pinning it */
};


typedef struct {
    gcp_store_t          store;     /* first: the gcp_store_t handed out */

    gcp_lmdb_shared_t   *sh;
    int                  slot;
    MDB_env             *env;
    MDB_dbi              hist;
    MDB_dbi              log;
    MDB_dbi              meta;
    size_t               max_key;   /* longest user key */

    MDB_txn             *rpool[GCP_LMDB_RPOOL];
    int                  nrpool;

    gcp_lmdb_snap_t     *snaps;     /* pinned, the newest first */
    unsigned             nsnaps;
    uint64_t             pinned_reads;

    /* group commit: fields under mu are shared with the sync thread */
    pthread_t            thread;
    pthread_mutex_t      mu;
    pthread_cond_t       cond;
    int64_t              sync_req;      /* mu: sync up to this revision */
    int64_t              sync_done;     /* mu: synced up to this one */
    int                  sync_err;      /* mu: errno of a failed sync */
    int                  stop;          /* mu */
    unsigned             sync_init:1;
    unsigned             thread_up:1;
    unsigned             failed:1;      /* a sync failed: writes refused */
    gcp_lmdb_op_t       *pending;       /* in revision order */
    gcp_lmdb_op_t      **pending_last;

    gcp_loop_fd_t       *efd_ev;
    gcp_loop_timer_t    *tick;
    gcp_loop_timer_t    *catchup;
    unsigned             ticks;
    int64_t              tick_rev;      /* committed rev seen last tick */

    /* watches */
    gcp_store_watch_t   *watches;
    gcp_store_watch_t   *watches_last;
    uint64_t             nwatches;
    int64_t              dispatched;
    unsigned             dispatching;
    unsigned             swept:1;       /* cancelled watches to free */

    gcp_lmdb_compact_t  *compact;

    void               (*moved)(void *arg);     /* mirror: dispatched */
    void                *moved_arg;             /* moved forward */
    unsigned             mirror:1;      /* followed: reads refused while */
                                        /* the mirror is not loaded */

    uint64_t             notify_rounds;
    uint64_t             timer_rounds;
    uint64_t             compact_batches;
} gcp_lmdb_store_t;


/* gcp_lmdb_codec.c */

/* Returns GCP_OK, or GCP_EBADREQUEST / GCP_EKEYTOOLONG with *msg set. */
int gcp_lmdb_check_key(gcp_lmdb_store_t *s, gcp_str_t key, int allow_empty,
    const char **msg);
/* Encodes key \0 BE64(rev) into buf (GCP_LMDB_KEYBUF bytes), sets *v. */
void gcp_lmdb_hist_key(char *buf, gcp_str_t key, uint64_t rev, MDB_val *v);
/* Encodes BE64(rev) into buf (8 bytes), sets *v. */
void gcp_lmdb_rev_key(char *buf, int64_t rev, MDB_val *v);
/*
 * Returns the revision in an 8-byte big-endian value (or a 10-byte log
 * key), or -1.
 */
int64_t gcp_lmdb_rev_decode(const MDB_val *v);
/* Encodes the log key of the sub-th change of rev into buf (10 bytes). */
void gcp_lmdb_log_key(char *buf, int64_t rev, unsigned sub, MDB_val *v);
/* Returns the sub number of a log key (0 for the first change). */
unsigned gcp_lmdb_log_sub(const MDB_val *k);
/* Decodes a hist entry; returns GCP_OK or GCP_EINTERNAL (corrupt). */
int gcp_lmdb_decode(const MDB_val *k, const MDB_val *v, gcp_lmdb_entry_t *e);
/* Encodes a hist value into p (GCP_LMDB_HDR + e->value.len bytes). */
void gcp_lmdb_encode(const gcp_lmdb_entry_t *e, char *p);
/* Returns <0, 0, >0 comparing a user key to a range end. */
int gcp_lmdb_keycmp(const char *k, size_t klen, const char *e, size_t elen);
/* Copies e into *kv, allocating from a; returns GCP_OK or GCP_ENOMEM. */
int gcp_lmdb_copy_kv(gcp_arena_t *a, const gcp_lmdb_entry_t *e,
    gcp_kv_t *kv);


/* gcp_lmdb_txn.c */

/* Maps an LMDB or errno code; sets *msg (static) when msg is not NULL. */
int gcp_lmdb_rc(int mrc, const char **msg);
/* Begins a read txn (from the pool); returns GCP_OK or an error code. */
int gcp_lmdb_rbegin(gcp_lmdb_store_t *s, MDB_txn **txn);
/* Ends a read txn begun by gcp_lmdb_rbegin(). */
void gcp_lmdb_rend(gcp_lmdb_store_t *s, MDB_txn *txn);
/*
 * Returns a read txn at the newest committed state pinned until a is
 * destroyed (shared with the other reads pinning that state), so that
 * what is read in it may be handed out without a copy; NULL when a is not
 * brief (gcp_arena_set_brief()), when GCP_LMDB_SNAPS older snapshots are
 * still pinned, or on failure: then the caller reads in a txn of its own
 * and copies.  The store owns the txn; the caller never ends it.
 */
MDB_txn *gcp_lmdb_pin(gcp_lmdb_store_t *s, gcp_arena_t *a);
/* Ends the pinned snapshots' txns as the store closes. */
void gcp_lmdb_pins_close(gcp_lmdb_store_t *s);
/* Reads a meta counter (default def when absent); returns GCP_OK or err. */
int gcp_lmdb_meta_get(gcp_lmdb_store_t *s, MDB_txn *txn, const char *name,
    int64_t def, int64_t *val);
/* Writes a meta counter; returns an LMDB code. */
int gcp_lmdb_meta_put(gcp_lmdb_store_t *s, MDB_txn *txn, const char *name,
    int64_t val);
/*
 * At prefork, in the bootstrap txn of a mirror: conf's claim decides
 * whether it is kept (gcp_lmdb_conf_t); else empties it, records the new
 * source and sets *rev to the first revision.  Returns an LMDB code.
 */
int gcp_lmdb_mirror_claim(gcp_lmdb_store_t *s, MDB_txn *txn,
    const gcp_lmdb_conf_t *conf, int64_t *rev);
/*
 * Finds the newest hist entry of key with mod_revision <= rev (INT64_MAX:
 * the latest), tombstones included, leaving the cursor on it.  Returns
 * GCP_OK, GCP_ENOTFOUND or an error code.
 */
/* Returns 1 when e is an entry of key. */
int gcp_lmdb_same_key(const gcp_lmdb_entry_t *e, gcp_str_t key);

int gcp_lmdb_find(MDB_cursor *c, gcp_str_t key, int64_t rev,
    gcp_lmdb_entry_t *e);
/*
 * From a cursor on entry e, finds the live entry of the same key just
 * before it (the previous value).  Returns GCP_OK, GCP_ENOTFOUND or an
 * error code.  The cursor moves.
 */
int gcp_lmdb_find_prev(MDB_cursor *c, const gcp_lmdb_entry_t *e,
    gcp_lmdb_entry_t *prev);
/*
 * Returns a zeroed result from a, or a static one marked GCP_ENOMEM when
 * a is out of memory.
 */
gcp_store_result_t *gcp_lmdb_result(gcp_arena_t *a);
/* Sets res->rc and message; returns res. */
gcp_store_result_t *gcp_lmdb_fail(gcp_store_result_t *res, int rc,
    const char *msg);


/* gcp_lmdb_read.c */

void gcp_lmdb_get(gcp_store_t *st, gcp_str_t key, int64_t revision,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg);
void gcp_lmdb_range(gcp_store_t *st, gcp_str_t key, gcp_str_t range_end,
    int64_t revision, int64_t limit, int count_only, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg);
/*
 * Checks revision (0: current) against the store in txn; sets
 * res->revision and res->compact_revision.  Returns GCP_OK, GCP_EFUTURE or
 * GCP_ECOMPACTED (message set), or an error code.
 */
int gcp_lmdb_check_rev(gcp_lmdb_store_t *s, MDB_txn *txn, int64_t revision,
    gcp_store_result_t *res);


/* gcp_lmdb_write.c */

void gcp_lmdb_create(gcp_store_t *st, gcp_str_t key, gcp_str_t value,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg);
void gcp_lmdb_update(gcp_store_t *st, gcp_str_t key, gcp_str_t value,
    int64_t mod_revision, gcp_arena_t *a, gcp_store_done_pt done, void *arg);
void gcp_lmdb_del(gcp_store_t *st, gcp_str_t key, int64_t mod_revision,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg);


/* gcp_lmdb_sync.c */

/* Starts the sync thread and watches the slot's eventfd: GCP_OK or err. */
int gcp_lmdb_sync_start(gcp_lmdb_store_t *s);
/* Stops the thread, forgets pending writes (their callbacks never run). */
void gcp_lmdb_sync_stop(gcp_lmdb_store_t *s);
/*
 * Queues a committed write (op allocated by the caller from the request
 * arena) until it is durable; with conf.sync 0 completes it at once.
 */
void gcp_lmdb_sync_commit(gcp_lmdb_store_t *s, gcp_lmdb_op_t *op);
/* Acknowledges the queued writes that the last sync covered. */
void gcp_lmdb_sync_ack(gcp_lmdb_store_t *s);
/* Asks the sync thread to sync up to rev (already committed). */
void gcp_lmdb_sync_request(gcp_lmdb_store_t *s, int64_t rev);
/* Records rev as durable and wakes every slot (this one included). */
void gcp_lmdb_notify(gcp_lmdb_shared_t *sh, int64_t rev);


/* gcp_lmdb_watch.c */

gcp_store_watch_t *gcp_lmdb_watch(gcp_store_t *st, gcp_str_t key,
    gcp_str_t range_end, int64_t start_revision, gcp_store_event_pt handler,
    void *arg);
void gcp_lmdb_watch_cancel(gcp_store_t *st, gcp_store_watch_t *w);
int64_t gcp_lmdb_watch_revision(gcp_store_t *st, gcp_store_watch_t *w);
/*
 * Delivers the events made durable since the last round; from_timer tells
 * the safety timer from an eventfd wake-up (for the stats).  Returns 1 if
 * the round found new events, 0 if not.
 */
int gcp_lmdb_dispatch(gcp_lmdb_store_t *s, int from_timer);
/* Starts the safety timer: GCP_OK or GCP_ENOMEM. */
int gcp_lmdb_tick_start(gcp_lmdb_store_t *s);
/* Frees every watch and stops the timers (no event is delivered). */
void gcp_lmdb_watch_close(gcp_lmdb_store_t *s);


/* gcp_lmdb_mirror.c: see gcp_store_lmdb.h */


/* gcp_lmdb_compact.c */

void gcp_lmdb_compact(gcp_store_t *st, int64_t revision, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg);
/* Stops a compaction in progress (its callbacks never run). */
void gcp_lmdb_compact_close(gcp_lmdb_store_t *s);


#endif /* _GCP_LMDB_H_INCLUDED_ */
