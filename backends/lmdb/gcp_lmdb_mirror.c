
/*
 * LMDB backend: a mirror of another store's keyspace (docs/storage.md,
 * "One copy per instance").  One process, the feeder, writes into it the
 * changes another store (etcd) made, at that store's revisions; every
 * process reads it and watches it as any LMDB store: the same layout, the
 * same snapshots, the same wake-ups.  A mirror is a copy: its commits are
 * published at once, without fdatasync (the other store holds the truth).
 */

#include "gcp_lmdb.h"


static void gcp_lmdb_mirror_set_live(gcp_store_t *st, int up);
static int gcp_lmdb_mirror_live(gcp_store_t *st);
static void gcp_lmdb_mirror_follow(gcp_store_t *st, void (*moved)(void *arg),
    void *arg);
static size_t gcp_lmdb_mirror_max_key(gcp_store_t *st);
static int64_t gcp_lmdb_mirror_seen(gcp_store_t *st, int64_t rev);


const gcp_store_mirror_ops_t  gcp_lmdb_mirror_ops = {
    gcp_lmdb_mirror_load,
    gcp_lmdb_mirror_apply,
    gcp_lmdb_mirror_state,
    gcp_lmdb_mirror_set_live,
    gcp_lmdb_mirror_live,
    gcp_lmdb_mirror_follow,
    gcp_lmdb_mirror_max_key,
    gcp_lmdb_mirror_seen
};


#define GCP_LMDB_SOURCE_MAX  1024   /* longer: taken for another source */


/* Reads the recorded source into buf ("" when none); an LMDB code. */
static int
gcp_lmdb_mirror_source(gcp_lmdb_store_t *s, MDB_txn *txn, char *buf)
{
    int      mrc;
    MDB_val  k, v;

    k.mv_data = "source";
    k.mv_size = sizeof("source") - 1;
    buf[0] = '\0';

    mrc = mdb_get(txn, s->meta, &k, &v);

    if (mrc == MDB_NOTFOUND) {
        return MDB_SUCCESS;
    }

    if (mrc == MDB_SUCCESS && v.mv_size < GCP_LMDB_SOURCE_MAX) {
        memcpy(buf, v.mv_data, v.mv_size);
        buf[v.mv_size] = '\0';
    }

    return mrc;
}


/*
 * Empties the mirror in txn: every version, the log and the meta, and
 * records src ("": none) as the source it copies.  Returns an LMDB code.
 */
static int
gcp_lmdb_mirror_empty(gcp_lmdb_store_t *s, MDB_txn *txn, const char *src)
{
    int      mrc;
    MDB_val  k, v;

    mrc = mdb_drop(txn, s->hist, 0);

    if (mrc == MDB_SUCCESS) {
        mrc = mdb_drop(txn, s->log, 0);
    }

    if (mrc == MDB_SUCCESS) {
        mrc = mdb_drop(txn, s->meta, 0);
    }

    if (mrc != MDB_SUCCESS || src[0] == '\0') {
        return mrc;
    }

    k.mv_data = "source";
    k.mv_size = sizeof("source") - 1;
    v.mv_data = (void *) src;
    v.mv_size = strlen(src);

    return mdb_put(txn, s->meta, &k, &v, 0);
}


int
gcp_lmdb_mirror_claim(gcp_lmdb_store_t *s, MDB_txn *txn,
    const gcp_lmdb_conf_t *conf, int64_t *rev)
{
    int          mrc, rc;
    char         rec[GCP_LMDB_SOURCE_MAX];
    int64_t      loading, compacted, loaded;
    const char  *src;

    mrc = gcp_lmdb_mirror_source(s, txn, rec);
    if (mrc != MDB_SUCCESS) {
        return mrc;
    }

    rc = gcp_lmdb_meta_get(s, txn, "loading", 0, &loading);
    if (rc == GCP_OK) {
        rc = gcp_lmdb_meta_get(s, txn, "compact", 0, &compacted);
    }

    if (rc != GCP_OK) {
        return MDB_CORRUPTED;
    }

    /* a load's last page sets "compact": never loaded without it */
    loaded = (loading == 0 && compacted != 0) ? *rev : 0;

    src = "";

    if (conf->claim(conf->claim_arg, loaded, rec, &src) && loaded != 0) {
        return MDB_SUCCESS;
    }

    mrc = gcp_lmdb_mirror_empty(s, txn, src);

    if (mrc == MDB_SUCCESS) {
        *rev = GCP_LMDB_FIRST_REV;
        mrc = gcp_lmdb_meta_put(s, txn, "revision", *rev);
    }

    return mrc;
}


