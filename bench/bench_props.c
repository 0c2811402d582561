/* bench_props - the application's CPU per frame (crowd_world_stats.cpu_time_s:
 * thread CPU time of crowd_world_update and crowd_world_draw) with run-time
 * props (crowd/gpu.h "Props"), against the same crowd without them.
 *
 * The builtin character is baked in memory (VAT and BAT, no LODs); props
 * are a hand-built 12-triangle box on its hand socket and another on its
 * head. Scenes, each a world in one mode, drawn GPU-culled into a 64x64
 * target whose camera (from above, narrow) sees a few characters (so the software rasterizer's
 * vertex work stays small and the CPU time is crowd's own per-frame work):
 *   bare-1000      1,000 instances, no props
 *   props-10000    10,000 instances; a third carry the box on the hand, a
 *                  third the one on the head, a third both
 * in bat and vat mode. Frames advance 1/60 s; each frame is finished
 * (glFinish) before the next; warm-up frames dropped; medians with the
 * 10th-90th percentiles, and the draw calls of a frame.
 *
 * Usage: bench_props [--frames N]
 */
#define _POSIX_C_SOURCE 200809L
#include <epoxy/gl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_machine.h"
#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "crowd/gpu.h"
#include "host.h"

enum { WARMUP = 5, MAX_FRAMES = 10000 };

typedef struct scene {
    const char *name;
    crowd_gpu_mode mode;
    uint32_t count;
    bool props;
    crowd_world *world;
    double *times;
    uint32_t draws;
} scene;

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* A 0.1 m cube: 24 vertices (flat normals), 12 triangles. */
static void make_box(crowd_asset *box, float *positions, float *normals, uint32_t *indices) {
    memset(box, 0, sizeof *box);
    for (int face = 0; face < 6; face++) {
        int axis = face / 2;
        float sign = (face & 1) ? -1.0f : 1.0f;
        for (int k = 0; k < 4; k++) {
            float *p = positions + 3 * (4 * face + k), *n = normals + 3 * (4 * face + k);
            float u = (k & 1) ? 0.05f : -0.05f, v = (k & 2) ? 0.05f : -0.05f;
            p[axis] = sign * 0.05f;
            p[(axis + 1) % 3] = u;
            p[(axis + 2) % 3] = v;
            n[0] = n[1] = n[2] = 0.0f;
            n[axis] = sign;
        }
        const uint32_t quad[6] = {0, 1, 3, 0, 3, 2};
        for (int i = 0; i < 6; i++) {
            indices[6 * face + i] = (uint32_t)(4 * face) + quad[i];
        }
    }
    box->mesh.vertex_count = 24;
    box->mesh.index_count = 36;
    box->mesh.positions = positions;
    box->mesh.normals = normals;
    box->mesh.indices = indices;
}

static bool scene_create(scene *s, const crowd_bake *bake, const crowd_asset *box,
                         crowd_error *error) {
    crowd_archetype archetype;
    crowd_archetype_desc desc = {.bake = bake, .mode = s->mode};
    if (crowd_world_create(&(crowd_world_desc){.timing = true}, &s->world, error) != CROWD_OK ||
        crowd_world_add_archetype(s->world, &desc, &archetype, error) != CROWD_OK) {
        return false;
    }
    crowd_prop hand = {0}, head = {0};
    if (s->props &&
        (crowd_world_add_prop(s->world, archetype, &(crowd_prop_desc){box, "socket_hand_R"}, &hand,
                              error) != CROWD_OK ||
         crowd_world_add_prop(s->world, archetype, &(crowd_prop_desc){box, "socket_head"}, &head,
                              error) != CROWD_OK)) {
        return false;
    }
    for (uint32_t i = 0; i < s->count; i++) {
        crowd_instance_desc instance = {
            .position = {(float)(i % 100), 0.0f, -(float)(i / 100)},
            .time_offset_s = (float)(i % 97) / 97.0f,
        };
        crowd_instance id;
        if (crowd_world_add_instance(s->world, archetype, &instance, &id, error) != CROWD_OK ||
            (s->props && i % 3 != 1 &&
             crowd_instance_attach_prop(s->world, id, hand, error) != CROWD_OK) ||
            (s->props && i % 3 != 0 &&
             crowd_instance_attach_prop(s->world, id, head, error) != CROWD_OK)) {
            return false;
        }
    }
    return true;
}

