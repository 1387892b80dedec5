
/*
 * The storage conformance suite: the behaviour every gcp_store_t backend
 * must have (backends/gcp_store.h), as cmocka tests, plus the helpers the
 * tests use, which backend-specific tests may use too.
 *
 * A backend's test program calls gcp_store_conformance_run() with a
 * function that opens a store on a new, empty database whose loop is a
 * gcp_loop_poll_* loop, and one that closes it (and removes the database).
 * Asynchronous completions are driven by running that loop.
 */

#ifndef _STORE_CONFORMANCE_H_INCLUDED_
#define _STORE_CONFORMANCE_H_INCLUDED_


#include "gcp_core.h"
#include "gcp_loop.h"
#include "gcp_store.h"


typedef gcp_store_t *(*gcp_sc_open_pt)(void *ctx);
typedef void (*gcp_sc_close_pt)(gcp_store_t *s, void *ctx);


/*
 * Runs every conformance test, each on a store from open (closed with close
 * after the test).  Returns the number of failed tests (cmocka's count).
 */
int gcp_store_conformance_run(const char *backend_name, gcp_sc_open_pt open,
    gcp_sc_close_pt close, void *ctx);

/*
 * Set (before gcp_store_conformance_run()): the arena each test reads into
 * is brief (gcp_arena_set_brief()), so a store may hand out results
 * pointing into memory of its own (LMDB's pinned snapshots).
 */
extern int  gcp_sc_brief;


/* Milliseconds the helpers wait for a callback before failing the test. */
#define GCP_SC_TIMEOUT  10000


/* Returns a gcp_str_t viewing the C string s (not copied). */
gcp_str_t gcp_sc_str(const char *s);

/*
 * Runs the store's loop until *flag is non-zero or timeout_ms passed.
 * Returns 1 if the flag was set, 0 on timeout.
 */
int gcp_sc_wait(gcp_store_t *s, const int *flag, int timeout_ms);

/*
 * Runs the loop for about ms milliseconds (every callback due runs).
 */
void gcp_sc_spin(gcp_store_t *s, int ms);


/*
 * Synchronous forms of the store operations: start the operation, run the
 * loop until its callback ran (failing the cmocka test after
 * GCP_SC_TIMEOUT) and return its result, which lives in a (owned by the
 * caller's arena).
 */
gcp_store_result_t *gcp_sc_get(gcp_store_t *s, gcp_arena_t *a, gcp_str_t key,
    int64_t revision);
gcp_store_result_t *gcp_sc_range(gcp_store_t *s, gcp_arena_t *a,
    gcp_str_t key, gcp_str_t end, int64_t revision, int64_t limit,
    int count_only);
gcp_store_result_t *gcp_sc_create(gcp_store_t *s, gcp_arena_t *a,
    gcp_str_t key, gcp_str_t value);
gcp_store_result_t *gcp_sc_update(gcp_store_t *s, gcp_arena_t *a,
    gcp_str_t key, gcp_str_t value, int64_t mod_revision);
gcp_store_result_t *gcp_sc_delete(gcp_store_t *s, gcp_arena_t *a,
    gcp_str_t key, int64_t mod_revision);
gcp_store_result_t *gcp_sc_compact(gcp_store_t *s, gcp_arena_t *a,
    int64_t revision);

/* Returns the store's current revision (a range of nothing at rev 0). */
int64_t gcp_sc_revision(gcp_store_t *s);


/*
 * An event recorder: a watch handler that copies every PUT, DELETE and
 * ERROR event into arena (PROGRESS events are only counted), in order.
 * After stop_after events (0: never) the handler returns GCP_ECONFLICT,
 * which ends the watch.
 */
typedef struct {
    gcp_arena_t        *arena;
    gcp_buf_t           buf;            /* gcp_store_event_t[] */
    size_t              n;
    size_t              progress;
    size_t              stop_after;
    int64_t             last_revision;  /* of the last event recorded */
    unsigned            in_watch:1;     /* set by the test around watch() */
    unsigned            early:1;        /* an event came during watch() */
    unsigned            out_of_order:1;
} gcp_sc_rec_t;

/* Initialises rec; copies are allocated from a. */
void gcp_sc_rec_init(gcp_sc_rec_t *rec, gcp_arena_t *a);

/* The gcp_store_event_pt for a gcp_sc_rec_t argument. */
int gcp_sc_rec_handler(void *arg, const gcp_store_event_t *ev);

/* Returns event i recorded (borrowed; valid until the next event). */
gcp_store_event_t *gcp_sc_rec_event(gcp_sc_rec_t *rec, size_t i);

/* Runs the loop until rec holds n events; returns 1, or 0 on timeout. */
int gcp_sc_rec_wait(gcp_store_t *s, gcp_sc_rec_t *rec, size_t n,
    int timeout_ms);

/*
 * Starts a watch recorded by rec (in_watch set around the call) and
 * returns the handle (cmocka fails the test on NULL).
 */
gcp_store_watch_t *gcp_sc_watch(gcp_store_t *s, gcp_sc_rec_t *rec,
    gcp_str_t key, gcp_str_t end, int64_t start_revision);


#endif /* _STORE_CONFORMANCE_H_INCLUDED_ */
