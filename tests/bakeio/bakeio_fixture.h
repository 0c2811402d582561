/* bakeio_fixture.h - what the bake file tests share: a small synthetic
 * character and bake built by hand (every value chosen here, so a round
 * trip can be compared field by field and texel by texel), folder snapshots
 * for the all-or-nothing checks, copying a folder, and resealing a broken
 * folder's checksums (test_files.h has the plain file helpers).
 *
 * Include after check.h, with _POSIX_C_SOURCE / _XOPEN_SOURCE defined.
 */
#ifndef CROWD_TEST_BAKEIO_FIXTURE_H
#define CROWD_TEST_BAKEIO_FIXTURE_H

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "load/bake_internal.h"
#include "test_files.h"
#include "crowd/bake.h"

/* "a/b" into out; an over-long path becomes "" (and fails to open). */
static inline void fx_join(char *out, size_t size, const char *a, const char *b) {
    int n = snprintf(out, size, "%s/%s", a, b);
    if (n < 0 || (size_t)n >= size) {
        out[0] = '\0';
    }
}

static inline char *fx_strdup(const char *text) {
    size_t size = strlen(text) + 1;
    char *copy = malloc(size);
    memcpy(copy, text, size);
    return copy;
}

/* Deterministic pseudo-random numbers (LCG), so every run writes the same bytes. */
static inline uint32_t fx_random(uint32_t *state) {
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

static inline float fx_random_unit(uint32_t *state) {
    return (float)(fx_random(state) & 0xffff) / 65535.0f * 2.0f - 1.0f;
}

/* A three-joint chain under a translated root, `vertex_count` vertices in
 * two submeshes (textured and plain material), two influences a vertex. */
static inline bool fx_same_image(const crowd_image *a, const crowd_image *b) {
    if (a->width != b->width || a->height != b->height ||
        (a->rgba8 == NULL) != (b->rgba8 == NULL)) {
        return false;
    }
    return a->rgba8 == NULL || memcmp(a->rgba8, b->rgba8, (size_t)a->width * a->height * 4) == 0;
}

static inline float fx_unit_clamp(float value) {
    return value < 0.0f ? 0.0f : value > 1.0f ? 1.0f : value;
}

/* The parameters past name, base colour and base texture as mesh.glb
 * keeps them (colours clamped to [0, 1], the cutoff only with MASK);
 * NULL when equal, else the first that differs. */
static inline const char *fx_material_differs(const crowd_material *x, const crowd_material *y) {
    if (x->metallic != y->metallic || x->roughness != y->roughness) {
        return "metallic or roughness";
    }
    for (int c = 0; c < 3; c++) {
        if (fx_unit_clamp(x->emissive[c]) != y->emissive[c]) {
            return "emissive factor";
        }
    }
    if (x->alpha_mode != y->alpha_mode || x->double_sided != y->double_sided ||
        (x->alpha_mode == CROWD_ALPHA_MASK && x->alpha_cutoff != y->alpha_cutoff)) {
        return "alpha mode, cutoff or double-sidedness";
    }
    if (!fx_same_image(&x->metallic_roughness_texture, &y->metallic_roughness_texture) ||
        !fx_same_image(&x->emissive_texture, &y->emissive_texture)) {
        return "metallic-roughness or emissive texture";
    }
    if (!fx_same_image(&x->normal_texture, &y->normal_texture) ||
        (x->normal_texture.rgba8 != NULL && x->normal_scale != y->normal_scale)) {
        return "normal texture or its scale";
    }
    if (!fx_same_image(&x->occlusion_texture, &y->occlusion_texture) ||
        (x->occlusion_texture.rgba8 != NULL && x->occlusion_strength != y->occlusion_strength)) {
        return "occlusion texture or its strength";
    }
    return NULL;
}

/* A w x h RGBA8 image of a pattern seeded by `seed`. */
static inline crowd_image fx_image(uint32_t w, uint32_t h, uint8_t seed) {
    crowd_image image = {w, h, malloc((size_t)w * h * 4)};
    for (size_t i = 0; image.rgba8 != NULL && i < (size_t)w * h * 4; i++) {
        image.rgba8[i] = (uint8_t)(i * 53 + seed);
    }
    return image;
}

static inline crowd_asset *fx_asset_create(uint32_t vertex_count) {
    crowd_asset *asset = crowd_asset_create();
    asset->name = fx_strdup("synth");
    asset->source = fx_strdup("synth.glb");
    asset->has_skin = true;
    asset->source_mesh_count = 1;
    crowd_skeleton *s = &asset->skeleton;
    const uint32_t joints = 3;
    static const char *const names[3] = {"root", "spine", "head"};
    s->joint_count = joints;
    s->names = calloc(joints, sizeof *s->names);
    s->parents = calloc(joints, sizeof *s->parents);
    s->rest_translation = calloc(3 * joints, sizeof(float));
    s->rest_rotation = calloc(4 * joints, sizeof(float));
    s->rest_scale = calloc(3 * joints, sizeof(float));
    s->inverse_bind = calloc(16 * joints, sizeof(float));
    for (uint32_t j = 0; j < joints; j++) {
        s->names[j] = fx_strdup(names[j]);
        s->parents[j] = (int32_t)j - 1;
        s->rest_translation[3 * j + 1] = j == 0 ? 0.0f : 0.5f;
        s->rest_rotation[4 * j + 3] = 1.0f;
        s->rest_scale[3 * j] = s->rest_scale[3 * j + 1] = s->rest_scale[3 * j + 2] = 1.0f;
        float *m = s->inverse_bind + 16 * j;
        m[0] = m[5] = m[10] = m[15] = 1.0f;
        m[13] = -0.5f * (float)j;
    }
    /* spine turned about Y by a unit quaternion (0, 0.6, 0, 0.8) */
    s->rest_rotation[4 * 1 + 1] = 0.6f;
    s->rest_rotation[4 * 1 + 3] = 0.8f;
    s->rest_scale[3 * 2 + 0] = 2.0f;
    s->root_transform[12] = 1.0f;
    s->root_transform[13] = 2.0f;
    s->root_transform[14] = 3.0f;

    crowd_mesh *mesh = &asset->mesh;
    uint32_t v_count = vertex_count;
    mesh->vertex_count = v_count;
    mesh->positions = malloc(3 * v_count * sizeof(float));
    mesh->normals = malloc(3 * v_count * sizeof(float));
    mesh->uv0 = malloc(2 * v_count * sizeof(float));
    mesh->joints = calloc(4 * v_count, sizeof(uint16_t));
    mesh->weights = calloc(4 * v_count, sizeof(float));
    for (uint32_t v = 0; v < v_count; v++) {
        float angle = (float)v * 0.37f;
        mesh->positions[3 * v + 0] = 0.3f * cosf(angle);
        mesh->positions[3 * v + 1] = 0.001f * (float)v;
        mesh->positions[3 * v + 2] = 0.3f * sinf(angle);
        float n[3] = {cosf(angle), 0.25f, sinf(angle)};
        float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int a = 0; a < 3; a++) {
            mesh->normals[3 * v + (uint32_t)a] = n[a] / length;
        }
        mesh->uv0[2 * v] = (float)(v % 7) / 7.0f;
        mesh->uv0[2 * v + 1] = (float)(v % 5) / 5.0f;
        mesh->joints[4 * v] = (uint16_t)(v % joints);
        mesh->joints[4 * v + 1] = (uint16_t)((v + 1) % joints);
        mesh->weights[4 * v] = 0.75f;
        mesh->weights[4 * v + 1] = 0.25f;
    }
    uint32_t triangles = v_count >= 3 ? v_count - 2 : 1;
    mesh->index_count = 3 * triangles;
    mesh->indices = malloc(mesh->index_count * sizeof(uint32_t));
    for (uint32_t t = 0; t < triangles; t++) {
        for (uint32_t k = 0; k < 3; k++) {
            mesh->indices[3 * t + k] = (t + k) % v_count;
        }
    }
    mesh->submesh_count = 2;
    mesh->submeshes = calloc(2, sizeof *mesh->submeshes);
    uint32_t first = 3 * (triangles / 2);
    mesh->submeshes[0] = (crowd_submesh){0, first, 0};
    mesh->submeshes[1] = (crowd_submesh){first, mesh->index_count - first, 1};

    asset->material_count = 2;
    asset->materials = calloc(2, sizeof *asset->materials);
    asset->materials[0].name = fx_strdup("skin");
    float skin[4] = {0.8f, 0.6f, 0.4f, 1.0f};
    memcpy(asset->materials[0].base_color, skin, sizeof skin);
    asset->materials[0].texture_width = 4;
    asset->materials[0].texture_height = 2;
    asset->materials[0].texture_rgba8 = malloc(4 * 2 * 4);
    for (int i = 0; i < 4 * 2 * 4; i++) {
        asset->materials[0].texture_rgba8[i] = (uint8_t)(i * 37 + 11);
    }
    /* every parameter away from its default, so a dropped one shows */
    crowd_material *metal = &asset->materials[0], *glass = &asset->materials[1];
    metal->metallic = 1.0f;
    metal->roughness = 0.25f;
    metal->emissive[0] = 0.5f;
    metal->emissive[1] = 1.5f; /* over glTF's range: clamped in mesh.glb */
    metal->normal_scale = 0.75f;
    metal->occlusion_strength = 0.5f;
    metal->alpha_mode = CROWD_ALPHA_MASK;
    metal->alpha_cutoff = 0.375f;
    metal->double_sided = true;
    metal->normal_texture = fx_image(2, 2, 3);
    metal->occlusion_texture = fx_image(1, 3, 5);
    glass->roughness = 1.0f;
    glass->occlusion_strength = 1.0f;
    glass->alpha_mode = CROWD_ALPHA_BLEND;
    glass->alpha_cutoff = 0.5f;
    glass->metallic_roughness_texture = fx_image(3, 1, 7);
    glass->emissive_texture = fx_image(2, 1, 9);
    asset->materials[1].name = fx_strdup("");
    float cloth[4] = {0.1f, 0.2f, 0.3f, 0.5f};
    memcpy(asset->materials[1].base_color, cloth, sizeof cloth);
    return asset;
}

