/* test_cli_bench - `crowd bench`, `crowd demo` and `crowd play` as a user
 * runs them: CROWD_CLI in a child process (run_cli.h), exit codes, the one
 * "crowd: error:" line for a bad command line, and every field of the bench
 * JSON (docs/bench.md) with values that follow from first principles: draw
 * calls per mode, vertices = index count x crowd size, bytes uploaded per
 * frame by cpu and gpu modes, ratios = value / static's value, percentiles
 * in order, CPU time within the frame's wall time; with --archetypes K and
 * --shadows, K draws per pass in two passes; with --no-wait, submit times;
 * with --tiers gl45,portable, both tiers' cells side by side, the portable
 * tier's CPU culling time and its records streamed every frame, ratios to
 * the GL 4.5 twin.
 *
 * Groups (argv[1]): "bench", "demo", "play" (play needs a display: CMake
 * runs it under xvfb-run when that is installed). A group that finds no GL
 * context exits 77 (skipped) after the checks that need none.
 */
#define _POSIX_C_SOURCE 200809L

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "crowd/builtin.h"
#include "crowd/gpu.h"
#include "run_cli.h"
#include "test_json.h"

static cli_run result;
static bool no_gl;

/* Runs `crowd ARGS...` (NULL-terminated). */
static const cli_run *run(const char *first, ...) {
    va_list args;
    va_start(args, first);
    cli_run_list(NULL, first, args, &result);
    va_end(args);
    if (result.exit_code == 5 && !no_gl) {
        printf("SKIP: no OpenGL 4.5 context here: %s", result.err);
        no_gl = true;
    }
    return &result;
}

/* A malformed command line: exit 1 and exactly one "crowd: error:" line
 * naming `needle`. */
static void check_usage_error(const cli_run *r, const char *what, const char *needle) {
    CHECK_MSG(r->exit_code == 1, "%s: exit %d, stderr: %s", what, r->exit_code, r->err);
    CHECK_MSG(cli_line_count(r->err) == 1 && strncmp(r->err, "crowd: error: ", 14) == 0 &&
                  strstr(r->err, needle) != NULL,
              "%s: stderr: %s", what, r->err);
}

/* Width and height from a PNG's IHDR; false when the file is not a PNG. */
static bool png_size(const char *path, uint32_t *width, uint32_t *height) {
    unsigned char header[24];
    FILE *file = fopen(path, "rb");
    size_t n = file ? fread(header, 1, sizeof header, file) : 0;
    if (file) {
        fclose(file);
    }
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n != sizeof header || memcmp(header, signature, 8) != 0 || memcmp(header + 12, "IHDR", 4)) {
        return false;
    }
    *width = (uint32_t)header[16] << 24 | (uint32_t)header[17] << 16 | (uint32_t)header[18] << 8 |
             header[19];
    *height = (uint32_t)header[20] << 24 | (uint32_t)header[21] << 16 | (uint32_t)header[22] << 8 |
              header[23];
    return true;
}

/* A --chart run: the PNG was written, or gnuplot's absence was warned. */
/* The chart is a PNG; without gnuplot (an optional tool: scripts/install-deps.sh
 * test installs it) the CLI must say so, and the chart check is a skip. */
static void check_chart(const cli_run *r, const char *path, const char *what) {
    uint32_t width, height;
    if (!png_size(path, &width, &height) && strstr(r->err, "gnuplot is not installed") != NULL) {
        printf("SKIP: %s: chart not drawn, gnuplot is not installed\n", what);
        check_skips++;
        return;
    }
    CHECK_MSG(png_size(path, &width, &height) && width > 0 && height > 0, "%s: no chart: %s", what,
              r->err);
}

static double number(const cJSON *object, const char *name) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, name);
    CHECK_MSG(cJSON_IsNumber(item), "field '%s' missing or not a number", name);
    return cJSON_IsNumber(item) ? item->valuedouble : NAN;
}

static const char *string(const cJSON *object, const char *name) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, name);
    CHECK_MSG(cJSON_IsString(item) && item->valuestring[0] != '\0',
              "field '%s' missing or not a non-empty string", name);
    return cJSON_IsString(item) ? item->valuestring : "";
}

static bool boolean(const cJSON *object, const char *name) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, name);
    CHECK_MSG(cJSON_IsBool(item), "field '%s' missing or not a boolean", name);
    return cJSON_IsTrue(item);
}

static const cJSON *object(const cJSON *parent, const char *name) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(parent, name);
    CHECK_MSG(cJSON_IsObject(item), "field '%s' missing or not an object", name);
    return item;
}

/* A summary {median, p10, p90, min, max, mean} in order and non-negative. */
static double summary_median(const cJSON *cell, const char *name) {
    const cJSON *s = object(cell, name);
    if (s == NULL) {
        return NAN;
    }
    double median = number(s, "median"), p10 = number(s, "p10"), p90 = number(s, "p90");
    double min = number(s, "min"), max = number(s, "max"), mean = number(s, "mean");
    CHECK_MSG(min >= 0.0 && min <= p10 && p10 <= median && median <= p90 && p90 <= max,
              "%s: min %g p10 %g median %g p90 %g max %g out of order", name, min, p10, median, p90,
              max);
    CHECK_MSG(min <= mean && mean <= max, "%s: mean %g outside [%g, %g]", name, mean, min, max);
    return median;
}

typedef struct cell_view {
    const char *mode, *tier;
    double count, cpu_ms, frame_ms, animation_ms, cull_ms, cull_ms_max, draw_calls,
        extra_draw_calls, vertices, uploaded_bytes, gpu_memory_bytes, archetypes, passes;
    const cJSON *ratio, *ratio_to_gl45;
} cell_view;

