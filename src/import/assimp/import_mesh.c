/* import_mesh.c - every mesh instance of the scene, read into the
 * intermediate scene with its bones and its material.
 *
 * A mesh instance is a (node, aiMesh) pair with at least one triangle.
 * Skinned meshes are taken once (their bones place them, not the node
 * referencing them, so a second reference would only duplicate them);
 * static meshes once per node that references them. A skinned instance's
 * bones become its skin: each bone's node (aiBone::mNode; else -1 and its
 * name, for the pipeline to look up), its offset matrix as the inverse
 * bind, and its weights as the vertices' influences in bone order. What
 * assimp's format forbids (indices, weights or positions out of range or
 * not finite) is refused here; what the pipeline repairs is left as it is.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/asset.h"
#include "import/assimp/import_internal.h"
#include "import/scene/import_math.h"

/* Beyond this, one merged mesh is not a crowd character (and uint32 indices overflow). */
#define IMPORT_MAX_VERTICES (1u << 26)
#define IMPORT_MAX_INDICES (3u << 26)

static uint32_t triangle_count(const struct aiMesh *mesh) {
    uint32_t count = 0;
    if (mesh->mFaces == NULL) {
        return 0;
    }
    for (uint32_t f = 0; f < mesh->mNumFaces; f++) {
        count += mesh->mFaces[f].mNumIndices == 3;
    }
    return count;
}

static bool mesh_is_skinned(const struct aiMesh *mesh) {
    return mesh->mNumBones > 0 && mesh->mBones != NULL;
}

/* The aiMesh of node `n`'s k-th reference, or NULL with the error set. */
static const struct aiMesh *instance_mesh(import_context *ctx, uint32_t n, uint32_t k,
                                          crowd_result *result) {
    const struct aiScene *scene = ctx->scene;
    const struct aiNode *node = ctx->nodes[n].node;
    uint32_t index = node->mMeshes[k];
    if (index >= scene->mNumMeshes || scene->mMeshes == NULL || scene->mMeshes[index] == NULL) {
        *result = crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                  "node '%s': mesh %u out of range", node->mName.data, index);
        return NULL;
    }
    *result = CROWD_OK;
    return scene->mMeshes[index];
}

/* Calls `visit` for every mesh instance in node order; stops at the first error. */
typedef crowd_result (*instance_visit)(import_context *ctx, uint32_t node,
                                       const struct aiMesh *mesh, void *user);

static crowd_result for_each_instance(import_context *ctx, instance_visit visit, void *user) {
    const struct aiScene *scene = ctx->scene;
    bool *skinned_seen = calloc(scene->mNumMeshes + 1, sizeof *skinned_seen);
    if (skinned_seen == NULL) {
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    crowd_result result = CROWD_OK;
    for (uint32_t n = 0; n < ctx->node_count && result == CROWD_OK; n++) {
        const struct aiNode *node = ctx->nodes[n].node;
        if (node->mMeshes == NULL) {
            continue;
        }
        for (uint32_t k = 0; k < node->mNumMeshes && result == CROWD_OK; k++) {
            const struct aiMesh *mesh = instance_mesh(ctx, n, k, &result);
            if (mesh == NULL || triangle_count(mesh) == 0) {
                continue;
            }
            if (mesh_is_skinned(mesh)) {
                uint32_t index = node->mMeshes[k];
                if (skinned_seen[index]) {
                    continue;
                }
                skinned_seen[index] = true;
            }
            result = visit(ctx, n, mesh, user);
        }
    }
    free(skinned_seen);
    return result;
}

static crowd_result check_mesh_arrays(import_context *ctx, const struct aiMesh *mesh) {
    if (mesh->mVertices == NULL || mesh->mNumVertices == 0) {
        return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                               "mesh '%s': no vertices", mesh->mName.data);
    }
    for (uint32_t f = 0; f < mesh->mNumFaces; f++) {
        const struct aiFace *face = &mesh->mFaces[f];
        if (face->mNumIndices != 3) {
            continue;
        }
        if (face->mIndices == NULL) {
            return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                   "mesh '%s': face %u has no indices", mesh->mName.data, f);
        }
        for (int c = 0; c < 3; c++) {
            if (face->mIndices[c] >= mesh->mNumVertices) {
                return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                       "mesh '%s': face %u: index %u out of range (%u vertices)",
                                       mesh->mName.data, f, face->mIndices[c], mesh->mNumVertices);
            }
        }
    }
    for (uint32_t b = 0; b < mesh->mNumBones && mesh_is_skinned(mesh); b++) {
        const struct aiBone *bone = mesh->mBones[b];
        if (bone == NULL || (bone->mNumWeights > 0 && bone->mWeights == NULL)) {
            return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                   "mesh '%s': bone %u is empty", mesh->mName.data, b);
        }
        for (uint32_t w = 0; w < bone->mNumWeights; w++) {
            const struct aiVertexWeight *vw = &bone->mWeights[w];
            if (vw->mVertexId >= mesh->mNumVertices) {
                return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                       "mesh '%s': bone '%s' weights vertex %u of %u",
                                       mesh->mName.data, bone->mName.data, vw->mVertexId,
                                       mesh->mNumVertices);
            }
            if (!isfinite(vw->mWeight) || vw->mWeight < 0.0f) {
                return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                       "mesh '%s': bone '%s': weight %g is not a finite "
                                       "non-negative number",
                                       mesh->mName.data, bone->mName.data, (double)vw->mWeight);
            }
        }
    }
    return CROWD_OK;
}

