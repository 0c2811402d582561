/* The renderer's API around the pictures: every error path, clip queries,
 * GPU memory accounting against sizes computed here from first principles,
 * PNG output, and a bake written to disk and loaded back (static, bat, vat
 * only; the same pictures as the bake in memory). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <epoxy/gl.h>

#include "check.h"
#include "crowd/bake.h"
#include "crowd/builtin.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

static crowd_result make(crowd_renderer_desc desc, crowd_renderer **out, crowd_error *error) {
    if (desc.width == 0) {
        desc.width = GPU_TEST_WIDTH;
        desc.height = GPU_TEST_HEIGHT;
    }
    return crowd_renderer_create(&desc, out, error);
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

static void test_create_errors(const crowd_asset *bar, crowd_bake *bake) {
    crowd_renderer *r = (crowd_renderer *)1;
    crowd_error error;
    crowd_renderer_desc ok = {.context = gpu_test_context, .asset = bar, .bake = bake};
    CHECK(crowd_renderer_create(&ok, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_renderer_create(NULL, &r, &error) == CROWD_ERROR_INVALID_ARGUMENT && r == NULL);
    CHECK(make((crowd_renderer_desc){.asset = bar}, &r, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.reason, "context") != NULL);
    CHECK(make((crowd_renderer_desc){.context = gpu_test_context}, &r, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    crowd_renderer_desc bad = ok;
    bad.mode = (crowd_gpu_mode)42;
    CHECK(make(bad, &r, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    bad = ok;
    bad.max_instances = CROWD_RENDERER_MAX_INSTANCES + 1;
    CHECK(make(bad, &r, &error) == CROWD_ERROR_LIMIT);
    bad = ok;
    bad.width = 100000;
    bad.height = 10;
    CHECK(make(bad, &r, &error) == CROWD_ERROR_LIMIT && r == NULL);
    CHECK(strstr(error.reason, "100000") != NULL);
    /* An asset alone cannot play baked modes. */
    bad = (crowd_renderer_desc){
        .context = gpu_test_context, .asset = bar, .mode = CROWD_GPU_MODE_VAT};
    CHECK(make(bad, &r, &error) == CROWD_ERROR_UNSUPPORTED);
    CHECK(strstr(error.reason, "vat") != NULL);
    /* A bake of another mesh. */
    crowd_asset *builtin = NULL;
    CHECK(crowd_builtin_create(&builtin, &error) == CROWD_OK);
    bad = ok;
    bad.asset = builtin;
    CHECK(make(bad, &r, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.reason, "vertices") != NULL);
    crowd_asset_destroy(builtin);
    /* Layouts that would read outside the textures. */
    uint32_t frames = bake->clips[0].frame_count;
    bake->clips[0].frame_count = bake->frame_count + 1;
    CHECK(make(ok, &r, &error) == CROWD_ERROR_INVALID_DATA);
    bake->clips[0].frame_count = 0;
    CHECK(make(ok, &r, &error) == CROWD_ERROR_INVALID_DATA);
    bake->clips[0].frame_count = frames;
    uint32_t rows = bake->vat_rows_per_frame;
    bake->vat_rows_per_frame = 0;
    CHECK(make(ok, &r, &error) == CROWD_ERROR_INVALID_DATA);
    bake->vat_rows_per_frame = rows;
    uint32_t bat_width = bake->bat.width;
    bake->bat.width = 5; /* 2 joints need 6 texels a frame on one row */
    CHECK(make(ok, &r, &error) == CROWD_ERROR_INVALID_DATA);
    CHECK(strstr(error.reason, "BAT") != NULL);
    bake->bat.width = bat_width;
    float fps = bake->fps;
    bake->fps = 0.0f;
    CHECK(make(ok, &r, &error) == CROWD_ERROR_INVALID_DATA);
    bake->fps = fps;
    /* A looping clip needing more than one frame beyond those baked: the
     * shaders wrap its frame by two subtractions. bend (1 s at 30 fps) has
     * 30 frames; 30.9 frames' worth pass, 31.1 do not. */
    float duration = bake->clips[0].duration_s;
    CHECK(bake->clips[0].loop && bake->clips[0].frame_count == 30);
    bake->clips[0].duration_s = 30.9f / fps;
    CHECK(make(ok, &r, &error) == CROWD_OK);
    crowd_renderer_destroy(r);
    bake->clips[0].duration_s = 31.1f / fps;
    CHECK(make(ok, &r, &error) == CROWD_ERROR_INVALID_DATA && r == NULL);
    CHECK(strstr(error.reason, "looping clip 0") != NULL);
    bake->clips[0].duration_s = duration;
    CHECK(make(ok, &r, &error) == CROWD_OK);
    crowd_renderer_destroy(r);
    crowd_renderer_destroy(NULL);
}

