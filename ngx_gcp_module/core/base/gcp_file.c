
/*
 * Whole configuration files (see gcp_file.h).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gcp_file.h"


char *
gcp_file_read(const char *path, size_t max, size_t *len, char *err,
    size_t errlen)
{
    FILE         *fp;
    char         *data;
    struct stat   st;

    fp = fopen(path, "r");

    if (fp == NULL || fstat(fileno(fp), &st) != 0) {
        snprintf(err, errlen, "cannot open \"%s\": %s", path,
                 strerror(errno));
        if (fp) {
            fclose(fp);
        }
        return NULL;
    }

    if ((size_t) st.st_size > max) {
        snprintf(err, errlen, "\"%s\" is larger than %zu bytes", path, max);
        fclose(fp);
        return NULL;
    }

    data = malloc((size_t) st.st_size + 1);

    if (data == NULL) {
        snprintf(err, errlen, "out of memory");
        fclose(fp);
        return NULL;
    }

    *len = fread(data, 1, (size_t) st.st_size, fp);
    data[*len] = '\0';

    fclose(fp);

    return data;
}
