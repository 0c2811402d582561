/* Reading and validating NAME.crowd.json (manifest_io.h, docs/manifest.md).
 * Every member is checked for presence, type and range before use, and the
 * numbers are checked against each other, so the loader can size buffers
 * from them. Unknown members are ignored: readers accept additions.
 * Version 1 has no LODs and no clip bounds; they are filled in as version 2
 * would state them for LOD 0 only and the bake's bounds. Version 3 adds the
 * size and checksum of every file ("files"), which the loader verifies;
 * version 4 the runtime clips ("anim", load/anim_io.h). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/manifest_io.h"
#include "load/manifest_strict.h"
#include "core/core_internal.h"

/* Vertices a VAT can hold: a full 16384 x 16384 texture. */
#define MANIFEST_MAX_VERTICES (CROWD_BAKE_MAX_TEXTURE_SIZE * CROWD_BAKE_MAX_TEXTURE_SIZE)
/* Indices of one LOD, and of the LODs below LOD 0 together: as many as a
 * mesh file holds (glb_read.c). */
#define MANIFEST_MAX_LOD_INDICES (1u << 30)

typedef struct manifest_reader {
    const char *file;
    crowd_error *error;
    uint32_t version;
    float legacy_fps; /* versions 1 and 2: the root's fps, every clip's */
} manifest_reader;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static crowd_result
fail(manifest_reader *r, crowd_result result, const char *format, ...) {
    char reason[sizeof r->error->reason];
    va_list args;
    va_start(args, format);
    vsnprintf(reason, sizeof reason, format, args);
    va_end(args);
    return crowd_error_set(r->error, result, r->file, "%s", reason);
}

static crowd_result member(manifest_reader *r, const cJSON *object, const char *where,
                           const char *key, cJSON **out) {
    *out = cJSON_GetObjectItemCaseSensitive(object, key);
    if (*out == NULL) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "%s%s%s is missing", where, where[0] ? "." : "",
                    key);
    }
    return CROWD_OK;
}

static crowd_result get_uint(manifest_reader *r, const cJSON *object, const char *where,
                             const char *key, double min, double max, uint32_t *out) {
    cJSON *item;
    crowd_result result = member(r, object, where, key, &item);
    if (result != CROWD_OK) {
        return result;
    }
    double value = cJSON_IsNumber(item) ? item->valuedouble : NAN;
    if (!(value >= min && value <= max && value == floor(value))) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "%s%s%s must be an integer from %.0f to %.0f",
                    where, where[0] ? "." : "", key, min, max);
    }
    *out = (uint32_t)value;
    return CROWD_OK;
}

static bool finite_float(const cJSON *item) {
    return cJSON_IsNumber(item) && isfinite(item->valuedouble) && fabs(item->valuedouble) <= 3.4e38;
}

static crowd_result get_float(manifest_reader *r, const cJSON *object, const char *where,
                              const char *key, float *out) {
    cJSON *item;
    crowd_result result = member(r, object, where, key, &item);
    if (result == CROWD_OK && !finite_float(item)) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "%s%s%s must be a finite number", where,
                    where[0] ? "." : "", key);
    }
    if (result == CROWD_OK) {
        *out = (float)item->valuedouble;
    }
    return result;
}

static crowd_result get_double(manifest_reader *r, const cJSON *object, const char *where,
                               const char *key, double *out) {
    cJSON *item = NULL;
    crowd_result result = member(r, object, where, key, &item);
    if (result == CROWD_OK && !(cJSON_IsNumber(item) && isfinite(item->valuedouble))) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "%s%s%s must be a finite number", where,
                    where[0] ? "." : "", key);
    }
    if (result == CROWD_OK) {
        *out = item->valuedouble;
    }
    return result;
}

static crowd_result get_floats(manifest_reader *r, const cJSON *object, const char *where,
                               const char *key, int count, float *out) {
    cJSON *item;
    crowd_result result = member(r, object, where, key, &item);
    if (result != CROWD_OK) {
        return result;
    }
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != count) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "%s.%s must be an array of %d numbers", where, key,
                    count);
    }
    int i = 0;
    const cJSON *element;
    cJSON_ArrayForEach(element, item) {
        if (!finite_float(element)) {
            return fail(r, CROWD_ERROR_INVALID_DATA, "%s.%s[%d] must be a finite number", where,
                        key, i);
        }
        out[i++] = (float)element->valuedouble;
    }
    return CROWD_OK;
}

static crowd_result get_string(manifest_reader *r, const cJSON *object, const char *where,
                               const char *key, const char **out) {
    cJSON *item;
    crowd_result result = member(r, object, where, key, &item);
    if (result == CROWD_OK && !cJSON_IsString(item)) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "%s%s%s must be a string", where,
                    where[0] ? "." : "", key);
    }
    if (result == CROWD_OK) {
        *out = item->valuestring;
    }
    return result;
}

static crowd_result get_file_name(manifest_reader *r, const cJSON *object, const char *where,
                                  const char *key, char *out, size_t out_size) {
    const char *name = NULL;
    crowd_result result = get_string(r, object, where, key, &name);
    if (result == CROWD_OK && !crowd__manifest_valid_file_name(name)) {
        return fail(r, CROWD_ERROR_INVALID_DATA,
                    "%s%s%s \"%.80s\" is not a plain file name inside the bake folder", where,
                    where[0] ? "." : "", key, name);
    }
    if (result == CROWD_OK) {
        snprintf(out, out_size, "%s", name);
    }
    return result;
}

static crowd_result get_range(manifest_reader *r, const cJSON *object, const char *where,
                              const char *key, manifest_range *range) {
    cJSON *item;
    char path[64];
    snprintf(path, sizeof path, "%s.%s", where, key);
    crowd_result result = member(r, object, where, key, &item);
    if (result == CROWD_OK) {
        result = get_floats(r, item, path, "min", 4, range->min);
    }
    if (result == CROWD_OK) {
        result = get_floats(r, item, path, "max", 4, range->max);
    }
    for (int c = 0; c < 4 && result == CROWD_OK; c++) {
        if (range->min[c] > range->max[c]) {
            result = fail(r, CROWD_ERROR_INVALID_DATA, "%s: min[%d] %g is above max[%d] %g", path,
                          c, (double)range->min[c], c, (double)range->max[c]);
        }
    }
    return result;
}

/* ---- clips ---------------------------------------------------------------- */

