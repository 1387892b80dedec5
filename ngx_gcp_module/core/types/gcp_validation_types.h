
/*
 * Validation of the built-in types' own fields (gcp_validation_types.c),
 * with kube-apiserver's exact messages (the validation packages of
 * pkg/apis, v1.32).  ObjectMeta rules are in gcp_validation.h.
 */

#ifndef _GCP_VALIDATION_TYPES_H_INCLUDED_
#define _GCP_VALIDATION_TYPES_H_INCLUDED_


#include "gcp_validation.h"


/*
 * Per type, with the strategy hooks' signatures:
 * obj is the whole object.  A type's _update function is what upstream's
 * ValidateUpdate runs besides ObjectMeta, so it includes the create rules
 * where upstream does (ValidateConfigMapUpdate calls ValidateConfigMap):
 * on an update call it instead of, not after, the create function.
 * ServiceAccount has no rule besides ObjectMeta.
 */

/*
 * The 400 checks of decoding: every data (Secret, ConfigMap binaryData)
 * value must be base64.  Returns GCP_OK, or GCP_EBADREQUEST with *msg set
 * to Go's message for the first bad value in document order ("illegal
 * base64 data at input byte 3"); the caller adds kube-apiserver's prefix
 * ("Secret in version \"v1\" cannot be handled as a Secret: ").
 */
int gcp_decode_check_configmap(gcp_arena_t *a, const json_t *obj,
    const char **msg);
int gcp_decode_check_secret(gcp_arena_t *a, const json_t *obj,
    const char **msg);

/* data/binaryData keys, no key in both, 1 MiB in total */
void gcp_validate_configmap(gcp_ferrs_t *errs, const json_t *obj);
/* immutable: data, binaryData and the flag itself; then as on create */
void gcp_validate_configmap_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old);

/* data keys, 1 MiB in total, type-specific keys and contents */
void gcp_validate_secret(gcp_ferrs_t *errs, const json_t *obj);
/* type immutable, immutable data; then as on create */
void gcp_validate_secret_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old);

/* spec.finalizers (field "spec.finalizers"), on create and update */
void gcp_validate_namespace(gcp_ferrs_t *errs, const json_t *obj);
void gcp_validate_namespace_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old);
/* namespaces/finalize: spec.finalizers[i] */
void gcp_validate_namespace_finalize(gcp_ferrs_t *errs, const json_t *obj);
/* namespaces/status: phase against deletionTimestamp */
void gcp_validate_namespace_status(gcp_ferrs_t *errs, const json_t *obj);

/*
 * core/v1 Event (legacyValidateEvent): namespaces agree, and for events
 * with an eventTime the reporting fields.  The same on update.
 */
void gcp_validate_event(gcp_ferrs_t *errs, const json_t *obj);
void gcp_validate_event_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old);

/*
 * events.k8s.io/v1 Event, given in its core/v1 form (upstream validates
 * the internal type, so paths are "reportingController", "message",
 * "involvedObject.namespace").  Create: the legacy rules, series,
 * eventTime required, type Normal or Warning, deprecated fields unset;
 * update: the legacy rules, series when changed, every field immutable.
 * Upstream also validates ObjectMeta here (name: DNS subdomain, core
 * finalizers); the registry does that part, before these rules.
 */
void gcp_validate_event_v1(gcp_ferrs_t *errs, const json_t *obj);
void gcp_validate_event_v1_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old);

/* spec: durations, transitions, strategy; the same on update */
void gcp_validate_lease(gcp_ferrs_t *errs, const json_t *obj);
void gcp_validate_lease_update(gcp_ferrs_t *errs, const json_t *obj,
    const json_t *old);


#endif /* _GCP_VALIDATION_TYPES_H_INCLUDED_ */
