/* The GL state crowd leaves to the application, and the projections it
 * draws with.
 *
 * State: every piece of state that crowd/gpu.h says crowd leaves untouched
 * or restores is set to a value of the test's choosing (twice: with every
 * capability on and odd values, then with every capability off), and read
 * back after each call that may touch GL: world creation, adding an
 * archetype (one with the game's own shading), mode changes, instance
 * edits, updates and both passes in every mode with each way of culling,
 * removal and destruction;
 * under CROWD_STATE_RESTORE everything reads as the application set it,
 * under CROWD_STATE_RESET the same except that a draw leaves the bindings
 * it resets at GL's defaults.
 * It runs on both tiers on the GL 4.5 context (groups state and
 * state_portable) and on the portable tier of real GL 3.3 core and GLES 3.0
 * contexts (state_gl33, state_gles3), setting and reading only the state
 * each context has.
 * An archetype added while the application's pixel-unpack state is odd
 * (alignment, row length, skips, a bound unpack buffer) must still upload
 * its textures right: it draws what one added under GL's defaults draws.
 *
 * Projections: a reversed-Z infinite projection (glClipControl zero-to-one,
 * GL_GREATER, depth cleared to 0; GL 4.5 only) draws what the ordinary one
 * draws, and an orthographic projection draws the bar's bind pose as the
 * exact rectangle its size gives, in every mode. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/builtin.h"
#include "gpu_app.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

#define MAX_VALUES 200
/* Texture units the application binds: crowd's 0-3, the portable tier's
 * 4-5 and both tiers' side table (6). */
#define APP_UNITS 7

/* Named values read back from GL. */
typedef struct gl_snapshot {
    int count;
    const char *names[MAX_VALUES];
    double values[MAX_VALUES];
} gl_snapshot;

static void put(gl_snapshot *s, const char *name, double value) {
    if (s->count < MAX_VALUES) {
        s->names[s->count] = name;
        s->values[s->count++] = value;
    }
}

static void put_ints(gl_snapshot *s, const char *name, GLenum pname, int n) {
    GLint v[4] = {0, 0, 0, 0};
    glGetIntegerv(pname, v);
    for (int i = 0; i < n; i++) {
        put(s, name, v[i]);
    }
}

static void put_floats(gl_snapshot *s, const char *name, GLenum pname, int n) {
    GLfloat v[4] = {0, 0, 0, 0};
    glGetFloatv(pname, v);
    for (int i = 0; i < n; i++) {
        put(s, name, v[i]);
    }
}

static void put_enabled(gl_snapshot *s, const char *name, GLenum capability) {
    put(s, name, glIsEnabled(capability));
}

static const GLenum pixel_store[] = {
    GL_PACK_ALIGNMENT,      GL_PACK_ROW_LENGTH,   GL_PACK_SKIP_ROWS,   GL_PACK_SKIP_PIXELS,
    GL_UNPACK_ALIGNMENT,    GL_UNPACK_ROW_LENGTH, GL_UNPACK_SKIP_ROWS, GL_UNPACK_SKIP_PIXELS,
    GL_UNPACK_IMAGE_HEIGHT, GL_UNPACK_SKIP_IMAGES};

/* The unpack settings are named apart: CROWD_STATE_RESET leaves them at
 * GL's defaults on the portable tier (alignment 4, the rest 0). */
static const char *pixel_store_name(GLenum name) {
    return name == GL_UNPACK_ALIGNMENT ? "unpack alignment"
           : name == GL_PACK_ALIGNMENT || name == GL_PACK_ROW_LENGTH || name == GL_PACK_SKIP_ROWS ||
                   name == GL_PACK_SKIP_PIXELS
               ? "pack store"
               : "unpack store";
}

/* What the current context has (set by run_state). GL 4.5 core has every
 * piece of state below; GL 3.3 core and GLES 3.0 have no storage, draw- or
 * dispatch-indirect, atomic-counter or query buffers and no clip control;
 * GLES has no texture buffers, polygon mode, sRGB or multisample enables,
 * no GL_PRIMITIVE_RESTART (its restart is the fixed-index one) and names
 * its draw buffer GL_DRAW_BUFFER0. Only state the context has is set and
 * read: a query of state a context lacks is a GL error there. */
static bool context_gl45, context_desktop;

typedef enum gl_where { ON_EVERY_CONTEXT, ON_DESKTOP, ON_GL45 } gl_where;

static bool present(gl_where where) {
    return where == ON_EVERY_CONTEXT || (where == ON_DESKTOP ? context_desktop : context_gl45);
}

/* Buffer bindings besides those crowd/gpu.h names, all set by the test. */
typedef struct buffer_target {
    GLenum target, binding;
    gl_where where;
} buffer_target;
static const buffer_target other_buffers[] = {
    {GL_ARRAY_BUFFER, GL_ARRAY_BUFFER_BINDING, ON_EVERY_CONTEXT},
    {GL_PIXEL_UNPACK_BUFFER, GL_PIXEL_UNPACK_BUFFER_BINDING, ON_EVERY_CONTEXT},
    {GL_PIXEL_PACK_BUFFER, GL_PIXEL_PACK_BUFFER_BINDING, ON_EVERY_CONTEXT},
    {GL_UNIFORM_BUFFER, GL_UNIFORM_BUFFER_BINDING, ON_EVERY_CONTEXT},
    {GL_DISPATCH_INDIRECT_BUFFER, GL_DISPATCH_INDIRECT_BUFFER_BINDING, ON_GL45},
    {GL_COPY_READ_BUFFER, GL_COPY_READ_BUFFER_BINDING, ON_EVERY_CONTEXT},
    {GL_COPY_WRITE_BUFFER, GL_COPY_WRITE_BUFFER_BINDING, ON_EVERY_CONTEXT},
    {GL_ATOMIC_COUNTER_BUFFER, GL_ATOMIC_COUNTER_BUFFER_BINDING, ON_GL45},
    {GL_QUERY_BUFFER, GL_QUERY_BUFFER_BINDING, ON_GL45},
    {GL_TEXTURE_BUFFER, GL_TEXTURE_BUFFER_BINDING, ON_DESKTOP},
    {GL_TRANSFORM_FEEDBACK_BUFFER, GL_TRANSFORM_FEEDBACK_BUFFER_BINDING, ON_EVERY_CONTEXT}};
