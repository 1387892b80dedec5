
/*
 * Micro benchmark of the structural schema library (core/apiextensions):
 * a CRD schema of 50 properties under spec (patterns, enums, defaults,
 * formats, bounds, lists, maps, nested objects with required fields),
 * compiled once, and 256 different custom resources (one in ten invalid)
 * taken round robin.  Three loops, each for SECONDS of CPU time of this
 * process (one core, whatever else the machine runs):
 *
 *   parse     the body decoded (gcp_json_parse): the baseline, what every
 *             request to the registry pays anyway
 *   validate  gcp_crd_schema_validate() of an already decoded object
 *   pipeline  decode, prune (with fieldValidation's paths), default,
 *             validate: what a create of a custom resource costs here
 *
 * Prints JSON: {"props":50,"objects":256,"invalid":26,
 *   "parse_per_s":..,"validate_per_s":..,"pipeline_per_s":..,
 *   "errors_per_invalid":..}
 *
 * Built and run by bench/run (make build/bench/crd_schema_bench):
 *   build/bench/crd_schema_bench [SECONDS]
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcp_core.h"
#include "gcp_ferr.h"
#include "gcp_json.h"
#include "gcp_schema.h"
#include "gcp_crd_schema.h"


#define NOBJ  256


static unsigned long  seed = 12345;


static unsigned
rnd(unsigned n)
{
    seed = seed * 6364136223846793005UL + 1442695040888963407UL;
    return (unsigned) ((seed >> 33) % n);
}


static double
cpu_now(void)
{
    struct timespec  ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);

    return ts.tv_sec + ts.tv_nsec / 1e9;
}


static const char  *sizes[] = { "small", "medium", "large", "xlarge" };
static const char  *words[] = { "alpha", "beta", "gamma", "delta", "eps" };


/* the 50 properties of spec */
static json_t *
bench_schema(void)
{
    int      i;
    char     name[32];
    json_t  *props, *p, *spec;

    props = json_object();

    for (i = 0; i < 10; i++) {
        snprintf(name, sizeof(name), "name%d", i);
        p = json_pack("{s:s,s:s,s:i}", "type", "string", "pattern",
                      i % 2 ? "^[a-z][-a-z0-9]*$" : "^[a-z]+(\\.[a-z]+)*$",
                      "maxLength", 63);
        if (i < 3) {
            json_object_set_new(p, "default", json_string("def"));
        }
        json_object_set_new(props, name, p);
    }

    for (i = 0; i < 8; i++) {
        snprintf(name, sizeof(name), "size%d", i);
        p = json_pack("{s:s,s:[s,s,s,s]}", "type", "string", "enum",
                      sizes[0], sizes[1], sizes[2], sizes[3]);
        if (i < 4) {
            json_object_set_new(p, "default", json_string("small"));
        }
        json_object_set_new(props, name, p);
    }

    for (i = 0; i < 8; i++) {
        snprintf(name, sizeof(name), "count%d", i);
        p = json_pack("{s:s,s:i,s:i,s:i}", "type", "integer", "minimum", 0,
                      "maximum", 1000, "default", i);
        json_object_set_new(props, name, p);
    }

    for (i = 0; i < 6; i++) {
        snprintf(name, sizeof(name), "ratio%d", i);
        p = json_pack("{s:s,s:f,s:f}", "type", "number", "minimum", 0.0,
                      "maximum", 1.0);
        json_object_set_new(props, name, p);
    }

    for (i = 0; i < 5; i++) {
        snprintf(name, sizeof(name), "flag%d", i);
        p = json_pack("{s:s,s:b}", "type", "boolean", "default", 0);
        json_object_set_new(props, name, p);
    }

    json_object_set_new(props, "created", json_pack("{s:s,s:s}", "type",
                        "string", "format", "date-time"));
    json_object_set_new(props, "uid", json_pack("{s:s,s:s}", "type",
                        "string", "format", "uuid"));
    json_object_set_new(props, "address", json_pack("{s:s,s:s}", "type",
                        "string", "format", "ipv4"));
    json_object_set_new(props, "contact", json_pack("{s:s,s:s}", "type",
                        "string", "format", "email"));
    json_object_set_new(props, "timeout", json_pack("{s:s,s:s}", "type",
                        "string", "format", "duration"));

    for (i = 0; i < 4; i++) {
        snprintf(name, sizeof(name), "list%d", i);
        p = json_pack("{s:s,s:i,s:{s:s,s:s}}", "type", "array", "maxItems",
                      8, "items", "type", "string", "pattern",
                      "^[a-z]+$");
        if (i == 0) {
            json_object_set_new(p, "x-kubernetes-list-type",
                                json_string("set"));
        }
        json_object_set_new(props, name, p);
    }

    for (i = 0; i < 2; i++) {
        snprintf(name, sizeof(name), "labels%d", i);
        p = json_pack("{s:s,s:{s:s,s:i}}", "type", "object",
                      "additionalProperties", "type", "string", "maxLength",
                      63);
        json_object_set_new(props, name, p);
    }

    for (i = 0; i < 2; i++) {
        snprintf(name, sizeof(name), "nested%d", i);
        p = json_pack("{s:s,s:[s],s:{s:{s:s},s:{s:s,s:i,s:i,s:i},"
                      "s:{s:s,s:[s,s]}}}",
                      "type", "object", "required", "host",
                      "properties",
                      "host", "type", "string",
                      "port", "type", "integer", "minimum", 1,
                      "maximum", 65535, "default", 443,
                      "mode", "type", "string", "enum", "tcp", "udp");
        json_object_set_new(props, name, p);
    }

    spec = json_pack("{s:s,s:o}", "type", "object", "properties", props);

    return json_pack("{s:s,s:{s:o,s:{s:s}}}", "type", "object",
                     "properties", "spec", spec, "status", "type", "object");
}


