
/*
 * LMDB backend: transactions, the meta counters, finding the version of a
 * key at a revision, error codes and results.
 */

#include <errno.h>
#include <stdlib.h>

#include "gcp_lmdb.h"


int
gcp_lmdb_rc(int mrc, const char **msg)
{
    int  rc;

    switch (mrc) {

    case MDB_SUCCESS:
        rc = GCP_OK;
        break;

    case MDB_MAP_FULL:
        rc = GCP_ENOSPACE;
        break;

    case ENOMEM:
        rc = GCP_ENOMEM;
        break;

    default:
        rc = GCP_EINTERNAL;
    }

    if (msg != NULL) {
        *msg = mdb_strerror(mrc);
    }

    return rc;
}


int
gcp_lmdb_rbegin(gcp_lmdb_store_t *s, MDB_txn **txn)
{
    int       mrc;
    MDB_txn  *t;

    while (s->nrpool > 0) {
        t = s->rpool[--s->nrpool];

        if (mdb_txn_renew(t) == MDB_SUCCESS) {
            *txn = t;
            return GCP_OK;
        }

        mdb_txn_abort(t);
    }

    mrc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, txn);
    if (mrc != MDB_SUCCESS) {
        return gcp_lmdb_rc(mrc, NULL);
    }

    return GCP_OK;
}


void
gcp_lmdb_rend(gcp_lmdb_store_t *s, MDB_txn *txn)
{
    if (s->nrpool < GCP_LMDB_RPOOL) {
        mdb_txn_reset(txn);
        s->rpool[s->nrpool++] = txn;
        return;
    }

    mdb_txn_abort(txn);
}


static void
gcp_lmdb_unpin(void *data)
{
    gcp_lmdb_snap_t    *snap = data;
    gcp_lmdb_snap_t   **pp;
    gcp_lmdb_store_t   *s;

    if (--snap->refs > 0) {
        return;
    }

    s = snap->store;

    if (s != NULL) {
        for (pp = &s->snaps; *pp != snap; pp = &(*pp)->next) {
            /* void */
        }

        *pp = snap->next;
        s->nsnaps--;
        gcp_lmdb_rend(s, snap->txn);
    }

    free(snap);
}


MDB_txn *
gcp_lmdb_pin(gcp_lmdb_store_t *s, gcp_arena_t *a)
{
    MDB_txn          *txn;
    MDB_envinfo       info;
    gcp_lmdb_snap_t  *snap;

    if (!gcp_arena_brief(a) || mdb_env_info(s->env, &info) != MDB_SUCCESS) {
        return NULL;
    }

    snap = s->snaps;

    if (snap == NULL || snap->txnid != info.me_last_txnid) {

        /* a write committed since: a snapshot of the newest state */

        if (s->nsnaps >= GCP_LMDB_SNAPS) {
            return NULL;
        }

        snap = calloc(1, sizeof(gcp_lmdb_snap_t));
        if (snap == NULL) {
            return NULL;
        }

        if (gcp_lmdb_rbegin(s, &txn) != GCP_OK) {
            free(snap);
            return NULL;
        }

        snap->store = s;
        snap->txn = txn;
        snap->txnid = mdb_txn_id(txn);
        snap->next = s->snaps;
        s->snaps = snap;
        s->nsnaps++;
    }

    snap->refs++;

    if (gcp_arena_cleanup(a, gcp_lmdb_unpin, snap) != GCP_OK) {
        /* unpinned at once */
        return NULL;
    }

    s->pinned_reads++;

    return snap->txn;
}


void
gcp_lmdb_pins_close(gcp_lmdb_store_t *s)
{
    gcp_lmdb_snap_t  *snap, *next;

    for (snap = s->snaps; snap; snap = next) {
        next = snap->next;
        mdb_txn_abort(snap->txn);
        snap->store = NULL;
        snap->txn = NULL;
        snap->next = NULL;
    }

    s->snaps = NULL;
    s->nsnaps = 0;
}


