#include "gpu_fixtures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/anim.h"
#include "crowd/skin.h"
#include "host.h"

#define BAR_HALF 0.25f
#define BAR_VERTICES 40
#define BAR_INDICES 60

static char *dup(const char *text) {
    char *copy = malloc(strlen(text) + 1);
    if (copy != NULL) {
        strcpy(copy, text);
    }
    return copy;
}

typedef struct bar_builder {
    crowd_mesh *mesh;
    uint32_t vertex, index;
} bar_builder;

/* Weight of joint 1 for a vertex at height y: 0 below, 1/2 at the joint, 1 above. */
static float top_weight(float y) {
    return y < 0.5f ? 0.0f : (y < 1.5f ? 0.5f : 1.0f);
}

static void add_vertex(bar_builder *b, const float p[3], const float n[3], float u, float v) {
    crowd_mesh *m = b->mesh;
    uint32_t i = b->vertex++;
    memcpy(m->positions + 3 * i, p, 3 * sizeof(float));
    memcpy(m->normals + 3 * i, n, 3 * sizeof(float));
    m->uv0[2 * i] = u;
    m->uv0[2 * i + 1] = v;
    float w1 = top_weight(p[1]);
    m->joints[4 * i] = 0;
    m->joints[4 * i + 1] = 1;
    m->weights[4 * i] = 1.0f - w1;
    m->weights[4 * i + 1] = w1;
    if (w1 == 1.0f) {
        /* Keep the largest weight first, as importers do. */
        m->joints[4 * i] = 1;
        m->joints[4 * i + 1] = 0;
        m->weights[4 * i] = 1.0f;
        m->weights[4 * i + 1] = 0.0f;
    }
}

static void add_quad(bar_builder *b, float corners[4][3], const float n[3]) {
    uint32_t first = b->vertex;
    const float uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    for (int c = 0; c < 4; c++) {
        add_vertex(b, corners[c], n, uv[c][0], uv[c][1]);
    }
    const uint32_t order[6] = {0, 1, 2, 0, 2, 3};
    for (int k = 0; k < 6; k++) {
        b->mesh->indices[b->index++] = first + order[k];
    }
}

/* The four side quads of the segment between heights y0 and y1. */
static void add_segment(bar_builder *b, float y0, float y1) {
    const float normals[4][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 0, 1}, {0, 0, -1}};
    const float across[4][3] = {{0, 0, -1}, {0, 0, 1}, {1, 0, 0}, {-1, 0, 0}};
    for (int f = 0; f < 4; f++) {
        float corners[4][3];
        const float ys[4] = {y0, y0, y1, y1};
        const float side[4] = {-1, 1, 1, -1};
        for (int c = 0; c < 4; c++) {
            for (int a = 0; a < 3; a++) {
                corners[c][a] = normals[f][a] * BAR_HALF + across[f][a] * side[c] * BAR_HALF;
            }
            corners[c][1] = ys[c];
        }
        add_quad(b, corners, normals[f]);
    }
}

static void add_cap(bar_builder *b, float y, float ny) {
    const float n[3] = {0, ny, 0};
    const float xs[4] = {-1, 1, 1, -1}, zs[4] = {1, 1, -1, -1};
    float corners[4][3];
    for (int c = 0; c < 4; c++) {
        corners[c][0] = xs[c] * BAR_HALF;
        corners[c][1] = y;
        corners[c][2] = zs[c] * BAR_HALF * ny;
    }
    add_quad(b, corners, n);
}

static void quat_axis_angle(float axis_x, float axis_z, float degrees, float out[4]) {
    float half = degrees * 3.14159265f / 360.0f;
    out[0] = axis_x * sinf(half);
    out[1] = 0.0f;
    out[2] = axis_z * sinf(half);
    out[3] = cosf(half);
}

static bool set_track(crowd_track *track, int components, uint32_t keys, const float *times,
                      const float *values) {
    track->key_count = keys;
    track->interpolation = CROWD_INTERP_LINEAR;
    track->times_s = malloc(keys * sizeof(float));
    track->values = malloc(keys * (size_t)components * sizeof(float));
    if (track->times_s == NULL || track->values == NULL) {
        return false;
    }
    memcpy(track->times_s, times, keys * sizeof(float));
    memcpy(track->values, values, keys * (size_t)components * sizeof(float));
    return true;
}

