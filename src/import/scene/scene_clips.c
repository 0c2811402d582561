/* scene_clips.c - the scene's animations to crowd clips (step 4 of scene.h).
 *
 * Each animation that moves a joint becomes a clip; one that moves no node
 * of the scene is skipped (said). Per channel its keys become the joint's
 * track as they are: STEP, LINEAR and CUBICSPLINE kept. Keys out of order,
 * negative in time or not finite are dropped and counted; STEP/LINEAR
 * rotations are normalized (cubic ones after interpolation,
 * crowd_anim_sample). A second channel for the same joint and property is
 * ignored (with a warning). A clip lasts until its last key: keys past the
 * duration the file states extend it (counted as a repair, not clamped, as
 * no key is dropped that way). It loops by default when its first and last
 * poses match. Empty and repeated names become "clip_N" / "NAME_N"
 * (counted).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "crowd/asset.h"
#include "import/anim/anim_internal.h"
#include "import/scene/scene.h"

static const char *const path_names[] = {"translation", "rotation", "scale"};

/* Drops the keys that are out of order, negative in time or not finite
 * (counted); normalizes STEP/LINEAR rotations. Returns the last key's time. */
static float clean_keys(crowd_repairs *repairs, crowd_track *track, uint32_t count,
                        uint32_t components) {
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
            repairs->keys_dropped++;
            continue;
        }
        track->times_s[kept] = time_s;
        memmove(&track->values[(size_t)kept * stride], value, stride * sizeof *value);
        kept++;
    }
    track->key_count = kept;
    return kept > 0 ? track->times_s[kept - 1] : 0.0f;
}

static int32_t channel_joint(const import_scene *scene, const import_scene_channel *channel) {
    return channel->node >= 0 ? scene->nodes[channel->node].joint : -1;
}

/* The channel's keys move into the clip's track of its joint. */
static void add_channel(import_build *build, const import_scene_animation *animation,
                        import_scene_channel *channel, crowd_clip *clip, bool *animated) {
    const import_scene *scene = build->scene;
    int32_t joint = channel_joint(scene, channel);
    if (joint < 0) {
        return;
    }
    if (animated[3 * joint + channel->path]) {
        crowd_log(scene->logger, CROWD_LOG_WARNING,
                  "%s: %s '%s' animates the %s of node '%s' twice; the second channel is ignored",
                  scene->file, animation->label, animation->name, path_names[channel->path],
                  scene->nodes[channel->node].name);
        return;
    }
    animated[3 * joint + channel->path] = true;
    crowd_joint_tracks *tracks = &clip->tracks[joint];
    crowd_track *track = channel->path == IMPORT_PATH_TRANSLATION ? &tracks->translation
                         : channel->path == IMPORT_PATH_ROTATION  ? &tracks->rotation
                                                                  : &tracks->scale;
    track->interpolation = channel->interpolation;
    track->times_s = channel->times_s;
    track->values = channel->values;
    channel->times_s = NULL;
    channel->values = NULL;
    float last = clean_keys(&build->asset->repairs, track, channel->key_count,
                            channel->path == IMPORT_PATH_ROTATION ? 4 : 3);
    clip->duration_s = fmaxf(clip->duration_s, last);
}

static crowd_result build_clip(import_build *build, import_scene_animation *animation,
                               bool *animated) {
    const import_scene *scene = build->scene;
    crowd_asset *asset = build->asset;
    bool usable = false;
    for (uint32_t c = 0; c < animation->channel_count && !usable; c++) {
        usable = channel_joint(scene, &animation->channels[c]) >= 0;
    }
    if (!usable) {
        crowd_log(scene->logger, CROWD_LOG_INFO, "%s: %s '%s' moves no node of the scene; skipped",
                  scene->file, animation->label, animation->name);
        return CROWD_OK;
    }
    uint32_t joint_count = asset->skeleton.joint_count;
    /* Counted before it is filled, so a failure still frees what was made. */
    crowd_clip *clip = &asset->clips[asset->clip_count++];
    clip->tracks = calloc(joint_count, sizeof *clip->tracks);
    clip->name = crowd__core_copy_string(animation->name);
    if (clip->tracks == NULL || clip->name == NULL) {
        return crowd_error_set(scene->error, CROWD_ERROR_OUT_OF_MEMORY, scene->file,
                               "out of memory");
    }
    memset(animated, 0, 3 * (size_t)joint_count * sizeof *animated);
    for (uint32_t c = 0; c < animation->channel_count; c++) {
        add_channel(build, animation, &animation->channels[c], clip, animated);
    }
    double stated_s = animation->duration_s;
    if (isfinite(stated_s) && stated_s > 0.0 && clip->duration_s > stated_s * (1.0 + 1e-5)) {
        asset->repairs.clips_extended++;
        crowd_log(scene->logger, CROWD_LOG_INFO,
                  "%s: %s '%s' has keys until %g s, past its duration %g s; the clip lasts until "
                  "its last key",
                  scene->file, animation->label, animation->name, (double)clip->duration_s,
                  stated_s);
    }
    return crowd__anim_clip_decide_loop(&asset->skeleton, clip, scene->file, scene->error);
}

crowd_result crowd__import_build_clips(import_build *build) {
    import_scene *scene = build->scene;
    crowd_asset *asset = build->asset;
    if (build->static_only || scene->animation_count == 0) {
        return CROWD_OK;
    }
    asset->clips = calloc(scene->animation_count, sizeof *asset->clips);
    bool *animated = malloc(3 * (size_t)asset->skeleton.joint_count * sizeof *animated);
    crowd_result result = CROWD_OK;
    if (asset->clips == NULL || animated == NULL) {
        result =
            crowd_error_set(scene->error, CROWD_ERROR_OUT_OF_MEMORY, scene->file, "out of memory");
    }
    for (uint32_t a = 0; a < scene->animation_count && result == CROWD_OK; a++) {
        result = build_clip(build, &scene->animations[a], animated);
    }
    free(animated);
    return result == CROWD_OK
               ? crowd__anim_clip_names_unique(asset, 0, scene->logger, scene->file, scene->error)
               : result;
}
