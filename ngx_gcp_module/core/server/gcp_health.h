
/*
 * Health endpoints (/healthz, /livez, /readyz).
 */

#ifndef _GCP_HEALTH_H_INCLUDED_
#define _GCP_HEALTH_H_INCLUDED_


#include "gcp_op.h"


/* Serves op and returns 1 for a health path; returns 0 otherwise. */
int gcp_health_handle(gcp_op_t *op);


#endif /* _GCP_HEALTH_H_INCLUDED_ */
