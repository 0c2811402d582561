/* gltf_merge.c - every primitive of the scene merged into the asset's one
 * mesh, one submesh each.
 *
 * Positions end up in bind space: skinning a vertex with model[j] *
 * inverse_bind[j] must give where the file puts it. With B a skinned
 * primitive's bind placement (gltf_bind.c), its skin's placed inverse binds
 * are inverse_bind_k * B^-1, so
 *   - a skinned vertex becomes p = B * v, unless a joint's placed inverse
 *     bind differs from the one the joint kept (two skins bind it
 *     differently): then p = sum_k w_k * inverse(inverse_bind[j_k]) *
 *     placed_k * B * v;
 *   - a static vertex (and a skinned vertex without any weight) is rigid on
 *     its node's joint: p = inverse(inverse_bind[node]) * v, which is the
 *     node's rest model matrix when the joint is no skin joint; in a file
 *     with neither skin nor animation, the node's transform baked in.
 * Influences: the 4 largest kept (counted), weights renormalized (counted
 * when they did not sum to 1), one slot per joint. Normals go through the
 * same matrix; missing, zero or non-finite ones are made from the faces
 * (area-weighted, counted).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/asset.h"
#include "import/gltf/gltf_internal.h"
#include "import/scene/import_math.h"

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

/* What merging one skinned primitive needs besides the primitive. */
typedef struct skin_state {
    float bind[16];
    bool bind_identity;
    float *corrections;    /* 16 per skin joint: inverse(inverse_bind[j]) * placed */
    bool *correction_none; /* per skin joint */
} skin_state;

static void joint_bind(const gltf_import *imp, uint32_t joint, float out[16]) {
    if (!import_m4_invert(&imp->asset->skeleton.inverse_bind[16 * joint], out)) {
        import_m4_identity(out);
    }
}

