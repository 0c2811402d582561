/* skeleton.c - the built-in character's 20 joints, placed for a 1.8 m adult
 * standing on y = 0 and facing +Z, arms hanging 6 degrees out from the body.
 *
 * Every rest rotation is identity and every scale 1, so a joint's model
 * matrix is a pure translation (the sum of the rest translations up the
 * chain) and its inverse bind matrix translates back by minus that. */
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin_internal.h"
#include "core/core_internal.h"

typedef struct joint_def {
    const char *name;
    int32_t parent;
    float translation[3]; /* relative to the parent */
} joint_def;

/* The arms point down and 6 degrees outwards: (+-sin 6, -cos 6, 0) times the
 * bone length (upper arm 0.28 m, forearm 0.25 m). */
static const joint_def joints[BJ_COUNT] = {
    [BJ_HIPS] = {"hips", -1, {0.0f, 0.98f, 0.0f}},
    [BJ_SPINE] = {"spine", BJ_HIPS, {0.0f, 0.10f, 0.0f}},
    [BJ_SPINE1] = {"spine1", BJ_SPINE, {0.0f, 0.14f, 0.0f}},
    [BJ_SPINE2] = {"spine2", BJ_SPINE1, {0.0f, 0.14f, 0.0f}},
    [BJ_NECK] = {"neck", BJ_SPINE2, {0.0f, 0.14f, 0.0f}},
    [BJ_HEAD] = {"head", BJ_NECK, {0.0f, 0.10f, 0.0f}},
    [BJ_SHOULDER_L] = {"shoulder_L", BJ_SPINE2, {0.03f, 0.08f, 0.0f}},
    [BJ_UPPER_ARM_L] = {"upper_arm_L", BJ_SHOULDER_L, {0.15f, 0.0f, 0.0f}},
    [BJ_LOWER_ARM_L] = {"lower_arm_L", BJ_UPPER_ARM_L, {0.029268f, -0.278466f, 0.0f}},
    [BJ_HAND_L] = {"hand_L", BJ_LOWER_ARM_L, {0.026132f, -0.248630f, 0.0f}},
    [BJ_SHOULDER_R] = {"shoulder_R", BJ_SPINE2, {-0.03f, 0.08f, 0.0f}},
    [BJ_UPPER_ARM_R] = {"upper_arm_R", BJ_SHOULDER_R, {-0.15f, 0.0f, 0.0f}},
    [BJ_LOWER_ARM_R] = {"lower_arm_R", BJ_UPPER_ARM_R, {-0.029268f, -0.278466f, 0.0f}},
    [BJ_HAND_R] = {"hand_R", BJ_LOWER_ARM_R, {-0.026132f, -0.248630f, 0.0f}},
    [BJ_UPPER_LEG_L] = {"upper_leg_L", BJ_HIPS, {0.095f, -0.06f, 0.0f}},
    [BJ_LOWER_LEG_L] = {"lower_leg_L", BJ_UPPER_LEG_L, {0.0f, -0.42f, 0.0f}},
    [BJ_FOOT_L] = {"foot_L", BJ_LOWER_LEG_L, {0.0f, -0.42f, 0.0f}},
    [BJ_UPPER_LEG_R] = {"upper_leg_R", BJ_HIPS, {-0.095f, -0.06f, 0.0f}},
    [BJ_LOWER_LEG_R] = {"lower_leg_R", BJ_UPPER_LEG_R, {0.0f, -0.42f, 0.0f}},
    [BJ_FOOT_R] = {"foot_R", BJ_LOWER_LEG_R, {0.0f, -0.42f, 0.0f}},
};

void crowd__builtin_joint_position(uint32_t joint, double out[3]) {
    out[0] = out[1] = out[2] = 0.0;
    for (int32_t j = (int32_t)joint; j >= 0; j = joints[j].parent) {
        for (int a = 0; a < 3; a++) {
            out[a] += joints[j].translation[a];
        }
    }
}

bool crowd__builtin_skeleton_fill(crowd_skeleton *sk) {
    if (!crowd__core_skeleton_allocate(sk, BJ_COUNT)) {
        return false;
    }
    for (uint32_t j = 0; j < BJ_COUNT; j++) {
        size_t len = strlen(joints[j].name) + 1;
        sk->names[j] = malloc(len);
        if (sk->names[j] == NULL) {
            return false;
        }
        memcpy(sk->names[j], joints[j].name, len);
        sk->parents[j] = joints[j].parent;
        memcpy(sk->rest_translation + 3 * j, joints[j].translation, 3 * sizeof(float));
        const float identity_q[4] = {0.0f, 0.0f, 0.0f, 1.0f};
        memcpy(sk->rest_rotation + 4 * j, identity_q, sizeof identity_q);
        for (int a = 0; a < 3; a++) {
            sk->rest_scale[3 * j + a] = 1.0f;
        }
        double position[3];
        crowd__builtin_joint_position(j, position);
        float *inv = sk->inverse_bind + 16 * j;
        inv[0] = inv[5] = inv[10] = inv[15] = 1.0f;
        for (int a = 0; a < 3; a++) {
            inv[12 + a] = (float)-position[a];
        }
    }
    return true;
}