typedef struct fx_bake_options {
    uint32_t vat_width; /* 0: no VAT */
    crowd_vat_encoding vat_encoding;
    uint32_t bat_width; /* 0: no BAT */
    crowd_bat_encoding bat_encoding;
    uint32_t seed;
} fx_bake_options;

static inline void fx_alloc_texture(crowd_texture *t, uint32_t width, uint32_t height,
                                    crowd_texel_format format) {
    t->width = width;
    t->height = height;
    t->format = format;
    t->texels = calloc((size_t)width * height, crowd__bake_texel_size_bytes(format));
}

static inline void fx_store(crowd_texture *t, size_t index, int channel, float value) {
    if (t->format == CROWD_TEXEL_RGBA32F) {
        ((float *)t->texels)[4 * index + (size_t)channel] = value;
    } else {
        ((uint16_t *)t->texels)[4 * index + (size_t)channel] = crowd__bake_half_from_float(value);
    }
}

/* Two clips, "walk" (loop, 1/30 s) and "wave" (one-shot, 1/30 s), each 2
 * frames at 30 fps (frame 0 and the pose at d, docs/time.md): 4 frames. Texel values are
 * pseudo-random but valid: positions inside the bounds [-1, 1]^3, normals unit, unorm codes
 * anything. */
static inline crowd_bake *fx_bake_create(const crowd_asset *asset, const fx_bake_options *o) {
    crowd_bake *bake = calloc(1, sizeof *bake);
    bake->name = fx_strdup("synth");
    bake->source = fx_strdup("synth.glb");
    bake->asset = asset;
    bake->vertex_count = asset->mesh.vertex_count;
    bake->joint_count = asset->skeleton.joint_count;
    bake->between_error_budget_rel = CROWD_BAKE_DEFAULT_BETWEEN_ERROR;
    for (int a = 0; a < 3; a++) {
        bake->bounds_min[a] = -1.0f;
        bake->bounds_max[a] = 1.0f;
    }
    bake->clip_count = 2;
    bake->clips = calloc(2, sizeof *bake->clips);
    bake->clips[0] = (crowd_bake_clip){
        .name = fx_strdup("walk"), .duration_s = 1.0f / 30.0f, .loop = true, .frame_count = 2};
    bake->clips[1] = (crowd_bake_clip){.name = fx_strdup("wave"),
                                       .duration_s = 1.0f / 30.0f,
                                       .first_frame = 2,
                                       .frame_count = 2,
                                       .source_clip = 1};
    /* walk stays in the lower half of the bounds, wave fills them */
    for (int c = 0; c < 2; c++) {
        crowd_bake_clip *clip = &bake->clips[c];
        clip->fps = 30.0f;
        clip->layout = CROWD_FRAMES_END;
        clip->rate_multiple = 1;
        clip->key_rate = 30.0f;
        clip->between_error_max = 0.001f * (float)(c + 1);
        clip->between_error_mean = 0.0005f;
        clip->within_budget = c == 0;
        for (int a = 0; a < 3; a++) {
            clip->bounds_min[a] = -1.0f;
            clip->bounds_max[a] = c == 0 && a == 1 ? 0.0f : 1.0f;
            clip->sphere_center[a] = 0.5f * (clip->bounds_min[a] + clip->bounds_max[a]);
        }
        clip->sphere_radius = c == 0 ? 1.5f : 1.7320509f;
    }
    bake->frame_count = 4;
    bake->lod_count = 1;
    bake->lods[0] = (crowd_bake_lod){.index_count = asset->mesh.index_count,
                                     .vertex_count = asset->mesh.vertex_count,
                                     .triangle_count = asset->mesh.index_count / 3};
    uint32_t state = o->seed * 2654435761u + 1u;
    if (o->vat_width > 0) {
        uint32_t rows = (bake->vertex_count + o->vat_width - 1) / o->vat_width;
        bake->vat_rows_per_frame = rows;
        bake->vat_encoding = o->vat_encoding;
        uint32_t height = rows * bake->frame_count;
        size_t count = (size_t)o->vat_width * height;
        if (o->vat_encoding == CROWD_VAT_UNORM16_OCT || o->vat_encoding == CROWD_VAT_DEFAULT) {
            fx_alloc_texture(&bake->vat_position, o->vat_width, height, CROWD_TEXEL_RGBA16_UNORM);
            uint16_t *texels = bake->vat_position.texels;
            for (size_t i = 0; i < 4 * count; i++) {
                texels[i] = (uint16_t)fx_random(&state);
            }
        } else {
            crowd_texel_format format =
                o->vat_encoding == CROWD_VAT_F16 ? CROWD_TEXEL_RGBA16F : CROWD_TEXEL_RGBA32F;
            fx_alloc_texture(&bake->vat_position, o->vat_width, height, format);
            fx_alloc_texture(&bake->vat_normal, o->vat_width, height, format);
            for (size_t i = 0; i < count; i++) {
                float n[3] = {fx_random_unit(&state), fx_random_unit(&state), 0.5f};
                float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                for (int c = 0; c < 3; c++) {
                    fx_store(&bake->vat_position, i, c, fx_random_unit(&state));
                    fx_store(&bake->vat_normal, i, c, n[c] / length);
                }
                fx_store(&bake->vat_position, i, 3, 1.0f);
                fx_store(&bake->vat_normal, i, 3, 0.0f);
            }
        }
    }
    if (o->bat_width > 0) {
        uint32_t rows = (3 * bake->joint_count + o->bat_width - 1) / o->bat_width;
        bake->bat_rows_per_frame = rows;
        bake->bat_encoding = o->bat_encoding;
        crowd_texel_format format =
            o->bat_encoding == CROWD_BAT_F16 ? CROWD_TEXEL_RGBA16F : CROWD_TEXEL_RGBA32F;
        fx_alloc_texture(&bake->bat, o->bat_width, rows * bake->frame_count, format);
        size_t count = (size_t)o->bat_width * rows * bake->frame_count;
        for (size_t i = 0; i < count; i++) {
            for (int c = 0; c < 4; c++) {
                fx_store(&bake->bat, i, c, 2.0f * fx_random_unit(&state));
            }
        }
    }
    return bake;
}

