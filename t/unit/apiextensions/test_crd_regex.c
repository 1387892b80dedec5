
/*
 * Unit tests: Go (RE2) regular expressions on PCRE2
 * (core/apiextensions/gcp_crd_regex*.c): Go's syntax errors with Go's
 * messages, and the places where Go's semantics differ from PCRE2's.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "gcp_crd_regex.h"


#define E  "error parsing regexp: "


static void
test_syntax_errors(void **state)
{
    size_t        i;
    const char   *err;
    gcp_arena_t  *a;

    static const struct {
        const char  *re;
        const char  *err;       /* NULL: Go accepts it */
    }  t[] = {
        { "(abc", E "missing closing ): `(abc`" },
        { "a**", E "invalid nested repetition operator: `**`" },
        { "a*+", E "invalid nested repetition operator: `*+`" },
        { "a{2}{3}", E "invalid nested repetition operator: `{2}{3}`" },
        { "\\1", E "invalid escape sequence: `\\1`" },
        { "\\C", E "invalid escape sequence: `\\C`" },
        { "\\Z", E "invalid escape sequence: `\\Z`" },
        { "*a", E "missing argument to repetition operator: `*`" },
        { "a)", E "unexpected ): `a)`" },
        { "[a", E "missing closing ]: `[a`" },
        { "[z-a]", E "invalid character class range: `z-a`" },
        { "[[:foo:]]", E "invalid character class range: `[:foo:]`" },
        { "\\p{Foo}", E "invalid character class range: `\\p{Foo}`" },
        { "a{1001}", E "invalid repeat count: `{1001}`" },
        { "x{2,1}", E "invalid repeat count: `{2,1}`" },
        { "(a{100}){100}", E "invalid repeat count: `{100}`" },
        { "(?=a)", E "invalid or unsupported Perl syntax: `(?=`" },
        { "(?<!a)b", E "invalid named capture: `(?<!a)b`" },
        { "(?<!a>b)", E "invalid named capture: `(?<!a>`" },
        { "(?i", E "invalid or unsupported Perl syntax: `(?i`" },
        { "(?P<>a)", E "invalid named capture: `(?P<>`" },
        { "(?P<n>a)(?P<n>b)", NULL },    /* Go does not check */
        { "a{1000}", NULL },
        { "a{,5}", NULL },              /* a literal "{,5}" in Go */
        { "(?P<name>a)(?<other>b)", NULL },
        { "\\Q(a\\E+", NULL },
        { "[[:alpha:]\\pL\\x{10FFFF}]", NULL },
        { "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", NULL },
    };

    a = gcp_arena_create(0);
    assert_non_null(a);

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        err = gcp_crd_regex_check(a, t[i].re, strlen(t[i].re));

        if (t[i].err == NULL) {
            if (err != NULL) {
                fail_msg("%s: unexpected %s", t[i].re, err);
            }

        } else if (err == NULL || strcmp(err, t[i].err) != 0) {
            fail_msg("%s\n  want: %s\n  got:  %s", t[i].re, t[i].err,
                     err ? err : "(accepted)");
        }
    }

    gcp_arena_destroy(a);
}


static void
test_matching(void **state)
{
    int               got;
    size_t            i;
    const char       *err;
    gcp_arena_t      *a;
    gcp_crd_regex_t  *re;
    gcp_crd_match_t  *m;

    static const struct {
        const char  *re;
        const char  *s;
        int          match;     /* Go's regexp.MatchString */
    }  t[] = {
        /* $ is the end of the text, not before a final newline */
        { "^abc$", "abc", 1 },
        { "^abc$", "abc\n", 0 },
        { "(?m)^abc$", "x\nabc\n", 1 },
        { "(?m)^$", "a\n", 1 },
        /* . excludes only \n, whatever PCRE2's newline convention */
        { "a.c", "a\nc", 0 },
        { "a.c", "a\rc", 1 },
        { "(?s)a.c", "a\nc", 1 },
        /* \s has no \v in Go; \d \w [[:alpha:]] are ASCII */
        { "^\\s$", "\v", 0 },
        { "^\\s$", "\f", 1 },
        { "^\\d$", "\xd9\xa3", 0 },
        { "^\\w$", "\xc3\xa9", 0 },
        { "^[[:alpha:]]+$", "\xc3\xa9", 0 },
        { "^\\pL$", "\xc3\xa9", 1 },
        { "^\\p{Greek}+$", "\xce\xb1\xce\xb2", 1 },
        { "^\\PL$", "1", 1 },
        /* flags apply from where they are set */
        { "(?i)k", "K", 1 },
        { "a(?i)b", "aB", 1 },
        { "a(?i)b", "AB", 0 },
        { "(?i:a)b", "AB", 0 },
        { "a(?i)*b", "b", 1 },
        /* literals and escapes */
        { "\\Q(a\\E+", "(aa", 1 },
        { "^\\Q.*\\E$", "ab", 0 },
        { "^\\101\\x41\\x{41}$", "AAA", 1 },
        { "^a{,5}$", "a{,5}", 1 },
        { "^[\\d\\-]+$", "1-2", 1 },
        { "\\x{D800}", "x", 0 },
        /* leftmost-first alternation, anchors */
        { "(a|ab)(c|bcd)(d*)", "abcd", 1 },
        { "\\Aab\\z", "ab", 1 },
        { "^$", "", 1 },
        { "\\bfoo\\b", "a foo.", 1 },
        /* catastrophic backtracking is answered in bounded time */
        { "^(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", 0 },
        { "^(a|a)*$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 1 },
        { "^(a|aa)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", 0 },
    };

    a = gcp_arena_create(0);
    assert_non_null(a);

    m = gcp_crd_match_create();
    assert_non_null(m);

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        err = NULL;
        re = gcp_crd_regex_compile(a, t[i].re, strlen(t[i].re), &err);
        if (re == NULL) {
            fail_msg("%s does not compile: %s", t[i].re, err);
        }

        assert_string_equal(gcp_crd_regex_source(re), t[i].re);

        got = gcp_crd_regex_match(re, m, t[i].s, strlen(t[i].s));
        if (got != t[i].match) {
            fail_msg("%s =~ \"%s\": want %d, got %d", t[i].re, t[i].s,
                     t[i].match, got);
        }
    }

    assert_int_equal(gcp_crd_regex_match(re, NULL, "a", 1), -1);

    gcp_crd_match_free(m);
    gcp_arena_destroy(a);
}


int
main(void)
{
    const struct CMUnitTest  tests[] = {
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_matching),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
