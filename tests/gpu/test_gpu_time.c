/* The world's GLSL clip-time rule (shaders/crowd_time.glsl, the functions
 * crowd.vert.glsl plays every clip with) against the rule's case table
 * (tests/common/clip_time_cases.json): each case is one point whose
 * clip time, frames and weight come back through transform feedback. */
#define _POSIX_C_SOURCE 200809L

#include <epoxy/gl.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "clip_time_cases.h"
#include "test_gpu.h"

/* Embedded by the world's build (src/gpu/embed_shaders.cmake). */
const char *crowd_gpu_shader_source(const char *name);

static const char vertex_main[] =
    "layout(location = 0) in vec4 a_play;   // clock, start, offset, speed\n"
    "layout(location = 1) in vec4 a_clip;   // duration, fps, loop, layout\n"
    "layout(location = 2) in uint a_frames; // frame count\n"
    "out float v_time;\n"
    "flat out uint v_frame0;\n"
    "flat out uint v_frame1;\n"
    "out float v_weight;\n"
    "flat out uint v_nearest;\n"
    "void main() {\n"
    "    float t = crowd_play_time(a_play.x, a_play.y, a_play.z, a_play.w, a_clip.x,\n"
    "                              a_clip.z > 0.5);\n"
    "    uint f0, f1;\n"
    "    float w;\n"
    "    crowd_frame_pair(uint(a_clip.w), a_clip.y, a_clip.x, a_frames, t, f0, f1, w);\n"
    "    v_time = t;\n"
    "    v_frame0 = f0;\n"
    "    v_frame1 = f1;\n"
    "    v_weight = w;\n"
    "    v_nearest = crowd_frame_nearest(uint(a_clip.w), a_clip.y, a_clip.x, a_frames, t);\n"
    "    gl_Position = vec4(0.0);\n"
    "}\n";

typedef struct case_input {
    float play[4], clip[4];
    uint32_t frame_count;
} case_input;

typedef struct case_output {
    float time_s;
    uint32_t frame0, frame1;
    float weight;
    uint32_t nearest;
} case_output;

static GLuint build_program(void) {
    const char *parts[3] = {"#version 450 core\n", crowd_gpu_shader_source("crowd_time.glsl"),
                            vertex_main};
    if (parts[1] == NULL) {
        fprintf(stderr, "crowd_time.glsl is not embedded\n");
        return 0;
    }
    GLuint shader = glCreateShader(GL_VERTEX_SHADER);
    glShaderSource(shader, 3, parts, NULL);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok != GL_TRUE) {
        char log[1024];
        glGetShaderInfoLog(shader, sizeof log, NULL, log);
        fprintf(stderr, "crowd_time.glsl does not compile: %s\n", log);
        glDeleteShader(shader);
        return 0;
    }
    GLuint program = glCreateProgram();
    glAttachShader(program, shader);
    const char *varyings[] = {"v_time", "v_frame0", "v_frame1", "v_weight", "v_nearest"};
    glTransformFeedbackVaryings(program, 5, varyings, GL_INTERLEAVED_ATTRIBS);
    glLinkProgram(program);
    glDeleteShader(shader);
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) {
        fprintf(stderr, "the case program does not link\n");
        glDeleteProgram(program);
        return 0;
    }
    return program;
}

