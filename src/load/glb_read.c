/* Strict binary glTF reader for a bake's mesh (glb_read.h). The container is
 * checked first (magic, version, lengths, chunk types), the JSON chunk is
 * parsed with cJSON, and every accessor is located through checked 64-bit
 * arithmetic before its bytes are copied out with memcpy (no alignment
 * assumptions, little-endian as glTF requires). */
#include "load/glb_read.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/png_read.h"
#include "core/core_internal.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the GLB reader copies arrays as stored, which glTF defines as little-endian"
#endif

enum {
    GLTF_UNSIGNED_BYTE = 5121,
    GLTF_UNSIGNED_SHORT = 5123,
    GLTF_UNSIGNED_INT = 5125,
    GLTF_FLOAT = 5126,
    GLTF_TRIANGLES = 4,
    GLB_MAGIC = 0x46546C67,
    GLB_CHUNK_JSON = 0x4E4F534A,
    GLB_CHUNK_BIN = 0x004E4942,
};

/* Far above any real bake; keeps counts inside 32-bit arithmetic. */
#define GLB_MAX_COUNT (1u << 30)

typedef struct glb_reader {
    const char *name;
    const crowd_allocator *allocator; /* the asset's: every block the reader takes */
    crowd_error *error;
    cJSON *json;
    const uint8_t *bin; /* buffer 0 */
    size_t bin_size;    /* its byteLength */
    cJSON *accessors, *views, *nodes;
} glb_reader;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static crowd_result
invalid(glb_reader *r, const char *format, ...) {
    char what[256];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    return crowd_error_set(r->error, CROWD_ERROR_INVALID_DATA, r->name, "mesh: %s", what);
}

static crowd_result unsupported(glb_reader *r, const char *what) {
    return crowd_error_set(r->error, CROWD_ERROR_UNSUPPORTED, r->name, "mesh: not supported: %s",
                           what);
}

static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A non-negative integer member; `fallback` < 0 means required. */
static crowd_result get_index(glb_reader *r, const cJSON *object, const char *key, double fallback,
                              double max, const char *where, uint64_t *out) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    if (item == NULL) {
        if (fallback < 0) {
            return invalid(r, "%s: no '%s'", where, key);
        }
        *out = (uint64_t)fallback;
        return CROWD_OK;
    }
    double value = cJSON_IsNumber(item) ? item->valuedouble : -1.0;
    if (!(value >= 0.0 && value <= max && value == floor(value))) {
        return invalid(r, "%s: '%s' is not an integer in [0, %.0f]", where, key, max);
    }
    *out = (uint64_t)value;
    return CROWD_OK;
}

/* `count` finite numbers from a JSON array member into out; absent keeps out. */
static crowd_result get_floats(glb_reader *r, const cJSON *object, const char *key, int count,
                               const char *where, float *out) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    if (item == NULL) {
        return CROWD_OK;
    }
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != count) {
        return invalid(r, "%s: '%s' is not an array of %d numbers", where, key, count);
    }
    int i = 0;
    const cJSON *element;
    cJSON_ArrayForEach(element, item) {
        if (!cJSON_IsNumber(element) || !isfinite(element->valuedouble) ||
            fabs(element->valuedouble) > 3.4e38) {
            return invalid(r, "%s: '%s'[%d] is not a finite number", where, key, i);
        }
        out[i++] = (float)element->valuedouble;
    }
    return CROWD_OK;
}

static cJSON *array_member(const cJSON *object, const char *key) {
    cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsArray(item) ? item : NULL;
}

/* ---- container ---------------------------------------------------------- */

static crowd_result parse_container(glb_reader *r, const uint8_t *data, size_t size) {
    if (size < 20 || get_u32(data) != GLB_MAGIC) {
        return crowd_error_set(r->error, CROWD_ERROR_INVALID_DATA, r->name,
                               "not a binary glTF (.glb) file");
    }
    if (get_u32(data + 4) != 2) {
        return crowd_error_set(r->error, CROWD_ERROR_UNSUPPORTED, r->name,
                               "binary glTF version %u; only version 2 is read", get_u32(data + 4));
    }
    if (get_u32(data + 8) != size) {
        return invalid(r, "header says %u bytes, the file has %zu (truncated?)", get_u32(data + 8),
                       size);
    }
    uint64_t json_size = get_u32(data + 12);
    if (get_u32(data + 16) != GLB_CHUNK_JSON || 20 + json_size > size) {
        return invalid(r, "the first chunk is not a JSON chunk inside the file");
    }
    const uint8_t *bin = NULL;
    uint64_t bin_chunk = 0, offset = 20 + json_size;
    if (offset + 8 <= size) {
        bin_chunk = get_u32(data + offset);
        if (get_u32(data + offset + 4) != GLB_CHUNK_BIN || offset + 8 + bin_chunk > size) {
            return invalid(r, "the second chunk is not a BIN chunk inside the file");
        }
        bin = data + offset + 8;
    }
    r->json = cJSON_ParseWithLength((const char *)data + 20, (size_t)json_size);
    if (!cJSON_IsObject(r->json)) {
        return invalid(r, "the JSON chunk does not parse");
    }
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(r->json, "asset");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(asset, "version");
    if (!cJSON_IsString(version) || strncmp(version->valuestring, "2.", 2) != 0) {
        return unsupported(r, "asset.version is not 2.x");
    }
    const cJSON *required = cJSON_GetObjectItemCaseSensitive(r->json, "extensionsRequired");
    if (required != NULL && cJSON_GetArraySize(required) > 0) {
        return unsupported(r, "the file requires glTF extensions");
    }
    cJSON *buffers = array_member(r->json, "buffers");
    if (buffers == NULL || cJSON_GetArraySize(buffers) != 1) {
        return unsupported(r, "a bake mesh has exactly one buffer");
    }
    const cJSON *buffer = cJSON_GetArrayItem(buffers, 0);
    if (cJSON_GetObjectItemCaseSensitive(buffer, "uri") != NULL) {
        return unsupported(r, "the buffer is an external file; bake meshes embed it");
    }
    uint64_t length = 0;
    crowd_result result = get_index(r, buffer, "byteLength", -1, 4294967295.0, "buffer 0", &length);
    if (result != CROWD_OK) {
        return result;
    }
    if (length > bin_chunk) {
        return invalid(r, "buffer 0 is %llu bytes, the BIN chunk holds %llu",
                       (unsigned long long)length, (unsigned long long)bin_chunk);
    }
    r->bin = bin;
    r->bin_size = (size_t)length;
    r->accessors = array_member(r->json, "accessors");
    r->views = array_member(r->json, "bufferViews");
    r->nodes = array_member(r->json, "nodes");
    return CROWD_OK;
}

