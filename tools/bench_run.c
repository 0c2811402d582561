/* bench_run.c - the measurement loop of bench.h: one world per (size,
 * mode, tier), the same crowd in each, drawn interleaved round by round. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <epoxy/gl.h>

#include "bench.h"
#include "cli.h"
#include "stage.h"

/* Frames of one pair the GPU may still be drawing under no_wait. */
#define IN_FLIGHT 2u

static void copy_text(char *dst, size_t size, const char *src) {
    snprintf(dst, size, "%s", src != NULL ? src : "unknown");
}

/* "model name : AMD EPYC 7B13" from /proc/cpuinfo (x86; other machines
 * name the CPU differently, and "unknown" is then honest). */
static void cpu_name(char *out, size_t size) {
    copy_text(out, size, "unknown");
    FILE *file = fopen("/proc/cpuinfo", "r");
    if (file == NULL) {
        return;
    }
    char line[512];
    while (fgets(line, sizeof line, file) != NULL) {
        if (strncmp(line, "model name", 10) != 0) {
            continue;
        }
        const char *colon = strchr(line, ':');
        if (colon != NULL) {
            const char *start = colon + 1;
            while (*start == ' ' || *start == '\t') {
                start++;
            }
            size_t length = strcspn(start, "\r\n");
            snprintf(out, size, "%.*s", (int)length, start);
        }
        break;
    }
    fclose(file);
}

void bench_machine_describe(const host_context *context, bench_machine *machine) {
    memset(machine, 0, sizeof *machine);
    cpu_name(machine->cpu, sizeof machine->cpu);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    machine->cpu_count = cpus > 0 ? (uint32_t)cpus : 1;
    host_context_info info;
    host_context_get_info(context, &info);
    copy_text(machine->gl_platform, sizeof machine->gl_platform, info.platform);
    copy_text(machine->gl_vendor, sizeof machine->gl_vendor, info.vendor);
    copy_text(machine->gl_renderer, sizeof machine->gl_renderer, info.renderer);
    copy_text(machine->gl_version, sizeof machine->gl_version, info.version);
    machine->software = info.software;
    const char *gl_thread = getenv("mesa_glthread");
    machine->gl_thread = gl_thread != NULL && strcmp(gl_thread, "true") == 0;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Percentile p of sorted values, interpolating between neighbours. */
static double percentile(const double *sorted, uint32_t n, double p) {
    double at = p * (double)(n - 1);
    uint32_t lo = (uint32_t)floor(at);
    uint32_t hi = lo + 1 < n ? lo + 1 : lo;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - (double)lo);
}

bench_summary bench_summarize(double *values, uint32_t n) {
    qsort(values, n, sizeof *values, compare_double);
    double sum = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        sum += values[i];
    }
    return (bench_summary){
        .mean = sum / n,
        .median = percentile(values, n, 0.5),
        .p10 = percentile(values, n, 0.1),
        .p90 = percentile(values, n, 0.9),
        .min = values[0],
        .max = values[n - 1],
    };
}

const bench_cell *bench_tier_cell_at(const bench_results *results, uint32_t count_index,
                                     uint32_t mode_index, uint32_t tier_index) {
    const bench_config *c = &results->config;
    return &results->cells[(count_index * c->mode_count + mode_index) * c->tier_count + tier_index];
}

const bench_cell *bench_cell_at(const bench_results *results, uint32_t count_index,
                                uint32_t mode_index) {
    return bench_tier_cell_at(results, count_index, mode_index, 0);
}

/* Field of bench_ratio: 0 cpu_ms, 1 frame_ms, 2 draw calls, 3 GPU memory. */
static double cell_value(const bench_cell *cell, int field) {
    switch (field) {
    case 0:
        return cell->cpu_ms.median;
    case 1:
        return cell->frame_ms.median;
    case 2:
        return cell->draw_calls;
    default:
        return (double)cell->gpu_memory_bytes;
    }
}

static double value_ratio(const bench_cell *cell, const bench_cell *base, int field) {
    double b = cell_value(base, field);
    return b > 0.0 ? cell_value(cell, field) / b : NAN;
}

double bench_tier_ratio(const bench_results *results, uint32_t count_index, uint32_t mode_index,
                        uint32_t tier_index, int field) {
    for (uint32_t m = 0; m < results->config.mode_count; m++) {
        if (results->config.modes[m] == CROWD_GPU_MODE_STATIC) {
            return value_ratio(bench_tier_cell_at(results, count_index, mode_index, tier_index),
                               bench_tier_cell_at(results, count_index, m, tier_index), field);
        }
    }
    return NAN;
}

