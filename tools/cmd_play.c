/* cmd_play.c - `crowd play MODEL|DIR...`: the crowd in a window.
 *
 * Each MODEL|DIR is one archetype of the world (a mixed crowd with several,
 * cast.h); --shadows adds the shadow map. Keys: 1-5 pick a mode (static cpu
 * gpu bat vat) for every archetype (each plays the nearest it has), M the
 * next one; + and - double or halve the crowd; space pauses; C sends
 * everyone to another clip with a crossfade; L tints each character by the
 * LOD it is drawn at (culling and LODs are on); R turns root motion on and
 * off (on: characters whose bake has it, `crowd bake --root-motion
 * extract`, are moved each frame by crowd_instance_root_motion, as a game
 * would, and put back where they started 8 m on); B puts everyone on
 * their archetype's locomotion blend (its travelling loops ordered by
 * ground speed, locomotion.h) at a ground speed that [ and ] lower and
 * raise by 0.25 m/s (crowd_instance_set_ground_speed: one record write per
 * character), each character walking forward at it, a little faster or
 * slower than the next; P takes the props of --prop SOCKET=FILE (carried
 * at run time, mixed over the crowd: play_props.h) off and puts them back;
 * arrows (or WASD) and a
 * left-button drag orbit the camera, the wheel zooms; Escape quits. The
 * title bar reads mode, crowd size, wall time per frame, the application's
 * CPU time per frame (update and draws, the GPU not waited for) and draw
 * calls.
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

#include "cast.h"
#include "cli.h"
#include "host.h"
#include "locomotion.h"
#include "play_props.h"
#include "scene.h"
#include "stage.h"

static const char usage[] =
    "usage: crowd play MODEL|DIR... [options]\n"
    "  MODEL|DIR          a model file, builtin:, or a bake folder;\n"
    "                     several make a mixed crowd, one archetype each\n"
    "  --count N          characters at the start (default 100 on a software renderer, else 2000)\n"
    "  --mode M           static, cpu, gpu, bat or vat (default vat)\n"
    "  --size WxH         window size (default 1280x720)\n"
    "  --seed N           crowd layout, clips and phases (default 1)\n"
    "  --frames N         quit after N frames\n"
    "  --screenshot FILE  write the last frame as a PNG when quitting\n"
    "  --keys STRING      type these keys, one per frame, from the first frame\n"
    "  --shadows          the crowd casts shadows onto the ground (a shadow map)\n"
    "  --prop SOCKET=FILE a prop the characters with that socket carry, mixed over the\n"
    "                     crowd (some carry none); repeatable, up to 8\n"
    "  --tier T           auto (default), gl45 or portable (crowd_world_desc.tier)\n"
    "  --context C        gl45 (default), gl33 or gles3: the window's OpenGL context;\n"
    "                     the ground and shadows are GL 4.5 code, left out on the others\n"
    "  --no-gl-thread     leave Mesa's GL driver thread off\n"
    "  --verbose          also print the library's informational messages\n"
    "keys: 1-5 mode, M next mode, + / - crowd size x2 / /2, space pause, C change clips,\n"
    "      L tint characters by LOD, P props on/off, R root motion on/off (default on: characters "
    "of a bake\n"
    "      made with --root-motion extract walk across the ground by it, and go back to\n"
    "      their place when they get 8 m away), B blend by speed on/off (walk, run: the\n"
    "      clips that travel), [ / ] that ground speed -/+ 0.25 m/s,\n"
    "      arrows or WASD or left drag orbit, wheel zoom, Escape quit\n";

#define PI_F 3.14159265f

typedef struct options {
    const char *models[CAST_MAX_CHARACTERS];
    uint32_t model_count;
    const char *screenshot;
    const char *keys;
    long count, frames, seed;
    uint32_t width, height;
    crowd_gpu_mode mode;
    bool mode_given, gl_thread, shadows;
    crowd_gpu_tier tier;
    host_context_api context;
    props props; /* the --prop values (loaded by run) */
} options;

