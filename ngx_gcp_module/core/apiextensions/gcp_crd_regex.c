
/*
 * PCRE2 side of the schema regular expressions: compiling the translated
 * pattern once, matching with bounded time and memory (gcp_crd_regex.h).
 */

#define PCRE2_CODE_UNIT_WIDTH  8

#include <stdlib.h>
#include <pcre2.h>

#include "gcp_crd_regex.h"


/* limits of one match of the backtracking matcher */
#define GCP_RE_MATCH_LIMIT     1000000
#define GCP_RE_DEPTH_LIMIT     10000
#define GCP_RE_HEAP_LIMIT      (16 * 1024)      /* KiB */

/* the DFA matcher's workspace (ints) and its retry bound */
#define GCP_RE_DFA_WORKSPACE   1000
#define GCP_RE_DFA_MAX_WS      (1 << 20)

/* Go's parser refuses a height above 1000; the translation adds groups */
#define GCP_RE_PARENS_LIMIT    4000


struct gcp_crd_regex_s {
    pcre2_code           *code;
    pcre2_match_context  *mctx;
    const char           *source;
};


struct gcp_crd_match_s {
    pcre2_match_data     *md;
    int                  *ws;
    size_t                nws;
};


static void
gcp_crd_regex_release(void *data)
{
    gcp_crd_regex_t  *re = data;

    pcre2_match_context_free(re->mctx);
    pcre2_code_free(re->code);
}


gcp_crd_regex_t *
gcp_crd_regex_compile(gcp_arena_t *a, const char *pattern, size_t len,
    const char **err)
{
    int                     rc, ecode;
    char                    msg[256];
    PCRE2_SIZE              eoff;
    gcp_str_t               pcre;
    gcp_crd_regex_t        *re;
    pcre2_compile_context  *cctx;

    rc = gcp_crd_regex_translate(a, pattern, len, &pcre, err);
    if (rc != GCP_OK) {
        if (*err == NULL) {
            *err = "out of memory";
        }

        return NULL;
    }

    re = gcp_calloc(a, sizeof(gcp_crd_regex_t));
    if (re == NULL) {
        *err = "out of memory";
        return NULL;
    }

    re->source = gcp_strndup(a, pattern, len);

    cctx = pcre2_compile_context_create(NULL);
    if (cctx == NULL || re->source == NULL) {
        pcre2_compile_context_free(cctx);
        *err = "out of memory";
        return NULL;
    }

    pcre2_set_newline(cctx, PCRE2_NEWLINE_LF);
    pcre2_set_parens_nest_limit(cctx, GCP_RE_PARENS_LIMIT);

    re->code = pcre2_compile((PCRE2_SPTR) pcre.data, pcre.len,
                             PCRE2_UTF | PCRE2_MATCH_INVALID_UTF
                             | PCRE2_ALT_CIRCUMFLEX | PCRE2_NO_AUTO_CAPTURE
                             | PCRE2_NEVER_BACKSLASH_C,
                             &ecode, &eoff, cctx);

    pcre2_compile_context_free(cctx);

    if (re->code == NULL) {
        pcre2_get_error_message(ecode, (PCRE2_UCHAR *) msg, sizeof(msg));
        *err = gcp_sprintf(a, "PCRE2 cannot compile the pattern: %s", msg);
        if (*err == NULL) {
            *err = "out of memory";
        }

        return NULL;
    }

    re->mctx = pcre2_match_context_create(NULL);

    if (re->mctx == NULL) {
        pcre2_code_free(re->code);
        *err = "out of memory";
        return NULL;
    }

    if (gcp_arena_cleanup(a, gcp_crd_regex_release, re) != GCP_OK) {
        *err = "out of memory";     /* the cleanup ran and freed both */
        return NULL;
    }

    pcre2_set_match_limit(re->mctx, GCP_RE_MATCH_LIMIT);
    pcre2_set_depth_limit(re->mctx, GCP_RE_DEPTH_LIMIT);
    pcre2_set_heap_limit(re->mctx, GCP_RE_HEAP_LIMIT);

    /* JIT when this build and this process allow it; else interpreted */
    (void) pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE);

    *err = NULL;
    return re;
}


const char *
gcp_crd_regex_source(const gcp_crd_regex_t *re)
{
    return re->source;
}


gcp_crd_match_t *
gcp_crd_match_create(void)
{
    gcp_crd_match_t  *m;

    m = calloc(1, sizeof(gcp_crd_match_t));
    if (m == NULL) {
        return NULL;
    }

    m->md = pcre2_match_data_create(1, NULL);
    m->nws = GCP_RE_DFA_WORKSPACE;
    m->ws = malloc(m->nws * sizeof(int));

    if (m->md == NULL || m->ws == NULL) {
        gcp_crd_match_free(m);
        return NULL;
    }

    return m;
}


void
gcp_crd_match_free(gcp_crd_match_t *m)
{
    if (m == NULL) {
        return;
    }

    pcre2_match_data_free(m->md);
    free(m->ws);
    free(m);
}


/* the polynomial matcher, for patterns the backtracking one gave up on */
static int
gcp_crd_regex_dfa(const gcp_crd_regex_t *re, gcp_crd_match_t *m,
    const char *s, size_t len)
{
    int   rc, *ws;

    for ( ;; ) {
        rc = pcre2_dfa_match(re->code, (PCRE2_SPTR) s, len, 0,
                             PCRE2_DFA_SHORTEST, m->md, re->mctx, m->ws,
                             m->nws);

        if (rc != PCRE2_ERROR_DFA_WSSIZE || m->nws >= GCP_RE_DFA_MAX_WS) {
            break;
        }

        ws = realloc(m->ws, m->nws * 4 * sizeof(int));
        if (ws == NULL) {
            return -1;
        }

        m->ws = ws;
        m->nws *= 4;
    }

    if (rc >= 0) {
        return 1;
    }

    /* no match, or undecided within the limits: not a match */
    return rc == PCRE2_ERROR_NOMEMORY ? -1 : 0;
}


int
gcp_crd_regex_match(const gcp_crd_regex_t *re, gcp_crd_match_t *m,
    const char *s, size_t len)
{
    int  rc;

    if (m == NULL) {
        return -1;
    }

    rc = pcre2_match(re->code, (PCRE2_SPTR) s, len, 0, 0, m->md, re->mctx);

    if (rc >= 0) {
        return 1;
    }

    switch (rc) {

    case PCRE2_ERROR_NOMATCH:
        return 0;

    case PCRE2_ERROR_MATCHLIMIT:
    case PCRE2_ERROR_DEPTHLIMIT:
    case PCRE2_ERROR_HEAPLIMIT:
    case PCRE2_ERROR_JIT_STACKLIMIT:
        return gcp_crd_regex_dfa(re, m, s, len);

    case PCRE2_ERROR_NOMEMORY:
        return -1;
    }

    return 0;
}