static inline void fx_set_track(crowd_track *track, crowd_interpolation interpolation,
                                uint32_t keys, const float *times, const float *values,
                                uint32_t floats) {
    track->key_count = keys;
    track->interpolation = interpolation;
    track->times_s = malloc(keys * sizeof(float));
    track->values = malloc(floats * sizeof(float));
    memcpy(track->times_s, times, keys * sizeof(float));
    memcpy(track->values, values, floats * sizeof(float));
}

/* Clips for the bakes' "walk" (loop) and "wave" (one-shot) of 1/30 s, so a
 * written bake has runtime clips (NAME.G.anim.bin) of every kind. "walk":
 * joint 0 translation STEP, joint 1 rotation LINEAR (the same
 * key times: stored once), joint 2 scale constant at its rest value (left
 * out). "wave" (one-shot): joint 2 translation CUBIC, joint 0 rotation
 * constant away from rest (one key), joint 1 scale LINEAR. */
static inline void fx_add_clips(crowd_asset *asset) {
    const float d = 1.0f / 30.0f;
    asset->clip_count = 2;
    asset->clips = calloc(2, sizeof *asset->clips);
    const char *names[2] = {"walk", "wave"};
    for (int c = 0; c < 2; c++) {
        asset->clips[c].name = fx_strdup(names[c]);
        asset->clips[c].duration_s = d;
        asset->clips[c].loop = c == 0;
        asset->clips[c].tracks = calloc(3, sizeof(crowd_joint_tracks));
    }
    const float times3[3] = {0.0f, 0.5f * d, d};
    crowd_joint_tracks *walk = asset->clips[0].tracks, *wave = asset->clips[1].tracks;
    const float steps[9] = {0, 0, 0, 0.1f, 0.2f, 0.3f, -0.2f, 0.1f, 0.05f};
    fx_set_track(&walk[0].translation, CROWD_INTERP_STEP, 3, times3, steps, 9);
    const float turns[12] = {0, 0.6f, 0, 0.8f, 0, 0.28f, 0, 0.96f, 0.6f, 0, 0, 0.8f};
    fx_set_track(&walk[1].rotation, CROWD_INTERP_LINEAR, 3, times3, turns, 12);
    const float rest_scale[6] = {2, 1, 1, 2, 1, 1};
    fx_set_track(&walk[2].scale, CROWD_INTERP_LINEAR, 2, (const float[]){0.0f, d}, rest_scale, 6);
    const float cubic[18] = {0, 1, 0, 0.1f, 0.5f, 0,    0, -1, 0, /* key 0: in, value, out */
                             0, 0, 1, 0.3f, 0.4f, 0.2f, 1, 0,  0};
    fx_set_track(&wave[2].translation, CROWD_INTERP_CUBIC, 2, (const float[]){0.0f, d}, cubic, 18);
    const float held[8] = {0, 0, 0.6f, 0.8f, 0, 0, 0.6f, 0.8f};
    fx_set_track(&wave[0].rotation, CROWD_INTERP_LINEAR, 2, (const float[]){0.0f, d}, held, 8);
    const float grow[6] = {1, 1, 1, 1.5f, 1.25f, 1};
    fx_set_track(&wave[1].scale, CROWD_INTERP_LINEAR, 2, (const float[]){0.25f * d, d}, grow, 6);
}

