/* import_skeleton.c - which nodes become joints, their rest pose and inverse
 * binds, and the sockets.
 *
 * The marked nodes (bones, animated nodes, nodes meshes hang from, sockets)
 * are closed under "nodes between joints": every node on the path from a
 * marked node up to the lowest common ancestor of all marked nodes becomes a
 * joint too. The nodes above that (the ancestor itself when it is not
 * marked) are collapsed into skeleton.root_transform. Joints keep the
 * pre-order of the node tree, so parents come before children.
 */
#include <assimp/cimport.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "crowd/asset.h"
#include "import/assimp/import_internal.h"
#include "import/scene/import_math.h"

static const char socket_prefix[] = "socket_";

static bool is_socket_name(const char *name) {
    return strncmp(name, socket_prefix, sizeof socket_prefix - 1) == 0;
}

crowd_result import_sockets_mark(import_context *ctx) {
    for (uint32_t n = 0; n < ctx->node_count; n++) {
        if (is_socket_name(ctx->nodes[n].node->mName.data)) {
            ctx->nodes[n].marked = true;
        }
    }
    for (uint32_t s = 0; s < ctx->desc->socket_node_count; s++) {
        const char *name = ctx->desc->socket_nodes ? ctx->desc->socket_nodes[s] : NULL;
        int32_t node = name ? import_node_find(ctx, name) : -1;
        if (node < 0) {
            return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_ARGUMENT, ctx->file,
                                   "no node named '%s' to use as a socket", name ? name : "(null)");
        }
        ctx->nodes[node].marked = true;
    }
    return CROWD_OK;
}

bool import_bones_mark(import_context *ctx) {
    const struct aiScene *scene = ctx->scene;
    bool any = false;
    for (uint32_t m = 0; m < scene->mNumMeshes && scene->mMeshes != NULL; m++) {
        const struct aiMesh *mesh = scene->mMeshes[m];
        for (uint32_t b = 0; mesh != NULL && mesh->mBones != NULL && b < mesh->mNumBones; b++) {
            int32_t node = mesh->mBones[b] ? import_bone_node(ctx, mesh->mBones[b]) : -1;
            if (node >= 0) {
                ctx->nodes[node].is_bone = ctx->nodes[node].marked = true;
                any = true;
            }
        }
    }
    return any;
}

static uint32_t node_depth(const import_context *ctx, int32_t n) {
    uint32_t depth = 0;
    while (ctx->nodes[n].parent >= 0) {
        n = ctx->nodes[n].parent;
        depth++;
    }
    return depth;
}

static int32_t common_ancestor(const import_context *ctx, int32_t a, int32_t b) {
    uint32_t da = node_depth(ctx, a), db = node_depth(ctx, b);
    for (; da > db; da--) {
        a = ctx->nodes[a].parent;
    }
    for (; db > da; db--) {
        b = ctx->nodes[b].parent;
    }
    while (a != b) {
        a = ctx->nodes[a].parent;
        b = ctx->nodes[b].parent;
    }
    return a;
}