static cell_view read_cell(const cJSON *cell) {
    cell_view v = {
        .mode = string(cell, "mode"),
        .count = number(cell, "count"),
        .cpu_ms = summary_median(cell, "cpu_ms"),
        .frame_ms = summary_median(cell, "frame_ms"),
        .tier = string(cell, "tier"),
        .animation_ms = summary_median(cell, "animation_ms"),
        .cull_ms = summary_median(cell, "cull_ms"),
        .draw_calls = number(cell, "draw_calls"),
        .extra_draw_calls = number(cell, "extra_draw_calls"),
        .vertices = number(cell, "vertices"),
        .uploaded_bytes = number(cell, "uploaded_bytes"),
        .gpu_memory_bytes = number(cell, "gpu_memory_bytes"),
        .archetypes = number(cell, "archetypes"),
        .passes = number(cell, "passes"),
        .ratio = object(cell, "ratio_to_static"),
        .ratio_to_gl45 = cJSON_GetObjectItemCaseSensitive(cell, "ratio_to_gl45"),
    };
    CHECK_MSG(strcmp(v.tier, "gl45") == 0 || strcmp(v.tier, "portable") == 0, "tier '%s'", v.tier);
    CHECK_MSG(cJSON_IsNull(v.ratio_to_gl45) || cJSON_IsObject(v.ratio_to_gl45),
              "%s: ratio_to_gl45 missing or neither null nor an object", v.mode);
    /* The culling is inside the app CPU time (of the same frame, so its
     * median need not be below cpu_ms's, its maximum below cpu_ms's maximum). */
    v.cull_ms_max = number(object(cell, "cull_ms"), "max");
    CHECK_MSG(v.cull_ms_max <= number(object(cell, "cpu_ms"), "max"), "%s: cull %g ms > CPU",
              v.mode, v.cull_ms_max);
    summary_median(cell, "process_cpu_ms");
    /* GPU time: a summary over the frames whose timer results arrived, or
     * null when none did. */
    double gpu_frames = number(cell, "gpu_ms_frames");
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(cell, "gpu_ms");
    CHECK_MSG(gpu_frames == 0.0 ? cJSON_IsNull(gpu) : cJSON_IsObject(gpu),
              "%s: gpu_ms %s with %g frames", v.mode, gpu ? "present" : "absent", gpu_frames);
    if (cJSON_IsObject(gpu)) {
        summary_median(cell, "gpu_ms");
    }
    return v;
}

/* The cell of `mode` at `count` in results, or NULL. */
static const cJSON *find_cell(const cJSON *results, const char *mode, double count) {
    const cJSON *cell;
    cJSON_ArrayForEach(cell, results) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(cell, "mode");
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(cell, "count");
        if (cJSON_IsString(m) && strcmp(m->valuestring, mode) == 0 && cJSON_IsNumber(c) &&
            c->valuedouble == count) {
            return cell;
        }
    }
    return NULL;
}

static void check_ratio(const cell_view *v, const char *name, double a, double b) {
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(v->ratio, name);
    if (b > 0.0) {
        CHECK_MSG(cJSON_IsNumber(r) && fabs(r->valuedouble - a / b) <= 1e-9 * (a / b) + 1e-12,
                  "%s at %g: ratio_to_static.%s = %g, expected %g", v->mode, v->count, name,
                  cJSON_IsNumber(r) ? r->valuedouble : NAN, a / b);
    } else {
        CHECK_MSG(cJSON_IsNull(r), "%s: ratio_to_static.%s should be null", v->mode, name);
    }
}

static int check_results(const cJSON *root, const crowd_asset *builtin) {
    static const char *const modes[] = {"static", "cpu", "gpu", "bat", "vat"};
    const double counts[] = {1, 2};
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    REQUIRE(cJSON_IsArray(results) && cJSON_GetArraySize(results) == 10);
    for (int ci = 0; ci < 2; ci++) {
        const cJSON *static_cell = find_cell(results, "static", counts[ci]);
        REQUIRE(static_cell != NULL);
        cell_view base = read_cell(static_cell);
        for (int mi = 0; mi < 5; mi++) {
            const cJSON *cell = find_cell(results, modes[mi], counts[ci]);
            CHECK_MSG(cell != NULL, "no result for %s at %g", modes[mi], counts[ci]);
            if (cell == NULL) {
                continue;
            }
            cell_view v = read_cell(cell);
            bool cpu = mi == 1, gpu = mi == 2;
            CHECK_MSG(v.draw_calls == (cpu ? counts[ci] : 1.0), "%s at %g: %g draw calls", v.mode,
                      v.count, v.draw_calls);
            CHECK(v.extra_draw_calls == 0.0);
            CHECK(v.archetypes == 1.0 && v.passes == 1.0);
            CHECK_MSG(v.vertices == (double)builtin->mesh.index_count * counts[ci],
                      "%s at %g: %g vertices", v.mode, v.count, v.vertices);
            /* Warm-up frames took the instance records; after them only
             * cpu (vertices) and gpu (palettes) modes upload anything. */
            double uploaded = cpu   ? 24.0 * builtin->mesh.vertex_count * counts[ci]
                              : gpu ? 48.0 * builtin->skeleton.joint_count * counts[ci]
                                    : 0.0;
            CHECK_MSG(v.uploaded_bytes == uploaded, "%s at %g: %g bytes uploaded, expected %g",
                      v.mode, v.count, v.uploaded_bytes, uploaded);
            CHECK_MSG(v.cpu_ms <= v.frame_ms, "%s: CPU %g ms > frame %g ms", v.mode, v.cpu_ms,
                      v.frame_ms);
            CHECK_MSG(v.animation_ms <= v.cpu_ms && ((cpu || gpu) || v.animation_ms == 0.0),
                      "%s: animation %g ms, CPU %g ms", v.mode, v.animation_ms, v.cpu_ms);
            CHECK(v.gpu_memory_bytes > 0.0);
            /* One tier (auto: gl45 on this context), which culls on the GPU. */
            CHECK_MSG(strcmp(v.tier, "gl45") == 0 && v.cull_ms_max == 0.0 &&
                          cJSON_IsNull(v.ratio_to_gl45),
                      "%s at %g: tier %s, cull %g ms", v.mode, v.count, v.tier, v.cull_ms_max);
            check_ratio(&v, "cpu_ms", v.cpu_ms, base.cpu_ms);
            check_ratio(&v, "frame_ms", v.frame_ms, base.frame_ms);
            check_ratio(&v, "draw_calls", v.draw_calls, base.draw_calls);
            check_ratio(&v, "gpu_memory_bytes", v.gpu_memory_bytes, base.gpu_memory_bytes);
        }
    }
    return 0;
}

