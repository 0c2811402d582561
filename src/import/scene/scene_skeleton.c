/* scene_skeleton.c - which nodes become joints, their rest pose and inverse
 * binds, and the sockets (steps 1 and 2 of scene.h).
 *
 * Marked nodes: the joints of the skins, nodes that static meshes hang
 * from, skinned meshes' nodes when a vertex has no weight or a bone names
 * no node, animated nodes and sockets (socket_* and the names the caller
 * asks for). They are closed under "nodes between joints": every node on
 * the path from a marked node up to the lowest common ancestor of all
 * marked nodes becomes a joint too (up to the roots when the marks lie
 * under several). The nodes above are collapsed into
 * skeleton.root_transform. Joints keep the scene's pre-order, so parents
 * come before children. A joint's inverse bind is its skin's inverse bind
 * placed by the first skinned mesh naming it (scene_bind.c), otherwise the
 * inverse of its rest model matrix.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "crowd/asset.h"
#include "import/scene/import_math.h"
#include "import/scene/scene.h"

static const char socket_prefix[] = "socket_";

static bool is_socket(const import_scene *scene, uint32_t n) {
    return strncmp(scene->nodes[n].name, socket_prefix, sizeof socket_prefix - 1) == 0;
}

static crowd_result out_of_memory(const import_scene *scene) {
    return crowd_error_set(scene->error, CROWD_ERROR_OUT_OF_MEMORY, scene->file, "out of memory");
}

/* Skin joints (a joint named only by name is looked up now, the marks so
 * far preferred); returns whether any joint has a node. */
static bool mark_skins(import_scene *scene) {
    bool any = false;
    for (uint32_t s = 0; s < scene->skin_count; s++) {
        import_scene_skin *skin = &scene->skins[s];
        for (uint32_t j = 0; j < skin->joint_count; j++) {
            if (skin->nodes[j] < 0 && skin->names != NULL && skin->names[j] != NULL) {
                skin->nodes[j] = crowd__import_scene_node_find(scene, skin->names[j]);
            }
            if (skin->nodes[j] >= 0) {
                import_scene_node *node = &scene->nodes[skin->nodes[j]];
                node->marked = node->is_bone = true;
                any = true;
            }
        }
    }
    return any;
}

/* The meshes' nodes where a vertex stays rigid on them; returns whether
 * any mesh is skinned. */
static bool mark_meshes(import_scene *scene, crowd_repairs *repairs) {
    bool has_bones = false;
    for (uint32_t m = 0; m < scene->mesh_count; m++) {
        const import_scene_mesh *mesh = &scene->meshes[m];
        import_scene_node *node = &scene->nodes[mesh->node];
        if (mesh->skin < 0) {
            node->marked = true;
            continue;
        }
        has_bones = true;
        const import_scene_skin *skin = &scene->skins[mesh->skin];
        for (uint32_t j = 0; j < skin->joint_count; j++) {
            if (skin->nodes[j] >= 0) {
                continue;
            }
            /* Its weights go to the mesh's node (scene_mesh.c). */
            node->marked = true;
            repairs->bones_unbound++;
            crowd_log(scene->logger, CROWD_LOG_WARNING,
                      "%s: mesh '%s': bone '%s' names no node; its weights are bound to the "
                      "mesh's node '%s'",
                      scene->file, mesh->name,
                      skin->names && skin->names[j] ? skin->names[j] : "(unnamed)", node->name);
        }
        for (uint32_t v = 0; v < mesh->vertex_count && !node->marked; v++) {
            node->marked = mesh->influence_first[v + 1] == mesh->influence_first[v];
        }
    }
    return has_bones;
}

/* Animated nodes; a channel naming its node by name is resolved now. */
static bool mark_animations(import_scene *scene) {
    bool any = false;
    for (uint32_t a = 0; a < scene->animation_count; a++) {
        import_scene_animation *animation = &scene->animations[a];
        for (uint32_t c = 0; c < animation->channel_count; c++) {
            import_scene_channel *channel = &animation->channels[c];
            if (channel->node < 0 && channel->node_name != NULL) {
                channel->node = crowd__import_scene_node_find(scene, channel->node_name);
            }
            if (channel->node >= 0) {
                scene->nodes[channel->node].marked = true;
                any = true;
            }
        }
    }
    return any;
}

