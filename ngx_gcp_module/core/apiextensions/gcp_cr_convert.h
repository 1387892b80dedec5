
/*
 * CRD conversion webhooks (spec.conversion.strategy Webhook), as
 * apiextensions-apiserver's webhookConverter: the objects whose
 * apiVersion differs from the one wanted go in one ConversionReview (v1,
 * or v1beta1 when the CRD's conversionReviewVersions lists it first),
 * POSTed through the core's webhook call (machinery/gcp_webhook_call.h);
 * the answer is checked as upstream checks it (uid, count, apiVersion,
 * kind, name, namespace, uid of every object; only labels and annotations
 * may change in metadata, and they are validated), and the failures are
 * worded as upstream words them ("conversion webhook for GROUP/VERSION,
 * Kind=KIND failed: ...").
 */

#ifndef _GCP_CR_CONVERT_H_INCLUDED_
#define _GCP_CR_CONVERT_H_INCLUDED_


#include <jansson.h>

#include "gcp_webhook_call.h"


#define GCP_CR_CONVERT_TIMEOUT  30          /* seconds, as upstream */


/* What a CRD's spec.conversion says, compiled (strings in an arena). */
typedef struct {
    unsigned               webhook:1;       /* strategy Webhook */
    const char            *review_version;  /* "v1", "v1beta1"; NULL: */
                                            /* none this server speaks */
    const char            *client_error;    /* clientConfig unusable */
    gcp_webhook_client_t   client;
} gcp_cr_conversion_t;


/*
 * Compiles spec.conversion of crd into *c from arena a.  Returns GCP_OK,
 * or GCP_ENOMEM.  A conversion that cannot be called (no known review
 * version, a bad clientConfig) is compiled too: converting then fails
 * with upstream's error.
 */
int gcp_cr_conversion_parse(gcp_arena_t *a, const json_t *crd,
    gcp_cr_conversion_t *c);


/*
 * The ConversionReview (review_version "v1" or "v1beta1") asking for
 * objs[0..n) in apiVersion to, with uid.  Returns its JSON, owned by the
 * arena, or a null string when out of memory.
 */
gcp_str_t gcp_cr_convert_request(gcp_arena_t *a, const char *review_version,
    const char *uid, const char *to, json_t * const *objs, size_t n);


/*
 * Checks a webhook's answer to the review above and fills out[0..n) with
 * the converted objects, metadata restored from in[i] but for labels and
 * annotations (new references, owned by the caller).  list: the objects
 * are the items of a list (upstream's messages differ).  Returns GCP_OK,
 * or GCP_EINVALID with *err set to the reason after "conversion webhook
 * for GVK " (arena string), or GCP_ENOMEM.
 */
int gcp_cr_convert_answer(gcp_arena_t *a, const char *review_version,
    const char *uid, const char *to, json_t * const *in, size_t n,
    const json_t *answer, int list, json_t **out, const char **err);


/* One conversion in flight. */
typedef struct gcp_cr_convert_s  gcp_cr_convert_t;

/*
 * rc GCP_OK: objs[i] are the objects in the wanted version (borrowed
 * during the call: take references to keep them); otherwise message is
 * the failure as upstream words it ("conversion webhook for ... failed:
 * ...", arena string).
 */
typedef void (*gcp_cr_convert_pt)(void *arg, int rc, json_t * const *objs,
    size_t n, const char *message);


/*
 * Converts objs[0..n) (stored objects of one kind: in_gvk is their
 * "GROUP/VERSION, Kind=KIND" for messages) to apiVersion to, by c's
 * webhook through http, and calls done once, from the event loop or
 * before this returns (nothing to convert, an unusable configuration).
 * The objects are referenced until done; arena a must outlive the call.
 * Returns GCP_OK, or GCP_ENOMEM (done not called).
 */
int gcp_cr_convert(gcp_http_t *http, const gcp_api_conf_t *conf,
    gcp_arena_t *a, const gcp_cr_conversion_t *c, const char *in_gvk,
    const char *to, json_t * const *objs, size_t n, int list,
    gcp_cr_convert_pt done, void *arg);


#endif /* _GCP_CR_CONVERT_H_INCLUDED_ */
