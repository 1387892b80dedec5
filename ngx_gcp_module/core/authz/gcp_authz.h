
/*
 * Authorization as the request router sees it: one authorizer per API
 * core (RBAC, or AlwaysAllow), asked synchronously: decisions come from
 * memory, never from a storage read per request.
 */

#ifndef _GCP_AUTHZ_H_INCLUDED_
#define _GCP_AUTHZ_H_INCLUDED_


#include "gcp_request.h"


/* The attributes of a request, as authorizer.Attributes upstream. */
typedef struct {
    const gcp_user_t  *user;
    const char        *verb;        /* get list watch create update patch */
                                    /* delete deletecollection impersonate */
                                    /* escalate bind ..., or the lower-case */
                                    /* HTTP method for non-resource paths */
    unsigned           resource_request:1;
    const char        *group;       /* "" for the core group */
    const char        *version;
    const char        *resource;    /* plural, or "" */
    const char        *subresource;
    const char        *ns;          /* "" for cluster-wide requests */
    const char        *name;
    const char        *path;        /* non-resource requests */
} gcp_authz_attrs_t;


typedef enum {
    GCP_AUTHZ_DENY = 0,
    GCP_AUTHZ_ALLOW,
    GCP_AUTHZ_NO_OPINION
} gcp_authz_decision_t;


typedef struct gcp_authorizer_s  gcp_authorizer_t;

struct gcp_authorizer_s {
    const char  *name;              /* "RBAC", "AlwaysAllow" */

    /*
     * Returns the decision for attrs; *reason (may stay NULL) is an
     * arena-owned explanation for denials, as upstream's reason.
     */
    gcp_authz_decision_t  (*authorize)(gcp_authorizer_t *az,
                                       gcp_arena_t *a,
                                       const gcp_authz_attrs_t *attrs,
                                       const char **reason);

    void                 (*destroy)(gcp_authorizer_t *az);

    void                  *data;
};


#endif /* _GCP_AUTHZ_H_INCLUDED_ */
