/* cmd_play.c - `crowd play MODEL|DIR`: the crowd in a window.
 *
 * Keys: 1-5 pick a mode (static cpu gpu bat vat), M the next one; + and -
 * double or halve the crowd; space pauses; C sends everyone to another clip
 * with a crossfade; arrows (or WASD) and a left-button drag orbit the camera,
 * the wheel zooms; Escape quits. The title bar reads mode, crowd size, frame
 * time, the application's CPU time per frame and draw calls.
 *
 * --frames N stops after N frames and --screenshot FILE writes the last one,
 * --keys STRING types keys, one per frame: together they let a script (or a
 * test under Xvfb) drive the window.
 *
 * Exit codes: 1 malformed command line; 2 unreadable model or bake; 4 the
 * screenshot cannot be written; 5 no window or GL context, or a GL failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "scene.h"

static const char usage[] =
    "usage: crowd play MODEL|DIR [options]\n"
    "  MODEL|DIR          a model file, builtin:, or a bake folder (static, bat, vat)\n"
    "  --count N          characters at the start (default 100 on a software renderer, else 2000)\n"
    "  --mode M           static, cpu, gpu, bat or vat (default vat)\n"
    "  --size WxH         window size (default 1280x720)\n"
    "  --seed N           crowd layout, clips and phases (default 1)\n"
    "  --frames N         quit after N frames\n"
    "  --screenshot FILE  write the last frame as a PNG when quitting\n"
    "  --keys STRING      type these keys, one per frame, from the first frame\n"
    "  --no-gl-thread     leave Mesa's GL driver thread off\n"
    "  --verbose          also print the library's informational messages\n"
    "keys: 1-5 mode, M next mode, + / - crowd size x2 / /2, space pause, C change clips,\n"
    "      arrows or WASD or left drag orbit, wheel zoom, Escape quit\n";

#define PI_F 3.14159265f

typedef struct options {
    const char *model;
    const char *screenshot;
    const char *keys;
    long count, frames, seed;
    uint32_t width, height;
    crowd_gpu_mode mode;
    bool mode_given, gl_thread;
} options;

typedef struct player {
    crowd_gpu_context *context;
    crowd_renderer *renderer;
    const options *options;
    crowd_instance_id *ids;
    uint32_t *clips; /* clip each instance plays now */
    uint32_t count, max_count;
    uint64_t clip_state; /* generator for "change clips" */
    double time_s;       /* crowd clock: stops while paused */
    bool paused;
    float yaw_rad, pitch_rad, zoom;
    crowd_frame_desc frame;
    bool camera_dirty;
    double frame_ms_smoothed, cpu_ms_smoothed;
    char message[128]; /* last notice for the title, e.g. an unplayable mode */
} player;

