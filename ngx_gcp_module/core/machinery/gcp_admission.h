
/*
 * Admission: plugins that see every write before it is stored, as
 * kube-apiserver's admission chain.  A plugin has a mutating step, a
 * validating step, or both.  The mutating steps of every plugin run
 * first, in the chain's order, before the object is defaulted and
 * validated, and may change it; when one asks for it (a webhook whose
 * reinvocationPolicy is IfNeeded saw the object change after its call),
 * the mutating steps run once more.  The validating steps run last, right
 * before the write, and may only refuse.  Any step may complete later
 * (quota reads and writes the store, webhooks call out).
 *
 * Which plugins run, in which order, with which arguments, is set up by
 * server/gcp_admission_plugins.c from the configuration
 * (gcp_admission_conf_t); tests may add plugins at the end with
 * gcp_admission_register().  With no plugin, both steps complete at once.
 *
 * The attributes a plugin reads (operation, resource, object, old object,
 * user, options) are in gcp_admit_t; admission/gcp_admission_plugin.h is
 * the header for plugins written outside the core's folders.
 */

#ifndef _GCP_ADMISSION_H_INCLUDED_
#define _GCP_ADMISSION_H_INCLUDED_


#include "gcp_op.h"


#define GCP_ADMISSION_MAX_PLUGINS  16


typedef enum {
    GCP_ADMIT_CREATE = 0,
    GCP_ADMIT_UPDATE,
    GCP_ADMIT_DELETE
} gcp_admit_op_t;


typedef struct gcp_admit_s  gcp_admit_t;

/*
 * A step is over.  rc GCP_OK: go on.  Otherwise the refusing plugin has
 * already responded to the request (gcp_op_error...) and the write stops.
 */
typedef void (*gcp_admit_done_pt)(gcp_admit_t *ad, int rc);


struct gcp_admit_s {
    gcp_op_t           *op;         /* user: op->req->user; op->res, ri */
    gcp_admit_op_t      operation;
    json_t             *obj;        /* create, update: the new object, in */
                                    /* the resource's form; a mutating */
                                    /* step may change it or replace it */
    const json_t       *old;        /* update; delete (validating step): */
                                    /* the stored object */
    const char         *name;       /* "" for a create with generateName */
    const char         *options;    /* "CreateOptions", "UpdateOptions", */
                                    /* "DeleteOptions" */
    unsigned            dry_run:1;

    /* the registry's own continuation */
    void               *data;

    /* the plugins' state for this request, by position in the chain */
    void               *ctx[GCP_ADMISSION_MAX_PLUGINS];

    /* the runner's state */
    size_t              next;
    unsigned            mutating:1;
    unsigned            round:1;        /* 1: the mutating steps again */
    unsigned            reinvoke:1;     /* asked for: run them again */
    gcp_admit_done_pt   done;
    const char         *plugin;         /* running, for the metrics */
    int64_t             step_ns;        /* when the step, the plugin */
    int64_t             plugin_ns;      /* started (monotonic) */
};


/* One plugin in a chain. */
typedef struct {
    const char   *name;

    /*
     * The mutating and the validating step (either may be NULL).  Each
     * calls done(ad, rc) exactly once, now or later.  A refusal responds
     * first (with the Status upstream gives) and passes its rc.
     */
    void        (*admit)(void *data, gcp_admit_t *ad,
                         gcp_admit_done_pt done);
    void        (*validate)(void *data, gcp_admit_t *ad,
                            gcp_admit_done_pt done);

    void         *data;
    void        (*free)(void *data);    /* NULL: data is not the chain's */
} gcp_admission_plugin_t;


/* Per-plugin arguments given by the configuration. */
typedef struct gcp_admission_args_s  gcp_admission_args_t;

/*
 * Creates a plugin the configuration names: fills *plugin for api from
 * the configuration's arguments (args NULL: none).  With api NULL (the
 * configuration is being checked) it only checks the arguments.  Returns
 * GCP_OK, or an error with a message in err (errlen bytes).
 */
typedef int (*gcp_admission_init_pt)(gcp_api_t *api,
    const gcp_admission_args_t *args, gcp_admission_plugin_t *plugin,
    char *err, size_t errlen);


/* A plugin as the table of server/gcp_admission_plugins.c lists it. */
typedef struct {
    const char              *name;      /* kube-apiserver's, where it has */
    unsigned                 on:1;      /* enabled unless disabled */
    gcp_admission_init_pt    init;
} gcp_admission_def_t;



