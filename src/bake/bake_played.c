/* Positions as a bake plays them (bake_build.h): what the clip bounds and
 * the LOD errors are measured on, so that they hold for the data a player
 * reads rather than for the float skinning it was encoded from. */
#include "bake/bake_build.h"

crowd_result crowd__bake_played_init(const crowd_bake *bake, bake_played *out_played,
                                     crowd_error *error) {
    *out_played = (bake_played){.bake = bake};
    if (bake->vat_position.texels != NULL) {
        return CROWD_OK;
    }
    return crowd_skin_prepared_create(&bake->asset->mesh, &out_played->prepared, error);
}

void crowd__bake_played_release(bake_played *played) {
    crowd_skin_prepared_destroy(played->prepared);
    played->prepared = NULL;
}

void crowd__bake_played_positions(const bake_played *played, uint32_t frame, float *skin,
                                  float *out_positions) {
    const crowd_bake *bake = played->bake;
    if (played->prepared == NULL) {
        for (uint32_t v = 0; v < bake->vertex_count; v++) {
            crowd_bake_vat_fetch(bake, frame, v, out_positions + 3 * (size_t)v, NULL);
        }
        return;
    }
    for (uint32_t j = 0; j < bake->joint_count; j++) {
        crowd_bake_bat_fetch(bake, frame, j, skin + 12 * (size_t)j);
    }
    crowd_skin_apply(played->prepared, skin, out_positions, NULL);
}
