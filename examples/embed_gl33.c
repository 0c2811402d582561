/* embed_gl33.c - crowd inside a GL 3.3 core application: the portable tier.
 *
 * OpenGL 3.3 core is what raylib's default build, sokol_gfx's GL backend and
 * many engines ask for. The application makes its own 3.3 core context
 * (plain EGL, headless, embed_app.c), its own framebuffer, camera, shader,
 * vertex array and texture, all with GL 3.3 calls (its level is
 * level_gl33.c, its crowd builtin_crowd.c, both shared with the GLFW game
 * game_glfw33.c). crowd_world_create with
 * the default tier (auto) runs the portable tier there; a driver that
 * answers the 3.3 request with a 4.5 context (Mesa does, unless
 * MESA_GL_VERSION_OVERRIDE=3.3, which the example's test sets) gets the
 * GL 4.5 tier instead, as a game would want.
 *
 * A frame: the level's ground (its program, vertex array and element
 * buffer, a texture on unit 4 read through a sampler object, back-face
 * culling), then crowd's colour pass (twenty characters, vat and gpu
 * modes, depth-tested against the ground), then the level's cube drawn
 * without binding anything again: it only draws right if crowd put back
 * the program, the vertex array and unit 4 (crowd's portable tier binds
 * its own textures to units 0-5). Around crowd's draw the application
 * reads the state it set and compares: any difference is an error.
 *
 * It writes three frames side by side: that frame, the level alone, the
 * crowd alone. The test (example_test.c) checks that the frame is the
 * level alone, pixel for pixel, wherever the crowd alone is sky, and that
 * the crowd shows elsewhere.
 *
 * Usage: crowd_embed_gl33 OUT.png
 * Prints the context's version and the tier crowd runs.
 * Exit: 0 written, 77 no OpenGL 3.3 core context, 1 any other failure
 * (GL state changed by crowd's draw included).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/gpu.h"
#include "app_common.h"
#include "builtin_crowd.h"
#include "embed_app.h"
#include "embed_scene.h"
#include "level_gl33.h"

/* ---- the GL state the application checks around crowd's draw ------------ */

#define STATE_VALUES 48

typedef struct gl_state {
    int count;
    const char *names[STATE_VALUES];
    GLint values[STATE_VALUES];
} gl_state;

static void put(gl_state *s, const char *name, GLenum pname, int n) {
    GLint v[4] = {0, 0, 0, 0};
    glGetIntegerv(pname, v);
    for (int i = 0; i < n && s->count < STATE_VALUES; i++) {
        s->names[s->count] = name;
        s->values[s->count++] = v[i];
    }
}

/* What crowd changes and puts back (crowd/gpu.h, "GL state": the program,
 * vertex array, array buffer, active unit, units 0-5, the enables) and a
 * part of what it never touches. */
static void read_state(gl_state *s) {
    static const char *const unit_names[6][3] = {
        {"unit 0 texture 2D", "unit 0 texture 2D array", "unit 0 sampler"},
        {"unit 1 texture 2D", "unit 1 texture 2D array", "unit 1 sampler"},
        {"unit 2 texture 2D", "unit 2 texture 2D array", "unit 2 sampler"},
        {"unit 3 texture 2D", "unit 3 texture 2D array", "unit 3 sampler"},
        {"unit 4 texture 2D", "unit 4 texture 2D array", "unit 4 sampler"},
        {"unit 5 texture 2D", "unit 5 texture 2D array", "unit 5 sampler"}};
    s->count = 0;
    put(s, "program", GL_CURRENT_PROGRAM, 1);
    put(s, "vertex array", GL_VERTEX_ARRAY_BINDING, 1);
    put(s, "element buffer (of the vertex array)", GL_ELEMENT_ARRAY_BUFFER_BINDING, 1);
    put(s, "array buffer", GL_ARRAY_BUFFER_BINDING, 1);
    put(s, "uniform buffer", GL_UNIFORM_BUFFER_BINDING, 1);
    put(s, "draw framebuffer", GL_DRAW_FRAMEBUFFER_BINDING, 1);
    put(s, "viewport", GL_VIEWPORT, 4);
    put(s, "active texture", GL_ACTIVE_TEXTURE, 1);
    GLint active = 0;
    glGetIntegerv(GL_ACTIVE_TEXTURE, &active);
    for (GLuint u = 0; u < 6; u++) {
        glActiveTexture(GL_TEXTURE0 + u);
        put(s, unit_names[u][0], GL_TEXTURE_BINDING_2D, 1);
        put(s, unit_names[u][1], GL_TEXTURE_BINDING_2D_ARRAY, 1);
        put(s, unit_names[u][2], GL_SAMPLER_BINDING, 1);
    }
    glActiveTexture((GLenum)active);
    put(s, "depth test", GL_DEPTH_TEST, 1);
    put(s, "depth func", GL_DEPTH_FUNC, 1);
    put(s, "depth mask", GL_DEPTH_WRITEMASK, 1);
    put(s, "cull face", GL_CULL_FACE, 1);
    put(s, "cull face mode", GL_CULL_FACE_MODE, 1);
    put(s, "blend", GL_BLEND, 1);
    put(s, "colour mask", GL_COLOR_WRITEMASK, 4);
    put(s, "unpack alignment", GL_UNPACK_ALIGNMENT, 1);
}

