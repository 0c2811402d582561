/* Binary glTF writer for a bake's mesh (glb_write.h). The JSON is built with
 * cJSON, the binary chunk is one buffer with one bufferView per vertex
 * attribute (tightly packed, so no byteStride), one for each mesh's indices
 * (an accessor per primitive), one for the inverse bind matrices and one per
 * embedded image. glTF is little-endian and so are the arrays in memory. */
#include "bake/glb_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bake/bake_lod.h"
#include "bake/png_write.h"
#include "bake/write_json.h"
#include "load/manifest_io.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the GLB writer stores arrays as they are in memory, which glTF requires to be little-endian"
#endif

enum {
    GLTF_FLOAT = 5126,
    GLTF_UNSIGNED_SHORT = 5123,
    GLTF_UNSIGNED_INT = 5125,
    GLTF_ARRAY_BUFFER = 34962,
    GLTF_ELEMENT_ARRAY_BUFFER = 34963,
    GLTF_TRIANGLES = 4,
    GLTF_LINEAR = 9729,
    GLTF_LINEAR_MIPMAP_LINEAR = 9987,
    GLTF_REPEAT = 10497,
    GLB_MAGIC = 0x46546C67,
    GLB_CHUNK_JSON = 0x4E4F534A,
    GLB_CHUNK_BIN = 0x004E4942,
};

typedef struct glb_writer {
    const glb_write_desc *desc;
    cJSON *root;
    cJSON *accessors, *views;
    uint8_t *bin;
    size_t bin_size, bin_capacity;
    bool failed; /* out of memory somewhere: the result is discarded */
} glb_writer;

static cJSON *put(glb_writer *w, cJSON *parent, const char *key, cJSON *item) {
    return crowd__json_put(&w->failed, parent, key, item);
}

static void put_number(glb_writer *w, cJSON *parent, const char *key, double value) {
    crowd__json_put_number(&w->failed, parent, key, value);
}

static void put_string(glb_writer *w, cJSON *parent, const char *key, const char *value) {
    crowd__json_put_string(&w->failed, parent, key, value);
}

static void put_floats(glb_writer *w, cJSON *parent, const char *key, const float *values,
                       int count) {
    crowd__json_put_floats(&w->failed, parent, key, values, count);
}

/* Appends bytes to the binary chunk at a 4-byte boundary; returns the offset. */
static size_t append_bin(glb_writer *w, const void *data, size_t size) {
    size_t offset = (w->bin_size + 3u) & ~(size_t)3u;
    if (offset + size > w->bin_capacity) {
        size_t capacity = w->bin_capacity ? w->bin_capacity : 65536;
        while (capacity < offset + size) {
            capacity *= 2;
        }
        uint8_t *grown = realloc(w->bin, capacity);
        if (grown == NULL) {
            w->failed = true;
            return 0;
        }
        w->bin = grown;
        w->bin_capacity = capacity;
    }
    memset(w->bin + w->bin_size, 0, offset - w->bin_size);
    if (size > 0) {
        memcpy(w->bin + offset, data, size);
    }
    w->bin_size = offset + size;
    return offset;
}

/* A bufferView over new bytes; target 0 means none. Returns its index. */
static int add_view(glb_writer *w, const void *data, size_t size, int target) {
    size_t offset = append_bin(w, data, size);
    cJSON *view = put(w, w->views, NULL, cJSON_CreateObject());
    put_number(w, view, "buffer", 0);
    put_number(w, view, "byteOffset", (double)offset);
    put_number(w, view, "byteLength", (double)size);
    if (target != 0) {
        put_number(w, view, "target", target);
    }
    return cJSON_GetArraySize(w->views) - 1;
}

static int add_accessor(glb_writer *w, int view, size_t byte_offset, int component_type,
                        uint32_t count, const char *type) {
    cJSON *accessor = put(w, w->accessors, NULL, cJSON_CreateObject());
    put_number(w, accessor, "bufferView", view);
    if (byte_offset != 0) {
        put_number(w, accessor, "byteOffset", (double)byte_offset);
    }
    put_number(w, accessor, "componentType", component_type);
    put_number(w, accessor, "count", count);
    put_string(w, accessor, "type", type);
    return cJSON_GetArraySize(w->accessors) - 1;
}