/* ---- accessors ---------------------------------------------------------- */

typedef struct accessor_span {
    const uint8_t *base;
    size_t stride;
    uint32_t count;
    int component_type;
} accessor_span;

static size_t component_size(int type) {
    switch (type) {
    case 5120:
    case 5121:
        return 1;
    case 5122:
    case 5123:
        return 2;
    case 5125:
    case 5126:
        return 4;
    default:
        return 0;
    }
}

/* Finds accessor `index`, checks its type and every bound. */
static crowd_result locate(glb_reader *r, uint64_t index, const char *type, int components,
                           accessor_span *span) {
    char where[48];
    snprintf(where, sizeof where, "accessor %llu", (unsigned long long)index);
    const cJSON *accessor = cJSON_GetArrayItem(r->accessors, (int)index);
    if (index > INT32_MAX || !cJSON_IsObject(accessor)) {
        return invalid(r, "%s does not exist", where);
    }
    if (cJSON_GetObjectItemCaseSensitive(accessor, "sparse") != NULL) {
        return unsupported(r, "sparse accessors");
    }
    if (cJSON_GetObjectItemCaseSensitive(accessor, "bufferView") == NULL) {
        return unsupported(r, "accessors without a bufferView");
    }
    const cJSON *type_item = cJSON_GetObjectItemCaseSensitive(accessor, "type");
    if (!cJSON_IsString(type_item) || strcmp(type_item->valuestring, type) != 0) {
        return invalid(r, "%s is not a %s", where, type);
    }
    const cJSON *normalized = cJSON_GetObjectItemCaseSensitive(accessor, "normalized");
    if (cJSON_IsTrue(normalized)) {
        return unsupported(r, "normalized integer attributes");
    }
    uint64_t view_index = 0, offset = 0, count = 0, component = 0;
    crowd_result result = get_index(r, accessor, "bufferView", -1, INT32_MAX, where, &view_index);
    if (result == CROWD_OK) {
        result = get_index(r, accessor, "byteOffset", 0, 4294967295.0, where, &offset);
    }
    if (result == CROWD_OK) {
        result = get_index(r, accessor, "count", -1, GLB_MAX_COUNT, where, &count);
    }
    if (result == CROWD_OK) {
        result = get_index(r, accessor, "componentType", -1, 65535, where, &component);
    }
    if (result != CROWD_OK) {
        return result;
    }
    size_t element = component_size((int)component) * (size_t)components;
    if (element == 0 || count == 0) {
        return invalid(r, "%s has componentType %llu and count %llu", where,
                       (unsigned long long)component, (unsigned long long)count);
    }
    const cJSON *view = cJSON_GetArrayItem(r->views, (int)view_index);
    if (!cJSON_IsObject(view)) {
        return invalid(r, "%s uses bufferView %llu, which does not exist", where,
                       (unsigned long long)view_index);
    }
    snprintf(where, sizeof where, "bufferView %llu", (unsigned long long)view_index);
    uint64_t buffer = 0, view_offset = 0, view_length = 0, stride = 0;
    result = get_index(r, view, "buffer", -1, 0, where, &buffer);
    if (result == CROWD_OK) {
        result = get_index(r, view, "byteOffset", 0, 4294967295.0, where, &view_offset);
    }
    if (result == CROWD_OK) {
        result = get_index(r, view, "byteLength", -1, 4294967295.0, where, &view_length);
    }
    if (result == CROWD_OK) {
        result = get_index(r, view, "byteStride", (double)element, 252, where, &stride);
    }
    if (result != CROWD_OK) {
        return result;
    }
    if (view_offset + view_length > r->bin_size || stride < element ||
        offset + stride * (count - 1) + element > view_length) {
        return invalid(r, "accessor %llu reaches beyond its bufferView or buffer",
                       (unsigned long long)index);
    }
    span->base = r->bin + view_offset + offset;
    span->stride = (size_t)stride;
    span->count = (uint32_t)count;
    span->component_type = (int)component;
    return CROWD_OK;
}

/* FLOAT elements of `components` floats each, into a new array. */
static crowd_result read_floats(glb_reader *r, uint64_t index, const char *type, int components,
                                float **out, uint32_t *out_count) {
    accessor_span span;
    crowd_result result = locate(r, index, type, components, &span);
    if (result != CROWD_OK) {
        return result;
    }
    if (span.component_type != GLTF_FLOAT) {
        return crowd_error_set(r->error, CROWD_ERROR_UNSUPPORTED, r->name,
                               "mesh: accessor %llu is not float", (unsigned long long)index);
    }
    size_t element = (size_t)components * sizeof(float);
    *out = crowd__mem_alloc(r->allocator, span.count * element);
    if (*out == NULL) {
        return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->name, "out of memory");
    }
    for (uint32_t i = 0; i < span.count; i++) {
        memcpy((uint8_t *)*out + i * element, span.base + i * span.stride, element);
    }
    *out_count = span.count;
    return CROWD_OK;
}

