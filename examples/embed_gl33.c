/* embed_gl33.c - crowd inside a GL 3.3 core application: the portable tier.
 *
 * OpenGL 3.3 core is what raylib's default build, sokol_gfx's GL backend and
 * many engines ask for. The application makes its own 3.3 core context
 * (plain EGL, headless, embed_app.c), its own framebuffer, camera, shader,
 * vertex array and texture, all with GL 3.3 calls. crowd_world_create with
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

#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "crowd/gpu.h"
#include "embed_app.h"
#include "embed_scene.h"

/* ---- the application's level: a ground and a cube ----------------------- */

/* GLSL 3.30: no explicit uniform locations or bindings (the locations are
 * looked up, the sampler's unit set once). */
static const char *level_vertex = "#version 330 core\n"
                                  "layout(location = 0) in vec3 position;\n"
                                  "layout(location = 1) in vec3 color;\n"
                                  "uniform mat4 view_proj;\n"
                                  "out vec3 v_color;\n"
                                  "void main() {\n"
                                  "    v_color = color;\n"
                                  "    gl_Position = view_proj * vec4(position, 1.0);\n"
                                  "}\n";
static const char *level_fragment = "#version 330 core\n"
                                    "in vec3 v_color;\n"
                                    "uniform sampler2D white;\n"
                                    "out vec4 frag;\n"
                                    "void main() { frag = vec4(v_color, 1.0) * texture(white, "
                                    "vec2(0.5)); }\n";

/* The unit the level's texture is on: crowd's portable tier draws with its
 * materials there, so the cube drawn after crowd shows it came back. */
#define LEVEL_UNIT 4

typedef struct level {
    GLuint program, vertex_array, vertices, indices, white, sampler;
    GLint view_proj;
} level;

enum { GROUND_VERTICES = 4, GROUND_INDICES = 6, CUBE_VERTICES = 24, CUBE_INDICES = 36 };

/* Position and colour (8-bit values) of one vertex, 6 floats. */
static void vertex(float *out, const float p[3], const unsigned char rgb[3]) {
    for (int k = 0; k < 3; k++) {
        out[k] = p[k];
        out[3 + k] = rgb[k] / 255.0f;
    }
}

/* The cube's face f (+x, -x, +y, -y, +z, -z): four corners
 * counter-clockwise seen from outside, as back-face culling wants. */
static void cube_face(float *out, GLushort *indices, int f, const float centre[3], float half) {
    int axis = f / 2;
    float sign = f % 2 == 0 ? 1.0f : -1.0f;
    /* u x v = the face's outward normal */
    float u[3] = {0, 0, 0}, v[3] = {0, 0, 0};
    u[(axis + 1) % 3] = sign;
    v[(axis + 2) % 3] = 1.0f;
    const float corner_u[4] = {-1, 1, 1, -1}, corner_v[4] = {-1, -1, 1, 1};
    for (int c = 0; c < 4; c++) {
        float p[3];
        for (int k = 0; k < 3; k++) {
            p[k] = centre[k] +
                   half * ((k == axis ? sign : 0.0f) + corner_u[c] * u[k] + corner_v[c] * v[k]);
        }
        vertex(out + 6 * c, p, gl33_faces[f]);
    }
    const GLushort first = (GLushort)(GROUND_VERTICES + 4 * f);
    const GLushort quad[6] = {0, 1, 2, 0, 2, 3};
    for (int i = 0; i < 6; i++) {
        indices[i] = (GLushort)(first + quad[i]);
    }
}

static GLuint compile(GLenum stage, const char *source) {
    GLuint shader = glCreateShader(stage);
    glShaderSource(shader, 1, &source, NULL);
    glCompileShader(shader);
    return shader;
}

