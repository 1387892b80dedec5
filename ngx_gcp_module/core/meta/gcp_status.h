
/*
 * metav1.Status bodies: every error the server answers, and the Success
 * status of some deletes.  Key order and omission rules follow
 * kube-apiserver's JSON (empty message/reason omitted; details only when
 * present).
 */

#ifndef _GCP_STATUS_H_INCLUDED_
#define _GCP_STATUS_H_INCLUDED_


#include "gcp_core.h"
#include "gcp_ferr.h"


typedef struct {
    const char         *reason;         /* each omitted when NULL */
    const char         *message;
    const char         *field;
} gcp_status_cause_t;


typedef struct {
    const char         *name;
    const char         *group;
    const char         *kind;
    const char         *uid;
    const gcp_ferrs_t  *causes;         /* field errors, or NULL */
    const gcp_status_cause_t  *cause;   /* more causes, or NULL: */
    size_t              ncause;         /* ... how many (0: one) */
    int                 retry_after;    /* seconds; 0: omitted */
} gcp_status_details_t;


/*
 * Appends a Failure Status.  code is the HTTP status, reason a StatusReason
 * ("" or NULL: omitted), message may be NULL (omitted).  d NULL: no
 * "details"; d with every field empty: "details":{}.
 */
void gcp_status_failure(gcp_buf_t *b, int code, const char *reason,
    const char *message, const gcp_status_details_t *d);

/*
 * Appends a Failure Status for an error code: HTTP status and reason come
 * from gcp_error_info(rc); message NULL uses the table's default message.
 */
void gcp_status_error(gcp_buf_t *b, int rc, const char *message,
    const gcp_status_details_t *d);

/* Appends a Success Status (delete), with details when d is not NULL. */
void gcp_status_success(gcp_buf_t *b, const gcp_status_details_t *d);


#endif /* _GCP_STATUS_H_INCLUDED_ */
