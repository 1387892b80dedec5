
/*
 * Request info: what a request path and method mean, following
 * kube-apiserver's RequestInfoFactory (also what authorization will judge).
 *
 *   /api/v1/namespaces/NS/RESOURCE/NAME/SUBRESOURCE
 *   /apis/GROUP/VERSION/RESOURCE/NAME
 *   /api/v1/watch/namespaces/NS/RESOURCE[/NAME]       (legacy watch)
 *
 * Paths of fewer parts (/api, /apis/GROUP/VERSION, /healthz) are
 * non-resource requests.  Query parameters are decoded into a small list.
 */

#ifndef _GCP_REQINFO_H_INCLUDED_
#define _GCP_REQINFO_H_INCLUDED_


#include "gcp_core.h"


typedef struct {
    const char  *name;          /* decoded */
    const char  *value;         /* decoded; "" for "?name" */
    size_t       len;           /* of value, which may hold NULs */
} gcp_param_t;


typedef struct {
    gcp_param_t  *params;
    size_t        n;
} gcp_query_t;


typedef struct {
    unsigned      is_resource:1;
    unsigned      legacy_watch:1;   /* the /watch/ path form */
    unsigned      trailing_slash:1;

    const char   *verb;         /* get list watch create update patch */
                                /* delete deletecollection, or the */
                                /* lower-case method for non-resources */
    const char   *path;         /* as requested, NUL-terminated */
    const char   *api_prefix;   /* "api" or "apis" */
    const char   *group;        /* "" for the core group */
    const char   *version;
    const char   *ns;           /* "" when none */
    const char   *resource;
    const char   *name;         /* "" when none */
    const char   *subresource;  /* "" when none */
    const char   *selector_name;    /* list, watch: the name a */
                                    /* "metadata.name=NAME" field */
                                    /* selector requires, as upstream's */
                                    /* RequestInfo.Name ("" when none) */

    const char  **parts;        /* all path segments */
    size_t        nparts;
} gcp_reqinfo_t;


/*
 * Parses method and path (percent-decoded, without the query) into ri.
 * query is parsed first since the verb of a collection GET depends on
 * "watch".  Returns GCP_OK, or GCP_EBADREQUEST with *msg (static) for
 * paths kube-apiserver rejects (e.g. "/api/v1/watch").  All strings are
 * owned by the arena.
 */
int gcp_reqinfo_parse(gcp_arena_t *a, const char *method, gcp_str_t path,
    const gcp_query_t *q, gcp_reqinfo_t *ri, const char **msg);

/*
 * Parses a raw query string ("a=1&b=x%20y") as Go's url.ParseQuery: "&"
 * separates, a parameter holding ";" or a malformed escape is dropped.
 * Returns GCP_OK or GCP_ENOMEM; q's contents are owned by the arena.
 */
int gcp_query_parse(gcp_arena_t *a, gcp_str_t raw, gcp_query_t *q);

/*
 * Checks that no parameter the server reads holds a NUL byte (a value
 * with "%00" would be cut there: upstream's parsers refuse them).  Returns
 * GCP_OK, GCP_EBADREQUEST with *msg (arena-owned), or GCP_ENOMEM.
 */
int gcp_query_check(gcp_arena_t *a, const gcp_query_t *q, const char **msg);

/* Returns the first value of name, or NULL when absent.  Borrowed. */
const char *gcp_query_get(const gcp_query_t *q, const char *name);

/*
 * Returns the first parameter called name (its value with its length,
 * NUL bytes included), or NULL when absent.  Borrowed from q.
 */
const gcp_param_t *gcp_query_param(const gcp_query_t *q, const char *name);

/*
 * Returns the first value of name as a boolean, as Go's query parameter
 * conversion reads it (Convert_Slice_string_To_bool): -1 when absent, 0
 * for "0" and for "false" in any case (the whole value: "false" followed
 * by a NUL byte is not "false"), 1 for any other value, "" included.
 */
int gcp_query_bool(const gcp_query_t *q, const char *name);

/* Returns how many times name appears. */
size_t gcp_query_count(const gcp_query_t *q, const char *name);

/*
 * Percent-decodes s[0..len) into a NUL-terminated arena string; plus is a
 * space when form is set.  Returns NULL when out of memory.
 */
char *gcp_url_decode(gcp_arena_t *a, const char *s, size_t len, int form);

/* Appends s percent-encoded as a query value to b. */
void gcp_url_encode(gcp_buf_t *b, const char *s);


#endif /* _GCP_REQINFO_H_INCLUDED_ */
