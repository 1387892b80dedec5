
/*
 * Test support: what the deterministic fuzz tests share: a seeded
 * xorshift generator (every run identical), a monotonic clock for their
 * time budgets, a mutator of text and a generator of values.
 */

#ifndef _SUPPORT_FUZZ_H_INCLUDED_
#define _SUPPORT_FUZZ_H_INCLUDED_


#include <stdint.h>

#include "gcp_core.h"


/* Sets the generator's state (not 0). */
void fuzz_seed(uint64_t seed);

/* Returns the next pseudo-random number. */
uint64_t fuzz_rnd(void);

#define fuzz_pick(n)  ((size_t) (fuzz_rnd() % (uint64_t) (n)))

/* Returns CLOCK_MONOTONIC in seconds. */
double fuzz_now(void);

/*
 * Returns 1 while run number runs of a test started at start (fuzz_now())
 * may go on: fewer than max runs, within seconds (checked every 64 runs).
 */
int fuzz_more(int runs, int max, double start, double seconds);

/*
 * Appends text to b, then changes it 1 to 4 times while b is shorter than
 * max: a byte overwritten, one of the ntokens tokens inserted (an empty
 * token is a NUL byte), a range deleted, or the rest cut.
 */
void fuzz_mutate(gcp_buf_t *b, const char *text, const char * const *tokens,
    size_t ntokens, size_t max);


/* What fuzz_gen_value() writes: JSON, or YAML's flow style. */
typedef struct {
    const char * const  *keys;          /* written as they are */
    size_t               nkeys;
    const char * const  *scalars;
    size_t               nscalars;
    const char          *colon;         /* after a key */
    const char          *comma;         /* between members and items */
    const char          *anchor;        /* NULL, or sometimes before a */
                                        /* sequence */
} fuzz_grammar_t;

/*
 * Appends a random value of at most depth levels: objects, sequences, an
 * object of keys[0] alone, scalars.
 */
void fuzz_gen_value(gcp_buf_t *b, const fuzz_grammar_t *g, int depth);


#endif /* _SUPPORT_FUZZ_H_INCLUDED_ */
