
/*
 * The storage interface: a revisioned key-value store modelled on etcd v3.
 *
 * - One global revision counts every write; it is what Kubernetes calls the
 *   resourceVersion.  Each key records the revision that created it
 *   (create_revision), the one that last changed it (mod_revision) and how
 *   many times it was written since creation (version).
 * - Reads: get one key, or range over [key, range_end) at a revision, with a
 *   limit.  A revision older than the compacted one fails with
 *   GCP_ECOMPACTED, one newer than the store's with GCP_EFUTURE.
 * - Writes: create-if-absent, update-if-mod-revision, delete (optionally
 *   if-mod-revision).  A conditional write that loses returns GCP_ECONFLICT
 *   with the key's current value, or GCP_ENOTFOUND.
 * - Watch: every change to keys in [key, range_end) after a revision, in
 *   revision order, each with the previous value.
 * - Compaction drops history older than a revision.
 *
 * Every operation completes through a callback, which may run before the
 * call returns (the embedded LMDB backend usually does, except for writes,
 * which complete after their group commit reached the disk) or later from
 * the event loop (remote backends).  A write is acknowledged, i.e. its
 * callback reports GCP_OK, only once it is durable.
 *
 * Memory: results are allocated from the arena passed with the operation
 * and stay valid as long as that arena.  Watch events are valid only during
 * the event callback.  The caller must keep the arena alive until the
 * operation's callback has run (a pending operation cannot be cancelled,
 * only its result ignored).
 */

#ifndef _GCP_STORE_H_INCLUDED_
#define _GCP_STORE_H_INCLUDED_


#include "gcp_core.h"
#include "gcp_loop.h"


typedef struct gcp_store_s        gcp_store_t;
typedef struct gcp_store_ops_s    gcp_store_ops_t;
typedef struct gcp_store_watch_s  gcp_store_watch_t;


typedef struct {
    gcp_str_t    key;
    gcp_str_t    value;
    int64_t      create_revision;
    int64_t      mod_revision;
    int64_t      version;
    unsigned     stale:1;           /* read through a provider that does */
                                    /* not write (encryption at rest): */
                                    /* writing it unchanged is no no-op */
} gcp_kv_t;


typedef struct {
    int          rc;                /* GCP_OK or a gcp_rc_t */
    int64_t      revision;          /* the store revision the result is at */
    int64_t      compact_revision;  /* the oldest readable revision - 1 */

    /*
     * get: the key (nkvs 0 or 1).  range: the keys found, in key order.
     * create/update/delete: the key as written (for delete, the value
     * deleted, with mod_revision set to the delete's revision); on
     * GCP_ECONFLICT or GCP_EEXISTS, the current value.
     */
    gcp_kv_t    *kvs;
    size_t       nkvs;

    int64_t      count;             /* range: keys in the whole range */
    unsigned     more:1;            /* range: keys left beyond the limit */

    const char  *message;           /* detail for errors, may be NULL */
} gcp_store_result_t;


typedef void (*gcp_store_done_pt)(void *arg, gcp_store_result_t *res);


typedef enum {
    GCP_STORE_EVENT_PUT = 1,
    GCP_STORE_EVENT_DELETE,
    GCP_STORE_EVENT_PROGRESS,       /* no change; revision reached */
    GCP_STORE_EVENT_ERROR           /* watch ended: rc says why */
} gcp_store_event_type_t;


typedef struct {
    gcp_store_event_type_t  type;
    int                     rc;         /* ERROR: e.g. GCP_ECOMPACTED */
    int64_t                 revision;   /* of this change, or reached */
    gcp_kv_t                kv;         /* PUT: new value; DELETE: key, */
                                        /* mod_revision = delete revision */
    gcp_kv_t                prev_kv;    /* previous value, if any */
    unsigned                has_prev:1;
    int64_t                 compact_revision;   /* ERROR(ECOMPACTED) */
    const char             *message;    /* ERROR: detail, may be NULL */
} gcp_store_event_t;


/*
 * Called once per event.  Returns GCP_OK to go on, or any other code to
 * cancel the watch (then no further event arrives, and the watch handle is
 * released by the backend: do not call watch_cancel on it).  After an ERROR
 * event the watch is over and released likewise.
 */
typedef int (*gcp_store_event_pt)(void *arg, const gcp_store_event_t *ev);


