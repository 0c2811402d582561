/* Tests of the pose pipeline (crowd/anim.h) against values worked out by
 * hand: key values at key times, Hermite basis in-betweens, loop/clamp
 * arithmetic, a two-joint arm rotated 90 degrees, bind poses giving identity
 * skinning matrices, and the cursor agreeing with plain binary search. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "clip_time_cases.h"
#include "crowd/anim.h"

#define PI_F 3.14159265358979f

/* A skeleton of up to 8 joints living in static storage. */
typedef struct test_skeleton {
    crowd_skeleton s;
    int32_t parents[8];
    float t[24], r[32], sc[24], ib[128];
} test_skeleton;

static void skeleton_init(test_skeleton *k, uint32_t joint_count) {
    memset(k, 0, sizeof *k);
    k->s.joint_count = joint_count;
    k->s.parents = k->parents;
    k->s.rest_translation = k->t;
    k->s.rest_rotation = k->r;
    k->s.rest_scale = k->sc;
    k->s.inverse_bind = k->ib;
    for (uint32_t j = 0; j < joint_count; j++) {
        k->parents[j] = (int32_t)j - 1;
        k->r[4 * j + 3] = 1.0f;
        for (int i = 0; i < 3; i++) {
            k->sc[3 * j + i] = 1.0f;
        }
        for (int i = 0; i < 4; i++) {
            k->ib[16 * j + 5 * i] = 1.0f;
        }
    }
    for (int i = 0; i < 16; i++) {
        k->s.root_transform[i] = (i % 5 == 0) ? 1.0f : 0.0f;
    }
}

static void quat_axis_angle(float x, float y, float z, float angle, float *q) {
    float s = sinf(angle / 2);
    q[0] = x * s;
    q[1] = y * s;
    q[2] = z * s;
    q[3] = cosf(angle / 2);
}

static crowd_track track(crowd_interpolation interp, uint32_t n, float *times, float *values) {
    crowd_track t = {n, interp, times, values};
    return t;
}

static int vec_near(const float *a, const float *b, int n, float tol) {
    for (int i = 0; i < n; i++) {
        if (!(fabsf(a[i] - b[i]) <= tol)) {
            return 0;
        }
    }
    return 1;
}

static void test_cursor_and_clip_time(void) {
    test_skeleton k;
    skeleton_init(&k, 5);
    CHECK(crowd_anim_cursor_size(&k.s) == 15);
    uint32_t keys[15];
    for (int i = 0; i < 15; i++) {
        keys[i] = 7;
    }
    crowd_clip dummy = {0};
    crowd_anim_cursor cursor = {&dummy, keys, 15};
    crowd_anim_cursor_reset(&cursor);
    CHECK(cursor.clip == NULL);
    int zero = 1;
    for (int i = 0; i < 15; i++) {
        zero &= keys[i] == 0;
    }
    CHECK(zero);
    crowd_anim_cursor empty = {0};
    crowd_anim_cursor_reset(&empty); /* keys NULL: must not crash */
    CHECK(empty.clip == NULL);

    crowd_clip loop = {.duration_s = 2.0f, .loop = true};
    CHECK(crowd_anim_clip_time(&loop, 0.0f) == 0.0f);
    CHECK(crowd_anim_clip_time(&loop, 0.5f) == 0.5f);
    CHECK(crowd_anim_clip_time(&loop, 1.999f) == 1.999f);
    CHECK(crowd_anim_clip_time(&loop, 2.0f) == 0.0f);
    CHECK(crowd_anim_clip_time(&loop, 2.5f) == 0.5f);
    CHECK(crowd_anim_clip_time(&loop, 4.0f) == 0.0f);
    CHECK(crowd_anim_clip_time(&loop, 7.25f) == 1.25f);
    CHECK(crowd_anim_clip_time(&loop, -0.5f) == 1.5f);
    CHECK(crowd_anim_clip_time(&loop, -2.0f) == 0.0f);
    CHECK(crowd_anim_clip_time(&loop, -4.5f) == 1.5f);
    float tiny = crowd_anim_clip_time(&loop, -1e-9f);
    CHECK_MSG(tiny >= 0.0f && tiny < 2.0f, "wrapped -1e-9 to %.9g", tiny);
    CHECK(crowd_anim_clip_time(&loop, NAN) == 0.0f);
    CHECK(crowd_anim_clip_time(&loop, INFINITY) == 0.0f);

    crowd_clip once = {.duration_s = 2.0f, .loop = false};
    CHECK(crowd_anim_clip_time(&once, -1.0f) == 0.0f);
    CHECK(crowd_anim_clip_time(&once, 0.0f) == 0.0f);
    CHECK(crowd_anim_clip_time(&once, 1.0f) == 1.0f);
    CHECK(crowd_anim_clip_time(&once, 2.0f) == 2.0f);
    CHECK(crowd_anim_clip_time(&once, 3.0f) == 2.0f);
    CHECK(crowd_anim_clip_time(&once, -INFINITY) == 0.0f);

    crowd_clip pose = {.duration_s = 0.0f, .loop = true};
    CHECK(crowd_anim_clip_time(&pose, 3.0f) == 0.0f);
    pose.loop = false;
    CHECK(crowd_anim_clip_time(&pose, 3.0f) == 0.0f);
}

static void test_rest_pose(void) {
    test_skeleton k;
    skeleton_init(&k, 3);
    for (int i = 0; i < 9; i++) {
        k.t[i] = (float)i;
        k.sc[i] = 1.0f + (float)i / 10;
    }
    quat_axis_angle(0, 0, 1, 0.3f, k.r + 4);
    crowd_transform pose[3];
    crowd_anim_rest_pose(&k.s, pose);
    CHECK(memcmp(pose[1].translation, k.t + 3, 12) == 0);
    CHECK(memcmp(pose[1].rotation, k.r + 4, 16) == 0);
    CHECK(memcmp(pose[2].scale, k.sc + 6, 12) == 0);
    CHECK(memcmp(pose[0].rotation, k.r, 16) == 0);
}

/* One joint, translation keys at 0, 1, 2 of the given kind, sampled with and
 * without a cursor. */
