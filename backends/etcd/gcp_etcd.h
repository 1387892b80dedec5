
/*
 * The etcd backend's internals, shared by its files:
 *
 *   gcp_etcd_http.c     etcd calls on the core's HTTP client (gcp_http.h):
 *                       unary calls and streams, endpoints, failover
 *   gcp_etcd_codec.c    key mapping, JSON requests and replies
 *   gcp_etcd_cache.c    the in-memory copy: items, ordered map, history
 *   gcp_etcd_feed.c     loading the keyspace, the watch stream feeding it
 *   gcp_etcd_read.c     consistent reads: revision probes, serving reads
 *   gcp_etcd_kv.c       writes (transactions), reads at old revisions,
 *                       compaction
 *   gcp_etcd_watch.c    the store's watches: history, replays, dispatch
 *   gcp_etcd_mirror.c   the feeder of an instance's mirror (one stream)
 *   gcp_etcd_mirrored.c the store over the instance's mirror: its
 *                       revision, reads and watches
 *   gcp_store_etcd.c    open, close, the operations table, stats
 */

#ifndef _GCP_ETCD_H_INCLUDED_
#define _GCP_ETCD_H_INCLUDED_


#include <sys/types.h>
#include <jansson.h>

#include "gcp_base64.h"
#include "gcp_store_etcd.h"


#define GCP_ETCD_TIMEOUT_MS       5000
#define GCP_ETCD_HISTORY_BYTES    ((size_t) 64 << 20)
#define GCP_ETCD_HISTORY_EVENTS   ((size_t) 1 << 20)
#define GCP_ETCD_PAGE             256       /* keys per load request */
#define GCP_ETCD_CATCHUP_BATCH    1000      /* events per loop turn */
#define GCP_ETCD_PROGRESS_MS      1000
#define GCP_ETCD_SWEEP_MS         50
#define GCP_ETCD_FRESH_MS         1000

/* a write that timed out: kube-apiserver's timeout filter's message */
#define GCP_ETCD_TIMEOUT_MSG                                                  \
    "Timeout: request did not complete within requested timeout - "         \
    "context deadline exceeded"


typedef struct gcp_etcd_s         gcp_etcd_t;
typedef struct gcp_etcd_http_s    gcp_etcd_http_t;
typedef struct gcp_etcd_call_s    gcp_etcd_call_t;
typedef struct gcp_etcd_item_s    gcp_etcd_item_t;
typedef struct gcp_etcd_node_s    gcp_etcd_node_t;
typedef struct gcp_etcd_read_s    gcp_etcd_read_t;
typedef struct gcp_etcd_learn_s   gcp_etcd_learn_t;


/* ------------------------------------------------------------ http */


/* An answer to a unary call: etcd's reply, or why there is none. */
typedef struct {
    int           rc;           /* GCP_OK: json holds etcd's reply */
    json_t       *json;         /* borrowed, valid during the callback */
    const char   *message;      /* rc != GCP_OK: detail, borrowed */
} gcp_etcd_reply_t;

typedef void (*gcp_etcd_reply_pt)(void *arg, gcp_etcd_reply_t *r);

/*
 * A stream message: the "result" object of one line (borrowed).  Returns
 * GCP_OK to go on; anything else ends the stream (the end handler is not
 * called then).
 */
typedef int (*gcp_etcd_msg_pt)(void *arg, json_t *result);

/* The stream ended by itself: rc and message say why (borrowed). */
typedef void (*gcp_etcd_end_pt)(void *arg, int rc, const char *message);


#define GCP_ETCD_SAFE    0x1    /* idempotent: retried on another */
                                /* endpoint after any transport failure */
#define GCP_ETCD_LEADER  0x2    /* stream: etcd ends it when the member */
                                /* loses its leader */


/*
 * Returns a client for conf's endpoints on loop (owned by the caller,
 * released by gcp_etcd_http_destroy()), or NULL with *err set.
 */
gcp_etcd_http_t *gcp_etcd_http_create(const gcp_etcd_conf_t *conf,
    gcp_loop_t *loop, const char **err);

/*
 * Checks an endpoint list as gcp_etcd_http_create() reads it.  Returns
 * GCP_OK, or an error code with *err set to a static message.
 */
int gcp_etcd_http_check(const char *endpoints, const char **err);

