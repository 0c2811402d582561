/* scene_convert.c - the intermediate scene's lists, and the order of the
 * pipeline's steps (scene.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "crowd/asset.h"
#include "import/scene/import_math.h"
#include "import/scene/scene.h"

void crowd__import_scene_init(import_scene *scene, const char *file, const crowd_import_desc *desc,
                              crowd_error *error) {
    memset(scene, 0, sizeof *scene);
    scene->file = file;
    scene->desc = desc;
    scene->logger = &desc->logger;
    scene->error = error;
    scene->unit_m = 1.0;
    scene->unit_applied = 1.0;
}

void crowd__import_scene_free(import_scene *scene) {
    for (uint32_t s = 0; s < scene->skin_count; s++) {
        free(scene->skins[s].nodes);
        free(scene->skins[s].names);
        free(scene->skins[s].inverse_binds);
    }
    for (uint32_t m = 0; m < scene->mesh_count; m++) {
        import_scene_mesh *mesh = &scene->meshes[m];
        free(mesh->positions);
        free(mesh->normals);
        free(mesh->uv);
        free(mesh->influence_first);
        free(mesh->influence_joint);
        free(mesh->influence_weight);
        free(mesh->indices);
    }
    for (uint32_t m = 0; m < scene->material_count; m++) {
        crowd__core_material_release(&scene->materials[m]);
    }
    for (uint32_t a = 0; a < scene->animation_count; a++) {
        import_scene_animation *animation = &scene->animations[a];
        for (uint32_t c = 0; c < animation->channel_count; c++) {
            free(animation->channels[c].times_s);
            free(animation->channels[c].values);
        }
        free(animation->channels);
    }
    free(scene->nodes);
    free(scene->skins);
    free(scene->meshes);
    free(scene->materials);
    free(scene->animations);
    scene->node_count = scene->skin_count = scene->mesh_count = 0;
    scene->material_count = scene->animation_count = 0;
    scene->nodes = NULL;
    scene->skins = NULL;
    scene->meshes = NULL;
    scene->materials = NULL;
    scene->animations = NULL;
}

/* One more zeroed element of a list of `size`-byte elements growing by doubling. */
static void *grow(import_scene *scene, void **list, uint32_t *count, size_t size) {
    uint32_t n = *count;
    if ((n & (n - 1)) == 0) { /* 0, 1, 2, 4, ...: full */
        size_t capacity = n == 0 ? 4 : 2 * (size_t)n;
        void *grown = realloc(*list, capacity * size);
        if (grown == NULL) {
            crowd_error_set(scene->error, CROWD_ERROR_OUT_OF_MEMORY, scene->file, "out of memory");
            return NULL;
        }
        *list = grown;
    }
    char *item = (char *)*list + (size_t)n * size;
    memset(item, 0, size);
    *count = n + 1;
    return item;
}

import_scene_node *crowd__import_scene_add_node(import_scene *scene) {
    import_scene_node *node =
        grow(scene, (void **)&scene->nodes, &scene->node_count, sizeof *scene->nodes);
    if (node != NULL) {
        node->name = "";
        node->parent = -1;
        node->joint = -1;
    }
    return node;
}

import_scene_mesh *crowd__import_scene_add_mesh(import_scene *scene) {
    import_scene_mesh *mesh =
        grow(scene, (void **)&scene->meshes, &scene->mesh_count, sizeof *scene->meshes);
    if (mesh != NULL) {
        mesh->name = "";
        mesh->skin = -1;
    }
    return mesh;
}

crowd_result crowd__import_scene_material_slot(import_scene *scene, uint32_t *slot_of, uint32_t key,
                                               uint32_t *out_slot, crowd_material **out_new) {
    *out_new = NULL;
    if (slot_of[key] == 0) {
        *out_new = grow(scene, (void **)&scene->materials, &scene->material_count,
                        sizeof *scene->materials);
        if (*out_new == NULL) {
            return CROWD_ERROR_OUT_OF_MEMORY;
        }
        slot_of[key] = scene->material_count;
    }
    *out_slot = slot_of[key] - 1;
    return CROWD_OK;
}

import_scene_channel *crowd__import_scene_add_channel(import_scene *scene,
                                                      import_scene_animation *animation) {
    import_scene_channel *channel = grow(scene, (void **)&animation->channels,
                                         &animation->channel_count, sizeof *animation->channels);
    if (channel != NULL) {
        channel->node = -1;
    }
    return channel;
}