static crowd_result allocate_skeleton(import_context *ctx, uint32_t joint_count) {
    bool skeleton = core_skeleton_allocate(&ctx->asset->skeleton, joint_count);
    ctx->joint_node = malloc(joint_count * sizeof *ctx->joint_node);
    ctx->joint_global = malloc(16 * joint_count * sizeof *ctx->joint_global);
    ctx->inverse_bind_from_bone = calloc(joint_count, sizeof *ctx->inverse_bind_from_bone);
    if (!skeleton || !ctx->joint_node || !ctx->joint_global || !ctx->inverse_bind_from_bone) {
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    return CROWD_OK;
}

static crowd_result set_name(import_context *ctx, uint32_t joint, const char *name) {
    char fallback[32];
    if (name[0] == '\0') {
        snprintf(fallback, sizeof fallback, "joint_%u", joint);
        name = fallback;
    }
    ctx->asset->skeleton.names[joint] = core_copy_string(name);
    if (ctx->asset->skeleton.names[joint] == NULL) {
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    return CROWD_OK;
}

static void set_identity_rest(crowd_skeleton *sk, uint32_t j) {
    static const float zero[3] = {0, 0, 0}, one[3] = {1, 1, 1}, unit[4] = {0, 0, 0, 1};
    memcpy(&sk->rest_translation[3 * j], zero, sizeof zero);
    memcpy(&sk->rest_rotation[4 * j], unit, sizeof unit);
    memcpy(&sk->rest_scale[3 * j], one, sizeof one);
}

static crowd_result build_static_only(import_context *ctx) {
    crowd_result result = allocate_skeleton(ctx, 1);
    if (result != CROWD_OK) {
        return result;
    }
    crowd_skeleton *sk = &ctx->asset->skeleton;
    sk->parents[0] = -1;
    set_identity_rest(sk, 0);
    import_m4_identity(sk->inverse_bind);
    import_m4_identity(ctx->joint_global);
    import_m4_identity(sk->root_transform);
    ctx->joint_node[0] = -1;
    return set_name(ctx, 0,
                    ctx->nodes[0].node->mName.data[0] ? ctx->nodes[0].node->mName.data : "root");
}

/* Rest TRS of joint j from its node's matrix. Shear does not survive (no
 * joint transform in crowd can hold it); a zero scale leaves the rotation
 * undefined, taken as identity. */
static void set_rest(import_context *ctx, uint32_t j, const struct aiNode *node) {
    crowd_skeleton *sk = &ctx->asset->skeleton;
    struct aiVector3D scale, position;
    struct aiQuaternion rotation;
    aiDecomposeMatrix(&node->mTransformation, &scale, &rotation, &position);
    float t[3] = {position.x, position.y, position.z};
    float s[3] = {scale.x, scale.y, scale.z};
    float q[4] = {rotation.x, rotation.y, rotation.z, rotation.w};
    float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    set_identity_rest(sk, j);
    if (isfinite(t[0]) && isfinite(t[1]) && isfinite(t[2])) {
        memcpy(&sk->rest_translation[3 * j], t, sizeof t);
    }
    if (isfinite(s[0]) && isfinite(s[1]) && isfinite(s[2])) {
        memcpy(&sk->rest_scale[3 * j], s, sizeof s);
    }
    if (isfinite(len) && len > 1e-6f) {
        for (int k = 0; k < 4; k++) {
            sk->rest_rotation[4 * j + k] = q[k] / len;
        }
    }
}

/* Inverse binds: the first bone offset matrix naming the joint, placed by
 * its mesh's bind placement (offset * B^-1, import_bind.c); otherwise the
 * inverse of the rest model matrix (identity when that is singular). A
 * file of clips has no mesh to bind, and its meshes are not read: the rest
 * pose gives them all. */
static crowd_result set_inverse_binds(import_context *ctx) {
    crowd_skeleton *sk = &ctx->asset->skeleton;
    const struct aiScene *scene = ctx->scene;
    for (uint32_t n = 0; n < ctx->node_count && !ctx->clips_only; n++) {
        const struct aiNode *node = ctx->nodes[n].node;
        for (uint32_t k = 0; k < node->mNumMeshes && node->mMeshes; k++) {
            const struct aiMesh *mesh = scene->mMeshes[node->mMeshes[k]];
            if (mesh->mNumBones == 0 || mesh->mBones == NULL) {
                continue;
            }
            float bind[16], bind_inverse[16];
            bool bind_identity = import_mesh_bind(ctx, n, mesh, bind, bind_inverse);
            for (uint32_t b = 0; b < mesh->mNumBones; b++) {
                if (mesh->mBones[b] == NULL) {
                    continue;
                }
                int32_t bone_node = import_bone_node(ctx, mesh->mBones[b]);
                if (bone_node < 0 || ctx->nodes[bone_node].joint < 0) {
                    continue;
                }
                uint32_t j = (uint32_t)ctx->nodes[bone_node].joint;
                if (ctx->inverse_bind_from_bone[j]) {
                    continue;
                }
                float offset[16];
                import_m4_from_ai(&mesh->mBones[b]->mOffsetMatrix, offset);
                if (!import_m4_is_finite(offset)) {
                    return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                           "bone '%s': offset matrix is not finite",
                                           mesh->mBones[b]->mName.data);
                }
                if (bind_identity) {
                    memcpy(&sk->inverse_bind[16 * j], offset, sizeof offset);
                } else {
                    import_m4_mul(offset, bind_inverse, &sk->inverse_bind[16 * j]);
                }
                if (!import_m4_is_finite(&sk->inverse_bind[16 * j])) {
                    return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                           "bone '%s': inverse bind overflows",
                                           mesh->mBones[b]->mName.data);
                }
                ctx->inverse_bind_from_bone[j] = true;
            }
        }
    }
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        if (!ctx->inverse_bind_from_bone[j] &&
            !import_m4_invert(&ctx->joint_global[16 * j], &sk->inverse_bind[16 * j])) {
            crowd_log(ctx->logger, CROWD_LOG_WARNING,
                      "%s: joint '%s' has a singular rest transform; inverse bind set to identity",
                      ctx->file, sk->names[j]);
        }
    }
    return CROWD_OK;
}

