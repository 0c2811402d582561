/* scene_mesh.c - every mesh instance of the scene merged into the asset's
 * one mesh, one submesh each (step 3 of scene.h).
 *
 * Positions end up in bind space: skinning a vertex with model[j] *
 * inverse_bind[j] must give where the file puts it. With B a skinned
 * mesh's bind placement (scene_bind.c), its skin's placed inverse binds
 * are inverse_bind_k * B^-1, so
 *   - a skinned vertex becomes p = B * v, unless a joint's placed inverse
 *     bind differs from the one the joint kept (two skins bind it
 *     differently): then p = sum_k w_k * inverse(inverse_bind[j_k]) *
 *     placed_k * B * v;
 *   - a static vertex (and a skinned vertex without any weight) is rigid on
 *     its node's joint: p = inverse(inverse_bind[node]) * v, which is the
 *     node's rest model matrix when the joint is no skin joint; in a file
 *     with neither skin nor animation, the node's transform baked in;
 *   - the share of a skin joint that names no node is rigid on the mesh's
 *     node the same way.
 * Influences: the 4 largest kept (counted), weights renormalized (counted
 * when they did not sum to 1), one slot per joint. Normals go through the
 * same matrix; missing, zero or non-finite ones are made from the faces
 * (area-weighted, counted).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/asset.h"
#include "import/scene/import_math.h"
#include "import/scene/scene.h"

/* Beyond this, one merged mesh is not a crowd character (and uint32 indices overflow). */
#define MAX_VERTICES (1u << 26)
#define MAX_INDICES (3u << 26)
/* |sum - 1| above this counts as "weights did not sum to 1"; below is rounding. */
#define WEIGHT_SUM_TOLERANCE 1e-3f

typedef struct influence {
    uint32_t joint; /* asset joint */
    uint32_t slot;  /* skin joint */
    float weight;
} influence;

/* What merging one skinned mesh needs besides the mesh. */
typedef struct skin_state {
    float bind[16];
    bool bind_identity;
    float *corrections;    /* 16 per skin joint: inverse(inverse_bind[j]) * placed */
    bool *correction_none; /* per skin joint */
    uint32_t *joint_of;    /* per skin joint: the asset joint */
    influence *list;       /* scratch: the influences of one vertex */
} skin_state;

static crowd_result out_of_memory(const import_scene *scene) {
    return crowd_error_set(scene->error, CROWD_ERROR_OUT_OF_MEMORY, scene->file, "out of memory");
}

static void joint_bind(const crowd_asset *asset, uint32_t joint, float out[16]) {
    if (!crowd__import_m4_invert(&asset->skeleton.inverse_bind[16 * joint], out)) {
        crowd__import_m4_identity(out);
    }
}

static crowd_result prepare_skin(import_build *build, const import_scene_mesh *p, skin_state *s) {
    const import_scene *scene = build->scene;
    const import_scene_skin *skin = &scene->skins[p->skin];
    float bind_inverse[16];
    s->bind_identity = crowd__import_build_bind(build, p, s->bind, bind_inverse);
    uint32_t most = 0;
    for (uint32_t v = 0; v < p->vertex_count; v++) {
        uint32_t count = p->influence_first[v + 1] - p->influence_first[v];
        most = count > most ? count : most;
    }
    s->corrections = malloc(((size_t)skin->joint_count * 16 + 1) * sizeof *s->corrections);
    s->correction_none = malloc((skin->joint_count + 1) * sizeof *s->correction_none);
    s->joint_of = malloc((skin->joint_count + 1) * sizeof *s->joint_of);
    s->list = malloc(((size_t)most + 1) * sizeof *s->list);
    if (!s->corrections || !s->correction_none || !s->joint_of || !s->list) {
        return out_of_memory(scene);
    }
    for (uint32_t k = 0; k < skin->joint_count; k++) {
        int32_t node = skin->nodes[k];
        uint32_t joint = (uint32_t)scene->nodes[node >= 0 ? (uint32_t)node : p->node].joint;
        float placed[16], bind[16], identity[16];
        if (node < 0) {
            /* A joint naming no node: its share of a vertex is rigid on the
             * mesh's node, as an unweighted vertex is. B^-1 undoes the bind
             * placement; the correction then places it on that node. */
            memcpy(placed, bind_inverse, sizeof placed);
        } else {
            memcpy(placed, &skin->inverse_binds[16 * k], sizeof placed);
            if (!s->bind_identity) {
                crowd__import_m4_mul(placed, bind_inverse, placed);
            }
        }
        s->joint_of[k] = joint;
        const float *kept = &build->asset->skeleton.inverse_bind[16 * joint];
        s->correction_none[k] = node >= 0 && memcmp(placed, kept, sizeof placed) == 0;
        if (!s->correction_none[k]) {
            joint_bind(build->asset, joint, bind);
            crowd__import_m4_mul(bind, placed, &s->corrections[16 * k]);
            crowd__import_m4_identity(identity);
            s->correction_none[k] = crowd__import_m4_near(&s->corrections[16 * k], identity, 1e-5f);
        }
    }
    return CROWD_OK;
}