#define OTHER_BUFFERS (sizeof other_buffers / sizeof other_buffers[0])

/* What the application's vertex array holds (crowd must not bind its
 * buffers into it): by direct state access on 4.5, where the vertex
 * binding points are; elsewhere per attribute, with the array bound for
 * the query and the current one bound again. */
static void put_app_vertex_array(gl_snapshot *s, GLuint app_vertex_array) {
    if (context_gl45) {
        for (GLuint b = 0; b < 8; b++) {
            GLint buffer = 0, stride = 0;
            glGetVertexArrayIndexediv(app_vertex_array, b, GL_VERTEX_BINDING_BUFFER, &buffer);
            glGetVertexArrayIndexediv(app_vertex_array, b, GL_VERTEX_BINDING_STRIDE, &stride);
            put(s, "application vertex array's buffers", buffer);
            put(s, "application vertex array's strides", stride);
        }
        GLint elements = 0;
        glGetVertexArrayiv(app_vertex_array, GL_ELEMENT_ARRAY_BUFFER_BINDING, &elements);
        put(s, "application vertex array's element buffer", elements);
        return;
    }
    GLint current = 0;
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &current);
    glBindVertexArray(app_vertex_array);
    for (GLuint a = 0; a < 8; a++) {
        GLint buffer = 0, stride = 0, enabled = 0;
        void *offset = NULL;
        glGetVertexAttribiv(a, GL_VERTEX_ATTRIB_ARRAY_BUFFER_BINDING, &buffer);
        glGetVertexAttribiv(a, GL_VERTEX_ATTRIB_ARRAY_STRIDE, &stride);
        glGetVertexAttribiv(a, GL_VERTEX_ATTRIB_ARRAY_ENABLED, &enabled);
        glGetVertexAttribPointerv(a, GL_VERTEX_ATTRIB_ARRAY_POINTER, &offset);
        put(s, "application vertex array's buffers", buffer);
        put(s, "application vertex array's strides", stride);
        put(s, "application vertex array's enables", enabled);
        put(s, "application vertex array's offsets", (double)(uintptr_t)offset);
    }
    GLint elements = 0;
    glGetIntegerv(GL_ELEMENT_ARRAY_BUFFER_BINDING, &elements);
    put(s, "application vertex array's element buffer", elements);
    glBindVertexArray((GLuint)current);
}

/* GL's state, and what the application's vertex array holds (crowd must
 * not bind its buffers into it). */
