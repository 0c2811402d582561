/* Skinning matrices: model space of the joint times inverse bind, moved into
 * the space of the character's root node, stored as the 3 rows of a 3x4. */
#include "crowd/anim.h"

#include <cglm/mat4.h>
#include <string.h>

#include "anim/anim_math.h"

void crowd_anim_skin_matrices(const crowd_skeleton *skeleton, const float *models,
                              const float *root_world, float *out_skin) {
    float root_inverse[16];
    if (root_world != NULL) {
        mat4 world, inverse;
        memcpy(world, root_world, sizeof world);
        glm_mat4_inv(world, inverse);
        memcpy(root_inverse, inverse, sizeof root_inverse);
    }
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        float skin[16];
        anim_mat4_mul(models + 16 * j, skeleton->inverse_bind + 16 * j, skin);
        if (root_world != NULL) {
            float moved[16];
            anim_mat4_mul(root_inverse, skin, moved);
            memcpy(skin, moved, sizeof skin);
        }
        float *rows = out_skin + 12 * j;
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 4; c++) {
                rows[4 * r + c] = skin[4 * c + r];
            }
        }
    }
}
