
/*
 * RequiredLabels: the example admission plugin of
 * docs/admission-plugins.md, written only against gcp_admission_plugin.h.
 * Objects created or updated in some namespaces must carry some labels;
 * a label may have a default, which the mutating step sets when it is
 * missing; the validating step refuses objects still missing a label.
 *
 *     gcp_enable_admission_plugins RequiredLabels;
 *     gcp_admission_plugin_config RequiredLabels
 *         "team-*:owner,tier=web" "prod:owner,cost-center";
 *
 * Each argument is NAMESPACES:LABEL[=DEFAULT][,...]: NAMESPACES is a
 * namespace name, a prefix ending in '*', or '*' for every namespace.
 * Cluster-scoped objects and subresources are not concerned.
 */

#include <stdio.h>
#include <stdlib.h>

#include "gcp_admission_plugin.h"
#include "gcp_plugins.h"
#include "gcp_json.h"
#include "gcp_validation.h"


typedef struct {
    char          *namespaces;      /* pattern */
    char         **keys;            /* NULL-terminated */
    char         **values;          /* the defaults: NULL for none */
    size_t         n;
} gcp_reqlabels_rule_t;


typedef struct {
    gcp_reqlabels_rule_t  *rules;
    size_t                 n;
} gcp_reqlabels_t;


static void
gcp_reqlabels_free(void *data)
{
    size_t            i, j;
    gcp_reqlabels_t  *rl = data;

    if (rl == NULL) {
        return;
    }

    for (i = 0; i < rl->n; i++) {
        for (j = 0; j < rl->rules[i].n; j++) {
            free(rl->rules[i].keys[j]);
            free(rl->rules[i].values[j]);
        }

        free(rl->rules[i].namespaces);
        free(rl->rules[i].keys);
        free(rl->rules[i].values);
    }

    free(rl->rules);
    free(rl);
}


static int
gcp_reqlabels_matches(const char *pattern, const char *ns)
{
    size_t  n;

    n = strlen(pattern);

    if (n && pattern[n - 1] == '*') {
        return strncmp(pattern, ns, n - 1) == 0;
    }

    return strcmp(pattern, ns) == 0;
}


/* Parses "NAMESPACES:KEY[=VALUE],..." into r.  Returns GCP_OK or error. */
static int
gcp_reqlabels_parse(const char *arg, gcp_reqlabels_rule_t *r, char *err,
    size_t errlen)
{
    size_t        n, len;
    const char   *colon, *p, *end, *eq;
    gcp_msgs_t    m;

    colon = strchr(arg, ':');

    if (colon == NULL || colon == arg || colon[1] == '\0') {
        snprintf(err, errlen, "RequiredLabels: \"%s\" is not "
                 "NAMESPACES:LABEL[=DEFAULT][,...]", arg);
        return GCP_EBADREQUEST;
    }

    n = 1;

    for (p = colon + 1; *p; p++) {
        n += *p == ',';
    }

    r->namespaces = strndup(arg, (size_t) (colon - arg));
    r->keys = calloc(n + 1, sizeof(char *));
    r->values = calloc(n + 1, sizeof(char *));

    if (r->namespaces == NULL || r->keys == NULL || r->values == NULL) {
        snprintf(err, errlen, "out of memory");
        return GCP_ENOMEM;
    }

    for (p = colon + 1; *p; p = *end ? end + 1 : end) {
        end = p + strcspn(p, ",");
        eq = memchr(p, '=', (size_t) (end - p));
        len = (size_t) ((eq ? eq : end) - p);

        if (gcp_is_qualified_name(p, len, &m)
            || (eq && gcp_is_label_value(eq + 1, (size_t) (end - eq - 1),
                                         &m)))
        {
            snprintf(err, errlen, "RequiredLabels: \"%.*s\": %s",
                     (int) (end - p), p, m.msg[0]);
            return GCP_EBADREQUEST;
        }

        r->keys[r->n] = strndup(p, len);
        r->values[r->n] = eq ? strndup(eq + 1, (size_t) (end - eq - 1))
                             : NULL;

        if (r->keys[r->n] == NULL || (eq && r->values[r->n] == NULL)) {
            snprintf(err, errlen, "out of memory");
            return GCP_ENOMEM;
        }

        r->n++;
    }

    return GCP_OK;
}


