/* bench_field.c - the field scene of bench_field.h. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <epoxy/gl.h>

#include "bench_field.h"
#include "cli.h"
#include "floor.h"
#include "mat4.h"
#include "stage.h"

const char *const field_way_names[FIELD_WAYS] = {"floor", "brute", "cull", "cull+lod"};

/* Metres between neighbours: a dense crowd. */
#define FIELD_SPACING 1.8f

enum { WAY_FLOOR, WAY_BRUTE, WAY_CULL, WAY_CULL_LOD };

/* One count: the transforms, the floor, a world per crowd way (each its own,
 * so its read-back counts are of its own frames), and the frames measured. */
typedef struct field_state {
    uint32_t count;
    float *positions, *headings, *scales;
    floor_draw floor;
    crowd_world *worlds[FIELD_WAYS];
    double *frame_ms[FIELD_WAYS], *cpu_ms[FIELD_WAYS];
    field_skip skip[FIELD_WAYS];
    crowd_world_stats last[FIELD_WAYS];
} field_state;

static double clock_s(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void state_release(field_state *s) {
    floor_release(&s->floor);
    for (int w = 0; w < FIELD_WAYS; w++) {
        crowd_world_destroy(s->worlds[w]);
        free(s->frame_ms[w]);
        free(s->cpu_ms[w]);
    }
    free(s->positions);
    free(s->headings);
    free(s->scales);
}

/* A jittered square grid around the origin, headings and clips at random. */
static crowd_result populate(field_state *s, const scene_character *character,
                             const bench_config *c, uint64_t brute_limit, uint32_t ways,
                             crowd_error *error) {
    uint32_t n = s->count;
    s->positions = malloc(3 * sizeof(float) * n);
    s->headings = malloc(sizeof(float) * n);
    s->scales = malloc(sizeof(float) * n);
    for (int w = 0; w < FIELD_WAYS; w++) {
        s->frame_ms[w] = calloc(c->frames, sizeof(double));
        s->cpu_ms[w] = calloc(c->frames, sizeof(double));
        if (s->frame_ms[w] == NULL || s->cpu_ms[w] == NULL) {
            return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
        }
    }
    if (s->positions == NULL || s->headings == NULL || s->scales == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    uint32_t side = (uint32_t)ceil(sqrt((double)n));
    uint64_t random = c->seed;
    for (uint32_t i = 0; i < n; i++) {
        float jitter_x = scene_random_unit(&random) - 0.5f;
        float jitter_z = scene_random_unit(&random) - 0.5f;
        s->positions[3 * i] = ((float)(i % side) - 0.5f * (float)side + jitter_x) * FIELD_SPACING;
        s->positions[3 * i + 1] = 0.0f;
        s->positions[3 * i + 2] =
            ((float)(i / side) - 0.5f * (float)side + jitter_z) * FIELD_SPACING;
        s->headings[i] = 6.2831853f * scene_random_unit(&random);
        s->scales[i] = 1.0f;
    }
    const crowd_mesh *mesh = &character->bake->asset->mesh;
    bool too_many = (uint64_t)n * mesh->vertex_count > brute_limit;
    for (int w = 0; w < FIELD_WAYS; w++) {
        bool limited = w == WAY_FLOOR || w == WAY_BRUTE;
        s->skip[w] = (ways & (1u << w)) == 0 ? FIELD_NOT_ASKED
                     : limited && too_many   ? FIELD_OVER_LIMIT
                                             : FIELD_MEASURED;
    }
    crowd_result result = CROWD_OK;
    if (s->skip[WAY_FLOOR] == FIELD_MEASURED) {
        result = floor_create(mesh, s->positions, s->headings, s->scales, n, &s->floor, error);
    }
    for (int w = WAY_BRUTE; result == CROWD_OK && w < FIELD_WAYS; w++) {
        if (s->skip[w] != FIELD_MEASURED) {
            continue;
        }
        crowd_world_desc desc = stage_world_desc(n, (crowd_logger){0});
        crowd_archetype archetype;
        result = crowd_world_create(&desc, &s->worlds[w], error);
        if (result == CROWD_OK) {
            result =
                scene_archetype_add(s->worlds[w], character, c->modes[0], NULL, &archetype, error);
        }
        uint64_t clips = c->seed + 1;
        for (uint32_t i = 0; result == CROWD_OK && i < n; i++) {
            crowd_instance_desc d = {.heading_rad = s->headings[i],
                                     .clip = scene_pick_clip(s->worlds[w], archetype, &clips, 0),
                                     .time_offset_s = 3.0f * scene_random_unit(&clips)};
            memcpy(d.position, s->positions + 3 * i, sizeof d.position);
            crowd_instance id;
            result = crowd_world_add_instance(s->worlds[w], archetype, &d, &id, error);
        }
    }
    return result;
}

/* At eye height in the middle of the field, looking along +X. */
static crowd_camera field_camera(uint32_t count) {
    float half = 0.5f * FIELD_SPACING * (float)ceil(sqrt((double)count));
    crowd_camera camera = {.eye = {0.0f, 1.7f, 0.0f},
                           .target = {10.0f, 1.4f, 0.0f},
                           .fov_y_rad = 1.0f,
                           .near_m = 0.1f,
                           .far_m = 3.0f * half + 20.0f};
    return camera;
}

/* Draws way `w` of `s` once (cleared target, update, draws, glFinish). */
static crowd_result draw_way(field_state *s, int w, const host_target *target,
                             const crowd_camera *camera, crowd_frame_fetch frame_fetch,
                             double time_s, int f, crowd_error *error) {
    crowd_draw_desc desc = {.pass = CROWD_PASS_COLOR,
                            .cull = w == WAY_BRUTE ? CROWD_CULL_OFF : CROWD_CULL_GPU,
                            .viewport_height_px = w == WAY_CULL_LOD ? (float)target->height : 0.0f,
                            .frame_fetch = frame_fetch};
    crowd_light_default(&desc.light);
    float aspect = (float)target->width / (float)target->height;
    crowd_camera_matrices(camera, aspect, desc.view, desc.projection);
    const float clear[3] = {0.32f, 0.38f, 0.46f};
    double wall = clock_s(CLOCK_MONOTONIC), cpu = clock_s(CLOCK_THREAD_CPUTIME_ID);
    host_target_begin(target, clear);
    crowd_result result = CROWD_OK;
    if (w == WAY_FLOOR) {
        float view_proj[16];
        mat4_mul(desc.projection, desc.view, view_proj);
        floor_render(&s->floor, view_proj);
    } else {
        result = crowd_world_update(s->worlds[w], time_s, error);
        if (result == CROWD_OK) {
            result = crowd_world_draw(s->worlds[w], &desc, error);
        }
    }
    double cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu;
    glFinish();
    double wall_s = clock_s(CLOCK_MONOTONIC) - wall;
    if (w != WAY_FLOOR) {
        crowd_world_get_stats(s->worlds[w], &s->last[w]);
    }
    if (f >= 0) {
        s->frame_ms[w][f] = wall_s * 1e3;
        s->cpu_ms[w][f] = cpu_s * 1e3;
    }
    return result;
}

/* Way `way`'s frame time over way `base`'s, round by round, summarized;
 * NAN throughout when either was not measured. Reads the frame times in
 * round order, so it runs before bench_summarize sorts them. */
static bench_summary paired_ratio(const field_state *s, int way, int base, uint32_t frames,
                                  double *scratch) {
    if (s->skip[way] != FIELD_MEASURED || s->skip[base] != FIELD_MEASURED) {
        return (bench_summary){NAN, NAN, NAN, NAN, NAN, NAN};
    }
    for (uint32_t f = 0; f < frames; f++) {
        scratch[f] = s->frame_ms[way][f] / s->frame_ms[base][f];
    }
    return bench_summarize(scratch, frames);
}

static crowd_result summarize(field_state *s, const bench_config *c, const crowd_mesh *mesh,
                              field_cell out[FIELD_WAYS], crowd_error *error) {
    double *scratch = malloc(c->frames * sizeof *scratch);
    if (scratch == NULL) {
        return crowd_error_set(error, CROWD_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    }
    for (int w = 0; w < FIELD_WAYS; w++) {
        out[w].paired_vs_brute = paired_ratio(s, w, WAY_BRUTE, c->frames, scratch);
        out[w].paired_vs_floor = paired_ratio(s, w, WAY_FLOOR, c->frames, scratch);
    }
    for (int w = 0; w < FIELD_WAYS; w++) {
        field_cell *cell = &out[w];
        cell->count = s->count;
        cell->skip = s->skip[w];
        if (cell->skip != FIELD_MEASURED) {
            continue;
        }
        /* The rounds go to the results; a copy is sorted for the summary. */
        cell->frame_ms_rounds = s->frame_ms[w];
        s->frame_ms[w] = NULL;
        memcpy(scratch, cell->frame_ms_rounds, c->frames * sizeof *scratch);
        cell->frame_ms = bench_summarize(scratch, c->frames);
        cell->cpu_ms = bench_summarize(s->cpu_ms[w], c->frames);
        if (w == WAY_FLOOR) {
            cell->visible = s->count;
            cell->visible_per_lod[0] = s->count;
            cell->vertices = (uint64_t)s->count * mesh->index_count;
            cell->draw_calls = 1;
            cell->gpu_memory_bytes = s->floor.gpu_memory_bytes;
            cell->record_memory_bytes = 64ull * s->count;
        } else {
            cell->visible = s->last[w].visible_instances;
            memcpy(cell->visible_per_lod, s->last[w].visible_per_lod, sizeof cell->visible_per_lod);
            cell->one_fetch = s->last[w].nearest_instances;
            cell->vertices = s->last[w].vertices_drawn;
            cell->draw_calls = s->last[w].draw_calls;
            cell->gpu_memory_bytes = s->last[w].gpu_memory_bytes;
            cell->record_memory_bytes = s->last[w].record_memory_bytes;
        }
    }
    free(scratch);
    return CROWD_OK;
}

void bench_field_results_release(field_results *results) {
    for (uint32_t k = 0; k < BENCH_MAX_COUNTS; k++) {
        for (int w = 0; w < FIELD_WAYS; w++) {
            free(results->cells[k][w].frame_ms_rounds);
            results->cells[k][w].frame_ms_rounds = NULL;
        }
    }
}

bool bench_field_parse_ways(const char *text, uint32_t *ways) {
    *ways = 0;
    const char *at = text;
    for (;;) {
        size_t length = strcspn(at, ",");
        int found = -1;
        for (int w = 0; w < FIELD_WAYS; w++) {
            if (strlen(field_way_names[w]) == length &&
                strncmp(at, field_way_names[w], length) == 0) {
                found = w;
            }
        }
        if (found < 0) {
            fprintf(stderr, "crowd: error: --ways: '%.*s' is not floor, brute, cull or cull+lod\n",
                    (int)length, at);
            return false;
        }
        *ways |= 1u << found;
        if (at[length] == '\0') {
            return true;
        }
        at += length + 1;
    }
}

crowd_result bench_field_run(host_context *context, const scene_character *character,
                             const bench_config *config, uint64_t brute_limit, uint32_t ways,
                             field_results *out, crowd_error *error) {
    memset(out, 0, sizeof *out);
    if (character->bake == NULL || config->mode_count == 0 || config->frames == 0 ||
        (ways & FIELD_ALL_WAYS) == 0) {
        return crowd_error_set(error, CROWD_ERROR_INVALID_ARGUMENT, NULL,
                               "the field scene needs a bake, a mode, a way and a frame");
    }
    out->model = config->model;
    out->mode = config->modes[0];
    out->width = config->width;
    out->height = config->height;
    out->frames = config->frames;
    out->warmup = config->warmup;
    out->brute_limit = brute_limit;
    out->ways = ways & FIELD_ALL_WAYS;
    out->vertex_count = character->bake->asset->mesh.vertex_count;
    out->lod_count = character->bake->lod_count;
    out->count_count = config->count_count;
    memcpy(out->counts, config->counts, sizeof out->counts);
    bench_machine_describe(context, &out->machine);
    double start = cli_wall_s();
    host_target target = {0};
    crowd_result result = host_target_resize(&target, config->width, config->height, error);
    for (uint32_t k = 0; result == CROWD_OK && k < config->count_count; k++) {
        field_state s = {.count = config->counts[k]};
        result = populate(&s, character, config, brute_limit, ways, error);
        crowd_camera camera = field_camera(s.count);
        uint64_t random = config->seed;
        int order[FIELD_WAYS] = {0, 1, 2, 3};
        for (uint32_t round = 0; result == CROWD_OK && round < config->warmup + config->frames;
             round++) {
            if (!config->quiet && isatty(STDERR_FILENO)) {
                fprintf(stderr, "\rcrowd: bench: field of %u, round %u of %u   ", (unsigned)s.count,
                        (unsigned)round + 1, (unsigned)(config->warmup + config->frames));
            }
            for (int i = FIELD_WAYS; i > 1; i--) {
                int j = (int)(scene_random_u64(&random) % (uint64_t)i), t = order[i - 1];
                order[i - 1] = order[j];
                order[j] = t;
            }
            int f = round < config->warmup ? -1 : (int)(round - config->warmup);
            for (int i = 0; result == CROWD_OK && i < FIELD_WAYS; i++) {
                if (s.skip[order[i]] == FIELD_MEASURED) {
                    result = draw_way(&s, order[i], &target, &camera, config->frame_fetch,
                                      config->frame_step_s * round, f, error);
                }
            }
        }
        if (result == CROWD_OK) {
            result = summarize(&s, config, &character->bake->asset->mesh, out->cells[k], error);
        }
        state_release(&s);
    }
    if (!config->quiet && isatty(STDERR_FILENO)) {
        fprintf(stderr, "\r%50s\r", "");
    }
    host_target_release(&target);
    out->seconds = cli_wall_s() - start;
    return result;
}
