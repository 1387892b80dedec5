
/*
 * YAML input (see gcp_yaml_parse.h): libyaml's events decoded in one pass
 * into the Go values go-yaml v2 gives for an interface{} target
 * (decode.go's parser and decoder), then converted to JSON
 * (gcp_yaml_value.c).
 *
 * go-yaml first builds a node tree, then decodes it; both phases are done
 * here as the events arrive, keeping go-yaml's order of errors: a syntax
 * error, an unknown anchor or a too deep document anywhere in the
 * document wins over a decoding error (a bad !!int, "anchor 'a' value
 * contains itself", excessive aliasing...), which is remembered while the
 * rest of the document is still parsed.  An anchor keeps the decoded
 * value of its node; an alias shares it (values are never modified once
 * built) and counts as many decoded nodes as go-yaml's decoder would
 * spend on it, so that go-yaml's alias ratio applies unchanged.
 */

#include <stdlib.h>
#include <yaml.h>

#include "gcp_base64.h"
#include "gcp_json.h"
#include "gcp_yaml_parse_int.h"
#include "gcp_yaml_parse.h"
#include "gcp_yaml_resolve.h"


#define GCP_YAML_TAG_PREFIX   "tag:yaml.org,2002:"


/* errors */


/*
 * A parsing error, located as go-yaml's parser.fail() does: the problem's
 * line (0-based, plus one for scanner errors) when not 0, else the
 * context's.
 */

static void
gcp_yparse_syntax(gcp_yparser_t *p, size_t problem_line, int scanner,
    size_t context_line, const char *problem)
{
    size_t  line;

    if (p->syntax != NULL) {
        return;
    }

    line = 0;

    if (problem_line != 0) {
        line = problem_line + (scanner ? 1 : 0);

    } else if (context_line != 0) {
        line = context_line;
    }

    if (line) {
        p->syntax = gcp_sprintf(p->a, "yaml: line %zu: %s", line, problem);

    } else {
        p->syntax = gcp_sprintf(p->a, "yaml: %s", problem);
    }

    if (p->syntax == NULL) {
        gcp_yparse_nomem(p);
    }
}


static void
gcp_yparse_libyaml_error(gcp_yparser_t *p, yaml_parser_t *yp)
{
    if (yp->error == YAML_MEMORY_ERROR) {
        gcp_yparse_nomem(p);
        return;
    }

    gcp_yparse_syntax(p, yp->problem_mark.line,
                      yp->error == YAML_SCANNER_ERROR,
                      yp->context_mark.line,
                      yp->problem ? yp->problem
                                  : "unknown problem parsing YAML content");
}


/* nodes */


/* shortTag() of resolve.go */

static const char *
gcp_yparse_short_tag(gcp_yparser_t *p, const char *tag)
{
    size_t  n = sizeof(GCP_YAML_TAG_PREFIX) - 1;

    if (strncmp(tag, GCP_YAML_TAG_PREFIX, n) == 0) {
        return gcp_sprintf(p->a, "!!%s", tag + n);
    }

    return tag;
}


/* the tags resolve() knows, by the kind they ask for */

static const struct {
    const char       *name;         /* after "tag:yaml.org,2002:" */
    gcp_yaml_kind_t   kind;
} gcp_yparse_tags[] = {
    { "str", GCP_YAML_STR },
    { "null", GCP_YAML_NULL },
    { "bool", GCP_YAML_BOOL },
    { "int", GCP_YAML_INT },
    { "int", GCP_YAML_UINT },
    { "float", GCP_YAML_FLOAT },
    { "timestamp", GCP_YAML_TIMESTAMP },
};


/* The kind a tag asks for, or -1: a tag resolve() leaves alone. */

static int
gcp_yparse_tag_kind(const char *tag)
{
    size_t  i, n = sizeof(GCP_YAML_TAG_PREFIX) - 1;

    if (strncmp(tag, GCP_YAML_TAG_PREFIX, n) != 0) {
        return -1;
    }

    for (i = 0; i < gcp_nelems(gcp_yparse_tags); i++) {
        if (strcmp(tag + n, gcp_yparse_tags[i].name) == 0) {
            return gcp_yparse_tags[i].kind;
        }
    }

    return -1;
}


