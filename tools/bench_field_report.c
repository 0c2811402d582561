/* bench_field_report.c - the field scene's table and JSON (bench_field.h,
 * docs/bench.md). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "bench_field.h"

/* value / the same column of way `base`, NAN when either was not measured. */
static double versus(const field_cell *cells, int way, int base,
                     double (*get)(const field_cell *)) {
    if (cells[way].skip != FIELD_MEASURED || cells[base].skip != FIELD_MEASURED ||
        !(get(&cells[base]) > 0.0)) {
        return NAN;
    }
    return get(&cells[way]) / get(&cells[base]);
}

static double frame_of(const field_cell *c) {
    return c->frame_ms.median;
}

static void ratio_text(char *out, size_t size, double ratio) {
    bench_format_ratio(out, size, ratio);
}

/* "the four ways interleaved", or the ways asked for ("floor and brute"). */
static void ways_text(char *out, size_t size, uint32_t ways) {
    if (ways == FIELD_ALL_WAYS) {
        snprintf(out, size, "the four ways interleaved");
        return;
    }
    size_t used = 0;
    int named = 0, total = 0;
    for (int w = 0; w < FIELD_WAYS; w++) {
        total += (ways >> w) & 1u;
    }
    for (int w = 0; w < FIELD_WAYS && used < size; w++) {
        if ((ways >> w) & 1u) {
            const char *joint = named == 0 ? "" : named + 1 == total ? " and " : ", ";
            used += (size_t)snprintf(out + used, size - used, "%s%s", joint, field_way_names[w]);
            named++;
        }
    }
    if (used < size) {
        snprintf(out + used, size - used, total > 1 ? " interleaved" : " alone");
    }
}

/* What each LOD level drew, per measured way that chooses LODs. */
static void print_per_lod(FILE *out, const field_results *r) {
    if (r->lod_count <= 1) {
        return;
    }
    fprintf(out, "\n  drawn per LOD level (LOD 0 first):\n");
    for (uint32_t k = 0; k < r->count_count; k++) {
        const field_cell *c = &r->cells[k][FIELD_WAYS - 1];
        if (c->skip != FIELD_MEASURED) {
            continue;
        }
        fprintf(out, "%7u  %-8s", (unsigned)c->count, field_way_names[FIELD_WAYS - 1]);
        for (uint32_t l = 0; l < r->lod_count && l < CROWD_BAKE_MAX_LODS; l++) {
            fprintf(out, " %llu", (unsigned long long)c->visible_per_lod[l]);
        }
        fprintf(out, "\n");
    }
}

void bench_field_print(FILE *out, const field_results *r) {
    char ways[96];
    ways_text(ways, sizeof ways, r->ways);
    fprintf(out,
            "field scene: %s in %s mode (%u vertices, %u LODs), %ux%u, camera at eye height in "
            "the middle looking along the field; median (10th-90th percentile) of %u frames "
            "after %u warm-up, %s, ratios the median of each round's; %s | %s; %.0f s\n",
            r->model, crowd_gpu_mode_name(r->mode), (unsigned)r->vertex_count,
            (unsigned)r->lod_count, (unsigned)r->width, (unsigned)r->height, (unsigned)r->frames,
            (unsigned)r->warmup, ways, r->machine.cpu, r->machine.gl_renderer, r->seconds);
    fprintf(out, "\n  count  way       drawn   vertices  draws  frame ms                  app CPU "
                 "ms   GPU B/char  rec B/char  1-fetch  frame/brute  frame/floor\n");
    for (uint32_t k = 0; k < r->count_count; k++) {
        for (int w = 0; w < FIELD_WAYS; w++) {
            const field_cell *c = &r->cells[k][w];
            if (c->skip == FIELD_NOT_ASKED) {
                continue;
            }
            if (c->skip == FIELD_OVER_LIMIT) {
                fprintf(out, "%7u  %-8s  skipped: %llu vertices a frame is over --brute-limit\n",
                        (unsigned)c->count, field_way_names[w],
                        (unsigned long long)c->count * r->vertex_count);
                continue;
            }
            char frame[64], brute[16], floor[16], one_fetch[16] = "-";
            snprintf(frame, sizeof frame, "%.3g (%.3g-%.3g)", c->frame_ms.median, c->frame_ms.p10,
                     c->frame_ms.p90);
            ratio_text(brute, sizeof brute, c->paired_vs_brute.median);
            ratio_text(floor, sizeof floor, c->paired_vs_floor.median);
            if (w != 0 && c->visible > 0) {
                snprintf(one_fetch, sizeof one_fetch, "%.0f %%",
                         100.0 * (double)c->one_fetch / (double)c->visible);
            }
            fprintf(out,
                    "%7u  %-8s %6llu %10llu %6u  %-25s %-12.3f %10.0f  %10.0f  %7s  %11s  %11s\n",
                    (unsigned)c->count, field_way_names[w], (unsigned long long)c->visible,
                    (unsigned long long)c->vertices, (unsigned)c->draw_calls, frame,
                    c->cpu_ms.median, (double)c->gpu_memory_bytes / (double)c->count,
                    (double)c->record_memory_bytes / (double)c->count, one_fetch, brute, floor);
        }
    }
    print_per_lod(out, r);
}

