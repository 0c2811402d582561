/* Releases a bake, built or loaded alike (ownership rule in bake_internal.h). */
#include "load/bake_internal.h"

#include "core/core_internal.h"

/* A built bake's in-place copy (crowd_bake.in_place_asset): its clips, their
 * track arrays and the root joint's translation and rotation keys. */
static void destroy_in_place(const crowd_allocator *allocator, crowd_asset *copy, uint32_t joint) {
    if (copy == NULL) {
        return;
    }
    for (uint32_t c = 0; copy->clips != NULL && c < copy->clip_count; c++) {
        crowd_joint_tracks *tracks = copy->clips[c].tracks;
        if (tracks != NULL) {
            crowd__mem_free(allocator, tracks[joint].translation.times_s);
            crowd__mem_free(allocator, tracks[joint].translation.values);
            crowd__mem_free(allocator, tracks[joint].rotation.times_s);
            crowd__mem_free(allocator, tracks[joint].rotation.values);
        }
        crowd__mem_free(allocator, tracks);
    }
    crowd__mem_free(allocator, copy->clips);
    crowd__mem_free(allocator, copy);
}

void crowd_bake_destroy(crowd_bake *bake) {
    if (bake == NULL) {
        return;
    }
    /* a copy: the last block returned is the struct that holds it */
    const crowd_allocator allocator = bake->allocator;
    crowd__mem_free(&allocator, bake->name);
    crowd__mem_free(&allocator, bake->source);
    for (uint32_t i = 0; i < bake->clip_count && bake->clips != NULL; i++) {
        crowd__mem_free(&allocator, bake->clips[i].name);
        crowd__mem_free(&allocator, bake->clips[i].root_motion.times_s);
        crowd__mem_free(&allocator, bake->clips[i].root_motion.samples);
    }
    crowd__mem_free(&allocator, bake->clips);
    for (uint32_t i = 0; i < bake->event_count && bake->events != NULL; i++) {
        crowd__mem_free(&allocator, bake->events[i].name);
    }
    crowd__mem_free(&allocator, bake->events);
    for (uint32_t i = 0; i < bake->blend_count && bake->blends != NULL; i++) {
        crowd__mem_free(&allocator, bake->blends[i].name);
    }
    crowd__mem_free(&allocator, bake->blends);
    crowd__mem_free(&allocator, bake->vat_position.texels);
    crowd__mem_free(&allocator, bake->vat_normal.texels);
    crowd__mem_free(&allocator, bake->bat.texels);
    crowd__mem_free(&allocator, bake->socket_tracks.texels);
    crowd__mem_free(&allocator, bake->lod_vertices);
    crowd__mem_free(&allocator, bake->lod_indices);
    crowd_asset_destroy(bake->owned_asset);
    destroy_in_place(&allocator, bake->in_place_asset, bake->in_place_joint);
    crowd__mem_free(&allocator, bake);
}
