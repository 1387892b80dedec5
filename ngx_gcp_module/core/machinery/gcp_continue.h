
/*
 * List continue tokens, compatible with kube-apiserver's: base64url (no
 * padding) of {"v":"meta.k8s.io/v1","rv":REV,"start":"KEY-SUFFIX\u0000"}.
 * The start key is relative to the collection prefix.
 */

#ifndef _GCP_CONTINUE_H_INCLUDED_
#define _GCP_CONTINUE_H_INCLUDED_


#include "gcp_op.h"


/*
 * The byte appended to a key to start just after it.  etcd's tokens carry
 * KEY "\0"; storage keys never contain bytes below 0x20 (names are
 * validated), so KEY "\x01" starts at the same place and is a valid key
 * for every backend.
 */
#define GCP_CONTINUE_NEXT  '\x01'


/*
 * Returns a token to continue after last (the last key examined, relative
 * to the prefix) at revision rev (-1: inconsistent continuation), owned by
 * the arena, or NULL when out of memory.
 */
const char *gcp_continue_encode(gcp_arena_t *a, int64_t rev,
    const char *last);

/*
 * Decodes token into the absolute range start and revision.  Returns
 * GCP_OK, or responds 400 ("invalid continue token: ...") and returns
 * GCP_EBADREQUEST.  rev -1 in a token means the current revision (0).
 */
int gcp_continue_decode(gcp_op_t *op, const char *token, gcp_str_t prefix,
    gcp_str_t *start, int64_t *rev);

/*
 * Responds 410 Expired for a token whose revision was compacted, with a
 * fresh token in the Status metadata that continues from start at the
 * current revision.
 */
void gcp_continue_expired(gcp_op_t *op, gcp_str_t start, gcp_str_t prefix);


#endif /* _GCP_CONTINUE_H_INCLUDED_ */
