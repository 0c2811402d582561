/* builtin.c - crowd_builtin_create(): assembles the built-in character from
 * its skeleton, body, materials, clips and sockets. */
#include "crowd/builtin.h"

#include <stdlib.h>
#include <string.h>

#include "builtin/builtin_internal.h"
#include "core/core_internal.h"

/* Base colours are linear: sRGB (224, 172, 140) skin, (200, 60, 50) shirt,
 * (50, 70, 110) trousers. */
static bool fill_materials(crowd_asset *asset) {
    static const struct {
        const char *name;
        float color[4];
    } defs[BM_COUNT] = {
        [BM_SKIN] = {"skin", {0.745f, 0.413f, 0.262f, 1.0f}},
        [BM_SHIRT] = {"shirt", {0.578f, 0.045f, 0.032f, 1.0f}},
        [BM_TROUSERS] = {"trousers", {0.032f, 0.061f, 0.155f, 1.0f}},
    };
    asset->materials = calloc(BM_COUNT, sizeof *asset->materials);
    if (asset->materials == NULL) {
        return false;
    }
    asset->material_count = BM_COUNT;
    for (uint32_t m = 0; m < BM_COUNT; m++) {
        asset->materials[m].name = crowd__core_copy_string(defs[m].name);
        if (asset->materials[m].name == NULL) {
            return false;
        }
        /* Cloth and skin: dielectric and rough, shaded as crowd always shaded them. */
        crowd__core_material_defaults(&asset->materials[m]);
        asset->materials[m].metallic = 0.0f;
        memcpy(asset->materials[m].base_color, defs[m].color, sizeof defs[m].color);
    }
    return true;
}

/* socket_hand_R: in the right palm, 9 cm down the hand, turned so a prop
 * modelled along +Y (a sword, a torch) points forward (+Z) out of the fist.
 * socket_hand_L: its mirror image in the left palm (a shield). socket_head:
 * on top of the head, for hats. */
static bool fill_sockets(crowd_asset *asset) {
    asset->sockets = calloc(3, sizeof *asset->sockets);
    if (asset->sockets == NULL) {
        return false;
    }
    asset->socket_count = 3;
    crowd_socket *hand = &asset->sockets[0];
    hand->name = crowd__core_copy_string("socket_hand_R");
    hand->joint = BJ_HAND_R;
    /* Rotation of +90 degrees about X (column-major): Y -> Z, Z -> -Y. */
    const float hand_offset[16] = {1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, -0.0094f, -0.0895f, 0, 1};
    memcpy(hand->offset, hand_offset, sizeof hand_offset);
    crowd_socket *head = &asset->sockets[1];
    head->name = crowd__core_copy_string("socket_head");
    head->joint = BJ_HEAD;
    const float head_offset[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0.21f, 0.005f, 1};
    memcpy(head->offset, head_offset, sizeof head_offset);
    crowd_socket *left = &asset->sockets[2];
    left->name = crowd__core_copy_string("socket_hand_L");
    left->joint = BJ_HAND_L;
    const float left_offset[16] = {1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0.0094f, -0.0895f, 0, 1};
    memcpy(left->offset, left_offset, sizeof left_offset);
    return hand->name && head->name && left->name;
}

static bool fill_clips(crowd_asset *asset) {
    asset->clips = calloc(crowd__builtin_clip_spec_count, sizeof *asset->clips);
    if (asset->clips == NULL) {
        return false;
    }
    asset->clip_count = crowd__builtin_clip_spec_count;
    for (uint32_t c = 0; c < crowd__builtin_clip_spec_count; c++) {
        if (!crowd__builtin_clip_fill(&crowd__builtin_clip_specs[c], &asset->clips[c])) {
            return false;
        }
    }
    return true;
}

crowd_result crowd_builtin_create(crowd_asset **out_asset, crowd_error *error) {
    *out_asset = NULL;
    crowd_asset *asset = crowd_asset_create();
    if (asset == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY,
                               "builtin:", "out of memory building the built-in character");
    }
    asset->name = crowd__core_copy_string("builtin");
    asset->source = crowd__core_copy_string("builtin:");
    asset->source_mesh_count = 1;
    asset->has_skin = true;
    /* The skeleton goes first: destroy() sizes the clips' track arrays by it. */
    bool ok = asset->name && asset->source && crowd__builtin_skeleton_fill(&asset->skeleton) &&
              fill_materials(asset) && crowd__builtin_body_fill(&asset->mesh) &&
              fill_clips(asset) && fill_sockets(asset);
    if (!ok) {
        crowd_asset_destroy(asset);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY,
                               "builtin:", "out of memory building the built-in character");
    }
    *out_asset = asset;
    return CROWD_OK;
}
