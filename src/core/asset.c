#include "crowd/asset.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/core_internal.h"

crowd_asset *crowd_asset_create(void) {
    return crowd__core_asset_create_with(NULL);
}

crowd_asset *crowd__core_asset_create_with(const crowd_allocator *allocator) {
    crowd_asset *asset = crowd__mem_alloc_zeroed(allocator, 1, sizeof *asset);
    if (asset == NULL) {
        return NULL;
    }
    if (allocator != NULL) {
        asset->allocator = *allocator;
    }
    for (int i = 0; i < 4; i++) {
        asset->skeleton.root_transform[i * 5] = 1.0f;
    }
    return asset;
}

void crowd__core_material_defaults(crowd_material *material) {
    for (int c = 0; c < 4; c++) {
        material->base_color[c] = 1.0f;
    }
    material->metallic = 1.0f;
    material->roughness = 1.0f;
    memset(material->emissive, 0, sizeof material->emissive);
    material->normal_scale = 1.0f;
    material->occlusion_strength = 1.0f;
    material->alpha_mode = CROWD_ALPHA_OPAQUE;
    material->alpha_cutoff = 0.5f;
    material->double_sided = false;
}

void crowd__core_material_release_with(const crowd_allocator *allocator, crowd_material *material) {
    crowd__mem_free(allocator, material->name);
    crowd__mem_free(allocator, material->texture_rgba8);
    crowd__mem_free(allocator, material->metallic_roughness_texture.rgba8);
    crowd__mem_free(allocator, material->normal_texture.rgba8);
    crowd__mem_free(allocator, material->emissive_texture.rgba8);
    crowd__mem_free(allocator, material->occlusion_texture.rgba8);
}

void crowd__core_material_release(crowd_material *material) {
    crowd__core_material_release_with(NULL, material);
}

static void free_track(const crowd_allocator *allocator, crowd_track *track) {
    crowd__mem_free(allocator, track->times_s);
    crowd__mem_free(allocator, track->values);
}

void crowd_asset_destroy(crowd_asset *asset) {
    if (asset == NULL) {
        return;
    }
    /* a copy: the last block returned is the struct that holds it */
    const crowd_allocator allocator = asset->allocator;
    const crowd_allocator *heap = &allocator;
    crowd_mesh *mesh = &asset->mesh;
    crowd__mem_free(heap, mesh->positions);
    crowd__mem_free(heap, mesh->normals);
    crowd__mem_free(heap, mesh->tangents);
    crowd__mem_free(heap, mesh->uv0);
    crowd__mem_free(heap, mesh->joints);
    crowd__mem_free(heap, mesh->weights);
    crowd__mem_free(heap, mesh->indices);
    crowd__mem_free(heap, mesh->submeshes);
    for (uint32_t i = 0; i < asset->material_count && asset->materials; i++) {
        crowd__core_material_release_with(heap, &asset->materials[i]);
    }
    crowd__mem_free(heap, asset->materials);
    crowd_skeleton *skeleton = &asset->skeleton;
    for (uint32_t j = 0; j < skeleton->joint_count && skeleton->names; j++) {
        crowd__mem_free(heap, skeleton->names[j]);
    }
    crowd__mem_free(heap, skeleton->names);
    crowd__mem_free(heap, skeleton->parents);
    crowd__mem_free(heap, skeleton->rest_translation);
    crowd__mem_free(heap, skeleton->rest_rotation);
    crowd__mem_free(heap, skeleton->rest_scale);
    crowd__mem_free(heap, skeleton->inverse_bind);
    for (uint32_t c = 0; c < asset->clip_count && asset->clips; c++) {
        crowd_clip *clip = &asset->clips[c];
        crowd__mem_free(heap, clip->name);
        for (uint32_t j = 0; j < skeleton->joint_count && clip->tracks; j++) {
            free_track(heap, &clip->tracks[j].translation);
            free_track(heap, &clip->tracks[j].rotation);
            free_track(heap, &clip->tracks[j].scale);
        }
        crowd__mem_free(heap, clip->tracks);
    }
    crowd__mem_free(heap, asset->clips);
    for (uint32_t s = 0; s < asset->socket_count && asset->sockets; s++) {
        crowd__mem_free(heap, asset->sockets[s].name);
    }
    crowd__mem_free(heap, asset->sockets);
    crowd__mem_free(heap, asset->name);
    crowd__mem_free(heap, asset->source);
    crowd__mem_free(heap, asset);
}

