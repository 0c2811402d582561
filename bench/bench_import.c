/* bench_import - what running assimp in the helper process costs an import.
 *
 * For each file: wall-clock time per import through the helper and in
 * this process (desc.in_process), as medians and their ratio: "warm",
 * alternating in one process that has imported before, and "first", the
 * first import of a fresh forked process (what `crowd info` or `crowd
 * bake` pays), alternating too. Peak resident memory of those fresh
 * processes: ru_maxrss of the process for in-process imports, of the
 * process plus the helper (whose peak RUSAGE_CHILDREN gives) through the
 * helper.
 *
 *   CROWD_IMPORT_HELPER=build/release/crowd-import-helper \
 *     build/release/bench/bench_import [--runs N] [FILE...]
 *
 * Default files: X/Testwuson.X and FBX/animation_with_skeleton.fbx of
 * Debian's assimp-testmodels.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crowd/import.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count) {
    qsort(values, (size_t)count, sizeof *values, by_value);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* One import; its wall time, or -1 when it failed. */
static double import_once(const char *path, bool in_process) {
    crowd_import_desc desc = {0};
    desc.in_process = in_process;
    crowd_asset *asset = NULL;
    crowd_error error;
    double start = now_s();
    crowd_result result = crowd_import_file(path, &desc, &asset, &error);
    double took = now_s() - start;
    if (result != CROWD_OK) {
        fprintf(stderr, "bench_import: %s: %s\n", path, error.reason);
        return -1.0;
    }
    crowd_asset_destroy(asset);
    return took;
}

/* What a fresh process's first import costs one way: wall time and the
 * peak resident KiB (with the helper's). */
typedef struct cold_run {
    double time_s;
    long peak_kib, caller_kib; /* with the helper's peak; the calling process alone */
} cold_run;

static cold_run first_import(const char *path, bool in_process) {
    cold_run run = {-1.0, -1, -1};
    int link[2];
    if (pipe(link) != 0) {
        return run;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(link[0]);
        run.time_s = import_once(path, in_process);
        struct rusage self, children;
        getrusage(RUSAGE_SELF, &self);
        getrusage(RUSAGE_CHILDREN, &children);
        run.caller_kib = self.ru_maxrss;
        run.peak_kib = self.ru_maxrss + (in_process ? 0 : children.ru_maxrss);
        ssize_t written = write(link[1], &run, sizeof run);
        _exit(written == (ssize_t)sizeof run ? 0 : 1);
    }
    close(link[1]);
    if (pid < 0 || read(link[0], &run, sizeof run) != (ssize_t)sizeof run) {
        run.time_s = -1.0;
    }
    close(link[0]);
    if (pid > 0) {
        waitpid(pid, NULL, 0);
    }
    return run;
}

static void bench_file(const char *path, int runs) {
    double *here = malloc((size_t)runs * sizeof *here);
    double *child = malloc((size_t)runs * sizeof *child);
    if (here == NULL || child == NULL) {
        free(here);
        free(child);
        return;
    }
    /* One of each first: page cache and the helper's libraries warm. */
    if (import_once(path, true) < 0.0 || import_once(path, false) < 0.0) {
        free(here);
        free(child);
        return;
    }
    for (int r = 0; r < runs; r++) {
        here[r] = import_once(path, true);
        child[r] = import_once(path, false);
    }
    double t_here = median(here, runs), t_child = median(child, runs);
    printf("%s\n  warm   in process %.2f ms, helper %.2f ms: %.2fx (%+.2f ms per import)\n", path,
           1e3 * t_here, 1e3 * t_child, t_child / t_here, 1e3 * (t_child - t_here));
    /* A program's first import, as `crowd info` or `crowd bake` makes it. */
    double peak_here = 0.0, peak_child = 0.0, caller = 0.0;
    for (int r = 0; r < runs; r++) {
        cold_run a = first_import(path, true), b = first_import(path, false);
        here[r] = a.time_s;
        child[r] = b.time_s;
        peak_here = a.peak_kib > peak_here ? (double)a.peak_kib : peak_here;
        peak_child = b.peak_kib > peak_child ? (double)b.peak_kib : peak_child;
        caller = b.caller_kib > caller ? (double)b.caller_kib : caller;
    }
    t_here = median(here, runs);
    t_child = median(child, runs);
    printf("  first  in process %.2f ms, helper %.2f ms: %.2fx (%+.2f ms per import)\n",
           1e3 * t_here, 1e3 * t_child, t_child / t_here, 1e3 * (t_child - t_here));
    printf("  memory in process %.1f MiB, helper %.1f MiB (caller and helper together): %.2fx; "
           "the caller alone %.1f MiB\n",
           peak_here / 1024.0, peak_child / 1024.0, peak_child / peak_here, caller / 1024.0);
    free(here);
    free(child);
}

int main(int argc, char **argv) {
    int runs = 21, first = 1;
    if (argc > 2 && strcmp(argv[1], "--runs") == 0) {
        runs = atoi(argv[2]);
        first = 3;
    }
    if (runs < 1) {
        fprintf(stderr, "usage: bench_import [--runs N] [FILE...]\n");
        return 1;
    }
    printf("bench_import: %d imports each way per file, medians\n", runs);
    if (first >= argc) {
        bench_file("/usr/share/assimp/models/X/Testwuson.X", runs);
        bench_file("/usr/share/assimp/models/FBX/animation_with_skeleton.fbx", runs);
    }
    for (int i = first; i < argc; i++) {
        bench_file(argv[i], runs);
    }
    return 0;
}
