/* import_gltf_document.c - the first stages of crowd's glTF reader
 * (src/import/gltf/gltf_document.h, gltf_accessor.c) called directly: what the
 * container is (glTF 2.0, glTF 1.0 for assimp, another format, broken),
 * GLB header and chunks, buffers (binary chunk, data: URIs, external
 * files), bufferView and accessor ranges, byteStride, sparse accessors and
 * the decoding of every component type. Expected values come from the glTF
 * 2.0 specification. Part of test_import_interpolation. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "import/gltf/gltf_internal.h"

int test_gltf_document(void);

static uint8_t glb[4096];

static void put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* A GLB of `json` and `bin` (bin NULL: no BIN chunk); returns its size. */
static size_t make_glb(const char *json, const void *bin, uint32_t bin_size) {
    uint32_t json_length = (uint32_t)(strlen(json) + 3) & ~3u;
    uint32_t total = 20 + json_length + (bin ? 8 + bin_size : 0);
    memset(glb, ' ', sizeof glb);
    put_u32(glb, 0x46546C67u);
    put_u32(glb + 4, 2);
    put_u32(glb + 8, total);
    put_u32(glb + 12, json_length);
    put_u32(glb + 16, 0x4E4F534Au);
    memcpy(glb + 20, json, strlen(json));
    if (bin) {
        put_u32(glb + 20 + json_length, bin_size);
        put_u32(glb + 24 + json_length, 0x004E4942u);
        memcpy(glb + 28 + json_length, bin, bin_size);
    }
    return total;
}

static crowd_error error;

static gltf_kind kind;

/* Opens `bytes` from `dir` (NULL: in memory); the document when it is glTF 2.0. */
static gltf_document *open_in(const void *bytes, size_t size, const char *name, const char *dir,
                              crowd_result expected) {
    gltf_document *doc = NULL;
    memset(&error, 0, sizeof error);
    crowd_result result = crowd__gltf_document_open(bytes, size, name ? name : "(memory)", dir,
                                                    NULL, &kind, &doc, &error);
    CHECK_MSG(result == expected, "%s: %s (%s), expected %s", name, crowd_result_str(result),
              error.reason, crowd_result_str(expected));
    return doc;
}

static gltf_document *open_memory(const void *bytes, size_t size, const char *name,
                                  crowd_result expected) {
    return open_in(bytes, size, name, NULL, expected);
}

/* Reads accessor `index` as floats into `out` (room for 8); the result. */
static crowd_result read(gltf_document *doc, uint32_t index, float *out) {
    gltf_accessor accessor;
    memset(&error, 0, sizeof error);
    if (index >= doc->lists[GLTF_ACCESSORS].count) {
        return CROWD_ERROR_INVALID_ARGUMENT;
    }
    crowd_result result = crowd__gltf_accessor_describe(doc, index, &accessor);
    float *values = NULL;
    if (result == CROWD_OK) {
        result = crowd__gltf_accessor_floats(doc, &accessor, &values);
    }
    if (result == CROWD_OK) {
        memcpy(out, values, (size_t)accessor.count * accessor.components * sizeof *out);
    }
    free(values);
    return result;
}

#define HEAD "{\"asset\":{\"version\":\"2.0\"},\"animations\":[{}],"

