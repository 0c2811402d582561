/* clip_poses.c - the five clips of the built-in character as pose functions
 * of time.
 *
 * Sign conventions (rest frames are parallel to model space, the character
 * faces +Z, its left is +X): a positive X angle swings a hanging limb
 * backwards and tips an upright one forwards; a positive Z angle swings a
 * hanging limb towards +X (away from the body on the left, towards it on the
 * right); a positive Y angle turns the front towards +X.
 *
 * Loops are periodic functions of phase = 2 pi t / duration, so their ends
 * meet. Walk and run keep the root in place (no root motion) and move the
 * legs in opposition with the arms; die blends four key poses with eased
 * transitions and holds the last one. */
#include <math.h>

#include "builtin/builtin_internal.h"

#define TWO_PI 6.28318530717958647692f

static void rot(builtin_pose *p, uint32_t joint, float x, float y, float z) {
    p->angles[joint][0] += x;
    p->angles[joint][1] += y;
    p->angles[joint][2] += z;
}

static float sq(float x) {
    return x * x;
}

static void idle_pose(float t, float d, builtin_pose *p) {
    float phi = TWO_PI * t / d;
    float s = sinf(phi), c = cosf(phi);
    float breath = 0.5f + 0.5f * s;
    /* Weight shifts side to side; the legs lean to keep the feet planted. */
    p->hips_offset_m[0] = 0.012f * s;
    rot(p, BJ_UPPER_LEG_L, 0.0f, 0.0f, -0.0143f * s);
    rot(p, BJ_UPPER_LEG_R, 0.0f, 0.0f, -0.0143f * s);
    rot(p, BJ_SPINE, 0.0f, 0.0f, 0.012f * s);
    /* Breathing: the chest lifts, the collarbones rise. */
    rot(p, BJ_SPINE1, -0.015f * breath, 0.0f, 0.0f);
    rot(p, BJ_SPINE2, -0.012f * breath, 0.0f, 0.0f);
    rot(p, BJ_SHOULDER_L, 0.0f, 0.0f, 0.03f * breath);
    rot(p, BJ_SHOULDER_R, 0.0f, 0.0f, -0.03f * breath);
    rot(p, BJ_HEAD, 0.02f * c, 0.06f * sinf(phi + 0.7f), 0.0f);
    rot(p, BJ_UPPER_ARM_L, 0.03f * sinf(phi + 1.0f), 0.0f, -0.03f);
    rot(p, BJ_UPPER_ARM_R, 0.03f * sinf(phi + 1.3f), 0.0f, 0.03f);
    rot(p, BJ_LOWER_ARM_L, -0.12f - 0.03f * s, 0.0f, 0.0f);
    rot(p, BJ_LOWER_ARM_R, -0.12f - 0.03f * c, 0.0f, 0.0f);
}

/* One gait, two settings: walk and run differ in amplitudes, knee bend,
 * lean and bounce. Phase 0: left leg mid-swing, right leg under the body. */
typedef struct gait {
    float hip_bias, hip_swing; /* radians; negative = thigh forward */
    float knee_min, knee_swing, knee_lead;
    float ankle_follow, ankle_bias;
    float arm_swing, elbow_bend, elbow_swing, arm_in;
    float bob_m, drop_m; /* hips height: drop_m + bob_m * cos(2 phase) */
    float hips_yaw, chest_yaw;
    float lean, head_level;
} gait;

static void gait_pose(const gait *g, float t, float d, builtin_pose *p) {
    float phi = TWO_PI * t / d;
    float s = sinf(phi);
    for (int side = 0; side < 2; side++) {
        /* The right side runs half a cycle behind the left. */
        float ph = side == 0 ? phi : phi + 0.5f * TWO_PI;
        float sign = side == 0 ? 1.0f : -1.0f;
        float hip = g->hip_bias - g->hip_swing * sinf(ph);
        float knee = g->knee_min + g->knee_swing * sq(0.5f + 0.5f * cosf(ph + g->knee_lead));
        float ankle = -(hip + knee) * g->ankle_follow + g->ankle_bias;
        rot(p, side == 0 ? BJ_UPPER_LEG_L : BJ_UPPER_LEG_R, hip, 0.0f, 0.0f);
        rot(p, side == 0 ? BJ_LOWER_LEG_L : BJ_LOWER_LEG_R, knee, 0.0f, 0.0f);
        rot(p, side == 0 ? BJ_FOOT_L : BJ_FOOT_R, ankle, 0.0f, 0.0f);
        /* Each arm swings with the opposite leg: back while its leg is forward. */
        float arm = g->arm_swing * sinf(ph);
        float elbow = -g->elbow_bend - g->elbow_swing * (0.5f - 0.5f * sinf(ph));
        rot(p, side == 0 ? BJ_UPPER_ARM_L : BJ_UPPER_ARM_R, arm, 0.0f, -sign * g->arm_in);
        rot(p, side == 0 ? BJ_LOWER_ARM_L : BJ_LOWER_ARM_R, elbow, 0.0f, 0.0f);
    }
    p->hips_offset_m[1] = g->drop_m + g->bob_m * cosf(2.0f * phi);
    rot(p, BJ_HIPS, 0.0f, -g->hips_yaw * s, 0.0f);
    rot(p, BJ_SPINE, g->lean * 0.6f, 0.0f, 0.0f);
    rot(p, BJ_SPINE1, g->lean * 0.4f, 0.0f, 0.0f);
    rot(p, BJ_SPINE2, 0.0f, g->chest_yaw * s, 0.0f);
    rot(p, BJ_NECK, -g->head_level * 0.5f, -0.3f * (g->chest_yaw - g->hips_yaw) * s, 0.0f);
    rot(p, BJ_HEAD, -g->head_level * 0.5f, 0.0f, 0.0f);
}

