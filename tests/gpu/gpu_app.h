/* gpu_app.h - what the gpu tests draw themselves with plain GL, the way an
 * application around crowd would: its own program, a flat-coloured quad in
 * world space (a wall), a depth-texture target (a shadow map), and the
 * matrix product the application's own shaders take.
 */
#ifndef CROWD_TEST_GPU_APP_H
#define CROWD_TEST_GPU_APP_H

#include <stdbool.h>
#include <stdint.h>

#include <epoxy/gl.h>

/* A linked program from GLSL 4.50 sources (the #version line included);
 * 0 with the log printed on failure. */
GLuint app_program(const char *vertex, const char *fragment);

/* A quad with its own program, vertex array and buffer, made on any
 * context the tiers run on (GL 4.5 or 3.3 core, GLES 3.0). */
typedef struct app_quad {
    GLuint program, vertex_array, buffer;
    GLint view_proj_location, color_location;
} app_quad;

/* corners: four world-space points in order around the quad. */
bool app_quad_create(app_quad *quad, const float corners[4][3]);
/* Draws it flat in `rgba` (written as given, no encoding) with the current
 * depth state; binds its program and vertex array and leaves them bound. */
void app_quad_draw(const app_quad *quad, const float view_proj[16], const float rgba[4]);
void app_quad_destroy(app_quad *quad);

/* A framebuffer with only a 32-bit float depth texture. */
typedef struct app_depth_target {
    GLuint framebuffer, texture;
    uint32_t width, height;
} app_depth_target;

bool app_depth_target_create(app_depth_target *target, uint32_t width, uint32_t height);
/* Binds it with a full viewport and clears depth to 1. */
void app_depth_target_begin(const app_depth_target *target);
/* width * height floats, rows bottom first as GL stores them. */
bool app_depth_target_read(const app_depth_target *target, float *depth);
void app_depth_target_destroy(app_depth_target *target);

/* out = a x b, column-major 4x4. */
void app_multiply(const float a[16], const float b[16], float out[16]);

#endif