double bench_ratio(const bench_results *results, uint32_t count_index, uint32_t mode_index,
                   int field) {
    return bench_tier_ratio(results, count_index, mode_index, 0, field);
}

/* The tier index of gl45 when several tiers ran, else -1. */
static int gl45_tier_index(const bench_config *c) {
    for (uint32_t t = 0; c->tier_count > 1 && t < c->tier_count; t++) {
        if (c->tiers[t] == CROWD_TIER_GL45) {
            return (int)t;
        }
    }
    return -1;
}

double bench_ratio_to_gl45(const bench_results *results, uint32_t count_index, uint32_t mode_index,
                           uint32_t tier_index, int field) {
    int base = gl45_tier_index(&results->config);
    if (base < 0) {
        return NAN;
    }
    return value_ratio(bench_tier_cell_at(results, count_index, mode_index, tier_index),
                       bench_tier_cell_at(results, count_index, mode_index, (uint32_t)base), field);
}

/* One (count, mode, tier) cell: its own world holding the crowd, so that
 * every cell can be drawn in any order, and the frames measured for it. */
typedef struct cell_state {
    crowd_world *world;
    crowd_archetype *archetypes;
    crowd_instance *ids;
    crowd_camera camera;
    double *cpu_ms, *frame_ms, *animation_ms, *cull_ms, *process_cpu_ms, *gpu_ms, *uploaded;
    uint32_t gpu_samples;
    GLsync in_flight[IN_FLIGHT]; /* no_wait: fences of the last frames */
    uint32_t frame_index;
    crowd_world_stats last;
} cell_state;

static void cells_release(cell_state *cells, uint32_t n) {
    for (uint32_t i = 0; cells != NULL && i < n; i++) {
        for (uint32_t k = 0; k < IN_FLIGHT; k++) {
            if (cells[i].in_flight[k] != NULL) {
                glDeleteSync(cells[i].in_flight[k]);
            }
        }
        crowd_world_destroy(cells[i].world);
        free(cells[i].archetypes);
        free(cells[i].ids);
        free(cells[i].cpu_ms);
        free(cells[i].frame_ms);
        free(cells[i].animation_ms);
        free(cells[i].cull_ms);
        free(cells[i].process_cpu_ms);
        free(cells[i].gpu_ms);
        free(cells[i].uploaded);
    }
    free(cells);
}

static crowd_result cell_init(cell_state *cell, const scene_character *character,
                              const bench_config *c, const bench_cell *what, crowd_error *error) {
    crowd_gpu_mode mode = what->mode;
    uint32_t count = what->count;
    cell->archetypes = calloc(c->archetypes, sizeof *cell->archetypes);
    cell->ids = calloc(count, sizeof *cell->ids);
    double **series[] = {&cell->cpu_ms, &cell->frame_ms, &cell->animation_ms,  &cell->cull_ms,
                         &cell->gpu_ms, &cell->uploaded, &cell->process_cpu_ms};
    bool allocated = cell->archetypes != NULL && cell->ids != NULL;
    for (size_t k = 0; k < sizeof series / sizeof series[0]; k++) {
        *series[k] = calloc(c->frames, sizeof(double));
        allocated = allocated && *series[k] != NULL;
    }
    if (!allocated) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    crowd_world_desc desc = stage_world_desc(count, (crowd_logger){0});
    desc.state = c->restore_state ? CROWD_STATE_RESTORE : CROWD_STATE_RESET;
    desc.tier = what->tier;
    crowd_result result = crowd_world_create(&desc, &cell->world, error);
    for (uint32_t a = 0; result == CROWD_OK && a < c->archetypes; a++) {
        result =
            scene_archetype_add(cell->world, character, mode, NULL, &cell->archetypes[a], error);
    }
    if (result == CROWD_OK) {
        result = scene_populate(cell->world, cell->archetypes, c->archetypes, c->seed, count,
                                cell->ids, error);
    }
    if (result == CROWD_OK) {
        scene_camera(cell->world, cell->archetypes[0], (float)c->width / (float)c->height, 0.35f,
                     0.45f, 1.0f, &cell->camera);
    }
    return result;
}

static void progress(const bench_config *c, uint32_t round) {
    if (c->quiet || !isatty(STDERR_FILENO)) {
        return;
    }
    fprintf(stderr, "\rcrowd: bench: round %u of %u   ", (unsigned)round + 1,
            (unsigned)(c->warmup + c->frames));
    fflush(stderr);
}

/* Under no_wait, lets at most IN_FLIGHT frames of the pair be unfinished:
 * waits for the oldest one's fence (outside the measured frame). */