static int compare_names(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static crowd_result check_unique_names(manifest_reader *r, const crowd_bake *bake) {
    const char **names = crowd__mem_alloc(&bake->allocator, bake->clip_count * sizeof *names);
    if (names == NULL) {
        return fail(r, CROWD_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    for (uint32_t i = 0; i < bake->clip_count; i++) {
        names[i] = bake->clips[i].name;
    }
    qsort(names, bake->clip_count, sizeof *names, compare_names);
    crowd_result result = CROWD_OK;
    for (uint32_t i = 1; i < bake->clip_count && result == CROWD_OK; i++) {
        if (strcmp(names[i - 1], names[i]) == 0) {
            result = fail(r, CROWD_ERROR_INVALID_DATA, "two clips are named \"%.100s\"", names[i]);
        }
    }
    crowd__mem_free(&bake->allocator, names);
    return result;
}

/* The bake's bounds, or a clip's, up to float rounding of decoded values. */
static float bounds_tolerance(const crowd_bake *bake) {
    float largest = 0.0f;
    for (int a = 0; a < 3; a++) {
        largest = fmaxf(largest, fmaxf(fabsf(bake->bounds_min[a]), fabsf(bake->bounds_max[a])));
    }
    return 1e-3f * (1.0f + largest);
}

/* Version 2: the clip's box, inside the bake's, and its sphere. Version 1:
 * the bake's box and the sphere around it. */
static crowd_result read_clip_bounds(manifest_reader *r, const cJSON *object, const char *where,
                                     const crowd_bake *bake, crowd_bake_clip *clip) {
    if (r->version == 1) {
        double radius2 = 0.0;
        for (int a = 0; a < 3; a++) {
            clip->bounds_min[a] = bake->bounds_min[a];
            clip->bounds_max[a] = bake->bounds_max[a];
            clip->sphere_center[a] = 0.5f * (bake->bounds_min[a] + bake->bounds_max[a]);
            double half = 0.5 * ((double)bake->bounds_max[a] - bake->bounds_min[a]);
            radius2 += half * half;
        }
        clip->sphere_radius = nextafterf((float)sqrt(radius2), INFINITY);
        return CROWD_OK;
    }
    char path[48];
    snprintf(path, sizeof path, "%s.bounds", where);
    cJSON *bounds;
    crowd_result result = member(r, object, where, "bounds", &bounds);
    if (result == CROWD_OK) {
        result = get_floats(r, bounds, path, "min", 3, clip->bounds_min);
    }
    if (result == CROWD_OK) {
        result = get_floats(r, bounds, path, "max", 3, clip->bounds_max);
    }
    if (result == CROWD_OK) {
        result = get_floats(r, bounds, path, "center", 3, clip->sphere_center);
    }
    if (result == CROWD_OK) {
        result = get_float(r, bounds, path, "radius", &clip->sphere_radius);
    }
    if (result == CROWD_OK && !(clip->sphere_radius >= 0.0f)) {
        result = fail(r, CROWD_ERROR_INVALID_DATA, "%s.radius is negative", path);
    }
    float tolerance = bounds_tolerance(bake);
    for (int a = 0; a < 3 && result == CROWD_OK; a++) {
        if (clip->bounds_min[a] > clip->bounds_max[a]) {
            result = fail(r, CROWD_ERROR_INVALID_DATA, "%s.min[%d] is above %s.max[%d]", path, a,
                          path, a);
        } else if (clip->bounds_min[a] < bake->bounds_min[a] - tolerance ||
                   clip->bounds_max[a] > bake->bounds_max[a] + tolerance) {
            result = fail(r, CROWD_ERROR_INVALID_DATA,
                          "%s axis %d [%g, %g] lies outside the bake's bounds [%g, %g]", path, a,
                          (double)clip->bounds_min[a], (double)clip->bounds_max[a],
                          (double)bake->bounds_min[a], (double)bake->bounds_max[a]);
        }
    }
    return result;
}

/* Clips are stacked in order: each starts where the previous ended, and
 * together they fill frame_count. A clip's frame count follows from its
 * duration (docs/time.md, "Baked frames"); one frame of slack covers
 * rounding. */
static crowd_result read_error(manifest_reader *r, const cJSON *object, const char *where,
                               const char *key, float *out) {
    crowd_result result = get_float(r, object, where, key, out);
    if (result == CROWD_OK && *out < 0.0f) {
        result = fail(r, CROWD_ERROR_INVALID_DATA, "%s.%s is negative", where, key);
    }
    return result;
}

static crowd_result read_fps(manifest_reader *r, const cJSON *object, const char *where,
                             float *out) {
    crowd_result result = get_float(r, object, where, "fps", out);
    if (result == CROWD_OK && !(*out > 0.0f && *out <= 1000.0f)) {
        result = fail(r, CROWD_ERROR_INVALID_DATA, "%s%sfps %g is outside (0, 1000]", where,
                      where[0] ? "." : "", (double)*out);
    }
    return result;
}

/* Version 3: the clip's own rate, how it was chosen and its between-frame
 * error, and frames in the END layout (crowd/anim.h), whose count the
 * duration and rate fix. Versions 1 and 2: the root's rate, and the
 * layouts they were written in, whose counts a loader accepted to within a
 * frame of d * fps (+ 1 for one-shots). */
static crowd_result read_clip_rate(manifest_reader *r, const cJSON *object, const char *where,
                                   crowd_bake_clip *clip) {
    if (r->version < 3) {
        clip->fps = r->legacy_fps;
        clip->layout = clip->loop ? CROWD_FRAMES_WRAP : CROWD_FRAMES_CLAMP;
        clip->rate_multiple = 1;
        double expected = (double)clip->duration_s * clip->fps + (clip->loop ? 0.0 : 1.0);
        if (fabs((double)clip->frame_count - expected) > 1.0) {
            return fail(r, CROWD_ERROR_INVALID_DATA,
                        "%s has %u frames, but %g s at %g fps (%s) gives %.0f", where,
                        clip->frame_count, (double)clip->duration_s, (double)clip->fps,
                        clip->loop ? "loop" : "one-shot", expected);
        }
        return CROWD_OK;
    }
    clip->layout = CROWD_FRAMES_END;
    crowd_result result = read_fps(r, object, where, &clip->fps);
    if (result == CROWD_OK &&
        clip->frame_count != crowd_anim_frame_count(clip->duration_s, clip->fps)) {
        result = fail(r, CROWD_ERROR_INVALID_DATA,
                      "%s has %u frames, but %g s at %g fps has %u (docs/time.md)", where,
                      clip->frame_count, (double)clip->duration_s, (double)clip->fps,
                      crowd_anim_frame_count(clip->duration_s, clip->fps));
    }
    if (result == CROWD_OK) {
        result = get_float(r, object, where, "key_rate", &clip->key_rate);
    }
    if (result == CROWD_OK && !(clip->key_rate >= 0.0f && clip->key_rate <= 1000.0f)) {
        result = fail(r, CROWD_ERROR_INVALID_DATA, "%s.key_rate %g is outside [0, 1000]", where,
                      (double)clip->key_rate);
    }
    if (result == CROWD_OK) {
        result = get_uint(r, object, where, "rate_multiple", 1, 1000, &clip->rate_multiple);
    }
    cJSON *between = NULL, *within = NULL;
    if (result == CROWD_OK) {
        result = member(r, object, where, "between_error", &between);
    }
    char inner[48];
    snprintf(inner, sizeof inner, "%s.between_error", where);
    if (result == CROWD_OK) {
        result = read_error(r, between, inner, "max", &clip->between_error_max);
    }
    if (result == CROWD_OK) {
        result = read_error(r, between, inner, "mean", &clip->between_error_mean);
    }
    if (result == CROWD_OK &&
        (result = member(r, between, inner, "within_budget", &within)) == CROWD_OK &&
        !cJSON_IsBool(within)) {
        result = fail(r, CROWD_ERROR_INVALID_DATA, "%s.within_budget must be true or false", inner);
    }
    clip->within_budget = cJSON_IsTrue(within);
    return result;
}

/* The clip's optional "events": [{"name", "time_s"}], in time order (as
 * written), each added by crowd_bake_add_event so a loaded bake holds to
 * the rules a built one does; read once every clip's name is known. */
static crowd_result read_clip_events(manifest_reader *r, const cJSON *object, uint32_t clip,
                                     crowd_bake *bake) {
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(object, "events");
    if (events == NULL) {
        return CROWD_OK;
    }
    if (!cJSON_IsArray(events)) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "clips[%u].events must be an array", clip);
    }
    float previous = -INFINITY;
    int i = 0;
    const cJSON *event;
    cJSON_ArrayForEach(event, events) {
        char where[48];
        snprintf(where, sizeof where, "clips[%u].events[%d]", clip, i++);
        const char *name = NULL;
        float time_s = 0.0f;
        crowd_result result = cJSON_IsObject(event) ? get_string(r, event, where, "name", &name)
                                                    : fail(r, CROWD_ERROR_INVALID_DATA,
                                                           "%s must be an object", where);
        if (result == CROWD_OK) {
            result = get_float(r, event, where, "time_s", &time_s);
        }
        if (result == CROWD_OK && time_s < previous) {
            result = fail(r, CROWD_ERROR_INVALID_DATA, "%s.time_s %g is before the event before it",
                          where, (double)time_s);
        }
        crowd_error added = {0};
        if (result == CROWD_OK &&
            crowd_bake_add_event(bake, bake->clips[clip].name, time_s, name, &added) != CROWD_OK) {
            result = fail(r,
                          added.result == CROWD_ERROR_INVALID_ARGUMENT ? CROWD_ERROR_INVALID_DATA
                                                                       : added.result,
                          "%s: %s", where, added.reason);
        }
        if (result != CROWD_OK) {
            return result;
        }
        previous = time_s;
    }
    return CROWD_OK;
}

/* A float array of 1 to CROWD_BAKE_MAX_TEXTURE_SIZE * 3 numbers into a
 * block of the bake's; *out_count the numbers. */
static crowd_result get_float_list(manifest_reader *r, const cJSON *object, const char *where,
                                   const char *key, crowd_bake *bake, float **out,
                                   uint32_t *out_count) {
    cJSON *item;
    crowd_result result = member(r, object, where, key, &item);
    int count = result == CROWD_OK && cJSON_IsArray(item) ? cJSON_GetArraySize(item) : -1;
    if (result == CROWD_OK && (count < 1 || count > 3 * (int)CROWD_BAKE_MAX_TEXTURE_SIZE)) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "%s.%s must be an array of 1 to %u numbers", where,
                    key, 3 * CROWD_BAKE_MAX_TEXTURE_SIZE);
    }
    if (result != CROWD_OK) {
        return result;
    }
    *out = crowd__mem_alloc(&bake->allocator, (size_t)count * sizeof **out);
    if (*out == NULL) {
        return fail(r, CROWD_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    *out_count = (uint32_t)count;
    return get_floats(r, object, where, key, count, *out);
}

/* The clip's optional "root_motion" (put_clip_root_motion): the joint in
 * range, the arrays of one length, and the curve valid for the clip's
 * duration (crowd_anim_root_motion_valid). */
static crowd_result read_clip_root_motion(manifest_reader *r, const cJSON *object, uint32_t index,
                                          crowd_bake *bake) {
    const cJSON *member_item = cJSON_GetObjectItemCaseSensitive(object, "root_motion");
    if (member_item == NULL) {
        return CROWD_OK;
    }
    char where[48];
    snprintf(where, sizeof where, "clips[%u].root_motion", index);
    if (!cJSON_IsObject(member_item)) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "%s must be an object", where);
    }
    crowd_bake_clip *clip = &bake->clips[index];
    crowd_root_motion *motion = &clip->root_motion;
    uint32_t times = 0, samples = 0;
    crowd_result result =
        get_uint(r, member_item, where, "joint", 0,
                 bake->joint_count > 0 ? bake->joint_count - 1.0 : 0.0, &motion->joint);
    if (result == CROWD_OK) {
        result = get_floats(r, member_item, where, "start", 2, motion->start);
    }
    if (result == CROWD_OK) {
        result = get_float_list(r, member_item, where, "times", bake, &motion->times_s, &times);
    }
    if (result == CROWD_OK) {
        result = get_float_list(r, member_item, where, "samples", bake, &motion->samples, &samples);
    }
    if (result == CROWD_OK && samples != 3 * times) {
        result = fail(r, CROWD_ERROR_INVALID_DATA,
                      "%s.samples holds %u numbers; 3 (x, z, heading) for each of its %u times",
                      where, samples, times);
    }
    if (result == CROWD_OK) {
        motion->sample_count = times;
        if (!crowd_anim_root_motion_valid(motion, clip->duration_s)) {
            result = fail(r, CROWD_ERROR_INVALID_DATA,
                          "%s.times must rise from 0 to the clip's duration_s (%g)", where,
                          (double)clip->duration_s);
        }
    }
    if (result != CROWD_OK) {
        /* nothing half-read left for the caller to trust */
        motion->sample_count = 0;
    }
    return result;
}

