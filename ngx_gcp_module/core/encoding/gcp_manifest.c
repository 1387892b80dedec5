
/*
 * Manifest files (see gcp_manifest.h): kubectl's reader, document splitter
 * and list flattening over the JSON and YAML parsers.
 */

#include <stdlib.h>

#include "gcp_json.h"
#include "gcp_manifest.h"
#include "gcp_yaml_parse.h"


typedef struct {
    gcp_arena_t         *a;
    gcp_manifest_obj_t  *objs;
    size_t               n;
    size_t               cap;
    unsigned             nomem:1;
} gcp_manifest_t;


static gcp_manifest_obj_t *
gcp_manifest_push(gcp_manifest_t *m, size_t doc, size_t line)
{
    size_t               cap;
    gcp_manifest_obj_t  *objs, *o;

    if (m->n == m->cap) {
        cap = m->cap ? m->cap * 2 : 16;
        objs = gcp_alloc(m->a, cap * sizeof(gcp_manifest_obj_t));
        if (objs == NULL) {
            m->nomem = 1;
            return NULL;
        }

        if (m->n) {
            memcpy(objs, m->objs, m->n * sizeof(gcp_manifest_obj_t));
        }

        m->objs = objs;
        m->cap = cap;
    }

    o = &m->objs[m->n++];
    memset(o, 0, sizeof(gcp_manifest_obj_t));
    o->doc = doc;
    o->line = line;
    o->item = -1;

    return o;
}


static void
gcp_manifest_error(gcp_manifest_t *m, size_t doc, size_t line,
    const char *msg)
{
    gcp_manifest_obj_t  *o;

    if (msg == NULL) {
        m->nomem = 1;
        return;
    }

    o = gcp_manifest_push(m, doc, line);
    if (o) {
        o->msg = msg;
    }
}


/* the text: kubectl's BOMOverride(UTF8 decoder) */


static void
gcp_manifest_utf16(gcp_buf_t *b, const unsigned char *p, size_t len,
    int big)
{
    size_t    i;
    uint32_t  u, lo;

#define gcp_u16(at)  (big ? (uint32_t) (p[at] << 8 | p[(at) + 1])             \
                          : (uint32_t) (p[(at) + 1] << 8 | p[at]))

    for (i = 0; i + 1 < len; i += 2) {
        u = gcp_u16(i);

        if (u >= 0xd800 && u < 0xdc00 && i + 3 < len) {
            lo = gcp_u16(i + 2);

            if (lo >= 0xdc00 && lo < 0xe000) {
                u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                i += 2;
            }
        }

        if (u >= 0xd800 && u < 0xe000) {
            u = 0xfffd;
        }

        gcp_utf8_add(b, u);
    }

    if (i < len) {
        gcp_utf8_add(b, 0xfffd);
    }

#undef gcp_u16
}


/* Returns the text as UTF-8 (arena memory or data itself), or NULL. */

static const char *
gcp_manifest_text(gcp_arena_t *a, const char *data, size_t *len)
{
    size_t                i, n;
    uint32_t              r;
    gcp_buf_t             b;
    const unsigned char  *p = (const unsigned char *) data;

    gcp_buf_init(&b, a);

    if (*len >= 2 && ((p[0] == 0xff && p[1] == 0xfe)
                      || (p[0] == 0xfe && p[1] == 0xff)))
    {
        gcp_manifest_utf16(&b, p + 2, *len - 2, p[0] == 0xfe);
        goto done;
    }

    if (*len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) {
        data += 3;
        p += 3;
        *len -= 3;
    }

    for (i = 0; i < *len; i += n) {
        n = gcp_utf8_decode(p + i, *len - i, &r);

        if (r == 0xfffd && n == 1) {
            break;
        }
    }

    if (i == *len) {
        return data;
    }

    for (i = 0; i < *len; i += n) {
        n = gcp_utf8_decode(p + i, *len - i, &r);
        gcp_utf8_add(&b, r);
    }

done:

    if (gcp_buf_failed(&b)) {
        return NULL;
    }

    *len = b.len;

    return b.len ? gcp_buf_cstr(&b) : "";
}


/* documents to objects */


/* "Object 'Kind' is missing in '{...}'" */

static const char *
gcp_manifest_missing(gcp_arena_t *a, const char *what, const json_t *obj)
{
    gcp_str_t  j;

    j = gcp_json_dump(a, obj, 0);

    return j.data ? gcp_sprintf(a, "Object '%s' is missing in '%s'", what,
                                j.data)
                  : NULL;
}


/* Returns why obj cannot be an object of a manifest, or NULL. */

static const char *
gcp_manifest_check(gcp_arena_t *a, const json_t *obj)
{
    const char  *s;

    s = json_string_value(json_object_get(obj, "kind"));

    if (s == NULL || s[0] == '\0') {
        return gcp_manifest_missing(a, "Kind", obj);
    }

    s = json_string_value(json_object_get(obj, "apiVersion"));

    if (s == NULL || s[0] == '\0') {
        return gcp_manifest_missing(a, "apiVersion", obj);
    }

    return NULL;
}


