
/*
 * SHA-256 with OpenSSL's implementation fetched once per process: OpenSSL
 * 3 looks the algorithm up again on every EVP_Digest(..., EVP_sha256())
 * call, which showed in the profile of token authentication.
 */

#ifndef _GCP_DIGEST_H_INCLUDED_
#define _GCP_DIGEST_H_INCLUDED_


#include <stddef.h>


#define GCP_SHA256_LEN  32


/*
 * Writes the SHA-256 digest of the len bytes at data into out.  Returns
 * GCP_OK, or GCP_EINTERNAL if OpenSSL fails.
 */
int gcp_sha256(const void *data, size_t len,
    unsigned char out[GCP_SHA256_LEN]);


#endif /* _GCP_DIGEST_H_INCLUDED_ */
