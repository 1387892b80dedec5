
/*
 * Keeping the RBAC index (see gcp_rbac_index.h): objects parsed from the
 * store, the sorted arrays that hold them, the list and the watch that
 * keep them current, subscriptions.  The queries (lookups, visiting the
 * rules that apply to a user, describing their sources) are in
 * gcp_rbac_index_query.c (see gcp_rbac_index_int.h).
 *
 * Objects of each kind live in an array sorted by id; bindings are also
 * entered in a sorted array of subject keys:
 *
 *   c/u/USER, c/g/GROUP            ClusterRoleBindings
 *   n/NS/u/USER, n/NS/g/GROUP      RoleBindings of namespace NS
 *
 * where a ServiceAccount subject is entered as its user name
 * (system:serviceaccount:NS:NAME; a RoleBinding's own namespace when the
 * subject names none).  Changes are rare, lookups many: insertions move
 * array tails, lookups are binary searches.
 */

#include <stdlib.h>

#include "gcp_object.h"
#include "gcp_rbac_index_int.h"


#define GCP_RBAC_PREFIX       "/registry/rbac.authorization.k8s.io/"
#define GCP_RBAC_RETRY_MS     1000


static const char * const  gcp_rbac_segments[GCP_RBAC_NKINDS] = {
    "roles/", "clusterroles/", "rolebindings/", "clusterrolebindings/"
};


static void gcp_rbac_index_load(gcp_rbac_index_t *ix);


/* objects */


static void
gcp_rbac_obj_free(gcp_rbac_obj_t *o)
{
    if (o) {
        gcp_arena_destroy(o->arena);
    }
}


static int
gcp_rbac_is_cluster(gcp_rbac_kind_t kind)
{
    return kind == GCP_RBAC_CLUSTERROLE || kind == GCP_RBAC_CLUSTERROLEBINDING;
}


static int
gcp_rbac_obj_parse_binding(gcp_rbac_obj_t *o)
{
    size_t       i, n;
    json_t      *subjects, *s;
    const char  *v;

    v = json_string_value(json_object_get(json_object_get(o->obj, "roleRef"),
                                          "kind"));
    o->role_kind = v ? v : "";

    v = json_string_value(json_object_get(json_object_get(o->obj, "roleRef"),
                                          "name"));
    o->role_name = v ? v : "";

    subjects = json_object_get(o->obj, "subjects");
    n = json_array_size(subjects);

    if (n == 0) {
        return GCP_OK;
    }

    o->subjects = gcp_calloc(o->arena, n * sizeof(gcp_rbac_subject_t));
    if (o->subjects == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < n; i++) {
        s = json_array_get(subjects, i);

        v = json_string_value(json_object_get(s, "kind"));
        o->subjects[i].kind = v ? v : "";
        v = json_string_value(json_object_get(s, "name"));
        o->subjects[i].name = v ? v : "";
        v = json_string_value(json_object_get(s, "namespace"));
        o->subjects[i].ns = v ? v : "";
    }

    o->nsubjects = n;

    return GCP_OK;
}


/*
 * Builds the object stored under rest (the key after the kind's segment).
 * Returns GCP_OK with *out, GCP_EINVALID when the value is not an object
 * (it is left out), or GCP_ENOMEM.
 */
static int
gcp_rbac_obj_new(gcp_rbac_kind_t kind, const char *rest, size_t len,
    gcp_str_t value, int64_t rev, gcp_rbac_obj_t **out)
{
    const char      *slash;
    gcp_arena_t     *a;
    gcp_rbac_obj_t  *o;

    *out = NULL;

    a = gcp_arena_create(1024);
    if (a == NULL) {
        return GCP_ENOMEM;
    }

    o = gcp_calloc(a, sizeof(gcp_rbac_obj_t));
    if (o == NULL) {
        gcp_arena_destroy(a);
        return GCP_ENOMEM;
    }

    o->arena = a;
    o->kind = kind;
    o->revision = rev;
    o->id = gcp_strndup(a, rest, len);
    o->obj = gcp_object_decode(a, value, rev);

    if (o->id == NULL) {
        gcp_arena_destroy(a);
        return GCP_ENOMEM;
    }

    if (!json_is_object(o->obj)) {
        gcp_arena_destroy(a);
        return GCP_EINVALID;
    }

    slash = gcp_rbac_is_cluster(kind) ? NULL : strchr(o->id, '/');

    if (slash) {
        o->ns = gcp_strndup(a, o->id, slash - o->id);
        o->name = slash + 1;

    } else {
        o->ns = "";
        o->name = o->id;
    }

    if (o->ns == NULL) {
        gcp_arena_destroy(a);
        return GCP_ENOMEM;
    }

    if (kind == GCP_RBAC_ROLE || kind == GCP_RBAC_CLUSTERROLE) {
        if (gcp_rbac_rules_parse(a, json_object_get(o->obj, "rules"),
                                 &o->rules, &o->nrules) != GCP_OK)
        {
            gcp_arena_destroy(a);
            return GCP_ENOMEM;
        }

    } else if (gcp_rbac_obj_parse_binding(o) != GCP_OK) {
        gcp_arena_destroy(a);
        return GCP_ENOMEM;
    }

    *out = o;

    return GCP_OK;
}


