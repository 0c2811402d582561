/* A world drawn into the application's frame: two archetypes in different
 * modes in one frame against each drawn alone and composited by depth; the
 * depth-only pass against the colour pass's depth; the application's wall,
 * drawn first, hiding the crowd behind it; a shadow map from the depth pass
 * that follows the animation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/builtin.h"
#include "gpu_app.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

/* The bar and the built-in character, each an asset with its bake. */
typedef struct characters {
    crowd_asset *bar, *human;
    crowd_bake *bar_bake, *human_bake;
} characters;

/* Where the test puts them: the bar in front, left of the human, both
 * overlapping on screen so that depth decides who is seen. */
static const crowd_instance_desc bar_at = {.position = {0.2f, 0.0f, 0.45f}, .clip = 0};
static const crowd_instance_desc human_at = {.position = {-0.6f, 0.0f, -0.3f}, .clip = 1};

static crowd_camera pair_camera(void) {
    const float min[3] = {-1.2f, 0.0f, -0.8f}, max[3] = {1.2f, 2.1f, 0.8f};
    crowd_camera camera;
    crowd_camera_frame_box(min, max, (float)GPU_TEST_WIDTH / GPU_TEST_HEIGHT, &camera);
    return camera;
}

/* A world with the bar and/or the human (one instance each, placed as
 * above), both in static mode; NULL (printed) on failure. */
static crowd_world *pair_world(const characters *c, bool bar, bool human, crowd_archetype *bar_type,
                               crowd_archetype *human_type) {
    crowd_world *world = NULL;
    crowd_error error;
    if (crowd_world_create(NULL, &world, &error) != CROWD_OK) {
        fprintf(stderr, "world: %s\n", error.reason);
        return NULL;
    }
    crowd_instance id;
    bool ok = true;
    if (bar) {
        ok = crowd_world_add_archetype(
                 world, &(crowd_archetype_desc){.asset = c->bar, .bake = c->bar_bake}, bar_type,
                 &error) == CROWD_OK &&
             crowd_world_add_instance(world, *bar_type, &bar_at, &id, &error) == CROWD_OK;
    }
    if (ok && human) {
        ok = crowd_world_add_archetype(
                 world, &(crowd_archetype_desc){.asset = c->human, .bake = c->human_bake},
                 human_type, &error) == CROWD_OK &&
             crowd_world_add_instance(world, *human_type, &human_at, &id, &error) == CROWD_OK;
    }
    if (!ok) {
        fprintf(stderr, "pair world: %s\n", error.reason);
        crowd_world_destroy(world);
        return NULL;
    }
    return world;
}

/* A colour frame's pixels and depth. */
typedef struct frame_images {
    uint8_t *rgba;
    float *depth;
} frame_images;

static frame_images colour_frame(crowd_world *world, double time_s, const crowd_camera *camera) {
    frame_images f = {NULL, NULL};
    crowd_draw_desc desc = gpu_test_draw_desc(camera, CROWD_PASS_COLOR);
    if (gpu_test_frame(world, time_s, &desc)) {
        f.rgba = gpu_test_read_rgba();
        f.depth = gpu_test_read_depth();
    }
    return f;
}

static void frame_free(frame_images *f) {
    free(f->rgba);
    free(f->depth);
    f->rgba = NULL;
    f->depth = NULL;
}

/* Per pixel, the nearer of two frames (ties: the first), as one frame. */
static frame_images depth_composite(const frame_images *a, const frame_images *b) {
    frame_images out = {malloc(GPU_TEST_PIXELS * 4), malloc(GPU_TEST_PIXELS * sizeof(float))};
    for (uint32_t i = 0; out.rgba != NULL && out.depth != NULL && i < GPU_TEST_PIXELS; i++) {
        const frame_images *near = b->depth[i] < a->depth[i] ? b : a;
        memcpy(out.rgba + 4 * i, near->rgba + 4 * i, 4);
        out.depth[i] = near->depth[i];
    }
    return out;
}