void crowd__import_scene_nodes_finish(import_scene *scene) {
    for (uint32_t n = 0; n < scene->node_count; n++) {
        import_scene_node *node = &scene->nodes[n];
        if (node->parent < 0) {
            memcpy(node->global, node->local, sizeof node->global);
        } else {
            crowd__import_m4_mul(scene->nodes[node->parent].global, node->local, node->global);
        }
    }
}

int32_t crowd__import_scene_node_find(const import_scene *scene, const char *name) {
    int32_t first = -1;
    for (uint32_t n = 0; n < scene->node_count; n++) {
        const import_scene_node *node = &scene->nodes[n];
        if (strcmp(node->name, name) != 0) {
            continue;
        }
        if (node->is_bone || node->marked) {
            return (int32_t)n;
        }
        first = first < 0 ? (int32_t)n : first;
    }
    return first;
}

/* Name without folder and last extension: "models/robot.glb" -> "robot". */
static char *asset_name(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *name = crowd__core_copy_string(base[0] ? base : "model");
    char *dot = name ? strrchr(name, '.') : NULL;
    if (dot != NULL && dot != name) {
        *dot = '\0';
    }
    return name;
}

static crowd_result run_steps(import_build *build) {
    import_scene *scene = build->scene;
    crowd_asset *asset = build->asset;
    asset->name = asset_name(scene->file);
    asset->source = crowd__core_copy_string(scene->file);
    asset->repairs.reader_warnings = scene->reader_warnings;
    if (asset->name == NULL || asset->source == NULL) {
        return crowd_error_set(scene->error, CROWD_ERROR_OUT_OF_MEMORY, scene->file,
                               "out of memory");
    }
    if (!scene->clips_only && scene->mesh_count == 0) {
        return crowd_error_set(scene->error, CROWD_ERROR_UNSUPPORTED, scene->file,
                               "no triangles: crowd plays triangle meshes only");
    }
    crowd_result result = crowd__import_build_skeleton(build);
    if (result == CROWD_OK && !scene->clips_only) {
        result = crowd__import_build_mesh(build);
    }
    if (result == CROWD_OK) {
        result = crowd__import_build_clips(build);
    }
    if (result != CROWD_OK) {
        return result;
    }
    crowd__import_build_units(build);
    crowd_error invalid;
    if (crowd_asset_validate(asset, &invalid) != CROWD_OK) {
        return crowd_error_set(scene->error, CROWD_ERROR_INVALID_DATA, scene->file, "%s",
                               invalid.reason);
    }
    return CROWD_OK;
}

crowd_result crowd__import_scene_convert(import_scene *scene, crowd_asset **out_asset) {
    *out_asset = NULL;
    import_build build;
    memset(&build, 0, sizeof build);
    build.scene = scene;
    build.asset = crowd_asset_create();
    crowd_result result = build.asset != NULL
                              ? run_steps(&build)
                              : crowd_error_set(scene->error, CROWD_ERROR_OUT_OF_MEMORY,
                                                scene->file, "out of memory");
    free(build.joint_node);
    free(build.joint_global);
    free(build.inverse_bind_set);
    if (result != CROWD_OK) {
        crowd_asset_destroy(build.asset);
        return result;
    }
    const crowd_asset *a = build.asset;
    const crowd_repairs *r = &a->repairs;
    crowd_log(scene->logger, CROWD_LOG_INFO,
              "%s: %u vertices, %u triangles, %u joints, %u clips; repairs: %u influences "
              "truncated, %u weights renormalized, %u unweighted, %u static meshes rigid, "
              "%u normals generated, %u clips renamed, %u keys dropped, %u clips extended, "
              "%u bones unbound, %u reader warnings, %u units converted",
              scene->file, a->mesh.vertex_count, a->mesh.index_count / 3, a->skeleton.joint_count,
              a->clip_count, r->influences_truncated, r->weights_renormalized,
              r->vertices_unweighted, r->static_meshes_rigid, r->normals_generated,
              r->clips_renamed, r->keys_dropped, r->clips_extended, r->bones_unbound,
              r->reader_warnings, r->units_converted);
    *out_asset = build.asset;
    return CROWD_OK;
}