/* Unsigned byte/short/int elements widened to uint32. */
static crowd_result read_uints(glb_reader *r, uint64_t index, const char *type, int components,
                               uint32_t **out, uint32_t *out_count) {
    accessor_span span;
    crowd_result result = locate(r, index, type, components, &span);
    if (result != CROWD_OK) {
        return result;
    }
    if (span.component_type != GLTF_UNSIGNED_BYTE && span.component_type != GLTF_UNSIGNED_SHORT &&
        span.component_type != GLTF_UNSIGNED_INT) {
        return invalid(r, "accessor %llu is not unsigned integer", (unsigned long long)index);
    }
    size_t size = component_size(span.component_type);
    *out = crowd__mem_alloc(r->allocator, (size_t)span.count * (size_t)components * sizeof **out);
    if (*out == NULL) {
        return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->name, "out of memory");
    }
    for (uint32_t i = 0; i < span.count; i++) {
        for (int c = 0; c < components; c++) {
            const uint8_t *p = span.base + i * span.stride + (size_t)c * size;
            uint32_t value = size == 1   ? p[0]
                             : size == 2 ? (uint32_t)(p[0] | p[1] << 8)
                                         : get_u32(p);
            (*out)[(size_t)i * (size_t)components + (size_t)c] = value;
        }
    }
    *out_count = span.count;
    return CROWD_OK;
}

/* ---- mesh --------------------------------------------------------------- */

typedef struct attribute_set {
    uint64_t position, normal, tangent, uv0, uv1, joints, weights;
    bool has_tangent, has_uv1, has_skin;
} attribute_set;

static crowd_result read_attribute_set(glb_reader *r, const cJSON *primitive, uint32_t p,
                                       attribute_set *set) {
    char where[40];
    snprintf(where, sizeof where, "primitive %u", p);
    const cJSON *attributes = cJSON_GetObjectItemCaseSensitive(primitive, "attributes");
    if (!cJSON_IsObject(attributes)) {
        return invalid(r, "%s has no attributes", where);
    }
    set->has_tangent = cJSON_GetObjectItemCaseSensitive(attributes, "TANGENT") != NULL;
    set->has_uv1 = cJSON_GetObjectItemCaseSensitive(attributes, "TEXCOORD_1") != NULL;
    set->has_skin = cJSON_GetObjectItemCaseSensitive(attributes, "JOINTS_0") != NULL;
    crowd_result result =
        get_index(r, attributes, "POSITION", -1, INT32_MAX, where, &set->position);
    if (result == CROWD_OK) {
        result = get_index(r, attributes, "NORMAL", -1, INT32_MAX, where, &set->normal);
    }
    if (result == CROWD_OK) {
        result = get_index(r, attributes, "TEXCOORD_0", -1, INT32_MAX, where, &set->uv0);
    }
    if (result == CROWD_OK && set->has_tangent) {
        result = get_index(r, attributes, "TANGENT", -1, INT32_MAX, where, &set->tangent);
    }
    if (result == CROWD_OK && set->has_uv1) {
        result = get_index(r, attributes, "TEXCOORD_1", -1, INT32_MAX, where, &set->uv1);
    }
    if (result == CROWD_OK && set->has_skin) {
        result = get_index(r, attributes, "JOINTS_0", -1, INT32_MAX, where, &set->joints);
        if (result == CROWD_OK) {
            result = get_index(r, attributes, "WEIGHTS_0", -1, INT32_MAX, where, &set->weights);
        }
    }
    return result;
}

static bool same_attributes(const attribute_set *a, const attribute_set *b) {
    return a->position == b->position && a->normal == b->normal && a->uv0 == b->uv0 &&
           a->has_tangent == b->has_tangent && (!a->has_tangent || a->tangent == b->tangent) &&
           a->has_uv1 == b->has_uv1 && (!a->has_uv1 || a->uv1 == b->uv1) &&
           a->has_skin == b->has_skin &&
           (!a->has_skin || (a->joints == b->joints && a->weights == b->weights));
}

static crowd_result read_vertices(glb_reader *r, const attribute_set *set, crowd_mesh *mesh,
                                  float **out_uv1) {
    uint32_t count = 0, other = 0;
    crowd_result result = read_floats(r, set->position, "VEC3", 3, &mesh->positions, &count);
    mesh->vertex_count = count;
    if (result == CROWD_OK) {
        result = read_floats(r, set->normal, "VEC3", 3, &mesh->normals, &other);
        result = result == CROWD_OK && other != count
                     ? invalid(r, "NORMAL count %u differs from POSITION's %u", other, count)
                     : result;
    }
    if (result == CROWD_OK && set->has_tangent) {
        result = read_floats(r, set->tangent, "VEC4", 4, &mesh->tangents, &other);
        result = result == CROWD_OK && other != count
                     ? invalid(r, "TANGENT count %u differs from POSITION's %u", other, count)
                     : result;
    }
    if (result == CROWD_OK) {
        result = read_floats(r, set->uv0, "VEC2", 2, &mesh->uv0, &other);
        result = result == CROWD_OK && other != count
                     ? invalid(r, "TEXCOORD_0 count %u differs from POSITION's %u", other, count)
                     : result;
    }
    if (result == CROWD_OK && set->has_uv1 && out_uv1 != NULL) {
        result = read_floats(r, set->uv1, "VEC2", 2, out_uv1, &other);
        result = result == CROWD_OK && other != count
                     ? invalid(r, "TEXCOORD_1 count %u differs from POSITION's %u", other, count)
                     : result;
    }
    if (result == CROWD_OK && set->has_skin) {
        uint32_t *joints = NULL;
        result = read_uints(r, set->joints, "VEC4", 4, &joints, &other);
        if (result == CROWD_OK && other != count) {
            result = invalid(r, "JOINTS_0 count %u differs from POSITION's %u", other, count);
        }
        if (result == CROWD_OK) {
            mesh->joints = crowd__mem_alloc(r->allocator, (size_t)count * 4 * sizeof *mesh->joints);
            if (mesh->joints == NULL) {
                result =
                    crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->name, "out of memory");
            }
            for (size_t i = 0; result == CROWD_OK && i < (size_t)count * 4; i++) {
                if (joints[i] > UINT16_MAX) {
                    result = invalid(r, "JOINTS_0 of vertex %zu is %u", i / 4, joints[i]);
                } else {
                    mesh->joints[i] = (uint16_t)joints[i];
                }
            }
        }
        crowd__mem_free(r->allocator, joints);
        if (result == CROWD_OK) {
            result = read_floats(r, set->weights, "VEC4", 4, &mesh->weights, &other);
            result = result == CROWD_OK && other != count
                         ? invalid(r, "WEIGHTS_0 count %u differs from POSITION's %u", other, count)
                         : result;
        }
    }
    return result;
}