static crowd_result mark_sockets(import_scene *scene) {
    for (uint32_t n = 0; n < scene->node_count; n++) {
        scene->nodes[n].marked = scene->nodes[n].marked || is_socket(scene, n);
    }
    for (uint32_t s = 0; s < scene->desc->socket_node_count; s++) {
        const char *name = scene->desc->socket_nodes ? scene->desc->socket_nodes[s] : NULL;
        int32_t node = name ? crowd__import_scene_node_find(scene, name) : -1;
        if (node < 0) {
            return crowd_error_set(scene->error, CROWD_ERROR_INVALID_ARGUMENT, scene->file,
                                   "no node named '%s' to use as a socket", name ? name : "(null)");
        }
        scene->nodes[node].marked = true;
    }
    return CROWD_OK;
}

/* Step 1. A file of clips takes its skins' joints and animated nodes only,
 * and must have one of them. */
static crowd_result mark(import_build *build) {
    import_scene *scene = build->scene;
    bool has_joints = mark_skins(scene);
    bool has_bones = mark_meshes(scene, &build->asset->repairs);
    bool has_animation = mark_animations(scene);
    if (scene->clips_only) {
        return has_joints || has_animation
                   ? CROWD_OK
                   : crowd_error_set(scene->error, CROWD_ERROR_UNSUPPORTED, scene->file,
                                     "no skeleton or clips: no bone and no animated node to take "
                                     "clips from");
    }
    build->static_only = !has_bones && !has_animation;
    build->asset->has_skin = has_bones;
    return mark_sockets(scene);
}

static uint32_t depth_of(const import_scene *scene, int32_t n) {
    uint32_t depth = 0;
    for (; scene->nodes[n].parent >= 0; n = scene->nodes[n].parent) {
        depth++;
    }
    return depth;
}

/* Lowest common ancestor, or -1 when the nodes lie under different roots. */
static int32_t common_ancestor(const import_scene *scene, int32_t a, int32_t b) {
    uint32_t da = depth_of(scene, a), db = depth_of(scene, b);
    for (; da > db; da--) {
        a = scene->nodes[a].parent;
    }
    for (; db > da; db--) {
        b = scene->nodes[b].parent;
    }
    while (a != b && a >= 0) {
        a = scene->nodes[a].parent;
        b = scene->nodes[b].parent;
    }
    return a;
}

static crowd_result allocate(import_build *build, uint32_t joint_count) {
    bool skeleton = crowd__core_skeleton_allocate(&build->asset->skeleton, joint_count);
    build->joint_node = malloc(joint_count * sizeof *build->joint_node);
    build->joint_global = malloc(16 * joint_count * sizeof *build->joint_global);
    build->inverse_bind_set = calloc(joint_count, sizeof *build->inverse_bind_set);
    if (!skeleton || !build->joint_node || !build->joint_global || !build->inverse_bind_set) {
        return out_of_memory(build->scene);
    }
    return CROWD_OK;
}

static crowd_result set_name(import_build *build, uint32_t joint, const char *name) {
    char fallback[32];
    if (name[0] == '\0') {
        snprintf(fallback, sizeof fallback, "joint_%u", joint);
        name = fallback;
    }
    build->asset->skeleton.names[joint] = crowd__core_copy_string(name);
    return build->asset->skeleton.names[joint] != NULL ? CROWD_OK : out_of_memory(build->scene);
}

static void set_identity_rest(crowd_skeleton *sk, uint32_t j) {
    static const float zero[3] = {0, 0, 0}, one[3] = {1, 1, 1}, unit[4] = {0, 0, 0, 1};
    memcpy(&sk->rest_translation[3 * j], zero, sizeof zero);
    memcpy(&sk->rest_rotation[4 * j], unit, sizeof unit);
    memcpy(&sk->rest_scale[3 * j], one, sizeof one);
}

