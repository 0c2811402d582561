/* Real characters in every mode: the built-in humanoid (group builtin)
 * and robot.glb (group models, when ../shared/models is there), at three
 * times in two clips, and a 0.3 s crossfade between them at mid-fade,
 * against reference images of the CPU-posed mesh (see test_gpu.c for the
 * tolerances). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/bake.h"
#include "crowd/import.h"
#include "gpu_fixtures.h"
#include "test_gpu.h"

static const double FADE_EXACT = 0.005;

static bool baked_mode(int m) {
    return m == CROWD_GPU_MODE_BAT || m == CROWD_GPU_MODE_VAT;
}

/* Playback time t of a clip started at 0 (wrap or clamp, as the world). */
static float clip_time(const crowd_clip *clip, float t) {
    if (clip->duration_s <= 0.0f) {
        return 0.0f;
    }
    return clip->loop ? fmodf(t, clip->duration_s) : fminf(t, clip->duration_s);
}

static void compare_modes(const gpu_scene *s, const char *stem, double time_s,
                          const uint8_t *reference, const crowd_camera *camera, double exact,
                          double baked, bool check_static) {
    uint8_t *images[CROWD_GPU_MODE_COUNT] = {0};
    char name[160];
    snprintf(name, sizeof name, "%s_reference.png", stem);
    image_save(name, reference, GPU_TEST_WIDTH, GPU_TEST_HEIGHT);
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        if (m == CROWD_GPU_MODE_STATIC && !check_static) {
            continue;
        }
        CHECK(crowd_archetype_set_mode(s->world, s->archetype, (crowd_gpu_mode)m, NULL) ==
              CROWD_OK);
        images[m] = gpu_test_render(s->world, time_s, camera);
        CHECK(images[m] != NULL);
        if (images[m] == NULL) {
            continue;
        }
        const char *mode = crowd_gpu_mode_name((crowd_gpu_mode)m);
        snprintf(name, sizeof name, "%s_%s.png", stem, mode);
        image_save(name, images[m], GPU_TEST_WIDTH, GPU_TEST_HEIGHT);
        snprintf(name, sizeof name, "%s %s vs reference", stem, mode);
        if (m == CROWD_GPU_MODE_STATIC) {
            CHECK(gpu_test_different(name, reference, images[m], 0.1));
        } else {
            CHECK(gpu_test_close(name, reference, images[m], baked_mode(m) ? baked : exact));
        }
    }
    for (int m = CROWD_GPU_MODE_GPU; m < CROWD_GPU_MODE_COUNT; m++) {
        if (images[m] != NULL && images[CROWD_GPU_MODE_CPU] != NULL) {
            snprintf(name, sizeof name, "%s %s vs cpu", stem,
                     crowd_gpu_mode_name((crowd_gpu_mode)m));
            CHECK(gpu_test_close(name, images[CROWD_GPU_MODE_CPU], images[m],
                                 baked_mode(m) ? baked : exact));
        }
    }
    for (int m = 0; m < CROWD_GPU_MODE_COUNT; m++) {
        free(images[m]);
    }
}