/* shortTag() of resolve.go for a kind resolve() gave */

static const char *
gcp_yparse_kind_tag(gcp_yparser_t *p, gcp_yaml_kind_t kind)
{
    size_t  i;

    for (i = 0; i < gcp_nelems(gcp_yparse_tags); i++) {
        if (gcp_yparse_tags[i].kind == kind) {
            return gcp_sprintf(p->a, "!!%s", gcp_yparse_tags[i].name);
        }
    }

    return "!!str";
}


static int
gcp_yparse_string(gcp_yparser_t *p, gcp_gv_t *v, const char *s, size_t n)
{
    char  *copy;

    copy = gcp_strndup(p->tmp, s, n);
    if (copy == NULL) {
        return GCP_ENOMEM;
    }

    v->type = GCP_GV_STR;
    v->v.s = copy;
    v->n = n;

    return GCP_OK;
}


/* !!binary: base64, '\r' and '\n' ignored */

static void
gcp_yparse_binary(gcp_yparser_t *p, gcp_gv_t *v, const char *s, size_t n)
{
    int          rc;
    gcp_str_t    out;
    const char  *msg;

    rc = gcp_base64_decode(p->tmp, s, n, &out, &msg);

    if (rc == GCP_ENOMEM) {
        gcp_yparse_nomem(p);
        return;
    }

    if (rc != GCP_OK) {
        gcp_yparse_fail(p, "yaml: !!binary value contains invalid base64 "
                        "data");
        return;
    }

    v->type = GCP_GV_STR;
    v->v.s = out.data;
    v->n = out.len;
}


/* d.scalar() into an interface{}: resolve() by the tag, or a string. */

static void
gcp_yparse_scalar_value(gcp_yparser_t *p, const yaml_event_t *ev,
    gcp_gv_t *v)
{
    int                 want;
    size_t              len;
    const char         *s, *tag;
    gcp_yaml_kind_t     kind;
    gcp_yaml_scalar_t   r;

    s = (const char *) ev->data.scalar.value;
    len = ev->data.scalar.length;
    tag = (const char *) ev->data.scalar.tag;

    if (tag == NULL && !ev->data.scalar.plain_implicit) {
        /* quoted, no tag */
        goto string;
    }

    if (tag == NULL || tag[0] == '\0') {
        kind = gcp_yaml_resolve(s, len, GCP_YAML_TIMESTAMPS, &r);
        goto resolved;
    }

    if (strcmp(tag, GCP_YAML_TAG_PREFIX "binary") == 0) {
        gcp_yparse_binary(p, v, s, len);
        return;
    }

    want = gcp_yparse_tag_kind(tag);

    if (want < 0 || want == GCP_YAML_STR) {
        goto string;
    }

    kind = gcp_yaml_resolve(s, len, want == GCP_YAML_TIMESTAMP
                                    ? GCP_YAML_TIMESTAMPS : 0, &r);

    if (kind == GCP_YAML_UINT && want == GCP_YAML_INT) {
        want = GCP_YAML_UINT;
    }

    if (want == GCP_YAML_FLOAT && kind == GCP_YAML_INT) {
        r.f = (double) r.i;
        kind = GCP_YAML_FLOAT;
    }

    if ((int) kind != want) {
        gcp_yparse_fail(p, gcp_sprintf(p->a, "yaml: cannot decode %s `%.*s` "
                                       "as a %s", gcp_yparse_kind_tag(p, kind),
                                       (int) len, s,
                                       gcp_yparse_short_tag(p, tag)));
        return;
    }

resolved:

    switch (kind) {

    case GCP_YAML_NULL:
        v->type = GCP_GV_NIL;
        return;

    case GCP_YAML_BOOL:
        v->type = GCP_GV_BOOL;
        v->v.i = r.i;
        return;

    case GCP_YAML_INT:
        v->type = GCP_GV_INT;
        v->v.i = r.i;
        return;

    case GCP_YAML_UINT:
        v->type = GCP_GV_UINT;
        v->v.u = r.u;
        return;

    case GCP_YAML_FLOAT:
        v->type = GCP_GV_FLOAT;
        v->v.f = r.f;
        return;

    default:
        /* strings; timestamps stay strings in an interface{} */
        break;
    }

string:

    if (gcp_yparse_string(p, v, s, len) != GCP_OK) {
        gcp_yparse_nomem(p);
    }
}


