/* game_glfw33.c - crowd in a small GLFW game on an OpenGL 3.3 core context.
 *
 * The way a game gets its context: a GLFW window asking for OpenGL 3.3
 * core, forward-compatible (macOS gives a core profile to nothing else;
 * docs/embedding.md, "GLFW"). crowd_world_create with the default tier
 * (auto) runs the portable tier there; a driver that answers the request
 * with 4.5 or later gets the GL 4.5 tier (Mesa does, unless
 * MESA_GL_VERSION_OVERRIDE=3.3, which the example's test sets).
 *
 * The game owns the window, the loop, the camera and its level (a ground
 * and three boxes: its own program, vertex array and a texture on unit 4,
 * level_gl33.c, shared with embed_gl33.c); crowd owns the characters:
 * built-in ones in vat and gpu modes (builtin_crowd.c), walking or idling,
 * and every second a third of them crossfade to the other clip. Each frame:
 * the level, then crowd's colour pass depth-tested against it, then
 * glfwSwapBuffers. The game binds its level's objects every frame (as
 * most renderers do) but sets depth writes, the colour mask and blending
 * never: the next frame's clear and level come out right only if crowd's
 * draw left them as they were (embed_gl33.c compares every value).
 *
 * Usage: crowd_game_glfw33 [--frames N] [--screenshot OUT.png]
 *                          [--characters N] [--crowd-only]
 *   --frames N         stop after N frames, the clock advancing 1/60 s a
 *                      frame (the same frames every run); without it the
 *                      game runs until the window closes, on the real clock
 *   --screenshot PATH  the last frame as a PNG (read before the swap)
 *   --characters N     0 to CHARACTERS_MAX, default 24 (0: the level alone)
 *   --crowd-only       no level: the sky and the crowd (what the test
 *                      compares the frame with)
 * Prints the context's version and the tier crowd runs.
 * Exit: 0 done, 77 no window with an OpenGL 3.3 core context, 1 any other
 * failure.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* epoxy declares GL; GLFW must not include GL/gl.h. */
#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "crowd/gpu.h"
#include "app_common.h"
#include "builtin_crowd.h"
#include "embed_scene.h"
#include "level_gl33.h"

#define CHARACTERS_MAX 60
#define CHARACTERS_PER_ROW 6
#define FIXED_STEP_S (1.0 / 60.0)
/* Every CROSSFADE_PERIOD_S a third of the crowd switches between walking
 * and idling, blending over CROSSFADE_S. */
#define CROSSFADE_PERIOD_S 1.0
#define CROSSFADE_S 0.4f

typedef struct options {
    long frames; /* 0: until the window closes */
    const char *screenshot;
    long characters;
    bool crowd_only;
} options;

/* A whole number in [min, max]; false (and a message) otherwise. */
static bool parse_count(const char *flag, const char *text, long min, long max, long *out) {
    char *end = NULL;
    errno = 0;
    long value = text != NULL ? strtol(text, &end, 10) : 0;
    if (text == NULL || end == text || *end != '\0' || errno != 0 || value < min || value > max) {
        fprintf(stderr, "crowd_game_glfw33: %s wants a whole number from %ld to %ld, not %s\n",
                flag, min, max, text != NULL ? text : "nothing");
        return false;
    }
    *out = value;
    return true;
}

static bool parse_options(int argc, char **argv, options *o) {
    *o = (options){.characters = 24};
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--frames") == 0) {
            if (!parse_count("--frames", value, 1, 1000000, &o->frames)) {
                return false;
            }
            i++;
        } else if (strcmp(argv[i], "--characters") == 0) {
            if (!parse_count("--characters", value, 0, CHARACTERS_MAX, &o->characters)) {
                return false;
            }
            i++;
        } else if (strcmp(argv[i], "--screenshot") == 0 && value != NULL) {
            o->screenshot = value;
            i++;
        } else if (strcmp(argv[i], "--crowd-only") == 0) {
            o->crowd_only = true;
        } else {
            fprintf(stderr,
                    "crowd_game_glfw33: unknown or incomplete option %s\n"
                    "usage: crowd_game_glfw33 [--frames N] [--screenshot OUT.png] "
                    "[--characters N] [--crowd-only]\n",
                    argv[i]);
            return false;
        }
    }
    return true;
}

