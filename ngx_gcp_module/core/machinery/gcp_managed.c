
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
    json_t       *e, *out, *fs;
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

    out = gcp_json_deep_copy(mf);

    json_array_foreach(out, i, e) {
        if (json_object_get(e, "fieldsV1") == NULL) {
            json_object_set_new(e, "fieldsV1", json_object());
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

            if (o && !(json_is_string(o) && json_string_length(o) == 0
                       && strcmp(keys[k], "manager") != 0))
            {
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


/*
 * Takes the sets changed and removed from every entry but skip (an index,
 * or -1), dropping entries left empty.  Returns 0 or -1.
 */

static int
gcp_mf_take(json_t *mf, const json_t *changed, const json_t *removed,
    const json_t *skip)
{
    size_t   i;
    json_t  *e, *s, *t;

    for (i = 0; i < json_array_size(mf); /* void */) {
        e = json_array_get(mf, i);

        if (e == skip) {
            i++;
            continue;
        }

        s = gcp_fieldset_difference(json_object_get(e, "fieldsV1"), changed);
        t = s ? gcp_fieldset_difference(s, removed) : NULL;
        json_decref(s);

        if (t == NULL) {
            return -1;
        }

        if (gcp_fieldset_empty(t)) {
            json_decref(t);
            json_array_remove(mf, i);
            continue;
        }

        json_object_set_new(e, "fieldsV1", t);
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


json_t *
gcp_managed_update(const gcp_managed_t *m, const json_t *sent,
    const json_t *live, const json_t *old, const json_t *new)
{
    int       rc;
    size_t    i;
    json_t   *mf, *o, *n, *ch, *rm, *e, *u;

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

    o = gcp_mf_without(old);
    n = gcp_mf_without(new);

    rc = gcp_apply_compare(m->set, m->node, o, n, &ch, &rm);

    json_decref(o);
    json_decref(n);

    if (rc != 0) {
        json_decref(mf);
        return NULL;
    }

    ch = gcp_mf_scope(m, ch);
    rm = gcp_mf_scope(m, rm);

    if (gcp_mf_take(mf, ch, rm, NULL) != 0) {
        goto failed;
    }

    if (!gcp_fieldset_empty(ch)) {
        e = NULL;

        json_array_foreach(mf, i, u) {
            if (gcp_mf_is(u, m, "Update")) {
                e = u;
                break;
            }
        }

        if (e) {
            u = gcp_fieldset_union(json_object_get(e, "fieldsV1"), ch);

            if (u == NULL) {
                goto failed;
            }

            json_object_set_new(e, "fieldsV1", u);
            json_object_set_new(e, "time", json_string(m->now));

        } else if (json_array_append_new(mf, gcp_mf_entry(m, "Update",
                                                          json_incref(ch)))
                   != 0)
        {
            goto failed;
        }
    }

    json_decref(ch);
    json_decref(rm);

    if (gcp_mf_cap(mf) != 0) {
        json_decref(mf);
        return NULL;
    }

    return gcp_mf_encode(mf);

failed:

    json_decref(ch);
    json_decref(rm);
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


/* The conflicts of the entries but self with changed, sorted. */

static json_t *
gcp_mf_conflicts(json_t *mf, const json_t *self, const json_t *changed)
{
    char    *who;
    size_t   i, j, n;
    json_t  *out, *e, *c, *paths, **v;

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

        if (e == self) {
            continue;
        }

        c = gcp_fieldset_intersection(json_object_get(e, "fieldsV1"),
                                      changed);
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


int
gcp_managed_apply(const gcp_managed_t *m, const json_t *live,
    const json_t *config, int force, json_t **merged, json_t **conflicts)
{
    int       rc;
    size_t    i;
    json_t   *mf, *l, *out, *full, *cfg, *self, *others, *u, *e, *a, *b;
    json_t   *ch, *rm, *meta, *allowed;

    *merged = NULL;
    *conflicts = NULL;

    mf = gcp_mf_decode(json_object_get(json_object_get(live, "metadata"),
                                       "managedFields"));
    if (mf == NULL) {
        mf = json_array();
    }

    l = gcp_mf_without(live);
    if (l == NULL) {
        l = json_object();
    }

    out = gcp_apply_merge(m->set, m->node, l, config);
    full = gcp_fieldset_of(m->set, m->node, config, 0);
    cfg = full ? gcp_mf_scope(m, gcp_json_deep_copy(full)) : NULL;

    ch = NULL;
    rm = NULL;
    rc = -1;

    if (mf == NULL || l == NULL || out == NULL || cfg == NULL) {
        goto done;
    }

    self = NULL;

    json_array_foreach(mf, i, e) {
        if (gcp_mf_is(e, m, "Apply")) {
            self = e;
            break;
        }
    }

    /* the fields applied before and no longer: removed unless owned */

    if (self && !gcp_fieldset_empty(json_object_get(self, "fieldsV1"))) {
        others = json_incref(full);

        json_array_foreach(mf, i, e) {
            if (e != self && others) {
                u = gcp_fieldset_union(others, json_object_get(e,
                                                               "fieldsV1"));
                json_decref(others);
                others = u;
            }
        }

        a = gcp_apply_with_parents(json_object_get(self, "fieldsV1"));
        b = others ? gcp_apply_with_parents(others) : NULL;
        u = a && b ? gcp_fieldset_difference(a, b) : NULL;

        json_decref(others);
        json_decref(a);
        json_decref(b);

        if (u == NULL) {
            goto done;
        }

        gcp_apply_remove(m->set, m->node, out, u);
        json_decref(u);
    }

    if (gcp_apply_compare(m->set, m->node, l, out, &ch, &rm) != 0) {
        goto done;
    }

    ch = gcp_mf_scope(m, ch);
    rm = gcp_mf_scope(m, rm);

    if (!force) {
        allowed = gcp_mf_allowed(m, live);

        if (allowed) {
            u = gcp_fieldset_difference(ch, allowed);
            json_decref(allowed);

            if (u == NULL) {
                goto done;
            }

            *conflicts = gcp_mf_conflicts(mf, self, u);
            json_decref(u);

        } else {
            *conflicts = gcp_mf_conflicts(mf, self, ch);
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

    if (gcp_mf_take(mf, ch, rm, self) != 0) {
        goto done;
    }

    if (self) {
        if (!gcp_json_equal(json_object_get(self, "fieldsV1"), cfg)
            || !gcp_fieldset_empty(ch) || !gcp_fieldset_empty(rm))
        {
            json_object_set_new(self, "time", json_string(m->now));
        }

        json_object_set(self, "fieldsV1", cfg);

        if (gcp_fieldset_empty(cfg)) {
            json_array_foreach(mf, i, e) {
                if (e == self) {
                    json_array_remove(mf, i);
                    break;
                }
            }
        }

    } else if (!gcp_fieldset_empty(cfg)
               && json_array_append_new(mf, gcp_mf_entry(m, "Apply",
                                                         json_incref(cfg)))
                  != 0)
    {
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

    json_decref(ch);
    json_decref(rm);
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
