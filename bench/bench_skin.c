/* bench_skin - CPU linear blend skinning throughput (crowd/skin.h).
 *
 * Million vertices per second for 1, 2, 3 and 4 influences, positions only
 * and positions + normals, for the reference and each fast path (scalar,
 * SSE2, AVX2+FMA where the CPU has it), on a synthetic 10,000-vertex,
 * 64-joint mesh and on robot.glb (its own mix of influence counts, posed by
 * its first clip) when ../shared/models has it. Then thread scaling: a
 * 1,000-character batch, every character with its own matrices and output
 * buffers, on 1 and 2 threads.
 *
 * 8 influences: not applicable. crowd's vertex format holds 4 (the importer
 * keeps the 4 largest and renormalizes), so no code path skins 8; emulating
 * it as two 4-influence passes would measure a function the library does
 * not have (and could not renormalize normals across the passes). The cost
 * grows linearly with the influence count (two loads and two FMAs per
 * influence), which the 1-4 rows show.
 *
 * Every figure is the best of several runs (the machine is shared; the
 * batch gets three times as many), and the load average is printed before
 * and after.
 *
 * Then the AVX2 kernel against the one it replaced (issue 21, kept in
 * skin_baseline.h): old and new take turns, call by call, on the same
 * meshes and matrices, and the table gives each one's best and the
 * median and 10th-90th percentiles of the per-round ratio new / old, so a
 * neighbour's burst on this shared machine hits both alike. Their outputs
 * are compared too (they may differ by float rounding only).
 *
 * Usage: bench_skin [runs]   (default 7)
 *        bench_skin --count old|new 1|2|3|4|robot pos|normals
 *            skins that mesh 10 times with one kernel and nothing else, for
 *            instruction counts under callgrind (bench/skin_callgrind.sh).
 *        bench_skin --check
 *            old and new must agree within the skin tests' tolerances
 *            (the ctest bench_skin_check); exit 77 without AVX2.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/skin/synthetic.h"
#include "bench_machine.h"
#include "skin_baseline.h"
#include "crowd/anim.h"
#include "crowd/import.h"
#include "crowd/skin.h"
#include "skin/prepared.h"

enum { SYNTH_VERTICES = 10000, SYNTH_JOINTS = 64, CROWD_CHARACTERS = 1000 };

static int runs = 7;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *xmalloc(size_t size) {
    void *p = malloc(size);
    if (!p) {
        fprintf(stderr, "bench_skin: out of memory\n");
        exit(1);
    }
    return p;
}

static void print_load(const char *when) {
    char line[128] = "?";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (!fgets(line, sizeof line, f)) {
            strcpy(line, "?\n");
        }
        fclose(f);
    }
    printf("load average %s: %s", when, line);
}

static void print_cpu(void) {
    char cpu[256];
    if (bench_cpu_name(cpu, sizeof cpu)) {
        printf("cpu: %s\n", cpu);
    }
}

/* What one timed call skins: the reference (prepared NULL) or a path. */
typedef struct target {
    const crowd_mesh *mesh;
    const crowd_skin_prepared *prepared;
    crowd_skin_path path;
    const float *matrices;
    float *positions, *normals;
} target;

static void skin_once(const target *t) {
    if (t->prepared) {
        crowd_skin_apply_path(t->prepared, t->path, t->matrices, t->positions, t->normals);
    } else {
        crowd_skin_reference(t->mesh, t->matrices, t->positions, t->normals, NULL);
    }
}

/* Best million vertices per second over `runs` runs of at least ~20 ms. */
static double measure(const target *t) {
    uint32_t vertices = t->mesh->vertex_count;
    uint32_t calls = 1;
    double start = now_s();
    skin_once(t);
    double once = now_s() - start;
    if (once < 0.02) {
        calls = (uint32_t)(0.02 / (once > 1e-7 ? once : 1e-7)) + 1;
    }
    double best = INFINITY;
    for (int r = 0; r < runs; r++) {
        start = now_s();
        for (uint32_t c = 0; c < calls; c++) {
            skin_once(t);
        }
        double per_call = (now_s() - start) / calls;
        best = per_call < best ? per_call : best;
    }
    return vertices / best / 1e6;
}

