
/*
 * Support of the libFuzzer harnesses (t/fuzz/NAME.c, docs/fuzzing.md): a
 * cursor over an input, checks that abort with a message (libFuzzer keeps
 * the input as a crash), and one API core in process per harness process.
 */

#ifndef _FUZZ_H_INCLUDED_
#define _FUZZ_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>

#include "support_api.h"


/* Aborts with the failed condition when cond is false. */
#define FUZZ_CHECK(cond)                                                      \
    ((cond) ? (void) 0 : fuzz_fail(__FILE__, __LINE__, #cond))

void fuzz_fail(const char *file, int line, const char *cond);

/* As FUZZ_CHECK(), printing the response r (api_resp_t *) first. */
#define FUZZ_CHECK_RESP(r, cond)                                              \
    ((cond) ? (void) 0 : fuzz_fail_resp(__FILE__, __LINE__, #cond, r))

void fuzz_fail_resp(const char *file, int line, const char *cond,
    const api_resp_t *r);


/* What is left of an input. */
typedef struct {
    const uint8_t  *p;
    size_t          n;
} fuzz_in_t;

/* Returns the next byte, or 0 at the end. */
uint8_t fuzz_byte(fuzz_in_t *in);

/*
 * Cuts the next part of in, up to the byte sep (excluded; the rest when
 * there is none): sets *p to it (in the input) and returns its length.
 */
size_t fuzz_cut(fuzz_in_t *in, int sep, const uint8_t **p);

/*
 * Returns the next line (without its '\n'; the rest when there is no
 * '\n') as a NUL-terminated copy that the caller frees.
 */
char *fuzz_line(fuzz_in_t *in);

/* Returns a NUL-terminated copy of n bytes at p; the caller frees it. */
char *fuzz_strndup(const void *p, size_t n);

/*
 * Returns s (n bytes) percent-encoded for a query value; the caller frees
 * it.
 */
char *fuzz_query_escape(const char *s, size_t n);


/*
 * Returns this process's API core on a fresh LMDB store (AlwaysAllow,
 * bootstrapped), made on the first call; it is destroyed at exit.
 */
api_env_t *fuzz_env(void);

/*
 * Serves one request on env as api_call_n() does, compacting the store
 * every few thousand calls so that a long run stays within the map size.
 * The caller frees the result with api_resp_free().
 */
api_resp_t *fuzz_call(api_env_t *env, const char *method, const char *path,
    const char *content_type, const char *body, size_t len,
    const char *accept);

/*
 * Counts a request about to be served on env; every few thousand, compacts
 * the store (fuzz_call() does this itself).
 */
void fuzz_tick(api_env_t *env);

/* Compacts env's store at its current revision and waits for it. */
void fuzz_compact(api_env_t *env);

/*
 * Enters a request body as a client's create and update do: the input is
 * "COLLECTION-PATH[?QUERY]\nBODY" (an input not starting with '/' is all
 * body, for configmaps of namespace default).  The body is POSTed with
 * content_type; when created, PUT again at the object's path, then the
 * object is deleted, so that runs do not pile up objects (with dryRun=All
 * in the query, nothing was created: the PUT and DELETE find nothing).
 */
void fuzz_body(const uint8_t *data, size_t size, const char *content_type);


#endif /* _FUZZ_H_INCLUDED_ */