static void snapshot(gl_snapshot *s, GLuint app_vertex_array) {
    s->count = 0;
    put_ints(s, "draw framebuffer", GL_DRAW_FRAMEBUFFER_BINDING, 1);
    put_ints(s, "read framebuffer", GL_READ_FRAMEBUFFER_BINDING, 1);
    put_ints(s, "viewport", GL_VIEWPORT, 4);
    put_ints(s, "program", GL_CURRENT_PROGRAM, 1);
    put_ints(s, "vertex array", GL_VERTEX_ARRAY_BINDING, 1);
    for (size_t i = 0; i < OTHER_BUFFERS; i++) {
        /* The portable tier sets attributes through the array buffer. */
        if (present(other_buffers[i].where)) {
            put_ints(s,
                     i == 0   ? "array buffer"
                     : i == 1 ? "pixel unpack buffer"
                              : "other buffer bindings",
                     other_buffers[i].binding, 1);
        }
    }
    if (context_gl45) {
        put_ints(s, "draw indirect buffer", GL_DRAW_INDIRECT_BUFFER_BINDING, 1);
    }
    put_app_vertex_array(s, app_vertex_array);
    put_ints(s, "active texture", GL_ACTIVE_TEXTURE, 1);
    GLint active = 0;
    glGetIntegerv(GL_ACTIVE_TEXTURE, &active);
    for (GLenum u = 0; u < APP_UNITS; u++) {
        glActiveTexture(GL_TEXTURE0 + u);
        put_ints(s,
                 u < 4   ? "texture 2D of units 0-3"
                 : u < 6 ? "texture 2D of units 4-5"
                         : "texture 2D of unit 6",
                 GL_TEXTURE_BINDING_2D, 1);
        put_ints(s,
                 u < 4   ? "texture 2D array of units 0-3"
                 : u < 6 ? "texture 2D array of units 4-5"
                         : "texture 2D array of unit 6",
                 GL_TEXTURE_BINDING_2D_ARRAY, 1);
        put_ints(s,
                 u < 4   ? "sampler of units 0-3"
                 : u < 6 ? "sampler of units 4-5"
                         : "sampler of unit 6",
                 GL_SAMPLER_BINDING, 1);
    }
    glActiveTexture((GLenum)active);
    if (context_gl45) {
        put_ints(s, "storage buffer", GL_SHADER_STORAGE_BUFFER_BINDING, 1);
    }
    for (GLuint i = 1; context_gl45 && i <= 6; i++) {
        GLint binding = 0;
        GLint64 start = 0, size = 0;
        glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, i, &binding);
        glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, i, &start);
        glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, i, &size);
        put(s, "storage buffer 1-6", binding);
        put(s, "storage buffer 1-6 start", (double)start);
        put(s, "storage buffer 1-6 size", (double)size);
    }
    put_enabled(s, "blend", GL_BLEND);
    put_ints(s, "blend src rgb", GL_BLEND_SRC_RGB, 1);
    put_ints(s, "blend dst rgb", GL_BLEND_DST_RGB, 1);
    put_ints(s, "blend src alpha", GL_BLEND_SRC_ALPHA, 1);
    put_ints(s, "blend dst alpha", GL_BLEND_DST_ALPHA, 1);
    put_ints(s, "blend equation rgb", GL_BLEND_EQUATION_RGB, 1);
    put_ints(s, "blend equation alpha", GL_BLEND_EQUATION_ALPHA, 1);
    put_floats(s, "blend colour", GL_BLEND_COLOR, 4);
    put_enabled(s, "depth test", GL_DEPTH_TEST);
    put_ints(s, "depth func", GL_DEPTH_FUNC, 1);
    put_ints(s, "depth mask", GL_DEPTH_WRITEMASK, 1);
    put_floats(s, "depth range", GL_DEPTH_RANGE, 2);
    if (context_gl45) {
        put_ints(s, "clip origin", GL_CLIP_ORIGIN, 1);
        put_ints(s, "clip depth mode", GL_CLIP_DEPTH_MODE, 1);
    }
    put_enabled(s, "cull face", GL_CULL_FACE);
    put_ints(s, "cull face mode", GL_CULL_FACE_MODE, 1);
    put_ints(s, "front face", GL_FRONT_FACE, 1);
    put_enabled(s, "scissor test", GL_SCISSOR_TEST);
    put_ints(s, "scissor box", GL_SCISSOR_BOX, 4);
    put_enabled(s, "stencil test", GL_STENCIL_TEST);
    put_ints(s, "stencil func", GL_STENCIL_FUNC, 1);
    put_ints(s, "stencil ref", GL_STENCIL_REF, 1);
    put_ints(s, "stencil value mask", GL_STENCIL_VALUE_MASK, 1);
    put_ints(s, "stencil writemask", GL_STENCIL_WRITEMASK, 1);
    put_ints(s, "stencil fail", GL_STENCIL_FAIL, 1);
    put_ints(s, "stencil pass depth fail", GL_STENCIL_PASS_DEPTH_FAIL, 1);
    put_ints(s, "stencil pass depth pass", GL_STENCIL_PASS_DEPTH_PASS, 1);
    put_ints(s, "stencil back func", GL_STENCIL_BACK_FUNC, 1);
    put_ints(s, "stencil back fail", GL_STENCIL_BACK_FAIL, 1);
    put_enabled(s, "polygon offset fill", GL_POLYGON_OFFSET_FILL);
    put_floats(s, "polygon offset factor", GL_POLYGON_OFFSET_FACTOR, 1);
    put_floats(s, "polygon offset units", GL_POLYGON_OFFSET_UNITS, 1);
    if (context_desktop) {
        put_ints(s, "polygon mode", GL_POLYGON_MODE, 2);
    }
    for (size_t i = 0; i < sizeof pixel_store / sizeof pixel_store[0]; i++) {
        put_ints(s, pixel_store_name(pixel_store[i]), pixel_store[i], 1);
    }
    put_ints(s, "colour mask", GL_COLOR_WRITEMASK, 4);
    put_floats(s, "clear colour", GL_COLOR_CLEAR_VALUE, 4);
    put_floats(s, "clear depth", GL_DEPTH_CLEAR_VALUE, 1);
    put_ints(s, "clear stencil", GL_STENCIL_CLEAR_VALUE, 1);
    if (context_desktop) {
        put_enabled(s, "framebuffer sRGB", GL_FRAMEBUFFER_SRGB);
        put_enabled(s, "multisample", GL_MULTISAMPLE);
        put_enabled(s, "primitive restart", GL_PRIMITIVE_RESTART);
    }
    if (context_gl45 || !context_desktop) {
        put_enabled(s, "primitive restart fixed index", GL_PRIMITIVE_RESTART_FIXED_INDEX);
    }
    put_enabled(s, "rasterizer discard", GL_RASTERIZER_DISCARD);
    put_ints(s, "draw buffer", context_desktop ? GL_DRAW_BUFFER : GL_DRAW_BUFFER0, 1);
}

/* The application's objects the state points at. */
typedef struct app_objects {
    GLuint framebuffer, color, depth_stencil;
    GLuint textures_2d[APP_UNITS], textures_array[APP_UNITS], samplers[APP_UNITS];
    GLuint storage[7], other[OTHER_BUFFERS], indirect;
    app_quad quad; /* its program and vertex array are "the application's" */
} app_objects;

/* A buffer of `bytes` made through GL_COPY_WRITE_BUFFER, which no state
 * run compares before it is set. */
static GLuint buffer_create(GLsizeiptr bytes) {
    GLuint buffer = 0;
    glGenBuffers(1, &buffer);
    glBindBuffer(GL_COPY_WRITE_BUFFER, buffer);
    glBufferData(GL_COPY_WRITE_BUFFER, bytes, NULL, GL_DYNAMIC_DRAW);
    return buffer;
}

/* Made bind-to-edit, as GL 3.3 and GLES 3.0 have no direct state access;
 * the bindings it passes through are left at GL's defaults. */
static bool objects_create(app_objects *o) {
    memset(o, 0, sizeof *o);
    glGenRenderbuffers(1, &o->color);
    glGenRenderbuffers(1, &o->depth_stencil);
    glBindRenderbuffer(GL_RENDERBUFFER, o->color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, GPU_TEST_WIDTH, GPU_TEST_HEIGHT);
    glBindRenderbuffer(GL_RENDERBUFFER, o->depth_stencil);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, GPU_TEST_WIDTH, GPU_TEST_HEIGHT);
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    glGenFramebuffers(1, &o->framebuffer);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, o->framebuffer);
    glFramebufferRenderbuffer(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, o->color);
    glFramebufferRenderbuffer(GL_DRAW_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER,
                              o->depth_stencil);
    bool complete = glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    glGenTextures(APP_UNITS, o->textures_2d);
    glGenTextures(APP_UNITS, o->textures_array);
    glGenSamplers(APP_UNITS, o->samplers);
    glActiveTexture(GL_TEXTURE0);
    for (int u = 0; u < APP_UNITS; u++) {
        glBindTexture(GL_TEXTURE_2D, o->textures_2d[u]);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 4, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        glBindTexture(GL_TEXTURE_2D_ARRAY, o->textures_array[u]);
        glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_RGBA8, 4, 4, 2, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        /* A sampler object exists once bound. */
        glBindSampler(0, o->samplers[u]);
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    glBindSampler(0, 0);
    for (int i = 0; i < 7; i++) {
        o->storage[i] = buffer_create(4096);
    }
    for (size_t i = 0; i < OTHER_BUFFERS; i++) {
        o->other[i] = buffer_create(1 << 16);
    }
    o->indirect = buffer_create(256);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    const float corners[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    if (!app_quad_create(&o->quad, corners)) {
        return false;
    }
    /* Its own element buffer and a second vertex binding (attribute 6),
     * both unused. */
    glBindVertexArray(o->quad.vertex_array);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, o->other[0]);
    glBindBuffer(GL_ARRAY_BUFFER, o->other[1]);
    glVertexAttribPointer(6, 4, GL_FLOAT, GL_FALSE, 32, (const void *)16);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return complete;
}