/*
 * Puts one change at its own revision: a hist entry, and a log entry when
 * log is set (not in a load).  A load's keys come in etcd's order, which
 * is the hist's (bytes, the key's \0 sorting first): they are appended,
 * filling each page instead of splitting it in two halves (a page held
 * two ConfigMaps of 1 KB instead of three); one out of order is put.
 */
static int
gcp_lmdb_mirror_put(gcp_lmdb_store_t *s, MDB_txn *txn,
    const gcp_store_event_t *ch, unsigned sub, int log)
{
    int               mrc;
    char              kbuf[GCP_LMDB_KEYBUF], rbuf[GCP_LMDB_LOGKEY];
    MDB_val           k, v;
    gcp_lmdb_entry_t  e;

    memset(&e, 0, sizeof(gcp_lmdb_entry_t));
    e.key = ch->kv.key;
    e.mod_revision = ch->kv.mod_revision;

    if (ch->type == GCP_STORE_EVENT_DELETE) {
        e.tombstone = 1;

    } else {
        e.value = ch->kv.value;
        e.create_revision = ch->kv.create_revision;
        e.version = ch->kv.version;
    }

    gcp_lmdb_hist_key(kbuf, e.key, (uint64_t) e.mod_revision, &k);
    v.mv_size = GCP_LMDB_HDR + e.value.len;

    mrc = mdb_put(txn, s->hist, &k, &v,
                  log ? MDB_RESERVE : MDB_RESERVE | MDB_APPEND);

    if (mrc == MDB_KEYEXIST && !log) {
        v.mv_size = GCP_LMDB_HDR + e.value.len;
        mrc = mdb_put(txn, s->hist, &k, &v, MDB_RESERVE);
    }

    if (mrc != MDB_SUCCESS || !log) {
        if (mrc == MDB_SUCCESS) {
            gcp_lmdb_encode(&e, v.mv_data);
        }

        return mrc;
    }

    gcp_lmdb_encode(&e, v.mv_data);

    gcp_lmdb_log_key(rbuf, e.mod_revision, sub, &k);
    v.mv_data = (void *) e.key.data;
    v.mv_size = e.key.len;

    return mdb_put(txn, s->log, &k, &v, MDB_APPEND);
}


/* Checks one change against the store's limits; GCP_OK or why not. */
static int
gcp_lmdb_mirror_check(gcp_lmdb_store_t *s, const gcp_store_event_t *ch,
    int64_t after, int64_t upto, const char **msg)
{
    int  rc;

    rc = gcp_lmdb_check_key(s, ch->kv.key, 0, msg);
    if (rc != GCP_OK) {
        return rc;
    }

    if ((ch->type != GCP_STORE_EVENT_PUT && ch->type != GCP_STORE_EVENT_DELETE)
        || ch->kv.mod_revision <= after || ch->kv.mod_revision > upto)
    {
        *msg = "storage: mirror change out of order";
        return GCP_EBADREQUEST;
    }

    return GCP_OK;
}


/* Commits txn and publishes rev to every process; GCP_OK or an error. */
static int
gcp_lmdb_mirror_commit(gcp_lmdb_store_t *s, MDB_txn *txn, int64_t rev,
    const char **msg)
{
    int  mrc;

    mrc = mdb_txn_commit(txn);
    if (mrc != MDB_SUCCESS) {
        return gcp_lmdb_rc(mrc, msg);
    }

    if (rev > 0) {
        gcp_lmdb_notify(s->sh, rev);
    }

    return GCP_OK;
}