/* An instance's placement, which root motion changes frame by frame. */
typedef struct walker {
    float home[3], position[3];
    float heading_rad, scale;
} walker;

/* How far root motion takes a character before it is put back. */
#define WANDER_M 8.0f

typedef struct player {
    host_context *context;
    crowd_world *world;
    host_target target;
    stage stage;
    cast *cast;
    const options *options;
    crowd_instance *ids;
    uint32_t *clips; /* clip each instance plays now */
    uint32_t count, max_count;
    uint64_t clip_state; /* generator for "change clips" */
    double time_s;       /* crowd clock: stops while paused */
    bool paused;
    float yaw_rad, pitch_rad, zoom;
    crowd_camera camera;
    bool camera_dirty;
    double frame_ms_smoothed, cpu_ms_smoothed;
    char message[128]; /* last notice for the title, e.g. an unplayable mode */
    walker *walkers;   /* where each instance stands, moved by root motion */
    bool root_motion;  /* R: move the characters by their clips' root motion */
    /* B: per archetype its locomotion blend (declared at the first B), and
     * the crowd's ground speed, m/s (each character's a spread around it). */
    locomotion locomotions[CAST_MAX_CHARACTERS];
    bool locomotion_declared, blending;
    float ground_speed;
    props props; /* --prop, loaded */
} player;