/* One table: rows = implementations, columns = position / position+normal. */
static void bench_mesh(const char *title, const crowd_mesh *mesh, const float *matrices) {
    crowd_skin_prepared *prepared = NULL;
    crowd_error error;
    if (crowd_skin_prepared_create(mesh, &prepared, &error) != CROWD_OK) {
        fprintf(stderr, "bench_skin: %s\n", error.reason);
        exit(1);
    }
    size_t n3 = 3 * (size_t)mesh->vertex_count;
    float *positions = xmalloc(n3 * sizeof(float)), *normals = xmalloc(n3 * sizeof(float));
    printf("  %-34s %10s %12s\n", title, "pos", "pos+normal");
    for (int path = -1; path < CROWD_SKIN_PATH_COUNT; path++) {
        if (path == CROWD_SKIN_PATH_AUTO) {
            continue;
        }
        target t = {mesh,
                    path < 0 ? NULL : prepared,
                    (crowd_skin_path)(path < 0 ? 0 : path),
                    matrices,
                    positions,
                    NULL};
        const char *name = path < 0 ? "reference" : crowd_skin_path_name((crowd_skin_path)path);
        if (path >= 0 && !crowd_skin_path_supported((crowd_skin_path)path)) {
            printf("    %-32s %10s %12s\n", name, "n/a", "n/a");
            continue;
        }
        double p = measure(&t);
        t.normals = normals;
        double pn = measure(&t);
        printf("    %-32s %10.1f %12.1f\n", name, p, pn);
    }
    free(positions);
    free(normals);
    crowd_skin_prepared_destroy(prepared);
}

static void bench_synthetic(void) {
    float *matrices = xmalloc(12 * SYNTH_JOINTS * sizeof(float));
    synth_matrices(matrices, SYNTH_JOINTS, 99);
    printf("\nsynthetic mesh, %d vertices, %d joints: million vertices/s\n", SYNTH_VERTICES,
           SYNTH_JOINTS);
    for (uint32_t influences = 1; influences <= 4; influences++) {
        crowd_mesh mesh = synth_mesh(SYNTH_VERTICES, influences, SYNTH_JOINTS, 1000 + influences);
        char title[64];
        snprintf(title, sizeof title, "%u influence%s", influences, influences > 1 ? "s" : "");
        bench_mesh(title, &mesh, matrices);
        synth_mesh_free(&mesh);
    }
    printf("  8 influences: n/a (crowd keeps at most 4 per vertex; see the comment at the top)\n");
    free(matrices);
}

/* robot.glb posed by the middle of its first clip (rest pose without clips). */
static crowd_asset *load_robot(float **out_matrices) {
    char path[1024];
    snprintf(path, sizeof path, "%s/robot.glb", CROWD_MODELS_DIR);
    crowd_asset *asset = NULL;
    crowd_error error;
    if (crowd_import_file(path, NULL, &asset, &error) != CROWD_OK) {
        printf("\nrobot.glb: skipped (%s: %s)\n", error.file, error.reason);
        return NULL;
    }
    const crowd_skeleton *skeleton = &asset->skeleton;
    crowd_transform *pose = xmalloc(skeleton->joint_count * sizeof *pose);
    float *models = xmalloc(16 * (size_t)skeleton->joint_count * sizeof(float));
    float *matrices = xmalloc(12 * (size_t)skeleton->joint_count * sizeof(float));
    if (asset->clip_count > 0) {
        crowd_anim_sample(skeleton, &asset->clips[0], 0.5f * asset->clips[0].duration_s, NULL,
                          pose);
    } else {
        crowd_anim_rest_pose(skeleton, pose);
    }
    crowd_anim_local_to_model(skeleton, pose, models);
    crowd_anim_skin_matrices(skeleton, models, NULL, matrices);
    free(pose);
    free(models);
    *out_matrices = matrices;
    return asset;
}

static void bench_robot(crowd_asset *robot, const float *matrices) {
    crowd_skin_prepared *prepared = NULL;
    if (crowd_skin_prepared_create(&robot->mesh, &prepared, NULL) != CROWD_OK) {
        return;
    }
    printf("\nrobot.glb, %u vertices, %u joints (vertices with 1/2/3/4 influences: %u/%u/%u/%u): "
           "million vertices/s\n",
           robot->mesh.vertex_count, robot->skeleton.joint_count,
           crowd_skin_prepared_influence_count(prepared, 1),
           crowd_skin_prepared_influence_count(prepared, 2),
           crowd_skin_prepared_influence_count(prepared, 3),
           crowd_skin_prepared_influence_count(prepared, 4));
    crowd_skin_prepared_destroy(prepared);
    bench_mesh("robot.glb", &robot->mesh, matrices);
}

/* ---- old against new ----------------------------------------------------- */