static int add_vertex_array(glb_writer *w, const void *data, uint32_t count, int component_type,
                            size_t component_bytes, int components, const char *type) {
    int view =
        add_view(w, data, (size_t)count * component_bytes * (size_t)components, GLTF_ARRAY_BUFFER);
    return add_accessor(w, view, 0, component_type, count, type);
}

/* POSITION needs min and max (glTF requires them for positions). */
static int add_positions(glb_writer *w, const float *positions, uint32_t count) {
    int accessor = add_vertex_array(w, positions, count, GLTF_FLOAT, 4, 3, "VEC3");
    float min[3], max[3];
    for (int a = 0; a < 3; a++) {
        min[a] = max[a] = positions[a];
    }
    for (uint32_t v = 1; v < count; v++) {
        for (int a = 0; a < 3; a++) {
            float value = positions[3 * v + (uint32_t)a];
            min[a] = value < min[a] ? value : min[a];
            max[a] = value > max[a] ? value : max[a];
        }
    }
    cJSON *object = cJSON_GetArrayItem(w->accessors, accessor);
    put_floats(w, object, "min", min, 3);
    put_floats(w, object, "max", max, 3);
    return accessor;
}

typedef struct vertex_accessors {
    int position, normal, tangent, uv0, uv1, joints, weights, source;
} vertex_accessors;

static vertex_accessors add_vertices(glb_writer *w) {
    const crowd_mesh *mesh = &w->desc->asset->mesh;
    vertex_accessors a = {-1, -1, -1, -1, -1, -1, -1, -1};
    a.position = add_positions(w, mesh->positions, mesh->vertex_count);
    a.normal = add_vertex_array(w, mesh->normals, mesh->vertex_count, GLTF_FLOAT, 4, 3, "VEC3");
    if (mesh->tangents != NULL) {
        a.tangent =
            add_vertex_array(w, mesh->tangents, mesh->vertex_count, GLTF_FLOAT, 4, 4, "VEC4");
    }
    a.uv0 = add_vertex_array(w, mesh->uv0, mesh->vertex_count, GLTF_FLOAT, 4, 2, "VEC2");
    if (w->desc->lookup.width > 0) {
        float *uv1 = malloc((size_t)mesh->vertex_count * 2 * sizeof *uv1);
        if (uv1 == NULL) {
            w->failed = true;
            return a;
        }
        for (uint32_t v = 0; v < mesh->vertex_count; v++) {
            crowd__glb_lookup_uv(&w->desc->lookup, v, uv1 + 2 * v);
        }
        a.uv1 = add_vertex_array(w, uv1, mesh->vertex_count, GLTF_FLOAT, 4, 2, "VEC2");
        free(uv1);
    }
    if (w->desc->skin) {
        a.joints = add_vertex_array(w, mesh->joints, mesh->vertex_count, GLTF_UNSIGNED_SHORT, 2, 4,
                                    "VEC4");
        a.weights =
            add_vertex_array(w, mesh->weights, mesh->vertex_count, GLTF_FLOAT, 4, 4, "VEC4");
    }
    return a;
}

/* One primitive over `count` indices from `first` of an index view. */
static void add_primitive(glb_writer *w, cJSON *primitives, const vertex_accessors *a,
                          int index_view, uint32_t first, uint32_t count, uint32_t material) {
    cJSON *primitive = put(w, primitives, NULL, cJSON_CreateObject());
    cJSON *attributes = put(w, primitive, "attributes", cJSON_CreateObject());
    put_number(w, attributes, "POSITION", a->position);
    put_number(w, attributes, "NORMAL", a->normal);
    if (a->tangent >= 0) {
        put_number(w, attributes, "TANGENT", a->tangent); /* for normal textures */
    }
    put_number(w, attributes, "TEXCOORD_0", a->uv0);
    if (a->uv1 >= 0) {
        put_number(w, attributes, "TEXCOORD_1", a->uv1);
    }
    if (a->joints >= 0) {
        put_number(w, attributes, "JOINTS_0", a->joints);
        put_number(w, attributes, "WEIGHTS_0", a->weights);
    }
    if (a->source >= 0) {
        put_number(w, attributes, "_SOURCE_VERTEX", a->source);
    }
    int indices =
        add_accessor(w, index_view, (size_t)first * 4, GLTF_UNSIGNED_INT, count, "SCALAR");
    put_number(w, primitive, "indices", indices);
    put_number(w, primitive, "material", material);
    put_number(w, primitive, "mode", GLTF_TRIANGLES);
}

