/* png_write.h - writing PNG through libpng: the files of a bake, and
 * rendered pictures.
 *
 * 16-bit images (the unorm16 VAT, OpenVAT's texture) streamed row by row
 * from a callback, so a texture never needs a second full-size copy, small
 * RGBA8 images encoded in memory (material textures inside the GLB), and
 * rendered RGBA8 pictures to a stdio stream for crowd's programs. All three
 * run one libpng write sequence. libpng's messages never reach
 * stdout/stderr: they become the reason of the crowd_error. Reading is the
 * runtime's (load/png_read.h).
 */
#ifndef CROWD_BAKE_PNG_WRITE_H
#define CROWD_BAKE_PNG_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bake/atomic_set.h"
#include "crowd/result.h"

/* Fills row `y` of the image: width * channels samples. */
typedef void (*png_row_fn)(void *user, uint32_t y, uint16_t *samples);

/* Writes a 16-bit PNG with 3 (RGB) or 4 (RGBA) channels, rows top first.
 * Compression is chosen for speed (docs/manifest.md). Errors:
 * CROWD_ERROR_OUTPUT (from the file), CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__png_write_u16(atomic_file *file, uint32_t width, uint32_t height, int channels,
                                  png_row_fn row, void *user, crowd_error *error);

/* Encodes width x height RGBA8 pixels as a PNG into a malloc'ed buffer. */
crowd_result crowd__png_encode_rgba8(const uint8_t *pixels, uint32_t width, uint32_t height,
                                     uint8_t **out_data, size_t *out_size, crowd_error *error);

/* Writes width x height RGBA8 pixels to `stream` as an 8-bit RGBA PNG marked
 * sRGB: a rendered picture, not data. The stream is neither flushed nor
 * closed. Errors: CROWD_ERROR_OUTPUT naming `path`, with libpng's reason
 * ("Write Error" when the stream refused bytes). */
crowd_result crowd__png_write_rgba8_srgb(FILE *stream, const char *path, const uint8_t *pixels,
                                         uint32_t width, uint32_t height, crowd_error *error);

#endif
