/* gltf_samplers.c - glTF animation samplers that assimp 5.2 reads wrong,
 * turned into crowd tracks from the file itself.
 *
 * assimp's aiNodeAnim has no interpolation mode: STEP keys come back as
 * linear keys and CUBICSPLINE keys as their values alone. Its glTF reader
 * also copies integer-typed outputs (normalized rotations, quantized
 * translations) byte for byte into floats. So a channel whose sampler is
 * STEP or CUBICSPLINE, or whose output is not float, gets its whole track
 * (times, values, interpolation) from the glTF accessors; LINEAR float
 * channels keep assimp's keys. Weight (morph target) channels are ignored.
 *
 * Matching: assimp animation i is glTF animations[i] (assimp 5.2 imports
 * them in order; names are compared when the file has one). A channel's
 * target node is found in assimp's node tree by its position, not its name:
 * assimp builds the tree from the scene's root nodes (one root node is the
 * tree root, several hang under a made-up "ROOT") with every node's
 * children in file order, so the path of child positions from the root
 * leads to the very node, also where names repeat (robot.glb has mesh nodes
 * named like joints). Each node on the path must carry the name assimp gives
 * it (its name, or "nodes[N]" when it has none); otherwise the channel is
 * left as assimp read it, with a warning. So is a channel whose node is
 * outside the imported scene or did not become a joint (joints for animated
 * nodes are marked from assimp's channels, which name their node: with
 * repeated names only one of them may be a joint).
 *
 * Key times: assimp stores t * 1000 (float) milliseconds and import_clips.c
 * divides by its 1000 ticks per second; the same arithmetic here gives
 * bit-identical times, so STEP/CUBICSPLINE and linear tracks of one clip
 * share their key times. Each rebuilt track is checked against assimp's keys
 * of that node (count and times) and a disagreement is logged.
 *
 * Keys that are out of order, negative in time or not finite are dropped
 * and counted, as import_clips.c does for assimp's keys; STEP and LINEAR
 * rotations are normalized, cubic ones are normalized after interpolation
 * (crowd_anim_sample). Malformed structure (indices, types, counts, ranges,
 * an unknown interpolation) of any translation/rotation/scale channel, the
 * LINEAR ones too, fails the import with CROWD_ERROR_INVALID_DATA.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/asset.h"
#include "import/gltf_document.h"
#include "import/import_internal.h"

/* Elements per accessor, far above real clips (and sparse indices, read as
 * floats, stay exact below 2^24). */
#define GLTF_MAX_ELEMENTS (1u << 24)
#define GLTF_FLOAT 5126u
#define GLTF_UNSIGNED_INT 5125u
#define MS_PER_SECOND 1000.0f

typedef enum channel_path { PATH_TRANSLATION, PATH_ROTATION, PATH_SCALE, PATH_OTHER } channel_path;

static const char *const path_names[] = {"translation", "rotation", "scale"};

/* What the importer needs of one sampler. */
typedef struct sampler {
    crowd_interpolation interpolation;
    uint64_t input, output;
} sampler;

/* Parent of every glTF node (-1 for none, -2 for several: invalid) and its
 * position among its parent's children. */
typedef struct node_tree {
    uint32_t count;
    int32_t *parent;
    uint32_t *slot;
} node_tree;

/* Everything one animation's channels share. */
typedef struct apply_state {
    import_context *ctx;
    gltf_document *doc;
    const struct aiAnimation *anim;
    uint32_t index; /* glTF animation index */
    uint32_t sampler_count;
    sampler *samplers;
    node_tree tree;
    crowd_clip *clip;
    float *max_time_s;
    char what[96]; /* "animation A channel C", starts messages */
} apply_state;

static crowd_result invalid(const apply_state *s, const char *reason) {
    return crowd_error_set(s->ctx->error, CROWD_ERROR_INVALID_DATA, s->ctx->file, "%s: %s", s->what,
                           reason);
}

