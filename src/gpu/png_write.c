/* RGBA8 PNG output for rendered frames, written atomically: a temporary file
 * in the destination folder, renamed into place once complete. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crowd/gpu.h"

/* libpng reports errors by longjmp; this keeps the message for crowd_error. */
typedef struct png_failure {
    char message[200];
} png_failure;

static void on_png_error(png_structp png, png_const_charp message) {
    png_failure *failure = png_get_error_ptr(png);
    snprintf(failure->message, sizeof failure->message, "%s", message);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

/* Returns false with failure->message set. Kept apart from the caller so no
 * local of the caller is live across setjmp. */
static bool encode(FILE *file, uint32_t width, uint32_t height, const uint8_t *rgba,
                   png_failure *failure) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, failure, on_png_error,
                                              on_png_warning);
    if (png == NULL) {
        snprintf(failure->message, sizeof failure->message, "out of memory");
        return false;
    }
    png_infop info = png_create_info_struct(png);
    if (info == NULL || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        if (failure->message[0] == '\0') {
            snprintf(failure->message, sizeof failure->message, "out of memory");
        }
        return false;
    }
    png_init_io(png, file);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_sRGB_gAMA_and_cHRM(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++) {
        png_write_row(png, rgba + (size_t)y * width * 4);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return true;
}

crowd_result crowd_image_write_png(const char *path, uint32_t width, uint32_t height,
                                   const uint8_t *rgba, crowd_error *error) {
    if (path == NULL || rgba == NULL || width == 0 || height == 0 || width > 0x7fffffffu ||
        height > 0x7fffffffu) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, path,
                               "PNG needs a path, pixels and a size of at least 1x1");
    }
    size_t length = strlen(path);
    char *temp = malloc(length + 32);
    if (temp == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
    }
    snprintf(temp, length + 32, "%s.tmp%ld", path, (long)getpid());
    FILE *file = fopen(temp, "wb");
    if (file == NULL) {
        crowd_result result = crowd_error_set(error, CROWD_ERROR_OUTPUT, path, "cannot create: %s",
                                              strerror(errno));
        free(temp);
        return result;
    }
    png_failure failure = {{0}};
    bool ok = encode(file, width, height, rgba, &failure);
    if (fflush(file) != 0 || ferror(file)) {
        if (ok) {
            snprintf(failure.message, sizeof failure.message, "%s", strerror(errno));
        }
        ok = false;
    }
    if (fclose(file) != 0 && ok) {
        snprintf(failure.message, sizeof failure.message, "%s", strerror(errno));
        ok = false;
    }
    if (ok && rename(temp, path) != 0) {
        snprintf(failure.message, sizeof failure.message, "cannot rename into place: %s",
                 strerror(errno));
        ok = false;
    }
    if (!ok) {
        remove(temp);
        free(temp);
        return crowd_error_set(error, CROWD_ERROR_OUTPUT, path, "cannot write PNG: %s",
                               failure.message);
    }
    free(temp);
    return CROWD_OK;
}