static bool level_create(level *lv) {
    lv->program = glCreateProgram();
    GLuint vs = compile(GL_VERTEX_SHADER, level_vertex);
    GLuint fs = compile(GL_FRAGMENT_SHADER, level_fragment);
    glAttachShader(lv->program, vs);
    glAttachShader(lv->program, fs);
    glLinkProgram(lv->program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint linked = 0;
    glGetProgramiv(lv->program, GL_LINK_STATUS, &linked);
    lv->view_proj = glGetUniformLocation(lv->program, "view_proj");
    glUseProgram(lv->program);
    glUniform1i(glGetUniformLocation(lv->program, "white"), LEVEL_UNIT);
    glUseProgram(0);

    /* The ground (y = 0) and a 1.2 m cube standing among the characters. */
    float vertices[(GROUND_VERTICES + CUBE_VERTICES) * 6];
    GLushort indices[GROUND_INDICES + CUBE_INDICES] = {0, 1, 2, 0, 2, 3};
    const float ground[4][3] = {{-12, 0, 4}, {12, 0, 4}, {12, 0, -30}, {-12, 0, -30}};
    for (int c = 0; c < 4; c++) {
        vertex(vertices + 6 * c, ground[c], gl33_ground);
    }
    const float centre[3] = {0.8f, 0.6f, -1.55f};
    for (int f = 0; f < 6; f++) {
        cube_face(vertices + 6 * (GROUND_VERTICES + 4 * f), indices + GROUND_INDICES + 6 * f, f,
                  centre, 0.6f);
    }
    glGenVertexArrays(1, &lv->vertex_array);
    glBindVertexArray(lv->vertex_array);
    glGenBuffers(1, &lv->vertices);
    glBindBuffer(GL_ARRAY_BUFFER, lv->vertices);
    glBufferData(GL_ARRAY_BUFFER, sizeof vertices, vertices, GL_STATIC_DRAW);
    glGenBuffers(1, &lv->indices);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, lv->indices); /* vertex array state */
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof indices, indices, GL_STATIC_DRAW);
    for (GLuint attribute = 0; attribute < 2; attribute++) {
        glVertexAttribPointer(attribute, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float),
                              (const void *)(attribute * 3 * sizeof(float)));
        glEnableVertexAttribArray(attribute);
    }
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);

    unsigned char white[2 * 2 * 4];
    memset(white, 255, sizeof white);
    glGenTextures(1, &lv->white);
    glBindTexture(GL_TEXTURE_2D, lv->white);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 2, 2, 0, GL_RGBA, GL_UNSIGNED_BYTE, white);
    glBindTexture(GL_TEXTURE_2D, 0);
    /* Its filtering is the sampler's: without it the texture's default
     * filter wants mipmaps it lacks, so a sampler crowd took away would
     * make it incomplete, and the cube black. */
    glGenSamplers(1, &lv->sampler);
    glSamplerParameteri(lv->sampler, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glSamplerParameteri(lv->sampler, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    return linked != 0 && lv->view_proj >= 0 && glGetError() == GL_NO_ERROR;
}

static void level_destroy(level *lv) {
    glDeleteProgram(lv->program);
    glDeleteVertexArrays(1, &lv->vertex_array);
    glDeleteBuffers(1, &lv->vertices);
    glDeleteBuffers(1, &lv->indices);
    glDeleteTextures(1, &lv->white);
    glDeleteSamplers(1, &lv->sampler);
}

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

typedef struct crowd_part {
    crowd_asset *character;
    crowd_bake *bake;
    crowd_world *world;
} crowd_part;

/* The built-in character baked in memory; 5 x 4 of them around the cube,
 * every other one in gpu mode (palettes in a texture on this tier), the
 * rest in vat mode. */
static crowd_result crowd_part_create(crowd_part *c, crowd_error *e) {
    crowd_archetype kinds[2];
    const crowd_gpu_mode modes[2] = {CROWD_GPU_MODE_VAT, CROWD_GPU_MODE_GPU};
    crowd_result result = crowd_builtin_create(&c->character, e);
    if (result == CROWD_OK) {
        result = crowd_bake_build(c->character, NULL, &c->bake, e);
    }
    if (result == CROWD_OK) {
        result = crowd_world_create(NULL, &c->world, e); /* tier auto */
    }
    for (int k = 0; result == CROWD_OK && k < 2; k++) {
        crowd_archetype_desc desc = {.asset = c->character, .bake = c->bake, .mode = modes[k]};
        result = crowd_world_add_archetype(c->world, &desc, &kinds[k], e);
    }
    uint32_t walk = 0; /* the first clip when there is no "walk" */
    if (result == CROWD_OK) {
        crowd_archetype_find_clip(c->world, kinds[0], "walk", &walk);
    }
    for (int i = 0; result == CROWD_OK && i < 20; i++) {
        crowd_instance_desc d = {
            .position = {-3.2f + 1.6f * (float)(i % 5), 0.0f, 1.0f - 1.7f * (float)(i / 5)},
            .heading_rad = 0.3f * (float)(i % 3),
            .clip = walk,
            .time_offset_s = 0.17f * (float)i};
        crowd_instance instance;
        result = crowd_world_add_instance(c->world, kinds[i % 2], &d, &instance, e);
    }
    return result;
}

static void crowd_part_destroy(crowd_part *c) {
    crowd_world_destroy(c->world);
    crowd_bake_destroy(c->bake);
    crowd_asset_destroy(c->character);
}

/* ---- frames ----------------------------------------------------------------- */

enum { DRAW_LEVEL = 1, DRAW_CROWD = 2 };

/* One frame of what `parts` says into the application's framebuffer; with
 * both, the state around crowd's draw is compared (*changed). */
static crowd_result draw_frame(const embed_app *app, const level *lv, crowd_world *world,
                               unsigned parts, int *changed, crowd_error *e) {
    float view[16], projection[16], view_proj[16];
    embed_app_camera(app->width, app->height, view, projection);
    embed_app_multiply(projection, view, view_proj);
    embed_app_begin(app, gl33_sky);
    if (parts & DRAW_LEVEL) {
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LESS);
        glEnable(GL_CULL_FACE);
        glUseProgram(lv->program);
        glUniformMatrix4fv(lv->view_proj, 1, GL_FALSE, view_proj);
        glBindVertexArray(lv->vertex_array);
        glActiveTexture(GL_TEXTURE0 + LEVEL_UNIT);
        glBindTexture(GL_TEXTURE_2D, lv->white);
        glBindSampler(LEVEL_UNIT, lv->sampler);
        glDrawElements(GL_TRIANGLES, GROUND_INDICES, GL_UNSIGNED_SHORT, NULL);
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
        /* Nothing bound again: the level's program, vertex array (and its
         * element buffer) and unit 4 are as it left them. */
        glDrawElements(GL_TRIANGLES, CUBE_INDICES, GL_UNSIGNED_SHORT,
                       (const void *)(GROUND_INDICES * sizeof(GLushort)));
        glDisable(GL_CULL_FACE);
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

/* What the context is and which tier crowd chose on it. */
static void print_context(crowd_world *world) {
    GLint major = 0, minor = 0, profile = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
    crowd_world_stats stats;
    crowd_world_get_stats(world, &stats);
    printf("context: OpenGL %d.%d %s (%s); crowd tier: %s\n", (int)major, (int)minor,
           profile & GL_CONTEXT_CORE_PROFILE_BIT ? "core" : "not core",
           (const char *)glGetString(GL_VERSION), crowd_gpu_tier_name(stats.tier));
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
    level lv = {0};
    crowd_part crowd = {0};
    crowd_error e = {0};
    bool ok = level_create(&lv);
    crowd_result result = crowd_part_create(&crowd, &e);
    static unsigned char picture[GL33_PANELS * GL33_WIDTH * GL33_HEIGHT * 4];
    int changed = 0;
    if (result == CROWD_OK) {
        print_context(crowd.world);
        ok = draw_panels(&app, &lv, crowd.world, picture, &changed, &e) && ok;
    }
    if (result != CROWD_OK || e.reason[0] != '\0') {
        fprintf(stderr, "crowd_embed_gl33: error: %s%s%s\n", e.file, e.file[0] ? ": " : "",
                e.reason);
        ok = false;
    }
    /* Written when drawn, also when the state changed: the picture shows
     * what the change did. */
    ok = ok && embed_app_write_png(argv[1], picture, GL33_PANELS * GL33_WIDTH, GL33_HEIGHT) &&
         changed == 0;
    if (ok) {
        printf("%s: the frame, the level alone, the crowd alone; the GL state the level set "
               "was as it left it after crowd's draw\n",
               argv[1]);
    }
    crowd_part_destroy(&crowd);
    level_destroy(&lv);
    embed_app_destroy(&app);
    return ok ? 0 : 1;
}
