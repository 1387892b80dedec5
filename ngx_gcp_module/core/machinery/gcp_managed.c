
/*
 * managedFields (see gcp_managed.h): upstream's field manager, the
 * Update and Apply paths of structured-merge-diff's Updater on the
 * entries' field sets.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_apply.h"
#include "gcp_fieldset.h"
#include "gcp_json.h"
#include "gcp_managed.h"
#include "gcp_managed_int.h"


#define GCP_MF_MAX_UPDATERS  10
#define GCP_MF_ANCIENT       "ancient-changes"


const char *
gcp_mf_str(const json_t *e, const char *key)
{
    const char  *s = json_string_value(json_object_get(e, key));

    return s ? s : "";
}


/* Returns 1 when the entries are a request to reset: [] or [{}]. */

static int
gcp_mf_reset(const json_t *sent)
{
    if (!json_is_array(sent)) {
        return 0;
    }

    return json_array_size(sent) == 0
           || (json_array_size(sent) == 1
               && json_is_object(json_array_get(sent, 0))
               && json_object_size(json_array_get(sent, 0)) == 0);
}


json_t *
gcp_mf_decode(const json_t *mf)
{
    size_t        i;
    json_t       *e, *out, *c, *fs;
    const char   *op;

    if (!json_is_array(mf)) {
        return NULL;
    }

    json_array_foreach(mf, i, e) {
        if (!json_is_object(e)) {
            return NULL;
        }

        op = gcp_mf_str(e, "operation");
        fs = json_object_get(e, "fieldsV1");

        if ((strcmp(op, "Apply") != 0 && strcmp(op, "Update") != 0)
            || gcp_mf_str(e, "apiVersion")[0] == '\0'
            || strcmp(gcp_mf_str(e, "fieldsType"), "FieldsV1") != 0
            || (fs && !json_is_object(fs)))
        {
            return NULL;
        }
    }

    out = json_array();
    if (out == NULL) {
        return NULL;
    }

    json_array_foreach(mf, i, e) {
        fs = json_object_get(e, "fieldsV1");
        fs = fs == NULL ? json_object()
             : gcp_fieldset_normal(fs) ? json_incref(fs)
             : gcp_fieldset_normalize(fs);
        c = gcp_json_copy(e);

        if (fs == NULL || c == NULL
            || json_object_set_new(c, "fieldsV1", fs) != 0
            || json_array_append_new(out, c) != 0)
        {
            json_decref(fs);
            json_decref(c);
            json_decref(out);
            return NULL;
        }
    }

    return out;
}


/* Returns 1 when entry e is the manager's of that operation. */

static int
gcp_mf_is(const json_t *e, const gcp_managed_t *m, const char *op)
{
    const char  *sub = m->subresource ? m->subresource : "";

    return strcmp(gcp_mf_str(e, "manager"), m->manager) == 0
           && strcmp(gcp_mf_str(e, "operation"), op) == 0
           && strcmp(gcp_mf_str(e, "subresource"), sub) == 0
           && (strcmp(op, "Apply") == 0
               || strcmp(gcp_mf_str(e, "apiVersion"), m->api_version) == 0);
}


static int
gcp_mf_cmp(const void *one, const void *two)
{
    int            r;
    size_t         i;
    const json_t  *p = *(const json_t * const *) one;
    const json_t  *q = *(const json_t * const *) two;

    static const char * const  keys[] = {
        "operation", "time", "manager", "apiVersion", "subresource", NULL
    };

    for (i = 0; keys[i]; i++) {
        r = strcmp(gcp_mf_str(p, keys[i]), gcp_mf_str(q, keys[i]));

        if (r != 0) {
            return r;
        }
    }

    return 0;
}


/* The entries of mf sorted by cmp, in a malloc'd array; NULL: no memory. */

static json_t **
gcp_mf_sorted(const json_t *mf, int (*cmp)(const void *, const void *))
{
    size_t    i, n;
    json_t  **v;

    n = json_array_size(mf);
    v = malloc((n ? n : 1) * sizeof(json_t *));

    if (v == NULL) {
        return NULL;
    }

    for (i = 0; i < n; i++) {
        v[i] = json_array_get(mf, i);
    }

    qsort(v, n, sizeof(json_t *), cmp);

    return v;
}


