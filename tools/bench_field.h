/* bench_field.h - `crowd bench --scene field`: the view a game has of a
 * large crowd. N characters stand scattered over a square field; the camera
 * is at eye height in the middle of it, looking along it, so most of the
 * crowd is behind, beside or far away. For each N, four ways to draw the
 * same frame, interleaved round by round in a shuffled order (bench.h):
 *   floor    the cheapest instanced static draw of the mesh (floor.h), all N
 *   brute    crowd in the mode asked for, every character at LOD0
 *            (CROWD_CULL_OFF)
 *   cull     GPU culling against the animated bounds, LOD0 (CROWD_CULL_GPU)
 *   cull+lod GPU culling and LODs by projected error (1 pixel)
 * and per way: characters drawn, vertices shaded, draw calls, frame time
 * (until the GPU finished), application CPU time, GPU memory per character,
 * as ratios to brute force and to the floor. Brute force and the floor are
 * left out (reported as skipped) above `brute_limit` vertices a frame,
 * where one frame of a software rasterizer takes minutes. Ways left out of
 * `ways` are not drawn at all: a profiler run under one of them (such as
 * callgrind's instruction counts, docs/bench.md) then sees its work alone.
 */
#ifndef CROWD_TOOLS_BENCH_FIELD_H
#define CROWD_TOOLS_BENCH_FIELD_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

#define FIELD_WAYS 4
#define FIELD_ALL_WAYS ((1u << FIELD_WAYS) - 1u)

/* Why a cell was not measured. */
typedef enum field_skip {
    FIELD_MEASURED,
    FIELD_OVER_LIMIT, /* brute force or the floor above the vertex limit */
    FIELD_NOT_ASKED   /* the way is not in `ways` */
} field_skip;

typedef struct field_cell {
    uint32_t count;
    field_skip skip;
    bench_summary frame_ms, cpu_ms;
    /* Frame time over brute force's and the floor's in the same round,
     * summarized over the rounds: two frames drawn moments apart see the
     * same throttling, so these spread less from run to run than the ratio
     * of the two medians. Every field NAN when either way was not measured. */
    bench_summary paired_vs_brute, paired_vs_floor;
    double *frame_ms_rounds; /* the measured frames in round order (owned) */
    uint64_t visible, vertices;
    /* visible split by the LOD level it was drawn at (the floor's: all at 0) */
    uint64_t visible_per_lod[CROWD_BAKE_MAX_LODS];
    uint64_t one_fetch; /* of the visible, drawn with the nearest frame (one fetch) */
    uint32_t draw_calls;
    uint64_t gpu_memory_bytes;
    uint64_t record_memory_bytes; /* crowd_world_stats.record_memory_bytes; the floor's matrices */
} field_cell;

typedef struct field_results {
    const char *model;
    crowd_gpu_mode mode;
    uint32_t width, height, frames, warmup;
    uint64_t brute_limit;
    uint32_t ways; /* bit w: way w was asked for */
    uint32_t vertex_count, lod_count;
    bench_machine machine;
    uint32_t count_count;
    uint32_t counts[BENCH_MAX_COUNTS];
    field_cell cells[BENCH_MAX_COUNTS][FIELD_WAYS]; /* [count][way] */
    double seconds;
} field_results;

extern const char *const field_way_names[FIELD_WAYS];

/* The ways named in "a,b,..." (of field_way_names) as bits into *ways;
 * false, having said why on stderr, for an unknown or missing name. */
bool bench_field_parse_ways(const char *text, uint32_t *ways);

/* Measures the ways in `ways` (bits, at least one) of the field at every
 * count of `config` (its first mode, width, height, frames, warmup, seed)
 * on `character`, which must have a bake. Release `out` with
 * bench_field_results_release. */
crowd_result bench_field_run(host_context *context, const scene_character *character,
                             const bench_config *config, uint64_t brute_limit, uint32_t ways,
                             field_results *out, crowd_error *error);
/* Frees what bench_field_run allocated in `results` (also after a failure). */
void bench_field_results_release(field_results *results);
void bench_field_print(FILE *out, const field_results *results);
bool bench_field_write_json(const char *path, const field_results *results);
/* Frame and application CPU time against the count, a line per way
 * (skipped cells left out); returns as bench_chart_write. */
int bench_field_write_chart(const char *path, const field_results *results);

#endif
