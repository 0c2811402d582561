/* clip_build.c - turns a pose function into a clip: sample it at a fixed
 * key rate, convert angles to quaternions, keep only the joints it moves.
 *
 * Linear keys at 30 per second follow the smooth pose functions closely
 * (the largest angle step between keys is a few degrees), and keeping the
 * maths in the pose functions keeps each clip readable as one function. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin_internal.h"

#define KEYS_PER_SECOND 30.0

static void quat_mul(const float a[4], const float b[4], float out[4]) {
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

static void quat_axis(int axis, float angle, float out[4]) {
    out[0] = out[1] = out[2] = 0.0f;
    out[axis] = sinf(0.5f * angle);
    out[3] = cosf(0.5f * angle);
}

/* q = qy * qx * qz: Z first, then X, then Y, each about the parent's axes. */
static void quat_from_angles(const float angles[3], float out[4]) {
    float qx[4], qy[4], qz[4], qyx[4];
    quat_axis(0, angles[0], qx);
    quat_axis(1, angles[1], qy);
    quat_axis(2, angles[2], qz);
    quat_mul(qy, qx, qyx);
    quat_mul(qyx, qz, out);
    float len = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
    for (int i = 0; i < 4; i++) {
        out[i] /= len;
    }
}

static void quat_rotate(const float q[4], const double v[3], double out[3]) {
    /* v + 2 w (u x v) + 2 u x (u x v), u = q.xyz */
    double u[3] = {q[0], q[1], q[2]}, w = q[3];
    double t[3] = {2.0 * (u[1] * v[2] - u[2] * v[1]), 2.0 * (u[2] * v[0] - u[0] * v[2]),
                   2.0 * (u[0] * v[1] - u[1] * v[0])};
    out[0] = v[0] + w * t[0] + (u[1] * t[2] - u[2] * t[1]);
    out[1] = v[1] + w * t[1] + (u[2] * t[0] - u[0] * t[2]);
    out[2] = v[2] + w * t[2] + (u[0] * t[1] - u[1] * t[0]);
}

/* Height of the lowest sole point of either shoe in this pose: forward
 * kinematics down hips -> upper leg -> lower leg -> foot, then the sole's
 * heel, middle and toe relative to the ankle (body.c's shoe: sole at y = 0,
 * 0.08 m below the ankle, rising over the rounded heel and toe). */
static double lowest_sole_m(const builtin_pose *pose) {
    static const double sole[3][3] = {{0.0, -0.075, -0.05}, {0.0, -0.08, 0.06}, {0.0, -0.07, 0.17}};
    static const uint32_t legs[2][3] = {{BJ_UPPER_LEG_L, BJ_LOWER_LEG_L, BJ_FOOT_L},
                                        {BJ_UPPER_LEG_R, BJ_LOWER_LEG_R, BJ_FOOT_R}};
    double lowest = INFINITY;
    for (int side = 0; side < 2; side++) {
        double pos[3];
        crowd__builtin_joint_position(BJ_HIPS, pos);
        for (int a = 0; a < 3; a++) {
            pos[a] += pose->hips_offset_m[a];
        }
        float rot[4];
        quat_from_angles(pose->angles[BJ_HIPS], rot);
        uint32_t parent = BJ_HIPS;
        for (int i = 0; i < 3; i++) {
            uint32_t joint = legs[side][i];
            double pj[3], pp[3], local[3], moved[3];
            crowd__builtin_joint_position(joint, pj);
            crowd__builtin_joint_position(parent, pp);
            for (int a = 0; a < 3; a++) {
                local[a] = pj[a] - pp[a];
            }
            quat_rotate(rot, local, moved);
            for (int a = 0; a < 3; a++) {
                pos[a] += moved[a];
            }
            float q[4], combined[4];
            quat_from_angles(pose->angles[joint], q);
            quat_mul(rot, q, combined);
            memcpy(rot, combined, sizeof rot);
            parent = joint;
        }
        for (int s = 0; s < 3; s++) {
            double moved[3];
            quat_rotate(rot, sole[s], moved);
            double y = pos[1] + moved[1];
            lowest = y < lowest ? y : lowest;
        }
    }
    return lowest;
}

