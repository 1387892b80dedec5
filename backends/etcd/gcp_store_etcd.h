
/*
 * The etcd storage backend (see gcp_store.h for the interface and
 * docs/storage.md for the design).
 *
 * Each process (nginx worker) opens its own store on its own loop with
 * gcp_etcd_open(); nothing is shared across fork().  The store talks to
 * etcd v3 through its HTTP/JSON gateway with libcurl's multi interface
 * driven by the gcp_loop_t, so no call ever blocks.  Reads at the current
 * revision are served from an in-memory copy of the keyspace kept current
 * by one etcd watch stream.  The stores of one nginx instance share a write
 * watermark (the newest revision any of them wrote): a read waits until the
 * copy has reached it, so it sees every write of the instance acknowledged
 * before it.  Writes of other instances arrive by the watch stream, and a
 * "current revision" probe confirms the copy at least every fresh_ms
 * (GCP_ETCD_READS_INSTANCE); with GCP_ETCD_READS_QUORUM every read waits
 * for a probe, shared by the reads that arrived while the previous one was
 * out (docs/storage.md, "Consistent reads").
 */

#ifndef _GCP_STORE_ETCD_H_INCLUDED_
#define _GCP_STORE_ETCD_H_INCLUDED_


#include "../gcp_store.h"


typedef struct {
    /* "http://127.0.0.1:2379,http://..." (https with the TLS files) */
    const char  *endpoints;

    /*
     * Key mapping: keys of the core that start with core_prefix are stored
     * in etcd with core_prefix replaced by prefix.  The nginx module uses
     * core_prefix "/registry" (the registry's keys) and prefix "/registry"
     * by default, so keys are etcd keys as kube-apiserver writes them.
     * NULL means "".  Keys not starting with core_prefix cannot be stored.
     */
    const char  *prefix;
    const char  *core_prefix;

    const char  *cacert;            /* PEM CA bundle for https, or NULL */
    const char  *cert;              /* client certificate (PEM), or NULL */
    const char  *key;               /* its private key (PEM), or NULL */

    uint64_t     timeout_ms;        /* per operation (0: 5000) */
    size_t       history_bytes;     /* values kept for watches that start */
                                    /* in the past (0: 64 MiB) */
    size_t       history_events;    /* at most this many events (0: 1M) */

    int          reads;             /* GCP_ETCD_READS_* */
    uint64_t     fresh_ms;          /* INSTANCE: a probe confirms the copy */
                                    /* at least this often (0: 1000) */

    /*
     * The newest revision written through any store of the instance: one
     * int64_t in memory shared by its processes (MAP_SHARED, made before
     * fork, zeroed), raised atomically by each acknowledged write.  NULL:
     * the store's own (an instance of one process).
     */
    int64_t     *watermark;

    /*
     * One copy per instance (docs/storage.md): the process's view of the
     * instance's mirror (an LMDB store opened on its slot, fed by a
     * gcp_etcd_feeder_t of some process of the instance) and its mirror
     * operations.  The store then keeps no copy of its own: reads at the
     * current revision and watches are the mirror's.  NULL: the store's
     * own copy and watch stream.  The mirror must outlive the store.
     */
    gcp_store_t                   *mirror;
    const gcp_store_mirror_ops_t  *mirror_ops;

    /*
     * The feeder's: the identity of the etcd the mirror copies, as
     * gcp_etcd_identify() wrote it ("etcd cluster ID prefix P"; NULL or
     * "": the cluster of the first reply), and replaced(arg, why), called
     * once when a reply of etcd shows another cluster id, or a revision
     * behind the mirror's (etcd replaced under the instance): the mirror
     * was emptied and is no longer fed; the caller starts the instance
     * again (nginx: a reload, whose master loads the mirror anew).
     */
    const char                    *mirror_source;
    void                         (*replaced)(void *arg, const char *why);
    void                          *replaced_arg;
} gcp_etcd_conf_t;


/*
 * Consistent reads (revision 0).  INSTANCE: a read sees every write that
 * any store sharing the watermark acknowledged before the read arrived,
 * and every other write acknowledged more than fresh_ms before it, without
 * an etcd round trip while the copy's watch stream is up.  QUORUM: a read
 * sees every write acknowledged anywhere before it arrived (a linearizable
 * probe per batch of reads).
 */
#define GCP_ETCD_READS_INSTANCE  0
#define GCP_ETCD_READS_QUORUM    1


typedef struct {
    int64_t      revision;          /* of the in-memory copy */
    int64_t      compact_revision;  /* the newest compaction known */
    int64_t      history_base;      /* events after it are in memory */
    uint64_t     keys;              /* keys in the in-memory copy */
    uint64_t     history;           /* events kept in memory */
    uint64_t     loads;             /* full loads of the keyspace */
    uint64_t     streams;           /* watch streams opened (the feed) */
    uint64_t     replays;           /* watch streams for old revisions */
    uint64_t     probes;            /* current-revision probes sent */
    uint64_t     cached_reads;      /* reads answered from memory */
    uint64_t     unprobed_reads;    /* current reads that needed no probe */
    uint64_t     remote_reads;      /* reads sent to etcd (old revisions) */
    uint64_t     requests;          /* HTTP requests to etcd, all kinds */
    uint64_t     failovers;         /* switches to another endpoint */
    uint64_t     watches;           /* live watches of this store */
    int64_t      watermark;         /* newest revision the instance wrote */
    int          endpoint;          /* index of the endpoint in use */
    uint64_t     mirror_reads;      /* reads answered from the mirror */
    unsigned     ready:1;           /* the copy is loaded */
    unsigned     live:1;            /* its watch stream is up */
    unsigned     mirrored:1;        /* the copy is the instance's mirror */
} gcp_etcd_stats_t;


