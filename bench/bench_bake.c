/* bench_bake - how fast `crowd bake` is (crowd/bake.h).
 *
 * For one model (default ../shared/models/robot.glb: all clips, 30 fps, VAT
 * and BAT), per VAT encoding: crowd_bake_build time on one thread and on
 * every CPU, baked vertex-frames per second (vertices x frames / build time),
 * crowd_bake_write time into a fresh temporary folder, the total (build +
 * write, the figure the < 2 s target is about) and the bytes written. Import
 * time is printed once. Every figure is the best of several runs, because
 * the machine is shared; the CPU and the load average are printed with them.
 *
 * Usage: bench_bake [MODEL] [runs]   (default robot.glb, 3 runs)
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_machine.h"
#include "crowd/bake.h"
#include "crowd/import.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void print_machine(void) {
    char model[256] = "unknown CPU";
    bench_cpu_name(model, sizeof model);
    double load[1] = {0.0};
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fscanf(f, "%lf", &load[0]) != 1) {
            load[0] = -1.0;
        }
        fclose(f);
    }
    printf("machine: %s, %ld online CPUs, load average %.2f\n", model,
           sysconf(_SC_NPROCESSORS_ONLN), load[0]);
}

/* Removes the files of a bake folder and the folder (it has no subfolders). */
static double remove_folder(const char *dir) {
    double bytes = 0.0;
    DIR *d = opendir(dir);
    struct dirent *entry;
    while (d != NULL && (entry = readdir(d)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) {
            continue;
        }
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
        if (stat(path, &st) == 0) {
            bytes += (double)st.st_size;
        }
        unlink(path);
    }
    if (d != NULL) {
        closedir(d);
    }
    rmdir(dir);
    return bytes;
}

typedef struct timing {
    double build_s, write_s, bytes;
    uint64_t vertex_frames;
} timing;

/* One build (+ write when `write` is set); false on failure (printed). */
static bool run_once(const crowd_asset *asset, crowd_vat_encoding encoding, uint32_t threads,
                     bool write, timing *out) {
    crowd_bake_desc desc = {.vat_encoding = encoding, .thread_count = threads};
    crowd_bake *bake = NULL;
    crowd_error error = {0};
    double start = now_s();
    if (crowd_bake_build(asset, &desc, &bake, &error) != CROWD_OK) {
        fprintf(stderr, "bench_bake: %s: %s\n", error.file, error.reason);
        return false;
    }
    out->build_s = now_s() - start;
    out->vertex_frames = (uint64_t)bake->vertex_count * bake->frame_count;
    out->write_s = 0.0;
    out->bytes = 0.0;
    if (write) {
        char dir[] = "/tmp/bench_bake.XXXXXX";
        if (mkdtemp(dir) == NULL) {
            perror("bench_bake: mkdtemp");
            crowd_bake_destroy(bake);
            return false;
        }
        start = now_s();
        crowd_result result = crowd_bake_write(bake, dir, NULL, &error);
        out->write_s = now_s() - start;
        out->bytes = remove_folder(dir);
        if (result != CROWD_OK) {
            fprintf(stderr, "bench_bake: %s: %s\n", error.file, error.reason);
            crowd_bake_destroy(bake);
            return false;
        }
    }
    crowd_bake_destroy(bake);
    return true;
}

static bool best_of(const crowd_asset *asset, crowd_vat_encoding encoding, uint32_t threads,
                    bool write, int runs, timing *best) {
    for (int r = 0; r < runs; r++) {
        timing t;
        if (!run_once(asset, encoding, threads, write, &t)) {
            return false;
        }
        if (r == 0 || t.build_s + t.write_s < best->build_s + best->write_s) {
            *best = t;
        }
    }
    return true;
}

int main(int argc, char **argv) {
    char default_model[1024];
    snprintf(default_model, sizeof default_model, "%s/robot.glb", CROWD_MODELS_DIR);
    const char *model = argc > 1 ? argv[1] : default_model;
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    runs = runs < 1 ? 1 : runs;
    print_machine();
    crowd_asset *asset = NULL;
    crowd_error error = {0};
    double start = now_s();
    if (crowd_model_load(model, NULL, &asset, &error) != CROWD_OK) {
        fprintf(stderr, "bench_bake: %s: %s\n", error.file, error.reason);
        return 1;
    }
    printf("model: %s, %u vertices, %u joints, %u clips, imported in %.3f s\n", model,
           asset->mesh.vertex_count, asset->skeleton.joint_count, asset->clip_count,
           now_s() - start);
    printf("best of %d runs, all clips at 30 fps, VAT + BAT (f32)\n\n", runs);
    printf("%-12s %10s %14s %10s %14s %9s %9s %11s\n", "encoding", "build 1T", "vtx-frames/s",
           "build all", "vtx-frames/s", "write", "total", "bytes");
    const crowd_vat_encoding encodings[] = {CROWD_VAT_UNORM16_OCT, CROWD_VAT_F16, CROWD_VAT_F32};
    const char *names[] = {"unorm16_oct", "f16", "f32"};
    int status = 0;
    for (int e = 0; e < 3 && status == 0; e++) {
        timing single, all;
        if (!best_of(asset, encodings[e], 1, false, runs, &single) ||
            !best_of(asset, encodings[e], 0, true, runs, &all)) {
            status = 1;
            break;
        }
        printf("%-12s %9.3fs %14.3g %9.3fs %14.3g %8.3fs %8.3fs %8.2f MiB\n", names[e],
               single.build_s, (double)single.vertex_frames / single.build_s, all.build_s,
               (double)all.vertex_frames / all.build_s, all.write_s, all.build_s + all.write_s,
               all.bytes / (1024.0 * 1024.0));
    }
    crowd_asset_destroy(asset);
    return status;
}
