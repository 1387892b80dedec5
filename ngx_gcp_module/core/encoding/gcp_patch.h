
/*
 * The three Kubernetes PATCH formats, applied as kube-apiserver applies
 * them:
 *
 *   application/json-patch+json            RFC 6902, evanphx/json-patch v4
 *   application/merge-patch+json           RFC 7386, evanphx/json-patch v4
 *   application/strategic-merge-patch+json apimachinery strategicpatch,
 *                                          driven by the OpenAPI schema's
 *                                          x-kubernetes-patch-strategy and
 *                                          x-kubernetes-patch-merge-key
 *
 * Every function leaves its input document untouched and, on success,
 * returns GCP_OK with *out a NEW document: a new reference owned by the
 * caller, who json_decref()s it; it shares no node with the input nor with
 * anything else.  On failure *out is NULL and *msg is the message of the
 * Status kube-apiserver answers (arena-owned); the code selects the
 * HTTP status through gcp_error_info():
 *
 *   GCP_EBADREQUEST  400, no details: malformed patch, e.g.
 *                    "error decoding patch: json: cannot unmarshal object
 *                    into Go value of type []handlers.jsonPatchOp"
 *                    (02-cm-patch-json-patch-malformed.http)
 *   GCP_EINVALID     422 with "details": {} and no causes: the patch is well
 *                    formed but cannot be applied; *msg is always
 *                    GCP_PATCH_REJECTED (02-cm-patch-json-patch-test-fails)
 *   GCP_ETOOLARGE    413: more than GCP_PATCH_MAX_OPS JSON patch operations
 *   GCP_EINTERNAL    500: strategic merge patch errors upstream does not
 *                    classify (upstream answers them with reason "" and the
 *                    Go error text as message, e.g. "map: map[a:b] does not
 *                    contain declared merge key: name")
 *   GCP_ENOMEM       out of memory
 *
 * Patch bodies are untrusted bytes; they may be any JSON text.
 */

#ifndef _GCP_PATCH_H_INCLUDED_
#define _GCP_PATCH_H_INCLUDED_


#include <stdarg.h>

#include <jansson.h>

#include "gcp_core.h"
#include "gcp_schema.h"


/* kube-apiserver's maxJSONPatchOperations */
#define GCP_PATCH_MAX_OPS        10000

/* kube-apiserver's JSONPatchMaxCopyBytes: total bytes "copy" may add */
#define GCP_PATCH_MAX_COPY_BYTES (3 * 1024 * 1024)

/*
 * Most items a list merged by a strategic merge patch may have (live list,
 * patch list and $setElementOrder list together): upstream's list merging
 * is quadratic; beyond this GCP_ETOOLARGE.
 */
#define GCP_PATCH_MAX_MERGE_LIST 5000

/* the message of every 422 a patch that does not apply gets */
#define GCP_PATCH_REJECTED                                                    \
    "the server rejected our request due to an error in our request"


/*
 * RFC 6902 JSON patch (Content-Type application/json-patch+json), as
 * kube-apiserver with fieldValidation Warn/Strict (the default) applies it.
 * Errors:
 *   GCP_EBADREQUEST "error decoding patch: <Go json error>" when the body is
 *                   not JSON, not an array (null is an empty patch), an
 *                   element is not an object, or "op"/"path"/"from" is not
 *                   a string;
 *   GCP_ETOOLARGE   "The allowed maximum operations in a JSON patch is
 *                   10000, got N";
 *   GCP_EINVALID    GCP_PATCH_REJECTED when an operation fails (test
 *                   failed, missing path, bad index, unknown op...).
 * Upstream quirks kept: "replace" of a missing object member adds it
 * (02-cm-patch-json-patch-bad-path.http); "add"/"replace" without "value"
 * set null; "copy" from a missing member copies null; negative array
 * indices count from the end; a path's first segment is not checked to be
 * empty ("a/b" means "/b"); "replace" of "" with a non-container is a no-op.
 * Deliberate difference: "test" compares numbers by value (1 == 1.0).
 */
int gcp_patch_json(gcp_arena_t *a, const json_t *doc, const char *patch,
    size_t len, json_t **out, const char **msg);

/*
 * Applies an already parsed JSON patch (an array of operation objects; the
 * caller has validated its shape, e.g. a webhook's patch).  Returns GCP_OK
 * and *out (new reference, caller-owned), or GCP_EINVALID with *msg the
 * evanphx/json-patch error text ("add operation does not apply: doc is
 * missing path: \"/a/b\": missing value", "testing value /a failed: test
 * failed", ...), GCP_EBADREQUEST when ops is not an array, or GCP_ENOMEM.
 */
