/* import_clips.c - assimp animations into the intermediate scene.
 *
 * Key times come in ticks: seconds = ticks / mTicksPerSecond, where 0 means
 * "unknown" and 25 is what assimp's own tools assume. A channel names its
 * node; where several nodes share the name, the joint is meant (the
 * pipeline looks it up, scene.h). assimp 5.2 gives every key as linear, so
 * its channels are linear (glTF, whose samplers also step and use cubic
 * splines, is read by crowd's own reader, gltf/gltf_import.h). The
 * duration the file states goes with the animation: keys past it extend
 * the clip (the pipeline counts it). What the keys become is the
 * pipeline's (scene_clips.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/assimp/import_internal.h"

#define DEFAULT_TICKS_PER_SECOND 25.0

static bool channel_usable(const struct aiNodeAnim *channel) {
    return channel != NULL &&
           (channel->mNumPositionKeys + channel->mNumRotationKeys + channel->mNumScalingKeys > 0);
}

static double ticks_per_second(const import_context *ctx, const struct aiAnimation *anim) {
    if (isfinite(anim->mTicksPerSecond) && anim->mTicksPerSecond > 0.0) {
        return anim->mTicksPerSecond;
    }
    crowd_log(ctx->logger, CROWD_LOG_INFO,
              "%s: animation '%s' gives no ticks per second; assuming %g", ctx->file,
              anim->mName.data, DEFAULT_TICKS_PER_SECOND);
    return DEFAULT_TICKS_PER_SECOND;
}

/* One key source: either aiVectorKey (3 components) or aiQuatKey (4). */
typedef struct key_source {
    const struct aiVectorKey *vectors;
    const struct aiQuatKey *quats;
    uint32_t count;
    import_scene_path path;
} key_source;

/* The keys of `src` as a channel of `animation`, in seconds. */
static crowd_result add_channel(import_context *ctx, import_scene_animation *animation,
                                const struct aiNodeAnim *from, const key_source *src, double tps) {
    if (src->count == 0 || (src->vectors == NULL && src->quats == NULL)) {
        return CROWD_OK;
    }
    import_scene_channel *channel = crowd__import_scene_add_channel(ctx->out, animation);
    if (channel == NULL) {
        return CROWD_ERROR_OUT_OF_MEMORY;
    }
    uint32_t components = src->vectors ? 3 : 4;
    channel->node_name = from->mNodeName.data;
    channel->path = src->path;
    channel->interpolation = CROWD_INTERP_LINEAR;
    channel->times_s = malloc(src->count * sizeof *channel->times_s);
    channel->values = malloc((size_t)src->count * components * sizeof *channel->values);
    if (channel->times_s == NULL || channel->values == NULL) {
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    channel->key_count = src->count;
    for (uint32_t k = 0; k < src->count; k++) {
        float *value = &channel->values[(size_t)k * components];
        if (src->vectors) {
            const struct aiVector3D *v = &src->vectors[k].mValue;
            channel->times_s[k] = (float)(src->vectors[k].mTime / tps);
            value[0] = v->x;
            value[1] = v->y;
            value[2] = v->z;
        } else {
            const struct aiQuaternion *q = &src->quats[k].mValue;
            channel->times_s[k] = (float)(src->quats[k].mTime / tps);
            value[0] = q->x;
            value[1] = q->y;
            value[2] = q->z;
            value[3] = q->w;
        }
    }
    return CROWD_OK;
}

static crowd_result add_animation(import_context *ctx, uint32_t a) {
    const struct aiAnimation *anim = ctx->scene->mAnimations[a];
    import_scene_animation *animation = &ctx->out->animations[ctx->out->animation_count++];
    animation->name = anim ? anim->mName.data : "";
    snprintf(animation->label, sizeof animation->label, "animation %u", a);
    bool usable = false;
    for (uint32_t c = 0; anim && anim->mChannels && c < anim->mNumChannels && !usable; c++) {
        usable = channel_usable(anim->mChannels[c]);
    }
    if (!usable) {
        return CROWD_OK;
    }
    double tps = ticks_per_second(ctx, anim);
    double duration_s = anim->mDuration / tps;
    animation->duration_s = isfinite(duration_s) && duration_s > 0.0 ? duration_s : 0.0;
    crowd_result result = CROWD_OK;
    for (uint32_t c = 0; c < anim->mNumChannels && result == CROWD_OK; c++) {
        const struct aiNodeAnim *from = anim->mChannels[c];
        if (!channel_usable(from)) {
            continue;
        }
        const key_source sources[3] = {
            {from->mPositionKeys, NULL, from->mNumPositionKeys, IMPORT_PATH_TRANSLATION},
            {NULL, from->mRotationKeys, from->mNumRotationKeys, IMPORT_PATH_ROTATION},
            {from->mScalingKeys, NULL, from->mNumScalingKeys, IMPORT_PATH_SCALE}};
        for (int p = 0; p < 3 && result == CROWD_OK; p++) {
            result = add_channel(ctx, animation, from, &sources[p], tps);
        }
    }
    return result;
}

crowd_result crowd__import_animations_fill(import_context *ctx) {
    const struct aiScene *scene = ctx->scene;
    if (scene->mNumAnimations == 0 || scene->mAnimations == NULL) {
        return CROWD_OK;
    }
    ctx->out->animations = calloc(scene->mNumAnimations, sizeof *ctx->out->animations);
    if (ctx->out->animations == NULL) {
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    crowd_result result = CROWD_OK;
    for (uint32_t a = 0; a < scene->mNumAnimations && result == CROWD_OK; a++) {
        result = add_animation(ctx, a);
    }
    return result;
}
