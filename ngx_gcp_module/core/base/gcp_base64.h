
/*
 * base64 as Go's encoding/base64: StdEncoding (Secret data, protobuf bytes,
 * etcd's JSON gateway) and RawURLEncoding (continue tokens, JWTs), with
 * Go's error offsets.
 */

#ifndef _GCP_BASE64_H_INCLUDED_
#define _GCP_BASE64_H_INCLUDED_


#include <sys/types.h>

#include "gcp_core.h"


/* The most bytes len base64 characters decode to (a short last group too). */
#define GCP_BASE64_DECODED_MAX(len)  ((len) / 4 * 3 + 3)


typedef enum {
    GCP_BASE64_STD = 0,         /* base64.StdEncoding: +/, padded */
    GCP_BASE64_RAWURL           /* base64.RawURLEncoding: -_, no padding */
} gcp_base64_mode_t;


/*
 * Decodes len characters of in as Go's Encoding.DecodeString ('\r' and
 * '\n' are ignored) into out, which has room for
 * GCP_BASE64_DECODED_MAX(len) bytes.  Returns the number of bytes written,
 * or -1 when in is not valid base64, with *bad (when not NULL) set to the
 * offset Go reports.
 */
ssize_t gcp_base64_decode_into(const char *in, size_t len,
    gcp_base64_mode_t mode, char *out, size_t *bad);

/*
 * Decodes as Go's Encoding.DecodeString ('\r' and '\n' are ignored).  On
 * success returns GCP_OK and sets *out (arena memory, NUL-terminated);
 * otherwise GCP_EBADREQUEST with *msg set to Go's "illegal base64 data at
 * input byte N" (arena string), or GCP_ENOMEM.
 */
int gcp_base64_decode_mode(gcp_arena_t *a, const char *in, size_t len,
    gcp_base64_mode_t mode, gcp_str_t *out, const char **msg);

/* gcp_base64_decode_mode() with GCP_BASE64_STD. */
int gcp_base64_decode(gcp_arena_t *a, const char *in, size_t len,
    gcp_str_t *out, const char **msg);

/* Appends in (len bytes) encoded. */
void gcp_base64_encode_buf(gcp_buf_t *b, const char *in, size_t len,
    gcp_base64_mode_t mode);

/* Returns in encoded (STD), in arena memory ({NULL, 0}: ENOMEM). */
gcp_str_t gcp_base64_encode(gcp_arena_t *a, const char *in, size_t len);


#endif /* _GCP_BASE64_H_INCLUDED_ */
