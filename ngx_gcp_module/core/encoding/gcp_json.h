
/*
 * JSON as kube-apiserver reads and writes it (Go's encoding/json and
 * sigs.k8s.io/json), on top of jansson values.
 *
 * Parsing (untrusted request bodies):
 *   - one iterative pass, no recursion: syntax errors, their offsets and
 *     their messages are those of Go's scanner ("unexpected end of JSON
 *     input", "invalid character 'x' looking for beginning of value", ...);
 *   - nesting deeper than GCP_JSON_MAX_DEPTH (10000, Go's limit) fails with
 *     "invalid character '[' exceeded max depth";
 *   - object key order is kept; a repeated key keeps its first position and
 *     its last value (Go: last wins);
 *   - strings: invalid UTF-8 and lone surrogate escapes become U+FFFD as
 *     Go does; NUL characters are kept;
 *   - numbers: an integer literal that fits int64 is a json integer, any
 *     other number a json real (so integers beyond int64 lose precision,
 *     as with Go's float64); a number beyond float64's range fails with
 *     "json: cannot unmarshal number 1e999 into Go value of type float64"
 *     (reported only when the document has no syntax error, as in Go);
 *   - duplicate keys can be collected as strict decoding paths ("data.k",
 *     "spec.items[0].name"), deduplicated, in document order, at most 100.
 *     They are found for every object; kube-apiserver reports them only for
 *     fields its types know, so the caller filters if it must.
 *
 * Serialisation is byte-identical to Go's json.Marshal of the same value
 * (HTML-safe escaping, U+2028/U+2029 escaped, invalid UTF-8 as \ufffd,
 * float64 formatting); pretty output is json.MarshalIndent(v, "", "  ").
 * Neither adds a trailing newline (json.Encoder.Encode adds "\n").
 */

#ifndef _GCP_JSON_H_INCLUDED_
#define _GCP_JSON_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"


#define GCP_JSON_MAX_DEPTH       10000
#define GCP_JSON_MAX_DUPLICATES  100
#define GCP_JSON_MAX_BIG         16

/* gcp_json_parse_ex() flags */
#define GCP_JSON_DUPLICATES      0x01   /* collect duplicate key paths */
#define GCP_JSON_BIG_NUMBERS     0x02   /* keep numbers beyond float64 */


typedef struct {
    const char   *msg;          /* NULL, or Go's error message */
    size_t        offset;       /* Go's SyntaxError.Offset */
    const char  **dups;         /* duplicate key paths */
    size_t        ndups;
    json_t      **big;          /* GCP_JSON_BIG_NUMBERS: the numbers */
    size_t        nbig;         /* beyond float64, borrowed from *out */
} gcp_json_info_t;


/*
 * Parses len bytes of data.  On success returns GCP_OK and *out, a new
 * reference whose release is registered on the arena: the caller never
 * decrefs it (json_incref() it to keep it beyond the arena).  On a syntax
 * or number error returns GCP_EBADREQUEST with info->msg set; on
 * allocation failure GCP_ENOMEM.  info may be NULL; its strings and the
 * dups array are owned by the arena.  With GCP_JSON_DUPLICATES, info->dups
 * lists the duplicate key paths (also when parsing fails later on).
 * With GCP_JSON_BIG_NUMBERS, a number beyond float64 (1e400) is no error:
 * it is read as a string holding its literal and listed in info->big (an
 * arena array of values that *out holds), as a typed Go decode only
 * fails on such a number where a field reads it; past GCP_JSON_MAX_BIG of
 * them, the error as without the flag.
 */
int gcp_json_parse_ex(gcp_arena_t *a, const char *data, size_t len,
    unsigned flags, json_t **out, gcp_json_info_t *info);

/*
 * Returns the parsed value (arena-released, as above), or NULL with *msg
 * set to Go's message ("out of memory" on allocation failure), owned by
 * the arena or static.
 */
json_t *gcp_json_parse(gcp_arena_t *a, const char *data, size_t len,
    const char **msg);

/*
 * Sets *paths (arena array of arena strings) and *npaths to the duplicate
 * key paths of the document.  Returns GCP_OK (also for a document with a
 * syntax error: the duplicates before it are listed), or GCP_ENOMEM.
 */
int gcp_json_duplicates(gcp_arena_t *a, const char *data, size_t len,
    const char ***paths, size_t *npaths);


/* Appends v as Go's json.Marshal (pretty: MarshalIndent with 2 spaces). */
void gcp_json_dump_buf(gcp_buf_t *b, const json_t *v, int pretty);

/*
 * Appends v as gcp_json_dump_buf() does (not pretty), every object's
 * members in Go's map order (as gcp_json_sort_keys() would put them; v is
 * not changed).
 */
void gcp_json_dump_sorted_buf(gcp_buf_t *b, const json_t *v);

/*
 * Returns v serialised as gcp_json_dump_buf() does, NUL-terminated, in
 * arena memory; { NULL, 0 } on allocation failure.
 */
