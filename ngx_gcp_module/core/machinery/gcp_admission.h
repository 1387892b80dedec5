
/*
 * Admission: plugins that see every write before it is stored, as
 * kube-apiserver's admission chain.  Mutating plugins run first, before
 * the object is validated, and may change it; validating plugins run last,
 * right before the write, and may only refuse.  Plugins may complete later
 * (quota reads and writes the store, webhooks call out).
 *
 * With no plugin registered, both steps complete at once.
 */

#ifndef _GCP_ADMISSION_H_INCLUDED_
#define _GCP_ADMISSION_H_INCLUDED_


#include "gcp_op.h"


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
                                    /* the resource's form */
    const json_t       *old;        /* update, delete: the stored object */
    const char         *name;
    unsigned            dry_run:1;

    /* the registry's own continuation */
    void               *data;

    /* the runner's state */
    size_t              next;
    unsigned            mutating:1;
    gcp_admit_done_pt   done;
};


typedef struct {
    const char   *name;
    unsigned      mutating:1;

    /*
     * Admits ad: calls done(ad, rc) exactly once, now or later.  A refusal
     * responds first (with the Status upstream gives) and passes its rc.
     */
    void        (*admit)(void *data, gcp_admit_t *ad, gcp_admit_done_pt done);

    void         *data;
} gcp_admission_plugin_t;


/*
 * Adds a plugin to api's chain, after those already there (the struct is
 * copied; data stays the caller's).  Returns GCP_OK or GCP_ENOMEM.
 */
int gcp_admission_register(gcp_api_t *api,
    const gcp_admission_plugin_t *plugin);

/* Frees the chain (gcp_api_destroy). */
void gcp_admission_free(gcp_api_t *api);

/* Runs the mutating plugins, then calls done. */
void gcp_admission_mutate(gcp_admit_t *ad, gcp_admit_done_pt done);

/* Runs the validating plugins, then calls done. */
void gcp_admission_validate(gcp_admit_t *ad, gcp_admit_done_pt done);


#endif /* _GCP_ADMISSION_H_INCLUDED_ */