static crowd_result read_samplers(apply_state *s, const cJSON *samplers) {
    int count = cJSON_GetArraySize(samplers);
    s->sampler_count = (uint32_t)count;
    s->samplers = calloc((size_t)count + 1, sizeof *s->samplers);
    if (s->samplers == NULL) {
        return crowd_error_set(s->ctx->error, CROWD_ERROR_OUT_OF_MEMORY, s->ctx->file,
                               "out of memory");
    }
    int i = 0;
    for (const cJSON *json = samplers->child; json != NULL; json = json->next, i++) {
        sampler *out = &s->samplers[i];
        snprintf(s->what, sizeof s->what, "animation %u sampler %d", s->index, i);
        if (!cJSON_IsObject(json) ||
            !gltf_json_uint(json, "input", UINT64_MAX, UINT32_MAX, &out->input) ||
            !gltf_json_uint(json, "output", UINT64_MAX, UINT32_MAX, &out->output)) {
            return invalid(s, "input or output accessor index missing or not valid");
        }
        const cJSON *mode = cJSON_GetObjectItemCaseSensitive(json, "interpolation");
        const char *name = cJSON_IsString(mode) ? mode->valuestring : NULL;
        if (mode == NULL || (name && strcmp(name, "LINEAR") == 0)) {
            out->interpolation = CROWD_INTERP_LINEAR;
        } else if (name && strcmp(name, "STEP") == 0) {
            out->interpolation = CROWD_INTERP_STEP;
        } else if (name && strcmp(name, "CUBICSPLINE") == 0) {
            out->interpolation = CROWD_INTERP_CUBIC;
        } else {
            return crowd_error_set(
                s->ctx->error, CROWD_ERROR_INVALID_DATA, s->ctx->file,
                "%s: unknown interpolation '%.40s' (LINEAR, STEP or CUBICSPLINE)", s->what,
                name ? name : "(not a string)");
        }
    }
    return CROWD_OK;
}

static crowd_result build_tree(apply_state *s) {
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(s->doc->json, "nodes");
    uint32_t count = cJSON_IsArray(nodes) ? (uint32_t)cJSON_GetArraySize(nodes) : 0;
    nodes = count > 0 ? nodes : NULL;
    node_tree *tree = &s->tree;
    tree->count = count;
    tree->parent = malloc(((size_t)count + 1) * sizeof *tree->parent);
    tree->slot = calloc((size_t)count + 1, sizeof *tree->slot);
    if (tree->parent == NULL || tree->slot == NULL) {
        return crowd_error_set(s->ctx->error, CROWD_ERROR_OUT_OF_MEMORY, s->ctx->file,
                               "out of memory");
    }
    for (uint32_t n = 0; n < count; n++) {
        tree->parent[n] = -1;
    }
    uint32_t n = 0;
    for (const cJSON *node = nodes ? nodes->child : NULL; node != NULL; node = node->next, n++) {
        const cJSON *children = cJSON_GetObjectItemCaseSensitive(node, "children");
        uint32_t slot = 0;
        for (const cJSON *child = cJSON_IsArray(children) ? children->child : NULL; child != NULL;
             child = child->next, slot++) {
            double value = child->valuedouble;
            if (!cJSON_IsNumber(child) || !(value >= 0.0) || value >= (double)count ||
                value != floor(value)) {
                return crowd_error_set(s->ctx->error, CROWD_ERROR_INVALID_DATA, s->ctx->file,
                                       "node %u: child %u is not a node index", n, slot);
            }
            uint32_t c = (uint32_t)value;
            tree->parent[c] = tree->parent[c] == -1 ? (int32_t)n : -2;
            tree->slot[c] = slot;
        }
    }
    return CROWD_OK;
}

/* The name assimp 5.2 gives glTF node n. */
static void assimp_node_name(const gltf_document *doc, uint32_t n, char *out, size_t size) {
    const cJSON *name =
        cJSON_GetObjectItemCaseSensitive(gltf_json_element(doc, "nodes", n), "name");
    if (cJSON_IsString(name) && name->valuestring[0] != '\0') {
        snprintf(out, size, "%s", name->valuestring);
    } else {
        snprintf(out, size, "nodes[%u]", n);
    }
}

static bool named(const apply_state *s, const struct aiNode *ai, uint32_t n) {
    char expected[sizeof ai->mName.data];
    assimp_node_name(s->doc, n, expected, sizeof expected);
    return strcmp(ai->mName.data, expected) == 0;
}

/* The importer node made from glTF node `n`: -1 with a logged reason when
 * it cannot be found (outside the imported scene, or assimp's tree does not
 * look as expected); an error for a node with two parents or in a cycle. */
