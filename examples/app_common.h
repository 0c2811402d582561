/* app_common.h - what every example application owns besides its context
 * and crowd never does: a camera, a matrix product, and its picture
 * written as a PNG. The EGL programs (embed_app.c) and the GLFW game
 * (game_glfw33.c) share it; it needs no GL at all.
 */
#ifndef CROWD_EXAMPLE_APP_COMMON_H
#define CROWD_EXAMPLE_APP_COMMON_H

#include <stdbool.h>

/* The application's camera: 1.6 m above the ground at z = 6, looking
 * straight down -Z, 50 degrees of vertical field of view; column-major. */
void app_camera(int width, int height, float view[16], float projection[16]);

/* out = a x b, column-major 4x4. */
void app_multiply(const float a[16], const float b[16], float out[16]);

/* Writes RGBA8 rows stored bottom first (as glReadPixels gives them) as a
 * PNG, top row first. */
bool app_write_png(const char *path, const unsigned char *rgba, int width, int height);

#endif