static void objects_destroy(app_objects *o) {
    glDeleteFramebuffers(1, &o->framebuffer);
    glDeleteRenderbuffers(1, &o->color);
    glDeleteRenderbuffers(1, &o->depth_stencil);
    glDeleteTextures(APP_UNITS, o->textures_2d);
    glDeleteTextures(APP_UNITS, o->textures_array);
    glDeleteSamplers(APP_UNITS, o->samplers);
    glDeleteBuffers(7, o->storage);
    glDeleteBuffers(OTHER_BUFFERS, o->other);
    glDeleteBuffers(1, &o->indirect);
    app_quad_destroy(&o->quad);
}

static void set_enabled(GLenum capability, bool on) {
    if (on) {
        glEnable(capability);
    } else {
        glDisable(capability);
    }
}

/* glDepthRange and glClearDepth take doubles on desktop GL; GLES has only
 * the float forms. */
static void set_depth_range(float near, float far) {
    if (context_desktop) {
        glDepthRange(near, far);
    } else {
        glDepthRangef(near, far);
    }
}

static void set_clear_depth(float depth) {
    if (context_desktop) {
        glClearDepth(depth);
    } else {
        glClearDepthf(depth);
    }
}

/* Ranges, whole buffers and nothing on the storage points crowd uses, and
 * the generic binding (GL 4.5 only). */
static void set_storage_state(const app_objects *o, bool odd) {
    GLint align = 16;
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &align);
    for (GLuint i = 1; i <= 6; i++) {
        int kind = (int)(i + (odd ? 0 : 1)) % 3;
        if (kind == 0) {
            glBindBufferRange(GL_SHADER_STORAGE_BUFFER, i, o->storage[i - 1], (GLintptr)i * align,
                              256);
        } else {
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, i, kind == 1 ? o->storage[i - 1] : 0);
        }
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, o->storage[6]);
}

/* The application's state: `odd` turns every capability on with values
 * away from GL's defaults; otherwise every capability is off (the other
 * side of each enable crowd toggles) with other values again. */
static void set_application_state(const app_objects *o, bool odd) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, odd ? o->framebuffer : gpu_test_target.framebuffer);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, odd ? gpu_test_target.framebuffer : o->framebuffer);
    glViewport(odd ? 3 : 0, odd ? 5 : 2, odd ? 150 : 160, odd ? 100 : 117);
    glUseProgram(o->quad.program);
    glBindVertexArray(o->quad.vertex_array);
    /* A bound pixel unpack buffer would take crowd's texture uploads. */
    for (size_t i = 0; i < OTHER_BUFFERS; i++) {
        if (present(other_buffers[i].where)) {
            glBindBuffer(other_buffers[i].target, odd || i % 2 == 0 ? o->other[i] : 0);
        }
    }
    if (context_gl45) {
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, o->indirect);
        set_storage_state(o, odd);
    }
    for (GLuint u = 0; u < APP_UNITS; u++) {
        glActiveTexture(GL_TEXTURE0 + u);
        glBindTexture(GL_TEXTURE_2D, o->textures_2d[odd ? u : APP_UNITS - 1 - u]);
        glBindTexture(GL_TEXTURE_2D_ARRAY, o->textures_array[odd ? APP_UNITS - 1 - u : u]);
        glBindSampler(u, odd || u % 2 == 0 ? o->samplers[u] : 0);
    }
    glActiveTexture(odd ? GL_TEXTURE2 : GL_TEXTURE5);
    set_enabled(GL_BLEND, odd);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, odd ? GL_ZERO : GL_DST_ALPHA);
    glBlendEquationSeparate(odd ? GL_FUNC_SUBTRACT : GL_FUNC_ADD, GL_MAX);
    glBlendColor(0.1f, 0.2f, 0.3f, 0.4f);
    set_enabled(GL_DEPTH_TEST, odd);
    glDepthFunc(odd ? GL_LEQUAL : GL_GREATER);
    glDepthMask(odd ? GL_FALSE : GL_TRUE);
    set_depth_range(odd ? 0.1f : 0.0f, odd ? 0.9f : 0.95f);
    if (context_gl45) {
        glClipControl(odd ? GL_UPPER_LEFT : GL_LOWER_LEFT,
                      odd ? GL_ZERO_TO_ONE : GL_NEGATIVE_ONE_TO_ONE);
    }
    set_enabled(GL_CULL_FACE, odd);
    glCullFace(odd ? GL_FRONT : GL_FRONT_AND_BACK);
    glFrontFace(GL_CW);
    set_enabled(GL_SCISSOR_TEST, odd);
    glScissor(10, 12, 50, 40);
    set_enabled(GL_STENCIL_TEST, odd);
    glStencilFuncSeparate(GL_FRONT, GL_EQUAL, 3, 0x0f);
    glStencilFuncSeparate(GL_BACK, GL_NOTEQUAL, 1, 0xff);
    glStencilOpSeparate(GL_FRONT, GL_KEEP, GL_INCR, GL_REPLACE);
    glStencilOpSeparate(GL_BACK, GL_INVERT, GL_KEEP, GL_DECR);
    glStencilMask(0xf0);
    set_enabled(GL_POLYGON_OFFSET_FILL, odd);
    glPolygonOffset(1.5f, 2.0f);
    glPixelStorei(GL_PACK_ALIGNMENT, odd ? 2 : 8);
    glPixelStorei(GL_UNPACK_ALIGNMENT, odd ? 8 : 2);
    glPixelStorei(GL_PACK_ROW_LENGTH, odd ? 7 : 0);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, odd ? 5 : 0);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, odd ? 1 : 0);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, odd ? 2 : 0);
    glColorMask(GL_TRUE, GL_FALSE, GL_TRUE, odd ? GL_FALSE : GL_TRUE);
    glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
    set_clear_depth(odd ? 0.25f : 0.75f);
    glClearStencil(7);
    if (context_desktop) {
        set_enabled(GL_FRAMEBUFFER_SRGB, odd);
        set_enabled(GL_PRIMITIVE_RESTART, odd);
    }
    if (context_gl45 || !context_desktop) {
        set_enabled(GL_PRIMITIVE_RESTART_FIXED_INDEX, odd);
    }
}