static crowd_result out_of_memory(const import_context *ctx) {
    return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
}

/* Whether some node of the tree is called `name`. */
static bool node_named(const import_context *ctx, const char *name) {
    for (uint32_t n = 0; n < ctx->node_count; n++) {
        if (strcmp(ctx->nodes[n].node->mName.data, name) == 0) {
            return true;
        }
    }
    return false;
}

/* The mesh's bones as a skin: nodes, names, offsets (`with_offsets`; a
 * file of clips binds no mesh and leaves them NULL, and may have NULL
 * bones, which name nothing). */
static crowd_result add_skin(import_context *ctx, const struct aiMesh *mesh, bool with_offsets,
                             int32_t *out_skin) {
    import_scene *scene = ctx->out;
    import_scene_skin *grown =
        realloc(scene->skins, ((size_t)scene->skin_count + 1) * sizeof *scene->skins);
    if (grown == NULL) {
        return out_of_memory(ctx);
    }
    scene->skins = grown;
    import_scene_skin *skin = &scene->skins[scene->skin_count];
    memset(skin, 0, sizeof *skin);
    *out_skin = (int32_t)scene->skin_count++;
    uint32_t count = mesh->mNumBones;
    skin->nodes = malloc(((size_t)count + 1) * sizeof *skin->nodes);
    skin->names = malloc(((size_t)count + 1) * sizeof *skin->names);
    skin->inverse_binds = with_offsets ? malloc(((size_t)count * 16 + 1) * sizeof(float)) : NULL;
    if (skin->nodes == NULL || skin->names == NULL || (with_offsets && !skin->inverse_binds)) {
        return out_of_memory(ctx);
    }
    skin->joint_count = count;
    for (uint32_t b = 0; b < count; b++) {
        const struct aiBone *bone = mesh->mBones[b];
        skin->names[b] = bone ? bone->mName.data : NULL;
        skin->nodes[b] = bone && bone->mNode ? crowd__import_node_index(ctx, bone->mNode) : -1;
        if (!with_offsets) {
            continue;
        }
        float *offset = &skin->inverse_binds[16 * b];
        crowd__import_m4_from_ai(&bone->mOffsetMatrix, offset);
        /* A bone naming no node has its offset replaced (scene_mesh.c). */
        bool bound = skin->nodes[b] >= 0 || node_named(ctx, bone->mName.data);
        if (bound && !crowd__import_m4_is_finite(offset)) {
            return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                   "bone '%s': offset matrix is not finite", bone->mName.data);
        }
    }
    return CROWD_OK;
}

