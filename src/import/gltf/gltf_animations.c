/* gltf_animations.c - glTF animations to crowd clips.
 *
 * Every animation's samplers and channels are checked first (accessor
 * indices, interpolation, a channel's sampler and target), and the nodes of
 * the scene that translation, rotation and scale channels move are marked
 * as joints. Then each animation that moves a node of the scene becomes a
 * clip: per channel, its sampler's input (SCALAR float seconds) and output
 * (VEC3 for translation and scale: floats or KHR_mesh_quantization's
 * integers; VEC4 for rotation: floats or normalized integers), exactly one
 * output element per key (three for CUBICSPLINE: in-tangent, value,
 * out-tangent). STEP, LINEAR and CUBICSPLINE are kept as they are. Keys out
 * of order, negative in time or not finite are dropped and counted;
 * STEP/LINEAR rotations are normalized (cubic ones after interpolation,
 * crowd_anim_sample). Morph target weights are ignored (said once per
 * animation), a channel on a node outside the scene too (with a warning),
 * and the second channel of a node and path (with a warning). The clip
 * lasts until its last key and loops when its first and last poses match.
 * Empty and repeated names become "clip_N" / "NAME_N" (counted).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "crowd/asset.h"
#include "import/anim/anim_internal.h"
#include "import/gltf/gltf_internal.h"

typedef enum target_path {
    PATH_TRANSLATION,
    PATH_ROTATION,
    PATH_SCALE,
    PATH_WEIGHTS,
    PATH_OTHER
} target_path;

static const char *const path_names[] = {"translation", "rotation", "scale", "weights"};

static target_path channel_path(const cJSON *channel) {
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(channel, "target"), "path");
    for (int p = 0; p < 4; p++) {
        if (cJSON_IsString(path) && strcmp(path->valuestring, path_names[p]) == 0) {
            return (target_path)p;
        }
    }
    return PATH_OTHER;
}

static crowd_result check_sampler(gltf_import *imp, const cJSON *sampler, const char *path) {
    gltf_document *doc = imp->doc;
    if (!cJSON_IsObject(sampler)) {
        return gltf_fail(doc, "%s is not an object", path);
    }
    uint32_t index = 0;
    crowd_result result = gltf_ref(doc, sampler, "input", GLTF_ACCESSORS, true, path, &index, NULL);
    if (result == CROWD_OK) {
        result = gltf_ref(doc, sampler, "output", GLTF_ACCESSORS, true, path, &index, NULL);
    }
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(sampler, "interpolation");
    const char *name = cJSON_IsString(mode) ? mode->valuestring : "LINEAR";
    if (result == CROWD_OK && ((mode != NULL && !cJSON_IsString(mode)) ||
                               (strcmp(name, "LINEAR") != 0 && strcmp(name, "STEP") != 0 &&
                                strcmp(name, "CUBICSPLINE") != 0))) {
        result = gltf_fail(doc, "%s: unknown interpolation '%.40s' (LINEAR, STEP or CUBICSPLINE)",
                           path, cJSON_IsString(mode) ? name : "(not a string)");
    }
    return result;
}

/* The channel's target node when it is in the scene, else -1. */
static int32_t channel_node(const gltf_import *imp, const cJSON *channel) {
    uint64_t node = 0;
    const cJSON *target = cJSON_GetObjectItemCaseSensitive(channel, "target");
    if (!gltf_json_uint(target, "node", UINT64_MAX, imp->node_count - 1, &node) ||
        !imp->nodes[node].in_scene) {
        return -1;
    }
    return (int32_t)node;
}