static int check_json(const char *path, const crowd_asset *builtin, const char *stdout_text) {
    cJSON *root = test_read_json(path);
    REQUIRE(root != NULL);
    CHECK(strcmp(string(root, "format"), "crowd-bench") == 0);
    CHECK(number(root, "version") == 1.0);
    CHECK(strncmp(string(root, "producer"), "crowd ", 6) == 0);
    CHECK(number(root, "seconds") > 0.0);
    const cJSON *model = object(root, "model");
    CHECK(strcmp(string(model, "source"), "builtin:") == 0);
    CHECK(number(model, "vertex_count") == builtin->mesh.vertex_count);
    CHECK(number(model, "joint_count") == builtin->skeleton.joint_count);
    CHECK(number(model, "clip_count") == builtin->clip_count);
    const cJSON *machine = object(root, "machine");
    const char *cpu = string(machine, "cpu"), *renderer = string(machine, "gl_renderer");
    CHECK(number(machine, "cpu_count") >= 1.0);
    string(machine, "gl_vendor");
    string(machine, "gl_version");
    string(machine, "gl_platform");
    boolean(machine, "software");
    CHECK(boolean(machine, "gl_thread"));
    CHECK_MSG(strstr(stdout_text, cpu) != NULL && strstr(stdout_text, renderer) != NULL,
              "the table names neither CPU '%s' nor renderer '%s'", cpu, renderer);
    const cJSON *settings = object(root, "settings");
    CHECK(number(settings, "width") == 64.0 && number(settings, "height") == 48.0);
    CHECK(number(settings, "frames") == 3.0 && number(settings, "warmup") == 1.0);
    CHECK(number(settings, "frame_step_s") > 0.0);
    CHECK(number(settings, "seed") == 1.0);
    CHECK(!boolean(settings, "ground"));
    CHECK(number(settings, "archetypes") == 1.0);
    CHECK(!boolean(settings, "shadows") && boolean(settings, "wait"));
    const cJSON *modes = cJSON_GetObjectItemCaseSensitive(settings, "modes");
    const cJSON *counts = cJSON_GetObjectItemCaseSensitive(settings, "counts");
    CHECK(cJSON_IsArray(modes) && cJSON_GetArraySize(modes) == 5);
    CHECK(cJSON_IsArray(counts) && cJSON_GetArraySize(counts) == 2);
    /* One tier: asked auto, ran gl45, listed once in each list. */
    CHECK(strcmp(string(settings, "tier_asked"), "auto") == 0 &&
          strcmp(string(root, "tier"), "gl45") == 0);
    const cJSON *asked = cJSON_GetObjectItemCaseSensitive(settings, "tiers_asked");
    const cJSON *tiers = cJSON_GetObjectItemCaseSensitive(root, "tiers");
    CHECK(cJSON_IsArray(asked) && cJSON_GetArraySize(asked) == 1 &&
          strcmp(cJSON_GetArrayItem(asked, 0)->valuestring, "auto") == 0);
    CHECK(cJSON_IsArray(tiers) && cJSON_GetArraySize(tiers) == 1 &&
          strcmp(cJSON_GetArrayItem(tiers, 0)->valuestring, "gl45") == 0);
    check_results(root, builtin);
    cJSON_Delete(root);
    return 0;
}

static void check_csv(const char *path) {
    static char text[1 << 16];
    cli_read_text(path, text, sizeof text);
    CHECK_MSG(cli_line_count(text) == 11, "%s: %d lines, expected a header and 10 rows", path,
              cli_line_count(text));
    int header_fields = 1;
    for (const char *c = text; *c != '\0' && *c != '\n'; c++) {
        header_fields += *c == ',';
    }
    CHECK(header_fields == 24);
    CHECK(strstr(text, "\nvat,2,") != NULL && strstr(text, "\nstatic,1,") != NULL);
    CHECK(strstr(text, ",gl45,0,,,\n") != NULL); /* one tier: no culling on the CPU, no ratio */
}

static void bench_usage_errors(void) {
    check_usage_error(run("bench", "--counts", "0", NULL), "--counts 0", "--counts");
    check_usage_error(run("bench", "--counts", "1,x", NULL), "--counts 1,x", "'x'");
    check_usage_error(run("bench", "--counts", "5000000", NULL), "--counts 5000000", "limit");
    check_usage_error(run("bench", "--modes", "static,fast", NULL), "--modes fast", "fast");
    check_usage_error(run("bench", "--modes", "vat,vat", NULL), "--modes vat,vat", "twice");
    check_usage_error(run("bench", "--size", "64", NULL), "--size 64", "--size");
    check_usage_error(run("bench", "--frames", "0", NULL), "--frames 0", "--frames");
    check_usage_error(run("bench", "--json", NULL), "--json without a value", "--json");
    check_usage_error(run("bench", "--fast", NULL), "unknown option", "--fast");
    check_usage_error(run("bench", "--archetypes", "0", NULL), "--archetypes 0", "--archetypes");
    check_usage_error(run("bench", "a.glb", "b.glb", NULL), "two models", "more than one");
    const cli_run *r = run("bench", "--help", NULL);
    CHECK(r->exit_code == 0 && strstr(r->out, "--counts") != NULL);
    r = run("bench", "/nonexistent/robot.glb", NULL);
    CHECK_MSG(r->exit_code == 2 && cli_line_count(r->err) == 1 &&
                  strstr(r->err, "/nonexistent/robot.glb") != NULL,
              "missing model: exit %d, stderr: %s", r->exit_code, r->err);
}

/* --archetypes 2 --shadows: two draws per pass (cpu mode: one per
 * character) in two passes, each pass submitting every vertex. */
static void bench_archetypes(const crowd_asset *builtin) {
    remove("bench_k.json");
    const cli_run *r = run("bench", "builtin:", "--counts", "4", "--modes", "static,cpu,vat",
                           "--archetypes", "2", "--shadows", "--frames", "2", "--warmup", "1",
                           "--size", "32x32", "--json", "bench_k.json", "--quiet", NULL);
    CHECK_MSG(r->exit_code == 0, "bench --archetypes 2: exit %d, stderr: %s", r->exit_code, r->err);
    CHECK_MSG(strstr(r->out, "2 archetypes per world") != NULL, "%s", r->out);
    cJSON *root = test_read_json("bench_k.json");
    REQUIRE_VOID(root != NULL);
    const cJSON *settings = object(root, "settings");
    CHECK(number(settings, "archetypes") == 2.0 && boolean(settings, "shadows"));
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    static const char *const modes[] = {"static", "cpu", "vat"};
    for (int m = 0; m < 3; m++) {
        const cJSON *cell = find_cell(results, modes[m], 4);
        CHECK_MSG(cell != NULL, "no %s cell", modes[m]);
        if (cell == NULL) {
            continue;
        }
        cell_view v = read_cell(cell);
        double per_pass = m == 1 ? 4.0 : 2.0;
        CHECK_MSG(v.archetypes == 2.0 && v.passes == 2.0 && v.draw_calls == 2.0 * per_pass,
                  "%s: %g archetypes, %g passes, %g draws", v.mode, v.archetypes, v.passes,
                  v.draw_calls);
        CHECK_MSG(v.vertices == 2.0 * builtin->mesh.index_count * 4.0, "%s: %g vertices", v.mode,
                  v.vertices);
    }
    cJSON_Delete(root);
}