/* A primitive's material and its triangles: a triangle list's indices
 * (a new array into *out, a multiple of 3). */
static crowd_result read_triangles(glb_reader *r, const cJSON *primitive, const char *where,
                                   uint64_t *material, uint32_t **out, uint32_t *count) {
    uint64_t mode = 0, indices = 0;
    crowd_result result = get_index(r, primitive, "mode", GLTF_TRIANGLES, 6, where, &mode);
    if (result == CROWD_OK && mode != GLTF_TRIANGLES) {
        result = unsupported(r, "primitives that are not triangle lists");
    }
    if (result == CROWD_OK) {
        result = get_index(r, primitive, "indices", -1, INT32_MAX, where, &indices);
    }
    if (result == CROWD_OK) {
        result = get_index(r, primitive, "material", -1, INT32_MAX, where, material);
    }
    if (result == CROWD_OK) {
        result = read_uints(r, indices, "SCALAR", 1, out, count);
    }
    if (result == CROWD_OK && *count % 3 != 0) {
        result = invalid(r, "%s has %u indices, not a multiple of 3", where, *count);
    }
    return result;
}

/* Primitives become submeshes in order; their indices are concatenated. */
static crowd_result read_mesh(glb_reader *r, crowd_asset *asset, float **out_uv1,
                              uint32_t lod_count) {
    cJSON *meshes = array_member(r->json, "meshes");
    if (meshes == NULL || cJSON_GetArraySize(meshes) != (int)(1 + lod_count)) {
        return invalid(r, "the file holds %d meshes; the manifest's LODs make %u",
                       meshes ? cJSON_GetArraySize(meshes) : 0, 1 + lod_count);
    }
    cJSON *primitives = array_member(cJSON_GetArrayItem(meshes, 0), "primitives");
    int primitive_count = primitives ? cJSON_GetArraySize(primitives) : 0;
    if (primitive_count == 0) {
        return invalid(r, "no primitives");
    }
    crowd_mesh *mesh = &asset->mesh;
    mesh->submeshes =
        crowd__mem_alloc_zeroed(r->allocator, (size_t)primitive_count, sizeof *mesh->submeshes);
    if (mesh->submeshes == NULL) {
        return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->name, "out of memory");
    }
    mesh->submesh_count = (uint32_t)primitive_count;
    attribute_set first = {0};
    uint32_t **parts =
        crowd__mem_alloc_zeroed(r->allocator, (size_t)primitive_count, sizeof *parts);
    if (parts == NULL) {
        return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->name, "out of memory");
    }
    crowd_result result = CROWD_OK;
    uint64_t total = 0;
    for (int p = 0; p < primitive_count && result == CROWD_OK; p++) {
        char where[40];
        snprintf(where, sizeof where, "primitive %d", p);
        const cJSON *primitive = cJSON_GetArrayItem(primitives, p);
        attribute_set set = {0};
        uint64_t material = 0;
        result = read_attribute_set(r, primitive, (uint32_t)p, &set);
        if (result == CROWD_OK && p > 0 && !same_attributes(&first, &set)) {
            result = unsupported(r, "primitives with different vertex buffers");
        }
        first = p == 0 ? set : first;
        uint32_t count = 0;
        if (result == CROWD_OK) {
            result = read_triangles(r, primitive, where, &material, &parts[p], &count);
        }
        if (result == CROWD_OK) {
            mesh->submeshes[p] = (crowd_submesh){(uint32_t)total, count, (uint32_t)material};
            total += count;
            if (total > GLB_MAX_COUNT) {
                result = invalid(r, "%s: more than %u indices in all", where, GLB_MAX_COUNT);
            }
        }
    }
    if (result == CROWD_OK) {
        mesh->indices = crowd__mem_alloc(r->allocator, (size_t)total * sizeof *mesh->indices);
        if (mesh->indices == NULL) {
            result = crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->name, "out of memory");
        }
    }
    for (int p = 0; p < primitive_count && result == CROWD_OK; p++) {
        memcpy(mesh->indices + mesh->submeshes[p].first_index, parts[p],
               (size_t)mesh->submeshes[p].index_count * sizeof *mesh->indices);
    }
    mesh->index_count = result == CROWD_OK ? (uint32_t)total : 0;
    for (int p = 0; p < primitive_count; p++) {
        crowd__mem_free(r->allocator, parts[p]);
    }
    crowd__mem_free(r->allocator, parts);
    if (result == CROWD_OK && !first.has_skin) {
        result = invalid(r, "no JOINTS_0/WEIGHTS_0; a bake mesh is skinned");
    }
    if (result == CROWD_OK) {
        result = read_vertices(r, &first, mesh, out_uv1);
    }
    return result;
}

/* ---- LOD meshes ------------------------------------------------------------ */

void crowd__glb_lod_meshes_free(const crowd_allocator *allocator, glb_lod_mesh *lods,
                                uint32_t count) {
    for (uint32_t k = 0; lods != NULL && k < count; k++) {
        crowd__mem_free(allocator, lods[k].source);
        crowd__mem_free(allocator, lods[k].uv1);
        crowd__mem_free(allocator, lods[k].indices);
        lods[k] = (glb_lod_mesh){0};
    }
}

/* _SOURCE_VERTEX: exact integers naming vertices of LOD 0. */
static crowd_result read_sources(glb_reader *r, int mesh, uint64_t accessor, uint32_t vertex_count,
                                 glb_lod_mesh *lod) {
    float *values = NULL;
    crowd_result result = read_floats(r, accessor, "SCALAR", 1, &values, &lod->vertex_count);
    if (result == CROWD_OK && (lod->source = crowd__mem_alloc(
                                   r->allocator, lod->vertex_count * sizeof(uint32_t))) == NULL) {
        result = crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->name, "out of memory");
    }
    for (uint32_t i = 0; result == CROWD_OK && i < lod->vertex_count; i++) {
        float value = values[i];
        if (!(value >= 0.0f && value < (float)vertex_count && value == floorf(value))) {
            result =
                invalid(r, "LOD mesh %d: _SOURCE_VERTEX %u is %g, not a vertex of the %u of LOD 0",
                        mesh, i, (double)value, vertex_count);
        } else {
            lod->source[i] = (uint32_t)value;
        }
    }
    crowd__mem_free(r->allocator, values);
    return result;
}

