/* 1D blend spaces (crowd/gpu.h "blends"): an archetype's declared blends,
 * each slot's place in one, and speed matching. A blending record plays
 * the segment's lower clip on its own clock at rate * d_main / D and mixes
 * in the upper clip (its partner) at the same phase; the shaders, the
 * cpu/gpu sampler, culling and root motion read the partner from the
 * record's partner words (and partner_clip here). Clips' ground speeds
 * (crowd_anim_clip_ground_speed) are measured once, at the first need. */
#include <math.h>
#include <string.h>

#include "core/core_internal.h"
#include "crowd/bake.h"
#include "gpu/internal.h"

static crowd_result oom(crowd_error *error) {
    return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
}

crowd_result crowd__gpu_blends_reserve(gpu_archetype *r, uint32_t capacity, crowd_error *error) {
    void *p = crowd__mem_grow(&r->world->allocator, r->blends.slots,
                              r->instances.capacity * sizeof *r->blends.slots,
                              capacity * sizeof *r->blends.slots);
    if (p == NULL) {
        return oom(error);
    }
    r->blends.slots = p;
    return CROWD_OK;
}

void crowd__gpu_blends_release(gpu_archetype *r) {
    const crowd_allocator *allocator = &r->world->allocator;
    crowd__mem_free(allocator, r->blends.slots);
    crowd__mem_free(allocator, r->blends.ground_speeds);
    for (uint32_t b = 0; b < r->blends.count; b++) {
        crowd__mem_free(allocator, r->blends.items[b].name);
    }
    crowd__mem_free(allocator, r->blends.items);
    memset(&r->blends, 0, sizeof r->blends);
}

void crowd__gpu_blends_slot_init(gpu_archetype *r, uint32_t slot, float rate) {
    r->blends.slots[slot] = (gpu_blend_slot){.blend = UINT32_MAX,
                                             .rate = rate,
                                             .factor = 1.0f,
                                             .from_factor = 1.0f,
                                             .partner_clip = UINT32_MAX,
                                             .from_partner_clip = UINT32_MAX};
}

void crowd__gpu_blends_slot_clip(gpu_archetype *r, uint32_t slot, float rate) {
    gpu_blend_slot *b = &r->blends.slots[slot];
    r->blends.partnered -= b->partner_clip != UINT32_MAX;
    float from_factor = b->from_factor;
    uint32_t from_partner = b->from_partner_clip;
    crowd__gpu_blends_slot_init(r, slot, rate);
    /* The clip a crossfade leaves keeps its blend until the fade ends. */
    if (r->instances.records[slot].flags & GPU_FLAG_FADE) {
        b->from_factor = from_factor;
        b->from_partner_clip = from_partner;
    }
}

void crowd__gpu_blends_slot_fade(gpu_archetype *r, uint32_t slot) {
    gpu_blend_slot *b = &r->blends.slots[slot];
    b->from_factor = b->factor;
    b->from_partner_clip = b->partner_clip;
}

void crowd__gpu_blends_remove(gpu_archetype *r, uint32_t slot, uint32_t last) {
    r->blends.partnered -= r->blends.slots[slot].partner_clip != UINT32_MAX;
    r->blends.slots[slot] = r->blends.slots[last];
}

void crowd__gpu_blends_clear(gpu_archetype *r) {
    r->blends.partnered = 0;
}

void crowd__gpu_blends_set_rate(gpu_archetype *r, uint32_t slot, float rate) {
    gpu_blend_slot *b = &r->blends.slots[slot];
    gpu_instance_record *rec = &r->instances.records[slot];
    b->rate = rate;
    rec->speed = rate * b->factor;
    if (rec->flags & GPU_FLAG_FADE) {
        rec->from_speed = rate * b->from_factor;
    }
}

const gpu_blend_slot *crowd__gpu_blends_slot(const gpu_archetype *r, uint32_t slot) {
    return &r->blends.slots[slot];
}

void crowd__gpu_record_clear_partner(gpu_instance_record *rec) {
    rec->partner_weight = 0.0f;
    rec->partner_duration_s = 0.0f;
    rec->partner_frames = 0;
    rec->partner_fps_bits = 0;
    rec->flags &= ~(GPU_FLAG_LAYOUT_MASK << GPU_FLAG_PARTNER_LAYOUT_SHIFT);
}

/* ---- ground speeds -------------------------------------------------------- */

/* Every clip's, measured once: on the source skeleton (the asset, or a
 * loaded bake's runtime clips), watching the feet of the drawn mesh. */