/* ---- the window ----------------------------------------------------------- */

static void on_glfw_error(int code, const char *message) {
    fprintf(stderr, "crowd_game_glfw33: GLFW error 0x%x: %s\n", (unsigned)code, message);
}

/* A window with an OpenGL 3.3 core, forward-compatible context, current;
 * NULL when GLFW has no display or the driver no such context. */
static GLFWwindow *open_window(void) {
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        return NULL;
    }
    /* The hints docs/embedding.md shows, as they are. */
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3); /* 4, 5: OpenGL 4.5 core, the GL 4.5 tier */
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE); /* macOS needs it */
    glfwWindowHint(GLFW_DEPTH_BITS, 24);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
    GLFWwindow *window =
        glfwCreateWindow(GAME_WIDTH, GAME_HEIGHT, "crowd: a GL 3.3 game", NULL, NULL);
    if (window == NULL) {
        glfwTerminate();
        return NULL;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(1);
    return window;
}

/* ---- the crowd ------------------------------------------------------------ */

typedef struct characters {
    crowd_instance instances[CHARACTERS_MAX];
    bool walking[CHARACTERS_MAX];
    int count;
    long crossfades;
} characters;

/* Rows of CHARACTERS_PER_ROW among the boxes, every other one in gpu mode,
 * two in three walking at first. */
static crowd_result add_characters(builtin_crowd *c, characters *ch, int count, crowd_error *e) {
    crowd_result result = CROWD_OK;
    ch->count = 0;
    for (int i = 0; result == CROWD_OK && i < count; i++) {
        int column = i % CHARACTERS_PER_ROW, row = i / CHARACTERS_PER_ROW;
        ch->walking[i] = i % 3 != 2;
        crowd_instance_desc d = {
            .position = {-4.0f + 1.6f * (float)column, 0.0f, 1.0f - 1.7f * (float)row},
            .heading_rad = 0.3f * (float)(i % 3) - 0.3f,
            .clip = ch->walking[i] ? c->walk : c->idle,
            .time_offset_s = 0.17f * (float)i};
        result = crowd_world_add_instance(c->world, c->kinds[i % 2], &d, &ch->instances[i], e);
        ch->count += result == CROWD_OK;
    }
    return result;
}

/* At the period's tick `tick`, the third of the crowd whose index is
 * tick modulo 3 crossfades from walking to idling or back. */
static crowd_result switch_clips(builtin_crowd *c, characters *ch, long tick, crowd_error *e) {
    crowd_result result = CROWD_OK;
    for (int i = (int)(tick % 3); result == CROWD_OK && i < ch->count; i += 3) {
        ch->walking[i] = !ch->walking[i];
        result = crowd_instance_play(c->world, ch->instances[i], ch->walking[i] ? c->walk : c->idle,
                                     CROSSFADE_S, e);
        ch->crossfades += result == CROWD_OK;
    }
    return result;
}

/* ---- a frame --------------------------------------------------------------- */

/* The level, then crowd's colour pass, into the window's back buffer. */
static crowd_result draw_frame(const level *lv, builtin_crowd *c, const options *o, int width,
                               int height, double time_s, crowd_error *e) {
    float view[16], projection[16], view_proj[16];
    app_camera(width, height, view, projection);
    app_multiply(projection, view, view_proj);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, width, height);
    glClearColor(gl33_sky[0] / 255.0f, gl33_sky[1] / 255.0f, gl33_sky[2] / 255.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    if (!o->crowd_only) {
        level_draw_ground(lv, view_proj);
        level_draw_boxes(lv);
    }
    crowd_draw_desc desc = {.pass = CROWD_PASS_COLOR};
    memcpy(desc.view, view, sizeof desc.view);
    memcpy(desc.projection, projection, sizeof desc.projection);
    crowd_light_default(&desc.light);
    crowd_result result = crowd_world_update(c->world, time_s, e);
    if (result == CROWD_OK) {
        result = crowd_world_draw(c->world, &desc, e);
    }
    if (!o->crowd_only) {
        level_end();
    }
    return result;
}

