
/*
 * Encryption at rest, as kube-apiserver's --encryption-provider-config:
 * an EncryptionConfiguration (apiserver.config.k8s.io/v1, JSON or YAML)
 * maps resources to providers (aescbc, aesgcm, secretbox, identity); the
 * first provider of a resource writes, all of them read.  Values carry
 * upstream's layout, "k8s:enc:PROVIDER:v1:KEYNAME:" then the provider's
 * bytes, so that a store written by kube-apiserver with the same file
 * reads here and the other way round.
 */

#ifndef _GCP_ENCRYPTION_H_INCLUDED_
#define _GCP_ENCRYPTION_H_INCLUDED_


#include "gcp_core.h"
#include "gcp_digest.h"


typedef struct gcp_encryption_s  gcp_encryption_t;


/*
 * Loads and validates the file at path as kube-apiserver does.  Returns
 * the configuration (one reference, released by gcp_encryption_unref()),
 * or NULL with err set to upstream's message ("error while parsing file:
 * ...").
 */
gcp_encryption_t *gcp_encryption_load(const char *path, char *err,
    size_t errlen);

/* The same for the len bytes at data (path names them in messages). */
gcp_encryption_t *gcp_encryption_parse(const char *path, const char *data,
    size_t len, char *err, size_t errlen);

/* Returns e with one more reference. */
gcp_encryption_t *gcp_encryption_ref(gcp_encryption_t *e);

/* Drops a reference; the last one frees e (NULL: nothing). */
void gcp_encryption_unref(gcp_encryption_t *e);

/* Returns the SHA-256 of the file's bytes (owned by e). */
const unsigned char *gcp_encryption_hash(const gcp_encryption_t *e);

/*
 * Returns 1 when values of the storage key are transformed at all (its
 * resource is in the configuration, or a wildcard covers it), else 0.
 */
int gcp_encryption_covers(const gcp_encryption_t *e, gcp_str_t key);

/*
 * The value to store for key: value transformed by the first provider of
 * its resource (value itself for identity or a resource not configured).
 * Returns GCP_OK with *out set (arena memory or value's), GCP_ENOMEM, or
 * GCP_EINTERNAL with *msg set.
 */
int gcp_encryption_write(const gcp_encryption_t *e, gcp_str_t key,
    gcp_str_t value, gcp_arena_t *a, gcp_str_t *out, const char **msg);

/*
 * The value stored at key, read by the first provider whose prefix it
 * carries (upstream's order and rules).  Returns GCP_OK with *out set
 * (arena memory, or stored itself when nothing was transformed) and
 * *stale set when a provider or key other than the writing one read it,
 * GCP_ENOMEM, or GCP_EINTERNAL with *msg set to upstream's error (arena
 * string, e.g. "no matching prefix found").
 */
int gcp_encryption_read(const gcp_encryption_t *e, gcp_str_t key,
    gcp_str_t stored, gcp_arena_t *a, gcp_str_t *out, int *stale,
    const char **msg);


#endif /* _GCP_ENCRYPTION_H_INCLUDED_ */
