
/*
 * Random UUIDs and name suffixes from getrandom(2).
 */

#include <errno.h>
#include <pthread.h>
#include <sys/random.h>

#include "gcp_rand.h"


static const char  gcp_rand_alphabet[] = "bcdfghjklmnpqrstvwxz2456789";

#define GCP_RAND_NALPHA  (sizeof(gcp_rand_alphabet) - 1)
#define GCP_RAND_POOL    512


/*
 * UUIDs take their bytes from a pool refilled by getrandom(2) 32 UUIDs
 * at a time (every request has an Audit-ID).  A forked process empties
 * its copy: processes never share bytes.
 */

static unsigned char  gcp_rand_pool[GCP_RAND_POOL];
static size_t         gcp_rand_left;
static unsigned       gcp_rand_atfork;


static void
gcp_rand_forked(void)
{
    gcp_rand_left = 0;
}


static int
gcp_rand_pooled(unsigned char *out, size_t len)
{
    if (!gcp_rand_atfork) {
        if (pthread_atfork(NULL, NULL, gcp_rand_forked) != 0) {
            return gcp_rand_bytes(out, len);
        }

        gcp_rand_atfork = 1;
    }

    if (gcp_rand_left < len) {
        if (gcp_rand_bytes(gcp_rand_pool, GCP_RAND_POOL) != GCP_OK) {
            return GCP_EINTERNAL;
        }

        gcp_rand_left = GCP_RAND_POOL;
    }

    gcp_rand_left -= len;
    memcpy(out, gcp_rand_pool + gcp_rand_left, len);

    /* taken bytes are not kept */
    memset(gcp_rand_pool + gcp_rand_left, 0, len);

    return GCP_OK;
}


int
gcp_rand_bytes(void *buf, size_t len)
{
    char     *p;
    ssize_t   n;

    p = buf;

    while (len) {
        n = getrandom(p, len, 0);

        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }

            return GCP_EINTERNAL;
        }

        p += n;
        len -= (size_t) n;
    }

    return GCP_OK;
}


int
gcp_uuid_v4(char out[GCP_UUID_LEN + 1])
{
    int            i;
    char          *p;
    unsigned char  b[16];

    static const char  hex[] = "0123456789abcdef";

    if (gcp_rand_pooled(b, sizeof(b)) != GCP_OK) {
        return GCP_EINTERNAL;
    }

    b[6] = (unsigned char) ((b[6] & 0x0f) | 0x40);      /* version 4 */
    b[8] = (unsigned char) ((b[8] & 0x3f) | 0x80);      /* RFC 4122 */

    p = out;

    for (i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) {
            *p++ = '-';
        }

        *p++ = hex[b[i] >> 4];
        *p++ = hex[b[i] & 0x0f];
    }

    *p = '\0';

    return GCP_OK;
}


int
gcp_rand_name_suffix(char *out, size_t n)
{
    size_t         i, k;
    unsigned char  b[32];

    /* rejection sampling keeps the 27 characters equally likely */

    i = 0;
    k = sizeof(b);

    while (i < n) {
        if (k == sizeof(b)) {
            if (gcp_rand_bytes(b, sizeof(b)) != GCP_OK) {
                return GCP_EINTERNAL;
            }
            k = 0;
        }

        if (b[k] < 256 - 256 % GCP_RAND_NALPHA) {
            out[i++] = gcp_rand_alphabet[b[k] % GCP_RAND_NALPHA];
        }

        k++;
    }

    out[n] = '\0';

    return GCP_OK;
}


char *
gcp_rand_generate_name(gcp_arena_t *a, const char *base)
{
    char    *name;
    size_t   len;

    len = gcp_min(strlen(base), (size_t) GCP_NAME_MAX_BASE);

    name = gcp_alloc(a, len + GCP_RAND_SUFFIX_LEN + 1);
    if (name == NULL) {
        return NULL;
    }

    memcpy(name, base, len);

    if (gcp_rand_name_suffix(name + len, GCP_RAND_SUFFIX_LEN) != GCP_OK) {
        return NULL;
    }

    return name;
}