enum { VERSUS_ROUNDS = 41, COUNT_CALLS = 10 };

/* The new kernel alone (no path dispatch), the way crowd_skin_apply runs it. */
static void skin_new(const crowd_skin_prepared *prepared, const float *matrices, float *positions,
                     float *normals) {
#if SKIN_X86
    crowd__skin_run_blocks(prepared, crowd__skin_kernel_avx2, 0, prepared->block_count, matrices,
                           positions, normals);
#else
    (void)prepared, (void)matrices, (void)positions, (void)normals;
#endif
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Seconds per call of `calls` calls of old (which == 0) or new. */
static double time_kernel(int which, const baseline_prepared *old, const crowd_skin_prepared *new,
                          const float *matrices, float *positions, float *normals, uint32_t calls) {
    double start = now_s();
    for (uint32_t c = 0; c < calls; c++) {
        if (which == 0) {
            baseline_skin_avx2(old, matrices, positions, normals);
        } else {
            skin_new(new, matrices, positions, normals);
        }
    }
    return (now_s() - start) / calls;
}

static float max_abs_diff(const float *a, const float *b, size_t count) {
    float worst = 0.0f;
    for (size_t i = 0; i < count; i++) {
        float d = fabsf(a[i] - b[i]);
        worst = d > worst || d != d ? d : worst;
    }
    return worst;
}

/* One row: old and new alternating, VERSUS_ROUNDS rounds of ~2 ms each. */
static void versus_row(const char *title, const crowd_mesh *mesh, const float *matrices,
                       bool with_normals) {
    baseline_prepared old;
    crowd_skin_prepared *new = NULL;
    if (!baseline_prepare(mesh, &old) || crowd_skin_prepared_create(mesh, &new, NULL) != CROWD_OK) {
        fprintf(stderr, "bench_skin: out of memory\n");
        exit(1);
    }
    size_t n3 = 3 * (size_t)mesh->vertex_count;
    float *out[2][2];
    for (int k = 0; k < 2; k++) {
        out[k][0] = xmalloc(n3 * sizeof(float));
        out[k][1] = xmalloc(n3 * sizeof(float));
    }
    double once = time_kernel(0, &old, new, matrices, out[0][0], out[0][1], 1);
    uint32_t calls = (uint32_t)(0.002 / (once > 1e-7 ? once : 1e-7)) + 1;
    double best[2] = {INFINITY, INFINITY}, ratios[VERSUS_ROUNDS];
    for (int r = 0; r < VERSUS_ROUNDS; r++) {
        double t[2];
        /* Who goes first alternates too (a turbo or cache state that favours
         * the second of a pair favours each kernel equally often). */
        for (int k = 0; k < 2; k++) {
            int which = (r + k) % 2;
            t[which] = time_kernel(which, &old, new, matrices, out[which][0],
                                   with_normals ? out[which][1] : NULL, calls);
            best[which] = t[which] < best[which] ? t[which] : best[which];
        }
        ratios[r] = t[0] / t[1];
    }
    qsort(ratios, VERSUS_ROUNDS, sizeof ratios[0], compare_doubles);
    float dp = max_abs_diff(out[0][0], out[1][0], n3);
    float dn = with_normals ? max_abs_diff(out[0][1], out[1][1], n3) : 0.0f;
    printf("  %-10s %-10s %8.1f %8.1f %7.3fx %7.3fx   %5.3f-%5.3f   %.1e %.1e\n", title,
           with_normals ? "pos+normal" : "pos", mesh->vertex_count / best[0] / 1e6,
           mesh->vertex_count / best[1] / 1e6, best[0] / best[1], ratios[VERSUS_ROUNDS / 2],
           ratios[VERSUS_ROUNDS / 10], ratios[VERSUS_ROUNDS - 1 - VERSUS_ROUNDS / 10], (double)dp,
           (double)dn);
    for (int k = 0; k < 2; k++) {
        free(out[k][0]);
        free(out[k][1]);
    }
    baseline_release(&old);
    crowd_skin_prepared_destroy(new);
}

static void bench_versus(const crowd_asset *robot, const float *robot_matrices) {
    if (!baseline_supported() || !crowd_skin_path_supported(CROWD_SKIN_PATH_AVX2)) {
        printf("\nold vs new AVX2 kernel: n/a (no AVX2+FMA on this CPU)\n");
        return;
    }
    printf("\nold vs new AVX2 kernel, alternating, %d rounds: million vertices/s (best of each), "
           "speed-up new/old (ratio of bests; median and 10th-90th percentile of the rounds), "
           "max |new - old| (positions, normals)\n",
           VERSUS_ROUNDS);
    printf("  %-10s %-10s %8s %8s %8s %8s   %-11s   %s\n", "mesh", "outputs", "old", "new", "best",
           "median", "p10-p90", "diff");
    float *matrices = xmalloc(12 * SYNTH_JOINTS * sizeof(float));
    synth_matrices(matrices, SYNTH_JOINTS, 99);
    for (uint32_t influences = 1; influences <= 4; influences++) {
        crowd_mesh mesh = synth_mesh(SYNTH_VERTICES, influences, SYNTH_JOINTS, 1000 + influences);
        char title[32];
        snprintf(title, sizeof title, "%u infl.", influences);
        versus_row(title, &mesh, matrices, false);
        versus_row(title, &mesh, matrices, true);
        synth_mesh_free(&mesh);
    }
    if (robot) {
        versus_row("robot.glb", &robot->mesh, robot_matrices, false);
        versus_row("robot.glb", &robot->mesh, robot_matrices, true);
    }
    free(matrices);
}

/* Largest |a - b| over the positions divided by their bounds diagonal
 * (at least 1: a tiny mesh's coordinates are O(1)). */
static float relative_position_diff(const float *a, const float *b, uint32_t vertices) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < vertices; v++) {
        for (int c = 0; c < 3; c++) {
            lo[c] = fminf(lo[c], a[3 * v + c]);
            hi[c] = fmaxf(hi[c], a[3 * v + c]);
        }
    }
    float d2 = 0.0f;
    for (int c = 0; c < 3 && vertices > 0; c++) {
        d2 += (hi[c] - lo[c]) * (hi[c] - lo[c]);
    }
    return max_abs_diff(a, b, 3 * (size_t)vertices) / fmaxf(sqrtf(d2), 1.0f);
}

