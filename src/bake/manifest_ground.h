/* manifest_ground.h - what speed matching needs of a bake, for its manifest
 * (clips[].ground_speed, blends[].strides in docs/manifest.md): the numbers a
 * world made from the bake would measure (anim/ground_measure.h), so that
 * the loaded bake and players without a skeleton match speeds on them. */
#ifndef CROWD_BAKE_MANIFEST_GROUND_H
#define CROWD_BAKE_MANIFEST_GROUND_H

#include "crowd/bake.h"

typedef float manifest_strides[CROWD_BAKE_BLEND_MAX_CLIPS - 1][CROWD_BAKE_BLEND_STRIDE_STEPS + 1];

typedef struct manifest_ground {
    float *speeds;             /* per clip; NULL: no skeleton to measure on */
    manifest_strides *strides; /* per blend; NULL as speeds or without blends */
} manifest_ground;

/* Measures (or, for a loaded bake that has them, copies) the bake's ground
 * speeds and strides into *out; both NULL when the bake has no skeleton
 * and clips (a loaded bake without runtime clips, never written with
 * them). Errors: CROWD_ERROR_OUT_OF_MEMORY. */
crowd_result crowd__manifest_ground_measure(const crowd_bake *bake, manifest_ground *out,
                                            crowd_error *error);
void crowd__manifest_ground_free(const crowd_bake *bake, manifest_ground *ground);

#endif
