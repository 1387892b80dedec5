
/*
 * Registry internals shared by gcp_registry.c (dispatch and options),
 * gcp_reg_body.c (request bodies), gcp_reg_read.c (get, list),
 * gcp_reg_write.c (create, update, patch), gcp_reg_delete.c (delete,
 * deletecollection), gcp_output.c (encodings) and gcp_watch.c.
 */

#ifndef _GCP_REG_H_INCLUDED_
#define _GCP_REG_H_INCLUDED_


#include "gcp_registry.h"
#include "gcp_managed.h"
#include "gcp_object.h"


#define GCP_REG_MAX_RETRIES      64

/* estimated bytes of a decoded object per byte of its JSON */
#define GCP_OBJCACHE_COST        6
#define GCP_REG_GENERATE_TRIES   8

/*
 * The longest watch a client may ask for with timeoutSeconds (a year, in
 * seconds): longer ones are cut to it, so that the milliseconds of the
 * timer cannot overflow.
 */
#define GCP_WATCH_TIMEOUT_MAX    (366 * 86400LL)


typedef enum {
    GCP_FV_IGNORE = 0,
    GCP_FV_WARN,
    GCP_FV_STRICT
} gcp_field_validation_t;


/* A decoded list request (ListOptions). */
typedef struct {
    const char           *label_selector;
    const char           *field_selector;
    void                 *labels;           /* gcp_label_selector_t */
    void                 *fields;           /* gcp_field_selector_t */
    const char           *name;             /* metadata.name=NAME */
    int64_t               rv;               /* -1: unset */
    int                   rv_match;         /* GCP_RV_MATCH_* */
    int64_t               limit;
    const char           *cont;             /* continue token */
    int64_t               timeout;          /* seconds, 0: unset, */
                                            /* < 0: ends at once */
    unsigned              watch:1;
    unsigned              bookmarks:1;
    unsigned              send_initial:1;
    unsigned              send_initial_set:1;
    const char           *include_object;   /* Table: None|Metadata|Object */
} gcp_list_opts_t;

#define GCP_RV_MATCH_NONE          0
#define GCP_RV_MATCH_EXACT         1
#define GCP_RV_MATCH_NOT_OLDER     2


/*
 * Parses and validates the ListOptions of a list or watch request.
 * Returns GCP_OK, or responds with the error itself and returns it.
 */
int gcp_reg_list_opts(gcp_op_t *op, gcp_list_opts_t *lo);

/*
 * Parses the resourceVersion query parameter into *rv (-1: absent).
 * Returns GCP_OK, or responds with kube-apiserver's 500 for a value that is
 * not an unsigned number and returns GCP_EINTERNAL.
 */
int gcp_reg_query_rv(gcp_op_t *op, int64_t *rv);

/*
 * Converts the value s of an int64 query parameter as kube-apiserver's
 * parameter codec does (strconv.ParseInt).  Returns GCP_OK, or responds
 * 400 with Go's error text and returns GCP_EBADREQUEST.
 */
int gcp_reg_query_int(gcp_op_t *op, const char *s, int64_t *out);

/*
 * Completes the request with a Failure Status without a reason: what
 * kube-apiserver answers for errors that are not API errors (e.g. 500
 * with the text of a storage error).
 */
void gcp_reg_error_plain(gcp_op_t *op, int status, const char *message);

/*
 * Calls go(op) once the store's revision reached rv, at once when it has.
 * A revision still ahead after 3 seconds (kube-apiserver's watch cache
 * wait) is answered with 504 Timeout "Too large resource version" and
 * Retry-After instead.
 */
void gcp_reg_when_fresh(gcp_op_t *op, int64_t rv, void (*go)(void *data),
    void *data);

/* Returns 1 when op is a PATCH with an apply patch (server-side apply). */
int gcp_reg_is_apply(gcp_op_t *op);

/*
 * Returns the epoch of op's resource (its strategy's epoch; unset: 0
 * for a static descriptor, -1 for one built at run time): derived
 * values are cached and indexed under it when it is not negative.
 */
int64_t gcp_reg_epoch(gcp_op_t *op);

/* Returns 1 when obj matches the label and field selectors of lo. */
int gcp_reg_matches(gcp_op_t *op, const gcp_list_opts_t *lo,
    const json_t *obj);

/*
 * Parses dryRun and fieldValidation (CreateOptions/UpdateOptions/
 * PatchOptions, named by options_kind).  Returns GCP_OK, or responds with
 * 422 on options_kind and returns GCP_EINVALID.
 */
int gcp_reg_write_opts(gcp_op_t *op, const char *options_kind, int *dry_run,
    gcp_field_validation_t *fv);

