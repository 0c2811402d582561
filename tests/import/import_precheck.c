/* test_import_precheck - the pre-check that runs on a file's bytes before
 * assimp 5.2 sees them (src/import/precheck*.c).
 *
 * Every rule is hit by a file crafted here, in memory, through
 * crowd_import_memory: the import must fail with the rule's result and a
 * reason naming the problem. The glTF cases mutate one member of a small
 * valid skinned, animated triangle (written below from the glTF 2.0
 * specification, with a sparse accessor), which itself must import, as
 * .gltf with a data: URI and as .glb. Then the malformed files of
 * assimp-testmodels must fail cleanly (OutOfMemory.off by the pre-check,
 * quickly), and every test character of ../shared/models, and the good
 * assimp-testmodels of each checked format, must pass the pre-check by
 * path and from memory: no false positives. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/import.h"
#include "import/precheck.h"

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

static void expect_reject_text(const char *text, const char *name, const char *part) {
    expect_reject(text, strlen(text), name, CROWD_ERROR_INVALID_DATA, part);
}

static void put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* ---- text and binary formats ---- */

static const char off_cube[] = "OFF\n8 6 12\n"
                               "0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n"
                               "4 0 3 2 1\n4 4 5 6 7\n4 0 1 5 4\n4 1 2 6 5\n4 2 3 7 6\n4 3 0 4 7\n";

static void check_off(void) {
    crowd_error error;
    CHECK_MSG(import_bytes(off_cube, strlen(off_cube), "cube.off", &error) == CROWD_OK,
              "cube.off: %s", error.reason);
    /* 3 vertices of "0 0 0\n" and a triangle take 6 x 3 + 4 bytes at least. */
    expect_reject_text("OFF\n3535352353 6 0\n0 0 0\n", "huge.off", "declares 3535352353 vertices");
    expect_reject_text("OFF\n3 4000000000 0\n0 0 0\n0 0 1\n0 1 0\n3 0 1 2\n", "faces.off",
                       "and 4000000000 faces");
    /* Comments and the optional letters, as assimp's header reader skips them. */
    expect_reject_text("# a comment\nCNOFF\n100 1 0\n0 0 0 0 0 1 1\n", "letters.off",
                       "100 vertices");
    /* "nOFF 1": one coordinate per vertex, so 50 vertices need 100 bytes. */
    expect_reject_text("nOFF 1\n50 1 0\n0\n0\n", "dimension.off", "50 vertices");
    /* No OFF keyword: the counts come first. */
    expect_reject_text("9999 1 0\n0 0 0\n", "bare.off", "9999 vertices");
}

static const char ply_ascii_cube[] =
    "ply\nformat ascii 1.0\ncomment a tetrahedron\nelement vertex 4\nproperty float x\n"
    "property float y\nproperty float z\nelement face 4\nproperty list uchar int vertex_indices\n"
    "end_header\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";

