
/*
 * Validation of LabelSelector values (see gcp_validation_selector.h).
 */

#include "gcp_validation.h"
#include "gcp_validation_selector.h"


static const char *
gcp_vsel_str(const json_t *obj, const char *field)
{
    const char  *v;

    v = json_string_value(json_object_get(obj, field));

    return v ? v : "";
}


void
gcp_validate_label_requirement(gcp_ferrs_t *errs, const json_t *req,
    const char *path, int allow_unknown)
{
    size_t       i, n;
    json_t      *v, *values;
    const char  *op, *key, *f;
    gcp_msgs_t   m;

    op = gcp_vsel_str(req, "operator");
    key = gcp_vsel_str(req, "key");
    values = json_object_get(req, "values");
    n = json_array_size(values);
    f = gcp_sprintf(errs->arena, "%s.values", path);

    if (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0) {
        if (n == 0) {
            gcp_ferrs_add(errs, GCP_FERR_REQUIRED, f, NULL,
                          "must be specified when `operator` is 'In' or "
                          "'NotIn'");
        }

    } else if (strcmp(op, "Exists") == 0
               || strcmp(op, "DoesNotExist") == 0)
    {
        if (n) {
            gcp_ferrs_add(errs, GCP_FERR_FORBIDDEN, f, NULL,
                          "may not be specified when `operator` is "
                          "'Exists' or 'DoesNotExist'");
        }

    } else if (!allow_unknown) {
        gcp_ferrs_add(errs, GCP_FERR_INVALID,
                      gcp_sprintf(errs->arena, "%s.operator", path),
                      gcp_ferr_quote(errs->arena, op),
                      "not a valid selector operator");
    }

    gcp_is_qualified_name(key, strlen(key), &m);
    gcp_ferrs_add_msgs(errs, gcp_sprintf(errs->arena, "%s.key", path), key,
                       strlen(key), &m);

    json_array_foreach(values, i, v) {
        if (!json_is_string(v)) {
            continue;
        }

        gcp_is_label_value(json_string_value(v), json_string_length(v), &m);
        gcp_ferrs_add_msgs(errs, gcp_sprintf(errs->arena, "%s.values[%zu]",
                                             path, i),
                           json_string_value(v), json_string_length(v), &m);
    }
}


void
gcp_validate_label_selector(gcp_ferrs_t *errs, const json_t *sel,
    const char *path)
{
    size_t   i;
    json_t  *req;

    if (!json_is_object(sel)) {
        return;
    }

    gcp_validate_labels(errs, json_object_get(sel, "matchLabels"),
                        gcp_sprintf(errs->arena, "%s.matchLabels", path));

    json_array_foreach(json_object_get(sel, "matchExpressions"), i, req) {
        gcp_validate_label_requirement(errs, req,
            gcp_sprintf(errs->arena, "%s.matchExpressions[%zu]", path, i),
            0);
    }
}
