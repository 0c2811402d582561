/* Writing NAME.crowd.json (manifest_write.h, docs/manifest.md). Floats are
 * written as doubles, which cJSON prints with enough digits to read back the
 * identical float. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bake/manifest_write.h"

#include "bake/manifest_ground.h"
#include "bake/write_json.h"
#include "load/bake_internal.h"

static bool has_texture(const crowd_texture *texture) {
    return texture->format != CROWD_TEXEL_NONE && texture->texels != NULL;
}

void crowd__manifest_file_names(const crowd_bake *bake, uint32_t generation,
                                manifest_files *files) {
    memset(files, 0, sizeof *files);
    const char *name = bake->name;
    snprintf(files->manifest, sizeof files->manifest, "%s%s", name, MANIFEST_SUFFIX);
    snprintf(files->mesh, sizeof files->mesh, "%s.%u.mesh.glb", name, generation);
    if (has_texture(&bake->vat_position)) {
        bool png = bake->vat_position.format == CROWD_TEXEL_RGBA16_UNORM;
        snprintf(files->vat_position, sizeof files->vat_position, "%s.%u.vat.%s", name, generation,
                 png ? "png" : "exr");
        if (!png) {
            snprintf(files->vat_normal, sizeof files->vat_normal, "%s.%u.vat_normal.exr", name,
                     generation);
        }
    }
    if (has_texture(&bake->bat)) {
        snprintf(files->bat, sizeof files->bat, "%s.%u.bat.exr", name, generation);
    }
    if (has_texture(&bake->socket_tracks)) {
        snprintf(files->socket_tracks, sizeof files->socket_tracks, "%s.%u.sockets.exr", name,
                 generation);
    }
}

bool crowd__manifest_texture_range(const crowd_texture *texture, manifest_range *range) {
    bool finite = true;
    size_t count = (size_t)texture->width * texture->height;
    for (int c = 0; c < 4; c++) {
        range->min[c] = INFINITY;
        range->max[c] = -INFINITY;
    }
    for (size_t i = 0; i < count; i++) {
        for (int c = 0; c < 4; c++) {
            float value = bake_texel_stored_value(texture, 4 * i + (size_t)c);
            finite = finite && isfinite(value);
            range->min[c] = value < range->min[c] ? value : range->min[c];
            range->max[c] = value > range->max[c] ? value : range->max[c];
        }
    }
    return finite;
}

static const char *vat_encoding_name(crowd_texel_format format) {
    return format == CROWD_TEXEL_RGBA16_UNORM ? "unorm16_oct"
           : format == CROWD_TEXEL_RGBA16F    ? "f16"
                                              : "f32";
}

static void put_range(bool *failed, cJSON *parent, const char *key, const manifest_range *range) {
    cJSON *object = crowd__json_put(failed, parent, key, cJSON_CreateObject());
    crowd__json_put_floats(failed, object, "min", range->min, 4);
    crowd__json_put_floats(failed, object, "max", range->max, 4);
}

static void put_layout(bool *failed, cJSON *object, const crowd_texture *texture,
                       uint32_t rows_per_frame) {
    crowd__json_put_number(failed, object, "width", texture->width);
    crowd__json_put_number(failed, object, "height", texture->height);
    crowd__json_put_number(failed, object, "rows_per_frame", rows_per_frame);
}

static void put_vat(bool *failed, cJSON *root, const crowd_bake *bake, const manifest_info *info) {
    const manifest_files *files = &info->files;
    if (!has_texture(&bake->vat_position)) {
        crowd__json_put(failed, root, "vat", cJSON_CreateNull());
        return;
    }
    cJSON *vat = crowd__json_put(failed, root, "vat", cJSON_CreateObject());
    put_layout(failed, vat, &bake->vat_position, bake->vat_rows_per_frame);
    crowd__json_put_string(failed, vat, "encoding", vat_encoding_name(bake->vat_position.format));
    crowd__json_put_string(failed, vat, "position", files->vat_position);
    if (files->vat_normal[0] != '\0') {
        crowd__json_put_string(failed, vat, "normal", files->vat_normal);
    } else {
        crowd__json_put(failed, vat, "normal", cJSON_CreateNull());
    }
    put_range(failed, vat, "position_range", &info->vat_position_range);
    if (files->vat_normal[0] != '\0') {
        put_range(failed, vat, "normal_range", &info->vat_normal_range);
    } else {
        crowd__json_put(failed, vat, "normal_range", cJSON_CreateNull());
    }
}

static void put_bat(bool *failed, cJSON *root, const crowd_bake *bake, const manifest_info *info) {
    const manifest_files *files = &info->files;
    if (!has_texture(&bake->bat)) {
        crowd__json_put(failed, root, "bat", cJSON_CreateNull());
        return;
    }
    cJSON *bat = crowd__json_put(failed, root, "bat", cJSON_CreateObject());
    put_layout(failed, bat, &bake->bat, bake->bat_rows_per_frame);
    crowd__json_put_string(failed, bat, "encoding",
                           bake->bat.format == CROWD_TEXEL_RGBA16F ? "f16" : "f32");
    crowd__json_put_string(failed, bat, "file", files->bat);
    put_range(failed, bat, "range", &info->bat_range);
}

/* The socket tracks (crowd_bake.socket_tracks), or null without sockets. */
static void put_socket_tracks(bool *failed, cJSON *root, const crowd_bake *bake,
                              const manifest_info *info) {
    if (info->files.socket_tracks[0] == '\0') {
        crowd__json_put(failed, root, "socket_tracks", cJSON_CreateNull());
        return;
    }
    cJSON *tracks = crowd__json_put(failed, root, "socket_tracks", cJSON_CreateObject());
    put_layout(failed, tracks, &bake->socket_tracks, bake->socket_rows_per_frame);
    crowd__json_put(failed, tracks, "sockets", cJSON_CreateNumber(bake->socket_count));
    /* The sockets' names in track order, for players without the runtime
     * clips (the three.js player attaches props by socket name). */
    cJSON *names = crowd__json_put(failed, tracks, "names", cJSON_CreateArray());
    for (uint32_t s = 0; s < bake->socket_count && s < bake->asset->socket_count; s++) {
        crowd__json_put(failed, names, NULL, cJSON_CreateString(bake->asset->sockets[s].name));
    }
    crowd__json_put_string(failed, tracks, "encoding", "f32");
    crowd__json_put_string(failed, tracks, "file", info->files.socket_tracks);
    put_range(failed, tracks, "range", &info->socket_tracks_range);
}

