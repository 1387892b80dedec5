
/*
 * YAML input as kube-apiserver 1.32 reads it: sigs.k8s.io/yaml 1.4.0's
 * YAMLToJSON, that is go-yaml v2 decoding the first document of the input
 * into Go values, converted to JSON.  Parsed with libyaml, which go-yaml
 * v2 is a port of (same tokens, events and problem messages), then:
 *
 *   - YAML 1.1 scalars resolved by go-yaml's rules (gcp_yaml_resolve.h):
 *     yes/on/y are true, 0x1F is 31, ~ is null, 2001-01-01 stays a
 *     string; tags !!str, !!int, !!float, !!bool, !!null, !!timestamp and
 *     !!binary (base64) as go-yaml treats them;
 *   - anchors, aliases and merge keys (<<) with go-yaml v2's order
 *     (a merge overrides the keys set before it);
 *   - keys converted to strings (1 -> "1", 1.5 -> "1.5" as a float32,
 *     true -> "true"; null and keys beyond int64 are refused), a
 *     repeated key keeps its last value, object keys in byte order,
 *     NaN and infinities refused;
 *   - errors as kube-apiserver words them: "error converting YAML to
 *     JSON: yaml: line 3: mapping values are not allowed in this
 *     context" (go-yaml's line numbers, off by one for parser errors as
 *     there);
 *   - with GCP_YAML_STRICT, duplicate keys reported as YAMLToJSONStrict
 *     does ("line 6: key \"a\" already set in map").
 *
 * Bounded in time and memory on hostile input:
 *   - nesting deeper than GCP_YAML_MAX_DEPTH flow collections or block
 *     levels fails as go-yaml's scanner does ("yaml: exceeded max depth
 *     of 10000"); a document nested deeper than that in total fails as
 *     the JSON decoder does after the conversion ("invalid character '['
 *     exceeded max depth");
 *   - aliases: go-yaml's rule ("document contains excessive aliasing"
 *     when, past 1000 decoded nodes of which 100 through aliases, the
 *     share decoded through aliases exceeds 99%, falling to 10% for 4
 *     million nodes), and tighter: at most GCP_YAML_MAX_ALIAS_NODES
 *     nodes decoded through aliases in all (go-yaml allows up to about
 *     1.2 million on a large document);
 *   - no recursion on the input's structure; memory proportional to the
 *     input plus the alias expansions above.
 *
 * Known approximations: when a key occurs twice, once as a string and
 * once as another type ("1" and 1), the last one wins (Go picks either);
 * at most GCP_YAML_MAX_DUPLICATES duplicate keys are reported; values in
 * error messages are cut after 4 KiB.  Where libyaml 0.2.5's scanner is
 * newer than go-yaml's, malformed flow collections fail otherwise: a
 * plain scalar with ':' right before ',', '[', ']', '{' or '}' is refused
 * ("found unexpected ':'"; go-yaml keeps the ':' in the scalar), one with
 * a '?' inside is accepted (go-yaml ends the scalar there, then fails),
 * and a tag against a flow indicator gets another message.
 */

#ifndef _GCP_YAML_PARSE_H_INCLUDED_
#define _GCP_YAML_PARSE_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"


#define GCP_YAML_MAX_DEPTH        10000
#define GCP_YAML_MAX_ALIAS_NODES  250000
#define GCP_YAML_MAX_DUPLICATES   100

/* gcp_yaml_parse() flags */
#define GCP_YAML_STRICT           0x01  /* collect duplicate keys */


typedef struct {
    const char   *msg;          /* NULL, or the error */
    unsigned      json:1;       /* msg is the JSON decoder's, the YAML */
                                /* itself converted fine */
    const char  **dups;         /* GCP_YAML_STRICT: "line 6: key ..." */
    size_t        ndups;
    const char   *strict_msg;   /* with dups: YAMLToJSONStrict's error */
} gcp_yaml_info_t;


/*
 * Parses the first YAML document of the len bytes at data (a stream
 * without a document, or an empty one, is null).  On success returns
 * GCP_OK and sets *out to the value, whose release is registered on the
 * arena (the caller never decrefs it).  On bad input returns
 * GCP_EBADREQUEST with info->msg set; GCP_ENOMEM when memory runs out.
 * info may be NULL; its strings and arrays are owned by the arena.
 */
int gcp_yaml_parse(gcp_arena_t *a, const char *data, size_t len,
    unsigned flags, json_t **out, gcp_yaml_info_t *info);


#endif /* _GCP_YAML_PARSE_H_INCLUDED_ */
