
/*
 * Strategic merge patch, as apimachinery's StrategicMergeMapPatch applies it
 * on the server (MergeParallelList and IgnoreUnmatchedNulls set), with the
 * field metadata taken from the OpenAPI schema instead of Go struct tags.
 *
 * The code follows upstream's algorithm step by step, because the order of
 * merged lists depends on its details, including Go slice aliasing: the
 * live list is shifted in place when "$patch: delete" elements remove
 * entries and patch elements are appended into the room freed, and the
 * caller's view of the live list (the order reference of
 * "$setElementOrder") sees that.  Go slices are therefore modelled
 * (gcp_smp_slice_t: shared backing array, length, capacity), and
 * sort.SliceStable is reproduced exactly since its comparator is not a
 * strict order (gcp_patch_strategic_sort.c).  Error messages print values
 * as Go's fmt does (gcp_patch_strategic_fmt.c).  See gcp_patch.h and
 * gcp_patch_strategic_int.h.
 *
 * Memory: the document is patched in a private deep copy; values removed
 * or replaced while merging are parked in smp->keep until the end, so that
 * the borrowed pointers held by slices stay valid.
 */

#include "gcp_patch_strategic_int.h"


#define GCP_SMP_DIRECTIVE       "$patch"
#define GCP_SMP_RETAIN_KEYS     "$retainKeys"
#define GCP_SMP_DELETE_PREFIX   "$deleteFromPrimitiveList"
#define GCP_SMP_ORDER_PREFIX    "$setElementOrder"

#define GCP_SMP_ERR_PRIMITIVE   "invalid patch format of primitive list"
#define GCP_SMP_ERR_RETAIN      "invalid patch format of retainKeys"
#define GCP_SMP_ERR_ORDER       "invalid patch format of setElementOrder list"


#if defined(__GNUC__)
#define GCP_SMP_NOINLINE  __attribute__((noinline))
#else
#define GCP_SMP_NOINLINE
#endif


/* Is v the string s?  (JSON strings may hold NULs) */
#define gcp_smp_is(v, s)                                                      \
    (json_is_string(v) && json_string_length(v) == sizeof(s) - 1             \
     && memcmp(json_string_value(v), s, sizeof(s) - 1) == 0)


/* The patch metadata of a field (upstream PatchMeta and subschema). */
typedef struct {
    const json_t     *schema;       /* map: the field; list: its items */
    const char       *strategy;     /* "merge", "replace" or "" */
    const char       *merge_key;    /* "" when none */
} gcp_smp_meta_t;


/* index() lookups in one list, hashed on the looked-up value */
typedef struct {
    const gcp_smp_slice_t  *list;
    const char             *merge_key;
    int                     maps;       /* elements are maps */
    size_t                  mask;
    size_t                 *slot;       /* list index + 1; 0: empty */
} gcp_smp_index_t;


static json_t *gcp_smp_merge_map(gcp_smp_t *smp, json_t *original,
    json_t *patch, const json_t *schema);
static int gcp_smp_merge_slice_handler(gcp_smp_t *smp,
    gcp_smp_slice_t original, gcp_smp_slice_t patch, const gcp_smp_meta_t *m,
    int delete_list, gcp_smp_slice_t *out);


/* ------------------------------------------------------ values and maps */


/* Parks v until the end of the patch; returns 0 when out of memory. */
static int
gcp_smp_keep(gcp_smp_t *smp, json_t *v)
{
    return v == NULL || json_array_append(smp->keep, v) == 0;
}


/* Returns a new empty object owned by smp->keep (borrowed), or NULL. */
static json_t *
gcp_smp_new(gcp_smp_t *smp, json_t *v)
{
    if (v == NULL || json_array_append_new(smp->keep, v) != 0) {
        gcp_smp_nomem(smp);
        return NULL;
    }

    return v;
}


/* original[key] = v (keys are gcp_str_t: they may hold NULs) */
static int
gcp_smp_set(gcp_smp_t *smp, json_t *obj, const gcp_str_t *key, json_t *v)
{
    if (!gcp_smp_keep(smp, json_object_getn(obj, key->data, key->len))
        || json_object_setn(obj, key->data, key->len, v) != 0)
    {
        return gcp_smp_nomem(smp);
    }

    return GCP_OK;
}


/* delete(original, key) */
static int
gcp_smp_del(gcp_smp_t *smp, json_t *obj, const gcp_str_t *key)
{
    json_t  *v;

    v = json_object_getn(obj, key->data, key->len);
    if (v == NULL) {
        return GCP_OK;
    }

    if (!gcp_smp_keep(smp, v)) {
        return gcp_smp_nomem(smp);
    }

    json_object_deln(obj, key->data, key->len);

    return GCP_OK;
}


#define gcp_smp_get(obj, key)  json_object_getn(obj, (key)->data, (key)->len)


/*
 * Returns the keys of obj (arena copies; the array ends with a NULL data),
 * or NULL when out of memory.
 */
static gcp_str_t *
gcp_smp_keys(gcp_smp_t *smp, json_t *obj)
{
    size_t        i, klen;
    json_t       *v;
    gcp_str_t    *keys;
    const char   *key;

    keys = gcp_alloc(smp->arena,
                     (json_object_size(obj) + 1) * sizeof(gcp_str_t));
    if (keys == NULL) {
        gcp_smp_nomem(smp);
        return NULL;
    }

    i = 0;
    json_object_keylen_foreach(obj, key, klen, v) {
        keys[i].data = gcp_strndup(smp->arena, key, klen);
        keys[i].len = klen;

        if (keys[i++].data == NULL) {
            gcp_smp_nomem(smp);
            return NULL;
        }
    }

    keys[i].data = NULL;
    keys[i].len = 0;

    return keys;
}


static int
gcp_smp_has_prefix(const gcp_str_t *s, const char *prefix)
{
    size_t  n;

    n = strlen(prefix);

    return s->len >= n && memcmp(s->data, prefix, n) == 0;
}


/*
 * upstream extractKey(): sets *field to the name after "PREFIX/".  Returns
 * GCP_OK, or the 400 error.
 */
static int
gcp_smp_extract_key(gcp_smp_t *smp, const gcp_str_t *s, const char *prefix,
    const char *err, gcp_str_t *field)
{
    size_t  n;

    n = strlen(prefix);

    if (!gcp_smp_has_prefix(s, prefix) || s->len == n || s->data[n] != '/') {
        return gcp_smp_fail(smp, GCP_EBADREQUEST, "%s", err);
    }

    field->data = s->data + n + 1;
    field->len = s->len - n - 1;

    return GCP_OK;
}