static char *
bench_object(int invalid)
{
    int      i, n, bad;
    char     name[32], *s;
    json_t  *spec, *a, *o;

    spec = json_object();
    bad = invalid ? (int) rnd(6) : -1;

    for (i = 3; i < 10; i++) {
        snprintf(name, sizeof(name), "name%d", i);
        json_object_set_new(spec, name, json_string(bad == 0 && i == 5
                                                    ? "Not-Valid"
                                                    : words[rnd(5)]));
    }

    for (i = 4; i < 8; i++) {
        snprintf(name, sizeof(name), "size%d", i);
        json_object_set_new(spec, name, json_string(bad == 1 && i == 6
                                                    ? "huge"
                                                    : sizes[rnd(4)]));
    }

    for (i = 0; i < 8; i += 2) {
        snprintf(name, sizeof(name), "count%d", i);
        json_object_set_new(spec, name, json_integer(bad == 2 && i == 4
                                                     ? 5000 : rnd(1000)));
    }

    for (i = 0; i < 6; i++) {
        snprintf(name, sizeof(name), "ratio%d", i);
        json_object_set_new(spec, name, json_real(rnd(100) / 100.0));
    }

    json_object_set_new(spec, "flag1", json_true());
    json_object_set_new(spec, "created",
                        json_string(bad == 3 ? "yesterday"
                                             : "2024-05-01T10:00:00Z"));
    json_object_set_new(spec, "uid",
                        json_string("550e8400-e29b-41d4-a716-446655440000"));
    json_object_set_new(spec, "address", json_string("10.1.2.3"));
    json_object_set_new(spec, "contact", json_string("ops@example.com"));
    json_object_set_new(spec, "timeout", json_string("1h30m"));

    for (i = 0; i < 4; i++) {
        snprintf(name, sizeof(name), "list%d", i);
        a = json_array();
        n = 1 + rnd(5);
        while (n--) {
            json_array_append_new(a, json_string(bad == 4 && i == 2
                                                 ? "UPPER" : words[n]));
        }
        json_object_set_new(spec, name, a);
    }

    o = json_object();
    json_object_set_new(o, "app", json_string(words[rnd(5)]));
    json_object_set_new(o, "tier", json_string("backend"));
    json_object_set_new(spec, "labels0", o);

    for (i = 0; i < 2; i++) {
        snprintf(name, sizeof(name), "nested%d", i);
        o = bad == 5 && i == 1
            ? json_pack("{s:s}", "mode", "tcp")
            : json_pack("{s:s,s:s}", "host", "db.example.com", "mode",
                        "udp");
        json_object_set_new(spec, name, o);
    }

    /* an unknown field, pruned (and reported) */
    json_object_set_new(spec, "legacyField", json_string("x"));

    o = json_pack("{s:s,s:s,s:{s:s,s:s},s:o}", "apiVersion",
                  "bench.example.com/v1", "kind", "Widget", "metadata",
                  "name", "w", "namespace", "default", "spec", spec);

    s = json_dumps(o, JSON_COMPACT);
    json_decref(o);

    return s;
}