/* Mesh 0: one primitive per material, in the order the materials are first
 * used, each over the triangles of that material in index-buffer order, so
 * that an engine's importer makes one draw per material (the asset keeps a
 * submesh per source mesh, often several of one material). */
static void add_mesh(glb_writer *w, cJSON *meshes, const vertex_accessors *a) {
    const crowd_mesh *mesh = &w->desc->asset->mesh;
    uint32_t *grouped = malloc((size_t)mesh->index_count * sizeof *grouped);
    bool *done = calloc(mesh->submesh_count, sizeof *done);
    if (grouped == NULL || done == NULL) {
        free(grouped);
        free(done);
        w->failed = true;
        return;
    }
    typedef struct {
        uint32_t material, first, count;
    } run;
    run *runs = malloc(((size_t)mesh->submesh_count + 1) * sizeof *runs);
    uint32_t run_count = 0, filled = 0;
    for (uint32_t s = 0; runs != NULL && s < mesh->submesh_count; s++) {
        if (done[s] || mesh->submeshes[s].index_count == 0) {
            continue; /* glTF accessors cannot be empty; an empty range draws nothing anyway */
        }
        uint32_t material = mesh->submeshes[s].material, first = filled;
        for (uint32_t t = s; t < mesh->submesh_count; t++) {
            const crowd_submesh *submesh = &mesh->submeshes[t];
            if (!done[t] && submesh->material == material) {
                memcpy(grouped + filled, mesh->indices + submesh->first_index,
                       (size_t)submesh->index_count * sizeof *grouped);
                filled += submesh->index_count;
                done[t] = true;
            }
        }
        runs[run_count++] = (run){material, first, filled - first};
    }
    if (runs == NULL) {
        w->failed = true;
    }
    int index_view = add_view(w, grouped, (size_t)filled * 4, GLTF_ELEMENT_ARRAY_BUFFER);
    cJSON *object = put(w, meshes, NULL, cJSON_CreateObject());
    put_string(w, object, "name", w->desc->name);
    cJSON *primitives = put(w, object, "primitives", cJSON_CreateArray());
    for (uint32_t r = 0; r < run_count; r++) {
        add_primitive(w, primitives, a, index_view, runs[r].first, runs[r].count, runs[r].material);
    }
    free(runs);
    free(done);
    free(grouped);
}

static void gather(const float *array, int components, const uint32_t *source, uint32_t count,
                   float *out) {
    size_t n = (size_t)components;
    for (uint32_t i = 0; i < count; i++) {
        memcpy(out + n * i, array + n * source[i], n * sizeof *out);
    }
}

/* LOD k's vertices, each attribute copied from its LOD0 vertex. */
static vertex_accessors add_lod_vertices(glb_writer *w, const crowd_bake_lod *lod) {
    const crowd_mesh *mesh = &w->desc->asset->mesh;
    const uint32_t *source = w->desc->lod_vertices + lod->first_vertex;
    uint32_t count = lod->vertex_count;
    vertex_accessors a = {-1, -1, -1, -1, -1, -1, -1, -1};
    float *values = malloc((size_t)count * 4 * sizeof *values); /* the widest attribute */
    uint16_t *joints = malloc((size_t)count * 4 * sizeof *joints);
    if (values == NULL || joints == NULL) {
        free(values);
        free(joints);
        w->failed = true;
        return a;
    }
    gather(mesh->positions, 3, source, count, values);
    a.position = add_positions(w, values, count);
    gather(mesh->normals, 3, source, count, values);
    a.normal = add_vertex_array(w, values, count, GLTF_FLOAT, 4, 3, "VEC3");
    if (mesh->tangents != NULL) {
        gather(mesh->tangents, 4, source, count, values);
        a.tangent = add_vertex_array(w, values, count, GLTF_FLOAT, 4, 4, "VEC4");
    }
    gather(mesh->uv0, 2, source, count, values);
    a.uv0 = add_vertex_array(w, values, count, GLTF_FLOAT, 4, 2, "VEC2");
    if (w->desc->lookup.width > 0) {
        for (uint32_t i = 0; i < count; i++) {
            crowd__glb_lookup_uv(&w->desc->lookup, source[i], values + 2 * (size_t)i);
        }
        a.uv1 = add_vertex_array(w, values, count, GLTF_FLOAT, 4, 2, "VEC2");
    }
    if (w->desc->skin) {
        for (uint32_t i = 0; i < count; i++) {
            memcpy(joints + 4 * (size_t)i, mesh->joints + 4 * (size_t)source[i],
                   4 * sizeof *joints);
        }
        a.joints = add_vertex_array(w, joints, count, GLTF_UNSIGNED_SHORT, 2, 4, "VEC4");
        gather(mesh->weights, 4, source, count, values);
        a.weights = add_vertex_array(w, values, count, GLTF_FLOAT, 4, 4, "VEC4");
    }
    for (uint32_t i = 0; i < count; i++) {
        values[i] = (float)source[i]; /* exact: below BAKE_LOD_MAX_VERTICES = 2^24 */
    }
    a.source = add_vertex_array(w, values, count, GLTF_FLOAT, 4, 1, "SCALAR");
    free(values);
    free(joints);
    return a;
}

