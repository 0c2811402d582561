/* import_bind.c - where a skinned mesh sat when its skin was bound.
 *
 * assimp gives a skinned vertex v in its mesh's space and, per bone, an
 * offset matrix; every format's skinned position is then
 * model(bone) * offset(bone) * v, whatever the mesh's own node says. What
 * the offset folds in differs by format: FBX and Half-Life MDL include the
 * mesh node's world transform (offset = bind(bone)^-1 * world(mesh node)),
 * DirectX .X and most glTF files do not (offset = bind(bone)^-1), and a
 * glTF file may bake any placement into its inverse bind matrices
 * (RiggedFigure.glb: its mesh node's rotation; the glTF tutorial's
 * simple_skin: a shift). So the placement B that puts the mesh where its
 * skin binds it is read from the data, not from the format: each bone whose
 * rest transform is its bind transform has model_rest(bone) * offset(bone)
 * = B. B is the candidate most of the skin weight agrees with: identity,
 * the world transform of the mesh's node, or one of those products. Two
 * placements agree when they put the corners of the mesh's bounding box
 * within a thousandth of its placed size of each other (a tolerance on the
 * mesh, not on matrix elements, so a mesh far from the origin is judged
 * as strictly as one at it). Bones whose rest transform differs from their
 * bind transform (the file was saved in another pose) disagree and are
 * outvoted.
 *
 * The importer then stores B * v as the bind position and offset * B^-1 as
 * the joint's inverse bind, which leaves every skinned position unchanged
 * and makes the rest pose reproduce the bind mesh.
 */
#include <math.h>
#include <string.h>

#include "import/assimp/import_internal.h"
#include "import/scene/import_math.h"

/* Identity, the node's world transform and a few distinct bone products
 * cover real files; a hostile file with thousands of different products
 * costs no more than this many comparisons per bone. */
#define BIND_CANDIDATES 16
/* Placements agree within this fraction of the placed mesh's size, plus
 * float rounding of the placed coordinates. */
#define BIND_TOLERANCE 1e-3f
#define BIND_ROUNDING 1e-6f

/* The mesh's bounding box placed by a matrix: its 8 corners, the length of
 * its diagonal and its largest coordinate. */
typedef struct placed_box {
    float corner[8][3];
    float size, magnitude;
} placed_box;

typedef struct bind_vote {
    float lo[3], hi[3]; /* the mesh's own bounding box */
    float matrix[BIND_CANDIDATES][16];
    placed_box placed[BIND_CANDIDATES];
    double support[BIND_CANDIDATES];
    uint32_t count;
} bind_vote;

static void mesh_box(const struct aiMesh *mesh, float lo[3], float hi[3]) {
    bool any = false;
    for (uint32_t v = 0; v < mesh->mNumVertices && mesh->mVertices != NULL; v++) {
        const float p[3] = {mesh->mVertices[v].x, mesh->mVertices[v].y, mesh->mVertices[v].z};
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
            continue;
        }
        for (int c = 0; c < 3; c++) {
            lo[c] = any ? fminf(lo[c], p[c]) : p[c];
            hi[c] = any ? fmaxf(hi[c], p[c]) : p[c];
        }
        any = true;
    }
    if (!any) {
        memset(lo, 0, 3 * sizeof *lo);
        memset(hi, 0, 3 * sizeof *hi);
    }
}

