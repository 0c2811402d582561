/* app_common.c - the examples' camera, matrix product and PNG writer
 * (app_common.h). */
#include "app_common.h"

#include <math.h>
#include <png.h>

void app_camera(int width, int height, float view[16], float projection[16]) {
    for (int i = 0; i < 16; i++) {
        view[i] = i % 5 == 0 ? 1.0f : 0.0f;
        projection[i] = 0.0f;
    }
    view[13] = -1.6f;
    view[14] = -6.0f;
    const float near = 0.1f, far = 100.0f, f = 1.0f / tanf(25.0f * 3.14159265f / 180.0f);
    projection[0] = f * (float)height / (float)width;
    projection[5] = f;
    projection[10] = (far + near) / (near - far);
    projection[11] = -1.0f;
    projection[14] = 2.0f * far * near / (near - far);
}

void app_multiply(const float a[16], const float b[16], float out[16]) {
    for (int i = 0; i < 16; i++) {
        out[i] = 0.0f;
        for (int k = 0; k < 4; k++) {
            out[i] += a[4 * k + i % 4] * b[i / 4 * 4 + k];
        }
    }
}

bool app_write_png(const char *path, const unsigned char *rgba, int width, int height) {
    png_image image = {.version = PNG_IMAGE_VERSION,
                       .width = (png_uint_32)width,
                       .height = (png_uint_32)height,
                       .format = PNG_FORMAT_RGBA};
    /* A negative row stride: the last row stored is the picture's top. */
    return png_image_write_to_file(&image, path, 0, rgba, -width * 4, NULL) != 0;
}