static void check_ply(void) {
    crowd_error error;
    CHECK_MSG(import_bytes(ply_ascii_cube, strlen(ply_ascii_cube), "tetra.ply", &error) == CROWD_OK,
              "tetra.ply: %s", error.reason);
    expect_reject_text("ply\nformat ascii 1.0\nelement vertex 4000000000\nproperty float x\n"
                       "property float y\nproperty float z\nend_header\n0 0 0\n",
                       "ascii.ply", "4000000000 'vertex' elements");
    /* A list of 200 items on a line with room for 3. */
    expect_reject_text(
        "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
        "property float z\nelement face 1\nproperty list uchar int vertex_indices\n"
        "end_header\n0 0 0\n1 0 0\n0 1 0\n200 0 1 2\n",
        "list.ply", "a list of 200 items");
    expect_reject_text(
        "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
        "property float z\nelement face 1\nproperty list int int vertex_indices\n"
        "end_header\n0 0 0\n1 0 0\n0 1 0\n-3 0 1 2\n",
        "negative.ply", "a list of -3 items");

    /* Binary: 3 vertices of 3 floats (36 bytes), one face "3 0 1 2". */
    static const char header[] =
        "ply\nformat binary_little_endian 1.0\nelement vertex 3\n"
        "property float x\nproperty float y\nproperty float z\n"
        "element face 1\nproperty list uchar uint vertex_indices\nend_header\n";
    uint8_t bytes[512];
    size_t h = strlen(header);
    memcpy(bytes, header, h);
    float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    memcpy(bytes + h, positions, sizeof positions);
    uint8_t *face = bytes + h + sizeof positions;
    face[0] = 3;
    put_u32(face + 1, 0);
    put_u32(face + 5, 1);
    put_u32(face + 9, 2);
    size_t size = h + sizeof positions + 13;
    CHECK_MSG(import_bytes(bytes, size, "binary.ply", &error) == CROWD_OK, "binary.ply: %s",
              error.reason);
    /* An element without properties takes no bytes: the walk stays aligned. */
    static const char marked[] = "ply\nformat binary_little_endian 1.0\nelement marker 2\n"
                                 "element vertex 3\nproperty float x\nproperty float y\n"
                                 "property float z\nelement face 1\n"
                                 "property list uchar uint vertex_indices\nend_header\n";
    uint8_t marked_bytes[512];
    memcpy(marked_bytes, marked, strlen(marked));
    memcpy(marked_bytes + strlen(marked), bytes + h, size - h);
    CHECK_MSG(import_precheck_memory(marked_bytes, strlen(marked) + size - h, "marked.ply",
                                     &error) == CROWD_OK,
              "marked.ply: %s", error.reason);
    face[0] = 200; /* 800 bytes of indices in a 13-byte face */
    expect_reject(bytes, size, "binary_list.ply", CROWD_ERROR_INVALID_DATA,
                  "a list of 200 items runs past");
    face[0] = 3;
    /* 12 bytes per vertex: 3 vertices need 36, the data has 35 before the face. */
    expect_reject(bytes, h + 35, "binary_short.ply", CROWD_ERROR_INVALID_DATA,
                  "3 'vertex' elements of at least 12 bytes");

    char many[4096] = "ply\nformat ascii 1.0\nelement vertex 1\n";
    for (int p = 0; p < 65; p++) {
        snprintf(many + strlen(many), sizeof many - strlen(many), "property float p%d\n", p);
    }
    strcat(many, "end_header\n0\n");
    expect_reject(many, strlen(many), "many.ply", CROWD_ERROR_UNSUPPORTED, "more than 64");
}

static void check_stl(void) {
    /* One triangle: 80-byte header, count, normal, 3 vertices, attribute. */
    uint8_t stl[134];
    memset(stl, 0, sizeof stl);
    put_u32(stl + 80, 1);
    float triangle[12] = {0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0};
    memcpy(stl + 84, triangle, sizeof triangle);
    crowd_error error;
    CHECK_MSG(import_bytes(stl, sizeof stl, "one.stl", &error) == CROWD_OK, "one.stl: %s",
              error.reason);
    /* 85899346 x 50 + 84 is 2^32 + 88: in 32 bits a match for an 88-byte file. */
    put_u32(stl + 80, 85899346u);
    expect_reject(stl, 88, "wrapped.stl", CROWD_ERROR_INVALID_DATA, "declares 85899346 triangles");
}

static void check_quake(void) {
    uint8_t md2[68 + 64];
    memset(md2, 0, sizeof md2);
    memcpy(md2, "IDP2", 4);
    put_u32(md2 + 4, 8);
    put_u32(md2 + 40, 1);          /* one frame */
    put_u32(md2 + 32, 100000000u); /* triangles at offset 68: 1.2 GB */
    put_u32(md2 + 52, 68);
    expect_reject(md2, sizeof md2, "tris.md2", CROWD_ERROR_INVALID_DATA,
                  "MD2: 100000000 triangles");
    put_u32(md2 + 32, 0);
    put_u32(md2 + 24, 1000); /* 1000 vertices: a frame of 4040 bytes */
    put_u32(md2 + 56, 68);
    expect_reject(md2, sizeof md2, "frames.md2", CROWD_ERROR_INVALID_DATA, "MD2: 1 frames");

    uint8_t md3[108 + 108];
    memset(md3, 0, sizeof md3);
    memcpy(md3, "IDP3", 4);
    put_u32(md3 + 4, 15);
    put_u32(md3 + 84, 1); /* one surface */
    put_u32(md3 + 100, 108);
    put_u32(md3 + 108 + 84, 50000000u); /* triangles */
    put_u32(md3 + 108 + 88, 108);
    expect_reject(md3, sizeof md3, "tris.md3", CROWD_ERROR_INVALID_DATA, "MD3: 50000000 triangles");
    put_u32(md3 + 84, 70000000u);
    expect_reject(md3, sizeof md3, "surfaces.md3", CROWD_ERROR_INVALID_DATA,
                  "MD3: 70000000 surfaces");
}

