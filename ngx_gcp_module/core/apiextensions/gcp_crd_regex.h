
/*
 * Regular expressions of CustomResourceDefinition schemas ("pattern") with
 * Go's regexp (RE2) syntax and semantics, matched by PCRE2.
 *
 * A pattern is first parsed as Go's regexp/syntax.Parse(s, Perl) does
 * (Go 1.23): what Go refuses is refused with Go's message ("error parsing
 * regexp: missing closing ): `(a`"), so a CRD is accepted or refused as
 * kube-apiserver does.  The parse then writes an equivalent PCRE2 pattern,
 * which is compiled once (JIT when available) and matched without
 * recompiling.  The differences of the two dialects it handles:
 *
 *   - Go has no backreferences, lookarounds, possessive or atomic groups,
 *     \C, \Z, \e, \G, \K, \h, \R, \X, (?| ...), callouts, recursion or
 *     \N{...}: they are syntax errors, as in Go;
 *   - "$" without (?m) is the end of the text in Go (PCRE2 also matches
 *     before a final newline): written as \z; "^" without (?m) is \A;
 *     with (?m), "^" also matches after a final newline (PCRE2_ALT_
 *     CIRCUMFLEX); "." never depends on PCRE2's newline convention;
 *   - flags (?imsU) are resolved by the parser and applied to each atom,
 *     so that a repetition of the atom before a flag group ("a(?i)*") keeps
 *     Go's meaning;
 *   - \s is [\t\n\f\r ] in Go (PCRE2 adds \v); \d \w \b and the POSIX
 *     classes are ASCII in both (PCRE2 without UCP);
 *   - octal escapes (\0, \12, \123), \x{...} up to U+10FFFF, \Q...\E and
 *     escaped punctuation are turned into code points; a range or literal
 *     in the surrogate block (which no UTF-8 string holds) is dropped;
 *   - repetition limits as Go: counts up to 1000, nested counts multiplied
 *     up to 1000, no repetition of a repetition ("a**", "a{2}{3}",
 *     "a*+"); "{" that does not start a valid count is a literal;
 *   - named groups (?P<n>...) and (?<n>...) become non-capturing groups
 *     (only whether a string matches is asked).
 *
 * Not reproduced: \p{...} of the Unicode 15 scripts Kawi and Nag_Mundari
 * (PCRE2 10.42 knows Unicode 14: such a pattern fails to compile, reported
 * by gcp_crd_regex_compile()); case folding of \p classes under (?i) (Go
 * adds the fold-equivalent runes, PCRE2 does not); Go's limits on the
 * number of runes in classes and the exact parse-tree height (a height of
 * groups and repetitions beyond 1000 is refused, as Go does, computed on a
 * slightly simpler tree).
 *
 * Matching time and memory are bounded: the backtracking matcher runs
 * with PCRE2 match, depth and heap limits; when a pattern exceeds them
 * (catastrophic backtracking, which RE2 does not have) the same question
 * is asked to PCRE2's DFA matcher, whose time is polynomial; if that also
 * fails the string is reported as not matching.
 */

#ifndef _GCP_CRD_REGEX_H_INCLUDED_
#define _GCP_CRD_REGEX_H_INCLUDED_


#include "gcp_core.h"


typedef struct gcp_crd_regex_s  gcp_crd_regex_t;
typedef struct gcp_crd_match_s  gcp_crd_match_t;


/*
 * Parses pattern (len bytes) as Go's regexp.Compile.  Returns NULL when Go
 * accepts it, else Go's error message ("error parsing regexp: ...") owned
 * by the arena (or a static "out of memory").
 */
const char *gcp_crd_regex_check(gcp_arena_t *a, const char *pattern,
    size_t len);

/*
 * Translates a pattern Go accepts into PCRE2 syntax.  Returns GCP_OK and
 * *out (NUL-terminated, arena-owned), GCP_EINVALID with *err set to Go's
 * message (arena-owned), or GCP_ENOMEM.
 */
int gcp_crd_regex_translate(gcp_arena_t *a, const char *pattern, size_t len,
    gcp_str_t *out, const char **err);

/*
 * Compiles pattern.  Returns the regex, released when the arena is
 * destroyed (the caller never frees it; it may be shared read-only by any
 * number of matches, also in several threads), or NULL with *err set to
 * Go's syntax error or PCRE2's compile error (arena-owned or static).
 */
gcp_crd_regex_t *gcp_crd_regex_compile(gcp_arena_t *a, const char *pattern,
    size_t len, const char **err);

/* The pattern as written (borrowed from the regex). */
const char *gcp_crd_regex_source(const gcp_crd_regex_t *re);

/*
 * Scratch memory of matches, for one thread: returns a new one owned by
 * the caller (free with gcp_crd_match_free()), or NULL.
 */
gcp_crd_match_t *gcp_crd_match_create(void);
void gcp_crd_match_free(gcp_crd_match_t *m);

/*
 * Returns 1 when s (len bytes) matches re anywhere (Go's MatchString), 0
 * when it does not or when neither matcher could decide within its limits,
 * -1 when m is NULL or memory ran out.
 */
int gcp_crd_regex_match(const gcp_crd_regex_t *re, gcp_crd_match_t *m,
    const char *s, size_t len);

/* Returns the value of the hexadecimal digit c, or -1. */
int gcp_crd_hexval(uint32_t c);


#endif /* _GCP_CRD_REGEX_H_INCLUDED_ */