/*
 * Decodes a request body into an object of the resource's kind: media
 * type (JSON, YAML, protobuf), syntax, apiVersion/kind, field types,
 * unknown and duplicate fields (per fv: warnings or 400), strategy decode
 * checks.  Unknown fields are dropped.  Returns the object (borrowed from
 * the arena), or NULL after responding with the error.
 */
json_t *gcp_reg_decode_body(gcp_op_t *op, gcp_field_validation_t fv);

/*
 * Decodes an options body of kind ("DeleteOptions") by its media type
 * (JSON, YAML or protobuf) into its JSON form, not yet type-checked.
 * Returns the object (borrowed from the arena), or NULL after responding
 * with kube-apiserver's error (400 for bad input, 415 for another type).
 */
json_t *gcp_reg_decode_options(gcp_op_t *op, const char *kind);

/*
 * The same checks on an already built object (after a patch): kind and
 * apiVersion must be the resource's, types right, unknown fields per fv,
 * reported after the nstrict strict decoding errors found while parsing
 * (strict may be NULL).  Returns GCP_OK, or responds and returns the
 * error.
 */
int gcp_reg_check_object(gcp_op_t *op, json_t *obj,
    gcp_field_validation_t fv, const char **strict, size_t nstrict);

/*
 * Decodes obj in place as kube-apiserver decodes JSON into the Go type of
 * res without strictness (an object a mutating webhook patched): kind and
 * apiVersion must be res's, field types right; unknown fields are
 * dropped, values normalized.  Returns GCP_OK, or GCP_EBADREQUEST with
 * *msg (Go's decoder's words, arena string), or GCP_ENOMEM.  Does not
 * respond.
 */
int gcp_reg_decode_object(gcp_op_t *op, const gcp_resource_t *res,
    json_t *obj, const char **msg);

/* The kind name as used inside decoding messages ("core.ConfigMap"). */
const char *gcp_reg_internal_kind(gcp_op_t *op);

/* apiVersion of the resource's objects ("v1", "coordination.k8s.io/v1"). */
const char *gcp_reg_api_version(gcp_op_t *op);

/* The storage key of the object the request names. */
gcp_str_t gcp_reg_key(gcp_op_t *op);

/*
 * Decodes a stored kv into the resource's (external) form.  The result is
 * borrowed and may be shared with the process's object cache: read-only.
 * gcp_reg_decode_kv_copy() returns a private copy the caller may change.
 */
json_t *gcp_reg_decode_kv(gcp_op_t *op, const gcp_kv_t *kv);
json_t *gcp_reg_decode_kv_copy(gcp_op_t *op, const gcp_kv_t *kv);

/* Returns 1 when kv's stored bytes are served as they are (no decoding). */
int gcp_reg_served_as_stored(gcp_op_t *op, const gcp_kv_t *kv);

/* The gcp_object_splice() flags of op's objects (list items or not). */
unsigned gcp_reg_splice_flags(const gcp_op_t *op, int list_item);

/* Returns obj with its own metadata, safe to change (shared objects). */
json_t *gcp_reg_own_meta(gcp_op_t *op, const json_t *obj);

/* Returns 1 when op's objects go through the strategy's convert. */
int gcp_reg_converts(gcp_op_t *op);

/*
 * Converts objs[0..n) (flags as the strategy's convert) for a request
 * that answers: calls done(op, arg) with them replaced by the converted
 * objects (op's arena holds them), or answers op with the failure (500
 * without a reason, as upstream) and does not.
 */
void gcp_reg_convert(gcp_op_t *op, json_t **objs, size_t n, unsigned flags,
    void (*done)(gcp_op_t *op, void *arg), void *arg);

/* Converts an incoming object to storage form (to_internal), borrowed. */
json_t *gcp_reg_to_storage(gcp_op_t *op, json_t *obj);

/* Encodes an object (in storage form) for storage. */
gcp_str_t gcp_reg_encode(gcp_op_t *op, const json_t *obj);

/* Current time as metav1.Time text, arena-owned. */
const char *gcp_reg_now(gcp_op_t *op);

/* Maps a storage error to a response (404/409/410/500...). */
void gcp_reg_store_error(gcp_op_t *op, gcp_store_result_t *res,
    const char *name);

/*
 * Completes the request with compact JSON bytes, re-encoded as YAML or
 * indented JSON when that was negotiated (?pretty, Accept).
 */
void gcp_output_send(gcp_op_t *op, int status, gcp_buf_t *compact);

/* Appends obj's metadata as JSON (ObjectMeta's order). */
void gcp_output_metadata(gcp_op_t *op, gcp_buf_t *b, const json_t *obj);

/* Serve one object (status 200/201) in the negotiated media type. */
void gcp_output_object(gcp_op_t *op, int status, const gcp_kv_t *kv,
    const json_t *obj);

