
/*
 * The controllers' view of the store: one list of every object under
 * /registry/ (in pages, at one revision), then one watch from that
 * revision; a broken watch (compaction, storage error) lists again.  Each
 * object event goes to gcp_ctl_dispatch(); the start of a relist to
 * gcp_ctl_dispatch_relist(), the end of a list to gcp_ctl_dispatch_synced()
 * (gcp_ctl_run.c).
 */

#ifndef _GCP_CTL_INFORMER_H_INCLUDED_
#define _GCP_CTL_INFORMER_H_INCLUDED_


#include "gcp_ctl_int.h"


typedef struct gcp_ctl_informer_s  gcp_ctl_informer_t;


/* Starts listing.  Returns the informer (the run owns it), or NULL. */
gcp_ctl_informer_t *gcp_ctl_informer_start(gcp_ctl_t *ctl);

/* Cancels the watch and timers; a page in flight completes unobserved. */
void gcp_ctl_informer_stop(gcp_ctl_informer_t *inf);

/* Frees a stopped informer.  NULL is allowed. */
void gcp_ctl_informer_free(gcp_ctl_informer_t *inf);


/* gcp_ctl_run.c */
void gcp_ctl_dispatch(gcp_ctl_t *ctl, gcp_ctl_event_t *ev);
void gcp_ctl_dispatch_relist(gcp_ctl_t *ctl);
void gcp_ctl_dispatch_synced(gcp_ctl_t *ctl);

/*
 * The resource whose objects live at key, with the key's namespace ("" for
 * cluster-scoped resources) and name in *ns and *name (allocated from a),
 * or NULL when key is not an object of a served resource.
 */
const gcp_resource_t *gcp_ctl_key_resource(gcp_ctl_t *ctl, gcp_str_t key,
    gcp_arena_t *a, const char **ns, const char **name);


#endif /* _GCP_CTL_INFORMER_H_INCLUDED_ */