/* GL's defaults for what set_application_state changed, so later groups
 * start from a known state. */
static void reset_state(void) {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glUseProgram(0);
    glBindVertexArray(0);
    for (size_t i = 0; i < OTHER_BUFFERS; i++) {
        if (present(other_buffers[i].where)) {
            glBindBuffer(other_buffers[i].target, 0);
        }
    }
    for (GLuint u = 0; u < APP_UNITS; u++) {
        glActiveTexture(GL_TEXTURE0 + u);
        glBindTexture(GL_TEXTURE_2D, 0);
        glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
        glBindSampler(u, 0);
    }
    glActiveTexture(GL_TEXTURE0);
    if (context_gl45) {
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
        for (GLuint i = 1; i <= 5; i++) {
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, i, 0);
        }
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
        glClipControl(GL_LOWER_LEFT, GL_NEGATIVE_ONE_TO_ONE);
    }
    glDisable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ZERO);
    glBlendEquation(GL_FUNC_ADD);
    glDisable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    set_depth_range(0.0f, 1.0f);
    glDisable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    glFrontFace(GL_CCW);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_STENCIL_TEST);
    glStencilFunc(GL_ALWAYS, 0, 0xff);
    glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
    glStencilMask(0xff);
    glDisable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(0.0f, 0.0f);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glClearColor(0, 0, 0, 0);
    set_clear_depth(1.0f);
    glClearStencil(0);
    if (context_desktop) {
        glDisable(GL_FRAMEBUFFER_SRGB);
        glDisable(GL_PRIMITIVE_RESTART);
    }
    if (context_gl45 || !context_desktop) {
        glDisable(GL_PRIMITIVE_RESTART_FIXED_INDEX);
    }
}

/* One pass over the API under one application state and policy. */
typedef struct state_run {
    const app_objects *objects;
    bool odd;
    crowd_state_policy policy;
    gl_snapshot application; /* the state as the application set it */
} state_run;

/* What CROWD_STATE_RESET leaves at GL's defaults after a draw (the colour
 * mask all on, unpack alignment 4, every binding and the rest of the
 * unpack state 0): the GL 4.5 tier's list, and the portable tier's (its
 * units 0-5, the array buffer and the unpack state, no storage buffers). */
static const char *const reset_names[] = {"vertex array",
                                          "texture 2D of units 0-3",
                                          "texture 2D array of units 0-3",
                                          "sampler of units 0-3",
                                          "texture 2D of unit 6",
                                          "texture 2D array of unit 6",
                                          "sampler of unit 6",
                                          "storage buffer",
                                          "storage buffer 1-6",
                                          "storage buffer 1-6 start",
                                          "storage buffer 1-6 size",
                                          "colour mask",
                                          NULL};
static const char *const portable_reset_names[] = {"vertex array",
                                                   "texture 2D of units 0-3",
                                                   "texture 2D array of units 0-3",
                                                   "sampler of units 0-3",
                                                   "texture 2D of units 4-5",
                                                   "texture 2D array of units 4-5",
                                                   "sampler of units 4-5",
                                                   "texture 2D of unit 6",
                                                   "texture 2D array of unit 6",
                                                   "sampler of unit 6",
                                                   "array buffer",
                                                   "pixel unpack buffer",
                                                   "unpack store",
                                                   "unpack alignment",
                                                   "colour mask",
                                                   NULL};

/* The tier the state runs use (both are checked: test_gpu_state,
 * test_gpu_state_portable). */
static crowd_gpu_tier state_tier = CROWD_TIER_GL45;

static double expected_value(const state_run *run, int i, bool drew) {
    const char *name = run->application.names[i];
    const char *const *names =
        state_tier == CROWD_TIER_PORTABLE ? portable_reset_names : reset_names;
    for (size_t k = 0; drew && run->policy == CROWD_STATE_RESET && names[k] != NULL; k++) {
        if (strcmp(name, names[k]) == 0) {
            return strcmp(name, "colour mask") == 0        ? 1.0
                   : strcmp(name, "unpack alignment") == 0 ? 4.0
                                                           : 0.0;
        }
    }
    return run->application.values[i];
}

/* After `what`: GL's state is the application's (after a draw under
 * CROWD_STATE_RESET, with those bindings at GL's defaults) and no GL error
 * is pending; then the application's state is set again for the next call. */
static void expect_state(state_run *run, const char *what, bool drew) {
    gl_snapshot after;
    snapshot(&after, run->objects->quad.vertex_array);
    int changed = 0;
    for (int i = 0; i < run->application.count && i < after.count; i++) {
        double expected = expected_value(run, i, drew);
        if (after.values[i] != expected) {
            CHECK_MSG(false, "%s left %s at %g, expected %g", what, after.names[i], after.values[i],
                      expected);
            changed++;
        }
    }
    GLenum gl_error = glGetError();
    CHECK_MSG(gl_error == GL_NO_ERROR, "%s left GL error 0x%04x", what, (unsigned)gl_error);
    CHECK(run->application.count == after.count && after.count < MAX_VALUES);
    if (changed > 0) {
        printf("  %s: %d values not as expected\n", what, changed);
    }
    set_application_state(run->objects, run->odd);
}

static const char *flat_shade = "vec4 crowd_shade(crowd_surface s) {\n"
                                "    return vec4(s.base_color.rgb * 0.5, 1.0);\n"
                                "}\n";

