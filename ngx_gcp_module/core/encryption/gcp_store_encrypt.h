
/*
 * A store in front of another that encrypts values at rest (see
 * gcp_encryption.h): every value written for a configured resource is
 * transformed by its first provider before the inner store sees it, and
 * every value read (get, range, the values writes return, watch events
 * and their previous values) is read back through the providers, so that
 * everything above (the registry, the zero-copy reads, watches, the label
 * indexes, the object and Table caches) sees plain objects.
 *
 * A value no provider can read fails its operation with GCP_EINTERNAL and
 * upstream's message ("Internal error occurred: ..."; for a range "unable
 * to transform key \"KEY\": ..."); a watch meeting one ends with an ERROR
 * event carrying the message, as kube-apiserver's etcd watcher does.
 *
 * The file is read again every reload interval (as kube-apiserver's
 * --encryption-provider-config-automatic-reload): a changed file that
 * loads replaces the configuration, one that does not is logged and the
 * previous configuration stays.
 */

#ifndef _GCP_STORE_ENCRYPT_H_INCLUDED_
#define _GCP_STORE_ENCRYPT_H_INCLUDED_


#include "gcp_encryption.h"
#include "gcp_store.h"


typedef struct {
    const char        *path;        /* the configuration file */
    uint64_t           reload_ms;   /* 0: never read again */
    gcp_encryption_t  *enc;         /* as loaded (borrowed: a reference */
                                    /* is taken) */
} gcp_store_encrypt_conf_t;


/*
 * Returns a store that forwards every operation to inner (borrowed, still
 * closed by its owner), released by gcp_store_encrypt_unwrap(); NULL when
 * out of memory.  loop runs the reload timer (NULL: no reloads).
 */
gcp_store_t *gcp_store_encrypt_wrap(gcp_store_t *inner, gcp_loop_t *loop,
    const gcp_store_encrypt_conf_t *conf);

/*
 * Releases what gcp_store_encrypt_wrap() made; returns the inner store
 * (s itself when s is not an encrypting store).
 */
gcp_store_t *gcp_store_encrypt_unwrap(gcp_store_t *s);

/* Returns the configuration in use (borrowed), for tests. */
gcp_encryption_t *gcp_store_encrypt_config(gcp_store_t *s);

/*
 * Reads the file again now, as the timer does.  Returns GCP_OK when the
 * configuration in use is the file's (changed or not), or an error code
 * (the previous configuration stays; the error is logged).
 */
int gcp_store_encrypt_reload(gcp_store_t *s);


#endif /* _GCP_STORE_ENCRYPT_H_INCLUDED_ */
