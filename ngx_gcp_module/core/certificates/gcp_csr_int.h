
/*
 * Internals of the certificates folder: PEM blocks (gcp_csr_pem.c).
 */

#ifndef _GCP_CSR_INT_H_INCLUDED_
#define _GCP_CSR_INT_H_INCLUDED_


#include "gcp_core.h"


typedef struct {
    const char           *type;         /* "CERTIFICATE REQUEST" */
    const unsigned char  *der;          /* the decoded body */
    size_t                len;
    unsigned              headers;      /* number of "Key: value" lines */
} gcp_pem_block_t;


/*
 * Finds the first valid PEM block of data (len bytes) as Go's pem.Decode:
 * a "-----BEGIN TYPE-----" line at the start of a line, optional headers,
 * a base64 body, "-----END TYPE-----".  Returns GCP_OK with *blk (arena
 * memory) and *used (the bytes up to the end of the block), GCP_EINVALID
 * when there is none, or GCP_ENOMEM.
 */
int gcp_pem_decode(gcp_arena_t *a, const char *data, size_t len,
    gcp_pem_block_t *blk, size_t *used);


#endif /* _GCP_CSR_INT_H_INCLUDED_ */
