/*
 * Fuzzing label and field selectors as lists, watches and deletecollection
 * take them from the query (labelSelector=, fieldSelector=), and label
 * selectors as objects carry them (metav1.LabelSelector JSON, e.g. a
 * ResourceQuota's scopeSelector or a webhook's objectSelector).
 *
 * Input: a byte choosing the parser (modulo 3: label selector string,
 * field selector string, LabelSelector JSON), then the text; a string
 * ends at its first NUL, as the registry passes query values (C
 * strings).  A selector that parses must print (String()) as text that
 * parses again to the same text, and matching it against a few label sets
 * must be defined.
 */

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gcp_selector.h"
#include "fuzz.h"


static const char  *label_sets[] = {
    "{}",
    "{\"app\":\"web\",\"tier\":\"front\",\"n\":\"10\"}",
    "{\"a\":\"\",\"example.com/k\":\"v\",\"x\":\"1\"}",
};

static const char * const  fields[] = {
    "metadata.name", "metadata.namespace", "status.phase", "type",
    "spec.x", NULL
};


static const char *
field_get(void *ctx, const char *field)
{
    return strcmp(field, "metadata.name") == 0 ? (const char *) ctx : NULL;
}


static void
label_check(gcp_arena_t *a, gcp_label_selector_t *sel)
{
    size_t                 i;
    json_t                *labels;
    const char            *s, *again, *msg;
    gcp_label_selector_t  *sel2;

    s = gcp_label_selector_string(a, sel);
    FUZZ_CHECK(s != NULL);

    msg = NULL;
    FUZZ_CHECK(gcp_label_selector_parse(a, s, strlen(s), &sel2, &msg)
               == GCP_OK);

    again = gcp_label_selector_string(a, sel2);
    FUZZ_CHECK(again != NULL && strcmp(s, again) == 0);

    for (i = 0; i < sizeof(label_sets) / sizeof(label_sets[0]); i++) {
        labels = json_loads(label_sets[i], 0, NULL);
        FUZZ_CHECK(labels != NULL);

        if (!sel->nothing) {
            FUZZ_CHECK(gcp_label_selector_matches(sel, labels)
                       == gcp_label_selector_matches(sel2, labels));
        }

        (void) gcp_label_selector_requires(sel, "app");
        json_decref(labels);
    }
}


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char                  *text;
    json_t                *ls;
    size_t                 len;
    uint8_t                mode;
    fuzz_in_t              in;
    const char            *s, *again, *msg;
    gcp_arena_t           *a;
    gcp_field_selector_t  *fs, *fs2;
    gcp_label_selector_t  *sel;

    in.p = data;
    in.n = size;
    mode = fuzz_byte(&in) % 3;

    a = gcp_arena_create(0);
    FUZZ_CHECK(a != NULL);

    msg = NULL;
    text = fuzz_strndup(in.p, in.n);
    len = strlen(text);

    switch (mode) {

    case 0:
        if (gcp_label_selector_parse(a, text, len, &sel, &msg) == GCP_OK)
        {
            label_check(a, sel);

        } else {
            FUZZ_CHECK(msg != NULL);
        }

        break;

    case 1:
        if (gcp_field_selector_parse(a, text, len,
                                     (in.n & 1) ? fields : NULL, &fs, &msg)
            == GCP_OK)
        {
            s = gcp_field_selector_string(a, fs);
            FUZZ_CHECK(s != NULL);

            FUZZ_CHECK(gcp_field_selector_parse(a, s, strlen(s),
                                                (in.n & 1) ? fields : NULL,
                                                &fs2, &msg) == GCP_OK);
            again = gcp_field_selector_string(a, fs2);
            FUZZ_CHECK(again != NULL && strcmp(s, again) == 0);

            FUZZ_CHECK(gcp_field_selector_matches(fs, field_get, "x")
                       == gcp_field_selector_matches(fs2, field_get, "x"));
            (void) gcp_field_selector_requires(fs, "metadata.name");

        } else {
            FUZZ_CHECK(msg != NULL);
        }

        break;

    default:
        ls = json_loadb((const char *) in.p, in.n, JSON_DECODE_ANY, NULL);

        if (ls == NULL) {
            break;
        }

        if (gcp_label_selector_from_json(a, ls, &sel, &msg) == GCP_OK) {
            label_check(a, sel);

        } else {
            FUZZ_CHECK(msg != NULL);
        }

        json_decref(ls);
        break;
    }

    free(text);
    gcp_arena_destroy(a);

    return 0;
}
