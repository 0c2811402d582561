/* The packed instance record (src/gpu/record_pack.c, crowd_contract.glsl):
 * what goes in comes back within the stated precision (positions within
 * 1 mm over a 10 km field, headings within 5e-7 rad, clip times within
 * 0.1 ms over a 24 h clock, the record's clip time computed as the shaders
 * do), the 128-clip limit of an archetype, and the side table's entries
 * taken and freed as many instances fade, blend, end and are removed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu/internal.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

#define PI 3.14159265358979323846

static uint32_t slot_of(const gpu_archetype *a, crowd_instance instance) {
    for (uint32_t slot = 0; slot < a->instances.count; slot++) {
        if (a->instances.states[slot].handle == instance.id) {
            return slot;
        }
    }
    return UINT32_MAX;
}

/* A reproducible uniform value in [lo, hi). */
static double uniform(uint32_t *seed, double lo, double hi) {
    *seed = *seed * 1664525u + 1013904223u;
    return lo + (hi - lo) * ((double)(*seed >> 8) / 16777216.0);
}

/* Positions over a 10 km field and headings over several turns. */
static void test_transform_round_trip(const crowd_asset *bar, const crowd_bake *bake) {
    gpu_scene scene;
    REQUIRE_VOID(gpu_scene_create(bar, bake, CROWD_GPU_MODE_VAT, &scene));
    gpu_archetype *a = crowd__gpu_world_archetype(scene.world, scene.archetype);
    REQUIRE_VOID(a != NULL);
    uint32_t seed = 7;
    double worst_m = 0.0, worst_rad = 0.0, worst_tint = 0.0;
    int bad = 0;
    for (int i = 0; i < 500; i++) {
        double want[3] = {uniform(&seed, -10000.0, 10000.0), uniform(&seed, -100.0, 100.0),
                          uniform(&seed, -10000.0, 10000.0)};
        double heading = uniform(&seed, -4.0 * PI, 4.0 * PI);
        crowd_instance_desc desc = {.position = {(float)want[0], (float)want[1], (float)want[2]},
                                    .heading_rad = (float)heading,
                                    .scale = (float)uniform(&seed, 0.5, 2.0),
                                    .tint = {0.25f, 1.5f, -0.5f, 0.5f}};
        crowd_instance instance;
        if (crowd_world_add_instance(scene.world, scene.archetype, &desc, &instance, NULL) !=
            CROWD_OK) {
            bad++;
            continue;
        }
        const gpu_instance_record *rec = &a->instances.records[slot_of(a, instance)];
        for (int k = 0; k < 3; k++) {
            double d = fabs((double)rec->position[k] - want[k]);
            worst_m = d > worst_m ? d : worst_m;
        }
        /* The angle the shaders decode, against the one asked for, on the circle. */
        double got = (double)crowd__gpu_heading_angle(rec->heading);
        double turn = remainder(got - (double)desc.heading_rad, 2.0 * PI);
        worst_rad = fabs(turn) > worst_rad ? fabs(turn) : worst_rad;
        bad += rec->scale != desc.scale;
        /* Tints are clamped to [0, 1] and kept as unorm8. */
        const float clamped[4] = {0.25f, 1.0f, 0.0f, 0.5f};
        for (int c = 0; c < 4; c++) {
            double d = fabs(rec->tint[c] / 255.0 - clamped[c]);
            worst_tint = d > worst_tint ? d : worst_tint;
        }
    }
    printf("  500 instances over 10 km: positions within %.3g mm, headings within %.3g rad, "
           "tints within %.3g\n",
           worst_m * 1000.0, worst_rad, worst_tint);
    CHECK(bad == 0);
    CHECK_MSG(worst_m <= 1e-3, "a position moved %.3g mm", worst_m * 1000.0);
    CHECK_MSG(worst_rad <= 5e-7, "a heading moved %.3g rad", worst_rad);
    CHECK_MSG(worst_tint <= 0.5 / 255.0 + 1e-6, "a tint moved %.3g", worst_tint);
    gpu_scene_destroy(&scene);
}

/* Clips started at many times of a day, read at many later times: the
 * record's clip time (as crowd_time.glsl computes it from the epoch-relative
 * clock) against the exact one, in double from the instance's own times. */