/* The clip's optional "ground_speed" (written by bakes since blends'
 * strides, docs/manifest.md): finite and >= 0; absent, the world measures. */
static crowd_result read_clip_ground_speed(manifest_reader *r, const cJSON *object,
                                           const char *where, crowd_bake_clip *clip) {
    if (cJSON_GetObjectItemCaseSensitive(object, "ground_speed") == NULL) {
        return CROWD_OK;
    }
    crowd_result result = get_float(r, object, where, "ground_speed", &clip->ground_speed);
    if (result == CROWD_OK && clip->ground_speed < 0.0f) {
        result = fail(r, CROWD_ERROR_INVALID_DATA, "%s.ground_speed is negative", where);
    }
    clip->has_ground_speed = result == CROWD_OK;
    return result;
}

/* The clip's optional "max_step" (the largest vertex move from one frame to
 * the next, model units): finite and >= 0; absent (older bakes), -1. */
static crowd_result read_clip_max_step(manifest_reader *r, const cJSON *object, const char *where,
                                       crowd_bake_clip *clip) {
    clip->max_step = -1.0f;
    if (cJSON_GetObjectItemCaseSensitive(object, "max_step") == NULL) {
        return CROWD_OK;
    }
    crowd_result result = get_float(r, object, where, "max_step", &clip->max_step);
    if (result == CROWD_OK && clip->max_step < 0.0f) {
        result = fail(r, CROWD_ERROR_INVALID_DATA, "%s.max_step is negative", where);
    }
    return result;
}

