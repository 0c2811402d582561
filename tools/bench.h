/* bench.h - side-by-side measurement of the playback modes, shared by
 * `crowd bench` and `crowd demo`, and its reports (text table, JSON, CSV,
 * gnuplot chart). docs/bench.md documents the JSON fields.
 *
 * bench_run draws the same crowd (scene.h, one seed) with one renderer per
 * (crowd size, mode) pair, all in one context. It runs warmup + frames
 * rounds; each round draws one frame of every pair at the same global time,
 * in an order shuffled afresh every round, so that drift (heat, other
 * processes) and the cost of following a long or short frame hit every pair
 * alike. Warm-up rounds are not recorded. Per frame it keeps the renderer's
 * statistics: thread CPU time of the frame's CPU work
 * (crowd_renderer_stats.cpu_time_s), wall time until the GPU finished
 * (frame_time_s), the part of the former spent on crowd's own animation
 * work, and the CPU time of the whole process during the draw (with a
 * software rasterizer: every thread's rendering work, a measure that other
 * processes on the machine disturb less than wall time). Summaries are the
 * median with the 10th and 90th percentiles.
 */
#ifndef CROWD_TOOLS_BENCH_H
#define CROWD_TOOLS_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "crowd/gpu.h"
#include "scene.h"

#define BENCH_MAX_COUNTS 32u

typedef struct bench_config {
    const char *model; /* as given, for the reports */
    crowd_gpu_mode modes[CROWD_GPU_MODE_COUNT];
    uint32_t mode_count;
    uint32_t counts[BENCH_MAX_COUNTS];
    uint32_t count_count;
    uint32_t width, height;
    uint32_t frames, warmup;
    double frame_step_s; /* global time advance per round */
    uint64_t seed;
    bool quiet; /* no progress on stderr */
} bench_config;

typedef struct bench_summary {
    double median, p10, p90, min, max, mean;
} bench_summary;

typedef struct bench_cell {
    crowd_gpu_mode mode;
    uint32_t count;
    bench_summary cpu_ms;         /* application CPU time per frame */
    bench_summary frame_ms;       /* wall time until the GPU finished */
    bench_summary animation_ms;   /* crowd's own animation work (cpu_animation_time_s) */
    bench_summary process_cpu_ms; /* CPU time of every thread of the process during the draw */
    uint32_t draw_calls;          /* crowd draws per frame */
    uint32_t extra_draw_calls;    /* ground */
    uint64_t vertices;            /* crowd vertices submitted per frame */
    uint64_t uploaded_bytes;      /* median bytes uploaded per frame */
    uint64_t gpu_memory_bytes;
} bench_cell;

typedef struct bench_machine {
    char cpu[256];      /* /proc/cpuinfo "model name", or "unknown" */
    uint32_t cpu_count; /* online CPUs */
    char gl_platform[64], gl_vendor[128], gl_renderer[256], gl_version[128];
    bool software;
    bool gl_thread; /* mesa_glthread=true in the environment */
} bench_machine;

typedef struct bench_results {
    bench_config config;
    bench_machine machine;
    uint32_t vertex_count, joint_count, clip_count;
    bench_cell *cells; /* [count index][mode index] */
    double seconds;    /* wall time of the measurement */
} bench_results;

/* Measures every (count, mode) of config on `character` in `context`. On
 * failure the error says what; *out is then empty (bench_results_release
 * is still safe). */
crowd_result bench_run(crowd_gpu_context *context, const scene_character *character,
                       const bench_config *config, bench_results *out, crowd_error *error);
void bench_results_release(bench_results *results);

const bench_cell *bench_cell_at(const bench_results *results, uint32_t count_index,
                                uint32_t mode_index);
/* value / static's value at the same count; NAN without static or when
 * static's value is 0. field: 0 cpu_ms, 1 frame_ms, 2 draw calls, 3 GPU memory. */
double bench_ratio(const bench_results *results, uint32_t count_index, uint32_t mode_index,
                   int field);

/* "1.23x", "45.6x", "789x", or "-" for NAN (no static to compare with). */
void bench_format_ratio(char *out, size_t size, double ratio);

/* Fills machine with the CPU and GL names. */
void bench_machine_describe(const crowd_gpu_context *context, bench_machine *machine);

/* Reports. The text table goes to `out`; the others write files and return
 * false (after printing an error) when they cannot. */
void bench_print_header(FILE *out, const bench_results *results);
void bench_print_table(FILE *out, const bench_results *results);
bool bench_write_json(const char *path, const bench_results *results);
bool bench_write_csv(const char *path, const bench_results *results);
/* Draws the chart with gnuplot. Returns 0 when written, 1 when gnuplot is
 * not installed (nothing written), -1 on failure (printed). */
int bench_write_chart(const char *path, const bench_results *results);

#endif
