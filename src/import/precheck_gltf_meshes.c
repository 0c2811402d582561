/* precheck_gltf_meshes.c - mesh primitives (attribute and morph target
 * accessors in range, all of one primitive's the same count, indices
 * SCALAR unsigned integers whose every value, read, names a vertex) and
 * the texture references of materials, textures and images.
 *
 * assimp 5.2 silently drops an attribute whose count is not POSITION's: a
 * short JOINTS_0 leaves a skinned mesh without weights and without a word,
 * so the counts are checked here, as the specification requires. */
#include <stdio.h>
#include <string.h>

#include "import/precheck_gltf.h"

typedef struct index_walk {
    uint32_t mesh, primitive, vertices;
} index_walk;

static crowd_result visit_index(pg_check *c, uint64_t i, uint32_t value, void *user) {
    const index_walk *walk = user;
    if (value >= walk->vertices) {
        return pg_fail(c, "mesh %u primitive %u: index %llu is %u, the primitive has %u vertices",
                       walk->mesh, walk->primitive, (unsigned long long)i, value, walk->vertices);
    }
    return CROWD_OK;
}

/* Reads every index of accessor `index` (and its sparse values). */
static crowd_result check_index_values(pg_check *c, uint32_t index, index_walk *walk) {
    const cJSON *json = c->lists[PG_ACCESSORS].items[index];
    const pg_accessor *a = &c->accessors[index];
    uint64_t offset = 0, view = 0;
    crowd_result result = CROWD_OK;
    if (gltf_json_uint(json, "bufferView", UINT64_MAX, UINT32_MAX, &view)) {
        gltf_json_uint(json, "byteOffset", 0, UINT64_MAX >> 12, &offset);
        result = pg_read_uints(c, (uint32_t)view, offset, c->views[view].stride, a->component_type,
                               a->count, visit_index, walk);
    }
    const cJSON *sparse = cJSON_GetObjectItemCaseSensitive(json, "sparse");
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(sparse, "values");
    uint64_t count = 0;
    if (result == CROWD_OK && values != NULL &&
        gltf_json_uint(sparse, "count", UINT64_MAX, UINT32_MAX, &count) &&
        gltf_json_uint(values, "bufferView", UINT64_MAX, UINT32_MAX, &view)) {
        gltf_json_uint(values, "byteOffset", 0, UINT64_MAX >> 12, &offset);
        result = pg_read_uints(c, (uint32_t)view, offset, 0, a->component_type, count, visit_index,
                               walk);
    }
    return result;
}

static crowd_result check_indices(pg_check *c, const char *where, uint32_t index,
                                  index_walk *walk) {
    const pg_accessor *a = &c->accessors[index];
    if (strcmp(a->type, "SCALAR") != 0 ||
        (a->component_type != PG_UNSIGNED_BYTE && a->component_type != PG_UNSIGNED_SHORT &&
         a->component_type != PG_UNSIGNED_INT)) {
        return pg_fail(c, "%s: indices accessor %u is not SCALAR of unsigned integers", where,
                       index);
    }
    return check_index_values(c, index, walk);
}

/* Every member of `attributes` names an accessor of `vertices` elements
 * (*vertices 0: the first found, POSITION, sets it). */
static crowd_result check_attributes(pg_check *c, const cJSON *attributes, const char *where,
                                     uint32_t *vertices) {
    if (!cJSON_IsObject(attributes)) {
        return pg_fail(c, "%s: attributes is not an object", where);
    }
    uint32_t index = 0;
    bool present;
    if (*vertices == 0) {
        crowd_result result =
            pg_ref(c, attributes, "POSITION", PG_ACCESSORS, true, where, &index, &present);
        if (result != CROWD_OK) {
            return result;
        }
        *vertices = c->accessors[index].count;
    }
    for (const cJSON *member = attributes->child; member != NULL; member = member->next) {
        crowd_result result =
            pg_ref(c, attributes, member->string, PG_ACCESSORS, true, where, &index, &present);
        if (result != CROWD_OK) {
            return result;
        }
        if (c->accessors[index].count != *vertices) {
            return pg_fail(c, "%s: attribute %s has %u elements, POSITION has %u", where,
                           member->string, c->accessors[index].count, *vertices);
        }
    }
    return CROWD_OK;
}