/* Is key one of the strings of the JSON array list? */
static int
gcp_smp_listed(const json_t *list, const char *key, size_t klen)
{
    size_t   i;
    json_t  *e;

    for (i = 0; i < json_array_size(list); i++) {
        e = json_array_get(list, i);

        if (json_is_string(e) && json_string_length(e) == klen
            && memcmp(json_string_value(e), key, klen) == 0)
        {
            return 1;
        }
    }

    return 0;
}


/* Removes the null members of the patch value's maps, at any depth. */
static void
gcp_smp_discard_nulls(gcp_smp_t *smp, json_t *v)
{
    size_t       i, klen;
    void        *tmp;
    json_t      *e;
    const char  *key;

    if (json_is_object(v)) {
        json_object_keylen_foreach_safe(v, tmp, key, klen, e) {
            if (json_is_null(e)) {
                json_object_deln(v, key, klen);

            } else {
                gcp_smp_discard_nulls(smp, e);
            }
        }

    } else if (json_is_array(v)) {
        for (i = 0; i < json_array_size(v); i++) {
            gcp_smp_discard_nulls(smp, json_array_get(v, i));
        }
    }
}


/*
 * upstream removeDirectives(): drops maps holding "$patch" (and returns
 * *keep 0 when v is one), at any depth; other directive keys stay.
 * Returns the value to use (borrowed), or NULL when out of memory.
 */
static json_t *
gcp_smp_remove_directives(gcp_smp_t *smp, json_t *v, int *keep)
{
    int          k;
    size_t       i, klen;
    void        *tmp;
    json_t      *e, *r, *res;
    const char  *key;

    *keep = 1;

    if (json_is_object(v)) {
        if (json_object_get(v, GCP_SMP_DIRECTIVE) != NULL) {
            *keep = 0;
            return v;
        }

        json_object_keylen_foreach_safe(v, tmp, key, klen, e) {
            r = gcp_smp_remove_directives(smp, e, &k);
            if (r == NULL) {
                return NULL;
            }

            if (!k) {
                json_object_deln(v, key, klen);

            } else if (r != e && json_object_setn(v, key, klen, r) != 0) {
                gcp_smp_nomem(smp);
                return NULL;
            }
        }

        return v;
    }

    if (json_is_array(v)) {
        res = gcp_smp_new(smp, json_array());
        if (res == NULL) {
            return NULL;
        }

        for (i = 0; i < json_array_size(v); i++) {
            r = gcp_smp_remove_directives(smp, json_array_get(v, i), &k);
            if (r == NULL) {
                return NULL;
            }

            if (k && json_array_append(res, r) != 0) {
                gcp_smp_nomem(smp);
                return NULL;
            }
        }

        return res;
    }

    return v;
}


/*
 * Sets original[key] to the patch value v taken as it is (nulls discarded,
 * "$patch" maps dropped), or deletes the key when v is a "$patch" map.
 */
static GCP_SMP_NOINLINE int
gcp_smp_take_patch_value(gcp_smp_t *smp, json_t *original,
    const gcp_str_t *key, json_t *v)
{
    int      keep;
    json_t  *r;

    gcp_smp_discard_nulls(smp, v);

    r = gcp_smp_remove_directives(smp, v, &keep);
    if (r == NULL) {
        return smp->rc;
    }

    return keep ? gcp_smp_set(smp, original, key, r)
                : gcp_smp_del(smp, original, key);
}


/* ----------------------------------------------------------- Go slices */


/* Returns a slice viewing the elements of a JSON array (cap == len). */
static int
gcp_smp_slice(gcp_smp_t *smp, const json_t *arr, gcp_smp_slice_t *s)
{
    size_t  i, n;

    n = json_array_size(arr);

    s->len = n;
    s->cap = n;
    s->v = gcp_alloc(smp->arena, (n + 1) * sizeof(json_t *));
    if (s->v == NULL) {
        return gcp_smp_nomem(smp);
    }

    for (i = 0; i < n; i++) {
        s->v[i] = json_array_get(arr, i);
    }

    return GCP_OK;
}


/*
 * Go's s = append(s, e[0..n)): in place while the capacity allows (other
 * headers sharing the backing array see the writes), else into a new
 * backing array.  The exact capacity Go would pick after growing cannot be
 * observed: nothing else shares a grown array.
 */
static int
gcp_smp_append(gcp_smp_t *smp, gcp_smp_slice_t *s, json_t *const *e,
    size_t n)
{
    size_t    cap;
    json_t  **v;

    if (n == 0) {
        return GCP_OK;
    }

    if (s->len + n <= s->cap) {
        memmove(s->v + s->len, e, n * sizeof(json_t *));
        s->len += n;
        return GCP_OK;
    }

    cap = gcp_max(s->cap * 2, s->len + n);

    v = gcp_alloc(smp->arena, cap * sizeof(json_t *));
    if (v == NULL) {
        return gcp_smp_nomem(smp);
    }

    if (s->len) {
        memcpy(v, s->v, s->len * sizeof(json_t *));
    }

    memcpy(v + s->len, e, n * sizeof(json_t *));

    s->v = v;
    s->len += n;
    s->cap = cap;

    return GCP_OK;
}


/* Returns a new JSON array of the slice's elements (borrowed), or NULL. */
static json_t *
gcp_smp_slice_json(gcp_smp_t *smp, const gcp_smp_slice_t *s)
{
    size_t   i;
    json_t  *arr;

    arr = gcp_smp_new(smp, json_array());
    if (arr == NULL) {
        return NULL;
    }

    for (i = 0; i < s->len; i++) {
        if (json_array_append(arr, s->v[i]) != 0) {
            gcp_smp_nomem(smp);
            return NULL;
        }
    }

    return arr;
}


/*
 * upstream sliceElementType(): the common Go type of the elements of the
 * n slices.  Returns it, or -1 with the error set.
 */