static crowd_result check_channel(gltf_import *imp, const cJSON *channel, uint32_t samplers,
                                  const char *path) {
    gltf_document *doc = imp->doc;
    uint64_t sampler = 0;
    if (!cJSON_IsObject(channel) ||
        !gltf_json_uint(channel, "sampler", UINT64_MAX, samplers > 0 ? samplers - 1 : 0,
                        &sampler) ||
        samplers == 0) {
        return gltf_fail(doc, "%s.sampler is missing or not one of the animation's %u samplers",
                         path, samplers);
    }
    const cJSON *target = cJSON_GetObjectItemCaseSensitive(channel, "target");
    if (!cJSON_IsObject(target)) {
        return gltf_fail(doc, "%s.target is missing or not an object", path);
    }
    char where[96];
    snprintf(where, sizeof where, "%s.target", path);
    uint32_t node = 0;
    bool ok = true;
    gltf_json_string(target, "path", &ok);
    crowd_result result = gltf_ref(doc, target, "node", GLTF_NODES, false, where, &node, NULL);
    if (result == CROWD_OK && (!ok || cJSON_GetObjectItemCaseSensitive(target, "path") == NULL)) {
        result = gltf_fail(doc, "%s.path is missing or not a string", where);
    }
    return result;
}

bool gltf_animations_mark(gltf_import *imp, crowd_result *result) {
    bool any = false;
    *result = CROWD_OK;
    const gltf_list *animations = &imp->doc->lists[GLTF_ANIMATIONS];
    for (uint32_t a = 0; a < animations->count && *result == CROWD_OK; a++) {
        const cJSON *samplers = cJSON_GetObjectItemCaseSensitive(animations->items[a], "samplers");
        const cJSON *channels = cJSON_GetObjectItemCaseSensitive(animations->items[a], "channels");
        if (!cJSON_IsArray(samplers) || !cJSON_IsArray(channels)) {
            *result = gltf_fail(
                imp->doc, "animations[%u]: samplers or channels is missing or not an array", a);
            break;
        }
        char path[64];
        uint32_t i = 0;
        for (const cJSON *s = samplers->child; s != NULL && *result == CROWD_OK; s = s->next, i++) {
            snprintf(path, sizeof path, "animations[%u].samplers[%u]", a, i);
            *result = check_sampler(imp, s, path);
        }
        uint32_t sampler_count = i;
        i = 0;
        for (const cJSON *c = channels->child; c != NULL && *result == CROWD_OK; c = c->next, i++) {
            snprintf(path, sizeof path, "animations[%u].channels[%u]", a, i);
            *result = check_channel(imp, c, sampler_count, path);
            int32_t node = *result == CROWD_OK ? channel_node(imp, c) : -1;
            if (node >= 0 && channel_path(c) < PATH_WEIGHTS) {
                imp->nodes[node].marked = true;
                any = true;
            }
        }
    }
    return any;
}

/* What one clip's channels share. */
typedef struct clip_builder {
    gltf_import *imp;
    crowd_clip *clip;
    uint32_t animation;
    bool *animated; /* 3 per joint: translation, rotation, scale taken */
    float duration_s;
} clip_builder;

