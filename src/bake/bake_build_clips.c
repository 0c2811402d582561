/* Which clips a bake holds, in which order, and looping or not (their
 * rates and frames are bake_build_rate.c's). */
#define _POSIX_C_SOURCE 200809L

#include "bake/bake_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source_of(const crowd_asset *asset) {
    return asset->source != NULL ? asset->source : "";
}

/* "a, b, c" of the asset's clip names, shortened to fit `size`. */
static void list_clip_names(const crowd_asset *asset, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < asset->clip_count; i++) {
        int n = snprintf(out + used, size - used, "%s%s", i ? ", " : "", asset->clips[i].name);
        if (n < 0 || (size_t)n >= size - used) {
            if (size > 4) {
                memcpy(out + size - 4, "...", 4);
            }
            return;
        }
        used += (size_t)n;
    }
}

static crowd_result unknown_clip(const crowd_asset *asset, const char *name, const char *what,
                                 crowd_error *error) {
    if (asset->clip_count == 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source_of(asset),
                               "%s '%s': the model has no clips", what, name);
    }
    char names[300];
    list_clip_names(asset, names, sizeof names);
    return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source_of(asset),
                           "%s '%s' is not a clip of the model (clips: %s)", what, name, names);
}

static crowd_result add_clip(crowd_bake *bake, const char *name, float duration_s, bool loop,
                             uint32_t source_clip, crowd_error *error) {
    crowd_bake_clip *clip = &bake->clips[bake->clip_count];
    clip->name = strdup(name);
    if (clip->name == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    clip->duration_s = duration_s;
    clip->loop = loop;
    clip->source_clip = source_clip;
    bake->clip_count++;
    return CROWD_OK;
}

static crowd_result select_named(const crowd_asset *asset, const crowd_bake_desc *desc,
                                 crowd_bake *bake, crowd_error *error) {
    for (uint32_t i = 0; i < desc->clip_count; i++) {
        const char *name = desc->clips[i];
        if (name == NULL) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source_of(asset),
                                   "clip name %u is NULL", i);
        }
        int32_t index = crowd_asset_find_clip(asset, name);
        if (index < 0) {
            return unknown_clip(asset, name, "clip", error);
        }
        if (crowd_bake_find_clip(bake, name) >= 0) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source_of(asset),
                                   "clip '%s' is listed twice", name);
        }
        const crowd_clip *clip = &asset->clips[index];
        crowd_result result =
            add_clip(bake, clip->name, clip->duration_s, clip->loop, (uint32_t)index, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

static crowd_result apply_overrides(const crowd_asset *asset, crowd_bake *bake,
                                    const char *const *names, uint32_t count, bool loop,
                                    const crowd_bake_desc *desc, crowd_error *error) {
    const char *option = loop ? "looping clip" : "one-shot clip";
    for (uint32_t i = 0; names != NULL && i < count; i++) {
        if (names[i] == NULL) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source_of(asset),
                                   "%s name %u is NULL", option, i);
        }
        int32_t index = crowd_bake_find_clip(bake, names[i]);
        if (index < 0) {
            if (crowd_asset_find_clip(asset, names[i]) >= 0) {
                return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source_of(asset),
                                       "%s '%s' is not among the clips being baked", option,
                                       names[i]);
            }
            return unknown_clip(asset, names[i], option, error);
        }
        if (!loop) {
            for (uint32_t k = 0; desc->loop_clips != NULL && k < desc->loop_clip_count; k++) {
                if (desc->loop_clips[k] != NULL && strcmp(desc->loop_clips[k], names[i]) == 0) {
                    return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, source_of(asset),
                                           "clip '%s' is asked to loop and to play once", names[i]);
                }
            }
        }
        bake->clips[index].loop = loop;
    }
    return CROWD_OK;
}

crowd_result crowd__bake_select_clips(const crowd_asset *asset, const crowd_bake_desc *desc,
                                      crowd_bake *bake, crowd_error *error) {
    bool named = desc->clips != NULL && desc->clip_count > 0;
    uint32_t capacity = named ? desc->clip_count : asset->clip_count;
    bake->clips = calloc(capacity > 0 ? capacity : 1, sizeof *bake->clips);
    if (bake->clips == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    crowd_result result = CROWD_OK;
    if (named) {
        result = select_named(asset, desc, bake, error);
    } else if (asset->clip_count == 0) {
        crowd_log(&desc->logger, CROWD_LOG_INFO,
                  "%s has no animation: baking the rest pose as one one-frame clip 'rest'",
                  source_of(asset));
        result = add_clip(bake, "rest", 0.0f, false, UINT32_MAX, error);
    } else {
        for (uint32_t i = 0; i < asset->clip_count && result == CROWD_OK; i++) {
            const crowd_clip *clip = &asset->clips[i];
            result = add_clip(bake, clip->name, clip->duration_s, clip->loop, i, error);
        }
    }
    if (result == CROWD_OK) {
        result = apply_overrides(asset, bake, desc->loop_clips, desc->loop_clip_count, true, desc,
                                 error);
    }
    if (result == CROWD_OK) {
        result = apply_overrides(asset, bake, desc->once_clips, desc->once_clip_count, false, desc,
                                 error);
    }
    return result;
}

uint64_t crowd__bake_place_clips(crowd_bake *bake) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < bake->clip_count; i++) {
        crowd_bake_clip *clip = &bake->clips[i];
        /* first_frame is only kept when the total fits a texture; the
         * layout step rejects anything larger. */
        clip->first_frame = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
        total += clip->frame_count;
    }
    return total;
}
