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

/* Where value k of a track starts (cubic keys hold [in-tangent, value,
 * out-tangent]) and the key interval containing t, or -1 when t is at or
 * outside an end (value index in *key then). */
static inline int locate(const crowd_track *track, int components, float t, uint32_t *hint,
                         uint32_t *key, uint32_t *stride) {
    uint32_t n = track->key_count;
    const float *times = track->times_s;
    *stride = track->interpolation == CROWD_INTERP_CUBIC ? 3u * (uint32_t)components
                                                         : (uint32_t)components;
    if (n == 1 || t <= times[0]) {
        *key = 0;
        return -1;
    }
    if (t >= times[n - 1]) {
        *key = n - 1;
        return -1;
    }
    *key = anim_key_find(times, n, t, hint);
    return 0;
}

/* glTF cubic spline between keys a and b (each [in-tangent, value,
 * out-tangent], `n` components, `a`/`b` pointing at the values) at fraction
 * u of an interval dt long: the Hermite basis with tangents scaled by dt. */
static inline void hermite(const float *a, const float *b, uint32_t n, float u, float dt,
                           float *out) {
    float u2 = u * u, u3 = u2 * u;
    float h00 = 2.0f * u3 - 3.0f * u2 + 1.0f;
    float h10 = (u3 - 2.0f * u2 + u) * dt;
    float h01 = -2.0f * u3 + 3.0f * u2;
    float h11 = (u3 - u2) * dt;
    const float *out_tangent = a + n; /* b_k */
    const float *in_tangent = b - n;  /* a_{k+1} */
    for (uint32_t i = 0; i < n; i++) {
        out[i] = h00 * a[i] + h10 * out_tangent[i] + h01 * b[i] + h11 * in_tangent[i];
    }
}

/* Translation or scale track at t. */
static inline void sample_vec3(const crowd_track *track, float t, uint32_t *hint, float *out) {
    uint32_t k, stride;
    uint32_t offset = track->interpolation == CROWD_INTERP_CUBIC ? 3u : 0u;
    if (locate(track, 3, t, hint, &k, &stride) < 0 || track->interpolation == CROWD_INTERP_STEP) {
        memcpy(out, track->values + stride * k + offset, 3 * sizeof(float));
        return;
    }
    const float *times = track->times_s;
    float dt = times[k + 1] - times[k];
    float u = (t - times[k]) / dt;
    const float *a = track->values + stride * k + offset;
    const float *b = a + stride;
    if (track->interpolation == CROWD_INTERP_LINEAR) {
        /* Written out: -O2 leaves a 3-iteration loop rolled. */
        out[0] = a[0] + (b[0] - a[0]) * u;
        out[1] = a[1] + (b[1] - a[1]) * u;
        out[2] = a[2] + (b[2] - a[2]) * u;
        return;
    }
    hermite(a, b, 3, u, dt, out);
}

/* Rotation track at t. */
static inline void sample_quat(const crowd_track *track, float t, uint32_t *hint, float *out) {
    uint32_t k, stride;
    uint32_t offset = track->interpolation == CROWD_INTERP_CUBIC ? 4u : 0u;
    if (locate(track, 4, t, hint, &k, &stride) < 0 || track->interpolation == CROWD_INTERP_STEP) {
        memcpy(out, track->values + stride * k + offset, 4 * sizeof(float));
        return;
    }
    const float *times = track->times_s;
    float dt = times[k + 1] - times[k];
    float u = (t - times[k]) / dt;
    const float *a = track->values + stride * k + offset;
    const float *b = a + stride;
    if (track->interpolation == CROWD_INTERP_LINEAR) {
        anim_quat_slerp(a, b, u, out);
        return;
    }
    hermite(a, b, 4, u, dt, out);
    anim_quat_normalize(out);
}

/* A track the samplers can read: no keys, or its arrays and a known
 * interpolation. */
static bool track_usable(const crowd_track *track) {
    return track->key_count == 0 || (track->times_s != NULL && track->values != NULL &&
                                     (unsigned)track->interpolation <= CROWD_INTERP_CUBIC);
}

/* What crowd_anim_sample reads, checked before it writes: one pass over the
 * track headers, nothing per key. */
static bool sample_inputs_usable(const crowd_skeleton *skeleton, const crowd_clip *clip,
                                 const crowd_transform *out) {
    if (skeleton == NULL || clip == NULL || out == NULL || clip->tracks == NULL ||
        skeleton->joint_count > CROWD_MAX_JOINTS || skeleton->rest_translation == NULL ||
        skeleton->rest_rotation == NULL || skeleton->rest_scale == NULL) {
        return false;
    }
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        const crowd_joint_tracks *tracks = &clip->tracks[j];
        if (!track_usable(&tracks->translation) || !track_usable(&tracks->rotation) ||
            !track_usable(&tracks->scale)) {
            return false;
        }
    }
    return true;
}

bool crowd_anim_sample(const crowd_skeleton *skeleton, const crowd_clip *clip, float time_s,
                       crowd_anim_cursor *cursor, crowd_transform *out) {
    if (!sample_inputs_usable(skeleton, clip, out)) {
        return false;
    }
    uint32_t joint_count = skeleton->joint_count;
    float t = crowd_anim_clip_time(clip, time_s);
    uint32_t *hints = NULL;
    if (cursor != NULL && cursor->keys != NULL && cursor->key_count >= 3 * joint_count) {
        if (cursor->clip != clip) {
            crowd_anim_cursor_reset(cursor);
            cursor->clip = clip;
        }
        hints = cursor->keys;
    }
    /* Channel by channel rather than joint by joint: each loop runs one
     * specialised sampler, which keeps its branches predictable. Without a
     * cursor the hint is a throwaway 0, i.e. a binary search. */
    const crowd_joint_tracks *tracks = clip->tracks;
    for (uint32_t j = 0; j < joint_count; j++) {
        uint32_t scratch = 0;
        const crowd_track *track = &tracks[j].translation;
        if (track->key_count > 0) {
            sample_vec3(track, t, hints != NULL ? &hints[3 * j] : &scratch, out[j].translation);
        } else {
            memcpy(out[j].translation, skeleton->rest_translation + 3 * j, 3 * sizeof(float));
        }
    }
    for (uint32_t j = 0; j < joint_count; j++) {
        uint32_t scratch = 0;
        const crowd_track *track = &tracks[j].rotation;
        if (track->key_count > 0) {
            sample_quat(track, t, hints != NULL ? &hints[3 * j + 1] : &scratch, out[j].rotation);
        } else {
            memcpy(out[j].rotation, skeleton->rest_rotation + 4 * j, 4 * sizeof(float));
        }
    }
    for (uint32_t j = 0; j < joint_count; j++) {
        uint32_t scratch = 0;
        const crowd_track *track = &tracks[j].scale;
        if (track->key_count > 0) {
            sample_vec3(track, t, hints != NULL ? &hints[3 * j + 2] : &scratch, out[j].scale);
        } else {
            memcpy(out[j].scale, skeleton->rest_scale + 3 * j, 3 * sizeof(float));
        }
    }
    return true;
}
