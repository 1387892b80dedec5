
/*
 * The label selector syntax, ported from k8s.io/apimachinery pkg/labels
 * (Lexer, Parser), with upstream's error messages (see gcp_selector.h
 * and gcp_selector_int.h).
 */

#include <string.h>

#include "gcp_selector_int.h"
#include "gcp_ferr.h"


/* ------------------------------------------------------------------ */
/* the label selector lexer (labels.Lexer)                             */

typedef enum {
    GCP_TOK_ERROR = 0,
    GCP_TOK_EOS,
    GCP_TOK_CLOSE_PAR,
    GCP_TOK_COMMA,
    GCP_TOK_NOT,
    GCP_TOK_DOUBLE_EQUALS,
    GCP_TOK_EQUALS,
    GCP_TOK_GT,
    GCP_TOK_ID,
    GCP_TOK_IN,
    GCP_TOK_LT,
    GCP_TOK_NOT_EQUALS,
    GCP_TOK_NOT_IN,
    GCP_TOK_OPEN_PAR
} gcp_sel_tok_t;


typedef struct {
    gcp_sel_tok_t   tok;
    const char     *lit;
} gcp_sel_item_t;


typedef struct {
    const char  *s;
    size_t       len;
    size_t       pos;
} gcp_sel_lexer_t;


#define gcp_sel_space(c)                                                      \
    ((c) == ' ' || (c) == '\t' || (c) == '\r' || (c) == '\n')

#define gcp_sel_special(c)                                                    \
    ((c) == '=' || (c) == '!' || (c) == '(' || (c) == ')' || (c) == ','       \
     || (c) == '>' || (c) == '<')


/* Like upstream, a NUL byte reads as the end of the string. */
static unsigned char
gcp_sel_read(gcp_sel_lexer_t *l)
{
    if (l->pos < l->len) {
        return (unsigned char) l->s[l->pos++];
    }

    return 0;
}


/* The token spelled by s[0, n), or GCP_TOK_ERROR. */
static gcp_sel_tok_t
gcp_sel_keyword(const char *s, size_t n)
{
    static const struct {
        const char     *text;
        gcp_sel_tok_t   tok;
    } words[] = {
        { ")", GCP_TOK_CLOSE_PAR },
        { ",", GCP_TOK_COMMA },
        { "!", GCP_TOK_NOT },
        { "==", GCP_TOK_DOUBLE_EQUALS },
        { "=", GCP_TOK_EQUALS },
        { ">", GCP_TOK_GT },
        { "in", GCP_TOK_IN },
        { "<", GCP_TOK_LT },
        { "!=", GCP_TOK_NOT_EQUALS },
        { "notin", GCP_TOK_NOT_IN },
        { "(", GCP_TOK_OPEN_PAR },
    };

    size_t  i;

    for (i = 0; i < gcp_nelems(words); i++) {
        if (strlen(words[i].text) == n && memcmp(words[i].text, s, n) == 0) {
            return words[i].tok;
        }
    }

    return GCP_TOK_ERROR;
}


static int
gcp_sel_lex(gcp_arena_t *a, gcp_sel_lexer_t *l, gcp_sel_item_t *it)
{
    size_t         start, end;
    unsigned char  ch;
    gcp_sel_tok_t  tok, last;

    do {
        ch = gcp_sel_read(l);
    } while (gcp_sel_space(ch));

    if (ch == 0) {
        it->tok = GCP_TOK_EOS;
        it->lit = "";
        return GCP_OK;
    }

    start = l->pos - 1;
    end = start;

    if (gcp_sel_special(ch)) {

        /* scanSpecialSymbol: the longest operator */

        l->pos--;
        last = GCP_TOK_ERROR;

        for ( ;; ) {
            ch = gcp_sel_read(l);

            if (ch == 0) {
                break;
            }

            if (!gcp_sel_special(ch)) {
                l->pos--;
                break;
            }

            tok = gcp_sel_keyword(l->s + start, l->pos - start);

            if (tok != GCP_TOK_ERROR) {
                last = tok;
                end = l->pos;

            } else if (last != GCP_TOK_ERROR) {
                l->pos--;
                break;
            }
        }

        if (last == GCP_TOK_ERROR) {
            it->tok = GCP_TOK_ERROR;
            it->lit = gcp_sprintf(a, "error expected: keyword found '%.*s'",
                                  (int) (l->pos - start), l->s + start);
            return it->lit ? GCP_OK : GCP_ENOMEM;
        }

        it->tok = last;
        it->lit = gcp_strndup(a, l->s + start, end - start);
        return it->lit ? GCP_OK : GCP_ENOMEM;
    }

    /* scanIDOrKeyword */

    for ( ;; ) {
        if (ch == 0) {
            break;
        }

        if (gcp_sel_special(ch) || gcp_sel_space(ch)) {
            l->pos--;
            break;
        }

        end = l->pos;
        ch = gcp_sel_read(l);
    }

    it->lit = gcp_strndup(a, l->s + start, end - start);
    if (it->lit == NULL) {
        return GCP_ENOMEM;
    }

    tok = gcp_sel_keyword(it->lit, end - start);
    it->tok = (tok == GCP_TOK_IN || tok == GCP_TOK_NOT_IN) ? tok : GCP_TOK_ID;

    return GCP_OK;
}


