/* Tests of crowd/skin.h: the reference against values worked out by hand,
 * every fast path against the reference on synthetic meshes (each influence
 * count, tails of every length, scattered vertex order), the batch against
 * single calls, and the error paths. Real models: test_skin_models.c. */
#include <stdint.h>

#include "check.h"
#include "crowd/skin.h"
#include "skin_compare.h"
#include "synthetic.h"

/* ---- helpers ------------------------------------------------------------ */

static void set_identity(float m[12]) {
    static const float identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    memcpy(m, identity, sizeof identity);
}

/* A one-vertex mesh over caller storage. */
typedef struct one_vertex {
    float position[3], normal[3], tangent[4], uv[2], weights[4];
    uint16_t joints[4];
    crowd_mesh mesh;
} one_vertex;

static void one_vertex_init(one_vertex *o, const float p[3], const float n[3], const float t[4],
                            const uint16_t joints[4], const float weights[4]) {
    memset(o, 0, sizeof *o);
    memcpy(o->position, p, sizeof o->position);
    memcpy(o->normal, n, sizeof o->normal);
    memcpy(o->tangent, t, sizeof o->tangent);
    memcpy(o->joints, joints, sizeof o->joints);
    memcpy(o->weights, weights, sizeof o->weights);
    o->mesh.vertex_count = 1;
    o->mesh.positions = o->position;
    o->mesh.normals = o->normal;
    o->mesh.tangents = o->tangent;
    o->mesh.uv0 = o->uv;
    o->mesh.joints = o->joints;
    o->mesh.weights = o->weights;
}

static void check_vec(const float *got, const float *want, int n, double tol, const char *what) {
    for (int i = 0; i < n; i++) {
        CHECK_MSG(fabs((double)got[i] - (double)want[i]) <= tol, "%s[%d] = %.9g, want %.9g", what,
                  i, (double)got[i], (double)want[i]);
    }
}

/* Skins the one-vertex mesh with the reference and every supported fast
 * path, checking each against the hand-computed values. */
static void check_one(one_vertex *o, const float *matrices, const float want_p[3],
                      const float want_n[3], const float want_t[4], const char *what) {
    float p[3], n[3], t[4];
    crowd_skin_reference(&o->mesh, matrices, p, n, t);
    printf("  %s: reference\n", what);
    check_vec(p, want_p, 3, 1e-6, "position");
    check_vec(n, want_n, 3, 1e-6, "normal");
    check_vec(t, want_t, 4, 1e-6, "tangent");
    crowd_skin_prepared *prepared = NULL;
    CHECK(crowd_skin_prepared_create(&o->mesh, &prepared, NULL) == CROWD_OK);
    if (!prepared) {
        return;
    }
    for (int path = CROWD_SKIN_PATH_SCALAR; path < CROWD_SKIN_PATH_COUNT; path++) {
        if (!crowd_skin_path_supported((crowd_skin_path)path)) {
            continue;
        }
        memset(p, 0, sizeof p);
        memset(n, 0, sizeof n);
        CHECK(crowd_skin_apply_path(prepared, (crowd_skin_path)path, matrices, p, n) == CROWD_OK);
        check_vec(p, want_p, 3, 1e-6, crowd_skin_path_name((crowd_skin_path)path));
        check_vec(n, want_n, 3, 1e-6, crowd_skin_path_name((crowd_skin_path)path));
    }
    crowd_skin_prepared_destroy(prepared);
}

/* ---- reference golden values -------------------------------------------- */