/* LODs by hand (crowd/bake.h): LOD k keeps every 2^k-th triangle of LOD 0
 * while that still makes fewer triangles, its vertices compacted in first
 * use order; LOD k's error is 0.125 * k. Up to `lod_count` LODs in all. */
static inline void fx_add_lods(crowd_bake *bake, uint32_t lod_count) {
    const crowd_mesh *mesh = &bake->asset->mesh;
    uint32_t triangles = mesh->index_count / 3;
    bake->lod_vertices = malloc((size_t)bake->vertex_count * lod_count * sizeof(uint32_t));
    bake->lod_indices = malloc((size_t)mesh->index_count * lod_count * sizeof(uint32_t));
    uint32_t *remap = malloc(bake->vertex_count * sizeof *remap);
    float diagonal = sqrtf(12.0f); /* of the fixture's bounds [-1, 1]^3 */
    for (uint32_t k = 1; k < lod_count; k++) {
        uint32_t step = 1u << k, kept = (triangles + step - 1) / step;
        if (kept >= bake->lods[k - 1].triangle_count) {
            break;
        }
        crowd_bake_lod *lod = &bake->lods[k];
        *lod = (crowd_bake_lod){.first_index = bake->lod_index_total,
                                .index_count = 3 * kept,
                                .first_vertex = bake->lod_vertex_total,
                                .triangle_count = kept,
                                .error = 0.125f * (float)k,
                                .error_rel = 0.125f * (float)k / diagonal};
        memset(remap, 0xff, bake->vertex_count * sizeof *remap);
        uint32_t *out = bake->lod_indices + lod->first_index;
        for (uint32_t t = 0; t < triangles; t += step) {
            for (uint32_t c = 0; c < 3; c++) {
                uint32_t v = mesh->indices[3 * t + c];
                if (remap[v] == UINT32_MAX) {
                    remap[v] = lod->vertex_count++;
                    bake->lod_vertices[lod->first_vertex + remap[v]] = v;
                }
                *out++ = remap[v];
            }
        }
        bake->lod_index_total += lod->index_count;
        bake->lod_vertex_total += lod->vertex_count;
        bake->lod_count = k + 1;
    }
    free(remap);
}