struct gcp_store_ops_s {
    const char  *name;

    void  (*get)(gcp_store_t *s, gcp_str_t key, int64_t revision,
                 gcp_arena_t *a, gcp_store_done_pt done, void *arg);

    /*
     * [key, range_end); range_end.len == 0 means the single key, and
     * range_end "\0" (one NUL byte) means no upper bound (as in etcd).
     * limit 0 is unlimited.  revision 0 is the current revision.
     * count_only returns count without kvs.
     */
    void  (*range)(gcp_store_t *s, gcp_str_t key, gcp_str_t range_end,
                   int64_t revision, int64_t limit, int count_only,
                   gcp_arena_t *a, gcp_store_done_pt done, void *arg);

    void  (*create)(gcp_store_t *s, gcp_str_t key, gcp_str_t value,
                    gcp_arena_t *a, gcp_store_done_pt done, void *arg);

    /* mod_revision 0: unconditional (the key must exist) */
    void  (*update)(gcp_store_t *s, gcp_str_t key, gcp_str_t value,
                    int64_t mod_revision, gcp_arena_t *a,
                    gcp_store_done_pt done, void *arg);

    /* mod_revision 0: unconditional */
    void  (*del)(gcp_store_t *s, gcp_str_t key, int64_t mod_revision,
                 gcp_arena_t *a, gcp_store_done_pt done, void *arg);

    /*
     * Delivers changes with revision > start_revision (start_revision 0:
     * from now).  Returns a handle owned by the backend (released by
     * watch_cancel, or as described for gcp_store_event_pt), or NULL on
     * allocation failure.  A compacted start_revision yields one ERROR
     * event with GCP_ECOMPACTED, delivered from the event loop, never before
     * watch() returns.  A backend may send PROGRESS events to say that
     * every change up to a revision has been delivered to this watch.
     */
    gcp_store_watch_t *(*watch)(gcp_store_t *s, gcp_str_t key,
                                gcp_str_t range_end, int64_t start_revision,
                                gcp_store_event_pt handler, void *arg);
    void  (*watch_cancel)(gcp_store_t *s, gcp_store_watch_t *w);

    /* Drops history before revision; revisions < revision become
     * unreadable (GCP_ECOMPACTED). */
    void  (*compact)(gcp_store_t *s, int64_t revision, gcp_arena_t *a,
                     gcp_store_done_pt done, void *arg);

    /*
     * Returns the newest revision this process knows to be durable and
     * whose events have been handed to every caught-up watch.
     */
    int64_t (*revision)(gcp_store_t *s);

    /* Releases the store; pending callbacks are not called. */
    void  (*close)(gcp_store_t *s);

    /*
     * Returns the revision up to which every change in w's range has been
     * handed to w's handler (below its start revision while catching up):
     * what a watch-fed copy of the range is known to be exact at.
     */
    int64_t (*watch_revision)(gcp_store_t *s, gcp_store_watch_t *w);
};


struct gcp_store_s {
    const gcp_store_ops_t  *ops;
    gcp_loop_t             *loop;
};


/* Convenience wrappers (the backend's ops do the work). */
#define gcp_store_get(s, k, rev, a, done, arg)                               \
    (s)->ops->get(s, k, rev, a, done, arg)
#define gcp_store_range(s, k, end, rev, lim, co, a, done, arg)               \
    (s)->ops->range(s, k, end, rev, lim, co, a, done, arg)
#define gcp_store_create(s, k, v, a, done, arg)                              \
    (s)->ops->create(s, k, v, a, done, arg)
#define gcp_store_update(s, k, v, mr, a, done, arg)                          \
    (s)->ops->update(s, k, v, mr, a, done, arg)
#define gcp_store_delete(s, k, mr, a, done, arg)                             \
    (s)->ops->del(s, k, mr, a, done, arg)
#define gcp_store_watch(s, k, end, rev, h, arg)                              \
    (s)->ops->watch(s, k, end, rev, h, arg)
#define gcp_store_watch_cancel(s, w)  (s)->ops->watch_cancel(s, w)
#define gcp_store_compact(s, rev, a, done, arg)                              \
    (s)->ops->compact(s, rev, a, done, arg)
#define gcp_store_revision(s)  (s)->ops->revision(s)
#define gcp_store_close(s)     (s)->ops->close(s)
#define gcp_store_watch_revision(s, w)  (s)->ops->watch_revision(s, w)


