
/*
 * The audit log writer of one process, in kube-apiserver's batch mode
 * (--audit-log-mode=batch: the "buffered" plugin in front of the "log"
 * backend).
 *
 * Events are appended, as whole lines, to the active one of two buffers
 * under a mutex held for a memcpy.  A thread swaps the buffers and
 * appends the full one to the file with one write(2), so the event loop
 * never waits for the disk (a write to a regular file is always "ready"
 * for poll(2) and would block the loop exactly when the disk is slow).
 *
 * Drop policy, as upstream's batch mode: when the active buffer cannot
 * take an event, the event is dropped and counted in
 * apiserver_audit_error_total{plugin="buffered"}; when a write fails (a
 * full disk, EIO), its batch is lost, counted in
 * apiserver_audit_error_total{plugin="log"}, the file is truncated back
 * to whole lines, and the next batch is tried.  Both are logged by the
 * event loop's thread (at most once a second) with the number of events
 * lost since the last message.  Requests never wait and never fail
 * because of the audit log.
 *
 * Several processes append to the same file (O_APPEND, one write per
 * batch of whole lines).  Rotation is lumberjack's, as kube-apiserver's
 * --audit-log-maxsize/--audit-log-maxbackup: when a batch would take the
 * file beyond max_size, it is renamed NAME-2006-01-02T15-04-05.000.EXT
 * (UTC) and a new one started; beyond max_backups the oldest backups are
 * removed.  The processes serialize rotation and writes with flock(2) on
 * the log's directory, and reopen the file when another process rotated
 * it.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gcp_audit_int.h"
#include "gcp_log.h"
#include "gcp_metrics.h"
#include "gcp_time.h"


#define GCP_AUDIT_LOG_EVERY_NS  1000000000LL    /* errors logged per s */
#define GCP_AUDIT_LOG_GATHER_NS 2000000         /* a batch gathers 2 ms */


typedef struct {
    char      *data;
    size_t     len;
    size_t     events;
} gcp_audit_batch_t;


struct gcp_audit_log_s {
    pthread_mutex_t     mu;
    pthread_cond_t      cond;
    pthread_t           thread;
    unsigned            started:1;
    unsigned            stop:1;
    unsigned            idle:1;         /* the thread waits for events */

    gcp_audit_batch_t   batch[2];
    unsigned            active;         /* batch[active] takes events */
    size_t              cap;            /* bytes per batch */

    char               *path;
    char               *dir;
    char               *base;           /* name without extension */
    char               *ext;            /* ".log", or "" */
    uint64_t            max_size;
    unsigned            max_backups;

    /* the writer thread's */
    int                 fd;
    int                 dirfd;
    dev_t               dev;
    ino_t               ino;

    /* counted by either thread, reported by the event loop's */
    uint64_t            dropped;        /* buffer full */
    uint64_t            failed;         /* write errors */
    int                 error;          /* the last write's errno */
    uint64_t            dropped_told;
    uint64_t            failed_told;
    int64_t             told_ns;
};



/* file names */


static int
gcp_audit_log_names(gcp_audit_log_t *l, const char *path)
{
    const char  *slash, *name, *dot;

    l->path = strdup(path);

    slash = strrchr(path, '/');
    name = slash ? slash + 1 : path;

    l->dir = slash ? strndup(path, slash == path ? 1 : slash - path)
                   : strdup(".");

    dot = strrchr(name, '.');

    if (dot == NULL || dot == name) {
        dot = name + strlen(name);
    }

    l->base = strndup(name, dot - name);
    l->ext = strdup(dot);

    return l->path && l->dir && l->base && l->ext ? GCP_OK : GCP_ENOMEM;
}


/* NAME-2006-01-02T15-04-05.000.EXT, not taken yet */

