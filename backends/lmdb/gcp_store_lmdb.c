
/*
 * LMDB backend: the process model (prefork in the master, open in each
 * worker), the environment, and the ops table.  See docs/storage.md.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcp_lmdb.h"


#define GCP_LMDB_MAP_SIZE  ((size_t) 4 << 30)


static void gcp_lmdb_close(gcp_store_t *st);
static int64_t gcp_lmdb_revision(gcp_store_t *st);


static const gcp_store_ops_t  gcp_lmdb_ops = {
    "lmdb",
    gcp_lmdb_get,
    gcp_lmdb_range,
    gcp_lmdb_create,
    gcp_lmdb_update,
    gcp_lmdb_del,
    gcp_lmdb_watch,
    gcp_lmdb_watch_cancel,
    gcp_lmdb_compact,
    gcp_lmdb_revision,
    gcp_lmdb_close,
    gcp_lmdb_watch_revision
};


/* Creates path and its missing parents (0700); returns 0 or an errno. */
static int
gcp_lmdb_mkdir(const char *path)
{
    int          err;
    char        *p, *q;
    struct stat  st;

    p = strdup(path);
    if (p == NULL) {
        return ENOMEM;
    }

    err = 0;

    for (q = p + 1; *q && err == 0; q++) {
        if (*q == '/') {
            *q = '\0';

            if (mkdir(p, 0700) != 0 && errno != EEXIST) {
                err = errno;
            }

            *q = '/';
        }
    }

    if (err == 0 && mkdir(p, 0700) != 0 && errno != EEXIST) {
        err = errno;
    }

    free(p);

    if (err == 0 && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))) {
        err = ENOTDIR;
    }

    return err;
}


/*
 * Opens the environment of sh and its three databases (creating them when
 * create is set).  Returns GCP_OK, or an error code with *err set.
 */
static int
gcp_lmdb_env_open(const gcp_lmdb_shared_t *sh, int create, MDB_env **envp,
    MDB_dbi *dbi, const char **err)
{
    int                 mrc, i;
    unsigned            readers;
    MDB_env            *env;
    MDB_txn            *txn;
    static const char  *names[3] = { "hist", "log", "meta" };

    mrc = mdb_env_create(&env);
    if (mrc != MDB_SUCCESS) {
        *err = mdb_strerror(mrc);
        return GCP_EINTERNAL;
    }

    readers = (unsigned) sh->nslots * (GCP_LMDB_RPOOL + 8) + 32;
    if (readers < 126) {
        readers = 126;
    }

    mrc = mdb_env_set_mapsize(env, sh->conf.map_size);

    if (mrc == MDB_SUCCESS) {
        mrc = mdb_env_set_maxdbs(env, 4);
    }

    if (mrc == MDB_SUCCESS) {
        mrc = mdb_env_set_maxreaders(env, readers);
    }

    if (mrc == MDB_SUCCESS) {
        mrc = mdb_env_open(env, sh->path,
                           MDB_NOSYNC | MDB_NOTLS | MDB_NORDAHEAD, 0600);
    }

    if (mrc == MDB_SUCCESS) {
        mrc = mdb_txn_begin(env, NULL, create ? 0 : MDB_RDONLY, &txn);
    }

    if (mrc != MDB_SUCCESS) {
        *err = mdb_strerror(mrc);
        mdb_env_close(env);
        return gcp_lmdb_rc(mrc, NULL);
    }

    for (i = 0; i < 3; i++) {
        mrc = mdb_dbi_open(txn, names[i], create ? MDB_CREATE : 0, &dbi[i]);
        if (mrc != MDB_SUCCESS) {
            break;
        }
    }

    if (mrc == MDB_SUCCESS) {
        mrc = mdb_txn_commit(txn);

    } else {
        mdb_txn_abort(txn);
    }

    if (mrc != MDB_SUCCESS) {
        *err = (mrc == MDB_NOTFOUND)
               ? "lmdb: database not initialised (prefork not run?)"
               : mdb_strerror(mrc);
        mdb_env_close(env);
        return gcp_lmdb_rc(mrc, NULL);
    }

    *envp = env;

    return GCP_OK;
}