/* crowd_bake_write, printing the error when it fails. */
static inline bool fx_written(const crowd_bake *bake, const char *dir,
                              const crowd_bake_write_desc *desc) {
    crowd_error error = {0};
    crowd_result result = crowd_bake_write(bake, dir, desc, &error);
    if (result != CROWD_OK) {
        fprintf(stderr, "  write %s: %s: %s: %s\n", dir, crowd_result_str(result), error.file,
                error.reason);
    }
    return result == CROWD_OK;
}

/* ---- files ---------------------------------------------------------------- */

/* Copies every regular file of folder `from` into `to` (created). */
static inline void fx_copy_folder(const char *from, const char *to) {
    mkdir(to, 0755);
    DIR *dir = opendir(from);
    struct dirent *entry;
    while (dir != NULL && (entry = readdir(dir)) != NULL) {
        char a[1024], b[1024];
        fx_join(a, sizeof a, from, entry->d_name);
        fx_join(b, sizeof b, to, entry->d_name);
        struct stat st;
        if (stat(a, &st) == 0 && S_ISREG(st.st_mode)) {
            size_t size = 0;
            char *data = test_read_file(a, &size);
            test_write_file(b, data, size);
            free(data);
        }
    }
    if (dir != NULL) {
        closedir(dir);
    }
}

