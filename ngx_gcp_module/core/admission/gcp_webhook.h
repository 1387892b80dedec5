
/*
 * Admission webhooks, between their files:
 *
 *   gcp_webhook_config.c      the configurations each worker keeps from a
 *                             store watch, compiled; snapshots in
 *                             kube-apiserver's order (configuration name,
 *                             then position)
 *   gcp_webhook_match.c       which webhooks a request reaches: rules
 *                             (and equivalent resources), namespace and
 *                             object selectors, exemptions
 *   gcp_webhook_review.c      AdmissionReview v1 and v1beta1: the request
 *                             sent (and the checks before), the response
 *                             checked, denials and failures as upstream's
 *                             Status errors
 *   gcp_webhook_call.c        the call (gcp_webhook_call.h)
 *   gcp_webhook_mutating.c    MutatingAdmissionWebhook: one webhook after
 *                             the other, JSONPatch, reinvocation
 *   gcp_webhook_validating.c  ValidatingAdmissionWebhook: in parallel
 */

#ifndef _GCP_WEBHOOK_H_INCLUDED_
#define _GCP_WEBHOOK_H_INCLUDED_


#include "gcp_admission.h"
#include "gcp_mirror.h"
#include "gcp_selector.h"
#include "gcp_webhook_call.h"


#define GCP_WH_OP_CREATE   0x1
#define GCP_WH_OP_UPDATE   0x2
#define GCP_WH_OP_DELETE   0x4
#define GCP_WH_OP_CONNECT  0x8

#define GCP_WH_SCOPE_ANY         0
#define GCP_WH_SCOPE_CLUSTER     1
#define GCP_WH_SCOPE_NAMESPACED  2


typedef struct {
    unsigned               ops;         /* GCP_WH_OP_* */
    const char * const    *groups;      /* NULL-terminated; "*": all */
    const char * const    *versions;
    const char * const    *resources;   /* "res", "res/sub", "*"; "*" as sub */
    int                    scope;       /* GCP_WH_SCOPE_* */
} gcp_webhook_rule_t;


/* One webhook of a stored configuration, compiled. */
typedef struct {
    const char             *config;     /* the configuration's name */
    const char             *name;
    const char             *id;         /* "CONFIG/INDEX": reinvocation */
    size_t                  index;      /* in the configuration */

    gcp_webhook_rule_t     *rules;
    size_t                  nrules;
    gcp_label_selector_t   *ns_sel;     /* NULL: everything */
    gcp_label_selector_t   *obj_sel;
    const char             *sel_error;  /* a selector that does not parse */
    const char             *error;      /* cannot be called: why */

    int                     timeout;    /* seconds */
    const char             *review;     /* "v1", "v1beta1", NULL: none */
    gcp_webhook_client_t    client;

    unsigned                mutating:1;
    unsigned                ignore:1;       /* failurePolicy Ignore */
    unsigned                equivalent:1;   /* matchPolicy Equivalent */
    unsigned                reinvoke:1;     /* reinvocationPolicy */
                                            /* IfNeeded */
    unsigned                side_effects:2; /* GCP_WH_SE_* */
    unsigned                conditions:1;   /* matchConditions (CEL) */
} gcp_webhook_t;

#define GCP_WH_SE_NIL    0
#define GCP_WH_SE_NONE   1          /* None or NoneOnDryRun */
#define GCP_WH_SE_SOME   2          /* Some or Unknown */


/* The webhooks of one kind at one moment, referenced by requests. */
typedef struct gcp_webhook_set_s  gcp_webhook_set_t;

struct gcp_webhook_set_s {
    int                     refs;
    const gcp_webhook_t   **hooks;
    size_t                  n;
    void                  **cfgs;       /* the configurations it holds */
    size_t                  ncfgs;
};


