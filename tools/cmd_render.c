/* cmd_render.c - `crowd render MODEL|DIR -o OUT.png`: a grid (or, with
 * --seed, a field of random clips and phases) of instances drawn headless in
 * one playback mode, written as a PNG, with the frame's draw calls and times.
 *
 * A model file plays in every mode (bat and vat bake it in memory first); a
 * bake folder plays in static, bat and vat. Timings are those of a second,
 * identical frame, so shader compilation and first-use costs are left out.
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
#include "crowd/bake.h"
#include "crowd/gpu.h"
#include "crowd/import.h"
#include "scene.h"

static const char usage[] =
    "usage: crowd render MODEL|DIR -o OUT.png [options]\n"
    "  MODEL|DIR              a model file, builtin:, or a bake folder (or its .crowd.json)\n"
    "  -o, --output FILE      PNG to write\n"
    "  --mode M               static, cpu, gpu, bat or vat (default: gpu for a model,\n"
    "                         vat for a bake folder)\n"
    "  --count N              instances, 1..65536 (default 1)\n"
    "  --size WxH             image size, each side 1..16384 (default 640x480)\n"
    "  --time S               global time in seconds (default 0.5)\n"
    "  --clip NAME            clip every instance plays (default the first)\n"
    "  --seed N               random clips (unless --clip), phases and headings\n"
    "  --camera auto|x,y,z,tx,ty,tz   eye and target (default auto: frame the crowd)\n"
    "  --no-ground            leave out the ground plane\n"
    "  --verbose              print debug messages too\n";

typedef struct options {
    const char *input;
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
    bool ground;
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
    static const char *const with_value[] = {"-o",     "--output", "--mode", "--count",  "--size",
                                             "--time", "--clip",   "--seed", "--camera", NULL};
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
        if (!cli_parse_int("--count", value, 1, CROWD_RENDERER_DEFAULT_MAX_INSTANCES, &number)) {
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
        } else if (strcmp(arg, "--verbose") == 0) {
            cli_verbose = true;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            int code = parse_option(argc, argv, &i, opt);
            if (code >= 0) {
                return code;
            }
        } else if (opt->input == NULL) {
            opt->input = arg;
        } else {
            return cli_fail(CLI_EXIT_USAGE, "unexpected argument '%s'\n%s", arg, usage);
        }
    }
    if (opt->input == NULL || opt->output == NULL) {
        return cli_fail(CLI_EXIT_USAGE, "render needs MODEL|DIR and -o OUT.png\n%s", usage);
    }
    return -1;
}

typedef struct render_job {
    crowd_asset *asset; /* loaded model (NULL for a bake folder) */
    crowd_bake *bake;   /* built in memory or loaded */
    crowd_gpu_context *context;
    crowd_renderer *renderer;
    uint8_t *pixels;
} render_job;

static void render_job_free(render_job *s) {
    free(s->pixels);
    crowd_renderer_destroy(s->renderer);
    crowd_gpu_context_destroy(s->context);
    crowd_bake_destroy(s->bake);
    crowd_asset_destroy(s->asset);
}

static crowd_logger logger(void) {
    return (crowd_logger){.fn = cli_log_stderr, .user = NULL};
}

/* Loads the input; a model is baked in memory only for bat and vat. */
static int load_input(const options *opt, render_job *s) {
    crowd_error error;
    crowd_logger log = logger();
    if (scene_is_bake_path(opt->input)) {
        if (crowd_bake_load(opt->input, &log, &s->bake, &error) != CROWD_OK) {
            return cli_report(&error);
        }
        return -1;
    }
    crowd_import_desc import = {.logger = log};
    if (crowd_model_load(opt->input, &import, &s->asset, &error) != CROWD_OK) {
        return cli_report(&error);
    }
    if (opt->mode == CROWD_GPU_MODE_BAT || opt->mode == CROWD_GPU_MODE_VAT) {
        crowd_bake_desc desc = {.logger = log};
        if (crowd_bake_build(s->asset, &desc, &s->bake, &error) != CROWD_OK) {
            return cli_report(&error);
        }
    }
    return -1;
}

/* Instances on a square grid, spaced by the character's height (a bind
 * pose's arms, a T-pose, make its footprint a poor guide). */