static bool build_clips(crowd_asset *asset) {
    asset->clip_count = 3;
    asset->clips = calloc(3, sizeof *asset->clips);
    if (asset->clips == NULL) {
        return false;
    }
    const char *names[3] = {"bend", "slide", "drop"};
    const float durations[3] = {1.0f, 2.0f, 0.5f};
    for (int c = 0; c < 3; c++) {
        asset->clips[c].name = dup(names[c]);
        asset->clips[c].duration_s = durations[c];
        asset->clips[c].loop = c != 2;
        asset->clips[c].tracks = calloc(2, sizeof(crowd_joint_tracks));
        if (asset->clips[c].name == NULL || asset->clips[c].tracks == NULL) {
            return false;
        }
    }
    float bend[12];
    quat_axis_angle(0, 1, 0, bend);
    quat_axis_angle(0, 1, 90, bend + 4);
    quat_axis_angle(0, 1, 0, bend + 8);
    const float bend_times[3] = {0.0f, 0.5f, 1.0f};
    const float slide[9] = {0, 0, 0, 0.6f, 0, 0, 0, 0, 0};
    const float slide_times[3] = {0.0f, 1.0f, 2.0f};
    float drop[8];
    quat_axis_angle(1, 0, 0, drop);
    quat_axis_angle(1, 0, 60, drop + 4);
    const float drop_times[2] = {0.0f, 0.5f};
    return set_track(&asset->clips[0].tracks[1].rotation, 4, 3, bend_times, bend) &&
           set_track(&asset->clips[1].tracks[0].translation, 3, 3, slide_times, slide) &&
           set_track(&asset->clips[2].tracks[1].rotation, 4, 2, drop_times, drop);
}

static bool build_materials(crowd_asset *asset) {
    asset->material_count = 2;
    asset->materials = calloc(2, sizeof *asset->materials);
    if (asset->materials == NULL) {
        return false;
    }
    crowd_material *red = &asset->materials[0], *checker = &asset->materials[1];
    red->name = dup("red");
    checker->name = dup("checker");
    const float red_color[4] = {0.8f, 0.08f, 0.06f, 1.0f};
    const float white[4] = {1, 1, 1, 1};
    memcpy(red->base_color, red_color, sizeof red_color);
    memcpy(checker->base_color, white, sizeof white);
    /* matte dielectrics: lit as crowd's shading always lit them */
    red->roughness = checker->roughness = 1.0f;
    red->occlusion_strength = checker->occlusion_strength = 1.0f;
    checker->texture_width = checker->texture_height = 2;
    checker->texture_rgba8 = malloc(16);
    if (red->name == NULL || checker->name == NULL || checker->texture_rgba8 == NULL) {
        return false;
    }
    const uint8_t texels[16] = {40,  80,  220, 255, 230, 200, 40,  255,
                                230, 200, 40,  255, 40,  80,  220, 255};
    memcpy(checker->texture_rgba8, texels, sizeof texels);
    return true;
}

static bool build_skeleton(crowd_skeleton *sk) {
    sk->joint_count = 2;
    sk->names = calloc(2, sizeof *sk->names);
    sk->parents = malloc(2 * sizeof *sk->parents);
    sk->rest_translation = calloc(6, sizeof(float));
    sk->rest_rotation = calloc(8, sizeof(float));
    sk->rest_scale = malloc(6 * sizeof(float));
    sk->inverse_bind = calloc(32, sizeof(float));
    if (!sk->names || !sk->parents || !sk->rest_translation || !sk->rest_rotation ||
        !sk->rest_scale || !sk->inverse_bind) {
        return false;
    }
    sk->names[0] = dup("root");
    sk->names[1] = dup("top");
    sk->parents[0] = -1;
    sk->parents[1] = 0;
    sk->rest_translation[4] = 1.0f;
    sk->rest_rotation[3] = sk->rest_rotation[7] = 1.0f;
    for (int i = 0; i < 6; i++) {
        sk->rest_scale[i] = 1.0f;
    }
    for (int j = 0; j < 2; j++) {
        for (int d = 0; d < 4; d++) {
            sk->inverse_bind[16 * j + 5 * d] = 1.0f;
        }
    }
    sk->inverse_bind[16 + 13] = -1.0f; /* joint 1: translate by (0, -1, 0) */
    return sk->names[0] != NULL && sk->names[1] != NULL;
}

