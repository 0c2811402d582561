/* gltf_meshes.c - the primitives of every mesh instance of the scene, read.
 *
 * A mesh instance is a node of the scene with a mesh; a skinned mesh (its
 * node has a skin, its primitives JOINTS_0 and WEIGHTS_0) is taken once,
 * however many nodes use it (its skin places it, not the node), a static
 * one once per node. Primitives of triangles, strips and fans become
 * triangle lists (the specification's vertex order for strips and fans);
 * points and lines are left out and said so. Attributes: POSITION (float,
 * or KHR_mesh_quantization's 8- and 16-bit integers), NORMAL, the
 * TEXCOORD_n the base-colour texture reads (its KHR_texture_transform
 * applied), and every JOINTS_n / WEIGHTS_n pair. Every attribute of a
 * primitive has POSITION's count, indices are below it, joints that carry
 * weight name a joint of the skin, weights are finite and >= 0, positions
 * and texture coordinates finite. Morph targets are checked, not applied.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/gltf/gltf_internal.h"

/* Beyond this, one primitive is not a crowd character's (and uint32 indices overflow). */
#define GLTF_MAX_PRIMITIVE_VERTICES (1u << 26)
/* JOINTS_n / WEIGHTS_n sets read; files use one, rarely two. */
#define GLTF_MAX_INFLUENCE_SETS 8u

typedef struct primitive_reader {
    gltf_import *imp;
    gltf_primitive *out;
    const cJSON *attributes;
    char path[64]; /* ".attributes" appended for attribute messages */
    const gltf_skin *skin;
    bool dropped_lines;
} primitive_reader;

/* Every attribute (and every morph target's) names an accessor of the
 * primitive's vertex count. */
static crowd_result check_counts(primitive_reader *r, const cJSON *attributes, const char *path,
                                 uint32_t vertices) {
    gltf_document *doc = r->imp->doc;
    if (!cJSON_IsObject(attributes)) {
        return crowd__gltf_fail(doc, "%s is not an object", path);
    }
    for (const cJSON *member = attributes->child; member != NULL; member = member->next) {
        gltf_accessor accessor;
        crowd_result result =
            crowd__gltf_accessor_open(doc, attributes, member->string, path, true, &accessor, NULL);
        if (result != CROWD_OK) {
            return result;
        }
        if (accessor.count != vertices) {
            return crowd__gltf_fail(doc, "%s.%s has %u elements, POSITION has %u", path,
                                    member->string, accessor.count, vertices);
        }
    }
    return CROWD_OK;
}

/* Attribute `name` as floats with `components` per vertex; *out NULL when
 * absent. Integer forms must be normalized where the value is a direction
 * or a weight. */
static crowd_result read_floats(primitive_reader *r, const char *name, uint32_t components,
                                bool integers_normalized, float **out) {
    gltf_document *doc = r->imp->doc;
    *out = NULL;
    gltf_accessor accessor;
    bool present = false;
    char path[96];
    snprintf(path, sizeof path, "%s.attributes", r->path);
    crowd_result result =
        crowd__gltf_accessor_open(doc, r->attributes, name, path, false, &accessor, &present);
    if (result != CROWD_OK || !present) {
        return result;
    }
    if (accessor.components != components || accessor.is_matrix ||
        accessor.component_type == GLTF_UNSIGNED_INT ||
        (integers_normalized && accessor.component_type != GLTF_FLOAT && !accessor.normalized)) {
        return crowd__gltf_fail(doc, "%s.%s: %s has %u components of type %u%s, not %u %s", path,
                                name, accessor.path, accessor.components, accessor.component_type,
                                accessor.normalized ? " (normalized)" : "", components,
                                integers_normalized ? "floats or normalized integers"
                                                    : "floats or 8/16-bit integers");
    }
    return crowd__gltf_accessor_floats(doc, &accessor, out);
}

