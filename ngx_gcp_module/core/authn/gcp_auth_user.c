
/*
 * Users: building a gcp_user_t in an arena, and UserInfo JSON.
 */

#include <stdlib.h>

#include "gcp_auth.h"


gcp_user_t *
gcp_user_create(gcp_arena_t *a, const char *name, const char *uid)
{
    gcp_user_t   *u;
    const char  **groups;

    u = gcp_calloc(a, sizeof(gcp_user_t));
    groups = gcp_calloc(a, sizeof(const char *));

    if (u == NULL || groups == NULL) {
        return NULL;
    }

    u->name = gcp_strdup(a, name ? name : "");
    u->uid = gcp_strdup(a, uid ? uid : "");
    u->groups = groups;

    if (u->name == NULL || u->uid == NULL) {
        return NULL;
    }

    return u;
}


int
gcp_user_add_group(gcp_arena_t *a, gcp_user_t *u, const char *group)
{
    const char  **groups;

    groups = gcp_alloc(a, (u->ngroups + 2) * sizeof(const char *));
    if (groups == NULL) {
        return GCP_ENOMEM;
    }

    if (u->ngroups) {
        memcpy(groups, u->groups, u->ngroups * sizeof(const char *));
    }

    groups[u->ngroups] = gcp_strdup(a, group);
    groups[u->ngroups + 1] = NULL;

    if (groups[u->ngroups] == NULL) {
        return GCP_ENOMEM;
    }

    u->groups = groups;
    u->ngroups++;

    return GCP_OK;
}


int
gcp_user_add_extra(gcp_arena_t *a, gcp_user_t *u, const char *key,
    const char *value)
{
    size_t             i;
    const char       **values;
    gcp_user_extra_t  *extra, *e;

    for (i = 0; i < u->nextra; i++) {
        if (strcmp(u->extra[i].key, key) == 0) {
            break;
        }
    }

    if (i == u->nextra) {
        extra = gcp_calloc(a, (u->nextra + 1) * sizeof(gcp_user_extra_t));
        if (extra == NULL) {
            return GCP_ENOMEM;
        }

        if (u->nextra) {
            memcpy(extra, u->extra, u->nextra * sizeof(gcp_user_extra_t));
        }

        extra[i].key = gcp_strdup(a, key);
        if (extra[i].key == NULL) {
            return GCP_ENOMEM;
        }

        u->extra = extra;
        u->nextra++;
    }

    e = (gcp_user_extra_t *) &u->extra[i];

    values = gcp_alloc(a, (e->nvalues + 2) * sizeof(const char *));
    if (values == NULL) {
        return GCP_ENOMEM;
    }

    if (e->nvalues) {
        memcpy(values, e->values, e->nvalues * sizeof(const char *));
    }

    values[e->nvalues] = gcp_strdup(a, value);
    values[e->nvalues + 1] = NULL;

    if (values[e->nvalues] == NULL) {
        return GCP_ENOMEM;
    }

    e->values = values;
    e->nvalues++;

    return GCP_OK;
}


int
gcp_user_in_group(const gcp_user_t *u, const char *group)
{
    size_t  i;

    for (i = 0; i < u->ngroups; i++) {
        if (strcmp(u->groups[i], group) == 0) {
            return 1;
        }
    }

    return 0;
}


static int
gcp_user_extra_cmp(const void *x, const void *y)
{
    const gcp_user_extra_t  *a = *(const gcp_user_extra_t * const *) x;
    const gcp_user_extra_t  *b = *(const gcp_user_extra_t * const *) y;

    return strcmp(a->key, b->key);
}


json_t *
gcp_user_info_json(const gcp_user_t *u)
{
    size_t                    i, j;
    json_t                   *info, *groups, *extra, *values;
    const gcp_user_extra_t  **sorted;

    info = json_object();
    if (info == NULL) {
        return NULL;
    }

    if (u->name && u->name[0]) {
        json_object_set_new(info, "username", json_string(u->name));
    }

    if (u->uid && u->uid[0]) {
        json_object_set_new(info, "uid", json_string(u->uid));
    }

    if (u->ngroups) {
        groups = json_array();
        json_object_set_new(info, "groups", groups);

        for (i = 0; i < u->ngroups; i++) {
            json_array_append_new(groups, json_string(u->groups[i]));
        }
    }

    if (u->nextra) {
        sorted = malloc(u->nextra * sizeof(gcp_user_extra_t *));
        if (sorted == NULL) {
            json_decref(info);
            return NULL;
        }

        for (i = 0; i < u->nextra; i++) {
            sorted[i] = &u->extra[i];
        }

        qsort(sorted, u->nextra, sizeof(gcp_user_extra_t *),
              gcp_user_extra_cmp);

        extra = json_object();
        json_object_set_new(info, "extra", extra);

        for (i = 0; i < u->nextra; i++) {
            values = json_array();
            json_object_set_new(extra, sorted[i]->key, values);

            for (j = 0; j < sorted[i]->nvalues; j++) {
                json_array_append_new(values,
                                      json_string(sorted[i]->values[j]));
            }
        }

        free(sorted);
    }

    return info;
}
