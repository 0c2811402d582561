/* test_import_gltf - crowd's glTF reader on malformed and real input.
 *
 * Every rule of the reader is hit by a file crafted here, in memory,
 * through crowd_import_memory: each case mutates one member of a small
 * valid skinned, animated triangle (written below from the glTF 2.0
 * specification, with a sparse accessor), which itself must import, as
 * .gltf with a data: URI and as .glb; the import must fail with the rule's
 * result and a reason naming the JSON path of the problem. Then every glTF
 * file of assimp-testmodels must import or be refused for a named rule
 * (a table below, one reason per file), and a glTF file must be parsed
 * exactly once per import (the reader's debug trace, counted). */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/import.h"

/* ---- helpers ---- */

static crowd_result import_bytes(const void *bytes, size_t size, const char *name,
                                 crowd_error *error) {
    crowd_asset *asset = NULL;
    memset(error, 0, sizeof *error);
    crowd_result result = crowd_import_memory(bytes, size, name, NULL, &asset, error);
    CHECK_MSG(result == CROWD_OK || asset == NULL, "%s: asset returned on failure", name);
    crowd_asset_destroy(asset);
    return result;
}

/* The import of `bytes` fails with `expected` and a reason containing `part`. */
static void expect_reject(const void *bytes, size_t size, const char *name, crowd_result expected,
                          const char *part) {
    crowd_error error;
    crowd_result result = import_bytes(bytes, size, name, &error);
    CHECK_MSG(result == expected && strstr(error.reason, part) != NULL,
              "%s: %s '%s', expected %s with '%s'", name, crowd_result_str(result), error.reason,
              crowd_result_str(expected), part);
    CHECK_MSG(strcmp(error.file, name) == 0, "%s: error names '%s'", name, error.file);
    printf("  %-24s %s\n", name, error.reason);
}

static void put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
/* ---- glTF ---- */

/* A triangle skinned to joints "hip" (at the origin) and "tip" (at y = 1),
 * a clip rotating "tip", and an unused accessor of zeros with one sparse
 * value. Byte layout of the binary buffer (the views of the JSON below):
 * positions 0, joints 36, weights 60, indices 108, inverse binds 116,
 * times 244, rotations 252, sparse indices 284, sparse values 288. */
#define BIN_SIZE 300u