static void walk_pose(float t, float d, builtin_pose *p) {
    static const gait walk = {
        .hip_bias = 0.0f,
        .hip_swing = 0.35f,
        .knee_min = 0.08f,
        .knee_swing = 0.6f,
        .knee_lead = 0.3f,
        .ankle_follow = 0.85f,
        .ankle_bias = 0.0f,
        .arm_swing = 0.3f,
        .elbow_bend = 0.2f,
        .elbow_swing = 0.15f,
        .arm_in = 0.05f,
        .bob_m = 0.015f,
        .drop_m = -0.015f,
        .hips_yaw = 0.07f,
        .chest_yaw = 0.1f,
        .lean = 0.04f,
        .head_level = 0.03f,
    };
    gait_pose(&walk, t, d, p);
}

static void run_pose(float t, float d, builtin_pose *p) {
    static const gait run = {
        .hip_bias = -0.1f,
        .hip_swing = 0.6f,
        .knee_min = 0.25f,
        .knee_swing = 1.3f,
        .knee_lead = 0.4f,
        .ankle_follow = 0.7f,
        .ankle_bias = 0.1f,
        .arm_swing = 0.65f,
        .elbow_bend = 1.3f,
        .elbow_swing = 0.25f,
        .arm_in = 0.1f,
        .bob_m = 0.03f,
        .drop_m = -0.05f,
        .hips_yaw = 0.12f,
        .chest_yaw = 0.18f,
        .lean = 0.2f,
        .head_level = 0.15f,
    };
    gait_pose(&run, t, d, p);
}

static void wave_pose(float t, float d, builtin_pose *p) {
    float phi = TWO_PI * t / d;
    float s = sinf(phi);
    /* Right arm up beside the head, a little forward; the forearm swings
     * side to side twice per loop, the hand flaps behind it. */
    rot(p, BJ_SHOULDER_R, 0.0f, 0.0f, -0.25f);
    rot(p, BJ_UPPER_ARM_R, 0.3f, 0.0f, -2.2f);
    rot(p, BJ_LOWER_ARM_R, 0.0f, 0.0f, -0.6f + 0.4f * sinf(2.0f * phi));
    rot(p, BJ_HAND_R, 0.0f, 0.0f, 0.25f * sinf(2.0f * phi - 0.6f));
    /* The rest of the body idles, leaning slightly away from the arm. */
    rot(p, BJ_SPINE1, -0.01f * s, 0.0f, -0.02f);
    rot(p, BJ_SPINE2, -0.01f * s, 0.0f, -0.02f);
    rot(p, BJ_HEAD, 0.0f, -0.1f, 0.04f + 0.02f * s);
    rot(p, BJ_UPPER_ARM_L, 0.03f * sinf(phi + 1.0f), 0.0f, -0.03f);
    rot(p, BJ_LOWER_ARM_L, -0.15f, 0.0f, 0.0f);
}

/* Die: hit and recoil, knees buckle, fall on the back, lie still. */
typedef struct joint_angles {
    uint32_t joint;
    float x, y, z;
} joint_angles;

typedef struct key_pose {
    float time_s;
    float hips_offset_m[3];
    uint32_t count;
    joint_angles angles[16];
} key_pose;