static void test_reference_golden(void) {
    printf("reference: golden values worked out by hand\n");
    static const float p[3] = {1, 2, 3}, x[3] = {1, 0, 0}, tx[4] = {1, 0, 0, -1};
    static const uint16_t j01[4] = {0, 1, 0, 0};
    static const float w1[4] = {1, 0, 0, 0}, w_half[4] = {0.5f, 0.5f, 0, 0};
    one_vertex o;
    float m[24];

    /* Translation (10, 20, 30): moves the point, not the directions. */
    set_identity(m);
    m[3] = 10, m[7] = 20, m[11] = 30;
    one_vertex_init(&o, p, x, tx, j01, w1);
    check_one(&o, m, (float[]){11, 22, 33}, x, tx, "translation");

    /* 90 degrees about +Z: x -> y, y -> -x. (1, 2, 3) -> (-2, 1, 3). */
    float rz[12] = {0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0};
    memcpy(m, rz, sizeof rz);
    check_one(&o, m, (float[]){-2, 1, 3}, (float[]){0, 1, 0}, (float[]){0, 1, 0, -1}, "rotation");

    /* Uniform scale 2: points double, directions stay unit. */
    set_identity(m);
    m[0] = m[5] = m[10] = 2;
    check_one(&o, m, (float[]){2, 4, 6}, x, tx, "uniform scale");

    /* Scale (2, 1, 1): normal (1, 1, 0)/sqrt2 -> (2, 1, 0)/sqrt2, renormalized
     * to (2, 1, 0)/sqrt5 (same matrix as positions, the documented convention). */
    m[5] = m[10] = 1;
    const float s2 = 1.0f / sqrtf(2.0f), s5 = 1.0f / sqrtf(5.0f);
    one_vertex_init(&o, p, (float[]){s2, s2, 0}, (float[]){s2, s2, 0, 1}, j01, w1);
    check_one(&o, m, (float[]){2, 2, 3}, (float[]){2 * s5, s5, 0}, (float[]){2 * s5, s5, 0, 1},
              "non-uniform scale");

    /* Two joints 50/50: identity and a translation by (0, 2, 0) give the
     * midpoint, (1, 3, 3). */
    set_identity(m);
    set_identity(m + 12);
    m[12 + 7] = 2;
    one_vertex_init(&o, p, x, tx, j01, w_half);
    check_one(&o, m, (float[]){1, 3, 3}, x, tx, "50/50 translation");

    /* Identity and 90 degrees about Z, 50/50: point (1, 0, 0) -> ((1,0,0) +
     * (0,1,0)) / 2 = (0.5, 0.5, 0); the normal x blends to (0.5, 0.5, 0),
     * renormalized to (1, 1, 0)/sqrt2. */
    memcpy(m + 12, rz, sizeof rz);
    one_vertex_init(&o, x, x, tx, j01, w_half);
    check_one(&o, m, (float[]){0.5f, 0.5f, 0}, (float[]){s2, s2, 0}, (float[]){s2, s2, 0, -1},
              "50/50 rotation");

    /* Weights as stored: 0.25 + 0.25 of the identity halves the point (no
     * renormalization); the normal is still unit. */
    set_identity(m);
    set_identity(m + 12);
    one_vertex_init(&o, p, x, tx, j01, (float[]){0.25f, 0.25f, 0, 0});
    check_one(&o, m, (float[]){0.5f, 1, 1.5f}, x, tx, "weights as stored");

    /* Zero-weight slots are not read: joint 60000 would be far out of the
     * 2-matrix palette (ASan would see it). */
    one_vertex_init(&o, p, x, tx, (uint16_t[]){60000, 1, 60000, 60000}, (float[]){0, 1, 0, 0});
    m[12 + 3] = 5;
    check_one(&o, m, (float[]){6, 2, 3}, x, tx, "zero-weight slots");

    /* No weight at all: the blended matrix is zero, so the point goes to the
     * origin and the normal to zero (not NaN). */
    one_vertex_init(&o, p, x, tx, j01, (float[]){0, 0, 0, 0});
    check_one(&o, m, (float[]){0, 0, 0}, (float[]){0, 0, 0}, (float[]){0, 0, 0, -1}, "no weight");
}

static void test_reference_optional_outputs(void) {
    printf("reference: NULL normals/tangents, meshes without tangents\n");
    crowd_mesh mesh = synth_mesh(5, 0, 3, 11);
    float matrices[36], p[15], n[15], t[20], p2[15];
    synth_matrices(matrices, 3, 12);
    crowd_skin_reference(&mesh, matrices, p, n, t);
    crowd_skin_reference(&mesh, matrices, p2, NULL, NULL);
    CHECK(memcmp(p, p2, sizeof p) == 0);
    float *tangents = mesh.tangents;
    mesh.tangents = NULL;
    for (int i = 0; i < 20; i++) {
        t[i] = 42.0f;
    }
    crowd_skin_reference(&mesh, matrices, p2, n, t);
    CHECK(memcmp(p, p2, sizeof p) == 0);
    int untouched = 1;
    for (int i = 0; i < 20; i++) {
        untouched &= t[i] == 42.0f;
    }
    CHECK_MSG(untouched, "tangents written for a mesh without tangents");
    mesh.tangents = tangents;
    synth_mesh_free(&mesh);
}

