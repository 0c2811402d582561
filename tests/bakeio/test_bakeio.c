/* test_bakeio - writing and reading bake folders, on bakes built by hand.
 *
 * Round trips in every encoding (and with rows wrapped) compare every field
 * and every texel of the loaded bake with what was written, through the
 * folder, the manifest path and the in-memory loader. The manifest's
 * numbers, the mesh's TEXCOORD_1 and the OpenVAT set are checked against
 * values worked out here from the layout rules, reading the files with
 * cJSON and libpng directly rather than through the library's readers.
 */
#define _XOPEN_SOURCE 700

#include <cjson/cJSON.h>
#include <math.h>
#include <png.h>

#include "check.h"
#include "bakeio_fixture.h"
#include "test_json.h"
#include "bakeio_compare.h"
#include "bake/openvat_write.h"
#include "crowd/builtin.h"
#include "load/bake_internal.h"

static char root[] = "/tmp/test_bakeio.XXXXXX";

static void folder(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/%s", root, name);
}

/* ---- round trips -------------------------------------------------------------- */

/* lods: LODs in all (1 = LOD 0 only), made by fx_add_lods. */
static void round_trip(const char *label, uint32_t vertices, uint32_t lods,
                       fx_bake_options options) {
    crowd_asset *asset = fx_asset_create(vertices);
    crowd_bake *bake = fx_bake_create(asset, &options);
    fx_add_lods(bake, lods);
    CHECK(bake->lod_count == lods);
    char dir[1024];
    folder(dir, sizeof dir, label);
    crowd_error error = {0};
    crowd_result result = crowd_bake_write(bake, dir, NULL, &error);
    CHECK_MSG(result == CROWD_OK, "%s: write: %s: %s", label, error.file, error.reason);

    crowd_bake *loaded = NULL;
    result = crowd_bake_load(dir, NULL, &loaded, &error);
    CHECK_MSG(result == CROWD_OK, "%s: load: %s: %s", label, error.file, error.reason);
    if (loaded != NULL) {
        fx_compare_bakes(bake, loaded);
        /* a loaded bake writes back to the very same bytes */
        char again[1100];
        snprintf(again, sizeof again, "%s_again", dir);
        CHECK(fx_written(loaded, again, NULL));
        fx_snapshot first, second;
        fx_snapshot_take(&first, dir);
        fx_snapshot_take(&second, again);
        CHECK_MSG(fx_snapshot_equal(&first, &second), "%s: rewritten files differ", label);
        fx_snapshot_free(&first);
        fx_snapshot_free(&second);
    }
    crowd_bake_destroy(loaded);

    char manifest[1100];
    snprintf(manifest, sizeof manifest, "%s/synth.crowd.json", dir);
    loaded = NULL;
    CHECK(crowd_bake_load(manifest, NULL, &loaded, &error) == CROWD_OK);
    if (loaded != NULL) {
        fx_compare_bakes(bake, loaded);
    }
    crowd_bake_destroy(loaded);

    fx_memory_set set;
    fx_memory_set_load(&set, dir);
    loaded = NULL;
    result = crowd_bake_load_memory(set.files, set.count, NULL, &loaded, &error);
    CHECK_MSG(result == CROWD_OK, "%s: memory load: %s: %s", label, error.file, error.reason);
    if (loaded != NULL) {
        fx_compare_bakes(bake, loaded);
    }
    crowd_bake_destroy(loaded);
    fx_memory_set_free(&set);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
}

/* A float texture one of whose 16-row chunks deflates to exactly its own
 * size: OpenEXR 3.1 then kept the deflate bytes as if they were the plain
 * pixels (bake/exr_write.c). The built-in character's socket tracks with
 * the clips idle and walk (9x122 texels) have such a chunk (rows 80-95):
 * written and loaded back, every texel must be the one in memory. */
