/* info_bake.c - `crowd info BAKE`: what a bake folder holds, as the loader
 * reads it: counts, clips with their frames and rates, textures, LODs and
 * the runtime clips (NAME.G.anim.bin: clips, tracks, keys, size and the
 * error the bake measured) with the sockets they carry (and the GPU bytes
 * of the socket track a vat prop on each takes), and each clip's events
 * and ground speed (crowd_anim_clip_ground_speed on the runtime clips,
 * what blends match speeds by) and the blends, as text or JSON. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "crowd/anim.h"
#include "crowd/bake.h"
#include "crowd/gpu.h"

/* Each clip's ground speed, measured on the runtime clips watching the
 * feet of the baked mesh (as the world does); -1 where the bake has no
 * runtime clips or the clip none of its own. out has clip_count floats. */
static void ground_speeds(const crowd_bake *bake, float *out) {
    const crowd_asset *asset = bake->asset;
    uint32_t joints = asset->skeleton.joint_count;
    crowd_transform *pose = malloc(joints * sizeof *pose);
    float *models = malloc((size_t)joints * 16 * sizeof *models);
    uint8_t *feet = malloc(joints);
    bool ready = bake->anim.present && pose != NULL && models != NULL && feet != NULL;
    bool have_feet =
        ready && crowd_anim_foot_joints(&asset->skeleton, &asset->mesh, pose, models, feet) > 0;
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        int32_t source = ready ? crowd_asset_find_clip(asset, bake->clips[c].name) : -1;
        crowd_ground_speed g;
        out[c] =
            source >= 0 && crowd_anim_clip_ground_speed(&asset->skeleton, &asset->clips[source],
                                                        have_feet ? feet : NULL, pose, models, &g)
                ? g.speed
                : -1.0f;
    }
    free(pose);
    free(models);
    free(feet);
}

bool cli_info_is_bake(const char *path) {
    struct stat st;
    size_t length = strlen(path), suffix = strlen(".crowd.json");
    return (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) ||
           (length > suffix && strcmp(path + length - suffix, ".crowd.json") == 0);
}

static const char *texture_line(const crowd_texture *texture, char *out, size_t size) {
    if (texture->texels == NULL) {
        return "none";
    }
    snprintf(out, size, "%ux%u", texture->width, texture->height);
    return out;
}