static void sample_translation(crowd_interpolation interp, float *times, float *values, uint32_t n,
                               float duration, bool loop, float t, float *out) {
    test_skeleton k;
    skeleton_init(&k, 1);
    crowd_joint_tracks tracks = {0};
    tracks.translation = track(interp, n, times, values);
    crowd_clip clip = {.name = "c", .duration_s = duration, .loop = loop, .tracks = &tracks};
    crowd_transform pose, pose_cursor;
    crowd_anim_sample(&k.s, &clip, t, NULL, &pose);
    uint32_t keys[3] = {0, 0, 0};
    crowd_anim_cursor cursor = {0};
    cursor.keys = keys;
    cursor.key_count = 3;
    crowd_anim_sample(&k.s, &clip, t, &cursor, &pose_cursor);
    CHECK(memcmp(&pose, &pose_cursor, sizeof pose) == 0);
    memcpy(out, pose.translation, sizeof pose.translation);
}

static void test_step_linear(void) {
    float times[3] = {0, 1, 2};
    float values[9] = {0, 0, 0, 1, 2, 3, 4, 5, 6};
    float out[3];
    const float key1[3] = {1, 2, 3}, key2[3] = {4, 5, 6};

    sample_translation(CROWD_INTERP_STEP, times, values, 3, 2, false, 0.0f, out);
    CHECK(vec_near(out, values, 3, 0));
    sample_translation(CROWD_INTERP_STEP, times, values, 3, 2, false, 0.5f, out);
    CHECK(vec_near(out, values, 3, 0));
    sample_translation(CROWD_INTERP_STEP, times, values, 3, 2, false, 1.0f, out);
    CHECK(vec_near(out, key1, 3, 0));
    sample_translation(CROWD_INTERP_STEP, times, values, 3, 2, false, 1.999f, out);
    CHECK(vec_near(out, key1, 3, 0));
    sample_translation(CROWD_INTERP_STEP, times, values, 3, 2, false, 2.0f, out);
    CHECK(vec_near(out, key2, 3, 0));

    sample_translation(CROWD_INTERP_LINEAR, times, values, 3, 2, false, 1.0f, out);
    CHECK(vec_near(out, key1, 3, 0));
    sample_translation(CROWD_INTERP_LINEAR, times, values, 3, 2, false, 0.5f, out);
    const float half[3] = {0.5f, 1.0f, 1.5f};
    CHECK(vec_near(out, half, 3, 1e-7f));
    sample_translation(CROWD_INTERP_LINEAR, times, values, 3, 2, false, 1.25f, out);
    const float quarter[3] = {1.75f, 2.75f, 3.75f};
    CHECK(vec_near(out, quarter, 3, 1e-6f));

    /* One-shot clamps at both ends. */
    sample_translation(CROWD_INTERP_LINEAR, times, values, 3, 2, false, 3.0f, out);
    CHECK(vec_near(out, key2, 3, 0));
    sample_translation(CROWD_INTERP_LINEAR, times, values, 3, 2, false, -1.0f, out);
    CHECK(vec_near(out, values, 3, 0));
    /* Looping wraps: 2.5 is 0.5, -0.75 is 1.25, 2.0 is 0. */
    sample_translation(CROWD_INTERP_LINEAR, times, values, 3, 2, true, 2.5f, out);
    CHECK(vec_near(out, half, 3, 1e-7f));
    sample_translation(CROWD_INTERP_LINEAR, times, values, 3, 2, true, -0.75f, out);
    CHECK(vec_near(out, quarter, 3, 1e-6f));
    sample_translation(CROWD_INTERP_LINEAR, times, values, 3, 2, true, 2.0f, out);
    CHECK(vec_near(out, values, 3, 0));
    sample_translation(CROWD_INTERP_LINEAR, times, values, 3, 2, true, 1.999f, out);
    const float near_end[3] = {3.997f, 4.997f, 5.997f};
    CHECK(vec_near(out, near_end, 3, 1e-5f));

    /* Keys that start late and end early hold their end values. */
    float late[2] = {0.5f, 1.5f};
    float late_values[6] = {1, 1, 1, 3, 3, 3};
    sample_translation(CROWD_INTERP_LINEAR, late, late_values, 2, 2, false, 0.2f, out);
    CHECK(vec_near(out, late_values, 3, 0));
    sample_translation(CROWD_INTERP_LINEAR, late, late_values, 2, 2, false, 1.8f, out);
    CHECK(vec_near(out, late_values + 3, 3, 0));
    sample_translation(CROWD_INTERP_LINEAR, late, late_values, 2, 2, false, 1.0f, out);
    const float two[3] = {2, 2, 2};
    CHECK(vec_near(out, two, 3, 1e-7f));

    /* A single key holds everywhere. */
    sample_translation(CROWD_INTERP_LINEAR, late, late_values, 1, 2, false, 1.7f, out);
    CHECK(vec_near(out, late_values, 3, 0));

    /* Two keys at the same time are a jump: at that time the later wins. */
    float jump_times[4] = {0, 1, 1, 2};
    float jump_values[12] = {0, 0, 0, 1, 1, 1, 5, 5, 5, 6, 6, 6};
    sample_translation(CROWD_INTERP_LINEAR, jump_times, jump_values, 4, 2, false, 1.0f, out);
    CHECK(vec_near(out, jump_values + 6, 3, 0));
    sample_translation(CROWD_INTERP_LINEAR, jump_times, jump_values, 4, 2, false, 0.5f, out);
    const float halfway[3] = {0.5f, 0.5f, 0.5f};
    CHECK(vec_near(out, halfway, 3, 1e-7f));
    sample_translation(CROWD_INTERP_LINEAR, jump_times, jump_values, 4, 2, false, 1.5f, out);
    const float five_half[3] = {5.5f, 5.5f, 5.5f};
    CHECK(vec_near(out, five_half, 3, 1e-6f));
}