static int parse(int argc, char **argv, options *o) {
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        static const char *const with_value[] = {"--count",   "--mode",       "--size", "--seed",
                                                 "--frames",  "--screenshot", "--keys", "--tier",
                                                 "--context", "--prop",       NULL};
        if (cli_arg_in(arg, with_value) && (value = cli_option_value(argc, argv, &i)) == NULL) {
            return CLI_EXIT_USAGE;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(arg, "--count") == 0) {
            if (!cli_parse_int(arg, value, 1, CROWD_WORLD_DEFAULT_MAX_INSTANCES, &o->count)) {
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
        } else if (strcmp(arg, "--prop") == 0) {
            if (!props_option(&o->props, value)) {
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--no-gl-thread") == 0) {
            o->gl_thread = false;
        } else if (strcmp(arg, "--shadows") == 0) {
            o->shadows = true;
        } else if (strcmp(arg, "--tier") == 0) {
            if (!scene_parse_tier(arg, value, &o->tier)) {
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--context") == 0) {
            if (!scene_parse_context(arg, value, &o->context)) {
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--verbose") == 0) {
            cli_verbose = true;
        } else {
            int code =
                cli_model_argument("play", arg, o->models, &o->model_count, CAST_MAX_CHARACTERS);
            if (code >= 0) {
                return code;
            }
        }
    }
    if (o->model_count == 0) {
        return cli_fail(CLI_EXIT_USAGE,
                        "play: no MODEL given (try builtin:, or see crowd play --help)");
    }
    if (o->shadows && o->context != HOST_CONTEXT_GL45) {
        return cli_fail(CLI_EXIT_USAGE, "--shadows needs --context gl45");
    }
    return -1;
}

/* Character i's ground speed: the crowd's, spread by +-15 %. */
static float speed_of(const player *p, uint32_t i) {
    float spread = (float)((i * 2654435761u) % 1000u) / 1000.0f;
    return p->ground_speed * (0.85f + 0.3f * spread);
}

static const locomotion *locomotion_of(const player *p, uint32_t i) {
    const locomotion *l = &p->locomotions[i % p->cast->count];
    return l->blend.index != 0 ? l : NULL;
}

/* Puts characters [from, to) on their blend at their speed (0.4 s fade). */
static crowd_result start_blending(player *p, uint32_t from, uint32_t to, crowd_error *error) {
    for (uint32_t i = from; i < to; i++) {
        const locomotion *l = locomotion_of(p, i);
        crowd_result result = CROWD_OK;
        if (l != NULL) {
            result = crowd_instance_play_blend(p->world, p->ids[i], l->blend, speed_of(p, i), 0.4f,
                                               error);
        }
        if (result == CROWD_OK && l != NULL) {
            result = crowd_instance_set_ground_speed(p->world, p->ids[i], speed_of(p, i), error);
        }
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

/* Grows or shrinks the crowd to `count`, remembering each newcomer's clip. */
static crowd_result set_count(player *p, uint32_t count, crowd_error *error) {
    count = count < 1 ? 1 : count > p->max_count ? p->max_count : count;
    uint64_t seed = (uint64_t)p->options->seed;
    const crowd_archetype *archetypes = p->cast->archetypes;
    crowd_result result =
        scene_populate(p->world, archetypes, p->cast->count, seed, count, p->ids, error);
    for (uint32_t i = p->count; result == CROWD_OK && i < count; i++) {
        crowd_instance_desc desc;
        scene_instance_desc(p->world, archetypes, p->cast->count, seed, i, &desc);
        p->clips[i] = desc.clip;
        walker *w = &p->walkers[i];
        memcpy(w->home, desc.position, sizeof w->home);
        memcpy(w->position, desc.position, sizeof w->position);
        w->heading_rad = desc.heading_rad;
        w->scale = desc.scale;
    }
    if (result == CROWD_OK && p->blending && count > p->count) {
        result = start_blending(p, p->count, count, error);
    }
    if (result == CROWD_OK && count > p->count) {
        result = props_dress(&p->props, p->world, p->cast, p->ids, p->count, count, error);
    }
    if (result == CROWD_OK) {
        p->count = count;
        p->camera_dirty = true;
    }
    return result;
}

static crowd_result change_clips(player *p, crowd_error *error) {
    p->blending = false; /* everyone leaves the blend for a clip */
    for (uint32_t i = 0; i < p->count; i++) {
        crowd_archetype archetype = p->cast->archetypes[i % p->cast->count];
        uint32_t clip = scene_pick_clip(p->world, archetype, &p->clip_state, p->clips[i]);
        crowd_result result = crowd_instance_play(p->world, p->ids[i], clip, 0.4f, error);
        if (result != CROWD_OK) {
            return result;
        }
        p->clips[i] = clip;
    }
    return CROWD_OK;
}

/* Whether some character of the crowd plays `mode`. */
/* An archetype of the cast's mode (every one of them is live). */
static crowd_gpu_mode mode_of(const player *p, crowd_archetype archetype) {
    crowd_gpu_mode mode = CROWD_GPU_MODE_COUNT;
    crowd_archetype_get_mode(p->world, archetype, &mode);
    return mode;
}

static bool any_has_mode(const cast *c, crowd_gpu_mode mode) {
    for (uint32_t i = 0; i < c->count; i++) {
        if (scene_character_has_mode(&c->characters[i], mode)) {
            return true;
        }
    }
    return false;
}

static crowd_result set_mode(player *p, crowd_gpu_mode mode, crowd_error *error) {
    if (!any_has_mode(p->cast, mode)) {
        snprintf(p->message, sizeof p->message, "%s %s", crowd_gpu_mode_name(mode),
                 scene_mode_needs(mode));
        return CROWD_OK;
    }
    bool fell_back = false;
    crowd_result result = cast_set_mode(p->cast, p->world, mode, &fell_back, error);
    snprintf(p->message, sizeof p->message, "%s",
             fell_back ? "some characters play the nearest mode they have" : "");
    return result;
}

/* B: on, everyone with a locomotion blend plays it; off, their clips. */
static crowd_result toggle_blending(player *p, crowd_error *error) {
    bool any = false;
    for (uint32_t a = 0; a < p->cast->count; a++) {
        if (!p->locomotion_declared) {
            crowd_result result =
                locomotion_declare(p->world, p->cast->archetypes[a], &p->locomotions[a], error);
            if (result != CROWD_OK) {
                return result;
            }
        }
        any = any || p->locomotions[a].blend.index != 0;
    }
    if (!p->locomotion_declared) {
        for (uint32_t a = 0; a < p->cast->count && p->ground_speed == 0.0f; a++) {
            const locomotion *l = &p->locomotions[a];
            p->ground_speed = l->blend.index != 0 ? 0.5f * (l->slowest + l->fastest) : 0.0f;
        }
        p->locomotion_declared = true;
    }
    if (!any) {
        snprintf(p->message, sizeof p->message, "no character has two clips that travel");
        return CROWD_OK;
    }
    p->blending = !p->blending;
    snprintf(p->message, sizeof p->message, "blend by speed %s, %.2f m/s",
             p->blending ? "on" : "off", (double)p->ground_speed);
    if (p->blending) {
        return start_blending(p, 0, p->count, error);
    }
    for (uint32_t i = 0; i < p->count; i++) {
        crowd_result result = crowd_instance_play(p->world, p->ids[i], p->clips[i], 0.4f, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

/* [ and ]: the crowd's ground speed, each blending character matched. */
static crowd_result change_speed(player *p, float by, crowd_error *error) {
    p->ground_speed = fmaxf(0.0f, p->ground_speed + by);
    snprintf(p->message, sizeof p->message, "ground speed %.2f m/s", (double)p->ground_speed);
    for (uint32_t i = 0; p->blending && i < p->count; i++) {
        if (locomotion_of(p, i) != NULL) {
            crowd_result result =
                crowd_instance_set_ground_speed(p->world, p->ids[i], speed_of(p, i), error);
            if (result != CROWD_OK) {
                return result;
            }
        }
    }
    return CROWD_OK;
}

/* One typed key. */
static crowd_result on_key(player *p, uint32_t key, crowd_error *error) {
    if (key >= '1' && key <= '5') {
        return set_mode(p, (crowd_gpu_mode)(key - '1'), error);
    }
    switch (key) {
    case 'm':
    case 'M': {
        crowd_gpu_mode mode = mode_of(p, p->cast->archetypes[0]);
        for (int step = 1; step < CROWD_GPU_MODE_COUNT; step++) {
            crowd_gpu_mode next = (crowd_gpu_mode)((mode + step) % CROWD_GPU_MODE_COUNT);
            if (any_has_mode(p->cast, next)) {
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
    case 'r':
    case 'R':
        p->root_motion = !p->root_motion;
        snprintf(p->message, sizeof p->message, "root motion %s", p->root_motion ? "on" : "off");
        return CROWD_OK;
    case 'l':
    case 'L':
        p->stage.lod_tint = !p->stage.lod_tint;
        return CROWD_OK;
    case 'b':
    case 'B':
        return toggle_blending(p, error);
    case '[':
        return change_speed(p, -0.25f, error);
    case ']':
        return change_speed(p, 0.25f, error);
    case 'p':
    case 'P':
        if (p->props.count == 0) {
            snprintf(p->message, sizeof p->message, "no props (--prop SOCKET=FILE)");
            return CROWD_OK;
        }
        snprintf(p->message, sizeof p->message, "props %s", p->props.on ? "off" : "on");
        return props_set_on(&p->props, p->world, p->cast, p->ids, p->count, !p->props.on, error);
    default:
        return CROWD_OK;
    }
}

static void orbit(player *p, const host_window_input *in, double dt_s) {
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

/* The archetypes' common mode, or "mixed". */
static const char *mode_label(const player *p) {
    crowd_gpu_mode first = mode_of(p, p->cast->archetypes[0]);
    for (uint32_t r = 1; r < p->cast->count; r++) {
        if (mode_of(p, p->cast->archetypes[r]) != first) {
            return "mixed modes";
        }
    }
    return crowd_gpu_mode_name(first);
}

static void update_title(player *p) {
    crowd_world_stats stats;
    crowd_world_get_stats(p->world, &stats);
    char title[256];
    snprintf(title, sizeof title,
             "crowd play: %s%s | %s | %u characters | %.1f ms/frame | app CPU %.2f ms | %u draw "
             "call%s%s%s%s",
             p->options->models[0], p->cast->count > 1 ? " and more" : "", mode_label(p),
             (unsigned)p->count, p->frame_ms_smoothed, p->cpu_ms_smoothed,
             (unsigned)stats.draw_calls, stats.draw_calls == 1 ? "" : "s",
             p->paused ? " | paused" : "", p->message[0] != '\0' ? " | " : "", p->message);
    host_window_set_title(p->context, title);
}

/* Matches the offscreen target to the window and reframes when needed. */
static crowd_result fit_window(player *p, crowd_error *error) {
    uint32_t width, height;
    host_window_size(p->context, &width, &height);
    if (width > 0 && height > 0 && (width != p->target.width || height != p->target.height)) {
        crowd_result result = host_target_resize(&p->target, width, height, error);
        if (result != CROWD_OK) {
            return result;
        }
        p->camera_dirty = true;
    }
    if (p->camera_dirty) {
        scene_camera(p->world, p->cast->archetypes[0],
                     (float)p->target.width / (float)p->target.height, p->yaw_rad, p->pitch_rad,
                     p->zoom, &p->camera);
        p->camera_dirty = false;
    }
    return CROWD_OK;
}

/* Moves every character whose clip has root motion by what it did from
 * from_s to to_s, as a game would; a clip without any (or a bake that kept
 * it in the frames) is left where it stands. */
static crowd_result walk(player *p, double from_s, double to_s, crowd_error *error) {
    for (uint32_t i = 0; i < p->count; i++) {
        float delta[3] = {0.0f, 0.0f, 0.0f}, turn = 0.0f;
        walker *w = &p->walkers[i];
        if (p->blending && locomotion_of(p, i) != NULL) {
            /* forward (+Z turned by the heading) at its ground speed */
            float scale = w->scale == 0.0f ? 1.0f : w->scale;
            float step = scale * speed_of(p, i) * (float)(to_s - from_s);
            delta[0] = step * sinf(w->heading_rad);
            delta[2] = step * cosf(w->heading_rad);
        } else if (!p->root_motion || crowd_instance_root_motion(p->world, p->ids[i], from_s, to_s,
                                                                 delta, &turn, NULL) != CROWD_OK) {
            continue;
        }
        float away = 0.0f;
        for (int a = 0; a < 3; a++) {
            w->position[a] += delta[a];
            away += (w->position[a] - w->home[a]) * (w->position[a] - w->home[a]);
        }
        w->heading_rad = fmodf(w->heading_rad + turn, 2.0f * PI_F);
        if (away > WANDER_M * WANDER_M) {
            memcpy(w->position, w->home, sizeof w->position);
        }
        crowd_result result = crowd_instance_set_transform(p->world, p->ids[i], w->position,
                                                           w->heading_rad, w->scale, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

static crowd_result frame(player *p, double dt_s, long index, bool *quit, crowd_error *error) {
    host_window_input in;
    host_window_poll(p->context, &in);
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
        double before = p->time_s;
        p->time_s += dt_s;
        if (result == CROWD_OK && (p->root_motion || p->blending) && dt_s > 0.0) {
            result = walk(p, before, p->time_s, error);
        }
    }
    stage_timing timing;
    if (result == CROWD_OK) {
        result = stage_frame(&p->stage, p->world, &p->target, &p->camera, p->time_s, false, &timing,
                             error);
    }
    if (result == CROWD_OK) {
        host_target_present(&p->target, p->context);
        host_window_swap(p->context);
        double a = p->frame_ms_smoothed > 0.0 ? 0.1 : 1.0;
        p->frame_ms_smoothed += a * (dt_s * 1e3 - p->frame_ms_smoothed);
        p->cpu_ms_smoothed += a * (timing.cpu_s * 1e3 - p->cpu_ms_smoothed);
    }
    *quit = in.close_requested;
    return result;
}

static crowd_result screenshot(player *p, const char *path, crowd_error *error) {
    size_t size = (size_t)p->target.width * p->target.height * 4;
    uint8_t *pixels = malloc(size);
    if (pixels == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
    }
    crowd_result result = host_target_read_rgba(&p->target, pixels, size, error);
    if (result == CROWD_OK) {
        result = host_write_png(path, p->target.width, p->target.height, pixels, error);
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

/* The world, its archetypes (in --mode, or each in vat or the nearest mode
 * it has), the stage and the starting crowd. */
static crowd_result setup(player *p, crowd_error *error) {
    const options *o = p->options;
    crowd_world_desc desc = stage_world_desc(p->max_count, (crowd_logger){0});
    desc.tier = o->tier;
    crowd_gpu_mode wanted[CAST_MAX_CHARACTERS];
    for (uint32_t r = 0; r < p->cast->count; r++) {
        wanted[r] = o->mode_given ? o->mode
                                  : scene_nearest_mode(&p->cast->characters[r], CROWD_GPU_MODE_VAT);
    }
    crowd_result result = crowd_world_create(&desc, &p->world, error);
    if (result == CROWD_OK) {
        result = cast_add_archetypes(p->cast, p->world, wanted, error);
    }
    if (result == CROWD_OK) {
        result = props_add(&p->props, p->world, p->cast, error);
    }
    if (result == CROWD_OK) {
        /* The ground is the CLI's own GL 4.5 code. */
        result =
            stage_create(p->context, o->context == HOST_CONTEXT_GL45, o->shadows, &p->stage, error);
        p->stage.lods = true;
    }
    if (result == CROWD_OK) {
        p->ids = calloc(p->max_count, sizeof *p->ids);
        p->clips = calloc(p->max_count, sizeof *p->clips);
        p->walkers = calloc(p->max_count, sizeof *p->walkers);
        if (p->ids == NULL || p->clips == NULL || p->walkers == NULL) {
            result = crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
        }
    }
    if (result == CROWD_OK) {
        host_context_info info;
        host_context_get_info(p->context, &info);
        uint32_t count = o->count > 0 ? (uint32_t)o->count : info.software ? 100 : 2000;
        result = set_count(p, count, error);
    }
    return result;
}

static int run(const options *o) {
    scene_gl_thread_setup(o->gl_thread);
    crowd_logger logger = {scene_log, NULL};
    crowd_error error = {0};
    cast characters;
    if (cast_load(&characters, o->models, o->model_count, true, &logger, &error) != CROWD_OK) {
        return cli_report(&error);
    }
    props loaded = o->props;
    if (props_load(&loaded, &logger, &error) != CROWD_OK) {
        props_release(&loaded);
        cast_release(&characters);
        return cli_report(&error);
    }
    player p = {.options = o,
                .cast = &characters,
                .max_count = CROWD_WORLD_DEFAULT_MAX_INSTANCES,
                .yaw_rad = 0.35f,
                .pitch_rad = 0.45f,
                .zoom = 1.0f,
                .clip_state = (uint64_t)o->seed + 0x5EED,
                .camera_dirty = true,
                .root_motion = true,
                .props = loaded};
    host_context_desc desc = {
        .window = true,
        .width = o->width,
        .height = o->height,
        .title = "crowd play",
        .vsync = true,
        .api = o->context,
        .logger = logger,
    };
    crowd_result result = scene_context_create(&desc, &p.context, &error);
    if (result == CROWD_OK) {
        result = setup(&p, &error);
    }
    if (result == CROWD_OK) {
        result = play(&p, &error);
    }
    int code = result == CROWD_OK ? CLI_EXIT_OK : cli_report(&error);
    free(p.ids);
    free(p.clips);
    free(p.walkers);
    stage_release(&p.stage);
    host_target_release(&p.target);
    crowd_world_destroy(p.world);
    host_context_destroy(p.context);
    cast_release(&characters);
    props_release(&p.props);
    return code;
}

int cmd_play(int argc, char **argv) {
    options o = {.gl_thread = true, .seed = 1, .width = 1280, .height = 720};
    int code = parse(argc, argv, &o);
    return code >= 0 ? code : run(&o);
}