/* --check: old and new skin the bench's meshes alike (float rounding
 * apart: 1e-5 of the diagonal, 1e-5 for unit normals, the skin tests'
 * tolerances). Keeps the baseline honest when the library's layout moves
 * on: a ctest (bench_skin_check). */
static int check_mode(const crowd_asset *robot, const float *robot_matrices) {
    if (!baseline_supported() || !crowd_skin_path_supported(CROWD_SKIN_PATH_AVX2)) {
        printf("SKIP: no AVX2+FMA on this CPU: no baseline to compare\n");
        return 77;
    }
    float *matrices = xmalloc(12 * SYNTH_JOINTS * sizeof(float));
    synth_matrices(matrices, SYNTH_JOINTS, 99);
    int failed = 0;
    for (uint32_t m = 1; m <= 5; m++) {
        if (m == 5 && !robot) {
            printf("robot.glb: not loaded, not compared\n");
            break;
        }
        crowd_mesh synth = {0};
        if (m < 5) {
            synth = synth_mesh(SYNTH_VERTICES, m, SYNTH_JOINTS, 1000 + m);
        }
        const crowd_mesh *mesh = m < 5 ? &synth : &robot->mesh;
        const float *palette = m < 5 ? matrices : robot_matrices;
        baseline_prepared old;
        crowd_skin_prepared *new = NULL;
        if (!baseline_prepare(mesh, &old) ||
            crowd_skin_prepared_create(mesh, &new, NULL) != CROWD_OK) {
            fprintf(stderr, "bench_skin: out of memory\n");
            exit(1);
        }
        size_t n3 = 3 * (size_t)mesh->vertex_count;
        float *p[2] = {xmalloc(n3 * sizeof(float)), xmalloc(n3 * sizeof(float))};
        float *n[2] = {xmalloc(n3 * sizeof(float)), xmalloc(n3 * sizeof(float))};
        for (int which = 0; which < 2; which++) {
            time_kernel(which, &old, new, palette, p[which], n[which], 1);
        }
        float dp = relative_position_diff(p[0], p[1], mesh->vertex_count);
        float dn = max_abs_diff(n[0], n[1], n3);
        bool ok = dp <= 1e-5f && dn <= 1e-5f;
        failed += !ok;
        char title[64];
        snprintf(title, sizeof title, m < 5 ? "synthetic, %u influence(s)" : "robot.glb", m);
        printf("%s, %u vertices: new - old %.2g of the diagonal (positions), %.2g (normals)%s\n",
               title, mesh->vertex_count, (double)dp, (double)dn, ok ? "" : ": FAILED");
        for (int k = 0; k < 2; k++) {
            free(p[k]);
            free(n[k]);
        }
        baseline_release(&old);
        crowd_skin_prepared_destroy(new);
        if (m < 5) {
            synth_mesh_free(&synth);
        }
    }
    free(matrices);
    return failed ? 1 : 0;
}