static crowd_result read_clips(manifest_reader *r, const cJSON *root, crowd_bake *bake) {
    cJSON *clips;
    crowd_result result = member(r, root, "", "clips", &clips);
    if (result != CROWD_OK) {
        return result;
    }
    int count = cJSON_IsArray(clips) ? cJSON_GetArraySize(clips) : -1;
    if (count < 1 || (uint32_t)count > bake->frame_count) {
        return fail(r, CROWD_ERROR_INVALID_DATA,
                    "clips must be an array of 1 to frame_count (%u) clips", bake->frame_count);
    }
    bake->clips = crowd__mem_alloc_zeroed(&bake->allocator, (size_t)count, sizeof *bake->clips);
    if (bake->clips == NULL) {
        return fail(r, CROWD_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    bake->clip_count = (uint32_t)count;
    uint64_t next_frame = 0;
    for (int i = 0; i < count && result == CROWD_OK; i++) {
        const cJSON *object = cJSON_GetArrayItem(clips, i);
        crowd_bake_clip *clip = &bake->clips[i];
        char where[32];
        snprintf(where, sizeof where, "clips[%d]", i);
        const char *name = NULL;
        cJSON *loop = NULL;
        clip->source_clip = UINT32_MAX;
        result = get_string(r, object, where, "name", &name);
        if (result == CROWD_OK && name[0] == '\0') {
            result = fail(r, CROWD_ERROR_INVALID_DATA, "%s.name is empty", where);
        }
        if (result == CROWD_OK &&
            (clip->name = crowd__core_copy_string_with(&bake->allocator, name)) == NULL) {
            result = fail(r, CROWD_ERROR_OUT_OF_MEMORY, "out of memory");
        }
        if (result == CROWD_OK) {
            result = get_float(r, object, where, "duration_s", &clip->duration_s);
        }
        if (result == CROWD_OK && clip->duration_s < 0.0f) {
            result = fail(r, CROWD_ERROR_INVALID_DATA, "%s.duration_s is negative", where);
        }
        if (result == CROWD_OK && (result = member(r, object, where, "loop", &loop)) == CROWD_OK &&
            !cJSON_IsBool(loop)) {
            result = fail(r, CROWD_ERROR_INVALID_DATA, "%s.loop must be true or false", where);
        }
        clip->loop = cJSON_IsTrue(loop);
        if (result == CROWD_OK) {
            result = get_uint(r, object, where, "first_frame", 0, CROWD_BAKE_MAX_TEXTURE_SIZE,
                              &clip->first_frame);
        }
        if (result == CROWD_OK) {
            result = get_uint(r, object, where, "frame_count", 1, CROWD_BAKE_MAX_TEXTURE_SIZE,
                              &clip->frame_count);
        }
        if (result == CROWD_OK) {
            result = read_clip_bounds(r, object, where, bake, clip);
        }
        if (result == CROWD_OK && clip->first_frame != next_frame) {
            result =
                fail(r, CROWD_ERROR_INVALID_DATA,
                     "%s.first_frame is %u; stacked after the clips before it, it must be %llu",
                     where, clip->first_frame, (unsigned long long)next_frame);
        }
        next_frame += clip->frame_count;
        if (result == CROWD_OK && next_frame > bake->frame_count) {
            result =
                fail(r, CROWD_ERROR_INVALID_DATA, "%s ends at frame %llu, beyond frame_count %u",
                     where, (unsigned long long)next_frame, bake->frame_count);
        }
        if (result == CROWD_OK) {
            result = read_clip_rate(r, object, where, clip);
        }
        if (result == CROWD_OK) {
            result = read_clip_ground_speed(r, object, where, clip);
        }
        if (result == CROWD_OK) {
            result = read_clip_max_step(r, object, where, clip);
        }
    }
    if (result == CROWD_OK && next_frame != bake->frame_count) {
        result =
            fail(r, CROWD_ERROR_INVALID_DATA, "the clips hold %llu frames, frame_count says %u",
                 (unsigned long long)next_frame, bake->frame_count);
    }
    if (result == CROWD_OK) {
        result = check_unique_names(r, bake);
    }
    for (int i = 0; i < count && result == CROWD_OK; i++) {
        result = read_clip_events(r, cJSON_GetArrayItem(clips, i), (uint32_t)i, bake);
    }
    for (int i = 0; i < count && result == CROWD_OK; i++) {
        result = read_clip_root_motion(r, cJSON_GetArrayItem(clips, i), (uint32_t)i, bake);
    }
    return result;
}

/* ---- LODs ----------------------------------------------------------------- */

/* One LOD; the ranges of LODs 1.. follow each other from 0, each with
 * fewer triangles than the one before. LOD 0 is the whole mesh; that its
 * index count is the mesh's is checked when the mesh is read. */
static crowd_result read_lod(manifest_reader *r, const cJSON *object, uint32_t k,
                             crowd_bake *bake) {
    char where[32];
    snprintf(where, sizeof where, "lods[%u]", k);
    crowd_bake_lod *lod = &bake->lods[k];
    double most = MANIFEST_MAX_LOD_INDICES;
    crowd_result result = get_uint(r, object, where, "first_index", 0, most, &lod->first_index);
    if (result == CROWD_OK) {
        result = get_uint(r, object, where, "index_count", 3, most, &lod->index_count);
    }
    if (result == CROWD_OK) {
        result = get_uint(r, object, where, "first_vertex", 0, MANIFEST_MAX_VERTICES,
                          &lod->first_vertex);
    }
    if (result == CROWD_OK) {
        result =
            get_uint(r, object, where, "vertex_count", 1, bake->vertex_count, &lod->vertex_count);
    }
    if (result == CROWD_OK) {
        result = get_uint(r, object, where, "triangle_count", 1, most / 3, &lod->triangle_count);
    }
    if (result == CROWD_OK) {
        result = read_error(r, object, where, "error", &lod->error);
    }
    if (result == CROWD_OK) {
        result = read_error(r, object, where, "error_rel", &lod->error_rel);
    }
    if (result != CROWD_OK) {
        return result;
    }
    if ((uint64_t)lod->index_count != 3 * (uint64_t)lod->triangle_count) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "%s: index_count %u is not 3 x triangle_count %u",
                    where, lod->index_count, lod->triangle_count);
    }
    if (k == 0) {
        if (lod->first_index != 0 || lod->first_vertex != 0 ||
            lod->vertex_count != bake->vertex_count || lod->error != 0.0f ||
            lod->error_rel != 0.0f) {
            return fail(r, CROWD_ERROR_INVALID_DATA,
                        "lods[0] is the whole mesh: first_index and first_vertex 0, vertex_count "
                        "%u, error 0",
                        bake->vertex_count);
        }
        return CROWD_OK;
    }
    if (lod->first_index != bake->lod_index_total || lod->first_vertex != bake->lod_vertex_total) {
        return fail(r, CROWD_ERROR_INVALID_DATA,
                    "%s starts at index %u and vertex %u; after the LODs before it, it must "
                    "start at %u and %u",
                    where, lod->first_index, lod->first_vertex, bake->lod_index_total,
                    bake->lod_vertex_total);
    }
    if (lod->triangle_count >= bake->lods[k - 1].triangle_count) {
        return fail(r, CROWD_ERROR_INVALID_DATA,
                    "%s has %u triangles, not fewer than the %u of the LOD before", where,
                    lod->triangle_count, bake->lods[k - 1].triangle_count);
    }
    if ((uint64_t)bake->lod_index_total + lod->index_count > MANIFEST_MAX_LOD_INDICES ||
        (uint64_t)bake->lod_vertex_total + lod->vertex_count > MANIFEST_MAX_VERTICES) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "the LODs hold too many indices or vertices");
    }
    bake->lod_index_total += lod->index_count;
    bake->lod_vertex_total += lod->vertex_count;
    return CROWD_OK;
}

