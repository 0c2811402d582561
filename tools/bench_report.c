/* bench_report.c - the bench results as a text table, JSON (schema in
 * docs/bench.md) and CSV. Files are written to a temporary name in the same
 * folder and renamed into place, so a reader never sees half a report. */
#define _POSIX_C_SOURCE 200809L

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"

#define MIB (1024.0 * 1024.0)

/* Three significant digits for times from microseconds to seconds. */
static void format_ms(char *out, size_t size, double ms) {
    const char *format = ms >= 100.0 ? "%.0f" : ms >= 10.0 ? "%.1f" : ms >= 1.0 ? "%.2f" : "%.3f";
    snprintf(out, size, format, ms);
}

static void format_summary(char *out, size_t size, const bench_summary *s) {
    char median[24], p10[24], p90[24];
    format_ms(median, sizeof median, s->median);
    format_ms(p10, sizeof p10, s->p10);
    format_ms(p90, sizeof p90, s->p90);
    snprintf(out, size, "%s (%s-%s)", median, p10, p90);
}

void bench_format_ratio(char *out, size_t size, double ratio) {
    if (isnan(ratio)) {
        snprintf(out, size, "-");
    } else {
        snprintf(out, size, ratio >= 100.0 ? "%.0fx" : ratio >= 10.0 ? "%.1fx" : "%.2fx", ratio);
    }
}

void bench_print_header(FILE *out, const bench_results *r) {
    const bench_config *c = &r->config;
    const bench_machine *m = &r->machine;
    fprintf(out, "model: %s (%u vertices, %u joints, %u clips)\n", c->model,
            (unsigned)r->vertex_count, (unsigned)r->joint_count, (unsigned)r->clip_count);
    fprintf(out, "GL:    %s; %s; %s%s\n", m->gl_renderer, m->gl_version, m->gl_platform,
            m->software ? " (software rasterizer)" : "");
    fprintf(out, "CPU:   %s, %u online CPUs; GL driver thread (mesa_glthread): %s\n", m->cpu,
            (unsigned)m->cpu_count, m->gl_thread ? "on" : "off");
    if (c->tier_count > 1) {
        fprintf(out,
                "tiers: %s and %s side by side on one %s context, each size and mode drawn by "
                "both back to back\n",
                crowd_gpu_tier_name(r->cells[0].tier), crowd_gpu_tier_name(r->cells[1].tier),
                scene_context_label(c->context));
    } else {
        fprintf(out, "tier:  %s (asked: %s); context: %s\n", crowd_gpu_tier_name(r->tier),
                crowd_gpu_tier_name(c->tier), scene_context_label(c->context));
    }
    fprintf(out,
            "%ux%u pixels, no ground, %s; %u archetype%s per world; median (10th-90th "
            "percentile) of %u frames after %u warm-up frames, every size and mode interleaved "
            "in shuffled order\n",
            (unsigned)c->width, (unsigned)c->height,
            c->shadows ? "a shadow map pass + the colour pass" : "one colour pass",
            (unsigned)c->archetypes, c->archetypes == 1 ? "" : "s", (unsigned)c->frames,
            (unsigned)c->warmup);
    fprintf(out, "%s; crowd's GL state policy: %s\n",
            c->no_wait ? "frames not waited for (at most 2 in flight): frame ms = wall time of the "
                         "update and draws"
                       : "every frame waited for (glFinish): frame ms = until the GPU finished",
            c->restore_state ? "restore" : "reset");
}

/* With several tiers: the tier, and app CPU and frame time over the
 * GL 4.5 twin's (the CPU ratio is the median of the per-round ratios). */
static void print_tier_columns(FILE *out, const bench_results *r, const bench_cell *cell,
                               uint32_t ci, uint32_t mi, uint32_t ti) {
    if (r->config.tier_count < 2) {
        return;
    }
    char paired[24] = "-", frame[24];
    if (cell->has_gl45_twin) {
        bench_format_ratio(paired, sizeof paired, cell->cpu_vs_gl45_paired.median);
    }
    bench_format_ratio(frame, sizeof frame, bench_ratio_to_gl45(r, ci, mi, ti, 1));
    fprintf(out, "  %-8s  %8s  %8s", crowd_gpu_tier_name(cell->tier), paired, frame);
}

