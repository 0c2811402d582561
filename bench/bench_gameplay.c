/* bench_gameplay - the application's CPU time per frame (crowd_world_update
 * and one colour pass, thread CPU time) with 10,000 instances that a game
 * drives (blends by speed, run-time props) against 1,000 playing a clip,
 * on both tiers (crowd/gpu.h "blends", "Props").
 *
 * The builtin character is baked in memory (VAT only, no LODs); every
 * world draws in vat mode. Scenes:
 *   plain-1000    1,000 instances of walk, phases spread
 *   plain-10000   10,000 of them
 *   props-10000   10,000 playing walk, carrying the built-in props
 *                 (sword, shield, hat: each instance one, two or three of
 *                 them, attached at run time)
 *   still-10000   10,000 on the locomotion blend (walk and run by ground
 *                 speed), speeds spread over 1.6 .. 3.4 m/s
 *   blend-10000   the same, and every frame 100 of them (1 %, a game
 *                 steering) change speed by crowd_instance_set_ground_speed
 *                 (one record write each)
 *   both-10000    blend-10000 carrying props-10000's props
 * Mesa's GL thread is on (mesa_glthread=true unless set otherwise), so
 * llvmpipe's vertex shading runs off the measured thread.
 * The instances stand on a 3 m grid and the camera frames the first one
 * alone, so every scene draws one character (culled: the others are
 * outside the view) and the differences are crowd's per-instance work
 * (steering, record uploads, the portable tier's culling and record
 * streaming, the props' lists). Each frame is read back
 * (one pixel, outside the timing) so the GPU never runs behind. The scenes'
 * frames interleave in a shuffled order, warm-up frames are dropped, and
 * each time is the median with its 10th-90th percentiles.
 *
 * Usage: bench_gameplay [--rounds N]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "bench_machine.h"
#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "crowd/gpu.h"
#include "host.h"

enum { SCENES = 12, WARMUP = 5, MAX_ROUNDS = 2000, STEER = 100 };

typedef struct scene {
    const char *name;
    crowd_gpu_tier tier;
    uint32_t count;
    bool blend, steer, props;
    crowd_world *world;
    crowd_instance *ids;
    crowd_blend locomotion;
    uint32_t steered; /* next instance to change speed */
    double *times;
} scene;

static float speed_of(uint32_t i, uint32_t round) {
    return 1.6f + 1.8f * (float)((i * 2654435761u + round * 40503u) % 1000u) / 1000.0f;
}

/* The built-in props as prop types of the archetype, and instance i's
 * share of them: one, two or all three (bits of 1 + i % 7). */
static bool add_props(scene *s, crowd_archetype archetype, crowd_prop props[3],
                      crowd_error *error) {
    for (uint32_t p = 0; p < 3; p++) {
        crowd_asset *asset = NULL;
        bool ok = crowd_builtin_prop_create(crowd_builtin_prop_name(p), &asset, error) == CROWD_OK;
        crowd_prop_desc desc = {asset, crowd_builtin_prop_socket(p)};
        ok = ok && crowd_world_add_prop(s->world, archetype, &desc, &props[p], error) == CROWD_OK;
        crowd_asset_destroy(asset);
        if (!ok) {
            return false;
        }
    }
    return true;
}

static bool dress(scene *s, const crowd_prop props[3], uint32_t i, crowd_error *error) {
    uint32_t carried = 1u + i % 7u;
    for (uint32_t p = 0; p < 3; p++) {
        if ((carried >> p & 1u) &&
            crowd_instance_attach_prop(s->world, s->ids[i], props[p], error) != CROWD_OK) {
            return false;
        }
    }
    return true;
}