/* Version 4's runtime clips, or null without them. */
static void put_anim(bool *failed, cJSON *root, const manifest_info *info) {
    if (info->files.anim[0] == '\0') {
        crowd__json_put(failed, root, "anim", cJSON_CreateNull());
        return;
    }
    const crowd_bake_anim *anim = &info->anim;
    cJSON *object = crowd__json_put(failed, root, "anim", cJSON_CreateObject());
    crowd__json_put_string(failed, object, "file", info->files.anim);
    crowd__json_put_number(failed, object, "track_count", anim->track_count);
    crowd__json_put_number(failed, object, "key_count", anim->key_count);
    crowd__json_put_number(failed, object, "size_bytes", (double)anim->size_bytes);
    crowd__json_put_number(failed, object, "error_max", anim->error_max);
    crowd__json_put_number(failed, object, "error_max_rel", anim->error_max_rel);
}

static void put_clip_bounds(bool *failed, cJSON *object, const crowd_bake_clip *clip) {
    cJSON *bounds = crowd__json_put(failed, object, "bounds", cJSON_CreateObject());
    crowd__json_put_floats(failed, bounds, "min", clip->bounds_min, 3);
    crowd__json_put_floats(failed, bounds, "max", clip->bounds_max, 3);
    crowd__json_put_floats(failed, bounds, "center", clip->sphere_center, 3);
    crowd__json_put_number(failed, bounds, "radius", clip->sphere_radius);
}

static void put_lods(bool *failed, cJSON *root, const crowd_bake *bake) {
    cJSON *lods = crowd__json_put(failed, root, "lods", cJSON_CreateArray());
    for (uint32_t k = 0; k < bake->lod_count; k++) {
        const crowd_bake_lod *lod = &bake->lods[k];
        cJSON *object = crowd__json_put(failed, lods, NULL, cJSON_CreateObject());
        crowd__json_put_number(failed, object, "first_index", lod->first_index);
        crowd__json_put_number(failed, object, "index_count", lod->index_count);
        crowd__json_put_number(failed, object, "first_vertex", lod->first_vertex);
        crowd__json_put_number(failed, object, "vertex_count", lod->vertex_count);
        crowd__json_put_number(failed, object, "triangle_count", lod->triangle_count);
        crowd__json_put_number(failed, object, "error", lod->error);
        crowd__json_put_number(failed, object, "error_rel", lod->error_rel);
    }
}

/* The clip's rate, how it was chosen and its between-frame error (absolute
 * and of the bounds diagonal). */