/* ---- fast paths against the reference ------------------------------------ */

#define GUARD 8
#define SENTINEL -12345.0f

static int guard_intact(const float *array, size_t count) {
    for (size_t i = 0; i < GUARD; i++) {
        if (array[count + i] != SENTINEL) {
            return 0;
        }
    }
    return 1;
}

static void fill(float *array, size_t count, float value) {
    for (size_t i = 0; i < count; i++) {
        array[i] = value;
    }
}

/* One synthetic mesh through every supported path, with and without normals. */
static void check_fast_mesh(uint32_t vertex_count, uint32_t influences, uint64_t seed) {
    const uint32_t joints = 64;
    crowd_mesh mesh = synth_mesh(vertex_count, influences, joints, seed);
    float *matrices = malloc(12 * joints * sizeof(float));
    synth_matrices(matrices, joints, seed + 1);
    size_t n3 = 3 * (size_t)vertex_count;
    float *ref_p = malloc((n3 + GUARD) * sizeof(float)),
          *ref_n = malloc((n3 + GUARD) * sizeof(float));
    float *p = malloc((n3 + GUARD) * sizeof(float)), *n = malloc((n3 + GUARD) * sizeof(float));
    crowd_skin_reference(&mesh, matrices, ref_p, ref_n, NULL);
    /* Tiny meshes have a (near) zero diagonal; their coordinates are O(1). */
    float tolerance = 1e-5f * fmaxf(compare_bounds_diagonal(ref_p, vertex_count), 1.0f);

    crowd_skin_prepared *prepared = NULL;
    CHECK(crowd_skin_prepared_create(&mesh, &prepared, NULL) == CROWD_OK);
    if (prepared) {
        CHECK(crowd_skin_prepared_vertex_count(prepared) == vertex_count);
        CHECK(crowd_skin_prepared_joint_count(prepared) <= joints);
        uint32_t total = 0;
        for (uint32_t k = 1; k <= 4; k++) {
            total += crowd_skin_prepared_influence_count(prepared, k);
            if (influences) {
                CHECK(crowd_skin_prepared_influence_count(prepared, k) ==
                      (k == influences ? vertex_count : 0));
            }
        }
        CHECK(total == vertex_count);
        for (int path = CROWD_SKIN_PATH_AUTO; path < CROWD_SKIN_PATH_COUNT; path++) {
            if (!crowd_skin_path_supported((crowd_skin_path)path)) {
                continue;
            }
            const char *name = crowd_skin_path_name((crowd_skin_path)path);
            for (int with_normals = 0; with_normals < 2; with_normals++) {
                fill(p, n3 + GUARD, SENTINEL);
                fill(n, n3 + GUARD, SENTINEL);
                CHECK(crowd_skin_apply_path(prepared, (crowd_skin_path)path, matrices, p,
                                            with_normals ? n : NULL) == CROWD_OK);
                float dp = compare_max_abs_diff(p, ref_p, n3);
                CHECK_MSG(dp <= tolerance,
                          "%s, %u vertices, %u influences, normals %d: position "
                          "error %g > %g",
                          name, vertex_count, influences, with_normals, (double)dp,
                          (double)tolerance);
                CHECK_MSG(guard_intact(p, n3), "%s wrote past %u positions", name, vertex_count);
                if (with_normals) {
                    float dn = compare_max_abs_diff(n, ref_n, n3);
                    CHECK_MSG(dn <= 1e-5f, "%s, %u vertices, %u influences: normal error %g", name,
                              vertex_count, influences, (double)dn);
                    CHECK_MSG(guard_intact(n, n3), "%s wrote past %u normals", name, vertex_count);
                } else {
                    int untouched = 1;
                    for (size_t i = 0; i < n3 + GUARD; i++) {
                        untouched &= n[i] == SENTINEL;
                    }
                    CHECK_MSG(untouched, "%s touched normals it was not given", name);
                }
            }
        }
    }
    crowd_skin_prepared_destroy(prepared);
    free(ref_p);
    free(ref_n);
    free(p);
    free(n);
    free(matrices);
    synth_mesh_free(&mesh);
}