/* One joint named after the scene's root (when it has one with a name). */
static crowd_result build_static_only(import_build *build) {
    crowd_result result = allocate(build, 1);
    if (result != CROWD_OK) {
        return result;
    }
    const import_scene *scene = build->scene;
    crowd_skeleton *sk = &build->asset->skeleton;
    sk->parents[0] = -1;
    set_identity_rest(sk, 0);
    crowd__import_m4_identity(sk->inverse_bind);
    crowd__import_m4_identity(build->joint_global);
    crowd__import_m4_identity(sk->root_transform);
    build->joint_node[0] = -1;
    bool one_root = scene->node_count > 0;
    for (uint32_t n = 1; n < scene->node_count && one_root; n++) {
        one_root = scene->nodes[n].parent >= 0;
    }
    const char *name = one_root ? scene->nodes[0].name : "";
    return set_name(build, 0, name[0] != '\0' ? name : "root");
}

/* Inverse binds from the skins, placed by their meshes; the rest pose for
 * the others. A file of clips has no mesh to bind: the rest pose gives
 * them all. */
static crowd_result set_inverse_binds(import_build *build) {
    const import_scene *scene = build->scene;
    crowd_skeleton *sk = &build->asset->skeleton;
    for (uint32_t m = 0; m < scene->mesh_count; m++) {
        const import_scene_mesh *mesh = &scene->meshes[m];
        if (mesh->skin < 0) {
            continue;
        }
        const import_scene_skin *skin = &scene->skins[mesh->skin];
        float bind[16], bind_inverse[16];
        bool identity = crowd__import_build_bind(build, mesh, bind, bind_inverse);
        for (uint32_t k = 0; k < skin->joint_count; k++) {
            int32_t node = skin->nodes[k];
            int32_t j = node >= 0 ? scene->nodes[node].joint : -1;
            if (j < 0 || build->inverse_bind_set[j]) {
                continue;
            }
            float *out = &sk->inverse_bind[16 * j];
            if (identity) {
                memcpy(out, &skin->inverse_binds[16 * k], 16 * sizeof(float));
            } else {
                crowd__import_m4_mul(&skin->inverse_binds[16 * k], bind_inverse, out);
            }
            if (!crowd__import_m4_is_finite(out)) {
                return crowd_error_set(scene->error, CROWD_ERROR_INVALID_DATA, scene->file,
                                       "bone '%s': inverse bind overflows",
                                       scene->nodes[node].name);
            }
            build->inverse_bind_set[j] = true;
        }
    }
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        if (!build->inverse_bind_set[j] &&
            !crowd__import_m4_invert(&build->joint_global[16 * j], &sk->inverse_bind[16 * j])) {
            crowd_log(scene->logger, CROWD_LOG_WARNING,
                      "%s: joint '%s' has a singular rest transform; inverse bind set to identity",
                      scene->file, sk->names[j]);
        }
    }
    return CROWD_OK;
}

