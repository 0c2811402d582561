/* player.c - crowd's WebGL2 player: crowd_runtime compiled to WebAssembly
 * draws a bake folder on a page's canvas (web/player.html; web/player.js
 * fetches the folder into emscripten's file system, reads the page's URL
 * and calls the functions below, marked EMSCRIPTEN_KEEPALIVE).
 *
 * The scene is `crowd render`'s: the same instance layout (tools/
 * render_layout.c, compiled into this program), the same automatic camera
 * (crowd_camera_frame_box of the instances' bounds), light, sky and LOD0
 * drawing, so a paused page and `crowd render --mode vat|bat --no-ground`
 * draw the same picture (tests/browser/test_web_player.mjs compares them).
 * On top: an orbit camera and a crossfade of every character to another
 * clip.
 *
 * Frames: player_frame(time) updates and draws; the main thread's part
 * (update + GL submission) is timed apart from the GPU's, which a bench
 * frame waits for with a 1-pixel glReadPixels after the draws.
 *
 * Errors: every failing call returns non-zero and keeps "crowd: error:
 * FILE: REASON" for player_error(), which the page shows.
 */
#include <emscripten/emscripten.h>
#include <emscripten/html5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <GLES3/gl3.h>

#include "crowd/bake.h"
#include "crowd/gpu.h"
#include "render_layout.h"

/* tools/stage.c's sky, linear RGB, written sRGB-encoded as the colour pass
 * writes its pixels (the canvas is an 8-bit sRGB surface). */
static const float sky_linear[3] = {0.32f, 0.38f, 0.46f};

/* Numbers the page reads (player_stat). */
enum player_stat_id {
    PLAYER_STAT_FRAMES = 0,
    PLAYER_STAT_CPU_MS,      /* the last frame's update + submission, main thread */
    PLAYER_STAT_GPU_WAIT_MS, /* the last bench frame's 1-pixel read-back wait */
    PLAYER_STAT_DRAW_CALLS,
    PLAYER_STAT_CHARACTERS,
    PLAYER_STAT_MAX_TEXTURE_SIZE,
    PLAYER_STAT_CLIP_COUNT,
};

typedef struct player {
    EMSCRIPTEN_WEBGL_CONTEXT_HANDLE context;
    int width, height;
    crowd_bake *bake;
    crowd_world *world;
    crowd_archetype archetype;
    crowd_instance *instances;
    uint32_t *clips; /* each instance's clip, for the click's next one */
    uint32_t count;
    crowd_camera camera;
    float yaw, pitch, distance; /* the orbit of camera.eye around camera.target */
    crowd_light light;
    uint64_t frames;
    double cpu_ms, gpu_wait_ms;
    int max_texture_size;
    char error[1100];
} player;

static player the_player;

static int fail(const crowd_error *error) {
    player *p = &the_player;
    if (error->file[0] != '\0') {
        snprintf(p->error, sizeof p->error, "crowd: error: %s: %s", error->file, error->reason);
    } else {
        snprintf(p->error, sizeof p->error, "crowd: error: %s", error->reason);
    }
    return 1;
}

static int fail_text(const char *text) {
    crowd_error error = {.result = CROWD_ERROR_INVALID_ARGUMENT};
    snprintf(error.reason, sizeof error.reason, "%s", text);
    return fail(&error);
}

static float srgb_encode(float linear) {
    return linear <= 0.0031308f ? linear * 12.92f : 1.055f * powf(linear, 1.0f / 2.4f) - 0.055f;
}

static void log_to_console(void *user, crowd_log_level level, const char *message) {
    (void)user;
    if (level >= CROWD_LOG_WARNING) {
        /* stderr is the console's warning stream in emscripten's default */
        fprintf(stderr, "crowd: %s\n", message);
    }
}

EMSCRIPTEN_KEEPALIVE const char *player_error(void) {
    return the_player.error;
}

