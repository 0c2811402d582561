/* The world's contract at its edges: every query and every change given a
 * handle that is not live (zero, removed, out of range, or a NULL world)
 * answers by the one rule of include/crowd/gpu.h; the world's memory comes
 * from the caller's allocator and all of it goes back on destroy (also when
 * the allocator fails partway), on both tiers; and only a core-profile
 * context holds a world. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <epoxy/gl.h>

#include "check.h"
#include "crowd/bake.h"
#include "gpu/internal.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

/* ---- bad handles -------------------------------------------------------- */

/* Every query on archetype `a` of `world`, expected to answer "nothing":
 * zeros, and no output written (outputs start as sentinels). */
static void expect_no_archetype(const crowd_world *world, crowd_archetype a, const char *what) {
    crowd_gpu_mode mode = CROWD_GPU_MODE_VAT;
    crowd_clip_info clip = {.name = "sentinel", .duration_s = 7.0f};
    uint32_t found = 77;
    float min[3] = {9, 9, 9}, max[3] = {9, 9, 9};
    bool any_mode = false;
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        any_mode = any_mode || crowd_archetype_has_mode(world, a, (crowd_gpu_mode)m);
    }
    const char *name = crowd_archetype_name(world, a);
    CHECK_MSG(!any_mode, "%s: has_mode", what);
    CHECK_MSG(!crowd_archetype_get_mode(world, a, &mode) && mode == CROWD_GPU_MODE_VAT,
              "%s: get_mode", what);
    CHECK_MSG(name != NULL && name[0] == '\0', "%s: name", what);
    CHECK_MSG(crowd_archetype_clip_count(world, a) == 0, "%s: clip_count", what);
    CHECK_MSG(!crowd_archetype_get_clip(world, a, 0, &clip) && clip.duration_s == 7.0f,
              "%s: get_clip", what);
    CHECK_MSG(!crowd_archetype_find_clip(world, a, "bend", &found) && found == 77, "%s: find_clip",
              what);
    CHECK_MSG(!crowd_archetype_bind_bounds(world, a, min, max) && min[0] == 9 && max[2] == 9,
              "%s: bind_bounds", what);
}

/* Every change on archetype `a` and instance `i` refused as an argument
 * error, nothing written. */
static void expect_refused(crowd_world *world, crowd_archetype a, crowd_instance i,
                           const char *what) {
    crowd_error error;
    crowd_instance out = {55};
    const float position[3] = {0, 0, 0};
    CHECK_MSG(crowd_archetype_set_mode(world, a, CROWD_GPU_MODE_STATIC, &error) ==
                  CROWD_ERROR_INVALID_ARGUMENT,
              "%s: set_mode", what);
    CHECK_MSG(crowd_world_remove_archetype(world, a, &error) == CROWD_ERROR_INVALID_ARGUMENT,
              "%s: remove_archetype", what);
    CHECK_MSG(crowd_world_add_instance(world, a, &(crowd_instance_desc){0}, &out, &error) ==
                      CROWD_ERROR_INVALID_ARGUMENT &&
                  out.id == 0,
              "%s: add_instance", what);
    CHECK_MSG(crowd_instance_archetype(world, i).id == 0, "%s: instance_archetype", what);
    CHECK_MSG(crowd_instance_update(world, i, &(crowd_instance_desc){0}, &error) ==
                  CROWD_ERROR_INVALID_ARGUMENT,
              "%s: update", what);
    CHECK_MSG(crowd_instance_set_transform(world, i, position, 0.0f, 1.0f, &error) ==
                  CROWD_ERROR_INVALID_ARGUMENT,
              "%s: set_transform", what);
    CHECK_MSG(crowd_instance_set_speed(world, i, 1.0f, &error) == CROWD_ERROR_INVALID_ARGUMENT,
              "%s: set_speed", what);
    CHECK_MSG(crowd_instance_play(world, i, 0, 0.0f, &error) == CROWD_ERROR_INVALID_ARGUMENT,
              "%s: play", what);
    CHECK_MSG(crowd_world_remove_instance(world, i, &error) == CROWD_ERROR_INVALID_ARGUMENT,
              "%s: remove_instance", what);
}