/* The first non-finite value of `count` vectors of `components`, or -1. */
static int64_t first_not_finite(const float *values, uint32_t count, uint32_t components) {
    for (size_t i = 0; values != NULL && i < (size_t)count * components; i++) {
        if (!isfinite(values[i])) {
            return (int64_t)(i / components);
        }
    }
    return -1;
}

static void apply_uv_transform(float *uv, uint32_t count, const float m[6]) {
    for (uint32_t v = 0; v < count; v++) {
        float u = uv[2 * v], w = uv[2 * v + 1];
        uv[2 * v] = m[0] * u + m[2] * w + m[4];
        uv[2 * v + 1] = m[1] * u + m[3] * w + m[5];
    }
}

static crowd_result read_vertices(primitive_reader *r) {
    gltf_primitive *out = r->out;
    crowd_result result = read_floats(r, "POSITION", 3, false, &out->positions);
    int64_t bad = first_not_finite(out->positions, out->vertex_count, 3);
    if (result == CROWD_OK && bad >= 0) {
        result = crowd__gltf_fail(r->imp->doc, "%s.attributes.POSITION: vertex %lld is not finite",
                                  r->path, (long long)bad);
    }
    if (result == CROWD_OK) {
        result = read_floats(r, "NORMAL", 3, true, &out->normals);
    }
    uint32_t set = 0;
    float transform[6];
    crowd__gltf_material_uv(r->imp, out->material, &set, transform);
    char name[24];
    snprintf(name, sizeof name, "TEXCOORD_%u", set);
    if (result == CROWD_OK) {
        result = read_floats(r, name, 2, false, &out->uv);
    }
    bad = first_not_finite(out->uv, out->vertex_count, 2);
    if (result == CROWD_OK && bad >= 0) {
        result = crowd__gltf_fail(r->imp->doc, "%s.attributes.%s: vertex %lld is not finite",
                                  r->path, name, (long long)bad);
    }
    if (result == CROWD_OK && out->uv != NULL) {
        apply_uv_transform(out->uv, out->vertex_count, transform);
    }
    return result;
}

/* JOINTS_n (unsigned integers) and WEIGHTS_n of one set into the
 * primitive's interleaved influences (4 per set per vertex). */
static crowd_result read_influence_set(primitive_reader *r, uint32_t set, uint32_t sets) {
    gltf_document *doc = r->imp->doc;
    gltf_primitive *out = r->out;
    char joints_name[24], weights_name[24], path[96];
    snprintf(joints_name, sizeof joints_name, "JOINTS_%u", set);
    snprintf(weights_name, sizeof weights_name, "WEIGHTS_%u", set);
    snprintf(path, sizeof path, "%s.attributes", r->path);
    gltf_accessor accessor;
    uint32_t *joints = NULL;
    float *weights = NULL;
    crowd_result result =
        crowd__gltf_accessor_open(doc, r->attributes, joints_name, path, true, &accessor, NULL);
    if (result == CROWD_OK && (accessor.components != 4 || accessor.is_matrix)) {
        result = crowd__gltf_fail(doc, "%s.%s: %s is not VEC4", path, joints_name, accessor.path);
    }
    if (result == CROWD_OK) {
        result = crowd__gltf_accessor_uints(doc, &accessor, &joints);
    }
    if (result == CROWD_OK) {
        result = read_floats(r, weights_name, 4, true, &weights);
    }
    for (uint32_t v = 0; result == CROWD_OK && v < out->vertex_count; v++) {
        for (uint32_t k = 0; k < 4; k++) {
            uint32_t joint = joints[4 * v + k];
            float weight = weights[4 * v + k];
            if (!isfinite(weight) || weight < 0.0f) {
                result =
                    crowd__gltf_fail(doc, "%s.%s: vertex %u: weight %g is not a finite number >= 0",
                                     path, weights_name, v, (double)weight);
                break;
            }
            if (weight > 0.0f && joint >= r->skin->joint_count) {
                result = crowd__gltf_fail(doc, "%s.%s: vertex %u names joint %u, the skin has %u",
                                          path, joints_name, v, joint, r->skin->joint_count);
                break;
            }
            size_t slot = ((size_t)v * sets + set) * 4 + k;
            out->joints[slot] = weight > 0.0f ? joint : 0;
            out->weights[slot] = weight;
        }
    }
    free(joints);
    free(weights);
    return result;
}

