/* embed.c - crowd inside an application that owns everything else.
 *
 * The application makes its own OpenGL 4.5 context (plain EGL, headless),
 * its own framebuffer, camera and shader; it draws its level (a ground and
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
#include <math.h>
#include <png.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* epoxy first: it declares the Khronos types EGL's headers would too. */
#include <epoxy/gl.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>

#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "crowd/gpu.h"
#include "embed_scene.h"

/* ---- the application's context and framebuffer -------------------------- */

typedef struct app_gl {
    EGLDisplay display;
    EGLContext context;
    GLuint framebuffer, color, depth;
} app_gl;

/* A 4.5 core context on `display`, current without a surface. Displays
 * without configs (Mesa's device platform) take a context without one
 * (EGL_KHR_no_config_context). A display is never terminated: EGL has one
 * per device and process, shared with any other user of that device in
 * the process, and terminating it would pull it from under them. */
static bool context_on(app_gl *gl, EGLDisplay display) {
    const EGLint config_wanted[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    const EGLint version[] = {EGL_CONTEXT_MAJOR_VERSION,
                              4,
                              EGL_CONTEXT_MINOR_VERSION,
                              5,
                              EGL_CONTEXT_OPENGL_PROFILE_MASK,
                              EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                              EGL_NONE};
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, NULL, NULL)) {
        return false;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        return false;
    }
    EGLConfig config;
    EGLint configs = 0;
    if (!eglChooseConfig(display, config_wanted, &config, 1, &configs) || configs != 1) {
        config = EGL_NO_CONFIG_KHR;
    }
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, version);
    if (context != EGL_NO_CONTEXT &&
        !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
        eglDestroyContext(display, context);
        context = EGL_NO_CONTEXT;
    }
    if (context == EGL_NO_CONTEXT) {
        return false;
    }
    gl->display = display;
    gl->context = context;
    return true;
}

/* The first EGL device that gives a context (a GPU, or Mesa's software
 * rasterizer), else the default display; then an RGBA8 + depth
 * framebuffer object to draw in. */
static bool app_gl_create(app_gl *gl) {
    PFNEGLQUERYDEVICESEXTPROC query_devices =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDeviceEXT devices[8];
    EGLint count = 0;
    if (query_devices == NULL || platform_display == NULL || !query_devices(8, devices, &count)) {
        count = 0;
    }
    bool made = false;
    for (EGLint i = 0; i < count && !made; i++) {
        made = context_on(gl, platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL));
    }
    if (!made && !context_on(gl, eglGetDisplay(EGL_DEFAULT_DISPLAY))) {
        return false;
    }
    glCreateRenderbuffers(1, &gl->color);
    glCreateRenderbuffers(1, &gl->depth);
    glNamedRenderbufferStorage(gl->color, GL_RGBA8, EMBED_WIDTH, EMBED_HEIGHT);
    glNamedRenderbufferStorage(gl->depth, GL_DEPTH_COMPONENT24, EMBED_WIDTH, EMBED_HEIGHT);
    glCreateFramebuffers(1, &gl->framebuffer);
    glNamedFramebufferRenderbuffer(gl->framebuffer, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                                   gl->color);
    glNamedFramebufferRenderbuffer(gl->framebuffer, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER,
                                   gl->depth);
    return glCheckNamedFramebufferStatus(gl->framebuffer, GL_FRAMEBUFFER) ==
           GL_FRAMEBUFFER_COMPLETE;
}

static void app_gl_destroy(app_gl *gl) {
    if (gl->context != EGL_NO_CONTEXT) {
        glDeleteFramebuffers(1, &gl->framebuffer);
        glDeleteRenderbuffers(1, &gl->color);
        glDeleteRenderbuffers(1, &gl->depth);
        eglMakeCurrent(gl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(gl->display, gl->context);
    }
}

/* ---- the application's level: its shader, its geometry, its camera ------- */

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

/* The application's camera: 1.6 m above the ground at z = 6, looking
 * straight down -Z, 50 degrees of vertical field of view. */
static void camera(float view[16], float projection[16]) {
    for (int i = 0; i < 16; i++) {
        view[i] = i % 5 == 0 ? 1.0f : 0.0f;
        projection[i] = 0.0f;
    }
    view[13] = -1.6f;
    view[14] = -6.0f;
    const float near = 0.1f, far = 100.0f, f = 1.0f / tanf(25.0f * 3.14159265f / 180.0f);
    projection[0] = f * EMBED_HEIGHT / EMBED_WIDTH;
    projection[5] = f;
    projection[10] = (far + near) / (near - far);
    projection[11] = -1.0f;
    projection[14] = 2.0f * far * near / (near - far);
}

static void multiply(const float a[16], const float b[16], float out[16]) {
    for (int i = 0; i < 16; i++) {
        out[i] = 0.0f;
        for (int k = 0; k < 4; k++) {
            out[i] += a[4 * k + i % 4] * b[i / 4 * 4 + k];
        }
    }
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

static crowd_result draw_frame(const app_gl *gl, const level *lv, crowd_world *world,
                               crowd_error *e) {
    float view[16], projection[16], view_proj[16];
    camera(view, projection);
    multiply(projection, view, view_proj);

    glBindFramebuffer(GL_FRAMEBUFFER, gl->framebuffer);
    glViewport(0, 0, EMBED_WIDTH, EMBED_HEIGHT);
    glClearColor(embed_sky[0] / 255.0f, embed_sky[1] / 255.0f, embed_sky[2] / 255.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);

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

/* Reads the framebuffer (rows bottom first) and writes it bottom-up. */
static bool write_png(const app_gl *gl, const char *path) {
    static unsigned char pixels[EMBED_WIDTH * EMBED_HEIGHT * 4];
    glBindFramebuffer(GL_READ_FRAMEBUFFER, gl->framebuffer);
    glReadPixels(0, 0, EMBED_WIDTH, EMBED_HEIGHT, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    png_image image = {.version = PNG_IMAGE_VERSION,
                       .width = EMBED_WIDTH,
                       .height = EMBED_HEIGHT,
                       .format = PNG_FORMAT_RGBA};
    return glGetError() == GL_NO_ERROR &&
           png_image_write_to_file(&image, path, 0, pixels, -EMBED_WIDTH * 4, NULL) != 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: crowd_embed OUT.png\n");
        return 1;
    }
    app_gl gl = {EGL_NO_DISPLAY, EGL_NO_CONTEXT, 0, 0, 0};
    if (!app_gl_create(&gl)) {
        fprintf(stderr, "crowd_embed: no OpenGL 4.5 context (EGL error 0x%x)\n",
                (unsigned)eglGetError());
        app_gl_destroy(&gl);
        return 77;
    }
    level lv = {0};
    crowd_part crowd = {0};
    crowd_error e = {0};
    bool ok = level_create(&lv);
    crowd_result result = crowd_part_create(&crowd, &e);
    if (result == CROWD_OK) {
        result = draw_frame(&gl, &lv, crowd.world, &e);
    }
    if (result != CROWD_OK) {
        fprintf(stderr, "crowd_embed: error: %s%s%s\n", e.file, e.file[0] ? ": " : "", e.reason);
    }
    ok = ok && result == CROWD_OK && write_png(&gl, argv[1]);
    if (ok) {
        printf("%s: the level, 20 characters behind its wall, a marker\n", argv[1]);
    }
    crowd_part_destroy(&crowd);
    level_destroy(&lv);
    app_gl_destroy(&gl);
    return ok ? 0 : 1;
}
