
/*
 * Kubernetes validation rules with kube-apiserver's exact messages (as of
 * v1.32): k8s.io/apimachinery/pkg/util/validation (names, label keys and
 * values, config keys), pkg/api/validation/objectmeta.go (ObjectMeta on
 * create and update), the core additions (standard finalizer names), and
 * the per-type rules of ConfigMap, Secret, Namespace, Event and Lease
 * (gcp_validation_types.c).  Errors are appended to a gcp_ferrs_t; values
 * are rendered as Go's field.Error renders them (strings as %q).
 *
 * Objects are jansson values already decoded (wrongly typed fields are a
 * decoding error, 400, before validation; here they are ignored).
 *
 * The name mode of each type for gcp_validate_object_meta() (all but
 * Lease also set opts.core: their ObjectMeta is checked by the core
 * package, which adds the standard finalizer names):
 *   ConfigMap, Secret, ServiceAccount, Lease,
 *   events.k8s.io/v1 Event                     GCP_NAME_DNS_SUBDOMAIN
 *   Namespace                                  GCP_NAME_DNS_LABEL
 *   core/v1 Event: no name rule of its own; kube-apiserver's generic pass
 *   after type validation (rest.BeforeCreate, for every type, run only
 *   when the type's checks found nothing) uses GCP_NAME_PATH_SEGMENT.
 */

#ifndef _GCP_VALIDATION_H_INCLUDED_
#define _GCP_VALIDATION_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"
#include "gcp_ferr.h"
#include "gcp_base64.h"


#define GCP_VALIDATION_MAX_MSGS      6

#define GCP_MAX_SECRET_SIZE          (1 << 20)   /* core.MaxSecretSize */
#define GCP_MAX_ANNOTATIONS_SIZE     (256 << 10)


/* The messages of one check; they are static strings. */
typedef struct {
    size_t       n;
    const char  *msg[GCP_VALIDATION_MAX_MSGS];
} gcp_msgs_t;


/*
 * The checks of k8s.io/apimachinery/pkg/util/validation.  Each resets m,
 * adds the messages upstream returns for s (len bytes) and returns their
 * number (0: valid).
 */
size_t gcp_is_dns1123_label(const char *s, size_t len, gcp_msgs_t *m);
size_t gcp_is_dns1123_subdomain(const char *s, size_t len, gcp_msgs_t *m);
size_t gcp_is_dns1035_label(const char *s, size_t len, gcp_msgs_t *m);
/* IsQualifiedName: label and annotation keys, finalizers */
size_t gcp_is_qualified_name(const char *s, size_t len, gcp_msgs_t *m);
size_t gcp_is_label_value(const char *s, size_t len, gcp_msgs_t *m);
size_t gcp_is_config_map_key(const char *s, size_t len, gcp_msgs_t *m);
/* path.IsValidPathSegmentName, or IsValidPathSegmentPrefix if prefix */
size_t gcp_is_path_segment_name(const char *s, size_t len, int prefix,
    gcp_msgs_t *m);


typedef enum {
    GCP_NAME_DNS_SUBDOMAIN = 0,     /* NameIsDNSSubdomain */
    GCP_NAME_DNS_LABEL,             /* NameIsDNSLabel */
    GCP_NAME_DNS1035_LABEL,         /* NameIsDNS1035Label */
    GCP_NAME_PATH_SEGMENT           /* path.ValidatePathSegmentName */
} gcp_name_mode_t;


/*
 * A ValidateNameFunc: checks a name, or with prefix a generateName (whose
 * trailing dash is allowed).  Returns the number of messages set in m.
 */
size_t gcp_validate_name(gcp_name_mode_t mode, const char *s, size_t len,
    int prefix, gcp_msgs_t *m);

/*
 * Appends one Invalid error per message of m: field, value s (len bytes)
 * shown as %q.
 */
void gcp_ferrs_add_msgs(gcp_ferrs_t *errs, const char *field, const char *s,
    size_t len, const gcp_msgs_t *m);


typedef struct {
    gcp_name_mode_t  name_mode;
    unsigned         namespaced:1;      /* namespace required, else
                                           forbidden */
    unsigned         core:1;            /* a core/v1 type: finalizers
                                           without '/' must be standard */
} gcp_meta_opts_t;


/*
 * ValidateObjectMeta for a create (meta is the "metadata" object, or
 * NULL): generateName and name (mode of opts), namespace, generation,
 * labels, annotations (keys, 256 KiB total), ownerReferences, finalizers,
 * managedFields.
 */
void gcp_validate_object_meta(gcp_ferrs_t *errs, const json_t *meta,
    const gcp_meta_opts_t *opts);

/*
 * As gcp_validate_object_meta(), with the fields under path instead of
 * "metadata" ("spec.template.metadata.name"); the field names are
 * allocated from errs' arena.
 */
void gcp_validate_object_meta_at(gcp_ferrs_t *errs, const json_t *meta,
    const gcp_meta_opts_t *opts, const char *path);

/*
 * ValidateObjectMetaUpdate: no new finalizers while deleting,
 * resourceVersion required, generation not decremented, name, namespace,
 * uid, creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds
 * immutable, then labels, annotations, ownerReferences, managedFields
 * (and standard finalizer names when opts->core).  As upstream, the caller
 * first restores what an update may omit (BeforeUpdate: uid,
 * creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds and
 * generation from the old object).
 */
void gcp_validate_object_meta_update(gcp_ferrs_t *errs,
    const json_t *new_meta, const json_t *old_meta,
    const gcp_meta_opts_t *opts);

/* ValidateLabels: keys and values of a labels object, at field. */
void gcp_validate_labels(gcp_ferrs_t *errs, const json_t *labels,
    const char *field);

/* ValidateAnnotations: keys (case-insensitive) and the total size. */
void gcp_validate_annotations(gcp_ferrs_t *errs, const json_t *annotations,
    const char *field);

/*
 * A finalizer name at field: a qualified name and, when core, either
 * standard ("kubernetes", "orphan", "foregroundDeletion") or with a '/'.
 */
void gcp_validate_finalizer_name(gcp_ferrs_t *errs, const char *field,
    const char *s, size_t len, int core);


/*
 * Go's time.Time.String() (in UTC) of an RFC 3339 timestamp: what
 * kube-apiserver shows for a metav1.Time in a field error; NULL is the
 * zero time.  Returns an arena string (NULL on allocation failure).
 */
const char *gcp_validation_time_string(gcp_arena_t *a, const char *ts);


/*
 * Where a webhook is, as k8s.io/apiserver's pkg/util/webhook checks it
 * (gcp_validation_webhook.c): a URL (https only with force_https; a host,
 * no user, query or fragment), or a service reference ({"namespace",
 * "name", "path", "port"}: port 443 when absent).  Errors go to errs at
 * field (the reference's own field for a service).
 */
void gcp_validate_webhook_url(gcp_ferrs_t *errs, const char *field,
    const char *url, int force_https);
void gcp_validate_webhook_service(gcp_ferrs_t *errs, const char *field,
    const json_t *svc);


#endif /* _GCP_VALIDATION_H_INCLUDED_ */
