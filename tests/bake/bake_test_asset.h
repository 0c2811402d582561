/* bake_test_asset.h - tiny hand-built characters whose baked texels can be
 * worked out on paper: a chain of joints one unit apart along +Y, vertices
 * bound rigidly to them, and clips with hand-written keys. */
#ifndef CROWD_BAKE_TEST_ASSET_H
#define CROWD_BAKE_TEST_ASSET_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/asset.h"

static char *test_strdup(const char *text) {
    size_t size = strlen(text) + 1;
    char *copy = malloc(size);
    memcpy(copy, text, size);
    return copy;
}

/* joint j: child of j - 1 at local (0, 1, 0) (the root at the origin), so it
 * sits at (0, j, 0) in the rest pose; inverse bind = translate(0, -j, 0).
 * Vertex v: position (0.25 * (v % 4), v % joint_count + 0.5, 0.125 * (v / 4)),
 * normal +Z, fully bound to joint v % joint_count. */
static crowd_asset *test_asset_create(uint32_t joint_count, uint32_t vertex_count) {
    crowd_asset *asset = crowd_asset_create();
    asset->name = test_strdup("hand");
    asset->source = test_strdup("hand.glb");
    asset->has_skin = true;
    crowd_skeleton *s = &asset->skeleton;
    s->joint_count = joint_count;
    s->names = calloc(joint_count, sizeof *s->names);
    s->parents = calloc(joint_count, sizeof *s->parents);
    s->rest_translation = calloc(3 * joint_count, sizeof(float));
    s->rest_rotation = calloc(4 * joint_count, sizeof(float));
    s->rest_scale = calloc(3 * joint_count, sizeof(float));
    s->inverse_bind = calloc(16 * joint_count, sizeof(float));
    for (uint32_t j = 0; j < joint_count; j++) {
        char name[32];
        snprintf(name, sizeof name, "joint%u", j);
        s->names[j] = test_strdup(name);
        s->parents[j] = (int32_t)j - 1;
        s->rest_translation[3 * j + 1] = j == 0 ? 0.0f : 1.0f;
        s->rest_rotation[4 * j + 3] = 1.0f;
        for (int a = 0; a < 3; a++) {
            s->rest_scale[3 * j + a] = 1.0f;
        }
        float *m = s->inverse_bind + 16 * j;
        m[0] = m[5] = m[10] = m[15] = 1.0f;
        m[13] = -(float)j;
    }
    crowd_mesh *mesh = &asset->mesh;
    mesh->vertex_count = vertex_count;
    mesh->positions = calloc(3 * vertex_count, sizeof(float));
    mesh->normals = calloc(3 * vertex_count, sizeof(float));
    mesh->uv0 = calloc(2 * vertex_count, sizeof(float));
    mesh->joints = calloc(4 * vertex_count, sizeof(uint16_t));
    mesh->weights = calloc(4 * vertex_count, sizeof(float));
    for (uint32_t v = 0; v < vertex_count; v++) {
        mesh->positions[3 * v + 0] = 0.25f * (float)(v % 4);
        mesh->positions[3 * v + 1] = (float)(v % joint_count) + 0.5f;
        mesh->positions[3 * v + 2] = 0.125f * (float)(v / 4);
        mesh->normals[3 * v + 2] = 1.0f;
        mesh->joints[4 * v] = (uint16_t)(v % joint_count);
        mesh->weights[4 * v] = 1.0f;
    }
    uint32_t triangles = (vertex_count + 2) / 3;
    mesh->index_count = 3 * triangles;
    mesh->indices = calloc(mesh->index_count, sizeof(uint32_t));
    for (uint32_t i = 0; i < mesh->index_count; i++) {
        mesh->indices[i] = i % vertex_count;
    }
    mesh->submesh_count = 1;
    mesh->submeshes = calloc(1, sizeof *mesh->submeshes);
    mesh->submeshes[0].index_count = mesh->index_count;
    asset->material_count = 1;
    asset->materials = calloc(1, sizeof *asset->materials);
    asset->materials[0].name = test_strdup("");
    for (int c = 0; c < 4; c++) {
        asset->materials[0].base_color[c] = 1.0f;
    }
    return asset;
}

/* Appends a clip with no tracks (every joint at rest); returns it. */
static crowd_clip *test_asset_add_clip(crowd_asset *asset, const char *name, float duration_s,
                                       bool loop) {
    asset->clips = realloc(asset->clips, (asset->clip_count + 1) * sizeof *asset->clips);
    crowd_clip *clip = &asset->clips[asset->clip_count++];
    memset(clip, 0, sizeof *clip);
    clip->name = test_strdup(name);
    clip->duration_s = duration_s;
    clip->loop = loop;
    clip->tracks = calloc(asset->skeleton.joint_count, sizeof *clip->tracks);
    return clip;
}

/* Linear keys: `count` times and count * components values. */
static void test_track_set(crowd_track *track, uint32_t count, uint32_t components,
                           const float *times, const float *values) {
    track->key_count = count;
    track->interpolation = CROWD_INTERP_LINEAR;
    track->times_s = malloc(count * sizeof(float));
    track->values = malloc(count * components * sizeof(float));
    memcpy(track->times_s, times, count * sizeof(float));
    memcpy(track->values, values, count * components * sizeof(float));
}

#endif