static void test_cubic(void) {
    /* Two keys 2 s apart (so the tangents are scaled by 2), per key
     * [in-tangent, value, out-tangent]. Component x: p0 = 0, m0 = 1, p1 = 1,
     * m1 = 3; y: p0 = 2, m0 = 0, p1 = -2, m1 = 0; z: p0 = 1, m0 = -1,
     * p1 = 1, m1 = 1 (in-tangent of key 0 and out-tangent of key 1 unused). */
    float times[2] = {1, 3};
    float values[18] = {
        9, 9, 9, 0, 2,  1, 1, 0, -1, /* key 0 */
        3, 0, 1, 1, -2, 1, 9, 9, 9,  /* key 1 */
    };
    float out[3];
    sample_translation(CROWD_INTERP_CUBIC, times, values, 2, 4, false, 1.0f, out);
    const float p0[3] = {0, 2, 1}, p1[3] = {1, -2, 1};
    CHECK(vec_near(out, p0, 3, 0));
    sample_translation(CROWD_INTERP_CUBIC, times, values, 2, 4, false, 3.0f, out);
    CHECK(vec_near(out, p1, 3, 0));
    sample_translation(CROWD_INTERP_CUBIC, times, values, 2, 4, false, 0.0f, out);
    CHECK(vec_near(out, p0, 3, 0));
    sample_translation(CROWD_INTERP_CUBIC, times, values, 2, 4, false, 3.5f, out);
    CHECK(vec_near(out, p1, 3, 0));
    /* u = 0.5: h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125; with dt = 2
     * x = 0.5*0 + 0.25*1 + 0.5*1 - 0.25*3 = 0
     * y = 0.5*2 + 0 + 0.5*-2 - 0 = 0
     * z = 0.5*1 + 0.25*-1 + 0.5*1 - 0.25*1 = 0.5 */
    sample_translation(CROWD_INTERP_CUBIC, times, values, 2, 4, false, 2.0f, out);
    const float mid[3] = {0, 0, 0.5f};
    CHECK(vec_near(out, mid, 3, 1e-6f));
    /* u = 0.25: h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = -0.046875
     * x = 0.28125 + 0.15625 - 0.28125 = 0.15625
     * y = 1.6875 - 0.3125 = 1.375
     * z = 0.84375 - 0.28125 + 0.15625 - 0.09375 = 0.625 */
    sample_translation(CROWD_INTERP_CUBIC, times, values, 2, 4, false, 1.5f, out);
    const float q1[3] = {0.15625f, 1.375f, 0.625f};
    CHECK(vec_near(out, q1, 3, 1e-6f));
}

/* One joint whose rotation track is given; returns the sampled rotation. */
static void sample_rotation(crowd_interpolation interp, float *times, float *values, uint32_t n,
                            float t, float *out) {
    test_skeleton k;
    skeleton_init(&k, 1);
    k.t[0] = 7;
    k.sc[1] = 3;
    crowd_joint_tracks tracks = {0};
    tracks.rotation = track(interp, n, times, values);
    crowd_clip clip = {.name = "c", .duration_s = 1, .loop = false, .tracks = &tracks};
    crowd_transform pose;
    crowd_anim_sample(&k.s, &clip, t, NULL, &pose);
    /* Untracked channels keep the rest value. */
    const float rest_t[3] = {7, 0, 0}, rest_s[3] = {1, 3, 1};
    CHECK(vec_near(pose.translation, rest_t, 3, 0));
    CHECK(vec_near(pose.scale, rest_s, 3, 0));
    memcpy(out, pose.rotation, sizeof pose.rotation);
}

static void test_rotation(void) {
    float times[2] = {0, 1};
    float values[8];
    float out[4], expected[4];
    quat_axis_angle(0, 1, 0, 0, values);
    quat_axis_angle(0, 1, 0, PI_F / 2, values + 4);
    sample_rotation(CROWD_INTERP_LINEAR, times, values, 2, 0.0f, out);
    CHECK(vec_near(out, values, 4, 0));
    sample_rotation(CROWD_INTERP_LINEAR, times, values, 2, 1.0f, out);
    CHECK(vec_near(out, values + 4, 4, 0));
    /* Slerp halfway and a quarter of the way through 90 degrees about Y. */
    sample_rotation(CROWD_INTERP_LINEAR, times, values, 2, 0.5f, out);
    quat_axis_angle(0, 1, 0, PI_F / 4, expected);
    CHECK(vec_near(out, expected, 4, 1e-6f));
    sample_rotation(CROWD_INTERP_LINEAR, times, values, 2, 0.25f, out);
    quat_axis_angle(0, 1, 0, PI_F / 8, expected);
    CHECK(vec_near(out, expected, 4, 1e-6f));
    /* -q is the same rotation: the shortest arc still turns 22.5 degrees. */
    for (int i = 4; i < 8; i++) {
        values[i] = -values[i];
    }
    sample_rotation(CROWD_INTERP_LINEAR, times, values, 2, 0.25f, out);
    CHECK(vec_near(out, expected, 4, 1e-6f));
    /* Step holds the first key. */
    sample_rotation(CROWD_INTERP_STEP, times, values, 2, 0.9f, out);
    CHECK(vec_near(out, values, 4, 0));

    /* Keys 170 degrees apart (quaternion angle 85: the trigonometric path). */
    quat_axis_angle(0, 0, 1, 170.0f * PI_F / 180, values + 4);
    sample_rotation(CROWD_INTERP_LINEAR, times, values, 2, 0.5f, out);
    quat_axis_angle(0, 0, 1, 85.0f * PI_F / 180, expected);
    CHECK(vec_near(out, expected, 4, 1e-6f));
    /* 190 degrees is -170 by the shortest arc: halfway is -85 degrees. */
    quat_axis_angle(0, 0, 1, 190.0f * PI_F / 180, values + 4);
    sample_rotation(CROWD_INTERP_LINEAR, times, values, 2, 0.5f, out);
    quat_axis_angle(0, 0, 1, -85.0f * PI_F / 180, expected);
    CHECK(vec_near(out, expected, 4, 1e-6f));

    /* Slerp against the trigonometric formula in double precision, over
     * angles from 0 to 180 degrees and many fractions. */
    double worst = 0;
    for (int a = 0; a <= 180; a += 3) {
        double theta = a * 3.14159265358979323846 / 180;
        float axis[3] = {0.48f, -0.6f, 0.64f};
        quat_axis_angle(0.6f, 0.8f, 0, 0.4f, values);
        float qb[4];
        quat_axis_angle(axis[0], axis[1], axis[2], (float)theta, qb);
        /* values + 4 = qb * values[0..3] (rotate key 0 by theta about axis) */
        const float *q0 = values;
        values[4] = qb[3] * q0[0] + qb[0] * q0[3] + qb[1] * q0[2] - qb[2] * q0[1];
        values[5] = qb[3] * q0[1] - qb[0] * q0[2] + qb[1] * q0[3] + qb[2] * q0[0];
        values[6] = qb[3] * q0[2] + qb[0] * q0[1] - qb[1] * q0[0] + qb[2] * q0[3];
        values[7] = qb[3] * q0[3] - qb[0] * q0[0] - qb[1] * q0[1] - qb[2] * q0[2];
        double dot = 0;
        for (int i = 0; i < 4; i++) {
            dot += (double)values[i] * values[4 + i];
        }
        double sign = dot < 0 ? -1 : 1;
        double omega = acos(fmin(1.0, dot * sign));
        for (int f = 0; f <= 20; f++) {
            double u = f / 20.0;
            sample_rotation(CROWD_INTERP_LINEAR, times, values, 2, (float)u, out);
            /* q and -q are the same rotation: at u = 1 the key is returned
             * as stored, whichever sign the shortest arc arrived with. */
            double same = 0, flipped = 0;
            for (int i = 0; i < 4; i++) {
                double wa = omega < 1e-9 ? 1 - u : sin((1 - u) * omega) / sin(omega);
                double wb = omega < 1e-9 ? u : sin(u * omega) / sin(omega);
                double expected_i = wa * values[i] + wb * sign * values[4 + i];
                same = fmax(same, fabs(out[i] - expected_i));
                flipped = fmax(flipped, fabs(out[i] + expected_i));
            }
            worst = fmax(worst, fmin(same, flipped));
        }
    }
    CHECK_MSG(worst < 1e-6, "slerp differs from the trigonometric formula by %g", worst);

    /* Cubic rotation with zero tangents at u = 0.25: Hermite weights 0.84375
     * and 0.15625 on the two keys, then normalized. */
    float cubic[24] = {0};
    quat_axis_angle(0, 1, 0, 0, cubic + 4);
    quat_axis_angle(0, 1, 0, PI_F / 2, cubic + 16);
    sample_rotation(CROWD_INTERP_CUBIC, times, cubic, 2, 0.25f, out);
    float h[4];
    for (int i = 0; i < 4; i++) {
        h[i] = 0.84375f * cubic[4 + i] + 0.15625f * cubic[16 + i];
    }
    float len = sqrtf(h[0] * h[0] + h[1] * h[1] + h[2] * h[2] + h[3] * h[3]);
    for (int i = 0; i < 4; i++) {
        expected[i] = h[i] / len;
    }
    CHECK(vec_near(out, expected, 4, 1e-6f));
    CHECK_NEAR(sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]), 1.0,
               1e-6);
    sample_rotation(CROWD_INTERP_CUBIC, times, cubic, 2, 1.0f, out);
    CHECK(vec_near(out, cubic + 16, 4, 1e-7f));
}

