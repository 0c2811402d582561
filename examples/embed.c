/* embed.c - crowd inside an application that owns everything else.
 *
 * The application makes its own OpenGL 4.5 context (plain EGL, headless,
 * embed_app.c), its own framebuffer, camera and shader; it draws its level (a ground and
 * a wall), lets crowd draw twenty walking characters into the same
 * framebuffer, depth-tested against the level (the wall hides those behind
 * it), then draws a marker quad without binding anything again: crowd puts
 * back the program, vertex array and texture bindings it used. It reads the
 * picture back and writes it as a PNG. The colours and the quad's rectangle
 * are in embed_scene.h, which the example's test checks the picture against.
 *
 * Usage: crowd_embed OUT.png
 * Exit: 0 written, 77 no OpenGL 4.5 context, 1 any other failure.
 */
#include <stdbool.h>
#include <stdio.h>

#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "crowd/gpu.h"
#include "app_common.h"
#include "embed_app.h"
#include "embed_scene.h"

/* ---- the application's level: its shader and its geometry ---------------- */

static const char *level_vertex = "#version 450 core\n"
                                  "layout(location = 0) in vec3 position;\n"
                                  "layout(location = 1) in vec3 color;\n"
                                  "layout(location = 0) uniform mat4 transform;\n"
                                  "out vec3 v_color;\n"
                                  "void main() {\n"
                                  "    v_color = color;\n"
                                  "    gl_Position = transform * vec4(position, 1.0);\n"
                                  "}\n";
/* Flat colours times a 1x1 white texture on unit 2, which crowd's vat mode
 * uses too: the quad drawn after crowd shows that the binding came back. */
static const char *level_fragment = "#version 450 core\n"
                                    "in vec3 v_color;\n"
                                    "layout(binding = 2) uniform sampler2D white;\n"
                                    "out vec4 frag;\n"
                                    "void main() { frag = vec4(v_color, 1.0) * texture(white, "
                                    "vec2(0.5)); }\n";

typedef struct level {
    GLuint program, vertex_array, buffer, white;
} level;

enum { GROUND_FIRST = 0, WALL_FIRST = 6, QUAD_FIRST = 12, LEVEL_VERTICES = 18 };

/* Six vertices (two triangles) of the rectangle from corner a to corner c,
 * b and d being the other two, in one colour (8-bit values). */
