
/*
 * The YAML emitter: a port of the parts of go-yaml v2's emitterc.go that
 * JSONToYAML exercises (character classes, output primitives, indents,
 * the analysis of a scalar, its styles and their writers); see
 * gcp_yaml_int.h.
 */

#include <stdlib.h>

#include "gcp_yaml_int.h"


#define GCP_YAML_BEST_INDENT  2
#define GCP_YAML_BEST_WIDTH   80


/* character classes of go-yaml (yamlprivateh.go) */


static size_t
gcp_yaml_width(unsigned char c)
{
    if ((c & 0x80) == 0x00) {
        return 1;
    }

    if ((c & 0xe0) == 0xc0) {
        return 2;
    }

    if ((c & 0xf0) == 0xe0) {
        return 3;
    }

    if ((c & 0xf8) == 0xf0) {
        return 4;
    }

    return 1;                           /* not reached: input is UTF-8 */
}


static unsigned char
gcp_yaml_at(const gcp_yscalar_t *s, size_t i)
{
    return i < s->len ? (unsigned char) s->value[i] : 0;
}


static int
gcp_yaml_is_space(const gcp_yscalar_t *s, size_t i)
{
    return gcp_yaml_at(s, i) == ' ';
}


static int
gcp_yaml_is_blank(const gcp_yscalar_t *s, size_t i)
{
    unsigned char  c = gcp_yaml_at(s, i);

    return c == ' ' || c == '\t';
}


static int
gcp_yaml_is_break(const gcp_yscalar_t *s, size_t i)
{
    unsigned char  c = gcp_yaml_at(s, i);

    return c == '\r' || c == '\n'
           || (c == 0xc2 && gcp_yaml_at(s, i + 1) == 0x85)
           || (c == 0xe2 && gcp_yaml_at(s, i + 1) == 0x80
               && (gcp_yaml_at(s, i + 2) == 0xa8
                   || gcp_yaml_at(s, i + 2) == 0xa9));
}


static int
gcp_yaml_is_blankz(const gcp_yscalar_t *s, size_t i)
{
    return gcp_yaml_is_blank(s, i) || gcp_yaml_is_break(s, i)
           || gcp_yaml_at(s, i) == 0;
}


static int
gcp_yaml_is_printable(const gcp_yscalar_t *s, size_t i)
{
    unsigned char  c, c1, c2;

    c = gcp_yaml_at(s, i);
    c1 = gcp_yaml_at(s, i + 1);
    c2 = gcp_yaml_at(s, i + 2);

    return c == 0x0a
           || (c >= 0x20 && c <= 0x7e)
           || (c == 0xc2 && c1 >= 0xa0)
           || (c > 0xc2 && c < 0xed)
           || (c == 0xed && c1 < 0xa0)
           || c == 0xee
           || (c == 0xef
               && !(c1 == 0xbb && c2 == 0xbf)
               && !(c1 == 0xbf && (c2 == 0xbe || c2 == 0xbf)));
}


/* output primitives (emitterc.go) */


static void
gcp_yaml_put(gcp_yemit_t *e, char c)
{
    gcp_buf_addc(e->b, c);
    e->column++;
}


static void
gcp_yaml_put_break(gcp_yemit_t *e)
{
    gcp_buf_addc(e->b, '\n');
    e->column = 0;
}


static void
gcp_yaml_write(gcp_yemit_t *e, const gcp_yscalar_t *s, size_t *i)
{
    size_t  w;

    w = gcp_min(gcp_yaml_width((unsigned char) s->value[*i]), s->len - *i);

    gcp_buf_add(e->b, s->value + *i, w);
    e->column++;
    *i += w;
}


static void
gcp_yaml_write_break(gcp_yemit_t *e, const gcp_yscalar_t *s, size_t *i)
{
    if (s->value[*i] == '\n') {
        gcp_yaml_put_break(e);
        (*i)++;

    } else {
        gcp_yaml_write(e, s, i);
        e->column = 0;
    }
}


