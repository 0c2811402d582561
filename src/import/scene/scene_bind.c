/* scene_bind.c - where a skinned mesh sat when its skin was bound.
 *
 * Every format skins a vertex v as sum_k w_k * model(j_k) * inverse_bind(j_k)
 * * v, whatever the mesh's own node says (glTF says so; assimp's offset
 * matrices are inverse binds). What an inverse bind folds in differs by
 * format: FBX and Half-Life MDL include the mesh node's world transform,
 * DirectX .X and most glTF files do not, and a glTF file may bake any
 * placement into them (RiggedFigure.glb: its mesh node's rotation; the
 * glTF tutorial's simple_skin: a shift). So the placement is read from the
 * data, not from the format. The asset stores a bind mesh that the rest
 * pose reproduces: positions B * v and inverse binds inverse_bind * B^-1,
 * which leave every skinned position unchanged. B is what each joint whose
 * rest transform is its bind transform says: model_rest(j) *
 * inverse_bind(j). The candidates are identity, the node's transform and
 * those products; each joint votes with the weight it carries in the mesh
 * for the candidates it agrees with, and the heaviest wins (ties to the
 * earlier: identity, then the node). Two placements agree when they put
 * the corners of the mesh's bounding box within a thousandth of its placed
 * size of each other (a tolerance on the mesh, not on matrix elements, so
 * a mesh far from the origin is judged as strictly as one at it). Joints
 * saved in another pose than their bind pose disagree and are outvoted.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import/scene/import_math.h"
#include "import/scene/scene.h"

/* A few distinct products cover real files; a hostile one with thousands
 * costs no more than this many comparisons per joint. */
#define CANDIDATES 16
#define TOLERANCE 1e-3f
#define ROUNDING 1e-6f

/* A placement: the matrix, the box's 8 placed corners, their diagonal and
 * largest coordinate, and the weight that agrees with it. */
typedef struct placement {
    float matrix[16];
    float corner[8][3];
    float size, magnitude;
    double support;
} placement;

static void place(const float lo[3], const float hi[3], const float m[16], placement *out) {
    memcpy(out->matrix, m, sizeof out->matrix);
    out->magnitude = 0.0f;
    out->support = 0.0;
    for (int k = 0; k < 8; k++) {
        const float p[3] = {k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]};
        crowd__import_m4_point(m, p, out->corner[k]);
        for (int c = 0; c < 3; c++) {
            out->magnitude = fmaxf(out->magnitude, fabsf(out->corner[k][c]));
        }
    }
    float d2 = 0.0f;
    for (int c = 0; c < 3; c++) {
        float d = out->corner[7][c] - out->corner[0][c];
        d2 += d * d;
    }
    out->size = sqrtf(d2);
}

static bool agree(const placement *a, const placement *b) {
    float tolerance =
        TOLERANCE * fmaxf(a->size, b->size) + ROUNDING * fmaxf(a->magnitude, b->magnitude);
    for (int k = 0; k < 8; k++) {
        for (int c = 0; c < 3; c++) {
            if (!(fabsf(a->corner[k][c] - b->corner[k][c]) <= tolerance)) {
                return false;
            }
        }
    }
    return true;
}

/* Weight each skin joint carries in the mesh (calloc'ed), or NULL. */
static double *joint_weights(const import_scene_mesh *p, uint32_t joint_count) {
    double *weight = calloc((size_t)joint_count + 1, sizeof *weight);
    uint32_t count = p->influence_first[p->vertex_count];
    for (uint32_t i = 0; weight != NULL && i < count; i++) {
        weight[p->influence_joint[i]] += p->influence_weight[i];
    }
    return weight;
}

bool crowd__import_build_bind(const import_build *build, const import_scene_mesh *p, float bind[16],
                              float bind_inverse[16]) {
    const import_scene *scene = build->scene;
    const import_scene_node *node = &scene->nodes[p->node];
    const import_scene_skin *skin = &scene->skins[p->skin];
    float lo[3], hi[3];
    memcpy(lo, p->positions, sizeof lo);
    memcpy(hi, p->positions, sizeof hi);
    for (uint32_t v = 1; v < p->vertex_count; v++) {
        for (int c = 0; c < 3; c++) {
            lo[c] = fminf(lo[c], p->positions[3 * v + c]);
            hi[c] = fmaxf(hi[c], p->positions[3 * v + c]);
        }
    }
    placement candidates[CANDIDATES];
    uint32_t count = 0;
    float identity[16], product[16], inverse[16];
    crowd__import_m4_identity(identity);
    place(lo, hi, identity, &candidates[count++]);
    if (crowd__import_m4_invert(node->global, inverse)) {
        place(lo, hi, node->global, &candidates[count++]);
        count -= agree(&candidates[0], &candidates[1]);
    }
    double *weight = joint_weights(p, skin->joint_count);
    for (uint32_t pass = 0; pass < 2 && weight != NULL; pass++) {
        for (uint32_t k = 0; k < skin->joint_count; k++) {
            int32_t joint = skin->nodes[k] >= 0 ? scene->nodes[skin->nodes[k]].joint : -1;
            if (!(weight[k] > 0.0) || joint < 0) {
                continue;
            }
            crowd__import_m4_mul(&build->joint_global[16 * joint], &skin->inverse_binds[16 * k],
                                 product);
            if (!crowd__import_m4_is_finite(product)) {
                continue;
            }
            placement placed;
            place(lo, hi, product, &placed);
            bool known = false;
            for (uint32_t c = 0; c < count; c++) {
                bool same = agree(&candidates[c], &placed);
                known = known || same;
                /* The second pass counts the votes, over every candidate. */
                candidates[c].support += pass == 1 && same ? weight[k] : 0.0;
            }
            if (pass == 0 && !known && count < CANDIDATES &&
                crowd__import_m4_invert(product, inverse)) {
                candidates[count++] = placed;
            }
        }
    }
    free(weight);
    uint32_t best = 0;
    for (uint32_t c = 1; c < count; c++) {
        if (candidates[c].support > candidates[best].support) {
            best = c;
        }
    }
    memcpy(bind, candidates[best].matrix, 16 * sizeof(float));
    crowd__import_m4_invert(bind, bind_inverse);
    return best == 0;
}