/* ------------------------------------------------------------------ */
/* the label selector parser (labels.Parser)                           */

typedef struct {
    gcp_arena_t     *arena;
    gcp_sel_item_t  *items;
    size_t           n;
    size_t           pos;
    const char      *err;       /* the error of the failed step */
    int              rc;        /* GCP_EBADREQUEST or GCP_ENOMEM */
} gcp_sel_parser_t;


/*
 * A set of strings (sets.String): appended to, then sorted and made
 * unique at once (a look-up per value made long lists quadratic).
 */
typedef struct {
    const char  **v;
    size_t        n;
    size_t        cap;
} gcp_sel_set_t;


/* lookahead / consume; in the Values context "in"/"notin" are IDs. */
static gcp_sel_item_t
gcp_sel_peek(gcp_sel_parser_t *p, int values, int consume)
{
    gcp_sel_item_t  it;

    it = p->items[p->pos < p->n ? p->pos : p->n - 1];

    if (consume && p->pos < p->n) {
        p->pos++;
    }

    if (values && (it.tok == GCP_TOK_IN || it.tok == GCP_TOK_NOT_IN)) {
        it.tok = GCP_TOK_ID;
    }

    return it;
}

#define gcp_sel_lookahead(p, values)  gcp_sel_peek(p, values, 0)
#define gcp_sel_consume(p, values)    gcp_sel_peek(p, values, 1)


/* Records a failure; returns GCP_EBADREQUEST, or GCP_ENOMEM. */
static int
gcp_sel_fail(gcp_sel_parser_t *p, const char *err)
{
    p->err = err;
    p->rc = err ? GCP_EBADREQUEST : GCP_ENOMEM;

    return p->rc;
}


static int
gcp_sel_set_add(gcp_sel_parser_t *p, gcp_sel_set_t *set, const char *s)
{
    set->v = gcp_sel_grow(p->arena, set->v, set->n, &set->cap,
                          sizeof(const char *));
    if (set->v == NULL) {
        return gcp_sel_fail(p, NULL);
    }

    set->v[set->n++] = s;

    return GCP_OK;
}


static int
gcp_sel_parse_key(gcp_sel_parser_t *p, const char **key, int *op)
{
    int             n;
    const char     *text;
    gcp_sel_item_t  it;

    *op = -1;
    it = gcp_sel_consume(p, 1);

    if (it.tok == GCP_TOK_NOT) {
        *op = GCP_SEL_DOES_NOT_EXIST;
        it = gcp_sel_consume(p, 1);
    }

    if (it.tok != GCP_TOK_ID) {
        return gcp_sel_fail(p, gcp_sprintf(p->arena,
                                           "found '%s', expected: identifier",
                                           it.lit));
    }

    text = gcp_sel_errors_text(p->arena, gcp_sel_key_errors, it.lit,
                               strlen(it.lit), &n);
    if (n) {
        return gcp_sel_fail(p, text
                 ? gcp_sprintf(p->arena, "<nil>: Invalid value: %s: %s",
                               gcp_ferr_quote(p->arena, it.lit), text)
                 : NULL);
    }

    *key = it.lit;

    it = gcp_sel_lookahead(p, 1);

    if ((it.tok == GCP_TOK_EOS || it.tok == GCP_TOK_COMMA)
        && *op != GCP_SEL_DOES_NOT_EXIST)
    {
        *op = GCP_SEL_EXISTS;
    }

    return GCP_OK;
}


