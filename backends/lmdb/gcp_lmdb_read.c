
/*
 * LMDB backend: get and range at a revision.
 */

#include "gcp_lmdb.h"


int
gcp_lmdb_check_rev(gcp_lmdb_store_t *s, MDB_txn *txn, int64_t revision,
    gcp_store_result_t *res)
{
    int      rc;
    int64_t  cur, compacted;

    rc = gcp_lmdb_meta_get(s, txn, "revision", GCP_LMDB_FIRST_REV, &cur);
    if (rc == GCP_OK) {
        rc = gcp_lmdb_meta_get(s, txn, "compact", 0, &compacted);
    }

    if (rc != GCP_OK) {
        res->message = "storage: cannot read the store revision";
        return rc;
    }

    res->compact_revision = compacted;
    res->revision = cur;

    if (s->mirror && compacted == 0) {
        /* a load's last page sets it: being loaded, or never loaded */
        res->message = "storage: the mirror is being loaded";
        return GCP_EUNAVAILABLE;
    }

    if (revision < 0) {
        res->message = "storage: negative revision";
        return GCP_EBADREQUEST;
    }

    if (revision > cur) {
        res->message = "mvcc: required revision is a future revision";
        return GCP_EFUTURE;
    }

    if (revision != 0 && revision < compacted) {
        res->message = "mvcc: required revision has been compacted";
        return GCP_ECOMPACTED;
    }

    if (revision != 0) {
        res->revision = revision;
    }

    return GCP_OK;
}


typedef struct {
    gcp_arena_t         *arena;
    gcp_buf_t            kvs;
    int64_t              limit;
    int                  count_only;
    int                  pinned;    /* kvs may point into the snapshot */
    size_t               grow;      /* kvs reserved at a time */
    gcp_store_result_t  *res;
} gcp_lmdb_collect_t;


/* Counts e (the version of a key at the read revision) and keeps it. */
static int
gcp_lmdb_collect(gcp_lmdb_collect_t *col, const gcp_lmdb_entry_t *e)
{
    gcp_kv_t  *kv;

    if (e->tombstone) {
        return GCP_OK;
    }

    col->res->count++;

    if (col->count_only
        || (col->limit > 0 && (int64_t) col->res->nkvs >= col->limit))
    {
        return GCP_OK;
    }

    /* the kv is written in place: no copy through the buffer per key */

    if (col->kvs.len + sizeof(gcp_kv_t) >= col->kvs.cap
        && gcp_buf_reserve(&col->kvs, col->grow * sizeof(gcp_kv_t))
           != GCP_OK)
    {
        return GCP_ENOMEM;
    }

    kv = (gcp_kv_t *) (col->kvs.data + col->kvs.len);

    if (col->pinned) {
        /* the key is followed by the \0 of its hist key in the map */
        kv->key = e->key;
        kv->value = e->value;
        kv->create_revision = e->create_revision;
        kv->mod_revision = e->mod_revision;
        kv->version = e->version;
        kv->stale = 0;

    } else if (gcp_lmdb_copy_kv(col->arena, e, kv) != GCP_OK) {
        return GCP_ENOMEM;
    }

    col->kvs.len += sizeof(gcp_kv_t);
    col->res->nkvs++;
    col->res->kvs = (gcp_kv_t *) col->kvs.data;

    return GCP_OK;
}


/*
 * Visits every key in [key, end) (end NULL: unbounded) at revision rev.
 *
 * One sequential walk of the history: the versions of a key are adjacent
 * and ordered by revision, so the version visible at rev is the last one
 * not after rev in each run of equal keys.  No seek per key.
 */
static int
gcp_lmdb_scan(MDB_cursor *c, gcp_str_t key, size_t max_key,
    const gcp_str_t *end, int64_t rev, gcp_lmdb_collect_t *col)
{
    int               mrc, rc, have;
    MDB_val           k, v;
    gcp_lmdb_entry_t  e, cand;

    /*
     * A start key longer than any stored key: seek to its first max_key
     * bytes and skip what sorts before it (no stored key is that long)
     */

    k.mv_data = (void *) key.data;
    k.mv_size = gcp_min(key.len, max_key);

    mrc = key.len ? mdb_cursor_get(c, &k, &v, MDB_SET_RANGE)
                  : mdb_cursor_get(c, &k, &v, MDB_FIRST);

    have = 0;

    while (mrc == MDB_SUCCESS) {

        rc = gcp_lmdb_decode(&k, &v, &e);
        if (rc != GCP_OK) {
            return rc;
        }

        if (end != NULL
            && gcp_lmdb_keycmp(e.key.data, e.key.len, end->data, end->len)
               >= 0)
        {
            break;
        }

        if (key.len > max_key
            && gcp_lmdb_keycmp(e.key.data, e.key.len, key.data, key.len) < 0)
        {
            mrc = mdb_cursor_get(c, &k, &v, MDB_NEXT);
            continue;
        }

        if (have && !gcp_lmdb_same_key(&cand, e.key)) {
            /* a new key: the previous one's candidate is its version */

            rc = gcp_lmdb_collect(col, &cand);
            if (rc != GCP_OK) {
                return rc;
            }

            have = 0;
        }

        /* e's memory points into the read snapshot: stable for the txn */

        if (e.mod_revision <= rev) {
            cand = e;
            have = 1;
        }

        mrc = mdb_cursor_get(c, &k, &v, MDB_NEXT);
    }

    if (mrc != MDB_SUCCESS && mrc != MDB_NOTFOUND) {
        return gcp_lmdb_rc(mrc, NULL);
    }

    return have ? gcp_lmdb_collect(col, &cand) : GCP_OK;
}