/* Mesh `index` of the file as a LOD: one attribute set for all its
 * primitives, their triangles concatenated. Material indices are checked
 * against the materials later (*material_max). */
static crowd_result read_lod_mesh(glb_reader *r, const cJSON *mesh, int index,
                                  uint32_t vertex_count, glb_lod_mesh *lod,
                                  uint64_t *material_max) {
    cJSON *primitives = array_member(mesh, "primitives");
    int count = primitives ? cJSON_GetArraySize(primitives) : 0;
    if (count == 0) {
        return invalid(r, "LOD mesh %d has no primitives", index);
    }
    crowd_result result = CROWD_OK;
    uint64_t source = 0, uv1 = 0;
    bool has_uv1 = false;
    for (int p = 0; p < count && result == CROWD_OK; p++) {
        char where[48];
        snprintf(where, sizeof where, "mesh %d primitive %d", index, p);
        const cJSON *primitive = cJSON_GetArrayItem(primitives, p);
        const cJSON *attributes = cJSON_GetObjectItemCaseSensitive(primitive, "attributes");
        uint64_t this_source = 0, this_uv1 = 0, material = 0;
        bool this_has_uv1 = cJSON_GetObjectItemCaseSensitive(attributes, "TEXCOORD_1") != NULL;
        result = get_index(r, attributes, "_SOURCE_VERTEX", -1, INT32_MAX, where, &this_source);
        if (result == CROWD_OK && this_has_uv1) {
            result = get_index(r, attributes, "TEXCOORD_1", -1, INT32_MAX, where, &this_uv1);
        }
        if (result == CROWD_OK && p > 0 &&
            (this_source != source || this_has_uv1 != has_uv1 || this_uv1 != uv1)) {
            result = unsupported(r, "primitives of a LOD with different vertex buffers");
        }
        source = this_source;
        uv1 = this_uv1;
        has_uv1 = this_has_uv1;
        uint32_t *part = NULL, part_count = 0;
        if (result == CROWD_OK) {
            result = read_triangles(r, primitive, where, &material, &part, &part_count);
        }
        *material_max = material > *material_max ? material : *material_max;
        uint64_t total = (uint64_t)lod->index_count + part_count;
        if (result == CROWD_OK && total > GLB_MAX_COUNT) {
            result = invalid(r, "%s: more than %u indices in all", where, GLB_MAX_COUNT);
        }
        uint32_t *grown = result == CROWD_OK
                              ? crowd__mem_grow(r->allocator, lod->indices,
                                                (size_t)lod->index_count * sizeof *lod->indices,
                                                (size_t)total * sizeof *lod->indices)
                              : NULL;
        if (result == CROWD_OK && grown == NULL) {
            result = crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->name, "out of memory");
        }
        if (result == CROWD_OK) {
            lod->indices = grown;
            memcpy(lod->indices + lod->index_count, part, (size_t)part_count * sizeof *part);
            lod->index_count = (uint32_t)total;
        }
        crowd__mem_free(r->allocator, part);
    }
    if (result == CROWD_OK) {
        result = read_sources(r, index, source, vertex_count, lod);
    }
    uint32_t uv1_count = 0;
    if (result == CROWD_OK && has_uv1) {
        result = read_floats(r, uv1, "VEC2", 2, &lod->uv1, &uv1_count);
        if (result == CROWD_OK && uv1_count != lod->vertex_count) {
            result = invalid(r, "LOD mesh %d: TEXCOORD_1 count %u differs from _SOURCE_VERTEX's %u",
                             index, uv1_count, lod->vertex_count);
        }
    }
    for (uint32_t i = 0; result == CROWD_OK && i < lod->index_count; i++) {
        if (lod->indices[i] >= lod->vertex_count) {
            result = invalid(r, "LOD mesh %d index %u is %u, beyond its %u vertices", index, i,
                             lod->indices[i], lod->vertex_count);
        }
    }
    return result;
}

static crowd_result read_lod_meshes(glb_reader *r, const crowd_asset *asset, uint32_t lod_count,
                                    glb_lod_mesh *out_lods, uint64_t *material_max) {
    cJSON *meshes = array_member(r->json, "meshes");
    crowd_result result = CROWD_OK;
    for (uint32_t k = 0; k < lod_count && result == CROWD_OK; k++) {
        result = read_lod_mesh(r, cJSON_GetArrayItem(meshes, (int)k + 1), (int)k + 1,
                               asset->mesh.vertex_count, &out_lods[k], material_max);
    }
    return result;
}

/* ---- skeleton ------------------------------------------------------------ */

static void mat4_identity(float m[16]) {
    memset(m, 0, 16 * sizeof *m);
    m[0] = m[5] = m[10] = m[15] = 1.0f;
}

static void mat4_multiply(const float a[16], const float b[16], float out[16]) {
    float result[16];
    for (int c = 0; c < 4; c++) {
        for (int row = 0; row < 4; row++) {
            float sum = 0.0f;
            for (int k = 0; k < 4; k++) {
                sum += a[k * 4 + row] * b[c * 4 + k];
            }
            result[c * 4 + row] = sum;
        }
    }
    memcpy(out, result, sizeof result);
}

/* Column-major matrix of a node's TRS or matrix. */
static crowd_result node_matrix(glb_reader *r, const cJSON *node, int index, float out[16]) {
    char where[40];
    snprintf(where, sizeof where, "node %d", index);
    mat4_identity(out);
    if (cJSON_GetObjectItemCaseSensitive(node, "matrix") != NULL) {
        return get_floats(r, node, "matrix", 16, where, out);
    }
    float t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
    crowd_result result = get_floats(r, node, "translation", 3, where, t);
    if (result == CROWD_OK) {
        result = get_floats(r, node, "rotation", 4, where, q);
    }
    if (result == CROWD_OK) {
        result = get_floats(r, node, "scale", 3, where, s);
    }
    float x = q[0], y = q[1], z = q[2], w = q[3];
    float rotation[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                         2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                         2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++) {
            out[c * 4 + row] = rotation[c * 3 + row] * s[c];
        }
        out[12 + c] = t[c];
    }
    return result;
}

