
/*
 * Between the parts of the YAML encoder: gcp_yaml.c (key order, nodes,
 * dump), gcp_yaml_emit.c (the emitter) and gcp_yaml_resolve.c (what a
 * plain scalar reads back as); the rest of the core uses gcp_yaml.h.
 */

#ifndef _GCP_YAML_INT_H_INCLUDED_
#define _GCP_YAML_INT_H_INCLUDED_


#include "gcp_json.h"
#include "gcp_yaml.h"


#define gcp_yaml_isdigit(c)   ((c) >= '0' && (c) <= '9')


enum {
    GCP_YAML_PLAIN = 1,
    GCP_YAML_SINGLE_QUOTED,
    GCP_YAML_DOUBLE_QUOTED,
    GCP_YAML_LITERAL
};


typedef struct {
    const char    *value;
    size_t         len;
    unsigned       multiline:1;
    unsigned       flow_plain_allowed:1;
    unsigned       block_plain_allowed:1;
    unsigned       single_quoted_allowed:1;
    unsigned       block_allowed:1;
} gcp_yscalar_t;


typedef struct {
    const json_t  *node;
    const char   **keys;        /* mappings: sorted keys */
    size_t        *klens;
    size_t         n;
    size_t         i;
} gcp_yframe_t;


typedef struct {
    gcp_buf_t     *b;
    gcp_arena_t   *arena;

    int            column;
    int            indent;
    int           *indents;
    size_t         nindents;
    size_t         cap;

    gcp_yframe_t  *frames;
    size_t         depth;
    size_t         fcap;

    unsigned       whitespace:1;
    unsigned       indention:1;
    unsigned       root_context:1;
    unsigned       mapping_context:1;
    unsigned       simple_key_context:1;
    unsigned       failed:1;

    gcp_yscalar_t  scalar;
} gcp_yemit_t;


/*
 * The emitter (gcp_yaml_emit.c).  Output goes to e->b; e->failed is set
 * when memory runs out.
 */

/* Starts a new line at the current indentation unless already there. */
void gcp_yaml_write_indent(gcp_yemit_t *e);

/*
 * Writes the indicator ind ("-", ":", "{}"...), after a space when need_ws
 * and the last character written is not whitespace; is_ws and
 * is_indention say what it leaves behind.
 */
void gcp_yaml_write_indicator(gcp_yemit_t *e, const char *ind, int need_ws,
    int is_ws, int is_indention);

/* Pushes the indentation and increases it (flow: from 0 at the root). */
void gcp_yaml_increase_indent(gcp_yemit_t *e, int flow, int indentless);

/* Pops the indentation pushed last. */
void gcp_yaml_pop_indent(gcp_yemit_t *e);

/*
 * Analyses value (len bytes) into e->scalar: which styles it allows.
 * value is borrowed until gcp_yaml_emit_scalar().
 */
void gcp_yaml_analyze(gcp_yemit_t *e, const char *value, size_t len);

/*
 * Writes the analysed scalar in style (GCP_YAML_PLAIN...) or, when the
 * analysis does not allow it, the style go-yaml falls back to.
 */
void gcp_yaml_emit_scalar(gcp_yemit_t *e, int style);


/*
 * Resolution (gcp_yaml_resolve.c).
 */

/*
 * Returns 1 if the plain scalar s (n bytes) reads back as a string, else 0
 * (also when memory runs out).
 */
int gcp_yaml_plain_is_str(const char *s, size_t n);

/*
 * Writes into buf (at least 40 bytes) the text of the JSON number v as
 * YAML reads Go's JSON for it back; returns its length.
 */
size_t gcp_yaml_number(const json_t *v, char *buf);


#endif /* _GCP_YAML_INT_H_INCLUDED_ */