int
gcp_lmdb_mirror_apply(gcp_store_t *st, const gcp_store_event_t *ch,
    size_t n, int64_t revision, const char **msg)
{
    int                rc, mrc;
    size_t             i;
    int64_t            cur, loading, last;
    unsigned           sub;
    MDB_txn           *txn;
    gcp_lmdb_store_t  *s = (gcp_lmdb_store_t *) st;

    *msg = NULL;

    mrc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (mrc != MDB_SUCCESS) {
        return gcp_lmdb_rc(mrc, msg);
    }

    rc = gcp_lmdb_meta_get(s, txn, "revision", GCP_LMDB_FIRST_REV, &cur);
    if (rc == GCP_OK) {
        rc = gcp_lmdb_meta_get(s, txn, "loading", 0, &loading);
    }

    if (rc != GCP_OK) {
        *msg = "storage: cannot read the store revision";
        goto failed;
    }

    if (loading != 0 || revision < cur) {
        *msg = loading ? "storage: the mirror is being loaded"
                       : "storage: mirror revision goes back";
        rc = GCP_EBADREQUEST;
        goto failed;
    }

    last = cur;
    sub = 0;

    for (i = 0; i < n; i++) {
        if (ch[i].kv.key.len > s->max_key) {
            continue;               /* too long for the mirror: skipped */
        }

        rc = gcp_lmdb_mirror_check(s, &ch[i], cur, revision, msg);
        if (rc == GCP_OK && ch[i].kv.mod_revision < last) {
            *msg = "storage: mirror change out of order";
            rc = GCP_EBADREQUEST;
        }

        if (rc == GCP_OK) {
            sub = (ch[i].kv.mod_revision == last && i > 0) ? sub + 1 : 0;

            if (sub > GCP_LMDB_MAX_SUB) {
                *msg = "storage: too many changes in one revision";
                rc = GCP_EBADREQUEST;
            }
        }

        if (rc != GCP_OK) {
            goto failed;
        }

        last = ch[i].kv.mod_revision;

        mrc = gcp_lmdb_mirror_put(s, txn, &ch[i], sub, 1);
        if (mrc != MDB_SUCCESS) {
            rc = gcp_lmdb_rc(mrc, msg);
            goto failed;
        }
    }

    if (revision == cur && n == 0) {
        mdb_txn_abort(txn);
        return GCP_OK;
    }

    mrc = gcp_lmdb_meta_put(s, txn, "revision", revision);
    if (mrc != MDB_SUCCESS) {
        rc = gcp_lmdb_rc(mrc, msg);
        goto failed;
    }

    return gcp_lmdb_mirror_commit(s, txn, revision, msg);

failed:

    mdb_txn_abort(txn);

    return rc;
}


int
gcp_lmdb_mirror_load(gcp_store_t *st, const gcp_kv_t *kvs, size_t n,
    int64_t revision, unsigned flags, const char **msg)
{
    int                 rc, mrc;
    char                src[GCP_LMDB_SOURCE_MAX];
    size_t              i;
    int64_t             loading;
    MDB_val             k;
    MDB_txn            *txn;
    gcp_store_event_t   ch;
    gcp_lmdb_store_t   *s = (gcp_lmdb_store_t *) st;

    *msg = NULL;

    if (revision < GCP_LMDB_FIRST_REV) {
        *msg = "storage: invalid mirror revision";
        return GCP_EBADREQUEST;
    }

    mrc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (mrc != MDB_SUCCESS) {
        return gcp_lmdb_rc(mrc, msg);
    }

    if (flags & GCP_STORE_LOAD_FIRST) {
        /* the source it copies stays */
        mrc = gcp_lmdb_mirror_source(s, txn, src);

        if (mrc == MDB_SUCCESS) {
            mrc = gcp_lmdb_mirror_empty(s, txn, src);
        }

        if (mrc == MDB_SUCCESS) {
            mrc = gcp_lmdb_meta_put(s, txn, "loading", revision);
        }

        if (mrc != MDB_SUCCESS) {
            rc = gcp_lmdb_rc(mrc, msg);
            goto failed;
        }
    }

    rc = gcp_lmdb_meta_get(s, txn, "loading", 0, &loading);
    if (rc != GCP_OK || loading != revision) {
        *msg = "storage: not loading the mirror at this revision";
        rc = (rc != GCP_OK) ? rc : GCP_EBADREQUEST;
        goto failed;
    }

    memset(&ch, 0, sizeof(gcp_store_event_t));
    ch.type = GCP_STORE_EVENT_PUT;

    for (i = 0; i < n; i++) {
        ch.kv = kvs[i];

        if (ch.kv.key.len > s->max_key) {
            continue;               /* too long for the mirror: skipped */
        }

        rc = gcp_lmdb_mirror_check(s, &ch, 0, revision, msg);
        if (rc != GCP_OK) {
            goto failed;
        }

        /* the key's history before the load is not known: no log entry */
        mrc = gcp_lmdb_mirror_put(s, txn, &ch, 0, 0);
        if (mrc != MDB_SUCCESS) {
            rc = gcp_lmdb_rc(mrc, msg);
            goto failed;
        }
    }

    if (!(flags & GCP_STORE_LOAD_LAST)) {
        return gcp_lmdb_mirror_commit(s, txn, 0, msg);
    }

    /* exact from the load's revision on, unknown before it */
    k.mv_data = "loading";
    k.mv_size = sizeof("loading") - 1;

    mrc = mdb_del(txn, s->meta, &k, NULL);

    if (mrc == MDB_SUCCESS) {
        mrc = gcp_lmdb_meta_put(s, txn, "revision", revision);
    }

    if (mrc == MDB_SUCCESS) {
        mrc = gcp_lmdb_meta_put(s, txn, "compact", revision);
    }

    if (mrc != MDB_SUCCESS) {
        rc = gcp_lmdb_rc(mrc, msg);
        goto failed;
    }

    return gcp_lmdb_mirror_commit(s, txn, revision, msg);

failed:

    mdb_txn_abort(txn);

    return rc;
}