/* Version 2: lods (LOD 0 first). Version 1: LOD 0 only (its index count
 * comes from the mesh). */
static crowd_result read_lods(manifest_reader *r, const cJSON *root, crowd_bake *bake) {
    bake->lod_count = 1;
    bake->lods[0] = (crowd_bake_lod){.vertex_count = bake->vertex_count};
    if (r->version == 1) {
        return CROWD_OK;
    }
    cJSON *lods;
    crowd_result result = member(r, root, "", "lods", &lods);
    if (result != CROWD_OK) {
        return result;
    }
    int count = cJSON_IsArray(lods) ? cJSON_GetArraySize(lods) : -1;
    if (count < 1 || count > CROWD_BAKE_MAX_LODS) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "lods must be an array of 1 to %d LODs",
                    CROWD_BAKE_MAX_LODS);
    }
    /* the mesh file names LOD0 vertices by floats, exact below 2^24 */
    if (count > 1 && bake->vertex_count >= (1u << 24)) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "LODs of a mesh of %u vertices (at most 2^24)",
                    bake->vertex_count);
    }
    for (int k = 0; k < count && result == CROWD_OK; k++) {
        const cJSON *object = cJSON_GetArrayItem(lods, k);
        result = cJSON_IsObject(object)
                     ? read_lod(r, object, (uint32_t)k, bake)
                     : fail(r, CROWD_ERROR_INVALID_DATA, "lods[%d] must be an object", k);
    }
    if (result == CROWD_OK) {
        bake->lod_count = (uint32_t)count;
    }
    return result;
}

/* ---- textures ------------------------------------------------------------- */

/* width, height and rows_per_frame for `items` texels per frame. */
static crowd_result read_layout(manifest_reader *r, const cJSON *object, const char *where,
                                uint64_t items, const crowd_bake *bake, crowd_texture *texture,
                                uint32_t *rows_per_frame) {
    crowd_result result =
        get_uint(r, object, where, "width", 1, CROWD_BAKE_MAX_TEXTURE_SIZE, &texture->width);
    if (result == CROWD_OK) {
        result =
            get_uint(r, object, where, "height", 1, CROWD_BAKE_MAX_TEXTURE_SIZE, &texture->height);
    }
    if (result == CROWD_OK) {
        result = get_uint(r, object, where, "rows_per_frame", 1, CROWD_BAKE_MAX_TEXTURE_SIZE,
                          rows_per_frame);
    }
    if (result != CROWD_OK) {
        return result;
    }
    uint64_t rows = (items + texture->width - 1) / texture->width;
    if (*rows_per_frame != rows) {
        return fail(r, CROWD_ERROR_INVALID_DATA,
                    "%s.rows_per_frame is %u; %llu texels per frame at width %u need %llu", where,
                    *rows_per_frame, (unsigned long long)items, texture->width,
                    (unsigned long long)rows);
    }
    if ((uint64_t)texture->height != (uint64_t)bake->frame_count * rows) {
        return fail(r, CROWD_ERROR_INVALID_DATA,
                    "%s.height is %u; %u frames of %llu rows need %llu", where, texture->height,
                    bake->frame_count, (unsigned long long)rows,
                    (unsigned long long)bake->frame_count * rows);
    }
    return CROWD_OK;
}

static crowd_result check_unorm_range(manifest_reader *r, const manifest_range *range,
                                      const char *where) {
    for (int c = 0; c < 4; c++) {
        if (range->min[c] < 0.0f || range->max[c] > 65535.0f ||
            range->min[c] != floorf(range->min[c]) || range->max[c] != floorf(range->max[c])) {
            return fail(r, CROWD_ERROR_INVALID_DATA, "%s: channel %d is not 16-bit integer codes",
                        where, c);
        }
    }
    return CROWD_OK;
}

/* Float positions lie in the bounds, up to half-float rounding. */
static crowd_result check_position_range(manifest_reader *r, const manifest_range *range,
                                         const crowd_bake *bake) {
    float tolerance = bounds_tolerance(bake);
    for (int a = 0; a < 3; a++) {
        if (range->min[a] < bake->bounds_min[a] - tolerance ||
            range->max[a] > bake->bounds_max[a] + tolerance) {
            return fail(r, CROWD_ERROR_INVALID_DATA,
                        "vat.position_range axis %d [%g, %g] lies outside the bounds [%g, %g]", a,
                        (double)range->min[a], (double)range->max[a], (double)bake->bounds_min[a],
                        (double)bake->bounds_max[a]);
        }
    }
    return CROWD_OK;
}

static crowd_result check_normal_range(manifest_reader *r, const manifest_range *range) {
    for (int a = 0; a < 3; a++) {
        if (range->min[a] < -1.001f || range->max[a] > 1.001f) {
            return fail(r, CROWD_ERROR_INVALID_DATA, "vat.normal_range axis %d leaves [-1, 1]", a);
        }
    }
    return CROWD_OK;
}

