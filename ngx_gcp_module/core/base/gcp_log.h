
/*
 * The error log as the core and the backends see it: what an operator
 * must know about a request that failed on the server side (a storage
 * error, an audit log that cannot keep up), at nginx's levels.  The nginx
 * adapter points it at the cycle's error log; without a handler (unit
 * tests) messages are dropped.
 */

#ifndef _GCP_LOG_H_INCLUDED_
#define _GCP_LOG_H_INCLUDED_


#include "gcp_core.h"


/* nginx's levels, same numbers (NGX_LOG_ERR ...) */
#define GCP_LOG_CRIT    3
#define GCP_LOG_ERR     4
#define GCP_LOG_WARN    5
#define GCP_LOG_NOTICE  6
#define GCP_LOG_INFO    7


typedef void (*gcp_log_pt)(void *data, int level, const char *msg);


/*
 * Sends every message of at most level (GCP_LOG_ERR lets ERR and CRIT
 * through) to handler(data, level, text); NULL stops logging.  Messages
 * come from the event loop's thread only.
 */
void gcp_log_set(gcp_log_pt handler, void *data, int level);

/* Returns 1 when a message of this level would be logged. */
int gcp_log_enabled(int level);

/* Formats as printf() (at most 2 KiB, cut beyond) and logs. */
void gcp_log(int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;


#endif /* _GCP_LOG_H_INCLUDED_ */
