/* test_bakeio_materials - the materials of a baked NAME.mesh.glb are the
 * source file's, field by field, and each mesh of it draws one primitive
 * per material.
 *
 * Both sides are read by this test's own GLB reader (cJSON on the JSON
 * chunk, PNG sizes from the IHDR of the embedded images), not by crowd's
 * importer or loader: crowd imports and bakes the source, and what it
 * wrote is compared with what the source says, the glTF 2.0 defaults
 * standing in for absent members and factors clamped to glTF's ranges.
 * Sources: every .glb of ../shared/models, and a character this test
 * writes with a metal material (metallic 1, roughness 0, MASK, emission,
 * every texture) split over non-adjacent primitives. builtin: has no file:
 * its mesh.glb is compared with the documented values (dielectric,
 * roughness 1) and the asset's colours.
 */
#define _XOPEN_SOURCE 700

#include <cjson/cJSON.h>
#include <dirent.h>

#include "bake/png_write.h"
#include "bakeio_fixture.h"
#include "check.h"
#include "crowd/builtin.h"
#include "crowd/import.h"

static char root[] = "/tmp/test_bakeio_materials.XXXXXX";

typedef struct glb_file {
    uint8_t *bytes;
    size_t size;
    cJSON *json;
    const uint8_t *bin;
    size_t bin_size;
} glb_file;

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool glb_open(const char *path, glb_file *out) {
    *out = (glb_file){0};
    out->bytes = (uint8_t *)test_read_file(path, &out->size);
    bool ok = out->bytes != NULL && out->size > 20;
    ok = ok && le32(out->bytes) == 0x46546C67 && le32(out->bytes + 16) == 0x4E4F534A;
    size_t json_size = ok ? le32(out->bytes + 12) : 0;
    ok = ok && 20 + json_size <= out->size;
    if (ok) {
        out->json = cJSON_ParseWithLength((const char *)out->bytes + 20, json_size);
        size_t bin = 20 + json_size;
        if (bin + 8 <= out->size && le32(out->bytes + bin + 4) == 0x004E4942) {
            out->bin = out->bytes + bin + 8;
            out->bin_size = le32(out->bytes + bin);
        }
    }
    return out->json != NULL;
}

static void glb_close(glb_file *glb) {
    cJSON_Delete(glb->json);
    free(glb->bytes);
}

static const cJSON *get(const cJSON *object, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(object, key);
}

static double number(const cJSON *object, const char *key, double fallback) {
    const cJSON *item = get(object, key);
    return cJSON_IsNumber(item) ? item->valuedouble : fallback;
}

static float unit(double value) {
    return (float)(value < 0 ? 0 : value > 1 ? 1 : value);
}

/* Width and height of the PNG a textureInfo points at (0 x 0: none, or not a PNG). */
static void texture_size(const glb_file *glb, const cJSON *info, uint32_t size[2]) {
    size[0] = size[1] = 0;
    const cJSON *texture =
        cJSON_GetArrayItem(get(glb->json, "textures"), (int)number(info, "index", -1));
    const cJSON *image =
        cJSON_GetArrayItem(get(glb->json, "images"), (int)number(texture, "source", -1));
    const cJSON *view =
        cJSON_GetArrayItem(get(glb->json, "bufferViews"), (int)number(image, "bufferView", -1));
    size_t offset = (size_t)number(view, "byteOffset", 0),
           length = (size_t)number(view, "byteLength", 0);
    if (info == NULL || view == NULL || glb->bin == NULL || offset + length > glb->bin_size ||
        length < 24 || memcmp(glb->bin + offset, "\x89PNG", 4) != 0) {
        return;
    }
    const uint8_t *p = glb->bin + offset + 16;
    size[0] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    size[1] = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
}

static const char *alpha_mode(const cJSON *material) {
    const cJSON *mode = get(material, "alphaMode");
    return cJSON_IsString(mode) ? mode->valuestring : "OPAQUE";
}