static crowd_result measure_ground_speeds(gpu_archetype *r, crowd_error *error) {
    if (r->blends.ground_speeds != NULL) {
        return CROWD_OK;
    }
    if (r->source == NULL) {
        return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, r->name,
                               "no skeleton and clips to measure ground speeds on (a bake "
                               "without runtime clips): give the thresholds");
    }
    const crowd_allocator *allocator = &r->world->allocator;
    const crowd_skeleton *skeleton = &r->source->skeleton;
    uint32_t joints = skeleton->joint_count;
    float *speeds = crowd__mem_alloc_zeroed(allocator, r->clip_count + 1, sizeof *speeds);
    crowd_transform *pose = crowd__mem_alloc(allocator, joints * sizeof *pose);
    float *models = crowd__mem_alloc(allocator, (size_t)joints * 16 * sizeof *models);
    uint8_t *feet = crowd__mem_alloc(allocator, joints);
    crowd_result result = CROWD_OK;
    if (speeds == NULL || pose == NULL || models == NULL || feet == NULL) {
        result = oom(error);
    } else {
        const crowd_mesh *mesh = &r->drawn->mesh;
        bool have_feet = mesh->vertex_count > 0 &&
                         crowd_anim_foot_joints(skeleton, mesh, pose, models, feet) > 0;
        for (uint32_t c = 0; c < r->clip_count; c++) {
            uint32_t source = r->clips[c].source_clip;
            crowd_ground_speed g = {0};
            if (source < r->source->clip_count &&
                crowd_anim_clip_ground_speed(skeleton, &r->source->clips[source],
                                             have_feet ? feet : NULL, pose, models, &g)) {
                speeds[c] = g.speed;
            }
        }
        r->blends.ground_speeds = speeds;
        speeds = NULL;
    }
    crowd__mem_free(allocator, speeds);
    crowd__mem_free(allocator, pose);
    crowd__mem_free(allocator, models);
    crowd__mem_free(allocator, feet);
    return result;
}

/* The blend's strides (gpu_blend.strides), measured on the source
 * skeleton; nothing without one. */
static crowd_result measure_strides(gpu_archetype *r, gpu_blend *b, crowd_error *error) {
    if (r->source == NULL) {
        return CROWD_OK;
    }
    const crowd_allocator *allocator = &r->world->allocator;
    const crowd_skeleton *skeleton = &r->source->skeleton;
    uint32_t joints = skeleton->joint_count;
    crowd_transform *poses = crowd__mem_alloc(allocator, 2 * (size_t)joints * sizeof *poses);
    float *models = crowd__mem_alloc(allocator, (size_t)joints * 16 * sizeof *models);
    uint8_t *feet = crowd__mem_alloc(allocator, joints);
    crowd_result result = CROWD_OK;
    if (poses == NULL || models == NULL || feet == NULL) {
        result = oom(error);
    } else {
        const crowd_mesh *mesh = &r->drawn->mesh;
        bool have_feet = mesh->vertex_count > 0 &&
                         crowd_anim_foot_joints(skeleton, mesh, poses, models, feet) > 0;
        b->has_strides = true;
        for (uint32_t i = 0; i + 1 < b->clip_count; i++) {
            const gpu_clip *a = &r->clips[b->clips[i]], *c = &r->clips[b->clips[i + 1]];
            bool sourced =
                a->source_clip < r->source->clip_count && c->source_clip < r->source->clip_count;
            for (uint32_t k = 0; k <= GPU_BLEND_STRIDE_STEPS; k++) {
                float w = (float)k / (float)GPU_BLEND_STRIDE_STEPS;
                crowd_ground_speed g = {0};
                if (sourced) {
                    crowd_anim_blend_ground_speed(skeleton, &r->source->clips[a->source_clip],
                                                  &r->source->clips[c->source_clip], w,
                                                  have_feet ? feet : NULL, poses, models, &g);
                }
                b->strides[i][k] = g.speed * (a->duration_s + (c->duration_s - a->duration_s) * w);
            }
        }
    }
    crowd__mem_free(allocator, poses);
    crowd__mem_free(allocator, models);
    crowd__mem_free(allocator, feet);
    return result;
}

float crowd_archetype_clip_ground_speed(const crowd_world *world, crowd_archetype archetype,
                                        uint32_t clip) {
    gpu_archetype *r = crowd__gpu_world_archetype(world, archetype);
    if (r == NULL || clip >= r->clip_count || measure_ground_speeds(r, NULL) != CROWD_OK) {
        return 0.0f;
    }
    return r->blends.ground_speeds[clip];
}

/* ---- declaring ------------------------------------------------------------ */

