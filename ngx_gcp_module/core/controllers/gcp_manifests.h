
/*
 * Bootstrap manifests: the objects of the files named by the adapter's
 * gcp_manifests directive, applied through the in-process client when
 * the API server's controllers start (at start and after every reload),
 * in file order:
 *
 *   - an object that does not exist is created, carrying the annotation
 *     manifests.ngx-gcp.io/sha256 (the digest of the manifest's object);
 *   - an object that exists with another digest is replaced by the
 *     manifest's (PUT: the file changed since it was applied); with the
 *     same digest it is left alone, with any later edits users made;
 *   - an object that exists without the annotation was made by someone
 *     else and is left alone (reported once);
 *   - nothing is ever deleted;
 *   - an object whose resource is not served yet (a CRD not Established,
 *     another manifest's), or whose namespace does not exist yet, waits:
 *     every pass retries them, 200 ms after the last, doubling up to 5 s,
 *     until each is applied;
 *   - a document that cannot be read or an object the API refuses is
 *     reported with its file, document and line, and the others go on.
 */

#ifndef _GCP_MANIFESTS_H_INCLUDED_
#define _GCP_MANIFESTS_H_INCLUDED_


#include "gcp_api.h"


#define GCP_MANIFESTS_DIGEST  "manifests.ngx-gcp.io/sha256"


typedef struct {
    const char   *name;         /* the file, as messages name it */
    const char   *data;         /* its bytes */
    size_t        len;
} gcp_manifest_file_t;


/*
 * What the applier reports: error 1 for what went wrong (a document, an
 * object refused), 0 for what went well or waits.  msg is valid for the
 * call only.
 */
typedef void (*gcp_manifests_report_pt)(void *arg, int error,
    const char *msg);


typedef struct gcp_manifests_s  gcp_manifests_t;


/*
 * Reads the n files (their bytes must outlive the applier) and starts
 * applying their objects on api's loop, as the core's own identity.
 * Returns the applier, owned by the caller and released with
 * gcp_manifests_stop(), or NULL when out of memory (nothing reported).
 */
gcp_manifests_t *gcp_manifests_start(gcp_api_t *api,
    const gcp_manifest_file_t *files, size_t n,
    gcp_manifests_report_pt report, void *arg);

/*
 * Stops applying (a request in flight completes unobserved) and releases
 * m; nothing is reported after this.  NULL is allowed.
 */
void gcp_manifests_stop(gcp_manifests_t *m);

/* Returns the number of objects not applied yet (waiting or in flight). */
size_t gcp_manifests_pending(const gcp_manifests_t *m);


#endif /* _GCP_MANIFESTS_H_INCLUDED_ */