static int test_exr_exact_size_chunk(void) {
    crowd_asset *asset = NULL;
    crowd_bake *bake = NULL, *loaded = NULL;
    crowd_error error = {0};
    const char *const clips[] = {"idle", "walk"};
    crowd_bake_desc desc = {.clips = clips, .clip_count = 2, .lods = -1};
    REQUIRE(crowd_builtin_create(&asset, NULL) == CROWD_OK &&
            crowd_bake_build(asset, &desc, &bake, &error) == CROWD_OK);
    CHECK(bake->socket_tracks.width == 9 && bake->socket_tracks.height == 122);
    char dir[1024];
    folder(dir, sizeof dir, "exact_size_chunk");
    CHECK_MSG(crowd_bake_write(bake, dir, NULL, &error) == CROWD_OK, "write: %s", error.reason);
    CHECK_MSG(crowd_bake_load(dir, NULL, &loaded, &error) == CROWD_OK, "load: %s: %s", error.file,
              error.reason);
    const crowd_texture *textures[2][2] = {{&bake->socket_tracks, NULL}, {&bake->bat, NULL}};
    if (loaded != NULL) {
        textures[0][1] = &loaded->socket_tracks;
        textures[1][1] = &loaded->bat;
        for (int t = 0; t < 2; t++) {
            const crowd_texture *a = textures[t][0], *b = textures[t][1];
            size_t bytes = (size_t)a->width * a->height * crowd__bake_texel_size_bytes(a->format);
            CHECK_MSG(b->width == a->width && b->height == a->height &&
                          memcmp(a->texels, b->texels, bytes) == 0,
                      "%s: the loaded texels differ", t == 0 ? "socket tracks" : "BAT");
        }
    }
    crowd_bake_destroy(loaded);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
    return 0;
}

/* Each clip's max_step against the largest vertex move between its
 * consecutive frames read back from an f32 VAT (another path than the
 * bake's skinning); written and loaded it stays; a manifest without it
 * loads with -1 (not known), a negative one is refused. */
static int test_max_step(void) {
    crowd_asset *asset = NULL;
    crowd_bake *bake = NULL, *loaded = NULL;
    crowd_error error = {0};
    const char *const clips[] = {"walk", "die"};
    crowd_bake_desc desc = {
        .clips = clips, .clip_count = 2, .lods = -1, .vat_encoding = CROWD_VAT_F32};
    REQUIRE(crowd_builtin_create(&asset, NULL) == CROWD_OK &&
            crowd_bake_build(asset, &desc, &bake, &error) == CROWD_OK);
    for (uint32_t c = 0; c < bake->clip_count; c++) {
        const crowd_bake_clip *clip = &bake->clips[c];
        float most = 0.0f;
        for (uint32_t k = 0; k + 1 < clip->frame_count; k++) {
            for (uint32_t v = 0; v < bake->vertex_count; v++) {
                float p[3], q[3], n[3];
                crowd_bake_vat_fetch(bake, clip->first_frame + k, v, p, n);
                crowd_bake_vat_fetch(bake, clip->first_frame + k + 1, v, q, n);
                float d = sqrtf((q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) +
                                (q[2] - p[2]) * (q[2] - p[2]));
                most = fmaxf(most, d);
            }
        }
        CHECK_MSG(clip->max_step > 0.01f && fabsf(clip->max_step - most) <= 1e-5f,
                  "%s: max_step %g, the VAT's frames move %g", clip->name, (double)clip->max_step,
                  (double)most);
    }
    char dir[1024], manifest[1100];
    folder(dir, sizeof dir, "max_step");
    snprintf(manifest, sizeof manifest, "%s/builtin.crowd.json", dir);
    CHECK(crowd_bake_write(bake, dir, NULL, &error) == CROWD_OK);
    CHECK(crowd_bake_load(dir, NULL, &loaded, &error) == CROWD_OK && loaded != NULL &&
          loaded->clips[1].max_step == bake->clips[1].max_step);
    crowd_bake_destroy(loaded);
    loaded = NULL;
    cJSON *json = test_read_json(manifest);
    REQUIRE(json != NULL);
    cJSON *walk = cJSON_GetArrayItem(cJSON_GetObjectItem(json, "clips"), 0);
    cJSON_DeleteItemFromObject(walk, "max_step");
    CHECK(test_write_json(manifest, json));
    CHECK(crowd_bake_load(dir, NULL, &loaded, &error) == CROWD_OK && loaded != NULL &&
          loaded->clips[0].max_step == -1.0f && loaded->clips[1].max_step > 0.0f);
    crowd_bake_destroy(loaded);
    loaded = NULL;
    cJSON_AddNumberToObject(walk, "max_step", -0.5);
    CHECK(test_write_json(manifest, json));
    CHECK(crowd_bake_load(dir, NULL, &loaded, &error) == CROWD_ERROR_INVALID_DATA &&
          loaded == NULL && strstr(error.reason, "max_step is negative") != NULL);
    cJSON_Delete(json);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
    return 0;
}

