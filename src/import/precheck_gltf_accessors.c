/* precheck_gltf_accessors.c - every accessor: type, componentType, count,
 * its elements inside its bufferView, and sparse substitution (index and
 * value ranges inside their views, every index read: below the accessor's
 * count and increasing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/precheck_gltf.h"

/* An accessor without a bufferView is zeros that assimp allocates whole;
 * beyond this it is no character's data but a request for memory. */
#define PG_MAX_ZEROS_BYTES (64u << 20)

static uint32_t component_bytes(uint64_t type) {
    switch (type) {
    case 5120: /* BYTE */
    case PG_UNSIGNED_BYTE:
        return 1;
    case 5122: /* SHORT */
    case PG_UNSIGNED_SHORT:
        return 2;
    case PG_UNSIGNED_INT:
    case PG_FLOAT:
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

/* `count` elements of `element` bytes, `stride` apart, from `offset` into
 * view `view` must lie inside it. */
static crowd_result check_span(pg_check *c, uint32_t index, const char *part, uint32_t view,
                               uint64_t offset, uint64_t stride, uint64_t element, uint64_t count) {
    uint64_t length = c->views[view].length;
    uint64_t end = offset + stride * (count - 1) + element;
    if (end > length) {
        return pg_fail(c,
                       "accessor %u%s needs bytes [%llu, %llu) of bufferView %u, which has %llu "
                       "(%llu bytes past its end)",
                       index, part, (unsigned long long)offset, (unsigned long long)end, view,
                       (unsigned long long)length, (unsigned long long)(end - length));
    }
    return CROWD_OK;
}

typedef struct sparse_walk {
    uint32_t accessor;
    uint32_t count;
    uint64_t previous;
} sparse_walk;

static crowd_result visit_sparse_index(pg_check *c, uint64_t i, uint32_t value, void *user) {
    sparse_walk *walk = user;
    if (value >= walk->count || (i > 0 && value <= walk->previous)) {
        return pg_fail(c, "accessor %u: sparse index %llu (%u) is %s", walk->accessor,
                       (unsigned long long)i, value,
                       value >= walk->count ? "past the accessor's count" : "not increasing");
    }
    walk->previous = value;
    return CROWD_OK;
}

static crowd_result check_sparse(pg_check *c, uint32_t index, const cJSON *sparse) {
    const pg_accessor *a = &c->accessors[index];
    const cJSON *indices = cJSON_GetObjectItemCaseSensitive(sparse, "indices");
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(sparse, "values");
    uint64_t count = 0, index_offset = 0, index_type = 0, value_offset = 0;
    if (!cJSON_IsObject(sparse) || !cJSON_IsObject(indices) || !cJSON_IsObject(values) ||
        !gltf_json_uint(sparse, "count", UINT64_MAX, a->count, &count) || count == 0 ||
        !gltf_json_uint(indices, "byteOffset", 0, UINT64_MAX >> 12, &index_offset) ||
        !gltf_json_uint(indices, "componentType", UINT64_MAX, UINT32_MAX, &index_type) ||
        (index_type != PG_UNSIGNED_BYTE && index_type != PG_UNSIGNED_SHORT &&
         index_type != PG_UNSIGNED_INT) ||
        !gltf_json_uint(values, "byteOffset", 0, UINT64_MAX >> 12, &value_offset)) {
        return pg_fail(c,
                       "accessor %u: sparse is malformed (count in [1, %u], indices and values "
                       "with bufferView, byteOffset, an unsigned componentType for indices)",
                       index, a->count);
    }
    char where[48];
    snprintf(where, sizeof where, "accessor %u sparse", index);
    uint32_t index_view = 0, value_view = 0;
    bool present;
    crowd_result result =
        pg_ref(c, indices, "bufferView", PG_BUFFER_VIEWS, true, where, &index_view, &present);
    if (result == CROWD_OK) {
        result =
            pg_ref(c, values, "bufferView", PG_BUFFER_VIEWS, true, where, &value_view, &present);
    }
    uint32_t index_bytes = component_bytes(index_type);
    if (result == CROWD_OK) {
        result = check_span(c, index, " sparse indices", index_view, index_offset, index_bytes,
                            index_bytes, count);
    }
    if (result == CROWD_OK) {
        result = check_span(c, index, " sparse values", value_view, value_offset, a->element_bytes,
                            a->element_bytes, count);
    }
    if (result == CROWD_OK) {
        sparse_walk walk = {index, a->count, 0};
        result = pg_read_uints(c, index_view, index_offset, 0, (uint32_t)index_type, count,
                               visit_sparse_index, &walk);
    }
    return result;
}

static crowd_result check_accessor(pg_check *c, uint32_t index) {
    const cJSON *json = c->lists[PG_ACCESSORS].items[index];
    pg_accessor *a = &c->accessors[index];
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(json, "type");
    const cJSON *normalized = cJSON_GetObjectItemCaseSensitive(json, "normalized");
    uint64_t component_type = 0, count = 0, offset = 0;
    if (!cJSON_IsString(type) || type_components(type->valuestring) == 0) {
        return pg_fail(c, "accessor %u: type is missing or not SCALAR, VEC2-4 or MAT2-4", index);
    }
    if (!gltf_json_uint(json, "componentType", UINT64_MAX, UINT32_MAX, &component_type) ||
        component_bytes(component_type) == 0) {
        return pg_fail(
            c, "accessor %u: componentType is missing or not one of 5120-5123, 5125, 5126", index);
    }
    if (normalized != NULL &&
        (!cJSON_IsBool(normalized) ||
         (cJSON_IsTrue(normalized) && component_bytes(component_type) == 4))) {
        return pg_fail(c, "accessor %u: normalized with componentType %u", index,
                       (uint32_t)component_type);
    }
    if (!gltf_json_uint(json, "count", UINT64_MAX, UINT32_MAX, &count) || count == 0) {
        return pg_fail(c, "accessor %u: count missing or < 1", index);
    }
    if (!gltf_json_uint(json, "byteOffset", 0, UINT64_MAX >> 12, &offset)) {
        return pg_fail(c, "accessor %u: byteOffset is not a byte count", index);
    }
    a->count = (uint32_t)count;
    a->components = type_components(type->valuestring);
    a->component_type = (uint32_t)component_type;
    a->element_bytes = a->components * component_bytes(component_type);
    snprintf(a->type, sizeof a->type, "%s", type->valuestring);
    char where[32];
    snprintf(where, sizeof where, "accessor %u", index);
    uint32_t view = 0;
    bool has_view;
    crowd_result result =
        pg_ref(c, json, "bufferView", PG_BUFFER_VIEWS, false, where, &view, &has_view);
    if (result != CROWD_OK) {
        return result;
    }
    if (has_view) {
        uint64_t stride = c->views[view].stride ? c->views[view].stride : a->element_bytes;
        if (stride < a->element_bytes) {
            return pg_fail(c,
                           "accessor %u: bufferView %u byteStride %llu is smaller than an element "
                           "(%u bytes)",
                           index, view, (unsigned long long)stride, a->element_bytes);
        }
        result = check_span(c, index, "", view, offset, stride, a->element_bytes, count);
    } else if (count * a->element_bytes > PG_MAX_ZEROS_BYTES) {
        return crowd_error_set(c->error, CROWD_ERROR_LIMIT, c->file,
                               "accessor %u: %llu bytes without a bufferView, more than the %u MiB "
                               "allowed",
                               index, (unsigned long long)(count * a->element_bytes),
                               PG_MAX_ZEROS_BYTES >> 20);
    }
    const cJSON *sparse = cJSON_GetObjectItemCaseSensitive(json, "sparse");
    if (result == CROWD_OK && sparse != NULL) {
        result = check_sparse(c, index, sparse);
    }
    return result;
}

crowd_result pg_check_accessors(pg_check *c) {
    uint32_t count = c->lists[PG_ACCESSORS].count;
    c->accessors = calloc((size_t)count + 1, sizeof *c->accessors);
    if (c->accessors == NULL) {
        return crowd_error_set(c->error, CROWD_ERROR_OUT_OF_MEMORY, c->file, "out of memory");
    }
    crowd_result result = CROWD_OK;
    for (uint32_t a = 0; result == CROWD_OK && a < count; a++) {
        result = check_accessor(c, a);
    }
    return result;
}
