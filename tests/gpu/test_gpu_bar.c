/* The hand-built bar (gpu_fixtures.h) in every mode: poses, crossfade,
 * phase, speed, loop modes, several instances, removal, draw calls and
 * uploads, against reference images of the CPU-posed mesh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/bake.h"
#include "gpu/internal.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

enum { BEND = 0, SLIDE = 1, DROP = 2 };

/* Every mode at three times of two clips against the reference; static
 * must differ from cpu whenever the pose moved away from the bind pose. */
static void test_poses(const crowd_asset *bar, const crowd_bake *bake) {
    printf("bar: poses\n");
    crowd_camera camera = gpu_test_bar_camera();
    gpu_scene s;
    REQUIRE_VOID(gpu_scene_create(bar, bake, CROWD_GPU_MODE_STATIC, &s));
    crowd_instance id;
    CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id, NULL) ==
          CROWD_OK);
    const int clips[2] = {BEND, SLIDE};
    const float times[3] = {0.2f, 0.55f, 1.1f};
    float palette[24];
    for (int c = 0; c < 2; c++) {
        crowd_instance_desc desc = {0};
        desc.clip = (uint32_t)clips[c];
        crowd_world_set_time(s.world, 0.0);
        CHECK(crowd_instance_update(s.world, id, &desc, NULL) == CROWD_OK);
        for (int k = 0; k < 3; k++) {
            float clip_time = fmodf(times[k], bar->clips[clips[c]].duration_s);
            fixture_pose(bar, clips[c], clip_time, -1, 0.0f, 0.0f, palette);
            uint8_t *reference = gpu_test_reference(bar, palette, &camera);
            uint8_t *images[CROWD_GPU_MODE_COUNT] = {0};
            char stem[64];
            snprintf(stem, sizeof stem, "bar_%s_%.2f", bar->clips[clips[c]].name, (double)times[k]);
            gpu_test_save(stem, "reference", reference);
            for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
                CHECK(crowd_archetype_set_mode(s.world, s.archetype, (crowd_gpu_mode)m, NULL) ==
                      CROWD_OK);
                images[m] = gpu_test_render(s.world, times[k], &camera);
                CHECK(images[m] != NULL);
                if (images[m] == NULL || reference == NULL) {
                    continue;
                }
                gpu_test_save(stem, crowd_gpu_mode_name((crowd_gpu_mode)m), images[m]);
                char what[96];
                snprintf(what, sizeof what, "%s %s vs reference", stem,
                         crowd_gpu_mode_name((crowd_gpu_mode)m));
                if (m == CROWD_GPU_MODE_STATIC) {
                    CHECK(gpu_test_different(what, reference, images[m], 0.1));
                } else {
                    CHECK(gpu_test_close(what, reference, images[m],
                                         gpu_test_tolerance((crowd_gpu_mode)m)));
                }
            }
            for (int m = CROWD_GPU_MODE_GPU; m < CROWD_GPU_MODE_COUNT; m++) {
                char what[96];
                snprintf(what, sizeof what, "%s %s vs cpu", stem,
                         crowd_gpu_mode_name((crowd_gpu_mode)m));
                if (images[m] != NULL && images[CROWD_GPU_MODE_CPU] != NULL) {
                    CHECK(gpu_test_close(what, images[CROWD_GPU_MODE_CPU], images[m],
                                         gpu_test_tolerance((crowd_gpu_mode)m)));
                }
            }
            for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
                free(images[m]);
            }
            free(reference);
        }
    }
    gpu_scene_destroy(&s);
}

/* bend playing from 0; at 0.05 s play slide with a 0.3 s fade: at 0.2 s the
 * fade is half way, bend at 0.2 s and slide at 0.15 s blended 50/50. */
