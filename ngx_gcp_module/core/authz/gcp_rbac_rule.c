
/*
 * RBAC policy rules: parsing, matching, covering, describing (see
 * gcp_rbac_rule.h).
 */

#include <stdlib.h>

#include "gcp_ferr.h"
#include "gcp_rbac_rule.h"


static int
gcp_rbac_strs_parse(gcp_arena_t *a, const json_t *arr, gcp_rbac_strs_t *s)
{
    size_t        i, n;
    const char   *v;

    s->v = NULL;
    s->n = 0;

    n = json_array_size(arr);
    if (n == 0) {
        return GCP_OK;
    }

    s->v = gcp_alloc(a, n * sizeof(char *));
    if (s->v == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < n; i++) {
        v = json_string_value(json_array_get(arr, i));

        if (v == NULL) {
            continue;
        }

        s->v[s->n] = gcp_strndup(a, v, json_string_length(
                                           json_array_get(arr, i)));
        if (s->v[s->n] == NULL) {
            return GCP_ENOMEM;
        }

        s->n++;
    }

    return GCP_OK;
}


int
gcp_rbac_rules_parse(gcp_arena_t *a, const json_t *rules,
    gcp_rbac_rule_t **out, size_t *n)
{
    size_t            i, count;
    json_t           *r;
    gcp_rbac_rule_t  *rule;

    *out = NULL;
    *n = 0;

    count = json_array_size(rules);
    if (count == 0) {
        return GCP_OK;
    }

    *out = gcp_calloc(a, count * sizeof(gcp_rbac_rule_t));
    if (*out == NULL) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < count; i++) {
        r = json_array_get(rules, i);

        if (!json_is_object(r)) {
            continue;
        }

        rule = &(*out)[*n];

        if (gcp_rbac_strs_parse(a, json_object_get(r, "verbs"),
                                &rule->verbs) != GCP_OK
            || gcp_rbac_strs_parse(a, json_object_get(r, "apiGroups"),
                                   &rule->groups) != GCP_OK
            || gcp_rbac_strs_parse(a, json_object_get(r, "resources"),
                                   &rule->resources) != GCP_OK
            || gcp_rbac_strs_parse(a, json_object_get(r, "resourceNames"),
                                   &rule->names) != GCP_OK
            || gcp_rbac_strs_parse(a, json_object_get(r, "nonResourceURLs"),
                                   &rule->urls) != GCP_OK)
        {
            return GCP_ENOMEM;
        }

        (*n)++;
    }

    return GCP_OK;
}


/* matching (RuleAllows) */


static int
gcp_rbac_has(const gcp_rbac_strs_t *s, const char *v)
{
    size_t  i;

    for (i = 0; i < s->n; i++) {
        if (strcmp(s->v[i], v) == 0) {
            return 1;
        }
    }

    return 0;
}


/* VerbMatches, APIGroupMatches: the value itself or "*". */
static int
gcp_rbac_has_or_all(const gcp_rbac_strs_t *s, const char *v)
{
    size_t  i;

    for (i = 0; i < s->n; i++) {
        if ((s->v[i][0] == '*' && s->v[i][1] == '\0')
            || strcmp(s->v[i], v) == 0)
        {
            return 1;
        }
    }

    return 0;
}


/* A URL rule: equal, "*", or a prefix ending with '*'. */
static int
gcp_rbac_url_covers(const char *rule, const char *path)
{
    size_t  len;

    if (strcmp(rule, path) == 0) {
        return 1;
    }

    len = strlen(rule);

    if (len == 0 || rule[len - 1] != '*') {
        return 0;
    }

    /* strings.TrimRight(rule, "*") */

    while (len && rule[len - 1] == '*') {
        len--;
    }

    return strncmp(rule, path, len) == 0;
}


static int
gcp_rbac_resource_matches(const gcp_rbac_rule_t *rule, const char *resource,
    const char *sub)
{
    size_t       i, rlen, slen;
    const char  *r;

    rlen = strlen(resource);
    slen = strlen(sub);

    for (i = 0; i < rule->resources.n; i++) {
        r = rule->resources.v[i];

        if (r[0] == '*' && r[1] == '\0') {
            return 1;
        }

        /* the combined "resource/subresource" */

        if (slen == 0) {
            if (strcmp(r, resource) == 0) {
                return 1;
            }

            continue;
        }

        if (strncmp(r, resource, rlen) == 0 && r[rlen] == '/'
            && strcmp(r + rlen + 1, sub) == 0)
        {
            return 1;
        }

        /* "*" "/" subresource */

        if (strlen(r) == slen + 2 && r[0] == '*' && r[1] == '/'
            && strcmp(r + 2, sub) == 0)
        {
            return 1;
        }
    }

    return 0;
}


