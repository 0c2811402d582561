/* cmd_render.c - `crowd render MODEL|DIR... -o OUT.png`: a grid (or, with
 * --seed, a field of random clips and phases) of instances drawn headless,
 * written as a PNG, with the frame's draw calls and times.
 *
 * Each MODEL|DIR is one archetype of the world; instances take turns among
 * them, so several make a mixed crowd (cast.h: each in --mode, or the
 * nearest mode it plays). A model file plays in every mode (bat and vat bake
 * it in memory first); a bake folder plays every mode too when it carries
 * runtime clips (version 4 on), else static, bat and vat. With
 * --shadows the crowd casts a shadow map onto the ground. Timings are those
 * of a second, identical frame, so shader compilation and first-use costs
 * are left out.
 *
 * Exit codes: 1 malformed command line (unknown option or mode, count or
 * size out of range, unknown clip); 2 unreadable or invalid model or bake;
 * 3 a mode the input cannot play; 4 the PNG cannot be written; 5 no OpenGL
 * 4.5 context or a GL failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "crowd/gpu.h"
#include "cast.h"
#include "host.h"
#include "render_layout.h"
#include "scene.h"
#include "stage.h"

static const char usage[] =
    "usage: crowd render MODEL|DIR... -o OUT.png [options]\n"
    "  MODEL|DIR              a model file, builtin:, or a bake folder (or its .crowd.json);\n"
    "                         several make a mixed crowd, one archetype each\n"
    "  -o, --output FILE      PNG to write\n"
    "  --mode M               static, cpu, gpu, bat or vat (default: gpu for a model,\n"
    "                         vat for a bake folder); in a mixed crowd, a character\n"
    "                         that cannot play M plays the nearest mode it has\n"
    "  --count N              instances, 1..65536 (default 1)\n"
    "  --size WxH             image size, each side 1..16384 (default 640x480)\n"
    "  --time S               global time in seconds (default 0.5)\n"
    "  --clip NAME            clip every instance plays (default the first)\n"
    "  --seed N               random clips (unless --clip), phases and headings\n"
    "  --camera auto|x,y,z,tx,ty,tz   eye and target (default auto: frame the crowd)\n"
    "  --no-ground            leave out the ground plane\n"
    "  --shadows              the crowd casts shadows onto the ground (a shadow map)\n"
    "  --tier T               auto (default), gl45 or portable (crowd_world_desc.tier)\n"
    "  --context C            gl45 (default), gl33 or gles3: the OpenGL context; the\n"
    "                         ground and shadows are GL 4.5 code, left out on the others\n"
    "  --verbose              print debug messages too\n";

typedef struct options {
    const char *inputs[CAST_MAX_CHARACTERS];
    uint32_t input_count;
    const char *output;
    crowd_gpu_mode mode;
    bool mode_given;
    uint32_t count;
    uint32_t width, height;
    double time_s;
    const char *clip;
    bool seeded;
    uint64_t seed;
    bool auto_camera;
    float camera[6];
    bool ground, shadows;
    bool ground_given;
    crowd_gpu_tier tier;
    host_context_api context;
} options;

static bool parse_camera(const char *text, float out[6]) {
    const char *p = text;
    for (int i = 0; i < 6; i++) {
        char *end = NULL;
        errno = 0;
        double value = strtod(p, &end);
        if (end == p || errno != 0 || !isfinite(value)) {
            return false;
        }
        out[i] = (float)value;
        if (i < 5 && *end != ',') {
            return false;
        }
        p = end + (i < 5 ? 1 : 0);
    }
    return *p == '\0';
}

static bool takes_value(const char *arg) {
    static const char *const with_value[] = {"-o",       "--output", "--mode",    "--count",
                                             "--size",   "--time",   "--clip",    "--seed",
                                             "--camera", "--tier",   "--context", NULL};
    return cli_arg_in(arg, with_value);
}

static int parse_option(int argc, char **argv, int *i, options *opt) {
    const char *arg = argv[*i];
    if (!takes_value(arg)) {
        return cli_fail(CLI_EXIT_USAGE, "unknown option '%s'\n%s", arg, usage);
    }
    const char *value = cli_option_value(argc, argv, i);
    if (value == NULL) {
        return CLI_EXIT_USAGE;
    }
    long number = 0;
    double real = 0.0;
    if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
        opt->output = value;
    } else if (strcmp(arg, "--mode") == 0) {
        if (!crowd_gpu_mode_parse(value, &opt->mode)) {
            return cli_fail(CLI_EXIT_USAGE, "--mode: '%s' is not static, cpu, gpu, bat or vat",
                            value);
        }
        opt->mode_given = true;
    } else if (strcmp(arg, "--count") == 0) {
        if (!cli_parse_int("--count", value, 1, CROWD_WORLD_DEFAULT_MAX_INSTANCES, &number)) {
            return CLI_EXIT_USAGE;
        }
        opt->count = (uint32_t)number;
    } else if (strcmp(arg, "--size") == 0) {
        if (!cli_parse_size(arg, value, &opt->width, &opt->height)) {
            return CLI_EXIT_USAGE;
        }
    } else if (strcmp(arg, "--time") == 0) {
        if (!cli_parse_float("--time", value, -1e6, 1e6, &real)) {
            return CLI_EXIT_USAGE;
        }
        opt->time_s = real;
    } else if (strcmp(arg, "--tier") == 0) {
        if (!scene_parse_tier(arg, value, &opt->tier)) {
            return CLI_EXIT_USAGE;
        }
    } else if (strcmp(arg, "--context") == 0) {
        if (!scene_parse_context(arg, value, &opt->context)) {
            return CLI_EXIT_USAGE;
        }
    } else if (strcmp(arg, "--clip") == 0) {
        opt->clip = value;
    } else if (strcmp(arg, "--seed") == 0) {
        if (!cli_parse_int("--seed", value, 0, 2147483647L, &number)) {
            return CLI_EXIT_USAGE;
        }
        opt->seeded = true;
        opt->seed = (uint64_t)number;
    } else {
        opt->auto_camera = strcmp(value, "auto") == 0;
        if (!opt->auto_camera && !parse_camera(value, opt->camera)) {
            return cli_fail(CLI_EXIT_USAGE, "--camera: '%s' is not auto or x,y,z,tx,ty,tz", value);
        }
    }
    return -1;
}

static int parse_args(int argc, char **argv, options *opt) {
    *opt = (options){.count = 1,
                     .width = 640,
                     .height = 480,
                     .time_s = 0.5,
                     .auto_camera = true,
                     .ground = true};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(arg, "--no-ground") == 0) {
            opt->ground = false;
        } else if (strcmp(arg, "--shadows") == 0) {
            opt->shadows = true;
        } else if (strcmp(arg, "--verbose") == 0) {
            cli_verbose = true;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            int code = parse_option(argc, argv, &i, opt);
            if (code >= 0) {
                return code;
            }
        } else {
            int code = cli_model_argument("render", arg, opt->inputs, &opt->input_count,
                                          CAST_MAX_CHARACTERS);
            if (code >= 0) {
                return code;
            }
        }
    }
    if (opt->input_count == 0 || opt->output == NULL) {
        return cli_fail(CLI_EXIT_USAGE, "render needs MODEL|DIR and -o OUT.png\n%s", usage);
    }
    if (opt->context != HOST_CONTEXT_GL45) {
        /* The ground and its shadow map are the CLI's own GL 4.5 code. */
        if (opt->shadows) {
            return cli_fail(CLI_EXIT_USAGE, "--shadows needs --context gl45");
        }
        opt->ground = false;
    }
    return -1;
}

