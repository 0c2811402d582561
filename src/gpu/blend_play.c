/* Playing a blend (crowd/gpu.h "blends"): a blending record plays the
 * segment's lower clip on its own clock at rate * d_main / D and mixes in
 * the upper clip (its partner) at the same phase; the shaders, the cpu/gpu
 * sampler, culling and root motion read the partner from the record's
 * partner words (and the slot's partner_clip). A change of parameter or
 * speed re-anchors the clock at the world's, phase kept: one write. */
#include <math.h>
#include <string.h>

#include "core/core_internal.h"
#include "crowd/bake.h"
#include "gpu/internal.h"

/* ---- playing ------------------------------------------------------------- */

/* The segment of parameter p: its lower clip (entry `main`), the upper
 * (partner, UINT32_MAX when p is outside the thresholds or on one) and
 * the upper's weight. */
typedef struct blend_segment {
    uint32_t main, partner;
    float weight;
} blend_segment;

static blend_segment segment_of(const gpu_blend *b, float p) {
    uint32_t last = b->clip_count - 1;
    if (!(p > b->thresholds[0])) {
        return (blend_segment){0, UINT32_MAX, 0.0f};
    }
    if (p >= b->thresholds[last]) {
        return (blend_segment){last, UINT32_MAX, 0.0f};
    }
    uint32_t i = 0;
    while (p >= b->thresholds[i + 1]) {
        i++;
    }
    float w = (p - b->thresholds[i]) / (b->thresholds[i + 1] - b->thresholds[i]);
    return w > 0.0f ? (blend_segment){i, i + 1, w} : (blend_segment){i, UINT32_MAX, 0.0f};
}

static float lerp(float a, float b, float w) {
    return a + (b - a) * w;
}

/* Puts the slot on blend `index` at parameter p, phase (0..1 of the cycle)
 * and rate, re-anchored at the world's clock: the record's clip and
 * partner words, the slot's state. Writes nothing to the GPU. */
static void apply(gpu_archetype *r, uint32_t slot, uint32_t index, float p, float phase,
                  float rate) {
    const gpu_blend *b = &r->blends.items[index];
    blend_segment seg = segment_of(b, p);
    gpu_instance_state *rec = &r->instances.states[slot];
    gpu_blend_slot *state = &r->blends.slots[slot];
    uint32_t main = b->clips[seg.main];
    if (r->source != NULL && rec->clip != main) {
        crowd__gpu_pose_reset_cursor(r, slot, 0);
    }
    crowd__gpu_record_set_clip(r, rec, main);
    crowd__gpu_record_clear_partner(rec);
    const gpu_clip *a = &r->clips[main];
    float d_main = a->duration_s, d_partner = d_main;
    uint32_t partner = UINT32_MAX;
    if (seg.partner != UINT32_MAX) {
        partner = b->clips[seg.partner];
        const gpu_clip *c = &r->clips[partner];
        d_partner = c->duration_s;
        rec->partner_weight = seg.weight;
        rec->partner_duration_s = d_partner;
        rec->partner_frames = gpu_frames(c->first_frame, c->frame_count);
        memcpy(&rec->partner_fps_bits, &c->fps, sizeof c->fps);
        rec->flags |= (uint32_t)c->layout << GPU_FLAG_PARTNER_LAYOUT_SHIFT;
    }
    float cycle = lerp(d_main, d_partner, seg.weight);
    r->blends.partnered += (partner != UINT32_MAX) - (state->partner_clip != UINT32_MAX);
    state->blend = index;
    state->parameter = p;
    state->rate = rate;
    state->factor = cycle > 0.0f ? d_main / cycle : 1.0f;
    state->partner_clip = partner;
    rec->start_s = r->world->clock_s;
    rec->offset_s = phase * d_main;
    rec->speed = rate * state->factor;
}

/* The slot's phase now: its clip's time over its duration. */
static float phase_now(const gpu_archetype *r, uint32_t slot) {
    const gpu_instance_state *rec = &r->instances.states[slot];
    const gpu_clip *c = &r->clips[rec->clip];
    float t = crowd__gpu_clip_time(c, rec->flags & GPU_FLAG_LOOP_MASK, (float)r->world->clock_s,
                                   rec->start_s, rec->offset_s, rec->speed);
    return c->duration_s > 0.0f ? t / c->duration_s : 0.0f;
}

static crowd_result find_blend(const gpu_archetype *r, crowd_blend blend, crowd_error *error) {
    if (blend.archetype != r->handle) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                               "blend %u belongs to archetype %u, not this instance's (%u)",
                               (unsigned)blend.index, (unsigned)blend.archetype,
                               (unsigned)r->handle);
    }
    if (blend.index == 0 || blend.index > r->blends.count) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                               "blend %u not declared (%u blends)", (unsigned)blend.index,
                               (unsigned)r->blends.count);
    }
    return CROWD_OK;
}