void crowd_asset_bind_bounds(const crowd_asset *asset, float min[3], float max[3]) {
    const crowd_mesh *mesh = &asset->mesh;
    if (mesh->vertex_count == 0 || mesh->positions == NULL) {
        memset(min, 0, 3 * sizeof *min);
        memset(max, 0, 3 * sizeof *max);
        return;
    }
    for (int a = 0; a < 3; a++) {
        min[a] = max[a] = mesh->positions[a];
    }
    for (uint32_t v = 1; v < mesh->vertex_count; v++) {
        for (int a = 0; a < 3; a++) {
            float p = mesh->positions[3 * v + a];
            min[a] = p < min[a] ? p : min[a];
            max[a] = p > max[a] ? p : max[a];
        }
    }
}

int32_t crowd_asset_find_clip(const crowd_asset *asset, const char *name) {
    for (uint32_t i = 0; i < asset->clip_count; i++) {
        if (asset->clips[i].name && strcmp(asset->clips[i].name, name) == 0) {
            return (int32_t)i;
        }
    }
    return -1;
}

int32_t crowd_asset_find_joint(const crowd_asset *asset, const char *name) {
    for (uint32_t i = 0; i < asset->skeleton.joint_count; i++) {
        if (asset->skeleton.names[i] && strcmp(asset->skeleton.names[i], name) == 0) {
            return (int32_t)i;
        }
    }
    return -1;
}

int32_t crowd_asset_find_socket(const crowd_asset *asset, const char *name) {
    for (uint32_t i = 0; i < asset->socket_count; i++) {
        if (asset->sockets[i].name && strcmp(asset->sockets[i].name, name) == 0) {
            return (int32_t)i;
        }
    }
    return -1;
}

void crowd__core_socket_names(const crowd_asset *asset, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    for (uint32_t s = 0; s < asset->socket_count && used < size; s++) {
        int n = snprintf(out + used, size - used, "%s%s", s ? ", " : "",
                         asset->sockets[s].name != NULL ? asset->sockets[s].name : "");
        used += n > 0 ? (size_t)n : 0;
    }
}

bool crowd__core_skeleton_allocate(crowd_skeleton *sk, uint32_t joint_count) {
    return crowd__core_skeleton_allocate_with(NULL, sk, joint_count);
}

bool crowd__core_skeleton_allocate_with(const crowd_allocator *allocator, crowd_skeleton *sk,
                                        uint32_t joint_count) {
    size_t n = joint_count > 0 ? joint_count : 1;
    sk->joint_count = joint_count;
    sk->names = crowd__mem_alloc_zeroed(allocator, n, sizeof *sk->names);
    sk->parents = crowd__mem_alloc_zeroed(allocator, n, sizeof *sk->parents);
    sk->rest_translation = crowd__mem_alloc_zeroed(allocator, 3 * n, sizeof *sk->rest_translation);
    sk->rest_rotation = crowd__mem_alloc_zeroed(allocator, 4 * n, sizeof *sk->rest_rotation);
    sk->rest_scale = crowd__mem_alloc_zeroed(allocator, 3 * n, sizeof *sk->rest_scale);
    sk->inverse_bind = crowd__mem_alloc_zeroed(allocator, 16 * n, sizeof *sk->inverse_bind);
    return sk->names && sk->parents && sk->rest_translation && sk->rest_rotation &&
           sk->rest_scale && sk->inverse_bind;
}
