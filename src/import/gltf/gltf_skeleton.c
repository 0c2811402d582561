/* gltf_skeleton.c - which nodes become joints, their rest pose and inverse
 * binds, and the sockets.
 *
 * Marked nodes: the joints of the skins, nodes that static meshes hang
 * from, skinned meshes' nodes when a vertex has no weight, animated nodes
 * and sockets (socket_* and the names the caller asks for). They are closed
 * under "nodes between joints": every node on the path from a marked node
 * up to the lowest common ancestor of all marked nodes becomes a joint too
 * (up to the scene's roots when the marks lie under several). The nodes
 * above are collapsed into skeleton.root_transform. Joints keep the scene's
 * pre-order, so parents come before children. A joint's inverse bind is
 * its skin's inverse bind matrix placed by the first skinned primitive
 * naming it (gltf_bind.c), otherwise the inverse of its rest model matrix.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "crowd/asset.h"
#include "import/gltf/gltf_internal.h"
#include "import/scene/import_math.h"

static const char socket_prefix[] = "socket_";

static bool is_socket(const gltf_import *imp, uint32_t n) {
    const char *name = imp->nodes[n].name;
    return name != NULL && strncmp(name, socket_prefix, sizeof socket_prefix - 1) == 0;
}

static crowd_result mark_skins(gltf_import *imp) {
    for (uint32_t s = 0; s < imp->skin_count; s++) {
        const gltf_skin *skin = &imp->skins[s];
        for (uint32_t j = 0; j < skin->joint_count; j++) {
            gltf_node *node = &imp->nodes[skin->joints[j]];
            node->marked = node->is_bone = node->in_scene;
        }
    }
    for (uint32_t p = 0; p < imp->primitive_count; p++) {
        const gltf_primitive *primitive = &imp->primitives[p];
        const gltf_node *node = &imp->nodes[primitive->node];
        const gltf_skin *skin = primitive->skinned ? &imp->skins[node->skin] : NULL;
        for (uint32_t j = 0; skin != NULL && j < skin->joint_count; j++) {
            if (!imp->nodes[skin->joints[j]].in_scene) {
                return gltf_fail(imp->doc, "skins[%d].joints[%u]: nodes[%u] is not in the scene",
                                 node->skin, j, skin->joints[j]);
            }
        }
    }
    return CROWD_OK;
}

static bool has_weight(const gltf_primitive *p, uint32_t v) {
    for (uint32_t k = 0; k < p->influence_count; k++) {
        if (p->weights[(size_t)v * p->influence_count + k] > 0.0f) {
            return true;
        }
    }
    return false;
}

static crowd_result mark_sockets(gltf_import *imp) {
    for (uint32_t o = 0; o < imp->order_count; o++) {
        if (is_socket(imp, imp->order[o])) {
            imp->nodes[imp->order[o]].marked = true;
        }
    }
    for (uint32_t s = 0; s < imp->desc->socket_node_count; s++) {
        const char *name = imp->desc->socket_nodes ? imp->desc->socket_nodes[s] : NULL;
        int32_t node = name ? gltf_node_find(imp, name) : -1;
        if (node < 0) {
            return crowd_error_set(imp->error, CROWD_ERROR_INVALID_ARGUMENT, imp->file,
                                   "no node named '%s' to use as a socket", name ? name : "(null)");
        }
        imp->nodes[node].marked = true;
    }
    return CROWD_OK;
}

static crowd_result mark(gltf_import *imp) {
    crowd_result result = mark_skins(imp);
    bool has_bones = false;
    for (uint32_t p = 0; p < imp->primitive_count && result == CROWD_OK; p++) {
        const gltf_primitive *primitive = &imp->primitives[p];
        gltf_node *node = &imp->nodes[primitive->node];
        has_bones = has_bones || primitive->skinned;
        for (uint32_t v = 0; v < primitive->vertex_count && !node->marked; v++) {
            node->marked = !primitive->skinned || !has_weight(primitive, v);
        }
    }
    bool has_animation = result == CROWD_OK && gltf_animations_mark(imp, &result);
    if (result == CROWD_OK) {
        result = mark_sockets(imp);
    }
    imp->static_only = !has_bones && !has_animation;
    imp->asset->has_skin = has_bones;
    return result;
}

static uint32_t depth_of(const gltf_import *imp, int32_t n) {
    uint32_t depth = 0;
    for (; imp->nodes[n].parent >= 0; n = imp->nodes[n].parent) {
        depth++;
    }
    return depth;
}

/* Lowest common ancestor, or -1 when the nodes lie under different roots. */
static int32_t common_ancestor(const gltf_import *imp, int32_t a, int32_t b) {
    uint32_t da = depth_of(imp, a), db = depth_of(imp, b);
    for (; da > db; da--) {
        a = imp->nodes[a].parent;
    }
    for (; db > da; db--) {
        b = imp->nodes[b].parent;
    }
    while (a != b && a >= 0) {
        a = imp->nodes[a].parent;
        b = imp->nodes[b].parent;
    }
    return a;
}

