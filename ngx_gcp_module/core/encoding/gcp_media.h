
/*
 * Media types: what a response may be encoded as (Accept) and what a
 * request body is (Content-Type), as kube-apiserver negotiates them.
 */

#ifndef _GCP_MEDIA_H_INCLUDED_
#define _GCP_MEDIA_H_INCLUDED_


#include "gcp_core.h"


typedef enum {
    GCP_MEDIA_NONE = 0,
    GCP_MEDIA_JSON,             /* application/json, * / *        */
    GCP_MEDIA_YAML,             /* application/yaml                */
    GCP_MEDIA_PROTOBUF,         /* application/vnd.kubernetes.protobuf */
    GCP_MEDIA_TABLE,            /* ...;as=Table;g=meta.k8s.io      */
    GCP_MEDIA_PARTIAL,          /* ...;as=PartialObjectMetadata    */
    GCP_MEDIA_PARTIAL_LIST,     /* ...;as=PartialObjectMetadataList */
    GCP_MEDIA_DISCOVERY         /* ...;as=APIGroupDiscoveryList    */
} gcp_media_kind_t;

#define GCP_MEDIA_BIT(k)  (1u << (k))


typedef struct {
    gcp_media_kind_t  kind;
    const char       *version;      /* Table/Partial: "v1" or "v1beta1"; */
                                    /* discovery: "v2" or "v2beta1" */
    const char       *rejected_as;  /* an "as=" we could not serve */
    unsigned          pretty:1;
} gcp_media_t;


/*
 * Chooses the response encoding from an Accept header (NULL or empty:
 * JSON) among the kinds set in allowed (GCP_MEDIA_BIT mask), honouring
 * q-values and order.  Returns GCP_OK and *m, or GCP_ENOTACCEPTABLE when
 * nothing acceptable is allowed (m->rejected_as says whether an "as="
 * transformation was the reason).
 */
int gcp_media_negotiate(gcp_arena_t *a, const char *accept, unsigned allowed,
    gcp_media_t *m);

/*
 * Classifies a request Content-Type (parameters ignored, case-insensitive).
 * Returns the bare media type in lower case, owned by the arena, or "" for
 * NULL.
 */
const char *gcp_media_content_type(gcp_arena_t *a, const char *header);


#endif /* _GCP_MEDIA_H_INCLUDED_ */