/* The oldest Update entries first (upstream's capManagersManager). */

static int
gcp_mf_age_cmp(const void *one, const void *two)
{
    int            r;
    const json_t  *p = *(const json_t * const *) one;
    const json_t  *q = *(const json_t * const *) two;

    r = strcmp(gcp_mf_str(p, "time"), gcp_mf_str(q, "time"));

    return r ? r : strcmp(gcp_mf_str(p, "manager"),
                          gcp_mf_str(q, "manager"));
}


/*
 * Keeps at most GCP_MF_MAX_UPDATERS Update entries: the oldest ones are
 * merged, per apiVersion, into an "ancient-changes" entry with the time of
 * the newest of them.  Returns 0 or -1.
 */

static int
gcp_mf_cap(json_t *mf)
{
    size_t    i, j, n, nupd;
    json_t  **v, *first, *bucket, *u, *upd;

    upd = json_array();
    if (upd == NULL) {
        return -1;
    }

    for (i = 0; i < json_array_size(mf); i++) {
        if (strcmp(gcp_mf_str(json_array_get(mf, i), "operation"), "Update")
            == 0)
        {
            json_array_append(upd, json_array_get(mf, i));
        }
    }

    nupd = json_array_size(upd);

    if (nupd <= GCP_MF_MAX_UPDATERS) {
        json_decref(upd);
        return 0;
    }

    v = gcp_mf_sorted(upd, gcp_mf_age_cmp);
    if (v == NULL) {
        json_decref(upd);
        return -1;
    }

    n = nupd;

    for (i = 0; i < nupd && n > GCP_MF_MAX_UPDATERS; i++) {
        first = NULL;

        for (j = 0; j < i; j++) {
            if (v[j] && strcmp(gcp_mf_str(v[j], "apiVersion"),
                               gcp_mf_str(v[i], "apiVersion")) == 0)
            {
                first = v[j];
                break;
            }
        }

        if (first == NULL) {
            continue;
        }

        /* the first of this version becomes the bucket */

        bucket = first;
        json_object_set_new(bucket, "manager", json_string(GCP_MF_ANCIENT));
        json_object_del(bucket, "subresource");

        u = gcp_fieldset_union(json_object_get(bucket, "fieldsV1"),
                               json_object_get(v[i], "fieldsV1"));
        if (u == NULL) {
            free(v);
            json_decref(upd);
            return -1;
        }

        json_object_set_new(bucket, "fieldsV1", u);
        json_object_set(bucket, "time", json_object_get(v[i], "time"));

        for (j = 0; j < json_array_size(mf); j++) {
            if (json_array_get(mf, j) == v[i]) {
                json_array_remove(mf, j);
                break;
            }
        }

        v[i] = NULL;
        n--;
    }

    free(v);
    json_decref(upd);

    return 0;
}


json_t *
gcp_mf_encode(json_t *mf)
{
    size_t         i, n;
    json_t        *out, *e, *o, **v;

    static const char * const  keys[] = {
        "manager", "operation", "apiVersion", "time", "fieldsType",
        "fieldsV1", "subresource", NULL
    };

    n = json_array_size(mf);
    v = gcp_mf_sorted(mf, gcp_mf_cmp);
    out = json_array();

    if (v == NULL || out == NULL) {
        free(v);
        json_decref(out);
        json_decref(mf);
        return NULL;
    }

    for (i = 0; i < n; i++) {
        size_t  k;

        e = json_object();
        if (e == NULL) {
            break;
        }

        for (k = 0; keys[k]; k++) {
            o = json_object_get(v[i], keys[k]);

            /* every key is omitempty in Go, "manager" too */

            if (o && !(json_is_string(o) && json_string_length(o) == 0)) {
                json_object_set(e, keys[k], o);
            }
        }

        json_array_append_new(out, e);
    }

    free(v);
    json_decref(mf);

    return out;
}


/* The set of what this write may own, changed in place (scope, strip). */