static int
gcp_sel_parse_operator(gcp_sel_parser_t *p, gcp_sel_op_t *op)
{
    gcp_sel_item_t  it;

    it = gcp_sel_consume(p, 0);

    switch (it.tok) {
    case GCP_TOK_IN:            *op = GCP_SEL_IN; break;
    case GCP_TOK_EQUALS:        *op = GCP_SEL_EQUALS; break;
    case GCP_TOK_DOUBLE_EQUALS: *op = GCP_SEL_DOUBLE_EQUALS; break;
    case GCP_TOK_GT:            *op = GCP_SEL_GT; break;
    case GCP_TOK_LT:            *op = GCP_SEL_LT; break;
    case GCP_TOK_NOT_IN:        *op = GCP_SEL_NOT_IN; break;
    case GCP_TOK_NOT_EQUALS:    *op = GCP_SEL_NOT_EQUALS; break;
    default:
        return gcp_sel_fail(p, gcp_sprintf(p->arena,
                   "found '%s', expected: in, notin, =, ==, !=, gt, lt",
                   it.lit));
    }

    return GCP_OK;
}


/* parseIdentifiersList: a (possibly empty) list of identifiers. */
static int
gcp_sel_parse_idlist(gcp_sel_parser_t *p, gcp_sel_set_t *set)
{
    gcp_sel_item_t  it, next;

    for ( ;; ) {
        it = gcp_sel_consume(p, 1);

        switch (it.tok) {

        case GCP_TOK_ID:
            if (gcp_sel_set_add(p, set, it.lit) != GCP_OK) {
                return p->rc;
            }

            next = gcp_sel_lookahead(p, 1);

            if (next.tok == GCP_TOK_COMMA) {
                continue;
            }

            if (next.tok == GCP_TOK_CLOSE_PAR) {
                return GCP_OK;
            }

            return gcp_sel_fail(p, gcp_sprintf(p->arena,
                                    "found '%s', expected: ',' or ')'",
                                    next.lit));

        case GCP_TOK_COMMA:
            if (set->n == 0 && gcp_sel_set_add(p, set, "") != GCP_OK) {
                return p->rc;
            }

            next = gcp_sel_lookahead(p, 1);

            if (next.tok == GCP_TOK_CLOSE_PAR) {
                return gcp_sel_set_add(p, set, "");
            }

            if (next.tok == GCP_TOK_COMMA) {
                (void) gcp_sel_consume(p, 1);

                if (gcp_sel_set_add(p, set, "") != GCP_OK) {
                    return p->rc;
                }
            }

            continue;

        default:
            return gcp_sel_fail(p, gcp_sprintf(p->arena,
                                    "found '%s', expected: ',', or identifier",
                                    it.lit));
        }
    }
}


/* parseValues: "(" values ")" */
static int
gcp_sel_parse_values(gcp_sel_parser_t *p, gcp_sel_set_t *set)
{
    gcp_sel_item_t  it;

    it = gcp_sel_consume(p, 1);

    if (it.tok != GCP_TOK_OPEN_PAR) {
        return gcp_sel_fail(p, gcp_sprintf(p->arena,
                                           "found '%s' expected: '('",
                                           it.lit));
    }

    it = gcp_sel_lookahead(p, 1);

    switch (it.tok) {

    case GCP_TOK_ID:
    case GCP_TOK_COMMA:
        if (gcp_sel_parse_idlist(p, set) != GCP_OK) {
            return p->rc;
        }

        if (gcp_sel_consume(p, 1).tok != GCP_TOK_CLOSE_PAR) {
            return gcp_sel_fail(p, gcp_sprintf(p->arena,
                                               "found '%s', expected: ')'",
                                               it.lit));
        }

        return GCP_OK;

    case GCP_TOK_CLOSE_PAR:
        (void) gcp_sel_consume(p, 1);
        return gcp_sel_set_add(p, set, "");

    default:
        return gcp_sel_fail(p, gcp_sprintf(p->arena,
                                "found '%s', expected: ',', ')' or identifier",
                                it.lit));
    }
}


/* parseExactValue: one value, possibly empty. */
static int
gcp_sel_parse_exact(gcp_sel_parser_t *p, gcp_sel_set_t *set)
{
    gcp_sel_item_t  it;

    it = gcp_sel_lookahead(p, 1);

    if (it.tok == GCP_TOK_EOS || it.tok == GCP_TOK_COMMA) {
        return gcp_sel_set_add(p, set, "");
    }

    it = gcp_sel_consume(p, 1);

    if (it.tok == GCP_TOK_ID) {
        return gcp_sel_set_add(p, set, it.lit);
    }

    return gcp_sel_fail(p, gcp_sprintf(p->arena,
                                       "found '%s', expected: identifier",
                                       it.lit));
}