/* Pose functions place the hips by hand; lifting them where a shoe would
 * sink keeps every clip on the floor whatever the legs do. */
static void keep_feet_above_floor(builtin_pose *pose) {
    double lowest = lowest_sole_m(pose);
    if (lowest < 0.0) {
        pose->hips_offset_m[1] -= (float)lowest;
    }
}

static bool track_alloc(crowd_track *track, uint32_t keys, uint32_t components,
                        const float *times) {
    track->key_count = keys;
    track->interpolation = CROWD_INTERP_LINEAR;
    track->times_s = malloc(keys * sizeof(float));
    track->values = malloc((size_t)keys * components * sizeof(float));
    if (!track->times_s || !track->values) {
        return false;
    }
    memcpy(track->times_s, times, keys * sizeof(float));
    return true;
}

static bool joint_moves(const builtin_pose *poses, uint32_t keys, uint32_t joint) {
    for (uint32_t k = 0; k < keys; k++) {
        const float *a = poses[k].angles[joint];
        if (a[0] != 0.0f || a[1] != 0.0f || a[2] != 0.0f) {
            return true;
        }
    }
    return false;
}

static bool fill_tracks(const builtin_clip_spec *spec, const builtin_pose *poses,
                        const float *times, uint32_t keys, crowd_clip *clip) {
    for (uint32_t j = 0; j < BJ_COUNT; j++) {
        if (!joint_moves(poses, keys, j)) {
            continue;
        }
        crowd_track *track = &clip->tracks[j].rotation;
        if (!track_alloc(track, keys, 4, times)) {
            return false;
        }
        for (uint32_t k = 0; k < keys; k++) {
            float *q = track->values + 4 * k;
            quat_from_angles(poses[k].angles[j], q);
            /* Neighbouring keys in one hemisphere, so the track reads as the
             * motion it is even for players that lerp without a sign check. */
            if (k > 0 && q[0] * q[-4] + q[1] * q[-3] + q[2] * q[-2] + q[3] * q[-1] < 0.0f) {
                for (int i = 0; i < 4; i++) {
                    q[i] = -q[i];
                }
            }
        }
        if (spec->loop) {
            memcpy(track->values + 4 * (keys - 1), track->values, 4 * sizeof(float));
        }
    }
    double hips[3];
    crowd__builtin_joint_position(BJ_HIPS, hips);
    crowd_track *track = &clip->tracks[BJ_HIPS].translation;
    if (!track_alloc(track, keys, 3, times)) {
        return false;
    }
    for (uint32_t k = 0; k < keys; k++) {
        for (int a = 0; a < 3; a++) {
            track->values[3 * k + a] = (float)hips[a] + poses[k].hips_offset_m[a];
        }
    }
    if (spec->loop) {
        memcpy(track->values + 3 * (keys - 1), track->values, 3 * sizeof(float));
    }
    return true;
}

bool crowd__builtin_clip_fill(const builtin_clip_spec *spec, crowd_clip *clip) {
    size_t len = strlen(spec->name) + 1;
    clip->name = malloc(len);
    clip->tracks = calloc(BJ_COUNT, sizeof *clip->tracks);
    if (!clip->name || !clip->tracks) {
        return false;
    }
    memcpy(clip->name, spec->name, len);
    clip->duration_s = spec->duration_s;
    clip->loop = spec->loop;

    uint32_t keys = (uint32_t)ceil(spec->duration_s * KEYS_PER_SECOND) + 1;
    float *times = malloc(keys * sizeof *times);
    builtin_pose *poses = calloc(keys, sizeof *poses);
    bool ok = times && poses;
    for (uint32_t k = 0; ok && k < keys; k++) {
        times[k] =
            k + 1 == keys ? spec->duration_s : (float)((double)spec->duration_s * k / (keys - 1));
        spec->pose(times[k], spec->duration_s, &poses[k]);
        keep_feet_above_floor(&poses[k]);
    }
    ok = ok && fill_tracks(spec, poses, times, keys, clip);
    free(times);
    free(poses);
    return ok;
}