static void test_round_trips(void) {
    round_trip("unorm16", 10, 1, (fx_bake_options){10, CROWD_VAT_UNORM16_OCT, 9, CROWD_BAT_F32, 1});
    round_trip("unorm16_wrapped", 10, 1,
               (fx_bake_options){4, CROWD_VAT_UNORM16_OCT, 4, CROWD_BAT_F32, 2});
    round_trip("f16", 37, 1, (fx_bake_options){16, CROWD_VAT_F16, 9, CROWD_BAT_F16, 3});
    round_trip("f32", 37, 1, (fx_bake_options){37, CROWD_VAT_F32, 0, CROWD_BAT_DEFAULT, 4});
    round_trip("f32_wrapped", 37, 1, (fx_bake_options){5, CROWD_VAT_F32, 2, CROWD_BAT_F32, 5});
    round_trip("bat_only", 12, 1, (fx_bake_options){0, CROWD_VAT_DEFAULT, 9, CROWD_BAT_F32, 6});
    round_trip("vat_default_enum", 12, 1,
               (fx_bake_options){12, CROWD_VAT_DEFAULT, 9, CROWD_BAT_DEFAULT, 7});
    /* LODs: 35 triangles -> 18, 9, 5, 3, 2, 1 (every 2^k-th) */
    round_trip("lods_unorm16", 37, 7,
               (fx_bake_options){16, CROWD_VAT_UNORM16_OCT, 9, CROWD_BAT_F32, 8});
    round_trip("lods_f32", 37, 3, (fx_bake_options){5, CROWD_VAT_F32, 2, CROWD_BAT_F32, 9});
    round_trip("lods_bat_only", 37, 4,
               (fx_bake_options){0, CROWD_VAT_DEFAULT, 9, CROWD_BAT_F16, 10});
}

/* ---- the manifest, read as plain JSON ------------------------------------------ */

static double number(const cJSON *object, const char *key) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsNumber(item) ? item->valuedouble : NAN;
}

static const char *string(const cJSON *object, const char *key) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsString(item) ? item->valuestring : "";
}

/* 10 vertices at width 4: ceil(10 / 4) = 3 rows a frame, 4 frames: 12 rows.
 * 3 joints: 9 BAT texels, width 4: 3 rows a frame. */