/* Meshes 1..: one per LOD, a primitive per run of one material (the
 * builder keeps a material's triangles together, so usually one each). */
static void add_lod_meshes(glb_writer *w, cJSON *meshes) {
    const glb_write_desc *desc = w->desc;
    if (desc->lod_count <= 1) {
        return;
    }
    uint32_t *materials = malloc((size_t)desc->asset->mesh.vertex_count * sizeof *materials);
    if (materials == NULL) {
        w->failed = true;
        return;
    }
    crowd__bake_vertex_materials(&desc->asset->mesh, materials);
    for (uint32_t k = 1; k < desc->lod_count && !w->failed; k++) {
        const crowd_bake_lod *lod = &desc->lods[k];
        const uint32_t *indices = desc->lod_indices + lod->first_index;
        const uint32_t *source = desc->lod_vertices + lod->first_vertex;
        vertex_accessors a = add_lod_vertices(w, lod);
        int index_view =
            add_view(w, indices, (size_t)lod->index_count * 4, GLTF_ELEMENT_ARRAY_BUFFER);
        char name[MANIFEST_NAME_MAX + 16];
        snprintf(name, sizeof name, "%s_LOD%u", desc->name, k);
        cJSON *object = put(w, meshes, NULL, cJSON_CreateObject());
        put_string(w, object, "name", name);
        cJSON *primitives = put(w, object, "primitives", cJSON_CreateArray());
        uint32_t start = 0;
        for (uint32_t t = 3; t <= lod->index_count; t += 3) {
            uint32_t material = materials[source[indices[start]]];
            if (t == lod->index_count || materials[source[indices[t]]] != material) {
                add_primitive(w, primitives, &a, index_view, start, t - start, material);
                start = t;
            }
        }
    }
    free(materials);
}

static float unit_clamp(float value) {
    return value < 0.0f ? 0.0f : value > 1.0f ? 1.0f : value;
}

/* Embeds `image` as a PNG texture (the first one adds the shared sampler);
 * returns the texture's index, -1 for no image. */
static int add_texture(glb_writer *w, const crowd_image *image, crowd_error *error,
                       crowd_result *result) {
    if (image->rgba8 == NULL || image->width == 0 || image->height == 0) {
        return -1;
    }
    uint8_t *png = NULL;
    size_t png_size = 0;
    *result =
        crowd__png_encode_rgba8(image->rgba8, image->width, image->height, &png, &png_size, error);
    if (*result != CROWD_OK) {
        return -1;
    }
    int view = add_view(w, png, png_size, 0);
    free(png);
    cJSON *images = cJSON_GetObjectItemCaseSensitive(w->root, "images");
    cJSON *textures = cJSON_GetObjectItemCaseSensitive(w->root, "textures");
    if (images == NULL) {
        images = put(w, w->root, "images", cJSON_CreateArray());
        textures = put(w, w->root, "textures", cJSON_CreateArray());
        cJSON *sampler =
            put(w, put(w, w->root, "samplers", cJSON_CreateArray()), NULL, cJSON_CreateObject());
        put_number(w, sampler, "magFilter", GLTF_LINEAR);
        put_number(w, sampler, "minFilter", GLTF_LINEAR_MIPMAP_LINEAR);
        put_number(w, sampler, "wrapS", GLTF_REPEAT);
        put_number(w, sampler, "wrapT", GLTF_REPEAT);
    }
    cJSON *object = put(w, images, NULL, cJSON_CreateObject());
    put_number(w, object, "bufferView", view);
    put_string(w, object, "mimeType", "image/png");
    cJSON *texture = put(w, textures, NULL, cJSON_CreateObject());
    put_number(w, texture, "sampler", 0);
    put_number(w, texture, "source", cJSON_GetArraySize(images) - 1);
    return cJSON_GetArraySize(textures) - 1;
}