static int
gcp_smp_element_type(gcp_smp_t *smp, const gcp_smp_slice_t *slices, int n)
{
    int             i, k, t;
    size_t          j;
    gcp_buf_t       b;
    gcp_smp_type_t  cur;

    t = -1;

    for (i = 0; i < n; i++) {
        for (j = 0; j < slices[i].len; j++) {
            cur = gcp_smp_type(slices[i].v[j]);

            if (t == -1) {
                if (cur == GCP_SMP_SLICE) {
                    /* mergepatch.ErrNoListOfLists, a 422 upstream */
                    gcp_smp_fail(smp, GCP_EINVALID, "%s", GCP_PATCH_REJECTED);
                    return -1;
                }

                if (cur == GCP_SMP_NIL) {
                    /* upstream dereferences a nil reflect.Type here */
                    gcp_smp_fail(smp, GCP_EINTERNAL, "runtime error: "
                                 "invalid memory address or nil pointer "
                                 "dereference");
                    return -1;
                }

                t = (int) cur;

            } else if ((int) cur != t) {
                gcp_buf_init(&b, smp->arena);
                gcp_buf_addc(&b, '[');

                for (k = 0; k < n; k++) {
                    if (k > 0) {
                        gcp_buf_addc(&b, ' ');
                    }

                    gcp_smp_fmt_slice(&b, &slices[k]);
                }

                gcp_buf_addc(&b, ']');

                gcp_smp_fail(smp, GCP_EINTERNAL, "list element types are "
                             "not identical: %s", gcp_buf_cstr(&b));
                return -1;
            }
        }
    }

    if (t == -1) {
        gcp_smp_fail(smp, GCP_EINTERNAL, "no elements in any of the given "
                     "slices");
    }

    return t;
}


/*
 * upstream findMapInSliceBasedOnKeyValue(): the first map of s whose key
 * is present and equal to value.  Returns 1 and *idx, 0 when none, or -1
 * with the error set when a non-map is met first.
 */
static int
gcp_smp_find_map(gcp_smp_t *smp, const gcp_smp_slice_t *s, const char *key,
    const json_t *value, size_t *idx)
{
    size_t   i;
    json_t  *v;

    for (i = 0; i < s->len; i++) {
        if (!json_is_object(s->v[i])) {
            gcp_smp_fail(smp, GCP_EINTERNAL, "value for key %zu is not a "
                         "map", i);
            return -1;
        }

        v = json_object_get(s->v[i], key);

        if (v != NULL && gcp_smp_eq(v, value)) {
            *idx = i;
            return 1;
        }
    }

    return 0;
}


/* ---------------------------------------------------------------- order */


/* The value index() compares: the merge key's value for maps. */
static const json_t *
gcp_smp_index_key(const gcp_smp_index_t *ix, const json_t *v)
{
    if (!ix->maps) {
        return json_is_null(v) ? NULL : v;
    }

    v = json_is_object(v) ? json_object_get(v, ix->merge_key) : NULL;

    return json_is_null(v) ? NULL : v;
}


static uint64_t
gcp_smp_hash(const json_t *v)
{
    size_t       i;
    double       d;
    uint64_t     h, u;
    const char  *s;

    h = 0x9e3779b97f4a7c15ULL * (uint64_t) (gcp_smp_type(v) + 1);

    switch (gcp_smp_type(v)) {

    case GCP_SMP_STRING:
        s = json_string_value(v);
        for (i = 0; i < json_string_length(v); i++) {
            h = (h ^ (unsigned char) s[i]) * 0x100000001b3ULL;
        }
        break;

    case GCP_SMP_INT:
        h ^= (uint64_t) json_integer_value(v);
        break;

    case GCP_SMP_FLOAT:
        /* -0 == 0 */
        d = json_real_value(v) + 0.0;
        memcpy(&u, &d, sizeof(u));
        h ^= u;
        break;

    case GCP_SMP_BOOL:
        h ^= json_is_true(v);
        break;

    default:
        break;
    }

    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;

    return h;
}


#define gcp_smp_hashable(k)                                                   \
    (gcp_smp_type(k) != GCP_SMP_MAP && gcp_smp_type(k) != GCP_SMP_SLICE)


/*
 * Prepares index(list, v, mergeKey, kind) lookups: the first position of
 * each hashable value; maps and slices as values are looked up linearly.
 */
static int
gcp_smp_index_init(gcp_smp_t *smp, gcp_smp_index_t *ix,
    const gcp_smp_slice_t *list, const char *merge_key, int maps)
{
    size_t         i, h, size;
    const json_t  *k;

    ix->list = list;
    ix->merge_key = merge_key;
    ix->maps = maps;

    for (size = 8; size < list->len * 2; size *= 2) { /* void */ }

    ix->mask = size - 1;
    ix->slot = gcp_calloc(smp->arena, size * sizeof(size_t));
    if (ix->slot == NULL) {
        return gcp_smp_nomem(smp);
    }

    for (i = 0; i < list->len; i++) {
        k = gcp_smp_index_key(ix, list->v[i]);
        if (!gcp_smp_hashable(k)) {
            continue;
        }

        for (h = gcp_smp_hash(k) & ix->mask;
             ix->slot[h];
             h = (h + 1) & ix->mask)
        {
            if (gcp_smp_eq(k, gcp_smp_index_key(ix,
                                                list->v[ix->slot[h] - 1])))
            {
                break;
            }
        }

        if (ix->slot[h] == 0) {
            ix->slot[h] = i + 1;
        }
    }

    return GCP_OK;
}


/* upstream index(): the first position in the list matching v, or -1 */
static long
gcp_smp_index(const gcp_smp_index_t *ix, const json_t *v)
{
    size_t         i, h;
    const json_t  *k;

    k = gcp_smp_index_key(ix, v);

    if (!gcp_smp_hashable(k)) {
        for (i = 0; i < ix->list->len; i++) {
            if (gcp_smp_eq(k, gcp_smp_index_key(ix, ix->list->v[i]))) {
                return (long) i;
            }
        }

        return -1;
    }

    for (h = gcp_smp_hash(k) & ix->mask; ix->slot[h]; h = (h + 1) & ix->mask)
    {
        if (gcp_smp_eq(k, gcp_smp_index_key(ix,
                                            ix->list->v[ix->slot[h] - 1])))
        {
            return (long) ix->slot[h] - 1;
        }
    }

    return -1;
}


/*
 * upstream extractToDeleteItems(): splits l into the elements without and
 * with "$patch": "delete".  Returns GCP_OK or an error.
 */
static int
gcp_smp_split_deletes(gcp_smp_t *smp, const gcp_smp_slice_t *l,
    gcp_smp_slice_t *keep, gcp_smp_slice_t *del)
{
    size_t   i;
    json_t  *d;
    int      rc;

    memset(keep, 0, sizeof(gcp_smp_slice_t));
    memset(del, 0, sizeof(gcp_smp_slice_t));

    for (i = 0; i < l->len; i++) {
        if (!json_is_object(l->v[i])) {
            return gcp_smp_bad_arg(smp, GCP_SMP_MAP, l->v[i]);
        }

        d = json_object_get(l->v[i], GCP_SMP_DIRECTIVE);

        if (gcp_smp_is(d, "delete")) {
            rc = gcp_smp_append(smp, del, &l->v[i], 1);

        } else {
            rc = gcp_smp_append(smp, keep, &l->v[i], 1);
        }

        if (rc != GCP_OK) {
            return rc;
        }
    }

    return GCP_OK;
}