/* --no-wait: frames are not waited for; frame ms is the submit's wall time,
 * which still holds its thread CPU time. */
static void bench_no_wait(void) {
    remove("bench_nowait.json");
    const cli_run *r =
        run("bench", "builtin:", "--counts", "1,8", "--modes", "vat", "--no-wait", "--frames", "4",
            "--warmup", "1", "--size", "32x32", "--json", "bench_nowait.json", "--quiet", NULL);
    CHECK_MSG(r->exit_code == 0, "bench --no-wait: exit %d, stderr: %s", r->exit_code, r->err);
    CHECK_MSG(strstr(r->out, "not waited for") != NULL, "%s", r->out);
    cJSON *root = test_read_json("bench_nowait.json");
    REQUIRE_VOID(root != NULL);
    CHECK(!boolean(object(root, "settings"), "wait"));
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    CHECK(cJSON_IsArray(results) && cJSON_GetArraySize(results) == 2);
    const cJSON *cell;
    cJSON_ArrayForEach(cell, results) {
        cell_view v = read_cell(cell);
        CHECK_MSG(v.cpu_ms <= v.frame_ms && v.draw_calls == 1.0, "%s at %g: CPU %g, frame %g ms",
                  v.mode, v.count, v.cpu_ms, v.frame_ms);
    }
    cJSON_Delete(root);
}

/* A portable cell against its GL 4.5 twin (the cell before it). Draws
 * follow from the scene: the bench draws at LOD0 (no LOD choice), so the
 * portable tier's one instanced draw per (archetype, LOD in use) is one
 * draw, as gl45's one multi-draw command; cpu mode draws each character.
 * The camera frames the whole crowd, so the portable tier's CPU culling
 * keeps every character: as many vertices as gl45's count. It streams the
 * records it draws every frame (40 bytes each) on top of what gl45
 * uploads, and culls on the CPU in static and vat only. */
static void check_tier_pair(const cell_view *gl45, const cell_view *portable,
                            double paired_median) {
    CHECK_MSG(strcmp(gl45->tier, "gl45") == 0 && strcmp(portable->tier, "portable") == 0 &&
                  strcmp(gl45->mode, portable->mode) == 0 && gl45->count == portable->count,
              "cells out of order: %s %s %g, %s %s %g", gl45->tier, gl45->mode, gl45->count,
              portable->tier, portable->mode, portable->count);
    bool culled = strcmp(portable->mode, "cpu") != 0 && strcmp(portable->mode, "gpu") != 0;
    double draws = strcmp(portable->mode, "cpu") == 0 ? portable->count : 1.0;
    CHECK_MSG(gl45->draw_calls == draws && portable->draw_calls == draws &&
                  portable->vertices == gl45->vertices,
              "%s at %g: draws %g and %g, vertices %g and %g", portable->mode, portable->count,
              gl45->draw_calls, portable->draw_calls, gl45->vertices, portable->vertices);
    CHECK_MSG(portable->uploaded_bytes == gl45->uploaded_bytes + 40.0 * portable->count,
              "%s at %g: portable uploads %g bytes, gl45 %g", portable->mode, portable->count,
              portable->uploaded_bytes, gl45->uploaded_bytes);
    CHECK_MSG(gl45->cull_ms_max == 0.0 &&
                  (culled ? portable->cull_ms > 0.0 : portable->cull_ms_max == 0.0),
              "%s at %g: cull %g ms (gl45 %g)", portable->mode, portable->count, portable->cull_ms,
              gl45->cull_ms_max);
    /* gl45 over itself is 1; the portable cell's ratios are its values over
     * the twin's (times of the rounded medians), and with one measured
     * frame the per-round ratio is that frame's, the ratio of the medians. */
    const cJSON *self = gl45->ratio_to_gl45, *ratio = portable->ratio_to_gl45;
    REQUIRE_VOID(cJSON_IsObject(self) && cJSON_IsObject(ratio));
    CHECK(number(self, "cpu_ms") == 1.0 && number(self, "frame_ms") == 1.0 &&
          number(self, "draw_calls") == 1.0 && number(self, "gpu_memory_bytes") == 1.0);
    CHECK(number(object(self, "cpu_ms_paired"), "median") == 1.0);
    CHECK_NEAR(number(ratio, "cpu_ms"), portable->cpu_ms / gl45->cpu_ms, 1e-9);
    CHECK_NEAR(number(ratio, "frame_ms"), portable->frame_ms / gl45->frame_ms, 1e-9);
    CHECK(number(ratio, "draw_calls") == 1.0);
    CHECK_NEAR(number(ratio, "gpu_memory_bytes"),
               portable->gpu_memory_bytes / gl45->gpu_memory_bytes, 1e-12);
    CHECK_NEAR(paired_median, portable->cpu_ms / gl45->cpu_ms,
               2e-4 * (portable->cpu_ms / gl45->cpu_ms));
}

/* --tiers gl45,portable: every (count, mode) measured by both tiers on the
 * one GL 4.5 context, cells [count][mode][tier]; the usage errors. */