/* A textureInfo `key` in `parent` for `image`, when it has one; returns the info or NULL. */
static cJSON *put_texture(glb_writer *w, cJSON *parent, const char *key, const crowd_image *image,
                          crowd_error *error, crowd_result *result) {
    int texture = *result == CROWD_OK ? add_texture(w, image, error, result) : -1;
    if (texture < 0) {
        return NULL;
    }
    cJSON *info = put(w, parent, key, cJSON_CreateObject());
    put_number(w, info, "index", texture);
    return info;
}

/* Every parameter of the material, factors clamped to the ranges glTF
 * requires (the asset keeps metallic, roughness and occlusion strength in
 * them already; colours may be outside). Textures are embedded as PNG.
 * alphaCutoff only with MASK, where glTF gives it a meaning. */
static crowd_result add_material(glb_writer *w, cJSON *object, const crowd_material *material,
                                 crowd_error *error) {
    static const char *const modes[] = {"OPAQUE", "MASK", "BLEND"};
    crowd_result result = CROWD_OK;
    if (material->name != NULL && material->name[0] != '\0') {
        put_string(w, object, "name", material->name);
    }
    cJSON *pbr = put(w, object, "pbrMetallicRoughness", cJSON_CreateObject());
    float factor[4];
    for (int c = 0; c < 4; c++) {
        factor[c] = unit_clamp(material->base_color[c]);
    }
    put_floats(w, pbr, "baseColorFactor", factor, 4);
    put_number(w, pbr, "metallicFactor", unit_clamp(material->metallic));
    put_number(w, pbr, "roughnessFactor", unit_clamp(material->roughness));
    const crowd_image base = {material->texture_width, material->texture_height,
                              material->texture_rgba8};
    put_texture(w, pbr, "baseColorTexture", &base, error, &result);
    put_texture(w, pbr, "metallicRoughnessTexture", &material->metallic_roughness_texture, error,
                &result);
    cJSON *normal =
        put_texture(w, object, "normalTexture", &material->normal_texture, error, &result);
    if (normal != NULL) {
        put_number(w, normal, "scale", material->normal_scale);
    }
    cJSON *occlusion =
        put_texture(w, object, "occlusionTexture", &material->occlusion_texture, error, &result);
    if (occlusion != NULL) {
        put_number(w, occlusion, "strength", unit_clamp(material->occlusion_strength));
    }
    put_texture(w, object, "emissiveTexture", &material->emissive_texture, error, &result);
    for (int c = 0; c < 3; c++) {
        factor[c] = unit_clamp(material->emissive[c]);
    }
    put_floats(w, object, "emissiveFactor", factor, 3);
    uint32_t mode = material->alpha_mode <= CROWD_ALPHA_BLEND ? material->alpha_mode : 0;
    put_string(w, object, "alphaMode", modes[mode]);
    if (material->alpha_mode == CROWD_ALPHA_MASK) {
        put_number(w, object, "alphaCutoff", material->alpha_cutoff);
    }
    put(w, object, "doubleSided", cJSON_CreateBool(material->double_sided));
    return result;
}

static crowd_result add_materials(glb_writer *w, crowd_error *error) {
    const crowd_asset *asset = w->desc->asset;
    cJSON *materials = put(w, w->root, "materials", cJSON_CreateArray());
    crowd_result result = CROWD_OK;
    for (uint32_t m = 0; m < asset->material_count && result == CROWD_OK; m++) {
        cJSON *object = put(w, materials, NULL, cJSON_CreateObject());
        result = add_material(w, object, &asset->materials[m], error);
    }
    return result;
}