/* The bones' positive weights per vertex, in bone order. */
static crowd_result add_influences(import_context *ctx, const struct aiMesh *mesh,
                                   import_scene_mesh *out) {
    uint32_t vertex_count = mesh->mNumVertices;
    size_t total = 0;
    for (uint32_t b = 0; b < mesh->mNumBones; b++) {
        total += mesh->mBones[b]->mNumWeights;
    }
    out->influence_first = calloc((size_t)vertex_count + 1, sizeof *out->influence_first);
    out->influence_joint = malloc((total + 1) * sizeof *out->influence_joint);
    out->influence_weight = malloc((total + 1) * sizeof *out->influence_weight);
    uint32_t *fill = calloc((size_t)vertex_count + 1, sizeof *fill);
    if (!out->influence_first || !out->influence_joint || !out->influence_weight || !fill) {
        free(fill);
        return out_of_memory(ctx);
    }
    for (uint32_t b = 0; b < mesh->mNumBones; b++) {
        const struct aiBone *bone = mesh->mBones[b];
        for (uint32_t w = 0; w < bone->mNumWeights; w++) {
            if (bone->mWeights[w].mWeight > 0.0f) {
                out->influence_first[bone->mWeights[w].mVertexId + 1]++;
            }
        }
    }
    for (uint32_t v = 0; v < vertex_count; v++) {
        out->influence_first[v + 1] += out->influence_first[v];
    }
    for (uint32_t b = 0; b < mesh->mNumBones; b++) {
        const struct aiBone *bone = mesh->mBones[b];
        for (uint32_t w = 0; w < bone->mNumWeights; w++) {
            const struct aiVertexWeight *vw = &bone->mWeights[w];
            if (vw->mWeight > 0.0f) {
                uint32_t slot = out->influence_first[vw->mVertexId] + fill[vw->mVertexId]++;
                out->influence_joint[slot] = b;
                out->influence_weight[slot] = vw->mWeight;
            }
        }
    }
    free(fill);
    return CROWD_OK;
}

/* Positions (finite), normals, the first uv set (finite), triangles. */
static crowd_result add_vertices(import_context *ctx, const struct aiMesh *mesh,
                                 import_scene_mesh *out) {
    uint32_t count = mesh->mNumVertices;
    out->vertex_count = count;
    out->index_count = 3 * triangle_count(mesh);
    out->positions = malloc(3 * (size_t)count * sizeof(float));
    out->normals = mesh->mNormals ? malloc(3 * (size_t)count * sizeof(float)) : NULL;
    out->uv = mesh->mTextureCoords[0] ? malloc(2 * (size_t)count * sizeof(float)) : NULL;
    out->indices = malloc(((size_t)out->index_count + 1) * sizeof(uint32_t));
    if (!out->positions || (mesh->mNormals && !out->normals) ||
        (mesh->mTextureCoords[0] && !out->uv) || !out->indices) {
        return out_of_memory(ctx);
    }
    for (uint32_t v = 0; v < count; v++) {
        const struct aiVector3D *p = &mesh->mVertices[v];
        if (!isfinite(p->x) || !isfinite(p->y) || !isfinite(p->z)) {
            return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                   "mesh '%s': vertex %u: position is not finite", mesh->mName.data,
                                   v);
        }
        memcpy(&out->positions[3 * (size_t)v], (float[3]){p->x, p->y, p->z}, 3 * sizeof(float));
        if (out->normals != NULL) {
            const struct aiVector3D *n = &mesh->mNormals[v];
            memcpy(&out->normals[3 * (size_t)v], (float[3]){n->x, n->y, n->z}, 3 * sizeof(float));
        }
        if (out->uv != NULL) {
            const struct aiVector3D *t = &mesh->mTextureCoords[0][v];
            if (!isfinite(t->x) || !isfinite(t->y)) {
                return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                       "mesh '%s': vertex %u: texture coordinate is not finite",
                                       mesh->mName.data, v);
            }
            out->uv[2 * (size_t)v] = t->x;
            out->uv[2 * (size_t)v + 1] = t->y;
        }
    }
    uint32_t at = 0;
    for (uint32_t f = 0; f < mesh->mNumFaces; f++) {
        const struct aiFace *face = &mesh->mFaces[f];
        for (uint32_t c = 0; face->mNumIndices == 3 && c < 3; c++) {
            out->indices[at++] = face->mIndices[c];
        }
    }
    return CROWD_OK;
}

