/* import_clips.c - assimp animations to crowd clips.
 *
 * Key times come in ticks: seconds = ticks / mTicksPerSecond, where 0 means
 * "unknown" and 25 is what assimp's own tools assume. A channel names its
 * node; where several nodes share the name, the joint is meant
 * (import_node_find). Keys that are out of order, negative in time or not
 * finite are dropped and counted. assimp 5.2 gives every key as linear, so
 * its tracks are linear (glTF, whose samplers also step and use cubic
 * splines, is read by crowd's own reader, gltf_import.h). A clip lasts
 * until its last key: keys past
 * the duration the file states extend it (counted as a repair, not
 * clamped, as no key is dropped that way). A clip loops by default when
 * its first and last poses match.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/asset.h"
#include "import/assimp/import_internal.h"

#define DEFAULT_TICKS_PER_SECOND 25.0
/* Poses closer than this count as equal when deciding the loop flag:
 * translation and scale per component (relative above 1), rotation as
 * 1 - |dot| (about 0.5 degrees). */
#define LOOP_TOLERANCE 1e-3f
#define LOOP_ROTATION_TOLERANCE 4e-5f

static bool channel_usable(const struct aiNodeAnim *channel) {
    return channel != NULL &&
           (channel->mNumPositionKeys + channel->mNumRotationKeys + channel->mNumScalingKeys > 0);
}

bool import_clips_mark(import_context *ctx) {
    bool any = false;
    const struct aiScene *scene = ctx->scene;
    for (uint32_t a = 0; a < scene->mNumAnimations && scene->mAnimations; a++) {
        const struct aiAnimation *anim = scene->mAnimations[a];
        for (uint32_t c = 0; anim && anim->mChannels && c < anim->mNumChannels; c++) {
            const struct aiNodeAnim *channel = anim->mChannels[c];
            if (!channel_usable(channel)) {
                continue;
            }
            int32_t node = import_node_find(ctx, channel->mNodeName.data);
            if (node >= 0) {
                ctx->nodes[node].marked = true;
                any = true;
            }
        }
    }
    return any;
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
} key_source;

static double key_time(const key_source *src, uint32_t k) {
    return src->vectors ? src->vectors[k].mTime : src->quats[k].mTime;
}

/* Value of key k in crowd's layout; false when it cannot be used. */
static bool key_value(const key_source *src, uint32_t k, float *out) {
    if (src->vectors) {
        const struct aiVector3D *v = &src->vectors[k].mValue;
        out[0] = v->x;
        out[1] = v->y;
        out[2] = v->z;
        return isfinite(out[0]) && isfinite(out[1]) && isfinite(out[2]);
    }
    const struct aiQuaternion *q = &src->quats[k].mValue;
    float x = q->x, y = q->y, z = q->z, w = q->w;
    float len = sqrtf(x * x + y * y + z * z + w * w);
    if (!isfinite(len) || len < 1e-6f) {
        return false;
    }
    out[0] = x / len;
    out[1] = y / len;
    out[2] = z / len;
    out[3] = w / len;
    return true;
}