static void print_text(const crowd_bake *bake, const float *speeds) {
    printf("bake              %s (from %s)\n", bake->name, bake->source);
    printf("vertices          %u\njoints            %u\nframes            %u\n", bake->vertex_count,
           bake->joint_count, bake->frame_count);
    char vat[48], bat[48];
    char tracks[48];
    printf("VAT               %s\nBAT               %s\nsocket tracks     %s\n",
           texture_line(&bake->vat_position, vat, sizeof vat),
           texture_line(&bake->bat, bat, sizeof bat),
           texture_line(&bake->socket_tracks, tracks, sizeof tracks));
    printf("LODs              %u\n", bake->lod_count);
    printf("clips             %u\n", bake->clip_count);
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        const crowd_bake_clip *clip = &bake->clips[c];
        printf("  %-24s %6u frames at %g fps, %.3f s%s", clip->name, clip->frame_count,
               (double)clip->fps, (double)clip->duration_s, clip->loop ? ", loop" : "");
        if (speeds[c] >= 0.0f) {
            printf(", ground speed %.4g m/s", (double)speeds[c]);
        }
        if (clip->max_step >= 0.0f) {
            printf(", step %.3g m a frame", (double)clip->max_step);
        }
        printf("\n");
        const crowd_root_motion *motion = &clip->root_motion;
        if (motion->sample_count > 0) {
            const float *end = motion->samples + 3 * (size_t)(motion->sample_count - 1);
            printf("    root motion   joint %u '%s': %.4g m/s, %.4g m along x and %.4g m along z, "
                   "turns %.4g rad (%u samples)\n",
                   motion->joint,
                   motion->joint < bake->asset->skeleton.joint_count
                       ? bake->asset->skeleton.names[motion->joint]
                       : "",
                   (double)crowd_anim_root_motion_speed(motion, clip->duration_s), (double)end[0],
                   (double)end[1], (double)end[2], motion->sample_count);
        }
        uint32_t count = 0;
        const crowd_bake_event *events = crowd_bake_clip_events(bake, c, &count);
        for (uint32_t e = 0; e < count; e++) {
            printf("    event %-18s at %g s\n", events[e].name, (double)events[e].time_s);
        }
    }
    printf("events            %u\n", bake->event_count);
    printf("blends            %u\n", bake->blend_count);
    for (uint32_t b = 0; b < bake->blend_count; b++) {
        const crowd_bake_blend *blend = &bake->blends[b];
        printf("  '%s':", blend->name);
        for (uint32_t i = 0; i < blend->clip_count; i++) {
            uint32_t clip = blend->clips[i];
            float at = blend->has_thresholds ? blend->thresholds[i] : speeds[clip];
            printf(" %s at %.4g%s", bake->clips[clip].name, (double)at,
                   blend->has_thresholds ? "" : " m/s");
        }
        printf("%s\n", blend->has_thresholds ? "" : " (ground speeds)");
    }
    const crowd_bake_anim *anim = &bake->anim;
    if (!anim->present) {
        printf("runtime clips     none (a bake before manifest version 4: plays static, bat "
               "and vat)\n");
    } else {
        printf("runtime clips     %u clips, %u tracks, %u keys, %llu bytes; error against the "
               "source %.3g (%.3g of the diagonal)\n",
               bake->asset->clip_count, anim->track_count, anim->key_count,
               (unsigned long long)anim->size_bytes, anim->error_max, anim->error_max_rel);
    }
    const crowd_asset *asset = bake->asset;
    printf("sockets           %u\n", asset->socket_count);
    for (uint32_t s = 0; s < asset->socket_count; s++) {
        const crowd_socket *socket = &asset->sockets[s];
        printf("  '%s' on joint %u '%s'\n", socket->name, socket->joint,
               asset->skeleton.names[socket->joint]);
        uint64_t track = crowd_prop_socket_track_bytes(bake, socket->joint);
        if (track > 0) {
            printf("    socket track  %llu bytes of GPU memory per vat prop type on it (from %s)\n",
                   (unsigned long long)track,
                   bake->socket_count > 0 ? "the bake's socket tracks" : "the BAT");
        } else {
            printf("    socket track  none (no socket tracks, no BAT): vat mode does not draw "
                   "props on it\n");
        }
    }
}

/* The sockets the runtime clips carry (none before manifest version 4). */
static void add_sockets(cJSON *json, const crowd_bake *bake, const crowd_asset *asset) {
    cJSON *sockets = cJSON_AddArrayToObject(json, "sockets");
    for (uint32_t s = 0; sockets != NULL && s < asset->socket_count; s++) {
        const crowd_socket *socket = &asset->sockets[s];
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "name", socket->name);
        cJSON_AddNumberToObject(item, "joint", socket->joint);
        cJSON_AddStringToObject(item, "joint_name", asset->skeleton.names[socket->joint]);
        cJSON_AddNumberToObject(item, "socket_track_bytes",
                                (double)crowd_prop_socket_track_bytes(bake, socket->joint));
        cJSON_AddItemToArray(sockets, item);
    }
}