void bench_print_table(FILE *out, const bench_results *r) {
    const bench_config *c = &r->config;
    bool tiers = c->tier_count > 1;
    fprintf(out, "%7s  %-6s  %-24s  %8s  %-24s  %8s  %5s  %8s  %8s  %8s  %8s", "count", "mode",
            "app CPU ms/frame", "cull ms", "frame ms", "GPU ms", "draws", "GPU MiB", "CPU", "frame",
            "memory");
    fprintf(out, tiers ? "  %-8s  %8s  %8s\n" : "\n", "tier", "CPU", "frame");
    fprintf(out, "%7s  %-6s  %-24s  %8s  %-24s  %8s  %5s  %8s  %8s  %8s  %8s", "", "", "", "", "",
            "", "", "", "/static", "/static", "/static");
    fprintf(out, tiers ? "  %-8s  %8s  %8s\n" : "\n", "", "/gl45", "/gl45");
    for (uint32_t ci = 0; ci < c->count_count; ci++) {
        for (uint32_t mi = 0; mi < c->mode_count; mi++) {
            for (uint32_t ti = 0; ti < c->tier_count; ti++) {
                const bench_cell *cell = bench_tier_cell_at(r, ci, mi, ti);
                char cpu[80], cull[24], frame[80], gpu[24] = "-", ratios[3][24];
                format_summary(cpu, sizeof cpu, &cell->cpu_ms);
                format_ms(cull, sizeof cull, cell->cull_ms.median);
                format_summary(frame, sizeof frame, &cell->frame_ms);
                if (cell->gpu_samples > 0) {
                    format_ms(gpu, sizeof gpu, cell->gpu_ms.median);
                }
                for (int k = 0; k < 3; k++) {
                    bench_format_ratio(ratios[k], sizeof ratios[k],
                                       bench_tier_ratio(r, ci, mi, ti, k < 2 ? k : 3));
                }
                fprintf(out, "%7u  %-6s  %-24s  %8s  %-24s  %8s  %5u  %8.1f  %8s  %8s  %8s",
                        (unsigned)cell->count, crowd_gpu_mode_name(cell->mode), cpu, cull, frame,
                        gpu, (unsigned)cell->draw_calls, (double)cell->gpu_memory_bytes / MIB,
                        ratios[0], ratios[1], ratios[2]);
                print_tier_columns(out, r, cell, ci, mi, ti);
                fputc('\n', out);
            }
        }
    }
}

bool bench_write_text(const char *path, const char *text) {
    size_t length = strlen(path);
    char *temp = malloc(length + 16);
    if (temp == NULL) {
        cli_fail(CLI_EXIT_OUTPUT, "%s: out of memory", path);
        return false;
    }
    snprintf(temp, length + 16, "%s.tmp-XXXXXX", path);
    int fd = cli_mkstemp_public(temp);
    if (fd < 0) {
        cli_fail(CLI_EXIT_OUTPUT, "%s: cannot create a file there: %s", path, strerror(errno));
        free(temp);
        return false;
    }
    FILE *file = fdopen(fd, "w");
    bool ok = false;
    if (file == NULL) {
        close(fd);
    } else {
        ok = fputs(text, file) >= 0;
        ok = fclose(file) == 0 && ok;
    }
    if (ok && rename(temp, path) != 0) {
        ok = false;
    }
    if (!ok) {
        cli_fail(CLI_EXIT_OUTPUT, "%s: cannot write: %s", path, strerror(errno));
        remove(temp);
    }
    free(temp);
    return ok;
}

/* Nanosecond resolution is all a millisecond figure means; rounding to it
 * keeps the JSON free of 17-digit binary noise. */
static double ms_value(double ms) {
    return round(ms * 1e6) / 1e6;
}

static double rounded_ratio(double ms, double base_ms) {
    return ms_value(base_ms) > 0.0 ? ms_value(ms) / ms_value(base_ms) : NAN;
}

cJSON *bench_summary_json(const bench_summary *s) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "median", ms_value(s->median));
    cJSON_AddNumberToObject(o, "p10", ms_value(s->p10));
    cJSON_AddNumberToObject(o, "p90", ms_value(s->p90));
    cJSON_AddNumberToObject(o, "min", ms_value(s->min));
    cJSON_AddNumberToObject(o, "max", ms_value(s->max));
    cJSON_AddNumberToObject(o, "mean", ms_value(s->mean));
    return o;
}