/* Declares `desc` on r (checked), its index + 1 into *out_index. */
static crowd_result add_blend(gpu_archetype *r, const crowd_blend_desc *desc, uint32_t *out_index,
                              crowd_error *error) {
    crowd_result result = CROWD_OK;
    if (desc == NULL || desc->clips == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                               "blend: desc or its clips is NULL");
    }
    if (desc->clip_count < 2 || desc->clip_count > CROWD_BLEND_MAX_CLIPS) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                               "blend: %u clips (2 to %u)", (unsigned)desc->clip_count,
                               (unsigned)CROWD_BLEND_MAX_CLIPS);
    }
    if (r->blends.count == CROWD_ARCHETYPE_MAX_BLENDS) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, r->name, "more than %u blends",
                               (unsigned)CROWD_ARCHETYPE_MAX_BLENDS);
    }
    gpu_blend blend = {.clip_count = desc->clip_count};
    for (uint32_t i = 0; i < desc->clip_count; i++) {
        if (desc->clips[i] >= r->clip_count) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                                   "blend: clip %u (entry %u) out of range (%u clips)",
                                   (unsigned)desc->clips[i], (unsigned)i, (unsigned)r->clip_count);
        }
        blend.clips[i] = desc->clips[i];
    }
    if (desc->thresholds == NULL) {
        result = measure_ground_speeds(r, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    for (uint32_t i = 0; i < desc->clip_count; i++) {
        float t = desc->thresholds != NULL ? desc->thresholds[i]
                                           : r->blends.ground_speeds[blend.clips[i]];
        if (!isfinite(t) || (i > 0 && !(t > blend.thresholds[i - 1]))) {
            return crowd_error_set(
                error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                "blend: threshold %u (%g%s) is not finite or not above the one before", (unsigned)i,
                (double)t, desc->thresholds != NULL ? "" : " m/s, a ground speed");
        }
        blend.thresholds[i] = t;
    }
    result = measure_strides(r, &blend, error);
    if (result != CROWD_OK) {
        return result;
    }
    uint32_t count = r->blends.count;
    gpu_blend *items = crowd__mem_grow(&r->world->allocator, r->blends.items, count * sizeof *items,
                                       (count + 1) * sizeof *items);
    if (items == NULL) {
        return oom(error);
    }
    r->blends.items = items;
    if (desc->name != NULL) {
        blend.name = crowd__gpu_copy_string(r->world, desc->name);
        if (blend.name == NULL) {
            return oom(error);
        }
    }
    r->blends.items[r->blends.count++] = blend;
    *out_index = r->blends.count;
    return CROWD_OK;
}

crowd_result crowd_archetype_add_blend(crowd_world *world, crowd_archetype archetype,
                                       const crowd_blend_desc *desc, crowd_blend *out_blend,
                                       crowd_error *error) {
    gpu_archetype *r = NULL;
    crowd_result result = crowd__gpu_world_find_archetype(world, archetype, &r, error);
    if (result == CROWD_OK && out_blend == NULL) {
        result = crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, r->name,
                                 "blend: out_blend is NULL");
    }
    uint32_t index = 0;
    if (result == CROWD_OK) {
        result = add_blend(r, desc, &index, error);
    }
    if (result == CROWD_OK) {
        *out_blend = (crowd_blend){.archetype = r->handle, .index = index};
    }
    return result;
}

crowd_result crowd__gpu_blends_declare_baked(gpu_archetype *r, crowd_error *error) {
    for (uint32_t b = 0; r->bake != NULL && b < r->bake->blend_count; b++) {
        const crowd_bake_blend *baked = &r->bake->blends[b];
        crowd_blend_desc desc = {.name = baked->name,
                                 .clip_count = baked->clip_count,
                                 .clips = baked->clips,
                                 .thresholds = baked->has_thresholds ? baked->thresholds : NULL};
        uint32_t index = 0;
        crowd_result result = add_blend(r, &desc, &index, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

bool crowd_archetype_find_blend(const crowd_world *world, crowd_archetype archetype,
                                const char *name, crowd_blend *out_blend) {
    gpu_archetype *r = crowd__gpu_world_archetype(world, archetype);
    for (uint32_t b = 0; r != NULL && name != NULL && b < r->blends.count; b++) {
        if (r->blends.items[b].name != NULL && strcmp(r->blends.items[b].name, name) == 0) {
            if (out_blend != NULL) {
                *out_blend = (crowd_blend){.archetype = r->handle, .index = b + 1};
            }
            return true;
        }
    }
    return false;
}

uint32_t crowd_archetype_blend_count(const crowd_world *world, crowd_archetype archetype) {
    gpu_archetype *r = crowd__gpu_world_archetype(world, archetype);
    return r != NULL ? r->blends.count : 0;
}

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
    gpu_instance_record *rec = &r->instances.records[slot];
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
    rec->start_s = (float)r->world->clock_s;
    rec->offset_s = phase * d_main;
    rec->speed = rate * state->factor;
}

/* The slot's phase now: its clip's time over its duration. */
static float phase_now(const gpu_archetype *r, uint32_t slot) {
    const gpu_instance_record *rec = &r->instances.records[slot];
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
