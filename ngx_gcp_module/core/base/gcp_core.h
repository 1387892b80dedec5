
/*
 * ngx_gcp core: common definitions shared by every core module and backend.
 *
 * The core is plain C99 with no nginx headers.  Memory for one request comes
 * from a gcp_arena_t: everything allocated from an arena is released at once
 * by gcp_arena_destroy(), and cleanup handlers registered on it run then (in
 * reverse order), which is how jansson values and malloc'd buffers that a
 * request holds are released.
 */

#ifndef _GCP_CORE_H_INCLUDED_
#define _GCP_CORE_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gcp_errors.h"


#define gcp_string(s)       { (s), sizeof(s) - 1 }
#define gcp_null_string     { NULL, 0 }
#define gcp_str_set(str, s) (str)->data = (s); (str)->len = strlen(s)

#define gcp_min(a, b)       ((a) < (b) ? (a) : (b))
#define gcp_max(a, b)       ((a) > (b) ? (a) : (b))
#define gcp_nelems(a)       (sizeof(a) / sizeof((a)[0]))


typedef struct {
    const char  *data;
    size_t       len;
} gcp_str_t;


typedef struct gcp_arena_s  gcp_arena_t;

typedef void (*gcp_cleanup_pt)(void *data);


/*
 * Returns a new arena, or NULL on allocation failure.  The caller owns it and
 * releases it with gcp_arena_destroy().  block_size is a hint (0: default).
 */
gcp_arena_t *gcp_arena_create(size_t block_size);

/* Runs the cleanup handlers, then frees every block.  NULL is allowed. */
void gcp_arena_destroy(gcp_arena_t *a);

/*
 * Returns size bytes aligned to 16 owned by the arena, or NULL when out of
 * memory.  gcp_calloc() returns zeroed memory.
 */
void *gcp_alloc(gcp_arena_t *a, size_t size);
void *gcp_calloc(gcp_arena_t *a, size_t size);

/*
 * Returns a NUL-terminated copy owned by the arena (len bytes of s; s may
 * hold NULs), or NULL when out of memory.
 */
char *gcp_strndup(gcp_arena_t *a, const char *s, size_t len);
char *gcp_strdup(gcp_arena_t *a, const char *s);

/*
 * Returns a NUL-terminated string formatted as by printf(), owned by the
 * arena, or NULL when out of memory.
 */
char *gcp_sprintf(gcp_arena_t *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * Registers handler(data) to run when the arena is destroyed.  Returns
 * GCP_OK, or GCP_ENOMEM (then the handler is run at once, so that whatever
 * it releases is not leaked).
 */
int gcp_arena_cleanup(gcp_arena_t *a, gcp_cleanup_pt handler, void *data);

/* Total bytes handed out by the arena (for tests and accounting). */
size_t gcp_arena_used(const gcp_arena_t *a);

/*
 * Marks a as going with one request that ends soon (a GET or a LIST):
 * stores may then hand out read results pointing into memory of their
 * own, kept valid until a is destroyed (an LMDB read snapshot), instead
 * of copies.  gcp_arena_brief() returns 1 once a was marked, else 0.
 * Arenas that live long (watches, caches) are never marked: they would
 * pin a store's old pages.
 */
void gcp_arena_set_brief(gcp_arena_t *a);
int gcp_arena_brief(const gcp_arena_t *a);


/*
 * A growable byte buffer.  Its storage is malloc'd and released by the arena
 * the buffer was initialised with, so the caller never frees it; the
 * gcp_buf_t itself may live anywhere (on the stack too).  After an
 * allocation failure the buffer is marked failed, further appends are no-ops
 * and gcp_buf_failed() tells; callers check once at the end.
 */
typedef struct {
    char         *data;
    size_t        len;
    size_t        cap;
    gcp_arena_t  *arena;
    char        **owner;        /* arena slot the cleanup frees */
    unsigned      failed:1;
} gcp_buf_t;

void gcp_buf_init(gcp_buf_t *b, gcp_arena_t *a);
int gcp_buf_reserve(gcp_buf_t *b, size_t extra);

/*
 * Appends: inline while the storage has room (every byte of JSON output
 * goes through them), gcp_buf_reserve() otherwise.
 */
static inline void
gcp_buf_add(gcp_buf_t *b, const void *p, size_t n)
{
    if (n == 0) {
        return;
    }

    if ((!b->failed && b->len + n < b->cap)
        || gcp_buf_reserve(b, n) == GCP_OK)
    {
        memcpy(b->data + b->len, p, n);
        b->len += n;
    }
}

static inline void
gcp_buf_addstr(gcp_buf_t *b, const char *s)
{
    gcp_buf_add(b, s, strlen(s));
}

static inline void
gcp_buf_addc(gcp_buf_t *b, char c)
{
    if ((!b->failed && b->len + 1 < b->cap)
        || gcp_buf_reserve(b, 1) == GCP_OK)
    {
        b->data[b->len++] = c;
    }
}

void gcp_buf_printf(gcp_buf_t *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends the decimal digits of v (no printf). */
void gcp_buf_add_int(gcp_buf_t *b, int64_t v);
#define gcp_buf_failed(b)  ((b)->failed)

/*
 * Returns a copy of the contents owned by the arena (NUL-terminated), or
 * an empty gcp_str_t (data NULL) after a failure.
 */
gcp_str_t gcp_buf_dup(gcp_buf_t *b);

/* Returns a NUL-terminated view of the contents (the NUL is not counted). */
const char *gcp_buf_cstr(gcp_buf_t *b);


/*
 * Binary search of key in v[0..n), elements of size bytes sorted as cmp
 * (given key and a pointer to an element) orders them.  Returns the index
 * of the element cmp finds equal, with *found 1, or where key would be
 * inserted, with *found 0.
 */
typedef int (*gcp_search_cmp_pt)(const void *key, const void *elt);

size_t gcp_search(const void *key, const void *v, size_t n, size_t size,
    gcp_search_cmp_pt cmp, int *found);


#endif /* _GCP_CORE_H_INCLUDED_ */
