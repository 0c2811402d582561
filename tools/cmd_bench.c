/* cmd_bench.c - `crowd bench [MODEL]`: the playback modes side by side on
 * one crowd in one process (bench.h), printed as a table and optionally
 * written as JSON (docs/bench.md), CSV and a gnuplot chart.
 *
 * Exit codes: 1 malformed command line (including a count above the
 * world's limit); 2 the model cannot be read; 3 a requested mode the
 * input cannot play (cpu and gpu need a model or a bake folder with runtime
 * clips, version 4 on); 4 a report cannot be written; 5 no GL context or a
 * GL failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_field.h"
#include "cli.h"

static const char usage[] =
    "usage: crowd bench [MODEL|DIR] [options]\n"
    "  MODEL|DIR         builtin: (default), a model file, or a bake folder\n"
    "  --counts a,b,...  crowd sizes (default 1,100,1000)\n"
    "  --modes a,b,...   of static,cpu,gpu,bat,vat (default every mode the input plays)\n"
    "  --size WxH        image size (default 320x180 on a software renderer, else 1280x720)\n"
    "  --frames N        frames measured per mode and size (default 9 software, 60 GPU)\n"
    "  --warmup N        frames drawn first and not measured (default 1 software, 10 GPU)\n"
    "  --seed N          crowd layout, clips and phases (default 1)\n"
    "  --archetypes K    K archetypes of the model per world, instances split among\n"
    "                    them: K draws per pass (default 1)\n"
    "  --shadows         a shadow map (depth-only pass) before the colour pass\n"
    "  --state P         crowd's GL state policy: reset (default: the CLI binds\n"
    "                    what it draws with) or restore (crowd's default)\n"
    "  --no-wait         do not wait for the GPU after each frame (at most 2 in\n"
    "                    flight): frame ms is then the submit's wall time, which\n"
    "                    stays flat unless the CPU stalls on a busy GPU\n"
    "  --json FILE       write the results as JSON (schema: docs/bench.md)\n"
    "  --csv FILE        write one CSV row per mode and size\n"
    "  --chart FILE.png  draw frame and CPU time against size (needs gnuplot)\n"
    "  --scene field     N characters over a field seen from eye height inside it:\n"
    "                    floor, brute force, GPU culling, culling + LODs side by\n"
    "                    side (default counts 1000,10000,100000, mode vat)\n"
    "  --brute-limit V   field: skip brute force and the floor above V vertices a\n"
    "                    frame (default 100000000)\n"
    "  --ways a,b,...    field: of floor,brute,cull,cull+lod (default all four); the\n"
    "                    others are not drawn, so a profiler sees these alone\n"
    "  --frame-fetch F   auto (default), interpolate or nearest: how bat and vat\n"
    "                    pick baked frames (crowd_draw_desc.frame_fetch)\n"
    "  --tier T          auto (default), gl45 or portable (crowd_world_desc.tier)\n"
    "  --tiers a,b       both tiers side by side in one run (gl45,portable), each\n"
    "                    size and mode drawn by both back to back; ratios to gl45\n"
    "  --context C       gl45 (default), gl33 or gles3: the OpenGL context to run on\n"
    "  --no-gl-thread    leave Mesa's GL driver thread off (see docs/bench.md)\n"
    "  --quiet           no progress line\n"
    "  --verbose         also print the library's informational messages\n";

typedef struct options {
    const char *model;
    uint32_t model_count;
    const char *json, *csv, *chart;
    bool modes_given, gl_thread, counts_given, field, tier_given;
    long brute_limit;
    uint32_t ways;          /* --ways as bits; 0: not given, all four */
    uint32_t width, height; /* 0: chosen for the renderer */
    long frames, warmup;
    bench_config config;
} options;

/* Parses "a,b,c" of integers in [1, max] into counts. */
static bool parse_counts(const char *text, bench_config *c) {
    char *copy = strdup(text);
    if (copy == NULL) {
        return false;
    }
    bool ok = true;
    c->count_count = 0;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); ok && item != NULL;
         item = strtok_r(NULL, ",", &save)) {
        long value;
        if (c->count_count == BENCH_MAX_COUNTS) {
            cli_fail(CLI_EXIT_USAGE, "--counts: at most %u sizes", BENCH_MAX_COUNTS);
            ok = false;
        } else if (!cli_parse_int("--counts", item, 1, 1000000000L, &value)) {
            ok = false;
        } else if (value > (long)CROWD_WORLD_MAX_INSTANCES) {
            cli_fail(CLI_EXIT_USAGE, "--counts: %ld is above the world's limit of %u instances",
                     value, CROWD_WORLD_MAX_INSTANCES);
            ok = false;
        } else {
            c->counts[c->count_count++] = (uint32_t)value;
        }
    }
    if (ok && c->count_count == 0) {
        cli_fail(CLI_EXIT_USAGE, "--counts: no size in '%s'", text);
        ok = false;
    }
    free(copy);
    return ok;
}

