
/*
 * YAML output (see gcp_yaml.h): a port of the parts of go-yaml v2's
 * encoder (encode.go, resolve.go, sorter.go) and emitter (emitterc.go)
 * that JSONToYAML exercises.  The tree is walked with an explicit stack.
 */

#include <math.h>
#include <stdlib.h>

#include "gcp_json.h"
#include "gcp_yaml.h"


#define GCP_YAML_BEST_INDENT  2
#define GCP_YAML_BEST_WIDTH   80
#define GCP_YAML_MAX_SIMPLE   128

#define gcp_yaml_isdigit(c)   ((c) >= '0' && (c) <= '9')


enum {
    GCP_YAML_PLAIN = 1,
    GCP_YAML_SINGLE_QUOTED,
    GCP_YAML_DOUBLE_QUOTED,
    GCP_YAML_LITERAL
};


typedef struct {
    const char    *value;
    size_t         len;
    unsigned       multiline:1;
    unsigned       flow_plain_allowed:1;
    unsigned       block_plain_allowed:1;
    unsigned       single_quoted_allowed:1;
    unsigned       block_allowed:1;
} gcp_yscalar_t;


typedef struct {
    const json_t  *node;
    const char   **keys;        /* mappings: sorted keys */
    size_t        *klens;
    size_t         n;
    size_t         i;
} gcp_yframe_t;


typedef struct {
    gcp_buf_t     *b;
    gcp_arena_t   *arena;

    int            column;
    int            indent;
    int           *indents;
    size_t         nindents;
    size_t         cap;

    gcp_yframe_t  *frames;
    size_t         depth;
    size_t         fcap;

    unsigned       whitespace:1;
    unsigned       indention:1;
    unsigned       root_context:1;
    unsigned       mapping_context:1;
    unsigned       simple_key_context:1;
    unsigned       failed:1;

    gcp_yscalar_t  scalar;
} gcp_yemit_t;


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


static void
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


static void
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


static void
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


static void
gcp_yaml_pop_indent(gcp_yemit_t *e)
{
    if (e->nindents) {
        e->indent = e->indents[--e->nindents];
    }
}


/* scalars */


static void
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
static void
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


/* what a plain scalar reads back as (resolve.go) */


typedef enum {
    GCP_GO_NUM_OK = 0,
    GCP_GO_NUM_SYNTAX,
    GCP_GO_NUM_RANGE
} gcp_go_num_rc_t;


/* strconv.ParseUint(s, base, 64); base 0 selects by prefix */
static gcp_go_num_rc_t
gcp_yaml_parse_uint(const char *s, size_t n, int base, uint64_t *out)
{
    int       d;
    size_t    i;
    uint64_t  v;
    unsigned  range;

    if (n == 0) {
        return GCP_GO_NUM_SYNTAX;
    }

    if (base == 0) {
        base = 10;

        if (s[0] == '0') {
            base = 8;
            s++;
            n--;

            if (n >= 2) {
                switch (s[0]) {
                case 'b': case 'B': base = 2; s++; n--; break;
                case 'o': case 'O': base = 8; s++; n--; break;
                case 'x': case 'X': base = 16; s++; n--; break;
                }
            }
        }
    }

    v = 0;
    range = 0;

    for (i = 0; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            d = s[i] - '0';

        } else if (s[i] >= 'a' && s[i] <= 'z') {
            d = s[i] - 'a' + 10;

        } else if (s[i] >= 'A' && s[i] <= 'Z') {
            d = s[i] - 'A' + 10;

        } else {
            return GCP_GO_NUM_SYNTAX;
        }

        if (d >= base) {
            return GCP_GO_NUM_SYNTAX;
        }

        if (v > (UINT64_MAX - (uint64_t) d) / (uint64_t) base) {
            range = 1;

        } else {
            v = v * (uint64_t) base + (uint64_t) d;
        }
    }

    *out = v;

    return range ? GCP_GO_NUM_RANGE : GCP_GO_NUM_OK;
}