static void add_ratio(cJSON *o, const char *name, double ratio) {
    if (isnan(ratio)) {
        cJSON_AddNullToObject(o, name);
    } else {
        cJSON_AddNumberToObject(o, name, ratio);
    }
}

static cJSON *machine_json(const bench_machine *m) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "cpu", m->cpu);
    cJSON_AddNumberToObject(o, "cpu_count", m->cpu_count);
    cJSON_AddStringToObject(o, "gl_renderer", m->gl_renderer);
    cJSON_AddStringToObject(o, "gl_vendor", m->gl_vendor);
    cJSON_AddStringToObject(o, "gl_version", m->gl_version);
    cJSON_AddStringToObject(o, "gl_platform", m->gl_platform);
    cJSON_AddBoolToObject(o, "software", m->software);
    cJSON_AddBoolToObject(o, "gl_thread", m->gl_thread);
    return o;
}

static cJSON *settings_json(const bench_config *c) {
    cJSON *o = cJSON_CreateObject();
    cJSON *modes = cJSON_AddArrayToObject(o, "modes");
    for (uint32_t m = 0; m < c->mode_count; m++) {
        cJSON_AddItemToArray(modes, cJSON_CreateString(crowd_gpu_mode_name(c->modes[m])));
    }
    cJSON *counts = cJSON_AddArrayToObject(o, "counts");
    for (uint32_t i = 0; i < c->count_count; i++) {
        cJSON_AddItemToArray(counts, cJSON_CreateNumber(c->counts[i]));
    }
    cJSON_AddNumberToObject(o, "width", c->width);
    cJSON_AddNumberToObject(o, "height", c->height);
    cJSON_AddNumberToObject(o, "frames", c->frames);
    cJSON_AddNumberToObject(o, "warmup", c->warmup);
    cJSON_AddNumberToObject(o, "frame_step_s", round(c->frame_step_s * 1e9) / 1e9);
    cJSON_AddNumberToObject(o, "seed", (double)c->seed);
    cJSON_AddBoolToObject(o, "ground", false);
    cJSON_AddNumberToObject(o, "archetypes", c->archetypes);
    cJSON_AddBoolToObject(o, "shadows", c->shadows);
    cJSON_AddBoolToObject(o, "wait", !c->no_wait);
    cJSON_AddStringToObject(o, "state", c->restore_state ? "restore" : "reset");
    cJSON_AddStringToObject(o, "tier_asked", crowd_gpu_tier_name(c->tiers[0]));
    cJSON *tiers = cJSON_AddArrayToObject(o, "tiers_asked");
    for (uint32_t t = 0; t < c->tier_count; t++) {
        cJSON_AddItemToArray(tiers, cJSON_CreateString(crowd_gpu_tier_name(c->tiers[t])));
    }
    cJSON_AddStringToObject(o, "context", scene_context_label(c->context));
    return o;
}

/* The cell over its GL 4.5 twin: null unless several tiers ran, gl45
 * among them. Time ratios of the rounded medians, as ratio_to_static's. */
static cJSON *gl45_ratio_json(const bench_results *r, uint32_t ci, uint32_t mi, uint32_t ti) {
    const bench_cell *cell = bench_tier_cell_at(r, ci, mi, ti);
    if (!cell->has_gl45_twin) {
        return cJSON_CreateNull();
    }
    const bench_cell *base = NULL;
    for (uint32_t t = 0; t < r->config.tier_count; t++) {
        if (r->config.tiers[t] == CROWD_TIER_GL45) {
            base = bench_tier_cell_at(r, ci, mi, t);
        }
    }
    cJSON *o = cJSON_CreateObject();
    add_ratio(o, "cpu_ms", rounded_ratio(cell->cpu_ms.median, base->cpu_ms.median));
    cJSON_AddItemToObject(o, "cpu_ms_paired", bench_summary_json(&cell->cpu_vs_gl45_paired));
    add_ratio(o, "frame_ms", rounded_ratio(cell->frame_ms.median, base->frame_ms.median));
    add_ratio(o, "draw_calls", bench_ratio_to_gl45(r, ci, mi, ti, 2));
    add_ratio(o, "gpu_memory_bytes", bench_ratio_to_gl45(r, ci, mi, ti, 3));
    return o;
}

