
/*
 * Go's regexp/syntax parser (Perl flags, Go 1.23) over a pattern, writing
 * the PCRE2 equivalent on the way (see gcp_crd_regex.h for what changes).
 * Iterative: groups are an explicit stack, so any nesting is parsed in
 * bounded stack space; Go's own limits then refuse deep or large trees.
 */

#include <stdio.h>

#include "gcp_crd_regex.h"
#include "gcp_json.h"


#define GCP_RE_FOLD        0x01     /* (?i) */
#define GCP_RE_MULTILINE   0x02     /* (?m): not Go's OneLine */
#define GCP_RE_DOTNL       0x04     /* (?s) */
#define GCP_RE_UNGREEDY    0x08     /* (?U) */

#define GCP_RE_MAX_REPEAT  1000
#define GCP_RE_MAX_HEIGHT  1000
#define GCP_RE_MAX_SIZE    (128 * 1024 * 1024 / 40)   /* Go's maxSize */
#define GCP_RE_MAX_RUNE    0x10ffff


/* the last thing of a sequence a repetition applies to */
typedef struct {
    size_t    start;            /* its offset in the output */
    int64_t   size;             /* Go's compiled size estimate */
    int64_t   prod;             /* product of nested counts */
    int       height;
} gcp_re_atom_t;


/* one level of grouping: the top level or a "(" */
typedef struct {
    size_t         out_start;
    unsigned       flags;       /* flags to restore at ")" */
    unsigned       capture:1;   /* a node of its own in Go's tree */
    unsigned       have_atom:1;
    gcp_re_atom_t  atom;

    /* the current alternative and the finished ones */
    int64_t        seq_size;
    int64_t        seq_prod;
    int            seq_height;
    int            seq_items;
    int64_t        alt_size;
    int64_t        alt_prod;
    int            alt_height;
    int            alts;
} gcp_re_frame_t;


typedef struct {
    gcp_arena_t     *arena;
    const char      *whole;
    size_t           whole_len;
    const char      *p;         /* parse position */
    const char      *end;
    gcp_buf_t        out;
    unsigned         flags;
    const char      *err;
    gcp_re_frame_t  *stack;
    size_t           depth;
    size_t           cap;
    const char      *last_repeat;   /* the previous token was a repeat */
} gcp_re_parser_t;


/* unicode.Categories and unicode.Scripts of Go 1.23 (Unicode 15.0) */
static const char  *gcp_re_unicode_names[] = {
    "Any",
    "C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M",
    "Mc", "Me", "Mn", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf",
    "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So", "Z", "Zl", "Zp", "Zs",
    "Adlam", "Ahom", "Anatolian_Hieroglyphs", "Arabic", "Armenian",
    "Avestan", "Balinese", "Bamum", "Bassa_Vah", "Batak", "Bengali",
    "Bhaiksuki", "Bopomofo", "Brahmi", "Braille", "Buginese", "Buhid",
    "Canadian_Aboriginal", "Carian", "Caucasian_Albanian", "Chakma", "Cham",
    "Cherokee", "Chorasmian", "Common", "Coptic", "Cuneiform", "Cypriot",
    "Cypro_Minoan", "Cyrillic", "Deseret", "Devanagari", "Dives_Akuru",
    "Dogra", "Duployan", "Egyptian_Hieroglyphs", "Elbasan", "Elymaic",
    "Ethiopic", "Georgian", "Glagolitic", "Gothic", "Grantha", "Greek",
    "Gujarati", "Gunjala_Gondi", "Gurmukhi", "Han", "Hangul",
    "Hanifi_Rohingya", "Hanunoo", "Hatran", "Hebrew", "Hiragana",
    "Imperial_Aramaic", "Inherited", "Inscriptional_Pahlavi",
    "Inscriptional_Parthian", "Javanese", "Kaithi", "Kannada", "Katakana",
    "Kawi", "Kayah_Li", "Kharoshthi", "Khitan_Small_Script", "Khmer",
    "Khojki", "Khudawadi", "Lao", "Latin", "Lepcha", "Limbu", "Linear_A",
    "Linear_B", "Lisu", "Lycian", "Lydian", "Mahajani", "Makasar",
    "Malayalam", "Mandaic", "Manichaean", "Marchen", "Masaram_Gondi",
    "Medefaidrin", "Meetei_Mayek", "Mende_Kikakui", "Meroitic_Cursive",
    "Meroitic_Hieroglyphs", "Miao", "Modi", "Mongolian", "Mro", "Multani",
    "Myanmar", "Nabataean", "Nag_Mundari", "Nandinagari", "New_Tai_Lue",
    "Newa", "Nko", "Nushu", "Nyiakeng_Puachue_Hmong", "Ogham", "Ol_Chiki",
    "Old_Hungarian", "Old_Italic", "Old_North_Arabian", "Old_Permic",
    "Old_Persian", "Old_Sogdian", "Old_South_Arabian", "Old_Turkic",
    "Old_Uyghur", "Oriya", "Osage", "Osmanya", "Pahawh_Hmong", "Palmyrene",
    "Pau_Cin_Hau", "Phags_Pa", "Phoenician", "Psalter_Pahlavi", "Rejang",
    "Runic", "Samaritan", "Saurashtra", "Sharada", "Shavian", "Siddham",
    "SignWriting", "Sinhala", "Sogdian", "Sora_Sompeng", "Soyombo",
    "Sundanese", "Syloti_Nagri", "Syriac", "Tagalog", "Tagbanwa", "Tai_Le",
    "Tai_Tham", "Tai_Viet", "Takri", "Tamil", "Tangsa", "Tangut", "Telugu",
    "Thaana", "Thai", "Tibetan", "Tifinagh", "Tirhuta", "Toto", "Ugaritic",
    "Vai", "Vithkuqi", "Wancho", "Warang_Citi", "Yezidi", "Yi",
    "Zanabazar_Square"
};


