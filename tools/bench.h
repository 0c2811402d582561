/* bench.h - side-by-side measurement of the playback modes, shared by
 * `crowd bench` and `crowd demo`, and its reports (text table, JSON, CSV,
 * gnuplot chart). docs/bench.md documents the JSON fields.
 *
 * bench_run draws the same crowd (scene.h, one seed) with one crowd_world
 * per (crowd size, mode) pair, all in one context and into one offscreen
 * target: each world holds `archetypes` archetypes of the character in that
 * mode, the instances taking turns among them. It runs warmup + frames
 * rounds; each round draws one frame of every pair at the same global time,
 * in an order shuffled afresh every round, so that drift (heat, other
 * processes) and the cost of following a long or short frame hit every pair
 * alike. Warm-up rounds are not recorded.
 *
 * A frame is what an application does (stage.h): crowd_world_update, clear,
 * crowd's draws (a shadow map pass first with `shadows`), then the bench
 * waits for the GPU with glFinish, its own choice, so the frame time is
 * complete. Per frame it keeps: the thread CPU time of the update and draws
 * (the application's CPU work; the world's own share is its stats'
 * cpu_time_s, gathered with crowd_world_desc.timing), the wall time until
 * the GPU finished, the part of the CPU time spent on crowd's own animation
 * work, the CPU time of the whole process over the frame (with a software
 * rasterizer: every thread's rendering work, a measure that other processes
 * disturb less than wall time), and the GPU time of the world's draws from
 * its timer queries when the driver has delivered them.
 *
 * With `no_wait` the bench does not wait for each frame: it keeps at most
 * two frames of each pair in flight (a fence, waited for before the pair's
 * next frame and outside the measurement), as a game's swap chain does, and
 * the frame time is the wall time of the update and draws alone. A renderer
 * that stalled on the GPU (mapping a buffer the GPU still reads, reading a
 * query result early) would show it there as the GPU gets slower, e.g. at
 * large sizes and counts. Summaries are the median with the 10th and 90th
 * percentiles.
 *
 * With several tiers (bench_config.tiers, `--tiers gl45,portable`) every
 * (size, mode) pair gets one world per tier, all on the one context: a
 * round then draws the pairs in shuffled order and each pair's tiers back
 * to back, in an order drawn afresh for every pair and round. The two
 * frames compared are thus moments apart (a throttled CPU slows both), and
 * neither tier always goes first (the first frame follows another pair's,
 * the second its twin's). Each cell is also divided by its GL 4.5 twin,
 * as a ratio of medians and as the median of the per-round ratios.
 */
#ifndef CROWD_TOOLS_BENCH_H
#define CROWD_TOOLS_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "crowd/gpu.h"
#include "host.h"
#include "scene.h"

#define BENCH_MAX_COUNTS 32u
#define BENCH_MAX_TIERS 2u

typedef struct bench_config {
    const char *model; /* as given, for the reports */
    crowd_gpu_mode modes[CROWD_GPU_MODE_COUNT];
    uint32_t mode_count;
    uint32_t counts[BENCH_MAX_COUNTS];
    uint32_t count_count;
    uint32_t archetypes; /* per world; 0 = 1 */
    bool shadows;        /* a shadow map pass before the colour pass */
    bool no_wait;        /* see above */
    /* The worlds' GL state policy: false, the CLI's CROWD_STATE_RESET
     * (stage.h); true, CROWD_STATE_RESTORE, crowd's default, to compare. */
    bool restore_state;
    uint32_t width, height;
    uint32_t frames, warmup;
    double frame_step_s; /* global time advance per round */
    uint64_t seed;
    bool quiet;          /* no progress on stderr */
    crowd_gpu_tier tier; /* the worlds' crowd_world_desc.tier (one tier) */
    /* Several tiers side by side (gl45, portable: never auto); tier_count 0
     * means one, `tier`. */
    crowd_gpu_tier tiers[BENCH_MAX_TIERS];
    uint32_t tier_count;
    host_context_api context;      /* the context asked for */
    crowd_frame_fetch frame_fetch; /* crowd_draw_desc.frame_fetch of every draw */
} bench_config;

typedef struct bench_summary {
    double median, p10, p90, min, max, mean;
} bench_summary;