int gcp_patch_json_apply(gcp_arena_t *a, const json_t *doc,
    const json_t *ops, json_t **out, const char **msg);


/*
 * RFC 7386 JSON merge patch (Content-Type application/merge-patch+json).
 * Errors (GCP_EBADREQUEST): "error decoding patch: <Go json error>" when
 * the body is not JSON or not an object; "Invalid JSON Patch" for null.
 */
int gcp_patch_merge(gcp_arena_t *a, const json_t *doc, const char *patch,
    size_t len, json_t **out, const char **msg);

/*
 * Merges a parsed merge patch into doc as evanphx/json-patch v4 MergePatch
 * does: null members delete; an object merges into an object; anything
 * else replaces (a non-object patch replaces the whole document); a value
 * that replaces has the null members of its objects pruned, also inside
 * arrays, while null array elements stay.  Returns a new reference owned
 * by the caller, or NULL when out of memory.  doc and patch are untouched.
 */
json_t *gcp_patch_merge_value(const json_t *doc, const json_t *patch);


/*
 * Strategic merge patch (Content-Type application/strategic-merge-patch+
 * json) as apimachinery's StrategicMergeMapPatch applies it on the server.
 * schema is the OpenAPI node of the document's type in set (e.g.
 * gcp_schema_get(set, "io.k8s.api.core.v1.ConfigMap")); a field's
 * x-kubernetes-patch-strategy ("merge", "replace", "retainKeys",
 * "merge,retainKeys") and x-kubernetes-patch-merge-key steer list and map
 * merging.  set and schema may be NULL; a field without schema information
 * merges maps recursively and replaces lists.  Directives: "$patch":
 * "replace" or "delete" in maps, "replace" or "delete" in list elements
 * ("merge" is an error in both, as upstream), "$deleteFromPrimitiveList/
 * <field>", "$setElementOrder/<field>", "$retainKeys"; null deletes.  List
 * order follows upstream exactly ($setElementOrder, then patch order, then
 * the live order).  A patch that is JSON null changes nothing.
 * Errors:
 *   GCP_EBADREQUEST the Go json error when the body is not JSON or not an
 *                   object ("json: cannot unmarshal array into Go value of
 *                   type map[string]interface {}"); "invalid patch format
 *                   of primitive list" / "... of retainKeys" / "... of
 *                   setElementOrder list";
 *   GCP_EINVALID    GCP_PATCH_REJECTED for lists of lists;
 *   GCP_ETOOLARGE   a merged list beyond GCP_PATCH_MAX_MERGE_LIST items;
 *   GCP_EINTERNAL   the Go error text for anything else (missing merge
 *                   key, unknown $patch value, mismatched element types,
 *                   $setElementOrder not matching the patch list...).
 * Like upstream, directives other than "$patch" are not removed from new
 * values copied from the patch; decoding the result into the type drops
 * them as unknown fields.
 */
int gcp_patch_strategic(gcp_arena_t *a, const gcp_schema_set_t *set,
    const json_t *schema, const json_t *doc, const char *patch, size_t len,
    json_t **out, const char **msg);


/*
 * Helpers shared by the gcp_patch_*.c files (defined in gcp_patch_merge.c).
 *
 * gcp_patch_parse() parses untrusted bytes holding any JSON value with
 * gcp_json_parse_ex() (Go's decoder: its syntax errors, number and depth
 * limits).  Returns GCP_OK and *out (new reference owned by the caller),
 * GCP_EBADREQUEST with *msg Go's error (arena-owned), or GCP_ENOMEM.
 */
int gcp_patch_parse(gcp_arena_t *a, const char *p, size_t len, json_t **out,
    const char **msg);

/*
 * Returns a string formatted as by vprintf(), owned by the arena, or NULL
 * when out of memory.
 */
char *gcp_patch_vsprintf(gcp_arena_t *a, const char *fmt, va_list args);

/*
 * Replaces every node below root referenced more than once (by the tree or
 * from outside it) by a deep copy, so that the tree is independent.
 * Returns 1, or 0 when out of memory.
 */
int gcp_patch_unshare(json_t *root);


#endif /* _GCP_PATCH_H_INCLUDED_ */