/* ---- snapshots: every entry below a folder, with its bytes ------------------ */

typedef struct fx_entry {
    char path[512];
    bool is_dir;
    size_t size;
    char *bytes;
} fx_entry;

typedef struct fx_snapshot {
    fx_entry entries[256];
    int count;
    bool exists;
} fx_snapshot;

/* Rewrites the sizes and crc32s of dir/NAME.crowd.json's "files" (and the
 * runtime clips' anim.size_bytes) to what
 * the files hold now, so a test that breaks a file on purpose reaches the
 * decoder behind the checksum. A manifest that does not parse is left. */
static inline void fx_reseal(const char *dir, const char *manifest) {
    char path[2048];
    fx_join(path, sizeof path, dir, manifest);
    size_t size = 0;
    char *text = test_read_file(path, &size);
    cJSON *json = text ? cJSON_ParseWithLength(text, size) : NULL;
    cJSON *files = cJSON_GetObjectItemCaseSensitive(json, "files");
    if (!cJSON_IsObject(files)) {
        files = NULL;
    }
    cJSON *item;
    cJSON_ArrayForEach(item, files) {
        char file[2048];
        size_t bytes = 0;
        fx_join(file, sizeof file, dir, item->string);
        struct stat st;
        if (stat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
            continue; /* missing, or a folder in its place: the case under test */
        }
        unsigned char *data = (unsigned char *)test_read_file(file, &bytes);
        if (data != NULL && cJSON_IsObject(item)) {
            uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), data, (uInt)bytes);
            cJSON_ReplaceItemInObjectCaseSensitive(item, "size_bytes",
                                                   cJSON_CreateNumber((double)bytes));
            cJSON_ReplaceItemInObjectCaseSensitive(item, "crc32", cJSON_CreateNumber(crc));
        }
        free(data);
    }
    /* Version 4 states the runtime clips' size again, in "anim". */
    cJSON *anim = cJSON_GetObjectItemCaseSensitive(json, "anim");
    const cJSON *anim_file = cJSON_GetObjectItemCaseSensitive(anim, "file");
    struct stat anim_stat;
    char anim_path[2048];
    if (cJSON_IsString(anim_file)) {
        fx_join(anim_path, sizeof anim_path, dir, anim_file->valuestring);
        if (stat(anim_path, &anim_stat) == 0 && S_ISREG(anim_stat.st_mode)) {
            cJSON_ReplaceItemInObjectCaseSensitive(anim, "size_bytes",
                                                   cJSON_CreateNumber((double)anim_stat.st_size));
        }
    }
    if (files != NULL) {
        char *printed = cJSON_Print(json);
        test_write_file(path, printed, strlen(printed));
        cJSON_free(printed);
    }
    cJSON_Delete(json);
    free(text);
}

