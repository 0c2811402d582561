/* 1D blend spaces (crowd/gpu.h "blends"): an archetype's declared blends
 * and what speed matching needs of them, measured once
 * (anim/ground_measure.h) or read from a loaded bake: every clip's ground
 * speed at the first need, and each segment's stride on the phase-locked
 * blend when a blend is declared.
 * Playing them is blend_play.c; each slot's state blend_slots.c. */
#include <math.h>
#include <string.h>

#include "anim/ground_measure.h"
#include "core/core_internal.h"
#include "crowd/bake.h"
#include "gpu/internal.h"

static crowd_result oom(crowd_error *error) {
    return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
}

/* ---- ground speeds -------------------------------------------------------- */

/* Every clip's, once: a loaded bake's as written at bake time (every clip
 * has one), else measured on the source skeleton (the asset, or a loaded
 * bake's runtime clips), watching the feet of the drawn mesh. */
crowd_result crowd__gpu_blends_measure(gpu_archetype *r, crowd_error *error) {
    if (r->blends.ground_speeds != NULL) {
        return CROWD_OK;
    }
    bool baked = r->bake != NULL && r->bake->clip_count == r->clip_count;
    for (uint32_t c = 0; baked && c < r->clip_count; c++) {
        baked = r->bake->clips[c].has_ground_speed;
    }
    if (!baked && r->source == NULL) {
        return crowd_error_set(error, CROWD_ERROR_UNSUPPORTED, r->name,
                               "no skeleton and clips to measure ground speeds on (a bake "
                               "without runtime clips): give the thresholds");
    }
    const crowd_allocator *allocator = &r->world->allocator;
    float *speeds = crowd__mem_alloc_zeroed(allocator, r->clip_count + 1, sizeof *speeds);
    uint32_t *sources = crowd__mem_alloc_zeroed(allocator, r->clip_count + 1, sizeof *sources);
    crowd_result result = CROWD_OK;
    if (speeds == NULL || sources == NULL) {
        result = oom(error);
    } else if (baked) {
        for (uint32_t c = 0; c < r->clip_count; c++) {
            speeds[c] = r->bake->clips[c].ground_speed;
        }
    } else {
        for (uint32_t c = 0; c < r->clip_count; c++) {
            sources[c] = r->clips[c].source_clip;
        }
        result = crowd__ground_measure_speeds(allocator, r->source, &r->drawn->mesh, sources,
                                              r->clip_count, speeds, error);
    }
    if (result == CROWD_OK) {
        r->blends.ground_speeds = speeds;
        speeds = NULL;
    }
    crowd__mem_free(allocator, speeds);
    crowd__mem_free(allocator, sources);
    return result;
}

/* The blend's strides (gpu_blend.strides): a loaded bake's as written
 * (`baked`, NULL for a blend declared at run time), else measured on the
 * source skeleton; nothing without one. */
static crowd_result measure_strides(gpu_archetype *r, gpu_blend *b, const crowd_bake_blend *baked,
                                    crowd_error *error) {
    if (baked != NULL && baked->has_strides) {
        memcpy(b->strides, baked->strides, sizeof b->strides);
        b->has_strides = true;
        return CROWD_OK;
    }
    if (r->source == NULL) {
        return CROWD_OK;
    }
    uint32_t sources[CROWD_BLEND_MAX_CLIPS];
    float durations[CROWD_BLEND_MAX_CLIPS];
    for (uint32_t i = 0; i < b->clip_count; i++) {
        sources[i] = r->clips[b->clips[i]].source_clip;
        durations[i] = r->clips[b->clips[i]].duration_s;
    }
    crowd_result result =
        crowd__ground_measure_strides(&r->world->allocator, r->source, &r->drawn->mesh, sources,
                                      durations, b->clip_count, b->strides, error);
    b->has_strides = result == CROWD_OK;
    return result;
}

float crowd_archetype_clip_ground_speed(const crowd_world *world, crowd_archetype archetype,
                                        uint32_t clip) {
    gpu_archetype *r = crowd__gpu_world_archetype(world, archetype);
    if (r == NULL || clip >= r->clip_count || crowd__gpu_blends_measure(r, NULL) != CROWD_OK) {
        return 0.0f;
    }
    return r->blends.ground_speeds[clip];
}

/* ---- declaring ------------------------------------------------------------ */

/* Declares `desc` on r (checked), its index + 1 into *out_index. */
static crowd_result add_blend(gpu_archetype *r, const crowd_blend_desc *desc,
                              const crowd_bake_blend *baked, uint32_t *out_index,
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
        result = crowd__gpu_blends_measure(r, error);
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
    result = measure_strides(r, &blend, baked, error);
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
        result = add_blend(r, desc, NULL, &index, error);
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
        crowd_result result = add_blend(r, &desc, baked, &index, error);
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