/* Sorts by decreasing weight, keeping the file's order among equals. */
static void sort_influences(influence *list, uint32_t count) {
    for (uint32_t i = 1; i < count; i++) {
        influence key = list[i];
        uint32_t j = i;
        for (; j > 0 && list[j - 1].weight < key.weight; j--) {
            list[j] = list[j - 1];
        }
        list[j] = key;
    }
}

/* Joints and weights of skinned vertex v into out_vertex; false when it has
 * no weight. *matrix is the blend of the kept joints' corrections
 * (*corrected false when they are all none). */
static bool skin_vertex(import_build *build, const import_scene_mesh *p, const skin_state *s,
                        uint32_t v, uint32_t out_vertex, float matrix[16], bool *corrected) {
    uint32_t first = p->influence_first[v];
    uint32_t count = p->influence_first[v + 1] - first;
    if (count == 0) {
        return false;
    }
    influence *list = s->list;
    float total = 0.0f;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t slot = p->influence_joint[first + i];
        list[i] = (influence){s->joint_of[slot], slot, p->influence_weight[first + i]};
        total += list[i].weight;
    }
    sort_influences(list, count);
    crowd_repairs *repairs = &build->asset->repairs;
    if (count > CROWD_MAX_INFLUENCES) {
        repairs->influences_truncated++;
        count = CROWD_MAX_INFLUENCES;
    }
    if (fabsf(total - 1.0f) > WEIGHT_SUM_TOLERANCE) {
        repairs->weights_renormalized++;
    }
    float kept = 0.0f;
    for (uint32_t i = 0; i < count; i++) {
        kept += list[i].weight;
    }
    crowd_mesh *out = &build->asset->mesh;
    uint16_t *joints = &out->joints[4 * (size_t)out_vertex];
    float *weights = &out->weights[4 * (size_t)out_vertex];
    memset(matrix, 0, 16 * sizeof *matrix);
    *corrected = false;
    uint32_t slots = 0;
    for (uint32_t i = 0; i < count; i++) {
        float weight = list[i].weight / kept;
        uint32_t slot = 0;
        while (slot < slots && joints[slot] != list[i].joint) {
            slot++;
        }
        if (slot == slots) {
            joints[slots++] = (uint16_t)list[i].joint;
        }
        weights[slot] += weight;
        const float *correction = &s->corrections[16 * list[i].slot];
        for (int e = 0; e < 16; e++) {
            matrix[e] += weight * (s->correction_none[list[i].slot] ? (e % 5 == 0) : correction[e]);
        }
        *corrected = *corrected || !s->correction_none[list[i].slot];
    }
    return true;
}

/* Position, normal (false when it must be made from the faces) and uv of
 * vertex v through `m` (NULL: the file's values bit for bit). */
static bool copy_vertex(import_build *build, const import_scene_mesh *p, uint32_t v,
                        uint32_t out_vertex, const float *m) {
    crowd_mesh *out = &build->asset->mesh;
    float *position = &out->positions[3 * (size_t)out_vertex];
    memcpy(position, &p->positions[3 * (size_t)v], 3 * sizeof(float));
    if (m != NULL) {
        crowd__import_m4_point(m, position, position);
    }
    if (p->uv != NULL) {
        memcpy(&out->uv0[2 * (size_t)out_vertex], &p->uv[2 * (size_t)v], 2 * sizeof(float));
    }
    if (p->normals == NULL) {
        return false;
    }
    const float *n = &p->normals[3 * (size_t)v];
    if (!isfinite(n[0]) || !isfinite(n[1]) || !isfinite(n[2])) {
        return false;
    }
    float identity[16];
    crowd__import_m4_identity(identity);
    return crowd__import_m4_normal(m ? m : identity, n, &out->normals[3 * (size_t)out_vertex]);
}

/* Area-weighted face normals for the vertices in `missing`. */
static void make_normals(import_build *build, const import_scene_mesh *p, uint32_t base,
                         const bool *missing) {
    crowd_mesh *out = &build->asset->mesh;
    uint32_t count = 0;
    for (uint32_t v = 0; v < p->vertex_count; v++) {
        if (missing[v]) {
            memset(&out->normals[3 * ((size_t)base + v)], 0, 3 * sizeof(float));
            count++;
        }
    }
    if (count == 0) {
        return;
    }
    build->asset->repairs.normals_generated += count;
    for (uint32_t t = 0; t < p->index_count; t += 3) {
        const uint32_t *f = &p->indices[t];
        const float *a = &out->positions[3 * ((size_t)base + f[0])];
        const float *b = &out->positions[3 * ((size_t)base + f[1])];
        const float *c = &out->positions[3 * ((size_t)base + f[2])];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        for (int corner = 0; corner < 3; corner++) {
            for (int k = 0; k < 3 && missing[f[corner]]; k++) {
                out->normals[3 * ((size_t)base + f[corner]) + k] += n[k];
            }
        }
    }
    for (uint32_t v = 0; v < p->vertex_count; v++) {
        float *n = &out->normals[3 * ((size_t)base + v)];
        float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!missing[v]) {
            continue;
        }
        if (isfinite(length) && length > 1e-30f) {
            n[0] /= length;
            n[1] /= length;
            n[2] /= length;
        } else {
            /* A vertex on no triangle of non-zero area: any unit normal will do. */
            n[0] = 0.0f;
            n[1] = 1.0f;
            n[2] = 0.0f;
        }
    }
}

