
/*
 * Resource descriptors: what the registry serves, and what discovery,
 * OpenAPI, tables and storage need to know about each resource.
 *
 * Built-in resources are static descriptors (gcp_types_*.c); custom
 * resources are built at run time.  A descriptor names one group-version-
 * resource; two descriptors may share storage (core/v1 and events.k8s.io/v1
 * events) when the strategy converts between the forms.
 */

#ifndef _GCP_RESOURCE_H_INCLUDED_
#define _GCP_RESOURCE_H_INCLUDED_


#include "gcp_core.h"


#define GCP_VERB_GET               0x0001
#define GCP_VERB_LIST              0x0002
#define GCP_VERB_WATCH             0x0004
#define GCP_VERB_CREATE            0x0008
#define GCP_VERB_UPDATE            0x0010
#define GCP_VERB_PATCH             0x0020
#define GCP_VERB_DELETE            0x0040
#define GCP_VERB_DELETECOLLECTION  0x0080

#define GCP_VERBS_CRUD  (GCP_VERB_GET|GCP_VERB_LIST|GCP_VERB_WATCH            \
                         |GCP_VERB_CREATE|GCP_VERB_UPDATE|GCP_VERB_PATCH      \
                         |GCP_VERB_DELETE|GCP_VERB_DELETECOLLECTION)


/* What a subresource does; the registry dispatches on it. */
typedef enum {
    GCP_SUB_STATUS = 1,         /* get/update/patch of .status only */
    GCP_SUB_FINALIZE,           /* namespaces/finalize: spec.finalizers */
    GCP_SUB_OTHER               /* handled by the strategy */
} gcp_subresource_type_t;


typedef struct {
    const char              *name;      /* "status" */
    gcp_subresource_type_t   type;
    unsigned                 verbs;     /* GCP_VERB_* */
    const char              *group;     /* NULL: the resource's own */
    const char              *version;   /* NULL: the resource's own */
    const char              *kind;      /* NULL: the resource's kind */
} gcp_subresource_t;


/* A Table column (meta.k8s.io/v1 TableColumnDefinition). */
typedef struct {
    const char  *name;          /* "Name" */
    const char  *type;          /* "string", "integer", "date", ... */
    const char  *format;        /* "name", "" */
    const char  *description;
    int          priority;      /* 0: always shown; 1: with -o wide */
} gcp_column_t;


typedef struct gcp_strategy_s        gcp_strategy_t;     /* gcp_registry.h */
typedef struct gcp_resource_s        gcp_resource_t;
typedef struct gcp_resource_owner_s  gcp_resource_owner_t;


/*
 * What keeps a descriptor built at run time (a custom resource's) alive:
 * the registry holds one reference while it serves the resource, and so
 * does every request and watch that uses it (gcp_resource_hold()); the
 * last one gone calls release.  Processes are single-threaded: plain
 * counts.
 */
struct gcp_resource_owner_s {
    unsigned    refs;
    void      (*release)(gcp_resource_owner_t *owner);
    void       *watches;    /* the watches streaming it (gcp_watch.c) */
};


struct gcp_resource_s {
    const char               *group;        /* "" for the core group */
    const char               *version;      /* "v1" */
    const char               *name;         /* plural, "configmaps" */
    const char               *singular;     /* "configmap" */
    const char               *kind;         /* "ConfigMap" */
    const char               *list_kind;    /* "ConfigMapList" */
    const char * const       *short_names;  /* NULL-terminated, or NULL */
    const char * const       *categories;   /* NULL-terminated, or NULL */
    unsigned                  namespaced:1;
    unsigned                  name_mode:2;      /* gcp_name_mode_t */
    unsigned                  delete_returns_object:1;
    unsigned                  protobuf:1;       /* has a protobuf encoding */
    /*
     * A custom resource: JSON objects with sorted keys (as upstream's
     * unstructured encoding writes them), kind and apiVersion kept in list
     * items, discovery's verbs in the CRD handler's order.
     */
    unsigned                  unstructured:1;
    unsigned                  verbs;            /* GCP_VERB_* */

    const gcp_subresource_t  *subresources;
    size_t                    nsubresources;

    const char               *schema;       /* OpenAPI definition name */
    const char               *list_schema;  /* ... of the list kind */

    /*
     * Storage key segment: objects live at
     * "/registry/" storage "/" [namespace "/"] name.  Core resources use the
     * plural ("configmaps"), others "GROUP/RESOURCE".
     */
    const char               *storage;
    const char               *storage_version_hash;

    const gcp_column_t       *columns;      /* Table columns after Name */
    size_t                    ncolumns;

    /*
     * Field selector labels, all of them (metadata.* included), for
     * resources that have their own; NULL: metadata.name and, when
     * namespaced, metadata.namespace (with kube-apiserver's different
     * message for unknown labels).
     */
    const char * const       *field_labels;

    const gcp_strategy_t     *strategy;     /* NULL: generic behaviour */

    /* A Warning header for every request (a deprecated version), or NULL */
    const char               *warning;

    gcp_resource_owner_t     *owner;        /* NULL: static descriptor */
};


/* "apps/v1" or "v1": the apiVersion of the resource's objects. */
#define gcp_resource_api_version(a, r)                                        \
    ((r)->group[0] ? gcp_sprintf(a, "%s/%s", (r)->group, (r)->version)       \
                   : (r)->version)


#endif /* _GCP_RESOURCE_H_INCLUDED_ */
