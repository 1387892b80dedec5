
/*
 * Controller internals shared by gcp_ctl*.c: one leadership term (the
 * "run"), the events the store watch feeds to the controllers, the
 * controller interface, and helpers for a sync's reads and API calls.
 *
 * A run holds a reference count: every operation in flight (a sync, a
 * list page) holds one, so that a run stopped while the store or the API
 * still owes it an answer is released only once that answer came.
 */

#ifndef _GCP_CTL_INT_H_INCLUDED_
#define _GCP_CTL_INT_H_INCLUDED_


#include <jansson.h>

#include "gcp_client.h"
#include "gcp_ctl.h"
#include "gcp_ctl_map.h"
#include "gcp_ctl_queue.h"
#include "gcp_registry.h"


#define GCP_CTL_NCONTROLLERS   12

#define GCP_CTL_LEASE_MS       15000
#define GCP_CTL_RENEW_MS       10000
#define GCP_CTL_RETRY_MS       2000
#define GCP_CTL_RESYNC_MS      300000
#define GCP_CTL_QUOTA_SYNC_MS  300000


typedef struct gcp_ctl_s  gcp_ctl_t;


typedef enum {
    GCP_CTL_EV_SYNC = 1,            /* listed (initial list or relist) */
    GCP_CTL_EV_PUT,                 /* created or updated */
    GCP_CTL_EV_DELETE
} gcp_ctl_ev_type_t;


/* One object event; everything is valid during the call only. */
typedef struct {
    gcp_ctl_ev_type_t       type;
    const gcp_resource_t   *res;
    const char             *key;
    const char             *ns;         /* "" when cluster-scoped */
    const char             *name;
    gcp_str_t               value;      /* SYNC, PUT: the object; DELETE: */
                                        /* its last value (may be empty) */
    gcp_str_t               prev;       /* PUT: before (empty: created) */
    int64_t                 revision;

    /* decoded on demand */
    gcp_arena_t            *arena;
    json_t                 *obj;
    json_t                 *prev_obj;
    unsigned                decoded:1;
    unsigned                prev_decoded:1;
} gcp_ctl_event_t;


/* The decoded value (or, for a delete, the last value), or NULL; borrowed. */
json_t *gcp_ctl_event_obj(gcp_ctl_event_t *ev);

/* The decoded previous value of a PUT, or NULL; borrowed. */
json_t *gcp_ctl_event_prev(gcp_ctl_event_t *ev);


/*
 * A controller (gcp_ctl_ns.c, gcp_ctl_gc.c, ...).  create and free are
 * required; any other function may be NULL (nothing to do).
 */
typedef struct {
    const char  *name;
    unsigned     bit;

    /* Returns the controller's state, or NULL when out of memory. */
    void      *(*create)(gcp_ctl_t *ctl);

    /* Every object event, in revision order. */
    void       (*event)(void *c, gcp_ctl_event_t *ev);

    /* Relisting after a broken watch: SYNC events follow, then synced. */
    void       (*relist)(void *c);

    /* Every object has been seen once (after the first list, a relist). */
    void       (*synced)(void *c);

    /* Periodic: look at everything again. */
    void       (*resync)(void *c);

    /* The run stops: no new work (work in flight completes). */
    void       (*stop)(void *c);

    /* The run is released: free the state. */
    void       (*free)(void *c);
} gcp_ctl_controller_t;


extern const gcp_ctl_controller_t  gcp_ctl_namespace_controller;
extern const gcp_ctl_controller_t  gcp_ctl_gc_controller;
extern const gcp_ctl_controller_t  gcp_ctl_sa_controller;
extern const gcp_ctl_controller_t  gcp_ctl_root_ca_controller;
extern const gcp_ctl_controller_t  gcp_ctl_quota_controller;
extern const gcp_ctl_controller_t  gcp_ctl_cragg_controller;
extern const gcp_ctl_controller_t  gcp_ctl_crd_controller;
extern const gcp_ctl_controller_t  gcp_ctl_apf_controller;
extern const gcp_ctl_controller_t  gcp_ctl_apisvc_controller;
extern const gcp_ctl_controller_t  gcp_ctl_apisvc_avail_controller;
extern const gcp_ctl_controller_t  gcp_ctl_authtrust_controller;
extern const gcp_ctl_controller_t  gcp_ctl_csr_signing_controller;
extern const gcp_ctl_controller_t  gcp_ctl_csr_cleaner_controller;