static void test_fast_matches_reference(void) {
    printf("fast paths == reference within 1e-5 of the bounds diagonal:");
    for (int path = CROWD_SKIN_PATH_SCALAR; path < CROWD_SKIN_PATH_COUNT; path++) {
        printf(" %s%s", crowd_skin_path_name((crowd_skin_path)path),
               crowd_skin_path_supported((crowd_skin_path)path) ? ""
                                                                : " (not on this CPU, skipped)");
    }
    printf("\n");
    /* A CPU without AVX2 leaves a path untested: a skip. The portable
     * build has no such path to test (CROWD_SKIN_PORTABLE: scalar only). */
#if defined(__x86_64__) && !defined(CROWD_SKIN_PORTABLE)
    if (!crowd_skin_path_supported(CROWD_SKIN_PATH_AVX2)) {
        printf("SKIP: the AVX2 path: not on this CPU\n");
        check_skips++;
    }
#endif
    static const uint32_t counts[] = {0,  1,  2,  3,  4,  5,  7,    8,   9,
                                      12, 15, 16, 17, 31, 33, 1001, 4099};
    uint64_t seed = 100;
    for (uint32_t influences = 0; influences <= 4; influences++) {
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            check_fast_mesh(counts[c], influences, seed++);
        }
    }
}

/* Unweighted vertices (outside the asset contract, but skinnable) mixed with
 * weighted ones: the fast paths put them at the origin like the reference. */
static void test_fast_unweighted(void) {
    printf("fast paths: unweighted vertices\n");
    crowd_mesh mesh = synth_mesh(21, 0, 4, 7);
    for (uint32_t v = 0; v < 21; v += 3) {
        memset(mesh.weights + 4 * v, 0, 4 * sizeof(float));
    }
    float matrices[48], ref_p[63], ref_n[63], p[63], n[63];
    synth_matrices(matrices, 4, 8);
    crowd_skin_reference(&mesh, matrices, ref_p, ref_n, NULL);
    crowd_skin_prepared *prepared = NULL;
    CHECK(crowd_skin_prepared_create(&mesh, &prepared, NULL) == CROWD_OK);
    if (prepared) {
        for (int path = CROWD_SKIN_PATH_SCALAR; path < CROWD_SKIN_PATH_COUNT; path++) {
            if (crowd_skin_path_supported((crowd_skin_path)path)) {
                CHECK(crowd_skin_apply_path(prepared, (crowd_skin_path)path, matrices, p, n) ==
                      CROWD_OK);
                CHECK(compare_max_abs_diff(p, ref_p, 63) <= 1e-5f);
                CHECK(compare_max_abs_diff(n, ref_n, 63) <= 1e-5f);
                CHECK(p[0] == 0.0f && p[1] == 0.0f && p[2] == 0.0f);
                CHECK(n[0] == 0.0f && n[1] == 0.0f && n[2] == 0.0f);
            }
        }
    }
    crowd_skin_prepared_destroy(prepared);
    synth_mesh_free(&mesh);
}

/* Two things of the prepared layout the synthetic meshes above do not
 * reach. The AVX2 path takes a rigid block (one influence, all 8 weights
 * exactly 1) without blending: blocks where one lane weighs otherwise
 * (first lane, last lane) must still be blended. And palette offsets are
 * 12 * joint, past 65535 for joints above 5461: a high joint must read its
 * own matrix. */