static bool scene_create(scene *s, const crowd_bake *bake, crowd_error *error) {
    crowd_archetype archetype;
    crowd_archetype_desc desc = {.asset = bake->asset, .bake = bake, .mode = CROWD_GPU_MODE_VAT};
    crowd_world_desc world = {.tier = s->tier, .max_instances = 16384};
    s->ids = calloc(s->count, sizeof *s->ids);
    if (s->ids == NULL || crowd_world_create(&world, &s->world, error) != CROWD_OK ||
        crowd_world_add_archetype(s->world, &desc, &archetype, error) != CROWD_OK) {
        return false;
    }
    uint32_t walk = 0, run = 0;
    crowd_archetype_find_clip(s->world, archetype, "walk", &walk);
    crowd_archetype_find_clip(s->world, archetype, "run", &run);
    const uint32_t clips[2] = {walk, run};
    crowd_blend_desc blend = {.name = "locomotion", .clip_count = 2, .clips = clips};
    if (s->blend &&
        crowd_archetype_add_blend(s->world, archetype, &blend, &s->locomotion, error) != CROWD_OK) {
        return false;
    }
    crowd_prop props[3];
    if (s->props && !add_props(s, archetype, props, error)) {
        return false;
    }
    for (uint32_t i = 0; i < s->count; i++) {
        crowd_instance_desc instance = {
            .position = {3.0f * (float)(i % 100), 0.0f, 3.0f * (float)(i / 100)},
            .clip = walk,
            .time_offset_s = (float)(i % 97) / 97.0f,
        };
        if (crowd_world_add_instance(s->world, archetype, &instance, &s->ids[i], error) !=
                CROWD_OK ||
            (s->blend && (crowd_instance_play_blend(s->world, s->ids[i], s->locomotion,
                                                    speed_of(i, 0), 0.0f, error) != CROWD_OK ||
                          crowd_instance_set_ground_speed(s->world, s->ids[i], speed_of(i, 0),
                                                          error) != CROWD_OK)) ||
            (s->props && !dress(s, props, i, error))) {
            return false;
        }
    }
    return crowd_world_update(s->world, 0.0, error) == CROWD_OK;
}

/* One frame: the game steers (blend scenes), updates and draws. */
static double frame(scene *s, uint32_t round, const crowd_draw_desc *draw,
                    const host_target *target) {
    static const float clear[3] = {0.3f, 0.35f, 0.4f};
    host_target_begin(target, clear);
    double start = bench_thread_s();
    for (uint32_t k = 0; s->steer && k < STEER; k++) {
        uint32_t i = s->steered;
        s->steered = (s->steered + 1) % s->count;
        crowd_instance_set_ground_speed(s->world, s->ids[i], speed_of(i, round), NULL);
    }
    crowd_world_update(s->world, (round + 1) / 60.0, NULL);
    crowd_world_draw(s->world, draw, NULL);
    double spent = bench_thread_s() - start;
    uint8_t pixel[4 * 160 * 90];
    host_target_read_rgba(target, pixel, sizeof pixel, NULL);
    return spent;
}