static bool alloc_mesh(crowd_mesh *m, uint32_t vertices, uint32_t indices) {
    m->vertex_count = vertices;
    m->positions = calloc(3 * vertices, sizeof(float));
    m->normals = calloc(3 * vertices, sizeof(float));
    m->uv0 = calloc(2 * vertices, sizeof(float));
    m->joints = calloc(4 * vertices, sizeof(uint16_t));
    m->weights = calloc(4 * vertices, sizeof(float));
    m->index_count = indices;
    m->indices = calloc(indices, sizeof(uint32_t));
    return m->positions && m->normals && m->uv0 && m->joints && m->weights && m->indices;
}

crowd_asset *fixture_bar_create(void) {
    crowd_asset *asset = crowd_asset_create();
    if (asset == NULL) {
        return NULL;
    }
    asset->name = dup("bar");
    asset->source = dup("test:bar");
    asset->source_mesh_count = 1;
    asset->has_skin = true;
    crowd_mesh *m = &asset->mesh;
    bool ok = asset->name && asset->source && alloc_mesh(m, BAR_VERTICES, BAR_INDICES);
    m->submeshes = calloc(2, sizeof *m->submeshes);
    ok = ok && m->submeshes != NULL;
    if (ok) {
        bar_builder b = {m, 0, 0};
        add_segment(&b, 0.0f, 1.0f);
        add_cap(&b, 0.0f, -1.0f);
        uint32_t lower = b.index;
        add_segment(&b, 1.0f, 2.0f);
        add_cap(&b, 2.0f, 1.0f);
        m->submesh_count = 2;
        m->submeshes[0] = (crowd_submesh){0, lower, 0};
        m->submeshes[1] = (crowd_submesh){lower, b.index - lower, 1};
    }
    ok = ok && build_skeleton(&asset->skeleton) && build_materials(asset) && build_clips(asset);
    if (!ok) {
        crowd_asset_destroy(asset);
        return NULL;
    }
    return asset;
}

static bool copy_materials(crowd_asset *dst, const crowd_asset *src) {
    dst->material_count = src->material_count;
    dst->materials =
        calloc(src->material_count > 0 ? src->material_count : 1, sizeof *dst->materials);
    if (dst->materials == NULL) {
        return false;
    }
    for (uint32_t i = 0; i < src->material_count; i++) {
        const crowd_material *s = &src->materials[i];
        crowd_material *d = &dst->materials[i];
        *d = *s;
        d->name = dup(s->name);
        d->texture_rgba8 = NULL;
        /* the copy draws base colour only; the other textures stay the source's */
        d->metallic_roughness_texture = d->normal_texture = (crowd_image){0};
        d->emissive_texture = d->occlusion_texture = (crowd_image){0};
        if (s->texture_rgba8 != NULL) {
            size_t bytes = (size_t)s->texture_width * s->texture_height * 4;
            d->texture_rgba8 = malloc(bytes);
            if (d->texture_rgba8 == NULL) {
                return false;
            }
            memcpy(d->texture_rgba8, s->texture_rgba8, bytes);
        }
        if (d->name == NULL) {
            return false;
        }
    }
    return true;
}