static void
gcp_audit_log_backup_name(gcp_audit_log_t *l, char *out, size_t size)
{
    int              ms;
    struct tm        tm;
    struct stat      st;
    struct timespec  now;

    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);

    for (ms = (int) (now.tv_nsec / 1000000); ; ms++) {
        if (ms == 1000) {
            /* a thousand rotations within a second: a second later */
            ms = 0;
            tm.tm_sec++;
        }

        snprintf(out, size, "%s/%s-%04d-%02d-%02dT%02d-%02d-%02d.%03d%s",
                 l->dir, l->base, tm.tm_year + 1900, tm.tm_mon + 1,
                 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms, l->ext);

        if (stat(out, &st) != 0) {
            return;
        }
    }
}


/* Is name one of our backups ("BASE-YYYY-MM-DDTHH-MM-SS.mmm" EXT)? */

static int
gcp_audit_log_is_backup(gcp_audit_log_t *l, const char *name)
{
    size_t       nb, ne, n, i;
    const char  *ts;

    static const char  shape[] = "dddd-dd-ddTdd-dd-dd.ddd";

    nb = strlen(l->base);
    ne = strlen(l->ext);
    n = strlen(name);

    if (n != nb + 1 + sizeof(shape) - 1 + ne
        || strncmp(name, l->base, nb) != 0 || name[nb] != '-'
        || strcmp(name + n - ne, l->ext) != 0)
    {
        return 0;
    }

    ts = name + nb + 1;

    for (i = 0; i < sizeof(shape) - 1; i++) {
        if (shape[i] == 'd' ? ts[i] < '0' || ts[i] > '9' : ts[i] != shape[i])
        {
            return 0;
        }
    }

    return 1;
}


static int
gcp_audit_log_name_cmp(const void *a, const void *b)
{
    return strcmp(*(char * const *) a, *(char * const *) b);
}


/* Removes the oldest backups beyond max_backups. */

static void
gcp_audit_log_prune(gcp_audit_log_t *l)
{
    DIR             *dir;
    char           **names, **more, path[4096];
    size_t           n, cap, i;
    struct dirent   *de;

    if (l->max_backups == 0) {
        return;
    }

    dir = opendir(l->dir);
    if (dir == NULL) {
        return;
    }

    names = NULL;
    n = 0;
    cap = 0;

    while ((de = readdir(dir)) != NULL) {
        if (!gcp_audit_log_is_backup(l, de->d_name)) {
            continue;
        }

        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            more = realloc(names, cap * sizeof(char *));

            if (more == NULL) {
                break;
            }

            names = more;
        }

        names[n] = strdup(de->d_name);

        if (names[n]) {
            n++;
        }
    }

    closedir(dir);

    /* the timestamps sort as the names do */

    qsort(names, n, sizeof(char *), gcp_audit_log_name_cmp);

    for (i = 0; i < n; i++) {
        if (i + l->max_backups < n) {
            snprintf(path, sizeof(path), "%s/%s", l->dir, names[i]);
            unlink(path);
        }

        free(names[i]);
    }

    free(names);
}


/* the writer thread */