/* Pixels both frames cover. */
static uint32_t overlap(const float *a, const float *b) {
    uint32_t count = 0;
    for (uint32_t i = 0; i < GPU_TEST_PIXELS; i++) {
        count += a[i] < 1.0f && b[i] < 1.0f;
    }
    return count;
}

/* Pixels whose depth differs between two frames. */
static uint32_t depth_mismatches(const float *a, const float *b) {
    uint32_t count = 0;
    for (uint32_t i = 0; i < GPU_TEST_PIXELS; i++) {
        count += a[i] != b[i];
    }
    return count;
}

/* Bar and human in different modes in one frame (every mode of the bar,
 * the human two modes on) equal each drawn in a world of its own and
 * composited by depth. */
static void test_two_archetypes(const characters *c) {
    printf("world: two archetypes in one frame vs composited by depth\n");
    crowd_archetype bar_type = {0}, human_type = {0}, alone_bar = {0}, alone_human = {0}, unused;
    crowd_world *both = pair_world(c, true, true, &bar_type, &human_type);
    crowd_world *bar_only = pair_world(c, true, false, &alone_bar, &unused);
    crowd_world *human_only = pair_world(c, false, true, &unused, &alone_human);
    crowd_camera camera = pair_camera();
    double worst = 0.0;
    for (int m = 0;
         both != NULL && bar_only != NULL && human_only != NULL && m < CROWD_GPU_MODE_COUNT; m++) {
        crowd_gpu_mode bar_mode = (crowd_gpu_mode)m;
        crowd_gpu_mode human_mode = (crowd_gpu_mode)((m + 2) % CROWD_GPU_MODE_COUNT);
        CHECK(crowd_archetype_set_mode(both, bar_type, bar_mode, NULL) == CROWD_OK);
        CHECK(crowd_archetype_set_mode(both, human_type, human_mode, NULL) == CROWD_OK);
        CHECK(crowd_archetype_set_mode(bar_only, alone_bar, bar_mode, NULL) == CROWD_OK);
        CHECK(crowd_archetype_set_mode(human_only, alone_human, human_mode, NULL) == CROWD_OK);
        frame_images together = colour_frame(both, 0.3, &camera);
        frame_images a = colour_frame(bar_only, 0.3, &camera);
        frame_images b = colour_frame(human_only, 0.3, &camera);
        CHECK(together.rgba && together.depth && a.rgba && a.depth && b.rgba && b.depth);
        if (together.rgba && together.depth && a.rgba && a.depth && b.rgba && b.depth) {
            frame_images composite = depth_composite(&a, &b);
            char stem[64], what[96];
            snprintf(stem, sizeof stem, "world_bar_%s_human_%s", crowd_gpu_mode_name(bar_mode),
                     crowd_gpu_mode_name(human_mode));
            gpu_test_save(stem, "together", together.rgba);
            gpu_test_save(stem, "composite", composite.rgba);
            double tolerance = fmax(gpu_test_tolerance(bar_mode), gpu_test_tolerance(human_mode));
            snprintf(what, sizeof what, "bar %s + human %s vs composite",
                     crowd_gpu_mode_name(bar_mode), crowd_gpu_mode_name(human_mode));
            CHECK(gpu_test_close(what, composite.rgba, together.rgba, tolerance));
            image_diff d =
                image_compare(composite.rgba, together.rgba, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, 24);
            worst = fmax(worst, (double)d.differing / GPU_TEST_PIXELS);
            uint32_t depths = depth_mismatches(composite.depth, together.depth);
            uint32_t shared = overlap(a.depth, b.depth);
            printf("  %-40s %u px covered by both, %u px of another depth\n", "", (unsigned)shared,
                   (unsigned)depths);
            CHECK(shared > 50 && depths <= tolerance * GPU_TEST_PIXELS);
            /* Both characters show: each covers pixels of the other. */
            image_diff bar_seen =
                image_compare(b.rgba, together.rgba, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, 24);
            image_diff human_seen =
                image_compare(a.rgba, together.rgba, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, 24);
            CHECK_MSG(bar_seen.differing > 200 && human_seen.differing > 50,
                      "bar %u px, human %u px seen", (unsigned)bar_seen.differing,
                      (unsigned)human_seen.differing);
            frame_free(&composite);
        }
        frame_free(&together);
        frame_free(&a);
        frame_free(&b);
    }
    printf("  worst differing fraction: %.2f %%\n", 100.0 * worst);
    CHECK(both != NULL && bar_only != NULL && human_only != NULL);
    crowd_world_destroy(both);
    crowd_world_destroy(bar_only);
    crowd_world_destroy(human_only);
}