static void rectangle(float *out, const float a[3], const float b[3], const float c[3],
                      const float d[3], const unsigned char rgb[3]) {
    const float *corners[6] = {a, b, c, a, c, d};
    for (int v = 0; v < 6; v++) {
        for (int k = 0; k < 3; k++) {
            out[6 * v + k] = corners[v][k];
            out[6 * v + 3 + k] = rgb[k] / 255.0f;
        }
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

    /* The ground (y = 0), a wall 2 m wide and 1.8 m high at z = 1 facing the
     * camera, and the quad in clip space (pixel rectangle -> -1..1). */
    float vertices[LEVEL_VERTICES * 6];
    const float g[4][3] = {{-12, 0, 4}, {12, 0, 4}, {12, 0, -30}, {-12, 0, -30}};
    const float w[4][3] = {{-1, 0, 1}, {1, 0, 1}, {1, 1.8f, 1}, {-1, 1.8f, 1}};
    float x0 = 2.0f * EMBED_QUAD_X0 / EMBED_WIDTH - 1.0f,
          x1 = 2.0f * EMBED_QUAD_X1 / EMBED_WIDTH - 1.0f;
    float y0 = 1.0f - 2.0f * EMBED_QUAD_Y1 / EMBED_HEIGHT,
          y1 = 1.0f - 2.0f * EMBED_QUAD_Y0 / EMBED_HEIGHT;
    const float q[4][3] = {{x0, y0, 0}, {x1, y0, 0}, {x1, y1, 0}, {x0, y1, 0}};
    rectangle(vertices + 6 * GROUND_FIRST, g[0], g[1], g[2], g[3], embed_ground);
    rectangle(vertices + 6 * WALL_FIRST, w[0], w[1], w[2], w[3], embed_wall);
    rectangle(vertices + 6 * QUAD_FIRST, q[0], q[1], q[2], q[3], embed_quad);
    glCreateBuffers(1, &lv->buffer);
    glNamedBufferStorage(lv->buffer, sizeof vertices, vertices, 0);
    glCreateVertexArrays(1, &lv->vertex_array);
    glVertexArrayVertexBuffer(lv->vertex_array, 0, lv->buffer, 0, 6 * sizeof(float));
    for (GLuint attribute = 0; attribute < 2; attribute++) {
        glVertexArrayAttribFormat(lv->vertex_array, attribute, 3, GL_FLOAT, GL_FALSE,
                                  attribute * 3 * sizeof(float));
        glVertexArrayAttribBinding(lv->vertex_array, attribute, 0);
        glEnableVertexArrayAttrib(lv->vertex_array, attribute);
    }
    const unsigned char white[4] = {255, 255, 255, 255};
    glCreateTextures(GL_TEXTURE_2D, 1, &lv->white);
    glTextureStorage2D(lv->white, 1, GL_RGBA8, 1, 1);
    glTextureSubImage2D(lv->white, 0, 0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, white);
    return linked != 0;
}

static void level_destroy(level *lv) {
    glDeleteProgram(lv->program);
    glDeleteVertexArrays(1, &lv->vertex_array);
    glDeleteBuffers(1, &lv->buffer);
    glDeleteTextures(1, &lv->white);
}

/* ---- the crowd ------------------------------------------------------------ */

typedef struct crowd_part {
    crowd_asset *character;
    crowd_bake *bake;
    crowd_world *world;
} crowd_part;

/* The built-in character baked in memory; 5 x 4 of them behind the wall,
 * in vat mode, each at its own point of its clip. */
static crowd_result crowd_part_create(crowd_part *c, crowd_error *e) {
    crowd_archetype walker;
    crowd_result result = crowd_builtin_create(&c->character, e);
    if (result == CROWD_OK) {
        result = crowd_bake_build(c->character, NULL, &c->bake, e);
    }
    if (result == CROWD_OK) {
        result = crowd_world_create(NULL, &c->world, e);
    }
    if (result == CROWD_OK) {
        crowd_archetype_desc desc = {
            .asset = c->character, .bake = c->bake, .mode = CROWD_GPU_MODE_VAT};
        result = crowd_world_add_archetype(c->world, &desc, &walker, e);
    }
    uint32_t walk = 0; /* the first clip when there is no "walk" */
    if (result == CROWD_OK) {
        crowd_archetype_find_clip(c->world, walker, "walk", &walk);
    }
    for (int i = 0; result == CROWD_OK && i < 20; i++) {
        crowd_instance_desc d = {
            .position = {-3.0f + 1.5f * (float)(i % 5), 0.0f, -1.5f - 2.0f * (float)(i / 5)},
            .heading_rad = 0.3f * (float)(i % 3),
            .clip = walk,
            .time_offset_s = 0.17f * (float)i};
        crowd_instance instance;
        result = crowd_world_add_instance(c->world, walker, &d, &instance, e);
    }
    return result;
}

static void crowd_part_destroy(crowd_part *c) {
    crowd_world_destroy(c->world);
    crowd_bake_destroy(c->bake);
    crowd_asset_destroy(c->character);
}

/* ---- one frame ------------------------------------------------------------ */

static crowd_result draw_frame(const embed_app *app, const level *lv, crowd_world *world,
                               crowd_error *e) {
    float view[16], projection[16], view_proj[16];
    app_camera(EMBED_WIDTH, EMBED_HEIGHT, view, projection);
    app_multiply(projection, view, view_proj);
    embed_app_begin(app, embed_sky);

    /* The level first, writing depth. */
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glUseProgram(lv->program);
    glBindVertexArray(lv->vertex_array);
    glBindTextureUnit(2, lv->white);
    glUniformMatrix4fv(0, 1, GL_FALSE, view_proj);
    glDrawArrays(GL_TRIANGLES, GROUND_FIRST, 12);

    /* The crowd, into the bound framebuffer and viewport, tested against
     * the level's depth. */
    crowd_draw_desc desc = {.pass = CROWD_PASS_COLOR};
    for (int i = 0; i < 16; i++) {
        desc.view[i] = view[i];
        desc.projection[i] = projection[i];
    }
    crowd_light_default(&desc.light);
    crowd_result result = crowd_world_update(world, 2.0, e);
    if (result == CROWD_OK) {
        result = crowd_world_draw(world, &desc, e);
    }

    /* The marker on top, with the program, vertex array and texture the
     * level bound: crowd restored them. */
    glDisable(GL_DEPTH_TEST);
    const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    glUniformMatrix4fv(0, 1, GL_FALSE, identity);
    glDrawArrays(GL_TRIANGLES, QUAD_FIRST, 6);
    return result;
}

static bool write_png(const embed_app *app, const char *path) {
    static unsigned char pixels[EMBED_WIDTH * EMBED_HEIGHT * 4];
    return embed_app_read(app, pixels) && app_write_png(path, pixels, EMBED_WIDTH, EMBED_HEIGHT);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: crowd_embed OUT.png\n");
        return 1;
    }
    embed_app app;
    if (!embed_app_create(&app, 4, 5, EMBED_WIDTH, EMBED_HEIGHT)) {
        fprintf(stderr, "crowd_embed: no OpenGL 4.5 context (EGL error 0x%x)\n",
                (unsigned)eglGetError());
        embed_app_destroy(&app);
        return 77;
    }
    level lv = {0};
    crowd_part crowd = {0};
    crowd_error e = {0};
    bool ok = level_create(&lv);
    crowd_result result = crowd_part_create(&crowd, &e);
    if (result == CROWD_OK) {
        result = draw_frame(&app, &lv, crowd.world, &e);
    }
    if (result != CROWD_OK) {
        fprintf(stderr, "crowd_embed: error: %s%s%s\n", e.file, e.file[0] ? ": " : "", e.reason);
    }
    ok = ok && result == CROWD_OK && write_png(&app, argv[1]);
    if (ok) {
        printf("%s: the level, 20 characters behind its wall, a marker\n", argv[1]);
    }
    crowd_part_destroy(&crowd);
    level_destroy(&lv);
    embed_app_destroy(&app);
    return ok ? 0 : 1;
}
