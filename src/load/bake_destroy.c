/* Releases a bake, built or loaded alike (ownership rule in bake_internal.h). */
#include "load/bake_internal.h"

#include "core/core_internal.h"

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
    }
    crowd__mem_free(&allocator, bake->clips);
    for (uint32_t i = 0; i < bake->event_count && bake->events != NULL; i++) {
        crowd__mem_free(&allocator, bake->events[i].name);
    }
    crowd__mem_free(&allocator, bake->events);
    crowd__mem_free(&allocator, bake->vat_position.texels);
    crowd__mem_free(&allocator, bake->vat_normal.texels);
    crowd__mem_free(&allocator, bake->bat.texels);
    crowd__mem_free(&allocator, bake->lod_vertices);
    crowd__mem_free(&allocator, bake->lod_indices);
    crowd_asset_destroy(bake->owned_asset);
    crowd__mem_free(&allocator, bake);
}