static bool parse_modes(const char *text, bench_config *c) {
    char *copy = strdup(text);
    if (copy == NULL) {
        return false;
    }
    bool ok = true;
    c->mode_count = 0;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); ok && item != NULL;
         item = strtok_r(NULL, ",", &save)) {
        crowd_gpu_mode mode;
        if (!crowd_gpu_mode_parse(item, &mode)) {
            cli_fail(CLI_EXIT_USAGE, "--modes: unknown mode '%s' (static, cpu, gpu, bat, vat)",
                     item);
            ok = false;
            break;
        }
        for (uint32_t m = 0; m < c->mode_count; m++) {
            if (c->modes[m] == mode) {
                cli_fail(CLI_EXIT_USAGE, "--modes: '%s' given twice", item);
                ok = false;
            }
        }
        if (ok) {
            c->modes[c->mode_count++] = mode;
        }
    }
    if (ok && c->mode_count == 0) {
        cli_fail(CLI_EXIT_USAGE, "--modes: no mode in '%s'", text);
        ok = false;
    }
    free(copy);
    return ok;
}

/* Parses "gl45,portable": two different tiers, named (auto would be one
 * of the two on a GL 4.5 context, and nothing on the others). */
static bool parse_tiers(const char *text, bench_config *c) {
    char *copy = strdup(text);
    if (copy == NULL) {
        return false;
    }
    bool ok = true;
    c->tier_count = 0;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); ok && item != NULL;
         item = strtok_r(NULL, ",", &save)) {
        crowd_gpu_tier tier;
        if (!scene_parse_tier("--tiers", item, &tier)) {
            ok = false;
        } else if (tier == CROWD_TIER_AUTO) {
            cli_fail(CLI_EXIT_USAGE, "--tiers: name the tiers (gl45, portable), not auto");
            ok = false;
        } else if (c->tier_count == BENCH_MAX_TIERS) {
            cli_fail(CLI_EXIT_USAGE, "--tiers: at most %u tiers", BENCH_MAX_TIERS);
            ok = false;
        } else if (c->tier_count == 1 && c->tiers[0] == tier) {
            cli_fail(CLI_EXIT_USAGE, "--tiers: '%s' given twice", item);
            ok = false;
        } else {
            c->tiers[c->tier_count++] = tier;
        }
    }
    if (ok && c->tier_count < 2) {
        cli_fail(CLI_EXIT_USAGE, "--tiers: two tiers to compare, e.g. gl45,portable (not '%s')",
                 text);
        ok = false;
    }
    free(copy);
    return ok;
}

