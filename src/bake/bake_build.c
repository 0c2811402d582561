/* crowd_bake_build: checks the request, then clips -> layout -> frames ->
 * clip bounds -> LODs (bake_build.h, bake_lod.h). Nothing here touches the
 * disk. */
#define _POSIX_C_SOURCE 200809L

#include "bake/bake_anim.h"
#include "bake/bake_build.h"
#include "bake/bake_lod.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *source_of(const crowd_asset *asset) {
    return asset->source != NULL ? asset->source : "";
}

static uint32_t max_texture_size(const crowd_bake_desc *desc) {
    return desc->max_texture_size != 0 ? desc->max_texture_size : CROWD_BAKE_MAX_TEXTURE_SIZE;
}

static uint32_t max_width(const crowd_bake_desc *desc) {
    uint32_t size = max_texture_size(desc);
    if (desc->max_width != 0) {
        return desc->max_width;
    }
    return size < CROWD_BAKE_DEFAULT_MAX_WIDTH ? size : CROWD_BAKE_DEFAULT_MAX_WIDTH;
}

static crowd_result check_desc(const crowd_asset *asset, const crowd_bake_desc *desc,
                               crowd_error *error) {
    const char *source = source_of(asset);
    if (desc->fps != 0.0f && !(desc->fps > 0.0f && desc->fps <= 1000.0f)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source,
                               "fps %g is out of range (0, 1000]", (double)desc->fps);
    }
    if (desc->between_error_rel != 0.0 &&
        !(desc->between_error_rel > 0.0 && desc->between_error_rel < 1.0)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source,
                               "between-frame error budget %g is out of range (0, 1)",
                               desc->between_error_rel);
    }
    if (desc->max_texture_size > CROWD_BAKE_MAX_TEXTURE_SIZE) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source,
                               "max texture size %u is out of range [1, %u]",
                               desc->max_texture_size, CROWD_BAKE_MAX_TEXTURE_SIZE);
    }
    uint32_t max_size = max_texture_size(desc);
    if (desc->max_width > max_size) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source,
                               "max width %u is out of range [1, %u]", desc->max_width, max_size);
    }
    if (desc->lods < -1 || desc->lods >= CROWD_BAKE_MAX_LODS) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source,
                               "%d LODs asked for; 0 to %d below LOD 0 (-1 for none)", desc->lods,
                               CROWD_BAKE_MAX_LODS - 1);
    }
    if ((unsigned)desc->what > CROWD_BAKE_BAT_ONLY) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source,
                               "unknown bake selection %d", (int)desc->what);
    }
    if ((unsigned)desc->vat_encoding > CROWD_VAT_F32) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source,
                               "unknown VAT encoding %d", (int)desc->vat_encoding);
    }
    if ((unsigned)desc->root_motion > CROWD_ROOT_MOTION_EXTRACT) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source,
                               "unknown root motion mode %d", (int)desc->root_motion);
    }
    if ((unsigned)desc->bat_encoding > CROWD_BAT_F16) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source,
                               "unknown BAT encoding %d", (int)desc->bat_encoding);
    }
    if (asset->mesh.vertex_count == 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source,
                               "the model has no vertices to bake");
    }
    return CROWD_OK;
}

static crowd_bake *create_bake(const crowd_asset *asset) {
    crowd_bake *bake = calloc(1, sizeof *bake);
    if (bake == NULL) {
        return NULL;
    }
    bake->name = strdup(asset->name != NULL && asset->name[0] != '\0' ? asset->name : "model");
    bake->source = strdup(source_of(asset));
    bake->asset = asset;
    bake->vertex_count = asset->mesh.vertex_count;
    bake->joint_count = asset->skeleton.joint_count;
    if (bake->name == NULL || bake->source == NULL) {
        crowd_bake_destroy(bake);
        return NULL;
    }
    return bake;
}

/* What is computed from the encoded textures (clip bounds and LODs), and
 * the runtime clips with their measured error. */