static void test_crossfade(const crowd_asset *bar, const crowd_bake *bake) {
    printf("bar: crossfade\n");
    crowd_camera camera = gpu_test_bar_camera();
    float palette[24];
    fixture_pose(bar, BEND, 0.2f, SLIDE, 0.15f, 0.5f, palette);
    uint8_t *reference = gpu_test_reference(bar, palette, &camera);
    fixture_pose(bar, SLIDE, 0.15f, -1, 0.0f, 0.0f, palette);
    uint8_t *unfaded = gpu_test_reference(bar, palette, &camera);
    REQUIRE_VOID(reference != NULL && unfaded != NULL);
    gpu_test_save("bar_fade", "reference", reference);
    for (int m = CROWD_GPU_MODE_CPU; m < CROWD_GPU_MODE_COUNT; m++) {
        gpu_scene s;
        if (!gpu_scene_create(bar, bake, (crowd_gpu_mode)m, &s)) {
            CHECK(false);
            continue;
        }
        crowd_instance id;
        CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){.clip = BEND},
                                       &id, NULL) == CROWD_OK);
        crowd_world_set_time(s.world, 0.05);
        CHECK(crowd_instance_play(s.world, id, SLIDE, 0.3f, NULL) == CROWD_OK);
        uint8_t *image = gpu_test_render(s.world, 0.2, &camera);
        const char *name = crowd_gpu_mode_name((crowd_gpu_mode)m);
        if (image != NULL) {
            char what[64];
            gpu_test_save("bar_fade", name, image);
            snprintf(what, sizeof what, "fade %s vs blended reference", name);
            CHECK(gpu_test_close(what, reference, image,
                                 m == CROWD_GPU_MODE_BAT || m == CROWD_GPU_MODE_VAT
                                     ? GPU_TEST_FADE_BAKED
                                     : GPU_TEST_EXACT));
            snprintf(what, sizeof what, "fade %s vs slide alone", name);
            CHECK(gpu_test_different(what, unfaded, image, 0.05));
        }
        free(image);
        /* After the fade only slide shows: at 0.5 s slide is at 0.45 s. */
        fixture_pose(bar, SLIDE, 0.45f, -1, 0.0f, 0.0f, palette);
        uint8_t *after_ref = gpu_test_reference(bar, palette, &camera);
        uint8_t *after = gpu_test_render(s.world, 0.5, &camera);
        if (after != NULL && after_ref != NULL) {
            char what[64];
            snprintf(what, sizeof what, "after fade %s vs slide", name);
            CHECK(gpu_test_close(what, after_ref, after, gpu_test_tolerance((crowd_gpu_mode)m)));
        }
        free(after);
        free(after_ref);
        gpu_scene_destroy(&s);
    }
    free(reference);
    free(unfaded);
}

static bool same_pixels(const char *what, const uint8_t *a, const uint8_t *b) {
    bool same = a != NULL && b != NULL && memcmp(a, b, GPU_TEST_PIXELS * 4) == 0;
    printf("  %-40s %s\n", what, same ? "identical" : "DIFFERENT");
    return same;
}

/* The world's record of an archetype (src/gpu/internal.h), found by handle. */
static gpu_archetype *archetype_of(crowd_world *world, crowd_archetype archetype) {
    for (uint32_t i = 0; i < CROWD_WORLD_MAX_ARCHETYPES; i++) {
        if (world->archetypes[i] != NULL && world->archetypes[i]->handle == archetype.id) {
            return world->archetypes[i];
        }
    }
    return NULL;
}

/* bat and vat draw with a build without the crossfade code once the clock
 * has passed every fade's end (the archetype's fade_end_s). Forcing the
 * other build through that field: during a fade the plain build must differ
 * (it shows the new clip alone), after it and from the first float time at
 * or past the end both builds must give identical pixels. Two instances, one
 * fading from bend to slide at 0.05 s over 0.3 s, one playing drop. */