/* Pseudo-random numbers for the cursor test (xorshift, fixed seed). */
static uint32_t rng_state = 2463534242u;
static float rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return (float)(rng_state >> 8) / 16777216.0f;
}

static void test_cursor_matches_search(void) {
    enum { J = 6, MAX_KEYS = 40 };
    test_skeleton k;
    skeleton_init(&k, J);
    static float times[J][3][MAX_KEYS];
    static float values[J][3][MAX_KEYS * 12];
    crowd_joint_tracks tracks[J];
    memset(tracks, 0, sizeof tracks);
    const float duration = 3.0f;
    for (int j = 0; j < J; j++) {
        crowd_track *tr[3] = {&tracks[j].translation, &tracks[j].rotation, &tracks[j].scale};
        for (int c = 0; c < 3; c++) {
            if ((j + c) % 5 == 4) {
                continue; /* some channels without keys */
            }
            uint32_t n = 1 + (uint32_t)(rnd() * (MAX_KEYS - 1));
            crowd_interpolation interp = (crowd_interpolation)((j + c) % 3);
            /* Irregular, partly duplicated times covering part of the clip. */
            float t = rnd() * 0.3f;
            for (uint32_t i = 0; i < n; i++) {
                times[j][c][i] = t;
                t += (i % 7 == 3) ? 0.0f : rnd() * 2.6f / (float)n;
            }
            int comps = c == 1 ? 4 : 3;
            int per_key = interp == CROWD_INTERP_CUBIC ? 3 * comps : comps;
            for (uint32_t i = 0; i < n * (uint32_t)per_key; i++) {
                values[j][c][i] = rnd() * 2 - 1;
            }
            if (comps == 4) {
                for (uint32_t i = 0; i < n * (uint32_t)per_key; i += 4) {
                    float *q = &values[j][c][i];
                    float l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
                    for (int a = 0; a < 4; a++) {
                        q[a] /= l;
                    }
                }
            }
            *tr[c] = track(interp, n, times[j][c], values[j][c]);
        }
    }
    crowd_clip clip = {.name = "r", .duration_s = duration, .loop = true, .tracks = tracks};
    crowd_clip other = clip;
    uint32_t keys[3 * J];
    crowd_anim_cursor cursor = {0};
    cursor.keys = keys;
    cursor.key_count = 3 * J;
    crowd_anim_cursor_reset(&cursor);
    crowd_transform a[J], b[J];
    int mismatches = 0, samples = 0;
    /* forward at 60 Hz through several loops, then backwards, then random
     * jumps, then switching clips under the same cursor */
    for (int f = 0; f < 800; f++) {
        float t = (float)f / 60.0f;
        crowd_anim_sample(&k.s, &clip, t, NULL, a);
        crowd_anim_sample(&k.s, &clip, t, &cursor, b);
        mismatches += memcmp(a, b, sizeof a) != 0;
        samples++;
    }
    for (int f = 400; f >= -100; f--) {
        float t = (float)f / 47.0f;
        crowd_anim_sample(&k.s, &clip, t, NULL, a);
        crowd_anim_sample(&k.s, &clip, t, &cursor, b);
        mismatches += memcmp(a, b, sizeof a) != 0;
        samples++;
    }
    for (int f = 0; f < 2000; f++) {
        float t = rnd() * 10.0f - 3.0f;
        if (f % 3 == 0) {
            t = times[f % J][f % 3][f % 5]; /* exactly on a key */
        }
        const crowd_clip *c = (f % 11 == 0) ? &other : &clip;
        crowd_anim_sample(&k.s, c, t, NULL, a);
        crowd_anim_sample(&k.s, c, t, &cursor, b);
        mismatches += memcmp(a, b, sizeof a) != 0;
        samples++;
    }
    /* A cursor too small for the skeleton is ignored, not overrun. */
    crowd_anim_cursor small = {0};
    small.keys = keys;
    small.key_count = 3;
    crowd_anim_sample(&k.s, &clip, 1.3f, NULL, a);
    crowd_anim_sample(&k.s, &clip, 1.3f, &small, b);
    mismatches += memcmp(a, b, sizeof a) != 0;
    /* Stale hints beyond a track's key count are harmless. */
    for (int i = 0; i < 3 * J; i++) {
        keys[i] = 1000000u;
    }
    crowd_anim_sample(&k.s, &clip, 2.2f, NULL, a);
    crowd_anim_sample(&k.s, &clip, 2.2f, &cursor, b);
    mismatches += memcmp(a, b, sizeof a) != 0;
    CHECK_MSG(mismatches == 0, "%d of %d cursor samples differ from binary search", mismatches,
              samples);
    CHECK(cursor.clip == &clip);
}

