
/*
 * resource.Quantity (k8s.io/apimachinery/pkg/api/resource): parsing with
 * upstream's error messages, comparison, addition, and the canonical text
 * kube-apiserver serves ("1000" is "1k", "1.5" is "1500m", "1536Ki" is
 * "1536Ki", "2048Ki" is "2Mi").  A quantity is value * 10^scale, exact in
 * an int64 (larger magnitudes are capped, finer precision than nano is
 * rounded up, as upstream does) with scale at most 1000: beyond, the
 * magnitude is capped at 9223372036854775807e1000 (upstream keeps
 * "3e3357"; capped, the canonical text still reads back the same).
 */

#ifndef _GCP_QUANTITY_H_INCLUDED_
#define _GCP_QUANTITY_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"


#define GCP_QUANTITY_BUFSIZE  32

/* the message of resource.ErrFormatWrong */
#define GCP_QUANTITY_EFORMAT                                                  \
    "quantities must match the regular expression "                           \
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


typedef enum {
    GCP_QTY_DECIMAL_SI = 0,         /* 1k, 500m, 5 */
    GCP_QTY_BINARY_SI,              /* 1Ki, 5Gi */
    GCP_QTY_DECIMAL_EXPONENT        /* 1e3 */
} gcp_qty_format_t;


typedef struct {
    int64_t           value;
    int32_t           scale;        /* power of ten */
    gcp_qty_format_t  format;
} gcp_quantity_t;


/*
 * Parses s (len bytes) as resource.ParseQuantity.  Returns GCP_OK, or
 * GCP_EBADREQUEST with *err set to upstream's static message.
 */
int gcp_quantity_parse(const char *s, size_t len, gcp_quantity_t *q,
    const char **err);

/*
 * Parses a JSON value holding a quantity (a string, or a number as
 * Quantity.UnmarshalJSON accepts).  Returns as gcp_quantity_parse().
 */
int gcp_quantity_parse_json(const json_t *v, gcp_quantity_t *q,
    const char **err);

/* Sets *q to the integer v (DecimalSI, as resource.NewQuantity). */
void gcp_quantity_set_int(gcp_quantity_t *q, int64_t v);

/*
 * Writes the canonical text of q into buf (GCP_QUANTITY_BUFSIZE bytes);
 * returns its length.
 */
size_t gcp_quantity_format(const gcp_quantity_t *q, char *buf);

/* Returns a new JSON string of the canonical text (new reference). */
json_t *gcp_quantity_json(const gcp_quantity_t *q);

/* Returns <0, 0 or >0 as a compares with b. */
int gcp_quantity_cmp(const gcp_quantity_t *a, const gcp_quantity_t *b);

/* Returns 1 when q is negative. */
int gcp_quantity_negative(const gcp_quantity_t *q);

/* Returns 1 when q is a whole number (MilliValue() % 1000 == 0). */
int gcp_quantity_integral(const gcp_quantity_t *q);

/* *sum = a + b (capped), in a's format. */
void gcp_quantity_add(gcp_quantity_t *sum, const gcp_quantity_t *a,
    const gcp_quantity_t *b);

/*
 * Rewrites every value of the map obj[field] (when it is an object) in
 * canonical form; values that do not parse are left alone.
 */
void gcp_quantity_canonical_map(json_t *obj, const char *field);


#endif /* _GCP_QUANTITY_H_INCLUDED_ */