static void test_fade_builds(const crowd_asset *bar, const crowd_bake *bake) {
    printf("bar: the builds with and without crossfade\n");
    crowd_camera camera = gpu_test_bar_camera();
    for (int m = CROWD_GPU_MODE_BAT; m <= CROWD_GPU_MODE_VAT; m++) {
        const char *name = crowd_gpu_mode_name((crowd_gpu_mode)m);
        gpu_scene s;
        REQUIRE_VOID(gpu_scene_create(bar, bake, (crowd_gpu_mode)m, &s));
        gpu_archetype *r = archetype_of(s.world, s.archetype);
        REQUIRE_VOID(r != NULL);
        crowd_instance fading, other;
        CHECK(crowd_world_add_instance(
                  s.world, s.archetype,
                  &(crowd_instance_desc){.position = {-0.6f, 0, 0}, .clip = BEND}, &fading,
                  NULL) == CROWD_OK);
        CHECK(
            crowd_world_add_instance(s.world, s.archetype,
                                     &(crowd_instance_desc){.position = {0.6f, 0, 0}, .clip = DROP},
                                     &other, NULL) == CROWD_OK);
        CHECK(!crowd__gpu_crossfade_running(r, 0.0f));
        crowd_world_set_time(s.world, 0.05);
        CHECK(crowd_instance_play(s.world, fading, SLIDE, 0.3f, NULL) == CROWD_OK);
        double end = r->instances.fade_end_s;
        CHECK_MSG(end > 0.35 && end < 0.35 + 1e-6, "%s: fade end %.9f", name, end);
        CHECK(crowd__gpu_crossfade_running(r, 0.2f) && crowd__gpu_crossfade_running(r, 0.0f));

        char what[96];
        uint8_t *fade = gpu_test_render(s.world, 0.2, &camera);
        r->instances.fade_end_s = -INFINITY;
        uint8_t *plain = gpu_test_render(s.world, 0.2, &camera);
        r->instances.fade_end_s = end;
        snprintf(what, sizeof what, "%s mid-fade: plain build vs fade build", name);
        CHECK(fade != NULL && plain != NULL && gpu_test_different(what, fade, plain, 0.05));
        free(fade);
        free(plain);

        /* After the fade, and from the first float time the world counts
         * as past it (the one before still fades). */
        float first = (float)end;
        first = (double)first < end ? nextafterf(first, INFINITY) : first;
        CHECK(crowd__gpu_crossfade_running(r, nextafterf(first, 0.0f)));
        const double times[2] = {0.5, first};
        for (int k = 0; k < 2; k++) {
            CHECK(!crowd__gpu_crossfade_running(r, (float)times[k]));
            uint8_t *automatic = gpu_test_render(s.world, times[k], &camera);
            r->instances.fade_end_s = INFINITY;
            uint8_t *forced = gpu_test_render(s.world, times[k], &camera);
            r->instances.fade_end_s = end;
            snprintf(what, sizeof what, "%s at %.9f s: plain build vs fade build", name, times[k]);
            CHECK(same_pixels(what, automatic, forced));
            free(automatic);
            free(forced);
        }
        /* Replacing the state ends the fade but not the archetype's record
         * of it; with no instance left nothing can fade. */
        CHECK(crowd_instance_update(s.world, fading, &(crowd_instance_desc){.clip = BEND}, NULL) ==
              CROWD_OK);
        CHECK(r->instances.fade_end_s == end);
        CHECK(crowd_world_remove_instance(s.world, fading, NULL) == CROWD_OK);
        CHECK(r->instances.fade_end_s == end);
        CHECK(crowd_world_remove_instance(s.world, other, NULL) == CROWD_OK);
        CHECK(r->instances.fade_end_s == -INFINITY && !crowd__gpu_crossfade_running(r, -1e30f));
        CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &fading,
                                       NULL) == CROWD_OK);
        CHECK(crowd_instance_play(s.world, fading, SLIDE, 0.0f, NULL) == CROWD_OK);
        CHECK(r->instances.fade_end_s == -INFINITY);
        CHECK(crowd_instance_play(s.world, fading, DROP, 1.0f, NULL) == CROWD_OK);
        CHECK(r->instances.fade_end_s > 1.05 && crowd__gpu_crossfade_running(r, 1.0f));
        crowd_world_clear_instances(s.world);
        CHECK(r->instances.fade_end_s == -INFINITY);
        gpu_scene_destroy(&s);
    }
}

