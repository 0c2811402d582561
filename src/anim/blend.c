/* Weighted blending of local poses (crossfades, layered clips). Rotations
 * are blended by normalized lerp, each flipped into the hemisphere of the
 * reference pose (the first with weight > 0) so that q and -q, the same
 * rotation, add up instead of cancelling. Weights that are negative or not
 * finite count as 0. */
#include "crowd/anim.h"

#include <math.h>
#include <string.h>

#include "anim/anim_math.h"

bool crowd_anim_blend(const crowd_skeleton *skeleton, const crowd_transform *const *poses,
                      const float *weights, uint32_t pose_count, crowd_transform *out) {
    if (skeleton == NULL || out == NULL || (pose_count > 0 && (poses == NULL || weights == NULL))) {
        return false;
    }
    for (uint32_t p = 0; p < pose_count; p++) {
        if (poses[p] == NULL) {
            return false;
        }
    }
    float total = 0.0f;
    uint32_t first = pose_count, contributing = 0;
    for (uint32_t p = 0; p < pose_count; p++) {
        float w = weights[p];
        if (w > 0.0f && isfinite(w)) {
            total += w;
            contributing++;
            if (first == pose_count) {
                first = p;
            }
        }
    }
    if (contributing == 0 || !(total > 0.0f) || !isfinite(total)) {
        return crowd_anim_rest_pose(skeleton, out);
    }
    /* One contributor is the pose itself, bit for bit (a crossfade at 0 or 1
     * must not perturb it by a renormalization). */
    if (contributing == 1) {
        if (out != poses[first]) {
            memmove(out, poses[first], skeleton->joint_count * sizeof *out);
        }
        return true;
    }
    float inv_total = 1.0f / total;
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        /* Accumulate in locals: out may alias poses[0]. */
        float t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 0}, s[3] = {0, 0, 0};
        const float *reference = poses[first][j].rotation;
        for (uint32_t p = first; p < pose_count; p++) {
            float w = weights[p];
            if (!(w > 0.0f) || !isfinite(w)) {
                continue;
            }
            w *= inv_total;
            const crowd_transform *x = &poses[p][j];
            float wq = anim_quat_dot(x->rotation, reference) < 0.0f ? -w : w;
            for (int i = 0; i < 3; i++) {
                t[i] += w * x->translation[i];
                s[i] += w * x->scale[i];
            }
            for (int i = 0; i < 4; i++) {
                q[i] += wq * x->rotation[i];
            }
        }
        /* Opposite rotations with equal weight cancel; the reference is the
         * only choice that is not arbitrary. */
        if (!(anim_quat_dot(q, q) > 1e-12f)) {
            memcpy(q, reference, sizeof q);
        }
        anim_quat_normalize(q);
        memcpy(out[j].translation, t, sizeof t);
        memcpy(out[j].rotation, q, sizeof q);
        memcpy(out[j].scale, s, sizeof s);
    }
    return true;
}
