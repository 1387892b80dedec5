
/*
 * The generic registry: create, get, list, watch, update, patch, delete and
 * deletecollection for every resource, on top of the storage interface.
 * What differs between types is in their strategy (gcp_types_*.c).
 */

#ifndef _GCP_REGISTRY_H_INCLUDED_
#define _GCP_REGISTRY_H_INCLUDED_


#include "gcp_op.h"


#define GCP_CONVERT_LIST        0x01
#define GCP_CONVERT_TO_STORAGE  0x02

/* The end of a strategy's convert (see below). */
typedef void (*gcp_convert_pt)(void *arg, int rc, const char *message);


/*
 * Per-type behaviour.  Every hook is optional.  Objects handed to hooks are
 * in the resource's own form (after to_internal on the way in).
 */
struct gcp_strategy_s {
    /* Top-level fields in Go struct order (for stored and served JSON). */
    const char * const  *field_order;

    /* ... of the storage form, when it differs (to_internal is set). */
    const char * const  *storage_order;

    /*
     * Decoding checks kube-apiserver reports as 400 BadRequest (e.g. data
     * that is not base64).  Returns GCP_OK, or GCP_EBADREQUEST with *msg
     * (the part after "... cannot be handled as a KIND: ").
     */
    int   (*decode)(gcp_arena_t *a, const json_t *obj, const char **msg);

    /*
     * Custom resources (unstructured): drops from obj the fields its schema
     * does not know outside metadata and sets *unknown to their paths
     * ("spec.foo", arena memory), *n to their number; then applies the
     * schema's defaults to a decoded body.  Return GCP_OK, GCP_ENOMEM, or
     * (prune) GCP_EBADREQUEST with *err when a part cannot be decoded.
     */
    int   (*prune)(gcp_op_t *op, json_t *obj, const char ***unknown,
                   size_t *n, const char **err);
    int   (*defaults)(gcp_op_t *op, json_t *obj);

    /*
     * Validation that needs the request (the resource's own schema): obj
     * as written, old the stored object (NULL on create).  Called after
     * the other validation hooks, for writes of the main resource and of
     * /status.
     */
    void  (*validate_request)(gcp_op_t *op, gcp_ferrs_t *errs,
                              const json_t *obj, const json_t *old);

    /* Defaulting and clearing of server-owned fields before a create. */
    int   (*prepare_create)(gcp_op_t *op, json_t *obj);

    /*
     * Before an update of the main resource: restore what it may not
     * change (e.g. status), given the stored object.
     */
    int   (*prepare_update)(gcp_op_t *op, json_t *obj, const json_t *old);

    /* Before an update through /status: keep everything but status. */
    int   (*prepare_status_update)(gcp_op_t *op, json_t *obj,
                                   const json_t *old);

    /*
     * The object a write through /status makes of the request's object
     * src and the stored one (a new reference, or NULL when out of
     * memory).  Default: the stored object with src's status.
     */
    json_t *(*status_build)(gcp_op_t *op, const json_t *src,
                            const json_t *old);

    /* Type validation (metadata is validated by the registry). */
    void  (*validate)(gcp_ferrs_t *errs, const json_t *obj);
    void  (*validate_update)(gcp_ferrs_t *errs, const json_t *obj,
                             const json_t *old);

    /*
     * Deletion.  When set, called instead of removing an object that has
     * no finalizers: returns 1 and edits obj to keep it (e.g. namespaces
     * turn Terminating), or 0 to remove it.
     */
    int   (*before_delete)(gcp_op_t *op, json_t *obj);

    /*
     * The first delete of an object (no deletionTimestamp yet), before its
     * finalizers are looked at: may add some (and say why in the status,
     * as CustomResourceDefinitions do).  Returns 1 when it changed obj.
     */
    int   (*prepare_delete)(gcp_op_t *op, json_t *obj);

    /* Table cells after the Name cell, appended to cells. */
    int   (*table_cells)(gcp_op_t *op, const json_t *obj, json_t *cells);

    /*
     * The order of a Table's rows, when the printer sorts them (as
     * FlowSchemas by precedence): a qsort comparator of json_t * const *.
     */
    int   (*table_cmp)(const void *a, const void *b);

    /*
     * What the values derived from op's resource's objects depend on
     * besides the object (Table rows; field selector values, read on
     * the form to_external makes), as a number in the row cache's and
     * the label index's keys (a CRD's revision: its printer columns,
     * selectable fields and schema), or -1: such values neither cached
     * nor indexed.  Unset: cached and indexed for resources without an
     * owner only (gcp_reg_epoch()).
     */
    int64_t (*epoch)(gcp_op_t *op);

    /*
     * The value of a field selector label for obj (beyond metadata.name and
     * metadata.namespace), or NULL; owned by obj or op's arena.
     */
    const char *(*field_value)(gcp_op_t *op, const json_t *obj,
                               const char *field);

    /*
     * Conversion for resources stored in another resource's form
     * (events.k8s.io/v1 events are stored as core/v1 events).  Both return
     * a new reference, or NULL with *msg.
     */
    json_t *(*to_external)(gcp_op_t *op, const json_t *stored);
    json_t *(*to_internal)(gcp_op_t *op, const json_t *obj,
                           const char **msg);

