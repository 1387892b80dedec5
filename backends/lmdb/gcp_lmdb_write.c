
/*
 * LMDB backend: create, update and delete.  Each write is one LMDB write
 * txn that appends a hist entry and a log entry and bumps the revision; it
 * is committed at once (visible to every process) and acknowledged once
 * the group commit made it durable (gcp_lmdb_sync.c).
 */

#include "gcp_lmdb.h"


typedef enum {
    GCP_LMDB_CREATE = 0,
    GCP_LMDB_UPDATE,
    GCP_LMDB_DELETE
} gcp_lmdb_wop_t;


typedef struct {
    gcp_lmdb_wop_t       op;
    gcp_str_t            key;
    gcp_str_t            value;
    int64_t              mod_revision;
    gcp_arena_t         *arena;
    gcp_store_result_t  *res;
} gcp_lmdb_wreq_t;


/* Sets res to the key's current value and returns rc (a failed check). */
static int
gcp_lmdb_refuse(gcp_lmdb_wreq_t *w, const gcp_lmdb_entry_t *cur, int rc,
    const char *msg)
{
    gcp_kv_t  *kv;

    w->res->message = msg;

    if (cur == NULL) {
        return rc;
    }

    kv = gcp_calloc(w->arena, sizeof(gcp_kv_t));
    if (kv == NULL || gcp_lmdb_copy_kv(w->arena, cur, kv) != GCP_OK) {
        w->res->message = "out of memory";
        return GCP_ENOMEM;
    }

    w->res->kvs = kv;
    w->res->nkvs = 1;

    return rc;
}


/*
 * Checks the request against cur (the key's latest entry, NULL if none)
 * and fills next, the entry to write at revision rev, and the result kv.
 * Returns GCP_OK or why the write is refused.
 */
static int
gcp_lmdb_apply(gcp_lmdb_wreq_t *w, const gcp_lmdb_entry_t *cur, int64_t rev,
    gcp_lmdb_entry_t *next)
{
    gcp_kv_t  *kv;

    if (cur != NULL && cur->tombstone) {
        cur = NULL;
    }

    if (w->op == GCP_LMDB_CREATE) {
        if (cur != NULL) {
            return gcp_lmdb_refuse(w, cur, GCP_EEXISTS,
                                   "storage: key already exists");
        }

    } else {
        if (cur == NULL) {
            return gcp_lmdb_refuse(w, NULL, GCP_ENOTFOUND,
                                   "storage: key not found");
        }

        if (w->mod_revision != 0 && w->mod_revision != cur->mod_revision) {
            return gcp_lmdb_refuse(w, cur, GCP_ECONFLICT,
                                   "storage: mod_revision mismatch");
        }
    }

    kv = gcp_calloc(w->arena, sizeof(gcp_kv_t));
    if (kv == NULL) {
        return GCP_ENOMEM;
    }

    memset(next, 0, sizeof(gcp_lmdb_entry_t));
    next->key = w->key;
    next->mod_revision = rev;

    if (w->op == GCP_LMDB_DELETE) {
        next->tombstone = 1;

        /* the value deleted, at the delete's revision */
        if (gcp_lmdb_copy_kv(w->arena, cur, kv) != GCP_OK) {
            return GCP_ENOMEM;
        }

        kv->mod_revision = rev;

    } else {
        next->value = w->value;
        next->create_revision = cur ? cur->create_revision : rev;
        next->version = cur ? cur->version + 1 : 1;

        if (gcp_lmdb_copy_kv(w->arena, next, kv) != GCP_OK) {
            return GCP_ENOMEM;
        }
    }

    w->res->kvs = kv;
    w->res->nkvs = 1;

    return GCP_OK;
}


/* Puts next (hist), its log entry and the new revision; an LMDB code. */
static int
gcp_lmdb_put(gcp_lmdb_store_t *s, MDB_txn *txn, const gcp_lmdb_entry_t *next)
{
    int      mrc;
    char     kbuf[GCP_LMDB_KEYBUF], rbuf[8];
    MDB_val  k, v;

    gcp_lmdb_hist_key(kbuf, next->key, (uint64_t) next->mod_revision, &k);
    v.mv_size = GCP_LMDB_HDR + next->value.len;

    mrc = mdb_put(txn, s->hist, &k, &v, MDB_RESERVE);
    if (mrc != MDB_SUCCESS) {
        return mrc;
    }

    gcp_lmdb_encode(next, v.mv_data);

    gcp_lmdb_rev_key(rbuf, next->mod_revision, &k);
    v.mv_data = (void *) next->key.data;
    v.mv_size = next->key.len;

    mrc = mdb_put(txn, s->log, &k, &v, MDB_APPEND);
    if (mrc != MDB_SUCCESS) {
        return mrc;
    }

    return gcp_lmdb_meta_put(s, txn, "revision", next->mod_revision);
}