static void test_manifest_fields(void) {
    crowd_asset *asset = fx_asset_create(10);
    fx_bake_options options = {4, CROWD_VAT_UNORM16_OCT, 4, CROWD_BAT_F32, 11};
    crowd_bake *bake = fx_bake_create(asset, &options);
    fx_add_lods(bake, 3);
    char dir[1024], path[1100];
    folder(dir, sizeof dir, "manifest");
    REQUIRE_VOID(fx_written(bake, dir, NULL));
    snprintf(path, sizeof path, "%s/synth.crowd.json", dir);
    cJSON *json = test_read_json(path);
    CHECK(json != NULL);
    CHECK(strcmp(string(json, "format"), "crowd-bake") == 0);
    CHECK(number(json, "version") == 4);
    CHECK(strcmp(string(json, "producer"), "crowd 0.1.0") == 0);
    CHECK(strcmp(string(json, "source"), "synth.glb") == 0);
    CHECK(strcmp(string(json, "coordinate_system"), "gltf") == 0);
    CHECK(number(json, "vertex_count") == 10 && number(json, "joint_count") == 3);
    CHECK(cJSON_GetObjectItemCaseSensitive(json, "fps") == NULL &&
          number(json, "frame_count") == 4);
    CHECK(number(json, "between_error_budget") == CROWD_BAKE_DEFAULT_BETWEEN_ERROR);
    CHECK(strcmp(string(json, "mesh"), "synth.1.mesh.glb") == 0);
    const cJSON *clips = cJSON_GetObjectItemCaseSensitive(json, "clips");
    CHECK(cJSON_GetArraySize(clips) == 2);
    const cJSON *wave = cJSON_GetArrayItem(clips, 1);
    CHECK(strcmp(string(wave, "name"), "wave") == 0);
    CHECK(number(wave, "first_frame") == 2 && number(wave, "frame_count") == 2);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(wave, "loop")));
    CHECK((float)number(wave, "duration_s") == 1.0f / 30.0f);
    CHECK(number(wave, "fps") == 30 && number(wave, "key_rate") == 30 &&
          number(wave, "rate_multiple") == 1);
    const cJSON *between = cJSON_GetObjectItemCaseSensitive(wave, "between_error");
    CHECK((float)number(between, "max") == 0.002f && (float)number(between, "mean") == 0.0005f);
    /* Of the diagonal of [-1, 1]^3, 2 sqrt 3. */
    CHECK(fabs(number(between, "max_rel") - 0.002 / (2.0 * sqrt(3.0))) < 1e-9);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(between, "within_budget")));

    const cJSON *vat = cJSON_GetObjectItemCaseSensitive(json, "vat");
    CHECK(number(vat, "width") == 4 && number(vat, "height") == 12 &&
          number(vat, "rows_per_frame") == 3);
    CHECK(strcmp(string(vat, "encoding"), "unorm16_oct") == 0);
    CHECK(strcmp(string(vat, "position"), "synth.1.vat.png") == 0);
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(vat, "normal")));
    /* The stated range is the min and max code of each channel, here over
     * every texel of the 4 x 12 texture (padding texels included). */
    const uint16_t *texels = bake->vat_position.texels;
    const cJSON *range = cJSON_GetObjectItemCaseSensitive(vat, "position_range");
    for (int c = 0; c < 4; c++) {
        uint16_t lo = 65535, hi = 0;
        for (size_t i = 0; i < 4 * 12; i++) {
            lo = texels[4 * i + (size_t)c] < lo ? texels[4 * i + (size_t)c] : lo;
            hi = texels[4 * i + (size_t)c] > hi ? texels[4 * i + (size_t)c] : hi;
        }
        CHECK(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(range, "min"), c)->valuedouble ==
              lo);
        CHECK(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(range, "max"), c)->valuedouble ==
              hi);
    }
    const cJSON *bat = cJSON_GetObjectItemCaseSensitive(json, "bat");
    CHECK(number(bat, "width") == 4 && number(bat, "height") == 12 &&
          number(bat, "rows_per_frame") == 3);
    CHECK(strcmp(string(bat, "encoding"), "f32") == 0);
    CHECK(strcmp(string(bat, "file"), "synth.1.bat.exr") == 0);

    /* walk: [-1, 1] x [-1, 0] x [-1, 1] around (0, -0.5, 0), radius 1.5 */
    const cJSON *bounds = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(clips, 0), "bounds");
    const float walk_min[3] = {-1, -1, -1}, walk_max[3] = {1, 0, 1}, walk_centre[3] = {0, -0.5f, 0};
    for (int a = 0; a < 3; a++) {
        CHECK(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(bounds, "min"), a)->valuedouble ==
              walk_min[a]);
        CHECK(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(bounds, "max"), a)->valuedouble ==
              walk_max[a]);
        CHECK(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(bounds, "center"), a)
                  ->valuedouble == walk_centre[a]);
    }
    CHECK(number(bounds, "radius") == 1.5);
    /* 8 triangles (t, t+1, t+2): LOD 1 keeps t = 0, 2, 4, 6 over vertices
     * 0..8; LOD 2 keeps t = 0, 4 over vertices 0, 1, 2, 4, 5, 6 */
    const cJSON *lods = cJSON_GetObjectItemCaseSensitive(json, "lods");
    CHECK(cJSON_GetArraySize(lods) == 3);
    const double expected[3][6] = {
        {0, 24, 0, 10, 8, 0}, {0, 12, 0, 9, 4, 0.125}, {12, 6, 9, 6, 2, 0.25}};
    static const char *const keys[6] = {"first_index",  "index_count",    "first_vertex",
                                        "vertex_count", "triangle_count", "error"};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 6; i++) {
            CHECK_MSG(number(cJSON_GetArrayItem(lods, k), keys[i]) == expected[k][i],
                      "lods[%d].%s is %g, want %g", k, keys[i],
                      number(cJSON_GetArrayItem(lods, k), keys[i]), expected[k][i]);
        }
    }
    CHECK((float)number(cJSON_GetArrayItem(lods, 2), "error_rel") == 0.25f / sqrtf(12.0f));
    cJSON_Delete(json);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
}

/* ---- TEXCOORD_1, read from the .glb by hand ------------------------------------- */

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The float array of attribute `name` of primitive 0 of mesh `mesh`,
 * `components` floats a vertex. */
static float *glb_attribute(const char *path, int mesh, const char *name, int components,
                            uint32_t *count) {
    size_t size = 0;
    uint8_t *data = (uint8_t *)test_read_file(path, &size);
    if (data == NULL || size < 28) {
        free(data);
        return NULL;
    }
    uint32_t json_length = le32(data + 12);
    cJSON *json = cJSON_ParseWithLength((const char *)data + 20, json_length);
    const uint8_t *bin = data + 20 + json_length + 8;
    const cJSON *primitive = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "meshes"), mesh),
            "primitives"),
        0);
    const cJSON *index = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(primitive, "attributes"), name);
    float *values = NULL;
    if (cJSON_IsNumber(index)) {
        const cJSON *accessor = cJSON_GetArrayItem(
            cJSON_GetObjectItemCaseSensitive(json, "accessors"), index->valueint);
        const cJSON *view =
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "bufferViews"),
                               (int)number(accessor, "bufferView"));
        double offset = number(view, "byteOffset");
        *count = (uint32_t)number(accessor, "count");
        size_t bytes = *count * (size_t)components * sizeof *values;
        values = malloc(bytes);
        memcpy(values, bin + (size_t)(isnan(offset) ? 0 : offset), bytes);
    }
    cJSON_Delete(json);
    free(data);
    return values;
}