/* strconv.ParseInt(s, base, 64) */
static gcp_go_num_rc_t
gcp_yaml_parse_int(const char *s, size_t n, int base)
{
    int               neg;
    uint64_t          v;
    gcp_go_num_rc_t   rc;

    neg = 0;

    if (n && (s[0] == '+' || s[0] == '-')) {
        neg = (s[0] == '-');
        s++;
        n--;
    }

    rc = gcp_yaml_parse_uint(s, n, base, &v);
    if (rc != GCP_GO_NUM_OK) {
        return rc;
    }

    if (v > (uint64_t) INT64_MAX + (neg ? 1 : 0)) {
        return GCP_GO_NUM_RANGE;
    }

    return GCP_GO_NUM_OK;
}


/* the regular expression yamlStyleFloat of resolve.go */
static int
gcp_yaml_style_float(const char *s, size_t n)
{
    size_t  i, d;

    i = 0;

    if (i < n && (s[i] == '+' || s[i] == '-')) {
        i++;
    }

    if (i < n && s[i] == '.') {
        i++;

        for (d = 0; i < n && gcp_yaml_isdigit(s[i]); i++, d++) {
            /* void */
        }

        if (d == 0) {
            return 0;
        }

    } else {
        for (d = 0; i < n && gcp_yaml_isdigit(s[i]); i++, d++) {
            /* void */
        }

        if (d == 0) {
            return 0;
        }

        if (i < n && s[i] == '.') {
            for (i++; i < n && gcp_yaml_isdigit(s[i]); i++) {
                /* void */
            }
        }
    }

    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;

        if (i < n && (s[i] == '+' || s[i] == '-')) {
            i++;
        }

        for (d = 0; i < n && gcp_yaml_isdigit(s[i]); i++, d++) {
            /* void */
        }

        if (d == 0) {
            return 0;
        }
    }

    return i == n;
}


/* strconv.ParseFloat() succeeds on a string yamlStyleFloat accepts */
static int
gcp_yaml_float_ok(const char *s, size_t n)
{
    char    tmp[128];
    double  d;

    if (n >= sizeof(tmp)) {
        /* long digit strings: finite unless the exponent says otherwise */
        return 1;
    }

    memcpy(tmp, s, n);
    tmp[n] = '\0';

    d = strtod(tmp, NULL);

    return !isinf(d);
}


/* isBase60Float() of encode.go */
static int
gcp_yaml_base60(const char *s, size_t n)
{
    size_t  i, d;

    if (n == 0 || !(s[0] == '+' || s[0] == '-' || gcp_yaml_isdigit(s[0]))
        || memchr(s, ':', n) == NULL)
    {
        return 0;
    }

    /* ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$ */

    i = (s[0] == '+' || s[0] == '-') ? 1 : 0;

    if (i >= n || !gcp_yaml_isdigit(s[i])) {
        return 0;
    }

    for (i++; i < n && (gcp_yaml_isdigit(s[i]) || s[i] == '_'); i++) {
        /* void */
    }

    d = 0;

    while (i < n && s[i] == ':') {
        i++;

        if (i + 1 < n && s[i] >= '0' && s[i] <= '5'
            && gcp_yaml_isdigit(s[i + 1]))
        {
            i += 2;

        } else if (i < n && gcp_yaml_isdigit(s[i])) {
            i++;

        } else {
            return 0;
        }

        d++;
    }

    if (d == 0) {
        return 0;
    }

    if (i < n && s[i] == '.') {
        for (i++; i < n && (gcp_yaml_isdigit(s[i]) || s[i] == '_');
             i++)
        {
            /* void */
        }
    }

    return i == n;
}


/* getnum(): one or two digits */
static int
gcp_yaml_getnum(const char *s, size_t n, size_t *i, int *v)
{
    if (*i >= n || !gcp_yaml_isdigit(s[*i])) {
        return 0;
    }

    *v = s[(*i)++] - '0';

    if (*i < n && gcp_yaml_isdigit(s[*i])) {
        *v = *v * 10 + (s[(*i)++] - '0');
    }

    return 1;
}


