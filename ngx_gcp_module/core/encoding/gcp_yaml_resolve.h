
/*
 * What a YAML scalar means, as go-yaml v2 decides it (resolve.go of the
 * copy in sigs.k8s.io/yaml 1.4.0 that kube-apiserver and kubectl 1.32
 * use): YAML 1.1 booleans (y, yes, on, ...), nulls (~, null, ""), ints in
 * Go's base-prefixed syntax with underscores (0x1F, 0o17, 017, 0b101,
 * 1_000), floats (1e3, .5, .inf, .nan), timestamps; everything else is a
 * string.  Integers beyond uint64 stay strings unless they read as a
 * decimal float (no big.Int in that copy).  The YAML parser
 * (gcp_yaml_parse.c) reads values with it; the emitter (gcp_yaml.c) asks
 * it which strings may be written plain.
 */

#ifndef _GCP_YAML_RESOLVE_H_INCLUDED_
#define _GCP_YAML_RESOLVE_H_INCLUDED_


#include "gcp_core.h"


typedef enum {
    GCP_YAML_STR = 0,
    GCP_YAML_NULL,
    GCP_YAML_BOOL,
    GCP_YAML_INT,               /* fits int64 */
    GCP_YAML_UINT,              /* beyond int64, fits uint64 */
    GCP_YAML_FLOAT,             /* float64, possibly infinite or NaN */
    GCP_YAML_TIMESTAMP          /* read back as the string itself */
} gcp_yaml_kind_t;


typedef struct {
    gcp_yaml_kind_t  kind;
    int64_t          i;         /* BOOL (0 or 1), INT */
    uint64_t         u;         /* UINT */
    double           f;         /* FLOAT */
} gcp_yaml_scalar_t;


/* gcp_yaml_resolve() flags */
#define GCP_YAML_TIMESTAMPS  0x01   /* try timestamps (untagged scalars) */


/*
 * Resolves the n bytes of s as go-yaml's resolve() does for an untagged
 * plain scalar (flags GCP_YAML_TIMESTAMPS) or one tagged !!bool, !!int,
 * !!float or !!null (flags 0: timestamps are not tried).  Returns the
 * kind, also stored with the value in *out (which may be NULL).
 */
gcp_yaml_kind_t gcp_yaml_resolve(const char *s, size_t n, unsigned flags,
    gcp_yaml_scalar_t *out);

/* Returns 1 if s is a YAML 1.1 base 60 float (isBase60Float() of go-yaml). */
int gcp_yaml_is_base60(const char *s, size_t n);


typedef enum {
    GCP_GO_NUM_OK = 0,
    GCP_GO_NUM_SYNTAX,
    GCP_GO_NUM_RANGE
} gcp_go_num_rc_t;

/*
 * strconv.ParseUint(s, base, 64) and strconv.ParseInt(s, base, 64) of Go
 * on n bytes (base 0: by prefix 0x, 0o, 0b or 0; no underscores).  Return
 * the outcome; *out is set on GCP_GO_NUM_OK and may be NULL.
 */
gcp_go_num_rc_t gcp_go_parse_uint(const char *s, size_t n, int base,
    uint64_t *out);
gcp_go_num_rc_t gcp_go_parse_int(const char *s, size_t n, int base,
    int64_t *out);


#endif /* _GCP_YAML_RESOLVE_H_INCLUDED_ */