/* u = (v % W + 0.5) / W, v = (v / W + 0.5) / H: the texel centre of vertex v
 * in frame 0; frame f adds f * rows_per_frame / H. */
static void test_texcoord1(void) {
    crowd_asset *asset = fx_asset_create(10);
    fx_bake_options options = {4, CROWD_VAT_UNORM16_OCT, 9, CROWD_BAT_F32, 12};
    crowd_bake *bake = fx_bake_create(asset, &options);
    char dir[1024], path[1100];
    folder(dir, sizeof dir, "texcoord1");
    REQUIRE_VOID(fx_written(bake, dir, NULL));
    snprintf(path, sizeof path, "%s/synth.1.mesh.glb", dir);
    uint32_t count = 0;
    float *uv = glb_attribute(path, 0, "TEXCOORD_1", 2, &count);
    CHECK(uv != NULL && count == 10);
    const double width = 4, height = 12, rows = 3;
    for (uint32_t v = 0; uv != NULL && v < count; v++) {
        CHECK_NEAR(uv[2 * v], ((double)(v % 4) + 0.5) / width, 1e-7);
        CHECK_NEAR(uv[2 * v + 1], ((double)(v / 4) + 0.5) / height, 1e-7);
        for (uint32_t f = 0; f < 4; f++) {
            /* what a shader does: offset by whole frames, take the texel */
            double column = floor(uv[2 * v] * width);
            double row = floor((uv[2 * v + 1] + f * rows / height) * height);
            CHECK(column == v % 4 && row == f * rows + v / 4);
        }
    }
    free(uv);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
}

/* LOD meshes 1..: each vertex's _SOURCE_VERTEX is its LOD0 vertex and its
 * TEXCOORD_1 that vertex's texel, bit for bit, so every LOD plays LOD0's
 * texels; the positions are LOD0's too. */
static void test_lod_meshes(void) {
    crowd_asset *asset = fx_asset_create(37);
    fx_bake_options options = {16, CROWD_VAT_F16, 9, CROWD_BAT_F32, 13};
    crowd_bake *bake = fx_bake_create(asset, &options);
    fx_add_lods(bake, 4);
    char dir[1024], path[1100];
    folder(dir, sizeof dir, "lod_meshes");
    REQUIRE_VOID(fx_written(bake, dir, NULL));
    snprintf(path, sizeof path, "%s/synth.1.mesh.glb", dir);
    uint32_t count0 = 0;
    float *uv0 = glb_attribute(path, 0, "TEXCOORD_1", 2, &count0);
    float *positions0 = glb_attribute(path, 0, "POSITION", 3, &count0);
    CHECK(bake->lod_count == 4 && uv0 != NULL && positions0 != NULL && count0 == 37);
    for (uint32_t k = 1; k < bake->lod_count && uv0 != NULL && positions0 != NULL; k++) {
        const crowd_bake_lod *lod = &bake->lods[k];
        uint32_t count = 0, uv_count = 0, position_count = 0;
        float *source = glb_attribute(path, (int)k, "_SOURCE_VERTEX", 1, &count);
        float *uv = glb_attribute(path, (int)k, "TEXCOORD_1", 2, &uv_count);
        float *positions = glb_attribute(path, (int)k, "POSITION", 3, &position_count);
        CHECK(source != NULL && uv != NULL && positions != NULL);
        CHECK(count == lod->vertex_count && uv_count == count && position_count == count);
        for (uint32_t i = 0; source != NULL && uv != NULL && positions != NULL && i < count; i++) {
            uint32_t v = bake->lod_vertices[lod->first_vertex + i];
            CHECK(source[i] == (float)v);
            CHECK(uv[2 * i] == uv0[2 * v] && uv[2 * i + 1] == uv0[2 * v + 1]);
            CHECK(fx_same_floats(positions + 3 * i, positions0 + 3 * v, 3));
        }
        free(source);
        free(uv);
        free(positions);
    }
    free(uv0);
    free(positions0);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
}

/* A version-1 folder (no lods, no clip bounds) still loads: LOD 0 only, and
 * every clip gets the bake's box with the sphere through its corners. */