static void check_md5(void) {
    expect_reject_text("MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\n"
                       "mesh {\n numverts 3000000000\n}\n",
                       "verts.md5mesh", "'numverts 3000000000'");
    expect_reject_text("MD5Version 10\nnumJoints 1\nnumMeshes 1\nmesh {\n numverts 1\n"
                       " vert 4000000000 ( 0 0 ) 0 1\n}\n",
                       "index.md5mesh", "'vert 4000000000'");
    /* 40 joints: 240 components reserved in each of 3 frames, in 140 bytes. */
    expect_reject_text("MD5Version 10\ncommandline \"a long enough line to declare 40 joints\"\n"
                       "numFrames 3\nnumJoints 40\nframe 0 {\n}\nframe 1 {\n}\nframe 2 {\n}\n",
                       "frames.md5anim", "240 animated components in each of 3 frames");
}

static void check_smd(void) {
    static const char triangle[] = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n"
                                   "0 0 0 0 0 0 0\nend\ntriangles\nskin.bmp\n"
                                   "0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\nend\n";
    crowd_error error;
    CHECK_MSG(import_bytes(triangle, strlen(triangle), "triangle.smd", &error) == CROWD_OK,
              "triangle.smd: %s", error.reason);
    /* assimp 5.2 never leaves a nodes section without "end": also after a
     * vertex animation it stops at a time other than frame 0. */
    expect_reject_text("version 1\nnodes\n0 \"root\" -1\n", "no_end.smd",
                       "nodes section has no 'end' line");
    expect_reject_text("version 1\nvertexanimation\ntime 5\nnodes\n0 \"a\" -1\n", "after_va.smd",
                       "nodes section has no 'end' line");
    expect_reject_text("version 1\nnodes\n0 \"root\" -1\nend", "end_at_eof.smd",
                       "file ends with its nodes section's 'end'");
    expect_reject_text("version 1\nnodes\n4000000000 \"root\" -1\nend\n", "bone.smd",
                       "node index larger than the file could number");
    /* 10^9 links on a line of 3 bytes: assimp resizes first (7.8 GB resident). */
    expect_reject_text(
        "version 1\nnodes\n0 \"a\" -1\nend\ntriangles\nm\n0 0 0 0 0 0 1 0 0 1000000000 0 1\n"
        "0 1 0 0 0 0 1 0 0\n0 0 1 0 0 0 1 0 0\nend\n",
        "links.smd", "more bone links than its line holds");
    expect_reject_text("version 1\nnodes\n0 \"a\" -1\nend\ntriangles\n\f\nend\n", "form_feed.smd",
                       "form feed its reader never gets past");
    static const char nul[] = "version 1\nnodes\n0 \"a\" -1\nend\0\n";
    expect_reject(nul, sizeof nul - 1, "nul.smd", CROWD_ERROR_INVALID_DATA, "contains a NUL byte");
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
    char *json = mutate(base_json, "asset/generator", "\"test_import_precheck\"");
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
    /* Textures, samplers and images that are all there pass the pre-check. */
    json = mutated(CHANGES(
        "materials/0/normalTexture", "{\"index\":0}", "textures", "[{\"source\":0,\"sampler\":0}]",
        "samplers", "[{}]", "images", "[{\"bufferView\":0,\"mimeType\":\"image/png\"}]", "cameras",
        "[{\"type\":\"perspective\",\"perspective\":{\"yfov\":1,\"znear\":0.1}}]", "nodes/0/camera",
        "0", "meshes/0/primitives/0/targets", "[{\"POSITION\":0}]"));
    crowd_error error = {0};
    size_t size = make_glb(json, file_bytes, sizeof file_bytes);
    CHECK_MSG(import_precheck_memory(file_bytes, size, "textured.glb", &error) == CROWD_OK,
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
    expect_gltf("not_array", CHANGES("meshes", "{}"), INVALID, "'meshes' is not an array");
    expect_gltf("not_object", CHANGES("nodes/1", "5"), INVALID, "node 1 is not an object");
    expect_gltf("scene", CHANGES("scene", "4"), INVALID,
                "scene names scene 4, which does not exist (the file has 1)");
    expect_gltf("external", CHANGES("buffers/0/uri", "\"triangle.bin\""), CROWD_ERROR_UNSUPPORTED,
                "not read from memory");
    expect_gltf("view_past_buffer", CHANGES("bufferViews/8/byteLength", "20"), INVALID,
                "bufferView 8: bytes [288, 308) are outside buffer 0 (300 bytes)");
    expect_gltf("view_buffer", CHANGES("bufferViews/0/buffer", "3"), INVALID,
                "bufferView 0: buffer names buffer 3, which does not exist");
    expect_gltf("view_stride", CHANGES("bufferViews/0/byteStride", "256"), INVALID,
                "bufferView 0: byteStride is not an integer in [4, 252]");
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
    expect_reject(file_bytes, size, "no_asset.glb", CROWD_ERROR_UNSUPPORTED,
                  "no inverseBindMatrices");
    free(json);
    json = mutated(CHANGES("asset/version", "\"2\"", "skins/0/inverseBindMatrices", NULL));
    size = make_gltf(json, (char *)file_bytes, sizeof file_bytes);
    expect_reject(file_bytes, size, "version_2.gltf", CROWD_ERROR_UNSUPPORTED,
                  "no inverseBindMatrices");
    free(json);
    /* A .glb that is no glTF at all (OpenGEX text found fuzzing, which assimp's
     * OpenGEX reader, tried by content, reads past its buffer). */
    static const char ogex[] = "Metric {float {1.0}} GeometryObject { VertexArray (attrib";
    expect_reject(ogex, strlen(ogex), "ogex.glb", INVALID,
                  "named .glb but neither a GLB nor glTF JSON");
    /* glTF 1.0 goes to assimp's other reader: not checked here. */
    static const char v1[] = "{\"asset\":{\"version\":\"1.0\"},\"meshes\":{}}";
    crowd_error error = {0};
    CHECK(import_precheck_memory(v1, strlen(v1), "v1.gltf", &error) == CROWD_OK);
    /* Deeper than cJSON parses: assimp's parser would take it unchecked. */
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
                "accessor 0: type is missing");
    expect_gltf("component", CHANGES("accessors/0/componentType", "5124"), INVALID,
                "accessor 0: componentType is missing or not one of");
    expect_gltf("normalized", CHANGES("accessors/5/normalized", "true"), INVALID,
                "accessor 5: normalized with componentType 5126");
    expect_gltf("count", CHANGES("accessors/0/count", "0"), INVALID,
                "accessor 0: count missing or < 1");
    expect_gltf(
        "offset", CHANGES("accessors/6/byteOffset", "4"), INVALID,
        "accessor 6 needs bytes [4, 36) of bufferView 6, which has 32 (4 bytes past its end)");
    expect_gltf(
        "past_view", CHANGES("accessors/0/count", "4"), INVALID,
        "accessor 0 needs bytes [0, 48) of bufferView 0, which has 36 (12 bytes past its end)");
    expect_gltf("stride", CHANGES("bufferViews/0/byteStride", "8"), INVALID,
                "accessor 0: bufferView 0 byteStride 8 is smaller than an element (12 bytes)");
    expect_gltf("zeros", CHANGES("accessors/7/count", "10000000"), CROWD_ERROR_LIMIT,
                "accessor 7: 120000000 bytes without a bufferView");
    expect_gltf("sparse_span", CHANGES("accessors/7/sparse/count", "2"), INVALID,
                "accessor 7 sparse indices needs bytes [0, 4) of bufferView 7, which has 2");
    expect_gltf("sparse_past", CHANGES("accessors/7/count", "1"), INVALID,
                "accessor 7: sparse index 0 (1) is past the accessor's count");
    /* As unsigned bytes, the index bytes 01 00 are the indices 1, 0. */
    expect_gltf("sparse_order",
                CHANGES("accessors/7/sparse/count", "2", "accessors/7/sparse/indices/componentType",
                        "5121", "accessors/7/sparse/values/bufferView", "4"),
                INVALID, "accessor 7: sparse index 1 (0) is not increasing");
    expect_gltf("sparse_type", CHANGES("accessors/7/sparse/indices/componentType", "5126"), INVALID,
                "accessor 7: sparse is malformed");
}