static int add_instances(const options *opt, render_job *s) {
    crowd_renderer *r = s->renderer;
    uint32_t clip_count = crowd_renderer_clip_count(r);
    uint32_t clip = 0;
    if (opt->clip != NULL) {
        int32_t found = crowd_renderer_find_clip(r, opt->clip);
        if (found < 0) {
            fprintf(stderr, "crowd: error: %s: no clip named '%s'; clips:", opt->input, opt->clip);
            for (uint32_t c = 0; c < clip_count; c++) {
                crowd_renderer_clip info;
                crowd_renderer_get_clip(r, c, &info);
                fprintf(stderr, " %s", info.name);
            }
            fputc('\n', stderr);
            return CLI_EXIT_USAGE;
        }
        clip = (uint32_t)found;
    }
    float min[3], max[3];
    crowd_renderer_bind_bounds(r, min, max);
    float height = max[1] - min[1];
    float footprint = fminf(max[0] - min[0], max[2] - min[2]);
    float spacing = height > 0.0f ? 0.8f * height : 1.5f * footprint;
    spacing = spacing > 0.0f ? spacing : 1.0f;
    uint32_t columns = (uint32_t)ceil(sqrt((double)opt->count));
    uint32_t rows = (opt->count + columns - 1) / columns;
    uint64_t random = opt->seed;
    for (uint32_t i = 0; i < opt->count; i++) {
        crowd_instance_desc desc = {0};
        desc.position[0] = ((float)(i % columns) - 0.5f * (float)(columns - 1)) * spacing;
        desc.position[2] = ((float)(i / columns) - 0.5f * (float)(rows - 1)) * spacing;
        desc.clip = clip;
        if (opt->seeded) {
            if (opt->clip == NULL && clip_count > 0) {
                desc.clip = (uint32_t)(scene_random_u64(&random) % clip_count);
            }
            crowd_renderer_clip info = {0};
            crowd_renderer_get_clip(r, desc.clip, &info);
            desc.time_offset_s = scene_random_unit(&random) * info.duration_s;
            desc.speed = 0.8f + 0.4f * scene_random_unit(&random);
            desc.heading_rad = (scene_random_unit(&random) - 0.5f) * 1.2f;
            desc.position[0] += (scene_random_unit(&random) - 0.5f) * 0.3f * spacing;
            desc.position[2] += (scene_random_unit(&random) - 0.5f) * 0.3f * spacing;
        }
        crowd_instance_id id;
        crowd_error error;
        if (crowd_instance_add(r, &desc, &id, &error) != CROWD_OK) {
            return cli_report(&error);
        }
    }
    return -1;
}

static void print_summary(const options *opt, const render_job *s) {
    crowd_renderer_stats stats;
    crowd_renderer_get_stats(s->renderer, &stats);
    crowd_gpu_context_info info;
    crowd_gpu_context_get_info(s->context, &info);
    printf("wrote %s: %ux%u, %u instances, mode %s, time %.3f s\n", opt->output,
           (unsigned)opt->width, (unsigned)opt->height, (unsigned)stats.instance_count,
           crowd_gpu_mode_name(stats.mode), opt->time_s);
    printf("draw calls        %u%s\n", (unsigned)stats.draw_calls,
           stats.extra_draw_calls > 0 ? " (+1 ground)" : "");
    printf("frame time        %.3f ms (until the GPU finished)\n", stats.frame_time_s * 1e3);
    printf("application CPU   %.3f ms (thread CPU time, without the GPU wait%s)\n",
           stats.cpu_time_s * 1e3, info.software ? "; includes llvmpipe's vertex shading" : "");
    printf("  animation       %.3f ms (sampling, blending, skinning on the CPU)\n",
           stats.cpu_animation_time_s * 1e3);
    printf("uploaded          %llu bytes\n", (unsigned long long)stats.uploaded_bytes);
    printf("GPU memory        %.2f MiB\n", (double)stats.gpu_memory_bytes / (1024.0 * 1024.0));
    printf("renderer          %s (%s)\n", info.renderer, info.platform);
}

static int render(const options *opt, render_job *s) {
    crowd_error error;
    if (crowd_gpu_context_create(NULL, &s->context, &error) != CROWD_OK) {
        return cli_report(&error);
    }
    crowd_renderer_desc desc = {.context = s->context,
                                .asset = s->asset,
                                .bake = s->bake,
                                .max_instances = opt->count,
                                .width = opt->width,
                                .height = opt->height,
                                .logger = logger()};
    if (crowd_renderer_create(&desc, &s->renderer, &error) != CROWD_OK) {
        return cli_report(&error);
    }
    if (crowd_renderer_set_mode(s->renderer, opt->mode, &error) != CROWD_OK) {
        return cli_report(&error);
    }
    int code = add_instances(opt, s);
    if (code >= 0) {
        return code;
    }
    crowd_frame_desc frame = {.time_s = opt->time_s, .ground = opt->ground};
    if (opt->auto_camera) {
        float min[3], max[3];
        crowd_renderer_instance_bounds(s->renderer, min, max);
        crowd_camera_frame_box(min, max, (float)opt->width / (float)opt->height, &frame.camera);
    } else {
        memcpy(frame.camera.eye, opt->camera, 3 * sizeof(float));
        memcpy(frame.camera.target, opt->camera + 3, 3 * sizeof(float));
    }
    for (int pass = 0; pass < 2; pass++) {
        if (crowd_renderer_draw(s->renderer, &frame, &error) != CROWD_OK) {
            return cli_report(&error);
        }
    }
    size_t bytes = (size_t)opt->width * opt->height * 4;
    s->pixels = malloc(bytes);
    if (s->pixels == NULL) {
        return cli_fail(CLI_EXIT_INPUT, "out of memory for a %ux%u image", (unsigned)opt->width,
                        (unsigned)opt->height);
    }
    if (crowd_renderer_read_pixels(s->renderer, s->pixels, bytes, &error) != CROWD_OK ||
        crowd_image_write_png(opt->output, opt->width, opt->height, s->pixels, &error) !=
            CROWD_OK) {
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
    if (!opt.mode_given) {
        opt.mode = scene_is_bake_path(opt.input) ? CROWD_GPU_MODE_VAT : CROWD_GPU_MODE_GPU;
    }
    render_job s = {0};
    code = load_input(&opt, &s);
    if (code < 0) {
        code = render(&opt, &s);
    }
    render_job_free(&s);
    return code;
}
