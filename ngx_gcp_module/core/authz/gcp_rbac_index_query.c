
/*
 * Queries of the RBAC index (see gcp_rbac_index.h and
 * gcp_rbac_index_int.h): objects by name, a role's rules, the bindings
 * whose subjects apply to a user (upstream's appliesTo) visited in
 * VisitRulesFor's order, and the description of where a rule comes from.
 */

#include <stdlib.h>

#include "gcp_ferr.h"
#include "gcp_rbac_index_int.h"


/* lookups */


/*
 * "NS/NAME" in buf when it fits (no printf: every request resolves its
 * bindings' roles), else in a (a NULL: NULL); NAME when ns is empty.
 */
static const char *
gcp_rbac_id(char *buf, size_t len, gcp_arena_t *a, const char *ns,
    const char *name)
{
    size_t  nslen, namelen;

    if (ns == NULL || ns[0] == '\0') {
        return name;
    }

    nslen = strlen(ns);
    namelen = strlen(name);

    if (nslen + namelen + 2 > len) {
        return a ? gcp_sprintf(a, "%s/%s", ns, name) : NULL;
    }

    memcpy(buf, ns, nslen);
    buf[nslen] = '/';
    memcpy(buf + nslen + 1, name, namelen + 1);

    return buf;
}


const gcp_rbac_obj_t *
gcp_rbac_index_get(gcp_rbac_index_t *ix, gcp_rbac_kind_t kind,
    const char *ns, const char *name)
{
    char         buf[GCP_RBAC_KEY_BUF];
    const char  *id;

    id = gcp_rbac_id(buf, sizeof(buf), NULL, ns, name);
    if (id == NULL) {
        return NULL;
    }

    return gcp_rbac_objs_get(&ix->objs[kind], id);
}


size_t
gcp_rbac_index_list(gcp_rbac_index_t *ix, gcp_rbac_kind_t kind,
    gcp_rbac_obj_t * const **objs)
{
    *objs = ix->objs[kind].v;

    return ix->objs[kind].n;
}


int
gcp_rbac_index_role_rules(gcp_rbac_index_t *ix, gcp_arena_t *a,
    const char *role_kind, const char *ns, const char *name,
    const gcp_rbac_rule_t **rules, size_t *n, const char **err)
{
    char                   buf[GCP_RBAC_KEY_BUF];
    const char            *id;
    const gcp_rbac_obj_t  *o;

    *rules = NULL;
    *n = 0;
    *err = NULL;

    if (strcmp(role_kind, "ClusterRole") == 0) {
        o = gcp_rbac_objs_get(&ix->objs[GCP_RBAC_CLUSTERROLE], name);

        if (o == NULL) {
            *err = gcp_sprintf(a, "clusterrole.rbac.authorization.k8s.io "
                               "%s not found", gcp_ferr_quote(a, name));
            return GCP_ENOTFOUND;
        }

    } else if (strcmp(role_kind, "Role") == 0) {
        o = NULL;

        if (ns && ns[0]) {
            id = gcp_rbac_id(buf, sizeof(buf), a, ns, name);
            o = id ? gcp_rbac_objs_get(&ix->objs[GCP_RBAC_ROLE], id) : NULL;
        }

        if (o == NULL) {
            *err = gcp_sprintf(a, "role.rbac.authorization.k8s.io %s not "
                               "found", gcp_ferr_quote(a, name));
            return GCP_ENOTFOUND;
        }

    } else {
        *err = gcp_sprintf(a, "unsupported role reference kind: %s",
                           gcp_ferr_quote(a, role_kind));
        return GCP_ENOTFOUND;
    }

    *rules = o->rules;
    *n = o->nrules;

    return GCP_OK;
}


/* visiting */


static int
gcp_rbac_user_in(const gcp_user_t *user, const char *group)
{
    size_t  i;

    for (i = 0; user->groups && i < user->ngroups; i++) {
        if (user->groups[i] && strcmp(user->groups[i], group) == 0) {
            return 1;
        }
    }

    return 0;
}


