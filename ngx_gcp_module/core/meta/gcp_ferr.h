
/*
 * Field errors: the list behind a 422 Invalid Status, as Kubernetes'
 * field.ErrorList.  Each error has a type (the cause's reason), a field
 * path ("metadata.labels", "data[bad key!]"), the offending value (already
 * rendered as Kubernetes renders it, may be NULL) and a detail message.
 *
 * gcp_ferrs_message() renders the Status message exactly as kube-apiserver:
 *   one error:   KIND "NAME" is invalid: FIELD: Invalid value: "V": DETAIL
 *   several:     KIND "NAME" is invalid: [E1, E2, ...]
 */

#ifndef _GCP_FERR_H_INCLUDED_
#define _GCP_FERR_H_INCLUDED_


#include "gcp_core.h"


typedef enum {
    GCP_FERR_INVALID = 0,       /* FieldValueInvalid      "Invalid value" */
    GCP_FERR_REQUIRED,          /* FieldValueRequired     "Required value" */
    GCP_FERR_FORBIDDEN,         /* FieldValueForbidden    "Forbidden" */
    GCP_FERR_TOO_LONG,          /* FieldValueTooLong      "Too long" */
    GCP_FERR_TOO_MANY,          /* FieldValueTooMany      "Too many" */
    GCP_FERR_NOT_SUPPORTED,     /* FieldValueNotSupported "Unsupported value" */
    GCP_FERR_DUPLICATE,         /* FieldValueDuplicate    "Duplicate value" */
    GCP_FERR_NOT_FOUND,         /* FieldValueNotFound     "Not found" */
    GCP_FERR_TYPE_INVALID,      /* FieldValueTypeInvalid  "Invalid value" */
    GCP_FERR_INTERNAL           /* InternalError          "Internal error" */
} gcp_ferr_type_t;


typedef struct gcp_ferr_s  gcp_ferr_t;

struct gcp_ferr_s {
    gcp_ferr_t       *next;
    gcp_ferr_type_t   type;
    const char       *field;    /* path, e.g. "metadata.name" */
    const char       *value;    /* rendered value ("\"x\"", "5"), or NULL */
    const char       *detail;   /* may be NULL */
};


typedef struct {
    gcp_arena_t  *arena;
    gcp_ferr_t   *first;
    gcp_ferr_t  **last;
    size_t        n;
    unsigned      nomem:1;
} gcp_ferrs_t;


void gcp_ferrs_init(gcp_ferrs_t *errs, gcp_arena_t *a);

/*
 * Appends an error.  field, value and detail are copied into the arena.
 * value is the already rendered value (use gcp_ferr_quote() for strings) or
 * NULL when the error type shows none.  detail is printf-formatted.
 */
void gcp_ferrs_add(gcp_ferrs_t *errs, gcp_ferr_type_t type, const char *field,
    const char *value, const char *detail_fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Returns s rendered as a Go %q string ("\"x\""), owned by the arena. */
const char *gcp_ferr_quote(gcp_arena_t *a, const char *s);

/* Returns the Kubernetes cause reason for a type, e.g. "FieldValueInvalid". */
const char *gcp_ferr_reason(gcp_ferr_type_t type);

/*
 * Returns one error rendered as in causes[].message ("Invalid value: \"x\":
 * detail"), owned by the arena.
 */
const char *gcp_ferr_cause_message(gcp_arena_t *a, const gcp_ferr_t *e);

/*
 * Returns the full Status message for kind/name ("ConfigMap \"x\" is
 * invalid: ..."), owned by the arena.
 */
const char *gcp_ferrs_message(const gcp_ferrs_t *errs, const char *kind,
    const char *name);

/*
 * Returns field.ErrorList.ToAggregate().Error(): each error as "FIELD:
 * BODY" (also for an empty field), identical ones once, in brackets when
 * more than one remains; owned by the arena, NULL when out of memory.
 */
const char *gcp_ferrs_aggregate(const gcp_ferrs_t *errs);


#endif /* _GCP_FERR_H_INCLUDED_ */
