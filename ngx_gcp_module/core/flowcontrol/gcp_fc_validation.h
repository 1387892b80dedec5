
/*
 * Validation of FlowSchema and PriorityLevelConfiguration with
 * kube-apiserver's messages (pkg/apis/flowcontrol/validation, v1.32),
 * objects in v1 form after defaulting.  ObjectMeta is checked by the
 * registry before.  The update rules are the create rules.
 */

#ifndef _GCP_FC_VALIDATION_H_INCLUDED_
#define _GCP_FC_VALIDATION_H_INCLUDED_


#include <jansson.h>

#include "gcp_ferr.h"


#define GCP_FC_MAX_HASH_BITS  60        /* shufflesharding.MaxHashBits */
#define GCP_FC_MAX_QUEUES     10000000  /* validation's 10^7 */


/* spec (and the fixed spec of the mandatory ones), then status */
void gcp_fc_validate_flowschema(gcp_ferrs_t *errs, const json_t *obj);
void gcp_fc_validate_flowschema_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old);
void gcp_fc_validate_prioritylevel(gcp_ferrs_t *errs, const json_t *obj);
void gcp_fc_validate_prioritylevel_update(gcp_ferrs_t *errs,
    const json_t *obj, const json_t *old);

/* /status: conditions have a type, and no type twice */
void gcp_fc_validate_status(gcp_ferrs_t *errs, const json_t *obj);

/*
 * shufflesharding.RequiredEntropyBits: ceil(log2(deck) * hand), the bits
 * of hash a deal of hand cards out of deck needs.
 */
int gcp_fc_entropy_bits(int deck, int hand);

/*
 * Returns Go's %#v of v as the internal flowcontrol type named type
 * ("FlowSchemaSpec", "FlowDistinguisherMethod", ...) prints, as field
 * errors show struct values: arena text, or NULL when out of memory.
 * Pointers print as Go prints them, (*T)(nil) or an address.
 */
const char *gcp_fc_gostring(gcp_arena_t *a, const char *type,
    const json_t *v);

/*
 * Puts the members of v, a value of the internal flowcontrol type named
 * type, in the order of the Go struct's fields, recursively (unknown
 * members stay, last).
 */
void gcp_fc_go_order(json_t *v, const char *type);

/* Go's %#v of a []string: []string{"a", "b"} (arena text, or NULL). */
const char *gcp_fc_gostrings(gcp_arena_t *a, const json_t *list);

/*
 * Semantic equality of two values in their JSON form, as upstream's
 * equality.Semantic.DeepEqual compares Go values: absent, null, false,
 * 0, "" and empty lists and maps equal their zero values.  Returns 1 when
 * equal.
 */
int gcp_fc_semantic_equal(const json_t *a, const json_t *b);


#endif /* _GCP_FC_VALIDATION_H_INCLUDED_ */
