/* RGBA8 PNG output for rendered frames, written atomically: a temporary file
 * in the destination folder, renamed into place once complete. The encoding
 * itself is the bake module's PNG writer (bake/png_write.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bake/png_write.h"
#include "host.h"

crowd_result host_write_png(const char *path, uint32_t width, uint32_t height, const uint8_t *rgba,
                            crowd_error *error) {
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
        crowd_result result =
            crowd_error_set(error, CROWD_ERROR_OUTPUT, path, "cannot create: %s", strerror(errno));
        free(temp);
        return result;
    }
    crowd_result result = crowd__png_write_rgba8_srgb(file, path, rgba, width, height, error);
    if ((fflush(file) != 0 || ferror(file)) && result == CROWD_OK) {
        result = crowd_error_set(error, CROWD_ERROR_OUTPUT, path, "cannot write PNG: %s",
                                 strerror(errno));
    }
    if (fclose(file) != 0 && result == CROWD_OK) {
        result = crowd_error_set(error, CROWD_ERROR_OUTPUT, path, "cannot write PNG: %s",
                                 strerror(errno));
    }
    if (result == CROWD_OK && rename(temp, path) != 0) {
        result = crowd_error_set(error, CROWD_ERROR_OUTPUT, path,
                                 "cannot write PNG: cannot rename into place: %s", strerror(errno));
    }
    if (result != CROWD_OK) {
        remove(temp);
    }
    free(temp);
    return result;
}
