
/*
 * JSON patch (RFC 6902) as kube-apiserver applies it: the body is decoded
 * as []handlers.jsonPatchOp first (Go type errors are 400s), then applied
 * by evanphx/json-patch v4, whose behaviour and error texts are kept here,
 * quirks included (see gcp_patch.h).
 */

#include <limits.h>

#include "gcp_json.h"
#include "gcp_patch.h"


typedef struct {
    gcp_arena_t  *arena;
    json_t       *root;         /* the document being patched, owned */
    long long     copied;       /* bytes added by "copy" so far */
    const char   *msg;          /* error text, arena-owned */
    unsigned      nomem:1;
} gcp_jp_t;


static int gcp_jp_apply(gcp_jp_t *jp, const json_t *doc, const json_t *ops);
static int gcp_jp_op(gcp_jp_t *jp, json_t *op);
static int gcp_jp_fail(gcp_jp_t *jp, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static const char *gcp_jp_atoi(gcp_jp_t *jp, const gcp_str_t *s,
    long long *v);
static json_t *gcp_jp_find(gcp_jp_t *jp, const gcp_str_t *path,
    gcp_str_t *key);
static const char *gcp_jp_get(gcp_jp_t *jp, json_t *con,
    const gcp_str_t *key, json_t **val);
static const char *gcp_jp_add(gcp_jp_t *jp, json_t *con,
    const gcp_str_t *key, json_t *val);
static const char *gcp_jp_set(gcp_jp_t *jp, json_t *con,
    const gcp_str_t *key, json_t *val);
static const char *gcp_jp_remove(gcp_jp_t *jp, json_t *con,
    const gcp_str_t *key);
static int gcp_jp_equal(const json_t *x, const json_t *y);


/* Is the string value v exactly s?  (strings may hold NULs) */
#define gcp_jp_is(v, s)                                                       \
    (json_string_length(v) == sizeof(s) - 1                                   \
     && memcmp(json_string_value(v), s, sizeof(s) - 1) == 0)


int
gcp_patch_json(gcp_arena_t *a, const json_t *doc, const char *patch,
    size_t len, json_t **out, const char **msg)
{
    int          rc;
    size_t       i, klen;
    json_t      *ops, *op, *f;
    gcp_jp_t     jp;
    const char  *key, *where;

    *out = NULL;

    rc = gcp_patch_parse(a, patch, len, &ops, msg);
    if (rc != GCP_OK) {
        if (rc == GCP_EBADREQUEST) {
            *msg = gcp_sprintf(a, "error decoding patch: %s", *msg);
            return *msg ? GCP_EBADREQUEST : GCP_ENOMEM;
        }

        return rc;
    }

    /* the shape checks of json.Unmarshal into []handlers.jsonPatchOp */

    where = NULL;

    if (json_is_null(ops)) {
        json_decref(ops);
        ops = json_array();
        if (ops == NULL) {
            return GCP_ENOMEM;
        }

    } else if (!json_is_array(ops)) {
        where = gcp_sprintf(a, "%s into Go value of type "
                            "[]handlers.jsonPatchOp", gcp_json_go_kind(ops));
    }

    for (i = 0; where == NULL && i < json_array_size(ops); i++) {
        op = json_array_get(ops, i);

        if (json_is_null(op)) {
            continue;
        }

        if (!json_is_object(op)) {
            where = gcp_sprintf(a, "%s into Go value of type "
                                "handlers.jsonPatchOp", gcp_json_go_kind(op));
            break;
        }

        json_object_keylen_foreach(op, key, klen, f) {
            if (((klen == 2 && memcmp(key, "op", 2) == 0)
                 || (klen == 4 && memcmp(key, "path", 4) == 0)
                 || (klen == 4 && memcmp(key, "from", 4) == 0))
                && !json_is_string(f) && !json_is_null(f))
            {
                where = gcp_sprintf(a, "%s into Go struct field "
                                    "jsonPatchOp.%s of type string",
                                    gcp_json_go_kind(f), key);
                break;
            }
        }
    }

    if (where != NULL) {
        json_decref(ops);
        *msg = gcp_sprintf(a, "error decoding patch: json: cannot unmarshal "
                           "%s", where);
        return *msg ? GCP_EBADREQUEST : GCP_ENOMEM;
    }

    if (json_array_size(ops) > GCP_PATCH_MAX_OPS) {
        *msg = gcp_sprintf(a, "The allowed maximum operations in a JSON "
                           "patch is %d, got %zu", GCP_PATCH_MAX_OPS,
                           json_array_size(ops));
        json_decref(ops);
        return *msg ? GCP_ETOOLARGE : GCP_ENOMEM;
    }

    memset(&jp, 0, sizeof(gcp_jp_t));
    jp.arena = a;

    rc = gcp_jp_apply(&jp, doc, ops);
    json_decref(ops);

    if (rc != GCP_OK) {
        /* upstream keeps the reason to itself */
        *msg = rc == GCP_EINVALID ? GCP_PATCH_REJECTED : "out of memory";
        return rc;
    }

    if (!gcp_patch_unshare(jp.root)) {
        json_decref(jp.root);
        *msg = "out of memory";
        return GCP_ENOMEM;
    }

    *out = jp.root;

    return GCP_OK;
}


int
gcp_patch_json_apply(gcp_arena_t *a, const json_t *doc, const json_t *ops,
    json_t **out, const char **msg)
{
    int        rc;
    json_t    *copy;
    gcp_jp_t   jp;

    *out = NULL;

    if (!json_is_array(ops)) {
        *msg = "a JSON patch is an array of operations";
        return GCP_EBADREQUEST;
    }

    memset(&jp, 0, sizeof(gcp_jp_t));
    jp.arena = a;

    rc = gcp_jp_apply(&jp, doc, ops);
    if (rc != GCP_OK) {
        *msg = rc == GCP_EINVALID ? jp.msg : "out of memory";
        return rc;
    }

    /* values taken from ops are shared with the caller's tree until now */

    if (jp.root->refcount > 1) {
        copy = gcp_json_deep_copy(jp.root);
        json_decref(jp.root);
        jp.root = copy;
    }

    if (jp.root == NULL || !gcp_patch_unshare(jp.root)) {
        json_decref(jp.root);
        *msg = "out of memory";
        return GCP_ENOMEM;
    }

    *out = jp.root;

    return GCP_OK;
}


/*
 * Applies ops to a copy of doc, left in jp->root (owned by jp; released on
 * failure).  The new document may share nodes with ops.  Returns GCP_OK,
 * GCP_EINVALID with jp->msg, or GCP_ENOMEM.
 */
static int
gcp_jp_apply(gcp_jp_t *jp, const json_t *doc, const json_t *ops)
{
    int     rc;
    size_t  i;

    if (!json_is_object(doc) && !json_is_array(doc)) {
        return gcp_jp_fail(jp, "json: cannot unmarshal %s into Go value of "
                           "type jsonpatch.partialDoc", gcp_json_go_kind(doc));
    }

    jp->root = gcp_json_deep_copy(doc);
    if (jp->root == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < json_array_size(ops); i++) {
        rc = gcp_jp_op(jp, json_array_get(ops, i));

        if (rc == GCP_OK && jp->nomem) {
            rc = GCP_ENOMEM;
        }

        if (rc != GCP_OK) {
            json_decref(jp->root);
            jp->root = NULL;
            return rc;
        }
    }

    return GCP_OK;
}


static const char *
gcp_jp_vsprintf(gcp_jp_t *jp, const char *fmt, va_list args)
{
    const char  *p;

    p = gcp_patch_vsprintf(jp->arena, fmt, args);
    if (p == NULL) {
        jp->nomem = 1;
        return "out of memory";
    }

    return p;
}


/* Returns a formatted arena string ("out of memory" and jp->nomem set). */
static const char *
gcp_jp_errf(gcp_jp_t *jp, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static const char *
gcp_jp_errf(gcp_jp_t *jp, const char *fmt, ...)
{
    va_list      args;
    const char  *s;

    va_start(args, fmt);
    s = gcp_jp_vsprintf(jp, fmt, args);
    va_end(args);

    return s;
}


/* Sets jp->msg; returns GCP_EINVALID, or GCP_ENOMEM. */
static int
gcp_jp_fail(gcp_jp_t *jp, const char *fmt, ...)
{
    va_list  args;

    va_start(args, fmt);
    jp->msg = gcp_jp_vsprintf(jp, fmt, args);
    va_end(args);

    return jp->nomem ? GCP_ENOMEM : GCP_EINVALID;
}


/*
 * Sets *s to the string member name ("path" or "from") of op and returns
 * its text, or returns NULL with *err the error evanphx's
 * Operation.Path()/From() returns.
 */
static const char *
gcp_jp_field(gcp_jp_t *jp, json_t *op, const char *name, gcp_str_t *s,
    const char **err)
{
    json_t  *v;

    *err = NULL;

    v = json_object_get(op, name);

    if (v == NULL || json_is_null(v)) {
        *err = strcmp(name, "path") == 0
               ? "operation missing path field: missing value"
               : "operation, missing from field: missing value";
        return NULL;
    }

    if (!json_is_string(v)) {
        *err = gcp_jp_errf(jp, "json: cannot unmarshal %s into Go value of "
                           "type string", gcp_json_go_kind(v));
        return NULL;
    }

    s->data = json_string_value(v);
    s->len = json_string_length(v);

    return s->data;
}


static int
gcp_jp_add_op(gcp_jp_t *jp, json_t *op)
{
    json_t      *con;
    gcp_str_t    p, key;
    const char  *path, *e;

    path = gcp_jp_field(jp, op, "path", &p, &e);
    if (path == NULL) {
        return gcp_jp_fail(jp, "add operation failed to decode path: "
                           "missing value");
    }

    con = gcp_jp_find(jp, &p, &key);
    if (con == NULL) {
        return gcp_jp_fail(jp, "add operation does not apply: doc is "
                           "missing path: \"%s\": missing value", path);
    }

    e = gcp_jp_add(jp, con, &key, json_object_get(op, "value"));
    if (e != NULL) {
        return gcp_jp_fail(jp, "error in add for path: '%s': %s", path, e);
    }

    return GCP_OK;
}


static int
gcp_jp_remove_op(gcp_jp_t *jp, json_t *op)
{
    json_t      *con;
    gcp_str_t    p, key;
    const char  *path, *e;

    path = gcp_jp_field(jp, op, "path", &p, &e);
    if (path == NULL) {
        return gcp_jp_fail(jp, "remove operation failed to decode path: "
                           "missing value");
    }

    con = gcp_jp_find(jp, &p, &key);
    if (con == NULL) {
        return gcp_jp_fail(jp, "remove operation does not apply: doc is "
                           "missing path: \"%s\": missing value", path);
    }

    e = gcp_jp_remove(jp, con, &key);
    if (e != NULL) {
        return gcp_jp_fail(jp, "error in remove for path: '%s': %s", path,
                           e);
    }

    return GCP_OK;
}


static int
gcp_jp_replace_op(gcp_jp_t *jp, json_t *op)
{
    json_t      *con, *cur, *value;
    gcp_str_t    p, key;
    const char  *path, *e;

    path = gcp_jp_field(jp, op, "path", &p, &e);
    if (path == NULL) {
        return gcp_jp_fail(jp, "replace operation failed to decode path: %s",
                           e);
    }

    value = json_object_get(op, "value");

    if (p.len == 0) {
        /* the whole document; upstream ignores anything but a container */
        if (json_is_object(value) || json_is_array(value)) {
            json_decref(jp->root);
            jp->root = json_incref(value);
        }

        return GCP_OK;
    }

    con = gcp_jp_find(jp, &p, &key);
    if (con == NULL) {
        return gcp_jp_fail(jp, "replace operation does not apply: doc is "
                           "missing path: %s: missing value", path);
    }

    /* a missing object member is no error: replace adds it */

    if (gcp_jp_get(jp, con, &key, &cur) != NULL) {
        return gcp_jp_fail(jp, "replace operation does not apply: doc is "
                           "missing key: %s: missing value", path);
    }

    e = gcp_jp_set(jp, con, &key, value);
    if (e != NULL) {
        return gcp_jp_fail(jp, "error in remove for path: '%s': %s", path,
                           e);
    }

    return GCP_OK;
}


static int
gcp_jp_move_op(gcp_jp_t *jp, json_t *op)
{
    int          rc;
    json_t      *con, *val;
    gcp_str_t    f, p, key;
    const char  *from, *path, *e;

    from = gcp_jp_field(jp, op, "from", &f, &e);
    if (from == NULL) {
        return gcp_jp_fail(jp, "move operation failed to decode from: %s", e);
    }

    con = gcp_jp_find(jp, &f, &key);
    if (con == NULL) {
        return gcp_jp_fail(jp, "move operation does not apply: doc is "
                           "missing from path: %s: missing value", from);
    }

    e = gcp_jp_get(jp, con, &key, &val);
    if (e != NULL) {
        return gcp_jp_fail(jp, "error in move for path: '%s': %s", key.data,
                           e);
    }

    json_incref(val);

    rc = GCP_OK;

    e = gcp_jp_remove(jp, con, &key);
    if (e != NULL) {
        rc = gcp_jp_fail(jp, "error in move for path: '%s': %s", key.data,
                         e);
        goto done;
    }

    path = gcp_jp_field(jp, op, "path", &p, &e);
    if (path == NULL) {
        rc = gcp_jp_fail(jp, "move operation failed to decode path: %s", e);
        goto done;
    }

    con = gcp_jp_find(jp, &p, &key);
    if (con == NULL) {
        rc = gcp_jp_fail(jp, "move operation does not apply: doc is missing "
                         "destination path: %s: missing value", path);
        goto done;
    }

    e = gcp_jp_add(jp, con, &key, val);
    if (e != NULL) {
        rc = gcp_jp_fail(jp, "error in move for path: '%s': %s", path, e);
    }

done:

    json_decref(val);

    return rc;
}


static int
gcp_jp_test_op(gcp_jp_t *jp, json_t *op)
{
    json_t      *con, *cur, *value;
    gcp_str_t    p, key;
    const char  *path, *e;

    path = gcp_jp_field(jp, op, "path", &p, &e);
    if (path == NULL) {
        return gcp_jp_fail(jp, "test operation failed to decode path: %s", e);
    }

    value = json_object_get(op, "value");

    if (p.len == 0) {
        if (value != NULL && gcp_jp_equal(jp->root, value)) {
            return GCP_OK;
        }

        return gcp_jp_fail(jp, "testing value %s failed: test failed", path);
    }

    con = gcp_jp_find(jp, &p, &key);
    if (con == NULL) {
        return gcp_jp_fail(jp, "test operation does not apply: is missing "
                           "path: %s: missing value", path);
    }

    e = gcp_jp_get(jp, con, &key, &cur);
    if (e != NULL) {
        return gcp_jp_fail(jp, "error in test for path: '%s': %s", path, e);
    }

    /* a missing member tests equal to null, as a null one */

    if (cur == NULL || json_is_null(cur)) {
        if (json_is_null(value)) {
            return GCP_OK;
        }

    } else if (value != NULL && gcp_jp_equal(cur, value)) {
        return GCP_OK;
    }

    return gcp_jp_fail(jp, "testing value %s failed: test failed", path);
}


static int
gcp_jp_copy_op(gcp_jp_t *jp, json_t *op)
{
    int          rc;
    size_t       size;
    json_t      *con, *val, *copy;
    gcp_str_t    f, p, key;
    const char  *from, *path, *e;

    from = gcp_jp_field(jp, op, "from", &f, &e);
    if (from == NULL) {
        return gcp_jp_fail(jp, "copy operation failed to decode from: %s", e);
    }

    con = gcp_jp_find(jp, &f, &key);
    if (con == NULL) {
        return gcp_jp_fail(jp, "copy operation does not apply: doc is "
                           "missing from path: %s: missing value", from);
    }

    e = gcp_jp_get(jp, con, &key, &val);
    if (e != NULL) {
        return gcp_jp_fail(jp, "error in copy for from: '%s': %s", from, e);
    }

    path = gcp_jp_field(jp, op, "path", &p, &e);
    if (path == NULL) {
        return gcp_jp_fail(jp, "copy operation failed to decode path: "
                           "missing value");
    }

    con = gcp_jp_find(jp, &p, &key);
    if (con == NULL) {
        return gcp_jp_fail(jp, "copy operation does not apply: doc is "
                           "missing destination path: %s: missing value",
                           path);
    }

    /*
     * The size is that of Go's json.Marshal of the value; a missing member
     * copies as null, of size 0.
     */

    copy = NULL;
    size = 0;

    if (val != NULL && !json_is_null(val)) {
        size = gcp_json_dump(jp->arena, val, 0).len;

        copy = gcp_json_deep_copy(val);
        if (copy == NULL || size == 0) {
            json_decref(copy);
            return GCP_ENOMEM;
        }
    }

    jp->copied += (long long) size;

    if (jp->copied > GCP_PATCH_MAX_COPY_BYTES) {
        json_decref(copy);
        return gcp_jp_fail(jp, "Unable to complete the copy, the accumulated "
                           "size increase of copy is %lld, exceeding the "
                           "limit %d", jp->copied, GCP_PATCH_MAX_COPY_BYTES);
    }

    rc = GCP_OK;

    e = gcp_jp_add(jp, con, &key, copy);
    if (e != NULL) {
        rc = gcp_jp_fail(jp, "error while adding value during copy: %s", e);
    }

    json_decref(copy);

    return rc;
}


static int
gcp_jp_op(gcp_jp_t *jp, json_t *op)
{
    json_t  *k;

    k = json_object_get(op, "op");

    if (!json_is_string(k)) {
        return gcp_jp_fail(jp, "Unexpected kind: unknown");
    }

    if (gcp_jp_is(k, "add")) {
        return gcp_jp_add_op(jp, op);
    }

    if (gcp_jp_is(k, "remove")) {
        return gcp_jp_remove_op(jp, op);
    }

    if (gcp_jp_is(k, "replace")) {
        return gcp_jp_replace_op(jp, op);
    }

    if (gcp_jp_is(k, "move")) {
        return gcp_jp_move_op(jp, op);
    }

    if (gcp_jp_is(k, "test")) {
        return gcp_jp_test_op(jp, op);
    }

    if (gcp_jp_is(k, "copy")) {
        return gcp_jp_copy_op(jp, op);
    }

    return gcp_jp_fail(jp, "Unexpected kind: %s", json_string_value(k));
}


/*
 * Parses an array index as Go's strconv.Atoi.  Returns NULL and *v, or the
 * Atoi error text.
 */
static const char *
gcp_jp_atoi(gcp_jp_t *jp, const gcp_str_t *s, long long *v)
{
    int                 neg;
    size_t              i;
    unsigned long long  u, d;

    i = 0;
    neg = 0;

    if (s->len > 0 && (s->data[0] == '+' || s->data[0] == '-')) {
        neg = (s->data[0] == '-');
        i++;
    }

    if (i == s->len) {
        goto syntax;
    }

    u = 0;

    for ( /* void */ ; i < s->len; i++) {
        if (s->data[i] < '0' || s->data[i] > '9') {
            goto syntax;
        }

        d = (unsigned long long) (s->data[i] - '0');

        if (u > (ULLONG_MAX - d) / 10) {
            goto range;
        }

        u = u * 10 + d;
    }

    if (u > (unsigned long long) LLONG_MAX + (neg ? 1 : 0)) {
        goto range;
    }

    *v = neg ? (long long) (0 - u) : (long long) u;

    return NULL;

syntax:

    return gcp_jp_errf(jp, "strconv.Atoi: parsing %s: invalid syntax",
                       gcp_go_quote(jp->arena, s->data, s->len));

range:

    return gcp_jp_errf(jp, "strconv.Atoi: parsing %s: value out of range",
                       gcp_go_quote(jp->arena, s->data, s->len));
}


/*
 * Decodes the reference token s (~1 is "/", ~0 is "~", in one pass) into
 * *out (arena memory).  Returns 1, or 0 when out of memory.
 */
static int
gcp_jp_unescape(gcp_jp_t *jp, const char *s, size_t n, gcp_str_t *out)
{
    char    *p, *q;
    size_t   i;

    p = gcp_alloc(jp->arena, n + 1);
    if (p == NULL) {
        jp->nomem = 1;
        return 0;
    }

    q = p;

    for (i = 0; i < n; i++) {
        if (s[i] == '~' && i + 1 < n && (s[i + 1] == '1' || s[i + 1] == '0'))
        {
            *q++ = s[i + 1] == '1' ? '/' : '~';
            i++;
            continue;
        }

        *q++ = s[i];
    }

    *q = '\0';

    out->data = p;
    out->len = (size_t) (q - p);

    return 1;
}


/*
 * Resolves every segment of path but the last (evanphx findObject).
 * Returns the container and *key the last segment decoded, or NULL when a
 * segment is missing or not a container.  The first segment is skipped
 * unchecked, as upstream does.
 */
static json_t *
gcp_jp_find(gcp_jp_t *jp, const gcp_str_t *path, gcp_str_t *key)
{
    json_t      *con, *next;
    gcp_str_t    part;
    const char  *seg, *slash, *end;

    end = path->data + path->len;

    slash = memchr(path->data, '/', path->len);
    if (slash == NULL) {
        return NULL;
    }

    con = jp->root;
    seg = slash + 1;

    for ( ;; ) {
        slash = memchr(seg, '/', (size_t) (end - seg));
        if (slash == NULL) {
            break;
        }

        if (!gcp_jp_unescape(jp, seg, (size_t) (slash - seg), &part)) {
            return NULL;
        }

        if (gcp_jp_get(jp, con, &part, &next) != NULL
            || !(json_is_object(next) || json_is_array(next)))
        {
            return NULL;
        }

        con = next;
        seg = slash + 1;
    }

    if (!gcp_jp_unescape(jp, seg, (size_t) (end - seg), key)) {
        return NULL;
    }

    return con;
}


static const char *
gcp_jp_bad_index(gcp_jp_t *jp, long long idx)
{
    return gcp_jp_errf(jp, "Unable to access invalid index: %lld: invalid "
                       "index referenced", idx);
}


/*
 * Checks that idx is in [-n, n) and makes a negative one count from the
 * end.  Returns NULL, or the error text.
 */
static const char *
gcp_jp_range(gcp_jp_t *jp, long long *idx, long long n)
{
    if (*idx < -n || *idx >= n) {
        return gcp_jp_bad_index(jp, *idx);
    }

    if (*idx < 0) {
        *idx += n;
    }

    return NULL;
}


/*
 * Looks key up in a container.  Returns NULL and *val (borrowed; NULL for a
 * missing member), or the error text for a bad array index.
 */
static const char *
gcp_jp_get(gcp_jp_t *jp, json_t *con, const gcp_str_t *key, json_t **val)
{
    long long    idx;
    const char  *e;

    *val = NULL;

    if (json_is_object(con)) {
        *val = json_object_getn(con, key->data, key->len);
        return NULL;
    }

    e = gcp_jp_atoi(jp, key, &idx);
    if (e != NULL) {
        return e;
    }

    e = gcp_jp_range(jp, &idx, (long long) json_array_size(con));
    if (e != NULL) {
        return e;
    }

    *val = json_array_get(con, (size_t) idx);

    return NULL;
}


/*
 * Adds val (borrowed; NULL adds null) at key: sets an object member,
 * inserts into an array ("-" appends).  Returns NULL or the error text.
 */
static const char *
gcp_jp_add(gcp_jp_t *jp, json_t *con, const gcp_str_t *key, json_t *val)
{
    int          rc;
    long long    idx;
    const char  *e;

    val = val ? json_incref(val) : json_null();

    if (json_is_object(con)) {
        rc = json_object_setn_new(con, key->data, key->len, val);
        goto done;
    }

    if (key->len == 1 && key->data[0] == '-') {
        rc = json_array_append_new(con, val);
        goto done;
    }

    e = gcp_jp_atoi(jp, key, &idx);
    if (e != NULL) {
        json_decref(val);
        return gcp_jp_errf(jp, "value was not a proper array index: '%s': "
                           "%s", key->data, e);
    }

    e = gcp_jp_range(jp, &idx, (long long) json_array_size(con) + 1);
    if (e != NULL) {
        json_decref(val);
        return e;
    }

    rc = json_array_insert_new(con, (size_t) idx, val);

done:

    if (rc != 0) {
        jp->nomem = 1;
        return "out of memory";
    }

    return NULL;
}


/*
 * Replaces the member or element at key (known to exist, for arrays) with
 * val (borrowed; NULL sets null).  Returns NULL or the error text.
 */
static const char *
gcp_jp_set(gcp_jp_t *jp, json_t *con, const gcp_str_t *key, json_t *val)
{
    int          rc;
    long long    idx;
    const char  *e;

    val = val ? json_incref(val) : json_null();

    if (json_is_object(con)) {
        rc = json_object_setn_new(con, key->data, key->len, val);

    } else {
        e = gcp_jp_atoi(jp, key, &idx);
        if (e != NULL) {
            json_decref(val);
            return e;
        }

        e = gcp_jp_range(jp, &idx, (long long) json_array_size(con));
        if (e != NULL) {
            json_decref(val);
            return e;
        }

        rc = json_array_set_new(con, (size_t) idx, val);
    }

    if (rc != 0) {
        jp->nomem = 1;
        return "out of memory";
    }

    return NULL;
}


/* Removes the member or element at key.  Returns NULL or the error text. */
static const char *
gcp_jp_remove(gcp_jp_t *jp, json_t *con, const gcp_str_t *key)
{
    long long    idx;
    const char  *e;

    if (json_is_object(con)) {
        if (json_object_getn(con, key->data, key->len) == NULL) {
            return gcp_jp_errf(jp, "Unable to remove nonexistent key: %s: "
                               "missing value", key->data);
        }

        json_object_deln(con, key->data, key->len);
        return NULL;
    }

    e = gcp_jp_atoi(jp, key, &idx);
    if (e != NULL) {
        return e;
    }

    e = gcp_jp_range(jp, &idx, (long long) json_array_size(con));
    if (e != NULL) {
        return e;
    }

    json_array_remove(con, (size_t) idx);

    return NULL;
}


/*
 * Deep equality of the "test" operation: numbers compare by value, so that
 * 1 equals 1.0; object member order does not matter.
 */
static int
gcp_jp_equal(const json_t *x, const json_t *y)
{
    size_t       i, klen;
    double       d;
    json_int_t   n;
    const char  *key;
    json_t      *xv;

    if (x == NULL || y == NULL) {
        return x == y;
    }

    if (json_is_number(x) && json_is_number(y)) {
        if (json_is_integer(x) && json_is_integer(y)) {
            return json_integer_value(x) == json_integer_value(y);
        }

        if (json_is_real(x) && json_is_real(y)) {
            return json_real_value(x) == json_real_value(y);
        }

        n = json_is_integer(x) ? json_integer_value(x)
                               : json_integer_value(y);
        d = json_is_real(x) ? json_real_value(x) : json_real_value(y);

        /* exact: the real must be integral and in the integer range */
        return d >= -9223372036854775808.0 && d < 9223372036854775808.0
               && (double) (json_int_t) d == d && (json_int_t) d == n;
    }

    if (json_typeof(x) != json_typeof(y)) {
        return 0;
    }

    switch (json_typeof(x)) {

    case JSON_STRING:
        return json_string_length(x) == json_string_length(y)
               && memcmp(json_string_value(x), json_string_value(y),
                         json_string_length(x)) == 0;

    case JSON_OBJECT:
        if (json_object_size(x) != json_object_size(y)) {
            return 0;
        }

        json_object_keylen_foreach((json_t *) x, key, klen, xv) {
            if (!gcp_jp_equal(xv, json_object_getn(y, key, klen))) {
                return 0;
            }
        }

        return 1;

    case JSON_ARRAY:
        if (json_array_size(x) != json_array_size(y)) {
            return 0;
        }

        for (i = 0; i < json_array_size(x); i++) {
            if (!gcp_jp_equal(json_array_get(x, i), json_array_get(y, i))) {
                return 0;
            }
        }

        return 1;

    default:
        /* true, false, null */
        return 1;
    }
}
