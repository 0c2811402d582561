/* gltf_animations.c - glTF animations into the intermediate scene.
 *
 * Every animation's samplers and channels are checked first (accessor
 * indices, interpolation, a channel's sampler and target). Then every
 * animation goes into the scene with its translation, rotation and scale
 * channels: per channel, its sampler's input (SCALAR float seconds) and
 * output (VEC3 for translation and scale: floats or KHR_mesh_quantization's
 * integers; VEC4 for rotation: floats or normalized integers), exactly one
 * output element per key (three for CUBICSPLINE: in-tangent, value,
 * out-tangent), with STEP, LINEAR or CUBICSPLINE as the file says. Morph
 * target weights are ignored (said once per animation), a channel on a
 * node outside the scene too (with a warning). What the keys become
 * (cleaning, durations, loops, names) is the pipeline's (scene_clips.c).
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
        return crowd__gltf_fail(doc, "%s is not an object", path);
    }
    uint32_t index = 0;
    crowd_result result =
        crowd__gltf_ref(doc, sampler, "input", GLTF_ACCESSORS, true, path, &index, NULL);
    if (result == CROWD_OK) {
        result = crowd__gltf_ref(doc, sampler, "output", GLTF_ACCESSORS, true, path, &index, NULL);
    }
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(sampler, "interpolation");
    const char *name = cJSON_IsString(mode) ? mode->valuestring : "LINEAR";
    if (result == CROWD_OK && ((mode != NULL && !cJSON_IsString(mode)) ||
                               (strcmp(name, "LINEAR") != 0 && strcmp(name, "STEP") != 0 &&
                                strcmp(name, "CUBICSPLINE") != 0))) {
        result =
            crowd__gltf_fail(doc, "%s: unknown interpolation '%.40s' (LINEAR, STEP or CUBICSPLINE)",
                             path, cJSON_IsString(mode) ? name : "(not a string)");
    }
    return result;
}

/* The channel's target node when it is in the scene, else -1. */
static int32_t channel_node(const gltf_import *imp, const cJSON *channel) {
    uint64_t node = 0;
    const cJSON *target = cJSON_GetObjectItemCaseSensitive(channel, "target");
    if (!crowd__gltf_json_uint(target, "node", UINT64_MAX, imp->node_count - 1, &node) ||
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
        !crowd__gltf_json_uint(channel, "sampler", UINT64_MAX, samplers > 0 ? samplers - 1 : 0,
                               &sampler) ||
        samplers == 0) {
        return crowd__gltf_fail(
            doc, "%s.sampler is missing or not one of the animation's %u samplers", path, samplers);
    }
    const cJSON *target = cJSON_GetObjectItemCaseSensitive(channel, "target");
    if (!cJSON_IsObject(target)) {
        return crowd__gltf_fail(doc, "%s.target is missing or not an object", path);
    }
    char where[96];
    snprintf(where, sizeof where, "%s.target", path);
    uint32_t node = 0;
    bool ok = true;
    crowd__gltf_json_string(target, "path", &ok);
    crowd_result result =
        crowd__gltf_ref(doc, target, "node", GLTF_NODES, false, where, &node, NULL);
    if (result == CROWD_OK && (!ok || cJSON_GetObjectItemCaseSensitive(target, "path") == NULL)) {
        result = crowd__gltf_fail(doc, "%s.path is missing or not a string", where);
    }
    return result;
}

/* The sampler's keys into `channel` as the file has them. */
static crowd_result read_keys(gltf_import *imp, const cJSON *sampler, target_path path,
                              const char *where, import_scene_channel *channel) {
    gltf_document *doc = imp->doc;
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(sampler, "interpolation");
    const char *name = cJSON_IsString(mode) ? mode->valuestring : "LINEAR";
    channel->interpolation = strcmp(name, "STEP") == 0          ? CROWD_INTERP_STEP
                             : strcmp(name, "CUBICSPLINE") == 0 ? CROWD_INTERP_CUBIC
                                                                : CROWD_INTERP_LINEAR;
    gltf_accessor input, output;
    crowd_result result =
        crowd__gltf_accessor_open(doc, sampler, "input", where, true, &input, NULL);
    if (result == CROWD_OK) {
        result = crowd__gltf_accessor_open(doc, sampler, "output", where, true, &output, NULL);
    }
    if (result != CROWD_OK) {
        return result;
    }
    uint32_t components = path == PATH_ROTATION ? 4 : 3;
    uint32_t per_key = channel->interpolation == CROWD_INTERP_CUBIC ? 3 : 1;
    if (input.components != 1 || input.is_matrix || input.component_type != GLTF_FLOAT) {
        return crowd__gltf_fail(doc, "%s.input: %s is not SCALAR of floats", where, input.path);
    }
    bool integer = output.component_type != GLTF_FLOAT;
    if (output.components != components || output.is_matrix ||
        output.component_type == GLTF_UNSIGNED_INT ||
        (path == PATH_ROTATION && integer && !output.normalized)) {
        return crowd__gltf_fail(doc, "%s.output: %s is not VEC%u of floats or %s integers", where,
                                output.path, components,
                                path == PATH_ROTATION ? "normalized" : "8/16-bit");
    }
    if ((uint64_t)input.count * per_key != output.count) {
        return crowd__gltf_fail(
            doc, "%s: %u keys need %llu output elements, the output accessor has %u", where,
            input.count, (unsigned long long)input.count * per_key, output.count);
    }
    float *times = NULL, *values = NULL;
    result = crowd__gltf_accessor_floats(doc, &input, &times);
    if (result == CROWD_OK) {
        result = crowd__gltf_accessor_floats(doc, &output, &values);
    }
    if (result != CROWD_OK) {
        free(times);
        free(values);
        return result;
    }
    channel->times_s = times;
    channel->values = values;
    channel->key_count = input.count;
    return CROWD_OK;
}