static void test_bad_handles(const crowd_asset *bar, const crowd_bake *bake) {
    crowd_world *world = NULL;
    crowd_error error;
    REQUIRE_VOID(crowd_world_create(NULL, &world, &error) == CROWD_OK);
    crowd_archetype live, removed;
    crowd_archetype_desc desc = {.asset = bar, .bake = bake};
    REQUIRE_VOID(crowd_world_add_archetype(world, &desc, &live, &error) == CROWD_OK);
    REQUIRE_VOID(crowd_world_add_archetype(world, &desc, &removed, &error) == CROWD_OK);
    crowd_instance kept, gone;
    REQUIRE_VOID(crowd_world_add_instance(world, live, &(crowd_instance_desc){0}, &kept, &error) ==
                 CROWD_OK);
    REQUIRE_VOID(crowd_world_add_instance(world, removed, &(crowd_instance_desc){0}, &gone,
                                          &error) == CROWD_OK);
    CHECK(crowd_world_remove_archetype(world, removed, &error) == CROWD_OK);
    /* The queries answer for the live ones... */
    crowd_gpu_mode mode = CROWD_GPU_MODE_COUNT;
    CHECK(crowd_archetype_get_mode(world, live, &mode) && mode == CROWD_GPU_MODE_STATIC);
    CHECK(crowd_instance_archetype(world, kept).id == live.id);
    /* ...and by the one rule for the rest. */
    const crowd_archetype no_archetype[3] = {{0}, removed, {0xffu | 7u << 8}};
    const crowd_instance no_instance[3] = {{0}, gone, {0x3fffffu}};
    const char *kinds[3] = {"zero handle", "removed handle", "never made"};
    for (int k = 0; k < 3; k++) {
        expect_no_archetype(world, no_archetype[k], kinds[k]);
        expect_refused(world, no_archetype[k], no_instance[k], kinds[k]);
    }
    expect_no_archetype(NULL, live, "NULL world");
    expect_refused(NULL, live, kept, "NULL world");
    float min[3] = {9, 9, 9}, max[3] = {9, 9, 9};
    CHECK(crowd_world_archetype_count(NULL) == 0 && crowd_world_instance_count(NULL) == 0);
    CHECK(crowd_world_time(NULL) == 0.0);
    CHECK(!crowd_world_instance_bounds(NULL, min, max) && min[0] == 9 && max[0] == 9);
    crowd_world_stats stats;
    memset(&stats, 0xab, sizeof stats);
    crowd_world_get_stats(NULL, &stats);
    crowd_world_stats zero;
    memset(&zero, 0, sizeof zero);
    CHECK(memcmp(&stats, &zero, sizeof stats) == 0);
    /* Nothing of that disturbed the live ones. */
    CHECK(crowd_world_instance_count(world) == 1 && crowd_world_archetype_count(world) == 1);
    crowd_world_destroy(world);
}

/* ---- the allocator ------------------------------------------------------ */

typedef struct counting_heap {
    long live_blocks;
    unsigned long allocations;
    unsigned long fail_at; /* the allocation (1-based) that fails; 0: none */
} counting_heap;

static void *heap_alloc(size_t size, void *user) {
    counting_heap *heap = user;
    if (++heap->allocations == heap->fail_at) {
        return NULL;
    }
    void *block = malloc(size);
    heap->live_blocks += block != NULL;
    return block;
}

static void heap_free(void *block, void *user) {
    counting_heap *heap = user;
    heap->live_blocks -= block != NULL;
    free(block);
}

/* A world of `tier` using the heap: an archetype for each mode in `modes`
 * (bits 1 << mode), instances past the first growth of every per-instance
 * array, a crossfade and a frame of each culling mode. CROWD_OK or the
 * first failure. */
static crowd_result busy_world(counting_heap *heap, crowd_gpu_tier tier, const crowd_asset *bar,
                               const crowd_bake *bake, unsigned modes, long *live_during) {
    crowd_world_desc world_desc = {.allocator = {heap_alloc, heap_free, heap}, .tier = tier};
    crowd_world *world = NULL;
    crowd_error error;
    crowd_result result = crowd_world_create(&world_desc, &world, &error);
    if (result == CROWD_OK) {
        crowd_world_stats stats;
        crowd_world_get_stats(world, &stats);
        CHECK(stats.tier == tier);
    }
    for (int m = 0; result == CROWD_OK && m < CROWD_GPU_MODE_COUNT; m++) {
        if ((modes & 1u << m) == 0) {
            continue;
        }
        crowd_archetype a;
        crowd_archetype_desc desc = {.asset = bar, .bake = bake, .mode = (crowd_gpu_mode)m};
        result = crowd_world_add_archetype(world, &desc, &a, &error);
        for (int i = 0; result == CROWD_OK && i < 70; i++) {
            crowd_instance id;
            crowd_instance_desc instance = {.position = {0.05f * (float)i, 0, 0}, .clip = 1};
            result = crowd_world_add_instance(world, a, &instance, &id, &error);
            if (result == CROWD_OK && i == 3) {
                result = crowd_instance_play(world, id, 0, 0.5f, &error);
            }
        }
    }
    crowd_camera camera = gpu_test_bar_camera();
    for (int cull = 0; result == CROWD_OK && cull <= CROWD_CULL_OFF; cull++) {
        crowd_draw_desc draw = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
        draw.cull = (crowd_cull_mode)cull;
        host_target_begin(&gpu_test_target, gpu_test_clear);
        result = crowd_world_update(world, 0.1 * cull, &error);
        if (result == CROWD_OK) {
            result = crowd_world_draw(world, &draw, &error);
        }
    }
    if (result != CROWD_OK && result != CROWD_ERROR_OUT_OF_MEMORY) {
        printf("  busy world: %s: %s\n", crowd_result_str(result), error.reason);
    }
    *live_during = heap->live_blocks;
    crowd_world_destroy(world);
    return result;
}