static crowd_result prepare_skin(gltf_import *imp, const gltf_primitive *p, skin_state *s) {
    const gltf_skin *skin = &imp->skins[imp->nodes[p->node].skin];
    float bind_inverse[16];
    s->bind_identity = gltf_bind_placement(imp, p, s->bind, bind_inverse);
    s->corrections = malloc(((size_t)skin->joint_count * 16 + 1) * sizeof *s->corrections);
    s->correction_none = malloc((skin->joint_count + 1) * sizeof *s->correction_none);
    if (s->corrections == NULL || s->correction_none == NULL) {
        return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    for (uint32_t k = 0; k < skin->joint_count; k++) {
        uint32_t joint = (uint32_t)imp->nodes[skin->joints[k]].joint;
        float placed[16], bind[16], identity[16];
        memcpy(placed, &skin->inverse_binds[16 * k], sizeof placed);
        if (!s->bind_identity) {
            import_m4_mul(placed, bind_inverse, placed);
        }
        const float *kept = &imp->asset->skeleton.inverse_bind[16 * joint];
        s->correction_none[k] = memcmp(placed, kept, sizeof placed) == 0;
        if (!s->correction_none[k]) {
            joint_bind(imp, joint, bind);
            import_m4_mul(bind, placed, &s->corrections[16 * k]);
            import_m4_identity(identity);
            s->correction_none[k] = import_m4_near(&s->corrections[16 * k], identity, 1e-5f);
        }
    }
    return CROWD_OK;
}

/* Joints and weights of skinned vertex v into out_vertex; false when it has
 * no weight. *matrix is the blend of the kept joints' corrections (NULL
 * when they are all none). */
static bool skin_vertex(gltf_import *imp, const gltf_primitive *p, const skin_state *s, uint32_t v,
                        uint32_t out_vertex, float matrix[16], bool *corrected) {
    const gltf_skin *skin = &imp->skins[imp->nodes[p->node].skin];
    influence list[4 * 8];
    uint32_t count = 0;
    float total = 0.0f;
    for (uint32_t i = 0; i < p->influence_count; i++) {
        size_t at = (size_t)v * p->influence_count + i;
        if (p->weights[at] > 0.0f) {
            uint32_t slot = p->joints[at];
            list[count++] =
                (influence){(uint32_t)imp->nodes[skin->joints[slot]].joint, slot, p->weights[at]};
            total += p->weights[at];
        }
    }
    if (count == 0) {
        return false;
    }
    for (uint32_t i = 1; i < count; i++) {
        influence key = list[i];
        uint32_t j = i;
        for (; j > 0 && list[j - 1].weight < key.weight; j--) {
            list[j] = list[j - 1];
        }
        list[j] = key;
    }
    crowd_repairs *repairs = &imp->asset->repairs;
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
    crowd_mesh *out = &imp->asset->mesh;
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
static bool copy_vertex(gltf_import *imp, const gltf_primitive *p, uint32_t v, uint32_t out_vertex,
                        const float *m) {
    crowd_mesh *out = &imp->asset->mesh;
    float *position = &out->positions[3 * (size_t)out_vertex];
    memcpy(position, &p->positions[3 * (size_t)v], 3 * sizeof(float));
    if (m != NULL) {
        import_m4_point(m, position, position);
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
    import_m4_identity(identity);
    return import_m4_normal(m ? m : identity, n, &out->normals[3 * (size_t)out_vertex]);
}

/* Area-weighted face normals for the vertices in `missing`. */
static void make_normals(gltf_import *imp, const gltf_primitive *p, uint32_t base,
                         const bool *missing) {
    crowd_mesh *out = &imp->asset->mesh;
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
    imp->asset->repairs.normals_generated += count;
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

static crowd_result merge_primitive(gltf_import *imp, const gltf_primitive *p, uint32_t base) {
    crowd_mesh *out = &imp->asset->mesh;
    const gltf_node *node = &imp->nodes[p->node];
    uint32_t rigid_joint = 0;
    float rigid[16];
    if (imp->static_only) {
        memcpy(rigid, node->global, sizeof rigid);
    } else if (node->joint >= 0) {
        rigid_joint = (uint32_t)node->joint;
        joint_bind(imp, rigid_joint, rigid);
    } else {
        import_m4_identity(rigid); /* a skinned primitive whose vertices all have weights */
    }
    if (!p->skinned && !imp->static_only) {
        imp->asset->repairs.static_meshes_rigid++;
    }
    skin_state skin = {0};
    bool *missing = malloc((size_t)p->vertex_count + 1);
    crowd_result result = missing != NULL ? CROWD_OK
                                          : crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY,
                                                            imp->file, "out of memory");
    if (result == CROWD_OK && p->skinned) {
        result = prepare_skin(imp, p, &skin);
    }
    for (uint32_t v = 0; v < p->vertex_count && result == CROWD_OK; v++) {
        float matrix[16];
        bool corrected = false;
        const float *transform = rigid;
        if (p->skinned && skin_vertex(imp, p, &skin, v, base + v, matrix, &corrected)) {
            if (corrected) {
                import_m4_mul(matrix, skin.bind, matrix);
                transform = matrix;
            } else {
                transform = skin.bind_identity ? NULL : skin.bind;
            }
        } else {
            imp->asset->repairs.vertices_unweighted += p->skinned;
            out->joints[4 * ((size_t)base + v)] = (uint16_t)rigid_joint;
            out->weights[4 * ((size_t)base + v)] = 1.0f;
        }
        missing[v] = !copy_vertex(imp, p, v, base + v, transform);
    }
    if (result == CROWD_OK) {
        make_normals(imp, p, base, missing);
    }
    free(missing);
    free(skin.corrections);
    free(skin.correction_none);
    return result;
}

/* Asset material of every primitive, in order of first use; the file's
 * material index per asset material into *out_file_material. */
static crowd_result list_materials(gltf_import *imp, uint32_t *material_of, int32_t **out_file,
                                   uint32_t *out_count) {
    uint32_t file_count = imp->doc->lists[GLTF_MATERIALS].count;
    uint32_t *slot_of = calloc((size_t)file_count + 2, sizeof *slot_of);
    int32_t *file_material = malloc(((size_t)file_count + 2) * sizeof *file_material);
    if (slot_of == NULL || file_material == NULL) {
        free(slot_of);
        free(file_material);
        return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    uint32_t count = 0;
    for (uint32_t p = 0; p < imp->primitive_count; p++) {
        int32_t m = imp->primitives[p].material;
        uint32_t key = m >= 0 ? (uint32_t)m : file_count;
        if (slot_of[key] == 0) {
            file_material[count] = m;
            slot_of[key] = ++count;
        }
        material_of[p] = slot_of[key] - 1;
    }
    free(slot_of);
    *out_file = file_material;
    *out_count = count;
    return CROWD_OK;
}

static crowd_result allocate(gltf_import *imp, uint64_t vertices, uint64_t indices) {
    crowd_mesh *out = &imp->asset->mesh;
    size_t v = (size_t)vertices;
    out->vertex_count = (uint32_t)v;
    out->index_count = (uint32_t)indices;
    out->submesh_count = imp->primitive_count;
    out->positions = malloc(3 * v * sizeof(float));
    out->normals = malloc(3 * v * sizeof(float));
    out->uv0 = calloc(2 * v, sizeof(float));
    out->joints = calloc(4 * v, sizeof(uint16_t));
    out->weights = calloc(4 * v, sizeof(float));
    out->indices = malloc((size_t)indices * sizeof(uint32_t));
    out->submeshes = calloc(imp->primitive_count, sizeof(crowd_submesh));
    if (!out->positions || !out->normals || !out->uv0 || !out->joints || !out->weights ||
        !out->indices || !out->submeshes) {
        return crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory");
    }
    return CROWD_OK;
}

crowd_result gltf_mesh_build(gltf_import *imp) {
    uint64_t vertices = 0, indices = 0;
    for (uint32_t p = 0; p < imp->primitive_count; p++) {
        vertices += imp->primitives[p].vertex_count;
        indices += imp->primitives[p].index_count;
    }
    if (vertices > MAX_VERTICES || indices > MAX_INDICES) {
        return crowd_error_set(imp->error, CROWD_ERROR_LIMIT, imp->file,
                               "more than %u vertices or %u indices in one character", MAX_VERTICES,
                               MAX_INDICES);
    }
    uint32_t *material_of = malloc(((size_t)imp->primitive_count + 1) * sizeof *material_of);
    int32_t *file_material = NULL;
    uint32_t material_count = 0;
    crowd_result result =
        material_of == NULL
            ? crowd_error_set(imp->error, CROWD_ERROR_OUT_OF_MEMORY, imp->file, "out of memory")
            : list_materials(imp, material_of, &file_material, &material_count);
    if (result == CROWD_OK) {
        result = allocate(imp, vertices, indices);
    }
    crowd_mesh *out = &imp->asset->mesh;
    uint32_t base = 0, first = 0;
    for (uint32_t p = 0; p < imp->primitive_count && result == CROWD_OK; p++) {
        const gltf_primitive *primitive = &imp->primitives[p];
        result = merge_primitive(imp, primitive, base);
        for (uint32_t i = 0; i < primitive->index_count; i++) {
            out->indices[first + i] = base + primitive->indices[i];
        }
        out->submeshes[p] = (crowd_submesh){first, primitive->index_count, material_of[p]};
        base += primitive->vertex_count;
        first += primitive->index_count;
    }
    imp->asset->source_mesh_count = imp->primitive_count;
    if (result == CROWD_OK) {
        result = gltf_materials_build(imp, file_material, material_count);
    }
    free(material_of);
    free(file_material);
    return result;
}