static void make_bin(uint8_t *bin) {
    memset(bin, 0, BIN_SIZE);
    float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    uint16_t joints[12] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
    float weights[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    uint16_t indices[3] = {0, 1, 2};
    float inverse_binds[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0,  0, 1,
                               1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1};
    float times[2] = {0, 1};
    float rotations[8] = {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f};
    uint16_t sparse_index = 1;
    float sparse_value[3] = {5, 5, 5};
    memcpy(bin, positions, sizeof positions);
    memcpy(bin + 36, joints, sizeof joints);
    memcpy(bin + 60, weights, sizeof weights);
    memcpy(bin + 108, indices, sizeof indices);
    memcpy(bin + 116, inverse_binds, sizeof inverse_binds);
    memcpy(bin + 244, times, sizeof times);
    memcpy(bin + 252, rotations, sizeof rotations);
    memcpy(bin + 284, &sparse_index, sizeof sparse_index);
    memcpy(bin + 288, sparse_value, sizeof sparse_value);
}

static const char base_json[] =
    "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
    "\"nodes\":[{\"name\":\"root\",\"children\":[1,2]},{\"name\":\"body\",\"mesh\":0,\"skin\":0},"
    "{\"name\":\"hip\",\"children\":[3]},{\"name\":\"tip\",\"translation\":[0,1,0]}],"
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2},"
    "\"indices\":3,\"material\":0}]}],"
    "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorFactor\":[1,1,1,1]}}],"
    "\"skins\":[{\"joints\":[2,3],\"inverseBindMatrices\":4}],"
    "\"animations\":[{\"name\":\"wave\",\"samplers\":[{\"input\":5,\"output\":6}],"
    "\"channels\":[{\"sampler\":0,\"target\":{\"node\":3,\"path\":\"rotation\"}}]}],"
    "\"buffers\":[{\"byteLength\":300}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},"
    "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":24},{\"buffer\":0,\"byteOffset\":60,"
    "\"byteLength\":48},"
    "{\"buffer\":0,\"byteOffset\":108,\"byteLength\":6},{\"buffer\":0,\"byteOffset\":116,"
    "\"byteLength\":128},"
    "{\"buffer\":0,\"byteOffset\":244,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":252,"
    "\"byteLength\":32},"
    "{\"buffer\":0,\"byteOffset\":284,\"byteLength\":2},{\"buffer\":0,\"byteOffset\":288,"
    "\"byteLength\":12}],"
    "\"accessors\":["
    "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],"
    "\"max\":[1,1,0]},"
    "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"VEC4\"},"
    "{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},"
    "{\"bufferView\":3,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"},"
    "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"},"
    "{\"bufferView\":5,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":["
    "1]},"
    "{\"bufferView\":6,\"componentType\":5126,\"count\":2,\"type\":\"VEC4\"},"
    "{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"sparse\":{\"count\":1,"
    "\"indices\":{\"bufferView\":7,\"componentType\":5123},\"values\":{\"bufferView\":8}}}]}";

/* Sets the member at `path` ("accessors/0/count": keys and array indices)
 * to the JSON `value`, adding a missing last key; value NULL removes it. */
static char *mutate(const char *json, const char *path, const char *value) {
    cJSON *root = cJSON_Parse(json);
    cJSON *parent = root;
    char copy[128];
    snprintf(copy, sizeof copy, "%s", path);
    char *key = strtok(copy, "/"), *next;
    while (parent != NULL && (next = strtok(NULL, "/")) != NULL) {
        parent = cJSON_IsArray(parent) ? cJSON_GetArrayItem(parent, atoi(key))
                                       : cJSON_GetObjectItemCaseSensitive(parent, key);
        key = next;
    }
    CHECK_MSG(parent != NULL, "mutate: no %s", path);
    if (parent == NULL) {
        cJSON_Delete(root);
        return NULL;
    }
    if (cJSON_IsArray(parent)) {
        if (value != NULL) {
            cJSON_ReplaceItemInArray(parent, atoi(key), cJSON_Parse(value));
        } else {
            cJSON_DeleteItemFromArray(parent, atoi(key));
        }
    } else {
        cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
        if (value != NULL) {
            cJSON_AddItemToObject(parent, key, cJSON_Parse(value));
        }
    }
    char *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return out;
}

static const char base64_chars[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The JSON with buffer 0 as a base64 data: URI of the binary buffer. */
static size_t make_gltf(const char *json, char *out, size_t capacity) {
    uint8_t bin[BIN_SIZE];
    make_bin(bin);
    char uri[64 + BIN_SIZE / 3 * 4 + 8] = "\"data:application/octet-stream;base64,";
    size_t at = strlen(uri);
    for (size_t i = 0; i < BIN_SIZE; i += 3) { /* 300 is a multiple of 3: no padding */
        uint32_t v = (uint32_t)bin[i] << 16 | (uint32_t)bin[i + 1] << 8 | bin[i + 2];
        for (int k = 3; k >= 0; k--) {
            uri[at++] = base64_chars[(v >> (6 * k)) & 63];
        }
    }
    uri[at++] = '"';
    uri[at] = '\0';
    cJSON *root = cJSON_Parse(json);
    cJSON *buffer = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "buffers"), 0);
    if (buffer != NULL && cJSON_GetObjectItem(buffer, "uri") == NULL) {
        cJSON_AddItemToObject(buffer, "uri", cJSON_Parse(uri));
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    size_t size = text ? strlen(text) : 0;
    CHECK(size < capacity);
    memcpy(out, text ? text : "", size < capacity ? size : 0);
    free(text);
    return size < capacity ? size : 0;
}

/* GLB: header, JSON chunk padded with spaces, BIN chunk padded with zeros. */
static size_t make_glb(const char *json, uint8_t *out, size_t capacity) {
    size_t json_size = (strlen(json) + 3) & ~(size_t)3, bin_size = (BIN_SIZE + 3) & ~3u;
    size_t total = 12 + 8 + json_size + 8 + bin_size;
    CHECK(total <= capacity);
    if (total > capacity) {
        return 0;
    }
    memcpy(out, "glTF", 4);
    put_u32(out + 4, 2);
    put_u32(out + 8, (uint32_t)total);
    put_u32(out + 12, (uint32_t)json_size);
    memcpy(out + 16, "JSON", 4);
    memset(out + 20, ' ', json_size);
    memcpy(out + 20, json, strlen(json));
    uint8_t *chunk = out + 20 + json_size;
    put_u32(chunk, (uint32_t)bin_size);
    memcpy(chunk + 4, "BIN\0", 4);
    make_bin(chunk + 8);
    return total;
}

static uint8_t file_bytes[1 << 14];

/* Applies path/value pairs (NULL-terminated) to the base document. */
static char *mutated(const char *const *changes) {
    char *json = mutate(base_json, "asset/generator", "\"test_import_gltf\"");
    for (size_t i = 0; json != NULL && changes[i] != NULL; i += 2) {
        char *next = mutate(json, changes[i], changes[i + 1]);
        free(json);
        json = next;
    }
    return json;
}

/* Both containers of the base document with `changes` must fail with
 * `expected` and a reason containing `part`. */
static void expect_gltf(const char *label, const char *const *changes, crowd_result expected,
                        const char *part) {
    char *json = mutated(changes);
    if (json == NULL) {
        return;
    }
    char name[64];
    snprintf(name, sizeof name, "%s.gltf", label);
    expect_reject(file_bytes, make_gltf(json, (char *)file_bytes, sizeof file_bytes), name,
                  expected, part);
    snprintf(name, sizeof name, "%s.glb", label);
    expect_reject(file_bytes, make_glb(json, file_bytes, sizeof file_bytes), name, expected, part);
    free(json);
}

/* Both containers of the base document with `changes` import; returns the
 * .glb's asset (the caller destroys it), NULL when either failed. */
static crowd_asset *expect_gltf_import(const char *label, const char *const *changes) {
    char *json = mutated(changes);
    crowd_asset *assets[2] = {NULL, NULL};
    for (int container = 0; json != NULL && container < 2; container++) {
        size_t size = container == 0 ? make_gltf(json, (char *)file_bytes, sizeof file_bytes)
                                     : make_glb(json, file_bytes, sizeof file_bytes);
        char name[64];
        snprintf(name, sizeof name, "%s.%s", label, container == 0 ? "gltf" : "glb");
        crowd_error error = {0};
        crowd_result result =
            crowd_import_memory(file_bytes, size, name, NULL, &assets[container], &error);
        CHECK_MSG(result == CROWD_OK, "%s: %s", name, error.reason);
    }
    free(json);
    crowd_asset_destroy(assets[0]);
    return assets[1];
}

#define CHANGES(...) ((const char *const[]){__VA_ARGS__, NULL})
#define INVALID CROWD_ERROR_INVALID_DATA

static void check_gltf_valid(void) {
    char *json = mutated(CHANGES("asset/generator", "\"base\""));
    if (json == NULL) {
        return;
    }
    for (int container = 0; container < 2; container++) {
        size_t size = container == 0 ? make_gltf(json, (char *)file_bytes, sizeof file_bytes)
                                     : make_glb(json, file_bytes, sizeof file_bytes);
        const char *name = container == 0 ? "base.gltf" : "base.glb";
        crowd_asset *asset = NULL;
        crowd_error error = {0};
        crowd_result result = crowd_import_memory(file_bytes, size, name, NULL, &asset, &error);
        CHECK_MSG(result == CROWD_OK, "%s: %s", name, error.reason);
        CHECK(asset == NULL || (asset->skeleton.joint_count >= 2 && asset->clip_count == 1 &&
                                asset->mesh.index_count == 3));
        crowd_asset_destroy(asset);
    }
    free(json);
    /* Textures, samplers and images that are all there import (the image,
     * not a PNG, is left out with a warning). */
    json = mutated(CHANGES(
        "materials/0/normalTexture", "{\"index\":0}", "textures", "[{\"source\":0,\"sampler\":0}]",
        "samplers", "[{}]", "images", "[{\"bufferView\":0,\"mimeType\":\"image/png\"}]", "cameras",
        "[{\"type\":\"perspective\",\"perspective\":{\"yfov\":1,\"znear\":0.1}}]", "nodes/0/camera",
        "0", "meshes/0/primitives/0/targets", "[{\"POSITION\":0}]",
        "materials/0/pbrMetallicRoughness/baseColorTexture", "{\"index\":0}"));
    crowd_error error = {0};
    size_t size = make_glb(json, file_bytes, sizeof file_bytes);
    CHECK_MSG(import_bytes(file_bytes, size, "textured.glb", &error) == CROWD_OK,
              "textured.glb: %s", error.reason);
    free(json);
    /* Joints up to a scene root are fine when assimp adds its own root above two. */
    json = mutated(
        CHANGES("skins/0/joints", "[0,2]", "scenes/0/nodes", "[0,1]", "nodes/0/children", "[2]"));
    size = make_glb(json, file_bytes, sizeof file_bytes);
    CHECK_MSG(import_bytes(file_bytes, size, "two_roots.glb", &error) == CROWD_OK,
              "two_roots.glb: %s", error.reason);
    free(json);
}

static void check_gltf_structure(void) {
    expect_gltf("not_array", CHANGES("meshes", "{}"), INVALID, "meshes is not an array");
    expect_gltf("not_object", CHANGES("nodes/1", "5"), INVALID, "nodes[1] is not an object");
    expect_gltf("scene", CHANGES("scene", "4"), INVALID,
                "scene names scenes[4], which does not exist (the file has 1)");
    expect_gltf("external", CHANGES("buffers/0/uri", "\"triangle.bin\""), CROWD_ERROR_UNSUPPORTED,
                "not read from memory");
    expect_gltf("view_past_buffer", CHANGES("bufferViews/8/byteLength", "20"), INVALID,
                "bufferViews[8]: bytes [288, 308) are outside buffers[0] (300 bytes)");
    expect_gltf("view_buffer", CHANGES("bufferViews/0/buffer", "3"), INVALID,
                "bufferViews[0].buffer names buffers[3], which does not exist (the file has 1)");
    expect_gltf("view_stride", CHANGES("bufferViews/0/byteStride", "256"), INVALID,
                "bufferViews[0].byteStride is not an integer in [4, 252]");
}

static void check_gltf_buffers(void) {
    /* byteLength beyond the data actually present, per container. */
    char *json = mutated(CHANGES("buffers/0/byteLength", "400"));
    expect_reject(file_bytes, make_gltf(json, (char *)file_bytes, sizeof file_bytes),
                  "long_uri.gltf", INVALID, "data: URI holds 300 bytes, byteLength says 400");
    expect_reject(file_bytes, make_glb(json, file_bytes, sizeof file_bytes), "long_bin.glb",
                  INVALID, "byteLength 400 exceeds the GLB binary chunk (300 bytes)");
    free(json);
    json = mutated(CHANGES("asset/generator", "\"glb\""));
    size_t size = make_glb(json, file_bytes, sizeof file_bytes);
    free(json);
    put_u32(file_bytes + 8, (uint32_t)size + 4);
    expect_reject(file_bytes, size, "glb_length.glb", INVALID, "GLB header says");
    uint32_t json_size = file_bytes[12] | (uint32_t)file_bytes[13] << 8;
    /* A total below the header's own 20 bytes, and a 2 GiB JSON chunk. */
    put_u32(file_bytes + 8, 0);
    put_u32(file_bytes + 12, 0x800d022cu);
    expect_reject(file_bytes, size, "glb_total.glb", INVALID, "not a JSON chunk inside the file");
    put_u32(file_bytes + 8, (uint32_t)size);
    put_u32(file_bytes + 12, json_size);
    put_u32(file_bytes + 20 + json_size, BIN_SIZE + 8);
    expect_reject(file_bytes, size, "bin_length.glb", INVALID,
                  "binary chunk of 308 bytes runs past");
    put_u32(file_bytes + 20 + json_size, BIN_SIZE);
    file_bytes[20] = '[';
    expect_reject(file_bytes, size, "json_chunk.glb", INVALID, "GLB JSON chunk is malformed");
}

/* Which bytes are checked as glTF 2.0: what assimp's reader takes. */
static void check_gltf_detection(void) {
    /* A GLB of version 2 is glTF 2.0 whatever its asset says, text when
     * asset.version starts with '2'. */
    char *json = mutated(CHANGES("asset", NULL, "skins/0/inverseBindMatrices", NULL));
    size_t size = make_glb(json, file_bytes, sizeof file_bytes);
    crowd_error error = {0};
    CHECK_MSG(import_bytes(file_bytes, size, "no_asset.glb", &error) == CROWD_OK,
              "no_asset.glb: %s", error.reason);
    free(json);
    json = mutated(CHANGES("asset/version", "\"2\"", "skins/0/inverseBindMatrices", NULL));
    size = make_gltf(json, (char *)file_bytes, sizeof file_bytes);
    CHECK_MSG(import_bytes(file_bytes, size, "version_2.gltf", &error) == CROWD_OK,
              "version_2.gltf: %s", error.reason);
    free(json);
    json = mutated(CHANGES("asset/version", "\"3.0\""));
    size = make_gltf(json, (char *)file_bytes, sizeof file_bytes);
    expect_reject(file_bytes, size, "version_3.gltf", CROWD_ERROR_UNSUPPORTED,
                  "asset.version is 3.0 (crowd reads glTF 2.0)");
    free(json);
    /* A .glb that is no glTF at all (OpenGEX text found fuzzing, which assimp's
     * OpenGEX reader, tried by content, reads past its buffer). */
    static const char ogex[] = "Metric {float {1.0}} GeometryObject { VertexArray (attrib";
    expect_reject(ogex, strlen(ogex), "ogex.glb", INVALID,
                  "named .glb but neither a GLB nor glTF JSON");
    /* Deeper than cJSON parses: refused, not handed to another parser. */
    static char deep[4096];
    int n = snprintf(deep, sizeof deep, "{\"asset\":{\"version\":\"2.0\"},\"extras\":");
    for (int i = 0; i < 1100; i++) {
        deep[n++] = '[';
    }
    for (int i = 0; i < 1100; i++) {
        deep[n++] = ']';
    }
    deep[n++] = '}';
    expect_reject(deep, (size_t)n, "deep.gltf", INVALID, "starts as JSON but is not valid JSON");
}

static void check_gltf_accessors(void) {
    expect_gltf("type", CHANGES("accessors/0/type", "\"VEC5\""), INVALID,
                "accessors[0].type is missing or not SCALAR, VEC2-4 or MAT2-4");
    expect_gltf("component", CHANGES("accessors/0/componentType", "5124"), INVALID,
                "accessors[0].componentType is missing or not one of 5120-5123, 5125, 5126");
    expect_gltf("normalized", CHANGES("accessors/5/normalized", "true"), INVALID,
                "accessors[5].normalized is not false for componentType 5126");
    expect_gltf("count", CHANGES("accessors/0/count", "0"), INVALID,
                "accessors[0].count is missing or < 1");
    expect_gltf(
        "offset", CHANGES("accessors/6/byteOffset", "4"), INVALID,
        "accessors[6] needs bytes [4, 36) of bufferViews[6], which has 32 (4 bytes past its end)");
    expect_gltf(
        "past_view", CHANGES("accessors/0/count", "4"), INVALID,
        "accessors[0] needs bytes [0, 48) of bufferViews[0], which has 36 (12 bytes past its end)");
    expect_gltf("stride", CHANGES("bufferViews/0/byteStride", "8"), INVALID,
                "accessors[0]: bufferViews[0].byteStride 8 is smaller than an element (12 bytes)");
    expect_gltf("zeros", CHANGES("accessors/7/count", "10000000"), CROWD_ERROR_LIMIT,
                "accessors[7]: 120000000 bytes without a bufferView, more than the 64 MiB allowed");
    expect_gltf("sparse_span", CHANGES("accessors/7/sparse/count", "2"), INVALID,
                "accessors[7].sparse.indices needs bytes [0, 4) of bufferViews[7], which has 2 (2 "
                "bytes past its end)");
    expect_gltf("sparse_past", CHANGES("accessors/7/count", "1"), INVALID,
                "accessors[7].sparse: index 0 (1) is past the accessor's count");
    /* As unsigned bytes, the index bytes 01 00 are the indices 1, 0. */
    expect_gltf("sparse_order",
                CHANGES("accessors/7/sparse/count", "2", "accessors/7/sparse/indices/componentType",
                        "5121", "accessors/7/sparse/values/bufferView", "4"),
                INVALID, "accessors[7].sparse: index 1 (0) is not increasing");
    expect_gltf("sparse_type", CHANGES("accessors/7/sparse/indices/componentType", "5126"), INVALID,
                "accessors[7].sparse is malformed (count in [1, 3], indices and values with "
                "bufferView, byteOffset, an unsigned componentType for indices)");
}

static void check_gltf_meshes(void) {
    expect_gltf("no_primitives", CHANGES("meshes/0/primitives", "[]"), INVALID,
                "meshes[0].primitives is missing or empty");
    expect_gltf("no_position", CHANGES("meshes/0/primitives/0/attributes/POSITION", NULL), INVALID,
                "meshes[0].primitives[0].attributes.POSITION is missing");
    expect_gltf("attribute", CHANGES("meshes/0/primitives/0/attributes/NORMAL", "9"), INVALID,
                "meshes[0].primitives[0].attributes.NORMAL names accessors[9], which does not "
                "exist (the file has 8)");
    expect_gltf("short_attribute", CHANGES("meshes/0/primitives/0/attributes/TEXCOORD_0", "6"),
                INVALID,
                "meshes[0].primitives[0].attributes.TEXCOORD_0 has 2 elements, POSITION has 3");
    expect_gltf("index_type", CHANGES("meshes/0/primitives/0/indices", "0"), INVALID,
                "meshes[0].primitives[0].indices: accessors[0] is not SCALAR of unsigned integers");
    /* The identity matrix's 1.0f (00 00 80 3F) read as 16-bit indices: 0, 16256, 0. */
    expect_gltf("index_value", CHANGES("accessors/3/bufferView", "4"), INVALID,
                "meshes[0].primitives[0].indices: index 1 is 16256, the primitive has 3 vertices");
    expect_gltf("material", CHANGES("meshes/0/primitives/0/material", "2"), INVALID,
                "meshes[0].primitives[0].material names materials[2], which does not exist (the "
                "file has 1)");
    expect_gltf("mode", CHANGES("meshes/0/primitives/0/mode", "7"), INVALID,
                "mode is not one of 0-6");
    /* assimp 5.2: count - 2 triangles of a strip, an assertion on a loop of one. */
    /* A strip of one index holds no triangle; a line loop is no triangle either. */
    expect_gltf("strip", CHANGES("meshes/0/primitives/0/mode", "5", "accessors/3/count", "1"),
                CROWD_ERROR_UNSUPPORTED, "no triangles: crowd plays triangle meshes only");
    expect_gltf("loop", CHANGES("meshes/0/primitives/0/mode", "2", "accessors/3/count", "1"),
                CROWD_ERROR_UNSUPPORTED, "no triangles: crowd plays triangle meshes only");
    expect_gltf("target", CHANGES("meshes/0/primitives/0/targets", "[{\"POSITION\":6}]"), INVALID,
                "meshes[0].primitives[0].targets[0].POSITION has 2 elements, POSITION has 3");
    expect_gltf("texture_info", CHANGES("materials/0/normalTexture", "{\"index\":0}"), INVALID,
                "materials[0].normalTexture.index names textures[0], which does not exist (the "
                "file has 0)");
    expect_gltf("base_color", CHANGES("materials/0/pbrMetallicRoughness/baseColorTexture", "{}"),
                INVALID, "materials[0].pbrMetallicRoughness.baseColorTexture.index is missing");
    expect_gltf("texture_source", CHANGES("textures", "[{\"source\":1}]"), INVALID,
                "textures[0].source names images[1], which does not exist (the file has 0)");
    expect_gltf(
        "image_view", CHANGES("images", "[{\"bufferView\":12}]"), INVALID,
        "images[0].bufferView names bufferViews[12], which does not exist (the file has 9)");
}

static void check_gltf_nodes(void) {
    expect_gltf("child_range", CHANGES("nodes/0/children", "[1,2,9]"), INVALID,
                "nodes[0].children[2] is not one of the 4 nodes");
    expect_gltf("own_child", CHANGES("nodes/2/children", "[2]"), INVALID,
                "nodes[2] is its own child");
    expect_gltf("two_parents", CHANGES("nodes/2/children", "[3,1]"), INVALID,
                "nodes[1] is a child of both nodes[0] and nodes[2]");
    expect_gltf("cycle", CHANGES("nodes/0/children", "[1]", "nodes/3/children", "[2]"), INVALID,
                "nodes[2] is its own ancestor (the node hierarchy has a cycle)");
    expect_gltf("node_mesh", CHANGES("nodes/1/mesh", "1"), INVALID,
                "nodes[1].mesh names meshes[1], which does not exist (the file has 1)");
    expect_gltf("node_skin", CHANGES("nodes/1/skin", "-1"), INVALID,
                "nodes[1].skin is not an index");
    expect_gltf("node_camera", CHANGES("nodes/1/camera", "0"), INVALID,
                "nodes[1].camera names cameras[0], which does not exist (the file has 0)");
    expect_gltf("scene_nodes", CHANGES("scenes/0/nodes", "[4]"), INVALID,
                "scenes[0].nodes[0] is not one of the 4 nodes");
    expect_gltf("skin_joints", CHANGES("skins/0/joints", NULL), INVALID,
                "skins[0].joints is missing");
    expect_gltf("skin_joint", CHANGES("skins/0/joints", "[2,7]"), INVALID,
                "skins[0].joints[1] is not one of the 4 nodes");
    /* Without inverseBindMatrices every inverse bind is identity (the
     * specification's default). */
    crowd_asset *asset =
        expect_gltf_import("skin_no_binds", CHANGES("skins/0/inverseBindMatrices", NULL));
    int32_t tip = asset ? crowd_asset_find_joint(asset, "tip") : -1;
    CHECK(tip >= 0);
    for (int e = 0; tip >= 0 && e < 16; e++) {
        CHECK(asset->skeleton.inverse_bind[16 * tip + e] == (e % 5 == 0 ? 1.0f : 0.0f));
    }
    crowd_asset_destroy(asset);
    /* Skeletons assimp 5.2 aborted on import: a joint at the scene's one
     * root, a node named like a joint, a joint named ROOT above two roots. */
    asset = expect_gltf_import("joint_root", CHANGES("skins/0/joints", "[0,2]"));
    CHECK(asset && crowd_asset_find_joint(asset, "root") == 0 &&
          asset->skeleton.parents[crowd_asset_find_joint(asset, "hip")] == 0);
    crowd_asset_destroy(asset);
    asset = expect_gltf_import("joint_name", CHANGES("nodes/0/name", "\"hip\""));
    CHECK(asset && asset->skeleton.joint_count >= 2);
    crowd_asset_destroy(asset);
    asset = expect_gltf_import("joint_added_root",
                               CHANGES("skins/0/joints", "[0,2]", "scenes/0/nodes", "[0,1]",
                                       "nodes/0/children", "[2]", "nodes/2/name", "\"ROOT\""));
    CHECK(asset && crowd_asset_find_joint(asset, "ROOT") >= 0);
    crowd_asset_destroy(asset);
    expect_gltf("skin_skeleton", CHANGES("skins/0/skeleton", "9"), INVALID,
                "skins[0].skeleton names nodes[9], which does not exist (the file has 4)");
    expect_gltf("skin_type", CHANGES("skins/0/inverseBindMatrices", "6"), INVALID,
                "skins[0].inverseBindMatrices: accessors[6] is not MAT4 of floats");
    expect_gltf("skin_count", CHANGES("skins/0/joints", "[2,3,0]"), INVALID,
                "skins[0]: 3 joints, inverseBindMatrices accessors[4] has 2 matrices");
}

static void check_gltf_animations(void) {
    expect_gltf("no_samplers", CHANGES("animations/0/samplers", NULL), INVALID,
                "animations[0]: samplers or channels is missing or not an array");
    expect_gltf("no_input", CHANGES("animations/0/samplers/0/input", NULL), INVALID,
                "animations[0].samplers[0].input is missing");
    expect_gltf("output", CHANGES("animations/0/samplers/0/output", "99"), INVALID,
                "animations[0].samplers[0].output names accessors[99], which does not exist (the "
                "file has 8)");
    expect_gltf("interpolation", CHANGES("animations/0/samplers/0/interpolation", "\"SMOOTH\""),
                INVALID, "unknown interpolation 'SMOOTH'");
    expect_gltf(
        "cubic", CHANGES("animations/0/samplers/0/interpolation", "\"CUBICSPLINE\""), INVALID,
        "animations[0].samplers[0]: 2 keys need 6 output elements, the output accessor has 2");
    expect_gltf(
        "channel_sampler", CHANGES("animations/0/channels/0/sampler", "1"), INVALID,
        "animations[0].channels[0].sampler is missing or not one of the animation's 1 samplers");
    expect_gltf("channel_target", CHANGES("animations/0/channels/0/target", NULL), INVALID,
                "animations[0].channels[0].target is missing or not an object");
    expect_gltf("channel_node", CHANGES("animations/0/channels/0/target/node", "4"), INVALID,
                "animations[0].channels[0].target.node names nodes[4], which does not exist (the "
                "file has 4)");
}

/* ---- extensions crowd's reader lacks: handed to assimp ---- */

typedef struct warnings {
    int count;
    char first[512];
} warnings;

static void keep_warning(void *user, crowd_log_level level, const char *message) {
    warnings *w = user;
    if (level == CROWD_LOG_WARNING && w->count++ == 0) {
        snprintf(w->first, sizeof w->first, "%s", message);
    }
}

/* `json` imported from memory (as GLB), through the helper and in process:
 * assimp reads it, the repairs and one warning say so, naming `extension`. */
static void expect_handover(const char *json, const char *name, const char *extension) {
    size_t size = make_glb(json, file_bytes, sizeof file_bytes);
    for (int in_process = 0; in_process < 2; in_process++) {
        warnings w = {0};
        crowd_import_desc desc = {0};
        desc.in_process = in_process == 1;
        desc.logger = (crowd_logger){keep_warning, &w};
        crowd_asset *asset = NULL;
        crowd_error error = {0};
        crowd_result result = crowd_import_memory(file_bytes, size, name, &desc, &asset, &error);
        CHECK_MSG(result == CROWD_OK, "%s: %s", name, error.reason);
        if (asset != NULL) {
            CHECK_MSG(asset->repairs.gltf_read_by_assimp == 1 && asset->mesh.vertex_count == 3 &&
                          asset->mesh.index_count == 3,
                      "%s: read_by_assimp %u, %u vertices, %u indices", name,
                      asset->repairs.gltf_read_by_assimp, asset->mesh.vertex_count,
                      asset->mesh.index_count);
        }
        CHECK_MSG(w.count == 1 && strstr(w.first, extension) != NULL &&
                      strstr(w.first, "read by assimp instead") != NULL,
                  "%s: %d warnings, first '%s'", name, w.count, w.first);
        printf("  %-24s %s\n", name, w.first);
        crowd_asset_destroy(asset);
    }
}

static void check_gltf_handover(void) {
    /* Required Draco (or an extension crowd does not know) with the core
     * attributes still there: assimp reads those. */
    char *json = mutated(CHANGES("extensionsRequired", "[\"KHR_draco_mesh_compression\"]",
                                 "extensionsUsed", "[\"KHR_draco_mesh_compression\"]"));
    expect_handover(json, "draco.glb", "extensionsRequired names KHR_draco_mesh_compression");
    free(json);
    json = mutated(CHANGES("extensionsRequired",
                           "[\"KHR_mesh_quantization\",\"EXT_crowd_unknown\",\"KHR_lights_"
                           "punctual\",\"EXT_crowd_other\"]"));
    expect_handover(json, "unknown.glb",
                    "extensionsRequired names EXT_crowd_unknown, EXT_crowd_other, which crowd's "
                    "glTF reader lacks");
    free(json);
    /* What only changes shading stays with crowd's reader, named in a warning. */
    json = mutated(CHANGES("extensionsRequired", "[\"KHR_materials_unlit\"]"));
    size_t size = make_glb(json, file_bytes, sizeof file_bytes);
    warnings w = {0};
    crowd_import_desc desc = {0};
    desc.logger = (crowd_logger){keep_warning, &w};
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    CHECK_MSG(crowd_import_memory(file_bytes, size, "unlit.glb", &desc, &asset, &error) == CROWD_OK,
              "unlit.glb: %s", error.reason);
    CHECK(asset == NULL || asset->repairs.gltf_read_by_assimp == 0);
    CHECK_MSG(w.count == 1 && strstr(w.first, "required extension KHR_materials_unlit is not read"),
              "unlit.glb: %d warnings, first '%s'", w.count, w.first);
    crowd_asset_destroy(asset);
    free(json);
    /* Where assimp cannot read it either, the error names the extension. */
    json = mutated(CHANGES("extensionsRequired", "[\"EXT_crowd_unknown\"]", "buffers/0/uri",
                           "\"missing.bin\""));
    size = make_gltf(json, (char *)file_bytes, sizeof file_bytes);
    expect_reject(file_bytes, size, "unknown_missing.gltf", CROWD_ERROR_UNSUPPORTED,
                  "extensionsRequired names EXT_crowd_unknown, which crowd's glTF reader lacks, "
                  "and assimp cannot read it either (");
    free(json);
}

/* ---- real files ---- */

/* What crowd does with each glTF 2.0 file of assimp-testmodels: imported,
 * or refused with a reason that contains `rule` (each the specification's,
 * or what crowd plays: triangles). The glTF 1.0
 * files of glTF/ are assimp's (its glTF 1.0 reader), not listed here. */
typedef struct expected_file {
    const char *path;
    const char *rule; /* NULL: imports */
} expected_file;

static const expected_file testmodels[] = {
    {"glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb", NULL},
    {"glTF2/BoxBadNormals-glTF-Binary/BoxBadNormals.glb", NULL},
    {"glTF2/BoxTexcoords-glTF/boxTexcoords.gltf", NULL},
    {"glTF2/BoxTextured-glTF-Binary/BoxTextured.glb", NULL},
    {"glTF2/BoxTextured-glTF-Embedded/BoxTextured.gltf", NULL},
    {"glTF2/BoxTextured-glTF-pbrSpecularGlossiness/BoxTextured.gltf", NULL},
    {"glTF2/BoxTextured-glTF-techniqueWebGL/BoxTextured.gltf", NULL},
    {"glTF2/BoxTextured-glTF/BoxTextured.gltf", NULL},
    {"glTF2/BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb",
     "attributes.POSITION: vertex 0 is not finite"},
    {"glTF2/ClearCoat-glTF/ClearCoatTest.gltf", NULL},
    {"glTF2/IncorrectVertexArrays/Cube.gltf",
     "bufferViews[2]: bytes [504, 936) are outside buffers[0] (514 bytes)"},
    {"glTF2/IndexOutOfRange/AllIndicesOutOfRange.gltf",
     "indices: index 0 is 65535, the primitive has 24 vertices"},
    {"glTF2/IndexOutOfRange/IndexOutOfRange.gltf",
     "indices: index 0 is 255, the primitive has 24 vertices"},
    {"glTF2/MissingBin/BoxTextured.gltf", "BoxTextured0.bin: missing"},
    {"glTF2/RecursiveNodes/RecursiveNodes.gltf", "nodes[0] is its own ancestor"},
    {"glTF2/SchemaFailures/sceneWrongType.gltf", "scene is not an index"},
    {"glTF2/TestNoRootNode/NoScene.gltf", "scene names scenes[0], which does not exist"},
    {"glTF2/TestNoRootNode/SceneWithoutNodes.gltf", "no meshes"},
    {"glTF2/cameras/Cameras.gltf", NULL},
    {"glTF2/draco/2CylinderEngine.gltf", NULL}, /* Draco: read by assimp (check_draco_file) */
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_00.gltf", "no triangles"},
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_01.gltf", "no triangles"},
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_02.gltf", "no triangles"},
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_03.gltf", "no triangles"},
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_04.gltf", NULL},
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_05.gltf", NULL},
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_06.gltf", NULL},
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_07.gltf", "no triangles"},
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_08.gltf", "no triangles"},
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_09.gltf", "no triangles"},
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_10.gltf", "no triangles"},
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_11.gltf", NULL},
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_12.gltf", NULL},
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_13.gltf", NULL},
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_14.gltf", NULL},
    {"glTF2/glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_15.gltf", NULL},
    {"glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf", NULL},
    {"glTF2/issue_3269/texcoord_crash.gltf", NULL},
    {"glTF2/simple_skin/simple_skin.gltf", NULL},
    {"glTF2/textureTransform/TextureTransformTest.gltf", NULL},
    {"glTF2/wrongTypes/badArray.gltf", "meshes[0].primitives is missing or empty"},
    {"glTF2/wrongTypes/badExtension.gltf",
     "baseColorTexture.extensions.KHR_texture_transform is not an object"},
    {"glTF2/wrongTypes/badNumber.gltf", "materials[0].normalTexture.index is missing"},
    {"glTF2/wrongTypes/badObject.gltf",
     "materials[0]: name, pbrMetallicRoughness or extensions is not of its type"},
    {"glTF2/wrongTypes/badString.gltf", "scenes[0]: name is not a string"},
    {"glTF2/wrongTypes/badUint.gltf", "baseColorTexture.index is not an index"},
};

static void check_testmodels(void) {
    for (size_t i = 0; i < sizeof testmodels / sizeof testmodels[0]; i++) {
        const char *path = check_assimp_model(testmodels[i].path);
        if (path == NULL) {
            continue;
        }
        crowd_asset *asset = NULL;
        crowd_error error = {0};
        crowd_result result = crowd_import_file(path, NULL, &asset, &error);
        const char *rule = testmodels[i].rule;
        if (rule == NULL) {
            CHECK_MSG(result == CROWD_OK, "%s: %s", testmodels[i].path, error.reason);
        } else {
            CHECK_MSG(result != CROWD_OK && asset == NULL && strstr(error.reason, rule) != NULL,
                      "%s: %s '%s', expected a refusal with '%s'", testmodels[i].path,
                      crowd_result_str(result), error.reason, rule);
        }
        printf("  %-70s %s\n", testmodels[i].path, result == CROWD_OK ? "imported" : error.reason);
        crowd_asset_destroy(asset);
    }
}

/* Draco geometry crowd's reader lacks, decoded by assimp: every triangle
 * the file's accessors declare (the index counts of every mesh node of the
 * scene, which Draco keeps in the JSON), at most as many vertices as its
 * POSITION accessors declare (assimp joins identical ones). */
static void check_draco_file(void) {
    const char *path = check_assimp_model("glTF2/draco/2CylinderEngine.gltf");
    if (path == NULL) {
        return;
    }
    FILE *file = fopen(path, "rb");
    static char text[1 << 20];
    size_t length = file ? fread(text, 1, sizeof text - 1, file) : 0;
    if (file != NULL) {
        fclose(file);
    }
    cJSON *root = cJSON_ParseWithLength(text, length);
    const cJSON *nodes = cJSON_GetObjectItem(root, "nodes");
    const cJSON *meshes = cJSON_GetObjectItem(root, "meshes");
    const cJSON *accessors = cJSON_GetObjectItem(root, "accessors");
    /* The scene's nodes, depth first (the file's hierarchy has no cycle). */
    int stack[1024], top = 0;
    const cJSON *scene = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "scenes"), 0);
    const cJSON *item;
    cJSON_ArrayForEach(item, cJSON_GetObjectItem(scene, "nodes")) {
        stack[top++] = item->valueint;
    }
    uint64_t triangles = 0, positions = 0;
    while (top > 0 && top < 1000) {
        const cJSON *node = cJSON_GetArrayItem(nodes, stack[--top]);
        const cJSON *mesh = cJSON_GetObjectItem(node, "mesh");
        const cJSON *primitive;
        cJSON_ArrayForEach(
            primitive, cJSON_GetObjectItem(cJSON_GetArrayItem(meshes, mesh ? mesh->valueint : -1),
                                           "primitives")) {
            int indices = cJSON_GetObjectItem(primitive, "indices")->valueint;
            int position =
                cJSON_GetObjectItem(cJSON_GetObjectItem(primitive, "attributes"), "POSITION")
                    ->valueint;
            triangles +=
                (uint64_t)cJSON_GetObjectItem(cJSON_GetArrayItem(accessors, indices), "count")
                    ->valueint /
                3;
            positions +=
                (uint64_t)cJSON_GetObjectItem(cJSON_GetArrayItem(accessors, position), "count")
                    ->valueint;
        }
        cJSON_ArrayForEach(item, cJSON_GetObjectItem(node, "children")) {
            stack[top++] = item->valueint;
        }
    }
    cJSON_Delete(root);
    CHECK(top == 0 && triangles > 0);
    warnings w = {0};
    crowd_import_desc desc = {0};
    desc.logger = (crowd_logger){keep_warning, &w};
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    CHECK_MSG(crowd_import_file(path, &desc, &asset, &error) == CROWD_OK, "%s: %s", path,
              error.reason);
    if (asset != NULL) {
        CHECK_MSG(asset->mesh.index_count / 3 == triangles && asset->mesh.vertex_count > 0 &&
                      asset->mesh.vertex_count <= positions &&
                      asset->repairs.gltf_read_by_assimp == 1,
                  "%s: %u triangles (the file declares %llu), %u vertices (of %llu), "
                  "read_by_assimp %u",
                  path, asset->mesh.index_count / 3, (unsigned long long)triangles,
                  asset->mesh.vertex_count, (unsigned long long)positions,
                  asset->repairs.gltf_read_by_assimp);
        printf("2CylinderEngine.gltf: %u triangles (declared %llu), %u vertices (declared %llu)\n",
               asset->mesh.index_count / 3, (unsigned long long)triangles, asset->mesh.vertex_count,
               (unsigned long long)positions);
    }
    CHECK_MSG(w.count == 1 && strstr(w.first, "KHR_draco_mesh_compression") != NULL,
              "%d warnings, first '%s'", w.count, w.first);
    crowd_asset_destroy(asset);
}

