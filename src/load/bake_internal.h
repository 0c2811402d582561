/* bake_internal.h - what the runtime's side of a bake (this module: the
 * encodings, crowd_bake_vat_fetch, crowd_bake_destroy, the loader) shares
 * with the offline side (bake/: the builder, the report, the writers). Not a
 * public header.
 *
 * The scalar encodings here are the single definition of the stored formats
 * (docs/encodings.md): the builder encodes with them, crowd_bake_vat_fetch and
 * the loader's range checks decode with them, so every reader agrees bit for
 * bit. All functions are pure and thread-safe.
 *
 * Ownership rule for struct crowd_bake (crowd_bake_destroy relies on it):
 * the struct itself, name, source, clips, every clips[i].name, every
 * crowd_texture.texels, lod_vertices and lod_indices are separate blocks of
 * bake->allocator (or NULL): malloc/calloc for a built bake, whose allocator
 * is zeroed. owned_asset is released with crowd_asset_destroy, through its
 * own asset->allocator (the loader gives it the bake's).
 */
#ifndef CROWD_LOAD_BAKE_INTERNAL_H
#define CROWD_LOAD_BAKE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "crowd/bake.h"

/* Bytes of one texel (16 or 8), 0 for CROWD_TEXEL_NONE or an unknown value. */
size_t crowd__bake_texel_size_bytes(crowd_texel_format format);

/* IEEE 754 binary16, round to nearest even; values beyond 65504 become
 * infinity, NaN stays NaN. */
uint16_t crowd__bake_half_from_float(float value);
float crowd__bake_half_to_float(uint16_t half);

/* Sample `index` (texel * 4 + channel) of `texture` as stored, widened to
 * float: the float itself, the half converted, or the unorm16 code as a
 * number (0..65535, not decoded to a position). The manifest's value ranges
 * are ranges of these numbers. Inline: loops over whole textures call it. */
static inline float bake_texel_stored_value(const crowd_texture *texture, size_t index) {
    if (texture->format == CROWD_TEXEL_RGBA32F) {
        return ((const float *)texture->texels)[index];
    }
    uint16_t stored = ((const uint16_t *)texture->texels)[index];
    return texture->format == CROWD_TEXEL_RGBA16F ? crowd__bake_half_to_float(stored)
                                                  : (float)stored;
}

/* unorm16 over [min, max]: decode is min + (max - min) * (q / 65535.0f) in
 * float; encode returns the q whose decode is nearest to `value` (clamped to
 * the range). A zero-extent range stores 0. */
uint16_t crowd__bake_unorm16_encode(float value, float min, float max);
float crowd__bake_unorm16_decode(uint16_t q, float min, float max);

/* Octahedral unit normal in 16 bits: high byte x, low byte y; each byte b
 * stands for b / 255 * 2 - 1. Encode picks, of the four neighbouring grid
 * points, the one whose decode is closest in angle. Non-finite or zero input
 * encodes +Z. Decode returns a unit vector. */
uint16_t crowd__bake_oct_encode(const float normal[3]);
void crowd__bake_oct_decode(uint16_t packed, float normal[3]);

/* bake_events.c: an event's (and a blend's) name rule: 1 to
 * CROWD_BAKE_EVENT_NAME_MAX bytes, no control character. */
crowd_result crowd__bake_check_name(const char *name, crowd_error *error);

#endif