static void check_container(void) {
    const float values[2] = {1.5f, -2.0f};
    static const char json[] = HEAD "\"buffers\":[{\"byteLength\":8}],"
                                    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8}],"
                                    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,"
                                    "\"count\":2,\"type\":\"SCALAR\"}]}";
    size_t size = make_glb(json, values, sizeof values);
    gltf_document *doc = open_memory(glb, size, "ok.glb", CROWD_OK);
    float out[2] = {0, 0};
    CHECK(doc != NULL && read(doc, 0, out) == CROWD_OK && out[0] == 1.5f && out[1] == -2.0f);
    crowd__gltf_document_close(doc);

    /* A GLB is glTF whatever its name; glTF 1.0 is assimp's; JSON without
     * an asset is glTF only when named so; a .gltf that is no JSON is broken. */
    doc = open_memory(glb, size, "ok.fbx", CROWD_OK);
    CHECK(doc != NULL && kind == GLTF_KIND_GLTF2);
    crowd__gltf_document_close(doc);
    put_u32(glb + 4, 1);
    CHECK(open_memory(glb, size, "v1.glb", CROWD_OK) == NULL && kind == GLTF_KIND_GLTF1);
    static const char v1[] = "{\"asset\":{\"version\":\"1.0\"},\"animations\":[{}]}";
    CHECK(open_memory(v1, strlen(v1), "v1.gltf", CROWD_OK) == NULL && kind == GLTF_KIND_GLTF1);
    CHECK(error.reason[0] == '\0');
    static const char other[] = "{\"format\":\"some other JSON\"}";
    CHECK(open_memory(other, strlen(other), "data.json", CROWD_OK) == NULL &&
          kind == GLTF_KIND_OTHER);
    doc = open_memory(other, strlen(other), "data.gltf", CROWD_OK);
    CHECK(doc != NULL && kind == GLTF_KIND_GLTF2);
    crowd__gltf_document_close(doc);
    static const char fbx[] = "Kaydara FBX Binary  \0";
    CHECK(open_memory(fbx, sizeof fbx, "misnamed.gltf", CROWD_ERROR_INVALID_DATA) == NULL &&
          kind == GLTF_KIND_BROKEN);
    CHECK(strstr(error.reason, "named .gltf but neither a GLB nor glTF JSON") != NULL);
    CHECK(open_memory(fbx, sizeof fbx, "model.fbx", CROWD_OK) == NULL && kind == GLTF_KIND_OTHER);

    /* Every GLB bound. */
    size = make_glb(json, values, sizeof values);
    CHECK(open_memory(glb, 16, "short.glb", CROWD_ERROR_INVALID_DATA) == NULL);
    CHECK(strstr(error.reason, "header") != NULL && strcmp(error.file, "short.glb") == 0);
    CHECK(open_memory(glb, size - 1, "cut.glb", CROWD_ERROR_INVALID_DATA) == NULL);
    CHECK(strstr(error.reason, "GLB header says") != NULL);
    put_u32(glb + 12, (uint32_t)size);
    CHECK(open_memory(glb, size, "json_past_end.glb", CROWD_ERROR_INVALID_DATA) == NULL);
    size = make_glb(json, values, sizeof values);
    put_u32(glb + 16, 0x004E4942u);
    CHECK(open_memory(glb, size, "bin_first.glb", CROWD_ERROR_INVALID_DATA) == NULL);
    CHECK(strstr(error.reason, "not a JSON chunk") != NULL);
    size = make_glb(json, values, sizeof values);
    put_u32(glb + 12, 4);
    CHECK(open_memory(glb, size, "json_cut.glb", CROWD_ERROR_INVALID_DATA) == NULL);
    CHECK(strstr(error.reason, "JSON chunk is malformed") != NULL);
    size = make_glb(json, values, sizeof values);
    uint32_t json_length = (uint32_t)(strlen(json) + 3) & ~3u;
    put_u32(glb + 20 + json_length, 9);
    CHECK(open_memory(glb, size, "bin_past_end.glb", CROWD_ERROR_INVALID_DATA) == NULL);
    CHECK(strstr(error.reason, "binary chunk of 9 bytes") != NULL);

    /* A buffer longer than the BIN chunk, and a GLB without one. */
    static const char long_buffer[] = HEAD "\"buffers\":[{\"byteLength\":12}],"
                                           "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8}],"
                                           "\"accessors\":[{\"bufferView\":0,\"componentType\":"
                                           "5126,\"count\":2,\"type\":\"SCALAR\"}]}";
    size = make_glb(long_buffer, values, sizeof values);
    doc = open_memory(glb, size, "long_buffer.glb", CROWD_OK);
    CHECK(doc != NULL && read(doc, 0, out) == CROWD_ERROR_INVALID_DATA);
    CHECK(strstr(error.reason, "exceeds the GLB binary chunk") != NULL);
    CHECK(doc != NULL && read(doc, 0, out) == CROWD_ERROR_INVALID_DATA);
    crowd__gltf_document_close(doc);
    size = make_glb(json, NULL, 0);
    doc = open_memory(glb, size, "no_bin.glb", CROWD_OK);
    CHECK(doc != NULL && read(doc, 0, out) == CROWD_ERROR_INVALID_DATA);
    CHECK(strstr(error.reason, "buffers[0] has no uri and there is no GLB binary chunk") != NULL);
    crowd__gltf_document_close(doc);
}

