
/*
 * Auditing, as kube-apiserver's audit log backend does it: an
 * audit.k8s.io/v1 Policy decides for every request the level (None,
 * Metadata, Request, RequestResponse) and the stages left out; each
 * stage of an audited request (RequestReceived, ResponseStarted for
 * watches, ResponseComplete) becomes one audit.k8s.io/v1 Event, a JSON
 * line of the log file, with upstream's fields, the authorization
 * decision and reason as annotations, and the request and response
 * bodies at the Request and RequestResponse levels.
 *
 * The log is written in upstream's batch mode: events go into a buffer
 * of each process, a thread of the process appends them to the file and
 * rotates it; a worker never waits for the disk.  When the buffer is full
 * or a write fails (a full disk), events are dropped, counted in
 * apiserver_audit_error_total and logged (see gcp_audit_log.c).
 */

#ifndef _GCP_AUDIT_H_INCLUDED_
#define _GCP_AUDIT_H_INCLUDED_


#include "gcp_op.h"


#define GCP_AUDIT_BUFFER       (4 * 1024 * 1024)


typedef struct {
    const char  *policy_file;       /* audit.k8s.io/v1 Policy, YAML or */
                                    /* JSON */
    const char  *log_path;          /* JSON lines */
    uint64_t     max_size;          /* bytes before rotation, 0: never */
    unsigned     max_backups;       /* rotated files kept, 0: all */
    size_t       buffer;            /* bytes queued per process, 0: */
                                    /* GCP_AUDIT_BUFFER */
} gcp_audit_conf_t;


/*
 * Loads and checks the policy.  Returns the audit configuration, owned by
 * the caller (gcp_audit_destroy()), or NULL with a message in err (errlen
 * bytes).  Processes forked afterwards each open their own log writer
 * (gcp_audit_open()).
 */
gcp_audit_t *gcp_audit_create(const gcp_audit_conf_t *conf, char *err,
    size_t errlen);

void gcp_audit_destroy(gcp_audit_t *au);

/*
 * Starts this process's log writer (its thread, the file opened).
 * Returns GCP_OK, or an error with *err (static text) when the thread
 * cannot start; a file that cannot be opened is logged and retried, its
 * events counted as errors.
 */
int gcp_audit_open(gcp_audit_t *au, const char **err);

/* Writes what is buffered, stops the writer.  NULL is allowed. */
void gcp_audit_close(gcp_audit_t *au);


/* The request steps (api->conf.audit may be NULL: nothing happens). */

/*
 * The request is authenticated (req->user set, before impersonation):
 * evaluates the policy, emits RequestReceived.
 */
void gcp_audit_begin(gcp_op_t *op);

/* Returns 1 when the request's events will say why it was authorized. */
int gcp_audit_explain(const gcp_op_t *op);

/* The authorization decision and reason (may be NULL). */
void gcp_audit_authorized(gcp_op_t *op, int allowed, const char *reason);

/* A watch answered its headers: ResponseStarted. */
void gcp_audit_started(gcp_op_t *op, int status);

/*
 * The request ended (its response, or the end of its watch):
 * ResponseComplete; for a request that never got authenticated (401),
 * upstream's one ResponseStarted event of a failed authentication.
 */
void gcp_audit_complete(gcp_op_t *op, int status);


#endif /* _GCP_AUDIT_H_INCLUDED_ */
