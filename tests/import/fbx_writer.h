/* fbx_writer.h - Mixamo-style animation files without a mesh, written by
 * test_import_anim_assimp: ASCII FBX 7.4 holding a character's skeleton as
 * Model LimbNodes (rest pose as Lcl Translation in centimetres, Lcl
 * Rotation in Euler XYZ degrees, Lcl Scaling), under a Null "Armature"
 * where the skeleton has a root transform, and one AnimationStack
 * ("mixamo.com") whose curves keep every joint that has them at rest but
 * one, turned about its parent's Z axis by FBX_TURN_DEG at FBX_KEY_S.
 * GlobalSettings: Y up, UnitScaleFactor 1 (cm), 30 frames per second, as
 * Mixamo's downloads. Key times are in FBX ticks (46186158000 a second). */
#ifndef FBX_WRITER_H
#define FBX_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/asset.h"

#define FBX_KEY_COUNT 3
extern const double FBX_KEY_S[FBX_KEY_COUNT];    /* 0, 0.5, 1 */
extern const double FBX_TURN_DEG[FBX_KEY_COUNT]; /* 0, 30, 90 */

typedef struct fbx_spec {
    const char *prefix; /* before every joint name ("mixamorig:") */
    const bool *curves; /* per joint: a rotation curve node (the root also a translation one) */
    int32_t turned;     /* the joint turned, -1 for none */
    bool animation;     /* false: no AnimationStack at all */
    const char *type;   /* the Models' type: "LimbNode" (NULL) or "Null" */
    bool unequal_keys;  /* a curve with more key times than values (malformed) */
} fbx_spec;

/* Euler XYZ angles in degrees (R = Rz * Ry * Rx, FBX's eEulerXYZ) of unit
 * quaternion q (x, y, z, w). */
void fbx_euler_xyz_deg(const float q[4], double out[3]);
/* The quaternion of Euler XYZ angles in degrees: qz * qy * qx. */
void fbx_quat_from_euler_deg(const double euler[3], float out[4]);

/* Writes the file; false when it cannot be written. */
bool fbx_write(const char *path, const crowd_skeleton *skeleton, const fbx_spec *spec);

#endif