/* isMerge(): a plain "<<" key, or one tagged !!merge */

static int
gcp_yparse_is_merge(const yaml_event_t *ev)
{
    const char  *tag = (const char *) ev->data.scalar.tag;

    return ev->data.scalar.length == 2
           && memcmp(ev->data.scalar.value, "<<", 2) == 0
           && (ev->data.scalar.plain_implicit
               || (tag && strcmp(tag, GCP_YAML_TAG_PREFIX "merge") == 0));
}


static void
gcp_yparse_scalar(gcp_yparser_t *p, const yaml_event_t *ev)
{
    int            anchor, merge_key;
    gcp_gv_t       v;
    gcp_yframe_t  *f;

    anchor = gcp_yparse_anchor(p, (const char *) ev->data.scalar.anchor);

    if (gcp_yparse_failed(p)) {
        return;
    }

    f = gcp_yparse_top(p);

    if (gcp_yparse_at_merge_value(p) || (f && f->merge_value)) {
        /* merge() refuses a scalar before decoding it */
        gcp_yparse_fail_want_map(p);
        return;
    }

    merge_key = f && f->type == GCP_GV_MAP && (f->n & 1) == 0
                && gcp_yparse_is_merge(ev);

    memset(&v, 0, sizeof(gcp_gv_t));
    v.line = (uint32_t) ev->start_mark.line;

    if (merge_key) {
        /* never decoded: merge() takes the value */
        f->key_merge = 1;
        v.type = GCP_GV_STR;
        v.v.s = "<<";
        v.n = 2;

    } else {
        gcp_yparse_count(p, 1, 0);

        if (gcp_yparse_failed(p)) {
            return;
        }

        gcp_yparse_scalar_value(p, ev, &v);

        if (gcp_yparse_failed(p)) {
            return;
        }
    }

    gcp_yparse_anchor_close(p, anchor, &v, 1);
    gcp_yparse_add(p, &v, 0);
}


static void
gcp_yparse_alias(gcp_yparser_t *p, const yaml_event_t *ev)
{
    size_t          i, len, end;
    gcp_gv_t        v;
    const char     *name;
    gcp_yanchor_t  *an;

    name = (const char *) ev->data.alias.anchor;
    len = strlen(name);

    an = gcp_yparse_anchor_find(p, name, len, NULL);

    if (an == NULL) {
        /* the parser's error: before any decoding error */
        if (p->syntax == NULL) {
            p->syntax = gcp_sprintf(p->a, "yaml: unknown anchor '%s' "
                                    "referenced", name);
            if (p->syntax == NULL) {
                gcp_yparse_nomem(p);
            }
        }

        return;
    }

    if (gcp_yparse_failed(p)) {
        return;
    }

    gcp_yparse_count(p, 1, 0);

    if (an->open) {
        gcp_yparse_fail(p, gcp_sprintf(p->a, "yaml: anchor '%s' value "
                                       "contains itself", name));
        return;
    }

    gcp_yparse_count(p, an->size, an->size);

    if (gcp_yparse_failed(p)) {
        return;
    }

    /* decoding the node again reports its duplicates again */

    end = an->dups1;

    for (i = an->dups0; i < end; i++) {
        gcp_yparse_dup(p, p->dups[i]);
    }

    v = an->value;
    v.line = (uint32_t) ev->start_mark.line;

    gcp_yparse_add(p, &v, 1);
}