static crowd_result convert_track(import_context *ctx, const key_source *src, double tps,
                                  crowd_track *track, float *max_time_s) {
    if (src->count == 0 || (src->vectors == NULL && src->quats == NULL)) {
        return CROWD_OK;
    }
    uint32_t components = src->vectors ? 3 : 4;
    track->interpolation = CROWD_INTERP_LINEAR;
    track->times_s = malloc(src->count * sizeof *track->times_s);
    track->values = malloc((size_t)src->count * components * sizeof *track->values);
    if (track->times_s == NULL || track->values == NULL) {
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    uint32_t kept = 0;
    for (uint32_t k = 0; k < src->count; k++) {
        float time_s = (float)(key_time(src, k) / tps);
        bool ok = isfinite(time_s) && time_s >= 0.0f &&
                  (kept == 0 || time_s >= track->times_s[kept - 1]) &&
                  key_value(src, k, &track->values[kept * components]);
        if (!ok) {
            ctx->asset->repairs.keys_dropped++;
            continue;
        }
        track->times_s[kept++] = time_s;
    }
    track->key_count = kept;
    if (kept > 0 && track->times_s[kept - 1] > *max_time_s) {
        *max_time_s = track->times_s[kept - 1];
    }
    return CROWD_OK;
}

static bool values_match(const crowd_track *track, uint32_t components) {
    if (track->key_count < 2) {
        return true;
    }
    /* Cubic keys are [in-tangent, value, out-tangent]. */
    bool cubic = track->interpolation == CROWD_INTERP_CUBIC;
    size_t stride = cubic ? 3u * components : components;
    const float *first = track->values + (cubic ? components : 0u);
    const float *last = first + (track->key_count - 1) * stride;
    if (components == 4) {
        float dot = 0.0f;
        for (uint32_t c = 0; c < 4; c++) {
            dot += first[c] * last[c];
        }
        return 1.0f - fabsf(dot) <= LOOP_ROTATION_TOLERANCE;
    }
    for (uint32_t c = 0; c < components; c++) {
        float scale = fmaxf(1.0f, fmaxf(fabsf(first[c]), fabsf(last[c])));
        if (fabsf(first[c] - last[c]) > LOOP_TOLERANCE * scale) {
            return false;
        }
    }
    return true;
}

static bool first_and_last_poses_match(const crowd_clip *clip, uint32_t joint_count) {
    for (uint32_t j = 0; j < joint_count; j++) {
        const crowd_joint_tracks *t = &clip->tracks[j];
        if (!values_match(&t->translation, 3) || !values_match(&t->rotation, 4) ||
            !values_match(&t->scale, 3)) {
            return false;
        }
    }
    return true;
}

/* Converts the channels of assimp animation `anim` into `clip`. `animated`
 * has joint_count entries, zeroed. */
static crowd_result convert_animation(import_context *ctx, const struct aiAnimation *anim,
                                      crowd_clip *clip, bool *animated) {
    uint32_t joint_count = ctx->asset->skeleton.joint_count;
    clip->tracks = calloc(joint_count, sizeof *clip->tracks);
    clip->name = core_copy_string(anim->mName.data);
    if (clip->tracks == NULL || clip->name == NULL) {
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    double tps = ticks_per_second(ctx, anim);
    float max_time_s = 0.0f;
    for (uint32_t c = 0; c < anim->mNumChannels; c++) {
        const struct aiNodeAnim *channel = anim->mChannels[c];
        if (!channel_usable(channel)) {
            continue;
        }
        int32_t node = import_node_find(ctx, channel->mNodeName.data);
        if (node < 0 || ctx->nodes[node].joint < 0) {
            continue;
        }
        int32_t joint = ctx->nodes[node].joint;
        if (animated[joint]) {
            crowd_log(ctx->logger, CROWD_LOG_WARNING,
                      "%s: animation '%s' animates node '%s' twice; the second channel is ignored",
                      ctx->file, anim->mName.data, channel->mNodeName.data);
            continue;
        }
        animated[joint] = true;
        crowd_joint_tracks *tracks = &clip->tracks[joint];
        key_source sources[3] = {{channel->mPositionKeys, NULL, channel->mNumPositionKeys},
                                 {NULL, channel->mRotationKeys, channel->mNumRotationKeys},
                                 {channel->mScalingKeys, NULL, channel->mNumScalingKeys}};
        crowd_track *targets[3] = {&tracks->translation, &tracks->rotation, &tracks->scale};
        crowd_result result = CROWD_OK;
        for (int p = 0; p < 3 && result == CROWD_OK; p++) {
            /* A track filled from a glTF sampler already is the file's own. */
            if (targets[p]->times_s == NULL) {
                result = convert_track(ctx, &sources[p], tps, targets[p], &max_time_s);
            }
        }
        if (result != CROWD_OK) {
            return result;
        }
    }
    clip->duration_s = max_time_s;
    clip->loop = clip->duration_s > 0.0f && first_and_last_poses_match(clip, joint_count);
    /* assimp's validation refuses such keys; crowd keeps them (see above). */
    double file_duration_s = anim->mDuration / tps;
    if (isfinite(file_duration_s) && file_duration_s > 0.0 &&
        max_time_s > file_duration_s * (1.0 + 1e-5)) {
        ctx->asset->repairs.clips_extended++;
        crowd_log(ctx->logger, CROWD_LOG_INFO,
                  "%s: animation '%s' has keys until %g s, past its duration %g s; the clip "
                  "lasts until its last key",
                  ctx->file, anim->mName.data, (double)max_time_s, file_duration_s);
    }
    return CROWD_OK;
}

static bool name_taken(const crowd_asset *asset, uint32_t before, const char *name) {
    for (uint32_t c = 0; c < before; c++) {
        if (strcmp(asset->clips[c].name, name) == 0) {
            return true;
        }
    }
    return false;
}

/* Empty and duplicate clip names become "clip_N" / "NAME_N" (first free N). */
static crowd_result rename_clips(import_context *ctx) {
    crowd_asset *asset = ctx->asset;
    for (uint32_t c = 0; c < asset->clip_count; c++) {
        crowd_clip *clip = &asset->clips[c];
        if (clip->name[0] != '\0' && !name_taken(asset, c, clip->name)) {
            continue;
        }
        const char *stem = clip->name[0] != '\0' ? clip->name : "clip";
        size_t size = strlen(stem) + 16;
        char *name = malloc(size);
        if (name == NULL) {
            return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file,
                                   "out of memory");
        }
        for (uint32_t n = c;; n++) {
            snprintf(name, size, "%s_%u", stem, n);
            if (!name_taken(asset, asset->clip_count, name)) {
                break;
            }
        }
        crowd_log(ctx->logger, CROWD_LOG_INFO, "%s: clip %u '%s' renamed to '%s'", ctx->file, c,
                  clip->name, name);
        free(clip->name);
        clip->name = name;
        asset->repairs.clips_renamed++;
    }
    return CROWD_OK;
}

crowd_result import_clips_build(import_context *ctx) {
    const struct aiScene *scene = ctx->scene;
    if (ctx->static_only || scene->mNumAnimations == 0 || scene->mAnimations == NULL) {
        return CROWD_OK;
    }
    crowd_asset *asset = ctx->asset;
    asset->clips = calloc(scene->mNumAnimations, sizeof *asset->clips);
    bool *animated = malloc(asset->skeleton.joint_count * sizeof *animated);
    if (asset->clips == NULL || animated == NULL) {
        free(animated);
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    for (uint32_t a = 0; a < scene->mNumAnimations; a++) {
        const struct aiAnimation *anim = scene->mAnimations[a];
        bool usable = false;
        for (uint32_t c = 0; anim && anim->mChannels && c < anim->mNumChannels && !usable; c++) {
            usable = channel_usable(anim->mChannels[c]) &&
                     import_node_find(ctx, anim->mChannels[c]->mNodeName.data) >= 0;
        }
        if (!usable) {
            crowd_log(ctx->logger, CROWD_LOG_INFO,
                      "%s: animation %u '%s' moves no node of the scene; skipped", ctx->file, a,
                      anim ? anim->mName.data : "");
            continue;
        }
        /* Counted before converting so a failure still frees what was made. */
        crowd_clip *clip = &asset->clips[asset->clip_count++];
        memset(animated, 0, asset->skeleton.joint_count * sizeof *animated);
        crowd_result result = convert_animation(ctx, anim, clip, animated);
        if (result != CROWD_OK) {
            free(animated);
            return result;
        }
    }
    free(animated);
    return rename_clips(ctx);
}