static cJSON *build_json(const crowd_bake *bake, const float *speeds) {
    cJSON *json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "bake", bake->name);
    cJSON_AddStringToObject(json, "source", bake->source);
    cJSON_AddNumberToObject(json, "vertex_count", bake->vertex_count);
    cJSON_AddNumberToObject(json, "joint_count", bake->joint_count);
    cJSON_AddNumberToObject(json, "frame_count", bake->frame_count);
    cJSON_AddNumberToObject(json, "lod_count", bake->lod_count);
    cJSON *clips = cJSON_AddArrayToObject(json, "clips");
    for (uint32_t c = 0; clips != NULL && c < bake->clip_count; c++) {
        const crowd_bake_clip *clip = &bake->clips[c];
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "name", clip->name);
        cJSON_AddNumberToObject(item, "frame_count", clip->frame_count);
        cJSON_AddNumberToObject(item, "fps", clip->fps);
        cJSON_AddNumberToObject(item, "duration_s", clip->duration_s);
        cJSON_AddBoolToObject(item, "loop", clip->loop);
        if (speeds[c] >= 0.0f) {
            cJSON_AddNumberToObject(item, "ground_speed", speeds[c]);
        } else {
            cJSON_AddNullToObject(item, "ground_speed");
        }
        if (clip->max_step >= 0.0f) {
            cJSON_AddNumberToObject(item, "max_step", clip->max_step);
        } else {
            cJSON_AddNullToObject(item, "max_step");
        }
        const crowd_root_motion *motion = &clip->root_motion;
        if (motion->sample_count > 0) {
            const float *end = motion->samples + 3 * (size_t)(motion->sample_count - 1);
            cJSON *root = cJSON_AddObjectToObject(item, "root_motion");
            cJSON_AddNumberToObject(root, "joint", motion->joint);
            cJSON_AddNumberToObject(root, "speed",
                                    crowd_anim_root_motion_speed(motion, clip->duration_s));
            cJSON_AddNumberToObject(root, "x", end[0]);
            cJSON_AddNumberToObject(root, "z", end[1]);
            cJSON_AddNumberToObject(root, "heading", end[2]);
        }
        cJSON *list = cJSON_AddArrayToObject(item, "events");
        uint32_t count = 0;
        const crowd_bake_event *events = crowd_bake_clip_events(bake, c, &count);
        for (uint32_t e = 0; list != NULL && e < count; e++) {
            cJSON *event = cJSON_CreateObject();
            cJSON_AddStringToObject(event, "name", events[e].name);
            cJSON_AddNumberToObject(event, "time_s", events[e].time_s);
            cJSON_AddItemToArray(list, event);
        }
        cJSON_AddItemToArray(clips, item);
    }
    cJSON *blends = cJSON_AddArrayToObject(json, "blends");
    for (uint32_t b = 0; blends != NULL && b < bake->blend_count; b++) {
        const crowd_bake_blend *blend = &bake->blends[b];
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "name", blend->name);
        cJSON *names = cJSON_AddArrayToObject(item, "clips");
        cJSON *at = cJSON_AddArrayToObject(item, "thresholds");
        for (uint32_t i = 0; names != NULL && at != NULL && i < blend->clip_count; i++) {
            uint32_t clip = blend->clips[i];
            cJSON_AddItemToArray(names, cJSON_CreateString(bake->clips[clip].name));
            cJSON_AddItemToArray(at, cJSON_CreateNumber(blend->has_thresholds ? blend->thresholds[i]
                                                                              : speeds[clip]));
        }
        cJSON_AddBoolToObject(item, "ground_speeds", !blend->has_thresholds);
        cJSON_AddItemToArray(blends, item);
    }
    add_sockets(json, bake, bake->asset);
    const crowd_bake_anim *anim = &bake->anim;
    if (!anim->present) {
        cJSON_AddNullToObject(json, "runtime_clips");
        return json;
    }
    cJSON *runtime = cJSON_AddObjectToObject(json, "runtime_clips");
    cJSON_AddNumberToObject(runtime, "clip_count", bake->asset->clip_count);
    cJSON_AddNumberToObject(runtime, "track_count", anim->track_count);
    cJSON_AddNumberToObject(runtime, "key_count", anim->key_count);
    cJSON_AddNumberToObject(runtime, "size_bytes", (double)anim->size_bytes);
    cJSON_AddNumberToObject(runtime, "error_max", anim->error_max);
    cJSON_AddNumberToObject(runtime, "error_max_rel", anim->error_max_rel);
    return json;
}

int cli_info_bake(const char *path, bool json) {
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    if (crowd_bake_load(path, NULL, &bake, &error) != CROWD_OK) {
        return cli_report(&error);
    }
    int code = CLI_EXIT_OK;
    float *speeds = malloc((bake->clip_count + 1) * sizeof *speeds);
    if (speeds == NULL) {
        crowd_bake_destroy(bake);
        return cli_fail(CLI_EXIT_OUTPUT, "info: out of memory");
    }
    ground_speeds(bake, speeds);
    if (json) {
        cJSON *object = build_json(bake, speeds);
        char *text = object != NULL ? cJSON_Print(object) : NULL;
        if (text == NULL) {
            code = cli_fail(CLI_EXIT_OUTPUT, "info: out of memory while writing JSON");
        } else {
            puts(text);
        }
        cJSON_free(text);
        cJSON_Delete(object);
    } else {
        print_text(bake, speeds);
    }
    free(speeds);
    crowd_bake_destroy(bake);
    return code;
}