static crowd_result check_primitive(pg_check *c, const cJSON *primitive, index_walk *walk) {
    char where[64];
    snprintf(where, sizeof where, "mesh %u primitive %u", walk->mesh, walk->primitive);
    if (!cJSON_IsObject(primitive)) {
        return pg_fail(c, "%s is not an object", where);
    }
    walk->vertices = 0;
    crowd_result result = check_attributes(
        c, cJSON_GetObjectItemCaseSensitive(primitive, "attributes"), where, &walk->vertices);
    const cJSON *targets = cJSON_GetObjectItemCaseSensitive(primitive, "targets");
    if (result == CROWD_OK && targets != NULL && !cJSON_IsArray(targets)) {
        result = pg_fail(c, "%s: targets is not an array", where);
    }
    uint32_t t = 0;
    for (const cJSON *target = targets ? targets->child : NULL;
         result == CROWD_OK && target != NULL; target = target->next, t++) {
        char target_where[96];
        snprintf(target_where, sizeof target_where, "%s target %u", where, t);
        result = check_attributes(c, target, target_where, &walk->vertices);
    }
    uint64_t mode = 0;
    if (result == CROWD_OK && !gltf_json_uint(primitive, "mode", 4, 6, &mode)) {
        result = pg_fail(c, "%s: mode is not one of 0-6", where);
    }
    uint32_t material = 0, indices = 0;
    bool present, indexed = false;
    if (result == CROWD_OK) {
        result = pg_ref(c, primitive, "material", PG_MATERIALS, false, where, &material, &present);
    }
    if (result == CROWD_OK) {
        result = pg_ref(c, primitive, "indices", PG_ACCESSORS, false, where, &indices, &indexed);
    }
    /* assimp 5.2 makes count - 2 faces of a strip or fan (4 billion from
     * one element) and asserts on a line loop of one index. */
    uint32_t elements = indexed ? c->accessors[indices].count : walk->vertices;
    if (result == CROWD_OK && (mode == 2 || mode == 5 || mode == 6) && elements < 2) {
        result =
            pg_fail(c, "%s: mode %u (%s) of %u element needs at least 2", where, (unsigned)mode,
                    mode == 2   ? "line loop"
                    : mode == 5 ? "triangle strip"
                                : "triangle fan",
                    elements);
    }
    return result == CROWD_OK && indexed ? check_indices(c, where, indices, walk) : result;
}

crowd_result pg_check_meshes(pg_check *c) {
    for (uint32_t m = 0; m < c->lists[PG_MESHES].count; m++) {
        const cJSON *primitives =
            cJSON_GetObjectItemCaseSensitive(c->lists[PG_MESHES].items[m], "primitives");
        if (!cJSON_IsArray(primitives) || cJSON_GetArraySize(primitives) == 0) {
            return pg_fail(c, "mesh %u: primitives is missing or empty", m);
        }
        index_walk walk = {m, 0, 0};
        for (const cJSON *p = primitives->child; p != NULL; p = p->next, walk.primitive++) {
            crowd_result result = check_primitive(c, p, &walk);
            if (result != CROWD_OK) {
                return result;
            }
        }
    }
    return CROWD_OK;
}

/* A textureInfo ({"index": texture}) at `key` of `object`, if present. */
static crowd_result check_texture_info(pg_check *c, const cJSON *object, const char *key,
                                       uint32_t material) {
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(object, key);
    if (info == NULL) {
        return CROWD_OK;
    }
    char where[96];
    snprintf(where, sizeof where, "material %u %s", material, key);
    if (!cJSON_IsObject(info)) {
        return pg_fail(c, "%s is not an object", where);
    }
    uint32_t texture = 0;
    bool present;
    return pg_ref(c, info, "index", PG_TEXTURES, true, where, &texture, &present);
}

crowd_result pg_check_materials(pg_check *c) {
    static const char *const own[] = {"normalTexture", "occlusionTexture", "emissiveTexture"};
    static const char *const pbr[] = {"baseColorTexture", "metallicRoughnessTexture"};
    crowd_result result = CROWD_OK;
    for (uint32_t m = 0; result == CROWD_OK && m < c->lists[PG_MATERIALS].count; m++) {
        const cJSON *material = c->lists[PG_MATERIALS].items[m];
        const cJSON *metallic = cJSON_GetObjectItemCaseSensitive(material, "pbrMetallicRoughness");
        for (size_t k = 0; result == CROWD_OK && k < sizeof own / sizeof own[0]; k++) {
            result = check_texture_info(c, material, own[k], m);
        }
        for (size_t k = 0; result == CROWD_OK && metallic != NULL && k < sizeof pbr / sizeof pbr[0];
             k++) {
            result = check_texture_info(c, metallic, pbr[k], m);
        }
    }
    for (uint32_t t = 0; result == CROWD_OK && t < c->lists[PG_TEXTURES].count; t++) {
        char where[32];
        snprintf(where, sizeof where, "texture %u", t);
        uint32_t index = 0;
        bool present;
        result = pg_ref(c, c->lists[PG_TEXTURES].items[t], "source", PG_IMAGES, false, where,
                        &index, &present);
        if (result == CROWD_OK) {
            result = pg_ref(c, c->lists[PG_TEXTURES].items[t], "sampler", PG_SAMPLERS, false, where,
                            &index, &present);
        }
    }
    for (uint32_t i = 0; result == CROWD_OK && i < c->lists[PG_IMAGES].count; i++) {
        char where[32];
        snprintf(where, sizeof where, "image %u", i);
        uint32_t view = 0;
        bool present;
        result = pg_ref(c, c->lists[PG_IMAGES].items[i], "bufferView", PG_BUFFER_VIEWS, false,
                        where, &view, &present);
    }
    return result;
}