static cJSON *cell_json(const bench_results *r, uint32_t ci, uint32_t mi, uint32_t ti) {
    const bench_cell *cell = bench_tier_cell_at(r, ci, mi, ti);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "mode", crowd_gpu_mode_name(cell->mode));
    cJSON_AddNumberToObject(o, "count", cell->count);
    cJSON_AddStringToObject(o, "tier", crowd_gpu_tier_name(cell->tier));
    cJSON_AddItemToObject(o, "cpu_ms", bench_summary_json(&cell->cpu_ms));
    cJSON_AddItemToObject(o, "cull_ms", bench_summary_json(&cell->cull_ms));
    cJSON_AddItemToObject(o, "frame_ms", bench_summary_json(&cell->frame_ms));
    cJSON_AddItemToObject(o, "animation_ms", bench_summary_json(&cell->animation_ms));
    cJSON_AddItemToObject(o, "process_cpu_ms", bench_summary_json(&cell->process_cpu_ms));
    if (cell->gpu_samples > 0) {
        cJSON_AddItemToObject(o, "gpu_ms", bench_summary_json(&cell->gpu_ms));
    } else {
        cJSON_AddNullToObject(o, "gpu_ms");
    }
    cJSON_AddNumberToObject(o, "gpu_ms_frames", cell->gpu_samples);
    cJSON_AddNumberToObject(o, "archetypes", cell->archetypes);
    cJSON_AddNumberToObject(o, "passes", cell->passes);
    cJSON_AddNumberToObject(o, "draw_calls", cell->draw_calls);
    cJSON_AddNumberToObject(o, "extra_draw_calls", cell->extra_draw_calls);
    cJSON_AddNumberToObject(o, "vertices", (double)cell->vertices);
    cJSON_AddNumberToObject(o, "uploaded_bytes", (double)cell->uploaded_bytes);
    cJSON_AddNumberToObject(o, "gpu_memory_bytes", (double)cell->gpu_memory_bytes);
    cJSON *ratio = cJSON_AddObjectToObject(o, "ratio_to_static");
    /* Time ratios of the rounded medians, so a reader can recompute them. */
    const bench_cell *base = NULL;
    for (uint32_t m = 0; m < r->config.mode_count; m++) {
        if (r->config.modes[m] == CROWD_GPU_MODE_STATIC) {
            base = bench_tier_cell_at(r, ci, m, ti);
        }
    }
    add_ratio(ratio, "cpu_ms", rounded_ratio(cell->cpu_ms.median, base ? base->cpu_ms.median : 0));
    add_ratio(ratio, "frame_ms",
              rounded_ratio(cell->frame_ms.median, base ? base->frame_ms.median : 0));
    add_ratio(ratio, "draw_calls", bench_tier_ratio(r, ci, mi, ti, 2));
    add_ratio(ratio, "gpu_memory_bytes", bench_tier_ratio(r, ci, mi, ti, 3));
    cJSON_AddItemToObject(o, "ratio_to_gl45", gl45_ratio_json(r, ci, mi, ti));
    return o;
}

