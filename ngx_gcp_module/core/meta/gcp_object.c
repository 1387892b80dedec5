
/*
 * Objects as stored and as served (see gcp_object.h).
 */

#include <errno.h>
#include <stdlib.h>

#include "gcp_json.h"
#include "gcp_object.h"


static gcp_str_t gcp_object_dump_stored(gcp_arena_t *a, json_t *c,
    int sorted);


static const char * const  gcp_meta_order[] = {
    "name", "generateName", "namespace", "selfLink", "uid",
    "resourceVersion", "generation", "creationTimestamp",
    "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
    "annotations", "ownerReferences", "finalizers", "managedFields", NULL
};


/*
 * Finds n in h[0..hlen).  The needles here begin with '"', the commonest
 * byte of JSON, so the search anchors on the needle's second byte.
 */

static const char *
gcp_memmem(const char *h, size_t hlen, const char *n)
{
    size_t       nlen;
    const char  *p, *end;

    nlen = strlen(n);

    if (nlen < 2 || nlen > hlen) {
        return NULL;
    }

    end = h + hlen - nlen;
    p = h;

    while (p <= end) {
        p = memchr(p + 1, n[1], (size_t) (end - p) + 1);

        if (p == NULL) {
            return NULL;
        }

        p--;

        if (p[0] == n[0] && memcmp(p + 2, n + 2, nlen - 2) == 0) {
            return p;
        }

        p++;
    }

    return NULL;
}


/* The bytes that end a run of a string's plain bytes. */
static const unsigned char  gcp_object_string_stop[256] = {
    ['"'] = 1, ['\\'] = 1
};


/*
 * Returns the closing quote of the string whose contents start at p, or
 * NULL past end (custom resources' managedFields are mostly short keys:
 * a table test per byte, four at a time).
 */

static const char *
gcp_object_string_end(const char *p, const char *end)
{
    const unsigned char  *u;

    for ( ;; ) {
        while (end - p >= 4) {
            u = (const unsigned char *) p;

            if (gcp_object_string_stop[u[0]]) {
                break;
            }

            if (gcp_object_string_stop[u[1]]) {
                p += 1;
                break;
            }

            if (gcp_object_string_stop[u[2]]) {
                p += 2;
                break;
            }

            if (gcp_object_string_stop[u[3]]) {
                p += 3;
                break;
            }

            p += 4;
        }

        while (p < end && !gcp_object_string_stop[(unsigned char) *p]) {
            p++;
        }

        if (p >= end) {
            return NULL;
        }

        if (*p == '"') {
            return p;
        }

        p += 2;                             /* an escape */
    }
}


/*
 * Skips the JSON value at p (stored bytes: valid, compact JSON); returns
 * the byte after it, or NULL past end.
 */

static const char *
gcp_object_skip(const char *p, const char *end)
{
    size_t  depth;

    depth = 0;

    while (p < end) {
        switch (*p) {

        case '"':
            p = gcp_object_string_end(p + 1, end);
            if (p == NULL) {
                return NULL;
            }

            p++;
            break;

        case '{':
        case '[':
            if (p + 1 < end && p[1] == (*p == '{' ? '}' : ']')) {
                p += 2;                     /* empty: {} or [] */
                break;
            }

            depth++;
            p++;
            continue;

        case '}':
        case ']':
            if (depth == 0) {
                return p;
            }

            depth--;
            p++;
            break;

        case ',':
            if (depth == 0) {
                return p;
            }

            p++;
            continue;

        default:
            p++;
        }

        if (depth == 0 && p < end && (*p == ',' || *p == '}' || *p == ']'))
        {
            return p;
        }
    }

    return NULL;
}


/*
 * In sorted metadata (p just after its '{'): where "resourceVersion"
 * goes, before the first member whose key sorts after it, or at the
 * closing brace.  NULL when the bytes are not in stored form.
 */

