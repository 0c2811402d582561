#include "crowd/anim.h"

#include <string.h>

bool crowd_anim_rest_pose(const crowd_skeleton *skeleton, crowd_transform *out) {
    if (skeleton == NULL || out == NULL || skeleton->rest_translation == NULL ||
        skeleton->rest_rotation == NULL || skeleton->rest_scale == NULL) {
        return false;
    }
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        memcpy(out[j].translation, skeleton->rest_translation + 3 * j, 3 * sizeof(float));
        memcpy(out[j].rotation, skeleton->rest_rotation + 4 * j, 4 * sizeof(float));
        memcpy(out[j].scale, skeleton->rest_scale + 3 * j, 3 * sizeof(float));
    }
    return true;
}