crowd_result import_skeleton_build(import_context *ctx) {
    if (ctx->static_only) {
        return build_static_only(ctx);
    }
    int32_t ancestor = -1;
    for (uint32_t n = 0; n < ctx->node_count; n++) {
        if (ctx->nodes[n].marked) {
            ancestor = ancestor < 0 ? (int32_t)n : common_ancestor(ctx, ancestor, (int32_t)n);
        }
    }
    if (ancestor < 0) {
        return crowd_error_set(ctx->error, CROWD_ERROR_UNSUPPORTED, ctx->file, "no joints found");
    }
    uint32_t joint_count = 0;
    for (uint32_t n = 0; n < ctx->node_count; n++) {
        if (ctx->nodes[n].marked && (int32_t)n != ancestor) {
            for (int32_t up = ctx->nodes[n].parent; up >= 0 && up != ancestor;
                 up = ctx->nodes[up].parent) {
                ctx->nodes[up].marked = true;
            }
        }
    }
    for (uint32_t n = 0; n < ctx->node_count; n++) {
        joint_count += ctx->nodes[n].marked;
    }
    if (joint_count > CROWD_MAX_JOINTS) {
        return crowd_error_set(ctx->error, CROWD_ERROR_LIMIT, ctx->file,
                               "%u joints; crowd stores joint indices in 16 bits (at most %u)",
                               joint_count, CROWD_MAX_JOINTS);
    }
    crowd_result result = allocate_skeleton(ctx, joint_count);
    if (result != CROWD_OK) {
        return result;
    }
    crowd_skeleton *sk = &ctx->asset->skeleton;
    int32_t above = ctx->nodes[ancestor].marked ? ctx->nodes[ancestor].parent : ancestor;
    if (above >= 0) {
        memcpy(sk->root_transform, ctx->nodes[above].global, sizeof sk->root_transform);
    } else {
        import_m4_identity(sk->root_transform);
    }
    uint32_t j = 0;
    for (uint32_t n = 0; n < ctx->node_count; n++) {
        import_node *node = &ctx->nodes[n];
        if (!node->marked) {
            continue;
        }
        node->joint = (int32_t)j;
        ctx->joint_node[j] = (int32_t)n;
        sk->parents[j] = node->parent >= 0 && ctx->nodes[node->parent].marked
                             ? ctx->nodes[node->parent].joint
                             : -1;
        result = set_name(ctx, j, node->node->mName.data);
        if (result != CROWD_OK) {
            return result;
        }
        set_rest(ctx, j, node->node);
        float local[16];
        import_m4_from_trs(&sk->rest_translation[3 * j], &sk->rest_rotation[4 * j],
                           &sk->rest_scale[3 * j], local);
        const float *parent_global =
            sk->parents[j] >= 0 ? &ctx->joint_global[16 * sk->parents[j]] : sk->root_transform;
        import_m4_mul(parent_global, local, &ctx->joint_global[16 * j]);
        j++;
    }
    return set_inverse_binds(ctx);
}

crowd_result import_sockets_build(import_context *ctx) {
    uint32_t capacity = 0;
    for (uint32_t n = 0; n < ctx->node_count; n++) {
        capacity += is_socket_name(ctx->nodes[n].node->mName.data);
    }
    capacity += ctx->desc->socket_node_count;
    if (capacity == 0) {
        return CROWD_OK;
    }
    crowd_asset *asset = ctx->asset;
    asset->sockets = calloc(capacity, sizeof *asset->sockets);
    int32_t *socket_node = malloc(capacity * sizeof *socket_node);
    if (asset->sockets == NULL || socket_node == NULL) {
        free(socket_node);
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    uint32_t count = 0;
    for (uint32_t n = 0; n < ctx->node_count; n++) {
        if (is_socket_name(ctx->nodes[n].node->mName.data)) {
            socket_node[count++] = (int32_t)n;
        }
    }
    for (uint32_t s = 0; s < ctx->desc->socket_node_count; s++) {
        int32_t node = import_node_find(ctx, ctx->desc->socket_nodes[s]);
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
        const import_node *node = &ctx->nodes[socket_node[s]];
        crowd_socket *socket = &asset->sockets[s];
        asset->socket_count = s + 1;
        socket->name = core_copy_string(node->node->mName.data);
        if (socket->name == NULL) {
            result =
                crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
        }
        if (ctx->static_only) {
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