static int
gcp_audit_log_reopen(gcp_audit_log_t *l)
{
    struct stat  st;

    if (l->fd >= 0) {
        close(l->fd);
    }

    l->fd = open(l->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

    if (l->fd < 0 || fstat(l->fd, &st) != 0) {
        return errno ? errno : EIO;
    }

    l->dev = st.st_dev;
    l->ino = st.st_ino;

    return 0;
}


/* Makes l->fd the current file, rotated if len more bytes overflow it. */

static int
gcp_audit_log_prepare(gcp_audit_log_t *l, size_t len, off_t *size)
{
    int          err;
    char         backup[4096];
    struct stat  st;

    /* another process may have rotated (or someone removed) the file */

    if (l->fd < 0 || stat(l->path, &st) != 0 || st.st_dev != l->dev
        || st.st_ino != l->ino)
    {
        err = gcp_audit_log_reopen(l);
        if (err) {
            return err;
        }
    }

    if (fstat(l->fd, &st) != 0) {
        return errno;
    }

    *size = st.st_size;

    if (l->max_size == 0 || st.st_size == 0
        || (uint64_t) st.st_size + len <= l->max_size)
    {
        return 0;
    }

    gcp_audit_log_backup_name(l, backup, sizeof(backup));

    if (rename(l->path, backup) != 0) {
        return errno;
    }

    err = gcp_audit_log_reopen(l);
    if (err) {
        return err;
    }

    gcp_audit_log_prune(l);

    *size = 0;

    return 0;
}


static int
gcp_audit_log_append(gcp_audit_log_t *l, const char *data, size_t len)
{
    int      err;
    off_t    size;
    ssize_t  n;
    size_t   done;

    if (l->dirfd >= 0) {
        while (flock(l->dirfd, LOCK_EX) != 0 && errno == EINTR) {
            /* void */
        }
    }

    err = gcp_audit_log_prepare(l, len, &size);

    for (done = 0; err == 0 && done < len; done += (size_t) n) {
        n = write(l->fd, data + done, len - done);

        if (n < 0) {
            if (errno == EINTR) {
                n = 0;
                continue;
            }

            err = errno;

        } else if (n == 0) {
            err = EIO;
        }
    }

    if (err && done && l->fd >= 0) {
        /* no half line: the file is ours while the lock is held */
        if (ftruncate(l->fd, size) != 0) {
            /* the next batch starts after the partial one */
        }
    }

    if (l->dirfd >= 0) {
        flock(l->dirfd, LOCK_UN);
    }

    return err;
}


/* Waits up to GCP_AUDIT_LOG_GATHER_NS for more events (l->mu held). */

static void
gcp_audit_log_gather(gcp_audit_log_t *l)
{
    struct timespec  until;

    clock_gettime(CLOCK_MONOTONIC, &until);

    until.tv_nsec += GCP_AUDIT_LOG_GATHER_NS;

    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }

    while (!l->stop && l->batch[l->active].len < l->cap / 2) {
        if (pthread_cond_timedwait(&l->cond, &l->mu, &until) == ETIMEDOUT) {
            break;
        }
    }
}


static void *
gcp_audit_log_thread(void *data)
{
    int                 err;
    gcp_audit_log_t    *l = data;
    gcp_audit_batch_t  *b;

    pthread_mutex_lock(&l->mu);

    for ( ;; ) {
        while (!l->stop && l->batch[l->active].len == 0) {
            l->idle = 1;
            pthread_cond_wait(&l->cond, &l->mu);
            l->idle = 0;
        }

        /* one write for the events of a few milliseconds */

        gcp_audit_log_gather(l);

        b = &l->batch[l->active];

        if (b->len == 0) {
            break;                      /* stopping, all written */
        }

        l->active ^= 1;
        pthread_mutex_unlock(&l->mu);

        err = gcp_audit_log_append(l, b->data, b->len);

        if (err) {
            __atomic_add_fetch(&l->failed, b->events, __ATOMIC_RELAXED);
            __atomic_store_n(&l->error, err, __ATOMIC_RELAXED);
        }

        pthread_mutex_lock(&l->mu);
        b->len = 0;
        b->events = 0;
    }

    pthread_mutex_unlock(&l->mu);

    return NULL;
}


/* the event loop's side */


