
/*
 * Test support: the fuzz tests' generator, clock and mutator (see
 * support_fuzz.h).
 */

#include <time.h>

#include "support_fuzz.h"


static uint64_t  fuzz_state = 0x243f6a8885a308d3ULL;


void
fuzz_seed(uint64_t seed)
{
    fuzz_state = seed;
}


uint64_t
fuzz_rnd(void)
{
    fuzz_state ^= fuzz_state >> 12;
    fuzz_state ^= fuzz_state << 25;
    fuzz_state ^= fuzz_state >> 27;

    return fuzz_state * 0x2545f4914f6cdd1dULL;
}


double
fuzz_now(void)
{
    struct timespec  ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);

    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}


int
fuzz_more(int runs, int max, double start, double seconds)
{
    if (runs >= max) {
        return 0;
    }

    return (runs & 63) != 0 || fuzz_now() - start <= seconds;
}


void
fuzz_mutate(gcp_buf_t *b, const char *text, const char * const *tokens,
    size_t ntokens, size_t max)
{
    size_t       i, n, len, at, k;
    const char  *t;

    len = strlen(text);
    gcp_buf_add(b, text, len);

    n = 1 + fuzz_pick(4);

    for (i = 0; i < n && b->len < max; i++) {
        at = b->len ? fuzz_pick(b->len) : 0;

        switch (fuzz_pick(4)) {

        case 0:
            /* overwrite a byte */
            if (b->len) {
                b->data[at] = (char) fuzz_pick(256);
            }
            break;

        case 1:
            /* insert a token */
            t = tokens[fuzz_pick(ntokens)];
            k = t[0] ? strlen(t) : 1;
            if (gcp_buf_reserve(b, k) == GCP_OK) {
                memmove(b->data + at + k, b->data + at, b->len - at);
                memcpy(b->data + at, t, k);
                b->len += k;
            }
            break;

        case 2:
            /* delete a range */
            k = fuzz_pick(16) + 1;
            k = gcp_min(k, b->len - at);
            memmove(b->data + at, b->data + at + k, b->len - at - k);
            b->len -= k;
            break;

        default:
            /* truncate */
            b->len = at;
            break;
        }
    }
}


void
fuzz_gen_value(gcp_buf_t *b, const fuzz_grammar_t *g, int depth)
{
    size_t  i, n;

    switch (depth > 0 ? fuzz_pick(4) : 3) {

    case 0:
        gcp_buf_addc(b, '{');
        n = fuzz_pick(4);
        for (i = 0; i < n; i++) {
            gcp_buf_printf(b, "%s%s%s", i ? g->comma : "",
                           g->keys[fuzz_pick(g->nkeys)], g->colon);
            fuzz_gen_value(b, g, depth - 1);
        }
        gcp_buf_addc(b, '}');
        break;

    case 1:
        if (g->anchor && fuzz_pick(4) == 0) {
            gcp_buf_addstr(b, g->anchor);
        }

        gcp_buf_addc(b, '[');
        n = fuzz_pick(4);
        for (i = 0; i < n; i++) {
            if (i) {
                gcp_buf_addstr(b, g->comma);
            }
            fuzz_gen_value(b, g, depth - 1);
        }
        gcp_buf_addc(b, ']');
        break;

    case 2:
        gcp_buf_printf(b, "{%s%s%s}", g->keys[0], g->colon,
                       g->scalars[fuzz_pick(g->nscalars)]);
        break;

    default:
        gcp_buf_addstr(b, g->scalars[fuzz_pick(g->nscalars)]);
        break;
    }
}
