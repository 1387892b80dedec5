
/*
 * The request's attributes for admission plugins (see
 * gcp_admission_plugin.h).
 */

#include <stdarg.h>
#include <stdio.h>

#include "gcp_admission_plugin.h"


const char *
gcp_admission_operation(const gcp_admit_t *ad)
{
    static const char * const  names[] = { "CREATE", "UPDATE", "DELETE" };

    return names[ad->operation];
}


const gcp_resource_t *
gcp_admission_resource(const gcp_admit_t *ad)
{
    return ad->op->res;
}


const char *
gcp_admission_subresource(const gcp_admit_t *ad)
{
    return ad->op->sub ? ad->op->sub->name : "";
}


const char *
gcp_admission_namespace(const gcp_admit_t *ad)
{
    return ad->op->res->namespaced ? ad->op->ri.ns : "";
}


const char *
gcp_admission_name(const gcp_admit_t *ad)
{
    return ad->name;
}


const gcp_user_t *
gcp_admission_user(const gcp_admit_t *ad)
{
    return ad->op->req->user;
}


gcp_arena_t *
gcp_admission_arena(const gcp_admit_t *ad)
{
    return ad->op->a;
}


gcp_loop_t *
gcp_admission_loop(const gcp_admit_t *ad)
{
    return ad->op->api->conf.loop;
}


int
gcp_admission_forbid(gcp_admit_t *ad, const char *fmt, ...)
{
    int          n;
    char        *reason;
    va_list      ap;
    gcp_op_t    *op = ad->op;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);

    reason = n >= 0 ? gcp_alloc(op->a, (size_t) n + 1) : NULL;

    if (reason == NULL) {
        gcp_op_error(op, GCP_ENOMEM, NULL, NULL);
        return GCP_ENOMEM;
    }

    va_start(ap, fmt);
    vsnprintf(reason, (size_t) n + 1, fmt, ap);
    va_end(ap);

    gcp_op_error_obj(op, GCP_EFORBIDDEN,
                     gcp_sprintf(op->a, "%s \"%s\" is forbidden: %s",
                                 gcp_op_qualified_resource(op, op->res),
                                 ad->name, reason),
                     ad->name);

    return GCP_EFORBIDDEN;
}


void
gcp_admission_warn(gcp_admit_t *ad, const char *text)
{
    gcp_op_warning(ad->op, text);
}