static void bench_tiers(void) {
    check_usage_error(run("bench", "--tiers", "gl45", NULL), "--tiers gl45", "two tiers");
    check_usage_error(run("bench", "--tiers", "gl45,gl45", NULL), "--tiers gl45,gl45", "twice");
    check_usage_error(run("bench", "--tiers", "auto,portable", NULL), "--tiers auto", "not auto");
    check_usage_error(run("bench", "--tiers", "gl45,fast", NULL), "--tiers gl45,fast", "'fast'");
    check_usage_error(run("bench", "--tier", "gl45", "--tiers", "gl45,portable", NULL),
                      "--tier and --tiers", "--tiers");
    check_usage_error(run("bench", "--scene", "field", "--tiers", "gl45,portable", NULL),
                      "field --tiers", "--scene field");
    remove("bench_tiers.json");
    remove("bench_tiers.csv");
    const cli_run *r = run("bench", "builtin:", "--tiers", "portable,gl45", "--counts", "1,3",
                           "--modes", "static,cpu,gpu,vat", "--frames", "1", "--warmup", "1",
                           "--size", "32x32", "--json", "bench_tiers.json", "--csv",
                           "bench_tiers.csv", "--chart", "bench_tiers.png", "--quiet", NULL);
    CHECK_MSG(r->exit_code == 0, "bench --tiers: exit %d, stderr: %s", r->exit_code, r->err);
    check_chart(r, "bench_tiers.png", "--tiers");
    CHECK_MSG(strstr(r->out, "tiers: portable and gl45 side by side") != NULL &&
                  strstr(r->out, "/gl45") != NULL && strstr(r->out, " portable ") != NULL,
              "%s", r->out);
    cJSON *root = test_read_json("bench_tiers.json");
    REQUIRE_VOID(root != NULL);
    const cJSON *tiers = cJSON_GetObjectItemCaseSensitive(root, "tiers");
    const cJSON *asked = cJSON_GetObjectItemCaseSensitive(object(root, "settings"), "tiers_asked");
    REQUIRE_VOID(cJSON_IsArray(tiers) && cJSON_GetArraySize(tiers) == 2 && cJSON_IsArray(asked) &&
                 cJSON_GetArraySize(asked) == 2);
    CHECK(strcmp(cJSON_GetArrayItem(tiers, 0)->valuestring, "portable") == 0 &&
          strcmp(cJSON_GetArrayItem(tiers, 1)->valuestring, "gl45") == 0 &&
          strcmp(cJSON_GetArrayItem(asked, 0)->valuestring, "portable") == 0 &&
          strcmp(string(root, "tier"), "portable") == 0);
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    REQUIRE_VOID(cJSON_IsArray(results) && cJSON_GetArraySize(results) == 16);
    for (int i = 0; i < 16; i += 2) {
        /* Tiers in the order asked: portable, then its gl45 twin. */
        cell_view portable = read_cell(cJSON_GetArrayItem(results, i));
        cell_view gl45 = read_cell(cJSON_GetArrayItem(results, i + 1));
        const cJSON *paired = object(portable.ratio_to_gl45, "cpu_ms_paired");
        check_tier_pair(&gl45, &portable, number(paired, "median"));
    }
    cJSON_Delete(root);
    static char text[1 << 16];
    cli_read_text("bench_tiers.csv", text, sizeof text);
    CHECK_MSG(cli_line_count(text) == 17 && strstr(text, ",portable,") != NULL &&
                  strstr(text, ",gl45,0,1,1,1\n") != NULL,
              "bench_tiers.csv: %s", text);
}

/* --scene field: the four ways of every count, in order; brute force and
 * the floor draw all N with one draw; culling keeps a part of the field
 * (the camera sees a wedge of it from inside), never more than N; LODs
 * draw no more vertices than culling alone at the same count; ratios to
 * brute force are frame ms over brute force's; skipped above the limit. */
static void bench_field(void) {
    remove("bench_field.json");
    const cli_run *r =
        run("bench", "builtin:", "--scene", "field", "--counts", "64,400", "--frames", "1",
            "--warmup", "1", "--size", "64x36", "--brute-limit", "1000000", "--json",
            "bench_field.json", "--chart", "bench_field.png", "--quiet", NULL);
    CHECK_MSG(r->exit_code == 0, "bench --scene field: exit %d, stderr: %s", r->exit_code, r->err);
    check_chart(r, "bench_field.png", "field");
    CHECK_MSG(strstr(r->out, "cull+lod") != NULL && strstr(r->out, "skipped") != NULL, "%s",
              r->out);
    cJSON *root = test_read_json("bench_field.json");
    REQUIRE_VOID(root != NULL);
    CHECK(strcmp(string(root, "scene"), "field") == 0 && strcmp(string(root, "mode"), "vat") == 0);
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    REQUIRE_VOID(cJSON_IsArray(results) && cJSON_GetArraySize(results) == 8);
    static const char *const ways[4] = {"floor", "brute", "cull", "cull+lod"};
    double brute_ms = NAN, cull_vertices = NAN;
    for (int i = 0; i < 8; i++) {
        const cJSON *row = cJSON_GetArrayItem(results, i);
        double count = number(row, "count");
        CHECK(count == (i < 4 ? 64 : 400) && strcmp(string(row, "way"), ways[i % 4]) == 0);
        /* 400 x 6407 vertices is over the 1e6 limit: no brute force or floor. */
        bool skipped = boolean(row, "skipped");
        CHECK(skipped == (i >= 4 && i % 4 < 2));
        if (skipped) {
            CHECK(strcmp(string(row, "skip_reason"), "brute_limit") == 0);
            continue;
        }
        double drawn = number(row, "drawn"), vertices = number(row, "vertices");
        double draws = number(row, "draw_calls"), frame = number(object(row, "frame_ms"), "median");
        /* What each LOD level drew adds up to what was drawn; only
         * cull+lod draws beyond LOD 0. */
        const cJSON *per_lod = cJSON_GetObjectItemCaseSensitive(row, "drawn_per_lod");
        REQUIRE_VOID(cJSON_IsArray(per_lod) &&
                     cJSON_GetArraySize(per_lod) == (int)number(root, "lod_count"));
        double per_lod_sum = 0.0, beyond_lod0 = 0.0;
        for (int l = 0; l < cJSON_GetArraySize(per_lod); l++) {
            double n = cJSON_GetArrayItem(per_lod, l)->valuedouble;
            per_lod_sum += n;
            beyond_lod0 += l > 0 ? n : 0.0;
        }
        CHECK_MSG(per_lod_sum == drawn, "%s %g: per LOD %g, drawn %g", ways[i % 4], count,
                  per_lod_sum, drawn);
        CHECK(i % 4 == 3 || beyond_lod0 == 0.0);
        /* Only a pass with a viewport height picks one-fetch frames by size. */
        double one_fetch = number(row, "one_fetch");
        CHECK(one_fetch >= 0.0 && one_fetch <= drawn && (i % 4 == 3 || one_fetch == 0.0));
        if (i % 4 < 2) {
            CHECK(drawn == count && draws == 1.0);
        } else {
            CHECK_MSG(drawn > 0 && drawn < count, "%s %g: drew %g", ways[i % 4], count, drawn);
        }
        /* One round: the median of the per-round ratios is that round's;
         * none where brute force and the floor were over the limit. */
        if (i < 4) {
            const cJSON *paired_brute = object(row, "frame_vs_brute_paired");
            const cJSON *paired_floor = object(row, "frame_vs_floor_paired");
            CHECK_NEAR(number(paired_brute, "median"), number(row, "frame_vs_brute"), 1e-5);
            CHECK_NEAR(number(paired_floor, "median"), number(row, "frame_vs_floor"), 1e-5);
            if (i == 1) {
                CHECK(number(paired_brute, "min") == 1.0 && number(paired_brute, "max") == 1.0);
            }
        } else {
            CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "frame_vs_brute_paired")) &&
                  cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "frame_vs_floor_paired")));
        }
        if (i % 4 == 1) {
            brute_ms = frame;
            CHECK_NEAR(number(row, "frame_vs_brute"), 1.0, 1e-9);
        }
        if (i % 4 == 2) {
            cull_vertices = vertices;
            if (i < 4) {
                CHECK_NEAR(number(row, "frame_vs_brute"), frame / brute_ms, 1e-6);
            }
        }
        if (i % 4 == 3) {
            CHECK(vertices <= cull_vertices);
        }
    }
    cJSON_Delete(root);
    /* Forced nearest frames: every character on the one-fetch path. */
    remove("bench_nearest.json");
    r = run("bench", "builtin:", "--scene", "field", "--counts", "16", "--frames", "1", "--size",
            "32x18", "--ways", "brute", "--frame-fetch", "nearest", "--json", "bench_nearest.json",
            "--quiet", NULL);
    CHECK_MSG(r->exit_code == 0, "bench --frame-fetch nearest: exit %d, stderr: %s", r->exit_code,
              r->err);
    root = test_read_json("bench_nearest.json");
    REQUIRE_VOID(root != NULL);
    const cJSON *brute = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "results"), 1);
    CHECK(brute != NULL && strcmp(string(brute, "way"), "brute") == 0 &&
          number(brute, "one_fetch") == 16.0 && number(brute, "drawn") == 16.0);
    cJSON_Delete(root);
    check_usage_error(run("bench", "--frame-fetch", "sometimes", NULL), "--frame-fetch sometimes",
                      "not auto, interpolate or nearest");
    check_usage_error(run("bench", "--scene", "street", NULL), "--scene street", "--scene");
    check_usage_error(run("bench", "--scene", "field", "--modes", "gpu", NULL), "--modes gpu",
                      "not culled");
    check_usage_error(run("bench", "--scene", "field", "--csv", "field.csv", NULL), "field --csv",
                      "not --csv");
}