static const char *
gcp_object_sorted_rv_place(const char *p, const char *end)
{
    const char  *key, *q;
    size_t       klen;

    static const char  rv[] = "resourceVersion";

    while (p < end && *p == '"') {
        key = p + 1;
        q = memchr(key, '"', (size_t) (end - key));

        if (q == NULL || q + 1 >= end || q[1] != ':') {
            return NULL;
        }

        klen = (size_t) (q - key);

        if (memcmp(key, rv, gcp_min(klen, sizeof(rv) - 1)) > 0
            || (memcmp(key, rv, gcp_min(klen, sizeof(rv) - 1)) == 0
                && klen > sizeof(rv) - 1))
        {
            return p;
        }

        p = gcp_object_skip(q + 2, end);

        if (p == NULL) {
            return NULL;
        }

        if (*p == ',') {
            p++;
        }
    }

    return (p < end && *p == '}') ? p : NULL;
}


/*
 * The places found in sorted metadata, remembered per process by stored
 * version: one store revision writes one value, so the revision a value is
 * spliced at and its length name it (lists serve the same versions over
 * and over); the bytes around a place are compared too before it is used
 * again.  Direct-mapped by revision.
 */

#define GCP_RV_PLACES  4096
#define GCP_RV_AROUND  8

typedef struct {
    int64_t   rv;
    size_t    len;
    size_t    off;
    char      around[2 * GCP_RV_AROUND];
} gcp_rv_place_t;

static gcp_rv_place_t  gcp_rv_places[GCP_RV_PLACES];


static const char *
gcp_object_rv_place_cached(const char *v, size_t len, const char *meta,
    int64_t rv)
{
    size_t           off;
    const char      *q;
    gcp_rv_place_t  *pl;

    pl = &gcp_rv_places[(uint64_t) rv % GCP_RV_PLACES];

    if (pl->rv == rv && pl->len == len
        && memcmp(pl->around, v + pl->off - GCP_RV_AROUND,
                  2 * GCP_RV_AROUND) == 0)
    {
        return v + pl->off;
    }

    q = gcp_object_sorted_rv_place(meta, v + len);
    off = q ? (size_t) (q - v) : 0;

    if (q && q > meta && off >= GCP_RV_AROUND
        && len - off >= GCP_RV_AROUND)
    {
        pl->rv = rv;
        pl->len = len;
        pl->off = off;
        memcpy(pl->around, q - GCP_RV_AROUND, 2 * GCP_RV_AROUND);
    }

    return q;
}


int
gcp_object_splice(gcp_buf_t *b, gcp_str_t value, int64_t rv,
    unsigned flags)
{
    const char  *v, *end, *meta, *uid, *q, *body;

    v = value.data;
    end = v + value.len;

    meta = gcp_memmem(v, value.len, "\"metadata\":{");
    if (meta == NULL || value.len < 2 || v[0] != '{') {
        return GCP_EINTERNAL;
    }

    body = (flags & GCP_SPLICE_STRIP_TYPEMETA) ? meta : v + 1;

    meta += sizeof("\"metadata\":{") - 1;

    if (gcp_buf_reserve(b, value.len + 48) != GCP_OK) {
        return GCP_ENOMEM;
    }

    gcp_buf_addc(b, '{');

    if (rv <= 0) {
        /* not stored (dry run): no resourceVersion */
        gcp_buf_add(b, body, (size_t) (end - body));
        return gcp_buf_failed(b) ? GCP_ENOMEM : GCP_OK;
    }

    if (flags & GCP_SPLICE_SORTED) {
        q = gcp_object_rv_place_cached(v, value.len, meta, rv);
        if (q == NULL) {
            return GCP_EINTERNAL;
        }

        gcp_buf_add(b, body, (size_t) (q - body));

        if (*q == '}' && q != meta) {
            gcp_buf_addc(b, ',');           /* after the last member */
        }

        gcp_buf_add(b, "\"resourceVersion\":\"", 19);
        gcp_buf_add_int(b, rv);
        gcp_buf_add(b, *q == '}' ? "\"" : "\",", *q == '}' ? 1 : 2);

    } else {
        uid = gcp_memmem(meta, (size_t) (end - meta), "\"uid\":\"");

        if (uid) {
            q = memchr(uid + 7, '"', (size_t) (end - uid - 7));
            if (q == NULL) {
                return GCP_EINTERNAL;
            }

            q++;

            gcp_buf_add(b, body, (size_t) (q - body));
            gcp_buf_add(b, ",\"resourceVersion\":\"", 20);
            gcp_buf_add_int(b, rv);
            gcp_buf_addc(b, '"');

        } else {
            q = meta;

            gcp_buf_add(b, body, (size_t) (q - body));
            gcp_buf_add(b, "\"resourceVersion\":\"", 19);
            gcp_buf_add_int(b, rv);
            gcp_buf_add(b, *q == '}' ? "\"" : "\",", *q == '}' ? 1 : 2);
        }
    }

    gcp_buf_add(b, q, (size_t) (end - q));

    return gcp_buf_failed(b) ? GCP_ENOMEM : GCP_OK;
}


