/* import_bind_pose.c - test_import_bind: the bind mesh is where the skin
 * puts the character in the file's rest pose, in every format.
 *
 * For each real skinned character: the rest pose run through the whole
 * pipeline (crowd_anim_rest_pose, local_to_model, skin_matrices,
 * crowd_skin_reference) must give back the bind positions within 1e-5 of
 * the bind bounds diagonal, and the skinning matrices must be identity,
 * wherever the file's rest pose is its bind pose; and every clip, at 9
 * times across it, must stay near the bind mesh (posed bounds diagonal at
 * most 3 bind diagonals, no vertex more than one bind diagonal outside the
 * bind bounds). assimp's offset matrices fold in different placements per
 * format (FBX and Half-Life MDL: the mesh node's world transform; .X: none;
 * glTF: whatever the inverse bind matrices hold), and a bind mesh taken
 * without its placement is skinned into another size or orientation:
 * animation_with_skeleton.fbx came out 121 x 100 x 100 times too large and
 * turned 90 degrees, RiggedFigure.glb lying on its back.
 *
 * Why each file's rest pose is its bind pose (or where it is not) is in the
 * table; figures from the files themselves are noted beside the goldens.
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "crowd/anim.h"
#include "crowd/import.h"
#include "crowd/skin.h"

enum { TIMES_PER_CLIP = 9 };

typedef struct bind_case {
    const char *file;
    int shared; /* 1: ../shared/models, 0: assimp-testmodels */
    /* Joints whose rest transform is not their bind transform; they and
     * their descendants are left out of the rest-pose checks. */
    const char *moved;
} bind_case;

static const bind_case cases[] = {
    /* Blender FBX. Every Deformer Cluster's TransformLink (the bone's bind
     * transform) equals its Model's Lcl chain except Bone.005's: Lcl
     * Rotation z 37.06 degrees, bind -0.93 degrees relative to Bone.004.
     * Its mesh sits under the Cube node (Lcl Scaling 121.366 100 100,
     * Rotation -90 about x), which the cluster offsets include. */
    {"FBX/animation_with_skeleton.fbx", 0, "Bone.005"},
    /* Blender FBX: every TransformLink matches the Lcl chain (Bone.004,
     * .005, .006 bound at 2.95, 4.85, -1.32 degrees about z, their Lcl
     * Rotations); the Cylinder node (scale 100, -90 about x) is in the
     * offsets. */
    {"FBX/huesitos.fbx", 0, NULL},
    /* DirectX .X: each SkinWeights matrixOffset is the inverse of its
     * frame's rest world transform (to 2e-6); the mesh frame's own -90
     * degree turn is not in them. */
    {"X/Testwuson.X", 0, NULL},
    {"X/BCN_Epileptic.X", 0, NULL},
    /* Half-Life MDL: vertices are stored in bone space and bound in the
     * bones' default pose, which assimp makes the rest pose. */
    {"MDL/MDL (HL1)/man.mdl", 0, NULL},
    /* glTF: inverse bind matrix x rest world transform is the same for
     * every joint: translate(-0.5, 0, 0) in the glTF tutorial's
     * simple_skin, the mesh node's -90 degree turn in RiggedFigure,
     * identity in robot and greenman. */
    {"glTF2/simple_skin/simple_skin.gltf", 0, NULL},
    {"RiggedFigure.glb", 1, NULL},
    {"robot.glb", 1, NULL},
    {"greenman.glb", 1, NULL},
};

typedef struct bounds {
    float lo[3], hi[3];
} bounds;

static bounds bounds_of(const float *positions, uint32_t count) {
    bounds b = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (uint32_t v = 0; v < count; v++) {
        for (int c = 0; c < 3; c++) {
            b.lo[c] = fminf(b.lo[c], positions[3 * v + c]);
            b.hi[c] = fmaxf(b.hi[c], positions[3 * v + c]);
        }
    }
    return b;
}

static double diagonal(const bounds *b) {
    double d = 0.0;
    for (int c = 0; c < 3; c++) {
        d += ((double)b->hi[c] - b->lo[c]) * ((double)b->hi[c] - b->lo[c]);
    }
    return sqrt(d);
}