/* sorted arrays */


static int
gcp_rbac_objs_cmp(const void *key, const void *elt)
{
    const gcp_rbac_obj_t * const  *o = elt;

    return strcmp(key, (*o)->id);
}


static size_t
gcp_rbac_objs_find(const gcp_rbac_objs_t *s, const char *id, int *found)
{
    return gcp_search(id, s->v, s->n, sizeof(s->v[0]), gcp_rbac_objs_cmp,
                      found);
}


/* Puts o in s, returning the object it replaces (or NULL). */
static int
gcp_rbac_objs_put(gcp_rbac_objs_t *s, gcp_rbac_obj_t *o,
    gcp_rbac_obj_t **old)
{
    int               found;
    size_t            i, cap;
    gcp_rbac_obj_t  **v;

    *old = NULL;
    i = gcp_rbac_objs_find(s, o->id, &found);

    if (found) {
        *old = s->v[i];
        s->v[i] = o;
        return GCP_OK;
    }

    if (s->n == s->cap) {
        cap = s->cap ? s->cap * 2 : 64;

        v = realloc(s->v, cap * sizeof(gcp_rbac_obj_t *));
        if (v == NULL) {
            return GCP_ENOMEM;
        }

        s->v = v;
        s->cap = cap;
    }

    memmove(&s->v[i + 1], &s->v[i], (s->n - i) * sizeof(gcp_rbac_obj_t *));
    s->v[i] = o;
    s->n++;

    return GCP_OK;
}


static gcp_rbac_obj_t *
gcp_rbac_objs_remove(gcp_rbac_objs_t *s, const char *id)
{
    int              found;
    size_t           i;
    gcp_rbac_obj_t  *o;

    i = gcp_rbac_objs_find(s, id, &found);

    if (!found) {
        return NULL;
    }

    o = s->v[i];
    memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof(gcp_rbac_obj_t *));
    s->n--;

    return o;
}


gcp_rbac_obj_t *
gcp_rbac_objs_get(const gcp_rbac_objs_t *s, const char *id)
{
    int     found;
    size_t  i;

    i = gcp_rbac_objs_find(s, id, &found);

    return found ? s->v[i] : NULL;
}


/* The first entry whose key is >= key. */
size_t
gcp_rbac_skeys_lower(const gcp_rbac_skeys_t *s, const char *key)
{
    size_t  lo, hi, mid;

    lo = 0;
    hi = s->n;

    while (lo < hi) {
        mid = lo + (hi - lo) / 2;

        if (strcmp(s->v[mid].key, key) < 0) {
            lo = mid + 1;

        } else {
            hi = mid;
        }
    }

    return lo;
}


static int
gcp_rbac_skeys_add(gcp_rbac_skeys_t *s, const char *key, gcp_rbac_obj_t *b)
{
    char             *k;
    size_t            i, cap;
    gcp_rbac_skey_t  *v;

    if (s->n == s->cap) {
        cap = s->cap ? s->cap * 2 : 64;

        v = realloc(s->v, cap * sizeof(gcp_rbac_skey_t));
        if (v == NULL) {
            return GCP_ENOMEM;
        }

        s->v = v;
        s->cap = cap;
    }

    k = strdup(key);
    if (k == NULL) {
        return GCP_ENOMEM;
    }

    i = gcp_rbac_skeys_lower(s, key);

    memmove(&s->v[i + 1], &s->v[i], (s->n - i) * sizeof(gcp_rbac_skey_t));
    s->v[i].key = k;
    s->v[i].binding = b;
    s->n++;

    return GCP_OK;
}


