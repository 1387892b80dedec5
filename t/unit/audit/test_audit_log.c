
/*
 * Unit tests: the audit log writer (core/audit/gcp_audit_log.c): whole
 * lines, rotation by size and count as lumberjack names backups, several
 * processes appending and rotating one file, a full disk and a full
 * buffer dropping events that are counted and logged, never blocking.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gcp_audit_int.h"
#include "gcp_log.h"
#include "gcp_metrics.h"


static char  dir[64];
static char  logged[4096];
static void *shm;


static void
capture(void *data, int level, const char *msg)
{
    snprintf(logged + strlen(logged), sizeof(logged) - strlen(logged),
             "%d %s\n", level, msg);
}


static int
setup(void **state)
{
    const char  *err;

    strcpy(dir, "/tmp/gcp-audit-XXXXXX");
    assert_non_null(mkdtemp(dir));

    logged[0] = '\0';
    gcp_log_set(capture, NULL, GCP_LOG_INFO);

    shm = mmap(NULL, gcp_metrics_size(), PROT_READ | PROT_WRITE,
               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(shm != MAP_FAILED);
    gcp_metrics_init(shm, gcp_metrics_size());
    assert_int_equal(gcp_metrics_attach(shm, gcp_metrics_size(), &err),
                     GCP_OK);

    return 0;
}


static int
teardown(void **state)
{
    char  cmd[128];

    gcp_metrics_detach();
    munmap(shm, gcp_metrics_size());
    gcp_log_set(NULL, NULL, 0);

    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);

    return 0;
}


/* Lines of every file in dir whose name starts with prefix. */

static size_t
count_lines(const char *prefix, size_t *files, size_t *bad)
{
    int             c, prev;
    char            path[512];
    DIR            *d;
    FILE           *fp;
    size_t          n;
    struct dirent  *de;

    n = 0;
    *files = 0;
    *bad = 0;

    d = opendir(dir);
    assert_non_null(d);

    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, prefix, strlen(prefix)) != 0) {
            continue;
        }

        (*files)++;

        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        fp = fopen(path, "r");
        assert_non_null(fp);

        prev = '\n';

        while ((c = fgetc(fp)) != EOF) {
            /* every line is {...} */
            if (prev == '\n' && c != '{') {
                (*bad)++;
            }

            if (c == '\n') {
                n++;

                if (prev != '}') {
                    (*bad)++;
                }
            }

            prev = c;
        }

        if (prev != '\n') {
            (*bad)++;
        }

        fclose(fp);
    }

    closedir(d);

    return n;
}


static void
write_lines(gcp_audit_log_t *l, int n, size_t size)
{
    int   i;
    char  line[1024];

    assert_true(size < sizeof(line) && size > 3);

    for (i = 0; i < n; i++) {
        memset(line, 'a' + i % 26, size);
        line[0] = '{';
        line[size - 2] = '}';
        line[size - 1] = '\n';

        assert_int_equal(gcp_audit_log_write(l, line, size), GCP_OK);
    }
}


static void
test_rotation(void **state)
{
    int               round;
    char              path[128];
    size_t            files, bad;
    const char       *err;
    DIR              *d;
    struct dirent    *de;
    gcp_audit_log_t  *l;

    snprintf(path, sizeof(path), "%s/audit.log", dir);

    /* every close writes one batch of 900 bytes: each one rotates */

    for (round = 0; round < 6; round++) {
        l = gcp_audit_log_open(path, 1000, 2, 65536, &err);
        assert_non_null(l);

        write_lines(l, 3, 300);
        gcp_audit_log_close(l);
    }

    /* the current file and the 2 newest backups, 3 lines each */

    assert_int_equal(count_lines("audit", &files, &bad), 9);
    assert_int_equal(files, 3);
    assert_int_equal(bad, 0);

    /* audit-2006-01-02T15-04-05.000.log */

    d = opendir(dir);
    assert_non_null(d);

    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || strcmp(de->d_name, "audit.log") == 0) {
            continue;
        }

        assert_int_equal(strlen(de->d_name), strlen("audit-") + 23 + 4);
        assert_memory_equal(de->d_name, "audit-2", 7);
        assert_int_equal(de->d_name[16], 'T');
        assert_string_equal(de->d_name + strlen(de->d_name) - 4, ".log");
    }

    closedir(d);

    assert_string_equal(logged, "");
}