typedef struct render_job {
    cast cast;
    host_context *context;
    crowd_world *world;
    host_target target;
    stage stage;
    uint8_t *pixels;
    stage_timing timing; /* of the measured frame */
} render_job;

static void render_job_free(render_job *s) {
    free(s->pixels);
    stage_release(&s->stage);
    host_target_release(&s->target);
    crowd_world_destroy(s->world);
    host_context_destroy(s->context);
    cast_release(&s->cast);
}

static crowd_logger logger(void) {
    return (crowd_logger){.fn = cli_log_stderr, .user = NULL};
}

/* The clip each archetype plays: --clip where it has one, else its first.
 * A clip no archetype has is a usage error listing the first one's clips. */
static int choose_clips(const options *opt, const render_job *s, uint32_t *clips) {
    uint32_t found = 0;
    for (uint32_t r = 0; r < s->cast.count; r++) {
        clips[r] = 0;
        bool has = opt->clip == NULL ||
                   crowd_archetype_find_clip(s->world, s->cast.archetypes[r], opt->clip, &clips[r]);
        found += has;
        if (!has && s->cast.count > 1) {
            fprintf(stderr, "crowd: warning: %s: no clip named '%s'; it plays its first\n",
                    opt->inputs[r], opt->clip);
        }
    }
    if (found > 0) {
        return -1;
    }
    crowd_archetype first = s->cast.archetypes[0];
    fprintf(stderr, "crowd: error: %s: no clip named '%s'; clips:", opt->inputs[0], opt->clip);
    for (uint32_t c = 0; c < crowd_archetype_clip_count(s->world, first); c++) {
        crowd_clip_info info;
        crowd_archetype_get_clip(s->world, first, c, &info);
        fprintf(stderr, " %s", info.name);
    }
    fputc('\n', stderr);
    return CLI_EXIT_USAGE;
}

