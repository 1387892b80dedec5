
/*
 * process_* metrics, as client_golang's process collector names them, for
 * the processes attached to the metrics (the instance's workers): CPU
 * time, memory and descriptors summed, read from /proc when scraped; the
 * start time is when the instance first laid the metrics out (kept over
 * reloads); the limits are this process's.
 */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "gcp_metrics_int.h"


typedef struct {
    double   cpu;           /* seconds */
    double   rss;           /* bytes */
    double   vsize;
    double   fds;
} gcp_metrics_usage_t;


static void
gcp_metrics_proc_stat(int32_t pid, gcp_metrics_usage_t *u)
{
    int      n, field;
    char     path[64], buf[1024], *p, *tok, *save;
    FILE    *fp;
    double   utime, stime;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);

    fp = fopen(path, "r");
    if (fp == NULL) {
        return;
    }

    n = (int) fread(buf, 1, sizeof(buf) - 1, fp);
    fclose(fp);

    if (n <= 0) {
        return;
    }

    buf[n] = '\0';

    /* "pid (comm) state ...": fields from 3 on, after the last ')' */

    p = strrchr(buf, ')');
    if (p == NULL) {
        return;
    }

    utime = 0;
    stime = 0;

    for (field = 3, tok = strtok_r(p + 1, " ", &save);
         tok && field <= 24;
         field++, tok = strtok_r(NULL, " ", &save))
    {
        switch (field) {
        case 14:
            utime = strtod(tok, NULL);
            break;
        case 15:
            stime = strtod(tok, NULL);
            break;
        case 23:
            u->vsize += strtod(tok, NULL);
            break;
        case 24:
            u->rss += strtod(tok, NULL) * (double) sysconf(_SC_PAGESIZE);
            break;
        }
    }

    u->cpu += (utime + stime) / (double) sysconf(_SC_CLK_TCK);
}


static void
gcp_metrics_proc_fds(int32_t pid, gcp_metrics_usage_t *u)
{
    char            path[64];
    DIR            *dir;
    struct dirent  *de;

    snprintf(path, sizeof(path), "/proc/%d/fd", (int) pid);

    dir = opendir(path);
    if (dir == NULL) {
        return;
    }

    while ((de = readdir(dir)) != NULL) {
        if (de->d_name[0] != '.') {
            u->fds++;
        }
    }

    closedir(dir);
}


static void
gcp_metrics_process_one(gcp_buf_t *b, const char *name, const char *help,
    gcp_metric_type_t type, double v, unsigned flags)
{
    int  om;

    om = (flags & GCP_METRICS_OPENMETRICS) != 0;

    gcp_metrics_write_head(b, name, help, type, flags);
    gcp_buf_addstr(b, name);
    gcp_buf_addc(b, ' ');
    gcp_metrics_add_float(b, v, om);
    gcp_buf_addc(b, '\n');
}


static double
gcp_metrics_limit(int resource)
{
    struct rlimit  rl;

    if (getrlimit(resource, &rl) != 0) {
        return 0;
    }

    return rl.rlim_cur == RLIM_INFINITY ? 18446744073709551615.0
                                        : (double) rl.rlim_cur;
}


void
gcp_metrics_process_write(gcp_buf_t *b, unsigned flags)
{
    int                  p;
    int32_t              pid;
    gcp_metrics_usage_t  u;
    gcp_metrics_hdr_t   *hdr = gcp_metrics_self.hdr;

    memset(&u, 0, sizeof(u));

    for (p = 0; p < GCP_METRICS_PROCS; p++) {
        pid = __atomic_load_n(&hdr->procs[p], __ATOMIC_RELAXED);

        if (pid > 0) {
            gcp_metrics_proc_stat(pid, &u);
            gcp_metrics_proc_fds(pid, &u);
        }
    }

    gcp_metrics_process_one(b, "process_cpu_seconds_total",
                            "Total user and system CPU time spent in "
                            "seconds.", GCP_METRIC_COUNTER, u.cpu, flags);
    gcp_metrics_process_one(b, "process_max_fds",
                            "Maximum number of open file descriptors.",
                            GCP_METRIC_GAUGE,
                            gcp_metrics_limit(RLIMIT_NOFILE), flags);
    gcp_metrics_process_one(b, "process_open_fds",
                            "Number of open file descriptors.",
                            GCP_METRIC_GAUGE, u.fds, flags);
    gcp_metrics_process_one(b, "process_resident_memory_bytes",
                            "Resident memory size in bytes.",
                            GCP_METRIC_GAUGE, u.rss, flags);
    gcp_metrics_process_one(b, "process_start_time_seconds",
                            "Start time of the process since unix epoch in "
                            "seconds.", GCP_METRIC_GAUGE,
                            (double) hdr->start_time, flags);
    gcp_metrics_process_one(b, "process_virtual_memory_bytes",
                            "Virtual memory size in bytes.",
                            GCP_METRIC_GAUGE, u.vsize, flags);
    gcp_metrics_process_one(b, "process_virtual_memory_max_bytes",
                            "Maximum amount of virtual memory available in "
                            "bytes.", GCP_METRIC_GAUGE,
                            gcp_metrics_limit(RLIMIT_AS), flags);
}