static void test_blend(void) {
    enum { J = 2 };
    test_skeleton k;
    skeleton_init(&k, J);
    k.t[0] = 9;
    crowd_transform a[J], b[J], out[J], rest[J];
    crowd_anim_rest_pose(&k.s, rest);
    for (int j = 0; j < J; j++) {
        crowd_transform ta = {{1, 2, 3}, {0, 0, 0, 1}, {1, 1, 1}};
        crowd_transform tb = {{5, 6, 7}, {0, 0, 0, 1}, {2, 3, 4}};
        quat_axis_angle(0, 1, 0, PI_F / 2, tb.rotation);
        quat_axis_angle(1, 0, 0, 0.3f, ta.rotation);
        a[j] = ta;
        b[j] = tb;
    }
    const crowd_transform *poses[2] = {a, b};
    float w10[2] = {1, 0}, w01[2] = {0, 1}, w00[2] = {0, 0};
    crowd_anim_blend(&k.s, poses, w10, 2, out);
    CHECK(memcmp(out, a, sizeof a) == 0);
    crowd_anim_blend(&k.s, poses, w01, 2, out);
    CHECK(memcmp(out, b, sizeof b) == 0);
    float w03[2] = {0, 0.3f};
    crowd_anim_blend(&k.s, poses, w03, 2, out);
    CHECK(memcmp(out, b, sizeof b) == 0);
    crowd_anim_blend(&k.s, poses, w00, 2, out);
    CHECK(memcmp(out, rest, sizeof rest) == 0);
    float wneg[2] = {-1, 0};
    crowd_anim_blend(&k.s, poses, wneg, 2, out);
    CHECK(memcmp(out, rest, sizeof rest) == 0);
    crowd_anim_blend(&k.s, poses, w00, 0, out);
    CHECK(memcmp(out, rest, sizeof rest) == 0);

    /* Weights 1 and 3 are normalized to 0.25 and 0.75. */
    quat_axis_angle(0, 1, 0, 0, a[0].rotation);
    float w13[2] = {1, 3};
    crowd_anim_blend(&k.s, poses, w13, 2, out);
    const float t13[3] = {4, 5, 6}, s13[3] = {1.75f, 2.5f, 3.25f};
    CHECK(vec_near(out[0].translation, t13, 3, 1e-6f));
    CHECK(vec_near(out[0].scale, s13, 3, 1e-6f));
    /* nlerp of identity and 90 degrees about Y, 0.25/0.75:
     * normalize(0.25 (0,0,0,1) + 0.75 (0, s, 0, s)), s = sqrt(1/2) */
    float s = sqrtf(0.5f);
    float hy = 0.75f * s, hw = 0.25f + 0.75f * s, l = sqrtf(hy * hy + hw * hw);
    const float r13[4] = {0, hy / l, 0, hw / l};
    CHECK(vec_near(out[0].rotation, r13, 4, 1e-6f));

    /* Hemisphere: -q blended with q is q, not a cancelled or flipped mess. */
    crowd_transform nb[J];
    memcpy(nb, a, sizeof nb);
    for (int j = 0; j < J; j++) {
        for (int i = 0; i < 4; i++) {
            nb[j].rotation[i] = -a[j].rotation[i];
        }
    }
    const crowd_transform *opposite[2] = {a, nb};
    float half[2] = {0.5f, 0.5f};
    crowd_anim_blend(&k.s, opposite, half, 2, out);
    CHECK(vec_near(out[1].rotation, a[1].rotation, 4, 1e-6f));
    CHECK(vec_near(out[1].translation, a[1].translation, 3, 1e-6f));
    /* The reference is the first pose with weight > 0, here the flipped one. */
    float z11[3] = {0, 1, 1};
    const crowd_transform *three[3] = {b, nb, a};
    crowd_anim_blend(&k.s, three, z11, 3, out);
    CHECK(vec_near(out[1].rotation, nb[1].rotation, 4, 1e-6f));

    /* Halfway between identity and 90 degrees about Y is 45 degrees (nlerp
     * and slerp agree at the midpoint). out aliases poses[0]. */
    crowd_transform alias[J];
    memcpy(alias, a, sizeof alias);
    const crowd_transform *aliased[2] = {alias, b};
    crowd_anim_blend(&k.s, aliased, half, 2, alias);
    float expected[4];
    quat_axis_angle(0, 1, 0, PI_F / 4, expected);
    CHECK(vec_near(alias[0].rotation, expected, 4, 1e-6f));
    const float t_half[3] = {3, 4, 5};
    CHECK(vec_near(alias[1].translation, t_half, 3, 1e-6f));
}

/* Column-major point transform. */
static void mat4_point(const float *m, const float *p, float *out) {
    for (int r = 0; r < 3; r++) {
        out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    }
}

/* Row-major 3x4 point transform. */
static void skin_point(const float *s, const float *p, float *out) {
    for (int r = 0; r < 3; r++) {
        out[r] = s[4 * r] * p[0] + s[4 * r + 1] * p[1] + s[4 * r + 2] * p[2] + s[4 * r + 3];
    }
}