/* A .gltf whose buffer 0 is `uri` (byteLength 8) with one accessor of two floats. */
static gltf_document *open_with_uri(const char *uri, const char *name, crowd_result expected_read) {
    static char json[1024];
    snprintf(json, sizeof json,
             HEAD "\"buffers\":[{\"byteLength\":8,\"uri\":\"%s\"}],"
                  "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8}],"
                  "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":"
                  "\"SCALAR\"}]}",
             uri);
    gltf_document *doc = open_memory(json, strlen(json), name, CROWD_OK);
    float out[8];
    crowd_result result = doc ? read(doc, 0, out) : CROWD_ERROR_INVALID_DATA;
    CHECK_MSG(result == expected_read, "%s: %s (%s)", name, crowd_result_str(result), error.reason);
    if (result == CROWD_OK) {
        CHECK(out[0] == 1.5f && out[1] == -2.0f);
    }
    return doc;
}

static void check_buffers(void) {
    /* 1.5f, -2.0f little-endian: 00 00 c0 3f 00 00 00 c0 */
    crowd__gltf_document_close(
        open_with_uri("data:application/octet-stream;base64,AADAPwAAAMA=", "b64.gltf", CROWD_OK));
    crowd__gltf_document_close(
        open_with_uri("data:;base64,AADAPwAAAMA", "b64_unpadded.gltf", CROWD_OK));
    crowd__gltf_document_close(open_with_uri("data:application/octet-stream;base64,AADAP*AAAMA=",
                                             "b64_bad.gltf", CROWD_ERROR_INVALID_DATA));
    CHECK(strstr(error.reason, "not valid base64") != NULL);
    crowd__gltf_document_close(open_with_uri("data:application/octet-stream;base64,AADAPwAA",
                                             "b64_short.gltf", CROWD_ERROR_INVALID_DATA));
    CHECK(strstr(error.reason, "holds 6 bytes, byteLength says 8") != NULL);
    crowd__gltf_document_close(open_with_uri("data:application/octet-stream,%00%00", "not_b64.gltf",
                                             CROWD_ERROR_UNSUPPORTED));
    crowd__gltf_document_close(
        open_with_uri("floats.bin", "external.gltf", CROWD_ERROR_UNSUPPORTED));
    CHECK(strstr(error.reason, "not read from memory") != NULL);

    /* From disk: an external file next to the document, one too short, one missing. */
    static const char json[] = HEAD "\"buffers\":[{\"byteLength\":8,\"uri\":\"doc_floats.bin\"}],"
                                    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8}],"
                                    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,"
                                    "\"count\":2,\"type\":\"SCALAR\"}]}";
    const float values[2] = {1.5f, -2.0f};
    FILE *b = fopen("doc_floats.bin", "wb");
    CHECK(b && fwrite(values, sizeof values, 1, b) == 1);
    if (b) {
        fclose(b);
    }
    float out[8] = {0, 0};
    gltf_document *doc = open_in(json, strlen(json), "doc_test.gltf", ".", CROWD_OK);
    CHECK(doc != NULL && read(doc, 0, out) == CROWD_OK && out[0] == 1.5f && out[1] == -2.0f);
    crowd__gltf_document_close(doc);
    b = fopen("doc_floats.bin", "wb");
    CHECK(b && fwrite(values, 4, 1, b) == 1);
    if (b) {
        fclose(b);
    }
    doc = open_in(json, strlen(json), "doc_test.gltf", ".", CROWD_OK);
    CHECK(doc != NULL && read(doc, 0, out) == CROWD_ERROR_INVALID_DATA);
    CHECK(strstr(error.reason, "doc_floats.bin holds 4 bytes, byteLength says 8") != NULL);
    crowd__gltf_document_close(doc);
    remove("doc_floats.bin");
    doc = open_in(json, strlen(json), "doc_test.gltf", ".", CROWD_OK);
    CHECK(doc != NULL && read(doc, 0, out) == CROWD_ERROR_IO);
    crowd__gltf_document_close(doc);
}