static void test_version1(void) {
    crowd_asset *asset = fx_asset_create(10);
    fx_bake_options options = {10, CROWD_VAT_UNORM16_OCT, 9, CROWD_BAT_F32, 14};
    crowd_bake *bake = fx_bake_create(asset, &options);
    char dir[1024], path[1100];
    folder(dir, sizeof dir, "version1");
    REQUIRE_VOID(fx_written(bake, dir, NULL));
    snprintf(path, sizeof path, "%s/synth.crowd.json", dir);
    cJSON *json = test_read_json(path);
    /* Version 1: the root's fps, no per-clip rates; frame counts within a
     * frame of round(d * fps) (loops) and round(d * fps) + 1 (one-shots). */
    cJSON_ReplaceItemInObjectCaseSensitive(json, "version", cJSON_CreateNumber(1));
    cJSON_AddNumberToObject(json, "fps", 30);
    cJSON_DeleteItemFromObjectCaseSensitive(json, "between_error_budget");
    cJSON_DeleteItemFromObjectCaseSensitive(json, "lods");
    cJSON *clip;
    cJSON_ArrayForEach(clip, cJSON_GetObjectItemCaseSensitive(json, "clips")) {
        cJSON_DeleteItemFromObjectCaseSensitive(clip, "bounds");
        cJSON_DeleteItemFromObjectCaseSensitive(clip, "fps");
        cJSON_DeleteItemFromObjectCaseSensitive(clip, "key_rate");
        cJSON_DeleteItemFromObjectCaseSensitive(clip, "rate_multiple");
        cJSON_DeleteItemFromObjectCaseSensitive(clip, "between_error");
    }
    char *text = cJSON_Print(json);
    test_write_file(path, text, strlen(text));
    cJSON_free(text);
    cJSON_Delete(json);
    crowd_bake *loaded = NULL;
    crowd_error error = {0};
    crowd_result result = crowd_bake_load(dir, NULL, &loaded, &error);
    CHECK_MSG(result == CROWD_OK, "version 1: %s: %s", error.file, error.reason);
    if (loaded != NULL) {
        CHECK(loaded->lod_count == 1 && loaded->lod_vertices == NULL &&
              loaded->lod_indices == NULL);
        CHECK(loaded->lods[0].index_count == asset->mesh.index_count &&
              loaded->lods[0].vertex_count == 10 &&
              loaded->lods[0].triangle_count == asset->mesh.index_count / 3);
        CHECK(loaded->between_error_budget_rel == 0.0);
        for (uint32_t c = 0; c < loaded->clip_count; c++) {
            const crowd_bake_clip *x = &loaded->clips[c];
            /* Played as they were written: loops wrap, one-shots clamp. */
            CHECK(x->fps == 30.0f && x->rate_multiple == 1 && x->key_rate == 0.0f);
            CHECK(x->layout == (x->loop ? CROWD_FRAMES_WRAP : CROWD_FRAMES_CLAMP));
            CHECK(fx_same_floats(x->bounds_min, loaded->bounds_min, 3) &&
                  fx_same_floats(x->bounds_max, loaded->bounds_max, 3));
            /* bounds [-1, 1]^3: centre 0, radius sqrt(3) rounded up */
            CHECK(x->sphere_center[0] == 0.0f && x->sphere_center[1] == 0.0f &&
                  x->sphere_center[2] == 0.0f);
            CHECK(x->sphere_radius >= 1.7320508f && x->sphere_radius < 1.7320510f);
        }
    }
    crowd_bake_destroy(loaded);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
}

/* ---- OpenVAT ------------------------------------------------------------------- */

static void test_openvat_plan(void) {
    openvat_layout layout;
    crowd_error error = {0};
    /* 7218 x 1564 (robot): width 4096 -> 2 blocks, 2*2*1564 = 6256 -> 8192 rows;
     * width 8192 -> 4096 rows has the same area, the narrower wins. */
    CHECK(crowd__openvat_plan(7218, 1564, &layout, &error) == CROWD_OK);
    CHECK(layout.width == 4096 && layout.height == 8192 && layout.wraps == 2 &&
          layout.frames == 1564);
    /* 100 x 3: no size within a factor of two of square; 64 x 16 (2 blocks) and
     * 128 x 8 have the same area, the narrower wins. */
    CHECK(crowd__openvat_plan(100, 3, &layout, &error) == CROWD_OK);
    CHECK(layout.width == 64 && layout.height == 16 && layout.wraps == 2);
    /* 2 * 16384 rows at least: does not fit. */
    CHECK(crowd__openvat_plan(1, 16384, &layout, &error) == CROWD_ERROR_LIMIT);
}

static uint16_t *read_png16_rgb(const char *path, uint32_t *width, uint32_t *height) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) {
        return NULL;
    }
    CHECK((image.format & PNG_FORMAT_FLAG_LINEAR) != 0);
    image.format = PNG_FORMAT_LINEAR_RGB;
    uint16_t *pixels = malloc(PNG_IMAGE_SIZE(image));
    /* linear 16-bit read keeps the stored codes of a PNG without gamma info */
    if (!png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
        free(pixels);
        return NULL;
    }
    *width = image.width;
    *height = image.height;
    return pixels;
}