/* How far the point is outside the box (0 inside). */
static double outside(const bounds *b, const float *p) {
    double d = 0.0;
    for (int c = 0; c < 3; c++) {
        double o = p[c] < b->lo[c] ? b->lo[c] - p[c] : (p[c] > b->hi[c] ? p[c] - b->hi[c] : 0.0);
        d += o * o;
    }
    return sqrt(d);
}

/* moved[j]: joint j is case->moved or below it. */
static bool *moved_joints(const crowd_asset *asset, const char *name) {
    const crowd_skeleton *sk = &asset->skeleton;
    bool *moved = calloc(sk->joint_count, sizeof *moved);
    int32_t first = name ? crowd_asset_find_joint(asset, name) : -1;
    CHECK_MSG(name == NULL || first >= 0, "%s: no joint %s", asset->source, name);
    for (uint32_t j = 0; moved != NULL && j < sk->joint_count; j++) {
        moved[j] = (int32_t)j == first || (sk->parents[j] >= 0 && moved[sk->parents[j]]);
    }
    return moved;
}

static bool vertex_moved(const crowd_mesh *mesh, const bool *moved, uint32_t v) {
    for (int k = 0; k < 4; k++) {
        if (mesh->weights[4 * v + k] > 0.0f && moved[mesh->joints[4 * v + k]]) {
            return true;
        }
    }
    return false;
}

typedef struct work {
    crowd_transform *pose;
    float *models, *skin, *positions;
} work;

static void skin_pose(const crowd_asset *asset, work *w) {
    crowd_anim_local_to_model(&asset->skeleton, w->pose, w->models);
    crowd_anim_skin_matrices(&asset->skeleton, w->models, NULL, w->skin);
    crowd_skin_reference(&asset->mesh, w->skin, w->positions, NULL, NULL);
}

static void check_rest(const bind_case *c, const crowd_asset *asset, work *w, double diag) {
    const crowd_mesh *mesh = &asset->mesh;
    const crowd_skeleton *sk = &asset->skeleton;
    bool *moved = moved_joints(asset, c->moved);
    if (moved == NULL) {
        CHECK(moved != NULL);
        return;
    }
    crowd_anim_rest_pose(sk, w->pose);
    skin_pose(asset, w);
    double worst_linear = 0.0, worst_translation = 0.0;
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        if (moved[j]) {
            continue;
        }
        for (int r = 0; r < 3; r++) {
            for (int col = 0; col < 3; col++) {
                double expected = r == col ? 1.0 : 0.0;
                worst_linear = fmax(worst_linear, fabs(w->skin[12 * j + 4 * r + col] - expected));
            }
            worst_translation = fmax(worst_translation, fabs(w->skin[12 * j + 4 * r + 3]));
        }
    }
    double worst = 0.0, worst_moved = 0.0;
    uint32_t moved_count = 0;
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        double d = 0.0;
        for (int a = 0; a < 3; a++) {
            d = fmax(d, fabs(w->positions[3 * v + a] - mesh->positions[3 * v + a]));
        }
        if (vertex_moved(mesh, moved, v)) {
            moved_count++;
            worst_moved = fmax(worst_moved, d);
        } else {
            worst = fmax(worst, d);
        }
    }
    printf("  rest pose: skinning matrices off identity by %.2g (linear), %.2g of the diagonal "
           "(translation); vertices off bind by %.2g of the diagonal",
           worst_linear, worst_translation / diag, worst / diag);
    if (c->moved != NULL) {
        printf("; %u vertices on %s and below move by up to %.2g", moved_count, c->moved,
               worst_moved / diag);
    }
    printf("\n");
    CHECK_MSG(worst_linear <= 1e-4, "%s: rest skinning matrix linear part off identity by %g",
              c->file, worst_linear);
    CHECK_MSG(worst_translation <= 1e-5 * diag,
              "%s: rest skinning matrix translation %g (diagonal %g)", c->file, worst_translation,
              diag);
    CHECK_MSG(worst <= 1e-5 * diag,
              "%s: rest pose puts vertices %g from their bind positions "
              "(diagonal %g)",
              c->file, worst, diag);
    /* The rest transform that differs from the bind one is really there. */
    CHECK_MSG(c->moved == NULL || (moved_count > 0 && worst_moved > 1e-2 * diag),
              "%s: %u vertices on %s, moved by %g", c->file, moved_count, c->moved, worst_moved);
    free(moved);
}