/* Every parameter of source material `s` against baked material `b`. */
static void compare_material(const char *label, const glb_file *source, const cJSON *s,
                             const glb_file *baked, const cJSON *b) {
    const cJSON *sp = get(s, "pbrMetallicRoughness"), *bp = get(b, "pbrMetallicRoughness");
    const char *name = cJSON_IsString(get(s, "name")) ? get(s, "name")->valuestring : "";
    for (int c = 0; c < 4; c++) {
        const cJSON *sc = cJSON_GetArrayItem(get(sp, "baseColorFactor"), c);
        const cJSON *bc = cJSON_GetArrayItem(get(bp, "baseColorFactor"), c);
        CHECK_MSG(bc != NULL && (float)bc->valuedouble == unit(sc ? sc->valuedouble : 1.0),
                  "%s '%s': baseColorFactor[%d]", label, name, c);
    }
    CHECK_MSG((float)number(bp, "metallicFactor", 1) == unit(number(sp, "metallicFactor", 1)),
              "%s '%s': metallicFactor %g, source %g", label, name, number(bp, "metallicFactor", 1),
              number(sp, "metallicFactor", 1));
    CHECK_MSG((float)number(bp, "roughnessFactor", 1) == unit(number(sp, "roughnessFactor", 1)),
              "%s '%s': roughnessFactor %g, source %g", label, name,
              number(bp, "roughnessFactor", 1), number(sp, "roughnessFactor", 1));
    for (int c = 0; c < 3; c++) {
        const cJSON *sc = cJSON_GetArrayItem(get(s, "emissiveFactor"), c);
        const cJSON *bc = cJSON_GetArrayItem(get(b, "emissiveFactor"), c);
        CHECK_MSG((bc ? (float)bc->valuedouble : 0.0f) == unit(sc ? sc->valuedouble : 0.0),
                  "%s '%s': emissiveFactor[%d]", label, name, c);
    }
    CHECK_MSG(strcmp(alpha_mode(s), alpha_mode(b)) == 0, "%s '%s': alphaMode %s, source %s", label,
              name, alpha_mode(b), alpha_mode(s));
    if (strcmp(alpha_mode(s), "MASK") == 0) {
        CHECK_MSG((float)number(b, "alphaCutoff", 0.5) == (float)number(s, "alphaCutoff", 0.5),
                  "%s '%s': alphaCutoff", label, name);
    }
    CHECK_MSG(cJSON_IsTrue(get(s, "doubleSided")) == cJSON_IsTrue(get(b, "doubleSided")),
              "%s '%s': doubleSided", label, name);
    const struct {
        const char *what;
        const cJSON *source, *baked;
    } textures[] = {
        {"baseColorTexture", get(sp, "baseColorTexture"), get(bp, "baseColorTexture")},
        {"metallicRoughnessTexture", get(sp, "metallicRoughnessTexture"),
         get(bp, "metallicRoughnessTexture")},
        {"normalTexture", get(s, "normalTexture"), get(b, "normalTexture")},
        {"occlusionTexture", get(s, "occlusionTexture"), get(b, "occlusionTexture")},
        {"emissiveTexture", get(s, "emissiveTexture"), get(b, "emissiveTexture")},
    };
    for (size_t t = 0; t < sizeof textures / sizeof textures[0]; t++) {
        uint32_t a[2], z[2];
        texture_size(source, textures[t].source, a);
        texture_size(baked, textures[t].baked, z);
        CHECK_MSG(a[0] == z[0] && a[1] == z[1], "%s '%s': %s %ux%u, source %ux%u", label, name,
                  textures[t].what, z[0], z[1], a[0], a[1]);
    }
    CHECK_MSG((float)number(get(b, "normalTexture"), "scale", 1) ==
                  (float)number(get(s, "normalTexture"), "scale", 1),
              "%s '%s': normalTexture.scale", label, name);
    CHECK_MSG((float)number(get(b, "occlusionTexture"), "strength", 1) ==
                  unit(number(get(s, "occlusionTexture"), "strength", 1)),
              "%s '%s': occlusionTexture.strength", label, name);
}

/* Each mesh of the baked file: one primitive per material, none repeated. */
static void check_primitives(const char *label, const glb_file *baked, uint32_t *mesh0_count) {
    const cJSON *mesh;
    int index = 0;
    cJSON_ArrayForEach(mesh, get(baked->json, "meshes")) {
        const cJSON *primitives = get(mesh, "primitives");
        int count = cJSON_GetArraySize(primitives);
        for (int p = 0; p < count; p++) {
            for (int q = 0; q < p; q++) {
                CHECK_MSG(number(cJSON_GetArrayItem(primitives, p), "material", -1) !=
                              number(cJSON_GetArrayItem(primitives, q), "material", -2),
                          "%s: mesh %d: primitives %d and %d share a material", label, index, q, p);
            }
        }
        if (index++ == 0) {
            *mesh0_count = (uint32_t)count;
        }
    }
    CHECK_MSG(index >= 1, "%s: no meshes", label);
}

/* Imports `path` (or takes `asset`), bakes one clip at 5 fps with `lods`,
 * and opens what was written. */