static crowd_result read_influences(primitive_reader *r) {
    gltf_primitive *out = r->out;
    uint32_t sets = 0;
    while (sets < GLTF_MAX_INFLUENCE_SETS) {
        char joints[24], weights[24];
        snprintf(joints, sizeof joints, "JOINTS_%u", sets);
        snprintf(weights, sizeof weights, "WEIGHTS_%u", sets);
        if (cJSON_GetObjectItemCaseSensitive(r->attributes, joints) == NULL ||
            cJSON_GetObjectItemCaseSensitive(r->attributes, weights) == NULL) {
            break;
        }
        sets++;
    }
    out->influence_count = 4 * sets;
    out->joints = malloc(((size_t)out->vertex_count * out->influence_count + 1) * sizeof(uint32_t));
    out->weights = malloc(((size_t)out->vertex_count * out->influence_count + 1) * sizeof(float));
    if (out->joints == NULL || out->weights == NULL) {
        return crowd_error_set(r->imp->error, CROWD_ERROR_OUT_OF_MEMORY, r->imp->file,
                               "out of memory");
    }
    crowd_result result = CROWD_OK;
    for (uint32_t set = 0; set < sets && result == CROWD_OK; set++) {
        result = read_influence_set(r, set, sets);
    }
    return result;
}

/* Triangles of `mode` (4 list, 5 strip, 6 fan) over `elements` vertex
 * references (the index accessor's values, or 0..n-1). */
static crowd_result make_triangles(primitive_reader *r, uint64_t mode, const uint32_t *elements,
                                   uint32_t count) {
    gltf_primitive *out = r->out;
    uint32_t triangles = mode == 4 ? count / 3 : count >= 3 ? count - 2 : 0;
    out->indices = malloc(((size_t)triangles * 3 + 1) * sizeof *out->indices);
    if (out->indices == NULL) {
        return crowd_error_set(r->imp->error, CROWD_ERROR_OUT_OF_MEMORY, r->imp->file,
                               "out of memory");
    }
    for (uint32_t t = 0; t < triangles; t++) {
        uint32_t a = 3 * t, b = 3 * t + 1, c = 3 * t + 2;
        if (mode == 5) {
            a = t;
            b = t + 1 + t % 2;
            c = t + 2 - t % 2;
        } else if (mode == 6) {
            a = t + 1;
            b = t + 2;
            c = 0;
        }
        uint32_t *triangle = &out->indices[3 * t];
        triangle[0] = elements ? elements[a] : a;
        triangle[1] = elements ? elements[b] : b;
        triangle[2] = elements ? elements[c] : c;
    }
    out->index_count = 3 * triangles;
    return CROWD_OK;
}

static crowd_result read_indices(primitive_reader *r, const cJSON *json, uint64_t mode) {
    gltf_document *doc = r->imp->doc;
    gltf_accessor accessor;
    bool indexed = false;
    crowd_result result =
        crowd__gltf_accessor_open(doc, json, "indices", r->path, false, &accessor, &indexed);
    if (result != CROWD_OK || !indexed) {
        return result == CROWD_OK ? make_triangles(r, mode, NULL, r->out->vertex_count) : result;
    }
    if (accessor.components != 1 || accessor.is_matrix ||
        (accessor.component_type != GLTF_UNSIGNED_BYTE &&
         accessor.component_type != GLTF_UNSIGNED_SHORT &&
         accessor.component_type != GLTF_UNSIGNED_INT)) {
        return crowd__gltf_fail(doc, "%s.indices: %s is not SCALAR of unsigned integers", r->path,
                                accessor.path);
    }
    uint32_t *elements = NULL;
    result = crowd__gltf_accessor_uints(doc, &accessor, &elements);
    for (uint32_t i = 0; result == CROWD_OK && i < accessor.count; i++) {
        if (elements[i] >= r->out->vertex_count) {
            result =
                crowd__gltf_fail(doc, "%s.indices: index %u is %u, the primitive has %u vertices",
                                 r->path, i, elements[i], r->out->vertex_count);
        }
    }
    if (result == CROWD_OK) {
        result = make_triangles(r, mode, elements, accessor.count);
    }
    free(elements);
    return result;
}