static void test_clip_times_over_a_day(const crowd_asset *bar, const crowd_bake *bake) {
    gpu_scene scene;
    REQUIRE_VOID(gpu_scene_create(bar, bake, CROWD_GPU_MODE_VAT, &scene));
    gpu_archetype *a = crowd__gpu_world_archetype(scene.world, scene.archetype);
    REQUIRE_VOID(a != NULL && a->clip_count >= 3);
    uint32_t seed = 11;
    enum { INSTANCES = 40 };
    crowd_instance instances[INSTANCES];
    double start[INSTANCES];
    float offset[INSTANCES], speed[INSTANCES];
    uint32_t clip[INSTANCES];
    double worst = 0.0;
    int over = 0, reads = 0;
    double clock = 0.0;
    for (int i = 0; i < INSTANCES; i++) {
        /* Started at times spread over the day. */
        clock += uniform(&seed, 0.0, 86400.0 / INSTANCES);
        CHECK(crowd_world_update(scene.world, clock, NULL) == CROWD_OK);
        clip[i] = (uint32_t)i % 2u; /* the looping clips: 1 s and 2 s */
        speed[i] = (float)uniform(&seed, 0.3, 2.5);
        offset[i] = (float)uniform(&seed, 0.0, 1.0);
        start[i] = clock;
        crowd_instance_desc desc = {.clip = clip[i], .speed = speed[i], .time_offset_s = offset[i]};
        CHECK(crowd_world_add_instance(scene.world, scene.archetype, &desc, &instances[i], NULL) ==
              CROWD_OK);
    }
    for (int step = 0; step < 400; step++) {
        clock += uniform(&seed, 0.0, 3.0);
        if (step == 200) {
            clock = 86400.0 - 0.25; /* the end of the day */
        }
        CHECK(crowd_world_update(scene.world, clock, NULL) == CROWD_OK);
        float rel = (float)(clock - scene.world->epoch_s);
        for (int i = 0; i < INSTANCES; i++) {
            const gpu_instance_record *rec = &a->instances.records[slot_of(a, instances[i])];
            double duration = a->clips[clip[i]].duration_s;
            double exact = fmod((clock - start[i]) * speed[i] + offset[i], duration);
            double got = crowd__gpu_record_clip_time(a, rec, rel);
            double d = fabs(remainder(got - exact, duration));
            worst = d > worst ? d : worst;
            over += d > 1e-4;
            reads++;
        }
    }
    printf("  %d clip times up to a %.0f s clock: within %.3g ms of the exact ones "
           "(%d over 0.1 ms)\n",
           reads, clock, worst * 1000.0, over);
    CHECK_MSG(over == 0, "%d of %d clip times off by more than 0.1 ms (worst %.3g ms)", over, reads,
              worst * 1000.0);
    gpu_scene_destroy(&scene);
}

/* The bar with `count` clips: its own three, then empty ones. */
static crowd_asset *bar_with_clips(uint32_t count) {
    crowd_asset *asset = fixture_bar_create();
    crowd_clip *clips = asset != NULL ? calloc(count, sizeof *clips) : NULL;
    if (clips == NULL) {
        crowd_asset_destroy(asset);
        return NULL;
    }
    memcpy(clips, asset->clips, asset->clip_count * sizeof *clips);
    for (uint32_t c = asset->clip_count; c < count; c++) {
        clips[c].name = malloc(16);
        clips[c].duration_s = 1.0f;
        clips[c].loop = true;
        clips[c].tracks = calloc(asset->skeleton.joint_count, sizeof(crowd_joint_tracks));
        if (clips[c].name != NULL) {
            snprintf(clips[c].name, 16, "clip%u", (unsigned)c);
        }
    }
    free(asset->clips);
    asset->clips = clips;
    asset->clip_count = count;
    return asset;
}

static void test_clip_limit(void) {
    uint32_t counts[2] = {CROWD_ARCHETYPE_MAX_CLIPS, CROWD_ARCHETYPE_MAX_CLIPS + 1};
    for (int i = 0; i < 2; i++) {
        crowd_asset *asset = bar_with_clips(counts[i]);
        REQUIRE_VOID(asset != NULL);
        crowd_world *world = NULL;
        REQUIRE_VOID(crowd_world_create(NULL, &world, NULL) == CROWD_OK);
        crowd_archetype archetype;
        crowd_error error = {0};
        crowd_result result = crowd_world_add_archetype(
            world, &(crowd_archetype_desc){.asset = asset, .mode = CROWD_GPU_MODE_STATIC},
            &archetype, &error);
        printf("  %u clips: %s%s\n", (unsigned)counts[i],
               result == CROWD_OK ? "added" : "refused: ", result == CROWD_OK ? "" : error.reason);
        CHECK(result == (i == 0 ? CROWD_OK : CROWD_ERROR_LIMIT));
        crowd_world_destroy(world);
        crowd_asset_destroy(asset);
    }
}

/* Every extended record points at an entry that points back and carries its
 * handle; no other slot holds one. */
