/* bench_events - event work per frame (crowd_world_update's events,
 * crowd/gpu.h "Events") at 1 and 10,000 instances whose clips have no
 * events, and with events.
 *
 * The builtin character is baked in memory (BAT only, no LODs) with two
 * markers on "walk" (0.25 s and 0.75 s of its 1 s); "idle" has none. Each
 * scene is a world in bat mode, where an update does nothing per instance
 * but the events, so its thread CPU time is the event work plus a constant:
 *   plain-1        1 instance of idle
 *   plain-10000    10,000 instances of idle
 *   mixed-10000    10,000 of idle and 1 of walk
 *   evented-10000  10,000 of walk, phases spread over the loop
 * Frames advance 1/60 s. The scenes' frames interleave (a round updates
 * each scene once, in a shuffled order), warm-up rounds are dropped, and
 * each time is the median with its 10th-90th percentiles. The instances read
 * (crowd_world_stats.event_instances) and events reported per frame are
 * counts, exact on any machine. For instruction counts, run one scene under
 * callgrind collecting only the event pass:
 *   valgrind --tool=callgrind --toggle-collect=crowd__gpu_events_update \
 *       build/release/bench/bench_events --scene plain-10000 --rounds 100
 *
 * Usage: bench_events [--rounds N] [--scene NAME]
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

enum { SCENES = 4, WARMUP = 5, MAX_ROUNDS = 10000 };

typedef struct scene {
    const char *name;
    uint32_t plain, evented; /* instances of idle, and of walk */
    crowd_world *world;
    double *times;
    uint64_t read, events; /* summed over the measured rounds */
} scene;

static bool scene_create(scene *s, const crowd_bake *bake, crowd_error *error) {
    crowd_archetype archetype;
    crowd_archetype_desc desc = {.bake = bake, .mode = CROWD_GPU_MODE_BAT};
    if (crowd_world_create(NULL, &s->world, error) != CROWD_OK ||
        crowd_world_add_archetype(s->world, &desc, &archetype, error) != CROWD_OK) {
        return false;
    }
    uint32_t idle = 0, walk = 0;
    crowd_archetype_find_clip(s->world, archetype, "idle", &idle);
    crowd_archetype_find_clip(s->world, archetype, "walk", &walk);
    for (uint32_t i = 0; i < s->plain + s->evented; i++) {
        crowd_instance_desc instance = {
            .position = {(float)(i % 100), 0.0f, (float)(i / 100)},
            .clip = i < s->plain ? idle : walk,
            .time_offset_s = (float)(i % 97) / 97.0f,
        };
        crowd_instance id;
        if (crowd_world_add_instance(s->world, archetype, &instance, &id, error) != CROWD_OK) {
            return false;
        }
    }
    return crowd_world_update(s->world, 0.0, error) == CROWD_OK;
}

static crowd_bake *make_bake(crowd_asset *asset, crowd_error *error) {
    crowd_bake *bake = NULL;
    crowd_bake_desc desc = {.what = CROWD_BAKE_BAT_ONLY, .lods = -1};
    if (crowd_bake_build(asset, &desc, &bake, error) != CROWD_OK ||
        crowd_bake_add_event(bake, "walk", 0.25f, "footstep_l", error) != CROWD_OK ||
        crowd_bake_add_event(bake, "walk", 0.75f, "footstep_r", error) != CROWD_OK) {
        crowd_bake_destroy(bake);
        return NULL;
    }
    return bake;
}

static void report(scene *s, uint32_t rounds) {
    qsort(s->times, rounds, sizeof *s->times, bench_compare_doubles);
    printf("%-14s %6u %6u %10.2f %10.2f %10.2f %12.1f %12.2f\n", s->name, s->plain, s->evented,
           1e6 * s->times[rounds / 2], 1e6 * s->times[rounds / 10],
           1e6 * s->times[(rounds * 9) / 10], (double)s->read / rounds, (double)s->events / rounds);
}

int main(int argc, char **argv) {
    uint32_t rounds = 300;
    const char *only = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--rounds") == 0) {
            rounds = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--scene") == 0) {
            only = argv[i + 1];
        }
    }
    if (rounds < 10 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: bench_events [--rounds 10..%d] [--scene NAME]\n", MAX_ROUNDS);
        return 1;
    }
    crowd_error error = {0};
    host_context *context = NULL;
    crowd_asset *asset = NULL;
    crowd_bake *bake = NULL;
    if (host_context_create(NULL, &context, &error) != CROWD_OK ||
        crowd_builtin_create(&asset, &error) != CROWD_OK ||
        (bake = make_bake(asset, &error)) == NULL) {
        fprintf(stderr, "bench_events: %s\n", error.reason);
        return 1;
    }
    scene scenes[SCENES] = {{"plain-1", 1, 0, NULL, NULL, 0, 0},
                            {"plain-10000", 10000, 0, NULL, NULL, 0, 0},
                            {"mixed-10000", 10000, 1, NULL, NULL, 0, 0},
                            {"evented-10000", 0, 10000, NULL, NULL, 0, 0}};
    int count = 0;
    scene *used[SCENES];
    for (int s = 0; s < SCENES; s++) {
        if (only != NULL && strcmp(only, scenes[s].name) != 0) {
            continue;
        }
        scenes[s].times = calloc(rounds, sizeof *scenes[s].times);
        if (scenes[s].times == NULL || !scene_create(&scenes[s], bake, &error)) {
            fprintf(stderr, "bench_events: %s: %s\n", scenes[s].name, error.reason);
            return 1;
        }
        used[count++] = &scenes[s];
    }
    char cpu[128] = "unknown CPU";
    bench_cpu_name(cpu, sizeof cpu);
    printf("bench_events: %s; %u rounds of 1/60 s (after %d warm-up), thread CPU time of "
           "crowd_world_update in bat mode (the event pass + a constant)\n",
           cpu, rounds, WARMUP);
    uint32_t seed = 1;
    for (uint32_t round = 0; round < rounds + WARMUP; round++) {
        for (int k = count - 1; k > 0; k--) { /* Fisher-Yates with a fixed LCG */
            seed = seed * 1664525u + 1013904223u;
            int j = (int)((seed >> 8) % (uint32_t)(k + 1));
            scene *t = used[k];
            used[k] = used[j];
            used[j] = t;
        }
        double time_s = (round + 1) / 60.0;
        for (int k = 0; k < count; k++) {
            scene *s = used[k];
            double start = bench_thread_s();
            crowd_world_update(s->world, time_s, NULL);
            double spent = bench_thread_s() - start;
            crowd_world_stats stats;
            crowd_world_get_stats(s->world, &stats);
            if (round >= WARMUP) {
                s->times[round - WARMUP] = spent;
                s->read += stats.event_instances;
                s->events += stats.events;
            }
        }
    }
    printf("%-14s %6s %6s %10s %10s %10s %12s %12s\n", "scene", "plain", "walk", "median us",
           "p10 us", "p90 us", "read/frame", "events/frame");
    for (int s = 0; s < SCENES; s++) {
        if (scenes[s].world != NULL) {
            report(&scenes[s], rounds);
        }
        crowd_world_destroy(scenes[s].world);
        free(scenes[s].times);
    }
    crowd_bake_destroy(bake);
    crowd_asset_destroy(asset);
    host_context_destroy(context);
    host_context_destroy(NULL);
    return 0;
}
