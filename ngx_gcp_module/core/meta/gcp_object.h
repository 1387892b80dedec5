
/*
 * Objects as stored and as served.
 *
 * Stored form: the object's compact JSON with kind and apiVersion first,
 * then metadata (fields in ObjectMeta's Go order), then the type's fields,
 * and without metadata.resourceVersion: the resourceVersion is the key's
 * mod_revision, spliced in on the way out (after metadata.uid, where
 * kube-apiserver prints it) without parsing the object.
 */

#ifndef _GCP_OBJECT_H_INCLUDED_
#define _GCP_OBJECT_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"
#include "gcp_json.h"
#include "gcp_resource.h"


/* gcp_object_splice() flags */
#define GCP_SPLICE_STRIP_TYPEMETA  0x1  /* drop the leading "kind" and */
                                        /* "apiVersion" (items of */
                                        /* built-in lists carry neither) */
#define GCP_SPLICE_SORTED          0x2  /* metadata's keys are sorted */
                                        /* (custom resources): the */
                                        /* resourceVersion goes in order */
                                        /* rather than after "uid" */

/*
 * Appends the stored value with "resourceVersion":"rv" spliced into its
 * metadata (GCP_SPLICE_* flags).  rv <= 0 (not stored) splices nothing.
 * Returns GCP_OK, GCP_ENOMEM, or GCP_EINTERNAL when value is not in stored
 * form.
 */
int gcp_object_splice(gcp_buf_t *b, gcp_str_t value, int64_t rv,
    unsigned flags);

/*
 * Parses a stored value and sets metadata.resourceVersion to rv.  Returns a
 * jansson object released with the arena (borrowed by the caller), or NULL.
 */
json_t *gcp_object_decode(gcp_arena_t *a, gcp_str_t value, int64_t rv);

/* The same, the resourceVersion spliced as gcp_object_splice() does. */
json_t *gcp_object_decode_flags(gcp_arena_t *a, gcp_str_t value, int64_t rv,
    unsigned flags);

/*
 * Serialises obj in stored form (see above; metadata.resourceVersion is
 * left out; order lists the type's top-level fields in Go order, NULL
 * keeps the object's order).  Returns the bytes, owned by the arena
 * (data NULL when out of memory).
 */
gcp_str_t gcp_object_encode(gcp_arena_t *a, const json_t *obj,
    const char * const *order);

/*
 * Serialises obj in the stored form of custom resources: every object's
 * keys sorted, as upstream's unstructured JSON (metadata.resourceVersion
 * left out).  Returns the bytes, owned by the arena (data NULL when out of
 * memory).
 */
gcp_str_t gcp_object_encode_sorted(gcp_arena_t *a, const json_t *obj);

/* Returns metadata with its keys in ObjectMeta's Go order (a new ref). */
json_t *gcp_object_meta_ordered(const json_t *meta);

/* Returns obj with keys reordered as the stored form (a new reference). */
json_t *gcp_object_canonical(const json_t *obj, const char * const *order);

/* gcp_object_dump_canonical() flags */
#define GCP_OBJECT_NULL_CREATED  0x01   /* metadata.creationTimestamp */
                                        /* null when unset (a zero */
                                        /* metav1.Time), metadata {} */
                                        /* with it when absent */

/*
 * Appends obj to b as gcp_object_canonical() orders it and
 * gcp_json_dump_buf() writes it, without a copy of obj.
 */
void gcp_object_dump_canonical(gcp_buf_t *b, const json_t *obj,
    const char * const *order, unsigned flags);

/* Returns obj.metadata, creating it when absent or not an object
 * (borrowed; NULL only when out of memory or obj is not an object). */
json_t *gcp_meta(json_t *obj);

/* Returns obj.metadata[field] as a string, or "" (borrowed). */
const char *gcp_meta_str(const json_t *obj, const char *field);

/* Sets obj.metadata[field] to a string (copied). */
int gcp_meta_set_str(json_t *obj, const char *field, const char *value);

/* The storage key of an object: "/registry/STORAGE/[NS/]NAME" (arena). */
gcp_str_t gcp_object_key(gcp_arena_t *a, const gcp_resource_t *res,
    const char *ns, const char *name);

/* The prefix of a collection: "/registry/STORAGE/[NS/]" (arena). */
gcp_str_t gcp_object_prefix(gcp_arena_t *a, const gcp_resource_t *res,
    const char *ns);

/* Parses a decimal resourceVersion; returns -1 when s is not one. */
int64_t gcp_parse_rv(const char *s);


#endif /* _GCP_OBJECT_H_INCLUDED_ */