/*
 * A mirror: a store holding a copy of another store's keyspace at that
 * store's revisions, written by one process (a feeder) and read and
 * watched by every process as any store.  The LMDB backend implements it
 * (gcp_lmdb_mirror_ops); the etcd backend's feeder writes into it
 * (docs/storage.md, "One copy per instance").
 */
#define GCP_STORE_LOAD_FIRST  0x1   /* load: drop everything first */
#define GCP_STORE_LOAD_LAST   0x2   /* load: complete, readable */

typedef struct {
    /*
     * Loads a page of the keyspace read at revision (every kv's
     * mod_revision at or below it), in one transaction.  The first page
     * (GCP_STORE_LOAD_FIRST) empties the mirror and marks it loading; the
     * last (GCP_STORE_LOAD_LAST, may be the first too) sets its revision
     * and makes it readable from that revision on (older ones fail with
     * GCP_ECOMPACTED).  The data are copied.  Returns GCP_OK or an error
     * code with *msg set (static); nothing of the page is applied then.
     */
    int  (*load)(gcp_store_t *m, const gcp_kv_t *kvs, size_t n,
                 int64_t revision, unsigned flags, const char **msg);

    /*
     * Applies changes (PUT or DELETE events: type and kv, ordered by
     * kv.mod_revision, each newer than the mirror's revision, several of
     * one revision allowed) in one transaction and moves the mirror's
     * revision to revision (not below the last change's: a revision with
     * no change of the mirrored keys only moves it).  The data are copied;
     * every process's watches are woken.  Returns GCP_OK, or an error code
     * with *msg set (static; GCP_EBADREQUEST: out of order, or loading);
     * nothing is applied then.
     */
    int  (*apply)(gcp_store_t *m, const gcp_store_event_t *ev, size_t n,
                  int64_t revision, const char **msg);

    /*
     * Reads the mirror's revision and the revision of the load under way
     * (0: none, the mirror is loaded; -1: it was never loaded).  Returns
     * GCP_OK or an error code.
     */
    int  (*state)(gcp_store_t *m, int64_t *revision, int64_t *loading);

    /*
     * The feeder's stream is up (1) or not (0): a flag shared by every
     * process of the mirror, which live() returns (0 until set).
     */
    void  (*set_live)(gcp_store_t *m, int up);
    int   (*live)(gcp_store_t *m);

    /*
     * Calls moved(arg) each time this process's revision of the mirror
     * (gcp_store_revision()) moved forward, after its watches had the
     * events; moved NULL stops.  One follower per store.  A followed
     * mirror's reads fail with GCP_EUNAVAILABLE while it is not loaded
     * (never, or a load under way), instead of showing a partial copy.
     */
    void  (*follow)(gcp_store_t *m, void (*moved)(void *arg), void *arg);

    /*
     * Returns the longest key the mirror can hold: load and apply skip
     * the changes of longer keys (the mirror's users read such keys
     * elsewhere, or refuse to write them).
     */
    size_t  (*max_key)(gcp_store_t *m);

    /*
     * The newest revision of the mirrored store its feeder has seen (in
     * its stream's headers), shared by every process: raised to rev (an
     * atomic max; 0 only reads it).  Returns the value (0 until set).
     */
    int64_t  (*seen)(gcp_store_t *m, int64_t rev);
} gcp_store_mirror_ops_t;


/*
 * Returns the smallest key greater than every key that starts with prefix
 * (etcd's prefix range_end), allocated from a; "\0" (no upper bound) when
 * prefix is empty or all 0xff; len 0 only when a is out of memory.
 */
gcp_str_t gcp_store_prefix_end(gcp_arena_t *a, gcp_str_t prefix);

/*
 * Splits one of the core's keys: "/registry/RESOURCE/..." is RESOURCE of
 * the core group (""), "/registry/GROUP/RESOURCE/..." (GROUP has a dot)
 * RESOURCE of GROUP; group and resource point into key.  Returns 1 when
 * the key names a resource, 0 otherwise (another key, "/registry/GROUP/"
 * alone: then *group is set and *resource empty, or both empty).
 */
int gcp_store_key_resource(gcp_str_t key, gcp_str_t *group,
    gcp_str_t *resource);


#endif /* _GCP_STORE_H_INCLUDED_ */