/* Ends a read's txn unless it is a pinned snapshot (its arena ends it). */
static void
gcp_lmdb_read_end(gcp_lmdb_store_t *s, MDB_txn *txn, int pinned)
{
    if (!pinned) {
        gcp_lmdb_rend(s, txn);
    }
}


static void
gcp_lmdb_read(gcp_lmdb_store_t *s, gcp_str_t key, gcp_str_t range_end,
    int single, int64_t revision, int64_t limit, int count_only,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    int                  rc, mrc, unbounded;
    MDB_txn             *txn;
    MDB_cursor          *c;
    const char          *msg;
    gcp_lmdb_entry_t     e;
    gcp_store_result_t  *res;
    gcp_lmdb_collect_t   col;

    res = gcp_lmdb_result(a);
    if (res->rc != GCP_OK) {
        done(arg, res);
        return;
    }

    unbounded = (range_end.len == 1 && range_end.data[0] == '\0');

    /*
     * a key too long to be stored is read as etcd reads it: nothing there
     * (a 404 or an empty list, not a 500)
     */

    rc = gcp_lmdb_check_key(s, key, !single, &msg);
    if (rc != GCP_OK && rc != GCP_EKEYTOOLONG) {
        done(arg, gcp_lmdb_fail(res, rc, msg));
        return;
    }

    single = single ? (rc == GCP_OK ? 1 : -1) : 0;

    /* a brief arena: the values are handed out of the map, not copied */

    txn = count_only ? NULL : gcp_lmdb_pin(s, a);
    col.pinned = (txn != NULL);

    if (txn == NULL) {
        rc = gcp_lmdb_rbegin(s, &txn);
        if (rc != GCP_OK) {
            done(arg,
                 gcp_lmdb_fail(res, rc, "storage: cannot begin a read"));
            return;
        }
    }

    rc = gcp_lmdb_check_rev(s, txn, revision, res);
    if (rc != GCP_OK) {
        gcp_lmdb_read_end(s, txn, col.pinned);
        done(arg, gcp_lmdb_fail(res, rc, res->message));
        return;
    }

    mrc = mdb_cursor_open(txn, s->hist, &c);
    if (mrc != MDB_SUCCESS) {
        gcp_lmdb_read_end(s, txn, col.pinned);
        rc = gcp_lmdb_rc(mrc, &msg);
        done(arg, gcp_lmdb_fail(res, rc, msg));
        return;
    }

    col.arena = a;
    col.limit = limit;
    col.count_only = count_only;
    col.grow = (limit > 0 && limit < 256) ? (size_t) limit : 256;
    col.res = res;
    gcp_buf_init(&col.kvs, a);

    if (single < 0) {
        rc = GCP_OK;

    } else if (single) {
        rc = gcp_lmdb_find(c, key, res->revision, &e);

        if (rc == GCP_OK) {
            rc = gcp_lmdb_collect(&col, &e);

        } else if (rc == GCP_ENOTFOUND) {
            rc = GCP_OK;
        }

    } else if (!unbounded
               && gcp_lmdb_keycmp(key.data, key.len, range_end.data,
                                  range_end.len) >= 0)
    {
        rc = GCP_OK;

    } else {
        rc = gcp_lmdb_scan(c, key, s->max_key,
                           unbounded ? NULL : &range_end,
                           res->revision, &col);
    }

    mdb_cursor_close(c);
    gcp_lmdb_read_end(s, txn, col.pinned);

    if (rc != GCP_OK) {
        done(arg, gcp_lmdb_fail(res, rc, "storage: read failed"));
        return;
    }

    res->more = (!count_only && res->count > (int64_t) res->nkvs);

    done(arg, res);
}


void
gcp_lmdb_get(gcp_store_t *st, gcp_str_t key, int64_t revision,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_str_t  none = gcp_null_string;

    gcp_lmdb_read((gcp_lmdb_store_t *) st, key, none, 1, revision, 0, 0, a,
                  done, arg);
}


void
gcp_lmdb_range(gcp_store_t *st, gcp_str_t key, gcp_str_t range_end,
    int64_t revision, int64_t limit, int count_only, gcp_arena_t *a,
    gcp_store_done_pt done, void *arg)
{
    gcp_lmdb_read((gcp_lmdb_store_t *) st, key, range_end,
                  range_end.len == 0, revision, limit, count_only, a, done,
                  arg);
}