void
gcp_yaml_write_indent(gcp_yemit_t *e)
{
    int  indent;

    indent = e->indent < 0 ? 0 : e->indent;

    if (!e->indention || e->column > indent
        || (e->column == indent && !e->whitespace))
    {
        gcp_yaml_put_break(e);
    }

    while (e->column < indent) {
        gcp_yaml_put(e, ' ');
    }

    e->whitespace = 1;
    e->indention = 1;
}


void
gcp_yaml_write_indicator(gcp_yemit_t *e, const char *ind, int need_ws,
    int is_ws, int is_indention)
{
    if (need_ws && !e->whitespace) {
        gcp_yaml_put(e, ' ');
    }

    while (*ind) {
        gcp_yaml_put(e, *ind++);
    }

    e->whitespace = is_ws;
    e->indention = e->indention && is_indention;
}


void
gcp_yaml_increase_indent(gcp_yemit_t *e, int flow, int indentless)
{
    int  *p;

    if (e->nindents == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 32;
        p = realloc(e->indents, e->cap * sizeof(int));
        if (p == NULL) {
            e->failed = 1;
            e->cap = e->nindents;
            return;
        }

        e->indents = p;
    }

    e->indents[e->nindents++] = e->indent;

    if (e->indent < 0) {
        e->indent = flow ? GCP_YAML_BEST_INDENT : 0;

    } else if (!indentless) {
        e->indent += GCP_YAML_BEST_INDENT;
    }
}


void
gcp_yaml_pop_indent(gcp_yemit_t *e)
{
    if (e->nindents) {
        e->indent = e->indents[--e->nindents];
    }
}


/* scalars */


void
gcp_yaml_analyze(gcp_yemit_t *e, const char *value, size_t len)
{
    size_t          i, w;
    unsigned        block_ind, flow_ind, line_breaks, special;
    unsigned        leading_space, leading_break, trailing_space;
    unsigned        trailing_break, break_space, space_break;
    unsigned        preceded_ws, followed_ws, prev_space, prev_break;
    unsigned char   c;
    gcp_yscalar_t  *s;

    s = &e->scalar;
    s->value = value;
    s->len = len;

    if (len == 0) {
        s->multiline = 0;
        s->flow_plain_allowed = 0;
        s->block_plain_allowed = 1;
        s->single_quoted_allowed = 1;
        s->block_allowed = 0;
        return;
    }

    block_ind = flow_ind = line_breaks = special = 0;
    leading_space = leading_break = trailing_space = trailing_break = 0;
    break_space = space_break = prev_space = prev_break = 0;

    if (len >= 3 && ((value[0] == '-' && value[1] == '-' && value[2] == '-')
                     || (value[0] == '.' && value[1] == '.'
                         && value[2] == '.')))
    {
        block_ind = 1;
        flow_ind = 1;
    }

    preceded_ws = 1;

    for (i = 0; i < len; i += w) {
        c = (unsigned char) value[i];
        w = gcp_yaml_width(c);
        followed_ws = (i + w >= len) || gcp_yaml_is_blank(s, i + w);

        if (i == 0) {
            switch (c) {
            case '#': case ',': case '[': case ']': case '{': case '}':
            case '&': case '*': case '!': case '|': case '>': case '\'':
            case '"': case '%': case '@': case '`':
                flow_ind = 1;
                block_ind = 1;
                break;

            case '?': case ':':
                flow_ind = 1;
                if (followed_ws) {
                    block_ind = 1;
                }
                break;

            case '-':
                if (followed_ws) {
                    flow_ind = 1;
                    block_ind = 1;
                }
                break;
            }

        } else {
            switch (c) {
            case ',': case '?': case '[': case ']': case '{': case '}':
                flow_ind = 1;
                break;

            case ':':
                flow_ind = 1;
                if (followed_ws) {
                    block_ind = 1;
                }
                break;

            case '#':
                if (preceded_ws) {
                    flow_ind = 1;
                    block_ind = 1;
                }
                break;
            }
        }

        if (!gcp_yaml_is_printable(s, i)) {
            special = 1;
        }

        if (gcp_yaml_is_space(s, i)) {
            if (i == 0) {
                leading_space = 1;
            }

            if (i + w == len) {
                trailing_space = 1;
            }

            if (prev_break) {
                break_space = 1;
            }

            prev_space = 1;
            prev_break = 0;

        } else if (gcp_yaml_is_break(s, i)) {
            line_breaks = 1;

            if (i == 0) {
                leading_break = 1;
            }

            if (i + w == len) {
                trailing_break = 1;
            }

            if (prev_space) {
                space_break = 1;
            }

            prev_space = 0;
            prev_break = 1;

        } else {
            prev_space = 0;
            prev_break = 0;
        }

        preceded_ws = gcp_yaml_is_blankz(s, i);
    }

    s->multiline = line_breaks;
    s->flow_plain_allowed = 1;
    s->block_plain_allowed = 1;
    s->single_quoted_allowed = 1;
    s->block_allowed = 1;

    if (leading_space || leading_break || trailing_space || trailing_break) {
        s->flow_plain_allowed = 0;
        s->block_plain_allowed = 0;
    }

    if (trailing_space) {
        s->block_allowed = 0;
    }

    if (break_space) {
        s->flow_plain_allowed = 0;
        s->block_plain_allowed = 0;
        s->single_quoted_allowed = 0;
    }

    if (space_break || special) {
        s->flow_plain_allowed = 0;
        s->block_plain_allowed = 0;
        s->single_quoted_allowed = 0;
        s->block_allowed = 0;
    }

    if (line_breaks) {
        s->flow_plain_allowed = 0;
        s->block_plain_allowed = 0;
    }

    if (flow_ind) {
        s->flow_plain_allowed = 0;
    }

    if (block_ind) {
        s->block_plain_allowed = 0;
    }
}


