
/*
 * LMDB backend: how keys, hist entries and revisions are encoded.
 */

#include <endian.h>

#include "gcp_lmdb.h"


int
gcp_lmdb_check_key(gcp_lmdb_store_t *s, gcp_str_t key, int allow_empty,
    const char **msg)
{
    if (key.len == 0 && !allow_empty) {
        *msg = "etcdserver: key is not provided";
        return GCP_EBADREQUEST;
    }

    if (key.len > s->max_key) {
        *msg = "storage key too long";
        return GCP_EKEYTOOLONG;
    }

    if (key.len && memchr(key.data, '\0', key.len) != NULL) {
        *msg = "storage key contains a NUL byte";
        return GCP_EBADREQUEST;
    }

    return GCP_OK;
}


static void
gcp_lmdb_be64(char *p, uint64_t n)
{
    n = htobe64(n);
    memcpy(p, &n, 8);
}


/* One load and a byte swap: three per entry of every range walked. */
static uint64_t
gcp_lmdb_get64(const char *p)
{
    uint64_t  n;

    memcpy(&n, p, 8);

    return be64toh(n);
}


void
gcp_lmdb_hist_key(char *buf, gcp_str_t key, uint64_t rev, MDB_val *v)
{
    if (key.len) {
        memcpy(buf, key.data, key.len);
    }

    buf[key.len] = '\0';
    gcp_lmdb_be64(buf + key.len + 1, rev);

    v->mv_data = buf;
    v->mv_size = key.len + GCP_LMDB_SUFFIX;
}


void
gcp_lmdb_rev_key(char *buf, int64_t rev, MDB_val *v)
{
    gcp_lmdb_be64(buf, (uint64_t) rev);

    v->mv_data = buf;
    v->mv_size = 8;
}


int64_t
gcp_lmdb_rev_decode(const MDB_val *v)
{
    if (v->mv_size != 8 && v->mv_size != GCP_LMDB_LOGKEY) {
        return -1;
    }

    return (int64_t) gcp_lmdb_get64(v->mv_data);
}


void
gcp_lmdb_log_key(char *buf, int64_t rev, unsigned sub, MDB_val *v)
{
    gcp_lmdb_rev_key(buf, rev, v);

    if (sub != 0) {
        buf[8] = (char) ((sub >> 8) & 0xff);
        buf[9] = (char) (sub & 0xff);
        v->mv_size = GCP_LMDB_LOGKEY;
    }
}


unsigned
gcp_lmdb_log_sub(const MDB_val *k)
{
    const unsigned char  *p;

    if (k->mv_size != GCP_LMDB_LOGKEY) {
        return 0;
    }

    p = k->mv_data;

    return ((unsigned) p[8] << 8) | p[9];
}


int
gcp_lmdb_decode(const MDB_val *k, const MDB_val *v, gcp_lmdb_entry_t *e)
{
    const char  *kp, *vp;

    kp = k->mv_data;
    vp = v->mv_data;

    if (k->mv_size < GCP_LMDB_SUFFIX
        || kp[k->mv_size - GCP_LMDB_SUFFIX] != '\0'
        || v->mv_size < GCP_LMDB_HDR)
    {
        return GCP_EINTERNAL;
    }

    e->key.data = kp;
    e->key.len = k->mv_size - GCP_LMDB_SUFFIX;
    e->mod_revision = (int64_t) gcp_lmdb_get64(kp + e->key.len + 1);
    e->tombstone = (vp[0] & GCP_LMDB_TOMBSTONE) ? 1 : 0;
    e->create_revision = (int64_t) gcp_lmdb_get64(vp + 1);
    e->version = (int64_t) gcp_lmdb_get64(vp + 9);
    e->value.data = vp + GCP_LMDB_HDR;
    e->value.len = v->mv_size - GCP_LMDB_HDR;

    return GCP_OK;
}


void
gcp_lmdb_encode(const gcp_lmdb_entry_t *e, char *p)
{
    p[0] = e->tombstone ? GCP_LMDB_TOMBSTONE : 0;
    gcp_lmdb_be64(p + 1, (uint64_t) e->create_revision);
    gcp_lmdb_be64(p + 9, (uint64_t) e->version);

    if (e->value.len) {
        memcpy(p + GCP_LMDB_HDR, e->value.data, e->value.len);
    }
}


int
gcp_lmdb_keycmp(const char *k, size_t klen, const char *e, size_t elen)
{
    int     rc;
    size_t  n;

    n = gcp_min(klen, elen);

    if (n) {
        rc = memcmp(k, e, n);
        if (rc != 0) {
            return rc;
        }
    }

    return klen < elen ? -1 : (klen > elen ? 1 : 0);
}


int
gcp_lmdb_copy_kv(gcp_arena_t *a, const gcp_lmdb_entry_t *e, gcp_kv_t *kv)
{
    char  *key, *value;

    key = gcp_strndup(a, e->key.data, e->key.len);
    value = gcp_strndup(a, e->value.data, e->value.len);

    if (key == NULL || value == NULL) {
        return GCP_ENOMEM;
    }

    kv->key.data = key;
    kv->key.len = e->key.len;
    kv->value.data = value;
    kv->value.len = e->value.len;
    kv->create_revision = e->create_revision;
    kv->mod_revision = e->mod_revision;
    kv->version = e->version;
    kv->stale = 0;

    return GCP_OK;
}
