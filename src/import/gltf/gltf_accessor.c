/* gltf_accessor.c - glTF accessors to floats or unsigned integers:
 * component types, normalized integers, bufferView byteOffset/byteStride,
 * accessors without a bufferView (zeros), sparse substitution; every range
 * checked against the view and the buffer before it is read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/gltf/gltf_internal.h"

/* The specification's bounds of bufferView.byteStride. */
#define GLTF_MIN_STRIDE 4u
#define GLTF_MAX_STRIDE 252u
/* An accessor without a bufferView is zeros allocated whole; beyond this
 * it is no character's data but a request for memory. */
#define GLTF_MAX_ZEROS_BYTES (64u << 20)

uint32_t crowd__gltf_component_size(uint32_t type) {
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
    static const struct {
        const char *name;
        uint32_t components;
    } types[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4},
                 {"MAT2", 4},   {"MAT3", 9}, {"MAT4", 16}};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        if (strcmp(type, types[t].name) == 0) {
            return types[t].components;
        }
    }
    return 0;
}

crowd_result crowd__gltf_accessor_describe(gltf_document *doc, uint32_t index, gltf_accessor *out) {
    const cJSON *json = doc->lists[GLTF_ACCESSORS].items[index];
    memset(out, 0, sizeof *out);
    out->index = index;
    snprintf(out->path, sizeof out->path, "accessors[%u]", index);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(json, "type");
    const cJSON *normalized = cJSON_GetObjectItemCaseSensitive(json, "normalized");
    uint64_t component_type = 0, count = 0;
    if (!cJSON_IsString(type) || type_components(type->valuestring) == 0) {
        return crowd__gltf_fail(doc, "%s.type is missing or not SCALAR, VEC2-4 or MAT2-4",
                                out->path);
    }
    out->components = type_components(type->valuestring);
    out->is_matrix = type->valuestring[0] == 'M';
    if (!crowd__gltf_json_uint(json, "componentType", UINT64_MAX, UINT32_MAX, &component_type) ||
        crowd__gltf_component_size((uint32_t)component_type) == 0) {
        return crowd__gltf_fail(
            doc, "%s.componentType is missing or not one of 5120-5123, 5125, 5126", out->path);
    }
    out->component_type = (uint32_t)component_type;
    if (normalized != NULL &&
        (!cJSON_IsBool(normalized) ||
         (cJSON_IsTrue(normalized) && crowd__gltf_component_size(out->component_type) == 4))) {
        return crowd__gltf_fail(doc, "%s.normalized is not false for componentType %u", out->path,
                                out->component_type);
    }
    out->normalized = cJSON_IsTrue(normalized);
    if (!crowd__gltf_json_uint(json, "count", UINT64_MAX, UINT32_MAX, &count) || count == 0) {
        return crowd__gltf_fail(doc, "%s.count is missing or < 1", out->path);
    }
    out->count = (uint32_t)count;
    /* Matrices of 8- and 16-bit components pad their columns to 4 bytes;
     * no character stores them so. */
    if (out->is_matrix && crowd__gltf_component_size(out->component_type) != 4) {
        return crowd_error_set(doc->error, CROWD_ERROR_UNSUPPORTED, doc->file,
                               "%s: matrices of %u-byte components are not read", out->path,
                               crowd__gltf_component_size(out->component_type));
    }
    return CROWD_OK;
}

static float decode(const uint8_t *p, uint32_t type, bool normalized) {
    switch (type) {
    case GLTF_BYTE: {
        int8_t value = (int8_t)p[0];
        return normalized ? fmaxf((float)(value / 127.0), -1.0f) : (float)value;
    }
    case GLTF_UNSIGNED_BYTE:
        return normalized ? (float)(p[0] / 255.0) : (float)p[0];
    case GLTF_SHORT: {
        int16_t value = (int16_t)(uint16_t)(p[0] | p[1] << 8);
        return normalized ? fmaxf((float)(value / 32767.0), -1.0f) : (float)value;
    }
    case GLTF_UNSIGNED_SHORT: {
        uint32_t value = (uint32_t)(p[0] | p[1] << 8);
        return normalized ? (float)(value / 65535.0) : (float)value;
    }
    case GLTF_UNSIGNED_INT:
        return (float)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                       (uint32_t)p[3] << 24);
    default: {
        float value;
        memcpy(&value, p, sizeof value);
        return value;
    }
    }
}