static void
test_processes_share_rotation(void **state)
{
    int               k, status;
    char              path[128], line[100];
    pid_t             pid[3];
    size_t            files, bad, i;
    const char       *err;
    gcp_audit_log_t  *l;

    snprintf(path, sizeof(path), "%s/shared.log", dir);

    /* three processes, 2000 lines each, files of about 20 lines: */
    /* every line in exactly one file, whole */

    for (k = 0; k < 3; k++) {
        pid[k] = fork();
        assert_true(pid[k] >= 0);

        if (pid[k] == 0) {
            l = gcp_audit_log_open(path, 2000, 0, 4096, &err);

            if (l == NULL) {
                _exit(1);
            }

            memset(line, 'a' + k, sizeof(line));
            line[0] = '{';
            line[sizeof(line) - 2] = '}';
            line[sizeof(line) - 1] = '\n';

            for (i = 0; i < 2000; i++) {
                while (gcp_audit_log_write(l, line, sizeof(line)) != GCP_OK) {
                    usleep(100);        /* the buffer is small here */
                }
            }

            gcp_audit_log_close(l);
            _exit(0);
        }
    }

    for (k = 0; k < 3; k++) {
        assert_int_equal(waitpid(pid[k], &status, 0), pid[k]);
        assert_int_equal(status, 0);
    }

    assert_int_equal(count_lines("shared", &files, &bad), 6000);
    assert_int_equal(bad, 0);
    assert_true(files > 50);
}


static void
test_full_disk(void **state)
{
    char              path[128], text[8192];
    const char       *err;
    gcp_buf_t         b;
    gcp_arena_t      *a;
    gcp_audit_log_t  *l;

    /* every write of /dev/full fails with ENOSPC */

    snprintf(path, sizeof(path), "%s/full.log", dir);
    assert_int_equal(symlink("/dev/full", path), 0);

    l = gcp_audit_log_open(path, 0, 0, 65536, &err);
    assert_non_null(l);

    write_lines(l, 5, 100);

    /* writes go on (buffered, nothing blocks); the losses are told */

    gcp_audit_log_close(l);

    assert_non_null(strstr(logged, "4 Error in audit plugin 'log' "
                                   "affecting 5 audit events: write \""));
    assert_non_null(strstr(logged, "No space left on device\n"));

    a = gcp_arena_create(0);
    gcp_buf_init(&b, a);
    gcp_metrics_write(&b, GCP_METRICS_SET_MAIN, 0);
    snprintf(text, sizeof(text), "%s", gcp_buf_cstr(&b));
    gcp_arena_destroy(a);

    assert_non_null(strstr(text, "\napiserver_audit_error_total{plugin="
                                 "\"log\"} 5\n"));
}


static void
test_full_buffer(void **state)
{
    char              path[128], big[5000];
    const char       *err;
    gcp_audit_log_t  *l;

    snprintf(path, sizeof(path), "%s/buffer.log", dir);

    l = gcp_audit_log_open(path, 0, 0, 4096, &err);
    assert_non_null(l);

    /* an event the buffer cannot take is dropped at once */

    memset(big, 'x', sizeof(big));
    assert_int_equal(gcp_audit_log_write(l, big, sizeof(big)), GCP_ETOOMANY);

    gcp_audit_log_close(l);

    assert_non_null(strstr(logged, "4 Error in audit plugin 'buffered' "
                                   "affecting 1 audit events: audit buffer "
                                   "queue blocked"));
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test_setup_teardown(test_rotation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_processes_share_rotation,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_disk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_buffer, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
