
/*
 * The core's error log (see gcp_log.h).
 */

#include <stdarg.h>
#include <stdio.h>

#include "gcp_log.h"


#define GCP_LOG_MAX  2048


static gcp_log_pt   gcp_log_handler;
static void        *gcp_log_data;
static int          gcp_log_level;


void
gcp_log_set(gcp_log_pt handler, void *data, int level)
{
    gcp_log_handler = handler;
    gcp_log_data = data;
    gcp_log_level = level;
}


int
gcp_log_enabled(int level)
{
    return gcp_log_handler != NULL && level <= gcp_log_level;
}


void
gcp_log(int level, const char *fmt, ...)
{
    char     msg[GCP_LOG_MAX];
    va_list  args;

    if (!gcp_log_enabled(level)) {
        return;
    }

    va_start(args, fmt);
    vsnprintf(msg, sizeof(msg), fmt, args);
    va_end(args);

    gcp_log_handler(gcp_log_data, level, msg);
}