/* One admission webhook plugin (mutating or validating). */
typedef struct {
    gcp_api_t              *api;
    gcp_http_t             *http;
    gcp_mirror_t           *mirror;
    void                  **cfgs;       /* sorted by name */
    size_t                  ncfgs;
    gcp_webhook_set_t      *set;        /* the current one, or NULL */
    int64_t                 logged_ns;  /* the last failure logged */
    uint64_t                unlogged;   /* failures not logged since */
    unsigned                mutating:1;
} gcp_webhook_plugin_t;


/* gcp_webhook_config.c */

/*
 * Starts keeping the configurations of one kind (plugin->mutating) of
 * plugin->api's store.  Returns GCP_OK or GCP_ENOMEM.
 */
int gcp_webhook_config_start(gcp_webhook_plugin_t *p);

/* Stops and frees everything (sets still held by requests live on). */
void gcp_webhook_config_stop(gcp_webhook_plugin_t *p);

/*
 * Returns the current webhooks, referenced for the request of arena a
 * (released with it), or NULL when out of memory.
 */
gcp_webhook_set_t *gcp_webhook_config_get(gcp_webhook_plugin_t *p,
    gcp_arena_t *a);


/* gcp_webhook_match.c */

/* What a matching webhook is called with. */
typedef struct {
    const gcp_webhook_t    *hook;
    size_t                  index;      /* in the set */
    const gcp_resource_t   *res;        /* the resource it is called for */
                                        /* (an equivalent one, maybe) */
} gcp_webhook_invocation_t;

/* The request's namespace labels, read once when a selector needs them. */
typedef struct {
    int                     state;      /* 0 unread, 1 read, 2 missing */
    const json_t           *labels;
} gcp_webhook_ns_t;

/* Returns 1 when webhooks are never called for ad (configurations). */
int gcp_webhook_exempt(const gcp_admit_t *ad);

/* The request's namespace as admission sees it (a Namespace's own name). */
const char *gcp_webhook_namespace(const gcp_admit_t *ad);

/*
 * Returns 1 when hook's rules match ad (inv filled: the resource it is
 * called for), else 0.
 */
int gcp_webhook_rules_match(const gcp_webhook_t *hook, const gcp_admit_t *ad,
    gcp_webhook_invocation_t *inv);

/*
 * Returns 1 when hook's namespace selector needs the namespace's labels
 * for ad (they are not in the object, ns->state 0).
 */
int gcp_webhook_needs_namespace(const gcp_webhook_t *hook,
    const gcp_admit_t *ad, const gcp_webhook_ns_t *ns);

/*
 * Reads the labels of ad's namespace into ns, then calls done(arg) (from
 * the loop or before this returns).
 */
void gcp_webhook_read_namespace(gcp_admit_t *ad, gcp_webhook_ns_t *ns,
    void (*done)(void *arg), void *arg);

/*
 * Returns 1 when hook's selectors match ad, 0 when not; GCP_ENOTFOUND
 * (negative: -1) when the namespace does not exist (the caller answers
 * 404 as upstream, gcp_webhook_namespace_missing()).
 */
int gcp_webhook_selectors_match(const gcp_webhook_t *hook,
    const gcp_admit_t *ad, const gcp_webhook_ns_t *ns);

/* Responds 404 for ad's missing namespace and returns GCP_ENOTFOUND. */
int gcp_webhook_namespace_missing(gcp_admit_t *ad);


/* gcp_webhook_review.c */

/* A review in flight: what was sent, to check what comes back. */
typedef struct {
    const char             *uid;
    const char             *version;    /* "v1", "v1beta1" */
    const json_t           *object;     /* as sent (the invocation's form) */
} gcp_webhook_review_t;

/* A webhook's response, checked. */
typedef struct {
    unsigned                allowed:1;
    const json_t           *status;     /* response.status, or NULL */
    gcp_str_t               patch;      /* decoded JSONPatch, or empty */
} gcp_webhook_response_t;

/*
 * Builds the AdmissionReview for inv (object: the object in the
 * invocation's form, or NULL).  Returns the body (arena), data NULL when
 * out of memory.
 */
gcp_str_t gcp_webhook_review_body(gcp_admit_t *ad,
    const gcp_webhook_invocation_t *inv, const json_t *object,
    gcp_webhook_review_t *rv);