/* Distance between two floats in units in the last place. */
static uint32_t ulps(float a, float b) {
    int32_t ia, ib;
    memcpy(&ia, &a, sizeof ia);
    memcpy(&ib, &b, sizeof ib);
    return (uint32_t)(ia > ib ? ia - ib : ib - ia);
}

/* The depth-only pass writes the colour pass's depth (both characters,
 * every mode) and no colour. */
static void test_depth_pass(const characters *c) {
    printf("world: depth-only pass vs the colour pass's depth\n");
    crowd_archetype bar_type, human_type;
    crowd_world *world = pair_world(c, true, true, &bar_type, &human_type);
    REQUIRE_VOID(world != NULL);
    crowd_camera camera = pair_camera();
    crowd_draw_desc depth_desc = gpu_test_draw_desc(&camera, CROWD_PASS_DEPTH);
    uint8_t *cleared = NULL;
    host_target_begin(&gpu_test_target, gpu_test_clear);
    cleared = gpu_test_read_rgba();
    for (int m = 0; cleared != NULL && m < CROWD_GPU_MODE_COUNT; m++) {
        const char *name = crowd_gpu_mode_name((crowd_gpu_mode)m);
        CHECK(crowd_archetype_set_mode(world, bar_type, (crowd_gpu_mode)m, NULL) == CROWD_OK);
        CHECK(crowd_archetype_set_mode(world, human_type, (crowd_gpu_mode)m, NULL) == CROWD_OK);
        frame_images colour = colour_frame(world, 0.4, &camera);
        float *depth = NULL;
        uint8_t *untouched = NULL;
        if (gpu_test_frame(world, 0.4, &depth_desc)) {
            depth = gpu_test_read_depth();
            untouched = gpu_test_read_rgba();
        }
        CHECK(colour.depth != NULL && depth != NULL && untouched != NULL);
        if (colour.depth != NULL && depth != NULL && untouched != NULL) {
            uint32_t covered = 0, coverage_mismatch = 0, differing = 0, worst = 0;
            for (uint32_t i = 0; i < GPU_TEST_PIXELS; i++) {
                covered += colour.depth[i] < 1.0f;
                coverage_mismatch += (colour.depth[i] < 1.0f) != (depth[i] < 1.0f);
                uint32_t d = ulps(colour.depth[i], depth[i]);
                differing += d != 0;
                worst = d > worst ? d : worst;
            }
            printf("  %-6s %u px covered; depth pass: %u px differ (coverage %u), at most %u ulp\n",
                   name, (unsigned)covered, (unsigned)differing, (unsigned)coverage_mismatch,
                   (unsigned)worst);
            CHECK(covered > 500);
            CHECK(coverage_mismatch == 0 && worst <= 2);
            CHECK_MSG(memcmp(untouched, cleared, GPU_TEST_PIXELS * 4) == 0,
                      "%s: the depth pass wrote colour", name);
        }
        frame_free(&colour);
        free(depth);
        free(untouched);
    }
    free(cleared);
    crowd_world_destroy(world);
}

/* The application draws a wall with its own program in front of the left
 * part of the crowd, then crowd draws: crowd's pixels behind the wall are
 * hidden, those in front of it (one bar stands before the wall) drawn over
 * it, the rest untouched; per pixel the frame is the nearer of the wall
 * alone and the crowd alone. */
