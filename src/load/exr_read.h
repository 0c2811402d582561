/* exr_read.h - reading the float textures of a bake from OpenEXR files,
 * through OpenEXR's C core library (openexr.h).
 *
 * A bake's EXR is one scanline part with channels R, G, B, A, all HALF
 * (CROWD_TEXEL_RGBA16F) or all FLOAT (CROWD_TEXEL_RGBA32F), data window
 * (0, 0)-(width-1, height-1), increasing y, so row 0 of the texture is the
 * first scanline. Reading is from memory and accepts exactly that shape with
 * any lossless compression (none, RLE, ZIPS, ZIP, PIZ); OpenEXR's messages
 * become the reason of the crowd_error, never output. The texels and
 * OpenEXR's context memory come from `allocator` (NULL: malloc). Writing is
 * the offline library's (bake/exr_write.h).
 */
#ifndef CROWD_LOAD_EXR_READ_H
#define CROWD_LOAD_EXR_READ_H

#include <stddef.h>
#include <stdint.h>

#include "crowd/bake.h"

/* Decodes an EXR that must match width x height and `format` into a
 * texel array (4 samples per texel, in the texel format's type).
 * `name` is the file named in errors. Errors: CROWD_ERROR_INVALID_DATA
 * (corrupt, truncated, other size, channels or pixel type),
 * CROWD_ERROR_UNSUPPORTED (tiled, deep, multi-part, lossy compression),
 * CROWD_ERROR_LIMIT, CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__exr_read_rgba(const uint8_t *data, size_t size, const char *name,
                                  uint32_t width, uint32_t height, crowd_texel_format format,
                                  const crowd_allocator *allocator, void **out_texels,
                                  crowd_error *error);

#endif
