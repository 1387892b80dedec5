
/*
 * The etcd backend's encodings: base64 through gcp_base64.h (etcd's gateway
 * carries keys and values as base64 JSON strings, int64s as JSON strings),
 * the mapping between the core's keys and etcd's keys (core prefix <->
 * etcd prefix), and the reading of etcd's JSON answers.
 */

#include <stdlib.h>

#include "gcp_etcd.h"


int64_t
gcp_etcd_int(json_t *obj, const char *field)
{
    char         *end;
    json_t       *v;
    long long     n;
    const char   *s;

    v = json_object_get(obj, field);

    if (json_is_integer(v)) {
        return (int64_t) json_integer_value(v);
    }

    if (!json_is_string(v)) {
        return 0;
    }

    s = json_string_value(v);
    n = strtoll(s, &end, 10);

    return *end == '\0' ? (int64_t) n : 0;
}


gcp_str_t
gcp_etcd_bytes(json_t *obj, const char *field, gcp_arena_t *a)
{
    char       *p;
    size_t      n;
    json_t     *v;
    ssize_t     len;
    gcp_str_t   r = gcp_null_string;

    v = json_object_get(obj, field);

    if (v == NULL) {
        r.data = "";
        return r;
    }

    if (!json_is_string(v)) {
        return r;
    }

    n = json_string_length(v);

    p = gcp_alloc(a, GCP_BASE64_DECODED_MAX(n) + 1);
    if (p == NULL) {
        return r;
    }

    len = gcp_base64_decode_into(json_string_value(v), n, GCP_BASE64_STD,
                                 p, NULL);
    if (len < 0) {
        return r;
    }

    p[len] = '\0';
    r.data = p;
    r.len = (size_t) len;

    return r;
}


int
gcp_etcd_key_valid(gcp_str_t key)
{
    return key.len > 0 && memchr(key.data, '\0', key.len) == NULL;
}


static int
gcp_etcd_has_prefix(const char *k, size_t len, gcp_str_t prefix)
{
    return len >= prefix.len
           && (prefix.len == 0 || memcmp(k, prefix.data, prefix.len) == 0);
}


/* Appends the base64 of the etcd key for core key k (k has the prefix). */

static void
gcp_etcd_mapped_add(gcp_etcd_t *e, gcp_buf_t *b, const char *k, size_t len)
{
    char    *tmp;
    size_t   n;

    n = e->prefix.len + len - e->core.len;

    tmp = gcp_alloc(b->arena, n ? n : 1);
    if (tmp == NULL) {
        b->failed = 1;
        return;
    }

    if (e->prefix.len) {
        memcpy(tmp, e->prefix.data, e->prefix.len);
    }

    memcpy(tmp + e->prefix.len, k + e->core.len, len - e->core.len);

    gcp_base64_encode_buf(b, tmp, n, GCP_BASE64_STD);
}


int
gcp_etcd_key_add(gcp_etcd_t *e, gcp_buf_t *b, gcp_str_t key)
{
    if (!gcp_etcd_key_valid(key)
        || !gcp_etcd_has_prefix(key.data, key.len, e->core))
    {
        return GCP_EBADREQUEST;
    }

    if (e->prefix.len + key.len - e->core.len == 0) {
        /* the key is the core prefix itself and the etcd prefix is "" */
        return GCP_EBADREQUEST;
    }

    gcp_etcd_mapped_add(e, b, key.data, key.len);

    return GCP_OK;
}


/*
 * Where a core key falls relative to the keys that start with the core
 * prefix: -1 before all of them, 0 one of them, 1 after all of them.
 */
static int
gcp_etcd_key_side(gcp_etcd_t *e, gcp_str_t k)
{
    int     c;
    size_t  n;

    if (gcp_etcd_has_prefix(k.data, k.len, e->core)) {
        return 0;
    }

    n = gcp_min(k.len, e->core.len);
    c = n ? memcmp(k.data, e->core.data, n) : 0;

    return c < 0 || (c == 0 && k.len < e->core.len) ? -1 : 1;
}


int
gcp_etcd_range_add(gcp_etcd_t *e, gcp_buf_t *b, gcp_str_t key,
    gcp_str_t end)
{
    int  ks, es, empty;

    ks = gcp_etcd_key_side(e, key);

    /* the core prefix itself maps to the empty key when prefix is "" */
    empty = e->prefix.len == 0;

    if (end.len == 0) {
        /* the single key */
        if (ks != 0 || !gcp_etcd_key_valid(key)
            || (empty && key.len == e->core.len))
        {
            return 1;
        }

        gcp_buf_addstr(b, "\"key\":\"");
        gcp_etcd_mapped_add(e, b, key.data, key.len);
        gcp_buf_addstr(b, "\",");
        return 0;
    }

    es = (end.len == 1 && end.data[0] == '\0') ? 1
                                               : gcp_etcd_key_side(e, end);

    if (ks > 0 || es < 0 || (es == 0 && empty && end.len == e->core.len)) {
        return 1;
    }

    gcp_buf_addstr(b, "\"key\":\"");

    if (ks < 0 || (empty && key.len == e->core.len)) {
        if (empty) {
            gcp_buf_addstr(b, "AA==");      /* "\0": the smallest key */
        } else {
            gcp_base64_encode_buf(b, e->prefix.data,
                                  e->prefix.len, GCP_BASE64_STD);
        }

    } else {
        gcp_etcd_mapped_add(e, b, key.data, key.len);
    }

    gcp_buf_addstr(b, "\",\"range_end\":\"");

    if (es > 0) {
        gcp_base64_encode_buf(b, e->prefix_end.data,
                              e->prefix_end.len, GCP_BASE64_STD);
    } else {
        gcp_etcd_mapped_add(e, b, end.data, end.len);
    }

    gcp_buf_addstr(b, "\",");

    return 0;
}


