
/*
 * meta.k8s.io Tables (Accept: application/json;as=Table;v=v1;g=meta.k8s.io):
 * what kubectl get prints.  A resource lists all its columns in its
 * descriptor and its strategy's table_cells produces all cells of a row;
 * resources without columns get Name and Created At.
 */

#ifndef _GCP_TABLE_H_INCLUDED_
#define _GCP_TABLE_H_INCLUDED_


#include "gcp_op.h"


#define GCP_DESC_NAME                                                         \
    "Name must be unique within a namespace. Is required when creating "     \
    "resources, although some resources may allow a client to request the " \
    "generation of an appropriate name automatically. Name is primarily "    \
    "intended for creation idempotence and configuration definition. "       \
    "Cannot be updated. More info: https://kubernetes.io/docs/concepts/"     \
    "overview/working-with-objects/names#names"

#define GCP_DESC_CREATED                                                      \
    "CreationTimestamp is a timestamp representing the server time when "    \
    "this object was created. It is not guaranteed to be set in "            \
    "happens-before order across separate operations. Clients may not set "  \
    "this value. It is represented in RFC3339 form and is in UTC.\n\n"       \
    "Populated by the system. Read-only. Null for lists. More info: "        \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"      \
    "api-conventions.md#metadata"

#define GCP_COLUMN_NAME  { "Name", "string", "name", GCP_DESC_NAME, 0 }
#define GCP_COLUMN_AGE   { "Age", "string", "", GCP_DESC_CREATED, 0 }
#define GCP_COLUMN_NAME_PRIORITY(p)                                           \
    { "Name", "string", "name", GCP_DESC_NAME, p }


/*
 * Appends a Table of n objects to b: kvs[i] the stored object (may be
 * NULL, or kvs NULL), objs[i] its decoded form in the resource's version
 * (NULL: decoded from kvs[i] when its row is not cached; objs may be NULL
 * then).  A row is cached by kvs[i]'s key and mod_revision (the
 * resourceVersion the object must show) until one of its ages changes.
 * with_columns 0 writes "columnDefinitions":null (later watch events).
 * rev is the Table's resourceVersion (0: omitted).  Returns GCP_OK or an
 * error.
 */
int gcp_table_write(gcp_op_t *op, gcp_buf_t *b, gcp_kv_t *const *kvs,
    json_t **objs, size_t n, int64_t rev, const char *cont,
    int64_t remaining, int with_columns);

/* Rows served from the cache and rows computed by this process. */
void gcp_table_stats(uint64_t *cached, uint64_t *made);

/* Appends the object's name to cells. */
void gcp_table_cell_name(json_t *cells, const json_t *obj);

/* Appends the object's age ("5m", "<unknown>") to cells. */
void gcp_table_cell_age(json_t *cells, const json_t *obj);

/* Appends a human age for an RFC 3339 time, or "<unknown>". */
void gcp_table_cell_since(json_t *cells, const char *rfc3339);


#endif /* _GCP_TABLE_H_INCLUDED_ */