/*
 * parseTimestamp() of resolve.go: time.Parse with the layouts
 * "2006-1-2T15:4:5.999999999Z07:00" (also with 't'),
 * "2006-1-2 15:4:5.999999999" and "2006-1-2".
 */
static int
gcp_yaml_timestamp(const char *s, size_t n)
{
    int      year, month, day, hour, min, sec, hh, mm, mdays;
    char     sep;
    size_t   i;

    static const int  days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
                                 30, 31 };

    for (i = 0; i < 4; i++) {
        if (i >= n || !gcp_yaml_isdigit(s[i])) {
            return 0;
        }
    }

    if (i == n || s[i] != '-') {
        return 0;
    }

    year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10
           + (s[3] - '0');
    i++;

    if (!gcp_yaml_getnum(s, n, &i, &month) || month < 1 || month > 12) {
        return 0;
    }

    if (i >= n || s[i++] != '-' || !gcp_yaml_getnum(s, n, &i, &day)) {
        return 0;
    }

    mdays = days[month - 1];

    if (month == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) {
        mdays = 29;
    }

    if (day < 1 || day > mdays) {
        return 0;
    }

    if (i == n) {
        return 1;                       /* "2006-1-2" */
    }

    sep = s[i++];

    if (sep != 'T' && sep != 't' && sep != ' ') {
        return 0;
    }

    if (!gcp_yaml_getnum(s, n, &i, &hour) || hour > 23
        || i >= n || s[i++] != ':'
        || !gcp_yaml_getnum(s, n, &i, &min) || min > 59
        || i >= n || s[i++] != ':'
        || !gcp_yaml_getnum(s, n, &i, &sec) || sec > 59)
    {
        return 0;
    }

    if (i + 1 < n && (s[i] == '.' || s[i] == ',')
        && gcp_yaml_isdigit(s[i + 1]))
    {
        for (i++; i < n && gcp_yaml_isdigit(s[i]); i++) {
            /* void */
        }
    }

    if (sep == ' ') {
        return i == n;
    }

    if (i < n && s[i] == 'Z') {
        return i + 1 == n;
    }

    if (n - i != 6 || (s[i] != '+' && s[i] != '-') || s[i + 3] != ':') {
        return 0;
    }

    i++;

    if (!gcp_yaml_isdigit(s[i]) || !gcp_yaml_isdigit(s[i + 1])
        || !gcp_yaml_isdigit(s[i + 3])
        || !gcp_yaml_isdigit(s[i + 4]))
    {
        return 0;
    }

    hh = (s[i] - '0') * 10 + (s[i + 1] - '0');
    mm = (s[i + 3] - '0') * 10 + (s[i + 4] - '0');

    return hh <= 24 && mm <= 60;
}


/*
 * Returns 1 if the plain scalar s reads back as a string: resolve() gives
 * !!str and it is not a base 60 float (encode.go, stringv()).
 */