static void place_box(const bind_vote *vote, const float m[16], placed_box *out) {
    out->magnitude = 0.0f;
    for (int k = 0; k < 8; k++) {
        const float p[3] = {k & 1 ? vote->hi[0] : vote->lo[0], k & 2 ? vote->hi[1] : vote->lo[1],
                            k & 4 ? vote->hi[2] : vote->lo[2]};
        import_m4_point(m, p, out->corner[k]);
        for (int c = 0; c < 3; c++) {
            out->magnitude = fmaxf(out->magnitude, fabsf(out->corner[k][c]));
        }
    }
    /* Corners 0 and 7 are the box's lo and hi. */
    float d[3];
    for (int c = 0; c < 3; c++) {
        d[c] = out->corner[7][c] - out->corner[0][c];
    }
    out->size = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static bool agree(const placed_box *a, const placed_box *b) {
    float tolerance = BIND_TOLERANCE * fmaxf(a->size, b->size) +
                      BIND_ROUNDING * fmaxf(a->magnitude, b->magnitude);
    for (int k = 0; k < 8; k++) {
        for (int c = 0; c < 3; c++) {
            if (!(fabsf(a->corner[k][c] - b->corner[k][c]) <= tolerance)) {
                return false;
            }
        }
    }
    return true;
}

/* Adds `m` as a candidate unless it is singular, not finite, already there
 * or the list is full. */
static void propose(bind_vote *vote, const float m[16]) {
    float inverse[16];
    if (vote->count == BIND_CANDIDATES || !import_m4_invert(m, inverse)) {
        return;
    }
    placed_box placed;
    place_box(vote, m, &placed);
    for (uint32_t c = 0; c < vote->count; c++) {
        if (agree(&vote->placed[c], &placed)) {
            return;
        }
    }
    memcpy(vote->matrix[vote->count], m, 16 * sizeof(float));
    vote->placed[vote->count++] = placed;
}

/* Sum of the bone's usable weights (0 for a bone that weights nothing). */
static double bone_weight(const struct aiBone *bone) {
    double total = 0.0;
    for (uint32_t w = 0; w < bone->mNumWeights && bone->mWeights != NULL; w++) {
        float weight = bone->mWeights[w].mWeight;
        if (isfinite(weight) && weight > 0.0f) {
            total += weight;
        }
    }
    return total;
}

/* model_rest(bone) * offset(bone) into `out`; false when the bone has no
 * joint, weights nothing or gives no finite product. */
static bool bone_product(const import_context *ctx, const struct aiBone *bone, float out[16]) {
    if (bone == NULL || bone_weight(bone) <= 0.0) {
        return false;
    }
    int32_t node = import_bone_node(ctx, bone);
    if (node < 0 || ctx->nodes[node].joint < 0) {
        return false;
    }
    float offset[16];
    import_m4_from_ai(&bone->mOffsetMatrix, offset);
    if (!import_m4_is_finite(offset)) {
        return false;
    }
    import_m4_mul(&ctx->joint_global[16 * ctx->nodes[node].joint], offset, out);
    return import_m4_is_finite(out);
}

bool import_mesh_bind(const import_context *ctx, uint32_t node, const struct aiMesh *mesh,
                      float bind[16], float bind_inverse[16]) {
    bind_vote vote;
    vote.count = 0;
    mesh_box(mesh, vote.lo, vote.hi);
    float identity[16];
    import_m4_identity(identity);
    propose(&vote, identity);
    propose(&vote, ctx->nodes[node].global);
    uint32_t bone_count = mesh->mBones != NULL ? mesh->mNumBones : 0;
    float product[16];
    for (uint32_t b = 0; b < bone_count; b++) {
        if (bone_product(ctx, mesh->mBones[b], product)) {
            propose(&vote, product);
        }
    }
    memset(vote.support, 0, sizeof vote.support);
    for (uint32_t b = 0; b < bone_count; b++) {
        if (!bone_product(ctx, mesh->mBones[b], product)) {
            continue;
        }
        double weight = bone_weight(mesh->mBones[b]);
        placed_box placed;
        place_box(&vote, product, &placed);
        for (uint32_t c = 0; c < vote.count; c++) {
            if (agree(&vote.placed[c], &placed)) {
                vote.support[c] += weight;
            }
        }
    }
    /* Ties go to the earlier candidate: identity, then the node. */
    uint32_t best = 0;
    for (uint32_t c = 1; c < vote.count; c++) {
        if (vote.support[c] > vote.support[best]) {
            best = c;
        }
    }
    memcpy(bind, vote.matrix[best], 16 * sizeof(float));
    import_m4_invert(bind, bind_inverse);
    return best == 0;
}