bool bench_write_json(const char *path, const bench_results *r) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "crowd-bench");
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON_AddStringToObject(root, "producer", "crowd " CROWD_VERSION_STRING);
    cJSON *model = cJSON_AddObjectToObject(root, "model");
    cJSON_AddStringToObject(model, "source", r->config.model);
    cJSON_AddNumberToObject(model, "vertex_count", r->vertex_count);
    cJSON_AddNumberToObject(model, "joint_count", r->joint_count);
    cJSON_AddNumberToObject(model, "clip_count", r->clip_count);
    cJSON_AddItemToObject(root, "machine", machine_json(&r->machine));
    cJSON_AddItemToObject(root, "settings", settings_json(&r->config));
    cJSON_AddStringToObject(root, "tier", crowd_gpu_tier_name(r->tier));
    cJSON *tiers = cJSON_AddArrayToObject(root, "tiers");
    for (uint32_t t = 0; t < r->config.tier_count && r->cells != NULL; t++) {
        cJSON_AddItemToArray(tiers, cJSON_CreateString(crowd_gpu_tier_name(r->cells[t].tier)));
    }
    cJSON_AddNumberToObject(root, "seconds", round(r->seconds * 1e3) / 1e3);
    cJSON *results = cJSON_AddArrayToObject(root, "results");
    for (uint32_t ci = 0; ci < r->config.count_count; ci++) {
        for (uint32_t mi = 0; mi < r->config.mode_count; mi++) {
            for (uint32_t ti = 0; ti < r->config.tier_count; ti++) {
                cJSON_AddItemToArray(results, cell_json(r, ci, mi, ti));
            }
        }
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (text == NULL) {
        cli_fail(CLI_EXIT_OUTPUT, "%s: out of memory", path);
        return false;
    }
    size_t length = strlen(text);
    char *line = realloc(text, length + 2);
    if (line != NULL) {
        text = line;
        memcpy(text + length, "\n", 2);
    }
    bool ok = bench_write_text(path, text);
    free(text);
    return ok;
}

/* A ratio as a CSV field: empty when there is none. */
static int csv_ratio(char *out, size_t size, double ratio) {
    return isnan(ratio) ? snprintf(out, size, ",") : snprintf(out, size, ",%.6g", ratio);
}

bool bench_write_csv(const char *path, const bench_results *r) {
    static const char header[] =
        "mode,count,cpu_ms_median,cpu_ms_p10,cpu_ms_p90,frame_ms_median,frame_ms_p10,"
        "frame_ms_p90,animation_ms_median,process_cpu_ms_median,draw_calls,extra_draw_calls,"
        "vertices,uploaded_bytes,gpu_memory_bytes,"
        "cpu_ms_ratio,frame_ms_ratio,draw_calls_ratio,gpu_memory_ratio,"
        "tier,cull_ms_median,cpu_ms_ratio_gl45,cpu_ms_ratio_gl45_paired,frame_ms_ratio_gl45\n";
    size_t rows = (size_t)r->config.count_count * r->config.mode_count * r->config.tier_count;
    size_t size = sizeof header + rows * 512;
    char *text = malloc(size);
    if (text == NULL) {
        cli_fail(CLI_EXIT_OUTPUT, "%s: out of memory", path);
        return false;
    }
    size_t used = (size_t)snprintf(text, size, "%s", header);
    for (uint32_t row = 0; row < rows; row++) {
        uint32_t ti = row % r->config.tier_count, pair = row / r->config.tier_count;
        uint32_t ci = pair / r->config.mode_count, mi = pair % r->config.mode_count;
        const bench_cell *c = bench_tier_cell_at(r, ci, mi, ti);
        used += (size_t)snprintf(
            text + used, size - used,
            "%s,%u,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%u,%u,%llu,%llu,%llu",
            crowd_gpu_mode_name(c->mode), (unsigned)c->count, c->cpu_ms.median, c->cpu_ms.p10,
            c->cpu_ms.p90, c->frame_ms.median, c->frame_ms.p10, c->frame_ms.p90,
            c->animation_ms.median, c->process_cpu_ms.median, (unsigned)c->draw_calls,
            (unsigned)c->extra_draw_calls, (unsigned long long)c->vertices,
            (unsigned long long)c->uploaded_bytes, (unsigned long long)c->gpu_memory_bytes);
        for (int field = 0; field < 4; field++) {
            used +=
                (size_t)csv_ratio(text + used, size - used, bench_tier_ratio(r, ci, mi, ti, field));
        }
        used += (size_t)snprintf(text + used, size - used, ",%s,%.6g", crowd_gpu_tier_name(c->tier),
                                 c->cull_ms.median);
        used += (size_t)csv_ratio(text + used, size - used, bench_ratio_to_gl45(r, ci, mi, ti, 0));
        used += (size_t)csv_ratio(text + used, size - used,
                                  c->has_gl45_twin ? c->cpu_vs_gl45_paired.median : NAN);
        used += (size_t)csv_ratio(text + used, size - used, bench_ratio_to_gl45(r, ci, mi, ti, 1));
        used += (size_t)snprintf(text + used, size - used, "\n");
    }
    bool ok = bench_write_text(path, text);
    free(text);
    return ok;
}