static bool parse_tier(const char *name, crowd_gpu_tier *out) {
    for (int t = CROWD_TIER_AUTO; t <= CROWD_TIER_PORTABLE; t++) {
        if (strcmp(name, crowd_gpu_tier_name((crowd_gpu_tier)t)) == 0) {
            *out = (crowd_gpu_tier)t;
            return true;
        }
    }
    return false;
}

/* A WebGL2 context on the canvas of CSS selector `canvas`, then a world of
 * `tier` (auto, gl45 or portable: WebGL2 runs the portable one, a forced
 * gl45 is refused) and the bake at `manifest` (a path in emscripten's file
 * system) as one archetype in `mode` (any the bake plays). */
EMSCRIPTEN_KEEPALIVE int player_open(const char *canvas, const char *manifest, const char *mode,
                                     const char *tier) {
    player *p = &the_player;
    EmscriptenWebGLContextAttributes attributes;
    emscripten_webgl_init_context_attributes(&attributes);
    attributes.majorVersion = 2;
    attributes.minorVersion = 0;
    attributes.depth = EM_TRUE;
    attributes.antialias = EM_FALSE; /* as crowd render's target: one sample */
    attributes.alpha = EM_FALSE;
    p->context = emscripten_webgl_create_context(canvas, &attributes);
    if (p->context <= 0 || emscripten_webgl_make_context_current(p->context) != 0) {
        return fail_text("this browser gives the page no WebGL2 context");
    }
    emscripten_webgl_get_drawing_buffer_size(p->context, &p->width, &p->height);
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &p->max_texture_size);
    crowd_gpu_mode gpu_mode;
    crowd_gpu_tier gpu_tier;
    if (!crowd_gpu_mode_parse(mode, &gpu_mode)) {
        return fail_text("mode is not static, cpu, gpu, bat or vat");
    }
    if (!parse_tier(tier, &gpu_tier)) {
        return fail_text("tier is not auto, gl45 or portable");
    }
    crowd_logger logger = {.fn = log_to_console};
    crowd_bake_load_desc load = {.logger = logger};
    crowd_error error;
    crowd_world_desc world = {
        .timing = true, .state = CROWD_STATE_RESET, .logger = logger, .tier = gpu_tier};
    crowd_archetype_desc archetype = {.mode = gpu_mode};
    if (crowd_bake_load(manifest, &load, &p->bake, &error) != CROWD_OK ||
        crowd_world_create(&world, &p->world, &error) != CROWD_OK) {
        return fail(&error);
    }
    archetype.bake = p->bake;
    if (crowd_world_add_archetype(p->world, &archetype, &p->archetype, &error) != CROWD_OK) {
        return fail(&error);
    }
    crowd_light_default(&p->light);
    return 0;
}

/* `crowd render --count N [--seed S] [--clip NAME]`'s instances (clip ""
 * for none given). */
EMSCRIPTEN_KEEPALIVE int player_populate(uint32_t count, int seeded, double seed,
                                         const char *clip) {
    player *p = &the_player;
    if (p->world == NULL || p->instances != NULL || count == 0 ||
        count > CROWD_WORLD_DEFAULT_MAX_INSTANCES) {
        return fail_text("count must be 1..65536, once, after the bake has loaded");
    }
    uint32_t fixed = 0;
    if (clip[0] != '\0' && !crowd_archetype_find_clip(p->world, p->archetype, clip, &fixed)) {
        char text[400];
        snprintf(text, sizeof text, "the bake has no clip named '%.300s'", clip);
        return fail_text(text);
    }
    crowd_instance_desc *descs = calloc(count, sizeof *descs);
    p->instances = calloc(count, sizeof *p->instances);
    p->clips = calloc(count, sizeof *p->clips);
    if (descs == NULL || p->instances == NULL || p->clips == NULL) {
        free(descs);
        return fail_text("out of memory");
    }
    const render_layout layout = {.count = count,
                                  .seeded = seeded != 0,
                                  .seed = (uint64_t)seed,
                                  .random_clips = seeded != 0 && clip[0] == '\0'};
    render_layout_descs(p->world, &p->archetype, 1, &fixed, &layout, descs);
    crowd_error error;
    for (uint32_t i = 0; i < count; i++) {
        if (crowd_world_add_instance(p->world, p->archetype, &descs[i], &p->instances[i], &error) !=
            CROWD_OK) {
            free(descs);
            return fail(&error);
        }
        p->clips[i] = descs[i].clip;
        p->count = i + 1;
    }
    free(descs);
    return 0;
}

