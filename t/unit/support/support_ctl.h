
/*
 * Test support for the controllers: start them on an API environment
 * (support_api.h) with short timers, stop them and wait until they are
 * released, and wait for the state they converge to.
 */

#ifndef _SUPPORT_CTL_H_INCLUDED_
#define _SUPPORT_CTL_H_INCLUDED_


#include "gcp_ctl.h"
#include "support_api.h"


#define CTL_TEST_CA  "-----BEGIN CERTIFICATE-----\nMIIBunittest\n" \
                     "-----END CERTIFICATE-----\n"


/*
 * Starts the controllers but those in off, as identity (NULL: "test"),
 * with a 1 s lease, a 50 ms retry period and a 1 s resync, and waits
 * until they lead (lead: 1) or for one retry period (lead: 0).
 */
gcp_ctl_manager_t *ctl_start(api_env_t *env, unsigned off,
    const char *identity, int lead);

/* The same on another API core (another instance on the same store). */
gcp_ctl_manager_t *ctl_start_api(api_env_t *env, gcp_api_t *api,
    unsigned off, const char *identity, int lead);

/*
 * Returns another API core on env's store and loop (another instance),
 * without controllers; the caller destroys it with gcp_api_destroy().
 */
gcp_api_t *ctl_api_create(api_env_t *env);

/* Stops the controllers and runs the loop until they are released. */
void ctl_stop(api_env_t *env, gcp_ctl_manager_t *m);

/*
 * Runs the loop until GET path answers status (and, when field is not
 * NULL, the JSON string at the dotted path field equals value), for at
 * most ms milliseconds.  Returns the last response (caller frees).
 */
api_resp_t *ctl_wait(api_env_t *env, const char *path, int status,
    const char *field, const char *value, int ms);

/* Sends a request and asserts its status; returns the response. */
api_resp_t *ctl_req(api_env_t *env, const char *method, const char *path,
    const char *body, int status);

/* As ctl_req(), and asserts the Status message of the response. */
void ctl_req_msg(api_env_t *env, const char *method, const char *path,
    const char *body, int status, const char *message);

/* As ctl_req() with a JSON merge patch. */
api_resp_t *ctl_patch(api_env_t *env, const char *path, const char *body,
    int status);

/* The JSON value at a dotted path ("metadata.uid", "items.0.name"). */
json_t *ctl_json(const json_t *v, const char *path);

/* The string at a dotted path, or "". */
const char *ctl_str(const json_t *v, const char *path);


#endif /* _SUPPORT_CTL_H_INCLUDED_ */
