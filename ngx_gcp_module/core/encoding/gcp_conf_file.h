
/*
 * Configuration files as kube-apiserver reads them (audit policies,
 * EncryptionConfiguration): a bounded read of the file, then JSON or YAML
 * (the first document, converted as sigs.k8s.io/yaml does).
 */

#ifndef _GCP_CONF_FILE_H_INCLUDED_
#define _GCP_CONF_FILE_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"


/*
 * Reads the file at path, at most max bytes.  Returns its contents
 * (malloc'd, NUL-terminated, freed by the caller) with *len set, or NULL
 * with err set ("cannot open \"PATH\": REASON", "\"PATH\" is larger than N
 * bytes", "out of memory").
 */
char *gcp_conf_file_read(const char *path, size_t max, size_t *len,
    char *err, size_t errlen);

/*
 * Decodes the len bytes at data: JSON when the first non-blank byte is
 * '{', else YAML.  Returns the document, an object (owned by a), or NULL
 * with *msg set to the decoder's error (NULL: out of memory).
 */
json_t *gcp_conf_file_decode(gcp_arena_t *a, const char *data, size_t len,
    const char **msg);


#endif /* _GCP_CONF_FILE_H_INCLUDED_ */