crowd_result crowd_instance_play_blend(crowd_world *world, crowd_instance instance,
                                       crowd_blend blend, float parameter, float crossfade_s,
                                       crowd_error *error) {
    gpu_archetype *r = NULL;
    uint32_t slot = 0;
    crowd_result result = crowd__gpu_world_find_instance(world, instance, &r, &slot, error);
    if (result == CROWD_OK) {
        result = find_blend(r, blend, error);
    }
    if (result == CROWD_OK && !isfinite(parameter)) {
        result = crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                                 "blend parameter %g is not finite", (double)parameter);
    }
    if (result != CROWD_OK) {
        return result;
    }
    const gpu_blend *b = &r->blends.items[blend.index - 1];
    /* Start the main clip as play does (fade, events, pose), then lay the
     * blend over it: one record write. */
    result = crowd__gpu_instance_start(r, slot, b->clips[segment_of(b, parameter).main],
                                       crossfade_s, error);
    if (result != CROWD_OK) {
        return result;
    }
    apply(r, slot, blend.index - 1, parameter, 0.0f, r->blends.slots[slot].rate);
    crowd__gpu_instance_write(r, slot);
    return CROWD_OK;
}

/* Re-anchors a blending slot at parameter p and rate (phase kept). */
static crowd_result move_along(gpu_archetype *r, uint32_t slot, float p, float rate,
                               crowd_error *error) {
    crowd_result result = crowd__gpu_events_settle(r, slot, error);
    if (result != CROWD_OK) {
        return result;
    }
    float phase = phase_now(r, slot);
    apply(r, slot, r->blends.slots[slot].blend, p, phase, rate);
    crowd__gpu_events_start(r, slot, GPU_EVENT_START_CONTINUE);
    crowd__gpu_instance_write(r, slot);
    return CROWD_OK;
}

static crowd_result find_blending(const crowd_world *world, crowd_instance instance, float value,
                                  gpu_archetype **out, uint32_t *out_slot, crowd_error *error) {
    crowd_result result = crowd__gpu_world_find_instance(world, instance, out, out_slot, error);
    if (result != CROWD_OK) {
        return result;
    }
    if ((*out)->blends.slots[*out_slot].blend == UINT32_MAX) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, (*out)->name,
                               "the instance plays no blend (crowd_instance_play_blend)");
    }
    if (!isfinite(value)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, (*out)->name,
                               "blend parameter %g is not finite", (double)value);
    }
    return CROWD_OK;
}

crowd_result crowd_instance_set_blend_parameter(crowd_world *world, crowd_instance instance,
                                                float parameter, crowd_error *error) {
    gpu_archetype *r = NULL;
    uint32_t slot = 0;
    crowd_result result = find_blending(world, instance, parameter, &r, &slot, error);
    if (result != CROWD_OK) {
        return result;
    }
    return move_along(r, slot, parameter, r->blends.slots[slot].rate, error);
}

crowd_result crowd_instance_set_ground_speed(crowd_world *world, crowd_instance instance,
                                             float speed_mps, crowd_error *error) {
    gpu_archetype *r = NULL;
    uint32_t slot = 0;
    crowd_result result = find_blending(world, instance, speed_mps, &r, &slot, error);
    if (result == CROWD_OK && speed_mps < 0.0f) {
        result = crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                                 "ground speed %g is negative", (double)speed_mps);
    }
    const gpu_blend *b = result == CROWD_OK ? &r->blends.items[r->blends.slots[slot].blend] : NULL;
    if (result == CROWD_OK && !b->has_strides) {
        result = crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, r->name,
                                 "no skeleton and clips to match ground speed on (a bake "
                                 "without runtime clips)");
    }
    if (result != CROWD_OK) {
        return result;
    }
    blend_segment seg = segment_of(b, speed_mps);
    uint32_t main = b->clips[seg.main];
    uint32_t partner = seg.partner != UINT32_MAX ? b->clips[seg.partner] : main;
    /* The stride (how far the planted foot goes in one cycle) at this
     * weight, between the measured ones; outside the thresholds the end
     * clip's own. */
    uint32_t segment = seg.main < b->clip_count - 1 ? seg.main : seg.main - 1;
    float at = seg.main < b->clip_count - 1 ? seg.weight * (float)GPU_BLEND_STRIDE_STEPS
                                            : (float)GPU_BLEND_STRIDE_STEPS;
    uint32_t k = (uint32_t)at < GPU_BLEND_STRIDE_STEPS ? (uint32_t)at : GPU_BLEND_STRIDE_STEPS - 1;
    float stride = lerp(b->strides[segment][k], b->strides[segment][k + 1], at - (float)k);
    float cycle = lerp(r->clips[main].duration_s, r->clips[partner].duration_s, seg.weight);
    float rate = stride > 0.0f ? speed_mps * cycle / stride : 1.0f;
    return move_along(r, slot, speed_mps, rate, error);
}

bool crowd_instance_get_blend(const crowd_world *world, crowd_instance instance,
                              crowd_blend *out_blend, float *out_parameter) {
    gpu_archetype *r = NULL;
    uint32_t slot = 0;
    if (crowd__gpu_world_find_instance(world, instance, &r, &slot, NULL) != CROWD_OK ||
        r->blends.slots[slot].blend == UINT32_MAX) {
        return false;
    }
    if (out_blend != NULL) {
        *out_blend = (crowd_blend){r->handle, r->blends.slots[slot].blend + 1};
    }
    if (out_parameter != NULL) {
        *out_parameter = r->blends.slots[slot].parameter;
    }
    return true;
}
