/* Every clip's ground speed and a blend's strides on an asset's skeleton
 * (ground_measure.h): the scratch a measure needs, and the feet of the
 * drawn mesh to watch. */
#include "anim/ground_measure.h"

#include "core/core_internal.h"
#include "crowd/anim.h"

typedef struct scratch {
    crowd_transform *poses; /* 2 per joint: a blend samples two clips */
    float *models;
    uint8_t *feet;
    bool have_feet;
} scratch;

static crowd_result scratch_make(const crowd_allocator *allocator, const crowd_asset *source,
                                 const crowd_mesh *drawn, scratch *s, crowd_error *error) {
    uint32_t joints = source->skeleton.joint_count;
    s->poses =
        crowd__mem_alloc(allocator, 2 * (size_t)(joints > 0 ? joints : 1) * sizeof *s->poses);
    s->models =
        crowd__mem_alloc(allocator, (size_t)(joints > 0 ? joints : 1) * 16 * sizeof *s->models);
    s->feet = crowd__mem_alloc(allocator, joints > 0 ? joints : 1);
    if (s->poses == NULL || s->models == NULL || s->feet == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    s->have_feet =
        drawn != NULL && drawn->vertex_count > 0 &&
        crowd_anim_foot_joints(&source->skeleton, drawn, s->poses, s->models, s->feet) > 0;
    return CROWD_OK;
}

static void scratch_free(const crowd_allocator *allocator, scratch *s) {
    crowd__mem_free(allocator, s->poses);
    crowd__mem_free(allocator, s->models);
    crowd__mem_free(allocator, s->feet);
}

crowd_result crowd__ground_measure_speeds(const crowd_allocator *allocator,
                                          const crowd_asset *source, const crowd_mesh *drawn,
                                          const uint32_t *source_clips, uint32_t clip_count,
                                          float *out_speeds, crowd_error *error) {
    scratch s = {0};
    crowd_result result = scratch_make(allocator, source, drawn, &s, error);
    for (uint32_t c = 0; result == CROWD_OK && c < clip_count; c++) {
        crowd_ground_speed g = {0};
        uint32_t clip = source_clips[c];
        if (clip < source->clip_count &&
            crowd_anim_clip_ground_speed(&source->skeleton, &source->clips[clip],
                                         s.have_feet ? s.feet : NULL, s.poses, s.models, &g)) {
            out_speeds[c] = g.speed;
        } else {
            out_speeds[c] = 0.0f;
        }
    }
    scratch_free(allocator, &s);
    return result;
}

crowd_result crowd__ground_measure_strides(const crowd_allocator *allocator,
                                           const crowd_asset *source, const crowd_mesh *drawn,
                                           const uint32_t *source_clips, const float *durations,
                                           uint32_t clip_count,
                                           float (*out_strides)[CROWD__GROUND_STRIDE_STEPS + 1],
                                           crowd_error *error) {
    scratch s = {0};
    crowd_result result = scratch_make(allocator, source, drawn, &s, error);
    for (uint32_t i = 0; result == CROWD_OK && i + 1 < clip_count; i++) {
        uint32_t a = source_clips[i], b = source_clips[i + 1];
        bool sourced = a < source->clip_count && b < source->clip_count;
        for (uint32_t k = 0; k <= CROWD__GROUND_STRIDE_STEPS; k++) {
            float w = (float)k / (float)CROWD__GROUND_STRIDE_STEPS;
            crowd_ground_speed g = {0};
            if (sourced) {
                crowd_anim_blend_ground_speed(&source->skeleton, &source->clips[a],
                                              &source->clips[b], w, s.have_feet ? s.feet : NULL,
                                              s.poses, s.models, &g);
            }
            out_strides[i][k] = g.speed * (durations[i] + (durations[i + 1] - durations[i]) * w);
        }
    }
    scratch_free(allocator, &s);
    return result;
}