static crowd_result read_vat(manifest_reader *r, const cJSON *vat, crowd_bake *bake,
                             manifest_info *info) {
    const char *encoding = NULL;
    crowd_result result = read_layout(r, vat, "vat", bake->vertex_count, bake, &bake->vat_position,
                                      &bake->vat_rows_per_frame);
    if (result == CROWD_OK) {
        result = get_string(r, vat, "vat", "encoding", &encoding);
    }
    if (result != CROWD_OK) {
        return result;
    }
    if (strcmp(encoding, "unorm16_oct") == 0) {
        bake->vat_encoding = CROWD_VAT_UNORM16_OCT;
        bake->vat_position.format = CROWD_TEXEL_RGBA16_UNORM;
    } else if (strcmp(encoding, "f16") == 0 || strcmp(encoding, "f32") == 0) {
        bool half = encoding[1] == '1';
        bake->vat_encoding = half ? CROWD_VAT_F16 : CROWD_VAT_F32;
        bake->vat_position.format = half ? CROWD_TEXEL_RGBA16F : CROWD_TEXEL_RGBA32F;
        bake->vat_normal = bake->vat_position;
    } else {
        return fail(r, CROWD_ERROR_UNSUPPORTED,
                    "vat.encoding \"%.40s\" is unknown (unorm16_oct, f16, f32)", encoding);
    }
    result = get_file_name(r, vat, "vat", "position", info->files.vat_position,
                           sizeof info->files.vat_position);
    if (result == CROWD_OK) {
        result = get_range(r, vat, "vat", "position_range", &info->vat_position_range);
    }
    if (result != CROWD_OK) {
        return result;
    }
    if (bake->vat_encoding == CROWD_VAT_UNORM16_OCT) {
        return check_unorm_range(r, &info->vat_position_range, "vat.position_range");
    }
    result = get_file_name(r, vat, "vat", "normal", info->files.vat_normal,
                           sizeof info->files.vat_normal);
    if (result == CROWD_OK) {
        result = get_range(r, vat, "vat", "normal_range", &info->vat_normal_range);
    }
    if (result == CROWD_OK) {
        result = check_position_range(r, &info->vat_position_range, bake);
    }
    return result == CROWD_OK ? check_normal_range(r, &info->vat_normal_range) : result;
}

static crowd_result read_bat(manifest_reader *r, const cJSON *bat, crowd_bake *bake,
                             manifest_info *info) {
    const char *encoding = NULL;
    crowd_result result = read_layout(r, bat, "bat", 3 * (uint64_t)bake->joint_count, bake,
                                      &bake->bat, &bake->bat_rows_per_frame);
    if (result == CROWD_OK) {
        result = get_string(r, bat, "bat", "encoding", &encoding);
    }
    if (result != CROWD_OK) {
        return result;
    }
    if (strcmp(encoding, "f32") == 0 || strcmp(encoding, "f16") == 0) {
        bool half = encoding[1] == '1';
        bake->bat_encoding = half ? CROWD_BAT_F16 : CROWD_BAT_F32;
        bake->bat.format = half ? CROWD_TEXEL_RGBA16F : CROWD_TEXEL_RGBA32F;
    } else {
        return fail(r, CROWD_ERROR_UNSUPPORTED, "bat.encoding \"%.40s\" is unknown (f32, f16)",
                    encoding);
    }
    result = get_file_name(r, bat, "bat", "file", info->files.bat, sizeof info->files.bat);
    return result == CROWD_OK ? get_range(r, bat, "bat", "range", &info->bat_range) : result;
}

/* The tracks' optional "names" (written since the three.js player's props):
 * one non-empty string per socket, no two alike. The runtime clips hold the
 * sockets themselves; these are for players without them. */
static crowd_result read_socket_names(manifest_reader *r, const cJSON *tracks, uint32_t count) {
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(tracks, "names");
    if (names == NULL) {
        return CROWD_OK;
    }
    bool ok = cJSON_IsArray(names) && (uint32_t)cJSON_GetArraySize(names) == count;
    for (int i = 0; ok && i < (int)count; i++) {
        const cJSON *name = cJSON_GetArrayItem(names, i);
        ok = cJSON_IsString(name) && name->valuestring[0] != '\0';
        for (int k = 0; ok && k < i; k++) {
            ok = strcmp(cJSON_GetArrayItem(names, k)->valuestring, name->valuestring) != 0;
        }
    }
    return ok ? CROWD_OK
              : fail(r, CROWD_ERROR_INVALID_DATA,
                     "socket_tracks.names must be %u different non-empty strings (one a socket)",
                     count);
}

/* The socket tracks: `sockets` of them, 3 texels each per frame, checked
 * against the runtime clips' sockets once those are read (load_bake.c). */
static crowd_result read_socket_tracks(manifest_reader *r, const cJSON *tracks, crowd_bake *bake,
                                       manifest_info *info) {
    const char *encoding = NULL;
    crowd_result result = get_uint(r, tracks, "socket_tracks", "sockets", 1,
                                   CROWD_BAKE_MAX_TEXTURE_SIZE, &bake->socket_count);
    if (result == CROWD_OK) {
        result = read_layout(r, tracks, "socket_tracks", 3 * (uint64_t)bake->socket_count, bake,
                             &bake->socket_tracks, &bake->socket_rows_per_frame);
    }
    if (result == CROWD_OK) {
        result = read_socket_names(r, tracks, bake->socket_count);
    }
    if (result == CROWD_OK) {
        result = get_string(r, tracks, "socket_tracks", "encoding", &encoding);
    }
    if (result != CROWD_OK) {
        return result;
    }
    if (strcmp(encoding, "f32") != 0) {
        return fail(r, CROWD_ERROR_UNSUPPORTED, "socket_tracks.encoding \"%.40s\" is unknown (f32)",
                    encoding);
    }
    bake->socket_tracks.format = CROWD_TEXEL_RGBA32F;
    result = get_file_name(r, tracks, "socket_tracks", "file", info->files.socket_tracks,
                           sizeof info->files.socket_tracks);
    return result == CROWD_OK
               ? get_range(r, tracks, "socket_tracks", "range", &info->socket_tracks_range)
               : result;
}

/* ---- runtime clips (version 4) -------------------------------------------------- */

static crowd_result get_count(manifest_reader *r, const cJSON *object, const char *key,
                              uint32_t *out) {
    return get_uint(r, object, "anim", key, 0, 4294967295.0, out);
}

/* "anim": null, or the file with its counts, size and measured error. */
static crowd_result read_anim(manifest_reader *r, const cJSON *root, manifest_info *info) {
    cJSON *anim = NULL;
    crowd_result result = member(r, root, "", "anim", &anim);
    if (result != CROWD_OK || cJSON_IsNull(anim)) {
        return result;
    }
    if (!cJSON_IsObject(anim)) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "anim must be an object or null");
    }
    crowd_bake_anim *out = &info->anim;
    uint32_t size = 0;
    result = get_file_name(r, anim, "anim", "file", info->files.anim, sizeof info->files.anim);
    if (result == CROWD_OK) {
        result = get_count(r, anim, "track_count", &out->track_count);
    }
    if (result == CROWD_OK) {
        result = get_count(r, anim, "key_count", &out->key_count);
    }
    if (result == CROWD_OK) {
        result = get_count(r, anim, "size_bytes", &size);
        out->size_bytes = size;
    }
    if (result == CROWD_OK) {
        result = get_double(r, anim, "anim", "error_max", &out->error_max);
    }
    if (result == CROWD_OK) {
        result = get_double(r, anim, "anim", "error_max_rel", &out->error_max_rel);
    }
    if (result == CROWD_OK && !(out->error_max >= 0.0 && out->error_max_rel >= 0.0)) {
        result = fail(r, CROWD_ERROR_INVALID_DATA, "anim.error_max and error_max_rel must be >= 0");
    }
    return result;
}

