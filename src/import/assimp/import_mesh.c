/* import_mesh.c - every mesh instance of the scene merged into one mesh.
 *
 * A mesh instance is a (node, aiMesh) pair with at least one triangle.
 * Skinned meshes are taken once (their bones place them, not the node
 * referencing them, so a second reference would only duplicate them);
 * static meshes once per node that references them.
 *
 * Vertex positions end up in "bind space": for a vertex bound to joints j
 * with weights w, skinning with model[j] * inverse_bind[j] must give where
 * the file puts it at bind time. With B the mesh's bind placement
 * (import_bind.c), each bone's placed offset is offset_k * B^-1, so
 *   - a skinned vertex becomes p = B * v, unless a bone's placed offset
 *     differs from the joint's chosen inverse bind (two meshes bound
 *     differently): then p = sum_k w_k * inverse(inverse_bind[j_k]) *
 *     offset_k * B^-1 * B * v;
 *   - a static vertex (and a skinned vertex without any weight) is rigid on
 *     its mesh's node: p = inverse(inverse_bind[node]) * v, which is
 *     node_global * v when the joint is not a bone.
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
/* |sum - 1| above this counts as "weights did not sum to 1"; below is rounding. */
#define WEIGHT_SUM_TOLERANCE 1e-3f

typedef struct influence {
    uint32_t joint;
    uint32_t bone;
    float weight;
} influence;

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

typedef struct mark_state {
    bool has_bones;
} mark_state;

static crowd_result mark_instance(import_context *ctx, uint32_t n, const struct aiMesh *mesh,
                                  void *user) {
    mark_state *state = user;
    crowd_result result = check_mesh_arrays(ctx, mesh);
    if (result != CROWD_OK) {
        return result;
    }
    if (!mesh_is_skinned(mesh)) {
        ctx->nodes[n].marked = true;
        return CROWD_OK;
    }
    state->has_bones = true;
    bool *weighted = calloc(mesh->mNumVertices, sizeof *weighted);
    if (weighted == NULL) {
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    for (uint32_t b = 0; b < mesh->mNumBones; b++) {
        const struct aiBone *bone = mesh->mBones[b];
        int32_t node = import_bone_node(ctx, bone);
        if (node < 0) {
            /* Its weights go to the mesh's node (gather_influences). */
            ctx->nodes[n].marked = true;
            ctx->asset->repairs.bones_unbound++;
            crowd_log(ctx->logger, CROWD_LOG_WARNING,
                      "%s: mesh '%s': bone '%s' names no node; its weights are bound to the "
                      "mesh's node '%s'",
                      ctx->file, mesh->mName.data, bone->mName.data,
                      ctx->nodes[n].node->mName.data);
            continue;
        }
        ctx->nodes[node].is_bone = true;
        ctx->nodes[node].marked = true;
        for (uint32_t w = 0; w < bone->mNumWeights; w++) {
            if (bone->mWeights[w].mWeight > 0.0f) {
                weighted[bone->mWeights[w].mVertexId] = true;
            }
        }
    }
    for (uint32_t v = 0; v < mesh->mNumVertices; v++) {
        if (!weighted[v]) {
            ctx->nodes[n].marked = true;
            break;
        }
    }
    free(weighted);
    return CROWD_OK;
}

crowd_result import_mesh_mark(import_context *ctx, bool *out_has_bones) {
    mark_state state = {false};
    crowd_result result = for_each_instance(ctx, mark_instance, &state);
    *out_has_bones = state.has_bones;
    return result;
}

/* ---- building ------------------------------------------------------------ */

typedef struct build_state {
    uint64_t vertex_count, index_count;
    uint32_t submesh_count;
    uint32_t *material_of;    /* scene material -> asset material + 1 (0 = unused) */
    uint32_t *scene_material; /* asset material -> scene material */
    uint32_t material_count;
    uint32_t next_vertex, next_index, next_submesh;
    /* Scratch for one skinned mesh. */
    float bind[16], bind_inverse[16]; /* its bind placement B and B^-1 */
    bool bind_identity;
    influence *influences;
    uint32_t *influence_first; /* mNumVertices + 1 prefix sums */
    float *corrections;        /* 16 per bone: inverse(inverse_bind) * offset * B^-1 */
    bool *correction_identity; /* per bone */
    bool *needs_normal;        /* per vertex of the instance */
} build_state;

static crowd_result count_instance(import_context *ctx, uint32_t n, const struct aiMesh *mesh,
                                   void *user) {
    (void)n;
    build_state *state = user;
    if (mesh->mMaterialIndex >= ctx->scene->mNumMaterials && ctx->scene->mNumMaterials > 0) {
        return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                               "mesh '%s': material %u out of range (%u materials)",
                               mesh->mName.data, mesh->mMaterialIndex, ctx->scene->mNumMaterials);
    }
    state->vertex_count += mesh->mNumVertices;
    state->index_count += 3ull * triangle_count(mesh);
    state->submesh_count++;
    if (state->vertex_count > IMPORT_MAX_VERTICES || state->index_count > IMPORT_MAX_INDICES) {
        return crowd_error_set(ctx->error, CROWD_ERROR_LIMIT, ctx->file,
                               "more than %u vertices or %u indices in one character",
                               IMPORT_MAX_VERTICES, IMPORT_MAX_INDICES);
    }
    uint32_t scene_material = ctx->scene->mNumMaterials > 0 ? mesh->mMaterialIndex : 0;
    if (state->material_of[scene_material] == 0) {
        state->scene_material[state->material_count] = scene_material;
        state->material_of[scene_material] = ++state->material_count;
    }
    return CROWD_OK;
}