static inline int fx_entry_compare(const void *a, const void *b) {
    return strcmp(((const fx_entry *)a)->path, ((const fx_entry *)b)->path);
}

static inline void fx_snapshot_walk(fx_snapshot *s, const char *root, const char *relative_in) {
    /* A copy, because `relative_in` is an entry's path of the same snapshot. */
    char relative[sizeof s->entries[0].path];
    char path[2048];
    if (snprintf(relative, sizeof relative, "%s", relative_in) >= (int)sizeof relative ||
        snprintf(path, sizeof path, "%s%s%s", root, relative[0] ? "/" : "", relative) >=
            (int)sizeof path) {
        return;
    }
    DIR *dir = opendir(path);
    struct dirent *entry;
    while (dir != NULL && (entry = readdir(dir)) != NULL && s->count < 256) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) {
            continue;
        }
        fx_entry *e = &s->entries[s->count];
        char full[2048];
        if (snprintf(e->path, sizeof e->path, "%s%s%s", relative, relative[0] ? "/" : "",
                     entry->d_name) >= (int)sizeof e->path ||
            snprintf(full, sizeof full, "%s/%s", root, e->path) >= (int)sizeof full) {
            continue; /* deeper than any folder a bake writes */
        }
        s->count++;
        struct stat st;
        if (lstat(full, &st) != 0) {
            memset(&st, 0, sizeof st);
        }
        e->is_dir = S_ISDIR(st.st_mode);
        e->bytes = NULL;
        e->size = 0;
        if (e->is_dir) {
            fx_snapshot_walk(s, root, e->path);
        } else {
            e->bytes = test_read_file(full, &e->size);
        }
    }
    if (dir != NULL) {
        closedir(dir);
    }
}

static inline void fx_snapshot_take(fx_snapshot *s, const char *root) {
    memset(s, 0, sizeof *s);
    struct stat st;
    s->exists = stat(root, &st) == 0;
    if (s->exists) {
        fx_snapshot_walk(s, root, "");
        qsort(s->entries, (size_t)s->count, sizeof *s->entries, fx_entry_compare);
    }
}

static inline void fx_snapshot_free(fx_snapshot *s) {
    for (int i = 0; i < s->count; i++) {
        free(s->entries[i].bytes);
    }
    s->count = 0;
}

/* Same entries, same kinds, same bytes; prints the first difference. */
static inline bool fx_snapshot_equal(const fx_snapshot *a, const fx_snapshot *b) {
    if (a->exists != b->exists || a->count != b->count) {
        fprintf(stderr, "  snapshot: exists %d/%d, %d/%d entries\n", a->exists, b->exists, a->count,
                b->count);
        for (int i = 0; i < b->count; i++) {
            fprintf(stderr, "    now: %s\n", b->entries[i].path);
        }
        return false;
    }
    for (int i = 0; i < a->count; i++) {
        const fx_entry *x = &a->entries[i], *y = &b->entries[i];
        if (strcmp(x->path, y->path) != 0 || x->is_dir != y->is_dir || x->size != y->size ||
            (x->size > 0 && memcmp(x->bytes, y->bytes, x->size) != 0)) {
            fprintf(stderr, "  snapshot: %s differs from %s\n", x->path, y->path);
            return false;
        }
    }
    return true;
}

#endif
