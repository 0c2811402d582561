/* import_png.c - PNG bytes to RGBA8 through libpng's simplified API, which
 * handles every colour type and bit depth and reports malformed data as a
 * failure instead of longjmp-ing into our code. */
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "import/scene/import_png.h"

bool crowd__import_png_decode(const void *bytes, size_t size, uint32_t max_side,
                              uint32_t *out_width, uint32_t *out_height, uint8_t **out_rgba8) {
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (size < sizeof signature || memcmp(bytes, signature, sizeof signature) != 0) {
        return false;
    }
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, bytes, size)) {
        return false;
    }
    if (image.width == 0 || image.height == 0 || image.width > max_side ||
        image.height > max_side) {
        png_image_free(&image);
        return false;
    }
    image.format = PNG_FORMAT_RGBA;
    uint8_t *pixels = malloc(PNG_IMAGE_SIZE(image));
    if (pixels == NULL) {
        png_image_free(&image);
        return false;
    }
    if (!png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
        free(pixels);
        png_image_free(&image);
        return false;
    }
    *out_width = image.width;
    *out_height = image.height;
    *out_rgba8 = pixels;
    return true;
}