static void test_hierarchy_and_skinning(void) {
    /* An arm along +X: shoulder at the origin, elbow at x = 1, hand at x = 2
     * (each joint's rest translation is relative to its parent). */
    test_skeleton k;
    skeleton_init(&k, 3);
    k.t[3] = 1;
    k.t[6] = 1;
    for (int j = 0; j < 3; j++) {
        k.ib[16 * j + 12] = -(float)j; /* inverse bind: translate by -x_j */
    }
    crowd_transform pose[3];
    float models[48], skin[36];
    crowd_anim_rest_pose(&k.s, pose);
    crowd_anim_local_to_model(&k.s, pose, models);
    const float hand_rest[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 2, 0, 0, 1};
    CHECK(memcmp(models + 32, hand_rest, sizeof hand_rest) == 0);
    /* Bind pose: every skinning matrix is exactly the identity. */
    crowd_anim_skin_matrices(&k.s, models, NULL, skin);
    const float identity34[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    int exact = 1;
    for (int j = 0; j < 3; j++) {
        exact &= memcmp(skin + 12 * j, identity34, sizeof identity34) == 0;
    }
    CHECK(exact);

    /* Shoulder turned 90 degrees about Z: the elbow goes to (0, 1, 0), the
     * hand to (0, 2, 0), and its model matrix is
     * [0 -1 0 0; 1 0 0 2; 0 0 1 0] (columns: x -> +Y, y -> -X). */
    quat_axis_angle(0, 0, 1, PI_F / 2, pose[0].rotation);
    crowd_anim_local_to_model(&k.s, pose, models);
    const float hand_model[16] = {0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1};
    CHECK(vec_near(models + 32, hand_model, 16, 1e-6f));
    const float elbow_position[3] = {0, 1, 0};
    CHECK(vec_near(models + 16 + 12, elbow_position, 3, 1e-6f));
    /* Elbow also turned 90 about Z: the hand goes to (-1, 1, 0). */
    quat_axis_angle(0, 0, 1, PI_F / 2, pose[1].rotation);
    crowd_anim_local_to_model(&k.s, pose, models);
    const float hand_bent[3] = {-1, 1, 0};
    CHECK(vec_near(models + 32 + 12, hand_bent, 3, 1e-6f));

    /* Skinning: a vertex on the forearm at (1.5, 0.2, 0) bound to the elbow
     * turns with it: relative to the elbow it is (0.5, 0.2, 0), rotated 180
     * degrees in total = (-0.5, -0.2, 0), plus the elbow at (0, 1, 0). */
    crowd_anim_skin_matrices(&k.s, models, NULL, skin);
    const float forearm[3] = {1.5f, 0.2f, 0};
    float moved[3];
    skin_point(skin + 12, forearm, moved);
    const float forearm_moved[3] = {-0.5f, 0.8f, 0};
    CHECK(vec_near(moved, forearm_moved, 3, 1e-6f));
    /* The same vertex bound to the shoulder: rotated 90 only. */
    skin_point(skin, forearm, moved);
    const float by_shoulder[3] = {-0.2f, 1.5f, 0};
    CHECK(vec_near(moved, by_shoulder, 3, 1e-6f));
    /* Layout: rows of the 3x4 are rows of model * inverse_bind. */
    float full[16];
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 4; r++) {
            float sum = 0;
            for (int i = 0; i < 4; i++) {
                sum += models[16 + 4 * i + r] * k.ib[16 + 4 * c + i];
            }
            full[4 * c + r] = sum;
        }
    }
    int layout = 1;
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 4; c++) {
            layout &= fabsf(skin[12 + 4 * r + c] - full[4 * c + r]) <= 1e-6f;
        }
    }
    CHECK(layout);

    /* Scale on the shoulder scales the whole arm. */
    pose[1].rotation[2] = 0;
    pose[1].rotation[3] = 1;
    pose[0].scale[0] = pose[0].scale[1] = pose[0].scale[2] = 2;
    crowd_anim_local_to_model(&k.s, pose, models);
    const float hand_scaled[3] = {0, 4, 0};
    CHECK(vec_near(models + 32 + 12, hand_scaled, 3, 1e-6f));

    /* A root transform (the file's nodes above the skeleton) moves every
     * model matrix; skinning relative to that same root_world cancels it.
     * Root: translate (0, 0, 5) and rotate 90 about X. */
    float root[16] = {1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 5, 1};
    memcpy(k.s.root_transform, root, sizeof root);
    /* Bind matrices for the new model space: inverse of root * translate(x_j). */
    float bind_models[48];
    crowd_transform rest[3];
    crowd_anim_rest_pose(&k.s, rest);
    crowd_anim_local_to_model(&k.s, rest, bind_models);
    const float hand_bind_pos[3] = {2, 0, 5}; /* (2,0,0) rotated about X stays */
    CHECK(vec_near(bind_models + 32 + 12, hand_bind_pos, 3, 1e-6f));
    float world_skin[36];
    crowd_anim_local_to_model(&k.s, pose, models);
    float zero[3] = {0, 0, 0}, hand_world[3];
    mat4_point(models + 32, zero, hand_world);
    /* (0, 4, 0) rotated 90 about X is (0, 0, 4), plus (0, 0, 5). */
    const float hand_expected[3] = {0, 0, 9};
    CHECK(vec_near(hand_world, hand_expected, 3, 1e-5f));
    /* inverse binds still relative to the unrooted arm: skin with root_world
     * = root gives the same matrices as an unrooted skeleton. */
    crowd_anim_skin_matrices(&k.s, models, root, world_skin);
    memcpy(k.s.root_transform, (float[16]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1},
           sizeof root);
    crowd_anim_local_to_model(&k.s, pose, models);
    crowd_anim_skin_matrices(&k.s, models, NULL, skin);
    CHECK(vec_near(world_skin, skin, 36, 1e-5f));
}

static void test_identity_clip_is_bind_pose(void) {
    /* A clip whose every track holds the rest value (linear, two keys) gives
     * the rest pose exactly at any time, and skinning matrices = identity
     * where inverse_bind = inverse(model at rest). */
    test_skeleton k;
    skeleton_init(&k, 2);
    k.t[0] = 0.5f;
    k.t[4] = 2;
    quat_axis_angle(0, 0, 1, 0.7f, k.r);
    quat_axis_angle(1, 0, 0, -0.4f, k.r + 4);
    static float times[2] = {0, 1};
    float values[2][3][8];
    crowd_joint_tracks tracks[2];
    for (int j = 0; j < 2; j++) {
        for (int key = 0; key < 2; key++) {
            memcpy(values[j][0] + 3 * key, k.t + 3 * j, 12);
            memcpy(values[j][1] + 4 * key, k.r + 4 * j, 16);
            memcpy(values[j][2] + 3 * key, k.sc + 3 * j, 12);
        }
        tracks[j].translation = track(CROWD_INTERP_LINEAR, 2, times, values[j][0]);
        tracks[j].rotation = track(CROWD_INTERP_LINEAR, 2, times, values[j][1]);
        tracks[j].scale = track(CROWD_INTERP_LINEAR, 2, times, values[j][2]);
    }
    crowd_clip clip = {.name = "id", .duration_s = 1, .loop = true, .tracks = tracks};
    crowd_transform rest[2], pose[2];
    crowd_anim_rest_pose(&k.s, rest);
    float models[32], skin[24];
    crowd_anim_local_to_model(&k.s, rest, models);
    /* inverse bind of a rigid transform [R t]: [R^T  -R^T t] */
    for (int j = 0; j < 2; j++) {
        const float *m = models + 16 * j;
        float *ib = k.ib + 16 * j;
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++) {
                ib[4 * c + r] = m[4 * r + c];
            }
            ib[12 + r] = -(m[4 * r] * m[12] + m[4 * r + 1] * m[13] + m[4 * r + 2] * m[14]);
        }
    }
    float worst = 0;
    int exact = 1;
    for (int f = 0; f < 10; f++) {
        crowd_anim_sample(&k.s, &clip, 0.1f * (float)f + 0.03f, NULL, pose);
        /* == rather than memcmp: -0 and +0 are the same value. */
        for (int j = 0; j < 2; j++) {
            exact &= vec_near(pose[j].translation, rest[j].translation, 3, 0);
            exact &= vec_near(pose[j].rotation, rest[j].rotation, 4, 0);
            exact &= vec_near(pose[j].scale, rest[j].scale, 3, 0);
        }
        crowd_anim_local_to_model(&k.s, pose, models);
        crowd_anim_skin_matrices(&k.s, models, NULL, skin);
        for (int j = 0; j < 2; j++) {
            for (int i = 0; i < 12; i++) {
                float e = fabsf(skin[12 * j + i] - ((i % 5 == 0) ? 1.0f : 0.0f));
                worst = e > worst ? e : worst;
            }
        }
    }
    CHECK(exact);
    CHECK_MSG(worst < 1e-6f, "skin matrices differ from identity by %g", worst);
}

