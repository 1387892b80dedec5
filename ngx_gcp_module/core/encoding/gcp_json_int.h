
/*
 * Between the parts of the JSON encoding: gcp_json.c (UTF-8, Go's
 * quoting, arena release, accessors), gcp_json_parse.c (the scanner and
 * decoder) and gcp_json_dump.c (the encoder); the rest of the core uses
 * gcp_json.h.
 */

#ifndef _GCP_JSON_INT_H_INCLUDED_
#define _GCP_JSON_INT_H_INCLUDED_


#include "gcp_json.h"


/*
 * Writes rune r (a valid Unicode scalar value) as UTF-8 into u, which has
 * room for 4 bytes; returns the length, 1 to 4.
 */
size_t gcp_utf8_put(char *u, uint32_t r);

/*
 * Appends byte c as Go's quoteChar() shows it in scanner errors: in
 * single quotes, a byte above 0x7f as the rune of that value (Latin-1).
 */
void gcp_json_quote_char(gcp_buf_t *b, unsigned char c);

/* An object's member, as Go's map order sorts them (gcp_json_sort.c). */
typedef struct {
    const char  *key;
    size_t       len;
    json_t      *value;
} gcp_json_member_t;

/* qsort()'s comparison of members: keys bytewise, a prefix first. */
int gcp_json_member_cmp(const void *a, const void *b);

/*
 * Fills m (room for json_object_size(obj) members) with obj's members in
 * key order, the values borrowed.  Returns the number of members.
 */
size_t gcp_json_members_sorted(const json_t *obj, gcp_json_member_t *m);

/* The arena cleanup handler that releases a json_t (data). */
void gcp_json_release(void *data);


#endif /* _GCP_JSON_INT_H_INCLUDED_ */
