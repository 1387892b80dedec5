
/*
 * Internals shared by gcp_protobuf.c (message descriptors built from the
 * schemas), gcp_protobuf_encode.c and gcp_protobuf_decode.c.
 */

#ifndef _GCP_PROTOBUF_INT_H_INCLUDED_
#define _GCP_PROTOBUF_INT_H_INCLUDED_


#include "gcp_protobuf.h"


/* wire types */
#define GCP_PB_VARINT     0
#define GCP_PB_FIXED64    1
#define GCP_PB_LEN        2
#define GCP_PB_SGROUP     3
#define GCP_PB_EGROUP     4
#define GCP_PB_FIXED32    5

#define GCP_PB_MAX_FIELD  536870911         /* 2^29 - 1 */

#define GCP_PB_DEF_WATCH    "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"


/* What a value is on the wire and in JSON. */
typedef enum {
    GCP_PB_NONE = 0,            /* not encodable: the field is skipped */
    GCP_PB_STRING,
    GCP_PB_BYTES,               /* JSON: base64 */
    GCP_PB_INT32,
    GCP_PB_INT64,
    GCP_PB_BOOL,
    GCP_PB_MESSAGE,
    GCP_PB_TIME,                /* metav1.Time: seconds */
    GCP_PB_MICROTIME,           /* metav1.MicroTime: seconds, nanos */
    GCP_PB_FIELDSV1,            /* raw JSON in field 1 */
    GCP_PB_RAWEXT,              /* raw JSON or protobuf body in field 1 */
    GCP_PB_INTORSTR,            /* type 1, intVal 2, strVal 3 */
    GCP_PB_QUANTITY             /* string 1 */
} gcp_pb_kind_t;


typedef enum {
    GCP_PB_SINGLE = 0,
    GCP_PB_REPEATED,
    GCP_PB_MAP,                 /* entries: key 1 (string), value 2 */
    GCP_PB_VERBS                /* a message holding repeated string 1 */
} gcp_pb_card_t;


typedef struct gcp_pb_msg_s  gcp_pb_msg_t;

typedef struct {
    uint32_t        num;
    const char     *name;       /* JSON name (borrowed from the schema) */
    size_t          name_len;
    gcp_pb_kind_t   kind;       /* of the value, element or map value */
    gcp_pb_card_t   card;
    unsigned        ptr:1;
    unsigned        noomit:1;
    const json_t   *schema;     /* resolved message schema (MESSAGE) */
    const char     *type_name;  /* its definition's name, or NULL */
} gcp_pb_field_t;


struct gcp_pb_msg_s {
    const json_t     *schema;   /* resolved */
    const char       *go_name;  /* "ConfigMap", for error messages */
    gcp_pb_field_t   *fields;   /* ascending field number */
    size_t            nfields;
    gcp_pb_field_t  **order;    /* JSON (Go struct) order */
    gcp_pb_msg_t     *next;     /* cache chain */
};


/* One encoding or decoding run. */
typedef struct {
    gcp_arena_t             *arena;
    const gcp_schema_set_t  *set;
    gcp_pb_msg_t            *cache;
    int                      depth;
    const char              *msg;       /* decoding error */
} gcp_pb_ctx_t;


/*
 * Returns the descriptor of the message whose resolved schema is schema
 * (name: its definition name or NULL), built once per run and owned by the
 * arena; NULL when out of memory.
 */
gcp_pb_msg_t *gcp_pb_msg(gcp_pb_ctx_t *ctx, const json_t *schema,
    const char *name);

/* Returns the descriptor of definition def, or NULL (unknown, ENOMEM). */
gcp_pb_msg_t *gcp_pb_msg_def(gcp_pb_ctx_t *ctx, const char *def);

/* Returns the field numbered num, or NULL. */
const gcp_pb_field_t *gcp_pb_field(const gcp_pb_msg_t *m, uint64_t num);

/* Returns the wire type of a single value of kind. */
int gcp_pb_wire_type(gcp_pb_kind_t kind);

/*
 * Splits apiVersion into *group and *version (arena strings) as
 * schema.ParseGroupVersion; returns GCP_OK, or GCP_EBADREQUEST when it has
 * more than one '/', or GCP_ENOMEM.
 */
int gcp_pb_parse_api_version(gcp_arena_t *a, const char *av,
    const char **group, const char **version);

/*
 * Returns the definition name for apiVersion and kind when it is
 * protobuf-capable, else NULL.
 */
const char *gcp_pb_find_def(gcp_arena_t *a, const gcp_schema_set_t *set,
    const char *api_version, const char *kind);


#endif /* _GCP_PROTOBUF_INT_H_INCLUDED_ */