/* Every case of the rule's table (clip_time_cases.json). */
static void test_clip_time_table(void) {
    clip_time_table table;
    REQUIRE_VOID(clip_time_table_load(&table));
    CHECK(table.count >= 40);
    for (uint32_t i = 0; i < table.count; i++) {
        const clip_time_case *c = &table.cases[i];
        float t = crowd_anim_play_time(c->clock_s, c->start_s, c->offset_s, c->speed,
                                       c->frames.duration_s, c->loop);
        crowd_frame_pair got = crowd_anim_frame_pair(&c->frames, t);
        CHECK_MSG(clip_time_matches(&table, c, t, got),
                  "case %u (%s, %s): got t %.7g frames %u %u weight %.6g, want t %.7g frames %u "
                  "%u weight %.6g",
                  i, c->clip_name, c->why, (double)t, got.frame0, got.frame1, (double)got.weight,
                  (double)c->time_s, c->frame0, c->frame1, (double)c->weight);
        uint32_t nearest = crowd_anim_frame_nearest(&c->frames, t);
        CHECK_MSG(clip_time_nearest_matches(&table, c, nearest),
                  "case %u (%s, %s): nearest frame %u, want frames %u %u weight %.6g", i,
                  c->clip_name, c->why, nearest, c->frame0, c->frame1, (double)c->weight);
    }
    free(table.cases);
}

/* What the table cannot hold: times that are not numbers, and the frame
 * counts and times of the END layout. */
static void test_frame_rule_edges(void) {
    CHECK(crowd_anim_play_time(NAN, 0, 0, 1, 2.0f, true) == 0.0f);
    CHECK(crowd_anim_play_time(INFINITY, 0, 0, 1, 2.0f, false) == 0.0f);
    CHECK(crowd_anim_play_time(1.0f, 0, 0, NAN, 2.0f, true) == 0.0f);
    CHECK(crowd_anim_play_time(1.0f, 0, 0, 1, NAN, true) == 0.0f);
    CHECK(crowd_anim_play_time(1.0f, 0, 0, 1, -1.0f, false) == 0.0f);
    /* A tiny negative time plus d rounds to d: the seam, frame 0. */
    CHECK(crowd_anim_play_time(-1e-9f, 0, 0, 1, 2.0f, true) == 0.0f);

    CHECK(crowd_anim_frame_count(0.0f, 30.0f) == 1);
    CHECK(crowd_anim_frame_count(1.0f, 30.0f) == 31);
    CHECK(crowd_anim_frame_count(0.875f, 30.0f) == 28);      /* 26.25 frames: 27 steps */
    CHECK(crowd_anim_frame_count(1.0f / 30.0f, 30.0f) == 2); /* one step, up to rounding */
    CHECK(crowd_anim_frame_count(1e-6f, 30.0f) == 2);        /* a sliver is still a step */
    CHECK(crowd_anim_frame_count(1.0f, INFINITY) == UINT32_MAX);
    CHECK(crowd_anim_frame_count(1e9f, 1000.0f) == UINT32_MAX);

    crowd_clip_frames f = {30.0f, 0.875f, 28, CROWD_FRAMES_END};
    CHECK(crowd_anim_frame_time(&f, 0) == 0.0f);
    CHECK(crowd_anim_frame_time(&f, 26) == 26.0f / 30.0f);
    CHECK(crowd_anim_frame_time(&f, 27) == 0.875f);
    crowd_clip_frames wrap = {30.0f, 0.875f, 26, CROWD_FRAMES_WRAP};
    CHECK(crowd_anim_frame_time(&wrap, 25) == 25.0f / 30.0f);
    /* Not a number of frames: frame 0. */
    crowd_frame_pair p = crowd_anim_frame_pair(&f, NAN);
    CHECK(p.frame0 == 0 && p.frame1 == 1 && p.weight == 0.0f);
    p = crowd_anim_frame_pair(&f, 1e30f);
    CHECK(p.frame0 == 27 && p.frame1 == 27 && p.weight == 0.0f);
    p = crowd_anim_frame_pair(&wrap, 1e30f);
    CHECK(p.frame0 < 26);
}

/* Every job's error paths (crowd/anim.h, "Inputs"): false and nothing
 * written, sentinel bytes left as they were; and the queries' defined
 * values for NULL and out-of-range arguments. */
static bool untouched(const void *data, size_t size) {
    const unsigned char *bytes = data;
    for (size_t i = 0; i < size; i++) {
        if (bytes[i] != 0xA5) {
            return false;
        }
    }
    return true;
}

