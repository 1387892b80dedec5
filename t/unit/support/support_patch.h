
/*
 * Helpers for the patch unit tests (t/unit/encoding/test_patch*.c): JSON
 * written with single quotes for readability, loading and canonical dumping.
 */

#ifndef _SUPPORT_PATCH_H_INCLUDED_
#define _SUPPORT_PATCH_H_INCLUDED_


#include <jansson.h>

#include "gcp_core.h"


/*
 * Returns s with every single quote turned into a double quote (so that
 * tests can write {'a':1}), owned by the arena.
 */
const char *sp_q(gcp_arena_t *a, const char *s);

/* Returns the value of the single-quoted JSON s (new reference); aborts
 * the test when s is not JSON. */
json_t *sp_load(gcp_arena_t *a, const char *s);

/*
 * Returns v dumped compactly with sorted keys (arena-owned), "(null)" for
 * a NULL pointer.
 */
const char *sp_dump(gcp_arena_t *a, const json_t *v);

/* The same, keeping the objects' key order. */
const char *sp_dump_ordered(gcp_arena_t *a, const json_t *v);

/* Returns the canonical dump of the single-quoted JSON s. */
const char *sp_canon(gcp_arena_t *a, const char *s);


#endif /* _SUPPORT_PATCH_H_INCLUDED_ */