static const char  *gcp_re_posix_names[] = {
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower",
    "print", "punct", "space", "upper", "word", "xdigit"
};


/* Go's \s: [\t\n\f\r ] */
#define GCP_RE_SPACE_SET  "\\x{9}\\x{a}\\x{c}\\x{d}\\x{20}"


static void
gcp_re_fail(gcp_re_parser_t *ps, const char *code, const char *expr,
    size_t len)
{
    if (ps->err == NULL) {
        ps->err = gcp_sprintf(ps->arena,
                              "error parsing regexp: %s: `%.*s`", code,
                              (int) len, expr);
        if (ps->err == NULL) {
            ps->err = "out of memory";
        }
    }
}


/* nextRune(): returns the rune at p and sets *n, or fails on bad UTF-8 */
static int
gcp_re_next(gcp_re_parser_t *ps, const char *p, uint32_t *r, size_t *n)
{
    if (p >= ps->end) {
        *r = 0xfffd;                    /* DecodeRune of "" */
        *n = 0;
        return 0;
    }

    *n = gcp_utf8_decode((const unsigned char *) p, ps->end - p, r);

    if (*r == 0xfffd && *n == 1) {
        gcp_re_fail(ps, "invalid UTF-8", p, ps->end - p);
        return -1;
    }

    return 0;
}


static int
gcp_re_isalnum(uint32_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z')
           || (c >= 'a' && c <= 'z');
}


int
gcp_crd_hexval(uint32_t c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }

    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }

    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }

    return -1;
}


/*
 * parseEscape(): the escape at p ('\\' first) as a rune; sets *next past
 * it.  Returns 0, or -1 with the error set.
 */
static int
gcp_re_escape(gcp_re_parser_t *ps, const char *p, uint32_t *r,
    const char **next)
{
    int          i, x, y, nhex;
    size_t       n;
    uint32_t     c, v;
    const char  *t;

    t = p + 1;

    if (t >= ps->end) {
        gcp_re_fail(ps, "trailing backslash at end of expression", "", 0);
        return -1;
    }

    if (gcp_re_next(ps, t, &c, &n) != 0) {
        return -1;
    }

    t += n;

    switch (c) {

    case '1': case '2': case '3': case '4': case '5': case '6': case '7':
        if (t >= ps->end || *t < '0' || *t > '7') {
            break;
        }

        /* fall through */

    case '0':
        v = c - '0';

        for (i = 1; i < 3; i++) {
            if (t >= ps->end || *t < '0' || *t > '7') {
                break;
            }

            v = v * 8 + (*t - '0');
            t++;
        }

        *r = v;
        *next = t;
        return 0;

    case 'x':
        if (t >= ps->end) {
            break;
        }

        if (gcp_re_next(ps, t, &c, &n) != 0) {
            return -1;
        }

        t += n;

        if (c == '{') {
            nhex = 0;
            v = 0;

            for ( ;; ) {
                if (t >= ps->end) {
                    goto invalid;
                }

                if (gcp_re_next(ps, t, &c, &n) != 0) {
                    return -1;
                }

                t += n;

                if (c == '}') {
                    break;
                }

                x = gcp_crd_hexval(c);
                if (x < 0) {
                    goto invalid;
                }

                v = v * 16 + x;
                if (v > GCP_RE_MAX_RUNE) {
                    goto invalid;
                }

                nhex++;
            }

            if (nhex == 0) {
                goto invalid;
            }

            *r = v;
            *next = t;
            return 0;
        }

        x = gcp_crd_hexval(c);

        if (gcp_re_next(ps, t, &c, &n) != 0) {
            return -1;
        }

        t += n;
        y = gcp_crd_hexval(c);

        if (x < 0 || y < 0) {
            break;
        }

        *r = x * 16 + y;
        *next = t;
        return 0;

    case 'a':
        *r = '\a';
        *next = t;
        return 0;

    case 'f':
        *r = '\f';
        *next = t;
        return 0;

    case 'n':
        *r = '\n';
        *next = t;
        return 0;

    case 'r':
        *r = '\r';
        *next = t;
        return 0;

    case 't':
        *r = '\t';
        *next = t;
        return 0;

    case 'v':
        *r = '\v';
        *next = t;
        return 0;

    default:
        if (c < 0x80 && !gcp_re_isalnum(c)) {
            *r = c;
            *next = t;
            return 0;
        }
    }

invalid:

    gcp_re_fail(ps, "invalid escape sequence", p, t - p);
    return -1;
}


