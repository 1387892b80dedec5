
/*
 * Test support for RBAC: an API core with the RBAC authorizer (and the
 * controllers, for ClusterRole aggregation), requests as given users, and
 * waiting for the RBAC index to follow the store.
 */

#ifndef _SUPPORT_RBAC_H_INCLUDED_
#define _SUPPORT_RBAC_H_INCLUDED_


#include "support_api.h"


/* Users of the tests (static). */
extern const gcp_user_t  rbac_admin;        /* group system:masters */
extern const gcp_user_t  rbac_anchor;       /* system:authenticated only */
extern const gcp_user_t  rbac_anonymous;    /* system:unauthenticated */


/*
 * Returns a bootstrapped API with authorization mode "RBAC" (or mode, when
 * not NULL) and the controllers running; aborts the test on failure.
 */
api_env_t *rbac_env(const char *mode);

/*
 * Serves method path with a JSON body (NULL: none) as user, Accept JSON.
 * Waits first until the RBAC index has caught up with the store.
 */
api_resp_t *rbac_call(api_env_t *env, const gcp_user_t *user,
    const char *method, const char *path, const char *body);

/* rbac_call() returning only the status (the response is freed). */
int rbac_status(api_env_t *env, const gcp_user_t *user, const char *method,
    const char *path, const char *body);

/* Runs the loop until the RBAC index reflects the store's revision. */
void rbac_sync(api_env_t *env);

/*
 * Returns a user named name with the NULL-terminated groups (copied into a
 * static pool; valid until the test program exits).
 */
const gcp_user_t *rbac_user(const char *name, ...);


#endif /* _SUPPORT_RBAC_H_INCLUDED_ */
