
/*
 * SHA-256 with the algorithm fetched once (gcp_digest.h).
 */

#include <pthread.h>

#include <openssl/evp.h>

#include "gcp_errors.h"
#include "gcp_digest.h"


static pthread_once_t   gcp_sha256_once = PTHREAD_ONCE_INIT;
static EVP_MD          *gcp_sha256_md;


static void
gcp_sha256_fetch(void)
{
    /* kept for the life of the process */
    gcp_sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}


int
gcp_sha256(const void *data, size_t len, unsigned char out[GCP_SHA256_LEN])
{
    (void) pthread_once(&gcp_sha256_once, gcp_sha256_fetch);

    if (gcp_sha256_md == NULL
        || EVP_Digest(data, len, out, NULL, gcp_sha256_md, NULL) != 1)
    {
        return GCP_EINTERNAL;
    }

    return GCP_OK;
}