crowd_asset *fixture_posed_copy(const crowd_asset *asset, const float *skin_matrices) {
    crowd_asset *copy = crowd_asset_create();
    if (copy == NULL) {
        return NULL;
    }
    const crowd_mesh *src = &asset->mesh;
    crowd_mesh *m = &copy->mesh;
    copy->name = dup("posed");
    copy->source = dup("test:posed");
    bool ok = copy->name && copy->source && alloc_mesh(m, src->vertex_count, src->index_count);
    m->submeshes = calloc(src->submesh_count > 0 ? src->submesh_count : 1, sizeof *m->submeshes);
    ok = ok && m->submeshes != NULL;
    if (ok) {
        crowd_skin_reference(src, skin_matrices, m->positions, m->normals, NULL);
        memcpy(m->uv0, src->uv0, 2 * sizeof(float) * src->vertex_count);
        memcpy(m->indices, src->indices, sizeof(uint32_t) * src->index_count);
        m->submesh_count = src->submesh_count;
        memcpy(m->submeshes, src->submeshes, sizeof *m->submeshes * src->submesh_count);
        for (uint32_t v = 0; v < src->vertex_count; v++) {
            m->weights[4 * v] = 1.0f;
        }
        crowd_skeleton *sk = &copy->skeleton;
        sk->joint_count = 1;
        sk->names = calloc(1, sizeof *sk->names);
        sk->parents = malloc(sizeof *sk->parents);
        sk->rest_translation = calloc(3, sizeof(float));
        sk->rest_rotation = calloc(4, sizeof(float));
        sk->rest_scale = malloc(3 * sizeof(float));
        sk->inverse_bind = calloc(16, sizeof(float));
        ok = sk->names && sk->parents && sk->rest_translation && sk->rest_rotation &&
             sk->rest_scale && sk->inverse_bind;
        if (ok) {
            sk->names[0] = dup("root");
            sk->parents[0] = -1;
            sk->rest_rotation[3] = 1.0f;
            for (int i = 0; i < 3; i++) {
                sk->rest_scale[i] = 1.0f;
            }
            for (int d = 0; d < 4; d++) {
                sk->inverse_bind[5 * d] = 1.0f;
            }
            ok = sk->names[0] != NULL;
        }
    }
    ok = ok && copy_materials(copy, asset);
    if (!ok) {
        crowd_asset_destroy(copy);
        return NULL;
    }
    return copy;
}

void fixture_pose(const crowd_asset *asset, int clip, float t_s, int clip_b, float t_b_s, float w_b,
                  float *out) {
    const crowd_skeleton *sk = &asset->skeleton;
    crowd_transform *a = malloc(sk->joint_count * sizeof *a);
    crowd_transform *b = malloc(sk->joint_count * sizeof *b);
    float *models = malloc(16 * sizeof(float) * sk->joint_count);
    if (a == NULL || b == NULL || models == NULL) {
        fprintf(stderr, "fixture_pose: out of memory\n");
        exit(1);
    }
    if (clip < 0) {
        crowd_anim_rest_pose(sk, a);
    } else {
        crowd_anim_sample(sk, &asset->clips[clip], t_s, NULL, a);
    }
    if (clip_b >= 0) {
        crowd_anim_sample(sk, &asset->clips[clip_b], t_b_s, NULL, b);
        const crowd_transform *poses[2] = {a, b};
        const float weights[2] = {1.0f - w_b, w_b};
        crowd_anim_blend(sk, poses, weights, 2, a);
    }
    crowd_anim_local_to_model(sk, a, models);
    crowd_anim_skin_matrices(sk, models, NULL, out);
    free(a);
    free(b);
    free(models);
}

static int channel_diff(const uint8_t *p, const uint8_t *q) {
    int worst = 0;
    for (int c = 0; c < 3; c++) {
        int d = abs((int)p[c] - (int)q[c]);
        worst = d > worst ? d : worst;
    }
    return worst;
}

image_diff image_compare(const uint8_t *a, const uint8_t *b, uint32_t width, uint32_t height,
                         int threshold) {
    image_diff diff = {0, 0, 0, 0.0};
    const uint8_t *background = a;
    double sum = 0.0;
    for (size_t i = 0; i < (size_t)width * height; i++) {
        const uint8_t *p = a + 4 * i, *q = b + 4 * i;
        int d = channel_diff(p, q);
        diff.max_channel = d > diff.max_channel ? d : diff.max_channel;
        if (d > threshold) {
            diff.differing++;
        }
        if (channel_diff(p, background) > threshold || channel_diff(q, background) > threshold) {
            diff.foreground++;
        }
        for (int c = 0; c < 3; c++) {
            sum += abs((int)p[c] - (int)q[c]);
        }
    }
    diff.mean_abs = sum / (3.0 * (double)width * height);
    return diff;
}

void image_save(const char *name, const uint8_t *rgba, uint32_t width, uint32_t height) {
    crowd_error error;
    if (host_write_png(name, width, height, rgba, &error) != CROWD_OK) {
        fprintf(stderr, "cannot save %s: %s\n", name, error.reason);
    }
}