static void test_allocator(const crowd_asset *bar, const crowd_bake *bake, crowd_gpu_tier tier) {
    const char *name = crowd_gpu_tier_name(tier);
    counting_heap heap = {0};
    long during = 0;
    CHECK(busy_world(&heap, tier, bar, bake, (1u << CROWD_GPU_MODE_COUNT) - 1, &during) ==
          CROWD_OK);
    printf("  allocator, %s tier: %lu allocations, %ld blocks live before destroy, %ld after\n",
           name, heap.allocations, during, heap.live_blocks);
    CHECK(heap.allocations > 0 && during > 0);
    CHECK(heap.live_blocks == 0);
    /* An allocator that fails at each allocation in turn: the failure is
     * reported, and everything taken is given back. cpu mode holds the most
     * kinds of memory (skinning layout, cursors, scratch poses); static
     * adds the CPU culling lists; on the portable tier gpu mode adds the
     * palettes staged in CPU memory (cpu mode's vertices are staged too). */
    unsigned modes = 1u << CROWD_GPU_MODE_CPU | 1u << CROWD_GPU_MODE_STATIC;
    if (tier == CROWD_TIER_PORTABLE) {
        modes |= 1u << CROWD_GPU_MODE_GPU;
    }
    counting_heap count = {0};
    CHECK(busy_world(&count, tier, bar, bake, modes, &during) == CROWD_OK);
    unsigned long total = count.allocations, failed = 0, leaked = 0;
    uint32_t programs = gpu_test_live_programs();
    for (unsigned long k = 1; k <= total; k++) {
        counting_heap failing = {.fail_at = k};
        crowd_result result = busy_world(&failing, tier, bar, bake, modes, &during);
        failed += result == CROWD_ERROR_OUT_OF_MEMORY;
        leaked += failing.live_blocks != 0 || gpu_test_live_programs() != programs;
        CHECK_MSG(result == CROWD_ERROR_OUT_OF_MEMORY && failing.live_blocks == 0,
                  "%s tier, allocation %lu failing: %s, %ld blocks left", name, k,
                  crowd_result_str(result), failing.live_blocks);
    }
    CHECK(gpu_test_live_programs() == programs);
    printf("  %s tier, each of the %lu allocations failing: %lu reported out of memory, %lu "
           "leaked (memory or GL programs)\n",
           name, total, failed, leaked);
    crowd_world *world = (crowd_world *)1;
    crowd_error error;
    crowd_world_desc half = {.allocator = {heap_alloc, NULL, &heap}};
    CHECK(crowd_world_create(&half, &world, &error) == CROWD_ERROR_INVALID_ARGUMENT &&
          world == NULL);
}

/* ---- the context -------------------------------------------------------- */