int main(int argc, char **argv) {
    uint32_t rounds = 60;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--rounds") == 0) {
            rounds = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        }
    }
    if (rounds < 10 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: bench_gameplay [--rounds 10..%d]\n", MAX_ROUNDS);
        return 1;
    }
    crowd_error error = {0};
    host_context *context = NULL;
    host_target target = {0};
    crowd_asset *asset = NULL;
    crowd_bake *bake = NULL;
    crowd_bake_desc bake_desc = {.what = CROWD_BAKE_VAT_ONLY, .lods = -1};
    /* Mesa's GL thread (unless the environment says otherwise) takes a
     * software rasterizer's vertex shading off the calling thread, as a
     * GPU would: the thread's CPU time is then crowd's own work, as
     * `crowd bench` measures it (docs/bench.md). */
    setenv("mesa_glthread", "true", 0);
    if (host_context_create(NULL, &context, &error) != CROWD_OK ||
        host_target_resize(&target, 160, 90, &error) != CROWD_OK ||
        crowd_builtin_create(&asset, &error) != CROWD_OK ||
        crowd_bake_build(asset, &bake_desc, &bake, &error) != CROWD_OK) {
        fprintf(stderr, "bench_gameplay: %s\n", error.reason);
        return 1;
    }
    scene scenes[SCENES];
    static const scene kinds[SCENES / 2] = {
        {.name = "plain-1000", .count = 1000},
        {.name = "plain-10000", .count = 10000},
        {.name = "props-10000", .count = 10000, .props = true},
        {.name = "still-10000", .count = 10000, .blend = true},
        {.name = "blend-10000", .count = 10000, .blend = true, .steer = true},
        {.name = "both-10000", .count = 10000, .blend = true, .steer = true, .props = true},
    };
    for (int s = 0; s < SCENES; s++) {
        scenes[s] = kinds[s % (SCENES / 2)];
        scenes[s].tier = s < SCENES / 2 ? CROWD_TIER_GL45 : CROWD_TIER_PORTABLE;
    }
    scene *used[SCENES];
    for (int s = 0; s < SCENES; s++) {
        scenes[s].times = calloc(rounds, sizeof *scenes[s].times);
        if (scenes[s].times == NULL || !scene_create(&scenes[s], bake, &error)) {
            fprintf(stderr, "bench_gameplay: %s: %s\n", scenes[s].name, error.reason);
            return 1;
        }
        used[s] = &scenes[s];
    }
    const float corner_min[3] = {-0.6f, 0.0f, -0.6f}, corner_max[3] = {0.6f, 2.0f, 0.6f};
    crowd_camera camera;
    crowd_camera_frame_box(corner_min, corner_max, 160.0f / 90.0f, &camera);
    crowd_draw_desc draw = {.pass = CROWD_PASS_COLOR};
    crowd_camera_matrices(&camera, 160.0f / 90.0f, draw.view, draw.projection);
    crowd_light_default(&draw.light);
    char cpu[128] = "unknown CPU";
    bench_cpu_name(cpu, sizeof cpu);
    printf("bench_gameplay: %s; %u rounds (after %d warm-up), thread CPU time of one frame "
           "(steering, crowd_world_update, one vat colour pass, 1 character in view), "
           "mesa_glthread=%s\n",
           cpu, rounds, WARMUP, getenv("mesa_glthread"));
    uint32_t seed = 1;
    for (uint32_t round = 0; round < rounds + WARMUP; round++) {
        for (int k = SCENES - 1; k > 0; k--) { /* Fisher-Yates with a fixed LCG */
            seed = seed * 1664525u + 1013904223u;
            int j = (int)((seed >> 8) % (uint32_t)(k + 1));
            scene *t = used[k];
            used[k] = used[j];
            used[j] = t;
        }
        for (int k = 0; k < SCENES; k++) {
            double spent = frame(used[k], round, &draw, &target);
            if (round >= WARMUP) {
                used[k]->times[round - WARMUP] = spent;
            }
        }
    }
    printf("%-9s %-12s %7s %10s %10s %10s %8s %6s %10s\n", "tier", "scene", "count", "median ms",
           "p10 ms", "p90 ms", "drawn", "draws", "x plain1k");
    for (int s = 0; s < SCENES; s++) {
        qsort(scenes[s].times, rounds, sizeof *scenes[s].times, bench_compare_doubles);
    }
    for (int s = 0; s < SCENES; s++) {
        /* Characters the last frame drew (the portable tier's CPU culling
         * counts them; the GL 4.5 tier's are read back with timing only). */
        crowd_world_stats stats;
        crowd_world_get_stats(scenes[s].world, &stats);
        /* Each tier's first scene is its plain-1000. */
        const scene *base = &scenes[s < SCENES / 2 ? 0 : SCENES / 2];
        printf("%-9s %-12s %7u %10.3f %10.3f %10.3f %8llu %6u %9.2fx\n",
               crowd_gpu_tier_name(scenes[s].tier), scenes[s].name, scenes[s].count,
               1e3 * scenes[s].times[rounds / 2], 1e3 * scenes[s].times[rounds / 10],
               1e3 * scenes[s].times[(rounds * 9) / 10],
               (unsigned long long)stats.visible_instances, (unsigned)stats.draw_calls,
               scenes[s].times[rounds / 2] / base->times[rounds / 2]);
    }
    for (int s = 0; s < SCENES; s++) {
        crowd_world_destroy(scenes[s].world);
        free(scenes[s].ids);
        free(scenes[s].times);
    }
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
    host_target_release(&target);
    host_context_destroy(context);
    host_context_destroy(NULL);
    return 0;
}