static int
gcp_re_unicode_known(const char *name, size_t len)
{
    size_t  i;

    for (i = 0; i < gcp_nelems(gcp_re_unicode_names); i++) {
        if (strlen(gcp_re_unicode_names[i]) == len
            && memcmp(gcp_re_unicode_names[i], name, len) == 0)
        {
            return 1;
        }
    }

    return 0;
}


/*
 * parseUnicodeClass(): \pX, \p{Name}, \P..., \p{^Name} at p.  Returns 1
 * and writes the PCRE2 form into b (inside a class when in_class), 0 when
 * p does not start one, -1 on error.
 */
static int
gcp_re_unicode_class(gcp_re_parser_t *ps, const char *p, gcp_buf_t *b,
    const char **next)
{
    int          neg;
    size_t       n, nlen;
    uint32_t     c;
    const char  *t, *name, *seq, *close;

    if (ps->end - p < 2 || p[0] != '\\' || (p[1] != 'p' && p[1] != 'P')) {
        return 0;
    }

    neg = (p[1] == 'P');
    t = p + 2;

    if (gcp_re_next(ps, t, &c, &n) != 0) {
        return -1;
    }

    t += n;
    seq = p;

    if (c != '{') {
        name = p + 2;
        nlen = t - name;

    } else {
        close = memchr(p, '}', ps->end - p);

        if (close == NULL) {
            gcp_re_fail(ps, "invalid character class range", p,
                        ps->end - p);
            return -1;
        }

        name = p + 3;
        nlen = close - name;
        t = close + 1;
    }

    if (nlen && name[0] == '^') {
        neg = !neg;
        name++;
        nlen--;
    }

    if (!gcp_re_unicode_known(name, nlen)) {
        gcp_re_fail(ps, "invalid character class range", seq, t - seq);
        return -1;
    }

    gcp_buf_printf(b, "\\%c{%.*s}", neg ? 'P' : 'p', (int) nlen, name);
    *next = t;

    return 1;
}


/* \d \D \s \S \w \W: the members written into a class body */
static int
gcp_re_perl_class(const char *p, const char *end, gcp_buf_t *b)
{
    if (end - p < 2 || p[0] != '\\') {
        return 0;
    }

    switch (p[1]) {

    case 'd':
        gcp_buf_addstr(b, "0-9");
        return 1;

    case 'D':
        gcp_buf_addstr(b, "\\D");
        return 1;

    case 'w':
        gcp_buf_addstr(b, "0-9A-Za-z_");
        return 1;

    case 'W':
        gcp_buf_addstr(b, "\\W");
        return 1;

    case 's':
        gcp_buf_addstr(b, GCP_RE_SPACE_SET);
        return 1;

    case 'S':
        gcp_buf_addstr(b, "\\S\\x{b}");     /* PCRE2's \S lacks \v */
        return 1;
    }

    return 0;
}


/* Appends the range lo-hi to a class body, without the surrogates. */
static void
gcp_re_class_range(gcp_buf_t *b, uint32_t lo, uint32_t hi, int *members)
{
    if (lo >= 0xd800 && hi <= 0xdfff) {
        return;
    }

    if (lo < 0xd800 && hi >= 0xd800) {
        gcp_re_class_range(b, lo, 0xd7ff, members);
        lo = 0xe000;

        if (hi < lo) {
            return;
        }
    }

    if (lo >= 0xd800 && lo <= 0xdfff) {
        lo = 0xe000;
    }

    if (lo == hi) {
        gcp_buf_printf(b, "\\x{%x}", (unsigned) lo);

    } else {
        gcp_buf_printf(b, "\\x{%x}-\\x{%x}", (unsigned) lo, (unsigned) hi);
    }

    (*members)++;
}