/* The reader says "glTF JSON parsed" at debug level each time it parses;
 * nothing else reads a glTF file (assimp sees one only when handed over). */
static void count_parses(void *user, crowd_log_level level, const char *message) {
    if (level == CROWD_LOG_DEBUG && strstr(message, "glTF JSON parsed") != NULL) {
        (*(int *)user)++;
    }
}

static void check_parsed_once(void) {
    static const char *const models[] = {"robot.glb", "RiggedFigure.glb", "greenman.glb"};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        const char *path = check_shared_model(models[i]);
        if (path == NULL) {
            continue;
        }
        int parses = 0;
        crowd_import_desc desc = {0};
        desc.logger = (crowd_logger){count_parses, &parses};
        crowd_asset *asset = NULL;
        crowd_error error = {0};
        CHECK_MSG(crowd_import_file(path, &desc, &asset, &error) == CROWD_OK, "%s: %s", path,
                  error.reason);
        CHECK_MSG(parses == 1, "%s: parsed %d times", path, parses);
        printf("%s: parsed %d time(s)\n", models[i], parses);
        crowd_asset_destroy(asset);
    }
    const char *simple = check_assimp_model("glTF2/simple_skin/simple_skin.gltf");
    if (simple != NULL) {
        int parses = 0;
        crowd_import_desc desc = {0};
        desc.logger = (crowd_logger){count_parses, &parses};
        crowd_asset *asset = NULL;
        crowd_error error = {0};
        CHECK(crowd_import_file(simple, &desc, &asset, &error) == CROWD_OK && parses == 1);
        crowd_asset_destroy(asset);
    }
}

int main(void) {
    check_enter_temp_dir("import_gltf");
    check_parsed_once();
    check_gltf_valid();
    check_gltf_structure();
    check_gltf_buffers();
    check_gltf_detection();
    check_gltf_accessors();
    check_gltf_meshes();
    check_gltf_nodes();
    check_gltf_animations();
    check_gltf_handover();
    check_testmodels();
    check_draco_file();
    return check_finish();
}