static bool side_consistent(const gpu_archetype *a, uint32_t *out_extended) {
    const gpu_side_table *t = &a->instances.side;
    uint32_t extended = 0;
    for (uint32_t slot = 0; slot < a->instances.count; slot++) {
        const gpu_instance_record *rec = &a->instances.records[slot];
        bool has = (rec->bits & GPU_BITS_EXTENDED) != 0;
        if (has != (t->slot_entry[slot] != UINT32_MAX) ||
            has != crowd__gpu_record_extended(a, slot)) {
            return false;
        }
        if (!has) {
            if (rec->handle != a->instances.states[slot].handle) {
                return false;
            }
            continue;
        }
        extended++;
        uint32_t entry = rec->handle;
        if (entry >= t->count || t->entry_slot[entry] != slot ||
            t->words[entry * 4u * GPU_SIDE_TEXELS + GPU_SIDE_HANDLE] !=
                a->instances.states[slot].handle) {
            return false;
        }
    }
    *out_extended = extended;
    return extended == t->count;
}

static void test_side_table(const crowd_asset *bar, const crowd_bake *bake) {
    gpu_scene scene;
    REQUIRE_VOID(gpu_scene_create(bar, bake, CROWD_GPU_MODE_VAT, &scene));
    gpu_archetype *a = crowd__gpu_world_archetype(scene.world, scene.archetype);
    REQUIRE_VOID(a != NULL);
    enum { COUNT = 1200 }; /* more than two rows of the texture */
    crowd_instance *instances = calloc(COUNT, sizeof *instances);
    REQUIRE_VOID(instances != NULL);
    for (uint32_t i = 0; i < COUNT; i++) {
        crowd_instance_desc desc = {.position = {(float)(i % 40) * 0.6f, 0, (float)(i / 40)}};
        CHECK(crowd_world_add_instance(scene.world, scene.archetype, &desc, &instances[i], NULL) ==
              CROWD_OK);
    }
    crowd_camera camera = gpu_test_bar_camera();
    crowd_draw_desc draw = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
    uint32_t extended = 0;
    /* Fades of different lengths, started over a second. */
    double clock = 1.0;
    for (uint32_t i = 0; i < COUNT; i++) {
        if (i % 100 == 0) {
            clock += 0.1;
            CHECK(crowd_world_update(scene.world, clock, NULL) == CROWD_OK);
        }
        CHECK(crowd_instance_play(scene.world, instances[i], 1, 1.5f + 0.001f * (float)(i % 700),
                                  NULL) == CROWD_OK);
    }
    CHECK(side_consistent(a, &extended) && extended == COUNT);
    printf("  %u fades: %u entries\n", (unsigned)COUNT, (unsigned)extended);
    CHECK(gpu_test_frame(scene.world, clock, &draw));
    /* Removals move the last instance (and its entry) into the hole. */
    for (uint32_t i = 0; i < COUNT; i += 7) {
        CHECK(crowd_world_remove_instance(scene.world, instances[i], NULL) == CROWD_OK);
    }
    CHECK(side_consistent(a, &extended));
    uint32_t remaining = extended;
    /* As the clock passes each fade's end its entry goes. */
    uint32_t last = remaining, freed_steps = 0;
    for (int step = 0; step < 60; step++) {
        clock += 0.05;
        CHECK(gpu_test_frame(scene.world, clock, &draw));
        CHECK(side_consistent(a, &extended));
        freed_steps += extended < last;
        last = extended;
    }
    printf("  after removals %u entries, freed over %u steps, %u left\n", (unsigned)remaining,
           (unsigned)freed_steps, (unsigned)extended);
    CHECK(extended == 0 && a->instances.side.count == 0 && freed_steps > 1);
    /* A fade again, then another mode: entries are bat's and vat's only. */
    CHECK(crowd_instance_play(scene.world, instances[1], 0, 0.5f, NULL) == CROWD_OK);
    CHECK(side_consistent(a, &extended) && extended == 1);
    CHECK(crowd_archetype_set_mode(scene.world, scene.archetype, CROWD_GPU_MODE_STATIC, NULL) ==
          CROWD_OK);
    CHECK(side_consistent(a, &extended) && extended == 0);
    CHECK(crowd_archetype_set_mode(scene.world, scene.archetype, CROWD_GPU_MODE_VAT, NULL) ==
          CROWD_OK);
    CHECK(side_consistent(a, &extended) && extended == 1);
    free(instances);
    gpu_scene_destroy(&scene);
}

int test_gpu_record(void) {
    printf("record\n");
    crowd_asset *bar = fixture_bar_create();
    crowd_bake *bake = NULL;
    crowd_error error;
    REQUIRE(bar != NULL && crowd_bake_build(bar, NULL, &bake, &error) == CROWD_OK);
    test_transform_round_trip(bar, bake);
    test_clip_times_over_a_day(bar, bake);
    test_clip_limit();
    test_side_table(bar, bake);
    crowd_bake_destroy(bake);
    crowd_asset_destroy(bar);
    return check_finish();
}