static crowd_result allocate(gltf_import *imp, uint32_t joint_count) {
    bool skeleton = core_skeleton_allocate(&imp->asset->skeleton, joint_count);
    imp->joint_node = malloc(joint_count * sizeof *imp->joint_node);
    imp->joint_global = malloc(16 * joint_count * sizeof *imp->joint_global);
    imp->inverse_bind_set = calloc(joint_count, sizeof *imp->inverse_bind_set);
    if (!skeleton || !imp->joint_node || !imp->joint_global || !imp->inverse_bind_set) {
        return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    return CROWD_OK;
}

static crowd_result set_name(gltf_import *imp, uint32_t joint, const char *name) {
    imp->asset->skeleton.names[joint] = core_copy_string(name);
    return imp->asset->skeleton.names[joint] != NULL
               ? CROWD_OK
               : crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
}

static crowd_result build_static_only(gltf_import *imp) {
    crowd_result result = allocate(imp, 1);
    if (result != CROWD_OK) {
        return result;
    }
    crowd_skeleton *sk = &imp->asset->skeleton;
    static const float zero[3] = {0, 0, 0}, one[3] = {1, 1, 1}, unit[4] = {0, 0, 0, 1};
    sk->parents[0] = -1;
    memcpy(sk->rest_translation, zero, sizeof zero);
    memcpy(sk->rest_rotation, unit, sizeof unit);
    memcpy(sk->rest_scale, one, sizeof one);
    import_m4_identity(sk->inverse_bind);
    import_m4_identity(imp->joint_global);
    import_m4_identity(sk->root_transform);
    imp->joint_node[0] = -1;
    char buffer[24];
    bool one_root = imp->order_count > 0 && imp->nodes[imp->order[0]].parent < 0;
    for (uint32_t o = 1; o < imp->order_count && one_root; o++) {
        one_root = imp->nodes[imp->order[o]].parent >= 0;
    }
    return set_name(imp, 0, one_root ? gltf_node_name(imp, imp->order[0], buffer) : "root");
}

static void set_inverse_binds(gltf_import *imp) {
    crowd_skeleton *sk = &imp->asset->skeleton;
    for (uint32_t p = 0; p < imp->primitive_count; p++) {
        const gltf_primitive *primitive = &imp->primitives[p];
        if (!primitive->skinned) {
            continue;
        }
        const gltf_skin *skin = &imp->skins[imp->nodes[primitive->node].skin];
        float bind[16], bind_inverse[16];
        bool identity = gltf_bind_placement(imp, primitive, bind, bind_inverse);
        for (uint32_t k = 0; k < skin->joint_count; k++) {
            int32_t j = imp->nodes[skin->joints[k]].joint;
            if (imp->inverse_bind_set[j]) {
                continue;
            }
            if (identity) {
                memcpy(&sk->inverse_bind[16 * j], &skin->inverse_binds[16 * k], 16 * sizeof(float));
            } else {
                import_m4_mul(&skin->inverse_binds[16 * k], bind_inverse,
                              &sk->inverse_bind[16 * j]);
            }
            imp->inverse_bind_set[j] = true;
        }
    }
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        if (!imp->inverse_bind_set[j] &&
            !import_m4_invert(&imp->joint_global[16 * j], &sk->inverse_bind[16 * j])) {
            crowd_log(imp->logger, CROWD_LOG_WARNING,
                      "%s: joint '%s' has a singular rest transform; inverse bind set to identity",
                      imp->file, sk->names[j]);
        }
    }
}