/*
 * The objects of a list, flattened as kubectl's FlattenListVisitor does
 * (breadth first).  Returns NULL, or the error of the whole document.
 */

static const char *
gcp_manifest_list(gcp_manifest_t *m, json_t *list, size_t doc, size_t line)
{
    size_t               i, q, nq, cap, item, klen;
    json_t             **queue, **nqueue, *items, *it;
    const char          *kind, *av, *msg;
    gcp_manifest_obj_t  *o;

    cap = 16;
    queue = malloc(cap * sizeof(json_t *));
    if (queue == NULL) {
        m->nomem = 1;
        return NULL;
    }

    queue[0] = list;
    nq = 1;
    item = 0;
    msg = NULL;

    for (q = 0; q < nq && msg == NULL; q++) {
        list = queue[q];

        if (q > 0 && json_object_get(list, "items") == NULL) {
            /* an object */
            o = gcp_manifest_push(m, doc, line);
            if (o == NULL) {
                break;
            }

            o->obj = list;
            o->item = (ssize_t) item++;
            continue;
        }

        items = json_object_get(list, "items");

        if (json_is_null(items)) {
            continue;
        }

        if (!json_is_array(items)) {
            msg = gcp_sprintf(m->a, "json: cannot unmarshal %s into Go "
                              "struct field decodeList.items of type "
                              "[]json.RawMessage", gcp_json_go_kind(items));
            break;
        }

        kind = json_string_value(json_object_get(list, "kind"));
        av = json_string_value(json_object_get(list, "apiVersion"));
        klen = kind ? strlen(kind) : 0;

        if (klen >= 4 && strcmp(kind + klen - 4, "List") == 0) {
            klen -= 4;
        }

        for (i = 0; i < json_array_size(items); i++) {
            it = json_array_get(items, i);

            if (!json_is_object(it)) {
                msg = gcp_sprintf(m->a, "json: cannot unmarshal %s into Go "
                                  "value of type map[string]interface {}",
                                  gcp_json_go_kind(it));
                break;
            }

            /* decodeToList(): an item without both takes the list's */

            if (json_object_get(it, "kind") == NULL
                && json_object_get(it, "apiVersion") == NULL)
            {
                json_object_set_new(it, "kind",
                                    json_stringn(kind ? kind : "", klen));
                json_object_set_new(it, "apiVersion",
                                    json_string(av ? av : ""));
            }

            if (json_object_get(it, "items") == NULL
                && (msg = gcp_manifest_check(m->a, it)) != NULL)
            {
                break;
            }

            if (nq == cap) {
                cap *= 2;
                nqueue = realloc(queue, cap * sizeof(json_t *));
                if (nqueue == NULL) {
                    m->nomem = 1;
                    break;
                }

                queue = nqueue;
            }

            queue[nq++] = it;
        }
    }

    free(queue);

    return msg;
}


/* One document's value: skipped, an object, a list, or an error. */

static void
gcp_manifest_value(gcp_manifest_t *m, json_t *v, size_t doc, size_t line)
{
    size_t               n;
    const char          *msg;
    gcp_manifest_obj_t  *o;

    if (json_is_null(v)) {
        return;
    }

    if (!json_is_object(v)) {
        gcp_manifest_error(m, doc, line,
                           gcp_sprintf(m->a, "json: cannot unmarshal %s "
                                       "into Go value of type "
                                       "unstructured.detector",
                                       gcp_json_go_kind(v)));
        return;
    }

    if (json_object_get(v, "items") == NULL) {
        msg = gcp_manifest_check(m->a, v);

        if (msg) {
            gcp_manifest_error(m, doc, line, msg);
            return;
        }

        o = gcp_manifest_push(m, doc, line);
        if (o) {
            o->obj = v;
        }

        return;
    }

    n = m->n;
    msg = gcp_manifest_list(m, v, doc, line);

    if (msg) {
        /* the whole document fails */
        m->n = n;
        gcp_manifest_error(m, doc, line, msg);
    }
}


/* JSON: a stream of values (json.Decoder) */


/* Returns the end of the JSON value at p (or end: incomplete). */

static const char *
gcp_manifest_json_end(const char *p, const char *end)
{
    size_t  depth;
    int     str;

    if (*p != '{' && *p != '[' && *p != '"') {
        while (p < end && !strchr(" \t\r\n{}[],\"", *p)) {
            p++;
        }

        return p;
    }

    depth = 0;
    str = 0;

    for ( ; p < end; p++) {
        if (str) {
            if (*p == '\\') {
                p++;

            } else if (*p == '"') {
                str = 0;

                if (depth == 0) {
                    return p + 1;
                }
            }

            continue;
        }

        switch (*p) {

        case '"':
            str = 1;
            break;

        case '{':
        case '[':
            depth++;
            break;

        case '}':
        case ']':
            if (depth && --depth == 0) {
                return p + 1;
            }

            break;
        }
    }

    return end;
}