static void put_clip_rate(bool *failed, cJSON *object, const crowd_bake_clip *clip,
                          double diagonal) {
    crowd__json_put_number(failed, object, "fps", clip->fps);
    crowd__json_put_number(failed, object, "key_rate", clip->key_rate);
    crowd__json_put_number(failed, object, "rate_multiple", clip->rate_multiple);
    cJSON *between = crowd__json_put(failed, object, "between_error", cJSON_CreateObject());
    crowd__json_put_number(failed, between, "max", clip->between_error_max);
    crowd__json_put_number(failed, between, "mean", clip->between_error_mean);
    crowd__json_put_number(failed, between, "max_rel",
                           diagonal > 0.0 ? clip->between_error_max / diagonal : 0.0);
    crowd__json_put_number(failed, between, "mean_rel",
                           diagonal > 0.0 ? clip->between_error_mean / diagonal : 0.0);
    crowd__json_put_bool(failed, between, "within_budget", clip->within_budget);
}

/* The clip's events, when it has any ("events": [{"name", "time_s"}] in
 * time order): an optional member, so bakes without events read as before
 * and readers that predate events play the rest of the bake. */
static void put_clip_events(bool *failed, cJSON *object, const crowd_bake *bake, uint32_t clip) {
    uint32_t count = 0;
    const crowd_bake_event *events = crowd_bake_clip_events(bake, clip, &count);
    if (count == 0) {
        return;
    }
    cJSON *list = crowd__json_put(failed, object, "events", cJSON_CreateArray());
    for (uint32_t i = 0; i < count; i++) {
        cJSON *event = crowd__json_put(failed, list, NULL, cJSON_CreateObject());
        crowd__json_put_string(failed, event, "name", events[i].name);
        crowd__json_put_number(failed, event, "time_s", events[i].time_s);
    }
}

/* The clip's root motion, when extracted: "root_motion": {"joint",
 * "start": [x, z], "times": [...], "samples": [x, z, heading, ...]}
 * (crowd_root_motion); optional like the events. */
static void put_clip_root_motion(bool *failed, cJSON *object, const crowd_bake_clip *clip) {
    const crowd_root_motion *motion = &clip->root_motion;
    if (motion->sample_count == 0) {
        return;
    }
    cJSON *member = crowd__json_put(failed, object, "root_motion", cJSON_CreateObject());
    crowd__json_put_number(failed, member, "joint", motion->joint);
    crowd__json_put_floats(failed, member, "start", motion->start, 2);
    crowd__json_put_floats(failed, member, "times", motion->times_s, (int)motion->sample_count);
    crowd__json_put_floats(failed, member, "samples", motion->samples,
                           3 * (int)motion->sample_count);
}

/* The bake's blends, when it has any ("blends": [{"name", "clips": [clip
 * names], "thresholds": [...] or absent for the clips' ground speeds}]):
 * optional like the events. */
static void put_blends(bool *failed, cJSON *root, const crowd_bake *bake,
                       const manifest_ground *ground) {
    if (bake->blend_count == 0) {
        return;
    }
    cJSON *list = crowd__json_put(failed, root, "blends", cJSON_CreateArray());
    for (uint32_t b = 0; b < bake->blend_count; b++) {
        const crowd_bake_blend *blend = &bake->blends[b];
        cJSON *object = crowd__json_put(failed, list, NULL, cJSON_CreateObject());
        crowd__json_put_string(failed, object, "name", blend->name);
        cJSON *clips = crowd__json_put(failed, object, "clips", cJSON_CreateArray());
        for (uint32_t i = 0; i < blend->clip_count; i++) {
            crowd__json_put(failed, clips, NULL,
                            cJSON_CreateString(bake->clips[blend->clips[i]].name));
        }
        if (blend->has_thresholds) {
            crowd__json_put_floats(failed, object, "thresholds", blend->thresholds,
                                   (int)blend->clip_count);
        }
        /* Speed matching's strides, one array of STEPS + 1 per segment. */
        cJSON *strides = ground->strides != NULL
                             ? crowd__json_put(failed, object, "strides", cJSON_CreateArray())
                             : NULL;
        for (uint32_t i = 0; strides != NULL && i + 1 < blend->clip_count; i++) {
            crowd__json_put(
                failed, strides, NULL,
                cJSON_CreateFloatArray(ground->strides[b][i], CROWD_BAKE_BLEND_STRIDE_STEPS + 1));
        }
    }
}

