/*
 * Fuzzing the YAML parser (encoding/gcp_yaml_parse.c) directly, as YAML
 * bodies and manifest documents reach it: YAMLToJSON with and without
 * strict duplicate keys.  Either it fails with a message, or it gives a
 * value; strict parsing gives the same value, and reports duplicates only
 * with YAMLToJSONStrict's error.  The value, written as JSON (which is
 * YAML, but for keys longer than the 1024 characters YAML allows a simple
 * key, as go-yaml does), parses again to an equal value: in that JSON the
 * characters YAML 1.1 takes for line breaks (NEL, LS, PS) are escaped, as
 * raw they fold into spaces in a quoted scalar (go-yaml and libyaml alike).
 *
 * Input: the YAML text.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gcp_yaml_parse.h"
#include "fuzz.h"


/*
 * Returns 1 if v has an object key that, written as JSON, is longer than
 * a YAML simple key may be.
 */

static int
yaml_long_key(json_t *v)
{
    int          long_key;
    char        *text;
    size_t       i;
    json_t      *x, *s;
    const char  *k;

    if (json_is_array(v)) {
        json_array_foreach(v, i, x) {
            if (yaml_long_key(x)) {
                return 1;
            }
        }
    }

    if (json_is_object(v)) {
        json_object_foreach(v, k, x) {
            s = json_string_nocheck(k);
            FUZZ_CHECK(s != NULL);
            text = json_dumps(s, JSON_ENCODE_ANY);
            FUZZ_CHECK(text != NULL);
            long_key = strlen(text) > 1024;
            free(text);
            json_decref(s);

            if (long_key || yaml_long_key(x)) {
                return 1;
            }
        }
    }

    return 0;
}


/*
 * JSON text (malloc'd, freed here) with the raw line breaks of YAML 1.1
 * (U+0085, U+2028, U+2029: only in strings in JSON) written as escapes.
 * Returns a new malloc'd text.
 */

static char *
yaml_escape_breaks(char *text)
{
    char    *out, *w;
    size_t   i, n;

    n = strlen(text);
    out = malloc(n * 3 + 1);
    FUZZ_CHECK(out != NULL);

    for (i = 0, w = out; i < n; i++) {
        if ((unsigned char) text[i] == 0xc2 && i + 1 < n
            && (unsigned char) text[i + 1] == 0x85)
        {
            w += sprintf(w, "\\u0085");
            i++;

        } else if ((unsigned char) text[i] == 0xe2 && i + 2 < n
                   && (unsigned char) text[i + 1] == 0x80
                   && ((unsigned char) text[i + 2] == 0xa8
                       || (unsigned char) text[i + 2] == 0xa9))
        {
            w += sprintf(w, "\\u%04x",
                         (unsigned char) text[i + 2] == 0xa8 ? 0x2028
                                                            : 0x2029);
            i += 2;

        } else {
            *w++ = text[i];
        }
    }

    *w = '\0';
    free(text);

    return out;
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int               rc, src;
    char             *text;
    json_t           *v, *sv, *again;
    gcp_arena_t      *a;
    gcp_yaml_info_t   info, sinfo;

    a = gcp_arena_create(0);
    FUZZ_CHECK(a != NULL);

    memset(&info, 0, sizeof(info));
    v = NULL;
    rc = gcp_yaml_parse(a, (const char *) data, size, 0, &v, &info);

    memset(&sinfo, 0, sizeof(sinfo));
    sv = NULL;
    src = gcp_yaml_parse(a, (const char *) data, size, GCP_YAML_STRICT, &sv,
                         &sinfo);

    FUZZ_CHECK(rc == src);

    if (rc != GCP_OK) {
        FUZZ_CHECK(rc == GCP_EBADREQUEST && info.msg != NULL
                   && sinfo.msg != NULL);
        gcp_arena_destroy(a);
        return 0;
    }

    FUZZ_CHECK(v != NULL && sv != NULL && json_equal(v, sv));
    FUZZ_CHECK(sinfo.ndups == 0 || sinfo.strict_msg != NULL);
    FUZZ_CHECK(info.ndups == 0);

    if (yaml_long_key(v)) {
        gcp_arena_destroy(a);
        return 0;
    }

    text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    FUZZ_CHECK(text != NULL);
    text = yaml_escape_breaks(text);

    again = NULL;
    FUZZ_CHECK(gcp_yaml_parse(a, text, strlen(text), GCP_YAML_STRICT, &again,
                              NULL) == GCP_OK);
    if (!json_equal(v, again)) {
        char  *back = json_dumps(again, JSON_ENCODE_ANY | JSON_COMPACT);

        fprintf(stderr, "written: %s\nread back: %s\n", text,
                back ? back : "?");
        free(back);
    }

    FUZZ_CHECK(json_equal(v, again));

    free(text);
    gcp_arena_destroy(a);

    return 0;
}
