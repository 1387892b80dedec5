
/*
 * The aggregation layer, as kube-aggregator: apiregistration.k8s.io/v1
 * APIService objects say which server serves each group-version.  Local
 * ones (spec.service null) are served by this server; remote ones are
 * delegated to an extension API server, proxied by the adapter
 * (gcp_proxy_t, gcp_request.h) after authentication, impersonation and
 * authorization.
 *
 * Every worker process keeps a view of the APIServices (and of the last
 * documents fetched from each remote server: its discovery and OpenAPI
 * documents, which the availability controller stores beside them), fed
 * by a store watch, so that routing and discovery never wait and agree in
 * every worker and instance.
 */

#ifndef _GCP_AGGREGATOR_H_INCLUDED_
#define _GCP_AGGREGATOR_H_INCLUDED_


#include <jansson.h>

#include "gcp_op.h"


#define GCP_APISVC_GROUP          "apiregistration.k8s.io"
#define GCP_APISVC_AUTOMANAGED    "kube-aggregator.kubernetes.io/automanaged"
#define GCP_APISVC_LOCAL_REASON   "Local"
#define GCP_APISVC_LOCAL_MESSAGE  "Local APIServices are always available"

/* Where the documents fetched from remote servers are stored, by name. */
#define GCP_APISVC_PREFIX         "/registry/apiregistration.k8s.io/"
#define GCP_APISVC_OBJECTS        GCP_APISVC_PREFIX "apiservices/"
#define GCP_APISVC_DOCUMENTS      GCP_APISVC_PREFIX "gcp-documents/"


extern const gcp_resource_t  gcp_type_apiservices;


/* gcp_type_apiservice.c */

/*
 * Returns a new Available condition (lastTransitionTime time, or null when
 * NULL; reason and message left out when NULL or empty), a new reference,
 * or NULL when out of memory.
 */
json_t *gcp_apiservice_condition(const char *status, const char *reason,
    const char *message, const char *time);

/* Returns obj's Available condition (borrowed), or NULL. */
const json_t *gcp_apiservice_available(const json_t *obj);


/* gcp_agg_priority.c */

/*
 * The priorities kube-apiserver gives the APIServices of its built-in
 * group-versions (apiVersionPriorities).  Returns 1 with *group and
 * *version set, or 0 for a group-version it does not know.
 */
int gcp_agg_builtin_priority(const char *group, const char *version,
    int *group_prio, int *version_prio);

/* Custom resources' APIServices: group 1000, version 100. */
#define GCP_AGG_CRD_GROUP_PRIORITY    1000
#define GCP_AGG_CRD_VERSION_PRIORITY  100


/* The per-worker view (gcp_agg_index.c). */

typedef struct {
    const char      *name;              /* "v1alpha1.wardle.example.com" */
    const char      *group;
    const char      *version;
    int              group_priority;
    int              version_priority;

    /* remote ones: spec.service, TLS */
    unsigned         remote:1;
    unsigned         insecure:1;
    unsigned         available:1;       /* condition Available True */
    const char      *svc_namespace;
    const char      *svc_name;
    int              svc_port;
    gcp_str_t        ca;                /* spec.caBundle decoded (PEM) */
    const char      *reason;            /* of the Available condition */
    const char      *message;

    /* the last documents fetched from the server, or NULL */
    const json_t    *discovery;         /* its APIResourceList */
    const json_t    *openapi_v3;        /* its OpenAPI v3 document */
    const json_t    *openapi_v2;        /* its whole OpenAPI v2 document */
    const char      *openapi_v3_hash;   /* of openapi_v3 */
    int64_t          fetched;           /* when, ms since the epoch */
} gcp_apisvc_t;


typedef struct gcp_agg_s  gcp_agg_t;


/*
 * The view of api (created on first use; gcp_agg_free() with the API
 * core), or NULL when out of memory.
 */
gcp_agg_t *gcp_agg(gcp_api_t *api);
void gcp_agg_free(gcp_api_t *api);

/* Returns 1 once the view was loaded. */
int gcp_agg_ready(const gcp_agg_t *agg);

/*
 * Counts changes of the view (APIServices or documents): a value not seen
 * before means something changed.
 */
uint64_t gcp_agg_generation(const gcp_agg_t *agg);

/* Returns the APIService of group/version (borrowed until the loop runs
 * again), or NULL. */
const gcp_apisvc_t *gcp_agg_find(gcp_agg_t *agg, const char *group,
    const char *version);

/* Returns the number of APIServices and sets *list (borrowed, by name). */
size_t gcp_agg_list(gcp_agg_t *agg, const gcp_apisvc_t * const **list);


/* Routing (gcp_agg_proxy.c). */

/*
 * Returns the remote APIService that serves a request path
 * ("/apis/GROUP/VERSION[/...]"), or NULL when the path is served here.
 */
const gcp_apisvc_t *gcp_agg_route(gcp_agg_t *agg, const char *path,
    size_t len);

/*
 * For a request authenticated, impersonated and authorized: when its
 * group-version is delegated, answers it (a gcp_proxy_t to the server,
 * 503 "service unavailable" when it is not available, or its last
 * discovery document for a discovery request then) and returns 1; returns
 * 0 when it is served here.
 */
int gcp_agg_delegate(gcp_op_t *op);

/*
 * The headers that carry user to a server that trusts this one's proxy
 * client certificate: X-Remote-User, one X-Remote-Group per group,
 * X-Remote-Extra-KEY per extra value (KEY percent-encoded as client-go
 * does).  Returns the number of headers and sets *out (arena), or -1 when
 * out of memory.
 */
ssize_t gcp_agg_identity_headers(gcp_arena_t *a, const gcp_user_t *user,
    gcp_header_t **out);


/* The names of the headers that carry a user. */
typedef struct {
    const char  *user;          /* "X-Remote-User" */
    const char  *uid;           /* NULL: the uid is not sent */
    const char  *group;         /* one header per group */
    const char  *extra;         /* the prefix of the extra keys */
} gcp_identity_names_t;

/* X-Remote-User, X-Remote-Group, X-Remote-Extra- (no uid). */
extern const gcp_identity_names_t  gcp_agg_front_proxy_names;

/*
 * The same as gcp_agg_identity_headers() with the header names of names
 * (the uid, when it has a name and user one).  Returns the number of
 * headers and sets *out (arena), or -1 when out of memory.
 */
ssize_t gcp_agg_identity_headers_named(gcp_arena_t *a,
    const gcp_user_t *user, const gcp_identity_names_t *names,
    gcp_header_t **out);

/*
 * Returns 1 for upstream's long-running requests (watches, proxies, the
 * subresources that stream: attach, exec, log, portforward), else 0.
 */
unsigned gcp_agg_long_running(const gcp_reqinfo_t *ri);

/*
 * The request headers a proxied request loses: those authentication
 * consumed, every front-proxy identity header, and those of more (a
 * NULL-terminated list, or NULL).  Returns a NULL-terminated array
 * (arena; a name ending in '*' is a prefix), or NULL when out of memory.
 */
const char * const *gcp_agg_removed_headers(gcp_op_t *op,
    const char * const *more);


#endif /* _GCP_AGGREGATOR_H_INCLUDED_ */