static void cell_throttle(cell_state *cell) {
    GLsync *oldest = &cell->in_flight[cell->frame_index % IN_FLIGHT];
    if (*oldest != NULL) {
        glClientWaitSync(*oldest, GL_SYNC_FLUSH_COMMANDS_BIT, UINT64_MAX);
        glDeleteSync(*oldest);
        *oldest = NULL;
    }
}

static void cell_record(cell_state *cell, const stage_timing *timing, int f) {
    crowd_world_get_stats(cell->world, &cell->last);
    if (f < 0) {
        return;
    }
    cell->cpu_ms[f] = timing->cpu_s * 1e3;
    cell->frame_ms[f] = timing->wall_s * 1e3;
    cell->animation_ms[f] = cell->last.cpu_animation_time_s * 1e3;
    cell->cull_ms[f] = cell->last.cpu_cull_time_s * 1e3;
    cell->process_cpu_ms[f] = timing->process_cpu_s * 1e3;
    cell->uploaded[f] = (double)cell->last.uploaded_bytes;
    if (cell->last.gpu_time_frames_ago > 0) {
        cell->gpu_ms[cell->gpu_samples++] = cell->last.gpu_time_s * 1e3;
    }
}

static void shuffle(uint32_t *values, uint32_t n, uint64_t *random) {
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = (uint32_t)(scene_random_u64(random) % i), t = values[i - 1];
        values[i - 1] = values[j];
        values[j] = t;
    }
}

static crowd_result cell_draw(cell_state *cell, stage *st, const host_target *target,
                              const bench_config *c, double time_s, int f, crowd_error *error) {
    if (c->no_wait) {
        cell_throttle(cell);
    }
    stage_timing timing;
    crowd_result result =
        stage_frame(st, cell->world, target, &cell->camera, time_s, !c->no_wait, &timing, error);
    if (result != CROWD_OK) {
        return result;
    }
    if (c->no_wait) {
        cell->in_flight[cell->frame_index % IN_FLIGHT] =
            glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    }
    cell->frame_index++;
    cell_record(cell, &timing, f);
    return CROWD_OK;
}

/* Draws every cell once at global time time_s, the (count, mode) pairs in
 * a fresh random order and each pair's tiers one after the other, also in
 * a fresh order; records the frame as number `f` unless f < 0 (warm-up).
 * The order is shuffled so that no cell always follows the same other one:
 * on a CPU rasterizer the calling thread's next burst of work costs more
 * after a long frame (its caches and the core's state went cold while it
 * waited), and a fixed order would charge that to the cells after the long
 * frames. A pair's tiers are drawn together so that what slows the machine
 * for a while (throttling, another process) slows both alike. */
static crowd_result round_draw(cell_state *cells, uint32_t pairs, uint32_t *order, uint64_t *random,
                               stage *st, const host_target *target, const bench_config *c,
                               double time_s, int f, crowd_error *error) {
    shuffle(order, pairs, random);
    for (uint32_t k = 0; k < pairs; k++) {
        uint32_t tiers[BENCH_MAX_TIERS] = {0, 1};
        shuffle(tiers, c->tier_count, random);
        for (uint32_t t = 0; t < c->tier_count; t++) {
            crowd_result result = cell_draw(&cells[order[k] * c->tier_count + tiers[t]], st, target,
                                            c, time_s, f, error);
            if (result != CROWD_OK) {
                return result;
            }
        }
    }
    return CROWD_OK;
}

/* Each cell's app CPU time over its GL 4.5 twin's, frame by frame (before
 * the series are sorted by their summaries). */
static void pair_with_gl45(cell_state *cells, const bench_config *c, bench_cell *out) {
    int base = gl45_tier_index(c);
    uint32_t n = c->count_count * c->mode_count * c->tier_count;
    double *ratios = base >= 0 ? calloc(c->frames, sizeof *ratios) : NULL;
    for (uint32_t i = 0; ratios != NULL && i < n; i++) {
        const cell_state *twin = &cells[i - i % c->tier_count + (uint32_t)base];
        uint32_t kept = 0;
        for (uint32_t f = 0; f < c->frames; f++) {
            if (twin->cpu_ms[f] > 0.0) {
                ratios[kept++] = cells[i].cpu_ms[f] / twin->cpu_ms[f];
            }
        }
        out[i].has_gl45_twin = kept > 0;
        if (kept > 0) {
            out[i].cpu_vs_gl45_paired = bench_summarize(ratios, kept);
        }
    }
    free(ratios);
}