static void test_fast_rigid_and_high_joints(void) {
    printf("fast paths: rigid blocks with one lane weighted otherwise, joint 6000\n");
    enum { VERTICES = 41, JOINTS = 6001 };
    crowd_mesh mesh = synth_mesh(VERTICES, 1, 8, 11);
    for (uint32_t v = 0; v < VERTICES; v++) {
        for (int i = 0; i < 4; i++) {
            float *w = &mesh.weights[4 * v + i];
            if (*w != 0.0f) {
                /* Block 1: lane 7 weighs 0.5; block 2: lane 0 weighs 2;
                 * blocks 0, 3, 4 rigid; vertex 40 a partial block. */
                *w = v == 15 ? 0.5f : v == 16 ? 2.0f : 1.0f;
                if (v == 33) {
                    mesh.joints[4 * v + i] = JOINTS - 1;
                }
            }
        }
    }
    float *matrices = malloc(12 * (size_t)JOINTS * sizeof(float));
    synth_matrices(matrices, JOINTS, 12);
    float ref_p[3 * VERTICES], ref_n[3 * VERTICES], p[3 * VERTICES], n[3 * VERTICES];
    crowd_skin_reference(&mesh, matrices, ref_p, ref_n, NULL);
    float tolerance = 1e-5f * fmaxf(compare_bounds_diagonal(ref_p, VERTICES), 1.0f);
    crowd_skin_prepared *prepared = NULL;
    CHECK(crowd_skin_prepared_create(&mesh, &prepared, NULL) == CROWD_OK);
    if (prepared) {
        CHECK(crowd_skin_prepared_joint_count(prepared) == JOINTS);
        for (int path = CROWD_SKIN_PATH_SCALAR; path < CROWD_SKIN_PATH_COUNT; path++) {
            if (crowd_skin_path_supported((crowd_skin_path)path)) {
                const char *name = crowd_skin_path_name((crowd_skin_path)path);
                CHECK(crowd_skin_apply_path(prepared, (crowd_skin_path)path, matrices, p, n) ==
                      CROWD_OK);
                float dp = compare_max_abs_diff(p, ref_p, 3 * VERTICES);
                float dn = compare_max_abs_diff(n, ref_n, 3 * VERTICES);
                CHECK_MSG(dp <= tolerance, "%s: position error %g", name, (double)dp);
                CHECK_MSG(dn <= 1e-5f, "%s: normal error %g", name, (double)dn);
            }
        }
    }
    crowd_skin_prepared_destroy(prepared);
    free(matrices);
    synth_mesh_free(&mesh);
}

/* ---- batch -------------------------------------------------------------- */

/* Batch results must be bit-identical to one call per job on the same path. */
static void check_batch(crowd_skin_pool *pool, crowd_skin_path path,
                        crowd_skin_prepared *const *meshes, uint32_t mesh_count, uint32_t job_count,
                        const float *matrices, uint32_t matrix_sets, const char *what) {
    crowd_skin_job *jobs = calloc(job_count, sizeof *jobs);
    float **want_p = calloc(job_count, sizeof *want_p),
          **want_n = calloc(job_count, sizeof *want_n);
    for (uint32_t j = 0; j < job_count; j++) {
        const crowd_skin_prepared *prepared = meshes[j % mesh_count];
        size_t n3 = 3 * (size_t)crowd_skin_prepared_vertex_count(prepared);
        jobs[j].prepared = prepared;
        jobs[j].skin_matrices = matrices + 12 * 64 * (size_t)(j % matrix_sets);
        jobs[j].out_positions = malloc((n3 + 1) * sizeof(float));
        jobs[j].out_normals = j % 3 == 2 ? NULL : malloc((n3 + 1) * sizeof(float));
        fill(jobs[j].out_positions, n3, SENTINEL);
        if (jobs[j].out_normals) {
            fill(jobs[j].out_normals, n3, SENTINEL);
        }
        want_p[j] = malloc((n3 + 1) * sizeof(float));
        want_n[j] = malloc((n3 + 1) * sizeof(float));
        crowd_skin_apply_path(prepared, path, jobs[j].skin_matrices, want_p[j],
                              jobs[j].out_normals ? want_n[j] : NULL);
    }
    crowd_skin_batch(pool, jobs, job_count);
    int same = 1;
    for (uint32_t j = 0; j < job_count; j++) {
        size_t n3 = 3 * (size_t)crowd_skin_prepared_vertex_count(jobs[j].prepared);
        same &= memcmp(jobs[j].out_positions, want_p[j], n3 * sizeof(float)) == 0;
        if (jobs[j].out_normals) {
            same &= memcmp(jobs[j].out_normals, want_n[j], n3 * sizeof(float)) == 0;
        }
        free(jobs[j].out_positions);
        free(jobs[j].out_normals);
        free(want_p[j]);
        free(want_n[j]);
    }
    CHECK_MSG(same, "%s: batch differs from single calls", what);
    free(jobs);
    free(want_p);
    free(want_n);
}