/* Checks primitive `p` of mesh `m`; reads it into r->out when it has
 * triangles (else out->index_count stays 0). */
static crowd_result read_primitive(primitive_reader *r, const cJSON *json, uint32_t m, uint32_t p,
                                   const gltf_node *node) {
    gltf_document *doc = r->imp->doc;
    snprintf(r->path, sizeof r->path, "meshes[%u].primitives[%u]", m, p);
    if (!cJSON_IsObject(json)) {
        return crowd__gltf_fail(doc, "%s is not an object", r->path);
    }
    char path[96];
    snprintf(path, sizeof path, "%s.attributes", r->path);
    r->attributes = cJSON_GetObjectItemCaseSensitive(json, "attributes");
    gltf_accessor position;
    crowd_result result =
        cJSON_IsObject(r->attributes)
            ? crowd__gltf_accessor_open(doc, r->attributes, "POSITION", path, true, &position, NULL)
            : crowd__gltf_fail(doc, "%s is not an object", path);
    if (result == CROWD_OK && position.count > GLTF_MAX_PRIMITIVE_VERTICES) {
        result = crowd_error_set(r->imp->error, CROWD_ERROR_LIMIT, r->imp->file,
                                 "%s: %u vertices, more than the %u allowed", r->path,
                                 position.count, GLTF_MAX_PRIMITIVE_VERTICES);
    }
    if (result == CROWD_OK) {
        result = check_counts(r, r->attributes, path, position.count);
    }
    const cJSON *targets = cJSON_GetObjectItemCaseSensitive(json, "targets");
    if (result == CROWD_OK && targets != NULL && !cJSON_IsArray(targets)) {
        result = crowd__gltf_fail(doc, "%s.targets is not an array", r->path);
    }
    uint32_t t = 0;
    for (const cJSON *target = targets ? targets->child : NULL;
         result == CROWD_OK && target != NULL; target = target->next, t++) {
        snprintf(path, sizeof path, "%s.targets[%u]", r->path, t);
        result = check_counts(r, target, path, position.count);
    }
    uint64_t mode = 4;
    if (result == CROWD_OK && !crowd__gltf_json_uint(json, "mode", 4, 6, &mode)) {
        result = crowd__gltf_fail(doc, "%s.mode is not one of 0-6", r->path);
    }
    uint32_t material = 0;
    bool has_material = false;
    if (result == CROWD_OK) {
        result = crowd__gltf_ref(doc, json, "material", GLTF_MATERIALS, false, r->path, &material,
                                 &has_material);
    }
    if (result != CROWD_OK || mode < 4) {
        r->dropped_lines = r->dropped_lines || mode < 4;
        return result;
    }
    gltf_primitive *out = r->out;
    out->vertex_count = position.count;
    out->material = has_material ? (int32_t)material : -1;
    snprintf(out->path, sizeof out->path, "%s", r->path);
    result = read_vertices(r);
    if (result == CROWD_OK && out->skinned) {
        result = read_influences(r);
    }
    if (result == CROWD_OK) {
        result = read_indices(r, json, mode);
    }
    if (result == CROWD_OK && targets != NULL) {
        crowd_log(r->imp->logger, CROWD_LOG_INFO, "%s: %s: morph targets ignored", r->imp->file,
                  r->path);
    }
    (void)node;
    return result;
}