/* --count: COUNT_CALLS calls of one kernel on one mesh, for callgrind. */
static int count_mode(int argc, char **argv, const crowd_asset *robot,
                      const float *robot_matrices) {
    bool old_kernel = argc == 5 && strcmp(argv[2], "old") == 0;
    bool new_kernel = argc == 5 && strcmp(argv[2], "new") == 0;
    bool robot_mesh = argc == 5 && strcmp(argv[3], "robot") == 0;
    int influences = argc == 5 ? atoi(argv[3]) : 0;
    bool normals = argc == 5 && strcmp(argv[4], "normals") == 0;
    if ((!old_kernel && !new_kernel) || (!robot_mesh && (influences < 1 || influences > 4)) ||
        (!normals && strcmp(argv[4], "pos") != 0)) {
        fprintf(stderr, "usage: bench_skin --count old|new 1|2|3|4|robot pos|normals\n");
        return 1;
    }
    if (!baseline_supported() || !crowd_skin_path_supported(CROWD_SKIN_PATH_AVX2)) {
        fprintf(stderr, "bench_skin: no AVX2+FMA on this CPU\n");
        return 77;
    }
    if (robot_mesh && !robot) {
        fprintf(stderr, "bench_skin: robot.glb did not load\n");
        return 1;
    }
    float *matrices = xmalloc(12 * SYNTH_JOINTS * sizeof(float));
    synth_matrices(matrices, SYNTH_JOINTS, 99);
    crowd_mesh synth = {0};
    if (!robot_mesh) {
        synth = synth_mesh(SYNTH_VERTICES, (uint32_t)influences, SYNTH_JOINTS,
                           1000 + (uint64_t)influences);
    }
    const crowd_mesh *mesh = robot_mesh ? &robot->mesh : &synth;
    const float *palette = robot_mesh ? robot_matrices : matrices;
    baseline_prepared old;
    crowd_skin_prepared *new = NULL;
    if (!baseline_prepare(mesh, &old) || crowd_skin_prepared_create(mesh, &new, NULL) != CROWD_OK) {
        fprintf(stderr, "bench_skin: out of memory\n");
        return 1;
    }
    size_t n3 = 3 * (size_t)mesh->vertex_count;
    float *positions = xmalloc(n3 * sizeof(float)), *nrm = xmalloc(n3 * sizeof(float));
    time_kernel(new_kernel, &old, new, palette, positions, normals ? nrm : NULL, COUNT_CALLS);
    printf("%u vertices x %d calls\n", mesh->vertex_count, COUNT_CALLS);
    free(positions);
    free(nrm);
    baseline_release(&old);
    crowd_skin_prepared_destroy(new);
    if (!robot_mesh) {
        synth_mesh_free(&synth);
    }
    free(matrices);
    return 0;
}

/* 1,000 characters sharing one prepared mesh, each with its own matrices
 * (perturbed copies) and its own outputs, on 1 and 2 threads. The two pools
 * take turns, batch by batch, so that both see the same neighbours on this
 * shared machine; each keeps its best batch. */