static int
gcp_yaml_plain_is_str(const char *s, size_t n)
{
    char              c, *plain;
    size_t            i, k;
    uint64_t          v;
    gcp_go_num_rc_t   urc;

    static const char  *special[] = {
        "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On",
        "ON", "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off",
        "Off", "OFF", "", "~", "null", "Null", "NULL", ".nan", ".NaN",
        ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF", NULL
    };

    c = n ? s[0] : 'N';

    if (!(c == '+' || c == '-' || c == '.' || gcp_yaml_isdigit(c)
          || strchr("yYnNtTfFoO~", c) != NULL))
    {
        return !gcp_yaml_base60(s, n);
    }

    for (i = 0; special[i]; i++) {
        if (strlen(special[i]) == n && memcmp(special[i], s, n) == 0) {
            return 0;
        }
    }

    if (c == '.') {
        /* ParseFloat(): "." followed by digits, optional exponent */
        return !(gcp_yaml_style_float(s, n) && gcp_yaml_float_ok(s, n));
    }

    if (c != '+' && c != '-' && !gcp_yaml_isdigit(c)) {
        return 1;                       /* keywords were checked above */
    }

    if (gcp_yaml_timestamp(s, n)) {
        return 0;
    }

    plain = malloc(n + 1);
    if (plain == NULL) {
        return 0;                       /* quoting is always safe */
    }

    for (i = 0, k = 0; i < n; i++) {
        if (s[i] != '_') {
            plain[k++] = s[i];
        }
    }

    if (gcp_yaml_parse_int(plain, k, 0) == GCP_GO_NUM_OK) {
        goto not_str;
    }

    urc = gcp_yaml_parse_uint(plain, k, 0, &v);

    if (urc == GCP_GO_NUM_OK) {
        goto not_str;
    }

    if (gcp_yaml_style_float(plain, k) && gcp_yaml_float_ok(plain, k)) {
        goto not_str;
    }

    if (k > 2 && plain[0] == '0' && plain[1] == 'b') {
        if (gcp_yaml_parse_int(plain + 2, k - 2, 2) == GCP_GO_NUM_OK
            || gcp_yaml_parse_uint(plain + 2, k - 2, 2, &v) == GCP_GO_NUM_OK)
        {
            goto not_str;
        }

    } else if (k > 3 && plain[0] == '-' && plain[1] == '0' && plain[2] == 'b'
               && gcp_yaml_parse_uint(plain + 3, k - 3, 2, &v)
                  == GCP_GO_NUM_OK
               && v <= (uint64_t) INT64_MAX + 1)
    {
        goto not_str;
    }

    if (urc == GCP_GO_NUM_RANGE) {
        goto not_str;                   /* a big.Int */
    }

    free(plain);

    return !gcp_yaml_base60(s, n);

not_str:

    free(plain);

    return 0;
}


/* key order (sorter.go) */


/* unicode.IsLetter(), exact for Latin-1 (see gcp_yaml.h) */
static int
gcp_yaml_is_letter(uint32_t r)
{
    if (r < 0x80) {
        return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z');
    }

    if (r < 0x100) {
        return r == 0xaa || r == 0xb5 || r == 0xba
               || (r >= 0xc0 && r != 0xd7 && r != 0xf7);
    }

    return !((r >= 0x2b9 && r <= 0x36f)     /* modifiers, combining */
             || (r >= 0x2000 && r <= 0x2bff) /* punctuation, symbols */
             || (r >= 0x3000 && r <= 0x303f)
             || (r >= 0xd800 && r <= 0xf8ff)
             || (r >= 0xfe00 && r <= 0xfe6f)
             || (r >= 0xff00 && r <= 0xff20)
             || (r >= 0xff3b && r <= 0xff40)
             || (r >= 0xff5b && r <= 0xff65)
             || (r >= 0xfff0 && r <= 0xffff)
             || (r >= 0x1f000 && r <= 0x1faff));
}


typedef struct {
    const char  *s;
    size_t       len;
    uint32_t    *runes;
    size_t       nrunes;
} gcp_ykey_t;


/* Decodes s into runes. */
static size_t
gcp_yaml_runes(const char *s, size_t len, uint32_t *out)
{
    size_t  i, n;

    for (i = 0, n = 0; i < len; n++) {
        i += gcp_utf8_decode((const unsigned char *) s + i, len - i, &out[n]);
    }

    return n;
}


