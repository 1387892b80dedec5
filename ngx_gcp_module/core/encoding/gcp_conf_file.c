
/*
 * Configuration files (see gcp_conf_file.h).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gcp_conf_file.h"
#include "gcp_json.h"
#include "gcp_yaml_parse.h"


char *
gcp_conf_file_read(const char *path, size_t max, size_t *len, char *err,
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

    if ((uint64_t) st.st_size > max) {
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


json_t *
gcp_conf_file_decode(gcp_arena_t *a, const char *data, size_t len,
    const char **msg)
{
    size_t           i;
    json_t          *doc;
    gcp_yaml_info_t  info;

    *msg = NULL;

    for (i = 0; i < len && strchr(" \t\r\n", data[i]); i++) {
        /* void */
    }

    if (i < len && data[i] == '{') {
        doc = gcp_json_parse(a, data, len, msg);

        if (doc == NULL && *msg == NULL) {
            *msg = "not JSON";
        }

        return doc;
    }

    memset(&info, 0, sizeof(info));

    if (gcp_yaml_parse(a, data, len, 0, &doc, &info) != GCP_OK) {
        *msg = info.msg;
        return NULL;
    }

    if (!json_is_object(doc)) {
        *msg = "the document is not an object";
        return NULL;
    }

    return doc;
}