static crowd_result find_node(apply_state *s, uint32_t n, int32_t *out) {
    *out = -1;
    const node_tree *tree = &s->tree;
    /* The path from the node up to its root, as node indices. */
    uint32_t *path = malloc(((size_t)tree->count + 1) * sizeof *path);
    if (path == NULL) {
        return crowd_error_set(s->ctx->error, CROWD_ERROR_OUT_OF_MEMORY, s->ctx->file,
                               "out of memory");
    }
    uint32_t depth = 0;
    for (int32_t at = (int32_t)n; at >= 0; at = tree->parent[at]) {
        if (depth == tree->count || tree->parent[at] == -2) {
            free(path);
            return crowd_error_set(
                s->ctx->error, CROWD_ERROR_INVALID_DATA, s->ctx->file, "node %d is %s", at,
                depth == tree->count ? "its own ancestor" : "a child of two nodes");
        }
        path[depth++] = (uint32_t)at;
    }
    uint64_t scene_index = 0;
    gltf_json_uint(s->doc->json, "scene", 0, UINT32_MAX, &scene_index);
    const cJSON *scene = gltf_json_element(s->doc, "scenes", scene_index);
    const cJSON *roots = cJSON_GetObjectItemCaseSensitive(scene, "nodes");
    int root_count = cJSON_IsArray(roots) ? cJSON_GetArraySize(roots) : 0;
    const struct aiNode *ai = NULL;
    int r = 0;
    for (const cJSON *root = root_count > 0 ? roots->child : NULL; root != NULL && ai == NULL;
         root = root->next, r++) {
        if (cJSON_IsNumber(root) && root->valuedouble == (double)path[depth - 1]) {
            const struct aiNode *top = s->ctx->scene->mRootNode;
            ai = root_count == 1                                             ? top
                 : top->mChildren != NULL && (unsigned)r < top->mNumChildren ? top->mChildren[r]
                                                                             : NULL;
        }
    }
    const char *why = ai == NULL ? "it is not in the scene assimp imported" : NULL;
    for (uint32_t d = depth; why == NULL && d-- > 0;) {
        if (d + 1 < depth) {
            uint32_t slot = tree->slot[path[d]];
            ai = ai->mChildren != NULL && slot < ai->mNumChildren ? ai->mChildren[slot] : NULL;
        }
        if (ai == NULL || !named(s, ai, path[d])) {
            why = "assimp's node tree differs from the file's";
        }
    }
    free(path);
    int32_t node = why == NULL ? import_node_index(s->ctx, ai) : -1;
    if (why == NULL && (node < 0 || s->ctx->nodes[node].joint < 0)) {
        why = node < 0 ? "assimp's node tree differs from the file's" : "it did not become a joint";
        node = -1;
    }
    if (why != NULL) {
        crowd_log(s->ctx->logger, CROWD_LOG_WARNING,
                  "%s: %s: node %u keeps assimp's keys, if any: %s", s->ctx->file, s->what, n, why);
    }
    *out = node;
    return CROWD_OK;
}

/* The key times of assimp's channel for that node and path (as assimp
 * stores them) equal the sampler's input, for one channel of that name. */
static bool assimp_times_agree(const apply_state *s, const char *node_name, channel_path path,
                               const float *input, uint32_t count) {
    for (uint32_t c = 0; s->anim->mChannels != NULL && c < s->anim->mNumChannels; c++) {
        const struct aiNodeAnim *channel = s->anim->mChannels[c];
        if (channel == NULL || strcmp(channel->mNodeName.data, node_name) != 0) {
            continue;
        }
        uint32_t keys = path == PATH_TRANSLATION ? channel->mNumPositionKeys
                        : path == PATH_ROTATION  ? channel->mNumRotationKeys
                                                 : channel->mNumScalingKeys;
        bool agree = keys == count;
        for (uint32_t k = 0; agree && k < count; k++) {
            double time = path == PATH_TRANSLATION ? channel->mPositionKeys[k].mTime
                          : path == PATH_ROTATION  ? channel->mRotationKeys[k].mTime
                                                   : channel->mScalingKeys[k].mTime;
            double expected = (double)(input[k] * MS_PER_SECOND);
            agree = time == expected || (isnan(time) && isnan(expected));
        }
        if (agree) {
            return true;
        }
    }
    return false;
}

/* Key k of the output as crowd stores it; false when it cannot be used. */
static bool key_values(const float *in, uint32_t count, bool unit_quaternion, float *out) {
    for (uint32_t i = 0; i < count; i++) {
        if (!isfinite(in[i])) {
            return false;
        }
    }
    if (!unit_quaternion) {
        memcpy(out, in, count * sizeof *out);
        return true;
    }
    float length = sqrtf(in[0] * in[0] + in[1] * in[1] + in[2] * in[2] + in[3] * in[3]);
    if (!isfinite(length) || length < 1e-6f) {
        return false;
    }
    for (uint32_t i = 0; i < 4; i++) {
        out[i] = in[i] / length;
    }
    return true;
}

/* Fills `track` from input (key_count times) and output (key_count *
 * per_key values), replacing whatever it held. */