/* parseClassChar() */
static int
gcp_re_class_char(gcp_re_parser_t *ps, const char *p, const char *whole,
    uint32_t *r, const char **next)
{
    size_t  n;

    if (p >= ps->end) {
        gcp_re_fail(ps, "missing closing ]", whole, ps->end - whole);
        return -1;
    }

    if (*p == '\\') {
        return gcp_re_escape(ps, p, r, next);
    }

    if (gcp_re_next(ps, p, r, &n) != 0) {
        return -1;
    }

    *next = p + n;
    return 0;
}


/*
 * parseClass(): the class at p ('[' first), written as a PCRE2 class
 * into b.  Returns 0 and sets *next, or -1.
 */
static int
gcp_re_class(gcp_re_parser_t *ps, const char *p, gcp_buf_t *b,
    const char **next)
{
    int          neg, first, rc, members;
    size_t       i, nlen;
    uint32_t     lo, hi;
    gcp_buf_t    body;
    const char  *t, *rng, *close, *name;

    gcp_buf_init(&body, ps->arena);

    t = p + 1;
    neg = 0;
    members = 0;

    if (t < ps->end && *t == '^') {
        neg = 1;
        t++;
    }

    first = 1;

    while (t >= ps->end || *t != ']' || first) {
        first = 0;

        /* [:alnum:] */

        if (ps->end - t > 2 && t[0] == '[' && t[1] == ':') {
            close = NULL;

            for (i = 2; t + i + 1 < ps->end; i++) {
                if (t[i] == ':' && t[i + 1] == ']') {
                    close = t + i;
                    break;
                }
            }

            if (close) {
                name = t + 2;
                nlen = close - name;

                if (nlen && name[0] == '^') {
                    name++;
                    nlen--;
                }

                for (i = 0; i < gcp_nelems(gcp_re_posix_names); i++) {
                    if (strlen(gcp_re_posix_names[i]) == nlen
                        && memcmp(gcp_re_posix_names[i], name, nlen) == 0)
                    {
                        break;
                    }
                }

                if (i == gcp_nelems(gcp_re_posix_names)) {
                    gcp_re_fail(ps, "invalid character class range", t,
                                close + 2 - t);
                    return -1;
                }

                gcp_buf_add(&body, t, close + 2 - t);
                members++;
                t = close + 2;
                continue;
            }
        }

        rc = gcp_re_unicode_class(ps, t, &body, &t);
        if (rc < 0) {
            return -1;
        }

        if (rc) {
            members++;
            continue;
        }

        if (gcp_re_perl_class(t, ps->end, &body)) {
            members++;
            t += 2;
            continue;
        }

        rng = t;

        if (gcp_re_class_char(ps, t, p, &lo, &t) != 0) {
            return -1;
        }

        hi = lo;

        if (ps->end - t >= 2 && t[0] == '-' && t[1] != ']') {
            t++;

            if (gcp_re_class_char(ps, t, p, &hi, &t) != 0) {
                return -1;
            }

            if (hi < lo) {
                gcp_re_fail(ps, "invalid character class range", rng,
                            t - rng);
                return -1;
            }
        }

        gcp_re_class_range(&body, lo, hi, &members);
    }

    *next = t + 1;

    if (ps->flags & GCP_RE_FOLD) {
        gcp_buf_addstr(b, "(?i:");
    }

    if (members == 0) {
        /* only surrogates: nothing (or, negated, everything) */
        gcp_buf_addstr(b, neg ? "[\\x{0}-\\x{10ffff}]"
                              : "[^\\x{0}-\\x{10ffff}]");

    } else {
        gcp_buf_addstr(b, neg ? "[^" : "[");
        gcp_buf_add(b, body.data, body.len);
        gcp_buf_addc(b, ']');
    }

    if (ps->flags & GCP_RE_FOLD) {
        gcp_buf_addc(b, ')');
    }

    return gcp_buf_failed(&body) ? -1 : 0;
}


/* ------------------------------------------------------------- the tree */


static gcp_re_frame_t *
gcp_re_top(gcp_re_parser_t *ps)
{
    return &ps->stack[ps->depth - 1];
}


/* Closes the current atom into the current alternative. */
static void
gcp_re_flush_atom(gcp_re_frame_t *f)
{
    if (!f->have_atom) {
        return;
    }

    f->seq_size += f->atom.size;
    f->seq_prod = gcp_max(f->seq_prod, f->atom.prod);
    f->seq_height = gcp_max(f->seq_height, f->atom.height);
    f->seq_items++;
    f->have_atom = 0;
}