static void check_clips(const bind_case *c, const crowd_asset *asset, work *w, const bounds *bind,
                        double diag) {
    double worst_ratio = 0.0, worst_outside = 0.0;
    for (uint32_t k = 0; k < asset->clip_count; k++) {
        const crowd_clip *clip = &asset->clips[k];
        for (int i = 0; i < TIMES_PER_CLIP; i++) {
            float time_s = clip->duration_s * (float)i / (TIMES_PER_CLIP - 1);
            crowd_anim_sample(&asset->skeleton, clip, time_s, NULL, w->pose);
            skin_pose(asset, w);
            bounds posed = bounds_of(w->positions, asset->mesh.vertex_count);
            double ratio = diagonal(&posed) / diag, far = 0.0;
            for (uint32_t v = 0; v < asset->mesh.vertex_count; v++) {
                far = fmax(far, outside(bind, &w->positions[3 * v]) / diag);
            }
            CHECK_MSG(ratio <= 3.0 && far <= 1.0,
                      "%s %s at %.3f s: posed diagonal %.3g bind diagonals, a vertex %.3g "
                      "diagonals outside the bind bounds",
                      c->file, clip->name, (double)time_s, ratio, far);
            worst_ratio = fmax(worst_ratio, ratio);
            worst_outside = fmax(worst_outside, far);
        }
    }
    printf("  %u clips x %d times: posed diagonal up to %.3g bind diagonals, vertices up to %.3g "
           "diagonals outside the bind bounds\n",
           asset->clip_count, TIMES_PER_CLIP, worst_ratio, worst_outside);
}

static void check_case(const bind_case *c) {
    const char *path = c->shared ? check_shared_model(c->file) : check_assimp_model(c->file);
    if (path == NULL) {
        return;
    }
    crowd_asset *asset = NULL;
    crowd_error error;
    crowd_result result = crowd_import_file(path, NULL, &asset, &error);
    CHECK_MSG(result == CROWD_OK, "%s: %s", c->file, error.reason);
    if (result != CROWD_OK) {
        return;
    }
    CHECK(asset->has_skin);
    const crowd_mesh *mesh = &asset->mesh;
    uint32_t joints = asset->skeleton.joint_count;
    bounds bind = bounds_of(mesh->positions, mesh->vertex_count);
    double diag = diagonal(&bind);
    printf("%s: %u vertices, %u joints, bind bounds (%.4g %.4g %.4g) .. (%.4g %.4g %.4g)\n",
           c->file, mesh->vertex_count, joints, bind.lo[0], bind.lo[1], bind.lo[2], bind.hi[0],
           bind.hi[1], bind.hi[2]);
    work w;
    w.pose = malloc(joints * sizeof *w.pose);
    w.models = malloc(16 * sizeof(float) * joints);
    w.skin = malloc(12 * sizeof(float) * joints);
    w.positions = malloc(3 * sizeof(float) * mesh->vertex_count);
    if (w.pose && w.models && w.skin && w.positions) {
        check_rest(c, asset, &w, diag);
        check_clips(c, asset, &w, &bind, diag);
    } else {
        CHECK(!"out of memory");
    }
    free(w.pose);
    free(w.models);
    free(w.skin);
    free(w.positions);
    crowd_asset_destroy(asset);
}

/* The asset of an assimp test model; NULL when absent (skipped) or when the
 * import fails (a failed check). `scale` as crowd_import_desc.scale. */
static crowd_asset *import_assimp_model(const char *file, float scale) {
    const char *path = check_assimp_model(file);
    crowd_asset *asset = NULL;
    crowd_error error;
    crowd_import_desc desc = {.scale = scale};
    if (path != NULL) {
        crowd_result result = crowd_import_file(path, &desc, &asset, &error);
        CHECK_MSG(result == CROWD_OK, "%s: %s", file, error.reason);
    }
    return asset;
}