static void add_ratio(cJSON *o, const char *name, double ratio) {
    if (isfinite(ratio)) {
        cJSON_AddNumberToObject(o, name, ratio);
    } else {
        cJSON_AddNullToObject(o, name);
    }
}

/* A summary of per-round ratios, or null when there is none. */
static void add_paired(cJSON *o, const char *name, const bench_summary *ratio) {
    if (isfinite(ratio->median)) {
        cJSON_AddItemToObject(o, name, bench_summary_json(ratio));
    } else {
        cJSON_AddNullToObject(o, name);
    }
}

bool bench_field_write_json(const char *path, const field_results *r) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "scene", "field");
    cJSON_AddStringToObject(root, "model", r->model);
    cJSON_AddStringToObject(root, "mode", crowd_gpu_mode_name(r->mode));
    cJSON_AddNumberToObject(root, "width", r->width);
    cJSON_AddNumberToObject(root, "height", r->height);
    cJSON_AddNumberToObject(root, "frames", r->frames);
    cJSON_AddNumberToObject(root, "warmup", r->warmup);
    cJSON_AddNumberToObject(root, "vertex_count", r->vertex_count);
    cJSON_AddNumberToObject(root, "lod_count", r->lod_count);
    cJSON_AddNumberToObject(root, "brute_limit_vertices", (double)r->brute_limit);
    cJSON_AddStringToObject(root, "cpu", r->machine.cpu);
    cJSON_AddStringToObject(root, "gl_renderer", r->machine.gl_renderer);
    cJSON_AddNumberToObject(root, "seconds", r->seconds);
    cJSON *rows = cJSON_AddArrayToObject(root, "results");
    for (uint32_t k = 0; k < r->count_count; k++) {
        for (int w = 0; w < FIELD_WAYS; w++) {
            const field_cell *c = &r->cells[k][w];
            cJSON *row = cJSON_CreateObject();
            cJSON_AddNumberToObject(row, "count", c->count);
            cJSON_AddStringToObject(row, "way", field_way_names[w]);
            cJSON_AddBoolToObject(row, "skipped", c->skip != FIELD_MEASURED);
            if (c->skip != FIELD_MEASURED) {
                cJSON_AddStringToObject(row, "skip_reason",
                                        c->skip == FIELD_OVER_LIMIT ? "brute_limit" : "not_asked");
            } else {
                cJSON_AddNumberToObject(row, "drawn", (double)c->visible);
                cJSON *per_lod = cJSON_AddArrayToObject(row, "drawn_per_lod");
                for (uint32_t l = 0; l < r->lod_count && l < CROWD_BAKE_MAX_LODS; l++) {
                    cJSON_AddItemToArray(per_lod,
                                         cJSON_CreateNumber((double)c->visible_per_lod[l]));
                }
                cJSON_AddNumberToObject(row, "one_fetch", (double)c->one_fetch);
                cJSON_AddNumberToObject(row, "vertices", (double)c->vertices);
                cJSON_AddNumberToObject(row, "draw_calls", c->draw_calls);
                cJSON_AddItemToObject(row, "frame_ms", bench_summary_json(&c->frame_ms));
                cJSON_AddItemToObject(row, "cpu_ms", bench_summary_json(&c->cpu_ms));
                cJSON_AddNumberToObject(row, "gpu_memory_bytes", (double)c->gpu_memory_bytes);
                cJSON_AddNumberToObject(row, "record_memory_bytes", (double)c->record_memory_bytes);
                add_ratio(row, "frame_vs_brute", versus(r->cells[k], w, 1, frame_of));
                add_ratio(row, "frame_vs_floor", versus(r->cells[k], w, 0, frame_of));
                add_paired(row, "frame_vs_brute_paired", &c->paired_vs_brute);
                add_paired(row, "frame_vs_floor_paired", &c->paired_vs_floor);
                cJSON *rounds = cJSON_AddArrayToObject(row, "frame_ms_rounds");
                for (uint32_t f = 0; f < r->frames; f++) {
                    double ms = round(c->frame_ms_rounds[f] * 1e6) / 1e6;
                    cJSON_AddItemToArray(rounds, cJSON_CreateNumber(ms));
                }
            }
            cJSON_AddItemToArray(rows, row);
        }
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    bool ok = text != NULL && bench_write_text(path, text);
    free(text);
    return ok;
}

int bench_field_write_chart(const char *path, const field_results *r) {
    /* The floor grey, brute force red, culling blue, culling + LODs green. */
    static const char *const colours[FIELD_WAYS] = {"#404040", "#d62728", "#1f77b4", "#2ca02c"};
    bench_chart *chart = calloc(1, sizeof *chart);
    if (chart == NULL) {
        fprintf(stderr, "crowd: error: %s: out of memory\n", path);
        return -1;
    }
    chart->model = r->model;
    chart->machine = &r->machine;
    for (int w = 0; w < FIELD_WAYS; w++) {
        if (((r->ways >> w) & 1u) == 0) {
            continue;
        }
        bench_chart_line *line = bench_chart_add_line(chart, field_way_names[w], colours[w]);
        for (uint32_t k = 0; k < r->count_count; k++) {
            const field_cell *c = &r->cells[k][w];
            if (c->skip == FIELD_MEASURED) {
                bench_chart_add_point(line, c->count, &c->frame_ms, &c->cpu_ms);
            }
        }
    }
    int result = bench_chart_write(path, chart);
    free(chart);
    return result;
}
