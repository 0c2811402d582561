/* anim_match.c - which joint of an animation file each character joint
 * follows.
 *
 * By name first: equal once namespaces are dropped and case ignored
 * ("mixamorig:HIPS" is "Hips"), in the character's joint order, each file
 * joint taken once (the first free one of that name). Then, for character
 * joints still unmatched, by humanoid role (crowd__anim_humanoid_role): CMU
 * mocap's "LeftArm" is crowd's builtin "upper_arm_L" and Blender's
 * "UpperArm.L". What matches nothing keeps its rest pose.
 */
#include <stdlib.h>
#include <string.h>

#include "import/anim/anim_internal.h"

crowd_result crowd__anim_match_joints(const crowd_skeleton *character, const crowd_skeleton *file,
                                      anim_match *out, const char *path, crowd_error *error) {
    memset(out, 0, sizeof *out);
    out->source = malloc(((size_t)character->joint_count + 1) * sizeof *out->source);
    out->by_role = calloc((size_t)character->joint_count + 1, sizeof *out->by_role);
    bool *taken = calloc((size_t)file->joint_count + 1, sizeof *taken);
    int *role = malloc(((size_t)file->joint_count + 1) * sizeof *role);
    if (out->source == NULL || out->by_role == NULL || taken == NULL || role == NULL) {
        free(taken);
        free(role);
        crowd__anim_match_free(out);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, path, "out of memory");
    }
    for (uint32_t j = 0; j < character->joint_count; j++) {
        out->source[j] = -1;
        for (uint32_t f = 0; f < file->joint_count && out->source[j] < 0; f++) {
            if (!taken[f] && crowd__anim_names_match(character->names[j], file->names[f])) {
                out->source[j] = (int32_t)f;
                taken[f] = true;
                out->matched++;
            }
        }
    }
    for (uint32_t f = 0; f < file->joint_count; f++) {
        role[f] = crowd__anim_humanoid_role(file->names[f]);
    }
    for (uint32_t j = 0; j < character->joint_count; j++) {
        int wanted = out->source[j] < 0 ? crowd__anim_humanoid_role(character->names[j]) : 0;
        for (uint32_t f = 0; wanted != 0 && f < file->joint_count && out->source[j] < 0; f++) {
            if (!taken[f] && role[f] == wanted) {
                out->source[j] = (int32_t)f;
                out->by_role[j] = true;
                taken[f] = true;
                out->matched++;
                out->by_role_count++;
            }
        }
    }
    free(taken);
    free(role);
    return CROWD_OK;
}

void crowd__anim_match_free(anim_match *match) {
    free(match->source);
    free(match->by_role);
    match->source = NULL;
    match->by_role = NULL;
}