int
gcp_lmdb_meta_get(gcp_lmdb_store_t *s, MDB_txn *txn, const char *name,
    int64_t def, int64_t *val)
{
    int      mrc;
    MDB_val  k, v;

    k.mv_data = (void *) name;
    k.mv_size = strlen(name);

    mrc = mdb_get(txn, s->meta, &k, &v);

    if (mrc == MDB_NOTFOUND) {
        *val = def;
        return GCP_OK;
    }

    if (mrc != MDB_SUCCESS) {
        return gcp_lmdb_rc(mrc, NULL);
    }

    *val = gcp_lmdb_rev_decode(&v);

    return *val < 0 ? GCP_EINTERNAL : GCP_OK;
}


int
gcp_lmdb_meta_put(gcp_lmdb_store_t *s, MDB_txn *txn, const char *name,
    int64_t val)
{
    char     buf[8];
    MDB_val  k, v;

    k.mv_data = (void *) name;
    k.mv_size = strlen(name);

    gcp_lmdb_rev_key(buf, val, &v);

    return mdb_put(txn, s->meta, &k, &v, 0);
}


int
gcp_lmdb_same_key(const gcp_lmdb_entry_t *e, gcp_str_t key)
{
    return e->key.len == key.len
           && (key.len == 0 || memcmp(e->key.data, key.data, key.len) == 0);
}


int
gcp_lmdb_find(MDB_cursor *c, gcp_str_t key, int64_t rev, gcp_lmdb_entry_t *e)
{
    int      mrc, rc;
    char     buf[GCP_LMDB_KEYBUF];
    MDB_val  k, v;

    gcp_lmdb_hist_key(buf, key, (uint64_t) rev + 1, &k);

    mrc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);

    if (mrc == MDB_NOTFOUND) {
        mrc = mdb_cursor_get(c, &k, &v, MDB_LAST);

    } else if (mrc == MDB_SUCCESS) {
        mrc = mdb_cursor_get(c, &k, &v, MDB_PREV);
    }

    if (mrc == MDB_NOTFOUND) {
        return GCP_ENOTFOUND;
    }

    if (mrc != MDB_SUCCESS) {
        return gcp_lmdb_rc(mrc, NULL);
    }

    rc = gcp_lmdb_decode(&k, &v, e);
    if (rc != GCP_OK) {
        return rc;
    }

    return gcp_lmdb_same_key(e, key) ? GCP_OK : GCP_ENOTFOUND;
}


int
gcp_lmdb_find_prev(MDB_cursor *c, const gcp_lmdb_entry_t *e,
    gcp_lmdb_entry_t *prev)
{
    int      mrc, rc;
    MDB_val  k, v;

    mrc = mdb_cursor_get(c, &k, &v, MDB_PREV);

    if (mrc == MDB_NOTFOUND) {
        return GCP_ENOTFOUND;
    }

    if (mrc != MDB_SUCCESS) {
        return gcp_lmdb_rc(mrc, NULL);
    }

    rc = gcp_lmdb_decode(&k, &v, prev);
    if (rc != GCP_OK) {
        return rc;
    }

    if (!gcp_lmdb_same_key(prev, e->key) || prev->tombstone) {
        return GCP_ENOTFOUND;
    }

    return GCP_OK;
}


gcp_store_result_t *
gcp_lmdb_result(gcp_arena_t *a)
{
    gcp_store_result_t         *res;
    static gcp_store_result_t   nomem;

    res = gcp_calloc(a, sizeof(gcp_store_result_t));

    if (res == NULL) {
        memset(&nomem, 0, sizeof(gcp_store_result_t));
        nomem.rc = GCP_ENOMEM;
        nomem.message = "out of memory";
        return &nomem;
    }

    return res;
}


gcp_store_result_t *
gcp_lmdb_fail(gcp_store_result_t *res, int rc, const char *msg)
{
    res->rc = rc;
    res->message = msg;
    res->nkvs = 0;
    res->count = 0;
    res->more = 0;

    return res;
}