/* Left half of `left` and right half of `right`. */
static uint8_t *composite(const uint8_t *left, const uint8_t *right) {
    uint8_t *out = malloc(GPU_TEST_WIDTH * GPU_TEST_HEIGHT * 4);
    if (out == NULL) {
        return NULL;
    }
    for (uint32_t y = 0; y < GPU_TEST_HEIGHT; y++) {
        size_t row = (size_t)y * GPU_TEST_WIDTH * 4, half = GPU_TEST_WIDTH * 2;
        memcpy(out + row, left + row, half);
        memcpy(out + row + half, right + row + half, half);
    }
    return out;
}

static uint8_t *reference_at(const crowd_asset *bar, int clip, float t, float x, float heading,
                             const crowd_camera *camera) {
    float palette[24];
    fixture_pose(bar, clip, t, -1, 0.0f, 0.0f, palette);
    const float position[3] = {x, 0.0f, 0.0f};
    return gpu_test_reference_at(bar, palette, position, heading, camera);
}

/* Two instances side by side, bending away from each other (the right one
 * turned by 180 degrees): bend with offsets 0 and 0.3, different poses in
 * one frame; then speed 0 holding its frame, speed 2, and the
 * loop overrides of a one-shot and a looping clip. */
static void test_phase_speed(const crowd_asset *bar, const crowd_bake *bake) {
    printf("bar: phase, speed, loop modes\n");
    crowd_camera camera = gpu_test_bar_camera();
    const float pi = 3.14159265f;
    uint8_t *left = reference_at(bar, BEND, 0.2f, -0.6f, 0.0f, &camera);
    uint8_t *right = reference_at(bar, BEND, 0.5f, 0.6f, pi, &camera);
    uint8_t *pair = left && right ? composite(left, right) : NULL;
    uint8_t *held = reference_at(bar, BEND, 0.3f, 0.0f, 0.0f, &camera);
    uint8_t *fast = reference_at(bar, BEND, 0.4f, 0.0f, 0.0f, &camera);
    uint8_t *drop_end = reference_at(bar, DROP, 0.5f, 0.0f, 0.0f, &camera);
    uint8_t *drop_looped = reference_at(bar, DROP, 0.2f, 0.0f, 0.0f, &camera);
    uint8_t *bend_clamped = reference_at(bar, BEND, 1.0f, 0.0f, 0.0f, &camera);
    REQUIRE_VOID(pair && held && fast && drop_end && drop_looped && bend_clamped);
    gpu_test_save("bar_pair", "reference", pair);
    for (int m = CROWD_GPU_MODE_CPU; m < CROWD_GPU_MODE_COUNT; m++) {
        const char *name = crowd_gpu_mode_name((crowd_gpu_mode)m);
        double tol = gpu_test_tolerance((crowd_gpu_mode)m);
        gpu_scene s;
        if (!gpu_scene_create(bar, bake, (crowd_gpu_mode)m, &s)) {
            CHECK(false);
            continue;
        }
        crowd_instance a, b;
        crowd_instance_desc left_desc = {.position = {-0.6f, 0, 0}};
        crowd_instance_desc right_desc = {
            .position = {0.6f, 0, 0}, .heading_rad = pi, .time_offset_s = 0.3f};
        CHECK(crowd_world_add_instance(s.world, s.archetype, &left_desc, &a, NULL) == CROWD_OK);
        CHECK(crowd_world_add_instance(s.world, s.archetype, &right_desc, &b, NULL) == CROWD_OK);
        uint8_t *image = gpu_test_render(s.world, 0.2, &camera);
        char what[80];
        if (image != NULL) {
            gpu_test_save("bar_pair", name, image);
            snprintf(what, sizeof what, "%s: offsets 0 and 0.3 side by side", name);
            CHECK(gpu_test_close(what, pair, image, tol));
        }
        free(image);
        CHECK(crowd_world_remove_instance(s.world, a, NULL) == CROWD_OK);
        /* Paused at 0.3 s: the same frame at 0.2 s and 0.9 s. */
        crowd_instance_desc desc = {.time_offset_s = 0.3f, .paused = true};
        CHECK(crowd_instance_update(s.world, b, &desc, NULL) == CROWD_OK);
        for (int k = 0; k < 2; k++) {
            image = gpu_test_render(s.world, k == 0 ? 0.2 : 0.9, &camera);
            if (image != NULL) {
                snprintf(what, sizeof what, "%s: paused at 0.3 s, drawn at %.1f s", name,
                         k == 0 ? 0.2 : 0.9);
                CHECK(gpu_test_close(what, held, image, tol));
            }
            free(image);
        }
        /* Speed 2 from the clock (0.9 s): at 1.1 s the clip is at 0.4 s. */
        desc = (crowd_instance_desc){.speed = 2.0f};
        CHECK(crowd_instance_update(s.world, b, &desc, NULL) == CROWD_OK);
        image = gpu_test_render(s.world, 1.1, &camera);
        if (image != NULL) {
            snprintf(what, sizeof what, "%s: speed 2", name);
            CHECK(gpu_test_close(what, fast, image, tol));
        }
        free(image);
        /* set_speed(0) at 1.1 s holds clip time 0.4 s without a jump. */
        CHECK(crowd_instance_set_speed(s.world, b, 0.0f, NULL) == CROWD_OK);
        image = gpu_test_render(s.world, 5.0, &camera);
        if (image != NULL) {
            snprintf(what, sizeof what, "%s: set_speed 0 holds", name);
            CHECK(gpu_test_close(what, fast, image, tol));
        }
        free(image);
        /* One-shot drop (0.5 s) clamps; forced to loop it wraps. Looping
         * bend forced to play once holds its end. */
        const struct {
            uint32_t clip;
            crowd_loop_mode loop;
            const uint8_t *expected;
            const char *label;
        } cases[3] = {{DROP, CROWD_LOOP_CLIP, drop_end, "drop clamps at its end"},
                      {DROP, CROWD_LOOP_ON, drop_looped, "drop forced to loop wraps"},
                      {BEND, CROWD_LOOP_OFF, bend_clamped, "bend forced once holds its end"}};
        for (int c = 0; c < 3; c++) {
            crowd_world_set_time(s.world, 0.0);
            desc = (crowd_instance_desc){.clip = cases[c].clip, .loop = cases[c].loop};
            CHECK(crowd_instance_update(s.world, b, &desc, NULL) == CROWD_OK);
            image = gpu_test_render(s.world, c == 2 ? 1.3 : 0.7, &camera);
            if (image != NULL) {
                snprintf(what, sizeof what, "%s: %s", name, cases[c].label);
                CHECK(gpu_test_close(what, cases[c].expected, image, tol));
            }
            free(image);
        }
        gpu_scene_destroy(&s);
    }
    free(left);
    free(right);
    free(pair);
    free(held);
    free(fast);
    free(drop_end);
    free(drop_looped);
    free(bend_clamped);
}