/* parent[n] for every node, -1 for roots; refuses a node with two parents. */
static crowd_result node_parents(glb_reader *r, int node_count, int32_t *parents) {
    for (int n = 0; n < node_count; n++) {
        parents[n] = -1;
    }
    for (int n = 0; n < node_count; n++) {
        const cJSON *children =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(r->nodes, n), "children");
        const cJSON *child;
        cJSON_ArrayForEach(child, children) {
            double value = cJSON_IsNumber(child) ? child->valuedouble : -1.0;
            if (!(value >= 0 && value < node_count && value == floor(value)) || (int)value == n ||
                parents[(int)value] >= 0) {
                return invalid(r, "node %d lists a bad child or one with a second parent", n);
            }
            parents[(int)value] = n;
        }
    }
    return CROWD_OK;
}

static crowd_result allocate_skeleton(glb_reader *r, crowd_skeleton *skeleton,
                                      uint32_t joint_count) {
    if (!crowd__core_skeleton_allocate_with(r->allocator, skeleton, joint_count)) {
        return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->name, "out of memory");
    }
    return CROWD_OK;
}

/* One joint: name, rest TRS (joints are stored as TRS, never as a matrix). */
static crowd_result read_joint(glb_reader *r, const cJSON *node, int node_index,
                               crowd_skeleton *skeleton, uint32_t j) {
    char where[40];
    snprintf(where, sizeof where, "joint node %d", node_index);
    if (cJSON_GetObjectItemCaseSensitive(node, "matrix") != NULL) {
        return unsupported(r, "joint nodes given as a matrix");
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(node, "name");
    skeleton->names[j] =
        crowd__core_copy_string_with(r->allocator, cJSON_IsString(name) ? name->valuestring : "");
    if (skeleton->names[j] == NULL) {
        return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->name, "out of memory");
    }
    float *t = skeleton->rest_translation + 3 * j, *q = skeleton->rest_rotation + 4 * j,
          *s = skeleton->rest_scale + 3 * j;
    t[0] = t[1] = t[2] = 0.0f;
    q[0] = q[1] = q[2] = 0.0f;
    q[3] = 1.0f;
    s[0] = s[1] = s[2] = 1.0f;
    crowd_result result = get_floats(r, node, "translation", 3, where, t);
    if (result == CROWD_OK) {
        result = get_floats(r, node, "rotation", 4, where, q);
    }
    if (result == CROWD_OK) {
        result = get_floats(r, node, "scale", 3, where, s);
    }
    return result;
}

/* The skin's joints become the skeleton in their skin order, which must be
 * parent-before-child; the node above the root joints (if any, shared by all)
 * gives root_transform. */
static crowd_result read_skeleton(glb_reader *r, crowd_asset *asset) {
    cJSON *skins = array_member(r->json, "skins");
    if (skins == NULL || cJSON_GetArraySize(skins) != 1) {
        return invalid(r, "a bake mesh has exactly one skin");
    }
    const cJSON *skin = cJSON_GetArrayItem(skins, 0);
    cJSON *joints = array_member(skin, "joints");
    int joint_count = joints ? cJSON_GetArraySize(joints) : 0;
    int node_count = r->nodes ? cJSON_GetArraySize(r->nodes) : 0;
    if (joint_count < 1 || joint_count > CROWD_MAX_JOINTS) {
        return invalid(r, "the skin has %d joints (1 to %d allowed)", joint_count,
                       CROWD_MAX_JOINTS);
    }
    crowd_skeleton *skeleton = &asset->skeleton;
    size_t node_slots = (size_t)(node_count > 0 ? node_count : 1);
    int32_t *node_parent = crowd__mem_alloc(r->allocator, node_slots * sizeof *node_parent);
    int32_t *joint_of_node = crowd__mem_alloc(r->allocator, node_slots * sizeof *joint_of_node);
    crowd_result result =
        node_parent && joint_of_node
            ? allocate_skeleton(r, skeleton, (uint32_t)joint_count)
            : crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->name, "out of memory");
    if (result == CROWD_OK) {
        result = node_parents(r, node_count, node_parent);
    }
    for (int n = 0; n < node_count && result == CROWD_OK; n++) {
        joint_of_node[n] = -1;
    }
    for (int j = 0; j < joint_count && result == CROWD_OK; j++) {
        const cJSON *item = cJSON_GetArrayItem(joints, j);
        double value = cJSON_IsNumber(item) ? item->valuedouble : -1.0;
        if (!(value >= 0 && value < node_count && value == floor(value)) ||
            joint_of_node[(int)value] >= 0) {
            result = invalid(r, "skin joint %d is not a distinct node", j);
        } else {
            joint_of_node[(int)value] = j;
        }
    }
    int32_t root_node = -1;
    for (int j = 0; j < joint_count && result == CROWD_OK; j++) {
        int node = (int)cJSON_GetArrayItem(joints, j)->valuedouble;
        int32_t parent = node_parent[node];
        skeleton->parents[j] = parent >= 0 ? joint_of_node[parent] : -1;
        if (skeleton->parents[j] >= j) {
            result = unsupported(r, "skin joints not in parent-before-child order");
        } else if (parent >= 0 && skeleton->parents[j] < 0) {
            if (root_node >= 0 && root_node != parent) {
                result = unsupported(r, "root joints under different nodes");
            }
            root_node = parent;
        }
        if (result == CROWD_OK) {
            result = read_joint(r, cJSON_GetArrayItem(r->nodes, node), node, skeleton, (uint32_t)j);
        }
    }
    mat4_identity(skeleton->root_transform);
    for (int steps = 0, n = root_node; n >= 0 && result == CROWD_OK; n = node_parent[n], steps++) {
        float local[16];
        if (steps > node_count) {
            result = invalid(r, "the nodes above the skeleton form a cycle");
            break;
        }
        result = node_matrix(r, cJSON_GetArrayItem(r->nodes, n), n, local);
        mat4_multiply(local, skeleton->root_transform, skeleton->root_transform);
    }
    if (result == CROWD_OK) {
        uint64_t ibm = 0;
        if (cJSON_GetObjectItemCaseSensitive(skin, "inverseBindMatrices") == NULL) {
            for (int j = 0; j < joint_count; j++) {
                mat4_identity(skeleton->inverse_bind + 16 * j);
            }
        } else if ((result = get_index(r, skin, "inverseBindMatrices", -1, INT32_MAX, "skin",
                                       &ibm)) == CROWD_OK) {
            float *matrices = NULL;
            uint32_t count = 0;
            result = read_floats(r, ibm, "MAT4", 16, &matrices, &count);
            if (result == CROWD_OK && count < (uint32_t)joint_count) {
                result = invalid(r, "inverseBindMatrices has %u matrices for %d joints", count,
                                 joint_count);
            }
            if (result == CROWD_OK) {
                memcpy(skeleton->inverse_bind, matrices, (size_t)joint_count * 16 * sizeof(float));
            }
            crowd__mem_free(r->allocator, matrices);
        }
    }
    crowd__mem_free(r->allocator, node_parent);
    crowd__mem_free(r->allocator, joint_of_node);
    asset->has_skin = true;
    return result;
}