static void check_gltf_meshes(void) {
    expect_gltf("no_primitives", CHANGES("meshes/0/primitives", "[]"), INVALID,
                "mesh 0: primitives is missing or empty");
    expect_gltf("no_position", CHANGES("meshes/0/primitives/0/attributes/POSITION", NULL), INVALID,
                "mesh 0 primitive 0: POSITION is missing");
    expect_gltf(
        "attribute", CHANGES("meshes/0/primitives/0/attributes/NORMAL", "9"), INVALID,
        "mesh 0 primitive 0: NORMAL names accessor 9, which does not exist (the file has 8)");
    expect_gltf("short_attribute", CHANGES("meshes/0/primitives/0/attributes/TEXCOORD_0", "6"),
                INVALID, "attribute TEXCOORD_0 has 2 elements, POSITION has 3");
    expect_gltf("index_type", CHANGES("meshes/0/primitives/0/indices", "0"), INVALID,
                "indices accessor 0 is not SCALAR of unsigned integers");
    /* The identity matrix's 1.0f (00 00 80 3F) read as 16-bit indices: 0, 16256, 0. */
    expect_gltf("index_value", CHANGES("accessors/3/bufferView", "4"), INVALID,
                "mesh 0 primitive 0: index 1 is 16256, the primitive has 3 vertices");
    expect_gltf("material", CHANGES("meshes/0/primitives/0/material", "2"), INVALID,
                "material names material 2, which does not exist (the file has 1)");
    expect_gltf("mode", CHANGES("meshes/0/primitives/0/mode", "7"), INVALID,
                "mode is not one of 0-6");
    /* assimp 5.2: count - 2 triangles of a strip, an assertion on a loop of one. */
    expect_gltf("strip", CHANGES("meshes/0/primitives/0/mode", "5", "accessors/3/count", "1"),
                INVALID,
                "mesh 0 primitive 0: mode 5 (triangle strip) of 1 element needs at least 2");
    expect_gltf("loop", CHANGES("meshes/0/primitives/0/mode", "2", "accessors/3/count", "1"),
                INVALID, "mode 2 (line loop) of 1 element");
    expect_gltf("target", CHANGES("meshes/0/primitives/0/targets", "[{\"POSITION\":6}]"), INVALID,
                "mesh 0 primitive 0 target 0: attribute POSITION has 2 elements, POSITION has 3");
    expect_gltf(
        "texture_info", CHANGES("materials/0/normalTexture", "{\"index\":0}"), INVALID,
        "material 0 normalTexture: index names texture 0, which does not exist (the file has 0)");
    expect_gltf("base_color", CHANGES("materials/0/pbrMetallicRoughness/baseColorTexture", "{}"),
                INVALID, "material 0 baseColorTexture: index is missing");
    expect_gltf("texture_source", CHANGES("textures", "[{\"source\":1}]"), INVALID,
                "texture 0: source names image 1");
    expect_gltf("image_view", CHANGES("images", "[{\"bufferView\":12}]"), INVALID,
                "image 0: bufferView names bufferView 12");
}

