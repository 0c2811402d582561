/* gltf_nodes.c - nodes, the scene and skins.
 *
 * Nodes must form a forest, as the specification says: children in range,
 * at most one parent each, no cycle. The scene is the document's `scene`,
 * else its first scene, else (no scenes at all) every node without a
 * parent; its root nodes must be roots. A node's local transform is its
 * matrix or its TRS (rotation normalized); a matrix is decomposed into the
 * rest TRS the skeleton keeps (shear does not survive). Skins name nodes
 * of the scene and, optionally, MAT4 float inverse bind matrices, one per
 * joint at least; without them every inverse bind is identity, as the
 * specification says.
 */
#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/gltf/gltf_internal.h"
#include "import/scene/import_math.h"

const char *crowd__gltf_node_name(const gltf_import *imp, uint32_t node, char buffer[24]) {
    const char *name = imp->nodes[node].name;
    if (name != NULL && name[0] != '\0') {
        return name;
    }
    snprintf(buffer, 24, "nodes[%u]", node);
    return buffer;
}

/* Rest TRS from a matrix, the way a skeleton can hold it: translation, the
 * columns' lengths as scale (all negated for a mirroring matrix), the
 * rotation of what is left. */
static void decompose(gltf_node *node) {
    mat4 m, rotation;
    vec4 translation;
    vec3 scale;
    memcpy(m, node->local, sizeof m);
    glm_decompose(m, translation, rotation, scale);
    versor q;
    glm_mat4_quat(rotation, q);
    float length = glm_vec4_norm(q);
    memcpy(node->translation, translation, 3 * sizeof(float));
    memcpy(node->scale, scale, sizeof scale);
    static const float unit[4] = {0, 0, 0, 1};
    if (isfinite(length) && length > 1e-6f) {
        for (int k = 0; k < 4; k++) {
            node->rotation[k] = q[k] / length;
        }
    } else {
        memcpy(node->rotation, unit, sizeof unit);
    }
}

static crowd_result read_transform(gltf_import *imp, const cJSON *json, uint32_t n,
                                   gltf_node *node) {
    static const float zero[3] = {0, 0, 0}, one[3] = {1, 1, 1}, unit[4] = {0, 0, 0, 1};
    memcpy(node->translation, zero, sizeof zero);
    memcpy(node->rotation, unit, sizeof unit);
    memcpy(node->scale, one, sizeof one);
    if (!crowd__gltf_json_floats(json, "translation", 3, node->translation) ||
        !crowd__gltf_json_floats(json, "rotation", 4, node->rotation) ||
        !crowd__gltf_json_floats(json, "scale", 3, node->scale)) {
        return crowd__gltf_fail(
            imp->doc,
            "nodes[%u]: translation, rotation or scale is not an array of 3, 4, 3 "
            "finite numbers",
            n);
    }
    if (cJSON_GetObjectItemCaseSensitive(json, "matrix") != NULL) {
        float m[16];
        if (!crowd__gltf_json_floats(json, "matrix", 16, m)) {
            return crowd__gltf_fail(imp->doc,
                                    "nodes[%u].matrix is not an array of 16 finite numbers", n);
        }
        memcpy(node->local, m, sizeof m);
        decompose(node);
        return CROWD_OK;
    }
    float *q = node->rotation;
    float length = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(length > 1e-6f)) {
        crowd_log(imp->logger, CROWD_LOG_WARNING,
                  "%s: nodes[%u].rotation has no length; taken as identity", imp->file, n);
        memcpy(q, unit, sizeof unit);
        length = 1.0f;
    }
    for (int k = 0; k < 4; k++) {
        q[k] /= length;
    }
    crowd__import_m4_from_trs(node->translation, node->rotation, node->scale, node->local);
    return CROWD_OK;
}

/* An element of a JSON array as an index below `count`. */
static bool element_index(const cJSON *item, uint32_t count, uint32_t *out) {
    double value = item->valuedouble;
    if (!cJSON_IsNumber(item) || !(value >= 0.0) || value >= (double)count ||
        value != (double)(uint32_t)value) {
        return false;
    }
    *out = (uint32_t)value;
    return true;
}