/* ---- file checks (version 3) --------------------------------------------------- */

/* A path of the set: a plain name, or one inside the OpenVAT folder. */
static bool set_path_valid(const char *path) {
    const char *slash = strchr(path, '/');
    size_t folder = strlen(MANIFEST_OPENVAT_FOLDER);
    return slash == NULL ? crowd__manifest_valid_file_name(path)
                         : (size_t)(slash - path) == folder &&
                               strncmp(path, MANIFEST_OPENVAT_FOLDER, folder) == 0 &&
                               crowd__manifest_valid_file_name(slash + 1);
}

/* Sizes up to 2^53 bytes: every integer a JSON reader's double holds exactly. */
#define MANIFEST_MAX_FILE_BYTES 9007199254740992.0

static crowd_result read_check(manifest_reader *r, const cJSON *item, manifest_check *check) {
    char where[MANIFEST_NAME_MAX + 48];
    snprintf(where, sizeof where, "files[\"%.*s\"]", MANIFEST_NAME_MAX + 16, item->string);
    if (!set_path_valid(item->string)) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "%s is not a file name inside the bake folder",
                    where);
    }
    if (!cJSON_IsObject(item)) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "%s must be an object", where);
    }
    snprintf(check->name, sizeof check->name, "%s", item->string);
    cJSON *size = NULL;
    crowd_result result = member(r, item, where, "size_bytes", &size);
    double bytes = cJSON_IsNumber(size) ? size->valuedouble : NAN;
    if (result == CROWD_OK &&
        !(bytes >= 0 && bytes <= MANIFEST_MAX_FILE_BYTES && bytes == floor(bytes))) {
        result = fail(r, CROWD_ERROR_INVALID_DATA,
                      "%s.size_bytes must be an integer from 0 to 2^53", where);
    }
    check->size_bytes = result == CROWD_OK ? (uint64_t)bytes : 0;
    return result == CROWD_OK ? get_uint(r, item, where, "crc32", 0, 4294967295.0, &check->crc32)
                              : result;
}

/* "files": every file the manifest names, once, with its size and crc32. */
static crowd_result read_checks(manifest_reader *r, const cJSON *root, manifest_info *info) {
    cJSON *files;
    crowd_result result = member(r, root, "", "files", &files);
    if (result == CROWD_OK && !cJSON_IsObject(files)) {
        result = fail(r, CROWD_ERROR_INVALID_DATA, "files must be an object");
    }
    if (result != CROWD_OK) {
        return result;
    }
    const cJSON *item;
    cJSON_ArrayForEach(item, files) {
        if (info->check_count == MANIFEST_MAX_FILES) {
            return fail(r, CROWD_ERROR_INVALID_DATA, "files names more than %d files",
                        MANIFEST_MAX_FILES);
        }
        if (crowd__manifest_find_check(info, item->string) != NULL) {
            return fail(r, CROWD_ERROR_INVALID_DATA, "files names \"%.100s\" twice", item->string);
        }
        result = read_check(r, item, &info->checks[info->check_count]);
        if (result != CROWD_OK) {
            return result;
        }
        info->check_count++;
    }
    const char *named[] = {info->files.vat_position, info->files.vat_normal,
                           info->files.bat,          info->files.mesh,
                           info->files.anim,         info->files.socket_tracks};
    for (int i = 0; i < 6 && result == CROWD_OK; i++) {
        if (named[i][0] != '\0' && crowd__manifest_find_check(info, named[i]) == NULL) {
            result = fail(r, CROWD_ERROR_INVALID_DATA,
                          "files has no size and checksum for \"%.100s\", which the manifest uses",
                          named[i]);
        }
    }
    return result;
}

/* ---- header ---------------------------------------------------------------- */

static crowd_result read_identity(manifest_reader *r, const cJSON *root, manifest_info *info) {
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!cJSON_IsString(format) || strcmp(format->valuestring, MANIFEST_FORMAT) != 0) {
        return fail(r, CROWD_ERROR_INVALID_DATA,
                    "not a crowd bake manifest (\"format\" is not \"%s\")", MANIFEST_FORMAT);
    }
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "version");
    if (!cJSON_IsNumber(version) || version->valuedouble != floor(version->valuedouble)) {
        return fail(r, CROWD_ERROR_INVALID_DATA, "\"version\" must be an integer");
    }
    if (!(version->valuedouble >= 1 && version->valuedouble <= CROWD_BAKE_FORMAT_VERSION)) {
        return fail(r, CROWD_ERROR_UNSUPPORTED,
                    "manifest version %.0f; this crowd reads versions 1 to %d",
                    version->valuedouble, CROWD_BAKE_FORMAT_VERSION);
    }
    r->version = info->version = (uint32_t)version->valuedouble;
    const char *producer = NULL, *coordinates = NULL;
    crowd_result result = get_string(r, root, "", "producer", &producer);
    if (result == CROWD_OK) {
        result = get_string(r, root, "", "coordinate_system", &coordinates);
    }
    if (result == CROWD_OK && strcmp(coordinates, "gltf") != 0) {
        result = fail(r, CROWD_ERROR_UNSUPPORTED,
                      "coordinate_system \"%.40s\"; only \"gltf\" is defined", coordinates);
    }
    return result;
}