static void check_gltf_nodes(void) {
    expect_gltf("child_range", CHANGES("nodes/0/children", "[1,2,9]"), INVALID,
                "node 0: children[2] is not one of the 4 nodes");
    expect_gltf("own_child", CHANGES("nodes/2/children", "[2]"), INVALID,
                "node 2 is its own child");
    expect_gltf("two_parents", CHANGES("nodes/2/children", "[3,1]"), INVALID,
                "node 1 is a child of both node 0 and node 2");
    expect_gltf("cycle", CHANGES("nodes/0/children", "[1]", "nodes/3/children", "[2]"), INVALID,
                "node 2 is its own ancestor");
    expect_gltf("node_mesh", CHANGES("nodes/1/mesh", "1"), INVALID, "node 1: mesh names mesh 1");
    expect_gltf("node_skin", CHANGES("nodes/1/skin", "-1"), INVALID,
                "node 1: skin is not an index");
    expect_gltf("node_camera", CHANGES("nodes/1/camera", "0"), INVALID,
                "node 1: camera names camera 0");
    expect_gltf("scene_nodes", CHANGES("scenes/0/nodes", "[4]"), INVALID,
                "scene 0: nodes[0] is not one of the 4 nodes");
    expect_gltf("skin_joints", CHANGES("skins/0/joints", NULL), INVALID,
                "skin 0: joints is missing");
    expect_gltf("skin_joint", CHANGES("skins/0/joints", "[2,7]"), INVALID,
                "skin 0: joints[1] is not one of the 4 nodes");
    expect_gltf("skin_no_binds", CHANGES("skins/0/inverseBindMatrices", NULL),
                CROWD_ERROR_UNSUPPORTED,
                "skin 0 has no inverseBindMatrices, which assimp 5.2 cannot read");
    /* assimp 5.2 aborts when a bone's ancestors up to its root are all bones
     * (by name): "root", the scene's one root node, made a joint; a node
     * named like a joint; a joint named ROOT above two scene roots. */
    expect_gltf("joint_root", CHANGES("skins/0/joints", "[0,2]"), CROWD_ERROR_UNSUPPORTED,
                "node 0: a joint whose ancestors up to the root are all joints");
    expect_gltf("joint_name", CHANGES("nodes/0/name", "\"hip\""), CROWD_ERROR_UNSUPPORTED,
                "node 2: a joint whose ancestors up to the root are all joints (or carry");
    expect_gltf("joint_added_root",
                CHANGES("skins/0/joints", "[0,2]", "scenes/0/nodes", "[0,1]", "nodes/0/children",
                        "[2]", "nodes/2/name", "\"ROOT\""),
                CROWD_ERROR_UNSUPPORTED,
                "node 0: a joint whose ancestors up to the root are all joints");
    expect_gltf("skin_skeleton", CHANGES("skins/0/skeleton", "9"), INVALID,
                "skin 0: skeleton names node 9");
    expect_gltf("skin_type", CHANGES("skins/0/inverseBindMatrices", "6"), INVALID,
                "skin 0: inverseBindMatrices accessor 6 is not MAT4 of floats");
    expect_gltf("skin_count", CHANGES("skins/0/joints", "[2,3,0]"), INVALID,
                "skin 0: 3 joints, inverseBindMatrices accessor 4 has 2 matrices");
}