/* The sampler's keys into `track` as the file has them; *count keys. */
static crowd_result read_keys(clip_builder *b, const cJSON *sampler, target_path path,
                              const char *where, crowd_track *track, uint32_t *count) {
    gltf_document *doc = b->imp->doc;
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(sampler, "interpolation");
    const char *name = cJSON_IsString(mode) ? mode->valuestring : "LINEAR";
    track->interpolation = strcmp(name, "STEP") == 0          ? CROWD_INTERP_STEP
                           : strcmp(name, "CUBICSPLINE") == 0 ? CROWD_INTERP_CUBIC
                                                              : CROWD_INTERP_LINEAR;
    gltf_accessor input, output;
    crowd_result result = gltf_accessor_open(doc, sampler, "input", where, true, &input, NULL);
    if (result == CROWD_OK) {
        result = gltf_accessor_open(doc, sampler, "output", where, true, &output, NULL);
    }
    if (result != CROWD_OK) {
        return result;
    }
    uint32_t components = path == PATH_ROTATION ? 4 : 3;
    uint32_t per_key = track->interpolation == CROWD_INTERP_CUBIC ? 3 : 1;
    if (input.components != 1 || input.is_matrix || input.component_type != GLTF_FLOAT) {
        return gltf_fail(doc, "%s.input: %s is not SCALAR of floats", where, input.path);
    }
    bool integer = output.component_type != GLTF_FLOAT;
    if (output.components != components || output.is_matrix ||
        output.component_type == GLTF_UNSIGNED_INT ||
        (path == PATH_ROTATION && integer && !output.normalized)) {
        return gltf_fail(doc, "%s.output: %s is not VEC%u of floats or %s integers", where,
                         output.path, components,
                         path == PATH_ROTATION ? "normalized" : "8/16-bit");
    }
    if ((uint64_t)input.count * per_key != output.count) {
        return gltf_fail(doc, "%s: %u keys need %llu output elements, the output accessor has %u",
                         where, input.count, (unsigned long long)input.count * per_key,
                         output.count);
    }
    float *times = NULL, *values = NULL;
    result = gltf_accessor_floats(doc, &input, &times);
    if (result == CROWD_OK) {
        result = gltf_accessor_floats(doc, &output, &values);
    }
    if (result != CROWD_OK) {
        free(times);
        free(values);
        return result;
    }
    for (size_t i = 0; path == PATH_TRANSLATION && i < (size_t)output.count * 3; i++) {
        values[i] *= b->imp->scale;
    }
    track->times_s = times;
    track->values = values;
    *count = input.count;
    return CROWD_OK;
}

/* Drops the keys that are out of order, negative in time or not finite
 * (counted); normalizes STEP/LINEAR rotations. */
static void clean_keys(clip_builder *b, crowd_track *track, uint32_t count, uint32_t components) {
    uint32_t stride = components * (track->interpolation == CROWD_INTERP_CUBIC ? 3 : 1);
    uint32_t kept = 0;
    for (uint32_t k = 0; k < count; k++) {
        float time_s = track->times_s[k];
        float *value = &track->values[(size_t)k * stride];
        bool ok =
            isfinite(time_s) && time_s >= 0.0f && (kept == 0 || time_s >= track->times_s[kept - 1]);
        for (uint32_t c = 0; c < stride && ok; c++) {
            ok = isfinite(value[c]);
        }
        if (ok && components == 4 && track->interpolation != CROWD_INTERP_CUBIC) {
            float length = sqrtf(value[0] * value[0] + value[1] * value[1] + value[2] * value[2] +
                                 value[3] * value[3]);
            ok = isfinite(length) && length >= 1e-6f;
            for (uint32_t c = 0; c < 4 && ok; c++) {
                value[c] /= length;
            }
        }
        if (!ok) {
            b->imp->asset->repairs.keys_dropped++;
            continue;
        }
        track->times_s[kept] = time_s;
        memmove(&track->values[(size_t)kept * stride], value, stride * sizeof *value);
        kept++;
    }
    track->key_count = kept;
    if (kept > 0 && track->times_s[kept - 1] > b->duration_s) {
        b->duration_s = track->times_s[kept - 1];
    }
}

static crowd_result add_channel(clip_builder *b, const cJSON *animation, const cJSON *channel,
                                uint32_t c) {
    gltf_import *imp = b->imp;
    target_path path = channel_path(channel);
    int32_t node = channel_node(imp, channel);
    if (path >= PATH_WEIGHTS) {
        return CROWD_OK;
    }
    if (node < 0) {
        crowd_log(imp->logger, CROWD_LOG_WARNING,
                  "%s: animations[%u].channels[%u] moves no node of the scene; ignored", imp->file,
                  b->animation, c);
        return CROWD_OK;
    }
    int32_t joint = imp->nodes[node].joint;
    if (b->animated[3 * joint + path]) {
        char buffer[24];
        crowd_log(imp->logger, CROWD_LOG_WARNING,
                  "%s: animations[%u] animates the %s of node '%s' twice; channels[%u] is ignored",
                  imp->file, b->animation, path_names[path],
                  gltf_node_name(imp, (uint32_t)node, buffer), c);
        return CROWD_OK;
    }
    b->animated[3 * joint + path] = true;
    uint64_t s = 0;
    gltf_json_uint(channel, "sampler", 0, UINT32_MAX, &s);
    const cJSON *sampler =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(animation, "samplers"), (int)s);
    char where[64];
    snprintf(where, sizeof where, "animations[%u].samplers[%llu]", b->animation,
             (unsigned long long)s);
    crowd_joint_tracks *tracks = &b->clip->tracks[joint];
    crowd_track *track = path == PATH_TRANSLATION ? &tracks->translation
                         : path == PATH_ROTATION  ? &tracks->rotation
                                                  : &tracks->scale;
    uint32_t count = 0;
    crowd_result result = read_keys(b, sampler, path, where, track, &count);
    if (result == CROWD_OK) {
        clean_keys(b, track, count, path == PATH_ROTATION ? 4 : 3);
    }
    return result;
}