/* Bootstraps the database; returns its revision or -1 with *err set. */
static int64_t
gcp_lmdb_bootstrap(gcp_lmdb_shared_t *sh, const char **err)
{
    int               mrc, dead;
    int64_t           rev;
    MDB_dbi           dbi[3];
    MDB_env          *env;
    MDB_txn          *txn;
    gcp_lmdb_store_t  s;

    if (gcp_lmdb_env_open(sh, 1, &env, dbi, err) != GCP_OK) {
        return -1;
    }

    (void) mdb_reader_check(env, &dead);

    memset(&s, 0, sizeof(gcp_lmdb_store_t));
    s.hist = dbi[0];
    s.log = dbi[1];
    s.meta = dbi[2];
    rev = -1;

    mrc = mdb_txn_begin(env, NULL, 0, &txn);

    if (mrc == MDB_SUCCESS) {
        if (gcp_lmdb_meta_get(&s, txn, "revision", 0, &rev) != GCP_OK) {
            rev = -1;
            mrc = MDB_CORRUPTED;

        } else if (rev == 0) {
            rev = GCP_LMDB_FIRST_REV;
            mrc = gcp_lmdb_meta_put(&s, txn, "revision", rev);
        }

        if (mrc == MDB_SUCCESS && sh->conf.claim != NULL) {
            /* before the revision is shared: an emptied mirror's goes back */
            mrc = gcp_lmdb_mirror_claim(&s, txn, &sh->conf, &rev);
        }

        if (mrc == MDB_SUCCESS) {
            mrc = mdb_txn_commit(txn);

        } else {
            mdb_txn_abort(txn);
        }
    }

    /* whatever a previous run committed is durable from now on */

    if (mrc == MDB_SUCCESS) {
        mrc = mdb_env_sync(env, 1);
    }

    if (mrc != MDB_SUCCESS) {
        *err = mdb_strerror(mrc);
        rev = -1;
    }

    mdb_env_close(env);

    return rev;
}


gcp_lmdb_shared_t *
gcp_lmdb_prefork(const gcp_lmdb_conf_t *conf, const char **err)
{
    int                 i, e;
    int64_t             rev;
    gcp_lmdb_shared_t  *sh;

    if (conf->path == NULL || conf->path[0] == '\0') {
        *err = "lmdb: no path";
        return NULL;
    }

    sh = calloc(1, sizeof(gcp_lmdb_shared_t));
    if (sh == NULL) {
        *err = "out of memory";
        return NULL;
    }

    sh->conf = *conf;
    sh->nslots = conf->nslots > 0 ? conf->nslots : 1;
    sh->conf.nslots = sh->nslots;
    sh->shm = MAP_FAILED;

    if (sh->conf.map_size == 0) {
        sh->conf.map_size = GCP_LMDB_MAP_SIZE;
    }

    sh->path = strdup(conf->path);
    sh->efd = malloc(sizeof(int) * sh->nslots);

    if (sh->path == NULL || sh->efd == NULL) {
        *err = "out of memory";
        goto failed;
    }

    sh->conf.path = sh->path;

    for (i = 0; i < sh->nslots; i++) {
        sh->efd[i] = -1;
    }

    e = gcp_lmdb_mkdir(sh->path);
    if (e != 0) {
        *err = strerror(e);
        goto failed;
    }

    rev = gcp_lmdb_bootstrap(sh, err);
    if (rev < 0) {
        goto failed;
    }

    sh->shm = mmap(NULL, sizeof(gcp_lmdb_shm_t), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);

    if (sh->shm == MAP_FAILED) {
        *err = strerror(errno);
        goto failed;
    }

    memset(sh->shm, 0, sizeof(gcp_lmdb_shm_t));
    sh->shm->durable = rev;

    for (i = 0; i < sh->nslots; i++) {
        sh->efd[i] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

        if (sh->efd[i] == -1) {
            *err = strerror(errno);
            goto failed;
        }
    }

    return sh;

failed:

    gcp_lmdb_shared_free(sh);

    return NULL;
}


int
gcp_lmdb_chown(const gcp_lmdb_shared_t *sh, uid_t uid, gid_t gid,
    const char **err)
{
    int                 i;
    char                file[PATH_MAX];
    static const char  *names[2] = { "data.mdb", "lock.mdb" };

    if (chown(sh->path, uid, gid) != 0) {
        *err = strerror(errno);
        return GCP_EINTERNAL;
    }

    for (i = 0; i < 2; i++) {
        if (snprintf(file, sizeof(file), "%s/%s", sh->path, names[i])
            >= (int) sizeof(file))
        {
            *err = "lmdb: path too long";
            return GCP_EINTERNAL;
        }

        if (chown(file, uid, gid) != 0 && errno != ENOENT) {
            *err = strerror(errno);
            return GCP_EINTERNAL;
        }
    }

    return GCP_OK;
}


void
gcp_lmdb_shared_free(gcp_lmdb_shared_t *sh)
{
    int  i;

    if (sh == NULL) {
        return;
    }

    if (sh->efd != NULL) {
        for (i = 0; i < sh->nslots; i++) {
            if (sh->efd[i] != -1) {
                close(sh->efd[i]);
            }
        }
    }

    if (sh->shm != MAP_FAILED) {
        munmap(sh->shm, sizeof(gcp_lmdb_shm_t));
    }

    free(sh->efd);
    free(sh->path);
    free(sh);
}


