/* png_read.h - reading the PNG files of a bake through libpng.
 *
 * From memory, strict where the bake defines the format (16-bit RGBA of an
 * exact size) and lenient for material images (any PNG, expanded to RGBA8).
 * Samples are host-order uint16_t; the big-endian file order is handled
 * here. libpng's messages never reach stdout/stderr: they become the reason
 * of the crowd_error. Every block, the result's and libpng's own, comes from
 * `allocator` (NULL: malloc). Writing is the offline library's
 * (bake/png_write.h).
 */
#ifndef CROWD_LOAD_PNG_READ_H
#define CROWD_LOAD_PNG_READ_H

#include <stddef.h>
#include <stdint.h>

#include "crowd/result.h"

/* Decodes a PNG that must be 16-bit RGBA, non-interlaced, exactly
 * width x height, into an array of width * height * 4 samples.
 * `name` is the file named in errors. Errors: CROWD_ERROR_INVALID_DATA
 * (corrupt, truncated, other size or depth), CROWD_ERROR_UNSUPPORTED
 * (interlaced), CROWD_ERROR_LIMIT, CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__png_read_rgba16(const uint8_t *data, size_t size, const char *name,
                                    uint32_t width, uint32_t height,
                                    const crowd_allocator *allocator, uint16_t **out_samples,
                                    crowd_error *error);

/* Decodes any PNG to RGBA8 (palette, grey and 16-bit expanded or reduced)
 * into a buffer. Same errors. */
crowd_result crowd__png_decode_rgba8(const uint8_t *data, size_t size, const char *name,
                                     const crowd_allocator *allocator, uint32_t *out_width,
                                     uint32_t *out_height, uint8_t **out_pixels,
                                     crowd_error *error);

#endif