/* Cancels every call (no callback runs) and releases the client. */
void gcp_etcd_http_destroy(gcp_etcd_http_t *h);

/*
 * POSTs body (copied) to path ("/v3/kv/range") and calls done once, from
 * the event loop, within timeout_ms.  Calls that were never sent are
 * retried on the next endpoint; GCP_ETCD_SAFE calls after any transport
 * failure too.  A transport failure is GCP_EUNAVAILABLE when nothing was
 * sent (or the call is GCP_ETCD_SAFE), GCP_ETIMEOUT when the call timed
 * out after it was sent, and GCP_EINDOUBT for any other failure of a
 * write that was sent (etcd may have applied it).  Returns the call
 * (owned by the client until done ran, or gcp_etcd_http_cancel()), or
 * NULL when out of memory (done not called).
 */
gcp_etcd_call_t *gcp_etcd_http_unary(gcp_etcd_http_t *h, const char *path,
    gcp_str_t body, unsigned flags, gcp_etcd_reply_pt done, void *arg);

/*
 * POSTs body to path and hands each line of the answer to msg, from the
 * event loop, until msg refuses one, the stream ends (end runs), or the
 * call is cancelled.  Returns the call or NULL when out of memory.
 */
gcp_etcd_call_t *gcp_etcd_http_stream(gcp_etcd_http_t *h, const char *path,
    gcp_str_t body, unsigned flags, gcp_etcd_msg_pt msg, gcp_etcd_end_pt end,
    void *arg);

/* Ends a call; none of its callbacks runs afterwards.  NULL is allowed. */
void gcp_etcd_http_cancel(gcp_etcd_http_t *h, gcp_etcd_call_t *c);

/* Switches to the endpoint after the one in use (a member looks bad). */
void gcp_etcd_http_failover(gcp_etcd_http_t *h);

/* The index of the endpoint in use; counters for stats. */
int gcp_etcd_http_endpoint(gcp_etcd_http_t *h);
uint64_t gcp_etcd_http_requests(gcp_etcd_http_t *h);
uint64_t gcp_etcd_http_failovers(gcp_etcd_http_t *h);


/* ------------------------------------------------------------ codec */


/*
 * Returns an integer field of an etcd JSON object (int64 fields are JSON
 * strings), 0 when absent or invalid.
 */
int64_t gcp_etcd_int(json_t *obj, const char *field);

/*
 * Returns the decoded bytes of a base64 field, allocated from a (an empty
 * string when absent), or data NULL when invalid or out of memory.
 */
gcp_str_t gcp_etcd_bytes(json_t *obj, const char *field, gcp_arena_t *a);

/*
 * Maps a core key to its etcd key and appends its base64 to b.  Returns
 * GCP_OK, or GCP_EBADREQUEST when the key is empty, holds a NUL byte or
 * does not start with the core prefix.
 */
int gcp_etcd_key_add(gcp_etcd_t *e, gcp_buf_t *b, gcp_str_t key);

/*
 * Appends the base64 etcd range [key, end) for a core range to b as
 * "key" and "range_end" JSON members, with a trailing comma.  Returns 0,
 * or 1 when no stored key can be in the range (nothing appended).
 */
int gcp_etcd_range_add(gcp_etcd_t *e, gcp_buf_t *b, gcp_str_t key,
    gcp_str_t end);

/*
 * Maps an etcd key back to the core's key: returns it allocated from a,
 * data NULL when the key is outside the prefix (or out of memory).
 */
gcp_str_t gcp_etcd_key_in(gcp_etcd_t *e, const char *key, size_t len,
    gcp_arena_t *a);

/* Returns 1 when the etcd key k (len bytes) is inside the prefix. */
int gcp_etcd_key_ours(gcp_etcd_t *e, const char *k, size_t len);

/*
 * Decodes an etcd KeyValue object into kv (key mapped back, bytes from a).
 * Returns GCP_OK, GCP_ENOTFOUND when the key is not ours, or GCP_EINTERNAL
 * when malformed.
 */
int gcp_etcd_kv(gcp_etcd_t *e, json_t *obj, gcp_kv_t *kv, gcp_arena_t *a);

/*
 * Decodes an etcd KeyValue object into a new item (one reference, key
 * mapped back).  Returns GCP_OK with *out set, GCP_ENOTFOUND when the key
 * is not ours, GCP_ENOMEM, or GCP_EINTERNAL when malformed.
 */