int
gcp_rbac_rule_allows(const gcp_rbac_rule_t *rule,
    const gcp_authz_attrs_t *attrs)
{
    size_t       i;
    const char  *name;

    if (!gcp_rbac_has_or_all(&rule->verbs, attrs->verb)) {
        return 0;
    }

    if (!attrs->resource_request) {
        for (i = 0; i < rule->urls.n; i++) {
            if (gcp_rbac_url_covers(rule->urls.v[i], attrs->path)) {
                return 1;
            }
        }

        return 0;
    }

    if (!gcp_rbac_has_or_all(&rule->groups, attrs->group)
        || !gcp_rbac_resource_matches(rule, attrs->resource,
                                      attrs->subresource
                                      ? attrs->subresource : ""))
    {
        return 0;
    }

    if (rule->names.n == 0) {
        return 1;
    }

    name = attrs->name ? attrs->name : "";

    return gcp_rbac_has(&rule->names, name);
}


static int
gcp_rbac_strs_equal(const gcp_rbac_strs_t *x, const gcp_rbac_strs_t *y)
{
    size_t  i;

    if (x->n != y->n) {
        return 0;
    }

    for (i = 0; i < x->n; i++) {
        if (strcmp(x->v[i], y->v[i]) != 0) {
            return 0;
        }
    }

    return 1;
}


int
gcp_rbac_rule_equal(const gcp_rbac_rule_t *x, const gcp_rbac_rule_t *y)
{
    return gcp_rbac_strs_equal(&x->verbs, &y->verbs)
           && gcp_rbac_strs_equal(&x->groups, &y->groups)
           && gcp_rbac_strs_equal(&x->resources, &y->resources)
           && gcp_rbac_strs_equal(&x->names, &y->names)
           && gcp_rbac_strs_equal(&x->urls, &y->urls);
}


static int
gcp_rbac_strs_json(json_t *obj, const char *field, const gcp_rbac_strs_t *s,
    int always)
{
    size_t   i;
    json_t  *arr;

    if (s->n == 0 && !always) {
        return GCP_OK;
    }

    arr = json_array();

    if (arr == NULL || json_object_set_new(obj, field, arr) != 0) {
        return GCP_ENOMEM;
    }

    for (i = 0; i < s->n; i++) {
        if (json_array_append_new(arr, json_string(s->v[i])) != 0) {
            return GCP_ENOMEM;
        }
    }

    return GCP_OK;
}


json_t *
gcp_rbac_rule_json(const gcp_rbac_rule_t *rule)
{
    json_t  *r;

    r = json_object();
    if (r == NULL) {
        return NULL;
    }

    if (gcp_rbac_strs_json(r, "verbs", &rule->verbs, 1) != GCP_OK
        || gcp_rbac_strs_json(r, "apiGroups", &rule->groups, 0) != GCP_OK
        || gcp_rbac_strs_json(r, "resources", &rule->resources, 0) != GCP_OK
        || gcp_rbac_strs_json(r, "resourceNames", &rule->names, 0)
           != GCP_OK
        || gcp_rbac_strs_json(r, "nonResourceURLs", &rule->urls, 0)
           != GCP_OK)
    {
        json_decref(r);
        return NULL;
    }

    return r;
}


/* covering (Covers, breakdownRule, ruleCovers) */


/* A one-value list pointing into the original rule's strings. */
static void
gcp_rbac_one(gcp_rbac_strs_t *s, const char **v)
{
    s->v = (const char **) v;
    s->n = 1;
}


typedef struct {
    gcp_arena_t      *arena;
    gcp_rbac_rule_t  *rules;
    size_t            n;
    size_t            cap;
    unsigned          nomem:1;
} gcp_rbac_vec_t;