static crowd_result read_node(gltf_import *imp, uint32_t n) {
    gltf_document *doc = imp->doc;
    const cJSON *json = doc->lists[GLTF_NODES].items[n];
    gltf_node *node = &imp->nodes[n];
    char path[32];
    snprintf(path, sizeof path, "nodes[%u]", n);
    bool ok = true;
    node->name = crowd__gltf_json_string(json, "name", &ok);
    if (!ok) {
        return crowd__gltf_fail(doc, "%s.name is not a string", path);
    }
    uint32_t index = 0;
    bool present = false;
    crowd_result result =
        crowd__gltf_ref(doc, json, "mesh", GLTF_MESHES, false, path, &index, &present);
    node->mesh = present ? (int32_t)index : -1;
    if (result == CROWD_OK) {
        result = crowd__gltf_ref(doc, json, "skin", GLTF_SKINS, false, path, &index, &present);
        node->skin = present ? (int32_t)index : -1;
    }
    if (result == CROWD_OK) {
        result = crowd__gltf_ref(doc, json, "camera", GLTF_CAMERAS, false, path, &index, &present);
    }
    if (result != CROWD_OK) {
        return result;
    }
    const cJSON *children = cJSON_GetObjectItemCaseSensitive(json, "children");
    if (children != NULL && !cJSON_IsArray(children)) {
        return crowd__gltf_fail(doc, "%s.children is not an array", path);
    }
    uint32_t i = 0;
    for (const cJSON *item = children ? children->child : NULL; item != NULL;
         item = item->next, i++) {
        uint32_t child = 0;
        if (!element_index(item, imp->node_count, &child)) {
            return crowd__gltf_fail(doc, "%s.children[%u] is not one of the %u nodes", path, i,
                                    imp->node_count);
        }
        if (child == n) {
            return crowd__gltf_fail(doc, "%s is its own child", path);
        }
        if (imp->nodes[child].parent >= 0) {
            return crowd__gltf_fail(doc, "nodes[%u] is a child of both nodes[%d] and nodes[%u]",
                                    child, imp->nodes[child].parent, n);
        }
        imp->nodes[child].parent = (int32_t)n;
    }
    return read_transform(imp, json, n, node);
}

/* With one parent each, a cycle is a walk up from some node that comes
 * back to a node marked by the same walk. */
