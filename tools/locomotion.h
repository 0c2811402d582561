/* locomotion.h - a locomotion blend for any archetype, for `crowd play`
 * (B) and the bench's blend cells: its looping clips that travel, ordered
 * by ground speed (crowd_archetype_clip_ground_speed), as one blend whose
 * thresholds are those speeds (crowd_archetype_add_blend with NULL
 * thresholds), so crowd_instance_set_ground_speed matches the feet. */
#ifndef CROWD_TOOLS_LOCOMOTION_H
#define CROWD_TOOLS_LOCOMOTION_H

#include "crowd/gpu.h"

typedef struct locomotion {
    crowd_blend blend;      /* index 0: the archetype has fewer than two such clips */
    float slowest, fastest; /* ground speeds of its first and last clip, m/s */
} locomotion;

/* Declares the blend; out->blend.index 0 (CROWD_OK) when the archetype
 * has no two looping clips of distinct ground speeds above 0.1 m/s. */
crowd_result locomotion_declare(crowd_world *world, crowd_archetype archetype, locomotion *out,
                                crowd_error *error);

#endif