/* Updates to time_s, draws `passes` passes, and returns the stats. */
static crowd_world_stats frame_stats(crowd_world *world, double time_s, const crowd_camera *camera,
                                     int passes) {
    CHECK(crowd_world_update(world, time_s, NULL) == CROWD_OK);
    for (int p = 0; p < passes; p++) {
        crowd_draw_desc desc =
            gpu_test_draw_desc(camera, p == 0 ? CROWD_PASS_COLOR : CROWD_PASS_DEPTH);
        CHECK(crowd_world_draw(world, &desc, NULL) == CROWD_OK);
    }
    crowd_world_stats stats;
    crowd_world_get_stats(world, &stats);
    return stats;
}

/* Draw calls: 1 per pass in every instanced mode at any count, one per
 * character in cpu mode. Uploads: nothing changes -> nothing sent in static,
 * bat, vat; one changed instance -> one 40-byte record; gpu sends every
 * palette and cpu every skinned vertex each frame, once whatever the number
 * of passes. */
static void test_draw_calls_uploads(const crowd_asset *bar, const crowd_bake *bake) {
    printf("bar: draw calls and uploads\n");
    crowd_camera camera = gpu_test_bar_camera();
    gpu_scene s;
    REQUIRE_VOID(gpu_scene_create(bar, bake, CROWD_GPU_MODE_STATIC, &s));
    const uint32_t counts[3] = {1, 4, 9};
    crowd_instance first = {0};
    uint32_t added = 0;
    for (int c = 0; c < 3; c++) {
        for (; added < counts[c]; added++) {
            crowd_instance_desc desc = {.position = {(float)added * 0.3f - 1.2f, 0, 0},
                                        .clip = added % 3,
                                        .time_offset_s = 0.1f * (float)added};
            crowd_instance id;
            CHECK(crowd_world_add_instance(s.world, s.archetype, &desc, &id, NULL) == CROWD_OK);
            first = first.id != 0 ? first : id;
        }
        for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
            const char *name = crowd_gpu_mode_name((crowd_gpu_mode)m);
            CHECK(crowd_archetype_set_mode(s.world, s.archetype, (crowd_gpu_mode)m, NULL) ==
                  CROWD_OK);
            frame_stats(s.world, 0.25, &camera, 1);
            crowd_world_stats stats = frame_stats(s.world, 0.25, &camera, 1);
            uint32_t expected = m == CROWD_GPU_MODE_CPU ? counts[c] : 1;
            CHECK_MSG(stats.draw_calls == expected, "%s, %u instances: %u draw calls", name,
                      (unsigned)counts[c], (unsigned)stats.draw_calls);
            CHECK(stats.passes == 1);
            CHECK(stats.instance_count == counts[c] && stats.archetype_count == 1);
            crowd_gpu_mode now = CROWD_GPU_MODE_COUNT;
            CHECK(crowd_archetype_get_mode(s.world, s.archetype, &now) && now == (crowd_gpu_mode)m);
            CHECK(stats.vertices_drawn == (uint64_t)counts[c] * bar->mesh.index_count);
            /* Times are gathered only when the world was made with timing. */
            CHECK(stats.cpu_time_s == 0.0 && stats.gpu_time_s == 0.0);
            uint64_t per_frame = m == CROWD_GPU_MODE_CPU   ? 24ull * bar->mesh.vertex_count
                                 : m == CROWD_GPU_MODE_GPU ? 48ull * bar->skeleton.joint_count
                                                           : 0;
            CHECK_MSG(stats.uploaded_bytes == per_frame * counts[c],
                      "%s: %llu bytes uploaded in a frame without changes", name,
                      (unsigned long long)stats.uploaded_bytes);
            const float moved[3] = {0.1f, 0.0f, 0.2f};
            CHECK(crowd_instance_set_transform(s.world, first, moved, 0.5f, 1.0f, NULL) ==
                  CROWD_OK);
            stats = frame_stats(s.world, 0.25, &camera, 1);
            CHECK_MSG(stats.uploaded_bytes == per_frame * counts[c] + sizeof(gpu_instance_record),
                      "%s: one moved instance: %llu bytes", name,
                      (unsigned long long)stats.uploaded_bytes);
            /* A depth pass besides: as many draws again, no more uploads. */
            stats = frame_stats(s.world, 0.25, &camera, 2);
            CHECK_MSG(stats.passes == 2 && stats.draw_calls == 2 * expected &&
                          stats.vertices_drawn == 2ull * counts[c] * bar->mesh.index_count &&
                          stats.uploaded_bytes == per_frame * counts[c],
                      "%s, two passes: %u passes, %u draws, %llu bytes", name,
                      (unsigned)stats.passes, (unsigned)stats.draw_calls,
                      (unsigned long long)stats.uploaded_bytes);
        }
    }
    gpu_scene_destroy(&s);
}