static crowd_result check_cycles(gltf_import *imp) {
    uint32_t *mark = calloc((size_t)imp->node_count + 1, sizeof *mark);
    if (mark == NULL) {
        return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    crowd_result result = CROWD_OK;
    for (uint32_t start = 0; start < imp->node_count && result == CROWD_OK; start++) {
        int32_t n = (int32_t)start;
        while (n >= 0 && mark[n] == 0) {
            mark[n] = start + 1;
            n = imp->nodes[n].parent;
        }
        if (n >= 0 && mark[n] == start + 1) {
            result = crowd__gltf_fail(
                imp->doc, "nodes[%d] is its own ancestor (the node hierarchy has a cycle)", n);
        }
    }
    free(mark);
    return result;
}

/* The scene's root nodes into roots[] (node_count + 1 entries). */
static crowd_result scene_roots(gltf_import *imp, uint32_t *roots, uint32_t *count) {
    gltf_document *doc = imp->doc;
    uint32_t scene = 0;
    bool present = false;
    crowd_result result =
        crowd__gltf_ref(doc, doc->json, "scene", GLTF_SCENES, false, "", &scene, NULL);
    *count = 0;
    if (result != CROWD_OK) {
        return result;
    }
    if (doc->lists[GLTF_SCENES].count == 0) {
        for (uint32_t n = 0; n < imp->node_count; n++) {
            if (imp->nodes[n].parent < 0) {
                roots[(*count)++] = n;
            }
        }
        return CROWD_OK;
    }
    const cJSON *json = doc->lists[GLTF_SCENES].items[scene];
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(json, "nodes");
    bool ok = true;
    crowd__gltf_json_string(json, "name", &ok);
    present = nodes != NULL;
    if (!ok || (present && !cJSON_IsArray(nodes))) {
        return crowd__gltf_fail(doc, "scenes[%u]: %s", scene,
                                ok ? "nodes is not an array" : "name is not a string");
    }
    uint32_t i = 0;
    for (const cJSON *item = present ? nodes->child : NULL; item != NULL; item = item->next, i++) {
        uint32_t root = 0;
        if (!element_index(item, imp->node_count, &root)) {
            return crowd__gltf_fail(doc, "scenes[%u].nodes[%u] is not one of the %u nodes", scene,
                                    i, imp->node_count);
        }
        if (imp->nodes[root].parent >= 0) {
            return crowd__gltf_fail(
                doc,
                "scenes[%u].nodes[%u]: nodes[%u] is a child of nodes[%d], not a "
                "root",
                scene, i, root, imp->nodes[root].parent);
        }
        if (imp->nodes[root].in_scene) {
            return crowd__gltf_fail(doc, "scenes[%u].nodes[%u]: nodes[%u] is listed twice", scene,
                                    i, root);
        }
        imp->nodes[root].in_scene = true;
        roots[(*count)++] = root;
    }
    return CROWD_OK;
}

/* Pre-order from the roots, children in file order: parents come first.
 * Iterative, so a deep hostile tree cannot overflow the C stack. */
static crowd_result walk_scene(gltf_import *imp) {
    uint32_t *roots = malloc(((size_t)imp->node_count + 1) * sizeof *roots);
    uint32_t *stack = malloc(((size_t)imp->node_count + 1) * sizeof *stack);
    imp->order = malloc(((size_t)imp->node_count + 1) * sizeof *imp->order);
    if (roots == NULL || stack == NULL || imp->order == NULL) {
        free(roots);
        free(stack);
        return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    uint32_t root_count = 0, depth = 0;
    crowd_result result = scene_roots(imp, roots, &root_count);
    for (uint32_t r = root_count; r-- > 0 && result == CROWD_OK;) {
        stack[depth++] = roots[r];
    }
    while (depth > 0 && result == CROWD_OK) {
        uint32_t n = stack[--depth];
        gltf_node *node = &imp->nodes[n];
        node->in_scene = true;
        node->scene_node = (int32_t)imp->order_count;
        imp->order[imp->order_count++] = n;
        const cJSON *children =
            cJSON_GetObjectItemCaseSensitive(imp->doc->lists[GLTF_NODES].items[n], "children");
        int count = children ? cJSON_GetArraySize(children) : 0;
        /* Pushed in reverse so children are visited in file order; each
         * node has one parent, so the stack never holds more than all. */
        for (int c = count; c-- > 0;) {
            stack[depth++] = (uint32_t)cJSON_GetArrayItem(children, c)->valuedouble;
        }
    }
    free(roots);
    free(stack);
    return result;
}

crowd_result crowd__gltf_nodes_read(gltf_import *imp) {
    imp->node_count = imp->doc->lists[GLTF_NODES].count;
    imp->nodes = calloc((size_t)imp->node_count + 1, sizeof *imp->nodes);
    if (imp->nodes == NULL) {
        return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    for (uint32_t n = 0; n < imp->node_count; n++) {
        imp->nodes[n].parent = -1;
        imp->nodes[n].scene_node = -1;
    }
    crowd_result result = CROWD_OK;
    for (uint32_t n = 0; n < imp->node_count && result == CROWD_OK; n++) {
        result = read_node(imp, n);
    }
    if (result == CROWD_OK) {
        result = check_cycles(imp);
    }
    return result == CROWD_OK ? walk_scene(imp) : result;
}

static crowd_result read_skin(gltf_import *imp, uint32_t s) {
    gltf_document *doc = imp->doc;
    const cJSON *json = doc->lists[GLTF_SKINS].items[s];
    gltf_skin *skin = &imp->skins[s];
    char path[32];
    snprintf(path, sizeof path, "skins[%u]", s);
    const cJSON *joints = cJSON_GetObjectItemCaseSensitive(json, "joints");
    if (!cJSON_IsArray(joints) || cJSON_GetArraySize(joints) == 0) {
        return crowd__gltf_fail(doc, "%s.joints is %s", path,
                                joints == NULL ? "missing" : "not a non-empty array");
    }
    uint32_t index = 0;
    crowd_result result =
        crowd__gltf_ref(doc, json, "skeleton", GLTF_NODES, false, path, &index, NULL);
    if (result != CROWD_OK) {
        return result;
    }
    skin->joint_count = (uint32_t)cJSON_GetArraySize(joints);
    skin->joints = malloc(skin->joint_count * sizeof *skin->joints);
    skin->inverse_binds = malloc((size_t)skin->joint_count * 16 * sizeof *skin->inverse_binds);
    if (skin->joints == NULL || skin->inverse_binds == NULL) {
        return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    uint32_t j = 0;
    for (const cJSON *item = joints->child; item != NULL; item = item->next, j++) {
        if (!element_index(item, imp->node_count, &skin->joints[j])) {
            return crowd__gltf_fail(doc, "%s.joints[%u] is not one of the %u nodes", path, j,
                                    imp->node_count);
        }
        crowd__import_m4_identity(&skin->inverse_binds[16 * j]);
    }
    gltf_accessor accessor;
    bool present = false;
    result = crowd__gltf_accessor_open(doc, json, "inverseBindMatrices", path, false, &accessor,
                                       &present);
    if (result != CROWD_OK || !present) {
        return result;
    }
    if (accessor.components != 16 || !accessor.is_matrix || accessor.component_type != GLTF_FLOAT) {
        return crowd__gltf_fail(doc, "%s.inverseBindMatrices: %s is not MAT4 of floats", path,
                                accessor.path);
    }
    if (accessor.count < skin->joint_count) {
        return crowd__gltf_fail(doc, "%s: %u joints, inverseBindMatrices %s has %u matrices", path,
                                skin->joint_count, accessor.path, accessor.count);
    }
    float *matrices = NULL;
    result = crowd__gltf_accessor_floats(doc, &accessor, &matrices);
    for (uint32_t k = 0; result == CROWD_OK && k < skin->joint_count; k++) {
        if (!crowd__import_m4_is_finite(&matrices[16 * k])) {
            result =
                crowd__gltf_fail(doc, "%s.inverseBindMatrices: matrix %u is not finite", path, k);
        }
        memcpy(&skin->inverse_binds[16 * k], &matrices[16 * k], 16 * sizeof(float));
    }
    free(matrices);
    return result;
}

crowd_result crowd__gltf_skins_read(gltf_import *imp) {
    imp->skin_count = imp->doc->lists[GLTF_SKINS].count;
    imp->skins = calloc((size_t)imp->skin_count + 1, sizeof *imp->skins);
    if (imp->skins == NULL) {
        return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    crowd_result result = CROWD_OK;
    for (uint32_t s = 0; s < imp->skin_count && result == CROWD_OK; s++) {
        result = read_skin(imp, s);
    }
    return result;
}