static int parse(int argc, char **argv, options *o) {
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        static const char *const with_value[] = {"--count",  "--mode",       "--size", "--seed",
                                                 "--frames", "--screenshot", "--keys", NULL};
        if (cli_arg_in(arg, with_value) && (value = cli_option_value(argc, argv, &i)) == NULL) {
            return CLI_EXIT_USAGE;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(arg, "--count") == 0) {
            if (!cli_parse_int(arg, value, 1, CROWD_RENDERER_DEFAULT_MAX_INSTANCES, &o->count)) {
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--mode") == 0) {
            if (!crowd_gpu_mode_parse(value, &o->mode)) {
                return cli_fail(CLI_EXIT_USAGE,
                                "--mode: unknown mode '%s' (static, cpu, gpu, bat, vat)", value);
            }
            o->mode_given = true;
        } else if (strcmp(arg, "--size") == 0) {
            if (!cli_parse_size(arg, value, &o->width, &o->height)) {
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--seed") == 0) {
            if (!cli_parse_int(arg, value, 0, 2147483647L, &o->seed)) {
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--frames") == 0) {
            if (!cli_parse_int(arg, value, 1, 100000000L, &o->frames)) {
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--screenshot") == 0) {
            o->screenshot = value;
        } else if (strcmp(arg, "--keys") == 0) {
            o->keys = value;
        } else if (strcmp(arg, "--no-gl-thread") == 0) {
            o->gl_thread = false;
        } else if (strcmp(arg, "--verbose") == 0) {
            cli_verbose = true;
        } else {
            int code = cli_model_argument("play", arg, &o->model);
            if (code >= 0) {
                return code;
            }
        }
    }
    if (o->model == NULL) {
        return cli_fail(CLI_EXIT_USAGE,
                        "play: no MODEL given (try builtin:, or see crowd play --help)");
    }
    return -1;
}

/* Grows or shrinks the crowd to `count`, remembering each newcomer's clip. */
static crowd_result set_count(player *p, uint32_t count, crowd_error *error) {
    count = count < 1 ? 1 : count > p->max_count ? p->max_count : count;
    uint64_t seed = (uint64_t)p->options->seed;
    crowd_result result = scene_populate(p->renderer, seed, count, p->ids, error);
    for (uint32_t i = p->count; result == CROWD_OK && i < count; i++) {
        crowd_instance_desc desc;
        scene_instance_desc(p->renderer, seed, i, &desc);
        p->clips[i] = desc.clip;
    }
    if (result == CROWD_OK) {
        p->count = count;
        p->camera_dirty = true;
    }
    return result;
}

static crowd_result change_clips(player *p, crowd_error *error) {
    for (uint32_t i = 0; i < p->count; i++) {
        uint32_t clip = scene_pick_clip(p->renderer, &p->clip_state, p->clips[i]);
        crowd_result result = crowd_instance_play(p->renderer, p->ids[i], clip, 0.4f, error);
        if (result != CROWD_OK) {
            return result;
        }
        p->clips[i] = clip;
    }
    return CROWD_OK;
}

static crowd_result set_mode(player *p, crowd_gpu_mode mode, crowd_error *error) {
    if (!crowd_renderer_has_mode(p->renderer, mode)) {
        snprintf(p->message, sizeof p->message, "%s needs a model file, not a bake folder",
                 crowd_gpu_mode_name(mode));
        return CROWD_OK;
    }
    p->message[0] = '\0';
    return crowd_renderer_set_mode(p->renderer, mode, error);
}

/* One typed key. */
static crowd_result on_key(player *p, uint32_t key, crowd_error *error) {
    if (key >= '1' && key <= '5') {
        return set_mode(p, (crowd_gpu_mode)(key - '1'), error);
    }
    switch (key) {
    case 'm':
    case 'M': {
        crowd_gpu_mode mode = crowd_renderer_mode(p->renderer);
        for (int step = 1; step < CROWD_GPU_MODE_COUNT; step++) {
            crowd_gpu_mode next = (crowd_gpu_mode)((mode + step) % CROWD_GPU_MODE_COUNT);
            if (crowd_renderer_has_mode(p->renderer, next)) {
                return set_mode(p, next, error);
            }
        }
        return CROWD_OK;
    }
    case '+':
    case '=':
        return set_count(p, p->count * 2, error);
    case '-':
    case '_':
        return set_count(p, p->count / 2, error);
    case ' ':
        p->paused = !p->paused;
        return CROWD_OK;
    case 'c':
    case 'C':
        return change_clips(p, error);
    default:
        return CROWD_OK;
    }
}

static void orbit(player *p, const crowd_window_input *in, double dt_s) {
    float step = (float)(1.5 * dt_s);
    float yaw = p->yaw_rad, pitch = p->pitch_rad, zoom = p->zoom;
    yaw += (in->key_right ? step : 0.0f) - (in->key_left ? step : 0.0f);
    pitch += (in->key_up ? step : 0.0f) - (in->key_down ? step : 0.0f);
    if (in->mouse_left) {
        yaw -= (float)in->cursor_dx * 0.006f;
        pitch += (float)in->cursor_dy * 0.006f;
    }
    zoom *= powf(0.9f, (float)in->scroll_y);
    p->pitch_rad = fminf(fmaxf(pitch, 0.05f), 1.5f);
    p->zoom = fminf(fmaxf(zoom, 0.1f), 10.0f);
    p->yaw_rad = fmodf(yaw, 2.0f * PI_F);
    if (p->yaw_rad != yaw || p->pitch_rad != pitch || p->zoom != zoom || in->key_left ||
        in->key_right || in->key_up || in->key_down || in->mouse_left || in->scroll_y != 0.0) {
        p->camera_dirty = true;
    }
}

static void update_title(player *p) {
    crowd_renderer_stats stats;
    crowd_renderer_get_stats(p->renderer, &stats);
    char title[256];
    snprintf(title, sizeof title,
             "crowd play: %s | %s | %u characters | %.1f ms/frame | app CPU %.2f ms | %u draw "
             "call%s%s%s%s",
             p->options->model, crowd_gpu_mode_name(stats.mode), (unsigned)p->count,
             p->frame_ms_smoothed, p->cpu_ms_smoothed, (unsigned)stats.draw_calls,
             stats.draw_calls == 1 ? "" : "s", p->paused ? " | paused" : "",
             p->message[0] != '\0' ? " | " : "", p->message);
    crowd_gpu_window_set_title(p->context, title);
}

/* Matches the offscreen target to the window and reframes when needed. */
static crowd_result fit_window(player *p, crowd_error *error) {
    uint32_t width, height, target_width, target_height;
    crowd_gpu_window_size(p->context, &width, &height);
    crowd_renderer_size(p->renderer, &target_width, &target_height);
    if (width > 0 && height > 0 && (width != target_width || height != target_height)) {
        crowd_result result = crowd_renderer_resize(p->renderer, width, height, error);
        if (result != CROWD_OK) {
            return result;
        }
        p->camera_dirty = true;
    }
    if (p->camera_dirty) {
        crowd_renderer_size(p->renderer, &target_width, &target_height);
        scene_camera(p->renderer, (float)target_width / (float)target_height, p->yaw_rad,
                     p->pitch_rad, p->zoom, &p->frame.camera);
        p->camera_dirty = false;
    }
    return CROWD_OK;
}

static crowd_result frame(player *p, double dt_s, long index, bool *quit, crowd_error *error) {
    crowd_window_input in;
    crowd_gpu_window_poll(p->context, &in);
    crowd_result result = CROWD_OK;
    for (uint32_t k = 0; result == CROWD_OK && k < in.char_count; k++) {
        result = on_key(p, in.chars[k], error);
    }
    const char *keys = p->options->keys;
    if (result == CROWD_OK && keys != NULL && index < (long)strlen(keys)) {
        result = on_key(p, (unsigned char)keys[index], error);
    }
    orbit(p, &in, dt_s);
    if (result == CROWD_OK) {
        result = fit_window(p, error);
    }
    if (!p->paused) {
        p->time_s += dt_s;
    }
    p->frame.time_s = p->time_s;
    if (result == CROWD_OK) {
        result = crowd_renderer_draw(p->renderer, &p->frame, error);
    }
    if (result == CROWD_OK) {
        result = crowd_renderer_present(p->renderer, error);
    }
    if (result == CROWD_OK) {
        crowd_gpu_window_swap(p->context);
        crowd_renderer_stats stats;
        crowd_renderer_get_stats(p->renderer, &stats);
        double a = p->frame_ms_smoothed > 0.0 ? 0.1 : 1.0;
        p->frame_ms_smoothed += a * (stats.frame_time_s * 1e3 - p->frame_ms_smoothed);
        p->cpu_ms_smoothed += a * (stats.cpu_time_s * 1e3 - p->cpu_ms_smoothed);
    }
    *quit = in.close_requested;
    return result;
}

static crowd_result screenshot(player *p, const char *path, crowd_error *error) {
    uint32_t width, height;
    crowd_renderer_size(p->renderer, &width, &height);
    size_t size = (size_t)width * height * 4;
    uint8_t *pixels = malloc(size);
    if (pixels == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
    }
    crowd_result result = crowd_renderer_read_pixels(p->renderer, pixels, size, error);
    if (result == CROWD_OK) {
        result = crowd_image_write_png(path, width, height, pixels, error);
    }
    free(pixels);
    return result;
}

static crowd_result play(player *p, crowd_error *error) {
    const options *o = p->options;
    double last = cli_wall_s(), last_title = 0.0;
    bool quit = false;
    crowd_result result = CROWD_OK;
    for (long index = 0; result == CROWD_OK && !quit && (o->frames == 0 || index < o->frames);
         index++) {
        double now = cli_wall_s();
        result = frame(p, index == 0 ? 0.0 : now - last, index, &quit, error);
        last = now;
        if (result == CROWD_OK && now - last_title > 0.25) {
            update_title(p);
            last_title = now;
        }
    }
    if (result == CROWD_OK && o->screenshot != NULL) {
        result = screenshot(p, o->screenshot, error);
    }
    return result;
}

static int run(const options *o) {
    scene_gl_thread_setup(o->gl_thread);
    crowd_logger logger = {scene_log, NULL};
    crowd_error error = {0};
    scene_character character;
    if (scene_character_load(o->model, &logger, &character, &error) != CROWD_OK) {
        return cli_report(&error);
    }
    player p = {.options = o,
                .yaw_rad = 0.35f,
                .pitch_rad = 0.45f,
                .zoom = 1.0f,
                .clip_state = (uint64_t)o->seed + 0x5EED,
                .camera_dirty = true,
                .frame = {.ground = true}};
    crowd_gpu_context_desc desc = {
        .window = true,
        .width = o->width,
        .height = o->height,
        .title = "crowd play",
        .vsync = true,
        .logger = logger,
    };
    crowd_result result = scene_context_create(&desc, &p.context, &error);
    crowd_gpu_mode mode = o->mode;
    if (result == CROWD_OK && !o->mode_given) {
        mode = scene_character_has_mode(&character, CROWD_GPU_MODE_VAT) ? CROWD_GPU_MODE_VAT
                                                                        : CROWD_GPU_MODE_STATIC;
    } else if (result == CROWD_OK && !scene_character_has_mode(&character, mode)) {
        result = crowd_error_set(&error, CROWD_ERROR_UNSUPPORTED, o->model,
                                 "cannot play mode '%s' (cpu and gpu need a model file or "
                                 "builtin:, not a bake folder)",
                                 crowd_gpu_mode_name(mode));
    }
    if (result == CROWD_OK) {
        uint32_t width, height;
        crowd_gpu_window_size(p.context, &width, &height);
        p.max_count = CROWD_RENDERER_DEFAULT_MAX_INSTANCES;
        result = scene_renderer_create(p.context, &character, mode, p.max_count, width, height,
                                       &p.renderer, &error);
    }
    if (result == CROWD_OK) {
        p.ids = calloc(p.max_count, sizeof *p.ids);
        p.clips = calloc(p.max_count, sizeof *p.clips);
        if (p.ids == NULL || p.clips == NULL) {
            result = crowd_error_set(&error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
        }
    }
    if (result == CROWD_OK) {
        crowd_gpu_context_info info;
        crowd_gpu_context_get_info(p.context, &info);
        uint32_t count = o->count > 0 ? (uint32_t)o->count : info.software ? 100 : 2000;
        result = set_count(&p, count, &error);
    }
    if (result == CROWD_OK) {
        result = play(&p, &error);
    }
    int code = result == CROWD_OK ? CLI_EXIT_OK : cli_report(&error);
    free(p.ids);
    free(p.clips);
    crowd_renderer_destroy(p.renderer);
    crowd_gpu_context_destroy(p.context);
    scene_character_release(&character);
    return code;
}

int cmd_play(int argc, char **argv) {
    options o = {.gl_thread = true, .seed = 1, .width = 1280, .height = 720};
    int code = parse(argc, argv, &o);
    return code >= 0 ? code : run(&o);
}
