/* anim_loop.c - whether a clip loops by default (it ends in the pose it
 * starts in), and releasing a clip's tracks. */
#include <math.h>
#include <stdlib.h>

#include "crowd/anim.h"
#include "import/anim/anim_internal.h"

/* Poses closer than this count as equal: translation and scale per
 * component (relative above 1), rotation as 1 - |dot| (about 0.5 degrees). */
#define LOOP_TOLERANCE 1e-3f
#define LOOP_ROTATION_TOLERANCE 4e-5f

static bool poses_match(const crowd_transform *a, const crowd_transform *b) {
    float dot = 0.0f;
    for (int c = 0; c < 4; c++) {
        dot += a->rotation[c] * b->rotation[c];
    }
    if (1.0f - fabsf(dot) > LOOP_ROTATION_TOLERANCE) {
        return false;
    }
    for (int c = 0; c < 3; c++) {
        float t = fmaxf(1.0f, fmaxf(fabsf(a->translation[c]), fabsf(b->translation[c])));
        float s = fmaxf(1.0f, fmaxf(fabsf(a->scale[c]), fabsf(b->scale[c])));
        if (fabsf(a->translation[c] - b->translation[c]) > LOOP_TOLERANCE * t ||
            fabsf(a->scale[c] - b->scale[c]) > LOOP_TOLERANCE * s) {
            return false;
        }
    }
    return true;
}

crowd_result crowd__anim_clip_decide_loop(const crowd_skeleton *skeleton, crowd_clip *clip,
                                          const char *file, crowd_error *error) {
    crowd_transform *poses = malloc(2 * (size_t)skeleton->joint_count * sizeof *poses);
    if (poses == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, file, "out of memory");
    }
    /* One-shot while sampling, so the end is the last pose, not the first again. */
    clip->loop = false;
    crowd_anim_sample(skeleton, clip, 0.0f, NULL, poses);
    crowd_anim_sample(skeleton, clip, clip->duration_s, NULL, poses + skeleton->joint_count);
    bool match = clip->duration_s > 0.0f;
    for (uint32_t j = 0; j < skeleton->joint_count && match; j++) {
        match = poses_match(&poses[j], &poses[skeleton->joint_count + j]);
    }
    clip->loop = match;
    free(poses);
    return CROWD_OK;
}

void crowd__anim_clip_release(crowd_clip *clip, uint32_t joint_count) {
    for (uint32_t j = 0; clip->tracks != NULL && j < joint_count; j++) {
        crowd_track *tracks[3] = {&clip->tracks[j].translation, &clip->tracks[j].rotation,
                                  &clip->tracks[j].scale};
        for (int t = 0; t < 3; t++) {
            free(tracks[t]->times_s);
            free(tracks[t]->values);
        }
    }
    free(clip->tracks);
    free(clip->name);
    clip->tracks = NULL;
    clip->name = NULL;
}