/* What the run knows of a namespace. */
typedef struct {
    unsigned    terminating:1;      /* deletionTimestamp set */
} gcp_ctl_ns_t;


struct gcp_ctl_s {
    gcp_api_t                    *api;
    gcp_store_t                  *store;
    gcp_loop_t                   *loop;
    const gcp_ctl_conf_t         *conf;

    unsigned                      refs;
    unsigned                      stopped:1;
    unsigned                      synced:1;

    void                         *informer;
    gcp_ctl_map_t                *namespaces;   /* name -> gcp_ctl_ns_t */
    gcp_loop_timer_t             *resync;

    const gcp_ctl_controller_t   *controllers[GCP_CTL_NCONTROLLERS];
    void                         *state[GCP_CTL_NCONTROLLERS];
    size_t                        n;

    void                        (*released)(void *arg);
    void                         *released_arg;
};


/*
 * Starts a run: the watch of every object and the controllers conf does
 * not switch off.  Returns it (released by gcp_ctl_run_stop()), or NULL.
 */
gcp_ctl_t *gcp_ctl_run_start(gcp_api_t *api, const gcp_ctl_conf_t *conf);

/* Stops a run; released(arg) is called once nothing is in flight. */
void gcp_ctl_run_stop(gcp_ctl_t *ctl, void (*released)(void *arg),
    void *arg);

void gcp_ctl_ref(gcp_ctl_t *ctl);
void gcp_ctl_unref(gcp_ctl_t *ctl);

/* The namespace as last seen, or NULL when it does not exist. */
const gcp_ctl_ns_t *gcp_ctl_namespace(gcp_ctl_t *ctl, const char *name);

/*
 * The served resource whose objects have apiVersion api_version and kind
 * kind (the first one registered when several do), or NULL.
 */
const gcp_resource_t *gcp_ctl_resource_of_kind(gcp_ctl_t *ctl,
    const char *api_version, const char *kind);

/*
 * The URL path of a resource's collection in namespace ns ("" for the
 * cluster or a cluster-scoped resource), arena-owned:
 * "/api/v1/namespaces/NS/configmaps", "/apis/G/V/RESOURCE".
 */
const char *gcp_ctl_path(gcp_arena_t *a, const gcp_resource_t *res,
    const char *ns);

/* The API identity the controllers act as. */
extern const gcp_user_t  gcp_ctl_user;


/* A sync's API call: done gets the response (status 0: none). */
typedef void (*gcp_ctl_call_pt)(gcp_ctl_item_t *item,
    gcp_client_resp_t *resp);

void gcp_ctl_call(gcp_ctl_item_t *item, const char *method,
    const char *path, const char *content_type, const char *body,
    gcp_ctl_call_pt done);

/*
 * A sync's read of one key from the store: done gets the kv (NULL when
 * absent) or rc != GCP_OK on a storage error.
 */
typedef void (*gcp_ctl_get_pt)(gcp_ctl_item_t *item, int rc,
    const gcp_kv_t *kv);

void gcp_ctl_get(gcp_ctl_item_t *item, gcp_str_t key, gcp_ctl_get_pt done);

/*
 * A sync's read of one object that is needed: a storage error ends the
 * sync with its rc, an absent object with GCP_OK; done gets the object
 * otherwise, decoded (arena-owned; NULL when it does not decode).
 */
typedef void (*gcp_ctl_object_pt)(gcp_ctl_item_t *item, json_t *obj);

void gcp_ctl_get_object(gcp_ctl_item_t *item, gcp_str_t key,
    gcp_ctl_object_pt done);

/*
 * A sync's read of the keys under prefix (at the current revision): done
 * gets the result (its rc, kvs, nkvs; count with count_only).
 */
typedef void (*gcp_ctl_range_pt)(gcp_ctl_item_t *item,
    gcp_store_result_t *res);

void gcp_ctl_range(gcp_ctl_item_t *item, gcp_str_t prefix, int count_only,
    gcp_ctl_range_pt done);

/*
 * A controller with one work queue (gcp_ctl_base.c): its state starts
 * with this, and the functions below serve as its controller functions.
 */