/* upstream validateMergeKeyInLists() */
static int
gcp_smp_check_merge_keys(gcp_smp_t *smp, const char *merge_key,
    const gcp_smp_slice_t *l)
{
    size_t  i;

    for (i = 0; i < l->len; i++) {
        if (!json_is_object(l->v[i])) {
            return gcp_smp_bad_arg(smp, GCP_SMP_MAP, l->v[i]);
        }

        if (json_object_get(l->v[i], merge_key) == NULL) {
            return gcp_smp_no_merge_key(smp, l->v[i], merge_key);
        }
    }

    return GCP_OK;
}


/* upstream normalizeSliceOrder(): sorts *s by its order in order. */
static int
gcp_smp_sort_by(gcp_smp_t *smp, gcp_smp_slice_t *s,
    const gcp_smp_slice_t *order, const char *merge_key, int maps)
{
    int               rc;
    size_t            i;
    gcp_smp_item_t   *d;
    gcp_smp_index_t   ix;
    gcp_smp_slice_t   keep, del;

    memset(&del, 0, sizeof(gcp_smp_slice_t));

    if (maps) {
        rc = gcp_smp_check_merge_keys(smp, merge_key, s);
        if (rc == GCP_OK) {
            rc = gcp_smp_check_merge_keys(smp, merge_key, order);
        }

        if (rc == GCP_OK) {
            rc = gcp_smp_split_deletes(smp, s, &keep, &del);
        }

        if (rc != GCP_OK) {
            return rc;
        }

        *s = keep;
    }

    if (gcp_smp_index_init(smp, &ix, order, merge_key, maps) != GCP_OK) {
        return smp->rc;
    }

    d = gcp_alloc(smp->arena, (s->len + 1) * sizeof(gcp_smp_item_t));
    if (d == NULL) {
        return gcp_smp_nomem(smp);
    }

    for (i = 0; i < s->len; i++) {
        d[i].v = s->v[i];
        d[i].idx = gcp_smp_index(&ix, s->v[i]);
    }

    gcp_smp_stable(d, (long) s->len);

    for (i = 0; i < s->len; i++) {
        s->v[i] = d[i].v;
    }

    return gcp_smp_append(smp, s, del.v, del.len);
}


/*
 * upstream normalizeElementOrder(): sorts the patch items by patch_order
 * and the server-only items by server_order, then interleaves them
 * (mergeSortedSlice): a server-only item goes before a patch item when
 * both are in server_order and it comes first there.
 */
static int
gcp_smp_normalize(gcp_smp_t *smp, gcp_smp_slice_t patch,
    gcp_smp_slice_t server, const gcp_smp_slice_t *patch_order,
    const gcp_smp_slice_t *server_order, const char *merge_key, int maps,
    gcp_smp_slice_t *out)
{
    long              li, ri;
    size_t            i, j;
    gcp_smp_index_t   ix;

    if (gcp_smp_sort_by(smp, &patch, patch_order, merge_key, maps) != GCP_OK
        || gcp_smp_sort_by(smp, &server, server_order, merge_key, maps)
           != GCP_OK
        || gcp_smp_index_init(smp, &ix, server_order, merge_key, maps)
           != GCP_OK)
    {
        return smp->rc;
    }

    memset(out, 0, sizeof(gcp_smp_slice_t));

    i = 0;
    j = 0;

    while (i < server.len && j < patch.len) {
        li = gcp_smp_index(&ix, server.v[i]);
        ri = gcp_smp_index(&ix, patch.v[j]);

        if (li >= 0 && ri >= 0 && li < ri) {
            if (gcp_smp_append(smp, out, &server.v[i++], 1) != GCP_OK) {
                return smp->rc;
            }

        } else if (gcp_smp_append(smp, out, &patch.v[j++], 1) != GCP_OK) {
            return smp->rc;
        }
    }

    /* an empty slice has no items (v is NULL): no arithmetic on it */

    if ((i < server.len
         && gcp_smp_append(smp, out, &server.v[i], server.len - i) != GCP_OK)
        || (j < patch.len
            && gcp_smp_append(smp, out, &patch.v[j], patch.len - j)
               != GCP_OK))
    {
        return smp->rc;
    }

    /* never a nil slice: the result is a list, even if empty */
    if (out->v == NULL) {
        out->v = gcp_alloc(smp->arena, sizeof(json_t *));
        if (out->v == NULL) {
            return gcp_smp_nomem(smp);
        }
    }

    return GCP_OK;
}


/*
 * upstream partitionPrimitivesByPresentInList() and
 * partitionMapsByPresentInList(): the items of merged present in by (by
 * value, or by merge key), and the others.
 */
static int
gcp_smp_partition(gcp_smp_t *smp, const gcp_smp_slice_t *merged,
    const gcp_smp_slice_t *by, const char *merge_key, gcp_smp_slice_t *in,
    gcp_smp_slice_t *out)
{
    int               found, rc;
    size_t            i, idx;
    json_t           *mv;
    gcp_smp_index_t   ix;

    memset(in, 0, sizeof(gcp_smp_slice_t));
    memset(out, 0, sizeof(gcp_smp_slice_t));

    if (merge_key[0] == '\0'
        && gcp_smp_index_init(smp, &ix, by, "", 0) != GCP_OK)
    {
        return smp->rc;
    }

    for (i = 0; i < merged->len; i++) {

        if (merge_key[0] == '\0') {
            found = gcp_smp_index(&ix, merged->v[i]) >= 0;

        } else {
            if (!json_is_object(merged->v[i])) {
                return gcp_smp_bad_arg(smp, GCP_SMP_MAP, merged->v[i]);
            }

            mv = json_object_get(merged->v[i], merge_key);
            if (mv == NULL) {
                return gcp_smp_no_merge_key(smp, merged->v[i], merge_key);
            }

            found = gcp_smp_find_map(smp, by, merge_key, mv, &idx);
            if (found < 0) {
                return smp->rc;
            }
        }

        rc = gcp_smp_append(smp, found ? in : out, &merged->v[i], 1);
        if (rc != GCP_OK) {
            return rc;
        }
    }

    return GCP_OK;
}