/* The orbit (yaw, pitch, distance) that puts the eye where it is. */
static void orbit_from_camera(player *p) {
    float d[3];
    for (int a = 0; a < 3; a++) {
        d[a] = p->camera.eye[a] - p->camera.target[a];
    }
    p->distance = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    p->yaw = atan2f(d[0], d[2]);
    p->pitch = p->distance > 0.0f ? asinf(d[1] / p->distance) : 0.0f;
}

/* crowd render's camera: every instance's bind-pose box framed at the
 * canvas's aspect. */
EMSCRIPTEN_KEEPALIVE int player_camera_auto(void) {
    player *p = &the_player;
    float min[3], max[3];
    if (p->world == NULL || !crowd_world_instance_bounds(p->world, min, max)) {
        return fail_text("no instances to frame");
    }
    memset(&p->camera, 0, sizeof p->camera);
    crowd_camera_frame_box(min, max, (float)p->width / (float)p->height, &p->camera);
    orbit_from_camera(p);
    return 0;
}

/* crowd render --camera x,y,z,tx,ty,tz. */
EMSCRIPTEN_KEEPALIVE int player_camera_set(float x, float y, float z, float tx, float ty,
                                           float tz) {
    player *p = &the_player;
    memset(&p->camera, 0, sizeof p->camera);
    const float eye[3] = {x, y, z}, target[3] = {tx, ty, tz};
    memcpy(p->camera.eye, eye, sizeof eye);
    memcpy(p->camera.target, target, sizeof target);
    orbit_from_camera(p);
    return 0;
}

/* The camera's eye (0..2) and target (3..5), for the page to show and
 * for tests to draw the same view elsewhere. */
EMSCRIPTEN_KEEPALIVE double player_camera_value(int which) {
    const crowd_camera *c = &the_player.camera;
    return which >= 0 && which < 3 ? c->eye[which] : which < 6 ? c->target[which - 3] : 0.0;
}

/* Turns the eye about the target (a mouse drag) and scales its distance
 * (the wheel); pitch stays short of the poles, where the view's up flips. */
EMSCRIPTEN_KEEPALIVE void player_orbit(float yaw_rad, float pitch_rad, float zoom) {
    player *p = &the_player;
    p->yaw += yaw_rad;
    p->pitch = fmaxf(-1.5f, fminf(1.5f, p->pitch + pitch_rad));
    p->distance = fmaxf(1e-3f, p->distance * (zoom > 0.0f ? zoom : 1.0f));
    const float offset[3] = {p->distance * cosf(p->pitch) * sinf(p->yaw),
                             p->distance * sinf(p->pitch),
                             p->distance * cosf(p->pitch) * cosf(p->yaw)};
    for (int a = 0; a < 3; a++) {
        p->camera.eye[a] = p->camera.target[a] + offset[a];
    }
}

/* Every character crossfades over fade_s, from world time at_s, to `clip`
 * (a name), or with "" each to the clip after its own. */
