
/*
 * The fronting credential's bearer token (gcp_front.h) as client-go reads
 * a token file: its first line, read again when the file changes (a
 * rotation: written in place, renamed over, a symbolic link swapped), so
 * that no reload is needed.  Each process looks at the file every
 * GCP_FRONT_TOKEN_CHECK_MS; a file that cannot be read or holds no token
 * keeps the last good one, as client-go keeps its cached token.
 */

#include <sys/stat.h>

#include "gcp_aggregator.h"
#include "gcp_conf_file.h"
#include "gcp_front.h"
#include "gcp_log.h"


#define GCP_FRONT_TOKEN_CHECK_MS  1000
#define GCP_FRONT_TOKEN_MAX       (1024 * 1024)


struct gcp_front_token_s {
    gcp_loop_t         *loop;
    gcp_loop_timer_t   *timer;
    const char         *file;           /* borrowed (the configuration) */
    char               *token;          /* malloc'd; NULL: the initial */
    const char         *initial;
    struct stat         st;             /* the file's, when last read */
};


int
gcp_front_token_line(const char *data, size_t len, size_t *line)
{
    size_t  n;

    for (n = 0; n < len && data[n] != '\r' && data[n] != '\n'; n++) {
        if ((unsigned char) data[n] < 0x21 || (unsigned char) data[n] > 0x7e)
        {
            return GCP_FRONT_TOKEN_BAD_BYTE;
        }
    }

    *line = n;

    return n ? GCP_OK : GCP_FRONT_TOKEN_EMPTY;
}


static void
gcp_front_token_check(void *arg)
{
    gcp_front_token_t  *t = arg;

    char         err[256], *data, *token;
    size_t       len, n;
    struct stat  st;

    t->timer = t->loop->timer_add(t->loop, GCP_FRONT_TOKEN_CHECK_MS,
                                  gcp_front_token_check, t);

    if (stat(t->file, &st) != 0
        || (st.st_ino == t->st.st_ino && st.st_dev == t->st.st_dev
            && st.st_size == t->st.st_size
            && st.st_mtim.tv_sec == t->st.st_mtim.tv_sec
            && st.st_mtim.tv_nsec == t->st.st_mtim.tv_nsec))
    {
        return;
    }

    data = gcp_conf_file_read(t->file, GCP_FRONT_TOKEN_MAX, &len, err,
                              sizeof(err));

    if (data == NULL) {
        gcp_log(GCP_LOG_WARN, "gcp_front_token_file: %s, the last token "
                "kept", err);
        return;
    }

    if (gcp_front_token_line(data, len, &n) != GCP_OK) {
        gcp_log(GCP_LOG_WARN, "gcp_front_token_file \"%s\" holds no token, "
                "the last one kept", t->file);
        free(data);
        return;
    }

    data[n] = '\0';
    token = strdup(data);
    free(data);

    if (token == NULL) {
        return;
    }

    free(t->token);
    t->token = token;
    t->st = st;
}


gcp_front_token_t *
gcp_front_token_create(gcp_loop_t *loop, const char *file,
    const char *initial)
{
    gcp_front_token_t  *t;

    t = calloc(1, sizeof(gcp_front_token_t));
    if (t == NULL) {
        return NULL;
    }

    t->loop = loop;
    t->file = file;
    t->initial = initial;

    /* t->st unknown: the file is read once more at the first check */

    t->timer = loop->timer_add(loop, GCP_FRONT_TOKEN_CHECK_MS,
                               gcp_front_token_check, t);

    if (t->timer == NULL) {
        free(t);
        return NULL;
    }

    return t;
}


const char *
gcp_front_token_get(const gcp_front_token_t *t)
{
    return t->token ? t->token : t->initial;
}


void
gcp_front_token_destroy(gcp_front_token_t *t)
{
    if (t == NULL) {
        return;
    }

    if (t->timer) {
        t->loop->timer_del(t->loop, t->timer);
    }

    free(t->token);
    free(t);
}