/* ---------------------------------------------------------------- lists */


/* upstream deduplicateScalars(), in place, with its order effects */
static void
gcp_smp_dedup(gcp_smp_slice_t *s)
{
    long  i, j, length;

    length = (long) s->len - 1;

    for (i = 0; i < length; i++) {
        for (j = i + 1; j <= length; j++) {
            if (gcp_smp_eq(s->v[i], s->v[j])) {
                s->v[j] = s->v[length];
                s->len = (size_t) length;
                length--;
                j--;
            }
        }
    }
}


/* upstream deleteFromSlice(): a new slice without the values to delete */
static int
gcp_smp_delete_from(gcp_smp_t *smp, const gcp_smp_slice_t *cur,
    const gcp_smp_slice_t *del, gcp_smp_slice_t *out)
{
    size_t           i;
    gcp_smp_index_t  ix;

    if (gcp_smp_index_init(smp, &ix, del, "", 0) != GCP_OK) {
        return smp->rc;
    }

    out->len = 0;
    out->cap = cur->len;
    out->v = gcp_alloc(smp->arena, (cur->len + 1) * sizeof(json_t *));
    if (out->v == NULL) {
        return gcp_smp_nomem(smp);
    }

    for (i = 0; i < cur->len; i++) {
        if (gcp_smp_index(&ix, cur->v[i]) < 0) {
            out->v[out->len++] = cur->v[i];
        }
    }

    return GCP_OK;
}


/*
 * upstream mergeSliceWithSpecialElements(): applies the "$patch" elements
 * of a list of maps.  "delete" removes the live entries with that merge key
 * value, shifting *original in place; "replace" makes the other patch
 * elements the whole list.  *patch keeps the elements without directive.
 */
static int
gcp_smp_special_elements(gcp_smp_t *smp, gcp_smp_slice_t *original,
    gcp_smp_slice_t *patch, const char *merge_key)
{
    int               replace, found;
    size_t            i, idx;
    json_t           *v, *d, *mv;
    gcp_smp_slice_t   rest, head;

    replace = 0;
    memset(&rest, 0, sizeof(gcp_smp_slice_t));

    for (i = 0; i < patch->len; i++) {
        v = patch->v[i];
        d = json_object_get(v, GCP_SMP_DIRECTIVE);

        if (d == NULL) {
            if (gcp_smp_append(smp, &rest, &v, 1) != GCP_OK) {
                return smp->rc;
            }

            continue;
        }

        if (gcp_smp_is(d, "delete")) {
            mv = json_object_get(v, merge_key);
            if (mv == NULL) {
                return gcp_smp_no_merge_key(smp, v, merge_key);
            }

            for ( ;; ) {
                found = gcp_smp_find_map(smp, original, merge_key, mv, &idx);
                if (found < 0) {
                    return smp->rc;
                }

                if (!found) {
                    break;
                }

                /* original = append(original[:idx], original[idx+1:]...) */
                head = *original;
                head.len = idx;

                if (gcp_smp_append(smp, &head, original->v + idx + 1,
                                   original->len - idx - 1)
                    != GCP_OK)
                {
                    return smp->rc;
                }

                *original = head;
            }

        } else if (gcp_smp_is(d, "replace")) {
            /* the other directive elements are still pruned */
            replace = 1;

        } else if (gcp_smp_is(d, "merge")) {
            return gcp_smp_fail(smp, GCP_EINTERNAL, "merging lists cannot "
                                "yet be specified in the patch");

        } else {
            return gcp_smp_bad_patch_type(smp, d, v);
        }
    }

    if (replace) {
        *original = rest;
        memset(patch, 0, sizeof(gcp_smp_slice_t));
        return GCP_OK;
    }

    *patch = rest;

    return GCP_OK;
}


/*
 * upstream mergeSliceWithoutSpecialElements(): merges each patch map into
 * the live map with the same merge key value, or appends it.
 */
static int
gcp_smp_merge_elements(gcp_smp_t *smp, gcp_smp_slice_t original,
    const gcp_smp_slice_t *patch, const char *merge_key,
    const json_t *schema, gcp_smp_slice_t *out)
{
    int      found;
    size_t   i, idx;
    json_t  *v, *mv, *r;

    for (i = 0; i < patch->len; i++) {
        v = patch->v[i];

        mv = json_object_get(v, merge_key);
        if (mv == NULL) {
            return gcp_smp_no_merge_key(smp, v, merge_key);
        }

        found = gcp_smp_find_map(smp, &original, merge_key, mv, &idx);
        if (found < 0) {
            return smp->rc;
        }

        if (found) {
            r = gcp_smp_merge_map(smp, original.v[idx], v, schema);
            if (r == NULL) {
                return smp->rc;
            }

            original.v[idx] = r;

        } else if (gcp_smp_append(smp, &original, &v, 1) != GCP_OK) {
            return smp->rc;
        }
    }

    *out = original;

    return GCP_OK;
}


/* upstream mergeSlice() */
static int
gcp_smp_merge_slice(gcp_smp_t *smp, gcp_smp_slice_t original,
    gcp_smp_slice_t patch, const json_t *schema, const char *merge_key,
    int delete_list, gcp_smp_slice_t *out)
{
    int              kind, maps;
    gcp_smp_slice_t  both, merged, in, rest, lists[2];

    if (original.len == 0 && patch.len == 0) {
        *out = original;
        return GCP_OK;
    }

    if (original.len + patch.len > GCP_PATCH_MAX_MERGE_LIST) {
        return gcp_smp_fail(smp, GCP_ETOOLARGE, "a merged list may have at "
                            "most %d items, got %zu", GCP_PATCH_MAX_MERGE_LIST,
                            original.len + patch.len);
    }

    lists[0] = original;
    lists[1] = patch;

    kind = gcp_smp_element_type(smp, lists, 2);
    if (kind < 0) {
        return smp->rc;
    }

    maps = (kind == GCP_SMP_MAP);

    if (!maps) {
        if (delete_list) {
            return gcp_smp_delete_from(smp, &original, &patch, out);
        }

        /* both := append(original, patch...), deduplicated in place */
        both = original;
        if (gcp_smp_append(smp, &both, patch.v, patch.len) != GCP_OK) {
            return smp->rc;
        }

        gcp_smp_dedup(&both);
        merged = both;

    } else {
        if (merge_key[0] == '\0') {
            return gcp_smp_fail(smp, GCP_EINTERNAL, "cannot merge lists "
                                "without merge key for struct");
        }

        if (gcp_smp_special_elements(smp, &original, &patch, merge_key)
            != GCP_OK
            || gcp_smp_merge_elements(smp, original, &patch, merge_key,
                                      schema, &merged)
               != GCP_OK)
        {
            return smp->rc;
        }
    }

    if (gcp_smp_partition(smp, &merged, &patch, merge_key, &in, &rest)
        != GCP_OK)
    {
        return smp->rc;
    }

    return gcp_smp_normalize(smp, in, rest, &patch, &original, merge_key,
                             maps, out);
}