struct gcp_admission_args_s {
    const char           *name;
    const char * const   *args;
    size_t                nargs;
};


/*
 * kube-apiserver's --enable-admission-plugins and
 * --disable-admission-plugins, and the arguments of plugins (names are
 * those of server/gcp_admission_plugins.c).  Borrowed by the API.
 */
struct gcp_admission_conf_s {
    const char * const          *enable;
    size_t                       nenable;
    const char * const          *disable;
    size_t                       ndisable;
    const gcp_admission_args_t  *args;
    size_t                       nargs;
};


/*
 * Adds a plugin to api's chain, after those already there (the struct is
 * copied; data is freed with the chain when plugin->free is set).  Returns
 * GCP_OK, or GCP_ENOMEM (free(data) is then called), or GCP_ETOOMANY past
 * GCP_ADMISSION_MAX_PLUGINS.
 */
int gcp_admission_register(gcp_api_t *api,
    const gcp_admission_plugin_t *plugin);

/* Returns the position of the plugin named name in api's chain, or -1. */
int gcp_admission_index(gcp_api_t *api, const char *name);

/*
 * For plugins that take no arguments: returns GCP_OK when args is NULL or
 * empty, else GCP_EBADREQUEST with a message in err.
 */
int gcp_admission_no_args(const gcp_admission_args_t *args, char *err,
    size_t errlen);

/* Frees the chain (gcp_api_destroy). */
void gcp_admission_free(gcp_api_t *api);

/*
 * Fills ad's attributes for a write of operation (the registry's own
 * continuation data is set by the caller).
 */
void gcp_admission_init(gcp_admit_t *ad, gcp_op_t *op,
    gcp_admit_op_t operation, json_t *obj, const json_t *old,
    const char *name, int dry_run);

/* Runs the mutating steps (twice when asked), then calls done. */
void gcp_admission_mutate(gcp_admit_t *ad, gcp_admit_done_pt done);

/* Runs the validating steps, then calls done. */
void gcp_admission_validate(gcp_admit_t *ad, gcp_admit_done_pt done);

/*
 * During a step: returns the running plugin's slot in ad->ctx, where it
 * keeps its state for the request (NULL at first; the same slot in both
 * steps and both rounds; what it points to should live in the request's
 * arena).
 */
void **gcp_admission_slot(gcp_admit_t *ad);

/* How a webhook call ended, for its metrics. */
typedef enum {
    GCP_ADMIT_WH_ALLOWED = 0,       /* allowed (mutated or not) */
    GCP_ADMIT_WH_FAILED_OPEN,       /* a call failure, failurePolicy */
                                    /* Ignore */
    GCP_ADMIT_WH_FAILED,            /* a call failure that refuses */
    GCP_ADMIT_WH_DENIED,            /* the webhook refused */
    GCP_ADMIT_WH_INTERNAL           /* this server's own error */
} gcp_admit_wh_result_t;

/*
 * A webhook call of the running step is over (start_ns: when it started,
 * monotonic): upstream's ObserveWebhook (apiserver_admission_webhook_
 * admission_duration_seconds and _request_total), ObserveWebhookRejection
 * and ObserveWebhookFailOpen.  code: the HTTP status the call ended with
 * as upstream counts it (200 allowed, a denial's code, a failure's),
 * ignored for GCP_ADMIT_WH_ALLOWED and _INTERNAL.
 */
void gcp_admission_webhook_observe(gcp_admit_t *ad, const char *name,
    int64_t start_ns, gcp_admit_wh_result_t result, int code);

/*
 * Keeps an audit annotation for the request (upstream's
 * AddAnnotationWithLevel; the request's audit events show it,
 * gcp_op_annotate()): key must be a qualified name with a prefix
 * ("PREFIX/NAME"); an existing key keeps its first value, as upstream.
 * request_level: only at the Request level and above (a webhook's
 * patch), else from Metadata on.  What upstream refuses is logged at
 * warn level.  Returns GCP_OK, GCP_EINVALID (a bad key), GCP_EEXISTS or
 * GCP_ENOMEM.
 */
int gcp_admission_annotate(gcp_admit_t *ad, const char *key,
    const char *value, int request_level);


#endif /* _GCP_ADMISSION_H_INCLUDED_ */
