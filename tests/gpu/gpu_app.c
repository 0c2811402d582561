#include "gpu_app.h"

#include <stdio.h>
#include <string.h>

/* Whether a shader compiled or a program linked; prints its log if not. */
static bool built(GLuint object, bool program) {
    GLint ok = 0;
    char log[1024] = "";
    if (program) {
        glGetProgramiv(object, GL_LINK_STATUS, &ok);
        glGetProgramInfoLog(object, sizeof log, NULL, log);
    } else {
        glGetShaderiv(object, GL_COMPILE_STATUS, &ok);
        glGetShaderInfoLog(object, sizeof log, NULL, log);
    }
    if (!ok) {
        fprintf(stderr, "test %s: %s\n", program ? "program" : "shader", log);
    }
    return ok != 0;
}

static GLuint compile(GLenum stage, const char *source) {
    GLuint shader = glCreateShader(stage);
    glShaderSource(shader, 1, &source, NULL);
    glCompileShader(shader);
    return shader;
}

GLuint app_program(const char *vertex, const char *fragment) {
    GLuint vs = compile(GL_VERTEX_SHADER, vertex), fs = compile(GL_FRAGMENT_SHADER, fragment);
    GLuint program = glCreateProgram();
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    bool ok = built(vs, false) && built(fs, false) && built(program, true);
    glDeleteShader(vs);
    glDeleteShader(fs);
    if (!ok) {
        glDeleteProgram(program);
        return 0;
    }
    return program;
}

/* The quad's shaders compile on every context the tiers run on: GLSL 3.30
 * core on desktop GL (4.5 included), 3.00 es on GLES; uniforms are found by
 * name, as 3.30 has no explicit uniform locations. */
static const char *quad_vertex_body =
    "layout(location = 0) in vec3 position;\n"
    "uniform mat4 view_proj;\n"
    "void main() { gl_Position = view_proj * vec4(position, 1.0); }\n";
static const char *quad_fragment_body = "uniform vec4 color;\n"
                                        "out vec4 frag;\n"
                                        "void main() { frag = color; }\n";

static GLuint quad_program(void) {
    const char *version =
        epoxy_is_desktop_gl() ? "#version 330 core\n" : "#version 300 es\nprecision highp float;\n";
    char vertex[512], fragment[512];
    snprintf(vertex, sizeof vertex, "%s%s", version, quad_vertex_body);
    snprintf(fragment, sizeof fragment, "%s%s", version, quad_fragment_body);
    return app_program(vertex, fragment);
}

bool app_quad_create(app_quad *q, const float corners[4][3]) {
    memset(q, 0, sizeof *q);
    q->program = quad_program();
    if (q->program == 0) {
        return false;
    }
    q->view_proj_location = glGetUniformLocation(q->program, "view_proj");
    q->color_location = glGetUniformLocation(q->program, "color");
    /* Two triangles: 0 1 2, 0 2 3. */
    const int order[6] = {0, 1, 2, 0, 2, 3};
    float vertices[18];
    for (int v = 0; v < 6; v++) {
        memcpy(vertices + 3 * v, corners[order[v]], 3 * sizeof(float));
    }
    /* Bind-to-edit (GL 3.3 has no direct state access); the bindings it
     * passes through are put back. */
    GLint array_buffer = 0, vertex_array = 0;
    glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &array_buffer);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vertex_array);
    glGenBuffers(1, &q->buffer);
    glGenVertexArrays(1, &q->vertex_array);
    glBindVertexArray(q->vertex_array);
    glBindBuffer(GL_ARRAY_BUFFER, q->buffer);
    glBufferData(GL_ARRAY_BUFFER, sizeof vertices, vertices, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), NULL);
    glEnableVertexAttribArray(0);
    glBindVertexArray((GLuint)vertex_array);
    glBindBuffer(GL_ARRAY_BUFFER, (GLuint)array_buffer);
    return q->view_proj_location >= 0 && q->color_location >= 0;
}

void app_quad_draw(const app_quad *q, const float view_proj[16], const float rgba[4]) {
    glUseProgram(q->program);
    glUniformMatrix4fv(q->view_proj_location, 1, GL_FALSE, view_proj);
    glUniform4fv(q->color_location, 1, rgba);
    glBindVertexArray(q->vertex_array);
    glDrawArrays(GL_TRIANGLES, 0, 6);
}

void app_quad_destroy(app_quad *q) {
    /* A deleted program stays alive while current; unbound, it goes. */
    GLint current = 0;
    glGetIntegerv(GL_CURRENT_PROGRAM, &current);
    if ((GLuint)current == q->program) {
        glUseProgram(0);
    }
    glDeleteProgram(q->program);
    glDeleteVertexArrays(1, &q->vertex_array);
    glDeleteBuffers(1, &q->buffer);
    memset(q, 0, sizeof *q);
}

bool app_depth_target_create(app_depth_target *t, uint32_t width, uint32_t height) {
    t->width = width;
    t->height = height;
    glCreateTextures(GL_TEXTURE_2D, 1, &t->texture);
    glTextureStorage2D(t->texture, 1, GL_DEPTH_COMPONENT32F, (GLsizei)width, (GLsizei)height);
    glCreateFramebuffers(1, &t->framebuffer);
    glNamedFramebufferTexture(t->framebuffer, GL_DEPTH_ATTACHMENT, t->texture, 0);
    glNamedFramebufferDrawBuffer(t->framebuffer, GL_NONE);
    glNamedFramebufferReadBuffer(t->framebuffer, GL_NONE);
    return glCheckNamedFramebufferStatus(t->framebuffer, GL_DRAW_FRAMEBUFFER) ==
           GL_FRAMEBUFFER_COMPLETE;
}

void app_depth_target_begin(const app_depth_target *t) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, t->framebuffer);
    glViewport(0, 0, (GLsizei)t->width, (GLsizei)t->height);
    const float one = 1.0f;
    glClearNamedFramebufferfv(t->framebuffer, GL_DEPTH, 0, &one);
}

bool app_depth_target_read(const app_depth_target *t, float *depth) {
    GLsizei bytes = (GLsizei)(t->width * t->height * sizeof(float));
    glGetTextureImage(t->texture, 0, GL_DEPTH_COMPONENT, GL_FLOAT, bytes, depth);
    return glGetError() == GL_NO_ERROR;
}

void app_depth_target_destroy(app_depth_target *t) {
    glDeleteFramebuffers(1, &t->framebuffer);
    glDeleteTextures(1, &t->texture);
    memset(t, 0, sizeof *t);
}

void app_multiply(const float a[16], const float b[16], float out[16]) {
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 4; r++) {
            float sum = 0.0f;
            for (int k = 0; k < 4; k++) {
                sum += a[4 * k + r] * b[4 * c + k];
            }
            out[4 * c + r] = sum;
        }
    }
}