json_t *
gcp_object_decode(gcp_arena_t *a, gcp_str_t value, int64_t rv)
{
    return gcp_object_decode_flags(a, value, rv, 0);
}


json_t *
gcp_object_decode_flags(gcp_arena_t *a, gcp_str_t value, int64_t rv,
    unsigned flags)
{
    json_t     *obj;
    gcp_buf_t   b;

    /*
     * The resourceVersion is spliced into the bytes first, so that the
     * parsed object has every metadata field in its place already.
     */

    gcp_buf_init(&b, a);

    if (gcp_object_splice(&b, value, rv, flags) != GCP_OK) {
        return NULL;
    }

    obj = json_loadb(b.data, b.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);

    if (obj == NULL || gcp_json_arena(a, obj) == NULL) {
        return NULL;
    }

    return json_is_object(obj) ? obj : NULL;
}


/* Returns a new object with the keys of order first, then the rest. */

static json_t *
gcp_object_ordered(const json_t *src, const char * const *order)
{
    size_t       i;
    json_t      *dst, *v;
    const char  *key;

    dst = json_object();
    if (dst == NULL) {
        return NULL;
    }

    for (i = 0; order && order[i]; i++) {
        v = json_object_get(src, order[i]);
        if (v) {
            json_object_set(dst, order[i], v);
        }
    }

    json_object_foreach((json_t *) src, key, v) {
        if (json_object_get(dst, key) == NULL) {
            json_object_set(dst, key, v);
        }
    }

    return dst;
}


gcp_str_t
gcp_object_encode_sorted(gcp_arena_t *a, const json_t *obj)
{
    json_t  *c, *meta;

    /* written in order as it is: only metadata is copied, to change it */

    c = gcp_json_copy(obj);
    meta = c ? json_object_get(c, "metadata") : NULL;

    if (json_is_object(meta)
        && json_object_set_new(c, "metadata", gcp_json_copy(meta)) != 0)
    {
        json_decref(c);
        c = NULL;
    }

    return gcp_object_dump_stored(a, c, 1);
}


json_t *
gcp_object_meta_ordered(const json_t *meta)
{
    return gcp_object_ordered(meta, gcp_meta_order);
}


json_t *
gcp_object_canonical(const json_t *obj, const char * const *order)
{
    json_t       *dst, *v, *meta;
    const char   *key;
    size_t        i;

    static const char * const  typemeta[] = { "kind", "apiVersion", NULL };

    dst = json_object();
    if (dst == NULL) {
        return NULL;
    }

    for (i = 0; typemeta[i]; i++) {
        v = json_object_get(obj, typemeta[i]);
        if (v) {
            json_object_set(dst, typemeta[i], v);
        }
    }

    v = json_object_get(obj, "metadata");

    if (json_is_object(v)) {
        meta = gcp_object_ordered(v, gcp_meta_order);
        if (meta == NULL || json_object_set_new(dst, "metadata", meta)) {
            json_decref(dst);
            return NULL;
        }
    }

    for (i = 0; order && order[i]; i++) {
        v = json_object_get(obj, order[i]);
        if (v) {
            json_object_set(dst, order[i], v);
        }
    }

    json_object_foreach((json_t *) obj, key, v) {
        if (json_object_get(dst, key) == NULL) {
            json_object_set(dst, key, v);
        }
    }

    return dst;
}


/*
 * gcp_object_dump_canonical(): each member is given its rank in the
 * canonical order in one pass over the object (no lookup per listed
 * key), then written in rank order; members not listed keep their order
 * after the listed ones.
 */

