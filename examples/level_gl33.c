/* level_gl33.c - the GL 3.3 examples' ground and boxes (level_gl33.h). */
#include "level_gl33.h"

#include <string.h>

#include "embed_scene.h"

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
 * materials there. */
#define LEVEL_UNIT 4

enum { GROUND_VERTICES = 4, GROUND_INDICES = 6, BOX_VERTICES = 24, BOX_INDICES = 36 };

/* Position and colour (8-bit values) of one vertex, 6 floats. */
static void vertex(float *out, const float p[3], const unsigned char rgb[3]) {
    for (int k = 0; k < 3; k++) {
        out[k] = p[k];
        out[3 + k] = rgb[k] / 255.0f;
    }
}

/* Face f (+x, -x, +y, -y, +z, -z) of a box whose vertices start at
 * `first`: four corners counter-clockwise seen from outside, as back-face
 * culling wants. */
static void box_face(float *out, GLushort *indices, int f, const level_box *box, GLushort first) {
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
            p[k] = box->centre[k] + box->half * ((k == axis ? sign : 0.0f) + corner_u[c] * u[k] +
                                                 corner_v[c] * v[k]);
        }
        vertex(out + 6 * c, p, gl33_faces[f]);
    }
    const GLushort quad[6] = {0, 1, 2, 0, 2, 3};
    for (int i = 0; i < 6; i++) {
        indices[i] = (GLushort)(first + 4 * f + quad[i]);
    }
}

static GLuint compile(GLenum stage, const char *source) {
    GLuint shader = glCreateShader(stage);
    glShaderSource(shader, 1, &source, NULL);
    glCompileShader(shader);
    return shader;
}

/* The level's program; false when it does not link. */
static bool make_program(level *lv) {
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
    return linked != 0 && lv->view_proj >= 0;
}

/* A 2x2 white texture whose filtering is a sampler object's: without the
 * sampler the texture's default filter wants mipmaps it lacks, so a
 * sampler crowd took away would make it incomplete, and the boxes black. */
static void make_texture(level *lv) {
    unsigned char white[2 * 2 * 4];
    memset(white, 255, sizeof white);
    glGenTextures(1, &lv->white);
    glBindTexture(GL_TEXTURE_2D, lv->white);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 2, 2, 0, GL_RGBA, GL_UNSIGNED_BYTE, white);
    glBindTexture(GL_TEXTURE_2D, 0);
    glGenSamplers(1, &lv->sampler);
    glSamplerParameteri(lv->sampler, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glSamplerParameteri(lv->sampler, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
}

bool level_create(level *lv, const level_box *boxes, int box_count) {
    *lv = (level){.box_count = box_count};
    if (box_count < 0 || box_count > LEVEL_MAX_BOXES) {
        return false;
    }
    bool linked = make_program(lv);
    static float vertices[(GROUND_VERTICES + LEVEL_MAX_BOXES * BOX_VERTICES) * 6];
    static GLushort indices[GROUND_INDICES + LEVEL_MAX_BOXES * BOX_INDICES];
    const float ground[4][3] = {{-12, 0, 4}, {12, 0, 4}, {12, 0, -30}, {-12, 0, -30}};
    const GLushort ground_indices[GROUND_INDICES] = {0, 1, 2, 0, 2, 3};
    for (int c = 0; c < 4; c++) {
        vertex(vertices + 6 * c, ground[c], gl33_ground);
    }
    memcpy(indices, ground_indices, sizeof ground_indices);
    for (int b = 0; b < box_count; b++) {
        GLushort first = (GLushort)(GROUND_VERTICES + BOX_VERTICES * b);
        for (int f = 0; f < 6; f++) {
            box_face(vertices + 6 * (first + 4 * f),
                     indices + GROUND_INDICES + BOX_INDICES * b + 6 * f, f, &boxes[b], first);
        }
    }
    const GLsizeiptr vertex_bytes = (GROUND_VERTICES + BOX_VERTICES * box_count) * 6 * 4;
    const GLsizeiptr index_bytes = (GROUND_INDICES + BOX_INDICES * box_count) * 2;
    glGenVertexArrays(1, &lv->vertex_array);
    glBindVertexArray(lv->vertex_array);
    glGenBuffers(1, &lv->vertices);
    glBindBuffer(GL_ARRAY_BUFFER, lv->vertices);
    glBufferData(GL_ARRAY_BUFFER, vertex_bytes, vertices, GL_STATIC_DRAW);
    glGenBuffers(1, &lv->indices);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, lv->indices); /* vertex array state */
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, index_bytes, indices, GL_STATIC_DRAW);
    for (GLuint attribute = 0; attribute < 2; attribute++) {
        glVertexAttribPointer(attribute, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float),
                              (const void *)(attribute * 3 * sizeof(float)));
        glEnableVertexAttribArray(attribute);
    }
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    make_texture(lv);
    return linked && glGetError() == GL_NO_ERROR;
}

void level_destroy(level *lv) {
    glDeleteProgram(lv->program);
    glDeleteVertexArrays(1, &lv->vertex_array);
    glDeleteBuffers(1, &lv->vertices);
    glDeleteBuffers(1, &lv->indices);
    glDeleteTextures(1, &lv->white);
    glDeleteSamplers(1, &lv->sampler);
    *lv = (level){0};
}

void level_draw_ground(const level *lv, const float view_proj[16]) {
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

void level_draw_boxes(const level *lv) {
    /* Nothing bound again: the program, the vertex array (and its element
     * buffer) and unit 4 are as level_draw_ground left them. */
    glDrawElements(GL_TRIANGLES, BOX_INDICES * lv->box_count, GL_UNSIGNED_SHORT,
                   (const void *)(GROUND_INDICES * sizeof(GLushort)));
}

void level_end(void) {
    glDisable(GL_CULL_FACE);
}