static void test_queries_and_modes(const crowd_asset *bar, const crowd_bake *bake) {
    crowd_renderer *r = NULL, *asset_only = NULL;
    crowd_error error;
    REQUIRE_VOID(
        make((crowd_renderer_desc){.context = gpu_test_context, .asset = bar, .bake = bake}, &r,
             &error) == CROWD_OK);
    CHECK(make((crowd_renderer_desc){.context = gpu_test_context, .asset = bar}, &asset_only,
               &error) == CROWD_OK);
    CHECK(crowd_renderer_clip_count(r) == 3);
    crowd_renderer_clip clip;
    CHECK(crowd_renderer_get_clip(r, 2, &clip) && strcmp(clip.name, "drop") == 0 && !clip.loop &&
          clip.duration_s == 0.5f);
    CHECK(!crowd_renderer_get_clip(r, 3, &clip));
    CHECK(crowd_renderer_find_clip(r, "slide") == 1);
    CHECK(crowd_renderer_find_clip(r, "nope") == -1);
    CHECK(crowd_renderer_find_clip(r, NULL) == -1);
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        CHECK(crowd_renderer_has_mode(r, (crowd_gpu_mode)m));
        CHECK(crowd_renderer_has_mode(asset_only, (crowd_gpu_mode)m) == (m <= CROWD_GPU_MODE_GPU));
    }
    CHECK(crowd_renderer_set_mode(asset_only, CROWD_GPU_MODE_BAT, &error) ==
          CROWD_ERROR_UNSUPPORTED);
    CHECK(crowd_renderer_mode(asset_only) == CROWD_GPU_MODE_STATIC);
    CHECK(crowd_renderer_set_mode(r, (crowd_gpu_mode)9, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_renderer_set_mode(NULL, CROWD_GPU_MODE_GPU, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    float min[3], max[3];
    crowd_renderer_bind_bounds(r, min, max);
    CHECK_NEAR(min[0], -0.25, 1e-6);
    CHECK_NEAR(max[1], 2.0, 1e-6);
    CHECK(!crowd_renderer_instance_bounds(r, min, max));
    crowd_instance_id id;
    crowd_instance_desc desc = {.position = {3, 0, 0}, .heading_rad = 1.5707963f, .scale = 2};
    CHECK(crowd_instance_add(r, &desc, &id, &error) == CROWD_OK);
    CHECK(crowd_renderer_instance_bounds(r, min, max));
    /* Turned 90 degrees about +Y and doubled: x spans 3 +- 0.5, y 0..4. */
    CHECK_NEAR(min[0], 2.5, 1e-5);
    CHECK_NEAR(max[0], 3.5, 1e-5);
    CHECK_NEAR(max[1], 4.0, 1e-5);
    crowd_renderer_set_time(r, 12.5);
    CHECK(crowd_renderer_time(r) == 12.5);
    crowd_renderer_set_time(r, NAN);
    CHECK(crowd_renderer_time(r) == 12.5);
    crowd_renderer_destroy(asset_only);
    crowd_renderer_destroy(r);
}

static void test_instance_errors(const crowd_asset *bar, const crowd_bake *bake) {
    crowd_renderer *r = NULL;
    crowd_error error;
    REQUIRE_VOID(make((crowd_renderer_desc){.context = gpu_test_context,
                                            .asset = bar,
                                            .bake = bake,
                                            .max_instances = 2},
                      &r, &error) == CROWD_OK);
    crowd_instance_id a = 0, b = 0, c = 0;
    crowd_instance_desc desc = {0};
    CHECK(crowd_instance_add(r, NULL, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_add(r, &desc, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_add(NULL, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    desc.clip = 3;
    CHECK(crowd_instance_add(r, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.reason, "clip 3") != NULL);
    desc = (crowd_instance_desc){.position = {0, NAN, 0}};
    CHECK(crowd_instance_add(r, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    desc = (crowd_instance_desc){.speed = INFINITY};
    CHECK(crowd_instance_add(r, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    desc = (crowd_instance_desc){.scale = -1.0f};
    CHECK(crowd_instance_add(r, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    desc = (crowd_instance_desc){.loop = (crowd_loop_mode)7};
    CHECK(crowd_instance_add(r, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    desc = (crowd_instance_desc){.tint = {1, 1, NAN, 1}};
    CHECK(crowd_instance_add(r, &desc, &a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_renderer_instance_count(r) == 0);
    desc = (crowd_instance_desc){0};
    CHECK(crowd_instance_add(r, &desc, &a, &error) == CROWD_OK && a != 0);
    CHECK(crowd_instance_add(r, &desc, &b, &error) == CROWD_OK && b != 0 && b != a);
    CHECK(crowd_instance_add(r, &desc, &c, &error) == CROWD_ERROR_LIMIT && c == 0);
    CHECK(strstr(error.reason, "2") != NULL);
    CHECK(crowd_instance_play(r, a, 3, 0.2f, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_play(r, a, 1, -0.1f, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_play(r, a, 1, NAN, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_set_speed(r, a, NAN, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    const float nan_position[3] = {NAN, 0, 0}, position[3] = {1, 0, 0};
    CHECK(crowd_instance_set_transform(r, a, nan_position, 0, 1, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_set_transform(r, a, NULL, 0, 1, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_set_transform(r, a, position, 0, -2, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    desc.clip = 9;
    CHECK(crowd_instance_update(r, a, &desc, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    /* Stale, zero and made-up ids. */
    CHECK(crowd_instance_remove(r, a, &error) == CROWD_OK);
    CHECK(crowd_instance_remove(r, a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.reason, "does not exist") != NULL);
    CHECK(crowd_instance_update(r, a, &(crowd_instance_desc){0}, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_play(r, a, 0, 0.0f, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_set_speed(r, 0, 1.0f, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_set_transform(r, 0xffffffffu, position, 0, 1, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    /* The slot is reused with a new generation: the old id stays dead. */
    CHECK(crowd_instance_add(r, &(crowd_instance_desc){0}, &c, &error) == CROWD_OK && c != a);
    CHECK(crowd_instance_remove(r, a, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_instance_remove(r, b, &error) == CROWD_OK &&
          crowd_instance_remove(r, c, &error) == CROWD_OK);
    CHECK(crowd_renderer_instance_count(r) == 0);
    /* Frames and pixels. */
    crowd_frame_desc frame = {.time_s = 0.0, .camera = {.eye = {0, 1, 5}, .target = {0, 1, 5}}};
    CHECK(crowd_renderer_draw(r, &frame, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.reason, "camera") != NULL);
    frame.camera.eye[2] = 6.0f;
    frame.time_s = NAN;
    CHECK(crowd_renderer_draw(r, &frame, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_renderer_draw(r, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    frame.time_s = 1.0;
    frame.camera.fov_y_rad = 3.5f;
    CHECK(crowd_renderer_draw(r, &frame, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    frame.camera.fov_y_rad = 0.0f;
    CHECK(crowd_renderer_draw(r, &frame, &error) == CROWD_OK);
    uint8_t small[16];
    CHECK(crowd_renderer_read_pixels(r, small, sizeof small, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_renderer_read_pixels(r, NULL, 1u << 20, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_renderer_present(r, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    /* Resizing: 0 and 100000 refused, the old target kept. */
    CHECK(crowd_renderer_resize(r, 0, 10, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_renderer_resize(r, 100000, 10, &error) == CROWD_ERROR_LIMIT);
    uint32_t w, h;
    crowd_renderer_size(r, &w, &h);
    CHECK(w == GPU_TEST_WIDTH && h == GPU_TEST_HEIGHT);
    CHECK(crowd_renderer_resize(r, 64, 32, &error) == CROWD_OK);
    crowd_renderer_size(r, &w, &h);
    CHECK(w == 64 && h == 32);
    uint8_t *pixels = malloc(64 * 32 * 4);
    CHECK(crowd_renderer_draw(r, &frame, &error) == CROWD_OK);
    CHECK(pixels != NULL && crowd_renderer_read_pixels(r, pixels, 64 * 32 * 4, &error) == CROWD_OK);
    /* Nothing drawn but the clear colour: every pixel equal, opaque. */
    for (int i = 0; pixels != NULL && i < 64 * 32; i++) {
        if (memcmp(pixels + 4 * i, pixels, 4) != 0 || pixels[4 * i + 3] != 255) {
            CHECK_MSG(false, "pixel %d differs from the clear colour", i);
            break;
        }
    }
    free(pixels);
    crowd_renderer_destroy(r);
}

/* Sizes from the layouts in src/gpu (mesh sections, 112-byte instance
 * records: seven 16-byte per-instance attributes, 32-byte materials) and
 * GL's texel sizes. */
static void test_memory(const crowd_asset *bar, const crowd_bake *bake) {
    crowd_renderer *r = NULL;
    crowd_error error;
    REQUIRE_VOID(
        make((crowd_renderer_desc){.context = gpu_test_context, .asset = bar, .bake = bake}, &r,
             &error) == CROWD_OK);
    uint64_t v = bar->mesh.vertex_count, j = bar->skeleton.joint_count;
    uint64_t mesh = v * (12 + 12 + 8 + 8 + 16) + 4 * ((v + 1) / 2) + 4ull * bar->mesh.index_count;
    uint64_t materials = 2 * 32 + (2 * 2 + 1 * 1) * 4; /* 2x2 texture array, 2 mip levels */
    uint64_t target = 8ull * GPU_TEST_WIDTH * GPU_TEST_HEIGHT;
    uint64_t instances = 64 * 112; /* first capacity: 64 records */
    uint64_t base = mesh + materials + target + instances;
    crowd_renderer_stats stats;
    crowd_renderer_get_stats(r, &stats);
    CHECK_MSG(stats.gpu_memory_bytes == base, "static: %llu bytes, expected %llu",
              (unsigned long long)stats.gpu_memory_bytes, (unsigned long long)base);
    uint64_t vat = 8ull * bake->vat_position.width * bake->vat_position.height;
    uint64_t bat = 16ull * bake->bat.width * bake->bat.height;
    crowd_instance_id id;
    CHECK(crowd_instance_add(r, &(crowd_instance_desc){0}, &id, &error) == CROWD_OK);
    crowd_frame_desc frame = {.time_s = 0.3, .camera = {.eye = {0, 1, 6}, .target = {0, 1, 0}}};
    const struct {
        crowd_gpu_mode mode;
        uint64_t extra;
    } expected[5] = {{CROWD_GPU_MODE_VAT, vat},
                     {CROWD_GPU_MODE_BAT, bat},
                     {CROWD_GPU_MODE_GPU, 64 * j * 48},
                     {CROWD_GPU_MODE_CPU, 64 * v * 24},
                     {CROWD_GPU_MODE_STATIC, 0}};
    for (int e = 0; e < 5; e++) {
        CHECK(crowd_renderer_set_mode(r, expected[e].mode, &error) == CROWD_OK);
        CHECK(crowd_renderer_draw(r, &frame, &error) == CROWD_OK);
        crowd_renderer_get_stats(r, &stats);
        CHECK_MSG(stats.gpu_memory_bytes == base + expected[e].extra,
                  "%s: %llu bytes, expected %llu", crowd_gpu_mode_name(expected[e].mode),
                  (unsigned long long)stats.gpu_memory_bytes,
                  (unsigned long long)(base + expected[e].extra));
    }
    /* 65 instances double the record buffer to 128. */
    for (int i = 0; i < 64; i++) {
        CHECK(crowd_instance_add(r, &(crowd_instance_desc){0}, &id, &error) == CROWD_OK);
    }
    crowd_renderer_get_stats(r, &stats);
    CHECK(stats.gpu_memory_bytes == base + 64 * 112);
    CHECK(crowd_renderer_resize(r, 10, 10, &error) == CROWD_OK);
    crowd_renderer_get_stats(r, &stats);
    CHECK(stats.gpu_memory_bytes == base + 64 * 112 - target + 800);
    crowd_renderer_destroy(r);
}

/* PNG round trip through libpng, and the failure paths. */
static void test_png(void) {
    const uint8_t pixels[2 * 3 * 4] = {255, 0, 0, 255, 0,  255, 0,  255, 0,   0,   255, 255,
                                       1,   2, 3, 4,   10, 20,  30, 40,  200, 201, 202, 203};
    crowd_error error;
    CHECK(crowd_image_write_png("gpu_api_roundtrip.png", 3, 2, pixels, &error) == CROWD_OK);
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    uint8_t back[24] = {0};
    CHECK(png_image_begin_read_from_file(&image, "gpu_api_roundtrip.png"));
    image.format = PNG_FORMAT_RGBA;
    CHECK(image.width == 3 && image.height == 2);
    CHECK(png_image_finish_read(&image, NULL, back, 0, NULL));
    CHECK(memcmp(back, pixels, sizeof back) == 0);
    CHECK(crowd_image_write_png("/nonexistent-dir/x.png", 3, 2, pixels, &error) ==
          CROWD_ERROR_OUTPUT);
    CHECK(strstr(error.file, "/nonexistent-dir/x.png") != NULL);
    CHECK(crowd_image_write_png("gpu_api_zero.png", 0, 2, pixels, &error) ==
          CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(crowd_image_write_png(NULL, 3, 2, pixels, &error) == CROWD_ERROR_INVALID_ARGUMENT);
    CHECK(access("gpu_api_zero.png", F_OK) != 0);
}

/* A bake written and loaded back plays static, bat and vat (not cpu, gpu)
 * and draws what the bake in memory draws. */
static void test_loaded_bake(const crowd_asset *bar, const crowd_bake *bake) {
    crowd_error error;
    char dir[] = "gpu_api_bake_XXXXXX";
    REQUIRE_VOID(mkdtemp(dir) != NULL);
    crowd_bake *loaded = NULL;
    CHECK_MSG(crowd_bake_write(bake, dir, NULL, &error) == CROWD_OK, "%s", error.reason);
    CHECK_MSG(crowd_bake_load(dir, NULL, &loaded, &error) == CROWD_OK, "%s", error.reason);
    if (loaded != NULL) {
        crowd_renderer *from_disk = gpu_test_renderer(NULL, loaded, CROWD_GPU_MODE_STATIC);
        crowd_renderer *in_memory = gpu_test_renderer(bar, bake, CROWD_GPU_MODE_STATIC);
        REQUIRE_VOID(from_disk != NULL && in_memory != NULL);
        CHECK(!crowd_renderer_has_mode(from_disk, CROWD_GPU_MODE_CPU));
        CHECK(!crowd_renderer_has_mode(from_disk, CROWD_GPU_MODE_GPU));
        CHECK(crowd_renderer_set_mode(from_disk, CROWD_GPU_MODE_CPU, &error) ==
              CROWD_ERROR_UNSUPPORTED);
        CHECK(strstr(error.reason, "bake folder") != NULL);
        CHECK(crowd_renderer_clip_count(from_disk) == 3);
        crowd_instance_id id;
        crowd_instance_desc desc = {.clip = 0, .time_offset_s = 0.1f};
        CHECK(crowd_instance_add(from_disk, &desc, &id, &error) == CROWD_OK);
        CHECK(crowd_instance_add(in_memory, &desc, &id, &error) == CROWD_OK);
        const float min[3] = {-1.8f, 0, -0.8f}, max[3] = {1.8f, 2.1f, 0.8f};
        crowd_camera camera;
        crowd_camera_frame_box(min, max, (float)GPU_TEST_WIDTH / GPU_TEST_HEIGHT, &camera);
        const crowd_gpu_mode modes[3] = {CROWD_GPU_MODE_STATIC, CROWD_GPU_MODE_BAT,
                                         CROWD_GPU_MODE_VAT};
        for (int m = 0; m < 3; m++) {
            CHECK(crowd_renderer_set_mode(from_disk, modes[m], &error) == CROWD_OK);
            CHECK(crowd_renderer_set_mode(in_memory, modes[m], &error) == CROWD_OK);
            uint8_t *a = gpu_test_render(from_disk, 0.3, &camera);
            uint8_t *b = gpu_test_render(in_memory, 0.3, &camera);
            if (a != NULL && b != NULL) {
                char what[64];
                snprintf(what, sizeof what, "loaded bake %s vs in memory",
                         crowd_gpu_mode_name(modes[m]));
                CHECK(gpu_test_close(what, b, a, 0.0005));
            }
            free(a);
            free(b);
        }
        crowd_renderer_destroy(from_disk);
        crowd_renderer_destroy(in_memory);
        crowd_bake_destroy(loaded);
    }
    char command[256];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    CHECK(system(command) == 0);
}

/* A window (under a display, e.g. xvfb-run): draw, present, read the
 * window's framebuffer back, poll, title. */
static void test_window(crowd_gpu_context *window) {
    crowd_gpu_context_info info;
    crowd_gpu_context_get_info(window, &info);
    printf("  window context: %s, %s\n", info.platform, info.renderer);
    CHECK(strcmp(info.platform, "GLFW") == 0);
    uint32_t w, h;
    crowd_gpu_window_size(window, &w, &h);
    CHECK(w == 64 && h == 64);
    crowd_asset *bar = fixture_bar_create();
    crowd_renderer_desc desc = {
        .context = window, .asset = bar, .mode = CROWD_GPU_MODE_GPU, .width = 64, .height = 64};
    crowd_renderer *r = NULL;
    crowd_error error;
    CHECK(bar != NULL && crowd_renderer_create(&desc, &r, &error) == CROWD_OK);
    crowd_instance_id id;
    CHECK(r != NULL && crowd_instance_add(r, &(crowd_instance_desc){0}, &id, &error) == CROWD_OK);
    crowd_frame_desc frame = {.time_s = 0.2, .camera = {.eye = {0, 1, 4}, .target = {0, 1, 0}}};
    uint8_t offscreen[64 * 64 * 4], shown[64 * 64 * 4];
    if (r != NULL && crowd_renderer_draw(r, &frame, &error) == CROWD_OK &&
        crowd_renderer_read_pixels(r, offscreen, sizeof offscreen, &error) == CROWD_OK) {
        CHECK(crowd_renderer_present(r, &error) == CROWD_OK);
        /* The window's back buffer now holds the frame (bottom-up rows). */
        glReadBuffer(GL_BACK);
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        glReadPixels(0, 0, 64, 64, GL_RGBA, GL_UNSIGNED_BYTE, shown);
        int mismatched = 0;
        for (int y = 0; y < 64; y++) {
            mismatched +=
                memcmp(offscreen + (size_t)y * 256, shown + (size_t)(63 - y) * 256, 256) != 0;
        }
        CHECK_MSG(mismatched == 0, "%d window rows differ from the offscreen frame", mismatched);
        crowd_gpu_window_swap(window);
    }
    crowd_gpu_window_set_title(window, "crowd test");
    crowd_window_input input;
    CHECK(crowd_gpu_window_poll(window, &input));
    CHECK(!input.close_requested && input.char_count == 0);
    crowd_renderer_destroy(r);
    crowd_asset_destroy(bar);
}

static void test_window_context(void) {
    /* Headless machines have no display: the error must say GLFW was tried.
     * With a display the window opens and closes. */
    crowd_gpu_context *window = NULL;
    crowd_error error;
    crowd_gpu_context_desc desc = {.window = true, .width = 64, .height = 64};
    crowd_result result = crowd_gpu_context_create(&desc, &window, &error);
    if (result == CROWD_OK) {
        test_window(window);
        crowd_gpu_context_destroy(window);
    } else {
        CHECK(result == CROWD_ERROR_GPU && window == NULL);
        CHECK_MSG(strstr(error.reason, "GLFW") != NULL, "%s", error.reason);
        printf("  window context: %s\n", error.reason);
    }
    CHECK(crowd_gpu_context_make_current(gpu_test_context, &error) == CROWD_OK);
    crowd_window_input input;
    CHECK(!crowd_gpu_window_poll(gpu_test_context, &input) && input.char_count == 0);
    CHECK(crowd_gpu_context_create(NULL, NULL, &error) == CROWD_ERROR_INVALID_ARGUMENT);
}

int test_gpu_api(void) {
    printf("api\n");
    crowd_asset *bar = fixture_bar_create();
    crowd_bake *bake = NULL;
    crowd_error error;
    REQUIRE(bar != NULL && crowd_bake_build(bar, NULL, &bake, &error) == CROWD_OK);
    test_modes_and_names();
    test_create_errors(bar, bake);
    test_queries_and_modes(bar, bake);
    test_instance_errors(bar, bake);
    test_memory(bar, bake);
    test_png();
    test_loaded_bake(bar, bake);
    test_window_context();
    crowd_bake_destroy(bake);
    crowd_asset_destroy(bar);
    return check_finish();
}