/* Bytes of the accessor tests: a 24-byte view read with every layout. */
typedef struct layout_bytes {
    int8_t bytes[4];        /* 0: -128, -127, 0, 127 */
    uint8_t ubytes[4];      /* 4: 0, 1, 254, 255 */
    int16_t shorts[2];      /* 8: -32768, 32767 */
    uint16_t ushorts[2];    /* 12: 0, 65535 */
    float floats[2];        /* 16: 0.25, 8 */
    uint8_t indices[2];     /* 24: sparse indices 1, 3 */
    uint8_t bad_indices[2]; /* 26: 3, 1 (not increasing) */
    float sparse_values[2]; /* 28: 10, 30 */
} layout_bytes;

static void check_accessors(void) {
    layout_bytes bytes = {{-128, -127, 0, 127}, {0, 1, 254, 255}, {-32768, 32767}, {0, 65535},
                          {0.25f, 8.0f},        {1, 3},           {3, 1},          {10.0f, 30.0f}};
    char *encoded = NULL;
    {
        static const char alphabet[] =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        const uint8_t *in = (const uint8_t *)&bytes;
        size_t size = sizeof bytes, n = 0;
        encoded = malloc(size / 3 * 4 + 5);
        for (size_t i = 0; i < size; i += 3) {
            uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < size ? (uint32_t)in[i + 1] << 8 : 0) |
                         (i + 2 < size ? in[i + 2] : 0);
            encoded[n++] = alphabet[v >> 18];
            encoded[n++] = alphabet[(v >> 12) & 63];
            encoded[n++] = i + 1 < size ? alphabet[(v >> 6) & 63] : '=';
            encoded[n++] = i + 2 < size ? alphabet[v & 63] : '=';
        }
        encoded[n] = '\0';
    }
    static char json[4096];
    snprintf(json, sizeof json,
             HEAD "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:;base64,%s\"}],"
                  "\"bufferViews\":[{\"buffer\":0,\"byteLength\":24},"
                  "{\"buffer\":0,\"byteOffset\":24,\"byteLength\":4},"
                  "{\"buffer\":0,\"byteOffset\":28,\"byteLength\":8},"
                  "{\"buffer\":0,\"byteLength\":40},"
                  "{\"buffer\":0,\"byteLength\":24,\"byteStride\":2},"
                  "{\"buffer\":0,\"byteOffset\":4,\"byteLength\":12,\"byteStride\":8},"
                  "{\"buffer\":1,\"byteLength\":4},"
                  "{\"buffer\":0,\"byteOffset\":26,\"byteLength\":2}],"
                  "\"accessors\":["
                  /* 0-3: normalized BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT */
                  "{\"bufferView\":0,\"componentType\":5120,\"normalized\":true,\"count\":1,"
                  "\"type\":\"VEC4\"},"
                  "{\"bufferView\":0,\"byteOffset\":4,\"componentType\":5121,\"normalized\":true,"
                  "\"count\":1,\"type\":\"VEC4\"},"
                  "{\"bufferView\":0,\"byteOffset\":8,\"componentType\":5122,\"normalized\":true,"
                  "\"count\":2,\"type\":\"SCALAR\"},"
                  "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5123,\"normalized\":true,"
                  "\"count\":2,\"type\":\"SCALAR\"},"
                  /* 4-5: the same bytes as plain integers (KHR_mesh_quantization) */
                  "{\"bufferView\":0,\"componentType\":5120,\"count\":1,\"type\":\"VEC4\"},"
                  "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5123,\"count\":2,\"type\":"
                  "\"SCALAR\"},"
                  /* 6: two UNSIGNED_BYTE VEC4 8 bytes apart (view 5: byteStride 8 from byte 4) */
                  "{\"bufferView\":5,\"componentType\":5121,\"count\":2,\"type\":\"VEC4\"},"
                  /* 7: sparse over floats: [0.25, 8] with index 1 -> 10 */
                  "{\"bufferView\":0,\"byteOffset\":16,\"componentType\":5126,\"count\":2,\"type\":"
                  "\"SCALAR\","
                  "\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":1,\"componentType\":5121},"
                  "\"values\":{\"bufferView\":2}}},"
                  /* 8: sparse without bufferView: zeros, indices 1 and 3 -> 10, 30 */
                  "{\"componentType\":5126,\"count\":4,\"type\":\"SCALAR\","
                  "\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":1,\"componentType\":5121},"
                  "\"values\":{\"bufferView\":2}}},"
                  /* 9: sparse index 3 out of a count of 2 */
                  "{\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\","
                  "\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":1,\"componentType\":5121},"
                  "\"values\":{\"bufferView\":2}}},"
                  /* 10: sparse indices not increasing */
                  "{\"componentType\":5126,\"count\":4,\"type\":\"SCALAR\","
                  "\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":7,\"componentType\":5121},"
                  "\"values\":{\"bufferView\":2}}},"
                  /* 11: stride 2, below the specification's 4 */
                  "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
                  /* 12: bufferView past the end of its buffer (40 > 36) */
                  "{\"bufferView\":3,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"},"
                  /* 13: a buffer that does not exist */
                  "{\"bufferView\":6,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"},"
                  /* 14: a bufferView that does not exist */
                  "{\"bufferView\":70,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"},"
                  /* 15: normalized floats, 16: unknown componentType, 17: count 0, 18: a MAT4 */
                  "{\"bufferView\":0,\"componentType\":5126,\"normalized\":true,\"count\":1,"
                  "\"type\":\"SCALAR\"},"
                  "{\"bufferView\":0,\"componentType\":5124,\"count\":1,\"type\":\"SCALAR\"},"
                  "{\"bufferView\":0,\"componentType\":5126,\"count\":0,\"type\":\"SCALAR\"},"
                  "{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"MAT4\"},"
                  /* 19: 3 floats from offset 16: one past the 24-byte view */
                  "{\"bufferView\":0,\"byteOffset\":16,\"componentType\":5126,\"count\":3,\"type\":"
                  "\"SCALAR\"}]}",
             sizeof bytes, encoded);
    free(encoded);
    gltf_document *doc = open_memory(json, strlen(json), "accessors.gltf", CROWD_OK);
    if (doc == NULL) {
        return;
    }
    float out[8];
    /* Normalized: signed max(c / (2^(b-1) - 1), -1), unsigned c / (2^b - 1). */
    CHECK(read(doc, 0, out) == CROWD_OK && out[0] == -1.0f && out[1] == -1.0f && out[2] == 0.0f &&
          out[3] == 1.0f);
    CHECK(read(doc, 1, out) == CROWD_OK && out[0] == 0.0f && out[1] == (float)(1 / 255.0) &&
          out[2] == (float)(254 / 255.0) && out[3] == 1.0f);
    CHECK(read(doc, 2, out) == CROWD_OK && out[0] == -1.0f && out[1] == 1.0f);
    CHECK(read(doc, 3, out) == CROWD_OK && out[0] == 0.0f && out[1] == 1.0f);
    CHECK(read(doc, 4, out) == CROWD_OK && out[0] == -128.0f && out[1] == -127.0f &&
          out[3] == 127.0f);
    CHECK(read(doc, 5, out) == CROWD_OK && out[0] == 0.0f && out[1] == 65535.0f);
    CHECK(read(doc, 6, out) == CROWD_OK && out[0] == 0.0f && out[1] == 1.0f && out[2] == 254.0f &&
          out[3] == 255.0f && out[4] == 0.0f && out[5] == 0.0f && out[6] == 255.0f &&
          out[7] == 255.0f);
    CHECK(read(doc, 7, out) == CROWD_OK && out[0] == 0.25f && out[1] == 10.0f);
    CHECK(read(doc, 8, out) == CROWD_OK && out[0] == 0.0f && out[1] == 10.0f && out[2] == 0.0f &&
          out[3] == 30.0f);
    CHECK(read(doc, 9, out) == CROWD_ERROR_INVALID_DATA &&
          strstr(error.reason, "accessors[9].sparse: index 1 (3) is past") != NULL);
    CHECK(read(doc, 10, out) == CROWD_ERROR_INVALID_DATA &&
          strstr(error.reason, "not increasing") != NULL);
    CHECK(read(doc, 11, out) == CROWD_ERROR_INVALID_DATA &&
          strstr(error.reason, "bufferViews[4].byteStride is not an integer in [4, 252]") != NULL);
    CHECK(read(doc, 12, out) == CROWD_ERROR_INVALID_DATA &&
          strstr(error.reason, "bufferViews[3]: bytes [0, 40) are outside buffers[0] (36 bytes)") !=
              NULL);
    CHECK(read(doc, 13, out) == CROWD_ERROR_INVALID_DATA &&
          strstr(error.reason, "bufferViews[6].buffer names buffers[1], which does not exist") !=
              NULL);
    CHECK(read(doc, 14, out) == CROWD_ERROR_INVALID_DATA &&
          strstr(error.reason, "accessors[14].bufferView names bufferViews[70]") != NULL);
    CHECK(read(doc, 15, out) == CROWD_ERROR_INVALID_DATA &&
          strstr(error.reason, "normalized") != NULL);
    CHECK(read(doc, 16, out) == CROWD_ERROR_INVALID_DATA &&
          strstr(error.reason, "componentType") != NULL);
    CHECK(read(doc, 17, out) == CROWD_ERROR_INVALID_DATA && strstr(error.reason, "count") != NULL);
    gltf_accessor matrix;
    CHECK(crowd__gltf_accessor_describe(doc, 18, &matrix) == CROWD_OK && matrix.components == 16 &&
          matrix.is_matrix);
    CHECK(read(doc, 19, out) == CROWD_ERROR_INVALID_DATA &&
          strstr(error.reason,
                 "accessors[19] needs bytes [16, 28) of bufferViews[0], which has 24") != NULL);
    cJSON *reference = cJSON_Parse("{\"input\":20}");
    gltf_accessor missing;
    CHECK(crowd__gltf_accessor_open(doc, reference, "input", "animations[0].samplers[0]", true,
                                    &missing, NULL) == CROWD_ERROR_INVALID_DATA &&
          strstr(error.reason, "animations[0].samplers[0].input names accessors[20], which does "
                               "not exist (the file has 20)") != NULL);
    cJSON_Delete(reference);
    crowd__gltf_document_close(doc);
}

int test_gltf_document(void) {
    check_container();
    check_buffers();
    check_accessors();
    printf("gltf_document: %d checks, %d failed\n", check_count, check_failures);
    return check_failures;
}