/* Every call of the API that may touch GL, each followed by the check. */
static void exercise(const crowd_asset *bar, const crowd_bake *bar_bake, const crowd_asset *human,
                     const crowd_bake *human_bake, state_run *s) {
    crowd_error error;
    crowd_world *world = NULL;
    crowd_world_desc world_desc = {.timing = true, .state = s->policy, .tier = state_tier};
    CHECK(crowd_world_create(&world_desc, &world, &error) == CROWD_OK);
    expect_state(s, "crowd_world_create", false);
    REQUIRE_VOID(world != NULL);
    crowd_world_stats stats;
    crowd_world_get_stats(world, &stats);
    CHECK_MSG(stats.tier == state_tier, "the world runs the %s tier, not %s",
              crowd_gpu_tier_name(stats.tier), crowd_gpu_tier_name(state_tier));
    crowd_archetype a, b;
    CHECK(crowd_world_add_archetype(world, &(crowd_archetype_desc){.asset = bar, .bake = bar_bake},
                                    &a, &error) == CROWD_OK);
    expect_state(s, "crowd_world_add_archetype", false);
    CHECK(crowd_world_add_archetype(world,
                                    &(crowd_archetype_desc){.asset = human,
                                                            .bake = human_bake,
                                                            .mode = CROWD_GPU_MODE_VAT,
                                                            .fragment_source = flat_shade},
                                    &b, &error) == CROWD_OK);
    expect_state(s, "crowd_world_add_archetype (vat, own shading)", false);
    crowd_instance ids[3];
    for (int i = 0; i < 3; i++) {
        crowd_instance_desc desc = {.position = {(float)i - 1.0f, 0, 0}, .clip = (uint32_t)i % 2};
        CHECK(crowd_world_add_instance(world, i == 1 ? b : a, &desc, &ids[i], &error) == CROWD_OK);
    }
    expect_state(s, "crowd_world_add_instance", false);
    crowd_camera camera = gpu_test_bar_camera();
    crowd_draw_desc passes[2] = {gpu_test_draw_desc(&camera, CROWD_PASS_COLOR),
                                 gpu_test_draw_desc(&camera, CROWD_PASS_DEPTH)};
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        char what[96];
        CHECK(crowd_archetype_set_mode(world, a, (crowd_gpu_mode)m, &error) == CROWD_OK);
        CHECK(crowd_archetype_set_mode(world, b, (crowd_gpu_mode)((m + 1) % CROWD_GPU_MODE_COUNT),
                                       &error) == CROWD_OK);
        snprintf(what, sizeof what, "crowd_archetype_set_mode (%s)",
                 crowd_gpu_mode_name((crowd_gpu_mode)m));
        expect_state(s, what, false);
        CHECK_MSG(crowd_world_update(world, 0.1 * m, &error) == CROWD_OK, "update: %s",
                  error.reason);
        snprintf(what, sizeof what, "crowd_world_update (%s)",
                 crowd_gpu_mode_name((crowd_gpu_mode)m));
        expect_state(s, what, false);
        /* Each pass with each way of culling, LODs chosen. */
        for (int p = 0; p < 6; p++) {
            crowd_draw_desc pass = passes[p % 2];
            pass.cull = (crowd_cull_mode)(p / 2);
            pass.viewport_height_px = GPU_TEST_HEIGHT;
            CHECK(crowd_world_draw(world, &pass, &error) == CROWD_OK);
            const char *culls[3] = {"GPU", "CPU", "no"};
            snprintf(what, sizeof what, "crowd_world_draw (%s, %s pass, %s culling)",
                     crowd_gpu_mode_name((crowd_gpu_mode)m), p % 2 == 0 ? "colour" : "depth",
                     culls[p / 2]);
            expect_state(s, what, true);
        }
    }
    const float moved[3] = {0.5f, 0.0f, 0.5f};
    CHECK(crowd_instance_update(world, ids[0], &(crowd_instance_desc){.clip = 2}, &error) ==
          CROWD_OK);
    CHECK(crowd_instance_set_transform(world, ids[1], moved, 1.0f, 1.0f, &error) == CROWD_OK);
    CHECK(crowd_instance_set_speed(world, ids[2], 2.0f, &error) == CROWD_OK);
    CHECK(crowd_instance_play(world, ids[2], 1, 0.3f, &error) == CROWD_OK);
    expect_state(s, "instance edits", false);
    /* ids[2] fades in vat mode: the draws bind the side table (unit 6). */
    for (int p = 0; p < 6; p++) {
        crowd_draw_desc pass = passes[p % 2];
        pass.cull = (crowd_cull_mode)(p / 2);
        CHECK(crowd_world_draw(world, &pass, &error) == CROWD_OK);
        expect_state(s, "crowd_world_draw during a crossfade (vat)", true);
    }
    CHECK(crowd_world_remove_instance(world, ids[0], &error) == CROWD_OK);
    expect_state(s, "crowd_world_remove_instance", false);
    CHECK(crowd_world_remove_archetype(world, b, &error) == CROWD_OK);
    expect_state(s, "crowd_world_remove_archetype", false);
    crowd_world_clear_instances(world);
    CHECK(crowd_world_draw(world, &passes[0], &error) == CROWD_OK);
    expect_state(s, "crowd_world_clear_instances, an empty draw", false);
    crowd_world_destroy(world);
    expect_state(s, "crowd_world_destroy", false);
}

static void test_state(const crowd_asset *bar, const crowd_bake *bar_bake, const crowd_asset *human,
                       const crowd_bake *human_bake) {
    printf("state: what crowd leaves as the application set it\n");
    app_objects o;
    REQUIRE_VOID(objects_create(&o));
    for (int policy = CROWD_STATE_RESTORE; policy <= CROWD_STATE_RESET; policy++) {
        for (int odd = 1; odd >= 0; odd--) {
            state_run run = {&o, odd != 0, (crowd_state_policy)policy, {0}};
            set_application_state(&o, run.odd);
            snapshot(&run.application, o.quad.vertex_array);
            CHECK(glGetError() == GL_NO_ERROR);
            int failed_before = check_failures;
            exercise(bar, bar_bake, human, human_bake, &run);
            printf("  %s, %s (%d values): %s\n",
                   policy == CROWD_STATE_RESTORE ? "restore" : "reset",
                   odd ? "capabilities on, odd values" : "capabilities off", run.application.count,
                   check_failures == failed_before ? "as documented after every call" : "CHANGED");
        }
    }
    reset_state();
    objects_destroy(&o);
}

