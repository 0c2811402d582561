/* Sampling a clip into a local pose, with glTF 2.0 interpolation semantics
 * (Appendix C of the specification): STEP holds a key until the next one,
 * LINEAR lerps translations and scales and slerps rotations along the
 * shortest arc, CUBICSPLINE is a Hermite spline whose tangents are scaled by
 * the key interval, rotations normalized after. Before the first key and
 * after the last a track holds its end value. */
#include "crowd/anim.h"

#include <string.h>

#include "anim/anim_math.h"
#include "anim/key_search.h"

enum { TRANSLATION, ROTATION, SCALE };

/* Samples one track of `c` components (3 or 4; 4 means a rotation) at t. */
static inline void sample_track(const crowd_track *track, int c, float t, uint32_t *hint, float *out) {
    uint32_t n = track->key_count;
    const float *times = track->times_s;
    const float *values = track->values;
    /* Cubic keys hold [in-tangent, value, out-tangent]; value k starts at
     * stride * k + offset. */
    int cubic = track->interpolation == CROWD_INTERP_CUBIC;
    uint32_t stride = cubic ? 3u * (uint32_t)c : (uint32_t)c;
    uint32_t offset = cubic ? (uint32_t)c : 0u;
    if (n == 1 || t <= times[0]) {
        memcpy(out, values + offset, (size_t)c * sizeof(float));
        return;
    }
    if (t >= times[n - 1]) {
        memcpy(out, values + stride * (n - 1) + offset, (size_t)c * sizeof(float));
        return;
    }
    uint32_t k = anim_key_find(times, n, t, hint);
    const float *a = values + stride * k + offset;
    const float *b = a + stride;
    switch (track->interpolation) {
    case CROWD_INTERP_STEP:
        memcpy(out, a, (size_t)c * sizeof(float));
        return;
    case CROWD_INTERP_LINEAR: {
        float u = (t - times[k]) / (times[k + 1] - times[k]);
        if (c == 4) {
            anim_quat_slerp(a, b, u, out);
        } else {
            for (int i = 0; i < c; i++) {
                out[i] = a[i] + (b[i] - a[i]) * u;
            }
        }
        return;
    }
    case CROWD_INTERP_CUBIC: {
        float dt = times[k + 1] - times[k];
        float u = (t - times[k]) / dt;
        float u2 = u * u, u3 = u2 * u;
        float h00 = 2.0f * u3 - 3.0f * u2 + 1.0f;
        float h10 = (u3 - 2.0f * u2 + u) * dt;
        float h01 = -2.0f * u3 + 3.0f * u2;
        float h11 = (u3 - u2) * dt;
        const float *out_tangent = a + c;  /* b_k */
        const float *in_tangent = b - c;   /* a_{k+1} */
        for (int i = 0; i < c; i++) {
            out[i] = h00 * a[i] + h10 * out_tangent[i] + h01 * b[i] + h11 * in_tangent[i];
        }
        if (c == 4) {
            anim_quat_normalize(out);
        }
        return;
    }
    }
}

void crowd_anim_sample(const crowd_skeleton *skeleton, const crowd_clip *clip, float time_s,
                       crowd_anim_cursor *cursor, crowd_transform *out) {
    uint32_t joint_count = skeleton->joint_count;
    float t = crowd_anim_clip_time(clip, time_s);
    /* Without a usable cursor every search starts from scratch; the scratch
     * hints make the code path the same. */
    uint32_t *hints = NULL;
    if (cursor != NULL && cursor->keys != NULL && cursor->key_count >= 3 * joint_count) {
        if (cursor->clip != clip) {
            crowd_anim_cursor_reset(cursor);
            cursor->clip = clip;
        }
        hints = cursor->keys;
    }
    for (uint32_t j = 0; j < joint_count; j++) {
        const crowd_joint_tracks *tracks = &clip->tracks[j];
        crowd_transform *pose = &out[j];
        uint32_t scratch[3] = {0, 0, 0};
        uint32_t *hint = hints != NULL ? hints + 3 * j : scratch;
        if (tracks->translation.key_count > 0) {
            sample_track(&tracks->translation, 3, t, &hint[TRANSLATION], pose->translation);
        } else {
            memcpy(pose->translation, skeleton->rest_translation + 3 * j, 3 * sizeof(float));
        }
        if (tracks->rotation.key_count > 0) {
            sample_track(&tracks->rotation, 4, t, &hint[ROTATION], pose->rotation);
        } else {
            memcpy(pose->rotation, skeleton->rest_rotation + 4 * j, 4 * sizeof(float));
        }
        if (tracks->scale.key_count > 0) {
            sample_track(&tracks->scale, 3, t, &hint[SCALE], pose->scale);
        } else {
            memcpy(pose->scale, skeleton->rest_scale + 3 * j, 3 * sizeof(float));
        }
    }
}