static void
gcp_yparse_start(gcp_yparser_t *p, const yaml_event_t *ev, uint8_t type)
{
    int            flow, merge_value;
    size_t         cap, limit;
    gcp_yframe_t  *f, *frames;

    if (type == GCP_GV_SEQ) {
        flow = ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;

    } else {
        flow = ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
    }

    /* the scanner's limits (max_flow_level, max_indents) */

    limit = flow ? ++p->flow : ++p->block;

    if (limit > GCP_YAML_MAX_DEPTH) {
        gcp_yparse_syntax(p, ev->start_mark.line, 1, 0,
                          "exceeded max depth of 10000");
        return;
    }

    if (p->depth == p->fcap) {
        cap = p->fcap ? p->fcap * 2 : 16;
        frames = realloc(p->frames, cap * sizeof(gcp_yframe_t));
        if (frames == NULL) {
            gcp_yparse_nomem(p);
            return;
        }

        p->frames = frames;
        p->fcap = cap;
    }

    f = gcp_yparse_top(p);

    merge_value = type == GCP_GV_SEQ && gcp_yparse_at_merge_value(p);

    if (!gcp_yparse_failed(p) && f && f->merge_value) {
        /* a sequence in a merge sequence */
        if (type == GCP_GV_SEQ) {
            gcp_yparse_fail_want_map(p);
        }
    }

    f = &p->frames[p->depth++];
    memset(f, 0, sizeof(gcp_yframe_t));

    f->type = type;
    f->flow = flow;
    f->merge_value = merge_value;
    f->line = (uint32_t) ev->start_mark.line;
    f->anchor = gcp_yparse_anchor(p, (const char *) (type == GCP_GV_SEQ
                                     ? ev->data.sequence_start.anchor
                                     : ev->data.mapping_start.anchor));
    f->count0 = p->count;
    f->dups0 = p->ndups;

    if (!merge_value) {
        /* merge() decodes the items of its sequence, not the sequence */
        gcp_yparse_count(p, 1, 0);
    }
}


static void
gcp_yparse_end(gcp_yparser_t *p)
{
    size_t         size;
    gcp_gv_t       v, *items;
    gcp_yframe_t  *f;

    f = &p->frames[--p->depth];

    if (f->flow) {
        p->flow--;

    } else {
        p->block--;
    }

    if (!gcp_yparse_failed(p)) {
        memset(&v, 0, sizeof(gcp_gv_t));
        v.type = f->type;
        v.line = f->line;
        v.n = (f->type == GCP_GV_MAP) ? f->n / 2 : f->n;

        items = NULL;

        if (f->n) {
            items = gcp_alloc(p->tmp, f->n * sizeof(gcp_gv_t));
            if (items == NULL) {
                gcp_yparse_nomem(p);

            } else {
                memcpy(items, f->items, f->n * sizeof(gcp_gv_t));
            }
        }

        v.v.items = items;

        /* decoded again through an alias, the sequence counts too */
        size = p->count - f->count0 + (f->merge_value ? 1 : 0);

        gcp_yparse_anchor_close(p, f->anchor, &v, size);
    }

    free(f->items);
    free(f->index);

    if (!gcp_yparse_failed(p)) {
        gcp_yparse_add(p, &v, 0);
    }
}


static void
gcp_yparse_document(gcp_yparser_t *p, const yaml_event_t *ev)
{
    yaml_version_directive_t  *vd;

    vd = ev->data.document_start.version_directive;

    if (vd && (vd->major != 1 || vd->minor != 1)) {
        /* go-yaml reads YAML 1.1 only (libyaml accepts 1.2 too) */
        gcp_yparse_syntax(p, ev->start_mark.line, 0, 0,
                          "found incompatible YAML document");
        return;
    }

    /* the document node is decoded too */
    gcp_yparse_count(p, 1, 0);
}


static void
gcp_yparse_cleanup(gcp_yparser_t *p)
{
    size_t  i;

    for (i = 0; i < p->depth; i++) {
        free(p->frames[i].items);
        free(p->frames[i].index);
    }

    free(p->frames);
}


/* Runs libyaml over the first document; returns when done or failed. */