/* The application's unpack state while archetypes upload (materials, BAT
 * and VAT textures) must not reach crowd's uploads. */
static void test_unpack_state(const crowd_asset *bar, const crowd_bake *bake) {
    printf("state: textures uploaded under the application's unpack state\n");
    app_objects o;
    REQUIRE_VOID(objects_create(&o));
    crowd_camera camera = gpu_test_bar_camera();
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        gpu_scene plain, odd;
        bool made = gpu_scene_create(bar, bake, (crowd_gpu_mode)m, &plain);
        set_application_state(&o, true);
        made = gpu_scene_create(bar, bake, (crowd_gpu_mode)m, &odd) && made;
        reset_state();
        crowd_instance id;
        uint8_t *want = NULL, *got = NULL;
        if (made &&
            crowd_world_add_instance(plain.world, plain.archetype, &(crowd_instance_desc){0}, &id,
                                     NULL) == CROWD_OK &&
            crowd_world_add_instance(odd.world, odd.archetype, &(crowd_instance_desc){0}, &id,
                                     NULL) == CROWD_OK) {
            want = gpu_test_render(plain.world, 0.4, &camera);
            got = gpu_test_render(odd.world, 0.4, &camera);
        }
        CHECK(want != NULL && got != NULL);
        if (want != NULL && got != NULL) {
            image_diff d = image_compare(want, got, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, 0);
            CHECK_MSG(d.differing == 0, "%s: %u pixels differ when uploaded under odd unpack state",
                      crowd_gpu_mode_name((crowd_gpu_mode)m), (unsigned)d.differing);
        }
        free(want);
        free(got);
        gpu_scene_destroy(&plain);
        gpu_scene_destroy(&odd);
    }
    objects_destroy(&o);
}

/* Pixels that are not the background (the first pixel). */
static uint32_t silhouette_mismatch(const uint8_t *a, const uint8_t *b, uint32_t *covered) {
    uint32_t mismatched = 0;
    *covered = 0;
    for (uint32_t i = 0; i < GPU_TEST_PIXELS; i++) {
        bool in_a = memcmp(a + 4 * i, a, 3) != 0, in_b = memcmp(b + 4 * i, b, 3) != 0;
        *covered += in_a;
        mismatched += in_a != in_b;
    }
    return mismatched;
}

/* Reversed-Z with an infinite far plane: z_clip = near, w = -z_eye, so
 * depth = near / distance, 1 at the near plane and 0 at infinity. */
static void reversed_z(const float projection[16], float out[16]) {
    float near = projection[14] / (projection[10] - 1.0f);
    memset(out, 0, 16 * sizeof(float));
    out[0] = projection[0];
    out[5] = projection[5];
    out[11] = -1.0f;
    out[14] = near;
}

static void test_reversed_z(const crowd_asset *bar, const crowd_bake *bake) {
    printf("projections: reversed-Z, infinite far plane\n");
    if (!context_gl45) {
        /* Zero-to-one depth needs glClipControl (GL 4.5); the projection
         * math is the tiers' shared code, drawn on the 4.5 context. */
        printf("  not on this context: no glClipControl\n");
        return;
    }
    crowd_camera camera = gpu_test_bar_camera();
    gpu_scene s;
    REQUIRE_VOID(gpu_scene_create(bar, bake, CROWD_GPU_MODE_STATIC, &s));
    const float xs[3] = {-0.6f, 0.0f, 0.6f}, zs[3] = {0.0f, -0.5f, 0.5f};
    for (int i = 0; i < 3; i++) {
        crowd_instance_desc desc = {.position = {xs[i], 0, zs[i]}, .time_offset_s = 0.3f * i};
        crowd_instance id;
        CHECK(crowd_world_add_instance(s.world, s.archetype, &desc, &id, NULL) == CROWD_OK);
    }
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        const char *name = crowd_gpu_mode_name((crowd_gpu_mode)m);
        CHECK(crowd_archetype_set_mode(s.world, s.archetype, (crowd_gpu_mode)m, NULL) == CROWD_OK);
        uint8_t *normal = gpu_test_render(s.world, 0.35, &camera);
        crowd_draw_desc desc = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
        float projection[16];
        reversed_z(desc.projection, projection);
        memcpy(desc.projection, projection, sizeof projection);
        host_target_begin(&gpu_test_target, gpu_test_clear);
        const float zero = 0.0f;
        glClearNamedFramebufferfv(gpu_test_target.framebuffer, GL_DEPTH, 0, &zero);
        glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);
        glDepthFunc(GL_GREATER);
        CHECK(crowd_world_update(s.world, 0.35, NULL) == CROWD_OK);
        CHECK(crowd_world_draw(s.world, &desc, NULL) == CROWD_OK);
        glClipControl(GL_LOWER_LEFT, GL_NEGATIVE_ONE_TO_ONE);
        glDepthFunc(GL_LESS);
        uint8_t *reversed = gpu_test_read_rgba();
        if (normal != NULL && reversed != NULL) {
            char what[64];
            snprintf(what, sizeof what, "%s: reversed-Z vs ordinary", name);
            CHECK(gpu_test_close(what, normal, reversed, GPU_TEST_EXACT));
            uint32_t covered, mismatched = silhouette_mismatch(normal, reversed, &covered);
            printf("  %-40s silhouettes: %u of %u px differ\n", "", (unsigned)mismatched,
                   (unsigned)covered);
            CHECK(covered > 1000 && mismatched <= GPU_TEST_EXACT * GPU_TEST_PIXELS);
            gpu_test_save("state_reversed_z", name, reversed);
        } else {
            CHECK(false);
        }
        free(normal);
        free(reversed);
    }
    gpu_scene_destroy(&s);
}

