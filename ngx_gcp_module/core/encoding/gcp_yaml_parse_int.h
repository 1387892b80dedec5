
/*
 * Between the YAML parser (gcp_yaml_parse.c) and its converter to JSON
 * (gcp_yaml_value.c): the value go-yaml v2 decodes a document into when
 * the target is an interface{} (map[interface{}]interface{} with typed
 * keys, []interface{}, int, uint64, float64, bool, string, nil), which
 * sigs.k8s.io/yaml then converts to JSON.
 */

#ifndef _GCP_YAML_PARSE_INT_H_INCLUDED_
#define _GCP_YAML_PARSE_INT_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"


typedef enum {
    GCP_GV_NIL = 0,
    GCP_GV_BOOL,                /* v.i: 0 or 1 */
    GCP_GV_INT,                 /* v.i */
    GCP_GV_UINT,                /* v.u, beyond int64 */
    GCP_GV_FLOAT,               /* v.f */
    GCP_GV_STR,                 /* v.s, n bytes (any bytes: !!binary) */
    GCP_GV_MAP,                 /* v.items: n pairs, key then value */
    GCP_GV_SEQ                  /* v.items: n values */
} gcp_gv_type_t;


typedef struct gcp_gv_s  gcp_gv_t;

struct gcp_gv_s {
    uint8_t      type;          /* gcp_gv_type_t */
    uint32_t     line;          /* 0-based line of the node */
    size_t       n;
    union {
        int64_t          i;
        uint64_t         u;
        double           f;
        const char      *s;
        const gcp_gv_t  *items;
    } v;
};


/* The most bytes a value is printed with in an error message. */
#define GCP_GV_FORMAT_MAX  4096


/*
 * Appends v as Go's fmt prints it with %#v: strings quoted, uint64 in
 * hex, maps as map[interface {}]interface {}{...} with sorted keys; top
 * is 1 when v is fmt's argument itself (a nil is "<nil>" there and
 * "interface {}(nil)" inside a map or slice).  Stops with "..." after
 * GCP_GV_FORMAT_MAX bytes.
 */
void gcp_gv_format(gcp_buf_t *b, const gcp_gv_t *v, int top);

/*
 * Converts v to JSON as sigs.k8s.io/yaml does (convertToJSONableObject,
 * then json.Marshal, then the JSON read back): keys to strings, object
 * keys in byte order, invalid UTF-8 as U+FFFD, integral numbers as
 * integers; tmp holds the work (keys).  On success returns GCP_OK and
 * *out (a new reference the caller owns).  On failure returns
 * GCP_EBADREQUEST with *msg (a string of a, or static) set: sigs.k8s.io/yaml's error ("error converting YAML to JSON:
 * unsupported map key of type: ...", "...: json: unsupported value: NaN"),
 * or, with *json_err set, the JSON decoder's ("invalid character '['
 * exceeded max depth"); GCP_ENOMEM on allocation failure.
 */
int gcp_gv_to_json(gcp_arena_t *a, gcp_arena_t *tmp, const gcp_gv_t *v,
    json_t **out, const char **msg, unsigned *json_err);


#endif /* _GCP_YAML_PARSE_INT_H_INCLUDED_ */
