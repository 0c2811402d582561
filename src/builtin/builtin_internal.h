/* builtin_internal.h - the parts of the built-in character (private).
 *
 * skeleton.c names the joints and places them (rest pose: every rotation
 * identity, so a joint's frame is parallel to model space and clip rotations
 * read as plain axis angles); tube.c turns one body-part description into
 * skinned vertices and triangles; body.c lists the body parts; clip_build.c
 * samples a pose function into tracks; clip_poses.c holds the pose functions
 * of idle, walk, run, wave and die.
 *
 * Everything is computed with plain C arithmetic in a fixed order (no
 * threads, no random numbers, -ffp-contract off under -std=c11), so the same
 * call gives the same bytes.
 */
#ifndef CROWD_BUILTIN_INTERNAL_H
#define CROWD_BUILTIN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/asset.h"

/* Joints in parent-before-child order. The character faces +Z, so its left
 * side is +X. */
enum builtin_joint {
    BJ_HIPS,
    BJ_SPINE,
    BJ_SPINE1,
    BJ_SPINE2,
    BJ_NECK,
    BJ_HEAD,
    BJ_SHOULDER_L,
    BJ_UPPER_ARM_L,
    BJ_LOWER_ARM_L,
    BJ_HAND_L,
    BJ_SHOULDER_R,
    BJ_UPPER_ARM_R,
    BJ_LOWER_ARM_R,
    BJ_HAND_R,
    BJ_UPPER_LEG_L,
    BJ_LOWER_LEG_L,
    BJ_FOOT_L,
    BJ_UPPER_LEG_R,
    BJ_LOWER_LEG_R,
    BJ_FOOT_R,
    BJ_COUNT
};

enum builtin_material { BM_SKIN, BM_SHIRT, BM_TROUSERS, BM_COUNT };

/* ---- skeleton.c ---- */

/* Allocates and fills the skeleton's arrays; false when out of memory (what
 * was allocated stays in `skeleton` for crowd_asset_destroy). */
bool crowd__builtin_skeleton_fill(crowd_skeleton *skeleton);

/* Rest-pose model-space position of a joint. */
void crowd__builtin_joint_position(uint32_t joint, double out[3]);

/* ---- tube.c ---- */

/* Cross-section scale along a part: at t (0 = start, 1 = end) the radii are
 * scaled by (scale_u, scale_v) and the centre moved by offset_v_m along v. */
typedef struct builtin_knot {
    double t, scale_u, scale_v, offset_v_m;
} builtin_knot;

#define BUILTIN_MAX_CHAIN 6

/* A body part: a closed tube around the segment start..end with rounded
 * ends, a superellipse cross-section (exponent 2 = ellipse, larger = boxier)
 * with radius_u across and radius_v towards `front`. Skin weights follow a
 * chain of joints placed along the axis: each joint owns the axis from its
 * point to the next one's, blended over +-falloff_m around each point. */
typedef struct builtin_part {
    uint32_t material;
    double start[3], end[3];
    double front[3];
    double radius_u_m, radius_v_m;
    double exponent;
    double cap_start_m, cap_end_m;
    uint32_t sides, cap_rings, body_rings;
    const builtin_knot *knots;
    uint32_t knot_count;
    uint32_t chain_joints[BUILTIN_MAX_CHAIN];
    double chain_points[BUILTIN_MAX_CHAIN][3]; /* model space, projected on the axis */
    uint32_t chain_count;
    double falloff_m;
    /* Optional extra influence for vertices away from the axis (a shoulder
     * on the chest, a thigh on the pelvis): side joints for x > 0 and x < 0,
     * weight `lateral_max` * ramp(|x|: x0 -> x1) * ramp(y: y0 -> y1). */
    bool lateral;
    uint32_t lateral_joint_pos_x, lateral_joint_neg_x;
    double lateral_x0, lateral_x1, lateral_y0, lateral_y1, lateral_max;
} builtin_part;

/* Appends a part's vertices and triangles. The first call pass has NULL
 * arrays in `mesh` and only counts (vertex_count, index_count grow); the
 * second writes at the current counts. */
void crowd__builtin_tube_emit(const builtin_part *part, crowd_mesh *mesh);

/* ---- body.c ---- */

/* Allocates and fills the mesh (vertices, triangles, one submesh per
 * material); false when out of memory. */
bool crowd__builtin_body_fill(crowd_mesh *mesh);

/* ---- clip_build.c ---- */

/* A pose relative to the rest pose: per-joint rotation as angles in radians
 * about X, then Y, then Z of the parent frame (q = qy * qx * qz applied to
 * the rest rotation, identity here), and the hips' offset in metres. */
typedef struct builtin_pose {
    float angles[BJ_COUNT][3];
    float hips_offset_m[3];
} builtin_pose;

typedef void (*builtin_pose_fn)(float time_s, float duration_s, builtin_pose *out);

typedef struct builtin_clip_spec {
    const char *name;
    float duration_s;
    bool loop;
    builtin_pose_fn pose;
} builtin_clip_spec;

/* Samples spec->pose at a fixed key rate into linear tracks: a rotation
 * track for every joint the pose moves, a translation track for the hips.
 * Looping clips get a last key identical to the first. */
bool crowd__builtin_clip_fill(const builtin_clip_spec *spec, crowd_clip *clip);

/* ---- clip_poses.c ---- */

extern const builtin_clip_spec crowd__builtin_clip_specs[];
extern const uint32_t crowd__builtin_clip_spec_count;

#endif