static size_t
gcp_manifest_lines(const char *p, const char *end)
{
    size_t  n;

    for (n = 0; p < end; p++) {
        n += (*p == '\n');
    }

    return n;
}


static void
gcp_manifest_json(gcp_manifest_t *m, const char *p, size_t len)
{
    size_t       doc, line;
    json_t      *v;
    const char  *end, *start, *vend, *msg;

    end = p + len;
    start = p;
    line = 1;

    for (doc = 0; ; doc++) {
        while (p < end && strchr(" \t\r\n", *p)) {
            p++;
        }

        if (p == end) {
            return;
        }

        line += gcp_manifest_lines(start, p);
        start = p;

        vend = gcp_manifest_json_end(p, end);

        if (vend == p) {
            vend++;                     /* a stray '}' or ',': an error */
        }

        v = gcp_json_parse(m->a, p, (size_t) (vend - p), &msg);

        if (v == NULL) {
            /* nothing after a syntax error can be read */
            gcp_manifest_error(m, doc, line, msg);
            return;
        }

        gcp_manifest_value(m, v, doc, line);

        p = vend;

        if (m->nomem) {
            return;
        }
    }
}


/* YAML: documents cut at "---" lines (YAMLReader), each read alone */


static void
gcp_manifest_yaml_doc(gcp_manifest_t *m, gcp_buf_t *b, size_t doc,
    size_t line)
{
    int              rc;
    json_t          *v;
    gcp_yaml_info_t  info;

    rc = gcp_yaml_parse(m->a, b->data ? b->data : "", b->len, 0, &v, &info);

    if (rc == GCP_ENOMEM) {
        m->nomem = 1;
        return;
    }

    if (rc != GCP_OK) {
        gcp_manifest_error(m, doc, line, info.json
                           ? gcp_sprintf(m->a, "json parse error: %s",
                                         info.msg)
                           : info.msg);
        return;
    }

    gcp_manifest_value(m, v, doc, line);
}


static void
gcp_manifest_yaml(gcp_manifest_t *m, const char *p, size_t len)
{
    size_t       doc, line, first, n;
    gcp_buf_t    b;
    const char  *end, *eol, *rest;

    end = p + len;
    doc = 0;
    first = 1;

    gcp_buf_init(&b, m->a);

    for (line = 1; p < end && !m->nomem; line++, p = eol) {
        eol = memchr(p, '\n', (size_t) (end - p));
        eol = eol ? eol + 1 : end;

        /* bufio's ReadLine(): without "\n" or "\r\n"; then "\n" added */

        n = (size_t) (eol - p);

        if (n && p[n - 1] == '\n') {
            n--;

            if (n && p[n - 1] == '\r') {
                n--;
            }
        }

        if (n >= 3 && memcmp(p, "---", 3) == 0) {
            /* only blanks or a comment may follow the separator */

            for (rest = p + 3; rest < p + n && strchr(" \t\r\v\f", *rest);
                 rest++)
            {
                /* void */
            }

            if (rest < p + n && *rest != '#') {
                gcp_manifest_error(m, doc, line,
                                   gcp_sprintf(m->a, "invalid Yaml document "
                                               "separator: %.*s",
                                               (int) (p + n - rest), rest));
                return;
            }

            if (b.len) {
                gcp_manifest_yaml_doc(m, &b, doc++, first);
                b.len = 0;
            }

            first = line + 1;
            continue;
        }

        if (b.len == 0) {
            first = line;
        }

        gcp_buf_add(&b, p, n);
        gcp_buf_addc(&b, '\n');

        if (gcp_buf_failed(&b)) {
            m->nomem = 1;
            return;
        }
    }

    if (b.len && !m->nomem) {
        gcp_manifest_yaml_doc(m, &b, doc, first);
    }
}


int
gcp_manifest_read(gcp_arena_t *a, const char *data, size_t len,
    gcp_manifest_obj_t **objs, size_t *n)
{
    const char      *p, *text;
    gcp_manifest_t   m;

    memset(&m, 0, sizeof(gcp_manifest_t));
    m.a = a;

    *objs = NULL;
    *n = 0;

    text = gcp_manifest_text(a, data ? data : "", &len);
    if (text == NULL) {
        return GCP_ENOMEM;
    }

    for (p = text; p < text + len && strchr(" \t\r\n", *p); p++) {
        /* void */
    }

    if (p < text + len && *p == '{') {
        gcp_manifest_json(&m, text, len);

    } else {
        gcp_manifest_yaml(&m, text, len);
    }

    if (m.nomem) {
        return GCP_ENOMEM;
    }

    *objs = m.objs;
    *n = m.n;

    return GCP_OK;
}
