
/*
 * The embedded LMDB storage backend (see gcp_store.h for the interface and
 * docs/storage.md for the design).
 *
 * Process model: the master calls gcp_lmdb_prefork() once before forking
 * the workers (again on reload, then frees the old state with
 * gcp_lmdb_shared_free() once no worker uses it); each worker calls
 * gcp_lmdb_open() with its own slot number.  A respawned worker reuses its
 * slot.  An LMDB environment is never used across fork(): prefork opens it
 * to bootstrap and closes it before returning.
 */

#ifndef _GCP_STORE_LMDB_H_INCLUDED_
#define _GCP_STORE_LMDB_H_INCLUDED_


#include <sys/types.h>

#include "../gcp_store.h"


typedef struct {
    const char  *path;        /* directory; created 0700 if missing */
    size_t       map_size;    /* LMDB map size, bytes (0: 4 GiB) */
    int          nslots;      /* number of worker processes (0: 1) */
    int          sync;        /* 1: fdatasync before acknowledging writes; */
                              /* 0: no fsync at all (tests, benchmarks) */

    /*
     * A mirror (gcp_lmdb_mirror_ops): at prefork, claim(claim_arg,
     * revision, recorded, &source) is given the mirror's revision (0:
     * never completely loaded) and the source it recorded ("" when none);
     * it returns 1 to keep the mirror, or 0 to empty it (never loaded, at
     * the first revision) with *source (a string the callback owns, ""
     * for none) recorded as what it copies now.  NULL: not a mirror.
     */
    int          (*claim)(void *claim_arg, int64_t revision,
                          const char *recorded, const char **source);
    void        *claim_arg;
} gcp_lmdb_conf_t;


typedef struct gcp_lmdb_shared_s  gcp_lmdb_shared_t;


typedef struct {
    int64_t      revision;          /* current (committed) revision */
    int64_t      compact_revision;  /* reads below it fail */
    int64_t      durable;           /* highest revision known synced */
    int64_t      dispatched;        /* this process: events delivered up to */
    uint64_t     syncs;             /* fdatasync calls, all processes */
    uint64_t     synced_writes;     /* writes they acknowledged */
    uint64_t     notify_rounds;     /* this process: dispatch rounds woken */
                                    /* by an eventfd */
    uint64_t     timer_rounds;      /* this process: rounds that found new */
                                    /* events from the safety timer */
    uint64_t     compact_batches;   /* this process: compaction txns */
    uint64_t     watches;           /* this process: live watches */
    uint64_t     pinned_reads;      /* this process: reads handed out of */
                                    /* the map without a copy */
    uint64_t     snapshots;         /* this process: snapshots pinned now */
    uint64_t     hist_entries;      /* entries in the hist database */
    uint64_t     log_entries;       /* entries in the log database */
    size_t       map_used;          /* bytes of the map in use */
    size_t       map_size;
} gcp_lmdb_stats_t;


/*
 * In the master, before forking: creates the directory (0700) and the
 * database if missing, syncs it, and creates the state shared with the
 * workers (shared memory, one eventfd per slot).  Returns it (owned by the
 * caller, released by gcp_lmdb_shared_free()), or NULL with *err set to a
 * static or strerror() message.
 */
gcp_lmdb_shared_t *gcp_lmdb_prefork(const gcp_lmdb_conf_t *conf,
    const char **err);

/*
 * In the master, after prefork when it runs as root: gives the directory
 * and the database files to the worker user.  Returns GCP_OK, or
 * GCP_EINTERNAL with *err set.
 */
int gcp_lmdb_chown(const gcp_lmdb_shared_t *sh, uid_t uid, gid_t gid,
    const char **err);

/*
 * In a worker (after fork): opens the environment for slot (0..nslots-1)
 * on loop.  Returns the store (owned by the caller, released by
 * gcp_store_close(), which must not be called from inside one of the
 * store's callbacks), or NULL with *err set to a static message.
 */
gcp_store_t *gcp_lmdb_open(gcp_lmdb_shared_t *sh, int slot, gcp_loop_t *loop,
    const char **err);

/* In the master, on exit or reload: releases the shared state.  NULL ok. */
void gcp_lmdb_shared_free(gcp_lmdb_shared_t *sh);

/*
 * Fills *st for a store returned by gcp_lmdb_open() (for /readyz and
 * benchmarks).  Returns GCP_OK or a gcp_rc_t.
 */
int gcp_lmdb_stats(gcp_store_t *s, gcp_lmdb_stats_t *st);


/*
 * Mirrors (gcp_store.h): an LMDB store opened as usual (prefork, open)
 * serves as the copy of another store's keyspace.  Its commits are
 * published at once, without fdatasync (the copy is not the truth).  The
 * functions take a store returned by gcp_lmdb_open().
 */
extern const gcp_store_mirror_ops_t  gcp_lmdb_mirror_ops;

int gcp_lmdb_mirror_load(gcp_store_t *s, const gcp_kv_t *kvs, size_t n,
    int64_t revision, unsigned flags, const char **msg);
int gcp_lmdb_mirror_apply(gcp_store_t *s, const gcp_store_event_t *ev,
    size_t n, int64_t revision, const char **msg);
int gcp_lmdb_mirror_state(gcp_store_t *s, int64_t *revision,
    int64_t *loading);


#endif /* _GCP_STORE_LMDB_H_INCLUDED_ */
