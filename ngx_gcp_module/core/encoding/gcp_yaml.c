
/*
 * YAML output (see gcp_yaml.h): a port of the parts of go-yaml v2's
 * encoder (encode.go, sorter.go) that JSONToYAML exercises: key order,
 * the nodes of the tree, walked with an explicit stack.  The emitter
 * (emitterc.go) is in gcp_yaml_emit.c, the resolution of plain scalars
 * (resolve.go) in gcp_yaml_resolve.c (see gcp_yaml_int.h).
 */

#include <stdlib.h>

#include "gcp_yaml_int.h"


#define GCP_YAML_MAX_SIMPLE   128


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