int gcp_etcd_item_json(gcp_etcd_t *e, json_t *obj, gcp_etcd_item_t **out);

/*
 * The gcp_rc_t for an etcd error message: GCP_ECOMPACTED, GCP_EFUTURE,
 * GCP_ETIMEOUT, GCP_EUNAVAILABLE or GCP_EINTERNAL.
 */
int gcp_etcd_error_rc(const char *message, int64_t code);

/* Returns 1 when a key holds no NUL byte and is not empty. */
int gcp_etcd_key_valid(gcp_str_t key);


/* ------------------------------------------------------------ cache */


/*
 * An immutable key-value version, reference counted: key, NUL, value, NUL
 * (as the LMDB backend, results are NUL-terminated; klen and vlen do not
 * count the NULs).
 */
struct gcp_etcd_item_s {
    size_t       refs;
    int64_t      create_revision;
    int64_t      mod_revision;
    int64_t      version;
    size_t       klen;
    size_t       vlen;
    char         data[];
};

/*
 * Returns a new item holding one reference, copies of key and value, or
 * NULL when out of memory.
 */
gcp_etcd_item_t *gcp_etcd_item_new(gcp_str_t key, gcp_str_t value,
    int64_t create, int64_t mod, int64_t version);
void gcp_etcd_item_ref(gcp_etcd_item_t *it);
void gcp_etcd_item_unref(gcp_etcd_item_t *it);

/* Fills kv to view the item (valid while a reference is held). */
void gcp_etcd_item_kv(gcp_etcd_item_t *it, gcp_kv_t *kv);

/*
 * Returns 1 when key is in [start, end) with the store's rules (end len 0:
 * the single key start; end "\0": no upper bound).
 */
int gcp_etcd_in_range(const char *key, size_t klen, gcp_str_t start,
    gcp_str_t end);


/* The ordered map of the current items (a skip list). */
typedef struct {
    gcp_etcd_node_t  *head;
    int               level;
    size_t            n;
    uint64_t          rnd;
} gcp_etcd_map_t;

int gcp_etcd_map_init(gcp_etcd_map_t *m);

/* Releases every node and the references the map holds. */
void gcp_etcd_map_free(gcp_etcd_map_t *m);

/* Returns the item of key (borrowed) or NULL. */
gcp_etcd_item_t *gcp_etcd_map_get(gcp_etcd_map_t *m, const char *key,
    size_t klen);

/*
 * Stores it under its key (the map takes the caller's reference).  Returns
 * GCP_OK and in *prev the item replaced (its reference passes to the
 * caller; NULL when none), or GCP_ENOMEM.
 */
int gcp_etcd_map_put(gcp_etcd_map_t *m, gcp_etcd_item_t *it,
    gcp_etcd_item_t **prev);

/* Removes key; returns its item (the reference passes to the caller). */
gcp_etcd_item_t *gcp_etcd_map_del(gcp_etcd_map_t *m, const char *key,
    size_t klen);

/* Returns the first node whose key is >= key (NULL: none). */
gcp_etcd_node_t *gcp_etcd_map_seek(gcp_etcd_map_t *m, const char *key,
    size_t klen);
gcp_etcd_node_t *gcp_etcd_map_next(gcp_etcd_node_t *n);
gcp_etcd_item_t *gcp_etcd_node_item(gcp_etcd_node_t *n);


/* One change kept in memory for watches that start in the past. */
typedef struct {
    int64_t            revision;
    gcp_etcd_item_t   *kv;          /* PUT: the new version */
    gcp_etcd_item_t   *prev;        /* the version before, or NULL */
    int                type;        /* GCP_STORE_EVENT_PUT or _DELETE */
} gcp_etcd_hev_t;

/* The history: the latest changes, oldest first (a ring). */
typedef struct {
    gcp_etcd_hev_t    *ev;
    size_t             cap;
    size_t             head;        /* index of the oldest */
    size_t             n;
    size_t             bytes;
    size_t             max_bytes;
    size_t             max_events;
    int64_t            base;        /* every change after it is here */
} gcp_etcd_hist_t;

void gcp_etcd_hist_init(gcp_etcd_hist_t *h, size_t max_bytes,
    size_t max_events);

/* Drops every event and sets the base. */
void gcp_etcd_hist_reset(gcp_etcd_hist_t *h, int64_t base);