/* Every animation checked: samplers, channels and their targets. */
static crowd_result check_animations(gltf_import *imp) {
    crowd_result result = CROWD_OK;
    const gltf_list *animations = &imp->doc->lists[GLTF_ANIMATIONS];
    for (uint32_t a = 0; a < animations->count && result == CROWD_OK; a++) {
        const cJSON *samplers = cJSON_GetObjectItemCaseSensitive(animations->items[a], "samplers");
        const cJSON *channels = cJSON_GetObjectItemCaseSensitive(animations->items[a], "channels");
        if (!cJSON_IsArray(samplers) || !cJSON_IsArray(channels)) {
            return crowd__gltf_fail(
                imp->doc, "animations[%u]: samplers or channels is missing or not an array", a);
        }
        char path[64];
        uint32_t i = 0;
        for (const cJSON *s = samplers->child; s != NULL && result == CROWD_OK; s = s->next, i++) {
            snprintf(path, sizeof path, "animations[%u].samplers[%u]", a, i);
            result = check_sampler(imp, s, path);
        }
        uint32_t sampler_count = i;
        i = 0;
        for (const cJSON *c = channels->child; c != NULL && result == CROWD_OK; c = c->next, i++) {
            snprintf(path, sizeof path, "animations[%u].channels[%u]", a, i);
            result = check_channel(imp, c, sampler_count, path);
        }
    }
    return result;
}

static crowd_result add_channel(gltf_import *imp, uint32_t a, import_scene_animation *animation,
                                const cJSON *json, const cJSON *channel, uint32_t c) {
    target_path path = channel_path(channel);
    int32_t node = channel_node(imp, channel);
    if (path >= PATH_WEIGHTS) {
        return CROWD_OK;
    }
    if (node < 0) {
        crowd_log(imp->logger, CROWD_LOG_WARNING,
                  "%s: animations[%u].channels[%u] moves no node of the scene; ignored", imp->file,
                  a, c);
        return CROWD_OK;
    }
    uint64_t s = 0;
    crowd__gltf_json_uint(channel, "sampler", 0, UINT32_MAX, &s);
    const cJSON *sampler =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "samplers"), (int)s);
    char where[64];
    snprintf(where, sizeof where, "animations[%u].samplers[%llu]", a, (unsigned long long)s);
    import_scene_channel *out = crowd__import_scene_add_channel(&imp->scene, animation);
    if (out == NULL) {
        return CROWD_ERROR_OUT_OF_MEMORY;
    }
    out->node = imp->nodes[node].scene_node;
    out->path = (import_scene_path)path;
    return read_keys(imp, sampler, path, where, out);
}

static crowd_result add_animation(gltf_import *imp, uint32_t a) {
    const cJSON *json = imp->doc->lists[GLTF_ANIMATIONS].items[a];
    const cJSON *channels = cJSON_GetObjectItemCaseSensitive(json, "channels");
    bool morphs = false;
    for (const cJSON *c = channels->child; c != NULL; c = c->next) {
        morphs = morphs || channel_path(c) == PATH_WEIGHTS;
    }
    if (morphs) {
        crowd_log(imp->logger, CROWD_LOG_INFO, "%s: animations[%u]: morph target weights ignored",
                  imp->file, a);
    }
    bool ok = true;
    const char *name = crowd__gltf_json_string(json, "name", &ok);
    if (!ok) {
        return crowd__gltf_fail(imp->doc, "animations[%u].name is not a string", a);
    }
    import_scene_animation *animation = &imp->scene.animations[imp->scene.animation_count++];
    animation->name = name ? name : "";
    snprintf(animation->label, sizeof animation->label, "animations[%u]", a);
    crowd_result result = CROWD_OK;
    uint32_t c = 0;
    for (const cJSON *channel = channels->child; channel != NULL && result == CROWD_OK;
         channel = channel->next, c++) {
        result = add_channel(imp, a, animation, json, channel, c);
    }
    return result;
}

crowd_result crowd__gltf_animations_read(gltf_import *imp) {
    uint32_t count = imp->doc->lists[GLTF_ANIMATIONS].count;
    crowd_result result = check_animations(imp);
    if (result != CROWD_OK || count == 0) {
        return result;
    }
    imp->scene.animations = calloc(count, sizeof *imp->scene.animations);
    if (imp->scene.animations == NULL) {
        return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    for (uint32_t a = 0; a < count && result == CROWD_OK; a++) {
        result = add_animation(imp, a);
    }
    return result;
}