static double median_of_three(const double v[3]) {
    double low = fmin(v[0], fmin(v[1], v[2])), high = fmax(v[0], fmax(v[1], v[2]));
    return v[0] + v[1] + v[2] - low - high;
}

/* --ways: only the ways asked for are drawn and printed; the others are
 * JSON rows skipped as not asked, and a ratio to a way not drawn is null.
 * The rounds' frame times are in the JSON in order, and the per-round
 * ratios are summaries of each round's pair. */
static void bench_field_ways(void) {
    remove("bench_ways.json");
    const cli_run *r = run("bench", "builtin:", "--scene", "field", "--counts", "16", "--frames",
                           "3", "--size", "32x18", "--ways", "cull+lod,floor", "--json",
                           "bench_ways.json", "--chart", "bench_ways.png", "--quiet", NULL);
    CHECK_MSG(r->exit_code == 0, "bench --ways: exit %d, stderr: %s", r->exit_code, r->err);
    check_chart(r, "bench_ways.png", "--ways");
    CHECK_MSG(strstr(r->out, "floor and cull+lod interleaved") != NULL, "%s", r->out);
    CHECK_MSG(strstr(r->out, " brute ") == NULL && strstr(r->out, " cull ") == NULL &&
                  strstr(r->out, " floor ") != NULL && strstr(r->out, " cull+lod ") != NULL,
              "%s", r->out);
    cJSON *root = test_read_json("bench_ways.json");
    REQUIRE_VOID(root != NULL);
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    REQUIRE_VOID(cJSON_IsArray(results) && cJSON_GetArraySize(results) == 4);
    double round_ms[2][3] = {{0}}; /* floor's and cull+lod's, in round order */
    for (int i = 0; i < 4; i++) {
        const cJSON *row = cJSON_GetArrayItem(results, i);
        bool asked = i == 0 || i == 3;
        CHECK(boolean(row, "skipped") == !asked);
        if (!asked) {
            CHECK(strcmp(string(row, "skip_reason"), "not_asked") == 0);
            CHECK(cJSON_GetObjectItemCaseSensitive(row, "frame_ms") == NULL);
            continue;
        }
        CHECK(number(object(row, "frame_ms"), "median") > 0.0);
        CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "frame_vs_brute")));
        CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "frame_vs_brute_paired")));
        CHECK(number(row, "frame_vs_floor") > 0.0);
        /* Three rounds: a summary in order; the floor over itself is 1 in each. */
        const cJSON *paired = object(row, "frame_vs_floor_paired");
        double low = number(paired, "min"), p10 = number(paired, "p10");
        double median = number(paired, "median"), p90 = number(paired, "p90");
        double high = number(paired, "max");
        CHECK(low > 0.0 && low <= p10 && p10 <= median && median <= p90 && p90 <= high);
        if (i == 0) {
            CHECK(low == 1.0 && high == 1.0);
        }
        const cJSON *rounds = cJSON_GetObjectItemCaseSensitive(row, "frame_ms_rounds");
        REQUIRE_VOID(cJSON_IsArray(rounds) && cJSON_GetArraySize(rounds) == 3);
        double *mine = round_ms[i == 0 ? 0 : 1];
        for (int f = 0; f < 3; f++) {
            mine[f] = cJSON_GetArrayItem(rounds, f)->valuedouble;
        }
        CHECK_NEAR(number(object(row, "frame_ms"), "median"), median_of_three(mine), 1e-6);
    }
    /* cull+lod over the floor round by round: each round's frames pair up. */
    double ratios[3];
    for (int f = 0; f < 3; f++) {
        ratios[f] = round_ms[1][f] / round_ms[0][f];
    }
    const cJSON *paired = object(cJSON_GetArrayItem(results, 3), "frame_vs_floor_paired");
    CHECK_NEAR(number(paired, "median"), median_of_three(ratios), 1e-4 * median_of_three(ratios));
    cJSON_Delete(root);
    check_usage_error(run("bench", "--scene", "field", "--ways", "floor,crowd", NULL),
                      "--ways floor,crowd", "'crowd' is not floor");
    check_usage_error(run("bench", "--scene", "field", "--ways", "floor,", NULL), "--ways floor,",
                      "'' is not floor");
    check_usage_error(run("bench", "--ways", "floor", NULL), "--ways without the field",
                      "--scene field");
}