static bool bake(const char *label, crowd_asset *asset, int32_t lods, glb_file *out) {
    const char *clip = asset->clip_count > 0 ? asset->clips[0].name : NULL;
    crowd_bake_desc desc = {
        .fps = 5, .clips = clip ? &clip : NULL, .clip_count = clip ? 1 : 0, .lods = lods};
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    crowd_result result = crowd_bake_build(asset, &desc, &bake, &error);
    CHECK_MSG(result == CROWD_OK, "%s: build: %s", label, error.reason);
    char dir[1200], path[1400];
    snprintf(dir, sizeof dir, "%s/%s", root, label);
    bool ok = result == CROWD_OK && crowd_bake_write(bake, dir, NULL, &error) == CROWD_OK;
    CHECK_MSG(ok, "%s: write: %s", label, error.reason);
    /* The first bake into a folder is generation 1 (docs/manifest.md). */
    snprintf(path, sizeof path, "%s/%s.1.mesh.glb", dir, bake ? bake->name : "");
    ok = ok && glb_open(path, out);
    CHECK_MSG(ok, "%s: %s cannot be read", label, path);
    crowd_bake_destroy(bake);
    return ok;
}

static void test_source(const char *label, const char *path) {
    glb_file source, baked;
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    REQUIRE_VOID(glb_open(path, &source));
    CHECK_MSG(crowd_import_file(path, NULL, &asset, &error) == CROWD_OK, "%s: %s", path,
              error.reason);
    if (asset != NULL && bake(label, asset, -1, &baked)) {
        const cJSON *b;
        int matched = 0;
        cJSON_ArrayForEach(b, get(baked.json, "materials")) {
            const cJSON *name = get(b, "name"), *s = NULL, *candidate;
            cJSON_ArrayForEach(candidate, get(source.json, "materials")) {
                const cJSON *n = get(candidate, "name");
                if (cJSON_IsString(name) && cJSON_IsString(n) &&
                    strcmp(n->valuestring, name->valuestring) == 0) {
                    s = candidate;
                }
            }
            CHECK_MSG(s != NULL, "%s: baked material '%s' is not the source's", label,
                      cJSON_IsString(name) ? name->valuestring : "");
            if (s != NULL) {
                compare_material(label, &source, s, &baked, b);
                matched++;
            }
        }
        uint32_t primitives = 0;
        check_primitives(label, &baked, &primitives);
        CHECK_MSG(primitives == asset->material_count && matched == (int)asset->material_count,
                  "%s: %u primitives in mesh 0, %d materials matched, %u used", label, primitives,
                  matched, asset->material_count);
        glb_close(&baked);
    }
    crowd_asset_destroy(asset);
    glb_close(&source);
}

/* A 2 x 3 PNG, appended to `bin` at a 4-byte boundary; returns its offset. */
static size_t append_png(uint8_t *bin, size_t at, size_t *length) {
    uint8_t pixels[2 * 3 * 4];
    for (size_t i = 0; i < sizeof pixels; i++) {
        pixels[i] = (uint8_t)(i * 41 + 7);
    }
    uint8_t *png = NULL;
    crowd_error error = {0};
    *length = 0;
    if (crowd__png_encode_rgba8(pixels, 2, 3, &png, length, &error) == CROWD_OK) {
        memcpy(bin + at, png, *length);
    }
    free(png);
    return at;
}

/* metal.glb: three primitives over one triangle, materials "metal",
 * "cloth", "metal" (so mesh.glb must merge the two metal ones), metal
 * with every parameter away from its default and every texture. */
