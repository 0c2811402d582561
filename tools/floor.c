/* floor.c - the reference draw of floor.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <epoxy/gl.h>

#include "floor.h"

static const char *const vertex_source =
    "#version 450 core\n"
    "layout(location = 0) in vec3 a_position;\n"
    "layout(location = 1) in vec3 a_normal;\n"
    "layout(location = 2) in vec2 a_uv;\n"
    "layout(location = 3) in mat4 i_model;\n"
    "layout(location = 0) uniform mat4 u_view_proj;\n"
    "out vec3 v_normal;\n"
    "out vec2 v_uv;\n"
    "void main() {\n"
    "    gl_Position = u_view_proj * (i_model * vec4(a_position, 1.0));\n"
    "    v_normal = mat3(i_model) * a_normal;\n"
    "    v_uv = a_uv;\n"
    "}\n";

static const char *const fragment_source =
    "#version 450 core\n"
    "in vec3 v_normal;\n"
    "in vec2 v_uv;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "    float light = 0.35 + 0.65 * max(dot(normalize(v_normal), vec3(0.37, 0.84, 0.41)), 0.0);\n"
    "    o_color = vec4(vec3(0.8, 0.3, 0.25) * light * (1.0 + 0.02 * fract(v_uv.x)), 1.0);\n"
    "}\n";

static GLuint compile(GLenum stage, const char *source) {
    GLuint shader = glCreateShader(stage);
    glShaderSource(shader, 1, &source, NULL);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok != GL_TRUE) {
        glDeleteShader(shader);
        return 0;
    }
    return shader;
}

static GLuint link_program(void) {
    GLuint vs = compile(GL_VERTEX_SHADER, vertex_source);
    GLuint fs = compile(GL_FRAGMENT_SHADER, fragment_source);
    GLuint program = 0;
    if (vs != 0 && fs != 0) {
        program = glCreateProgram();
        glAttachShader(program, vs);
        glAttachShader(program, fs);
        glLinkProgram(program);
        GLint ok = GL_FALSE;
        glGetProgramiv(program, GL_LINK_STATUS, &ok);
        if (ok != GL_TRUE) {
            glDeleteProgram(program);
            program = 0;
        }
    }
    glDeleteShader(vs);
    glDeleteShader(fs);
    return program;
}

/* Column-major model matrices: rotation about +Y, uniform scale, translation. */
static float *model_matrices(const float *positions, const float *headings, const float *scales,
                             uint32_t count) {
    float *m = malloc((count > 0 ? count : 1) * 16 * sizeof *m);
    for (uint32_t i = 0; m != NULL && i < count; i++) {
        float c = cosf(headings[i]) * scales[i], s = sinf(headings[i]) * scales[i];
        const float model[16] = {c,
                                 0.0f,
                                 -s,
                                 0.0f,
                                 0.0f,
                                 scales[i],
                                 0.0f,
                                 0.0f,
                                 s,
                                 0.0f,
                                 c,
                                 0.0f,
                                 positions[3 * i],
                                 positions[3 * i + 1],
                                 positions[3 * i + 2],
                                 1.0f};
        memcpy(m + 16 * i, model, sizeof model);
    }
    return m;
}

crowd_result floor_create(const crowd_mesh *mesh, const float *positions, const float *headings,
                          const float *scales, uint32_t instance_count, floor_draw *out,
                          crowd_error *error) {
    memset(out, 0, sizeof *out);
    out->program = link_program();
    if (out->program == 0) {
        return crowd_error_set(error, CROWD_ERROR_GPU, NULL, "the floor's shaders do not build");
    }
    float *matrices = model_matrices(positions, headings, scales, instance_count);
    if (matrices == NULL) {
        floor_release(out);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    uint64_t v = mesh->vertex_count;
    GLuint buffers[3];
    glCreateBuffers(3, buffers);
    out->vertices = buffers[0];
    out->indices = buffers[1];
    out->instances = buffers[2];
    glNamedBufferStorage(out->vertices, (GLsizeiptr)(32 * v), NULL, GL_DYNAMIC_STORAGE_BIT);
    glNamedBufferSubData(out->vertices, 0, (GLsizeiptr)(12 * v), mesh->positions);
    glNamedBufferSubData(out->vertices, (GLintptr)(12 * v), (GLsizeiptr)(12 * v), mesh->normals);
    if (mesh->uv0 != NULL) {
        glNamedBufferSubData(out->vertices, (GLintptr)(24 * v), (GLsizeiptr)(8 * v), mesh->uv0);
    }
    glNamedBufferStorage(out->indices, (GLsizeiptr)(4ull * mesh->index_count), mesh->indices, 0);
    glNamedBufferStorage(out->instances, (GLsizeiptr)(64ull * instance_count), matrices, 0);
    free(matrices);
    out->index_count = mesh->index_count;
    out->instance_count = instance_count;
    out->gpu_memory_bytes = 32 * v + 4ull * mesh->index_count + 64ull * instance_count;

    GLuint vao;
    glCreateVertexArrays(1, &vao);
    out->vertex_array = vao;
    const GLintptr offsets[3] = {0, (GLintptr)(12 * v), (GLintptr)(24 * v)};
    const GLint sizes[3] = {3, 3, 2};
    for (GLuint a = 0; a < 3; a++) {
        glEnableVertexArrayAttrib(vao, a);
        glVertexArrayAttribBinding(vao, a, a);
        glVertexArrayAttribFormat(vao, a, sizes[a], GL_FLOAT, GL_FALSE, 0);
        glVertexArrayVertexBuffer(vao, a, out->vertices, offsets[a], sizes[a] * 4);
    }
    for (GLuint column = 0; column < 4; column++) {
        glEnableVertexArrayAttrib(vao, 3 + column);
        glVertexArrayAttribBinding(vao, 3 + column, 3);
        glVertexArrayAttribFormat(vao, 3 + column, 4, GL_FLOAT, GL_FALSE, 16 * column);
    }
    glVertexArrayVertexBuffer(vao, 3, out->instances, 0, 64);
    glVertexArrayBindingDivisor(vao, 3, 1);
    glVertexArrayElementBuffer(vao, out->indices);
    if (glGetError() != GL_NO_ERROR) {
        floor_release(out);
        return crowd_error_set(error, CROWD_ERROR_GPU, NULL, "cannot upload the floor's mesh");
    }
    return CROWD_OK;
}

void floor_release(floor_draw *f) {
    GLuint buffers[3] = {f->vertices, f->indices, f->instances};
    glDeleteBuffers(3, buffers);
    GLuint vao = f->vertex_array;
    glDeleteVertexArrays(1, &vao);
    glDeleteProgram(f->program);
    memset(f, 0, sizeof *f);
}

void floor_render(const floor_draw *f, const float view_proj[16]) {
    glUseProgram(f->program);
    glUniformMatrix4fv(0, 1, GL_FALSE, view_proj);
    glBindVertexArray(f->vertex_array);
    glEnable(GL_DEPTH_TEST);
    glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)f->index_count, GL_UNSIGNED_INT, NULL,
                            (GLsizei)f->instance_count);
    glBindVertexArray(0);
    glUseProgram(0);
}
