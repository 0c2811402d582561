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
 * Usage: bench_skin [runs]   (default 7)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/skin/synthetic.h"
#include "bench_machine.h"
#include "crowd/anim.h"
#include "crowd/import.h"
#include "crowd/skin.h"

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
    if (argc > 1) {
        runs = atoi(argv[1]);
        if (runs < 1 || runs > 1000) {
            fprintf(stderr, "usage: bench_skin [runs]   (1..1000, default 7)\n");
            return 1;
        }
    }
    print_cpu();
    printf("best path here: %s; every figure is the best of %d runs\n",
           crowd_skin_path_name(crowd_skin_path_best()), runs);
    print_load("before");
    bench_synthetic();
    float *robot_matrices = NULL;
    crowd_asset *robot = load_robot(&robot_matrices);
    if (robot) {
        bench_robot(robot, robot_matrices);
    }
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