static crowd_result fill_track(apply_state *s, crowd_interpolation interpolation,
                               uint32_t components, const float *input, const float *output,
                               uint32_t key_count, crowd_track *track) {
    uint32_t per_key = components * (interpolation == CROWD_INTERP_CUBIC ? 3u : 1u);
    float *times = malloc(key_count * sizeof *times);
    float *values = malloc((size_t)key_count * per_key * sizeof *values);
    if (times == NULL || values == NULL) {
        free(times);
        free(values);
        return crowd_error_set(s->ctx->error, CROWD_ERROR_OUT_OF_MEMORY, s->ctx->file,
                               "out of memory");
    }
    bool unit = components == 4 && interpolation != CROWD_INTERP_CUBIC;
    uint32_t kept = 0;
    for (uint32_t k = 0; k < key_count; k++) {
        float time_s = (float)((double)(input[k] * MS_PER_SECOND) / (double)MS_PER_SECOND);
        bool ok = isfinite(time_s) && time_s >= 0.0f && (kept == 0 || time_s >= times[kept - 1]) &&
                  key_values(output + (size_t)k * per_key, per_key, unit,
                             values + (size_t)kept * per_key);
        if (!ok) {
            s->ctx->asset->repairs.keys_dropped++;
            continue;
        }
        times[kept++] = time_s;
    }
    free(track->times_s);
    free(track->values);
    track->times_s = times;
    track->values = values;
    track->key_count = kept;
    track->interpolation = interpolation;
    if (kept > 0 && times[kept - 1] > *s->max_time_s) {
        *s->max_time_s = times[kept - 1];
    }
    return CROWD_OK;
}

/* The accessors of a sampler used on `path`: input SCALAR float; output
 * VEC3 (translation, scale) or VEC4 (rotation) of floats, normalized
 * integers for rotations, integers for translation and scale
 * (KHR_mesh_quantization); output count = input count, x3 for cubic. */
static crowd_result describe(apply_state *s, const sampler *smp, channel_path path,
                             gltf_accessor *input, gltf_accessor *output) {
    crowd_result result =
        gltf_accessor_describe(s->doc, smp->input, GLTF_MAX_ELEMENTS, input, s->what);
    if (result == CROWD_OK) {
        result = gltf_accessor_describe(s->doc, smp->output, GLTF_MAX_ELEMENTS, output, s->what);
    }
    if (result != CROWD_OK) {
        return result;
    }
    if (input->components != 1 || input->component_type != GLTF_FLOAT) {
        return invalid(s, "input accessor is not SCALAR float");
    }
    uint32_t components = path == PATH_ROTATION ? 4 : 3;
    bool integer = output->component_type != GLTF_FLOAT;
    if (output->components != components || output->component_type == GLTF_UNSIGNED_INT ||
        (path == PATH_ROTATION && integer && !output->normalized)) {
        return invalid(s, path == PATH_ROTATION
                              ? "output accessor is not VEC4 of floats or normalized integers"
                              : "output accessor is not VEC3 of floats or 8/16-bit integers");
    }
    uint64_t expected = (uint64_t)input->count * (smp->interpolation == CROWD_INTERP_CUBIC ? 3 : 1);
    if (output->count != expected) {
        return crowd_error_set(s->ctx->error, CROWD_ERROR_INVALID_DATA, s->ctx->file,
                               "%s: %u keys need %llu output elements, the output accessor has %u",
                               s->what, input->count, (unsigned long long)expected, output->count);
    }
    return CROWD_OK;
}

/* Rebuilds the track of `node`'s `path` from sampler `smp`. */
static crowd_result rebuild(apply_state *s, const sampler *smp, uint32_t node, channel_path path,
                            const gltf_accessor *input, const gltf_accessor *output) {
    int32_t imported = -1;
    crowd_result result = find_node(s, node, &imported);
    if (result != CROWD_OK || imported < 0) {
        return result;
    }
    float *times = malloc(input->count * sizeof *times);
    float *values = malloc((size_t)output->count * output->components * sizeof *values);
    if (times == NULL || values == NULL) {
        result = crowd_error_set(s->ctx->error, CROWD_ERROR_OUT_OF_MEMORY, s->ctx->file,
                                 "out of memory");
    }
    if (result == CROWD_OK) {
        result = gltf_accessor_read(s->doc, input, times, s->what);
    }
    if (result == CROWD_OK) {
        result = gltf_accessor_read(s->doc, output, values, s->what);
    }
    if (result == CROWD_OK) {
        const import_node *target = &s->ctx->nodes[imported];
        crowd_joint_tracks *tracks = &s->clip->tracks[target->joint];
        crowd_track *track = path == PATH_TRANSLATION ? &tracks->translation
                             : path == PATH_ROTATION  ? &tracks->rotation
                                                      : &tracks->scale;
        result = fill_track(s, smp->interpolation, output->components, times, values, input->count,
                            track);
        const char *name = target->node->mName.data;
        if (result == CROWD_OK && !assimp_times_agree(s, name, path, times, input->count)) {
            crowd_log(s->ctx->logger, CROWD_LOG_WARNING,
                      "%s: %s: assimp's %s keys of node '%s' do not match the sampler's input; "
                      "the sampler's are used",
                      s->ctx->file, s->what, path_names[path], name);
        }
    }
    free(times);
    free(values);
    return result;
}

