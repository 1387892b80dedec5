
/*
 * A map from NUL-terminated string keys to pointers, for the controllers'
 * in-memory state (work queue sets, the garbage collector's graph, the
 * namespaces seen).  Keys are copied; values are the caller's.
 */

#ifndef _GCP_CTL_MAP_H_INCLUDED_
#define _GCP_CTL_MAP_H_INCLUDED_


#include "gcp_core.h"


typedef struct gcp_ctl_map_s  gcp_ctl_map_t;

typedef struct {
    size_t   bucket;
    void    *next;
} gcp_ctl_map_iter_t;


/* Returns a new empty map owned by the caller, or NULL. */
gcp_ctl_map_t *gcp_ctl_map_create(void);

/* Frees the map and its keys (not the values).  NULL is allowed. */
void gcp_ctl_map_free(gcp_ctl_map_t *m);

/* Returns the value of key, or NULL. */
void *gcp_ctl_map_get(const gcp_ctl_map_t *m, const char *key);

/* Sets key to value (replacing).  Returns GCP_OK or GCP_ENOMEM. */
int gcp_ctl_map_put(gcp_ctl_map_t *m, const char *key, void *value);

/* Removes key; returns its value, or NULL when absent. */
void *gcp_ctl_map_del(gcp_ctl_map_t *m, const char *key);

size_t gcp_ctl_map_size(const gcp_ctl_map_t *m);

/*
 * Iteration: zero *it, then call until it returns 0.  *key (borrowed from
 * the map) and *value are set.  The entry just returned may be deleted;
 * other changes during an iteration are not allowed.
 */
int gcp_ctl_map_next(const gcp_ctl_map_t *m, gcp_ctl_map_iter_t *it,
    const char **key, void **value);


#endif /* _GCP_CTL_MAP_H_INCLUDED_ */