static bool write_metal_source(const char *path) {
    static const float geometry[] = {
        0, 0, 0, 1, 0, 0, 0, 1, 0, /* positions */
        0, 0, 1, 0, 0, 1, 0, 0, 1, /* normals */
        0, 0, 1, 0, 0, 1,          /* uv */
    };
    static const uint16_t indices[4] = {0, 1, 2, 0};
    uint8_t bin[4096] = {0};
    memcpy(bin, geometry, sizeof geometry);
    memcpy(bin + 96, indices, sizeof indices);
    size_t png_length = 0, png_at = append_png(bin, 104, &png_length);
    size_t bin_size = (png_at + png_length + 3) & ~(size_t)3;
    char json[4096];
    int json_length = snprintf(
        json, sizeof json,
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
        "\"nodes\":[{\"mesh\":0,\"name\":\"metal\"}],"
        "\"buffers\":[{\"byteLength\":%zu}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":96},"
        "{\"buffer\":0,\"byteOffset\":96,\"byteLength\":6},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
        "\"min\":[0,0,0],\"max\":[1,1,0]},"
        "{\"bufferView\":0,\"byteOffset\":36,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
        "{\"bufferView\":0,\"byteOffset\":72,\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"},"
        "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],"
        "\"images\":[{\"bufferView\":2,\"mimeType\":\"image/png\"}],"
        "\"textures\":[{\"source\":0}],"
        "\"materials\":[{\"name\":\"metal\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.9,"
        "0.6,0.2,1],\"metallicFactor\":1,\"roughnessFactor\":0,\"baseColorTexture\":{\"index\":0},"
        "\"metallicRoughnessTexture\":{\"index\":0}},\"normalTexture\":{\"index\":0,\"scale\":0.5},"
        "\"occlusionTexture\":{\"index\":0,\"strength\":0.25},\"emissiveTexture\":{\"index\":0},"
        "\"emissiveFactor\":[0.25,0.125,0],\"alphaMode\":\"MASK\",\"alphaCutoff\":0.375,"
        "\"doubleSided\":true},"
        "{\"name\":\"cloth\",\"alphaMode\":\"BLEND\",\"pbrMetallicRoughness\":{"
        "\"baseColorFactor\":[0.2,0.3,0.4,0.5],\"roughnessFactor\":0.75}}],"
        "\"meshes\":[{\"primitives\":["
        "{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"TEXCOORD_0\":2},\"indices\":3,"
        "\"material\":0},"
        "{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"TEXCOORD_0\":2},\"indices\":3,"
        "\"material\":1},"
        "{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"TEXCOORD_0\":2},\"indices\":3,"
        "\"material\":0}]}]}",
        bin_size, png_at, png_length);
    size_t json_padded = ((size_t)json_length + 3) & ~(size_t)3;
    memset(json + json_length, ' ', json_padded - (size_t)json_length);
    uint8_t header[20];
    uint32_t words[5] = {0x46546C67, 2, (uint32_t)(12 + 8 + json_padded + 8 + bin_size),
                         (uint32_t)json_padded, 0x4E4F534A};
    memcpy(header, words, sizeof header);
    uint32_t bin_header[2] = {(uint32_t)bin_size, 0x004E4942};
    FILE *file = fopen(path, "wb");
    bool ok = file != NULL && png_length > 0 && fwrite(header, 1, 20, file) == 20 &&
              fwrite(json, 1, json_padded, file) == json_padded &&
              fwrite(bin_header, 1, 8, file) == 8 && fwrite(bin, 1, bin_size, file) == bin_size;
    ok = file != NULL && fclose(file) == 0 && ok;
    return ok;
}

static void test_builtin(void) {
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    REQUIRE_VOID(crowd_builtin_create(&asset, &error) == CROWD_OK);
    glb_file baked;
    if (bake("builtin", asset, 0, &baked)) {
        const cJSON *materials = get(baked.json, "materials");
        CHECK(cJSON_GetArraySize(materials) == (int)asset->material_count);
        for (uint32_t m = 0; m < asset->material_count; m++) {
            const cJSON *b = cJSON_GetArrayItem(materials, (int)m);
            const cJSON *pbr = get(b, "pbrMetallicRoughness");
            CHECK(strcmp(get(b, "name")->valuestring, asset->materials[m].name) == 0);
            for (int c = 0; c < 4; c++) {
                CHECK((float)cJSON_GetArrayItem(get(pbr, "baseColorFactor"), c)->valuedouble ==
                      unit(asset->materials[m].base_color[c]));
            }
            CHECK(number(pbr, "metallicFactor", 1) == 0 && number(pbr, "roughnessFactor", 1) == 1);
            CHECK(strcmp(alpha_mode(b), "OPAQUE") == 0 && !cJSON_IsTrue(get(b, "doubleSided")));
        }
        /* the LODs too: three materials, three primitives per LOD mesh */
        uint32_t primitives = 0;
        check_primitives("builtin", &baked, &primitives);
        const cJSON *mesh;
        cJSON_ArrayForEach(mesh, get(baked.json, "meshes")) {
            CHECK(cJSON_GetArraySize(get(mesh, "primitives")) == 3);
        }
        CHECK(cJSON_GetArraySize(get(baked.json, "meshes")) == 1 + CROWD_BAKE_DEFAULT_LODS);
        glb_close(&baked);
    }
    crowd_asset_destroy(asset);
}

int main(void) {
    check_enter_temp_dir("test_bakeio_materials");
    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    char metal[1200];
    snprintf(metal, sizeof metal, "%s/metal.glb", root);
    CHECK(write_metal_source(metal));
    test_source("metal", metal);
    const char *models_dir = check_models_dir();
    DIR *models = opendir(models_dir);
    struct dirent *entry;
    int sources = 0;
    while (models != NULL && (entry = readdir(models)) != NULL) {
        size_t length = strlen(entry->d_name);
        if (length > 4 && strcmp(entry->d_name + length - 4, ".glb") == 0) {
            char path[1200], label[300];
            snprintf(path, sizeof path, "%s/%s", models_dir, entry->d_name);
            snprintf(label, sizeof label, "%.*s", (int)(length - 4), entry->d_name);
            test_source(label, path);
            sources++;
        }
    }
    if (models != NULL) {
        closedir(models);
    }
    /* An empty folder is as absent as a missing one. */
    if (sources == 0) {
        printf("SKIP: no .glb in %s (../shared/models absent)\n", models_dir);
        check_skips++;
    }
    test_builtin();
    test_remove_tree(root);
    return check_finish();
}