/* serviceaccount.MatchesUsername */
static int
gcp_rbac_sa_matches(const char *ns, const char *name, const char *user)
{
    size_t  plen, nlen;

    plen = sizeof(GCP_RBAC_SA_PREFIX) - 1;

    if (strncmp(user, GCP_RBAC_SA_PREFIX, plen) != 0) {
        return 0;
    }

    user += plen;
    nlen = strlen(ns);

    return strncmp(user, ns, nlen) == 0 && user[nlen] == ':'
           && strcmp(user + nlen + 1, name) == 0;
}


/* appliesTo: the first subject of b that applies to user, or NULL. */
static const gcp_rbac_subject_t *
gcp_rbac_applies(const gcp_rbac_obj_t *b, const gcp_user_t *user)
{
    size_t                     i;
    const char                *ns, *uname;
    const gcp_rbac_subject_t  *s;

    uname = user->name ? user->name : "";

    for (i = 0; i < b->nsubjects; i++) {
        s = &b->subjects[i];

        if (strcmp(s->kind, "User") == 0) {
            if (strcmp(s->name, uname) == 0) {
                return s;
            }

        } else if (strcmp(s->kind, "Group") == 0) {
            if (gcp_rbac_user_in(user, s->name)) {
                return s;
            }

        } else if (strcmp(s->kind, "ServiceAccount") == 0) {
            ns = s->ns[0] ? s->ns : b->ns;

            if (ns[0] && gcp_rbac_sa_matches(ns, s->name, uname)) {
                return s;
            }
        }
    }

    return NULL;
}


typedef struct {
    gcp_rbac_obj_t  **v;
    size_t            n;
    size_t            cap;
    gcp_arena_t      *arena;
} gcp_rbac_cands_t;


static int
gcp_rbac_cands_add(gcp_rbac_cands_t *c, gcp_rbac_obj_t *b)
{
    size_t            cap;
    gcp_rbac_obj_t  **v;

    if (c->n == c->cap) {
        cap = c->cap * 2;

        v = gcp_alloc(c->arena, cap * sizeof(gcp_rbac_obj_t *));
        if (v == NULL) {
            return GCP_ENOMEM;
        }

        memcpy(v, c->v, c->n * sizeof(gcp_rbac_obj_t *));
        c->v = v;
        c->cap = cap;
    }

    c->v[c->n++] = b;

    return GCP_OK;
}


/* Adds the bindings entered under PREFIX NAME. */
static void
gcp_rbac_collect(gcp_rbac_index_t *ix, gcp_rbac_cands_t *c,
    const char *prefix, const char *name)
{
    char         buf[GCP_RBAC_KEY_BUF], *key;
    size_t       i, plen, nlen;

    plen = strlen(prefix);
    nlen = strlen(name);

    if (plen + nlen < sizeof(buf)) {
        key = buf;

    } else {
        key = gcp_alloc(c->arena, plen + nlen + 1);
        if (key == NULL) {
            return;
        }
    }

    memcpy(key, prefix, plen);
    memcpy(key + plen, name, nlen + 1);

    for (i = gcp_rbac_skeys_lower(&ix->skeys, key);
         i < ix->skeys.n && strcmp(ix->skeys.v[i].key, key) == 0;
         i++)
    {
        if (gcp_rbac_cands_add(c, ix->skeys.v[i].binding) != GCP_OK) {
            return;
        }
    }
}


static int
gcp_rbac_cand_cmp(const void *x, const void *y)
{
    const gcp_rbac_obj_t  *a = *(const gcp_rbac_obj_t * const *) x;
    const gcp_rbac_obj_t  *b = *(const gcp_rbac_obj_t * const *) y;

    if (a->kind != b->kind) {
        /* ClusterRoleBindings first */
        return a->kind == GCP_RBAC_CLUSTERROLEBINDING ? -1 : 1;
    }

    return strcmp(a->id, b->id);
}