crowd_result crowd__manifest_write(const crowd_bake *bake, const manifest_info *info,
                                   const manifest_openvat *openvat, char **out_json,
                                   crowd_error *error) {
    const manifest_files *files = &info->files;
    for (uint32_t i = 0; i < bake->clip_count; i++) {
        if (bake->clips[i].layout != CROWD_FRAMES_END) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, files->manifest,
                                   "clip '%s' has the frames of an older bake (version 1 or 2), "
                                   "which version %d cannot describe: bake the model again",
                                   bake->clips[i].name, CROWD_BAKE_FORMAT_VERSION);
        }
    }
    double diagonal = 0.0;
    for (int a = 0; a < 3; a++) {
        double e = (double)bake->bounds_max[a] - bake->bounds_min[a];
        diagonal += e * e;
    }
    diagonal = sqrt(diagonal);
    manifest_ground ground;
    crowd_result measured = crowd__manifest_ground_measure(bake, &ground, error);
    if (measured != CROWD_OK) {
        return measured;
    }
    bool failed = false;
    cJSON *root = cJSON_CreateObject();
    crowd__json_put_string(&failed, root, "format", MANIFEST_FORMAT);
    crowd__json_put_number(&failed, root, "version", CROWD_BAKE_FORMAT_VERSION);
    crowd__json_put_string(&failed, root, "producer", "crowd " CROWD_VERSION_STRING);
    crowd__json_put_string(&failed, root, "name", bake->name);
    crowd__json_put_string(&failed, root, "source", bake->source ? bake->source : "");
    crowd__json_put_string(&failed, root, "coordinate_system", "gltf");
    crowd__json_put_number(&failed, root, "vertex_count", bake->vertex_count);
    crowd__json_put_number(&failed, root, "joint_count", bake->joint_count);
    crowd__json_put_number(&failed, root, "frame_count", bake->frame_count);
    crowd__json_put_number(&failed, root, "between_error_budget", bake->between_error_budget_rel);
    cJSON *bounds = crowd__json_put(&failed, root, "bounds", cJSON_CreateObject());
    crowd__json_put_floats(&failed, bounds, "min", bake->bounds_min, 3);
    crowd__json_put_floats(&failed, bounds, "max", bake->bounds_max, 3);
    cJSON *clips = crowd__json_put(&failed, root, "clips", cJSON_CreateArray());
    for (uint32_t i = 0; i < bake->clip_count; i++) {
        const crowd_bake_clip *clip = &bake->clips[i];
        cJSON *object = crowd__json_put(&failed, clips, NULL, cJSON_CreateObject());
        crowd__json_put_string(&failed, object, "name", clip->name);
        crowd__json_put_number(&failed, object, "duration_s", clip->duration_s);
        crowd__json_put_bool(&failed, object, "loop", clip->loop);
        crowd__json_put_number(&failed, object, "first_frame", clip->first_frame);
        crowd__json_put_number(&failed, object, "frame_count", clip->frame_count);
        put_clip_rate(&failed, object, clip, diagonal);
        put_clip_bounds(&failed, object, clip);
        put_clip_events(&failed, object, bake, i);
        put_clip_root_motion(&failed, object, clip);
        if (ground.speeds != NULL) {
            crowd__json_put_number(&failed, object, "ground_speed", ground.speeds[i]);
        }
        if (clip->max_step >= 0.0f) {
            crowd__json_put_number(&failed, object, "max_step", clip->max_step);
        }
    }
    put_blends(&failed, root, bake, &ground);
    put_lods(&failed, root, bake);
    put_vat(&failed, root, bake, info);
    put_bat(&failed, root, bake, info);
    put_socket_tracks(&failed, root, bake, info);
    crowd__json_put_string(&failed, root, "mesh", files->mesh);
    put_anim(&failed, root, info);
    cJSON *checks = crowd__json_put(&failed, root, "files", cJSON_CreateObject());
    for (uint32_t i = 0; i < info->check_count; i++) {
        cJSON *object =
            crowd__json_put(&failed, checks, info->checks[i].name, cJSON_CreateObject());
        crowd__json_put_number(&failed, object, "size_bytes", (double)info->checks[i].size_bytes);
        crowd__json_put_number(&failed, object, "crc32", info->checks[i].crc32);
    }
    if (openvat != NULL) {
        cJSON *compat = crowd__json_put(&failed, root, "compat", cJSON_CreateObject());
        cJSON *object = crowd__json_put(&failed, compat, "openvat", cJSON_CreateObject());
        crowd__json_put_string(&failed, object, "remap_info", openvat->remap_info);
        crowd__json_put_string(&failed, object, "texture", openvat->texture);
        crowd__json_put_string(&failed, object, "mesh", openvat->mesh);
    }
    char *json = failed ? NULL : cJSON_Print(root);
    cJSON_Delete(root);
    crowd__manifest_ground_free(bake, &ground);
    if (json == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, files->manifest, "out of memory");
    }
    *out_json = json;
    return CROWD_OK;
}
