
/*
 * Audit internals shared by gcp_audit.c (configuration, the request
 * steps), gcp_audit_policy.c (the Policy), gcp_audit_event.c (Event
 * lines) and gcp_audit_log.c (the log writer).
 */

#ifndef _GCP_AUDIT_INT_H_INCLUDED_
#define _GCP_AUDIT_INT_H_INCLUDED_


#include <jansson.h>

#include "gcp_audit.h"


typedef enum {
    GCP_AUDIT_NONE = 0,
    GCP_AUDIT_METADATA,
    GCP_AUDIT_REQUEST,
    GCP_AUDIT_REQUEST_RESPONSE
} gcp_audit_level_t;


/* stages, as bits of omitStages */
#define GCP_AUDIT_RECEIVED   0x1        /* RequestReceived */
#define GCP_AUDIT_STARTED    0x2        /* ResponseStarted */
#define GCP_AUDIT_COMPLETE   0x4        /* ResponseComplete */
#define GCP_AUDIT_PANIC      0x8        /* Panic */


typedef struct gcp_audit_log_s  gcp_audit_log_t;


/* A GroupResources of a rule; lists NULL-terminated, NULL: empty. */
typedef struct {
    char                *group;
    char               **resources;
    char               **names;
} gcp_audit_gr_t;


typedef struct {
    gcp_audit_level_t    level;
    char               **users;
    char               **groups;
    char               **verbs;
    char               **namespaces;
    char               **urls;
    gcp_audit_gr_t      *resources;
    size_t               nresources;
    unsigned             has_resources:1;   /* "resources" given */
    unsigned             omit;              /* with the policy's */
    int                  omit_managed;      /* -1: the policy's */
} gcp_audit_rule_t;


typedef struct {
    gcp_audit_rule_t    *rules;
    size_t               nrules;
    unsigned             omit;
    unsigned             omit_managed:1;
} gcp_audit_policy_t;


/* What a request is audited with (RequestAuditConfig). */
typedef struct {
    gcp_audit_level_t    level;
    unsigned             omit;
    unsigned             omit_managed:1;
} gcp_audit_config_t;


/* The attributes a policy judges (authorizer.Attributes). */
typedef struct {
    const gcp_user_t    *user;          /* NULL: not authenticated */
    const char          *verb;
    unsigned             resource_request:1;
    const char          *group;
    const char          *resource;
    const char          *subresource;
    const char          *ns;
    const char          *name;
    const char          *path;
} gcp_audit_attrs_t;


struct gcp_audit_s {
    gcp_audit_policy_t   policy;
    char                *log_path;
    uint64_t             max_size;
    unsigned             max_backups;
    size_t               buffer;

    /* per process */
    gcp_audit_log_t     *log;
};


/* gcp_audit_policy.c */

/*
 * Reads an audit.k8s.io/v1 Policy (apiVersion, kind, rules, omitStages,
 * omitManagedFields) into p, checked as kube-apiserver's
 * validation.ValidatePolicy.  Returns GCP_OK, or GCP_EINVALID with a
 * message in err; p's memory is malloc'd (gcp_audit_policy_free()).
 */
int gcp_audit_policy_load(const json_t *doc, gcp_audit_policy_t *p,
    char *err, size_t errlen);

void gcp_audit_policy_free(gcp_audit_policy_t *p);

/* The first rule that matches attrs decides; none: level None. */
void gcp_audit_policy_eval(const gcp_audit_policy_t *p,
    const gcp_audit_attrs_t *attrs, gcp_audit_config_t *out);

/* "None", "Metadata", ... */
const char *gcp_audit_level_name(gcp_audit_level_t level);


/* gcp_audit_event.c */

/* One audit event: a stage of a request. */
typedef struct {
    gcp_audit_level_t    level;
    const char          *stage;         /* "RequestReceived", ... */
    const char          *audit_id;
    const char          *uri;           /* path?query */
    const char          *verb;
    const gcp_user_t    *user;          /* NULL: {} */
    const gcp_user_t    *impersonated;  /* NULL: none */
    const char          *remote_addr;
    const gcp_request_t *req;           /* forwarding headers */
    const char          *user_agent;
    const gcp_reqinfo_t *ri;            /* objectRef of resource requests */
    const char          *name;          /* objectRef's name, when known */
    const char          *uid;           /* objectRef's uid, or NULL */
    const char          *rv;            /* its resourceVersion, or NULL */
    int                  status;        /* 0: no responseStatus */
    const json_t        *status_body;   /* a Status answered, or NULL */
    const json_t        *request_object;
    const json_t        *response_object;
    gcp_str_t            response_raw;  /* JSON bytes, or data NULL */
    const struct timespec  *received;
    const struct timespec  *now;
    const char          *decision;      /* "allow", "forbid", NULL */
    const char          *reason;
    const gcp_op_note_t *notes;         /* the request's annotations */
} gcp_audit_event_t;

/* Appends ev as one JSON line (newline included) to b. */
void gcp_audit_event_write(gcp_buf_t *b, const gcp_audit_event_t *ev);


/* gcp_audit_log.c */

/*
 * Opens the log writer of this process: a buffer of buffer bytes and a
 * thread appending it to path.  Returns it, or NULL with *err (static).
 */
gcp_audit_log_t *gcp_audit_log_open(const char *path, uint64_t max_size,
    unsigned max_backups, size_t buffer, const char **err);

/*
 * Queues len bytes of whole lines.  Returns GCP_OK, or GCP_ETOOMANY when
 * the buffer is full: the line is dropped (counted and logged).
 */
int gcp_audit_log_write(gcp_audit_log_t *l, const char *data, size_t len);

/* Writes what is queued and stops the thread; NULL is allowed. */
void gcp_audit_log_close(gcp_audit_log_t *l);


#endif /* _GCP_AUDIT_INT_H_INCLUDED_ */
