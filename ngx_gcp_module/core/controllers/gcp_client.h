
/*
 * An in-process API client: requests served by the same API core, without
 * HTTP, as some identity (a controller's).  They take the full path of an
 * HTTP request (routing, authorization when configured, decoding,
 * validation, admission, storage), so controllers behave as upstream's,
 * which talk to the API server too.  Not for watches (controllers watch
 * the store directly).
 */

#ifndef _GCP_CLIENT_H_INCLUDED_
#define _GCP_CLIENT_H_INCLUDED_


#include <jansson.h>

#include "gcp_api.h"


typedef struct {
    int           status;           /* HTTP status */
    gcp_str_t     body;             /* owned by the caller's arena */
    json_t       *json;             /* body parsed (JSON), borrowed from */
                                    /* the arena, or NULL */
} gcp_client_resp_t;


typedef void (*gcp_client_done_pt)(void *arg, gcp_client_resp_t *resp);


/*
 * Issues method path ("/api/v1/namespaces/x/configmaps?limit=10") with a
 * JSON body (NULL: none; content_type NULL: application/json) as user
 * (NULL: the core's own, all-powerful identity).  Calls done exactly once,
 * from the API's loop after the core answered (at once, possibly before
 * returning, when the API has no loop or a timer cannot be made), so that
 * done may free a.  Everything lives in a, which must outlive the call.
 */
void gcp_client_call(gcp_api_t *api, gcp_arena_t *a, const char *method,
    const char *path, const char *content_type, const char *body,
    const gcp_user_t *user, gcp_client_done_pt done, void *arg);

/* The core's own identity (system:apiserver, group system:masters). */
extern const gcp_user_t  gcp_client_system_user;


#endif /* _GCP_CLIENT_H_INCLUDED_ */
