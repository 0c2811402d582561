/* bench_run.c - the measurement loop of bench.h: one renderer per mode, the
 * same crowd in each, modes interleaved round by round. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static double clock_s(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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

void bench_machine_describe(const crowd_gpu_context *context, bench_machine *machine) {
    memset(machine, 0, sizeof *machine);
    cpu_name(machine->cpu, sizeof machine->cpu);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    machine->cpu_count = cpus > 0 ? (uint32_t)cpus : 1;
    crowd_gpu_context_info info;
    crowd_gpu_context_get_info(context, &info);
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

static bench_summary summarize(double *values, uint32_t n) {
    qsort(values, n, sizeof *values, compare_double);
    return (bench_summary){
        .median = percentile(values, n, 0.5),
        .p10 = percentile(values, n, 0.1),
        .p90 = percentile(values, n, 0.9),
        .min = values[0],
        .max = values[n - 1],
    };
}

const bench_cell *bench_cell_at(const bench_results *results, uint32_t count_index,
                                uint32_t mode_index) {
    return &results->cells[count_index * results->config.mode_count + mode_index];
}

double bench_ratio(const bench_results *results, uint32_t count_index, uint32_t mode_index,
                   int field) {
    for (uint32_t m = 0; m < results->config.mode_count; m++) {
        if (results->config.modes[m] != CROWD_GPU_MODE_STATIC) {
            continue;
        }
        const bench_cell *base = bench_cell_at(results, count_index, m);
        const bench_cell *cell = bench_cell_at(results, count_index, mode_index);
        double a, b;
        switch (field) {
        case 0:
            a = cell->cpu_ms.median, b = base->cpu_ms.median;
            break;
        case 1:
            a = cell->frame_ms.median, b = base->frame_ms.median;
            break;
        case 2:
            a = cell->draw_calls, b = base->draw_calls;
            break;
        default:
            a = (double)cell->gpu_memory_bytes, b = (double)base->gpu_memory_bytes;
            break;
        }
        return b > 0.0 ? a / b : NAN;
    }
    return NAN;
}

/* Per-mode sample arrays of one crowd size. */
typedef struct samples {
    double *cpu_ms, *frame_ms, *animation_ms, *process_cpu_ms, *uploaded;
} samples;

typedef struct run_state {
    const bench_config *config;
    crowd_renderer *renderers[CROWD_GPU_MODE_COUNT];
    crowd_instance_id *ids[CROWD_GPU_MODE_COUNT];
    samples samples[CROWD_GPU_MODE_COUNT];
} run_state;

static void state_release(run_state *s) {
    for (uint32_t m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        crowd_renderer_destroy(s->renderers[m]);
        free(s->ids[m]);
        free(s->samples[m].cpu_ms);
        free(s->samples[m].frame_ms);
        free(s->samples[m].animation_ms);
        free(s->samples[m].process_cpu_ms);
        free(s->samples[m].uploaded);
    }
}

static crowd_result state_init(run_state *s, crowd_gpu_context *context,
                               const scene_character *character, crowd_error *error) {
    const bench_config *c = s->config;
    uint32_t max_count = 1;
    for (uint32_t i = 0; i < c->count_count; i++) {
        max_count = c->counts[i] > max_count ? c->counts[i] : max_count;
    }
    for (uint32_t m = 0; m < c->mode_count; m++) {
        crowd_result result = scene_renderer_create(context, character, c->modes[m], max_count,
                                                    c->width, c->height, &s->renderers[m], error);
        if (result != CROWD_OK) {
            return result;
        }
        s->ids[m] = calloc(max_count, sizeof *s->ids[m]);
        s->samples[m].cpu_ms = calloc(c->frames, sizeof(double));
        s->samples[m].frame_ms = calloc(c->frames, sizeof(double));
        s->samples[m].animation_ms = calloc(c->frames, sizeof(double));
        s->samples[m].process_cpu_ms = calloc(c->frames, sizeof(double));
        s->samples[m].uploaded = calloc(c->frames, sizeof(double));
        if (s->ids[m] == NULL || s->samples[m].cpu_ms == NULL || s->samples[m].frame_ms == NULL ||
            s->samples[m].animation_ms == NULL || s->samples[m].process_cpu_ms == NULL ||
            s->samples[m].uploaded == NULL) {
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
        }
    }
    return CROWD_OK;
}

static void progress(const bench_config *c, uint32_t count, uint32_t round) {
    if (c->quiet || !isatty(STDERR_FILENO)) {
        return;
    }
    fprintf(stderr, "\rcrowd: bench: %u characters, round %u of %u   ", (unsigned)count,
            (unsigned)round + 1, (unsigned)(c->warmup + c->frames));
    fflush(stderr);
}

