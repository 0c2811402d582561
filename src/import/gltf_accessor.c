/* gltf_accessor.c - glTF accessors to floats: component types, normalized
 * integers, bufferView byteOffset/byteStride, sparse substitution; every
 * range checked against the view and the buffer before it is read. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import/gltf_document.h"

enum {
    GLTF_BYTE = 5120,
    GLTF_UNSIGNED_BYTE = 5121,
    GLTF_SHORT = 5122,
    GLTF_UNSIGNED_SHORT = 5123,
    GLTF_UNSIGNED_INT = 5125,
    GLTF_FLOAT = 5126,
};

/* The specification's upper bound of bufferView.byteStride. */
#define GLTF_MAX_STRIDE 252u

static uint32_t component_size(uint32_t type) {
    switch (type) {
    case GLTF_BYTE:
    case GLTF_UNSIGNED_BYTE:
        return 1;
    case GLTF_SHORT:
    case GLTF_UNSIGNED_SHORT:
        return 2;
    case GLTF_UNSIGNED_INT:
    case GLTF_FLOAT:
        return 4;
    default:
        return 0;
    }
}

static uint32_t type_components(const char *type) {
    static const char *const names[] = {"SCALAR", "VEC2", "VEC3", "VEC4"};
    for (uint32_t i = 0; i < 4; i++) {
        if (strcmp(type, names[i]) == 0) {
            return i + 1;
        }
    }
    return 0;
}

crowd_result gltf_accessor_describe(gltf_document *doc, uint64_t index, uint32_t max_count,
                                    gltf_accessor *out, const char *what) {
    const cJSON *json = gltf_json_element(doc, "accessors", index);
    if (json == NULL) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "%s: accessor %llu does not exist", what, (unsigned long long)index);
    }
    memset(out, 0, sizeof *out);
    out->index = (uint32_t)index;
    uint64_t component_type = 0, count = 0;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(json, "type");
    const cJSON *normalized = cJSON_GetObjectItemCaseSensitive(json, "normalized");
    if (!gltf_json_uint(json, "componentType", UINT64_MAX, UINT32_MAX, &component_type) ||
        component_size((uint32_t)component_type) == 0 || !cJSON_IsString(type) ||
        (normalized != NULL && !cJSON_IsBool(normalized))) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "%s: accessor %u: componentType, type or normalized is missing "
                               "or not valid",
                               what, out->index);
    }
    out->component_type = (uint32_t)component_type;
    out->components = type_components(type->valuestring);
    out->normalized = cJSON_IsTrue(normalized);
    if (out->normalized && (component_type == GLTF_FLOAT || component_type == GLTF_UNSIGNED_INT)) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "%s: accessor %u: normalized with componentType %u", what,
                               out->index, out->component_type);
    }
    if (!gltf_json_uint(json, "count", UINT64_MAX, UINT32_MAX, &count) || count == 0) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "%s: accessor %u: count missing or < 1", what, out->index);
    }
    if (count > max_count) {
        return crowd_error_set(doc->error, CROWD_ERROR_LIMIT, doc->file,
                               "%s: accessor %u: %llu elements, more than the %u allowed", what,
                               out->index, (unsigned long long)count, max_count);
    }
    out->count = (uint32_t)count;
    return CROWD_OK;
}

static uint32_t read_le(const uint8_t *p, uint32_t size) {
    uint32_t value = 0;
    for (uint32_t i = size; i-- > 0;) {
        value = value << 8 | p[i];
    }
    return value;
}

static float decode(const uint8_t *p, uint32_t type, bool normalized) {
    uint32_t bits = read_le(p, component_size(type));
    switch (type) {
    case GLTF_BYTE: {
        int8_t value = (int8_t)(uint8_t)bits;
        return normalized ? fmaxf((float)(value / 127.0), -1.0f) : (float)value;
    }
    case GLTF_UNSIGNED_BYTE:
        return normalized ? (float)(bits / 255.0) : (float)bits;
    case GLTF_SHORT: {
        int16_t value = (int16_t)(uint16_t)bits;
        return normalized ? fmaxf((float)(value / 32767.0), -1.0f) : (float)value;
    }
    case GLTF_UNSIGNED_SHORT:
        return normalized ? (float)(bits / 65535.0) : (float)bits;
    case GLTF_UNSIGNED_INT:
        return (float)bits;
    default: {
        float value;
        memcpy(&value, &bits, sizeof value);
        return value;
    }
    }
}

