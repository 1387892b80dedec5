
/*
 * A remote server's legacy discovery document (APIResourceList) in
 * aggregated discovery's form (apidiscovery.k8s.io APIResourceDiscovery),
 * as k8s.io/apiserver's ConvertGroupVersionIntoToDiscovery converts it:
 * resources first, each subresource ("parent/sub") under its parent (a
 * parent it does not list is made up, with an empty responseKind).
 */

#include "gcp_discovery_int.h"
#include "gcp_json.h"


static void
gcp_disc_remote_str(gcp_buf_t *b, const char *key, const json_t *obj,
    const char *field)
{
    const char  *s;

    s = json_string_value(json_object_get(obj, field));
    s = s ? s : "";

    gcp_buf_printf(b, "\"%s\":", key);
    gcp_json_add_string(b, s, strlen(s));
}


/* A string array field as is (null when absent), when set or not omit. */
static void
gcp_disc_remote_list(gcp_buf_t *b, const char *key, const json_t *obj,
    int omit)
{
    const json_t  *v;

    v = json_object_get(obj, key);

    if (omit && json_array_size(v) == 0) {
        return;
    }

    gcp_buf_printf(b, ",\"%s\":", key);

    if (json_is_array(v)) {
        gcp_json_dump_buf(b, v, 0);

    } else {
        gcp_buf_addstr(b, "null");
    }
}


static void
gcp_disc_remote_kind(gcp_buf_t *b, const json_t *r)
{
    gcp_buf_addstr(b, "\"responseKind\":{");
    gcp_disc_remote_str(b, "group", r, "group");
    gcp_buf_addc(b, ',');
    gcp_disc_remote_str(b, "version", r, "version");
    gcp_buf_addc(b, ',');
    gcp_disc_remote_str(b, "kind", r, "kind");
    gcp_buf_addc(b, '}');
}


/* The subresources of parent (name len bytes) in list. */
static void
gcp_disc_remote_subs(gcp_buf_t *b, const json_t *list, const char *parent,
    size_t len)
{
    int            first;
    size_t         i;
    json_t        *r;
    const char    *name, *kind;

    first = 1;

    json_array_foreach(list, i, r) {
        name = json_string_value(json_object_get(r, "name"));

        if (name == NULL || strncmp(name, parent, len) != 0
            || name[len] != '/')
        {
            continue;
        }

        gcp_buf_addstr(b, first ? ",\"subresources\":[" : ",");
        first = 0;

        gcp_buf_addstr(b, "{\"subresource\":");
        gcp_json_add_string(b, name + len + 1, strlen(name + len + 1));
        gcp_buf_addc(b, ',');

        kind = json_string_value(json_object_get(r, "kind"));

        if (kind && kind[0]) {
            gcp_disc_remote_kind(b, r);

        } else {
            gcp_buf_addstr(b, "\"responseKind\":{\"group\":\"\","
                              "\"version\":\"\",\"kind\":\"\"}");
        }

        gcp_disc_remote_list(b, "verbs", r, 0);
        gcp_buf_addc(b, '}');
    }

    if (!first) {
        gcp_buf_addc(b, ']');
    }
}


/* Returns 1 when list has a resource named exactly name (len bytes). */
static int
gcp_disc_remote_has(const json_t *list, const char *name, size_t len)
{
    size_t       i;
    json_t      *r;
    const char  *s;

    json_array_foreach(list, i, r) {
        s = json_string_value(json_object_get(r, "name"));

        if (s && strlen(s) == len && strncmp(s, name, len) == 0) {
            return 1;
        }
    }

    return 0;
}


void
gcp_disc_agg_remote(gcp_buf_t *b, const json_t *list)
{
    int            first;
    size_t         i, j, len;
    json_t        *r, *q;
    const char    *name, *slash, *other;

    list = json_object_get(list, "resources");
    first = 1;

    json_array_foreach(list, i, r) {
        name = json_string_value(json_object_get(r, "name"));

        if (name == NULL || strchr(name, '/')) {
            continue;
        }

        gcp_buf_addstr(b, first ? "{\"resource\":" : ",{\"resource\":");
        first = 0;

        gcp_json_add_string(b, name, strlen(name));
        gcp_buf_addc(b, ',');
        gcp_disc_remote_kind(b, r);
        gcp_buf_printf(b, ",\"scope\":\"%s\",",
                       json_is_true(json_object_get(r, "namespaced"))
                       ? "Namespaced" : "Cluster");
        gcp_disc_remote_str(b, "singularResource", r, "singularName");
        gcp_disc_remote_list(b, "verbs", r, 0);
        gcp_disc_remote_list(b, "shortNames", r, 1);
        gcp_disc_remote_list(b, "categories", r, 1);
        gcp_disc_remote_subs(b, list, name, strlen(name));
        gcp_buf_addc(b, '}');
    }

    /* subresources whose parent is not listed: the parent is made up */

    json_array_foreach(list, i, r) {
        name = json_string_value(json_object_get(r, "name"));
        slash = name ? strchr(name, '/') : NULL;

        if (slash == NULL) {
            continue;
        }

        len = (size_t) (slash - name);

        if (gcp_disc_remote_has(list, name, len)) {
            continue;
        }

        /* once per parent: at its first subresource */

        for (j = 0; j < i; j++) {
            q = json_array_get(list, j);
            other = json_string_value(json_object_get(q, "name"));

            if (other && strncmp(other, name, len) == 0
                && other[len] == '/')
            {
                break;
            }
        }

        if (j < i) {
            continue;
        }

        gcp_buf_addstr(b, first ? "{\"resource\":" : ",{\"resource\":");
        first = 0;

        gcp_json_add_string(b, name, len);
        gcp_buf_printf(b, ",\"responseKind\":{\"group\":\"\",\"version\":"
                       "\"\",\"kind\":\"\"},\"scope\":\"%s\","
                       "\"singularResource\":\"\",\"verbs\":null",
                       json_is_true(json_object_get(r, "namespaced"))
                       ? "Namespaced" : "Cluster");
        gcp_disc_remote_subs(b, list, name, len);
        gcp_buf_addc(b, '}');
    }
}