typedef struct {
    gcp_ctl_t        *ctl;
    gcp_ctl_queue_t  *queue;            /* its ctx: the state */
} gcp_ctl_base_t;

/*
 * Returns a new state of size bytes (at least a gcp_ctl_base_t; the rest
 * zeroed) with the queue name syncing with sync, or NULL.  It is freed by
 * gcp_ctl_base_free().
 */
void *gcp_ctl_base_create(gcp_ctl_t *ctl, size_t size, const char *name,
    unsigned workers, gcp_ctl_sync_pt sync);

/* Starts the queue. */
void gcp_ctl_base_synced(void *c);

/* Adds every namespace the run knows. */
void gcp_ctl_base_resync(void *c);

/* Adds the namespaces the run knows, or only the terminating ones. */
void gcp_ctl_base_add_namespaces(gcp_ctl_base_t *b, int terminating_only);

/*
 * A sync of the namespace item->key: while that namespace is active, reads
 * the object name of the namespaced resource res in it (done as with
 * gcp_ctl_get()); ends the sync with GCP_OK when it is gone or terminating.
 */
void gcp_ctl_base_get_active(gcp_ctl_item_t *item,
    const gcp_resource_t *res, const char *name, gcp_ctl_get_pt done);

/* Stops the queue. */
void gcp_ctl_base_stop(void *c);

/* Frees the queue and the state. */
void gcp_ctl_base_free(void *c);


/*
 * Ends the sync of item by the status of its API call: rc GCP_OK when
 * resp->status is one of ok (a list ended by 0), fail otherwise.
 */
void gcp_ctl_call_done(gcp_ctl_item_t *item, const gcp_client_resp_t *resp,
    const int *ok, int fail);


/*
 * A sync's steps 0 .. n-1, then its last step, run one after the other
 * (gcp_ctl_steps.c).  A step advances next and runs the steps again, at
 * once or from the callback it waits for (a store read, which may answer
 * inside the call, or an API call).  The stack does not grow with the
 * number of steps: a run started from inside a step only asks the running
 * loop for another round.  The last step ends the sync; any step may end
 * it early (the runner, in the sync's arena, goes with it).
 */
typedef void (*gcp_ctl_step_pt)(void *data);

typedef struct {
    size_t             next;            /* the step to run */
    size_t             n;
    gcp_ctl_step_pt    step;            /* runs step next, next < n */
    gcp_ctl_step_pt    last;            /* runs once next == n */
    void              *data;
    int               *alive;           /* the running loop's, or NULL */
    unsigned           again:1;
} gcp_ctl_steps_t;

/*
 * Prepares s, allocated in the sync's arena a, for n steps from step 0;
 * nothing runs yet.  Returns GCP_OK or GCP_ENOMEM.
 */
int gcp_ctl_steps_init(gcp_ctl_steps_t *s, gcp_arena_t *a, size_t n,
    gcp_ctl_step_pt step, gcp_ctl_step_pt last, void *data);

/* Runs the steps from s->next on (see above). */
void gcp_ctl_steps_run(gcp_ctl_steps_t *s);

/*
 * Prepares s, in the arena of item, and runs the steps; when it cannot,
 * ends the sync of item with GCP_ENOMEM.
 */
void gcp_ctl_steps_start(gcp_ctl_steps_t *s, gcp_ctl_item_t *item,
    size_t n, gcp_ctl_step_pt step, gcp_ctl_step_pt last, void *data);


/* JSON string text with Go's escaping, arena-owned ("\"x\""). */
const char *gcp_ctl_json_str(gcp_arena_t *a, const char *s);



/*
 * Starts the ClusterRole aggregation of api (gcp_rbac_aggregate.c, run by
 * gcp_ctl_cragg.c), following api's RBAC index (created if need be).
 * Returns its handle, owned by the caller and released with
 * gcp_rbac_aggregator_stop(), or NULL when out of memory.
 */
void *gcp_rbac_aggregator_start(gcp_api_t *api);

/*
 * Stops the aggregation (NULL is fine): no pass runs any more.  An update
 * in flight completes unobserved; released(arg), when not NULL, is called
 * once the handle is freed (at once, or later from the loop).
 */
void gcp_rbac_aggregator_stop(void *aggregator, void (*released)(void *arg),
    void *arg);


#endif /* _GCP_CTL_INT_H_INCLUDED_ */
