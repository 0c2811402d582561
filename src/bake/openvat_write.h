/* openvat_write.h - an OpenVAT-compatible copy of a bake, so the players
 * that come with the OpenVAT Blender add-on (Unity, Unreal, Godot, three.js)
 * can play it (docs/engines.md, "OpenVAT").
 *
 * OpenVAT's layout differs from crowd's: Blender axes (Z up), positions as
 * offsets from the rest mesh normalized per axis to a Min/Max given in
 * NAME-remap_info.json, a power-of-two texture whose vertices wrap in blocks
 * of all frames (block b holds vertices b*W .. b*W+W-1, one row per frame),
 * normals packed as (n + 1) / 2 in the bottom half, 16-bit RGB PNG, and a
 * mesh whose second UV set points at each vertex's first texel.
 */
#ifndef CROWD_BAKE_OPENVAT_WRITE_H
#define CROWD_BAKE_OPENVAT_WRITE_H

#include <stdint.h>

#include "bake/atomic_set.h"
#include "load/manifest_io.h"
#include "crowd/bake.h"

#define OPENVAT_MIN_WIDTH 64u
#define OPENVAT_MAX_WIDTH 8192u

typedef struct openvat_layout {
    uint32_t width, height; /* powers of two */
    uint32_t wraps;         /* ceil(vertices / width): blocks of `frames` rows */
    uint32_t frames;
} openvat_layout;

/* OpenVAT's choice of size: among widths 64..8192 (powers of two), height
 * the next power of two of 2 * wraps * frames, the smallest area whose
 * sides differ by at most a factor of two, else the smallest area of all;
 * ties go to the narrower. Errors: CROWD_ERROR_LIMIT (taller than 16384). */
crowd_result crowd__openvat_plan(uint32_t vertices, uint32_t frames, openvat_layout *layout,
                                 crowd_error *error);

/* Paths of the set relative to the bake folder ("openvat/NAME.3_vat.png"):
 * OpenVAT's names for an object called NAME.<generation>, so the three
 * files of one bake pair up as OpenVAT's tools expect, and a bake's set
 * never overwrites the one the current manifest names (bake_leftovers.h). */
typedef struct openvat_names {
    char remap_info[MANIFEST_NAME_MAX + 32];
    char texture[MANIFEST_NAME_MAX + 32];
    char mesh[MANIFEST_NAME_MAX + 32];
} openvat_names;

/* Adds openvat/NAME.G-remap_info.json, openvat/NAME.G_vat.png and
 * openvat/NAME.G.glb (G the generation) to `set` and fills `names`. Needs a
 * VAT. Errors:
 * CROWD_ERROR_INVALID_ARGUMENT (no VAT), CROWD_ERROR_LIMIT,
 * CROWD_ERROR_OUTPUT, CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__openvat_write(atomic_set *set, const crowd_bake *bake, uint32_t generation,
                                  openvat_names *names, crowd_error *error);

#endif
