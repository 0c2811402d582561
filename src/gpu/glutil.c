/* GL helpers: error checks that become crowd_errors, buffers whose sizes are
 * added to the renderer's GPU memory count, programs from embedded shaders. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/internal.h"

static const char *gl_error_name(GLenum code) {
    switch (code) {
    case GL_INVALID_ENUM:
        return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
        return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
        return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
        return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
        return "GL_OUT_OF_MEMORY";
    default:
        return "unknown GL error";
    }
}

#ifdef __EMSCRIPTEN__
_Noreturn void crowd__gpu_gl45_absent(const char *name) {
    fprintf(stderr,
            "crowd: internal error: %s is an OpenGL 4.5 entry point, absent from WebGL2, and "
            "only the gl45 tier calls it; the world runs the portable tier on WebGL2\n",
            name);
    abort();
}
#endif

crowd_result crowd__gpu_check(crowd_error *error, const char *what) {
    GLenum code = glGetError();
    if (code == GL_NO_ERROR) {
        return CROWD_OK;
    }
    /* Drain the queue so the next check reports only its own errors. */
    while (glGetError() != GL_NO_ERROR) {
    }
    return crowd_error_set(error,
                           code == GL_OUT_OF_MEMORY ? CROWD_ERROR_OUT_OF_MEMORY : CROWD_ERROR_GPU,
                           NULL, "%s: %s (0x%04x)", what, gl_error_name(code), (unsigned)code);
}

crowd_result crowd__gpu_buffer_create(uint64_t *memory_bytes, GLuint *buffer, uint64_t *size_field,
                                      uint64_t size_bytes, const void *data, GLbitfield flags,
                                      crowd_error *error) {
    if (size_bytes > (uint64_t)PTRDIFF_MAX) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, NULL, "buffer of %llu bytes is too large",
                               (unsigned long long)size_bytes);
    }
    glCreateBuffers(1, buffer);
    glNamedBufferStorage(*buffer, (GLsizeiptr)size_bytes, data, flags);
    crowd_result result = crowd__gpu_check(error, "allocating a GPU buffer");
    if (result != CROWD_OK) {
        glDeleteBuffers(1, buffer);
        *buffer = 0;
        return result;
    }
    *size_field = size_bytes;
    *memory_bytes += size_bytes;
    return CROWD_OK;
}

crowd_result crowd__gpu_buffer_create_bound(uint64_t *memory_bytes, GLuint *buffer,
                                            uint64_t *size_field, GLenum target,
                                            uint64_t size_bytes, const void *data, GLenum usage,
                                            crowd_error *error) {
    if (size_bytes > (uint64_t)PTRDIFF_MAX) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, NULL, "buffer of %llu bytes is too large",
                               (unsigned long long)size_bytes);
    }
    glGenBuffers(1, buffer);
    glBindBuffer(target, *buffer);
    glBufferData(target, (GLsizeiptr)size_bytes, data, usage);
    crowd_result result = crowd__gpu_check(error, "allocating a GPU buffer");
    if (result != CROWD_OK) {
        glDeleteBuffers(1, buffer);
        *buffer = 0;
        return result;
    }
    *size_field = size_bytes;
    *memory_bytes += size_bytes;
    return CROWD_OK;
}

crowd_result crowd__gpu_texture_create_bound(const crowd_world *world, GLuint *texture, GLuint unit,
                                             GLenum internal_format, uint32_t width,
                                             uint32_t height, GLenum format, GLenum type,
                                             const void *pixels, crowd_error *error) {
    glGenTextures(1, texture);
    glActiveTexture(GL_TEXTURE0 + unit);
    glBindTexture(GL_TEXTURE_2D, *texture);
    /* One level, read by texelFetch: a mipmapped minification filter would
     * leave it incomplete. */
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    gpu_unpack_state unpack;
    crowd__gpu_unpack_begin(&unpack, world->gles);
    glTexImage2D(GL_TEXTURE_2D, 0, (GLint)internal_format, (GLsizei)width, (GLsizei)height, 0,
                 format, type, pixels);
    crowd__gpu_unpack_end(&unpack, world->gles);
    crowd_result result = crowd__gpu_check(error, "allocating a texture");
    if (result != CROWD_OK) {
        glDeleteTextures(1, texture);
        *texture = 0;
    }
    return result;
}

