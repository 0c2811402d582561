/* A clip's ground speed from its skeleton alone: how fast the planted foot
 * moves backwards relative to the character, which is the speed the
 * character must move over the ground for that foot to stay put. Measured
 * on the joints, not on a root curve, so it works the same for in-place
 * clips (Mixamo's, robot.glb's), clips baked with the root motion
 * extracted (their in-place frames slide the same way) and clips that keep
 * their root translation (the loop's net root displacement is taken off). */
#include <math.h>

#include "crowd/anim.h"

/* Fraction of the character's height (its joints' vertical extent) above
 * the clip's lowest joint height that still counts as touching the ground:
 * a stance foot rolls heel to toe by a few per cent of the height. */
#define CONTACT_TOLERANCE 0.03f
/* Fraction of the rest pose's vertical extent above its lowest candidate
 * within which a joint counts as a foot (crowd_anim_foot_joints). */
#define FOOT_BAND 0.1f

/* What is measured: clip a alone, or a and b locked in phase (each at the
 * same fraction of its duration) and their local poses blended with weight
 * w of b, over one cycle of `duration` = lerp(d_a, d_b, w) seconds. */
typedef struct cycle {
    const crowd_skeleton *skeleton;
    const crowd_clip *a, *b;
    float w, duration;
    crowd_transform *pose, *pose_b;
} cycle;

static bool joint_positions_at(const cycle *c, float t, float *models) {
    float phase = t / c->duration;
    if (!crowd_anim_sample(c->skeleton, c->a, phase * c->a->duration_s, NULL, c->pose)) {
        return false;
    }
    if (c->b != NULL) {
        if (!crowd_anim_sample(c->skeleton, c->b, phase * c->b->duration_s, NULL, c->pose_b)) {
            return false;
        }
        const crowd_transform *poses[2] = {c->pose, c->pose_b};
        const float weights[2] = {1.0f - c->w, c->w};
        crowd_anim_blend(c->skeleton, poses, weights, 2, c->pose);
    }
    return crowd_anim_local_to_model(c->skeleton, c->pose, models);
}

/* Whether joint j has no child: feet and toes end their chains, while a
 * root or armature joint at the origin sits on the ground too but is no
 * foot. */
static bool is_leaf(const crowd_skeleton *skeleton, uint32_t j) {
    for (uint32_t c = j + 1; c < skeleton->joint_count; c++) {
        if (skeleton->parents[c] == (int32_t)j) {
            return false;
        }
    }
    return true;
}

/* The lowest candidate joint (model Y; `feet` flags them, NULL: the
 * leaves) and the vertical extent of every joint. */
static uint32_t lowest_joint(const crowd_skeleton *skeleton, const uint8_t *feet,
                             const float *models, float *out_y, float *out_extent) {
    uint32_t lowest = UINT32_MAX;
    float min_y = INFINITY, low = models[13], high = models[13];
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        float y = models[16 * j + 13];
        low = y < low ? y : low;
        high = y > high ? y : high;
        if (y < min_y && (feet != NULL ? feet[j] != 0 : is_leaf(skeleton, j))) {
            lowest = j;
            min_y = y;
        }
    }
    *out_y = min_y;
    *out_extent = high - low;
    return lowest;
}

static bool measure(const cycle *c, const uint8_t *feet, float *scratch_models,
                    crowd_ground_speed *out);

bool crowd_anim_clip_ground_speed(const crowd_skeleton *skeleton, const crowd_clip *clip,
                                  const uint8_t *feet, crowd_transform *scratch_pose,
                                  float *scratch_models, crowd_ground_speed *out) {
    if (clip == NULL) {
        return false;
    }
    cycle c = {skeleton, clip, NULL, 0.0f, clip->duration_s, scratch_pose, NULL};
    return measure(&c, feet, scratch_models, out);
}

bool crowd_anim_blend_ground_speed(const crowd_skeleton *skeleton, const crowd_clip *clip_a,
                                   const crowd_clip *clip_b, float weight_b, const uint8_t *feet,
                                   crowd_transform *scratch_poses, float *scratch_models,
                                   crowd_ground_speed *out) {
    if (clip_a == NULL || clip_b == NULL || !(weight_b >= 0.0f && weight_b <= 1.0f) ||
        !isfinite(clip_b->duration_s) || clip_b->duration_s < 0.0f || skeleton == NULL ||
        scratch_poses == NULL) {
        return false;
    }
    float d = clip_a->duration_s + (clip_b->duration_s - clip_a->duration_s) * weight_b;
    cycle c = {skeleton,
               clip_a,
               clip_b,
               weight_b,
               d,
               scratch_poses,
               scratch_poses + skeleton->joint_count};
    return measure(&c, feet, scratch_models, out);
}