/* Bounds `lo`..`hi` in the file's units times `scale`. */
static void check_bounds(const crowd_asset *asset, const float lo[3], const float hi[3],
                         float scale, float tolerance) {
    float min[3], max[3];
    crowd_asset_bind_bounds(asset, min, max);
    for (int c = 0; c < 3; c++) {
        CHECK_NEAR(min[c], lo[c] * scale, tolerance * scale);
        CHECK_NEAR(max[c], hi[c] * scale, tolerance * scale);
    }
}

/* One FBX file's bind bounds in centimetres: converted to metres (its
 * UnitScaleFactor is 1, centimetres per unit), and kept as they are when
 * crowd_import_desc.scale says the unit is 1 m. */
static void check_fbx_file(const char *file, const float lo[3], const float hi[3]) {
    crowd_asset *asset = import_assimp_model(file, 0.0f);
    if (asset != NULL) {
        check_bounds(asset, lo, hi, 0.01f, 0.01f);
        CHECK(asset->unit_scale == 0.01f && asset->repairs.units_converted == 1);
        crowd_asset_destroy(asset);
    }
    asset = import_assimp_model(file, 1.0f);
    if (asset != NULL) {
        check_bounds(asset, lo, hi, 1.0f, 0.01f);
        CHECK(asset->unit_scale == 1.0f && asset->repairs.units_converted == 0);
        crowd_asset_destroy(asset);
    }
}

/* The FBX bind meshes in the file's own units (centimetres), placed by
 * their mesh node: Geometry "Vertices" through the Model's Lcl Scaling,
 * Rotation (x, then y, then z) and Translation, from the binary node
 * records: animation_with_skeleton's Cube has x in +-29.3375, y and z in
 * +-0.91667, scale (121.366, 100, 100), rotation (-90, 0, 0), translation
 * (-81.441, 0, 0). */
static void check_fbx_bounds(void) {
    static const float lo[3] = {-3642.0142f, -91.6667f, -91.6667f};
    static const float hi[3] = {3479.1324f, 91.6667f, 91.6667f};
    check_fbx_file("FBX/animation_with_skeleton.fbx", lo, hi);
    /* huesitos' Cylinder: x in [-1.0234, 4.3343], y in [-1.0234, 2.1919],
     * z in [-1.2562, 4.1822]; scale (100, 99.99998, 100), rotation (-90, 0,
     * 0), translation (-3.4991, 125.9684, -309.6722). */
    static const float huesitos_lo[3] = {-105.8415f, 0.3491f, -528.8649f};
    static const float huesitos_hi[3] = {429.9308f, 544.1864f, -207.3299f};
    check_fbx_file("FBX/huesitos.fbx", huesitos_lo, huesitos_hi);
}

/* man.mdl's bone table (mstudiobone_t parent fields): Root -1, Pelvis 0,
 * RightLeg 1, LeftLeg 1, Spine 1, RightArm 4, LeftArm 4, Neck 4. assimp 5.2
 * lists all eight under "<MDL_bones>" and keeps the true parent only in
 * aiNode::mParent (assimp issue #5002); the skeleton must follow the
 * latter. */
static void check_mdl_hierarchy(void) {
    crowd_asset *asset = import_assimp_model("MDL/MDL (HL1)/man.mdl", 0.0f);
    if (asset == NULL) {
        return;
    }
    static const char *const bones[8][2] = {
        {"Root", NULL},      {"Pelvis", "Root"},    {"RightLeg", "Pelvis"}, {"LeftLeg", "Pelvis"},
        {"Spine", "Pelvis"}, {"RightArm", "Spine"}, {"LeftArm", "Spine"},   {"Neck", "Spine"},
    };
    for (int b = 0; b < 8; b++) {
        int32_t joint = crowd_asset_find_joint(asset, bones[b][0]);
        int32_t parent = bones[b][1] ? crowd_asset_find_joint(asset, bones[b][1]) : -1;
        CHECK_MSG(joint >= 0 && asset->skeleton.parents[joint] == parent, "%s: parent %d, want %s",
                  bones[b][0], joint >= 0 ? asset->skeleton.parents[joint] : -2,
                  bones[b][1] ? bones[b][1] : "none");
    }
    crowd_asset_destroy(asset);
}

int main(void) {
    check_enter_temp_dir("import_bind_pose");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_case(&cases[i]);
    }
    check_fbx_bounds();
    check_mdl_hierarchy();
    return check_finish();
}