/*
 * Appends a change (takes a reference on kv and prev), dropping the oldest
 * ones beyond the limits.  Returns GCP_OK or GCP_ENOMEM (then the history
 * is emptied and its base moved to revision).
 */
int gcp_etcd_hist_push(gcp_etcd_hist_t *h, int type, int64_t revision,
    gcp_etcd_item_t *kv, gcp_etcd_item_t *prev);

/* Returns the index (0 = oldest) of the first event after revision. */
size_t gcp_etcd_hist_after(gcp_etcd_hist_t *h, int64_t revision);

/* Returns event i (0 = oldest; borrowed). */
gcp_etcd_hev_t *gcp_etcd_hist_at(gcp_etcd_hist_t *h, size_t i);


/* ------------------------------------------------------------ the store */


/* A read waiting for the in-memory copy to be current. */
struct gcp_etcd_read_s {
    gcp_etcd_read_t     *next;
    gcp_etcd_read_t     *prev;
    int                  stage;         /* GCP_ETCD_READ_* */
    int64_t              need;          /* revision the copy must reach */
    uint64_t             deadline;
    uint64_t             since;         /* waiting for the copy since */
    gcp_str_t            key;
    gcp_str_t            end;
    int64_t              limit;
    unsigned             single:1;      /* get */
    unsigned             count_only:1;
    gcp_arena_t         *a;
    gcp_store_done_pt    done;
    void                *arg;
    void               (*then)(void *data);     /* not a read: runs */
    void                *data;                  /* when ready */
};

#define GCP_ETCD_READ_NEXT   0      /* for the next probe */
#define GCP_ETCD_READ_PROBE  1      /* the probe in flight covers it */
#define GCP_ETCD_READ_WAIT   2      /* need known, copy behind */


typedef enum {
    GCP_ETCD_FEED_IDLE = 0,
    GCP_ETCD_FEED_LOADING,
    GCP_ETCD_FEED_WATCHING,
    GCP_ETCD_FEED_BACKOFF
} gcp_etcd_feed_state_t;


struct gcp_etcd_s {
    gcp_store_t            store;       /* first: gcp_store_t * casts */
    gcp_etcd_http_t       *http;
    uint64_t               timeout;

    gcp_str_t              prefix;      /* etcd side, malloc'd */
    gcp_str_t              prefix_end;  /* "\0" when none */
    gcp_str_t              core;        /* core side, malloc'd */

    /* the in-memory copy */
    gcp_etcd_map_t         map;
    gcp_etcd_hist_t        hist;
    int64_t                rev;         /* the copy is at */
    int64_t                compact;     /* newest compaction known */
    int64_t                acked;       /* the watermark of a store */
                                        /* alone in its instance */
    int64_t               *watermark;   /* the instance's (or &acked) */
    unsigned               ready:1;
    unsigned               live:1;      /* the watch stream is created */

    /* the feed: load, then watch */
    gcp_etcd_feed_state_t  feed;
    gcp_etcd_call_t       *feed_call;
    gcp_loop_timer_t      *feed_timer;
    gcp_etcd_map_t         load_map;
    int64_t                load_rev;
    gcp_str_t              load_next;   /* etcd key to continue at */
    uint64_t               backoff;
    uint64_t               feed_since;  /* stream opened at (ms) */
    unsigned               need_load:1; /* a load is needed or under way */

    /* consistent reads */
    gcp_etcd_read_t       *reads;       /* arrival order */
    gcp_etcd_read_t       *reads_last;
    gcp_etcd_call_t       *probe;
    gcp_loop_timer_t      *probe_timer;
    gcp_loop_timer_t      *sweep;
    uint64_t               probe_sent;  /* the probe in flight, at (ms) */
    unsigned               quorum:1;    /* GCP_ETCD_READS_QUORUM */
    uint64_t               fresh;       /* the freshness window (ms) */
    uint64_t               confirmed;   /* the copy held every write */
                                        /* acknowledged before (ms) */
    int64_t                pending_rev; /* a probe answered: the copy */
    uint64_t               pending_at;  /* reaching it confirms it at */

    /* watches */
    gcp_store_watch_t     *watches;     /* every watch of the store */
    int                    dispatching; /* depth of event delivery */

    unsigned               swept:1;     /* cancelled watches to free */
    uint64_t               progress_at; /* last PROGRESS round (ms) */

