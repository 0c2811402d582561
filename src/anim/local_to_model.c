/* The hierarchy walk: joints are parent-before-child, so one forward pass
 * sees every parent's model matrix before its children. */
#include "crowd/anim.h"

#include "anim/anim_math.h"

bool crowd_anim_local_to_model(const crowd_skeleton *skeleton, const crowd_transform *locals,
                               float *out_models) {
    if (skeleton == NULL || locals == NULL || out_models == NULL || skeleton->parents == NULL) {
        return false;
    }
    const int32_t *parents = skeleton->parents;
    bool ordered = true;
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        float linear[9];
        anim_rotation_scale(locals[j].rotation, locals[j].scale, linear);
        int32_t p = parents[j];
        /* A parent that is not before its child breaks the asset's invariant;
         * treating the joint as a root keeps the read in bounds. */
        ordered = ordered && p >= -1 && p < (int32_t)j;
        const float *parent =
            (p >= 0 && (uint32_t)p < j) ? out_models + 16 * (uint32_t)p : skeleton->root_transform;
        anim_mat4_mul_local(parent, linear, locals[j].translation, out_models + 16 * j);
    }
    return ordered;
}
