
/*
 * Randomness from the kernel's CSPRNG (getrandom(2)): UUIDs for
 * metadata.uid and the random suffixes of metadata.generateName.
 */

#ifndef _GCP_RAND_H_INCLUDED_
#define _GCP_RAND_H_INCLUDED_


#include "gcp_core.h"


#define GCP_UUID_LEN        36      /* "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx" */
#define GCP_RAND_SUFFIX_LEN 5       /* generateName's random part */
#define GCP_NAME_MAX_BASE   58      /* 63 - GCP_RAND_SUFFIX_LEN */


/*
 * Fills buf with len random bytes.  Returns GCP_OK, or GCP_EINTERNAL if
 * the kernel gives none (never on Linux >= 3.17 once the pool is ready).
 */
int gcp_rand_bytes(void *buf, size_t len);

/*
 * Writes a random (version 4, RFC 4122 variant) UUID in lower case, as
 * upstream's uuid.NewUUID(), into out and NUL-terminates it.  Returns
 * GCP_OK or GCP_EINTERNAL.  The event loop's thread only (its bytes come
 * from a per-process pool).
 */
int gcp_uuid_v4(char out[GCP_UUID_LEN + 1]);

/*
 * Writes n characters drawn uniformly from "bcdfghjklmnpqrstvwxz2456789"
 * (k8s.io/apimachinery/pkg/util/rand.String) into out, which must hold
 * n + 1 bytes, and NUL-terminates it.  Returns GCP_OK or GCP_EINTERNAL.
 */
int gcp_rand_name_suffix(char *out, size_t n);

/*
 * Returns the name generateName gives (names.SimpleNameGenerator): base
 * cut to GCP_NAME_MAX_BASE bytes, then GCP_RAND_SUFFIX_LEN random
 * characters; owned by the arena.  NULL when out of memory or randomness.
 */
char *gcp_rand_generate_name(gcp_arena_t *a, const char *base);


#endif /* _GCP_RAND_H_INCLUDED_ */