/* Starts a new atom at the current output position. */
static void
gcp_re_atom(gcp_re_parser_t *ps, int64_t size, int64_t prod, int height)
{
    gcp_re_frame_t  *f = gcp_re_top(ps);

    gcp_re_flush_atom(f);

    f->have_atom = 1;
    f->atom.start = ps->out.len;
    f->atom.size = size;
    f->atom.prod = prod;
    f->atom.height = height;
}


/* Ends the current alternative ('|' or ')' or the end). */
static void
gcp_re_end_alt(gcp_re_frame_t *f)
{
    int  h;

    gcp_re_flush_atom(f);

    h = f->seq_height + (f->seq_items > 1 ? 1 : 0);
    f->alt_size += gcp_max(f->seq_size, 1);
    f->alt_prod = gcp_max(f->alt_prod, f->seq_prod);
    f->alt_height = gcp_max(f->alt_height, h);
    f->alts++;

    f->seq_size = 0;
    f->seq_prod = 1;
    f->seq_height = 0;
    f->seq_items = 0;
}


static int
gcp_re_push(gcp_re_parser_t *ps, unsigned capture)
{
    gcp_re_frame_t  *f;

    if (ps->depth == ps->cap) {
        ps->cap = ps->cap ? ps->cap * 2 : 16;
        f = gcp_alloc(ps->arena, ps->cap * sizeof(gcp_re_frame_t));
        if (f == NULL) {
            return -1;
        }

        if (ps->depth) {
            memcpy(f, ps->stack, ps->depth * sizeof(gcp_re_frame_t));
        }

        ps->stack = f;
    }

    f = &ps->stack[ps->depth++];
    memset(f, 0, sizeof(gcp_re_frame_t));

    f->out_start = ps->out.len;
    f->flags = ps->flags;
    f->capture = capture;
    f->seq_prod = 1;
    f->alt_prod = 1;

    return 0;
}


/* Finishes the top frame; returns its size, product and height. */
static void
gcp_re_pop(gcp_re_parser_t *ps, gcp_re_atom_t *a)
{
    gcp_re_frame_t  *f = gcp_re_top(ps);

    gcp_re_end_alt(f);

    a->start = f->out_start;
    a->size = f->alt_size + (f->alts > 1 ? f->alts - 1 : 0);
    a->prod = f->alt_prod;
    a->height = f->alt_height + (f->alts > 1 ? 1 : 0);

    if (f->capture) {
        a->size += 2;
        a->height++;
    }

    ps->flags = f->flags;
    ps->depth--;
}


static void
gcp_re_check_limits(gcp_re_parser_t *ps, const gcp_re_atom_t *a)
{
    if (a->height > GCP_RE_MAX_HEIGHT) {
        gcp_re_fail(ps, "expression nests too deeply", ps->whole,
                    ps->whole_len);

    } else if (a->size > GCP_RE_MAX_SIZE) {
        gcp_re_fail(ps, "expression too large", ps->whole, ps->whole_len);
    }
}


/*
 * repeat(): applies op (*, +, ?, or {min,max} when op is '{') to the
 * current atom.  before is the text from the operator on, after past it.
 * Returns 0 and the new position, or -1.
 */
static int
gcp_re_repeat(gcp_re_parser_t *ps, int op, int min, int max,
    const char *before, const char **after)
{
    int64_t          m, size;
    gcp_re_frame_t  *f;
    gcp_re_atom_t   *a;

    if (*after < ps->end && **after == '?') {
        (*after)++;                     /* non-greedy: same matches */
    }

    if (ps->last_repeat) {
        gcp_re_fail(ps, "invalid nested repetition operator",
                    ps->last_repeat, *after - ps->last_repeat);
        return -1;
    }

    f = gcp_re_top(ps);

    if (!f->have_atom) {
        gcp_re_fail(ps, "missing argument to repetition operator", before,
                    *after - before);
        return -1;
    }

    a = &f->atom;

    /* wrap the atom, so that PCRE2 repeats exactly it */

    if (gcp_buf_reserve(&ps->out, 4) != GCP_OK) {
        return -1;
    }

    memmove(ps->out.data + a->start + 3, ps->out.data + a->start,
            ps->out.len - a->start);
    memcpy(ps->out.data + a->start, "(?:", 3);
    ps->out.len += 3;
    gcp_buf_addc(&ps->out, ')');

    switch (op) {

    case '*':
        gcp_buf_addc(&ps->out, '*');
        a->size += 2;
        break;

    case '+':
        gcp_buf_addc(&ps->out, '+');
        a->size += 1;
        break;

    case '?':
        gcp_buf_addc(&ps->out, '?');
        a->size += 1;
        break;

    default:
        if (max == -1) {
            gcp_buf_printf(&ps->out, "{%d,}", min);
            size = min == 0 ? 2 + a->size : 1 + (int64_t) min * a->size;

        } else if (max == min) {
            gcp_buf_printf(&ps->out, "{%d}", min);
            size = (int64_t) max * a->size;

        } else {
            gcp_buf_printf(&ps->out, "{%d,%d}", min, max);
            size = (int64_t) max * a->size + (max - min);
        }

        m = max == -1 ? min : max;

        a->size = gcp_max(size, 1);
        a->prod = m == 0 ? 1 : m * a->prod;

        if ((min >= 2 || max >= 2) && a->prod > GCP_RE_MAX_REPEAT) {
            gcp_re_fail(ps, "invalid repeat count", before, *after - before);
            return -1;
        }
    }

    a->height++;
    gcp_re_check_limits(ps, a);

    ps->last_repeat = before;

    return ps->err ? -1 : 0;
}


