
/*
 * Objects created at first start (the system namespaces, the bootstrap
 * RBAC policy): each written only if its key does not exist yet, one after
 * the other, so that a restart or a second worker changes nothing.
 */

#ifndef _GCP_SEED_H_INCLUDED_
#define _GCP_SEED_H_INCLUDED_


#include "gcp_core.h"
#include "gcp_store.h"


/*
 * Makes object i: sets *key and *value (memory of a, which lives until the
 * seeding ends).  Returns GCP_OK or GCP_ENOMEM.
 */
typedef int (*gcp_seed_make_pt)(void *data, size_t i, gcp_arena_t *a,
    gcp_str_t *key, gcp_str_t *value);


/*
 * Creates objects 0 to n - 1 of make() that do not exist yet, in order,
 * then calls done(arg, rc) once: GCP_OK, or the first error (the objects
 * after it are not written).  data is handed to make() as is.
 */
void gcp_seed(gcp_store_t *store, size_t n, gcp_seed_make_pt make,
    void *data, void (*done)(void *arg, int rc), void *arg);


#endif /* _GCP_SEED_H_INCLUDED_ */
