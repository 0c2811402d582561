/* import_scene.c - the node tree, and the order of the steps that fill
 * the intermediate scene (import_internal.h) before the pipeline runs. */
#include <assimp/cimport.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/asset.h"
#include "import/assimp/import_internal.h"
#include "import/scene/import_math.h"

/* Far above any real character; keeps hostile files from asking for gigabytes. */
#define IMPORT_MAX_NODES (1u << 20)

crowd_result crowd__import_nodes_flatten(import_context *ctx) {
    const struct aiNode *root = ctx->scene->mRootNode;
    if (root == NULL) {
        return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                               "scene has no nodes");
    }
    /* Iterative pre-order walk: parents get lower indices than children, and a
     * deep hostile tree cannot overflow the C stack. The stack holds nodes
     * still to visit with their parent's index. */
    uint32_t capacity = 64, count = 0, stack_size = 0, stack_capacity = 64;
    import_node *nodes = malloc(capacity * sizeof *nodes);
    const struct aiNode **stack = malloc(stack_capacity * sizeof *stack);
    int32_t *stack_parent = malloc(stack_capacity * sizeof *stack_parent);
    if (nodes == NULL || stack == NULL || stack_parent == NULL) {
        goto out_of_memory;
    }
    stack[0] = root;
    stack_parent[0] = -1;
    stack_size = 1;
    while (stack_size > 0) {
        stack_size--;
        const struct aiNode *node = stack[stack_size];
        int32_t parent = stack_parent[stack_size];
        if (count >= IMPORT_MAX_NODES) {
            free(nodes);
            free(stack);
            free(stack_parent);
            return crowd_error_set(ctx->error, CROWD_ERROR_LIMIT, ctx->file, "more than %u nodes",
                                   IMPORT_MAX_NODES);
        }
        if (count == capacity) {
            capacity *= 2;
            import_node *grown = realloc(nodes, capacity * sizeof *nodes);
            if (grown == NULL) {
                goto out_of_memory;
            }
            nodes = grown;
        }
        import_node *out = &nodes[count];
        memset(out, 0, sizeof *out);
        out->node = node;
        out->parent = parent;
        crowd__import_m4_from_ai(&node->mTransformation, out->local);
        if (!crowd__import_m4_is_finite(out->local)) {
            free(nodes);
            free(stack);
            free(stack_parent);
            return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                   "node '%s': transform is not finite", node->mName.data);
        }
        if (parent < 0) {
            memcpy(out->global, out->local, sizeof out->global);
        } else {
            crowd__import_m4_mul(nodes[parent].global, out->local, out->global);
        }
        uint32_t self = count++;
        if (node->mNumChildren > 0 && node->mChildren == NULL) {
            continue;
        }
        if (stack_size + node->mNumChildren > stack_capacity) {
            while (stack_size + node->mNumChildren > stack_capacity) {
                stack_capacity *= 2;
            }
            const struct aiNode **grown_stack = realloc(stack, stack_capacity * sizeof *stack);
            if (grown_stack == NULL) {
                goto out_of_memory;
            }
            stack = grown_stack;
            int32_t *grown_parent = realloc(stack_parent, stack_capacity * sizeof *stack_parent);
            if (grown_parent == NULL) {
                goto out_of_memory;
            }
            stack_parent = grown_parent;
        }
        /* Pushed in reverse so children are visited in file order. */
        for (uint32_t c = node->mNumChildren; c-- > 0;) {
            if (node->mChildren[c] != NULL) {
                stack[stack_size] = node->mChildren[c];
                stack_parent[stack_size] = (int32_t)self;
                stack_size++;
            }
        }
    }
    free(stack);
    free(stack_parent);
    ctx->nodes = nodes;
    ctx->node_count = count;
    return CROWD_OK;

out_of_memory:
    free(nodes);
    free(stack);
    free(stack_parent);
    return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
}