static void check_gltf_animations(void) {
    expect_gltf("no_samplers", CHANGES("animations/0/samplers", NULL), INVALID,
                "animation 0: samplers or channels is missing");
    expect_gltf("no_input", CHANGES("animations/0/samplers/0/input", NULL), INVALID,
                "animation 0 sampler 0: input is missing");
    expect_gltf("output", CHANGES("animations/0/samplers/0/output", "99"), INVALID,
                "animation 0 sampler 0: output names accessor 99");
    expect_gltf("interpolation", CHANGES("animations/0/samplers/0/interpolation", "\"SMOOTH\""),
                INVALID, "unknown interpolation 'SMOOTH'");
    expect_gltf("cubic", CHANGES("animations/0/samplers/0/interpolation", "\"CUBICSPLINE\""),
                INVALID,
                "animation 0 sampler 0: 2 keys need 6 output elements, the output accessor has 2");
    expect_gltf("channel_sampler", CHANGES("animations/0/channels/0/sampler", "1"), INVALID,
                "animation 0 channel 0: sampler is missing or not one of the animation's 1");
    expect_gltf("channel_target", CHANGES("animations/0/channels/0/target", NULL), INVALID,
                "animation 0 channel 0: target is missing");
    expect_gltf("channel_node", CHANGES("animations/0/channels/0/target/node", "4"), INVALID,
                "animation 0 channel 0 target: node names node 4");
}

/* ---- real files ---- */

static void check_bad_folder(const char *folder) {
    const char *dir_path = check_assimp_model(folder);
    if (dir_path == NULL) {
        return;
    }
    char base[1024];
    snprintf(base, sizeof base, "%s", dir_path);
    DIR *dir = opendir(base);
    CHECK(dir != NULL);
    int files = 0;
    for (struct dirent *entry; dir != NULL && (entry = readdir(dir)) != NULL;) {
        size_t length = strlen(entry->d_name);
        /* A .gltf's .bin and .png are no models of their own.
         * invalid/malformed2.obj only names a missing material and holds an
         * empty face: both repairs, so it imports (sweep_table.txt). */
        if (entry->d_name[0] == '.' ||
            (length > 4 && (strcmp(entry->d_name + length - 4, ".bin") == 0 ||
                            strcmp(entry->d_name + length - 4, ".png") == 0)) ||
            strcmp(entry->d_name, "malformed2.obj") == 0) {
            continue;
        }
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", base, entry->d_name);
        crowd_asset *asset = NULL;
        crowd_error error = {0};
        crowd_result result = crowd_import_file(path, NULL, &asset, &error);
        CHECK_MSG(result != CROWD_OK && asset == NULL && error.reason[0] != '\0' &&
                      strcmp(error.file, path) == 0,
                  "%s: %s '%s'", path, crowd_result_str(result), error.reason);
        crowd_asset_destroy(asset);
        files++;
    }
    if (dir != NULL) {
        closedir(dir);
    }
    printf("%s: %d files rejected\n", folder, files);
    CHECK(files > 0);
}