/* Every round of one crowd size; fills the row of cells at count_index. */
static crowd_result measure_count(run_state *s, uint32_t count_index, double *time_s,
                                  bench_results *out, crowd_error *error) {
    const bench_config *c = s->config;
    uint32_t count = c->counts[count_index];
    for (uint32_t m = 0; m < c->mode_count; m++) {
        crowd_result result = scene_populate(s->renderers[m], c->seed, count, s->ids[m], error);
        if (result != CROWD_OK) {
            return result;
        }
    }
    crowd_frame_desc frame = {0};
    scene_camera(s->renderers[0], (float)c->width / (float)c->height, 0.35f, 0.45f, 1.0f,
                 &frame.camera);
    crowd_renderer_stats last[CROWD_GPU_MODE_COUNT];
    for (uint32_t round = 0; round < c->warmup + c->frames; round++) {
        progress(c, count, round);
        frame.time_s = *time_s;
        for (uint32_t k = 0; k < c->mode_count; k++) {
            uint32_t m = (round + k) % c->mode_count;
            double process_start = clock_s(CLOCK_PROCESS_CPUTIME_ID);
            crowd_result result = crowd_renderer_draw(s->renderers[m], &frame, error);
            double process_end = clock_s(CLOCK_PROCESS_CPUTIME_ID);
            if (result != CROWD_OK) {
                return result;
            }
            crowd_renderer_get_stats(s->renderers[m], &last[m]);
            if (round >= c->warmup) {
                uint32_t f = round - c->warmup;
                s->samples[m].cpu_ms[f] = last[m].cpu_time_s * 1e3;
                s->samples[m].frame_ms[f] = last[m].frame_time_s * 1e3;
                s->samples[m].animation_ms[f] = last[m].cpu_animation_time_s * 1e3;
                s->samples[m].process_cpu_ms[f] = (process_end - process_start) * 1e3;
                s->samples[m].uploaded[f] = (double)last[m].uploaded_bytes;
            }
        }
        *time_s += c->frame_step_s;
    }
    for (uint32_t m = 0; m < c->mode_count; m++) {
        bench_cell *cell = &out->cells[count_index * c->mode_count + m];
        cell->mode = c->modes[m];
        cell->count = count;
        cell->cpu_ms = summarize(s->samples[m].cpu_ms, c->frames);
        cell->frame_ms = summarize(s->samples[m].frame_ms, c->frames);
        cell->animation_ms = summarize(s->samples[m].animation_ms, c->frames);
        cell->process_cpu_ms = summarize(s->samples[m].process_cpu_ms, c->frames);
        cell->uploaded_bytes = (uint64_t)summarize(s->samples[m].uploaded, c->frames).median;
        cell->draw_calls = last[m].draw_calls;
        cell->extra_draw_calls = last[m].extra_draw_calls;
        cell->vertices = last[m].vertices_drawn;
        cell->gpu_memory_bytes = last[m].gpu_memory_bytes;
    }
    return CROWD_OK;
}

crowd_result bench_run(crowd_gpu_context *context, const scene_character *character,
                       const bench_config *config, bench_results *out, crowd_error *error) {
    memset(out, 0, sizeof *out);
    out->config = *config;
    bench_machine_describe(context, &out->machine);
    const crowd_asset *drawn = character->asset != NULL ? character->asset : character->bake->asset;
    out->vertex_count = drawn->mesh.vertex_count;
    out->joint_count = drawn->skeleton.joint_count;
    if (config->mode_count == 0 || config->count_count == 0 || config->frames == 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "nothing to measure (no mode, count or frame)");
    }
    out->cells = calloc((size_t)config->count_count * config->mode_count, sizeof *out->cells);
    if (out->cells == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    run_state state = {.config = &out->config};
    double start = clock_s(CLOCK_MONOTONIC), time_s = 0.0;
    crowd_result result = state_init(&state, context, character, error);
    if (result == CROWD_OK) {
        out->clip_count = crowd_renderer_clip_count(state.renderers[0]);
    }
    for (uint32_t i = 0; result == CROWD_OK && i < config->count_count; i++) {
        result = measure_count(&state, i, &time_s, out, error);
    }
    if (!config->quiet && isatty(STDERR_FILENO)) {
        fprintf(stderr, "\r%60s\r", "");
    }
    state_release(&state);
    out->seconds = clock_s(CLOCK_MONOTONIC) - start;
    if (result != CROWD_OK) {
        bench_results_release(out);
    }
    return result;
}

void bench_results_release(bench_results *results) {
    free(results->cells);
    results->cells = NULL;
}