/* `crowd bench DIR` with the default modes: `expected` cells at count 3,
 * bat always among them, cpu only when all five modes play. */
static void bench_folder_modes(const char *dir, int expected) {
    remove("bench_folder.json");
    const cli_run *r = run("bench", dir, "--counts", "3", "--frames", "1", "--warmup", "0",
                           "--size", "32x32", "--json", "bench_folder.json", "--quiet", NULL);
    CHECK_MSG(r->exit_code == 0, "bench of %s: exit %d, stderr: %s", dir, r->exit_code, r->err);
    cJSON *root = test_read_json("bench_folder.json");
    const cJSON *results = root ? cJSON_GetObjectItemCaseSensitive(root, "results") : NULL;
    CHECK_MSG(cJSON_IsArray(results) && cJSON_GetArraySize(results) == expected,
              "%s: %d cells, expected %d", dir, results ? cJSON_GetArraySize(results) : -1,
              expected);
    CHECK(results != NULL && find_cell(results, "bat", 3) != NULL);
    CHECK(results != NULL &&
          (find_cell(results, "cpu", 3) != NULL) == (expected == CROWD_GPU_MODE_COUNT));
    cJSON_Delete(root);
}

static int group_bench(void) {
    bench_usage_errors();
    crowd_asset *builtin = NULL;
    REQUIRE(crowd_builtin_create(&builtin, NULL) == CROWD_OK);
    remove("bench.json");
    remove("bench.csv");
    const cli_run *r = run("bench", "builtin:", "--counts", "1,2", "--frames", "3", "--warmup", "1",
                           "--size", "64x48", "--json", "bench.json", "--csv", "bench.csv",
                           "--chart", "bench.png", "--quiet", NULL);
    if (no_gl) {
        crowd_asset_destroy(builtin);
        check_finish();
        return 77;
    }
    CHECK_MSG(r->exit_code == 0, "bench: exit %d, stderr: %s", r->exit_code, r->err);
    CHECK(strstr(r->out, "static") != NULL && strstr(r->out, "vat") != NULL);
    check_json("bench.json", builtin, r->out);
    check_csv("bench.csv");
    /* Reports are renamed into place from a temporary file: they must still
     * get the mode an ordinary file would (0666 less the umask), not 0600. */
    mode_t mask = umask(0);
    umask(mask);
    struct stat report_stat;
    CHECK(stat("bench.json", &report_stat) == 0 && (report_stat.st_mode & 0777) == (0666 & ~mask));
    check_chart(r, "bench.png", "bench");

    /* A bake folder plays every mode (its runtime clips play cpu and gpu);
     * one rewritten as version 3, without them, plays static, bat and vat,
     * and asking it for cpu is exit 3 naming the mode. */
    r = run("bake", "builtin:", "-o", "bench_bake", "--quiet", NULL);
    CHECK_MSG(r->exit_code == 0, "bake: exit %d, stderr: %s", r->exit_code, r->err);
    bench_folder_modes("bench_bake", CROWD_GPU_MODE_COUNT);
    REQUIRE(system("rm -rf bench_old && cp -r bench_bake bench_old") == 0 &&
            test_strip_runtime_clips("bench_old", "builtin"));
    r = run("bench", "bench_old", "--modes", "static,cpu", "--counts", "1", NULL);
    CHECK_MSG(r->exit_code == 3 && cli_line_count(r->err) == 1 && strstr(r->err, "cpu") != NULL,
              "version 3 folder in cpu mode: exit %d, stderr: %s", r->exit_code, r->err);
    bench_folder_modes("bench_old", 3);

    bench_archetypes(builtin);
    bench_no_wait();
    bench_tiers();
    bench_field();
    bench_field_ways();

    r = run("bench", "builtin:", "--counts", "1", "--frames", "1", "--json",
            "/nonexistent/dir/b.json", "--quiet", NULL);
    CHECK_MSG(r->exit_code == 4 && strstr(r->err, "/nonexistent/dir/b.json") != NULL,
              "unwritable JSON: exit %d, stderr: %s", r->exit_code, r->err);
    /* The field's JSON and chart cannot be written: exit 4 naming the path
     * (a missing gnuplot only warns about the chart). */
    r = run("bench", "builtin:", "--scene", "field", "--counts", "4", "--frames", "1", "--size",
            "32x18", "--json", "/nonexistent/dir/f.json", "--quiet", NULL);
    CHECK_MSG(r->exit_code == 4 && strstr(r->err, "/nonexistent/dir/f.json") != NULL,
              "field, unwritable JSON: exit %d, stderr: %s", r->exit_code, r->err);
    r = run("bench", "builtin:", "--scene", "field", "--counts", "4", "--frames", "1", "--size",
            "32x18", "--chart", "/nonexistent/dir/f.png", "--quiet", NULL);
    CHECK_MSG((r->exit_code == 4 && strstr(r->err, "/nonexistent/dir/f.png") != NULL) ||
                  (r->exit_code == 0 && strstr(r->err, "gnuplot is not installed") != NULL),
              "field, unwritable chart: exit %d, stderr: %s", r->exit_code, r->err);
    crowd_asset_destroy(builtin);
    return check_finish();
}