/* parseInt(): digits without a leading zero; -1 when 1e8 or more */
static int
gcp_re_int(const char **p, const char *end, int *v)
{
    const char  *s = *p;

    if (s >= end || *s < '0' || *s > '9') {
        return 0;
    }

    if (end - s >= 2 && s[0] == '0' && s[1] >= '0' && s[1] <= '9') {
        return 0;
    }

    *v = 0;

    while (s < end && *s >= '0' && *s <= '9') {
        if (*v >= 0) {
            *v = *v >= 100000000 ? -1 : *v * 10 + (*s - '0');
        }

        s++;
    }

    if (*v >= 100000000) {
        *v = -1;
    }

    *p = s;
    return 1;
}


/* parseRepeat(): {min}, {min,}, {min,max}; 0 when not of that form */
static int
gcp_re_parse_repeat(const char *s, const char *end, int *min, int *max,
    const char **rest)
{
    s++;

    if (!gcp_re_int(&s, end, min) || s >= end) {
        return 0;
    }

    if (*s != ',') {
        *max = *min;

    } else {
        s++;

        if (s >= end) {
            return 0;
        }

        if (*s == '}') {
            *max = -1;

        } else if (!gcp_re_int(&s, end, max)) {
            return 0;

        } else if (*max < 0) {
            *min = -1;
        }
    }

    if (s >= end || *s != '}') {
        return 0;
    }

    *rest = s + 1;
    return 1;
}


/* parsePerlFlags(): "(?" at p */
static int
gcp_re_perl_flags(gcp_re_parser_t *ps, const char **pp)
{
    int          sign, saw;
    size_t       n, skip;
    uint32_t     c;
    unsigned     flags;
    const char  *s, *t, *close, *name;

    s = *pp;
    t = s;

    skip = 0;

    if (ps->end - t > 4 && t[2] == 'P' && t[3] == '<') {
        skip = 4;

    } else if (ps->end - t > 3 && t[2] == '<') {
        skip = 3;
    }

    if (skip) {
        close = memchr(t, '>', ps->end - t);

        if (close == NULL) {
            gcp_re_fail(ps, "invalid named capture", s, ps->end - s);
            return -1;
        }

        name = t + skip;

        if (name == close) {
            gcp_re_fail(ps, "invalid named capture", s, close + 1 - s);
            return -1;
        }

        for (t = name; t < close; t++) {
            if (*t != '_' && !gcp_re_isalnum((unsigned char) *t)) {
                gcp_re_fail(ps, "invalid named capture", s, close + 1 - s);
                return -1;
            }
        }

        gcp_re_flush_atom(gcp_re_top(ps));

        if (gcp_re_push(ps, 1) != 0) {
            return -1;
        }

        gcp_buf_addstr(&ps->out, "(?:");
        *pp = close + 1;
        return 0;
    }

    t = s + 2;
    flags = ps->flags;
    sign = 1;
    saw = 0;

    while (t < ps->end) {
        if (gcp_re_next(ps, t, &c, &n) != 0) {
            return -1;
        }

        t += n;

        switch (c) {

        case 'i':
            flags = sign > 0 ? flags | GCP_RE_FOLD : flags & ~GCP_RE_FOLD;
            saw = 1;
            continue;

        case 'm':
            flags = sign > 0 ? flags | GCP_RE_MULTILINE
                             : flags & ~GCP_RE_MULTILINE;
            saw = 1;
            continue;

        case 's':
            flags = sign > 0 ? flags | GCP_RE_DOTNL : flags & ~GCP_RE_DOTNL;
            saw = 1;
            continue;

        case 'U':
            flags = sign > 0 ? flags | GCP_RE_UNGREEDY
                             : flags & ~GCP_RE_UNGREEDY;
            saw = 1;
            continue;

        case '-':
            if (sign < 0) {
                break;
            }

            sign = -1;
            saw = 0;
            continue;

        case ':':
        case ')':
            if (sign < 0 && !saw) {
                break;
            }

            if (c == ':') {
                gcp_re_flush_atom(gcp_re_top(ps));

                if (gcp_re_push(ps, 0) != 0) {
                    return -1;
                }

                gcp_buf_addstr(&ps->out, "(?:");
            }

            ps->flags = flags;
            *pp = t;
            return 0;
        }

        break;
    }

    gcp_re_fail(ps, "invalid or unsupported Perl syntax", s, t - s);
    return -1;
}