/* inverse(inverse_bind[joint]): maps joint-local bind positions to bind space. */
static void bind_from_joint(const import_context *ctx, uint32_t joint, float out[16]) {
    if (!import_m4_invert(&ctx->asset->skeleton.inverse_bind[16 * joint], out)) {
        import_m4_identity(out);
    }
}

static void set_rigid(crowd_mesh *out, uint32_t vertex, uint32_t joint) {
    out->joints[4 * vertex] = (uint16_t)joint;
    out->weights[4 * vertex] = 1.0f;
}

/* Sorts the first `count` influences by decreasing weight (count is small). */
static void sort_influences(influence *list, uint32_t count) {
    for (uint32_t i = 1; i < count; i++) {
        influence key = list[i];
        uint32_t j = i;
        while (j > 0 && list[j - 1].weight < key.weight) {
            list[j] = list[j - 1];
            j--;
        }
        list[j] = key;
    }
}

static crowd_result gather_influences(import_context *ctx, uint32_t n, const struct aiMesh *mesh,
                                      build_state *state) {
    uint32_t vertex_count = mesh->mNumVertices;
    size_t total = 0;
    for (uint32_t b = 0; b < mesh->mNumBones; b++) {
        total += mesh->mBones[b]->mNumWeights;
    }
    state->influences = malloc((total + 1) * sizeof *state->influences);
    state->influence_first = calloc((size_t)vertex_count + 1, sizeof *state->influence_first);
    state->corrections = malloc((size_t)mesh->mNumBones * 16 * sizeof *state->corrections);
    state->correction_identity = malloc(mesh->mNumBones * sizeof *state->correction_identity);
    if (state->influences == NULL || state->influence_first == NULL || state->corrections == NULL ||
        state->correction_identity == NULL) {
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    for (uint32_t b = 0; b < mesh->mNumBones; b++) {
        const struct aiBone *bone = mesh->mBones[b];
        for (uint32_t w = 0; w < bone->mNumWeights; w++) {
            if (bone->mWeights[w].mWeight > 0.0f) {
                state->influence_first[bone->mWeights[w].mVertexId + 1]++;
            }
        }
    }
    for (uint32_t v = 0; v < vertex_count; v++) {
        state->influence_first[v + 1] += state->influence_first[v];
    }
    uint32_t *fill = calloc(vertex_count, sizeof *fill);
    if (fill == NULL) {
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    for (uint32_t b = 0; b < mesh->mNumBones; b++) {
        const struct aiBone *bone = mesh->mBones[b];
        int32_t bone_node = import_bone_node(ctx, bone);
        uint32_t joint = (uint32_t)ctx->nodes[bone_node >= 0 ? bone_node : (int32_t)n].joint;
        float offset[16], joint_bind[16];
        import_m4_from_ai(&bone->mOffsetMatrix, offset);
        if (bone_node < 0) {
            /* A bone naming no node: its share of a vertex is rigid on the
             * mesh's node, as an unweighted vertex is. B^-1 undoes the bind
             * placement; the correction below then places it on that node. */
            memcpy(offset, state->bind_inverse, sizeof offset);
        } else if (!state->bind_identity) {
            import_m4_mul(offset, state->bind_inverse, offset);
        }
        const float *chosen = &ctx->asset->skeleton.inverse_bind[16 * joint];
        state->correction_identity[b] =
            bone_node >= 0 && memcmp(offset, chosen, sizeof offset) == 0;
        if (!state->correction_identity[b]) {
            bind_from_joint(ctx, joint, joint_bind);
            import_m4_mul(joint_bind, offset, &state->corrections[16 * b]);
            float identity[16];
            import_m4_identity(identity);
            state->correction_identity[b] =
                import_m4_near(&state->corrections[16 * b], identity, 1e-5f);
        }
        for (uint32_t w = 0; w < bone->mNumWeights; w++) {
            const struct aiVertexWeight *vw = &bone->mWeights[w];
            if (vw->mWeight > 0.0f) {
                uint32_t slot = state->influence_first[vw->mVertexId] + fill[vw->mVertexId]++;
                state->influences[slot] = (influence){joint, b, vw->mWeight};
            }
        }
    }
    free(fill);
    return CROWD_OK;
}

static void release_influences(build_state *state) {
    free(state->influences);
    free(state->influence_first);
    free(state->corrections);
    free(state->correction_identity);
    state->influences = NULL;
    state->influence_first = NULL;
    state->corrections = NULL;
    state->correction_identity = NULL;
}

/* Joints and weights of skinned vertex v; returns the blend of the kept
 * bones' corrections (applied after the mesh's bind placement) in `matrix`,
 * or false when they are all identity. */
static bool skin_vertex(import_context *ctx, build_state *state, uint32_t v, uint32_t out_vertex,
                        float matrix[16]) {
    crowd_mesh *out = &ctx->asset->mesh;
    influence *list = &state->influences[state->influence_first[v]];
    uint32_t count = state->influence_first[v + 1] - state->influence_first[v];
    float total = 0.0f;
    for (uint32_t i = 0; i < count; i++) {
        total += list[i].weight;
    }
    sort_influences(list, count);
    if (count > CROWD_MAX_INFLUENCES) {
        ctx->asset->repairs.influences_truncated++;
        count = CROWD_MAX_INFLUENCES;
    }
    if (fabsf(total - 1.0f) > WEIGHT_SUM_TOLERANCE) {
        ctx->asset->repairs.weights_renormalized++;
    }
    float kept = 0.0f;
    for (uint32_t i = 0; i < count; i++) {
        kept += list[i].weight;
    }
    bool corrected = false;
    memset(matrix, 0, 16 * sizeof *matrix);
    uint32_t slots = 0;
    for (uint32_t i = 0; i < count; i++) {
        float weight = list[i].weight / kept;
        uint32_t slot = 0;
        while (slot < slots && out->joints[4 * out_vertex + slot] != list[i].joint) {
            slot++;
        }
        if (slot == slots) {
            out->joints[4 * out_vertex + slot] = (uint16_t)list[i].joint;
            slots++;
        }
        out->weights[4 * out_vertex + slot] += weight;
        if (state->correction_identity[list[i].bone]) {
            for (int d = 0; d < 4; d++) {
                matrix[d * 5] += weight;
            }
        } else {
            corrected = true;
            for (int e = 0; e < 16; e++) {
                matrix[e] += weight * state->corrections[16 * list[i].bone + e];
            }
        }
    }
    return corrected;
}

static crowd_result copy_vertex_data(import_context *ctx, const struct aiMesh *mesh, uint32_t v,
                                     uint32_t out_vertex, const float *matrix, build_state *state) {
    crowd_mesh *out = &ctx->asset->mesh;
    const struct aiVector3D *p = &mesh->mVertices[v];
    float position[3] = {p->x, p->y, p->z};
    if (!isfinite(position[0]) || !isfinite(position[1]) || !isfinite(position[2])) {
        return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                               "mesh '%s': vertex %u: position is not finite", mesh->mName.data, v);
    }
    if (matrix != NULL) {
        import_m4_point(matrix, position, position);
    }
    memcpy(&out->positions[3 * out_vertex], position, sizeof position);
    state->needs_normal[v] = true;
    if (mesh->mNormals != NULL) {
        const struct aiVector3D *n = &mesh->mNormals[v];
        float normal[3] = {n->x, n->y, n->z};
        float identity[16];
        import_m4_identity(identity);
        /* A normal that is not finite is generated like a missing one. */
        state->needs_normal[v] =
            !(isfinite(normal[0]) && isfinite(normal[1]) && isfinite(normal[2])) ||
            !import_m4_normal(matrix ? matrix : identity, normal, &out->normals[3 * out_vertex]);
    }
    if (mesh->mTextureCoords[0] != NULL) {
        const struct aiVector3D *t = &mesh->mTextureCoords[0][v];
        if (!isfinite(t->x) || !isfinite(t->y)) {
            return crowd_error_set(ctx->error, CROWD_ERROR_INVALID_DATA, ctx->file,
                                   "mesh '%s': vertex %u: texture coordinate is not finite",
                                   mesh->mName.data, v);
        }
        out->uv0[2 * out_vertex] = t->x;
        out->uv0[2 * out_vertex + 1] = t->y;
    }
    return CROWD_OK;
}

/* Area-weighted face normals for the vertices whose normal was missing or degenerate. */
static void generate_normals(import_context *ctx, const struct aiMesh *mesh, uint32_t base,
                             build_state *state) {
    crowd_mesh *out = &ctx->asset->mesh;
    uint32_t missing = 0;
    for (uint32_t v = 0; v < mesh->mNumVertices; v++) {
        if (state->needs_normal[v]) {
            missing++;
            memset(&out->normals[3 * (base + v)], 0, 3 * sizeof(float));
        }
    }
    if (missing == 0) {
        return;
    }
    ctx->asset->repairs.normals_generated += missing;
    for (uint32_t f = 0; f < mesh->mNumFaces; f++) {
        const struct aiFace *face = &mesh->mFaces[f];
        if (face->mNumIndices != 3) {
            continue;
        }
        const float *a = &out->positions[3 * (base + face->mIndices[0])];
        const float *b = &out->positions[3 * (base + face->mIndices[1])];
        const float *c = &out->positions[3 * (base + face->mIndices[2])];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        for (int c3 = 0; c3 < 3; c3++) {
            uint32_t v = face->mIndices[c3];
            if (state->needs_normal[v]) {
                for (int k = 0; k < 3; k++) {
                    out->normals[3 * (base + v) + k] += n[k];
                }
            }
        }
    }
    for (uint32_t v = 0; v < mesh->mNumVertices; v++) {
        if (!state->needs_normal[v]) {
            continue;
        }
        float *n = &out->normals[3 * (base + v)];
        float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (isfinite(len) && len > 1e-30f) {
            n[0] /= len;
            n[1] /= len;
            n[2] /= len;
        } else {
            /* A vertex on no triangle of non-zero area: any unit normal will do. */
            n[0] = 0.0f;
            n[1] = 1.0f;
            n[2] = 0.0f;
        }
    }
}

static crowd_result build_instance(import_context *ctx, uint32_t n, const struct aiMesh *mesh,
                                   void *user) {
    build_state *state = user;
    crowd_mesh *out = &ctx->asset->mesh;
    uint32_t base = state->next_vertex;
    bool skinned = mesh_is_skinned(mesh);
    crowd_result result = CROWD_OK;

    /* Where a rigid vertex of this mesh goes: its node's joint, or the single
     * joint of a static-only file with the node's transform baked in. */
    uint32_t rigid_joint = 0;
    float rigid[16];
    if (ctx->static_only) {
        memcpy(rigid, ctx->nodes[n].global, sizeof rigid);
    } else if (ctx->nodes[n].joint >= 0) {
        rigid_joint = (uint32_t)ctx->nodes[n].joint;
        bind_from_joint(ctx, rigid_joint, rigid);
    } else {
        import_m4_identity(rigid); /* skinned mesh whose vertices all have weights */
    }
    if (!skinned && !ctx->static_only) {
        ctx->asset->repairs.static_meshes_rigid++;
    }
    state->needs_normal = malloc(mesh->mNumVertices * sizeof *state->needs_normal);
    if (state->needs_normal == NULL) {
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    if (skinned) {
        state->bind_identity = import_mesh_bind(ctx, n, mesh, state->bind, state->bind_inverse);
        result = gather_influences(ctx, n, mesh, state);
    }
    for (uint32_t v = 0; v < mesh->mNumVertices && result == CROWD_OK; v++) {
        uint32_t out_vertex = base + v;
        float matrix[16];
        const float *transform = rigid;
        if (skinned && state->influence_first[v + 1] > state->influence_first[v]) {
            if (skin_vertex(ctx, state, v, out_vertex, matrix)) {
                import_m4_mul(matrix, state->bind, matrix);
                transform = matrix;
            } else {
                /* NULL keeps the file's values bit for bit. */
                transform = state->bind_identity ? NULL : state->bind;
            }
        } else {
            if (skinned) {
                ctx->asset->repairs.vertices_unweighted++;
            }
            set_rigid(out, out_vertex, rigid_joint);
        }
        result = copy_vertex_data(ctx, mesh, v, out_vertex, transform, state);
    }
    if (result == CROWD_OK) {
        generate_normals(ctx, mesh, base, state);
        uint32_t first_index = state->next_index;
        for (uint32_t f = 0; f < mesh->mNumFaces; f++) {
            const struct aiFace *face = &mesh->mFaces[f];
            if (face->mNumIndices == 3) {
                for (int c = 0; c < 3; c++) {
                    out->indices[state->next_index++] = base + face->mIndices[c];
                }
            }
        }
        uint32_t scene_material = ctx->scene->mNumMaterials > 0 ? mesh->mMaterialIndex : 0;
        out->submeshes[state->next_submesh++] = (crowd_submesh){
            first_index, state->next_index - first_index, state->material_of[scene_material] - 1};
        state->next_vertex += mesh->mNumVertices;
    }
    release_influences(state);
    free(state->needs_normal);
    state->needs_normal = NULL;
    return result;
}

crowd_result import_mesh_build(import_context *ctx) {
    build_state state;
    memset(&state, 0, sizeof state);
    uint32_t scene_materials = ctx->scene->mNumMaterials > 0 ? ctx->scene->mNumMaterials : 1;
    state.material_of = calloc(scene_materials, sizeof *state.material_of);
    state.scene_material = calloc(scene_materials, sizeof *state.scene_material);
    if (state.material_of == NULL || state.scene_material == NULL) {
        free(state.material_of);
        free(state.scene_material);
        return crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
    }
    crowd_result result = for_each_instance(ctx, count_instance, &state);
    if (result == CROWD_OK && state.index_count == 0) {
        result = crowd_error_set(ctx->error, CROWD_ERROR_UNSUPPORTED, ctx->file,
                                 "no triangles: crowd plays triangle meshes only");
    }
    crowd_mesh *out = &ctx->asset->mesh;
    if (result == CROWD_OK) {
        size_t v = (size_t)state.vertex_count;
        out->vertex_count = (uint32_t)v;
        out->index_count = (uint32_t)state.index_count;
        out->submesh_count = state.submesh_count;
        out->positions = malloc(3 * v * sizeof(float));
        out->normals = malloc(3 * v * sizeof(float));
        out->uv0 = calloc(2 * v, sizeof(float));
        out->joints = calloc(4 * v, sizeof(uint16_t));
        out->weights = calloc(4 * v, sizeof(float));
        out->indices = malloc((size_t)state.index_count * sizeof(uint32_t));
        out->submeshes = calloc(state.submesh_count, sizeof(crowd_submesh));
        if (!out->positions || !out->normals || !out->uv0 || !out->joints || !out->weights ||
            !out->indices || !out->submeshes) {
            result =
                crowd_error_set(ctx->error, CROWD_ERROR_OUT_OF_MEMORY, ctx->file, "out of memory");
        }
    }
    if (result == CROWD_OK) {
        result = for_each_instance(ctx, build_instance, &state);
    }
    if (result == CROWD_OK) {
        ctx->asset->source_mesh_count = state.submesh_count;
        result = import_materials_build(ctx, state.scene_material, state.material_count);
    }
    free(state.material_of);
    free(state.scene_material);
    return result;
}
