/* Releases a bake, built or loaded alike (ownership rule in bake_internal.h). */
#include "load/bake_internal.h"

#include <stdlib.h>

void crowd_bake_destroy(crowd_bake *bake) {
    if (bake == NULL) {
        return;
    }
    free(bake->name);
    free(bake->source);
    for (uint32_t i = 0; i < bake->clip_count && bake->clips != NULL; i++) {
        free(bake->clips[i].name);
    }
    free(bake->clips);
    free(bake->vat_position.texels);
    free(bake->vat_normal.texels);
    free(bake->bat.texels);
    free(bake->lod_vertices);
    free(bake->lod_indices);
    crowd_asset_destroy(bake->owned_asset);
    free(bake);
}