static void cell_summarize(cell_state *cell, const bench_config *c, bench_cell *out) {
    out->cpu_ms = bench_summarize(cell->cpu_ms, c->frames);
    out->frame_ms = bench_summarize(cell->frame_ms, c->frames);
    out->animation_ms = bench_summarize(cell->animation_ms, c->frames);
    out->cull_ms = bench_summarize(cell->cull_ms, c->frames);
    out->process_cpu_ms = bench_summarize(cell->process_cpu_ms, c->frames);
    out->gpu_samples = cell->gpu_samples;
    if (cell->gpu_samples > 0) {
        out->gpu_ms = bench_summarize(cell->gpu_ms, cell->gpu_samples);
    }
    out->uploaded_bytes = (uint64_t)bench_summarize(cell->uploaded, c->frames).median;
    out->archetypes = cell->last.archetype_count;
    out->passes = cell->last.passes;
    out->draw_calls = cell->last.draw_calls;
    out->vertices = cell->last.vertices_drawn;
    out->gpu_memory_bytes = cell->last.gpu_memory_bytes;
}

static crowd_result measure(host_context *context, const scene_character *character,
                            bench_results *out, crowd_error *error) {
    const bench_config *c = &out->config;
    uint32_t pairs = c->count_count * c->mode_count, n = pairs * c->tier_count;
    cell_state *cells = calloc(n, sizeof *cells);
    uint32_t *order = calloc(pairs, sizeof *order);
    host_target target = {0};
    stage st = {0};
    crowd_result result = CROWD_OK;
    if (cells == NULL || order == NULL) {
        result = crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    if (result == CROWD_OK) {
        result = host_target_resize(&target, c->width, c->height, error);
    }
    if (result == CROWD_OK) {
        result = stage_create(context, false, c->shadows, &st, error);
        st.frame_fetch = c->frame_fetch;
    }
    for (uint32_t i = 0; result == CROWD_OK && i < n; i++) {
        uint32_t pair = i / c->tier_count;
        order[pair] = pair;
        out->cells[i].count = c->counts[pair / c->mode_count];
        out->cells[i].mode = c->modes[pair % c->mode_count];
        out->cells[i].tier = c->tiers[i % c->tier_count];
        result = cell_init(&cells[i], character, c, &out->cells[i], error);
        if (result == CROWD_OK) {
            crowd_world_stats stats;
            crowd_world_get_stats(cells[i].world, &stats);
            out->cells[i].tier = stats.tier;
        }
    }
    if (result == CROWD_OK) {
        out->clip_count = crowd_archetype_clip_count(cells[0].world, cells[0].archetypes[0]);
        out->tier = out->cells[0].tier;
    }
    uint64_t random = c->seed;
    for (uint32_t round = 0; result == CROWD_OK && round < c->warmup + c->frames; round++) {
        progress(c, round);
        int f = round < c->warmup ? -1 : (int)(round - c->warmup);
        result = round_draw(cells, pairs, order, &random, &st, &target, c, c->frame_step_s * round,
                            f, error);
    }
    if (result == CROWD_OK) {
        pair_with_gl45(cells, c, out->cells);
    }
    for (uint32_t i = 0; result == CROWD_OK && i < n; i++) {
        cell_summarize(&cells[i], c, &out->cells[i]);
    }
    cells_release(cells, n);
    stage_release(&st);
    host_target_release(&target);
    free(order);
    return result;
}

crowd_result bench_run(host_context *context, const scene_character *character,
                       const bench_config *config, bench_results *out, crowd_error *error) {
    memset(out, 0, sizeof *out);
    out->config = *config;
    if (out->config.archetypes == 0) {
        out->config.archetypes = 1;
    }
    if (out->config.tier_count == 0) {
        out->config.tier_count = 1;
        out->config.tiers[0] = config->tier;
    }
    bench_machine_describe(context, &out->machine);
    const crowd_asset *drawn = character->asset != NULL ? character->asset : character->bake->asset;
    out->vertex_count = drawn->mesh.vertex_count;
    out->joint_count = drawn->skeleton.joint_count;
    if (out->config.tier_count > BENCH_MAX_TIERS) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "at most %u tiers side by side", BENCH_MAX_TIERS);
    }
    if (config->mode_count == 0 || config->count_count == 0 || config->frames == 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "nothing to measure (no mode, count or frame)");
    }
    out->cells = calloc((size_t)config->count_count * config->mode_count * out->config.tier_count,
                        sizeof *out->cells);
    if (out->cells == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    double start = cli_wall_s();
    crowd_result result = measure(context, character, out, error);
    if (!config->quiet && isatty(STDERR_FILENO)) {
        fprintf(stderr, "\r%40s\r", "");
    }
    out->seconds = cli_wall_s() - start;
    if (result != CROWD_OK) {
        bench_results_release(out);
    }
    return result;
}

void bench_results_release(bench_results *results) {
    free(results->cells);
    results->cells = NULL;
}