static int
gcp_sel_parse_req(gcp_sel_parser_t *p, gcp_label_req_t *r)
{
    int            rc, op;
    const char    *key, *msg;
    gcp_sel_op_t   sop;
    gcp_sel_set_t  set;

    if (gcp_sel_parse_key(p, &key, &op) != GCP_OK) {
        return p->rc;
    }

    memset(&set, 0, sizeof(gcp_sel_set_t));

    if (op == GCP_SEL_EXISTS || op == GCP_SEL_DOES_NOT_EXIST) {
        sop = (gcp_sel_op_t) op;

    } else {
        if (gcp_sel_parse_operator(p, &sop) != GCP_OK) {
            return p->rc;
        }

        rc = (sop == GCP_SEL_IN || sop == GCP_SEL_NOT_IN)
             ? gcp_sel_parse_values(p, &set) : gcp_sel_parse_exact(p, &set);

        if (rc != GCP_OK) {
            return p->rc;
        }

        gcp_sel_sort_strings(set.v, set.n);     /* values.List() */
        set.n = gcp_sel_unique_strings(set.v, set.n);
    }

    msg = NULL;
    rc = gcp_sel_new_req(p->arena, key, strlen(key), sop, set.v, NULL, set.n,
                         r, &msg);

    if (rc == GCP_EBADREQUEST) {
        return gcp_sel_fail(p, msg);
    }

    if (rc != GCP_OK) {
        return gcp_sel_fail(p, NULL);
    }

    return GCP_OK;
}


/* labels.Parser.parse: the requirements, in input order. */
static int
gcp_sel_parse_all(gcp_sel_parser_t *p, gcp_label_selector_t *sel)
{
    size_t           cap;
    gcp_sel_item_t   it;
    gcp_label_req_t  r;

    cap = 0;

    for ( ;; ) {
        it = gcp_sel_lookahead(p, 1);

        switch (it.tok) {

        case GCP_TOK_ID:
        case GCP_TOK_NOT:
            if (gcp_sel_parse_req(p, &r) != GCP_OK) {
                if (p->rc == GCP_EBADREQUEST) {
                    p->err = gcp_sprintf(p->arena,
                                         "unable to parse requirement: %s",
                                         p->err);
                    p->rc = p->err ? GCP_EBADREQUEST : GCP_ENOMEM;
                }
                return p->rc;
            }

            sel->reqs = gcp_sel_grow(p->arena, sel->reqs, sel->n, &cap,
                                     sizeof(gcp_label_req_t));
            if (sel->reqs == NULL) {
                return gcp_sel_fail(p, NULL);
            }

            sel->reqs[sel->n++] = r;

            it = gcp_sel_consume(p, 1);

            if (it.tok == GCP_TOK_EOS) {
                return GCP_OK;
            }

            if (it.tok != GCP_TOK_COMMA) {
                return gcp_sel_fail(p, gcp_sprintf(p->arena,
                           "found '%s', expected: ',' or 'end of string'",
                           it.lit));
            }

            it = gcp_sel_lookahead(p, 1);

            if (it.tok != GCP_TOK_ID && it.tok != GCP_TOK_NOT) {
                return gcp_sel_fail(p, gcp_sprintf(p->arena,
                           "found '%s', expected: identifier after ','",
                           it.lit));
            }

            break;

        case GCP_TOK_EOS:
            return GCP_OK;

        default:
            return gcp_sel_fail(p, gcp_sprintf(p->arena,
                       "found '%s', expected: !, identifier, or 'end of "
                       "string'", it.lit));
        }
    }
}


int
gcp_label_selector_parse(gcp_arena_t *a, const char *s, size_t len,
    gcp_label_selector_t **out, const char **msg)
{
    size_t                 cap;
    gcp_sel_lexer_t        lex;
    gcp_sel_parser_t       p;
    gcp_label_selector_t  *sel;

    *out = NULL;
    *msg = NULL;

    sel = gcp_calloc(a, sizeof(gcp_label_selector_t));
    if (sel == NULL) {
        return GCP_ENOMEM;
    }

    memset(&p, 0, sizeof(gcp_sel_parser_t));
    p.arena = a;

    /* scan: every token up to and including the end of string */

    lex.s = s;
    lex.len = len;
    lex.pos = 0;
    cap = 0;

    for ( ;; ) {
        p.items = gcp_sel_grow(a, p.items, p.n, &cap, sizeof(gcp_sel_item_t));
        if (p.items == NULL) {
            return GCP_ENOMEM;
        }

        if (gcp_sel_lex(a, &lex, &p.items[p.n]) != GCP_OK) {
            return GCP_ENOMEM;
        }

        if (p.items[p.n++].tok == GCP_TOK_EOS) {
            break;
        }
    }

    if (gcp_sel_parse_all(&p, sel) != GCP_OK) {
        *msg = p.err;
        return p.rc;
    }

    gcp_sel_sort_reqs(sel->reqs, sel->n);

    *out = sel;

    return GCP_OK;
}