static crowd_result build_clip(gltf_import *imp, uint32_t a, bool *animated) {
    const cJSON *animation = imp->doc->lists[GLTF_ANIMATIONS].items[a];
    const cJSON *channels = cJSON_GetObjectItemCaseSensitive(animation, "channels");
    bool usable = false, morphs = false;
    for (const cJSON *c = channels->child; c != NULL; c = c->next) {
        usable = usable || (channel_path(c) < PATH_WEIGHTS && channel_node(imp, c) >= 0);
        morphs = morphs || channel_path(c) == PATH_WEIGHTS;
    }
    if (morphs) {
        crowd_log(imp->logger, CROWD_LOG_INFO, "%s: animations[%u]: morph target weights ignored",
                  imp->file, a);
    }
    bool ok = true;
    const char *name = gltf_json_string(animation, "name", &ok);
    if (!ok) {
        return gltf_fail(imp->doc, "animations[%u].name is not a string", a);
    }
    if (!usable) {
        crowd_log(imp->logger, CROWD_LOG_INFO,
                  "%s: animations[%u] '%s' moves no node of the scene; skipped", imp->file, a,
                  name ? name : "");
        return CROWD_OK;
    }
    crowd_asset *asset = imp->asset;
    uint32_t joint_count = asset->skeleton.joint_count;
    /* Counted before it is filled, so a failure still frees what was made. */
    crowd_clip *clip = &asset->clips[asset->clip_count++];
    clip->tracks = calloc(joint_count, sizeof *clip->tracks);
    clip->name = core_copy_string(name ? name : "");
    if (clip->tracks == NULL || clip->name == NULL) {
        return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    memset(animated, 0, 3 * (size_t)joint_count * sizeof *animated);
    clip_builder b = {imp, clip, a, animated, 0.0f};
    crowd_result result = CROWD_OK;
    uint32_t c = 0;
    for (const cJSON *channel = channels->child; channel != NULL && result == CROWD_OK;
         channel = channel->next, c++) {
        result = add_channel(&b, animation, channel, c);
    }
    clip->duration_s = b.duration_s;
    return result == CROWD_OK
               ? anim_clip_decide_loop(&imp->asset->skeleton, clip, imp->file, imp->error)
               : result;
}

crowd_result gltf_animations_build(gltf_import *imp) {
    uint32_t count = imp->doc->lists[GLTF_ANIMATIONS].count;
    crowd_asset *asset = imp->asset;
    if (imp->static_only || count == 0) {
        return CROWD_OK;
    }
    asset->clips = calloc(count, sizeof *asset->clips);
    bool *animated = malloc(3 * (size_t)asset->skeleton.joint_count * sizeof *animated);
    crowd_result result = CROWD_OK;
    if (asset->clips == NULL || animated == NULL) {
        result = crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    for (uint32_t a = 0; a < count && result == CROWD_OK; a++) {
        result = build_clip(imp, a, animated);
    }
    free(animated);
    return result == CROWD_OK ? anim_clip_names_unique(asset, 0, imp->logger, imp->file, imp->error)
                              : result;
}
