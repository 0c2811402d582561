/* quad_asset.h - a tiny, valid, hand-built asset for core tests: a 1 x 2 m
 * quad in the XY plane skinned to a two-joint chain, two materials (one
 * submesh each), two clips exercising step, linear and cubic tracks, and one
 * socket. Every array is malloc'd as asset.h requires, so the tests can break
 * one field at a time and crowd_asset_destroy() still frees everything. */
#ifndef CROWD_TEST_QUAD_ASSET_H
#define CROWD_TEST_QUAD_ASSET_H

#include <stdlib.h>
#include <string.h>

#include "crowd/asset.h"

static char *quad_strdup(const char *s) {
    char *copy = malloc(strlen(s) + 1);
    if (copy) {
        strcpy(copy, s);
    }
    return copy;
}

static float *quad_floats(const float *values, size_t count) {
    float *copy = malloc(count * sizeof *copy);
    if (copy) {
        memcpy(copy, values, count * sizeof *copy);
    }
    return copy;
}

static void quad_track(crowd_track *track, crowd_interpolation interp, uint32_t keys,
                       const float *times, const float *values, size_t value_count) {
    track->key_count = keys;
    track->interpolation = interp;
    track->times_s = quad_floats(times, keys);
    track->values = quad_floats(values, value_count);
}

static crowd_asset *quad_asset_create(void) {
    crowd_asset *a = crowd_asset_create();
    if (a == NULL) {
        return NULL;
    }
    a->name = quad_strdup("quad");
    a->source = quad_strdup("quad.gltf");
    a->source_mesh_count = 1;
    a->has_skin = true;

    crowd_skeleton *sk = &a->skeleton;
    sk->joint_count = 2;
    sk->names = malloc(2 * sizeof *sk->names);
    sk->names[0] = quad_strdup("root");
    sk->names[1] = quad_strdup("child");
    sk->parents = malloc(2 * sizeof *sk->parents);
    sk->parents[0] = -1;
    sk->parents[1] = 0;
    const float rest_t[6] = {0, 0, 0, 0, 1, 0};
    const float rest_r[8] = {0, 0, 0, 1, 0, 0, 0, 1};
    const float rest_s[6] = {1, 1, 1, 1, 1, 1};
    /* Joint 1 sits at y = 1, so its inverse bind translates by -1 in y. */
    const float inv_bind[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0,  0, 1,
                                1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1};
    sk->rest_translation = quad_floats(rest_t, 6);
    sk->rest_rotation = quad_floats(rest_r, 8);
    sk->rest_scale = quad_floats(rest_s, 6);
    sk->inverse_bind = quad_floats(inv_bind, 32);

    a->material_count = 2;
    a->materials = calloc(2, sizeof *a->materials);
    a->materials[0].name = quad_strdup("skin");
    a->materials[1].name = quad_strdup("cloth");
    for (int c = 0; c < 4; c++) {
        a->materials[0].base_color[c] = 0.8f;
        a->materials[1].base_color[c] = c == 3 ? 1.0f : 0.2f;
    }

    crowd_mesh *m = &a->mesh;
    m->vertex_count = 4;
    const float pos[12] = {-0.5f, 0, 0, 0.5f, 0, 0, 0.5f, 2, 0, -0.5f, 2, 0};
    const float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    const float tan[16] = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
    const float uv[8] = {0, 1, 1, 1, 1, 0, 0, 0};
    const uint16_t joints[16] = {0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    const float weights[16] = {0.75f, 0.25f, 0, 0, 0.75f, 0.25f, 0,     0,
                               1,     0,     0, 0, 0.5f,  0.25f, 0.25f, 0};
    m->positions = quad_floats(pos, 12);
    m->normals = quad_floats(nrm, 12);
    m->tangents = quad_floats(tan, 16);
    m->uv0 = quad_floats(uv, 8);
    m->joints = malloc(sizeof joints);
    memcpy(m->joints, joints, sizeof joints);
    m->weights = quad_floats(weights, 16);
    m->index_count = 6;
    m->indices = malloc(6 * sizeof *m->indices);
    const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    memcpy(m->indices, idx, sizeof idx);
    m->submesh_count = 2;
    m->submeshes = malloc(2 * sizeof *m->submeshes);
    m->submeshes[0] = (crowd_submesh){.first_index = 0, .index_count = 3, .material = 0};
    m->submeshes[1] = (crowd_submesh){.first_index = 3, .index_count = 3, .material = 1};

    a->clip_count = 2;
    a->clips = calloc(2, sizeof *a->clips);
    crowd_clip *wave = &a->clips[0];
    wave->name = quad_strdup("wave");
    wave->duration_s = 1.0f;
    wave->loop = true;
    wave->tracks = calloc(2, sizeof *wave->tracks);
    const float t3[3] = {0, 0.5f, 1};
    const float s = 0.70710678f;
    const float rot[12] = {0, 0, 0, 1, 0, 0, s, s, 0, 0, 0, 1};
    quad_track(&wave->tracks[1].rotation, CROWD_INTERP_LINEAR, 3, t3, rot, 12);
    const float t2[2] = {0, 1};
    const float tr[6] = {0, 0, 0, 0, 0.1f, 0};
    quad_track(&wave->tracks[0].translation, CROWD_INTERP_STEP, 2, t2, tr, 6);
    /* Cubic: per key in-tangent, value, out-tangent. */
    const float sc[18] = {0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 2, 2, 2, 0, 0, 0};
    quad_track(&wave->tracks[1].scale, CROWD_INTERP_CUBIC, 2, t2, sc, 18);
    crowd_clip *pose = &a->clips[1];
    pose->name = quad_strdup("pose");
    pose->duration_s = 0.0f;
    pose->tracks = calloc(2, sizeof *pose->tracks);

    a->socket_count = 1;
    a->sockets = calloc(1, sizeof *a->sockets);
    a->sockets[0].name = quad_strdup("socket_hand");
    a->sockets[0].joint = 1;
    for (int i = 0; i < 4; i++) {
        a->sockets[0].offset[5 * i] = 1.0f;
    }
    a->sockets[0].offset[13] = 0.5f;
    return a;
}

#endif