static void
gcp_rbac_skeys_remove(gcp_rbac_skeys_t *s, const char *key,
    const gcp_rbac_obj_t *b)
{
    size_t  i;

    for (i = gcp_rbac_skeys_lower(s, key);
         i < s->n && strcmp(s->v[i].key, key) == 0;
         i++)
    {
        if (s->v[i].binding == b) {
            free(s->v[i].key);
            memmove(&s->v[i], &s->v[i + 1],
                    (s->n - i - 1) * sizeof(gcp_rbac_skey_t));
            s->n--;
            return;
        }
    }
}


/*
 * The subject key of subject i of binding b into buf (size len); returns
 * its length, 0 when the subject can never apply, or a length >= len when
 * buf is too small.
 */
static size_t
gcp_rbac_subject_key(const gcp_rbac_obj_t *b, const gcp_rbac_subject_t *s,
    char *buf, size_t len)
{
    int          n;
    char         scope[GCP_RBAC_KEY_BUF];
    const char  *name, *ns;

    if (b->kind == GCP_RBAC_CLUSTERROLEBINDING) {
        n = snprintf(scope, sizeof(scope), "c/");

    } else {
        n = snprintf(scope, sizeof(scope), "n/%s/", b->ns);
    }

    if (n < 0 || (size_t) n >= sizeof(scope)) {
        return 0;
    }

    name = s->name;

    if (strcmp(s->kind, "User") == 0) {
        n = snprintf(buf, len, "%su/%s", scope, name);

    } else if (strcmp(s->kind, "Group") == 0) {
        n = snprintf(buf, len, "%sg/%s", scope, name);

    } else if (strcmp(s->kind, "ServiceAccount") == 0) {
        ns = s->ns[0] ? s->ns : b->ns;

        if (ns[0] == '\0') {
            return 0;
        }

        n = snprintf(buf, len, "%su/" GCP_RBAC_SA_PREFIX "%s:%s", scope, ns,
                     name);

    } else {
        return 0;
    }

    return n < 0 ? 0 : (size_t) n;
}


/* Calls add or remove for every subject key of binding b. */
static int
gcp_rbac_binding_keys(gcp_rbac_index_t *ix, gcp_rbac_obj_t *b, int add)
{
    char    buf[GCP_RBAC_KEY_BUF], *key;
    size_t  i, len;
    int     rc;

    for (i = 0; i < b->nsubjects; i++) {
        len = gcp_rbac_subject_key(b, &b->subjects[i], buf, sizeof(buf));

        if (len == 0) {
            continue;
        }

        key = buf;

        if (len >= sizeof(buf)) {
            key = malloc(len + 1);
            if (key == NULL) {
                return GCP_ENOMEM;
            }

            gcp_rbac_subject_key(b, &b->subjects[i], key, len + 1);
        }

        rc = GCP_OK;

        if (add) {
            rc = gcp_rbac_skeys_add(&ix->skeys, key, b);

        } else {
            gcp_rbac_skeys_remove(&ix->skeys, key, b);
        }

        if (key != buf) {
            free(key);
        }

        if (rc != GCP_OK) {
            return rc;
        }
    }

    return GCP_OK;
}


/* changes */


static int
gcp_rbac_key_kind(gcp_str_t key, gcp_rbac_kind_t *kind, const char **rest,
    size_t *len)
{
    size_t       i, plen, slen;
    const char  *p;

    plen = sizeof(GCP_RBAC_PREFIX) - 1;

    if (key.len <= plen || memcmp(key.data, GCP_RBAC_PREFIX, plen) != 0) {
        return GCP_ENOTFOUND;
    }

    p = key.data + plen;

    for (i = 0; i < GCP_RBAC_NKINDS; i++) {
        slen = strlen(gcp_rbac_segments[i]);

        if (key.len - plen > slen && memcmp(p, gcp_rbac_segments[i], slen)
                                     == 0)
        {
            *kind = (gcp_rbac_kind_t) i;
            *rest = p + slen;
            *len = key.len - plen - slen;
            return GCP_OK;
        }
    }

    return GCP_ENOTFOUND;
}


static void
gcp_rbac_forget(gcp_rbac_index_t *ix, gcp_rbac_obj_t *old)
{
    if (old == NULL) {
        return;
    }

    if (old->kind == GCP_RBAC_ROLEBINDING
        || old->kind == GCP_RBAC_CLUSTERROLEBINDING)
    {
        (void) gcp_rbac_binding_keys(ix, old, 0);
    }

    gcp_rbac_obj_free(old);
}