static json_t *
gcp_mf_scope(const gcp_managed_t *m, json_t *s)
{
    json_t  *status;

    if (s == NULL) {
        return NULL;
    }

    if (m->scope == GCP_MF_NOT_STATUS) {
        json_object_del(s, "f:status");

    } else if (m->scope == GCP_MF_ONLY_STATUS) {
        status = json_incref(json_object_get(s, "f:status"));
        json_object_clear(s);

        if (status) {
            json_object_set_new(s, "f:status", status);
        }
    }

    return gcp_fieldset_strip(s);
}


/* A shallow copy of obj without metadata.managedFields (NULL: NULL). */

static json_t *
gcp_mf_without(const json_t *obj)
{
    json_t  *out, *meta;

    if (obj == NULL) {
        return NULL;
    }

    out = gcp_json_copy(obj);
    meta = json_object_get(out, "metadata");

    if (out && json_is_object(meta)
        && json_object_get(meta, "managedFields"))
    {
        meta = gcp_json_copy(meta);
        json_object_del(meta, "managedFields");
        json_object_set_new(out, "metadata", meta);
    }

    return out;
}


/* What a write added or changed, and removed, seen in one apiVersion. */

typedef struct {
    const char  *api_version;
    json_t      *ch;
    json_t      *rm;
} gcp_mf_diff_t;


typedef struct {
    size_t          n;
    gcp_mf_diff_t   d[GCP_MANAGED_MAX_VIEWS + 1];
} gcp_mf_diffs_t;


static void
gcp_mf_diffs_free(gcp_mf_diffs_t *ds)
{
    size_t  i;

    for (i = 0; i < ds->n; i++) {
        json_decref(ds->d[i].ch);
        json_decref(ds->d[i].rm);
    }

    ds->n = 0;
}


/* Compares old and new (their managedFields aside) under node: 0 or -1. */

static int
gcp_mf_diff(const gcp_managed_t *m, const json_t *node, const json_t *old,
    const json_t *new, gcp_mf_diff_t *d)
{
    if (gcp_apply_compare(m->set, node, old, new, &d->ch, &d->rm) != 0) {
        return -1;
    }

    d->ch = gcp_mf_scope(m, d->ch);
    d->rm = gcp_mf_scope(m, d->rm);

    return 0;
}


/*
 * ds->d[0]: the write in the request's apiVersion, ch and rm (consumed);
 * then one per view of m.  Returns 0 or -1 (ds freed).
 */

static int
gcp_mf_diffs(const gcp_managed_t *m, json_t *ch, json_t *rm,
    gcp_mf_diffs_t *ds)
{
    size_t                     i;
    gcp_mf_diff_t             *d;
    const gcp_managed_view_t  *v;

    ds->n = 1;
    ds->d[0].api_version = m->api_version;
    ds->d[0].ch = ch;
    ds->d[0].rm = rm;

    for (i = 0; i < m->nviews && i < GCP_MANAGED_MAX_VIEWS; i++) {
        v = &m->views[i];
        d = &ds->d[ds->n];
        d->api_version = v->api_version;

        if (gcp_mf_diff(m, v->node, v->old, v->new, d) != 0) {
            gcp_mf_diffs_free(ds);
            return -1;
        }

        ds->n++;
    }

    return 0;
}


/* The write as entry e's apiVersion sees it. */

static const gcp_mf_diff_t *
gcp_mf_diff_of(const gcp_mf_diffs_t *ds, const json_t *e)
{
    size_t       i;
    const char  *av = gcp_mf_str(e, "apiVersion");

    for (i = 1; i < ds->n; i++) {
        if (strcmp(ds->d[i].api_version, av) == 0) {
            return &ds->d[i];
        }
    }

    return &ds->d[0];
}


/*
 * Sets entry e's field set to its difference with s when they meet.
 * Returns 0 or -1.
 */

static int
gcp_mf_drop(json_t *e, const json_t *s)
{
    json_t  *fs, *t;

    fs = json_object_get(e, "fieldsV1");

    if (!gcp_fieldset_intersects(fs, s)) {
        return 0;
    }

    t = gcp_fieldset_difference(fs, s);

    return t && json_object_set_new(e, "fieldsV1", t) == 0 ? 0 : -1;
}