int
gcp_lmdb_mirror_state(gcp_store_t *st, int64_t *revision, int64_t *loading)
{
    int                rc;
    int64_t            compacted;
    MDB_txn           *txn;
    gcp_lmdb_store_t  *s = (gcp_lmdb_store_t *) st;

    rc = gcp_lmdb_rbegin(s, &txn);
    if (rc != GCP_OK) {
        return rc;
    }

    rc = gcp_lmdb_meta_get(s, txn, "revision", GCP_LMDB_FIRST_REV, revision);
    if (rc == GCP_OK) {
        rc = gcp_lmdb_meta_get(s, txn, "loading", 0, loading);
    }

    if (rc == GCP_OK) {
        rc = gcp_lmdb_meta_get(s, txn, "compact", 0, &compacted);
    }

    gcp_lmdb_rend(s, txn);

    /* a load's last page sets "compact": never loaded without it */
    if (rc == GCP_OK && *loading == 0 && compacted == 0) {
        *loading = -1;
    }

    return rc;
}


static void
gcp_lmdb_mirror_set_live(gcp_store_t *st, int up)
{
    gcp_lmdb_store_t  *s = (gcp_lmdb_store_t *) st;

    __atomic_store_n(&s->sh->shm->live, up ? 1 : 0, __ATOMIC_RELEASE);
}


static int
gcp_lmdb_mirror_live(gcp_store_t *st)
{
    gcp_lmdb_store_t  *s = (gcp_lmdb_store_t *) st;

    return __atomic_load_n(&s->sh->shm->live, __ATOMIC_ACQUIRE);
}


static void
gcp_lmdb_mirror_follow(gcp_store_t *st, void (*moved)(void *arg), void *arg)
{
    gcp_lmdb_store_t  *s = (gcp_lmdb_store_t *) st;

    s->moved = moved;
    s->moved_arg = arg;
    s->mirror = 1;
}


static size_t
gcp_lmdb_mirror_max_key(gcp_store_t *st)
{
    return ((gcp_lmdb_store_t *) st)->max_key;
}


static int64_t
gcp_lmdb_mirror_seen(gcp_store_t *st, int64_t rev)
{
    int64_t            cur;
    gcp_lmdb_store_t  *s = (gcp_lmdb_store_t *) st;

    cur = __atomic_load_n(&s->sh->shm->seen, __ATOMIC_ACQUIRE);

    while (cur < rev
           && !__atomic_compare_exchange_n(&s->sh->shm->seen, &cur, rev, 0,
                                           __ATOMIC_ACQ_REL,
                                           __ATOMIC_ACQUIRE))
    {
        /* cur was reloaded: retry */
    }

    return cur < rev ? rev : cur;
}