/* keyList.Less() for two strings */
static int
gcp_yaml_key_less(const uint32_t *ar, size_t an_, const uint32_t *br,
    size_t bn_)
{
    int       al, bl;
    size_t    i, ai, bi, j;
    uint64_t  an, bn;

    for (i = 0; i < an_ && i < bn_; i++) {
        if (ar[i] == br[i]) {
            continue;
        }

        al = gcp_yaml_is_letter(ar[i]);
        bl = gcp_yaml_is_letter(br[i]);

        if (al && bl) {
            return ar[i] < br[i];
        }

        if (al || bl) {
            return bl;
        }

        an = 0;
        bn = 0;

        if (ar[i] == '0' || br[i] == '0') {
            for (j = i; j > 0 && gcp_yaml_isdigit(ar[j - 1]); j--) {
                if (ar[j - 1] != '0') {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }

        for (ai = i; ai < an_ && gcp_yaml_isdigit(ar[ai]); ai++) {
            an = an * 10 + (ar[ai] - '0');
        }

        for (bi = i; bi < bn_ && gcp_yaml_isdigit(br[bi]); bi++) {
            bn = bn * 10 + (br[bi] - '0');
        }

        if (an != bn) {
            /* Go compares int64 values (wrapping on overflow) */
            return (int64_t) an < (int64_t) bn;
        }

        if (ai != bi) {
            return ai < bi;
        }

        return ar[i] < br[i];
    }

    return an_ < bn_;
}


static int
gcp_yaml_key_cmp(const void *pa, const void *pb)
{
    const gcp_ykey_t  *a = pa, *b = pb;

    if (gcp_yaml_key_less(a->runes, a->nrunes, b->runes, b->nrunes)) {
        return -1;
    }

    if (gcp_yaml_key_less(b->runes, b->nrunes, a->runes, a->nrunes)) {
        return 1;
    }

    return 0;
}


/* values */


/*
 * Returns the string YAML reads back from Go's JSON for s: invalid UTF-8
 * bytes become U+FFFD (json.Marshal), and a raw U+0085 (NEL, which Go
 * leaves unescaped) is a line break inside a double-quoted scalar, so a
 * run of spaces and NELs folds to one space, or to n - 1 newlines for n
 * NELs.
 */
static const char *
gcp_yaml_text(gcp_yemit_t *e, const char *s, size_t *len)
{
    size_t     i, j, n, nels;
    uint32_t   r;
    unsigned   nel;
    gcp_buf_t  b;

    nel = 0;

    for (i = 0; i < *len; i += n) {
        n = gcp_utf8_decode((const unsigned char *) s + i, *len - i, &r);

        if (r == 0xfffd && n == 1) {
            break;
        }

        if (r == 0x85) {
            nel = 1;
        }
    }

    if (i == *len && !nel) {
        return s;
    }

    gcp_buf_init(&b, e->arena);

    for (i = 0; i < *len; i += n) {
        n = gcp_utf8_decode((const unsigned char *) s + i, *len - i, &r);

        if (r != ' ' && r != 0x85) {
            gcp_utf8_add(&b, r);
            continue;
        }

        /* a run of blanks and line breaks */

        nels = 0;

        for (j = i; j < *len; j += n) {
            n = gcp_utf8_decode((const unsigned char *) s + j, *len - j, &r);

            if (r == 0x85) {
                nels++;

            } else if (r != ' ') {
                break;
            }
        }

        if (nels == 0) {
            gcp_buf_add(&b, s + i, j - i);

        } else if (nels == 1) {
            gcp_buf_addc(&b, ' ');

        } else {
            while (--nels) {
                gcp_buf_addc(&b, '\n');
            }
        }

        i = j;
        n = 0;
    }

    if (gcp_buf_failed(&b)) {
        e->failed = 1;
        *len = 0;
        return "";
    }

    *len = b.len;

    return gcp_buf_cstr(&b);
}


/*
 * Writes the text of a number as YAML reads Go's JSON for it back:
 * integers stay integers, other values are float64 in 'g' format.
 */
static size_t
gcp_yaml_number(const json_t *v, char *buf)
{
    int       neg;
    char     *p;
    size_t    n;
    uint64_t  u;
    double    d;

    if (json_is_integer(v)) {
        return (size_t) sprintf(buf, "%" JSON_INTEGER_FORMAT,
                                json_integer_value(v));
    }

    d = json_real_value(v);
    n = gcp_json_format_float(d, 'j', buf);

    if (strpbrk(buf, ".e") != NULL) {
        return gcp_json_format_float(d, 'g', buf);
    }

    /* an integral JSON number: int64, else uint64, else float64 */

    neg = (buf[0] == '-');

    if (gcp_yaml_parse_int(buf, n, 10) == GCP_GO_NUM_OK) {
        if (neg) {
            for (p = buf + 1; *p == '0' && p[1] != '\0'; p++) {
                /* void */
            }

            if (*p == '0') {
                buf[0] = '0';           /* "-0" reads back as 0 */
                buf[1] = '\0';
                return 1;
            }
        }

        return n;
    }

    if (!neg && gcp_yaml_parse_uint(buf, n, 10, &u) == GCP_GO_NUM_OK) {
        return n;
    }

    return gcp_json_format_float(d, 'g', buf);
}


static void
gcp_yaml_emit_value_scalar(gcp_yemit_t *e, const json_t *v)
{
    int          style;
    size_t       len;
    char         num[40];
    const char  *s;

    switch (json_typeof(v)) {

    case JSON_STRING:
        len = json_string_length(v);
        s = gcp_yaml_text(e, json_string_value(v), &len);

        if (memchr(s, '\n', len) != NULL) {
            style = GCP_YAML_LITERAL;

        } else if (gcp_yaml_plain_is_str(s, len)) {
            style = GCP_YAML_PLAIN;

        } else {
            style = GCP_YAML_DOUBLE_QUOTED;
        }

        break;

    case JSON_INTEGER:
    case JSON_REAL:
        len = gcp_yaml_number(v, num);
        s = num;
        style = GCP_YAML_PLAIN;
        break;

    case JSON_TRUE:
        s = "true";
        len = 4;
        style = GCP_YAML_PLAIN;
        break;

    case JSON_FALSE:
        s = "false";
        len = 5;
        style = GCP_YAML_PLAIN;
        break;

    default:
        s = "null";
        len = 4;
        style = GCP_YAML_PLAIN;
    }

    gcp_yaml_analyze(e, s, len);
    gcp_yaml_emit_scalar(e, style);
}


/* Starts a node: scalars are written, non-empty collections pushed. */
static void
gcp_yaml_emit_node(gcp_yemit_t *e, const json_t *v, int root, int mapping,
    int simple_key)
{
    size_t         i, n;
    void          *it;
    gcp_ykey_t    *keys;
    gcp_yframe_t  *f;

    e->root_context = root;
    e->mapping_context = mapping;
    e->simple_key_context = simple_key;

    if (!json_is_object(v) && !json_is_array(v)) {
        gcp_yaml_emit_value_scalar(e, v);
        return;
    }

    n = json_is_object(v) ? json_object_size(v) : json_array_size(v);

    if (n == 0) {
        /* flow style: "{}" or "[]" */
        gcp_yaml_write_indicator(e, json_is_object(v) ? "{" : "[", 1, 1, 0);
        gcp_yaml_write_indicator(e, json_is_object(v) ? "}" : "]", 0, 0, 0);
        return;
    }

    if (e->depth == e->fcap) {
        e->fcap = e->fcap ? e->fcap * 2 : 16;
        f = realloc(e->frames, e->fcap * sizeof(gcp_yframe_t));
        if (f == NULL) {
            e->failed = 1;
            e->fcap = e->depth;
            return;
        }

        e->frames = f;
    }

    f = &e->frames[e->depth];
    f->node = v;
    f->n = n;
    f->i = 0;
    f->keys = NULL;

    if (json_is_array(v)) {
        gcp_yaml_increase_indent(e, 0, e->mapping_context && !e->indention);
        e->depth++;
        return;
    }

    keys = gcp_alloc(e->arena, n * sizeof(gcp_ykey_t));
    if (keys == NULL) {
        e->failed = 1;
        return;
    }

    i = 0;

    for (it = json_object_iter((json_t *) v); it;
         it = json_object_iter_next((json_t *) v, it))
    {
        keys[i].len = json_object_iter_key_len(it);
        keys[i].s = gcp_yaml_text(e, json_object_iter_key(it), &keys[i].len);
        keys[i].runes = gcp_alloc(e->arena,
                                  (keys[i].len + 1) * sizeof(uint32_t));
        if (keys[i].runes == NULL) {
            e->failed = 1;
            return;
        }

        keys[i].nrunes = gcp_yaml_runes(keys[i].s, keys[i].len,
                                        keys[i].runes);
        i++;
    }

    qsort(keys, n, sizeof(gcp_ykey_t), gcp_yaml_key_cmp);

    f->keys = (const char **) keys;
    gcp_yaml_increase_indent(e, 0, 0);
    e->depth++;
}


/* Returns the value of the member whose (UTF-8 coerced) key is k. */
static const json_t *
gcp_yaml_member(gcp_yemit_t *e, const json_t *obj, const gcp_ykey_t *k)
{
    size_t        len;
    void         *it;
    const char   *s;
    json_t       *v;

    v = json_object_getn(obj, k->s, k->len);
    if (v != NULL) {
        return v;
    }

    /* the key was not valid UTF-8: find it again */

    for (it = json_object_iter((json_t *) obj); it;
         it = json_object_iter_next((json_t *) obj, it))
    {
        len = json_object_iter_key_len(it);
        s = gcp_yaml_text(e, json_object_iter_key(it), &len);

        if (len == k->len && memcmp(s, k->s, len) == 0) {
            return json_object_iter_value(it);
        }
    }

    return json_null();
}


void
gcp_yaml_dump_buf(gcp_buf_t *b, const json_t *v)
{
    gcp_ykey_t    *k;
    gcp_yemit_t    e;
    gcp_yframe_t  *f;
    const json_t  *value;

    memset(&e, 0, sizeof(gcp_yemit_t));
    e.b = b;
    e.arena = b->arena;
    e.indent = -1;
    e.whitespace = 1;
    e.indention = 1;

    gcp_yaml_emit_node(&e, v, 1, 0, 0);

    while (e.depth && !e.failed && !gcp_buf_failed(b)) {
        f = &e.frames[e.depth - 1];

        if (f->i == f->n) {
            gcp_yaml_pop_indent(&e);
            e.depth--;
            continue;
        }

        gcp_yaml_write_indent(&e);

        if (f->keys == NULL) {
            gcp_yaml_write_indicator(&e, "-", 1, 0, 1);
            gcp_yaml_emit_node(&e, json_array_get(f->node, f->i++), 0, 0, 0);
            continue;
        }

        k = &((gcp_ykey_t *) f->keys)[f->i++];
        value = gcp_yaml_member(&e, f->node, k);

        gcp_yaml_analyze(&e, k->s, k->len);

        e.root_context = 0;
        e.mapping_context = 1;

        if (!e.scalar.multiline && k->len <= GCP_YAML_MAX_SIMPLE) {
            e.simple_key_context = 1;
            gcp_yaml_emit_scalar(&e, memchr(k->s, '\n', k->len)
                                     ? GCP_YAML_LITERAL
                                     : gcp_yaml_plain_is_str(k->s, k->len)
                                       ? GCP_YAML_PLAIN
                                       : GCP_YAML_DOUBLE_QUOTED);
            gcp_yaml_write_indicator(&e, ":", 0, 0, 0);

        } else {
            gcp_yaml_write_indicator(&e, "?", 1, 0, 1);
            e.simple_key_context = 0;
            gcp_yaml_emit_scalar(&e, memchr(k->s, '\n', k->len)
                                     ? GCP_YAML_LITERAL
                                     : gcp_yaml_plain_is_str(k->s, k->len)
                                       ? GCP_YAML_PLAIN
                                       : GCP_YAML_DOUBLE_QUOTED);
            gcp_yaml_write_indent(&e);
            gcp_yaml_write_indicator(&e, ":", 1, 0, 1);
        }

        gcp_yaml_emit_node(&e, value, 0, 1, 0);
    }

    /* document end */

    if (!e.failed) {
        gcp_yaml_write_indent(&e);
    }

    if (e.failed) {
        b->failed = 1;
    }

    free(e.indents);
    free(e.frames);
}


gcp_str_t
gcp_yaml_dump(gcp_arena_t *a, const json_t *v)
{
    gcp_buf_t  b;

    gcp_buf_init(&b, a);
    gcp_yaml_dump_buf(&b, v);

    return gcp_buf_dup(&b);
}
