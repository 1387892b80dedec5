
/*
 * Label selectors (k8s.io/apimachinery/pkg/labels) and field selectors
 * (k8s.io/apimachinery/pkg/fields) with kube-apiserver's parse errors.
 *
 * Label selector grammar (labels.Parse):
 *   selector    ::= requirement | requirement "," selector
 *   requirement ::= ["!"] KEY [ ("in"|"notin") "(" VALUES ")"
 *                             | ("="|"=="|"!="|">"|"<") VALUE ]
 * KEY is a qualified name, VALUE a label value (possibly empty); ">" and "<"
 * take an integer.  Requirements are kept sorted by key (stably) and the
 * values of one requirement sorted (and unique when parsed from a string),
 * as upstream.  Every string of a selector is a copy owned by the arena.
 *
 * Field selector grammar (fields.ParseSelector): comma-separated terms
 * FIELD ("="|"=="|"!=") VALUE, where VALUE escapes '\', ',' and '=' with a
 * backslash.  Terms are kept in upstream's order (sorted raw terms).
 *
 * Messages are the text of the metav1.Status a kube-apiserver returns
 * (HTTP 400 BadRequest), e.g. "unable to parse requirement: found '',
 * expected: ',' or ')'".
 */

#ifndef _GCP_SELECTOR_H_INCLUDED_
#define _GCP_SELECTOR_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"


typedef enum {
    GCP_SEL_EXISTS = 0,         /* "k" */
    GCP_SEL_DOES_NOT_EXIST,     /* "!k" */
    GCP_SEL_EQUALS,             /* "k=v" */
    GCP_SEL_DOUBLE_EQUALS,      /* "k==v" */
    GCP_SEL_NOT_EQUALS,         /* "k!=v" */
    GCP_SEL_IN,                 /* "k in (a,b)" */
    GCP_SEL_NOT_IN,             /* "k notin (a,b)" */
    GCP_SEL_GT,                 /* "k>1" */
    GCP_SEL_LT                  /* "k<1" */
} gcp_sel_op_t;


typedef struct {
    const char    *key;
    gcp_sel_op_t   op;
    size_t         nvalues;
    const char   **values;      /* sorted; none for (DOES_NOT_)EXIST */
} gcp_label_req_t;


typedef struct {
    size_t            n;
    gcp_label_req_t  *reqs;     /* sorted by key */
    unsigned          nothing:1;    /* labels.Nothing(): matches nothing */
} gcp_label_selector_t;


typedef struct {
    const char  *field;
    const char  *value;         /* unescaped, NUL-terminated */
    size_t       value_len;     /* may hold NULs from %00 in a query */
    unsigned     not_equal:1;   /* "!=" */
} gcp_field_term_t;


typedef struct {
    size_t             n;
    gcp_field_term_t  *terms;
} gcp_field_selector_t;


/*
 * Parses s (len bytes; a NUL byte ends it, as upstream's lexer) like
 * labels.Parse.  Returns GCP_OK with *out (arena-owned; an empty selector
 * for an empty or blank string), GCP_EBADREQUEST with *msg (arena-owned,
 * upstream's message), or GCP_ENOMEM.
 */
int gcp_label_selector_parse(gcp_arena_t *a, const char *s, size_t len,
    gcp_label_selector_t **out, const char **msg);

/*
 * Converts a metav1.LabelSelector {matchLabels, matchExpressions} like
 * metav1.LabelSelectorAsSelector: NULL or JSON null gives the selector that
 * matches nothing, {} the one that matches everything.  Returns GCP_OK with
 * *out (arena-owned), GCP_EBADREQUEST with *msg (arena-owned, upstream's
 * message, e.g. "\"Foo\" is not a valid label selector operator"), or
 * GCP_ENOMEM.  ls is borrowed.
 */
int gcp_label_selector_from_json(gcp_arena_t *a, const json_t *ls,
    gcp_label_selector_t **out, const char **msg);

/*
 * Returns 1 if the labels object (borrowed; NULL means no labels) satisfies
 * every requirement, else 0.  A NULL selector matches everything.  Label
 * values that are not strings count as absent.
 */
int gcp_label_selector_matches(const gcp_label_selector_t *sel,
    const json_t *labels);

/*
 * Returns 1 if the label value v (len bytes; NULL: the label is absent)
 * satisfies the requirement r, else 0: one requirement of
 * gcp_label_selector_matches(), for callers that keep labels otherwise.
 */
int gcp_label_req_matches(const gcp_label_req_t *r, const char *v,
    size_t len);

/* Returns 1 if sel does not restrict anything (NULL or no requirement). */
int gcp_label_selector_empty(const gcp_label_selector_t *sel);

/*
 * Returns the selector's canonical form as labels.Selector.String()
 * ("a in (x,y),!b,c=d"), owned by the arena; "" for an empty selector or
 * the nothing selector; NULL when out of memory.
 */
const char *gcp_label_selector_string(gcp_arena_t *a,
    const gcp_label_selector_t *sel);

/*
 * Returns the value the selector requires for key (the first requirement on
 * key being =, == or "in" with a single value), borrowed from sel, or NULL.
 */
const char *gcp_label_selector_requires(const gcp_label_selector_t *sel,
    const char *key);


/*
 * Parses s (len bytes) like fields.ParseSelector followed by the field
 * label conversion kube-apiserver applies for the resource:
 *   fields == NULL: the resource has no conversion function (ConfigMap,
 *     ServiceAccount, RBAC, ...): only metadata.name and metadata.namespace
 *     are accepted, others fail with "\"x\" is not a known field selector:
 *     only \"metadata.name\", \"metadata.namespace\"";
 *   fields != NULL: the NULL-terminated list of accepted labels (Event,
 *     Secret, Namespace, custom resources: list every accepted label, e.g.
 *     namespaces accept metadata.name and status.phase but not
 *     metadata.namespace); others fail with "field label not supported: x".
 * Returns GCP_OK with *out (arena-owned), GCP_EBADREQUEST with *msg
 * (arena-owned), or GCP_ENOMEM.
 */
int gcp_field_selector_parse(gcp_arena_t *a, const char *s, size_t len,
    const char *const *fields, gcp_field_selector_t **out, const char **msg);

/*
 * Returns 1 if every term holds, else 0.  get(ctx, field) returns the
 * object's value for a field label, or NULL when it has none (compared as
 * "", like fields.Set).  A NULL selector matches everything.
 */
int gcp_field_selector_matches(const gcp_field_selector_t *sel,
    const char *(*get)(void *ctx, const char *field), void *ctx);

/* Returns 1 if sel does not restrict anything (NULL or no term). */
int gcp_field_selector_empty(const gcp_field_selector_t *sel);

/*
 * Returns the value of the first "field=value" (or "==") term on field,
 * borrowed from sel, or NULL (RequiresExactMatch).
 */
const char *gcp_field_selector_requires(const gcp_field_selector_t *sel,
    const char *field);

/*
 * Returns the selector as fields.Selector.String() ("a=b,c!=d", values
 * escaped), owned by the arena; NULL when out of memory.
 */
const char *gcp_field_selector_string(gcp_arena_t *a,
    const gcp_field_selector_t *sel);


#endif /* _GCP_SELECTOR_H_INCLUDED_ */