/* upstream mergeSliceHandler() */
static int
gcp_smp_merge_slice_handler(gcp_smp_t *smp, gcp_smp_slice_t original,
    gcp_smp_slice_t patch, const gcp_smp_meta_t *m, int delete_list,
    gcp_smp_slice_t *out)
{
    /* delete lists apply whatever the field's strategy */
    if (strcmp(m->strategy, "merge") == 0 || delete_list) {
        return gcp_smp_merge_slice(smp, original, patch, m->schema,
                                   m->merge_key, delete_list, out);
    }

    *out = patch;

    return GCP_OK;
}


/* -------------------------------------------------------------- schema */


/*
 * The patch metadata of field key of a map (slice 0) or list (slice 1)
 * field: x-kubernetes-patch-strategy without "retainKeys", merge key and
 * the schema to descend with.  Returns GCP_OK or an error.
 */
static int
gcp_smp_lookup(gcp_smp_t *smp, const json_t *schema, const gcp_str_t *key,
    int slice, gcp_smp_meta_t *m)
{
    int            n;
    char          *s, *part[3], *comma;
    const char    *strategies, *mk;
    const json_t  *prop;

    /* no field name of a schema holds a NUL */
    prop = strlen(key->data) == key->len
           ? gcp_schema_property(smp->set, schema, key->data) : NULL;

    strategies = gcp_schema_ext(smp->set, prop,
                                "x-kubernetes-patch-strategy");
    mk = gcp_schema_ext(smp->set, prop, "x-kubernetes-patch-merge-key");

    m->schema = slice ? gcp_schema_items(smp->set, prop) : prop;
    m->merge_key = mk ? mk : "";
    m->strategy = "";

    if (strategies == NULL) {
        return GCP_OK;
    }

    /* strings.Split(tag, ","), then extractRetainKeysPatchStrategy() */

    s = gcp_strdup(smp->arena, strategies);
    if (s == NULL) {
        return gcp_smp_nomem(smp);
    }

    for (n = 0; n < 3 && s != NULL; n++) {
        part[n] = s;
        comma = strchr(s, ',');

        if (comma != NULL) {
            *comma = '\0';
            s = comma + 1;

        } else {
            s = NULL;
        }
    }

    if (n == 1) {
        m->strategy = strcmp(part[0], "retainKeys") == 0 ? "" : part[0];
        return GCP_OK;
    }

    if (n == 2 && strcmp(part[0], "retainKeys") == 0) {
        m->strategy = part[1];
        return GCP_OK;
    }

    if (n == 2 && strcmp(part[1], "retainKeys") == 0) {
        m->strategy = part[0];
        return GCP_OK;
    }

    /* %v of the []string */
    s = gcp_strdup(smp->arena, strategies);
    if (s == NULL) {
        return gcp_smp_nomem(smp);
    }

    for (comma = s; *comma; comma++) {
        if (*comma == ',') {
            *comma = ' ';
        }
    }

    return gcp_smp_fail(smp, GCP_EINTERNAL, "unexpected patch strategy: [%s]",
                        s);
}


/* ----------------------------------------------------------- directives */


/*
 * upstream validatePatchWithSetOrderList(): the patch list's elements (but
 * deletions and directive maps) must appear in the order list, in order.
 */
static int
gcp_smp_check_order(gcp_smp_t *smp, const gcp_smp_slice_t *patch,
    const gcp_smp_slice_t *order, const char *merge_key)
{
    int               eq;
    size_t            pi, oi;
    json_t           *l, *r, *lv, *rv;
    gcp_buf_t         b;
    gcp_smp_slice_t   keep, del;

    if (order->len == 0 || patch->len == 0) {
        return GCP_OK;
    }

    keep = *patch;

    if (merge_key[0] != '\0'
        && gcp_smp_split_deletes(smp, patch, &keep, &del) != GCP_OK)
    {
        return smp->rc;
    }

    pi = 0;
    oi = 0;

    while (pi < keep.len && oi < order->len) {
        l = keep.v[pi];
        r = order->v[oi];

        if (json_is_object(l)
            && json_object_get(l, GCP_SMP_DIRECTIVE) != NULL)
        {
            pi++;
            continue;
        }

        /* mergeKeyValueEqual() */

        if (merge_key[0] == '\0') {
            eq = gcp_smp_eq(l, r);

        } else {
            if (!json_is_object(l)) {
                return gcp_smp_bad_arg(smp, GCP_SMP_MAP, l);
            }

            if (!json_is_object(r)) {
                return gcp_smp_bad_arg(smp, GCP_SMP_MAP, r);
            }

            lv = json_object_get(l, merge_key);
            if (lv == NULL) {
                return gcp_smp_no_merge_key(smp, l, merge_key);
            }

            rv = json_object_get(r, merge_key);
            if (rv == NULL) {
                return gcp_smp_no_merge_key(smp, r, merge_key);
            }

            eq = gcp_smp_eq(lv, rv);
        }

        if (eq) {
            pi++;
        }

        oi++;
    }

    if (pi < keep.len && oi >= order->len) {
        gcp_buf_init(&b, smp->arena);
        gcp_buf_addstr(&b, "the order in patch list:\n");
        gcp_smp_fmt_slice(&b, patch);
        gcp_buf_addstr(&b, "\n doesn't match " GCP_SMP_ORDER_PREFIX
                       " list:\n");
        gcp_smp_fmt_slice(&b, order);

        return gcp_smp_fail(smp, GCP_EINTERNAL, "%s", gcp_buf_cstr(&b));
    }

    return GCP_OK;
}


/*
 * upstream mergePatchIntoOriginal(): merges each list that has a
 * "$setElementOrder/<field>" directive and puts it in that order.
 */