static crowd_result build_joints(gltf_import *imp, int32_t ancestor) {
    uint32_t joint_count = 0;
    for (uint32_t o = 0; o < imp->order_count; o++) {
        uint32_t n = imp->order[o];
        if (imp->nodes[n].marked && (int32_t)n != ancestor) {
            for (int32_t up = imp->nodes[n].parent; up >= 0 && up != ancestor;
                 up = imp->nodes[up].parent) {
                imp->nodes[up].marked = true;
            }
        }
    }
    for (uint32_t o = 0; o < imp->order_count; o++) {
        joint_count += imp->nodes[imp->order[o]].marked;
    }
    if (joint_count > CROWD_MAX_JOINTS) {
        return crowd_error_set(imp->error, CROWD_ERROR_LIMIT, imp->file,
                               "%u joints; crowd stores joint indices in 16 bits (at most %u)",
                               joint_count, CROWD_MAX_JOINTS);
    }
    crowd_result result = allocate(imp, joint_count);
    if (result != CROWD_OK) {
        return result;
    }
    crowd_skeleton *sk = &imp->asset->skeleton;
    int32_t above =
        ancestor >= 0 && imp->nodes[ancestor].marked ? imp->nodes[ancestor].parent : ancestor;
    if (above >= 0) {
        memcpy(sk->root_transform, imp->nodes[above].global, sizeof sk->root_transform);
    } else {
        import_m4_identity(sk->root_transform);
    }
    uint32_t j = 0;
    for (uint32_t o = 0; o < imp->order_count && result == CROWD_OK; o++) {
        uint32_t n = imp->order[o];
        gltf_node *node = &imp->nodes[n];
        if (!node->marked) {
            continue;
        }
        node->joint = (int32_t)j;
        imp->joint_node[j] = (int32_t)n;
        sk->parents[j] = node->parent >= 0 && imp->nodes[node->parent].marked
                             ? imp->nodes[node->parent].joint
                             : -1;
        char buffer[24];
        result = set_name(imp, j, gltf_node_name(imp, n, buffer));
        memcpy(&sk->rest_translation[3 * j], node->translation, 3 * sizeof(float));
        memcpy(&sk->rest_rotation[4 * j], node->rotation, 4 * sizeof(float));
        memcpy(&sk->rest_scale[3 * j], node->scale, 3 * sizeof(float));
        float local[16];
        import_m4_from_trs(node->translation, node->rotation, node->scale, local);
        const float *parent_global =
            sk->parents[j] >= 0 ? &imp->joint_global[16 * sk->parents[j]] : sk->root_transform;
        import_m4_mul(parent_global, local, &imp->joint_global[16 * j]);
        j++;
    }
    if (result == CROWD_OK) {
        set_inverse_binds(imp);
    }
    return result;
}

static crowd_result build_sockets(gltf_import *imp) {
    uint32_t capacity = imp->desc->socket_node_count;
    for (uint32_t o = 0; o < imp->order_count; o++) {
        capacity += is_socket(imp, imp->order[o]);
    }
    if (capacity == 0) {
        return CROWD_OK;
    }
    crowd_asset *asset = imp->asset;
    asset->sockets = calloc(capacity, sizeof *asset->sockets);
    uint32_t *socket_node = malloc(capacity * sizeof *socket_node);
    if (asset->sockets == NULL || socket_node == NULL) {
        free(socket_node);
        return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    uint32_t count = 0;
    for (uint32_t o = 0; o < imp->order_count; o++) {
        if (is_socket(imp, imp->order[o])) {
            socket_node[count++] = imp->order[o];
        }
    }
    for (uint32_t s = 0; s < imp->desc->socket_node_count; s++) {
        uint32_t node = (uint32_t)gltf_node_find(imp, imp->desc->socket_nodes[s]);
        bool seen = false;
        for (uint32_t k = 0; k < count; k++) {
            seen = seen || socket_node[k] == node;
        }
        if (!seen) {
            socket_node[count++] = node;
        }
    }
    crowd_result result = CROWD_OK;
    for (uint32_t s = 0; s < count && result == CROWD_OK; s++) {
        const gltf_node *node = &imp->nodes[socket_node[s]];
        crowd_socket *socket = &asset->sockets[s];
        char buffer[24];
        asset->socket_count = s + 1;
        socket->name = core_copy_string(gltf_node_name(imp, socket_node[s], buffer));
        if (socket->name == NULL) {
            result =
                crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
        }
        if (imp->static_only) {
            socket->joint = 0;
            memcpy(socket->offset, node->global, sizeof socket->offset);
        } else {
            socket->joint = (uint32_t)node->joint;
            import_m4_identity(socket->offset);
        }
    }
    free(socket_node);
    return result;
}

crowd_result gltf_skeleton_build(gltf_import *imp) {
    crowd_result result = mark(imp);
    if (result == CROWD_OK && imp->static_only) {
        result = build_static_only(imp);
    } else if (result == CROWD_OK) {
        int32_t ancestor = -1;
        bool any = false;
        for (uint32_t o = 0; o < imp->order_count; o++) {
            int32_t n = (int32_t)imp->order[o];
            if (imp->nodes[n].marked) {
                ancestor = any ? (ancestor < 0 ? -1 : common_ancestor(imp, ancestor, n)) : n;
                any = true;
            }
        }
        result = any ? build_joints(imp, ancestor)
                     : crowd_error_set(imp->error, CROWD_ERROR_UNSUPPORTED, imp->file,
                                       "no joints found");
    }
    return result == CROWD_OK ? build_sockets(imp) : result;
}