/* 3 vertices, 4 frames, f32 VAT: position(f, v) = rest(v) + d(f, v) with
 * d = (0.1 f, 0.2 v, -0.05 f v); normals all +Z. In Blender axes
 * (x, -z, y) the offsets are (0.1 f, 0.05 f v, 0.2 v): Min 0, Max
 * (0.3, 0.3, 0.4). Layout: 64 x 8, positions in rows 0-3, normals 4-7. */
static void test_openvat_set(void) {
    crowd_asset *asset = fx_asset_create(3);
    fx_bake_options options = {3, CROWD_VAT_F32, 9, CROWD_BAT_F32, 13};
    crowd_bake *bake = fx_bake_create(asset, &options);
    float *pos = bake->vat_position.texels, *nrm = bake->vat_normal.texels;
    for (uint32_t f = 0; f < 4; f++) {
        for (uint32_t v = 0; v < 3; v++) {
            float d[3] = {0.1f * (float)f, 0.2f * (float)v, -0.05f * (float)(f * v)};
            for (int a = 0; a < 3; a++) {
                pos[4 * (f * 3 + v) + (uint32_t)a] =
                    asset->mesh.positions[3 * v + (uint32_t)a] + d[a];
                nrm[4 * (f * 3 + v) + (uint32_t)a] = a == 2 ? 1.0f : 0.0f;
            }
        }
    }
    char dir[1024], path[1200];
    folder(dir, sizeof dir, "openvat");
    crowd_error error = {0};
    crowd_bake_write_desc desc = {.openvat = true};
    REQUIRE_VOID(fx_written(bake, dir, &desc));

    snprintf(path, sizeof path, "%s/openvat/synth.1-remap_info.json", dir);
    cJSON *json = test_read_json(path);
    const cJSON *remap = cJSON_GetObjectItemCaseSensitive(json, "os-remap");
    const double max[3] = {0.3, 0.3, 0.4};
    float min_f[3], max_f[3];
    for (int a = 0; a < 3; a++) {
        min_f[a] = (float)cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(remap, "Min"), a)
                       ->valuedouble;
        max_f[a] = (float)cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(remap, "Max"), a)
                       ->valuedouble;
        CHECK_NEAR(min_f[a], 0.0, 1e-6);
        CHECK_NEAR(max_f[a], max[a], 1e-6);
    }
    CHECK(number(remap, "Frames") == 4);
    const cJSON *animations = cJSON_GetObjectItemCaseSensitive(json, "animations");
    const cJSON *walk = cJSON_GetObjectItemCaseSensitive(animations, "walk");
    const cJSON *wave = cJSON_GetObjectItemCaseSensitive(animations, "wave");
    CHECK(number(walk, "startFrame") == 1 && number(walk, "endFrame") == 2);
    CHECK(number(wave, "startFrame") == 3 && number(wave, "endFrame") == 4);
    CHECK(number(walk, "framerate") == 30);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(walk, "looping")));
    CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(wave, "looping")));
    cJSON_Delete(json);

    snprintf(path, sizeof path, "%s/openvat/synth.1_vat.png", dir);
    uint32_t width = 0, height = 0;
    uint16_t *pixels = read_png16_rgb(path, &width, &height);
    CHECK(pixels != NULL && width == 64 && height == 8);
    for (uint32_t f = 0; pixels != NULL && f < 4; f++) {
        for (uint32_t v = 0; v < 3; v++) {
            double blender[3] = {0.1 * f, 0.05 * f * v, 0.2 * v};
            const uint16_t *p = pixels + 3 * ((size_t)f * width + v);
            const uint16_t *n = pixels + 3 * ((size_t)(f + 4) * width + v);
            for (int a = 0; a < 3; a++) {
                CHECK_NEAR(p[a], blender[a] / max[a] * 65535.0, 1.5);
            }
            /* +Z in glTF is -Y in Blender: ((0, -1, 0) + 1) / 2 */
            CHECK(n[0] == 32768 && n[1] == 0 && n[2] == 32768);
        }
        const uint16_t *unused = pixels + 3 * ((size_t)f * width + 3);
        CHECK(unused[0] == 0 && unused[1] == 0 && unused[2] == 0);
    }
    free(pixels);

    snprintf(path, sizeof path, "%s/openvat/synth.1.glb", dir);
    uint32_t count = 0;
    float *uv = glb_attribute(path, 0, "TEXCOORD_1", 2, &count);
    CHECK(uv != NULL && count == 3);
    for (uint32_t v = 0; uv != NULL && v < count; v++) {
        CHECK_NEAR(uv[2 * v], (v + 0.5) / 64.0, 1e-7);
        CHECK_NEAR(uv[2 * v + 1], 0.5 / 8.0, 1e-7);
    }
    free(uv);
    float *joints = glb_attribute(path, 0, "JOINTS_0", 2, &count);
    CHECK(joints == NULL); /* OpenVAT meshes are static */
    free(joints);

    /* The crowd manifest points at the set. */
    snprintf(path, sizeof path, "%s/synth.crowd.json", dir);
    json = test_read_json(path);
    const cJSON *compat = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(json, "compat"), "openvat");
    CHECK(strcmp(string(compat, "texture"), "openvat/synth.1_vat.png") == 0);
    CHECK(strcmp(string(compat, "remap_info"), "openvat/synth.1-remap_info.json") == 0);
    CHECK(strcmp(string(compat, "mesh"), "openvat/synth.1.glb") == 0);
    cJSON_Delete(json);
    crowd_bake *loaded = NULL;
    CHECK(crowd_bake_load(dir, NULL, &loaded, &error) == CROWD_OK);
    crowd_bake_destroy(loaded);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
}

