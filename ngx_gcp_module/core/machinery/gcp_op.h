
/*
 * One API operation in flight: the request, what it addresses, and the
 * response being built.  Shared by the request router (gcp_api.c), the
 * registry, discovery, tables and watches; not seen by the adapter.
 */

#ifndef _GCP_OP_H_INCLUDED_
#define _GCP_OP_H_INCLUDED_


#include <jansson.h>
#include <time.h>

#include "gcp_core.h"
#include "gcp_request.h"
#include "gcp_ferr.h"
#include "gcp_media.h"
#include "gcp_reqinfo.h"
#include "gcp_resource.h"
#include "gcp_schema.h"
#include "gcp_status.h"
#include "gcp_store.h"


#define GCP_OP_MAX_HEADERS  32


typedef struct gcp_registry_s  gcp_registry_t;
typedef struct gcp_op_s        gcp_op_t;


/*
 * An audit annotation of the request (upstream's AddAuditAnnotation, and
 * admission's AddAnnotationWithLevel): written into its audit events of
 * the stages after it was made, at the levels it allows.
 */
typedef struct gcp_op_note_s   gcp_op_note_t;

struct gcp_op_note_s {
    gcp_op_note_t      *next;
    const char         *key;
    const char         *value;
    unsigned            request_level:1;    /* only at Request level and */
                                            /* above (a patch) */
};


struct gcp_api_s {
    gcp_api_conf_t      conf;
    gcp_store_t        *store;
    gcp_registry_t     *registry;
    gcp_schema_set_t   *schemas;
    void               *discovery;      /* gcp_discovery.c's cache */
    void               *openapi;        /* gcp_openapi cache */
    void               *compactor;      /* gcp_compactor_t, or NULL */
    void               *stats;          /* gcp_storage_stats_t, or NULL */
    void               *objcache;       /* gcp_objcache_t, or NULL */
    void               *lindex;         /* gcp_reg_indexes_t, or NULL */
    void               *tablecache;     /* Table rows (gcp_objcache_t) */
    void               *admission;      /* gcp_admission.c's chain */
    void               *authorizer;     /* gcp_authorizer_t, or NULL */

    /*
     * Asks the authorizer whether op's user may do verb on op's resource,
     * subresource, namespace and name (a check inside a handler, as
     * upstream's create on update and apply): returns 1 when allowed,
     * else 0 with *reason (arena text, may stay NULL).  Set by authn/;
     * NULL: everything is allowed.
     */
    int               (*authorize_verb)(gcp_op_t *op, const char *verb,
                                        const char **reason);
    void               *rbac;           /* gcp_rbac.c's state, or NULL */
    void               *crds;           /* gcp_crd_cache.c's, or NULL */
    void               *apf;            /* gcp_apf.c's state, or NULL */
    void               *aggregator;     /* gcp_agg_t, or NULL */
    void               *front;          /* gcp_front_docs.c's, or NULL */
    void               *oidc;           /* gcp_auth_oidc.c's keys, or */
                                        /* NULL */
    uint64_t            start_ms;
    unsigned            ready:1;
    unsigned            warm:1;         /* its caches loaded once */
                                        /* (server/gcp_warm.c) */
};


struct gcp_op_s {
    gcp_api_t                *api;
    gcp_request_t            *req;
    gcp_arena_t              *a;

    gcp_reqinfo_t             ri;
    gcp_query_t               q;
    gcp_media_t               media;

    const gcp_resource_t     *res;
    const gcp_subresource_t  *sub;

    gcp_response_t            resp;
    gcp_header_t              headers[GCP_OP_MAX_HEADERS];

    void                     *state;        /* the handler's own state */
    void                     *flow;         /* its APF seat or queue place */

    /* what operators see of the request (server/gcp_observe.c, audit/) */
    const gcp_user_t         *authn_user;   /* as authenticated, before */
                                            /* impersonation; NULL: none */
    const char               *audit_id;     /* Audit-ID, NULL: none */
    struct timespec           received;     /* when the core got it */
    int64_t                   revision;     /* of the object answered */
    void                     *observe;      /* gcp_observe.c's state */
    void                     *audit;        /* gcp_audit.c's, NULL: not */
                                            /* audited */
    gcp_op_note_t            *notes;        /* audit annotations, newest */
                                            /* first */