static void test_batch(void) {
    printf("batch == one call per character (1, 2, 3 threads, each path, NULL pool)\n");
    crowd_mesh meshes[3] = {synth_mesh(1001, 0, 64, 1), synth_mesh(37, 4, 64, 2),
                            synth_mesh(20000, 0, 64, 3)};
    crowd_skin_prepared *prepared[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        CHECK(crowd_skin_prepared_create(&meshes[i], &prepared[i], NULL) == CROWD_OK);
        if (!prepared[i]) {
            return;
        }
    }
    float *matrices = malloc(5 * 12 * 64 * sizeof(float));
    synth_matrices(matrices, 5 * 64, 4);
    for (int path = CROWD_SKIN_PATH_SCALAR; path < CROWD_SKIN_PATH_COUNT; path++) {
        if (!crowd_skin_path_supported((crowd_skin_path)path)) {
            continue;
        }
        for (uint32_t threads = 1; threads <= 3; threads++) {
            crowd_skin_pool *pool = NULL;
            crowd_skin_pool_desc desc = {.thread_count = threads, .path = (crowd_skin_path)path};
            CHECK(crowd_skin_pool_create(&desc, &pool, NULL) == CROWD_OK);
            if (!pool) {
                continue;
            }
            CHECK(crowd_skin_pool_thread_count(pool) == threads);
            /* Many small jobs, then one big job (split into chunks), then an
             * empty batch, the pool reused each time. */
            check_batch(pool, (crowd_skin_path)path, prepared, 2, 50, matrices, 5, "50 jobs");
            check_batch(pool, (crowd_skin_path)path, prepared + 2, 1, 1, matrices, 1, "1 big job");
            check_batch(pool, (crowd_skin_path)path, prepared, 3, 7, matrices, 5, "7 mixed jobs");
            crowd_skin_batch(pool, NULL, 0);
            crowd_skin_pool_destroy(pool);
        }
    }
    check_batch(NULL, crowd_skin_path_best(), prepared, 3, 5, matrices, 5, "NULL pool");
    crowd_skin_pool *pool = NULL;
    CHECK(crowd_skin_pool_create(NULL, &pool, NULL) == CROWD_OK);
    if (pool) {
        CHECK(crowd_skin_pool_thread_count(pool) >= 1);
        check_batch(pool, crowd_skin_path_best(), prepared, 3, 30, matrices, 5, "default pool");
    }
    crowd_skin_pool_destroy(pool);
    free(matrices);
    for (int i = 0; i < 3; i++) {
        crowd_skin_prepared_destroy(prepared[i]);
        synth_mesh_free(&meshes[i]);
    }
}

/* ---- contracts and errors ----------------------------------------------- */