/*
 * Takes what the write changed and removed, as its apiVersion sees them,
 * from every entry but skip (NULL: none), dropping entries left empty.
 * Returns 0 or -1.
 */

static int
gcp_mf_take(json_t *mf, const gcp_mf_diffs_t *ds, const json_t *skip)
{
    size_t                i;
    json_t               *e;
    const gcp_mf_diff_t  *d;

    for (i = 0; i < json_array_size(mf); /* void */) {
        e = json_array_get(mf, i);

        if (e == skip) {
            i++;
            continue;
        }

        d = gcp_mf_diff_of(ds, e);

        if (gcp_mf_drop(e, d->ch) != 0 || gcp_mf_drop(e, d->rm) != 0) {
            return -1;
        }

        if (gcp_fieldset_empty(json_object_get(e, "fieldsV1"))) {
            json_array_remove(mf, i);
            continue;
        }

        i++;
    }

    return 0;
}


static json_t *
gcp_mf_entry(const gcp_managed_t *m, const char *op, json_t *fs)
{
    json_t  *e;

    e = json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "manager", m->manager,
                  "operation", op, "apiVersion", m->api_version,
                  "time", m->now, "fieldsType", "FieldsV1", "fieldsV1", fs);

    if (e && m->subresource && m->subresource[0]) {
        json_object_set_new(e, "subresource",
                            json_string(m->subresource));
    }

    return e;
}


/*
 * The manager's entry e (NULL: none yet) after a write: dropped when its
 * set is empty; when there is none, one of operation op with the set s
 * added unless s is empty.  Returns 0 or -1.
 */

static int
gcp_mf_settle(json_t *mf, const json_t *e, const gcp_managed_t *m,
    const char *op, json_t *s)
{
    size_t   i;
    json_t  *u;

    if (e == NULL) {
        return gcp_fieldset_empty(s)
               || json_array_append_new(mf, gcp_mf_entry(m, op,
                                                         json_incref(s)))
                  == 0
               ? 0 : -1;
    }

    if (gcp_fieldset_empty(json_object_get(e, "fieldsV1"))) {
        json_array_foreach(mf, i, u) {
            if (u == e) {
                json_array_remove(mf, i);
                break;
            }
        }
    }

    return 0;
}


json_t *
gcp_managed_update(const gcp_managed_t *m, const json_t *sent,
    const json_t *live, const json_t *old, const json_t *new)
{
    size_t           i;
    json_t          *mf, *ch, *e, *u;
    gcp_mf_diff_t    d;
    gcp_mf_diffs_t   ds;

    mf = NULL;

    if (m->subresource == NULL || m->subresource[0] == '\0') {
        if (gcp_mf_reset(sent)) {
            mf = json_array();

        } else {
            mf = gcp_mf_decode(sent);

            if (mf && json_array_size(mf) == 0) {
                json_decref(mf);
                mf = NULL;
            }
        }
    }

    if (mf == NULL) {
        mf = gcp_mf_decode(json_object_get(json_object_get(live, "metadata"),
                                           "managedFields"));
    }

    if (mf == NULL) {
        mf = json_array();
        if (mf == NULL) {
            return NULL;
        }
    }

    if (gcp_mf_diff(m, m->node, old, new, &d) != 0) {
        json_decref(mf);
        return NULL;
    }

    if (gcp_mf_diffs(m, d.ch, d.rm, &ds) != 0) {
        json_decref(mf);
        return NULL;
    }

    /*
     * Upstream's Updater takes the changed and removed fields from every
     * manager (this one's entry too) and gives this one the changed ones
     * with a new time: this entry becomes (own - removed) | changed.
     */

    ch = ds.d[0].ch;
    e = NULL;

    json_array_foreach(mf, i, u) {
        if (gcp_mf_is(u, m, "Update")) {
            e = u;
            break;
        }
    }

    if (gcp_mf_take(mf, &ds, e) != 0) {
        goto failed;
    }

    if (e) {
        if (gcp_mf_drop(e, ds.d[0].rm) != 0) {
            goto failed;
        }

        if (!gcp_fieldset_subset(ch, json_object_get(e, "fieldsV1"))) {
            u = gcp_fieldset_union(json_object_get(e, "fieldsV1"), ch);

            if (u == NULL || json_object_set_new(e, "fieldsV1", u) != 0) {
                goto failed;
            }
        }

        if (!gcp_fieldset_empty(ch)) {
            json_object_set_new(e, "time", json_string(m->now));
        }
    }

    if (gcp_mf_settle(mf, e, m, "Update", ch) != 0) {
        goto failed;
    }

    gcp_mf_diffs_free(&ds);

    if (gcp_mf_cap(mf) != 0) {
        json_decref(mf);
        return NULL;
    }

    return gcp_mf_encode(mf);

failed:

    gcp_mf_diffs_free(&ds);
    json_decref(mf);

    return NULL;
}