static void bench_batch(const char *title, const crowd_mesh *mesh, const float *matrices,
                        uint32_t joint_count) {
    crowd_skin_prepared *prepared = NULL;
    if (crowd_skin_prepared_create(mesh, &prepared, NULL) != CROWD_OK) {
        return;
    }
    size_t n3 = 3 * (size_t)mesh->vertex_count;
    crowd_skin_job *jobs = xmalloc(CROWD_CHARACTERS * sizeof *jobs);
    float *all_matrices = xmalloc(CROWD_CHARACTERS * 12 * (size_t)joint_count * sizeof(float));
    for (uint32_t c = 0; c < CROWD_CHARACTERS; c++) {
        float *m = all_matrices + c * 12 * (size_t)joint_count;
        for (size_t k = 0; k < 12 * (size_t)joint_count; k++) {
            m[k] = matrices[k] * (1.0f + 1e-4f * (float)(c % 7));
        }
        jobs[c] =
            (crowd_skin_job){prepared, m, xmalloc(n3 * sizeof(float)), xmalloc(n3 * sizeof(float))};
    }
    printf("\n%u-character batch of %s (%u vertices each, positions + normals, %s path)\n",
           CROWD_CHARACTERS, title, mesh->vertex_count,
           crowd_skin_path_name(crowd_skin_path_best()));
    crowd_skin_pool *pools[2] = {NULL, NULL};
    for (uint32_t p = 0; p < 2; p++) {
        crowd_error error;
        if (crowd_skin_pool_create(&(crowd_skin_pool_desc){.thread_count = p + 1}, &pools[p],
                                   &error) != CROWD_OK) {
            fprintf(stderr, "bench_skin: %s\n", error.reason);
            exit(1);
        }
    }
    crowd_skin_batch(pools[0], jobs, CROWD_CHARACTERS); /* warm up: first touch of outputs */
    /* Best wall time per pool, and the CPU time of this process during that
     * batch: CPU / wall is how many threads really ran at once. */
    double best[2] = {INFINITY, INFINITY}, best_cpu[2] = {0, 0};
    for (int r = 0; r < 3 * runs; r++) {
        for (uint32_t p = 0; p < 2; p++) {
            double start = now_s(), start_cpu = cpu_s();
            crowd_skin_batch(pools[p], jobs, CROWD_CHARACTERS);
            double t = now_s() - start;
            if (t < best[p]) {
                best[p] = t;
                best_cpu[p] = cpu_s() - start_cpu;
            }
        }
    }
    for (uint32_t p = 0; p < 2; p++) {
        printf("  %u thread%s %8.2f ms per batch %8.1f million vertices/s   (CPU/wall %.2f)\n",
               p + 1, p > 0 ? "s:" : ": ", best[p] * 1e3,
               (double)CROWD_CHARACTERS * mesh->vertex_count / best[p] / 1e6,
               best_cpu[p] / best[p]);
        crowd_skin_pool_destroy(pools[p]);
    }
    /* Scaling is capped by the CPU the neighbours leave us; the 1-thread time
     * over the 2-thread batch's CPU time is the pool's own efficiency. */
    printf("  scaling, 2 threads / 1 thread: %.2fx%s; work efficiency %.2f\n", best[0] / best[1],
           best_cpu[1] / best[1] < 1.8 ? " (the second core was partly busy with other work)" : "",
           best[0] / best_cpu[1]);
    for (uint32_t c = 0; c < CROWD_CHARACTERS; c++) {
        free(jobs[c].out_positions);
        free(jobs[c].out_normals);
    }
    free(jobs);
    free(all_matrices);
    crowd_skin_prepared_destroy(prepared);
}

int main(int argc, char **argv) {
    bool count = argc > 1 && strcmp(argv[1], "--count") == 0;
    bool check = argc == 2 && strcmp(argv[1], "--check") == 0;
    if (argc > 1 && !count && !check) {
        runs = atoi(argv[1]);
        if (runs < 1 || runs > 1000) {
            fprintf(stderr, "usage: bench_skin [runs]   (1..1000, default 7)\n"
                            "       bench_skin --count old|new 1|2|3|4|robot pos|normals\n"
                            "       bench_skin --check\n");
            return 1;
        }
    }
    float *robot_matrices = NULL;
    crowd_asset *robot = NULL;
    if (count || check) {
        robot = load_robot(&robot_matrices);
        int status = check ? check_mode(robot, robot_matrices)
                           : count_mode(argc, argv, robot, robot_matrices);
        free(robot_matrices);
        crowd_asset_destroy(robot);
        return status;
    }
    print_cpu();
    printf("best path here: %s; every figure is the best of %d runs\n",
           crowd_skin_path_name(crowd_skin_path_best()), runs);
    print_load("before");
    bench_synthetic();
    robot = load_robot(&robot_matrices);
    if (robot) {
        bench_robot(robot, robot_matrices);
    }
    bench_versus(robot, robot_matrices);
    crowd_mesh mesh = synth_mesh(SYNTH_VERTICES, 4, SYNTH_JOINTS, 1004);
    float *matrices = xmalloc(12 * SYNTH_JOINTS * sizeof(float));
    synth_matrices(matrices, SYNTH_JOINTS, 99);
    bench_batch("the synthetic 4-influence mesh", &mesh, matrices, SYNTH_JOINTS);
    if (robot) {
        bench_batch("robot.glb", &robot->mesh, robot_matrices, robot->skeleton.joint_count);
    }
    synth_mesh_free(&mesh);
    free(matrices);
    free(robot_matrices);
    crowd_asset_destroy(robot);
    print_load("after");
    return 0;
}
