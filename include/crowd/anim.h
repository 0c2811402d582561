/* crowd/anim.h - the pose pipeline: sample a clip, blend poses, walk the
 * hierarchy, build skinning matrices.
 *
 * Jobs in ozz-animation's style: pure functions over caller-owned arrays,
 * no allocation, no I/O, no GL, safe to call from many threads on distinct
 * outputs. A pose is an array of skeleton.joint_count crowd_transform.
 *
 * Skinning matrices are 3x4, row-major, float[12] per joint: the three rows
 * of (model_from_root^-1 * model[j] * inverse_bind[j]) with the implicit
 * fourth row (0 0 0 1). This is the layout the skinning code, the BAT
 * texture and the GPU palettes share.
 */
#ifndef CROWD_ANIM_H
#define CROWD_ANIM_H

#include "crowd/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Local joint transform: translation, unit rotation (x, y, z, w), scale. */
typedef struct crowd_transform {
    float translation[3];
    float rotation[4];
    float scale[3];
} crowd_transform;

/* Per-instance playback memory that makes forward playback O(1) per joint:
 * remembers, per track, the key found last time. Zero-initialise it (or call
 * crowd_anim_cursor_reset) before first use and whenever the clip changes.
 * `keys` has crowd_anim_cursor_size() entries, owned by the caller. */
typedef struct crowd_anim_cursor {
    const crowd_clip *clip; /* the clip the hints belong to (reset on change) */
    uint32_t *keys;         /* 3 * joint_count key hints */
    uint32_t key_count;     /* entries in `keys` */
} crowd_anim_cursor;

/* Number of uint32_t a cursor needs for this skeleton: 3 * joint_count. */
uint32_t crowd_anim_cursor_size(const crowd_skeleton *skeleton);
void crowd_anim_cursor_reset(crowd_anim_cursor *cursor);

/* Maps a playback time to clip time: looping clips wrap into [0, duration),
 * one-shot clips clamp to [0, duration]. Negative times wrap/clamp too. */
float crowd_anim_clip_time(const crowd_clip *clip, float time_s);

/* The rest pose (rest TRS of every joint) into out[joint_count]. */
void crowd_anim_rest_pose(const crowd_skeleton *skeleton, crowd_transform *out);

/* Samples `clip` at `time_s` (already mapped by crowd_anim_clip_time or not:
 * it is mapped here too) into out[joint_count]. Joints without a track keep
 * their rest value. Step, linear (slerp along the shortest arc for
 * rotations) and glTF cubic-spline keys; cubic rotations are normalized.
 * `cursor` may be NULL (binary search every call). */
void crowd_anim_sample(const crowd_skeleton *skeleton, const crowd_clip *clip, float time_s,
                       crowd_anim_cursor *cursor, crowd_transform *out);

/* Weighted blend of pose_count poses into out. Translations and scales are
 * weighted sums, rotations a normalized lerp with hemisphere correction
 * against the first pose with weight > 0. Weights are normalized; if they
 * sum to 0 the result is the rest pose. out may alias poses[0]. */
void crowd_anim_blend(const crowd_skeleton *skeleton, const crowd_transform *const *poses,
                      const float *weights, uint32_t pose_count, crowd_transform *out);

/* Model matrices (column-major float[16] each) of every joint from a local
 * pose: model[j] = model[parent] * local[j], roots use skeleton.root_transform.
 * out_models has 16 * joint_count floats. */
void crowd_anim_local_to_model(const crowd_skeleton *skeleton, const crowd_transform *locals,
                               float *out_models);

/* Skinning matrices (3x4 row-major, 12 floats per joint) from model matrices:
 * inverse(root_world) * model[j] * inverse_bind[j]. `root_world` (column-major
 * 4x4) is the world transform of the character's root node in the file, the
 * space the caller wants vertices in; NULL means identity (keep model space).
 * out_skin has 12 * joint_count floats. */
void crowd_anim_skin_matrices(const crowd_skeleton *skeleton, const float *models,
                              const float *root_world, float *out_skin);

#ifdef __cplusplus
}
#endif

#endif