static void report(scene *s, uint32_t frames, double base) {
    qsort(s->times, frames, sizeof *s->times, compare);
    double median = s->times[frames / 2];
    printf("%-12s %-4s %6u %10.1f %10.1f %10.1f %6u %8.2f\n", s->name, crowd_gpu_mode_name(s->mode),
           s->count, 1e6 * median, 1e6 * s->times[frames / 10], 1e6 * s->times[(frames * 9) / 10],
           s->draws, base > 0.0 ? median / base : 1.0);
}

int main(int argc, char **argv) {
    uint32_t frames = 200;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--frames") == 0) {
            frames = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        }
    }
    if (frames < 10 || frames > MAX_FRAMES) {
        fprintf(stderr, "usage: bench_props [--frames 10..%d]\n", MAX_FRAMES);
        return 1;
    }
    crowd_error error = {0};
    host_context *context = NULL;
    host_target target = {0};
    crowd_asset *asset = NULL, box;
    crowd_bake *bake = NULL;
    float positions[72], normals[72];
    uint32_t indices[36];
    make_box(&box, positions, normals, indices);
    crowd_bake_desc bake_desc = {.lods = -1};
    if (host_context_create(NULL, &context, &error) != CROWD_OK ||
        host_target_resize(&target, 64, 64, &error) != CROWD_OK ||
        crowd_builtin_create(&asset, &error) != CROWD_OK ||
        crowd_bake_build(asset, &bake_desc, &bake, &error) != CROWD_OK) {
        fprintf(stderr, "bench_props: %s\n", error.reason);
        return 1;
    }
    scene scenes[4] = {{"bare-1000", CROWD_GPU_MODE_BAT, 1000, false, NULL, NULL, 0},
                       {"props-10000", CROWD_GPU_MODE_BAT, 10000, true, NULL, NULL, 0},
                       {"bare-1000", CROWD_GPU_MODE_VAT, 1000, false, NULL, NULL, 0},
                       {"props-10000", CROWD_GPU_MODE_VAT, 10000, true, NULL, NULL, 0}};
    for (int s = 0; s < 4; s++) {
        scenes[s].times = calloc(frames, sizeof *scenes[s].times);
        if (scenes[s].times == NULL || !scene_create(&scenes[s], bake, &box, &error)) {
            fprintf(stderr, "bench_props: %s: %s\n", scenes[s].name, error.reason);
            return 1;
        }
    }
    /* Straight down from 30 m with a narrow view: a few characters in sight. */
    crowd_camera camera = {.eye = {1.0f, 30.0f, -1.0f},
                           .target = {1.0f, 0.0f, -1.0f},
                           .up = {0.0f, 0.0f, -1.0f},
                           .fov_y_rad = 0.1f};
    crowd_draw_desc draw = {
        .pass = CROWD_PASS_COLOR, .cull = CROWD_CULL_GPU, .viewport_height_px = 64.0f};
    crowd_camera_matrices(&camera, 1.0f, draw.view, draw.projection);
    crowd_light_default(&draw.light);
    char cpu[128] = "unknown CPU";
    bench_cpu_name(cpu, sizeof cpu);
    printf("bench_props: %s; %u frames of 1/60 s (after %d warm-up), crowd_world_stats.cpu_time_s "
           "(update + one GPU-culled colour pass)\n",
           cpu, frames, WARMUP);
    for (uint32_t frame = 0; frame < frames + WARMUP; frame++) {
        for (int k = 0; k < 4; k++) {
            scene *s = &scenes[k];
            const float clear[3] = {0.2f, 0.2f, 0.2f};
            host_target_begin(&target, clear);
            if (crowd_world_update(s->world, (frame + 1) / 60.0, &error) != CROWD_OK ||
                crowd_world_draw(s->world, &draw, &error) != CROWD_OK) {
                fprintf(stderr, "bench_props: %s: %s\n", s->name, error.reason);
                return 1;
            }
            glFinish();
            crowd_world_stats stats;
            crowd_world_get_stats(s->world, &stats);
            if (frame >= WARMUP) {
                s->times[frame - WARMUP] = stats.cpu_time_s;
                s->draws = stats.draw_calls;
            }
        }
    }
    printf("%-12s %-4s %6s %10s %10s %10s %6s %8s\n", "scene", "mode", "count", "median us",
           "p10 us", "p90 us", "draws", "x bare");
    for (int s = 0; s < 4; s++) {
        double base = scenes[s - s % 2].times[frames / 2];
        report(&scenes[s], frames, s % 2 == 1 ? base : 0.0);
    }
    for (int s = 0; s < 4; s++) {
        crowd_world_destroy(scenes[s].world);
        free(scenes[s].times);
    }
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
    host_target_release(&target);
    host_context_destroy(context);
    host_context_destroy(NULL);
    return 0;
}