typedef struct fill_state {
    uint64_t vertex_count, index_count;
    uint32_t *material_slot; /* aiScene material -> scene material + 1 (0: not yet) */
} fill_state;

static crowd_result fill_instance(import_context *ctx, uint32_t n, const struct aiMesh *mesh,
                                  void *user) {
    fill_state *state = user;
    crowd_result result = check_mesh_arrays(ctx, mesh);
    if (result == CROWD_OK && mesh->mMaterialIndex >= ctx->scene->mNumMaterials &&
        ctx->scene->mNumMaterials > 0) {
        result = crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                 "mesh '%s': material %u out of range (%u materials)",
                                 mesh->mName.data, mesh->mMaterialIndex, ctx->scene->mNumMaterials);
    }
    state->vertex_count += mesh->mNumVertices;
    state->index_count += 3ull * triangle_count(mesh);
    if (result == CROWD_OK &&
        (state->vertex_count > IMPORT_MAX_VERTICES || state->index_count > IMPORT_MAX_INDICES)) {
        result = crowd_error_set(ctx->error, CROWD_ERROR_LIMIT, ctx->file,
                                 "more than %u vertices or %u indices in one character",
                                 IMPORT_MAX_VERTICES, IMPORT_MAX_INDICES);
    }
    import_scene_mesh *out = result == CROWD_OK ? crowd__import_scene_add_mesh(ctx->out) : NULL;
    if (result == CROWD_OK && out == NULL) {
        return CROWD_ERROR_OUT_OF_MEMORY;
    }
    if (result == CROWD_OK) {
        out->name = mesh->mName.data;
        out->node = n;
        result = add_vertices(ctx, mesh, out);
    }
    if (result == CROWD_OK && mesh_is_skinned(mesh)) {
        result = add_skin(ctx, mesh, true, &out->skin);
        if (result == CROWD_OK) {
            result = add_influences(ctx, mesh, out);
        }
    }
    uint32_t index = ctx->scene->mNumMaterials > 0 ? mesh->mMaterialIndex : 0;
    crowd_material *material = NULL;
    if (result == CROWD_OK) {
        result = crowd__import_scene_material_slot(ctx->out, state->material_slot, index,
                                                   &out->material, &material);
    }
    return result == CROWD_OK && material != NULL
               ? crowd__import_material_convert(ctx, index, material)
               : result;
}

crowd_result crowd__import_meshes_fill(import_context *ctx) {
    uint32_t materials = ctx->scene->mNumMaterials > 0 ? ctx->scene->mNumMaterials : 1;
    fill_state state = {0, 0, calloc(materials, sizeof(uint32_t))};
    crowd_result result = state.material_slot != NULL
                              ? for_each_instance(ctx, fill_instance, &state)
                              : out_of_memory(ctx);
    free(state.material_slot);
    return result;
}

crowd_result crowd__import_bones_fill(import_context *ctx) {
    const struct aiScene *scene = ctx->scene;
    crowd_result result = CROWD_OK;
    for (uint32_t m = 0; m < scene->mNumMeshes && scene->mMeshes != NULL && result == CROWD_OK;
         m++) {
        const struct aiMesh *mesh = scene->mMeshes[m];
        int32_t skin = -1;
        if (mesh != NULL && mesh->mBones != NULL && mesh->mNumBones > 0) {
            result = add_skin(ctx, mesh, false, &skin);
        }
    }
    return result;
}