/* yaml_emitter_select_scalar_style() for block context (no flow here) */
static int
gcp_yaml_select_style(gcp_yemit_t *e, int style)
{
    gcp_yscalar_t  *s = &e->scalar;

    if (e->simple_key_context && s->multiline) {
        style = GCP_YAML_DOUBLE_QUOTED;
    }

    if (style == GCP_YAML_PLAIN) {
        if (!s->block_plain_allowed) {
            style = GCP_YAML_SINGLE_QUOTED;
        }

        if (s->len == 0 && e->simple_key_context) {
            style = GCP_YAML_SINGLE_QUOTED;
        }
    }

    if (style == GCP_YAML_SINGLE_QUOTED && !s->single_quoted_allowed) {
        style = GCP_YAML_DOUBLE_QUOTED;
    }

    if (style == GCP_YAML_LITERAL
        && (!s->block_allowed || e->simple_key_context))
    {
        style = GCP_YAML_DOUBLE_QUOTED;
    }

    return style;
}


static void
gcp_yaml_write_plain(gcp_yemit_t *e, int allow_breaks)
{
    size_t          i;
    unsigned        spaces, breaks;
    gcp_yscalar_t  *s = &e->scalar;

    if (!e->whitespace) {
        gcp_yaml_put(e, ' ');
    }

    spaces = 0;
    breaks = 0;

    for (i = 0; i < s->len; /* void */ ) {

        if (gcp_yaml_is_space(s, i)) {
            if (allow_breaks && !spaces && e->column > GCP_YAML_BEST_WIDTH
                && !gcp_yaml_is_space(s, i + 1))
            {
                gcp_yaml_write_indent(e);
                i++;

            } else {
                gcp_yaml_write(e, s, &i);
            }

            spaces = 1;

        } else if (gcp_yaml_is_break(s, i)) {
            if (!breaks && s->value[i] == '\n') {
                gcp_yaml_put_break(e);
            }

            gcp_yaml_write_break(e, s, &i);
            e->indention = 1;
            breaks = 1;

        } else {
            if (breaks) {
                gcp_yaml_write_indent(e);
            }

            gcp_yaml_write(e, s, &i);
            e->indention = 0;
            spaces = 0;
            breaks = 0;
        }
    }

    e->whitespace = 0;
    e->indention = 0;
}