/* The bake's name: the manifest's "name", or the file name without its suffix. */
static crowd_result read_name(manifest_reader *r, const cJSON *root, crowd_bake *bake,
                              manifest_info *info) {
    const char *base = strrchr(r->file, '/');
    base = base ? base + 1 : r->file;
    snprintf(info->files.manifest, sizeof info->files.manifest, "%s", base);
    char name[MANIFEST_NAME_MAX + 1];
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, "name");
    if (item != NULL) {
        if (!cJSON_IsString(item) || !crowd__manifest_valid_file_name(item->valuestring)) {
            return fail(r, CROWD_ERROR_INVALID_DATA, "\"name\" must be a plain file name");
        }
        snprintf(name, sizeof name, "%s", item->valuestring);
    } else {
        size_t length = strlen(base), suffix = strlen(MANIFEST_SUFFIX);
        length = length > suffix && strcmp(base + length - suffix, MANIFEST_SUFFIX) == 0
                     ? length - suffix
                     : length;
        snprintf(name, sizeof name, "%.*s",
                 (int)(length < MANIFEST_NAME_MAX ? length : MANIFEST_NAME_MAX), base);
    }
    const char *source = NULL;
    crowd_result result = get_string(r, root, "", "source", &source);
    if (result == CROWD_OK &&
        ((bake->name = crowd__core_copy_string_with(&bake->allocator, name)) == NULL ||
         (bake->source = crowd__core_copy_string_with(&bake->allocator, source)) == NULL)) {
        result = fail(r, CROWD_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    return result;
}

static crowd_result read_counts(manifest_reader *r, const cJSON *root, crowd_bake *bake) {
    crowd_result result =
        get_uint(r, root, "", "vertex_count", 1, MANIFEST_MAX_VERTICES, &bake->vertex_count);
    if (result == CROWD_OK) {
        result = get_uint(r, root, "", "joint_count", 1, CROWD_MAX_JOINTS, &bake->joint_count);
    }
    if (result == CROWD_OK && r->version < 3) {
        result = read_fps(r, root, "", &r->legacy_fps);
    }
    if (result == CROWD_OK && r->version >= 3) {
        result = get_double(r, root, "", "between_error_budget", &bake->between_error_budget_rel);
        if (result == CROWD_OK &&
            !(bake->between_error_budget_rel > 0.0 && bake->between_error_budget_rel < 1.0)) {
            result = fail(r, CROWD_ERROR_INVALID_DATA, "between_error_budget %g is outside (0, 1)",
                          bake->between_error_budget_rel);
        }
    }
    if (result == CROWD_OK) {
        result = get_uint(r, root, "", "frame_count", 1, CROWD_BAKE_MAX_TEXTURE_SIZE,
                          &bake->frame_count);
    }
    cJSON *bounds = NULL;
    if (result == CROWD_OK) {
        result = member(r, root, "", "bounds", &bounds);
    }
    if (result == CROWD_OK) {
        result = get_floats(r, bounds, "bounds", "min", 3, bake->bounds_min);
    }
    if (result == CROWD_OK) {
        result = get_floats(r, bounds, "bounds", "max", 3, bake->bounds_max);
    }
    for (int a = 0; a < 3 && result == CROWD_OK; a++) {
        if (bake->bounds_min[a] > bake->bounds_max[a]) {
            result =
                fail(r, CROWD_ERROR_INVALID_DATA, "bounds.min[%d] is above bounds.max[%d]", a, a);
        }
    }
    return result;
}

crowd_result crowd__manifest_read(const char *json, size_t size, const char *file, crowd_bake *bake,
                                  manifest_info *info, crowd_error *error) {
    manifest_reader r = {file, error, 0, 0.0f};
    memset(info, 0, sizeof *info);
    crowd_result strict = crowd__manifest_check_bytes(json, size, file, error);
    if (strict != CROWD_OK) {
        return strict;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, size, &end, false);
    if (!cJSON_IsObject(root)) {
        long offset = root == NULL && end != NULL ? (long)(end - json) : 0;
        cJSON_Delete(root);
        return root == NULL
                   ? fail(&r, CROWD_ERROR_INVALID_DATA, "not valid JSON (error at byte %ld)",
                          offset)
                   : fail(&r, CROWD_ERROR_INVALID_DATA, "the manifest is not a JSON object");
    }
    crowd_result result = crowd__manifest_check_end(json, size, end, file, error);
    if (result == CROWD_OK) {
        result = crowd__manifest_check_keys(root, file, error);
    }
    if (result == CROWD_OK) {
        result = read_identity(&r, root, info);
    }
    if (result == CROWD_OK) {
        result = read_name(&r, root, bake, info);
    }
    if (result == CROWD_OK) {
        result = read_counts(&r, root, bake);
    }
    if (result == CROWD_OK) {
        result = read_clips(&r, root, bake);
    }
    if (result == CROWD_OK) {
        result = crowd__manifest_read_blends(root, file, bake, error);
    }
    if (result == CROWD_OK) {
        result = read_lods(&r, root, bake);
    }
    cJSON *vat = NULL, *bat = NULL;
    if (result == CROWD_OK && (result = member(&r, root, "", "vat", &vat)) == CROWD_OK &&
        !cJSON_IsNull(vat)) {
        result = cJSON_IsObject(vat)
                     ? read_vat(&r, vat, bake, info)
                     : fail(&r, CROWD_ERROR_INVALID_DATA, "vat must be an object or null");
    }
    if (result == CROWD_OK && (result = member(&r, root, "", "bat", &bat)) == CROWD_OK &&
        !cJSON_IsNull(bat)) {
        result = cJSON_IsObject(bat)
                     ? read_bat(&r, bat, bake, info)
                     : fail(&r, CROWD_ERROR_INVALID_DATA, "bat must be an object or null");
    }
    /* Optional (bakes before socket tracks have none): absent or null. They
     * follow the runtime clips' sockets, so only version 4 has them. */
    const cJSON *tracks = cJSON_GetObjectItemCaseSensitive(root, "socket_tracks");
    if (result == CROWD_OK && r.version >= 4 && tracks != NULL && !cJSON_IsNull(tracks)) {
        result = cJSON_IsObject(tracks) ? read_socket_tracks(&r, tracks, bake, info)
                                        : fail(&r, CROWD_ERROR_INVALID_DATA,
                                               "socket_tracks must be an object or null");
    }
    if (result == CROWD_OK && cJSON_IsNull(vat) && cJSON_IsNull(bat)) {
        result = fail(&r, CROWD_ERROR_INVALID_DATA, "the bake has neither a VAT nor a BAT");
    }
    if (result == CROWD_OK) {
        result = get_file_name(&r, root, "", "mesh", info->files.mesh, sizeof info->files.mesh);
    }
    if (result == CROWD_OK && r.version >= 4) {
        result = read_anim(&r, root, info);
    }
    if (result == CROWD_OK && r.version >= 3) {
        result = read_checks(&r, root, info);
    }
    cJSON_Delete(root);
    return result;
}

/* ---- files named by an old manifest ----------------------------------------- */

static void add_path(const cJSON *object, const char *key, manifest_path *paths, uint32_t *count) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    if (cJSON_IsString(item) && *count < MANIFEST_MAX_FILES && set_path_valid(item->valuestring)) {
        snprintf(paths[(*count)++], sizeof *paths, "%s", item->valuestring);
    }
}

uint32_t crowd__manifest_referenced_files(const char *json, size_t size, manifest_path *paths) {
    cJSON *root = cJSON_ParseWithLength(json, size);
    uint32_t count = 0;
    const cJSON *vat = cJSON_GetObjectItemCaseSensitive(root, "vat");
    const cJSON *bat = cJSON_GetObjectItemCaseSensitive(root, "bat");
    const cJSON *openvat = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "compat"), "openvat");
    add_path(vat, "position", paths, &count);
    add_path(vat, "normal", paths, &count);
    add_path(bat, "file", paths, &count);
    add_path(root, "mesh", paths, &count);
    add_path(cJSON_GetObjectItemCaseSensitive(root, "anim"), "file", paths, &count);
    add_path(cJSON_GetObjectItemCaseSensitive(root, "socket_tracks"), "file", paths, &count);
    add_path(openvat, "remap_info", paths, &count);
    add_path(openvat, "texture", paths, &count);
    add_path(openvat, "mesh", paths, &count);
    cJSON_Delete(root);
    return count;
}
