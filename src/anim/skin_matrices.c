/* Skinning matrices: model space of the joint times inverse bind, moved into
 * the space of the character's root node, stored as the 3 rows of a 3x4. */
#include "crowd/anim.h"

#include <cglm/mat4.h>
#include <math.h>
#include <string.h>

#include "anim/anim_math.h"

bool crowd_anim_skin_matrices(const crowd_skeleton *skeleton, const float *models,
                              const float *root_world, float *out_skin) {
    if (skeleton == NULL || models == NULL || out_skin == NULL || skeleton->inverse_bind == NULL) {
        return false;
    }
    if (root_world == NULL) {
        for (uint32_t j = 0; j < skeleton->joint_count; j++) {
            anim_mat4_mul_rows(models + 16 * j, skeleton->inverse_bind + 16 * j, out_skin + 12 * j);
        }
        return true;
    }
    mat4 world, inverse;
    memcpy(world, root_world, sizeof world);
    /* A singular (or not finite) root has no inverse to move joints by. */
    float det = glm_mat4_det(world);
    if (!(det != 0.0f) || !isfinite(det)) {
        return false;
    }
    glm_mat4_inv(world, inverse);
    float root_inverse[16];
    memcpy(root_inverse, inverse, sizeof root_inverse);
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        float moved[16];
        anim_mat4_mul(root_inverse, models + 16 * j, moved);
        anim_mat4_mul_rows(moved, skeleton->inverse_bind + 16 * j, out_skin + 12 * j);
    }
    return true;
}