static crowd_result finish(crowd_bake *bake, const crowd_bake_desc *desc, uint32_t thread_count,
                           crowd_error *error) {
    bake_played played;
    crowd_result result = crowd__bake_played_init(bake, &played, error);
    if (result == CROWD_OK) {
        result = crowd__bake_clip_bounds(bake, &played, thread_count, error);
    }
    if (result == CROWD_OK) {
        uint32_t lods = desc->lods < 0    ? 0u
                        : desc->lods == 0 ? (uint32_t)CROWD_BAKE_DEFAULT_LODS
                                          : (uint32_t)desc->lods;
        result = crowd__bake_build_lods(bake, lods, &played, thread_count, &desc->logger, error);
    }
    crowd__bake_played_release(&played);
    if (result == CROWD_OK) {
        result = crowd__bake_anim_measure(bake, thread_count, &bake->anim, error);
    }
    return result;
}

crowd_result crowd_bake_build(const crowd_asset *asset, const crowd_bake_desc *desc,
                              crowd_bake **out_bake, crowd_error *error) {
    if (out_bake == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "out_bake is NULL");
    }
    *out_bake = NULL;
    if (asset == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "asset is NULL");
    }
    const crowd_bake_desc defaults = {0};
    if (desc == NULL) {
        desc = &defaults;
    }
    crowd_result result = check_desc(asset, desc, error);
    if (result == CROWD_OK) {
        result = crowd_asset_validate(asset, error);
    }
    if (result != CROWD_OK) {
        return result;
    }
    crowd_bake *bake = create_bake(asset);
    if (bake == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    uint64_t total_frames = 0;
    bake_layout_request request = {
        .what = desc->what,
        .max_width = max_width(desc),
        .max_size = max_texture_size(desc),
        .vat_encoding =
            desc->vat_encoding != CROWD_VAT_DEFAULT ? desc->vat_encoding : CROWD_VAT_UNORM16_OCT,
        .bat_encoding =
            desc->bat_encoding != CROWD_BAT_DEFAULT ? desc->bat_encoding : CROWD_BAT_F32,
    };
    result = crowd__bake_select_clips(asset, desc, bake, error);
    if (result == CROWD_OK) {
        result = crowd__bake_extract_root_motion(bake, asset, desc, error);
        /* from here on the bake samples what it plays: the in-place copy */
        asset = bake->asset;
    }
    if (result == CROWD_OK) {
        bake_rate_request rates = {
            .fps = desc->fps,
            .budget_rel = desc->between_error_rel != 0.0 ? desc->between_error_rel
                                                         : CROWD_BAKE_DEFAULT_BETWEEN_ERROR,
            .frames_fit = crowd__bake_frames_fit(bake, &request),
        };
        result = crowd__bake_choose_rates(bake, asset, &rates, desc->thread_count, error);
    }
    if (result == CROWD_OK) {
        total_frames = crowd__bake_place_clips(bake);
        result = crowd__bake_plan_textures(bake, asset, total_frames, &request, error);
    }
    if (result == CROWD_OK) {
        bake_run_options options = {
            .thread_count = crowd__bake_thread_count(desc->thread_count, bake->frame_count),
            .progress = desc->progress,
            .progress_user = desc->progress_user,
        };
        crowd_log(&desc->logger, CROWD_LOG_DEBUG,
                  "baking %u clips, %u frames on %u threads: VAT %ux%u, BAT %ux%u",
                  bake->clip_count, bake->frame_count, options.thread_count,
                  bake->vat_position.width, bake->vat_position.height, bake->bat.width,
                  bake->bat.height);
        result = crowd__bake_run_frames(bake, asset, &options, error);
        if (result == CROWD_OK) {
            result = finish(bake, desc, options.thread_count, error);
        }
    }
    if (result != CROWD_OK) {
        crowd_bake_destroy(bake);
        return result;
    }
    *out_bake = bake;
    return CROWD_OK;
}