/* Visits the rules of the bindings in c; returns 0 when visit stopped. */
static int
gcp_rbac_visit_bindings(gcp_rbac_index_t *ix, gcp_arena_t *a,
    const gcp_user_t *user, gcp_rbac_cands_t *c, gcp_rbac_visit_pt visit,
    void *arg)
{
    size_t                  i, j, n;
    const char             *err;
    gcp_rbac_source_t       src;
    const gcp_rbac_obj_t   *b;
    const gcp_rbac_rule_t  *rules;

    if (c->n > 1) {
        qsort(c->v, c->n, sizeof(gcp_rbac_obj_t *), gcp_rbac_cand_cmp);
    }

    for (i = 0; i < c->n; i++) {
        b = c->v[i];

        if (i && b == c->v[i - 1]) {
            continue;
        }

        src.binding = b;
        src.subject = gcp_rbac_applies(b, user);

        if (src.subject == NULL) {
            continue;
        }

        if (gcp_rbac_index_role_rules(ix, a, b->role_kind, b->ns,
                                      b->role_name, &rules, &n, &err)
            != GCP_OK)
        {
            if (!visit(arg, NULL, NULL, err)) {
                return 0;
            }

            continue;
        }

        for (j = 0; j < n; j++) {
            if (!visit(arg, &src, &rules[j], NULL)) {
                return 0;
            }
        }
    }

    return 1;
}


void
gcp_rbac_index_visit(gcp_rbac_index_t *ix, gcp_arena_t *a,
    const gcp_user_t *user, const char *ns, gcp_rbac_visit_pt visit,
    void *arg)
{
    char               prefix[GCP_RBAC_KEY_BUF];
    size_t             i, len;
    gcp_rbac_obj_t    *local[32];
    gcp_rbac_cands_t   c;

    c.v = local;
    c.n = 0;
    c.cap = gcp_nelems(local);
    c.arena = a;

    gcp_rbac_collect(ix, &c, "c/u/", user->name ? user->name : "");

    for (i = 0; user->groups && i < user->ngroups; i++) {
        if (user->groups[i]) {
            gcp_rbac_collect(ix, &c, "c/g/", user->groups[i]);
        }
    }

    if (!gcp_rbac_visit_bindings(ix, a, user, &c, visit, arg)) {
        return;
    }

    if (ns == NULL || ns[0] == '\0') {
        return;
    }

    /* "n/NS/u/" without printf: this runs for every request */

    len = strlen(ns);
    if (len + sizeof("n//u/") > sizeof(prefix)) {
        return;
    }

    prefix[0] = 'n';
    prefix[1] = '/';
    memcpy(prefix + 2, ns, len);
    memcpy(prefix + 2 + len, "/u/", sizeof("/u/"));

    c.n = 0;

    gcp_rbac_collect(ix, &c, prefix, user->name ? user->name : "");

    prefix[strlen(prefix) - 2] = 'g';

    for (i = 0; user->groups && i < user->ngroups; i++) {
        if (user->groups[i]) {
            gcp_rbac_collect(ix, &c, prefix, user->groups[i]);
        }
    }

    (void) gcp_rbac_visit_bindings(ix, a, user, &c, visit, arg);
}


static const char *
gcp_rbac_describe_subject(gcp_arena_t *a, const gcp_rbac_subject_t *s,
    const char *binding_ns)
{
    const char  *who;

    if (strcmp(s->kind, "ServiceAccount") == 0) {
        who = gcp_sprintf(a, "%s/%s", s->name,
                          s->ns[0] ? s->ns : binding_ns);

    } else {
        who = s->name;
    }

    return who ? gcp_sprintf(a, "%s %s", s->kind, gcp_ferr_quote(a, who))
               : NULL;
}


const char *
gcp_rbac_source_string(gcp_arena_t *a, const gcp_rbac_source_t *src)
{
    const char            *subject, *name;
    const gcp_rbac_obj_t  *b = src->binding;

    subject = gcp_rbac_describe_subject(a, src->subject, b->ns);

    if (b->kind == GCP_RBAC_CLUSTERROLEBINDING) {
        name = b->name;

    } else {
        name = gcp_sprintf(a, "%s/%s", b->name, b->ns);
    }

    if (subject == NULL || name == NULL) {
        return NULL;
    }

    return gcp_sprintf(a, "%s %s of %s %s to %s",
                       b->kind == GCP_RBAC_CLUSTERROLEBINDING
                       ? "ClusterRoleBinding" : "RoleBinding",
                       gcp_ferr_quote(a, name), b->role_kind,
                       gcp_ferr_quote(a, b->role_name), subject);
}