static bool is_identity(const float m[16]) {
    for (int i = 0; i < 16; i++) {
        if (m[i] != ((i % 5 == 0) ? 1.0f : 0.0f)) {
            return false;
        }
    }
    return true;
}

/* Node 0 holds the mesh; with a skin node 1 is the skeleton root (the
 * transform above the root joints) and joint j is node 2 + j. */
static void add_nodes(glb_writer *w) {
    const crowd_asset *asset = w->desc->asset;
    const crowd_skeleton *skeleton = &asset->skeleton;
    cJSON *nodes = put(w, w->root, "nodes", cJSON_CreateArray());
    cJSON *scene_nodes =
        put(w, put(w, put(w, w->root, "scenes", cJSON_CreateArray()), NULL, cJSON_CreateObject()),
            "nodes", cJSON_CreateArray());
    put_number(w, w->root, "scene", 0);
    cJSON *mesh_node = put(w, nodes, NULL, cJSON_CreateObject());
    put_string(w, mesh_node, "name", w->desc->name);
    put_number(w, mesh_node, "mesh", 0);
    put_number(w, scene_nodes, NULL, 0);
    if (!w->desc->skin) {
        return;
    }
    put_number(w, mesh_node, "skin", 0);
    put_number(w, scene_nodes, NULL, 1);
    cJSON *root = put(w, nodes, NULL, cJSON_CreateObject());
    put_string(w, root, "name", "skeleton");
    if (!is_identity(skeleton->root_transform)) {
        put_floats(w, root, "matrix", skeleton->root_transform, 16);
    }
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        cJSON *node = put(w, nodes, NULL, cJSON_CreateObject());
        put_string(w, node, "name", skeleton->names[j] ? skeleton->names[j] : "");
        put_floats(w, node, "translation", skeleton->rest_translation + 3 * j, 3);
        put_floats(w, node, "rotation", skeleton->rest_rotation + 4 * j, 4);
        put_floats(w, node, "scale", skeleton->rest_scale + 3 * j, 3);
    }
    for (uint32_t j = 0; j < skeleton->joint_count && !w->failed; j++) {
        int32_t parent = skeleton->parents[j];
        cJSON *parent_node = cJSON_GetArrayItem(nodes, parent < 0 ? 1 : 2 + parent);
        cJSON *children = cJSON_GetObjectItemCaseSensitive(parent_node, "children");
        if (children == NULL) {
            children = put(w, parent_node, "children", cJSON_CreateArray());
        }
        put_number(w, children, NULL, 2.0 + j);
    }
    int ibm_view = add_view(w, skeleton->inverse_bind, (size_t)skeleton->joint_count * 64, 0);
    cJSON *skin = put(w, put(w, w->root, "skins", cJSON_CreateArray()), NULL, cJSON_CreateObject());
    put_number(w, skin, "inverseBindMatrices",
               add_accessor(w, ibm_view, 0, GLTF_FLOAT, skeleton->joint_count, "MAT4"));
    put_number(w, skin, "skeleton", 1);
    cJSON *joints = put(w, skin, "joints", cJSON_CreateArray());
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        put_number(w, joints, NULL, 2.0 + j);
    }
}

/* Node of LOD k: after the joints, not in the scene. */
static void add_lod_nodes(glb_writer *w) {
    cJSON *nodes = cJSON_GetObjectItemCaseSensitive(w->root, "nodes");
    for (uint32_t k = 1; k < w->desc->lod_count; k++) {
        char name[MANIFEST_NAME_MAX + 16];
        snprintf(name, sizeof name, "%s_LOD%u", w->desc->name, k);
        cJSON *node = put(w, nodes, NULL, cJSON_CreateObject());
        put_string(w, node, "name", name);
        put_number(w, node, "mesh", k);
        if (w->desc->skin) {
            put_number(w, node, "skin", 0);
        }
    }
}