static void
gcp_re_literal(gcp_re_parser_t *ps, uint32_t r)
{
    gcp_re_atom(ps, 1, 1, 1);

    if (r >= 0xd800 && r <= 0xdfff) {
        gcp_buf_addstr(&ps->out, "[^\\x{0}-\\x{10ffff}]");
        return;
    }

    if (ps->flags & GCP_RE_FOLD) {
        gcp_buf_addstr(&ps->out, "(?i:");
    }

    if (r < 0x80 && gcp_re_isalnum(r)) {
        gcp_buf_addc(&ps->out, (char) r);

    } else {
        gcp_buf_printf(&ps->out, "\\x{%x}", (unsigned) r);
    }

    if (ps->flags & GCP_RE_FOLD) {
        gcp_buf_addc(&ps->out, ')');
    }
}


/* the body of the parse loop for one token at ps->p */
static int
gcp_re_token(gcp_re_parser_t *ps)
{
    int              rc, min, max, repeat;
    size_t           n;
    uint32_t         c;
    const char      *t, *before, *after, *q, *e;
    gcp_re_atom_t    a;
    gcp_re_frame_t  *f;

    t = ps->p;
    repeat = 0;
    before = t;

    switch (*t) {

    case '(':
        if (ps->end - t >= 2 && t[1] == '?') {
            if (gcp_re_perl_flags(ps, &t) != 0) {
                return -1;
            }

            break;
        }

        gcp_re_flush_atom(gcp_re_top(ps));

        if (gcp_re_push(ps, 1) != 0) {
            return -1;
        }

        gcp_buf_addstr(&ps->out, "(?:");
        t++;
        break;

    case '|':
        gcp_re_end_alt(gcp_re_top(ps));
        gcp_buf_addc(&ps->out, '|');
        t++;
        break;

    case ')':
        if (ps->depth < 2) {
            gcp_re_fail(ps, "unexpected )", ps->whole, ps->whole_len);
            return -1;
        }

        gcp_re_pop(ps, &a);
        gcp_buf_addc(&ps->out, ')');

        f = gcp_re_top(ps);
        gcp_re_flush_atom(f);
        f->have_atom = 1;
        f->atom = a;

        gcp_re_check_limits(ps, &a);
        if (ps->err) {
            return -1;
        }

        t++;
        break;

    case '^':
        gcp_re_atom(ps, 1, 1, 1);
        gcp_buf_addstr(&ps->out, (ps->flags & GCP_RE_MULTILINE)
                                 ? "(?m:^)" : "\\A");
        t++;
        break;

    case '$':
        gcp_re_atom(ps, 1, 1, 1);
        gcp_buf_addstr(&ps->out, (ps->flags & GCP_RE_MULTILINE)
                                 ? "(?m:$)" : "\\z");
        t++;
        break;

    case '.':
        gcp_re_atom(ps, 1, 1, 1);
        gcp_buf_addstr(&ps->out, (ps->flags & GCP_RE_DOTNL)
                                 ? "(?s:.)" : "(?-s:.)");
        t++;
        break;

    case '[':
        gcp_re_atom(ps, 1, 1, 1);

        if (gcp_re_class(ps, t, &ps->out, &t) != 0) {
            return -1;
        }

        break;

    case '*':
    case '+':
    case '?':
        after = t + 1;

        if (gcp_re_repeat(ps, *t, 0, 0, before, &after) != 0) {
            return -1;
        }

        repeat = 1;
        t = after;
        break;

    case '{':
        if (!gcp_re_parse_repeat(t, ps->end, &min, &max, &after)) {
            gcp_re_literal(ps, '{');
            t++;
            break;
        }

        if (min < 0 || min > GCP_RE_MAX_REPEAT || max > GCP_RE_MAX_REPEAT
            || (max >= 0 && min > max))
        {
            gcp_re_fail(ps, "invalid repeat count", before, after - before);
            return -1;
        }

        if (gcp_re_repeat(ps, '{', min, max, before, &after) != 0) {
            return -1;
        }

        repeat = 1;
        t = after;
        break;

    case '\\':
        if (ps->end - t >= 2) {
            switch (t[1]) {

            case 'A':
            case 'z':
            case 'b':
            case 'B':
                gcp_re_atom(ps, 1, 1, 1);
                gcp_buf_add(&ps->out, t, 2);
                t += 2;
                goto done;

            case 'C':
                gcp_re_fail(ps, "invalid escape sequence", t, 2);
                return -1;

            case 'Q':
                /* \Q ... \E: literals up to the first \E or the end */
                q = t + 2;
                e = ps->end;
                t = ps->end;

                for (n = 0; q + n + 1 < ps->end; n++) {
                    if (q[n] == '\\' && q[n + 1] == 'E') {
                        e = q + n;
                        t = e + 2;
                        break;
                    }
                }

                while (q < e) {
                    if (gcp_re_next(ps, q, &c, &n) != 0) {
                        return -1;
                    }

                    gcp_re_literal(ps, c);
                    q += n;
                }

                goto done;
            }
        }

        gcp_re_atom(ps, 1, 1, 1);

        if (ps->flags & GCP_RE_FOLD) {
            gcp_buf_addstr(&ps->out, "(?i:");
        }

        rc = gcp_re_unicode_class(ps, t, &ps->out, &t);
        if (rc < 0) {
            return -1;
        }

        if (rc == 0) {
            if (ps->end - t >= 2 && t[1] != '\0' && strchr("dDwWsS", t[1])) {
                gcp_buf_addc(&ps->out, '[');

                switch (t[1]) {
                case 'D':
                    gcp_buf_addstr(&ps->out, "^0-9");
                    break;
                case 'W':
                    gcp_buf_addstr(&ps->out, "^0-9A-Za-z_");
                    break;
                case 'S':
                    gcp_buf_addstr(&ps->out, "^" GCP_RE_SPACE_SET);
                    break;
                default:
                    gcp_re_perl_class(t, ps->end, &ps->out);
                }

                gcp_buf_addc(&ps->out, ']');
                t += 2;
                rc = 1;
            }
        }

        if (ps->flags & GCP_RE_FOLD) {
            gcp_buf_addc(&ps->out, ')');
        }

        if (rc == 0) {
            /* an ordinary escape: replace the atom just begun */
            ps->out.len = gcp_re_top(ps)->atom.start;
            gcp_re_top(ps)->have_atom = 0;

            if (gcp_re_escape(ps, t, &c, &t) != 0) {
                return -1;
            }

            gcp_re_literal(ps, c);
        }

        break;

    default:
        if (gcp_re_next(ps, t, &c, &n) != 0) {
            return -1;
        }

        gcp_re_literal(ps, c);
        t += n;
    }

done:

    ps->last_repeat = repeat ? ps->last_repeat : NULL;
    ps->p = t;

    return gcp_buf_failed(&ps->out) ? -1 : 0;
}


