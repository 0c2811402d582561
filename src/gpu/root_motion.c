/* crowd_instance_root_motion (crowd/gpu.h): the motion of an instance's
 * clip between two clock times, from the bake's curve
 * (crowd_anim_root_motion_delta) and the instance's record: its clock
 * (start, offset, speed: crowd_anim_play_unwrapped), its loop mode, its
 * heading and scale. CPU only, no GL call, nothing written to the world. */
#include "gpu/internal.h"

crowd_result crowd_instance_root_motion(crowd_world *world, crowd_instance instance, double from_s,
                                        double to_s, float out_delta_position[3],
                                        float *out_delta_heading, crowd_error *error) {
    gpu_archetype *r = NULL;
    uint32_t slot = 0;
    crowd_result result = crowd__gpu_world_find_instance(world, instance, &r, &slot, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (out_delta_position == NULL || out_delta_heading == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                               "out_delta_position or out_delta_heading is NULL");
    }
    const gpu_instance_state *rec = &r->instances.states[slot];
    const crowd_bake_clip *baked =
        r->bake != NULL && rec->clip < r->bake->clip_count ? &r->bake->clips[rec->clip] : NULL;
    if (baked == NULL || baked->root_motion.sample_count == 0) {
        return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, r->name,
                               "clip %u has no root motion (bake it with --root-motion extract)",
                               (unsigned)rec->clip);
    }
    const gpu_clip *clip = &r->clips[rec->clip];
    bool loop = crowd__gpu_clip_loops(clip, rec->flags & GPU_FLAG_LOOP_MASK);
    float from_t =
        crowd_anim_play_unwrapped((float)from_s, rec->start_s, rec->offset_s, rec->speed);
    float to_t = crowd_anim_play_unwrapped((float)to_s, rec->start_s, rec->offset_s, rec->speed);
    float local[3], turn = 0.0f;
    if (!crowd_anim_root_motion_delta(&baked->root_motion, clip->duration_s, loop, from_t, to_t,
                                      local, &turn)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                               "root motion between %g and %g s: a time is not finite", from_s,
                               to_s);
    }
    /* A blend: the partner's motion at the same phase, mixed in by its
     * weight (a partner without root motion adds none). */
    const gpu_blend_slot *blend = crowd__gpu_blends_slot(r, slot);
    if (blend->partner_clip < r->clip_count && rec->partner_weight > 0.0f &&
        clip->duration_s > 0.0f) {
        const gpu_clip *partner = &r->clips[blend->partner_clip];
        const crowd_bake_clip *partner_baked = &r->bake->clips[blend->partner_clip];
        float k = partner->duration_s / clip->duration_s, partner_local[3] = {0}, partner_turn = 0;
        if (partner_baked->root_motion.sample_count > 0) {
            crowd_anim_root_motion_delta(&partner_baked->root_motion, partner->duration_s, loop,
                                         from_t * k, to_t * k, partner_local, &partner_turn);
        }
        float w = rec->partner_weight;
        for (int a = 0; a < 3; a++) {
            local[a] += (partner_local[a] - local[a]) * w;
        }
        turn += (partner_turn - turn) * w;
    }
    /* into the world as the instance is placed: R_y(heading) * scale */
    float c = rec->cos_heading, s = rec->sin_heading, k = rec->scale;
    out_delta_position[0] = k * (c * local[0] + s * local[2]);
    out_delta_position[1] = 0.0f;
    out_delta_position[2] = k * (-s * local[0] + c * local[2]);
    *out_delta_heading = turn;
    return CROWD_OK;
}