/* The back buffer as a PNG: called before glfwSwapBuffers, after which its
 * content is undefined. */
static bool screenshot(const char *path, int width, int height) {
    unsigned char *rgba = malloc((size_t)width * (size_t)height * 4);
    bool ok = rgba != NULL;
    if (ok) {
        glReadBuffer(GL_BACK);
        glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
        ok = glGetError() == GL_NO_ERROR && app_write_png(path, rgba, width, height);
    }
    free(rgba);
    if (!ok) {
        fprintf(stderr, "crowd_game_glfw33: cannot write the screenshot %s\n", path);
    }
    return ok;
}

/* The game loop; false on any failure (reported). */
static bool play(GLFWwindow *window, const level *lv, builtin_crowd *c, characters *ch,
                 const options *o, crowd_error *e) {
    long next_tick = 1;
    for (long frame = 0; o->frames == 0 || frame < o->frames; frame++) {
        double time_s = o->frames != 0 ? (double)frame * FIXED_STEP_S : glfwGetTime();
        crowd_result result = CROWD_OK;
        while (result == CROWD_OK && time_s >= (double)next_tick * CROSSFADE_PERIOD_S) {
            result = switch_clips(c, ch, next_tick++, e);
        }
        int width = 0, height = 0;
        glfwGetFramebufferSize(window, &width, &height);
        if (result == CROWD_OK) {
            result = draw_frame(lv, c, o, width, height, time_s, e);
        }
        if (result != CROWD_OK) {
            fprintf(stderr, "crowd_game_glfw33: frame %ld: %s\n", frame, e->reason);
            return false;
        }
        if (o->screenshot != NULL && frame + 1 == o->frames &&
            !screenshot(o->screenshot, width, height)) {
            return false;
        }
        glfwSwapBuffers(window);
        glfwPollEvents();
        if (glfwWindowShouldClose(window)) {
            break;
        }
    }
    return true;
}

int main(int argc, char **argv) {
    options o;
    if (!parse_options(argc, argv, &o)) {
        return 1;
    }
    GLFWwindow *window = open_window();
    if (window == NULL) {
        fprintf(stderr, "crowd_game_glfw33: no window with an OpenGL 3.3 core context\n");
        return 77;
    }
    /* A 1.2 m cube among the characters (embed_gl33.c's), a smaller one
     * at the front right, a larger one further back on the left. */
    const level_box boxes[3] = {
        {{0.8f, 0.6f, -1.55f}, 0.6f}, {{3.1f, 0.4f, 0.15f}, 0.4f}, {{-2.4f, 0.9f, -5.0f}, 0.9f}};
    level lv;
    builtin_crowd crowd;
    characters ch = {0};
    crowd_error e = {0};
    bool ok = level_create(&lv, boxes, 3);
    crowd_result result = builtin_crowd_create(&crowd, &e);
    if (result == CROWD_OK) {
        result = add_characters(&crowd, &ch, (int)o.characters, &e);
    }
    if (result != CROWD_OK || !ok) {
        fprintf(stderr, "crowd_game_glfw33: %s\n",
                result != CROWD_OK ? e.reason : "the level's GL objects failed");
        ok = false;
    } else {
        builtin_crowd_print_context(&crowd);
        ok = play(window, &lv, &crowd, &ch, &o, &e);
    }
    if (ok) {
        crowd_world_stats stats;
        crowd_world_get_stats(crowd.world, &stats);
        printf("%d characters, %ld crossfades; last frame: %u draw calls\n", ch.count,
               ch.crossfades, (unsigned)stats.draw_calls);
    }
    builtin_crowd_destroy(&crowd);
    level_destroy(&lv);
    glfwDestroyWindow(window);
    glfwTerminate();
    return ok ? 0 : 1;
}