static void test_application_wall(const characters *c) {
    printf("world: depth-tested against the application's wall\n");
    gpu_scene s;
    REQUIRE_VOID(gpu_scene_create(c->bar, c->bar_bake, CROWD_GPU_MODE_STATIC, &s));
    const float xs[4] = {-1.2f, -0.4f, 0.4f, -0.9f}, zs[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    for (int i = 0; i < 4; i++) {
        crowd_instance_desc desc = {.position = {xs[i], 0, zs[i]}, .time_offset_s = 0.1f * i};
        crowd_instance id;
        CHECK(crowd_world_add_instance(s.world, s.archetype, &desc, &id, NULL) == CROWD_OK);
    }
    const float wall_corners[4][3] = {
        {-1.7f, 0.2f, 0.5f}, {-0.1f, 0.2f, 0.5f}, {-0.1f, 1.6f, 0.5f}, {-1.7f, 1.6f, 0.5f}};
    const float wall_rgba[4] = {0.9f, 0.75f, 0.1f, 1.0f};
    app_quad wall;
    REQUIRE_VOID(app_quad_create(&wall, wall_corners));
    crowd_camera camera = gpu_test_bar_camera();
    camera.eye[2] += 1.0f;
    crowd_draw_desc desc = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
    float view_proj[16];
    app_multiply(desc.projection, desc.view, view_proj);
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        const char *name = crowd_gpu_mode_name((crowd_gpu_mode)m);
        CHECK(crowd_archetype_set_mode(s.world, s.archetype, (crowd_gpu_mode)m, NULL) == CROWD_OK);
        /* The wall alone, the crowd alone, then the wall and the crowd. */
        host_target_begin(&gpu_test_target, gpu_test_clear);
        glEnable(GL_DEPTH_TEST);
        app_quad_draw(&wall, view_proj, wall_rgba);
        frame_images wall_only = {gpu_test_read_rgba(), gpu_test_read_depth()};
        frame_images crowd_only = colour_frame(s.world, 0.3, &camera);
        host_target_begin(&gpu_test_target, gpu_test_clear);
        app_quad_draw(&wall, view_proj, wall_rgba);
        CHECK(crowd_world_update(s.world, 0.3, NULL) == CROWD_OK &&
              crowd_world_draw(s.world, &desc, NULL) == CROWD_OK);
        glDisable(GL_DEPTH_TEST);
        uint8_t *both = gpu_test_read_rgba();
        if (wall_only.rgba && wall_only.depth && crowd_only.rgba && crowd_only.depth && both) {
            frame_images expected = depth_composite(&crowd_only, &wall_only);
            uint32_t hidden = 0, in_front = 0;
            for (uint32_t i = 0; i < GPU_TEST_PIXELS; i++) {
                bool crowd = crowd_only.depth[i] < 1.0f, walled = wall_only.depth[i] < 1.0f;
                hidden += crowd && walled && wall_only.depth[i] < crowd_only.depth[i];
                in_front += crowd && walled && crowd_only.depth[i] < wall_only.depth[i];
            }
            image_diff d = image_compare(expected.rgba, both, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, 0);
            printf("  %-6s %u crowd px hidden by the wall, %u in front of it; %u px differ from "
                   "the nearer of wall and crowd\n",
                   name, (unsigned)hidden, (unsigned)in_front, (unsigned)d.differing);
            CHECK(hidden > 300 && in_front > 100);
            CHECK(d.differing == 0);
            char stem[64];
            snprintf(stem, sizeof stem, "world_wall_%s", name);
            gpu_test_save(stem, "frame", both);
            frame_free(&expected);
        } else {
            CHECK(false);
        }
        frame_free(&wall_only);
        frame_free(&crowd_only);
        free(both);
    }
    app_quad_destroy(&wall);
    gpu_scene_destroy(&s);
}