/* upstream's printManager() of an entry's identity */

static char *
gcp_mf_print(const json_t *e)
{
    char        *out;
    size_t       n;
    const char  *sub, *mgr;

    mgr = gcp_mf_str(e, "manager");
    sub = gcp_mf_str(e, "subresource");

    n = 2 * strlen(mgr) + strlen(sub) + strlen(gcp_mf_str(e, "apiVersion"))
        + 64;
    out = malloc(n);

    if (out == NULL) {
        return NULL;
    }

    snprintf(out, n, "\"%s\"%s%s%s%s%s", mgr,
             sub[0] ? " with subresource \"" : "", sub, sub[0] ? "\"" : "",
             strcmp(gcp_mf_str(e, "operation"), "Update") == 0
             ? " using " : "",
             strcmp(gcp_mf_str(e, "operation"), "Update") == 0
             ? gcp_mf_str(e, "apiVersion") : "");

    return out;
}


static int
gcp_mf_conflict_cmp(const void *one, const void *two)
{
    const json_t  *p = *(const json_t * const *) one;
    const json_t  *q = *(const json_t * const *) two;

    return strcmp(gcp_mf_str(p, "manager"), gcp_mf_str(q, "manager"));
}


/*
 * The conflicts of the entries but self with what the write changed as
 * their apiVersion sees it (changed: in the request's), sorted.
 */

static json_t *
gcp_mf_conflicts(json_t *mf, const json_t *self, const gcp_mf_diffs_t *ds,
    const json_t *changed)
{
    char          *who;
    size_t         i, j, n;
    json_t        *out, *e, *c, *paths, **v;
    const json_t  *ch;

    n = json_array_size(mf);
    v = gcp_mf_sorted(mf, gcp_mf_conflict_cmp);
    out = json_array();

    if (v == NULL || out == NULL) {
        free(v);
        json_decref(out);
        return NULL;
    }

    for (i = 0; i < n; i++) {
        e = v[i];
        ch = gcp_mf_diff_of(ds, e) == &ds->d[0] ? changed
                                                : gcp_mf_diff_of(ds, e)->ch;

        if (e == self
            || !gcp_fieldset_intersects(json_object_get(e, "fieldsV1"), ch))
        {
            continue;
        }

        c = gcp_fieldset_intersection(json_object_get(e, "fieldsV1"), ch);
        paths = c ? gcp_fieldset_paths(c) : NULL;
        who = gcp_mf_print(e);
        json_decref(c);

        if (paths == NULL || who == NULL) {
            json_decref(paths);
            free(who);
            json_decref(out);
            free(v);
            return NULL;
        }

        for (j = 0; j < json_array_size(paths); j++) {
            json_array_append_new(out, json_pack("{s:s,s:O}", "manager", who,
                                                 "path",
                                                 json_array_get(paths, j)));
        }

        free(who);
        json_decref(paths);
    }

    free(v);

    return out;
}


#define GCP_MF_LAST_APPLIED  "kubectl.kubernetes.io/last-applied-configuration"
#define GCP_MF_KUBECTL       "kubectl"


static const char *
gcp_mf_last_applied(const json_t *obj)
{
    return json_string_value(json_object_get(
               json_object_get(json_object_get(obj, "metadata"),
                               "annotations"),
               GCP_MF_LAST_APPLIED));
}


