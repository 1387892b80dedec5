
/*
 * Each worker's label indexes (gcp_lindex.h), one per resource listed
 * with a label or field selector (and per set of declared fields: events
 * of core/v1 and events.k8s.io/v1 share their storage, as do the versions
 * of a custom resource, each with its selectableFields): loaded by a
 * range on first use, then kept current by a store watch from the
 * range's revision; bounded by gcp_label_index_size (all indexes of the
 * worker: an index that would pass the bound is dropped, and built again
 * a minute later).
 *
 * An index answers for a revision T when it holds every change up to T
 * (the store's watch_revision) and none after T (its last change is not
 * newer): then it is the state of the store at T.
 */

#ifndef _GCP_REG_INDEX_H_INCLUDED_
#define _GCP_REG_INDEX_H_INCLUDED_


#include "gcp_op.h"
#include "gcp_lindex.h"


typedef struct gcp_reg_indexes_s  gcp_reg_indexes_t;


/*
 * Returns an empty set of indexes holding at most about max_bytes, owned
 * by the caller (gcp_reg_indexes_free), or NULL when out of memory.
 */
gcp_reg_indexes_t *gcp_reg_indexes_create(gcp_store_t *store,
    gcp_loop_t *loop, size_t max_bytes);

void gcp_reg_indexes_free(gcp_reg_indexes_t *set);

/*
 * For a list of op's resource and namespace at revision rev: returns
 * GCP_OK with *hits (arena-owned, sorted) the keys not below from whose
 * labels satisfy labels and whose fields satisfy fields (either NULL:
 * any), with their stored bytes and mod_revisions at rev (the values of
 * the first limit hits, or of all when limit is 0: arena copies), and
 * *more 1 when the namespace holds keys after hits[limit - 1] (limit 0:
 * none asked); GCP_EFUTURE when the index will answer for rev once its
 * watch has delivered the changes up to rev (writes committed but not
 * yet durable, or not yet dispatched in this process: ask again
 * shortly); GCP_EUNAVAILABLE when no index answers for rev (none built
 * yet: this starts building one; an older revision than the index's
 * last change) or fields names a field the
 * index does not record (metadata.name, metadata.namespace and the
 * declared ones, built-in kinds' and custom resources' selectableFields,
 * unless a conversion webhook makes what lists serve); GCP_ENOMEM.
 */
int gcp_reg_index_query(gcp_op_t *op, int64_t rev,
    const gcp_label_selector_t *labels, const gcp_field_selector_t *fields,
    gcp_str_t from, int64_t limit, gcp_lindex_hit_t **hits, size_t *n,
    int *more);

/* Indexes, keys and bytes held, lists answered (statistics, tests). */
void gcp_reg_indexes_stats(gcp_reg_indexes_t *set, size_t *indexes,
    size_t *keys, size_t *bytes, uint64_t *answered);


#endif /* _GCP_REG_INDEX_H_INCLUDED_ */