/* Removing moves the last record into the hole: the frame must equal one
 * drawn with only the survivors, and the moved instance keeps its handle. */
static void test_remove(const crowd_asset *bar, const crowd_bake *bake) {
    printf("bar: remove\n");
    crowd_camera camera = gpu_test_bar_camera();
    gpu_scene s, expect;
    REQUIRE_VOID(gpu_scene_create(bar, bake, CROWD_GPU_MODE_BAT, &s));
    if (!gpu_scene_create(bar, bake, CROWD_GPU_MODE_BAT, &expect)) {
        gpu_scene_destroy(&s);
        REQUIRE_VOID(false);
    }
    crowd_instance ids[3], kept[2];
    /* Apart in depth too: coplanar faces of overlapping bars would depend
     * on draw order. */
    const float xs[3] = {-1.0f, 0.0f, 1.0f}, zs[3] = {0.0f, -0.6f, 0.6f};
    for (int i = 0; i < 3; i++) {
        crowd_instance_desc desc = {.position = {xs[i], 0, zs[i]},
                                    .clip = (uint32_t)i % 2,
                                    .time_offset_s = 0.2f * (float)i};
        CHECK(crowd_world_add_instance(s.world, s.archetype, &desc, &ids[i], NULL) == CROWD_OK);
        if (i > 0) {
            CHECK(crowd_world_add_instance(expect.world, expect.archetype, &desc, &kept[i - 1],
                                           NULL) == CROWD_OK);
        }
    }
    CHECK(crowd_world_remove_instance(s.world, ids[0], NULL) == CROWD_OK);
    CHECK(crowd_world_instance_count(s.world) == 2);
    CHECK(crowd_world_remove_instance(s.world, ids[0], NULL) == CROWD_ERROR_INVALID_ARGUMENT);
    uint8_t *got = gpu_test_render(s.world, 0.4, &camera);
    uint8_t *want = gpu_test_render(expect.world, 0.4, &camera);
    if (got != NULL && want != NULL) {
        image_diff d = image_compare(want, got, GPU_TEST_WIDTH, GPU_TEST_HEIGHT, 0);
        CHECK_MSG(d.differing == 0, "%u pixels differ after remove", (unsigned)d.differing);
    }
    free(got);
    free(want);
    /* The moved instance (ids[2]) is still addressable. */
    const float pos[3] = {1.0f, 0.0f, 0.0f};
    CHECK(crowd_instance_set_transform(s.world, ids[2], pos, 0.0f, 0.0f, NULL) == CROWD_OK);
    crowd_world_clear_instances(s.world);
    CHECK(crowd_world_instance_count(s.world) == 0);
    CHECK(crowd_world_remove_instance(s.world, ids[1], NULL) == CROWD_ERROR_INVALID_ARGUMENT);
    gpu_scene_destroy(&s);
    gpu_scene_destroy(&expect);
}

