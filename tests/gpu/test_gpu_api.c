/* The world's API around the pictures: every error path, handles, clip
 * queries, timing, GPU memory accounting against sizes computed here from
 * first principles, and a bake written to disk and loaded back (static, bat,
 * vat only; the same pictures as the bake in memory). Also what the host
 * library gives crowd's programs: its target's limits, PNG output and a
 * window (when there is a display). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include "check.h"
#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "gpu_fixtures.h"
#include "test_files.h"
#include "test_gpu.h"

/* A world with the archetype `desc` (NULL: none); the world is NULL when
 * creation failed, the archetype {0} when adding failed, `error` says why. */
static crowd_world *world_with(const crowd_archetype_desc *desc, crowd_archetype *out,
                               crowd_error *error) {
    crowd_world *world = NULL;
    *out = (crowd_archetype){0};
    if (crowd_world_create(NULL, &world, error) == CROWD_OK && desc != NULL) {
        crowd_world_add_archetype(world, desc, out, error);
    }
    return world;
}

/* What adding `desc` to a fresh world returns (the world is destroyed). */
static crowd_result add_result(crowd_archetype_desc desc, crowd_error *error) {
    crowd_archetype archetype;
    crowd_world *world = NULL;
    crowd_result result = crowd_world_create(NULL, &world, error);
    if (result == CROWD_OK) {
        result = crowd_world_add_archetype(world, &desc, &archetype, error);
        if (result != CROWD_OK && (archetype.id != 0 || crowd_world_archetype_count(world) != 0)) {
            CHECK_MSG(false, "a failed add left archetype %u", (unsigned)archetype.id);
        }
    }
    crowd_world_destroy(world);
    return result;
}

static void test_modes_and_names(void) {
    crowd_gpu_mode mode;
    const char *names[CROWD_GPU_MODE_COUNT] = {"static", "cpu", "gpu", "bat", "vat"};
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        CHECK(strcmp(crowd_gpu_mode_name((crowd_gpu_mode)m), names[m]) == 0);
        CHECK(crowd_gpu_mode_parse(names[m], &mode) && mode == (crowd_gpu_mode)m);
    }
    CHECK(strcmp(crowd_gpu_mode_name(CROWD_GPU_MODE_COUNT), "?") == 0);
    CHECK(!crowd_gpu_mode_parse("GPU", &mode));
    CHECK(!crowd_gpu_mode_parse("", &mode));
    CHECK(!crowd_gpu_mode_parse(NULL, &mode));
}

/* Without a current context a world cannot be made (EGL contexts only: the
 * headless test context is one). */
static void test_no_context(void) {
    EGLDisplay display = eglGetCurrentDisplay();
    REQUIRE_VOID(display != EGL_NO_DISPLAY);
    CHECK(eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT));
    crowd_world *world = (crowd_world *)1;
    crowd_error error;
    CHECK(crowd_world_create(NULL, &world, &error) == CROWD_ERROR_GPU && world == NULL);
    printf("  without a context: %s\n", error.reason);
    CHECK(host_context_make_current(gpu_test_context, &error) == CROWD_OK);
}