    gcp_etcd_learn_t      *learners;    /* asking the compacted revision */

    /* one copy per instance: the mirror replaces map, history and feed */
    gcp_store_t                   *mirror;
    const gcp_store_mirror_ops_t  *mops;
    uint64_t                       behind_since;    /* the mirror has */
    int64_t                        behind_target;   /* been behind this */
                                                    /* since (ms), or 0 */

    gcp_etcd_stats_t       st;
};


#define gcp_etcd_now(e)  ((e)->store.loop->now_ms((e)->store.loop))


/* gcp_store_etcd.c */

/*
 * Sets e's key mapping (prefix, its range end, core prefix; malloc'd) from
 * conf.  Returns GCP_OK or GCP_ENOMEM (gcp_etcd_keys_free() frees what was
 * set).
 */
int gcp_etcd_keys_init(gcp_etcd_t *e, const gcp_etcd_conf_t *conf);

/* Frees the key mapping. */
void gcp_etcd_keys_free(gcp_etcd_t *e);


/* gcp_etcd_feed.c */

/* Starts loading the keyspace, then the watch stream. */
void gcp_etcd_feed_start(gcp_etcd_t *e);

/* Stops the feed (close). */
void gcp_etcd_feed_stop(gcp_etcd_t *e);

/* Drops the stream and reconnects (to another endpoint). */
void gcp_etcd_feed_restart(gcp_etcd_t *e);

/*
 * Asks etcd for the page of e's prefix that starts at the etcd key from
 * (len 0: the prefix's start), at revision (0: the current one), at most
 * GCP_ETCD_PAGE keys; done runs as for gcp_etcd_http_unary().  Returns
 * the call, or NULL when out of memory (done not called).
 */
gcp_etcd_call_t *gcp_etcd_load_page(gcp_etcd_t *e, gcp_str_t from,
    int64_t revision, gcp_etcd_reply_pt done, void *arg);

/*
 * Opens a watch stream over the whole etcd keyspace from revision from,
 * ended by etcd when its member loses the leader (gcp_etcd_feed.c says
 * why the whole keyspace).  Returns the call, or NULL when out of memory.
 */
gcp_etcd_call_t *gcp_etcd_stream_all(gcp_etcd_http_t *h, int64_t from,
    gcp_etcd_msg_pt msg, gcp_etcd_end_pt end, void *arg);


/* gcp_etcd_read.c */

void gcp_etcd_get(gcp_store_t *s, gcp_str_t key, int64_t revision,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg);
void gcp_etcd_range(gcp_store_t *s, gcp_str_t key, gcp_str_t range_end,
    int64_t revision, int64_t limit, int count_only, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg);

/*
 * Runs then(data) once the copy is loaded and at revision rev at least
 * (at once when it is), or, after the timeout, done(arg) with
 * GCP_ETIMEOUT (the result from a).
 */
void gcp_etcd_when_ready(gcp_etcd_t *e, int64_t rev, gcp_arena_t *a,
    void (*then)(void *data), void *data, gcp_store_done_pt done, void *arg);

/* The copy advanced or became ready: serves the reads it now covers. */
void gcp_etcd_reads_kick(gcp_etcd_t *e);

/*
 * The watch stream was created (up 1) or ended (up 0): while it is down,
 * reads at the current revision wait for probes.
 */
void gcp_etcd_reads_live(gcp_etcd_t *e, int up);

/* Returns the instance's write watermark. */
int64_t gcp_etcd_watermark(gcp_etcd_t *e);

/* Raises the instance's write watermark to rev (atomically). */
void gcp_etcd_watermark_raise(gcp_etcd_t *e, int64_t rev);

/* Drops every waiting read without calling it (close). */
void gcp_etcd_reads_stop(gcp_etcd_t *e);

/*
 * Returns a result allocated from a with rc, message (copied) and the
 * store's known revisions, or NULL when out of memory.
 */
gcp_store_result_t *gcp_etcd_result(gcp_etcd_t *e, gcp_arena_t *a, int rc,
    const char *message);

/* Calls done with an error result (GCP_ENOMEM if even that fails). */
void gcp_etcd_fail(gcp_etcd_t *e, gcp_arena_t *a, int rc,
    const char *message, gcp_store_done_pt done, void *arg);


/* gcp_etcd_kv.c */