static gcp_rbac_rule_t *
gcp_rbac_vec_push(gcp_rbac_vec_t *v)
{
    size_t            cap;
    gcp_rbac_rule_t  *r;

    if (v->n == v->cap) {
        cap = v->cap ? v->cap * 2 : 32;

        r = gcp_alloc(v->arena, cap * sizeof(gcp_rbac_rule_t));
        if (r == NULL) {
            v->nomem = 1;
            return NULL;
        }

        if (v->n) {
            memcpy(r, v->rules, v->n * sizeof(gcp_rbac_rule_t));
        }

        v->rules = r;
        v->cap = cap;
    }

    r = &v->rules[v->n++];
    memset(r, 0, sizeof(gcp_rbac_rule_t));

    return r;
}


static int
gcp_rbac_has_all(const gcp_rbac_strs_t *set, const gcp_rbac_strs_t *sub)
{
    size_t  i;

    for (i = 0; i < sub->n; i++) {
        if (!gcp_rbac_has(set, sub->v[i])) {
            return 0;
        }
    }

    return 1;
}


static int
gcp_rbac_rule_covers(const gcp_rbac_rule_t *owner,
    const gcp_rbac_rule_t *sub)
{
    size_t  i, j;
    int     covered;

    if (!gcp_rbac_has(&owner->verbs, "*")
        && !gcp_rbac_has_all(&owner->verbs, &sub->verbs))
    {
        return 0;
    }

    if (!gcp_rbac_has(&owner->groups, "*")
        && !gcp_rbac_has_all(&owner->groups, &sub->groups))
    {
        return 0;
    }

    if (!gcp_rbac_has(&owner->resources, "*")
        && !gcp_rbac_has_all(&owner->resources, &sub->resources))
    {
        return 0;
    }

    for (i = 0; i < sub->urls.n; i++) {
        covered = 0;

        for (j = 0; j < owner->urls.n && !covered; j++) {
            covered = gcp_rbac_url_covers(owner->urls.v[j], sub->urls.v[i]);
        }

        if (!covered) {
            return 0;
        }
    }

    if (sub->names.n == 0) {
        return owner->names.n == 0;
    }

    return owner->names.n == 0 || gcp_rbac_has_all(&owner->names,
                                                   &sub->names);
}


/* Appends the simple rules of rule (breakdownRule). */
static void
gcp_rbac_breakdown(gcp_rbac_vec_t *v, const gcp_rbac_rule_t *rule)
{
    size_t            g, r, k, m;
    gcp_rbac_rule_t  *s;

    for (g = 0; g < rule->groups.n; g++) {
        for (r = 0; r < rule->resources.n; r++) {
            for (k = 0; k < rule->verbs.n; k++) {
                m = 0;

                do {
                    s = gcp_rbac_vec_push(v);
                    if (s == NULL) {
                        return;
                    }

                    gcp_rbac_one(&s->groups, &rule->groups.v[g]);
                    gcp_rbac_one(&s->resources,
                                 &rule->resources.v[r]);
                    gcp_rbac_one(&s->verbs, &rule->verbs.v[k]);

                    if (rule->names.n) {
                        gcp_rbac_one(&s->names,
                                     &rule->names.v[m]);
                    }

                } while (++m < rule->names.n);
            }
        }
    }

    for (r = 0; r < rule->urls.n; r++) {
        for (k = 0; k < rule->verbs.n; k++) {
            s = gcp_rbac_vec_push(v);
            if (s == NULL) {
                return;
            }

            gcp_rbac_one(&s->urls, &rule->urls.v[r]);
            gcp_rbac_one(&s->verbs, &rule->verbs.v[k]);
        }
    }
}


int
gcp_rbac_covers(gcp_arena_t *a, const gcp_rbac_rule_t * const *owner,
    size_t nowner, const gcp_rbac_rule_t *servant, size_t nservant,
    gcp_rbac_rule_t **missing, size_t *nmissing)
{
    size_t           i, j, k;
    gcp_rbac_vec_t   v;

    memset(&v, 0, sizeof(v));
    v.arena = a;

    for (i = 0; i < nservant; i++) {
        gcp_rbac_breakdown(&v, &servant[i]);
    }

    if (v.nomem) {
        return GCP_ENOMEM;
    }

    /* keep the uncovered ones, in place */

    k = 0;

    for (i = 0; i < v.n; i++) {
        for (j = 0; j < nowner; j++) {
            if (gcp_rbac_rule_covers(owner[j], &v.rules[i])) {
                break;
            }
        }

        if (j == nowner) {
            v.rules[k++] = v.rules[i];
        }
    }

    *missing = k ? v.rules : NULL;
    *nmissing = k;

    return GCP_OK;
}