static void check_out_of_memory_off(void) {
    const char *path = check_assimp_model("invalid/OutOfMemory.off");
    if (path == NULL) {
        return;
    }
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    CHECK(crowd_import_file(path, NULL, &asset, &error) == CROWD_ERROR_INVALID_DATA &&
          asset == NULL);
    CHECK_MSG(strstr(error.reason, "OFF header declares 353535235358 vertices and 6 faces") != NULL,
              "OutOfMemory.off: %s", error.reason);
}

static size_t read_file(const char *path, uint8_t **out) {
    FILE *file = fopen(path, "rb");
    size_t size = 0;
    *out = NULL;
    if (file != NULL && fseek(file, 0, SEEK_END) == 0) {
        long end = ftell(file);
        *out = end > 0 ? malloc((size_t)end) : NULL;
        if (*out != NULL && fseek(file, 0, SEEK_SET) == 0) {
            size = fread(*out, 1, (size_t)end, file);
        }
    }
    if (file != NULL) {
        fclose(file);
    }
    return size;
}

/* Good files pass the pre-check by path and, when they have no external
 * buffers, from memory. */
static void expect_pass(const char *path, bool from_memory) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL) {
        *slash = '\0';
    }
    crowd_error error = {0};
    CHECK_MSG(import_precheck_file(path, dir, &error) == CROWD_OK, "%s: %s", path, error.reason);
    uint8_t *bytes = NULL;
    size_t size = from_memory ? read_file(path, &bytes) : 0;
    if (from_memory) {
        CHECK_MSG(size > 0 && import_precheck_memory(bytes, size, path, &error) == CROWD_OK,
                  "%s (memory): %s", path, error.reason);
    }
    free(bytes);
}

static void check_good_files(void) {
    static const char *const shared[] = {"robot.glb",          "greenman.glb",
                                         "greenman_hat.glb",   "greenman_shield.glb",
                                         "greenman_sword.glb", "RiggedFigure.glb"};
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++) {
        const char *path = check_shared_model(shared[i]);
        if (path != NULL) {
            expect_pass(path, true);
        }
    }
    static const char *const assimp_models[] = {"FBX/animation_with_skeleton.fbx",
                                                "MDL/MDL (HL1)/man.mdl",
                                                "X/BCN_Epileptic.X",
                                                "X/Testwuson.X",
                                                "glTF2/simple_skin/simple_skin.gltf",
                                                "OFF/Cube.off",
                                                "OFF/Wuson.off",
                                                "PLY/cube.ply",
                                                "PLY/cube_binary.ply",
                                                "PLY/Wuson.ply",
                                                "STL/Spider_binary.stl",
                                                "STL/Wuson.stl",
                                                "MD2/faerie.md2",
                                                "MD5/SimpleCube.md5mesh",
                                                "SMD/triangle.smd",
                                                "SMD/WusonSMD.smd"};
    for (size_t i = 0; i < sizeof assimp_models / sizeof assimp_models[0]; i++) {
        const char *path = check_assimp_model(assimp_models[i]);
        if (path != NULL) {
            expect_pass(path, true);
        }
    }
}

int main(void) {
    check_enter_temp_dir("import_precheck");
    check_off();
    check_ply();
    check_stl();
    check_quake();
    check_md5();
    check_smd();
    check_gltf_valid();
    check_gltf_structure();
    check_gltf_buffers();
    check_gltf_detection();
    check_gltf_accessors();
    check_gltf_meshes();
    check_gltf_nodes();
    check_gltf_animations();
    check_out_of_memory_off();
    check_bad_folder("invalid");
    check_bad_folder("glTF2/wrongTypes");
    check_bad_folder("glTF2/IndexOutOfRange");
    check_bad_folder("glTF2/BoxWithInfinites-glTF-Binary");
    check_good_files();
    return check_finish();
}
