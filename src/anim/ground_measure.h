/* ground_measure.h - what speed matching (crowd/gpu.h "blends") needs of an
 * asset's clips, measured on its skeleton: every clip's ground speed and a
 * blend's strides. One implementation for the world (src/gpu/blend.c) and
 * the bake's manifest (src/bake/manifest_write.c), so that a bake carries
 * the very numbers a world measures, and players without a skeleton (the
 * three.js player) match speeds as the world does. */
#ifndef CROWD_ANIM_GROUND_MEASURE_H
#define CROWD_ANIM_GROUND_MEASURE_H

#include "crowd/asset.h"
#include "crowd/bake.h"
#include "crowd/result.h"

/* Weights k / STEPS (k = 0..STEPS) at which each segment's stride is taken. */
#define CROWD__GROUND_STRIDE_STEPS CROWD_BAKE_BLEND_STRIDE_STEPS

/* Ground speed (crowd_anim_clip_ground_speed, watching the feet of `drawn`)
 * of clip_count clips of `source`, clip i being source->clips[source_clips[i]]
 * (0 for an index out of range or a clip that cannot be measured). */
crowd_result crowd__ground_measure_speeds(const crowd_allocator *allocator,
                                          const crowd_asset *source, const crowd_mesh *drawn,
                                          const uint32_t *source_clips, uint32_t clip_count,
                                          float *out_speeds, crowd_error *error);

/* A blend's strides: for each segment i (its clips i and i + 1, played at
 * durations[i], durations[i + 1]), at weight w = k / STEPS, the phase-locked
 * blend's ground speed (crowd_anim_blend_ground_speed) times its cycle
 * lerp(d_i, d_i+1, w): how far the planted foot goes in one cycle. */
crowd_result crowd__ground_measure_strides(const crowd_allocator *allocator,
                                           const crowd_asset *source, const crowd_mesh *drawn,
                                           const uint32_t *source_clips, const float *durations,
                                           uint32_t clip_count,
                                           float (*out_strides)[CROWD__GROUND_STRIDE_STEPS + 1],
                                           crowd_error *error);

#endif