/*
 * Opens a store on loop.  Returns it (owned by the caller, released by
 * gcp_store_close(), which must not be called from inside one of the
 * store's callbacks), or NULL with *err set to a static message.  It does
 * not wait for etcd: the keyspace is loaded in the background, operations
 * wait for it (within timeout_ms), and an unreachable etcd only makes
 * operations fail with GCP_EUNAVAILABLE or GCP_ETIMEOUT until it is back.
 */
gcp_store_t *gcp_etcd_open(const gcp_etcd_conf_t *conf, gcp_loop_t *loop,
    const char **err);

/*
 * Checks conf without opening anything (for configuration parsing).
 * Returns GCP_OK, or GCP_EBADREQUEST with *err set to a static message.
 */
int gcp_etcd_check_conf(const gcp_etcd_conf_t *conf, const char **err);

/* Fills *st for a store returned by gcp_etcd_open().  Returns GCP_OK. */
int gcp_etcd_stats(gcp_store_t *s, gcp_etcd_stats_t *st);

/*
 * The readiness of a store over the instance's mirror (/readyz): returns
 * 1 when its mirror is loaded, a process of the instance feeds it from a
 * live watch stream, and it has not been behind etcd (as this process
 * knows it: the instance's writes, the feeder's stream) for longer than
 * the freshness window; else 0 with *why (static).  A store without a
 * mirror is ready.
 */
int gcp_etcd_mirror_ready(gcp_store_t *s, const char **why);


/*
 * The feeder of an instance's mirror (docs/storage.md, "One copy per
 * instance"): every process of the instance creates one; the one that
 * holds an exclusive lock on lock_path (flock, released by the kernel when
 * its process dies) loads the prefix into the mirror and applies etcd's
 * changes to it from one watch stream, the others try to take the lock
 * over every GCP_ETCD_LEAD_MS.  A feeder that takes over resumes from the
 * mirror's revision (no load unless etcd compacted it meanwhile, or no
 * load was ever completed).
 */
typedef struct gcp_etcd_feeder_s  gcp_etcd_feeder_t;

#define GCP_ETCD_LEAD_MS  200

typedef struct {
    uint64_t     takeovers;         /* times this process took the lock */
    uint64_t     loads;             /* full loads into the mirror */
    uint64_t     streams;           /* watch streams opened */
    uint64_t     changes;           /* changes of the prefix applied */
    int64_t      revision;          /* the mirror's, as this feeder knows */
    unsigned     feeding:1;         /* this process holds the lock */
    unsigned     live:1;            /* its watch stream is created */
} gcp_etcd_feeder_stats_t;

/*
 * Creates a feeder on loop for conf's etcd (endpoints, prefix, core_prefix,
 * TLS, timeout) writing into mirror through ops.  Returns it (owned by the
 * caller, released by gcp_etcd_feeder_destroy()), or NULL with *err set to
 * a static message.
 */
gcp_etcd_feeder_t *gcp_etcd_feeder_create(const gcp_etcd_conf_t *conf,
    const char *lock_path, gcp_store_t *mirror,
    const gcp_store_mirror_ops_t *ops, gcp_loop_t *loop, const char **err);

/* Stops feeding and releases the lock (another process takes over). */
void gcp_etcd_feeder_destroy(gcp_etcd_feeder_t *f);

/* Fills *st.  Returns GCP_OK. */
int gcp_etcd_feeder_stats(gcp_etcd_feeder_t *f, gcp_etcd_feeder_stats_t *st);

/*
 * What a mirror of conf's etcd copies, asked before the workers exist (it
 * blocks, within conf's timeout: for the nginx master and tools only):
 * writes "etcd cluster <cluster_id> prefix <prefix>" into id (size bytes,
 * "" on failure) and checks that etcd still holds revision (0: only the
 * identity).  Returns GCP_OK; GCP_ECOMPACTED when etcd compacted past
 * revision, GCP_EFUTURE when etcd has not reached it (another etcd), or
 * another error code when etcd did not answer, with *err set (static).
 */
int gcp_etcd_identify(const gcp_etcd_conf_t *conf, int64_t revision,
    char *id, size_t size, const char **err);

/* The state of gcp_etcd_claim(): conf is the caller's. */
typedef struct {
    const gcp_etcd_conf_t  *conf;
    const char             *why;        /* a loaded mirror not kept, or */
                                        /* etcd not answering: why */
                                        /* (static), or NULL */
    char                    id[1024];
} gcp_etcd_claim_t;

/*
 * The claim of an LMDB mirror (gcp_lmdb_conf_t.claim, arg a
 * gcp_etcd_claim_t): sets *source to the identity of conf's etcd and
 * prefix (in arg, "" when etcd did not answer) and returns 1 when it
 * equals recorded and etcd still holds revision (the mirror is kept),
 * else 0 with arg's why set (for a mirror that was loaded).
 */
int gcp_etcd_claim(void *arg, int64_t revision, const char *recorded,
    const char **source);


#endif /* _GCP_STORE_ETCD_H_INCLUDED_ */
