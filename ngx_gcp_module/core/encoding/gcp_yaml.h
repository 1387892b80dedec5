
/*
 * YAML output as kube-apiserver writes it for Accept: application/yaml:
 * the object's JSON turned into YAML by sigs.k8s.io/yaml.JSONToYAML, that
 * is go-yaml v2 (2.4.0) decoding the JSON and marshalling the result:
 *
 *   - mapping keys sorted with go-yaml's "natural" order (non-letters
 *     before letters, digit runs compared as numbers);
 *   - block style, 2-space indentation, sequences under a mapping key at
 *     the key's indentation ("- "), empty collections as {} and [];
 *   - strings plain when they would read back as strings, else double
 *     quoted ("true", "123", "2026-11-22T06:45:46Z", ""), single quoted
 *     when plain is not possible (": ", leading "- ", "#"...), literal
 *     "|-" / "|" / "|+" blocks for strings with newlines, and long plain
 *     and quoted strings folded at column 80;
 *   - JSON numbers re-read as YAML: integers as integers, other numbers
 *     as strconv.FormatFloat(v, 'g', -1, 64) ("1.5", "1e+06").
 *
 * Known approximations: the key order and which characters are escaped
 * use Unicode tables only for ASCII and Latin-1 (see gcp_go_isprint()).
 */

#ifndef _GCP_YAML_H_INCLUDED_
#define _GCP_YAML_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"


/* Appends v as YAML, ending with a newline. */
void gcp_yaml_dump_buf(gcp_buf_t *b, const json_t *v);

/*
 * Returns v as YAML, NUL-terminated, in arena memory; { NULL, 0 } on
 * allocation failure.
 */
gcp_str_t gcp_yaml_dump(gcp_arena_t *a, const json_t *v);


#endif /* _GCP_YAML_H_INCLUDED_ */