/* Prints every value that differs; the number of them. */
static int state_changes(const gl_state *before, const gl_state *after) {
    int changed = 0;
    for (int i = 0; i < before->count; i++) {
        if (before->values[i] != after->values[i]) {
            fprintf(stderr, "crowd_embed_gl33: crowd's draw changed %s: %d -> %d\n",
                    before->names[i], (int)before->values[i], (int)after->values[i]);
            changed++;
        }
    }
    return changed;
}

/* ---- the crowd ------------------------------------------------------------ */

/* 5 x 4 characters walking around the cube, every other one in gpu mode,
 * the rest in vat mode (builtin_crowd.c). */
static crowd_result add_characters(builtin_crowd *c, crowd_error *e) {
    crowd_result result = CROWD_OK;
    for (int i = 0; result == CROWD_OK && i < 20; i++) {
        crowd_instance_desc d = {
            .position = {-3.2f + 1.6f * (float)(i % 5), 0.0f, 1.0f - 1.7f * (float)(i / 5)},
            .heading_rad = 0.3f * (float)(i % 3),
            .clip = c->walk,
            .time_offset_s = 0.17f * (float)i};
        crowd_instance instance;
        result = crowd_world_add_instance(c->world, c->kinds[i % 2], &d, &instance, e);
    }
    return result;
}

/* ---- frames ----------------------------------------------------------------- */

enum { DRAW_LEVEL = 1, DRAW_CROWD = 2 };

/* One frame of what `parts` says into the application's framebuffer; with
 * both, the state around crowd's draw is compared (*changed). */
static crowd_result draw_frame(const embed_app *app, const level *lv, crowd_world *world,
                               unsigned parts, int *changed, crowd_error *e) {
    float view[16], projection[16], view_proj[16];
    app_camera(app->width, app->height, view, projection);
    app_multiply(projection, view, view_proj);
    embed_app_begin(app, gl33_sky);
    if (parts & DRAW_LEVEL) {
        level_draw_ground(lv, view_proj);
    }
    crowd_result result = CROWD_OK;
    if (parts & DRAW_CROWD) {
        gl_state before, after;
        read_state(&before);
        crowd_draw_desc desc = {.pass = CROWD_PASS_COLOR};
        memcpy(desc.view, view, sizeof desc.view);
        memcpy(desc.projection, projection, sizeof desc.projection);
        crowd_light_default(&desc.light);
        result = crowd_world_update(world, 2.0, e);
        if (result == CROWD_OK) {
            result = crowd_world_draw(world, &desc, e);
        }
        read_state(&after);
        *changed += state_changes(&before, &after);
    }
    if (parts & DRAW_LEVEL) {
        level_draw_boxes(lv); /* the cube, with the state the ground's draw set */
        level_end();
    }
    return result;
}

/* The three frames side by side (rows bottom first, as GL reads them). */
static bool draw_panels(const embed_app *app, const level *lv, crowd_world *world,
                        unsigned char *picture, int *changed, crowd_error *e) {
    static unsigned char frame[GL33_WIDTH * GL33_HEIGHT * 4];
    const unsigned panels[GL33_PANELS] = {DRAW_LEVEL | DRAW_CROWD, DRAW_LEVEL, DRAW_CROWD};
    for (int p = 0; p < GL33_PANELS; p++) {
        if (draw_frame(app, lv, world, panels[p], changed, e) != CROWD_OK ||
            !embed_app_read(app, frame)) {
            return false;
        }
        for (int y = 0; y < GL33_HEIGHT; y++) {
            memcpy(picture + 4 * ((size_t)y * GL33_WIDTH * GL33_PANELS + (size_t)p * GL33_WIDTH),
                   frame + 4 * (size_t)y * GL33_WIDTH, 4 * GL33_WIDTH);
        }
    }
    return true;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: crowd_embed_gl33 OUT.png\n");
        return 1;
    }
    embed_app app;
    if (!embed_app_create(&app, 3, 3, GL33_WIDTH, GL33_HEIGHT)) {
        fprintf(stderr, "crowd_embed_gl33: no OpenGL 3.3 core context (EGL error 0x%x)\n",
                (unsigned)eglGetError());
        embed_app_destroy(&app);
        return 77;
    }
    /* A 1.2 m cube standing among the characters. */
    const level_box cube = {{0.8f, 0.6f, -1.55f}, 0.6f};
    level lv;
    builtin_crowd crowd;
    crowd_error e = {0};
    bool ok = level_create(&lv, &cube, 1);
    crowd_result result = builtin_crowd_create(&crowd, &e);
    if (result == CROWD_OK) {
        result = add_characters(&crowd, &e);
    }
    static unsigned char picture[GL33_PANELS * GL33_WIDTH * GL33_HEIGHT * 4];
    int changed = 0;
    if (result == CROWD_OK) {
        builtin_crowd_print_context(&crowd);
        ok = draw_panels(&app, &lv, crowd.world, picture, &changed, &e) && ok;
    }
    if (result != CROWD_OK || e.reason[0] != '\0') {
        fprintf(stderr, "crowd_embed_gl33: error: %s%s%s\n", e.file, e.file[0] ? ": " : "",
                e.reason);
        ok = false;
    }
    /* Written when drawn, also when the state changed: the picture shows
     * what the change did. */
    ok = ok && app_write_png(argv[1], picture, GL33_PANELS * GL33_WIDTH, GL33_HEIGHT) &&
         changed == 0;
    if (ok) {
        printf("%s: the frame, the level alone, the crowd alone; the GL state the level set "
               "was as it left it after crowd's draw\n",
               argv[1]);
    }
    builtin_crowd_destroy(&crowd);
    level_destroy(&lv);
    embed_app_destroy(&app);
    return ok ? 0 : 1;
}