void gcp_etcd_create(gcp_store_t *s, gcp_str_t key, gcp_str_t value,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg);
void gcp_etcd_update(gcp_store_t *s, gcp_str_t key, gcp_str_t value,
    int64_t mod_revision, gcp_arena_t *a, gcp_store_done_pt done, void *arg);
void gcp_etcd_del(gcp_store_t *s, gcp_str_t key, int64_t mod_revision,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg);
void gcp_etcd_compact(gcp_store_t *s, int64_t revision, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg);

/* Reads at an old revision from etcd itself. */
void gcp_etcd_remote_range(gcp_etcd_t *e, gcp_str_t key, gcp_str_t end,
    int64_t revision, int64_t limit, int count_only, int single,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg);

/*
 * Completes res (rc GCP_ECOMPACTED) once etcd's compacted revision is
 * known: asks etcd unless a compaction at or above floor is known.
 */
void gcp_etcd_compacted(gcp_etcd_t *e, gcp_store_result_t *res,
    int64_t floor, gcp_store_done_pt done, void *arg);

/* Drops the questions about the compacted revision (close). */
void gcp_etcd_learn_stop(gcp_etcd_t *e);


/* gcp_etcd_mirrored.c */

/* Follows the mirror's revision (open).  Returns GCP_OK or an error. */
int gcp_etcd_mirrored_attach(gcp_etcd_t *e);

/* Stops following it (close). */
void gcp_etcd_mirrored_detach(gcp_etcd_t *e);

/*
 * Reads waiting for the mirror's load: looks again (a load at the
 * revision the mirror was at moves nothing, so wakes nobody).
 */
void gcp_etcd_mirrored_poll(gcp_etcd_t *e);

/*
 * Measures how far the mirror is behind etcd as this process knows it
 * (the watermark, the feeder's stream): sets the lag gauge and when it
 * began lagging.  Returns the lag in revisions.
 */
int64_t gcp_etcd_mirrored_lag(gcp_etcd_t *e);

/* The mirror's feeder stream is up (reads consult it, gcp_etcd_read.c). */
int gcp_etcd_mirrored_live(gcp_etcd_t *e);

/*
 * Answers a read from the mirror: at the current revision (revision 0,
 * once the waiting logic of gcp_etcd_read.c allows), or at an old one
 * (from etcd when the mirror does not hold it).  done runs as for the
 * store's reads.
 */
void gcp_etcd_mirrored_read(gcp_etcd_t *e, gcp_str_t key, gcp_str_t end,
    int64_t revision, int64_t limit, int count_only, int single,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg);

/* Returns 1 when key is too long for the mirror (written: refused). */
int gcp_etcd_mirrored_too_long(gcp_etcd_t *e, gcp_str_t key);

/* The store's watches on the mirror (gcp_store_ops_t's). */
gcp_store_watch_t *gcp_etcd_mirrored_watch(gcp_etcd_t *e, gcp_str_t key,
    gcp_str_t range_end, int64_t start_revision, gcp_store_event_pt handler,
    void *arg);


/* gcp_etcd_watch.c */

gcp_store_watch_t *gcp_etcd_watch(gcp_store_t *s, gcp_str_t key,
    gcp_str_t range_end, int64_t start_revision, gcp_store_event_pt handler,
    void *arg);
void gcp_etcd_watch_cancel(gcp_store_t *s, gcp_store_watch_t *w);
int64_t gcp_etcd_watch_revision(gcp_store_t *s, gcp_store_watch_t *w);

/* A change applied to the copy: hands it to the live watches. */
void gcp_etcd_watch_dispatch(gcp_etcd_t *e, const gcp_etcd_hev_t *hev);

/* The copy was loaded for the first time: "now" is its revision. */
void gcp_etcd_watch_loaded(gcp_etcd_t *e);

/* The copy moved to e->rev: PROGRESS events, live positions. */
void gcp_etcd_watch_advance(gcp_etcd_t *e);

/*
 * The copy lost changes (compacted while disconnected): ends every watch
 * that follows the copy with an ERROR event (GCP_ECOMPACTED).
 */
void gcp_etcd_watch_lost(gcp_etcd_t *e, int64_t compact_revision);

/* Frees every watch without events (close). */
void gcp_etcd_watch_stop(gcp_etcd_t *e);


#endif /* _GCP_ETCD_H_INCLUDED_ */