gcp_str_t gcp_json_dump(gcp_arena_t *a, const json_t *v, int pretty);

/* Appends s (len bytes) as Go's JSON string literal, quotes included. */
void gcp_json_add_string(gcp_buf_t *b, const char *s, size_t len);


/*
 * Go formatting of a float64 into buf (at least 32 bytes); returns the
 * length.  fmt 'j': as encoding/json ('f' for exponents in [-6, 21), else
 * 'e' with "e-07" shortened to "e-7"); fmt 'g': strconv.FormatFloat(v, 'g',
 * -1, 64).  v must be finite.
 */
size_t gcp_json_format_float(double v, int fmt, char *buf);

/*
 * strconv.FormatFloat(v, 'g', -1, 32) into buf (at least 32 bytes): v
 * rounded to a float32, its shortest digits ("+Inf", "-Inf", "NaN" too).
 * Returns the length.
 */
size_t gcp_json_format_float32(double v, char *buf);

/*
 * Decodes one UTF-8 sequence as Go's utf8.DecodeRune: returns its length
 * (1..4) and sets *rune; an invalid or truncated sequence returns 1 and
 * U+FFFD.  n must be at least 1.
 */
size_t gcp_utf8_decode(const unsigned char *p, size_t n, uint32_t *rune);

/* Appends rune r (valid Unicode scalar value) as UTF-8. */
void gcp_utf8_add(gcp_buf_t *b, uint32_t r);

/*
 * Returns 1 if Go's strconv.IsPrint(r) holds.  Exact for ASCII and
 * Latin-1; beyond, every assigned-looking rune is printable except the
 * format, separator, private-use and noncharacter ranges Go rejects.
 */
int gcp_go_isprint(uint32_t r);

/*
 * Returns s (len bytes) quoted as Go's strconv.Quote / %q, owned by the
 * arena ("\"\"" on allocation failure).
 */
const char *gcp_go_quote(gcp_arena_t *a, const char *s, size_t len);

/*
 * Returns the JSON array arr of strings as Go's %#v of a []string shows it
 * ([]string{"a", "b"}; a non-string element as ""), owned by the arena,
 * or NULL on allocation failure.
 */
const char *gcp_go_strings(gcp_arena_t *a, const json_t *arr);

/*
 * Returns the same for a slice of the string type elem
 * ("admissionregistration.OperationType": []admissionregistration.
 * OperationType{"CREATE"}), owned by the arena, or NULL.
 */
const char *gcp_go_slice(gcp_arena_t *a, const char *elem,
    const json_t *arr);


/*
 * Returns the value reached from obj through the object keys given as
 * further arguments (NULL-terminated), borrowed; NULL when a step is
 * missing or not an object.
 */
json_t *gcp_json_get(const json_t *obj, ...)
#if defined(__GNUC__)
    __attribute__((sentinel))
#endif
    ;

/* Returns 1 when the JSON array arr holds the string s, else 0. */
int gcp_json_has_string(const json_t *arr, const char *s);

/* As gcp_json_get(), returning the string value, or NULL (not a string). */
const char *gcp_json_get_str(const json_t *obj, ...)
#if defined(__GNUC__)
    __attribute__((sentinel))
#endif
    ;

/*
 * Returns obj[key] as an object, borrowed: the existing object, or a new
 * empty one stored there when the key is absent or null.  Returns NULL if
 * obj is not an object, obj[key] has another type, or memory runs out.
 */
json_t *gcp_json_object_child(json_t *obj, const char *key);


/*
 * Returns the word Go's decoder uses for the kind of a JSON value in its
 * errors ("object", "array", "string", "number", "bool", "null").
 * Static.
 */
const char *gcp_json_go_kind(const json_t *v);

/*
 * Registers json_decref(v) on the arena, so that v lives as long as it.
 * Returns v, or NULL when v is NULL or memory runs out (v is then not
 * released by the arena: the caller still owns its reference).
 */
json_t *gcp_json_arena(gcp_arena_t *a, json_t *v);


/*
 * jansson's json_copy(), json_deep_copy() and json_equal(), keeping object
 * keys that hold NUL bytes whole (jansson's own cut them at the first NUL,
 * and custom resources may store such keys).  The copies return a new
 * reference owned by the caller, or NULL when out of memory;
 * gcp_json_equal() returns 1 when a and b are equal, else 0.
 */
json_t *gcp_json_copy(const json_t *v);
json_t *gcp_json_deep_copy(const json_t *v);

/* As gcp_json_deep_copy() without the null members of objects. */
json_t *gcp_json_deep_copy_pruned(const json_t *v);
int gcp_json_equal(const json_t *a, const json_t *b);


/*
 * Reorders the members of the object v by key, bytewise (Go's order of map
 * keys); deep: in every object inside v too.  Other values are left
 * alone.  Returns GCP_OK, or GCP_ENOMEM (members may then be missing from
 * an object that was being reordered).
 */
int gcp_json_sort_keys(json_t *v, int deep);


#endif /* _GCP_JSON_H_INCLUDED_ */