static void
gcp_yaml_write_single(gcp_yemit_t *e, int allow_breaks)
{
    size_t          i;
    unsigned        spaces, breaks;
    gcp_yscalar_t  *s = &e->scalar;

    gcp_yaml_write_indicator(e, "'", 1, 0, 0);

    spaces = 0;
    breaks = 0;

    for (i = 0; i < s->len; /* void */ ) {

        if (gcp_yaml_is_space(s, i)) {
            if (allow_breaks && !spaces && e->column > GCP_YAML_BEST_WIDTH
                && i > 0 && i < s->len - 1 && !gcp_yaml_is_space(s, i + 1))
            {
                gcp_yaml_write_indent(e);
                i++;

            } else {
                gcp_yaml_write(e, s, &i);
            }

            spaces = 1;

        } else if (gcp_yaml_is_break(s, i)) {
            if (!breaks && s->value[i] == '\n') {
                gcp_yaml_put_break(e);
            }

            gcp_yaml_write_break(e, s, &i);
            e->indention = 1;
            breaks = 1;

        } else {
            if (breaks) {
                gcp_yaml_write_indent(e);
            }

            if (s->value[i] == '\'') {
                gcp_yaml_put(e, '\'');
            }

            gcp_yaml_write(e, s, &i);
            e->indention = 0;
            spaces = 0;
            breaks = 0;
        }
    }

    gcp_yaml_write_indicator(e, "'", 0, 0, 0);

    e->whitespace = 0;
    e->indention = 0;
}


static void
gcp_yaml_write_escape(gcp_yemit_t *e, uint32_t v)
{
    int   k, digits;
    char  esc;

    static const char  hex[] = "0123456789ABCDEF";

    gcp_yaml_put(e, '\\');

    switch (v) {
    case 0x00:   esc = '0'; break;
    case 0x07:   esc = 'a'; break;
    case 0x08:   esc = 'b'; break;
    case 0x09:   esc = 't'; break;
    case 0x0a:   esc = 'n'; break;
    case 0x0b:   esc = 'v'; break;
    case 0x0c:   esc = 'f'; break;
    case 0x0d:   esc = 'r'; break;
    case 0x1b:   esc = 'e'; break;
    case 0x22:   esc = '"'; break;
    case 0x5c:   esc = '\\'; break;
    case 0x85:   esc = 'N'; break;
    case 0xa0:   esc = '_'; break;
    case 0x2028: esc = 'L'; break;
    case 0x2029: esc = 'P'; break;
    default:     esc = 0;
    }

    if (esc) {
        gcp_yaml_put(e, esc);
        return;
    }

    if (v <= 0xff) {
        gcp_yaml_put(e, 'x');
        digits = 2;

    } else if (v <= 0xffff) {
        gcp_yaml_put(e, 'u');
        digits = 4;

    } else {
        gcp_yaml_put(e, 'U');
        digits = 8;
    }

    for (k = (digits - 1) * 4; k >= 0; k -= 4) {
        gcp_yaml_put(e, hex[(v >> k) & 0x0f]);
    }
}