#define GCP_OBJECT_SLOTS     32         /* on the stack; more: malloc */
#define GCP_OBJECT_UNLISTED  ((size_t) 1 << 20)

typedef struct {
    size_t          rank;
    const char     *key;
    const json_t   *value;              /* NULL: null (a zero time) */
    unsigned        meta:1;             /* metadata, written ordered */
} gcp_object_slot_t;


#define GCP_OBJECT_NONE  ((size_t) -1)

/* Returns the index of key in the NULL-terminated list, or NONE. */

static size_t
gcp_object_rank(const char * const *list, const char *key)
{
    size_t  i;

    for (i = 0; list && list[i]; i++) {
        if (list[i][0] == key[0] && strcmp(list[i], key) == 0) {
            return i;
        }
    }

    return GCP_OBJECT_NONE;
}


static void gcp_object_dump_ranked(gcp_buf_t *b, const json_t *obj,
    const char * const *order, unsigned flags, int meta);


/*
 * Writes the n slots (taken in rank order, a stable insertion sort: n is
 * small) as an object's members.
 */

static void
gcp_object_dump_slots(gcp_buf_t *b, gcp_object_slot_t *slots, size_t n,
    unsigned flags)
{
    size_t             i, j;
    gcp_object_slot_t  t;

    for (i = 1; i < n; i++) {
        t = slots[i];

        for (j = i; j > 0 && slots[j - 1].rank > t.rank; j--) {
            slots[j] = slots[j - 1];
        }

        slots[j] = t;
    }

    gcp_buf_addc(b, '{');

    for (i = 0; i < n; i++) {
        if (i) {
            gcp_buf_addc(b, ',');
        }

        gcp_json_add_string(b, slots[i].key, strlen(slots[i].key));
        gcp_buf_addc(b, ':');

        if (slots[i].meta) {
            gcp_object_dump_ranked(b, slots[i].value, gcp_meta_order, flags,
                                   1);

        } else if (slots[i].value) {
            gcp_json_dump_buf(b, slots[i].value, 0);

        } else {
            gcp_buf_add(b, "null", 4);
        }
    }

    gcp_buf_addc(b, '}');
}


/*
 * obj's members ranked: with meta, metadata's (order: ObjectMeta's, a null
 * creationTimestamp added with GCP_OBJECT_NULL_CREATED); else an object's
 * (kind, apiVersion, metadata, then order).  obj NULL: an empty object.
 */

static void
gcp_object_dump_ranked(gcp_buf_t *b, const json_t *obj,
    const char * const *order, unsigned flags, int meta)
{
    int                 has_meta, has_created;
    size_t              n, cap, r;
    json_t             *v;
    const char         *key;
    gcp_object_slot_t   stack[GCP_OBJECT_SLOTS], *slots;

    static const char * const  typemeta[] = { "kind", "apiVersion", NULL };

    cap = json_object_size(obj) + 1;
    slots = stack;

    if (cap > GCP_OBJECT_SLOTS) {
        slots = malloc(cap * sizeof(gcp_object_slot_t));
        if (slots == NULL) {
            b->failed = 1;
            return;
        }
    }

    n = 0;
    has_meta = 0;
    has_created = 0;

    json_object_foreach((json_t *) obj, key, v) {
        slots[n].key = key;
        slots[n].value = v;
        slots[n].meta = 0;

        if (meta) {
            r = gcp_object_rank(order, key);
            has_created |= r != GCP_OBJECT_NONE
                           && strcmp(key, "creationTimestamp") == 0;

        } else if ((r = gcp_object_rank(typemeta, key)) != GCP_OBJECT_NONE) {
            /* kind 0, apiVersion 1 */

        } else if (json_is_object(v) && strcmp(key, "metadata") == 0) {
            r = 2;
            slots[n].meta = 1;
            has_meta = 1;

        } else if ((r = gcp_object_rank(order, key)) != GCP_OBJECT_NONE) {
            r += 3;
        }

        slots[n].rank = r != GCP_OBJECT_NONE ? r : GCP_OBJECT_UNLISTED + n;
        n++;
    }

    if ((flags & GCP_OBJECT_NULL_CREATED) && meta && !has_created) {
        slots[n].key = "creationTimestamp";
        slots[n].value = NULL;
        slots[n].meta = 0;
        slots[n].rank = gcp_object_rank(order, "creationTimestamp");
        n++;

    } else if ((flags & GCP_OBJECT_NULL_CREATED) && !meta && !has_meta
               && json_object_get(obj, "metadata") == NULL)
    {
        /* no metadata: {"creationTimestamp":null} */
        slots[n].key = "metadata";
        slots[n].value = NULL;
        slots[n].meta = 1;
        slots[n].rank = 2;
        n++;
    }

    gcp_object_dump_slots(b, slots, n, flags);

    if (slots != stack) {
        free(slots);
    }
}


