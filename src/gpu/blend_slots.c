/* Each slot's place in a blend (gpu_blend_slot, src/gpu/internal.h): kept
 * beside the records, moved with them on removal, and the record's partner
 * words cleared when a slot leaves its blend. */
#include <string.h>

#include "core/core_internal.h"
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
    if (r->instances.states[slot].flags & GPU_FLAG_FADE) {
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
    gpu_instance_state *rec = &r->instances.states[slot];
    b->rate = rate;
    rec->speed = rate * b->factor;
    if (rec->flags & GPU_FLAG_FADE) {
        rec->from_speed = rate * b->from_factor;
    }
}

const gpu_blend_slot *crowd__gpu_blends_slot(const gpu_archetype *r, uint32_t slot) {
    return &r->blends.slots[slot];
}

void crowd__gpu_record_clear_partner(gpu_instance_state *rec) {
    rec->partner_weight = 0.0f;
    rec->partner_duration_s = 0.0f;
    rec->partner_frames = 0;
    rec->partner_fps_bits = 0;
    rec->flags &= ~(GPU_FLAG_LAYOUT_MASK << GPU_FLAG_PARTNER_LAYOUT_SHIFT);
}