EMSCRIPTEN_KEEPALIVE int player_crossfade(const char *clip, double at_s, float fade_s) {
    player *p = &the_player;
    uint32_t clip_count = crowd_archetype_clip_count(p->world, p->archetype);
    uint32_t named = 0;
    if (clip[0] != '\0' && !crowd_archetype_find_clip(p->world, p->archetype, clip, &named)) {
        char text[400];
        snprintf(text, sizeof text, "the bake has no clip named '%.300s'", clip);
        return fail_text(text);
    }
    if (clip_count == 0) {
        return 0;
    }
    crowd_world_set_time(p->world, at_s);
    crowd_error error;
    for (uint32_t i = 0; i < p->count; i++) {
        uint32_t to = clip[0] != '\0' ? named : (p->clips[i] + 1u) % clip_count;
        if (crowd_instance_play(p->world, p->instances[i], to, fade_s, &error) != CROWD_OK) {
            return fail(&error);
        }
        p->clips[i] = to;
    }
    return 0;
}

/* One frame at world time time_s into the canvas; `bench` then waits for
 * the GPU with a 1-pixel read (timed apart). */
EMSCRIPTEN_KEEPALIVE int player_frame(double time_s, int bench) {
    player *p = &the_player;
    double start = emscripten_get_now();
    crowd_draw_desc draw = {.pass = CROWD_PASS_COLOR, .light = p->light};
    emscripten_webgl_get_drawing_buffer_size(p->context, &p->width, &p->height);
    if (!crowd_camera_matrices(&p->camera, (float)p->width / (float)p->height, draw.view,
                               draw.projection)) {
        return fail_text("degenerate camera (eye on target)");
    }
    crowd_error error;
    if (crowd_world_update(p->world, time_s, &error) != CROWD_OK) {
        return fail(&error);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, p->width, p->height);
    glClearColor(srgb_encode(sky_linear[0]), srgb_encode(sky_linear[1]), srgb_encode(sky_linear[2]),
                 1.0f);
    glClearDepthf(1.0f);
    glDepthMask(GL_TRUE);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    if (crowd_world_draw(p->world, &draw, &error) != CROWD_OK) {
        return fail(&error);
    }
    double submitted = emscripten_get_now();
    p->cpu_ms = submitted - start;
    if (bench) {
        uint8_t pixel[4];
        glReadPixels(0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, pixel);
        p->gpu_wait_ms = emscripten_get_now() - submitted;
    }
    p->frames++;
    return 0;
}

EMSCRIPTEN_KEEPALIVE double player_stat(int which) {
    const player *p = &the_player;
    crowd_world_stats stats;
    crowd_world_get_stats(p->world, &stats);
    switch (which) {
    case PLAYER_STAT_FRAMES:
        return (double)p->frames;
    case PLAYER_STAT_CPU_MS:
        return p->cpu_ms;
    case PLAYER_STAT_GPU_WAIT_MS:
        return p->gpu_wait_ms;
    case PLAYER_STAT_DRAW_CALLS:
        return stats.draw_calls;
    case PLAYER_STAT_CHARACTERS:
        return stats.instance_count;
    case PLAYER_STAT_MAX_TEXTURE_SIZE:
        return p->max_texture_size;
    case PLAYER_STAT_CLIP_COUNT:
        return crowd_archetype_clip_count(p->world, p->archetype);
    default:
        return 0.0;
    }
}

/* "portable" once a world runs ("" before). */
EMSCRIPTEN_KEEPALIVE const char *player_tier(void) {
    crowd_world_stats stats;
    crowd_world_get_stats(the_player.world, &stats);
    return the_player.world != NULL ? crowd_gpu_tier_name(stats.tier) : "";
}

EMSCRIPTEN_KEEPALIVE const char *player_clip_name(uint32_t clip) {
    crowd_clip_info info = {0};
    return crowd_archetype_get_clip(the_player.world, the_player.archetype, clip, &info) ? info.name
                                                                                         : "";
}

/* The clip instance `index` plays now (after the clicks' crossfades). */
EMSCRIPTEN_KEEPALIVE const char *player_clip_of(uint32_t index) {
    return index < the_player.count ? player_clip_name(the_player.clips[index]) : "";
}

int main(void) {
    /* The page calls in when its bake is fetched (player.js); the runtime
     * stays up between its calls. */
    return 0;
}