static crowd_result merge_mesh(import_build *build, const import_scene_mesh *p, uint32_t base) {
    crowd_asset *asset = build->asset;
    crowd_mesh *out = &asset->mesh;
    const import_scene_node *node = &build->scene->nodes[p->node];
    bool skinned = p->skin >= 0;
    uint32_t rigid_joint = 0;
    float rigid[16];
    if (build->static_only) {
        memcpy(rigid, node->global, sizeof rigid);
    } else if (node->joint >= 0) {
        rigid_joint = (uint32_t)node->joint;
        joint_bind(asset, rigid_joint, rigid);
    } else {
        crowd__import_m4_identity(rigid); /* a skinned mesh whose vertices all have weights */
    }
    if (!skinned && !build->static_only) {
        asset->repairs.static_meshes_rigid++;
    }
    skin_state skin = {0};
    bool *missing = malloc((size_t)p->vertex_count + 1);
    crowd_result result = missing != NULL ? CROWD_OK : out_of_memory(build->scene);
    if (result == CROWD_OK && skinned) {
        result = prepare_skin(build, p, &skin);
    }
    for (uint32_t v = 0; v < p->vertex_count && result == CROWD_OK; v++) {
        float matrix[16];
        bool corrected = false;
        const float *transform = rigid;
        if (skinned && skin_vertex(build, p, &skin, v, base + v, matrix, &corrected)) {
            if (corrected) {
                crowd__import_m4_mul(matrix, skin.bind, matrix);
                transform = matrix;
            } else {
                transform = skin.bind_identity ? NULL : skin.bind;
            }
        } else {
            asset->repairs.vertices_unweighted += skinned;
            out->joints[4 * ((size_t)base + v)] = (uint16_t)rigid_joint;
            out->weights[4 * ((size_t)base + v)] = 1.0f;
        }
        missing[v] = !copy_vertex(build, p, v, base + v, transform);
    }
    if (result == CROWD_OK) {
        make_normals(build, p, base, missing);
    }
    free(missing);
    free(skin.corrections);
    free(skin.correction_none);
    free(skin.joint_of);
    free(skin.list);
    return result;
}

static crowd_result allocate(import_build *build, uint64_t vertices, uint64_t indices) {
    crowd_mesh *out = &build->asset->mesh;
    uint32_t meshes = build->scene->mesh_count;
    size_t v = (size_t)vertices;
    out->vertex_count = (uint32_t)v;
    out->index_count = (uint32_t)indices;
    out->submesh_count = meshes;
    out->positions = malloc(3 * v * sizeof(float));
    out->normals = malloc(3 * v * sizeof(float));
    out->uv0 = calloc(2 * v, sizeof(float));
    out->joints = calloc(4 * v, sizeof(uint16_t));
    out->weights = calloc(4 * v, sizeof(float));
    out->indices = malloc((size_t)indices * sizeof(uint32_t));
    out->submeshes = calloc(meshes, sizeof(crowd_submesh));
    if (!out->positions || !out->normals || !out->uv0 || !out->joints || !out->weights ||
        !out->indices || !out->submeshes) {
        return out_of_memory(build->scene);
    }
    return CROWD_OK;
}

/* The scene's materials (in order of first use already) move into the asset. */
static void move_materials(import_build *build) {
    import_scene *scene = build->scene;
    build->asset->materials = scene->materials;
    build->asset->material_count = scene->material_count;
    scene->materials = NULL;
    scene->material_count = 0;
}

crowd_result crowd__import_build_mesh(import_build *build) {
    const import_scene *scene = build->scene;
    uint64_t vertices = 0, indices = 0;
    for (uint32_t m = 0; m < scene->mesh_count; m++) {
        vertices += scene->meshes[m].vertex_count;
        indices += scene->meshes[m].index_count;
    }
    if (vertices > MAX_VERTICES || indices > MAX_INDICES) {
        return crowd_error_set(scene->error, CROWD_ERROR_LIMIT, scene->file,
                               "more than %u vertices or %u indices in one character", MAX_VERTICES,
                               MAX_INDICES);
    }
    crowd_result result = allocate(build, vertices, indices);
    crowd_mesh *out = &build->asset->mesh;
    uint32_t base = 0, first = 0;
    for (uint32_t m = 0; m < scene->mesh_count && result == CROWD_OK; m++) {
        const import_scene_mesh *mesh = &scene->meshes[m];
        result = merge_mesh(build, mesh, base);
        for (uint32_t i = 0; i < mesh->index_count; i++) {
            out->indices[first + i] = base + mesh->indices[i];
        }
        out->submeshes[m] = (crowd_submesh){first, mesh->index_count, mesh->material};
        base += mesh->vertex_count;
        first += mesh->index_count;
    }
    build->asset->source_mesh_count = scene->mesh_count;
    if (result == CROWD_OK) {
        move_materials(build);
    }
    return result;
}