static void test_error_paths(void) {
    test_skeleton k;
    skeleton_init(&k, 2);
    float times[2] = {0.0f, 1.0f}, values[6] = {0, 0, 0, 1, 2, 3};
    crowd_joint_tracks tracks[2];
    memset(tracks, 0, sizeof tracks);
    tracks[1].translation = track(CROWD_INTERP_LINEAR, 2, times, values);
    crowd_clip clip = {.name = "c", .duration_s = 1.0f, .tracks = tracks};
    crowd_transform pose[2], other[2];
    float models[32], skin[24];

    memset(pose, 0xA5, sizeof pose);
    CHECK(!crowd_anim_sample(NULL, &clip, 0.5f, NULL, pose) && untouched(pose, sizeof pose));
    CHECK(!crowd_anim_sample(&k.s, NULL, 0.5f, NULL, pose) && untouched(pose, sizeof pose));
    CHECK(!crowd_anim_sample(&k.s, &clip, 0.5f, NULL, NULL));
    clip.tracks = NULL;
    CHECK(!crowd_anim_sample(&k.s, &clip, 0.5f, NULL, pose) && untouched(pose, sizeof pose));
    clip.tracks = tracks;
    tracks[1].translation.values = NULL; /* keys without values */
    CHECK(!crowd_anim_sample(&k.s, &clip, 0.5f, NULL, pose) && untouched(pose, sizeof pose));
    tracks[1].translation.values = values;
    tracks[1].translation.times_s = NULL;
    CHECK(!crowd_anim_sample(&k.s, &clip, 0.5f, NULL, pose) && untouched(pose, sizeof pose));
    tracks[1].translation.times_s = times;
    tracks[1].translation.interpolation = (crowd_interpolation)9;
    CHECK(!crowd_anim_sample(&k.s, &clip, 0.5f, NULL, pose) && untouched(pose, sizeof pose));
    tracks[1].translation.interpolation = CROWD_INTERP_LINEAR;
    k.s.rest_scale = NULL;
    CHECK(!crowd_anim_sample(&k.s, &clip, 0.5f, NULL, pose) && untouched(pose, sizeof pose));
    CHECK(!crowd_anim_rest_pose(&k.s, pose) && untouched(pose, sizeof pose));
    k.s.rest_scale = k.sc;
    CHECK(!crowd_anim_rest_pose(NULL, pose) && !crowd_anim_rest_pose(&k.s, NULL));
    /* a cursor too short for the skeleton is not used: the same pose */
    uint32_t hints[2] = {0, 0};
    crowd_anim_cursor short_cursor = {.keys = hints, .key_count = 2};
    CHECK(crowd_anim_sample(&k.s, &clip, 0.5f, &short_cursor, pose));
    CHECK(crowd_anim_sample(&k.s, &clip, 0.5f, NULL, other));
    CHECK(memcmp(pose, other, sizeof pose) == 0 && short_cursor.clip == NULL);
    CHECK(pose[1].translation[0] == 0.5f && pose[1].translation[2] == 1.5f);

    /* blend: missing poses or weights */
    const crowd_transform *poses[2] = {pose, NULL};
    const float weights[2] = {0.5f, 0.5f};
    memset(other, 0xA5, sizeof other);
    CHECK(!crowd_anim_blend(&k.s, poses, weights, 2, other) && untouched(other, sizeof other));
    CHECK(!crowd_anim_blend(&k.s, NULL, weights, 1, other) && untouched(other, sizeof other));
    CHECK(!crowd_anim_blend(&k.s, poses, NULL, 1, other) && untouched(other, sizeof other));
    CHECK(!crowd_anim_blend(NULL, poses, weights, 1, other) && untouched(other, sizeof other));
    CHECK(!crowd_anim_blend(&k.s, poses, weights, 1, NULL));
    CHECK(crowd_anim_blend(&k.s, NULL, NULL, 0, other) && other[0].rotation[3] == 1.0f);

    /* local to model: a parent after its child is placed as a root, and said */
    CHECK(crowd_anim_rest_pose(&k.s, pose));
    memset(models, 0xA5, sizeof models);
    CHECK(!crowd_anim_local_to_model(NULL, pose, models) && untouched(models, sizeof models));
    CHECK(!crowd_anim_local_to_model(&k.s, NULL, models) && untouched(models, sizeof models));
    CHECK(!crowd_anim_local_to_model(&k.s, pose, NULL));
    k.parents[0] = 1;
    CHECK(!crowd_anim_local_to_model(&k.s, pose, models) && models[0] == 1.0f);
    k.parents[0] = -1;
    k.parents[1] = 5;
    CHECK(!crowd_anim_local_to_model(&k.s, pose, models));
    k.parents[1] = 0;
    CHECK(crowd_anim_local_to_model(&k.s, pose, models));

    /* skinning matrices: NULL arrays, a root without an inverse */
    memset(skin, 0xA5, sizeof skin);
    float singular[16] = {0};
    float nan_root[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    nan_root[12] = NAN;
    CHECK(!crowd_anim_skin_matrices(&k.s, models, singular, skin) && untouched(skin, sizeof skin));
    CHECK(!crowd_anim_skin_matrices(&k.s, models, nan_root, skin) && untouched(skin, sizeof skin));
    CHECK(!crowd_anim_skin_matrices(NULL, models, NULL, skin) && untouched(skin, sizeof skin));
    CHECK(!crowd_anim_skin_matrices(&k.s, NULL, NULL, skin) && untouched(skin, sizeof skin));
    CHECK(!crowd_anim_skin_matrices(&k.s, models, NULL, NULL));
    k.s.inverse_bind = NULL;
    CHECK(!crowd_anim_skin_matrices(&k.s, models, NULL, skin) && untouched(skin, sizeof skin));
    k.s.inverse_bind = k.ib;
    CHECK(crowd_anim_skin_matrices(&k.s, models, NULL, skin) && skin[0] == 1.0f);

    /* queries: defined values */
    CHECK(crowd_anim_cursor_size(NULL) == 0 && crowd_anim_cursor_size(&k.s) == 6);
    crowd_anim_cursor_reset(NULL);
    CHECK(crowd_anim_clip_time(NULL, 3.0f) == 0.0f);
    CHECK(crowd_anim_frame_nearest(NULL, 1.0f) == 0);
    crowd_frame_pair pair = crowd_anim_frame_pair(NULL, 1.0f);
    CHECK(pair.frame0 == 0 && pair.frame1 == 0 && pair.weight == 0.0f);
    crowd_clip_frames frames = {
        .fps = 10.0f, .duration_s = 0.25f, .frame_count = 4, .layout = CROWD_FRAMES_END};
    CHECK(crowd_anim_frame_time(&frames, 2) == 0.2f && crowd_anim_frame_time(&frames, 3) == 0.25f);
    CHECK(crowd_anim_frame_time(&frames, 99) == 0.25f);
    frames.layout = CROWD_FRAMES_CLAMP;
    CHECK(crowd_anim_frame_time(&frames, 99) == 0.3f);
    frames.fps = 0.0f;
    CHECK(crowd_anim_frame_time(&frames, 1) == 0.0f && crowd_anim_frame_time(NULL, 1) == 0.0f);
}

int main(void) {
    check_enter_temp_dir("test_anim");
    test_clip_time_table();
    test_frame_rule_edges();
    test_cursor_and_clip_time();
    test_rest_pose();
    test_step_linear();
    test_cubic();
    test_rotation();
    test_cursor_matches_search();
    test_blend();
    test_hierarchy_and_skinning();
    test_identity_clip_is_bind_pose();
    test_error_paths();
    return check_finish();
}