gcp_store_t *
gcp_lmdb_open(gcp_lmdb_shared_t *sh, int slot, gcp_loop_t *loop,
    const char **err)
{
    int                dead;
    MDB_dbi            dbi[3];
    gcp_lmdb_store_t  *s;

    if (slot < 0 || slot >= sh->nslots) {
        *err = "lmdb: slot out of range";
        return NULL;
    }

    s = calloc(1, sizeof(gcp_lmdb_store_t));
    if (s == NULL) {
        *err = "out of memory";
        return NULL;
    }

    s->store.ops = &gcp_lmdb_ops;
    s->store.loop = loop;
    s->sh = sh;
    s->slot = slot;
    s->pending_last = &s->pending;

    if (gcp_lmdb_env_open(sh, 0, &s->env, dbi, err) != GCP_OK) {
        free(s);
        return NULL;
    }

    s->hist = dbi[0];
    s->log = dbi[1];
    s->meta = dbi[2];
    s->max_key = (size_t) mdb_env_get_maxkeysize(s->env) - GCP_LMDB_SUFFIX;

    /* reader slots left by killed processes */
    (void) mdb_reader_check(s->env, &dead);

    s->dispatched = __atomic_load_n(&sh->shm->durable, __ATOMIC_SEQ_CST);

    if (gcp_lmdb_sync_start(s) != GCP_OK
        || gcp_lmdb_tick_start(s) != GCP_OK)
    {
        *err = "lmdb: cannot start the sync thread or register the eventfd";
        gcp_lmdb_close(&s->store);
        return NULL;
    }

    return &s->store;
}


static void
gcp_lmdb_close(gcp_store_t *st)
{
    gcp_lmdb_store_t  *s = (gcp_lmdb_store_t *) st;

    gcp_lmdb_compact_close(s);
    gcp_lmdb_watch_close(s);
    gcp_lmdb_sync_stop(s);
    gcp_lmdb_pins_close(s);

    while (s->nrpool > 0) {
        mdb_txn_abort(s->rpool[--s->nrpool]);
    }

    mdb_env_close(s->env);
    free(s);
}


static int64_t
gcp_lmdb_revision(gcp_store_t *st)
{
    return ((gcp_lmdb_store_t *) st)->dispatched;
}


int
gcp_lmdb_stats(gcp_store_t *st, gcp_lmdb_stats_t *out)
{
    int                rc;
    MDB_txn           *txn;
    MDB_stat           ms;
    MDB_envinfo        info;
    gcp_lmdb_shm_t    *shm;
    gcp_lmdb_store_t  *s = (gcp_lmdb_store_t *) st;

    memset(out, 0, sizeof(gcp_lmdb_stats_t));

    rc = gcp_lmdb_rbegin(s, &txn);
    if (rc != GCP_OK) {
        return rc;
    }

    rc = gcp_lmdb_meta_get(s, txn, "revision", GCP_LMDB_FIRST_REV,
                           &out->revision);
    if (rc == GCP_OK) {
        rc = gcp_lmdb_meta_get(s, txn, "compact", 0, &out->compact_revision);
    }

    if (rc == GCP_OK && mdb_stat(txn, s->hist, &ms) == MDB_SUCCESS) {
        out->hist_entries = ms.ms_entries;
    }

    if (rc == GCP_OK && mdb_stat(txn, s->log, &ms) == MDB_SUCCESS) {
        out->log_entries = ms.ms_entries;
    }

    if (mdb_env_info(s->env, &info) == MDB_SUCCESS
        && mdb_env_stat(s->env, &ms) == MDB_SUCCESS)
    {
        out->map_used = (info.me_last_pgno + 1) * (size_t) ms.ms_psize;
        out->map_size = info.me_mapsize;
    }

    gcp_lmdb_rend(s, txn);

    shm = s->sh->shm;
    out->durable = __atomic_load_n(&shm->durable, __ATOMIC_SEQ_CST);
    out->syncs = __atomic_load_n(&shm->syncs, __ATOMIC_RELAXED);
    out->synced_writes = __atomic_load_n(&shm->synced_writes,
                                         __ATOMIC_RELAXED);
    out->dispatched = s->dispatched;
    out->notify_rounds = s->notify_rounds;
    out->timer_rounds = s->timer_rounds;
    out->compact_batches = s->compact_batches;
    out->watches = s->nwatches;
    out->pinned_reads = s->pinned_reads;
    out->snapshots = s->nsnaps;

    return rc;
}