int
gcp_crd_regex_translate(gcp_arena_t *a, const char *pattern, size_t len,
    gcp_str_t *out, const char **err)
{
    gcp_re_atom_t    root;
    gcp_re_parser_t  ps;

    memset(&ps, 0, sizeof(ps));
    ps.arena = a;
    ps.whole = pattern;
    ps.whole_len = len;
    ps.p = pattern;
    ps.end = pattern + len;

    gcp_buf_init(&ps.out, a);

    *err = NULL;

    if (gcp_re_push(&ps, 0) != 0) {
        return GCP_ENOMEM;
    }

    while (ps.p < ps.end) {
        if (gcp_re_token(&ps) != 0) {
            break;
        }
    }

    if (ps.err == NULL && !gcp_buf_failed(&ps.out)) {
        if (ps.depth != 1) {
            gcp_re_fail(&ps, "missing closing )", pattern, len);

        } else {
            gcp_re_pop(&ps, &root);
            gcp_re_check_limits(&ps, &root);
        }
    }

    if (ps.err) {
        *err = ps.err;
        return strcmp(ps.err, "out of memory") == 0 ? GCP_ENOMEM
                                                    : GCP_EINVALID;
    }

    if (gcp_buf_failed(&ps.out)) {
        return GCP_ENOMEM;
    }

    *out = gcp_buf_dup(&ps.out);

    return out->data ? GCP_OK : GCP_ENOMEM;
}


const char *
gcp_crd_regex_check(gcp_arena_t *a, const char *pattern, size_t len)
{
    int          rc;
    gcp_str_t    out;
    const char  *err;

    rc = gcp_crd_regex_translate(a, pattern, len, &out, &err);

    if (rc == GCP_OK) {
        return NULL;
    }

    return err ? err : "out of memory";
}