/*
 * Checks a webhook's answer (VerifyAdmissionResponse), then keeps its
 * audit annotations and sends its warnings.  Returns GCP_OK with *resp,
 * or GCP_EINVALID with *err ("received invalid webhook response: ...").
 */
int gcp_webhook_review_response(gcp_admit_t *ad, const gcp_webhook_t *hook,
    const gcp_webhook_review_t *rv, const json_t *answer,
    gcp_webhook_response_t *resp, const char **err);

/*
 * Responds with a webhook's denial (ToStatusErr): its status with the
 * message prefixed "admission webhook \"NAME\" denied the request".
 * Returns the error code to pass on.
 */
int gcp_webhook_deny(gcp_admit_t *ad, const gcp_webhook_t *hook,
    const json_t *status);

/*
 * Returns the HTTP status upstream counts for a failed call (the
 * webhook's non-2xx status; otherwise 503 for a mutating webhook, 400 for
 * a validating one, as their dispatchers word a transport error).
 */
int gcp_webhook_failure_code(const gcp_webhook_reply_t *r, int mutating);

/*
 * Logs a failed call of hook (why: as the request's Status words it), as
 * upstream's dispatchers do: "failing closed" (the request fails: error
 * level) or "failing open" (warn), at most one message a second per
 * plugin and process, with the number left out since the last.
 */
void gcp_webhook_log_failure(gcp_webhook_plugin_t *p,
    const gcp_webhook_t *hook, const char *why);

/* Returns the HTTP status of a webhook's denial (its code, 400 if none). */
int gcp_webhook_deny_code(const json_t *status);

/*
 * Responds 500 InternalError "failed calling webhook \"NAME\": why" (the
 * failure of a Fail webhook) and returns GCP_EINTERNAL.
 */
int gcp_webhook_fail(gcp_admit_t *ad, const gcp_webhook_t *hook,
    const char *why);

/*
 * Checks a dry-run request against hook's side effects.  Returns GCP_OK;
 * GCP_EUNAVAILABLE with *why when the webhook cannot say (a call failure,
 * subject to its failure policy); or responds (400, as upstream) and
 * returns GCP_EBADREQUEST.
 */
int gcp_webhook_dry_run(gcp_admit_t *ad, const gcp_webhook_t *hook,
    const char **why);

/*
 * Calls the webhook of inv for ad through p's HTTP client: first what
 * upstream checks before a call (a dry run against side effects, what
 * makes the webhook impossible to call), then the AdmissionReview with
 * the object in the invocation's form (*sent, arena-owned; NULL for
 * deletes; ad->obj itself for a validating webhook of the request's own
 * version, which must not change it).  Returns GCP_OK (done will be
 * called once); GCP_EUNAVAILABLE with *why (a call failure, by the
 * webhook's failure policy; done is not called); or, after responding,
 * GCP_EBADREQUEST (a dry run the webhook refuses) or GCP_ENOMEM.
 */
int gcp_webhook_call(gcp_webhook_plugin_t *p, gcp_admit_t *ad,
    const gcp_webhook_invocation_t *inv, gcp_webhook_review_t *rv,
    json_t **sent, const char **why, gcp_webhook_reply_pt done, void *arg);

/*
 * Converts obj from the request's resource to res (equivalent resources
 * share their storage).  Returns a new reference, or NULL.
 */
json_t *gcp_webhook_convert(gcp_op_t *op, const gcp_resource_t *from,
    const gcp_resource_t *to, const json_t *obj);


/* The plugins' shared parts (gcp_webhook_config.c). */

/* Creates a plugin's state (the plugin->data), NULL when out of memory. */
gcp_webhook_plugin_t *gcp_webhook_plugin_create(gcp_api_t *api,
    int mutating);

/* Frees it (gcp_admission_plugin_t.free). */
void gcp_webhook_plugin_free(void *data);


#endif /* _GCP_WEBHOOK_H_INCLUDED_ */
