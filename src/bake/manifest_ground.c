/* A bake's ground speeds and blend strides for its manifest
 * (manifest_ground.h): copied from a loaded bake that has them, else
 * measured as a world made from the bake measures them (src/gpu/blend.c):
 * on bake->asset's skeleton and the baked clips' source clips, watching
 * the feet of the bake's mesh. */
#include "bake/manifest_ground.h"

#include <string.h>

#include "anim/ground_measure.h"
#include "core/core_internal.h"

static bool all_baked(const crowd_bake *bake) {
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        if (!bake->clips[c].has_ground_speed) {
            return false;
        }
    }
    for (uint32_t b = 0; b < bake->blend_count; b++) {
        if (!bake->blends[b].has_strides) {
            return false;
        }
    }
    return bake->clip_count > 0;
}

static crowd_result measure(const crowd_bake *bake, manifest_ground *g, crowd_error *error) {
    const crowd_allocator *allocator = &bake->allocator;
    const crowd_asset *source = bake->asset;
    uint32_t sources[CROWD_BAKE_BLEND_MAX_CLIPS];
    float durations[CROWD_BAKE_BLEND_MAX_CLIPS];
    uint32_t *clip_sources =
        crowd__mem_alloc_zeroed(allocator, bake->clip_count, sizeof *clip_sources);
    if (clip_sources == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        clip_sources[c] = bake->clips[c].source_clip;
    }
    crowd_result result = crowd__ground_measure_speeds(
        allocator, source, &source->mesh, clip_sources, bake->clip_count, g->speeds, error);
    crowd__mem_free(allocator, clip_sources);
    for (uint32_t b = 0; result == CROWD_OK && b < bake->blend_count; b++) {
        const crowd_bake_blend *blend = &bake->blends[b];
        for (uint32_t i = 0; i < blend->clip_count; i++) {
            sources[i] = bake->clips[blend->clips[i]].source_clip;
            durations[i] = bake->clips[blend->clips[i]].duration_s;
        }
        result = crowd__ground_measure_strides(allocator, source, &source->mesh, sources, durations,
                                               blend->clip_count, g->strides[b], error);
    }
    return result;
}

crowd_result crowd__manifest_ground_measure(const crowd_bake *bake, manifest_ground *out,
                                            crowd_error *error) {
    *out = (manifest_ground){0};
    bool baked = all_baked(bake);
    /* The world's rule (src/gpu/archetype.c): a loaded bake plays its
     * asset's clips only when it holds the runtime clips. */
    bool playable = bake->asset != NULL && (bake->owned_asset == NULL || bake->anim.present);
    if ((!baked && !playable) || bake->clip_count == 0) {
        return CROWD_OK;
    }
    const crowd_allocator *allocator = &bake->allocator;
    out->speeds = crowd__mem_alloc_zeroed(allocator, bake->clip_count, sizeof *out->speeds);
    out->strides = crowd__mem_alloc_zeroed(allocator, bake->blend_count + 1, sizeof *out->strides);
    crowd_result result = CROWD_OK;
    if (out->speeds == NULL || out->strides == NULL) {
        result = crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    } else if (baked) {
        for (uint32_t c = 0; c < bake->clip_count; c++) {
            out->speeds[c] = bake->clips[c].ground_speed;
        }
        for (uint32_t b = 0; b < bake->blend_count; b++) {
            memcpy(out->strides[b], bake->blends[b].strides, sizeof out->strides[b]);
        }
    } else {
        result = measure(bake, out, error);
    }
    if (result != CROWD_OK) {
        crowd__manifest_ground_free(bake, out);
    }
    return result;
}

void crowd__manifest_ground_free(const crowd_bake *bake, manifest_ground *ground) {
    crowd__mem_free(&bake->allocator, ground->speeds);
    crowd__mem_free(&bake->allocator, ground->strides);
    *ground = (manifest_ground){0};
}