/* Runs the write txn; returns GCP_OK (committed) or why not. */
static int
gcp_lmdb_txn_write(gcp_lmdb_store_t *s, gcp_lmdb_wreq_t *w)
{
    int                rc, mrc;
    int64_t            cur;
    MDB_txn           *txn;
    MDB_cursor        *c;
    gcp_lmdb_entry_t   e, next;

    mrc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (mrc != MDB_SUCCESS) {
        return gcp_lmdb_rc(mrc, &w->res->message);
    }

    rc = gcp_lmdb_meta_get(s, txn, "revision", GCP_LMDB_FIRST_REV, &cur);
    if (rc != GCP_OK) {
        mdb_txn_abort(txn);
        w->res->message = "storage: cannot read the store revision";
        return rc;
    }

    w->res->revision = cur;

    mrc = mdb_cursor_open(txn, s->hist, &c);
    if (mrc != MDB_SUCCESS) {
        mdb_txn_abort(txn);
        return gcp_lmdb_rc(mrc, &w->res->message);
    }

    rc = gcp_lmdb_find(c, w->key, INT64_MAX, &e);

    if (rc == GCP_OK || rc == GCP_ENOTFOUND) {
        rc = gcp_lmdb_apply(w, rc == GCP_OK ? &e : NULL, cur + 1, &next);
    }

    mdb_cursor_close(c);

    if (rc != GCP_OK) {
        mdb_txn_abort(txn);
        return rc;
    }

    mrc = gcp_lmdb_put(s, txn, &next);
    if (mrc != MDB_SUCCESS) {
        mdb_txn_abort(txn);
        return gcp_lmdb_rc(mrc, &w->res->message);
    }

    mrc = mdb_txn_commit(txn);
    if (mrc != MDB_SUCCESS) {
        return gcp_lmdb_rc(mrc, &w->res->message);
    }

    w->res->revision = cur + 1;

    return GCP_OK;
}


static void
gcp_lmdb_write(gcp_lmdb_store_t *s, gcp_lmdb_wreq_t *w,
    gcp_store_done_pt done, void *arg)
{
    int                  rc;
    const char          *msg;
    gcp_lmdb_op_t       *op;
    gcp_store_result_t  *res;

    res = gcp_lmdb_result(w->arena);
    if (res->rc != GCP_OK) {
        done(arg, res);
        return;
    }

    w->res = res;

    if (s->failed) {
        done(arg, gcp_lmdb_fail(res, GCP_EUNAVAILABLE,
                                "storage: a sync to disk failed"));
        return;
    }

    rc = gcp_lmdb_check_key(s, w->key, 0, &msg);
    if (rc != GCP_OK) {
        done(arg, gcp_lmdb_fail(res, rc, msg));
        return;
    }

    op = gcp_calloc(w->arena, sizeof(gcp_lmdb_op_t));
    if (op == NULL) {
        done(arg, gcp_lmdb_fail(res, GCP_ENOMEM, "out of memory"));
        return;
    }

    rc = gcp_lmdb_txn_write(s, w);
    if (rc != GCP_OK) {
        res->rc = rc;
        done(arg, res);
        return;
    }

    res->message = NULL;
    op->revision = res->revision;
    op->res = res;
    op->done = done;
    op->arg = arg;

    gcp_lmdb_sync_commit(s, op);
}


void
gcp_lmdb_create(gcp_store_t *st, gcp_str_t key, gcp_str_t value,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_lmdb_wreq_t  w;

    memset(&w, 0, sizeof(gcp_lmdb_wreq_t));
    w.op = GCP_LMDB_CREATE;
    w.key = key;
    w.value = value;
    w.arena = a;

    gcp_lmdb_write((gcp_lmdb_store_t *) st, &w, done, arg);
}


void
gcp_lmdb_update(gcp_store_t *st, gcp_str_t key, gcp_str_t value,
    int64_t mod_revision, gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_lmdb_wreq_t  w;

    memset(&w, 0, sizeof(gcp_lmdb_wreq_t));
    w.op = GCP_LMDB_UPDATE;
    w.key = key;
    w.value = value;
    w.mod_revision = mod_revision;
    w.arena = a;

    gcp_lmdb_write((gcp_lmdb_store_t *) st, &w, done, arg);
}


void
gcp_lmdb_del(gcp_store_t *st, gcp_str_t key, int64_t mod_revision,
    gcp_arena_t *a, gcp_store_done_pt done, void *arg)
{
    gcp_lmdb_wreq_t  w;

    memset(&w, 0, sizeof(gcp_lmdb_wreq_t));
    w.op = GCP_LMDB_DELETE;
    w.key = key;
    w.mod_revision = mod_revision;
    w.arena = a;

    gcp_lmdb_write((gcp_lmdb_store_t *) st, &w, done, arg);
}