static int group_demo(void) {
    check_usage_error(run("demo", "builtin:", NULL), "demo with an argument", "builtin:");
    remove("demo.png");
    const cli_run *r = run("demo", "-o", "demo.png", NULL);
    if (no_gl) {
        check_finish();
        return 77;
    }
    CHECK_MSG(r->exit_code == 0, "demo: exit %d, stderr: %s", r->exit_code, r->err);
    uint32_t width = 0, height = 0;
    CHECK(png_size("demo.png", &width, &height) && width >= 320 && height >= 180);
    static const char *const modes[] = {"static", "cpu", "gpu", "bat", "vat"};
    for (int m = 0; m < 5; m++) {
        CHECK_MSG(strstr(r->out, modes[m]) != NULL, "demo's table lacks %s", modes[m]);
    }
    CHECK(strstr(r->out, "wrote demo.png") != NULL);
    CHECK_MSG(strstr(r->out, "two archetypes") != NULL && strstr(r->out, "in 2 passes") != NULL,
              "demo's picture line: %s", r->out);
    /* The marchers: half the crowd on the blend by speed, from the walk's
     * ground speed to the run's, carrying the three built-in props. */
    const char *march = strstr(r->out, " of them march past at ");
    while (march != NULL && march > r->out && march[-1] != '\n') {
        march--; /* to the start of its line */
    }
    unsigned walkers = 0, swords = 0, shields = 0, hats = 0, types = 0;
    float slowest = 0.0f, fastest = 0.0f;
    CHECK_MSG(march != NULL && sscanf(march, "%u of them march past at %f to %f m/s", &walkers,
                                      &slowest, &fastest) == 3,
              "demo's march line: %s", r->out);
    const char *carried = strstr(r->out, "carrying props attached at run time: ");
    CHECK_MSG(carried != NULL && sscanf(carried,
                                        "carrying props attached at run time: %u swords, "
                                        "%u shields, %u hats (%u prop types",
                                        &swords, &shields, &hats, &types) == 4,
              "demo's props: %s", r->out);
    CHECK(walkers > 0 && slowest > 0.5f && fastest > slowest && types == 3 && swords > 0 &&
          shields > 0 && hats > 0 && swords <= walkers && shields <= walkers && hats <= walkers);
    r = run("demo", "-o", "/nonexistent/dir/demo.png", NULL);
    CHECK_MSG(r->exit_code == 4 && strstr(r->err, "/nonexistent/dir/demo.png") != NULL,
              "unwritable picture: exit %d, stderr: %s", r->exit_code, r->err);
    return check_finish();
}

/* Whether two files hold the same bytes (PNGs of the same pixels do). */
static bool same_file(const char *a, const char *b) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa != NULL && fb != NULL;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        same = ca == cb;
        if (ca == EOF || cb == EOF) {
            break;
        }
    }
    if (fa != NULL) {
        fclose(fa);
    }
    if (fb != NULL) {
        fclose(fb);
    }
    return same;
}

/* --prop: the built-in character carries another as a hat on socket_head
 * (any model is a mesh to carry), paused at time 0 (space first): P takes
 * the props off, which draws what no --prop draws; bad values are errors. */
static void play_props(void) {
    const char *shots[3] = {"play_bare.png", "play_props.png", "play_props_off.png"};
    const char *keys[3] = {" ", " ", " P"};
    for (int k = 0; k < 3; k++) {
        remove(shots[k]);
        const cli_run *r =
            k == 0 ? run("play", "builtin:", "--count", "2", "--size", "160x90", "--frames", "3",
                         "--keys", keys[k], "--screenshot", shots[k], NULL)
                   : run("play", "builtin:", "--count", "2", "--size", "160x90", "--frames", "3",
                         "--prop", "socket_head=builtin:", "--keys", keys[k], "--screenshot",
                         shots[k], NULL);
        CHECK_MSG(r->exit_code == 0, "play %s: exit %d, stderr: %s", shots[k], r->exit_code,
                  r->err);
    }
    CHECK_MSG(!same_file(shots[0], shots[1]), "the props do not show");
    CHECK_MSG(same_file(shots[0], shots[2]), "P leaves something of the props");
    check_usage_error(run("play", "builtin:", "--prop", "socket_head", NULL),
                      "--prop without =", "SOCKET=FILE");
    const cli_run *r = run("play", "builtin:", "--frames", "1", "--size", "160x90", "--prop",
                           "socket_nope=builtin:", NULL);
    CHECK_MSG(r->exit_code != 0 && strstr(r->err, "no socket named 'socket_nope'") != NULL,
              "unknown socket: exit %d, stderr: %s", r->exit_code, r->err);
    r = run("play", "builtin:", "--frames", "1", "--size", "160x90", "--prop",
            "socket_head=no_such_file.glb", NULL);
    CHECK_MSG(r->exit_code != 0 && strstr(r->err, "no_such_file.glb") != NULL,
              "missing prop file: exit %d, stderr: %s", r->exit_code, r->err);
}

static int group_play(void) {
    check_usage_error(run("play", NULL), "play without a model", "MODEL");
    check_usage_error(run("play", "builtin:", "--mode", "fast", NULL), "--mode fast", "fast");
    check_usage_error(run("play", "builtin:", "--count", "0", NULL), "--count 0", "--count");
    remove("play.png");
    /* vat, + (x2), m (next mode: static), c (new clips), 3 (gpu), - (/2),
     * space (pause), 2 (cpu). */
    const cli_run *r = run("play", "builtin:", "--count", "3", "--size", "160x90", "--frames", "10",
                           "--keys", "5+mc3- 2", "--screenshot", "play.png", NULL);
    if (no_gl) {
        check_finish();
        return 77;
    }
    CHECK_MSG(r->exit_code == 0, "play: exit %d, stderr: %s", r->exit_code, r->err);
    uint32_t width = 0, height = 0;
    CHECK(png_size("play.png", &width, &height) && width == 160 && height == 90);
    /* A mixed crowd with shadows: two archetypes, 4 (bat for both), m (next mode). */
    remove("play_mixed.png");
    r = run("play", "builtin:", "builtin:", "--shadows", "--count", "4", "--size", "160x90",
            "--frames", "4", "--keys", "4m", "--screenshot", "play_mixed.png", NULL);
    CHECK_MSG(r->exit_code == 0, "play mixed: exit %d, stderr: %s", r->exit_code, r->err);
    CHECK(png_size("play_mixed.png", &width, &height) && width == 160 && height == 90);
    /* Blend by speed: b (on: builtin:'s walk and run), ] (faster), 4 (bat),
     * + (x2: newcomers join the blend), [ (slower), 5 (vat), c (clips:
     * leaves the blend), b (on again), b (off). */
    remove("play_blend.png");
    r = run("play", "builtin:", "--count", "3", "--size", "160x90", "--frames", "12", "--keys",
            "b]4+[5cbb", "--screenshot", "play_blend.png", NULL);
    CHECK_MSG(r->exit_code == 0, "play blend: exit %d, stderr: %s", r->exit_code, r->err);
    CHECK(png_size("play_blend.png", &width, &height) && width == 160 && height == 90);
    play_props();
    return check_finish();
}

int main(int argc, char **argv) {
    check_enter_temp_dir("test_cli_bench");
    const char *group = argc > 1 ? argv[1] : "bench";
    if (strcmp(group, "bench") == 0) {
        return group_bench();
    }
    if (strcmp(group, "demo") == 0) {
        return group_demo();
    }
    if (strcmp(group, "play") == 0) {
        return group_play();
    }
    fprintf(stderr, "usage: test_cli_bench bench|demo|play\n");
    return 2;
}