/* Colour classes of the bar's materials: the red factor, and the blue and
 * yellow texels of the checker texture (under any light). */
static void count_colours(const uint8_t *pixels, uint32_t counts[3]) {
    counts[0] = counts[1] = counts[2] = 0;
    for (uint32_t i = 0; i < GPU_TEST_WIDTH * GPU_TEST_HEIGHT; i++) {
        int r = pixels[4 * i], g = pixels[4 * i + 1], b = pixels[4 * i + 2];
        counts[0] += r > 2 * g + 20 && r > 2 * b + 20;
        counts[1] += b > r + 40 && b > g + 20;
        counts[2] += r > b + 60 && g > b + 40 && r < g + 60;
    }
}

/* Both materials of the merged mesh in one draw: the red lower half, the
 * textured upper half; a tint multiplies the base colour (green removes
 * the red). */
static void test_materials(const crowd_asset *bar) {
    printf("bar: materials and tint\n");
    const float min[3] = {-0.3f, 0.0f, -0.3f}, max[3] = {0.3f, 2.0f, 0.3f};
    crowd_camera camera;
    crowd_camera_frame_box(min, max, (float)GPU_TEST_WIDTH / GPU_TEST_HEIGHT, &camera);
    gpu_scene s;
    REQUIRE_VOID(gpu_scene_create(bar, NULL, CROWD_GPU_MODE_STATIC, &s));
    crowd_instance id;
    CHECK(crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id, NULL) ==
          CROWD_OK);
    uint8_t *plain = gpu_test_render(s.world, 0.0, &camera);
    crowd_instance_desc green = {.tint = {0.0f, 1.0f, 0.0f, 1.0f}};
    CHECK(crowd_instance_update(s.world, id, &green, NULL) == CROWD_OK);
    uint8_t *tinted = gpu_test_render(s.world, 0.0, &camera);
    if (plain != NULL && tinted != NULL) {
        gpu_test_save("bar_materials", "plain", plain);
        gpu_test_save("bar_materials", "green", tinted);
        uint32_t counts[3], tinted_counts[3];
        count_colours(plain, counts);
        count_colours(tinted, tinted_counts);
        printf("  red %u, blue %u, yellow %u pixels; tinted green: red %u\n", (unsigned)counts[0],
               (unsigned)counts[1], (unsigned)counts[2], (unsigned)tinted_counts[0]);
        CHECK(counts[0] > 300 && counts[1] > 100 && counts[2] > 100);
        CHECK(tinted_counts[0] == 0 && tinted_counts[1] == 0);
    }
    free(plain);
    free(tinted);
    gpu_scene_destroy(&s);
}

