
/*
 * Support of the libFuzzer harnesses (see fuzz.h).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gcp_store.h"
#include "fuzz.h"


#define FUZZ_COMPACT_EVERY  2000


static api_env_t  *fuzz_the_env;
static unsigned    fuzz_calls;


void
fuzz_fail(const char *file, int line, const char *cond)
{
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, cond);
    abort();
}


void
fuzz_fail_resp(const char *file, int line, const char *cond,
    const api_resp_t *r)
{
    fprintf(stderr, "response: %d %.*s\n", r->status,
            (int) (r->len > 2048 ? 2048 : r->len), r->body ? r->body : "");
    fuzz_fail(file, line, cond);
}


uint8_t
fuzz_byte(fuzz_in_t *in)
{
    if (in->n == 0) {
        return 0;
    }

    in->n--;

    return *in->p++;
}


size_t
fuzz_cut(fuzz_in_t *in, int sep, const uint8_t **p)
{
    size_t          n;
    const uint8_t  *end;

    end = memchr(in->p, sep, in->n);
    n = end ? (size_t) (end - in->p) : in->n;

    *p = in->p;

    in->p += n;
    in->n -= n;

    if (end) {
        in->p++;
        in->n--;
    }

    return n;
}


char *
fuzz_line(fuzz_in_t *in)
{
    size_t          n;
    const uint8_t  *p;

    n = fuzz_cut(in, '\n', &p);

    return fuzz_strndup(p, n);
}


char *
fuzz_strndup(const void *p, size_t n)
{
    char  *s;

    s = malloc(n + 1);
    FUZZ_CHECK(s != NULL);

    if (n) {
        memcpy(s, p, n);
    }

    s[n] = '\0';

    return s;
}


char *
fuzz_query_escape(const char *s, size_t n)
{
    char                 *out, *o;
    size_t                i;
    unsigned char         c;
    static const char     hex[] = "0123456789ABCDEF";

    out = malloc(n * 3 + 1);
    FUZZ_CHECK(out != NULL);

    o = out;

    for (i = 0; i < n; i++) {
        c = (unsigned char) s[i];

        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
            || (c >= '0' && c <= '9') || strchr("-_.~", c))
        {
            *o++ = (char) c;
            continue;
        }

        *o++ = '%';
        *o++ = hex[c >> 4];
        *o++ = hex[c & 15];
    }

    *o = '\0';

    return out;
}


static void
fuzz_env_free(void)
{
    api_env_destroy(fuzz_the_env);
    fuzz_the_env = NULL;
}


api_env_t *
fuzz_env(void)
{
    if (fuzz_the_env == NULL) {
        fuzz_the_env = api_env_create();
        atexit(fuzz_env_free);
    }

    return fuzz_the_env;
}


static void
fuzz_compacted(void *arg, gcp_store_result_t *res)
{
    *(int *) arg = 1;
}


void
fuzz_compact(api_env_t *env)
{
    int           done;
    int64_t       rev;
    gcp_store_t  *s;
    gcp_arena_t  *a;

    s = api_env_store(env);
    rev = s->ops->revision(s);

    a = gcp_arena_create(0);
    FUZZ_CHECK(a != NULL);

    done = 0;
    gcp_store_compact(s, rev, a, fuzz_compacted, &done);

    while (!done) {
        api_spin(env, 1);
    }

    gcp_arena_destroy(a);
}


void
fuzz_tick(api_env_t *env)
{
    if (++fuzz_calls % FUZZ_COMPACT_EVERY == 0) {
        fuzz_compact(env);
    }
}


api_resp_t *
fuzz_call(api_env_t *env, const char *method, const char *path,
    const char *content_type, const char *body, size_t len,
    const char *accept)
{
    fuzz_tick(env);

    return api_call_n(env, method, path, content_type, body, len, accept);
}


void
fuzz_body(const uint8_t *data, size_t size, const char *content_type)
{
    char        *path, *obj, *q;
    fuzz_in_t    in;
    api_env_t   *env;
    api_resp_t  *r;
    const char  *name;

    env = fuzz_env();

    in.p = data;
    in.n = size;

    if (size > 0 && data[0] == '/') {
        path = fuzz_line(&in);

    } else {
        path = strdup("/api/v1/namespaces/default/configmaps");
        FUZZ_CHECK(path != NULL);
    }

    r = fuzz_call(env, "POST", path, content_type, (const char *) in.p,
                  in.n, "application/json");

    FUZZ_CHECK_RESP(r, r->status >= 200 && r->status < 600);

    name = r->status == 201 ? api_str(r->json, "metadata", "name", NULL)
                            : NULL;

    if (name != NULL) {
        q = strchr(path, '?');
        if (q) {
            *q = '\0';
        }

        obj = malloc(strlen(path) + strlen(name) + 2);
        FUZZ_CHECK(obj != NULL);
        sprintf(obj, "%s/%s", path, name);

        api_resp_free(r);

        r = fuzz_call(env, "PUT", obj, content_type, (const char *) in.p,
                      in.n, "application/json");
        FUZZ_CHECK_RESP(r, r->status >= 200 && r->status < 600);
        api_resp_free(r);

        r = fuzz_call(env, "DELETE", obj, NULL, NULL, 0, "application/json");
        FUZZ_CHECK_RESP(r, r->status >= 200 && r->status < 500);

        free(obj);
    }

    api_resp_free(r);
    free(path);
}