void crowd__gpu_buffer_delete(uint64_t *memory_bytes, GLuint *buffer, uint64_t *size_field) {
    if (*buffer != 0) {
        glDeleteBuffers(1, buffer);
        *memory_bytes -= *size_field;
    }
    *buffer = 0;
    *size_field = 0;
}

void crowd__gpu_texture_delete(uint64_t *memory_bytes, GLuint *texture, uint64_t *size_field) {
    if (*texture != 0) {
        glDeleteTextures(1, texture);
        *memory_bytes -= *size_field;
    }
    *texture = 0;
    *size_field = 0;
}

/* A GL info log on one line (the error's reason is one line). */
static void one_line(char *log) {
    size_t n = strlen(log);
    while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == ' ')) {
        log[--n] = '\0';
    }
    for (char *c = log; *c != '\0'; c++) {
        *c = *c == '\n' ? '|' : *c;
    }
}

const char *crowd__gpu_glsl_preamble(gpu_glsl glsl) {
    switch (glsl) {
    case GPU_GLSL_330:
        return "#version 330 core\n#define CROWD_TIER_PORTABLE 1\n";
    case GPU_GLSL_300_ES:
        return "#version 300 es\n#define CROWD_TIER_PORTABLE 1\n";
    case GPU_GLSL_450:
        break;
    }
    return "#version 450 core\n#define CROWD_TIER_GL45 1\n";
}

static crowd_result compile(gpu_glsl glsl, GLenum stage, const char *name, const char *defines,
                            const char *tail, GLuint *out, crowd_error *error) {
    const char *body = crowd_gpu_shader_source(name);
    if (body == NULL) {
        return crowd_error_set(error, CROWD_ERROR_GPU, name, "shader not embedded in the binary");
    }
    /* Every stage reads the numbers C and GLSL share from the one contract,
     * and every vertex stage plays clips by the one clip-time rule. */
    const char *contract = crowd_gpu_shader_source("crowd_contract.glsl");
    const char *prelude =
        stage == GL_VERTEX_SHADER ? crowd_gpu_shader_source("crowd_time.glsl") : "";
    /* ... and read records through the one decoder. */
    const char *record =
        stage != GL_FRAGMENT_SHADER ? crowd_gpu_shader_source("crowd_record.glsl") : "";
    const char *tier = crowd_gpu_shader_source("crowd_tier.glsl");
    /* The tail's own line numbers in the log: source string 1 from line 1. */
    const char *parts[9] = {crowd__gpu_glsl_preamble(glsl),
                            tier != NULL ? tier : "",
                            defines != NULL ? defines : "",
                            contract != NULL ? contract : "",
                            prelude,
                            record != NULL ? record : "",
                            body,
                            "\n#line 1 1\n",
                            tail};
    GLuint shader = glCreateShader(stage);
    glShaderSource(shader, tail != NULL ? 9 : 7, parts, NULL);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok != GL_TRUE) {
        char log[480];
        glGetShaderInfoLog(shader, sizeof log, NULL, log);
        glDeleteShader(shader);
        one_line(log);
        return crowd_error_set(error, CROWD_ERROR_GPU, name, "shader does not compile: %s", log);
    }
    *out = shader;
    return CROWD_OK;
}

/* Links the compiled `shaders` (deleted here either way) into a program;
 * CROWD_ERROR_GPU with the linker's log, naming `name`, when it fails. */