static GCP_SMP_NOINLINE int
gcp_smp_set_element_order(gcp_smp_t *smp, json_t *original, json_t *patch,
    const json_t *schema)
{
    int               found_o, found_p, kind, keep;
    json_t           *order, *ol, *pl, *r;
    gcp_str_t        *key, okey, *keys;
    gcp_smp_meta_t    m;
    gcp_smp_slice_t   ofv, pfv, sol, merged, in, rest, both, lists[2];

    keys = gcp_smp_keys(smp, patch);
    if (keys == NULL) {
        return smp->rc;
    }

    for (key = keys; key->data != NULL; key++) {

        if (!gcp_smp_has_prefix(key, GCP_SMP_ORDER_PREFIX)) {
            continue;
        }

        order = gcp_smp_get(patch, key);
        if (gcp_smp_del(smp, patch, key) != GCP_OK) {
            return smp->rc;
        }

        if (!json_is_array(order)) {
            return gcp_smp_bad_arg(smp, GCP_SMP_SLICE, order);
        }

        if (gcp_smp_extract_key(smp, key, GCP_SMP_ORDER_PREFIX,
                                GCP_SMP_ERR_ORDER, &okey)
            != GCP_OK)
        {
            return smp->rc;
        }

        ol = gcp_smp_get(original, &okey);
        pl = gcp_smp_get(patch, &okey);
        found_o = (ol != NULL);
        found_p = (pl != NULL);

        if (found_o && !json_is_array(ol)) {
            return gcp_smp_bad_arg(smp, GCP_SMP_SLICE, ol);
        }

        if (found_p && !json_is_array(pl)) {
            return gcp_smp_bad_arg(smp, GCP_SMP_SLICE, pl);
        }

        memset(&ofv, 0, sizeof(gcp_smp_slice_t));
        memset(&pfv, 0, sizeof(gcp_smp_slice_t));

        if ((found_o && gcp_smp_slice(smp, ol, &ofv) != GCP_OK)
            || (found_p && gcp_smp_slice(smp, pl, &pfv) != GCP_OK)
            || gcp_smp_slice(smp, order, &sol) != GCP_OK
            || gcp_smp_lookup(smp, schema, &okey, 1, &m) != GCP_OK)
        {
            return smp->rc;
        }

        if (ofv.len + pfv.len + sol.len > GCP_PATCH_MAX_MERGE_LIST) {
            return gcp_smp_fail(smp, GCP_ETOOLARGE, "a merged list may have "
                                "at most %d items, got %zu",
                                GCP_PATCH_MAX_MERGE_LIST,
                                ofv.len + pfv.len + sol.len);
        }

        if (gcp_smp_check_order(smp, &pfv, &sol, m.merge_key) != GCP_OK) {
            return smp->rc;
        }

        if (found_o && !found_p) {
            merged = ofv;

        } else if (!found_o && found_p) {
            r = gcp_smp_remove_directives(smp, pl, &keep);
            if (r == NULL || gcp_smp_slice(smp, r, &merged) != GCP_OK) {
                return smp->rc;
            }

        } else if (found_o && found_p) {
            /* ofv and the slice merged share the backing array */
            if (gcp_smp_merge_slice_handler(smp, ofv, pfv, &m, 0, &merged)
                != GCP_OK)
            {
                return smp->rc;
            }

        } else {
            continue;
        }

        if (gcp_smp_partition(smp, &merged, &sol, m.merge_key, &in, &rest)
            != GCP_OK)
        {
            return smp->rc;
        }

        lists[0] = ofv;
        lists[1] = pfv;

        kind = gcp_smp_element_type(smp, lists, 2);
        if (kind < 0) {
            return smp->rc;
        }

        if (gcp_smp_normalize(smp, in, rest, &sol, &ofv, m.merge_key,
                              kind == GCP_SMP_MAP, &both)
            != GCP_OK)
        {
            return smp->rc;
        }

        r = gcp_smp_slice_json(smp, &both);

        if (r == NULL
            || gcp_smp_set(smp, original, &okey, r) != GCP_OK
            || gcp_smp_del(smp, patch, &okey) != GCP_OK)
        {
            return smp->rc;
        }
    }

    return GCP_OK;
}


/*
 * upstream applyRetainKeysDirective(): "$retainKeys" lists the keys to
 * keep in original; every key the patch sets must be in it.
 */
static GCP_SMP_NOINLINE int
gcp_smp_retain_keys(gcp_smp_t *smp, json_t *original, json_t *patch)
{
    void        *tmp;
    size_t       klen;
    json_t      *list, *v;
    gcp_str_t    k;
    const char  *key;

    list = json_object_get(patch, GCP_SMP_RETAIN_KEYS);
    if (list == NULL) {
        return GCP_OK;
    }

    if (!gcp_smp_keep(smp, list)) {
        return gcp_smp_nomem(smp);
    }

    json_object_del(patch, GCP_SMP_RETAIN_KEYS);

    if (!json_is_array(list)) {
        return gcp_smp_fail(smp, GCP_EBADREQUEST, "%s", GCP_SMP_ERR_RETAIN);
    }

    json_object_keylen_foreach(patch, key, klen, v) {
        k.data = key;
        k.len = klen;

        if (json_is_null(v)
            || gcp_smp_has_prefix(&k, GCP_SMP_DELETE_PREFIX)
            || gcp_smp_has_prefix(&k, GCP_SMP_ORDER_PREFIX))
        {
            continue;
        }

        if (!gcp_smp_listed(list, key, klen)) {
            return gcp_smp_fail(smp, GCP_EBADREQUEST, "%s",
                                GCP_SMP_ERR_RETAIN);
        }
    }

    json_object_keylen_foreach_safe(original, tmp, key, klen, v) {
        if (!gcp_smp_listed(list, key, klen)) {
            if (!gcp_smp_keep(smp, v)) {
                return gcp_smp_nomem(smp);
            }

            json_object_deln(original, key, klen);
        }
    }

    return GCP_OK;
}


/* ----------------------------------------------------------------- maps */


/* upstream handleDirectiveInMergeMap() */
static json_t *
gcp_smp_map_directive(gcp_smp_t *smp, json_t *directive, json_t *patch)
{
    if (gcp_smp_is(directive, "replace")) {
        /* the patch map itself, as it is */
        if (!gcp_smp_keep(smp, directive)) {
            gcp_smp_nomem(smp);
            return NULL;
        }

        json_object_del(patch, GCP_SMP_DIRECTIVE);

        return patch;
    }

    if (gcp_smp_is(directive, "delete")) {
        return gcp_smp_new(smp, json_object());
    }

    gcp_smp_bad_patch_type(smp, directive, patch);

    return NULL;
}


/*
 * The merge of a list field of both original and patch (the slice case of
 * upstream mergeMap()), out of line so that the recursion through maps
 * keeps small stack frames.  Returns the merged list (borrowed), or NULL
 * with the error set.
 */