int
gcp_etcd_key_ours(gcp_etcd_t *e, const char *k, size_t len)
{
    return gcp_etcd_has_prefix(k, len, e->prefix);
}


gcp_str_t
gcp_etcd_key_in(gcp_etcd_t *e, const char *key, size_t len, gcp_arena_t *a)
{
    char       *p;
    size_t      n;
    gcp_str_t   r = gcp_null_string;

    if (!gcp_etcd_key_ours(e, key, len)) {
        return r;
    }

    n = e->core.len + len - e->prefix.len;

    p = gcp_alloc(a, n + 1);
    if (p == NULL) {
        return r;
    }

    if (e->core.len) {
        memcpy(p, e->core.data, e->core.len);
    }

    memcpy(p + e->core.len, key + e->prefix.len, len - e->prefix.len);
    p[n] = '\0';

    r.data = p;
    r.len = n;

    return r;
}


int
gcp_etcd_kv(gcp_etcd_t *e, json_t *obj, gcp_kv_t *kv, gcp_arena_t *a)
{
    gcp_str_t  k;

    k = gcp_etcd_bytes(obj, "key", a);
    if (k.data == NULL) {
        return GCP_EINTERNAL;
    }

    kv->key = gcp_etcd_key_in(e, k.data, k.len, a);
    if (kv->key.data == NULL) {
        return GCP_ENOTFOUND;
    }

    kv->value = gcp_etcd_bytes(obj, "value", a);
    if (kv->value.data == NULL) {
        return GCP_EINTERNAL;
    }

    kv->create_revision = gcp_etcd_int(obj, "create_revision");
    kv->mod_revision = gcp_etcd_int(obj, "mod_revision");
    kv->version = gcp_etcd_int(obj, "version");
    kv->stale = 0;

    return GCP_OK;
}


int
gcp_etcd_error_rc(const char *message, int64_t code)
{
    if (strstr(message, "required revision has been compacted")) {
        return GCP_ECOMPACTED;
    }

    if (strstr(message, "required revision is a future revision")) {
        return GCP_EFUTURE;
    }

    if (strstr(message, "timed out") || strstr(message, "deadline")
        || code == 4)
    {
        return GCP_ETIMEOUT;
    }

    if (strstr(message, "leader") || strstr(message, "stopped")
        || strstr(message, "too many requests") || code == 14)
    {
        return GCP_EUNAVAILABLE;
    }

    return GCP_EINTERNAL;
}


int
gcp_etcd_item_json(gcp_etcd_t *e, json_t *obj, gcp_etcd_item_t **out)
{
    int               rc;
    char              stack[768], *kb;
    size_t            kn, vn, klen, rest;
    json_t           *k, *v;
    ssize_t           n;
    gcp_etcd_item_t  *it;

    *out = NULL;

    k = json_object_get(obj, "key");
    v = json_object_get(obj, "value");

    if (!json_is_string(k) || (v && !json_is_string(v))) {
        return GCP_EINTERNAL;
    }

    kn = json_string_length(k);

    kb = GCP_BASE64_DECODED_MAX(kn) <= sizeof(stack)
         ? stack : malloc(GCP_BASE64_DECODED_MAX(kn));
    if (kb == NULL) {
        return GCP_ENOMEM;
    }

    rc = GCP_OK;
    it = NULL;

    n = gcp_base64_decode_into(json_string_value(k), kn, GCP_BASE64_STD,
                               kb, NULL);

    if (n <= 0) {
        rc = GCP_EINTERNAL;
        goto done;
    }

    if (!gcp_etcd_key_ours(e, kb, (size_t) n)) {
        rc = GCP_ENOTFOUND;
        goto done;
    }

    rest = (size_t) n - e->prefix.len;
    klen = e->core.len + rest;
    vn = v ? json_string_length(v) : 0;

    it = malloc(sizeof(gcp_etcd_item_t) + klen + 1
                + GCP_BASE64_DECODED_MAX(vn) + 1);
    if (it == NULL) {
        rc = GCP_ENOMEM;
        goto done;
    }

    if (e->core.len) {
        memcpy(it->data, e->core.data, e->core.len);
    }

    memcpy(it->data + e->core.len, kb + e->prefix.len, rest);
    it->data[klen] = '\0';

    n = v ? gcp_base64_decode_into(json_string_value(v), vn,
                                   GCP_BASE64_STD, it->data + klen + 1, NULL)
          : 0;

    if (n < 0) {
        free(it);
        it = NULL;
        rc = GCP_EINTERNAL;
        goto done;
    }

    it->data[klen + 1 + n] = '\0';
    it->refs = 1;
    it->klen = klen;
    it->vlen = (size_t) n;
    it->create_revision = gcp_etcd_int(obj, "create_revision");
    it->mod_revision = gcp_etcd_int(obj, "mod_revision");
    it->version = gcp_etcd_int(obj, "version");

done:

    if (kb != stack) {
        free(kb);
    }

    *out = it;

    return rc;
}