static void primitive_free(gltf_primitive *p) {
    free(p->positions);
    free(p->normals);
    free(p->uv);
    free(p->joints);
    free(p->weights);
    free(p->indices);
    memset(p, 0, sizeof *p);
}

/* Reads the primitives of the mesh of node `n` (an instance) onto the list. */
static crowd_result read_instance(gltf_import *imp, uint32_t n, bool *skinned_done,
                                  primitive_reader *r, uint32_t *capacity) {
    const gltf_node *node = &imp->nodes[n];
    uint32_t m = (uint32_t)node->mesh;
    const cJSON *mesh = imp->doc->lists[GLTF_MESHES].items[m];
    const cJSON *primitives = cJSON_GetObjectItemCaseSensitive(mesh, "primitives");
    if (!cJSON_IsArray(primitives) || cJSON_GetArraySize(primitives) == 0) {
        return crowd__gltf_fail(imp->doc, "meshes[%u].primitives is missing or empty", m);
    }
    bool skinned_node = node->skin >= 0;
    if (skinned_node && skinned_done[m]) {
        return CROWD_OK;
    }
    r->skin = skinned_node ? &imp->skins[node->skin] : NULL;
    uint32_t p = 0;
    for (const cJSON *json = primitives->child; json != NULL; json = json->next, p++) {
        if (imp->primitive_count == *capacity) {
            *capacity *= 2;
            gltf_primitive *grown = realloc(imp->primitives, *capacity * sizeof *grown);
            if (grown == NULL) {
                return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file,
                                       "out of memory");
            }
            imp->primitives = grown;
        }
        gltf_primitive *out = &imp->primitives[imp->primitive_count];
        memset(out, 0, sizeof *out);
        out->node = n;
        const cJSON *attributes = cJSON_GetObjectItemCaseSensitive(json, "attributes");
        out->skinned = skinned_node && cJSON_GetObjectItemCaseSensitive(attributes, "JOINTS_0") &&
                       cJSON_GetObjectItemCaseSensitive(attributes, "WEIGHTS_0");
        r->out = out;
        crowd_result result = read_primitive(r, json, m, p, node);
        if (result == CROWD_OK && out->index_count > 0) {
            result = crowd__gltf_weld(imp, out);
        }
        if (result != CROWD_OK || out->index_count == 0) {
            primitive_free(out);
            if (result != CROWD_OK) {
                return result;
            }
            continue;
        }
        imp->primitive_count++;
    }
    skinned_done[m] = skinned_done[m] || skinned_node;
    return CROWD_OK;
}

crowd_result crowd__gltf_meshes_read(gltf_import *imp) {
    uint32_t capacity = 16;
    imp->primitives = malloc(capacity * sizeof *imp->primitives);
    bool *skinned_done = calloc((size_t)imp->doc->lists[GLTF_MESHES].count + 1, sizeof(bool));
    if (imp->primitives == NULL || skinned_done == NULL) {
        free(skinned_done);
        return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    primitive_reader reader;
    memset(&reader, 0, sizeof reader);
    reader.imp = imp;
    crowd_result result = CROWD_OK;
    for (uint32_t o = 0; o < imp->order_count && result == CROWD_OK; o++) {
        if (imp->nodes[imp->order[o]].mesh >= 0) {
            result = read_instance(imp, imp->order[o], skinned_done, &reader, &capacity);
        }
    }
    free(skinned_done);
    if (reader.dropped_lines) {
        crowd_log(imp->logger, CROWD_LOG_INFO,
                  "%s: primitives of points or lines left out (crowd plays triangles)", imp->file);
    }
    return result;
}

void crowd__gltf_primitives_free(gltf_import *imp) {
    for (uint32_t p = 0; imp->primitives != NULL && p < imp->primitive_count; p++) {
        primitive_free(&imp->primitives[p]);
    }
    free(imp->primitives);
    imp->primitives = NULL;
    imp->primitive_count = 0;
}