/* VAT in f16 and f32 (separate normal texture) and BAT in f16 decode like
 * the default encodings; rows 4 texels wide wrap every frame (VAT: 10 rows
 * per frame, BAT: 2). */
static void test_encodings(const crowd_asset *bar) {
    printf("bar: encodings\n");
    crowd_camera camera = gpu_test_bar_camera();
    float palette[24];
    fixture_pose(bar, BEND, 0.4f, -1, 0.0f, 0.0f, palette);
    uint8_t *reference = gpu_test_reference(bar, palette, &camera);
    REQUIRE_VOID(reference != NULL);
    const crowd_vat_encoding vats[4] = {CROWD_VAT_UNORM16_OCT, CROWD_VAT_F16, CROWD_VAT_F32,
                                        CROWD_VAT_UNORM16_OCT};
    const crowd_bat_encoding bats[4] = {CROWD_BAT_F32, CROWD_BAT_F16, CROWD_BAT_F32, CROWD_BAT_F32};
    for (int e = 0; e < 4; e++) {
        crowd_bake_desc desc = {
            .vat_encoding = vats[e], .bat_encoding = bats[e], .max_width = e == 3 ? 4 : 0};
        crowd_bake *bake = NULL;
        crowd_error error;
        CHECK(crowd_bake_build(bar, &desc, &bake, &error) == CROWD_OK);
        if (e == 3 && bake != NULL) {
            CHECK(bake->vat_rows_per_frame == 10 && bake->bat_rows_per_frame == 2);
        }
        for (int m = CROWD_GPU_MODE_BAT; bake != NULL && m <= CROWD_GPU_MODE_VAT; m++) {
            gpu_scene s;
            crowd_instance id;
            uint8_t *image = NULL;
            if (gpu_scene_create(bar, bake, (crowd_gpu_mode)m, &s)) {
                if (crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id,
                                             NULL) == CROWD_OK) {
                    image = gpu_test_render(s.world, 0.4, &camera);
                }
                gpu_scene_destroy(&s);
            }
            CHECK(image != NULL);
            if (image != NULL) {
                char what[64];
                snprintf(what, sizeof what, "%s encoding %d/%d%s",
                         crowd_gpu_mode_name((crowd_gpu_mode)m), (int)vats[e], (int)bats[e],
                         e == 3 ? ", rows 4 wide" : "");
                CHECK(gpu_test_close(what, reference, image, GPU_TEST_BAKED));
            }
            free(image);
        }
        crowd_bake_destroy(bake);
    }
    free(reference);
}

int test_gpu_bar(void) {
    crowd_asset *bar = fixture_bar_create();
    REQUIRE(bar != NULL);
    crowd_error error;
    CHECK_MSG(crowd_asset_validate(bar, &error) == CROWD_OK, "%s", error.reason);
    crowd_bake *bake = NULL;
    CHECK_MSG(crowd_bake_build(bar, NULL, &bake, &error) == CROWD_OK, "%s", error.reason);
    if (bake != NULL) {
        test_poses(bar, bake);
        test_crossfade(bar, bake);
        test_fade_builds(bar, bake);
        test_phase_speed(bar, bake);
        test_draw_calls_uploads(bar, bake);
        test_remove(bar, bake);
        test_encodings(bar);
        test_materials(bar);
    }
    crowd_bake_destroy(bake);
    crowd_asset_destroy(bar);
    return check_finish();
}