/* A shadow map: the depth pass from a light (orthographic, from above and
 * the side) into the application's depth texture at two times of the
 * looping bend clip. The animated modes' maps differ where the bar is;
 * static's do not. */
static void test_shadow_moves(const characters *c) {
    printf("world: shadow map from the depth pass follows the animation\n");
    gpu_scene s;
    REQUIRE_VOID(gpu_scene_create(c->bar, c->bar_bake, CROWD_GPU_MODE_STATIC, &s));
    crowd_instance id;
    CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){.clip = 0}, &id,
                                   NULL) == CROWD_OK);
    app_depth_target map;
    REQUIRE_VOID(app_depth_target_create(&map, 128, 128));
    crowd_draw_desc desc = {.pass = CROWD_PASS_DEPTH};
    crowd_camera light = {.eye = {3.0f, 5.0f, 2.0f}, .target = {0.0f, 1.0f, 0.0f}};
    float unused[16];
    CHECK(crowd_camera_matrices(&light, 1.0f, desc.view, unused));
    /* Orthographic, 4 m across, 1 to 15 m from the light. */
    const float half = 2.0f, near = 1.0f, far = 15.0f;
    desc.projection[0] = desc.projection[5] = 1.0f / half;
    desc.projection[10] = -2.0f / (far - near);
    desc.projection[14] = -(far + near) / (far - near);
    desc.projection[15] = 1.0f;
    float *maps[2] = {malloc(128 * 128 * sizeof(float)), malloc(128 * 128 * sizeof(float))};
    for (int m = 0; maps[0] != NULL && maps[1] != NULL && m < CROWD_GPU_MODE_COUNT; m++) {
        CHECK(crowd_archetype_set_mode(s.world, s.archetype, (crowd_gpu_mode)m, NULL) == CROWD_OK);
        const double times[2] = {0.1, 0.5};
        for (int k = 0; k < 2; k++) {
            app_depth_target_begin(&map);
            CHECK(crowd_world_update(s.world, times[k], NULL) == CROWD_OK);
            CHECK(crowd_world_draw(s.world, &desc, NULL) == CROWD_OK);
            CHECK(app_depth_target_read(&map, maps[k]));
        }
        uint32_t region = 0, differing = 0;
        for (uint32_t i = 0; i < 128 * 128; i++) {
            bool seen = maps[0][i] < 1.0f || maps[1][i] < 1.0f;
            region += seen;
            differing += seen && fabsf(maps[0][i] - maps[1][i]) > 1e-4f;
        }
        double fraction = (double)differing / (double)(region > 0 ? region : 1);
        printf("  %-6s shadow map: %u texels of the bar, %.1f %% differ between 0.1 and 0.5 s\n",
               crowd_gpu_mode_name((crowd_gpu_mode)m), (unsigned)region, 100.0 * fraction);
        CHECK(region > 300);
        CHECK(m == CROWD_GPU_MODE_STATIC ? differing == 0 : fraction > 0.2);
    }
    free(maps[0]);
    free(maps[1]);
    app_depth_target_destroy(&map);
    gpu_scene_destroy(&s);
}

int test_gpu_world(void) {
    characters c = {0};
    crowd_error error;
    c.bar = fixture_bar_create();
    REQUIRE(c.bar != NULL && crowd_bake_build(c.bar, NULL, &c.bar_bake, &error) == CROWD_OK);
    CHECK_MSG(crowd_builtin_create(&c.human, &error) == CROWD_OK &&
                  crowd_bake_build(c.human, NULL, &c.human_bake, &error) == CROWD_OK,
              "%s", error.reason);
    if (c.human_bake != NULL) {
        test_two_archetypes(&c);
        test_depth_pass(&c);
    }
    test_application_wall(&c);
    test_shadow_moves(&c);
    crowd_bake_destroy(c.bar_bake);
    crowd_bake_destroy(c.human_bake);
    crowd_asset_destroy(c.bar);
    crowd_asset_destroy(c.human);
    return check_finish();
}