static GCP_SMP_NOINLINE json_t *
gcp_smp_merge_field_list(gcp_smp_t *smp, const json_t *schema,
    const gcp_str_t *key, json_t *cur, json_t *pv, int delete_list)
{
    gcp_smp_meta_t   m;
    gcp_smp_slice_t  os, ps, res;

    if (gcp_smp_lookup(smp, schema, key, 1, &m) != GCP_OK
        || gcp_smp_slice(smp, cur, &os) != GCP_OK
        || gcp_smp_slice(smp, pv, &ps) != GCP_OK
        || gcp_smp_merge_slice_handler(smp, os, ps, &m, delete_list, &res)
           != GCP_OK)
    {
        return NULL;
    }

    return gcp_smp_slice_json(smp, &res);
}


/* The same for a map field: merged, or the patch's for "replace". */
static GCP_SMP_NOINLINE json_t *
gcp_smp_merge_field_map(gcp_smp_t *smp, const json_t *schema,
    const gcp_str_t *key, json_t *cur, json_t *pv)
{
    gcp_smp_meta_t  m;

    if (gcp_smp_lookup(smp, schema, key, 0, &m) != GCP_OK) {
        return NULL;
    }

    if (strcmp(m.strategy, "replace") == 0) {
        return pv;
    }

    return gcp_smp_merge_map(smp, cur, pv, m.schema);
}


/*
 * Merges the patch member *key into original (one turn of upstream
 * mergeMap()'s loop).  key is the arena copy of the patch key; it is
 * rewritten to the list's name for "$deleteFromPrimitiveList/<list>".
 * Returns GCP_OK or an error.
 */
static int
gcp_smp_merge_field(gcp_smp_t *smp, json_t *original, json_t *patch,
    const json_t *schema, gcp_str_t *key)
{
    int      delete_list;
    size_t   n;
    json_t  *pv, *cur, *r;

    pv = gcp_smp_get(patch, key);
    delete_list = 0;

    if (gcp_smp_has_prefix(key, GCP_SMP_DELETE_PREFIX)) {
        n = sizeof(GCP_SMP_DELETE_PREFIX) - 1;

        /* extractKey() */
        if (key->len == n || key->data[n] != '/') {
            return gcp_smp_fail(smp, GCP_EBADREQUEST, "%s",
                                GCP_SMP_ERR_PRIMITIVE);
        }

        delete_list = 1;

        /* an empty name keeps the whole key, as upstream */
        if (key->len > n + 1) {
            key->data += n + 1;
            key->len -= n + 1;
        }
    }

    /* null deletes; the null of a deletion list deletes the list */

    if (json_is_null(pv)) {
        return gcp_smp_del(smp, original, key);
    }

    cur = gcp_smp_get(original, key);

    if (cur == NULL || gcp_smp_type(cur) != gcp_smp_type(pv)) {
        return delete_list
               ? GCP_OK : gcp_smp_take_patch_value(smp, original, key, pv);
    }

    switch (gcp_smp_type(cur)) {

    case GCP_SMP_MAP:
        r = gcp_smp_merge_field_map(smp, schema, key, cur, pv);
        break;

    case GCP_SMP_SLICE:
        r = gcp_smp_merge_field_list(smp, schema, key, cur, pv, delete_list);
        break;

    default:
        r = pv;
        break;
    }

    if (r == NULL) {
        return smp->rc;
    }

    return gcp_smp_set(smp, original, key, r);
}


/*
 * upstream mergeMap(): merges patch into original (NULL: an empty map),
 * in place.  Returns the merged map (original, or another map for a
 * "$patch" directive; borrowed), or NULL with the error set.
 */
static json_t *
gcp_smp_merge_map(gcp_smp_t *smp, json_t *original, json_t *patch,
    const json_t *schema)
{
    json_t     *directive;
    gcp_str_t  *key;

    directive = json_object_get(patch, GCP_SMP_DIRECTIVE);
    if (directive != NULL) {
        return gcp_smp_map_directive(smp, directive, patch);
    }

    if (original == NULL) {
        original = gcp_smp_new(smp, json_object());
        if (original == NULL) {
            return NULL;
        }
    }

    if (gcp_smp_retain_keys(smp, original, patch) != GCP_OK
        || gcp_smp_set_element_order(smp, original, patch, schema) != GCP_OK)
    {
        return NULL;
    }

    key = gcp_smp_keys(smp, patch);
    if (key == NULL) {
        return NULL;
    }

    for ( /* void */ ; key->data != NULL; key++) {
        if (gcp_smp_merge_field(smp, original, patch, schema, key)
            != GCP_OK)
        {
            return NULL;
        }
    }

    return original;
}


/* ---------------------------------------------------------------- entry */


int
gcp_patch_strategic(gcp_arena_t *a, const gcp_schema_set_t *set,
    const json_t *schema, const json_t *doc, const char *patch, size_t len,
    json_t **out, const char **msg)
{
    int         rc;
    json_t     *p, *root, *res;
    gcp_smp_t   smp;

    *out = NULL;

    rc = gcp_patch_parse(a, patch, len, &p, msg);
    if (rc != GCP_OK) {
        return rc;
    }

    if (!json_is_object(p) && !json_is_null(p)) {
        *msg = gcp_sprintf(a, "json: cannot unmarshal %s into Go value of "
                           "type map[string]interface {}",
                           gcp_json_go_kind(p));
        json_decref(p);
        return *msg ? GCP_EBADREQUEST : GCP_ENOMEM;
    }

    if (!json_is_object(doc)) {
        json_decref(p);
        *msg = "invalid JSON document";
        return GCP_EINTERNAL;
    }

    root = gcp_json_deep_copy(doc);

    memset(&smp, 0, sizeof(gcp_smp_t));
    smp.arena = a;
    smp.set = set;
    smp.keep = json_array();

    if (root == NULL || smp.keep == NULL) {
        res = NULL;
        gcp_smp_nomem(&smp);

    } else if (json_is_null(p)) {
        /* a nil patch map changes nothing */
        res = root;

    } else {
        res = gcp_smp_merge_map(&smp, root, p, schema);
    }

    json_incref(res);
    json_decref(smp.keep);
    json_decref(root);
    json_decref(p);

    if (res == NULL) {
        *msg = smp.msg;
        return smp.rc;
    }

    if (!gcp_patch_unshare(res)) {
        json_decref(res);
        *msg = "out of memory";
        return GCP_ENOMEM;
    }

    *out = res;

    return GCP_OK;
}