static void test_model(const char *label, const crowd_asset *asset, const char *clip_a,
                       const char *clip_b) {
    printf("%s: %s and %s\n", label, clip_a, clip_b);
    int32_t source[2] = {crowd_asset_find_clip(asset, clip_a),
                         crowd_asset_find_clip(asset, clip_b)};
    REQUIRE_VOID(source[0] >= 0 && source[1] >= 0);
    /* Only the two clips are baked: the archetype's clips 0 and 1. */
    const char *names[2] = {clip_a, clip_b};
    crowd_bake_desc bake_desc = {.clips = names, .clip_count = 2};
    crowd_bake *bake = NULL;
    crowd_error error;
    CHECK_MSG(crowd_bake_build(asset, &bake_desc, &bake, &error) == CROWD_OK, "%s", error.reason);
    REQUIRE_VOID(bake != NULL);
    crowd_camera camera;
    crowd_camera_frame_box(bake->bounds_min, bake->bounds_max,
                           (float)GPU_TEST_WIDTH / GPU_TEST_HEIGHT, &camera);
    gpu_scene s;
    bool made = gpu_scene_create(asset, bake, CROWD_GPU_MODE_STATIC, &s);
    crowd_instance id;
    uint32_t found_b = 0;
    CHECK(made && crowd_world_add_instance(s.world, s.archetype, &(crowd_instance_desc){0}, &id,
                                           NULL) == CROWD_OK);
    CHECK(made && crowd_archetype_clip_count(s.world, s.archetype) == 2 &&
          crowd_archetype_find_clip(s.world, s.archetype, clip_b, &found_b) && found_b == 1);
    float *palette = malloc(12 * sizeof(float) * asset->skeleton.joint_count);
    const float times[3] = {0.2f, 0.55f, 1.1f};
    for (int c = 0; made && palette != NULL && c < 2; c++) {
        crowd_world_set_time(s.world, 0.0);
        crowd_instance_desc desc = {.clip = (uint32_t)c};
        CHECK(crowd_instance_update(s.world, id, &desc, NULL) == CROWD_OK);
        const crowd_clip *clip = &asset->clips[source[c]];
        for (int k = 0; k < 3; k++) {
            fixture_pose(asset, source[c], clip_time(clip, times[k]), -1, 0.0f, 0.0f, palette);
            uint8_t *reference = gpu_test_reference(asset, palette, &camera);
            CHECK(reference != NULL);
            if (reference != NULL) {
                char stem[128];
                snprintf(stem, sizeof stem, "%s_%s_%.2f", label, names[c], (double)times[k]);
                compare_modes(&s, stem, times[k], reference, &camera, GPU_TEST_EXACT,
                              GPU_TEST_BAKED, true);
            }
            free(reference);
        }
    }
    /* a from 0; at 0.4 s play b with a 0.3 s fade; at 0.55 s: half way. */
    if (made && palette != NULL) {
        crowd_world_set_time(s.world, 0.0);
        CHECK(crowd_instance_update(s.world, id, &(crowd_instance_desc){.clip = 0}, NULL) ==
              CROWD_OK);
        crowd_world_set_time(s.world, 0.4);
        CHECK(crowd_instance_play(s.world, id, 1, 0.3f, NULL) == CROWD_OK);
        fixture_pose(asset, source[0], clip_time(&asset->clips[source[0]], 0.55f), source[1],
                     clip_time(&asset->clips[source[1]], 0.15f), 0.5f, palette);
        uint8_t *reference = gpu_test_reference(asset, palette, &camera);
        CHECK(reference != NULL);
        if (reference != NULL) {
            char stem[128];
            snprintf(stem, sizeof stem, "%s_fade_%s_%s", label, clip_a, clip_b);
            compare_modes(&s, stem, 0.55, reference, &camera, FADE_EXACT, GPU_TEST_FADE_BAKED,
                          false);
        }
        free(reference);
    }
    free(palette);
    gpu_scene_destroy(&s);
    gpu_test_loaded_bake(label, asset, bake);
    crowd_bake_destroy(bake);
}

int test_gpu_builtin(void) {
    crowd_asset *builtin = NULL;
    crowd_error error;
    CHECK(crowd_model_load("builtin:", NULL, &builtin, &error) == CROWD_OK);
    if (builtin != NULL) {
        test_model("builtin", builtin, "walk", "run");
    }
    crowd_asset_destroy(builtin);
    return check_finish();
}

/* Run after test_gpu_builtin in one process, the tally includes its checks
 * (check.h counts per file); run alone without the models it checks
 * nothing and reports skipped. */
int test_gpu_models(void) {
    const char *robot_path = check_shared_model("robot.glb");
    if (robot_path != NULL) {
        crowd_asset *robot = NULL;
        crowd_error error;
        CHECK_MSG(crowd_import_file(robot_path, NULL, &robot, &error) == CROWD_OK, "%s",
                  error.reason);
        if (robot != NULL) {
            test_model("robot", robot, "Robot_Walking", "Robot_Running");
        }
        crowd_asset_destroy(robot);
    }
    return check_finish();
}