static void
gcp_yparse_run(gcp_yparser_t *p, const char *data, size_t len)
{
    int            done;
    yaml_event_t   ev;
    yaml_parser_t  yp;

    if (!yaml_parser_initialize(&yp)) {
        gcp_yparse_nomem(p);
        return;
    }

    yaml_parser_set_input_string(&yp, (const unsigned char *) data, len);

    done = 0;

    while (!done && p->syntax == NULL) {

        if (!yaml_parser_parse(&yp, &ev)) {
            gcp_yparse_libyaml_error(p, &yp);
            break;
        }

        switch (ev.type) {

        case YAML_DOCUMENT_START_EVENT:
            gcp_yparse_document(p, &ev);
            break;

        case YAML_SCALAR_EVENT:
            gcp_yparse_scalar(p, &ev);
            break;

        case YAML_ALIAS_EVENT:
            gcp_yparse_alias(p, &ev);
            break;

        case YAML_SEQUENCE_START_EVENT:
            gcp_yparse_start(p, &ev, GCP_GV_SEQ);
            break;

        case YAML_MAPPING_START_EVENT:
            gcp_yparse_start(p, &ev, GCP_GV_MAP);
            break;

        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            gcp_yparse_end(p);
            break;

        case YAML_DOCUMENT_END_EVENT:
        case YAML_STREAM_END_EVENT:
            /* only the first document is read, as yaml.Unmarshal does */
            done = 1;
            break;

        default:
            break;
        }

        yaml_event_delete(&ev);
    }

    yaml_parser_delete(&yp);
}


int
gcp_yaml_parse(gcp_arena_t *a, const char *data, size_t len,
    unsigned flags, json_t **out, gcp_yaml_info_t *info)
{
    int              rc;
    size_t           i;
    json_t          *v;
    unsigned         json_err;
    gcp_buf_t        b;
    const char      *msg;
    gcp_yparser_t    p;
    gcp_yaml_info_t  dummy;

    if (info == NULL) {
        info = &dummy;
    }

    memset(info, 0, sizeof(gcp_yaml_info_t));
    memset(&p, 0, sizeof(gcp_yparser_t));

    *out = NULL;

    if (data == NULL) {
        data = "";
        len = 0;
    }

    p.a = a;
    p.strict = (flags & GCP_YAML_STRICT) ? 1 : 0;
    p.tmp = gcp_arena_create(0);

    if (p.tmp == NULL) {
        return GCP_ENOMEM;
    }

    gcp_yparse_run(&p, data, len);
    gcp_yparse_cleanup(&p);

    if (p.nomem) {
        rc = GCP_ENOMEM;
        goto done;
    }

    msg = p.syntax ? p.syntax : p.error;

    if (msg) {
        info->msg = gcp_sprintf(a, "error converting YAML to JSON: %s", msg);
        rc = info->msg ? GCP_EBADREQUEST : GCP_ENOMEM;
        goto done;
    }

    if (!p.have_root) {
        p.root.type = GCP_GV_NIL;
    }

    json_err = 0;
    rc = gcp_gv_to_json(a, p.tmp, &p.root, &v, &info->msg, &json_err);

    if (rc != GCP_OK) {
        info->json = json_err;
        goto done;
    }

    if (gcp_json_arena(a, v) == NULL) {
        json_decref(v);
        rc = GCP_ENOMEM;
        goto done;
    }

    *out = v;

    if (p.ndups) {
        info->dups = gcp_alloc(a, p.ndups * sizeof(const char *));
        if (info->dups == NULL) {
            rc = GCP_ENOMEM;
            goto done;
        }

        gcp_buf_init(&b, a);
        gcp_buf_addstr(&b, "error converting YAML to JSON: yaml: unmarshal "
                       "errors:");

        for (i = 0; i < p.ndups; i++) {
            info->dups[i] = p.dups[i];
            gcp_buf_printf(&b, "\n  %s", p.dups[i]);
        }

        info->ndups = p.ndups;
        info->strict_msg = gcp_buf_failed(&b) ? NULL : gcp_buf_cstr(&b);

        if (info->strict_msg == NULL) {
            rc = GCP_ENOMEM;
            goto done;
        }
    }

    rc = GCP_OK;

done:

    gcp_arena_destroy(p.tmp);

    if (rc == GCP_ENOMEM) {
        *out = NULL;
        info->msg = "out of memory";
    }

    return rc;
}