/* The object's labels, created when asked for. */
static json_t *
gcp_reqlabels_labels(json_t *obj, int create)
{
    json_t  *meta, *labels;

    meta = json_object_get(obj, "metadata");
    labels = json_object_get(meta, "labels");

    if (!json_is_object(labels) && create && json_is_object(meta)) {
        labels = json_object();
        json_object_set_new(meta, "labels", labels);
    }

    return json_is_object(labels) ? labels : NULL;
}


static int
gcp_reqlabels_concerned(const gcp_admit_t *ad)
{
    return ad->obj && gcp_admission_subresource(ad)[0] == '\0'
           && gcp_admission_namespace(ad)[0] != '\0';
}


/*
 * Walks the labels the object's namespace requires that it misses: with
 * defaults set, those that have one are set; the others are listed in b.
 */
static void
gcp_reqlabels_missing(gcp_reqlabels_t *rl, gcp_admit_t *ad, int defaults,
    gcp_buf_t *b)
{
    size_t                   i, j;
    json_t                  *labels;
    gcp_reqlabels_rule_t    *r;

    labels = gcp_reqlabels_labels(ad->obj, defaults);

    for (i = 0; i < rl->n; i++) {
        r = &rl->rules[i];

        if (!gcp_reqlabels_matches(r->namespaces,
                                   gcp_admission_namespace(ad)))
        {
            continue;
        }

        for (j = 0; j < r->n; j++) {
            if (json_object_get(labels, r->keys[j])) {
                continue;
            }

            if (defaults && r->values[j] && labels) {
                json_object_set_new(labels, r->keys[j],
                                    json_string(r->values[j]));

            } else if (b) {
                gcp_buf_printf(b, "%s%s", b->len ? ", " : "", r->keys[j]);
            }
        }
    }
}


/* The mutating step: the defaults of missing labels. */
static void
gcp_reqlabels_admit(void *data, gcp_admit_t *ad, gcp_admit_done_pt done)
{
    if (gcp_reqlabels_concerned(ad)) {
        gcp_reqlabels_missing(data, ad, 1, NULL);
    }

    done(ad, GCP_OK);
}


/* The validating step: refuses what still misses a label. */
static void
gcp_reqlabels_validate(void *data, gcp_admit_t *ad, gcp_admit_done_pt done)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, gcp_admission_arena(ad));

    if (gcp_reqlabels_concerned(ad)) {
        gcp_reqlabels_missing(data, ad, 0, &b);
    }

    if (b.len == 0) {
        done(ad, GCP_OK);
        return;
    }

    done(ad, gcp_admission_forbid(ad, "objects in namespace %s must carry "
                                  "the labels %s (RequiredLabels)",
                                  gcp_admission_namespace(ad),
                                  gcp_buf_cstr(&b)));
}


int
gcp_required_labels_plugin(gcp_api_t *api, const gcp_admission_args_t *args,
    gcp_admission_plugin_t *plugin, char *err, size_t errlen)
{
    int               rc;
    size_t            i;
    gcp_reqlabels_t  *rl;

    rl = calloc(1, sizeof(gcp_reqlabels_t));
    if (rl == NULL) {
        snprintf(err, errlen, "out of memory");
        return GCP_ENOMEM;
    }

    if (args && args->nargs) {
        rl->rules = calloc(args->nargs, sizeof(gcp_reqlabels_rule_t));
        if (rl->rules == NULL) {
            free(rl);
            snprintf(err, errlen, "out of memory");
            return GCP_ENOMEM;
        }
    }

    for (i = 0; args && i < args->nargs; i++) {
        rl->n++;

        rc = gcp_reqlabels_parse(args->args[i], &rl->rules[i], err, errlen);
        if (rc != GCP_OK) {
            gcp_reqlabels_free(rl);
            return rc;
        }
    }

    if (plugin == NULL) {
        gcp_reqlabels_free(rl);
        return GCP_OK;
    }

    plugin->admit = gcp_reqlabels_admit;
    plugin->validate = gcp_reqlabels_validate;
    plugin->data = rl;
    plugin->free = gcp_reqlabels_free;

    return GCP_OK;
}