/* Returns -1 to go on, else the exit code. */
static int parse(int argc, char **argv, options *o) {
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        static const char *const with_value[] = {
            "--counts",  "--modes", "--size",        "--frames", "--warmup",
            "--seed",    "--json",  "--csv",         "--chart",  "--archetypes",
            "--state",   "--scene", "--brute-limit", "--ways",   "--tier",
            "--context", "--tiers", "--frame-fetch", NULL};
        if (cli_arg_in(arg, with_value) && (value = cli_option_value(argc, argv, &i)) == NULL) {
            return CLI_EXIT_USAGE;
        }
        long number;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(arg, "--counts") == 0) {
            if (!parse_counts(value, &o->config)) {
                return CLI_EXIT_USAGE;
            }
            o->counts_given = true;
        } else if (strcmp(arg, "--scene") == 0) {
            if (strcmp(value, "field") != 0 && strcmp(value, "crowd") != 0) {
                return cli_fail(CLI_EXIT_USAGE, "--scene: '%s' is not field or crowd", value);
            }
            o->field = strcmp(value, "field") == 0;
        } else if (strcmp(arg, "--ways") == 0) {
            if (!bench_field_parse_ways(value, &o->ways)) {
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--brute-limit") == 0) {
            if (!cli_parse_int(arg, value, 1, 2147483647L, &o->brute_limit)) {
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--modes") == 0) {
            if (!parse_modes(value, &o->config)) {
                return CLI_EXIT_USAGE;
            }
            o->modes_given = true;
        } else if (strcmp(arg, "--size") == 0) {
            if (!cli_parse_size(arg, value, &o->width, &o->height)) {
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--frames") == 0) {
            if (!cli_parse_int(arg, value, 1, 100000, &o->frames)) {
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--warmup") == 0) {
            if (!cli_parse_int(arg, value, 0, 100000, &o->warmup)) {
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--seed") == 0) {
            if (!cli_parse_int(arg, value, 0, 2147483647L, &number)) {
                return CLI_EXIT_USAGE;
            }
            o->config.seed = (uint64_t)number;
        } else if (strcmp(arg, "--archetypes") == 0) {
            if (!cli_parse_int(arg, value, 1, CROWD_WORLD_MAX_ARCHETYPES, &number)) {
                return CLI_EXIT_USAGE;
            }
            o->config.archetypes = (uint32_t)number;
        } else if (strcmp(arg, "--state") == 0) {
            if (strcmp(value, "reset") != 0 && strcmp(value, "restore") != 0) {
                return cli_fail(CLI_EXIT_USAGE, "--state: '%s' is not reset or restore", value);
            }
            o->config.restore_state = strcmp(value, "restore") == 0;
        } else if (strcmp(arg, "--tier") == 0) {
            if (!scene_parse_tier(arg, value, &o->config.tier)) {
                return CLI_EXIT_USAGE;
            }
            o->tier_given = true;
        } else if (strcmp(arg, "--tiers") == 0) {
            if (!parse_tiers(value, &o->config)) {
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--context") == 0) {
            if (!scene_parse_context(arg, value, &o->config.context)) {
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--frame-fetch") == 0) {
            static const char *const fetches[CROWD_FRAME_FETCH_COUNT] = {"auto", "interpolate",
                                                                         "nearest"};
            int f = 0;
            while (f < CROWD_FRAME_FETCH_COUNT && strcmp(value, fetches[f]) != 0) {
                f++;
            }
            if (f == CROWD_FRAME_FETCH_COUNT) {
                return cli_fail(CLI_EXIT_USAGE,
                                "--frame-fetch: '%s' is not auto, interpolate or nearest", value);
            }
            o->config.frame_fetch = (crowd_frame_fetch)f;
        } else if (strcmp(arg, "--shadows") == 0) {
            o->config.shadows = true;
        } else if (strcmp(arg, "--no-wait") == 0) {
            o->config.no_wait = true;
        } else if (strcmp(arg, "--json") == 0) {
            o->json = value;
        } else if (strcmp(arg, "--csv") == 0) {
            o->csv = value;
        } else if (strcmp(arg, "--chart") == 0) {
            o->chart = value;
        } else if (strcmp(arg, "--no-gl-thread") == 0) {
            o->gl_thread = false;
        } else if (strcmp(arg, "--quiet") == 0) {
            o->config.quiet = true;
        } else if (strcmp(arg, "--verbose") == 0) {
            cli_verbose = true;
        } else {
            int code = cli_model_argument("bench", arg, &o->model, &o->model_count, 1);
            if (code >= 0) {
                return code;
            }
        }
    }
    return -1;
}

/* The requested modes, or every mode the character plays. */
static int choose_modes(options *o, const scene_character *character) {
    bench_config *c = &o->config;
    if (!o->modes_given) {
        c->mode_count = 0;
        for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
            if (scene_character_has_mode(character, (crowd_gpu_mode)m)) {
                c->modes[c->mode_count++] = (crowd_gpu_mode)m;
            }
        }
        return -1;
    }
    for (uint32_t m = 0; m < c->mode_count; m++) {
        if (!scene_character_has_mode(character, c->modes[m])) {
            crowd_error error;
            scene_mode_error(character, c->modes[m], &error);
            return cli_report(&error);
        }
    }
    return -1;
}

/* What a chart writer returned, as an exit code (a missing gnuplot warns). */
static int chart_outcome(int chart, const char *path) {
    if (chart == 1) {
        fprintf(stderr,
                "crowd: warning: gnuplot is not installed: no chart written to %s "
                "(scripts/install-deps.sh --extra installs it)\n",
                path);
    }
    return chart < 0 ? CLI_EXIT_OUTPUT : CLI_EXIT_OK;
}

static int write_reports(const options *o, const bench_results *results) {
    int code = CLI_EXIT_OK;
    if (o->json != NULL && !bench_write_json(o->json, results)) {
        code = CLI_EXIT_OUTPUT;
    }
    if (o->csv != NULL && !bench_write_csv(o->csv, results)) {
        code = CLI_EXIT_OUTPUT;
    }
    if (o->chart != NULL && chart_outcome(bench_write_chart(o->chart, results), o->chart) != 0) {
        code = CLI_EXIT_OUTPUT;
    }
    return code;
}

/* --scene field: bench_field.h. */
static int run_field(options *o, host_context *context, const scene_character *character) {
    bench_config *c = &o->config;
    if (!o->counts_given) {
        const uint32_t counts[3] = {1000, 10000, 100000};
        memcpy(c->counts, counts, sizeof counts);
        c->count_count = 3;
    }
    if (!o->modes_given) {
        c->modes[0] = CROWD_GPU_MODE_VAT;
        c->mode_count = 1;
    }
    field_results results;
    crowd_error error = {0};
    uint32_t ways = o->ways != 0 ? o->ways : FIELD_ALL_WAYS;
    if (bench_field_run(context, character, c, (uint64_t)o->brute_limit, ways, &results, &error) !=
        CROWD_OK) {
        bench_field_results_release(&results);
        return cli_report(&error);
    }
    bench_field_print(stdout, &results);
    fflush(stdout);
    int code = CLI_EXIT_OK;
    if (o->json != NULL && !bench_field_write_json(o->json, &results)) {
        code = CLI_EXIT_OUTPUT;
    }
    if (o->chart != NULL &&
        chart_outcome(bench_field_write_chart(o->chart, &results), o->chart) != 0) {
        code = CLI_EXIT_OUTPUT;
    }
    bench_field_results_release(&results);
    return code;
}

static int run(options *o) {
    scene_gl_thread_setup(o->gl_thread);
    crowd_logger logger = {scene_log, NULL};
    crowd_error error = {0};
    scene_character character;
    if (scene_character_load(o->model, true, &logger, &character, &error) != CROWD_OK) {
        return cli_report(&error);
    }
    int code = choose_modes(o, &character);
    host_context *context = NULL;
    host_context_desc desc = {.logger = logger, .api = o->config.context};
    if (code < 0 && o->field && o->config.context != HOST_CONTEXT_GL45) {
        code =
            cli_fail(CLI_EXIT_USAGE, "--scene field draws its floor with GL 4.5: --context gl45");
    }
    if (code < 0 && scene_context_create(&desc, &context, &error) != CROWD_OK) {
        code = cli_report(&error);
    }
    if (code < 0) {
        host_context_info info;
        host_context_get_info(context, &info);
        bench_config *c = &o->config;
        c->width = o->width > 0 ? o->width : info.software ? 320 : 1280;
        c->height = o->height > 0 ? o->height : info.software ? 180 : 720;
        c->frames = (uint32_t)(o->frames > 0 ? o->frames : info.software ? 9 : 60);
        c->warmup = (uint32_t)(o->warmup >= 0 ? o->warmup : info.software ? 1 : 10);
        if (o->field) {
            c->frames = (uint32_t)(o->frames > 0 ? o->frames : info.software ? 3 : 30);
            code = run_field(o, context, &character);
            host_context_destroy(context);
            scene_character_release(&character);
            return code;
        }
        bench_results results;
        if (bench_run(context, &character, c, &results, &error) != CROWD_OK) {
            code = cli_report(&error);
        } else {
            bench_print_header(stdout, &results);
            printf("\n");
            bench_print_table(stdout, &results);
            fflush(stdout);
            code = write_reports(o, &results);
        }
        bench_results_release(&results);
    }
    host_context_destroy(context);
    scene_character_release(&character);
    return code;
}

int cmd_bench(int argc, char **argv) {
    options o = {
        .gl_thread = true,
        .brute_limit = 100000000L,
        .warmup = -1,
        .config = {.counts = {1, 100, 1000},
                   .count_count = 3,
                   .archetypes = 1,
                   .frame_step_s = 1.0 / 30.0,
                   .seed = 1},
    };
    int code = parse(argc, argv, &o);
    if (code >= 0) {
        return code;
    }
    crowd_gpu_mode first = o.config.modes[0];
    if (o.field && o.modes_given && first != CROWD_GPU_MODE_STATIC && first != CROWD_GPU_MODE_BAT &&
        first != CROWD_GPU_MODE_VAT) {
        return cli_fail(CLI_EXIT_USAGE,
                        "--scene field: mode '%s' is not culled; use static, bat or vat",
                        crowd_gpu_mode_name(first));
    }
    if (o.config.tier_count > 0 && o.tier_given) {
        return cli_fail(CLI_EXIT_USAGE, "--tier and --tiers: one tier, or two side by side");
    }
    if (o.config.tier_count > 0 && o.field) {
        return cli_fail(CLI_EXIT_USAGE, "--scene field runs one tier: --tier, not --tiers");
    }
    if (!o.field && o.ways != 0) {
        return cli_fail(CLI_EXIT_USAGE, "--ways is an option of --scene field");
    }
    if (o.field && o.csv != NULL) {
        return cli_fail(CLI_EXIT_USAGE, "--scene field writes --json and --chart, not --csv");
    }
    if (o.model == NULL) {
        o.model = "builtin:";
    }
    o.config.model = o.model;
    return run(&o);
}
