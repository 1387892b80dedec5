
/*
 * Reading a whole configuration file (an audit policy, an authentication
 * configuration) when the configuration is loaded.
 */

#ifndef _GCP_FILE_H_INCLUDED_
#define _GCP_FILE_H_INCLUDED_


#include "gcp_core.h"


/*
 * Reads the file at path, at most max bytes.  Returns its bytes,
 * NUL-terminated (malloc'd, the caller frees them), with their number in
 * *len; or NULL with a message in err (errlen bytes): "cannot open
 * \"PATH\": REASON", "\"PATH\" is larger than MAX bytes", "out of memory".
 */
char *gcp_file_read(const char *path, size_t max, size_t *len, char *err,
    size_t errlen);


#endif /* _GCP_FILE_H_INCLUDED_ */
