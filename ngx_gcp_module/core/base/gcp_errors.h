
/*
 * ngx_gcp error codes.  Every module of the core and every storage backend
 * reports failures with these codes; gcp_error_info() is the one table that
 * translates a code into an HTTP status and a metav1.Status reason.
 */

#ifndef _GCP_ERRORS_H_INCLUDED_
#define _GCP_ERRORS_H_INCLUDED_


typedef enum {
    GCP_OK = 0,
    GCP_ENOMEM,             /* allocation failed                  500 */
    GCP_EINTERNAL,          /* unexpected failure                 500 */
    GCP_EBADREQUEST,        /* malformed request                  400 */
    GCP_EUNAUTHORIZED,      /* no valid credentials               401 */
    GCP_EFORBIDDEN,         /* not allowed                        403 */
    GCP_ENOTFOUND,          /* no such object or resource         404 */
    GCP_EMETHOD,            /* verb not supported here            405 */
    GCP_ENOTACCEPTABLE,     /* no acceptable representation       406 */
    GCP_EEXISTS,            /* create of an existing key          409 */
    GCP_ECONFLICT,          /* stale revision or precondition     409 */
    GCP_EGONE,              /* resource gone                      410 */
    GCP_EEXPIRED,           /* revision compacted away            410 */
    GCP_ETOOLARGE,          /* request entity too large           413 */
    GCP_EMEDIATYPE,         /* unsupported content type           415 */
    GCP_EINVALID,           /* validation failed                  422 */
    GCP_ETOOMANY,           /* too many requests                  429 */
    GCP_EUNAVAILABLE,       /* storage or service unavailable     503 */
    GCP_ETIMEOUT,           /* timed out, e.g. future revision    504 */
    GCP_EFUTURE,            /* revision newer than the store's    504 */
    GCP_ECOMPACTED,         /* storage: revision compacted        410 */
    GCP_EKEYTOOLONG,        /* storage: key longer than supported 500 */
    GCP_ENOSPACE,           /* storage: database full             507 */
    GCP_EINDOUBT,           /* storage: a write was sent, its     500 */
                            /* outcome is unknown (it may be done)    */
    GCP_EUNKNOWN,           /* a plain Go error: no reason        500 */
    GCP_ERROR_LAST
} gcp_rc_t;


typedef struct {
    int          http_status;       /* e.g. 404 */
    const char  *reason;            /* metav1 StatusReason, "" for none */
    const char  *message;           /* default human-readable message */
    const char  *name;              /* symbolic name, e.g. "GCP_ENOTFOUND" */
} gcp_error_info_t;


/*
 * Returns the static table entry for rc; an unknown rc maps to the
 * GCP_EINTERNAL entry.  Never NULL; the caller must not free it.
 */
const gcp_error_info_t *gcp_error_info(int rc);


#endif /* _GCP_ERRORS_H_INCLUDED_ */
