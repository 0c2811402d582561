/* Fast skinning against the reference on every real animated character the
 * project tests with: ../shared/models and Debian's assimp-testmodels. Each
 * clip is posed at 10 times through crowd/anim.h; every fast path must match
 * crowd_skin_reference() within 1e-5 of the posed mesh's bounds diagonal
 * for positions and 1e-5 for unit normals. (The posed bounds, because float
 * error scales with the values actually computed in each pose.) Also checks
 * the batch on the same poses. Models that are absent are skipped with a message. */
#include "check.h"
#include "crowd/anim.h"
#include "crowd/import.h"
#include "crowd/skin.h"
#include "skin_compare.h"

typedef struct model {
    const char *file;
    int shared; /* 1: ../shared/models, 0: assimp-testmodels */
} model;

static const model models[] = {
    {"robot.glb", 1},
    {"greenman.glb", 1},
    {"RiggedFigure.glb", 1},
    {"X/Testwuson.X", 0},
    {"X/BCN_Epileptic.X", 0},
    {"MDL/MDL (HL1)/man.mdl", 0},
    {"FBX/animation_with_skeleton.fbx", 0},
    {"glTF2/simple_skin/simple_skin.gltf", 0},
};

enum { TIMES_PER_CLIP = 10 };

static void check_model(const model *m) {
    const char *path = m->shared ? check_shared_model(m->file) : check_assimp_model(m->file);
    if (!path) {
        return;
    }
    crowd_asset *asset = NULL;
    crowd_error error;
    crowd_result result = crowd_import_file(path, NULL, &asset, &error);
    CHECK_MSG(result == CROWD_OK, "%s: %s", m->file, error.reason);
    if (result != CROWD_OK) {
        return;
    }
    const crowd_skeleton *skeleton = &asset->skeleton;
    const crowd_mesh *mesh = &asset->mesh;
    crowd_skin_prepared *prepared = NULL;
    CHECK(crowd_skin_prepared_create(mesh, &prepared, &error) == CROWD_OK);
    if (!prepared) {
        crowd_asset_destroy(asset);
        return;
    }
    CHECK(crowd_skin_prepared_joint_count(prepared) <= skeleton->joint_count);
    size_t n3 = 3 * (size_t)mesh->vertex_count;
    crowd_transform *pose = malloc(skeleton->joint_count * sizeof *pose);
    float *models_ws = malloc(16 * (size_t)skeleton->joint_count * sizeof(float));
    float *matrices = malloc(12 * (size_t)skeleton->joint_count * sizeof(float));
    float *ref_p = malloc(n3 * sizeof(float)), *ref_n = malloc(n3 * sizeof(float));
    float *p = malloc(n3 * sizeof(float)), *n = malloc(n3 * sizeof(float));
    /* Worst position error relative to that pose's diagonal, worst normal error. */
    float worst_p[CROWD_SKIN_PATH_COUNT] = {0}, worst_n[CROWD_SKIN_PATH_COUNT] = {0};
    float smallest_diagonal = INFINITY, largest_diagonal = 0.0f;
    /* A model without clips is still checked, in its rest pose. */
    uint32_t clip_count = asset->clip_count ? asset->clip_count : 1;
    uint32_t poses = 0;
    for (uint32_t c = 0; c < clip_count; c++) {
        const crowd_clip *clip = asset->clip_count ? &asset->clips[c] : NULL;
        for (int k = 0; k < (clip ? TIMES_PER_CLIP : 1); k++) {
            if (clip) {
                /* 10 times spread over the clip, its end included. */
                float t = clip->duration_s * (float)k / (TIMES_PER_CLIP - 1);
                crowd_anim_sample(skeleton, clip, t, NULL, pose);
            } else {
                crowd_anim_rest_pose(skeleton, pose);
            }
            crowd_anim_local_to_model(skeleton, pose, models_ws);
            crowd_anim_skin_matrices(skeleton, models_ws, NULL, matrices);
            crowd_skin_reference(mesh, matrices, ref_p, ref_n, NULL);
            float diagonal = compare_bounds_diagonal(ref_p, mesh->vertex_count);
            smallest_diagonal = fminf(smallest_diagonal, diagonal);
            largest_diagonal = fmaxf(largest_diagonal, diagonal);
            poses++;
            for (int s = CROWD_SKIN_PATH_SCALAR; s < CROWD_SKIN_PATH_COUNT; s++) {
                if (!crowd_skin_path_supported((crowd_skin_path)s)) {
                    continue;
                }
                CHECK(crowd_skin_apply_path(prepared, (crowd_skin_path)s, matrices, p, n) ==
                      CROWD_OK);
                float dp = compare_max_abs_diff(p, ref_p, n3) / diagonal,
                      dn = compare_max_abs_diff(n, ref_n, n3);
                worst_p[s] = dp > worst_p[s] || dp != dp ? dp : worst_p[s];
                worst_n[s] = dn > worst_n[s] || dn != dn ? dn : worst_n[s];
            }
        }
    }
    printf("%s: %u vertices (1/2/3/4 influences %u/%u/%u/%u), %u joints, %u clips, %u poses; "
           "posed bounds diagonal %.3g..%.3g\n",
           m->file, mesh->vertex_count, crowd_skin_prepared_influence_count(prepared, 1),
           crowd_skin_prepared_influence_count(prepared, 2),
           crowd_skin_prepared_influence_count(prepared, 3),
           crowd_skin_prepared_influence_count(prepared, 4), skeleton->joint_count,
           asset->clip_count, poses, (double)smallest_diagonal, (double)largest_diagonal);
    for (int s = CROWD_SKIN_PATH_SCALAR; s < CROWD_SKIN_PATH_COUNT; s++) {
        if (!crowd_skin_path_supported((crowd_skin_path)s)) {
            printf("  %s: not on this CPU, skipped\n", crowd_skin_path_name((crowd_skin_path)s));
            continue;
        }
        printf("  %s: max position error %.3g of the diagonal, max normal error %.3g\n",
               crowd_skin_path_name((crowd_skin_path)s), (double)worst_p[s], (double)worst_n[s]);
        CHECK_MSG(worst_p[s] <= 1e-5f, "%s, %s: position error %g of the diagonal", m->file,
                  crowd_skin_path_name((crowd_skin_path)s), (double)worst_p[s]);
        CHECK_MSG(worst_n[s] <= 1e-5f, "%s, %s: normal error %g", m->file,
                  crowd_skin_path_name((crowd_skin_path)s), (double)worst_n[s]);
    }

    /* The last pose once more through a 2-thread batch of 3 characters. */
    crowd_skin_pool *pool = NULL;
    CHECK(crowd_skin_pool_create(&(crowd_skin_pool_desc){.thread_count = 2}, &pool, NULL) ==
          CROWD_OK);
    if (pool) {
        crowd_skin_job jobs[3];
        float *outputs = malloc(6 * n3 * sizeof(float));
        crowd_skin_apply(prepared, matrices, p, n);
        for (int j = 0; j < 3; j++) {
            jobs[j] = (crowd_skin_job){prepared, matrices, outputs + 2 * j * n3,
                                       outputs + (2 * j + 1) * n3};
        }
        crowd_skin_batch(pool, jobs, 3);
        for (int j = 0; j < 3; j++) {
            CHECK(memcmp(jobs[j].out_positions, p, n3 * sizeof(float)) == 0);
            CHECK(memcmp(jobs[j].out_normals, n, n3 * sizeof(float)) == 0);
        }
        free(outputs);
        crowd_skin_pool_destroy(pool);
    }
    free(pose);
    free(models_ws);
    free(matrices);
    free(ref_p);
    free(ref_n);
    free(p);
    free(n);
    crowd_skin_prepared_destroy(prepared);
    crowd_asset_destroy(asset);
}

int main(void) {
    check_enter_temp_dir("test_skin_models");
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        check_model(&models[i]);
    }
    return check_finish();
}