/* ---- materials ----------------------------------------------------------- */

/* The embedded PNG of the textureInfo `reference` (named `what`) into `out`. */
static crowd_result read_texture(glb_reader *r, const cJSON *reference, const char *what,
                                 crowd_image *out) {
    uint64_t texture_index = 0, image_index = 0, view_index = 0, set = 0;
    crowd_result result = cJSON_IsObject(reference) ? get_index(r, reference, "index", -1,
                                                                INT32_MAX, what, &texture_index)
                                                    : invalid(r, "%s is not an object", what);
    if (result == CROWD_OK) {
        result = get_index(r, reference, "texCoord", 0, 255, what, &set);
    }
    if (result == CROWD_OK && set != 0) {
        return unsupported(r, "textures reading another set than TEXCOORD_0");
    }
    const cJSON *texture =
        cJSON_GetArrayItem(array_member(r->json, "textures"), (int)texture_index);
    if (result == CROWD_OK && !cJSON_IsObject(texture)) {
        result = invalid(r, "texture %llu does not exist", (unsigned long long)texture_index);
    }
    if (result == CROWD_OK) {
        result = get_index(r, texture, "source", -1, INT32_MAX, "texture", &image_index);
    }
    const cJSON *image = cJSON_GetArrayItem(array_member(r->json, "images"), (int)image_index);
    if (result == CROWD_OK && !cJSON_IsObject(image)) {
        result = invalid(r, "image %llu does not exist", (unsigned long long)image_index);
    }
    if (result != CROWD_OK) {
        return result;
    }
    const cJSON *mime = cJSON_GetObjectItemCaseSensitive(image, "mimeType");
    if (cJSON_GetObjectItemCaseSensitive(image, "uri") != NULL || !cJSON_IsString(mime) ||
        strcmp(mime->valuestring, "image/png") != 0) {
        return unsupported(r, "images that are not embedded PNG");
    }
    result = get_index(r, image, "bufferView", -1, INT32_MAX, "image", &view_index);
    const cJSON *view = cJSON_GetArrayItem(r->views, (int)view_index);
    uint64_t offset = 0, length = 0;
    if (result == CROWD_OK && !cJSON_IsObject(view)) {
        result = invalid(r, "image bufferView %llu does not exist", (unsigned long long)view_index);
    }
    if (result == CROWD_OK) {
        result = get_index(r, view, "byteOffset", 0, 4294967295.0, "image bufferView", &offset);
    }
    if (result == CROWD_OK) {
        result = get_index(r, view, "byteLength", -1, 4294967295.0, "image bufferView", &length);
    }
    if (result == CROWD_OK && offset + length > r->bin_size) {
        result = invalid(r, "image bufferView %llu reaches beyond the buffer",
                         (unsigned long long)view_index);
    }
    if (result != CROWD_OK) {
        return result;
    }
    return crowd__png_decode_rgba8(r->bin + offset, (size_t)length, r->name, r->allocator,
                                   &out->width, &out->height, &out->rgba8, r->error);
}

/* A number member in [min, max] (absent: `fallback`), as glTF bounds it. */
static crowd_result get_ranged(glb_reader *r, const cJSON *object, const char *key, float fallback,
                               float min, float max, int m, float *out) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    *out = fallback;
    if (item == NULL) {
        return CROWD_OK;
    }
    double value = cJSON_IsNumber(item) ? item->valuedouble : NAN;
    if (!(value >= min && value <= max)) {
        return invalid(r, "material %d: '%s' is not a number in [%g, %g]", m, key, (double)min,
                       (double)max);
    }
    *out = (float)value;
    return CROWD_OK;
}

/* alphaMode and doubleSided: glTF's names and a boolean, absent = OPAQUE and false. */
static crowd_result read_alpha(glb_reader *r, const cJSON *object, int m,
                               crowd_material *material) {
    static const char *const names[] = {"OPAQUE", "MASK", "BLEND"};
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(object, "alphaMode");
    const cJSON *sided = cJSON_GetObjectItemCaseSensitive(object, "doubleSided");
    material->alpha_mode = CROWD_ALPHA_OPAQUE;
    bool known = mode == NULL;
    for (int k = 0; !known && cJSON_IsString(mode) && k < 3; k++) {
        if (strcmp(mode->valuestring, names[k]) == 0) {
            material->alpha_mode = (crowd_alpha_mode)k;
            known = true;
        }
    }
    if (!known || (sided != NULL && !cJSON_IsBool(sided))) {
        return invalid(r,
                       "material %d: alphaMode is not OPAQUE, MASK or BLEND, or doubleSided is "
                       "not a boolean",
                       m);
    }
    material->double_sided = cJSON_IsTrue(sided);
    return get_ranged(r, object, "alphaCutoff", 0.5f, 0.0f, 3.4e38f, m, &material->alpha_cutoff);
}

/* Factors and textures of material `m`; absent members take glTF's
 * defaults, so the version-2 files (metallic 0, no roughness) read as the
 * matte dielectric they were drawn as. */
