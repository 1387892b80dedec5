
/*
 * The one table that translates ngx_gcp error codes into HTTP statuses and
 * Kubernetes StatusReasons.
 */

#include <stddef.h>

#include "gcp_errors.h"


static const gcp_error_info_t  gcp_errors[GCP_ERROR_LAST] = {
    [GCP_OK]             = { 200, "", "", "GCP_OK" },
    [GCP_ENOMEM]         = { 500, "InternalError", "out of memory",
                             "GCP_ENOMEM" },
    [GCP_EINTERNAL]      = { 500, "InternalError",
                             "an error on the server has prevented the "
                             "request from succeeding", "GCP_EINTERNAL" },
    [GCP_EBADREQUEST]    = { 400, "BadRequest", "bad request",
                             "GCP_EBADREQUEST" },
    [GCP_EUNAUTHORIZED]  = { 401, "Unauthorized", "Unauthorized",
                             "GCP_EUNAUTHORIZED" },
    [GCP_EFORBIDDEN]     = { 403, "Forbidden", "forbidden",
                             "GCP_EFORBIDDEN" },
    [GCP_ENOTFOUND]      = { 404, "NotFound",
                             "the server could not find the requested "
                             "resource", "GCP_ENOTFOUND" },
    [GCP_EMETHOD]        = { 405, "MethodNotAllowed",
                             "the server does not allow this method on the "
                             "requested resource", "GCP_EMETHOD" },
    [GCP_ENOTACCEPTABLE] = { 406, "NotAcceptable", "406: Not Acceptable",
                             "GCP_ENOTACCEPTABLE" },
    [GCP_EEXISTS]        = { 409, "AlreadyExists", "already exists",
                             "GCP_EEXISTS" },
    [GCP_ECONFLICT]      = { 409, "Conflict", "conflict", "GCP_ECONFLICT" },
    [GCP_EGONE]          = { 410, "Gone", "gone", "GCP_EGONE" },
    [GCP_EEXPIRED]       = { 410, "Expired",
                             "The resourceVersion for the provided list is "
                             "too old.", "GCP_EEXPIRED" },
    [GCP_ETOOLARGE]      = { 413, "RequestEntityTooLarge",
                             "the request entity is too large",
                             "GCP_ETOOLARGE" },
    [GCP_EMEDIATYPE]     = { 415, "UnsupportedMediaType",
                             "415: Unsupported Media Type",
                             "GCP_EMEDIATYPE" },
    [GCP_EINVALID]       = { 422, "Invalid", "invalid", "GCP_EINVALID" },
    [GCP_ETOOMANY]       = { 429, "TooManyRequests",
                             "too many requests", "GCP_ETOOMANY" },
    [GCP_EUNAVAILABLE]   = { 503, "ServiceUnavailable",
                             "the storage is unavailable",
                             "GCP_EUNAVAILABLE" },
    [GCP_ETIMEOUT]       = { 504, "Timeout",
                             "the request timed out", "GCP_ETIMEOUT" },
    [GCP_EFUTURE]        = { 504, "Timeout",
                             "Too large resource version", "GCP_EFUTURE" },
    [GCP_ECOMPACTED]     = { 410, "Expired",
                             "The resourceVersion for the provided list is "
                             "too old.", "GCP_ECOMPACTED" },
    [GCP_EKEYTOOLONG]    = { 500, "InternalError",
                             "storage key too long", "GCP_EKEYTOOLONG" },
    [GCP_ENOSPACE]       = { 507, "InternalError",
                             "storage is full", "GCP_ENOSPACE" },

    /*
     * kube-apiserver answers the etcd client's error as it is when the
     * connection breaks under a write: 500 without a reason (never 503,
     * which would say that nothing happened)
     */
    [GCP_EINDOUBT]       = { 500, "",
                             "the request was sent to the storage, its "
                             "outcome is unknown", "GCP_EINDOUBT" },
    [GCP_EUNKNOWN]       = { 500, "", "unknown error", "GCP_EUNKNOWN" },
};


const gcp_error_info_t *
gcp_error_info(int rc)
{
    if (rc < 0 || rc >= GCP_ERROR_LAST || gcp_errors[rc].name == NULL) {
        return &gcp_errors[GCP_EINTERNAL];
    }

    return &gcp_errors[rc];
}