static crowd_result build_joints(import_build *build, int32_t ancestor) {
    import_scene *scene = build->scene;
    for (uint32_t n = 0; n < scene->node_count; n++) {
        if (scene->nodes[n].marked && (int32_t)n != ancestor) {
            for (int32_t up = scene->nodes[n].parent; up >= 0 && up != ancestor;
                 up = scene->nodes[up].parent) {
                scene->nodes[up].marked = true;
            }
        }
    }
    uint32_t joint_count = 0;
    for (uint32_t n = 0; n < scene->node_count; n++) {
        joint_count += scene->nodes[n].marked;
    }
    if (joint_count > CROWD_MAX_JOINTS) {
        return crowd_error_set(scene->error, CROWD_ERROR_LIMIT, scene->file,
                               "%u joints; crowd stores joint indices in 16 bits (at most %u)",
                               joint_count, CROWD_MAX_JOINTS);
    }
    crowd_result result = allocate(build, joint_count);
    if (result != CROWD_OK) {
        return result;
    }
    crowd_skeleton *sk = &build->asset->skeleton;
    int32_t above =
        ancestor >= 0 && scene->nodes[ancestor].marked ? scene->nodes[ancestor].parent : ancestor;
    if (above >= 0) {
        memcpy(sk->root_transform, scene->nodes[above].global, sizeof sk->root_transform);
    } else {
        crowd__import_m4_identity(sk->root_transform);
    }
    uint32_t j = 0;
    for (uint32_t n = 0; n < scene->node_count && result == CROWD_OK; n++) {
        import_scene_node *node = &scene->nodes[n];
        if (!node->marked) {
            continue;
        }
        node->joint = (int32_t)j;
        build->joint_node[j] = (int32_t)n;
        sk->parents[j] = node->parent >= 0 && scene->nodes[node->parent].marked
                             ? scene->nodes[node->parent].joint
                             : -1;
        result = set_name(build, j, node->name);
        memcpy(&sk->rest_translation[3 * j], node->translation, 3 * sizeof(float));
        memcpy(&sk->rest_rotation[4 * j], node->rotation, 4 * sizeof(float));
        memcpy(&sk->rest_scale[3 * j], node->scale, 3 * sizeof(float));
        float local[16];
        crowd__import_m4_from_trs(node->translation, node->rotation, node->scale, local);
        const float *parent_global =
            sk->parents[j] >= 0 ? &build->joint_global[16 * sk->parents[j]] : sk->root_transform;
        crowd__import_m4_mul(parent_global, local, &build->joint_global[16 * j]);
        j++;
    }
    return result == CROWD_OK ? set_inverse_binds(build) : result;
}

static crowd_result build_sockets(import_build *build) {
    const import_scene *scene = build->scene;
    uint32_t capacity = scene->desc->socket_node_count;
    for (uint32_t n = 0; n < scene->node_count; n++) {
        capacity += is_socket(scene, n);
    }
    if (capacity == 0) {
        return CROWD_OK;
    }
    crowd_asset *asset = build->asset;
    asset->sockets = calloc(capacity, sizeof *asset->sockets);
    uint32_t *socket_node = malloc(capacity * sizeof *socket_node);
    if (asset->sockets == NULL || socket_node == NULL) {
        free(socket_node);
        return out_of_memory(scene);
    }
    uint32_t count = 0;
    for (uint32_t n = 0; n < scene->node_count; n++) {
        if (is_socket(scene, n)) {
            socket_node[count++] = n;
        }
    }
    for (uint32_t s = 0; s < scene->desc->socket_node_count; s++) {
        uint32_t node =
            (uint32_t)crowd__import_scene_node_find(scene, scene->desc->socket_nodes[s]);
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
        const import_scene_node *node = &scene->nodes[socket_node[s]];
        crowd_socket *socket = &asset->sockets[s];
        asset->socket_count = s + 1;
        socket->name = crowd__core_copy_string(node->name);
        result = socket->name != NULL ? CROWD_OK : out_of_memory(scene);
        if (build->static_only) {
            socket->joint = 0;
            memcpy(socket->offset, node->global, sizeof socket->offset);
        } else {
            socket->joint = (uint32_t)node->joint;
            crowd__import_m4_identity(socket->offset);
        }
    }
    free(socket_node);
    return result;
}

crowd_result crowd__import_build_skeleton(import_build *build) {
    import_scene *scene = build->scene;
    crowd_result result = mark(build);
    if (result == CROWD_OK && build->static_only) {
        result = build_static_only(build);
    } else if (result == CROWD_OK) {
        int32_t ancestor = -1;
        bool any = false;
        for (uint32_t n = 0; n < scene->node_count; n++) {
            if (scene->nodes[n].marked) {
                ancestor = any ? (ancestor < 0 ? -1 : common_ancestor(scene, ancestor, (int32_t)n))
                               : (int32_t)n;
                any = true;
            }
        }
        result = any ? build_joints(build, ancestor)
                     : crowd_error_set(scene->error, CROWD_ERROR_UNSUPPORTED, scene->file,
                                       "no joints found");
    }
    return result == CROWD_OK && !scene->clips_only ? build_sockets(build) : result;
}