int
main(int argc, char **argv)
{
    int                 i, invalid;
    char                err[256], *bodies[NOBJ];
    size_t              n, k, npaths, errors, nerr_objs, nprops;
    double              seconds, t0, t, parse_rate, validate_rate, pipe_rate;
    json_t             *schema, *parsed[NOBJ], *obj;
    const char         *msg, *perr, **paths;
    gcp_arena_t        *a;
    gcp_ferrs_t         errs;
    gcp_crd_schema_t   *cs;
    gcp_schema_set_t   *set;

    seconds = argc > 1 ? atof(argv[1]) : 2.0;

    set = gcp_schema_set_create();
    if (set == NULL || gcp_schema_set_load_embedded(set, &msg) != GCP_OK) {
        fprintf(stderr, "schemas: %s\n", set ? msg : "out of memory");
        return 2;
    }

    schema = bench_schema();
    cs = gcp_crd_schema_compile(schema, set, err, sizeof(err));
    if (cs == NULL) {
        fprintf(stderr, "compile: %s\n", err);
        return 2;
    }

    invalid = 0;

    for (i = 0; i < NOBJ; i++) {
        bodies[i] = bench_object(i % 10 == 9);
        invalid += i % 10 == 9;
    }

    /* decoded, pruned and defaulted once, for the validate loop */

    a = gcp_arena_create(0);
    errors = 0;
    nerr_objs = 0;

    for (i = 0; i < NOBJ; i++) {
        parsed[i] = json_loads(bodies[i], 0, NULL);
        if (gcp_crd_schema_prune(cs, parsed[i], 0, a, NULL, NULL, &perr)
            != GCP_OK
            || gcp_crd_schema_default(cs, parsed[i]) != GCP_OK)
        {
            fprintf(stderr, "prune or default failed\n");
            return 2;
        }

        gcp_ferrs_init(&errs, a);
        gcp_crd_schema_validate(cs, parsed[i], NULL, &errs);
        errors += errs.n;
        nerr_objs += errs.n > 0;
    }

    gcp_arena_destroy(a);

    if ((int) nerr_objs != invalid) {
        fprintf(stderr, "%zu objects invalid, %d expected\n", nerr_objs,
                invalid);
        return 2;
    }

    /* parse */

    t0 = cpu_now();
    for (n = 0; (t = cpu_now()) - t0 < seconds; ) {
        for (k = 0; k < 64; k++, n++) {
            a = gcp_arena_create(0);
            if (gcp_json_parse(a, bodies[n % NOBJ], strlen(bodies[n % NOBJ]),
                               &msg) == NULL)
            {
                return 2;
            }
            gcp_arena_destroy(a);
        }
    }
    parse_rate = n / (t - t0);

    /* validate */

    t0 = cpu_now();
    for (n = 0; (t = cpu_now()) - t0 < seconds; ) {
        for (k = 0; k < 64; k++, n++) {
            a = gcp_arena_create(0);
            gcp_ferrs_init(&errs, a);
            if (gcp_crd_schema_validate(cs, parsed[n % NOBJ], NULL, &errs)
                != GCP_OK)
            {
                return 2;
            }
            gcp_arena_destroy(a);
        }
    }
    validate_rate = n / (t - t0);

    /* the pipeline of a create */

    t0 = cpu_now();
    for (n = 0; (t = cpu_now()) - t0 < seconds; ) {
        for (k = 0; k < 64; k++, n++) {
            a = gcp_arena_create(0);
            obj = gcp_json_parse(a, bodies[n % NOBJ],
                                 strlen(bodies[n % NOBJ]), &msg);
            if (obj == NULL
                || gcp_crd_schema_prune(cs, obj, GCP_CRD_PRUNE_PATHS, a,
                                        &paths, &npaths, &perr) != GCP_OK
                || npaths != 1
                || gcp_crd_schema_default(cs, obj) != GCP_OK)
            {
                return 2;
            }
            gcp_ferrs_init(&errs, a);
            if (gcp_crd_schema_validate(cs, obj, NULL, &errs) != GCP_OK) {
                return 2;
            }
            gcp_arena_destroy(a);
        }
    }
    pipe_rate = n / (t - t0);

    nprops = json_object_size(json_object_get(json_object_get(
                 json_object_get(schema, "properties"), "spec"),
                 "properties"));

    printf("{\"props\":%zu,\"objects\":%d,\"invalid\":%d,"
           "\"parse_per_s\":%.0f,\"validate_per_s\":%.0f,"
           "\"pipeline_per_s\":%.0f,\"errors_per_invalid\":%.1f}\n",
           nprops, NOBJ, invalid, parse_rate, validate_rate, pipe_rate,
           (double) errors / invalid);

    for (i = 0; i < NOBJ; i++) {
        free(bodies[i]);
        json_decref(parsed[i]);
    }

    json_decref(schema);
    gcp_crd_schema_free(cs);
    gcp_schema_set_free(set);

    return 0;
}