    unsigned                  responded:1;
    unsigned                  crds_refreshed:1; /* CRD cache brought up */
                                                /* to date (gcp_api.c) */
};


/* Adds a response header (copied into the arena).  Extra ones are
 * dropped. */
void gcp_op_header(gcp_op_t *op, const char *name, const char *value);

/* Adds "Warning: 299 - \"text\"". */
void gcp_op_warning(gcp_op_t *op, const char *text);

/*
 * Keeps an audit annotation (key and value copied into the arena); a key
 * already there keeps its first value, as upstream refuses to overwrite
 * one (the same value again is no change).  request_level: only in
 * events at the Request level and above.  Returns GCP_OK, GCP_EEXISTS
 * (the key is taken) or GCP_ENOMEM.
 */
int gcp_op_annotate(gcp_op_t *op, const char *key, const char *value,
    int request_level);

/*
 * Completes the request with status and a body owned by the arena (may be
 * empty).  content_type NULL means none.  The op must not be used after.
 */
void gcp_op_respond(gcp_op_t *op, int status, const char *content_type,
    gcp_str_t body);

/*
 * Completes the request by handing it to another server (proxy, borrowed
 * until the request ends: arena memory).  The op must not be used after.
 */
void gcp_op_proxy(gcp_op_t *op, const gcp_proxy_t *proxy);

/*
 * Encodes the compact JSON bytes in compact (arena memory) as kind:
 * protobuf (with op's API schemas), YAML, or JSON for any other kind,
 * pretty-printed for a true ?pretty= and, without it, for curl's and
 * Wget's User-Agent (as kube-apiserver), else compact's own bytes, not
 * copied.
 * Returns GCP_OK with *body (arena memory) and *content_type (static)
 * set; GCP_ENOMEM; GCP_EINTERNAL when the bytes are not JSON (*msg the
 * parser's words, else NULL) or op has no API for protobuf; or
 * gcp_protobuf_encode()'s error.  Nothing is sent.
 */
int gcp_op_encode(gcp_op_t *op, gcp_media_kind_t kind,
    const gcp_buf_t *compact, gcp_str_t *body, const char **content_type,
    const char **msg);

/*
 * Completes the request with a Status given as compact JSON in b (arena
 * memory), sent in the encoding the client's Accept prefers among JSON,
 * YAML and protobuf, as kube-apiserver's ErrorNegotiated (JSON pretty
 * as gcp_op_encode() says): JSON when it accepts none of them or
 * the Status cannot be encoded.  The JSON stays in op->resp.status_json
 * for the audit and error logs.
 */
void gcp_op_respond_status(gcp_op_t *op, int status, gcp_buf_t *b);

/*
 * Completes the request with a Failure Status for rc (gcp_errors.h table);
 * message NULL uses the table's text; d may be NULL.
 */
void gcp_op_error(gcp_op_t *op, int rc, const char *message,
    const gcp_status_details_t *d);

/* A Status for rc with details {name, group, kind} of the current
 * resource (kind is the plural resource name, as kube-apiserver does). */
void gcp_op_error_obj(gcp_op_t *op, int rc, const char *message,
    const char *name);

/* 422 Invalid with causes for errs, for an object of kind named name. */
void gcp_op_invalid(gcp_op_t *op, const char *kind, const char *name,
    const gcp_ferrs_t *errs);

/* 404 NotFound: RESOURCE "NAME" not found (group-qualified). */
void gcp_op_not_found(gcp_op_t *op, const gcp_resource_t *res,
    const char *name);

/* Answers with plain text (health checks, "404 page not found"). */
void gcp_op_text(gcp_op_t *op, int status, const char *text);

/* The "plural.group" form used in messages ("configmaps",
 * "leases.coordination.k8s.io"), arena-owned. */
const char *gcp_op_qualified_resource(gcp_op_t *op,
    const gcp_resource_t *res);


#endif /* _GCP_OP_H_INCLUDED_ */