/* describing (CompactRules, CompactString) */


/* Appends "Field:[\"a\" \"b\"]" as Go's %q of a []string. */
static void
gcp_rbac_describe_strs(gcp_buf_t *b, const char *field,
    const gcp_rbac_strs_t *s, int *first)
{
    size_t  i;

    if (s->n == 0) {
        return;
    }

    if (!*first) {
        gcp_buf_addstr(b, ", ");
    }

    *first = 0;

    gcp_buf_addstr(b, field);
    gcp_buf_addstr(b, ":[");

    for (i = 0; i < s->n; i++) {
        if (i) {
            gcp_buf_addc(b, ' ');
        }

        gcp_buf_addstr(b, gcp_ferr_quote(b->arena, s->v[i]));
    }

    gcp_buf_addc(b, ']');
}


static const char *
gcp_rbac_compact_string(gcp_arena_t *a, const gcp_rbac_rule_t *r)
{
    int        first;
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    gcp_buf_addc(&b, '{');

    first = 1;

    gcp_rbac_describe_strs(&b, "APIGroups", &r->groups, &first);
    gcp_rbac_describe_strs(&b, "Resources", &r->resources, &first);
    gcp_rbac_describe_strs(&b, "NonResourceURLs", &r->urls, &first);
    gcp_rbac_describe_strs(&b, "ResourceNames", &r->names, &first);
    gcp_rbac_describe_strs(&b, "Verbs", &r->verbs, &first);

    gcp_buf_addc(&b, '}');

    return gcp_buf_dup(&b).data;
}


static int
gcp_rbac_is_simple(const gcp_rbac_rule_t *r)
{
    return r->names.n == 0 && r->urls.n == 0 && r->groups.n == 1
           && r->resources.n == 1;
}


static int
gcp_rbac_strcmp(const void *x, const void *y)
{
    return strcmp(*(const char * const *) x, *(const char * const *) y);
}


const char *
gcp_rbac_describe_missing(gcp_arena_t *a, const gcp_rbac_rule_t *missing,
    size_t n)
{
    size_t            i, j, k, nd;
    gcp_buf_t         b;
    const char      **desc, **verbs;
    gcp_rbac_rule_t  *merged;

    merged = gcp_alloc(a, (n ? n : 1) * sizeof(gcp_rbac_rule_t));
    desc = gcp_alloc(a, (n ? n : 1) * sizeof(char *));

    if (merged == NULL || desc == NULL) {
        return NULL;
    }

    /* simple rules of one group/resource gather their verbs */

    k = 0;

    for (i = 0; i < n; i++) {
        if (gcp_rbac_is_simple(&missing[i])) {
            for (j = 0; j < k; j++) {
                if (gcp_rbac_is_simple(&merged[j])
                    && strcmp(merged[j].groups.v[0],
                              missing[i].groups.v[0]) == 0
                    && strcmp(merged[j].resources.v[0],
                              missing[i].resources.v[0]) == 0)
                {
                    break;
                }
            }

            if (j < k) {
                verbs = gcp_alloc(a, (merged[j].verbs.n
                                      + missing[i].verbs.n)
                                     * sizeof(char *));
                if (verbs == NULL) {
                    return NULL;
                }

                memcpy(verbs, merged[j].verbs.v,
                       merged[j].verbs.n * sizeof(char *));
                memcpy(verbs + merged[j].verbs.n, missing[i].verbs.v,
                       missing[i].verbs.n * sizeof(char *));

                merged[j].verbs.v = verbs;
                merged[j].verbs.n += missing[i].verbs.n;
                continue;
            }
        }

        merged[k++] = missing[i];
    }

    for (i = 0; i < k; i++) {
        desc[i] = gcp_rbac_compact_string(a, &merged[i]);
        if (desc[i] == NULL) {
            return NULL;
        }
    }

    qsort(desc, k, sizeof(char *), gcp_rbac_strcmp);

    gcp_buf_init(&b, a);
    nd = 0;

    for (i = 0; i < k; i++) {
        if (i && strcmp(desc[i], desc[i - 1]) == 0) {
            continue;
        }

        if (nd++) {
            gcp_buf_addc(&b, '\n');
        }

        gcp_buf_addstr(&b, desc[i]);
    }

    return gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);
}