/* Instances on a square grid, taking turns among the archetypes
 * (render_layout.c, which the web player compiles too). */
static int add_instances(const options *opt, render_job *s) {
    uint32_t clips[CAST_MAX_CHARACTERS];
    int code = choose_clips(opt, s, clips);
    if (code >= 0) {
        return code;
    }
    const render_layout layout = {.count = opt->count,
                                  .seeded = opt->seeded,
                                  .seed = opt->seed,
                                  .random_clips = opt->seeded && opt->clip == NULL};
    crowd_error error;
    if (render_layout_add(s->world, s->cast.archetypes, s->cast.count, clips, &layout, &error) !=
        CROWD_OK) {
        return cli_report(&error);
    }
    return -1;
}

/* An archetype of the cast's mode (every one of them is live). */
static crowd_gpu_mode mode_of(const render_job *s, crowd_archetype archetype) {
    crowd_gpu_mode mode = CROWD_GPU_MODE_COUNT;
    crowd_archetype_get_mode(s->world, archetype, &mode);
    return mode;
}

/* "mode vat", or for a mixed crowd "modes gpu (builtin:), vat (robot.glb)". */
static void print_modes(const render_job *s) {
    crowd_gpu_mode first = mode_of(s, s->cast.archetypes[0]);
    bool same = true;
    for (uint32_t r = 1; r < s->cast.count; r++) {
        same = same && mode_of(s, s->cast.archetypes[r]) == first;
    }
    if (same) {
        printf("mode %s", crowd_gpu_mode_name(first));
        return;
    }
    printf("modes");
    for (uint32_t r = 0; r < s->cast.count; r++) {
        crowd_archetype archetype = s->cast.archetypes[r];
        printf("%s %s (%s)", r > 0 ? "," : "", crowd_gpu_mode_name(mode_of(s, archetype)),
               crowd_archetype_name(s->world, archetype));
    }
}

static void print_summary(const options *opt, const render_job *s) {
    crowd_world_stats stats;
    crowd_world_get_stats(s->world, &stats);
    host_context_info info;
    host_context_get_info(s->context, &info);
    printf("wrote %s: %ux%u, %u instances, ", opt->output, (unsigned)opt->width,
           (unsigned)opt->height, (unsigned)stats.instance_count);
    print_modes(s);
    printf(", time %.3f s\n", opt->time_s);
    if (s->cast.count > 1) {
        printf("archetypes        %u, instances taking turns\n", (unsigned)s->cast.count);
    }
    printf("draw calls        %u", (unsigned)stats.draw_calls);
    if (stats.passes > 1) {
        printf(" in %u passes (shadow map, colour)", (unsigned)stats.passes);
    }
    printf("%s\n", stage_extra_draws(&s->stage) > 0 ? " (+1 ground)" : "");
    printf("frame time        %.3f ms (until the GPU finished)\n", s->timing.wall_s * 1e3);
    printf("application CPU   %.3f ms (thread CPU time, without the GPU wait%s)\n",
           s->timing.cpu_s * 1e3, info.software ? "; includes llvmpipe's vertex shading" : "");
    printf("  animation       %.3f ms (sampling, blending, skinning on the CPU)\n",
           stats.cpu_animation_time_s * 1e3);
    printf("uploaded          %llu bytes\n", (unsigned long long)stats.uploaded_bytes);
    printf("GPU memory        %.2f MiB (the world's buffers and textures)\n",
           (double)stats.gpu_memory_bytes / (1024.0 * 1024.0));
    printf("renderer          %s (%s)\n", info.renderer, info.platform);
    printf("tier              %s on %s\n", crowd_gpu_tier_name(stats.tier), info.version);
}

