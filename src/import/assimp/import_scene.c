/* import_scene.c - the node tree, the order of the import steps, and the
 * asset they fill. */
#include <stdlib.h>
#include <string.h>

#include "crowd/asset.h"
#include "import/assimp/import_internal.h"
#include "import/scene/import_math.h"

/* Far above any real character; keeps hostile files from asking for gigabytes. */
#define IMPORT_MAX_NODES (1u << 20)

crowd_result import_nodes_flatten(import_context *ctx) {
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
        out->joint = -1;
        import_m4_from_ai(&node->mTransformation, out->local);
        if (!import_m4_is_finite(out->local)) {
            free(nodes);
            free(stack);
            free(stack_parent);
            return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                   "node '%s': transform is not finite", node->mName.data);
        }
        if (parent < 0) {
            memcpy(out->global, out->local, sizeof out->global);
        } else {
            import_m4_mul(nodes[parent].global, out->local, out->global);
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

int32_t import_node_index(const import_context *ctx, const struct aiNode *node) {
    for (uint32_t i = 0; i < ctx->node_count; i++) {
        if (ctx->nodes[i].node == node) {
            return (int32_t)i;
        }
    }
    return -1;
}

int32_t import_node_find(const import_context *ctx, const char *name) {
    int32_t first = -1;
    for (uint32_t i = 0; i < ctx->node_count; i++) {
        const import_node *node = &ctx->nodes[i];
        if (strcmp(node->node->mName.data, name) != 0) {
            continue;
        }
        if (node->is_bone || node->marked) {
            return (int32_t)i;
        }
        if (first < 0) {
            first = (int32_t)i;
        }
    }
    return first;
}

int32_t import_bone_node(const import_context *ctx, const struct aiBone *bone) {
    if (bone->mNode != NULL) {
        int32_t index = import_node_index(ctx, bone->mNode);
        if (index >= 0) {
            return index;
        }
    }
    return import_node_find(ctx, bone->mName.data);
}

/* Step 2 for a character: everything meshes need, animated nodes, sockets. */
static crowd_result mark_character(import_context *ctx) {
    bool has_bones = false;
    crowd_result result = import_mesh_mark(ctx, &has_bones);
    if (result != CROWD_OK) {
        return result;
    }
    bool has_animation = import_clips_mark(ctx);
    ctx->static_only = !has_bones && !has_animation;
    ctx->asset->has_skin = has_bones;
    return import_sockets_mark(ctx);
}

/* Step 2 for a file of clips: its bones and animated nodes; without
 * either there is nothing to take clips from. */
static crowd_result mark_clips_file(import_context *ctx) {
    bool has_bones = import_bones_mark(ctx);
    bool has_animation = import_clips_mark(ctx);
    if (!has_bones && !has_animation) {
        return crowd_error_set(ctx->error, CROWD_ERROR_UNSUPPORTED, ctx->file,
                               "no skeleton or clips: no bone and no animated node to take "
                               "clips from");
    }
    return CROWD_OK;
}

crowd_result import_scene_convert(import_context *ctx) {
    crowd_result result = import_nodes_flatten(ctx);
    if (result == CROWD_OK) {
        result = import_nodes_follow_parents(ctx);
    }
    if (result == CROWD_OK) {
        result = ctx->clips_only ? mark_clips_file(ctx) : mark_character(ctx);
    }
    if (result == CROWD_OK) {
        result = import_skeleton_build(ctx);
    }
    if (result == CROWD_OK && !ctx->clips_only) {
        result = import_sockets_build(ctx);
    }
    if (result == CROWD_OK && !ctx->clips_only) {
        result = import_mesh_build(ctx);
    }
    if (result == CROWD_OK) {
        result = import_clips_build(ctx);
    }
    if (result != CROWD_OK) {
        return result;
    }
    import_units_apply(ctx);
    crowd_error invalid;
    if (crowd_asset_validate(ctx->asset, &invalid) != CROWD_OK) {
        return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file, "%s",
                               invalid.reason);
    }
    return CROWD_OK;
}

/* Name without folder and last extension: "models/robot.glb" -> "robot". */
static char *asset_name(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *name = core_copy_string(base[0] ? base : "model");
    if (name != NULL) {
        char *dot = strrchr(name, '.');
        if (dot != NULL && dot != name) {
            *dot = '\0';
        }
    }
    return name;
}

crowd_result import_scene_to_asset(import_context *ctx, crowd_asset **out_asset) {
    const struct aiScene *scene = ctx->scene;
    const char *file = ctx->file;
    ctx->asset = crowd_asset_create();
    crowd_result result = CROWD_OK;
    if (ctx->asset == NULL) {
        result = crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, file, "out of memory");
    } else if (!ctx->clips_only && (scene->mNumMeshes == 0 || scene->mMeshes == NULL)) {
        result = crowd_error_set(ctx->error, CROWD_ERROR_UNSUPPORTED, file,
                                 "no meshes (a skeleton or animation alone is not a character)");
    } else {
        ctx->asset->name = asset_name(file);
        ctx->asset->source = core_copy_string(file);
        ctx->asset->repairs.reader_warnings = ctx->reader_warnings;
        result =
            ctx->asset->name && ctx->asset->source
                ? import_scene_convert(ctx)
                : crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, file, "out of memory");
    }
    free(ctx->nodes);
    free(ctx->joint_node);
    free(ctx->joint_global);
    free(ctx->inverse_bind_from_bone);
    if (result != CROWD_OK) {
        crowd_asset_destroy(ctx->asset);
        return result;
    }
    const crowd_repairs *r = &ctx->asset->repairs;
    crowd_log(ctx->logger, CROWD_LOG_INFO,
              "%s: %u vertices, %u triangles, %u joints, %u clips; repairs: %u influences "
              "truncated, %u weights renormalized, %u unweighted, %u static meshes rigid, "
              "%u normals generated, %u clips renamed, %u keys dropped, %u clips extended, "
              "%u bones unbound, %u reader warnings, %u units converted",
              file, ctx->asset->mesh.vertex_count, ctx->asset->mesh.index_count / 3,
              ctx->asset->skeleton.joint_count, ctx->asset->clip_count, r->influences_truncated,
              r->weights_renormalized, r->vertices_unweighted, r->static_meshes_rigid,
              r->normals_generated, r->clips_renamed, r->keys_dropped, r->clips_extended,
              r->bones_unbound, r->reader_warnings, r->units_converted);
    *out_asset = ctx->asset;
    return CROWD_OK;
}