gcp_audit_log_t *
gcp_audit_log_open(const char *path, uint64_t max_size,
    unsigned max_backups, size_t buffer, const char **err)
{
    int                 rc;
    sigset_t            all, old;
    gcp_audit_log_t    *l;
    pthread_condattr_t  ca;

    l = calloc(1, sizeof(gcp_audit_log_t));
    if (l == NULL) {
        *err = "out of memory";
        return NULL;
    }

    l->fd = -1;
    l->dirfd = -1;
    l->max_size = max_size;
    l->max_backups = max_backups;
    l->cap = buffer;

    l->batch[0].data = malloc(buffer);
    l->batch[1].data = malloc(buffer);

    if (l->batch[0].data == NULL || l->batch[1].data == NULL
        || gcp_audit_log_names(l, path) != GCP_OK)
    {
        *err = "out of memory";
        gcp_audit_log_close(l);
        return NULL;
    }

    l->dirfd = open(l->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (l->dirfd < 0 || gcp_audit_log_reopen(l) != 0) {
        /* told now; the writer retries with every batch */
        gcp_log(GCP_LOG_ERR, "audit log \"%s\" cannot be opened: %s", path,
                strerror(errno));
    }

    pthread_mutex_init(&l->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&l->cond, &ca);
    pthread_condattr_destroy(&ca);

    /* signals are for the event loop's thread */

    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    rc = pthread_create(&l->thread, NULL, gcp_audit_log_thread, l);
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    if (rc != 0) {
        *err = "cannot start the audit log thread";
        pthread_mutex_destroy(&l->mu);
        pthread_cond_destroy(&l->cond);
        gcp_audit_log_close(l);
        return NULL;
    }

    l->started = 1;

    return l;
}


/* Logs what was lost since the last message, at most once a second. */

static void
gcp_audit_log_tell(gcp_audit_log_t *l)
{
    int64_t      now;
    uint64_t     dropped, failed;
    const char  *plugin[2];

    dropped = __atomic_load_n(&l->dropped, __ATOMIC_RELAXED);
    failed = __atomic_load_n(&l->failed, __ATOMIC_RELAXED);

    if (dropped == l->dropped_told && failed == l->failed_told) {
        return;
    }

    now = gcp_time_mono_ns();

    if (l->told_ns && now - l->told_ns < GCP_AUDIT_LOG_EVERY_NS) {
        return;
    }

    l->told_ns = now;
    plugin[1] = NULL;

    if (dropped != l->dropped_told) {
        plugin[0] = "buffered";
        gcp_metric_add(GCP_M_AUDIT_ERRORS, plugin,
                       (int64_t) (dropped - l->dropped_told));

        gcp_log(GCP_LOG_ERR, "Error in audit plugin 'buffered' affecting "
                "%llu audit events: audit buffer queue blocked (\"%s\" does "
                "not keep up)", (unsigned long long) (dropped
                                                      - l->dropped_told),
                l->path);
        l->dropped_told = dropped;
    }

    if (failed != l->failed_told) {
        plugin[0] = "log";
        gcp_metric_add(GCP_M_AUDIT_ERRORS, plugin,
                       (int64_t) (failed - l->failed_told));

        gcp_log(GCP_LOG_ERR, "Error in audit plugin 'log' affecting %llu "
                "audit events: write \"%s\": %s",
                (unsigned long long) (failed - l->failed_told), l->path,
                strerror(__atomic_load_n(&l->error, __ATOMIC_RELAXED)));
        l->failed_told = failed;
    }
}


int
gcp_audit_log_write(gcp_audit_log_t *l, const char *data, size_t len)
{
    int                 rc;
    gcp_audit_batch_t  *b;

    pthread_mutex_lock(&l->mu);

    b = &l->batch[l->active];

    if (b->len + len <= l->cap) {
        memcpy(b->data + b->len, data, len);
        b->len += len;
        b->events++;
        rc = GCP_OK;

        /* the thread sleeps, or gathers and the batch is half full */

        if ((l->idle && b->len == len)
            || (b->len >= l->cap / 2 && b->len - len < l->cap / 2))
        {
            pthread_cond_signal(&l->cond);
        }

    } else {
        rc = GCP_ETOOMANY;
    }

    pthread_mutex_unlock(&l->mu);

    if (rc != GCP_OK) {
        __atomic_add_fetch(&l->dropped, 1, __ATOMIC_RELAXED);
    }

    gcp_audit_log_tell(l);

    return rc;
}


void
gcp_audit_log_close(gcp_audit_log_t *l)
{
    if (l == NULL) {
        return;
    }

    if (l->started) {
        pthread_mutex_lock(&l->mu);
        l->stop = 1;
        pthread_cond_signal(&l->cond);
        pthread_mutex_unlock(&l->mu);

        pthread_join(l->thread, NULL);

        l->told_ns = 0;
        gcp_audit_log_tell(l);

        pthread_mutex_destroy(&l->mu);
        pthread_cond_destroy(&l->cond);
    }

    if (l->fd >= 0) {
        close(l->fd);
    }

    if (l->dirfd >= 0) {
        close(l->dirfd);
    }

    free(l->batch[0].data);
    free(l->batch[1].data);
    free(l->path);
    free(l->dir);
    free(l->base);
    free(l->ext);
    free(l);
}
