/* png_io.h - PNG through libpng: the files of a bake, and rendered pictures.
 *
 * Writing: 16-bit images (the unorm16 VAT, OpenVAT's texture) streamed row by
 * row from a callback, so a texture never needs a second full-size copy,
 * small RGBA8 images encoded in memory (material textures inside the GLB),
 * and rendered RGBA8 pictures to a stdio stream for the gpu module. All three
 * run one libpng write sequence.
 * Reading: from memory, strict where the bake defines the format (16-bit
 * RGBA of an exact size) and lenient for material images (any PNG, expanded
 * to RGBA8). Samples are host-order uint16_t; the big-endian file order is
 * handled here. libpng's messages never reach stdout/stderr: they become the
 * reason of the crowd_error.
 */
#ifndef CROWD_BAKE_PNG_IO_H
#define CROWD_BAKE_PNG_IO_H

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
crowd_result png_write_u16(atomic_file *file, uint32_t width, uint32_t height, int channels,
                           png_row_fn row, void *user, crowd_error *error);

/* Encodes width x height RGBA8 pixels as a PNG into a malloc'ed buffer. */
crowd_result png_encode_rgba8(const uint8_t *pixels, uint32_t width, uint32_t height,
                              uint8_t **out_data, size_t *out_size, crowd_error *error);

/* Writes width x height RGBA8 pixels to `stream` as an 8-bit RGBA PNG marked
 * sRGB: a rendered picture (crowd_image_write_png), not data. The stream is
 * neither flushed nor closed. Errors: CROWD_ERROR_OUTPUT naming `path`, with
 * libpng's reason ("Write Error" when the stream refused bytes). */
crowd_result png_write_rgba8_srgb(FILE *stream, const char *path, const uint8_t *pixels,
                                  uint32_t width, uint32_t height, crowd_error *error);

/* Decodes a PNG that must be 16-bit RGBA, non-interlaced, exactly
 * width x height, into a malloc'ed array of width * height * 4 samples.
 * `name` is the file named in errors. Errors: CROWD_ERROR_INVALID_DATA
 * (corrupt, truncated, other size or depth), CROWD_ERROR_UNSUPPORTED
 * (interlaced), CROWD_ERROR_LIMIT, CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result png_read_rgba16(const uint8_t *data, size_t size, const char *name, uint32_t width,
                             uint32_t height, uint16_t **out_samples, crowd_error *error);

/* Decodes any PNG to RGBA8 (palette, grey and 16-bit expanded or reduced)
 * into a malloc'ed buffer. Same errors. */
crowd_result png_decode_rgba8(const uint8_t *data, size_t size, const char *name,
                              uint32_t *out_width, uint32_t *out_height, uint8_t **out_pixels,
                              crowd_error *error);

#endif