    /*
     * With to_external: returns 1 when the stored bytes of kv are already
     * what to_external would make of them (served without decoding).
     */
    int   (*served_as_stored)(gcp_op_t *op, const gcp_kv_t *kv);

    /*
     * Conversion that calls out (CRD conversion webhooks), when
     * converts(op) returns 1 (the request's version is not the storage
     * one).  convert converts objs[0..n) (flags: GCP_CONVERT_LIST, the
     * items of a list; GCP_CONVERT_TO_STORAGE, objects of the request's
     * version to the storage version, else what to_external made of the
     * stored objects to the request's version), replaces them on success
     * with the converted objects (references held by arena a), and calls
     * done(arg, rc, message) once, from the loop or before it returns:
     * rc GCP_OK, or the failure with message as upstream words it (arena
     * a).  Arena a (which must outlive the call) and arg are all done may
     * use: op may be gone by then (a watch whose client went away).
     */
    int   (*converts)(gcp_op_t *op);
    void  (*convert)(gcp_op_t *op, gcp_arena_t *a, json_t **objs, size_t n,
                     unsigned flags, gcp_convert_pt done, void *arg);

    /*
     * The same to any apiVersion of the resource (upstream's field
     * manager sees a write in the apiVersion of each managedFields
     * entry): converts_to(op, api_version) returns 1 when objects of the
     * request's version read differently there (a webhook converts them)
     * or cannot be converted there (convert_to then fails: a version the
     * resource no longer has), convert_to converts objs[0..n) of the
     * request's version to it as convert does, and convert_from objects
     * of it back to the request's version.
     */
    int   (*converts_to)(gcp_op_t *op, const char *api_version);
    void  (*convert_to)(gcp_op_t *op, gcp_arena_t *a, json_t **objs,
                        size_t n, const char *api_version,
                        gcp_convert_pt done, void *arg);
    void  (*convert_from)(gcp_op_t *op, gcp_arena_t *a, json_t **objs,
                          size_t n, const char *api_version,
                          gcp_convert_pt done, void *arg);

    /*
     * A request the strategy serves itself (a subresource such as
     * /scale): returns 1 when it took op (and answers it), 0 to go on
     * with the generic handling.
     */
    int   (*serve)(gcp_op_t *op);

    /* Validation of writes through /status and /finalize. */
    void  (*validate_status)(gcp_ferrs_t *errs, const json_t *obj);
    void  (*validate_finalize)(gcp_ferrs_t *errs, const json_t *obj);

    unsigned  generation:1;         /* keeps metadata.generation */
    unsigned  no_unconditional_update:1;
    unsigned  create_on_update:1;   /* a PUT creates an absent object */
};


/*
 * The resources served, in discovery's order: the built-in ones as added,
 * then those built at run time (custom resources), replaced as a whole by
 * gcp_registry_set_dynamic().  The registry holds a reference to each
 * descriptor that has an owner.
 */
struct gcp_registry_s {
    const gcp_resource_t  **resources;
    size_t                  n;
    size_t                  cap;
    size_t                  nstatic;        /* the first nstatic entries */
    uint64_t                generation;     /* bumped by every change */
};


/* Returns a new registry owned by the caller (gcp_registry_free), or NULL. */
gcp_registry_t *gcp_registry_create(void);
void gcp_registry_free(gcp_registry_t *reg);

/* Adds a resource (the descriptor is borrowed and must outlive the
 * registry).  Returns GCP_OK or GCP_ENOMEM. */
int gcp_registry_add(gcp_registry_t *reg, const gcp_resource_t *res);

/*
 * Replaces the resources built at run time with res[0 .. n-1] (in that
 * order, after the static ones), taking a reference to each descriptor
 * with an owner and dropping those of the ones replaced.  Returns GCP_OK,
 * or GCP_ENOMEM with the registry unchanged.
 */
int gcp_registry_set_dynamic(gcp_registry_t *reg,
    const gcp_resource_t * const *res, size_t n);

/* Takes and drops a reference to a descriptor (nothing when static). */
void gcp_resource_ref(const gcp_resource_t *res);
void gcp_resource_unref(const gcp_resource_t *res);

/*
 * Keeps res alive (when built at run time) as long as the arena a: a
 * request or watch that uses it holds it.  Returns GCP_OK or GCP_ENOMEM.
 */
int gcp_resource_hold(gcp_arena_t *a, const gcp_resource_t *res);

/*
 * Ends every watch streaming res (built at run time), as a timeout would:
 * its definition changed or went away, and the clients watch again.
 */
void gcp_resource_end_watches(const gcp_resource_t *res);

/* Returns the resource for group/version/plural, or NULL. */
const gcp_resource_t *gcp_registry_find(const gcp_registry_t *reg,
    const char *group, const char *version, const char *resource);

/* Returns 1 when some resource is served under group/version. */
int gcp_registry_has_gv(const gcp_registry_t *reg, const char *group,
    const char *version);

/* Returns 1 when some resource is served in group (any version). */
int gcp_registry_has_group(const gcp_registry_t *reg, const char *group);

/* Returns the resource's subresource named name, or NULL. */
const gcp_subresource_t *gcp_resource_sub(const gcp_resource_t *res,
    const char *name);

/* Serves a resource request (op->res and op->sub are set). */
void gcp_registry_handle(gcp_op_t *op);


#endif /* _GCP_REGISTRY_H_INCLUDED_ */