static bool measure(const cycle *c, const uint8_t *feet, float *scratch_models,
                    crowd_ground_speed *out) {
    const crowd_skeleton *skeleton = c->skeleton;
    if (skeleton == NULL || c->pose == NULL || scratch_models == NULL || out == NULL ||
        skeleton->parents == NULL || skeleton->joint_count == 0 ||
        skeleton->joint_count > CROWD_MAX_JOINTS || !isfinite(c->duration) ||
        !isfinite(c->a->duration_s) || c->a->duration_s < 0.0f || c->duration < 0.0f) {
        return false;
    }
    crowd_ground_speed result = {0};
    float d = c->duration;
    if (d == 0.0f) {
        *out = result; /* a single pose goes nowhere */
        return true;
    }
    uint32_t n = (uint32_t)ceilf(d * CROWD_GROUND_SPEED_RATE);
    n = n < 16 ? 16 : (n > CROWD_GROUND_SPEED_SAMPLES_MAX ? CROWD_GROUND_SPEED_SAMPLES_MAX : n);
    float step = d / (float)n, h = 0.25f * step;

    /* The loop's net root displacement: a clip that keeps its root
     * translation moves its planted foot relative to that, not to 0. */
    const float *m = scratch_models;
    if (!joint_positions_at(c, 0.0f, scratch_models)) {
        return false;
    }
    float root0[2] = {m[12], m[14]};
    if (!joint_positions_at(c, nextafterf(d, 0.0f), scratch_models)) {
        return false;
    }
    float root_velocity[2] = {(m[12] - root0[0]) / d, (m[14] - root0[1]) / d};

    /* Pass 1: each sample's lowest joint, the clip's lowest height. */
    uint32_t joint_of[CROWD_GROUND_SPEED_SAMPLES_MAX];
    float height_of[CROWD_GROUND_SPEED_SAMPLES_MAX];
    float clip_min = INFINITY, extent = 0.0f;
    for (uint32_t k = 0; k < n; k++) {
        if (!joint_positions_at(c, ((float)k + 0.5f) * step, scratch_models)) {
            return false;
        }
        float e;
        joint_of[k] = lowest_joint(skeleton, feet, m, &height_of[k], &e);
        if (joint_of[k] == UINT32_MAX) {
            return false; /* no candidate at all */
        }
        clip_min = height_of[k] < clip_min ? height_of[k] : clip_min;
        extent = e > extent ? e : extent;
    }
    /* Pass 2: the planted joint's horizontal velocity at contact samples
     * (central difference over +-h, inside the clip). A swing foot can
     * skim the ground going forwards (robot.glb's run): a contact counts
     * only when it moves the way the deepest contact does. The velocities
     * are averaged as vectors, the foot's net travel over the stance per
     * second: a stance foot's speed need not be steady (robot.glb's walk
     * plants its foot at 0.7 to 7 units/s), and at the mean it ends each
     * stance where it began. */
    float velocity[CROWD_GROUND_SPEED_SAMPLES_MAX][2];
    bool contact[CROWD_GROUND_SPEED_SAMPLES_MAX];
    uint32_t deepest = 0;
    for (uint32_t k = 0; k < n; k++) {
        contact[k] = height_of[k] <= clip_min + CONTACT_TOLERANCE * extent;
        deepest = height_of[k] < height_of[deepest] ? k : deepest;
        if (!contact[k]) {
            continue;
        }
        float t = ((float)k + 0.5f) * step;
        const float *at = m + 16 * joint_of[k];
        if (!joint_positions_at(c, t - h, scratch_models)) {
            return false;
        }
        float before[2] = {at[12], at[14]};
        if (!joint_positions_at(c, t + h, scratch_models)) {
            return false;
        }
        velocity[k][0] = (at[12] - before[0]) / (2.0f * h) - root_velocity[0];
        velocity[k][1] = (at[14] - before[1]) / (2.0f * h) - root_velocity[1];
    }
    double sum[2] = {0.0, 0.0};
    uint32_t contacts = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (contact[k] &&
            velocity[k][0] * velocity[deepest][0] + velocity[k][1] * velocity[deepest][1] >= 0.0f) {
            sum[0] += velocity[k][0];
            sum[1] += velocity[k][1];
            contacts++;
        }
    }
    result.sample_count = n;
    result.contact_samples = contacts;
    result.speed = contacts == 0 ? 0.0f : (float)(hypot(sum[0], sum[1]) / contacts);
    result.contact_height = clip_min;
    *out = result;
    return true;
}

uint32_t crowd_anim_foot_joints(const crowd_skeleton *skeleton, const crowd_mesh *mesh,
                                crowd_transform *scratch_pose, float *scratch_models,
                                uint8_t *out_feet) {
    if (skeleton == NULL || skeleton->parents == NULL || scratch_pose == NULL ||
        scratch_models == NULL || out_feet == NULL || skeleton->joint_count == 0 ||
        skeleton->joint_count > CROWD_MAX_JOINTS ||
        (mesh != NULL && mesh->vertex_count > 0 &&
         (mesh->joints == NULL || mesh->weights == NULL))) {
        return 0;
    }
    uint32_t joints = skeleton->joint_count;
    if (!crowd_anim_rest_pose(skeleton, scratch_pose) ||
        !crowd_anim_local_to_model(skeleton, scratch_pose, scratch_models)) {
        return 0;
    }
    /* Candidates first: the joints that move some vertex, or the leaves. */
    for (uint32_t j = 0; j < joints; j++) {
        out_feet[j] = mesh == NULL && is_leaf(skeleton, j);
    }
    for (uint32_t i = 0; mesh != NULL && i < 4 * mesh->vertex_count; i++) {
        if (mesh->weights[i] > 0.0f && mesh->joints[i] < joints) {
            out_feet[mesh->joints[i]] = 1;
        }
    }
    float low = INFINITY, high = -INFINITY, lowest = INFINITY;
    for (uint32_t j = 0; j < joints; j++) {
        float y = scratch_models[16 * j + 13];
        low = y < low ? y : low;
        high = y > high ? y : high;
        lowest = out_feet[j] && y < lowest ? y : lowest;
    }
    /* Then those low in the rest pose: feet and toes, not hands that a long
     * arm swings below them in a run. */
    uint32_t count = 0;
    for (uint32_t j = 0; j < joints; j++) {
        bool low_enough = scratch_models[16 * j + 13] <= lowest + FOOT_BAND * (high - low);
        out_feet[j] = out_feet[j] && low_enough;
        count += out_feet[j];
    }
    return count;
}