/* Serve a list of kvs at revision rev with list metadata. */
void gcp_output_list(gcp_op_t *op, gcp_kv_t **kvs, json_t **objs, size_t n,
    int64_t rev, const char *cont, int64_t remaining);

/* Serialise one object for a watch event or list item into b, per the
 * negotiated media type (JSON, or PartialObjectMetadata). */
int gcp_output_event_object(gcp_op_t *op, gcp_buf_t *b, const gcp_kv_t *kv,
    const json_t *obj, int64_t rv);

/*
 * Fills m for a write of op: the schema, the manager (fieldManager, else
 * the User-Agent), apiVersion, subresource, time and the fields the write
 * may own.  Strings are the arena's.
 */
void gcp_reg_managed_init(gcp_op_t *op, gcp_managed_t *m);

/*
 * Sets m's views (views[0..n), their schemas looked up now: the CRD may
 * have changed while they were converted).
 */
void gcp_reg_managed_set_views(gcp_op_t *op, gcp_managed_t *m,
    gcp_managed_view_t *views, size_t n);

/*
 * Returns 1 when entries of the managedFields lists a or b (either NULL)
 * are of an apiVersion the strategy converts to by a call, else 0.
 */
int gcp_reg_managed_viewed(gcp_op_t *op, const json_t *a, const json_t *b);

/* The end of gcp_reg_managed_views(): rc GCP_OK, or the failure. */
typedef void (*gcp_reg_views_pt)(gcp_op_t *op, void *arg, int rc,
    const char *message);

/*
 * Upstream's field manager sees a write in the apiVersion of each
 * managedFields entry: for the apiVersions of the entries of the lists a
 * and b (either NULL) that the strategy converts to by a call
 * (converts_to), old and new (of the request's version) are converted,
 * one conversion per apiVersion, on the loop; then *views (arena) and
 * *n are set and done called, with rc GCP_OK or the failure of a
 * conversion (message as upstream words it, arena).  done is called
 * before this returns when there is nothing to convert (*n 0).
 */
void gcp_reg_managed_views(gcp_op_t *op, const json_t *a, const json_t *b,
    json_t *old, json_t *new, gcp_managed_view_t **views, size_t *n,
    gcp_reg_views_pt done, void *arg);

/*
 * Upstream's prune of an apply whose manager's Apply entry in live is of
 * another apiVersion the strategy converts to by a call: the merge of
 * config onto live converted there, the fields of that entry no other
 * entry of it owns removed, converted back; then *lost (arena: the
 * fields the prune removed, by the request's names, for m's self_lost)
 * is set and done called with GCP_OK, or the failure of a conversion.
 * Returns 1 when that went out (done is called, maybe before this
 * returns), 0 when there is nothing to convert (*lost NULL, done not
 * called).
 */
int gcp_reg_managed_prune_self(gcp_op_t *op, const json_t *live,
    const json_t *config, json_t **lost, gcp_reg_views_pt done, void *arg);

/*
 * The object a create compares its new object with, as upstream's field
 * manager sees a new Go object: metadata, and the struct fields of
 * built-in types that are not pointers, empty.  Borrowed from the arena
 * and shared by the requests of the type (made once per schema set): not
 * to be changed.  NULL when out of memory.
 */
json_t *gcp_reg_managed_shape(gcp_op_t *op, const gcp_managed_t *m);

/*
 * The applied configuration of an apply PATCH: the YAML (or JSON) body,
 * its apiVersion the resource's (or that of the subresource's own kind:
 * autoscaling/v1 for a /scale), no managedFields, its name the URL's.
 * Returns it (arena), or NULL after responding 400.
 */
json_t *gcp_reg_apply_config(gcp_op_t *op);

/*
 * Responds 409 Conflict as upstream's field manager does to the
 * conflicts of gcp_managed_apply().
 */
void gcp_reg_apply_conflict(gcp_op_t *op, const json_t *conflicts);

/* Request handlers. */
void gcp_reg_get(gcp_op_t *op);
void gcp_reg_list(gcp_op_t *op);
void gcp_reg_create(gcp_op_t *op);
void gcp_reg_update(gcp_op_t *op);
void gcp_reg_patch(gcp_op_t *op);
void gcp_reg_delete(gcp_op_t *op);
void gcp_reg_deletecollection(gcp_op_t *op);
void gcp_watch_start(gcp_op_t *op, gcp_list_opts_t *lo);

/*
 * Stops a watch whose client went away (op->state of a watch).  Returns 1
 * when the op is no longer used; 0 when a store operation still holds its
 * memory: the watch then calls req->stream->end once it is back.
 */
int gcp_watch_cancel(void *state);


#endif /* _GCP_REG_H_INCLUDED_ */