static crowd_result read_material(glb_reader *r, const cJSON *object, int m,
                                  crowd_material *material) {
    const cJSON *pbr = cJSON_GetObjectItemCaseSensitive(object, "pbrMetallicRoughness");
    const cJSON *normal = cJSON_GetObjectItemCaseSensitive(object, "normalTexture");
    const cJSON *occlusion = cJSON_GetObjectItemCaseSensitive(object, "occlusionTexture");
    const cJSON *emissive = cJSON_GetObjectItemCaseSensitive(object, "emissiveTexture");
    float factor[4] = {1, 1, 1, 1};
    crowd_result result = get_floats(r, pbr, "baseColorFactor", 4, "material", factor);
    memcpy(material->base_color, factor, sizeof factor);
    for (int c = 0; result == CROWD_OK && c < 4; c++) {
        if (factor[c] < 0.0f || factor[c] > 1.0f) {
            result = invalid(r, "material %d: baseColorFactor[%d] is not in [0, 1]", m, c);
        }
    }
    float emission[3] = {0, 0, 0};
    if (result == CROWD_OK) {
        result = get_floats(r, object, "emissiveFactor", 3, "material", emission);
        memcpy(material->emissive, emission, sizeof emission);
    }
    for (int c = 0; result == CROWD_OK && c < 3; c++) {
        if (emission[c] < 0.0f || emission[c] > 1.0f) {
            result = invalid(r, "material %d: emissiveFactor[%d] is not in [0, 1]", m, c);
        }
    }
    if (result == CROWD_OK) {
        result = get_ranged(r, pbr, "metallicFactor", 1, 0, 1, m, &material->metallic);
    }
    if (result == CROWD_OK) {
        result = get_ranged(r, pbr, "roughnessFactor", 1, 0, 1, m, &material->roughness);
    }
    if (result == CROWD_OK) {
        result = get_ranged(r, normal, "scale", 1, -3.4e38f, 3.4e38f, m, &material->normal_scale);
    }
    if (result == CROWD_OK) {
        result = get_ranged(r, occlusion, "strength", 1, 0, 1, m, &material->occlusion_strength);
    }
    if (result == CROWD_OK) {
        result = read_alpha(r, object, m, material);
    }
    crowd_image base = {0};
    const struct {
        const cJSON *info;
        const char *what;
        crowd_image *out;
    } slots[] = {
        {cJSON_GetObjectItemCaseSensitive(pbr, "baseColorTexture"), "baseColorTexture", &base},
        {cJSON_GetObjectItemCaseSensitive(pbr, "metallicRoughnessTexture"),
         "metallicRoughnessTexture", &material->metallic_roughness_texture},
        {normal, "normalTexture", &material->normal_texture},
        {occlusion, "occlusionTexture", &material->occlusion_texture},
        {emissive, "emissiveTexture", &material->emissive_texture},
    };
    for (size_t k = 0; result == CROWD_OK && k < sizeof slots / sizeof slots[0]; k++) {
        if (slots[k].info != NULL) {
            result = read_texture(r, slots[k].info, slots[k].what, slots[k].out);
        }
        if (k == 0) {
            material->texture_width = base.width;
            material->texture_height = base.height;
            material->texture_rgba8 = base.rgba8;
        }
    }
    return result;
}

static crowd_result read_materials(glb_reader *r, crowd_asset *asset) {
    cJSON *materials = array_member(r->json, "materials");
    int count = materials ? cJSON_GetArraySize(materials) : 0;
    if (count == 0) {
        return invalid(r, "no materials");
    }
    asset->materials =
        crowd__mem_alloc_zeroed(r->allocator, (size_t)count, sizeof *asset->materials);
    if (asset->materials == NULL) {
        return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->name, "out of memory");
    }
    asset->material_count = (uint32_t)count;
    crowd_result result = CROWD_OK;
    for (int m = 0; m < count && result == CROWD_OK; m++) {
        const cJSON *object = cJSON_GetArrayItem(materials, m);
        crowd_material *material = &asset->materials[m];
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(object, "name");
        material->name = crowd__core_copy_string_with(
            r->allocator, cJSON_IsString(name) ? name->valuestring : "");
        if (material->name == NULL) {
            return crowd_error_set(r->error, CROWD_ERROR_OUT_OF_MEMORY, r->name, "out of memory");
        }
        result = cJSON_IsObject(object) ? read_material(r, object, m, material)
                                        : invalid(r, "material %d is not an object", m);
    }
    return result;
}

crowd_result crowd__glb_read(const uint8_t *data, size_t size, const char *name, crowd_asset *asset,
                             float **out_uv1, uint32_t lod_count, glb_lod_mesh *out_lods,
                             crowd_error *error) {
    glb_reader r = {.name = name, .allocator = &asset->allocator, .error = error};
    if (out_uv1 != NULL) {
        *out_uv1 = NULL;
    }
    for (uint32_t k = 0; k < lod_count; k++) {
        out_lods[k] = (glb_lod_mesh){0};
    }
    uint64_t lod_material_max = 0;
    crowd_result result = parse_container(&r, data, size);
    if (result == CROWD_OK) {
        result = read_mesh(&r, asset, out_uv1, lod_count);
    }
    if (result == CROWD_OK) {
        result = read_lod_meshes(&r, asset, lod_count, out_lods, &lod_material_max);
    }
    if (result == CROWD_OK) {
        result = read_skeleton(&r, asset);
    }
    if (result == CROWD_OK) {
        result = read_materials(&r, asset);
    }
    if (result == CROWD_OK && lod_count > 0 && lod_material_max >= asset->material_count) {
        result = invalid(&r, "a LOD primitive uses material %llu of %u",
                         (unsigned long long)lod_material_max, asset->material_count);
    }
    cJSON_Delete(r.json);
    if (result != CROWD_OK && out_uv1 != NULL) {
        crowd__mem_free(r.allocator, *out_uv1);
        *out_uv1 = NULL;
    }
    if (result != CROWD_OK) {
        crowd__glb_lod_meshes_free(r.allocator, out_lods, lod_count);
    }
    return result;
}