typedef struct bench_cell {
    crowd_gpu_mode mode;
    uint32_t count;
    crowd_gpu_tier tier;          /* the tier its world ran (crowd_world_stats.tier) */
    bench_summary cpu_ms;         /* application CPU time per frame */
    bench_summary cull_ms;        /* crowd's CPU culling inside it (cpu_cull_time_s) */
    bench_summary frame_ms;       /* wall time until the GPU finished (no_wait: of the submit) */
    bench_summary animation_ms;   /* crowd's own animation work (cpu_animation_time_s) */
    bench_summary process_cpu_ms; /* CPU time of every thread of the process over the frame */
    bench_summary gpu_ms;         /* the world's draws on the GPU (timer queries) */
    uint32_t gpu_samples;         /* frames whose GPU time arrived; 0: gpu_ms is unknown */
    uint32_t archetypes;          /* archetypes in the world */
    uint32_t passes;              /* crowd passes per frame: 1, or 2 with a shadow map */
    uint32_t draw_calls;          /* crowd draws per frame, every pass */
    uint32_t extra_draw_calls;    /* other draws: none, the bench draws no ground */
    uint64_t vertices;            /* crowd vertices submitted per frame */
    uint64_t uploaded_bytes;      /* median bytes uploaded per frame */
    uint64_t gpu_memory_bytes;
    /* cpu_ms over the GL 4.5 twin's (same size and mode) round by round;
     * valid when several tiers ran, gl45 among them. */
    bench_summary cpu_vs_gl45_paired;
    bool has_gl45_twin;
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
    bench_cell *cells;   /* [count index][mode index][tier index] */
    double seconds;      /* wall time of the measurement */
    crowd_gpu_tier tier; /* the tier the (first tier's) worlds ran */
} bench_results;

/* Measures every (count, mode) of config on `character` in `context` (the
 * character must play every mode of config). On failure the error says
 * what; *out is then empty (bench_results_release is still safe). */
crowd_result bench_run(host_context *context, const scene_character *character,
                       const bench_config *config, bench_results *out, crowd_error *error);
void bench_results_release(bench_results *results);

/* The cell of the first tier, and of tier index tier_index. */
const bench_cell *bench_cell_at(const bench_results *results, uint32_t count_index,
                                uint32_t mode_index);
const bench_cell *bench_tier_cell_at(const bench_results *results, uint32_t count_index,
                                     uint32_t mode_index, uint32_t tier_index);
/* value / static's value at the same count (and tier); NAN without static
 * or when static's value is 0. field: 0 cpu_ms, 1 frame_ms, 2 draw calls,
 * 3 GPU memory. bench_ratio is the first tier's. */
double bench_ratio(const bench_results *results, uint32_t count_index, uint32_t mode_index,
                   int field);
double bench_tier_ratio(const bench_results *results, uint32_t count_index, uint32_t mode_index,
                        uint32_t tier_index, int field);
/* value / the GL 4.5 tier's at the same count and mode (fields as above);
 * NAN with a single tier, without gl45 among the tiers, or a 0 base. */
double bench_ratio_to_gl45(const bench_results *results, uint32_t count_index, uint32_t mode_index,
                           uint32_t tier_index, int field);

/* "1.23x", "45.6x", "789x", or "-" for NAN (no static to compare with). */
void bench_format_ratio(char *out, size_t size, double ratio);

/* Fills machine with the CPU and GL names. */
void bench_machine_describe(const host_context *context, bench_machine *machine);

/* Reports. The text table goes to `out`; the others write files and return
 * false (after printing an error) when they cannot. */
void bench_print_header(FILE *out, const bench_results *results);
void bench_print_table(FILE *out, const bench_results *results);
bool bench_write_json(const char *path, const bench_results *results);
bool bench_write_csv(const char *path, const bench_results *results);
/* Median, percentiles, extremes and mean of n > 0 values (sorts them). */
bench_summary bench_summarize(double *values, uint32_t n);
/* The summary as a JSON object (cJSON), milliseconds to the nanosecond. */
struct cJSON *bench_summary_json(const bench_summary *s);
/* Writes `text` to path through a temporary file renamed into place;
 * false (printed) when it cannot. */
bool bench_write_text(const char *path, const char *text);
/* A chart: frame and application CPU time against crowd size, one line
 * per mode or way of drawing, each point a median with its percentiles. */
#define BENCH_CHART_MAX_LINES 10 /* five modes x two tiers */
typedef struct bench_chart_line {
    const char *title, *colour; /* colour as '#rrggbb' */
    uint32_t point_count;
    uint32_t counts[BENCH_MAX_COUNTS];
    bench_summary frame_ms[BENCH_MAX_COUNTS], cpu_ms[BENCH_MAX_COUNTS];
} bench_chart_line;
typedef struct bench_chart {
    const char *model;
    const bench_machine *machine;
    uint32_t line_count;
    bench_chart_line lines[BENCH_CHART_MAX_LINES];
} bench_chart;
/* A new line of `chart` (NULL when it has BENCH_CHART_MAX_LINES already),
 * and a point appended to a line (ignored past BENCH_MAX_COUNTS). */
bench_chart_line *bench_chart_add_line(bench_chart *chart, const char *title, const char *colour);
void bench_chart_add_point(bench_chart_line *line, uint32_t count, const bench_summary *frame_ms,
                           const bench_summary *cpu_ms);
/* Draws `chart` with gnuplot. Returns 0 when written, 1 when gnuplot is
 * not installed (nothing written), -1 on failure (printed). */
int bench_chart_write(const char *path, const bench_chart *chart);
/* The chart of `results`, one line per mode; returns as bench_chart_write. */
int bench_write_chart(const char *path, const bench_results *results);

#endif
