
/*
 * Events are stored once, in core/v1 form, and served both as core/v1
 * Event and as events.k8s.io/v1 Event.  What the two share lives in
 * gcp_type_event.c.
 */

#ifndef _GCP_TYPE_EVENT_H_INCLUDED_
#define _GCP_TYPE_EVENT_H_INCLUDED_


#include "gcp_types.h"


/* Top-level fields of core/v1 Event in Go order. */
extern const char * const  gcp_event_order[];

/* Table cells of an event given in core/v1 form. */
int gcp_event_cells_core(gcp_op_t *op, const json_t *ev, json_t *cells);

/* The Table columns of events (both APIs). */
#define GCP_EVENT_NCOLUMNS  10
extern const gcp_column_t  gcp_event_columns[GCP_EVENT_NCOLUMNS];

/* Field selector labels of events, and their values (core/v1 form). */
extern const char * const  gcp_event_field_labels[];
const char *gcp_event_field_core(gcp_arena_t *a, const json_t *ev,
    const char *field);

/* Fills the fields core/v1 Events always show (null times, ""). */
void gcp_event_defaults(json_t *ev);


#endif /* _GCP_TYPE_EVENT_H_INCLUDED_ */