/* Applies a PUT (value set) or DELETE (value.data NULL) of key. */
static int
gcp_rbac_apply(gcp_rbac_index_t *ix, gcp_str_t key, gcp_str_t value,
    int64_t rev, gcp_rbac_kind_t *changed)
{
    int               rc;
    char             *id;
    size_t            len;
    const char       *rest;
    gcp_rbac_kind_t   kind;
    gcp_rbac_obj_t   *o, *old;

    if (gcp_rbac_key_kind(key, &kind, &rest, &len) != GCP_OK) {
        return GCP_OK;
    }

    *changed = kind;
    o = NULL;

    if (value.data) {
        rc = gcp_rbac_obj_new(kind, rest, len, value, rev, &o);

        if (rc == GCP_ENOMEM) {
            return rc;
        }
    }

    if (o == NULL) {
        /* deleted, or not an object: nothing to keep */
        id = strndup(rest, len);
        if (id == NULL) {
            return GCP_ENOMEM;
        }

        old = gcp_rbac_objs_remove(&ix->objs[kind], id);
        free(id);

        gcp_rbac_forget(ix, old);
        return GCP_OK;
    }

    if (gcp_rbac_objs_put(&ix->objs[kind], o, &old) != GCP_OK) {
        gcp_rbac_obj_free(o);
        return GCP_ENOMEM;
    }

    gcp_rbac_forget(ix, old);

    if (kind == GCP_RBAC_ROLEBINDING || kind == GCP_RBAC_CLUSTERROLEBINDING) {
        return gcp_rbac_binding_keys(ix, o, 1);
    }

    return GCP_OK;
}


static void
gcp_rbac_notify(gcp_rbac_index_t *ix, gcp_rbac_kind_t kind)
{
    size_t  i;

    for (i = 0; i < GCP_RBAC_MAX_SUBS; i++) {
        if (ix->subs[i].changed) {
            ix->subs[i].changed(ix->subs[i].arg, kind);
        }
    }
}


static void
gcp_rbac_clear(gcp_rbac_index_t *ix)
{
    size_t  i, k;

    for (k = 0; k < GCP_RBAC_NKINDS; k++) {
        for (i = 0; i < ix->objs[k].n; i++) {
            gcp_rbac_obj_free(ix->objs[k].v[i]);
        }

        ix->objs[k].n = 0;
    }

    for (i = 0; i < ix->skeys.n; i++) {
        free(ix->skeys.v[i].key);
    }

    ix->skeys.n = 0;
}


static void
gcp_rbac_retry(void *arg)
{
    gcp_rbac_index_t  *ix = arg;

    ix->retry = NULL;
    gcp_rbac_index_load(ix);
}


static void
gcp_rbac_schedule_load(gcp_rbac_index_t *ix)
{
    if (ix->retry == NULL) {
        ix->retry = ix->loop->timer_add(ix->loop, GCP_RBAC_RETRY_MS,
                                        gcp_rbac_retry, ix);
    }
}


static int
gcp_rbac_event(void *arg, const gcp_store_event_t *ev)
{
    int                rc;
    gcp_str_t          none = gcp_null_string;
    gcp_rbac_kind_t    kind;
    gcp_rbac_index_t  *ix = arg;

    switch (ev->type) {

    case GCP_STORE_EVENT_PUT:
    case GCP_STORE_EVENT_DELETE:
        kind = GCP_RBAC_NKINDS;
        rc = gcp_rbac_apply(ix, ev->kv.key,
                            ev->type == GCP_STORE_EVENT_PUT ? ev->kv.value
                                                            : none,
                            ev->revision, &kind);
        ix->revision = ev->revision;

        if (rc != GCP_OK) {
            /* out of memory: start over from a new list */
            ix->watch = NULL;
            gcp_rbac_schedule_load(ix);
            return rc;
        }

        if (kind != GCP_RBAC_NKINDS) {
            gcp_rbac_notify(ix, kind);
        }

        return GCP_OK;

    case GCP_STORE_EVENT_PROGRESS:
        if (ev->revision > ix->revision) {
            ix->revision = ev->revision;
        }

        return GCP_OK;

    default:
        /* the watch is over (compacted, backend gone): list again */
        ix->watch = NULL;
        gcp_rbac_schedule_load(ix);
        return GCP_OK;
    }
}


