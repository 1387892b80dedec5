
/*
 * Between the YAML parser (gcp_yaml_parse.c), the values it builds
 * (gcp_yaml_build.c) and their converter to JSON (gcp_yaml_value.c): the
 * value go-yaml v2 decodes a document into when
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
 * GCP_EBADREQUEST with *msg (a string of a, or static) set:
 * sigs.k8s.io/yaml's error ("error converting YAML to JSON: unsupported
 * map key of type: ...", "...: json: unsupported value: NaN"),
 * or, with *json_err set, the JSON decoder's ("invalid character '['
 * exceeded max depth"); GCP_ENOMEM on allocation failure.
 */
int gcp_gv_to_json(gcp_arena_t *a, gcp_arena_t *tmp, const gcp_gv_t *v,
    json_t **out, const char **msg, unsigned *json_err);


/* the parser (gcp_yaml_parse.c), the values it builds (gcp_yaml_build.c) */


typedef struct {
    gcp_gv_t        *items;         /* malloc'd; a map: key, value, ... */
    size_t           n;
    size_t           cap;
    uint32_t        *index;         /* a map: hash slots, pair + 1 */
    size_t           icap;
    uint32_t         line;
    int              anchor;        /* -1, or its gcp_yanchor_t */
    size_t           count0;        /* decoded nodes when opened */
    size_t           dups0;         /* duplicates reported when opened */
    uint8_t          type;          /* GCP_GV_MAP or GCP_GV_SEQ */
    unsigned         flow:1;
    unsigned         merge_value:1; /* the sequence after a "<<" key */
    unsigned         key_merge:1;   /* a map: the pending key is "<<" */
} gcp_yframe_t;


typedef struct {
    const char      *name;
    size_t           len;
    gcp_gv_t         value;
    size_t           size;          /* nodes go-yaml decodes for it */
    size_t           dups0;         /* duplicates reported inside it */
    size_t           dups1;
    unsigned         open:1;
} gcp_yanchor_t;


typedef struct {
    gcp_arena_t     *a;             /* the caller's: messages */
    gcp_arena_t     *tmp;           /* values, strings, anchors */

    gcp_yframe_t    *frames;
    size_t           depth;
    size_t           fcap;
    size_t           flow;          /* open flow collections */
    size_t           block;         /* open block collections */

    gcp_gv_t         root;

    gcp_yanchor_t   *anchors;
    size_t           nanchors;
    size_t           acap;
    uint32_t        *aindex;        /* hash slots: anchor + 1 */
    size_t           aicap;

    size_t           count;         /* nodes decoded, as go-yaml counts */
    size_t           alias_count;   /* of which through aliases */

    const char     **dups;
    size_t           ndups;
    size_t           dcap;

    const char      *error;         /* the first decoding error */
    const char      *syntax;        /* a parsing error: stop */

    unsigned         strict:1;
    unsigned         nomem:1;
    unsigned         have_root:1;
} gcp_yparser_t;


#define gcp_yparse_failed(p)  ((p)->error != NULL || (p)->syntax != NULL)


/* Out of memory: parsing stops. */
void gcp_yparse_nomem(gcp_yparser_t *p);

/*
 * A decoding error (msg, arena or static; NULL: out of memory): the first
 * is kept, parsing goes on to find a syntax error, which would win.
 */
void gcp_yparse_fail(gcp_yparser_t *p, const char *msg);

/* "map merge requires map or sequence of maps as the value" */
void gcp_yparse_fail_want_map(gcp_yparser_t *p);

/*
 * Counts nodes go-yaml would decode, aliased of them through aliases;
 * fails with "document contains excessive aliasing" past go-yaml's ratio
 * or GCP_YAML_MAX_ALIAS_NODES.
 */
void gcp_yparse_count(gcp_yparser_t *p, size_t nodes, size_t aliased);

/* Records a strict duplicate message (NULL: out of memory). */
void gcp_yparse_dup(gcp_yparser_t *p, const char *msg);

/*
 * Registers the anchor name (NULL: none), open until its node is built.
 * Returns its index for gcp_yparse_anchor_close(), or -1.
 */
int gcp_yparse_anchor(gcp_yparser_t *p, const char *name);

/* Closes anchor (-1: none) with the node's value and decoded size. */
void gcp_yparse_anchor_close(gcp_yparser_t *p, int anchor,
    const gcp_gv_t *v, size_t size);

/*
 * Returns the latest anchor named name (len bytes), or NULL; *slot, when
 * not NULL, is set to its hash slot or the free one for it.
 */
gcp_yanchor_t *gcp_yparse_anchor_find(gcp_yparser_t *p, const char *name,
    size_t len, size_t *slot);

/* Returns the innermost open collection, or NULL. */
gcp_yframe_t *gcp_yparse_top(gcp_yparser_t *p);

/* Returns 1 when the next node is the value of a "<<" key. */
int gcp_yparse_at_merge_value(gcp_yparser_t *p);

/*
 * Adds a built node to the innermost collection (a key, a value set or
 * merged, an item) or as the root; from_alias: it came from an alias.
 */
void gcp_yparse_add(gcp_yparser_t *p, const gcp_gv_t *v, int from_alias);


#endif /* _GCP_YAML_PARSE_INT_H_INCLUDED_ */