static void
gcp_yaml_write_double(gcp_yemit_t *e, int allow_breaks)
{
    size_t          i, w;
    uint32_t        v;
    unsigned        spaces;
    unsigned char   c;
    gcp_yscalar_t  *s = &e->scalar;

    spaces = 0;

    gcp_yaml_write_indicator(e, "\"", 1, 0, 0);

    for (i = 0; i < s->len; /* void */ ) {
        c = (unsigned char) s->value[i];

        if (!gcp_yaml_is_printable(s, i)
            || (c == 0xef && gcp_yaml_at(s, i + 1) == 0xbb
                && gcp_yaml_at(s, i + 2) == 0xbf)
            || gcp_yaml_is_break(s, i) || c == '"' || c == '\\')
        {
            w = gcp_utf8_decode((const unsigned char *) s->value + i,
                                s->len - i, &v);
            i += w;

            gcp_yaml_write_escape(e, v);
            spaces = 0;

        } else if (gcp_yaml_is_space(s, i)) {
            if (allow_breaks && !spaces && e->column > GCP_YAML_BEST_WIDTH
                && i > 0 && i < s->len - 1)
            {
                gcp_yaml_write_indent(e);

                if (gcp_yaml_is_space(s, i + 1)) {
                    gcp_yaml_put(e, '\\');
                }

                i++;

            } else {
                gcp_yaml_write(e, s, &i);
            }

            spaces = 1;

        } else {
            gcp_yaml_write(e, s, &i);
            spaces = 0;
        }
    }

    gcp_yaml_write_indicator(e, "\"", 0, 0, 0);

    e->whitespace = 0;
    e->indention = 0;
}


static size_t
gcp_yaml_prev_char(const gcp_yscalar_t *s, size_t i)
{
    while (i > 0 && ((unsigned char) s->value[i] & 0xc0) == 0x80) {
        i--;
    }

    return i;
}


static void
gcp_yaml_write_literal(gcp_yemit_t *e)
{
    size_t          i;
    unsigned        breaks;
    char            chomp;
    gcp_yscalar_t  *s = &e->scalar;

    gcp_yaml_write_indicator(e, "|", 1, 0, 0);

    /* yaml_emitter_write_block_scalar_hints() */

    if (gcp_yaml_is_space(s, 0) || gcp_yaml_is_break(s, 0)) {
        gcp_yaml_write_indicator(e, "2", 0, 0, 0);
    }

    chomp = 0;

    if (s->len == 0) {
        chomp = '-';

    } else {
        i = gcp_yaml_prev_char(s, s->len - 1);

        if (!gcp_yaml_is_break(s, i)) {
            chomp = '-';

        } else if (i == 0) {
            chomp = '+';

        } else {
            i = gcp_yaml_prev_char(s, i - 1);

            if (gcp_yaml_is_break(s, i)) {
                chomp = '+';
            }
        }
    }

    if (chomp) {
        gcp_yaml_write_indicator(e, chomp == '-' ? "-" : "+", 0, 0, 0);
    }

    gcp_yaml_put_break(e);

    e->indention = 1;
    e->whitespace = 1;
    breaks = 1;

    for (i = 0; i < s->len; /* void */ ) {

        if (gcp_yaml_is_break(s, i)) {
            gcp_yaml_write_break(e, s, &i);
            e->indention = 1;
            breaks = 1;

        } else {
            if (breaks) {
                gcp_yaml_write_indent(e);
            }

            gcp_yaml_write(e, s, &i);
            e->indention = 0;
            breaks = 0;
        }
    }
}


/* Emits an analysed scalar with the style the encoder asked for. */
void
gcp_yaml_emit_scalar(gcp_yemit_t *e, int style)
{
    int  allow_breaks;

    style = gcp_yaml_select_style(e, style);
    allow_breaks = !e->simple_key_context;

    gcp_yaml_increase_indent(e, 1, 0);

    switch (style) {
    case GCP_YAML_PLAIN:
        gcp_yaml_write_plain(e, allow_breaks);
        break;

    case GCP_YAML_SINGLE_QUOTED:
        gcp_yaml_write_single(e, allow_breaks);
        break;

    case GCP_YAML_DOUBLE_QUOTED:
        gcp_yaml_write_double(e, allow_breaks);
        break;

    default:
        gcp_yaml_write_literal(e);
    }

    gcp_yaml_pop_indent(e);
}