/* Runs every case through the GLSL; false when GL failed. */
static bool run_cases(const clip_time_table *table, case_output *out) {
    while (glGetError() != GL_NO_ERROR) {
    }
    GLuint program = build_program();
    if (program == 0) {
        return false;
    }
    case_input *in = calloc(table->count, sizeof *in);
    if (in == NULL) {
        glDeleteProgram(program);
        return false;
    }
    for (uint32_t i = 0; i < table->count; i++) {
        const clip_time_case *c = &table->cases[i];
        const float play[4] = {c->clock_s, c->start_s, c->offset_s, c->speed};
        const float clip[4] = {c->frames.duration_s, c->frames.fps, c->loop ? 1.0f : 0.0f,
                               (float)c->frames.layout};
        memcpy(in[i].play, play, sizeof play);
        memcpy(in[i].clip, clip, sizeof clip);
        in[i].frame_count = c->frames.frame_count;
    }
    GLuint vao, buffers[2];
    glCreateVertexArrays(1, &vao);
    glCreateBuffers(2, buffers);
    glNamedBufferData(buffers[0], (GLsizeiptr)(table->count * sizeof *in), in, GL_STATIC_DRAW);
    glNamedBufferData(buffers[1], (GLsizeiptr)(table->count * sizeof *out), NULL, GL_STATIC_READ);
    glVertexArrayVertexBuffer(vao, 0, buffers[0], 0, sizeof *in);
    glVertexArrayAttribFormat(vao, 0, 4, GL_FLOAT, GL_FALSE, offsetof(case_input, play));
    glVertexArrayAttribFormat(vao, 1, 4, GL_FLOAT, GL_FALSE, offsetof(case_input, clip));
    glVertexArrayAttribIFormat(vao, 2, 1, GL_UNSIGNED_INT, offsetof(case_input, frame_count));
    for (GLuint a = 0; a < 3; a++) {
        glEnableVertexArrayAttrib(vao, a);
        glVertexArrayAttribBinding(vao, a, 0);
    }
    /* A draw needs a complete framebuffer, even with nothing rasterized. */
    host_target_begin(&gpu_test_target, gpu_test_clear);
    glUseProgram(program);
    glBindVertexArray(vao);
    glEnable(GL_RASTERIZER_DISCARD);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, buffers[1]);
    glBeginTransformFeedback(GL_POINTS);
    glDrawArrays(GL_POINTS, 0, (GLsizei)table->count);
    glEndTransformFeedback();
    glDisable(GL_RASTERIZER_DISCARD);
    glGetNamedBufferSubData(buffers[1], 0, (GLsizeiptr)(table->count * sizeof *out), out);
    GLenum gl_error = glGetError();
    bool ok = gl_error == GL_NO_ERROR;
    if (!ok) {
        fprintf(stderr, "GL error 0x%x running the cases\n", gl_error);
    }
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
    glBindVertexArray(0);
    glUseProgram(0);
    glDeleteBuffers(2, buffers);
    glDeleteVertexArrays(1, &vao);
    glDeleteProgram(program);
    free(in);
    return ok;
}

int test_gpu_time(void) {
    printf("time: the GLSL clip-time rule against the case table\n");
    clip_time_table table;
    REQUIRE(clip_time_table_load(&table));
    case_output *out = calloc(table.count, sizeof *out);
    bool ran = out != NULL && run_cases(&table, out);
    CHECK(ran);
    uint32_t agreed = 0, agreed_nearest = 0;
    for (uint32_t i = 0; ran && i < table.count; i++) {
        const clip_time_case *c = &table.cases[i];
        crowd_frame_pair got = {out[i].frame0, out[i].frame1, out[i].weight};
        bool match = clip_time_matches(&table, c, out[i].time_s, got);
        agreed += match;
        CHECK_MSG(match,
                  "case %u (%s, %s): GLSL t %.7g frames %u %u weight %.6g, want t %.7g frames %u "
                  "%u weight %.6g",
                  i, c->clip_name, c->why, (double)out[i].time_s, got.frame0, got.frame1,
                  (double)got.weight, (double)c->time_s, c->frame0, c->frame1, (double)c->weight);
        bool nearest = clip_time_nearest_matches(&table, c, out[i].nearest);
        agreed_nearest += nearest;
        CHECK_MSG(nearest, "case %u (%s, %s): GLSL nearest frame %u, want frames %u %u weight %.6g",
                  i, c->clip_name, c->why, out[i].nearest, c->frame0, c->frame1, (double)c->weight);
    }
    printf("  %u of %u cases agree, %u of their nearest frames\n", agreed, table.count,
           agreed_nearest);
    free(out);
    free(table.cases);
    return check_finish();
}