static int render(const options *opt, render_job *s) {
    crowd_error error;
    crowd_logger log = logger();
    host_context_desc context = {.logger = log, .api = opt->context};
    if (host_context_create(&context, &s->context, &error) != CROWD_OK) {
        return cli_report(&error);
    }
    crowd_world_desc world = stage_world_desc(opt->count, log);
    world.tier = opt->tier;
    crowd_gpu_mode wanted[CAST_MAX_CHARACTERS];
    for (uint32_t r = 0; r < opt->input_count; r++) {
        wanted[r] = opt->mode_given                      ? opt->mode
                    : scene_is_bake_path(opt->inputs[r]) ? CROWD_GPU_MODE_VAT
                                                         : CROWD_GPU_MODE_GPU;
    }
    if (crowd_world_create(&world, &s->world, &error) != CROWD_OK ||
        cast_add_archetypes(&s->cast, s->world, wanted, &error) != CROWD_OK) {
        return cli_report(&error);
    }
    int code = add_instances(opt, s);
    if (code >= 0) {
        return code;
    }
    if (host_target_resize(&s->target, opt->width, opt->height, &error) != CROWD_OK ||
        stage_create(s->context, opt->ground, opt->shadows, &s->stage, &error) != CROWD_OK) {
        return cli_report(&error);
    }
    crowd_camera camera = {0};
    if (opt->auto_camera) {
        float min[3], max[3];
        crowd_world_instance_bounds(s->world, min, max);
        crowd_camera_frame_box(min, max, (float)opt->width / (float)opt->height, &camera);
    } else {
        memcpy(camera.eye, opt->camera, 3 * sizeof(float));
        memcpy(camera.target, opt->camera + 3, 3 * sizeof(float));
    }
    for (int pass = 0; pass < 2; pass++) {
        if (stage_frame(&s->stage, s->world, &s->target, &camera, opt->time_s, true, &s->timing,
                        &error) != CROWD_OK) {
            return cli_report(&error);
        }
    }
    size_t bytes = (size_t)opt->width * opt->height * 4;
    s->pixels = malloc(bytes);
    if (s->pixels == NULL) {
        return cli_fail(CLI_EXIT_INPUT, "out of memory for a %ux%u image", (unsigned)opt->width,
                        (unsigned)opt->height);
    }
    if (host_target_read_rgba(&s->target, s->pixels, bytes, &error) != CROWD_OK ||
        host_write_png(opt->output, opt->width, opt->height, s->pixels, &error) != CROWD_OK) {
        return cli_report(&error);
    }
    print_summary(opt, s);
    return CLI_EXIT_OK;
}

int cmd_render(int argc, char **argv) {
    options opt;
    int code = parse_args(argc, argv, &opt);
    if (code >= 0) {
        return code;
    }
    /* A model is baked in memory only when bat or vat is asked for. */
    bool bake =
        opt.mode_given && (opt.mode == CROWD_GPU_MODE_BAT || opt.mode == CROWD_GPU_MODE_VAT);
    crowd_logger log = logger();
    render_job s = {0};
    crowd_error error;
    if (cast_load(&s.cast, opt.inputs, opt.input_count, bake, &log, &error) != CROWD_OK) {
        return cli_report(&error);
    }
    code = render(&opt, &s);
    render_job_free(&s);
    return code;
}