/*
 * What kubectl's client-side apply last applied to live, as a field set:
 * conflicts there are no conflicts for kubectl's server-side apply
 * (upstream's lastAppliedManager).  NULL when there is none.
 */

static json_t *
gcp_mf_allowed(const gcp_managed_t *m, const json_t *live)
{
    json_t      *last, *out;
    const char  *s;

    if (strcmp(m->manager, GCP_MF_KUBECTL) != 0) {
        return NULL;
    }

    s = gcp_mf_last_applied(live);

    if (s == NULL || s[0] == '\0') {
        return NULL;
    }

    last = json_loads(s, 0, NULL);
    out = json_is_object(last) ? gcp_fieldset_of(m->set, m->node, last, 0)
                               : NULL;
    json_decref(last);

    return out;
}


/*
 * kubectl's server-side apply keeps an object's last-applied annotation
 * in step with what it applies (upstream's lastAppliedUpdater): the
 * configuration without that annotation, as Go marshals a map.
 */

static int
gcp_mf_sync_last_applied(const gcp_managed_t *m, json_t *out,
    const json_t *config)
{
    char    *s;
    json_t  *c, *meta, *ann;

    if (strcmp(m->manager, GCP_MF_KUBECTL) != 0
        || gcp_mf_last_applied(out) == NULL)
    {
        return 0;
    }

    c = gcp_json_deep_copy(config);
    if (c == NULL) {
        return -1;
    }

    meta = json_object_get(c, "metadata");
    ann = json_object_get(meta, "annotations");
    json_object_del(ann, GCP_MF_LAST_APPLIED);

    if (json_is_object(ann) && json_object_size(ann) == 0) {
        json_object_del(meta, "annotations");
    }

    s = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(c);

    if (s == NULL) {
        return -1;
    }

    ann = json_object_get(json_object_get(out, "metadata"), "annotations");
    json_object_set_new(ann, GCP_MF_LAST_APPLIED, json_string(s));
    free(s);

    return 0;
}


/*
 * What an apply of config makes of live (l: without managedFields, mf its
 * decoded entries, self the manager's Apply entry or NULL, full the set
 * of config): the merge, less what self applied before and no longer
 * unless another entry or the configuration owns it.  Returns a new
 * reference, or NULL when out of memory.
 */

static json_t *
gcp_mf_merge(const gcp_managed_t *m, const json_t *mf, const json_t *self,
    const json_t *l, const json_t *config, const json_t *full)
{
    size_t   i;
    json_t  *out, *others, *u, *e, *a, *b;

    out = gcp_apply_merge(m->set, m->node, l, config);

    if (out == NULL || self == NULL
        || gcp_fieldset_empty(json_object_get(self, "fieldsV1")))
    {
        return out;
    }

    others = json_incref((json_t *) full);

    json_array_foreach(mf, i, e) {
        if (e != self && others) {
            u = gcp_fieldset_union(others, json_object_get(e, "fieldsV1"));
            json_decref(others);
            others = u;
        }
    }

    a = gcp_apply_with_parents(m->self_lost
                               ? m->self_lost
                               : json_object_get(self, "fieldsV1"));
    b = others ? gcp_apply_with_parents(others) : NULL;
    u = a && b ? gcp_fieldset_difference(a, b) : NULL;

    json_decref(others);
    json_decref(a);
    json_decref(b);

    if (u == NULL) {
        json_decref(out);
        return NULL;
    }

    gcp_apply_remove(m->set, m->node, out, u);
    json_decref(u);

    return out;
}


/* The manager's Apply entry of mf, or NULL. */

static json_t *
gcp_mf_self(const gcp_managed_t *m, const json_t *mf)
{
    size_t   i;
    json_t  *e;

    json_array_foreach(mf, i, e) {
        if (gcp_mf_is(e, m, "Apply")) {
            return e;
        }
    }

    return NULL;
}


/* The decoded entries of live and live without them (l, never NULL). */

static json_t *
gcp_mf_live(const json_t *live, json_t **l)
{
    json_t  *mf;

    mf = gcp_mf_decode(json_object_get(json_object_get(live, "metadata"),
                                       "managedFields"));
    if (mf == NULL) {
        mf = json_array();
    }

    *l = live ? gcp_mf_without(live) : json_object();

    return mf;
}