static uint32_t decode_uint(const uint8_t *p, uint32_t size) {
    return size == 1 ? p[0]
           : size == 2
               ? (uint32_t)(p[0] | p[1] << 8)
               : (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Where elements are: a pointer to the first and the distance between them. */
typedef struct element_run {
    const uint8_t *first;
    uint64_t stride;
} element_run;

crowd_result crowd__gltf_view_bytes(gltf_document *doc, uint32_t view, const uint8_t **bytes,
                                    uint64_t *length, uint64_t *stride) {
    const cJSON *json = doc->lists[GLTF_BUFFER_VIEWS].items[view];
    char path[32];
    snprintf(path, sizeof path, "bufferViews[%u]", view);
    uint32_t buffer = 0;
    uint64_t offset = 0;
    crowd_result result =
        crowd__gltf_ref(doc, json, "buffer", GLTF_BUFFERS, true, path, &buffer, NULL);
    if (result != CROWD_OK) {
        return result;
    }
    if (!crowd__gltf_json_uint(json, "byteOffset", 0, UINT64_MAX >> 12, &offset) ||
        !crowd__gltf_json_uint(json, "byteLength", UINT64_MAX, UINT64_MAX >> 12, length)) {
        return crowd__gltf_fail(doc, "%s.byteOffset or byteLength is missing or not a byte count",
                                path);
    }
    if (!crowd__gltf_json_uint(json, "byteStride", 0, GLTF_MAX_STRIDE, stride) ||
        (*stride != 0 && *stride < GLTF_MIN_STRIDE)) {
        return crowd__gltf_fail(doc, "%s.byteStride is not an integer in [%u, %u]", path,
                                GLTF_MIN_STRIDE, GLTF_MAX_STRIDE);
    }
    return crowd__gltf_buffer_bytes(doc, buffer, offset, *length, bytes, path);
}

/* `count` elements of `element` bytes from `offset` into bufferView `view`
 * (its byteStride when `use_stride`), every byte inside the view and its
 * buffer. `part` names them in messages (".sparse.indices"). */
static crowd_result locate(gltf_document *doc, const gltf_accessor *accessor, const char *part,
                           uint32_t view, uint64_t offset, bool use_stride, uint64_t element,
                           uint32_t count, element_run *out) {
    const uint8_t *bytes = NULL;
    uint64_t length = 0, stride = 0;
    crowd_result result = crowd__gltf_view_bytes(doc, view, &bytes, &length, &stride);
    if (result != CROWD_OK) {
        return result;
    }
    stride = use_stride && stride != 0 ? stride : element;
    if (stride < element) {
        return crowd__gltf_fail(
            doc,
            "%s: bufferViews[%u].byteStride %llu is smaller than an element (%llu "
            "bytes)",
            accessor->path, view, (unsigned long long)stride, (unsigned long long)element);
    }
    uint64_t end = offset + stride * (count - 1) + element;
    if (end > length) {
        return crowd__gltf_fail(
            doc,
            "%s%s needs bytes [%llu, %llu) of bufferViews[%u], which has %llu (%llu "
            "bytes past its end)",
            accessor->path, part, (unsigned long long)offset, (unsigned long long)end, view,
            (unsigned long long)length, (unsigned long long)(end - length));
    }
    out->first = bytes + offset;
    out->stride = stride;
    return CROWD_OK;
}

/* What one read fills: floats or unsigned integers (neither: only checked). */
typedef struct read_target {
    float *floats;
    uint32_t *uints;
} read_target;

static void decode_run(const gltf_accessor *accessor, const element_run *run, uint32_t count,
                       const uint32_t *rows, read_target *out) {
    if (out->floats == NULL && out->uints == NULL) {
        return;
    }
    uint32_t size = crowd__gltf_component_size(accessor->component_type);
    uint32_t n = accessor->components;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *p = run->first + i * run->stride;
        size_t at = (size_t)(rows ? rows[i] : i) * n;
        for (uint32_t c = 0; c < n; c++) {
            if (out->floats != NULL) {
                out->floats[at + c] =
                    decode(p + c * size, accessor->component_type, accessor->normalized);
            } else {
                out->uints[at + c] = decode_uint(p + c * size, size);
            }
        }
    }
}

/* Sparse substitution: `count` strictly increasing indices, each below the
 * accessor's count, and as many tightly packed values. */
static crowd_result apply_sparse(gltf_document *doc, const gltf_accessor *accessor,
                                 const cJSON *sparse, read_target *out) {
    const cJSON *indices = cJSON_GetObjectItemCaseSensitive(sparse, "indices");
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(sparse, "values");
    uint64_t count = 0, index_offset = 0, index_type = 0, value_offset = 0;
    if (!cJSON_IsObject(sparse) || !cJSON_IsObject(indices) || !cJSON_IsObject(values) ||
        !crowd__gltf_json_uint(sparse, "count", UINT64_MAX, accessor->count, &count) ||
        count == 0 ||
        !crowd__gltf_json_uint(indices, "byteOffset", 0, UINT64_MAX >> 12, &index_offset) ||
        !crowd__gltf_json_uint(indices, "componentType", UINT64_MAX, UINT32_MAX, &index_type) ||
        (index_type != GLTF_UNSIGNED_BYTE && index_type != GLTF_UNSIGNED_SHORT &&
         index_type != GLTF_UNSIGNED_INT) ||
        !crowd__gltf_json_uint(values, "byteOffset", 0, UINT64_MAX >> 12, &value_offset)) {
        return crowd__gltf_fail(doc,
                                "%s.sparse is malformed (count in [1, %u], indices and values with "
                                "bufferView, byteOffset, an unsigned componentType for indices)",
                                accessor->path, accessor->count);
    }
    char path[48];
    snprintf(path, sizeof path, "%s.sparse.indices", accessor->path);
    uint32_t index_view = 0, value_view = 0;
    crowd_result result = crowd__gltf_ref(doc, indices, "bufferView", GLTF_BUFFER_VIEWS, true, path,
                                          &index_view, NULL);
    snprintf(path, sizeof path, "%s.sparse.values", accessor->path);
    if (result == CROWD_OK) {
        result = crowd__gltf_ref(doc, values, "bufferView", GLTF_BUFFER_VIEWS, true, path,
                                 &value_view, NULL);
    }
    uint32_t index_size = crowd__gltf_component_size((uint32_t)index_type);
    element_run index_run, value_run;
    if (result == CROWD_OK) {
        result = locate(doc, accessor, ".sparse.indices", index_view, index_offset, false,
                        index_size, (uint32_t)count, &index_run);
    }
    if (result == CROWD_OK) {
        result = locate(doc, accessor, ".sparse.values", value_view, value_offset, false,
                        (uint64_t)crowd__gltf_component_size(accessor->component_type) *
                            accessor->components,
                        (uint32_t)count, &value_run);
    }
    uint32_t *rows = result == CROWD_OK ? malloc((size_t)count * sizeof *rows) : NULL;
    if (result == CROWD_OK && rows == NULL) {
        result = crowd_error_set(doc->error, CROWD_ERROR_OUT_OF_MEMORY, doc->file, "out of memory");
    }
    for (uint64_t i = 0; result == CROWD_OK && i < count; i++) {
        rows[i] = decode_uint(index_run.first + i * index_size, index_size);
        if (rows[i] >= accessor->count || (i > 0 && rows[i] <= rows[i - 1])) {
            result = crowd__gltf_fail(doc, "%s.sparse: index %llu (%u) is %s", accessor->path,
                                      (unsigned long long)i, rows[i],
                                      rows[i] >= accessor->count ? "past the accessor's count"
                                                                 : "not increasing");
        }
    }
    if (result == CROWD_OK) {
        decode_run(accessor, &value_run, (uint32_t)count, rows, out);
    }
    free(rows);
    return result;
}

static crowd_result read_into(gltf_document *doc, const gltf_accessor *accessor, read_target *out) {
    const cJSON *json = doc->lists[GLTF_ACCESSORS].items[accessor->index];
    uint64_t offset = 0;
    uint32_t view = 0;
    bool has_view = false;
    crowd_result result = crowd__gltf_ref(doc, json, "bufferView", GLTF_BUFFER_VIEWS, false,
                                          accessor->path, &view, &has_view);
    if (result != CROWD_OK) {
        return result;
    }
    if (!crowd__gltf_json_uint(json, "byteOffset", 0, UINT64_MAX >> 12, &offset)) {
        return crowd__gltf_fail(doc, "%s.byteOffset is not a byte count", accessor->path);
    }
    uint32_t size = crowd__gltf_component_size(accessor->component_type);
    size_t values = (size_t)accessor->count * accessor->components;
    if (has_view) {
        element_run run;
        result = locate(doc, accessor, "", view, offset, true,
                        (uint64_t)size * accessor->components, accessor->count, &run);
        if (result == CROWD_OK) {
            decode_run(accessor, &run, accessor->count, NULL, out);
        }
    } else if (out->floats != NULL) {
        memset(out->floats, 0, values * sizeof *out->floats);
    } else if (out->uints != NULL) {
        memset(out->uints, 0, values * sizeof *out->uints);
    }
    const cJSON *sparse = cJSON_GetObjectItemCaseSensitive(json, "sparse");
    if (result == CROWD_OK && sparse != NULL) {
        result = apply_sparse(doc, accessor, sparse, out);
    }
    return result;
}

/* An accessor without a bufferView is zeros allocated whole: its size is
 * checked first, so a file cannot ask for gigabytes of them. */
static crowd_result check_zeros(gltf_document *doc, const gltf_accessor *accessor) {
    const cJSON *json = doc->lists[GLTF_ACCESSORS].items[accessor->index];
    uint64_t bytes = (uint64_t)accessor->count * accessor->components *
                     crowd__gltf_component_size(accessor->component_type);
    if (cJSON_GetObjectItemCaseSensitive(json, "bufferView") == NULL &&
        bytes > GLTF_MAX_ZEROS_BYTES) {
        return crowd_error_set(doc->error, CROWD_ERROR_LIMIT, doc->file,
                               "%s: %llu bytes without a bufferView, more than the %u MiB allowed",
                               accessor->path, (unsigned long long)bytes,
                               GLTF_MAX_ZEROS_BYTES >> 20);
    }
    return CROWD_OK;
}

static crowd_result allocate(gltf_document *doc, const gltf_accessor *accessor, size_t item,
                             void **out) {
    crowd_result result = check_zeros(doc, accessor);
    if (result != CROWD_OK) {
        return result;
    }
    *out = malloc(((size_t)accessor->count * accessor->components + 1) * item);
    return *out != NULL
               ? CROWD_OK
               : crowd_error_set(doc->error, CROWD_ERROR_OUT_OF_MEMORY, doc->file, "out of memory");
}

crowd_result crowd__gltf_accessor_check(gltf_document *doc, uint32_t index) {
    gltf_accessor accessor;
    crowd_result result = crowd__gltf_accessor_describe(doc, index, &accessor);
    if (result == CROWD_OK) {
        result = check_zeros(doc, &accessor);
    }
    read_target nothing = {NULL, NULL};
    return result == CROWD_OK ? read_into(doc, &accessor, &nothing) : result;
}

/* The accessor read whole into a new array of floats or of uints. */
static crowd_result read_new(gltf_document *doc, const gltf_accessor *accessor, bool floats,
                             void **out) {
    *out = NULL;
    void *memory = NULL;
    crowd_result result =
        allocate(doc, accessor, floats ? sizeof(float) : sizeof(uint32_t), &memory);
    read_target target = {floats ? memory : NULL, floats ? NULL : memory};
    if (result == CROWD_OK) {
        result = read_into(doc, accessor, &target);
    }
    if (result != CROWD_OK) {
        free(memory);
        return result;
    }
    *out = memory;
    return CROWD_OK;
}

crowd_result crowd__gltf_accessor_floats(gltf_document *doc, const gltf_accessor *accessor,
                                         float **out) {
    void *memory = NULL;
    crowd_result result = read_new(doc, accessor, true, &memory);
    *out = memory;
    return result;
}

crowd_result crowd__gltf_accessor_uints(gltf_document *doc, const gltf_accessor *accessor,
                                        uint32_t **out) {
    *out = NULL;
    if (accessor->component_type == GLTF_FLOAT || accessor->component_type == GLTF_BYTE ||
        accessor->component_type == GLTF_SHORT || accessor->normalized) {
        return crowd__gltf_fail(doc, "%s: componentType %u%s is not an unsigned integer type",
                                accessor->path, accessor->component_type,
                                accessor->normalized ? " (normalized)" : "");
    }
    void *memory = NULL;
    crowd_result result = read_new(doc, accessor, false, &memory);
    *out = memory;
    return result;
}

crowd_result crowd__gltf_accessor_open(gltf_document *doc, const cJSON *object, const char *key,
                                       const char *path, bool required, gltf_accessor *out,
                                       bool *present) {
    uint32_t index = 0;
    bool found = false;
    crowd_result result =
        crowd__gltf_ref(doc, object, key, GLTF_ACCESSORS, required, path, &index, &found);
    if (present != NULL) {
        *present = found;
    }
    if (result != CROWD_OK || !found) {
        return result;
    }
    return crowd__gltf_accessor_describe(doc, index, out);
}