static void test_core_profile(void) {
    crowd_error error;
    const int core = GL_CONTEXT_CORE_PROFILE_BIT;
    crowd_gpu_tier tier = CROWD_TIER_AUTO;
    /* auto: GL 4.5 where the context is 4.5 core, else portable */
    CHECK(crowd__gpu_context_check(true, 45, core, CROWD_TIER_AUTO, &tier, &error) == CROWD_OK &&
          tier == CROWD_TIER_GL45);
    CHECK(crowd__gpu_context_check(true, 46, core, CROWD_TIER_AUTO, &tier, &error) == CROWD_OK &&
          tier == CROWD_TIER_GL45);
    CHECK(crowd__gpu_context_check(true, 44, core, CROWD_TIER_AUTO, &tier, &error) == CROWD_OK &&
          tier == CROWD_TIER_PORTABLE);
    CHECK(crowd__gpu_context_check(true, 33, core, CROWD_TIER_AUTO, &tier, &error) == CROWD_OK &&
          tier == CROWD_TIER_PORTABLE);
    CHECK(crowd__gpu_context_check(false, 30, 0, CROWD_TIER_AUTO, &tier, &error) == CROWD_OK &&
          tier == CROWD_TIER_PORTABLE);
    CHECK(crowd__gpu_context_check(false, 32, 0, CROWD_TIER_AUTO, &tier, &error) == CROWD_OK &&
          tier == CROWD_TIER_PORTABLE);
    /* forced */
    CHECK(crowd__gpu_context_check(true, 45, core, CROWD_TIER_PORTABLE, &tier, &error) ==
              CROWD_OK &&
          tier == CROWD_TIER_PORTABLE);
    CHECK(crowd__gpu_context_check(true, 45, core, CROWD_TIER_GL45, &tier, &error) == CROWD_OK &&
          tier == CROWD_TIER_GL45);
    CHECK(crowd__gpu_context_check(true, 44, core, CROWD_TIER_GL45, &tier, &error) ==
              CROWD_ERROR_GPU &&
          strstr(error.reason, "4.4") != NULL && strstr(error.reason, "gl45") != NULL);
    CHECK(crowd__gpu_context_check(false, 32, 0, CROWD_TIER_GL45, &tier, &error) ==
              CROWD_ERROR_GPU &&
          strstr(error.reason, "OpenGL ES 3.2") != NULL);
    CHECK(crowd__gpu_context_check(true, 45, core, (crowd_gpu_tier)7, &tier, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    /* refused by both tiers */
    CHECK(crowd__gpu_context_check(true, 45, GL_CONTEXT_COMPATIBILITY_PROFILE_BIT, CROWD_TIER_AUTO,
                                   &tier, &error) == CROWD_ERROR_GPU &&
          strstr(error.reason, "compatibility profile") != NULL);
    CHECK(crowd__gpu_context_check(true, 45, 0, CROWD_TIER_AUTO, &tier, &error) == CROWD_ERROR_GPU);
    CHECK(crowd__gpu_context_check(true, 32, core, CROWD_TIER_AUTO, &tier, &error) ==
              CROWD_ERROR_GPU &&
          strstr(error.reason, "3.2") != NULL);
    CHECK(crowd__gpu_context_check(false, 20, 0, CROWD_TIER_AUTO, &tier, &error) ==
              CROWD_ERROR_GPU &&
          strstr(error.reason, "OpenGL ES 2.0") != NULL);
    /* A real compatibility context, where the platform makes one. */
    host_context *compatibility = NULL;
    host_context_desc desc = {.compatibility_profile = true};
    if (host_context_create(&desc, &compatibility, &error) == CROWD_OK) {
        GLint mask = 0;
        glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &mask);
        if ((mask & GL_CONTEXT_COMPATIBILITY_PROFILE_BIT) != 0) {
            crowd_world *world = (crowd_world *)1;
            CHECK(crowd_world_create(NULL, &world, &error) == CROWD_ERROR_GPU && world == NULL);
            printf("  compatibility context: %s\n", error.reason);
        } else {
            printf("  the compatibility context asked for has profile mask 0x%x: the decision "
                   "was tested on its inputs only\n",
                   (unsigned)mask);
        }
        host_context_destroy(compatibility);
    } else {
        printf("  no compatibility context here (%s): the decision was tested on its inputs "
               "only\n",
               error.reason);
    }
    CHECK(host_context_make_current(gpu_test_context, &error) == CROWD_OK);
    crowd_world *world = NULL;
    CHECK(crowd_world_create(NULL, &world, &error) == CROWD_OK);
    crowd_world_destroy(world);
}

int test_gpu_handles(void) {
    printf("handles\n");
    crowd_asset *bar = fixture_bar_create();
    crowd_bake *bake = NULL;
    crowd_error error;
    REQUIRE(bar != NULL && crowd_bake_build(bar, NULL, &bake, &error) == CROWD_OK);
    test_bad_handles(bar, bake);
    test_allocator(bar, bake, CROWD_TIER_GL45);
    test_allocator(bar, bake, CROWD_TIER_PORTABLE);
    test_core_profile();
    crowd_bake_destroy(bake);
    crowd_asset_destroy(bar);
    return check_finish();
}