static void test_errors(void) {
    printf("errors and contracts\n");
    crowd_error error;
    crowd_skin_prepared *prepared = (crowd_skin_prepared *)&error;
    CHECK(crowd_skin_prepared_create(NULL, &prepared, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(prepared == NULL);
    CHECK(error.result == CROWD_ERROR_INVALID_ARGUMENT && error.reason[0] != '\0');
    crowd_mesh mesh = synth_mesh(3, 2, 4, 5);
    CHECK(crowd_skin_prepared_create(&mesh, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    float *normals = mesh.normals;
    mesh.normals = NULL;
    CHECK(crowd_skin_prepared_create(&mesh, &prepared, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(prepared == NULL);
    mesh.normals = normals;
    float weight = mesh.weights[5];
    mesh.weights[5] = NAN;
    CHECK(crowd_skin_prepared_create(&mesh, &prepared, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(error.reason, "vertex 1") != NULL, "reason: %s", error.reason);
    mesh.weights[5] = INFINITY;
    CHECK(crowd_skin_prepared_create(&mesh, &prepared, NULL) == CROWD_ERROR_INVALID_ARGUMENT);
    mesh.weights[5] = weight;

    /* An empty mesh prepares, needs no matrix and writes nothing. */
    crowd_mesh empty;
    memset(&empty, 0, sizeof empty);
    CHECK(crowd_skin_prepared_create(&empty, &prepared, &error) == CROWD_OK);
    if (prepared) {
        CHECK(crowd_skin_prepared_vertex_count(prepared) == 0);
        CHECK(crowd_skin_prepared_joint_count(prepared) == 0);
        CHECK(crowd_skin_prepared_size_bytes(prepared) > 0);
        crowd_skin_apply(prepared, NULL, NULL, NULL);
        crowd_skin_prepared_destroy(prepared);
    }

    /* joint_count: highest joint with a non-zero weight, plus one. */
    memset(mesh.weights, 0, 12 * sizeof(float));
    memset(mesh.joints, 0, 12 * sizeof(uint16_t));
    mesh.weights[4 * 1 + 2] = 1.0f;
    mesh.joints[4 * 1 + 2] = 6;
    mesh.joints[4 * 2 + 3] = 9; /* zero weight: not counted */
    mesh.weights[0] = 1.0f;
    CHECK(crowd_skin_prepared_create(&mesh, &prepared, NULL) == CROWD_OK);
    if (prepared) {
        CHECK(crowd_skin_prepared_joint_count(prepared) == 7);
        CHECK(crowd_skin_prepared_influence_count(prepared, 1) == 3);
        CHECK(crowd_skin_prepared_influence_count(prepared, 0) == 0);
        CHECK(crowd_skin_prepared_influence_count(prepared, 5) == 0);
        float matrices[7 * 12], p[9];
        synth_matrices(matrices, 7, 1);
        CHECK(crowd_skin_apply_path(prepared, CROWD_SKIN_PATH_COUNT, matrices, p, NULL) ==
              CROWD_ERROR_INVALID_ARGUMENT);
        CHECK(crowd_skin_apply_path(prepared, (crowd_skin_path)-1, matrices, p, NULL) ==
              CROWD_ERROR_INVALID_ARGUMENT);
        CHECK(crowd_skin_apply_path(prepared, CROWD_SKIN_PATH_AUTO, matrices, p, NULL) == CROWD_OK);
        if (!crowd_skin_path_supported(CROWD_SKIN_PATH_AVX2)) {
            CHECK(crowd_skin_apply_path(prepared, CROWD_SKIN_PATH_AVX2, matrices, p, NULL) ==
                  CROWD_ERROR_UNSUPPORTED);
        }
        crowd_skin_prepared_destroy(prepared);
    }
    synth_mesh_free(&mesh);
    crowd_skin_prepared_destroy(NULL);

    crowd_skin_pool *pool = (crowd_skin_pool *)&error;
    CHECK(crowd_skin_pool_create(&(crowd_skin_pool_desc){.thread_count = 257}, &pool, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(pool == NULL);
    CHECK(crowd_skin_pool_create(&(crowd_skin_pool_desc){.path = CROWD_SKIN_PATH_COUNT}, &pool,
                                 &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_skin_pool_create(NULL, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    if (!crowd_skin_path_supported(CROWD_SKIN_PATH_AVX2)) {
        CHECK(crowd_skin_pool_create(&(crowd_skin_pool_desc){.path = CROWD_SKIN_PATH_AVX2}, &pool,
                                     &error) == CROWD_ERROR_UNSUPPORTED);
    }
    crowd_skin_pool_destroy(NULL);

    CHECK(strcmp(crowd_skin_path_name(CROWD_SKIN_PATH_AUTO), "auto") == 0);
    CHECK(strcmp(crowd_skin_path_name(CROWD_SKIN_PATH_SCALAR), "scalar") == 0);
    CHECK(strcmp(crowd_skin_path_name(CROWD_SKIN_PATH_SSE2), "sse2") == 0);
    CHECK(strcmp(crowd_skin_path_name(CROWD_SKIN_PATH_AVX2), "avx2") == 0);
    CHECK(strcmp(crowd_skin_path_name(CROWD_SKIN_PATH_COUNT), "?") == 0);
    CHECK(crowd_skin_path_supported(CROWD_SKIN_PATH_AUTO));
    CHECK(crowd_skin_path_supported(CROWD_SKIN_PATH_SCALAR));
    CHECK(!crowd_skin_path_supported(CROWD_SKIN_PATH_COUNT));
    CHECK(crowd_skin_path_best() != CROWD_SKIN_PATH_AUTO);
    CHECK(crowd_skin_path_supported(crowd_skin_path_best()));
#if defined(__x86_64__) && !defined(CROWD_SKIN_PORTABLE)
    CHECK(crowd_skin_path_supported(CROWD_SKIN_PATH_SSE2));
    CHECK(crowd_skin_path_best() != CROWD_SKIN_PATH_SCALAR);
#endif
    printf("  best path on this CPU: %s\n", crowd_skin_path_name(crowd_skin_path_best()));
}

int main(void) {
    check_enter_temp_dir("test_skin");
    test_reference_golden();
    test_reference_optional_outputs();
    test_fast_matches_reference();
    test_fast_unweighted();
    test_fast_rigid_and_high_joints();
    test_batch();
    test_errors();
    return check_finish();
}
