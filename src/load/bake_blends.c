/* A bake's blends (crowd/bake.h): an array in the order added, each
 * checked as the world will need it (clips of the bake, rising thresholds).
 * The loader adds what the manifest holds through the same call, so a
 * loaded bake meets every rule a built one does. */
#include <math.h>
#include <string.h>

#include "core/core_internal.h"
#include "load/bake_internal.h"

static crowd_result invalid(crowd_error *error, const char *name, const char *what) {
    return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL, "blend \"%.80s\": %s", name,
                           what);
}

crowd_result crowd_bake_add_blend(crowd_bake *bake, const char *name, uint32_t clip_count,
                                  const char *const *clips, const float *thresholds,
                                  crowd_error *error) {
    if (bake == NULL || name == NULL || clips == NULL) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "bake, blend name and clips must not be NULL");
    }
    crowd_result result = crowd__bake_check_name(name, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (clip_count < 2 || clip_count > CROWD_BAKE_BLEND_MAX_CLIPS) {
        return invalid(error, name, "needs 2 to 16 clips");
    }
    crowd_bake_blend blend = {.clip_count = clip_count, .has_thresholds = thresholds != NULL};
    for (uint32_t i = 0; i < clip_count; i++) {
        int32_t found = clips[i] != NULL ? crowd_bake_find_clip(bake, clips[i]) : -1;
        if (found < 0) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                                   "blend \"%.80s\": the bake has no clip \"%.80s\"", name,
                                   clips[i] != NULL ? clips[i] : "(null)");
        }
        blend.clips[i] = (uint32_t)found;
        float t = thresholds != NULL ? thresholds[i] : 0.0f;
        if (thresholds != NULL && (!isfinite(t) || (i > 0 && !(t > thresholds[i - 1])))) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                                   "blend \"%.80s\": threshold %u (%g) is not finite or not above "
                                   "the one before",
                                   name, (unsigned)i, (double)t);
        }
        blend.thresholds[i] = t;
    }
    for (uint32_t b = 0; b < bake->blend_count; b++) {
        if (strcmp(bake->blends[b].name, name) == 0) {
            return invalid(error, name, "another blend of the bake has that name");
        }
    }
    if (bake->blend_count >= CROWD_BAKE_MAX_BLENDS) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, NULL, "a bake holds at most %d blends",
                               CROWD_BAKE_MAX_BLENDS);
    }
    blend.name = crowd__core_copy_string_with(&bake->allocator, name);
    uint32_t count = bake->blend_count;
    crowd_bake_blend *blends =
        blend.name == NULL ? NULL
                           : crowd__mem_grow(&bake->allocator, bake->blends, count * sizeof *blends,
                                             (count + 1) * sizeof *blends);
    if (blends == NULL) {
        crowd__mem_free(&bake->allocator, blend.name);
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    blends[count] = blend;
    bake->blends = blends;
    bake->blend_count = count + 1;
    return CROWD_OK;
}