/* ---- writer arguments ------------------------------------------------------------ */

static void expect_refused(crowd_bake *bake, const char *label, const crowd_bake_write_desc *desc,
                           const char *reason_part) {
    char dir[1024];
    folder(dir, sizeof dir, label);
    crowd_error error = {0};
    crowd_result result = crowd_bake_write(bake, dir, desc, &error);
    CHECK_MSG(result == CROWD_ERROR_INVALID_ARGUMENT, "%s: result %d (%s)", label, result,
              error.reason);
    CHECK_MSG(strstr(error.reason, reason_part) != NULL, "%s: reason \"%s\" lacks \"%s\"", label,
              error.reason, reason_part);
    CHECK_MSG(!check_path_exists(dir), "%s: the folder was created", label);
}

static void test_writer_arguments(void) {
    crowd_asset *asset = fx_asset_create(10);
    fx_bake_options options = {10, CROWD_VAT_F32, 9, CROWD_BAT_F32, 21};
    crowd_bake *bake = fx_bake_create(asset, &options);
    crowd_error error = {0};
    CHECK(crowd_bake_write(NULL, root, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_bake_write(bake, NULL, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);

    char *name = bake->name;
    bake->name = "../escape";
    expect_refused(bake, "bad_name", NULL, "file name");
    bake->name = name;

    bake->vat_rows_per_frame++;
    expect_refused(bake, "bad_layout", NULL, "VAT");
    bake->vat_rows_per_frame--;

    float *texels = bake->bat.texels;
    float saved = texels[5];
    texels[5] = NAN;
    expect_refused(bake, "nan", NULL, "not finite");
    texels[5] = saved;

    bake->clips[1].first_frame = 1;
    expect_refused(bake, "overlapping_clips", NULL, "inconsistent");
    bake->clips[1].first_frame = 2;

    bake->clips[0].frame_count = 3;
    bake->clips[1].first_frame = 3;
    bake->frame_count = 5; /* textures still hold 4 frames */
    expect_refused(bake, "frames_vs_texture", NULL, "VAT");
    bake->clips[0].frame_count = 2;
    bake->clips[1].first_frame = 2;
    bake->frame_count = 4;

    crowd_texture vat = bake->vat_position, normal = bake->vat_normal;
    memset(&bake->vat_position, 0, sizeof vat);
    memset(&bake->vat_normal, 0, sizeof normal);
    crowd_bake_write_desc openvat = {.openvat = true};
    expect_refused(bake, "openvat_without_vat", &openvat, "VAT");
    crowd_texture bat = bake->bat;
    memset(&bake->bat, 0, sizeof bat);
    expect_refused(bake, "no_texture", NULL, "no texture");
    bake->vat_position = vat;
    bake->vat_normal = normal;
    bake->bat = bat;

    char dir[1024];
    folder(dir, sizeof dir, "valid_after_all");
    CHECK(crowd_bake_write(bake, dir, NULL, &error) == CROWD_OK);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
}

int main(void) {
    check_enter_temp_dir("test_bakeio");
    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trips();
    test_exr_exact_size_chunk();
    test_max_step();
    test_manifest_fields();
    test_texcoord1();
    test_lod_meshes();
    test_version1();
    test_openvat_plan();
    test_openvat_set();
    test_writer_arguments();
    test_remove_tree(root);
    return check_finish();
}