void
gcp_object_dump_canonical(gcp_buf_t *b, const json_t *obj,
    const char * const *order, unsigned flags)
{
    gcp_object_dump_ranked(b, obj, order, flags, 0);
}


/*
 * The stored form of c (a new reference, released here; NULL: out of
 * memory): without metadata.resourceVersion, which storage keeps; sorted:
 * every object's members in key order.
 */

static gcp_str_t
gcp_object_dump_stored(gcp_arena_t *a, json_t *c, int sorted)
{
    json_t     *meta;
    gcp_buf_t   b;
    gcp_str_t   r = gcp_null_string;

    if (c == NULL) {
        return r;
    }

    meta = json_object_get(c, "metadata");
    if (json_is_object(meta)) {
        json_object_del(meta, "resourceVersion");
    }

    gcp_buf_init(&b, a);

    if (sorted) {
        gcp_json_dump_sorted_buf(&b, c);

    } else {
        gcp_json_dump_buf(&b, c, 0);
    }

    json_decref(c);

    if (gcp_buf_failed(&b)) {
        return r;
    }

    r.data = b.data;
    r.len = b.len;

    return r;
}


gcp_str_t
gcp_object_encode(gcp_arena_t *a, const json_t *obj,
    const char * const *order)
{
    return gcp_object_dump_stored(a, gcp_object_canonical(obj, order), 0);
}


json_t *
gcp_meta(json_t *obj)
{
    json_t  *meta;

    if (!json_is_object(obj)) {
        return NULL;
    }

    meta = json_object_get(obj, "metadata");

    if (!json_is_object(meta)) {
        meta = json_object();
        if (meta == NULL || json_object_set_new(obj, "metadata", meta)) {
            return NULL;
        }
    }

    return meta;
}


const char *
gcp_meta_str(const json_t *obj, const char *field)
{
    const char  *s;

    s = json_string_value(json_object_get(json_object_get(obj, "metadata"),
                                          field));

    return s ? s : "";
}


int
gcp_meta_set_str(json_t *obj, const char *field, const char *value)
{
    json_t  *meta;

    meta = gcp_meta(obj);

    if (meta == NULL
        || json_object_set_new(meta, field, json_string(value)) != 0)
    {
        return GCP_ENOMEM;
    }

    return GCP_OK;
}


gcp_str_t
gcp_object_key(gcp_arena_t *a, const gcp_resource_t *res, const char *ns,
    const char *name)
{
    gcp_str_t  r;

    if (res->namespaced && ns && ns[0]) {
        r.data = gcp_sprintf(a, "/registry/%s/%s/%s", res->storage, ns, name);

    } else {
        r.data = gcp_sprintf(a, "/registry/%s/%s", res->storage, name);
    }

    r.len = r.data ? strlen(r.data) : 0;

    return r;
}


gcp_str_t
gcp_object_prefix(gcp_arena_t *a, const gcp_resource_t *res, const char *ns)
{
    gcp_str_t  r;

    if (res->namespaced && ns && ns[0]) {
        r.data = gcp_sprintf(a, "/registry/%s/%s/", res->storage, ns);

    } else {
        r.data = gcp_sprintf(a, "/registry/%s/", res->storage);
    }

    r.len = r.data ? strlen(r.data) : 0;

    return r;
}


int64_t
gcp_parse_rv(const char *s)
{
    char       *end;
    long long   v;

    if (s == NULL || *s < '0' || *s > '9') {
        return -1;
    }

    errno = 0;
    v = strtoll(s, &end, 10);

    if (errno || *end != '\0' || v < 0) {
        return -1;
    }

    return v;
}
