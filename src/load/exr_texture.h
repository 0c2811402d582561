/* exr_texture.h - a bake texture as an OpenEXR part (load/exr_read.h says
 * which shape), what the reader (load/exr_read.c) and the offline writer
 * (bake/exr_write.c) share, through OpenEXR's C core library.
 *
 * Texels are interleaved RGBA in memory; OpenEXR stores channels planar per
 * scanline chunk, so each chunk is encoded or decoded with per-channel
 * pointers into the interleaved rows (pixel stride = one texel). OpenEXR's
 * messages are captured, never printed.
 */
#ifndef CROWD_LOAD_EXR_TEXTURE_H
#define CROWD_LOAD_EXR_TEXTURE_H

#include <openexr.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/bake.h"

/* OpenEXR's first error message of one read or write. The user data of the
 * OpenEXR context points at a struct whose first member is this one, so
 * that crowd__exr_texture_on_error (the context's error handler) can fill it. */
typedef struct exr_texture_message {
    char text[200];
} exr_texture_message;

void crowd__exr_texture_on_error(exr_const_context_t context, exr_result_t code,
                                 const char *message);

/* `in` (may be NULL) as printable ASCII, each other byte and '\\' written
 * as \\xNN, cut to fit `size` bytes: header text quoted in a message. */
void crowd__exr_texture_printable(char *out, size_t size, const char *in);

/* Keeps OpenEXR's default message for `code` unless one was captured. */
void crowd__exr_texture_note_failure(exr_texture_message *message, exr_result_t code);

/* Position of channel `name` in an RGBA texel, or -1. */
int crowd__exr_texture_channel_index(const char *name);

/* The EXR pixel type (HALF or FLOAT) and bytes per component of `format`
 * (CROWD_TEXEL_RGBA16F or CROWD_TEXEL_RGBA32F). */
exr_pixel_type_t crowd__exr_texture_pixel_type(crowd_texel_format format);
int32_t crowd__exr_texture_component_bytes(crowd_texel_format format);

/* Points each channel of a chunk starting at row start_y at its component
 * inside the interleaved rows of `texels` (width texels per row): the
 * decode target when decoding, else the encode source. */
void crowd__exr_texture_point_channels(exr_coding_channel_info_t *channels, int16_t count,
                                       uint8_t *texels, uint32_t width, int32_t start_y,
                                       crowd_texel_format format, bool decoding);

#endif