static channel_path parse_path(const cJSON *target) {
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(target, "path");
    for (int p = 0; p < 3 && cJSON_IsString(path); p++) {
        if (strcmp(path->valuestring, path_names[p]) == 0) {
            return (channel_path)p;
        }
    }
    return PATH_OTHER;
}

static crowd_result apply_channels(apply_state *s, const cJSON *channels) {
    uint32_t c = 0;
    for (const cJSON *channel = channels->child; channel != NULL; channel = channel->next, c++) {
        snprintf(s->what, sizeof s->what, "animation %u channel %u", s->index, c);
        const cJSON *target = cJSON_GetObjectItemCaseSensitive(channel, "target");
        uint64_t sampler_index = 0, node = 0;
        if (!cJSON_IsObject(channel) || !cJSON_IsObject(target)) {
            return invalid(s, "not an object with a target");
        }
        if (!gltf_json_uint(channel, "sampler", UINT64_MAX, UINT32_MAX, &sampler_index) ||
            sampler_index >= s->sampler_count) {
            return crowd_error_set(s->ctx->error, CROWD_ERROR_INVALID_DATA, s->ctx->file,
                                   "%s: sampler is missing or not one of the animation's %u",
                                   s->what, s->sampler_count);
        }
        channel_path path = parse_path(target);
        /* A channel without a node is meant for an extension; skip it like weights. */
        if (path == PATH_OTHER || cJSON_GetObjectItemCaseSensitive(target, "node") == NULL) {
            continue;
        }
        if (!gltf_json_uint(target, "node", UINT64_MAX, UINT32_MAX, &node) ||
            node >= s->tree.count) {
            return invalid(s, "target node is not a node index");
        }
        const sampler *smp = &s->samplers[sampler_index];
        gltf_accessor input, output;
        crowd_result result = describe(s, smp, path, &input, &output);
        if (result == CROWD_OK &&
            (smp->interpolation != CROWD_INTERP_LINEAR || output.component_type != GLTF_FLOAT)) {
            result = rebuild(s, smp, (uint32_t)node, path, &input, &output);
        }
        if (result != CROWD_OK) {
            return result;
        }
    }
    return CROWD_OK;
}

crowd_result import_gltf_samplers_apply(import_context *ctx, uint32_t index,
                                        const struct aiAnimation *anim, crowd_clip *clip,
                                        float *max_time_s) {
    apply_state s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.doc = ctx->gltf;
    s.anim = anim;
    s.index = index;
    s.clip = clip;
    s.max_time_s = max_time_s;
    snprintf(s.what, sizeof s.what, "animation %u", index);
    const cJSON *animation = gltf_json_element(s.doc, "animations", index);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(animation, "name");
    if (animation == NULL || (cJSON_IsString(name) && name->valuestring[0] != '\0' &&
                              strcmp(name->valuestring, anim->mName.data) != 0)) {
        crowd_log(ctx->logger, CROWD_LOG_WARNING,
                  "%s: assimp's animation %u '%s' is not the file's animation %u; its samplers "
                  "are left as assimp read them",
                  ctx->file, index, anim->mName.data, index);
        return CROWD_OK;
    }
    const cJSON *samplers = cJSON_GetObjectItemCaseSensitive(animation, "samplers");
    const cJSON *channels = cJSON_GetObjectItemCaseSensitive(animation, "channels");
    if (!cJSON_IsArray(samplers) || !cJSON_IsArray(channels)) {
        return invalid(&s, "samplers or channels is not an array");
    }
    crowd_result result = read_samplers(&s, samplers);
    if (result == CROWD_OK) {
        result = build_tree(&s);
    }
    if (result == CROWD_OK) {
        result = apply_channels(&s, channels);
    }
    free(s.samplers);
    free(s.tree.parent);
    free(s.tree.slot);
    return result;
}