json_t *
gcp_managed_applied(const gcp_managed_t *m, const json_t *live,
    const json_t *config)
{
    json_t  *mf, *l, *full, *out;

    mf = gcp_mf_live(live, &l);
    full = gcp_fieldset_of(m->set, m->node, config, 0);
    out = mf && l && full ? gcp_mf_merge(m, mf, gcp_mf_self(m, mf), l,
                                         config, full)
                          : NULL;

    json_decref(mf);
    json_decref(l);
    json_decref(full);

    return out;
}


const char *
gcp_managed_self_version(const gcp_managed_t *m, const json_t *live)
{
    size_t         i;
    const char    *av;
    const json_t  *e;

    json_array_foreach(json_object_get(json_object_get(live, "metadata"),
                                       "managedFields"), i, e)
    {
        if (!gcp_mf_is(e, m, "Apply")) {
            continue;
        }

        av = gcp_mf_str(e, "apiVersion");

        if (av[0] == '\0' || strcmp(av, m->api_version) == 0
            || gcp_fieldset_empty(json_object_get(e, "fieldsV1")))
        {
            return NULL;
        }

        return av;
    }

    return NULL;
}


json_t *
gcp_managed_merged(const gcp_managed_t *m, const json_t *live,
    const json_t *config)
{
    json_t  *l, *out;

    l = live ? gcp_mf_without(live) : json_object();
    out = l ? gcp_apply_merge(m->set, m->node, l, config) : NULL;
    json_decref(l);

    return out;
}


json_t *
gcp_managed_prune_self(const gcp_managed_t *m, const json_t *live,
    const json_t *node, const json_t *merged)
{
    size_t       i;
    json_t      *mf, *self, *e, *others, *u, *out;
    const char  *av;

    mf = gcp_mf_live(live, &u);
    json_decref(u);

    self = mf ? gcp_mf_self(m, mf) : NULL;
    out = gcp_json_deep_copy(merged);

    if (self == NULL || out == NULL) {
        json_decref(mf);
        return out;
    }

    av = gcp_mf_str(self, "apiVersion");
    others = json_object();

    json_array_foreach(mf, i, e) {
        if (e != self && others && strcmp(gcp_mf_str(e, "apiVersion"), av)
                                   == 0)
        {
            u = gcp_fieldset_union(others, json_object_get(e, "fieldsV1"));
            json_decref(others);
            others = u;
        }
    }

    /* its members only: gcp_mf_merge() removes their parents */

    u = others ? gcp_fieldset_difference(json_object_get(self, "fieldsV1"),
                                         others)
               : NULL;

    if (u) {
        gcp_apply_remove(m->set, node, out, u);

    } else {
        json_decref(out);
        out = NULL;
    }

    json_decref(u);
    json_decref(others);
    json_decref(mf);

    return out;
}


json_t *
gcp_managed_lost(const gcp_managed_t *m, const json_t *merged,
    const json_t *pruned)
{
    json_t  *a, *b, *out;

    a = gcp_fieldset_of(m->set, m->node, merged, 1);
    b = gcp_fieldset_of(m->set, m->node, pruned, 1);
    out = a && b ? gcp_fieldset_difference(a, b) : NULL;

    json_decref(a);
    json_decref(b);

    return out;
}


json_t *
gcp_managed_versions(const gcp_managed_t *m, const json_t *a,
    const json_t *b)
{
    size_t         i, j, k;
    json_t        *out, *e, *v;
    const json_t  *mf;
    const char    *av;

    out = json_array();
    if (out == NULL) {
        return NULL;
    }

    for (j = 0; j < 2; j++) {
        mf = j ? b : a;

        json_array_foreach(mf, i, e) {
            av = json_string_value(json_object_get(e, "apiVersion"));

            if (av == NULL || av[0] == '\0'
                || strcmp(av, m->api_version) == 0
                || json_array_size(out) >= GCP_MANAGED_MAX_VIEWS)
            {
                continue;
            }

            json_array_foreach(out, k, v) {
                if (strcmp(json_string_value(v), av) == 0) {
                    break;
                }
            }

            if (k == json_array_size(out)
                && json_array_append_new(out, json_string(av)) != 0)
            {
                json_decref(out);
                return NULL;
            }
        }
    }

    return out;
}