int32_t crowd__import_node_index(const import_context *ctx, const struct aiNode *node) {
    for (uint32_t i = 0; i < ctx->node_count; i++) {
        if (ctx->nodes[i].node == node) {
            return (int32_t)i;
        }
    }
    return -1;
}

/* Rest TRS of a node from its matrix, as assimp decomposes it. Shear does
 * not survive (no joint transform in crowd can hold it); a zero scale
 * leaves the rotation undefined, taken as identity. */
static void decompose(const struct aiNode *from, import_scene_node *node) {
    static const float zero[3] = {0, 0, 0}, one[3] = {1, 1, 1}, unit[4] = {0, 0, 0, 1};
    struct aiVector3D scale, position;
    struct aiQuaternion rotation;
    aiDecomposeMatrix(&from->mTransformation, &scale, &rotation, &position);
    float t[3] = {position.x, position.y, position.z};
    float s[3] = {scale.x, scale.y, scale.z};
    float q[4] = {rotation.x, rotation.y, rotation.z, rotation.w};
    float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    bool t_ok = isfinite(t[0]) && isfinite(t[1]) && isfinite(t[2]);
    bool s_ok = isfinite(s[0]) && isfinite(s[1]) && isfinite(s[2]);
    memcpy(node->translation, t_ok ? t : zero, sizeof t);
    memcpy(node->scale, s_ok ? s : one, sizeof s);
    memcpy(node->rotation, unit, sizeof unit);
    if (isfinite(len) && len > 1e-6f) {
        for (int k = 0; k < 4; k++) {
            node->rotation[k] = q[k] / len;
        }
    }
}

static crowd_result fill_nodes(import_context *ctx) {
    crowd_result result = crowd__import_nodes_flatten(ctx);
    if (result == CROWD_OK) {
        result = crowd__import_nodes_follow_parents(ctx);
    }
    for (uint32_t n = 0; n < ctx->node_count && result == CROWD_OK; n++) {
        import_scene_node *node = crowd__import_scene_add_node(ctx->out);
        if (node == NULL) {
            return CROWD_ERROR_OUT_OF_MEMORY;
        }
        node->name = ctx->nodes[n].node->mName.data;
        node->parent = ctx->nodes[n].parent;
        memcpy(node->local, ctx->nodes[n].local, sizeof node->local);
        memcpy(node->global, ctx->nodes[n].global, sizeof node->global);
        decompose(ctx->nodes[n].node, node);
    }
    return result;
}

crowd_result crowd__import_assimp_convert(import_context *ctx, crowd_asset **out_asset) {
    const struct aiScene *scene = ctx->scene;
    *out_asset = NULL;
    if (!ctx->clips_only && (scene->mNumMeshes == 0 || scene->mMeshes == NULL)) {
        return crowd_error_set(ctx->error, CROWD_ERROR_UNSUPPORTED, ctx->file,
                               "no meshes (a skeleton or animation alone is not a character)");
    }
    import_scene out;
    crowd__import_scene_init(&out, ctx->file, ctx->desc, ctx->error);
    out.clips_only = ctx->clips_only;
    out.unit_m = ctx->units.file_m;
    out.unit_applied = ctx->units.applied_by_assimp;
    out.unit_source = ctx->units.source;
    out.reader_warnings = ctx->reader_warnings;
    ctx->out = &out;
    crowd_result result = fill_nodes(ctx);
    if (result == CROWD_OK) {
        result = ctx->clips_only ? crowd__import_bones_fill(ctx) : crowd__import_meshes_fill(ctx);
    }
    if (result == CROWD_OK) {
        result = crowd__import_animations_fill(ctx);
    }
    if (result == CROWD_OK) {
        result = crowd__import_scene_convert(&out, out_asset);
    }
    crowd__import_scene_free(&out);
    free(ctx->nodes);
    ctx->nodes = NULL;
    ctx->out = NULL;
    return result;
}
