
/*
 * Arena allocator and growable buffers (see gcp_core.h).
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcp_core.h"


#define GCP_ARENA_DEFAULT_BLOCK  8192
#define GCP_ARENA_ALIGN          16
#define gcp_align_up(n)  (((n) + GCP_ARENA_ALIGN - 1) & ~(GCP_ARENA_ALIGN - 1))


typedef struct gcp_block_s  gcp_block_t;

struct gcp_block_s {
    gcp_block_t  *next;
    size_t        size;
    size_t        used;
    /* data follows, aligned */
};

#define GCP_BLOCK_HDR  gcp_align_up(sizeof(gcp_block_t))


typedef struct gcp_cleanup_s  gcp_cleanup_t;

struct gcp_cleanup_s {
    gcp_cleanup_t   *next;
    gcp_cleanup_pt   handler;
    void            *data;
};


struct gcp_arena_s {
    gcp_block_t    *current;
    gcp_block_t    *large;
    gcp_cleanup_t  *cleanups;
    size_t          block_size;
    size_t          total;
    unsigned        brief:1;
};


static gcp_block_t *
gcp_block_new(size_t size)
{
    gcp_block_t  *b;

    b = malloc(GCP_BLOCK_HDR + size);
    if (b == NULL) {
        return NULL;
    }

    b->next = NULL;
    b->size = size;
    b->used = 0;

    return b;
}


gcp_arena_t *
gcp_arena_create(size_t block_size)
{
    gcp_arena_t  *a;

    a = calloc(1, sizeof(gcp_arena_t));
    if (a == NULL) {
        return NULL;
    }

    a->block_size = block_size ? gcp_align_up(block_size)
                               : GCP_ARENA_DEFAULT_BLOCK;

    return a;
}


static void
gcp_blocks_free(gcp_block_t *b)
{
    gcp_block_t  *next;

    while (b) {
        next = b->next;
        free(b);
        b = next;
    }
}


void
gcp_arena_destroy(gcp_arena_t *a)
{
    gcp_cleanup_t  *c, *next;

    if (a == NULL) {
        return;
    }

    /* handlers may allocate nothing new; run them newest first */

    for (c = a->cleanups; c; c = next) {
        next = c->next;
        c->handler(c->data);
    }

    gcp_blocks_free(a->current);
    gcp_blocks_free(a->large);
    free(a);
}


void *
gcp_alloc(gcp_arena_t *a, size_t size)
{
    char         *p;
    gcp_block_t  *b;

    size = gcp_align_up(size ? size : 1);

    if (size > a->block_size / 4) {
        b = gcp_block_new(size);
        if (b == NULL) {
            return NULL;
        }

        b->used = size;
        b->next = a->large;
        a->large = b;
        a->total += size;

        return (char *) b + GCP_BLOCK_HDR;
    }

    b = a->current;

    if (b == NULL || b->size - b->used < size) {
        b = gcp_block_new(a->block_size);
        if (b == NULL) {
            return NULL;
        }

        b->next = a->current;
        a->current = b;
    }

    p = (char *) b + GCP_BLOCK_HDR + b->used;
    b->used += size;
    a->total += size;

    return p;
}


void *
gcp_calloc(gcp_arena_t *a, size_t size)
{
    void  *p;

    p = gcp_alloc(a, size);
    if (p) {
        memset(p, 0, size);
    }

    return p;
}


char *
gcp_strndup(gcp_arena_t *a, const char *s, size_t len)
{
    char  *p;

    p = gcp_alloc(a, len + 1);
    if (p == NULL) {
        return NULL;
    }

    if (len) {
        memcpy(p, s, len);
    }

    p[len] = '\0';

    return p;
}


char *
gcp_strdup(gcp_arena_t *a, const char *s)
{
    return gcp_strndup(a, s, strlen(s));
}


char *
gcp_sprintf(gcp_arena_t *a, const char *fmt, ...)
{
    int       n;
    char     *p;
    va_list   ap;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);

    if (n < 0) {
        return NULL;
    }

    p = gcp_alloc(a, (size_t) n + 1);
    if (p == NULL) {
        return NULL;
    }

    va_start(ap, fmt);
    vsnprintf(p, (size_t) n + 1, fmt, ap);
    va_end(ap);

    return p;
}


int
gcp_arena_cleanup(gcp_arena_t *a, gcp_cleanup_pt handler, void *data)
{
    gcp_cleanup_t  *c;

    c = gcp_alloc(a, sizeof(gcp_cleanup_t));
    if (c == NULL) {
        handler(data);
        return GCP_ENOMEM;
    }

    c->handler = handler;
    c->data = data;
    c->next = a->cleanups;
    a->cleanups = c;

    return GCP_OK;
}


size_t
gcp_arena_used(const gcp_arena_t *a)
{
    return a->total;
}


void
gcp_arena_set_brief(gcp_arena_t *a)
{
    a->brief = 1;
}


int
gcp_arena_brief(const gcp_arena_t *a)
{
    return a->brief;
}


/* buffers */


static void
gcp_buf_free(void *data)
{
    char  **owner = data;

    free(*owner);
    *owner = NULL;
}


void
gcp_buf_init(gcp_buf_t *b, gcp_arena_t *a)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->arena = a;
    b->owner = NULL;
    b->failed = 0;
}


int
gcp_buf_reserve(gcp_buf_t *b, size_t extra)
{
    char    *p;
    size_t   cap;

    if (b->failed) {
        return GCP_ENOMEM;
    }

    if (b->len + extra + 1 <= b->cap) {
        return GCP_OK;
    }

    if (b->owner == NULL) {
        b->owner = gcp_calloc(b->arena, sizeof(char *));

        if (b->owner == NULL
            || gcp_arena_cleanup(b->arena, gcp_buf_free, b->owner) != GCP_OK)
        {
            b->owner = NULL;
            b->failed = 1;
            return GCP_ENOMEM;
        }
    }

    cap = b->cap ? b->cap : 256;

    while (cap < b->len + extra + 1) {
        cap *= 2;
    }

    p = realloc(b->data, cap);
    if (p == NULL) {
        b->failed = 1;
        return GCP_ENOMEM;
    }

    b->data = p;
    b->cap = cap;
    *b->owner = p;

    return GCP_OK;
}


void
gcp_buf_printf(gcp_buf_t *b, const char *fmt, ...)
{
    int       n;
    va_list   ap;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);

    if (n <= 0 || gcp_buf_reserve(b, (size_t) n) != GCP_OK) {
        return;
    }

    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t) n + 1, fmt, ap);
    va_end(ap);

    b->len += (size_t) n;
}


void
gcp_buf_add_int(gcp_buf_t *b, int64_t v)
{
    char      tmp[24], *p;
    uint64_t  u;

    p = tmp + sizeof(tmp);
    u = v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;

    do {
        *--p = (char) ('0' + u % 10);
        u /= 10;
    } while (u);

    if (v < 0) {
        *--p = '-';
    }

    gcp_buf_add(b, p, (size_t) (tmp + sizeof(tmp) - p));
}


gcp_str_t
gcp_buf_dup(gcp_buf_t *b)
{
    gcp_str_t  s = gcp_null_string;

    if (gcp_buf_failed(b)) {
        return s;
    }

    s.data = gcp_strndup(b->arena, b->data ? b->data : "", b->len);
    s.len = s.data ? b->len : 0;

    return s;
}


const char *
gcp_buf_cstr(gcp_buf_t *b)
{
    if (gcp_buf_reserve(b, 0) != GCP_OK) {
        return "";
    }

    b->data[b->len] = '\0';

    return b->data;
}