/* Orthographic from the front, 40 pixels per metre both ways, centred at
 * (0, 1): the bar's bind pose (bend paused at 0 s) is its front face, 0.5 m
 * by 2 m, columns 70-89 and rows 20-99 (top first), filled. */
static void test_orthographic(const crowd_asset *bar, const crowd_bake *bake) {
    printf("projections: orthographic\n");
    gpu_scene s;
    REQUIRE_VOID(gpu_scene_create(bar, bake, CROWD_GPU_MODE_STATIC, &s));
    crowd_instance id;
    CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){.paused = true},
                                   &id, NULL) == CROWD_OK);
    crowd_camera camera = {.eye = {0, 1, 5}, .target = {0, 1, 0}};
    crowd_draw_desc desc = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
    const float half_w = 2.0f, half_h = 1.5f, near = 0.5f, far = 20.0f;
    memset(desc.projection, 0, sizeof desc.projection);
    desc.projection[0] = 1.0f / half_w;
    desc.projection[5] = 1.0f / half_h;
    desc.projection[10] = -2.0f / (far - near);
    desc.projection[14] = -(far + near) / (far - near);
    desc.projection[15] = 1.0f;
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        CHECK(crowd_archetype_set_mode(s.world, s.archetype, (crowd_gpu_mode)m, NULL) == CROWD_OK);
        uint8_t *pixels = gpu_test_frame(s.world, 0.7, &desc) ? gpu_test_read_rgba() : NULL;
        REQUIRE_VOID(pixels != NULL);
        uint32_t x0 = GPU_TEST_WIDTH, x1 = 0, y0 = GPU_TEST_HEIGHT, y1 = 0, covered = 0;
        for (uint32_t y = 0; y < GPU_TEST_HEIGHT; y++) {
            for (uint32_t x = 0; x < GPU_TEST_WIDTH; x++) {
                if (memcmp(pixels + 4 * (y * GPU_TEST_WIDTH + x), pixels, 3) != 0) {
                    covered++;
                    x0 = x < x0 ? x : x0;
                    x1 = x > x1 ? x : x1;
                    y0 = y < y0 ? y : y0;
                    y1 = y > y1 ? y : y1;
                }
            }
        }
        printf("  %-6s %u px in columns %u-%u, rows %u-%u\n",
               crowd_gpu_mode_name((crowd_gpu_mode)m), (unsigned)covered, (unsigned)x0,
               (unsigned)x1, (unsigned)y0, (unsigned)y1);
        CHECK(x0 == 70 && x1 == 89 && y0 == 20 && y1 == 99 && covered == 20 * 80);
        gpu_test_save("state_orthographic", crowd_gpu_mode_name((crowd_gpu_mode)m), pixels);
        free(pixels);
    }
    gpu_scene_destroy(&s);
}

/* tier: the one forced, or CROWD_TIER_AUTO for the one the context gets
 * (GL 4.5 on 4.5 core, portable below), which the worlds must report. */
static int run_state(crowd_gpu_tier tier) {
    context_desktop = epoxy_is_desktop_gl();
    context_gl45 = context_desktop && epoxy_gl_version() >= 45;
    if (tier == CROWD_TIER_AUTO) {
        tier = context_gl45 ? CROWD_TIER_GL45 : CROWD_TIER_PORTABLE;
    }
    state_tier = tier;
    gpu_test_tier = tier;
    printf("state on the %s tier, %s %d.%d context\n", crowd_gpu_tier_name(tier),
           context_desktop ? "OpenGL" : "OpenGL ES", epoxy_gl_version() / 10,
           epoxy_gl_version() % 10);
    crowd_asset *bar = fixture_bar_create(), *human = NULL;
    crowd_bake *bar_bake = NULL, *human_bake = NULL;
    crowd_error error;
    REQUIRE(bar != NULL && crowd_bake_build(bar, NULL, &bar_bake, &error) == CROWD_OK);
    CHECK(crowd_builtin_create(&human, &error) == CROWD_OK &&
          crowd_bake_build(human, NULL, &human_bake, &error) == CROWD_OK);
    if (human_bake != NULL) {
        test_state(bar, bar_bake, human, human_bake);
    }
    test_unpack_state(bar, bar_bake);
    test_reversed_z(bar, bar_bake);
    test_orthographic(bar, bar_bake);
    crowd_bake_destroy(bar_bake);
    crowd_bake_destroy(human_bake);
    crowd_asset_destroy(bar);
    crowd_asset_destroy(human);
    gpu_test_tier = CROWD_TIER_AUTO;
    return check_finish();
}

int test_gpu_state(void) {
    return run_state(CROWD_TIER_GL45);
}

int test_gpu_state_portable(void) {
    return run_state(CROWD_TIER_PORTABLE);
}

int test_gpu_state_context(host_context_api api) {
    printf("state_%s: the state runs on an %s context\n",
           api == HOST_CONTEXT_GL33 ? "gl33" : "gles3", host_context_api_name(api));
    crowd_error error;
    host_context_desc desc = {.api = api};
    if (host_context_create(&desc, &gpu_test_context, &error) != CROWD_OK) {
        printf("SKIP: %s\n", error.reason);
        return 77;
    }
    host_context_info info;
    host_context_get_info(gpu_test_context, &info);
    printf("  GL: %s | %s | %s\n", info.platform, info.renderer, info.version);
    /* Mesa gives the version asked (tools/host); a driver that gives more
     * still makes a context of the kind asked, which is checked. */
    CHECK((epoxy_is_desktop_gl() != 0) == (api == HOST_CONTEXT_GL33));
    CHECK_MSG(epoxy_gl_version() < 45,
              "the %s context is %d.%d: the portable tier is not what "
              "runs",
              host_context_api_name(api), epoxy_gl_version() / 10, epoxy_gl_version() % 10);
    bool target =
        host_target_resize(&gpu_test_target, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, &error) == CROWD_OK;
    CHECK_MSG(target, "test target: %s", error.reason);
    /* run_state ends with check_finish, which counts the checks above. */
    int result = target ? run_state(CROWD_TIER_AUTO) : check_finish();
    host_target_release(&gpu_test_target);
    host_context_destroy(gpu_test_context);
    return result;
}