static const key_pose die_keys[] = {
    {0.0f, {0.0f, 0.0f, 0.0f}, 0, {{0, 0, 0, 0}}},
    {0.25f,
     {0.0f, 0.0f, -0.03f},
     10,
     {{BJ_HIPS, -0.12f, 0, 0},
      {BJ_SPINE, -0.2f, 0, 0},
      {BJ_SPINE2, -0.15f, 0, 0},
      {BJ_HEAD, -0.3f, 0, 0},
      {BJ_SHOULDER_L, 0, 0, 0.1f},
      {BJ_SHOULDER_R, 0, 0, -0.1f},
      {BJ_UPPER_ARM_L, 0, 0, 0.5f},
      {BJ_UPPER_ARM_R, 0, 0, -0.5f},
      {BJ_LOWER_ARM_L, -0.6f, 0, 0},
      {BJ_LOWER_ARM_R, -0.6f, 0, 0}}},
    {0.6f,
     {0.0f, -0.29f, -0.08f},
     14,
     {{BJ_HIPS, -0.3f, 0.1f, 0},
      {BJ_UPPER_LEG_L, -1.0f, 0, 0},
      {BJ_UPPER_LEG_R, -0.8f, 0, 0},
      {BJ_LOWER_LEG_L, 1.7f, 0, 0},
      {BJ_LOWER_LEG_R, 1.5f, 0, 0},
      {BJ_FOOT_L, -0.6f, 0, 0},
      {BJ_FOOT_R, -0.6f, 0, 0},
      {BJ_SPINE, 0.25f, 0, 0},
      {BJ_SPINE1, 0.1f, 0, 0},
      {BJ_HEAD, 0.35f, 0, 0},
      {BJ_UPPER_ARM_L, -0.3f, 0, 0.35f},
      {BJ_UPPER_ARM_R, -0.2f, 0, -0.35f},
      {BJ_LOWER_ARM_L, -0.4f, 0, 0},
      {BJ_LOWER_ARM_R, -0.4f, 0, 0}}},
    /* Sitting down hard: knees up, shins vertical, falling back. */
    {0.9f,
     {0.0f, -0.6f, -0.2f},
     13,
     {{BJ_HIPS, -0.8f, 0.15f, 0},
      {BJ_UPPER_LEG_L, -1.2f, 0, 0.05f},
      {BJ_UPPER_LEG_R, -1.1f, 0, -0.05f},
      {BJ_LOWER_LEG_L, 2.0f, 0, 0},
      {BJ_LOWER_LEG_R, 1.9f, 0, 0},
      {BJ_SPINE, 0.2f, 0, 0},
      {BJ_SPINE1, 0.1f, 0, 0},
      {BJ_HEAD, 0.3f, 0.2f, 0},
      {BJ_UPPER_ARM_L, -0.4f, 0, 0.6f},
      {BJ_UPPER_ARM_R, -0.3f, 0, -0.7f},
      {BJ_LOWER_ARM_L, -0.6f, 0, 0},
      {BJ_LOWER_ARM_R, -0.5f, 0, 0},
      {BJ_HAND_R, 0, 0, 0.15f}}},
    {1.2f,
     {0.0f, -0.86f, -0.45f},
     14,
     {{BJ_HIPS, -1.5707963f, 0.25f, 0},
      {BJ_UPPER_LEG_L, -0.15f, 0, 0.12f},
      {BJ_UPPER_LEG_R, -0.1f, 0, -0.15f},
      {BJ_LOWER_LEG_L, 0.2f, 0, 0},
      {BJ_LOWER_LEG_R, 0.15f, 0, 0},
      {BJ_FOOT_L, 0.2f, 0, 0},
      {BJ_FOOT_R, 0.2f, 0, 0},
      {BJ_SPINE, 0.05f, 0, 0},
      {BJ_HEAD, -0.2f, 0.5f, 0},
      {BJ_UPPER_ARM_L, 0, 0, 1.1f},
      {BJ_UPPER_ARM_R, 0, 0, -1.3f},
      {BJ_LOWER_ARM_L, -0.5f, 0, 0},
      {BJ_LOWER_ARM_R, -0.3f, 0, 0},
      {BJ_HAND_R, 0, 0, 0.3f}}},
};

static void add_key_pose(const key_pose *k, float weight, builtin_pose *p) {
    for (int a = 0; a < 3; a++) {
        p->hips_offset_m[a] += weight * k->hips_offset_m[a];
    }
    for (uint32_t i = 0; i < k->count; i++) {
        const joint_angles *ja = &k->angles[i];
        rot(p, ja->joint, weight * ja->x, weight * ja->y, weight * ja->z);
    }
}

static void die_pose(float t, float d, builtin_pose *p) {
    (void)d;
    const uint32_t n = sizeof die_keys / sizeof die_keys[0];
    if (t >= die_keys[n - 1].time_s) {
        add_key_pose(&die_keys[n - 1], 1.0f, p);
        return;
    }
    uint32_t i = 0;
    while (t >= die_keys[i + 1].time_s) {
        i++;
    }
    float w = (t - die_keys[i].time_s) / (die_keys[i + 1].time_s - die_keys[i].time_s);
    w = w * w * (3.0f - 2.0f * w);
    add_key_pose(&die_keys[i], 1.0f - w, p);
    add_key_pose(&die_keys[i + 1], w, p);
}

const builtin_clip_spec crowd__builtin_clip_specs[] = {
    {"idle", 2.0f, true, idle_pose}, {"walk", 1.0f, true, walk_pose}, {"run", 0.7f, true, run_pose},
    {"wave", 1.2f, true, wave_pose}, {"die", 1.5f, false, die_pose},
};

const uint32_t crowd__builtin_clip_spec_count =
    sizeof crowd__builtin_clip_specs / sizeof crowd__builtin_clip_specs[0];
