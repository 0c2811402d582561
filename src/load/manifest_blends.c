/* The manifest's "blends" (docs/manifest.md): [{"name", "clips": [names of
 * baked clips], "thresholds": [numbers], optional, "strides": [per segment
 * 9 numbers], optional}], optional itself, so
 * bakes without blends read as before and readers before blends ignore it
 * (they play the clips, not the blends). */
#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "load/bake_internal.h"
#include "load/manifest_io.h"

static crowd_result bad(crowd_error *error, const char *file, const char *what, int blend) {
    return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, file, "blends[%d]: %s", blend, what);
}

/* "strides": clip_count - 1 arrays of CROWD_BAKE_BLEND_STRIDE_STEPS + 1
 * numbers, finite and >= 0 (the stride at weight k / STEPS of each
 * segment, written by the bake for speed matching). */
static bool
read_strides(const cJSON *list, int clip_count,
             float out[CROWD_BAKE_BLEND_MAX_CLIPS - 1][CROWD_BAKE_BLEND_STRIDE_STEPS + 1]) {
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) != clip_count - 1) {
        return false;
    }
    for (int i = 0; i < clip_count - 1; i++) {
        const cJSON *segment = cJSON_GetArrayItem(list, i);
        if (!cJSON_IsArray(segment) ||
            cJSON_GetArraySize(segment) != CROWD_BAKE_BLEND_STRIDE_STEPS + 1) {
            return false;
        }
        for (int k = 0; k <= CROWD_BAKE_BLEND_STRIDE_STEPS; k++) {
            const cJSON *value = cJSON_GetArrayItem(segment, k);
            if (!cJSON_IsNumber(value) || !isfinite(value->valuedouble) ||
                !(value->valuedouble >= 0.0 && value->valuedouble <= 3.4e38)) {
                return false;
            }
            out[i][k] = (float)value->valuedouble;
        }
    }
    return true;
}

static crowd_result read_blend(const cJSON *item, int index, const char *file, crowd_bake *bake,
                               crowd_error *error) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(item, "name");
    const cJSON *clips = cJSON_GetObjectItemCaseSensitive(item, "clips");
    const cJSON *thresholds = cJSON_GetObjectItemCaseSensitive(item, "thresholds");
    if (!cJSON_IsObject(item) || !cJSON_IsString(name) || !cJSON_IsArray(clips)) {
        return bad(error, file, "must be an object with a string name and a clips array", index);
    }
    int count = cJSON_GetArraySize(clips);
    if (count < 2 || count > CROWD_BAKE_BLEND_MAX_CLIPS) {
        return bad(error, file, "clips must hold 2 to 16 names", index);
    }
    if (thresholds != NULL &&
        (!cJSON_IsArray(thresholds) || cJSON_GetArraySize(thresholds) != count)) {
        return bad(error, file, "thresholds must be an array as long as clips", index);
    }
    const char *names[CROWD_BAKE_BLEND_MAX_CLIPS];
    float values[CROWD_BAKE_BLEND_MAX_CLIPS];
    for (int i = 0; i < count; i++) {
        const cJSON *clip = cJSON_GetArrayItem(clips, i);
        const cJSON *value = thresholds != NULL ? cJSON_GetArrayItem(thresholds, i) : NULL;
        if (!cJSON_IsString(clip) || (thresholds != NULL && !cJSON_IsNumber(value))) {
            return bad(error, file, "clips are names and thresholds numbers", index);
        }
        names[i] = clip->valuestring;
        values[i] = value != NULL ? (float)value->valuedouble : 0.0f;
    }
    float strides[CROWD_BAKE_BLEND_MAX_CLIPS - 1][CROWD_BAKE_BLEND_STRIDE_STEPS + 1];
    const cJSON *stride_list = cJSON_GetObjectItemCaseSensitive(item, "strides");
    if (stride_list != NULL && !read_strides(stride_list, count, strides)) {
        return bad(error, file,
                   "strides must hold one array per segment (clips less one), each of "
                   "9 finite numbers >= 0",
                   index);
    }
    crowd_error added = {0};
    crowd_result result = crowd_bake_add_blend(bake, name->valuestring, (uint32_t)count, names,
                                               thresholds != NULL ? values : NULL, &added);
    if (result != CROWD_OK) {
        return crowd_error_set(
            error, result == CROWD_ERROR_INVALID_ARGUMENT ? CROWD_ERROR_INVALID_DATA : result, file,
            "blends[%d]: %s", index, added.reason);
    }
    crowd_bake_blend *blend = &bake->blends[bake->blend_count - 1];
    if (stride_list != NULL) {
        memcpy(blend->strides, strides, sizeof blend->strides);
        blend->has_strides = true;
    }
    return CROWD_OK;
}

crowd_result crowd__manifest_read_blends(const void *root, const char *file, crowd_bake *bake,
                                         crowd_error *error) {
    const cJSON *blends = cJSON_GetObjectItemCaseSensitive((const cJSON *)root, "blends");
    if (blends == NULL) {
        return CROWD_OK;
    }
    if (!cJSON_IsArray(blends)) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_DATA, file, "blends must be an array");
    }
    int index = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, blends) {
        crowd_result result = read_blend(item, index++, file, bake, error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}