/* A bufferView's buffer, start and length (and stride when `stride` is not NULL). */
typedef struct view_range {
    uint32_t buffer;
    uint64_t offset, length, stride;
} view_range;

static crowd_result read_view(gltf_document *doc, uint64_t index, view_range *out,
                              const char *what) {
    const cJSON *json = gltf_json_element(doc, "bufferViews", index);
    uint64_t buffer = 0;
    if (json == NULL || !gltf_json_uint(json, "buffer", UINT64_MAX, UINT32_MAX, &buffer) ||
        !gltf_json_uint(json, "byteOffset", 0, UINT64_MAX >> 12, &out->offset) ||
        !gltf_json_uint(json, "byteLength", UINT64_MAX, UINT64_MAX >> 12, &out->length) ||
        !gltf_json_uint(json, "byteStride", 0, GLTF_MAX_STRIDE, &out->stride)) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "%s: bufferView %llu is missing or has an invalid buffer, "
                               "byteOffset, byteLength or byteStride",
                               what, (unsigned long long)index);
    }
    out->buffer = (uint32_t)buffer;
    /* The whole view must lie in its buffer, not only the bytes read. */
    return gltf_buffer_read(doc, out->buffer, out->offset, out->length, NULL, what);
}

/* Reads `count` elements of `element_size` bytes, `stride` apart, starting
 * `offset` bytes into view `view_index`, and decodes them into out. */
static crowd_result read_elements(gltf_document *doc, uint64_t view_index, uint64_t offset,
                                  bool use_stride, const gltf_accessor *accessor, uint32_t count,
                                  float *out, const char *what) {
    view_range view;
    crowd_result result = read_view(doc, view_index, &view, what);
    if (result != CROWD_OK) {
        return result;
    }
    uint32_t size = component_size(accessor->component_type);
    uint64_t element = (uint64_t)size * accessor->components;
    uint64_t stride = use_stride && view.stride != 0 ? view.stride : element;
    if (stride < element) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "%s: bufferView %llu byteStride %llu is smaller than an element "
                               "(%llu bytes)",
                               what, (unsigned long long)view_index, (unsigned long long)stride,
                               (unsigned long long)element);
    }
    uint64_t span = stride * (count - 1) + element;
    if (span > view.length || offset > view.length - span) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "%s: accessor %u needs bytes [%llu, %llu) of bufferView %llu, "
                               "which has %llu",
                               what, accessor->index, (unsigned long long)offset,
                               (unsigned long long)(offset + span), (unsigned long long)view_index,
                               (unsigned long long)view.length);
    }
    uint8_t *bytes = malloc(span);
    if (bytes == NULL) {
        return crowd_error_set(doc->error, CROWD_ERROR_OUT_OF_MEMORY, doc->file, "out of memory");
    }
    result = gltf_buffer_read(doc, view.buffer, view.offset + offset, span, bytes, what);
    for (uint32_t i = 0; result == CROWD_OK && i < count; i++) {
        for (uint32_t c = 0; c < accessor->components; c++) {
            out[(size_t)i * accessor->components + c] =
                decode(bytes + i * stride + (uint64_t)c * size, accessor->component_type,
                       accessor->normalized);
        }
    }
    free(bytes);
    return result;
}

/* Sparse substitution: `count` strictly increasing indices, each below the
 * accessor's count, and as many tightly packed values. */