static crowd_result link(const GLuint *shaders, int count, const char *name, GLuint *out_program,
                         crowd_error *error) {
    GLuint program = glCreateProgram();
    for (int i = 0; i < count; i++) {
        glAttachShader(program, shaders[i]);
    }
    glLinkProgram(program);
    for (int i = 0; i < count; i++) {
        glDeleteShader(shaders[i]);
    }
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) {
        char log[480];
        glGetProgramInfoLog(program, sizeof log, NULL, log);
        glDeleteProgram(program);
        one_line(log);
        return crowd_error_set(error, CROWD_ERROR_GPU, name, "program does not link: %s", log);
    }
    *out_program = program;
    return CROWD_OK;
}

crowd_result crowd__gpu_program_create(gpu_glsl glsl, const char *vertex_name,
                                       const char *fragment_name, const char *defines,
                                       const char *fragment_tail, GLuint *out_program,
                                       crowd_error *error) {
    GLuint vs = 0, fs = 0;
    crowd_result result = compile(glsl, GL_VERTEX_SHADER, vertex_name, defines, NULL, &vs, error);
    if (result == CROWD_OK) {
        result =
            compile(glsl, GL_FRAGMENT_SHADER, fragment_name, defines, fragment_tail, &fs, error);
    }
    if (result != CROWD_OK) {
        if (vs != 0) {
            glDeleteShader(vs);
        }
        return result;
    }
    const GLuint shaders[2] = {vs, fs};
    return link(shaders, 2, vertex_name, out_program, error);
}

/* Texture uploads read client memory tightly packed: the application's
 * pixel-store settings and a pixel unpack buffer it left bound would change
 * what is read, so they are set aside for the upload and put back. GLES
 * has the first six only (no swap-bytes, no LSB-first). */
static const GLenum unpack_names[GPU_UNPACK_STATE_COUNT - 1] = {
    GL_UNPACK_ALIGNMENT,   GL_UNPACK_ROW_LENGTH,  GL_UNPACK_IMAGE_HEIGHT, GL_UNPACK_SKIP_ROWS,
    GL_UNPACK_SKIP_PIXELS, GL_UNPACK_SKIP_IMAGES, GL_UNPACK_SWAP_BYTES,   GL_UNPACK_LSB_FIRST};
#define UNPACK_GLES_COUNT 6
#define UNPACK_BUFFER (GPU_UNPACK_STATE_COUNT - 1)

void crowd__gpu_unpack_begin(gpu_unpack_state *saved, bool gles) {
    int count = gles ? UNPACK_GLES_COUNT : GPU_UNPACK_STATE_COUNT - 1;
    for (int i = 0; i < count; i++) {
        glGetIntegerv(unpack_names[i], &saved->values[i]);
    }
    glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &saved->values[UNPACK_BUFFER]);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    for (int i = 0; i < count; i++) {
        glPixelStorei(unpack_names[i], unpack_names[i] == GL_UNPACK_ALIGNMENT ? 1 : 0);
    }
}

void crowd__gpu_unpack_defaults(bool gles) {
    int count = gles ? UNPACK_GLES_COUNT : GPU_UNPACK_STATE_COUNT - 1;
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    for (int i = 0; i < count; i++) {
        glPixelStorei(unpack_names[i], unpack_names[i] == GL_UNPACK_ALIGNMENT ? 4 : 0);
    }
}

void crowd__gpu_unpack_end(const gpu_unpack_state *saved, bool gles) {
    int count = gles ? UNPACK_GLES_COUNT : GPU_UNPACK_STATE_COUNT - 1;
    for (int i = 0; i < count; i++) {
        glPixelStorei(unpack_names[i], saved->values[i]);
    }
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, (GLuint)saved->values[UNPACK_BUFFER]);
}

crowd_result crowd__gpu_compute_program_create(const char *name, GLuint *out_program,
                                               crowd_error *error) {
    GLuint shader = 0;
    crowd_result result =
        compile(GPU_GLSL_450, GL_COMPUTE_SHADER, name, NULL, NULL, &shader, error);
    if (result != CROWD_OK) {
        return result;
    }
    return link(&shader, 1, name, out_program, error);
}