static void test_world_errors(void) {
    crowd_world *world = (crowd_world *)1;
    crowd_error error;
    CHECK(crowd_world_create(NULL, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    crowd_world_desc desc = {.max_instances = CROWD_WORLD_MAX_INSTANCES + 1};
    CHECK(crowd_world_create(&desc, &world, &error) == CROWD_ERROR_INVALID_ARGUMENT &&
          world == NULL);
    desc = (crowd_world_desc){.state = (crowd_state_policy)2};
    CHECK(crowd_world_create(&desc, &world, &error) == CROWD_ERROR_INVALID_ARGUMENT &&
          world == NULL);
    desc =
        (crowd_world_desc){.max_instances = CROWD_WORLD_MAX_INSTANCES, .state = CROWD_STATE_RESET};
    CHECK(crowd_world_create(&desc, &world, &error) == CROWD_OK && world != NULL);
    crowd_world_destroy(world);
    crowd_world_destroy(NULL);
    test_no_context();
}

static void test_archetype_errors(const crowd_asset *bar, crowd_bake *bake) {
    crowd_error error;
    crowd_archetype_desc ok = {.asset = bar, .bake = bake};
    crowd_world *world = world_with(NULL, &(crowd_archetype){0}, &error);
    REQUIRE_VOID(world != NULL);
    crowd_archetype archetype = {7};
    CHECK(crowd_world_add_archetype(world, NULL, &archetype, &error) ==
              CROWD_ERROR_INVALID_ARGUMENT &&
          archetype.id == 0);
    CHECK(crowd_world_add_archetype(world, &ok, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_world_add_archetype(NULL, &ok, &archetype, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    crowd_world_destroy(world);
    CHECK(add_result((crowd_archetype_desc){0}, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    crowd_archetype_desc bad = ok;
    bad.mode = (crowd_gpu_mode)42;
    CHECK(add_result(bad, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    /* An asset alone cannot play baked modes. */
    bad = (crowd_archetype_desc){.asset = bar, .mode = CROWD_GPU_MODE_VAT};
    CHECK(add_result(bad, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(error.reason, "vat") != NULL, "%s", error.reason);
    /* A bake of another mesh. */
    crowd_asset *builtin = NULL;
    CHECK(crowd_builtin_create(&builtin, &error) == CROWD_OK);
    bad = ok;
    bad.asset = builtin;
    CHECK(add_result(bad, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(error.reason, "vertices") != NULL, "%s", error.reason);
    crowd_asset_destroy(builtin);
    /* Layouts that would read outside the textures. */
    uint32_t frames = bake->clips[0].frame_count;
    bake->clips[0].frame_count = bake->frame_count + 1;
    CHECK(add_result(ok, &error) == CROWD_ERROR_INVALID_DATA);
    bake->clips[0].frame_count = 0;
    CHECK(add_result(ok, &error) == CROWD_ERROR_INVALID_DATA);
    bake->clips[0].frame_count = frames;
    uint32_t rows = bake->vat_rows_per_frame;
    bake->vat_rows_per_frame = 0;
    CHECK(add_result(ok, &error) == CROWD_ERROR_INVALID_DATA);
    bake->vat_rows_per_frame = rows;
    uint32_t bat_width = bake->bat.width;
    bake->bat.width = 5; /* 2 joints need 6 texels a frame on one row */
    CHECK(add_result(ok, &error) == CROWD_ERROR_INVALID_DATA);
    CHECK_MSG(strstr(error.reason, "BAT") != NULL, "%s", error.reason);
    bake->bat.width = bat_width;
    float fps = bake->clips[0].fps;
    bake->clips[0].fps = 0.0f;
    CHECK(add_result(ok, &error) == CROWD_ERROR_INVALID_DATA);
    bake->clips[0].fps = fps;
    bake->clips[0].layout = (crowd_frame_layout)7;
    CHECK(add_result(ok, &error) == CROWD_ERROR_INVALID_DATA);
    /* A looping clip of an older bake (WRAP) needing more than one frame
     * beyond those baked: the shaders wrap its frame by two subtractions.
     * With n frames, n + 0.9 frames' worth pass, n + 1.1 do not. */
    bake->clips[0].layout = CROWD_FRAMES_WRAP;
    float duration = bake->clips[0].duration_s;
    float baked = (float)bake->clips[0].frame_count;
    CHECK(bake->clips[0].loop);
    bake->clips[0].duration_s = (baked + 0.9f) / fps;
    CHECK(add_result(ok, &error) == CROWD_OK);
    bake->clips[0].duration_s = (baked + 1.1f) / fps;
    CHECK(add_result(ok, &error) == CROWD_ERROR_INVALID_DATA);
    CHECK_MSG(strstr(error.reason, "looping clip 0") != NULL, "%s", error.reason);
    bake->clips[0].layout = CROWD_FRAMES_END;
    bake->clips[0].duration_s = duration;
    CHECK(add_result(ok, &error) == CROWD_OK);
}

/* CROWD_WORLD_MAX_ARCHETYPES archetypes fit, one more is CROWD_ERROR_LIMIT;
 * a removed one frees its index, its old handle stays invalid. */
static void test_archetype_limit(const crowd_asset *bar) {
    crowd_error error;
    crowd_world *world = world_with(NULL, &(crowd_archetype){0}, &error);
    REQUIRE_VOID(world != NULL);
    crowd_archetype_desc desc = {.asset = bar};
    crowd_archetype first = {0}, last = {0}, extra = {0};
    uint32_t added = 0;
    for (uint32_t i = 0; i < CROWD_WORLD_MAX_ARCHETYPES; i++) {
        added += crowd_world_add_archetype(world, &desc, &last, &error) == CROWD_OK;
        first = first.id != 0 ? first : last;
    }
    CHECK_MSG(added == CROWD_WORLD_MAX_ARCHETYPES, "%u archetypes added: %s", (unsigned)added,
              error.reason);
    CHECK(crowd_world_add_archetype(world, &desc, &extra, &error) == CROWD_ERROR_LIMIT &&
          extra.id == 0);
    CHECK(crowd_world_archetype_count(world) == CROWD_WORLD_MAX_ARCHETYPES);
    CHECK(crowd_world_remove_archetype(world, first, &error) == CROWD_OK);
    CHECK(crowd_world_remove_archetype(world, first, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_world_add_archetype(world, &desc, &extra, &error) == CROWD_OK);
    CHECK(extra.id != first.id && extra.id != 0);
    crowd_gpu_mode mode = CROWD_GPU_MODE_VAT;
    CHECK(!crowd_archetype_get_mode(world, first, &mode) && mode == CROWD_GPU_MODE_VAT);
    CHECK(crowd_archetype_get_mode(world, extra, &mode) && mode == CROWD_GPU_MODE_STATIC);
    crowd_world_destroy(world);
}

static void test_queries_and_modes(const crowd_asset *bar, const crowd_bake *bake) {
    crowd_error error;
    crowd_archetype r, asset_only;
    crowd_world *world = world_with(
        &(crowd_archetype_desc){.asset = bar, .bake = bake, .name = "bar one"}, &r, &error);
    REQUIRE_VOID(world != NULL && r.id != 0);
    CHECK(crowd_world_add_archetype(world, &(crowd_archetype_desc){.asset = bar}, &asset_only,
                                    &error) == CROWD_OK);
    CHECK(crowd_world_archetype_count(world) == 2 && asset_only.id != r.id);
    CHECK(strcmp(crowd_archetype_name(world, r), "bar one") == 0);
    CHECK(strcmp(crowd_archetype_name(world, asset_only), "bar") == 0);
    CHECK(strcmp(crowd_archetype_name(world, (crowd_archetype){0}), "") == 0);
    CHECK(crowd_archetype_clip_count(world, r) == 3);
    crowd_clip_info clip;
    CHECK(crowd_archetype_get_clip(world, r, 2, &clip) && strcmp(clip.name, "drop") == 0 &&
          !clip.loop && clip.duration_s == 0.5f);
    CHECK(!crowd_archetype_get_clip(world, r, 3, &clip));
    CHECK(!crowd_archetype_get_clip(world, (crowd_archetype){0}, 0, &clip));
    uint32_t found = 7;
    CHECK(crowd_archetype_find_clip(world, r, "slide", &found) && found == 1);
    CHECK(!crowd_archetype_find_clip(world, r, "nope", &found) && found == 1);
    CHECK(!crowd_archetype_find_clip(world, r, NULL, &found));
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        CHECK(crowd_archetype_has_mode(world, r, (crowd_gpu_mode)m));
        CHECK(crowd_archetype_has_mode(world, asset_only, (crowd_gpu_mode)m) ==
              (m <= CROWD_GPU_MODE_GPU));
        CHECK(!crowd_archetype_has_mode(world, (crowd_archetype){0}, (crowd_gpu_mode)m));
    }
    CHECK(crowd_archetype_set_mode(world, asset_only, CROWD_GPU_MODE_BAT, &error) ==
          CROWD_ERROR_UNSUPPORTED);
    crowd_gpu_mode mode = CROWD_GPU_MODE_COUNT;
    CHECK(crowd_archetype_get_mode(world, asset_only, &mode) && mode == CROWD_GPU_MODE_STATIC);
    CHECK(crowd_archetype_set_mode(world, r, (crowd_gpu_mode)9, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_archetype_set_mode(NULL, r, CROWD_GPU_MODE_GPU, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_archetype_set_mode(world, (crowd_archetype){0}, CROWD_GPU_MODE_GPU, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    float min[3], max[3];
    CHECK(crowd_archetype_bind_bounds(world, r, min, max));
    CHECK_NEAR(min[0], -0.25, 1e-6);
    CHECK_NEAR(max[1], 2.0, 1e-6);
    CHECK(!crowd_archetype_bind_bounds(world, (crowd_archetype){0}, min, max));
    CHECK(!crowd_world_instance_bounds(world, min, max));
    crowd_instance id;
    crowd_instance_desc desc = {.position = {3, 0, 0}, .heading_rad = 1.5707963f, .scale = 2};
    CHECK(crowd_world_add_instance(world, r, &desc, &id, &error) == CROWD_OK);
    CHECK(crowd_instance_archetype(world, id).id == r.id);
    CHECK(crowd_world_instance_bounds(world, min, max));
    /* Turned 90 degrees about +Y and doubled: x spans 3 +- 0.5, y 0..4. */
    CHECK_NEAR(min[0], 2.5, 1e-5);
    CHECK_NEAR(max[0], 3.5, 1e-5);
    CHECK_NEAR(max[1], 4.0, 1e-5);
    /* A second archetype's instance grows the same bounds. */
    crowd_instance other;
    desc = (crowd_instance_desc){.position = {-2, 0, 0}};
    CHECK(crowd_world_add_instance(world, asset_only, &desc, &other, &error) == CROWD_OK);
    CHECK(crowd_world_instance_bounds(world, min, max));
    CHECK_NEAR(min[0], -2.25, 1e-5);
    CHECK_NEAR(max[0], 3.5, 1e-5);
    CHECK(crowd_world_instance_count(world) == 2);
    /* Removing an archetype removes its instances and their handles. */
    CHECK(crowd_world_remove_archetype(world, asset_only, &error) == CROWD_OK);
    CHECK(crowd_world_instance_count(world) == 1);
    CHECK(crowd_instance_archetype(world, other).id == 0);
    CHECK(crowd_world_remove_instance(world, other, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_world_remove_archetype(world, asset_only, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_archetype_clip_count(world, asset_only) == 0);
    crowd_world_set_time(world, 12.5);
    CHECK(crowd_world_time(world) == 12.5);
    crowd_world_set_time(world, NAN);
    CHECK(crowd_world_time(world) == 12.5);
    CHECK(crowd_world_update(world, 13.0, &error) == CROWD_OK && crowd_world_time(world) == 13.0);
    CHECK(crowd_world_update(world, INFINITY, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_world_time(world) == 13.0);
    crowd_world_destroy(world);
}

/* `bad` is refused with a reason naming `field`. */
static void expect_bad_draw(crowd_world *world, const crowd_draw_desc *bad, const char *field) {
    crowd_error error = {0};
    crowd_result result = crowd_world_draw(world, bad, &error);
    CHECK_MSG(result == CROWD_ERROR_INVALID_ARGUMENT && strstr(error.reason, field) != NULL,
              "%s: %s '%s'", field, crowd_result_str(result), error.reason);
}

/* Each field of the desc that a NaN or a value out of its range would
 * have passed silently. */
static void test_draw_desc_fields(crowd_world *world, const crowd_draw_desc *draw) {
    crowd_draw_desc bad = *draw;
    bad.cull = (crowd_cull_mode)3;
    expect_bad_draw(world, &bad, "unknown cull mode 3");
    bad = *draw;
    bad.cull = (crowd_cull_mode)-1;
    expect_bad_draw(world, &bad, "unknown cull mode -1");
    const float heights[] = {NAN, -1.0f, INFINITY};
    for (int i = 0; i < 3; i++) {
        bad = *draw;
        bad.viewport_height_px = heights[i];
        expect_bad_draw(world, &bad, "viewport_height_px");
        bad = *draw;
        bad.lod_error_px = heights[i];
        expect_bad_draw(world, &bad, "lod_error_px");
    }
    bad = *draw;
    bad.light.direction[1] = NAN;
    expect_bad_draw(world, &bad, "light.direction[1] is nan");
    bad = *draw;
    bad.light.ambient_ground[2] = -INFINITY;
    expect_bad_draw(world, &bad, "light.ambient_ground[2] is -inf");
    /* The depth pass draws no light; the bounds of each range are valid. */
    crowd_error error = {0};
    bad.pass = CROWD_PASS_DEPTH;
    CHECK_MSG(crowd_world_draw(world, &bad, &error) == CROWD_OK, "%s", error.reason);
    bad = *draw;
    bad.viewport_height_px = 0.0f;
    bad.lod_error_px = 0.0f;
    bad.cull = CROWD_CULL_OFF;
    CHECK_MSG(crowd_world_draw(world, &bad, &error) == CROWD_OK, "%s", error.reason);
}

static void count_warning(void *user, crowd_log_level level, const char *message) {
    if (level == CROWD_LOG_WARNING && strstr(message, "crowd_world_set_time: nan") != NULL) {
        (*(int *)user)++;
    }
}

/* A time that is not finite keeps the clock, with a warning. */
static void test_set_time_not_finite(void) {
    int warnings = 0;
    crowd_world_desc desc = {.logger = {count_warning, &warnings}};
    crowd_world *world = NULL;
    crowd_error error;
    REQUIRE_VOID(crowd_world_create(&desc, &world, &error) == CROWD_OK);
    crowd_world_set_time(world, 3.25);
    crowd_world_set_time(world, NAN);
    CHECK(crowd_world_time(world) == 3.25 && warnings == 1);
    crowd_world_set_time(world, -INFINITY);
    CHECK(crowd_world_time(world) == 3.25);
    crowd_world_destroy(world);
}

static void test_instance_errors(const crowd_asset *bar, const crowd_bake *bake) {
    crowd_world *world = NULL;
    crowd_error error;
    REQUIRE_VOID(crowd_world_create(&(crowd_world_desc){.max_instances = 2}, &world, &error) ==
                 CROWD_OK);
    crowd_archetype r, other;
    CHECK(crowd_world_add_archetype(world, &(crowd_archetype_desc){.asset = bar, .bake = bake}, &r,
                                    &error) == CROWD_OK);
    CHECK(crowd_world_add_archetype(world, &(crowd_archetype_desc){.asset = bar}, &other, &error) ==
          CROWD_OK);
    crowd_instance a = {0}, b = {0}, c = {0};
    crowd_instance_desc desc = {0};
    CHECK(crowd_world_add_instance(world, r, NULL, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_world_add_instance(world, r, &desc, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_world_add_instance(NULL, r, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_world_add_instance(world, (crowd_archetype){0}, &desc, &a, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    desc.clip = 3;
    CHECK(crowd_world_add_instance(world, r, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.reason, "clip 3") != NULL);
    desc = (crowd_instance_desc){.position = {0, NAN, 0}};
    CHECK(crowd_world_add_instance(world, r, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    desc = (crowd_instance_desc){.speed = INFINITY};
    CHECK(crowd_world_add_instance(world, r, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    desc = (crowd_instance_desc){.scale = -1.0f};
    CHECK(crowd_world_add_instance(world, r, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    desc = (crowd_instance_desc){.loop = (crowd_loop_mode)7};
    CHECK(crowd_world_add_instance(world, r, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    desc = (crowd_instance_desc){.tint = {1, 1, NAN, 1}};
    CHECK(crowd_world_add_instance(world, r, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_world_instance_count(world) == 0);
    /* max_instances counts the instances of every archetype together. */
    desc = (crowd_instance_desc){0};
    CHECK(crowd_world_add_instance(world, r, &desc, &a, &error) == CROWD_OK && a.id != 0);
    CHECK(crowd_world_add_instance(world, other, &desc, &b, &error) == CROWD_OK && b.id != 0 &&
          b.id != a.id);
    CHECK(crowd_world_add_instance(world, r, &desc, &c, &error) == CROWD_ERROR_LIMIT && c.id == 0);
    CHECK(strstr(error.reason, "2") != NULL);
    CHECK(crowd_instance_play(world, a, 3, 0.2f, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_play(world, a, 1, -0.1f, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_play(world, a, 1, NAN, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_set_speed(world, a, NAN, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    const float nan_position[3] = {NAN, 0, 0}, position[3] = {1, 0, 0};
    CHECK(crowd_instance_set_transform(world, a, nan_position, 0, 1, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_set_transform(world, a, NULL, 0, 1, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_set_transform(world, a, position, 0, -2, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    desc.clip = 9;
    CHECK(crowd_instance_update(world, a, &desc, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    /* Stale, zero and made-up handles. */
    CHECK(crowd_world_remove_instance(world, a, &error) == CROWD_OK);
    CHECK(crowd_world_remove_instance(world, a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.reason, "does not exist") != NULL);
    CHECK(crowd_instance_update(world, a, &(crowd_instance_desc){0}, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_play(world, a, 0, 0.0f, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_set_speed(world, (crowd_instance){0}, 1.0f, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_set_transform(world, (crowd_instance){0xffffffffu}, position, 0, 1,
                                       &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_archetype(world, a).id == 0);
    /* The slot is reused with a new generation: the old handle stays dead. */
    CHECK(crowd_world_add_instance(world, r, &(crowd_instance_desc){0}, &c, &error) == CROWD_OK &&
          c.id != a.id);
    CHECK(crowd_world_remove_instance(world, a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_world_remove_instance(world, b, &error) == CROWD_OK &&
          crowd_world_remove_instance(world, c, &error) == CROWD_OK);
    CHECK(crowd_world_instance_count(world) == 0);
    /* Draw descs: unknown pass, matrices that are not finite, none. */
    crowd_camera camera = {.eye = {0, 1, 6}, .target = {0, 1, 0}};
    crowd_draw_desc draw = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
    CHECK(crowd_world_update(world, 1.0, &error) == CROWD_OK);
    CHECK(crowd_world_draw(world, &draw, &error) == CROWD_OK);
    CHECK(crowd_world_draw(world, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_world_draw(NULL, &draw, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    crowd_draw_desc bad = draw;
    bad.pass = (crowd_pass)7;
    CHECK(crowd_world_draw(world, &bad, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    bad = draw;
    bad.view[5] = NAN;
    CHECK(crowd_world_draw(world, &bad, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    bad = draw;
    bad.projection[0] = INFINITY;
    CHECK(crowd_world_draw(world, &bad, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    test_draw_desc_fields(world, &draw);
    CHECK(crowd_world_update(world, NAN, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    crowd_world_destroy(world);
}

/* crowd_camera_matrices refuses degenerate cameras; the matrices it gives
 * put the target at the centre of the image. */
static void test_camera(void) {
    float view[16], projection[16];
    crowd_camera camera = {.eye = {0, 1, 5}, .target = {0, 1, 5}};
    CHECK(!crowd_camera_matrices(&camera, 1.0f, view, projection));
    camera.eye[2] = 6.0f;
    camera.fov_y_rad = 3.5f;
    CHECK(!crowd_camera_matrices(&camera, 1.0f, view, projection));
    camera.fov_y_rad = 0.0f;
    CHECK(crowd_camera_matrices(&camera, 1.0f, view, projection));
    camera.near_m = 2.0f;
    camera.far_m = 1.0f;
    CHECK(!crowd_camera_matrices(&camera, 1.0f, view, projection));
    camera = (crowd_camera){.eye = {1, 2, 7}, .target = {0.5f, 1, -1}};
    CHECK(crowd_camera_matrices(&camera, 2.0f, view, projection));
    float clip[4] = {0, 0, 0, 0}, eye[4] = {0, 0, 0, 0};
    const float target[4] = {0.5f, 1, -1, 1};
    for (int r = 0; r < 4; r++) {
        for (int k = 0; k < 4; k++) {
            eye[r] += view[4 * k + r] * target[k];
        }
    }
    for (int r = 0; r < 4; r++) {
        for (int k = 0; k < 4; k++) {
            clip[r] += projection[4 * k + r] * eye[k];
        }
    }
    CHECK_NEAR(clip[0] / clip[3], 0.0, 1e-5);
    CHECK_NEAR(clip[1] / clip[3], 0.0, 1e-5);
    CHECK(fabsf(clip[2] / clip[3]) < 1.0f);
}

/* CPU culling is timed apart (cpu_cull_time_s, inside cpu_time_s) in
 * every pass that culls on the CPU; culling off costs none. The world
 * holds one bat character and gpu-culls by default. */
static void test_cull_timing(crowd_world *world, const crowd_draw_desc *draw) {
    crowd_draw_desc on_cpu = *draw, off = *draw;
    on_cpu.cull = CROWD_CULL_CPU;
    off.cull = CROWD_CULL_OFF;
    crowd_world_stats stats;
    CHECK(gpu_test_frame(world, 1.1, &on_cpu));
    crowd_world_get_stats(world, &stats);
    CHECK_MSG(stats.cpu_cull_time_s > 0.0 && stats.cpu_cull_time_s <= stats.cpu_time_s,
              "CROWD_CULL_CPU: cull %g s of %g s", stats.cpu_cull_time_s, stats.cpu_time_s);
    CHECK(gpu_test_frame(world, 1.2, &off));
    crowd_world_get_stats(world, &stats);
    CHECK(stats.cpu_time_s > 0.0 && stats.cpu_cull_time_s == 0.0);
}

/* Times are gathered only when asked for: thread CPU time from the first
 * frame, GPU time from timer queries some frames later, never by waiting
 * (the test waits, as an application that reads pixels does). */
static void test_timing(const crowd_asset *bar, const crowd_bake *bake) {
    crowd_world *world = NULL;
    crowd_error error;
    REQUIRE_VOID(crowd_world_create(&(crowd_world_desc){.timing = true}, &world, &error) ==
                 CROWD_OK);
    crowd_archetype r;
    crowd_instance id;
    CHECK(crowd_world_add_archetype(
              world,
              &(crowd_archetype_desc){.asset = bar, .bake = bake, .mode = CROWD_GPU_MODE_GPU}, &r,
              &error) == CROWD_OK);
    CHECK(crowd_world_add_instance(world, r, &(crowd_instance_desc){0}, &id, &error) == CROWD_OK);
    crowd_camera camera = gpu_test_bar_camera();
    crowd_draw_desc draw = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
    crowd_world_stats stats = {0};
    for (int frame = 0; frame < 8; frame++) {
        CHECK(gpu_test_frame(world, 0.1 * frame, &draw));
        glFinish();
        crowd_world_get_stats(world, &stats);
        if (frame == 0) {
            CHECK(stats.cpu_time_s > 0.0 && stats.cpu_animation_time_s > 0.0 &&
                  stats.cpu_animation_time_s <= stats.cpu_time_s);
        }
    }
    printf("  timing: cpu %.3f ms (animation %.3f ms), gpu %.3f ms %u frames ago\n",
           1e3 * stats.cpu_time_s, 1e3 * stats.cpu_animation_time_s, 1e3 * stats.gpu_time_s,
           (unsigned)stats.gpu_time_frames_ago);
    CHECK(stats.gpu_time_frames_ago > 0 && stats.gpu_time_s > 0.0);
    /* gpu mode is never culled: no culling time. */
    CHECK(stats.cpu_cull_time_s == 0.0);
    /* bat does no CPU animation; the GPU culls it unless asked otherwise. */
    CHECK(crowd_archetype_set_mode(world, r, CROWD_GPU_MODE_BAT, &error) == CROWD_OK);
    CHECK(gpu_test_frame(world, 1.0, &draw));
    crowd_world_get_stats(world, &stats);
    CHECK(stats.cpu_time_s > 0.0 && stats.cpu_animation_time_s == 0.0 &&
          stats.cpu_cull_time_s == 0.0);
    test_cull_timing(world, &draw);
    crowd_world_destroy(world);
    /* The portable tier culls on the CPU whatever the desc asks (here on a
     * 4.5 context, forced). */
    REQUIRE_VOID(
        crowd_world_create(&(crowd_world_desc){.timing = true, .tier = CROWD_TIER_PORTABLE}, &world,
                           &error) == CROWD_OK);
    CHECK(crowd_world_add_archetype(
              world,
              &(crowd_archetype_desc){.asset = bar, .bake = bake, .mode = CROWD_GPU_MODE_VAT}, &r,
              &error) == CROWD_OK);
    CHECK(crowd_world_add_instance(world, r, &(crowd_instance_desc){0}, &id, &error) == CROWD_OK);
    CHECK(gpu_test_frame(world, 0.0, &draw));
    crowd_world_get_stats(world, &stats);
    CHECK_MSG(stats.tier == CROWD_TIER_PORTABLE && stats.cpu_cull_time_s > 0.0 &&
                  stats.cpu_cull_time_s <= stats.cpu_time_s,
              "portable: cull %g s of %g s", stats.cpu_cull_time_s, stats.cpu_time_s);
    crowd_world_destroy(world);
}

/* Sizes from the layouts in src/gpu (mesh sections over LOD0's vertices and
 * every LOD's copies, 40-byte instance records (crowd_contract.glsl),
 * 32-byte materials, a 16-byte sphere per clip and one for
 * them all (blends), a 4-byte frame step per clip, and once a
 * culled pass ran, a list of records per LOD, a LOD word per record and
 * GPU_COMMAND_COUNT (28) 20-byte indirect commands: the LODs', the props'
 * and the LODs' one-fetch ones) and GL's texel sizes. */
static void test_memory(const crowd_asset *bar, const crowd_bake *bake) {
    crowd_error error;
    crowd_archetype r;
    crowd_world *world =
        world_with(&(crowd_archetype_desc){.asset = bar, .bake = bake}, &r, &error);
    REQUIRE_VOID(world != NULL && r.id != 0);
    uint64_t v = bar->mesh.vertex_count, j = bar->skeleton.joint_count;
    uint64_t lods = bake->lod_count;
    uint64_t all_v = v + (lods > 1 ? bake->lod_vertex_total : 0);
    uint64_t all_i = bar->mesh.index_count + (lods > 1 ? bake->lod_index_total : 0);
    uint64_t mesh = all_v * (12 + 12 + 8 + 8 + 16 + 4) + 4 * ((all_v + 1) / 2) + 4 * all_i;
    uint64_t materials = 2 * 32 + (2 * 2 + 1 * 1) * 4; /* 2x2 texture array, 2 mip levels */
    uint64_t instances = 64 * 40;                      /* first capacity: 64 records */
    uint64_t spheres = 16ull * (bake->clip_count + 1);
    uint64_t steps = 4ull * bake->clip_count;
    uint64_t base = mesh + materials + instances + spheres + steps;
    uint64_t lists = 64 * lods * 40 + 4 * 64 + 28 * 20; /* made by the first culled pass */
    crowd_world_stats stats;
    crowd_world_get_stats(world, &stats);
    CHECK_MSG(stats.gpu_memory_bytes == base, "static: %llu bytes, expected %llu",
              (unsigned long long)stats.gpu_memory_bytes, (unsigned long long)base);
    uint64_t vat = 8ull * bake->vat_position.width * bake->vat_position.height;
    uint64_t bat = 16ull * bake->bat.width * bake->bat.height;
    uint64_t sections = CROWD_WORLD_STREAM_FRAMES;
    crowd_instance id;
    CHECK(crowd_world_add_instance(world, r, &(crowd_instance_desc){0}, &id, &error) == CROWD_OK);
    crowd_camera camera = {.eye = {0, 1, 6}, .target = {0, 1, 0}};
    crowd_draw_desc draw = gpu_test_draw_desc(&camera, CROWD_PASS_COLOR);
    const struct {
        crowd_gpu_mode mode;
        uint64_t extra;
    } expected[5] = {{CROWD_GPU_MODE_VAT, vat + lists},
                     {CROWD_GPU_MODE_BAT, bat + lists},
                     {CROWD_GPU_MODE_GPU, sections * 64 * j * 48 + lists},
                     {CROWD_GPU_MODE_CPU, sections * 64 * v * 24 + lists},
                     {CROWD_GPU_MODE_STATIC, lists}};
    for (int e = 0; e < 5; e++) {
        CHECK(crowd_archetype_set_mode(world, r, expected[e].mode, &error) == CROWD_OK);
        CHECK(gpu_test_frame(world, 0.3, &draw));
        crowd_world_get_stats(world, &stats);
        CHECK_MSG(stats.gpu_memory_bytes == base + expected[e].extra,
                  "%s: %llu bytes, expected %llu", crowd_gpu_mode_name(expected[e].mode),
                  (unsigned long long)stats.gpu_memory_bytes,
                  (unsigned long long)(base + expected[e].extra));
    }
    /* 65 instances double the record buffer to 128. */
    for (int i = 0; i < 64; i++) {
        CHECK(crowd_world_add_instance(world, r, &(crowd_instance_desc){0}, &id, &error) ==
              CROWD_OK);
    }
    crowd_world_get_stats(world, &stats);
    CHECK(stats.gpu_memory_bytes == base + 64 * 40 + lists);
    /* A second archetype adds its own mesh, materials and records. */
    crowd_archetype second;
    CHECK(crowd_world_add_archetype(world, &(crowd_archetype_desc){.asset = bar}, &second,
                                    &error) == CROWD_OK);
    crowd_world_get_stats(world, &stats);
    CHECK_MSG(stats.gpu_memory_bytes == 2 * base + 64 * 40 + lists, "two archetypes: %llu bytes",
              (unsigned long long)stats.gpu_memory_bytes);
    CHECK(crowd_world_remove_archetype(world, second, &error) == CROWD_OK);
    crowd_world_get_stats(world, &stats);
    CHECK(stats.gpu_memory_bytes == base + 64 * 40 + lists);
    crowd_world_destroy(world);
}

/* The host target: sizes refused with the old target kept, a resized one
 * cleared and read back whole. */
static void test_host_target(void) {
    host_target target = {0};
    crowd_error error;
    CHECK(host_target_resize(&target, 0, 10, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(host_target_resize(&target, 100000, 10, &error) == CROWD_ERROR_LIMIT);
    CHECK(strstr(error.reason, "100000") != NULL);
    CHECK(host_target_resize(&target, 64, 32, &error) == CROWD_OK);
    CHECK(host_target_resize(&target, 100000, 10, &error) == CROWD_ERROR_LIMIT);
    CHECK(target.framebuffer != 0 && target.width == 64 && target.height == 32);
    uint8_t small[16];
    CHECK(host_target_read_rgba(&target, small, sizeof small, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(host_target_read_rgba(&target, NULL, 1u << 20, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    host_target_begin(&target, gpu_test_clear);
    uint8_t *pixels = malloc(64 * 32 * 4);
    CHECK(pixels != NULL &&
          host_target_read_rgba(&target, pixels, 64 * 32 * 4, &error) == CROWD_OK);
    /* Nothing drawn but the clear colour: every pixel equal, opaque. */
    for (int i = 0; pixels != NULL && i < 64 * 32; i++) {
        if (memcmp(pixels + 4 * i, pixels, 4) != 0 || pixels[4 * i + 3] != 255) {
            CHECK_MSG(false, "pixel %d differs from the clear colour", i);
            break;
        }
    }
    free(pixels);
    host_target_release(&target);
    host_target_release(&target);
}

/* PNG round trip through libpng, and the failure paths. */
static void test_png(void) {
    const uint8_t pixels[2 * 3 * 4] = {255, 0, 0, 255, 0,  255, 0,  255, 0,   0,   255, 255,
                                       1,   2, 3, 4,   10, 20,  30, 40,  200, 201, 202, 203};
    crowd_error error;
    CHECK(host_write_png("gpu_api_roundtrip.png", 3, 2, pixels, &error) == CROWD_OK);
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    uint8_t back[24] = {0};
    CHECK(png_image_begin_read_from_file(&image, "gpu_api_roundtrip.png"));
    image.format = PNG_FORMAT_RGBA;
    CHECK(image.width == 3 && image.height == 2);
    CHECK(png_image_finish_read(&image, NULL, back, 0, NULL));
    CHECK(memcmp(back, pixels, sizeof back) == 0);
    CHECK(host_write_png("/nonexistent-dir/x.png", 3, 2, pixels, &error) == CROWD_ERROR_OUTPUT);
    CHECK(strstr(error.file, "/nonexistent-dir/x.png") != NULL);
    CHECK(host_write_png("gpu_api_zero.png", 0, 2, pixels, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(host_write_png(NULL, 3, 2, pixels, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(access("gpu_api_zero.png", F_OK) != 0);
}

/* A bake written and loaded back plays every mode (its runtime clips give
 * it the clips) and draws what the bake in memory draws; rewritten as
 * version 3, without them, it plays static, bat and vat only. */
static void test_loaded_bake(const crowd_asset *bar, const crowd_bake *bake) {
    crowd_error error;
    char dir[] = "gpu_api_bake_XXXXXX";
    REQUIRE_VOID(mkdtemp(dir) != NULL);
    crowd_bake *loaded = NULL;
    CHECK_MSG(crowd_bake_write(bake, dir, NULL, &error) == CROWD_OK, "%s", error.reason);
    CHECK_MSG(crowd_bake_load(dir, NULL, &loaded, &error) == CROWD_OK, "%s", error.reason);
    gpu_scene from_disk = {0}, in_memory = {0};
    if (loaded != NULL && gpu_scene_create(NULL, loaded, CROWD_GPU_MODE_STATIC, &from_disk) &&
        gpu_scene_create(bar, bake, CROWD_GPU_MODE_STATIC, &in_memory)) {
        crowd_world *a = from_disk.world, *b = in_memory.world;
        crowd_archetype type_a = from_disk.archetype, type_b = in_memory.archetype;
        CHECK(crowd_archetype_has_mode(a, type_a, CROWD_GPU_MODE_CPU));
        CHECK(crowd_archetype_has_mode(a, type_a, CROWD_GPU_MODE_GPU));
        CHECK(crowd_archetype_clip_count(a, type_a) == 3);
        crowd_instance id;
        crowd_instance_desc desc = {.clip = 0, .time_offset_s = 0.1f};
        CHECK(crowd_world_add_instance(a, type_a, &desc, &id, &error) == CROWD_OK);
        CHECK(crowd_world_add_instance(b, type_b, &desc, &id, &error) == CROWD_OK);
        crowd_camera camera = gpu_test_bar_camera();
        for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
            const crowd_gpu_mode modes[CROWD_GPU_MODE_COUNT] = {
                CROWD_GPU_MODE_STATIC, CROWD_GPU_MODE_CPU, CROWD_GPU_MODE_GPU, CROWD_GPU_MODE_BAT,
                CROWD_GPU_MODE_VAT};
            CHECK(crowd_archetype_set_mode(a, type_a, modes[m], &error) == CROWD_OK);
            CHECK(crowd_archetype_set_mode(b, type_b, modes[m], &error) == CROWD_OK);
            uint8_t *got = gpu_test_render(a, 0.3, &camera);
            uint8_t *want = gpu_test_render(b, 0.3, &camera);
            if (got != NULL && want != NULL) {
                char what[64];
                snprintf(what, sizeof what, "loaded bake %s vs in memory",
                         crowd_gpu_mode_name(modes[m]));
                CHECK(gpu_test_close(what, want, got, 0.0005));
            }
            free(got);
            free(want);
        }
    } else {
        CHECK(false);
    }
    gpu_scene_destroy(&from_disk);
    gpu_scene_destroy(&in_memory);
    crowd_bake_destroy(loaded);
    loaded = NULL;
    gpu_test_old_bake_refuses(dir, bake->name);
    test_remove_tree(dir);
    CHECK(access(dir, F_OK) != 0);
}

/* A window (under a display, e.g. xvfb-run): a world drawn into the host
 * target, presented, the window's framebuffer read back; poll, title. */
static void test_window(host_context *window) {
    host_context_info info;
    host_context_get_info(window, &info);
    printf("  window context: %s, %s\n", info.platform, info.renderer);
    CHECK(strcmp(info.platform, "GLFW") == 0);
    uint32_t w, h;
    host_window_size(window, &w, &h);
    CHECK(w == 64 && h == 64);
    crowd_asset *bar = fixture_bar_create();
    host_target target = {0};
    gpu_scene s = {0};
    crowd_error error;
    CHECK(bar != NULL && gpu_scene_create(bar, NULL, CROWD_GPU_MODE_GPU, &s));
    crowd_instance id;
    CHECK(s.world != NULL &&
          crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id, &error) ==
              CROWD_OK);
    crowd_camera camera = {.eye = {0, 1, 4}, .target = {0, 1, 0}};
    crowd_draw_desc draw = {.pass = CROWD_PASS_COLOR};
    crowd_camera_matrices(&camera, 1.0f, draw.view, draw.projection);
    crowd_light_default(&draw.light);
    uint8_t offscreen[64 * 64 * 4], shown[64 * 64 * 4];
    if (s.world != NULL && host_target_resize(&target, 64, 64, &error) == CROWD_OK) {
        host_target_begin(&target, gpu_test_clear);
        CHECK(crowd_world_update(s.world, 0.2, &error) == CROWD_OK);
        CHECK(crowd_world_draw(s.world, &draw, &error) == CROWD_OK);
        CHECK(host_target_read_rgba(&target, offscreen, sizeof offscreen, &error) == CROWD_OK);
        host_target_present(&target, window);
        /* The window's back buffer now holds the frame (bottom-up rows). */
        glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
        glReadBuffer(GL_BACK);
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        glReadPixels(0, 0, 64, 64, GL_RGBA, GL_UNSIGNED_BYTE, shown);
        int mismatched = 0;
        for (int y = 0; y < 64; y++) {
            mismatched +=
                memcmp(offscreen + (size_t)y * 256, shown + (size_t)(63 - y) * 256, 256) != 0;
        }
        CHECK_MSG(mismatched == 0, "%d window rows differ from the offscreen frame", mismatched);
        host_window_swap(window);
    }
    host_window_set_title(window, "crowd test");
    host_window_input input;
    CHECK(host_window_poll(window, &input));
    CHECK(!input.close_requested && input.char_count == 0);
    host_target_release(&target);
    gpu_scene_destroy(&s);
    crowd_asset_destroy(bar);
}

static void test_window_context(void) {
    /* Headless machines have no display: the error must say GLFW was tried.
     * With a display the window opens and closes. */
    host_context *window = NULL;
    crowd_error error;
    host_context_desc desc = {.window = true, .width = 64, .height = 64};
    crowd_result result = host_context_create(&desc, &window, &error);
    if (result == CROWD_OK) {
        test_window(window);
        host_context_destroy(window);
    } else {
        CHECK(result == CROWD_ERROR_GPU && window == NULL);
        CHECK_MSG(strstr(error.reason, "GLFW") != NULL, "%s", error.reason);
        printf("  window context: %s\n", error.reason);
    }
    CHECK(host_context_make_current(gpu_test_context, &error) == CROWD_OK);
    host_window_input input;
    CHECK(!host_window_poll(gpu_test_context, &input) && input.char_count == 0);
    CHECK(host_context_create(NULL, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
}

int test_gpu_api(void) {
    printf("api\n");
    crowd_asset *bar = fixture_bar_create();
    crowd_bake *bake = NULL;
    crowd_error error;
    REQUIRE(bar != NULL && crowd_bake_build(bar, NULL, &bake, &error) == CROWD_OK);
    test_modes_and_names();
    test_world_errors();
    test_archetype_errors(bar, bake);
    test_archetype_limit(bar);
    test_queries_and_modes(bar, bake);
    test_instance_errors(bar, bake);
    test_set_time_not_finite();
    test_camera();
    test_timing(bar, bake);
    test_memory(bar, bake);
    test_host_target();
    test_png();
    test_loaded_bake(bar, bake);
    test_window_context();
    crowd_bake_destroy(bake);
    crowd_asset_destroy(bar);
    return check_finish();
}