static crowd_result apply_sparse(gltf_document *doc, const gltf_accessor *accessor,
                                 const cJSON *sparse, float *out, const char *what) {
    const cJSON *indices = cJSON_GetObjectItemCaseSensitive(sparse, "indices");
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(sparse, "values");
    uint64_t count = 0, index_view = 0, index_offset = 0, index_type = 0, value_view = 0,
             value_offset = 0;
    if (!gltf_json_uint(sparse, "count", UINT64_MAX, accessor->count, &count) || count == 0 ||
        !cJSON_IsObject(indices) || !cJSON_IsObject(values) ||
        !gltf_json_uint(indices, "bufferView", UINT64_MAX, UINT32_MAX, &index_view) ||
        !gltf_json_uint(indices, "byteOffset", 0, UINT64_MAX >> 12, &index_offset) ||
        !gltf_json_uint(indices, "componentType", UINT64_MAX, UINT32_MAX, &index_type) ||
        (index_type != GLTF_UNSIGNED_BYTE && index_type != GLTF_UNSIGNED_SHORT &&
         index_type != GLTF_UNSIGNED_INT) ||
        !gltf_json_uint(values, "bufferView", UINT64_MAX, UINT32_MAX, &value_view) ||
        !gltf_json_uint(values, "byteOffset", 0, UINT64_MAX >> 12, &value_offset)) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "%s: accessor %u: sparse is malformed", what, accessor->index);
    }
    /* Indices decode as floats, exact up to 2^24: more than any count allowed here. */
    gltf_accessor index_accessor = {accessor->index, (uint32_t)count, 1, (uint32_t)index_type,
                                    false};
    float *found = malloc((size_t)count * sizeof *found);
    float *replaced = malloc((size_t)count * accessor->components * sizeof *replaced);
    crowd_result result = CROWD_OK;
    if (found == NULL || replaced == NULL) {
        result = crowd_error_set(doc->error, CROWD_ERROR_OUT_OF_MEMORY, doc->file, "out of memory");
    }
    if (result == CROWD_OK) {
        result = read_elements(doc, index_view, index_offset, false, &index_accessor,
                               (uint32_t)count, found, what);
    }
    if (result == CROWD_OK) {
        result = read_elements(doc, value_view, value_offset, false, accessor, (uint32_t)count,
                               replaced, what);
    }
    for (uint64_t i = 0; result == CROWD_OK && i < count; i++) {
        if (found[i] >= (float)accessor->count || (i > 0 && found[i] <= found[i - 1])) {
            result =
                crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                                "%s: accessor %u: sparse index %llu (%.0f) is out of range "
                                "or not increasing",
                                what, accessor->index, (unsigned long long)i, (double)found[i]);
            break;
        }
        memcpy(out + (size_t)found[i] * accessor->components, replaced + i * accessor->components,
               accessor->components * sizeof *out);
    }
    free(found);
    free(replaced);
    return result;
}

crowd_result gltf_accessor_read(gltf_document *doc, const gltf_accessor *accessor, float *out,
                                const char *what) {
    const cJSON *json = gltf_json_element(doc, "accessors", accessor->index);
    uint64_t view = 0, offset = 0;
    const cJSON *sparse = cJSON_GetObjectItemCaseSensitive(json, "sparse");
    if (json == NULL || !gltf_json_uint(json, "bufferView", UINT64_MAX - 1, UINT32_MAX, &view) ||
        !gltf_json_uint(json, "byteOffset", 0, UINT64_MAX >> 12, &offset) ||
        (sparse != NULL && !cJSON_IsObject(sparse))) {
        return crowd_error_set(doc->error, CROWD_ERROR_INVALID_DATA, doc->file,
                               "%s: accessor %u: bufferView, byteOffset or sparse is not valid",
                               what, accessor->index);
    }
    crowd_result result = CROWD_OK;
    if (view == UINT64_MAX - 1) {
        memset(out, 0, (size_t)accessor->count * accessor->components * sizeof *out);
    } else {
        result = read_elements(doc, view, offset, true, accessor, accessor->count, out, what);
    }
    if (result == CROWD_OK && sparse != NULL) {
        result = apply_sparse(doc, accessor, sparse, out, what);
    }
    return result;
}