static crowd_result check_desc(const glb_write_desc *desc, crowd_error *error) {
    const crowd_asset *asset = desc->asset;
    const crowd_mesh *mesh = &asset->mesh;
    if (mesh->vertex_count == 0 || mesh->index_count == 0 || mesh->submesh_count == 0 ||
        asset->material_count == 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, desc->name,
                               "the mesh has no triangles or no material");
    }
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        if (mesh->submeshes[s].material >= asset->material_count) {
            return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, desc->name,
                                   "submesh %u uses material %u of %u", s,
                                   mesh->submeshes[s].material, asset->material_count);
        }
    }
    if (desc->skin && asset->skeleton.joint_count == 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, desc->name,
                               "a skin needs joints");
    }
    return CROWD_OK;
}

static void put_u32(uint8_t *out, uint32_t value) {
    out[0] = (uint8_t)value;
    out[1] = (uint8_t)(value >> 8);
    out[2] = (uint8_t)(value >> 16);
    out[3] = (uint8_t)(value >> 24);
}

/* Header, JSON chunk padded with spaces, BIN chunk padded with zeros. */
static crowd_result assemble(glb_writer *w, const char *json, uint8_t **out_data, size_t *out_size,
                             crowd_error *error) {
    size_t json_size = strlen(json), json_padded = (json_size + 3u) & ~(size_t)3u;
    size_t bin_padded = (w->bin_size + 3u) & ~(size_t)3u;
    uint64_t total = 12u + 8u + json_padded + 8u + bin_padded;
    if (total > UINT32_MAX) {
        return crowd_error_set(error, CROWD_ERROR_LIMIT, w->desc->name,
                               "the mesh needs %llu bytes, over the 4 GiB a .glb can hold",
                               (unsigned long long)total);
    }
    uint8_t *out = malloc((size_t)total);
    if (out == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, w->desc->name, "out of memory");
    }
    put_u32(out, GLB_MAGIC);
    put_u32(out + 4, 2);
    put_u32(out + 8, (uint32_t)total);
    put_u32(out + 12, (uint32_t)json_padded);
    put_u32(out + 16, GLB_CHUNK_JSON);
    memcpy(out + 20, json, json_size);
    memset(out + 20 + json_size, ' ', json_padded - json_size);
    uint8_t *bin = out + 20 + json_padded;
    put_u32(bin, (uint32_t)bin_padded);
    put_u32(bin + 4, GLB_CHUNK_BIN);
    memcpy(bin + 8, w->bin, w->bin_size);
    memset(bin + 8 + w->bin_size, 0, bin_padded - w->bin_size);
    *out_data = out;
    *out_size = (size_t)total;
    return CROWD_OK;
}

crowd_result crowd__glb_write(const glb_write_desc *desc, uint8_t **out_data, size_t *out_size,
                              crowd_error *error) {
    crowd_result result = check_desc(desc, error);
    if (result != CROWD_OK) {
        return result;
    }
    glb_writer w = {.desc = desc, .root = cJSON_CreateObject()};
    cJSON *asset_info = put(&w, w.root, "asset", cJSON_CreateObject());
    put_string(&w, asset_info, "version", "2.0");
    put_string(&w, asset_info, "generator", "crowd " CROWD_VERSION_STRING);
    w.accessors = put(&w, w.root, "accessors", cJSON_CreateArray());
    w.views = put(&w, w.root, "bufferViews", cJSON_CreateArray());
    vertex_accessors accessors = add_vertices(&w);
    cJSON *meshes = put(&w, w.root, "meshes", cJSON_CreateArray());
    add_mesh(&w, meshes, &accessors);
    add_lod_meshes(&w, meshes);
    add_nodes(&w);
    add_lod_nodes(&w);
    result = add_materials(&w, error);
    if (result == CROWD_OK) {
        cJSON *buffer =
            put(&w, put(&w, w.root, "buffers", cJSON_CreateArray()), NULL, cJSON_CreateObject());
        put_number(&w, buffer, "byteLength", (double)((w.bin_size + 3u) & ~(size_t)3u));
        char *json = w.failed ? NULL : cJSON_PrintUnformatted(w.root);
        if (json == NULL) {
            result = crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, desc->name,
                                     "out of memory building the mesh file");
        } else {
            result = assemble(&w, json, out_data, out_size, error);
        }
        cJSON_free(json);
    }
    cJSON_Delete(w.root);
    free(w.bin);
    return result;
}