static void
gcp_rbac_listed(void *arg, gcp_store_result_t *res)
{
    size_t              i, k;
    gcp_str_t           prefix;
    gcp_rbac_kind_t     kind;
    gcp_rbac_index_t   *ix = arg;

    ix->loading = 0;

    if (ix->freed) {
        gcp_arena_destroy(ix->load_arena);
        free(ix);
        return;
    }

    if (res->rc != GCP_OK) {
        gcp_arena_destroy(ix->load_arena);
        ix->load_arena = NULL;
        gcp_rbac_schedule_load(ix);
        return;
    }

    gcp_rbac_clear(ix);

    for (i = 0; i < res->nkvs; i++) {
        if (gcp_rbac_apply(ix, res->kvs[i].key, res->kvs[i].value,
                           res->kvs[i].mod_revision, &kind)
            != GCP_OK)
        {
            gcp_rbac_clear(ix);
            gcp_arena_destroy(ix->load_arena);
            ix->load_arena = NULL;
            gcp_rbac_schedule_load(ix);
            return;
        }
    }

    ix->revision = res->revision;
    ix->ready = 1;

    prefix.data = GCP_RBAC_PREFIX;
    prefix.len = sizeof(GCP_RBAC_PREFIX) - 1;

    ix->watch = gcp_store_watch(ix->store, prefix,
                                gcp_store_prefix_end(ix->load_arena, prefix),
                                res->revision, gcp_rbac_event, ix);

    gcp_arena_destroy(ix->load_arena);
    ix->load_arena = NULL;

    if (ix->watch == NULL) {
        gcp_rbac_schedule_load(ix);
    }

    for (k = 0; k < GCP_RBAC_NKINDS; k++) {
        gcp_rbac_notify(ix, (gcp_rbac_kind_t) k);
    }
}


static void
gcp_rbac_index_load(gcp_rbac_index_t *ix)
{
    gcp_str_t  prefix;

    if (ix->loading) {
        return;
    }

    if (ix->watch) {
        gcp_store_watch_cancel(ix->store, ix->watch);
        ix->watch = NULL;
    }

    ix->load_arena = gcp_arena_create(0);
    if (ix->load_arena == NULL) {
        gcp_rbac_schedule_load(ix);
        return;
    }

    prefix.data = GCP_RBAC_PREFIX;
    prefix.len = sizeof(GCP_RBAC_PREFIX) - 1;

    ix->loading = 1;

    gcp_store_range(ix->store, prefix,
                    gcp_store_prefix_end(ix->load_arena, prefix), 0, 0, 0,
                    ix->load_arena, gcp_rbac_listed, ix);
}


gcp_rbac_index_t *
gcp_rbac_index_create(gcp_store_t *store, gcp_loop_t *loop)
{
    gcp_rbac_index_t  *ix;

    ix = calloc(1, sizeof(gcp_rbac_index_t));
    if (ix == NULL) {
        return NULL;
    }

    ix->store = store;
    ix->loop = loop;

    gcp_rbac_index_load(ix);

    return ix;
}


void
gcp_rbac_index_free(gcp_rbac_index_t *ix)
{
    size_t  k;

    if (ix == NULL) {
        return;
    }

    if (ix->watch) {
        gcp_store_watch_cancel(ix->store, ix->watch);
    }

    if (ix->retry) {
        ix->loop->timer_del(ix->loop, ix->retry);
    }

    gcp_rbac_clear(ix);

    for (k = 0; k < GCP_RBAC_NKINDS; k++) {
        free(ix->objs[k].v);
    }

    free(ix->skeys.v);

    if (ix->loading) {
        /* the list in flight still writes into load_arena */
        ix->freed = 1;
        memset(ix->subs, 0, sizeof(ix->subs));
        return;
    }

    free(ix);
}


int
gcp_rbac_index_ready(const gcp_rbac_index_t *ix)
{
    return ix->ready;
}


int64_t
gcp_rbac_index_revision(const gcp_rbac_index_t *ix)
{
    return ix->revision;
}


int
gcp_rbac_index_subscribe(gcp_rbac_index_t *ix, gcp_rbac_changed_pt changed,
    void *arg)
{
    size_t  i;

    for (i = 0; i < GCP_RBAC_MAX_SUBS; i++) {
        if (ix->subs[i].changed == NULL) {
            ix->subs[i].changed = changed;
            ix->subs[i].arg = arg;
            return GCP_OK;
        }
    }

    return GCP_ENOMEM;
}


void
gcp_rbac_index_unsubscribe(gcp_rbac_index_t *ix, gcp_rbac_changed_pt changed,
    void *arg)
{
    size_t  i;

    for (i = 0; i < GCP_RBAC_MAX_SUBS; i++) {
        if (ix->subs[i].changed == changed && ix->subs[i].arg == arg) {
            ix->subs[i].changed = NULL;
            ix->subs[i].arg = NULL;
        }
    }
}
