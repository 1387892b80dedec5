
/*
 * The header for admission plugins written in C and compiled into the
 * module (docs/admission-plugins.md).  A plugin:
 *
 *   - is named in the table of server/gcp_admission_plugins.c, with
 *     whether it is on by default and its init function; the directives
 *     gcp_enable_admission_plugins, gcp_disable_admission_plugins and
 *     gcp_admission_plugin_config (its arguments) configure it;
 *   - fills, in its init function (a gcp_admission_init_pt), a mutating
 *     step (admit), a validating step (validate), or both, and its data;
 *   - in each step reads the request through the functions below (and
 *     the object, ad->obj, a jansson value it may change in its mutating
 *     step), and answers exactly once with done(ad, rc): GCP_OK to go on,
 *     or the code of a refusal it has responded with
 *     (gcp_admission_forbid()).  It may answer later, from the event
 *     loop: gcp_admission_loop() gives the loop, and everything allocated
 *     from gcp_admission_arena() lives as long as the request.
 *
 * The core's own plugins (NamespaceLifecycle, the webhooks,
 * ResourceQuota, RBACEscalation) are written the same way.
 */

#ifndef _GCP_ADMISSION_PLUGIN_H_INCLUDED_
#define _GCP_ADMISSION_PLUGIN_H_INCLUDED_


#include "gcp_admission.h"


/* The operation: "CREATE", "UPDATE" or "DELETE" (static). */
const char *gcp_admission_operation(const gcp_admit_t *ad);

/* The resource written, with its group, version, kind (borrowed). */
const gcp_resource_t *gcp_admission_resource(const gcp_admit_t *ad);

/* The subresource written ("status"), or "" (borrowed). */
const char *gcp_admission_subresource(const gcp_admit_t *ad);

/* The namespace ("" for cluster-scoped objects) and the name (borrowed;
 * the name is "" in the mutating step of a create with generateName). */
const char *gcp_admission_namespace(const gcp_admit_t *ad);
const char *gcp_admission_name(const gcp_admit_t *ad);

/* Who asks (borrowed; NULL when no authentication runs). */
const gcp_user_t *gcp_admission_user(const gcp_admit_t *ad);

/* The request's arena and the event loop of the process. */
gcp_arena_t *gcp_admission_arena(const gcp_admit_t *ad);
gcp_loop_t *gcp_admission_loop(const gcp_admit_t *ad);

/*
 * Responds 403 Forbidden as upstream's admission.NewForbidden: "RESOURCE
 * \"NAME\" is forbidden: REASON" (reason printf-formatted).  Returns
 * GCP_EFORBIDDEN, the code to pass to done().
 */
int gcp_admission_forbid(gcp_admit_t *ad, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Adds a Warning header to the answer (text copied). */
void gcp_admission_warn(gcp_admit_t *ad, const char *text);


#endif /* _GCP_ADMISSION_PLUGIN_H_INCLUDED_ */