int
gcp_managed_apply(const gcp_managed_t *m, const json_t *live,
    const json_t *config, int force, json_t **merged, json_t **conflicts)
{
    int              rc;
    json_t          *mf, *l, *out, *full, *cfg, *self, *u;
    json_t          *meta, *allowed;
    gcp_mf_diff_t    d;
    gcp_mf_diffs_t   ds;

    *merged = NULL;
    *conflicts = NULL;

    mf = gcp_mf_live(live, &l);
    full = gcp_fieldset_of(m->set, m->node, config, 0);
    cfg = full ? gcp_mf_scope(m, gcp_json_deep_copy(full)) : NULL;
    self = mf ? gcp_mf_self(m, mf) : NULL;
    out = mf && l && full ? gcp_mf_merge(m, mf, self, l, config, full)
                          : NULL;

    ds.n = 0;
    rc = -1;

    if (mf == NULL || l == NULL || out == NULL || cfg == NULL) {
        goto done;
    }

    if (gcp_mf_diff(m, m->node, l, out, &d) != 0
        || gcp_mf_diffs(m, d.ch, d.rm, &ds) != 0)
    {
        goto done;
    }

    if (!force) {
        allowed = gcp_mf_allowed(m, live);

        if (allowed) {
            u = gcp_fieldset_difference(ds.d[0].ch, allowed);
            json_decref(allowed);

            if (u == NULL) {
                goto done;
            }

            *conflicts = gcp_mf_conflicts(mf, self, &ds, u);
            json_decref(u);

        } else {
            *conflicts = gcp_mf_conflicts(mf, self, &ds, ds.d[0].ch);
        }

        if (*conflicts == NULL) {
            goto done;
        }

        if (json_array_size(*conflicts)) {
            rc = 1;
            goto done;
        }

        json_decref(*conflicts);
        *conflicts = NULL;
    }

    if (gcp_mf_take(mf, &ds, self) != 0) {
        goto done;
    }

    if (self) {
        if (!gcp_json_equal(json_object_get(self, "fieldsV1"), cfg)
            || !gcp_fieldset_empty(ds.d[0].ch)
            || !gcp_fieldset_empty(ds.d[0].rm))
        {
            json_object_set_new(self, "time", json_string(m->now));
        }

        /* the set is in the apply's apiVersion now (upstream's Apply) */
        json_object_set(self, "fieldsV1", cfg);
        json_object_set_new(self, "apiVersion",
                            json_string(m->api_version));
    }

    if (gcp_mf_settle(mf, self, m, "Apply", cfg) != 0) {
        goto done;
    }

    if (gcp_mf_sync_last_applied(m, out, config) != 0) {
        goto done;
    }

    if (gcp_mf_cap(mf) != 0) {
        goto done;
    }

    mf = gcp_mf_encode(mf);
    meta = json_object_get(out, "metadata");

    if (mf == NULL || !json_is_object(meta)) {
        goto done;
    }

    if (json_array_size(mf)) {
        json_object_set(meta, "managedFields", mf);

    } else {
        json_object_del(meta, "managedFields");
    }

    *merged = json_incref(out);
    rc = 0;

done:

    gcp_mf_diffs_free(&ds);
    json_decref(mf);
    json_decref(l);
    json_decref(out);
    json_decref(full);
    json_decref(cfg);

    return rc;
}


const char *
gcp_managed_manager(const char *field_manager, const char *user_agent,
    char *buf, size_t size)
{
    size_t  n;

    if (field_manager && field_manager[0]) {
        return field_manager;
    }

    n = 0;

    for ( /* void */ ; user_agent && *user_agent && *user_agent != '/';
         user_agent++)
    {
        unsigned char  c = (unsigned char) *user_agent;

        if (c < 0x20 || c == 0x7f) {
            continue;
        }

        if (n + 1 >= size || n >= 128) {
            break;
        }

        buf[n++] = (char) c;
    }

    buf[n] = '\0';

    return buf;
}
